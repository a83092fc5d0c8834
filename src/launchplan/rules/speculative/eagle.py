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
from launchplan.rules.attention import BACKEND_FIELDS, effective_backends
from launchplan.rules.speculative.common import (
    ALGO,
    RUNNING_NOTE,
    algorithm_of,
    attn_dp_on,
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
    sglang="_handle_eagle_family (defaults)",
    triggers=EAGLE_TRIGGER,
)
def eagle_family_defaults(v: View) -> Declare | Refuse | None:
    """EAGLE-family serving defaults: 48 running requests, CPU without overlap, no mixed chunk.

    STANDALONE's separate draft model has no attention-DP path. The draft and verify
    buffers are sized per running request, hence the small default. CPU has no overlapped
    speculative scheduler. Mixed prefill steps fall back to a plain one-token decode, which
    only EAGLE and EAGLE3 workers can resume from.
    """
    if algorithm_of(v) == "STANDALONE" and attn_dp_on(v):
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

    DeepSeek V3/V3.2/V4, GLM-4-MoE (+Lite), GLM-MoE-DSA, Bailing MoE V1/V2/V2.5, Mistral
    Large 3, Pixtral, HY V3/V4 and Qwen4-Exp; the draft revision follows the target's.
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

    The draft shares the target's hidden size, vocabulary and layer count, uses its own
    full-vocabulary head (no token map) and verifies steps + 1 tokens at top-k 1.
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

    Llama (``LlamaForCausalLM``) and Grok get (5, 4, 8), a four-wide draft tree; STANDALONE
    and every other target get the (3, 1, 4) chain. Top-k or draft tokens without steps is
    refused (SGLang asserts). So is the opposite, steps without top-k: SGLang 0.5.23 then
    compares ``None > 1`` and crashes with a TypeError, so the launch cannot run.
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

    Its target-verify metadata has no tree mask, whether it is the prefill or decode side.
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

    Without it verification is greedy and ignores temperature and top-p. Skipped for EAGLE3
    and token maps (the sampler cannot consume a reduced draft vocabulary), custom accept
    thresholds, deterministic inference and a simulated acceptance length.
    """
    if (v.speculative_use_rejection_sampling or v.speculative_token_map is not None
            or v.speculative_eagle_topk != 1
            or v.speculative_accept_threshold_single != 1.0
            or v.speculative_accept_threshold_acc != 1.0
            or v.enable_deterministic_inference):
        return None
    try:
        simulated = float(v.env.get("SGLANG_SIMULATE_ACC_LEN", "") or -1)
    except ValueError:
        simulated = -1.0
    if simulated > 0:
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

    Only EAGLE/EAGLE3 drafts emit one; it needs top-k 1, accept thresholds of 1.0 (it
    ignores them), and CUDA when deterministic (its proposal sampler is a Triton hash kernel).
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

    Before 0.5.23 the sampler drew its coins from the global RNG, which is not
    batch-invariant; the check came after the accept-threshold one.
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
    """A top-k 1 draft is a chain: it verifies exactly steps + 1 tokens, whatever was given."""
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

    Branches share the prefix's last page and must duplicate its tail; other backends
    (fa4, flashmla, trtllm_mla, …) cannot express the per-branch tree. Only the base
    backend is checked.
    """
    if PAGE_TREE.violated(OnView(v)):
        return Refuse(f"--speculative-eagle-topk {v.speculative_eagle_topk} with page_size "
                      f"{v.page_size} needs attention_backend flashinfer, fa3 or triton; got "
                      f"{v.attention_backend}. Use page_size 1 or one of those backends",
                      PAGE_TREE.name)
    return None
