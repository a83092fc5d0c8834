"""IQuest Q1 (and its MTP draft): FA3 only, and its speculative-decoding limits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    BATCH,
    attn_dp_enabled,
    backends_unset,
    dp_attention_switch_0_5_21,
)

ARCHS = frozenset({"IQuestQ1ForCausalLM", "IQuestQ1MTP"})


def _refusal(v: Any, attn_dp: Callable[[Any], bool]) -> str | None:
    if any(b not in (None, "fa3") for b in (v.attention_backend, v.prefill_attention_backend,
                                            v.decode_attention_backend)):
        return ("IQuest Q1 applies its attention sink through the softmax LSE, which only "
                "FA3 exposes: prefill and decode must both use fa3")
    algorithm = v.speculative_algorithm
    if algorithm is not None:
        if str(algorithm).upper() not in ("EAGLE", "NEXTN"):
            return "IQuest Q1 MTP drafts with serial EAGLE or NEXTN only"
        if v.speculative_draft_attention_backend not in (None, "fa3"):
            return "IQuest Q1's MTP draft needs the fa3 attention backend"
    if v.attn_cp_size > 1 or v.dcp_size > 1 or v.enable_prefill_cp:
        return "IQuest Q1 does not support context parallelism"
    if v.speculative_eagle_topk is not None and v.speculative_eagle_topk > 1:
        return "IQuest Q1 speculative decoding needs --speculative-eagle-topk 1"
    if v.enable_multi_layer_eagle:
        return "IQuest Q1 MTP drafting does not support multi-layer EAGLE"
    if attn_dp(v):
        return "IQuest Q1 does not support attention data parallelism"
    if v.pp_size > 1:
        return "IQuest Q1 does not support pipeline parallelism"
    return None


_OVERRIDES = dict(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS + ("speculative_algorithm", "speculative_draft_attention_backend",
                            "attn_cp_size", "dcp_size", "enable_prefill_cp",
                            "speculative_eagle_topk", "enable_multi_layer_eagle",
                            "attn_dp_size", "ep_join_mode", "pp_size"),
    writes=BACKEND_FIELDS,
    facts=("model.arch0",),
)


@rule(**_OVERRIDES, sglang="_iquest_q1_overrides (model_overrides/iquest_q1.py)")
def iquest_q1_overrides(v: View) -> dict | Refuse | None:
    """IQuest Q1 runs on fa3 only: every unset side becomes fa3, anything else is refused.

    When: whenever its promises hold.
    Effect: refuses a non-fa3 attention side, drafting other than EAGLE/NEXTN, a non-fa3 draft
        backend, context parallelism, top-k > 1, multi-layer EAGLE, attention DP and pipeline
        parallelism; otherwise ``attention_backend`` = fa3 when nothing is chosen, else each unset
        ``prefill_attention_backend``/``decode_attention_backend`` = fa3.
    Why: its attention sink is applied from the softmax LSE, which the FA3 kernels return
        (``_iquest_q1_overrides``, arg_groups/model_overrides/iquest_q1.py).
    Assumes: nothing.
    """
    return _overrides(v, attn_dp_enabled)


@rule(name="iquest_q1_overrides", variant="0.5.21",
      **{**_OVERRIDES, "reads": _OVERRIDES["reads"] + ("enable_dp_attention",)},
      sglang="_iquest_q1_overrides (0.5.21)")
def iquest_q1_overrides_0_5_21(v: View) -> dict | Refuse | None:
    """0.5.21: as the current rule, with attention DP read from 0.5.21's switch.

    When: as ``iquest_q1_overrides``.
    Effect: as ``iquest_q1_overrides``, but ``--enable-dp-attention`` is refused with one DP
        group too, and a scale-up joiner without the switch is not.
    Why: 0.5.21 tests ``enable_dp_attention``, which it clears with one DP group only later,
        in ``handle_data_parallelism``.
    Assumes: nothing.
    """
    return _overrides(v, dp_attention_switch_0_5_21)


def _overrides(v: View, attn_dp: Callable[[Any], bool]) -> dict | Refuse | None:
    reason = _refusal(v, attn_dp)
    if reason is not None:
        return Refuse(reason)
    if backends_unset(v):
        return {"attention_backend": "fa3"}
    out: dict[str, Any] = {}
    if v.attention_backend is None and v.prefill_attention_backend is None:
        out["prefill_attention_backend"] = "fa3"
    if v.attention_backend is None and v.decode_attention_backend is None:
        out["decode_attention_backend"] = "fa3"
    return out or None
