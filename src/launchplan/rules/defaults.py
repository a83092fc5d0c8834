"""Defaults SGLang fills before anything reads them: paths, device, draft quantization."""

from __future__ import annotations

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View


@rule(
    phase=Phase.MODEL_SOURCE,
    reads=("model_path", "tokenizer_path", "served_model_name", "mm_process_config",
           "speculative_draft_model_quantization", "quantization",
           "_speculative_draft_quantization_explicitly_set"),
    writes=("tokenizer_path", "served_model_name", "mm_process_config",
            "speculative_draft_model_quantization", "quantization",
            "_speculative_draft_quantization_explicitly_set"),
    sglang="handle_missing_default_values",
)
def missing_default_values(v: View) -> dict | None:
    """The tokenizer and served name default to the model path; drafts inherit quantization.

    When: whenever its promises hold (it fills only what is unset).
    Effect: unset ``tokenizer_path`` and ``served_model_name`` become ``model_path``, an unset
        ``mm_process_config`` ``{}``; the draft's quantization defaults to the target's input
        value (and records whether it was explicit); ``unquant`` becomes None on either.
    Why: SGLang fills these before anything reads them (``handle_missing_default_values``);
        ``--quantization unquant`` means "no quantization".
    Assumes: ``random_seed`` is drawn at start-up, so a plan leaves it unknown.
    """
    out: dict = {}
    if v.tokenizer_path is None:
        out["tokenizer_path"] = v.model_path
    if v.served_model_name is None:
        out["served_model_name"] = v.model_path
    if v.mm_process_config is None:
        out["mm_process_config"] = {}
    if v._speculative_draft_quantization_explicitly_set is None:
        out["_speculative_draft_quantization_explicitly_set"] = (
            v.speculative_draft_model_quantization is not None)
    draft_quant = v.speculative_draft_model_quantization
    if draft_quant is None:
        draft_quant = out["speculative_draft_model_quantization"] = v.quantization
    if v.quantization == "unquant":
        out["quantization"] = None
    if draft_quant == "unquant":
        out["speculative_draft_model_quantization"] = None
    return out or None


@rule(
    phase=Phase.MODEL_SOURCE,
    reads=("device",),
    writes=("device",),
    facts=("target.vendor",),
    sglang="handle_missing_default_values (device)",
    normalizes=True,
)
def device_default(v: View) -> dict | None:
    """The device is the GPU's (``cuda`` on NVIDIA and on ROCm); ``cuda:0`` loses its index.

    When: whenever its promises hold.
    Effect: an unset ``device`` becomes cuda; an indexed one (``cuda:0``) is stripped to its
        type, and a given one (``--device cuda``) is declared again as it is.
    Why: ROCm builds of torch also call their device ``cuda``
        (``handle_missing_default_values``, device); SGLang strips the index of whatever
        device it has, so the field is always that step's (a pasted ``--device cuda`` too).
    Assumes: the target profile's GPU is the device present (SGLang probes the platform).
    """
    device = v.device
    if device is None:
        return {"device": "cuda"}
    return {"device": str(device).split(":")[0]}
