"""The fast path (promises decided once per target, model and input shape, from the plan
cache) must agree with the plain one (every promise evaluated afresh, rule by rule) on
thousands of random points."""

from __future__ import annotations

import random

from launchplan.checks.space import Space, default_models
from launchplan.engine.pipeline import run
from launchplan.errors import Refusal
from launchplan.facts.targets import SIMULATED, get_target
from launchplan.planner import build_raw, build_record
from launchplan.rulesets import get_ruleset


def outcome(point, compat, skip):
    raw = build_raw((), point.as_dict(), point.model)
    record = build_record(raw, get_target(point.gpu), compat=compat)
    try:
        result = run(record, get_ruleset(compat).rules(), skip=skip)
    except Refusal as refusal:
        return ("refused", refusal.source, refusal.message,
                [(d.source, d.fields) for d in refusal.result.declarations])
    return ("ok", result.resolved(), [(d.source, d.fields) for d in result.declarations],
            result.warnings)


def test_skipping_rules_changes_nothing():
    space = Space(list(SIMULATED), default_models())
    points = space.sample(2500, seed=7)
    rng = random.Random(11)
    for point in points:
        compat = rng.choice(("default", "0.5.23"))
        assert outcome(point, compat, True) == outcome(point, compat, False), point


def test_some_rules_are_skippable():
    rules = get_ruleset("default").rules()
    assert sum(1 for r in rules if r.archs is not None or r.triggers) > 0
