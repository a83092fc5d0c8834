"""Routed experts stored in a format of their own: what such a launch needs to start.

An FP8 checkpoint may pack its routed experts as MXFP4 (DeepSeek-V4, MiMo-V2, checkpoints
with ``routed_experts_quant_method``). ``SGLANG_DSV4_FP4_DEQUANT`` turns them into FP8 at load
so that the plain FP8 MoE method serves them; SGLang builds that method only under the
automatic MoE runner and stops at the first MoE layer otherwise. Resolution never sees it:
the MoE runner a user names survives resolution unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

from launchplan.checks.launch_requirements import experts
from launchplan.checks.predicates import Requirement, Severity, Values, cond
from launchplan.facts.quantization import dequantized_experts


def _fp8_config(p: Values) -> bool:
    """SGLang builds its FP8 quantization config for this launch: an FP8 checkpoint, or
    ``--quantization fp8``."""
    qc = p.model.quantization_config
    method = qc.get("quant_method") if isinstance(qc, Mapping) else None
    return method == "fp8" or p["quantization"] == "fp8"


def _dequantized(p: Values) -> bool:
    return experts(p) > 0 and _fp8_config(p) and dequantized_experts(p.model, p.env)


EXPERT_FORMATS_REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        "dequantized-experts-auto-runner",
        cond("MXFP4 routed experts dequantized to FP8 (SGLANG_DSV4_FP4_DEQUANT)", _dequantized,
             "quantization"),
        cond("moe_runner_backend auto", lambda p: p["moe_runner_backend"] == "auto",
             "moe_runner_backend"),
        "experts dequantized at load are served by the plain FP8 MoE method, which SGLang "
        "builds only under the automatic MoE runner", Severity.FAILS_AT_START,
        "sglang/srt/layers/quantization/fp8.py: Fp8Config.get_quant_method asserts the MoE "
        "runner is auto when is_fp4_experts and dequant_fp4_to_fp8 (model_loader/loader.py "
        "sets the latter from SGLANG_DSV4_FP4_DEQUANT) as the first MoE layer is built",
        detail=lambda p: (f"moe_runner_backend {p['moe_runner_backend']} with "
                          "SGLANG_DSV4_FP4_DEQUANT: the dequantized experts need the "
                          "automatic runner (drop --moe-runner-backend or the variable)")),
)
