"""Sampling a space decodes points from their index instead of enumerating the space."""

from __future__ import annotations

import random

from launchplan.checks.space import Space


def test_every_index_decodes_to_the_enumerated_point():
    space = Space(["h100", "b200"], ["llama-3.1-8b", "deepseek-v3"],
                  axes=[("max_running_requests", (64, 128))])
    points = list(space)
    blocks = space._blocks()
    assert len(points) == space.size()
    assert [space._point_at(i, blocks) for i in range(len(points))] == points


def test_a_sample_is_the_same_draw_as_sampling_the_enumerated_list():
    space = Space(["a100", "mi300x"], ["qwen3-8b", "qwen3-30b-a3b"])
    points = list(space)
    assert space.sample(40, 7) == random.Random(7).sample(points, 40)
    assert space.sample(len(points) + 5, 1) == points


def _changed_fields(order):
    missing = object()
    total = 0
    for a, b in zip(order, order[1:]):
        x, y = dict(a.fields), dict(b.fields)
        total += sum(x.get(k, missing) != y.get(k, missing) for k in {*x, *y})
    return total / (len(order) - 1)


def test_check_order_keeps_every_point_and_neighbours_close():
    """``in_order`` (check's walk) is a permutation of the sample, grouped by target, model
    and rule set, and its neighbours differ in fewer fields than a plain sort's."""
    from launchplan.checks.runner import in_order
    from launchplan.checks.space import default_models
    from launchplan.facts.targets import SIMULATED

    points = Space(list(SIMULATED), default_models()).sample(20000, seed=13)
    order = in_order(points)
    assert sorted(map(id, order)) == sorted(map(id, points))
    groups = [(p.gpu, p.model, p.compat) for p in order]
    runs = [g for i, g in enumerate(groups) if i == 0 or groups[i - 1] != g]
    assert len(runs) == len(set(runs))  # each group in one run
    plain = sorted(points, key=lambda p: (p.gpu, p.model,
                                          tuple((k, repr(v)) for k, v in p.fields)))
    assert _changed_fields(order) < 0.9 * _changed_fields(plain)


def test_check_units_ordered_apart_walk_the_same_order():
    """``run_check`` orders each work unit where it runs: units of whole groups, each put
    in order alone, must give back ``in_order`` of every point, unit starts included (the
    determinism check picks points by that index)."""
    from launchplan.checks.runner import _units, in_order
    from launchplan.checks.space import default_models
    from launchplan.facts.targets import SIMULATED

    points = Space(list(SIMULATED), default_models()).sample(6000, seed=17)
    walked: list = []
    for start, unit in _units(points, 700):
        assert start == len(walked)
        assert len(unit) >= 700 or start + len(unit) == len(points)
        walked.extend(in_order(unit))
    assert [id(p) for p in walked] == [id(p) for p in in_order(points)]


def test_check_report_is_the_same_on_one_core_and_on_two():
    """Work units merge in walk order on every executor, so the report (counts and each
    class's example, the first of fewest fields in the walk) does not depend on the core
    count or on which unit finished first."""
    from launchplan.checks.runner import run_check
    from launchplan.checks.space import default_models
    from launchplan.facts.targets import SIMULATED

    points = Space(list(SIMULATED), default_models()).sample(4500, seed=19)
    one = run_check(points, "default", jobs=1).to_dict()
    two = run_check(points, "default", jobs=2).to_dict()
    assert one["problems"] and one == two


def test_a_whole_space_is_walked_in_the_same_units_without_being_listed(monkeypatch):
    """``check`` without ``--sample`` hands ``run_check`` the space itself: its groups are
    made as the units are taken (a space of 5 x 10^7 points is 30 GB as a list), and the
    units, hence the report, are those of the listed points."""
    from launchplan.checks.runner import _units, run_check

    space = Space(["h100", "b200"], ["llama-3.1-8b", "deepseek-v3"],
                  axes=[("max_running_requests", (64, 128, 256)), ("page_size", (1, 64))])
    points = list(space)
    listed = [(start, [id(p) for p in unit]) for start, unit in _units(points, 7)]
    streamed = list(_units(space, 7))
    assert [(s, len(u)) for s, u in streamed] == [(s, len(u)) for s, u in listed]
    assert [p for _, unit in streamed for p in unit] == [
        points[i] for i in _unit_order(points, 7)]
    expected = run_check(points, "default", jobs=1).to_dict()

    def no_listing(self):
        raise AssertionError("the whole space was listed")

    monkeypatch.setattr(Space, "__iter__", no_listing)
    assert run_check(space, "default", jobs=1).to_dict() == expected
    # past 2,000 points, on a pool of processes, with a few units in flight
    larger = Space(["h100", "b200"], ["qwen3-8b"],
                   axes=[("page_size", (1, 16, 64)), ("kv_cache_dtype", ("auto", "fp8_e4m3"))])
    monkeypatch.undo()
    expected = run_check(list(larger), "default", jobs=1).to_dict()
    monkeypatch.setattr(Space, "__iter__", no_listing)
    assert expected["points"] == larger.size() > 2000
    assert run_check(larger, "default", jobs=2).to_dict() == expected


def _unit_order(points, size):
    from launchplan.checks.runner import _units

    where = {id(p): i for i, p in enumerate(points)}
    return [where[id(p)] for _, unit in _units(points, size) for p in unit]


def test_only_a_few_units_are_in_flight_at_once():
    from launchplan.checks.runner import in_flight

    outstanding, most = [], [0]

    def submit(task):
        outstanding.append(task)
        most[0] = max(most[0], len(outstanding))
        return task

    seen = []
    for handle in in_flight(submit, range(100), 8):
        outstanding.remove(handle)
        seen.append(handle)
    assert seen == list(range(100)) and most[0] == 8
