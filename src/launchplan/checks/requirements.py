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
from launchplan.engine.pipeline import CHANGES, SAME_PLAN
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

    ``memo`` (any dict: ``check`` and ``sweep`` pass one) turns on early cut-off for results
    resolved incrementally: each row's verdict is kept with its plan (``SamePlan``), with
    the fields it read, and the next plan of the same facts evaluates again only the rows
    that read a field the resolution found changed (``engine.pipeline.CHANGES``).
    """
    if memo is not None and requirements is None:
        same = result.extras.get(SAME_PLAN)
        if same is not None:
            rows = same.analyses.get(_ROWS)
            if rows is None:
                rows = same.analyses[_ROWS] = _rows(result)
            return [violation for _, violation in rows if violation is not None]
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
    function of the facts alone (``_rows`` relies on the same purity), so it holds for
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
_GATE_READS = frozenset(_GATE_FIELDS)
#: ``SamePlan.analyses`` key: per row of ``REQUIREMENTS``, (the fields its verdict and
#: violation read, or None when it reached into the declarations; its violation or None).
_ROWS = "requirement rows"


def _rows(result: Result) -> tuple[tuple[frozenset[str] | None, Violation | None], ...]:
    """Every row's verdict on this plan. Against the previous plan of the same facts (the
    resolution's ``CHANGES``), a row none of whose reads changed keeps its verdict and its
    violation: a row is a pure function of the values and explicitness it reads and of the
    facts, and a violation's sources (the last rule to declare each offending field) change
    only with a field the resolution marks changed. Other rows are evaluated on a traced
    plan, which records what they read for the next plan."""
    changes = result.extras.get(CHANGES)
    before = changes[0].analyses.get(_ROWS) if changes is not None else None
    changed = changes[1] if changes is not None else frozenset()
    plan = Plan(result)
    present: set[Any] | None = None
    out = []
    for at, req in enumerate(REQUIREMENTS):
        if before is not None:
            row = before[at]
            if row[0] is not None and row[0].isdisjoint(changed):
                out.append(row)
                continue
        gate = req.when.gate
        if gate is not None:
            if present is None:
                present = {plan[f] for f in _GATE_FIELDS}
            if gate.isdisjoint(present):
                out.append((_GATE_READS, None))
                continue
        traced = TracedPlan(result)
        violation = _violation(req, traced, result) if req.violated(traced) else None
        if traced.opaque:  # it reached into the declarations: evaluated every time
            out.append((None, violation))
            continue
        reads = {name.lstrip("?").partition(".")[0] for name in traced.reads}
        if gate is not None:
            reads.update(_GATE_READS)
        if violation is not None:
            reads.update(f.partition(".")[0] for f in violation.culprits)
        out.append((frozenset(reads), violation))
    return tuple(out)


_BY_NAME: dict[str, Requirement] = {}


def _index() -> None:
    _BY_NAME.clear()
    for req in REQUIREMENTS:
        if req.name in _BY_NAME:
            raise ValueError(f"two requirements are named {req.name!r}")
        _BY_NAME[req.name] = req


_index()
