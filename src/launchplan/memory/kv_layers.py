"""How many layers SGLang's default KV pool allocates a row for, per token.

SGLang sizes the pool for ``max(num_hidden_layers, num_attention_layers)`` layers of its
model config, and a few architectures attend more often than they have layers:

- loop models (IQuest LoopCoder, Nanbeige) run their stack ``loop_num`` / ``num_loops``
  times, each pass with its own layer ids. ``resolve_layer_indices`` (model_runner_components/
  layer_setup.py) multiplies the layer range by the top-level config's loop count for every
  class, and takes the range from the built model's ``start_layer``/``end_layer``, or, for a
  class without them, as ``max(num_hidden_layers, num_attention_layers)``, which
  ``ModelConfig`` has already looped for the loop classes: IQuest LoopCoder's pool holds the
  loop count twice (320 layers a token for 80 layers run twice), Nanbeige's once. The table
  ``facts/data/loop_models.json`` says which class is which (``loop_layers``);
- LongCat-Flash has two attention blocks a layer;
- Whisper numbers its encoder layers, then the decoder's self-attention layers, then its
  cross-attention layers, and the pool keeps a buffer for every id:
  ``encoder_layers + 2 x decoder_layers``;
- HRM-Text's config class (transformers 5.24) rewrites ``num_hidden_layers``, when the file
  does not give ``num_layers_per_stack``, to one slot per attention call of its recurrent
  forward: ``layers x H_cycles x (L_cycles + 1)`` (defaults 2 and 3). Only the KV pool reads
  the rewritten count here: the checkpoint still holds ``num_hidden_layers`` blocks a stack.

And one attends less often: ZAYA1 (SGLang's own ``ZayaConfig``) counts its attention and MoE
blocks as separate layers, so only the attention ones (``full_attention_layer_ids``) hold KV.
"""

from __future__ import annotations

from typing import Any

from launchplan.facts.memo import per_object
from launchplan.facts.models.class_traits import LoopClass, loop_class

#: SGLang 0.5.23's ZayaConfig default layer count (attention and MoE blocks, interleaved).
ZAYA_LAYERS = 80
#: HRM-Text's config-class defaults: high-level cycles, low-level cycles per high one.
HRM_H_CYCLES, HRM_L_CYCLES = 2, 3


#: SGLang 0.5.23's top-level model classes that keep their pipeline stage's layer range
#: (``start_layer``/``end_layer``: an attribute or property of the class or a base, set in
#: its constructor). ``resolve_layer_indices`` (``model_runner_components/layer_setup.py``)
#: reads it from the built model; every other class falls back to the whole stack, so each
#: of its pipeline stages sizes a KV pool with rows for every layer. (Read from the
#: ``EntryClass`` classes of ``srt/models``; a hybrid linear-attention model's full layers
#: are cut to the range the same way.)
LAYER_RANGE_CLASSES = frozenset({
    "ApertusForCausalLM", "ArceeForCausalLM", "BailingMoEForCausalLM", "BailingMoeForCausalLM",
    "BailingMoeV2ForCausalLM", "BailingMoeV2_5ForCausalLM", "BailingMoeV3ForCausalLM",
    "BeamForCausalLM", "Cosmos3EdgeForConditionalGeneration",
    "Cosmos3ForConditionalGeneration", "DeepseekV2ForCausalLM", "DeepseekV32ForCausalLM",
    "DeepseekV3ForCausalLM", "DeepseekV3ForCausalLMNextN", "DeepseekV4ForCausalLM",
    "DeepseekV4ForCausalLMDSpark", "DeepseekV4ForCausalLMNextN", "Dots3NoteForCausalLM",
    "Dots3NoteForCausalLMNextN", "Exaone4ForCausalLM", "ExaoneMoEForCausalLM",
    "ExaoneMoEForCausalLMMTP", "ExaoneMoeForCausalLM", "Gemma4ForConditionalGeneration",
    "Gemma4UnifiedForConditionalGeneration", "Glm4ForCausalLM", "Glm4MoeForCausalLM",
    "Glm4MoeForCausalLMNextN", "Glm4MoeLiteForCausalLM", "Glm4MoeLiteForCausalLMNextN",
    "Glm5NextForConditionalGeneration", "Glm5NextForConditionalGenerationNextN",
    "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN", "GptOssForCausalLM",
    "GraniteMoeHybridForCausalLM", "IQuestCoderForCausalLM", "InternLM3ForCausalLM",
    "InternS1ProForConditionalGeneration", "InternS2MobiusForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "K2HorizonForCausalLM",
    "KimiK25ForConditionalGeneration", "KimiK3ForConditionalGeneration",
    "KimiK3LinearForCausalLM", "KimiLinearForCausalLM", "LLaDA2MoeModelLM",
    "LagunaForCausalLM", "Llama4ForCausalLM", "LlamaForCausalLM", "LlamaForCausalLMEagle",
    "LlamaForCausalLMEagle3", "MellumForCausalLM", "MiMoV2FlashForCausalLM",
    "MiMoV2ForCausalLM", "MiMoV2MTP", "MiniMaxM3SparseForCausalLM",
    "MiniMaxM3SparseForConditionalGeneration", "Ministral3ForCausalLM", "MistralForCausalLM",
    "MistralForCausalLMEagle", "MistralLarge3ForCausalLM", "MistralLarge3ForCausalLMEagle",
    "MixtralForCausalLM", "NanbeigeForCausalLM", "OPTForCausalLM", "Phi3ForCausalLM",
    "Qwen2ForCausalLM", "Qwen2ForCausalLMEagle", "Qwen2MoeForCausalLM", "Qwen3ForCausalLM",
    "Qwen3Model", "Qwen3MoeForCausalLM", "Qwen3MoeForCausalLMMTP",
    "Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration",
    "Qwen3_5ForCausalLM", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForCausalLM",
    "Qwen3_5MoeForConditionalGeneration", "Qwen4ExpForConditionalGeneration",
    "SDARForCausalLM", "SDARMoeForCausalLM", "SarvamMLAForCausalLM", "SarvamMoEForCausalLM",
    "Spark2_5ForCausalLM", "Step3p5ForCausalLM", "Step3p5MTP", "TeleFLMForCausalLM",
    "TransformersEmbeddingModel", "TransformersForCausalLM",
    "TransformersForSequenceClassification", "TransformersMoEEmbeddingModel",
    "TransformersMoEForCausalLM", "TransformersMoEForSequenceClassification",
    "TransformersMultiModalEmbeddingModel", "TransformersMultiModalForCausalLM",
    "TransformersMultiModalForSequenceClassification",
    "TransformersMultiModalMoEEmbeddingModel", "TransformersMultiModalMoEForCausalLM",
    "TransformersMultiModalMoEForSequenceClassification", "XllmForCausalLM"})


def keeps_stage_range(model: Any) -> bool:
    """Whether the class SGLang builds for ``model`` keeps its stage's layer range (its
    pool then holds only that stage's layers under ``--pp-size`` above 1)."""
    return model.arch0 in LAYER_RANGE_CLASSES


def zaya_attention_ids(text: Any) -> list[int]:
    """ZAYA1's attention layer ids as ``ZayaConfig.full_attention_layer_ids`` gives them: the
    ``a`` entries of ``zaya_layers`` (whose length is then the layer count), else every even
    id. (``layer_types`` of the newer transformers-native file is not read by 0.5.23's class.)
    """
    kinds = text.get("zaya_layers")
    if isinstance(kinds, (list, tuple)) and kinds:
        return [i for i, k in enumerate(kinds) if k == "a"]
    layers = text.get("num_hidden_layers")
    layers = ZAYA_LAYERS if not isinstance(layers, int) or isinstance(layers, bool) else layers
    return list(range(0, layers, 2))


@per_object
def attention_layers(model: Any) -> int:
    """KV layers of one token in the default pool (``num_attention_layers``)."""
    if _looped(model):
        return loop_layers(model)[0]
    return _model_config_layers(model, int(model.num_hidden_layers or 0), model.text_config)


def _looped(model: Any) -> bool:
    """A config with a loop count (which SGLang multiplies in for any class) or a class the
    loop table holds."""
    config = getattr(model, "config", None) or {}
    return "loop_num" in config or "num_loops" in config or _loop_row(model) is not None


def _model_config_layers(model: Any, layers: int, text: Any) -> int:
    """The pool's layers without a loop count (``ModelConfig.num_attention_layers``, but for
    ZAYA1's and HRM-Text's, which their config classes rewrite)."""
    if model.has_arch("LongcatFlashForCausalLM"):
        return layers * 2
    if model.text_model_type == "zaya":
        return len(zaya_attention_ids(text))
    if model.has_arch("WhisperForConditionalGeneration"):
        encoder = int(text.get("encoder_layers") or 0)
        decoder = text.get("decoder_layers")
        return max(layers, encoder + 2 * (layers if decoder is None else int(decoder)))
    if model.text_model_type == "hrm_text" and text.get("num_layers_per_stack") is None:
        h_cycles = int(text.get("H_cycles") or HRM_H_CYCLES)
        l_cycles = int(text.get("L_cycles") if text.get("L_cycles") is not None
                       else HRM_L_CYCLES)
        return layers * h_cycles * (l_cycles + 1)
    return layers


def _loop_row(model: Any) -> tuple[str, LoopClass] | None:
    """(architecture, loop-table row) of the first of the model's architectures the table
    holds."""
    for arch in getattr(model, "architectures", None) or ():
        row = loop_class(arch)
        if row is not None:
            return arch, row
    return None


def _count(value: Any, default: int) -> int:
    """A loop count as SGLang's ``int(...) or 1`` reads a config value."""
    if value is None or isinstance(value, bool):
        return default
    try:
        return int(value) or 1
    except (TypeError, ValueError):
        return default


@per_object
def loop_layers(model: Any) -> tuple[int, int]:
    """(the pool's layers a token, the layers the model runs a token) for a model whose
    config carries a loop count or whose class the loop table holds; the two differ where
    SGLang counts the loops twice.

    ``ModelConfig`` loops ``num_attention_layers`` (read from the text config) for the
    table's looped classes; ``resolve_layer_indices`` then multiplies the range (the stored
    layers for a class with ``start_layer``/``end_layer``, else ``max(num_hidden_layers,
    num_attention_layers)``) by ``loop_num``, else ``num_loops``, of the top-level config,
    whatever the class.
    """
    layers = int(model.num_hidden_layers or 0)
    text, config = model.text_config, getattr(model, "config", None) or {}
    found = _loop_row(model)
    if found is None:  # another class with a loop key: looped once, on its usual count
        base = _model_config_layers(model, layers, text)
        loops = _count(config.get("loop_num", config.get("num_loops")), 1)
        return base * loops, base * loops
    _arch, row = found
    own = _count(text.get(row.loop_key), row.default_loops)  # what the class loops
    attention = layers * own if row.attention_layers_looped else layers
    span = layers if row.layer_range else max(layers, attention)
    loops = _count(config.get("loop_num", config.get("num_loops")), row.default_loops)
    return span * loops, layers * own


def loop_pool_note(model: Any) -> str | None:
    """The plan note for a loop model whose pool SGLang sizes for more layers than it runs
    (None otherwise): the figures are SGLang's, but the user should know why they are low."""
    if not _looped(model):
        return None
    pool, runs = loop_layers(model)
    if pool <= runs or runs <= 0:
        return None
    found = _loop_row(model)
    name = found[0] if found is not None else model.arch0
    times = "twice" if pool == 2 * runs else f"{pool / runs:g} times"
    share = "half" if pool == 2 * runs else f"{runs / pool:.2g} of"
    return (f"{name}: SGLang sizes the KV pool for {pool} layers a token, {times} the "
            f"{runs} the model runs (stored layers x loops): the class has no start_layer/"
            "end_layer, so resolve_layer_indices multiplies an already looped layer count "
            "by the loop count again (an upstream double count); the token figures are "
            f"SGLang's: {share} the tokens the same memory would hold for the layers run")
