"""LFM2 (hybrid convolution/attention): FlashInfer on SM10x."""

from __future__ import annotations

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BATCH,
    arch0,
    sm100_base_default,
)

ARCHS = frozenset({"Lfm2ForCausalLM", "Lfm2MoeForCausalLM"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("attention_backend",),
    writes=("attention_backend",),
    facts=("model.arch0", "target.is_sm100"),
    sglang="_lfm2_overrides (model_overrides/lfm2.py)",
)
def lfm2_overrides(v: View) -> dict | None:
    """On SM10x an unset base backend becomes flashinfer instead of the generic trtllm_mha."""
    return sm100_base_default(v, "flashinfer")


# --- outside the override batch: the family's pass in handle_model_specific_adjustments ---


@rule(
    phase=Phase.MODEL,
    reads=("attention_backend",),
    facts=("model.arch0",),
    archs=ARCHS,
    sglang="handle_model_specific_adjustments (Lfm2 assert)",
)
def lfm2_backend_check(v: View) -> Refuse | None:
    """LFM2 refuses triton attention: its first layer may not be an attention layer."""
    if v.attention_backend == "triton":
        return Refuse(f"{arch0(v)} does not support the triton attention backend: its first "
                      "layer may not be an attention layer")
    return None
