"""The GPU a pasted task asks for becomes the target when ``--gpu`` is not given."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.input.gpu_request import requested_gpu

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
    (f'@app.function(gpu="a100")\ndef serve():\n    run("{LAUNCH}")', ("a100-40gb", None)),
    ("spec:\n  nodeSelector:\n    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\n"
     f"  containers:\n  - command: [{LAUNCH}]", ("h100", None)),
    ("spec:\n  nodeSelector:\n    cloud.google.com/gke-accelerator: nvidia-tesla-a100\n"
     f"  containers:\n  - command: [{LAUNCH}]", ("a100-40gb", None)),
    ("spec:\n  nodeSelector:\n    cloud.google.com/gke-accelerator: nvidia-h100-80gb\n"
     f"  containers:\n  - command: [{LAUNCH}]", ("h100", None)),
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


def _plan(argv, capsys):
    code = main(["resolve", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else err)


def test_resolve_plans_for_the_gpu_the_task_asks_for(capsys):
    code, plan = _plan([SKYPILOT], capsys)
    assert code == 0 and plan["target"]["name"].startswith("h100")
    assert plan["target"]["gpu_count"] == 4  # the GPUs the task asks for
    assert any("accelerators: H100:4" in w for w in plan["warnings"])
    code, given = _plan(["--gpu", "b200", SKYPILOT], capsys)  # --gpu wins
    assert code == 0 and given["target"]["name"] == "b200"
    code, err = _plan(["resources:\n  accelerators: T4:1\nrun: " + LAUNCH], capsys)
    assert code == 2 and "--gpu" in err
