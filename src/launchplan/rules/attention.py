"""Attention backends: the split collapse, the generic default, and the backend checks.

Three fields choose attention kernels: ``attention_backend`` (the base) and the optional
``prefill_attention_backend`` / ``decode_attention_backend``, each falling back to the base.
"""

from __future__ import annotations

from typing import Any

from launchplan.checks.requirements import OnView, by_name
from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts import environment
from launchplan.rules.graph_config import DECODE, PREFILL, with_phase
from launchplan.vocabulary import BACKEND_FIELDS

# Pure kernel constraints these rules refuse on: the requirement table's rows.
TRTLLM_MLA_BLACKWELL = by_name("trtllm-mla-blackwell")
CUTEDSL_DECODE_ONLY = by_name("cutedsl-mla-decode-only")
CUTEDSL_SM100 = by_name("cutedsl-mla-sm100")
TRTLLM_MHA_GPU = by_name("trtllm-mha-gpu")


def effective_backends(v: Any) -> tuple[str | None, str | None]:
    """(prefill, decode): each split field if set, else the base backend."""
    base = v.attention_backend
    return (v.prefill_attention_backend or base, v.decode_attention_backend or base)


def any_backend(v: Any, name: str) -> bool:
    """``name`` is the base, prefill or decode backend."""
    return name in (v.attention_backend, v.prefill_attention_backend,
                    v.decode_attention_backend)


def spec_allows_fast_default(v: Any) -> bool:
    """No EAGLE top-k, or top-k 1 with an unpaged KV cache (SGLang's Spec-OK predicate)."""
    topk = v.speculative_eagle_topk
    return topk is None or (topk == 1 and v.page_size in (None, 1))


def default_attention_backend(v: Any, dflash_fast: bool = True) -> str:
    """The backend SGLang picks when none is given, from the GPU, the model and speculation.

    MHA: Hopper → fa3; SM10x → trtllm_mha (fa4 when K and V widths differ), only without
    EAGLE top-k > 1 and with an explicit top-k when speculating; ROCm → aiter; else
    flashinfer where installed and the model has no attention sinks, else triton.
    MLA: Hopper → fa3; SM10x → flashinfer; ROCm → aiter with 16 or 128 KV heads per rank,
    else triton; else triton. ``dflash_fast`` False is 0.5.21-0.5.22: DFLASH (whose top-k is
    still unset here) does not take the SM10x path.
    """
    model, target = v.model, v.target
    if "WhisperForConditionalGeneration" in model.architectures:
        return "flashinfer"  # cross-attention graphs need it
    if not model.is_mla:
        if target.is_sm90 and spec_allows_fast_default(v):
            return "fa3"
        algorithm = v.speculative_algorithm
        if target.is_sm100 and spec_allows_fast_default(v) and (
            algorithm is None or v.speculative_eagle_topk is not None
            or (dflash_fast and str(algorithm).upper() == "DFLASH")
        ):
            return "fa4" if model.has_asymmetric_kv else "trtllm_mha"
        if target.is_hip:
            return "aiter"
        if target.has_flashinfer and target.is_cuda and not model.has_attention_sinks:
            return "flashinfer"
        return "triton"
    if target.is_sm90:
        return "fa3"
    if target.is_sm100:
        return "flashinfer"
    if target.is_hip:
        return "aiter" if model.num_kv_heads(v.tp_size) in (16, 128) else "triton"
    return "triton"


_DEFAULT_READS = BACKEND_FIELDS + ("speculative_eagle_topk", "speculative_algorithm",
                                   "page_size", "tp_size")
_DEFAULT_FACTS = ("target.is_sm90", "target.is_sm100", "target.is_hip", "target.has_flashinfer",
                  "target.is_cuda", "model.is_mla", "model.has_asymmetric_kv",
                  "model.has_attention_sinks", "model.architectures", "model.total_num_kv_heads")


@rule(
    phase=Phase.ATTENTION,
    reads=_DEFAULT_READS,
    writes=("attention_backend",),
    facts=_DEFAULT_FACTS,
    sglang="_attention_backend_default",
)
def attention_backend_default(v: View) -> Declare | None:
    """Collapse an equal prefill/decode pair into the base; else fill an unset base.

    When: prefill and decode name the same backend, or ``attention_backend`` is unset.
    Effect: an equal pair becomes ``attention_backend``, even over an explicit
        ``--attention-backend``; an unset base gets the generic default for this GPU and model
        (``default_attention_backend``; the split sides are not consulted).
    Why: SGLang 0.5.23 picks one kernel per GPU generation and attention type (fa3 on
        Hopper, trtllm_mha/flashinfer on SM10x, aiter on ROCm, flashinfer or triton
        elsewhere; ``_attention_backend_default`` in ``arg_groups/overrides.py``).
    Assumes: flashinfer is installed where the target profile says so.
    """
    prefill = v.prefill_attention_backend
    if prefill is not None and prefill == v.decode_attention_backend:
        return Declare({"attention_backend": prefill},
                       f"prefill and decode both use {prefill}, so it becomes the base backend")
    if v.attention_backend is None:
        return Declare({"attention_backend": default_attention_backend(v)})
    return None


@rule(
    name="attention_backend_default",
    variant="0.5.22",
    phase=Phase.ATTENTION,
    reads=_DEFAULT_READS,
    writes=("attention_backend",),
    facts=_DEFAULT_FACTS,
    sglang="_attention_backend_default (0.5.21-0.5.22)",
)
def attention_backend_default_0_5_22(v: View) -> Declare | None:
    """As in 0.5.23, but DFLASH on SM10x does not get trtllm_mha for a non-MLA model.

    When: as the 0.5.23 rule (an equal prefill/decode pair, or an unset base backend).
    Effect: as the 0.5.23 rule, except that DFLASH (top-k still unset) falls through to
        flashinfer (page 1) on SM10x like any speculation without an explicit top-k.
    Why: before 0.5.23 the SM10x trtllm_mha default required an explicit EAGLE top-k, which
        DFLASH has not set when the default is picked.
    Assumes: flashinfer is installed where the target profile says so.
    """
    prefill = v.prefill_attention_backend
    if prefill is not None and prefill == v.decode_attention_backend:
        return Declare({"attention_backend": prefill},
                       f"prefill and decode both use {prefill}, so it becomes the base backend")
    if v.attention_backend is None:
        return Declare({"attention_backend": default_attention_backend(v, dflash_fast=False)})
    return None


@rule(
    phase=Phase.ATTENTION,
    reads=("attention_backend", "cuda_graph_config", "speculative_algorithm"),
    writes=("cuda_graph_config",),
    sglang="handle_attention_backend_compatibility (torch_native / flex_attention)",
)
def eager_backend_graph_disable(v: View) -> Declare | Refuse | None:
    """torch_native and flex_attention cannot be captured: both graph phases off, locks ignored.

    When: the base ``attention_backend`` is torch_native or flex_attention (the split sides are
        not consulted).
    Effect: sets the decode and prefill phases of ``cuda_graph_config`` to disabled; refuses
        flex_attention with speculative decoding ("flex_attention does not support speculative
        decoding").
    Why: neither backend's kernels can be recorded in a CUDA graph, and flex attention has no
        speculative path (``handle_attention_backend_compatibility`` in SGLang's server_args.py).
    Assumes: nothing.
    """
    backend = v.attention_backend
    if backend not in ("torch_native", "flex_attention"):
        return None
    if backend == "flex_attention" and v.speculative_algorithm is not None:
        return Refuse("flex_attention does not support speculative decoding")
    config = with_phase(v.cuda_graph_config, DECODE, backend="disabled")
    config = with_phase(config, PREFILL, backend="disabled")
    return Declare({"cuda_graph_config": config},
                   f"CUDA graphs disabled: the {backend} attention backend cannot be captured")


@rule(
    phase=Phase.ATTENTION,
    reads=("disable_radix_cache",),
    writes=("disable_radix_cache",),
    facts=("model.architectures",),
    sglang="handle_attention_backend_compatibility (Whisper)",
    applies=lambda target, model: "WhisperForConditionalGeneration" in model.architectures,
)
def whisper_radix_disable(v: View) -> dict | None:
    """Whisper pads encoder tokens, which breaks prefix caching: the radix cache goes off.

    When: the model is WhisperForConditionalGeneration and the radix cache is still on.
    Effect: declares ``disable_radix_cache`` True.
    Why: the padded encoder tokens make equal prompts differ, so prefix reuse is unsound
        (``handle_attention_backend_compatibility``, Whisper branch).
    Assumes: nothing.
    """
    return None if v.disable_radix_cache else {"disable_radix_cache": True}


_MLA_CHECKS = dict(phase=Phase.ATTENTION, reads=BACKEND_FIELDS + ("kv_cache_dtype",),
                   facts=("target.is_blackwell", "target.name", "target.sm"))


@rule(sglang="_mla_kv_cache_dtype_checks", **_MLA_CHECKS)
def trtllm_mla_checks(v: View) -> Refuse | None:
    """TRT-LLM MLA (base or decode) needs a Blackwell GPU and an fp8_e4m3, bf16 or auto KV cache.

    When: ``attention_backend`` or ``decode_attention_backend`` is trtllm_mla.
    Effect: refuses a non-Blackwell GPU (requirement trtllm-mla-blackwell) and a
        ``kv_cache_dtype`` other than fp8_e4m3, bf16 or auto.
    Why: the kernels are trtllm-gen builds for SM10x/SM12x; the literal ``bfloat16`` is not in
        the accepted list, only ``bf16`` (``_mla_kv_cache_dtype_checks``).
    Assumes: nothing.
    """
    if "trtllm_mla" not in (v.attention_backend, v.decode_attention_backend):
        return None
    if TRTLLM_MLA_BLACKWELL.violated(OnView(v)):
        return Refuse("trtllm_mla needs a Blackwell GPU (SM100 or SM12x); "
                      f"{v.target.name} is SM{v.target.sm}", TRTLLM_MLA_BLACKWELL.name)
    if v.kv_cache_dtype not in ("fp8_e4m3", "bf16", "auto"):
        return Refuse("trtllm_mla supports kv_cache_dtype fp8_e4m3, bf16 or auto; "
                      f"got {v.kv_cache_dtype}")
    return None


@rule(name="trtllm_mla_checks", variant="0.5.22",
      sglang="_mla_kv_cache_dtype_checks (0.5.21-0.5.22)", **_MLA_CHECKS)
def trtllm_mla_checks_0_5_22(v: View) -> Refuse | None:
    """As in 0.5.23, then tokenspeed_mla (base or decode): Blackwell only, fp8_e4m3 KV only.

    When: as the 0.5.23 rule, or the base or decode backend is tokenspeed_mla.
    Effect: the 0.5.23 refusals, then refuses tokenspeed_mla on a non-Blackwell GPU or with a
        ``kv_cache_dtype`` other than fp8_e4m3 (an unset dtype included).
    Why: before 0.5.23 tokenspeed_mla was its own backend, built for Blackwell with an FP8
        (e4m3) cache, and nothing set that dtype for it.
    Assumes: nothing.
    """
    refused = trtllm_mla_checks(v)
    if refused is not None or "tokenspeed_mla" not in (v.attention_backend,
                                                       v.decode_attention_backend):
        return refused
    if not v.target.is_blackwell:
        return Refuse("tokenspeed_mla needs a Blackwell GPU (SM100 or SM12x); "
                      f"{v.target.name} is SM{v.target.sm}", TRTLLM_MLA_BLACKWELL.name)
    if v.kv_cache_dtype != "fp8_e4m3":
        return Refuse(f"tokenspeed_mla needs kv_cache_dtype fp8_e4m3; got {v.kv_cache_dtype}")
    return None


@rule(
    phase=Phase.ATTENTION,
    reads=BACKEND_FIELDS + ("kv_cache_dtype",),
    writes=("prefill_attention_backend",),
    facts=("target.is_sm100", "target.name", "target.sm"),
    sglang="_cutedsl_prefill_backend_fill",
)
def cutedsl_mla_prefill_fill(v: View) -> Declare | Refuse | None:
    """CuteDSL MLA is decode-only and SM10x-only: prefill defaults to trtllm_mla.

    When: the base, prefill or decode backend is cutedsl_mla.
    Effect: refuses a cutedsl_mla prefill backend, a non-SM10x GPU, and KV dtypes other than
        fp8_e4m3, bf16, bfloat16 or auto; else an unset ``prefill_attention_backend`` becomes
        trtllm_mla.
    Why: the CuteDSL MLA kernel implements decode only and is built for SM10x
        (``_cutedsl_prefill_backend_fill``).
    Assumes: nothing.
    """
    if not any_backend(v, "cutedsl_mla"):
        return None
    values = OnView(v)
    if CUTEDSL_DECODE_ONLY.violated(values):
        return Refuse("cutedsl_mla is a decode-only backend; choose another prefill backend",
                      CUTEDSL_DECODE_ONLY.name)
    if CUTEDSL_SM100.violated(values):
        return Refuse(f"cutedsl_mla needs an SM10x GPU; {v.target.name} is SM{v.target.sm}",
                      CUTEDSL_SM100.name)
    if v.kv_cache_dtype not in ("fp8_e4m3", "bf16", "bfloat16", "auto"):
        return Refuse("cutedsl_mla supports kv_cache_dtype fp8_e4m3, bf16, bfloat16 or auto; "
                      f"got {v.kv_cache_dtype}")
    if v.prefill_attention_backend is None:
        return Declare({"prefill_attention_backend": "trtllm_mla"},
                       "cutedsl_mla decodes only; prefill runs on trtllm_mla")
    return None


@rule(
    phase=Phase.ATTENTION,
    reads=BACKEND_FIELDS + ("kv_cache_dtype", "attn_cp_size"),
    facts=("target.is_sm90", "target.is_sm100", "target.is_sm120", "target.name", "target.sm"),
    sglang="handle_attention_backend_compatibility (trtllm_mha platform checks)",
)
def trtllm_mha_platform_checks(v: View) -> Refuse | None:
    """TRT-LLM MHA runs on SM90, SM10x and SM12x only; SM12x prefill lacks fp8_e4m3 KV.

    When: the effective prefill or decode backend is trtllm_mha.
    Effect: refuses another GPU (requirement trtllm-mha-gpu), SM12x prefill with an fp8_e4m3
        KV cache or skip-softmax, and prefill context parallelism (``attn_cp_size`` > 1) off
        SM10x.
    Why: the trtllm-gen kernels exist only for those generations, and the context-parallel
        prefill kernel only for SM10x (``handle_attention_backend_compatibility``).
    Assumes: SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR is read from the given
        environment (unset means 0, skip-softmax off).
    """
    prefill, decode = effective_backends(v)
    if prefill != "trtllm_mha" and decode != "trtllm_mha":
        return None  # (the common case: neither side, nothing below applies)
    t = v.target
    supported = not TRTLLM_MHA_GPU.violated(OnView(v))
    if prefill == "trtllm_mha":
        if not supported:
            return Refuse("trtllm_mha as the prefill backend needs an SM90, SM10x or SM12x "
                          f"GPU; {t.name} is SM{t.sm}", TRTLLM_MHA_GPU.name)
        skip_softmax = _float_env(v, "SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR")
        if t.is_sm120 and (v.kv_cache_dtype == "fp8_e4m3" or skip_softmax > 0):
            return Refuse("trtllm_mha prefill on SM12x supports neither an fp8_e4m3 KV "
                          "cache nor skip-softmax")
    if decode == "trtllm_mha" and not supported:
        return Refuse("trtllm_mha as the decode backend needs an SM90, SM10x or SM12x GPU; "
                      f"{t.name} is SM{t.sm}", TRTLLM_MHA_GPU.name)
    if prefill == "trtllm_mha" and not t.is_sm100 and v.attn_cp_size > 1:
        return Refuse("prefill context parallelism with trtllm_mha prefill needs an SM10x GPU")
    return None


def _float_env(v: Any, name: str) -> float:
    """A float variable, 0 when unset or unreadable (SGLang reads it ``or 0.0``)."""
    return environment.value(v.env, name) or 0.0


@rule(
    phase=Phase.ATTENTION,
    reads=("attention_backend", "kv_cache_dtype"),
    writes=("attention_backend",),
    sglang="_attention_backend_fa3_fp8_fallback",
)
def fa3_fp8_e5m2_fallback(v: View) -> Declare | None:
    """FA3's FP8 path is e4m3 only: a base fa3 with an fp8_e5m2 KV cache falls back to triton.

    When: ``attention_backend`` is fa3 and ``kv_cache_dtype`` is fp8_e5m2.
    Effect: declares ``attention_backend`` triton.
    Why: FlashAttention 3 reads FP8 caches only as e4m3; only the base field is checked, so
        split sides keep fa3 (rules.md C17; ``_attention_backend_fa3_fp8_fallback``).
    Assumes: nothing.
    """
    if v.attention_backend == "fa3" and v.kv_cache_dtype == "fp8_e5m2":
        return Declare({"attention_backend": "triton"},
                       "fa3 supports only fp8_e4m3 among FP8 KV caches; using triton")
    return None


@rule(
    phase=Phase.ATTENTION,
    reads=("attention_backend", "mem_fraction_static"),
    writes=("mem_fraction_static",),
    facts=("model.context_len",),
    sglang="handle_attention_backend_compatibility (aiter memory scaling)",
)
def aiter_memory_scaling(v: View) -> Declare | None:
    """aiter on contexts over 8192 tokens needs workspace outside the static pool: x 0.85.

    When: ``attention_backend`` is aiter and the model's context length exceeds 8192.
    Effect: multiplies ``mem_fraction_static`` by 0.85, even an explicit one, unless the
        environment sets SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION (then only a note).
    Why: aiter's long-context kernels allocate a workspace outside the KV pool
        (``handle_attention_backend_compatibility``, aiter memory scaling).
    Assumes: SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION is unset unless the environment given
        says otherwise.
    """
    if v.attention_backend != "aiter" or v.model.context_len <= 8192:
        return None
    if v.explicit("mem_fraction_static") and v.record.env_flag(
            "SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION"):
        return Declare({}, "aiter with a long context usually scales mem_fraction_static by "
                       "0.85; the explicit value is kept as the environment asks")
    return Declare({"mem_fraction_static": v.mem_fraction_static * 0.85},
                   f"aiter with context {v.model.context_len} > 8192 reserves workspace: "
                   "mem_fraction_static x 0.85")
