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
