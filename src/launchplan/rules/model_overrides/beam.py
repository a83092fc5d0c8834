"""Beam: TRT-LLM MHA attention and the NVFP4 MoE runner."""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    BATCH,
    backends_unset,
    checkpoint_quant_method,
    quantization_config,
)

ARCHS = frozenset({"BeamForCausalLM"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS + ("quantization", "moe_runner_backend", "moe_a2a_backend"),
    writes=("attention_backend", "moe_runner_backend"),
    facts=("model.arch0", "model.config", "target.is_sm90", "target.is_sm100",
           "target.is_sm120", "model.quantization_config"),
    sglang="_beam_overrides (model_overrides/beam.py)",
)
def beam_overrides(v: View) -> dict | None:
    """Beam serves on ``trtllm_mha`` on SM90, SM10x and SM12x when no backend is chosen.

    TRT-LLM MHA has kernels for all three (FMHA-v2/XQA on Hopper and SM12x, trtllm-gen on
    SM10x). An NVFP4 checkpoint on SM10x with an automatic MoE runner and no A2A backend
    gets ``flashinfer_trtllm``.
    """
    t = v.target
    out: dict[str, Any] = {}
    if backends_unset(v) and (t.is_sm90 or t.is_sm100 or t.is_sm120):
        out["attention_backend"] = "trtllm_mha"
    quantization = v.quantization or checkpoint_quant_method(v)
    if quantization == "modelopt":
        quantization = quantization_config(v).get("quant_algo")
    if (quantization in ("modelopt_fp4", "NVFP4") and t.is_sm100
            and v.moe_runner_backend == "auto" and v.moe_a2a_backend == "none"):
        out["moe_runner_backend"] = "flashinfer_trtllm"
    return out
