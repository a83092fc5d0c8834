"""Boundary reduction (SGLang's P51): how the model and its draft reduce at layer ends."""

from __future__ import annotations

from collections.abc import Callable, Mapping

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


# 0.5.21's all-reduce list: Kimi-K3 and Qwen4-Exp were added in 0.5.22.
_AR_ARCHS_0_5_21 = _AR_ARCHS - {"KimiK3ForConditionalGeneration", "KimiK3LinearForCausalLM",
                                "Qwen4ExpForConditionalGeneration", "Qwen4ExpForCausalLMMTP"}


@per_object
def model_boundary_reduction(config: Mapping) -> str:
    """How a model reduces at layer boundaries: ``rsv``, ``ar`` or the default ``rs+rsv``.

    Decided by the architectures, MiniCPM-V 4.5, the Qwen3 model types, else the nested
    language config of a wrapper (a speech or omni model's thinker's).
    """
    return _boundary_reduction(config, _AR_ARCHS)


@per_object
def model_boundary_reduction_0_5_21(config: Mapping) -> str:
    """As ``model_boundary_reduction`` with 0.5.21's shorter all-reduce list."""
    return _boundary_reduction(config, _AR_ARCHS_0_5_21)


def _boundary_reduction(config: Mapping, ar_archs: frozenset[str]) -> str:
    archs = set(config.get("architectures") or ())
    if archs & _RSV_ARCHS:
        return "rsv"
    if archs & ar_archs:
        return "ar"
    model_type = config.get("model_type")
    if model_type == "minicpmv" and str(config.get("version", "")) == "4.5":
        return "ar"
    if model_type in ("qwen3", "qwen3_vl_text"):
        return "ar"
    thinker = config.get("thinker_config")
    if isinstance(thinker, Mapping) and isinstance(thinker.get("text_config"), Mapping):
        # the speech and omni models' text model sits in their thinker (their config
        # classes' own get_text_config); Qwen3-ASR's class builds it as a Qwen3 config
        # whatever the file's text_config says of its type
        text = thinker["text_config"]
        implied = _THINKER_TEXT_TYPES.get(model_type)
        return _boundary_reduction({**text, "model_type": implied} if implied else text,
                                   ar_archs)
    for name in ("text_config", "llm_config", "language_config"):
        nested = config.get(name)
        if isinstance(nested, Mapping) and nested is not config:
            return _boundary_reduction(nested, ar_archs)
    return "rs+rsv"


#: model type -> the type its config class gives the thinker's text config, where the class
#: builds one type whatever the file says (SGLang's configs/qwen3_asr.py: Qwen3Config)
_THINKER_TEXT_TYPES = {"qwen3_asr": "qwen3"}


_BOUNDARY = dict(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("boundary_reduction", "model_path", "speculative_draft_model_path"),
    writes=("boundary_reduction", "speculative_boundary_reduction"),
    facts=("model.config", "draft.config"),
)


@rule(**_BOUNDARY, sglang="resolve_boundary_reduction")
def boundary_reduction_default(v: View) -> dict:
    """``auto`` boundary reduction becomes the model's (and a separate draft's) preference.

    When: whenever its promises hold (every launch).
    Effect: ``boundary_reduction`` and ``speculative_boundary_reduction`` = the requested value,
        or for ``auto`` the model's preference, and a separate draft checkpoint's own for the
        draft: ``rsv``, ``ar`` or ``rs+rsv``.
    Why: models whose layers end in a reduce-scatter with a sequence-parallel residual prefer
        ``rsv``, plain Qwen3/Kimi-K3 families an all-reduce (``ar``), others ``rs+rsv``
        (``resolve_boundary_reduction``, arg_groups/boundary_reduction.py).
    Assumes: nothing.
    """
    return _resolve(v, model_boundary_reduction)


@rule(name="boundary_reduction_default", variant="0.5.21", **_BOUNDARY,
      sglang="resolve_boundary_reduction (0.5.21)")
def boundary_reduction_default_0_5_21(v: View) -> dict:
    """0.5.21: as ``boundary_reduction_default``; Kimi-K3 and Qwen4-Exp keep ``rs+rsv``.

    When: whenever its promises hold (every launch).
    Effect: as ``boundary_reduction_default``, but Kimi-K3 (and its linear variant) and
        Qwen4-Exp (and its MTP draft) are not all-reduce models.
    Why: 0.5.22 added them to the all-reduce list (``resolve_boundary_reduction``,
        arg_groups/boundary_reduction.py in 0.5.21).
    Assumes: nothing.
    """
    return _resolve(v, model_boundary_reduction_0_5_21)


def _resolve(v: View, preference: Callable[[Mapping], str]) -> dict:
    requested = v.boundary_reduction
    if requested != "auto":
        return {"boundary_reduction": requested, "speculative_boundary_reduction": requested}
    target = draft = preference(v.model.config)
    path = v.speculative_draft_model_path
    if algorithm_of(v) is not None and path is not None and path != v.model_path:
        config = draft_config_of(v)
        if config is not None:
            draft = preference(config)
    return {"boundary_reduction": target, "speculative_boundary_reduction": draft}
