"""EXAONE 4 and EXAONE MoE with sliding-window layers."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BATCH,
    arch0,
    config,
)

ARCHS = frozenset({"Exaone4ForCausalLM", "ExaoneMoEForCausalLM", "ExaoneMoeForCausalLM"})


def sliding_window_pattern(v: Any) -> Any:
    """The config's ``sliding_window_pattern`` as transformers builds it.

    EXAONE 4 and EXAONE MoE configs default it to 4 (0 when ``sliding_window`` is null), so
    only an explicit null leaves it unset.
    """
    cfg = config(v)
    if v.model.model_type not in ("exaone4", "exaone_moe"):
        return cfg.get("sliding_window_pattern")
    if "sliding_window" in cfg and cfg["sliding_window"] is None:
        return 0
    return cfg.get("sliding_window_pattern", 4)


def swa_backend_default(v: Any) -> str:
    """trtllm_mha on SM10x CUDA, fa3 on other CUDA GPUs of SM80 or newer, else triton."""
    t = v.target
    if t.is_cuda and t.is_sm100:
        return "trtllm_mha"
    if t.is_cuda and t.sm >= 80:
        return "fa3"
    return "triton"


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("attention_backend",),
    writes=("disable_hybrid_swa_memory", "attention_backend"),
    facts=("model.arch0", "model.model_type", "model.config", "target.is_cuda",
           "target.is_sm100", "target.sm"),
    sglang="_exaone_overrides (model_overrides/exaone.py)",
)
def exaone_overrides(v: View) -> dict | None:
    """With ``sliding_window_pattern``: no hybrid SWA memory, and an SWA-capable base backend.

    Hybrid SWA memory does not support these models yet. An unset base backend becomes
    trtllm_mha (SM10x), fa3 (other CUDA SM80+) or triton; FlashInfer is avoided for their
    sliding windows. On SM12x this picks fa3, which fails only when the backend starts
    (rules.md C18).
    """
    if sliding_window_pattern(v) is None:
        return None
    out: dict[str, Any] = {"disable_hybrid_swa_memory": True}
    if v.attention_backend is None:
        out["attention_backend"] = swa_backend_default(v)
    return out


# --- outside the override batch: the family's pass in handle_model_specific_adjustments ---

# The backends that run EXAONE's sliding windows (the base backend is checked).
EXAONE_BACKENDS = ("fa3", "triton", "trtllm_mha")


@rule(
    phase=Phase.MODEL,
    reads=("attention_backend",),
    facts=("model.arch0", "model.config", "model.model_type"),
    archs=ARCHS,
    sglang="handle_model_specific_adjustments (Exaone assert)",
)
def exaone_backend_check(v: View) -> Refuse | None:
    """EXAONE with sliding windows needs fa3, triton or trtllm_mha as the base backend."""
    if sliding_window_pattern(v) is None:
        return None
    if v.attention_backend not in EXAONE_BACKENDS:
        return Refuse(f"{arch0(v)} needs one of {', '.join(EXAONE_BACKENDS)} as the attention "
                      f"backend, not {v.attention_backend}")
    return None
