"""The same launch pasted in every form plans the same: a property over random launches.

Flags, a shell line after a prompt, a script, a Kubernetes container, a Compose service,
an exec-form array and an offline-engine call are seven spellings of one launch; the plan
(or the refusal, or the bad-input line) must not depend on which one was pasted.
"""

from __future__ import annotations

import json
import random
import shlex
from typing import Any

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import unpaste

#: (field, flag, values): the values as a command line writes them (switches: True)
CHOICES: tuple[tuple[str, str, tuple[Any, ...]], ...] = (
    ("tp_size", "--tp-size", ("1", "2", "8", "3")),
    ("page_size", "--page-size", ("1", "16", "64", "0")),
    ("attention_backend", "--attention-backend", ("fa3", "fa4", "triton", "flashinfer")),
    ("mem_fraction_static", "--mem-fraction-static", ("0.7", "0.95", "1.5")),
    ("kv_cache_dtype", "--kv-cache-dtype", ("fp8_e4m3", "auto")),
    ("enable_torch_compile", "--enable-torch-compile", (True,)),
    ("disable_radix_cache", "--disable-radix-cache", (True,)),
    ("context_length", "--context-length", ("4096", "1000000")),
    ("json_model_override_args", "--json-model-override-args",
     ('{"max_position_embeddings": 8192}',)),
    ("cuda_graph_bs_decode", "--cuda-graph-bs-decode", (["1", "2", "8"],)),
    ("chunked_prefill_size", "--chunked-prefill-size", ("4096", "-1")),
)
LAUNCHER = ["python3", "-m", "sglang.launch_server"]


def launch(rng: random.Random) -> tuple[list[str], list[tuple[str, Any]]]:
    argv: list[str] = []
    keywords: list[tuple[str, Any]] = []
    for field, flag, values in rng.sample(CHOICES, rng.randint(1, 5)):
        value = rng.choice(values)
        if value is True:
            argv.append(flag)
        elif isinstance(value, list):
            argv += [flag, *value]
        else:
            argv += [flag, value]
        keywords.append((field, value))
    return argv, keywords


def forms(argv: list[str], keywords: list[tuple[str, Any]]) -> dict[str, str]:
    return {
        "prompt": "(venv) user@host:~$ " + shlex.join([*LAUNCHER, *argv]),
        "script": "export NCCL_DEBUG=WARN\ncd /srv && " + shlex.join([*LAUNCHER, *argv])
                  + " 2>&1 | tee server.log\n",
        "kubernetes": "spec:\n  containers:\n  - name: s\n    command: " + json.dumps(LAUNCHER)
                      + "\n    args: " + json.dumps(argv) + "\n",
        "compose": "services:\n  s:\n    entrypoint: " + " ".join(LAUNCHER)
                   + "\n    command: " + json.dumps(argv) + "\n",
        "exec": json.dumps([*LAUNCHER, *argv]),
        "engine": "import sglang as sgl\nllm = sgl.Engine(\n" + "".join(
            f"    {name}={value!r},\n" for name, value in keywords) + ")\n",
    }


def outcome(capsys, *argv: str) -> tuple[int, Any]:
    code = main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b", *argv,
                 "--format", "json"])
    out, err = capsys.readouterr()
    if code == 0:
        return code, json.loads(out)["resolved"]
    return code, err.strip()


@pytest.mark.parametrize("seed", range(12))
def test_every_pasted_form_plans_as_the_flags_do(seed, capsys):
    argv, keywords = launch(random.Random(seed))
    expected = outcome(capsys, *argv)
    for name, text in forms(argv, keywords).items():
        assert outcome(capsys, text) == expected, name


def test_a_fish_set_with_export_is_the_launchs_environment():
    # fish has no export: ``set -gx NAME VALUE`` exports, ``set -g NAME VALUE`` only sets
    fish = ("```fish\nset -gx CUDA_VISIBLE_DEVICES 0\nset -g MODEL /models/m\n"
            "$TRAIN_PY -m sglang.launch_server --model-path $MODEL --port 8000\n```\n")
    assert unpaste([fish]) == (["--model-path", "/models/m", "--port", "8000"],
                               ["CUDA_VISIBLE_DEVICES=0"])
    # bash's own set (trace, options, its arguments) sets no variable
    bash = "set -euo pipefail\nset -x\npython -m sglang.launch_server --model-path m\n"
    assert unpaste([bash]) == (["--model-path", "m"], [])


@pytest.mark.parametrize("script", ["./.venv/bin/sglang", "/opt/venv/bin/sglang"])
def test_sglangs_console_script_by_path_is_the_launcher(script):
    # a venv that is not activated runs its console script by path
    line = f'PATH="$PWD/.venv/bin:$PATH" {script} serve \\\n  --model-path /models/m --tp 2'
    assert unpaste([line]) == (["--model-path", "/models/m", "--tp", "2"],
                               ["PATH=$PWD/.venv/bin:$PATH"])
    assert unpaste([f"{script} serve --model-path /models/m"]) == (
        ["--model-path", "/models/m"], [])


def test_a_pages_one_launching_block_that_is_a_configuration_is_read_alone():
    # a guide's shell step (a tunnel, an install) beside the launch.json that launches:
    # the shell block is another step, not lines of that file
    page = ("1. Setup:\n\n   ```bash\n   ./code tunnel\n   ```\n\n2. Debug (`launch.json`):\n\n"
            '   ```json\n   {"configurations": [{"type": "debugpy", "request": "launch",\n'
            '     "module": "sglang.launch_server", "args": ["--model-path", "/m"]}]}\n'
            "   ```\n")
    assert unpaste([page]) == (["--model-path", "/m"], [])
    # a script split over blocks (its variables in one, the launch in another) reads whole
    split = ("```bash\nexport MODEL=/m\n```\n\n```bash\npython -m sglang.launch_server "
             "--model-path $MODEL\n```\n")
    assert unpaste([split]) == (["--model-path", "/m"], ["MODEL=/m"])
    # a chart's values (a containers: list) beside a block of the chart's error output
    values = ("Tried:\n\n```yaml\ncontainers:\n- name: a\n  modelCommand: sglangServe\n"
              "  args: [\"--port\", \"1\"]\n```\n\nwhich fails:\n\n```\nError: at (x.yaml:4:1): "
              "\nValid values are `vllmServe` and `custom`.\n```\n\nUse:\n\n```yaml\n"
              "containers:\n- name: b\n  command: [python3, -m, sglang.launch_server]\n"
              "  args:\n    - --model-path\n    - /m\n```\n")
    assert unpaste([values]) == (["--model-path", "/m"], [])


def test_a_scraped_file_views_table_bars_between_lines_are_not_pipes():
    # a code host's rendered view of a Markdown file copies a '|' and a '||' line of its
    # table after every line of the file; read as shell, the continuation before the
    # first bar would pipe the launch into nothing and drop every flag after it
    view = ("```bash Command\n|\n||\npython3 -m sglang.launch_server \\\n|\n||\n"
            "--model-path /models/m \\\n|\n||\n--tp 4 \\\n|\n||\n--port 30000\n|\n||\n"
            "```\n|\n||\n")
    assert unpaste([view]) == (["--model-path", "/models/m", "--tp", "4", "--port",
                                "30000"], [])
    # a real pipe after the launch, and one lone bar (a table's border among prose), stay
    piped = "python3 -m sglang.launch_server --model-path m --tp 2 \\\n  | tee log\n|\nDone."
    assert unpaste([piped])[0] == ["--model-path", "m", "--tp", "2"]


SRT_RECIPE = """name: "disagg-1p1d"
model: {path: "qwen3-8b", container: "latest", precision: "bf16"}
resources: {gpu_type: "h100", gpus_per_node: 4, prefill_workers: 1, decode_workers: 1,
            gpus_per_prefill: 2, gpus_per_decode: 8}
frontend: {type: sglang}
backend:
  type: sglang
  prefill_environment:
    SGLANG_X: "1"
  sglang_config:
    prefill:
      tensor_parallel_size: 2
      disable-radix-cache: true
      enable-metrics: false
    decode:
      tp-size: 8
      cuda-graph-bs: [1, 2, 4]
benchmark: {type: "sa-bench", isl: 1024}
"""


def test_an_srt_slurm_recipe_is_read_as_the_workers_srtctl_starts():
    from launchplan.input.pasted import launch_count

    assert launch_count([SRT_RECIPE]) == 2
    argv, env = unpaste([SRT_RECIPE])  # the prefill worker: its mode, its options in order
    assert argv == ["--model-path", "/model", "--served-model-name", "qwen3-8b", "--host",
                    "0.0.0.0", "--disaggregation-mode", "prefill", "--disable-radix-cache",
                    "--tensor-parallel-size", "2"]
    assert env == ["SGLANG_X=1"]
    # the decode worker takes 8 GPUs at 4 a node: the options of its first node's process
    argv, env = unpaste([SRT_RECIPE], launch=2)
    assert argv[argv.index("--nnodes") + 1] == "2" and argv[argv.index("--node-rank") + 1] == "0"
    assert argv[-6:] == ["--cuda-graph-bs", "1", "2", "4", "--tp-size", "8"] and env == []
    # with Dynamo's frontend (srtctl's own) the workers run dynamo.sglang, no SGLang launcher
    dynamo = SRT_RECIPE.replace("frontend: {type: sglang}", "frontend: {type: dynamo}")
    assert launch_count([dynamo]) == 0
