"""The prefill delayer's retired environment variables (SGLang's
``handle_prefill_delayer_env_compat``, right after ``handle_deprecated_args``).

Three variables predate the ``--enable-prefill-delayer`` flags and still set them: SGLang
warns that they are deprecated, then declares the fields from them. A declaration outranks
the command line, so a variable that is set wins over the flag given beside it.
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Declare
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts import environment

#: variable -> the field it sets (only when its value is truthy, as SGLang tests it).
PREFILL_DELAYER_ENV = {
    "SGLANG_SCHEDULER_DECREASE_PREFILL_IDLE": "enable_prefill_delayer",
    "SGLANG_PREFILL_DELAYER_MAX_DELAY_PASSES": "prefill_delayer_max_delay_passes",
    "SGLANG_PREFILL_DELAYER_TOKEN_USAGE_LOW_WATERMARK": "prefill_delayer_token_usage_low_watermark",
}


@rule(
    phase=Phase.MODEL_SOURCE,
    reads=(),
    writes=tuple(PREFILL_DELAYER_ENV.values()),
    sglang="handle_prefill_delayer_env_compat",
)
def prefill_delayer_env(v: View) -> Declare | None:
    """The retired prefill-delayer variables still set the delayer's fields.

    When: SGLANG_SCHEDULER_DECREASE_PREFILL_IDLE, SGLANG_PREFILL_DELAYER_MAX_DELAY_PASSES or
        SGLANG_PREFILL_DELAYER_TOKEN_USAGE_LOW_WATERMARK holds a true/non-zero value.
    Effect: declares ``enable_prefill_delayer`` True, ``prefill_delayer_max_delay_passes``
        and ``prefill_delayer_token_usage_low_watermark`` from them, over any flag given; a
        zero (or an unparsable value, read as unset) leaves the field alone.
    Why: SGLang kept the variables working when the flags replaced them and tests each by
        its truth value (``handle_prefill_delayer_env_compat``).
    Assumes: the three variables are unset unless the environment given sets them.
    """
    out: dict[str, Any] = {}
    for name, field in PREFILL_DELAYER_ENV.items():
        value = environment.value(v.env, name)
        if value:
            out[field] = value
    if not out:
        return None
    return Declare(out, "retired prefill-delayer variables: " + ", ".join(
        f"{field} {value}" for field, value in out.items()))
