"""How many layers SGLang's default KV pool allocates a row for, per token.

SGLang sizes the pool for ``max(num_hidden_layers, num_attention_layers)`` layers of its
model config, and a few architectures attend more often than they have layers:

- loop models (IQuest LoopCoder, Nanbeige) run their stack ``loop_num`` / ``num_loops``
  times, each pass with its own layer ids; LongCat-Flash has two attention blocks a layer;
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

#: SGLang 0.5.23's ZayaConfig default layer count (attention and MoE blocks, interleaved).
ZAYA_LAYERS = 80
#: HRM-Text's config-class defaults: high-level cycles, low-level cycles per high one.
HRM_H_CYCLES, HRM_L_CYCLES = 2, 3


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
    layers = int(model.num_hidden_layers or 0)
    text = model.text_config
    if model.has_arch("LongcatFlashForCausalLM"):
        return layers * 2
    if model.text_model_type == "zaya":
        return len(zaya_attention_ids(text))
    if model.has_arch("IQuestLoopCoderForCausalLM", "NanbeigeForCausalLM"):
        return layers * int(text.get("loop_num", text.get("num_loops", 1)) or 1)
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
