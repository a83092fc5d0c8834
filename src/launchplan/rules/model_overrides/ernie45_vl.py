"""ERNIE 4.5 VL MoE: no attention data parallelism."""

from __future__ import annotations

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BATCH, attn_dp_enabled

ARCHS = frozenset({"Ernie4_5_VLMoeForConditionalGeneration"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("attn_dp_size", "ep_join_mode"),
    facts=("model.arch0",),
    sglang="_ernie45_vl_overrides (model_overrides/ernie45_vl.py)",
)
def ernie45_vl_overrides(v: View) -> Refuse | None:
    """ERNIE 4.5 VL MoE splits its attention heads over the whole TP group: no attention DP."""
    if attn_dp_enabled(v):
        return Refuse("ERNIE 4.5 VL MoE does not support attention data parallelism: its "
                      "attention heads are split over the whole TP group")
    return None
