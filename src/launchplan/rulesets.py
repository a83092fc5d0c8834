"""Rule sets as data: which rules run, in which order, and which variant of each.

``PIPELINE`` lists rule names in SGLang 0.5.23's pipeline order. A rule set is that order
plus a choice of variants; a later SGLang release is one more entry in ``RULESETS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

from launchplan.engine.registry import RuleSpec, discover
from launchplan.errors import InputError

PIPELINE: tuple[str, ...] = (
    # Phase.MODEL_SOURCE
    "missing_default_values",
    "device_default",
    # Phase.CUDA_GRAPH
    "parse_cuda_graph_config",
    "cuda_graph_compatibility",
    "deepep_prefill_alignment",
    "disaggregation_graph_roles",
    "validate_cuda_graph_config",
    # Phase.MEMORY
    "chunked_prefill_default",
    "cuda_graph_sizing",
    "mem_fraction_default",
    # Phase.MODEL (model-specific adjustments and the model-override batch)
    # Phase.ATTENTION (handle_attention_backend_compatibility, in its sub-step order)
    "attention_backend_default",
    "eager_backend_graph_disable",
    "whisper_radix_disable",
    "backend_page_snaps",
    "trtllm_mla_checks",
    "cutedsl_mla_prefill_fill",
    "trtllm_mha_platform_checks",
    "fa3_fp8_e5m2_fallback",
    "fa4_page_constraint",
    "aiter_memory_scaling",
    "intel_xpu_page_constraint",
    # Phase.PAGE_DEFAULT
    "page_size_default",
)


@dataclass(frozen=True)
class RuleSet:
    """A named selection: the pipeline order with one variant chosen per rule."""

    name: str
    description: str
    variants: MappingProxyType  # rule name -> variant tag (absent: the base rule)

    def rules(self) -> tuple[RuleSpec, ...]:
        return _rules_of(self.name)


RULESETS: dict[str, RuleSet] = {
    "default": RuleSet(
        "default",
        "SGLang 0.5.23 plus the later FA4 fix: no page-128 force under a full prefill graph",
        MappingProxyType({}),
    ),
    "0.5.23": RuleSet(
        "0.5.23",
        "SGLang 0.5.23 exactly",
        MappingProxyType({"fa4_page_constraint": "0.5.23"}),
    ),
}


def get_ruleset(name: str) -> RuleSet:
    try:
        return RULESETS[name]
    except KeyError:
        raise InputError("--compat", "one of " + ", ".join(RULESETS), name) from None


@cache
def _rules_of(name: str) -> tuple[RuleSpec, ...]:
    registry = discover()
    ruleset = RULESETS[name]
    chosen: list[RuleSpec] = []
    for rule_name in PIPELINE:
        key = (rule_name, ruleset.variants.get(rule_name))
        if key not in registry:
            raise LookupError(f"rule set {name}: no rule {key}")
        chosen.append(registry[key])
    for before, after in zip(chosen, chosen[1:]):
        if after.phase < before.phase:
            raise LookupError(
                f"rule set {name}: {after.name} ({after.phase.name}) runs after "
                f"{before.name} ({before.phase.name})"
            )
    return tuple(chosen)
