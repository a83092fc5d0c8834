"""Weights of wrapper classes against SGLang 0.5.23's own builds (thirty-second round).

Each expected count is what SGLang's class holds on one GPU when built on the meta device
at TP 1 (``tests/parity/tools/record_model_params.py``'s machinery in the oracle's venv;
the MiniCPM configs through a stand-in for their ``configuration_minicpm.py`` that keeps
the file's keys and builds ``vision_config`` as SigLIP's and ``audio_config`` as Whisper's),
vocabulary padding included as SGLang allocates it. The MiniCPM and Janus-Pro-7B configs
below are shaped like the published checkpoints (MiniCPM-V 2.6 on Qwen2-7B, 4.5 on
Qwen3-8B, MiniCPM-o 2.6; Janus-Pro-7B's sizes from its transformers conversion) and are
the files those builds read, not the checkpoints' own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from launchplan.facts.models import clear_cache, load_model
from launchplan.memory.weights import _layout, checkpoint_size, plan_weights
from tests.memory.built_params import built_params, load_written

MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"

_VISION = {"hidden_size": 1152, "image_size": 980, "intermediate_size": 4304,
           "model_type": "siglip_vision_model", "num_attention_heads": 16,
           "num_hidden_layers": 27, "patch_size": 14}
_MINICPM = {"architectures": ["MiniCPMV"], "model_type": "minicpmv",
            "auto_map": {"AutoConfig": "configuration_minicpm.MiniCPMVConfig"},
            "max_position_embeddings": 32768, "rope_theta": 1000000.0, "rms_norm_eps": 1e-06,
            "hidden_act": "silu", "query_num": 64, "image_size": 448, "patch_size": 14,
            "drop_vision_last_layer": False, "tie_word_embeddings": False,
            "torch_dtype": "bfloat16", "vision_config": _VISION}
MINICPM_V_2_6 = {**_MINICPM, "hidden_size": 3584, "intermediate_size": 18944,
                 "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
                 "vocab_size": 151666, "version": 2.6}
MINICPM_V_4_5 = {**_MINICPM, "hidden_size": 4096, "intermediate_size": 12288,
                 "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8,
                 "head_dim": 128, "vocab_size": 151748, "max_position_embeddings": 40960,
                 "attention_bias": False, "version": 4.5}
MINICPM_O_2_6 = {**MINICPM_V_2_6, "architectures": ["MiniCPMO"], "model_type": "minicpmo",
                 "vocab_size": 151700, "init_vision": True, "audio_pool_step": 2,
                 "audio_config": {"d_model": 1024, "encoder_layers": 24,
                                  "encoder_attention_heads": 16, "encoder_ffn_dim": 4096,
                                  "num_mel_bins": 80, "max_source_positions": 1500,
                                  "model_type": "whisper"},
                 "tts_config": {"model_type": "conditional_chattts", "llm_dim": 3584}}


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()




def _janus_pro_7b() -> dict[str, Any]:
    """Janus-Pro-1B's file at Janus-Pro-7B's sizes: a 30-layer Llama of 4096 (MLP 11008,
    32 heads), aligners and the generation head at 4096."""
    cfg = json.loads((MODELS / "janus-pro-1b" / "config.json").read_text())
    cfg["language_config"].update(hidden_size=4096, intermediate_size=11008,
                                  num_attention_heads=32, num_hidden_layers=30,
                                  num_key_value_heads=32)
    cfg["aligner_config"]["params"]["n_embed"] = 4096
    cfg["gen_aligner_config"]["params"]["n_embed"] = 4096
    cfg["gen_head_config"]["params"].update(image_token_embed=4096, n_embed=4096)
    return cfg


@pytest.mark.parametrize("folder", ["janus-pro-1b", "janus-1.3b"])
def test_janus_counts_its_head_towers_and_generation_modules(folder):
    """SGLang's MultiModalityCausalLM builds, beside the Llama body (1,442,940,928): its LM
    head (the language config leaves the embeddings untied: 209,715,200), the SigLIP-L
    tower named in ``vision_config.params`` (24 blocks of 1024 at 384 pixels, and the
    attention-pooling head: 316,283,904), the two MLP aligners (6,295,552 and 4,214,784),
    the VQ-16 tokenizer it builds without reading the config (71,948,939), the generation
    head (37,767,168) and the image-code embedding (131,072): 2,089,297,547 in all, where
    launchplan counted the body alone."""
    model = load_model(str(MODELS / folder))
    assert built_params(model) == 2_089_297_547
    main = {t.name: t for t in _layout(model).main}
    assert main["lm_head"].shape == (102_400, 2_048)
    assert sum(t.params for n, t in main.items() if n.startswith("vision_model.")) \
        == 316_283_904
    assert sum(t.params for n, t in main.items() if n.startswith("gen_vision_model.")) \
        == 71_948_939
    assert not _layout(model).caveats


def test_janus_pro_7b_scales_its_head_aligners_and_generation_head(tmp_path):
    """At 7B the head, the aligners and the generation head follow the text width; the
    tower and the tokenizer do not: SGLang's class holds 7,420,434,059."""
    assert built_params(load_written(tmp_path, _janus_pro_7b())) == 7_420_434_059


def test_janus_tower_splits_only_its_attention_over_tp():
    """Janus's SigLIP blocks use SGLang's VisionAttention (q/k/v and out projections over
    attention TP, the out projection's bias whole); its timm MLP, the pooling head, the
    aligners and the generation modules are plain modules, whole on every GPU."""
    model = load_model(str(MODELS / "janus-pro-1b"))
    towers = [t for t in _layout(model).main if t.component == "vision"]
    split = {t.name for t in towers if t.shard != "replicated"}
    assert split == {"vision_model.blocks.{i}.attn.qkv_proj", "vision_model.blocks.{i}.attn.proj"}


@pytest.mark.parametrize(("config", "built"), [
    (MINICPM_V_2_6, 8_099_275_504),
    ({**MINICPM_V_2_6, "drop_vision_last_layer": True}, 8_084_036_000),
    (MINICPM_V_4_5, 8_696_386_800),
    (MINICPM_O_2_6, 8_423_472_880),
], ids=["v2.6", "v2.6-drop-last-layer", "v4.5", "o2.6"])
def test_minicpm_counts_its_head_resampler_and_version_text_model(tmp_path, config, built):
    """SGLang's MiniCPM classes build their language model by version (Qwen2 for 2.6 and
    MiniCPM-o, with q/k/v biases; Llama for 4.0; Qwen3 for 4.5, with q/k norms), its own LM
    head (the files untie it), the SigLIP tower less its last block where
    ``drop_vision_last_layer`` says so, and the resampler (learned queries, a projection
    from the tower's width, a multi-head attention, three LayerNorms, an output
    projection); MiniCPM-o adds its Whisper encoder and audio projection."""
    assert built_params(load_written(tmp_path, config)) == built


def test_minicpm_v_4_as_published():
    """MiniCPM-V 4 (``tests/parity/models/minicpm-v-4``): SGLang's class holds
    4,059,655,920, where launchplan counted no head (188,088,320 padded) and no resampler
    (35,906,560); the tower was counted and said its projector was not."""
    model = load_model(str(MODELS / "minicpm-v-4"))
    assert built_params(model) == 4_059_655_920
    resampler = [t for t in _layout(model).main if t.name.startswith("resampler.")]
    assert sum(t.params for t in resampler) == 35_906_560
    assert not _layout(model).caveats


@pytest.mark.parametrize(("config", "rows"), [
    (MINICPM_V_2_6, 70 * 70), (MINICPM_V_4_5, 70 * 70 + 36_000), (MINICPM_O_2_6, 70 * 70),
], ids=["v2.6", "v4.5", "o2.6"])
def test_minicpm_resampler_position_tables_are_memory_not_parameters(tmp_path, config, rows):
    """The resampler's sin-cos position tables are buffers (Resampler4_5 adds a 36,000-row
    temporal one to the 70 x 70 grid), cast to the model's dtype with the module: loading
    allocates them, the checkpoint stores none, and they are no parameter."""
    model = load_written(tmp_path, config)
    buffers = [t for t in _layout(model).main if getattr(t, "buffer", False)]
    width = config["hidden_size"]
    assert sum(t.shape[0] * t.shape[1] for t in buffers) == rows * width
    assert all(t.params == 0 and t.padding and not t.fp32 for t in buffers)
    planned = plan_weights(model).breakdown["vision"]
    assert planned >= 2 * rows * width
    params, _ = checkpoint_size(model)
    assert params == sum(t.params for t in _layout(model).main if not t.padding)


def test_internvl_builds_an_untied_head():
    """SGLang's InternVLChatConfig unties the embeddings whatever the file says, and its
    class builds the text model's causal-LM class: InternVL3-1B's head is 151,674 x 896
    (the recorded class holds ``language_model.lm_head`` 135,905,280 padded)."""
    model = load_model(str(MODELS / "internvl3-1b"))
    heads = [t for t in _layout(model).main if t.component == "lm_head"]
    assert [t.shape for t in heads] == [(151_674, 896)]


@pytest.mark.parametrize("text_type", [None, "qwen3_asr_text"])
def test_qwen3_asr_text_model_is_qwen3_whatever_the_file_names(tmp_path, text_type):
    """SGLang's Qwen3-ASR config class builds its thinker's text config as Qwen3Config, so
    every layer has q/k norms (28 x 256 = 7,168) whether the file names no text type or
    another one: 2,349,217,408 in both builds."""
    from tests.memory.test_archdraws8_weights import QWEN3_ASR_1_7B

    config = json.loads(json.dumps(QWEN3_ASR_1_7B))
    if text_type:
        config["thinker_config"]["text_config"]["model_type"] = text_type
    assert built_params(load_written(tmp_path, config)) == 2_349_217_408


def test_minicpm_tower_splits_as_idefics2_builds_it():
    """MiniCPM-V's tower is SGLang's Idefics2VisionTransformer: VisionAttention over
    attention TP, fc1/fc2 Column/RowParallel over TP, and the position table a plain
    ``nn.Embedding``, whole on every GPU (not vocabulary-parallel as Gemma 3's SigLIP);
    the resampler is whole too."""
    model = load_model(str(MODELS / "minicpm-v-4"))
    shards = {t.name: t.shard for t in _layout(model).main if t.component == "vision"}
    assert shards["vision_tower.position_embedding"] == "replicated"
    assert shards["vision_tower.blocks.{i}.self_attn.qkv_proj"] == "attn_tp"
    assert shards["vision_tower.blocks.{i}.mlp.fc1"] == "tp"
    assert {s for n, s in shards.items() if n.startswith("resampler.")} == {"replicated"}
