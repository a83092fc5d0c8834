"""`launchplan resolve --from-log`, third log harvest (h8): a logged launch read as its text
runs it (the start script's variables, colour codes, a test helper's flag list), one value
the release refuses dropped alone, a cut traceback header, a source build's version and an
elided value named for what they are."""

from __future__ import annotations

import json
from pathlib import Path

from launchplan.commands.main import main
from tests.input.test_server_log_harvest33 import (
    GHA_LOG,
    HYGON_RECORDS,
    HYGON_SCRIPT,
    PR18263,
    XPU_BOOT,
    XPU_CALL,
    XPU_LIST,
)


def _from_log(capsys, log: Path, gpu: str, model: str, *extra: str) -> dict:
    code = main(["resolve", "--from-log", str(log), "--gpu", gpu, "--model-path", model,
                 "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _log(tmp_path: Path, text: str) -> Path:
    log = tmp_path / "pasted.log"
    log.write_text(text)
    return log


def test_a_start_script_s_variables_plan_its_logged_launch(capsys, tmp_path):
    """The decode node's script sets every variable its command uses (``tp=16``, five
    ``option+=`` lines); the fork's ``--attention-backend dcu_mla`` is dropped alone."""
    data = _from_log(capsys, _log(tmp_path, HYGON_SCRIPT + "\n" + HYGON_RECORDS), "h200",
                     "deepseek-r1", "--quantization", "fp8")
    inputs = data["inputs"]
    assert (inputs["tp_size"], inputs["nnodes"], inputs["node_rank"]) == (16, 2, 1)
    assert inputs["mem_fraction_static"] == 0.9 and inputs["context_length"] == 12400
    assert inputs["max_running_requests"] == 256 and inputs["speculative_algorithm"] == "EAGLE"
    assert inputs["disaggregation_mode"] == "decode" and "attention_backend" not in inputs
    notes = "\n".join(data["notes"])
    assert "variables this text does not set" not in notes
    assert "read with the variables the text sets before it" in notes
    assert "does not accept: --attention-backend dcu_mla" in notes
    assert "that flag is unset here, the rest of the command read" in notes
    weights = next(r for r in data["memory"] if r["figure"] == "weights as loaded")
    assert abs(weights["error"]) < 0.02  # TP16's share (41.72 GiB logged), not TP1's


def test_a_flag_given_replaces_the_value_the_release_refuses(capsys, tmp_path):
    data = _from_log(capsys, _log(tmp_path, HYGON_SCRIPT + "\n" + HYGON_RECORDS), "h200",
                     "deepseek-r1", "--quantization", "fp8", "--attention-backend", "triton")
    assert data["inputs"]["attention_backend"] == "triton" and data["inputs"]["tp_size"] == 16
    assert not any("does not accept" in n for n in data["notes"])


def test_a_variable_the_script_sets_from_a_command_is_said_so(capsys, tmp_path):
    text = ("N=$(nvidia-smi -L | wc -l)\nexport MEM=0.8\n"
            "python -m sglang.launch_server --model-path m --tp $N --mem-fraction-static $MEM\n"
            + HYGON_RECORDS)
    data = _from_log(capsys, _log(tmp_path, text), "h200", "deepseek-r1")
    assert data["inputs"]["mem_fraction_static"] == 0.8 and "tp_size" not in data["inputs"]
    assert any("--tp $(nvidia-smi -L | wc -l)" in n and "sets from a command it runs" in n
               for n in data["notes"])


def test_a_github_actions_log_s_coloured_command_is_read(capsys, tmp_path):
    data = _from_log(capsys, _log(tmp_path, GHA_LOG), "mi355x", "Qwen/Qwen3.5-27B",
                     "--quantization", "fp8")
    assert data["inputs"]["tp_size"] == 2 and data["inputs"]["max_running_requests"] == 32
    assert not any("does not read as this release's" in n for n in data["notes"])


def test_a_test_helper_s_launch_is_the_logged_launch(capsys, tmp_path):
    text = "```python\n" + XPU_LIST.replace("```\n", "") + "\n" + XPU_CALL + "\n" + XPU_BOOT
    data = _from_log(capsys, _log(tmp_path, text), "rtx4090",
                     "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    assert data["inputs"]["tp_size"] == 4 and data["inputs"]["device"] == "xpu"
    pool = next(r for r in data["memory"] if r["figure"] == "max_total_num_tokens")
    assert abs(pool["error"]) < 0.05  # TP4's pool, not an unmade one


def test_a_cut_traceback_header_is_no_error_quoted(capsys, tmp_path):
    data = _from_log(capsys, _log(tmp_path, PR18263 + "T"), "mi355x", "qwen3-30b-a3b-fp8")
    assert data["startup_failure"] == ("Scheduler hit an exception (the log ends its "
                                       "traceback before the error)")


# sglang#26039's check_env line (the nightly image nightly-dev-cu13-20260520-425dffbd) before
# a log's records.
def test_a_nightly_s_placeholder_version_is_a_source_build(capsys, tmp_path):
    text = "sglang: 0.0.0.dev1+g0c8049d9b\nsglang-kernel: 0.4.2.post2\n" + HYGON_RECORDS
    data = _from_log(capsys, _log(tmp_path, text), "h200", "deepseek-r1")
    note = next(n for n in data["notes"] if "0.0.0.dev1+g0c8049d9b" in n)
    assert "source build of commit 0c8049d9b" in note and "older than" not in note


# The RTX PRO 6000 WS report's serve command (find_string id 71227185424), paths elided.
def test_an_elided_path_list_is_named_a_placeholder(capsys, tmp_path):
    text = ("sglang serve --model-path <nvfp4-checkpoint> --load-format safetensors \\\n"
            "  --tp 1 --enable-lora --max-lora-rank 32 --max-loras-per-batch 7 "
            "--lora-paths <7 adapters> \\\n  --enable-hierarchical-cache --hicache-size 96\n"
            "KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: 240128, K 1.37 GB, "
            "V 1.37 GB\n")
    data = _from_log(capsys, _log(tmp_path, text), "h100", "llama-3.1-8b")
    assert data["inputs"]["lora_paths"] == ["<7 adapters>"]
    said = "--lora-paths <7 adapters>: a placeholder the pasted text leaves to fill in"
    assert any(said + ", planned as written" in n for n in data["notes"])


def test_a_pasted_text_s_placeholder_version_is_a_source_build(capsys):
    """A pasted issue (no log) with check_env's ``sglang: 0.0.0.dev1+g<sha>`` (sglang#26039,
    a nightly image): a build of that commit, not "older than the releases"."""
    text = ("sglang: 0.0.0.dev1+g0c8049d9b\nsglang-kernel: 0.4.2.post2\n\n"
            "python -m sglang.launch_server --model-path qwen3-8b --tp 2\n")
    assert main(["resolve", "--gpu", "h100", text, "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert "a source build of commit 0c8049d9b" in out and "older than" not in out
