"""DeepGEMM MegaMoE (SGLang's ``handle_mega_moe``, the first hook after the DP-attention alias).

``--moe-runner-backend megamoe`` is a spelling of the MegaMoE all-to-all backend; the backend
fuses dispatch, experts and combine into one DeepGEMM kernel over CUDA symmetric memory, which
exists for Hopper (block-FP8 experts) and the SM100 family (MXFP4/NVFP4 experts) only, and has
no split for two- or single-batch overlap.
"""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.errors import InputError
from launchplan.rules.graph_config import DECODE


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("moe_runner_backend", "moe_a2a_backend"),
    writes=("moe_runner_backend", "moe_a2a_backend"),
    sglang="handle_moe_runner_backend_alias (mega_moe_hook.py)",
    triggers={"moe_runner_backend": ("megamoe",)},
)
def megamoe_runner_alias(v: View) -> Declare | None:
    """The ``megamoe`` MoE runner names the MegaMoE A2A backend: runner auto, A2A megamoe.

    Any other A2A backend the user chose is replaced (MegaMoE is dispatch and experts in one).
    """
    if v.moe_runner_backend != "megamoe":
        return None
    note = ("--moe-runner-backend megamoe means --moe-a2a-backend megamoe"
            + (f" (was {v.moe_a2a_backend})" if v.moe_a2a_backend not in ("none", "megamoe")
               else ""))
    return Declare({"moe_runner_backend": "auto", "moe_a2a_backend": "megamoe"}, note)


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("moe_a2a_backend", "enable_two_batch_overlap", "enable_single_batch_overlap"),
    facts=("target.is_cuda", "target.is_sm90", "target.is_sm100", "target.is_hip"),
    sglang="check_mega_moe_compat (mega_moe_hook.py)",
    triggers={"moe_a2a_backend": ("megamoe",)},
)
def megamoe_compat(v: View) -> Refuse | None:
    """MegaMoE needs a Hopper or SM100-family GPU (or ROCm's own kernel) and no TBO/SBO.

    Its fused kernel has no dispatch/combine split for batch overlap, and DeepGEMM's
    MegaMoE kernels exist for SM90 (with CUDA 12.3+) and SM10x (CUDA 12.8+) only; on ROCm
    an aiter kernel stands in.
    """
    if v.moe_a2a_backend != "megamoe":
        return None
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
DEFAULT_TOKENS = 8192


def _needs_budget(v: View) -> bool:
    """No fallback architecture, or NVFP4 experts repacked into MegaMoE's layout at load."""
    qc = v.model.quant_config or {}
    algo = str(qc.get("quant_algo", "")) if hasattr(qc, "get") else ""
    return (v.model.arch0 in NO_FALLBACK_ARCHS
            or v.quantization in ("modelopt_fp4", "minimax_m3_nvfp4") or "FP4" in algo)


@rule(
    phase=Phase.SPECULATIVE,
    reads=("moe_a2a_backend", "encoder_only", "disaggregation_mode", "cuda_graph_config",
           "max_running_requests", "attn_dp_size", "ep_join_mode", "tp_size", "attn_cp_size",
           "speculative_algorithm", "speculative_num_draft_tokens", "pp_size",
           "enable_dynamic_chunking", "chunked_prefill_size", "enable_prefill_cp",
           "quantization"),
    facts=("model.arch0", "model.quant_config", "target.is_hip"),
    sglang="validate_mega_moe_token_budget_for_model (mega_moe_hook.py)",
    triggers={"moe_a2a_backend": ("megamoe",)},
)
def megamoe_token_budget(v: View) -> Refuse | None:
    """Without a fallback, MegaMoE's per-rank buffer must hold the largest decode and prefill.

    Applies on CUDA to the no-fallback MoE architectures (Qwen2/3/3.5 MoE, Qwen3-Next,
    DeepSeek-V4, ...) and to NVFP4 experts. Decode: the decode graph's max batch (capped by
    the per-DP-rank requests, rounded up to attention-TP) x draft tokens. Prefill: chunked
    prefill must be on (unless PP dynamic chunking); the chunk per prefill-CP rank, per DP
    rank or whole, rounded up to the attention-TP size. Capacity:
    SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK (8192).
    (ROCm's FlyDSL decode-capacity check is not modelled.)
    """
    if v.moe_a2a_backend != "megamoe" or v.encoder_only or v.target.is_hip \
            or not _needs_budget(v):
        return None
    capacity = _env_int(v, TOKENS_ENV, DEFAULT_TOKENS)
    label = v.model.arch0
    attn_dp = v.attn_dp_size > 1 or v.ep_join_mode == "scale"
    if v.disaggregation_mode != "prefill":
        decode_bs = v.cuda_graph_config[DECODE]["max_bs"] or 0
        if v.max_running_requests is not None:
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


def _env_int(v: View, name: str, default: int) -> int:
    raw = v.record.env.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise InputError(name, "an integer", raw) from None
