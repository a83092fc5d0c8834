"""The SWA pool a sliding-window model needs when it is sized from the request cap.

With the radix cache off and ``--max-running-requests`` given (or, for DeepSeek-V4, whenever
the SWA ratio was not chosen by the operator), SGLang 0.5.23 sizes the sliding-window pool
from the worst case the scheduler can hold live: per request, its window, the eviction
interval's worth of (draft) tokens and a page of padding, plus what one decode step
allocates; plus the prefill chunks in flight (or, on a PD decode worker, the pre-allocated
transfer slots). Shared by the hybrid-SWA sizer (``kv_pool``) and DeepSeek-V4's
(``dsv4_pool``).
"""

from __future__ import annotations

from typing import Any

from launchplan.memory.env_settings import env_int

#: SGLANG_SWA_EVICTION_INTERVAL's default (tokens between SWA evictions).
SWA_EVICTION_INTERVAL = 128


def swa_request_cap(plan: Any, window: int | None) -> int:
    """SWA slots the scheduler can hold live at --max-running-requests."""
    v, page = plan.v, plan.page
    draft_tokens = v("speculative_num_draft_tokens") or 1
    interval = max(1, env_int(plan.env, "SGLANG_SWA_EVICTION_INTERVAL",
                               SWA_EVICTION_INTERVAL))
    trailing = int(window or 0) + interval * draft_tokens + page
    if plan.spec is None:
        decode = page
    else:
        steps = v("speculative_num_steps") or 0
        topk = v("speculative_eagle_topk") or 1
        if v("disable_overlap_schedule"):
            decode = _spec_alloc_per_request(page, steps, topk, draft_tokens)
        else:
            decode = 2 * _spec_alloc_per_decode(plan, steps, topk, draft_tokens)
    per_request = trailing + decode
    requests = plan.requests_per_rank(v("max_running_requests"))
    if v("disaggregation_mode") == "decode":
        extra = v("disaggregation_decode_extra_slots") or 0
        return per_request * requests + (int(window or 0) + page) * extra
    in_flight = 1 if v("disable_overlap_schedule") else 2
    return per_request * requests + in_flight * int(v("chunked_prefill_size")) + page


def _spec_alloc_per_request(page: int, steps: int, topk: int, draft_tokens: int) -> int:
    """KV tokens one (non-overlapped) speculative decode step allocates per request: the
    draft tree's peak or the verified tokens, page-aligned."""
    per_branch, tokens = steps or 1, draft_tokens or 1
    if page > 1:
        per_branch = -(-(per_branch + (page if topk > 1 else 0)) // page) * page
        tokens = -(-tokens // page) * page
    return max(per_branch * topk, tokens)


def _spec_alloc_per_decode(plan: Any, steps: int, topk: int, draft_tokens: int) -> int:
    """KV tokens one overlapped speculative decode step may allocate per request."""
    steps = steps or 1
    page = plan.page * plan.attn_dcp
    if page == 1 or topk == 1:
        return max(steps * topk, draft_tokens)
    pages_per_branch = ((page - 1) + steps + page - 1) // page
    return max(pages_per_branch * page * topk, draft_tokens)
