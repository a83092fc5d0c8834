"""Run a rule set over a record: each rule reads the view and returns declarations.

The loop is the whole engine. A rule's declarations are checked against what it said it
writes, appended to the stash, and laid over the view for the rules after it. A refusal
stops the run and carries everything decided before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from launchplan.engine.declarations import Declaration, Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.record import Record
from launchplan.engine.registry import RuleSpec
from launchplan.engine.result import Result
from launchplan.engine.view import TracingView, View
from launchplan.errors import LaunchplanError, Refusal


class RuleContractError(LaunchplanError):
    """A rule broke its contract: wrote an undeclared field, or returned something odd."""


class RuleCrash(LaunchplanError):
    """A rule raised instead of refusing: a launchplan bug, reported with the rule's name."""

    def __init__(self, source: str, error: BaseException) -> None:
        self.source = source
        self.error = error
        super().__init__(f"rule {source} failed: {type(error).__name__}: {error}")


def _land(pending: list, stash: list[Declaration], view: View, overlay: dict) -> None:
    """Append a finished batch's declarations, in order, and lay them over the view."""
    for spec, fields, note, reads in pending:
        stash.append(Declaration(spec.name, fields, note, spec.normalizes, reads))
        view._apply(fields)
        overlay.update(fields)
    pending.clear()


_PLANS: dict[tuple[Any, ...], tuple[RuleSpec, ...]] = {}
_WRITABLE: dict[int, tuple[frozenset[str], ...]] = {}


def _writable_before(rules: Sequence[RuleSpec]) -> tuple[frozenset[str], ...]:
    """For each position, every field some earlier rule may declare."""
    known = _WRITABLE.get(id(rules))
    if known is None:
        seen: set[str] = set()
        out = []
        for spec in rules:
            out.append(frozenset(seen))
            seen |= spec.writes
        known = _WRITABLE[id(rules)] = tuple(out)
    return known


def applicable(rules: Sequence[RuleSpec], record: Record) -> Sequence[RuleSpec]:
    """The rules that can decide anything for this record, filtered once per input shape.

    A rule is left out when its ``archs`` or ``applies`` exclude the model and target, or
    when none of its trigger
    fields is given in the input nor declarable by any rule before it (so it could never
    be set when the rule's turn comes). Cached per (rule list, target, model, the set of
    given fields); model facts are cached by the loader, so a sweep filters rarely.
    """
    given = frozenset(record.raw.values)
    key = (id(rules), id(record.target), id(record.model), given)
    plan = _PLANS.get(key)
    if plan is None:
        arch0 = getattr(record.model, "arch0", None)
        target, model = record.target, record.model
        writable = _writable_before(rules)
        plan = tuple(
            s for s, before in zip(rules, writable)
            if (s.archs is None or arch0 in s.archs)
            and (s.applies is None or s.applies(target, model))
            and (not s.triggers or not given.isdisjoint(s.triggers)
                 or not before.isdisjoint(s.triggers)))
        if len(_PLANS) > 2048:
            _PLANS.clear()
            _KEEP_ALIVE.clear()
        _PLANS[key] = plan
        _KEEP_ALIVE[id(rules)] = rules
        _KEEP_ALIVE[id(record.model)] = record.model
        _KEEP_ALIVE[id(record.target)] = record.target
    return plan


_KEEP_ALIVE: dict[int, Any] = {}  # ids in _PLANS keys stay valid while cached


_NO_READS: Any = MappingProxyType({})  # untraced declarations share one empty read set
_STEPS: dict[int, tuple[Sequence[RuleSpec], list[tuple[Any, ...]]]] = {}


def _steps(rules: Sequence[RuleSpec]) -> list[tuple[Any, ...]]:
    """The loop's view of a rule list: the attributes it reads per rule, unpacked once."""
    known = _STEPS.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    steps = [(s, s.func, s.triggers, s.trigger_values, s.batch) for s in rules]
    if len(_STEPS) > 4096:
        _STEPS.clear()
    _STEPS[id(rules)] = (rules, steps)
    return steps


def run(record: Record, rules: Sequence[RuleSpec], *, trace: bool = False,
        launcher_refuses: bool = False, skip: bool = True) -> Result:
    """Resolve ``record`` with ``rules`` in order. Raises ``Refusal`` with the partial result.

    With ``trace``, every declaration keeps the field values its rule read. Checks of the
    LAUNCHER phase (SGLang's ``check_server_args``, run by the engine launcher after
    resolution) only warn unless ``launcher_refuses``: resolution itself accepts those plans.
    ``skip=False`` calls every rule, ignoring the ``archs``/``triggers`` promises (the
    straightforward path the tests compare against).
    """
    view: View = TracingView(record) if trace else View(record)
    stash: list[Declaration] = []
    warnings: list[str] = []
    overlay = dict(record.raw.values)  # input, then declarations: what Result reports
    result = Result(record, stash, warnings, overlay)
    pending: list[tuple[RuleSpec, dict[str, Any], str | None, dict[str, Any]]] = []
    batch: str | None = None
    if skip:
        rules = applicable(rules, record)
    keys = overlay.keys()  # a live view: grows as declarations land
    values_of = view.__dict__  # the view's field values, updated in place as rules declare
    for spec, func, triggers, trigger_values, spec_batch in _steps(rules):
        if batch is not None and spec_batch != batch:  # land before anything reads on
            _land(pending, stash, view, overlay)
            batch = None
        if skip and triggers:
            if keys.isdisjoint(triggers):
                continue
            values = trigger_values
            if values is not None:
                for f, allowed in values:
                    if f in overlay and overlay[f] in allowed:
                        break
                else:
                    continue
        if trace:
            view.reads.clear()  # type: ignore[attr-defined]
        try:
            out: Any = func(view)
        except LaunchplanError:
            raise
        except Exception as exc:  # a rule bug: name it, never a bare traceback
            raise RuleCrash(spec.name, exc) from exc
        if out is None:
            continue
        note = None
        if type(out) is dict:
            fields = out
        elif type(out) is Declare:
            fields, note = out.fields, out.note
        elif type(out) is Refuse and spec.phase is Phase.LAUNCHER and not launcher_refuses:
            warnings.append(f"SGLang's launcher will refuse this at start-up: {out.message}")
            continue
        elif type(out) is Refuse:  # a batch in flight never lands, as in SGLang
            result.refusal = (spec.name, out.message)
            raise Refusal(spec.name, out.message, result)
        else:
            raise RuleContractError(
                f"rule {spec.name} returned {type(out).__name__}; expected a dict, "
                "Declare, Refuse or None"
            )
        if note:
            warnings.append(note)
        if not fields:
            continue
        if not spec.writes.issuperset(fields):
            stray = sorted(set(fields) - spec.writes)
            raise RuleContractError(
                f"rule {spec.name} declared {stray}, which it does not list in writes="
            )
        reads = dict(view.reads) if trace else _NO_READS  # type: ignore[attr-defined]
        if spec_batch is not None:
            batch = spec_batch
            pending.append((spec, fields, note, reads))
            continue
        stash.append(Declaration(spec.name, fields, note, spec.normalizes, reads))
        values_of.update(fields)
        overlay.update(fields)
    _land(pending, stash, view, overlay)
    return result
