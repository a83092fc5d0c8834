"""Python-script forms a tenth harvest of real launch texts found misread (findings E and
C, and the note on ``self.x = x or os.getenv(...)``): each test fails without its fix."""

from __future__ import annotations

import pytest

from launchplan.input.pasted import launch_count, unpaste

NIGHTLY = '''import unittest

from sglang.test.run_combined_tests import run_combined_tests
from sglang.test.test_utils import ModelLaunchSettings

MODEL_PATH = "deepseek-ai/DeepSeek-V3.2"

BASE_ARGS = [
    "--trust-remote-code",
    "--model-loader-extra-config",
    '{"enable_multithread_load": true}',
]

DP_ARGS = ["--tp=8", "--dp=8", "--enable-dp-attention"]


class TestDeepseekV32(unittest.TestCase):
    def test_variants(self):
        MTP_ARGS = ["--speculative-algorithm=EAGLE", "--speculative-num-steps=3"]
        variants = [
            ModelLaunchSettings(
                MODEL_PATH,
                tp_size=8,
                extra_args=BASE_ARGS + DP_ARGS,
                variant="DP8",
            ),
            ModelLaunchSettings(
                MODEL_PATH,
                tp_size=8,
                extra_args=BASE_ARGS + MTP_ARGS,
                env={"SGLANG_X": "1"},
                variant="TP8+MTP",
            ),
        ]
        run_combined_tests(models=variants, test_name="DeepSeek-V3.2")
'''

URL = ["--host", "127.0.0.1", "--port", "21000"]


def test_each_model_launch_settings_is_a_launch_in_order():
    """SGLang's nightly tests describe each server as ``ModelLaunchSettings(model,
    tp_size=8, extra_args=[...], env={...})`` handed to ``run_combined_tests`` (find_string
    id 2509219590, test_deepseek_v32.py; ids 54711076491, 66763037467, 2450478408): SGLang
    0.5.23's test_utils.py appends ``--tp 8`` (``--tp=8`` is not the word ``--tp``), then
    ``--enable-multimodal`` and ``--trust-remote-code`` unless given; the runner starts it
    with popen_launch_server at DEFAULT_URL_FOR_TEST. The text was "finds none"."""
    assert launch_count([NIGHTLY]) == 2
    assert unpaste([NIGHTLY]) == ([
        "--model-path", "deepseek-ai/DeepSeek-V3.2", "--trust-remote-code",
        "--model-loader-extra-config", '{"enable_multithread_load": true}',
        "--tp=8", "--dp=8", "--enable-dp-attention", "--tp", "8", "--enable-multimodal",
        *URL], [])
    assert unpaste([NIGHTLY], launch=2) == ([
        "--model-path", "deepseek-ai/DeepSeek-V3.2", "--trust-remote-code",
        "--model-loader-extra-config", '{"enable_multithread_load": true}',
        "--speculative-algorithm=EAGLE", "--speculative-num-steps=3", "--tp", "8",
        "--enable-multimodal", *URL], ["SGLANG_X=1"])


@pytest.mark.parametrize(("call", "argv"), [
    ('ModelLaunchSettings("qwen3-8b")', ["--enable-multimodal", "--trust-remote-code"]),
    ('ModelLaunchSettings("qwen3-8b", extra_args=["--tp", "2"], tp_size=4)',
     ["--tp", "2", "--enable-multimodal", "--trust-remote-code"]),
    ('ModelLaunchSettings("qwen3-8b", 2, ["--enable-multimodal"])',
     ["--enable-multimodal", "--tp", "2", "--trust-remote-code"]),
])
def test_model_launch_settings_adds_what_sglangs_class_adds(call, argv):
    """tp_size 1 adds no ``--tp``; a literal ``--tp`` in extra_args keeps tp_size out; a
    switch already given is not added twice (positional arguments in the class's order).
    The MMMU test keys a dict by such objects (find_string id 69742606)."""
    text = ("from sglang.test.test_utils import ModelLaunchSettings\n"
            f"MODELS = {{{call}: 0.3}}\n")
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", *argv, *URL]


def test_model_launch_settings_with_extra_args_from_an_import_plans_without_them():
    """``extra_args=CPU_BASE_ARGS`` of an import (find_string id 58312977604, gpt-oss-20b on
    Xeon, tp_size=3): those flags are known only when the test runs, so the launch is
    planned without them (a note names them), never read as none."""
    text = ("from sglang.test.cpu_test_utils import CPU_BASE_ARGS\n"
            "from sglang.test.test_utils import ModelLaunchSettings\n"
            "models = [ModelLaunchSettings('qwen3-8b', extra_args=CPU_BASE_ARGS, tp_size=3)]\n")
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp", "3",
                                  "--enable-multimodal", "--trust-remote-code", *URL]


def test_a_scripts_own_model_launch_settings_class_is_not_sglangs():
    text = ("class ModelLaunchSettings:\n    def __init__(self, m):\n        self.m = m\n"
            "s = ModelLaunchSettings('qwen3-8b')\nimport sglang\n")
    assert launch_count([text]) == 0


PATHS = ('import os, subprocess, sys\nfrom pathlib import Path\nROOT = Path("/models")\n'
         'MODEL_DIR = Path("/models/xor")\n')


@pytest.mark.parametrize("expr", [
    'str(Path("/models/xor"))', "str(MODEL_DIR)", 'str(ROOT / "xor")',
    'os.path.join("/models", "xor")', 'os.path.join(ROOT, "xor")', 'f"{ROOT}/xor"',
    "MODEL_DIR.as_posix()", 'str(ROOT.joinpath("xor"))', 'str(MODEL_DIR.parent / "xor")',
])
def test_a_path_built_from_literals_is_its_text(expr):
    """``MODEL_DIR = Path("/models/xor")`` then ``"--model-path", str(MODEL_DIR)`` in a
    Popen argv (find_string id 69189465980, a Modal Xor service): pathlib's ``str()`` is the
    path, ``/`` and ``os.path.join`` join with "/"; all were left open as ``${...}``."""
    text = PATHS + ('subprocess.Popen([sys.executable, "-m", "sglang.launch_server", '
                    f'"--model-path", {expr}])\n')
    assert unpaste([text])[0] == ["--model-path", "/models/xor"]


@pytest.mark.parametrize("expr", [
    'str(Path(__file__).parent / "w")', 'str(Path.home() / "m")',
    'os.path.join("/models", os.environ["M"])', 'str(Path("/m").resolve())',
])
def test_a_path_the_run_decides_stays_open(expr):
    text = PATHS + ('subprocess.Popen([sys.executable, "-m", "sglang.launch_server", '
                    f'"--model-path", {expr}])\n')
    assert unpaste([text])[0][1].startswith("${")


def test_a_path_class_the_script_does_not_import_from_pathlib_stays_open():
    text = ('import subprocess\nM = Path("/models") / "q"\nsubprocess.Popen(["python3", "-m", '
            '"sglang.launch_server", "--model-path", str(M)])\n')
    assert unpaste([text])[0] == ["--model-path", "${M}"]


def test_an_engines_path_keyword_is_its_text():
    text = ('import sglang as sgl\nimport pathlib\nM = pathlib.Path("/models") / "q"\n'
            "llm = sgl.Engine(model_path=M, tp_size=2)\n")
    assert unpaste([text])[0] == ["--model-path", "/models/q", "--tp-size", "2"]


def test_only_the_env_of_the_call_that_runs_the_launch_is_its_environment():
    """The Modal Xor service starts the server with ``Popen(command, env=env)``, then two
    other programs with the same ``env=env``: the environment was listed three times."""
    text = ('import subprocess, sys\nenv = {"HF_HUB_OFFLINE": "1"}\n'
            'command = [sys.executable, "-m", "sglang.launch_server", "--model-path", "q"]\n'
            "a = subprocess.Popen(command, env=env)\n"
            'b = subprocess.Popen([sys.executable, "proxy.py"], env=env)\n')
    assert unpaste([text]) == (["--model-path", "q"], ["HF_HUB_OFFLINE=1"])


ENGINE_CLASS = '''import os, subprocess


class SGlangEngine:
    def __init__(self, model=None, host=None):
        self.model = model or os.getenv("MODEL_NAME", "zai-org/GLM-4.7-Flash")
        self.host = host or os.getenv("HOST", "0.0.0.0")

    def start(self):
        command = ["python3", "-m", "sglang.launch_server", "--model-path", self.model,
                   "--host", self.host]
        self.process = subprocess.Popen(command)
'''


def test_an_attribute_set_in_init_of_a_class_never_constructed_takes_the_defaults():
    """``self.model = model or os.getenv("MODEL_NAME", "...")`` in ``__init__(self,
    model=None)`` of a class the pasted text never constructs (find_string id
    12488608646, GLM-4.7-Flash SGlangEngine): the defaults give the env default, as at
    module and function level; it was left open as ``${self.model}``."""
    assert unpaste([ENGINE_CLASS])[0] == ["--model-path", "zai-org/GLM-4.7-Flash",
                                          "--host", "0.0.0.0"]


def test_an_attribute_two_classes_set_stays_open_without_a_construction():
    other = ("\n\nclass Other:\n    def __init__(self, model='qwen3-8b'):\n"
             "        self.model = model\n")
    assert unpaste([ENGINE_CLASS + other])[0][1] == "${self.model}"
