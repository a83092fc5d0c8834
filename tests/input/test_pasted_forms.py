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
from launchplan.input.pasted import launch_count, unpaste

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


def test_fish_and_csh_assignments_set_the_scripts_variables():
    # fish's ``set NAME VALUE`` sets without exporting; csh's ``set NAME = VALUE`` the same,
    # and its ``setenv NAME VALUE`` exports
    fish = ("set -x SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN 1\nset TP 2\n"
            "python -m sglang.launch_server --model-path m --tp $TP\n")
    assert unpaste([fish]) == (["--model-path", "m", "--tp", "2"],
                               ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"])
    csh = ("#!/bin/tcsh\nsetenv SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN 1\n"
           "set MODEL = /models/m\nset TP=4\n"
           "python -m sglang.launch_server --model-path $MODEL --tp $TP\n")
    assert unpaste([csh]) == (["--model-path", "/models/m", "--tp", "4"],
                              ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"])
    # bash's ``set --`` and option runs stay bash's
    bash = "set -- a b\nset -e -u\npython -m sglang.launch_server --model-path m\n"
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


SRT_RECIPE_2 = """schema: 2
name: "qwen3-disagg"
model: {path: "qwen3-8b", container: "sglang"}
resources: {gpu_type: "h100", gpus_per_node: 4}
frontend: {type: sglang}
engine: sglang
roles:
  prefill:
    nodes: 1
    workers: 1
    gpus: 2
    env: {SGLANG_X: "1"}
    args: {served-model-name: "Qwen/Qwen3-8B", tensor-parallel-size: 2}
  decode:
    nodes: 2
    workers: 1
    gpus: 8
    args: {tp-size: 8}
"""


def test_an_srt_slurm_recipe_of_the_2_0_layout_is_read_as_its_roles_workers():
    from launchplan.input.pasted import launch_count

    # srt-slurm's 2.0 layout: engine and roles, each role's args, env and GPUs per worker
    assert launch_count([SRT_RECIPE_2]) == 2
    argv, env = unpaste([SRT_RECIPE_2])
    assert argv == ["--model-path", "/model", "--served-model-name", "Qwen/Qwen3-8B", "--host",
                    "0.0.0.0", "--disaggregation-mode", "prefill",
                    "--tensor-parallel-size", "2"]  # the served name once, as srtctl passes it
    assert env == ["SGLANG_X=1"]
    argv, env = unpaste([SRT_RECIPE_2], launch=2)
    assert argv[argv.index("--nnodes") + 1] == "2" and argv[-2:] == ["--tp-size", "8"]
    agg = SRT_RECIPE_2.split("roles:")[0] + "roles:\n  agg:\n    gpus: 1\n    args: {tp-size: 1}\n"
    assert "--disaggregation-mode" not in unpaste([agg])[0]
    assert launch_count([agg.replace("engine: sglang", "engine: vllm")]) == 0


def _bad_input_line(text: str, capsys: pytest.CaptureFixture[str]) -> str:
    """The first stderr line of ``resolve`` on ``text`` (bundled model given), bad input."""
    assert main(["resolve", "--gpu", "h100", text, "--model-path", "qwen3-8b"]) == 2
    return capsys.readouterr().err.strip().splitlines()[0]


def test_a_page_that_starts_no_launch_is_named_by_what_its_code_blocks_run(capsys):
    # another server's cookbook page: prose, a diagram block, then shell blocks; the
    # error names the programs of its code blocks, not its sentences' first words
    page = ("# Some-ASR\n\nSome-ASR is an end-to-end speech model. Omni serves it through\n"
            "an OpenAI-compatible endpoint.\n\n```text\nwaveform (24 kHz)\n  -> encoder\n```\n\n"
            "Install, then download:\n\n```bash\nhf download org/Some-ASR\n```\n\n"
            "```bash\nsgl-omni serve \\\n  --model-path org/Some-ASR \\\n  --port 8000\n```\n\n"
            "Then:\n\n```bash\ncurl -X POST http://localhost:8000/v1/x -F a=b\n```\n")
    first = _bad_input_line(page, capsys)
    assert first.endswith("it runs hf download, sgl-omni serve, curl"), first
    # the same page with its launch in a block still plans it, prose and all
    launching = page.replace("sgl-omni serve", "sglang serve")
    assert unpaste([launching])[0] == ["--model-path", "org/Some-ASR", "--port", "8000"]


def test_a_list_items_label_and_value_are_no_command(capsys):
    # an issue's environment list: ``Base Image: IMAGE`` is a label and its value; the
    # command item names what it runs (another project's server)
    text = ("- GPU: NVIDIA RTX 5090\n- Base Image: someorg/other-server:dev\n"
            "- Command used: A=1 python3 -m other_server.cli serve --port 1 --model-path m\n")
    first = _bad_input_line(text, capsys)
    assert first.endswith("it runs python3 -m other_server.cli"), first


def test_a_tools_run_of_python_names_the_module_it_runs(capsys):
    # ``uv run python -m other_server.launch_server ...``: another project's server, named
    # by its module (not only ``uv run python``)
    text = ("CACHE=/tmp/x uv run python -m other_server.launch_server \\\n"
            "    --model-path org/m --tp-size 4 --port 1\n")
    first = _bad_input_line(text, capsys)
    assert first.endswith("it runs uv run python -m other_server.launch_server"), first


@pytest.mark.parametrize("prompt", ["(venv) root@box /h/u/# ", "[root@gpu01 ~]# ",
                                    "user@box ~/work$ ", "root@box:/srv# "])
def test_a_prompt_that_shows_user_at_host_then_a_directory_is_no_command(prompt):
    # fish, zsh and Red Hat's bash show ``user@host dir`` (a space, not a colon) before the
    # ``#`` or ``$``: the export after it is still the launch's environment
    text = (f"{prompt}export CUDA_VISIBLE_DEVICES=0,1\n\n"
            "        python -m sglang.launch_server \\\n          --model-path m --tp-size 2\n")
    assert unpaste([text]) == (["--model-path", "m", "--tp-size", "2"],
                               ["CUDA_VISIBLE_DEVICES=0,1"])
    # a comment line is still a comment, not a prompt
    commented = "# export A=1\npython -m sglang.launch_server --model-path m\n"
    assert unpaste([commented]) == (["--model-path", "m"], [])


def test_a_page_whose_prose_is_no_yaml_is_not_read_as_a_manifest(capsys):
    # a docs page: prose naming the SGLang image, a YAML block of a custom resource that
    # names its runtime (no container of its own), and shell blocks applying it; its
    # ``spec:`` line made the whole page a manifest that then failed to load
    page = ("## Create the runtime\n\nThe runtime runs SGLang from `lmsysorg/sglang:v1`. Apply "
            "it:\n\n```bash\nkubectl apply -f https://example.com/rt.yaml\n```\n\n"
            "Save this as `isvc.yaml`:\n\n```yaml\napiVersion: example.io/v1\nkind: "
            "InferenceService\nmetadata:\n  name: m\nspec:\n  runtime:\n    name: rt\n```\n\n"
            "- `runtime.name` names the runtime.\n\n```bash\nkubectl apply -f isvc.yaml\n```\n")
    first = _bad_input_line(page, capsys)
    assert first.endswith("it runs kubectl apply"), first
    # a manifest pasted on its own is still read as one
    pod = ("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: s\n    image: "
           "lmsysorg/sglang\n    command: [python3, -m, sglang.launch_server]\n"
           "    args: [--model-path, m, --tp, '2']\n")
    assert unpaste([pod]) == (["--model-path", "m", "--tp", "2"], [])


def test_a_page_showing_python_without_its_fences_is_read_for_its_engine_call():
    # a rendered page: a heading and a sentence between the statements, a loop body that
    # lost its indent; the engine call still stands on its own
    page = ("Quick Start\nSGLang is a fast serving framework.\nimport sglang as sgl\n"
            "llm = sgl.Engine(model_path=\"org/m\",\ntp_size=2)\n"
            "outputs = llm.generate([\"Hi\"], {\"temperature\": 0})\n"
            "for output in outputs:\nprint(output[\"text\"])\n")
    assert unpaste([page]) == (["--model-path", "org/m", "--tp-size", "2"], [])


def _lws_block(role: str) -> str:
    return ("```yaml\napiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\n"
            f"metadata:\n  name: {role}\nspec:\n  leaderWorkerTemplate:\n    size: 2\n"
            "    leaderTemplate:\n      spec:\n        containers:\n        - command:\n"
            "          - python3\n          - -m\n          - sglang.launch_server\n"
            "          - --model-path\n          - m\n          - --disaggregation-mode\n"
            f"          - {role}\n          - --nnodes\n          - $(LWS_GROUP_SIZE)\n"
            "          - --node-rank\n          - $(LWS_WORKER_INDEX)\n```\n")


def test_a_page_of_several_launching_manifests_reads_them_as_one_manifest():
    # a docs page: a prefill and a decode LeaderWorkerSet, each in its own YAML block,
    # then shell blocks applying them, a Service, and the output of ``kubectl get po``;
    # read whole, the page was no YAML ("expected YAML or a JSON array")
    page = ("# PD on LWS\n\n### Prefill\n\n" + _lws_block("prefill") + "\n### Decode\n\n"
            + _lws_block("decode") + "\nApply them:\n\n```bash\nkubectl apply -f p.yaml\n```\n\n"
            "```yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: lb\n```\n\n"
            "```bash\n[root@host]# kubectl get po\nprefill-0   1/1   Running\n```\n")
    assert launch_count([page]) == 2
    for at, role in enumerate(("prefill", "decode"), start=1):
        assert unpaste([page], launch=at) == (
            ["--model-path", "m", "--disaggregation-mode", role, "--nnodes", "2",
             "--node-rank", "0"], [])


def test_a_role_based_group_role_run_as_a_leader_worker_set_sets_its_variables():
    # RoleBasedGroup's LeaderWorkerSet workload: the role's ``leaderWorkerSet`` size is the
    # group's, its ``patchLeaderTemplate`` the leader's pod (index 0); a worker's index is
    # its own (left as written)
    text = ("apiVersion: workloads.x-k8s.io/v1alpha1\nkind: RoleBasedGroup\nspec:\n  roles:\n"
            "  - name: decode\n    workload:\n      kind: LeaderWorkerSet\n"
            "    leaderWorkerSet:\n      size: 3\n      patchLeaderTemplate:\n        spec:\n"
            "          containers:\n          - command: [python3, -m, sglang.launch_server,"
            " --model-path, m, --nnodes, $(LWS_GROUP_SIZE), --node-rank, $(LWS_WORKER_INDEX)]\n"
            "      patchWorkerTemplate:\n        spec:\n          containers:\n"
            "          - command: [python3, -m, sglang.launch_server, --model-path, m,"
            " --nnodes, $(LWS_GROUP_SIZE), --node-rank, $(LWS_WORKER_INDEX)]\n")
    assert unpaste([text]) == (["--model-path", "m", "--nnodes", "3", "--node-rank", "0"], [])
    assert unpaste([text], launch=2)[0][-1] == "$(LWS_WORKER_INDEX)"


def test_a_page_running_another_packages_launch_server_is_named_by_it(capsys):
    # a page for another package's server: its options on lines of their own in one block
    # are that server's, not bare SGLang flags to plan
    page = ("# TPU\n\nInstall:\n\n```bash\npip install other-pkg\n```\n\n```bash\n"
            "python3 -u -m other_pkg.launch_server \\\n"
            "    --model-path org/m --attention-backend=fa\n"
            "```\n\nFor throughput add:\n\n```bash\n--chunked-prefill-size=2048\n"
            "--enable-mixed-chunk\n```\n")
    first = _bad_input_line(page, capsys)
    assert "it runs python3 -m other_pkg.launch_server" in first, first
    # bare flags with no other server around them are still the launch's
    assert unpaste(["Flags:\n--model-path m\n--tp 2\n"])[0] == ["--model-path", "m", "--tp", "2"]


def test_a_sentence_naming_the_launcher_in_inline_code_is_no_launch(capsys):
    # "use `sglang generate` or `sglang serve`:" names the commands; the page's blocks run
    # `sglang generate` only (no server), which is what it is named by (a YAML config's
    # list items are no programs)
    page = ("Enable it and use `sglang generate` or `sglang serve` :\n\n```bash\n"
            "X_ENABLED=true \\\nsglang generate --model-path org/m --prompt \"a b\"\n```\n"
            "\nA config:\n\n```yaml\nexclude_layers:\n  - \"embedder\"\n```\n")
    first = _bad_input_line(page, capsys)
    assert first.endswith("it runs sglang generate"), first
    # a launch in inline code is still one
    assert unpaste(["I ran `python -m sglang.launch_server --model-path m --tp 2` and"])[0] \
        == ["--model-path", "m", "--tp", "2"]


def test_a_placeholder_written_with_spaces_is_named_whole(capsys):
    # ``<other option>``: the shell reads ``<other`` as a redirection and stops at ``>``;
    # the page means flags to fill in, named as written (not as ``option>``)
    text = ("python -m sglang.launch_server --enable-trace --otlp-traces-endpoint h:4317 "
            "<other option>")
    assert "got '<other option>'" in _bad_input_line(text, capsys)


def test_a_page_s_front_matter_holding_the_launch_is_read_as_its_script():
    """A benchmark record or docs page: YAML front matter (``run_command: |`` with a comment
    and continued lines), then Markdown. The page is no manifest; the field's script is the
    launch, and without one the body is read."""
    page = ("---\ntitle: qwen3-8b on SGLang\nrun_command: |\n  # the documented image\n"
            "  docker run --gpus all --env HF_HOME=/h lmsysorg/sglang:latest \\\n"
            "    python3 -m sglang.launch_server --model-path qwen3-8b --tp 2\n---\n\n"
            "**Notes.** Started in 40 s: fine.\n")
    assert unpaste([page]) == (["--model-path", "qwen3-8b", "--tp", "2"], ["HF_HOME=/h"])
    body = ("---\ntitle: notes\n---\n\nRun `python3 -m sglang.launch_server --model-path "
            "qwen3-8b --tp 2` and wait.\n")
    assert unpaste([body])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]
    manifests = ("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n"
                 "apiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec:\n  containers:\n"
                 "  - name: s\n    image: lmsysorg/sglang\n    command: [python3, -m, "
                 "sglang.launch_server, --model-path, qwen3-8b]\n")
    assert unpaste([manifests])[0] == ["--model-path", "qwen3-8b"]  # still a manifest


@pytest.mark.parametrize("first", ["# SkyPilot task\n", "# task.yaml\n# the server\n", ""])
def test_a_yaml_block_that_opens_with_comments_is_read_as_the_page_s_manifest(first):
    # SGLang's install page: a ``# file.yaml`` block, then the command that applies it
    page = (f"```yaml\n{first}resources:\n  accelerators: H100:2\nrun: |\n"
            "  python3 -m sglang.launch_server --model-path qwen3-8b --tp 2\n```\n\n"
            "```bash\nsky launch -c sgl task.yaml\n```\n")
    assert unpaste([page]) == (["--model-path", "qwen3-8b", "--tp", "2"], [])


@pytest.mark.parametrize("block", [
    # a code element with a class (most Markdown renderers), entities to decode
    '<pre><code class="language-bash">SGLANG_X=1 python -m sglang.launch_server '
    "--model-path m --tp 2 --json-model-override-args &#39;{&quot;a&quot;: 1}&#39; "
    "&amp;&amp; echo ok\n</code></pre>",
    # Sphinx's Pygments: every token in a span
    '<div class="highlight"><pre><span></span><span class="nv">SGLANG_X</span>'
    '<span class="o">=</span><span class="m">1</span><span class="w"> </span>python'
    '<span class="w"> </span>-m<span class="w"> </span>sglang.launch_server<span class="w">'
    ' </span>--model-path<span class="w"> </span>m<span class="w"> </span>--tp<span '
    'class="w"> </span><span class="m">2</span><span class="w"> </span>'
    "--json-model-override-args<span class=\"w\"> </span><span class=\"s1\">&#39;{&quot;a"
    "&quot;: 1}&#39;</span>\n</pre></div>",
])
def test_an_html_pages_preformatted_launch_is_read_as_its_text(block):
    page = (f"<html><body><p>We'll start the server:</p>\n{block}\n"
            "<p>Then send a request with <code>curl</code>.</p></body></html>")
    argv, env = unpaste([page])
    assert argv == ["--model-path", "m", "--tp", "2", "--json-model-override-args",
                    '{"a": 1}']
    assert env == ["SGLANG_X=1"]
