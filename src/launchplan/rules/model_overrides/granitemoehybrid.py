"""Granite 4 MoE hybrid (with Mamba layers): FlashInfer on SM10x."""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BATCH, config

ARCHS = frozenset({"GraniteMoeHybridForCausalLM"})


def has_mamba_layers(v: Any) -> bool:
    """Some entry of ``layer_types`` (alias ``layers_block_type``) is ``mamba``.

    Granite 4 ships dense variants too.
    """
    cfg = config(v)
    kinds = cfg.get("layer_types") or cfg.get("layers_block_type") or ()
    return any(kind == "mamba" for kind in kinds)


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
    """A Mamba hybrid on SM10x with an unset base backend uses flashinfer, not trtllm_mha."""
    if has_mamba_layers(v) and v.target.is_sm100 and v.attention_backend is None:
        return {"attention_backend": "flashinfer"}
    return None
