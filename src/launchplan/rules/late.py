"""Rules after the attention backends are known: the DeepSeek trtllm_mla graph rule (P19),
platform and serving odds and ends (P24-P26), cache layouts and unified memory (P33), debug
dumps (P35), model capability gates (P36), the prefill max-context alignment (P38), and the
launcher's own checks that run after resolution (``check_server_args``).
"""

from __future__ import annotations

from typing import Any

from launchplan.checks.requirements import OnView, by_name
from launchplan.engine.declarations import Declare, Refuse, arithmetic_refusal
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts import environment
from launchplan.rules.attention import BACKEND_FIELDS, effective_backends
from launchplan.rules.graph_config import (
    DECODE,
    INPUT_FIELDS,
    PREFILL,
    is_locked,
    locked,
    prefill_sizes,
    with_phase,
)
from launchplan.rules.parallel import attn_dp_enabled
from launchplan.struct import Struct
from launchplan.vocabulary import MIXED_CHUNK_ALGORITHMS


def _both_disabled(config: dict) -> dict:
    return with_phase(with_phase(config, DECODE, backend="disabled"), PREFILL,
                      backend="disabled")


# --- P19 -------------------------------------------------------------------------------------


@rule(
    phase=Phase.ATTENTION_LATE,
    reads=BACKEND_FIELDS + INPUT_FIELDS,
    writes=("cuda_graph_config",),
    facts=("model.architectures",),
    sglang="disable_prefill_cuda_graph_for_deepseek_trtllm_mla",
    applies=lambda target, model: "DeepseekV3ForCausalLM" in model.architectures,
)
def deepseek_trtllm_mla_prefill_graph(v: View) -> Declare | None:
    """DeepSeek-V3-arch models prefilling on trtllm_mla run without a prefill CUDA graph.

    When: DeepseekV3ForCausalLM is among the architectures, the effective prefill backend is
        trtllm_mla, the prefill graph is on and the user did not choose its backend.
    Effect: sets the prefill phase of ``cuda_graph_config`` to disabled, with a note saying
        ``--cuda-graph-backend-prefill`` keeps one.
    Why: under any captured prefill graph trtllm_mla falls back to a slower FlashAttention
        prefill; it runs after the backend default, so it also sees the SM10x trtllm_mla model
        default (``disable_prefill_cuda_graph_for_deepseek_trtllm_mla``).
    Assumes: nothing.
    """
    config = v.cuda_graph_config
    if (config[PREFILL]["backend"] == "disabled"
            or effective_backends(v)[0] != "trtllm_mla" or is_locked(v, PREFILL, "backend")):
        return None
    return Declare({"cuda_graph_config": with_phase(config, PREFILL, backend="disabled")},
                   f"prefill CUDA graph ({config[PREFILL]['backend']}) disabled for DeepSeek-V3 "
                   "on trtllm_mla: a captured prefill graph falls back to a slower "
                   "FlashAttention prefill; pass --cuda-graph-backend-prefill to keep one")


@rule(
    phase=Phase.ATTENTION_LATE,
    reads=("mamba_cache_philox_rounds", "mamba_max_states_per_path",
           "enable_mamba_cache_stochastic_rounding", "mamba_ssm_dtype", "mamba_backend"),
    facts=("target.is_cuda", "target.is_sm100", "target.has_flashinfer"),
    sglang="handle_mamba_backend",
    triggers=("mamba_cache_philox_rounds", "mamba_max_states_per_path",
              "enable_mamba_cache_stochastic_rounding", "mamba_backend"),
)
def mamba_backend_checks(v: View) -> Refuse | None:
    """The Mamba state cache's settings: counts in range, stochastic rounding's needs.

    When: whenever its promises hold (for any model: SGLang checks the flags, not the model).
    Effect: refuses a negative ``--mamba-cache-philox-rounds``; a
        ``--mamba-max-states-per-path`` of 0 or below -1; stochastic rounding without
        ``--mamba-ssm-dtype float16``, off CUDA, or on the triton Mamba backend off SM10x;
        and ``--mamba-backend flashinfer`` without FlashInfer.
    Why: stochastic rounding writes the SSM state as float16 with a rounding PTX instruction
        (``cvt.rs.f16x2.f32``) that only SM10x has for the triton kernels; the flashinfer
        backend is FlashInfer's Mamba module (``handle_mamba_backend``).
    Assumes: FlashInfer, where the target has it, ships its Mamba module.
    """
    rounds, states = v.mamba_cache_philox_rounds, v.mamba_max_states_per_path
    if isinstance(rounds, (int, float)) and rounds < 0:
        return Refuse("--mamba-cache-philox-rounds must be 0 or more")
    if isinstance(states, (int, float)) and (states == 0 or states < -1):
        return Refuse(f"--mamba-max-states-per-path must be -1 (no limit) or positive, got "
                      f"{states}")
    target = v.target
    if v.enable_mamba_cache_stochastic_rounding:
        if v.mamba_ssm_dtype != "float16":
            return Refuse("stochastic rounding of the Mamba SSM cache needs --mamba-ssm-dtype "
                          f"float16, got {v.mamba_ssm_dtype}")
        if not target.is_cuda:
            return Refuse("stochastic rounding of the Mamba SSM cache runs on NVIDIA CUDA only")
        if v.mamba_backend == "triton" and not target.is_sm100:
            return Refuse("stochastic rounding with --mamba-backend triton needs an SM10x GPU "
                          "(its rounding instruction); use --mamba-backend flashinfer")
    if v.mamba_backend == "flashinfer" and not target.has_flashinfer:
        return Refuse("--mamba-backend flashinfer needs FlashInfer's Mamba module, which this "
                      "target does not have")
    return None


@rule(
    phase=Phase.ATTENTION_LATE,
    reads=("enable_int8_mamba_checkpoint", "enable_hierarchical_cache", "radix_cache_backend",
           "enable_lmcache"),
    sglang="handle_int8_mamba_checkpoint",
    triggers=("enable_int8_mamba_checkpoint",),
)
def int8_mamba_checkpoint_checks(v: View) -> Refuse | None:
    """Int8 Mamba state checkpoints need the built-in Mamba radix cache, without offload.

    When: ``--enable-int8-mamba-checkpoint`` is on (for any model: SGLang checks the flags).
    Effect: refuses it with HiCache, with a ``--radix-cache-backend`` and with LMCache.
    Why: the host offload, custom radix caches and LMCache read checkpoint slots as bf16
        states; only the built-in Mamba radix cache knows the int8 slots
        (``handle_int8_mamba_checkpoint``).
    Assumes: nothing.
    """
    for failed, what in ((v.enable_hierarchical_cache, "--enable-hierarchical-cache"),
                         (v.radix_cache_backend is not None, "--radix-cache-backend"),
                         (v.enable_lmcache, "--enable-lmcache")):
        if failed:
            return Refuse(f"--enable-int8-mamba-checkpoint does not work with {what} (not "
                          "int8-aware)")
    return None


_LINEAR_ATTN: dict[str, Any] = dict(
    phase=Phase.ATTENTION_LATE,
    reads=("linear_attn_backend", "linear_attn_decode_backend", "linear_attn_prefill_backend",
           "linear_attn_verify_backend", "mamba_ssm_dtype", "enable_linear_replayssm",
           "linear_replayssm_cache_len", "enable_linear_replayssm_spec",
           "mamba_radix_cache_strategy", "disable_radix_cache", "disaggregation_mode",
           "speculative_eagle_topk", "speculative_algorithm"),
    writes=("linear_attn_decode_backend", "linear_attn_verify_backend", "mamba_ssm_dtype"),
    facts=("target.is_cuda", "target.is_sm100", "target.capability", "target.runtime_version",
           "model.uses_kda"),
)


@rule(**_LINEAR_ATTN, sglang="handle_linear_attn_backend")
def linear_attn_backend_checks(v: View) -> Declare | Refuse | None:
    """Linear-attention kernels: FlashInfer decode on SM100 with bf16 state, and their limits.

    When: whenever its promises hold (for any model: SGLang checks the flags, not the model).
    Effect: on SM10x with ``--mamba-ssm-dtype bfloat16`` and no decode backend chosen (nor the
        helion base) declares ``linear_attn_decode_backend`` flashinfer (and, for a KDA model
        under SGLANG_ENABLE_PP_SPEC, a triton verify backend); refuses flashkda as
        the decode backend (flashkda inherited from the base becomes triton for decode);
        refuses FlashInfer decode or verify on CUDA SM>=10 without bf16 state, and FlashInfer
        prefill there before CUDA 13; ReplaySSM needs triton or helion decode, no extra-buffer
        Mamba cache, no PD role and a cache length >= 1; its speculative form needs top-k 1,
        triton or flashinfer decode, no PD prefill role and not plain ReplaySSM, and sets an
        unset Mamba state dtype to float32.
    Why: FlashInfer's GDN kernels keep bf16 state on Blackwell and its prefill kernel needs
        CUDA 13; FlashKDA has no decode kernel; the ReplaySSM ring is wired only for the
        no-buffer Mamba cache outside PD, and its verify form for a linear draft chain
        (``handle_linear_attn_backend``).
    Assumes: SGLANG_ENABLE_PP_SPEC is off and SGLANG_RAGGED_VERIFY_MODE static unless the
        environment given sets them.
    """
    return _linear_attn_checks(v, kda_pp_spec_fallback=True)


@rule(name="linear_attn_backend_checks", variant="0.5.21", **_LINEAR_ATTN,
      sglang="handle_linear_attn_backend (0.5.21)")
def linear_attn_backend_checks_0_5_21(v: View) -> Declare | Refuse | None:
    """0.5.21: the linear-attention checks without the KDA verify fallback.

    When: as ``linear_attn_backend_checks``.
    Effect: as ``linear_attn_backend_checks``, but a KDA model under SGLANG_ENABLE_PP_SPEC
        keeps FlashInfer verify (and so meets the same SM100 state-dtype check).
    Why: the triton verify fallback for SGLANG_ENABLE_PP_SPEC with KDA came in 0.5.22
        (``handle_linear_attn_backend``).
    Assumes: as ``linear_attn_backend_checks``.
    """
    return _linear_attn_checks(v, kda_pp_spec_fallback=False)


def _linear_attn_checks(v: View, kda_pp_spec_fallback: bool) -> Declare | Refuse | None:
    out: dict[str, Any] = {}
    notes = []
    dtype = v.mamba_ssm_dtype
    if (v.linear_attn_decode_backend is None and v.linear_attn_backend != "helion"
            and v.target.is_sm100 and dtype == "bfloat16"):
        out["linear_attn_decode_backend"] = "flashinfer"
        notes.append("SM10x with bf16 Mamba state: FlashInfer linear-attention decode")
    decode = out.get("linear_attn_decode_backend") or v.linear_attn_decode_backend \
        or v.linear_attn_backend
    if decode == "flashkda":
        if v.linear_attn_decode_backend == "flashkda":
            return Refuse("--linear-attn-decode-backend flashkda: FlashKDA is prefill-only")
        decode = out["linear_attn_decode_backend"] = "triton"
        notes.append("FlashKDA is prefill-only: triton linear-attention decode")
    blackwell = v.target.is_cuda and v.target.capability[0] >= 10
    verify = v.linear_attn_verify_backend
    if verify is None and decode == "flashinfer":
        verify = "flashinfer"
    if kda_pp_spec_fallback and verify == "flashinfer" \
            and v.record.env_flag("SGLANG_ENABLE_PP_SPEC") and v.model.uses_kda:
        verify = out["linear_attn_verify_backend"] = "triton"
        notes.append("SGLANG_ENABLE_PP_SPEC with KDA: triton linear-attention verify")
    for kind, backend in (("decode", decode), ("verify", verify)):
        if backend == "flashinfer" and dtype != "bfloat16" and blackwell:
            return Refuse(f"--linear-attn-{kind}-backend flashinfer on SM100+ needs "
                          f"--mamba-ssm-dtype bfloat16; got {dtype}")
    prefill = v.linear_attn_prefill_backend or v.linear_attn_backend
    if prefill == "flashinfer" and blackwell and _cuda_major(v) < 13:
        return Refuse("--linear-attn-prefill-backend flashinfer on SM100+ needs CUDA 13")
    refusal = _replayssm_refusal(v, decode)
    if refusal is not None:
        return refusal
    if v.enable_linear_replayssm_spec and dtype is None:
        out["mamba_ssm_dtype"] = "float32"
        notes.append("ReplaySSM verify keeps float32 Mamba state")
    if not out:
        return None
    return Declare(out, "; ".join(notes))


def _cuda_major(v: View) -> int:
    version = v.target.runtime_version if v.target.is_cuda else None
    return int(str(version).split(".")[0]) if version else 0


def _replayssm_refusal(v: View, decode: str | None) -> Refuse | None:
    if v.enable_linear_replayssm:
        extra = v.disable_radix_cache is False and v.mamba_radix_cache_strategy in (
            "extra_buffer", "extra_buffer_lazy")
        for failed, what in (
            (decode not in ("triton", "helion"), f"a triton or helion decode backend, not "
                                                 f"{decode}"),
            (extra, "the no_buffer Mamba radix cache"),
            (v.disaggregation_mode != "null", "no PD disaggregation"),
            (v.linear_replayssm_cache_len < 1, "--linear-replayssm-cache-len >= 1"),
        ):
            if failed:
                return Refuse(f"--enable-linear-replayssm needs {what}")
    if not v.enable_linear_replayssm_spec:
        return None
    ragged = v.record.env.get("SGLANG_RAGGED_VERIFY_MODE", "static")
    algorithm = (v.speculative_algorithm or "").upper()
    for failed, what in (
        (v.speculative_eagle_topk not in (None, 1), "a linear draft chain (top-k 1)"),
        (decode not in ("triton", "flashinfer"), f"the triton or flashinfer decode backend, "
                                                 f"not {decode}"),
        (ragged != "static" and (algorithm not in ("DSPARK", "DFLASH")
                                 or v.linear_attn_verify_backend not in ("triton",
                                                                         "nv_cutedsl")),
         "DSPARK or DFLASH with a ring-writing verify kernel under ragged verify"),
        (v.disaggregation_mode == "prefill", "a server that verifies (not PD prefill)"),
        (v.enable_linear_replayssm, "plain ReplaySSM off (they share the ring)"),
    ):
        if failed:
            return Refuse(f"--enable-linear-replayssm-spec needs {what}")
    return None


# --- P24-P26 ---------------------------------------------------------------------------------


@rule(
    phase=Phase.MISC,
    reads=("triton_attention_num_kv_splits",),
    writes=("triton_attention_num_kv_splits",),
    facts=("target.is_hip",),
    sglang="handle_amd_specifics",
    applies=lambda target, model: target.is_hip,
)
def amd_triton_kv_splits(v: View) -> dict | None:
    """On ROCm the Triton decode kernel splits the KV sequence 16 ways (8 elsewhere).

    When: whenever its promises hold (a ROCm GPU).
    Effect: declares ``triton_attention_num_kv_splits`` 16, even over an explicit value.
    Why: AMD GPUs have more compute units per device to fill during split-K decode
        (``handle_amd_specifics``).
    Assumes: nothing.
    """
    return {"triton_attention_num_kv_splits": 16}


@rule(
    phase=Phase.MISC,
    reads=("grammar_backend",),
    writes=("grammar_backend",),
    sglang="handle_grammar_backend",
)
def grammar_backend_default(v: View) -> dict | None:
    """Structured output uses XGrammar unless another grammar backend is named.

    When: ``grammar_backend`` is unset.
    Effect: declares ``grammar_backend`` xgrammar.
    Why: SGLang's default grammar backend (``handle_grammar_backend``).
    Assumes: nothing.
    """
    if v.grammar_backend is None:
        return {"grammar_backend": "xgrammar"}
    return None


@rule(
    phase=Phase.MISC,
    reads=BACKEND_FIELDS + ("enable_mis", "cuda_graph_config", "disable_radix_cache",
                            "chunked_prefill_size"),
    writes=("cuda_graph_config", "disable_radix_cache", "chunked_prefill_size"),
    sglang="handle_multi_item_scoring",
    triggers=("enable_mis",),
)
def multi_item_scoring(v: View) -> Declare | Refuse | None:
    """Multi-item scoring packs items behind one prompt with a custom attention mask.

    When: ``enable_mis`` is true.
    Effect: disables both graph phases of ``cuda_graph_config`` (even chosen ones), sets
        ``disable_radix_cache`` True and ``chunked_prefill_size`` -1; refuses prefill or decode
        backends other than flashinfer (checked, not silently changed).
    Why: graphs, prefix reuse and chunking would split or reuse that mask, and only flashinfer
        takes a custom mask (``handle_multi_item_scoring``).
    Assumes: nothing.
    """
    if not v.enable_mis:
        return None
    out: dict[str, Any] = {"cuda_graph_config": _both_disabled(v.cuda_graph_config)}
    if not v.disable_radix_cache:
        out["disable_radix_cache"] = True
    if v.chunked_prefill_size != -1:
        out["chunked_prefill_size"] = -1
    prefill, decode = effective_backends(v)
    if (prefill, decode) != ("flashinfer", "flashinfer"):
        return Refuse("--enable-mis needs the flashinfer attention backend for its custom "
                      f"mask; got prefill {prefill}, decode {decode}")
    return Declare(out, "multi-item scoring: CUDA graphs, radix cache and chunked prefill off")


@rule(
    phase=Phase.MISC,
    reads=BACKEND_FIELDS + ("prefill_only_disable_kv_cache",),
    sglang="handle_prefill_only_disable_kv_cache",
    triggers=("prefill_only_disable_kv_cache",),
)
def prefill_only_kv_backend_check(v: View) -> Refuse | None:
    """The KV-less embedding prefill exists only on the FA backends (fa3, fa4).

    When: ``prefill_only_disable_kv_cache`` is true.
    Effect: refuses an effective prefill backend other than fa3 or fa4.
    Why: their raw K/V path attends without writing the paged pool; others read the pool
        (``handle_prefill_only_disable_kv_cache``).
    Assumes: nothing.
    """
    if not v.prefill_only_disable_kv_cache:
        return None
    prefill = effective_backends(v)[0]
    if prefill not in ("fa3", "fa4"):
        return Refuse("--prefill-only-disable-kv-cache needs the fa3 or fa4 prefill backend; "
                      f"got {prefill}")
    return None


# --- P32b: what handle_environment_variables checks while it exports the environment --------


@rule(
    phase=Phase.SERVING,
    reads=("debug_cuda_graph", "enable_deepseek_v4_fp4_indexer"),
    writes=("debug_cuda_graph",),
    facts=("target.name", "target.is_cuda", "target.is_hip", "target.is_sm100",
           "target.is_sm120", "target.is_gfx95"),
    sglang="handle_environment_variables",
    triggers=("debug_cuda_graph", "enable_deepseek_v4_fp4_indexer"),
)
def environment_variable_checks(v: View) -> Declare | Refuse | None:
    """The CUDA-graph debug mode needs CUDA or ROCm; DeepSeek-V4's FP4 indexer needs its GPUs.

    When: ``--debug-cuda-graph`` or ``--enable-deepseek-v4-fp4-indexer`` is given.
    Effect: declares ``debug_cuda_graph`` False off CUDA and ROCm; refuses the FP4 indexer
        on GPUs other than SM100, SM120 or gfx95.
    Why: the debug mode replays through the breakable CUDA graph, and only those GPUs have the
        FP4 indexer kernels (``handle_environment_variables``).
    Assumes: nothing.
    """
    target = v.target
    if v.enable_deepseek_v4_fp4_indexer and not (
            target.is_sm100 or target.is_sm120 or target.is_gfx95):
        return Refuse("--enable-deepseek-v4-fp4-indexer needs an SM100, SM120 or gfx95 GPU "
                      f"(FP4 indexer kernels); {target.name} has none")
    if v.debug_cuda_graph and not (target.is_cuda or target.is_hip):
        return Declare({"debug_cuda_graph": False},
                       "--debug-cuda-graph needs CUDA or ROCm: turned off")
    return None


# --- P33: caches, page-major layout, unified memory ------------------------------------------


@rule(
    phase=Phase.SERVING,
    reads=("disaggregation_decode_retraction_backup", "disaggregation_mode", "dcp_size",
           "enable_priority_scheduling", "disable_priority_preemption",
           "radix_eviction_policy", "radix_eviction_policy_config",
           "enable_hierarchical_cache", "disable_radix_cache",
           "disaggregation_decode_enable_offload_kvcache", "hicache_storage_backend",
           "_swa_full_tokens_ratio_explicitly_set", "swa_full_tokens_ratio",
           "swa_prefix_tails", "enable_lmcache", "enable_unified_cache_external_linker",
           "speculative_algorithm", "attn_dp_size", "ep_join_mode",
           "enable_streaming_session", "hicache_host_memory_mode"),
    writes=("_swa_full_tokens_ratio_explicitly_set",),
    sglang="handle_cache_compatibility",
)
def cache_compatibility(v: View) -> dict | Refuse | None:
    """Cache features that exclude each other, and the SWA ratio's range.

    When: whenever its promises hold (each check tests its own flag).
    Effect: refuses the host-pool retraction backup off PD decode, with DCP, or with priority
        scheduling and preemption; T-LRU without threshold > next-prompt estimate >= 0;
        hierarchical cache without the radix cache; decode KV offload off PD decode, without a
        storage backend or with the host-pool backup; an SWA ratio outside (0, 1]; negative
        SWA prefix tails; LMCache with HiCache, the external linker, a disabled radix cache,
        speculation, attention DP, DCP, streaming sessions, buffer-only hosts or PD. Records
        ``_swa_full_tokens_ratio_explicitly_set``.
    Why: these caches share pools or indices in incompatible ways
        (``handle_cache_compatibility``).
    Assumes: nothing.
    """
    backup = v.disaggregation_decode_retraction_backup
    if backup == "host_pool":
        if v.disaggregation_mode != "decode":
            return Refuse("--disaggregation-decode-retraction-backup=host_pool is for PD "
                          "decode servers only")
        if v.dcp_size > 1:
            return Refuse("the host-pool retraction backup does not support --dcp-size > 1")
        if v.enable_priority_scheduling and not v.disable_priority_preemption:
            return Refuse("the host-pool retraction backup with priority scheduling needs "
                          "--disable-priority-preemption")
    if v.radix_eviction_policy == "tlru":
        tlru = v.radix_eviction_policy_config or {}
        threshold = tlru.get("threshold", 0)
        estimate = tlru.get("next_prompt_estimate", 0)
        if threshold < 0 or estimate < 0:
            return Refuse("T-LRU needs a non-negative threshold and next_prompt_estimate")
        if threshold <= estimate:
            return Refuse("T-LRU needs threshold above next_prompt_estimate (else it is LRU)")
    if v.enable_hierarchical_cache and v.disable_radix_cache:
        return Refuse("--enable-hierarchical-cache and --disable-radix-cache exclude each other")
    if v.disaggregation_decode_enable_offload_kvcache:
        if v.disaggregation_mode != "decode":
            return Refuse("decode KV offload is for PD decode servers only")
        if v.hicache_storage_backend is None:
            return Refuse("decode KV offload needs --hicache-storage-backend")
        if backup == "host_pool":
            return Refuse("decode KV offload and the host-pool retraction backup both build a "
                          "decode host pool")
    out: dict[str, Any] = {}
    if v._swa_full_tokens_ratio_explicitly_set is None:
        out["_swa_full_tokens_ratio_explicitly_set"] = v.swa_full_tokens_ratio is not None
    ratio = v.swa_full_tokens_ratio
    if ratio is None:
        ratio = 0.8  # the field's fallback when nothing decided it
    if not 0 < ratio <= 1.0:
        return Refuse("--swa-full-tokens-ratio must be in (0, 1]")
    if v.swa_prefix_tails is not None and v.swa_prefix_tails < 0:
        return Refuse("--swa-prefix-tails must be non-negative")
    if v.enable_lmcache:
        refusal = _lmcache_refusal(v)
        if refusal is not None:
            return refusal
    return out or None


def _lmcache_refusal(v: Any) -> Refuse | None:
    for failed, what in (
        (v.enable_hierarchical_cache, "--enable-hierarchical-cache"),
        (v.enable_unified_cache_external_linker, "--enable-unified-cache-external-linker"),
        (v.disable_radix_cache, "a disabled radix cache"),
        (v.speculative_algorithm is not None, "speculative decoding"),
        (attn_dp_enabled(v), "attention DP"),
        (v.dcp_size > 1, "--dcp-size > 1"),
        (v.enable_streaming_session, "streaming sessions"),
        (v.hicache_host_memory_mode == "buffer_only", "a buffer-only host pool"),
        (v.disaggregation_mode != "null", "PD disaggregation"),
    ):
        if failed:
            return Refuse(f"--enable-lmcache does not support {what}")
    return None


# Backends that carry v_head_dim to the kernel (K and V rows of different widths).
_ASYMMETRIC_KV_BACKENDS = {"triton", "fa3", "fa4"}
_PAGE_MAJOR_MLA = frozenset({"triton", "fa3", "trtllm_mla", "flashinfer", "cutedsl_mla",
                             "flashmla"})
_PAGE_MAJOR_MHA = frozenset({"triton", "fa3", "fa4", "flashinfer", "trtllm_mha"})

_PAGE_MAJOR = dict(
    phase=Phase.SERVING,
    reads=BACKEND_FIELDS + ("enable_unified_memory", "enable_page_major_kv_layout",
                            "linear_attn_decode_backend", "linear_attn_prefill_backend",
                            "linear_attn_backend", "mamba_backend"),
    writes=("enable_page_major_kv_layout",),
    facts=("model.is_mla", "model.has_asymmetric_kv"),
    triggers=("enable_page_major_kv_layout", "enable_unified_memory"),
)


@rule(**_PAGE_MAJOR, sglang="handle_page_major_kv_layout")
def page_major_kv_layout(v: View) -> dict | Refuse | None:
    """Unified memory implies the page-major KV layout, which only some kernels can stride.

    When: ``enable_page_major_kv_layout`` or ``enable_unified_memory`` is true.
    Effect: unified memory sets ``enable_page_major_kv_layout`` True; refuses page-major without
        unified memory (temporarily unsupported), and backends outside: MLA, the paged MLA
        family; MHA with asymmetric K/V, triton/fa3/fa4; other MHA, triton, fa3, fa4,
        flashinfer, trtllm_mha; linear-attention and Mamba state kernels are checked too.
    Why: only those kernels take the page-major strides (``handle_page_major_kv_layout``).
    Assumes: nothing.
    """
    return _page_major(v, asymmetric_refused=False, mla=_PAGE_MAJOR_MLA,
                       linear_prefill={"triton", "flashkda", "flashinfer"})


@rule(**_PAGE_MAJOR, name="page_major_kv_layout", variant="0.5.22",
      sglang="handle_page_major_kv_layout (0.5.21, 0.5.22)")
def page_major_kv_layout_0_5_22(v: View) -> dict | Refuse | None:
    """0.5.21-0.5.22: asymmetric K/V rows refused outright, tokenspeed_mla a paged MLA kernel.

    When: as ``page_major_kv_layout``.
    Effect: as ``page_major_kv_layout``, except that a non-MLA model whose K and V rows differ
        in width (MiMo-V2: 192 / 128) is refused under unified memory whatever its backend,
        tokenspeed_mla joins the MLA backends, and flashinfer is no linear-attention prefill
        backend here.
    Why: 0.5.23 audited the asymmetric rows on the kernels that carry v_head_dim, made
        tokenspeed_mla an alias of cutedsl_mla and took FlashInfer's GDN prefill (it gathers
        contiguous state); the releases before refuse them (``handle_page_major_kv_layout``).
    Assumes: nothing.
    """
    return _page_major(v, asymmetric_refused=True, mla=_PAGE_MAJOR_MLA | {"tokenspeed_mla"},
                       linear_prefill={"triton", "flashkda"})


def _page_major(v: View, *, asymmetric_refused: bool, mla: frozenset[str],
                linear_prefill: set[str]) -> dict | Refuse | None:
    # declared whenever unified memory is on, also over an explicit True (as SGLang does)
    out = {"enable_page_major_kv_layout": True} if v.enable_unified_memory else None
    if not (v.enable_page_major_kv_layout or v.enable_unified_memory):
        return None
    if not v.enable_unified_memory:
        return Refuse("--enable-page-major-kv-layout needs --enable-unified-memory for now")
    is_mla = v.model.is_mla
    if asymmetric_refused and not is_mla and v.model.has_asymmetric_kv:
        return Refuse("--enable-unified-memory does not take a model whose K and V rows differ "
                      "in width (head_dim != v_head_dim) in this release")
    if is_mla:
        allowed = set(mla)
    elif v.model.has_asymmetric_kv:
        allowed = set(_ASYMMETRIC_KV_BACKENDS)
    else:
        allowed = set(_PAGE_MAJOR_MHA)
    backends = set(effective_backends(v)) - {None}
    if not backends <= allowed:
        return Refuse(f"the page-major KV layout supports {sorted(allowed)} here; got "
                      f"{sorted(backends)}")
    decode_ok = {"triton", "flashinfer"} | ({"cutedsl", "helion"} if is_mla else set())
    prefill_ok = linear_prefill | ({"cutedsl", "helion"} if is_mla else set())
    linear_decode = v.linear_attn_decode_backend or v.linear_attn_backend
    linear_prefill_backend = v.linear_attn_prefill_backend or v.linear_attn_backend
    if linear_decode not in decode_ok | {None}:
        return Refuse(f"the page-major layout needs a linear-attention decode backend in "
                      f"{sorted(decode_ok)}; got {linear_decode}")
    if linear_prefill_backend not in prefill_ok | {None}:
        return Refuse(f"the page-major layout needs a linear-attention prefill backend in "
                      f"{sorted(prefill_ok)}; got {linear_prefill_backend}")
    if v.mamba_backend not in (None, "triton"):
        return Refuse(f"the page-major layout needs --mamba-backend triton; got "
                      f"{v.mamba_backend}")
    return out


_SPEC_VERIFY_AUDITED = frozenset({"triton", "trtllm_mla", "cutedsl_mla", "flashmla",
                                  "flashinfer", "fa3"})
_SPEC_MHA_AUDITED = frozenset({"triton", "flashinfer", "fa3", "trtllm_mha"})


#: What the unified-pool checks read and write, in every release that has them.
_UNIFIED = dict(
    phase=Phase.SERVING,
    reads=BACKEND_FIELDS + (
        "enable_unified_memory", "speculative_algorithm", "speculative_eagle_topk",
        "speculative_draft_attention_backend", "dcp_size", "enable_two_batch_overlap",
        "enable_lmcache", "enable_unified_cache_external_linker",
        "disaggregation_decode_retraction_backup", "enable_hierarchical_cache",
        "cuda_graph_config", "disaggregation_mode", "disaggregation_transfer_backend",
        "pp_size", "enable_hisparse", "disaggregation_decode_enable_offload_kvcache",
        "hicache_storage_backend", "disaggregation_decode_enable_radix_cache"),
    writes=("cuda_graph_config",),
    facts=("model.is_mla", "model.is_hybrid_swa", "model.is_hybrid_linear"),
    triggers=("enable_unified_memory",),
)


class _Audited(Struct):
    """The attention backends one release audited for the unified pool's id translation."""

    verify: frozenset[str]  # an MLA target's speculative verify
    mha: frozenset[str]  # an MHA target's verify, a fused draft's and DFLASH's
    dspark: frozenset[str]
    dcp: frozenset[str]  # the full-attention backends under decode context parallelism


_DCP_AUDITED = frozenset({"flashinfer", "trtllm_mla", "cutedsl_mla"})
_AUDITED = _Audited(_SPEC_VERIFY_AUDITED, _SPEC_MHA_AUDITED, _SPEC_VERIFY_AUDITED | {"fa4"},
                    _DCP_AUDITED)
# 0.5.22: the MHA rails without trtllm_mha, tokenspeed_mla a verify kernel (and a DCP one: an
# alias of trtllm_mla from 0.5.23), no fa4 for DSPARK
_AUDITED_0_5_22 = _Audited(_SPEC_VERIFY_AUDITED | {"tokenspeed_mla"},
                           frozenset({"triton", "flashinfer", "fa3"}),
                           _SPEC_VERIFY_AUDITED | {"tokenspeed_mla"},
                           _DCP_AUDITED | {"tokenspeed_mla"})


@rule(**_UNIFIED, sglang="handle_unified_memory_pool")
def unified_memory_pool(v: View) -> Declare | Refuse | None:
    """The unified KV pool translates virtual to physical ids only where that was audited.

    When: ``enable_unified_memory`` is true.
    Effect: under PD disaggregation, refuses what the whole-envelope transfer cannot carry
        (``_unified_pd_refusal``); refuses speculation other than none, DSPARK, EAGLE, EAGLE3
        or DFLASH, or top-k > 1; EAGLE/EAGLE3 without a hybrid (SWA or Mamba) target or off
        audited verify and draft backends; DSPARK/DFLASH off their backends; two-batch
        overlap, LMCache, the external linker, and EAGLE with the host-pool backup or HiCache;
        then, under --dcp-size > 1, a non-MLA or hybrid-SWA model, PD disaggregation, or
        backends other than flashinfer, trtllm_mla and cutedsl_mla (``_unified_dcp_refusal``).
        A ``full`` prefill graph off fa3/fa4 is disabled, even when chosen.
    Why: the id translation was audited only on those paths, and a full prefill graph builds
        its block table only in the fa3/fa4 path (``handle_unified_memory_pool``, which
        mutates it in place with a warning).
    Assumes: SGLANG_DISABLE_LAZY_COMPACTION is unset unless the environment given sets it.
    """
    return _unified_pool(v, _AUDITED)


def _unified_pd_refusal(v: View, *, host_pool_0_5_21: bool = False) -> Refuse | None:
    """Under PD disaggregation the unified pool ships whole page envelopes: Mooncake only,
    no PP, no speculation over Mooncake, lazy compaction, no HiSparse; decode offload to file
    storage only, of a plain MHA model; the host-pool backup without a Mamba hybrid (in
    0.5.21 without a decode radix cache or a hybrid-SWA model either)."""
    if v.disaggregation_mode == "null":
        return None
    model = v.model
    transfer = v.disaggregation_transfer_backend
    for failed, what in (
        (transfer != "mooncake", f"the {transfer} transfer backend (Mooncake only)"),
        (v.pp_size != 1, "pipeline parallelism"),
        (transfer == "mooncake" and v.speculative_algorithm is not None,
         "speculative decoding over Mooncake"),
        (v.record.env_flag("SGLANG_DISABLE_LAZY_COMPACTION"),
         "SGLANG_DISABLE_LAZY_COMPACTION (it needs lazy compaction)"),
        (v.enable_hisparse, "--enable-hisparse"),
    ):
        if failed:
            return Refuse(f"--enable-unified-memory under PD disaggregation does not support "
                          f"{what}")
    offload = v.disaggregation_decode_enable_offload_kvcache
    host_pool = v.disaggregation_decode_retraction_backup == "host_pool"
    for failed, what in (
        (offload and v.hicache_storage_backend != "file",
         "decode KV offload to storage other than file"),
        (offload and model.is_mla, "decode KV offload of an MLA model"),
        (offload and model.is_hybrid_linear, "decode KV offload of a hybrid-Mamba model"),
        (offload and model.is_hybrid_swa, "decode KV offload of a hybrid-SWA model"),
        (host_pool and host_pool_0_5_21 and v.disaggregation_decode_enable_radix_cache,
         "the host-pool retraction backup with a decode radix cache"),
        (host_pool and model.is_hybrid_linear,
         "the host-pool retraction backup of a hybrid-Mamba model"),
        (host_pool and host_pool_0_5_21 and model.is_hybrid_swa,
         "the host-pool retraction backup of a hybrid-SWA model"),
    ):
        if failed:
            return Refuse(f"--enable-unified-memory under PD disaggregation does not support "
                          f"{what}")
    return None


def _unified_pool(v: View, audited: _Audited) -> Declare | Refuse | None:
    if not v.enable_unified_memory:
        return None
    refusal = _unified_pd_refusal(v)
    if refusal is not None:
        return refusal
    algorithm = v.speculative_algorithm
    if algorithm not in (None, "DSPARK", "EAGLE", "EAGLE3", "DFLASH"):
        return Refuse("--enable-unified-memory supports speculative decoding with DSPARK, "
                      f"DFLASH, EAGLE and EAGLE3 only, not {algorithm}")
    if v.speculative_eagle_topk not in (None, 1):
        return Refuse("--enable-unified-memory supports a linear draft chain only (top-k 1)")
    backends = set(effective_backends(v)) - {None}
    if algorithm in ("EAGLE", "EAGLE3"):
        if not (v.model.is_hybrid_swa or v.model.is_hybrid_linear):
            return Refuse("--enable-unified-memory with EAGLE/EAGLE3 needs a hybrid (SWA or "
                          "Mamba) target: the draft's KV lives inside the target's pool")
        allowed = audited.verify if v.model.is_mla else audited.mha
        if not backends or not backends <= allowed:
            return Refuse(f"--enable-unified-memory with {algorithm} needs target backends in "
                          f"{sorted(allowed)}; got {sorted(backends)}")
        draft = v.speculative_draft_attention_backend
        if not ({draft} if draft else backends) <= audited.mha:
            return Refuse("--enable-unified-memory with EAGLE runs the draft on an "
                          f"MHA-audited backend {sorted(audited.mha)}")
    spec_allowed = {"DSPARK": audited.dspark, "DFLASH": audited.mha}
    if algorithm in spec_allowed:
        allowed = set(spec_allowed[algorithm])
        if v.dcp_size > 1:
            allowed.discard("flashinfer")
        if not backends <= allowed:
            return Refuse(f"--enable-unified-memory with {algorithm} needs backends in "
                          f"{sorted(allowed)}; got {sorted(backends)}")
    for failed, what in (
        (v.enable_two_batch_overlap, "--enable-two-batch-overlap"),
        (v.enable_lmcache, "--enable-lmcache"),
        (v.enable_unified_cache_external_linker, "--enable-unified-cache-external-linker"),
        (algorithm in ("EAGLE", "EAGLE3")
         and v.disaggregation_decode_retraction_backup == "host_pool",
         "EAGLE with the host-pool retraction backup"),
        (algorithm in ("EAGLE", "EAGLE3") and v.enable_hierarchical_cache,
         "EAGLE with the hierarchical cache"),
    ):
        if failed:
            return Refuse(f"--enable-unified-memory does not support {what}")
    return _unified_dcp_refusal(v, backends, audited.dcp) \
        or _unified_full_prefill_fallback(v, backends)


def _unified_dcp_refusal(v: View, backends: set[str], allowed: frozenset[str]) -> Refuse | None:
    """Under decode context parallelism the unified pool widens its virtual ids per row; only
    the MLA pool, without SWA and colocated, and the backends that build their block table
    through the pool's page map were converted to that (``_validate_unified_memory_dcp``)."""
    if v.dcp_size <= 1:
        return None
    for failed, what in (
        (not v.model.is_mla, "a non-MLA model (the MHA unified pool has no DCP-aware write)"),
        (v.model.is_hybrid_swa, "a hybrid sliding-window model"),
        (v.disaggregation_mode != "null",
         "PD disaggregation (a page envelope would hold one rank's shard only)"),
        (not backends <= allowed,
         f"attention backends {sorted(backends)} (it needs {sorted(allowed)})"),
    ):
        if failed:
            return Refuse(f"--enable-unified-memory with --dcp-size {v.dcp_size} does not "
                          f"support {what}")
    return None


def _unified_full_prefill_fallback(v: View, backends: set[str]) -> Declare | None:
    """A full prefill graph builds its block table only on fa3/fa4: off elsewhere."""
    config = v.cuda_graph_config
    if config[PREFILL]["backend"] == "full" and not backends <= {"fa3", "fa4"}:
        return Declare({"cuda_graph_config": with_phase(config, PREFILL, backend="disabled")},
                       "unified memory: the full prefill CUDA graph runs only on fa3/fa4; "
                       f"disabled for {sorted(backends)}")
    return None


@rule(name="unified_memory_pool", variant="0.5.22", **_UNIFIED,
      sglang="handle_unified_memory_pool (0.5.22)")
def unified_memory_pool_0_5_22(v: View) -> Declare | Refuse | None:
    """0.5.22's unified-pool checks: narrower audited backends, no trtllm_mha decode graph.

    When: ``enable_unified_memory`` is true.
    Effect: as ``unified_memory_pool``, with 0.5.22's audited lists: an MHA target's EAGLE
        verify, a fused draft and DFLASH on triton, flashinfer or fa3 only (no trtllm_mha);
        tokenspeed_mla among the MLA verify kernels; DSPARK without fa4. Then refuses a decode
        attention backend trtllm_mha with a decode CUDA graph (pass --disable-cuda-graph or
        another decode backend).
    Why: 0.5.23 audited trtllm_mha's and fa4's id rails and made tokenspeed_mla an alias; in
        0.5.22 trtllm_mha refilled its graph's page table before a replay from the previous
        replay's sequence lengths, which the unified pool's id translation does not survive
        (0.5.22 asserts against it, 0.5.21 and 0.5.23 do not).
    Assumes: as ``unified_memory_pool``.
    """
    out = _unified_pool(v, _AUDITED_0_5_22)
    if not v.enable_unified_memory or isinstance(out, Refuse):
        return out
    config = out.fields["cuda_graph_config"] if isinstance(out, Declare) \
        else v.cuda_graph_config
    if effective_backends(v)[1] == "trtllm_mha" and config[DECODE]["backend"] != "disabled":
        return Refuse("--enable-unified-memory does not support a decode CUDA graph with the "
                      "trtllm_mha backend in 0.5.22 (its replay reads the previous batch's "
                      "sequence lengths): pass --disable-cuda-graph or another decode backend")
    return out


_DSPARK_AUDITED_0_5_21 = frozenset({"triton", "trtllm_mla", "cutedsl_mla", "tokenspeed_mla"})


@rule(name="unified_memory_pool", variant="0.5.21", **_UNIFIED,
      sglang="handle_unified_memory_pool (0.5.21)")
def unified_memory_pool_0_5_21(v: View) -> Declare | Refuse | None:
    """0.5.21: the unified pool audited for DSPARK only, and no host-pool backup for caches.

    When: ``enable_unified_memory`` is true.
    Effect: under PD disaggregation, as ``unified_memory_pool``, and the host-pool retraction
        backup refused with a decode radix cache or a hybrid-SWA model too; refuses
        speculation other than DSPARK (top-k 1, backends triton or the trtllm, CuteDSL and
        TokenSpeed MLA kernels); two-batch overlap, LMCache; a full prefill graph off fa3/fa4
        is disabled. The external cache linker passes.
    Why: 0.5.21's ``handle_unified_memory_pool``; 0.5.22 audited EAGLE, EAGLE3 and DFLASH,
        the host-pool transfers, and refused the linker.
    Assumes: as ``unified_memory_pool``.
    """
    if not v.enable_unified_memory:
        return None
    refusal = _unified_pd_refusal(v, host_pool_0_5_21=True)
    if refusal is not None:
        return refusal
    algorithm = v.speculative_algorithm
    if algorithm not in (None, "DSPARK"):
        return Refuse("--enable-unified-memory supports speculative decoding with DSPARK only "
                      f"in 0.5.21, not {algorithm}")
    backends = set(effective_backends(v)) - {None}
    if algorithm == "DSPARK":
        if v.speculative_eagle_topk not in (None, 1):
            return Refuse("--enable-unified-memory with DSPARK needs a linear draft chain "
                          "(top-k 1)")
        if not backends <= _DSPARK_AUDITED_0_5_21:
            return Refuse("--enable-unified-memory with DSPARK needs backends in "
                          f"{sorted(_DSPARK_AUDITED_0_5_21)}; got {sorted(backends)}")
    for failed, what in ((v.enable_two_batch_overlap, "--enable-two-batch-overlap"),
                         (v.enable_lmcache, "--enable-lmcache")):
        if failed:
            return Refuse(f"--enable-unified-memory does not support {what}")
    return _unified_dcp_refusal(v, backends, _AUDITED_0_5_22.dcp) \
        or _unified_full_prefill_fallback(v, backends)


# --- P34b: handle_debug_utils ------------------------------------------------------------------


@rule(
    phase=Phase.SERVING,
    reads=("soft_watchdog_timeout",),
    writes=("soft_watchdog_timeout",),
    sglang="handle_debug_utils",
)
def ci_soft_watchdog(v: View) -> dict | None:
    """In SGLang's own CI a stuck step is reported after five minutes instead of never.

    When: the environment sets ``SGLANG_IS_IN_CI`` true (SGLang's boolean spellings) and
        ``soft_watchdog_timeout`` is unset.
    Effect: declares ``soft_watchdog_timeout`` 300 (seconds).
    Why: a CI job that hangs should say where it hung rather than wait for the job's own
        timeout (``handle_debug_utils``, 0.5.21 to 0.5.23).
    Assumes: SGLANG_IS_IN_CI is unset unless the environment given sets it.
    """
    if v.soft_watchdog_timeout is None and environment.value(v.env, "SGLANG_IS_IN_CI"):
        return {"soft_watchdog_timeout": 300}
    return None


# --- P35 -------------------------------------------------------------------------------------


_OTHER = dict(
    phase=Phase.SERVING,
    reads=("default_chat_template_kwargs", "optimistic_prefill_attempts", "disaggregation_mode",
           "pp_size", "enable_hierarchical_cache", "hicache_storage_backend",
           "hicache_write_policy", "hicache_host_memory_mode",
           "disaggregation_decode_allocation_policy", "limit_mm_data_per_request",
           "preferred_sampling_params"),
    writes=("optimistic_prefill_attempts",),
    triggers=("default_chat_template_kwargs", "optimistic_prefill_attempts",
              "disaggregation_decode_allocation_policy", "limit_mm_data_per_request",
              "preferred_sampling_params"),
)
MM_MODALITIES = ("image", "video", "audio")


@rule(sglang="handle_other_validations", **_OTHER)
def other_validations(v: View) -> Declare | Refuse | None:
    """Last serving checks: chat kwargs, optimistic prefill, multimodal limits, sampling.

    When: whenever its promises hold.
    Effect: refuses ``--default-chat-template-kwargs`` that is not a JSON object; on a PD
        prefill server with optimistic prefill, declares ``optimistic_prefill_attempts`` 0
        under PP or a hierarchical cache other than L2 write-back/write-through or L3
        buffer-only write-through, and then refuses a prefill_complete decode allocation
        (it needs optimistic prefill); refuses a ``--limit-mm-data-per-request`` modality other
        than image, video or audio, and ``watermark`` in ``--preferred-sampling-params``.
    Why: optimistic prefill re-runs chunks the other layouts cannot roll back, and the
        watermark is a server setting (``handle_other_validations``).
    Assumes: preferred sampling parameters need no tokenizer (SGLang also normalizes them
        without one under --skip-tokenizer-init).
    """
    return _other_validations(v, prefill_complete=True)


@rule(name="other_validations", variant="0.5.21",
      sglang="handle_other_validations (0.5.21: no prefill_complete clause)",
      **{**_OTHER, "reads": _OTHER["reads"] + ("skip_tokenizer_init",)})
def other_validations_0_5_21(v: View) -> Declare | Refuse | None:
    """As in 0.5.22 and later, without the prefill_complete check.

    When: whenever its promises hold.
    Effect: as ``other_validations``, except that a prefill_complete allocation is not checked
        and ``watermark`` in the preferred sampling parameters is refused only with
        ``--skip-tokenizer-init``.
    Why: 0.5.21 does not validate the prefill_complete policy (``handle_other_validations``).
        Nor does it refuse ``watermark`` in ``--preferred-sampling-params``: it has no
        watermarking (only with ``--skip-tokenizer-init``, whose check builds the sampling
        parameters, is the unknown argument refused).
    Assumes: as ``other_validations``.
    """
    return _other_validations(v, prefill_complete=False)


def _other_validations(v: View, prefill_complete: bool) -> Declare | Refuse | None:
    """``prefill_complete`` False: 0.5.21, also without watermarking."""
    kwargs = v.default_chat_template_kwargs
    if kwargs is not None and not isinstance(kwargs, dict):
        return Refuse("--default-chat-template-kwargs must be a JSON object, got "
                      f"{type(kwargs).__name__}")
    out: dict[str, int] = {}
    attempts = v.optimistic_prefill_attempts
    if attempts > 0 and v.disaggregation_mode == "prefill":
        l2 = v.hicache_storage_backend is None and v.hicache_write_policy in (
            "write_back", "write_through")
        l3 = (v.hicache_storage_backend is not None and v.hicache_host_memory_mode == "buffer_only"
              and v.hicache_write_policy == "write_through")
        if v.pp_size > 1 or (v.enable_hierarchical_cache and not (l2 or l3)):
            attempts = out["optimistic_prefill_attempts"] = 0
    if (prefill_complete and v.disaggregation_decode_allocation_policy == "prefill_complete"
            and v.disaggregation_mode == "prefill" and attempts <= 0):
        return Refuse("a prefill_complete decode allocation needs optimistic prefill, which "
                      "this configuration turned off")
    limits = v.limit_mm_data_per_request
    if isinstance(limits, dict):
        odd = [m for m in limits if m not in MM_MODALITIES]
        if odd:
            return Refuse(f"--limit-mm-data-per-request: modality {odd[0]!r} is not one of "
                          f"{', '.join(MM_MODALITIES)}")
    preferred = v.preferred_sampling_params
    if preferred and isinstance(preferred, dict) and "watermark" in preferred:
        if prefill_complete:
            return Refuse("--preferred-sampling-params cannot set watermark (a server setting)")
        if v.skip_tokenizer_init:
            return Refuse("--preferred-sampling-params: watermark is not a sampling parameter "
                          "of this release")
    if out:
        return Declare(out, "optimistic prefill off: it supports neither PP nor this "
                            "hierarchical cache")
    return None


@rule(
    phase=Phase.SERVING,
    reads=("debug_tensor_dump_output_folder", "msprobe_dump_config", "cuda_graph_config"),
    writes=("cuda_graph_config", "skip_server_warmup"),
    sglang="handle_other_validations (tensor dump, msProbe)",
    triggers=("debug_tensor_dump_output_folder", "msprobe_dump_config"),
)
def debug_dump_graph_disable(v: View) -> Declare | None:
    """Tensor dumps and msProbe record eager forwards only: graphs and warm-up go off.

    When: ``debug_tensor_dump_output_folder`` or ``msprobe_dump_config`` is set.
    Effect: disables both phases of ``cuda_graph_config`` (even when chosen) and sets
        ``skip_server_warmup`` True.
    Why: a captured graph replays without running the dump hooks
        (``handle_other_validations``, tensor dump and msProbe).
    Assumes: nothing.
    """
    if v.debug_tensor_dump_output_folder is None and v.msprobe_dump_config is None:
        return None
    return Declare({"cuda_graph_config": _both_disabled(v.cuda_graph_config),
                    "skip_server_warmup": True},
                   "CUDA graphs and warm-up disabled for tensor dumps")


# --- P36: model capability gates -------------------------------------------------------------

@rule(
    phase=Phase.LATE,
    reads=("attention_backend", "cuda_graph_config"),
    writes=("attention_backend", "chunked_prefill_size", "disable_radix_cache",
            "disable_cuda_graph", "cuda_graph_config"),
    facts=("model.model_type", "model.architectures", "model.config"),
    sglang="handle_model_capability_adjustments (HRM-Text, _hrm_text_attention_force)",
    applies=lambda target, model: (model.model_type == "hrm_text"
                                   or "HrmTextForCausalLM" in model.architectures),
)
def hrm_text_capability(v: View) -> Declare | None:
    """HRM-Text attends bidirectionally over the prompt: triton, one prefill, no reuse.

    When: the model is HRM-Text and its config does not set ``prefix_lm`` false.
    Effect: declares ``attention_backend`` triton, ``chunked_prefill_size`` -1,
        ``disable_radix_cache`` and ``disable_cuda_graph`` True, both graph phases disabled.
    Why: only the Triton kernels honour its prefix-LM mask; the recurrent forward writes
        direction-dependent KV (``handle_model_capability_adjustments``, HRM-Text).
    Assumes: nothing.
    """
    if not v.model.config.get("prefix_lm", True):
        return None
    return Declare({"attention_backend": "triton", "chunked_prefill_size": -1,
                    "disable_radix_cache": True, "disable_cuda_graph": True,
                    "cuda_graph_config": _both_disabled(v.cuda_graph_config)},
                   "HRM-Text: triton attention, no chunked prefill, radix cache or CUDA graphs")


@rule(
    phase=Phase.LATE,
    reads=("is_embedding",),
    writes=("is_embedding", "disable_radix_cache", "chunked_prefill_size"),
    facts=("model.auto_embedding", "model.is_embedding_gemma", "model.arch0"),
    sglang="handle_model_capability_adjustments (embedding model spec)",
    applies=lambda target, model: model.auto_embedding and not model.is_embedding_gemma,
)
def embedding_architecture_capability(v: View) -> Declare | None:
    """Native embedding architectures serve in embedding mode without ``--is-embedding``.

    When: the model's architecture is one SGLang registers as an embedding model (BERT, CLIP,
        Contriever, the Llama/Mistral embedding models, XLM-R, EmbeddingGemma 2);
        EmbeddingGemma (Gemma 3 text) has its own rule.
    Effect: ``is_embedding`` true; for EmbeddingGemma 2 also ``disable_radix_cache`` true and
        ``chunked_prefill_size`` -1.
    Why: their pooling head is the only one they have; EmbeddingGemma 2 attends
        bidirectionally over the whole prompt, so prefix reuse and chunked prefill cannot
        apply (``handle_model_capability_adjustments``, the embedding model spec).
    Assumes: nothing.
    """
    model = v.model
    out: dict[str, Any] = {}
    if not v.is_embedding:
        out["is_embedding"] = True
    if model.arch0 == "EmbeddingGemma2Model":
        out.update(disable_radix_cache=True, chunked_prefill_size=-1)
    return Declare(out, f"{model.arch0} is an embedding architecture") if out else None


@rule(
    phase=Phase.LATE,
    reads=BACKEND_FIELDS + INPUT_FIELDS + ("kv_cache_dtype", "is_embedding",
                                           "attn_cp_size", "enable_prefill_cp",
                                           "enable_hisparse"),
    writes=("is_embedding", "disable_radix_cache", "chunked_prefill_size",
            "enable_tokenizer_batch_encode", "prefill_only_disable_kv_cache",
            "cuda_graph_config"),
    facts=("model.is_embedding_gemma", "model.context_len", "target.is_cuda", "target.is_sm90",
           "target.is_sm100"),
    sglang="handle_model_capability_adjustments (EmbeddingGemma)",
    applies=lambda target, model: model.is_embedding_gemma,
)
def embedding_gemma_capability(v: View) -> Declare | Refuse | None:
    """EmbeddingGemma encodes a prompt bidirectionally in one prefill, never decoding.

    When: whenever its promises hold (an EmbeddingGemma model).
    Effect: declares embedding mode, no radix reuse, no chunking, batched tokenisation and
        decode graphs off; on Hopper/SM10x with an fa3/fa4 (or unset) prefill backend the
        KV-less raw-K/V prefill (refused with FP4/MXFP8 KV, CP or HiSparse). A CUDA prefill
        graph becomes breakable with max_bs at least max(context length, 16384) unless locked;
        elsewhere it is disabled.
    Why: a bidirectional encoder needs the whole prompt in one pass and no KV for decoding
        (``handle_model_capability_adjustments``, EmbeddingGemma).
    Assumes: nothing.
    """
    out: dict[str, Any] = {"is_embedding": True, "disable_radix_cache": True,
                           "chunked_prefill_size": -1, "enable_tokenizer_batch_encode": True}
    target = v.target
    requested = v.prefill_attention_backend or v.attention_backend
    if target.is_cuda and (target.is_sm90 or target.is_sm100) and requested in (
            None, "fa3", "fa4"):
        out["prefill_only_disable_kv_cache"] = True
        kv = v.kv_cache_dtype
        if kv in ("nvfp4", "fp4_mx_block16", "mxfp8"):
            return Refuse(f"the KV-less embedding prefill does not support kv_cache_dtype {kv}")
        if v.attn_cp_size > 1 or v.enable_prefill_cp or v.enable_hisparse:
            return Refuse("the KV-less embedding prefill does not support context "
                          "parallelism or HiSparse")
    config = with_phase(v.cuda_graph_config, DECODE, backend="disabled")
    if target.is_cuda and config[PREFILL]["backend"] != "disabled":
        config = with_phase(config, PREFILL, backend="breakable")
        keys = locked(v)
        if (PREFILL, "max_bs") not in keys:
            max_bs = max(config[PREFILL]["max_bs"] or 0, v.model.context_len, 16384)
            sizing: dict[str, Any] = {"max_bs": max_bs}
            if (PREFILL, "bs") not in keys:
                sizing["bs"] = prefill_sizes(max_bs)
            config = with_phase(config, PREFILL, **sizing)
    elif not target.is_cuda:
        config = with_phase(config, PREFILL, backend="disabled")
    out["cuda_graph_config"] = config
    return Declare(out, "EmbeddingGemma: embedding mode, no radix cache or chunked prefill, "
                        "breakable prefill graph on CUDA")


@rule(
    phase=Phase.LATE,
    reads=("chunked_prefill_size",),
    writes=("chunked_prefill_size",),
    facts=("model.is_multimodal", "model.mm_chunked_prefill_supported", "model.arch0"),
    sglang="handle_model_capability_adjustments (multimodal chunked prefill)",
    applies=lambda target, model: (model.is_multimodal and not model.mm_chunked_prefill_supported),
)
def multimodal_chunking_capability(v: View) -> Declare | None:
    """Some multimodal models cannot split a prompt's image tokens: chunked prefill goes off.

    When: whenever its promises hold (a multimodal model without chunked-prefill support:
        Grok-1 vision/audio, LLaVA-Llama, Mllama, MossVL and CLIP).
    Effect: declares ``chunked_prefill_size`` -1.
    Why: their forward needs all of an image's tokens in one prefill
        (``handle_model_capability_adjustments``, multimodal chunked prefill).
    Assumes: nothing.
    """
    return Declare({"chunked_prefill_size": -1},
                   f"chunked prefill disabled: {v.model.arch0} does not support it")


#: the encoder replay's rows a cache hit's first chunk may run besides its own extend
REPLAY_ROWS = 128


@rule(
    phase=Phase.LATE,
    reads=("enable_encoder_swa_bounded_replay", "max_running_requests", "chunked_prefill_size",
           "page_size"),
    facts=("model.model_type",),
    sglang="handle_model_capability_adjustments (encoder SWA bounded replay, "
           "validate_deepseek_v41_encoder_replay_budget)",
    triggers=("enable_encoder_swa_bounded_replay",),
)
def encoder_replay_capability(v: View) -> Refuse | None:
    """Bounded encoder sliding-window replay is a DeepSeek-V4.1 feature with a chunk budget.

    When: ``--enable-encoder-swa-bounded-replay`` is given.
    Effect: refuses it for a model whose ``model_type`` is not deepseek_v41; on DeepSeek-V4.1,
        without a positive ``--max-running-requests`` or with a prefill chunk (per attention
        DP rank) below 128 replay rows plus one page.
    Why: only DeepSeek-V4.1's encoder keeps the sliding-window state the replay bounds; a hit's
        first chunk also runs up to 128 replay rows and floors its extend to whole pages, so a
        smaller chunk never admits the hit (``handle_model_capability_adjustments``, last
        check, ``validate_deepseek_v41_encoder_replay_budget``).
    Assumes: nothing.
    """
    if not v.enable_encoder_swa_bounded_replay:
        return None
    if v.model.model_type != "deepseek_v41":
        return Refuse("--enable-encoder-swa-bounded-replay needs DeepSeek-V4.1; this model is "
                      f"{v.model.model_type}")
    least = REPLAY_ROWS + (v.page_size or 1)
    running, chunk = v.max_running_requests, v.chunked_prefill_size
    if running is None or running <= 0 or not chunk or chunk < least:
        return Refuse("--enable-encoder-swa-bounded-replay needs a positive "
                      f"--max-running-requests (got {running}) and at least {least} chunked "
                      f"prefill tokens per attention DP rank (got {chunk}): {REPLAY_ROWS} "
                      "replay rows plus one page")
    return None


# --- P38 -------------------------------------------------------------------------------------


@rule(
    phase=Phase.LATE,
    reads=("cuda_graph_config", "page_size"),
    writes=("cuda_graph_config",),
    facts=("model.context_len",),
    sglang="finalize_cuda_graph_prefill_max_context",
)
def finalize_cuda_graph_prefill_max_context(v: View) -> Declare | Refuse | None:
    """The prefill graph's max context is rounded up to whole pages and must fit the model.

    When: the prefill phase's ``max_context_size`` is set.
    Effect: rounds it up to a multiple of ``page_size`` in ``cuda_graph_config``; refuses a
        page size that is not a positive integer (first, as SGLang asserts it), a non-positive
        value, one SGLang's arithmetic fails on (inf, nan, text), and an aligned value above
        the model's context length.
    Why: captured attention metadata addresses whole pages
        (``finalize_cuda_graph_prefill_max_context``).
    Assumes: nothing.
    """
    config = v.cuda_graph_config
    requested = config[PREFILL]["max_context_size"]
    if requested is None:
        return None
    page = v.page_size
    if not isinstance(page, int) or page <= 0:  # checked first, whatever the request
        return Refuse(f"page_size {page} cannot align the prefill graph max context: it must "
                      "be a positive number of tokens")
    try:
        if requested <= 0:
            return Refuse("--cuda-graph-prefill-max-context must be a positive integer")
        aligned = int(-(-requested // page) * page)
    except (TypeError, ValueError, ArithmeticError) as exc:  # inf, nan, page_size 0, text
        return arithmetic_refusal(f"prefill graph max context {requested!r} on page_size "
                                  f"{page}", exc)
    context = v.model.context_len
    try:  # a value past Python's 4,300-digit int-to-text limit fails to print, as in SGLang
        if context and context > 0 and aligned > context:
            return Refuse(f"--cuda-graph-prefill-max-context {aligned} (page-aligned) exceeds "
                          f"the model context length {context}")
        note = None if aligned == requested else \
            f"prefill graph max context {requested} -> {aligned} (page {page})"
    except ValueError as exc:
        return arithmetic_refusal("prefill graph max context (too many digits to print)", exc)
    return Declare({"cuda_graph_config": with_phase(config, PREFILL, max_context_size=aligned)},
                   note)


# --- after resolution: the launcher's check_server_args --------------------------------------


@rule(
    phase=Phase.LAUNCHER,
    reads=("chunked_prefill_size", "disaggregation_mode", "page_size"),
    sglang="check_server_args (chunked prefill vs page size)",
)
def launcher_chunk_page_alignment(v: View) -> Refuse | None:
    """A prefill chunk must be whole pages (not checked when chunking is off or on PD decode).

    When: ``chunked_prefill_size`` > 0 and the server is not a PD decode server.
    Effect: refuses page_size 0 (SGLang's own check divides by zero) and a chunk that is not a
        multiple of ``page_size`` (requirement chunk-multiple-of-page).
    Why: chunks are written to the KV pool page by page, and nothing re-aligns a chunk that
        attention DP divided, e.g. 16384 // 3 on page 64 (``check_server_args``).
    Assumes: nothing.
    """
    chunk = v.chunked_prefill_size
    if chunk > 0 and v.disaggregation_mode != "decode" and v.page_size == 0:
        # SGLang's own check fails here: ZeroDivisionError
        return Refuse(f"page_size 0: the chunk alignment check (chunked_prefill_size "
                      f"{chunk} % page_size) divides by zero", "page-size-positive")
    if CHUNK_PAGES.violated(OnView(v)):
        return Refuse(f"chunked_prefill_size {chunk} is not a multiple of page_size "
                      f"{v.page_size}", CHUNK_PAGES.name)
    return None


CHUNK_PAGES = by_name("chunk-multiple-of-page")


@rule(
    phase=Phase.LAUNCHER,
    reads=("speculative_algorithm", "enable_mixed_chunk"),
    sglang="check_server_args (mixed chunk with speculation)",
    triggers=("speculative_algorithm",),
)
def launcher_spec_mixed_chunk(v: View) -> Refuse | None:
    """Mixed prefill steps with speculation need a worker that can resume them.

    When: ``speculative_algorithm`` is set and ``enable_mixed_chunk`` is true.
    Effect: refuses algorithms other than EAGLE, EAGLE3, DFLASH and DSPARK.
    Why: only those workers resume a chunk mixed into a decode step (``check_server_args``).
    Assumes: nothing.
    """
    algorithm = v.speculative_algorithm
    if algorithm is not None and v.enable_mixed_chunk and algorithm not in MIXED_CHUNK_ALGORITHMS:
        return Refuse(f"--enable-mixed-chunk is not supported with {algorithm} speculative "
                      "decoding")
    return None


@rule(
    phase=Phase.LAUNCHER,
    reads=("ep_join_mode", "tp_size", "pp_size", "nnodes", "pp_max_micro_batch_size",
           "disable_cuda_graph_padding", "enable_torch_compile", "dp_size", "base_gpu_id",
           "gpu_id_step", "moe_dense_tp_size", "served_model_name"),
    sglang="check_server_args (parallel layout)",
)
def launcher_layout_checks(v: View) -> Refuse | None:
    """Launch-layout checks SGLang makes before starting workers.

    When: whenever its promises hold.
    Effect: refuses TP x PP not divisible over the nodes (nnodes 0 included; except EP
        scale-up); a PP micro-batch cap below 1; torch.compile without graph padding;
        multi-node DP replicas; a negative base GPU id or a GPU id step below 1; a dense MoE TP
        other than 1 or TP; a ':' in the served name.
    Why: one compile per batch size would follow from no padding, and ':' is LoRA's
        ``model:adapter`` syntax (``check_server_args``).
    Assumes: nothing.
    """
    if v.ep_join_mode != "scale":
        if v.nnodes == 0:  # SGLang's check itself fails: ZeroDivisionError
            return Refuse("nnodes 0: the layout check (tp_size x pp_size % nnodes) divides "
                          "by zero")
        if (v.tp_size * v.pp_size) % v.nnodes:
            return Refuse(f"tp_size x pp_size ({v.tp_size * v.pp_size}) must be divisible "
                          f"by nnodes {v.nnodes}")
    cap = v.pp_max_micro_batch_size
    if cap is not None and cap < 1:
        return Refuse(f"--pp-max-micro-batch-size must be positive, got {cap}")
    if v.disable_cuda_graph_padding and v.enable_torch_compile:
        return Refuse("--disable-cuda-graph-padding with --enable-torch-compile compiles once "
                      "per batch size; drop one of them")
    if v.dp_size > 1 and v.nnodes != 1:
        return Refuse("data-parallel replicas cannot span nodes; use --attn-dp-size")
    if v.base_gpu_id < 0:
        return Refuse("--base-gpu-id must be non-negative")
    if v.gpu_id_step < 1:
        return Refuse("--gpu-id-step must be positive")
    if v.moe_dense_tp_size not in (None, 1, v.tp_size):
        return Refuse("--moe-dense-tp-size must be 1 or tp_size")
    name = str(v.served_model_name)
    if ":" in name and not name.startswith(("s3://", "gs://", "az://")):
        return Refuse(f"served model name {name!r} contains ':', which is reserved for "
                      "model:adapter")
    return None


@rule(
    phase=Phase.LAUNCHER,
    reads=("enable_pdmux", "pp_size", "chunked_prefill_size", "disaggregation_mode",
           "disable_overlap_schedule", "enable_priority_scheduling", "schedule_policy",
           "retraction_policy", "schedule_conservativeness", "kv_canary_sweep_interval",
           "kv_canary", "tokenizer_worker_num", "detokenizer_worker_num"),
    sglang="check_server_args (scheduling)",
)
def launcher_scheduling_checks(v: View) -> Refuse | None:
    """Scheduler settings SGLang rejects at launch.

    When: whenever its promises hold.
    Effect: refuses PD multiplexing with pp > 1, chunked prefill, PD disaggregation or the
        overlap schedule; worker counts below 1; priority scheduling with a policy other than
        fcfs or lof; priority retraction without priority scheduling; negative
        conservativeness; canary sweeps without a canary.
    Why: SGLang's launcher refuses them before starting workers (``check_server_args``).
    Assumes: nothing.
    """
    if v.enable_pdmux:
        if v.pp_size != 1:
            return Refuse("PD multiplexing needs pp_size 1")
        if v.chunked_prefill_size != -1:
            return Refuse("PD multiplexing needs chunked prefill off (-1)")
        if v.disaggregation_mode != "null":
            return Refuse("PD multiplexing cannot be combined with PD disaggregation")
        if not v.disable_overlap_schedule:
            return Refuse("PD multiplexing needs --disable-overlap-schedule")
    if v.tokenizer_worker_num < 1 or v.detokenizer_worker_num < 1:
        return Refuse("tokenizer and detokenizer worker counts must be at least 1")
    if v.enable_priority_scheduling and v.schedule_policy not in ("fcfs", "lof"):
        return Refuse(f"priority scheduling needs schedule policy fcfs or lof, not "
                      f"{v.schedule_policy}")
    if v.retraction_policy == "priority" and not v.enable_priority_scheduling:
        return Refuse("--retraction-policy priority needs --enable-priority-scheduling")
    if v.schedule_conservativeness < 0:
        return Refuse("schedule_conservativeness must be non-negative")
    if v.kv_canary_sweep_interval > 0 and v.kv_canary == "none":
        return Refuse("--kv-canary-sweep-interval needs --kv-canary log or raise")
    return None
