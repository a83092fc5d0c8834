"""Moss-VL: cross-attention with custom masks needs FlashInfer prefill."""

from __future__ import annotations

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.attention import effective_backends
from launchplan.rules.model_overrides import BACKEND_FIELDS, BATCH, backends_unset

ARCHS = frozenset({"MossVLForConditionalGeneration"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS,
    writes=("prefill_attention_backend",),
    facts=("model.arch0",),
    sglang="_moss_vl_overrides (model_overrides/moss_vl.py)",
)
def moss_vl_overrides(v: View) -> dict | Refuse | None:
    """Moss-VL prefills on flashinfer, the backend with its cross-attention custom masks.

    With no backend chosen, prefill becomes flashinfer; any other prefill backend is
    refused.
    """
    if backends_unset(v):
        return {"prefill_attention_backend": "flashinfer"}
    prefill = effective_backends(v)[0]
    if prefill != "flashinfer":
        return Refuse("Moss-VL needs the flashinfer prefill attention backend for its "
                      f"cross-attention masks, not {prefill}")
    return None
