"""The RoPE cos/sin cache SGLang builds with the model: weights per GPU beyond the checkpoint.

Each attention layer asks ``get_rope`` for its rotary embedding, which builds one cos/sin table
per distinct configuration (every layer shares it) as a buffer on the GPU: positions x rotary
dimension, in float32 on CUDA and ROCm. The positions are ``max_position_embeddings``
whatever the scaling (Gemma-3's linear factor does not stretch it); Gemma-3's
sliding-window layers keep a second table of their own. It is part of SGLang's "mem usage"
after loading (Qwen3-VL-2B: 262,144 positions x 128 = 128 MiB). The recording
``tests/parity/data/results-model-params.jsonl`` (``tools/record_model_params.py``: SGLang
0.5.23's classes on the meta device) is the truth the last test replays.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.facts.models import clear_cache, load_model
from launchplan.memory.weights import Parallel, plan_weights

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "tests" / "parity" / "data" / "results-model-params.jsonl"
FP32 = 4


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def _rope(model: str, **par) -> float:
    path = ROOT / model
    m = load_model(str(path) if path.is_dir() else model)
    return plan_weights(m, Parallel(**par)).breakdown.get("rope_cache", 0)


@pytest.mark.parametrize(("model", "positions", "rotary"), [
    ("llama-3.1-8b", 131072, 128),  # llama3 scaling keeps the configured positions
    ("llama-3.2-1b", 131072, 64),
    ("qwen3-8b", 40960, 128),
    ("gpt-oss-20b", 131072, 64),  # YaRN
])
def test_one_table_shared_by_every_layer(model, positions, rotary):
    assert _rope(model) == positions * rotary * FP32


def test_gemma3_keeps_a_second_table_for_its_sliding_layers():
    # the global layers' linear scaling (factor 8) leaves the table at 131,072 positions
    assert _rope("tests/parity/models/gemma-3-4b-it") == 2 * 131072 * 256 * FP32


def test_a_partial_factor_inside_rope_parameters_narrows_the_table():
    # Qwen3.5 as published keeps its 0.25 only in rope_parameters: 64 of 256 head columns
    assert _rope("src/launchplan/facts/data/hub/Qwen--Qwen3.5-9B") == 262144 * 64 * FP32


def test_bert_encoders_have_no_rotary_table():
    assert _rope("tests/parity/models/bge-large-en-v1.5") == 0


def test_every_pipeline_stage_builds_its_own_table():
    assert _rope("llama-3.1-8b", pp=2) == 131072 * 128 * FP32


def test_recorded_tables_agree():
    """Every recorded class: launchplan's table bytes are SGLang's language-model
    ``cos_sin_cache`` buffers, and DeepSeek-V4's ``freqs_cis`` beside them (a vision tower's
    own rotary table is not counted here)."""
    rows = [json.loads(ln) for ln in RECORDED.read_text().splitlines() if ln.strip()]
    rows = [r for r in rows if r["ok"] and not r.get("architecture")]
    assert len(rows) >= 10
    for row in rows:
        want = sum(b for name, b in row["buffers_rank0"].items()
                   if name.endswith(("cos_sin_cache", "freqs_cis")) and "visual" not in name)
        assert _rope(row["model"]) == want, row["name"]
