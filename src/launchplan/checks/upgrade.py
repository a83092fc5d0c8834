"""``check --upgrade OLD:NEW``: what an upgrade changes, grouped by the rules responsible.

Every point of a space is resolved under both rule sets; a point whose effective
configuration (or whose refusal) differs joins the group of the fields that changed and the
rules that decided them on the new side, with the smallest example kept: the release-notes
table an operator reads before upgrading.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from launchplan.checks.effective import candidate_fields, effective
from launchplan.checks.space import Point
from launchplan.errors import InputError, Refusal


@dataclass
class Change:
    fields: tuple[str, ...]
    rules: tuple[str, ...]
    count: int = 0
    example: Point | None = None
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)

    def add(self, point: Point, before: dict[str, Any], after: dict[str, Any]) -> None:
        self.count += 1
        if self.example is None or len(point.fields) < len(self.example.fields):
            self.example, self.before, self.after = point, before, after

    def to_dict(self) -> dict[str, Any]:
        assert self.example is not None
        return {"fields": list(self.fields), "rules": list(self.rules), "points": self.count,
                "example": {"gpu": self.example.gpu, "model": self.example.model,
                            "argv": self.example.argv()},
                "before": self.before, "after": self.after}


@dataclass
class UpgradeReport:
    old: str
    new: str
    points: int = 0
    unchanged: int = 0
    changes: dict[tuple[tuple[str, ...], tuple[str, ...]], Change] = field(default_factory=dict)

    def groups(self) -> list[Change]:
        return sorted(self.changes.values(), key=lambda c: (-c.count, c.fields))

    def to_dict(self) -> dict[str, Any]:
        return {"old": self.old, "new": self.new, "points": self.points,
                "unchanged": self.unchanged, "changed": self.points - self.unchanged,
                "groups": [c.to_dict() for c in self.groups()]}


def _outcome(resolve: Any, point: Point) -> tuple[Any, str | None]:
    try:
        return resolve(point), None
    except Refusal as exc:
        return None, f"refused by {exc.source}"
    except InputError as exc:
        return None, f"bad input: {exc.message}"


def run_upgrade(points: Sequence[Point], old: str, new: str) -> UpgradeReport:
    from launchplan.checks.runner import point_resolver

    before_of, after_of = point_resolver(old), point_resolver(new)
    report = UpgradeReport(old, new)
    for point in points:
        report.points += 1
        a, a_refused = _outcome(before_of, point)
        b, b_refused = _outcome(after_of, point)
        if a is None or b is None:
            if a_refused == b_refused:
                report.unchanged += 1
                continue
            rules = (b_refused or "resolves",)
            key = (("(resolution)",), rules)
            entry = report.changes.setdefault(key, Change(*key))
            entry.add(point, {"(resolution)": a_refused or "resolves"},
                      {"(resolution)": b_refused or "resolves"})
            continue
        names = candidate_fields((a, b))
        left, right = effective(a, names), effective(b, names)
        moved = tuple(sorted(f for f in set(left) | set(right) if left.get(f) != right.get(f)))
        if not moved:
            report.unchanged += 1
            continue
        rules = tuple(sorted(({b.source(f) for f in moved} | {a.source(f) for f in moved})
                             - {"default", "input"}))
        key = (moved, rules)
        entry = report.changes.setdefault(key, Change(*key))
        entry.add(point, {f: left.get(f) for f in moved}, {f: right.get(f) for f in moved})
    return report
