"""Folded steps (``_Plan.folding``): a rule that, for an input shape, can read no value the
input decides gives its first output again. The walk with folds must agree with the plain
path (every promise evaluated afresh, every rule called) on thousands of points, and a fold
must never cross environments or drafts."""

from __future__ import annotations

import random

from launchplan.checks.space import Space, default_models
from launchplan.engine.pipeline import PLANS, _constant, _Once, run
from launchplan.errors import Refusal
from launchplan.facts.targets import SIMULATED, get_target
from launchplan.planner import build_raw, build_record, resolve
from launchplan.rulesets import get_ruleset


def outcome(record, compat, **how):
    try:
        result = run(record, get_ruleset(compat).rules(), **how)
    except Refusal as refusal:
        return ("refused", refusal.source, refusal.message,
                [(d.source, d.fields) for d in refusal.result.declarations])
    return ("ok", result.resolved(), [(d.source, d.fields) for d in result.declarations],
            result.warnings, result.launcher)


def _record(point, compat):
    raw = build_raw((), point.as_dict(), point.model, compat=compat)
    return build_record(raw, get_target(point.gpu), compat=compat)


def test_folded_walks_agree_with_every_rule_called():
    space = Space(list(SIMULATED), default_models())
    rng = random.Random(5)
    folded = 0
    for point in space.sample(2000, seed=23):
        compat = rng.choice(("default", "0.5.23", "0.5.22", "0.5.21"))
        record = _record(point, compat)
        plain = outcome(record, compat, skip=False)
        for _ in range(3):  # a shape's first sighting, its fold, then the folded walk
            assert outcome(record, compat) == plain, point
        assert outcome(record, compat, fold=False) == plain, point
        plan = PLANS.plan(get_ruleset(compat).rules(), record)
        folded += sum(isinstance(step[1], _Once) or step[1].__qualname__ ==
                      _constant(None).__qualname__ for walk in
                      (w for _, w in plan._folds.values()) for step in walk)
    assert folded > 0  # the sample did walk folded steps


def test_a_folded_step_gives_its_first_output_without_calling_the_rule():
    for _ in range(3):
        resolve(gpu="h100", model_path="llama-3.1-8b", incremental=False)
    record = build_record(build_raw((), {}, "llama-3.1-8b"), "h100")
    rules = get_ruleset("default").rules()
    plan = PLANS.plan(rules, record)
    walk = PLANS.walk(plan, record)
    by_name = {step[0].name: step for step in walk}
    step = by_name["grpc_settings"]  # reads only unset flags and the rule set's facts
    assert step[1] is not step[0].func
    kept, again = step[1](None), step[0].func(_view(record))
    assert kept == again == {"grpc_worker_threads": 4}
    # a rule that reads the model path (given on every launch) is never folded
    assert by_name["cuda_graph_sizing"][1] is by_name["cuda_graph_sizing"][0].func


def _view(record):
    from launchplan.engine.view import View

    return View(record)


def test_a_fold_is_kept_per_environment():
    def watchdog(env):
        return resolve(gpu="h100", model_path="llama-3.1-8b", env=env,
                       incremental=False).value("soft_watchdog_timeout")

    for _ in range(3):
        assert watchdog({}) is None
    for _ in range(3):
        assert watchdog({"SGLANG_IS_IN_CI": "1"}) == 300
    assert watchdog({}) is None
    assert watchdog({"SGLANG_IS_IN_CI": "0"}) is None


def test_a_fold_is_kept_per_draft():
    argv = ["--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
            "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
            "--speculative-draft-model-path"]
    for draft in ("llama-3.1-8b-eagle", "llama-3.1-8b-eagle3", "llama-3.1-8b-eagle"):
        raw = build_raw([*argv, draft], None, "llama-3.1-8b")
        record = build_record(raw, "h100")
        plain = outcome(record, "default", skip=False)
        for _ in range(3):
            assert outcome(record, "default") == plain, draft


# --- a fold learned on one input, used for another of the same shape ------------------------

#: Fields that choose the model or draft facts: a sibling keeps them, so that both inputs
#: share one plan (target, model) and one walk (shape, environment, draft).
_FACT_FIELDS = frozenset({"model_path", "context_length", "json_model_override_args",
                          "revision", "speculative_draft_model_path", "trust_remote_code"})
SIBLINGS = 2500


def _plain_or_folded(record, compat, **how):
    from launchplan.errors import LaunchplanError

    try:
        return outcome(record, compat, **how)
    except LaunchplanError as exc:
        return ("error", type(exc).__name__, str(exc))


def test_a_fold_learned_on_one_input_holds_for_another_of_its_shape():
    """Every recorded parity case, after a sibling of its shape (the same fields given, other
    values drawn from what other cases give them) was walked twice: the folds are learned on
    the sibling's values and then used for the case, whose plan must equal the plain
    path's."""
    from launchplan.errors import InputError
    from tests.engine.test_skipping_parity import _case_record
    from tests.parity.oracle_cases import SUITES, load

    rng = random.Random(61)
    records = []
    for compat in ("0.5.23", "default"):
        for suite in sorted(SUITES):
            for case in load(suite, compat):
                try:
                    records.append((_case_record(case, compat), compat))
                except InputError:
                    continue
    pool: dict[str, list] = {}
    for record, _ in records:
        for name, value in record.raw.values.items():
            pool.setdefault(name, []).append(value)
    folded = compared = 0
    for record, compat in rng.sample(records, min(SIBLINGS, len(records))):
        raw = record.raw
        sibling = {name: value if name in _FACT_FIELDS else rng.choice(pool[name])
                   for name, value in raw.values.items()}
        try:
            other = build_record(build_raw((), sibling, raw.values.get("model_path"),
                                           compat=compat), record.target, compat=compat,
                                 env=record.env)
            again = build_record(build_raw((), dict(raw.values), raw.values.get("model_path"),
                                           compat=compat), record.target, compat=compat,
                                 env=record.env)
        except InputError:
            continue
        if frozenset(other.raw.values) != frozenset(again.raw.values) \
                or other.model is not again.model or other.draft is not again.draft:
            continue  # not one walk: nothing learned on the sibling could reach the case
        for _ in range(2):  # the shape's first sighting, then its folds learned here
            _plain_or_folded(other, compat)
        plan = PLANS.plan(get_ruleset(compat).rules(), again)
        walk = PLANS.walk(plan, again)
        folded += sum(getattr(step[1], "__qualname__", None) == _constant(None).__qualname__
                      for step in walk)
        assert _plain_or_folded(again, compat) == _plain_or_folded(again, compat, skip=False), \
            (compat, sibling, dict(raw.values))
        compared += 1
    assert compared > SIBLINGS // 2 and folded > compared  # the folds did come from siblings
