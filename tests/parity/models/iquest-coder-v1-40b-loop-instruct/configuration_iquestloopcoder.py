"""Stand-in for IQuest LoopCoder's remote-code config class (h23): Llama-style defaults plus
loop_num / loop_window_size; keys of config.json override them."""
from transformers import PretrainedConfig

_DEFAULTS = dict(
    vocab_size=76800, hidden_size=5120, intermediate_size=27648, num_hidden_layers=80,
    num_attention_heads=40, num_key_value_heads=8, head_dim=128, hidden_act="silu",
    max_position_embeddings=131072, initializer_range=0.02, rms_norm_eps=1e-5, use_cache=True,
    pretraining_tp=1, rope_theta=500000.0, rope_scaling=None, attention_bias=False,
    attention_dropout=0.0, mlp_bias=False, loop_num=2, loop_window_size=64,
)


class IQuestLoopCoderConfig(PretrainedConfig):
    model_type = "iquestloopcoder"

    def __init__(self, pad_token_id=None, bos_token_id=1, eos_token_id=2, tie_word_embeddings=False, **kwargs):
        for k, v in _DEFAULTS.items():
            setattr(self, k, kwargs.pop(k, v))
        if self.num_key_value_heads is None:
            self.num_key_value_heads = self.num_attention_heads
        super().__init__(pad_token_id=pad_token_id, bos_token_id=bos_token_id, eos_token_id=eos_token_id,
                         tie_word_embeddings=tie_word_embeddings, **kwargs)
