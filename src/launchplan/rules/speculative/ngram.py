"""NGRAM speculation: its defaults and the limits of its draft-free verify."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.speculative.common import (
    ALGO,
    RUNNING_NOTE,
    attn_dp_enabled,
    dp_attention_switch_0_5_21,
    running_requests_default,
)


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("device", "disable_overlap_schedule", "max_running_requests",
                  "speculative_ngram_max_bfs_breadth", "speculative_num_draft_tokens",
                  "speculative_num_steps", "speculative_ngram_external_corpus_path",
                  "speculative_ngram_external_sam_budget",
                  "speculative_ngram_external_corpus_max_tokens"),
    writes=("disable_overlap_schedule", "max_running_requests", "enable_mixed_chunk",
            "speculative_eagle_topk", "speculative_num_draft_tokens", "speculative_num_steps"),
    sglang="_handle_ngram (and its _disable_overlap_schedule_for_cpu)",
    triggers={"speculative_algorithm": ("NGRAM",)},
)
def ngram_defaults(v: View) -> Declare | Refuse | None:
    """NGRAM drafts a breadth-first tree from matched n-grams, with no draft model.

    When: the algorithm is ``NGRAM``.
    Effect: ``speculative_eagle_topk`` = ``--speculative-ngram-max-bfs-breadth`` (default 10);
        unset ``speculative_num_draft_tokens`` = 12 and ``speculative_num_steps`` = tokens //
        top-k; unset ``max_running_requests`` = 48; ``enable_mixed_chunk`` = false; on CPU
        ``disable_overlap_schedule`` = true. Refuses devices other than CUDA, CPU or XPU, a
        breadth of 0 when the steps are left to it (SGLang divides by it), and with an
        external corpus a non-positive SAM budget or corpus token limit, or a budget above
        draft tokens - 1.
    Why: its overlap relay skips the buffer the mixed step reads (``_handle_ngram``,
        arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    if v.device not in ("cuda", "cpu", "xpu"):
        return Refuse(f"NGRAM speculative decoding runs on CUDA, CPU or XPU, not {v.device}")
    out: dict[str, Any] = {}
    notes = []
    if v.device == "cpu" and not v.disable_overlap_schedule:
        out["disable_overlap_schedule"] = True
        notes.append("speculative decoding on CPU has no overlap schedule")
    out.update(running_requests_default(v))
    if "max_running_requests" in out:
        notes.append(RUNNING_NOTE)
    out["enable_mixed_chunk"] = False
    topk = out["speculative_eagle_topk"] = v.speculative_ngram_max_bfs_breadth
    tokens = v.speculative_num_draft_tokens
    if tokens is None:
        tokens = out["speculative_num_draft_tokens"] = 12
    if v.speculative_num_steps is None:
        if topk == 0:  # SGLang divides by it and stops with a ZeroDivisionError
            return Refuse("--speculative-ngram-max-bfs-breadth 0 with NGRAM and no "
                          "--speculative-num-steps: the steps are the draft tokens divided by "
                          "the breadth; give a breadth of at least 1, or the steps")
        out["speculative_num_steps"] = tokens // topk
    if v.speculative_ngram_external_corpus_path is not None:
        budget = v.speculative_ngram_external_sam_budget
        if budget <= 0:
            return Refuse("--speculative-ngram-external-sam-budget must be positive with an "
                          "external corpus")
        if v.speculative_ngram_external_corpus_max_tokens <= 0:
            return Refuse("--speculative-ngram-external-corpus-max-tokens must be positive "
                          "with an external corpus")
        if budget > tokens - 1:
            return Refuse(f"--speculative-ngram-external-sam-budget must be at most "
                          f"speculative_num_draft_tokens - 1 ({tokens - 1})")
    notes.append("mixed chunked prefill disabled for NGRAM speculative decoding")
    return Declare(out, "; ".join(notes))


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("speculative_eagle_topk", "page_size", "attention_backend", "attn_dp_size",
                  "ep_join_mode"),
    sglang="_handle_ngram (checks)",
    triggers={"speculative_algorithm": ("NGRAM",)},
)
def ngram_checks(v: View) -> Refuse | None:
    """NGRAM trees on pages > 1 are correct only on flashinfer; no attention DP.

    When: the algorithm is ``NGRAM``.
    Effect: refuses top-k > 1 with page size > 1 on a backend other than flashinfer, and
        attention DP.
    Why: other backends give wrong results for NGRAM trees on multi-token pages
        (``_handle_ngram``, arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    return _ngram_checks(v, attn_dp_enabled(v))


@rule(
    name="ngram_checks", variant="0.5.21",
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("speculative_eagle_topk", "page_size", "attention_backend", "attn_dp_size",
                  "enable_dp_attention"),
    sglang="_handle_ngram (checks; 0.5.21)",
    triggers={"speculative_algorithm": ("NGRAM",)},
)
def ngram_checks_0_5_21(v: View) -> Refuse | None:
    """0.5.21: the same checks, attention DP read as 0.5.21's switch.

    When: the algorithm is ``NGRAM``.
    Effect: as ``ngram_checks``, with any attention-DP width but 1 counted as attention DP
        (``--enable-dp-attention --dp-size -1`` included).
    Why: 0.5.21 tests ``enable_dp_attention``, which stays on for a width below 1 (it checks
        no width), so ``_handle_ngram`` refuses it.
    Assumes: nothing.
    """
    return _ngram_checks(v, dp_attention_switch_0_5_21(v))


def _ngram_checks(v: View, attn_dp: bool) -> Refuse | None:
    topk = v.speculative_eagle_topk
    if topk > 1 and v.page_size > 1 and v.attention_backend != "flashinfer":
        return Refuse(f"NGRAM with top-k {topk} and page_size {v.page_size} gives wrong results "
                      f"on {v.attention_backend}; only flashinfer supports it")
    if attn_dp:
        return Refuse("NGRAM speculative decoding does not support attention DP")
    return None
