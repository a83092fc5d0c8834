"""A vision tower whose attention cannot run over a narrowed attention-TP group.

Some towers shard their attention over the attention-TP group yet sum its output over the
whole TP group (SGLang's ``VisionAttention`` built without the attention-DP reduce). Where
attention DP or attention CP makes attention TP narrower than TP but wider than one GPU,
that sum would mix ranks holding other requests, so SGLang refuses to build the tower at
start-up. Towers that reduce over attention TP (Qwen3-VL, Qwen3.5) or keep their attention
whole are unaffected, as is a tower that never runs on this server.
"""

from __future__ import annotations

from launchplan.checks.predicates import Requirement, Severity, Values, cond

#: model types whose vision attention all-reduces over the full TP group (SGLang 0.5.23:
#: ``qwen2_5_vl.py``'s ``Qwen2_5_VisionBlock``, ``siglip.py`` under ``gemma3_mm.py``; both
#: recorded refusing at tp 4 with attention DP 2, ``tests/parity/data/results-vision-params``)
FULL_TP_REDUCE = frozenset({"qwen2_5_vl", "gemma3"})
#: of those, the ones whose tower ``--mm-enable-dp-encoder`` keeps whole on every GPU
DP_ENCODER = frozenset({"qwen2_5_vl"})


def _positive(value: object) -> int:
    return value if type(value) is int and value > 0 else 1


def attention_tp(p: Values) -> int:
    """TP over attention DP x attention CP (TP itself when that does not divide it)."""
    tp = _positive(p["tp_size"])
    attn_dp = _positive(p["attn_dp_size"])
    if attn_dp == 1 and p["enable_dp_attention"]:
        attn_dp = _positive(p["dp_size"])
    split = attn_dp * _positive(p["attn_cp_size"])
    return tp // split if tp % split == 0 else tp


def _tower_sharded_here(p: Values) -> bool:
    """A tower of that kind is built, sharded, and forwarded on this server."""
    model_type = p.model.model_type
    if model_type not in FULL_TP_REDUCE or not p.model.config.get("vision_config"):
        return False  # (built whether or not multimodal input is enabled)
    if p["language_model_only"] or p["disaggregation_mode"] == "decode":
        return False
    if p["language_only"] and not p["enable_adaptive_dispatch_to_encoder"]:
        return False  # the encoder instance runs the tower
    return not (model_type in DP_ENCODER and p["mm_enable_dp_encoder"])


def _reduce_matches(p: Values) -> bool:
    attn_tp = attention_tp(p)
    return attn_tp == 1 or attn_tp >= _positive(p["tp_size"])


VISION_ATTENTION_REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        "vision-attention-over-full-tp",
        cond("a vision tower that sums its attention over the whole TP group",
             _tower_sharded_here, "language_only", "mm_enable_dp_encoder"),
        cond("attention TP equal to TP, or 1", _reduce_matches, "attn_dp_size",
             "attn_cp_size", "tp_size"),
        "this tower shards its attention over the attention-TP group but sums it over the "
        "whole TP group: with attention DP or CP narrowing the group to more than one GPU, "
        "the sum would mix other requests' ranks, so the tower is not built",
        Severity.FAILS_AT_START,
        "sglang/srt/layers/dp_attention.py: reject_attn_tp_shard_with_tp_reduce, called by "
        "VisionAttention (layers/attention/vision.py) when the tower is built",
        detail=lambda p: (f"attention TP {attention_tp(p)} of tp {p['tp_size']}: the "
                          f"{p.model.model_type} vision tower needs attention DP x CP equal to "
                          "tp (or 1)" + (", or --mm-enable-dp-encoder"
                                         if p.model.model_type in DP_ENCODER else ""))),
)
