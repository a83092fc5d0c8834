"""GLM-4.5/4.6 MoE: checkpoint quantization and the SM10x MoE runner, TF32 gate GEMMs."""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BATCH,
    checkpoint_quant_method,
    quantization_unset_explicitly,
)

ARCHS = frozenset({"Glm4MoeForCausalLM"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("quantization", "moe_a2a_backend", "moe_runner_backend"),
    writes=("quantization", "moe_runner_backend", "enable_tf32_matmul"),
    facts=("model.arch0", "model.quantization_config", "target.is_sm100"),
    sglang="_glm4_moe_overrides (model_overrides/glm4_moe.py)",
)
def glm4_moe_overrides(v: View) -> dict | None:
    """TF32 for the router GEMM always; on SM10x the checkpoint's method and trtllm-gen MoE.

    On SM10x an unset ``--quantization`` (not ``unquant``) takes the checkpoint's
    ``quant_method``; with modelopt_fp4 or no quantization, no A2A backend and an automatic
    runner, the MoE runs on ``flashinfer_trtllm``.
    """
    out: dict[str, Any] = {}
    if v.target.is_sm100:
        method = checkpoint_quant_method(v)
        quantization = v.quantization
        if quantization is None and not quantization_unset_explicitly(v) and method is not None:
            out["quantization"] = quantization = method
        if (quantization in ("modelopt_fp4", None) and v.moe_a2a_backend == "none"
                and v.moe_runner_backend == "auto"):
            out["moe_runner_backend"] = "flashinfer_trtllm"
    out["enable_tf32_matmul"] = True
    return out
