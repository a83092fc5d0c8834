"""DeepSeek-V4 (and V4.1): the compressed-attention backend, its page size and MoE runner."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Declare, Refuse, arithmetic_refusal
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts.quantization import hybrid_nvfp4_experts
from launchplan.rules.attention import effective_backends
from launchplan.rules.graph_config import PREFILL, with_phase
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    BATCH,
    attn_dp_enabled,
    dp_attention_switch_0_5_21,
    env_true,
    quantization_config,
    routed_experts_fp4,
)
from launchplan.rules.model_overrides.deepseek_v2 import context_parallel_attn_dp, cp_group_width

ARCHS = frozenset({"DeepseekV4ForCausalLM"})

# V4's compressed KV is laid out in pages of 256 tokens (128 on Ascend NPUs).
DSV4_PAGE_SIZE = 256


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("device", "fp8_gemm_runner_backend", "swa_full_tokens_ratio", "moe_runner_backend",
           "moe_a2a_backend"),
    writes=("attention_backend", "prefill_attention_backend", "decode_attention_backend",
            "page_size", "swa_full_tokens_ratio", "fp8_gemm_runner_backend",
            "moe_runner_backend"),
    facts=("model.arch0", "model.model_type", "model.config", "target.is_sm90",
           "target.is_sm100", "target.is_sm120", "target.is_hip", "target.has_flashinfer",
           "model.quantization_config"),
    sglang="_deepseek_v4_overrides (model_overrides/deepseek_v4.py)",
)
def deepseek_v4_overrides(v: View) -> dict | None:
    """DeepSeek-V4 always runs ``dsv4`` attention with page size 256, over any input.

    When: whenever its promises hold; the GEMM and MoE runner parts have their own conditions.
    Effect: ``attention_backend`` = ``dsv4`` and ``page_size`` = 256 always; unless V4.1 or
        already set, ``swa_full_tokens_ratio`` = 0.1; a V4.1 MXFP8 checkpoint (32x32 ue8m0
        blocks) on SM10x with FlashInfer gets ``fp8_gemm_runner_backend`` = ``flashinfer_cutedsl``;
        an automatic MoE runner becomes ``flashinfer_trtllm_routed`` for NVFP4 experts, or
        ``flashinfer_mxfp4`` for MXFP4 experts on SM90/SM10x/SM12x CUDA without A2A.
    Why: its compressed sparse attention exists only in the dsv4 backend
        (``_deepseek_v4_overrides``, arg_groups/model_overrides/deepseek_v4.py).
    Assumes: the target is not an Ascend NPU (whose V4 pages are 128 tokens);
        ``SGLANG_DSV4_FP4_DEQUANT`` is off unless the given environment sets it.
    """
    t = v.target
    is_v41 = v.model.model_type == "deepseek_v41"
    out: dict[str, Any] = {"attention_backend": "dsv4"}
    qc = quantization_config(v)
    if (is_v41 and v.device == "cuda" and not t.is_hip and t.is_sm100
            and v.fp8_gemm_runner_backend == "auto" and qc.get("quant_method") == "fp8"
            and list(qc.get("weight_block_size") or ()) == [32, 32]
            and qc.get("scale_fmt") == "ue8m0" and t.has_flashinfer and t.is_cuda):
        out["fp8_gemm_runner_backend"] = "flashinfer_cutedsl"
    if v.swa_full_tokens_ratio is None and not is_v41:
        out["swa_full_tokens_ratio"] = 0.1
    # No launchplan target is an Ascend NPU, whose V4 pages are 128 tokens.
    out["page_size"] = DSV4_PAGE_SIZE
    if v.moe_runner_backend == "auto":
        if hybrid_nvfp4_experts(v.model):
            out["moe_runner_backend"] = "flashinfer_trtllm_routed"
        elif (v.device == "cuda" and not t.is_hip and v.moe_a2a_backend == "none"
              and not env_true(v, "SGLANG_DSV4_FP4_DEQUANT") and routed_experts_fp4(v)
              and (t.is_sm90 or t.is_sm100 or t.is_sm120)):
            out["moe_runner_backend"] = "flashinfer_mxfp4"
    return out


# --- outside the override batch: the family's pass in handle_model_specific_adjustments ---

DSV4_KV_DTYPES = ("fp8_e4m3", "bfloat16")


def _dsv4_attention_tp(v: Any) -> bool:
    if v.enable_prefill_cp:
        return False
    return v.tp_size // v.attn_dp_size // v.attn_cp_size > 1


def _dsv4_default_backend(v: Any, kv_cache_dtype: str) -> str:
    """flashmla_mega for V4.1 on SM10x CUDA with an fp8 KV cache, else flashmla.

    MegaAttention pads each rank to 64 heads, so attention TP without PD keeps flashmla;
    ``SGLANG_DSV4_KV_LAYOUT`` other than auto/v41/v41_new does too.
    """
    layout = str(v.env.get("SGLANG_DSV4_KV_LAYOUT", "auto")).lower()
    if (v.model.model_type != "deepseek_v41" or v.device != "cuda" or not v.target.is_sm100
            or kv_cache_dtype != "fp8_e4m3"
            or (v.disaggregation_mode == "null" and _dsv4_attention_tp(v))
            or layout not in ("auto", "v41", "v41_new")):
        return "flashmla"
    return "flashmla_mega"


def _dsv4_trtllm_problem(v: Any, kv_cache_dtype: str) -> str | None:
    if v.device != "cuda" or not v.target.is_sm100:
        return "--dsv4-attn-backend trtllm needs an SM10x (Blackwell) GPU"
    if kv_cache_dtype not in ("auto", "fp8_e4m3"):
        return f"--dsv4-attn-backend trtllm needs an fp8_e4m3 KV cache, not {kv_cache_dtype}"
    if v.enable_hisparse:
        return "--dsv4-attn-backend trtllm does not support HiSparse"
    if v.attn_cp_size > 1 or v.dcp_size > 1 or v.enable_prefill_cp:
        return "--dsv4-attn-backend trtllm does not support context parallelism"
    if v.disaggregation_mode != "null":
        return "--dsv4-attn-backend trtllm does not support PD disaggregation yet"
    if v.chunked_prefill_size is None or v.chunked_prefill_size <= 0:
        return "--dsv4-attn-backend trtllm needs chunked prefill (--chunked-prefill-size > 0)"
    return None


_V4_DEFAULTS = dict(
    phase=Phase.MODEL,
    reads=("kv_cache_dtype", "dsv4_attn_backend", "device", "disaggregation_mode",
           "enable_prefill_cp", "tp_size", "attn_dp_size", "attn_cp_size", "enable_hisparse",
           "dcp_size", "chunked_prefill_size", "max_running_requests",
           "speculative_algorithm", "speculative_eagle_topk"),
    writes=("kv_cache_dtype", "dsv4_attn_backend", "max_running_requests"),
    facts=("model.arch0", "model.model_type", "target.is_sm100"),
    archs=ARCHS,
)


@rule(**_V4_DEFAULTS,
      sglang="apply_deepseek_v4_defaults (deepseek_v4_hook.py, with _deepseek_v4_kv_cache_dtype)")
def deepseek_v4_defaults(v: View) -> Declare | Refuse | None:
    """DeepSeek-V4: an fp8_e4m3 KV cache, its attention kernel, 256 running requests.

    When: whenever its promises hold.
    Effect: an ``auto`` ``kv_cache_dtype`` becomes fp8_e4m3 (other than bfloat16 refused); an
        ``auto`` ``dsv4_attn_backend`` becomes flashmla_mega (V4.1 on SM10x CUDA with fp8 KV,
        not under attention TP without PD) or flashmla; flashmla_mega off V4.1/SM10x and trtllm
        outside its limits (SM10x, fp8, no HiSparse, CP or PD, chunked prefill) are refused;
        unset ``max_running_requests`` = 256; speculation other than EAGLE (top-k 1) or DSPARK
        is refused.
    Why: the compressed pool has no other KV layout; MegaAttention pads each rank to 64 heads;
        256 is set before speculation would pick 48 (``apply_deepseek_v4_defaults``,
        deepseek_v4_hook.py).
    Assumes: ``SGLANG_DSV4_KV_LAYOUT`` is ``auto`` unless the given environment sets it.
    """
    out: dict[str, Any] = {}
    kv = _kv_dtype(v, out)
    if kv is None:
        return Refuse("DeepSeek-V4 supports kv_cache_dtype fp8_e4m3 or bfloat16, not "
                      f"{v.kv_cache_dtype}")
    backend = v.dsv4_attn_backend
    if backend == "auto":
        try:  # its attention-TP test divides by both widths, before any check of them
            backend = out["dsv4_attn_backend"] = _dsv4_default_backend(v, kv)
        except ZeroDivisionError as exc:
            return arithmetic_refusal(f"DeepSeek-V4's attention-TP width (tp_size {v.tp_size}, "
                                      f"attn_dp_size {v.attn_dp_size}, attn_cp_size "
                                      f"{v.attn_cp_size})", exc)
    if backend == "flashmla_mega" and not (v.model.model_type == "deepseek_v41"
                                           and v.device == "cuda" and v.target.is_sm100):
        return Refuse("--dsv4-attn-backend flashmla_mega needs DeepSeek-V4.1 on SM10x")
    if backend == "trtllm":
        problem = _dsv4_trtllm_problem(v, kv)
        if problem:
            return Refuse(problem)
    return _running_and_speculation(v, out)


def _kv_dtype(v: Any, out: dict[str, Any]) -> str | None:
    """The V4 KV dtype: ``auto`` becomes fp8_e4m3 (declared in ``out``); None for one the
    compressed pool cannot hold (both releases' defaults refuse it)."""
    kv = v.kv_cache_dtype
    if kv == "auto":
        kv = out["kv_cache_dtype"] = "fp8_e4m3"
    return kv if kv in DSV4_KV_DTYPES else None


def _running_and_speculation(v: Any, out: dict[str, Any]) -> Declare | Refuse | None:
    """The end both releases' V4 defaults share: 256 running requests when unset, and
    speculation limited to EAGLE (top-k 1) or DSPARK."""
    if v.max_running_requests is None:
        out["max_running_requests"] = 256
    algorithm = v.speculative_algorithm
    if algorithm is not None:
        if algorithm not in ("EAGLE", "DSPARK"):
            return Refuse("DeepSeek-V4 speculates with EAGLE or DSPARK only")
        if algorithm == "EAGLE" and v.speculative_eagle_topk != 1:
            return Refuse("DeepSeek-V4 EAGLE needs --speculative-eagle-topk 1")
    note = "max_running_requests 256 for DeepSeek-V4" if "max_running_requests" in out else None
    return Declare(out, note) if out else None


def _v41_problem(v: Any) -> str | None:
    t = v.target
    prefill_graph = v.cuda_graph_config[PREFILL]["backend"]
    odd_prefill_graph = prefill_graph not in ("disabled", "breakable")
    if v.dsv4_attn_backend == "trtllm" and odd_prefill_graph:
        return "DeepSeek-V4.1 TRT-LLM needs a disabled or breakable prefill CUDA graph"
    if v.enable_encoder_swa_bounded_replay:
        for feature, bad in (
                ("hardware other than CUDA or gfx950", not (t.is_cuda or t.is_gfx95)),
                ("prefill CUDA graphs other than breakable", odd_prefill_graph),
                ("the prefill CUDA graph on ROCm", prefill_graph != "disabled" and t.is_hip),
                ("context parallelism", v.attn_cp_size > 1),
                ("attention DP on ROCm", t.is_hip and attn_dp_enabled(v)),
                ("unified memory", v.enable_unified_memory),
                ("PD decode", v.disaggregation_mode == "decode"),
                ("PD prefill on ROCm", v.disaggregation_mode == "prefill" and t.is_hip),
                ("mixed prefill/decode", v.enable_mixed_chunk),
                ("LoRA", v.enable_lora),
                ("radix sessions", v.enable_session_radix_cache)):
            if bad:
                return f"--enable-encoder-swa-bounded-replay does not support {feature} yet"
    unified_kv = t.is_hip and v.env.get("SGLANG_HACK_FLASHMLA_BACKEND") == "unified_kv_triton"
    algorithm = v.speculative_algorithm
    for feature, bad in (
            ("speculative decoding other than DSpark",
             algorithm is not None and str(algorithm).upper() != "DSPARK"),
            ("HiSparse", v.enable_hisparse),
            ("the unified KV layout", unified_kv),
            ("TRT-LLM with encoder SWA bounded replay",
             v.dsv4_attn_backend == "trtllm" and v.enable_encoder_swa_bounded_replay),
            ("two-batch overlap", v.enable_two_batch_overlap),
            ("pipeline parallelism", v.pp_size > 1)):
        if bad:
            return f"DeepSeek-V4.1 does not support {feature} yet"
    if v.disaggregation_mode != "null" and algorithm is not None:
        prefill_cp_ok = (v.disaggregation_mode == "prefill" and v.enable_prefill_cp
                         and v.cp_strategy == "interleave")
        if (str(v.env.get("SGLANG_RAGGED_VERIFY_MODE", "static")) != "static"
                or v.disaggregation_transfer_backend not in ("mooncake", "nixl")
                or ((v.enable_prefill_cp or v.attn_cp_size != 1) and not prefill_cp_ok)
                or v.dcp_size != 1):
            return ("DeepSeek-V4.1 DSpark with PD needs static verify, Mooncake or NIXL, no "
                    "decode CP, and prefill CP only as --enable-prefill-cp interleave")
    return None


def _v41_replay_blockers(v: Any) -> list[str]:
    t = v.target
    blockers = []
    if v.cuda_graph_config[PREFILL]["backend"] not in ("disabled", "breakable"):
        blockers.append("the prefill CUDA graph")
    if attn_dp_enabled(v) and not (
            v.attn_dp_size == v.tp_size and v.attn_cp_size == 1
            and ((t.is_hip and v.moe_a2a_backend == "none")
                 or (t.is_cuda and v.moe_a2a_backend in ("none", "megamoe")))):
        blockers.append("DP attention other than attention TP 1 with supported MoE backends")
    return blockers


_V41_FEATURES = dict(
    phase=Phase.MODEL,
    reads=("dsv4_attn_backend", "cuda_graph_config", "enable_encoder_swa_bounded_replay",
           "attn_cp_size", "attn_dp_size", "ep_join_mode", "enable_unified_memory",
           "disaggregation_mode", "enable_mixed_chunk", "enable_lora",
           "enable_session_radix_cache", "speculative_algorithm", "enable_hisparse",
           "enable_two_batch_overlap", "pp_size", "enable_prefill_cp", "cp_strategy",
           "disaggregation_transfer_backend", "dcp_size", "tp_size", "moe_a2a_backend",
           "enable_decoder_swa_bounded_replay", "enable_return_hidden_states"),
    facts=("model.arch0", "model.model_type", "target.is_cuda", "target.is_hip",
           "target.is_gfx95"),
    archs=ARCHS,
)


@rule(**_V41_FEATURES, writes=("enable_decoder_swa_bounded_replay",),
      sglang="validate_deepseek_v41_features (deepseek_v4_hook.py)")
def deepseek_v41_features(v: View) -> dict | Refuse | None:
    """DeepSeek-V4.1's unsupported features, and whether decoder SWA replay is on.

    When: whenever its promises hold; for V4 (not V4.1) only encoder SWA replay is checked.
    Effect: refuses encoder SWA bounded replay off V4.1 and outside its limits; on V4.1 refuses
        non-DSpark speculation, HiSparse, the unified KV layout, two-batch overlap, pipeline
        parallelism, full prefill graphs under TRT-LLM or replay, and DSpark with PD outside
        static verify/Mooncake or NIXL/interleave prefill CP; unless set,
        ``enable_decoder_swa_bounded_replay`` = on for CUDA/ROCm without CP, hidden-state return
        or the features it cannot combine with (which refuse it when asked).
    Why: ``validate_deepseek_v41_features`` (deepseek_v4_hook.py) limits V4.1 to the paths its
        kernels implement.
    Assumes: ``SGLANG_HACK_FLASHMLA_BACKEND`` and ``SGLANG_RAGGED_VERIFY_MODE`` keep their
        defaults unless the given environment sets them.
    """
    if v.model.model_type != "deepseek_v41":
        if v.enable_encoder_swa_bounded_replay:
            return Refuse("--enable-encoder-swa-bounded-replay needs DeepSeek-V4.1")
        return None
    problem = _v41_problem(v)
    if problem:
        return Refuse(problem)
    blockers = _v41_replay_blockers(v)
    if v.enable_decoder_swa_bounded_replay:
        if blockers:
            return Refuse("--enable-decoder-swa-bounded-replay cannot be combined with "
                          f"{blockers[0]} yet")
        return None
    if v.enable_decoder_swa_bounded_replay is False:
        return None
    t = v.target
    enabled = ((t.is_cuda or t.is_hip)
               and (v.disaggregation_mode == "null" or t.is_cuda)
               and not (v.enable_prefill_cp or v.attn_cp_size != 1 or v.dcp_size != 1)
               and not v.enable_return_hidden_states
               and not blockers)
    return {"enable_decoder_swa_bounded_replay": enabled}


_V4_CP = dict(
    phase=Phase.MODEL,
    reads=BACKEND_FIELDS + ("enable_prefill_cp", "cp_strategy", "nnodes",
                            "enable_decoder_swa_bounded_replay", "enable_two_batch_overlap",
                            "attn_dp_size", "dp_size", "tp_size", "moe_a2a_backend"),
    writes=("attn_dp_size", "dp_size", "moe_dense_tp_size", "attn_cp_size"),
    facts=("model.arch0", "model.model_type", "target.is_hip"),
    archs=ARCHS,
    triggers=("enable_prefill_cp",),
)


@rule(**_V4_CP, sglang="validate_deepseek_v4_cp (deepseek_v4_hook.py)")
def deepseek_v4_context_parallel(v: View) -> dict | Refuse | None:
    """DeepSeek-V4 prefill CP: interleave only (zigzag is NPU-only), one TP group of CP.

    When: ``--enable-prefill-cp`` is on.
    Effect: ``attn_dp_size`` = 1, ``dp_size`` = 1, ``moe_dense_tp_size`` = 1 and ``attn_cp_size``
        = TP size; refuses zigzag or another strategy, attention DP, more than 8 GPUs and A2A
        backends other than none/deepep/megamoe/mori; on ROCm refuses non-dsv4 backends,
        multi-node, V4.1, decoder SWA replay and two-batch overlap.
    Why: ``validate_deepseek_v4_cp`` (deepseek_v4_hook.py): CP spans one machine's TP group.
    Assumes: the target is not an Ascend NPU.
    """
    return _v4_cp(v, rocm_checks=True)


def _v4_cp(v: Any, *, rocm_checks: bool) -> dict | Refuse | None:
    if not v.enable_prefill_cp:
        return None
    if v.cp_strategy not in ("interleave", "zigzag"):
        return Refuse(f"DeepSeek-V4 prefill CP supports the interleave strategy, not "
                      f"{v.cp_strategy!r}")
    if v.cp_strategy == "zigzag":  # no launchplan target is an Ascend NPU
        return Refuse("DeepSeek-V4 zigzag CP runs on Ascend NPUs only; use interleave")
    if rocm_checks and v.target.is_hip:
        backends = effective_backends(v)
        if backends != ("dsv4", "dsv4"):
            return Refuse("DeepSeek-V4 prefill CP on ROCm needs the dsv4 attention backend "
                          f"for prefill and decode, not {backends[0]}/{backends[1]}")
        for feature, bad in (("multiple nodes", v.nnodes > 1),
                             ("DeepSeek-V4.1", v.model.model_type == "deepseek_v41"),
                             ("decoder SWA bounded replay", v.enable_decoder_swa_bounded_replay),
                             ("--enable-two-batch-overlap", v.enable_two_batch_overlap)):
            if bad:
                return Refuse(f"DeepSeek-V4 prefill CP on ROCm does not support {feature} yet")
    attn_dp = context_parallel_attn_dp(v)
    if isinstance(attn_dp, Refuse):
        return attn_dp
    width = cp_group_width(v, attn_dp)  # declared before the DP check, so 0 fails first
    if isinstance(width, Refuse):
        return width
    if attn_dp != 1:
        return Refuse("DeepSeek-V4 prefill CP does not support attention data parallelism")
    if v.tp_size > 8:
        return Refuse("context parallelism runs on one machine only (--tp-size 8 or less)")
    if v.moe_a2a_backend not in ("none", "deepep", "megamoe", "mori"):
        return Refuse("DeepSeek-V4 prefill CP supports the none, deepep, megamoe and mori A2A "
                      f"backends, not {v.moe_a2a_backend}")
    return {"attn_dp_size": attn_dp, "dp_size": 1, "moe_dense_tp_size": 1,
            "attn_cp_size": width}


# --- SGLang 0.5.21 and 0.5.22 --------------------------------------------------------------


@rule(name="deepseek_v4_defaults", variant="0.5.22", **_V4_DEFAULTS,
      sglang="apply_deepseek_v4_defaults (0.5.21-0.5.22)")
def deepseek_v4_defaults_0_5_22(v: View) -> Declare | Refuse | None:
    """0.5.21-0.5.22: as ``deepseek_v4_defaults``, but the attention kernel stays ``auto``.

    When: whenever its promises hold.
    Effect: as ``deepseek_v4_defaults``, except that ``dsv4_attn_backend`` keeps the value given
        (``auto`` is left for the model to pick at load time; there is no flashmla_mega).
    Why: picking flashmla or flashmla_mega during resolution came in 0.5.23 with MegaAttention
        (``apply_deepseek_v4_defaults`` in 0.5.22 checks trtllm only).
    Assumes: nothing beyond ``deepseek_v4_defaults``.
    """
    out: dict[str, Any] = {}
    kv = _kv_dtype(v, out)
    if kv is None:
        return Refuse("DeepSeek-V4 supports kv_cache_dtype fp8_e4m3 or bfloat16, not "
                      f"{v.kv_cache_dtype}")
    if v.dsv4_attn_backend == "trtllm":
        problem = _dsv4_trtllm_problem(v, kv)
        if problem:
            return Refuse(problem)
    return _running_and_speculation(v, out)


# V4.1's captured prefill graph covers contexts up to this many tokens (0.5.21-0.5.22).
V41_PREFILL_GRAPH_MAX_SEQ_LEN = 16 * 1024

_V41_OLD = {**_V41_FEATURES, "writes": ("cuda_graph_config",),
            "reads": _V41_FEATURES["reads"] + ("enable_unified_cache_external_linker",
                                               "max_running_requests", "chunked_prefill_size",
                                               "dp_size")}


def _v41_old_problem(v: Any, release: str) -> str | None:
    """What 0.5.21 or 0.5.22 refuses of a V4.1 launch, or None."""
    t = v.target
    older = release == "0.5.21"
    prefill_graph = v.cuda_graph_config[PREFILL]["backend"]
    attn_dp = dp_attention_switch_0_5_21(v) if older else attn_dp_enabled(v)
    if not older and v.dsv4_attn_backend == "trtllm" and prefill_graph != "disabled":
        return "DeepSeek-V4.1 TRT-LLM needs a disabled prefill CUDA graph"
    if v.enable_encoder_swa_bounded_replay:
        hardware = ("hardware other than CUDA", not t.is_cuda) if older else (
            "hardware other than CUDA or gfx950", not (t.is_cuda or t.is_gfx95))
        for feature, bad in (
                hardware,
                ("prefill CUDA graphs", prefill_graph != "disabled"),
                ("DP attention", attn_dp),
                ("context parallelism", v.attn_cp_size > 1),
                ("the external cache linker", v.enable_unified_cache_external_linker),
                ("unified memory", v.enable_unified_memory),
                ("PD disaggregation", v.disaggregation_mode != "null"),
                ("mixed prefill/decode", v.enable_mixed_chunk),
                ("LoRA", v.enable_lora),
                ("radix sessions", v.enable_session_radix_cache)):
            if bad:
                return f"--enable-encoder-swa-bounded-replay does not support {feature} yet"
        if (v.max_running_requests is None or v.max_running_requests <= 0
                or not v.chunked_prefill_size or v.chunked_prefill_size < 128):
            return ("encoder SWA replay needs --max-running-requests above 0 and at least 128 "
                    "chunked prefill tokens")
    algorithm = v.speculative_algorithm
    unified_kv = t.is_hip and v.env.get("SGLANG_HACK_FLASHMLA_BACKEND") == "unified_kv_triton"
    trtllm = v.dsv4_attn_backend == "trtllm"
    replay = v.enable_encoder_swa_bounded_replay or v.enable_decoder_swa_bounded_replay
    for feature, bad in (
            ("speculative decoding other than DSpark",
             algorithm is not None and str(algorithm).upper() != "DSPARK"),
            ("HiSparse", v.enable_hisparse),
            ("the unified KV layout", unified_kv),
            ("the trtllm attention backend" if older else "TRT-LLM with SWA bounded replay",
             trtllm and (older or replay)),
            ("two-batch overlap", v.enable_two_batch_overlap),
            ("pipeline parallelism", v.pp_size > 1)):
        if bad:
            return f"DeepSeek-V4.1 does not support {feature} yet"
    if v.disaggregation_mode != "null" and algorithm is not None:
        verify = str(v.env.get("SGLANG_RAGGED_VERIFY_MODE", "static")) != "static"
        if older:
            if (verify or v.disaggregation_transfer_backend != "mooncake" or v.dp_size != 1
                    or attn_dp or v.attn_cp_size != 1 or v.dcp_size != 1):
                return "DeepSeek-V4.1 DSpark with PD needs static verify, Mooncake, DP 1 and CP 1"
        else:
            prefill_cp_ok = (v.disaggregation_mode == "prefill" and v.enable_prefill_cp
                             and v.cp_strategy == "interleave")
            if (verify or v.disaggregation_transfer_backend not in ("mooncake", "nixl")
                    or ((v.enable_prefill_cp or v.attn_cp_size != 1) and not prefill_cp_ok)
                    or v.dcp_size != 1):
                return ("DeepSeek-V4.1 DSpark with PD needs static verify, Mooncake or NIXL, "
                        "no decode CP, and prefill CP only as --enable-prefill-cp interleave")
    return None


def _v41_old_features(v: Any, release: str) -> dict | Refuse | None:
    if v.model.model_type != "deepseek_v41":
        if v.enable_encoder_swa_bounded_replay:
            return Refuse("--enable-encoder-swa-bounded-replay needs DeepSeek-V4.1")
        return None
    problem = _v41_old_problem(v, release)
    if problem:
        return Refuse(problem)
    if v.enable_decoder_swa_bounded_replay:
        if release == "0.5.21":
            blockers = [f for f, bad in (
                ("the prefill CUDA graph", v.cuda_graph_config[PREFILL]["backend"] != "disabled"),
                ("DP attention", dp_attention_switch_0_5_21(v))) if bad]
        else:
            blockers = _v41_replay_blockers(v)
        if blockers:
            return Refuse("--enable-decoder-swa-bounded-replay cannot be combined with "
                          f"{blockers[0]} yet")
    prefill = v.cuda_graph_config[PREFILL]
    cp_breakable = (release != "0.5.21" and v.enable_prefill_cp and v.cp_strategy == "interleave"
                    and v.tp_size > 1 and prefill["backend"] == "breakable")
    if prefill["backend"] != "disabled" and prefill["max_seq_len"] is None and not cp_breakable:
        return {"cuda_graph_config": with_phase(v.cuda_graph_config, PREFILL,
                                                max_seq_len=V41_PREFILL_GRAPH_MAX_SEQ_LEN)}
    return None


@rule(name="deepseek_v41_features", variant="0.5.22", **_V41_OLD,
      sglang="validate_deepseek_v41_features (0.5.22)")
def deepseek_v41_features_0_5_22(v: View) -> dict | Refuse | None:
    """0.5.22: V4.1's unsupported features; a captured prefill graph stops at 16384 tokens.

    When: whenever its promises hold; for V4 (not V4.1) only encoder SWA replay is checked.
    Effect: refuses as ``deepseek_v41_features`` with 0.5.22's limits: TRT-LLM with any prefill
        graph; encoder SWA replay with prefill graphs, attention DP, the external cache linker,
        PD, or below 128 chunked tokens or no running-request cap; TRT-LLM with either SWA
        replay. Decoder SWA replay stays off unless asked (its blockers refuse it then). A
        prefill graph without ``max_seq_len`` gets 16384, except a breakable one under
        interleave prefill CP over TP > 1.
    Why: 0.5.23 moved the replay budget to its own check, admitted breakable graphs, turned
        decoder replay on by default and dropped the prefill graph's length cap
        (``validate_deepseek_v41_features``, deepseek_v4_hook.py in 0.5.22).
    Assumes: as ``deepseek_v41_features``.
    """
    return _v41_old_features(v, "0.5.22")


@rule(name="deepseek_v41_features", variant="0.5.21",
      **{**_V41_OLD, "reads": _V41_OLD["reads"] + ("enable_dp_attention",)},
      sglang="validate_deepseek_v41_features (0.5.21)")
def deepseek_v41_features_0_5_21(v: View) -> dict | Refuse | None:
    """0.5.21: as the 0.5.22 variant, with 0.5.21's narrower paths.

    When: as the 0.5.22 variant.
    Effect: as the 0.5.22 variant, except: no TRT-LLM prefill-graph check, but the trtllm
        backend is refused on V4.1 outright; encoder SWA replay needs NVIDIA CUDA; DSpark with
        PD needs Mooncake, one DP group and no attention DP or CP; decoder SWA replay is
        refused with any prefill graph or attention DP; every prefill graph gets the 16384 cap.
        Attention DP is 0.5.21's switch: ``--enable-dp-attention`` with one group counts.
    Why: 0.5.22 added gfx950 replay, NIXL and prefill CP for DSpark PD, the breakable
        exemptions and TRT-LLM on V4.1 (``validate_deepseek_v41_features`` in 0.5.21, which
        runs before 0.5.21's data-parallelism defaults clear a single group's switch).
    Assumes: as ``deepseek_v41_features``.
    """
    return _v41_old_features(v, "0.5.21")


@rule(name="deepseek_v4_context_parallel", variant="0.5.21",
      **{**_V4_CP, "writes": _V4_CP["writes"] + ("enable_dp_attention",)},
      sglang="validate_deepseek_v4_cp (0.5.21)")
def deepseek_v4_context_parallel_0_5_21(v: View) -> dict | Refuse | None:
    """0.5.21: as ``deepseek_v4_context_parallel``, without the ROCm limits.

    When: ``--enable-prefill-cp`` is on.
    Effect: as ``deepseek_v4_context_parallel`` on every platform, the ROCm backend, node,
        V4.1, replay and two-batch-overlap refusals aside; ``enable_dp_attention`` on too.
    Why: 0.5.22 added prefill CP on ROCm with its limits (``validate_deepseek_v4_cp`` in 0.5.21
        has none); 0.5.21 lays CP out as attention DP by its switch, which the rules up to its
        data-parallelism defaults read (``dp_attention_switch_0_5_21``) and those clear with one
        DP group.
    Assumes: the target is not an Ascend NPU.
    """
    out = _v4_cp(v, rocm_checks=False)
    if isinstance(out, dict):
        return {**out, "enable_dp_attention": True}
    return out
