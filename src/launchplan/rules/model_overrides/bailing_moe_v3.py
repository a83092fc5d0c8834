"""Bailing MoE V3 (Ling/Ring 3): the MoE runner for mixed FP8/MXFP4 checkpoints."""

from __future__ import annotations

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BATCH,
    model_quantization,
    routed_experts_fp4,
)

ARCHS = frozenset({"BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("moe_runner_backend", "device", "moe_a2a_backend", "quantization"),
    writes=("moe_runner_backend",),
    facts=("model.arch0", "model.quant_method", "model.config", "target.is_hip",
           "target.is_sm90", "target.is_sm100", "target.is_sm120",
           "model.quant_config", "model.quantization_config", "target.gfx", "target.sm",
           "target.vendor"),
    sglang="_bailing_moe_v3_overrides (model_overrides/bailing_moe_v3.py)",
)
def bailing_moe_v3_overrides(v: View) -> dict | None:
    """An FP8 checkpoint with MXFP4 routed experts runs its MoE on ``flashinfer_mxfp4``.

    Only with an automatic runner on CUDA (SM90, SM10x or SM12x) without an A2A backend: the
    FlashInfer MXFP4 kernels read the packed experts directly.
    """
    t = v.target
    if (v.moe_runner_backend != "auto" or v.device != "cuda"
            or v.moe_a2a_backend != "none" or t.is_hip):
        return None
    if not (t.is_sm90 or t.is_sm100 or t.is_sm120):
        return None
    if model_quantization(v) != "fp8" or not routed_experts_fp4(v):
        return None
    return {"moe_runner_backend": "flashinfer_mxfp4"}
