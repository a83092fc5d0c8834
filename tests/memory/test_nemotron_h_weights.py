"""Nemotron 3's parameter counts from the shipped Hub configs: latent MoE (Super, Ultra),
the canonical layer list (Ultra) and the plain MoE pattern (Nano)."""

from __future__ import annotations

import json

import pytest

from launchplan.facts.models.hf_classes import _with_class_defaults
from launchplan.facts.models.snapshots import snapshot_folder
from launchplan.memory.params import layout

#: Hub id -> total parameters as published: the checkpoint names' totals (550B, 120B) and
#: the Nano model card's 31.6B
PUBLISHED = {"nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16": 550e9,
             "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8": 120e9,
             "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": 31.6e9}


def _layout(hub: str):
    folder = snapshot_folder(hub)
    assert folder is not None
    config = json.loads((folder / "config.json").read_text())
    text = _with_class_defaults(config, "nemotron_h", "config.json", "")
    return config, layout(config, text, "nemotron_h", None, "NemotronHForCausalLM")


@pytest.mark.parametrize("hub", sorted(PUBLISHED))
def test_parameter_totals_match_the_published_ones(hub):
    _, out = _layout(hub)
    total = sum(t.params for t in out.main)
    assert abs(total / PUBLISHED[hub] - 1) < 0.015, total
    assert not [c for c in out.caveats if "unknown" in c]


def test_latent_experts_work_in_the_latent_width_between_two_projections():
    config, out = _layout("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8")
    latent, hidden = config["moe_latent_size"], config["hidden_size"]
    experts = [t for t in out.main if ".experts." in t.name]
    assert experts and all(latent in t.shape and hidden not in t.shape for t in experts)
    projections = {t.name.rsplit(".", 1)[-1]: t.shape for t in out.main if "latent" in t.name}
    assert projections == {"fc1_latent_proj": (latent, hidden),
                           "fc2_latent_proj": (hidden, latent)}


def test_no_shared_expert_when_the_config_says_none():
    config, _ = _layout("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    text = _with_class_defaults({**config, "n_shared_experts": 0}, "nemotron_h", "c", "")
    out = layout(config, text, "nemotron_h", None, "NemotronHForCausalLM")
    assert not [t for t in out.main if "shared_experts" in t.name]
