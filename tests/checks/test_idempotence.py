"""Feeding a plan's values back as explicit input changes nothing, except through the rules
listed in ``checks.idempotence.NON_IDEMPOTENT`` -- and each of those really does."""

from __future__ import annotations

import pytest

from launchplan import resolve
from launchplan.checks.idempotence import (
    NON_IDEMPOTENT,
    differences,
    pinned_fields,
    reapplied,
    unexpected,
)
from launchplan.checks.space import Space, default_models
from launchplan.errors import Refusal
from launchplan.facts.targets import SIMULATED


def again(result, gpu, model):
    return resolve(fields=pinned_fields(result), gpu=gpu, model_path=model)


def test_only_listed_rules_break_idempotence_on_random_points():
    points = Space(list(SIMULATED), default_models()).sample(400, seed=21)
    for point in points:
        try:
            first = resolve(fields=point.as_dict(), gpu=point.gpu, model_path=point.model)
        except Refusal:
            continue
        second = again(first, point.gpu, point.model)
        assert unexpected(differences(first, second)) == {}, point
        assert [o for o in second.overrides() if o["source"] not in NON_IDEMPOTENT] == [], point


EXAMPLES = {
    "aiter_memory_scaling": ("mi300x", "llama-3.1-8b", []),
    "attention_dp_adjustments": ("h100", "llama-3.1-8b",
                                 ["--tp-size", "2", "--attn-dp-size", "2"]),
    # with speculation on: without it the draft's quantization has no effect (not compared)
    "missing_default_values": ("b200", "deepseek-v3",
                               ["--tp-size", "8", "--speculative-algorithm", "EAGLE"]),
}


@pytest.mark.parametrize("rule", sorted(NON_IDEMPOTENT))
def test_every_listed_rule_really_changes_a_pinned_value(rule):
    gpu, model, argv = EXAMPLES[rule]
    first = resolve(argv, gpu=gpu, model_path=model)
    diffs = differences(first, again(first, gpu, model))
    fields, _ = NON_IDEMPOTENT[rule]
    assert any(diffs.get(f, (None, None, None))[2] == rule for f in fields), diffs
    assert any(fields[0] in w for w in reapplied(first))


def test_plain_plans_warn_about_nothing():
    assert reapplied(resolve([], gpu="h100", model_path="llama-3.1-8b")) == []
