"""MiniCPM-V 4.6/4.7 (hybrid linear attention): triton on SM10x."""

from __future__ import annotations

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BATCH, sm100_base_default

ARCHS = frozenset({"MiniCPMV4_6ForConditionalGeneration",
                   "MiniCPMV4_7ForConditionalGeneration"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("attention_backend",),
    writes=("attention_backend",),
    facts=("model.arch0", "target.is_sm100"),
    sglang="_minicpm_v4_6_overrides (model_overrides/minicpmv.py)",
)
def minicpm_v4_6_overrides(v: View) -> dict | None:
    """On SM10x an unset base backend becomes triton instead of the generic trtllm_mha."""
    return sm100_base_default(v, "triton")
