"""Collapse a sweep grid into its distinct effective configurations.

Many points of a grid run identically because rules fold them together (a page size snapped
by a kernel, a backend replaced by a fallback). ``sweep`` resolves every point, groups the
points by effective configuration, and names the rules that made each group collapse.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from launchplan.checks.effective import candidate_names, key_of
from launchplan.checks.space import Point
from launchplan.engine.result import Result, default_value
from launchplan.errors import InputError, Refusal
from launchplan.facts.models.snapshots import shown_model


@dataclass
class Group:
    config: dict[str, Any]
    points: list[dict[str, Any]] = field(default_factory=list)
    collapsed_by: dict[str, None] = field(default_factory=dict)
    first: Point | None = None  # the group's first point (resolved again for --columns)
    compat: str = "default"
    columns: dict[str, Any] = field(default_factory=dict)  # --columns, from ``example``


@dataclass
class SweepReport:
    points: int
    distinct: list[Group]
    refused: dict[str, list[dict[str, Any]]]
    # points that resolve but will not start (preflight), by verdict and first problem
    not_starting: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "points": self.points,
            "distinct": [{"config": g.config, "points": g.points,
                          "collapsed_by": list(g.collapsed_by),
                          **({"columns": g.columns} if g.columns else {})}
                         for g in self.distinct],
            "refused": [{"reason": reason, "points": pts}
                        for reason, pts in self.refused.items()],
            "not_starting": [{"verdict": verdict, "reason": reason, "points": pts}
                             for (verdict, reason), pts in self.not_starting.items()],
        }


def axis_values(point: Point, axes: Sequence[str]) -> dict[str, Any]:
    """The point as ``{axis: value}`` over the swept axes only (unset values as None)."""
    given = point.as_dict()
    out: dict[str, Any] = {}
    for axis in axes:
        if axis == "gpu":
            out["gpu"] = point.gpu
        elif axis == "compat":
            out["compat"] = point.compat
        elif axis == "model":
            out["model"] = shown_model(point.model)
        else:
            out[axis] = given.get(axis)
    return out


@dataclass(frozen=True)
class Outcome:
    """One point of a sweep as a work unit reports it: small and picklable, so units can run
    in other processes or as Ray tasks and merge in order."""

    axes: dict[str, Any]
    verdict: str  # starts / refused / bad input / a preflight verdict
    reason: str = ""
    names: frozenset[str] = frozenset()  # fields explicit or declared in the plan
    idle: frozenset[str] = frozenset()  # fields with no effect in the plan
    values: dict[str, Any] | None = None  # the effective-capable fields among ``names``
    release: str = ""  # whose defaults the other fields take
    collapsed_by: tuple[str, ...] = ()  # rules that changed a swept value


def _effective_universe() -> frozenset[str]:
    from launchplan.checks.effective import NOT_EFFECTIVE
    from launchplan.input.fields import FIELDS

    return frozenset(FIELDS) - NOT_EFFECTIVE


def sweep_unit(args: tuple[Sequence[Point], Sequence[str], str]) -> list[Outcome]:
    """Resolve and preflight a chunk of points (a work unit of ``run_sweep``)."""
    from launchplan.checks.effective import inert
    from launchplan.checks.preflight import preflight
    from launchplan.checks.runner import point_resolver

    points, axes, compat = args
    resolve = point_resolver(compat)
    universe = _effective_universe()
    out: list[Outcome] = []
    for point in points:
        shown = axis_values(point, axes)
        try:
            result = resolve(point)
        except Refusal as exc:
            out.append(Outcome(shown, "refused", f"{exc.source}: {exc.message}"))
            continue
        except InputError as exc:
            out.append(Outcome(shown, "bad input", f"bad input: {exc.message}"))
            continue
        report = preflight(result)
        if not report.starts:
            first = next(p for p in report.problems if p.decides)
            out.append(Outcome(shown, report.verdict, f"{first.requirement}: {first.why}"))
            continue
        raw = result.record.raw
        collapsed = tuple(dict.fromkeys(
            result.source(axis) for axis in axes
            if axis not in ("gpu", "model") and raw.explicit(axis)
            and result.value(axis) != raw.values[axis]))
        names = frozenset(raw.values) | result.declared()
        out.append(Outcome(shown, "starts", names=names, idle=inert(result),
                           values={n: result.value(n) for n in names & universe},
                           release=raw.release, collapsed_by=collapsed))
    return out


def _units(points: Sequence[Point], size: int) -> Iterator[Sequence[Point]]:
    for start in range(0, len(points), size):
        yield points[start:start + size]


def run_sweep(points: Sequence[Point], axes: Sequence[str], compat: str, *,
              progress: bool = False, jobs: int = 1, executor: str = "local",
              ray_address: str | None = None) -> SweepReport:
    """Resolve every point (in work units: here, on ``jobs`` processes, or as Ray tasks) and
    group the points that start by their effective configuration."""
    from launchplan.checks.runner import progress_bar, ray_reports

    size = max(50, min(2000, len(points) // (max(jobs, 2) * 8) or 1))
    units = [(chunk, tuple(axes), compat) for chunk in _units(points, size)]
    parts: Iterable[list[Outcome]]
    if executor == "ray":
        parts = ray_reports(units, ray_address, work=sweep_unit)
    elif jobs > 1 and len(units) > 1:
        import multiprocessing

        context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
        with context.Pool(min(jobs, len(units))) as pool:
            parts = list(pool.imap(sweep_unit, units))
    else:
        parts = (sweep_unit(unit) for unit in units)
    outcomes: list[Outcome] = []
    for part in parts:
        outcomes.extend(part)
        if progress:
            progress_bar(True, len(outcomes), len(points), done=len(outcomes) == len(points))
    return _grouped(outcomes, points, axes, compat)


def _grouped(outcomes: Sequence[Outcome], points: Sequence[Point], axes: Sequence[str],
             compat: str) -> SweepReport:
    refused: dict[str, list[dict[str, Any]]] = {}
    not_starting: dict[tuple[str, str], list[dict[str, Any]]] = {}
    started: list[tuple[Point, Outcome]] = []
    for point, outcome in zip(points, outcomes, strict=True):
        if outcome.verdict in ("refused", "bad input"):
            refused.setdefault(outcome.reason, []).append(
                {**outcome.axes, "verdict": outcome.verdict})
        elif outcome.verdict != "starts":
            not_starting.setdefault((outcome.verdict, outcome.reason), []).append(
                {**outcome.axes, "verdict": outcome.verdict})
        else:
            started.append((point, outcome))
    names = candidate_names((o.names, o.idle) for _, o in started)
    groups: dict[str, Group] = {}
    firsts: dict[str, Point] = {}
    for point, outcome in started:
        assert outcome.values is not None
        given = outcome.values
        config = {n: given[n] if n in given else default_value(outcome.release, n)
                  for n in names}
        key = key_of(config)
        group = groups.get(key)
        if group is None:
            group = groups[key] = Group(config)
            firsts[key] = point
        group.points.append({**outcome.axes, "verdict": "starts"})
        group.collapsed_by.update(dict.fromkeys(outcome.collapsed_by))
    for key, group in groups.items():
        if len(group.points) == 1:
            group.collapsed_by.clear()
        group.first = firsts[key]
        group.compat = compat
    return SweepReport(len(points), list(groups.values()), refused, not_starting)


def column_value(result: Result, name: str) -> Any:
    """A ``--columns`` entry for one configuration: a memory-plan quantity or a field."""
    from launchplan.memory.plan import QUANTITIES, memory_plan

    if name in QUANTITIES:
        plan = memory_plan(result)
        return None if plan is None else plan.to_dict().get(name)
    return result.value_at(name)


def add_columns(report: SweepReport, names: Sequence[str]) -> None:
    """Fill each configuration's ``--columns`` from its first point, resolved again here
    (one resolution per configuration, wherever the points ran)."""
    from launchplan.checks.runner import point_resolver

    resolvers: dict[str, Any] = {}
    for group in report.distinct:
        if group.first is None:
            continue
        resolve = resolvers.get(group.compat)
        if resolve is None:
            resolve = resolvers[group.compat] = point_resolver(group.compat)
        example = resolve(group.first)
        group.columns = {n: column_value(example, n) for n in names}
