"""The speculative algorithm, normalised and checked before any algorithm's own rules run.

Upper case, ``NEXTN`` is ``EAGLE``, a Gemma-4 assistant draft turns EAGLE into
``FROZEN_KV_MTP``; the draft revision, block verification, draft window and the known
algorithms are settled here (SGLang's P32 ``handle_speculative_decoding``, its first steps).
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts import environment
from launchplan.rules.speculative.common import (
    ALGO,
    algorithm_of,
)
from launchplan.vocabulary import SPECULATIVE_ALGORITHMS

GEMMA4_ASSISTANT_DRAFTS = ("Gemma4AssistantForCausalLM", "Gemma4UnifiedAssistantForCausalLM")


@rule(
    phase=Phase.SPECULATIVE,
    reads=("speculative_draft_model_path", "speculative_draft_model_revision"),
    writes=("speculative_draft_model_revision",),
    sglang="handle_speculative_decoding (draft revision)",
    triggers=("speculative_draft_model_path",),
)
def speculative_draft_revision_default(v: View) -> dict | None:
    """A draft path without a revision loads the draft from the ``main`` revision.

    When: ``--speculative-draft-model-path`` is given without
        ``--speculative-draft-model-revision``.
    Effect: ``speculative_draft_model_revision`` = ``main``.
    Why: ``handle_speculative_decoding`` (arg_groups/speculative_hook.py) pins an unpinned draft to
        its repository's ``main`` branch before the draft config is loaded.
    Assumes: nothing.
    """
    if v.speculative_draft_model_path is not None and v.speculative_draft_model_revision is None:
        return {"speculative_draft_model_revision": "main"}
    return None


_DRAFT_RUNNER = dict(
    phase=Phase.SPECULATIVE,
    reads=("speculative_moe_runner_backend", "moe_runner_backend"),
    writes=("speculative_moe_runner_backend",),
)


@rule(**_DRAFT_RUNNER, sglang="_speculative_moe_runner_default")
def speculative_moe_runner_default(v: View) -> dict | None:
    """An unset draft MoE runner follows the target's resolved runner (runs without drafts too).

    When: ``--speculative-moe-runner-backend`` is unset (with or without a speculative algorithm).
    Effect: ``speculative_moe_runner_backend`` = the target's ``moe_runner_backend``, except
        flashinfer_megamoe → flashinfer_trtllm and a ``lora_*`` runner → ``auto``.
    Why: flashinfer_megamoe routes by global expert id over weights it prepared for quantized
        layers only, so an (unquantized) MTP draft cannot use it; a target-only LoRA runner
        leaves the adapter-free draft on ``auto`` (``_speculative_moe_runner_default``,
        arg_groups/overrides.py).
    Assumes: nothing.
    """
    if v.speculative_moe_runner_backend is not None:
        return None
    runner = v.moe_runner_backend
    if runner == "flashinfer_megamoe":
        runner = "flashinfer_trtllm"
    elif str(runner).startswith("lora_"):
        runner = "auto"
    return {"speculative_moe_runner_backend": runner}


@rule(name="speculative_moe_runner_default", variant="0.5.21", **_DRAFT_RUNNER,
      sglang="_speculative_moe_runner_default (0.5.21)")
def speculative_moe_runner_default_0_5_21(v: View) -> dict | None:
    """0.5.21: an unset draft MoE runner is the target's resolved runner, whatever it is.

    When: ``--speculative-moe-runner-backend`` is unset.
    Effect: ``speculative_moe_runner_backend`` = the target's ``moe_runner_backend``,
        flashinfer_megamoe included.
    Why: the flashinfer_megamoe exception for unquantized MTP drafts came in 0.5.22 (0.5.21
        has no LoRA runners to except).
    Assumes: nothing.
    """
    if v.speculative_moe_runner_backend is not None:
        return None
    return {"speculative_moe_runner_backend": v.moe_runner_backend}


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO,
    writes=ALGO,
    sglang="handle_speculative_decoding (upper-case)",
    triggers=ALGO,
    normalizes=True,
)
def speculative_algorithm_upper(v: View) -> dict | None:
    """Algorithm names are case-insensitive: ``eagle`` is ``EAGLE``.

    When: the algorithm is given in other than upper case.
    Effect: ``speculative_algorithm`` = the name in upper case.
    Why: ``handle_speculative_decoding`` (arg_groups/speculative_hook.py) upper-cases the name
        before any comparison.
    Assumes: nothing.
    """
    algorithm = algorithm_of(v)
    if algorithm is not None and algorithm != algorithm.upper():
        return {"speculative_algorithm": algorithm.upper()}
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("speculative_draft_model_path",),
    writes=ALGO,
    facts=("draft.architectures",),
    sglang="_resolve_speculative_algorithm_alias (Gemma-4 assistant drafts)",
    triggers=("speculative_draft_model_path",),
)
def speculative_gemma4_assistant(v: View) -> Declare | Refuse | None:
    """A Gemma-4 assistant draft reads the target's frozen KV: EAGLE/NEXTN become FROZEN_KV_MTP.

    When: the draft checkpoint (``--speculative-draft-model-path``) is a Gemma-4 assistant
        architecture.
    Effect: EAGLE or NEXTN become ``speculative_algorithm`` = ``FROZEN_KV_MTP``, with a note;
        EAGLE3 is refused.
    Why: the assistant has no hidden-state fusion of its own, so EAGLE3 (which feeds it three
        target layers) cannot drive it (``_resolve_speculative_algorithm_alias``,
        arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    algorithm = algorithm_of(v)
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
    reads=ALGO,
    writes=ALGO,
    sglang="_resolve_speculative_algorithm_alias (NEXTN)",
    triggers=ALGO,
    normalizes=True,
)
def speculative_nextn_alias(v: View) -> dict | None:
    """NEXTN is another name for EAGLE: DeepSeek-style MTP runs through the EAGLE worker.

    When: the algorithm is ``NEXTN``.
    Effect: ``speculative_algorithm`` = ``EAGLE``.
    Why: DeepSeek-style MTP runs through the EAGLE worker (``_resolve_speculative_algorithm_alias``,
        arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    if algorithm_of(v) == "NEXTN":
        return {"speculative_algorithm": "EAGLE"}
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("disaggregation_mode", "disaggregation_decode_enable_radix_cache"),
    sglang="handle_speculative_decoding (PD decode radix cache)",
    triggers=ALGO,
)
def speculative_decode_radix_check(v: View) -> Refuse | None:
    """A PD decode server's radix cache works only with no, DSPARK or EAGLE(3) speculation.

    When: a PD decode server runs with ``--disaggregation-decode-enable-radix-cache``.
    Effect: refuses any algorithm other than DSPARK, EAGLE or EAGLE3, naming it.
    Why: ``handle_speculative_decoding`` (arg_groups/speculative_hook.py) supports the decode
        server's radix cache with those drafts only.
    Assumes: nothing.
    """
    algorithm = algorithm_of(v)
    if (v.disaggregation_mode == "decode" and v.disaggregation_decode_enable_radix_cache
            and algorithm not in (None, "DSPARK", "EAGLE", "EAGLE3")):
        return Refuse("--disaggregation-decode-enable-radix-cache cannot be combined with "
                      f"{algorithm} speculative decoding")
    return None


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("speculative_use_block_verification", "device",
                  "speculative_use_rejection_sampling"),
    writes=("speculative_use_rejection_sampling",),
    sglang="handle_speculative_decoding (block verification)",
    triggers=("speculative_use_block_verification",),
)
def speculative_block_verification(v: View) -> Refuse | dict | None:
    """Block verification needs sampled proposals with their distributions, on CUDA or ROCm.

    When: ``--speculative-use-block-verification`` is on.
    Effect: refuses algorithms other than EAGLE, EAGLE3, NEXTN, DFLASH or DSPARK and devices
        other than CUDA/ROCm; for EAGLE(3), ``speculative_use_rejection_sampling`` = true.
    Why: only those algorithms emit proposals with their distributions, EAGLE(3) only through
        rejection sampling (``handle_speculative_decoding``, arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    if not v.speculative_use_block_verification:
        return None
    algorithm = algorithm_of(v)
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
    reads=ALGO + ("speculative_draft_window_size", "speculative_draft_sink_size"),
    writes=("speculative_draft_window_size", "speculative_draft_sink_size"),
    sglang="handle_speculative_decoding (draft window and sink)",
    triggers=("speculative_draft_window_size", "speculative_draft_sink_size"),
)
def speculative_draft_window(v: View) -> Declare | Refuse | None:
    """The draft's sliding window must be positive, its sink non-negative and need a window.

    When: ``--speculative-draft-window-size`` or ``--speculative-draft-sink-size`` is given.
    Effect: ``speculative_draft_window_size``/``speculative_draft_sink_size`` as integers; refuses
        a window <= 0, a negative sink and a sink without a window; notes that a window has no
        effect with algorithms other than EAGLE, EAGLE3 and DFLASH.
    Why: only DFLASH, Llama EAGLE-3 and the EAGLE/MTP draft decode on triton/flashinfer honour a
        window; elsewhere it is accepted but has no effect (``handle_speculative_decoding``,
        arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    out: dict[str, int] = {}
    note = None
    window = v.speculative_draft_window_size
    if window is not None:
        if int(window) <= 0:
            return Refuse(f"--speculative-draft-window-size must be positive, got {window}")
        out["speculative_draft_window_size"] = int(window)
        if algorithm_of(v) not in ("EAGLE", "EAGLE3", "DFLASH"):
            note = (f"--speculative-draft-window-size has no effect with "
                    f"{algorithm_of(v)} speculative decoding")
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
    reads=ALGO,
    sglang="SpeculativeAlgorithm.from_string",
    triggers=ALGO,
)
def speculative_algorithm_known(v: View) -> Refuse | None:
    """Only SGLang's built-in algorithms are known (plugins register more; none is modelled).

    When: a speculative algorithm is given.
    Effect: refuses a name that is not a built-in algorithm (or NEXTN), listing the known ones.
    Why: ``SpeculativeAlgorithm.from_string`` (speculative/spec_info.py) accepts only registered
        names.
    Assumes: no speculative-algorithm plugin is installed.
    """
    algorithm = algorithm_of(v)
    if algorithm is not None and algorithm not in SPECULATIVE_ALGORITHMS:
        return Refuse(f"unknown speculative algorithm {algorithm!r}; expected one of "
                      + ", ".join(SPECULATIVE_ALGORITHMS) + " or NEXTN")
    return None


@rule(
    name="speculative_algorithm_known",
    variant="0.5.22",
    phase=Phase.SPECULATIVE,
    reads=ALGO,
    sglang="SpeculativeAlgorithm.from_string; --speculative-skip-dp-mlp-sync check (0.5.21-0.5.22)",
)
def speculative_algorithm_known_0_5_22(v: View) -> Refuse | None:
    """As in 0.5.23, and ``--speculative-skip-dp-mlp-sync`` (removed in 0.5.23) needs EAGLE.

    When: whenever its promises hold (this variant serves the 0.5.21-0.5.22 releases).
    Effect: the 0.5.23 refusal of unknown names; also refuses ``--speculative-skip-dp-mlp-sync``
        with an algorithm other than EAGLE.
    Why: skipping the data-parallel MLP sync was built for the EAGLE worker only (NEXTN is EAGLE
        by now). The field exists only in these releases' tables, so it is read by name.
    Assumes: no speculative-algorithm plugin is installed.
    """
    refused = speculative_algorithm_known(v)
    if refused is None and v.get("speculative_skip_dp_mlp_sync") and algorithm_of(v) != "EAGLE":
        return Refuse("--speculative-skip-dp-mlp-sync works with the EAGLE algorithm only, not "
                      f"{algorithm_of(v)}")
    return refused


# the algorithms whose scheduler coordinates DP speculation with prefill (0.5.22 on: DSPARK)
DP_COORDINATION_ALGORITHMS = ("EAGLE", "EAGLE3", "DSPARK")
_DP_COORDINATION: dict[str, Any] = dict(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("enable_multi_layer_eagle",),
)


@rule(**_DP_COORDINATION,
      sglang="handle_speculative_decoding (SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION)")
def speculative_dp_coordination_check(v: View) -> Refuse | None:
    """DP spec/prefill coordination is built for a single-layer EAGLE, EAGLE3 or DSPARK chain.

    When: ``SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION`` is on in the given environment.
    Effect: refuses the launch unless the algorithm is EAGLE (NEXTN), EAGLE3 or DSPARK without
        multi-layer EAGLE: no speculation at all is refused too.
    Why: the scheduler's coordination of DP speculation with prefill exists for those chains
        only (``handle_speculative_decoding``).
    Assumes: the variable is off unless the given environment sets it.
    """
    return _dp_coordination_refusal(v, DP_COORDINATION_ALGORITHMS)


@rule(name="speculative_dp_coordination_check", variant="0.5.21", **_DP_COORDINATION,
      sglang="handle_speculative_decoding (SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION, 0.5.21)")
def speculative_dp_coordination_check_0_5_21(v: View) -> Refuse | None:
    """0.5.21: DP spec/prefill coordination is for single-layer EAGLE or EAGLE3 only.

    When: as ``speculative_dp_coordination_check``.
    Effect: as ``speculative_dp_coordination_check``, DSPARK refused too.
    Why: DSPARK joined the coordinated chains in 0.5.22 (``handle_speculative_decoding``).
    Assumes: as ``speculative_dp_coordination_check``.
    """
    return _dp_coordination_refusal(v, DP_COORDINATION_ALGORITHMS[:2])


def _dp_coordination_refusal(v: View, algorithms: tuple[str, ...]) -> Refuse | None:
    if not v.record.env_flag("SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION"):
        return None
    algorithm = algorithm_of(v)
    if algorithm in algorithms and not v.enable_multi_layer_eagle:
        return None
    return Refuse("SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION needs single-layer "
                  + ", ".join(algorithms[:-1]) + f" or {algorithms[-1]} speculation, not "
                  + (f"{algorithm}" + (" (multi-layer)" if algorithm in algorithms else "")
                     if algorithm else "none"))


#: The verify layouts SGLang's ``SGLANG_RAGGED_VERIFY_MODE`` names (``RaggedVerifyMode``),
#: compared as written: no case folding, no trimming.
RAGGED_VERIFY_MODES = ("static", "cap-accept", "compact")


@rule(phase=Phase.SPECULATIVE, reads=ALGO,
      sglang="SpeculativeAlgorithm.handle_server_args (read_ragged_verify_mode)")
def speculative_ragged_verify_mode_known(v: View) -> Refuse | None:
    """Speculation refuses a verify layout it does not know before any algorithm's defaults.

    When: a speculative algorithm is set and the environment gives
        ``SGLANG_RAGGED_VERIFY_MODE`` a value other than static, cap-accept or compact (as
        written: ``Static`` and `` static`` are unknown too).
    Effect: refuses the launch, naming the value and the three layouts.
    Why: SGLang checks the variable once at start-up, for every in-tree algorithm, so that a
        typo fails there rather than in the metrics paths that read it later
        (``SpeculativeAlgorithm.handle_server_args``, 0.5.21 to 0.5.23).
    Assumes: the variable is static (unset) unless the given environment sets it.
    """
    if algorithm_of(v) is None:
        return None
    mode = environment.value(v.env, "SGLANG_RAGGED_VERIFY_MODE")
    if mode in RAGGED_VERIFY_MODES:
        return None
    return Refuse(f"SGLANG_RAGGED_VERIFY_MODE={mode!r} is no verify layout SGLang knows: "
                  f"expected one of {', '.join(RAGGED_VERIFY_MODES)}")
