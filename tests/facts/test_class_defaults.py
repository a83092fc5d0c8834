"""Class defaults that change what the rules see (recorded from transformers 5.24)."""

from __future__ import annotations

import json

from launchplan.facts.models import load_model


def write(tmp_path, config):
    (tmp_path / "config.json").write_text(json.dumps(config))
    return str(tmp_path)


def test_glm_moe_dsa_without_index_topk_is_still_dsa(tmp_path):
    path = write(tmp_path, {"architectures": ["GlmMoeDsaForCausalLM"],
                            "model_type": "glm_moe_dsa", "torch_dtype": "bfloat16"})
    facts = load_model(path)
    assert facts.is_mla and facts.is_deepseek_dsa and facts.index_topk == 2048


def test_granite_hybrid_mamba_chunk_defaults_to_256(tmp_path):
    path = write(tmp_path, {"architectures": ["GraniteMoeHybridForCausalLM"],
                            "model_type": "granitemoehybrid", "hidden_size": 1024,
                            "num_hidden_layers": 4, "layer_types": ["mamba", "attention",
                                                                    "mamba", "attention"]})
    assert load_model(path).mamba_chunk_size == 256
