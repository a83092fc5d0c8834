"""Stand-in for Nanbeige's remote-code config class (h23): the class defaults SGLang's own
NanbeigeConfig carries; keys of config.json override them."""
from transformers import PretrainedConfig

_DEFAULTS = dict(
    vocab_size=166144, hidden_size=3072, intermediate_size=10752, num_hidden_layers=22,
    num_attention_heads=48, num_key_value_heads=None, head_dim=None, hidden_act="silu",
    max_position_embeddings=4096, initializer_range=0.02, rms_norm_eps=1e-5, use_cache=True,
    pretraining_tp=1, rope_theta=50000.0, rope_scaling=None, attention_bias=False,
    attention_dropout=0.0, num_loops=2, loop_loss_weights=None, skip_loop_final_norm=False,
)


class NanbeigeConfig(PretrainedConfig):
    model_type = "nanbeige"

    def __init__(self, pad_token_id=None, bos_token_id=1, eos_token_id=2, tie_word_embeddings=False, **kwargs):
        for k, v in _DEFAULTS.items():
            setattr(self, k, kwargs.pop(k, v))
        if self.num_key_value_heads is None:
            self.num_key_value_heads = self.num_attention_heads
        if self.head_dim is None:
            self.head_dim = self.hidden_size // self.num_attention_heads
        if self.loop_loss_weights is None:
            self.loop_loss_weights = []
        super().__init__(pad_token_id=pad_token_id, bos_token_id=bos_token_id, eos_token_id=eos_token_id,
                         tie_word_embeddings=tie_word_embeddings, **kwargs)
