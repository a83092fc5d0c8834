"""The attention layout: MLA shapes, DSA, SSM and hybrid linear attention, sliding windows.
"""

from __future__ import annotations

import pytest

from launchplan.facts.models import (
    load_model,
)
from tests.facts.models.configs import (
    LLAMA,
    input_error,
    llama,
    write,
)

MLA_RANKS = {"kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
             "v_head_dim": 128}


@pytest.mark.parametrize("archs, model_type, extra, arch, head_dim", [
    (["DeepseekV2ForCausalLM"], "deepseek_v2", {}, "MLA", 256),
    (["DeepseekV32ForCausalLM"], "deepseek_v32", {}, "MLA", 256),
    (["MiniCPM3ForCausalLM"], "minicpm3", {}, "MLA", 128),
    (["KimiLinearForCausalLM"], "kimi_linear", MLA_RANKS, "MLA", 72),
    (["SarvamMLAForCausalLM"], "sarvam_mla", MLA_RANKS, "MLA", 192),
    (["BailingMoeV3ForCausalLM"], "llama", {**MLA_RANKS, "use_mla_nope": True}, "MLA", 128),
    (["DeepseekV4ForCausalLM"], "deepseek_v4", {"head_dim": 512, "sliding_window": 128,
                                                "index_head_dim": 128, "compress_ratios": [4]},
     "MHA", 512),
    (["Glm4MoeForCausalLMNextN"], "glm4_moe", {"head_dim": 128, "v_head_dim": 64}, "MHA", 128),
    (["PixtralForConditionalGeneration"], "llava", {}, "MHA", 128),
    # the ranks must sit in the text config: llava builds a default one when it is absent
    (["PixtralForConditionalGeneration"], "llava", MLA_RANKS, "MHA", 128),
    (["PixtralForConditionalGeneration"], "llava",
     {"text_config": {"model_type": "llama", "num_attention_heads": 32, **MLA_RANKS}}, "MLA", 256),
    (["LlamaForCausalLM", "DeepseekV3ForCausalLM"], "llama", MLA_RANKS, "MLA", 256),
])
def test_mla_table(tmp_path, archs, model_type, extra, arch, head_dim):
    cfg = {"architectures": archs, "model_type": model_type, "hidden_size": 4096,
           "num_attention_heads": 32, **extra}
    m = load_model(write(tmp_path, cfg))
    assert (m.attention_arch, m.head_dim, m.is_mla) == (arch, head_dim, arch == "MLA")
    assert m.arch0 == archs[0]  # dispatch still reads arch0
    if archs[0] == "Glm4MoeForCausalLMNextN":
        assert m.v_head_dim == 128 and not m.has_asymmetric_kv
    if archs[0] == "BailingMoeV3ForCausalLM":
        assert m.qk_rope_head_dim == 0


def test_mla_without_ranks_is_refused(tmp_path):
    cfg = {"architectures": ["LlamaForCausalLM", "DeepseekV3ForCausalLM"], "model_type": "llama",
           "hidden_size": 4096, "num_attention_heads": 32}
    err = input_error(load_model, write(tmp_path, cfg))
    assert "config.json field 'kv_lora_rank'" in err.message and "MLA" in err.message


def test_dsa_reads_arch0_and_index_topk(tmp_path):
    cfg = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
           "index_topk": 2048}
    m = load_model(write(tmp_path, cfg))
    assert m.is_deepseek_dsa and m.index_topk == 2048 and m.context_len == 4096
    other = {**cfg, "architectures": ["LlamaForCausalLM", "DeepseekV3ForCausalLM"]}
    m = load_model(write(tmp_path, other, "o"))
    assert m.is_mla and not m.is_deepseek_dsa


def test_ssm_and_hybrid_linear(tmp_path):
    m2 = load_model(write(tmp_path, {"architectures": ["Mamba2ForCausalLM"],
                                     "model_type": "mamba2"}, "m2"))
    assert (m2.attention_arch, m2.head_dim, m2.total_num_kv_heads, m2.num_attention_heads) == \
        ("SSM", 64, 0, None)
    assert m2.linear_attn_kind == "mamba" and m2.is_hybrid_linear and not m2.is_mla
    raw = load_model(write(tmp_path, {"d_model": 768, "n_layer": 24, "vocab_size": 50277,
                                      "ssm_cfg": {}, "pad_vocab_size_multiple": 8}, "raw"))
    assert (raw.arch0, raw.head_dim, raw.vocab_size, raw.attention_arch) == \
        ("MambaForCausalLM", 0, 50280, "SSM")
    nxt = load_model(write(tmp_path, {"architectures": ["Qwen3NextForCausalLM"],
                                      "model_type": "qwen3_next"}, "next"))
    assert (nxt.linear_attn_kind, nxt.attention_arch, nxt.head_dim) == ("gdn", "MHA", 256)
    kimi = {"architectures": ["KimiLinearForCausalLM"], "model_type": "kimi_linear",
            "linear_attn_config": {"kda_layers": [1], "full_attn_layers": [2]}, **MLA_RANKS}
    k = load_model(write(tmp_path, kimi, "kimi"))
    assert k.uses_kda and k.linear_attn_kind == "kda" and k.is_mla
    granite = {"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid",
               "num_hidden_layers": 2, "layer_types": ["attention", "attention"]}
    assert load_model(write(tmp_path, granite, "g")).linear_attn_kind is None
    assert load_model("llama-3.1-8b").linear_attn_kind is None


def test_sliding_window_hybrid_swa_and_sinks(tmp_path):
    assert llama(tmp_path, learnable_sink=True).has_attention_sinks
    flagged = llama(tmp_path, is_hybrid_swa=True, sliding_window=1024)
    assert flagged.is_hybrid_swa and flagged.sliding_window == 1024
    mimo = {**LLAMA, "architectures": ["MiMoV2FlashForCausalLM"], "model_type": "llama",
            "add_swa_attention_sink_bias": True}
    assert load_model(write(tmp_path, mimo, "mimo")).has_attention_sinks
    beam = {**LLAMA, "architectures": ["BeamForCausalLM"], "layer_types": ["full_attention"]}
    assert not load_model(write(tmp_path, beam, "beam")).is_hybrid_swa
