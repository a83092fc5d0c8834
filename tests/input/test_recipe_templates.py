"""A recipe whose command is a template its own values fill (h12 F4: sparkrun recipes): the
placeholders the recipe's defaults and top-level keys name are filled as its runner fills
them, with a note saying so; one it leaves open is reported as before. Each test fails
without the fix (every placeholder was called one the text leaves to fill in)."""

from __future__ import annotations

import json

from launchplan.commands.main import main
from launchplan.input.manifest import launch_in

#: scitrera/sparkrun, recipes/qwen3-1.7b-sglang.yaml (commit 50727e59)
QWEN = """\
model: Qwen/Qwen3-1.7B
runtime: sglang
min_nodes: 1
container: scitrera/dgx-spark-sglang:0.5.8-t5

metadata:
  description: Qwen3 1.7B -- small test model, solo or cluster (SGLang)
  maintainer: scitrera.ai <open-source-team@scitrera.com>
  model_params: 1.7B
  model_dtype: bf16

defaults:
  port: 8000
  host: 0.0.0.0
  tensor_parallel: 2
  gpu_memory_utilization: 0.3
  served_model_name: qwen3-1.7b

command: |
  python3 -m sglang.launch_server \\
      --model-path {model} \\
      --served-model-name {served_model_name} \\
      --mem-fraction-static {gpu_memory_utilization} \\
      --tp-size {tensor_parallel} \\
      --host {host} \\
      --port {port} \\
      --reasoning-parser deepseek-r1 \\
      --trust-remote-code
"""

#: scitrera/sparkrun, recipes/minimax-m2.5/minimax-m2.5-sglang-tp4.yaml (commit 7b5903be),
#: cut to its defaults and command
MINIMAX = """\
model: MiniMaxAI/MiniMax-M2.5
runtime: sglang
min_nodes: 4

defaults:
  port: 8000
  host: 0.0.0.0
  tensor_parallel: 4
  gpu_memory_utilization: 0.8
  max_model_len: 196608
  served_model_name: minimax-m2.5
  attention_backend: triton
  tool_call_parser: minimax-m2
  reasoning_parser: minimax-append-think

command: |
  python3 -m sglang.launch_server \\
      --model-path {model} \\
      --served-model-name {served_model_name} \\
      --context-length {max_model_len} \\
      --mem-fraction-static {gpu_memory_utilization} \\
      --tp-size {tensor_parallel} \\
      --host {host} \\
      --port {port} \\
      --attention-backend {attention_backend} \\
      --tool-call-parser {tool_call_parser} \\
      --reasoning-parser {reasoning_parser} \\
      --trust-remote-code
"""


def _plan(capsys, gpu: str, *argv: str) -> dict:
    assert main(["resolve", "--gpu", gpu, *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["resolved"]


def test_a_recipes_defaults_and_model_fill_its_command(capsys):
    plan = _plan(capsys, "gb10", QWEN)
    assert (plan["tp_size"], plan["mem_fraction_static"], plan["port"]) == (2, 0.3, 8000)
    assert (plan["model_path"], plan["served_model_name"]) == ("Qwen/Qwen3-1.7B", "qwen3-1.7b")
    assert plan["host"] == "0.0.0.0" and plan["reasoning_parser"] == "deepseek-r1"


def test_every_placeholder_of_a_larger_recipe_is_filled(capsys):
    plan = _plan(capsys, "gb10", MINIMAX)
    assert (plan["context_length"], plan["tp_size"]) == (196608, 4)
    assert plan["attention_backend"] == "triton"
    assert plan["tool_call_parser"] == "minimax-m2"


def test_the_reading_says_the_values_are_the_recipes():
    notes: list[str] = []
    words, _ = launch_in(QWEN, notes=notes)
    assert words[words.index("--tp-size") + 1] == "2"
    assert len(notes) == 1 and "{tensor_parallel} = 2" in notes[0] and "defaults" in notes[0]


def test_a_default_that_names_another_is_filled_as_the_runner_fills_again(capsys):
    nested = QWEN.replace("served_model_name: qwen3-1.7b", "served_model_name: '{model}-x'")
    plan = _plan(capsys, "gb10", nested)
    assert plan["served_model_name"] == "Qwen/Qwen3-1.7B-x"


def test_a_placeholder_the_recipe_does_not_fill_stays_open(capsys):
    open_one = QWEN.replace("--trust-remote-code", "--trust-remote-code \\\n"
                            "      --kv-cache-dtype {kv_cache_dtype}")
    assert main(["resolve", "--gpu", "gb10", open_one]) == 2
    err = capsys.readouterr().err
    assert "{kv_cache_dtype}" in err and "{gpu_memory_utilization}" not in err
