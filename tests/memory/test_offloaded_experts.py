"""Routed experts kept off the GPU: paged experts (``--enable-paged-experts``, SGLang 0.5.23
``layers/moe/paged_experts``: ``min(--paged-experts-num-resident, local experts)`` per MoE
layer on the GPU) and KTransformers' CPU experts (``--kt-weight-path``: the GPU method is
built for ``--kt-num-gpu-experts`` experts, ``layers/moe/kt_ep_wrapper.py``). Only the routed
experts shrink; everything else is loaded as before."""

from __future__ import annotations

import pytest

from launchplan import resolve
from launchplan.memory.plan import memory_plan
from launchplan.memory.weights import weights_per_gpu

MODEL = "qwen3-30b-a3b"  # 128 routed experts per MoE layer, top-8
EXPERTS = 128
PAGED = ["--enable-paged-experts", "--cuda-graph-backend-prefill", "breakable"]


def breakdown(argv: list[str], model: str = MODEL) -> dict[str, int]:
    return dict(weights_per_gpu(resolve(argv, gpu="h100", model_path=model)).breakdown)


@pytest.mark.parametrize(("argv", "on_gpu"), [
    ([*PAGED, "--paged-experts-num-resident", "16"], 16),
    ([*PAGED, "--paged-experts-num-resident", "1000"], EXPERTS),  # capped at the local experts
    (["--kt-weight-path", "/models/cpu-experts", "--kt-num-gpu-experts", "30"], 30),
])
def test_only_the_resident_experts_are_on_the_gpu(argv, on_gpu):
    full, part = breakdown([]), breakdown(argv)
    assert part["experts"] == pytest.approx(full["experts"] * on_gpu / EXPERTS, rel=1e-9)
    assert {k: v for k, v in part.items() if k != "experts"} == \
        {k: v for k, v in full.items() if k != "experts"}


def test_the_switches_need_their_companions():
    full = breakdown([])
    assert breakdown(["--paged-experts-num-resident", "16"]) == full  # paging off
    assert breakdown(["--kt-num-gpu-experts", "30"]) == full  # no CPU expert weights


def test_a_dense_model_is_unchanged():
    assert breakdown([*PAGED, "--paged-experts-num-resident", "16"], "llama-3.1-8b") == \
        breakdown([], "llama-3.1-8b")


def test_the_freed_memory_goes_to_the_kv_pool():
    full = memory_plan(resolve([], gpu="h100", model_path=MODEL))
    paged = memory_plan(resolve([*PAGED, "--paged-experts-num-resident", "16"], gpu="h100",
                                model_path=MODEL))
    assert paged.weights_bytes < full.weights_bytes
    assert paged.max_total_num_tokens > full.max_total_num_tokens


def _captured(argv: list[str]) -> list[int]:
    from launchplan.memory.kv_pool import kv_pool

    result = resolve(argv, gpu="h100", model_path=MODEL)
    plan = memory_plan(result)
    return list(kv_pool(result, weights_bytes=plan.weights_bytes,
                        before_load_bytes=plan.before_load_bytes).capture_bs)


def test_paged_experts_cap_the_decode_graphs_at_resident_over_top_k():
    """SGLang's first MoE layer keeps full decode graphs only up to resident // top_k
    requests (16 // 8 = 2 here) when the model is built; a launch without paging keeps
    them all."""
    assert _captured([*PAGED, "--paged-experts-num-resident", "16"]) == [1, 2]
    assert _captured([*PAGED, "--paged-experts-num-resident", "20"]) == [1, 2]
    assert _captured([*PAGED, "--paged-experts-num-resident", "100"]) == [1, 2, 4, 8, 12]
    assert max(_captured([])) == 256
