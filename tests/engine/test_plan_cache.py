"""The engine's plan cache: bounded, holding its keys, never handing one model another's plan.

A plan (the rules a target and model admit, and per input shape the rules that can
trigger) is cached by (rule list, target, model). Keyed by ids alone, a freed target or
model's id can come back on a fresh object, and a resolution then runs another model's rule
list. Here more than the cache's bound of fresh targets and freshly loaded models, alternating
between architectures, are each resolved on the cached path (twice: the second sighting of
an input shape takes the pruned steps) and on the plain path, and must agree.
"""

from __future__ import annotations

import random
from typing import Any

from launchplan.engine.pipeline import PLANS, _Plan, _PlanCache, run
from launchplan.errors import LaunchplanError, Refusal
from launchplan.facts.models import clear_cache, load_model
from launchplan.facts.targets import get_target, with_overrides
from launchplan.planner import build_raw, build_record
from launchplan.rulesets import get_ruleset

# Architectures whose rule lists differ (MLA and DSA passes, MoE, sliding window, dense).
MODELS = ("deepseek-v3", "llama-3.1-8b", "qwen3-30b-a3b", "gemma-3-27b", "gpt-oss-20b",
          "kimi-k2", "mixtral-8x7b", "qwen2.5-vl-7b")
GPUS = ("h100", "b200", "a100", "mi300x", "h200")
LINES = (
    [],
    ["--tp-size", "2"],
    ["--tp-size", "8", "--enable-dp-attention", "--dp-size", "2"],
    ["--speculative-algorithm", "EAGLE"],
    ["--moe-a2a-backend", "deepep"],
    ["--page-size", "64", "--kv-cache-dtype", "fp8_e4m3"],
    ["--enable-prefill-cp"],
)
FRESH = 650  # above the cache's bound of plans


def outcome(record: Any, rules: Any, skip: bool) -> tuple:
    try:
        result = run(record, rules, skip=skip)
    except Refusal as refusal:
        return ("refused", refusal.source, refusal.message,
                [(d.source, d.fields) for d in refusal.result.declarations])
    except LaunchplanError as exc:
        return ("error", type(exc).__name__, str(exc))
    return ("ok", result.resolved(), [(d.source, d.fields) for d in result.declarations],
            result.warnings)


def test_fresh_targets_and_models_resolve_as_the_plain_path():
    assert FRESH > PLANS.bound
    rng = random.Random(20261201)
    rules = get_ruleset("default").rules()
    models_seen = set()
    for i in range(FRESH):
        clear_cache()  # every model object below is freshly loaded
        name = MODELS[i % len(MODELS)]
        target = with_overrides(get_target(rng.choice(GPUS)),
                                memory_mib=rng.choice((40960, 81920, 144384, 196608)))
        argv = rng.choice(LINES)
        try:
            record = build_record(build_raw(argv, None, name), target)
        except LaunchplanError:
            continue
        models_seen.add(record.model.arch0)
        plain = outcome(record, rules, skip=False)
        assert outcome(record, rules, skip=True) == plain, (i, name, argv)
        assert outcome(record, rules, skip=True) == plain, (i, name, argv)  # pruned shape
        assert len(PLANS) <= PLANS.bound and PLANS.shapes() <= PLANS.shape_bound
        del record, target
    assert len(models_seen) >= 6
    assert len(PLANS) == PLANS.bound  # full, evicting: the path above ran through evictions


class _Record:
    """What a plan reads of a record: its target and model."""

    def __init__(self, target: Any, model: Any) -> None:
        self.target, self.model = target, model


def _fresh_model(name: str) -> Any:
    clear_cache()
    return load_model(name)


def test_the_cache_never_exceeds_its_bounds():
    rules = get_ruleset("default").rules()
    cache = _PlanCache(bound=8, shape_bound=20)
    fields = sorted({f for s in rules for f in s.triggers})
    rng = random.Random(5)
    for i in range(40):
        record = _Record(with_overrides(get_target("h100"), memory_mib=81920),
                         _fresh_model(MODELS[i % 2]))
        plan = cache.plan(rules, record)
        assert plan.target is record.target and plan.model is record.model
        assert cache.plan(rules, record) is plan  # a hit while it is cached
        for _ in range(3):
            given = frozenset(rng.sample(fields, 3))
            assert cache.shaped(plan, given) is plan.steps  # first sighting: every step
            assert cache.shaped(plan, given) == plan.pruned(given)  # then pruned
            assert len(plan.pruned(given)) < len(plan.steps)
        assert len(cache) <= 8
        assert cache.shapes() <= 20
        assert cache.shapes() == sum(len(p._shapes) for p in cache._entries.values())


def test_an_entry_for_other_objects_is_a_miss():
    """Identity, not the id in the key, decides a hit."""
    rules = get_ruleset("default").rules()
    cache = _PlanCache(bound=8, shape_bound=64)
    target = get_target("h100")
    deepseek, llama = _fresh_model("deepseek-v3"), _fresh_model("llama-3.1-8b")
    stale = _Plan(rules, target, deepseek)
    cache._entries[(id(rules), id(target), id(llama))] = stale  # as if an id came back
    plan = cache.plan(rules, _Record(target, llama))
    assert plan is not stale and plan.model is llama
    assert [s[0].name for s in plan.steps] == [
        s.name for s in rules if s.admits(target, llama)]
    assert [s[0].name for s in plan.steps] != [s[0].name for s in stale.steps]
    assert len(cache) == 1
