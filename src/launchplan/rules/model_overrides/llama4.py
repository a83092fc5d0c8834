"""Llama 4: a chunked-attention-capable backend and the FP8 MoE runner on SM10x."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BATCH,
)

ARCHS = frozenset({"Llama4ForConditionalGeneration", "Llama4ForCausalLM"})

# The backends that implement Llama 4's chunked local attention.
SUPPORTED_BACKENDS = ("fa3", "aiter", "triton", "ascend", "trtllm_mha", "intel_xpu")


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("device", "attention_backend", "moe_runner_backend", "quantization"),
    writes=("attention_backend", "moe_runner_backend"),
    facts=("model.arch0", "target.is_sm100", "target.is_sm90", "target.is_hip"),
    sglang="_llama4_overrides (model_overrides/llama4.py)",
)
def llama4_overrides(v: View) -> dict | None:
    """Llama 4 (off CPU): trtllm_mha on SM10x, fa3 on Hopper, aiter on ROCm, else triton.

    Only these backends implement its chunked local attention, so an unset base backend is
    filled. An fp8/modelopt_fp8 ``--quantization`` on SM10x with an automatic runner uses
    ``flashinfer_trtllm`` for the MoE.
    """
    if v.device == "cpu":
        return None
    t = v.target
    out: dict[str, Any] = {}
    if v.attention_backend is None:
        if t.is_sm100:
            out["attention_backend"] = "trtllm_mha"
        elif t.is_sm90:
            out["attention_backend"] = "fa3"
        elif t.is_hip:
            out["attention_backend"] = "aiter"
        else:
            out["attention_backend"] = "triton"
    if (t.is_sm100 and v.moe_runner_backend == "auto"
            and v.quantization in ("fp8", "modelopt_fp8")):
        out["moe_runner_backend"] = "flashinfer_trtllm"
    return out or None


# --- outside the override batch: the family's pass in handle_model_specific_adjustments ---


@rule(
    phase=Phase.MODEL,
    reads=("attention_backend", "device"),
    facts=("model.arch0",),
    archs=ARCHS,
    sglang="handle_model_specific_adjustments (Llama4 assert)",
)
def llama4_backend_check(v: View) -> Refuse | None:
    """Llama 4 (off CPU) needs a base backend with chunked local attention."""
    if v.device == "cpu":
        return None
    if v.attention_backend not in SUPPORTED_BACKENDS:
        return Refuse(f"Llama 4 needs one of {', '.join(SUPPORTED_BACKENDS)} as the "
                      f"attention backend, not {v.attention_backend}")
    return None
