"""Step 3.5 / Step 3.7: matched by substring, so the registry's one predicate provider.

SGLang registers it in ``overrides.py`` with a predicate (the architecture name contains
``Step3p5ForCausalLM`` or ``Step3p7ForConditionalGeneration``); predicate providers come
after every exact provider in the batch.
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BACKEND_FIELDS, BATCH, backends_unset

ARCH_SUBSTRINGS = ("Step3p5ForCausalLM", "Step3p7ForConditionalGeneration")


def matches(arch: str) -> bool:
    """The predicate: the architecture name contains one of the Step 3.5/3.7 names."""
    return any(s in arch for s in ARCH_SUBSTRINGS)


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    reads=BACKEND_FIELDS + ("speculative_algorithm", "enable_hierarchical_cache"),
    writes=("attention_backend", "enable_multi_layer_eagle", "swa_full_tokens_ratio",
            "disable_hybrid_swa_memory"),
    facts=("model.arch0", "target.is_blackwell", "target.is_sm90"),
    sglang="_step3p_overrides (overrides.py, predicate provider)",
    applies=lambda target, model: matches(model.arch0),
)
def step3p_overrides(v: View) -> dict | None:
    """Step 3.5/3.7: fa4 on Blackwell, fa3 on Hopper; multi-layer EAGLE; SWA off with HiCache.

    With no backend chosen the FlashAttention kernel of the GPU generation is used. EAGLE
    drafts with the multi-layer MTP head. The hierarchical cache cannot offload hybrid SWA
    pools, so with it the SWA ratio is 1.0 and hybrid SWA memory is off.
    """
    t = v.target
    out: dict[str, Any] = {}
    if backends_unset(v):
        if t.is_blackwell:
            out["attention_backend"] = "fa4"
        elif t.is_sm90:
            out["attention_backend"] = "fa3"
    if v.speculative_algorithm == "EAGLE":
        out["enable_multi_layer_eagle"] = True
    if v.enable_hierarchical_cache:
        out["swa_full_tokens_ratio"] = 1.0
        out["disable_hybrid_swa_memory"] = True
    return out or None
