"""Routed-expert padding: the MoE kernel's rounding of the expert buffers SGLang allocates.

The expectations restate SGLang 0.5.23's buffer shapes (``Mxfp4MoEMethod.create_weights``,
``FusedMoE.__init__``): gpt-oss-20b under ``flashinfer_mxfp4`` on SM100 allocates each
expert's fused gate/up as (2 x 2944, 3072 / 2) uint8 plus (2 x 2944, 3072 / 32) scales and
bf16 biases, and its down projection as (3072, 2944 / 2) plus (3072, 2944 / 32) and a
(3072,) bias, for hidden 2880 and intermediate 2880.
"""

from __future__ import annotations

import pytest

from launchplan.facts.models import clear_cache, load_model
from launchplan.memory.moe_padding import NONE, ExpertPadding, expert_padding
from launchplan.memory.weights import Parallel, plan_weights, weights_per_gpu
from launchplan.planner import resolve

GiB = 2**30


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def _expert_bytes(hidden: int, inter: int) -> int:
    """One mxfp4 expert as SGLang allocates it: packed e2m1 weights, ue8m0 scales per 32,
    bf16 biases."""
    w13 = 2 * inter * hidden // 2 + 2 * inter * hidden // 32 + 2 * inter * 2
    w2 = hidden * inter // 2 + hidden * inter // 32 + hidden * 2
    return w13 + w2


def test_mxfp4_padding_by_runner_and_gpu():
    assert expert_padding("mxfp4", "flashinfer_mxfp4", sm100=True) == ExpertPadding(256, 128)
    assert expert_padding("mxfp4", "triton_kernel", sm100=True) == ExpertPadding(1, 64)
    assert expert_padding("mxfp4", "marlin", sm90=True) == ExpertPadding(256, 128)
    assert expert_padding("mxfp4", "flashinfer_mxfp4", sm90=True) == ExpertPadding(256, 128)
    assert expert_padding("mxfp4", "auto", sm90=True) == NONE  # triton_kernels absent
    assert expert_padding("mxfp4", "auto", hip=True, aiter=True) == ExpertPadding(256, 256)
    assert expert_padding("mxfp4", "auto", hip=True, aiter=True, aiter_k3=True) \
        == ExpertPadding(256, 128)
    assert expert_padding("mxfp4", "flashinfer_mxfp4", sm100=True, a2a="megamoe") \
        == ExpertPadding(256, 1)
    assert expert_padding("mxfp4", "deep_gemm", sm100=True) == NONE


def test_trtllm_runner_pads_the_intermediate_slice_except_modelopt_nvfp4():
    assert expert_padding("fp8", "flashinfer_trtllm") == ExpertPadding(1, 128)
    assert expert_padding(None, "flashinfer_trtllm_routed") == ExpertPadding(1, 128)
    assert expert_padding("modelopt_fp4", "flashinfer_trtllm") == NONE
    assert expert_padding("fp8", "triton") == NONE


def test_gpt_oss_20b_on_b200_holds_its_padded_experts():
    m = load_model("gpt-oss-20b")
    plain = plan_weights(m, Parallel())
    padded = plan_weights(m, Parallel(), pad=ExpertPadding(256, 128))
    layers, experts = m.num_hidden_layers, m.text_config["num_local_experts"]
    extra = layers * experts * (_expert_bytes(3072, 2944) - _expert_bytes(2880, 2880))
    assert padded.bytes_per_gpu - plain.bytes_per_gpu == extra
    assert padded.breakdown["experts"] - plain.breakdown["experts"] == extra
    assert 0.8 * GiB < extra < 0.9 * GiB


def test_padding_applies_to_each_gpus_intermediate_slice():
    m = load_model("gpt-oss-120b")
    par = Parallel(tp=2)
    plain = plan_weights(m, par)
    padded = plan_weights(m, par, pad=ExpertPadding(256, 128))
    layers, experts = m.num_hidden_layers, m.text_config["num_local_experts"]
    # tp 2: each GPU holds 1440 of the 2880 intermediate rows, rounded up to 1536
    extra = layers * experts * (_expert_bytes(3072, 1536) - _expert_bytes(2880, 1440))
    # the unpadded split divides the down bias over TP as well: 2 bytes x hidden / 2
    bias = layers * experts * 2880
    assert padded.bytes_per_gpu - plain.bytes_per_gpu == extra + bias


def test_resolved_b200_launch_pads_and_hopper_does_not():
    b200 = weights_per_gpu(resolve(gpu="b200", model_path="gpt-oss-20b"))
    h100 = weights_per_gpu(resolve(gpu="h100", model_path="gpt-oss-20b"))
    m = load_model("gpt-oss-20b")
    assert h100.bytes_per_gpu == plan_weights(m, Parallel()).bytes_per_gpu
    assert b200.bytes_per_gpu == plan_weights(m, Parallel(),
                                              pad=ExpertPadding(256, 128)).bytes_per_gpu


def test_trtllm_runner_pads_qwen3_235b_fp8_slices_at_tp8_on_b200():
    result = resolve(["--tp-size", "8"], gpu="b200", model_path="qwen3-235b-a22b-fp8")
    assert result.value("moe_runner_backend") == "flashinfer_trtllm"
    m = load_model("qwen3-235b-a22b-fp8")
    plain = plan_weights(m, Parallel(tp=8))
    got = weights_per_gpu(result)
    assert got.breakdown["experts"] == plan_weights(
        m, Parallel(tp=8), pad=ExpertPadding(1, 128)).breakdown["experts"]
    # 1536 / 8 = 192 intermediate rows per GPU become 256: a third more expert weight
    ratio = got.breakdown["experts"] / plain.breakdown["experts"]
    assert 1.30 < ratio < 1.36
    assert got.breakdown["attention"] == plain.breakdown["attention"]
