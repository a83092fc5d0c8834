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


def hybrid_sm100_choice(v: Any) -> dict[str, Any]:
    """trtllm_mha with page 64 where it can run, else triton with page 1.

    trtllm_mha needs pages > 1; the one case that needs page 1 is a radix cache without
    extra Mamba buffers and without speculation, so that case (and any case where the
    generic default is not trtllm_mha) takes triton.
    """
    page_one_cache = (not mamba_extra_buffer(v) and not v.disable_radix_cache
                      and v.speculative_algorithm is None)
    if default_attention_backend(v) == "trtllm_mha" and not page_one_cache:
        return {"attention_backend": "trtllm_mha", "page_size": 64}
    return {"attention_backend": "triton", "page_size": 1}


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=HYBRID_SM100_READS,
    writes=("attention_backend", "page_size"),
    facts=("model.arch0", "model.is_mla", "model.has_asymmetric_kv", "target.is_sm100",
           "model.architectures", "target.is_sm90", "model.has_attention_sinks",
           "target.has_flashinfer", "target.is_cuda", "target.is_hip"),
    sglang="_qwen3_5_hybrid_overrides (model_overrides/qwen3_5.py)",
)
def qwen3_5_hybrid_overrides(v: View) -> dict | None:
    """On SM10x with an unset base backend: trtllm_mha + page 64, or triton + page 1.

    The page is forced, even over an explicit ``--page-size``. triton is chosen when the
    generic default would not be trtllm_mha (e.g. EAGLE without a top-k) or when the Mamba
    cache must run at page 1 (radix cache on, no extra buffer, no speculation).
    """
    if not v.target.is_sm100 or v.attention_backend is not None:
        return None
    return hybrid_sm100_choice(v)
