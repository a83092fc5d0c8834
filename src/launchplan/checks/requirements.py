"""The one table of constraints: kernel requirements and launch-shape requirements.

A requirement says: *when* a plan uses something, it *needs* a condition on the final
values, or SGLang fails -- and how (its severity), why (the kernel or hardware fact) and
where SGLang 0.5.23 makes it true (its evidence). The table feeds preflight (every
``resolve``, ``explain`` and ``sweep``), ``check``, and the rules that refuse on a pure
constraint, which read the same row through ``by_name``, so those cannot disagree.

Read it like Spack's ``conflicts(when=..., msg=...)``: conditions are small named
predicates (``launchplan.checks.predicates``) over the plan's values and facts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from launchplan.checks.expert_formats import EXPERT_FORMATS_REQUIREMENTS
from launchplan.checks.kernel_requirements import KERNEL_REQUIREMENTS
from launchplan.checks.launch_requirements import LAUNCH_REQUIREMENTS
from launchplan.checks.offloaded_experts import OFFLOADED_EXPERTS_REQUIREMENTS
from launchplan.checks.predicates import (
    SIDES,
    OnView,
    Plan,
    Requirement,
    Severity,
    TracedPlan,
)
from launchplan.checks.vision_attention import VISION_ATTENTION_REQUIREMENTS
from launchplan.engine.result import Result
from launchplan.struct import Struct

__all__ = ["REQUIREMENTS", "OnView", "Plan", "Requirement", "Severity", "Violation",
           "by_name", "check"]

REQUIREMENTS: tuple[Requirement, ...] = (KERNEL_REQUIREMENTS + LAUNCH_REQUIREMENTS
                                         + OFFLOADED_EXPERTS_REQUIREMENTS
                                         + EXPERT_FORMATS_REQUIREMENTS
                                         + VISION_ATTENTION_REQUIREMENTS)

def by_name(name: str) -> Requirement:
    """One row of the table (rules that refuse on a pure constraint read their row here)."""
    return _BY_NAME[name]


class Violation(Struct):
    requirement: Requirement
    sources: tuple[str, ...]  # the rules whose declarations produced the offending values
    values: dict[str, Any]
    message: str
    culprits: tuple[str, ...] = ()  # the offending fields (``Requirement.culprits``)


def check(result: Result, requirements: Iterable[Requirement] | None = None,
          memo: dict[Any, Any] | None = None) -> list[Violation]:
    """Every requirement the result breaks, with the declarations behind the values.

    With ``memo`` (a dict the caller keeps across results: ``check`` and ``sweep``), each
    requirement's verdict is remembered by the values and explicitness it read (early
    cut-off): a later plan that gives the same answers to those reads gets the same verdict
    without evaluating the row again. Rows that reach into the result's declarations are
    always evaluated.
    """
    plan = Plan(result)
    present = {plan[f] for f in SIDES} | {plan["speculative_draft_attention_backend"]}
    known = _context(memo, result) if memo is not None else None
    out = []
    for req in REQUIREMENTS if requirements is None else requirements:
        gate = req.when.gate
        if gate is not None and gate.isdisjoint(present):
            continue
        if known is None or req.name in _OPAQUE:
            broken = req.violated(plan)
        else:
            broken = _remembered(req, plan, result, known)
        if broken:
            culprits = req.culprits(plan)
            sources = tuple(dict.fromkeys(
                s for f in culprits if (s := result.source(f)) != "default"))
            values = {f: plan[f] for f in (*req.when.fields_for(plan), *culprits)}
            out.append(Violation(req, sources, values, req.describe(plan), culprits))
    return out


_VARIANTS = 32  # verdicts kept per requirement and context
#: Requirements whose reading reached into a result's declarations once: their verdicts
#: are never remembered, so they are evaluated on the shared plan without tracing.
_OPAQUE: set[str] = set()


def _context(memo: dict[Any, Any], result: Result) -> dict[str, list[Any]]:
    """The memo's verdicts for this result's facts (target, model, draft, environment);
    the fact objects are kept, so an id is never mistaken for a later object's."""
    record = result.record
    objects = (record.target, record.model, record.draft)
    key = (*map(id, objects), tuple(sorted(record.env.items())))
    entry = memo.get(key)
    if entry is None or any(a is not b for a, b in zip(entry[0], objects)):
        if len(memo) >= 256:
            memo.clear()
        entry = memo[key] = (objects, {})
    return entry[1]


def _remembered(req: Requirement, plan: Plan, result: Result,
                known: dict[str, list[Any]]) -> bool:
    entries = known.get(req.name)
    if entries is not None:
        for reads, broken in entries:
            for name, value in reads.items():
                now = plan.explicit(name[1:]) if name[0] == "?" else plan[name]
                if now is not value and (type(now) is not type(value) or now != value):
                    break
            else:
                return broken
    traced = TracedPlan(result)
    broken = req.violated(traced)
    if traced.opaque:  # it reached into the declarations: never remembered, not traced again
        _OPAQUE.add(req.name)
    else:
        if entries is None:
            entries = known[req.name] = []
        entries.insert(0, (traced.reads, broken))
        del entries[_VARIANTS:]
    return broken


_BY_NAME: dict[str, Requirement] = {}


def _index() -> None:
    _BY_NAME.clear()
    for req in REQUIREMENTS:
        if req.name in _BY_NAME:
            raise ValueError(f"two requirements are named {req.name!r}")
        _BY_NAME[req.name] = req


_index()
