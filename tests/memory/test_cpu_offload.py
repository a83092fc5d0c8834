"""``--cpu-offload-gb`` in the memory plan: decoder-layer weights up to the limit leave the GPU.

SGLang 0.5.23's OffloaderV1 moves the parameters of the layers ``make_layers`` builds, in
order, until the limit is reached, per rank; the embedding and LM head stay. The public log
of Qwen3-14B at tp 2 on 2 x RTX A4500 with ``--cpu-offload-gb 48`` loaded 1.50 GB per GPU
(tests/memory/data/startup_logs.json, tianyangchen-qwen3-14b-tp2-cpu-offload).
"""

from __future__ import annotations

import pytest

from launchplan.facts.targets import get_target, with_overrides
from launchplan.memory.cpu_offload import RESIDENT, offloaded_bytes
from launchplan.memory.plan import memory_plan
from launchplan.memory.weights import weights_per_gpu
from launchplan.planner import resolve

GiB = 2**30


def test_no_limit_moves_nothing():
    assert offloaded_bytes(0, {"mlp": 10 * GiB}) == 0
    assert offloaded_bytes(None, {"mlp": 10 * GiB}) == 0


def test_the_limit_caps_what_moves():
    assert offloaded_bytes(4, {"attention": 3 * GiB, "mlp": 7 * GiB}) == 4 * GiB
    assert offloaded_bytes(0.5, {"mlp": 7 * GiB}) == GiB // 2


def test_embedding_head_and_vision_stay_on_the_gpu():
    breakdown = {"embedding": 2 * GiB, "lm_head": 2 * GiB, "vision": GiB, "mlp": 3 * GiB,
                 "norms": 1024}
    assert offloaded_bytes(48, breakdown) == 3 * GiB + 1024
    assert {"embedding", "lm_head", "vision"} <= RESIDENT


def _plan(*flags: str):
    target = with_overrides(get_target("rtx3090"), memory_mib=20470, gpu_count=2,
                            before_load_mib=round(18.73 * 1024))
    result = resolve(["--tp-size", "2", "--dtype", "half", "--mem-fraction-static", "0.65",
                      *flags], gpu=target, model_path="qwen3-14b")
    return result, memory_plan(result)


def test_a_limit_above_the_layers_leaves_embedding_and_head():
    result, plan = _plan("--cpu-offload-gb", "48")
    breakdown = weights_per_gpu(result).breakdown
    assert plan.weights_bytes == pytest.approx(
        sum(breakdown[c] for c in breakdown if c in RESIDENT), rel=1e-3)
    assert plan.weights_bytes < 1.6 * GiB  # the log: 1.50 GB loaded per GPU
    assert any("--cpu-offload-gb" in c for c in plan.caveats)


def test_a_smaller_limit_moves_that_much_and_the_pool_grows_by_it():
    _, whole = _plan()
    _, part = _plan("--cpu-offload-gb", "4")
    assert whole.weights_bytes - part.weights_bytes == pytest.approx(4 * GiB, abs=2)
    assert part.max_total_num_tokens > whole.max_total_num_tokens
    assert not any("--cpu-offload-gb" in c for c in whole.caveats)
