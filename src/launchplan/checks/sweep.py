"""Collapse a sweep grid into its distinct effective configurations.

Many points of a grid run identically because rules fold them together (a page size snapped
by a kernel, a backend replaced by a fallback). ``sweep`` resolves every point, groups the
points by effective configuration, and names the rules that made each group collapse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from launchplan.checks.effective import candidate_fields, effective, key_of
from launchplan.checks.space import Point
from launchplan.engine.result import Result
from launchplan.errors import InputError, Refusal


@dataclass
class Group:
    config: dict[str, Any]
    points: list[dict[str, Any]] = field(default_factory=list)
    collapsed_by: dict[str, None] = field(default_factory=dict)
    example: Result | None = None  # one resolved point of the group
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
            out["model"] = point.model
        else:
            out[axis] = given.get(axis)
    return out


def run_sweep(points: Sequence[Point], axes: Sequence[str], compat: str, *,
              progress: bool = False) -> SweepReport:
    from launchplan.checks.preflight import preflight
    from launchplan.checks.runner import point_resolver, progress_bar

    resolve = point_resolver(compat)
    resolved: list[tuple[Point, Result]] = []
    refused: dict[str, list[dict[str, Any]]] = {}
    not_starting: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for n, point in enumerate(points, 1):
        if progress and (n % 200 == 0 or n == len(points)):
            progress_bar(True, n, len(points), done=n == len(points))
        try:
            result = resolve(point)
        except Refusal as exc:
            refused.setdefault(f"{exc.source}: {exc.message}", []).append(
                {**axis_values(point, axes), "verdict": "refused"})
            continue
        except InputError as exc:
            refused.setdefault(f"bad input: {exc.message}", []).append(
                {**axis_values(point, axes), "verdict": "bad input"})
            continue
        report = preflight(result)
        if not report.starts:
            first = next(p for p in report.problems if p.decides)
            not_starting.setdefault((report.verdict, f"{first.requirement}: {first.why}"),
                                    []).append({**axis_values(point, axes),
                                                "verdict": report.verdict})
            continue
        resolved.append((point, result))
    names = candidate_fields(r for _, r in resolved)
    groups: dict[str, Group] = {}
    for point, result in resolved:
        config = effective(result, names)
        group = groups.setdefault(key_of(config), Group(config, example=result))
        group.points.append({**axis_values(point, axes), "verdict": "starts"})
        for axis in axes:
            if axis in ("gpu", "model") or not result.record.raw.explicit(axis):
                continue
            if result.value(axis) != result.record.raw.values[axis]:
                group.collapsed_by[result.source(axis)] = None
    distinct = list(groups.values())
    for group in distinct:
        if len(group.points) == 1:
            group.collapsed_by.clear()
    return SweepReport(len(points), distinct, refused, not_starting)


def column_value(result: Result, name: str) -> Any:
    """A ``--columns`` entry for one configuration: a memory-plan quantity or a field."""
    from launchplan.memory.plan import QUANTITIES, memory_plan

    if name in QUANTITIES:
        plan = memory_plan(result)
        return None if plan is None else plan.to_dict().get(name)
    return result.value_at(name)


def add_columns(report: SweepReport, names: Sequence[str]) -> None:
    for group in report.distinct:
        if group.example is not None:
            group.columns = {n: column_value(group.example, n) for n in names}
