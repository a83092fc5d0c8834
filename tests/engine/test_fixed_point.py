"""The fixed-point test (``engine.fixed_point``) vouches only for what a resolution gives.

Whenever it answers, resolving the pinned plan for real must end with the same values, so
``check``'s idempotence verdict (``differences``) is the same on both, down to the rule each
difference names. Held on thousands of pinned plans of ``check``'s default space, with
random extra flags on some, in neighbour order (as ``check`` walks them, its verdicts
reused) and in random order, for the default rules and 0.5.23's, and on a few hundred for
the older releases; plus the plans it must not vouch for.
"""

from __future__ import annotations

import random

import pytest

from launchplan.checks.idempotence import differences, pinned_fields
from launchplan.checks.runner import in_order
from launchplan.engine.fixed_point import fixed_point
from launchplan.engine.pipeline import run
from launchplan.errors import LaunchplanError
from launchplan.facts.targets import get_target
from launchplan.planner import build_raw, build_record
from launchplan.rulesets import get_ruleset
from tests.engine.test_incremental import _points


def _record(point, fields, compat):
    raw = build_raw((), fields, point.model, compat=compat)
    return build_record(raw, get_target(point.gpu), compat=compat)


def _compare(points, compat: str, memo: dict) -> tuple[int, int]:
    """(pinned plans seen, those the test vouched for); asserts each vouched one."""
    rules = get_ruleset(compat).rules()
    seen = vouched = 0
    for point in points:
        try:
            first = run(_record(point, point.as_dict(), compat), rules)
        except LaunchplanError:
            continue
        pinned = pinned_fields(first)
        seen += 1
        found = fixed_point(_record(point, pinned, compat), rules, memo)
        if found is None:
            continue
        vouched += 1
        real = run(_record(point, pinned, compat), rules)  # raises if it refuses: a failure
        assert differences(first, found) == differences(first, real), point
        names = set(real._overlay) | set(found._overlay)
        assert {n: found.value(n) for n in names} == {n: real.value(n) for n in names}, point
    return seen, vouched


@pytest.mark.parametrize("compat", ["default", "0.5.23"])
def test_a_vouched_fixed_point_resolves_to_itself(compat):
    seed = 70 if compat == "default" else 71
    points = _points(seed, 1200, 600)
    for order in (in_order(points), random.Random(seed).sample(points, len(points))):
        seen, vouched = _compare(order, compat, {})
        assert seen > 1000
        assert vouched > seen * 0.8  # the shortcut must be worth its place in check


@pytest.mark.parametrize("compat", ["0.5.22", "0.5.21"])
def test_older_rule_sets_too(compat):
    seen, vouched = _compare(in_order(_points(72, 300, 150)), compat, {})
    assert vouched > seen * 0.5


def test_a_plan_a_rule_transforms_again_is_not_vouched_for():
    """Attention DP divides the chunked prefill size again when pinned (SGLang does it to an
    explicit value too): the pinned plan is no fixed point and the test must say so."""
    from launchplan.checks.space import Point

    point = Point("h100", "llama-3.1-8b", (("tp_size", 2), ("dp_size", 2),
                                           ("enable_dp_attention", True)))
    rules = get_ruleset("default").rules()
    first = run(_record(point, point.as_dict(), "default"), rules)
    assert any(d.source == "attention_dp_adjustments" for d in first.declarations)
    pinned = pinned_fields(first)
    assert fixed_point(_record(point, pinned, "default"), rules, {}) is None
    real = run(_record(point, pinned, "default"), rules)
    assert differences(first, real)  # it does change: what check reports as allowed


def test_a_changed_input_is_judged_again():
    """A verdict kept for one input is not reused for a neighbour whose change moves a
    value: the same memo, an idempotent plan, then a plan a rule rewrites."""
    from launchplan.checks.space import Point

    rules = get_ruleset("default").rules()
    memo: dict = {}
    plain = Point("h100", "llama-3.1-8b", (("tp_size", 2),))
    first = run(_record(plain, plain.as_dict(), "default"), rules)
    pinned = pinned_fields(first)
    assert fixed_point(_record(plain, pinned, "default"), rules, memo) is not None
    moved = {**pinned, "dp_size": 2, "enable_dp_attention": True}
    assert fixed_point(_record(plain, moved, "default"), rules, memo) is None
    assert fixed_point(_record(plain, pinned, "default"), rules, memo) is not None
