"""Layer kinds and attention shapes a config class fills in (``memory.class_layers``): Gemma 4,
EmbeddingGemma 2 and Beam. The sized pools are checked against SGLang's configurator in
tests/parity/test_kv_pool.py; these tests pin the rules on configs no recording has."""

from __future__ import annotations

import json
from pathlib import Path

from launchplan.facts.models import load_model
from launchplan.facts.targets import before_load_bytes, get_target
from launchplan.memory.class_layers import attention_shapes, layer_kinds
from launchplan.memory.kv_pool import kv_pool
from launchplan.planner import resolve

GIB = 1 << 30
MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"


def folder(tmp_path: Path, config: dict, name: str) -> str:
    d = tmp_path / name
    d.mkdir()
    (d / "config.json").write_text(json.dumps(config))
    return str(d)


def gemma4(tmp_path: Path, name: str = "g4", **text) -> str:
    config = json.loads((MODELS / "gemma-4-synth" / "config.json").read_text())
    config["text_config"].update(text)
    config["text_config"] = {k: v for k, v in config["text_config"].items() if v is not None}
    return folder(tmp_path, config, name)


def test_gemma4_makes_its_last_layer_full_attention(tmp_path):
    model = load_model(gemma4(tmp_path))
    given = model.text_config["layer_types"]
    kinds = layer_kinds(model)
    assert given[-1] == "sliding_attention" and kinds[-1] == "full_attention"
    assert kinds[:-1] == list(given[:-1])


def test_gemma4_without_layer_types_has_a_full_layer_every_sixth(tmp_path):
    model = load_model(gemma4(tmp_path, layer_types=None, num_hidden_layers=14))
    kinds = layer_kinds(model)
    assert [i for i, k in enumerate(kinds) if k == "full_attention"] == [5, 11, 13]


def test_gemma4_full_layers_take_the_global_head_width_and_kv_heads_only_with_k_eq_v(tmp_path):
    plain = attention_shapes(load_model(gemma4(tmp_path, num_global_key_value_heads=4)))
    assert (plain.full_head_dim, plain.full_kv_heads) == (512, 2)  # the class default width
    assert (plain.swa_head_dim, plain.swa_kv_heads) == (256, 2)
    k_eq_v = attention_shapes(load_model(gemma4(tmp_path, "kv", num_global_key_value_heads=4,
                                                attention_k_eq_v=True, global_head_dim=384)))
    assert (k_eq_v.full_head_dim, k_eq_v.full_v_head_dim, k_eq_v.full_kv_heads) == (384, 384, 4)


def test_the_full_pool_pays_for_the_wider_full_attention_rows(tmp_path):
    target = get_target("h100")

    def pool(path, argv=()):
        result = resolve(list(argv), gpu=target, model_path=path, compat="0.5.23")
        return kv_pool(result, weights_bytes=10 * GIB, before_load_bytes=before_load_bytes(target))

    narrow = pool(gemma4(tmp_path, "narrow", global_head_dim=256))
    wide = pool(gemma4(tmp_path, "wide"))
    assert wide.full_bytes_per_token == 2 * narrow.full_bytes_per_token
    assert wide.swa_bytes_per_token == narrow.swa_bytes_per_token
    one_pool = pool(gemma4(tmp_path, "one"), ["--disable-hybrid-swa-memory"])
    layers = len(layer_kinds(load_model(gemma4(tmp_path, "n"))))
    assert one_pool.kv_bytes_per_token == wide.full_bytes_per_token // 6 * layers  # 6 full


def test_embedding_gemma2_without_a_text_config_takes_the_class_text_config():
    model = load_model(str(MODELS / "embedding-gemma2-synth"))
    shapes = attention_shapes(model)
    # EmbeddingGemma2TextConfig's defaults, whatever the file's top level says
    assert (shapes.swa_head_dim, shapes.swa_kv_heads) == (256, 2)
    assert (shapes.full_head_dim, shapes.full_kv_heads) == (512, 1)
    kinds = layer_kinds(model)
    assert kinds.count("full_attention") == 4 and kinds[-1] == "full_attention"


def test_beam_splits_by_the_class_pattern_only_when_the_config_gives_none(tmp_path):
    base = json.loads((MODELS / "beam-synth" / "config.json").read_text())
    model = load_model(str(MODELS / "beam-synth"))
    assert model.is_hybrid_swa and model.sliding_window == 512
    assert [i for i, k in enumerate(layer_kinds(model)) if k == "full_attention"] == \
        [5, 11, 17, 23]
    given = ["sliding_attention"] * 23 + ["full_attention"]
    explicit = load_model(folder(tmp_path, {**base, "layer_types": given}, "beam"))
    assert layer_kinds(explicit) is None  # read as given
    dense = load_model(folder(tmp_path, {**base, "layer_types": ["full_attention"] * 24},
                              "dense"))
    assert not dense.is_hybrid_swa


def test_other_models_keep_their_facts():
    model = load_model("gemma-3-27b")
    assert layer_kinds(model) is None and attention_shapes(model) is None
