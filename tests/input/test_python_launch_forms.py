"""Python launch scripts harvested from public repositories: forms of the argv list the
readers once missed or left open."""

from __future__ import annotations

import pytest

from launchplan.errors import InputError
from launchplan.input.pasted import unpaste
from launchplan.input.python_launch import launch_literal, literal_total

M = "meta-llama/Llama-3.1-8B-Instruct"


def test_an_argv_list_running_sglangs_launch_server_py_by_path_is_a_launch():
    # a source checkout's script run by path, as the shell reader takes it
    # (kexinchu/sglang-security ndss_scripts/server.py)
    for script in ("python/sglang/launch_server.py", "sglang/launch_server.py",
                   "/opt/sglang/python/sglang/launch_server.py"):
        text = (f'import subprocess, sys\ncmd = [sys.executable, "{script}", '
                f'"--model-path", "{M}", "--tp-size", "4"]\nsubprocess.run(cmd)\n')
        assert literal_total(text) == 1, script
        assert unpaste([text])[0] == ["--model-path", M, "--tp-size", "4"], script


def test_a_users_own_launch_server_py_is_no_launch():
    text = (f'import subprocess, sys\ncmd = [sys.executable, "tools/launch_server.py", '
            f'"--model-path", "{M}"]\nsubprocess.run(cmd)\n')
    assert literal_total(text) == 0


def test_an_item_indexing_a_literal_dict_by_a_name_set_to_a_literal_key():
    # the model picked from a table by a name the main block sets (an argument given at
    # run time may change it: read as the script runs with none)
    text = ('import subprocess, sys\n\nif __name__ == "__main__":\n'
            '    model_name = "small"\n    if len(sys.argv) > 1:\n'
            '        model_name = sys.argv[1]\n'
            f'    paths = {{"small": "{M}", "big": "x/y"}}\n'
            '    cmd = [sys.executable, "-m", "sglang.launch_server", "--model-path",\n'
            '           paths[model_name], "--port", str(PORT)]\n'
            '    subprocess.run(cmd)\n')
    assert launch_literal(f"PORT = 8080\n{text}")[-3:] == [M, "--port", "8080"]


def test_a_main_blocks_own_names_are_read_like_the_modules():
    text = ('import subprocess\n\nif __name__ == "__main__":\n    model = "' + M + '"\n'
            '    port = 30001\n'
            '    subprocess.run(["python3", "-m", "sglang.launch_server", "--model-path",'
            ' model, "--port", str(port)])\n')
    assert unpaste([text])[0] == ["--model-path", M, "--port", "30001"]


def test_a_table_of_models_picked_by_an_argparse_default_gives_the_launch_its_entry():
    script = ('import argparse, subprocess\n'
              'MODELS = {\n'
              '    "small": {"path": "qwen3-8b", "tp": 1},\n'
              '    "large": {"path": "llama-3.1-70b", "tp": 4},\n'
              '}\n'
              'def build_command(name):\n'
              '    cfg = MODELS[name]\n'
              '    return (f"python3 -m sglang.launch_server --model-path {cfg[\'path\']} "\n'
              '            f"--tp {cfg[\'tp\']}")\n'
              'def main():\n'
              '    parser = argparse.ArgumentParser()\n'
              '    parser.add_argument("--model", default="large")\n'
              '    args = parser.parse_args()\n'
              '    subprocess.run(build_command(args.model), shell=True)\n'
              'main()\n')
    assert unpaste([script])[0] == ["--model-path", "llama-3.1-70b", "--tp", "4"]
    # the entry read in place, without the alias
    direct = script.replace("cfg[", "MODELS[name][")
    assert unpaste([direct])[0] == ["--model-path", "llama-3.1-70b", "--tp", "4"]


@pytest.mark.parametrize("built", [
    '"python3 -m sglang.launch_server --model-path %s --tp %d --dp 2" % (model, 2)',
    '"python3 -m sglang.launch_server --model-path {} --tp {} --dp 2".format(model, tp)',
    '"python3 -m sglang.launch_server --model-path {m} --tp {t} --dp 2".format(m=model, t=2)',
    '"python3 -m sglang.launch_server --model-path {0} --tp {1} --dp 2".format(model, tp)',
])
def test_a_command_filled_by_percent_or_format_is_read_with_its_values(built):
    """``"..." % args`` and ``"...".format(...)`` fill their fields from names the script
    sets (the fields had stayed in the launch: ``--tp %d``)."""
    script = f'import os\nmodel = "qwen3-8b"\ntp = 2\nos.system({built})\n'
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2", "--dp", "2"]


@pytest.mark.parametrize("escape", [
    "!nohup python -m sglang.launch_server --model-path {model_id} --port {port} > log.txt 2>&1 &",
    "!python -m sglang.launch_server --model-path $model_id --port $port &",
])
def test_a_notebook_shell_escape_is_filled_from_the_cell_s_names(escape):
    """IPython fills ``{expr}`` and ``$name`` in a ``!`` line from the notebook's names, and
    the escape's shell inherits what the cell puts in ``os.environ``."""
    cell = ('import os\nmodel_id = "qwen3-8b"\nport = 30001\n'
            'os.environ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"] = "1"\n' + escape + "\n")
    assert unpaste([cell]) == (["--model-path", "qwen3-8b", "--port", "30001"],
                               ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"])


@pytest.mark.parametrize("script", [
    'import click, subprocess\n@click.command()\n@click.option("--model", default="qwen3-8b")\n'
    '@click.option("-t", "--tensor-parallel", default=2, type=int)\n'
    "def main(model, tensor_parallel):\n"
    '    subprocess.run(["python", "-m", "sglang.launch_server", "--model-path", model, '
    '"--tp", str(tensor_parallel)])\n',
    "import typer, subprocess\napp = typer.Typer()\n@app.command()\n"
    'def serve(model: str = typer.Option("qwen3-8b"), tp: int = typer.Option(default=2)):\n'
    '    subprocess.run(f"python -m sglang.launch_server --model-path {model} --tp {tp}", '
    "shell=True)\n",
])
def test_a_cli_wrapper_s_option_defaults_fill_its_launch(script):
    """A click or Typer command run without arguments launches with its options' defaults."""
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


@pytest.mark.parametrize(("made", "expected"), [
    ("cfg = Cfg()", ["--model-path", "qwen3-8b", "--tp", "2", "--port", "30001"]),
    ('cfg = Cfg("qwen3-32b", tp=4)', ["--model-path", "qwen3-32b", "--tp", "4", "--port", "30001"]),
])
def test_a_settings_objects_fields_fill_the_launch_it_builds(made, expected):
    # a dataclass's defaults, ``field(default=...)`` among them, over the constructor's
    # arguments (positional in field order); a ClassVar is no field
    script = ("from dataclasses import dataclass, field\nfrom typing import ClassVar\n"
              "import subprocess\n\n@dataclass\nclass Cfg:\n    NAME: ClassVar[str] = 'x'\n"
              "    model: str = 'qwen3-8b'\n    tp: int = 2\n"
              "    port: int = field(default=30001)\n\n"
              f"{made}\nsubprocess.run(['python', '-m', 'sglang.launch_server', "
              "'--model-path', cfg.model, '--tp', str(cfg.tp), '--port', f'{cfg.port}'])\n")
    assert unpaste([script])[0] == expected
    # the class's own attribute is its default
    by_class = script.replace("cfg.model", "Cfg.model")
    assert unpaste([by_class])[0][:2] == ["--model-path", "qwen3-8b"]


def test_a_settings_class_s_own_method_reads_its_fields():
    # porter's ServerConfig: build_cmd(self) reads self.tp; the script's instance, else the
    # defaults; an imported constant stays open
    script = ("from dataclasses import dataclass\nimport subprocess\n\n@dataclass\n"
              "class ServerConfig:\n    model: str = 'qwen3-8b'\n    tp: int = 8\n"
              "    attention_backend: str = 'triton'\n\n"
              "    def build_cmd(self) -> list[str]:\n"
              "        return ['python3', '-m', 'sglang.launch_server', '--model-path', "
              "self.model, '--tp', str(self.tp), '--attention-backend', "
              "self.attention_backend]\n\n"
              "cfg = ServerConfig(tp=4)\nsubprocess.run(cfg.build_cmd())\n")
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "4",
                                    "--attention-backend", "triton"]
    made_later = script.replace("cfg = ServerConfig(tp=4)\n", "")
    assert unpaste([made_later])[0][3] == "8"  # the default, with no instance made


def test_a_list_parsed_by_a_parser_given_sglangs_flags_is_a_launch():
    script = ("import argparse\nfrom sglang.srt.server_args import ServerArgs\n"
              "parser = argparse.ArgumentParser()\nServerArgs.add_cli_args(parser)\n"
              'args = parser.parse_args(["--model-path", "qwen3-8b", "--tp-size", "2"])\n'
              "server_args = ServerArgs.from_cli_args(args)\n")
    assert unpaste([script]) == (["--model-path", "qwen3-8b", "--tp-size", "2"], [])
    # a parser of the script's own is not SGLang's
    other = script.replace("ServerArgs.add_cli_args(parser)\n", "parser.add_argument('--x')\n")
    with pytest.raises(InputError):
        unpaste([other])
