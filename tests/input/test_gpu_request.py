"""The GPU a pasted task asks for becomes the target when ``--gpu`` is not given."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.input.gpu_request import requested_gpu, slurm_gpus, visible_gpus

LAUNCH = "python -m sglang.launch_server --model-path meta-llama/Llama-3.3-70B-Instruct --tp 4"

SKYPILOT = f"""resources:
  accelerators: H100:4
  ports: 30000
run: |
  {LAUNCH}
"""


@pytest.mark.parametrize(("text", "expected"), [
    (SKYPILOT, ("h100", 4)),
    ("resources:\n  accelerators:\n    A100-80GB: 8\nrun: " + LAUNCH, ("a100", 8)),
    ("resources:\n  accelerators: {L40S:2}\nrun: " + LAUNCH, ("l40s", 2)),
    ("resources:\n  accelerators: A100:8\nrun: " + LAUNCH, ("a100-40gb", 8)),  # SkyPilot's 40 GB
    ("type: service\nresources:\n  gpu: H200:8\ncommands:\n  - " + LAUNCH, ("h200", 8)),
    (f'@app.function(gpu="A100-80GB:2")\ndef serve():\n    os.system("{LAUNCH}")', ("a100", 2)),
    (f'@app.function(gpu=modal.gpu.H100(count=8))\ndef serve():\n    run("{LAUNCH}")',
     ("h100", 8)),
    # (a GPU named with no count is one, as Modal attaches it)
    (f'@app.function(gpu="a100")\ndef serve():\n    run("{LAUNCH}")', ("a100-40gb", 1)),
    ("spec:\n  nodeSelector:\n    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\n"
     f"  containers:\n  - command: [{LAUNCH}]", ("h100", None)),
    ("spec:\n  nodeSelector:\n    cloud.google.com/gke-accelerator: nvidia-tesla-a100\n"
     f"  containers:\n  - command: [{LAUNCH}]", ("a100-40gb", None)),
    ("spec:\n  nodeSelector:\n    cloud.google.com/gke-accelerator: nvidia-h100-80gb\n"
     f"  containers:\n  - command: [{LAUNCH}]", ("h100", None)),
    # BentoML: the service's resources mapping (GKE's names; a count set from a name is open)
    (f'@bentoml.service(\n    resources={{\n        "gpu": 1,\n        "gpu_type": "nvidia-l4",'
     f'\n    }},\n)\nclass SGL:\n    def start(self):\n        run("{LAUNCH}")', ("l4", 1)),
    (f'@bentoml.service(resources={{"gpu": NUM_GPUS, "gpu_type": "nvidia-a100-80gb"}})\n'
     f'class SGL:\n    cmd = "{LAUNCH}"', ("a100", None)),
    (f'@bentoml.service(resources={{"gpu_type": "nvidia-tesla-a100", "gpu": 8}})\n'
     f'class SGL:\n    cmd = "{LAUNCH}"', ("a100-40gb", 8)),
])
def test_a_task_names_its_gpu(text, expected):
    found = requested_gpu([text])
    assert found is not None and found[:2] == expected


@pytest.mark.parametrize("text", [
    LAUNCH,  # nothing asked for
    "resources:\n  accelerators: {H100:8, A100-80GB:8}\nrun: " + LAUNCH,  # either of two
    "resources:\n  accelerators: T4:1\nrun: " + LAUNCH,  # no target for it: no guess
    "resources:\n  gpu: 80GB:8\ncommands:\n  - " + LAUNCH,  # a size, no type
    "num_gpu=8\n" + LAUNCH,
])
def test_no_single_known_gpu_is_no_request(text):
    assert requested_gpu([text]) is None


def _dstack(spec: str) -> str:
    return f"type: task\ncommands:\n  - {LAUNCH}\nresources:\n  gpu: {spec}\n  disk: 200GB\n"


# dstack reads a ``gpu:`` spec's colon-separated parts by their look, in any order: vendor,
# names (either of a comma list), memory (a size with a unit, or a range), count (or a range).
@pytest.mark.parametrize(("spec", "gpu", "count"), [
    ("8:H200", ("h200", 8), 8),  # count first, as dstack's own examples write it
    ("H200:8", ("h200", 8), 8),
    ("'8:MI300X'  # the ROCm task", ("mi300x", 8), 8),
    ("nvidia:H100:80GB:4", ("h100", 4), 4),
    ("A100:40GB:2", ("a100-40gb", 2), 2),  # dstack's A100 is both parts: the memory picks
    ("80GB:A100:8", ("a100", 8), 8),
    ("A100:2", None, 2),  # either A100: no guess at the part, the count holds
    ("A100:40GB..:2", None, 2),
    ("H100,H200:8", None, 8),  # either of two types
    ("H100:2..8", ("h100", None), None),  # a count range: open
    ("24GB..40GB:2", None, 2),  # a size, no type: the count only
    ("nvidia:8", None, 8),
    ("2..8", None, None),
    ("H100:94GB:8", None, 8),  # a memory the catalog's H100 does not have: no guess
    ("8:Gaudi2", None, 8),
    ("0", None, None),
    ("true", None, None),
    ("{name: H100, count: 8}", ("h100", 8), 8),  # the mapping form
    ("\n    name: [H100]\n    memory: 80GB\n    count: 4", ("h100", 4), 4),
    ("\n    name:\n      - MI300X\n    count: 8", ("mi300x", 8), 8),
])
def test_dstack_gpu_specs_in_every_documented_form(spec, gpu, count):
    from launchplan.input.gpu_request import requested_count

    found = requested_gpu([_dstack(spec)])
    assert (found[:2] if found else None) == gpu
    counted = requested_count([_dstack(spec)])
    assert (counted[0] if counted else None) == count


def test_a_dstack_task_asking_count_first_is_the_target(capsys):
    code, plan = _plan([_dstack("8:H200")], capsys)
    assert code == 0 and plan["target"]["name"] == "h200"
    assert plan["target"]["gpu_count"] == 8
    assert any("(gpu: 8:H200)" in w for w in plan["warnings"])


def _plan(argv, capsys):
    code = main(["resolve", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else err)


def test_resolve_plans_for_the_gpu_the_task_asks_for(capsys):
    code, plan = _plan([SKYPILOT], capsys)
    assert code == 0 and plan["target"]["name"].startswith("h100")
    assert plan["target"]["gpu_count"] == 4  # the GPUs the task asks for
    assert any("accelerators: H100:4" in w for w in plan["warnings"])
    code, given = _plan(["--gpu", "b200", SKYPILOT], capsys)  # --gpu wins the type;
    assert code == 0 and given["target"]["device_name"] == "NVIDIA B200"  # the task's count
    assert given["target"]["gpu_count"] == 4 and any(  # holds, said in a warning
        "--gpu-count 4: the pasted text's task asks for 4 GPUs" in w for w in given["warnings"])
    code, err = _plan(["resources:\n  accelerators: T4:1\nrun: " + LAUNCH], capsys)
    assert code == 2 and "--gpu" in err


# ``python -m sglang.check_env`` groups GPUs of one name on one line; vLLM's ``collect_env``
# (which SGLang issues quote too) writes a line a GPU.
CHECK_ENV = """Python: 3.12.3 (main, Nov  6 2025, 13:44:16) [GCC 13.3.0]
CUDA available: True
GPU 0,1,2,3,4,5,6,7: NVIDIA H100 80GB HBM3
GPU 0,1,2,3,4,5,6,7 Compute Capability: 9.0
CUDA_HOME: /usr/local/cuda
sglang: 0.5.21
"""
NVIDIA_SMI = """
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 570.124.06             Driver Version: 570.124.06     CUDA Version: 12.8     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
|=========================================+========================+======================|
|   0  NVIDIA H200                    On  |   00000000:18:00.0 Off |                    0 |
| N/A   31C    P0            118W /  700W |  126735MiB / 143771MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA H200                    On  |   00000000:2A:00.0 Off |                    0 |
| N/A   33C    P0            119W /  700W |  126735MiB / 143771MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
"""
COLLECT_ENV = ("GPU models and configuration:\nGPU 0: NVIDIA H200\nGPU 1: NVIDIA H200\n"
               "GPU 2: NVIDIA H200\nGPU 3: NVIDIA H200\n\nNvidia driver version: 570.124.06\n")


@pytest.mark.parametrize(("text", "expected"), [
    (f"{LAUNCH}\n\n### Environment\n{CHECK_ENV}", ("h100", 8)),
    (f"{LAUNCH}\n{COLLECT_ENV}", ("h200", 4)),
    (f"{LAUNCH}\nGPU 0,1: AMD Instinct MI300X\n", ("mi300x", 2)),
    (f"{LAUNCH}\nGPU 0,1: NVIDIA A100-SXM4-40GB\n", ("a100-40gb", 2)),
    (f"$ nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-e7a4c41d-bf43)\n{LAUNCH}",
     ("rtx3090", 1)),
    (f"{LAUNCH}\n{NVIDIA_SMI}", ("h200", 2)),
])
def test_an_environment_report_names_the_gpu(text, expected):
    found = requested_gpu([text])
    assert found is not None and found[:2] == expected


@pytest.mark.parametrize("text", [
    f"{LAUNCH}\nGPU 0,1: NVIDIA H100 80GB HBM3\nGPU 2,3: NVIDIA A100-SXM4-80GB\n",  # two kinds
    f"{LAUNCH}\nGPU 0: Tesla T4\n",  # no target for it
    f"{LAUNCH}\nGPU 0,1,2,3 Compute Capability: 9.0\n",  # not a name
])
def test_an_unclear_environment_report_names_no_gpu(text):
    assert requested_gpu([text]) is None


def test_resolve_plans_for_the_gpus_and_release_of_a_pasted_issue(capsys):
    issue = f"### Reproduction\n\n```\n{LAUNCH}\n```\n\n### Environment\n\n```\n{CHECK_ENV}```\n"
    code, plan = _plan([issue], capsys)
    assert code == 0 and plan["target"]["name"].startswith("h100")
    assert plan["target"]["gpu_count"] == 8
    assert plan["compat"] == "0.5.21"  # the release the report names
    assert any("sglang: 0.5.21" in w for w in plan["warnings"])
    code, given = _plan(["--compat", "0.5.23", issue], capsys)  # --compat wins
    assert code == 0 and given["compat"] == "0.5.23"
    later = issue.replace("sglang: 0.5.21", "sglang: 0.5.22.post1")
    code, post = _plan([later], capsys)  # a post release runs its release's rules
    assert code == 0 and post["compat"] == "0.5.22"
    older = issue.replace("sglang: 0.5.21", "sglang: 0.4.6.post5")
    code, old = _plan([older], capsys)  # a release launchplan does not model: default rules
    assert code == 0 and old["compat"] == "default"
    assert any("0.4.6.post5" in w and "migrate" in w for w in old["warnings"])


@pytest.mark.parametrize(("gpu", "name", "count"), [
    ("8xH100", "h100", 8), ("8x H200", "h200", 8), ("H100x4", "h100", 4),
    ("4×A100-80GB", "a100", 4), ("2*L40S", "l40s", 2), ("h100:8", "h100", 8),
])
def test_gpu_names_a_count_too(gpu, name, count, capsys):
    code, plan = _plan(["--gpu", gpu, "--model-path", "llama-3.1-8b"], capsys)
    assert code == 0 and plan["target"]["name"].rstrip("*") == name
    assert plan["target"]["gpu_count"] == count


def test_gpu_count_given_twice_must_agree(capsys):
    code, plan = _plan(["--gpu", "8xH100", "--gpu-count", "8", "--model-path", "llama-3.1-8b"],
                       capsys)
    assert code == 0 and plan["target"]["gpu_count"] == 8
    code, err = _plan(["--gpu", "8xH100", "--gpu-count", "4", "--model-path", "llama-3.1-8b"],
                      capsys)
    assert code == 2 and "--gpu-count" in err and "8xH100" in err
    code, err = _plan(["--gpu", "0xH100", "--model-path", "llama-3.1-8b"], capsys)
    assert code == 2 and "--gpu" in err


def test_a_count_the_target_already_has_changes_nothing(capsys):
    code, plan = _plan(["--gpu", "8xH200", "--model-path", "llama-3.1-8b"], capsys)
    assert code == 0 and plan["target"]["name"] == "h200"  # no override mark
    code, plan = _plan(["--gpu", "4xH200", "--model-path", "llama-3.1-8b"], capsys)
    assert code == 0 and plan["target"]["name"] == "h200*"


@pytest.mark.parametrize(("env", "expected"), [
    (["CUDA_VISIBLE_DEVICES=0,1"], (2, "CUDA_VISIBLE_DEVICES=0,1")),
    (["CUDA_VISIBLE_DEVICES=GPU-5ec1a2b3-0c4d-4e5f-8a9b-0c1d2e3f4a5b"], (1, None)),
    (["HIP_VISIBLE_DEVICES=4,5,6,7"], (4, None)),
    # the fewest where a container's devices and the process's list both narrow them
    (["NVIDIA_VISIBLE_DEVICES=0,1,2,3", "CUDA_VISIBLE_DEVICES=0,1"], (2, None)),
    (["CUDA_VISIBLE_DEVICES=0,1", "CUDA_VISIBLE_DEVICES=3"], (1, None)),  # the last wins
])
def test_a_device_list_in_the_environment_counts_the_gpus_a_launch_sees(env, expected):
    count, words = visible_gpus(env)
    assert count == expected[0]
    assert expected[1] is None or words == expected[1]


@pytest.mark.parametrize("env", [["NVIDIA_VISIBLE_DEVICES=all"], ["CUDA_VISIBLE_DEVICES="],
                                 ["CUDA_VISIBLE_DEVICES=${GPUS}"], ["SGLANG_X=0,1"], []])
def test_no_device_list_is_no_count(env):
    assert visible_gpus(env) is None


@pytest.mark.parametrize(("argv", "has"), [
    # a pasted launch whose environment lists two devices sees two, not the node's eight
    (["--gpu", "h100", "CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server "
      "--model-path qwen3-8b --tp 8"], 2),
    # more than a one-GPU target's default: the text shows four exist and are visible
    (["--gpu", "rtx3090", "export CUDA_VISIBLE_DEVICES=1,2,3,4\npython -m "
      "sglang.launch_server --model-path qwen3-8b --tp 2 --pp-size 2"], 4),
    # an environment given as an option counts as well
    (["--gpu", "h100", "--env", "CUDA_VISIBLE_DEVICES=0,1,2,3", "--model-path", "qwen3-8b"], 4),
])
def test_resolve_plans_on_the_gpus_the_environment_shows(argv, has, capsys):
    assert main(["resolve", *argv, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["target"]["gpu_count"] == has


def test_a_job_sbatch_wraps_is_planned_on_the_gpus_it_asks_for(capsys):
    line = ('sbatch --gres=gpu:2 --wrap="python -m sglang.launch_server --model-path qwen3-8b '
            '--tp 4"')
    assert main(["resolve", "--gpu", "h100", line, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["target"]["gpu_count"] == 2


def test_a_count_given_wins_over_the_environments(capsys):
    argv = ["--gpu", "h100", "--gpu-count", "8", "--env", "CUDA_VISIBLE_DEVICES=0,1",
            "--model-path", "qwen3-8b", "--format", "json"]
    assert main(["resolve", *argv]) == 0
    assert json.loads(capsys.readouterr().out)["target"]["gpu_count"] == 8


@pytest.mark.parametrize(("text", "expected"), [
    ("#SBATCH --gres=gpu:4\npython -m sglang.launch_server", 4),
    ("#SBATCH --gres=gpu:h200:4,lscratch:10\nsrun python -m sglang.launch_server", 4),
    ("#SBATCH --gpus-per-node=nvidia_h200:8\n#SBATCH -N 4\n", 8),
    ("#SBATCH --nodes=2\n#SBATCH --gpus=16\n", 8),  # a whole job's GPUs over its nodes
    ("srun --gres=gpu:a100:2 python3 -m sglang.launch_server", 2),
    ('sbatch --gres=gpu:2 --wrap="python -m sglang.launch_server --tp 4"', 2),  # its own line
    ("#SBATCH --gres=gpu:4\nsrun --gres=gpu:2 python -m sglang.launch_server", None),
    ("#SBATCH --gpus-per-task=4\n", None),  # per task: the tasks a node runs decide
    ("python -m sglang.launch_server --gres=gpu:4", None),  # not a Slurm line
])
def test_a_slurm_jobs_gpu_request_counts_the_gpus_of_each_node(text, expected):
    found = slurm_gpus(text)
    assert (found[0] if found else None) == expected


@pytest.mark.parametrize(("text", "has"), [
    ("#!/bin/bash\n#SBATCH --gres=gpu:4\npython3 -m sglang.launch_server --model-path "
     "qwen3-8b --tp 8\n", 4),
    ("model_name: x\nresources:\n  accelerator: H100:4\n  use_gpu: true\ndocker_server:\n"
     "  start_command: python3 -m sglang.launch_server --model-path qwen3-8b --tp 4\n", 4),
    ("podman run --device nvidia.com/gpu=0 --device nvidia.com/gpu=1 lmsysorg/sglang "
     "python3 -m sglang.launch_server --model-path qwen3-8b --tp 2", 2),
])
def test_resolve_plans_on_the_gpus_a_job_or_container_is_given(text, has, capsys):
    assert main(["resolve", "--gpu", "h100", text, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["target"]["gpu_count"] == has


def test_a_modal_gpu_fstring_takes_the_names_the_script_sets():
    script = ('import os\nimport modal\n'
              'GPU_TYPE = os.environ.get("GPU_TYPE", "h100")\n'
              'GPU_COUNT = int(os.environ.get("GPU_COUNT", 2))\n'
              '@app.function(gpu=f"{GPU_TYPE}:{GPU_COUNT}")\ndef serve():\n'
              f'    subprocess.run("{LAUNCH}", shell=True)\n')
    assert requested_gpu([script]) == ("h100", 2, 'gpu="h100:2"')
    # a name the script leaves to its caller names no GPU
    assert requested_gpu([script.replace('GPU_TYPE = os.environ.get("GPU_TYPE", "h100")\n',
                                         "")]) is None


def test_a_skypilot_bare_name_is_one_gpu():
    assert requested_gpu(["resources:\n  accelerators: H100\nrun: " + LAUNCH]) == (
        "h100", 1, "accelerators: H100")


@pytest.mark.parametrize(("value", "count"), [
    ("{L4:1, A10G:1, A100:1}", 1), ("[A100-80GB:8, H100:8]", 8), ("{L4, A10G}", 1),
    ("{A100:2, H100:4}", None),  # the count depends on the type SkyPilot finds
])
def test_alternatives_that_ask_the_same_count_give_it(value, count, capsys):
    from launchplan.input.gpu_request import requested_count

    task = f"resources:\n  accelerators: {value}\nrun: {LAUNCH}"
    found = requested_count([task])
    assert (found[0] if found else None) == count
    code, plan = _plan(["--gpu", "h100", task], capsys)
    assert code == 0 and plan["target"]["gpu_count"] == (count or 8)


def test_a_device_list_the_script_works_out_is_said_to_be_open(capsys):
    text = "export CUDA_VISIBLE_DEVICES=$(seq -s, 0 1)\n" + LAUNCH
    code, plan = _plan(["--gpu", "h100", text], capsys)
    assert code == 0 and plan["target"]["gpu_count"] == 8
    assert any("CUDA_VISIBLE_DEVICES=$(seq -s, 0 1): the devices it lists are worked out"
               in w for w in plan["warnings"])
    code, plan = _plan(["--gpu", "h100", "export CUDA_VISIBLE_DEVICES=0,1\n" + LAUNCH], capsys)
    assert plan["target"]["gpu_count"] == 2 and not any("worked out" in w
                                                        for w in plan["warnings"])
