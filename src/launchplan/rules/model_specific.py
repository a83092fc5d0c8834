"""Model-specific adjustments: everything ``handle_model_specific_adjustments`` does around the
model-override batch (``rules/model_overrides``), and the prefill/decode interval default.

In SGLang's order: the deterministic fusion switch and the ``uses_mamba_radix_cache``
baseline; architecture constraints; the hybrid-Mamba pass for linear-attention specs; the
override batch; Kimi, GLM-5-Next and DeepSeek-V4 defaults; the DeepSeek/DSA passes; the
per-architecture backend checks (SGLang asserts, so a refusal here is its exit 3); the
hybrid-Mamba pass again; the sparse-head overlap pass; the all-reduce fusion passes.

Also here: the quantization check SGLang makes when it first builds the model config.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts.memo import per_object
from launchplan.rules.attention import effective_backends
from launchplan.rules.graph_config import PREFILL, with_phase
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    arch0,
    attn_dp_enabled,
    checkpoint_quant_method,
    config,
    env_set,
    env_true,
    exaone,
    gemma4,
    gpt_oss,
    llama4,
    model_dtype,
    quantization_config,
    quantization_unset_explicitly,
)
from launchplan.rules.model_overrides.deepseek_v2 import DEEPSEEK_FAMILY, context_parallel_attn_dp
from launchplan.rules.model_overrides.granitemoehybrid import has_mamba_layers

# --- the model config is built (step 22): quantization verification ----------------------


@rule(
    phase=Phase.GRAPH_DEFAULTS,
    reads=("quantization",),
    facts=("model.quant_config", "target.vendor", "target.gfx", "target.sm"),
    sglang="ModelConfig._verify_quantization (first model_config_of, step 22)",
)
def model_quantization_check(v: View) -> Declare | Refuse | None:
    """The checkpoint's quantization must be one this platform registers and can serve.

    SGLang checks it when it first builds the model config. ``mxfp4`` is registered on
    NVIDIA and on ROCm gfx95 only, so GPT-OSS is refused on an MI300X (gfx942); ROCm also
    allows only its own list. A ``--quantization`` that contradicts the checkpoint is
    refused unless the pair is compatible or a requantization.
    """
    verdict = _verified(v.model, v.quantization, v.target)
    if verdict is None:
        return None
    refusal, warnings = verdict
    if refusal is not None:
        return Refuse(refusal)
    return Declare({}, warnings)


# (model, --quantization, target) -> None (clean) or (refusal message, warnings); the check
# is a pure function of these, and sweeps repeat them millions of times.
_VERIFIED: dict[tuple[int, Any, Any], tuple[str | None, str] | None] = {}


def _verified(model: Any, quantization: Any, target: Any) -> tuple[str | None, str] | None:
    key = (id(model), quantization if isinstance(quantization, str) else repr(quantization),
           id(target))
    if key in _VERIFIED:
        return _VERIFIED[key]
    from launchplan.facts.quantization import (
        QuantizationError,
        QuantPlatform,
        verify_quantization,
    )

    try:
        verdict = verify_quantization(model.quant_config, quantization,
                                      QuantPlatform.from_target(target))
        out = (None, "; ".join(verdict.warnings)) if verdict.warnings else None
    except QuantizationError as exc:
        out = (exc.message, "")
    if len(_VERIFIED) > 4096:
        _VERIFIED.clear()
        _KEEP.clear()
    _KEEP[id(model)] = model  # the ids in the key stay these objects' while cached
    _KEEP[id(target)] = target
    _VERIFIED[key] = out
    return out


_KEEP: dict[int, Any] = {}


# --- before the override batch ------------------------------------------------------------


@rule(
    phase=Phase.MODEL,
    reads=("enable_deterministic_inference",),
    writes=("enforce_disable_flashinfer_allreduce_fusion",),
    triggers=("enable_deterministic_inference",),
    sglang="handle_model_specific_adjustments (deterministic inference)",
)
def deterministic_allreduce_fusion_off(v: View) -> dict | None:
    """Deterministic inference enforces FlashInfer all-reduce fusion off.

    The fused all-reduce kernels do not reduce in a fixed order, so results would vary
    with batch composition.
    """
    if v.enable_deterministic_inference:
        return {"enforce_disable_flashinfer_allreduce_fusion": True}
    return None


@rule(
    phase=Phase.MODEL,
    writes=("uses_mamba_radix_cache",),
    sglang="handle_model_specific_adjustments (uses_mamba_radix_cache baseline)",
)
def mamba_radix_cache_baseline(v: View) -> dict:
    """No Mamba radix cache unless a hybrid-Mamba pass below turns it on."""
    return {"uses_mamba_radix_cache": False}


# Architectures whose attention linears are replicated across CP ranks (attention TP 1).
CP_DECODE_ATTN_TP_ARCHS = frozenset({
    "DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark",
    "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN",
})


@rule(
    phase=Phase.MODEL,
    reads=("pp_size", "ep_size", "enable_dsa_cache_layer_split", "enable_cp_decode_attn_tp"),
    facts=("model.arch0", "model.is_deepseek_dsa"),
    triggers=("pp_size", "ep_size", "enable_dsa_cache_layer_split",
              "enable_cp_decode_attn_tp"),
    sglang="handle_model_specific_adjustments (architecture constraints)",
)
def model_arch_constraints(v: View) -> Refuse | None:
    """Features a model family cannot run, refused before any default is chosen.

    Intern-S2 Mobius has no pipeline or expert parallelism; the DSA cache layer split needs
    a DSA model; CP decode attention-TP needs replicated attention linears (DeepSeek-V4,
    GLM-5 DSA). Assumed: no ``decision_config.json`` beside the checkpoint (launchplan
    reads ``config.json`` only), so the noncausal decision-readout case never applies.
    """
    arch = arch0(v)
    if arch == "InternS2MobiusForConditionalGeneration":
        missing = [what for what, bad in (("pipeline parallelism (--pp-size 1)", v.pp_size != 1),
                                          ("expert parallelism (--ep-size 1)", v.ep_size != 1))
                   if bad]
        if missing:
            return Refuse("Intern-S2 Mobius does not support " + " or ".join(missing))
    if v.enable_dsa_cache_layer_split and not v.model.is_deepseek_dsa:
        return Refuse("--enable-dsa-cache-layer-split needs a DeepSeek Sparse Attention model")
    if v.enable_cp_decode_attn_tp and arch not in CP_DECODE_ATTN_TP_ARCHS:
        return Refuse(f"--enable-cp-decode-attn-tp needs attention linears replicated across "
                      f"CP ranks; {arch} has none (supported: "
                      f"{', '.join(sorted(CP_DECODE_ATTN_TP_ARCHS))})")
    return None


# --- the hybrid-Mamba radix cache --------------------------------------------------------

# Hybrid models whose radix cache keeps Mamba state.
MAMBA_RADIX_CACHE_ARCHS = frozenset({
    "KimiLinearForCausalLM", "KimiK3ForConditionalGeneration", "BailingMoeV2_5ForCausalLM",
    "BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration",
    "Qwen3NextForCausalLM", "Qwen3_5MoeForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "InternS2MobiusForConditionalGeneration",
    "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForCausalLM", "Qwen3_5ForCausalLM",
    "Qwen4ExpForConditionalGeneration", "MiniCPMV4_6ForConditionalGeneration",
    "MiniCPMV4_7ForConditionalGeneration", "NemotronHForCausalLM",
    "NemotronHPuzzleForCausalLM", "NemotronH_Omni_Reasoning_V3", "FalconH1ForCausalLM",
    "JetNemotronForCausalLM", "JetVLMForConditionalGeneration", "Lfm2ForCausalLM",
    "Lfm2MoeForCausalLM", "ZayaForCausalLM", "Glm5NextForConditionalGeneration",
})

# Hybrid models whose Mamba cache can keep extra (ping-pong) state buffers.
MAMBA_EXTRA_BUFFER_ARCHS = frozenset({
    "KimiLinearForCausalLM", "Qwen3_5ForConditionalGeneration",
    "Qwen3_5MoeForConditionalGeneration", "Qwen3_5MoeForCausalLM", "Qwen3_5ForCausalLM",
    "Qwen3NextForCausalLM", "Qwen4ExpForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "MiniCPMV4_6ForConditionalGeneration",
    "MiniCPMV4_7ForConditionalGeneration", "BailingMoeV2_5ForCausalLM",
    "BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration",
    "FalconH1ForCausalLM", "GraniteMoeHybridForCausalLM", "Glm5NextForConditionalGeneration",
    "NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "NemotronH_Omni_Reasoning_V3",
    "KimiK3ForConditionalGeneration", "InklingForConditionalGeneration",
    "InklingForConditionalGenerationMTP",
})

# SGLang's linear-attention model registry (GigaChat 3.5 registers the only in-tree spec):
# matched by architecture or config model_type. (uses the Mamba radix cache, extra buffers)
LINEAR_ATTN_SPECS = {
    "GigaChat35ForCausalLM": (True, False),
    "GigaChat35ForCausalLMNextN": (True, False),
}
LINEAR_ATTN_SPEC_TYPES = {"gigachat3_5": (True, False)}

# What the Mamba radix-cache decision and its validators read.
_MAMBA_READS = ("disable_radix_cache", "mamba_radix_cache_strategy", "disable_overlap_schedule",
                "page_size", "linear_attn_backend", "uses_mamba_radix_cache",
                "disaggregation_mode", "speculative_num_draft_tokens", "mamba_track_interval",
                "attention_backend")


def linear_attn_spec(v: Any) -> tuple[bool, bool] | None:
    """The registry spec of the model: (uses the Mamba radix cache, extra buffers), or None."""
    spec = LINEAR_ATTN_SPECS.get(arch0(v))
    return spec if spec is not None else LINEAR_ATTN_SPEC_TYPES.get(v.model.model_type)


def supports_mamba_extra_buffer(v: Any) -> bool:
    """Extra buffers need an opted-in architecture (or spec) and the triton linear backend."""
    spec = linear_attn_spec(v)
    if arch0(v) in MAMBA_EXTRA_BUFFER_ARCHS or (spec is not None and spec[1]):
        return v.linear_attn_backend == "triton"
    return False


def _mamba_resolution(v: Any) -> dict[str, Any]:
    arch = arch0(v)
    in_set = arch in MAMBA_RADIX_CACHE_ARCHS
    if arch == "GraniteMoeHybridForCausalLM":
        in_set = has_mamba_layers(v)
    spec = linear_attn_spec(v)
    if not ((spec is not None and spec[0]) or in_set) or v.disable_radix_cache:
        return {}
    out: dict[str, Any] = {"uses_mamba_radix_cache": True}
    if v.mamba_radix_cache_strategy == "auto":
        wants_overlap = not v.disable_overlap_schedule
        wants_paging = v.page_size is not None and v.page_size > 1
        if (wants_overlap or wants_paging) and supports_mamba_extra_buffer(v):
            out["mamba_radix_cache_strategy"] = "extra_buffer"
        else:
            out["mamba_radix_cache_strategy"] = "no_buffer"
            out["disable_overlap_schedule"] = True
    return out


def _mamba_problem(v: Any, after: dict[str, Any]) -> str | None:
    """What the Mamba cache validators refuse, reading the view with ``after`` applied."""
    def get(name: str) -> Any:
        return after[name] if name in after else v[name]

    strategy = get("mamba_radix_cache_strategy")
    extra = get("disable_radix_cache") is False and strategy in ("extra_buffer",
                                                                 "extra_buffer_lazy")
    if not get("uses_mamba_radix_cache"):
        if extra:
            return (f"--mamba-radix-cache-strategy {strategy} needs Mamba state, which "
                    f"{arch0(v)} does not have")
        return None
    page = get("page_size")
    if not extra:
        if page not in (1, None):
            return "the no_buffer Mamba cache supports page size 1 only"
        if not get("disable_overlap_schedule"):
            return ("the no_buffer Mamba cache does not support the overlap scheduler; "
                    "pass --disable-overlap-schedule")
        if get("attention_backend") == "trtllm_mha":
            return "the no_buffer Mamba cache does not support the trtllm_mha attention backend"
        return None
    if not supports_mamba_extra_buffer(v):
        return f"the extra_buffer Mamba cache is not supported for {arch0(v)}; use no_buffer"
    if strategy == "extra_buffer_lazy" and get("disaggregation_mode") != "null":
        return "extra_buffer_lazy is not supported under PD disaggregation; use extra_buffer"
    interval = get("mamba_track_interval")
    drafts = get("speculative_num_draft_tokens")
    if drafts is not None and interval < drafts:
        return (f"--mamba-track-interval {interval} must be at least the "
                f"{drafts} speculative draft tokens")
    if page is not None:
        if interval % page:
            return f"--mamba-track-interval {interval} must be a multiple of page size {page}"
        chunk = v.model.mamba_chunk_size
        if max(chunk, page) % min(chunk, page):
            return (f"the Mamba chunk size {chunk} and page size {page} must divide one "
                    "another")
    return None


def _mamba_rule(v: Any) -> Declare | Refuse | None:
    out = _mamba_resolution(v)
    problem = _mamba_problem(v, out)
    if problem is not None:
        return Refuse(problem)
    if not out:
        return None
    note = None
    if out.get("mamba_radix_cache_strategy") == "no_buffer":
        note = "the no_buffer Mamba radix cache turns the overlap scheduler off"
    return Declare(out, note)


@rule(
    phase=Phase.MODEL,
    reads=_MAMBA_READS,
    writes=("uses_mamba_radix_cache", "mamba_radix_cache_strategy", "disable_overlap_schedule"),
    facts=("model.arch0", "model.model_type", "model.mamba_chunk_size", "model.config"),
    sglang="handle_mamba_radix_cache + _mamba_radix_cache_resolution (for linear-attention "
           "specs, before the overrides)",
)
def mamba_radix_cache_for_linear_attn_spec(v: View) -> Declare | Refuse | None:
    """For a registered linear-attention spec (GigaChat 3.5): the Mamba cache, early.

    Same decision as ``mamba_radix_cache``, run before the override batch for models whose
    spec asks for the Mamba radix cache.
    """
    spec = linear_attn_spec(v)
    if spec is None or not spec[0]:
        return None
    return _mamba_rule(v)


# --- after the override batch -------------------------------------------------------------

KIMI_HYBRID_ARCHS = frozenset({"KimiLinearForCausalLM", "KimiK3ForConditionalGeneration"})


@rule(
    phase=Phase.MODEL,
    reads=("linear_attn_decode_backend", "mamba_ssm_dtype"),
    writes=("linear_attn_decode_backend",),
    facts=("model.arch0", "target.is_sm100"),
    archs=KIMI_HYBRID_ARCHS,
    sglang="apply_kimi_k3_linear_attn_defaults (kimi_k3_hook.py)",
)
def kimi_linear_attn_defaults(v: View) -> dict | None:
    """Kimi hybrids with a bf16 SSM state on SM10x decode KDA with triton.

    Its packed decode kernel is faster than the recurrent one on these shapes, and state
    replay needs triton.
    """
    if (arch0(v) in KIMI_HYBRID_ARCHS and v.linear_attn_decode_backend is None
            and v.mamba_ssm_dtype == "bfloat16" and v.target.is_sm100):
        return {"linear_attn_decode_backend": "triton"}
    return None


@rule(
    phase=Phase.MODEL,
    reads=("speculative_algorithm", "linear_attn_verify_backend",
           "speculative_draft_attention_backend"),
    writes=("linear_attn_verify_backend", "speculative_draft_attention_backend"),
    facts=("model.arch0", "target.is_sm100"),
    archs=KIMI_HYBRID_ARCHS,
    sglang="apply_kimi_k3_spec_backend_defaults (kimi_k3_hook.py)",
)
def kimi_spec_backend_defaults(v: View) -> dict | None:
    """Kimi hybrids verify drafts with the fused CuTeDSL KDA kernel; DSPARK drafts on SM10x
    use trtllm_mha (the draft is dense MQA and trtllm_mha plans without a host sync)."""
    if arch0(v) not in KIMI_HYBRID_ARCHS or v.speculative_algorithm is None:
        return None
    out: dict[str, Any] = {}
    if v.linear_attn_verify_backend is None:
        out["linear_attn_verify_backend"] = "nv_cutedsl"
    if (v.speculative_algorithm == "DSPARK" and v.speculative_draft_attention_backend is None
            and v.target.is_sm100):
        out["speculative_draft_attention_backend"] = "trtllm_mha"
    return out or None


@rule(
    phase=Phase.MODEL,
    reads=("speculative_algorithm", "linear_attn_verify_backend"),
    writes=("linear_attn_verify_backend",),
    facts=("model.arch0", "target.is_sm100"),
    archs=("Glm5NextForConditionalGeneration",),
    sglang="apply_glm5_next_spec_backend_defaults (glm5_next_hook.py)",
)
def glm5_next_spec_backend_defaults(v: View) -> dict | None:
    """GLM-5-Next verifies speculative drafts with the CuTeDSL kernel on SM10x."""
    if (arch0(v) == "Glm5NextForConditionalGeneration" and v.speculative_algorithm is not None
            and v.linear_attn_verify_backend is None and v.target.is_sm100):
        return {"linear_attn_verify_backend": "nv_cutedsl"}
    return None


# --- DeepSeek-V4 --------------------------------------------------------------------------

DSV4_ARCH = "DeepseekV4ForCausalLM"
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


@rule(
    phase=Phase.MODEL,
    reads=("kv_cache_dtype", "dsv4_attn_backend", "device", "disaggregation_mode",
           "enable_prefill_cp", "tp_size", "attn_dp_size", "attn_cp_size", "enable_hisparse",
           "dcp_size", "chunked_prefill_size", "max_running_requests",
           "speculative_algorithm", "speculative_eagle_topk"),
    writes=("kv_cache_dtype", "dsv4_attn_backend", "max_running_requests"),
    facts=("model.arch0", "model.model_type", "target.is_sm100"),
    archs=(DSV4_ARCH,),
    sglang="apply_deepseek_v4_defaults (deepseek_v4_hook.py, with _deepseek_v4_kv_cache_dtype)",
)
def deepseek_v4_defaults(v: View) -> Declare | Refuse | None:
    """DeepSeek-V4: an fp8_e4m3 KV cache, its attention kernel, 256 running requests.

    An ``auto`` KV cache becomes fp8_e4m3 (bfloat16 is the other choice; the compressed
    pool has no other layout). An ``auto`` dsv4 kernel becomes flashmla_mega or flashmla
    (see ``_dsv4_default_backend``); flashmla_mega and trtllm are checked against their
    hardware and feature limits. Unset ``max_running_requests`` is 256, before speculation
    would pick 48. Only EAGLE (top-k 1) and DSPARK speculate.
    """
    if arch0(v) != DSV4_ARCH:
        return None
    out: dict[str, Any] = {}
    kv = v.kv_cache_dtype
    if kv == "auto":
        kv = out["kv_cache_dtype"] = "fp8_e4m3"
    if kv not in DSV4_KV_DTYPES:
        return Refuse(f"DeepSeek-V4 supports kv_cache_dtype fp8_e4m3 or bfloat16, not {kv}")
    backend = v.dsv4_attn_backend
    if backend == "auto":
        backend = out["dsv4_attn_backend"] = _dsv4_default_backend(v, kv)
    if backend == "flashmla_mega" and not (v.model.model_type == "deepseek_v41"
                                           and v.device == "cuda" and v.target.is_sm100):
        return Refuse("--dsv4-attn-backend flashmla_mega needs DeepSeek-V4.1 on SM10x")
    if backend == "trtllm":
        problem = _dsv4_trtllm_problem(v, kv)
        if problem:
            return Refuse(problem)
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


# --- the DeepSeek family branch -------------------------------------------------------------

# SGLang's DeepSeek branch of handle_model_specific_adjustments (the family without the
# LongCat NextN draft).
DEEPSEEK_BRANCH = DEEPSEEK_FAMILY - {"LongcatFlashForCausalLMNextN"}


def _dsa(v: Any) -> bool:
    return arch0(v) in DEEPSEEK_BRANCH and v.model.is_deepseek_dsa


@rule(
    phase=Phase.MODEL,
    reads=("enable_two_batch_overlap",),
    facts=("model.arch0", "model.is_deepseek_dsa", "model.config"),
    archs=DEEPSEEK_BRANCH,
    triggers=("enable_two_batch_overlap",),
    sglang="_validate_dsa_tbo_index_sharing (model_hook.py)",
)
def dsa_two_batch_overlap_check(v: View) -> Refuse | None:
    """Two-batch overlap cannot run DSA models whose layers share top-k indices.

    Its op path does not carry top-k indices from layer to layer, so shared layers would
    attend without them.
    """
    if not _dsa(v) or not v.enable_two_batch_overlap:
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
    triggers=("enable_prefill_cp",),
    sglang="handle_model_specific_adjustments (DSA prefill CP graph disable)",
)
def dsa_prefill_cp_graph_disable(v: View) -> Declare | None:
    """DSA prefill CP runs its prefill eagerly unless it is breakable with CP BCG support.

    The lock on an explicit prefill backend is ignored (rules.md §5.3).
    """
    if not _dsa(v) or not v.enable_prefill_cp:
        return None
    config_ = v.cuda_graph_config
    if config_[PREFILL]["backend"] == "breakable" and supports_prefill_cp_bcg(v):
        return None
    if config_[PREFILL]["backend"] == "disabled":
        return None
    return Declare({"cuda_graph_config": with_phase(config_, PREFILL, backend="disabled")},
                   "prefill CUDA graph disabled: DSA prefill context parallelism cannot "
                   "capture it here")


@rule(
    phase=Phase.MODEL,
    reads=("kv_cache_dtype", "dsa_prefill_backend", "dsa_decode_backend"),
    writes=("kv_cache_dtype",),
    facts=("model.arch0", "model.is_deepseek_dsa", "model.learnable_sink", "target.capability"),
    archs=DEEPSEEK_BRANCH,
    sglang="_dsa_kv_cache_dtype_default",
    applies=lambda target, model: model.arch0 in DEEPSEEK_BRANCH and model.is_deepseek_dsa,
)
def dsa_kv_cache_dtype_default(v: View) -> Declare | Refuse | None:
    """DSA KV cache: ``auto`` is fp8_e4m3 on SM10x and newer, else bfloat16.

    The sparse FP8 kernels are Blackwell's; learnable attention sinks need bf16; ``bf16``
    is spelled ``bfloat16``; only bfloat16 and fp8_e4m3 exist for DSA.
    """
    if not _dsa(v):
        return None
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


def _dsa_backend_problem(v: Any, kv: str, prefill: str | None,
                         decode: str | None) -> str | None:
    chosen = {prefill, decode}
    hip = v.target.is_hip
    if not hip and "triton" in chosen:
        return ("the triton DSA backend runs on ROCm only; on CUDA use flashmla_kv (Hopper) "
                "or trtllm (Blackwell)")
    if hip or kv != "fp8_e4m3" or "tilelang" not in chosen:
        return None
    if prefill != "tilelang" or decode != "tilelang":
        return ("a TileLang FP8 KV cache needs tilelang for both DSA backends: the FP8 "
                "layouts cannot be mixed")
    if v.dcp_size > 1:
        return "a TileLang FP8 KV cache does not support --dcp-size > 1"
    if v.target.capability < (8, 9):
        return "a TileLang FP8 KV cache needs SM89 or newer"
    return None


@rule(
    phase=Phase.MODEL,
    reads=("kv_cache_dtype", "dsa_prefill_backend", "dsa_decode_backend", "enable_hisparse",
           "dcp_size"),
    writes=("dsa_prefill_backend", "dsa_decode_backend"),
    facts=("model.arch0", "model.is_deepseek_dsa", "model.learnable_sink", "target.capability",
           "target.is_hip"),
    archs=DEEPSEEK_BRANCH,
    sglang="_dsa_split_backend_resolution",
    applies=lambda target, model: model.arch0 in DEEPSEEK_BRANCH and model.is_deepseek_dsa,
)
def dsa_split_backend_resolution(v: View) -> dict | Refuse | None:
    """DSA's prefill/decode kernels, filled where unset, from the KV dtype and the GPU.

    Learnable sinks: flashmla_sparse only. GLM-5 DSA on SM12x with FP8 KV:
    flashinfer_sparse_mla. HiSparse: tilelang on ROCm, else flashmla_kv (FP8) or
    flashmla_sparse. ROCm: triton. FP8 KV: trtllm on SM10x+, flashmla_kv on Hopper. bf16:
    flashmla_sparse prefill, trtllm (SM10x+) or fa3 decode. triton is ROCm-only; TileLang
    FP8 needs tilelang on both sides, no decode CP, SM89+.
    """
    if not _dsa(v):
        return None
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
        if not t.is_hip and kv == "fp8_e4m3" and "tilelang" in (prefill, decode):
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
    problem = _dsa_backend_problem(v, kv, prefill, decode)
    if problem:
        return Refuse(problem)
    return out or None


@rule(
    phase=Phase.MODEL,
    reads=("enable_prefill_cp", "disaggregation_mode", "enable_dsa_cache_layer_split",
           "cp_strategy", "disaggregation_transfer_backend", "pp_size"),
    facts=("model.arch0", "model.is_deepseek_dsa"),
    archs=DEEPSEEK_BRANCH,
    triggers=("enable_prefill_cp", "enable_dsa_cache_layer_split"),
    sglang="handle_model_specific_adjustments (DSA context-parallel checks)",
)
def dsa_context_parallel_checks(v: View) -> Refuse | None:
    """DSA prefill CP is for prefill servers only; the cache layer split has narrow limits.

    The layer split is a prefill-CP optimisation: PD prefill workers only, with
    ``--enable-prefill-cp --cp-strategy interleave``, the Mooncake transfer backend and no
    pipeline parallelism.
    """
    if not _dsa(v):
        return None
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
    triggers=("enable_prefill_cp",),
    sglang="handle_model_specific_adjustments (MLA prefill CP graph disable)",
)
def mla_prefill_cp_graph_disable(v: View) -> Declare | None:
    """Non-DSA DeepSeek MLA with prefill CP runs prefill eagerly (lock ignored)."""
    if (arch0(v) not in DEEPSEEK_BRANCH or v.model.is_deepseek_dsa
            or not v.enable_prefill_cp or not v.model.is_mla):
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
    facts=("model.arch0", "model.config", "target.is_sm100"),
    archs=DEEPSEEK_BRANCH,
    sglang="_deepseek_moe_quant_resolution",
)
def deepseek_moe_quant_resolution(v: View) -> Declare | None:
    """DeepSeek on SM10x: the checkpoint's quantization, and trtllm-gen MoE.

    An unset ``--quantization`` (not ``unquant``) takes the checkpoint's method. With fp8,
    ModelOpt FP8/FP4/mixed, Kimi's int4 recipe or bf16, no A2A backend and an automatic
    runner, the MoE runs on ``flashinfer_trtllm`` (not LongCat: its top-k spans zero
    experts the fused routing cannot see). LongCat FP8 without ue8m0 scales runs FP8 GEMMs
    on ``flashinfer_trtllm``. Assumed: a DeepSeek-V3 config without ``quantization_config``
    has no FP8 expert weights (launchplan reads no weight headers), so it stays bf16.
    """
    arch = arch0(v)
    if arch not in DEEPSEEK_BRANCH or not v.target.is_sm100:
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


@rule(
    phase=Phase.MODEL,
    reads=("attn_dp_size", "ep_join_mode", "nnodes"),
    writes=("enable_aiter_allreduce_fusion", "disable_aiter_allreduce_fusion_in_prefill"),
    facts=("model.arch0", "target.is_hip"),
    archs=("GlmMoeDsaForCausalLM",),
    sglang="handle_model_specific_adjustments (GLM-5 DSA aiter all-reduce fusion on ROCm)",
)
def glm_dsa_aiter_allreduce_fusion(v: View) -> dict | None:
    """GLM-5 DSA on one ROCm node without attention DP fuses aiter all-reduce for decode."""
    if (arch0(v) == "GlmMoeDsaForCausalLM" and v.target.is_hip and not attn_dp_enabled(v)
            and v.nnodes == 1):
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
    applies=lambda target, model: model.arch0 in DEEPSEEK_BRANCH and target.is_hip,
)
def deepseek_spec_moe_resolution(v: View) -> dict | Refuse | None:
    """ROCm DeepSeek FP4 checkpoints draft their bf16 NextN layer on triton MoE.

    With ``SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE`` the draft uses deep_gemm over DeepEP, which
    needs expert parallelism.
    """
    if arch0(v) not in DEEPSEEK_BRANCH or not v.target.is_hip:
        return None
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


# --- DeepSeek-V4 validations --------------------------------------------------------------


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


@rule(
    phase=Phase.MODEL,
    reads=("dsv4_attn_backend", "cuda_graph_config", "enable_encoder_swa_bounded_replay",
           "attn_cp_size", "attn_dp_size", "ep_join_mode", "enable_unified_memory",
           "disaggregation_mode", "enable_mixed_chunk", "enable_lora",
           "enable_session_radix_cache", "speculative_algorithm", "enable_hisparse",
           "enable_two_batch_overlap", "pp_size", "enable_prefill_cp", "cp_strategy",
           "disaggregation_transfer_backend", "dcp_size", "tp_size", "moe_a2a_backend",
           "enable_decoder_swa_bounded_replay", "enable_return_hidden_states"),
    writes=("enable_decoder_swa_bounded_replay",),
    facts=("model.arch0", "model.model_type", "target.is_cuda", "target.is_hip",
           "target.is_gfx95"),
    archs=(DSV4_ARCH,),
    sglang="validate_deepseek_v41_features (deepseek_v4_hook.py)",
)
def deepseek_v41_features(v: View) -> dict | Refuse | None:
    """DeepSeek-V4.1's unsupported features, and whether decoder SWA replay is on.

    Encoder SWA bounded replay exists only for V4.1. V4.1 refuses non-DSpark speculation,
    HiSparse, two-batch overlap, pipeline parallelism and, under replay or TRT-LLM, full
    prefill graphs. Unless set, decoder SWA bounded replay is on for CUDA/ROCm without CP,
    hidden-state return or the features it cannot combine with.
    """
    if arch0(v) != DSV4_ARCH:
        return None
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


@rule(
    phase=Phase.MODEL,
    reads=BACKEND_FIELDS + ("enable_prefill_cp", "cp_strategy", "nnodes",
                            "enable_decoder_swa_bounded_replay", "enable_two_batch_overlap",
                            "attn_dp_size", "dp_size", "tp_size", "moe_a2a_backend"),
    writes=("attn_dp_size", "dp_size", "moe_dense_tp_size", "attn_cp_size"),
    facts=("model.arch0", "model.model_type", "target.is_hip"),
    archs=(DSV4_ARCH,),
    triggers=("enable_prefill_cp",),
    sglang="validate_deepseek_v4_cp (deepseek_v4_hook.py)",
)
def deepseek_v4_context_parallel(v: View) -> dict | Refuse | None:
    """DeepSeek-V4 prefill CP: interleave only (zigzag is NPU-only), one TP group of CP.

    Attention DP and dense-MoE TP are 1, attention CP spans the TP group (at most 8 GPUs),
    and only the none/deepep/megamoe/mori A2A backends work. On ROCm both phases must use
    dsv4 and multi-node, V4.1, decoder SWA replay and two-batch overlap are refused.
    """
    if arch0(v) != DSV4_ARCH or not v.enable_prefill_cp:
        return None
    if v.cp_strategy not in ("interleave", "zigzag"):
        return Refuse(f"DeepSeek-V4 prefill CP supports the interleave strategy, not "
                      f"{v.cp_strategy!r}")
    if v.cp_strategy == "zigzag":  # no launchplan target is an Ascend NPU
        return Refuse("DeepSeek-V4 zigzag CP runs on Ascend NPUs only; use interleave")
    if v.target.is_hip:
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
    if attn_dp != 1:
        return Refuse("DeepSeek-V4 prefill CP does not support attention data parallelism")
    if v.tp_size > 8:
        return Refuse("context parallelism runs on one machine only (--tp-size 8 or less)")
    if v.moe_a2a_backend not in ("none", "deepep", "megamoe", "mori"):
        return Refuse("DeepSeek-V4 prefill CP supports the none, deepep, megamoe and mori A2A "
                      f"backends, not {v.moe_a2a_backend}")
    return {"attn_dp_size": attn_dp, "dp_size": 1, "moe_dense_tp_size": 1,
            "attn_cp_size": v.tp_size // attn_dp}


# --- per-architecture backend checks (SGLang asserts) ---------------------------------------


@rule(
    phase=Phase.MODEL,
    reads=BACKEND_FIELDS + ("moe_runner_backend", "ep_size"),
    facts=("model.arch0",),
    archs=gpt_oss.ARCHS,
    sglang="handle_model_specific_adjustments (GptOssForCausalLM asserts)",
)
def gpt_oss_backend_check(v: View) -> Refuse | None:
    """GPT-OSS needs backends with sliding windows and attention sinks, on both sides.

    Accepted: triton, trtllm_mha, fa3, fa4, ascend, intel_amx, intel_xpu, aiter (not
    flashinfer or torch_native). The ``triton_kernel`` MoE runner needs ``--ep-size 1``.
    """
    if arch0(v) not in gpt_oss.ARCHS:
        return None
    prefill, decode = effective_backends(v)
    if prefill not in gpt_oss.SUPPORTED_BACKENDS or decode not in gpt_oss.SUPPORTED_BACKENDS:
        return Refuse(f"GptOssForCausalLM requires one of [{', '.join(gpt_oss.SUPPORTED_BACKENDS)}]"
                      f" attention backends (they implement its sliding windows and sinks); "
                      f"got prefill {prefill}, decode {decode}")
    if v.moe_runner_backend == "triton_kernel" and v.ep_size != 1:
        return Refuse("the triton_kernel MoE runner supports --ep-size 1 only")
    return None


@rule(
    phase=Phase.MODEL,
    reads=("encoder_only", "tp_size", "attn_dp_size", "attn_cp_size"),
    facts=("model.arch0", "model.config"),
    archs=("MiMoV2ForCausalLM",),
    sglang="handle_model_specific_adjustments (MiMoV2 fused-QKV TP check)",
)
def mimo_v2_attention_tp_check(v: View) -> Refuse | None:
    """A MiMo-V2 checkpoint with fused QKV weights fixes the attention TP size.

    Its ``qkv_proj`` is interleaved for TP = ``num_key_value_heads``, so that number must be
    a multiple of the effective attention TP (tp / attention DP / attention CP).
    """
    if arch0(v) != "MiMoV2ForCausalLM" or v.encoder_only:
        return None
    cfg = config(v)
    layout = cfg.get("attention_projection_layout")
    if layout in (None, "split"):
        return None
    if layout != "fused_qkv":
        return Refuse(f"MiMo-V2 attention_projection_layout {layout!r} is not one of "
                      "fused_qkv, split or unset")
    heads = cfg.get("num_key_value_heads")
    sub = cfg.get("text_config")
    if heads is None and isinstance(sub, dict):
        heads = sub.get("num_key_value_heads")
    if heads is None:
        return Refuse("MiMo-V2 with fused_qkv needs num_key_value_heads to size its TP")
    attn_tp = v.tp_size // v.attn_dp_size // v.attn_cp_size
    if heads % attn_tp:
        return Refuse(f"MiMo-V2's fused qkv_proj weights need an effective attention TP that "
                      f"divides {heads}; got {attn_tp} (tp {v.tp_size}, attention DP "
                      f"{v.attn_dp_size}, attention CP {v.attn_cp_size})")
    return None


@rule(
    phase=Phase.MODEL,
    reads=("attention_backend", "device"),
    facts=("model.arch0",),
    archs=llama4.ARCHS,
    sglang="handle_model_specific_adjustments (Llama4 assert)",
)
def llama4_backend_check(v: View) -> Refuse | None:
    """Llama 4 (off CPU) needs a base backend with chunked local attention."""
    if arch0(v) not in llama4.ARCHS or v.device == "cpu":
        return None
    if v.attention_backend not in llama4.SUPPORTED_BACKENDS:
        return Refuse(f"Llama 4 needs one of {', '.join(llama4.SUPPORTED_BACKENDS)} as the "
                      f"attention backend, not {v.attention_backend}")
    return None


# The backends that run Gemma 4's attention (both effective sides are checked).
GEMMA4_BACKENDS = ("trtllm_mha", "triton", "fa4", "ascend", "intel_xpu", "intel_amx", "aiter")


@rule(
    phase=Phase.MODEL,
    reads=BACKEND_FIELDS,
    facts=("model.arch0",),
    archs=gemma4.ARCHS,
    sglang="handle_model_specific_adjustments (Gemma4 assert)",
)
def gemma4_backend_check(v: View) -> Refuse | None:
    """Gemma 4 runs on trtllm_mha, triton, fa4, ascend, intel_xpu, intel_amx or aiter only.

    DiffusionGemma is not checked here.
    """
    if arch0(v) not in gemma4.ARCHS or arch0(v) == "DiffusionGemmaForBlockDiffusion":
        return None
    prefill, decode = effective_backends(v)
    if prefill not in GEMMA4_BACKENDS or decode not in GEMMA4_BACKENDS:
        return Refuse(f"Gemma 4 needs one of {', '.join(GEMMA4_BACKENDS)}; got prefill "
                      f"{prefill}, decode {decode}")
    return None


# The backends that run EXAONE's sliding windows (the base backend is checked).
EXAONE_BACKENDS = ("fa3", "triton", "trtllm_mha")


@rule(
    phase=Phase.MODEL,
    reads=("attention_backend",),
    facts=("model.arch0", "model.config"),
    archs=exaone.ARCHS,
    sglang="handle_model_specific_adjustments (Exaone assert)",
)
def exaone_backend_check(v: View) -> Refuse | None:
    """EXAONE with sliding windows needs fa3, triton or trtllm_mha as the base backend."""
    if arch0(v) not in exaone.ARCHS or exaone.sliding_window_pattern(v) is None:
        return None
    if v.attention_backend not in EXAONE_BACKENDS:
        return Refuse(f"{arch0(v)} needs one of {', '.join(EXAONE_BACKENDS)} as the attention "
                      f"backend, not {v.attention_backend}")
    return None


@rule(
    phase=Phase.MODEL,
    reads=("attention_backend",),
    facts=("model.arch0",),
    archs=("Olmo2ForCausalLM",),
    sglang="handle_model_specific_adjustments (Olmo2 assert)",
)
def olmo2_backend_check(v: View) -> Refuse | None:
    """OLMo 2/3 refuses flashinfer: it is much slower on OLMo 3's sliding windows."""
    if arch0(v) == "Olmo2ForCausalLM" and v.attention_backend == "flashinfer":
        return Refuse("the flashinfer attention backend badly slows OLMo 3 models; choose "
                      "another")
    return None


@rule(
    phase=Phase.MODEL,
    reads=("attention_backend",),
    facts=("model.arch0",),
    archs=("Lfm2ForCausalLM", "Lfm2MoeForCausalLM"),
    sglang="handle_model_specific_adjustments (Lfm2 assert)",
)
def lfm2_backend_check(v: View) -> Refuse | None:
    """LFM2 refuses triton attention: its first layer may not be an attention layer."""
    if arch0(v) in ("Lfm2ForCausalLM", "Lfm2MoeForCausalLM") and v.attention_backend == "triton":
        return Refuse(f"{arch0(v)} does not support the triton attention backend: its first "
                      "layer may not be an attention layer")
    return None


# --- the tail ------------------------------------------------------------------------------


@rule(
    phase=Phase.MODEL,
    reads=_MAMBA_READS,
    writes=("uses_mamba_radix_cache", "mamba_radix_cache_strategy", "disable_overlap_schedule"),
    facts=("model.arch0", "model.model_type", "model.mamba_chunk_size", "model.config"),
    sglang="handle_mamba_radix_cache (after the overrides) + _mamba_radix_cache_resolution",
)
def mamba_radix_cache(v: View) -> Declare | Refuse | None:
    """Hybrid Mamba models keep Mamba state in the radix cache; pick and check the strategy.

    With the radix cache on, ``uses_mamba_radix_cache`` goes on; an ``auto`` strategy
    becomes ``extra_buffer`` when overlap scheduling or pages > 1 are wanted and the model
    (with the triton linear-attention backend) supports it, else ``no_buffer`` with overlap
    off. no_buffer needs page 1 and no trtllm_mha; extra_buffer needs a track interval that
    covers the draft tokens and is a page multiple, and a page that divides the Mamba chunk
    (or the reverse). This runs at step 30 only, before backend page snaps (rules.md C6).
    """
    return _mamba_rule(v)


@rule(
    phase=Phase.MODEL,
    writes=("disable_overlap_schedule",),
    sglang="_sparse_head_overlap_disable",
)
def sparse_head_overlap_disable(v: View) -> Declare | None:
    """An embedding sparse head (``SGLANG_EMBEDDINGS_SPARSE_HEAD``) turns overlap scheduling off."""
    if env_set(v, "SGLANG_EMBEDDINGS_SPARSE_HEAD"):
        return Declare({"disable_overlap_schedule": True},
                       "overlap scheduling is off with an embedding sparse head")
    return None


# Architectures with a FlashInfer all-reduce + norm fusion implemented in the model.
ALLREDUCE_FUSION_ARCHS = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV4ForCausalLM",
    "GptOssForCausalLM", "GlmMoeDsaForCausalLM", "Glm4MoeForCausalLM", "Glm4MoeLiteForCausalLM",
    "MistralLarge3ForCausalLM", "Qwen3MoeForCausalLM", "Qwen3VLMoeForConditionalGeneration",
    "Qwen3NextForCausalLM", "Qwen4ExpForConditionalGeneration",
    "KimiK25ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "Qwen3_5ForConditionalGeneration",
    "NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "NemotronH_Omni_Reasoning_V3",
})
MIMO_ARCHS = frozenset({"MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM"})
# TP sizes the MNNVL CuTeDSL all-reduce fusion supports.
CUTEDSL_FUSION_TP = (2, 4, 8, 16)


@rule(
    phase=Phase.MODEL,
    reads=("tp_size", "attn_cp_size", "encoder_only", "enable_pdmux", "nnodes",
           "disable_custom_all_reduce", "flashinfer_allreduce_fusion_backend", "attn_dp_size",
           "ep_join_mode", "moe_a2a_backend", "dtype"),
    writes=("flashinfer_allreduce_fusion_backend",),
    facts=("model.arch0", "model.model_type", "model.hidden_size", "model.dtype",
           "target.is_sm90", "target.is_sm100", "target.is_blackwell"),
    archs=ALLREDUCE_FUSION_ARCHS | MIMO_ARCHS,
    sglang="_flashinfer_allreduce_fusion_auto_enable",
)
def flashinfer_allreduce_fusion_auto_enable(v: View) -> Declare | None:
    """Supported models fuse the TP all-reduce with the norm on Hopper and SM10x.

    Only with TP > 1, no attention DP, no A2A backend, one node (or SM10x, where MNNVL
    spans nodes) and the backend unset: ``auto``, or ``cutedsl`` for MiMo-V2 (bf16 on SM10x,
    TP 2/4/8/16, no attention CP, not encoder-only or PD-mux). DeepSeek-V4.1 at TP 4 on one
    Blackwell node keeps its custom all-reduce instead.
    """
    arch = arch0(v)
    is_mimo = arch in MIMO_ARCHS
    t = v.target
    if is_mimo and not (t.is_sm100 and model_dtype(v) == "bfloat16"
                        and v.tp_size in CUTEDSL_FUSION_TP and v.attn_cp_size == 1
                        and not v.encoder_only and not v.enable_pdmux):
        return None
    custom_dsv41 = (v.model.model_type == "deepseek_v41" and v.model.hidden_size == 5120
                    and t.is_blackwell and v.tp_size == 4 and v.nnodes == 1
                    and not v.disable_custom_all_reduce)
    if (v.flashinfer_allreduce_fusion_backend is None
            and (is_mimo or arch in ALLREDUCE_FUSION_ARCHS) and not custom_dsv41
            and (t.is_sm90 or t.is_sm100) and v.tp_size > 1 and not attn_dp_enabled(v)
            and (v.nnodes == 1 or t.is_sm100) and v.moe_a2a_backend == "none"):
        backend = "cutedsl" if is_mimo else "auto"
        return Declare({"flashinfer_allreduce_fusion_backend": backend},
                       f"FlashInfer all-reduce fusion ({backend}) enabled for {arch}")
    return None


@rule(
    phase=Phase.MODEL,
    reads=("enforce_disable_flashinfer_allreduce_fusion",),
    writes=("flashinfer_allreduce_fusion_backend",),
    triggers=("enforce_disable_flashinfer_allreduce_fusion",),
    sglang="_enforce_disable_allreduce_fusion",
)
def enforce_disable_allreduce_fusion(v: View) -> dict | None:
    """``--enforce-disable-flashinfer-allreduce-fusion`` wins over every model default."""
    if v.enforce_disable_flashinfer_allreduce_fusion:
        return {"flashinfer_allreduce_fusion_backend": None}
    return None


@rule(
    phase=Phase.MODEL,
    reads=("prefill_decode_interval",),
    writes=("prefill_decode_interval",),
    sglang="default_unset_prefill_decode_interval",
)
def prefill_decode_interval_default(v: View) -> dict | None:
    """An unset prefill/decode interval is 0 (off), after Qwen3-VL Hopper could pick 22."""
    if v.prefill_decode_interval is None:
        return {"prefill_decode_interval": 0}
    return None
