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
    MULTIMODAL_BREAKABLE_ARCHS,
    PHASES,
    PREFILL,
    default_config,
    is_locked,
    multimodal_blocks_breakable,
    prefill_sizes,
    requested_values,
    with_phase,
)
from launchplan.rules.parallel import dp_attention_switch_0_5_21, supports_prefill_cp_graph
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

    When: always (nothing given leaves the default as it is).
    Effect: declares ``cuda_graph_config``. Lowest to highest: defaults (decode full; prefill
        breakable on CUDA, disabled on ROCm), ``--disable-cuda-graph``,
        ``--disable-{prefill,decode}-cuda-graph``, the per-phase convenience flags, then
        ``--cuda-graph-config`` JSON key by key; keys the user set are locked.
    Why: SGLang 0.5.23 resolves all graph inputs into one object early, before any attention
        backend is known (``parse_cuda_graph_config``).
    Assumes: nothing.
    """
    return _parse(v, default_config(v.target.is_cuda))


@rule(name="parse_cuda_graph_config", variant="0.5.21", phase=Phase.CUDA_GRAPH,
      reads=INPUT_FIELDS, writes=("cuda_graph_config",), facts=("target.is_cuda",),
      sglang="parse_cuda_graph_config (0.5.21)")
def parse_cuda_graph_config_0_5_21(v: View) -> dict:
    """0.5.21's parse: off CUDA the default prefill graph is tc_piecewise.

    When: whenever its promises hold (every launch under 0.5.21's rules).
    Effect: as 0.5.23's parse, except that off CUDA the default prefill backend is
        ``tc_piecewise``; the compatibility rule then disables that graph off CUDA.
    Why: 0.5.21 still ships the torch.compile piecewise prefill graph, removed in 0.5.22
        (``parse_cuda_graph_config`` in 0.5.21's ``layers/cp/bcg.py`` helpers).
    Assumes: nothing.
    """
    config = default_config(v.target.is_cuda)
    if not v.target.is_cuda:
        config[PREFILL]["backend"] = "tc_piecewise"
    return _parse(v, config)


def _parse(v: View, config: dict) -> dict:
    for name in INPUT_FIELDS:
        value = v[name]
        if value is not None and value is not False:
            break
    else:  # nothing asked for: the default as it is
        return {"cuda_graph_config": config}
    for (phase, key), value in requested_values(v).items():
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

    When: the prefill phase is breakable and the user did not choose its backend (unlocked).
    Effect: sets the prefill phase to disabled, naming the blocker: pipeline parallelism (prefill
        graphs opt-in), KDA hybrid linear attention (but GLM-5-Next), DeepSeek-V4, attention CP
        (unless the layout has a breakable-graph path, e.g. zigzag on an explicit trtllm_mha),
        decode CP, two-batch overlap, A2A backends outside none/deepep/megamoe/flashinfer, and
        multimodal models outside the validated list.
    Why: those paths run work a breakable graph cannot capture
        (``apply_cuda_graph_compatibility`` / ``disable_breakable_cudagraph_if_incompatible``).
    Assumes: nothing.
    """
    return _compatibility(v, supports_prefill_cp_graph)


@rule(name="cuda_graph_compatibility", variant="0.5.22",
      sglang="apply_cuda_graph_compatibility (0.5.21-0.5.22)", **_COMPATIBILITY)
def cuda_graph_compatibility_0_5_22(v: View) -> Declare | None:
    """As in 0.5.23, with 0.5.22's test of a supported prefill-CP layout.

    When: as the 0.5.23 rule.
    Effect: as the 0.5.23 rule, but the prefill-CP layouts that keep the graph are zigzag on
        trtllm_mha, or interleave on dsv4.
    Why: 0.5.23 swapped the interleave/dsv4 layout for GLM-5-Next on dsa
        (``apply_cuda_graph_compatibility``, 0.5.21-0.5.22).
    Assumes: nothing.
    """
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


# --- SGLang 0.5.21: the tc_piecewise prefill graph (torch.compile, piecewise capture) --------
# Facts of the 0.5.21 wheel (srt/configs/model_config.py, srt/arg_groups/cuda_graph_hook.py).

# Multimodal architectures validated with a breakable prefill graph in 0.5.21.
MULTIMODAL_BREAKABLE_ARCHS_0_5_21 = frozenset({
    "Cohere2VisionForConditionalGeneration", "Glm5NextForConditionalGeneration",
    "InternS2MobiusForConditionalGeneration", "PaddleOCRVLForConditionalGeneration",
    "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    "MuseGlimmerForConditionalGeneration", "KimiK3ForConditionalGeneration",
    "KimiK25ForConditionalGeneration"})
# Multimodal architectures whose language-model prefill runs under tc_piecewise.
MULTIMODAL_PIECEWISE_ARCHS_0_5_21 = frozenset({
    "KimiK25ForConditionalGeneration", "MiniMaxM3SparseForCausalLM",
    "MiniMaxM3SparseForConditionalGeneration"})
# Architectures that never run a tc_piecewise prefill graph.
PIECEWISE_DISABLED_ARCHS_0_5_21 = frozenset({
    "DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark",
    "Qwen3NextForCausalLM", "Glm5NextForConditionalGeneration", "BailingMoeV2_5ForCausalLM",
    "LLaDAModelLM"})


@rule(name="cuda_graph_compatibility", variant="0.5.21",
      sglang="apply_cuda_graph_compatibility (0.5.21)",
      **{**_COMPATIBILITY, "reads": _COMPATIBILITY["reads"] + (
          "enable_torch_compile", "lora_paths", "enable_lora", "load_format", "quantization",
          "dllm_algorithm", "cpu_offload_gb", "enable_hierarchical_cache",
          "enable_deterministic_inference", "disaggregation_mode", "enable_symm_mem",
          "enable_eplb", "expert_distribution_recorder_mode", "debug_cuda_graph",
          "attn_dp_size", "enable_dp_attention"),
         "facts": _COMPATIBILITY["facts"] + ("model.multimodal_default", "model.is_gguf",
                                             "target.is_cuda", "model.config")})
def cuda_graph_compatibility_0_5_21(v: View) -> Declare | None:
    """0.5.21's prefill-graph compatibility, with the tc_piecewise graph it still has.

    When: the prefill backend was not chosen by the user (a locked phase is left alone).
    Effect: a multimodal model validated for tc_piecewise but not for a breakable graph moves
        from the default breakable graph to tc_piecewise (not when trtllm_mla prefills); a
        tc_piecewise graph is then disabled by what torch.compile's piecewise capture cannot
        run, a breakable one by the breakable blockers (every KDA model, and 0.5.21's shorter
        list of validated multimodal models); off CUDA the default tc_piecewise graph is
        always disabled; pipeline parallelism disables a breakable prefill graph.
    Why: 0.5.21's ``apply_cuda_graph_compatibility`` checks its 18 blockers in this order
        (attention DP is its switch, on with one group too: it is cleared only later, in
        ``handle_data_parallelism``); 0.5.22 removed tc_piecewise and widened the breakable
        lists.
    Assumes: nothing.
    """
    config = v.cuda_graph_config
    if is_locked(v, PREFILL, "backend"):
        return None
    backend = config[PREFILL]["backend"]
    if backend == "breakable" and v.pp_size > 1:
        return Declare({"cuda_graph_config": with_phase(config, PREFILL, backend="disabled")},
                       "prefill CUDA graph disabled: pipeline parallelism makes prefill "
                       "graphs opt-in")
    model = v.model
    note = None
    if backend == "breakable" and _piecewise_multimodal_0_5_21(v) and not any(
            a in MULTIMODAL_BREAKABLE_ARCHS_0_5_21 for a in model.architectures) \
            and (v.prefill_attention_backend or v.attention_backend) != "trtllm_mla":
        backend = "tc_piecewise"
        config = with_phase(config, PREFILL, backend=backend)
        note = f"{model.arch0}: the validated multimodal prefill runs under tc_piecewise"
    if backend == "tc_piecewise":
        reason = _piecewise_blocker_0_5_21(v)
    elif backend == "breakable":
        reason = _breakable_prefill_blocker(v, _cp_graph_supported_0_5_22, release="0.5.21")
    else:
        reason = None
    if reason is not None:
        config = with_phase(config, PREFILL, backend="disabled")
        note = f"prefill CUDA graph disabled: {reason}"
    if note is None:
        return None
    return Declare({"cuda_graph_config": config}, note)


def _multimodal_enabled(v: View) -> bool:
    """``--enable-multimodal`` as 0.5.21's model config resolves it (exact for every
    architecture on the lists above: none is one whose multimodal side is off by default)."""
    given = v.enable_multimodal
    return bool(v.model.multimodal_default if given is None else given)


def _piecewise_multimodal_0_5_21(v: View) -> bool:
    return any(a in MULTIMODAL_PIECEWISE_ARCHS_0_5_21
               for a in v.model.architectures) and _multimodal_enabled(v)


def _piecewise_blocker_0_5_21(v: View) -> str | None:
    model = v.model

    def multimodal() -> bool:
        return model.multimodal(v.enable_multimodal, language_model_only=v.language_model_only,
                                model_impl=v.model_impl)

    checks: tuple[tuple[str, Any], ...] = (  # in 0.5.21's order; the first that holds decides
        ("the architecture cannot", lambda: any(
            a in PIECEWISE_DISABLED_ARCHS_0_5_21 for a in model.architectures) or (
            multimodal() and not any(a in MULTIMODAL_PIECEWISE_ARCHS_0_5_21
                                     for a in model.architectures))),
        ("attention DP cannot", lambda: dp_attention_switch_0_5_21(v)),
        ("full torch.compile cannot", lambda: v.enable_torch_compile),
        ("pipeline parallelism cannot", lambda: v.pp_size > 1),
        ("hardware other than CUDA cannot", lambda: not v.target.is_cuda),
        (f"the {v.moe_a2a_backend} A2A backend cannot", lambda: v.moe_a2a_backend != "none"),
        ("LoRA cannot", lambda: bool(v.lora_paths) or bool(v.enable_lora)),
        ("a multimodal model not validated for it cannot",
         lambda: multimodal() and not _piecewise_multimodal_0_5_21(v)),
        ("GGUF weights cannot", lambda: v.load_format == "gguf" or v.quantization == "gguf"
         or model.is_gguf),
        ("a diffusion LLM cannot", lambda: v.dllm_algorithm is not None),
        ("CPU offload or a hierarchical cache cannot",
         lambda: (v.cpu_offload_gb or 0) > 0 or v.enable_hierarchical_cache),
        ("deterministic inference cannot", lambda: v.enable_deterministic_inference),
        ("PD disaggregation cannot", lambda: v.disaggregation_mode != "null"),
        ("symmetric memory cannot", lambda: v.enable_symm_mem),
        ("the expert distribution recorder cannot",
         lambda: v.enable_eplb or v.expert_distribution_recorder_mode is not None),
        ("attention context parallelism cannot", lambda: v.attn_cp_size > 1),
        ("CUDA graph debug mode cannot", lambda: v.debug_cuda_graph),
        ("decode context parallelism cannot", lambda: v.dcp_size > 1),
    )
    for what, holds in checks:
        if holds():
            return f"{what} run a tc_piecewise prefill graph"
    return None


def _cp_graph_supported_0_5_22(v: View) -> bool:
    """0.5.22's test of a breakable-graph prefill-CP layout (backends as resolved so far)."""
    if not (v.enable_prefill_cp and v.pp_size == 1 and v.attn_cp_size == v.tp_size):
        return False
    prefill = v.prefill_attention_backend or v.attention_backend
    return ((v.cp_strategy == "zigzag" and prefill == "trtllm_mha")
            or (v.cp_strategy == "interleave" and prefill == "dsv4"))


def _glm5_next_linear(model: Any) -> bool:
    """GLM-5-Next with linear-attention layers: KDA to SGLang, whose GLM-5-Next config class
    fills in ``linear_num_heads`` (64) and ``linear_head_dim`` (128) when a config omits them
    (configs/glm5_next.py), so the layer types alone decide."""
    if model.arch0 != "Glm5NextForConditionalGeneration":
        return False
    text = model.config.get("text_config")
    layers = (text if isinstance(text, dict) else model.config).get("layer_types") or ()
    return "linear_attention" in layers


def _breakable_prefill_blocker(v: View, cp_supported: Any = None,
                               release: str | None = None) -> str | None:
    """Why a default breakable prefill graph is disabled (``release`` 0.5.21: every KDA model
    and its own list of validated multimodal models)."""
    model = v.model
    if v.pp_size > 1:
        return "pipeline parallelism makes prefill graphs opt-in"
    if release == "0.5.21" and _glm5_next_linear(model):
        return "KDA linear attention cannot run a breakable prefill graph"
    if model.uses_kda and (release == "0.5.21"
                           or model.arch0 != "Glm5NextForConditionalGeneration"):
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
    mm_archs = (MULTIMODAL_BREAKABLE_ARCHS_0_5_21 if release == "0.5.21"
                else MULTIMODAL_BREAKABLE_ARCHS)
    if multimodal_blocks_breakable(v, mm_archs):
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

    When: ``moe_a2a_backend`` is deepep and the prefill phase is breakable.
    Effect: rounds the prefill ``bs`` list (else the sizes generated from ``max_bs``, 2048 when
        unset) up to multiples of 8 and sets ``max_bs`` to the largest.
    Why: DeepEP dispatches token counts in multiples of 8 (``apply_deepep_adjustments``).
    Assumes: nothing.
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

    When: ``disaggregation_mode`` is prefill or decode and the user did not choose the other
        phase's backend.
    Effect: sets the unused phase (decode on a prefill server, prefill on a decode server) of
        ``cuda_graph_config`` to disabled.
    Why: each PD role runs only its own phase (``apply_cuda_graph_disaggregation_roles``).
    Assumes: nothing.
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

    When: whenever its promises hold.
    Effect: refuses a phase backend outside full/breakable/disabled; notes (no change) that a
        full prefill graph is experimental.
    Why: full prefill capture was added for the FlashInfer and FA paths only, one whole-forward
        graph per token bucket (``validate_cuda_graph_config``).
    Assumes: nothing.
    """
    return _validate(v, BACKENDS)


# 0.5.21's backends per phase (its --cuda-graph-config parser; the field table's
# ``cuda_graph_phases`` holds the same, a test keeps them equal)
BACKENDS_0_5_21 = ("full", "breakable", "tc_piecewise", "disabled")


@rule(name="validate_cuda_graph_config", variant="0.5.21", phase=Phase.CUDA_GRAPH,
      reads=("cuda_graph_config",), sglang="validate_cuda_graph_config (0.5.21)")
def validate_cuda_graph_config_0_5_21(v: View) -> Refuse | Declare | None:
    """As in 0.5.23, with 0.5.21's fourth backend: tc_piecewise (removed in 0.5.22).

    When: whenever its promises hold (every launch under 0.5.21's rules).
    Effect: refuses a phase backend outside full/breakable/tc_piecewise/disabled; notes (no
        change) that a full prefill graph is experimental.
    Why: 0.5.21's ``--cuda-graph-config`` parser admits these four backends per phase.
    Assumes: nothing.
    """
    return _validate(v, BACKENDS_0_5_21)


def _validate(v: View, backends: tuple[str, ...]) -> Refuse | Declare | None:
    config = v.cuda_graph_config
    for phase in PHASES:
        backend = config[phase]["backend"]
        if backend not in backends:
            return Refuse(f"cuda_graph_config[{phase}].backend must be one of "
                          f"{', '.join(backends)}; got {backend!r}")
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

    When: the model is Inkling, ``cuda_graph_backend_prefill`` is unset and the prefill graph is
        not disabled.
    Effect: declares ``cuda_graph_backend_prefill`` full; as a convenience flag the parse treats
        it as chosen (locked), and the legacy ``--disable-cuda-graph`` does not stop it
        (rules.md C10).
    Why: SGLang's Inkling default (``apply_inkling_prefill_cuda_graph_default``).
    Assumes: nothing.
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
    """Muse Glimmer captures prefill graphs up to 512 tokens unless told otherwise.

    When: the model is Muse Glimmer and ``cuda_graph_max_bs_prefill`` is unset.
    Effect: declares ``cuda_graph_max_bs_prefill`` 512.
    Why: SGLang's per-model default (``apply_muse_glimmer_prefill_cuda_graph_max_bs_default``).
    Assumes: nothing.
    """
    if v.cuda_graph_max_bs_prefill is not None:
        return None
    return {"cuda_graph_max_bs_prefill": 512}


# 0.5.21's GLM-5 Next policy for an opted-in breakable prefill graph (gone in 0.5.22)
GLM5_NEXT_ARCHS = ("Glm5NextForConditionalGeneration",)
GLM5_NEXT_BREAKABLE_CHUNK_0_5_21 = 4096
GLM5_NEXT_BREAKABLE_MAX_BS_0_5_21 = 4096


@rule(name="glm5_next_breakable_chunk_default", variant="0.5.21",
      phase=Phase.CUDA_GRAPH,
      reads=INPUT_FIELDS + ("chunked_prefill_size",),
      writes=("chunked_prefill_size",),
      facts=("target.is_cuda", "model.arch0"),
      archs=GLM5_NEXT_ARCHS,
      sglang="apply_glm5_chunked_prefill_default (0.5.21)")
def glm5_next_breakable_chunk_default_0_5_21(v: View) -> dict | None:
    """0.5.21: GLM-5 Next with a breakable prefill graph asked for prefills in 4096 chunks.

    When: GLM-5 Next on CUDA, the prefill graph backend given as breakable, no chunk size
        (0.5.21 only; later releases have no such rule).
    Effect: declares ``chunked_prefill_size`` 4096 (before the memory tier would pick one).
    Why: 0.5.21's opt-in GLM breakable-graph default (``apply_glm5_chunked_prefill_default``),
        which feeds the memory budget; 0.5.22 dropped it.
    Assumes: nothing.
    """
    if (not v.target.is_cuda or v.chunked_prefill_size is not None
            or not is_locked(v, PREFILL, "backend")
            or v.cuda_graph_config[PREFILL]["backend"] != "breakable"):
        return None
    return {"chunked_prefill_size": GLM5_NEXT_BREAKABLE_CHUNK_0_5_21}


@rule(name="glm5_next_breakable_prefill_sizes", variant="0.5.21",
      phase=Phase.ATTENTION_LATE,
      reads=INPUT_FIELDS + ("moe_a2a_backend", "cuda_graph_bs_prefill"),
      writes=("cuda_graph_config",),
      facts=("model.arch0",),
      archs=GLM5_NEXT_ARCHS,
      sglang="apply_glm5_prefill_cuda_graph_policy (0.5.21)")
def glm5_next_breakable_prefill_sizes_0_5_21(v: View) -> dict | None:
    """0.5.21: GLM-5 Next captures breakable prefill graphs up to 4096 tokens.

    When: GLM-5 Next with a breakable prefill graph (asked for or by default) and neither its
        max_bs nor its sizes given (0.5.21 only).
    Effect: sets the prefill ``max_bs`` 4096 and its generated sizes (rounded up to multiples
        of 8 under DeepEP, as ``deepep_prefill_alignment`` does), after the memory budget.
    Why: 0.5.21's ``apply_glm5_prefill_cuda_graph_policy`` replaced the memory-derived
        ceiling after the attention backends were resolved; 0.5.22 dropped it.
    Assumes: nothing.
    """
    config = v.cuda_graph_config
    if (config[PREFILL]["backend"] != "breakable" or is_locked(v, PREFILL, "max_bs")
            or is_locked(v, PREFILL, "bs")):
        return None
    sizes = prefill_sizes(GLM5_NEXT_BREAKABLE_MAX_BS_0_5_21)
    if v.moe_a2a_backend == "deepep":
        sizes = rounded_up(sizes, 8)
    return {"cuda_graph_config": with_phase(config, PREFILL, max_bs=largest(sizes),
                                            bs=as_sequence(sizes))}
