"""Command A Plus (Cohere2 MoE and its vision wrapper): the SM10x MoE runner."""

from __future__ import annotations

from collections.abc import Mapping

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BATCH,
    model_quantization,
    quantization_config,
)

ARCHS = frozenset({"Cohere2VisionForConditionalGeneration", "Cohere2MoeForCausalLM"})


def _nvfp4_pack_quantized(v: View) -> bool:
    """llm-compressor's nvfp4 pack format, at the top or in any config group."""
    qc = quantization_config(v)
    groups = qc.get("config_groups") or {}
    formats = [qc.get("format", "")] + [g.get("format", "") for g in groups.values()
                                        if isinstance(g, Mapping)]
    return any("nvfp4" in str(f) for f in formats)


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("moe_runner_backend", "quantization"),
    writes=("moe_runner_backend",),
    facts=("model.arch0", "model.quant_method", "model.config", "target.is_sm100",
           "model.quant_config", "target.gfx", "target.sm", "target.vendor"),
    sglang="_cohere2_moe_runner_overrides (model_overrides/cohere2_moe.py)",
)
def cohere2_moe_runner_overrides(v: View) -> dict | None:
    """On SM10x an automatic MoE runner becomes ``flashinfer_trtllm`` (trtllm-gen fused MoE).

    Only for unquantized checkpoints and nvfp4 pack-quantized ones: those are the layouts
    the trtllm-gen MoE kernels take.
    """
    if v.moe_runner_backend != "auto" or not v.target.is_sm100:
        return None
    if model_quantization(v) is not None and not _nvfp4_pack_quantized(v):
        return None
    return {"moe_runner_backend": "flashinfer_trtllm"}
