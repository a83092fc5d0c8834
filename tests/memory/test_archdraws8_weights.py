"""Weights of the eighth round's checkpoints against SGLang 0.5.23's own classes.

Each count is what SGLang's class for the checkpoint's ``config.json`` (tests/parity/models)
holds when built on the meta device at TP 1 (the ``record_model_params.py`` machinery, run in
the oracle's venv); the sizes behind the difference are restated from the config.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from launchplan.facts.models import clear_cache, load_model
from launchplan.memory.weights import _layout, checkpoint_size

MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def test_glm_image_head_spans_the_image_vocabulary_and_its_vqvae_is_counted():
    """GLM-Image's autoregressive model (``glm_image_vl.py``) predicts image codes: its head
    is ``vision_vocab_size`` 16,512 rows of 4,096, not the 168,064-token vocabulary its
    embedding spans (620,756,992 parameters fewer), and it builds a VQ-VAE beside it: a
    16,384 x 2,048 codebook and two 1x1 convolutions to and from 1,536 latent channels
    (39,849,472). SGLang's class holds 10,114,245,632 parameters."""
    model = load_model(str(MODELS / "glm-image-ar"))
    params, _ = checkpoint_size(model)
    assert abs(params / 10_114_245_632 - 1) < 0.001, params
    main = {t.name: t for t in _layout(model).main}
    assert main["lm_head"].shape == (16_512, 4_096)
    assert sum(t.params for n, t in main.items() if n.startswith("vqvae.")) == 39_849_472


def test_glm_asr_counts_its_whisper_style_encoder_and_projector():
    """GLM-ASR-Nano-2512 builds transformers' GlmAsrEncoder (two convolutions, 32 layers of
    1,280 with q/v/o biased, fc1/fc2 of 5,120, LayerNorms: 635,048,960) and its projector
    (5,120 -> 4,096 -> 2,048: 29,366,272) beside the Llama text model, all whole on every GPU.
    SGLang's class holds 2,257,843,200 parameters; without the tower the plan counted 29%
    fewer, with no caveat."""
    model = load_model(str(MODELS / "glm-asr-nano-2512"))
    params, _ = checkpoint_size(model)
    assert params == 2_257_843_200
    audio = [t for t in _layout(model).main if t.component == "audio"]
    assert sum(t.params for t in audio) == 635_048_960 + 29_366_272
    assert all(t.shard == "replicated" for t in audio)


def test_granite_speech_counts_its_conformer_encoder_and_qformer_projector():
    """Granite Speech 3.3 8B, served by SGLang's transformers backend, builds transformers'
    GraniteSpeechCTCEncoder (16 Conformer blocks of 1,024: two feed-forwards of 4,096, eight
    heads of 128 with a 1,025-row relative-position table, a convolution module of 2,048
    channels with a 15-wide depthwise kernel; 439,980,288 parameters) and its projector (three
    learned queries, a two-layer Q-Former of 1,024, a linear to 4,096: 37,796,864), counted
    before as nothing, with no caveat (-5.5%)."""
    model = load_model(str(MODELS / "granite-speech-3.3-8b"))
    main = _layout(model).main
    assert sum(t.params for t in main if t.name.startswith("encoder.")) == 439_980_288
    assert sum(t.params for t in main if t.name.startswith("projector.")) == 37_796_864
    params, _ = checkpoint_size(model)
    assert abs(params / 8_648_875_264 - 1) < 0.001, params


QWEN3_ASR_1_7B = {  # Qwen/Qwen3-ASR-1.7B's dimensions as a loader's test states its config
    "architectures": ["Qwen3ASRForConditionalGeneration"], "model_type": "qwen3_asr",
    "thinker_config": {
        "audio_config": {"num_mel_bins": 128, "d_model": 1024, "encoder_layers": 24,
                         "encoder_attention_heads": 16, "encoder_ffn_dim": 4096,
                         "max_source_positions": 1500, "n_window": 50, "n_window_infer": 800,
                         "conv_chunksize": 500, "downsample_hidden_size": 480,
                         "output_dim": 2048},
        "text_config": {"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 6144,
                        "num_hidden_layers": 28, "num_attention_heads": 16,
                        "num_key_value_heads": 8, "head_dim": 128,
                        "max_position_embeddings": 65536, "rms_norm_eps": 1e-06,
                        "rope_theta": 1000000,
                        "rope_scaling": {"mrope_section": [24, 20, 20],
                                         "mrope_interleaved": True}}}}


def test_qwen3_asr_counts_its_audio_encoder_built_as_qwen3_omni_s(tmp_path):
    """SGLang's Qwen3-ASR config class builds the thinker's audio config as Qwen3-Omni's audio
    encoder config whatever type the file names (``qwen3_asr_audio_encoder``, or none), and
    its class builds that encoder: SGLang 0.5.23's class holds 2,349,217,408 parameters on
    the meta device; without the tower the plan counted 317.5 M (13.5%) fewer."""
    import json

    for named in ({}, {"model_type": "qwen3_asr_audio_encoder"}):
        config = json.loads(json.dumps(QWEN3_ASR_1_7B))
        config["thinker_config"]["audio_config"].update(named)
        (tmp_path / "config.json").write_text(json.dumps(config))
        clear_cache()
        params, _ = checkpoint_size(load_model(str(tmp_path)))
        assert abs(params / 2_349_217_408 - 1) < 1e-4, params
