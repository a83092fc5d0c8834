"""Speculative decoding (SGLang's P32 ``handle_speculative_decoding``, then P51).

The algorithm is normalised first (upper case, ``NEXTN`` is ``EAGLE``, a Gemma-4 assistant
draft turns EAGLE into ``FROZEN_KV_MTP``), then each algorithm fills its own parameters and
checks what its verify kernels can run. The EAGLE top-k auto-choice lands only here, so the
attention-backend default (P18) never saw it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from launchplan.checks.requirements import OnView, by_name
from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts.memo import per_object
from launchplan.rules.attention import BACKEND_FIELDS, effective_backends

BUILTIN_ALGORITHMS = ("DFLASH", "UNO", "DSPARK", "EAGLE", "EAGLE3", "FROZEN_KV_MTP",
                      "STANDALONE", "NGRAM")
EAGLE_FAMILY = ("EAGLE", "EAGLE3", "STANDALONE")
# Algorithms whose workers can resume running requests inside a mixed prefill step.
MIXED_CHUNK_ALGORITHMS = ("EAGLE", "EAGLE3", "DFLASH", "DSPARK")
GEMMA4_ASSISTANT_DRAFTS = ("Gemma4AssistantForCausalLM", "Gemma4UnifiedAssistantForCausalLM")
# Backends SGLang accepts as a separate draft attention backend (DRAFT_ATTENTION_BACKEND_CHOICES).
DRAFT_BACKENDS = ("flashinfer", "fa3", "fa4", "triton", "ascend", "trtllm_mha", "intel_xpu")
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
# Adaptive speculation's default candidate steps (the union over its batch-size tiers).
ADAPTIVE_DEFAULT_STEPS = (0, 1, 3, 5, 7)
SPEC_MAX_RUNNING_REQUESTS = 48

_ALGO = ("speculative_algorithm",)
# EAGLE-family rules decide nothing unless the (normalised) algorithm is one of these.
_EAGLE_TRIGGER = {"speculative_algorithm": EAGLE_FAMILY}
# Pure constraints these rules refuse on: the requirement table's rows.
TRTLLM_MHA_TOPK = by_name("trtllm-mha-topk-1")
PAGE_TREE = by_name("eagle-topk-page-tree")
_RUNNING_NOTE = ("max_running_requests defaults to 48 under speculative decoding; pass "
                 "--max-running-requests to change it")


def _algorithm(v: Any) -> str | None:
    return v.speculative_algorithm


def _attn_dp(v: Any) -> bool:
    """SGLang's ``attn_dp_enabled``: attention DP wider than 1, or an EP scale-up joiner."""
    return v.attn_dp_size > 1 or v.ep_join_mode == "scale"


def _draft_config(v: Any) -> Mapping | None:
    """The draft checkpoint's config.json: the target's own when the draft path is the model."""
    path = v.speculative_draft_model_path
    if path is None:
        return None
    if path == v.model_path:
        return v.model.config
    return v.draft.config if v.draft is not None else None


def _text_config(config: Mapping) -> Mapping:
    text = config.get("text_config")
    return text if isinstance(text, Mapping) else config


def _dflash_block_size(config: Mapping | None) -> int | None:
    """The DFLASH verify block: ``dflash_config.block_size``, else a top-level ``block_size``."""
    if not config:
        return None
    nested = config.get("dflash_config")
    value = nested.get("block_size") if isinstance(nested, Mapping) else None
    if value is None:
        value = config.get("block_size")
    return int(value) if value is not None else None


def _running_requests(v: Any) -> dict:
    return ({"max_running_requests": SPEC_MAX_RUNNING_REQUESTS}
            if v.max_running_requests is None else {})


# --- normalisation ---------------------------------------------------------------------------


@rule(
    phase=Phase.SPECULATIVE,
    reads=("speculative_draft_model_path", "speculative_draft_model_revision"),
    writes=("speculative_draft_model_revision",),
    sglang="handle_speculative_decoding (draft revision)",
    triggers=("speculative_draft_model_path",),
)
def speculative_draft_revision_default(v: View) -> dict | None:
    """A draft path without a revision loads the draft from the ``main`` revision."""
    if v.speculative_draft_model_path is not None and v.speculative_draft_model_revision is None:
        return {"speculative_draft_model_revision": "main"}
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=("speculative_moe_runner_backend", "moe_runner_backend"),
    writes=("speculative_moe_runner_backend",),
    sglang="_speculative_moe_runner_default",
)
def speculative_moe_runner_default(v: View) -> dict | None:
    """An unset draft MoE runner follows the target's resolved runner (runs without drafts too).

    flashinfer_megamoe routes by global expert id over weights it prepared for quantized
    layers only, so an (unquantized) MTP draft gets flashinfer_trtllm; a target-only LoRA
    runner leaves the adapter-free draft on ``auto``.
    """
    if v.speculative_moe_runner_backend is not None:
        return None
    runner = v.moe_runner_backend
    if runner == "flashinfer_megamoe":
        runner = "flashinfer_trtllm"
    elif str(runner).startswith("lora_"):
        runner = "auto"
    return {"speculative_moe_runner_backend": runner}


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO,
    writes=_ALGO,
    sglang="handle_speculative_decoding (upper-case)",
    triggers=_ALGO,
    normalizes=True,
)
def speculative_algorithm_upper(v: View) -> dict | None:
    """Algorithm names are case-insensitive: ``eagle`` is ``EAGLE``."""
    algorithm = _algorithm(v)
    if algorithm is not None and algorithm != algorithm.upper():
        return {"speculative_algorithm": algorithm.upper()}
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + ("speculative_draft_model_path",),
    writes=_ALGO,
    facts=("draft.architectures",),
    sglang="_resolve_speculative_algorithm_alias (Gemma-4 assistant drafts)",
    triggers=("speculative_draft_model_path",),
)
def speculative_gemma4_assistant(v: View) -> Declare | Refuse | None:
    """A Gemma-4 assistant draft reads the target's frozen KV: EAGLE/NEXTN become FROZEN_KV_MTP.

    The assistant has no hidden-state fusion of its own, so EAGLE3 (which feeds it three
    target layers) cannot drive it and is refused.
    """
    algorithm = _algorithm(v)
    if v.speculative_draft_model_path is None or v.draft is None:
        return None
    if not any(a in GEMMA4_ASSISTANT_DRAFTS for a in v.draft.architectures):
        return None
    if algorithm == "EAGLE3":
        return Refuse("a Gemma-4 assistant draft runs with --speculative-algorithm EAGLE or "
                      "NEXTN, not EAGLE3")
    if algorithm in ("EAGLE", "NEXTN"):
        return Declare({"speculative_algorithm": "FROZEN_KV_MTP"},
                       f"the Gemma-4 assistant draft turns {algorithm} into FROZEN_KV_MTP")
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO,
    writes=_ALGO,
    sglang="_resolve_speculative_algorithm_alias (NEXTN)",
    triggers=_ALGO,
    normalizes=True,
)
def speculative_nextn_alias(v: View) -> dict | None:
    """NEXTN is another name for EAGLE: DeepSeek-style MTP runs through the EAGLE worker."""
    if _algorithm(v) == "NEXTN":
        return {"speculative_algorithm": "EAGLE"}
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + ("disaggregation_mode", "disaggregation_decode_enable_radix_cache"),
    sglang="handle_speculative_decoding (PD decode radix cache)",
    triggers=_ALGO,
)
def speculative_decode_radix_check(v: View) -> Refuse | None:
    """A PD decode server's radix cache works only with no, DSPARK or EAGLE(3) speculation."""
    algorithm = _algorithm(v)
    if (v.disaggregation_mode == "decode" and v.disaggregation_decode_enable_radix_cache
            and algorithm not in (None, "DSPARK", "EAGLE", "EAGLE3")):
        return Refuse("--disaggregation-decode-enable-radix-cache cannot be combined with "
                      f"{algorithm} speculative decoding")
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + ("speculative_use_block_verification", "device",
                   "speculative_use_rejection_sampling"),
    writes=("speculative_use_rejection_sampling",),
    sglang="handle_speculative_decoding (block verification)",
    triggers=("speculative_use_block_verification",),
)
def speculative_block_verification(v: View) -> Refuse | dict | None:
    """Block verification needs sampled proposals with their distributions, on CUDA or ROCm.

    Only EAGLE, EAGLE3, DFLASH and DSPARK emit them; EAGLE(3) produce them only through
    rejection sampling, which is switched on.
    """
    if not v.speculative_use_block_verification:
        return None
    algorithm = _algorithm(v)
    if algorithm not in ("EAGLE", "EAGLE3", "DFLASH", "DSPARK"):
        return Refuse("--speculative-use-block-verification works with EAGLE, EAGLE3, NEXTN, "
                      f"DFLASH or DSPARK only, not {algorithm}")
    if v.device != "cuda":
        return Refuse("--speculative-use-block-verification needs a CUDA or ROCm device")
    if algorithm in ("EAGLE", "EAGLE3") and not v.speculative_use_rejection_sampling:
        return {"speculative_use_rejection_sampling": True}
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + ("speculative_draft_window_size", "speculative_draft_sink_size"),
    writes=("speculative_draft_window_size", "speculative_draft_sink_size"),
    sglang="handle_speculative_decoding (draft window and sink)",
    triggers=("speculative_draft_window_size", "speculative_draft_sink_size"),
)
def speculative_draft_window(v: View) -> Declare | Refuse | None:
    """The draft's sliding window must be positive, its sink non-negative and need a window.

    Only DFLASH, Llama EAGLE-3 and the EAGLE/MTP draft decode on triton/flashinfer honour a
    window; elsewhere it is accepted but has no effect.
    """
    out: dict[str, int] = {}
    note = None
    window = v.speculative_draft_window_size
    if window is not None:
        if int(window) <= 0:
            return Refuse(f"--speculative-draft-window-size must be positive, got {window}")
        out["speculative_draft_window_size"] = int(window)
        if _algorithm(v) not in ("EAGLE", "EAGLE3", "DFLASH"):
            note = (f"--speculative-draft-window-size has no effect with "
                    f"{_algorithm(v)} speculative decoding")
    sink = v.speculative_draft_sink_size
    if sink is not None:
        if int(sink) < 0:
            return Refuse(f"--speculative-draft-sink-size must be non-negative, got {sink}")
        if window is None:
            return Refuse("--speculative-draft-sink-size needs --speculative-draft-window-size")
        out["speculative_draft_sink_size"] = int(sink)
    if not out:
        return None
    return Declare(out, note)


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO,
    sglang="SpeculativeAlgorithm.from_string",
    triggers=_ALGO,
)
def speculative_algorithm_known(v: View) -> Refuse | None:
    """Only SGLang's built-in algorithms are known (plugins register more; none is modelled)."""
    algorithm = _algorithm(v)
    if algorithm is not None and algorithm not in BUILTIN_ALGORITHMS:
        return Refuse(f"unknown speculative algorithm {algorithm!r}; expected one of "
                      + ", ".join(BUILTIN_ALGORITHMS) + " or NEXTN")
    return None


@rule(
    name="speculative_algorithm_known",
    variant="0.5.22",
    phase=Phase.SPECULATIVE,
    reads=_ALGO,
    sglang="SpeculativeAlgorithm.from_string; --speculative-skip-dp-mlp-sync check (0.5.21-0.5.22)",
)
def speculative_algorithm_known_0_5_22(v: View) -> Refuse | None:
    """As in 0.5.23, and ``--speculative-skip-dp-mlp-sync`` (removed in 0.5.23) needs EAGLE.

    Skipping the data-parallel MLP sync was built for the EAGLE worker only (NEXTN is EAGLE
    by now). The field exists only in these releases' tables, so it is read by name.
    """
    refused = speculative_algorithm_known(v)
    if refused is None and v.get("speculative_skip_dp_mlp_sync") and _algorithm(v) != "EAGLE":
        return Refuse("--speculative-skip-dp-mlp-sync works with the EAGLE algorithm only, not "
                      f"{_algorithm(v)}")
    return refused


# --- adaptive speculation --------------------------------------------------------------------


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + ("speculative_adaptive", "speculative_eagle_topk", "attn_dp_size",
                   "ep_join_mode", "enable_multi_layer_eagle", "enable_two_batch_overlap",
                   "enable_pdmux"),
    writes=("speculative_adaptive",),
    sglang="_maybe_disable_adaptive",
    triggers=("speculative_adaptive",),
)
def speculative_adaptive_gate(v: View) -> Declare | None:
    """Adaptive step tuning runs only in the built-in single-layer EAGLE/EAGLE3 chain worker.

    It needs top-k 1, no attention DP (tiers are not synchronised across ranks), no
    multi-layer EAGLE, no two-batch overlap and no PD multiplexing; otherwise it goes off.
    """
    if not v.speculative_adaptive:
        return None
    reason = None
    topk = v.speculative_eagle_topk
    if _algorithm(v) not in ("EAGLE", "EAGLE3"):
        reason = f"only EAGLE and EAGLE3 support it, not {_algorithm(v)}"
    elif topk is not None and topk != 1:
        reason = f"it needs top-k 1, not {topk}"
    elif _attn_dp(v):
        reason = "attention DP ranks would pick tiers independently"
    elif v.enable_multi_layer_eagle:
        reason = "multi-layer EAGLE does not implement it"
    elif v.enable_two_batch_overlap:
        reason = "two-batch overlap does not support it"
    elif v.enable_pdmux:
        reason = "PD multiplexing does not support it"
    if reason is None:
        return None
    return Declare({"speculative_adaptive": False},
                   f"adaptive speculation disabled: {reason}; static parameters are used")


def _adaptive_steps(path: str | None) -> tuple[int, ...] | str:
    """Candidate steps from the adaptive config (a JSON file), or why they cannot be read."""
    if path is None:
        return ADAPTIVE_DEFAULT_STEPS
    try:
        with open(path, encoding="utf-8") as fh:
            config = json.load(fh)
    except (OSError, ValueError) as exc:
        return f"cannot read --speculative-adaptive-config {path}: {exc}"
    steps: set[int] = set()
    for key, entry in config.items():
        if not str(key).isdigit():
            continue
        values = entry.get("candidate_steps") if isinstance(entry, dict) else None
        if (not isinstance(values, list) or not values
                or not all(isinstance(s, int) and s >= 0 for s in values)):
            return f"batch size {key}: candidate_steps must be a list of non-negative integers"
        steps.update(values)
    if not steps:
        return "--speculative-adaptive-config needs at least one integer batch-size key"
    return tuple(sorted(steps))


@rule(
    phase=Phase.SPECULATIVE,
    reads=("speculative_adaptive", "speculative_adaptive_config", "speculative_eagle_topk",
           "speculative_num_steps"),
    writes=("speculative_eagle_topk", "speculative_num_steps", "speculative_num_draft_tokens"),
    sglang="_init_adaptive_speculative_params",
    triggers=("speculative_adaptive",),
)
def speculative_adaptive_params(v: View) -> dict | Refuse | None:
    """Adaptive speculation starts from the middle candidate step, top-k 1, a linear chain.

    Draft tokens are always steps + 1; explicit steps must be one of the candidates, since
    the runtime buffers are sized for exactly those.
    """
    if not v.speculative_adaptive:
        return None
    steps_or_error = _adaptive_steps(v.speculative_adaptive_config)
    if isinstance(steps_or_error, str):
        return Refuse(steps_or_error)
    candidates = steps_or_error
    out: dict[str, int] = {}
    if v.speculative_eagle_topk is None:
        out["speculative_eagle_topk"] = 1
    steps = v.speculative_num_steps
    if steps is None:
        steps = out["speculative_num_steps"] = candidates[len(candidates) // 2]
    if steps not in candidates:
        return Refuse(f"--speculative-num-steps {steps} is not one of the adaptive candidate "
                      f"steps {list(candidates)}")
    out["speculative_num_draft_tokens"] = steps + 1
    return out


# --- EAGLE, EAGLE3 and STANDALONE ------------------------------------------------------------


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + ("attn_dp_size", "ep_join_mode", "max_running_requests", "device",
                   "disable_overlap_schedule", "enable_mixed_chunk"),
    writes=("max_running_requests", "disable_overlap_schedule", "enable_mixed_chunk"),
    sglang="_handle_eagle_family (defaults)",
    triggers=_EAGLE_TRIGGER,
)
def eagle_family_defaults(v: View) -> Declare | Refuse | None:
    """EAGLE-family serving defaults: 48 running requests, CPU without overlap, no mixed chunk.

    STANDALONE's separate draft model has no attention-DP path. The draft and verify
    buffers are sized per running request, hence the small default. CPU has no overlapped
    speculative scheduler. Mixed prefill steps fall back to a plain one-token decode, which
    only EAGLE and EAGLE3 workers can resume from.
    """
    if _algorithm(v) == "STANDALONE" and _attn_dp(v):
        return Refuse("STANDALONE speculative decoding does not support attention DP")
    out = _running_requests(v)
    notes = [_RUNNING_NOTE] if out else []
    if v.device == "cpu" and not v.disable_overlap_schedule:
        out["disable_overlap_schedule"] = True
        notes.append("speculative decoding on CPU has no overlap schedule")
    if v.enable_mixed_chunk and _algorithm(v) not in MIXED_CHUNK_ALGORITHMS:
        out["enable_mixed_chunk"] = False
        notes.append(f"mixed chunked prefill disabled: {_algorithm(v)} does not support it")
    if not out:
        return None
    return Declare(out, "; ".join(notes))


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + ("speculative_draft_model_path", "model_path", "revision"),
    writes=("speculative_draft_model_path", "speculative_draft_model_revision"),
    facts=("model.arch0",),
    sglang="_handle_eagle_family (bundled MTP draft path)",
    triggers=_EAGLE_TRIGGER,
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
    reads=_ALGO + ("speculative_draft_model_path", "model_path", "speculative_token_map",
                   "speculative_num_steps", "speculative_eagle_topk",
                   "speculative_num_draft_tokens"),
    writes=("speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens"),
    facts=("model.arch0", "model.config", "draft.config"),
    sglang="_handle_iquest_q1_mtp_draft",
    triggers=_EAGLE_TRIGGER,
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
    reads=_ALGO + ("speculative_adaptive", "speculative_num_steps", "speculative_eagle_topk",
                   "speculative_num_draft_tokens"),
    writes=("speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens"),
    facts=("model.arch0",),
    sglang="_handle_eagle_family (_auto_choose_speculative_params)",
    triggers=_EAGLE_TRIGGER,
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
        steps, topk, tokens = auto_speculative_params(_algorithm(v), v.model.arch0)
        return {"speculative_num_steps": steps, "speculative_eagle_topk": topk,
                "speculative_num_draft_tokens": tokens}
    if v.speculative_eagle_topk is None:
        return Refuse("--speculative-num-steps without --speculative-eagle-topk: SGLang 0.5.23 "
                      "fails on the missing top-k (it compares None > 1); pass "
                      "--speculative-eagle-topk")
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + BACKEND_FIELDS + ("speculative_eagle_topk",),
    sglang="_handle_eagle_family (trtllm_mha top-k)",
    triggers=_EAGLE_TRIGGER,
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
    reads=_ALGO + ("speculative_use_rejection_sampling", "speculative_token_map",
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
    reads=_ALGO + ("speculative_use_rejection_sampling", "speculative_eagle_topk",
                   "enable_deterministic_inference", "device",
                   "speculative_accept_threshold_single", "speculative_accept_threshold_acc",
                   "enable_multi_layer_eagle"),
    sglang="_handle_eagle_family (rejection sampling checks)",
    triggers=_EAGLE_TRIGGER,
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
    if _algorithm(v) not in ("EAGLE", "EAGLE3"):
        return Refuse("--speculative-use-rejection-sampling works with EAGLE, EAGLE3 or NEXTN "
                      f"only, not {_algorithm(v)}")
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
    reads=_ALGO + ("speculative_use_rejection_sampling", "speculative_eagle_topk",
                   "enable_deterministic_inference", "speculative_accept_threshold_single",
                   "speculative_accept_threshold_acc"),
    sglang="_handle_eagle_family (rejection sampling checks, 0.5.21-0.5.22)",
    triggers=_EAGLE_TRIGGER,
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
    reads=_ALGO + ("speculative_eagle_topk", "speculative_num_steps",
                   "speculative_num_draft_tokens"),
    writes=("speculative_num_draft_tokens",),
    sglang="_handle_eagle_family (top-k 1 draft tokens)",
    triggers=_EAGLE_TRIGGER,
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
    reads=_ALGO + ("speculative_eagle_topk", "page_size", "attention_backend"),
    sglang="_handle_eagle_family (page-tree check)",
    triggers=_EAGLE_TRIGGER,
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


# --- NGRAM -----------------------------------------------------------------------------------


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + ("device", "disable_overlap_schedule", "max_running_requests",
                   "speculative_ngram_max_bfs_breadth", "speculative_num_draft_tokens",
                   "speculative_num_steps", "speculative_ngram_external_corpus_path",
                   "speculative_ngram_external_sam_budget",
                   "speculative_ngram_external_corpus_max_tokens"),
    writes=("disable_overlap_schedule", "max_running_requests", "enable_mixed_chunk",
            "speculative_eagle_topk", "speculative_num_draft_tokens", "speculative_num_steps"),
    sglang="_handle_ngram",
    triggers={"speculative_algorithm": ("NGRAM",)},
)
def ngram_defaults(v: View) -> Declare | Refuse | None:
    """NGRAM drafts a breadth-first tree from matched n-grams, with no draft model.

    The tree width is ``--speculative-ngram-max-bfs-breadth`` (default 10) and becomes the
    top-k; 12 draft tokens and steps = tokens // top-k by default; 48 running requests; no
    mixed chunk (its overlap relay skips the buffer the mixed step reads); CUDA, CPU or XPU.
    """
    if v.device not in ("cuda", "cpu", "xpu"):
        return Refuse(f"NGRAM speculative decoding runs on CUDA, CPU or XPU, not {v.device}")
    out: dict[str, Any] = {}
    notes = []
    if v.device == "cpu" and not v.disable_overlap_schedule:
        out["disable_overlap_schedule"] = True
        notes.append("speculative decoding on CPU has no overlap schedule")
    out.update(_running_requests(v))
    if "max_running_requests" in out:
        notes.append(_RUNNING_NOTE)
    out["enable_mixed_chunk"] = False
    topk = out["speculative_eagle_topk"] = v.speculative_ngram_max_bfs_breadth
    tokens = v.speculative_num_draft_tokens
    if tokens is None:
        tokens = out["speculative_num_draft_tokens"] = 12
    if v.speculative_num_steps is None:
        out["speculative_num_steps"] = tokens // topk
    if v.speculative_ngram_external_corpus_path is not None:
        budget = v.speculative_ngram_external_sam_budget
        if budget <= 0:
            return Refuse("--speculative-ngram-external-sam-budget must be positive with an "
                          "external corpus")
        if v.speculative_ngram_external_corpus_max_tokens <= 0:
            return Refuse("--speculative-ngram-external-corpus-max-tokens must be positive "
                          "with an external corpus")
        if budget > tokens - 1:
            return Refuse(f"--speculative-ngram-external-sam-budget must be at most "
                          f"speculative_num_draft_tokens - 1 ({tokens - 1})")
    notes.append("mixed chunked prefill disabled for NGRAM speculative decoding")
    return Declare(out, "; ".join(notes))


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + ("speculative_eagle_topk", "page_size", "attention_backend", "attn_dp_size",
                   "ep_join_mode"),
    sglang="_handle_ngram (checks)",
    triggers={"speculative_algorithm": ("NGRAM",)},
)
def ngram_checks(v: View) -> Refuse | None:
    """NGRAM trees on pages > 1 are correct only on flashinfer; no attention DP."""
    topk = v.speculative_eagle_topk
    if topk > 1 and v.page_size > 1 and v.attention_backend != "flashinfer":
        return Refuse(f"NGRAM with top-k {topk} and page_size {v.page_size} gives wrong results "
                      f"on {v.attention_backend}; only flashinfer supports it")
    if _attn_dp(v):
        return Refuse("NGRAM speculative decoding does not support attention DP")
    return None


# --- DFLASH ----------------------------------------------------------------------------------


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + ("device", "attn_dp_size", "ep_join_mode", "enable_dp_lm_head",
                   "attn_cp_size", "pp_size", "speculative_draft_model_path",
                   "speculative_num_steps", "speculative_eagle_topk",
                   "speculative_dflash_block_size", "speculative_num_draft_tokens",
                   "speculative_draft_window_size", "max_running_requests", "model_path"),
    writes=("speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens",
            "max_running_requests"),
    facts=("draft.config",),
    sglang="_handle_dflash",
    triggers={"speculative_algorithm": ("DFLASH",)},
)
def dflash_defaults(v: View) -> Declare | Refuse | None:
    """DFLASH drafts a whole block in one pass: steps and top-k are 1, tokens the block size.

    The block size comes from ``--speculative-dflash-block-size``, else the draft config's
    ``dflash_config.block_size`` (or top-level ``block_size``), else 16. It needs a draft
    model, pp 1, CUDA/NPU/XPU; with attention DP, CUDA or NPU and a DP LM head (greedy
    projection borrows the target head), no context parallelism.
    """
    device = str(v.device)
    if not (device.startswith("cuda") or device in ("npu", "xpu")):
        return Refuse(f"DFLASH speculative decoding is not supported on device {device}")
    if _attn_dp(v) and device != "npu":
        if not device.startswith("cuda"):
            return Refuse("DFLASH with attention DP needs CUDA or NPU")
        if not v.enable_dp_lm_head:
            return Refuse("DFLASH with attention DP needs --enable-dp-lm-head")
        if v.attn_cp_size != 1:
            return Refuse("DFLASH with attention DP does not support context parallelism")
        if v.record.env_flag("SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION"):
            return Refuse("DFLASH with attention DP needs "
                          "SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION off")
    if v.pp_size != 1:
        return Refuse("DFLASH speculative decoding supports pp_size 1 only")
    if v.speculative_draft_model_path is None:
        return Refuse("DFLASH speculative decoding needs --speculative-draft-model-path")
    out: dict[str, int] = {}
    notes = []
    for field in ("speculative_num_steps", "speculative_eagle_topk"):
        value = v[field]
        if value is None or int(value) != 1:
            out[field] = 1
            if value is not None:
                notes.append(f"DFLASH uses {field} 1, not {value}")
    tokens = v.speculative_num_draft_tokens
    block = v.speculative_dflash_block_size
    if block is not None:
        if int(block) <= 0:
            return Refuse(f"--speculative-dflash-block-size must be positive, got {block}")
        if tokens is not None and int(tokens) != int(block):
            return Refuse(f"--speculative-num-draft-tokens {tokens} and "
                          f"--speculative-dflash-block-size {block} must match for DFLASH")
        tokens = out["speculative_num_draft_tokens"] = int(block)
    if tokens is None:
        inferred = _dflash_block_size(_draft_config(v))
        if inferred is None:
            inferred = 16
            notes.append("DFLASH block size unknown: 16 draft tokens")
        tokens = out["speculative_num_draft_tokens"] = inferred
    window = v.speculative_draft_window_size
    if window is not None and window < int(tokens):
        return Refuse(f"--speculative-draft-window-size {window} must be at least the DFLASH "
                      f"block size {tokens}")
    out.update(_running_requests(v))
    if "max_running_requests" in out:
        notes.append(_RUNNING_NOTE)
    return Declare(out, "; ".join(notes) or None)


_DFLASH_DRAFT = dict(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + BACKEND_FIELDS + ("speculative_draft_attention_backend", "device"),
    writes=("speculative_draft_attention_backend",),
    facts=("target.is_hip", "target.is_sm100", "draft.config"),
    triggers={"speculative_algorithm": ("DFLASH",)},
)


@rule(sglang="_resolve_dflash_draft_attention_backend", **_DFLASH_DRAFT)
def dflash_draft_backend(v: View) -> Declare | None:
    """The DFLASH draft runs one attention backend: the given one, else the target's prefill.

    A value outside SGLang's draft backends falls back to flashinfer (triton on ROCm/XPU).
    trtllm_mha is kept only for drafts whose layers are all sliding-window or that are
    explicitly causal (its kernels have no bidirectional block mask); otherwise the fallback
    is used, fa4 on SM10x.
    """
    return _dflash_draft(v, sm100_fa4=True)


@rule(name="dflash_draft_backend", variant="0.5.22",
      sglang="_resolve_dflash_draft_attention_backend (0.5.21-0.5.22)", **_DFLASH_DRAFT)
def dflash_draft_backend_0_5_22(v: View) -> Declare | None:
    """As in 0.5.23, but a draft trtllm_mha cannot run falls back to flashinfer on SM10x
    too (0.5.23 keeps the FA4 path there)."""
    return _dflash_draft(v, sm100_fa4=False)


def _dflash_draft(v: View, sm100_fa4: bool) -> Declare | None:
    fallback = "triton" if v.target.is_hip or v.device == "xpu" else "flashinfer"
    backend = v.speculative_draft_attention_backend or effective_backends(v)[0]
    note = None
    if backend is None:
        backend = fallback
    elif backend not in DRAFT_BACKENDS:
        note = f"the DFLASH draft cannot run {backend}; it uses {fallback}"
        backend = fallback
    elif backend == "trtllm_mha":
        config = _draft_config(v) or {}
        text = _text_config(config)
        layer_types = text.get("layer_types", config.get("layer_types"))
        layers = text.get("num_hidden_layers")
        all_sliding = bool(layer_types) and len(layer_types) == layers and set(
            layer_types) == {"sliding_attention"}
        if not (all_sliding or text.get("is_causal") is True):
            if sm100_fa4 and v.target.is_sm100:
                fallback = "fa4"
            note = (f"the DFLASH draft is not all sliding-window or causal, so trtllm_mha "
                    f"cannot run it; it uses {fallback}")
            backend = fallback
    return Declare({"speculative_draft_attention_backend": backend}, note)


# --- DSPARK, UNO, FROZEN_KV_MTP --------------------------------------------------------------


def _dspark_gamma(config: Mapping | None) -> int | None:
    """Gamma from a DSpark checkpoint: ``dspark_block_size``, else its DFLASH block size."""
    if not config:
        return None
    value = config.get("dspark_block_size")
    if value is not None:
        return int(value)
    return _dflash_block_size(config)


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + ("device", "attn_dp_size", "enable_dp_lm_head", "moe_a2a_backend",
                   "attn_cp_size", "speculative_moe_a2a_backend", "pp_size",
                   "disaggregation_mode", "speculative_draft_model_path", "model_path",
                   "revision", "speculative_num_steps", "speculative_eagle_topk",
                   "speculative_dspark_block_size", "speculative_num_draft_tokens",
                   "max_running_requests"),
    writes=("speculative_draft_model_path", "speculative_draft_model_revision",
            "speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens",
            "max_running_requests"),
    facts=("model.has_dspark_keys", "model.config", "draft.config"),
    sglang="_handle_dspark",
    triggers={"speculative_algorithm": ("DSPARK",)},
)
def dspark_defaults(v: View) -> Declare | Refuse | None:
    """DSpark drafts gamma tokens in one pass and verifies gamma + 1: steps and top-k are 1.

    Gamma is ``--speculative-dspark-block-size``, else the draft config's, else 7 unless
    draft tokens are given. A target carrying ``dspark_*`` keys is its own draft. Needs
    CUDA/NPU/XPU; with attention DP a DP LM head and an A2A backend of none/megamoe/mori;
    pp > 1 only on a PD prefill server; 48 running requests.

    A draft shipped as a ``dspark/`` subfolder of the target checkpoint is not looked for
    (launchplan reads no file system on the resolution path): give its path explicitly.
    """
    device = str(v.device)
    npu = device.startswith("npu")
    if not device.startswith(("cuda", "npu", "xpu")):
        return Refuse("DSpark speculative decoding runs on CUDA, NPU or XPU only")
    if v.attn_dp_size > 1:
        if not v.enable_dp_lm_head:
            return Refuse("DSpark with attention DP needs --enable-dp-lm-head")
        if not npu and v.moe_a2a_backend not in ("none", "megamoe", "mori"):
            return Refuse("DSpark with attention DP supports moe_a2a_backend none, megamoe or "
                          f"mori, not {v.moe_a2a_backend}")
        if not npu and (v.moe_a2a_backend != "none" or v.record.env_flag(
                "SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION")):
            if v.env.get("SGLANG_RAGGED_VERIFY_MODE", "").strip().lower() != "static":
                return Refuse("DSpark DP MoE or prefill coordination needs "
                              "SGLANG_RAGGED_VERIFY_MODE=static")
        if v.attn_cp_size > 1:
            return Refuse("DSpark with attention DP does not support context parallelism")
        if (not npu and v.speculative_moe_a2a_backend is not None
                and v.speculative_moe_a2a_backend != v.moe_a2a_backend):
            return Refuse("DSpark with attention DP needs --speculative-moe-a2a-backend to "
                          f"match moe_a2a_backend {v.moe_a2a_backend}")
    if v.pp_size != 1 and v.disaggregation_mode != "prefill":
        return Refuse("DSpark with pipeline parallelism runs only on a PD prefill server")
    out: dict[str, Any] = {}
    notes = []
    draft_config = _draft_config(v)
    if v.speculative_draft_model_path is None:
        if not v.model.has_dspark_keys:
            return Refuse("DSpark speculative decoding needs --speculative-draft-model-path")
        out["speculative_draft_model_path"] = v.model_path
        out["speculative_draft_model_revision"] = v.revision
        draft_config = v.model.config
        notes.append("the DSpark draft is bundled in the target checkpoint")
    for field in ("speculative_num_steps", "speculative_eagle_topk"):
        value = v[field]
        if value is None or int(value) != 1:
            out[field] = 1
    tokens = v.speculative_num_draft_tokens
    gamma: int | None
    if v.speculative_dspark_block_size is not None:
        gamma = int(v.speculative_dspark_block_size)
        if gamma <= 0:
            return Refuse(f"--speculative-dspark-block-size must be positive, got {gamma}")
    else:
        gamma = _dspark_gamma(draft_config)
        if gamma is None and tokens is None:
            gamma = 7
            notes.append("DSpark gamma unknown: 7")
    if gamma is not None:
        window = gamma + 1
        if tokens is not None and int(tokens) != window:
            return Refuse(f"DSpark verifies gamma + 1 = {window} tokens; "
                          f"--speculative-num-draft-tokens is {tokens}")
        tokens = out["speculative_num_draft_tokens"] = window
    if int(tokens) < 2:
        return Refuse(f"DSpark needs at least 2 draft tokens (gamma + 1), got {tokens}")
    out.update(_running_requests(v))
    if "max_running_requests" in out:
        notes.append(_RUNNING_NOTE)
    return Declare(out, "; ".join(notes) or None)


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + BACKEND_FIELDS + (
        "device", "speculative_draft_model_path", "uno_lora_path",
        "enable_deterministic_inference", "enable_strict_thinking",
        "speculative_num_draft_tokens", "speculative_eagle_topk", "speculative_num_steps",
        "enable_pdmux", "enable_two_batch_overlap", "speculative_accept_threshold_single",
        "speculative_accept_threshold_acc", "tp_size", "pp_size", "attn_dp_size",
        "ep_join_mode", "attn_cp_size", "enable_lora", "lora_paths",
        "speculative_use_rejection_sampling", "enable_mixed_chunk"),
    writes=("speculative_num_draft_tokens", "speculative_num_steps", "speculative_eagle_topk",
            "enable_lora_overlap_loading", "lora_strict_loading", "enable_mixed_chunk"),
    sglang="_handle_uno",
    triggers={"speculative_algorithm": ("UNO",)},
)
def uno_defaults(v: View) -> Declare | Refuse | None:
    """UNO drafts with a LoRA on the target itself, on CUDA, TP = PP = 1, FA3 both ways.

    Draft tokens (the verify width Q) must be given. Top-k 1 is a linear chain (steps and
    top-k 1); top-k K > 1 is a tree of F = steps + 1 levels with F <= Q <= 128, Q*K <= 2048
    and Q within the tree and EAGLE's parent-list capacity.
    """
    if not str(v.device).startswith("cuda"):
        return Refuse("UNO speculative decoding runs on CUDA only")
    if v.speculative_draft_model_path is not None:
        return Refuse("UNO drafts with the target model; drop --speculative-draft-model-path")
    if v.uno_lora_path is None:
        return Refuse("UNO needs --uno-lora-path")
    if v.enable_deterministic_inference:
        return Refuse("UNO does not support --enable-deterministic-inference (no per-request "
                      "seeds in its sampling)")
    if v.enable_strict_thinking:
        return Refuse("UNO does not support --enable-strict-thinking (it needs grammar "
                      "decoding)")
    width = v.speculative_num_draft_tokens
    if width is None or int(width) < 1:
        return Refuse("UNO needs a positive --speculative-num-draft-tokens (the verify width)")
    width = int(width)
    out: dict[str, Any] = {"speculative_num_draft_tokens": width}
    topk = 1 if v.speculative_eagle_topk is None else int(v.speculative_eagle_topk)
    if topk < 1:
        return Refuse(f"UNO needs --speculative-eagle-topk of at least 1, got {topk}")
    if topk > 1:
        refusal = _uno_tree_refusal(v, width, topk)
        if refusal is not None:
            return refusal
        out.update(speculative_num_steps=int(v.speculative_num_steps),
                   speculative_eagle_topk=topk)
    else:
        out.update(speculative_num_steps=1, speculative_eagle_topk=1)
    if (v.tp_size, v.pp_size) != (1, 1):
        return Refuse("UNO needs tp_size 1 and pp_size 1")
    if _attn_dp(v) or v.attn_cp_size != 1:
        return Refuse("UNO does not support attention DP or context parallelism")
    if v.enable_lora or v.lora_paths:
        return Refuse("UNO does not support serving other LoRA adapters")
    out.update(enable_lora_overlap_loading=False, lora_strict_loading=True)
    if v.speculative_use_rejection_sampling:
        return Refuse("UNO verifies stochastically itself; drop "
                      "--speculative-use-rejection-sampling")
    note = None
    if v.enable_mixed_chunk:
        out["enable_mixed_chunk"] = False
        note = "mixed chunked prefill disabled for UNO speculative decoding"
    prefill, decode = effective_backends(v)
    if (prefill, decode) != ("fa3", "fa3"):
        return Refuse(f"UNO needs fa3 for prefill and decode; got {prefill} and {decode}")
    return Declare(out, note)


def _uno_tree_refusal(v: Any, width: int, topk: int) -> Refuse | None:
    steps = v.speculative_num_steps
    if steps is None:
        return Refuse("UNO tree mode (top-k > 1) needs --speculative-num-steps")
    steps = int(steps)
    if steps < 1:
        return Refuse(f"UNO tree mode needs a positive --speculative-num-steps, got {steps}")
    levels = steps + 1
    if width < levels:
        return Refuse(f"UNO tree mode needs Q >= F; got Q={width}, F={levels}")
    if width > 128:
        return Refuse(f"UNO tree mode supports at most Q=128 verify nodes, got {width}")
    if width * topk > 2048:
        return Refuse(f"UNO tree mode needs Q*K <= 2048, got {width}*{topk}")
    capacity, nodes = 1, 1
    for _ in range(steps):
        nodes *= topk
        capacity += nodes
        if capacity >= width:
            break
    if width > capacity:
        return Refuse(f"UNO tree mode cannot build Q={width} from F={levels}, K={topk} "
                      f"(capacity {capacity})")
    parents = topk * max(steps - 1, 0) + 1
    if width - 1 > parents:
        return Refuse(f"UNO tree mode: Q-1={width - 1} exceeds EAGLE's parent list "
                      f"K*(F-2)+1={parents}")
    if v.enable_pdmux:
        return Refuse("UNO tree mode does not support PD multiplexing")
    if v.enable_two_batch_overlap:
        return Refuse("UNO tree mode does not support two-batch overlap")
    if (v.speculative_accept_threshold_single != 1.0
            or v.speculative_accept_threshold_acc != 1.0):
        return Refuse("UNO tree mode needs both speculative accept thresholds at 1.0")
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + ("max_running_requests", "enable_mixed_chunk"),
    writes=("max_running_requests", "enable_mixed_chunk"),
    sglang="_handle_frozen_kv_mtp",
    triggers={"speculative_algorithm": ("FROZEN_KV_MTP",)},
)
def frozen_kv_mtp_defaults(v: View) -> Declare | None:
    """Frozen-KV MTP: 48 running requests and no mixed chunk; no step/top-k defaults here.

    SGLang 0.5.23 fills no steps, top-k or draft tokens for it during resolution.
    """
    out = _running_requests(v)
    notes = [_RUNNING_NOTE] if out else []
    if v.enable_mixed_chunk:
        out["enable_mixed_chunk"] = False
        notes.append("mixed chunked prefill disabled for Frozen-KV MTP")
    return Declare(out, "; ".join(notes)) if out else None


# --- P51: boundary reduction -----------------------------------------------------------------

_RSV_ARCHS = frozenset({"BailingMoELinearForCausalLM", "BailingMoeV2_5ForCausalLM",
                        "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN",
                        "Step3VLForConditionalGeneration"})
_AR_ARCHS = frozenset({"KimiK3ForConditionalGeneration", "KimiK3LinearForCausalLM",
                       "Qwen3ForCausalLM", "Qwen3ForSequenceClassification", "Qwen3Model",
                       "Qwen3ForRewardModel", "MossVLForCausalLM",
                       "MossVLForConditionalGeneration", "Qwen4ExpForConditionalGeneration",
                       "Qwen4ExpForCausalLMMTP"})


@per_object
def model_boundary_reduction(config: Mapping) -> str:
    """How a model reduces at layer boundaries: ``rsv``, ``ar`` or the default ``rs+rsv``.

    Decided by the architectures, MiniCPM-V 4.5, the Qwen3 model types, else the nested
    language config of a wrapper.
    """
    archs = set(config.get("architectures") or ())
    if archs & _RSV_ARCHS:
        return "rsv"
    if archs & _AR_ARCHS:
        return "ar"
    model_type = config.get("model_type")
    if model_type == "minicpmv" and str(config.get("version", "")) == "4.5":
        return "ar"
    if model_type in ("qwen3", "qwen3_vl_text"):
        return "ar"
    for name in ("text_config", "llm_config", "language_config"):
        nested = config.get(name)
        if isinstance(nested, Mapping) and nested is not config:
            return model_boundary_reduction(nested)
    return "rs+rsv"


@rule(
    phase=Phase.SPECULATIVE,
    reads=_ALGO + ("boundary_reduction", "model_path", "speculative_draft_model_path"),
    writes=("boundary_reduction", "speculative_boundary_reduction"),
    facts=("model.config", "draft.config"),
    sglang="resolve_boundary_reduction",
)
def boundary_reduction_default(v: View) -> dict:
    """``auto`` boundary reduction becomes the model's (and a separate draft's) preference.

    Models whose layers end in a reduce-scatter with a sequence-parallel residual prefer
    ``rsv``, plain Qwen3/Kimi-K3 families an all-reduce (``ar``), others ``rs+rsv``.
    """
    requested = v.boundary_reduction
    if requested != "auto":
        return {"boundary_reduction": requested, "speculative_boundary_reduction": requested}
    target = draft = model_boundary_reduction(v.model.config)
    path = v.speculative_draft_model_path
    if _algorithm(v) is not None and path is not None and path != v.model_path:
        config = _draft_config(v)
        if config is not None:
            draft = model_boundary_reduction(config)
    return {"boundary_reduction": target, "speculative_boundary_reduction": draft}
