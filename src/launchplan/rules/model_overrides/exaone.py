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

    When: the config has a ``sliding_window_pattern`` (EXAONE 4 and EXAONE MoE default it to 4,
        and to 0 when ``sliding_window`` is null).
    Effect: ``disable_hybrid_swa_memory`` = true; an unset ``attention_backend`` becomes
        trtllm_mha (SM10x), fa3 (other CUDA SM80+) or triton.
    Why: hybrid SWA memory does not support these models yet, and FlashInfer is avoided for their
        sliding windows (``_exaone_overrides``, arg_groups/model_overrides/exaone.py). On SM12x
        this picks fa3, which fails only when the backend starts (rules.md C18).
    Assumes: nothing.
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
    """EXAONE with sliding windows needs fa3, triton or trtllm_mha as the base backend.

    When: the config has a ``sliding_window_pattern`` (as for ``exaone_overrides``).
    Effect: refuses when the base attention backend is not fa3, triton or trtllm_mha, naming the
        architecture and the backend given.
    Why: only those backends run EXAONE's sliding windows (the Exaone assert in
        ``handle_model_specific_adjustments``, model_hook.py).
    Assumes: nothing.
    """
    if sliding_window_pattern(v) is None:
        return None
    if v.attention_backend not in EXAONE_BACKENDS:
        return Refuse(f"{arch0(v)} needs one of {', '.join(EXAONE_BACKENDS)} as the attention "
                      f"backend, not {v.attention_backend}")
    return None


# --- SGLang 0.5.21 ---------------------------------------------------------------------------

# 0.5.21 registers EXAONE MoE under one spelling only (0.5.22 added ``ExaoneMoeForCausalLM``).
ARCHS_0_5_21 = frozenset({"Exaone4ForCausalLM", "ExaoneMoEForCausalLM"})


@rule(
    name="exaone_overrides", variant="0.5.21",
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS_0_5_21,
    writes=("disable_hybrid_swa_memory",),
    facts=("model.arch0", "model.model_type", "model.config"),
    sglang="_exaone_overrides (0.5.21)",
)
def exaone_overrides_0_5_21(v: View) -> dict | None:
    """0.5.21: with ``sliding_window_pattern``, no hybrid SWA memory; no backend default.

    When: as ``exaone_overrides``, for the two architectures 0.5.21 registers.
    Effect: ``disable_hybrid_swa_memory`` = true; the attention backend is left as given.
    Why: the SWA-capable backend default came in 0.5.22 (``_exaone_overrides`` in 0.5.21 sets
        only the memory switch), so an unset backend meets the EXAONE check as None.
    Assumes: nothing.
    """
    if sliding_window_pattern(v) is None:
        return None
    return {"disable_hybrid_swa_memory": True}


@rule(
    name="exaone_backend_check", variant="0.5.21",
    phase=Phase.MODEL,
    reads=("attention_backend",),
    facts=("model.arch0", "model.config", "model.model_type"),
    archs=ARCHS_0_5_21,
    sglang="handle_model_specific_adjustments (Exaone assert, 0.5.21)",
)
def exaone_backend_check_0_5_21(v: View) -> Refuse | None:
    """0.5.21: as ``exaone_backend_check``, for the two architectures 0.5.21 knows.

    When: as ``exaone_backend_check``.
    Effect: as ``exaone_backend_check``: without ``--attention-backend`` fa3, triton or
        trtllm_mha, a sliding-window EXAONE launch is refused (nothing picked one yet).
    Why: the assert runs before the attention backend default in 0.5.21 too
        (``handle_model_specific_adjustments``, model_hook.py).
    Assumes: nothing.
    """
    return exaone_backend_check(v)
