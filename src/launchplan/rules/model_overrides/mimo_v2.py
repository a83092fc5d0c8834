"""MiMo-V2: multi-layer EAGLE, fa4 on SM10x, MoE runners for FP8 and MXFP4 experts."""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    BATCH,
    backends_unset,
    checkpoint_quant_method,
    routed_experts_fp4,
)

ARCHS = frozenset({"MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS + ("speculative_algorithm", "moe_runner_backend", "moe_a2a_backend"),
    writes=("enable_multi_layer_eagle", "attention_backend", "moe_runner_backend"),
    facts=("model.arch0", "model.config", "target.is_sm100", "target.is_sm90"),
    sglang="_mimo_v2_overrides (model_overrides/mimo_v2.py)",
)
def mimo_v2_overrides(v: View) -> dict | None:
    """MiMo-V2: EAGLE drafts multi-layer; fa4 on SM10x (K and V widths differ).

    With an automatic runner and an fp8 checkpoint: on SM10x without A2A,
    ``flashinfer_mxfp4`` for MXFP4 routed experts else ``flashinfer_trtllm``; on Hopper,
    ``marlin`` for MXFP4 experts (triton's FP8 MoE cannot read packed MXFP4).
    """
    t = v.target
    out: dict[str, Any] = {}
    if v.speculative_algorithm == "EAGLE":
        out["enable_multi_layer_eagle"] = True
    if t.is_sm100 and backends_unset(v):
        out["attention_backend"] = "fa4"
    fp8 = checkpoint_quant_method(v) == "fp8"
    if t.is_sm100 and v.moe_runner_backend == "auto" and fp8:
        if v.moe_a2a_backend == "none":
            out["moe_runner_backend"] = ("flashinfer_mxfp4" if routed_experts_fp4(v)
                                         else "flashinfer_trtllm")
    elif t.is_sm90 and v.moe_runner_backend == "auto" and fp8 and routed_experts_fp4(v):
        out["moe_runner_backend"] = "marlin"
    return out or None
