"""Grok-2, Kimi-VL-A3B and Step3 against SGLang 0.5.23's own builds (h16 round).

Weights: what SGLang's class holds on one GPU when built on the meta device at TP 1
(``tests/parity/tools/record_model_params.py``'s machinery in the oracle's venv): every
allocated parameter, padded vocabulary rows included; launchplan's side is the bf16 bytes it
plans at TP 1 over two, less its RoPE tables and MLA's absorbed copies, float32 tensors
counted once. RoPE tables: the recording's ``cos_sin_cache`` buffers.

The configs (``tests/parity/models/``, each folder's ``SOURCE.md`` says what is real, partial
or derived): ``grok-2`` (``Grok1ForCausalLM``, ``model_type`` "git": a dense MLP beside the
experts under ``residual_moe``, a rotary table a layer under ``rope_type``, and the published
``sliding_window_size: -1``), ``kimi-vl-a3b-instruct`` (MLA text model, MoonViT and Kimi-VL's
own projector), ``step3`` (MFA attention through ``share_q_dim``, Step3's ViT, downsamplers
and projector).
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
    component_params,
    load_written,
    parity_config,
    rope_bytes,
)

MODELS = PARITY_MODELS
BEFORE = BEFORE_LOAD  # the recording's memory figures (bytes usable before the weights load)
MIB64 = 64 * 2**20


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


_config = parity_config


def _allocated(model) -> int:
    """Parameters as SGLang allocates them (see the module docstring)."""
    lay = _layout(model)
    fp32 = sum(t.params for t in lay.main if t.fp32 and not t.padding)
    total = sum(b for c, b in plan_weights(model).breakdown.items()
                if c not in ("rope_cache", "mla_absorbed"))
    assert total % 2 == 0
    return total // 2 - fp32


_components = component_params
_rope_bytes = rope_bytes


# --- weights as SGLang built them ------------------------------------------------------------

@pytest.mark.parametrize("folder, built", [
    ("grok-2", 269_515_497_472),  # the published ~270B
    ("kimi-vl-a3b-instruct", 16_407_656_048),
    ("step3", 318_397_272_832),  # (built with text_config.pad_token_id added: SOURCE.md)
])
def test_weights_are_what_sglang_builds(folder, built):
    assert _allocated(load_model(str(MODELS / folder))) == built


def test_grok2_published_file_is_read():
    """grok-2's file writes ``sliding_window_size: -1`` (no window); SGLang keeps it unchecked
    and never reads it for Grok. (Before: the whole model was bad input, exit 2.)"""
    model = load_model(str(MODELS / "grok-2"))
    assert model.sliding_window is None


def test_grok2_residual_mlp_beside_the_experts(tmp_path):
    """``grok.py``: with ``residual_moe`` every layer runs a gated MLP of intermediate_size
    (32768) beside the 8 experts of moe_intermediate_size (16384), and has four norms.
    (Before: no dense MLP, two norms a layer: 51.5B parameters short.)"""
    model = load_model(str(MODELS / "grok-2"))
    h, n = 8192, 64
    parts = _components(model)
    assert parts["mlp"] == n * 3 * h * 32768 == 51_539_607_552
    assert parts["experts"] == n * 8 * 3 * h * 16384
    assert parts["norms"] == (4 * n + 1) * h
    off = {**_config("grok-2"), "residual_moe": False}
    assert _allocated(load_written(tmp_path, off)) == 269_515_497_472 - 51_539_607_552


def test_grok2_rope_table_per_layer(tmp_path):
    """grok.py replaces each layer's ``get_rope`` table with a scaled rotary embedding of its
    own when ``rope_type`` is set: 64 tables of 8192 x 16 positions x 128 fp32 (the
    recording's 64 ``cos_sin_cache`` buffers of 67,108,864 bytes), plus the first get_rope
    table, which its cache keeps. (Before: one table, 4 GiB a GPU short.)"""
    model = load_model(str(MODELS / "grok-2"))
    assert _rope_bytes(model) == 65 * MIB64
    assert plan_weights(model, Parallel(tp=8)).breakdown["rope_cache"] == 65 * MIB64
    plain = {k: v for k, v in _config("grok-2").items() if k != "rope_type"}
    assert _rope_bytes(load_written(tmp_path, plain)) == MIB64


def test_grok2_weights_a_gpu_at_tp8():
    """The recording's per-GPU figure (269,515,497,472 x 2 / 8 + 65 tables of 64 MiB) splits
    everything by 8; launchplan keeps the norms and routers whole on every GPU: 11,024,384
    bytes more (0.015%)."""
    model = load_model(str(MODELS / "grok-2"))
    assert plan_weights(model, Parallel(tp=8)).bytes_per_gpu == (
        269_515_497_472 * 2 // 8 + 65 * MIB64 + 11_024_384)


@pytest.mark.parametrize("gpu, tp, want", [
    ("b200", 4, 368_512), ("b200", 8, 2_775_808), ("mi300x", 4, 182_849),
    ("mi300x", 8, 2_405_946),
])
def test_grok2_pool_on_sglang_weights(gpu, tp, want):
    """SGLang's pool configurator given its own weight bytes a GPU (kvres3): the same pool.
    With launchplan's own (slightly larger, see above) bytes the pool is within 0.01%."""
    result = resolve(["--tp-size", str(tp)], gpu=get_target(gpu),
                     model_path=str(MODELS / "grok-2"), compat="0.5.23")
    weights = 269_515_497_472 * 2 // tp + 65 * MIB64
    pool = kv_pool(result, weights_bytes=weights, before_load_bytes=BEFORE[gpu]).as_json()
    assert pool["max_total_num_tokens"] == want
    own = plan_weights(load_model(str(MODELS / "grok-2")), Parallel(tp=tp)).bytes_per_gpu
    mine = kv_pool(result, weights_bytes=own, before_load_bytes=BEFORE[gpu]).as_json()
    assert abs(mine["max_total_num_tokens"] - want) <= want * 1e-3


def test_grok2_bf16_tp8_h100_has_no_room():
    """SGLang refuses it: the weights leave no KV room at mem_fraction_static 0.812 (needs
    more than 0.846); launchplan's own weights say the same. (Before: "fits", 366,977
    tokens.)"""
    result = resolve(["--tp-size", "8"], gpu=get_target("h100"),
                     model_path=str(MODELS / "grok-2"), compat="0.5.23")
    own = plan_weights(load_model(str(MODELS / "grok-2")), Parallel(tp=8)).bytes_per_gpu
    with pytest.raises(Exception, match="no memory for the KV cache"):
        kv_pool(result, weights_bytes=own, before_load_bytes=BEFORE["h100"])


def test_kimi_vl_moonvit_and_its_projector():
    """kimi_vl.py builds MoonViT (the 64 x 64 position table, biased qkv/proj and MLP,
    LayerNorms) and KimiVLMultiModalProjector: LayerNorm(1152), 4608 -> 4608, 4608 -> 2048.
    (Before: the SigLIP template and no projector, a caveat; 35,103,488 short.)"""
    model = load_model(str(MODELS / "kimi-vl-a3b-instruct"))
    proj = sum(t.params for t in _layout(model).main
               if t.name.startswith("multi_modal_projector"))
    assert proj == 2 * 1152 + 4608 * 4608 + 4608 + 2048 * 4608 + 2048 == 30_679_808
    assert _components(model)["vision"] == 416_866_032 + 30_679_808
    assert not plan_weights(model).caveats and not _layout(model).caveats


def test_step3_factored_query_attention():
    """step3_vl.py: a replicated qkv_proj of hidden x (share_q_dim + 2 x 256), an RMSNorm of
    share_q_dim, ``wq`` share_q_dim -> 64 x 256, o_proj: 169,347,072 a layer. (Before: plain
    GQA from the hidden width, +4.22B parameters.)"""
    model = load_model(str(MODELS / "step3"))
    h, n = 7168, 61
    attn = _components(model)["attention"]
    assert attn == n * (h * (2048 + 2 * 256) + 2048 * 64 * 256 + 64 * 256 * h)
    assert attn + n * 2048 == n * 169_347_072
    sharded = plan_weights(model, Parallel(tp=8)).breakdown["attention"]
    # qkv_proj whole on every GPU (its KV part one group of 256), wq and o_proj split by 8
    assert sharded == 2 * n * (h * (2048 + 512) + (2048 * 64 * 256 + 64 * 256 * h) // 8)


def test_step3_rope_table_spans_the_class_default():
    """Step3's class reads ``max_position_embeddings``, which its config class never sets
    (the file spells ``max_position_embedding``): the table is 8192 x 256 fp32, the
    recording's 8,388,608 bytes. (Before: no table.)"""
    assert _rope_bytes(load_model(str(MODELS / "step3"))) == 8192 * 256 * 4


def test_step3_vision_tower_and_projector():
    """Step3's ViT: 63 blocks of 16,065,280 in attention (VisionAttention's qkv + proj and
    Step3VisionAttention's own biased out_proj, allocated but never loaded), the MLP, norms,
    a class embedding, the patch convolution and 52² + 1 positions; then vit_downsampler
    (1792 -> 4096, kernel 2), vit_downsampler2 (4096 -> 8192, kernel 3) and
    vit_large_projector (8192 -> 7168, no bias): 2,102,490,880 in all, as recorded. The
    recording's int64 ``position_ids`` buffer (21,640 bytes) is not counted. (Before: the
    SigLIP template, no projector: 592M short.)"""
    model = load_model(str(MODELS / "step3"))
    vision = [t for t in _layout(model).main if t.component == "vision"]
    assert sum(t.params for t in vision) == 2_102_490_880
    attn = sum(t.params for t in vision if ".self_attn." in t.name)
    assert attn == 63 * 16_065_280
    proj = sum(t.params for t in vision if t.name.startswith("vit_"))
    assert proj == 29_364_224 + 301_998_080 + 58_720_256
    # the out_proj SGLang allocates is no checkpoint tensor
    assert plan_weights(model).checkpoint_params == 318_397_272_832 - 2 * 17 * 7168 - 63 * (
        1792 * 1792 + 1792)
