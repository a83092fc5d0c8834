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
    ALWAYS,
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


def check(result: Result, requirements: Iterable[Requirement] | None = None) -> list[Violation]:
    """Every requirement the result breaks, with the declarations behind the values.

    The whole table is tested through its facts' rows (``_table``): each set of facts
    (target, model, draft, environment) keeps only the rows a plan of theirs can break.
    There is no early cut-off by the fields a row read: tracing each row's reads to reuse
    its verdict on the next plan cost two to three times what testing the row again does
    (29 against 83 us a plan over ``check``'s sample; 11-21 against 23-39 on sweep grids
    whose neighbours differ in one field). A repeated input shares its plan's whole verdict
    instead (``preflight``, through ``SamePlan``).
    """
    plan = Plan(result)
    present = {plan[f] for f in _GATE_FIELDS}
    out = []
    if requirements is None:
        table = _table(result)
        if table is not None:
            for gate, when, needs, req in table:
                if gate is not None and gate.isdisjoint(present):
                    continue
                if (when is None or when(plan)) and not needs(plan):
                    out.append(_violation(req, plan, result))
            return out
        return _learn_table(result, plan, present)
    for req in requirements:
        gate = req.when.gate
        if gate is not None and gate.isdisjoint(present):
            continue
        if req.violated(plan):
            out.append(_violation(req, plan, result))
    return out


#: Per row of ``REQUIREMENTS``: (its gate or None, its ``when`` test or None for ``ALWAYS``,
#: its ``needs`` test, the row): what ``check`` reads of a row, unpacked once.
_ROW_TESTS = tuple((req.when.gate, None if req.when is ALWAYS else req.when.test,
                    req.needs.test, req) for req in REQUIREMENTS)
#: Per facts (target, model, draft, environment): the rows of ``_ROW_TESTS`` a plan of them
#: can break, with the objects the key names (so a reused id is never mistaken for them).
_TABLES: dict[tuple[Any, ...], tuple[Any, Any, Any, tuple[Any, ...]]] = {}


def _facts_key(result: Result) -> tuple[Any, ...]:
    record = result.record
    env = record.env
    return (id(record.target), id(record.model), id(record.draft),
            tuple(sorted(env.items())) if env else ())


def _table(result: Result) -> tuple[Any, ...] | None:
    """The rows a plan of these facts can break (None the first time the facts are met)."""
    found = _TABLES.get(_facts_key(result))
    record = result.record
    if found is not None and found[0] is record.target and found[1] is record.model \
            and found[2] is record.draft:
        return found[3]
    return None


def _learn_table(result: Result, plan: Plan, present: set[Any]) -> list[Violation]:
    """``check`` of every row on the first plan of its facts, each row on a traced plan: a
    row that held while reading no value nor explicitness (nor the declarations) is a
    function of the facts alone, so it holds for
    every plan of these facts and is left out of their table."""
    out = []
    kept = []
    for entry in _ROW_TESTS:
        gate, _, _, req = entry
        gated_out = gate is not None and gate.isdisjoint(present)
        traced = TracedPlan(result)
        try:
            broken = req.violated(traced)
        except Exception:
            if not gated_out:
                raise
            kept.append(entry)  # a row may assume its gate: kept, learned another time
            continue
        if broken or traced.reads or traced.opaque:
            kept.append(entry)
        if broken and not gated_out:
            out.append(_violation(req, plan, result))
    if len(_TABLES) >= 512:
        _TABLES.clear()
    record = result.record
    _TABLES[_facts_key(result)] = (record.target, record.model, record.draft, tuple(kept))
    return out


def _violation(req: Requirement, plan: Plan, result: Result) -> Violation:
    culprits = req.culprits(plan)
    sources = tuple(dict.fromkeys(
        s for f in culprits if (s := result.source(f)) != "default"))
    values = {f: plan[f] for f in (*req.when.fields_for(plan), *culprits)}
    return Violation(req, sources, values, req.describe(plan), culprits)


#: The fields a row's gate reads (the backends a plan names).
_GATE_FIELDS = (*SIDES, "speculative_draft_attention_backend")


_BY_NAME: dict[str, Requirement] = {}


def _index() -> None:
    _BY_NAME.clear()
    for req in REQUIREMENTS:
        if req.name in _BY_NAME:
            raise ValueError(f"two requirements are named {req.name!r}")
        _BY_NAME[req.name] = req


_index()
