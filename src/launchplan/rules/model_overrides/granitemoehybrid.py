"""Granite 4 MoE hybrid (with Mamba layers): FlashInfer on SM10x."""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts.models.attention import granite_hybrid_kinds
from launchplan.rules.model_overrides import BATCH, config

ARCHS = frozenset({"GraniteMoeHybridForCausalLM"})


def has_mamba_layers(v: Any) -> bool:
    """Some layer is a Mamba layer, its kinds as SGLang's config class fills them in
    (``layer_types``, alias ``layers_block_type``; every sixth layer attending without
    them). Granite 4 ships dense variants too."""
    return "mamba" in granite_hybrid_kinds(config(v))


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("attention_backend",),
    writes=("attention_backend",),
    facts=("model.arch0", "model.config", "target.is_sm100"),
    sglang="_granite_moe_hybrid_overrides (model_overrides/granitemoehybrid.py)",
)
def granite_moe_hybrid_overrides(v: View) -> dict | None:
    """A Mamba hybrid on SM10x with an unset base backend uses flashinfer, not trtllm_mha.

    When: some layer is a Mamba layer, its kinds as SGLang's config class fills them in
        (``layer_types``, alias ``layers_block_type``, ``linear_attention`` read as Mamba;
        without them every sixth layer attends; Granite 4 ships dense variants too), the GPU
        is SM10x and no attention backend is set.
    Effect: ``attention_backend`` = ``flashinfer``; otherwise nothing.
    Why: SGLang keeps the Mamba-hybrid Granite models off the generic trtllm_mha default on
        Blackwell (``_granite_moe_hybrid_overrides``,
        arg_groups/model_overrides/granitemoehybrid.py).
    Assumes: nothing.
    """
    if has_mamba_layers(v) and v.target.is_sm100 and v.attention_backend is None:
        return {"attention_backend": "flashinfer"}
    return None
