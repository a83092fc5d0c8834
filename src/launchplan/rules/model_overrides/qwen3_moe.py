"""Qwen3 MoE family: checkpoint quantization and the SM10x MoE runner."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BATCH,
    checkpoint_quant_method,
    env_true,
    quantization_config,
    quantization_unset_explicitly,
)

ARCHS = frozenset({
    "Qwen3MoeForCausalLM",
    "Qwen3VLMoeForConditionalGeneration",
    "Qwen3NextForCausalLM",
    "Qwen3_5MoeForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration",
    "Qwen3_5ForConditionalGeneration",
    "Qwen4ExpForConditionalGeneration",
})

# Quantizations whose MoE the trtllm-gen kernels run (None: bf16 weights).
TRTLLM_MOE_QUANTIZATIONS = ("fp8", "modelopt_fp4", "modelopt_mixed", None)


def _w4a16_experts(v: Any) -> bool:
    layers = quantization_config(v).get("quantized_layers") or {}
    return any(".experts" in name and isinstance(info, Mapping)
               and str(info.get("quant_algo", "")).upper() == "W4A16_NVFP4"
               for name, info in layers.items())


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("quantization", "moe_runner_backend", "moe_a2a_backend"),
    writes=("quantization", "moe_runner_backend"),
    facts=("model.arch0", "model.quantization_config", "target.is_sm100"),
    sglang="_qwen3_moe_family_overrides (model_overrides/qwen3_moe.py)",
)
def qwen3_moe_family_overrides(v: View) -> dict | Refuse | None:
    """On SM10x: the checkpoint's quantization, and trtllm-gen MoE (``flashinfer_trtllm``).

    An unset ``--quantization`` (not ``unquant``) takes the checkpoint's ``quant_method``.
    With fp8, modelopt_fp4, modelopt_mixed or no quantization, no A2A backend and an
    automatic runner, the MoE runs on ``flashinfer_trtllm``. W4A16 NVFP4 experts (which
    trtllm-gen cannot run) get marlin, or flashinfer_cutedsl when
    ``SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16`` opts in; other runners are refused.
    """
    if not v.target.is_sm100:
        return None
    out: dict[str, Any] = {}
    method = checkpoint_quant_method(v)
    quantization = v.quantization
    if quantization is None and not quantization_unset_explicitly(v) and method is not None:
        out["quantization"] = quantization = method
    runner = v.moe_runner_backend
    if quantization == "modelopt_mixed" and _w4a16_experts(v):
        cutedsl = (runner == "flashinfer_cutedsl"
                   and v.moe_a2a_backend in ("none", "flashinfer")
                   and env_true(v, "SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16"))
        if runner not in ("auto", "marlin") and not cutedsl:
            return Refuse("W4A16 NVFP4 MoE layers need --moe-runner-backend marlin, or "
                          "flashinfer_cutedsl with --moe-a2a-backend none/flashinfer and "
                          "SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16=1")
        if runner == "auto":
            out["moe_runner_backend"] = "marlin"
    elif (quantization in TRTLLM_MOE_QUANTIZATIONS and v.moe_a2a_backend == "none"
          and runner == "auto"):
        out["moe_runner_backend"] = "flashinfer_trtllm"
    return out or None
