"""Ling-lite 1.5, MiniCPM4-8B and Phi-4-multimodal against SGLang 0.5.23's own builds (h19
round).

Weights: what SGLang's class holds on one GPU at TP 1 (``tests/parity/tools/
record_model_params.py``'s machinery in the oracle's venv, on the meta device; Phi-4-MM's
audio embedding built on the CPU, as the meta device cannot build its NeMo subsampling);
launchplan's side is the bf16 bytes it plans at TP 1 over two, less its RoPE tables. RoPE
tables: the recording's ``cos_sin_cache`` buffers. Plan fields: the oracle's resolution
(``res1-0.5.23.jsonl`` of the round); pools: SGLang's pool configurator given SGLang's own
weight bytes (``kvres3.jsonl``).

The configs (``tests/parity/models/``, each folder's ``SOURCE.md`` says what is real or
derived): ``ling-lite-1.5`` (``BailingMoeForCausalLM``, no MTP layer), ``minicpm4-8b``
(``MiniCPMForCausalLM``, LongRoPE with its original length inside ``rope_scaling``),
``phi-4-multimodal-instruct`` (``Phi4MMForCausalLM``: its towers described outside
``vision_config``, LongRoPE's original length at the top level).
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
PHI = "phi-4-multimodal-instruct"
MIB = 2**20
#: Phi-4-MM as SGLang builds it: the text model, the image encoder + projector, the audio
#: embedding (the recording's ``language_model``, ``vision_encoder``, ``embed_tokens_extend``)
PHI_TEXT, PHI_VISION, PHI_AUDIO = 3_836_021_760, 411_069_856, 466_416_416
#: its LongRoPE tables: 4,096 short and 131,072 long positions of 96 rotary columns, fp32,
#: and both again concatenated (short 1,572,864 + long 50,331,648 + 51,904,512 bytes)
PHI_ROPE = 103_809_024


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def _allocated(model) -> int:
    """Parameters as SGLang allocates them (see the module docstring)."""
    total = sum(b for c, b in plan_weights(model).breakdown.items() if c != "rope_cache")
    assert total % 2 == 0
    return total // 2


_components = component_params
_rope_bytes = rope_bytes


# --- weights as SGLang built them ------------------------------------------------------------

@pytest.mark.parametrize("folder, built, rope", [
    ("ling-lite-1.5", 16_801_974_272, 16 * MIB),
    ("minicpm4-8b", 8_185_450_496, 64 * MIB),  # (short 16 + long 16 + both 32 MiB)
    (PHI, PHI_TEXT + PHI_VISION + PHI_AUDIO, PHI_ROPE),
])
def test_weights_are_what_sglang_builds(folder, built, rope):
    model = load_model(str(MODELS / folder))
    assert _allocated(model) == built
    assert _rope_bytes(model) == rope


def test_phi4mm_towers_counted():
    """phi4mm.py builds both towers on every launch: the image encoder (Idefics2's tower on
    the SigLIP config SGLang's config reader sets, 26 x 1152, no final norm; the two
    separators; a 1152 -> 3072 -> 3072 projector) and the audio embedding (a 24-block
    conformer of 1024 over NeMo subsampling, and two MLP projections of 12,589,056 each).
    (Before: a text model, 877,486,272 parameters short and no caveat.)"""
    model = load_model(str(MODELS / PHI))
    parts = _components(model)
    assert parts["vision"] == PHI_VISION == 26 * 15_239_504 + 678_528 + 1024 * 1152 + 2 * 1152 \
        + 12_982_272
    assert parts["audio"] == PHI_AUDIO == 441_238_304 + 2 * 12_589_056
    assert sum(v for k, v in parts.items() if k not in ("vision", "audio")) == PHI_TEXT
    assert not _layout(model).caveats


def test_phi4mm_image_tower_is_the_readers_whatever_the_file_says(tmp_path):
    """SGLang's config reader replaces any ``vision_config`` the file has with its own SigLIP
    config, so a file's vision block changes nothing."""
    config = {**parity_config(PHI), "vision_config": {"hidden_size": 64, "num_hidden_layers": 2}}
    assert _components(load_written(tmp_path, config))["vision"] == PHI_VISION


def test_phi4mm_audio_follows_its_conformer_config(tmp_path):
    """The conformer's depth comes from ``audio_processor.config`` (17,858,560 a block at
    width 1024); a file without that block gets a caveat instead of a silent text count."""
    config = parity_config(PHI)
    config["audio_processor"]["config"]["num_blocks"] = 2
    assert _components(load_written(tmp_path, config))["audio"] == PHI_AUDIO - 22 * 17_858_560
    clear_cache()
    bare = {k: v for k, v in parity_config(PHI).items() if k != "audio_processor"}
    model = load_written(tmp_path, bare)
    assert "audio" not in _components(model)
    assert any("audio encoder" in c for c in _layout(model).caveats)


def test_phi4mm_weights_a_gpu_are_sglangs():
    """The pool harness's weight bytes (kvcases3: 4,713,508,032 x 2 + the RoPE tables)."""
    model = load_model(str(MODELS / PHI))
    assert plan_weights(model, Parallel(tp=1)).bytes_per_gpu == 9_530_825_088


# --- LongRoPE's short table --------------------------------------------------------------------

def test_longrope_original_length_at_the_top_level(tmp_path):
    """Phi-3's config classes (and Phi-4-MM's) hold ``original_max_position_embeddings``
    themselves; transformers 5 copies it into the rope parameters SGLang sizes the short
    table by. (Before: the configured 131,072 positions, 201,326,592 bytes.)"""
    assert _rope_bytes(load_model("phi-3.5-mini")) == PHI_ROPE  # the bundled config
    config = parity_config(PHI)
    config["original_max_position_embeddings"] = 8192
    assert _rope_bytes(load_written(tmp_path, config)) == 2 * (8192 + 131_072) * 96 * 4


def test_longrope_class_without_the_attribute_keeps_the_configured_length(tmp_path):
    """PhiMoE's class holds no such attribute: the file's top-level 4,096 is not read and the
    short table spans the configured positions (the recording: 268,435,456 bytes)."""
    assert _rope_bytes(load_model(str(MODELS / "phi-3.5-moe-instruct"))) == 268_435_456
    # MiniCPM4 names the length inside rope_scaling (32,768 = the configured positions)
    config = parity_config("minicpm4-8b")
    config["rope_scaling"]["original_max_position_embeddings"] = 4096
    assert _rope_bytes(load_written(tmp_path, config)) == 2 * (4096 + 32_768) * 128 * 4


# --- the VLM headroom of mem_fraction_static -----------------------------------------------------

@pytest.mark.parametrize("gpu, tp, want", [
    ("h100", 1, 0.7638129882812499), ("h100", 2, 0.7628982421874999),
    ("b200", 1, 0.78393740234375), ("mi300x", 1, 0.6741221337890624),
])
def test_phi4mm_fraction_reads_the_readers_vision_config(gpu, tp, want):
    """SGLang's config reader sets a 26 x 1152 SigLIP vision config on Phi4MMForCausalLM, and
    the memory hook's VLM reduction reads it (x 0.95 x 0.9629). (Before: no vision config
    found, 0.835 on an H100.)"""
    result = resolve(["--trust-remote-code", "--tp-size", str(tp)], gpu=get_target(gpu),
                     model_path=str(MODELS / PHI), compat="0.5.23")
    assert result.value("mem_fraction_static") == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("gpu, want", [
    ("h100", 421_185), ("b200", 1_072_640), ("mi300x", 983_465),
])
def test_phi4mm_pool_is_sglangs(gpu, want):
    """With the fraction and the weights fixed, launchplan's own plan sizes SGLang's pool
    (kvres3; before: 478,913 / 1,191,040 / 1,093,597 tokens)."""
    result = resolve(["--trust-remote-code"], gpu=get_target(gpu),
                     model_path=str(MODELS / PHI), compat="0.5.23")
    own = plan_weights(load_model(str(MODELS / PHI)), Parallel(tp=1)).bytes_per_gpu
    pool = kv_pool(result, weights_bytes=own, before_load_bytes=BEFORE_LOAD[gpu]).as_json()
    assert pool["max_total_num_tokens"] == want
