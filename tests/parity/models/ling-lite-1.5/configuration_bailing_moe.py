"""Stand-in for Ling's remote-code config class (h19, written for this round): the published
class's attribute defaults (inclusionAI/Ling models/configuration_bailing_moe.py, as vLLM's
adapted copy shows them), keys of config.json override them."""
from transformers import PretrainedConfig

_DEFAULTS = dict(
    vocab_size=30592, hidden_size=1024, intermediate_size=None, num_hidden_layers=24,
    num_attention_heads=16, num_key_value_heads=0, hidden_act="silu", use_qkv_bias=False,
    use_bias=True, rms_norm_eps=1e-05, norm_head=False, embedding_dropout=0.1,
    attention_dropout=0.1, output_dropout=0.1, initializer_range=0.02,
    max_position_embeddings=16384, rope_theta=10000.0, use_cache=True, use_sliding_window=False,
    sliding_window=4096, max_window_layers=28, rope_scaling=None, num_experts=16,
    num_shared_experts=0, num_experts_per_tok=2, norm_topk_prob=True, moe_intermediate_size=None,
    first_k_dense_replace=0,
)


class BailingMoeConfig(PretrainedConfig):
    model_type = "bailing_moe"

    def __init__(self, head_dim=None, pad_token_id=126081, tie_word_embeddings=False, **kwargs):
        for k, v in _DEFAULTS.items():
            setattr(self, k, kwargs.pop(k, v))
        self.head_dim = (head_dim if head_dim is not None
                         else self.hidden_size // self.num_attention_heads)
        super().__init__(pad_token_id=pad_token_id, tie_word_embeddings=tie_word_embeddings,
                         **kwargs)
