"""Gemma 4 (and DiffusionGemma): attention backends with its sliding windows, NVFP4 MoE."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.attention import effective_backends
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    BATCH,
    arch0,
    backends_unset,
    model_quantization,
)

ARCHS = frozenset({
    "Gemma4ForConditionalGeneration",
    "Gemma4ForCausalLM",
    "Gemma4UnifiedForConditionalGeneration",
    "DiffusionGemmaForBlockDiffusion",
})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS + ("moe_runner_backend", "quantization"),
    writes=("attention_backend", "quantization", "moe_runner_backend"),
    facts=("model.arch0", "model.quant_method", "target.is_sm100",
           "model.quant_config", "target.gfx", "target.sm", "target.vendor"),
    sglang="_gemma4_overrides (model_overrides/gemma4.py)",
)
def gemma4_overrides(v: View) -> dict | None:
    """Gemma 4 defaults to trtllm_mha on SM10x and triton elsewhere (DiffusionGemma: triton).

    The base backend is filled when nothing is chosen, and also when only a split side is,
    so the other side never falls to a generic default Gemma 4 cannot run. A modelopt_fp4
    checkpoint on SM10x with an automatic MoE runner uses ``flashinfer_trtllm``.
    """
    t = v.target
    if arch0(v) == "DiffusionGemmaForBlockDiffusion" or not t.is_sm100:
        default = "triton"
    else:
        default = "trtllm_mha"
    out: dict[str, Any] = {}
    if backends_unset(v) or v.attention_backend is None:
        out["attention_backend"] = default
    if t.is_sm100 and v.moe_runner_backend == "auto" and model_quantization(v) == "modelopt_fp4":
        out["quantization"] = "modelopt_fp4"
        out["moe_runner_backend"] = "flashinfer_trtllm"
    return out or None


# --- outside the override batch: the family's pass in handle_model_specific_adjustments ---

# The backends that run Gemma 4's attention (both effective sides are checked).
GEMMA4_BACKENDS = ("trtllm_mha", "triton", "fa4", "ascend", "intel_xpu", "intel_amx", "aiter")


@rule(
    phase=Phase.MODEL,
    reads=BACKEND_FIELDS,
    facts=("model.arch0",),
    archs=ARCHS - {"DiffusionGemmaForBlockDiffusion"},
    sglang="handle_model_specific_adjustments (Gemma4 assert)",
)
def gemma4_backend_check(v: View) -> Refuse | None:
    """Gemma 4 runs on trtllm_mha, triton, fa4, ascend, intel_xpu, intel_amx or aiter only.

    DiffusionGemma is not checked here.
    """
    prefill, decode = effective_backends(v)
    if prefill not in GEMMA4_BACKENDS or decode not in GEMMA4_BACKENDS:
        return Refuse(f"Gemma 4 needs one of {', '.join(GEMMA4_BACKENDS)}; got prefill "
                      f"{prefill}, decode {decode}")
    return None
