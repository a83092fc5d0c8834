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


def _admits(spec: RuleSpec, target: Any, model: Any) -> bool:
    """``spec.admits``, with a failing ``applies`` reported as that rule's crash."""
    try:
        return spec.admits(target, model)
    except Exception as exc:  # a promise bug: name the rule, never a bare traceback
        raise RuleCrash(spec.name, exc) from exc


class _Plan:
    """One rule list's steps for one target and model: the rules their ``archs`` and
    ``applies`` admit, each unpacked once into what the loop reads; and the input shapes
    (sets of fields given) seen with it, each with its pruned steps once it repeats."""

    __slots__ = ("rules", "target", "model", "steps", "_writable", "_shapes", "_depends")

    def __init__(self, rules: Sequence[RuleSpec], target: Any, model: Any) -> None:
        self.rules, self.target, self.model = rules, target, model
        self.steps = [(s, s.func, s.triggers, s.trigger_values, s.batch) for s in rules
                      if _admits(s, target, model)]
        self._writable: tuple[int, ...] | None = None
        self._shapes: dict[frozenset[str], Any] = {}
        self._depends: tuple[frozenset[str], ...] | None = None

    def pruned(self, given: frozenset[str]) -> list[tuple[Any, ...]]:
        """The steps for inputs of this shape: a rule none of whose trigger fields is
        given, nor declarable by a rule before it, can never run, so it is left out."""
        return [step for i, (step, first) in enumerate(zip(self.steps, self.writable()))
                if not step[2] or first < i or not given.isdisjoint(step[2])]

    def writable(self) -> tuple[int, ...]:
        """For each step, the first step that may declare one of its trigger fields (the
        step count when none does). One integer a step, not the set of fields declarable
        before it: sets that large, made once per plan, would keep the garbage collector
        busy for the rest of a sweep."""
        if self._writable is None:
            first: dict[str, int] = {}
            for i, step in enumerate(self.steps):
                for name in step[0].writes:
                    first.setdefault(name, i)
            never = len(self.steps)
            self._writable = tuple(min((first.get(name, never) for name in step[2]),
                                       default=never) for step in self.steps)
        return self._writable

    def depends(self) -> tuple[frozenset[str], ...]:
        """Per step, every field its rule can read: its ``reads=`` and every field name that
        its code, or the code of the launchplan functions and constants it refers to,
        mention (``reads=`` alone can miss one; ``tests/engine/test_incremental.py`` holds
        these sets to the reads a tracing proxy records on thousands of points)."""
        if self._depends is None:
            self._depends = tuple(frozenset(spec.reads) | _mentioned(spec.func)
                                  for spec, *_ in self.steps)
        return self._depends


class _PlanCache:
    """The engine's one cache of rule plans, keyed by (rule list, target, model).

    Each entry holds its key objects, so no id in a live key can be reused by another
    object, and a lookup still checks identity: an entry whose objects are not the very
    objects asked about is a miss. At most ``bound`` plans are kept (the oldest goes
    first), and at most ``shape_bound`` input shapes over all of them (past it, every
    plan's shapes are forgotten): a long ``check`` or ``sweep`` over fresh targets, models
    and command lines stays bounded in memory.
    """

    __slots__ = ("bound", "shape_bound", "_entries", "_shapes")

    def __init__(self, bound: int, shape_bound: int) -> None:
        self.bound, self.shape_bound = bound, shape_bound
        self._entries: dict[tuple[int, int, int], _Plan] = {}
        self._shapes = 0  # input shapes held over all plans

    def plan(self, rules: Sequence[RuleSpec], record: Record) -> _Plan:
        target, model = record.target, record.model
        key = (id(rules), id(target), id(model))
        entries = self._entries
        found = entries.get(key)
        if found is not None and found.rules is rules and found.target is target \
                and found.model is model:
            return found
        plan = _Plan(rules, target, model)
        if found is not None:
            self._shapes -= len(found._shapes)
        elif len(entries) >= self.bound:
            self._shapes -= len(entries.pop(next(iter(entries)))._shapes)
        entries[key] = plan
        return plan

    def shaped(self, plan: _Plan, given: frozenset[str]) -> list[tuple[Any, ...]]:
        """The plan's steps for this input shape (the set of fields given), pruned once the
        shape repeats: sweeps and benchmarks repeat a few shapes many times, ``check``'s
        re-resolutions rarely repeat one, so the first sighting costs only a lookup."""
        shapes = plan._shapes
        seen = shapes.get(given)
        if type(seen) is list:
            return seen
        if seen is None:
            if self._shapes >= self.shape_bound:
                for each in self._entries.values():
                    each._shapes.clear()
                self._shapes = 0
            shapes[given] = 1
            self._shapes += 1
            return plan.steps
        shapes[given] = pruned = plan.pruned(given)
        return pruned

    def __len__(self) -> int:
        return len(self._entries)

    def shapes(self) -> int:
        """Input shapes held over all plans."""
        return self._shapes

    def clear(self) -> None:
        self._entries.clear()
        self._shapes = 0


PLANS = _PlanCache(bound=512, shape_bound=8192)


def applicable(rules: Sequence[RuleSpec], record: Record) -> Sequence[RuleSpec]:
    """The rules that can decide anything for this target and model: those whose ``archs``
    and ``applies`` admit them (cached in ``PLANS``). Triggers depend on the input and on
    earlier declarations, so ``run`` tests them as it goes."""
    return [step[0] for step in PLANS.plan(rules, record).steps]


_NO_READS: Any = MappingProxyType({})  # untraced declarations share one empty read set


def run(record: Record, rules: Sequence[RuleSpec], *, trace: bool = False,
        launcher_refuses: bool = False, skip: bool = True,
        memo: dict[Any, Any] | None = None) -> Result:
    """Resolve ``record`` with ``rules`` in order. Raises ``Refusal`` with the partial result.

    With ``trace``, every declaration keeps the field values its rule read. Checks of the
    LAUNCHER phase (SGLang's ``check_server_args``, run by the engine launcher after
    resolution) only warn unless ``launcher_refuses``: resolution itself accepts those plans.
    Both paths call a rule only when its promises (``archs``, ``applies``, ``triggers``)
    hold. The default path decides the first two once per target and model and prunes rules
    that cannot trigger for an input shape (``PLANS``); ``skip=False`` evaluates every
    promise afresh for every rule, with no cache (the plain path the tests compare against).

    ``memo`` (a dict the caller keeps across resolutions: ``check``, ``sweep``) turns on
    early cut-off against the previous resolution with the same facts and rule steps: a
    rule none of whose possible reads (``reads=`` and every field name its code, and the
    launchplan helpers it calls, mention: ``_depends``) can differ at the same step is not
    called; its previous output is used again (see ``_Incremental``). Trigger tests are
    always made afresh.
    """
    stash: list[Declaration] = []
    warnings: list[str] = []
    overlay = dict(record.raw.values)  # input, then declarations: what Result reports
    result = Result(record, stash, warnings, overlay)
    pending: list[tuple[RuleSpec, dict[str, Any], str | None, dict[str, Any]]] = []
    batch: str | None = None
    keys = overlay.keys()  # a live view: grows as declarations land
    inc = None
    start = 0
    if not skip:  # the plain path: every promise evaluated afresh, rule by rule
        target, model = record.target, record.model
        steps = [(s, s.func, s.triggers, None, s.batch) for s in rules
                 if _admits(s, target, model)]
    elif memo is not None and not trace and not launcher_refuses:
        # every input shape walks the same steps, so resolutions line up step by step
        plan = PLANS.plan(rules, record)
        steps = plan.steps
        depends = plan.depends()
        inc = _Incremental(memo, record, steps, depends)
        outs = inc.outs
        previous, dirty = inc.previous, inc.dirty
        n_previous = len(previous)
        start = inc.start
        final = inc.final
        if start == len(steps) and final is not None:  # no rule reads a change: replayed
            stash.extend(final.declarations)
            warnings.extend(final.warnings)
            result.launcher.extend(final.launcher)
            overlay.update(final.declared())  # over this input (fields no rule reads)
            inc.finish(result, final if not dirty else None)
            return result
        if start:  # the prefix no changed field reaches: its outputs again, no rule called
            _replay(previous, start, steps, result)
    else:
        steps = PLANS.shaped(PLANS.plan(rules, record), frozenset(record.raw.values))
    view: View = TracingView(record) if trace else View(record)
    values_of = view.__dict__  # the view's field values, updated in place as rules declare
    if inc is None and skip and not trace:  # the common walk: every step afresh
        _walk(steps, view, result, overlay, launcher_refuses)
        return result
    if start:
        values_of.update(overlay)
    at = start - 1
    for spec, func, triggers, trigger_values, spec_batch in (steps[start:] if start else steps):
        at += 1
        if batch is not None and spec_batch != batch:  # land before anything reads on
            _land(pending, stash, view, overlay)
            batch = None
        if not skip:
            if triggers and not spec.triggered(overlay):
                continue
        elif triggers:
            if keys.isdisjoint(triggers):
                if inc is not None:
                    outs.append(None)
                    if at < n_previous and previous[at] is not None:
                        inc.differs(None, previous[at][0])
                continue
            values = trigger_values
            if values is not None:
                for f, allowed in values:
                    if f in overlay and overlay[f] in allowed:
                        break
                else:
                    if inc is not None:
                        outs.append(None)
                        if at < n_previous and previous[at] is not None:
                            inc.differs(None, previous[at][0])
                    continue
        if trace:
            view.reads.clear()  # type: ignore[attr-defined]
        if inc is not None and at < n_previous and (before := previous[at]) is not None \
                and depends[at].isdisjoint(dirty):
            out: Any = before[0]  # nothing it can read differs: the same output
            outs.append(before)
        else:
            try:
                out = func(view)
                if inc is not None:
                    outs.append((out,))
                    before = previous[at] if at < n_previous else None
                    if before is not None:
                        if before[0] is not out:
                            inc.differs(out, before[0])
                    elif out is not None:
                        inc.differs(out, None)
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
        else:
            _stop_or_warn(spec, out, result, launcher_refuses)
            continue
        if note:
            warnings.append(note)
        if not fields:
            continue
        if not spec.writes.issuperset(fields):
            _stray(spec, fields)
        reads = dict(view.reads) if trace else _NO_READS  # type: ignore[attr-defined]
        if spec_batch is not None:
            batch = spec_batch
            pending.append((spec, fields, note, reads))
            continue
        stash.append(Declaration(spec.name, fields, note, spec.normalizes, reads))
        values_of.update(fields)
        overlay.update(fields)
    _land(pending, stash, view, overlay)
    if inc is not None:
        inc.finish(result)
    return result


def _walk(steps: Sequence[tuple[Any, ...]], view: View, result: Result,
          overlay: dict[str, Any], launcher_refuses: bool) -> None:
    """``run``'s loop without tracing or early cut-off: the same decisions, with only the
    tests this walk needs (a resolution from a command line takes this path). Its landing
    of a declaration repeats the general loop's on purpose: a helper call per declaring
    rule would cost what this walk saves (5% of a resolution's instructions)."""
    stash, warnings = result.declarations, result.warnings
    values_of = view.__dict__
    keys = overlay.keys()
    pending: list[tuple[RuleSpec, dict[str, Any], str | None, dict[str, Any]]] = []
    batch: str | None = None
    for spec, func, triggers, trigger_values, spec_batch in steps:
        if batch is not None and spec_batch != batch:  # land before anything reads on
            _land(pending, stash, view, overlay)
            batch = None
        if triggers:
            if keys.isdisjoint(triggers):
                continue
            if trigger_values is not None:
                for f, allowed in trigger_values:
                    if f in overlay and overlay[f] in allowed:
                        break
                else:
                    continue
        try:
            out = func(view)
        except LaunchplanError:
            raise
        except Exception as exc:  # a rule bug: name it, never a bare traceback
            raise RuleCrash(spec.name, exc) from exc
        if out is None:
            continue
        kind = type(out)
        if kind is dict:
            fields, note = out, None
        elif kind is Declare:
            fields, note = out.fields, out.note
            if note:
                warnings.append(note)
        else:
            _stop_or_warn(spec, out, result, launcher_refuses)
            continue
        if not fields:
            continue
        if not spec.writes.issuperset(fields):
            _stray(spec, fields)
        if spec_batch is not None:
            batch = spec_batch
            pending.append((spec, fields, note, _NO_READS))
            continue
        stash.append(Declaration(spec.name, fields, note, spec.normalizes, _NO_READS))
        values_of.update(fields)
        overlay.update(fields)
    _land(pending, stash, view, overlay)


def _stop_or_warn(spec: RuleSpec, out: Any, result: Result, launcher_refuses: bool) -> None:
    """A rule returned something other than declarations: a launcher check's refusal
    (a warning unless ``launcher_refuses``), a refusal (raised), or a contract breach."""
    if type(out) is Refuse and spec.phase is Phase.LAUNCHER and not launcher_refuses:
        result.warnings.append(f"SGLang's launcher will refuse this at start-up: {out.message}")
        result.launcher.append((spec.name, out.message, out.requirement))
        return
    if type(out) is Refuse:  # a batch in flight never lands, as in SGLang
        result.refusal = (spec.name, out.message)
        result.refusal_requirement = out.requirement
        raise Refusal(spec.name, out.message, result, out.requirement)
    raise RuleContractError(
        f"rule {spec.name} returned {type(out).__name__}; expected a dict, Declare, Refuse "
        "or None")


def _stray(spec: RuleSpec, fields: dict[str, Any]) -> None:
    stray = sorted(set(fields) - spec.writes)
    raise RuleContractError(f"rule {spec.name} declared {stray}, which it does not list in "
                            "writes=")


# --- early cut-off across resolutions ---------------------------------------------------------

_MISSING: Any = object()
_MENTIONED: dict[Any, frozenset[str]] = {}


def _mentioned(func: Any) -> frozenset[str]:
    """Field names in ``func``'s code and, transitively, in the launchplan functions and
    constant tables it names (attribute names, string constants, tuples of names)."""
    known = _MENTIONED.get(func)
    if known is not None:
        return known
    from types import CodeType, FunctionType

    names: set[str] = set()
    seen: set[int] = set()

    def constant(value: Any, depth: int = 0) -> None:
        if isinstance(value, str):
            names.add(value)
        elif depth < 3 and isinstance(value, (tuple, list, frozenset, set)):
            for item in value:
                constant(item, depth + 1)
        elif depth < 3 and isinstance(value, dict):
            for k, v in value.items():
                constant(k, depth + 1)
                constant(v, depth + 1)

    def walk(f: Any) -> None:
        f = getattr(f, "__wrapped__", f)
        if not isinstance(f, FunctionType) or id(f.__code__) in seen:
            return
        if not f.__module__.startswith("launchplan"):
            return
        seen.add(id(f.__code__))
        scope = f.__globals__
        codes = [f.__code__]
        while codes:
            code = codes.pop()
            names.update(code.co_names)
            for c in code.co_consts:
                if isinstance(c, CodeType):
                    codes.append(c)
                else:
                    constant(c)
            for name in code.co_names:
                target = scope.get(name)
                if isinstance(target, FunctionType):
                    walk(target)
                elif isinstance(target, (tuple, list, frozenset, set, dict)):
                    constant(target)
        for cell in f.__closure__ or ():
            try:
                walk(cell.cell_contents)
                constant(cell.cell_contents)
            except ValueError:  # an empty cell
                pass

    walk(func)
    # every name that could be a field of some release (an older release's fields are not
    # all 0.5.23's: a variant reads those by name)
    out = frozenset(n for n in names if n.isidentifier())
    _MENTIONED[func] = out
    return out


def _fields_of(out: Any) -> Any:
    if type(out) is dict:
        return out
    if type(out) is Declare:
        return out.fields
    return _NO_READS


class _Incremental:
    """One resolution's link to the previous one with the same facts and rule steps.

    ``dirty`` holds every field whose value at the current step may differ from the
    previous resolution's at the same step: the input fields that differ (in value or in
    being given), then every field a rule declared differently (or declared in one run
    only). A rule whose possible reads (``_depends``) avoid ``dirty`` reads exactly the same
    values now, and a rule is a pure function of what it reads and of the facts (the memo
    is kept per target, model, draft, rule set and environment), so its previous output is
    its output. ``outs`` records this run's outputs per step (None: not called) for the
    next run.
    """

    __slots__ = ("outs", "previous", "dirty", "start", "final", "_slot")

    def __init__(self, memo: dict[Any, Any], record: Record,
                 steps: list[tuple[Any, ...]], depends: tuple[frozenset[str], ...]) -> None:
        target, model, draft = objects = (record.target, record.model, record.draft)
        env = record.env
        key = (id(target), id(model), id(draft), record.compat,
               tuple(sorted(env.items())) if env else (), id(steps))
        slot = memo.get(key)
        if slot is None or slot[0] is not steps or slot[1][0] is not target \
                or slot[1][1] is not model or slot[1][2] is not draft:
            if len(memo) >= 1024:
                memo.clear()
            slot = memo[key] = [steps, objects, None, (), None]
        new = record.raw.values
        old = slot[2]
        self.start = 0
        self.final = slot[4]
        if old is None:
            self.previous: Any = ()
            self.dirty: set[str] = set()
            self.outs: list[Any] = []
        else:
            self.previous = previous = slot[3]
            dirty = {k for k, v in new.items()
                     if (w := old.get(k, _MISSING)) is not v
                     and (type(w) is not type(v) or w != v)}
            dirty.update(k for k in old if k not in new)
            self.dirty = dirty
            self.start = start = _resume_at(steps, depends, dirty, len(previous),
                                            slot[4] is not None)
            self.outs = previous if start == len(steps) else previous[:start]
        slot[2] = dict(new)  # a copy: a caller may change its input afterwards
        slot[3] = self.outs  # grows as this run goes; a run that stops keeps its prefix
        slot[4] = None  # until this run finishes: a run that stopped ends in its stop
        self._slot = slot

    def finish(self, result: Result, same: SamePlan | None = None) -> None:
        """This run went through every step (no refusal, no error): what it decided, for
        a next run whose input no rule reads differently. ``same``: the input repeats the
        previous one exactly, so the result shares its plan's analyses."""
        if same is None:
            same = SamePlan(tuple(result.declarations), tuple(result.warnings),
                            tuple(result.launcher))
        self._slot[4] = same
        result.extras[SAME_PLAN] = same

    def differs(self, out: Any, before: Any) -> None:
        """Mark the fields whose declared values differ between this output and the
        previous run's at the same step."""
        if out is before:
            return
        now, then = _fields_of(out), _fields_of(before)
        dirty = self.dirty
        for name, value in now.items():
            was = then.get(name, _MISSING)
            if was is not value and (type(was) is not type(value) or was != value):
                dirty.add(name)
        for name in then:
            if name not in now:
                dirty.add(name)


# --- the unchanged prefix ---------------------------------------------------------------------

_READERS: dict[int, tuple[list[Any], dict[str, int]]] = {}


def _first_readers(steps: list[tuple[Any, ...]],
                   depends: tuple[frozenset[str], ...]) -> dict[str, int]:
    """Per field, the first step whose trigger test or rule can read it."""
    known = _READERS.get(id(steps))
    if known is not None and known[0] is steps:
        return known[1]
    first: dict[str, int] = {}
    for at, ((_, _, triggers, trigger_values, _), reads) in enumerate(zip(steps, depends)):
        for name in (*(triggers or ()), *(f for f, _ in trigger_values or ()), *reads):
            first.setdefault(name, at)
    if len(_READERS) > 4096:
        _READERS.clear()
    _READERS[id(steps)] = (steps, first)
    return first


def _resume_at(steps: list[tuple[Any, ...]], depends: tuple[frozenset[str], ...],
               dirty: set[str], n_previous: int, complete: bool) -> int:
    """The first step that must run again: before it no trigger test nor rule can read a
    changed input field, so every step does what it did in the previous run.

    A previous run that stopped (a refusal, an error) is reused up to, not including, the
    step that stopped it; the point moves back to the start of a batch, so nothing is in
    flight there."""
    n = len(steps)
    if dirty:
        first = _first_readers(steps, depends)
        at = min([first.get(name, n) for name in dirty])
    else:
        at = n
    at = min(at, n_previous if complete else max(0, n_previous - 1))
    while 0 < at < n and steps[at][4] is not None and steps[at - 1][4] == steps[at][4]:
        at -= 1
    return at


def _replay(previous: Sequence[Any], end: int, steps: list[tuple[Any, ...]],
            result: Result) -> None:
    """The outputs of steps before ``end`` in the previous run, landed in order (the stash
    order is the order rules declared, batches included)."""
    stash, warnings, overlay = result.declarations, result.warnings, result._overlay
    for at in range(end):
        before = previous[at]
        if before is None or (out := before[0]) is None:
            continue
        spec = steps[at][0]
        if type(out) is dict:
            fields, note = out, None
        elif type(out) is Declare:
            fields, note = out.fields, out.note
        else:  # a launcher check's refusal (only those end no run): a warning, as before
            warnings.append(f"SGLang's launcher will refuse this at start-up: {out.message}")
            result.launcher.append((spec.name, out.message, out.requirement))
            continue
        if note:
            warnings.append(note)
        if fields:
            stash.append(Declaration(spec.name, fields, note, spec.normalizes, _NO_READS))
            overlay.update(fields)


#: ``Result.extras`` key of a ``SamePlan`` (set on results resolved with a ``memo``).
SAME_PLAN = "same-plan"


class SamePlan:
    """What one resolution decided, shared by every repeat of its input: a result of the
    same input and facts (every value, declaration and warning the same) carries the same
    object, so analyses of the final plan (``analyses``: the memory plan, the preflight
    verdict) are computed once for all of them."""

    __slots__ = ("declarations", "warnings", "launcher", "analyses", "_declared")

    def __init__(self, declarations: tuple[Declaration, ...], warnings: tuple[str, ...],
                 launcher: tuple[Any, ...]) -> None:
        self.declarations = declarations
        self.warnings = warnings
        self.launcher = launcher
        self.analyses: dict[Any, Any] = {}
        self._declared: dict[str, Any] | None = None

    def declared(self) -> dict[str, Any]:
        """Every declared field's last declared value (laid over an input as one dict)."""
        if self._declared is None:
            merged: dict[str, Any] = {}
            for declaration in self.declarations:
                merged.update(declaration.fields)
            self._declared = merged
        return self._declared
