"""OLMo 2/3: no hybrid SWA memory, and a base backend other than FlashInfer."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BATCH,
)
from launchplan.rules.model_overrides.exaone import swa_backend_default

ARCHS = frozenset({"Olmo2ForCausalLM"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("attention_backend",),
    writes=("disable_hybrid_swa_memory", "attention_backend"),
    facts=("model.arch0", "target.is_cuda", "target.is_sm100", "target.sm"),
    sglang="_olmo2_overrides (model_overrides/olmo2.py)",
)
def olmo2_overrides(v: View) -> dict | None:
    """Hybrid SWA memory off; an unset base backend becomes trtllm_mha, fa3 or triton.

    OLMo 3's sliding windows are slow on FlashInfer and hybrid SWA memory does not support
    them yet. The choice is trtllm_mha on SM10x CUDA, fa3 on other CUDA SM80+, else
    triton; on SM12x fa3 fails only when the backend starts (rules.md C18).
    """
    out: dict[str, Any] = {"disable_hybrid_swa_memory": True}
    if v.attention_backend is None:
        out["attention_backend"] = swa_backend_default(v)
    return out


# --- outside the override batch: the family's pass in handle_model_specific_adjustments ---


@rule(
    phase=Phase.MODEL,
    reads=("attention_backend",),
    facts=("model.arch0",),
    archs=ARCHS,
    sglang="handle_model_specific_adjustments (Olmo2 assert)",
)
def olmo2_backend_check(v: View) -> Refuse | None:
    """OLMo 2/3 refuses flashinfer: it is much slower on OLMo 3's sliding windows."""
    if v.attention_backend == "flashinfer":
        return Refuse("the flashinfer attention backend badly slows OLMo 3 models; choose "
                      "another")
    return None
