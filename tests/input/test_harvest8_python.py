"""Python launch scripts an eighth harvest round (h21) found misread: a command line built
as a list of "flag value" pieces grown by ``parts.append(f"--tp {tp}")`` and run as
``" ".join(parts)`` (its appended pieces were lost, and a docstring naming the launcher was
judged instead of the code), and an app that starts SGLang through a wrapper class it
imports (its module docstring was called a positional argument, a keyword a start-up log).
Each test fails without its fix (findings F4, F6)."""

from __future__ import annotations

from launchplan.commands.main import main
from launchplan.input.pasted import unpaste


def _value(argv: list[str], flag: str) -> str | None:
    """The last value ``flag`` has in ``argv`` (SGLang keeps the last)."""
    found = None
    for at, word in enumerate(argv[:-1]):
        if word == flag:
            found = argv[at + 1]
    return found


# F4: sgldev's ``server launch`` Typer command (2026, find_string id 18131749837), trimmed
# to a few of its options and branches: the launch is a list of pieces, each ``"--flag
# value"``, appended one by one (most under ``if``), joined with spaces and run by a shell.
SGLDEV = '''"""SGLang server launch helpers."""

from typing import Annotated

import typer

from sgldev.common import log_tag, run
from sgldev.config import CUDA_VISIBLE_DEVICES, LOG_DIR, PORT
from sgldev.config import HOST

app = typer.Typer(no_args_is_help=True)


@app.command(
    context_settings={"allow_extra_args": True, "allow_interspersed_args": False},
)
def launch(
    ctx: typer.Context,
    model_path: Annotated[str, typer.Option(help="HF model id or local path")] = (
        "deepseek-ai/DeepSeek-V3-0324"),
    tp: Annotated[int, typer.Option(help="Tensor parallel size")] = 4,
    dp: Annotated[int, typer.Option(help="Data parallel size (0 = disabled)")] = 0,
    enable_dp_attention: Annotated[bool, typer.Option()] = False,
    kv_cache_dtype: Annotated[str, typer.Option()] = "",
    trust_remote_code: Annotated[bool, typer.Option()] = True,
    host: Annotated[str, typer.Option()] = HOST,
    port: Annotated[int, typer.Option()] = PORT,
    env_vars: Annotated[str, typer.Option(help="Extra env vars, e.g. 'K1=V1 K2=V2'")] = "",
    background: Annotated[bool, typer.Option(help="Run via nohup in background")] = True,
):
    """Launch sglang.launch_server with common options.

    Any unrecognised flags after `--` are forwarded verbatim, e.g.:

        sgldev server launch --model-path foo -- --tool-call-parser deepseekv32
    """
    parts: list[str] = []

    parts.append(f"CUDA_VISIBLE_DEVICES={CUDA_VISIBLE_DEVICES}")
    if env_vars:
        parts.append(env_vars)

    parts.append("python3 -m sglang.launch_server")
    parts.append(f"--model-path {model_path}")
    parts.append(f"--tp {tp}")

    if dp:
        parts.append(f"--dp {dp}")
    if enable_dp_attention:
        parts.append("--enable-dp-attention")
    if kv_cache_dtype:
        parts.append(f"--kv-cache-dtype {kv_cache_dtype}")
    if trust_remote_code:
        parts.append("--trust-remote-code")

    parts.append(f"--host {host}")
    parts.append(f"--port {port}")

    if ctx.args:
        parts.extend(ctx.args)

    cmd = " ".join(parts)

    if background:
        cmd = f"nohup {cmd} > {LOG_DIR}/server_{log_tag()}.log 2>&1 &"

    run(cmd)
'''


def test_every_piece_appended_to_a_joined_command_list_is_read():
    notes: list[str] = []
    argv, _ = unpaste([SGLDEV], notes=notes)
    assert _value(argv, "--model-path") == "deepseek-ai/DeepSeek-V3-0324"
    assert _value(argv, "--tp") == "4"  # it was lost: TP 1 planned, no note
    assert "--trust-remote-code" in argv
    assert "--dp" not in argv and "--enable-dp-attention" not in argv  # defaults 0, False
    assert _value(argv, "--port") == "${port}"  # an imported PORT: open, named as such
    assert any("parts.extend(ctx.args)" in note for note in notes)


def test_a_docstring_naming_the_launcher_does_not_outrank_the_codes_launch(capsys):
    # the docstring's "Launch sglang.launch_server with common options." was judged:
    # "expected an SGLang launch command, got a sentence that names the launcher"
    assert main(["resolve", "--gpu", "h100", SGLDEV, "--port", "30000",
                 "--model-path", "deepseek-v3", "--format", "json"]) in (0, 1)
    out, err = capsys.readouterr()
    assert "sentence" not in err and '"tp_size": 4' in out


# h21 probe/parts1.py: the same shape, short; run through subprocess with shell=True.
PARTS = '''import subprocess

def launch(model_path="meta-llama/Llama-3.1-8B-Instruct", tp=4, dp=0):
    """Launch sglang.launch_server with common options."""
    parts = []
    parts.append("python3 -m sglang.launch_server")
    parts.append(f"--model-path {model_path}")
    parts.append(f"--tp {tp}")
    if dp:
        parts.append(f"--dp {dp}")
    cmd = " ".join(parts)
    subprocess.run(cmd, shell=True)

launch()
'''


def test_a_short_pieces_list_keeps_its_appended_flags():
    argv, _ = unpaste([PARTS])
    assert argv == ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp", "4"]


def test_a_literal_pieces_list_keeps_what_is_appended_after_it():
    text = ('import subprocess\n\ndef launch(m="meta-llama/Llama-3.1-8B-Instruct", tp=4):\n'
            '    parts = ["python -m sglang.launch_server", f"--model-path {m}"]\n'
            '    parts.append(f"--tp {tp}")\n    parts.extend(["--port 8001", "--host 0.0.0.0"])\n'
            '    subprocess.run(" ".join(parts), shell=True)\n\nlaunch()\n')
    assert unpaste([text])[0] == ["--model-path", "meta-llama/Llama-3.1-8B-Instruct",
                                  "--tp", "4", "--port", "8001", "--host", "0.0.0.0"]


def test_an_argv_list_run_as_a_joined_line_splits_its_appended_pieces():
    # ``cmd.append(f"--tp {tp}")`` onto an argv list that ``os.system(" ".join(cmd))`` runs:
    # the shell splits the piece ("one argument holds a flag and its value" before)
    text = ('import os\n\ndef launch(m="meta-llama/Llama-3.1-8B-Instruct", tp=4):\n'
            '    cmd = ["python3", "-m", "sglang.launch_server"]\n'
            '    cmd.append(f"--model-path {m}")\n    cmd.append(f"--tp {tp}")\n'
            '    os.system(" ".join(cmd))\n\nlaunch()\n')
    assert unpaste([text])[0] == ["--model-path", "meta-llama/Llama-3.1-8B-Instruct",
                                  "--tp", "4"]


def test_pieces_under_the_launchers_branch_a_loop_and_an_open_test():
    text = '''import os, sys

def build(backend, model, tp=2):
    parts = ["CUDA_VISIBLE_DEVICES=0,1"]
    if backend == "sglang":
        parts.append("python -m sglang.launch_server")
        parts.append(f"--model-path {model} --tp {tp}")
    else:
        parts.append("vllm serve")
        parts.append(f"{model} --tensor-parallel-size {tp}")
    if os.environ.get("FP8"):
        parts.append("--quantization fp8")
    for k, v in {"port": 8001, "host": "0.0.0.0"}.items():
        parts.append(f"--{k} {v}")
    os.system(" ".join(parts))

build(sys.argv[1], "meta-llama/Llama-3.1-8B-Instruct")
'''
    notes: list[str] = []
    argv, env = unpaste([text], notes=notes)
    assert argv == ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp", "2",
                    "--port", "8001", "--host", "0.0.0.0"]
    assert env == ["CUDA_VISIBLE_DEVICES=0,1"]
    assert any("--quantization fp8" in note and "FP8" in note for note in notes)


def test_a_piece_known_only_at_run_time_stays_open(capsys):
    text = ('import argparse, subprocess\np = argparse.ArgumentParser()\n'
            'p.add_argument("--tp", type=int)\nargs = p.parse_args()\n'
            'parts = ["python -m sglang.launch_server", "--model-path m"]\n'
            'parts.append(f"--tp {args.tp}")\nsubprocess.run(" ".join(parts), shell=True)\n')
    assert unpaste([text])[0] == ["--model-path", "m", "--tp", "${args.tp}"]


def test_a_docstring_sentence_over_unread_code_says_the_code_is_not_read(capsys):
    text = ('import subprocess\nfrom mytools import build_command\n\n'
            'def launch(model_path="meta-llama/Llama-3.1-8B-Instruct", tp=4):\n'
            '    """Launch sglang.launch_server with common options."""\n'
            '    subprocess.run(build_command(model_path, tp), shell=True)\n\nlaunch()\n')
    assert main(["resolve", "--gpu", "h100", text]) == 2
    err = capsys.readouterr().err
    assert "got a Python program whose docstring (line 5" in err
    assert "code builds no command launchplan can read" in err and "sentence" not in err


# F6: a Modal Kimi-K3 B300:8 serving app (2026-09, find_string id 70078239543), shortened:
# SGLang starts inside autoinference_utils' SGLangEndpoint, handed a dict of flags.
MODAL_ENDPOINT = '''"""
Serving metadata:
engine: sglang
base_model_repo_id: moonshotai/Kimi-K3
model_family: kimi_k3
"""

from __future__ import annotations

import os
import time

import modal

MINUTES = 60
HOURS = 60 * MINUTES
PORT = 8000

MODEL_NAME = "moonshotai/Kimi-K3"
MODEL_PATH = MODEL_NAME
MEM_FRACTION_STATIC = "0.915"
SGLANG_BASE_IMAGE = "modalresearch/sglang:kimi-k3-cu13-20260806-b9e90a6d6"
GPU = "B300:8"
TP_SIZE = 8

EXTRA_SERVER_ARGS = {
    "--trust-remote-code": "",
    "--context-length": "1048576",
    "--kv-cache-dtype": "fp8_e4m3",
    "--mem-fraction-static": MEM_FRACTION_STATIC,
    "--attention-backend": "trtllm_mla",
    "--speculative-algorithm": "DFLASH",
    "--reasoning-parser": "kimi_k3",
}

SERVER_ARGS = {
    "--served-model-name": MODEL_NAME,
} | EXTRA_SERVER_ARGS

app = modal.App(name="kimi-k3-fast")


@app.server(gpu=GPU, port=PORT, startup_timeout=3 * HOURS)
class Server:

    @modal.enter()
    def startup(self) -> None:
        from autoinference_utils.endpoint import (
            SGLangEndpoint,
            start_heartbeat_thread,
        )

        self.endpoint = SGLangEndpoint(
            model_path=MODEL_PATH,
            worker_port=PORT,
            tp=TP_SIZE,
            extra_server_args=SERVER_ARGS,
            health_timeout=3 * HOURS,
        )
        self.endpoint.start()

    @modal.exit()
    def stop(self) -> None:
        if hasattr(self, "endpoint"):
            self.endpoint.stop()
'''


def test_an_app_starting_sglang_through_an_imported_wrapper_is_named(capsys):
    # it was "command line: expected flags and their values, got '\\nServing metadata: ...'
    # (SGLang takes no positional arguments)"
    assert main(["resolve", "--gpu", "b300", MODAL_ENDPOINT]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "positional" not in err
    assert ("starts SGLang through SGLangEndpoint(...) imported from "
            "autoinference_utils.endpoint (line 53)") in err
    assert "its extra_server_args=SERVER_ARGS holds 8 SGLang flags" in err
    assert "paste that command line" in err


def test_the_small_wrapper_form_is_no_start_up_log(capsys):
    # h21 probe/ep1.py: the keyword ``extra_server_args={`` was taken for a log's line
    text = ('import modal\n\nTP = 8\napp = modal.App(name="x")\n\n'
            '@app.server(gpu="B300:8", port=8000)\nclass Server:\n    @modal.enter()\n'
            '    def startup(self):\n'
            '        from autoinference_utils.endpoint import SGLangEndpoint\n'
            '        self.endpoint = SGLangEndpoint(model_path="moonshotai/Kimi-K3", tp=TP, '
            'extra_server_args={"--tp-size": "8"})\n        self.endpoint.start()\n')
    assert main(["resolve", "--gpu", "b300", text]) == 2
    err = capsys.readouterr().err
    assert "start-up log" not in err
    assert "through SGLangEndpoint(...) imported from autoinference_utils.endpoint" in err
    assert "holds 1 SGLang flag: --tp-size" in err

    # a wrapper the paste defines is no imported one: its own code is read as before
    text = ('import subprocess\n\nclass SGLangServer:\n    def __init__(self, model):\n'
            '        self.model = model\n    def start(self):\n'
            '        subprocess.Popen(["python3", "-m", "sglang.launch_server", '
            '"--model-path", self.model, "--tp", "2"])\n\n'
            'SGLangServer("meta-llama/Llama-3.1-8B-Instruct").start()\n')
    assert _value(unpaste([text])[0], "--tp") == "2"
