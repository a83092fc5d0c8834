"""Gemma 2, Gemma 3 and Gemma 3n: no hybrid SWA memory."""

from __future__ import annotations

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BATCH

ARCHS = frozenset({
    "Gemma2ForCausalLM",
    "Gemma3ForCausalLM",
    "Gemma3ForConditionalGeneration",
    "Gemma3nForCausalLM",
    "Gemma3nForConditionalGeneration",
})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    writes=("disable_hybrid_swa_memory",),
    facts=("model.arch0",),
    sglang="_gemma2_gemma3_overrides (model_overrides/gemma2_gemma3.py)",
)
def gemma2_gemma3_overrides(v: View) -> dict | None:
    """Hybrid SWA memory is always off: SGLang's split SWA/full KV pools break these models."""
    return {"disable_hybrid_swa_memory": True}
