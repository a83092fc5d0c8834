"""What a pasted Python script's own values decide: the ``if``/``else`` tests over its
constants and argparse defaults, lists it splits from constant strings, ``json.dumps`` of
literals, and a Modal ``gpu=`` given by name. Each is read as Python would run the script
with no arguments of its own; a test the text leaves open keeps its flags out, with a note."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.input import gpu_request
from launchplan.input.engine_call import engine_launch
from launchplan.input.pasted import unpaste
from launchplan.input.python_launch import launch_literal, literal_total
from launchplan.input.python_literals import gpu_keyword_filled

M = "Qwen/Qwen3-8B"
BASE = f'["python", "-m", "sglang.launch_server", "--model-path", "{M}", "--tp", "2"]'


def _argv(script: str) -> list[str]:
    argv = launch_literal(script)
    assert isinstance(argv, list), argv
    return argv[3:]


@pytest.mark.parametrize("setting, growth, added", [
    ("USE_FP8 = True", 'cmd += ["--kv-cache-dtype", "fp8_e4m3"]',
     ["--kv-cache-dtype", "fp8_e4m3"]),
    ("USE_FP8 = False", 'cmd += ["--kv-cache-dtype", "fp8_e4m3"]', []),
    ("tp = 4", 'cmd.append("--enable-p2p-check")', ["--enable-p2p-check"]),
    ("MODE = 'fp8'", 'cmd.extend(["--quantization", str(MODE)])', ["--quantization", "fp8"]),
    ("A, B = 1, 2", 'cmd.append("--enable-metrics")', []),  # A and B bound by unpacking: open
])
def test_flags_added_under_an_if_follow_the_scripts_own_values(setting, growth, added):
    test = {"USE_FP8 = True": "USE_FP8", "USE_FP8 = False": "USE_FP8",
            "tp = 4": "tp > 1 and not False", "MODE = 'fp8'": "MODE == 'fp8' or MODE == 'int8'",
            "A, B = 1, 2": "A < B"}[setting]
    script = (f"import subprocess\n{setting}\ncmd = {BASE}\nif {test}:\n    {growth}\n"
              "subprocess.Popen(cmd)\n")
    assert _argv(script) == ["--model-path", M, "--tp", "2", *added]


def test_an_else_branch_is_taken_when_the_test_is_false():
    script = ("import subprocess\nUSE_FP8 = False\ncmd = " + BASE + "\n"
              "if USE_FP8:\n    cmd += ['--kv-cache-dtype', 'fp8_e4m3']\n"
              "else:\n    cmd.append('--enable-metrics')\nsubprocess.Popen(cmd)\n")
    assert _argv(script)[-1] == "--enable-metrics"


def test_if_else_assignments_of_two_argvs_plan_the_branch_python_runs():
    script = ('TP = 1\nif TP > 1:\n'
              f'    cmd = ["python", "-m", "sglang.launch_server", "--model-path", "{M}",'
              ' "--tp", str(TP)]\nelse:\n'
              '    cmd = ["python", "-m", "sglang.launch_server", "--model-path", '
              '"Qwen/Qwen3-4B"]\nimport subprocess\nsubprocess.Popen(cmd)\n')
    assert _argv(script) == ["--model-path", "Qwen/Qwen3-4B"]
    assert literal_total(script) == 1
    assert _argv(script.replace("TP = 1", "TP = 2")) == ["--model-path", M, "--tp", "2"]
    # a test the text leaves open keeps both launches, the first planned as before
    opened = script.replace("TP = 1\n", "import sys\nTP = int(sys.argv[1])\n")
    assert literal_total(opened) == 2 and _argv(opened)[1] == M


def test_a_sole_launch_under_a_false_guard_is_still_the_texts_launch():
    script = ("test_sglang = False\nif test_sglang:\n    import subprocess\n"
              f"    subprocess.Popen({BASE})\n")
    assert _argv(script) == ["--model-path", M, "--tp", "2"]


@pytest.mark.parametrize("item, added", [
    ('*(["--kv-cache-dtype", "fp8_e4m3"] if USE_FP8 else [])', ["--kv-cache-dtype", "fp8_e4m3"]),
    ('*([] if USE_FP8 else ["--enable-metrics"])', []),
    ('"--kv-cache-dtype", "fp8_e4m3" if USE_FP8 else "auto"', ["--kv-cache-dtype", "fp8_e4m3"]),
])
def test_a_conditional_expression_inside_the_argv_takes_its_decided_side(item, added):
    script = ("import subprocess\nUSE_FP8 = True\nsubprocess.Popen(['python', '-m', "
              f"'sglang.launch_server', '--model-path', '{M}', {item}])\n")
    assert _argv(script) == ["--model-path", M, *added]


@pytest.mark.parametrize("setting, growth", [
    ('EXTRA = "--kv-cache-dtype fp8_e4m3 --enable-metrics"', "cmd.extend(shlex.split(EXTRA))"),
    ("", 'cmd.extend(shlex.split("--kv-cache-dtype fp8_e4m3 --enable-metrics"))'),
    ('EXTRA = "--kv-cache-dtype fp8_e4m3 --enable-metrics"', "cmd += EXTRA.split()"),
    ('EXTRA = "--kv-cache-dtype fp8_e4m3 --enable-metrics".split()', "cmd += EXTRA"),
])
def test_a_constant_string_split_into_the_argv_is_a_constant_list(setting, growth):
    script = (f"import shlex, subprocess\n{setting}\ncmd = {BASE}\n{growth}\n"
              "subprocess.Popen(cmd)\n")
    notes: list[str] = []
    assert launch_literal(script, notes)[-3:] == [  # type: ignore[index]
        "--kv-cache-dtype", "fp8_e4m3", "--enable-metrics"]
    assert not notes


def test_an_argv_joined_with_split_lists_in_its_assignment_is_read_whole():
    script = ("import shlex, subprocess\nEXTRA = '--kv-cache-dtype fp8_e4m3'\nUSE_M = True\n"
              f"cmd = {BASE} + EXTRA.split() + shlex.split('--port 8000') + "
              "(['--enable-metrics'] if USE_M else [])\ncmd.append('--trust-remote-code')\n"
              "subprocess.Popen(cmd)\n")
    assert _argv(script)[4:] == ["--kv-cache-dtype", "fp8_e4m3", "--port", "8000",
                                 "--enable-metrics", "--trust-remote-code"]


def test_a_test_the_text_leaves_open_keeps_its_flags_out_with_a_note():
    script = ("import os, subprocess, sys\ncmd = " + BASE + "\n"
              "if os.environ.get('FP8'):\n    cmd += ['--kv-cache-dtype', 'fp8_e4m3']\n"
              "if len(sys.argv) > 2:\n    pass\nelse:\n    cmd.append('--enable-metrics')\n"
              "subprocess.Popen(cmd)\n")
    notes: list[str] = []
    assert launch_literal(script, notes) == ["python", "-m", "sglang.launch_server",
                                             "--model-path", M, "--tp", "2"]
    assert len(notes) == 2
    assert "only when os.environ.get('FP8') holds" in notes[0]
    assert "does not fix" in notes[0] and "line 4" in notes[0]
    assert "only when len(sys.argv) > 2 does not hold" in notes[1]
    text_form = ("import os\ncmd = 'python -m sglang.launch_server --model-path m '\n"
                 "if os.environ.get('FP8'):\n    cmd += '--kv-cache-dtype fp8_e4m3 '\n"
                 "os.system(cmd)\n")
    notes = []
    assert launch_literal(text_form, notes) == "python -m sglang.launch_server --model-path m "
    assert "command cmd grows at line 4" in notes[0]


def test_a_name_set_twice_or_in_a_loop_is_no_fixed_value():
    script = ("import subprocess\nFP8 = False\nFP8 = True\ncmd = " + BASE + "\n"
              "if FP8:\n    cmd.append('--enable-metrics')\nsubprocess.Popen(cmd)\n")
    notes: list[str] = []
    assert "--enable-metrics" not in launch_literal(script, notes)  # type: ignore[operator]
    assert notes and "only when FP8 holds" in notes[0]


ARGPARSE = '''import argparse, subprocess

def launch_server(model_path, port=34567, trust_remote_code: bool = False,
                  disable_radix_cache: bool = False):
    cmd = ["python", "-m", "sglang.launch_server", "--model-path", model_path,
           "--port", str(port)]
    if trust_remote_code:
        cmd.append("--trust-remote-code")
    if disable_radix_cache:
        cmd.append("--disable-radix-cache")
    subprocess.Popen(cmd)

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-path", default="Qwen/Qwen3-8B")
    parser.add_argument("--no-trust-remote-code", action="store_true")
    parser.add_argument("--disable-radix-cache", action="store_true")
    args = parser.parse_args()
    launch_server(model_path=args.model_path,
                  trust_remote_code=not args.no_trust_remote_code,
                  disable_radix_cache=args.disable_radix_cache)

if __name__ == "__main__":
    main()
'''


def test_a_switch_handed_through_a_functions_first_call_decides_its_if():
    # the shape of NVIDIA's sglang_server_launch.py: argparse's store_true is False when the
    # script runs without the switch, so `not args.no_trust_remote_code` holds
    assert _argv(ARGPARSE) == ["--model-path", M, "--port", "34567", "--trust-remote-code"]
    assert unpaste([ARGPARSE])[0][-1] == "--trust-remote-code"


DUMPS = ('import json, subprocess, sys\nOVERRIDE = {"rope_scaling": {"rope_type": "yarn", '
         '"factor": 4.0}, "max_position_embeddings": 131072}\nZMQ = 5557\n'
         'override = json.dumps(OVERRIDE)\n'
         'cmd = [sys.executable, "-m", "sglang.launch_server", "--model-path", "m",\n'
         '       "--kv-events-config", json.dumps({"publisher": "zmq", '
         '"endpoint": f"tcp://*:{ZMQ}", "n": ZMQ}),\n'
         '       "--json-model-override-args", override]\nsubprocess.Popen(cmd)\n')


def test_json_dumps_of_literals_in_an_argv_is_the_constant_string():
    argv = _argv(DUMPS)
    assert argv[argv.index("--kv-events-config") + 1] == (
        '{"publisher": "zmq", "endpoint": "tcp://*:5557", "n": 5557}')
    assert argv[-1] == ('{"rope_scaling": {"rope_type": "yarn", "factor": 4.0}, '
                        '"max_position_embeddings": 131072}')


def test_json_dumps_of_an_open_value_stays_open():
    argv = _argv(DUMPS.replace("ZMQ = 5557\n", "ZMQ = int(sys.argv[1])\n"))
    assert argv[argv.index("--kv-events-config") + 1].startswith("${json.dumps(")


def test_json_dumps_in_an_engine_keyword_is_the_constant_string(capsys):
    script = ('import json\nimport sglang as sgl\nLABELS = 3\n'
              'llm = sgl.Engine(model_path="m", json_model_override_args=json.dumps('
              '{"architectures": ["Qwen3ForSequenceClassification"], "num_labels": LABELS}))\n')
    flags, _ = engine_launch(script)
    assert flags[-2:] == ["--json-model-override-args",
                          '{"architectures": ["Qwen3ForSequenceClassification"], '
                          '"num_labels": 3}']
    assert main(["resolve", "--gpu", "h100", "--format", "json", script,
                 "--model-path", "qwen3-8b"]) == 0
    assert json.loads(capsys.readouterr().out)["resolved"]["json_model_override_args"] == (
        '{"architectures": ["Qwen3ForSequenceClassification"], "num_labels": 3}')


MODAL = '''import os, subprocess
import modal

GPU_TYPE = os.environ.get("GPU_TYPE", "B200")
GPU_COUNT = os.environ.get("GPU_COUNT", "2")
{binding}
app = modal.App("x")

@app.function(gpu={keyword})
def serve():
    subprocess.Popen(["python", "-m", "sglang.launch_server", "--model-path", "m"])
'''


@pytest.mark.parametrize("binding, keyword, count", [
    ('GPU_CONFIG = "H100:2"', "GPU_CONFIG", 2),
    ('GPU_CONFIG = f"{GPU_TYPE}:{GPU_COUNT}"', "GPU_CONFIG", 2),
    ('GPU_CONFIG = os.environ.get("GPU_CONFIG", "H100:4")', "GPU_CONFIG", 4),
])
def test_a_modal_gpu_given_by_name_asks_for_what_the_literal_would(binding, keyword, count):
    text = MODAL.format(binding=binding, keyword=keyword)
    line = next(line for line in text.splitlines() if "gpu=" in line)
    filled = gpu_keyword_filled(line, text)
    assert filled.startswith('@app.function(gpu="') and filled.endswith('")')
    assert [c for _, c, _ in gpu_request._modal(filled)] == [count]


@pytest.mark.parametrize("binding, keyword", [
    ("GPU_CONFIG = pick_gpu()", "GPU_CONFIG"),  # a value known only at run time
    ("", "modal.gpu.H100(count=2)"),  # a call: gpu_request reads it as it is
    ("", '"H100:2"'),
])
def test_a_modal_gpu_keyword_not_bound_to_a_string_is_left_as_written(binding, keyword):
    text = MODAL.format(binding=binding, keyword=keyword)
    line = next(line for line in text.splitlines() if "gpu=" in line)
    assert gpu_keyword_filled(line, text) == line


def test_a_module_list_built_from_another_and_a_split_string_spreads_whole():
    script = ("import subprocess\nBASE = ['--tp', '2']\n"
              "EXTRA = [*BASE, '--dp', '2'] + '--enable-metrics'.split()\n"
              "subprocess.Popen(['python', '-m', 'sglang.launch_server', '--model-path', 'm', "
              "*EXTRA])\n")
    assert _argv(script) == ["--model-path", "m", "--tp", "2", "--dp", "2", "--enable-metrics"]
