"""Model-specific adjustments that belong to no one family, around the model-override batch.

What ``handle_model_specific_adjustments`` does across families, in SGLang's order: the
deterministic fusion switch and the ``uses_mamba_radix_cache`` baseline; architecture
constraints; the hybrid-Mamba pass for linear-attention specs; (the override batch, then
the per-family passes: Kimi, GLM-5-Next, DeepSeek-V4, the DeepSeek/DSA branch and the
per-architecture backend checks live beside their providers in ``rules/model_overrides``);
the hybrid-Mamba pass again; the sparse-head overlap pass; the all-reduce fusion passes; and
the prefill/decode interval default.

Also here: the quantization check SGLang makes when it first builds the model config.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from launchplan.engine.declarations import Declare, Refuse, arithmetic_refusal
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts.quantization import quantization_verdict
from launchplan.rules.model_overrides import (
    arch0,
    attn_dp_enabled,
    dp_attention_switch_0_5_21,
    env_set,
    model_dtype,
)
from launchplan.rules.model_overrides.granitemoehybrid import has_mamba_layers

# --- the model config is built (step 22): quantization verification ----------------------


#: The ``--quantization`` methods that are ModelOpt recipes (what quantize-and-serve runs).
MODELOPT_QUANTIZATIONS = ("modelopt", "modelopt_fp8", "modelopt_fp4", "nvfp4_online",
                          "modelopt_mixed")


@rule(
    phase=Phase.GRAPH_DEFAULTS,
    reads=("quantize_and_serve", "quantization"),
    sglang="ModelConfig._validate_quantize_and_serve_config (first model_config_of, step 22)",
    triggers=("quantize_and_serve",),
)
def quantize_and_serve_check(v: View) -> Refuse | None:
    """Quantize-and-serve is switched off in these releases, whatever it is combined with.

    When: ``--quantize-and-serve`` is on.
    Effect: refuses it: without a ModelOpt ``--quantization`` (modelopt, modelopt_fp8,
        modelopt_fp4, nvfp4_online, modelopt_mixed) for want of one, and with one because
        the path is disabled (quantize and export first, then serve the export).
    Why: the model config validates it first thing when it is built, before it reads the
        checkpoint (``ModelConfig._validate_quantize_and_serve_config``, 0.5.21-0.5.23).
    Assumes: nothing.
    """
    if not v.quantize_and_serve:
        return None
    if v.quantization not in MODELOPT_QUANTIZATIONS:
        return Refuse("--quantize-and-serve needs a ModelOpt --quantization (one of "
                      f"{', '.join(MODELOPT_QUANTIZATIONS)}); got {v.quantization}")
    return Refuse("--quantize-and-serve is disabled in this SGLang release: quantize and export "
                  "the model with ModelOpt first, then serve the exported checkpoint")


def _untrusted_remote_code(v: View) -> Refuse | None:
    model = v.model
    if model.model_type_known or not model.has_remote_code or v.trust_remote_code:
        return None
    return Refuse(f"the checkpoint's config class (model_type {model.model_type!r}) is defined "
                  "by code in its repository, which runs only with --trust-remote-code")


_REMOTE_CODE = dict(
    reads=("trust_remote_code",),
    facts=("model.model_type_known", "model.has_remote_code", "model.model_type"),
)


@rule(
    phase=Phase.BOOTSTRAP,
    **_REMOTE_CODE,
    sglang="apply_muse_spark_env_defaults: get_config, AutoConfig.from_pretrained",
)
def remote_code_needs_trust(v: View) -> Refuse | None:
    """A checkpoint whose config class only its own code defines needs --trust-remote-code.

    When: the config's ``model_type`` is one neither transformers nor SGLang registers and
        its ``auto_map`` names the checkpoint's configuration code (DeciLM's ``nemotron-nas``,
        Llama-3.3-Nemotron-Super-49B), and ``--trust-remote-code`` is off.
    Effect: refuses, right after the model-independent checks: before the multimodal, PD and
        decode-CP checks (a ``--dcp-size 0`` launch of such a checkpoint meets this first).
        With the flag the config is read as given (launchplan reads the JSON only, never
        runs that code, and says so in the model's caveats).
    Why: transformers' ``AutoConfig.from_pretrained`` refuses to run a repository's own code
        unless trusted, and SGLang 0.5.23 first reads the config there, for every launch, to
        apply Muse Spark's environment defaults (``apply_muse_spark_env_defaults``).
    Assumes: nothing.
    """
    return _untrusted_remote_code(v)


@rule(
    phase=Phase.GRAPH_DEFAULTS,
    **_REMOTE_CODE,
    sglang="get_config: AutoConfig.from_pretrained (first model_config_of, step 22; "
    "0.5.21-0.5.22)",
)
def remote_code_needs_trust_at_model_config(v: View) -> Refuse | None:
    """Before 0.5.23 the remote-code refusal comes where the model config is first built.

    When: as ``remote_code_needs_trust`` (SGLang 0.5.21 and 0.5.22).
    Effect: as ``remote_code_needs_trust``, after the PD and decode-CP checks.
    Why: those releases read no model config before the model config is first built, ahead
        of the context length (no Muse Spark environment step).
    Assumes: nothing.
    """
    return _untrusted_remote_code(v)


@rule(
    phase=Phase.GRAPH_DEFAULTS,
    reads=("quantization",),
    facts=("model.quant_config", "target.vendor", "target.gfx", "target.sm"),
    sglang="ModelConfig._verify_quantization (first model_config_of, step 22)",
)
def model_quantization_check(v: View) -> Declare | Refuse | None:
    """The checkpoint's quantization must be one this platform registers and can serve.

    When: whenever its promises hold (SGLang checks it when it first builds the model config).
    Effect: refuses a checkpoint method the platform does not register or serve (``mxfp4`` is
        registered on NVIDIA and on ROCm gfx95 only, so GPT-OSS is refused on an MI300X (gfx942);
        ROCm allows only its own list), and a ``--quantization`` that contradicts the checkpoint
        unless the pair is compatible or a requantization; otherwise notes any warnings.
    Why: ``ModelConfig._verify_quantization`` (configs/model_config.py) runs this check when the
        model config is first built.
    Assumes: nothing.
    """
    verdict = quantization_verdict(v.model, v.quantization, v.target)
    if verdict is None:
        return None
    refusal, warnings = verdict
    if refusal is not None:
        return Refuse(refusal)
    return Declare({}, warnings)




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

    When: ``--enable-deterministic-inference`` is on.
    Effect: ``enforce_disable_flashinfer_allreduce_fusion`` = true.
    Why: the fused all-reduce kernels do not reduce in a fixed order, so results would vary with
        batch composition (``handle_model_specific_adjustments``, arg_groups/model_hook.py).
    Assumes: nothing.
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
    """No Mamba radix cache unless a hybrid-Mamba pass below turns it on.

    When: whenever its promises hold (every model).
    Effect: ``uses_mamba_radix_cache`` = false, as the baseline later passes override.
    Why: ``handle_model_specific_adjustments`` (arg_groups/model_hook.py) sets this baseline
        before the hybrid-Mamba passes.
    Assumes: nothing.
    """
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

    When: ``--pp-size``, ``--ep-size``, ``--enable-dsa-cache-layer-split`` or
        ``--enable-cp-decode-attn-tp`` is given.
    Effect: refuses pipeline or expert parallelism for Intern-S2 Mobius, the DSA cache layer
        split on a non-DSA model, and CP decode attention-TP on an architecture without
        replicated attention linears (naming the supported ones).
    Why: CP decode attention-TP needs attention linears replicated across CP ranks (DeepSeek-V4,
        GLM-5 DSA) (architecture constraints in ``handle_model_specific_adjustments``,
        arg_groups/model_hook.py).
    Assumes: no ``decision_config.json`` beside the checkpoint (launchplan reads ``config.json``
        only), so the noncausal decision-readout case never applies.
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
        try:  # SGLang takes the modulo unchecked: a page size of 0 stops it here
            off_page = interval % page
        except ZeroDivisionError as exc:
            return arithmetic_refusal(f"--mamba-track-interval {interval} over page size "
                                      f"{page}", exc).message
        if off_page:
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

    When: the model matches a linear-attention registry spec (by architecture or model_type)
        that asks for the Mamba radix cache.
    Effect: the same decision and refusals as ``mamba_radix_cache``, before the override batch.
    Why: SGLang runs ``handle_mamba_radix_cache`` (arg_groups/model_hook.py) for linear-attention
        specs before the model overrides.
    Assumes: nothing.
    """
    spec = linear_attn_spec(v)
    if spec is None or not spec[0]:
        return None
    return _mamba_rule(v)


# --- after the override batch and the family passes -----------------------------------------


@rule(
    phase=Phase.MODEL,
    reads=_MAMBA_READS,
    writes=("uses_mamba_radix_cache", "mamba_radix_cache_strategy", "disable_overlap_schedule"),
    facts=("model.arch0", "model.model_type", "model.mamba_chunk_size", "model.config"),
    sglang="handle_mamba_radix_cache (after the overrides) + _mamba_radix_cache_resolution",
)
def mamba_radix_cache(v: View) -> Declare | Refuse | None:
    """Hybrid Mamba models keep Mamba state in the radix cache; pick and check the strategy.

    When: the model keeps Mamba state (a listed hybrid, Granite with Mamba layers, or a spec) and
        the radix cache is on; the validators run for every model.
    Effect: ``uses_mamba_radix_cache`` = true; an ``auto`` ``mamba_radix_cache_strategy`` becomes
        ``extra_buffer`` when overlap scheduling or pages > 1 are wanted and the model (with the
        triton linear-attention backend) supports it, else ``no_buffer`` with
        ``disable_overlap_schedule`` = true. Refuses no_buffer with pages > 1, overlap or
        trtllm_mha; extra_buffer on an unsupported model, lazy under PD, a track interval below
        the draft tokens or not a page multiple (a page size of 0 fails SGLang's modulo), or a
        page and Mamba chunk that do not divide.
    Why: ``handle_mamba_radix_cache`` and ``_mamba_radix_cache_resolution`` pick the strategy;
        the validators in arg_groups/mamba_hook.py state each strategy's limits. This runs at
        step 30 only, before backend page snaps (rules.md C6).
    Assumes: nothing.
    """
    return _mamba_rule(v)


@rule(
    phase=Phase.MODEL,
    writes=("disable_overlap_schedule",),
    sglang="_sparse_head_overlap_disable",
)
def sparse_head_overlap_disable(v: View) -> Declare | None:
    """An embedding sparse head (``SGLANG_EMBEDDINGS_SPARSE_HEAD``) turns overlap scheduling off.

    When: the environment sets ``SGLANG_EMBEDDINGS_SPARSE_HEAD`` (to anything).
    Effect: ``disable_overlap_schedule`` = true, with a note.
    Why: SGLang does not run the overlap scheduler with an embedding sparse head
        (``_sparse_head_overlap_disable``, arg_groups/overrides.py).
    Assumes: the variable is unset unless the given environment sets it.
    """
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


_FUSION = dict(
    phase=Phase.MODEL,
    reads=("tp_size", "attn_cp_size", "encoder_only", "enable_pdmux", "nnodes",
           "disable_custom_all_reduce", "flashinfer_allreduce_fusion_backend", "attn_dp_size",
           "ep_join_mode", "moe_a2a_backend", "dtype"),
    writes=("flashinfer_allreduce_fusion_backend",),
    facts=("model.arch0", "model.model_type", "model.hidden_size", "model.dtype",
           "model.is_deepseek_dsa", "target.is_sm90", "target.is_sm100",
           "target.is_blackwell"),
    archs=ALLREDUCE_FUSION_ARCHS | MIMO_ARCHS,
)


@rule(**_FUSION, sglang="_flashinfer_allreduce_fusion_auto_enable")
def flashinfer_allreduce_fusion_auto_enable(v: View) -> Declare | None:
    """Supported models fuse the TP all-reduce with the norm on Hopper and SM10x.

    When: TP > 1, no attention DP, no A2A backend, one node (or SM10x, where MNNVL spans nodes),
        the backend unset, on SM90 or SM10x; MiMo-V2 also needs bf16 on SM10x, TP 2/4/8/16, no
        attention CP, not encoder-only or PD-mux.
    Effect: ``flashinfer_allreduce_fusion_backend`` = ``auto``, or ``cutedsl`` for MiMo-V2, with a
        note. DeepSeek-V4.1 at TP 4 on one Blackwell node keeps its custom all-reduce instead.
    Why: these architectures implement the FlashInfer all-reduce + norm fusion in the model
        (``_flashinfer_allreduce_fusion_auto_enable``, arg_groups/overrides.py).
    Assumes: nothing.
    """
    return _fusion(v, attn_dp_enabled)


def _fusion(v: View, attn_dp: Callable[[Any], bool]) -> Declare | None:
    """The auto-enable, with ``attn_dp`` the release's test of attention DP."""
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
            and not custom_dsv41
            and (t.is_sm90 or t.is_sm100) and v.tp_size > 1 and not attn_dp(v)
            and (v.nnodes == 1 or t.is_sm100) and v.moe_a2a_backend == "none"):
        backend = "cutedsl" if is_mimo else "auto"
        return Declare({"flashinfer_allreduce_fusion_backend": backend},
                       f"FlashInfer all-reduce fusion ({backend}) enabled for {arch}")
    return None


@rule(name="flashinfer_allreduce_fusion_auto_enable", variant="0.5.22", **_FUSION,
      sglang="_flashinfer_allreduce_fusion_auto_enable (0.5.22)")
def flashinfer_allreduce_fusion_auto_enable_0_5_22(v: View) -> Declare | None:
    """0.5.22: as the current rule, without MiMo-V2.

    When: as ``flashinfer_allreduce_fusion_auto_enable``.
    Effect: as ``flashinfer_allreduce_fusion_auto_enable``; MiMo-V2 keeps the backend unset.
    Why: MiMo-V2's CuTeDSL fusion default came in 0.5.23; 0.5.22's list of fused
        architectures has no MiMo (``_flashinfer_allreduce_fusion_auto_enable``).
    Assumes: nothing.
    """
    if arch0(v) in MIMO_ARCHS:
        return None
    return _fusion(v, attn_dp_enabled)


@rule(name="flashinfer_allreduce_fusion_auto_enable", variant="0.5.21",
      **{**_FUSION, "reads": _FUSION["reads"] + ("enable_dp_attention",)},
      sglang="_flashinfer_allreduce_fusion_auto_enable (0.5.21)")
def flashinfer_allreduce_fusion_auto_enable_0_5_21(v: View) -> Declare | None:
    """0.5.21: as the 0.5.22 variant, with attention DP read from 0.5.21's switch.

    When: as ``flashinfer_allreduce_fusion_auto_enable``.
    Effect: as the 0.5.22 variant (no MiMo-V2), but ``--enable-dp-attention`` keeps the backend
        unset with one DP group too, and so does a prefill-CP layout of DSA, MLA or
        DeepSeek-V4 (whose 0.5.21 overrides turn the switch on); a scale-up joiner without the
        switch does not.
    Why: 0.5.21 tests ``enable_dp_attention``, which it clears with one DP group only later,
        in ``handle_data_parallelism``.
    Assumes: nothing.
    """
    if arch0(v) in MIMO_ARCHS:
        return None
    return _fusion(v, dp_attention_switch_0_5_21)


@rule(
    phase=Phase.MODEL,
    reads=("enforce_disable_flashinfer_allreduce_fusion",),
    writes=("flashinfer_allreduce_fusion_backend",),
    triggers=("enforce_disable_flashinfer_allreduce_fusion",),
    sglang="_enforce_disable_allreduce_fusion",
)
def enforce_disable_allreduce_fusion(v: View) -> dict | None:
    """``--enforce-disable-flashinfer-allreduce-fusion`` wins over every model default.

    When: ``enforce_disable_flashinfer_allreduce_fusion`` is on (given, or set by deterministic
        inference).
    Effect: ``flashinfer_allreduce_fusion_backend`` = None.
    Why: ``_enforce_disable_allreduce_fusion`` (arg_groups/overrides.py) runs after the model
        defaults that could enable it.
    Assumes: nothing.
    """
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
    """An unset prefill/decode interval is 0 (off), after Qwen3-VL Hopper could pick 22.

    When: ``--prefill-decode-interval`` is unset.
    Effect: ``prefill_decode_interval`` = 0.
    Why: ``default_unset_prefill_decode_interval`` (arg_groups/validation_hook.py) fills it after
        the model overrides, so a model's own default wins.
    Assumes: nothing.
    """
    if v.prefill_decode_interval is None:
        return {"prefill_decode_interval": 0}
    return None
