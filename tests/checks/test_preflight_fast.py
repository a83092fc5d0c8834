"""Preflight from scratch takes shortcuts: a ``Plan`` starts filled with final values (a
per-release base plus the overlay), and each set of facts keeps only the requirement rows a
plan of theirs can break. Both must give what a plain evaluation gives -- every row tested
on a plan that asks ``Result.value_at`` name by name -- on thousands of random points, over
every rule set (older releases have their own defaults and fallbacks)."""

from __future__ import annotations

import random

from launchplan.checks import requirements
from launchplan.checks.predicates import Plan, TracedPlan
from launchplan.checks.preflight import preflight
from launchplan.checks.requirements import REQUIREMENTS, _violation, check
from launchplan.checks.space import Space, default_models
from launchplan.engine.pipeline import run
from launchplan.errors import Refusal
from launchplan.facts.targets import SIMULATED, get_target
from launchplan.input.fields import FIELDS, SGLANG_VERSION, release_table
from launchplan.planner import build_raw, build_record
from launchplan.rulesets import get_ruleset

GRAPH_NAMES = tuple(f"cuda_graph_config.{phase}.{key}" for phase in ("prefill", "decode")
                    for key in ("backend", "max_bs", "bs"))


def _results(count: int, seed: int):
    points = Space(list(SIMULATED), default_models()).sample(count, seed=seed)
    rng = random.Random(seed)
    for point in points:
        compat = rng.choice(("default", "0.5.23", "0.5.22", "0.5.21"))
        raw = build_raw((), point.as_dict(), point.model, compat=compat)
        record = build_record(raw, get_target(point.gpu), compat=compat)
        try:
            yield run(record, get_ruleset(compat).rules())
        except Refusal:
            continue


def _plain(result) -> list[tuple[str, tuple[str, ...], str, tuple[str, ...]]]:
    """Every row, each on a fresh plan that reads the result name by name."""
    out = []
    for req in REQUIREMENTS:
        traced = TracedPlan(result)
        gate = req.when.gate
        if gate is not None and gate.isdisjoint(
                {traced[f] for f in requirements._GATE_FIELDS}):
            continue
        if req.violated(traced):
            v = _violation(req, TracedPlan(result), result)
            out.append((req.name, v.sources, v.message, v.culprits, repr(v.values)))
    return out


def test_filled_plan_reads_what_the_result_says():
    seen = 0
    for result in _results(600, seed=3):
        release = result.record.raw.release
        names = FIELDS if release == SGLANG_VERSION else release_table(release).fields
        plan = Plan(result)
        for name in (*names, *GRAPH_NAMES):
            expected = result.value_at(name)
            got = plan[name]
            assert got is expected or got == expected or (got != got and expected != expected), \
                (name, got, expected)
        seen += 1
    assert seen > 300


def test_fast_check_agrees_with_plain_rows():
    requirements._TABLES.clear()
    seen = broken = 0
    for result in _results(3000, seed=5):
        fast = [(v.requirement.name, v.sources, v.message, v.culprits, repr(v.values))
                for v in check(result)]
        assert fast == _plain(result), result.record.raw.values
        # and the whole verdict, evaluated twice (the facts' table learned, then used)
        first = preflight(result, shared=False).to_dict()
        assert preflight(result, shared=False).to_dict() == first
        seen += 1
        broken += bool(fast)
    assert seen > 1500 and broken > 100
    assert len(requirements._TABLES) > 10


def test_filled_plan_reads_a_given_none_as_the_fallback():
    for fields in ({"swa_full_tokens_ratio": None, "enable_tf32_matmul": None},
                   {"mamba_full_memory_ratio": None, "tp_size": 2}):
        record = build_record(build_raw((), fields, "llama-3.1-8b"), get_target("h100"))
        result = run(record, get_ruleset("default").rules())
        plan = Plan(result)
        for name in (*fields, "mm_enable_dp_encoder"):
            assert plan[name] == result.value_at(name) is not None, name


def test_source_answers_as_the_declarations_say():
    """``Result.source`` answers 'default' for a field neither given nor declared without
    looking at the declarations: the same answer as walking them."""
    seen = 0
    for result in _results(300, seed=8):
        release = result.record.raw.release
        names = FIELDS if release == SGLANG_VERSION else release_table(release).fields
        for name in names:
            last = [d.source for d in result.declarations if name in d.fields]
            expected = last[-1] if last else (
                "input" if result.record.raw.explicit(name) else "default")
            assert result.source(name) == expected, name
        seen += 1
    assert seen > 150
