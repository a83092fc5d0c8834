"""DeepGEMM MegaMoE (SGLang's ``handle_mega_moe``, the first hook after the DP-attention alias).

``--moe-runner-backend megamoe`` is a spelling of the MegaMoE all-to-all backend; the backend
fuses dispatch, experts and combine into one DeepGEMM kernel over CUDA symmetric memory, which
exists for Hopper (block-FP8 experts) and the SM100 family (MXFP4/NVFP4 experts) only, and has
no split for two- or single-batch overlap.
"""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse, arithmetic_refusal
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts import environment
from launchplan.facts.quantization import hybrid_nvfp4_experts
from launchplan.rules.graph_config import DECODE
from launchplan.rules.parallel import attn_dp_enabled


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("moe_runner_backend", "moe_a2a_backend"),
    writes=("moe_runner_backend", "moe_a2a_backend"),
    sglang="handle_moe_runner_backend_alias (mega_moe_hook.py)",
    triggers={"moe_runner_backend": ("megamoe",)},
)
def megamoe_runner_alias(v: View) -> Declare | None:
    """The ``megamoe`` MoE runner names the MegaMoE A2A backend: runner auto, A2A megamoe.

    When: whenever its promises hold (``moe_runner_backend`` megamoe).
    Effect: declares ``moe_runner_backend`` auto and ``moe_a2a_backend`` megamoe, replacing any
        other A2A backend the user chose (the note names it).
    Why: MegaMoE is dispatch, experts and combine in one kernel, so the runner flag is a
        spelling of the A2A backend (``handle_moe_runner_backend_alias`` in
        ``mega_moe_hook.py``).
    Assumes: nothing.
    """
    note = ("--moe-runner-backend megamoe means --moe-a2a-backend megamoe"
            + (f" (was {v.moe_a2a_backend})" if v.moe_a2a_backend not in ("none", "megamoe")
               else ""))
    return Declare({"moe_runner_backend": "auto", "moe_a2a_backend": "megamoe"}, note)


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("moe_a2a_backend", "enable_two_batch_overlap", "enable_single_batch_overlap"),
    facts=("target.is_cuda", "target.is_sm90", "target.is_sm100", "target.is_hip", "target.sm"),
    sglang="check_mega_moe_compat (mega_moe_hook.py)",
    triggers={"moe_a2a_backend": ("megamoe",)},
)
def megamoe_compat(v: View) -> Refuse | None:
    """MegaMoE needs a Hopper or SM100-family GPU (or ROCm's own kernel) and no TBO/SBO.

    When: whenever its promises hold (``moe_a2a_backend`` megamoe).
    Effect: refuses two- or single-batch overlap, and a GPU that is neither CUDA SM90/SM10x nor
        ROCm.
    Why: the fused kernel has no dispatch/combine split for batch overlap, and DeepGEMM's
        MegaMoE kernels exist for SM90 and SM10x only; on ROCm an aiter kernel stands in
        (``check_mega_moe_compat`` in ``mega_moe_hook.py``).
    Assumes: the CUDA toolkit is recent enough for the GPU (12.3+ on SM90, 12.8+ on SM10x).
    """
    if v.enable_two_batch_overlap or v.enable_single_batch_overlap:
        return Refuse("--moe-a2a-backend megamoe cannot run with two- or single-batch overlap")
    t = v.target
    if not ((t.is_cuda and (t.is_sm90 or t.is_sm100)) or t.is_hip):
        return Refuse("--moe-a2a-backend megamoe needs an SM90 (Hopper) or SM100-family GPU "
                      f"(or ROCm); this target is SM{t.sm}")
    return None


# MoE blocks that have no fused-MoE fallback under MegaMoE (SGLang 0.5.23, mega_moe_hook.py):
# every token must fit MegaMoE's per-rank buffer.
NO_FALLBACK_ARCHS = frozenset({
    "DeepseekV4ForCausalLM", "InternS2PreviewForConditionalGeneration", "MellumForCausalLM",
    "Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM", "Qwen3NextForCausalLM",
    "Qwen3VLMoeForConditionalGeneration", "Qwen3_5MoeForCausalLM",
    "Qwen3_5MoeForConditionalGeneration"})
TOKENS_ENV = "SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK"


def _needs_budget(v: View) -> bool:
    """No fallback architecture, or NVFP4 experts repacked into MegaMoE's layout at load.

    SGLang reads NVFP4 from the ``--quantization`` given or from ``config.json``'s own
    ``quantization_config`` (the model config's ``hf_quant_config``), not from a checkpoint's
    separate ``hf_quant_config.json``: a ModelOpt NVFP4 checkpoint described only there
    (nvidia/DeepSeek-V3-0324-NVFP4) gets no budget check, as SGLang resolves it."""
    qc = v.model.quantization_config or {}
    algo = str(qc.get("quant_algo", "")) if hasattr(qc, "get") else ""
    return (v.model.arch0 in NO_FALLBACK_ARCHS
            or v.quantization in ("modelopt_fp4", "minimax_m3_nvfp4") or "FP4" in algo)


_BUDGET = dict(
    phase=Phase.SPECULATIVE,
    reads=("moe_a2a_backend", "encoder_only", "disaggregation_mode", "cuda_graph_config",
           "max_running_requests", "attn_dp_size", "ep_join_mode", "tp_size", "attn_cp_size",
           "speculative_algorithm", "speculative_num_draft_tokens", "pp_size",
           "enable_dynamic_chunking", "chunked_prefill_size", "enable_prefill_cp",
           "quantization", "speculative_eagle_topk"),
    facts=("model.arch0", "model.quantization_config", "target.is_hip"),
    triggers={"moe_a2a_backend": ("megamoe",)},
)

#: ROCm's FlyDSL MegaMoE switch and its two per-rank token capacities (0.5.23).
FLYDSL_ENV = "SGLANG_AMD_USE_FLYDSL_MEGA_MOE"
FLYDSL_MTPR_ENV = "SGLANG_AMD_FLYDSL_MEGA_MOE_MTPR"
FLYDSL_DECODE_MTPR_ENV = "SGLANG_AMD_FLYDSL_MEGA_MOE_DECODE_MTPR"


@rule(**_BUDGET, sglang="validate_mega_moe_token_budget_for_model (mega_moe_hook.py)")
def megamoe_token_budget(v: View) -> Refuse | None:
    """Without a fallback, MegaMoE's per-rank buffer must hold the largest decode and prefill.

    When: not on an encoder-only server; on CUDA, for the no-fallback MoE architectures
        (Qwen2/3/3.5 MoE, Qwen3-Next, DeepSeek-V4, ...) or NVFP4 experts; on ROCm, with
        FlyDSL's separate decode capacity.
    Effect: refuses when the decode graph's max batch (capped by the per-DP-rank requests,
        rounded up to attention-TP) x draft tokens, or the prefill chunk per prefill-CP rank,
        per DP rank or whole (rounded up to the attention-TP size), exceeds the capacity;
        refuses chunked prefill off (unless PP dynamic chunking) and an empty per-rank chunk.
        On ROCm under SGLANG_AMD_USE_FLYDSL_MEGA_MOE with a separate decode capacity
        (SGLANG_AMD_FLYDSL_MEGA_MOE_DECODE_MTPR above 0, below ..._MTPR), off PD prefill:
        refuses attention CP, no --max-running-requests, and running requests per attention-DP
        rank x max(draft tokens, top-k) above that capacity.
    Why: the fused kernel's symmetric-memory buffer is sized per rank at start-up
        (``validate_mega_moe_token_budget_for_model`` in ``mega_moe_hook.py``; FlyDSL's
        decode buffer in ``validate_flydsl_decode_capacity``).
    Assumes: SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK is 8192, the FlyDSL switch
        off, its capacities 8192 and 0, unless the environment given sets them.
    """
    if not v.encoder_only:
        refused = _flydsl_decode_capacity(v)
        if refused is not None:
            return refused
    return _token_budget(v, newer=True)


def _flydsl_decode_capacity(v: View) -> Refuse | None:
    """ROCm FlyDSL MegaMoE with its own decode capacity: the largest decode step must fit."""
    if not (v.target.is_hip and v.record.env_flag(FLYDSL_ENV)):
        return None
    decode = environment.value(v.env, FLYDSL_DECODE_MTPR_ENV)
    if decode <= 0 or decode >= environment.value(v.env, FLYDSL_MTPR_ENV):
        return None  # one merged capacity (or off)
    if v.disaggregation_mode == "prefill":
        return None
    if v.attn_cp_size > 1:
        return Refuse(f"{FLYDSL_DECODE_MTPR_ENV} does not run with attention context "
                      "parallelism (--attn-cp-size above 1)")
    if v.max_running_requests is None:
        return Refuse(f"{FLYDSL_DECODE_MTPR_ENV} needs --max-running-requests to bound a "
                      "rank's largest decode step")
    requests = v.max_running_requests
    if attn_dp_enabled(v):
        requests //= v.attn_dp_size
    per_request = max(v.speculative_num_draft_tokens or 1, v.speculative_eagle_topk or 1) \
        if v.speculative_algorithm else 1
    if requests * per_request > decode:
        return Refuse(f"{FLYDSL_DECODE_MTPR_ENV}={decode} is below a rank's largest decode "
                      f"step ({requests} requests x {per_request} tokens); raise it or lower "
                      "--max-running-requests")
    return None


def _token_budget(v: View, *, newer: bool) -> Refuse | None:
    """``newer`` False: 0.5.21-0.5.22, which check encoder-only servers too and size the
    decode forward by the graph's max batch alone.

    SGLang divides by the attention widths here without checking them: an attention CP width
    of 0 (checked nowhere before) stops its resolution, and launchplan's in the same place.
    """
    try:
        return _budget_checks(v, newer=newer)
    except ZeroDivisionError as exc:
        return arithmetic_refusal(f"MegaMoE's per-rank token budget (tp_size {v.tp_size}, "
                                  f"attn_dp_size {v.attn_dp_size}, attn_cp_size "
                                  f"{v.attn_cp_size})", exc)


def _budget_checks(v: View, *, newer: bool) -> Refuse | None:
    if (newer and v.encoder_only) or v.target.is_hip or not _needs_budget(v):
        return None
    capacity = environment.value(v.env, TOKENS_ENV)
    label = v.model.arch0
    attn_dp = attn_dp_enabled(v)
    if v.disaggregation_mode != "prefill":
        decode_bs = v.cuda_graph_config[DECODE]["max_bs"] or 0
        if newer and v.max_running_requests is not None:
            rounding = v.tp_size // v.attn_dp_size
            per_rank = -(-(v.max_running_requests // v.attn_dp_size) // rounding) * rounding
            decode_bs = min(decode_bs, per_rank)
        per_request = (v.speculative_num_draft_tokens or 1) if v.speculative_algorithm else 1
        if decode_bs * per_request > capacity:
            return Refuse(f"{label} with MegaMoE: the largest decode forward has "
                          f"{decode_bs * per_request} tokens per rank, above "
                          f"{TOKENS_ENV}={capacity}")
    if v.disaggregation_mode == "decode" or (v.pp_size > 1 and v.enable_dynamic_chunking):
        return None
    chunk = v.chunked_prefill_size
    if chunk is None or chunk <= 0:
        return Refuse(f"{label} with MegaMoE needs chunked prefill (a positive "
                      "--chunked-prefill-size) to bound each rank's prefill tokens")
    if v.enable_prefill_cp:
        alignment, local = 1, -(-chunk // v.attn_cp_size)
    elif attn_dp:
        alignment = max(v.tp_size // v.attn_dp_size // v.attn_cp_size, 1)
        local = chunk // v.attn_dp_size
    else:
        alignment, local = max(v.tp_size // v.attn_cp_size, 1), chunk
    if local <= 0:
        return Refuse(f"{label} with MegaMoE needs a positive per-rank prefill chunk; "
                      f"--chunked-prefill-size {chunk} is split to {local}")
    required = -(-local // alignment) * alignment
    if required > capacity:
        return Refuse(f"{label} with MegaMoE: each rank's prefill chunk is {required} tokens, "
                      f"above {TOKENS_ENV}={capacity}; raise it or lower "
                      "--chunked-prefill-size")
    return None




# Architectures FlashInfer MegaMoE is validated for (SGLang 0.5.23, any of the config's).
FLASHINFER_MEGAMOE_ARCHS = frozenset({
    "BeamForCausalLM", "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM",
    "DeepseekV32ForCausalLM", "DeepseekV4ForCausalLM", "Glm4MoeForCausalLM",
    "GlmMoeDsaForCausalLM", "NemotronHForCausalLM", "NemotronHPuzzleForCausalLM",
    "Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM", "KimiK3ForConditionalGeneration",
    "KimiK3LinearForCausalLM"})
# 0.5.21-0.5.22's list: Beam and Kimi-K3 came in 0.5.23.
FLASHINFER_MEGAMOE_ARCHS_0_5_22 = FLASHINFER_MEGAMOE_ARCHS - {
    "BeamForCausalLM", "KimiK3ForConditionalGeneration", "KimiK3LinearForCausalLM"}
W4A16_ENV = "SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16"
COMBINE_ENV = "SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE"
FC2_REDUCE_ENV = "SGLANG_FLASHINFER_MEGAMOE_IN_KERNEL_FC2_REDUCE"


def _fp4_experts(v: View) -> bool:
    """FP4 routed experts as the checkpoint declares them: an MXFP4 routed-expert method,
    MiMo-V2's mxfp4 store dtype, a hybrid FP8+NVFP4 MoE layout, or DeepSeek-V4 with
    SGLANG_DSV4_FP4_EXPERTS (launchplan reads no weights, so V4's auto-detection is not
    modelled)."""
    qc = v.model.quant_config or {}
    if qc.get("routed_experts_quant_method") == "mxfp4":
        return True
    if v.model.arch0 in ("MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM") \
            and str(qc.get("store_dtype") or "").lower() == "mxfp4":
        return True
    if hybrid_nvfp4_experts(v.model):
        return True
    return v.model.arch0 == "DeepseekV4ForCausalLM" and v.record.env_flag(
        "SGLANG_DSV4_FP4_EXPERTS")


_MEGAMOE = dict(
    phase=Phase.MOE,
    reads=("moe_a2a_backend", "quantization", "attn_dp_size", "ep_join_mode", "tp_size",
           "moe_runner_backend", "dtype"),
    writes=("moe_runner_backend",),
    facts=("model.architectures", "model.arch0", "model.quant_config",
           "model.quantization_config", "model.dtype", "target.is_sm100"),
    triggers={"moe_a2a_backend": ("flashinfer_megamoe",)},
)


@rule(**_MEGAMOE, sglang="handle_a2a_moe (flashinfer_megamoe, moe_hook.py)")
def a2a_flashinfer_megamoe_checks(v: View) -> Declare | Refuse | None:
    """FlashInfer MegaMoE: validated MoE models, FP4/MXFP8 experts, attention DP = TP, SM100.

    When: whenever its promises hold (``moe_a2a_backend`` flashinfer_megamoe).
    Effect: refuses an architecture outside the validated list; weights other than MXFP8,
        ModelOpt NVFP4, FP4 experts or hybrid NVFP4 MoE (nvfp4_online only with the W4A16
        switch, which also needs --dtype bfloat16 and a bf16 combine); a bad combine dtype;
        ``attn_dp_size`` other than ``tp_size``; another runner; a non-SM100 GPU. An auto
        ``moe_runner_backend`` becomes flashinfer_megamoe.
    Why: the fused dispatch-experts-combine kernel exists for SM100-family GPUs and those
        weight formats, and every rank must own its tokens (``handle_a2a_moe`` in
        ``moe_hook.py``).
    Assumes: the SGLANG_FLASHINFER_* switches are unset unless the environment given sets them;
        DeepSeek-V4's FP4-expert auto-detection reads weights and is not modelled (only
        SGLANG_DSV4_FP4_EXPERTS counts).
    """
    return _megamoe(v, FLASHINFER_MEGAMOE_ARCHS, w4a16_path=True)


def _megamoe(v: View, archs: frozenset[str], *, w4a16_path: bool) -> Declare | Refuse | None:
    if not any(a in archs for a in v.model.architectures):
        return Refuse(f"FlashInfer MegaMoE is not validated for {v.model.arch0}")
    w4a16 = w4a16_path and v.record.env_flag(W4A16_ENV)
    if not (v.quantization in ("mxfp8", "modelopt_fp4")
            or (v.quantization == "nvfp4_online" and w4a16) or _fp4_experts(v)):
        return Refuse("FlashInfer MegaMoE needs MXFP8, ModelOpt NVFP4, FP4-expert or hybrid "
                      f"NVFP4 MoE weights; got quantization {v.quantization}")
    combine = v.record.env.get(COMBINE_ENV, "bf16").strip().lower()
    if w4a16 and combine != "bf16":
        return Refuse(f"FlashInfer MegaMoE NVFP4 W4A16 needs {COMBINE_ENV}=bf16")
    if combine not in ("bf16", "mxfp8", "nvfp4"):
        return Refuse(f"{COMBINE_ENV} must be bf16, mxfp8 or nvfp4; got {combine!r}")
    if combine != "bf16" and v.record.env_flag(FC2_REDUCE_ENV):
        return Refuse(f"{COMBINE_ENV}={combine} cannot be combined with {FC2_REDUCE_ENV}=1")
    if w4a16 and (v.model.dtype if v.dtype == "auto" else v.dtype) != "bfloat16":
        return Refuse("FlashInfer MegaMoE NVFP4 W4A16 needs --dtype bfloat16")
    attn_dp = attn_dp_enabled(v)
    if not (attn_dp and v.attn_dp_size == v.tp_size):
        return Refuse("FlashInfer MegaMoE needs --attn-dp-size equal to --tp-size")
    runner = v.moe_runner_backend
    out = {}
    if runner == "auto":
        runner = out["moe_runner_backend"] = "flashinfer_megamoe"
    if runner != "flashinfer_megamoe":
        return Refuse("the flashinfer_megamoe A2A backend needs --moe-runner-backend "
                      f"flashinfer_megamoe, not {runner}")
    if not v.target.is_sm100:
        return Refuse("FlashInfer MegaMoE needs an SM100-family GPU (B200/GB200/B300)")
    return Declare(out, "FlashInfer MegaMoE: flashinfer_megamoe MoE runner") if out else None


@rule(name="a2a_flashinfer_megamoe_checks", variant="0.5.22", **_MEGAMOE,
      sglang="handle_a2a_moe (flashinfer_megamoe, 0.5.21-0.5.22)")
def a2a_flashinfer_megamoe_checks_0_5_22(v: View) -> Declare | Refuse | None:
    """0.5.21-0.5.22: as ``a2a_flashinfer_megamoe_checks``, without Beam, Kimi-K3 or W4A16.

    When: as ``a2a_flashinfer_megamoe_checks``.
    Effect: as ``a2a_flashinfer_megamoe_checks``, but Beam and Kimi-K3 (and its linear variant)
        are not validated architectures, and ``nvfp4_online`` weights are refused whatever
        SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16 says (nor does the switch ask for bf16).
    Why: 0.5.23 validated those models and added the NVFP4 W4A16 path
        (``validate_flashinfer_megamoe_model`` in 0.5.22).
    Assumes: as ``a2a_flashinfer_megamoe_checks``.
    """
    return _megamoe(v, FLASHINFER_MEGAMOE_ARCHS_0_5_22, w4a16_path=False)


@rule(name="megamoe_token_budget", variant="0.5.22", **_BUDGET,
      sglang="validate_mega_moe_token_budget_for_model (0.5.21-0.5.22)")
def megamoe_token_budget_0_5_22(v: View) -> Refuse | None:
    """0.5.21-0.5.22: as ``megamoe_token_budget``, on encoder-only servers too, uncapped.

    When: as ``megamoe_token_budget``, encoder-only servers included.
    Effect: as ``megamoe_token_budget``, but the largest decode forward is the decode graph's
        max batch x draft tokens, not capped by the running requests per DP rank.
    Why: 0.5.23 skipped encoder-only servers and capped the decode bound by the request pool
        (``validate_mega_moe_token_budget`` in 0.5.22).
    Assumes: as ``megamoe_token_budget``.
    """
    return _token_budget(v, newer=False)
