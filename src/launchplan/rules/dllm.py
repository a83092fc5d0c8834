"""Diffusion-LLM launches (``--dllm-algorithm``): which algorithm names and which models
SGLang accepts (P34, ``handle_dllm_inference``).

SGLang resolves a diffusion launch in one serving-phase hook: it looks the algorithm up by
name (its attention-backend step), lets the algorithm adjust the launch, disables the overlap
schedule, then builds the diffusion config from the model (its page-size step), which is where
a model that is not a diffusion LLM is refused. These rules model the two refusals; the
rewrites an accepted launch gets are not modelled yet.
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.struct import Struct

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
        read). Gemma4Renoise's own launch checks, which SGLang runs before this step (CUDA
        only, no PP or context parallelism, no quantization, tied embeddings), are not
        modelled, so a launch they refuse is refused here or not at all.
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
