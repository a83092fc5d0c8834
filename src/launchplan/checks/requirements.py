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
from dataclasses import dataclass
from typing import Any

from launchplan.checks.kernel_requirements import KERNEL_REQUIREMENTS
from launchplan.checks.launch_requirements import LAUNCH_REQUIREMENTS
from launchplan.checks.predicates import SIDES, OnView, Plan, Requirement, Severity
from launchplan.engine.result import Result

__all__ = ["REQUIREMENTS", "OnView", "Plan", "Requirement", "Severity", "Violation",
           "by_name", "check"]

REQUIREMENTS: tuple[Requirement, ...] = KERNEL_REQUIREMENTS + LAUNCH_REQUIREMENTS

def by_name(name: str) -> Requirement:
    """One row of the table (rules that refuse on a pure constraint read their row here)."""
    return _BY_NAME[name]


@dataclass(frozen=True)
class Violation:
    requirement: Requirement
    sources: tuple[str, ...]  # the rules whose declarations produced the offending values
    values: dict[str, Any]
    message: str


def check(result: Result, requirements: Iterable[Requirement] | None = None) -> list[Violation]:
    """Every requirement the result breaks, with the declarations behind the values."""
    plan = Plan(result)
    present = {plan[f] for f in SIDES} | {plan["speculative_draft_attention_backend"]}
    out = []
    for req in REQUIREMENTS if requirements is None else requirements:
        gate = req.when.gate
        if gate is not None and gate.isdisjoint(present):
            continue
        if req.violated(plan):
            sources = tuple(dict.fromkeys(
                s for f in req.culprits(plan) if (s := result.source(f)) != "default"))
            values = {f: plan[f] for f in (*req.when.fields_for(plan), *req.culprits(plan))}
            out.append(Violation(req, sources, values, req.describe(plan)))
    return out


_BY_NAME: dict[str, Requirement] = {}


def _index() -> None:
    _BY_NAME.clear()
    for req in REQUIREMENTS:
        if req.name in _BY_NAME:
            raise ValueError(f"two requirements are named {req.name!r}")
        _BY_NAME[req.name] = req


_index()
