"""A Python script that holds an SGLang command only as data starts nothing: a lint test's
table of allowed notebook commands, a builder test's expected piece, a local a regex test
matches. Only a command that reaches something that may run it (``subprocess``, SGLang's
``launch_server_cmd``, any call not known to leave it be) is a launch, and a bare command
string with nothing around it stays the user's launch."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.pasted import launch_count, unpaste
from launchplan.input.python_launch import launch_literal_at, literal_total

# unslothai/notebooks, a lint test that no notebook backgrounds a `!` command (harvest h12
# texts/014, find_string id 60242402410; its `!` line folding helpers cut): the offending
# launch is kept as data, in a table of grandfathered notebooks and in test strings.
UNSLOTH_LINT = r'''"""A `!` command must not end in `&`. Only Colab's kernel tolerates it.

`ipykernel`'s `ZMQInteractiveShell.system_piped` refuses a backgrounded
command outright:

    if cmd.rstrip().endswith("&"):
        raise OSError("Background processes not supported.")

so on Kaggle, plain Jupyter or papermill the cell cannot run at all.
"""

import json
import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
NB_DIR = REPO_ROOT / "nb"

_SGLANG = (
    "unslothai/notebooks#317",
    "!nohup python -m sglang.launch_server --model-path unsloth/gemma-3n-E2B-it"
    " --attention-backend fa3 --port 8000 > sglang.log &",
)
KNOWN = {
    "Gemma3N_(2B)-Inference.ipynb": _SGLANG,
    "Kaggle-Gemma3N_(2B)-Inference.ipynb": _SGLANG,
    "AMD-Gemma3N_(2B)-Inference.ipynb": _SGLANG,
}


def test_a_second_sglang_command_is_not_hidden():
    """A substring marker like `sglang.launch_server` would filter this one out
    too, and the notebook would go on skipping instead of reporting it."""
    name, (_pr, _allowed) = next(iter(KNOWN.items()))
    second = "!nohup python -m sglang.launch_server --port 8001 > two.log &"
    commands = [second]
    assert commands == [second]


def test_editing_the_grandfathered_command_is_reported():
    name, (_pr, allowed) = next(iter(KNOWN.items()))
    edited = allowed.replace("--port 8000", "--port 8001")
    assert edited != allowed
'''

# The sibling test of the same repository (h12 texts/015, find_string id 60020508056; its
# live-kernel test cut): a local launch line that only a regex is tried on. (Its docstring's
# example line is prose the shell reading takes up: not read as Python here.)
UNSLOTH_PATTERN = r'''"""No notebook may start a server with a backgrounded `!` shell command.

`Gemma3N_(2B)-Inference` launched its server with

    !nohup python -m sglang.launch_server ... > sglang.log &

IPython refuses that. `InteractiveShell.system_piped` raises
`OSError("Background processes not supported.")` for any command whose
stripped form ends in `&`, and `ipykernel.zmqshell.ZMQInteractiveShell` binds
`system = system_piped`. Colab is the exception: it replaces `ip.system` with
`system_raw`, which is why this never showed there. Every other kernel --
Kaggle, plain Jupyter, papermill -- could not run the cell at all.

`subprocess.Popen` works on every kernel and hands back a handle, which is also
what lets the wait be bounded: sglang's `wait_for_server` takes `timeout` and
`process`, and with neither it waits forever, exactly like the
`while ! grep -q ... ; do sleep 5; done` loop that shape replaces.
"""

import json
import re
from pathlib import Path

import pytest

_BACKGROUNDED = re.compile(r"^\s*!.*(?<!&)&\s*$")


def test_the_pattern_matches_the_shape_it_is_meant_to_catch():
    """Guards the rule itself, so a regex edit cannot silently disarm it."""
    launch = ("!nohup python -m sglang.launch_server --model-path m "
              "--port 8000 > sglang.log &")
    assert _BACKGROUNDED.match(launch)
    assert _BACKGROUNDED.match("!python server.py &  ")
    assert not _BACKGROUNDED.match("!pip install a && pip install b")
    assert not _BACKGROUNDED.match("!pip install sglang")
    assert not _BACKGROUNDED.match("server = subprocess.Popen([...])  # &")
'''

# llm_cal's tests of its command generators (find_string id 53889617247, the SGLang class):
# the launcher's words are only looked for in what the code under test builds.
LLM_CAL_TEST = '''class TestSglangCommand:
    def test_basic_shape(self):
        cmd = generate_sglang_command(
            "deepseek-ai/DeepSeek-V3.2",
            _profile("deepseek_v3_2"),
            tensor_parallel_size=8,
            entry=None,
        )
        assert "python -m sglang.launch_server" in cmd
        assert "--model-path deepseek-ai/DeepSeek-V3.2" in cmd
        assert "--tp 8" in cmd
        assert "--context-length" in cmd
'''

# vllm_tuner's SGLang framework (find_string id 52279969579, its docstrings cut): a builder
# no call in the text reaches, a library's, so its command stays the launch.
VLLM_TUNER = '''from vllm_tuner.frameworks.base import InferenceFramework


class SGLangFramework(InferenceFramework):
    def build_start_cmd(self, model_weights: str, config: dict) -> str:
        cmd = f"python -m sglang.launch_server --model-path {model_weights} --port {self.port}"
        if "mem_fraction_static" in config:
            cmd += f" --mem-fraction-static {config['mem_fraction_static']}"
        return cmd
'''


def _resolve(text: str, capsys: pytest.CaptureFixture[str], model: str) -> tuple[int, str]:
    code = main(["resolve", "--gpu", "h100", text, "--model-path", model])
    return code, capsys.readouterr().err


def test_a_lint_tests_table_of_allowed_commands_starts_nothing(capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code, err = _resolve(UNSLOTH_LINT, capsys, "gemma-3-27b")
    assert code == 2
    assert err.count("\n") == 1
    assert ("the Python script holds SGLang commands only as data (lines 21, 37: it compares "
            "them and runs nothing with them), which start nothing") in err
    assert literal_total(UNSLOTH_LINT) == 0
    # the same table entry handed to subprocess is the launch; the test string stays data
    ran = UNSLOTH_LINT + "\n\nimport subprocess\nsubprocess.run(_SGLANG[1], shell=True)\n"
    assert unpaste([ran])[0] == ["--model-path", "unsloth/gemma-3n-E2B-it",
                                 "--attention-backend", "fa3", "--port", "8000"]
    assert launch_count([ran]) == 1


def test_a_builder_tests_expected_launcher_words_are_compared_not_run(capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code, err = _resolve(LLM_CAL_TEST, capsys, "llama-3.1-8b")
    assert code == 2
    assert ("holds an SGLang command only as data (line 9: it compares it and runs nothing "
            "with it), which starts nothing; paste the command itself to plan it") in err
    # a builder the text never calls keeps its command (a library's function)
    assert launch_literal_at(VLLM_TUNER) == (
        "python -m sglang.launch_server --model-path ${model_weights} --port ${self.port}", 1)


def test_a_local_launch_line_a_regex_is_tried_on_is_data():
    assert literal_total(UNSLOTH_PATTERN) == 0
    with pytest.raises(InputError, match=r"only as data \(line 31: it asserts on it and runs "
                                         r"nothing with it\)"):
        launch_literal_at(UNSLOTH_PATTERN)


def test_a_docstrings_notebook_escape_is_no_cell_of_the_script(capsys, monkeypatch):
    """The docstring quotes the notebook's ``!nohup ...`` line: the text is Python as
    written, so that line is inside a string, not a shell escape the script runs; the
    script's own reading (data) decides, not an ellipsis in the quoted line."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code, err = _resolve(UNSLOTH_PATTERN, capsys, "gemma-3-27b")
    assert code == 2 and err.count("\n") == 1
    assert "only as data (line 31: it asserts on it and runs nothing with it)" in err
    assert "ellipsis" not in err


# the probes' shape (h12 probe/s1-s3.py): one command string, then what is done with it
SNIPPET = ('cmd = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct'
           ' --tp 2"')


@pytest.mark.parametrize("use, said", [
    ("assert '--tp 2' in cmd", "it compares it"),
    ("assert cmd.startswith('python')", "it asserts on it"),
    ("KNOWN = ('issue#1', cmd)\nprint(KNOWN[1])", "it prints it"),
    ("self.assertIn('--tp', cmd.split())", "it asserts on it"),
    ("table = {}\ntable['a'] = cmd\nfor key, line in table.items():\n    assert line != key",
     "it compares it"),
])
def test_each_way_of_only_handling_a_command_as_data_is_named(use, said):
    with pytest.raises(InputError, match=f"only as data \\(line 1: {said} and runs nothing"):
        launch_literal_at(f"{SNIPPET}\n{use}\n")
    # the bare string, and the same one handed on to any call, stay the launch
    assert launch_literal_at(SNIPPET) is not None
    run = f"{SNIPPET}\n{use}\nserver = launch_server_cmd(cmd)\n"
    assert "--tp 2" in str(launch_literal_at(run))
