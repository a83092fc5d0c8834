"""Nanbeige4.2-3B and IQuest-Coder-V1-40B-Loop, the two loop models, against SGLang 0.5.23's
own builds and KV pools (h23 round).

Weights: what SGLang's class holds on one GPU at TP 1 (``tests/parity/tools/
record_model_params.py``'s machinery in the oracle's venv, on the meta device). KV layers:
``resolve_layer_indices`` called on the built classes. Pools: SGLang's pool configurator
(``tests/parity/tools/record_kv_pool.py``, its stand-in model answering ``start_layer``/
``end_layer`` as the real class does) given the round's weight bytes.

The configs (``tests/parity/models/``, each folder's ``SOURCE.md`` says what is real and what
was added): ``nanbeige4.2-3b`` (``NanbeigeForCausalLM``: 22 layers run twice, the class has
``start_layer``/``end_layer``), ``iquest-coder-v1-40b-loop-instruct``
(``IQuestLoopCoderForCausalLM``: 80 layers run twice, the class has neither, so SGLang loops
the already looped count again).
"""

from __future__ import annotations

import pytest

from launchplan.facts.models import clear_cache, load_model
from launchplan.facts.models.class_traits import loop_class, loop_classes
from launchplan.facts.targets import get_target
from launchplan.memory.kv_layers import attention_layers, loop_layers, loop_pool_note
from launchplan.memory.kv_pool import kv_pool
from launchplan.memory.plan import memory_plan
from launchplan.planner import resolve
from tests.memory.built_params import (
    BEFORE_LOAD,
    PARITY_MODELS,
    built_params,
    component_params,
    load_written,
    parity_config,
    rope_bytes,
)

NANBEIGE = "nanbeige4.2-3b"
LOOP = "iquest-coder-v1-40b-loop-instruct"
MIB = 2**20
#: IQuest LoopCoder's 80 loop gates: 40 heads x (hidden 5120 / 40 heads) weights + 40 biases
GATES = 80 * (40 * 128 + 40)


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def _plain_iquest() -> dict:
    """The Loop file without its loop keys, as the plain IQuest-Coder (a Llama alias)."""
    config = {k: v for k, v in parity_config(LOOP).items()
              if k not in ("loop_num", "loop_window_size", "auto_map")}
    return {**config, "architectures": ["IQuestCoderForCausalLM"], "model_type": "llama"}


# --- weights as SGLang built them ------------------------------------------------------------

@pytest.mark.parametrize("folder, built, rope", [
    (NANBEIGE, 4_169_800_704, 128 * MIB),  # 262,144 positions of 128 fp32 columns
    (LOOP, 39_794_696_320, 64 * MIB),
])
def test_weights_are_what_sglang_builds(folder, built, rope):
    model = load_model(str(PARITY_MODELS / folder))
    assert built_params(model) == built
    assert rope_bytes(model) == rope


def test_loop_gates_counted(tmp_path):
    """``IQuestLoopCoderModel.gate_projections``: one head_dim -> heads gate (with a bias) a
    stored layer, outside the decoder layers. (Before: the plain 40B's 39,794,283,520.)"""
    loop = component_params(load_model(str(PARITY_MODELS / LOOP)))
    plain = component_params(load_written(tmp_path, _plain_iquest()))
    assert loop["attention"] - plain["attention"] == GATES == 412_800
    assert {k: v for k, v in loop.items() if k != "attention"} == \
        {k: v for k, v in plain.items() if k != "attention"}


# --- the KV pool's layers --------------------------------------------------------------------

def test_loop_table_rows():
    """Every registered loop class, and which kind each is (the table's evidence names the
    SGLang code)."""
    rows = loop_classes()
    assert set(rows) == {"IQuestLoopCoderForCausalLM", "NanbeigeForCausalLM",
                         "NanbeigeForSequenceClassification"}
    assert not rows["IQuestLoopCoderForCausalLM"].layer_range
    assert rows["NanbeigeForCausalLM"].layer_range
    assert all(r.evidence for r in rows.values())
    assert loop_class("LlamaForCausalLM") is None


@pytest.mark.parametrize("folder, pool, runs", [
    (NANBEIGE, 44, 44),  # 22 x 2: the class's own layer range, looped once
    (LOOP, 320, 160),  # 0..max(80, 160), looped again: SGLang's double count
])
def test_pool_layers_are_resolve_layer_indices(folder, pool, runs):
    model = load_model(str(PARITY_MODELS / folder))
    assert attention_layers(model) == pool
    assert loop_layers(model) == (pool, runs)


def test_plain_iquest_is_not_looped(tmp_path):
    assert attention_layers(load_written(tmp_path, _plain_iquest())) == 80


def test_loop_count_from_the_config_class_when_the_file_omits_it(tmp_path):
    """SGLang's NanbeigeConfig sets num_loops 2 where config.json gives none."""
    config = {k: v for k, v in parity_config(NANBEIGE).items() if k != "num_loops"}
    assert attention_layers(load_written(tmp_path, config)) == 44


def test_any_class_with_a_loop_count_is_looped_once(tmp_path):
    """``resolve_layer_indices`` reads the top-level ``loop_num``/``num_loops`` whatever the
    class; a class ``ModelConfig`` does not loop gets it once (no double count, no note)."""
    config = {**_plain_iquest(), "num_loops": 3}
    model = load_written(tmp_path, config)
    assert loop_layers(model) == (240, 240)
    assert loop_pool_note(model) is None


def test_sequence_classifier_is_looped_once(tmp_path):
    """NanbeigeForSequenceClassification has no layer range, but ModelConfig loops only the
    causal LM: 0..22, looped once."""
    config = {**parity_config(NANBEIGE), "architectures": ["NanbeigeForSequenceClassification"]}
    assert loop_layers(load_written(tmp_path, config)) == (44, 44)


@pytest.mark.parametrize("gpu, tp, per_token, tokens", [
    ("h100", 4, 327_680, 151_454),  # (before: 163,840 bytes, 302,909 tokens)
    ("mi300x", 8, 163_840, 858_338),  # (before: 81,920 bytes, 1,716,677 tokens)
])
def test_loop_pool_is_sglangs(gpu, tp, per_token, tokens):
    """kvres.jsonl of the round: SGLang's pool at the round's weight bytes."""
    weights = {4: 19_897_500_000, 8: 9_948_750_000}[tp]
    result = resolve(["--trust-remote-code", "--tp-size", str(tp)], gpu=get_target(gpu),
                     model_path=str(PARITY_MODELS / LOOP), compat="0.5.23")
    pool = kv_pool(result, weights_bytes=weights, before_load_bytes=BEFORE_LOAD[gpu]).as_json()
    assert pool["kv_bytes_per_token"] == per_token
    assert pool["max_total_num_tokens"] == tokens


@pytest.mark.parametrize("gpu, tp, weights, per_token, tokens", [
    ("h100", 1, 8_340_000_000, 180_224, 344_682),
    ("mi300x", 2, 4_170_000_000, 90_112, 1_632_499),
])
def test_nanbeige_pool_is_sglangs(gpu, tp, weights, per_token, tokens):
    """Recorded with the stand-in model answering the class's start_layer/end_layer (the
    earlier harness, without them, doubled Nanbeige to 88 layers)."""
    result = resolve(["--trust-remote-code", "--tp-size", str(tp)], gpu=get_target(gpu),
                     model_path=str(PARITY_MODELS / NANBEIGE), compat="0.5.23")
    pool = kv_pool(result, weights_bytes=weights, before_load_bytes=BEFORE_LOAD[gpu]).as_json()
    assert pool["kv_bytes_per_token"] == per_token
    assert pool["max_total_num_tokens"] == tokens


def test_plan_notes_the_double_count():
    """The plan says why a loop model's pool holds half the tokens its layers would."""
    result = resolve(["--trust-remote-code", "--tp-size", "4"], gpu=get_target("h100"),
                     model_path=str(PARITY_MODELS / LOOP), compat="0.5.23")
    notes = [c for c in memory_plan(result).caveats if "double count" in c]
    assert len(notes) == 1 and "320 layers a token, twice the 160" in notes[0]
    clear_cache()
    result = resolve(["--trust-remote-code"], gpu=get_target("h100"),
                     model_path=str(PARITY_MODELS / NANBEIGE), compat="0.5.23")
    assert not any("double count" in c for c in memory_plan(result).caveats)
