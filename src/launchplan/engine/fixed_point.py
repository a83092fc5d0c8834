"""Whether an input is a fixed point of a rule set, told without resolving it.

``check``'s idempotence test resolves every plan's own values again (the pinned plan) and
compares. Most plans are fixed points, and there is a cheaper way to know it: evaluate each
step on the input as given. If every step whose trigger holds on the input declares only
values the input already gives (same type, equal), refuses nothing and raises nothing, a
real resolution would see that same view at every step (nothing it lands changes a value or
adds a set field, so no trigger moves either), so it would end with exactly the input's
values. A step may also declare a field the input leaves unset (a default the idempotence
check does not pin, an internal flag) when no later step reads that field or triggers on
it: nothing after it can see the difference, and the field's value is that declaration's.
Any other outcome answers "not known": the caller resolves for real.

Unlike a resolution, nothing lands, so a change in the input reaches only the steps that
read, trigger on or write a changed field, never the steps after them: across
neighbouring inputs (``check`` walks its pinned plans in order) the test is incremental
with no cascade, each step's verdict kept per facts and rule steps as ``_rerun`` keeps its
outputs (``tests/engine/test_fixed_point.py`` holds it to full resolution).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from launchplan.engine.declarations import Declaration, Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.pipeline import PLANS, _admitted, lane_of
from launchplan.engine.record import Record
from launchplan.engine.registry import RuleSpec
from launchplan.engine.result import Result
from launchplan.engine.view import View

_MISSING: Any = object()


class _Verdicts:
    """Per facts and rule steps: the previous input, the steps whose trigger held on it
    (``called``), those among them that did not keep it (``moved``), one bit a step, and
    per step its declaration of fields the input leaves unset (``added``)."""

    __slots__ = ("steps", "objects", "inputs", "called", "moved", "added")

    def __init__(self, steps: list[tuple[Any, ...]], objects: tuple[Any, ...]) -> None:
        self.steps, self.objects = steps, objects
        self.inputs: dict[str, Any] | None = None
        self.called = 0
        self.moved = 0
        self.added: dict[int, Declaration] = {}


_WRITERS: dict[int, tuple[list[tuple[Any, ...]], dict[str, int]]] = {}


def _writers(steps: list[tuple[Any, ...]]) -> dict[str, int]:
    """Per field, the steps that may declare it (one bit a step)."""
    found = _WRITERS.get(id(steps))
    if found is not None and found[0] is steps:
        return found[1]
    if len(_WRITERS) >= 1024:
        _WRITERS.clear()
    out: dict[str, int] = {}
    for at, step in enumerate(steps):
        for name in step[0].writes:
            out[name] = out.get(name, 0) | 1 << at
    _WRITERS[id(steps)] = (steps, out)
    return out


def fixed_point(record: Record, rules: Sequence[RuleSpec], memo: dict[Any, Any]
                ) -> Result | None:
    """The result of resolving ``record`` with ``rules`` when its input is a fixed point
    of them (``as_resolved``: every value the real resolution's), else None (not known).

    ``memo`` (a dict the caller keeps) holds each step's verdict on the previous input of
    the same facts and steps; only the steps a changed field reaches are evaluated again.
    """
    plan = PLANS.plan(rules, record)
    steps = plan.steps
    index = plan.index()
    lane = lane_of(memo, record, steps, _Verdicts)
    given = record.raw.values
    old = lane.inputs
    called, moved, added = lane.called, lane.moved, lane.added
    by_trigger, by_rule = index.by_trigger, index.by_rule
    if old is None:
        todo = index.everything
    else:
        writers = _writers(steps)
        todo = 0
        for name, value in given.items():
            was = old.get(name, _MISSING)
            if was is not value and (type(was) is not type(value) or was != value):
                todo |= by_trigger.get(name, 0) | (
                    (by_rule.get(name, 0) | writers.get(name, 0)) & called)
        for name in old:
            if name not in given:
                todo |= by_trigger.get(name, 0) | (
                    (by_rule.get(name, 0) | writers.get(name, 0)) & called)
    lane.inputs = None  # until this evaluation goes through
    if todo:
        view = View(record)
        keys = given.keys()
        while todo:
            low = todo & -todo
            todo ^= low
            at = low.bit_length() - 1
            spec, func, triggers, trigger_values, _ = steps[at]
            added.pop(at, None)
            if triggers and (keys.isdisjoint(triggers) or (
                    trigger_values is not None and not _admitted(trigger_values, given))):
                called &= ~low
                moved &= ~low
                continue
            called |= low
            kept = _outcome(spec, func, view, given, ~((low << 1) - 1), by_trigger,
                            by_rule)
            if kept is None:
                moved |= low
                continue
            moved &= ~low
            if kept:
                added[at] = Declaration(spec.name, kept, None, spec.normalizes)
    lane.inputs = dict(given)
    lane.called, lane.moved = called, moved
    if moved:
        return None
    return as_resolved(record, [added[at] for at in sorted(added)])


def _outcome(spec: RuleSpec, func: Any, view: View, given: dict[str, Any], later: int,
             by_trigger: dict[str, int], by_rule: dict[str, int]) -> dict[str, Any] | None:
    """What this step, on the input as given, declares of fields the input leaves unset
    (no later step, ``later`` as bits, reads them or triggers on them); None when it
    changes a given value, declares an unset field a later step can see, or refuses."""
    try:
        out = func(view)
    except Exception:  # a refusal raised, or a rule bug: the real run reports it
        return None
    if out is None:
        return _NOTHING
    kind = type(out)
    if kind is dict:
        fields = out
    elif kind is Declare:
        fields = out.fields
    elif kind is Refuse and spec.phase is Phase.LAUNCHER:  # it only warns
        return _NOTHING
    else:
        return None
    if not spec.writes.issuperset(fields):
        return None
    unset: dict[str, Any] | None = None
    for name, value in fields.items():
        was = given.get(name, _MISSING)
        if was is _MISSING:
            if (by_trigger.get(name, 0) | by_rule.get(name, 0)) & later:
                return None
            if unset is None:
                unset = {}
            unset[name] = value
        elif value is None or (was is not value and (type(was) is not type(value)
                                                     or was != value)):
            return None
    return unset or _NOTHING


_NOTHING: dict[str, Any] = {}  # a step that keeps the input and adds nothing (never mutated)


def as_resolved(record: Record, added: list[Declaration]) -> Result:
    """The result of a fixed point: the input, with the declarations of unset fields laid
    over it. Every value (``Result.value``) and the source of every field the input leaves
    unset are the real resolution's; a rule re-declaring a given value is not kept (the
    field shows as ``input``), so compare values with it, not sources of given fields."""
    overlay = dict(record.raw.values)
    for declaration in added:
        overlay.update(declaration.fields)
    result = Result(record, added, [], overlay)
    result.extras[VOUCHED] = True
    return result


#: ``Result.extras`` key marking a result ``as_resolved`` made: its values are its input's,
#: each the same object, with only ``declarations`` laid over fields the input leaves unset.
VOUCHED = "vouched fixed point"
