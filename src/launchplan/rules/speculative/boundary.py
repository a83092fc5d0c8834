"""Boundary reduction (SGLang's P51): how the model and its draft reduce at layer ends."""

from __future__ import annotations

from collections.abc import Mapping

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts.memo import per_object
from launchplan.rules.speculative.common import (
    ALGO,
    algorithm_of,
    draft_config_of,
)

_RSV_ARCHS = frozenset({"BailingMoELinearForCausalLM", "BailingMoeV2_5ForCausalLM",
                        "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN",
                        "Step3VLForConditionalGeneration"})
_AR_ARCHS = frozenset({"KimiK3ForConditionalGeneration", "KimiK3LinearForCausalLM",
                       "Qwen3ForCausalLM", "Qwen3ForSequenceClassification", "Qwen3Model",
                       "Qwen3ForRewardModel", "MossVLForCausalLM",
                       "MossVLForConditionalGeneration", "Qwen4ExpForConditionalGeneration",
                       "Qwen4ExpForCausalLMMTP"})


@per_object
def model_boundary_reduction(config: Mapping) -> str:
    """How a model reduces at layer boundaries: ``rsv``, ``ar`` or the default ``rs+rsv``.

    Decided by the architectures, MiniCPM-V 4.5, the Qwen3 model types, else the nested
    language config of a wrapper.
    """
    archs = set(config.get("architectures") or ())
    if archs & _RSV_ARCHS:
        return "rsv"
    if archs & _AR_ARCHS:
        return "ar"
    model_type = config.get("model_type")
    if model_type == "minicpmv" and str(config.get("version", "")) == "4.5":
        return "ar"
    if model_type in ("qwen3", "qwen3_vl_text"):
        return "ar"
    for name in ("text_config", "llm_config", "language_config"):
        nested = config.get(name)
        if isinstance(nested, Mapping) and nested is not config:
            return model_boundary_reduction(nested)
    return "rs+rsv"


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("boundary_reduction", "model_path", "speculative_draft_model_path"),
    writes=("boundary_reduction", "speculative_boundary_reduction"),
    facts=("model.config", "draft.config"),
    sglang="resolve_boundary_reduction",
)
def boundary_reduction_default(v: View) -> dict:
    """``auto`` boundary reduction becomes the model's (and a separate draft's) preference.

    Models whose layers end in a reduce-scatter with a sequence-parallel residual prefer
    ``rsv``, plain Qwen3/Kimi-K3 families an all-reduce (``ar``), others ``rs+rsv``.
    """
    requested = v.boundary_reduction
    if requested != "auto":
        return {"boundary_reduction": requested, "speculative_boundary_reduction": requested}
    target = draft = model_boundary_reduction(v.model.config)
    path = v.speculative_draft_model_path
    if algorithm_of(v) is not None and path is not None and path != v.model_path:
        config = draft_config_of(v)
        if config is not None:
            draft = model_boundary_reduction(config)
    return {"boundary_reduction": target, "speculative_boundary_reduction": draft}
