"""MiniMax-M2: TF32 gate GEMMs, and the routed MoE runner for modelopt_fp4 on SM10x."""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BATCH, model_quantization

ARCHS = frozenset({"MiniMaxM2ForCausalLM"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("moe_runner_backend", "quantization"),
    writes=("enable_tf32_matmul", "moe_runner_backend"),
    facts=("model.arch0", "model.quant_method", "target.is_sm100",
           "model.quant_config", "target.gfx", "target.sm", "target.vendor"),
    sglang="_minimax_m2_overrides (model_overrides/minimax_m2.py)",
)
def minimax_m2_overrides(v: View) -> dict | None:
    """TF32 matmul always (faster router GEMM); modelopt_fp4 on SM10x uses the routed runner.

    With an automatic runner, a modelopt_fp4 checkpoint on SM10x runs its MoE on
    trtllm-gen's ``flashinfer_trtllm_routed``.
    """
    out: dict[str, Any] = {"enable_tf32_matmul": True}
    if (v.target.is_sm100 and v.moe_runner_backend == "auto"
            and model_quantization(v) == "modelopt_fp4"):
        out["moe_runner_backend"] = "flashinfer_trtllm_routed"
    return out
