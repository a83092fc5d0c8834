"""ZAYA1 and Spark-X2.5 against SGLang 0.5.23's own builds and KV pools (thirty-third round).

Weights: what SGLang's class holds on one GPU when built on the meta device at TP 1
(``tests/parity/tools/record_model_params.py``'s machinery in the oracle's venv). KV pools:
SGLang's ``KVCacheConfigurator`` on the resolved launch (``tests/parity/tools/
record_kv_pool.py``), given the memory figures below; launchplan gets the same figures.

The configs (``tests/parity/models/``): ``zaya1-8b`` is Zyphra/ZAYA1-8B's first published
(legacy, Megatron-style) file, ``zaya1-8b-native`` the transformers-native file the Hub
serves now, which 0.5.23's ``ZayaConfig`` does not translate (it keeps its defaults: 40
interleaved layers, experts of 4096 / 2), and ``spark-x2.5-4b`` XHToken/Spark-X2.5-4B's,
whose published parameter count (4,112,079,360) is the one SGLang builds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from launchplan.facts.models import clear_cache, load_model
from launchplan.facts.targets import get_target
from launchplan.memory.kv_layers import attention_layers
from launchplan.memory.kv_pool import kv_pool
from launchplan.memory.weights import _layout, plan_weights
from launchplan.planner import resolve
from tests.memory.built_params import built_params, load_written

MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"
#: the recording's memory figures (bytes usable before the weights load)
BEFORE = {"h100": 84_891_664_384, "b200": 191_636_701_184, "mi300x": 205_512_507_392}


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def _model(folder: str):
    return load_model(str(MODELS / folder))


def _components(model) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in _layout(model).main:
        out[t.component] = out.get(t.component, 0) + t.params
    return out


# --- weights ---------------------------------------------------------------------------------

@pytest.mark.parametrize("folder, built", [
    ("zaya1-8b", 8_840_489_040),
    ("zaya1-8b-native", 4_688_814_120),
    ("spark-x2.5-4b", 4_112_079_360),
])
def test_weights_are_what_sglang_builds(folder, built):
    assert built_params(_model(folder)) == built


def test_zaya_prices_its_experts_and_ties_its_head():
    """ZayaBlock's 16 experts of ffn_hidden_size / 2 on the 40 odd layers, CCA attention
    and its replicated router on their halves, no LM head (ZayaConfig ties it by default),
    as SGLang's per-module counts give them."""
    parts = _components(_model("zaya1-8b"))
    assert parts["experts"] == 8_053_063_680 == 40 * 16 * (2048 * 4096 + 2048 * 2048)
    assert parts["attention"] == 139_141_200 + 83_886_080  # qkv (CCA) + o_proj
    assert parts["router"] == 26_439_680
    assert parts["embedding"] == 537_133_056
    assert "lm_head" not in parts


def test_zaya_untied_file_keeps_a_head(tmp_path):
    import json

    cfg = json.loads((MODELS / "zaya1-8b" / "config.json").read_text())
    tied = built_params(load_written(tmp_path, cfg))
    untied = built_params(load_written(tmp_path, {**cfg, "tie_word_embeddings": False}))
    assert untied - tied == 262_272 * 2048


def test_zaya_rope_table_is_one_half_rotary_table():
    rope = plan_weights(_model("zaya1-8b")).breakdown["rope_cache"]
    assert rope == 33_554_432  # 131,072 positions x 64 rotary columns, float32


def test_spark_counts_the_head_wise_gate_and_both_rope_tables():
    """``g_proj`` (hidden -> one gate a head) on all 36 layers; a RoPE table for the sliding
    layers (256 wide) and one for the full layers (a quarter: 64), over 1M positions."""
    model = _model("spark-x2.5-4b")
    gate = [t for t in _layout(model).main if t.name.endswith("g_proj")]
    assert sum(t.params for t in gate) == 36 * 2560 * 16
    assert plan_weights(model).breakdown["rope_cache"] == 1_073_741_824 + 268_435_456


def test_spark_without_the_gate_flag_still_gates(tmp_path):
    import json

    cfg = json.loads((MODELS / "spark-x2.5-4b" / "config.json").read_text())
    del cfg["headwise_attn_output_gate"]
    assert built_params(load_written(tmp_path, cfg)) == 4_112_079_360
    off = built_params(load_written(tmp_path, {**cfg, "headwise_attn_output_gate": False}))
    assert off == 4_112_079_360 - 36 * 2560 * 16


# --- KV pools --------------------------------------------------------------------------------

def _pool(folder: str, gpu: str, argv: list[str], weights: int):
    result = resolve(argv, gpu=get_target(gpu), model_path=str(MODELS / folder),
                     compat="0.5.23")
    return kv_pool(result, weights_bytes=weights, before_load_bytes=BEFORE[gpu]).as_json()


#: (folder, gpu, argv, weight bytes) -> SGLang's bytes a token, tokens, requests, state bytes a
#: slot and state slots
ZAYA_POOLS = [
    ("zaya1-8b", "h100", ["--tp-size", "1"], 16_800_000_000,
     (40_960, 689_510, 2_693, 368_640, 68_949)),
    ("zaya1-8b", "h100", ["--tp-size", "2"], 8_400_000_000,
     (20_480, 1_590_531, 4_096, 266_240, 110_111)),
    ("zaya1-8b", "h100", ["--tp-size", "1", "--kv-cache-dtype", "fp8_e4m3"], 16_800_000_000,
     (20_480, 1_379_021, 4_096, 368_640, 68_949)),
    ("zaya1-8b", "h100", ["--tp-size", "1", "--disable-cuda-graph"], 16_800_000_000,
     (40_960, 701_508, 2_740, 368_640, 70_149)),
    ("zaya1-8b", "b200", ["--tp-size", "4"], 4_200_000_000,
     (20_480, 4_088_064, 4_096, 215_040, 350_403)),
    ("zaya1-8b", "mi300x", ["--tp-size", "1", "--mem-fraction-static", "0.5"],
     16_800_000_000, (40_960, 906_440, 3_540, 368_640, 90_643)),
    ("zaya1-8b-native", "h100", ["--tp-size", "1"], 16_800_000_000,
     (20_480, 1_379_012, 4_096, 184_320, 137_900)),
    ("zaya1-8b-native", "h100", ["--tp-size", "4"], 4_200_000_000,
     (10_240, 3_357_650, 4_096, 107_520, 287_796)),
]


@pytest.mark.parametrize("folder, gpu, argv, weights, want", ZAYA_POOLS)
def test_zaya_pool_holds_its_attention_layers_and_cca_state(folder, gpu, argv, weights,
                                                            want):
    """Only ZayaConfig's attention layers (every even one of the interleaved count) hold KV;
    the same layers keep a CCA conv state a request slot."""
    pool = _pool(folder, gpu, argv, weights)
    got = tuple(pool[k] for k in ("kv_bytes_per_token", "max_total_num_tokens",
                                  "max_running_requests", "mamba_state_bytes_per_slot",
                                  "max_mamba_cache_size"))
    assert got == want


def test_zaya_kv_layers_are_the_attention_half():
    assert attention_layers(_model("zaya1-8b")) == 40
    assert attention_layers(_model("zaya1-8b-native")) == 20  # 0.5.23 reads 40 as interleaved


#: (gpu, argv, weight bytes) -> SGLang's bytes a full token, full tokens, SWA tokens, requests
SPARK_POOLS = [
    ("h100", ["--tp-size", "1"], 8_230_000_000, (125_337.6, 496_499, 397_199, 2_048)),
    ("h100", ["--tp-size", "1", "--swa-full-tokens-ratio", "0.3"], 8_230_000_000,
     (70_041.6, 888_473, 266_541, 2_048)),
    ("h100", ["--tp-size", "1", "--page-size", "64"], 8_230_000_000,
     (125_337.6, 496_448, 397_120, 2_048)),
    ("b200", ["--tp-size", "4"], 2_057_500_000, (31_334.4, 5_145_024, 4_115_968, 2_512)),
    ("mi300x", ["--tp-size", "1", "--kv-cache-dtype", "fp8_e4m3"], 8_230_000_000,
     (62_668.8, 2_285_386, 1_828_308, 2_048)),
    ("h100", ["--tp-size", "1", "--disable-hybrid-swa-memory"], 8_230_000_000,
     (147_456, 422_024, None, 2_048)),
]


@pytest.mark.parametrize("gpu, argv, weights, want", SPARK_POOLS)
def test_spark_pool_is_hybrid_sliding_window(gpu, argv, weights, want):
    """Spark2_5Config sets ``is_hybrid_swa`` from its layer kinds (27 sliding-window layers,
    9 full): SGLang pools them apart unless told not to."""
    pool = _pool("spark-x2.5-4b", gpu, argv, weights)
    got = tuple(pool[k] for k in ("kv_bytes_per_token", "max_total_num_tokens",
                                  "swa_max_total_num_tokens", "max_running_requests"))
    assert got == want


# --- the config classes that set is_hybrid_swa themselves --------------------------------------

def _spark(tmp_path, **changes):
    import json

    cfg = json.loads((MODELS / "spark-x2.5-4b" / "config.json").read_text())
    cfg.update(changes)
    return load_written(tmp_path, {k: v for k, v in cfg.items() if v is not None})


def test_spark_is_hybrid_by_its_class_not_by_a_flag_in_the_file(tmp_path):
    assert _spark(tmp_path).is_hybrid_swa
    # without layer_types the class's default (three sliding, one full) is hybrid too
    assert _spark(tmp_path, layer_types=None).is_hybrid_swa
    # all full attention: nothing slides
    assert not _spark(tmp_path, layer_types=["full_attention"] * 36).is_hybrid_swa


def test_spark_default_kinds_split_the_pool(tmp_path):
    from launchplan.memory.kv_pool import _layer_split

    swa, full = _layer_split(_spark(tmp_path, layer_types=None))
    assert (len(swa), len(full)) == (27, 9) and full == list(range(3, 36, 4))


def test_muse_spark_is_hybrid_only_with_sliding_layers(tmp_path):
    import json

    cfg = json.loads((MODELS / "muse-spark-synth" / "config.json").read_text())
    assert not load_written(tmp_path, cfg).is_hybrid_swa  # its class default: all full
    layers = cfg["text_config"]["num_hidden_layers"]
    cfg["text_config"]["layer_types"] = ["sliding_attention", "full_attention"] * (
        layers // 2) + ["full_attention"] * (layers % 2)
    assert load_written(tmp_path, cfg).is_hybrid_swa
