"""DeepSeek-V4 (and V4.1): the compressed-attention backend, its page size and MoE runner."""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BATCH,
    env_true,
    quantization_config,
    routed_experts_fp4,
)

ARCHS = frozenset({"DeepseekV4ForCausalLM"})

# V4's compressed KV is laid out in pages of 256 tokens (128 on Ascend NPUs).
DSV4_PAGE_SIZE = 256


def nvfp4_moe_meta(v: Any) -> bool:
    """A hybrid checkpoint with NVFP4 experts (``MIXED_PRECISION`` + ``NVFP4`` + group size)."""
    qc = quantization_config(v)
    return (str(qc.get("quant_algo", "")).upper() == "MIXED_PRECISION"
            and str(qc.get("moe_quant_algo", "")).upper() == "NVFP4"
            and qc.get("group_size") is not None)


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("device", "fp8_gemm_runner_backend", "swa_full_tokens_ratio", "moe_runner_backend",
           "moe_a2a_backend"),
    writes=("attention_backend", "prefill_attention_backend", "decode_attention_backend",
            "page_size", "swa_full_tokens_ratio", "fp8_gemm_runner_backend",
            "moe_runner_backend"),
    facts=("model.arch0", "model.model_type", "model.config", "target.is_sm90",
           "target.is_sm100", "target.is_sm120", "target.is_hip", "target.has_flashinfer"),
    sglang="_deepseek_v4_overrides (model_overrides/deepseek_v4.py)",
)
def deepseek_v4_overrides(v: View) -> dict | None:
    """DeepSeek-V4 always runs ``dsv4`` attention with page size 256, over any input.

    Its compressed sparse attention exists only in the dsv4 backend. Unless V4.1 or already
    set, ``swa_full_tokens_ratio`` is 0.1. A V4.1 MXFP8 checkpoint (32x32 ue8m0 blocks) on
    SM10x with FlashInfer runs dense GEMMs on ``flashinfer_cutedsl``. An automatic MoE runner
    becomes ``flashinfer_trtllm_routed`` for NVFP4 experts, or ``flashinfer_mxfp4`` for MXFP4
    experts on SM90/SM10x/SM12x CUDA without A2A (unless ``SGLANG_DSV4_FP4_DEQUANT``).
    """
    t = v.target
    is_v41 = v.model.model_type == "deepseek_v41"
    out: dict[str, Any] = {"attention_backend": "dsv4"}
    qc = quantization_config(v)
    if (is_v41 and v.device == "cuda" and not t.is_hip and t.is_sm100
            and v.fp8_gemm_runner_backend == "auto" and qc.get("quant_method") == "fp8"
            and list(qc.get("weight_block_size") or ()) == [32, 32]
            and qc.get("scale_fmt") == "ue8m0" and t.has_flashinfer and t.is_cuda):
        out["fp8_gemm_runner_backend"] = "flashinfer_cutedsl"
    if v.swa_full_tokens_ratio is None and not is_v41:
        out["swa_full_tokens_ratio"] = 0.1
    # No launchplan target is an Ascend NPU, whose V4 pages are 128 tokens.
    out["page_size"] = DSV4_PAGE_SIZE
    if v.moe_runner_backend == "auto":
        if nvfp4_moe_meta(v):
            out["moe_runner_backend"] = "flashinfer_trtllm_routed"
        elif (v.device == "cuda" and not t.is_hip and v.moe_a2a_backend == "none"
              and not env_true(v, "SGLANG_DSV4_FP4_DEQUANT") and routed_experts_fp4(v)
              and (t.is_sm90 or t.is_sm100 or t.is_sm120)):
            out["moe_runner_backend"] = "flashinfer_mxfp4"
    return out
