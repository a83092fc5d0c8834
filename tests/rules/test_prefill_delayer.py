"""The retired prefill-delayer variables (SGLang's handle_prefill_delayer_env_compat).

Recorded: the env-reach suite's decrease-prefill-idle, delayer-passes and delayer-watermark
pairs (a variable set wins over the flag beside it; a zero leaves the field alone).
"""

from __future__ import annotations

from launchplan.engine.declarations import Declare
from launchplan.rules.prefill_delayer import prefill_delayer_env
from tests.rules.conftest import decide, make_view


def fields(out):
    return out.fields if isinstance(out, Declare) else out


def test_unset_variables_declare_nothing():
    assert decide(prefill_delayer_env, make_view()) is None
    assert decide(prefill_delayer_env, make_view(prefill_delayer_max_delay_passes=3)) is None


def test_each_variable_sets_its_field_over_the_flag():
    env = {"SGLANG_SCHEDULER_DECREASE_PREFILL_IDLE": "yes",
           "SGLANG_PREFILL_DELAYER_MAX_DELAY_PASSES": "7",
           "SGLANG_PREFILL_DELAYER_TOKEN_USAGE_LOW_WATERMARK": "0.25"}
    out = decide(prefill_delayer_env, make_view(env=env, prefill_delayer_max_delay_passes=3))
    assert fields(out) == {"enable_prefill_delayer": True,
                           "prefill_delayer_max_delay_passes": 7,
                           "prefill_delayer_token_usage_low_watermark": 0.25}


def test_false_zero_and_unparsable_values_leave_the_fields_alone():
    for env in ({"SGLANG_SCHEDULER_DECREASE_PREFILL_IDLE": "0"},
                {"SGLANG_SCHEDULER_DECREASE_PREFILL_IDLE": "on"},  # not a boolean to SGLang
                {"SGLANG_PREFILL_DELAYER_MAX_DELAY_PASSES": "0"},
                {"SGLANG_PREFILL_DELAYER_MAX_DELAY_PASSES": "2.5"},
                {"SGLANG_PREFILL_DELAYER_TOKEN_USAGE_LOW_WATERMARK": "0.0"}):
        assert decide(prefill_delayer_env, make_view(env=env)) is None, env
