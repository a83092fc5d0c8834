"""GPT-OSS: attention backends with sliding windows and sinks, MXFP4 experts."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.attention import effective_backends
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    BATCH,
    backends_unset,
    checkpoint_quant_method,
    env_true,
)

ARCHS = frozenset({"GptOssForCausalLM"})

# The attention backends that implement GPT-OSS's sliding windows and attention sinks.
SUPPORTED_BACKENDS = ("triton", "trtllm_mha", "fa3", "fa4", "ascend", "intel_amx",
                      "intel_xpu", "aiter")


def gpt_oss_default_backend(v: Any) -> str:
    """trtllm_mha on SM10x, fa3 on Hopper, aiter on ROCm, triton elsewhere."""
    t = v.target
    if t.is_sm100:
        return "trtllm_mha"
    if t.is_sm90:
        return "fa3"
    if t.is_hip:
        return "aiter"
    return "triton"


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS + ("moe_runner_backend", "ep_size", "quantization"),
    writes=("attention_backend", "dtype", "moe_runner_backend"),
    facts=("model.arch0", "model.quantization_config", "target.is_sm100", "target.is_sm90",
           "target.is_sm120", "target.is_hip"),
    sglang="_gpt_oss_overrides (model_overrides/gpt_oss.py)",
)
def gpt_oss_overrides(v: View) -> dict | None:
    """GPT-OSS picks a sink-capable backend and runs MXFP4 checkpoints in bfloat16.

    With no backend chosen: trtllm_mha on SM10x, fa3 on Hopper, aiter on ROCm, triton
    elsewhere (FlashInfer has no attention sinks). An mxfp4 checkpoint forces
    ``dtype=bfloat16`` (the MXFP4 MoE kernels compute in bf16). An automatic MoE runner
    becomes ``flashinfer_mxfp4`` for mxfp4 on SM10x/SM12x; on ROCm with ``SGLANG_USE_AITER``
    it stays auto for mxfp4 (aiter's MXFP4 MoE) and becomes triton for bf16.

    Assumed: the ``triton_kernels`` package is absent (as in the oracle harness), so
    SGLang's ``triton_kernel`` runner default never applies.
    """
    t = v.target
    out: dict[str, Any] = {}
    if backends_unset(v):
        out["attention_backend"] = gpt_oss_default_backend(v)
    mxfp4 = checkpoint_quant_method(v) == "mxfp4"
    if mxfp4:
        out["dtype"] = "bfloat16"
    if v.moe_runner_backend == "auto":
        aiter = t.is_hip and env_true(v, "SGLANG_USE_AITER")
        if (t.is_sm100 or t.is_sm120) and mxfp4:
            out["moe_runner_backend"] = "flashinfer_mxfp4"
        elif aiter and mxfp4:
            out["moe_runner_backend"] = "auto"
        elif aiter:
            out["moe_runner_backend"] = "triton"
    return out


# --- outside the override batch: the family's pass in handle_model_specific_adjustments ---


@rule(
    phase=Phase.MODEL,
    reads=BACKEND_FIELDS + ("moe_runner_backend", "ep_size"),
    facts=("model.arch0",),
    archs=ARCHS,
    sglang="handle_model_specific_adjustments (GptOssForCausalLM asserts)",
)
def gpt_oss_backend_check(v: View) -> Refuse | None:
    """GPT-OSS needs backends with sliding windows and attention sinks, on both sides.

    Accepted: triton, trtllm_mha, fa3, fa4, ascend, intel_amx, intel_xpu, aiter (not
    flashinfer or torch_native). The ``triton_kernel`` MoE runner needs ``--ep-size 1``.
    """
    prefill, decode = effective_backends(v)
    if prefill not in SUPPORTED_BACKENDS or decode not in SUPPORTED_BACKENDS:
        return Refuse(f"GptOssForCausalLM requires one of [{', '.join(SUPPORTED_BACKENDS)}]"
                      f" attention backends (they implement its sliding windows and sinks); "
                      f"got prefill {prefill}, decode {decode}")
    if v.moe_runner_backend == "triton_kernel" and v.ep_size != 1:
        return Refuse("the triton_kernel MoE runner supports --ep-size 1 only")
    return None
