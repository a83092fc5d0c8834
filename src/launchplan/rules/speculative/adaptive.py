"""Adaptive speculation: the gate that allows it and the step counts it starts from."""

from __future__ import annotations

import json

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts.models.fields import _json_kind
from launchplan.rules.speculative.common import (
    ALGO,
    algorithm_of,
    attn_dp_enabled,
)

# Adaptive speculation's default candidate steps (the union over its batch-size tiers).
ADAPTIVE_DEFAULT_STEPS = (0, 1, 3, 5, 7)


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("speculative_adaptive", "speculative_eagle_topk", "attn_dp_size",
                  "ep_join_mode", "enable_multi_layer_eagle", "enable_two_batch_overlap",
                  "enable_pdmux"),
    writes=("speculative_adaptive",),
    sglang="_maybe_disable_adaptive",
    triggers=("speculative_adaptive",),
)
def speculative_adaptive_gate(v: View) -> Declare | None:
    """Adaptive step tuning runs only in the built-in single-layer EAGLE/EAGLE3 chain worker.

    When: ``--speculative-adaptive`` is on and the algorithm is not EAGLE/EAGLE3, or top-k is
        not 1, or attention DP, multi-layer EAGLE, two-batch overlap or PD multiplexing is on.
    Effect: ``speculative_adaptive`` = false, with a note naming the reason (static parameters
        are used); nothing is refused.
    Why: only that worker implements it, and attention DP ranks would pick tiers independently
        (``_maybe_disable_adaptive``, arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    if not v.speculative_adaptive:
        return None
    reason = None
    topk = v.speculative_eagle_topk
    if algorithm_of(v) not in ("EAGLE", "EAGLE3"):
        reason = f"only EAGLE and EAGLE3 support it, not {algorithm_of(v)}"
    elif topk is not None and topk != 1:
        reason = f"it needs top-k 1, not {topk}"
    elif attn_dp_enabled(v):
        reason = "attention DP ranks would pick tiers independently"
    elif v.enable_multi_layer_eagle:
        reason = "multi-layer EAGLE does not implement it"
    elif v.enable_two_batch_overlap:
        reason = "two-batch overlap does not support it"
    elif v.enable_pdmux:
        reason = "PD multiplexing does not support it"
    if reason is None:
        return None
    return Declare({"speculative_adaptive": False},
                   f"adaptive speculation disabled: {reason}; static parameters are used")


def _adaptive_steps(path: str | None) -> tuple[int, ...] | str:
    """Candidate steps from the adaptive config (a JSON file), or why they cannot be read."""
    if path is None:
        return ADAPTIVE_DEFAULT_STEPS
    try:
        with open(path, encoding="utf-8") as fh:
            config = json.load(fh)
    except (OSError, ValueError) as exc:
        return f"cannot read --speculative-adaptive-config {path}: {exc}"
    if not isinstance(config, dict):  # SGLang reads it as a mapping and stops on any other
        return (f"--speculative-adaptive-config {path}: expected a JSON object of batch sizes "
                f"and their candidate_steps, got {_json_kind(config)}")
    steps: set[int] = set()
    for key, entry in config.items():
        if not str(key).isdigit():
            continue
        values = entry.get("candidate_steps") if isinstance(entry, dict) else None
        if (not isinstance(values, list) or not values
                or not all(isinstance(s, int) and s >= 0 for s in values)):
            return f"batch size {key}: candidate_steps must be a list of non-negative integers"
        steps.update(values)
    if not steps:
        return "--speculative-adaptive-config needs at least one integer batch-size key"
    return tuple(sorted(steps))


@rule(
    phase=Phase.SPECULATIVE,
    reads=("speculative_adaptive", "speculative_adaptive_config", "speculative_eagle_topk",
           "speculative_num_steps"),
    writes=("speculative_eagle_topk", "speculative_num_steps", "speculative_num_draft_tokens"),
    sglang="_init_adaptive_speculative_params",
    triggers=("speculative_adaptive",),
)
def speculative_adaptive_params(v: View) -> dict | Refuse | None:
    """Adaptive speculation starts from the middle candidate step, top-k 1, a linear chain.

    When: ``--speculative-adaptive`` is (still) on.
    Effect: unset ``speculative_eagle_topk`` = 1; unset ``speculative_num_steps`` = the middle
        candidate step (from ``--speculative-adaptive-config`` or the built-in candidates);
        ``speculative_num_draft_tokens`` = steps + 1 always. Refuses an unreadable or malformed
        config, and explicit steps that are not a candidate.
    Why: the runtime buffers are sized for exactly the candidate steps
        (``_init_adaptive_speculative_params``, arg_groups/speculative_hook.py).
    Assumes: the adaptive config file reads the same at launch time as when launchplan reads it.
    """
    if not v.speculative_adaptive:
        return None
    steps_or_error = _adaptive_steps(v.speculative_adaptive_config)
    if isinstance(steps_or_error, str):
        return Refuse(steps_or_error)
    candidates = steps_or_error
    out: dict[str, int] = {}
    if v.speculative_eagle_topk is None:
        out["speculative_eagle_topk"] = 1
    steps = v.speculative_num_steps
    if steps is None:
        steps = out["speculative_num_steps"] = candidates[len(candidates) // 2]
    if steps not in candidates:
        return Refuse(f"--speculative-num-steps {steps} is not one of the adaptive candidate "
                      f"steps {list(candidates)}")
    out["speculative_num_draft_tokens"] = steps + 1
    return out
