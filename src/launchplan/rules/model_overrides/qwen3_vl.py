"""Qwen3-VL: the aiter unified-attention page size, and the large-Hopper serving profile."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts import environment
from launchplan.rules.model_overrides import BATCH, env_set, env_true

ARCHS = frozenset({"Qwen3VLForConditionalGeneration"})
HOPPER_SERVING_ARCHS = frozenset({"Qwen3VLForConditionalGeneration",
                                  "Qwen3VLMoeForConditionalGeneration"})
HOPPER_SERVING_TYPES = frozenset({"qwen3_vl", "qwen3_vl_moe"})
LARGE_HOPPER_MIB = 60 * 1024


def large_hopper_qwen3_vl(v: Any) -> bool:
    """A multimodal Qwen3-VL on a Hopper GPU with at least 60 GiB."""
    mem = v.target.memory_mib
    return (v.target.is_sm90 and mem is not None and mem >= LARGE_HOPPER_MIB
            and v.model.is_multimodal and v.model.model_type in HOPPER_SERVING_TYPES)


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("page_size",),
    writes=("page_size",),
    facts=("model.arch0", "target.is_hip"),
    sglang="_qwen3vl_overrides (model_overrides/qwen3_vl.py)",
)
def qwen3vl_overrides(v: View) -> dict | None:
    """On ROCm with ``SGLANG_USE_AITER_UNIFIED_ATTN``, an unset page size becomes 16.

    When: the target is ROCm, ``SGLANG_USE_AITER_UNIFIED_ATTN`` is true and no page size is set.
    Effect: ``page_size`` = 16; otherwise nothing.
    Why: aiter's unified attention kernel runs on 16-token pages (``_qwen3vl_overrides``,
        arg_groups/model_overrides/qwen3_vl.py).
    Assumes: ``SGLANG_USE_AITER_UNIFIED_ATTN`` is off unless the given environment sets it.
    """
    if v.target.is_hip and env_true(v, "SGLANG_USE_AITER_UNIFIED_ATTN") and v.page_size is None:
        return {"page_size": 16}
    return None


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=HOPPER_SERVING_ARCHS,
    reads=("mm_preprocess_cache_size_mb", "mm_feature_transport", "nnodes",
           "radix_eviction_policy", "_radix_eviction_policy_explicitly_set",
           "prefill_decode_interval", "attention_backend", "decode_attention_backend"),
    writes=("mm_preprocess_cache_size_mb", "mm_feature_transport", "radix_eviction_policy",
            "prefill_decode_interval", "decode_attention_backend"),
    facts=("model.arch0", "model.model_type", "model.is_multimodal", "target.is_sm90",
           "target.memory_mib"),
    sglang="_qwen3vl_hopper_serving_overrides (model_overrides/qwen3_vl.py)",
)
def qwen3vl_hopper_serving_overrides(v: View) -> dict | Refuse | None:
    """Qwen3-VL on a Hopper with 60 GiB or more gets SGLang's profiled serving defaults.

    When: a multimodal Qwen3-VL (``qwen3_vl``/``qwen3_vl_moe``) runs on an SM90 GPU with at least
        60 GiB of memory.
    Effect: unset ones only: ``mm_preprocess_cache_size_mb`` = 0; ``mm_feature_transport`` =
        ``cuda_ipc`` on one node when no embedding cache is kept; ``radix_eviction_policy`` =
        ``priority`` (an implicit ``lru`` only); ``prefill_decode_interval`` = 22;
        ``decode_attention_backend`` = flashinfer when no base or decode backend is chosen.
        A ``SGLANG_VLM_CACHE_SIZE_MB`` that is not an integer reads as its default, 100.
    Why: these are SGLang's profiled defaults for that hardware
        (``_qwen3vl_hopper_serving_overrides``, arg_groups/model_overrides/qwen3_vl.py).
    Assumes: ``SGLANG_VLM_CACHE_SIZE_MB`` unset counts as 0 (SGLang sets it so).
    """
    if not large_hopper_qwen3_vl(v):
        return None
    out: dict[str, Any] = {}
    # unset, SGLang sets it to 0 first; set but unreadable, it reads the default (100)
    vlm_cache_mb = (environment.value(v.env, "SGLANG_VLM_CACHE_SIZE_MB")
                    if env_set(v, "SGLANG_VLM_CACHE_SIZE_MB") else 0)
    preprocess_mb = v.mm_preprocess_cache_size_mb
    if preprocess_mb is None:
        preprocess_mb = out["mm_preprocess_cache_size_mb"] = 0
    retains = preprocess_mb > 0 or vlm_cache_mb > 0
    if v.mm_feature_transport is None and v.nnodes == 1 and not retains:
        out["mm_feature_transport"] = "cuda_ipc"
    if v.radix_eviction_policy == "lru" and not v._radix_eviction_policy_explicitly_set:
        out["radix_eviction_policy"] = "priority"
    if v.prefill_decode_interval is None:
        out["prefill_decode_interval"] = 22
    if v.attention_backend is None and v.decode_attention_backend is None:
        out["decode_attention_backend"] = "flashinfer"
    return out or None
