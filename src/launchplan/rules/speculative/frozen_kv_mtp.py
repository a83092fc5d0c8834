"""FROZEN_KV_MTP speculation (a Gemma-4 assistant draft): serving defaults."""

from __future__ import annotations

from launchplan.engine.declarations import Declare
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.speculative.common import (
    ALGO,
    RUNNING_NOTE,
    running_requests_default,
)


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("max_running_requests", "enable_mixed_chunk"),
    writes=("max_running_requests", "enable_mixed_chunk"),
    sglang="_handle_frozen_kv_mtp",
    triggers={"speculative_algorithm": ("FROZEN_KV_MTP",)},
)
def frozen_kv_mtp_defaults(v: View) -> Declare | None:
    """Frozen-KV MTP: 48 running requests and no mixed chunk; no step/top-k defaults here.

    SGLang 0.5.23 fills no steps, top-k or draft tokens for it during resolution.
    """
    out = running_requests_default(v)
    notes = [RUNNING_NOTE] if out else []
    if v.enable_mixed_chunk:
        out["enable_mixed_chunk"] = False
        notes.append("mixed chunked prefill disabled for Frozen-KV MTP")
    return Declare(out, "; ".join(notes)) if out else None
