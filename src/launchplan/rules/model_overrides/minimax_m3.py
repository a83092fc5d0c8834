"""MiniMax-M3 (sparse attention): backends, page 128, KV dtype and MoE runners per platform."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    BATCH,
    arch0,
    backends_unset,
    checkpoint_quant_method,
    env_true,
    quantization_config,
    quantization_unset_explicitly,
)

ARCHS = frozenset({"MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration"})

# Sparse block attention (MSA) needs KV pages of 128 tokens.
MSA_PAGE_SIZE = 128
NVFP4 = "minimax_m3_nvfp4"


def m3_quant_method(v: Any) -> str | None:
    """The checkpoint's method; ``mxfp8`` with NVFP4 pack-quantized experts is M3.1 NVFP4."""
    method = checkpoint_quant_method(v)
    if method != "mxfp8":
        return method
    qc = quantization_config(v)
    if (str(qc.get("moe_quant_algo", "")).upper() == "NVFP4"
            and qc.get("moe_quant_format") == "nvfp4-pack-quantized"):
        return NVFP4
    return method


def _nvfp4(v: Any, out: dict[str, Any]) -> dict[str, Any] | Refuse:
    t = v.target
    algorithm = v.speculative_algorithm
    if algorithm not in (None, "DSPARK", "DFLASH"):
        return Refuse("MiniMax-M3.1 NVFP4 speculates with DSPARK or DFLASH only")
    if algorithm is not None:
        if arch0(v) != "MiniMaxM3SparseForConditionalGeneration":
            return Refuse(f"MiniMax-M3.1 NVFP4 {algorithm} needs the "
                          "MiniMaxM3SparseForConditionalGeneration checkpoint")
        if not t.is_blackwell:
            return Refuse(f"MiniMax-M3.1 NVFP4 {algorithm} needs a Blackwell GPU")
        if str(v.env.get("SGLANG_RAGGED_VERIFY_MODE", "static")) != "static":
            return Refuse(f"MiniMax-M3.1 NVFP4 {algorithm} needs "
                          "SGLANG_RAGGED_VERIFY_MODE=static")
        if v.pp_size != 1:
            return Refuse(f"MiniMax-M3.1 NVFP4 {algorithm} needs --pp-size 1")
        if algorithm == "DFLASH" and v.disaggregation_mode != "null":
            return Refuse("MiniMax-M3.1 NVFP4 DFLASH needs colocated serving (no PD)")
        if v.speculative_draft_kv_cache_dtype in (None, "auto"):
            out["speculative_draft_kv_cache_dtype"] = "bf16"
        if algorithm == "DSPARK" and v.speculative_draft_attention_backend is None:
            out["speculative_draft_attention_backend"] = "trtllm_mha"
    if v.page_size not in (None, MSA_PAGE_SIZE):
        return Refuse("MiniMax-M3.1 NVFP4 needs --page-size 128")
    if not t.is_blackwell:
        out["page_size"] = MSA_PAGE_SIZE
        if v.moe_runner_backend == "auto":
            out["moe_runner_backend"] = "marlin"
        if backends_unset(v):
            out["attention_backend"] = "fa3"
        return out
    if v.moe_runner_backend == "flashinfer_trtllm_routed":
        if v.moe_a2a_backend not in ("none", "megamoe"):
            return Refuse("MiniMax-M3.1 NVFP4 with flashinfer_trtllm_routed needs "
                          "--moe-a2a-backend none or megamoe")
    else:
        if v.moe_a2a_backend not in ("none", "megamoe"):
            return Refuse("MiniMax-M3.1 NVFP4 needs --moe-a2a-backend megamoe")
        out["moe_a2a_backend"] = "megamoe"
        if v.moe_runner_backend == "auto":
            out["moe_runner_backend"] = "deep_gemm"
    out["page_size"] = MSA_PAGE_SIZE
    if v.kv_cache_dtype == "auto":
        out["kv_cache_dtype"] = "fp8_e4m3"
    elif v.kv_cache_dtype != "fp8_e4m3":
        return Refuse("MiniMax-M3.1 NVFP4 needs --kv-cache-dtype fp8_e4m3")
    if backends_unset(v):
        out["attention_backend"] = "trtllm_mha"
    return out


def _platform_defaults(v: Any, out: dict[str, Any], quantization: str | None) -> None:
    t = v.target
    if t.is_hip:
        if backends_unset(v):
            out["attention_backend"] = "triton"
        if v.moe_runner_backend == "auto" and quantization == "mxfp8":
            out["moe_runner_backend"] = "triton"
        fusion = v.enable_aiter_allreduce_fusion
        if v.ep_size > 1 and v.moe_a2a_backend == "none" and fusion:
            out["enable_aiter_allreduce_fusion"] = fusion = False
        if not fusion and not env_true(v, "SGLANG_M3_ALLOW_CUSTOM_AR"):
            out["disable_custom_all_reduce"] = True
    elif t.is_sm100:
        if backends_unset(v):
            fp8_gemms = (v.kv_cache_dtype == "fp8_e4m3"
                         and not env_true(v, "SGLANG_DISABLE_M3_FP8_ATTN_GEMM"))
            out["attention_backend"] = "trtllm_mha" if fp8_gemms else "fa4"
        backend = out.get("attention_backend", v.attention_backend)
        if v.page_size is None and backend in ("fa4", "trtllm_mha"):
            out["page_size"] = MSA_PAGE_SIZE
        if v.moe_runner_backend == "auto" and quantization == "mxfp8":
            out["moe_runner_backend"] = "deep_gemm"
        elif v.moe_runner_backend == "auto" and quantization == "modelopt_mixed":
            out["moe_runner_backend"] = "flashinfer_trtllm_routed"
    elif t.is_sm90:
        if backends_unset(v):
            out["attention_backend"] = "fa3"
        if v.page_size is None and out.get("attention_backend", v.attention_backend) == "fa3":
            out["page_size"] = MSA_PAGE_SIZE


_OVERRIDES = dict(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS + (
        "quantization", "speculative_algorithm", "pp_size", "disaggregation_mode",
        "speculative_draft_kv_cache_dtype", "speculative_draft_attention_backend",
        "page_size", "moe_runner_backend", "moe_a2a_backend", "kv_cache_dtype",
        "enable_aiter_allreduce_fusion", "ep_size"),
    writes=BACKEND_FIELDS + (
        "quantization", "speculative_draft_kv_cache_dtype",
        "speculative_draft_attention_backend", "page_size", "moe_runner_backend",
        "moe_a2a_backend", "kv_cache_dtype", "enable_aiter_allreduce_fusion",
        "disable_custom_all_reduce"),
    facts=("model.arch0", "model.config", "target.is_blackwell", "target.is_sm100",
           "target.is_sm90", "target.is_hip", "model.quantization_config"),
)


@rule(**_OVERRIDES, sglang="_minimax_m3_overrides (model_overrides/minimax_m3.py)")
def minimax_m3_overrides(v: View) -> dict | Refuse | None:
    """MiniMax-M3's sparse attention decides backends, page size and MoE runner per platform.

    When: whenever its promises hold; the branch follows the quantization and the platform.
    Effect: an unset ``--quantization`` takes the checkpoint's method (mxfp8 with NVFP4 packed
        experts reads as M3.1 NVFP4). M3.1 NVFP4 needs page 128; off Blackwell it runs fa3 and
        marlin, on Blackwell trtllm_mha, an fp8_e4m3 KV cache and MegaMoE (DeepGEMM), and it
        limits speculation to DSPARK/DFLASH (Blackwell, static verify, no PP; a bf16 draft KV
        cache). Otherwise: ROCm → triton (and NCCL all-reduce unless
        ``SGLANG_M3_ALLOW_CUSTOM_AR``); SM10x → trtllm_mha for an fp8_e4m3 KV cache (fp8
        attention GEMMs, unless ``SGLANG_DISABLE_M3_FP8_ATTN_GEMM``) else fa4, page 128 if
        unset; Hopper → fa3 with page 128. Unquantized weights never use auto or deep_gemm MoE:
        they get triton. Combinations outside these limits are refused.
    Why: its sparse block attention (MSA) needs KV pages of 128 tokens; deep_gemm corrupts bf16
        output (``_minimax_m3_overrides``, arg_groups/model_overrides/minimax_m3.py).
    Assumes: the ``SGLANG_*`` variables named above keep their defaults (off, and a static
        ragged verify) unless the given environment sets them.
    """
    return _overrides(v, m3_quant_method(v))


def _overrides(v: Any, method: str | None) -> dict | Refuse | None:
    out: dict[str, Any] = {}
    quantization = v.quantization
    if quantization is None and not quantization_unset_explicitly(v) and method is not None:
        out["quantization"] = quantization = method
    if quantization == NVFP4:
        return _nvfp4(v, out)
    _platform_defaults(v, out, quantization)
    runner = out.get("moe_runner_backend", v.moe_runner_backend)
    if quantization is None and runner in ("auto", "deep_gemm"):
        out["moe_runner_backend"] = "triton"
    return out or None


@rule(name="minimax_m3_overrides", variant="0.5.22", **_OVERRIDES,
      sglang="_minimax_m3_overrides (0.5.21-0.5.22)")
def minimax_m3_overrides_0_5_22(v: View) -> dict | Refuse | None:
    """0.5.21-0.5.22: as ``minimax_m3_overrides``, without M3.1 NVFP4.

    When: as ``minimax_m3_overrides``.
    Effect: as ``minimax_m3_overrides``, but the checkpoint's method is taken as declared: an
        mxfp8 checkpoint with NVFP4 packed experts stays ``mxfp8`` and follows the platform
        defaults of every other checkpoint.
    Why: M3.1 NVFP4 (its method, MegaMoE, page and speculation limits) came in 0.5.23
        (``_minimax_m3_overrides`` in 0.5.22 reads the declared method).
    Assumes: as ``minimax_m3_overrides``.
    """
    return _overrides(v, checkpoint_quant_method(v))
