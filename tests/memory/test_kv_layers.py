"""KV layers per token (``memory.kv_layers``): the architectures that attend more often than
they have layers. The pools are checked against SGLang in tests/parity/test_kv_pool.py."""

from __future__ import annotations

import json
from pathlib import Path

from launchplan.facts.models import load_model
from launchplan.memory.kv_layers import HRM_H_CYCLES, HRM_L_CYCLES, attention_layers

MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"


def variant(tmp_path: Path, base: str, name: str, **keys) -> str:
    config = json.loads((MODELS / base / "config.json").read_text())
    config.update(keys)
    folder = tmp_path / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    return str(folder)


def test_whisper_keeps_a_buffer_for_every_encoder_and_decoder_attention_id(tmp_path):
    model = load_model(str(MODELS / "whisper-large-v3"))
    text = model.text_config
    assert attention_layers(model) == text["encoder_layers"] + 2 * text["decoder_layers"]
    shallow = load_model(variant(tmp_path, "whisper-large-v3", "w", decoder_layers=2))
    assert attention_layers(shallow) == text["encoder_layers"] + 4


def test_hrm_counts_one_slot_per_attention_call_of_its_cycles(tmp_path):
    model = load_model(str(MODELS / "hrm-text-synth"))
    layers = model.num_hidden_layers
    assert attention_layers(model) == layers * HRM_H_CYCLES * (HRM_L_CYCLES + 1)
    cycles = load_model(variant(tmp_path, "hrm-text-synth", "c", H_cycles=1, L_cycles=1))
    assert attention_layers(cycles) == layers * 2
    # a file that already says how many blocks a stack holds carries the inflated count
    given = load_model(variant(tmp_path, "hrm-text-synth", "g", num_layers_per_stack=3))
    assert attention_layers(given) == layers


def test_plain_models_count_their_layers():
    model = load_model("llama-3.1-8b")
    assert attention_layers(model) == model.num_hidden_layers


def test_step_3_5_derives_its_context_from_the_class_max_seq_len():
    """SGLang re-reads a step3p5 file with its own config class, whose ``max_seq_len``
    (128000 by default) comes before ``max_position_embeddings`` among the context keys."""
    model = load_model(str(MODELS / "step-3.5-synth"))
    assert model.config["max_position_embeddings"] == 32768
    assert model.derived_context_len == 128000
