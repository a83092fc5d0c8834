"""Incremental resolution (``check`` and ``sweep``) changes no outcome.

The early cut-off in ``engine.pipeline`` reuses a rule's previous output when none of the
fields it can read (``reads=`` plus every field name its code and helpers mention) differs
from the previous resolution at the same step; a repeated input's plan shares its
preflight verdict (``SamePlan``). Both are checked the way
``test_skipping*.py`` checks skipping: on thousands of
points of ``check``'s default space, with random extra flags on some, resolved both ways in
neighbour order (as ``check`` walks them) and in random order.

The cut-off trusts those read sets; the first test holds them to what rules really read,
recorded by a proxy view on every rule call over the same kind of points (``reads=`` alone
missed fields: ``cuda_graph_sizing`` reading ``cuda_graph_bs_prefill`` through
``is_locked``, ``dflash_draft_backend`` reading ``device``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from launchplan.checks.preflight import preflight
from launchplan.checks.runner import check_points, in_order, point_resolver
from launchplan.checks.space import Point, Space, default_models
from launchplan.engine.pipeline import _mentioned, run
from launchplan.errors import InputError, LaunchplanError, Refusal
from launchplan.facts.targets import SIMULATED, get_target
from launchplan.input.cli import parse_argv
from launchplan.input.fields import FIELDS
from launchplan.planner import build_raw, build_record
from launchplan.rulesets import get_ruleset
from tests.engine.test_skipping_parity import _rule_fields, random_line

COMPATS = ("default", "0.5.23")
SPACE_POINTS = 1500  # per compat, from the default space
EXTRA_POINTS = 700  # per compat, default-space points with random extra flags


def _points(seed: int, plain: int, extra: int) -> list[Point]:
    """Default-space points, then points of the same space with 1-6 random extra flags."""
    space = Space(list(SIMULATED), default_models())
    out = space.sample(plain + extra, seed=seed)
    rng = random.Random(seed)
    triggers, reads = _rule_fields()
    for i in range(plain, plain + extra):
        point = out[i]
        try:
            added = parse_argv(random_line(rng, triggers, reads)).values
        except InputError:
            continue
        fields = {**point.as_dict(), **added}
        out[i] = Point(point.gpu, point.model, tuple(fields.items()))
    return out


def outcome(call: Callable[[], Any], tail: Callable[[Any], Any]) -> tuple:
    """Everything a resolution produced (or the refusal or error it ended in), comparable
    between two ways of resolving; ``tail`` adds what a test also compares."""
    try:
        result = call()
    except Refusal as refusal:
        return ("refused", refusal.source, refusal.message,
                [(d.source, d.fields, d.note) for d in refusal.result.declarations],
                list(refusal.result.warnings), list(refusal.result.launcher))
    except InputError as exc:
        return ("bad input", str(exc))
    except LaunchplanError as exc:
        return ("error", type(exc).__name__, str(exc))
    return ("ok", result.resolved(), [(d.source, d.fields, d.note) for d in result.declarations],
            list(result.warnings), list(result.launcher), tail(result))


def _outcome(resolve: Any, point: Point, fields: dict[str, Any] | None = None) -> tuple:
    return outcome(lambda: resolve(point, fields),
                   lambda result: preflight(result, shared=False).to_dict())


# --- reads= is what rules read ------------------------------------------------------------------


class _EnvOnly:
    """``view.record`` as rules may use it: for the environment (a fact of the memo)."""

    def __init__(self, record: Any, strays: set[str]) -> None:
        self._record, self._strays = record, strays

    def __getattr__(self, name: str) -> Any:
        if name not in ("env", "env_flag"):
            self._strays.add(f"record.{name}")
        return getattr(self._record, name)


class _Recording:
    """The view, recording every field, explicitness and raw value a rule asks for."""

    FACTS = frozenset({"target", "model", "draft", "env", "compat"})

    def __init__(self, view: Any) -> None:
        self.__dict__["_view"] = view
        self.__dict__["read"] = set()
        self.__dict__["strays"] = set()

    def __getattr__(self, name: str) -> Any:
        view = self.__dict__["_view"]
        if name in FIELDS:
            self.read.add(name)
        elif name == "record":
            return _EnvOnly(view.record, self.strays)
        elif name not in self.FACTS:
            self.strays.add(name)
        return getattr(view, name)

    def __getitem__(self, name: str) -> Any:
        self.read.add(name)
        return self.__dict__["_view"][name]

    def get(self, name: str, default: Any = None) -> Any:
        self.read.add(name)
        return self.__dict__["_view"].get(name, default)

    def explicit(self, name: str) -> bool:
        self.read.add(name)
        return self.__dict__["_view"].explicit(name)

    def raw(self, name: str) -> Any:
        self.read.add(name)
        return self.__dict__["_view"].raw(name)


def read_gaps(compat: str, points: list[Point]) -> tuple[dict[str, set[str]],
                                                        dict[str, set[str]]]:
    """Resolve the points with every rule of a rule set behind a recording proxy: the fields
    each rule read beyond its read set (``reads=`` and every name its code mentions), and
    its reaches past fields and facts."""
    unlisted: dict[str, set[str]] = {}
    strays: dict[str, set[str]] = {}
    rules = []
    for spec in get_ruleset(compat).rules():
        def recorded(view: Any, spec: Any = spec,
                     can_read: frozenset[str] = spec.reads | _mentioned(spec.func)) -> Any:
            proxy = _Recording(view)
            out = spec.func(proxy)
            if not proxy.read <= can_read:
                unlisted.setdefault(spec.name, set()).update(proxy.read - can_read)
            if proxy.strays:
                strays.setdefault(spec.name, set()).update(proxy.strays)
            return out
        rules.append(spec.replace(func=recorded))
    for point in points:
        try:
            raw = build_raw((), point.as_dict(), point.model, compat=compat)
            run(build_record(raw, get_target(point.gpu), compat=compat), rules, skip=False)
        except LaunchplanError:
            pass
    return unlisted, strays


def test_read_sets_cover_every_read():
    for n, compat in enumerate(COMPATS):
        unlisted, strays = read_gaps(compat, _points(20 + n, 1500, 700))
        assert not unlisted, f"rules read fields their read sets miss: {unlisted}"
        assert not strays, f"rules reach past fields and facts: {strays}"


# --- incremental resolution == resolution from scratch ------------------------------------------


def test_incremental_resolution_changes_nothing():
    for n, compat in enumerate(COMPATS):
        points = _points(40 + n, SPACE_POINTS, EXTRA_POINTS)
        rng = random.Random(n)
        orders = [in_order(points)]
        if compat == "default":  # and once in random order: neighbours that differ a lot
            orders.append(rng.sample(points, len(points)))
        for order in orders:
            fresh = point_resolver(compat, incremental=False)
            incremental = point_resolver(compat)
            for point in order:
                assert _outcome(incremental, point) == _outcome(fresh, point), point


@pytest.mark.parametrize("compat", ["0.5.22", "0.5.21"])
def test_older_rule_sets_resolve_the_same_incrementally(compat):
    """The older releases' rule lists (their own steps, batches and variants) under the
    same walk, in check's order, both lanes."""
    from launchplan.checks.idempotence import pinned_fields

    fresh = point_resolver(compat, incremental=False)
    incremental = point_resolver(compat)
    for point in in_order(_points(50, 400, 150)):
        first = _outcome(incremental, point)
        assert first == _outcome(fresh, point), point
        if first[0] == "ok":
            pinned = pinned_fields(fresh(point))
            assert _outcome(incremental, point, pinned) == _outcome(fresh, point, pinned), point


def test_incremental_pinned_plans_change_nothing():
    """``check``'s second lane: each point's own plan pinned, resolved again."""
    from launchplan.checks.idempotence import pinned_fields

    fresh = point_resolver("default", incremental=False)
    incremental = point_resolver("default")
    for point in in_order(_points(60, 1500, 500)):
        try:
            first = fresh(point)
        except LaunchplanError:
            continue
        pinned = pinned_fields(first)
        incremental(point)  # the first lane moves on, as in check
        assert _outcome(incremental, point, pinned) == _outcome(fresh, point, pinned), point


@pytest.mark.parametrize("compat", ["default", "0.5.22", "0.5.21"])
def test_shared_preflight_changes_no_verdict(compat):
    """A plan's preflight verdict as ``check`` and ``sweep`` get it (shared by every repeat
    of its input, through ``SamePlan``) against every row evaluated afresh: points resolved
    incrementally in check's order, then in random order (neighbours that differ a lot),
    each plan, its pinned re-resolution (the second lane) and a repeat of its input (which
    takes the shared verdict) preflighted both ways."""
    from launchplan.checks.idempotence import pinned_fields
    from launchplan.engine.pipeline import SAME_PLAN

    resolve = point_resolver(compat)
    points = _points(80, 900, 300)
    shared = 0
    for point in in_order(points) + random.Random(3).sample(points, 300):
        try:
            result = resolve(point)
            first = preflight(result).to_dict()
            again = resolve(point, pinned_fields(result))
            repeat = resolve(point)
        except LaunchplanError:
            continue
        shared += repeat.extras[SAME_PLAN] is result.extras[SAME_PLAN]
        assert first == preflight(result, shared=False).to_dict(), point
        for plan in (again, repeat):
            fresh = preflight(plan, shared=False).to_dict()
            assert preflight(plan).to_dict() == fresh, point
    assert shared > 500


def test_check_reports_the_same_incrementally(monkeypatch):
    import launchplan.checks.runner as runner

    points = in_order(_points(90, 1000, 200))
    incremental = check_points(points, "default").to_dict()
    plain = runner.point_resolver
    monkeypatch.setattr(runner, "point_resolver",
                        lambda compat, incremental=True: plain(compat, incremental=False))
    monkeypatch.setattr(runner, "preflight",
                        lambda result, requirements=None: preflight(result, shared=False))
    assert check_points(points, "default").to_dict() == incremental
