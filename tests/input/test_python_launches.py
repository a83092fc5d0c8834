"""Several launches in one pasted Python script: each counted in source order, the one
asked for picked, as the shell reader counts and picks a text's command lines."""

from __future__ import annotations

from launchplan.input.python_launch import (
    launch_literal,
    launch_literal_at,
    literal_total,
    script_environment,
)

M = "meta-llama/Llama-3.1-8B-Instruct"

DOCSTRING = f'''"""Usage:

    python -m sglang.launch_server --model-path {M} --port 30000
    python -m sglang.launch_server --model-path {M} --port 30001 --tp 2

then run this script.
"""
import requests
print(requests.get("http://localhost:30000").text)
'''

POPENS = f'''import os, subprocess
os.environ["SGLANG_A"] = "1"
a = subprocess.Popen(["python3", "-m", "sglang.launch_server", "--model-path", "{M}"],
                     env={{"ONLY_A": "1"}})
os.environ["SGLANG_B"] = "1"
b = subprocess.Popen(["python3", "-m", "sglang.launch_server", "--model-path", "{M}",
                      "--tp", "2"], env={{"ONLY_B": "1"}})
'''


def test_a_usage_docstrings_command_lines_are_each_a_launch():
    assert literal_total(DOCSTRING) == 2
    text, within = launch_literal_at(DOCSTRING, launch=2)
    assert "--port 30001 --tp 2" in text and within == 2


def test_two_argv_lists_are_two_launches_picked_in_source_order():
    assert literal_total(POPENS) == 2
    assert launch_literal(POPENS) == ["python3", "-m", "sglang.launch_server",
                                      "--model-path", M]
    assert launch_literal(POPENS, launch=2)[-2:] == ["--tp", "2"]
    assert launch_literal(POPENS, launch=9)[-2:] == ["--tp", "2"]  # past the last: the last


def test_each_launch_gets_the_environment_set_before_it_and_its_own_calls_env():
    assert script_environment(POPENS) == ["SGLANG_A=1", "ONLY_A=1"]
    assert script_environment(POPENS, launch=2) == ["SGLANG_A=1", "ONLY_A=1"][:1] + [
        "SGLANG_B=1", "ONLY_B=1"]


def test_a_launch_literal_is_found_in_source_order_not_by_nesting_depth():
    # the function's Popen comes first in the text, deeper in the tree than the later
    # module-level command
    text = (f'def start():\n    import subprocess\n    subprocess.Popen(["python3", "-m", '
            f'"sglang.launch_server", "--model-path", "{M}", "--port", "1"])\n\n'
            f'CMD = "python3 -m sglang.launch_server --model-path {M} --port 2"\n')
    assert launch_literal(text)[-1] == "1"
    assert launch_literal(text, launch=2).endswith("--port 2")


def test_a_printed_or_logged_command_is_no_launch_of_its_own():
    text = (f'import subprocess\nCMD = "python3 -m sglang.launch_server --model-path {M}"\n'
            'print(f"starting: {CMD}")\nlogger.info("run: %s", CMD)\n'
            'subprocess.Popen(CMD, shell=True)\n')
    assert literal_total(text) == 1


def test_a_command_an_f_string_builds_on_is_that_launchs_piece():
    text = (f'import subprocess\nBASE = "python3 -m sglang.launch_server --model-path {M}"\n'
            'subprocess.run(f"{BASE} --port 30001", shell=True)\n')
    assert literal_total(text) == 1
    assert launch_literal(text) == f"python3 -m sglang.launch_server --model-path {M} --port 30001"


def test_an_f_string_launch_is_not_counted_again_for_its_own_text():
    text = 'tp = 2\ncmd = f"python -m sglang.launch_server --model-path m --tp {tp}"\n'
    assert literal_total(text) == 1
    assert launch_literal(text) == "python -m sglang.launch_server --model-path m --tp 2"


def test_a_server_class_launches_with_the_arguments_the_script_constructs_it_with():
    # a manager class keeps its constructor's arguments as self.X and builds the command
    # from them (seen in a 2025 script: SGLangServer(model_path=..., tp=2).launch_server())
    text = ('class SGLangServer:\n'
            '    def __init__(self, model_path: str, tp: int = 1, port: int = 30000):\n'
            '        self.model_path = model_path\n        self.tp = tp\n'
            '        self.port = port\n        self.url = None\n'
            '    def launch_server(self):\n'
            '        launch_server_cmd(f"python3 -m sglang.launch_server --model-path '
            '{self.model_path} --tp {self.tp} --port {self.port}")\n\n'
            f'server = SGLangServer(model_path="{M}", tp=2)\nserver.launch_server()\n')
    assert launch_literal(text) == (f"python3 -m sglang.launch_server --model-path {M} "
                                    "--tp 2 --port 30000")
    built = ('import subprocess, sys\nclass Server:\n'
             '    def __init__(self, model_path, tp=4):\n'
             '        self._proc = subprocess.Popen([sys.executable, "-m", '
             '"sglang.launch_server", "--model-path", model_path, "--tp", str(tp)])\n\n'
             f'Server("{M}")\n')
    assert launch_literal(built)[-4:] == ["--model-path", M, "--tp", "4"]
