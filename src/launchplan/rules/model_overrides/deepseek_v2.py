"""The DeepSeek family (V3/R1, V3.2 DSA, Kimi K2.5, Mistral Large 3, GLM-5, LongCat, ...).

Two kinds of model share these architectures: DeepSeek Sparse Attention (DSA) checkpoints,
recognised by ``index_topk`` in their config, and plain MLA ones (V3/R1/V3.1).
"""

from __future__ import annotations

from collections.abc import Mapping
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
    config,
    env_set,
    env_true,
    quantization_config,
)

# The architectures SGLang treats as DeepSeek for attention, page and MoE defaults.
DEEPSEEK_FAMILY = frozenset({
    "DeepseekV3ForCausalLM",
    "DeepseekV32ForCausalLM",
    "KimiK25ForConditionalGeneration",
    "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration",
    "GlmMoeDsaForCausalLM",
    "Glm5NextForConditionalGeneration",
    "HYV4ForCausalLM",
    "HYV4ForCausalLMNextN",
    "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN",
    "Dots3NoteForCausalLM",
})

HYV4 = frozenset({"HYV4ForCausalLM", "HYV4ForCausalLMNextN"})

# A DSA page must hold whole pooled index groups: 64 tokens per pooled key.
DSA_PAGE_TOKENS = 64


def context_parallel_attn_dp(v: Any) -> int | Refuse:
    """The attention-DP width a context-parallel layout runs: ``attn_dp_size * dp_size``.

    Data-parallel replicas combined with attention DP are refused.
    """
    if v.attn_dp_size > 1 and v.dp_size > 1:
        return Refuse(f"--dp-size {v.dp_size} together with --attn-dp-size {v.attn_dp_size} "
                      "is not supported under context parallelism")
    return v.attn_dp_size * v.dp_size


def aiter_preshuffle_paged_mqa(v: Any) -> bool:
    """Whether ROCm's aiter gluon paged-MQA kernel (preshuffled, paged KV) is usable.

    SGLang needs aiter enabled (``SGLANG_USE_AITER``), not disabled by
    ``SGLANG_DSA_HIP_DISABLE_PRESHUFFLE``, and Triton >= 3.5 or the AOT kernels
    (``AITER_ENABLE_AOT_GLUON_PA_MQA_LOGITS``). launchplan assumes Triton >= 3.5 (the oracle
    harness has 3.9), so the environment decides.
    """
    return (v.target.is_hip and env_true(v, "SGLANG_USE_AITER")
            and not env_true(v, "SGLANG_DSA_HIP_DISABLE_PRESHUFFLE"))


def jit_deep_gemm(v: Any) -> bool:
    """DeepGEMM's JIT kernels are usable: CUDA SM90+, not switched off by the environment.

    The pinned ``sgl-deep-gemm`` is assumed installed, as with any SGLang GPU install.
    """
    enabled = (not env_set(v, "SGLANG_ENABLE_JIT_DEEPGEMM")
               or env_true(v, "SGLANG_ENABLE_JIT_DEEPGEMM"))
    return v.target.is_cuda and v.target.sm >= 90 and enabled


def _modelopt_quant_algo(v: Any) -> str:
    qc: Any = quantization_config(v)
    inner = qc.get("quantization", qc)
    if not isinstance(inner, Mapping):
        return ""
    nested = inner.get("quantization")
    inner = nested if isinstance(nested, Mapping) else inner
    return str(inner.get("quant_algo", "")).upper()


def _dsa_dcp(v: Any) -> dict[str, Any] | Refuse:
    """DSA decode context parallelism: its limits, and trtllm for unset DSA backends."""
    if v.dcp_size <= 1:
        return {}
    if v.enable_hisparse or v.enable_hierarchical_cache:
        return Refuse("DSA decode context parallelism supports neither HiSparse nor "
                      "the hierarchical cache")
    if v.disaggregation_mode != "null":
        return Refuse("DSA decode context parallelism does not support PD disaggregation")
    if v.speculative_eagle_topk not in (None, 1):
        return Refuse("DSA decode context parallelism needs --speculative-eagle-topk 1")
    out: dict[str, Any] = {f: "trtllm" for f in ("dsa_prefill_backend", "dsa_decode_backend")
                           if v[f] is None}
    if v.dcp_replicate_q_proj is None and v.dcp_comm_backend in ("a2a", "fi_a2a"):
        out["dcp_replicate_q_proj"] = True
    return out


def _dsa_prefill_cp(v: Any) -> dict[str, Any] | Refuse:
    attn_dp = context_parallel_attn_dp(v)
    if isinstance(attn_dp, Refuse):
        return attn_dp
    out: dict[str, Any] = {"attn_dp_size": attn_dp, "dp_size": 1}
    if v.cp_strategy == "zigzag":
        out.update(moe_dense_tp_size=1, moe_a2a_backend="deepep", ep_size=v.tp_size)
    if v.tp_size > 8:
        return Refuse("context parallelism runs on one machine only (--tp-size 8 or less)")
    if v.cp_strategy == "interleave" and v.attn_cp_size > 1:
        out["attn_cp_size"] = v.attn_cp_size
    else:
        out["attn_cp_size"] = v.tp_size // attn_dp
    return out


def _mla_prefill_cp(v: Any) -> dict[str, Any] | Refuse:
    attn_dp = context_parallel_attn_dp(v)
    if isinstance(attn_dp, Refuse):
        return attn_dp
    return {"attn_dp_size": attn_dp, "dp_size": 1, "moe_dense_tp_size": 1,
            "moe_a2a_backend": "deepep", "ep_size": v.tp_size,
            "attn_cp_size": v.tp_size // attn_dp}


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=DEEPSEEK_FAMILY,
    reads=BACKEND_FIELDS + (
        "enable_prefill_cp", "dcp_size", "moe_runner_backend", "fp8_gemm_runner_backend",
        "enable_hisparse", "enable_hierarchical_cache", "disaggregation_mode",
        "speculative_eagle_topk", "dsa_prefill_backend", "dsa_decode_backend",
        "dcp_replicate_q_proj", "dcp_comm_backend", "attn_dp_size", "dp_size", "cp_strategy",
        "tp_size", "attn_cp_size"),
    writes=("attention_backend", "page_size", "attn_dp_size", "dp_size", "moe_dense_tp_size",
            "moe_a2a_backend", "ep_size", "attn_cp_size", "dsa_prefill_backend",
            "dsa_decode_backend", "dcp_replicate_q_proj", "moe_runner_backend",
            "fp8_gemm_runner_backend"),
    facts=("model.arch0", "model.is_deepseek_dsa", "model.is_mla", "model.config",
           "target.is_sm100", "target.is_hip", "target.is_cuda", "target.sm"),
    sglang="_deepseek_family_overrides (model_overrides/deepseek_v2.py)",
)
def deepseek_family_overrides(v: View) -> dict | Refuse | None:
    """DeepSeek defaults: ``dsa`` attention and DSA page sizes, or ``trtllm_mla`` on SM10x.

    DSA models get the ``dsa`` backend when none is chosen and a page size forced to
    64 x ``index_kpool`` (a page holds whole pooled index groups), or 1 on ROCm without
    the aiter preshuffle paged-MQA kernel; decode CP defaults the DSA backends to trtllm.
    Plain MLA models get ``trtllm_mla`` on SM10x when no backend is chosen (TRT-LLM's
    Blackwell MLA kernels). ``--enable-prefill-cp`` lays out attention DP/CP (and DeepEP
    for zigzag and MLA CP). HYV4 MXFP8 checkpoints run MoE and FP8 GEMMs on DeepGEMM.
    """
    arch = arch0(v)
    if arch in HYV4:
        if v.enable_prefill_cp:
            return Refuse("HYV4 does not support --enable-prefill-cp: its attention has no "
                          "DSA context-parallel path")
        if v.dcp_size > 1:
            return Refuse("HYV4 does not support --dcp-size > 1: decode context parallelism "
                          "cannot own its learnable attention sinks")
    out: dict[str, Any] = {}
    if arch in HYV4 and _modelopt_quant_algo(v) == "MXFP8" and jit_deep_gemm(v):
        if v.moe_runner_backend == "auto":
            out["moe_runner_backend"] = "deep_gemm"
        if v.fp8_gemm_runner_backend == "auto":
            out["fp8_gemm_runner_backend"] = "deep_gemm"
    t = v.target
    if v.model.is_deepseek_dsa:
        dcp = _dsa_dcp(v)
        if isinstance(dcp, Refuse):
            return dcp
        out.update(dcp)
        if backends_unset(v):
            out["attention_backend"] = "dsa"
        # Every launchplan target is a CUDA or ROCm GPU (no NPU or XPU branch).
        if v.enable_prefill_cp:
            cp = _dsa_prefill_cp(v)
            if isinstance(cp, Refuse):
                return cp
            out.update(cp)
        if t.is_hip and not aiter_preshuffle_paged_mqa(v):
            out["page_size"] = 1
        else:
            kpool = config(v).get("index_kpool", 1) or 1
            if kpool > 1 and v.dcp_size > 1:
                return Refuse(f"--dcp-size > 1 is not supported for DSA with index_kpool "
                              f"{kpool}: a pooled index key spans several DCP ranks")
            out["page_size"] = DSA_PAGE_TOKENS * kpool
        return out
    if t.is_sm100 and backends_unset(v):
        out["attention_backend"] = "trtllm_mla"
    if v.enable_prefill_cp and v.model.is_mla:
        cp = _mla_prefill_cp(v)
        if isinstance(cp, Refuse):
            return cp
        out.update(cp)
    return out or None
