"""The DeepSeek family (V3/R1, V3.2 DSA, Kimi K2.5, Mistral Large 3, GLM-5, LongCat, ...).

Two kinds of model share these architectures: DeepSeek Sparse Attention (DSA) checkpoints,
recognised by ``index_topk`` in their config, and plain MLA ones (V3/R1/V3.1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from launchplan.engine.declarations import Declare, Refuse, arithmetic_refusal
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts.environment import plain_flag
from launchplan.facts.memo import per_object
from launchplan.rules.attention import effective_backends
from launchplan.rules.graph_config import PREFILL, with_phase
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    BATCH,
    arch0,
    attn_dp_enabled,
    backends_unset,
    checkpoint_quant_method,
    config,
    dp_attention_switch_0_5_21,
    env_true,
    quantization_config,
    quantization_unset_explicitly,
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


def cp_group_width(v: Any, attn_dp: int) -> int | Refuse:
    """The attention-CP width of a CP layout spanning the TP group: ``tp_size`` / DP groups.

    SGLang divides without a check, so zero DP groups (``--attn-dp-size 0``) stop its
    resolution here, before its own positivity check of the width.
    """
    try:
        return v.tp_size // attn_dp
    except ZeroDivisionError as exc:
        return arithmetic_refusal(f"the CP group width (tp_size {v.tp_size} over {attn_dp} "
                                  "attention-DP groups)", exc)


def aiter_preshuffle_paged_mqa(v: Any) -> bool:
    """Whether ROCm's aiter gluon paged-MQA kernel (preshuffled, paged KV) is usable.

    SGLang needs aiter enabled (``SGLANG_USE_AITER``), not disabled by
    ``SGLANG_DSA_HIP_DISABLE_PRESHUFFLE``, and Triton >= 3.5 or the AOT kernels
    (``AITER_ENABLE_AOT_GLUON_PA_MQA_LOGITS``). launchplan assumes Triton >= 3.5 (the oracle
    harness has 3.9), so the environment decides. ``SGLANG_USE_AITER`` is read the plain
    way here (``aiter_can_use_preshuffle_paged_mqa``: ``true``/``1`` only).
    """
    return (v.target.is_hip and plain_flag(v.env, "SGLANG_USE_AITER")
            and not env_true(v, "SGLANG_DSA_HIP_DISABLE_PRESHUFFLE"))


def jit_deep_gemm(v: Any) -> bool:
    """DeepGEMM's JIT kernels are usable: CUDA SM90+, not switched off by the environment.

    The pinned ``sgl-deep-gemm`` is assumed installed, as with any SGLang GPU install.
    """
    enabled = env_true(v, "SGLANG_ENABLE_JIT_DEEPGEMM")  # on by default
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
        return out
    width = cp_group_width(v, attn_dp)
    if isinstance(width, Refuse):
        return width
    out["attn_cp_size"] = width
    return out


def _mla_prefill_cp(v: Any) -> dict[str, Any] | Refuse:
    attn_dp = context_parallel_attn_dp(v)
    if isinstance(attn_dp, Refuse):
        return attn_dp
    width = cp_group_width(v, attn_dp)
    if isinstance(width, Refuse):
        return width
    return {"attn_dp_size": attn_dp, "dp_size": 1, "moe_dense_tp_size": 1,
            "moe_a2a_backend": "deepep", "ep_size": v.tp_size, "attn_cp_size": width}


_FAMILY = dict(
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
           "target.is_sm100", "target.is_hip", "target.is_cuda", "target.sm",
           "model.quantization_config"),
)


@rule(**_FAMILY, sglang="_deepseek_family_overrides (model_overrides/deepseek_v2.py)")
def deepseek_family_overrides(v: View) -> dict | Refuse | None:
    """DeepSeek defaults: ``dsa`` attention and DSA page sizes, or ``trtllm_mla`` on SM10x.

    When: whenever its promises hold; DSA models (``index_topk`` in the config) and plain MLA
        models take different branches.
    Effect: DSA: ``attention_backend`` = ``dsa`` when none is chosen, ``page_size`` forced to
        64 x ``index_kpool``, or 1 on ROCm without the aiter preshuffle paged-MQA kernel; decode
        CP fills unset DSA backends with trtllm (and ``dcp_replicate_q_proj`` for a2a comms).
        Plain MLA: ``attention_backend`` = ``trtllm_mla`` on SM10x when none is chosen.
        ``--enable-prefill-cp`` lays out attention DP/CP (and DeepEP for zigzag and MLA CP). HYV4
        MXFP8 checkpoints run MoE and FP8 GEMMs on DeepGEMM. Refuses HYV4 with prefill or decode
        CP, decode CP with HiSparse/HiCache/PD/top-k > 1 or pooled index keys, attention DP with
        DP replicas under CP, and CP over more than 8 GPUs.
    Why: a DSA page holds whole pooled index groups; TRT-LLM has Blackwell MLA kernels
        (``_deepseek_family_overrides``, arg_groups/model_overrides/deepseek_v2.py).
    Assumes: Triton >= 3.5 for the ROCm paged-MQA kernel (so ``SGLANG_USE_AITER`` and
        ``SGLANG_DSA_HIP_DISABLE_PRESHUFFLE`` decide); sgl-deep-gemm is installed.
    """
    return _family(v, pooled_pages=True)


def _family(v: Any, *, pooled_pages: bool) -> dict | Refuse | None:
    """``pooled_pages`` False: 0.5.21, with flat 64-token DSA pages and no DSA decode CP."""
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
        dcp = _dsa_dcp(v) if pooled_pages else {}
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
            kpool = (config(v).get("index_kpool", 1) or 1) if pooled_pages else 1
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


@rule(name="deepseek_family_overrides", variant="0.5.21",
      **{**_FAMILY, "writes": _FAMILY["writes"] + ("enable_dp_attention",)},
      sglang="_deepseek_family_overrides (0.5.21)")
def deepseek_family_overrides_0_5_21(v: View) -> dict | Refuse | None:
    """0.5.21: DSA pages of 64 tokens, no DSA decode CP, prefill CP pins the dense TP to 1.

    When: as ``deepseek_family_overrides``.
    Effect: as ``deepseek_family_overrides``, except on a DSA model: ``page_size`` is 64 whatever
        ``index_kpool`` says, decode CP neither fills the DSA backends nor is refused here, and
        with ``--enable-prefill-cp`` ``moe_dense_tp_size`` is 1 for both strategies, the
        interleave strategy refuses more than one DP group, and ``attn_cp_size`` is tp_size /
        DP groups. A DSA or MLA prefill-CP layout also turns ``enable_dp_attention`` on.
    Why: 0.5.22 added pooled index pages, the DSA decode-CP defaults and the interleave
        attention-CP layout (``_deepseek_family_overrides`` in 0.5.21 has none of them); 0.5.21
        lays CP out as attention DP by its switch, which the rules up to its data-parallelism
        defaults read (``dp_attention_switch_0_5_21``) and those clear with one DP group.
    Assumes: as ``deepseek_family_overrides``.
    """
    out = _family(v, pooled_pages=False)
    if not (v.enable_prefill_cp and isinstance(out, dict)):
        return out
    if v.model.is_deepseek_dsa:
        if v.cp_strategy != "zigzag" and (v.dp_size > 1 or v.attn_dp_size > 1):
            return Refuse("interleave DSA context parallelism does not support DP attention "
                          "in this release")
        attn_dp = out.get("attn_dp_size", 1)
        out = {**out, "moe_dense_tp_size": 1, "attn_cp_size": v.tp_size // max(1, attn_dp)}
    elif not v.model.is_mla:
        return out
    return {**out, "enable_dp_attention": True}


# --- outside the override batch: the family's pass in handle_model_specific_adjustments ---

# SGLang's DeepSeek branch of handle_model_specific_adjustments (the family without the
# LongCat NextN draft).
DEEPSEEK_BRANCH = DEEPSEEK_FAMILY - {"LongcatFlashForCausalLMNextN"}


def _dsa_model(target: Any, model: Any) -> bool:
    """The DSA rules' promise (with ``archs=DEEPSEEK_BRANCH``): a sparse-attention model."""
    return model.is_deepseek_dsa


@rule(
    phase=Phase.MODEL,
    reads=("enable_two_batch_overlap",),
    facts=("model.arch0", "model.is_deepseek_dsa", "model.config"),
    archs=DEEPSEEK_BRANCH,
    applies=_dsa_model,
    triggers=("enable_two_batch_overlap",),
    sglang="_validate_dsa_tbo_index_sharing (model_hook.py)",
)
def dsa_two_batch_overlap_check(v: View) -> Refuse | None:
    """Two-batch overlap cannot run DSA models whose layers share top-k indices.

    When: ``--enable-two-batch-overlap`` is on for a DSA model.
    Effect: refuses when ``index_topk_freq`` > 1, ``index_topk_pattern`` has an ``S`` or
        ``indexer_types`` has ``shared``, naming the three values.
    Why: the two-batch-overlap op path does not carry top-k indices from layer to layer, so shared
        layers would attend without them (``_validate_dsa_tbo_index_sharing``, model_hook.py).
    Assumes: nothing.
    """
    if not v.enable_two_batch_overlap:
        return None
    cfg = config(v)
    freq = cfg.get("index_topk_freq", 1) or 1
    pattern = cfg.get("index_topk_pattern")
    indexer_types = cfg.get("indexer_types")
    if (freq > 1 or (pattern is not None and "S" in pattern)
            or (indexer_types is not None and "shared" in indexer_types)):
        return Refuse("--enable-two-batch-overlap does not support DSA top-k index sharing "
                      f"(index_topk_freq {freq}, index_topk_pattern {pattern!r}, "
                      f"indexer_types {indexer_types!r})")
    return None


def supports_prefill_cp_bcg(v: Any) -> bool:
    """Whether prefill CP can run a breakable prefill graph (SGLang's CP BCG support).

    Zigzag with trtllm_mha prefill, or interleave with dsa prefill on GLM-5-Next (one DP
    group, no EP, attention CP > 1); always with the CP group spanning the TP group and no
    pipeline parallelism.
    """
    if not (v.enable_prefill_cp and v.pp_size == 1 and v.attn_cp_size == v.tp_size):
        return False
    prefill = effective_backends(v)[0]
    if v.cp_strategy == "zigzag":
        return prefill == "trtllm_mha"
    if v.cp_strategy == "interleave" and prefill == "dsa":
        return (v.dp_size == 1 and v.ep_size == 1 and v.attn_cp_size > 1
                and v.model.has_arch("Glm5NextForConditionalGeneration"))
    return False


@rule(
    phase=Phase.MODEL,
    reads=BACKEND_FIELDS + ("enable_prefill_cp", "cuda_graph_config", "pp_size",
                            "attn_cp_size", "tp_size", "cp_strategy", "dp_size", "ep_size"),
    writes=("cuda_graph_config",),
    facts=("model.arch0", "model.is_deepseek_dsa", "model.architectures"),
    archs=DEEPSEEK_BRANCH,
    applies=_dsa_model,
    triggers=("enable_prefill_cp",),
    sglang="handle_model_specific_adjustments (DSA prefill CP graph disable)",
)
def dsa_prefill_cp_graph_disable(v: View) -> Declare | None:
    """DSA prefill CP runs its prefill eagerly unless it is breakable with CP BCG support.

    When: ``--enable-prefill-cp`` is on for a DSA model and the prefill CUDA graph is not already
        disabled, nor breakable with CP BCG support (zigzag on trtllm_mha, or interleave on dsa for
        GLM-5-Next; CP spanning TP, no pipeline parallelism).
    Effect: ``cuda_graph_config`` with the prefill graph backend ``disabled``, with a note.
    Why: DSA prefill context parallelism cannot capture the prefill graph otherwise (the DSA
        prefill CP graph disable in ``handle_model_specific_adjustments``, model_hook.py).
        The lock on an explicit prefill backend is ignored (rules.md §5.3).
    Assumes: nothing.
    """
    if not v.enable_prefill_cp:
        return None
    config_ = v.cuda_graph_config
    if config_[PREFILL]["backend"] == "breakable" and supports_prefill_cp_bcg(v):
        return None
    if config_[PREFILL]["backend"] == "disabled":
        return None
    return Declare({"cuda_graph_config": with_phase(config_, PREFILL, backend="disabled")},
                   "prefill CUDA graph disabled: DSA prefill context parallelism cannot "
                   "capture it here")


_TP_WIDTH = dict(
    phase=Phase.MODEL,
    reads=("enable_prefill_cp", "tp_size", "attn_dp_size", "attn_cp_size", "dp_size"),
    facts=("model.arch0", "model.is_deepseek_dsa"),
    archs=DEEPSEEK_BRANCH,
    applies=_dsa_model,
    triggers=("attn_dp_size", "attn_cp_size"),
)


def _tp_width_refusal(v: Any) -> Refuse | None:
    try:
        v.tp_size // v.attn_dp_size // v.attn_cp_size
    except ZeroDivisionError as exc:
        return arithmetic_refusal(f"DSA attention-TP width (tp_size {v.tp_size}, attn_dp_size "
                                  f"{v.attn_dp_size}, attn_cp_size {v.attn_cp_size})", exc)
    return None


@rule(**_TP_WIDTH,
      sglang="handle_model_specific_adjustments (DSA attention-TP width, model_hook.py)")
def dsa_attention_tp_width(v: View) -> Refuse | None:
    """Without prefill CP, a DSA model's attention-TP width is computed before any width check.

    When: a DSA model without ``--enable-prefill-cp``, with ``--attn-dp-size`` or
        ``--attn-cp-size`` given.
    Effect: refuses a width of 0 for either: the division by it fails.
    Why: SGLang's DSA branch of ``handle_model_specific_adjustments`` (model_hook.py) divides
        ``tp_size`` by both widths to report attention-TP sharding, on CUDA and ROCm alike,
        well before ``handle_data_parallelism`` checks that ``attn_dp_size`` is positive; an
        ``attn_cp_size`` of 0 is checked nowhere and fails only here.
    Assumes: nothing (no launchplan target is an Ascend NPU or an Intel XPU, which skip it).
    """
    return None if v.enable_prefill_cp else _tp_width_refusal(v)


@rule(name="dsa_attention_tp_width", variant="0.5.21", **_TP_WIDTH,
      sglang="handle_model_specific_adjustments (DSA attention-TP width, 0.5.21)")
def dsa_attention_tp_width_0_5_21(v: View) -> Refuse | None:
    """0.5.21: the width is computed only while there are fewer DP groups than TP ranks.

    When: as ``dsa_attention_tp_width``.
    Effect: as ``dsa_attention_tp_width``, when ``dp_size`` as 0.5.21 holds it (its attention
        groups, or its replicas) is below ``tp_size``; otherwise nothing.
    Why: 0.5.21 reports attention-TP sharding only then (``derive_attention_widths`` under a
        ``dp_size < tp_size`` test); 0.5.22 computes it for every layout.
    Assumes: nothing.
    """
    if v.enable_prefill_cp or v.attn_dp_size * v.dp_size >= v.tp_size:
        return None
    return _tp_width_refusal(v)


@rule(
    phase=Phase.MODEL,
    reads=("kv_cache_dtype", "dsa_prefill_backend", "dsa_decode_backend"),
    writes=("kv_cache_dtype",),
    facts=("model.arch0", "model.is_deepseek_dsa", "model.learnable_sink", "target.capability"),
    archs=DEEPSEEK_BRANCH,
    sglang="_dsa_kv_cache_dtype_default",
    applies=_dsa_model,
)
def dsa_kv_cache_dtype_default(v: View) -> Declare | Refuse | None:
    """DSA KV cache: ``auto`` is fp8_e4m3 on SM10x and newer, else bfloat16.

    When: whenever its promises hold (a DSA model).
    Effect: ``kv_cache_dtype`` = fp8_e4m3 or bfloat16 for ``auto`` (with a note when DSA backends
        were given), ``bf16`` spelled ``bfloat16``; refuses anything but bfloat16/fp8_e4m3, and
        a non-bf16 cache with learnable attention sinks.
    Why: the sparse FP8 kernels are Blackwell's; learnable attention sinks need bf16; only
        bfloat16 and fp8_e4m3 exist for DSA (``_dsa_kv_cache_dtype_default``).
    Assumes: nothing.
    """
    kv = v.kv_cache_dtype
    sinks = v.model.learnable_sink
    if sinks and kv not in ("auto", "bf16", "bfloat16"):
        return Refuse(f"learnable DSA attention sinks need a bfloat16 KV cache, not {kv}")
    note = None
    if kv == "auto":
        if v.dsa_prefill_backend is not None or v.dsa_decode_backend is not None:
            note = ("with --dsa-prefill-backend/--dsa-decode-backend, set --kv-cache-dtype "
                    "too: DSA's default FP8 KV cache may not suit the chosen backends")
        kv = "fp8_e4m3" if v.target.capability[0] >= 10 and not sinks else "bfloat16"
    if kv == "bf16":
        kv = "bfloat16"
    if kv not in ("bfloat16", "fp8_e4m3"):
        return Refuse(f"DSA supports kv_cache_dtype bf16/bfloat16 or fp8_e4m3, not {kv}")
    out = {"kv_cache_dtype": kv} if kv != v.kv_cache_dtype else {}
    return Declare(out, note) if out or note else None


def _dsa_backend_problem(v: Any, kv: str, prefill: str | None, decode: str | None,
                         tilelang_fp8_on_cuda: bool = True) -> str | None:
    chosen = {prefill, decode}
    hip = v.target.is_hip
    if not hip and "triton" in chosen:
        return ("the triton DSA backend runs on ROCm only; on CUDA use flashmla_kv (Hopper) "
                "or trtllm (Blackwell)")
    if hip or kv != "fp8_e4m3" or "tilelang" not in chosen:
        return None
    if not tilelang_fp8_on_cuda:
        return ("the tilelang DSA kernels read an fp8_e4m3 KV cache on ROCm only; on CUDA "
                "use --kv-cache-dtype bfloat16 or flashmla_kv (Hopper) / trtllm (Blackwell)")
    if prefill != "tilelang" or decode != "tilelang":
        return ("a TileLang FP8 KV cache needs tilelang for both DSA backends: the FP8 "
                "layouts cannot be mixed")
    if v.dcp_size > 1:
        return "a TileLang FP8 KV cache does not support --dcp-size > 1"
    if v.target.capability < (8, 9):
        return "a TileLang FP8 KV cache needs SM89 or newer"
    return None


_DSA_SPLIT: dict[str, Any] = dict(
    phase=Phase.MODEL,
    reads=("kv_cache_dtype", "dsa_prefill_backend", "dsa_decode_backend", "enable_hisparse",
           "dcp_size"),
    writes=("dsa_prefill_backend", "dsa_decode_backend"),
    facts=("model.arch0", "model.is_deepseek_dsa", "model.learnable_sink", "target.capability",
           "target.is_hip"),
    archs=DEEPSEEK_BRANCH,
    applies=_dsa_model,
)


@rule(**_DSA_SPLIT, sglang="_dsa_split_backend_resolution")
def dsa_split_backend_resolution(v: View) -> dict | Refuse | None:
    """DSA's prefill/decode kernels, filled where unset, from the KV dtype and the GPU.

    When: whenever its promises hold (a DSA model).
    Effect: unset ``dsa_prefill_backend``/``dsa_decode_backend`` become: flashmla_sparse with
        learnable sinks (anything else refused); flashinfer_sparse_mla for GLM-5 DSA on SM12x
        with FP8 KV; with HiSparse tilelang on ROCm, else flashmla_kv (FP8) or flashmla_sparse;
        triton on ROCm; with FP8 KV trtllm on SM10x+, flashmla_kv on Hopper; with bf16
        flashmla_sparse prefill and trtllm (SM10x+) or fa3 decode. Refuses triton on CUDA, and
        a TileLang FP8 cache that is mixed, with decode CP, below SM89 or with HiSparse.
    Why: each DSA kernel exists for those KV layouts and GPUs only; the FP8 layouts of TileLang
        and the other kernels cannot be mixed (``_dsa_split_backend_resolution``).
    Assumes: nothing.
    """
    return _dsa_split(v, tilelang_fp8_on_cuda=True)


@rule(name="dsa_split_backend_resolution", variant="0.5.21", **_DSA_SPLIT,
      sglang="_dsa_split_backend_resolution (0.5.21)")
def dsa_split_backend_resolution_0_5_21(v: View) -> dict | Refuse | None:
    """0.5.21: the same DSA kernel defaults, and no TileLang kernel with an FP8 cache on CUDA.

    When: as ``dsa_split_backend_resolution``.
    Effect: as ``dsa_split_backend_resolution``, but tilelang for either phase with an
        fp8_e4m3 KV cache is refused on CUDA (both phases tilelang too), HiSparse included.
    Why: 0.5.21's TileLang DSA kernels read FP8 caches on ROCm only; 0.5.22 brought the CUDA
        FP8 layout (both phases, SM89+, no decode CP).
    Assumes: nothing.
    """
    return _dsa_split(v, tilelang_fp8_on_cuda=False)


def _dsa_split(v: View, tilelang_fp8_on_cuda: bool) -> dict | Refuse | None:
    t = v.target
    major = t.capability[0]
    kv = v.kv_cache_dtype
    out: dict[str, Any] = {}

    def fill(prefill: str, decode: str) -> None:
        if v.dsa_prefill_backend is None:
            out["dsa_prefill_backend"] = prefill
        if v.dsa_decode_backend is None:
            out["dsa_decode_backend"] = decode

    if v.model.learnable_sink:
        for field in ("dsa_prefill_backend", "dsa_decode_backend"):
            if v[field] not in (None, "flashmla_sparse"):
                flag = "--" + field.replace("_", "-")
                return Refuse(f"{arch0(v)} has learnable attention sinks and needs {flag} "
                              f"flashmla_sparse, not {v[field]}")
        fill("flashmla_sparse", "flashmla_sparse")
        return out or None
    if (arch0(v) == "GlmMoeDsaForCausalLM" and major == 12 and kv == "fp8_e4m3"
            and not t.is_hip):
        fill("flashinfer_sparse_mla", "flashinfer_sparse_mla")
        return out or None
    if v.enable_hisparse:
        backend = "tilelang" if t.is_hip else (
            "flashmla_kv" if kv == "fp8_e4m3" else "flashmla_sparse")
        fill(backend, backend)
        prefill = out.get("dsa_prefill_backend", v.dsa_prefill_backend)
        decode = out.get("dsa_decode_backend", v.dsa_decode_backend)
        if (tilelang_fp8_on_cuda and not t.is_hip and kv == "fp8_e4m3"
                and "tilelang" in (prefill, decode)):
            return Refuse("a TileLang FP8 KV cache does not support HiSparse")
    elif t.is_hip:
        fill("triton", "triton")
    elif kv == "fp8_e4m3":
        default = "trtllm" if major >= 10 else "flashmla_kv"
        fill(default, default)
    else:
        fill("flashmla_sparse", "trtllm" if major >= 10 else "fa3")
    prefill = out.get("dsa_prefill_backend", v.dsa_prefill_backend)
    decode = out.get("dsa_decode_backend", v.dsa_decode_backend)
    problem = _dsa_backend_problem(v, kv, prefill, decode, tilelang_fp8_on_cuda)
    if problem:
        return Refuse(problem)
    return out or None


@rule(
    phase=Phase.MODEL,
    reads=("enable_prefill_cp", "disaggregation_mode", "enable_dsa_cache_layer_split",
           "cp_strategy", "disaggregation_transfer_backend", "pp_size"),
    facts=("model.arch0", "model.is_deepseek_dsa"),
    archs=DEEPSEEK_BRANCH,
    applies=_dsa_model,
    triggers=("enable_prefill_cp", "enable_dsa_cache_layer_split"),
    sglang="handle_model_specific_adjustments (DSA context-parallel checks)",
)
def dsa_context_parallel_checks(v: View) -> Refuse | None:
    """DSA prefill CP is for prefill servers only; the cache layer split has narrow limits.

    When: ``--enable-prefill-cp`` or ``--enable-dsa-cache-layer-split`` is on for a DSA model.
    Effect: refuses prefill CP on a PD decode server; refuses the layer split except on PD
        prefill workers with ``--enable-prefill-cp --cp-strategy interleave``, the Mooncake
        transfer backend and no pipeline parallelism.
    Why: the layer split is a prefill-CP optimisation; decode workers receive whole cache shards
        through PD transfer (the DSA context-parallel checks in
        ``handle_model_specific_adjustments``, model_hook.py).
    Assumes: nothing.
    """
    mode = v.disaggregation_mode
    if v.enable_prefill_cp and mode == "decode":
        return Refuse("prefill context parallelism is for prefill servers; remove "
                      "--enable-prefill-cp from the PD decode server")
    if not v.enable_dsa_cache_layer_split:
        return None
    if mode == "decode":
        return Refuse("--enable-dsa-cache-layer-split is not for decode workers: they receive "
                      "whole cache shards through PD transfer")
    if mode != "prefill":
        return Refuse("--enable-dsa-cache-layer-split runs on PD prefill workers only")
    if not v.enable_prefill_cp or v.cp_strategy != "interleave":
        return Refuse("--enable-dsa-cache-layer-split needs --enable-prefill-cp and "
                      "--cp-strategy interleave")
    if v.disaggregation_transfer_backend != "mooncake":
        return Refuse("--enable-dsa-cache-layer-split needs the mooncake transfer backend, "
                      f"not {v.disaggregation_transfer_backend}")
    if v.pp_size > 1:
        return Refuse("--enable-dsa-cache-layer-split does not support pipeline parallelism")
    return None


@rule(
    phase=Phase.MODEL,
    reads=("enable_prefill_cp", "cuda_graph_config"),
    writes=("cuda_graph_config",),
    facts=("model.arch0", "model.is_deepseek_dsa", "model.is_mla"),
    archs=DEEPSEEK_BRANCH,
    applies=lambda target, model: model.is_mla and not model.is_deepseek_dsa,
    triggers=("enable_prefill_cp",),
    sglang="handle_model_specific_adjustments (MLA prefill CP graph disable)",
)
def mla_prefill_cp_graph_disable(v: View) -> Declare | None:
    """Non-DSA DeepSeek MLA with prefill CP runs prefill eagerly (lock ignored).

    When: ``--enable-prefill-cp`` is on for a plain MLA model and the prefill CUDA graph is not
        already disabled.
    Effect: ``cuda_graph_config`` with the prefill graph backend ``disabled``, with a note.
    Why: MLA prefill context parallelism cannot capture a prefill graph (the MLA prefill CP graph
        disable in ``handle_model_specific_adjustments``, model_hook.py); the lock on an
        explicit prefill backend is ignored (rules.md §5.3).
    Assumes: nothing.
    """
    if not v.enable_prefill_cp:
        return None
    config_ = v.cuda_graph_config
    if config_[PREFILL]["backend"] == "disabled":
        return None
    return Declare({"cuda_graph_config": with_phase(config_, PREFILL, backend="disabled")},
                   "prefill CUDA graph disabled: MLA prefill context parallelism")


# Quantizations whose DeepSeek MoE the trtllm-gen kernels run on SM10x (None: bf16).
DEEPSEEK_TRTLLM_MOE = ("fp8", "modelopt_fp8", "modelopt_fp4", "modelopt_mixed", None)


def _kimi_int4_thinking(v: Any) -> bool:
    """Kimi K2/K2.5 thinking's compressed-tensors int4 recipe (group 32)."""
    return _kimi_int4_recipe(v.model)


@per_object
def _kimi_int4_recipe(model: Any) -> bool:
    qc = model.quantization_config if isinstance(model.quantization_config, Mapping) else {}
    group0 = (qc.get("config_groups") or {}).get("group_0") or {}
    weights = group0.get("weights") or {}
    return (qc.get("quant_method") == "compressed-tensors" and weights.get("num_bits") == 4
            and weights.get("group_size") == 32 and weights.get("strategy") == "group"
            and weights.get("type") == "int")


@rule(
    phase=Phase.MODEL,
    reads=("quantization", "moe_a2a_backend", "moe_runner_backend", "fp8_gemm_runner_backend"),
    writes=("quantization", "moe_runner_backend", "fp8_gemm_runner_backend"),
    facts=("model.arch0", "model.quantization_config", "target.is_sm100"),
    archs=DEEPSEEK_BRANCH,
    sglang="_deepseek_moe_quant_resolution",
)
def deepseek_moe_quant_resolution(v: View) -> Declare | None:
    """DeepSeek on SM10x: the checkpoint's quantization, and trtllm-gen MoE.

    When: the GPU is SM10x.
    Effect: an unset ``--quantization`` (not ``unquant``) takes the checkpoint's method; with fp8,
        ModelOpt FP8/FP4/mixed, Kimi's int4 recipe or bf16, no A2A backend and an automatic
        runner, ``moe_runner_backend`` = ``flashinfer_trtllm`` (not LongCat); LongCat FP8 without
        ue8m0 scales gets ``fp8_gemm_runner_backend`` = ``flashinfer_trtllm``.
    Why: trtllm-gen's fused MoE runs those layouts on Blackwell; LongCat's top-k spans zero
        experts the fused routing cannot see (``_deepseek_moe_quant_resolution``).
    Assumes: a DeepSeek-V3 config without ``quantization_config`` has no FP8 expert weights
        (launchplan reads no weight headers), so it stays bf16.
    """
    arch = arch0(v)
    if not v.target.is_sm100:
        return None
    out: dict[str, Any] = {}
    method = checkpoint_quant_method(v)
    kimi_int4 = _kimi_int4_thinking(v)
    quantization = v.quantization
    if quantization is None and not quantization_unset_explicitly(v):
        if not (method is None and arch == "DeepseekV3ForCausalLM"):
            out["quantization"] = quantization = method
    if (v.moe_a2a_backend == "none" and v.moe_runner_backend == "auto"
            and not arch.startswith("LongcatFlash")
            and (quantization in DEEPSEEK_TRTLLM_MOE or kimi_int4)):
        out["moe_runner_backend"] = "flashinfer_trtllm"
    if (arch == "LongcatFlashForCausalLM" and v.fp8_gemm_runner_backend == "auto"
            and quantization in ("fp8", "modelopt_fp8")
            and quantization_config(v).get("scale_fmt") != "ue8m0"):
        out["fp8_gemm_runner_backend"] = "flashinfer_trtllm"
    if not out:
        return None
    note = None
    if "moe_runner_backend" in out:
        note = f"MoE runs on flashinfer_trtllm (trtllm-gen) for {arch} on SM10x"
    return Declare(out, note)


_GLM_AITER = dict(
    phase=Phase.MODEL,
    reads=("attn_dp_size", "ep_join_mode", "nnodes"),
    writes=("enable_aiter_allreduce_fusion", "disable_aiter_allreduce_fusion_in_prefill"),
    facts=("model.arch0", "target.is_hip"),
    archs=("GlmMoeDsaForCausalLM",),
)


@rule(**_GLM_AITER,
      sglang="handle_model_specific_adjustments (GLM-5 DSA aiter all-reduce fusion on ROCm)")
def glm_dsa_aiter_allreduce_fusion(v: View) -> dict | None:
    """GLM-5 DSA on one ROCm node without attention DP fuses aiter all-reduce for decode.

    When: the target is ROCm, attention DP is off and there is one node.
    Effect: ``enable_aiter_allreduce_fusion`` = true and
        ``disable_aiter_allreduce_fusion_in_prefill`` = true.
    Why: SGLang turns on aiter's fused all-reduce for GLM-5 DSA decode on a single ROCm node (the
        GLM-5 DSA branch of ``handle_model_specific_adjustments``, model_hook.py).
    Assumes: nothing.
    """
    return _glm_aiter(v, attn_dp_enabled)


@rule(name="glm_dsa_aiter_allreduce_fusion", variant="0.5.21",
      **{**_GLM_AITER, "reads": _GLM_AITER["reads"] + ("enable_dp_attention",)},
      sglang="handle_model_specific_adjustments (GLM-5 DSA aiter fusion on ROCm, 0.5.21)")
def glm_dsa_aiter_allreduce_fusion_0_5_21(v: View) -> dict | None:
    """0.5.21: as the current rule, with attention DP read from 0.5.21's switch.

    When: as ``glm_dsa_aiter_allreduce_fusion``.
    Effect: as ``glm_dsa_aiter_allreduce_fusion``, but ``--enable-dp-attention`` with one DP
        group (or the prefill-CP layout, which turns the switch on) leaves the fusion off, and
        a scale-up joiner without the switch does not.
    Why: 0.5.21 tests ``enable_dp_attention``, which it clears with one DP group only later,
        in ``handle_data_parallelism``.
    Assumes: nothing.
    """
    return _glm_aiter(v, dp_attention_switch_0_5_21)


def _glm_aiter(v: View, attn_dp: Callable[[Any], bool]) -> dict | None:
    if v.target.is_hip and not attn_dp(v) and v.nnodes == 1:
        return {"enable_aiter_allreduce_fusion": True,
                "disable_aiter_allreduce_fusion_in_prefill": True}
    return None


@rule(
    phase=Phase.MODEL,
    reads=("quantization", "speculative_algorithm", "speculative_moe_runner_backend",
           "speculative_moe_a2a_backend", "ep_size"),
    writes=("speculative_moe_runner_backend", "speculative_moe_a2a_backend"),
    facts=("model.arch0", "target.is_hip"),
    archs=DEEPSEEK_BRANCH,
    sglang="_deepseek_spec_moe_resolution",
    applies=lambda target, model: target.is_hip,
)
def deepseek_spec_moe_resolution(v: View) -> dict | Refuse | None:
    """ROCm DeepSeek FP4 checkpoints draft their bf16 NextN layer on triton MoE.

    When: on ROCm, ``--quantization modelopt_fp4`` with EAGLE and an unset draft MoE runner or
        A2A backend.
    Effect: ``speculative_moe_runner_backend`` = triton and ``speculative_moe_a2a_backend`` =
        none; with ``SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE``, deep_gemm over deepep instead, refused
        without expert parallelism (``--ep-size`` 1).
    Why: the NextN draft layer is bf16 (or FP8 under that variable), not NVFP4; deep_gemm over
        DeepEP needs expert parallelism (``_deepseek_spec_moe_resolution``).
    Assumes: ``SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE`` is off unless the given environment sets it.
    """
    if not (v.quantization == "modelopt_fp4" and v.speculative_algorithm == "EAGLE"
            and (v.speculative_moe_runner_backend is None
                 or v.speculative_moe_a2a_backend is None)):
        return None
    if env_true(v, "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"):
        if v.ep_size == 1:
            return Refuse("the deep_gemm draft MoE over DeepEP needs expert parallelism "
                          "(--ep-size > 1)")
        return {"speculative_moe_runner_backend": "deep_gemm",
                "speculative_moe_a2a_backend": "deepep"}
    return {"speculative_moe_runner_backend": "triton", "speculative_moe_a2a_backend": "none"}
