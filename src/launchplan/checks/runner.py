"""``check``'s engine: resolve every point of a space and classify what goes wrong.

Problem kinds: a preflight severity (``fails-at-start``, ``runtime-error``, ``degraded``:
a plan breaks a requirement of the table, or SGLang's launcher checks), ``crash`` (a rule
raised instead of refusing), ``non-idempotent`` (resolving the plan's own values again
changes them, beyond SGLang's listed exceptions) and ``non-deterministic`` (the same input
resolved twice differs). Refusals are not problems: SGLang refuses those launches too.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from launchplan.checks.effective import candidate_fields, same_effective
from launchplan.checks.idempotence import (
    differences,
    pinned_fields,
    refuses_when_pinned,
    unexpected,
)
from launchplan.checks.predicates import Severity
from launchplan.checks.preflight import preflight
from launchplan.checks.space import Point, Space
from launchplan.errors import InputError, Refusal
from launchplan.facts.models.snapshots import shown_model

DETERMINISM_EVERY = 16  # re-resolve every Nth point from scratch to compare


SEVERITY_KINDS = frozenset(s.value for s in Severity)


@dataclass
class ProblemClass:
    kind: str  # a preflight severity, or crash / non-idempotent / non-deterministic
    requirement: str
    sources: tuple[str, ...]
    count: int = 0
    example: Point | None = None
    detail: str = ""
    verified: bool = True

    def failing(self, fail_on: Severity = Severity.RUNTIME_ERROR) -> bool:
        """Whether this class fails the check: engine defects always do; preflight problems
        when verified and at least as bad as ``fail_on``."""
        if self.kind not in SEVERITY_KINDS:
            return True
        return self.verified and Severity(self.kind).rank <= fail_on.rank

    def add(self, point: Point, detail: str) -> None:
        self.count += 1
        if self.example is None or len(point.fields) < len(self.example.fields):
            self.example, self.detail = point, detail

    def to_dict(self) -> dict[str, Any]:
        assert self.example is not None
        return {"kind": self.kind, "requirement": self.requirement, "verified": self.verified,
                "sources": list(self.sources), "count": self.count,
                "example": {"gpu": self.example.gpu, "model": shown_model(self.example.model),
                            "argv": self.example.argv(),
                            **({"compat": self.example.compat} if self.example.compat else {})},
                "detail": self.detail}


@dataclass
class Report:
    points: int = 0
    refused: int = 0
    bad_input: int = 0
    classes: dict[tuple[str, str, tuple[str, ...]], ProblemClass] = field(default_factory=dict)

    def add(self, kind: str, requirement: str, sources: Sequence[str], point: Point,
            detail: str = "", verified: bool = True) -> None:
        key = (kind, requirement, tuple(sources))
        entry = self.classes.get(key)
        if entry is None:
            entry = self.classes[key] = ProblemClass(kind, requirement, tuple(sources),
                                                     verified=verified)
        entry.add(point, detail)

    def merge(self, other: Report) -> None:
        self.points += other.points
        self.refused += other.refused
        self.bad_input += other.bad_input
        for key, entry in other.classes.items():
            mine = self.classes.get(key)
            if mine is None:
                self.classes[key] = entry
                continue
            assert entry.example is not None
            count = mine.count
            mine.add(entry.example, entry.detail)
            mine.count = count + entry.count

    def problems(self) -> list[ProblemClass]:
        return sorted(self.classes.values(), key=lambda c: (_kind_rank(c.kind),
                                                            not c.verified, c.requirement,
                                                            -c.count))

    def failing(self, fail_on: Severity = Severity.RUNTIME_ERROR) -> list[ProblemClass]:
        return [c for c in self.problems() if c.failing(fail_on)]

    def counts(self) -> dict[str, int]:
        """Points per kind; unverified preflight problems are counted on their own."""
        out: dict[str, int] = {}
        for c in self.classes.values():
            key = c.kind if c.verified else "unverified"
            out[key] = out.get(key, 0) + c.count
        return dict(sorted(out.items(), key=lambda kv: _kind_rank(kv[0])))

    def to_dict(self, fail_on: Severity = Severity.RUNTIME_ERROR) -> dict[str, Any]:
        return {"points": self.points, "refused": self.refused, "bad_input": self.bad_input,
                "fail_on": fail_on.value, "counts": self.counts(),
                "failing": len(self.failing(fail_on)),
                "problems": [{**p.to_dict(), "failing": p.failing(fail_on)}
                             for p in self.problems()]}


_KIND_ORDER = ("crash", "non-deterministic", "non-idempotent", "refused", "fails-at-start",
               "runtime-error", "degraded", "unverified")


def _kind_rank(kind: str) -> int:
    return _KIND_ORDER.index(kind) if kind in _KIND_ORDER else len(_KIND_ORDER)


def point_resolver(compat: str, *, incremental: bool = True
                   ) -> Callable[..., Any]:
    """A function resolving a point (or, given ``fields``, that point's target and model
    with those fields as the whole input).

    ``incremental``: rules are remembered across this resolver's resolutions by what they
    actually read (``engine.pipeline``'s early cut-off), so points that differ in a few
    fields re-run only the rules those fields reach. ``fresh=True`` resolves from scratch,
    every rule called (the determinism check compares against it). ``settled=True`` (the
    idempotence check's pinned plans) first asks whether the input is a fixed point of the
    rules (``engine.fixed_point``): if it is, the result holds the input as its values,
    which are the resolution's, and nothing is resolved.
    """
    from launchplan.engine.fixed_point import fixed_point
    from launchplan.engine.pipeline import run
    from launchplan.facts.targets import get_target
    from launchplan.planner import build_raw, build_record
    from launchplan.rulesets import get_ruleset

    targets: dict[str, Any] = {}
    # per rule set: its rules and three lanes: points follow points, pinned plans follow
    # pinned plans (each differs little from the one before it; a point and its own pinned
    # plan differ a lot), and the pinned plans' fixed-point verdicts. A point may name its
    # own rule set (the ``compat`` axis).
    per_compat: dict[str, tuple[Any, tuple[dict[Any, Any], ...] | None]] = {}

    def resolve(point: Point, fields: dict[str, Any] | None = None, *,
                fresh: bool = False, settled: bool = False):
        chosen = point.compat or compat
        entry = per_compat.get(chosen)
        if entry is None:
            entry = per_compat[chosen] = (get_ruleset(chosen).rules(),
                                          ({}, {}, {}) if incremental else None)
        rules, lanes = entry
        target = targets.get(point.gpu)
        if target is None:
            target = targets[point.gpu] = get_target(point.gpu)
        raw = build_raw((), fields if fields is not None else point.as_dict(), point.model,
                        compat=chosen)
        record = build_record(raw, target, compat=chosen)
        if fresh or lanes is None:  # fresh: no folded step may hide a change either
            return run(record, rules, fold=not fresh)
        if settled:
            found = fixed_point(record, rules, lanes[2])
            if found is not None:
                return found
        return run(record, rules, memo=lanes[fields is not None])

    return resolve


def check_points(points: Iterable[Point], compat: str, start_index: int = 0) -> Report:
    """Resolve and check each point; one process, in order."""
    from launchplan.engine.pipeline import RuleCrash

    resolve = point_resolver(compat)
    report = Report()
    _settle()
    for index, point in enumerate(points, start_index):
        report.points += 1
        try:
            result = resolve(point)
        except Refusal:
            report.refused += 1
            continue
        except InputError:
            report.bad_input += 1
            continue
        except RuleCrash as crash:
            report.add("crash", crash.source, (crash.source,), point, str(crash))
            continue
        for problem in preflight(result).problems:
            detail = ", ".join(f"{k}={v}" for k, v in problem.values.items()) or problem.why
            report.add(problem.severity.value, problem.requirement, problem.rules, point,
                       detail, problem.verified)
        _check_idempotence(result, point, resolve, report)
        if index % DETERMINISM_EVERY == 0:
            _check_determinism(result, point, resolve, report)
    return report


def _settle() -> None:
    """Take what is loaded so far (flag tables, rules, model and GPU facts: alive for the
    whole run) out of the cyclic collector's sweeps. A check allocates steadily, and every
    full collection would walk those objects again for nothing (a few percent of a run)."""
    import gc

    if not _SETTLED:
        gc.freeze()  # once per process: later chunks add only their own short-lived objects
        _SETTLED.append(True)


_SETTLED: list[bool] = []


def _check_idempotence(result: Any, point: Point, resolve: Any, report: Report) -> None:
    from launchplan.engine.pipeline import RuleCrash

    pinned = pinned_fields(result)
    try:
        again = resolve(point, pinned, settled=True)
    except (Refusal, InputError, RuleCrash) as exc:
        source = getattr(exc, "source", type(exc).__name__)
        if not refuses_when_pinned(source):
            report.add("non-idempotent", "pinned plan is refused", (source,), point, str(exc))
        return
    diffs = unexpected(differences(result, again, pinned))
    if diffs:
        sources = tuple(sorted({rule for _, _, rule in diffs.values()}))
        detail = "; ".join(f"{k}: {a!r} -> {b!r}" for k, (a, b, _) in sorted(diffs.items()))
        report.add("non-idempotent", "re-resolution changes values", sources, point, detail)


def _check_determinism(result: Any, point: Point, resolve: Any, report: Report) -> None:
    again = resolve(point, fresh=True)  # from scratch: nothing remembered may hide a change
    names = candidate_fields((result, again))
    if not same_effective(result, again, names):
        report.add("non-deterministic", "same input, different plan",
                   tuple(d.source for d in again.declarations), point)


def in_order(points: Sequence[Point]) -> list[Point]:
    """The points in an order where neighbours differ in few fields (a sample comes in
    random order), so incremental resolution reuses what the previous point decided.

    Grouped by target, model and rule set; within a group, a snake (reflected Gray) order
    over the fields set: the field most rules read changes least often, and each field's
    values run up and down alternately, so two neighbours of a whole grid differ in one
    field. On check's default-space sample neighbours differ in 2.4 fields instead of 3.0
    for a plain sort, and both lanes call a fifth fewer rules.
    """
    groups: dict[tuple[str, str, str], list[Point]] = {}
    for point in points:
        groups.setdefault((point.gpu, point.model, point.compat or ""), []).append(point)
    weight = _read_counts()
    out: list[Point] = []
    for key in sorted(groups):
        group = groups[key]
        names = sorted({name for point in group for name, _ in point.fields},
                       key=lambda name: (-weight.get(name, 0), name))
        codes = [_codes(point, names) for point in group]
        out.extend(group[i] for i in _snake(list(range(len(group))), codes, 0, False))
    return out


def _codes(point: Point, names: list[str]) -> tuple[tuple[int, str], ...]:
    """Per field name, a sortable code of the point's value (unset first)."""
    given = dict(point.fields)
    return tuple((1, repr(given[name])) if name in given else (0, "") for name in names)


def _snake(members: list[int], codes: list[tuple[Any, ...]], level: int,
           downward: bool) -> list[int]:
    """``members`` (indexes into ``codes``) ordered by field ``level``, then each run of one
    value ordered by the next field, up and down alternately."""
    if len(members) <= 1 or level == len(codes[members[0]]):
        return members
    runs: dict[Any, list[int]] = {}
    for i in members:
        runs.setdefault(codes[i][level], []).append(i)
    out: list[int] = []
    for n, value in enumerate(sorted(runs, reverse=downward)):
        out.extend(_snake(runs[value], codes, level + 1, n % 2 == 1))
    return out


def _read_counts() -> dict[str, int]:
    """Per field, how many of the default rule set's rules can read it (a field with many
    readers is costly to change: ``in_order`` changes it least often)."""
    if not _READ_COUNTS:
        from launchplan.engine.pipeline import _mentioned
        from launchplan.rulesets import get_ruleset

        for spec in get_ruleset("default").rules():
            for name in spec.reads | _mentioned(spec.func) | set(spec.triggers):
                _READ_COUNTS[name] = _READ_COUNTS.get(name, 0) + 1
    return _READ_COUNTS


_READ_COUNTS: dict[str, int] = {}


def _units(points: Sequence[Point] | Space, size: int) -> Iterator[tuple[int, list[Point]]]:
    """Work units of whole groups (target, model, rule set) in ``in_order``'s group order,
    each of at least ``size`` points (the last may hold fewer), with the index of its first
    point. Each unit is ordered where it runs (``_work``): a unit of whole groups ordered on
    its own is exactly its slice of ``in_order`` of every point, so the walk, and the points
    the determinism check picks by index, are the same, and the ordering (a second of a
    100,000-point check) runs on every core instead of before them. A whole ``Space`` is
    walked group by group as the units are taken (``Space.groups``): the same units, without
    holding its points."""
    start = 0
    unit: list[Point] = []
    for _, members in _groups(points):
        unit.extend(members)
        if len(unit) >= size:
            yield start, unit
            start += len(unit)
            unit = []
    if unit:
        yield start, unit


def _groups(points: Sequence[Point] | Space) -> Iterable[tuple[Any, Iterable[Point]]]:
    if isinstance(points, Space):
        return points.groups()
    groups: dict[tuple[str, str, str], list[Point]] = {}
    for point in points:
        groups.setdefault((point.gpu, point.model, point.compat or ""), []).append(point)
    return sorted(groups.items(), key=lambda item: item[0])


def _size(points: Sequence[Point] | Space) -> int:
    return points.size() if isinstance(points, Space) else len(points)


def _work(args: tuple[int, Sequence[Point], str]) -> Report:
    start, unit, compat = args
    return check_points(in_order(unit), compat, start)


#: The points of a ``check`` on a forked pool, in unit order, set before the workers fork.
_INHERITED: list[list[Point]] = []


def _work_inherited(args: tuple[int, int, str]) -> Report:
    start, end, compat = args
    return _work((start, _INHERITED[0][start:end], compat))


def run_check(points: Sequence[Point] | Space, compat: str, *, jobs: int | None = None,
              progress: bool = False, executor: str = "local",
              ray_address: str | None = None) -> Report:
    """Check every point, on every core (or as Ray tasks); a progress bar on stderr when
    asked. Work units are runs of whole groups of ``in_order``, each ordered where it runs;
    their reports merge. ``points`` may be a whole ``Space``: its units are made as the
    workers take them, and only a few are in flight at a time, so a space of tens of
    millions of points is never held at once."""
    jobs = jobs or os.cpu_count() or 1
    total = _size(points)
    report = Report()
    if executor == "ray":
        size = max(500, min(5000, total // 64 or 1))
        parts: Iterable[Report] = ray_reports(
            ((s, c, compat) for s, c in _units(points, size)), ray_address)
    elif jobs <= 1 or total < 2000:
        parts = (_work((s, c, compat)) for s, c in _units(points, 500))
    else:
        import multiprocessing

        size = max(500, min(5000, total // (jobs * 8) or 1))
        forked = sys.platform != "win32"
        context = multiprocessing.get_context("fork" if forked else "spawn")
        work: Callable[[Any], Report] = _work
        tasks: Iterable[Any] = ((s, c, compat) for s, c in _units(points, size))
        if forked and not isinstance(points, Space):
            # the points, in units, before the workers fork: each inherits them and takes
            # its unit by index (pickling 100,000 points to the workers and back out of
            # the pickles cost about 4% of a check's processor time)
            walked: list[Point] = []
            bounds = []
            for start, unit in _units(points, size):
                walked.extend(unit)
                bounds.append((start, start + len(unit), compat))
            _INHERITED[:] = [walked]
            work, tasks = _work_inherited, bounds
        try:
            with context.Pool(jobs) as pool:
                for part in in_flight(lambda task: pool.apply_async(work, (task,)), tasks,
                                      jobs * IN_FLIGHT_PER_WORKER):
                    report.merge(part.get())
                    progress_bar(progress, report.points, total)
        finally:
            _INHERITED.clear()
        progress_bar(progress, total, total, done=True)
        return report
    for part in parts:
        report.merge(part)
        progress_bar(progress, report.points, total)
    progress_bar(progress, total, total, done=True)
    return report


#: Work units submitted ahead per worker process or Ray CPU (``Pool.imap`` and a list of Ray
#: tasks would take every unit at once: all of a space's points, pickled, in memory).
IN_FLIGHT_PER_WORKER = 4


def in_flight(submit: Callable[[Any], Any], tasks: Iterable[Any], limit: int
              ) -> Iterator[Any]:
    """``submit(task)`` for each task, at most ``limit`` submitted and not yet handed back;
    the handles come back in the tasks' order."""
    from collections import deque

    window: deque[Any] = deque()
    for task in tasks:
        window.append(submit(task))
        if len(window) >= limit:
            yield window.popleft()
    while window:
        yield window.popleft()


def ray_reports(units: Iterable[Any], address: str | None = None, *,
                work: Callable[[Any], Any] | None = None) -> Iterator[Any]:
    """Each unit's report (``work(unit)``; ``check``'s by default), in order, computed as a
    Ray task.

    On the cluster at ``address`` (or ``RAY_ADDRESS``), shipping this launchplan package to
    its workers; without either, on a local instance bound to the loopback address with 2
    CPUs, shut down afterwards. A Ray already initialised in this process is used as is.
    """
    try:
        import ray
    except ImportError:
        raise InputError("--executor", "the ray extra installed (pip install "
                         "'launchplan[ray]')", "ray",
                         message="--executor ray: Ray is not installed "
                         "(pip install 'launchplan[ray]')") from None
    address = address or os.environ.get("RAY_ADDRESS")
    started = False
    if not ray.is_initialized():
        if address:
            import launchplan

            package = os.path.dirname(launchplan.__file__)
            ray.init(address=address, log_to_driver=False,
                     runtime_env={"py_modules": [package]})
        else:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                     _node_ip_address="127.0.0.1")
        started = True
    try:
        task = ray.remote(work or _work)
        cpus = int(ray.cluster_resources().get("CPU", 2))
        for ref in in_flight(task.remote, units, max(2, cpus) * IN_FLIGHT_PER_WORKER):
            yield ray.get(ref)  # in order: each report as soon as its predecessors are in
    finally:
        if started:
            ray.shutdown()


_STARTED: dict[int, float] = {}


def progress_bar(enabled: bool, count: int, total: int, *, done: bool = False) -> None:
    """A one-line progress bar on stderr (only when stderr is a terminal), with the rate
    and the time left; the clock starts at the first call for a given total."""
    if not enabled:
        return
    import time

    now = time.perf_counter()
    started = _STARTED.setdefault(total, now)
    elapsed = now - started
    rate = count / elapsed if elapsed > 0 else 0.0
    left = (total - count) / rate if rate > 0 else 0.0
    width = 30
    filled = int(width * count / total) if total else width
    sys.stderr.write(f"\r  [{'#' * filled}{'.' * (width - filled)}] {count}/{total}  "
                     f"{rate:,.0f} points/s  {_clock(elapsed if done else left)}"
                     f"{' elapsed' if done else ' left'}   ")
    if done:
        sys.stderr.write("\n")
        _STARTED.pop(total, None)
    sys.stderr.flush()


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds + 0.5), 60)
    return f"{minutes}:{secs:02d}"
