"""UNO speculation: a LoRA-adapted draft on CUDA, and its tree limits."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.attention import BACKEND_FIELDS, effective_backends
from launchplan.rules.speculative.common import (
    ALGO,
    attn_dp_enabled,
)


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + BACKEND_FIELDS + (
        "device", "speculative_draft_model_path", "uno_lora_path",
        "enable_deterministic_inference", "enable_strict_thinking",
        "speculative_num_draft_tokens", "speculative_eagle_topk", "speculative_num_steps",
        "enable_pdmux", "enable_two_batch_overlap", "speculative_accept_threshold_single",
        "speculative_accept_threshold_acc", "tp_size", "pp_size", "attn_dp_size",
        "ep_join_mode", "attn_cp_size", "enable_lora", "lora_paths",
        "speculative_use_rejection_sampling", "enable_mixed_chunk"),
    writes=("speculative_num_draft_tokens", "speculative_num_steps", "speculative_eagle_topk",
            "enable_lora_overlap_loading", "lora_strict_loading", "enable_mixed_chunk"),
    sglang="_handle_uno",
    triggers={"speculative_algorithm": ("UNO",)},
)
def uno_defaults(v: View) -> Declare | Refuse | None:
    """UNO drafts with a LoRA on the target itself, on CUDA, TP = PP = 1, FA3 both ways.

    When: the algorithm is ``UNO``.
    Effect: ``speculative_num_draft_tokens`` = the given verify width Q; top-k 1 is a linear chain
        (``speculative_num_steps`` and ``speculative_eagle_topk`` = 1), top-k K > 1 a tree of
        F = steps + 1 levels; ``enable_lora_overlap_loading`` = false, ``lora_strict_loading`` =
        true, ``enable_mixed_chunk`` = false (with a note). Refuses: off CUDA, a draft path, no
        ``--uno-lora-path``, deterministic inference, strict thinking, no positive Q, a tree
        outside F <= Q <= 128, Q*K <= 2048 and its node and EAGLE parent-list capacity (or with
        PD-mux, two-batch overlap or accept thresholds other than 1.0), TP or PP > 1, attention
        DP or CP, other LoRA adapters, rejection sampling, and backends other than fa3 both ways.
    Why: the draft is a LoRA on the target run by the EAGLE tree machinery on FA3; UNO verifies
        stochastically itself (``_handle_uno``, arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    if not str(v.device).startswith("cuda"):
        return Refuse("UNO speculative decoding runs on CUDA only")
    if v.speculative_draft_model_path is not None:
        return Refuse("UNO drafts with the target model; drop --speculative-draft-model-path")
    if v.uno_lora_path is None:
        return Refuse("UNO needs --uno-lora-path")
    if v.enable_deterministic_inference:
        return Refuse("UNO does not support --enable-deterministic-inference (no per-request "
                      "seeds in its sampling)")
    if v.enable_strict_thinking:
        return Refuse("UNO does not support --enable-strict-thinking (it needs grammar "
                      "decoding)")
    width = v.speculative_num_draft_tokens
    if width is None or int(width) < 1:
        return Refuse("UNO needs a positive --speculative-num-draft-tokens (the verify width)")
    width = int(width)
    out: dict[str, Any] = {"speculative_num_draft_tokens": width}
    topk = 1 if v.speculative_eagle_topk is None else int(v.speculative_eagle_topk)
    if topk < 1:
        return Refuse(f"UNO needs --speculative-eagle-topk of at least 1, got {topk}")
    if topk > 1:
        refusal = _uno_tree_refusal(v, width, topk)
        if refusal is not None:
            return refusal
        out.update(speculative_num_steps=int(v.speculative_num_steps),
                   speculative_eagle_topk=topk)
    else:
        out.update(speculative_num_steps=1, speculative_eagle_topk=1)
    if (v.tp_size, v.pp_size) != (1, 1):
        return Refuse("UNO needs tp_size 1 and pp_size 1")
    if attn_dp_enabled(v) or v.attn_cp_size != 1:
        return Refuse("UNO does not support attention DP or context parallelism")
    if v.enable_lora or v.lora_paths:
        return Refuse("UNO does not support serving other LoRA adapters")
    out.update(enable_lora_overlap_loading=False, lora_strict_loading=True)
    if v.speculative_use_rejection_sampling:
        return Refuse("UNO verifies stochastically itself; drop "
                      "--speculative-use-rejection-sampling")
    note = None
    if v.enable_mixed_chunk:
        out["enable_mixed_chunk"] = False
        note = "mixed chunked prefill disabled for UNO speculative decoding"
    prefill, decode = effective_backends(v)
    if (prefill, decode) != ("fa3", "fa3"):
        return Refuse(f"UNO needs fa3 for prefill and decode; got {prefill} and {decode}")
    return Declare(out, note)


def _uno_tree_refusal(v: Any, width: int, topk: int) -> Refuse | None:
    steps = v.speculative_num_steps
    if steps is None:
        return Refuse("UNO tree mode (top-k > 1) needs --speculative-num-steps")
    steps = int(steps)
    if steps < 1:
        return Refuse(f"UNO tree mode needs a positive --speculative-num-steps, got {steps}")
    levels = steps + 1
    if width < levels:
        return Refuse(f"UNO tree mode needs Q >= F; got Q={width}, F={levels}")
    if width > 128:
        return Refuse(f"UNO tree mode supports at most Q=128 verify nodes, got {width}")
    if width * topk > 2048:
        return Refuse(f"UNO tree mode needs Q*K <= 2048, got {width}*{topk}")
    capacity, nodes = 1, 1
    for _ in range(steps):
        nodes *= topk
        capacity += nodes
        if capacity >= width:
            break
    if width > capacity:
        return Refuse(f"UNO tree mode cannot build Q={width} from F={levels}, K={topk} "
                      f"(capacity {capacity})")
    parents = topk * max(steps - 1, 0) + 1
    if width - 1 > parents:
        return Refuse(f"UNO tree mode: Q-1={width - 1} exceeds EAGLE's parent list "
                      f"K*(F-2)+1={parents}")
    if v.enable_pdmux:
        return Refuse("UNO tree mode does not support PD multiplexing")
    if v.enable_two_batch_overlap:
        return Refuse("UNO tree mode does not support two-batch overlap")
    if (v.speculative_accept_threshold_single != 1.0
            or v.speculative_accept_threshold_acc != 1.0):
        return Refuse("UNO tree mode needs both speculative accept thresholds at 1.0")
    return None
