"""Intern-S2 Mobius: the MoE runner validated for its 2,560 experts."""

from __future__ import annotations

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BATCH

ARCHS = frozenset({"InternS2MobiusForConditionalGeneration"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("moe_runner_backend",),
    writes=("moe_runner_backend",),
    facts=("model.arch0",),
    sglang="_interns2_mobius_baseline_overrides (model_overrides/interns2_mobius.py)",
)
def interns2_mobius_baseline_overrides(v: View) -> dict | None:
    """An automatic MoE runner becomes ``triton_kernel``, the only one validated for it."""
    if v.moe_runner_backend == "auto":
        return {"moe_runner_backend": "triton_kernel"}
    return None
