"""Stand-in for Phi-4-multimodal's remote-code config class (h19, written for this round):
the published class's attribute defaults (a Phi-3 style config), keys of config.json override
them."""
from transformers import PretrainedConfig

_DEFAULTS = dict(
    vocab_size=32064, hidden_size=3072, intermediate_size=8192, num_hidden_layers=32,
    num_attention_heads=32, num_key_value_heads=None, resid_pdrop=0.0, embd_pdrop=0.0,
    attention_dropout=0.0, hidden_act="silu", max_position_embeddings=4096,
    original_max_position_embeddings=4096, initializer_range=0.02, rms_norm_eps=1e-5,
    use_cache=True, rope_theta=10000.0, rope_scaling=None, partial_rotary_factor=1.0,
    sliding_window=None, embd_layer="default", img_processor=None, audio_processor=None,
    vision_lora=None, speech_lora=None,
)


class Phi4MMConfig(PretrainedConfig):
    model_type = "phi4mm"

    def __init__(self, bos_token_id=1, eos_token_id=32000, pad_token_id=32000,
                 tie_word_embeddings=False, **kwargs):
        for k, v in _DEFAULTS.items():
            setattr(self, k, kwargs.pop(k, v))
        if self.num_key_value_heads is None:
            self.num_key_value_heads = self.num_attention_heads
        super().__init__(bos_token_id=bos_token_id, eos_token_id=eos_token_id,
                         pad_token_id=pad_token_id, tie_word_embeddings=tie_word_embeddings,
                         **kwargs)
