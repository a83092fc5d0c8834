"""Eighth harvest (h21), fixes by hp12: a continuation backslash glued to its word with a
blank after it, an inline-code launch whose closing backtick follows a blank, page prose
glued onto a launch's last value in Latin script, and a paste cut inside a bash array. Each
excerpt is real; its source is named above it.
"""

from __future__ import annotations

import pytest

from launchplan.errors import InputError
from tests.input.paste_support import first_error_line, read_with_notes


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


_error = first_error_line


_read = read_with_notes


# --- F1: a backslash glued to its word, then a blank, at a line's end ---------------------------

# find_string id 54268563185 (a verl user's router launch script): ``launch_server\ `` with a
# trailing space, then the launch's flag lines
_ROUTER_SCRIPT = (
    "#!/bin/bash\n"
    "source ~/.bashrc\n"
    "conda activate verl_5_2\n"
    "MODEL_PATH=/share/home/sxjiang/myproject/LHTIR/checkpoints/merged_checkpoints/qwen3-4b\n"
    "CUDA_VISIBLE_DEVICES=6,7 python -m sglang_router.launch_server\\ \n"
    "    --model-path $MODEL_PATH \\\n"
    "    --served-model-name MatchTIR \\\n"
    "    --dp 2 \\\n"
    "    --host 0.0.0.0 \\\n"
    "    --port 7888 \n")


@pytest.mark.parametrize("text, word", [
    (_ROUTER_SCRIPT, "'sglang_router.launch_server\\ '"),
    # the same typo on a value, and with a tab (editors and page copies keep either)
    ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct\\ \n"
     "  --tp 2", "'meta-llama/Llama-3.1-8B-Instruct\\ '"),
    ("python -m sglang.launch_server\\\t\n  --model-path meta-llama/Llama-3.1-8B-Instruct \\\n"
     "  --tp 2 \\\n  --port 8000", "'sglang.launch_server\\ '"),
])
def test_a_glued_backslash_then_a_blank_is_named_not_its_flags_dropped(text, word, capsys):
    line = _error(capsys, text, "--model-path", "qwen3-4b")
    assert f"got {word}" in line
    assert "remove the space after the backslash" in line


def test_both_forms_of_the_blank_after_a_backslash_get_the_same_advice(capsys):
    detached = _ROUTER_SCRIPT.replace("launch_server\\ \n", "launch_server \\ \n")
    assert "remove the space after the backslash" in _error(capsys, detached)
    assert "remove the space after the backslash" in _error(capsys, _ROUTER_SCRIPT)


def test_only_a_blank_escaped_at_a_line_end_before_flag_lines_is_named(capsys):
    assert "remove the space after the backslash" in _error(
        capsys, "python -m sglang.launch_server --model-path qwen3-8b\\ \n  --tp 2")
    # an escaped blank inside a word is the word's; before prose it continues no launch
    argv, _ = _read("python -m sglang.launch_server --model-path /models/My\\ Model --tp 2")
    assert argv[:2] == ["--model-path", "/models/My Model"]
    argv, _ = _read("python -m sglang.launch_server --model-path qwen3-8b --tp 2\n"
                    "echo done\\ \nThen query it.")
    assert argv == ["--model-path", "qwen3-8b", "--tp", "2"]


# --- F2: an inline-code launch whose closing backtick follows a blank --------------------------

# https://github.com/sgl-project/sglang/issues/36859 (comment 2026-09-16: the Kimi-K3 PD
# prefill launch as one inline-code span, a space before the closing backtick; its
# speculative flags cut)
_SPACED_SPAN = (
    "I saw these issues appear in `v0.5.18` and `v0.5.19` as well.\n\nprefill:\n\n"
    "`sglang serve moonshotai/Kimi-K3 --disaggregation-mode prefill "
    "--disaggregation-transfer-backend nixl --disaggregation-bootstrap-port 8998 "
    "--chunked-prefill-size 32768 --mem-fraction-static 0.85 --tp-size 8 `")


def test_an_inline_code_launch_with_a_blank_before_its_closing_backtick_is_read():
    argv, _ = _read(_SPACED_SPAN)
    assert argv[:4] == ["--model-path", "moonshotai/Kimi-K3", "--disaggregation-mode", "prefill"]
    assert argv[-2:] == ["--tp-size", "8"]
    # PowerShell's backtick at a line's end, which no backtick on its line opens, still
    # continues the line
    text = ("$env:CUDA_VISIBLE_DEVICES = \"0\"\n"
            "python -m sglang.launch_server --model-path qwen3-8b `\n  --tp 2")
    argv, _ = _read(text)
    assert argv == ["--model-path", "qwen3-8b", "--tp", "2"]


@pytest.mark.parametrize("text", ["prefill:\n\n`sglang serve qwen3-8b --tp-size 8\n",
                                  "pip install sglang\nprefill:\n`sglang serve qwen3-8b --tp 8\n"])
def test_a_launcher_in_an_unclosed_backtick_is_not_called_what_the_text_runs(text, capsys):
    line = _error(capsys, text, gpu="gb300")
    assert "got none: it runs sglang serve" not in line
    assert "'`sglang' opens a backtick" in line


# --- F5: page prose glued onto a launch's last value in Latin script ---------------------------

# https://github.gg22.workers.dev/meituan-longcat/LongCat-Flash-Chat/blob/main/docs/
# deployment_guide.md (the LongCat-Flash guide scraped as text: each code block's last line
# runs into the next paragraph)
_LONGCAT_SINGLE = (
    "The model can be served on a single node using a combination of Tensor Parallelism and "
    "Expert Parallelism.\n"
    "python3 -m sglang.launch_server \\\n"
    "--model meituan-longcat/LongCat-Flash-Chat-FP8 \\\n"
    "--trust-remote-code \\\n"
    "--attention-backend flashinfer \\\n"
    "--tp 8In a multi-node setup, Tensor Parallelism and Expert Parallelism are employed, "
    "with additional parallel strategies planned for future implementation.\n")
_LONGCAT_MULTI = (
    "python3 -m sglang.launch_server \\\n"
    "--model meituan-longcat/LongCat-Flash-Chat \\\n"
    "--trust-remote-code \\\n"
    "--tp 16 \\\n"
    "--nnodes 2 \\\n"
    "--node-rank 0 \\\n"
    "--dist-init-addr 10.0.0.1:5000Note\n"
    "Replace $NODE_RANK and $MASTER_IP with the specific values for your cluster.\n")


@pytest.mark.parametrize("text, flag, value, prose", [
    (_LONGCAT_SINGLE, "--tp", "8", "In a multi-node setup"),
    (_LONGCAT_MULTI, "--dist-init-addr", "10.0.0.1:5000", "Note"),
    ("python3 -m sglang.launch_server --model-path qwen3-8b --port 30000Note\n"
     "Replace the values.", "--port", "30000", "Note"),
    ("python3 -m sglang.launch_server --model-path qwen3-8b "
     "--mem-fraction-static 0.85While it loads, watch the log.", "--mem-fraction-static",
     "0.85", "While it loads"),
])
def test_prose_glued_onto_a_number_is_left_out_with_a_note(text, flag, value, prose):
    argv, notes = _read(text)
    assert argv[-2:] == [flag, value]
    assert any("glued onto the launch's last value" in n and prose[:10] in n for n in notes)


def test_prose_glued_onto_a_value_of_no_number_type_is_one_clear_line():
    with pytest.raises(InputError) as caught:
        _read("python3 -m sglang.launch_server --model-path qwen3-8b "
              "--served-model-name 8In a multi-node setup, we use more.")
    assert caught.value.subject == "--served-model-name"
    assert "glued onto the value" in caught.value.message
    # a number and a capitalised word before more flags is a value, not glue
    argv, notes = _read("python3 -m sglang.launch_server --model-path qwen3-8b "
                        "--served-model-name 8B --tp 2")
    assert argv[-2:] == ["--tp", "2"] and not notes


# --- F3: a paste cut inside a bash array ------------------------------------------------------

# https://github.com/SemiAnalysisAI/InferenceX/pull/2272 (review thread 2026-07-18 on
# benchmarks/single_node/agentic/glm5.2_fp8_mi355x_sglang.sh:217: a diff hunk of the launch
# array, cut before its closing parenthesis)
_CUT_ARRAY = (
    "benchmarks/single_node/agentic/glm5.2_fp8_mi355x_sglang.sh:217\n"
    "```diff\n+\n+SGLANG_CMD=(\n"
    "+    python3 -m sglang.launch_server\n"
    '+    --model-path "$MODEL_PATH"\n'
    '+    --served-model-name "$MODEL"\n'
    "+    --host 0.0.0.0\n"
    '+    --port "$PORT"\n'
    "+    --trust-remote-code\n"
    '+    --tp "$TP"\n'
    '+    --ep-size "$EP_SIZE"\n'
    "+    --dsa-prefill-backend tilelang\n"
    "+    --dsa-decode-backend tilelang\n```\n")


@pytest.mark.parametrize("text", [
    _CUT_ARRAY,
    "SGLANG_CMD=(\n    python3 -m sglang.launch_server\n    --model-path \"$MODEL_PATH\"\n"
    "    --tp \"$TP\"\n    --dsa-prefill-backend tilelang\n",
])
def test_a_paste_cut_inside_a_launch_array_is_named_as_cut(text, capsys):
    line = _error(capsys, text, "--model-path", "llama-3.1-8b", "--tp", "8", gpu="mi355x")
    assert line.startswith("launchplan: the bash array SGLANG_CMD: expected its items up to "
                           "the closing ')'")
    assert "cut inside SGLANG_CMD=(" in line
    assert "backslash" not in line and "' \\'" not in line
