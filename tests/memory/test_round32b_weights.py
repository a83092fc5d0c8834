"""Weights of four families against SGLang 0.5.23's own builds (round 32b).

Each expected count is what SGLang's class holds on one GPU when built on the meta device at
TP 1 (the oracle's ``record_model_params`` machinery), vocabulary padding included. The
Qwen-7B and Phi-3-small configs are the published files' size keys (sgl-project/ome's
testdata copies), with their ``auto_map``s (remote code); Gemma 3n's is transformers'
``Gemma3nConfig()`` default, which transformers documents as Gemma-3n-E4B's. Towers built by
timm (absent from the oracle's venv) were counted from their shapes: DeepSeek-VL2's
SigLIP-so400m as timm publishes it (428.2M); Gemma 3n's MobileNetV5 and its audio encoder
are outside launchplan's count.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from launchplan.facts.models import clear_cache, load_model
from launchplan.memory.params import layout
from launchplan.memory.weights import _layout
from tests.memory.built_params import built_params, load_written

MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"

QWEN_7B = {"architectures": ["QWenLMHeadModel"], "model_type": "qwen", "hidden_size": 4096,
           "auto_map": {"AutoConfig": "configuration_qwen.QWenConfig",
                        "AutoModelForCausalLM": "modeling_qwen.QWenLMHeadModel"},
           "intermediate_size": 22016, "kv_channels": 128, "layer_norm_epsilon": 1e-06,
           "max_position_embeddings": 32768, "no_bias": True, "num_attention_heads": 32,
           "num_hidden_layers": 32, "rotary_emb_base": 10000, "rotary_pct": 1.0,
           "seq_length": 8192, "tie_word_embeddings": False, "vocab_size": 151936,
           "torch_dtype": "bfloat16"}
PHI3_SMALL = {"architectures": ["Phi3SmallForCausalLM"], "model_type": "phi3small",
              "auto_map": {"AutoConfig": "configuration_phi3_small.Phi3SmallConfig",
                           "AutoModelForCausalLM": "modeling_phi3_small.Phi3SmallForCausalLM"},
              "blocksparse_block_size": 64, "blocksparse_homo_head_pattern": False,
              "blocksparse_num_local_blocks": 16, "blocksparse_vert_stride": 8,
              "dense_attention_every_n_layers": 2, "ff_dim_multiplier": None,
              "ff_intermediate_size": 14336, "gegelu_limit": 20.0, "gegelu_pad_to_256": True,
              "hidden_act": "gegelu", "hidden_size": 4096, "layer_norm_epsilon": 1e-05,
              "max_position_embeddings": 8192, "mup_attn_multiplier": 1.0,
              "mup_embedding_multiplier": 10.0, "mup_use_scaling": True,
              "mup_width_multiplier": 8.0, "num_attention_heads": 32, "num_hidden_layers": 32,
              "num_key_value_heads": 8, "rope_embedding_base": 1000000,
              "rope_position_scale": 1.0, "torch_dtype": "bfloat16", "attention_bias": False,
              "vocab_size": 100352}
_KINDS = (["sliding_attention"] * 4 + ["full_attention"]) * 7
GEMMA3N_TEXT = {"model_type": "gemma3n_text", "vocab_size": 262400, "hidden_size": 2048,
                "intermediate_size": [16384] * 35, "num_hidden_layers": 35,
                "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 256,
                "hidden_activation": "gelu_pytorch_tanh", "max_position_embeddings": 32768,
                "rms_norm_eps": 1e-06, "pad_token_id": 0, "tie_word_embeddings": True,
                "rope_parameters": {"sliding_attention": {"rope_type": "default",
                                                          "rope_theta": 10000.0},
                                    "full_attention": {"rope_type": "default",
                                                       "rope_theta": 1000000.0}},
                "attention_bias": False, "sliding_window": 512, "layer_types": _KINDS,
                "final_logit_softcapping": 30.0, "vocab_size_per_layer_input": 262144,
                "hidden_size_per_layer_input": 256, "altup_active_idx": 0,
                "altup_coef_clip": 120.0, "altup_correct_scale": True, "altup_num_inputs": 4,
                "num_kv_shared_layers": 15, "laurel_rank": 64,
                "activation_sparsity_pattern": [0.95] * 10 + [0.0] * 25}
GEMMA3N = {"architectures": ["Gemma3nForConditionalGeneration"], "model_type": "gemma3n",
           "text_config": GEMMA3N_TEXT,
           "vision_config": {"model_type": "gemma3n_vision", "architecture":
                             "mobilenetv5_300m_enc", "hidden_size": 2048, "vocab_size": 128,
                             "vocab_offset": 262144, "rms_norm_eps": 1e-06},
           "audio_config": {"model_type": "gemma3n_audio", "vocab_size": 128,
                            "vocab_offset": 262272, "input_feat_size": 128,
                            "hidden_size": 1536, "rms_norm_eps": 1e-06,
                            "conf_num_attention_heads": 8, "conf_num_hidden_layers": 12},
           "audio_soft_tokens_per_image": 188, "vision_soft_tokens_per_image": 256,
           "boi_token_id": 255999, "eoi_token_id": 262144, "image_token_id": 262145,
           "boa_token_id": 256000, "eoa_token_id": 262272, "audio_token_id": 262273,
           "torch_dtype": "bfloat16"}


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()




def test_gemma3n_counts_its_per_layer_mlps_embeddings_altup_and_laurel(tmp_path):
    """SGLang's Gemma3nForConditionalGeneration holds 7,555,851,280 parameters less its audio
    encoder (681,348,640; launchplan leaves audio encoders out, and says so): the 35 layers
    (attention, the 16384-wide gated MLP each layer's entry of intermediate_size names,
    AltUp, LAuReL, the per-layer input gate and projection: 3,936,973,040), the embedding
    (tied head), the 262144 x 35*256 per-layer embedding and its projection, AltUp's six
    stream projections, and the vision and audio soft-token embedders. launchplan counted
    904,542,208: the MLP list read as no width at all."""
    model = load_written(tmp_path, GEMMA3N)
    assert built_params(model) == 7_555_851_280 - 681_348_640
    main = _layout(model).main
    assert sum(t.params for t in main if t.name.startswith("model.layers.")) == 3_936_973_040
    assert [c for c in _layout(model).caveats if "MobileNetV5" in c]


def test_gemma3n_text_model_alone(tmp_path):
    """Gemma3nForCausalLM: the language model of the same build (6,866,696,688), no
    embedders, no caveat."""
    model = load_written(tmp_path, {**GEMMA3N_TEXT, "architectures": ["Gemma3nForCausalLM"],
                             "torch_dtype": "bfloat16"})
    assert built_params(model) == 6_866_696_688
    assert not _layout(model).caveats


def test_per_layer_mlp_widths_are_counted_layer_by_layer(tmp_path):
    """A width list with different entries (as Gemma 3n's config class allows): each
    layer's MLP at its own width, 3 x hidden x width each."""
    text = {**GEMMA3N_TEXT, "intermediate_size": [8192] * 20 + [16384] * 15,
            "architectures": ["Gemma3nForCausalLM"], "torch_dtype": "bfloat16"}
    mlp = sum(t.params for t in _layout(load_written(tmp_path, text)).main if t.component == "mlp")
    assert mlp == 3 * 2048 * (20 * 8192 + 15 * 16384)


def test_qwen_1_mlp_is_half_its_intermediate_size_and_c_attn_is_biased(tmp_path):
    """QWenLMHeadModel (Qwen-7B) holds 7,721,324,544: ``qwen.py`` builds the gated MLP at
    intermediate_size // 2 (Qwen 1.0's file gives w1 and w2 together) and c_attn with a bias;
    launchplan counted 12,049,453,056."""
    model = load_written(tmp_path, QWEN_7B)
    assert built_params(model) == 7_721_324_544


def test_phi3_small_mlp_biases_and_tied_head(tmp_path):
    """Phi3SmallForCausalLM (Phi-3-small-8k) holds 7,392,272,384: the GEGELU MLP at
    ff_intermediate_size (14336), a bias on every linear and LayerNorm, and no LM head of its
    own (tied unless the file says otherwise); launchplan counted 2,164,527,104, no MLP."""
    model = load_written(tmp_path, PHI3_SMALL)
    assert built_params(model) == 7_392_272_384
    assert not any(t.component == "lm_head" for t in _layout(model).main)


def test_deepseek_vl2_counts_its_timm_siglip_and_projector():
    """DeepseekVL2ForCausalLM (deepseek-vl2-tiny) holds 3,370,501,440: the language model and
    head (2,934,734,080), timm's vit_so400m_patch14_siglip_384 with its pooling head
    (428,225,600), the downsample MLP projector (7,539,200) and the two separator vectors;
    launchplan counted the language model alone. All of it is whole on every GPU."""
    model = load_model(str(MODELS / "deepseek-vl2-tiny"))
    assert built_params(model) == 3_370_501_440
    vision = [t for t in _layout(model).main if t.component == "vision"]
    assert sum(t.params for t in vision) == 428_225_600 + 7_539_200 + 2_560
    assert {t.shard for t in vision} == {"replicated"}


def test_a_dense_mlp_without_width_is_a_caveat_not_silence():
    """A decoder config with no MLP width under any key the layout reads (config classes
    fill a default for the known types, so the layout is handed the bare file): the weights
    plan says the MLP is not counted instead of counting it as nothing."""
    cfg = {"architectures": ["SomeForCausalLM"], "model_type": "some_decoder",
           "hidden_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 8,
           "vocab_size": 32000}
    lay = layout(cfg, cfg, "some_decoder", None, "SomeForCausalLM")
    assert [c for c in lay.caveats if "MLP" in c and "not counted" in c]
    assert not any(t.component == "mlp" for t in lay.main)
