"""Reusing the unchanged pipeline prefix (and the whole plan of a repeated input) changes no
outcome.

``planner.resolve`` is incremental by default: against the previous resolution with the same
facts it replays every step before the first one a changed field can reach, and gives a
repeated input the previous plan again. Checked the way ``test_skipping*.py`` checks
skipping: thousands of default-space points (some with random extra flags), each resolved
incrementally in a sequence that repeats inputs, drops a flag, adds one no rule reads and
one a late rule reads, against a resolution from scratch of the same input.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from launchplan.checks.space import Point
from launchplan.planner import resolve
from tests.engine.test_incremental import _points, outcome, read_gaps

POINTS = 600
#: a field no rule reads (only the memory plan does), and one only late rules read
UNREAD, LATE = ("max_mamba_cache_size", 200), ("max_running_requests", 64)


def _outcome(point: Point, fields: dict[str, Any], incremental: bool,
             compat: str = "default") -> tuple:
    return outcome(lambda: resolve(fields=fields, gpu=point.gpu, model_path=point.model,
                                   incremental=incremental, compat=compat),
                   lambda result: result.declared())


def _variants(point: Point, rng: random.Random) -> list[dict[str, Any]]:
    """The point, again, with a flag dropped, with an unread and a late field added."""
    given = point.as_dict()
    out = [given, dict(given)]
    if given:
        dropped = dict(given)
        dropped.pop(rng.choice(sorted(dropped)))
        out.append(dropped)
    out += [{**given, UNREAD[0]: UNREAD[1]}, {**given, LATE[0]: LATE[1]}, given]
    return out


def test_prefix_and_repeat_reuse_change_nothing():
    rng = random.Random(7)
    points = _points(70, POINTS, 200)
    for point in points[:POINTS // 2] + rng.sample(points, len(points) // 2):
        for fields in _variants(point, rng):
            fresh = _outcome(point, fields, incremental=False)
            assert _outcome(point, fields, incremental=True) == fresh, (point, fields)


@pytest.mark.parametrize("compat", ["0.5.22", "0.5.21"])
def test_older_releases_resolve_the_same_incrementally(compat):
    """The older releases' rule variants (some read fields 0.5.23 no longer has) under the
    same replay, and their read sets held to what a proxy records, as for 0.5.23."""
    rng = random.Random(11)
    points = _points(90, 40, 20)
    for point in points + rng.sample(points, 20):
        for fields in _variants(point, rng):
            fresh = _outcome(point, fields, False, compat)
            assert _outcome(point, fields, True, compat) == fresh, (point, fields)


@pytest.mark.parametrize("compat", ["0.5.22", "0.5.21"])
def test_older_releases_read_sets_cover_every_read(compat):
    unlisted, strays = read_gaps(compat, _points(95, 300, 200))
    assert not unlisted, f"rules read fields their read sets miss: {unlisted}"
    assert not strays, f"rules reach past fields and facts: {strays}"


def test_repeated_input_gets_its_own_plan_object():
    """A repeated input's plan is a new result: changing one (``resolve`` adds warnings)
    changes neither the next nor the one before."""
    first = resolve(gpu="h100", model_path="llama-3.1-8b")
    first.warnings.append("added by a caller")
    second = resolve(gpu="h100", model_path="llama-3.1-8b")
    assert "added by a caller" not in second.warnings
    assert second is not first and second.declarations is not first.declarations
    fresh = resolve(gpu="h100", model_path="llama-3.1-8b", incremental=False)
    assert second.resolved() == fresh.resolved()
    assert [(d.source, d.fields) for d in second.declarations] == \
        [(d.source, d.fields) for d in fresh.declarations]


def test_repeats_share_their_plans_analyses_and_only_those():
    """A repeated input's memory plan and preflight verdict equal its first plan's (the
    fixes' resolutions ran in between, so it is not a consecutive repeat); a report is still
    each caller's own (fixes are added to it), and a changed input gets its own."""
    from launchplan.checks.preflight import preflight, with_fixes
    from launchplan.memory.plan import memory_plan

    argv = ["--tp-size", "3"]  # two problems: heads and the MLP do not split over 3
    first = resolve(argv, gpu="h100", model_path="llama-3.1-8b")
    report = with_fixes(preflight(first), first, lambda extra: resolve(
        argv, fields=extra, gpu="h100", model_path="llama-3.1-8b"))
    assert {"tp_size": 1} in report.problems[0].fixes
    again = resolve(argv, gpu="h100", model_path="llama-3.1-8b")
    repeated = preflight(again)
    fresh = resolve(argv, gpu="h100", model_path="llama-3.1-8b", incremental=False)
    assert repeated.problems and repeated.problems[0].fixes == []
    assert repeated.to_dict() == preflight(fresh, shared=False).to_dict()
    assert memory_plan(again) == memory_plan(first) == memory_plan(fresh)
    other = resolve(["--tp-size", "2"], gpu="h100", model_path="llama-3.1-8b")
    assert preflight(other).problems == [] and memory_plan(other) != memory_plan(first)


def test_threads_keep_their_own_previous_resolution():
    """Each thread resolves against its own previous resolution: threads interleaving the
    same facts get the plans a resolution from scratch gives."""
    from concurrent.futures import ThreadPoolExecutor

    rng = random.Random(3)
    work = [(point, fields) for point in _points(33, 40, 0) for fields in _variants(point, rng)]
    expected = [_outcome(point, fields, False) for point, fields in work]

    def walk(offset: int) -> list[tuple]:
        order = work[offset:] + work[:offset]
        got = [_outcome(point, fields, True) for point, fields in order]
        return got[len(work) - offset:] + got[:len(work) - offset]

    with ThreadPoolExecutor(4) as pool:
        for got in pool.map(walk, [0, 7, 13, 29]):
            assert got == expected
