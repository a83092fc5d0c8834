"""EAGLE, EAGLE3 and STANDALONE (one family in SGLang's ``_handle_eagle_family``), with MTP.

Serving defaults, the bundled MTP/NextN draft path, IQuest Q1's separate MTP draft, the
auto-chosen steps/top-k/draft tokens (they land only here, so the attention-backend
default never saw them), and the checks the verify kernels impose.
"""

from __future__ import annotations

from launchplan.checks.requirements import OnView, by_name
from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts import environment
from launchplan.rules.attention import BACKEND_FIELDS, effective_backends
from launchplan.rules.speculative.common import (
    ALGO,
    RUNNING_NOTE,
    algorithm_of,
    attn_dp_enabled,
    running_requests_default,
)
from launchplan.vocabulary import EAGLE_FAMILY, MIXED_CHUNK_ALGORITHMS

# Targets whose checkpoint carries its own MTP/NextN layer: the draft path is the model path.
BUNDLED_MTP_ARCHS = frozenset({
    "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM",
    "Glm4MoeForCausalLM", "Glm4MoeLiteForCausalLM", "GlmMoeDsaForCausalLM",
    "BailingMoeForCausalLM", "BailingMoeV2ForCausalLM", "BailingMoeV2_5ForCausalLM",
    "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "HYV3ForCausalLM",
    "HYV4ForCausalLM", "Qwen4ExpForConditionalGeneration",
})
# (steps, topk, draft tokens) SGLang tuned per target architecture; everything else 3/1/4.
WIDE_TREE_ARCHS = frozenset({"LlamaForCausalLM", "Grok1ForCausalLM", "Grok1VForCausalLM"})
# EAGLE-family rules decide nothing unless the (normalised) algorithm is one of these.
EAGLE_TRIGGER = {"speculative_algorithm": EAGLE_FAMILY}
# Pure constraints these rules refuse on: the requirement table's rows.
TRTLLM_MHA_TOPK = by_name("trtllm-mha-topk-1")
PAGE_TREE = by_name("eagle-topk-page-tree")


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("attn_dp_size", "ep_join_mode", "max_running_requests", "device",
                  "disable_overlap_schedule", "enable_mixed_chunk"),
    writes=("max_running_requests", "disable_overlap_schedule", "enable_mixed_chunk"),
    sglang="_handle_eagle_family (defaults; _disable_overlap_schedule_for_cpu)",
    triggers=EAGLE_TRIGGER,
)
def eagle_family_defaults(v: View) -> Declare | Refuse | None:
    """EAGLE-family serving defaults: 48 running requests, CPU without overlap, no mixed chunk.

    When: the algorithm is EAGLE, EAGLE3 or STANDALONE.
    Effect: unset ``max_running_requests`` = 48; on CPU ``disable_overlap_schedule`` = true;
        ``enable_mixed_chunk`` = false for STANDALONE (with notes); refuses STANDALONE with
        attention DP.
    Why: the draft and verify buffers are sized per running request, hence the small default;
        CPU has no overlapped speculative scheduler; mixed prefill steps fall back to a plain
        one-token decode, which only EAGLE and EAGLE3 workers can resume from; STANDALONE's
        separate draft model has no attention-DP path (``_handle_eagle_family``,
        arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    if algorithm_of(v) == "STANDALONE" and attn_dp_enabled(v):
        return Refuse("STANDALONE speculative decoding does not support attention DP")
    out = running_requests_default(v)
    notes = [RUNNING_NOTE] if out else []
    if v.device == "cpu" and not v.disable_overlap_schedule:
        out["disable_overlap_schedule"] = True
        notes.append("speculative decoding on CPU has no overlap schedule")
    if v.enable_mixed_chunk and algorithm_of(v) not in MIXED_CHUNK_ALGORITHMS:
        out["enable_mixed_chunk"] = False
        notes.append(f"mixed chunked prefill disabled: {algorithm_of(v)} does not support it")
    if not out:
        return None
    return Declare(out, "; ".join(notes))


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("speculative_draft_model_path", "model_path", "revision"),
    writes=("speculative_draft_model_path", "speculative_draft_model_revision"),
    facts=("model.arch0",),
    sglang="_handle_eagle_family (bundled MTP draft path)",
    triggers=EAGLE_TRIGGER,
    archs=BUNDLED_MTP_ARCHS,
)
def eagle_mtp_draft_path(v: View) -> Declare | None:
    """Targets that ship their MTP/NextN layer in the checkpoint draft from the model path.

    When: an EAGLE-family algorithm on DeepSeek V3/V3.2/V4, GLM-4-MoE (+Lite), GLM-MoE-DSA,
        Bailing MoE V1/V2/V2.5, Mistral Large 3, Pixtral, HY V3/V4 or Qwen4-Exp.
    Effect: with no draft path, ``speculative_draft_model_path`` = the model path and
        ``speculative_draft_model_revision`` = the target's revision; with one given (other than
        Mistral Large 3 and Pixtral), a note that it is not needed.
    Why: their MTP layer is in the target checkpoint (``_handle_eagle_family``,
        arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    if v.speculative_draft_model_path is None:
        return Declare({"speculative_draft_model_path": v.model_path,
                        "speculative_draft_model_revision": v.revision})
    if v.model.arch0 not in ("MistralLarge3ForCausalLM", "PixtralForConditionalGeneration"):
        return Declare({}, "this model's MTP layer is in its checkpoint; "
                       "--speculative-draft-model-path is not needed")
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("speculative_draft_model_path", "model_path", "speculative_token_map",
                  "speculative_num_steps", "speculative_eagle_topk",
                  "speculative_num_draft_tokens"),
    writes=("speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens"),
    facts=("model.arch0", "model.config", "draft.config"),
    sglang="_handle_iquest_q1_mtp_draft",
    triggers=EAGLE_TRIGGER,
    archs=("IQuestQ1ForCausalLM",),
)
def iquest_q1_mtp_draft(v: View) -> dict | Refuse | None:
    """IQuest Q1 drafts with a separate MTP checkpoint: a linear chain, steps = draft slots.

    When: an EAGLE-family algorithm on IQuest Q1.
    Effect: ``speculative_num_steps`` = the given steps, else the draft's ``num_draft_slots``
        (default 7), ``speculative_eagle_topk`` = 1, ``speculative_num_draft_tokens`` = steps + 1.
        Refuses a missing or non-separate draft, a draft that is not ``iquest_q1_mtp``, a hidden
        size, vocabulary or target layer count that differ from the target's, a token map,
        non-positive steps, top-k other than 1 and draft tokens other than steps + 1.
    Why: the draft shares the target's hidden size, vocabulary and layer count, uses its own
        full-vocabulary head and verifies a chain (``_handle_iquest_q1_mtp_draft``,
        arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    path = v.speculative_draft_model_path
    if path in (None, v.model_path):
        return Refuse("IQuest Q1 needs a separate MTP draft checkpoint "
                      "(--speculative-draft-model-path)")
    draft = v.draft.config if v.draft is not None else {}
    if draft.get("model_type") != "iquest_q1_mtp":
        return Refuse("IQuest Q1 needs an IQuest Q1 MTP draft checkpoint")
    target = v.model.config
    if (draft.get("hidden_size") != target.get("hidden_size")
            or draft.get("vocab_size") != target.get("vocab_size")):
        return Refuse("the MTP draft's hidden size and vocabulary must match the target's")
    if draft.get("num_target_layers", target.get("num_hidden_layers")) != target.get(
            "num_hidden_layers"):
        return Refuse("the MTP draft's target layer count must match the target's")
    if v.speculative_token_map is not None:
        return Refuse("the MTP draft has its own full-vocabulary head; drop "
                      "--speculative-token-map")
    steps = v.speculative_num_steps
    if steps is None:
        steps = draft.get("num_draft_slots", 7)
    if steps < 1:
        return Refuse("MTP needs a positive --speculative-num-steps")
    if v.speculative_eagle_topk not in (None, 1):
        return Refuse("MTP drafts a linear chain: --speculative-eagle-topk must be 1")
    if v.speculative_num_draft_tokens not in (None, steps + 1):
        return Refuse("MTP verifies steps + 1 tokens: --speculative-num-draft-tokens must be "
                      f"{steps + 1}")
    return {"speculative_num_steps": steps, "speculative_eagle_topk": 1,
            "speculative_num_draft_tokens": steps + 1}


def auto_speculative_params(algorithm: str, arch0: str) -> tuple[int, int, int]:
    """SGLang's tuned (steps, topk, draft tokens): a 4-wide tree for Llama and Grok only."""
    if algorithm == "STANDALONE":
        return (3, 1, 4)
    if arch0 in WIDE_TREE_ARCHS:
        return (5, 4, 8)
    return (3, 1, 4)


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("speculative_adaptive", "speculative_num_steps", "speculative_eagle_topk",
                  "speculative_num_draft_tokens"),
    writes=("speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens"),
    facts=("model.arch0",),
    sglang="_handle_eagle_family (_auto_choose_speculative_params)",
    triggers=EAGLE_TRIGGER,
)
def eagle_auto_params(v: View) -> dict | Refuse | None:
    """With no steps given, (steps, topk, draft tokens) come from SGLang's tuning table.

    When: an EAGLE-family algorithm without ``--speculative-adaptive``.
    Effect: with no steps, top-k or draft tokens: Llama (``LlamaForCausalLM``) and Grok get
        (5, 4, 8), STANDALONE and every other target the (3, 1, 4) chain. Refuses top-k or draft
        tokens without steps, and steps without top-k.
    Why: ``_auto_choose_speculative_params`` (arg_groups/speculative_hook.py) holds the table and
        SGLang asserts the first case; in the second SGLang 0.5.23 compares ``None > 1`` and
        crashes with a TypeError, so the launch cannot run.
    Assumes: nothing.
    """
    if v.speculative_adaptive:
        return None
    if v.speculative_num_steps is None:
        if v.speculative_eagle_topk is not None or v.speculative_num_draft_tokens is not None:
            return Refuse("--speculative-eagle-topk and --speculative-num-draft-tokens need "
                          "--speculative-num-steps too (or leave all three to the defaults)")
        steps, topk, tokens = auto_speculative_params(algorithm_of(v), v.model.arch0)
        return {"speculative_num_steps": steps, "speculative_eagle_topk": topk,
                "speculative_num_draft_tokens": tokens}
    if v.speculative_eagle_topk is None:
        return Refuse("--speculative-num-steps without --speculative-eagle-topk: SGLang 0.5.23 "
                      "fails on the missing top-k (it compares None > 1); pass "
                      "--speculative-eagle-topk")
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + BACKEND_FIELDS + ("speculative_eagle_topk",),
    sglang="_handle_eagle_family (trtllm_mha top-k)",
    triggers=EAGLE_TRIGGER,
)
def eagle_trtllm_mha_topk(v: View) -> Refuse | None:
    """TRT-LLM MHA verifies a linear draft chain only: top-k above 1 is refused.

    When: an EAGLE-family algorithm with trtllm_mha as the effective prefill or decode backend.
    Effect: refuses ``--speculative-eagle-topk`` above 1 (requirement ``trtllm-mha-topk-1``).
    Why: its target-verify metadata has no tree mask, whether it is the prefill or decode side
        (``_handle_eagle_family``, arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    if "trtllm_mha" not in effective_backends(v):
        return None
    if TRTLLM_MHA_TOPK.violated(OnView(v)):
        return Refuse(f"trtllm_mha verifies top-k 1 drafts only; got --speculative-eagle-topk "
                      f"{v.speculative_eagle_topk}", TRTLLM_MHA_TOPK.name)
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("speculative_use_rejection_sampling", "speculative_token_map",
                  "speculative_eagle_topk", "speculative_accept_threshold_single",
                  "speculative_accept_threshold_acc", "enable_deterministic_inference"),
    writes=("speculative_use_rejection_sampling",),
    facts=("target.is_hip",),
    sglang="_handle_eagle_family (_should_auto_enable_hip_rejection_sampling)",
    triggers={"speculative_algorithm": ("EAGLE",)},
    applies=lambda target, model: target.is_hip,
)
def eagle_hip_rejection_sampling(v: View) -> Declare | None:
    """ROCm has no sampling-verify kernel: plain EAGLE top-k 1 verifies by rejection sampling.

    When: EAGLE on ROCm with top-k 1, rejection sampling off, no token map, accept thresholds
        of 1.0, no deterministic inference and no simulated acceptance length.
    Effect: ``speculative_use_rejection_sampling`` = true, with a note.
    Why: without it verification is greedy and ignores temperature and top-p; the sampler cannot
        consume a reduced draft vocabulary (``_should_auto_enable_hip_rejection_sampling``,
        arg_groups/speculative_hook.py).
    Assumes: ``SGLANG_SIMULATE_ACC_LEN`` is unset unless the given environment sets it.
    """
    if (v.speculative_use_rejection_sampling or v.speculative_token_map is not None
            or v.speculative_eagle_topk != 1
            or v.speculative_accept_threshold_single != 1.0
            or v.speculative_accept_threshold_acc != 1.0
            or v.enable_deterministic_inference):
        return None
    if environment.value(v.env, "SGLANG_SIMULATE_ACC_LEN") > 0:
        return None
    return Declare({"speculative_use_rejection_sampling": True},
                   "ROCm verifies EAGLE drafts by rejection sampling (no sampling-verify kernel)")


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("speculative_use_rejection_sampling", "speculative_eagle_topk",
                  "enable_deterministic_inference", "device",
                  "speculative_accept_threshold_single", "speculative_accept_threshold_acc",
                  "enable_multi_layer_eagle"),
    sglang="_handle_eagle_family (rejection sampling checks)",
    triggers=EAGLE_TRIGGER,
)
def eagle_rejection_sampling_checks(v: View) -> Refuse | None:
    """Rejection sampling consumes a target-vocabulary proposal from a linear EAGLE chain.

    When: ``--speculative-use-rejection-sampling`` is on with an EAGLE-family algorithm.
    Effect: refuses algorithms other than EAGLE/EAGLE3, top-k other than 1, deterministic
        inference off CUDA, and accept thresholds other than 1.0.
    Why: only EAGLE/EAGLE3 drafts emit that proposal; it ignores the thresholds; its
        deterministic proposal sampler is a Triton hash kernel (``_handle_eagle_family``,
        arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    if not v.speculative_use_rejection_sampling:
        return None
    found = _rejection_chain_refusal(v)
    if found is not None:
        return found
    if v.enable_deterministic_inference and not str(v.device).startswith("cuda"):
        return Refuse("deterministic rejection sampling needs a CUDA-compatible device")
    return _rejection_threshold_refusal(v)


def _rejection_chain_refusal(v: View) -> Refuse | None:
    """A rejection-sampled draft must be an EAGLE/EAGLE3 chain of top-k 1."""
    if algorithm_of(v) not in ("EAGLE", "EAGLE3"):
        return Refuse("--speculative-use-rejection-sampling works with EAGLE, EAGLE3 or NEXTN "
                      f"only, not {algorithm_of(v)}")
    if v.speculative_eagle_topk != 1:
        return Refuse("--speculative-use-rejection-sampling needs --speculative-eagle-topk 1")
    return None


def _rejection_threshold_refusal(v: View) -> Refuse | None:
    if (v.speculative_accept_threshold_single != 1.0
            or v.speculative_accept_threshold_acc != 1.0):
        return Refuse("--speculative-use-rejection-sampling ignores accept thresholds; drop "
                      "--speculative-accept-threshold-single/-acc")
    return None


@rule(
    name="eagle_rejection_sampling_checks",
    variant="0.5.22",
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("speculative_use_rejection_sampling", "speculative_eagle_topk",
                  "enable_deterministic_inference", "speculative_accept_threshold_single",
                  "speculative_accept_threshold_acc"),
    sglang="_handle_eagle_family (rejection sampling checks, 0.5.21-0.5.22)",
    triggers=EAGLE_TRIGGER,
)
def eagle_rejection_sampling_checks_0_5_22(v: View) -> Refuse | None:
    """As in 0.5.23, but deterministic inference refuses rejection sampling on any device.

    When: ``--speculative-use-rejection-sampling`` is on with an EAGLE-family algorithm (this
        variant serves the 0.5.21-0.5.22 releases).
    Effect: the 0.5.23 chain and threshold refusals, then a refusal of deterministic inference.
    Why: before 0.5.23 the sampler drew its coins from the global RNG, which is not
        batch-invariant; the check came after the accept-threshold one.
    Assumes: nothing.
    """
    if not v.speculative_use_rejection_sampling:
        return None
    found = _rejection_chain_refusal(v) or _rejection_threshold_refusal(v)
    if found is not None:
        return found
    if v.enable_deterministic_inference:
        return Refuse("--speculative-use-rejection-sampling cannot run with "
                      "--enable-deterministic-inference in this SGLang release (its sampler "
                      "is not batch-invariant)")
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("speculative_eagle_topk", "speculative_num_steps",
                  "speculative_num_draft_tokens"),
    writes=("speculative_num_draft_tokens",),
    sglang="_handle_eagle_family (top-k 1 draft tokens)",
    triggers=EAGLE_TRIGGER,
)
def eagle_topk1_draft_tokens(v: View) -> Declare | None:
    """A top-k 1 draft is a chain: it verifies exactly steps + 1 tokens, whatever was given.

    When: an EAGLE-family algorithm with top-k 1 and draft tokens other than steps + 1.
    Effect: ``speculative_num_draft_tokens`` = steps + 1, with a note.
    Why: with top-k 1 the draft tree is a chain, so its size is fixed by the steps
        (``_handle_eagle_family``, arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    if v.speculative_eagle_topk != 1:
        return None
    tokens = v.speculative_num_steps + 1
    if v.speculative_num_draft_tokens == tokens:
        return None
    return Declare({"speculative_num_draft_tokens": tokens},
                   f"speculative_num_draft_tokens -> {tokens} (steps + 1 with top-k 1)")


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("speculative_eagle_topk", "page_size", "attention_backend"),
    sglang="_handle_eagle_family (page-tree check)",
    triggers=EAGLE_TRIGGER,
)
def eagle_page_tree_check(v: View) -> Refuse | None:
    """Top-k > 1 on pages > 1 needs the two-pass page-tree cascade of flashinfer, fa3 or triton.

    When: an EAGLE-family algorithm.
    Effect: refuses top-k > 1 with page size > 1 on a base backend other than flashinfer, fa3
        or triton (requirement ``eagle-topk-page-tree``). Only the base backend is checked.
    Why: branches share the prefix's last page and must duplicate its tail; other backends (fa4,
        flashmla, trtllm_mla, …) cannot express the per-branch tree (``_handle_eagle_family``,
        arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    if PAGE_TREE.violated(OnView(v)):
        return Refuse(f"--speculative-eagle-topk {v.speculative_eagle_topk} with page_size "
                      f"{v.page_size} needs attention_backend flashinfer, fa3 or triton; got "
                      f"{v.attention_backend}. Use page_size 1 or one of those backends",
                      PAGE_TREE.name)
    return None
