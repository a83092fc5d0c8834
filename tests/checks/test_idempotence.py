"""Feeding a plan's values back as explicit input changes nothing, except through the rules
listed in ``checks.idempotence.NON_IDEMPOTENT`` -- and each of those really does."""

from __future__ import annotations

import pytest

from launchplan import resolve
from launchplan.checks.idempotence import (
    NON_IDEMPOTENT,
    ORDER_DEPENDENT,
    differences,
    pinned_fields,
    reapplied,
    refuses_when_pinned,
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


def _parity_model(name):
    from pathlib import Path

    return str(Path(__file__).parents[1] / "parity" / "models" / name)


# rule -> (gpu, model, argv): a launch whose pinned plan the rule decides otherwise (or
# refuses), each from a recorded case whose pinned command SGLang 0.5.23 resolved alike
ORDER_EXAMPLES = {
    "deepep_prefill_alignment": ("h100", "qwen3-30b-a3b", ["--tp-size", "2",
                                                           "--enable-waterfill"]),
    "eager_backend_graph_disable": ("h100", "deepseek-v3", ["--device", "cpu", "--tp", "1",
                                                            "--trust-remote-code"]),
    "deterministic_allreduce_fusion_off": ("h100", "llama-3.1-8b",
                                           ["--rl-on-policy-target", "fsdp"]),
    "mamba_radix_cache_baseline": (
        "rtx6000-ada", _parity_model("nemotron-3-nano-30b-a3b"),
        ["--attention-backend", "flashinfer", "--speculative-algorithm", "NGRAM",
         "--max-mamba-cache-size", "256", "--linear-attn-backend", "cutedsl",
         "--enable-deterministic-inference", "--enable-pdmux",
         "--linear-attn-prefill-backend", "cutedsl", "--mamba-ssm-dtype", "bfloat16"]),
    "flashinfer_allreduce_fusion_auto_enable": ("h100", "qwen3-30b-a3b", [
        "--tp-size", "2", "--moe-a2a-backend", "ascend_tp"]),
    "moe_runner_fusion_disable": ("gb200", _parity_model("qwen4-exp-synth"),
                                  ["--moe-a2a-backend", "ascend_tp"]),
    "qwen3_moe_family_overrides": ("gb200", _parity_model("qwen4-exp-synth"),
                                   ["--moe-a2a-backend", "ascend_tp"]),
    "aux_hidden_state_capture": ("h100", "llama-3.1-8b", [
        "--enable-return-aux-hidden-states", "--speculative-algorithm", "EAGLE3"]),
    "deterministic_attention_backend": (
        "mi300x", _parity_model("starcoder2-15b"),
        ["--tp", "2", "--trust-remote-code", "--prefill-attention-backend", "aiter",
         "--decode-attention-backend", "aiter", "--enable-deterministic-inference"]),
    "iquest_q1_overrides": ("rtx6000-ada", _parity_model("iquest-q1-synth"),
                            ["--kv-cache-dtype", "fp8_e5m2"]),
    "mamba_radix_cache": ("b200", _parity_model("lfm2-8b-a1b-4bit"), [
        "--prefill-attention-backend", "trtllm_mha", "--decode-attention-backend", "triton"]),
    "flashinfer_a2a_token_budget": ("b200", "qwen3-30b-a3b", [
        "--tp-size", "2", "--attn-dp-size", "2", "--moe-a2a-backend", "flashinfer",
        "--moe-runner-backend", "flashinfer_cutlass"]),
    "glm_dsa_aiter_allreduce_fusion": ("mi300x", _parity_model("glm-moe-dsa-synth"),
                                       ["--tp-size", "8", "--enable-dp-attention"], "0.5.21"),
    "cache_compatibility": ("rtx5090", _parity_model("embeddinggemma-synth"), [
        "--attention-backend", "triton", "--enable-hierarchical-cache", "--hicache-size", "64",
        "--disable-cuda-graph", "--enable-hisparse"], "0.5.21"),
    "linear_attn_backend_checks": ("b200", _parity_model("qwen3.6-35b-a3b"), [
        "--tp", "2", "--trust-remote-code", "--speculative-algorithm", "NGRAM",
        "--speculative-num-draft-tokens", "16", "--enable-linear-replayssm-spec"], "0.5.22"),
}


@pytest.mark.parametrize("rule", sorted(ORDER_DEPENDENT))
def test_every_order_dependent_rule_really_decides_a_pinned_plan_otherwise(rule):
    """Each listed rule changes (or refuses) the pinned plan of its example, and ``check``
    counts nothing else there as non-idempotence."""
    gpu, model, argv, *release = ORDER_EXAMPLES[rule]
    compat = release[0] if release else "default"
    first = resolve(argv, gpu=gpu, model_path=model, compat=compat)
    pinned = pinned_fields(first)
    fields, _ = ORDER_DEPENDENT[rule]
    if not fields:
        assert refuses_when_pinned(rule)
        with pytest.raises(Refusal) as refused:
            resolve(fields=pinned, gpu=gpu, model_path=model, compat=compat)
        assert refused.value.source == rule
        return
    again = resolve(fields=pinned, gpu=gpu, model_path=model, compat=compat)
    diffs = differences(first, again, pinned)
    assert any(diffs.get(f, (None, None, None))[2] == rule for f in fields), diffs
    assert not unexpected(diffs)


def test_a_plan_of_an_older_release_pins_only_fields_that_release_has():
    """0.5.21's ServerArgs has no ``attn_dp_size`` (its attention DP is ``dp_size`` with
    ``enable_dp_attention``): pinning it made every 0.5.21 attention-DP plan 'refused when
    pinned' in ``check``."""
    first = resolve(["--tp-size", "2", "--dp-size", "2", "--enable-dp-attention"], gpu="h100",
                    model_path="llama-3.1-8b", compat="0.5.21")
    pinned = pinned_fields(first)
    assert "attn_dp_size" not in pinned
    again = resolve(fields=pinned, gpu="h100", model_path="llama-3.1-8b", compat="0.5.21")
    assert again.value("attn_dp_size") == 2
    assert not unexpected(differences(first, again, pinned))
