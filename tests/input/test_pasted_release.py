"""The SGLang release a pasted text names picks the rule set it is planned with."""

from __future__ import annotations

import pytest

from launchplan.commands.options import COMPAT_CHOICES
from launchplan.input.pasted_release import reported_release

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"


@pytest.mark.parametrize(("text", "release", "version"), [
    (f"sglang: 0.5.22\n{LAUNCH}", "0.5.22", "0.5.22"),
    (f'pip install "sglang[all]==0.5.21.post2"\n{LAUNCH}', "0.5.21", "0.5.21.post2"),
    (f"pip install sglang==0.5.23\n{LAUNCH}", "0.5.23", "0.5.23"),
    (f"docker run --gpus all lmsysorg/sglang:v0.5.22-cu129 {LAUNCH}", "0.5.22", "0.5.22"),
    (f"image: lmsysorg/sglang:v0.5.21\ncommand: {LAUNCH}", "0.5.21", "0.5.21"),
    # the ROCm images (SGLang's cookbook: lmsysorg/sglang-rocm:v0.5.21-rocm720-mi35x-...)
    (f"image : lmsysorg/sglang-rocm:v0.5.21-rocm720-mi35x-20261006\n{LAUNCH}", "0.5.21",
     "0.5.21"),
    # AMD's own image of a release (MI300X/MI355X reports): rocm/sgl-dev:v0.5.22-rocm720-...
    (f"docker run rocm/sgl-dev:v0.5.22-rocm720-mi35x-20261120 {LAUNCH}", "0.5.22", "0.5.22"),
    (f"docker pull rocm/sgl-dev:v0.5.7-rocm700-mi35x-20260101\n{LAUNCH}", None, "0.5.7"),
    (f"SGLang Version 0.5.22\n{LAUNCH}", "0.5.22", "0.5.22"),  # NVIDIA's container banner
    (f"sglang: 0.4.6.post5\n{LAUNCH}", None, "0.4.6.post5"),  # not modelled
    (f"sglang: 0.5.23rc0\n{LAUNCH}", None, "0.5.23rc0"),  # a pre-release is not the release
])
def test_a_named_release(text, release, version):
    found = reported_release([text], COMPAT_CHOICES)
    assert found is not None and found[:2] == (release, version)


@pytest.mark.parametrize("text", [
    LAUNCH,  # none named
    f"sglang: 0.5.21\nimage: lmsysorg/sglang:v0.5.22\n{LAUNCH}",  # two releases
    f"lmsysorg/sglang:latest {LAUNCH}",  # a moving tag names no release
    f"rocm/sgl-dev:latest-rocm720 {LAUNCH}",
    f"vllm: 0.11.0\n{LAUNCH}",  # another engine's version
])
def test_no_single_release(text):
    assert reported_release([text], COMPAT_CHOICES) is None
