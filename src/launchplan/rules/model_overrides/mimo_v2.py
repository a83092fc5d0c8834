"""MiMo-V2: multi-layer EAGLE, fa4 on SM10x, MoE runners for FP8 and MXFP4 experts."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Refuse, arithmetic_refusal
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    BATCH,
    backends_unset,
    checkpoint_quant_method,
    config,
    routed_experts_fp4,
)

ARCHS = frozenset({"MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM"})


_OVERRIDES = dict(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS + ("speculative_algorithm", "moe_runner_backend", "moe_a2a_backend"),
    writes=("enable_multi_layer_eagle", "attention_backend", "moe_runner_backend"),
    facts=("model.arch0", "model.config", "target.is_sm100", "target.is_sm90",
           "model.quantization_config"),
)


@rule(**_OVERRIDES, sglang="_mimo_v2_overrides (model_overrides/mimo_v2.py)")
def mimo_v2_overrides(v: View) -> dict | None:
    """MiMo-V2: EAGLE drafts multi-layer; fa4 on SM10x (K and V widths differ).

    When: whenever its promises hold; each field has its own condition below.
    Effect: ``enable_multi_layer_eagle`` = true with ``--speculative-algorithm EAGLE`` as given;
        ``attention_backend`` = fa4 on SM10x with no backend chosen; with an automatic runner and
        an fp8 checkpoint, ``moe_runner_backend`` = ``flashinfer_mxfp4`` (MXFP4 routed experts)
        or ``flashinfer_trtllm`` on SM10x without A2A, and ``marlin`` for MXFP4 experts on Hopper.
    Why: fa4 handles K and V head widths that differ; triton's FP8 MoE cannot read packed MXFP4
        (``_mimo_v2_overrides``, arg_groups/model_overrides/mimo_v2.py).
    Assumes: nothing.
    """
    t = v.target
    out: dict[str, Any] = {}
    if v.speculative_algorithm == "EAGLE":
        out["enable_multi_layer_eagle"] = True
    if t.is_sm100 and backends_unset(v):
        out["attention_backend"] = "fa4"
    fp8 = checkpoint_quant_method(v) == "fp8"
    if t.is_sm100 and v.moe_runner_backend == "auto" and fp8:
        if v.moe_a2a_backend == "none":
            out["moe_runner_backend"] = ("flashinfer_mxfp4" if routed_experts_fp4(v)
                                         else "flashinfer_trtllm")
    elif t.is_sm90 and v.moe_runner_backend == "auto" and fp8 and routed_experts_fp4(v):
        out["moe_runner_backend"] = "marlin"
    return out or None


@rule(name="mimo_v2_overrides", variant="0.5.21", **_OVERRIDES,
      sglang="_mimo_v2_overrides (0.5.21)")
def mimo_v2_overrides_0_5_21(v: View) -> dict | None:
    """0.5.21: multi-layer EAGLE, and flashinfer_trtllm for any fp8 checkpoint on SM10x.

    When: whenever its promises hold; each field has its own condition below.
    Effect: ``enable_multi_layer_eagle`` = true with EAGLE; with an automatic runner and an fp8
        checkpoint on SM10x, ``moe_runner_backend`` = ``flashinfer_trtllm`` (A2A or MXFP4 experts
        alike). The attention backend is left to the generic default.
    Why: 0.5.22 added the fa4 default on SM10x, the MXFP4 and A2A cases and Hopper's marlin
        (``_mimo_v2_overrides`` in 0.5.21).
    Assumes: nothing.
    """
    out: dict[str, Any] = {}
    if v.speculative_algorithm == "EAGLE":
        out["enable_multi_layer_eagle"] = True
    if (v.target.is_sm100 and v.moe_runner_backend == "auto"
            and checkpoint_quant_method(v) == "fp8"):
        out["moe_runner_backend"] = "flashinfer_trtllm"
    return out or None


# --- outside the override batch: the family's pass in handle_model_specific_adjustments ---


@rule(
    phase=Phase.MODEL,
    reads=("encoder_only", "tp_size", "attn_dp_size", "attn_cp_size"),
    facts=("model.arch0", "model.config"),
    archs=("MiMoV2ForCausalLM",),
    sglang="handle_model_specific_adjustments (MiMoV2 fused-QKV TP check)",
)
def mimo_v2_attention_tp_check(v: View) -> Refuse | None:
    """A MiMo-V2 checkpoint with fused QKV weights fixes the attention TP size.

    When: the model is not encoder-only.
    Effect: refuses a layout other than fused_qkv/split/unset, a fused_qkv config without
        ``num_key_value_heads``, an attention DP or CP width of 0 (any layout), and with
        fused_qkv an effective attention TP (tp / attention DP / attention CP) that does not
        divide ``num_key_value_heads`` (0 included: the modulo by it fails).
    Why: its ``qkv_proj`` is interleaved for TP = ``num_key_value_heads`` (the MiMoV2 fused-QKV TP
        check in ``handle_model_specific_adjustments``, model_hook.py, which computes the
        effective width for every layout, before SGLang checks any width is positive).
    Assumes: nothing.
    """
    if v.encoder_only:
        return None
    cfg = config(v)
    layout = cfg.get("attention_projection_layout")
    heads = None
    if layout not in (None, "split"):
        if layout != "fused_qkv":
            return Refuse(f"MiMo-V2 attention_projection_layout {layout!r} is not one of "
                          "fused_qkv, split or unset")
        heads = cfg.get("num_key_value_heads")
        sub = cfg.get("text_config")
        if heads is None and isinstance(sub, dict):
            heads = sub.get("num_key_value_heads")
        if heads is None:
            return Refuse("MiMo-V2 with fused_qkv needs num_key_value_heads to size its TP")
    widths = (f"tp {v.tp_size}, attention DP {v.attn_dp_size}, attention CP "
              f"{v.attn_cp_size}")
    try:  # computed for every layout; a fused one then needs it to divide the KV heads
        attn_tp = v.tp_size // v.attn_dp_size // v.attn_cp_size
        misfit = heads is not None and heads % attn_tp
    except ZeroDivisionError as exc:
        return arithmetic_refusal(f"MiMo-V2's effective attention TP ({widths})", exc)
    if misfit:
        return Refuse(f"MiMo-V2's fused qkv_proj weights need an effective attention TP that "
                      f"divides {heads}; got {attn_tp} ({widths})")
    return None
