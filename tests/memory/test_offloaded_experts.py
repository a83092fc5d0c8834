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


def breakdown(argv: list[str], model: str = MODEL, env: dict[str, str] | None = None
              ) -> dict[str, int]:
    return dict(weights_per_gpu(resolve(argv, gpu="h100", model_path=model,
                                        env=env)).breakdown)


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


DSV4 = "deepseek-ai/DeepSeek-V4-Flash"  # FP8 checkpoint, routed experts packed as MXFP4


@pytest.mark.parametrize(("env", "fp8"), [
    ([], False),
    (["SGLANG_DSV4_FP4_DEQUANT=1"], True),  # dequantized to FP8 at load
    (["SGLANG_DSV4_FP4_EXPERTS=0"], True),  # the checkpoint's experts are FP8
    (["SGLANG_DSV4_FP4_EXPERTS=0", "SGLANG_DSV4_FP4_DEQUANT=0"], False),  # detected FP4
    (["SGLANG_DSV4_FP4_EXPERTS=1"], False),
])
def test_deepseek_v4_experts_held_as_fp8_under_its_switches(env, fp8):
    """SGLang 0.5.23 (``configs/model_config.py``, ``Fp8Config.get_quant_method``): the
    DeepSeek-V4 experts are MXFP4 unless ``SGLANG_DSV4_FP4_DEQUANT`` dequantizes them to
    FP8 at load, or ``SGLANG_DSV4_FP4_EXPERTS`` off (with no DEQUANT variable, so no
    detection runs) says they are FP8. FP8 takes a byte a weight, MXFP4 half a byte and a
    scale per 32: the experts grow by about 1.9x; nothing else moves."""
    base = breakdown(["--tp", "8"], DSV4)
    got = breakdown(["--tp", "8"], DSV4, dict(e.split("=") for e in env))
    assert {k: v for k, v in got.items() if k != "experts"} == \
        {k: v for k, v in base.items() if k != "experts"}
    if fp8:
        assert 1.8 < got["experts"] / base["experts"] < 2.0
    else:
        assert got["experts"] == base["experts"]


def test_the_dequant_switch_leaves_other_models_alone():
    assert breakdown([], env={"SGLANG_DSV4_FP4_DEQUANT": "1"}) == breakdown([])
