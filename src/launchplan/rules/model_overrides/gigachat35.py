"""GigaChat 3.5: separate shared experts, multi-layer EAGLE drafting."""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BATCH

ARCHS = frozenset({"GigaChat35ForCausalLM", "GigaChat35ForCausalLMNextN"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("speculative_algorithm",),
    writes=("disable_shared_experts_fusion", "enable_multi_layer_eagle"),
    facts=("model.arch0",),
    sglang="_gigachat35_overrides (model_overrides/gigachat35.py)",
)
def gigachat35_overrides(v: View) -> dict | None:
    """Shared-expert fusion is always off; EAGLE drafts with its multi-layer MTP head.

    ``speculative_algorithm`` is compared as given (``EAGLE`` only, not ``NEXTN``): SGLang
    normalises the name later.
    """
    out: dict[str, Any] = {"disable_shared_experts_fusion": True}
    if v.speculative_algorithm == "EAGLE":
        out["enable_multi_layer_eagle"] = True
    return out
