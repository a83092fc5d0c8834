"""Ninth harvest (h24), fixes by hp14: a comment line inside a continued launch, a docs page
whose flags sit only in a feature table or in sentences, a YAML mapping of flags with no
Helm trait, a --revision-pinned launch of a model whose config launchplan ships, and
``python -m sglang.cli.main serve``. Each excerpt is real; its source is named above it.
"""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from tests.input.paste_support import first_error_line, read_with_notes


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


_error = first_error_line


_read = read_with_notes


# --- F3: a comment line inside a continued launch ends it --------------------------------------

# find_string id 52177103982 (a Chinese Ascend PD decode-node script for DeepSeek-R1-0528
# w4a8, 2026): each flag annotated by a comment line inside the continuation; shortened
_DECODE_SCRIPT = (
    "# ===================== 启动 SGLang Decode 解耦服务 =====================\n"
    "python -m sglang.launch_server \\\n"
    "    --model-path ${MODEL_PATH} \\\n"
    "    # 核心：解耦推理 - 仅运行Decode阶段\n"
    "    --disaggregation-mode decode \\\n"
    "    --host $DECODE_HOST_IP \\\n"
    "    --port 8001 \\\n"
    "    --trust-remote-code \\\n"
    "    # 张量并行 + 数据并行（与Prefill匹配）\n"
    "    --tp-size 16 \\\n"
    "    --dp-size 16\n")


def test_a_comment_line_inside_a_continued_launch_is_named_as_what_ends_it():
    # the note blamed a missing backslash and told the user to add one to the comment line
    argv, notes = _read(_DECODE_SCRIPT)
    assert argv == ["--model-path", "${MODEL_PATH}"]  # as bash runs it: the comment ends it
    note = next(n for n in notes if "--disaggregation-mode decode" in n)
    assert "a comment line inside the continued launch ('# 核心：解耦推理 - 仅运行Decode阶段')" \
        in note
    assert "move the comments out of the command" in note
    assert "does not end in a backslash" not in note and "with ' \\'" not in note


def test_a_backslash_after_a_flags_comment_is_named_as_part_of_the_comment():
    # the same script's annotation written after its flag, the continuation after it: the
    # backslash is inside the comment, so the note may not say the line lacks one
    text = _DECODE_SCRIPT.replace(
        "    --model-path ${MODEL_PATH} \\\n    # 核心：解耦推理 - 仅运行Decode阶段\n",
        "    --model-path ${MODEL_PATH}  # 核心：解耦推理 - 仅运行Decode阶段 \\\n")
    argv, notes = _read(text)
    assert argv == ["--model-path", "${MODEL_PATH}"]
    note = next(n for n in notes if "--disaggregation-mode decode" in n)
    assert "is part of its comment ('# 核心：解耦推理 - 仅运行Decode阶段 \\')" in note
    assert "does not end in a backslash" not in note


# --- F2: a docs page whose flags sit only in a feature table or in sentences -------------------

# https://docs.sglang.io/docs/hardware-platforms/ascend-npus/model-tutorials/kimi_k2_6 (SGLang
# docs, Ascend Kimi-K2.6 tutorial, its opening: introduction and the feature table; shortened)
_FEATURE_TABLE = (
    "Introduction\n"
    "Kimi-K2.6 is an open-source, native multimodal agentic model developed by Moonshot AI. "
    "This document is validated and written based on SGLang v0.5.13.Supported features\n"
    "| Feature | Example usage |\n"
    "|---|---|\n"
    "| Tensor Parallelism | --tp-size 16 |\n"
    "| Data Parallelism | --dp-size 16 |\n"
    "| Expert Parallelism | --ep-size 16 \\--moe-a2a-backend deepep \\--deepep-mode auto |\n"
    "| NPU Graph | enabled by default; disable with --disable-cuda-graph;control range via "
    "--cuda-graph-bs or --cuda-graph-max-bs; e.g. --cuda-graph-bs 1 2 4 8 12 16 24 32 48 64 "
    "96 120 |\n"
    "| Overlap Schedule | export SGLANG_ENABLE_OVERLAP_PLAN_STREAM=1 |\n"
    "| DP LM Head | --enable-dp-lm-head |\n")

# the same page as rendered text: header and cells glued, multi-line cells kept
_RENDERED_PAGE = (
    "Supported features\n\n"
    "FeatureExample usage\n"
    "Tensor Parallelism--tp-size 16\n"
    "Data Parallelism--dp-size 16\n"
    "Expert Parallelism--ep-size 16 \\\n"
    "--moe-a2a-backend deepep \\\n"
    "--deepep-mode auto\n"
    "Chunked Prefillauto based on device memory, or set explicit value;\n"
    "disable with --chunked-prefill-size -1; e.g. --chunked-prefill-size 32768\n"
    "NPU Graphenabled by default; disable with --disable-cuda-graph;\n"
    "control range via --cuda-graph-bs or --cuda-graph-max-bs; e.g. --cuda-graph-bs 1 2 4\n")


@pytest.mark.parametrize("text, where", [
    (_FEATURE_TABLE, "in a table (Feature | Example usage)"),
    (_FEATURE_TABLE.split("| NPU Graph")[0], "in a table (Feature | Example usage)"),
    (_RENDERED_PAGE, "in sentences"),
])
def test_a_page_whose_flags_are_only_mentioned_is_page_text_with_no_launch(capsys, text, where):
    # was "--cuda-graph-bs: expected a flag SGLang accepts (... removed in 0.5.20 ...)" for a
    # flag a cell only mentions, "got 'Introduction' (SGLang takes no positional arguments)"
    # without that row, and "it runs Kimi-K2.6 is, disable with, ..." for the rendered text
    first = _error(capsys, text)
    assert first.startswith("launchplan: the pasted text: expected an SGLang launch")
    assert f"got none: page text with example flags {where}, no launch command" in first
    assert "--cuda-graph-bs" not in first and "positional" not in first


@pytest.mark.parametrize("sentence", [
    "disable with --chunked-prefill-size -1; e.g. --chunked-prefill-size 32768",
    "control range via --cuda-graph-bs or --cuda-graph-max-bs; e.g. --cuda-graph-bs 1 2 4 8",
])
def test_one_sentence_naming_flags_is_page_text_not_a_positional_word(capsys, sentence):
    # one line of the rendered page above, pasted alone: it was one positional word ("got
    # 'disable with --chunked-prefill-size -1; ...' (SGLang takes no positional arguments)")
    first = _error(capsys, sentence)
    assert "got none: page text with example flags in sentences, no launch command" in first


# --- F1: a YAML mapping of flags with no Helm trait --------------------------------------------

# https://github.com/sgl-project/sglang/blob/87fc9cc452141aa2cb1649cf0c9c3257e91e187c/benchmark/
# ascend_bench/configs/stretch/qwen3-6-35b-a3b-nextn.yaml (a sweep config; shortened)
_SWEEP = (
    "# 2 speculative axis values x 1 concurrency x 1 repeat = 2 cells.\n"
    "name: qwen3-6-35b-a3b-nextn\n\n"
    "model:\n"
    "  path: /workspace/shared_assets/models/Qwen/Qwen3.6-35B-A3B\n"
    "  dtype: bfloat16\n"
    "  trust_remote_code: true\n\n"
    "server:\n"
    "  args:\n"
    "    --device: npu\n"
    "    --attention-backend: ascend\n"
    "    --tp-size: 2\n"
    "    --port: 30000\n"
    "    --mem-fraction-static: 0.82      # leave room for draft + graphs\n"
    "  axes:\n"
    "    --speculative-num-steps: [2, 3]\n\n"
    "workload:\n"
    "  dataset_name: random\n"
    "  args:\n"
    "    --random-input-len: 1024\n\n"
    "run:\n"
    "  repeats: 1\n")


def test_a_sweep_config_of_flags_is_not_called_a_helm_values_file(capsys):
    first = _error(capsys, _SWEEP)
    assert "got a YAML mapping (name, model, server, workload, …) that starts none" in first
    assert "its server.args holds SGLang flags as data (--device, --attention-backend, " \
           "--tp-size, …)" in first
    assert "no --config file" in first
    assert "Helm" not in first and "helm template" not in first


# --- F6: a --revision-pinned launch of a model whose config launchplan ships ------------------

# find_string id 63286241479 (a 2026 Gemma-4-31B deployment report's run-sglang.sh; the shipped
# Gemma 4 config given after the paste stands in for the 31B, as the harvest ran it)
_PINNED = (
    "exec sglang serve \\\n"
    "    --model-path google/gemma-4-31B-it \\\n"
    "    --revision 842da3794eaa0b77d5f08bae87a17459d91ff475 \\\n"
    "    --host 0.0.0.0 --port 30000\n")


def test_a_pinned_revision_of_a_shipped_model_names_the_revision(capsys):
    # was "--model-path: ... got 'google/gemma-4-26B-A4B' (... similar ids (another model,
    # not this one): google/gemma-4-26B-A4B, ...)"
    first = _error(capsys, _PINNED, "--model-path", "google/gemma-4-26B-A4B")
    assert first.startswith("launchplan: --revision: expected a revision of "
                            "google/gemma-4-26B-A4B")
    assert "got '842da3794eaa0b77d5f08bae87a17459d91ff475'" in first
    assert "give --revision main after the paste" in first
    assert "config.json --revision 842da3794eaa0b77d5f08bae87a17459d91ff475`" in first
    assert "another model" not in first
    assert main(["resolve", "--gpu", "h100", _PINNED, "--model-path",
                 "google/gemma-4-26B-A4B", "--revision", "main"]) == 0


def test_an_unshipped_pinned_id_gets_a_download_hint_with_its_revision(capsys):
    first = _error(capsys, _PINNED)
    assert "huggingface-cli download google/gemma-4-31B-it config.json --revision " \
           "842da3794eaa0b77d5f08bae87a17459d91ff475`" in first
    assert "google/gemma-4-31B-it," not in first.split("another model, not this one")[-1]


# --- F4: python -m sglang.cli.main serve starts nothing ----------------------------------------

# find_string id 58061815639 (Chinese blog 'SGLang Day 1 — 源码编译、启动与调试完全记录',
# 2026-06-02, RTX 5060 8GB; methods A and B; shortened)
_METHOD_B = (
    "### 方式 B：走 CLI 入口（支持模型类型自动检测）\n\n"
    "```bash\n"
    "cd ~/devroot/sglang\n"
    "PYTHONPATH=python python -m sglang.cli.main serve \\\n"
    "  --model-path Qwen/Qwen2.5-1.5B-Instruct \\\n"
    "  --tp-size 1 \\\n"
    "  --mem-fraction-static 0.85\n"
    "```\n")
_METHOD_A = (
    "### 方式 A：PYTHONPATH + 模块启动（最灵活）\n\n"
    "```bash\n"
    "cd ~/devroot/sglang\n"
    "PYTHONPATH=python python -m sglang.launch_server \\\n"
    "  --model-path Qwen/Qwen2.5-1.5B-Instruct \\\n"
    "  --tp-size 1 \\\n"
    "  --mem-fraction-static 0.85\n"
    "```\n\n")


def test_the_cli_module_run_with_m_is_named_as_starting_nothing(capsys):
    first = _error(capsys, _METHOD_B)
    assert first.endswith("it runs python -m sglang.cli.main (python -m sglang.cli.main "
                          "starts no server: that module defines the sglang console script's "
                          "main() but does not call it when run with -m, so the command exits "
                          "at once; run sglang serve ... or python -m sglang.launch_server ... "
                          "with the same flags)")


def test_the_cli_module_beside_a_launch_is_noted_not_skipped():
    argv, notes = _read(_METHOD_A + _METHOD_B)
    assert argv[:2] == ["--model-path", "Qwen/Qwen2.5-1.5B-Instruct"]
    assert any(n.startswith("'PYTHONPATH=python python -m sglang.cli.main serve' is not a "
                            "launch and is not planned (python -m sglang.cli.main starts no "
                            "server") for n in notes)
