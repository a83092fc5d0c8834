"""DeepEP v2's validations: the models it is validated for, drafts, and its token buffers.

DeepEP v2 dispatches through a fixed per-rank communication buffer
(SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK tokens, 128 unless set), so SGLang checks
at the end of resolution, when every batch size is final, that the largest prefill chunk and
the largest decode CUDA graph fit it. Its combine and post-expert reduction are validated per
model architecture, and not at all for a speculative draft.
"""

from __future__ import annotations

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.moe import decode_graph_tokens, env_int, prefill_buffer_tokens

# Architectures registered for DeepEP v2 in SGLang 0.5.23 (configs/moe_model_registry.py);
# only the first architecture counts. None registers its own prefill sizing.
DEEPEP_V2_ARCHS = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM", "Qwen3MoeForCausalLM",
    "Glm5NextForConditionalGeneration", "GlmMoeDsaForCausalLM", "MiMoV2ForCausalLM",
    "MiMoV2FlashForCausalLM"})
CAPACITY_ENV = "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
DEFAULT_CAPACITY = 128


@rule(
    phase=Phase.MOE,
    reads=("moe_a2a_backend",),
    facts=("model.arch0",),
    sglang="validate_deepep_v2_model_architecture (handle_a2a_moe, moe_hook.py)",
    triggers={"moe_a2a_backend": ("deepep_v2",)},
)
def deepep_v2_model_check(v: View) -> Refuse | None:
    """DeepEP v2 runs only for the model architectures registered as validated with it.

    Each model's combine and post-expert reduction must be checked against DeepEP v2's
    semantics first: DeepSeek-V3/V4, Qwen3-MoE, GLM-MoE-DSA, GLM-5 Next, MiMo-V2(-Flash).
    """
    if v.model.arch0 in DEEPEP_V2_ARCHS:
        return None
    return Refuse(f"--moe-a2a-backend deepep_v2 is validated for {sorted(DEEPEP_V2_ARCHS)} "
                  f"only, not {v.model.arch0}; use --moe-a2a-backend deepep")


@rule(
    phase=Phase.LATE,
    reads=("moe_a2a_backend", "speculative_moe_a2a_backend", "speculative_algorithm"),
    sglang="validate_deepep_v2_speculative_draft (moe_hook.py)",
    triggers=("moe_a2a_backend", "speculative_moe_a2a_backend"),
)
def deepep_v2_draft_check(v: View) -> Refuse | None:
    """A speculative draft may not dispatch through DeepEP v2 (it is not validated there).

    The draft's A2A backend is --speculative-moe-a2a-backend, or, when unset, the target's
    for every algorithm but NGRAM (which has no draft model).
    """
    draft = v.speculative_moe_a2a_backend
    if draft is None and v.speculative_algorithm and v.speculative_algorithm.upper() != "NGRAM":
        draft = v.moe_a2a_backend
    if draft != "deepep_v2":
        return None
    return Refuse("a speculative draft cannot use the deepep_v2 MoE A2A backend; pass "
                  "--speculative-moe-a2a-backend with another backend")


@rule(
    phase=Phase.LATE,
    reads=("moe_a2a_backend", "disaggregation_mode", "chunked_prefill_size",
           "enable_dynamic_chunking", "pp_size", "max_prefill_tokens", "tp_size",
           "attn_dp_size", "cuda_graph_config", "max_running_requests",
           "speculative_algorithm", "speculative_num_draft_tokens"),
    sglang="validate_deepep_v2_dispatch_token_budget (moe_hook.py)",
    triggers={"moe_a2a_backend": ("deepep_v2",)},
)
def deepep_v2_token_budget(v: View) -> Refuse | None:
    """The largest prefill chunk and decode graph one rank dispatches must fit DeepEP v2's buffer.

    Prefill (not on a PD decode server): the prefill-buffer ceiling (the chunk; with PP
    dynamic chunking up to max_prefill_tokens or 1.25 x the chunk; without chunking
    max_prefill_tokens) split over the tp_size / attn_dp_size ranks a DP chunk is scattered
    on. Decode (unless a PD prefill server or no decode graph): the decode graph's max
    batch, capped by max_running_requests per DP rank, times the draft tokens per request.
    Capacity: SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK (128). (Adaptive
    speculation's widest step is taken as speculative_num_draft_tokens.)
    """
    capacity = _capacity(v)
    if v.disaggregation_mode != "decode":
        ceiling = prefill_buffer_tokens(v) or (v.max_prefill_tokens or 0)
        per_rank = -(-ceiling // max(1, v.tp_size // v.attn_dp_size))
        if per_rank > capacity:
            return Refuse(f"DeepEP v2 dispatches up to {per_rank} prefill tokens per rank, "
                          f"above {CAPACITY_ENV}={capacity}; raise it or lower "
                          "--chunked-prefill-size / --max-prefill-tokens")
    graph_bs, per_request = decode_graph_tokens(v)
    if graph_bs * per_request > capacity:
        return Refuse(f"DeepEP v2's decode CUDA graph dispatches {graph_bs * per_request} "
                      f"tokens per rank ({graph_bs} requests x {per_request}), above "
                      f"{CAPACITY_ENV}={capacity}; raise it or lower "
                      "--cuda-graph-max-bs-decode")
    return None


def _capacity(v: View) -> int:
    return env_int(v, CAPACITY_ENV, DEFAULT_CAPACITY)
