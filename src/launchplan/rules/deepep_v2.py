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
from launchplan.facts import environment
from launchplan.rules.moe import decode_graph_tokens, prefill_buffer_tokens

# Architectures registered for DeepEP v2 in SGLang 0.5.22-0.5.23 (configs/moe_model_registry.py);
# only the first architecture counts. None registers its own prefill sizing.
DEEPEP_V2_ARCHS = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM", "Qwen3MoeForCausalLM",
    "Glm5NextForConditionalGeneration", "GlmMoeDsaForCausalLM", "MiMoV2ForCausalLM",
    "MiMoV2FlashForCausalLM"})
# 0.5.21's registry: GLM-MoE-DSA and MiMo-V2(-Flash) were registered in 0.5.22
DEEPEP_V2_ARCHS_0_5_21 = DEEPEP_V2_ARCHS - {
    "GlmMoeDsaForCausalLM", "MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM"}
CAPACITY_ENV = "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK"


_MODEL_CHECK = dict(
    phase=Phase.MOE,
    reads=("moe_a2a_backend",),
    facts=("model.arch0",),
    triggers={"moe_a2a_backend": ("deepep_v2",)},
)


@rule(**_MODEL_CHECK,
      sglang="validate_deepep_v2_model_architecture (handle_a2a_moe, moe_hook.py)")
def deepep_v2_model_check(v: View) -> Refuse | None:
    """DeepEP v2 runs only for the model architectures registered as validated with it.

    When: the model's architecture is not on the list.
    Effect: refuses: deepep_v2 is validated for DeepSeek-V3/V4, Qwen3-MoE, GLM-MoE-DSA, GLM-5
        Next and MiMo-V2(-Flash) only; use --moe-a2a-backend deepep.
    Why: each model's combine and post-expert reduction must be checked against DeepEP v2's
        semantics first (``validate_deepep_v2_model_architecture`` in
        ``arg_groups/moe_hook.py``).
    Assumes: nothing.
    """
    return _unregistered(v, DEEPEP_V2_ARCHS)


@rule(name="deepep_v2_model_check", variant="0.5.21", **_MODEL_CHECK,
      sglang="validate_deepep_v2_model_architecture (0.5.21's registry)")
def deepep_v2_model_check_0_5_21(v: View) -> Refuse | None:
    """0.5.21: as ``deepep_v2_model_check``, over that release's shorter registry.

    When: the model's architecture is not on 0.5.21's list.
    Effect: refuses as the current check does; GLM-MoE-DSA (GLM-5/5.1) and MiMo-V2(-Flash)
        are refused too.
    Why: SGLang 0.5.22 registered those three architectures for DeepEP v2
        (``configs/moe_model_registry.py``; recorded on 0.5.21 with GLM-5.1-FP8).
    Assumes: nothing.
    """
    return _unregistered(v, DEEPEP_V2_ARCHS_0_5_21)


def _unregistered(v: View, archs: frozenset[str]) -> Refuse | None:
    if v.model.arch0 in archs:
        return None
    return Refuse(f"--moe-a2a-backend deepep_v2 is validated for {sorted(archs)} "
                  f"only, not {v.model.arch0}; use --moe-a2a-backend deepep")


@rule(
    phase=Phase.LATE,
    reads=("moe_a2a_backend", "speculative_moe_a2a_backend", "speculative_algorithm"),
    sglang="validate_deepep_v2_speculative_draft (moe_hook.py)",
    triggers=("moe_a2a_backend", "speculative_moe_a2a_backend"),
)
def deepep_v2_draft_check(v: View) -> Refuse | None:
    """A speculative draft may not dispatch through DeepEP v2 (it is not validated there).

    When: the draft's A2A backend is deepep_v2: ``--speculative-moe-a2a-backend``, or when unset
        the target's for every algorithm but NGRAM (which has no draft model).
    Effect: refuses: a speculative draft cannot use the deepep_v2 MoE A2A backend.
    Why: DeepEP v2 is not validated for draft models
        (``validate_deepep_v2_speculative_draft`` in ``arg_groups/moe_hook.py``).
    Assumes: nothing.
    """
    draft = v.speculative_moe_a2a_backend
    if draft is None and v.speculative_algorithm and v.speculative_algorithm.upper() != "NGRAM":
        draft = v.moe_a2a_backend
    if draft != "deepep_v2":
        return None
    return Refuse("a speculative draft cannot use the deepep_v2 MoE A2A backend; pass "
                  "--speculative-moe-a2a-backend with another backend")


_BUDGET = dict(
    phase=Phase.LATE,
    reads=("moe_a2a_backend", "disaggregation_mode", "chunked_prefill_size",
           "enable_dynamic_chunking", "pp_size", "max_prefill_tokens", "tp_size",
           "attn_dp_size", "cuda_graph_config", "max_running_requests",
           "speculative_algorithm", "speculative_num_draft_tokens"),
    triggers={"moe_a2a_backend": ("deepep_v2",)},
)


@rule(**_BUDGET, sglang="validate_deepep_v2_dispatch_token_budget (moe_hook.py)")
def deepep_v2_token_budget(v: View) -> Refuse | None:
    """The largest prefill chunk and decode graph one rank dispatches must fit DeepEP v2's buffer.

    When: prefill is checked except on a PD decode server, decode unless on a PD prefill
        server or without a decode graph.
    Effect: refuses when the prefill-buffer ceiling (the chunk; with PP dynamic chunking up to
        max_prefill_tokens or 1.25 x the chunk; without chunking max_prefill_tokens) split over
        the tp_size / attn_dp_size ranks a DP chunk is scattered on, or the decode graph's max
        batch (capped by max_running_requests per DP rank) times the draft tokens per request,
        exceeds the capacity; the message names the tokens and the variable to raise.
    Why: DeepEP v2 dispatches through a fixed per-rank buffer, checked at the end of
        resolution when batch sizes are final (``validate_deepep_v2_dispatch_token_budget``).
    Assumes: SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK is 128 unless the environment
        given sets it; adaptive speculation's widest step is speculative_num_draft_tokens.
    """
    return _budget(v, scattered=True)


@rule(name="deepep_v2_token_budget", variant="0.5.21", **_BUDGET,
      sglang="validate_deepep_v2_dispatch_token_budget (0.5.21)")
def deepep_v2_token_budget_0_5_21(v: View) -> Refuse | None:
    """0.5.21: the whole prefill-buffer ceiling must fit one rank's DeepEP v2 buffer.

    When: as ``deepep_v2_token_budget``.
    Effect: as ``deepep_v2_token_budget``, except that the prefill ceiling is not split over
        the ranks a DP chunk is scattered on.
    Why: 0.5.22 divided it by tp_size / attn_dp_size (each rank dispatches its share of the
        scattered chunk); 0.5.21 checked the ceiling itself.
    Assumes: as ``deepep_v2_token_budget``.
    """
    return _budget(v, scattered=False)


def _budget(v: View, *, scattered: bool) -> Refuse | None:
    capacity = _capacity(v)
    if v.disaggregation_mode != "decode":
        ceiling = prefill_buffer_tokens(v) or (v.max_prefill_tokens or 0)
        ranks = max(1, v.tp_size // v.attn_dp_size) if scattered else 1
        per_rank = -(-ceiling // ranks)
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
    return environment.value(v.env, CAPACITY_ENV)
