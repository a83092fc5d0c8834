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


# --- the fast reads agree with Result.value -------------------------------------------------


def _pinned_plainly(result):
    """``pinned_fields`` as its docstring says it, one ``Result.value`` a name."""
    from launchplan.checks.idempotence import _rederived
    from launchplan.input.fields import FIELDS

    names = dict.fromkeys(result.record.raw.values)
    names.update(dict.fromkeys(result.declared()))
    return {n: result.value(n) for n in names
            if not _rederived(result, n) and n in FIELDS and not n.startswith("_")
            and n != "random_seed" and result.value(n) is not None}


def _differences_plainly(first, second):
    from launchplan.checks.effective import candidate_fields

    return {n: (first.value(n), second.value(n), second.source(n))
            for n in candidate_fields((first, second)) if first.value(n) != second.value(n)}


@pytest.mark.parametrize("compat", ["default", "0.5.22", "0.5.21"])
def test_pinned_fields_and_differences_read_values_as_result_value_does(compat):
    """``pinned_fields`` and ``differences`` read the overlay directly (``Result.value`` only
    for a None): on 1,200 sampled points under each rule set, each plan's pinned fields, and
    its differences from its own re-resolution and from the previous point's plan (many
    fields differ, None and fallbacks among them), equal the plain definitions."""
    from launchplan.checks.runner import in_order, point_resolver
    from launchplan.errors import LaunchplanError

    resolve_point = point_resolver(compat, incremental=False)
    previous = None
    compared = 0
    for point in in_order(Space(list(SIMULATED), default_models()).sample(1200, seed=31)):
        try:
            result = resolve_point(point)
        except LaunchplanError:
            continue
        pinned = pinned_fields(result)
        assert pinned == _pinned_plainly(result), point
        pairs = [(result, resolve_point(point, pinned))]
        if previous is not None and previous.record.model is result.record.model:
            pairs += [(previous, result), (result, previous)]
        for first, second in pairs:
            found = differences(first, second)
            assert found == _differences_plainly(first, second), point
            assert list(found) == list(_differences_plainly(first, second)), point
            compared += bool(found)
        previous = result
    assert compared > 300  # plans that differ were compared, not only equal ones


@pytest.mark.parametrize("compat", ["default", "0.5.21"])
def test_differences_from_a_vouched_pinned_plan_compare_only_unpinned_fields(compat):
    """``check``'s idempotence test passes the pinned fields: when the fixed-point test
    vouched for the pinned plan, ``differences`` skips the pinned fields (each holds the
    value its plan gave it). On 1,000 points, in check's order (the fixed-point test is
    incremental), the answer is the full comparison's, vouched or not."""
    from launchplan.checks.runner import in_order, point_resolver
    from launchplan.engine.fixed_point import VOUCHED
    from launchplan.errors import LaunchplanError

    resolve_point = point_resolver(compat)
    vouched = 0
    for point in in_order(Space(list(SIMULATED), default_models()).sample(1000, seed=41)):
        try:
            result = resolve_point(point)
        except LaunchplanError:
            continue
        pinned = pinned_fields(result)
        try:
            second = resolve_point(point, pinned, settled=True)
        except LaunchplanError:
            continue
        vouched += bool(second.extras.get(VOUCHED))
        assert differences(result, second, pinned) == differences(result, second), point
    assert vouched > 300


def test_a_nan_pinned_is_no_change():
    first = resolve(fields={"mem_fraction_static": float("nan")}, gpu="h100",
                    model_path="llama-3.1-8b")
    second = again(first, "h100", "llama-3.1-8b")
    assert "mem_fraction_static" not in differences(first, second)


def test_a_flag_given_on_the_command_line_stays_given_when_the_plan_is_pinned():
    """SGLang notes that ``--radix-eviction-policy`` was on the command line (a keyword launch
    does not), and Qwen3-VL's Hopper override keeps an explicit ``lru`` only then: the pinned
    plan, which a command names the flag in, keeps the note and the policy."""
    from pathlib import Path

    model = str(Path(__file__).parents[1] / "parity" / "models" / "qwen3-vl-30b-a3b-instruct")
    first = resolve(["--radix-eviction-policy", "lru"], gpu="h100", model_path=model)
    pinned = pinned_fields(first)
    again = resolve(fields=pinned, gpu="h100", model_path=model)
    assert again.value("radix_eviction_policy") == "lru"
    assert not unexpected(differences(first, again, pinned))
    keyword = resolve(fields={"radix_eviction_policy": "lru"}, gpu="h100", model_path=model)
    assert keyword.value("radix_eviction_policy") == "priority"
