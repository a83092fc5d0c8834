"""K-EXAONE, Sarvam-MoE and Ring-mini-2.0 against SGLang 0.5.23's own builds (h14 round).

Weights: what SGLang's class holds on one GPU when built on the meta device at TP 1
(``tests/parity/tools/record_model_params.py``'s machinery in the oracle's venv): every
parameter, float32 ones (routers' biases, Ling's float32 router) counted once. KV pools:
SGLang's ``KVCacheConfigurator`` on the resolved launch (``tests/parity/tools/
record_kv_pool.py``) given SGLang's own weight bytes a GPU; launchplan gets the same figures.

The configs (``tests/parity/models/``, each folder's ``SOURCE.md`` says what is real and what
was derived): ``k-exaone-236b`` (``exaone_moe``: a dense first layer by ``is_moe_layer``,
one shared expert a MoE layer), ``sarvam-30b`` (``sarvam_moe``, partial: a public fixture's
geometry) and ``ring-mini-2.0`` (``bailing_moe``, Ling 2.0: shared experts under
``moe_shared_expert_intermediate_size``). All three name their shared experts under the
common ``num_shared_experts``, which launchplan used to read for a few named types only.
"""

from __future__ import annotations

import pytest

from launchplan.facts.models import clear_cache, load_model
from launchplan.facts.targets import get_target
from launchplan.memory.kv_pool import kv_pool
from launchplan.memory.weights import Parallel, _layout, plan_weights
from launchplan.planner import resolve
from tests.memory.built_params import (
    BEFORE_LOAD,
    PARITY_MODELS,
    load_written,
    parity_config,
)

MODELS = PARITY_MODELS
BEFORE = BEFORE_LOAD  # the recording's memory figures (bytes usable before the weights load)


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


_config = parity_config


def _params(model) -> int:
    return plan_weights(model).total_params


def _components(model) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in _layout(model).main:
        out[t.component] = out.get(t.component, 0) + t.params
    return out


def _named(model, suffix: str) -> int:
    return sum(t.params for t in _layout(model).main if t.name.endswith(suffix))


# --- weights as SGLang built them ------------------------------------------------------------

@pytest.mark.parametrize("folder, built", [
    ("k-exaone-236b", 236_571_156_352),  # the model card's "236B in total"
    ("sarvam-30b", 32_152_648_064),
    ("ring-mini-2.0", 16_255_643_392),  # the published "16.26B total"
])
def test_weights_are_what_sglang_builds(folder, built):
    assert _params(load_model(str(MODELS / folder))) == built


def test_k_exaone_layers_follow_is_moe_layer():
    """``exaone_moe.py`` takes each layer's kind from ``is_moe_layer``: layer 0 a dense MLP
    of intermediate_size, layers 1..47 MoE with one shared expert as wide as a routed one,
    a router and its float32 correction bias; per-head q/k norms on every layer. (Before:
    all 48 layers MoE and no shared expert, +2.72B parameters.)"""
    model = load_model(str(MODELS / "k-exaone-236b"))
    h, moe = 6144, 47
    parts = _components(model)
    assert parts["mlp"] == 3 * h * 18432 == 339_738_624
    assert parts["experts"] == moe * 128 * 3 * h * 2048 == 227_096_395_776
    assert parts["shared_experts"] == moe * 3 * h * 2048 == 1_774_190_592
    assert parts["router"] == moe * 128 * h + moe * 128  # gate 36,962,304 + bias 6,016
    assert _named(model, "q_norm") + _named(model, "k_norm") == 48 * 2 * 128
    bias = [t for t in _layout(model).main if t.name.endswith("e_score_correction_bias")]
    assert bias and all(t.fp32 for t in bias)


@pytest.mark.parametrize("change", [
    {"is_moe_layer": None},  # the config class's mlp_layer_types, else first_k_dense_replace 1
    {"is_moe_layer": None, "mlp_layer_types": ["dense"] + ["sparse"] * 47},
    {"num_shared_experts": None},  # ExaoneMoeConfig's default: one shared expert
    {"first_last_k_dense_replace": 7},  # read by no SGLang or transformers class
])
def test_k_exaone_class_defaults_keep_the_build(tmp_path, change):
    cfg = {k: v for k, v in {**_config("k-exaone-236b"), **change}.items() if v is not None}
    assert _params(load_written(tmp_path, cfg)) == 236_571_156_352


def test_k_exaone_lists_and_counts_move_the_build(tmp_path):
    cfg = _config("k-exaone-236b")
    h = 6144
    layer_moe = 128 * 3 * h * 2048 + 3 * h * 2048 + 128 * h + 128
    all_moe = {**cfg, "is_moe_layer": [True] * 48}
    assert _params(load_written(tmp_path, all_moe)) == (
        236_571_156_352 - 3 * h * 18432 + layer_moe)
    # is_moe_layer wins over mlp_layer_types, as exaone_moe.py reads it alone
    both = {**cfg, "mlp_layer_types": ["sparse"] * 48}
    assert _params(load_written(tmp_path, both)) == 236_571_156_352
    two = {**cfg, "num_shared_experts": 2}
    assert _params(load_written(tmp_path, two)) == 236_571_156_352 + 47 * 3 * h * 2048
    none = {**cfg, "num_shared_experts": 0}
    assert _params(load_written(tmp_path, none)) == 236_571_156_352 - 47 * 3 * h * 2048


def test_sarvam_counts_its_shared_expert_and_qk_norms(tmp_path):
    """SarvamMoEForCausalLM builds Ling's layers: a shared expert of num_shared_experts x
    moe_intermediate_size on each of the 18 MoE layers, and per-head query/key layernorms
    (its config class turns use_qk_norm on)."""
    model = load_model(str(MODELS / "sarvam-30b"))
    parts = _components(model)
    assert parts["shared_experts"] == 18 * 3 * 4096 * 1024 == 226_492_416
    assert parts["experts"] == 28_991_029_248 and parts["mlp"] == 100_663_296
    assert parts["router"] == 9_437_184  # no expert bias: the file does not ask for one
    assert _named(model, "q_norm") + _named(model, "k_norm") == 19 * 2 * 64
    cfg = _config("sarvam-30b")
    off = {**cfg, "use_qk_norm": False}
    assert _params(load_written(tmp_path, off)) == 32_152_648_064 - 19 * 2 * 64
    # SarvamMoEConfig aliases num_shared_experts to n_shared_experts: either key, once
    alias = {k: v for k, v in cfg.items() if k != "num_shared_experts"}
    assert _params(load_written(tmp_path, {**alias, "n_shared_experts": 1})) == 32_152_648_064
    assert _params(load_written(tmp_path, {**alias, "n_shared_experts": 0})) == (
        32_152_648_064 - 226_492_416)
    # and with neither key, the class's default of one
    assert _params(load_written(tmp_path, alias)) == 32_152_648_064


def test_ring_shared_expert_width_and_float32_router(tmp_path):
    """bailing_moe.py: num_shared_experts x moe_shared_expert_intermediate_size (else
    moe_intermediate_size), the router's weight in float32 under router_dtype "fp32" and a
    float32 expert_bias under moe_router_enable_expert_bias."""
    model = load_model(str(MODELS / "ring-mini-2.0"))
    h, moe = 2048, 19
    parts = _components(model)
    assert parts["shared_experts"] == moe * 3 * h * 512 == 59_768_832
    assert parts["router"] == moe * (256 * h + 256)  # gate 9,961,472 + expert_bias 4,864
    router = [t for t in _layout(model).main if t.component == "router"]
    assert router and all(t.fp32 for t in router)
    assert plan_weights(model, Parallel(tp=2)).breakdown["router"] == 4 * moe * (256 * h + 256)
    cfg = _config("ring-mini-2.0")
    wide = {**cfg, "moe_shared_expert_intermediate_size": 1024, "num_shared_experts": 2}
    assert _params(load_written(tmp_path, wide)) == 16_255_643_392 + moe * 3 * h * (
        2 * 1024 - 512)
    routed = {k: v for k, v in cfg.items() if k != "moe_shared_expert_intermediate_size"}
    assert _params(load_written(tmp_path, routed)) == 16_255_643_392  # 512 either way
    bf16 = {**cfg, "router_dtype": "bf16", "moe_router_enable_expert_bias": False}
    lay = _layout(load_written(tmp_path, bf16))
    assert not any(t.fp32 for t in lay.main if t.component == "router")
    assert _params(load_written(tmp_path, bf16)) == 16_255_643_392 - moe * 256


def test_the_common_key_is_read_for_any_moe_type(tmp_path):
    """A MoE type launchplan has no branch for still gets num_shared_experts' shared MLP
    (the class of the three models above); the families whose SGLang class reads the count
    another way keep theirs: XVERSE's are each as wide as the dense MLP (``xverse_moe.py``)."""
    base = {"architectures": ["XllmForCausalLM"], "model_type": "xllm", "hidden_size": 1024,
            "intermediate_size": 4096, "moe_intermediate_size": 256, "num_experts": 8,
            "num_experts_per_tok": 2, "num_hidden_layers": 2, "num_attention_heads": 8,
            "num_key_value_heads": 8, "vocab_size": 1000, "torch_dtype": "bfloat16",
            "max_position_embeddings": 4096}
    with_shared = {**base, "num_shared_experts": 2}
    parts = _components(load_written(tmp_path, with_shared))
    assert parts["shared_experts"] == 2 * 3 * 1024 * 2 * 256
    assert "shared_experts" not in _components(load_written(tmp_path, base))
    xverse = {**with_shared, "architectures": ["XverseMoeForCausalLM"], "model_type": "xverse",
              "auto_map": {"AutoConfig": "configuration_xverse.XverseConfig"}}
    parts = _components(load_written(tmp_path, xverse))
    assert parts["shared_experts"] == 2 * 3 * 1024 * 2 * 4096


# --- K-EXAONE's MTP draft ----------------------------------------------------------------------

def _exaone_mtp(tmp_path, layers: int = 1):
    return load_written(tmp_path, {**_config("k-exaone-236b"),
                                   "num_nextn_predict_layers": layers})


@pytest.mark.parametrize("layers", [1, 2])
def test_k_exaone_mtp_draft_is_what_sglang_builds(tmp_path, layers):
    """``ExaoneMoEForCausalLMMTP`` (model_config.py swaps it in for a draft of the target's
    own checkpoint): one decoder layer whatever the count, built as layer 0 and so dense
    (is_moe_layer[0] is False), the 2h -> h fc and three norms, plus its own embedding and
    head until the target's are handed over: 2,415,950,080 parameters as SGLang built it."""
    model = _exaone_mtp(tmp_path, layers)
    plan = plan_weights(model, Parallel(tp=1), mtp_draft=True)
    parts = _components(model)
    copies = parts["embedding"] + parts["lm_head"]
    assert plan.draft_params + copies == 2_415_950_080
    assert not plan.caveats
    assert plan_weights(model).total_params == 236_571_156_352  # the target unchanged
    # at TP 4: the layer's projections and the copies split; fc (75,497,472 parameters),
    # five norms and the q/k norms whole
    whole = 75_497_472 + 5 * 6144 + 2 * 128
    four = plan_weights(model, Parallel(tp=4), mtp_draft=True)
    assert four.draft_bytes_per_gpu == 2 * ((2_415_950_080 - whole) // 4 + whole)


#: (gpu, tp, SGLang's target weight bytes a GPU) -> SGLang's bytes a token (the draft
#: layer's KV with the target's), tokens, requests
K_EXAONE_MTP_POOLS = [
    ("b200", 4, 118_285_578_176, (50_176, 896_576, 48)),
    ("h100", 8, 59_142_789_088, (25_088, 390_196, 48)),
]


@pytest.mark.parametrize("gpu, tp, weights, want", K_EXAONE_MTP_POOLS)
def test_k_exaone_mtp_launch_pool(tmp_path, gpu, tp, weights, want):
    _exaone_mtp(tmp_path)
    argv = ["--tp-size", str(tp), "--speculative-algorithm", "NEXTN"]
    result = resolve(argv, gpu=get_target(gpu), model_path=str(tmp_path), compat="0.5.23")
    pool = kv_pool(result, weights_bytes=weights, before_load_bytes=BEFORE[gpu]).as_json()
    got = tuple(pool[k] for k in ("kv_bytes_per_token", "max_total_num_tokens",
                                  "max_running_requests"))
    assert got == want


def test_uncounted_mtp_caveat_names_what_the_file_declares(tmp_path):
    cfg = {**_config("sarvam-30b"), "num_nextn_predict_layers": 1}
    plan = plan_weights(load_written(tmp_path, cfg), mtp_draft=True)
    assert plan.draft_params == 0
    (note,) = [c for c in plan.caveats if "MTP" in c]
    assert "declares 1 MTP layer(s) (num_nextn_predict_layers)" in note
    assert "declares no MTP" not in note
    plain = plan_weights(load_written(tmp_path, _config("sarvam-30b")), mtp_draft=True)
    assert any("declares no MTP layers" in c for c in plain.caveats)


def test_ring_nextn_layer_is_deepseek_shaped(tmp_path):
    """Ling 2.0's draft of its own checkpoint (``model_config.py`` swaps in
    ``BailingMoeForCausalLMNextN``): one MoE layer with its shared expert and float32
    router, enorm, hnorm, eh_proj (2h -> h), a final norm, and its own embedding and head
    until the target's are handed over. SGLang 0.5.23 built 1,471,687,168 parameters from
    ``ring-mini-2.0`` plus ``num_nextn_predict_layers`` 1 (h14's recorder, the class
    swapped in as the draft's config does; the target's 16,255,643,392 unchanged)."""
    cfg = {**_config("ring-mini-2.0"), "num_nextn_predict_layers": 1}
    h = 2048
    attn = (16 * 128 + 2 * 4 * 128) * h + h * 16 * 128 + 2 * 128
    moe = 256 * 3 * h * 512 + 3 * h * 512 + 256 * h + 256
    model = load_written(tmp_path, cfg)
    plan = plan_weights(model, mtp_draft=True)
    assert plan.draft_params == attn + moe + 2 * h + 2 * h * h + 3 * h
    parts = _components(model)
    assert plan.draft_params + parts["embedding"] + parts["lm_head"] == 1_471_687_168
    assert plan.total_params == 16_255_643_392 and not plan.caveats


# --- KV pools with SGLang's own weight bytes ---------------------------------------------------

#: (gpu, tp, SGLang's weight bytes a GPU: 236,571,156,352 x 2 / tp + its 128 MiB RoPE table)
#: -> SGLang's bytes a token, tokens, requests
K_EXAONE_POOLS = [
    ("h100", 8, 59_277_006_816, (24_576, 392_863, 2_048)),
    ("b200", 4, 118_419_795_904, (49_152, 912_512, 2_048)),
    ("b200", 8, 59_277_006_816, (24_576, 4_208_256, 4_096)),
    ("mi300x", 4, 118_419_795_904, (49_152, 1_207_448, 2_358)),
    ("mi300x", 8, 59_277_006_816, (24_576, 4_796_337, 4_096)),
]


@pytest.mark.parametrize("gpu, tp, weights, want", K_EXAONE_POOLS)
def test_k_exaone_pool_on_sglang_weights(gpu, tp, weights, want):
    result = resolve(["--tp-size", str(tp)], gpu=get_target(gpu),
                     model_path=str(MODELS / "k-exaone-236b"), compat="0.5.23")
    pool = kv_pool(result, weights_bytes=weights, before_load_bytes=BEFORE[gpu]).as_json()
    got = tuple(pool[k] for k in ("kv_bytes_per_token", "max_total_num_tokens",
                                  "max_running_requests"))
    assert got == want


def test_ling_hybrid_takes_its_config_class_defaults():
    """BailingHybridConfig (Ling 2.5 / V3, ``bailing_hybrid``) defaults ``num_shared_experts``
    and ``first_k_dense_replace`` to 1: a file that leaves both out (the V3-VL synthetic
    config) builds a dense first layer and one shared expert as wide as a routed one on
    each of the other 23. SGLang 0.5.23 built its text model (modules under ``model.``) on
    the meta device at TP 1 with 10,437,019,648 parameters (recorded this round with the
    architecture round's recorder; before, 24 MoE layers and no shared expert: +220M)."""
    model = load_model(str(MODELS / "bailing-moe-v3-vl-synth"))
    text = sum(t.params for t in _layout(model).main if not t.padding)
    assert text == 10_437_019_648
    parts = _components(model)
    assert parts["mlp"] == 3 * 2048 * 6144
    assert parts["shared_experts"] == 23 * 3 * 2048 * 1024
