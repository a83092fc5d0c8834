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
    """On SM10x an unset base backend becomes triton instead of the generic trtllm_mha.

    When: the GPU is SM10x and no attention backend is set.
    Effect: ``attention_backend`` = ``triton``; otherwise nothing.
    Why: SGLang keeps these MiniCPM-V models off the trtllm_mha default on Blackwell
        (``_minicpm_v4_6_overrides``, arg_groups/model_overrides/minicpmv.py).
    Assumes: nothing.
    """
    return sm100_base_default(v, "triton")


@rule(
    name="minicpm_v4_6_overrides", variant="0.5.22",
    phase=Phase.MODEL,
    batch=BATCH,
    archs=("MiniCPMV4_6ForConditionalGeneration",),
    reads=("attention_backend",),
    writes=("attention_backend",),
    facts=("model.arch0", "target.is_sm100"),
    sglang="_minicpm_v4_6_overrides (0.5.21-0.5.22)",
)
def minicpm_v4_6_overrides_0_5_22(v: View) -> dict | None:
    """0.5.21-0.5.22: as ``minicpm_v4_6_overrides``, for MiniCPM-V 4.6 alone.

    When: the model is MiniCPM-V 4.6, the GPU SM10x and no attention backend is set.
    Effect: ``attention_backend`` = ``triton``; MiniCPM-V 4.7 keeps the generic default.
    Why: 0.5.23 registered the override for MiniCPM-V 4.7 too (``_minicpm_v4_6_overrides`` in
        0.5.22 names 4.6 only).
    Assumes: nothing.
    """
    return sm100_base_default(v, "triton")
