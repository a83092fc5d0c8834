"""Run a rule set over a record: each rule reads the view and returns declarations.

The loop is the whole engine. A rule's declarations are checked against what it said it
writes, appended to the stash, and laid over the view for the rules after it. A refusal
stops the run and carries everything decided before it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import MappingProxyType
from typing import Any

from launchplan.engine.declarations import Declaration, Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.record import Record
from launchplan.engine.registry import RuleSpec
from launchplan.engine.result import Result
from launchplan.engine.view import TracingView, View
from launchplan.errors import InputError, LaunchplanError, Refusal


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

    __slots__ = ("rules", "target", "model", "steps", "_writable", "_shapes", "_depends",
                 "_index", "_folds")

    def __init__(self, rules: Sequence[RuleSpec], target: Any, model: Any) -> None:
        self.rules, self.target, self.model = rules, target, model
        self.steps = [(s, s.func, s.triggers, s.trigger_values, s.batch) for s in rules
                      if _admits(s, target, model)]
        self._writable: tuple[int, ...] | None = None
        self._shapes: dict[frozenset[str], Any] = {}
        self._depends: tuple[frozenset[str], ...] | None = None
        self._index: _Index | None = None
        #: per input shape, environment and draft: the walk whose facts-only steps fold
        self._folds: dict[tuple[Any, ...], tuple[Any, list[tuple[Any, ...]]]] = {}

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

    def folding(self, steps: list[tuple[Any, ...]], given: frozenset[str]
                ) -> list[tuple[Any, ...]]:
        """``steps`` (this plan's, pruned for the input shape ``given``) as ``_walk`` reads
        them, each step that can read no value the input decides made to remember its first
        output (``_Once``).

        Such a step has no trigger, and none of its possible reads (``depends``) is a field
        given or one a step before it may declare: at that step, every field it can read
        holds its unset default on every input of this shape, so its output is a function
        of the facts (target, model, draft, environment, rule set) -- as a preflight row
        that reads no value is (``checks.requirements._learn_table``). The caller keeps one
        walk per shape, environment and draft."""
        depends = dict(zip(map(id, self.steps), self.depends()))
        written: set[str] = set()
        walk = list(_walk_steps(steps))
        for at, step in enumerate(steps):
            spec, func, triggers, trigger_values, batch = step
            if not triggers and trigger_values is None:
                reads = depends[id(step)]
                if reads.isdisjoint(given) and reads.isdisjoint(written):
                    walk[at] = (spec, _Once(func, walk, at), None, None, None, batch)
            written.update(spec.writes)
        return walk

    def index(self) -> _Index:
        """Which steps each field reaches (for early cut-off), built once per plan."""
        if self._index is None:
            self._index = _index_of(self.steps, self.depends)
        return self._index


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
            self._shapes -= len(found._shapes) + len(found._folds)
        elif len(entries) >= self.bound:
            gone = entries.pop(next(iter(entries)))
            self._shapes -= len(gone._shapes) + len(gone._folds)
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
                self.forget_shapes()
            shapes[given] = 1
            self._shapes += 1
            return plan.steps
        shapes[given] = pruned = plan.pruned(given)
        return pruned

    def walk(self, plan: _Plan, record: Record) -> list[tuple[Any, ...]]:
        """The steps ``_walk`` takes for this record: pruned for its input shape and, once
        that shape repeats, with the steps that read only facts folded (``_Plan.folding``),
        one walk per shape, environment and draft (counted against ``shape_bound``)."""
        given = frozenset(record.raw.values)
        steps = self.shaped(plan, given)
        if steps is plan.steps:  # a shape met once: no fold yet
            return _walk_steps(steps)
        env, draft = record.env, record.draft
        key = (given, tuple(sorted(env.items())) if env else (), id(draft))
        found = plan._folds.get(key)
        if found is not None and found[0] is draft:
            return found[1]
        if self._shapes >= self.shape_bound:
            self.forget_shapes()
            return _walk_steps(self.shaped(plan, given))
        walk = plan.folding(steps, given)
        plan._folds[key] = (draft, walk)
        self._shapes += 1
        return walk

    def forget_shapes(self) -> None:
        """Drop every input shape's pruned steps and folds, keeping each target and model's
        plan (a benchmark times a first walk over a sample, as a fresh process meets it)."""
        for each in self._entries.values():
            each._shapes.clear()
            each._folds.clear()
        self._shapes = 0

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
        memo: dict[Any, Any] | None = None, fold: bool = True) -> Result:
    """``_run``; a rule's failure on a value given with a type its field does not admit (the
    keyword path takes values as given) is bad input naming that field."""
    try:
        return _run(record, rules, trace=trace, launcher_refuses=launcher_refuses,
                    skip=skip, memo=memo, fold=fold)
    except RuleCrash as crash:
        blamed = _mistyped_input(record, crash)
        if blamed is None:
            raise
        raise blamed from crash


def _mistyped_input(record: Record, crash: RuleCrash) -> InputError | None:
    """The bad-input error naming a value given with a type its field does not admit."""
    from launchplan.input.field_types import mistyped_error
    from launchplan.input.fields import FIELDS, SGLANG_VERSION, release_table

    raw = record.raw
    fields = FIELDS if raw.release == SGLANG_VERSION else release_table(raw.release).fields
    return mistyped_error(raw.values, raw.origin, fields, crash.source)


def _run(record: Record, rules: Sequence[RuleSpec], *, trace: bool = False,
         launcher_refuses: bool = False, skip: bool = True,
         memo: dict[Any, Any] | None = None, fold: bool = True) -> Result:
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
    called; its previous output is used again, and a step none of whose trigger fields nor
    possible reads can differ is not even visited (see ``_rerun``).
    """
    stash: list[Declaration] = []
    warnings: list[str] = []
    overlay = dict(record.raw.values)  # input, then declarations: what Result reports
    result = Result(record, stash, warnings, overlay)
    pending: list[tuple[RuleSpec, dict[str, Any], str | None, dict[str, Any]]] = []
    batch: str | None = None
    keys = overlay.keys()  # a live view: grows as declarations land
    if not skip:  # the plain path: every promise evaluated afresh, rule by rule
        target, model = record.target, record.model
        steps = [(s, s.func, s.triggers, None, s.batch) for s in rules
                 if _admits(s, target, model)]
    elif memo is not None and not trace and not launcher_refuses:
        _rerun(PLANS.plan(rules, record), memo, record, result)
        return result
    elif not trace:  # the common walk: every step afresh (facts-only ones folded)
        plan = PLANS.plan(rules, record)
        _walk(PLANS.walk(plan, record) if fold else
              _walk_steps(PLANS.shaped(plan, frozenset(record.raw.values))),
              View(record), result, overlay, launcher_refuses)
        return result
    else:
        steps = PLANS.shaped(PLANS.plan(rules, record), frozenset(record.raw.values))
    view: View = TracingView(record) if trace else View(record)
    values_of = view.__dict__  # the view's field values, updated in place as rules declare
    quiet: Any = None  # traced: the steps that declared nothing (``QUIET``)
    if trace:
        quiet = result.extras[QUIET] = {}
    for spec, func, triggers, trigger_values, spec_batch in steps:
        if batch is not None and spec_batch != batch:  # land before anything reads on
            _land(pending, stash, view, overlay)
            batch = None
        if not skip:
            if triggers and not spec.triggered(overlay):
                if trace:
                    quiet[spec.name] = None
                continue
        elif triggers:
            if keys.isdisjoint(triggers):
                if trace:
                    quiet[spec.name] = None
                continue
            if trigger_values is not None:
                for f, allowed in trigger_values:
                    if f in overlay and overlay[f] in allowed:
                        break
                else:
                    if trace:
                        quiet[spec.name] = None
                    continue
        if trace:
            view.reads.clear()  # type: ignore[attr-defined]
        try:
            out = func(view)
        except LaunchplanError:
            raise
        except Exception as exc:  # a rule bug: name it, never a bare traceback
            raise RuleCrash(spec.name, exc) from exc
        if out is None or (trace and not out):
            if trace:
                quiet[spec.name] = dict(view.reads)  # type: ignore[attr-defined]
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
    return result


def _walk(walk: Sequence[tuple[Any, ...]], view: View, result: Result,
          overlay: dict[str, Any], launcher_refuses: bool) -> None:
    """``run``'s loop without tracing or early cut-off: the same decisions, with only the
    tests this walk needs (a resolution from a command line takes this path), over ``walk``
    (the steps as ``_walk_steps`` unpacks them, facts-only ones folded: ``PLANS.walk``).
    Its landing of a declaration repeats the general loop's on purpose: a helper call per
    declaring rule would cost what this walk saves (5% of a resolution's instructions)."""
    stash, warnings = result.declarations, result.warnings
    values_of = view.__dict__
    keys = overlay.keys()
    pending: list[tuple[RuleSpec, dict[str, Any], str | None, dict[str, Any]]] = []
    batch: str | None = None
    for spec, func, first, triggers, trigger_values, spec_batch in walk:
        if batch is not None and spec_batch != batch:  # land before anything reads on
            _land(pending, stash, view, overlay)
            batch = None
        if first is not None:  # triggered: one of its trigger fields is set
            if first not in overlay and (triggers is None or keys.isdisjoint(triggers)):
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
        values_of |= fields  # (an operator: no method call, no argument tuple)
        overlay |= fields
    _land(pending, stash, view, overlay)
    # the view dies with this call: its dictionary, every final value already in place, is
    # what the memory plan reads (``memory.values.plain_values``) instead of copying them
    result.final = values_of


_WALKS: dict[int, tuple[Sequence[tuple[Any, ...]], list[tuple[Any, ...]]]] = {}


def _walk_steps(steps: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """``steps`` as ``_walk`` reads them, made once per step list: each step's first trigger
    field apart (most steps have one: a dictionary membership test instead of
    ``isdisjoint``), its trigger fields kept only when there are more."""
    found = _WALKS.get(id(steps))
    if found is not None and found[0] is steps:
        return found[1]
    if len(_WALKS) >= 1024:
        _WALKS.clear()
    walk = [(spec, func, triggers[0] if triggers else None,
             triggers if triggers and len(triggers) > 1 else None, trigger_values, batch)
            for spec, func, triggers, trigger_values, batch in steps]
    _WALKS[id(steps)] = (steps, walk)
    return walk


class _Once:
    """A folded step's rule (``_Plan.folding``): its first call runs the rule and puts a
    step that gives that output back into the walk in its place; a call that raises leaves
    it as it was."""

    __slots__ = ("func", "walk", "at")

    def __init__(self, func: Callable[[View], Any], walk: list[tuple[Any, ...]],
                 at: int) -> None:
        self.func, self.walk, self.at = func, walk, at

    def __call__(self, view: View) -> Any:
        out = self.func(view)
        spec, _, _, _, _, batch = self.walk[self.at]
        self.walk[self.at] = (spec, _constant(out), None, None, None, batch)
        return out


def _constant(out: Any) -> Callable[[View], Any]:
    return lambda view: out


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



class _Index:
    """Per rule steps, which steps each field reaches, one bit a step: ``by_trigger`` the
    steps whose trigger test reads it, ``by_rule`` those whose rule can read it. A step
    whose trigger did not hold in the previous run, and none of whose trigger fields
    changed, stays untriggered whatever else changed: a walk visits it only through
    ``by_trigger``. A step inside a batch stands for its whole batch: batch rules read the
    view as it was before the batch, so a walk that visits one of them visits all, landing
    their declarations together after it."""

    __slots__ = ("by_trigger", "by_rule", "starts", "depends", "everything")

    def __init__(self, steps: list[tuple[Any, ...]],
                 depends: tuple[frozenset[str], ...]) -> None:
        starts: list[int] = []  # per step, the first step of its batch (itself outside one)
        for at, step in enumerate(steps):
            batch = step[4]
            same = batch is not None and at > 0 and steps[at - 1][4] == batch
            starts.append(starts[at - 1] if same else at)
        group: dict[int, int] = {}
        for at, start in enumerate(starts):
            group[start] = group.get(start, 0) | 1 << at
        by_trigger: dict[str, int] = {}
        by_rule: dict[str, int] = {}
        for at, ((_, _, triggers, trigger_values, _), reads) in enumerate(zip(steps, depends)):
            bits = group[starts[at]]
            for name in (*(triggers or ()), *(f for f, _ in trigger_values or ())):
                by_trigger[name] = by_trigger.get(name, 0) | bits
            for name in reads:
                by_rule[name] = by_rule.get(name, 0) | bits
        self.by_trigger, self.by_rule = by_trigger, by_rule
        self.starts = tuple(starts)
        self.depends = depends
        self.everything = (1 << len(steps)) - 1

    def from_step(self, at: int) -> int:
        """Every step from ``at`` on (from the start of its batch)."""
        if at >= len(self.starts):
            return 0
        start = self.starts[at]
        return self.everything >> start << start


_INDEXES: dict[tuple[int, ...], tuple[tuple[Any, ...], _Index]] = {}


def _index_of(steps: list[tuple[Any, ...]],
              depends: Callable[[], tuple[frozenset[str], ...]]) -> _Index:
    """The index of these rule steps, shared by every plan with the same steps (targets and
    models admit the same rules far more often than not: building one costs milliseconds,
    a ``check`` meets a thousand plans). ``depends`` is asked only when the index is new:
    the read sets cost as much as the index."""
    specs = tuple(step[0] for step in steps)
    key = tuple(map(id, specs))
    found = _INDEXES.get(key)
    if found is not None and all(a is b for a, b in zip(found[0], specs)):
        return found[1]
    if len(_INDEXES) >= 256:
        _INDEXES.clear()
    index = _Index(steps, depends())
    _INDEXES[key] = (specs, index)
    return index


class _Lane:
    """The previous resolution with the same facts and rule steps, for early cut-off: its
    input, each step's output (``outs``: None where the step's trigger did not hold, else
    ``(output, its Declaration or None)``), the steps whose output landed something
    (``made``, in order), the steps whose trigger held (``called``, one bit a step), the
    step it stopped at (``stop``: the step count when it went through) and, when it went
    through, its ``SamePlan`` (``final``)."""

    __slots__ = ("steps", "objects", "inputs", "outs", "made", "called", "stop", "final")

    def __init__(self, steps: list[tuple[Any, ...]], objects: tuple[Any, ...]) -> None:
        self.steps, self.objects = steps, objects
        self.inputs: dict[str, Any] | None = None
        self.outs: list[Any] = [None] * len(steps)
        self.made: list[int] = []
        self.called = 0
        self.stop = 0
        self.final: SamePlan | None = None


def _lane(memo: dict[Any, Any], record: Record, steps: list[tuple[Any, ...]]) -> _Lane:
    """The memo's lane for this record's facts and steps (``lane_of``)."""
    return lane_of(memo, record, steps, _Lane)


def lane_of(memo: dict[Any, Any], record: Record, steps: list[tuple[Any, ...]],
            make: Any) -> Any:
    """The memo's entry for this record's facts (target, model, draft, rule set,
    environment) and steps, made by ``make(steps, objects)`` when missing; the entry keeps
    ``steps`` and ``objects``, so an id is never mistaken for a later object's. At most
    1,024 entries are kept."""
    target, model, draft = objects = (record.target, record.model, record.draft)
    env = record.env
    key = (id(target), id(model), id(draft), record.compat,
           tuple(sorted(env.items())) if env else (), id(steps))
    lane = memo.get(key)
    if lane is None or lane.steps is not steps or lane.objects[0] is not target \
            or lane.objects[1] is not model or lane.objects[2] is not draft:
        if len(memo) >= 1024:
            memo.clear()
        lane = memo[key] = make(steps, objects)
    return lane


_UNKNOWN: Any = object()  # a step the previous run never reached: nothing to reuse or compare


def _rerun(plan: _Plan, memo: dict[Any, Any], record: Record, result: Result) -> None:
    """``run`` with early cut-off: only the steps a changed field can reach are visited.

    ``dirty`` holds every field whose value at the current step may differ from the
    previous run's at the same step: the input fields that differ (in value or in being
    given), then every field a visited step declared differently (or declared in one run
    only). A step none of whose trigger fields nor possible reads (``_depends``) is dirty
    does what it did before: its previous declarations land again, in order, as the same
    objects, with no test at all; so does a step whose trigger did not hold before and none
    of whose trigger fields is dirty (``_Index``). A visited step tests its trigger afresh;
    a triggered step whose reads avoid ``dirty`` (only a trigger field changed) gives its
    previous output without a call (a rule is a pure function of what it reads and of the
    facts, and the lane is per facts). Each field a step declares differently adds the
    later steps it reaches.

    Unlike a walk that tests every step in turn, nothing is paid for the steps no change
    reaches (most of ~170) beyond landing the ~20 declarations among them.
    """
    steps = plan.steps
    index = plan.index()
    lane = _lane(memo, record, steps)
    n = len(steps)
    new = record.raw.values
    old, basis = lane.inputs, lane.final
    by_trigger, by_rule = index.by_trigger, index.by_rule
    called = lane.called
    dirty: set[str] = set()
    if old is None:
        todo = index.everything
    else:
        dirty.update(k for k, v in new.items()
                     if (w := old.get(k, _MISSING)) is not v
                     and (type(w) is not type(v) or w != v))
        dirty.update(k for k in old if k not in new)
        todo = 0
        for name in dirty:
            todo |= by_trigger.get(name, 0) | (by_rule.get(name, 0) & called)
        if lane.stop < n:  # past where the previous run stopped, every step runs
            todo |= index.from_step(lane.stop)
    lane.inputs = dict(new)  # a copy: a caller may change its input afterwards
    lane.final = None  # until this run goes through
    stash, warnings, launcher = result.declarations, result.warnings, result.launcher
    overlay = result._overlay
    if not todo and basis is not None:  # no step can see a change: the previous plan again
        stash.extend(basis.declarations)
        warnings.extend(basis.warnings)
        launcher.extend(basis.launcher)
        overlay.update(basis.declared())  # over this input (fields no step reads)
        same = basis if not dirty else SamePlan(basis.declarations, basis.warnings,
                                                basis.launcher)
        lane.final = result.extras[SAME_PLAN] = same
        return
    keys = overlay.keys()  # a live view: grows as declarations land
    view = View(record)
    values_of = view.__dict__
    depends = index.depends
    outs = lane.outs  # updated in place: only a visited step's entry changes
    known = lane.stop  # entries before it are the previous run's outputs
    before_made = lane.made
    made: list[int] = []
    lane.made = made
    pending: list[Declaration] = []  # a batch's declarations, landed when it ends
    batch: str | None = None
    p, count = 0, len(before_made)
    at = -1
    try:
        while True:
            if todo:
                low = todo & -todo
                todo ^= low
                at = low.bit_length() - 1
            else:
                at = n
            while p < count and before_made[p] < at:  # unvisited steps: as before
                i = before_made[p]
                p += 1
                if pending:
                    _land_again(pending, stash, values_of, overlay)
                    batch = None
                out, decl = outs[i]
                if type(out) is not dict:
                    _notes(steps[i][0], out, warnings, launcher)
                if decl is not None:
                    stash.append(decl)
                    values_of.update(decl.fields)
                    overlay.update(decl.fields)
                made.append(i)
            if at == n:
                break
            if p < count and before_made[p] == at:
                p += 1
            spec, func, triggers, trigger_values, spec_batch = steps[at]
            if batch is not None and spec_batch != batch:  # land before anything reads on
                _land_again(pending, stash, values_of, overlay)
                batch = None
            before = outs[at] if at < known else _UNKNOWN
            now: Any = before
            if triggers and (keys.isdisjoint(triggers) or (
                    trigger_values is not None and not _admitted(trigger_values, overlay))):
                now = None
            elif before is None or before is _UNKNOWN or not depends[at].isdisjoint(dirty):
                try:
                    now = _entry(spec, func(view), result)
                except LaunchplanError:
                    raise
                except Exception as exc:  # a rule bug: name it, never a bare traceback
                    raise RuleCrash(spec.name, exc) from exc
            if now is not before:
                if now is None:
                    called &= ~low
                else:
                    called |= low
                later = ~((low << 1) - 1)
                for name in _changed(now, before):
                    dirty.add(name)
                    todo |= (by_trigger.get(name, 0) | (by_rule.get(name, 0) & called)) & later
                outs[at] = now
            if now is not None and (out := now[0]) is not None:
                if type(out) is not dict:
                    _notes(spec, out, warnings, launcher)
                decl = now[1]
                if decl is not None:
                    if spec_batch is not None:
                        batch = spec_batch
                        pending.append(decl)
                    else:
                        stash.append(decl)
                        values_of.update(decl.fields)
                        overlay.update(decl.fields)
                made.append(at)
        _land_again(pending, stash, values_of, overlay)
    except BaseException:
        lane.stop = at  # the next run reuses what came before this step
        lane.called = called
        raise
    lane.stop = n
    lane.called = called
    lane.final = same = SamePlan(tuple(stash), tuple(warnings), tuple(launcher))
    result.extras[SAME_PLAN] = same


def _admitted(trigger_values: Any, overlay: dict[str, Any]) -> bool:
    for name, allowed in trigger_values:
        if name in overlay and overlay[name] in allowed:
            return True
    return False


def _entry(spec: RuleSpec, out: Any, result: Result) -> tuple[Any, Declaration | None]:
    """A rule's output as a lane keeps it, checked as ``run`` checks it; a refusal (other
    than a launcher check's) raises here."""
    kind = type(out)
    if out is None:
        return (None, None)
    if kind is dict:
        fields, note = out, None
    elif kind is Declare:
        fields, note = out.fields, out.note
    elif kind is Refuse and spec.phase is Phase.LAUNCHER:
        return (out, None)
    else:
        _stop_or_warn(spec, out, result, False)  # raises
    if not fields:
        return (out, None)
    if not spec.writes.issuperset(fields):
        _stray(spec, fields)
    return (out, Declaration(spec.name, fields, note, spec.normalizes, _NO_READS))


def _notes(spec: RuleSpec, out: Any, warnings: list[str], launcher: list[Any]) -> None:
    """What an output other than a plain dict adds besides declarations: a note's warning,
    or a launcher check's refusal (a warning, as ``run`` gives it)."""
    if type(out) is Declare:
        if out.note:
            warnings.append(out.note)
    else:
        warnings.append(f"SGLang's launcher will refuse this at start-up: {out.message}")
        launcher.append((spec.name, out.message, out.requirement))


def _land_again(pending: list[Declaration], stash: list[Declaration],
                values_of: dict[str, Any], overlay: dict[str, Any]) -> None:
    for decl in pending:
        stash.append(decl)
        values_of.update(decl.fields)
        overlay.update(decl.fields)
    pending.clear()


def _changed(now: Any, before: Any) -> list[str]:
    """The fields whose declared values differ between two entries of a step."""
    now_fields = now[1].fields if now is not None and now[1] is not None else _NO_READS
    if before is _UNKNOWN:
        return list(now_fields)
    then = before[1].fields if before is not None and before[1] is not None else _NO_READS
    out = [name for name in then if name not in now_fields]
    for name, value in now_fields.items():
        was = then.get(name, _MISSING)
        if was is not value and (type(was) is not type(value) or was != value):
            out.append(name)
    return out


#: ``Result.extras`` key, on a traced result, of the rule steps admitted for its target and
#: model that declared nothing: rule name -> the values it read, or None when its trigger
#: did not hold (it was not called).
QUIET = "quiet steps"


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
