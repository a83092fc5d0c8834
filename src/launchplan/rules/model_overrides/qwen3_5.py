"""Qwen3-Next, Qwen3.5 and Intern-S2 (hybrid Gated DeltaNet): the SM10x backend and page."""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.attention import default_attention_backend
from launchplan.rules.model_overrides import BATCH

ARCHS = frozenset({
    "Qwen3NextForCausalLM",
    "Qwen3_5MoeForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration",
    "InternS2MobiusForConditionalGeneration",
    "Qwen3_5ForConditionalGeneration",
})

# What the SM10x choice reads besides the generic default's own inputs.
HYBRID_SM100_READS = ("attention_backend", "prefill_attention_backend",
                      "decode_attention_backend", "speculative_eagle_topk",
                      "speculative_algorithm", "page_size", "tp_size", "disable_radix_cache",
                      "mamba_radix_cache_strategy")


def mamba_extra_buffer(v: Any) -> bool:
    """The Mamba radix cache keeps extra state buffers (radix cache on, an extra strategy)."""
    return v.disable_radix_cache is False and v.mamba_radix_cache_strategy in (
        "extra_buffer", "extra_buffer_lazy")


def hybrid_sm100_choice(v: Any, dflash_fast: bool = True) -> dict[str, Any]:
    """trtllm_mha with page 64 where it can run, else triton with page 1.

    trtllm_mha needs pages > 1; the one case that needs page 1 is a radix cache without
    extra Mamba buffers and without speculation, so that case (and any case where the
    generic default is not trtllm_mha) takes triton. ``dflash_fast`` False is 0.5.21-0.5.22,
    whose generic default gives DFLASH (top-k still unset) no trtllm_mha.
    """
    page_one_cache = (not mamba_extra_buffer(v) and not v.disable_radix_cache
                      and v.speculative_algorithm is None)
    if default_attention_backend(v, dflash_fast) == "trtllm_mha" and not page_one_cache:
        return {"attention_backend": "trtllm_mha", "page_size": 64}
    return {"attention_backend": "triton", "page_size": 1}


_HYBRID = dict(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=HYBRID_SM100_READS,
    writes=("attention_backend", "page_size"),
    facts=("model.arch0", "model.is_mla", "model.has_asymmetric_kv", "target.is_sm100",
           "model.architectures", "target.is_sm90", "model.has_attention_sinks",
           "target.has_flashinfer", "target.is_cuda", "target.is_hip"),
)


@rule(**_HYBRID, sglang="_qwen3_5_hybrid_overrides (model_overrides/qwen3_5.py)")
def qwen3_5_hybrid_overrides(v: View) -> dict | None:
    """On SM10x with an unset base backend: trtllm_mha + page 64, or triton + page 1.

    When: the GPU is SM10x and no attention backend is set.
    Effect: ``attention_backend`` = trtllm_mha with ``page_size`` = 64, or triton with page 1 when
        the generic default would not be trtllm_mha (e.g. EAGLE without a top-k) or the Mamba
        cache must run at page 1 (radix cache on, no extra buffer, no speculation). The page is
        forced, even over an explicit ``--page-size``.
    Why: trtllm_mha needs pages > 1 (``_qwen3_5_hybrid_overrides``,
        arg_groups/model_overrides/qwen3_5.py).
    Assumes: nothing.
    """
    if not v.target.is_sm100 or v.attention_backend is not None:
        return None
    return hybrid_sm100_choice(v)


@rule(name="qwen3_5_hybrid_overrides", variant="0.5.22", **_HYBRID,
      sglang="_qwen3_5_hybrid_overrides (model_overrides/qwen3_5.py, 0.5.21-0.5.22)")
def qwen3_5_hybrid_overrides_0_5_22(v: View) -> dict | None:
    """As in 0.5.23, but DFLASH on SM10x takes triton with page 1.

    When: the GPU is SM10x and no attention backend is set.
    Effect: as the 0.5.23 rule, except that DFLASH (its top-k still unset) never gets
        trtllm_mha: triton with ``page_size`` 1.
    Why: before 0.5.23 the generic SM10x default gave trtllm_mha only to speculation with an
        explicit top-k, and this override follows the generic default
        (``get_default_attn_backend``, arg_groups/model_override_base.py).
    Assumes: nothing.
    """
    if not v.target.is_sm100 or v.attention_backend is not None:
        return None
    return hybrid_sm100_choice(v, dflash_fast=False)
