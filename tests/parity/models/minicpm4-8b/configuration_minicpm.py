"""Stand-in for MiniCPM4's remote-code config class (h19, written for this round): the
published class's attribute defaults, keys of config.json override them."""
from transformers import PretrainedConfig

_DEFAULTS = dict(
    vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
    num_attention_heads=32, num_key_value_heads=None, hidden_act="silu",
    max_position_embeddings=2048, initializer_range=0.02, rms_norm_eps=1e-6, use_cache=True,
    pretraining_tp=1, rope_theta=10000.0, rope_scaling=None, attention_bias=False,
    attention_dropout=0.0, scale_emb=1, dim_model_base=1, scale_depth=1, mup_denominator=32,
    sparse_config=None,
)


class MiniCPMConfig(PretrainedConfig):
    model_type = "minicpm"

    def __init__(self, pad_token_id=None, bos_token_id=1, eos_token_id=2,
                 tie_word_embeddings=True, **kwargs):
        for k, v in _DEFAULTS.items():
            setattr(self, k, kwargs.pop(k, v))
        if self.num_key_value_heads is None:
            self.num_key_value_heads = self.num_attention_heads
        super().__init__(pad_token_id=pad_token_id, bos_token_id=bos_token_id,
                         eos_token_id=eos_token_id, tie_word_embeddings=tie_word_embeddings,
                         **kwargs)
