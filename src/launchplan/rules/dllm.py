"""Diffusion-LLM launches (``--dllm-algorithm``): which algorithm names and which models
SGLang accepts (P34, ``handle_dllm_inference``).

SGLang resolves a diffusion launch in one serving-phase hook, in this order: it looks the
algorithm up by name and settles the attention backend, lets the algorithm adjust the launch,
turns CUDA graphs off on ROCm, disables the overlap schedule, then builds the diffusion config
from the model (its page-size step, which is where a model that is not a diffusion LLM is
refused) and aligns the page size to the denoising block; last it switches off what diffusion
serving does not support: the radix-cache extensions (HiCache, LMCache, FlexKV), pipeline
parallelism, LoRA, PD disaggregation and mixed chunked prefill. Each rewrite below is one of
those steps, in that order, and each warns as SGLang does.

The algorithm's own step (``configure_server_args``) changes nothing for LowConfidence,
JointThreshold and JointThresholdInDel (they inherit the base class's). Gemma4Renoise's checks
the launch (a CUDA or ROCm device, no pipeline or context parallelism, no quantized weights,
word embeddings tied at both config levels) and then turns the radix cache and chunked prefill
off and the prefill CUDA graph off unless it is a FULL graph on fa4 prefill attention.

0.5.21 runs the attention-backend step after the ROCm CUDA-graph step, and without the
algorithm's list of backends it accepts as they are; only Gemma4Renoise has such a list, and
the two steps read disjoint fields otherwise, so only that list differs between the variants.
Its Gemma4Renoise always turns the prefill graph off (no FULL-on-fa4 exception), and runs
before the attention-backend step, which it does not read there, so its place changes nothing.
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.attention import effective_backends
from launchplan.rules.graph_config import DECODE, PHASES, PREFILL, with_phase
from launchplan.struct import Struct
from launchplan.vocabulary import BACKEND_FIELDS  # the base side first, then the split sides

#: the algorithm names SGLang 0.5.22 and 0.5.23 register (one class per module of
#: ``srt/dllm/algorithm``, keyed by the class name, so the lookup is case-sensitive)
ALGORITHMS: tuple[str, ...] = (
    "Gemma4Renoise", "JointThreshold", "JointThresholdInDel", "LowConfidence")
#: 0.5.21 has no insert/delete variant of the joint-threshold algorithm
ALGORITHMS_0_5_21: tuple[str, ...] = ("Gemma4Renoise", "JointThreshold", "LowConfidence")


class DllmModel(Struct):
    """What SGLang's diffusion config table says of one diffusion architecture."""

    block_size: int | None  # tokens per denoising block; None: read from the config
    mask_id: int  # the mask token the canvas is filled with (-1: none)
    algorithm: str | None = None  # the one algorithm this architecture runs, if it needs one


#: ``DllmConfig.from_server_args``'s table, keyed by ``architectures[0]`` (0.5.21-0.5.23)
DLLM_MODELS: dict[str, DllmModel] = {
    "LLaDA2MoeModelLM": DllmModel(32, 156895),
    "SDARForCausalLM": DllmModel(4, 151669),
    "SDARMoeForCausalLM": DllmModel(4, 151669),
    # the block is the config's canvas_length (256 when absent)
    "DiffusionGemmaForBlockDiffusion": DllmModel(None, -1, "Gemma4Renoise"),
}
#: the algorithms that run only on some architectures (the class's supported_architectures)
ALGORITHM_ARCHS: dict[str, tuple[str, ...]] = {
    "Gemma4Renoise": ("DiffusionGemmaForBlockDiffusion",),
}


class AlgorithmBackends(Struct):
    """The attention backends an algorithm class names (the base class names none)."""

    required: str | None  # the backend every side is set to, unless the launch's is accepted
    accepted: tuple[str, ...] = ()  # backends kept as given (0.5.22 on)


#: ``required_attention_backend`` and ``supported_attention_backends`` of the algorithm
#: classes that set them; LowConfidence, JointThreshold and JointThresholdInDel keep the base
#: class's (none), which leaves the choice to the platform
ALGORITHM_BACKENDS: dict[str, AlgorithmBackends] = {
    "Gemma4Renoise": AlgorithmBackends("triton", ("triton", "fa4")),
}


def block_size(arch: str, config: Any) -> int | None:
    """The denoising block of a diffusion architecture (None for any other model)."""
    entry = DLLM_MODELS.get(arch)
    if entry is None:
        return None
    if entry.block_size is not None:
        return entry.block_size
    canvas = config.get("canvas_length")
    return canvas if canvas is not None else 256


def _names(items: tuple[str, ...] | list[str]) -> str:
    return ", ".join(items[:-1]) + " or " + items[-1] if len(items) > 1 else items[0]


_KNOWN: dict[str, Any] = dict(
    phase=Phase.SERVING,
    reads=("dllm_algorithm",),
    triggers=("dllm_algorithm",),
)


@rule(**_KNOWN, sglang="get_algorithm_cls (srt/dllm/algorithm), from _dllm_attention_backend "
                       "in handle_dllm_inference")
def dllm_algorithm_known(v: View) -> Refuse | None:
    """Only the diffusion algorithms SGLang ships can be named, spelled as their classes.

    When: ``--dllm-algorithm`` is given.
    Effect: refuses a name that is not Gemma4Renoise, JointThreshold, JointThresholdInDel or
        LowConfidence (exact case), listing them.
    Why: SGLang registers one algorithm per module of ``srt/dllm/algorithm`` under its class
        name, and the first step of ``handle_dllm_inference`` (the attention-backend pass)
        looks the name up there, raising for any other (``get_algorithm_cls``).
    Assumes: every algorithm module imports (SGLang skips one that fails to import, which
        would make its name unknown too).
    """
    return _unknown_algorithm(v.dllm_algorithm, ALGORITHMS)


@rule(**_KNOWN, name="dllm_algorithm_known", variant="0.5.21",
      sglang="get_algorithm_cls (0.5.21: no JointThresholdInDel)")
def dllm_algorithm_known_0_5_21(v: View) -> Refuse | None:
    """0.5.21: the same lookup, without the insert/delete joint-threshold algorithm.

    When: ``--dllm-algorithm`` is given.
    Effect: as ``dllm_algorithm_known``, with Gemma4Renoise, JointThreshold and LowConfidence
        the only names.
    Why: ``joint_threshold_indel.py`` came in 0.5.22 (``get_algorithm_cls``).
    Assumes: as ``dllm_algorithm_known``.
    """
    return _unknown_algorithm(v.dllm_algorithm, ALGORITHMS_0_5_21)


def _unknown_algorithm(name: Any, known: tuple[str, ...]) -> Refuse | None:
    if name in known:
        return None
    return Refuse(f"--dllm-algorithm {name!r} is not a diffusion LLM algorithm; expected one of "
                  + ", ".join(known) + " (case-sensitive)")


_MODEL: dict[str, Any] = dict(
    phase=Phase.SERVING,
    reads=("dllm_algorithm", "dllm_algorithm_config"),
    facts=("model.arch0", "model.config", "model.vocab_size"),
    triggers=("dllm_algorithm",),
)


@rule(**_MODEL, sglang="DllmConfig.from_server_args (srt/dllm/config.py), from _dllm_page_size "
                       "in handle_dllm_inference")
def dllm_model_known(v: View) -> Refuse | None:
    """A diffusion algorithm needs a diffusion LLM, and some pairs of the two belong together.

    When: ``--dllm-algorithm`` is given (a known name: ``dllm_algorithm_known`` ran first).
    Effect: refuses a model whose first architecture is not LLaDA2MoeModelLM,
        SDARForCausalLM, SDARMoeForCausalLM or DiffusionGemmaForBlockDiffusion; DiffusionGemma
        with an algorithm other than Gemma4Renoise, and Gemma4Renoise on another model;
        JointThresholdInDel unless the config declares integer ``delete_token_id`` and
        ``split_token_id`` inside the vocabulary and distinct from the mask token; and a
        LLaDA2 checkpoint with expert capacity whose ``block_size`` is not the block of 32.
    Why: SGLang builds the diffusion config (block size, mask token) from a table of the
        diffusion architectures when it aligns the page size to the block, raising for any
        other model; the algorithm classes name the architectures they run on, and the
        insert/delete algorithm needs the edit tokens (``DllmConfig.from_server_args``).
    Assumes: a ``--dllm-algorithm-config`` file does not override ``block_size`` (it is not
        read). Gemma4Renoise's own launch checks run before this step
        (``dllm_gemma4_renoise_checks``), so a launch they refuse never reaches it.
    """
    return _model_refusal(v, indel_and_capacity=True)


@rule(**_MODEL, name="dllm_model_known", variant="0.5.21",
      sglang="DllmConfig.from_server_args (0.5.21: no edit-token or expert-capacity checks)")
def dllm_model_known_0_5_21(v: View) -> Refuse | None:
    """0.5.21: a diffusion LLM is needed; no edit-token or expert-capacity checks yet.

    When: ``--dllm-algorithm`` is given (a known name).
    Effect: as ``dllm_model_known``, without the JointThresholdInDel token checks (0.5.21 has
        no such algorithm) and without the LLaDA2 expert-capacity block check.
    Why: both checks came with 0.5.22's ``DllmConfig.from_server_args``.
    Assumes: as ``dllm_model_known``.
    """
    return _model_refusal(v, indel_and_capacity=False)


def _model_refusal(v: View, *, indel_and_capacity: bool) -> Refuse | None:
    algorithm, model = v.dllm_algorithm, v.model
    arch = model.arch0
    entry = DLLM_MODELS.get(arch)
    if entry is None:
        return Refuse(f"--dllm-algorithm {algorithm} needs a diffusion LLM ("
                      + _names(list(DLLM_MODELS)) + f"); this model is {arch}")
    if entry.algorithm is not None and algorithm != entry.algorithm:
        return Refuse(f"--dllm-algorithm {algorithm}: {arch} runs only {entry.algorithm}")
    archs = ALGORITHM_ARCHS.get(algorithm)
    if archs is not None and arch not in archs:
        return Refuse(f"--dllm-algorithm {algorithm} runs only on {_names(archs)}, not {arch}")
    if not indel_and_capacity:
        return None
    config = model.config
    if algorithm == "JointThresholdInDel":
        refused = _edit_tokens_refusal(config, entry.mask_id, model.vocab_size)
        if refused is not None:
            return refused
    block = block_size(arch, config)
    if config.get("expert_capacity") is not None and config.get("block_size") != block:
        return Refuse(f"--dllm-algorithm {algorithm}: this LLaDA2 checkpoint routes experts by "
                      f"block, and its block_size ({config.get('block_size')}) is not the "
                      f"diffusion block of {block}")
    return None


def _edit_tokens_refusal(config: Any, mask_id: int, vocab: int | None) -> Refuse | None:
    tokens = {name: config.get(name) for name in ("delete_token_id", "split_token_id")}
    if any(value is None for value in tokens.values()):
        return Refuse("--dllm-algorithm JointThresholdInDel needs a checkpoint whose config "
                      "declares delete_token_id and split_token_id (or pass them with "
                      "--json-model-override-args)")
    for name, value in tokens.items():
        if isinstance(value, bool) or not isinstance(value, int):
            return Refuse(f"--dllm-algorithm JointThresholdInDel: {name} must be an integer "
                          f"token id, got {value!r}")
        if vocab is not None and not 0 <= value < vocab:
            return Refuse(f"--dllm-algorithm JointThresholdInDel: {name} {value} is outside the "
                          f"vocabulary [0, {vocab})")
    if len({mask_id, *tokens.values()}) != 3:
        return Refuse("--dllm-algorithm JointThresholdInDel: the mask, delete and split token "
                      f"ids must differ, got {mask_id}, {tokens['delete_token_id']} and "
                      f"{tokens['split_token_id']}")
    return None


# --- the rewrites of an accepted diffusion launch, in handle_dllm_inference's order ----------

_ATTENTION: dict[str, Any] = dict(
    phase=Phase.SERVING,
    reads=("dllm_algorithm", *BACKEND_FIELDS, "cuda_graph_config"),
    writes=BACKEND_FIELDS,
    facts=("target.is_hip",),
    triggers=("dllm_algorithm",),
)


@rule(**_ATTENTION, sglang="_dllm_attention_backend, the first step of handle_dllm_inference")
def dllm_attention_backend(v: View) -> Declare | None:
    """A diffusion launch runs on the attention backend its algorithm or platform supports.

    When: ``--dllm-algorithm`` names a known algorithm (``dllm_algorithm_known`` ran first).
    Effect: an algorithm that requires a backend (Gemma4Renoise: triton) keeps a launch whose
        base backend, and each split side that is set, is one it accepts (triton or fa4), and
        otherwise sets every backend field that differs to the required one. For the others:
        on ROCm a base backend other than triton or aiter becomes triton; on CUDA, while the
        decode CUDA graph is on, a base backend other than flashinfer becomes flashinfer (the
        split sides are left as they are). Each change warns.
    Why: SGLang settles the backend first in ``handle_dllm_inference``: the algorithm class's
        ``supported_attention_backends`` and ``required_attention_backend``, else the
        platform's choice for diffusion decoding (``_dllm_attention_backend``).
    Assumes: a CUDA or ROCm GPU (SGLang's Ascend branch, which picks ascend, has no target).
    """
    return _attention_backend(v, accepted=True)


@rule(**_ATTENTION, name="dllm_attention_backend", variant="0.5.21",
      sglang="_dllm_attention_backend (0.5.21: no list of accepted backends)")
def dllm_attention_backend_0_5_21(v: View) -> Declare | None:
    """0.5.21: the same choice, without an algorithm's list of backends it keeps.

    When: as ``dllm_attention_backend``.
    Effect: as ``dllm_attention_backend``, except that an algorithm requiring a backend
        always sets every backend field that differs to it (Gemma4Renoise: fa4 too becomes
        triton).
    Why: ``supported_attention_backends`` came in 0.5.22; 0.5.21 runs this step after the
        ROCm CUDA-graph step, which reads no backend, so the order changes nothing here
        (``_dllm_attention_backend``, 0.5.21).
    Assumes: as ``dllm_attention_backend``.
    """
    return _attention_backend(v, accepted=False)


def _attention_backend(v: View, *, accepted: bool) -> Declare | None:
    algorithm = v.dllm_algorithm
    backends = ALGORITHM_BACKENDS.get(algorithm)
    if backends is not None and accepted and v.attention_backend in backends.accepted and all(
            v[f] is None or v[f] in backends.accepted for f in BACKEND_FIELDS[1:]):
        return None
    if backends is not None and backends.required is not None:
        required = backends.required
        changed = {f: required for f in BACKEND_FIELDS if v[f] != required}
        if not changed:
            return None
        given = ", ".join(f"{f} {v[f]!r}" for f in changed)
        return Declare(changed, f"--dllm-algorithm {algorithm} runs on the {required} "
                                f"attention backend only; {given} set to {required!r}")
    backend = v.attention_backend
    if v.target.is_hip:
        if backend in ("triton", "aiter"):
            return None
        return Declare({"attention_backend": "triton"},
                       f"diffusion LLM inference on ROCm runs on triton or aiter attention; "
                       f"attention_backend {backend!r} set to 'triton'")
    if v.cuda_graph_config[DECODE]["backend"] == "disabled" or backend == "flashinfer":
        return None
    return Declare({"attention_backend": "flashinfer"},
                   f"diffusion LLM decoding under a decode CUDA graph runs on flashinfer "
                   f"attention; attention_backend {backend!r} set to 'flashinfer' (disable the "
                   f"decode graph to keep it)")


_RENOISE = "Gemma4Renoise"
_RENOISE_TRIGGER: dict[str, Any] = {"dllm_algorithm": (_RENOISE,)}


@rule(
    phase=Phase.SERVING,
    reads=("dllm_algorithm", "device", "pp_size", "dcp_size", "attn_cp_size", "quantization"),
    facts=("model.quant_config", "model.tied_word_embeddings", "model.has_text_config"),
    triggers=_RENOISE_TRIGGER,
    sglang="Gemma4Renoise.configure_server_args (srt/dllm/algorithm/gemma4_renoise.py), "
           "from handle_dllm_inference",
)
def dllm_gemma4_renoise_checks(v: View) -> Refuse | None:
    """Gemma4Renoise serves DiffusionGemma as its kernels were written for it, or refuses.

    When: ``--dllm-algorithm Gemma4Renoise``.
    Effect: refuses, in this order: a device other than a CUDA or ROCm GPU; ``--pp-size``
        above 1; ``--dcp-size`` or ``--attn-cp-size`` above 1; quantized weights (a
        ``--quantization`` method, or a checkpoint that describes one); word embeddings not
        tied in both the top-level config and its text config (a config with no text
        sub-config stops SGLang while it reads the text side).
    Why: the algorithm's ``configure_server_args`` runs these checks right after the
        attention-backend step, before SGLang's own diffusion rewrites (which would reset the
        pipeline size to 1 later): its denoiser reuses the input embeddings as the output
        head and has no pipeline-, context-parallel or quantized path (0.5.21-0.5.23).
    Assumes: an unset ``tie_word_embeddings`` takes its class's default, which launchplan
        knows for DiffusionGemma's classes (tied); for another model whose file leaves it
        unset the check is skipped, and ``dllm_model_known`` refuses that model later.
    """
    refused = _renoise_launch_refusal(v)
    return None if refused is None else Refuse(f"--dllm-algorithm {_RENOISE}: {refused}")


def _renoise_launch_refusal(v: View) -> str | None:
    if v.device != "cuda":
        return f"DiffusionGemma runs on a CUDA or ROCm GPU only, not device {v.device!r}"
    if v.pp_size is not None and v.pp_size > 1:
        return f"DiffusionGemma has no pipeline parallelism (--pp-size {v.pp_size})"
    for field, flag in (("dcp_size", "--dcp-size"), ("attn_cp_size", "--attn-cp-size")):
        if v[field] is not None and v[field] > 1:
            return f"DiffusionGemma has no context parallelism ({flag} {v[field]})"
    if v.quantization is not None or v.model.quant_config is not None:
        what = (f"--quantization {v.quantization}" if v.quantization is not None
                else "the checkpoint's quantization_config")
        return f"DiffusionGemma loads unquantized weights only ({what})"
    top, text = v.model.tied_word_embeddings
    if top is False:
        return "DiffusionGemma needs tied word embeddings; config.json sets " \
               "tie_word_embeddings false"
    if top is True and not v.model.has_text_config:
        return "DiffusionGemma needs tied word embeddings in its text config, and this " \
               "config.json has no text config"
    if top is True and text is False:
        return "DiffusionGemma needs tied word embeddings; its text config sets " \
               "tie_word_embeddings false"
    return None


_RENOISE_SETTINGS: dict[str, Any] = dict(
    phase=Phase.SERVING,
    writes=("disable_radix_cache", "chunked_prefill_size", "cuda_graph_config"),
    triggers=_RENOISE_TRIGGER,
)


@rule(**_RENOISE_SETTINGS, reads=("dllm_algorithm", "cuda_graph_config", *BACKEND_FIELDS),
      sglang="Gemma4Renoise.configure_server_args (its declarations), from "
             "handle_dllm_inference")
def dllm_gemma4_renoise_settings(v: View) -> dict | Refuse:
    """Gemma4Renoise runs without the radix cache, chunked prefill or a partial prefill graph.

    When: ``--dllm-algorithm Gemma4Renoise`` (its launch checks passed).
    Effect: a FULL prefill CUDA graph whose prefill attention backend (the split field, else
        the base) is not fa4 is refused; otherwise declares ``disable_radix_cache`` true,
        ``chunked_prefill_size`` -1 and the CUDA-graph config with the prefill phase
        disabled unless it is that FULL-on-fa4 graph. It declares all three on every such
        launch, silently, as SGLang does.
    Why: the algorithm's ``configure_server_args`` ends so, after its checks and after the
        attention-backend step settled the backends (0.5.22-0.5.23): the denoiser reads
        every block whole, and only fa4 captures a whole prefill.
    Assumes: nothing.
    """
    config = v.cuda_graph_config
    if config[PREFILL]["backend"] == "full":
        prefill = effective_backends(v)[0]
        if prefill != "fa4":
            return Refuse(f"--dllm-algorithm {_RENOISE}: a FULL prefill CUDA graph needs the "
                          f"fa4 prefill attention backend, and it is {prefill!r} (set "
                          f"--cuda-graph-backend-prefill breakable or disabled, or fa4 "
                          f"attention)")
    else:
        config = with_phase(config, PREFILL, backend="disabled")
    return _renoise_settings(config)


@rule(**_RENOISE_SETTINGS, reads=("dllm_algorithm", "cuda_graph_config"),
      name="dllm_gemma4_renoise_settings", variant="0.5.21",
      sglang="Gemma4Renoise.configure_server_args (0.5.21: the prefill graph always off)")
def dllm_gemma4_renoise_settings_0_5_21(v: View) -> dict:
    """0.5.21: the same settings, with the prefill CUDA graph off whatever it was.

    When: as ``dllm_gemma4_renoise_settings``.
    Effect: declares ``disable_radix_cache`` true, ``chunked_prefill_size`` -1 and the
        CUDA-graph config with the prefill phase disabled (a FULL one too), silently.
    Why: the FULL-on-fa4 exception came in 0.5.22; 0.5.21's method disables the prefill
        phase unconditionally and reads no attention backend, so running before 0.5.21's
        attention-backend step changes nothing (``configure_server_args``, 0.5.21).
    Assumes: nothing.
    """
    return _renoise_settings(with_phase(v.cuda_graph_config, PREFILL, backend="disabled"))


def _renoise_settings(config: Any) -> dict:
    return {"disable_radix_cache": True, "chunked_prefill_size": -1, "cuda_graph_config": config}


@rule(
    phase=Phase.SERVING,
    reads=("dllm_algorithm", "cuda_graph_config"),
    writes=("cuda_graph_config",),
    facts=("target.is_hip",),
    triggers=("dllm_algorithm",),
    applies=lambda target, model: target.is_hip,
    sglang="handle_dllm_inference (CUDA graphs off on HIP)",
)
def dllm_rocm_cuda_graph_off(v: View) -> Declare | None:
    """Diffusion LLM inference on ROCm runs without CUDA graphs, in either phase.

    When: ``--dllm-algorithm`` is given on an AMD GPU, and a decode or prefill CUDA graph is
        on.
    Effect: sets both phases' graph backend to disabled, whoever chose them, with a warning.
    Why: ``handle_dllm_inference`` turns the decode and prefill graphs off on HIP after the
        algorithm's own launch adjustments, ignoring what the user asked for.
    Assumes: nothing.
    """
    config = v.cuda_graph_config
    on = [phase for phase in PHASES if config[phase]["backend"] != "disabled"]
    if not on:
        return None
    for phase in on:
        config = with_phase(config, phase, backend="disabled")
    was = ", ".join(f"{phase} {v.cuda_graph_config[phase]['backend']!r}" for phase in on)
    return Declare({"cuda_graph_config": config},
                   f"diffusion LLM inference on ROCm runs without CUDA graphs: "
                   f"cuda_graph_config {was} set to 'disabled'")


@rule(
    phase=Phase.SERVING,
    reads=("dllm_algorithm", "disable_overlap_schedule"),
    writes=("disable_overlap_schedule",),
    triggers=("dllm_algorithm",),
    sglang="_dllm_overlap_disable, from handle_dllm_inference",
)
def dllm_overlap_disable(v: View) -> Declare | None:
    """Diffusion LLM inference runs without the overlap schedule.

    When: ``--dllm-algorithm`` is given and the overlap schedule is still on.
    Effect: declares ``disable_overlap_schedule`` true, with a warning.
    Why: SGLang's diffusion scheduler runs without overlap; ``handle_dllm_inference``
        switches it off right after the ROCm CUDA-graph step (``_dllm_overlap_disable``).
    Assumes: nothing.
    """
    if v.disable_overlap_schedule:
        return None
    return Declare({"disable_overlap_schedule": True},
                   "diffusion LLM inference runs without the overlap schedule: "
                   "disable_overlap_schedule False set to True")


@rule(
    phase=Phase.SERVING,
    reads=("dllm_algorithm", "page_size", "disable_radix_cache"),
    writes=("page_size",),
    facts=("model.arch0", "model.config"),
    triggers=("dllm_algorithm",),
    sglang="_dllm_page_size, from handle_dllm_inference",
)
def dllm_page_size(v: View) -> Declare | Refuse | None:
    """The KV page of a diffusion launch is the denoising block, or divides it.

    When: ``--dllm-algorithm`` is given (the model is a diffusion LLM: ``dllm_model_known``
        ran first).
    Effect: with the radix cache on, a page size that is not a multiple of the block (4 for
        SDAR, 32 for LLaDA2, the config's ``canvas_length`` or 256 for DiffusionGemma) is set
        to the block; otherwise a page size larger than the block is capped at it. Either
        change warns.
    Why: SGLang aligns the page to the block its diffusion config names (the alignment only
        while the radix cache is on; the cap always, in place of the scheduler's old
        fallback), in the step that builds that config (``_dllm_page_size``).
    Assumes: a ``--dllm-algorithm-config`` file does not override ``block_size`` (it is not
        read). A block that is not a positive integer (a config's ``canvas_length`` of 0)
        is refused: SGLang's alignment divides by it and stops.
    """
    block = block_size(v.model.arch0, v.model.config)
    page = v.page_size
    if block is None or page is None:  # no diffusion model: dllm_model_known refused it
        return None
    if isinstance(block, bool) or not isinstance(block, int) or block <= 0:
        return Refuse(f"--dllm-algorithm {v.dllm_algorithm}: the model's denoising block "
                      f"(config.json canvas_length) must be a positive number of tokens, "
                      f"got {block!r}")
    if not v.disable_radix_cache and page % block != 0:
        return Declare({"page_size": block},
                       f"with the radix cache on, a diffusion LLM's page size must be a "
                       f"multiple of its block of {block} tokens: page_size {page} set to "
                       f"{block}")
    if page > block:
        return Declare({"page_size": block},
                       f"a diffusion LLM page may not exceed its block of {block} tokens: "
                       f"page_size {page} set to {block}")
    return None


#: the radix-cache extensions a diffusion launch turns off, with their flags
_CACHE_LAYERS = (("enable_hierarchical_cache", "--enable-hierarchical-cache"),
                 ("enable_lmcache", "--enable-lmcache"), ("enable_flexkv", "--enable-flexkv"))


@rule(
    phase=Phase.SERVING,
    reads=("dllm_algorithm", "disable_radix_cache", *(f for f, _ in _CACHE_LAYERS)),
    writes=tuple(f for f, _ in _CACHE_LAYERS),
    triggers=("dllm_algorithm",),
    sglang="handle_dllm_inference (hierarchical cache, LMCache and FlexKV off)",
)
def dllm_cache_layers_off(v: View) -> Declare | None:
    """A diffusion launch with the radix cache runs without HiCache, LMCache or FlexKV.

    When: ``--dllm-algorithm`` is given, the radix cache is on, and any of
        ``--enable-hierarchical-cache``, ``--enable-lmcache`` or ``--enable-flexkv`` is set.
    Effect: declares each of those that is on false, with one warning naming them.
    Why: ``handle_dllm_inference`` switches these layers off after the page-size step, and
        only while the radix cache is on (with it off they stay: HiCache and LMCache without
        the radix cache are refused earlier, FlexKV is kept).
    Assumes: nothing.
    """
    if v.disable_radix_cache:
        return None
    on = [(field, flag) for field, flag in _CACHE_LAYERS if v[field]]
    if not on:
        return None
    return Declare({field: False for field, _ in on},
                   "diffusion LLM inference does not support the radix-cache extensions: "
                   + ", ".join(f"{flag} ({field} True)" for field, flag in on)
                   + " switched off")


_UNSUPPORTED: dict[str, Any] = dict(phase=Phase.SERVING, triggers=("dllm_algorithm",))


@rule(**_UNSUPPORTED, reads=("dllm_algorithm", "pp_size"), writes=("pp_size",),
      sglang="handle_dllm_inference (pipeline parallelism off)")
def dllm_pipeline_parallel_off(v: View) -> Declare | None:
    """A diffusion launch runs on one pipeline stage.

    When: ``--dllm-algorithm`` is given with ``--pp-size`` above 1.
    Effect: declares ``pp_size`` 1, with a warning; what earlier steps derived from the
        larger size (the overlap schedule and the prefill CUDA graph switched off) stays.
    Why: diffusion LLM inference does not support pipeline parallelism;
        ``handle_dllm_inference`` resets the size after every earlier step has read it.
    Assumes: nothing.
    """
    if v.pp_size is None or v.pp_size <= 1:
        return None
    return Declare({"pp_size": 1}, "diffusion LLM inference does not support pipeline "
                                   f"parallelism: pp_size {v.pp_size} set to 1")


@rule(**_UNSUPPORTED, reads=("dllm_algorithm", "enable_lora"), writes=("enable_lora",),
      sglang="handle_dllm_inference (LoRA off)")
def dllm_lora_off(v: View) -> Declare | None:
    """A diffusion launch serves no LoRA adapters.

    When: ``--dllm-algorithm`` is given and LoRA is on (``--enable-lora``, or implied by
        ``--lora-paths``).
    Effect: declares ``enable_lora`` false, with a warning; the adapter settings stay as
        resolved.
    Why: diffusion LLM inference does not support LoRA; ``handle_dllm_inference`` switches
        it off after SGLang's LoRA checks have passed.
    Assumes: nothing.
    """
    if not v.enable_lora:
        return None
    return Declare({"enable_lora": False}, "diffusion LLM inference does not support LoRA: "
                                           "enable_lora True set to False")


@rule(**_UNSUPPORTED, reads=("dllm_algorithm", "disaggregation_mode"),
      writes=("disaggregation_mode",), sglang="handle_dllm_inference (disaggregation off)")
def dllm_disaggregation_off(v: View) -> Declare | None:
    """A diffusion launch runs as one server, never a PD prefill or decode role.

    When: ``--dllm-algorithm`` is given with ``--disaggregation-mode`` prefill or decode.
    Effect: declares ``disaggregation_mode`` "null", with a warning; what the role's steps
        already set (the radix cache off for decode, the decode CUDA graph off for prefill,
        the transfer settings) stays.
    Why: diffusion LLM inference does not support PD disaggregation;
        ``handle_dllm_inference`` resets the mode after the role's own steps ran.
    Assumes: nothing.
    """
    mode = v.disaggregation_mode
    if mode == "null":
        return None
    return Declare({"disaggregation_mode": "null"},
                   "diffusion LLM inference does not support PD disaggregation: "
                   f"disaggregation_mode {mode!r} set to 'null'")


@rule(**_UNSUPPORTED, reads=("dllm_algorithm", "enable_mixed_chunk"),
      writes=("enable_mixed_chunk",), sglang="handle_dllm_inference (mixed chunk off)")
def dllm_mixed_chunk_off(v: View) -> Declare | None:
    """A diffusion launch never mixes prefill chunks into decode batches.

    When: ``--dllm-algorithm`` is given with ``--enable-mixed-chunk``.
    Effect: declares ``enable_mixed_chunk`` false, with a warning.
    Why: diffusion LLM inference does not support mixed chunked prefill;
        ``handle_dllm_inference`` switches it off as its last step.
    Assumes: nothing.
    """
    if not v.enable_mixed_chunk:
        return None
    return Declare({"enable_mixed_chunk": False},
                   "diffusion LLM inference does not support mixed chunked prefill: "
                   "enable_mixed_chunk True set to False")
