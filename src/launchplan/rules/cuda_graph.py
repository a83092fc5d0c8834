"""CUDA-graph configuration: the parse with its precedence and locks, and its cascades.

SGLang folds a legacy flag, per-phase disables, convenience flags and a JSON object into one
``cuda_graph_config`` early in the pipeline (before any attention backend is known), then
lets later rules switch phases off. Keys the user set are *locked* against the default
cascades, though some hard incompatibilities ignore the lock.
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.graph_config import (
    BACKENDS,
    DECODE,
    INPUT_FIELDS,
    PHASES,
    PREFILL,
    default_config,
    is_locked,
    multimodal_blocks_breakable,
    prefill_sizes,
    requested_settings,
    with_phase,
)
from launchplan.rules.parallel import supports_prefill_cp_graph
from launchplan.rules.size_lists import as_sequence, largest, rounded_up
from launchplan.vocabulary import BREAKABLE_GRAPH_A2A

INKLING_ARCHS = ("InklingForConditionalGeneration", "InklingForConditionalGenerationMTP")
MUSE_GLIMMER_ARCHS = ("MuseGlimmerForCausalLM", "MuseGlimmerForConditionalGeneration")



@rule(
    phase=Phase.CUDA_GRAPH,
    reads=INPUT_FIELDS,
    writes=("cuda_graph_config",),
    facts=("target.is_cuda",),
    sglang="parse_cuda_graph_config",
)
def parse_cuda_graph_config(v: View) -> dict:
    """Fold every CUDA-graph input into one config, by SGLang's precedence.

    Lowest to highest: defaults (decode full; prefill breakable on CUDA, disabled on ROCm),
    ``--disable-cuda-graph``, ``--disable-{prefill,decode}-cuda-graph``, the per-phase
    convenience flags, then ``--cuda-graph-config`` JSON key by key.
    """
    config = default_config(v.target.is_cuda)
    for name in INPUT_FIELDS:
        value = v[name]
        if value is not None and value is not False:
            break
    else:  # nothing asked for: the default as it is
        return {"cuda_graph_config": config}
    settings, _ = requested_settings(v)
    for (phase, key), value in settings.items():
        config[phase][key] = value  # a fresh config of our own, not yet declared
    return {"cuda_graph_config": config}


_COMPATIBILITY = dict(
    phase=Phase.CUDA_GRAPH,
    reads=INPUT_FIELDS + ("pp_size", "attn_cp_size", "dcp_size", "enable_two_batch_overlap",
                          "moe_a2a_backend", "enable_multimodal", "language_model_only",
                          "model_impl", "enable_prefill_cp", "cp_strategy", "tp_size",
                          "dp_size", "ep_size", "attention_backend",
                          "prefill_attention_backend", "decode_attention_backend"),
    writes=("cuda_graph_config",),
    facts=("model.uses_kda", "model.arch0", "model.architectures", "model.is_multimodal"),
)


@rule(sglang="apply_cuda_graph_compatibility / disable_breakable_cudagraph_if_incompatible",
      **_COMPATIBILITY)
def cuda_graph_compatibility(v: View) -> Declare | None:
    """Disable a default breakable prefill graph that a feature cannot capture.

    Skipped when the user chose the prefill backend. Pipeline parallelism makes prefill
    graphs opt-in; KDA hybrid linear attention (but GLM-5-Next), DeepSeek-V4, attention CP
    (unless the layout is already one with a breakable-graph path, e.g. zigzag on an explicit
    trtllm_mha), decode CP, two-batch overlap, A2A backends outside
    none/deepep/megamoe/flashinfer and multimodal models outside the validated list cannot
    run a breakable prefill graph.
    """
    return _compatibility(v, supports_prefill_cp_graph)


@rule(name="cuda_graph_compatibility", variant="0.5.22",
      sglang="apply_cuda_graph_compatibility (0.5.21-0.5.22)", **_COMPATIBILITY)
def cuda_graph_compatibility_0_5_22(v: View) -> Declare | None:
    """As in 0.5.23, with 0.5.22's test of a supported prefill-CP layout: zigzag on
    trtllm_mha, or interleave on dsv4 (0.5.23 swapped the latter for GLM-5-Next on dsa)."""
    return _compatibility(v, _cp_graph_supported_0_5_22)


def _compatibility(v: View, cp_supported: Any) -> Declare | None:
    config = v.cuda_graph_config
    if config[PREFILL]["backend"] != "breakable" or is_locked(v, PREFILL, "backend"):
        return None
    reason = _breakable_prefill_blocker(v, cp_supported)
    if reason is None:
        return None
    return Declare({"cuda_graph_config": with_phase(config, PREFILL, backend="disabled")},
                   f"prefill CUDA graph disabled: {reason}")


def _cp_graph_supported_0_5_22(v: View) -> bool:
    """0.5.22's test of a breakable-graph prefill-CP layout (backends as resolved so far)."""
    if not (v.enable_prefill_cp and v.pp_size == 1 and v.attn_cp_size == v.tp_size):
        return False
    prefill = v.prefill_attention_backend or v.attention_backend
    return ((v.cp_strategy == "zigzag" and prefill == "trtllm_mha")
            or (v.cp_strategy == "interleave" and prefill == "dsv4"))


def _breakable_prefill_blocker(v: View, cp_supported: Any = None) -> str | None:
    model = v.model
    if v.pp_size > 1:
        return "pipeline parallelism makes prefill graphs opt-in"
    if model.uses_kda and model.arch0 != "Glm5NextForConditionalGeneration":
        return "KDA linear attention cannot run a breakable prefill graph"
    if model.arch0.startswith("DeepseekV4"):
        return "DeepSeek-V4 cannot run a breakable prefill graph"
    if v.attn_cp_size > 1 and (cp_supported is None or not cp_supported(v)):
        return "attention context parallelism cannot run a breakable prefill graph"
    if v.dcp_size > 1:
        return "decode context parallelism cannot run a breakable prefill graph"
    if v.enable_two_batch_overlap:
        return "two-batch overlap cannot run a breakable prefill graph"
    if v.moe_a2a_backend not in BREAKABLE_GRAPH_A2A:
        return f"the {v.moe_a2a_backend} A2A backend cannot run a breakable prefill graph"
    if multimodal_blocks_breakable(v):
        return f"{model.arch0} is a multimodal model not validated with a breakable prefill graph"
    return None


@rule(
    phase=Phase.CUDA_GRAPH,
    reads=("cuda_graph_config", "moe_a2a_backend"),
    writes=("cuda_graph_config",),
    sglang="apply_deepep_adjustments",
    triggers=("moe_a2a_backend",),
)
def deepep_prefill_alignment(v: View) -> dict | None:
    """Round breakable prefill capture sizes up to multiples of 8 under DeepEP (lock ignored).

    DeepEP dispatches token counts in multiples of 8; sizes come from ``bs``, else are
    generated from ``max_bs`` (2048 when unset).
    """
    config = v.cuda_graph_config
    prefill = config[PREFILL]
    if v.moe_a2a_backend != "deepep" or prefill["backend"] != "breakable":
        return None
    sizes = prefill["bs"] or prefill_sizes(prefill["max_bs"] or 2048)
    aligned = rounded_up(sizes, 8)
    if aligned == as_sequence(sizes):
        return None
    return {"cuda_graph_config": with_phase(config, PREFILL, bs=aligned, max_bs=largest(aligned))}


@rule(
    phase=Phase.CUDA_GRAPH,
    reads=INPUT_FIELDS + ("disaggregation_mode",),
    writes=("cuda_graph_config",),
    sglang="apply_cuda_graph_disaggregation_roles",
    triggers=("disaggregation_mode",),
)
def disaggregation_graph_roles(v: View) -> dict | None:
    """A PD prefill server captures no decode graph, a PD decode server no prefill graph.

    Each applies only when the user did not choose that phase's backend.
    """
    role = v.disaggregation_mode
    off = {"prefill": DECODE, "decode": PREFILL}.get(role)
    if off is None or is_locked(v, off, "backend"):
        return None
    config = v.cuda_graph_config
    if config[off]["backend"] == "disabled":
        return None
    return {"cuda_graph_config": with_phase(config, off, backend="disabled")}


@rule(
    phase=Phase.CUDA_GRAPH,
    reads=("cuda_graph_config",),
    sglang="validate_cuda_graph_config",
)
def validate_cuda_graph_config(v: View) -> Refuse | Declare | None:
    """Every phase backend is full, breakable or disabled; a full prefill graph is experimental.

    Full prefill capture was added for the FlashInfer and FA paths only, one whole-forward
    graph per token bucket.
    """
    config = v.cuda_graph_config
    for phase in PHASES:
        backend = config[phase]["backend"]
        if backend not in BACKENDS:
            return Refuse(f"cuda_graph_config[{phase}].backend must be one of "
                          f"{', '.join(BACKENDS)}; got {backend!r}")
    if config[PREFILL]["backend"] == "full":
        return Declare({}, "the full prefill CUDA graph is experimental in SGLang")
    return None


@rule(
    phase=Phase.GRAPH_DEFAULTS,
    reads=("cuda_graph_backend_prefill", "disable_prefill_cuda_graph"),
    writes=("cuda_graph_backend_prefill",),
    facts=("model.arch0",),
    archs=INKLING_ARCHS,
    sglang="apply_inkling_prefill_cuda_graph_default",
)
def inkling_prefill_graph_default(v: View) -> dict | None:
    """Inkling captures prefill as one full graph unless the user chose the prefill graph.

    It is declared on the convenience flag, so the parse treats it as chosen (locked), and
    the legacy ``--disable-cuda-graph`` does not stop it (rules.md C10).
    """
    if v.cuda_graph_backend_prefill is not None or v.disable_prefill_cuda_graph:
        return None
    return {"cuda_graph_backend_prefill": "full"}


@rule(
    phase=Phase.GRAPH_DEFAULTS,
    reads=("cuda_graph_max_bs_prefill",),
    writes=("cuda_graph_max_bs_prefill",),
    facts=("model.arch0",),
    archs=MUSE_GLIMMER_ARCHS,
    sglang="apply_muse_glimmer_prefill_cuda_graph_max_bs_default",
)
def muse_glimmer_prefill_graph_max_bs(v: View) -> dict | None:
    """Muse Glimmer captures prefill graphs up to 512 tokens unless told otherwise."""
    if v.cuda_graph_max_bs_prefill is not None:
        return None
    return {"cuda_graph_max_bs_prefill": 512}
