"""What every speculative algorithm's rules share: the draft's config, the 48-request
default, and SGLang's attention-DP test (the algorithm names are in ``launchplan.vocabulary``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launchplan.rules.parallel import (
    attn_dp_enabled as attn_dp_enabled,  # for the speculative rules
)
from launchplan.rules.parallel import (
    dp_attention_switch_0_5_21 as dp_attention_switch_0_5_21,
)

SPEC_MAX_RUNNING_REQUESTS = 48

ALGO = ("speculative_algorithm",)
RUNNING_NOTE = ("max_running_requests defaults to 48 under speculative decoding; pass "
                "--max-running-requests to change it")


def algorithm_of(v: Any) -> str | None:
    return v.speculative_algorithm




def draft_config_of(v: Any) -> Mapping | None:
    """The draft checkpoint's config.json: the target's own when the draft path is the model."""
    path = v.speculative_draft_model_path
    if path is None:
        return None
    if path == v.model_path:
        return v.model.config
    return v.draft.config if v.draft is not None else None


def text_config_of(config: Mapping) -> Mapping:
    text = config.get("text_config")
    return text if isinstance(text, Mapping) else config


def running_requests_default(v: Any) -> dict:
    return ({"max_running_requests": SPEC_MAX_RUNNING_REQUESTS}
            if v.max_running_requests is None else {})
