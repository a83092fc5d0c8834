"""Python-script forms a ninth harvest of real launch texts found misread (findings F1, F4,
F7, F8, F10, F11, F15, F17): each test fails without its fix."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.pasted import launch_count, unpaste

POPEN = ('subprocess.Popen(["python", "-m", "sglang.launch_server", "--model-path", '
         '"qwen3-8b", "--tp", "2"])')


@pytest.mark.parametrize("server", [
    POPEN,
    'subprocess.Popen("python -m sglang.launch_server --model-path qwen3-8b --tp 2", '
    "shell=True)",
    f"def serve():\n    {POPEN}\nserve()",
])
def test_a_server_started_beside_an_engine_is_a_launch_of_its_own(server):
    """A script with a ``subprocess.Popen`` server and an ``sgl.Engine(...)`` holds both
    launches, in the file's order (find_string id 48448645279, a Modal app whose ``serve()``
    starts the server and ``inference_test()`` an engine); the engine alone was read."""
    text = (f"import subprocess\nimport sglang as sgl\n{server}\n"
            'llm = sgl.Engine(model_path="qwen3-8b")\n')
    assert launch_count([text]) == 2
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]
    assert unpaste([text], launch=2)[0] == ["--model-path", "qwen3-8b"]
    engine_first = ("import subprocess\nimport sglang as sgl\n"
                    'llm = sgl.Engine(model_path="qwen3-8b", tp_size=4)\n' + POPEN + "\n")
    assert unpaste([engine_first])[0] == ["--model-path", "qwen3-8b", "--tp-size", "4"]
    assert unpaste([engine_first], launch=2)[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


def test_the_server_beside_an_engine_keeps_its_environment():
    text = ("import os, subprocess\nimport sglang as sgl\n"
            'os.environ["SGLANG_X"] = "1"\n' + POPEN[:-1] + ', env={"NCCL_DEBUG": "INFO"})\n'
            'llm = sgl.Engine(model_path="qwen3-8b")\n')
    assert unpaste([text]) == (["--model-path", "qwen3-8b", "--tp", "2"],
                               ["SGLANG_X=1", "NCCL_DEBUG=INFO"])


ARGPARSE = ('import argparse, subprocess\nDEFAULT_MODEL = "qwen3-8b"\n'
            "p = argparse.ArgumentParser()\n"
            'p.add_argument("--model", default=DEFAULT_MODEL)\nargs = p.parse_args()\n')


@pytest.mark.parametrize("text", [
    ARGPARSE + 'subprocess.run(["python3", "-m", "sglang.launch_server", "--model-path", '
    'args.model, "--tp", "2"])\n',
    'import os, subprocess\nDEFAULT_MODEL = "qwen3-8b"\n'
    'MODEL = os.environ.get("MODEL", DEFAULT_MODEL)\n'
    'subprocess.Popen(["python3", "-m", "sglang.launch_server", "--model-path", MODEL, '
    '"--tp", "2"])\n',
    "import subprocess, click\nDEFAULT_TP = 2\n@click.command()\n"
    '@click.option("--model", default="qwen3-8b")\n@click.option("--tp", default=DEFAULT_TP)\n'
    "def main(model, tp):\n"
    '    subprocess.Popen(["python3", "-m", "sglang.launch_server", "--model-path", model, '
    '"--tp", str(tp)])\nmain()\n',
    "import argparse, subprocess\ndef main():\n    parser = argparse.ArgumentParser()\n"
    '    parser.add_argument("--model_path", default="qwen3-8b")\n'
    "    args = parser.parse_args()\n    model_path = args.model_path\n"
    '    subprocess.run(["python", "-m", "sglang.launch_server", "--model-path", model_path, '
    '"--tp", "2"])\nmain()\n',
])
def test_a_name_bound_to_another_name_is_followed_in_an_argv(text):
    """A default given through a constant (``default=DEFAULT_MODEL``, find_string id
    12243862391, a RunPod deploy script; ``os.environ.get("MODEL", DEFAULT_MODEL)``; click's
    ``default=DEFAULT_TP``) and ``model_path = args.model_path`` were open one level down."""
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


@pytest.mark.parametrize("text", [
    'import sglang as sgl\nMODEL = "qwen3-8b"\nmodel_path = MODEL\n'
    "llm = sgl.Engine(model_path=model_path, tp_size=2)\n",
    "import argparse\nimport sglang as sgl\ndef main():\n"
    "    parser = argparse.ArgumentParser()\n"
    '    parser.add_argument("--model_path", type=str, default="qwen3-8b")\n'
    "    args = parser.parse_args()\n    model_path = args.model_path\n"
    "    llm = sgl.Engine(model_path=model_path, tp_size=2)\nmain()\n",
])
def test_a_name_bound_to_another_name_is_followed_in_an_engine_call(text):
    """``model_path = args.model_path`` then ``sgl.Engine(model_path=model_path)``, the
    common line of offline-inference scripts (find_string id 66161481742, an alpaca_eval
    script)."""
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp-size", "2"]


def test_a_cycle_of_names_stays_open():
    text = ('import sglang as sgl\na = b\nb = a\nllm = sgl.Engine(model_path=a)\n')
    assert unpaste([text])[0] == ["--model-path", "${b}"]


def test_a_functions_local_environment_default_is_taken():
    """A command builder's ``tp = os.environ.get("SGLANG_TP", "2")`` inside the function
    (find_string id 48448645279, a Modal app's ``_build_server_args()``): the default, as at
    module level. Each function's locals are its own: the same name in two functions is two
    names."""
    text = ("import os, subprocess\ndef build_args():\n"
            '    tp = os.environ.get("SGLANG_TP", "2")\n'
            '    return ["python", "-m", "sglang.launch_server", "--model-path", "qwen3-8b", '
            '"--tp", str(tp)]\n'
            "def other():\n    tp = 8\n    return tp\n"
            "subprocess.Popen(build_args())\n")
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


def test_getenv_or_a_default_is_the_default():
    """``os.getenv("X") or "default"`` (find_string id 2043687850, a Modal flash app): an
    unset variable is None, so the default; an ``if`` on it decides the flags a
    ``params.update(...)`` under it adds. A lookup with no default alone stays open."""
    text = ('import os, subprocess\nMODEL = os.getenv("MODEL") or "qwen3-8b"\n'
            'TP = os.environ.get("TP") or "2"\nUSE_EAGLE = os.getenv("USE_EAGLE") or "1"\n'
            "def serve():\n"
            '    params = {"model-path": MODEL, "tp": TP}\n'
            '    if USE_EAGLE == "1":\n'
            '        params.update({"speculative-algorithm": "EAGLE"})\n'
            '    cmd = "python -m sglang.launch_server " + " ".join('
            '[f"--{k}={v}" for k, v in params.items()])\n'
            "    subprocess.Popen(cmd, shell=True)\nserve()\n")
    assert unpaste([text])[0] == ["--model-path=qwen3-8b", "--tp=2",
                                  "--speculative-algorithm=EAGLE"]
    alone = ('import os, subprocess\nMODEL = os.getenv("MODEL")\n'
             'subprocess.Popen(["python", "-m", "sglang.launch_server", "--model-path", MODEL])\n')
    assert unpaste([alone])[0] == ["--model-path", "${MODEL}"]


def test_a_functions_local_literals_fill_its_f_string():
    """``host = "10.0.0.1"; port = 5000`` inside ``def serve()`` then ``f"{host}:{port}"``
    in the flags dict (seen with the same Modal flash app's shape)."""
    text = ("import subprocess\ndef serve():\n"
            '    host = "10.0.0.1"\n    port = 5000\n'
            '    params = {"model-path": "qwen3-8b", "dist-init-addr": f"{host}:{port}"}\n'
            '    cmd = "python -m sglang.launch_server " + " ".join('
            '[f"--{k} {v}" for k, v in params.items()])\n'
            "    subprocess.Popen(cmd, shell=True)\nserve()\n")
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--dist-init-addr",
                                  "10.0.0.1:5000"]


@pytest.mark.parametrize("text", [
    "import sglang as sgl\ndef launch(model):\n"
    "    return sgl.Engine(model_path=model, tp_size=2)\nlaunch(\"qwen3-8b\")\n",
    'import sglang as sgl\ndef launch(model="qwen3-8b"):\n'
    "    return sgl.Engine(model_path=model, tp_size=2)\nlaunch()\n",
    "import sglang as sgl\nclass Infer:\n    def __init__(self, model_path: str):\n"
    "        self.engine = sgl.Engine(model_path=model_path, tp_size=2)\n"
    'infer = Infer("qwen3-8b")\n',
])
def test_an_engine_in_a_function_takes_its_parameters_from_the_call(text):
    """``sgl.Engine(...)`` in a wrapper function or a class's ``__init__`` (find_string ids
    55403975331 MiMoAudioInfer, 53245505464 AsyncRollout): the parameters are what the
    script's first call (or ``Class(...)``) passes, else their defaults."""
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp-size", "2"]


def test_a_parameter_no_call_fills_stays_open():
    text = ("import sglang as sgl\ndef launch(model):\n"
            "    return sgl.Engine(model_path=model, tp_size=2)\n")
    assert unpaste([text])[0] == ["--model-path", "${model}", "--tp-size", "2"]


def test_a_list_from_a_dict_literals_entry_is_joined_to_the_argv():
    """``[...] + CONFIG["extra_args"]`` (find_string id 6835632267, an SGLang benchmark
    runner): the dict literal's list, as Python joins it."""
    text = ('import subprocess, sys\nCONFIG = {"model_path": "m", '
            '"extra_args": ["--trust-remote-code"]}\n'
            'cmd = [sys.executable, "-m", "sglang.launch_server", "--model-path", '
            'CONFIG["model_path"]] + CONFIG["extra_args"]\nsubprocess.Popen(cmd)\n')
    notes: list[str] = []
    assert unpaste([text], notes=notes)[0] == ["--model-path", "m", "--trust-remote-code"]
    assert not notes


@pytest.mark.parametrize("text", [
    'import sglang as sgl\nCONFIG = {"model_path": "qwen3-8b", "tp_size": 2}\n'
    'llm = sgl.Engine(model_path=CONFIG["model_path"], tp_size=CONFIG["tp_size"])\n',
    'import sglang as sgl\ndef engine_kwargs():\n    return {"model_path": "qwen3-8b", '
    '"tp_size": 2}\nllm = sgl.Engine(**engine_kwargs())\n',
    'import sglang as sgl\ndef engine_kwargs():\n    """Shared settings."""\n'
    '    return {"model_path": "qwen3-8b", "tp_size": 2}\n'
    "kw = engine_kwargs()\nllm = sgl.Engine(**kw)\n",
    'import sglang as sgl\nCONFIG = {"engine": {"model_path": "qwen3-8b", "tp_size": 2}}\n'
    'llm = sgl.Engine(**CONFIG["engine"])\n',
])
def test_an_engines_keywords_from_a_dict_literal_are_read(text):
    """``CONFIG["tp_size"]`` in ``sgl.Engine(...)`` keywords (find_string id 7269860858)
    and ``sgl.Engine(**build_engine_kwargs(args))`` of a function returning a dict literal
    (find_string id 54936466100, a KV-reuse experiment) were open or refused."""
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp-size", "2"]


def test_a_kwargs_builders_parameter_reads_the_callers_options():
    text = ('import argparse\nimport sglang as sgl\nDEFAULT_MODEL = "qwen3-8b"\n'
            "parser = argparse.ArgumentParser()\n"
            'parser.add_argument("--model", default=DEFAULT_MODEL)\n'
            "args = parser.parse_args()\n"
            "def build_engine_kwargs(args):\n"
            '    return {"model_path": args.model, "tp_size": 1}\n'
            "llm = sgl.Engine(**build_engine_kwargs(args))\n")
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp-size", "1"]


@pytest.mark.parametrize("hint", [
    'print("python -m sglang.launch_server --model-path qwen3-8b --tp 2")',
    'print(\n    "python -m sglang.launch_server \\\\\\n"\n    "    --model-path qwen3-8b \\\\\\n"'
    '\n    "    --tp 2"\n)',
    'def check(model_id):\n    raise SystemExit(f"not reachable\\nStart it with:\\n"\n'
    '                     f"  python -m sglang.launch_server --model-path {model_id} '
    '--port 8002")',
])
def test_a_script_that_only_prints_a_launch_holds_none(hint, capsys):
    """A client that prints or raises "start the server with: python -m
    sglang.launch_server ..." (find_string id 70468421503, kv_attack's sglang_backend.py)
    starts nothing: no launch, said so, never junk argv (``'2)'``, ``'\\n'``)."""
    text = f"import os\n{hint}\n"
    with pytest.raises(InputError, match="only prints or raises an SGLang command"):
        unpaste([text])
    assert main(["resolve", "--gpu", "h100", text]) == 2
    err = capsys.readouterr().err
    assert "got none" in err and "positional" not in err


@pytest.mark.parametrize("text", [
    "import sglang as sgl\nimport click\nDEFAULT_TP = 2\n@click.command()\n"
    '@click.option("--model", default="qwen3-8b")\n@click.option("--tp", default=DEFAULT_TP)\n'
    "def main(model, tp):\n    llm = sgl.Engine(model_path=model, tp_size=tp)\nmain()\n",
    "import sglang as sgl\nimport typer\nDEFAULT_TP = 2\n"
    'def main(model: str = typer.Option("qwen3-8b"), tp: int = typer.Option(DEFAULT_TP)):\n'
    "    llm = sgl.Engine(model_path=model, tp_size=tp)\ntyper.run(main)\n",
])
def test_a_cli_options_default_through_a_constant_fills_an_engine(text):
    """click's ``default=DEFAULT_TP`` and Typer's ``typer.Option(DEFAULT_TP)`` filling an
    engine's keywords: what a run without arguments gets (F4's click form, min14b)."""
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp-size", "2"]


def test_an_environment_write_of_a_parameter_takes_the_callers_value():
    """``configure_environment(args.gpu)`` writing ``os.environ["CUDA_VISIBLE_DEVICES"] =
    gpu`` before the engine (find_string id 54936466100): the option's default."""
    text = ("import argparse, os\nimport sglang as sgl\n"
            "parser = argparse.ArgumentParser()\n"
            'parser.add_argument("--gpu", default="1")\nargs = parser.parse_args()\n'
            "def configure_environment(gpu: str) -> None:\n"
            '    os.environ["CUDA_VISIBLE_DEVICES"] = gpu\n'
            "configure_environment(args.gpu)\n"
            'llm = sgl.Engine(model_path="qwen3-8b")\n')
    assert unpaste([text]) == (["--model-path", "qwen3-8b"], ["CUDA_VISIBLE_DEVICES=1"])


def test_a_docstrings_command_beside_an_engine_is_no_launch():
    """A usage line in the docstring of a script that starts an engine shows a command; the
    engine is the script's one launch."""
    text = ('"""Offline check.\n\nCompare: python -m sglang.launch_server --model-path '
            'qwen3-8b --tp 2\n"""\nimport sglang as sgl\nllm = sgl.Engine(model_path="qwen3-8b")\n')
    assert launch_count([text]) == 1
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b"]


def test_an_engine_in_a_method_takes_its_parameters_from_the_objects_call():
    """``runner.load("qwen3-8b")`` of ``class Runner: def load(self, model, tp=2):
    self.engine = sgl.Engine(...)``: the method's first call, ``self`` not passed."""
    text = ("import sglang as sgl\nclass Runner:\n    def load(self, model, tp=2):\n"
            "        self.engine = sgl.Engine(model_path=model, tp_size=tp)\n"
            'r = Runner()\nr.load("qwen3-8b")\n')
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp-size", "2"]
