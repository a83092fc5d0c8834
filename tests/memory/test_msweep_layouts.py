"""Layout rules the whole-model meta-build sweep (``tools/record_model_params.py``'s msweep
cases) turned up: each expectation restates SGLang 0.5.23's class from the config's own
sizes; the recorded rows (``test_pooling_heads.py``) hold the totals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.facts.models import clear_cache, load_model
from launchplan.memory.params import layout

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "tests" / "parity" / "models"


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def _layout(folder: Path):
    m = load_model(str(folder))
    return m, layout(m.config, m.text_config, m.model_type, m.text_model_type, m.arch0)


def _params(lay, part: str) -> int:
    return sum(t.params for t in lay.main if part in t.name)


def test_olmo_norms_hold_no_weight():
    _, lay = _layout(MODELS / "olmo-1b-hf")
    assert not [t for t in lay.main if t.component == "norms"]


@pytest.mark.parametrize("fixture", ["olmo-2-1124-7b", "olmo-3.1-32b-instruct"])
def test_olmo2_post_norms_and_whole_width_qk_norms(fixture):
    """Two norms a layer (after attention, after the MLP) and q/k norms across all heads:
    q at hidden_size, k at the KV heads' width."""
    m, lay = _layout(MODELS / fixture)
    cfg = m.text_config
    h, n = cfg["hidden_size"], cfg["num_hidden_layers"]
    hd = h // cfg["num_attention_heads"]
    kv = cfg.get("num_key_value_heads") or cfg["num_attention_heads"]
    assert _params(lay, "layernorm") == 2 * h * n
    assert _params(lay, "q_norm") == h * n
    assert _params(lay, "k_norm") == kv * hd * n


def test_laguna_heads_and_gates_follow_each_layer():
    m, lay = _layout(MODELS / "laguna-xs.2-fp8")
    cfg = m.text_config
    heads, hd, h = cfg["num_attention_heads_per_layer"], cfg["head_dim"], cfg["hidden_size"]
    assert _params(lay, "q_proj") == sum(heads) * hd * h
    assert _params(lay, "g_proj") == sum(heads) * h  # gating true: one row per head
    sparse = cfg["mlp_layer_types"].count("sparse")
    router = [t for t in lay.main if t.name.endswith("mlp.gate")]
    assert router and all(t.fp32 and len(t.layers) == sparse for t in router)


@pytest.mark.parametrize("fixture", ["qwen3-4b-dflash-b16", "qwen3-8b-dflash-b16"])
def test_dflash_draft_projects_target_features_without_embedding(fixture):
    cfg = json.loads((MODELS / fixture / "config.json").read_text())
    _, lay = _layout(MODELS / fixture)
    h = cfg["hidden_size"]
    ids = (cfg.get("dflash_config") or {}).get("target_layer_ids")
    k = len(ids) if ids else cfg["num_hidden_layers"]
    assert not [t for t in lay.main if t.component in ("embedding", "lm_head")]
    assert [t.shape for t in lay.main if t.name == "fc"] == [(h, k * h)]


def test_mllama_cross_attention_layers_add_norms_and_gates():
    m, lay = _layout(MODELS / "llama-3.2-11b-vision-instruct")
    cfg = m.text_config
    hd = cfg["hidden_size"] // cfg["num_attention_heads"]
    cross = len(cfg["cross_attention_layers"])
    assert _params(lay, "cross_attn") == cross * (2 * hd + 2)
    embed = next(t for t in lay.main if t.name == "model.embed_tokens")
    assert embed.shape[0] == cfg["vocab_size"] + 8


def test_ernie_moe_layers_start_at_the_start_index():
    m, lay = _layout(MODELS / "ernie-4.5-21b-a3b-pt")
    cfg = m.text_config
    n = cfg["num_hidden_layers"]
    start, end = cfg["moe_layer_start_index"], cfg["moe_layer_end_index"]
    moe = [i for i in range(n) if start <= i <= end
           and (i - start) % cfg["moe_layer_interval"] == 0]
    router = next(t for t in lay.main if t.name.endswith("mlp.gate"))
    assert router.layers == tuple(moe)
    shared = next(t for t in lay.main if "shared_experts" in t.name)
    assert shared.shape[0] == cfg["moe_intermediate_size"] * cfg["moe_num_shared_experts"]


def test_qwen2_5_vl_without_vision_config_builds_the_default_tower():
    """transformers' Qwen2_5_VLVisionConfig defaults: 32 blocks of width 3584."""
    _, lay = _layout(MODELS / "qwen2.5-vl-no-vision-config")
    qkv = next(t for t in lay.main if t.name.endswith("attn.qkv"))
    assert len(qkv.layers) == 32 and qkv.shape == (3 * 3584, 3584 + 1)


def test_whisper_counts_encoder_and_decoder():
    m, lay = _layout(MODELS / "whisper-large-v3")
    cfg = m.config
    d = cfg["d_model"]
    enc = sum(t.params for t in lay.main if t.name.startswith("encoder.layers"))
    per = 4 * d * d + 2 * cfg["encoder_ffn_dim"] * d + 9 * d + cfg["encoder_ffn_dim"]
    assert enc == cfg["encoder_layers"] * per
