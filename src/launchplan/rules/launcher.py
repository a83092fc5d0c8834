"""Checks SGLang's launcher makes after resolution (``check_server_args``) on LoRA, the text
watermark, metrics, two-batch overlap and pipeline parallelism.

Resolution accepts these plans; the engine launcher refuses them before it starts a worker,
so launchplan reports them as warnings (errors under ``--strict``), like ``late.py``'s launcher
checks of the layout and the scheduler.
"""

from __future__ import annotations

from typing import Any

from launchplan.encoding import json_object
from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.numbers import is_nan
from launchplan.rules.parallel import attn_dp_enabled
from launchplan.vocabulary import MIXED_CHUNK_ALGORITHMS

#: speculative algorithms whose verify step keeps one token width per request, which LoRA's
#: segment layout needs (resolved names: NEXTN is EAGLE by now; NGRAM is checked apart): in
#: 0.5.23 the same four whose workers resume a mixed chunk
LORA_SPEC_ALGORITHMS = MIXED_CHUNK_ALGORITHMS
#: quantizations the LoRA MoE runners (``--moe-runner-backend lora_*``) take
LORA_MOE_QUANTIZATIONS = (None, "fp8", "modelopt_fp4")


def lora_enabled(v: Any) -> bool:
    """LoRA is on: ``--enable-lora``, or adapters given with the switch left unset."""
    return bool(v.enable_lora) or (v.enable_lora is None and bool(v.lora_paths))


def _v2_lora_problem(v: Any, option: str) -> str | None:
    """What the triton_v2 LoRA kernels (and the LoRA MoE runners on them) cannot run."""
    for hit, what in ((v.attn_dp_size > 1, "attention DP"), (v.enable_pdmux, "PD multiplexing"),
                      (v.enable_two_batch_overlap, "two-batch overlap"),
                      (v.record.env_flag("SGLANG_EXPERIMENTAL_LORA_OPTI"),
                       "SGLANG_EXPERIMENTAL_LORA_OPTI"),
                      (v.target.is_hip, "ROCm")):
        if hit:
            return f"{option} does not support {what} yet"
    return None


def _lora_spec_problem(v: Any) -> str | None:
    algorithm = v.speculative_algorithm
    if algorithm in (None, "NGRAM"):
        return None
    if algorithm not in LORA_SPEC_ALGORITHMS:
        return (f"LoRA works with NGRAM, EAGLE (NEXTN), EAGLE3, DFLASH or DSPARK speculation "
                f"only, not {algorithm}")
    ragged = v.record.env.get("SGLANG_RAGGED_VERIFY_MODE", "static")
    for hit, what in (
            (algorithm == "DSPARK" and ragged != "static",
             f"SGLANG_RAGGED_VERIFY_MODE={ragged} (per-request verify widths)"),
            (v.speculative_adaptive, "--speculative-adaptive"),
            ("experimental_sgl_trtllm" in (v.moe_runner_backend,
                                           v.speculative_moe_runner_backend),
             "the experimental_sgl_trtllm MoE runner"),
            (v.record.env_flag("SGLANG_ENABLE_OVERLAP_PLAN_STREAM"),
             "SGLANG_ENABLE_OVERLAP_PLAN_STREAM")):
        if hit:
            return f"LoRA with {algorithm} speculation does not support {what}"
    return None


def _lora_adapter_problem(v: Any) -> str | None:
    """The adapter list, target modules and loading limits of a LoRA launch."""
    paths = v.lora_paths
    if paths is not None and not isinstance(paths, (list, tuple, dict)):
        return f"--lora-paths must be a list or a mapping, got {type(paths).__name__}"
    for item in paths if isinstance(paths, (list, tuple)) else ():
        if isinstance(item, dict):
            if "lora_name" not in item or "lora_path" not in item:
                return "each --lora-paths object needs 'lora_name' and 'lora_path'"
        elif not isinstance(item, str):
            return f"a --lora-paths entry must be text or an object, got {item!r}"
    modules = v.lora_target_modules
    if modules and "all" in modules and len(set(modules)) > 1:
        return "--lora-target-modules all must stand alone"
    if not paths and not (v.max_lora_rank and modules):
        return ("LoRA without initial --lora-paths needs both --max-lora-rank and "
                "--lora-target-modules to size its buffers")
    loaded = v.max_loaded_loras
    if loaded is not None:
        if loaded < v.max_loras_per_batch:
            return (f"--max-loaded-loras {loaded} is below --max-loras-per-batch "
                    f"{v.max_loras_per_batch}")
        if len(paths or ()) > loaded:
            return f"{len(paths)} --lora-paths exceed --max-loaded-loras {loaded}"
    chunk = v.max_lora_chunk_size
    if chunk is not None and not (16 <= chunk <= 128 and chunk & (chunk - 1) == 0):
        return f"--max-lora-chunk-size must be a power of 2 from 16 to 128, got {chunk}"
    threshold = v.lora_drain_wait_threshold
    if not (isinstance(threshold, (int, float)) and threshold >= 0):  # nan fails, as there
        return "--lora-drain-wait-threshold must be non-negative"
    return None


def _lora_moe_runner_problem(v: Any, enabled: bool) -> str | None:
    draft = v.speculative_moe_runner_backend
    if v.speculative_algorithm is not None and draft is not None and draft.startswith("lora"):
        return (f"--speculative-moe-runner-backend {draft}: the draft has no LoRA adapters "
                "(the LoRA MoE runner serves the target)")
    backend = v.moe_runner_backend
    if not backend.startswith("lora"):
        return None
    if not enabled:
        return f"--moe-runner-backend {backend} needs LoRA on (--enable-lora or --lora-paths)"
    if v.lora_backend != "triton_v2":
        return f"--moe-runner-backend {backend} needs --lora-backend triton_v2"
    problem = _v2_lora_problem(v, f"--moe-runner-backend {backend}")
    if problem:
        return problem
    if v.quantization not in LORA_MOE_QUANTIZATIONS:
        return (f"--moe-runner-backend {backend} runs BF16, block FP8 or ModelOpt NVFP4 MoE, "
                f"not --quantization {v.quantization}")
    if v.quantization == "modelopt_fp4" and backend != "lora_marlin":
        return f"--moe-runner-backend {backend} cannot run ModelOpt NVFP4 MoE; use lora_marlin"
    if v.moe_a2a_backend != "none":
        return (f"--moe-runner-backend {backend} needs the standard dispatch, not "
                f"--moe-a2a-backend {v.moe_a2a_backend}")
    if v.ep_join_mode is not None:
        return f"--moe-runner-backend {backend} does not support elastic EP yet"
    if v.enable_eplb or v.init_expert_location != "trivial" or v.ep_num_redundant_experts > 0:
        return (f"--moe-runner-backend {backend} needs the trivial expert placement: no EPLB "
                "and no redundant experts")
    return None


_LORA_READS = ("max_loras_per_batch", "enable_lora", "lora_paths", "lora_backend",
               "moe_runner_backend", "attn_dp_size", "enable_pdmux", "enable_two_batch_overlap",
               "enable_lora_overlap_loading", "max_loaded_loras", "speculative_algorithm",
               "speculative_adaptive", "speculative_moe_runner_backend", "lora_target_modules",
               "max_lora_rank", "max_lora_chunk_size", "lora_drain_wait_threshold",
               "quantization", "moe_a2a_backend", "ep_join_mode", "enable_eplb",
               "init_expert_location", "ep_num_redundant_experts")


@rule(
    phase=Phase.LAUNCHER,
    reads=_LORA_READS,
    facts=("target.is_hip",),
    sglang="check_server_args (check_lora_server_args)",
)
def launcher_lora_checks(v: View) -> Refuse | None:
    """A LoRA launch must size its adapter buffers and run on kernels that support its layout.

    When: whenever its promises hold (LoRA on, or a LoRA MoE runner chosen).
    Effect: refuses ``max_loras_per_batch`` below 1; with LoRA on (``--enable-lora``, or
        ``--lora-paths`` with the switch unset): the triton_v2 backend (not under a LoRA MoE
        runner) with attention DP, PD multiplexing, TBO, SGLANG_EXPERIMENTAL_LORA_OPTI or ROCm;
        overlap loading without ``max_loaded_loras`` at most twice the batch; speculation
        other than NGRAM, EAGLE, EAGLE3, DFLASH, DSPARK, or those with adaptive steps, the
        experimental_sgl_trtllm runner, the overlap plan stream or (DSPARK) a ragged verify
        mode; adapter objects without name and path; ``all`` among other target modules; no
        adapters without ``--max-lora-rank`` and ``--lora-target-modules``; a loaded-adapter
        cap below the batch or the adapters given; a chunk size not a power of 2 in 16..128; a
        negative drain threshold. A LoRA MoE runner on the draft, or on the target without
        LoRA, triton_v2, BF16/FP8/NVFP4 (NVFP4: lora_marlin), standard dispatch, static EP and
        trivial expert placement, is refused too.
    Why: adapter buffers are sized from the first adapters or from the rank and modules, and
        the LoRA segment layout assumes one verify width per request
        (``check_lora_server_args``, run by the launcher).
    Assumes: nothing.
    """
    return _lora_refusal(v, v2_kernels=True)


def _lora_refusal(v: Any, *, v2_kernels: bool) -> Refuse | None:
    """``v2_kernels``: 0.5.23 checks the triton_v2 kernels and the LoRA MoE runners."""
    if v.max_loras_per_batch <= 0:
        return Refuse("--max-loras-per-batch must be positive")
    enabled = lora_enabled(v)
    problem = None
    if enabled:
        if (v2_kernels and v.lora_backend == "triton_v2"
                and not v.moe_runner_backend.startswith("lora")):
            problem = _v2_lora_problem(v, "--lora-backend triton_v2")
        if problem is None and v.enable_lora_overlap_loading and not (
                v.max_loaded_loras is not None
                and v.max_loaded_loras <= 2 * v.max_loras_per_batch):
            problem = ("LoRA overlap loading pins adapters in host memory: --max-loaded-loras "
                       f"must be set to at most {2 * v.max_loras_per_batch} (twice the batch)")
        problem = problem or _lora_spec_problem(v) or _lora_adapter_problem(v)
    if v2_kernels:
        problem = problem or _lora_moe_runner_problem(v, enabled)
    return Refuse(problem) if problem else None


@rule(name="launcher_lora_checks", variant="0.5.22", phase=Phase.LAUNCHER,
      reads=_LORA_READS, facts=("target.is_hip",),
      sglang="check_server_args (check_lora_server_args, 0.5.21-0.5.22)")
def launcher_lora_checks_0_5_22(v: View) -> Refuse | None:
    """0.5.21-0.5.22: the LoRA launch checks without the triton_v2 and LoRA MoE runner parts.

    When: whenever its promises hold.
    Effect: as ``launcher_lora_checks``, less the triton_v2 layout limits and every check of
        a ``lora_*`` MoE runner (on the target or the draft).
    Why: 0.5.23 added the triton_v2 mode checks and ``check_lora_moe_runner_args`` to
        ``check_lora_server_args``.
    Assumes: nothing.
    """
    return _lora_refusal(v, v2_kernels=False)


#: sampling backends SGLang ships (a custom backend cannot apply the watermark)
BUILT_IN_SAMPLING_BACKENDS = frozenset({"flashinfer", "pytorch", "ascend", "intel_xpu"})
WATERMARK_MAX_CONTEXT = 64  # SGLang's longest watermark context window
HEX = frozenset("0123456789abcdefABCDEF")


def _bad_watermark_key(value: Any) -> bool:
    if not isinstance(value, str):
        return True
    digits = value[2:] if value.lower().startswith("0x") else value
    return not 1 <= len(digits) <= 16 or any(c not in HEX for c in digits)


def _in_open_unit(value: Any, *, closed_top: bool = False) -> bool:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or is_nan(value):
        return False
    return 0 < value <= 1 if closed_top else 0 < value < 1


@rule(
    phase=Phase.LAUNCHER,
    reads=("watermark_config", "enable_watermark", "device", "watermark_key",
           "watermark_key_b", "watermark_context_window", "watermark_mixing_probability",
           "watermark_max_probability", "watermark_default_enabled", "watermark_enforce_all",
           "enable_custom_logit_processor", "sampling_backend", "dllm_algorithm",
           "disaggregation_mode", "speculative_algorithm", "pp_size",
           "speculative_use_rejection_sampling"),
    sglang="check_server_args (check_watermark_server_args)",
    triggers=("enable_watermark", "watermark_config"),
)
def launcher_watermark_checks(v: View) -> Refuse | None:
    """The text watermark needs consistent keys and a sampler path that applies it.

    When: ``--enable-watermark`` or ``--watermark-config`` is given.
    Effect: refuses a watermark config without ``--enable-watermark``; with the watermark on,
        a device other than cuda; keys that are not 1-16 hex digits; a context window outside
        1..64; key_b without a key; a mixing probability outside (0, 1), or other than 0.5
        without key_b; a maximum probability outside (0, 1]; default_enabled or enforce_all
        without a key; custom logit processors; a custom sampling backend; diffusion LLMs;
        PD disaggregation; speculation other than NGRAM, EAGLE, EAGLE3; speculation under PP;
        rejection sampling; SGLANG_RUST_SERVER.
    Why: the watermark biases sampling with a keyed hash of the context, so every path that
        samples must apply it the same way (``check_watermark_server_args``).
    Assumes: nothing.
    """
    if v.watermark_config is not None and not v.enable_watermark:
        return Refuse("--watermark-config needs --enable-watermark")
    if not v.enable_watermark:
        return None
    key, key_b = v.watermark_key, v.watermark_key_b
    window = v.watermark_context_window
    mixing = v.watermark_mixing_probability
    algorithm = v.speculative_algorithm
    for hit, what in (
            (v.device != "cuda", f"--enable-watermark needs --device cuda, not {v.device}"),
            (key is not None and _bad_watermark_key(key)
             or key_b is not None and _bad_watermark_key(key_b),
             "a watermark key must be 1 to 16 hex digits"),
            (isinstance(window, bool) or not isinstance(window, int)
             or not 1 <= window <= WATERMARK_MAX_CONTEXT,
             f"the watermark context window must be an integer from 1 to "
             f"{WATERMARK_MAX_CONTEXT}"),
            (key_b is not None and key is None, "watermark key_b needs a server key"),
            (not _in_open_unit(mixing), "the watermark mixing probability must lie in (0, 1)"),
            (key_b is None and mixing != 0.5, "a watermark mixing probability needs key_b"),
            (not _in_open_unit(v.watermark_max_probability, closed_top=True),
             "the watermark maximum probability must lie in (0, 1]"),
            ((v.watermark_default_enabled or v.watermark_enforce_all) and key is None,
             "watermark default_enabled and enforce_all need a server key"),
            (v.enable_custom_logit_processor,
             "--enable-watermark excludes --enable-custom-logit-processor"),
            (v.sampling_backend is not None
             and v.sampling_backend not in BUILT_IN_SAMPLING_BACKENDS,
             f"--enable-watermark needs a built-in sampling backend, not {v.sampling_backend}"),
            (v.dllm_algorithm is not None, "--enable-watermark does not support diffusion LLMs"),
            (v.disaggregation_mode != "null",
             "--enable-watermark does not support PD disaggregation"),
            (algorithm not in (None, "NGRAM", "EAGLE", "EAGLE3"),
             f"--enable-watermark supports NGRAM, EAGLE and EAGLE3 speculation, not {algorithm}"),
            (v.pp_size > 1 and algorithm is not None,
             "--enable-watermark does not support speculation under pipeline parallelism"),
            (v.speculative_use_rejection_sampling,
             "--enable-watermark excludes --speculative-use-rejection-sampling"),
            (v.record.env_flag("SGLANG_RUST_SERVER"),
             "--enable-watermark does not support SGLANG_RUST_SERVER")):
        if hit:
            return Refuse(what)
    return None


def _buckets_problem(flag: str, rule_: Any) -> str | None:
    """What is wrong with a metrics bucket rule (``default``, ``tse M B N``, ``custom v...``)."""
    if not rule_:
        return None
    kind, params = rule_[0], list(rule_[1:])
    if kind == "default":
        return f"{flag} default takes no values" if params else None
    if kind == "tse":
        if len(params) != 3:
            return f"{flag} tse takes exactly three values: middle, base, count"
        try:
            middle, base, count = float(params[0]), float(params[1]), int(params[2])
        except ValueError:
            return f"{flag} tse takes a float middle, a float base and an integer count"
        if not base > 1 or not count > 0 or not middle > 0:
            return f"{flag} tse needs base > 1, count > 0 and middle > 0"
        return None
    if kind == "custom":
        if not params:
            return f"{flag} custom needs at least one bucket value"
        try:
            values = [float(x) for x in params]
        except ValueError:
            return f"{flag} custom bucket values must be numbers"
        if len(set(values)) != len(values) or not all(x >= 0 for x in values):
            return f"{flag} custom bucket values must be distinct and non-negative"
        return None
    return f"{flag}: unknown bucket rule {kind!r} (default, tse or custom)"


@rule(
    phase=Phase.LAUNCHER,
    reads=("mm_processor_worker_num", "mm_io_worker_num", "prompt_tokens_buckets",
           "generation_tokens_buckets", "tokenizer_metrics_custom_labels_header",
           "tokenizer_metrics_allowed_custom_labels", "export_metrics_to_file",
           "export_metrics_to_file_dir", "gc_threshold"),
    sglang="check_server_args (workers, metrics, gc)",
)
def launcher_metrics_checks(v: View) -> Refuse | None:
    """Metrics buckets, labels and exporters, worker counts and GC thresholds must be usable.

    When: whenever its promises hold.
    Effect: refuses negative multimodal worker counts; a prompt or generation token bucket
        rule other than ``default``, ``tse MIDDLE BASE COUNT`` (base > 1, count and middle
        > 0) or ``custom V...`` (distinct, non-negative numbers); allowed custom labels with
        an empty label header; exporting metrics to files without a directory; a GC
        threshold of more than three values.
    Why: the tokenizer manager builds its histograms, label filter and exporters from these at
        start-up (``check_server_args``).
    Assumes: nothing.
    """
    if v.mm_processor_worker_num < 0 or v.mm_io_worker_num < 0:
        return Refuse("multimodal processor and I/O worker counts must be non-negative")
    for flag, name in (("--prompt-tokens-buckets", "prompt_tokens_buckets"),
                       ("--generation-tokens-buckets", "generation_tokens_buckets")):
        problem = _buckets_problem(flag, v[name])
        if problem:
            return Refuse(problem)
    if v.tokenizer_metrics_allowed_custom_labels and not v.tokenizer_metrics_custom_labels_header:
        return Refuse("--tokenizer-metrics-allowed-custom-labels needs "
                      "--tokenizer-metrics-custom-labels-header")
    if v.export_metrics_to_file and v.export_metrics_to_file_dir is None:
        return Refuse("--export-metrics-to-file needs --export-metrics-to-file-dir")
    if v.gc_threshold and not 1 <= len(v.gc_threshold) <= 3:
        return Refuse("--gc-threshold takes 1 to 3 integers")
    return None


@rule(
    phase=Phase.LAUNCHER,
    reads=("enable_two_batch_overlap", "moe_a2a_backend", "attn_dp_size", "ep_join_mode"),
    sglang="check_server_args (check_two_batch_overlap)",
    triggers=("enable_two_batch_overlap",),
)
def launcher_two_batch_overlap_check(v: View) -> Refuse | None:
    """Two-batch overlap without an expert all-to-all needs attention DP.

    When: ``--enable-two-batch-overlap``.
    Effect: refuses it with ``moe_a2a_backend`` none and no attention DP (an EP scale-up
        joiner counts as attention DP).
    Why: without an all-to-all, the only thing TBO overlaps is attention DP's gather and
        scatter with the other micro-batch (``check_two_batch_overlap``).
    Assumes: nothing.
    """
    if (v.enable_two_batch_overlap and v.moe_a2a_backend == "none"
            and not attn_dp_enabled(v)):
        return Refuse("--enable-two-batch-overlap without a MoE all-to-all backend needs "
                      "attention DP (--attn-dp-size)")
    return None


@rule(
    phase=Phase.LAUNCHER,
    reads=("pp_size", "disable_overlap_schedule", "speculative_algorithm",
           "disaggregation_mode", "enable_multi_layer_eagle", "speculative_adaptive",
           "attn_dp_size", "ep_join_mode", "min_free_slots_delay"),
    sglang="check_server_args (check_pipeline_parallel_compat)",
    triggers=("pp_size",),
)
def launcher_pipeline_parallel_checks(v: View) -> Refuse | None:
    """Pipeline parallelism runs its own micro-batches: speculation and slot delays are narrow.

    When: ``pp_size`` above 1.
    Effect: refuses the overlap schedule; DSPARK except on a PD prefill server (and never with
        SGLANG_ENABLE_PP_SPEC); speculation other than single-layer EAGLE; with
        SGLANG_ENABLE_PP_SPEC, EAGLE under PD, adaptive steps or attention DP; without it,
        EAGLE except on a PD prefill server; ``--min-free-slots-delay``.
    Why: the stages relay an EAGLE-shaped draft tree, and free slots per micro-batch are
        capped by the micro-batch size (``check_pipeline_parallel_compat``).
    Assumes: nothing.
    """
    if v.pp_size <= 1:
        return None
    algorithm = v.speculative_algorithm
    pp_spec = v.record.env_flag("SGLANG_ENABLE_PP_SPEC")
    prefill = v.disaggregation_mode == "prefill"
    problem = None
    if not v.disable_overlap_schedule:
        problem = "pipeline parallelism needs the overlap schedule off"
    elif algorithm == "DSPARK":
        if not prefill or pp_spec:
            problem = ("DSPARK under pipeline parallelism runs on a PD prefill server only, "
                       "without SGLANG_ENABLE_PP_SPEC")
    elif algorithm is not None:
        if str(algorithm).upper() != "EAGLE" or v.enable_multi_layer_eagle:
            problem = "pipeline parallelism supports single-layer EAGLE speculation only"
        elif pp_spec and (v.disaggregation_mode != "null" or v.speculative_adaptive
                          or attn_dp_enabled(v)):
            problem = ("SGLANG_ENABLE_PP_SPEC excludes PD disaggregation, adaptive "
                       "speculation and attention DP")
        elif not pp_spec and not prefill:
            problem = ("speculative decoding under pipeline parallelism runs on a PD prefill "
                       "server only (or with SGLANG_ENABLE_PP_SPEC)")
    if problem is None and v.min_free_slots_delay is not None:
        problem = "--min-free-slots-delay does not work with pipeline parallelism"
    return Refuse(problem) if problem else None


#: DSA backends HiSparse runs, by KV dtype on CUDA, and on ROCm (SGLang's ``hisparse_hook``)
HISPARSE_CUDA_DSA_BACKENDS = {"bfloat16": ("flashmla_sparse",),
                              "fp8_e4m3": ("flashinfer_sparse_mla", "flashmla_kv")}
HISPARSE_ROCM_DSA_BACKENDS = ("aiter", "tilelang", "triton")
HISPARSE_MODELS = ("DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN",
                   "DeepseekV4ForCausalLMDSpark", "MiniMaxM3SparseForCausalLM",
                   "MiniMaxM3SparseForConditionalGeneration")


def _hisparse_problem(v: Any, *, batch_checks: bool = True) -> str | None:
    """``batch_checks``: from 0.5.22 on, mixed chunks and speculation are checked too."""
    if not v.enable_hisparse:
        return None
    model = v.model
    arch = model.arch0
    if not (model.is_deepseek_dsa or arch in HISPARSE_MODELS):
        return (f"--enable-hisparse runs on DSA models (DeepSeek V3.2, GLM-5), DeepSeek V4 and "
                f"MiniMax M3 only, not {arch}")
    if not v.disable_radix_cache:
        return "--enable-hisparse needs --disable-radix-cache"
    algorithm = v.speculative_algorithm
    speculating = algorithm is not None and str(algorithm).upper() != "NONE"
    for hit, what in (
            (v.enable_mixed_chunk, "--enable-hisparse does not support --enable-mixed-chunk yet"),
            (speculating and (v.speculative_eagle_topk or 1) != 1,
             "HiSparse speculation is linear only: --speculative-eagle-topk 1"),
            (speculating and v.speculative_adaptive,
             "HiSparse speculation sizes its swap state statically: no --speculative-adaptive")):
        if batch_checks and hit:
            return what
    if arch.startswith("DeepseekV4") and v.target.is_hip:
        if v.record.env.get("SGLANG_HACK_FLASHMLA_BACKEND") == "unified_kv_triton":
            return ("--enable-hisparse needs DeepSeek-V4's packed KV layout on ROCm, not "
                    "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton")
        return None
    if not model.is_deepseek_dsa and not arch.startswith("DeepseekV4"):
        return None  # MiniMax M3 has no further limits
    dtype = v.kv_cache_dtype
    if dtype not in ("bfloat16", "auto", "fp8_e4m3"):
        return f"HiSparse needs a bfloat16 or fp8_e4m3 KV cache, not {dtype}"
    if v.target.is_hip:
        allowed = HISPARSE_ROCM_DSA_BACKENDS
    else:
        allowed = HISPARSE_CUDA_DSA_BACKENDS.get(
            dtype, ("flashinfer_sparse_mla", "flashmla_kv", "flashmla_sparse"))
    for phase in ("prefill", "decode"):
        backend = v[f"dsa_{phase}_backend"]
        if backend is not None and backend not in allowed:
            return (f"HiSparse with a {dtype} KV cache runs the DSA {phase} backends "
                    f"{', '.join(allowed)} here, not {backend}")
    return None


_HISPARSE = dict(
    phase=Phase.LAUNCHER,
    reads=("enable_hisparse", "disable_radix_cache", "enable_mixed_chunk",
           "speculative_algorithm", "speculative_eagle_topk", "speculative_adaptive",
           "kv_cache_dtype", "dsa_prefill_backend", "dsa_decode_backend"),
    facts=("model.arch0", "model.is_deepseek_dsa", "target.is_hip"),
    triggers=("enable_hisparse",),
)


@rule(**_HISPARSE, sglang="check_server_args (validate_hisparse)")
def launcher_hisparse_checks(v: View) -> Refuse | None:
    """Hierarchical sparse attention runs on sparse-attention models with a narrow setup.

    When: ``--enable-hisparse``.
    Effect: refuses models other than DSA ones, DeepSeek V4 and MiniMax M3; a radix cache;
        mixed chunks; speculation with top-k above 1 or adaptive steps; on ROCm DeepSeek V4,
        the unified-KV Triton path; on DSA (and V4 off ROCm) a KV dtype other than bfloat16
        or fp8_e4m3 and DSA backends HiSparse does not run (CUDA: flashmla_sparse for
        bfloat16, flashmla_kv or flashinfer_sparse_mla for fp8; ROCm: tilelang, triton,
        aiter).
    Why: HiSparse swaps sparse KV between host and device per step with statically sized
        state, through those kernels only (``validate_hisparse``, run by the launcher).
    Assumes: nothing.
    """
    problem = _hisparse_problem(v)
    return Refuse(problem) if problem else None


@rule(name="launcher_hisparse_checks", variant="0.5.21", **_HISPARSE,
      sglang="check_server_args (validate_hisparse, 0.5.21)")
def launcher_hisparse_checks_0_5_21(v: View) -> Refuse | None:
    """0.5.21: the HiSparse launch checks without the mixed-chunk and speculation limits.

    When: ``--enable-hisparse``.
    Effect: as ``launcher_hisparse_checks``, but mixed chunks and speculation (any top-k,
        adaptive steps) pass.
    Why: 0.5.22 added ``validate_hisparse_feature_combos`` and the speculation checks.
    Assumes: nothing.
    """
    problem = _hisparse_problem(v, batch_checks=False)
    return Refuse(problem) if problem else None


@rule(
    phase=Phase.LAUNCHER,
    reads=("model_impl", "load_format", "device", "enable_quant_communications", "tp_size",
           "sampling_backend", "smg_grpc_mode", "grpc_mode", "grpc_port", "port"),
    sglang="check_server_args (device-bound features, ports)",
)
def launcher_device_checks(v: View) -> Refuse | None:
    """Features bound to one device family, and the gRPC port, checked before workers start.

    When: whenever its promises hold.
    Effect: refuses the MindSpore model implementation off Ascend NPUs; InstantTensor loading
        on a device other than cuda (ROCm included); communication quantization at tp_size 1
        or off NPUs; the intel_xpu sampling backend off XPU; a gRPC port equal to the HTTP
        port outside the gRPC modes.
    Why: those kernels and loaders exist for one device family only, and two servers cannot
        bind one port (``check_server_args``).
    Assumes: every catalogued target is a GPU (no NPU), so MindSpore is always refused.
    """
    for hit, what in (
            (v.model_impl == "mindspore", "--model-impl mindspore runs on Ascend NPUs only"),
            (v.load_format == "instanttensor" and v.device != "cuda",
             f"--load-format instanttensor needs a CUDA or ROCm device, not {v.device}"),
            (v.enable_quant_communications and v.tp_size == 1,
             "--enable-quant-communications needs tp_size above 1"),
            (v.enable_quant_communications and v.device != "npu",
             "--enable-quant-communications runs on NPUs only"),
            (v.sampling_backend == "intel_xpu" and v.device != "xpu",
             f"--sampling-backend intel_xpu needs --device xpu, not {v.device}"),
            (not (v.smg_grpc_mode or v.grpc_mode) and v.grpc_port == v.port,
             f"--grpc-port {v.grpc_port} must differ from --port {v.port}")):
        if hit:
            return Refuse(what)
    return None


@rule(
    phase=Phase.LAUNCHER,
    reads=("load_publish_endpoint", "kv_events_config"),
    sglang="check_server_args (check_load_publish_args)",
    triggers=("load_publish_endpoint",),
)
def launcher_load_publish_checks(v: View) -> Refuse | None:
    """A load-publishing endpoint needs an active KV-events publisher to be advertised through.

    When: ``--load-publish-endpoint`` is set and not ``off``.
    Effect: refuses it without ``--kv-events-config``, with a config that is no JSON object,
        or with one whose publisher is ``null`` (its default) or whose endpoint is empty.
    Why: routers find the load range in ``/server_info``'s KV-events block, which exists only
        with a running publisher; the launcher fails fast rather than have a scheduler bind a
        range nobody can discover (``check_load_publish_args``).
    Assumes: the port-range checks that follow (overlap with the KV-events and replay ranges,
        the 16-bit ceiling) pass.
    """
    mode = (v.load_publish_endpoint or "").strip()
    if not mode or mode.lower() == "off":
        return None
    text = v.kv_events_config
    if not text:
        return Refuse("--load-publish-endpoint needs --kv-events-config (routers find the "
                      "load range through its publisher)")
    config = json_object(text)
    if config is None:
        return Refuse(f"--kv-events-config must be a JSON object; got {text!r}")
    if config.get("publisher", "null") == "null" or not config.get("endpoint", "tcp://*:5557"):
        return Refuse("--load-publish-endpoint needs an active --kv-events-config publisher "
                      "(not 'null') with an endpoint")
    return None
