"""Nemotron-H's layer layout as SGLang's config class derives it (0.5.21-0.5.23 alike)."""

from __future__ import annotations

import json

from launchplan.facts.models import load_model
from launchplan.facts.models.hf_classes import _with_class_defaults
from launchplan.facts.models.snapshots import snapshot_folder

ULTRA = "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16"


def _classed(config: dict) -> dict:
    return _with_class_defaults(config, "nemotron_h", "config.json", "")


def test_the_canonical_list_sets_the_layer_count_and_pattern():
    out = _classed({"model_type": "nemotron_h", "num_hidden_layers": 99,
                    "layers_block_type": ["mamba", "moe", "attention", "mlp"]})
    assert out["hybrid_override_pattern"] == "ME*-"
    assert out["num_hidden_layers"] == 4  # a JSON count that disagrees is ignored


def test_the_list_wins_over_the_legacy_string_and_the_string_serves_alone():
    both = _classed({"layers_block_type": ["mamba", "attention"],
                     "hybrid_override_pattern": "M-M-M"})
    assert both["hybrid_override_pattern"] == "M*" and both["num_hidden_layers"] == 2
    legacy = _classed({"hybrid_override_pattern": "M-M*E"})
    assert legacy["num_hidden_layers"] == 5


def test_neither_key_takes_the_signature_default_of_52_layers():
    out = _classed({})
    assert out["num_hidden_layers"] == 52 and out["hybrid_override_pattern"].count("*") == 4


def test_the_mtp_layout_defaults_to_attention_then_moe():
    assert _classed({})["mtp_hybrid_override_pattern"] == "*E"
    assert _classed({"mtp_layers_block_type": ["mamba", "moe"]})[
        "mtp_hybrid_override_pattern"] == "ME"
    # a legacy string replaces a missing or default list, not a different one
    assert _classed({"mtp_hybrid_override_pattern": "M*"})["mtp_hybrid_override_pattern"] \
        == "M*"
    assert _classed({"mtp_hybrid_override_pattern": "M*", "mtp_layers_block_type":
                     ["moe"]})["mtp_hybrid_override_pattern"] == "E"


def test_nemotron_3_ultra_publishes_only_the_list_and_loads_its_108_layers():
    folder = snapshot_folder(ULTRA)
    assert folder is not None
    config = json.loads((folder / "config.json").read_text())
    assert "hybrid_override_pattern" not in config and "num_hidden_layers" not in config
    model = load_model(str(folder))
    assert model.num_hidden_layers == len(config["layers_block_type"]) == 108
