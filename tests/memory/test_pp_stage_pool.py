"""The KV pool of a pipeline launch, stage by stage, as SGLang 0.5.23 sizes it.

Each pipeline rank sizes its own pool from the free memory every rank agrees on (a MIN
all-reduce: the most loaded stage's weights). A model class that keeps its stage's layer
range (``start_layer``/``end_layer``) gives ``resolve_layer_indices`` only the stage's layers
(a hybrid model: its full-attention layers in the stage); any other class gives every layer.
The scheduler then hands every rank the smallest stage's token count (``KVCacheConfigurator.
_apply_token_constraints``, a MIN all-reduce over the stages). Before, launchplan sized every
pipeline launch as if each stage held every layer: half or less of SGLang's tokens at pp 2
for Qwen3.5, and the wrong stage where the split is uneven.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.facts.targets import before_load_bytes, get_target
from launchplan.memory import kv_pool as kv
from launchplan.memory.kv_layers import LAYER_RANGE_CLASSES
from launchplan.planner import resolve

GIB = 1 << 30
ROOT = Path(__file__).resolve().parents[2]
QWEN35 = str(ROOT / "tests/parity/models/qwen3.5-9b")  # 32 layers, full attention every 4th
RESULTS = ROOT / "tests/parity/data/results-kv-pool.jsonl"


def _pool(model: str, argv: list[str], env: dict | None = None, gpu: str = "h100",
          weights: int = 10 * GIB, before: int | None = None) -> kv.KvPool:
    target = get_target(gpu)
    result = resolve(argv, gpu=target, model_path=model, compat="0.5.23", env=env)
    return kv.kv_pool(result, weights_bytes=weights,
                      before_load_bytes=before if before is not None
                      else before_load_bytes(target))


def _pp(model: str, pp: int, env: dict | None = None, extra: tuple = ()) -> kv.KvPool:
    return _pool(model, ["--pp-size", str(pp), *extra], env)


@pytest.mark.parametrize(("pp", "env", "full_layers"), [
    (2, None, 4),  # layers 0-15 and 16-31: 4 full-attention layers each
    (3, None, 3),  # 10, 11, 11 layers: ranks 1 and 2 hold 3 full layers, rank 0 only 2
    (2, {"SGLANG_PP_LAYER_PARTITION": "8,24"}, 6),  # 2 and 6 full layers
])
def test_a_hybrid_stage_holds_its_own_full_attention_layers(pp, env, full_layers):
    """Qwen3.5's class keeps its stage's range: the KV rows a token takes are the binding
    stage's full-attention layers (8 in all), not every stage's."""
    whole = _pp(QWEN35, 1, env).kv_bytes_per_token
    staged = _pp(QWEN35, pp, env)
    assert staged.kv_bytes_per_token == whole // 8 * full_layers
    assert not any("every stage held every layer" in c for c in staged.caveats)


@pytest.mark.parametrize(("model", "pp", "layers", "stage_layers"), [
    ("qwen2.5-7b", 3, 28, 10),  # 9, 9, 10: the last stage binds
    ("llama-3.1-8b", 2, 32, 16),
    ("deepseek-v2-lite", 2, 27, 14),  # MLA rows; 13 and 14 layers
])
def test_a_plain_stage_holds_its_own_layers(model, pp, layers, stage_layers):
    whole = _pp(model, 1)
    staged = _pp(model, pp)
    assert staged.kv_bytes_per_token == whole.kv_bytes_per_token // layers * stage_layers
    # the same budget: the tokens follow the binding stage's bytes
    assert staged.max_total_num_tokens == \
        staged.kv_budget_bytes // staged.kv_bytes_per_token // staged.page_size \
        * staged.page_size
    assert staged.max_total_num_tokens > whole.max_total_num_tokens
    assert not any(c.startswith("pipeline parallelism") for c in staged.caveats)
    assert any(label.startswith("pipeline rank ") for label, _ in staged.steps)


def test_the_binding_stage_is_the_one_with_the_fewest_tokens():
    """An uneven partition: the larger stage binds, whichever rank it is."""
    first = _pp("llama-3.1-8b", 2, {"SGLANG_PP_LAYER_PARTITION": "20,12"})
    last = _pp("llama-3.1-8b", 2, {"SGLANG_PP_LAYER_PARTITION": "12,20"})
    whole = _pp("llama-3.1-8b", 1)
    assert first.kv_bytes_per_token == last.kv_bytes_per_token \
        == whole.kv_bytes_per_token // 32 * 20
    binds = "pipeline rank {} of 2 (the fewest tokens: every rank's): layers {}, KV layers"
    assert dict(first.steps)[binds.format(0, "0-19")] == 20
    assert dict(last.steps)[binds.format(1, "12-31")] == 20


def test_sliding_window_pools_hold_their_stage_s_layers():
    """gpt-oss-20b (24 layers, sliding-window and full attention alternating): each stage
    holds its own layers of both kinds; an uneven partition makes the larger stage bind."""
    whole = _pp("gpt-oss-20b", 1)
    even = _pp("gpt-oss-20b", 2)
    assert even.full_bytes_per_token * 2 == whole.full_bytes_per_token
    assert even.swa_bytes_per_token * 2 == whole.swa_bytes_per_token
    uneven = _pp("gpt-oss-20b", 3, {"SGLANG_PP_LAYER_PARTITION": "5,9,10"})
    assert uneven.full_bytes_per_token == whole.full_bytes_per_token // 12 * 5  # rank 2
    assert not any(c.startswith("pipeline parallelism") for c in uneven.caveats)


def test_a_class_without_a_stage_range_sizes_every_layer_on_every_stage():
    """Qwen2.5-VL's class keeps no range: SGLang's pool holds every layer on each stage, and
    the plan says so (the figure is SGLang's)."""
    assert "Qwen2_5_VLForConditionalGeneration" not in LAYER_RANGE_CLASSES
    whole = _pp("qwen2.5-vl-7b", 1)
    staged = _pp("qwen2.5-vl-7b", 2)
    assert staged.kv_bytes_per_token == whole.kv_bytes_per_token
    assert any("keeps no stage layer range" in c for c in staged.caveats)


def test_the_fast_path_leaves_a_staged_pool_to_the_full_sizing():
    """``plain_size`` (the hot path of a plain launch) does not answer for a class whose
    stages hold their own layers: ``size`` sizes its stages."""
    from launchplan.memory.values import plain_values

    target = get_target("h100")
    result = resolve(["--pp-size", "2"], gpu=target, model_path="llama-3.1-8b")
    assert kv.plain_size(plain_values(result), result.record, 1, 2, 1,
                         before_load_bytes(target), 10 * GIB) is None
    assert kv.plain_size(plain_values(result), result.record, 1, 1, 1,
                         before_load_bytes(target), 10 * GIB) is not None


def test_a_stage_without_full_attention_layers_binds_nothing():
    """A partition whose first stage holds no full-attention layer (layers 0-2): SGLang
    gives that rank an unbounded count; the other stage binds."""
    staged = _pp(QWEN35, 2, {"SGLANG_PP_LAYER_PARTITION": "3,29"})
    whole = _pp(QWEN35, 1)
    assert staged.kv_bytes_per_token == whole.kv_bytes_per_token  # all 8 on rank 1
    assert staged.max_total_num_tokens > 0


def _recorded(name: str) -> dict:
    for line in RESULTS.read_text().splitlines():
        row = json.loads(line)
        if row["name"] == name:
            return row["result"]
    raise AssertionError(name)


@pytest.mark.parametrize(("name", "model", "gpu", "argv", "before", "weights"), [
    ("kv/arch10r3/003/qwen3.5-9b/h100", QWEN35, "h100", ["--tp-size", "2", "--pp-size", "3"],
     83910197248, 6712815779),
    ("kv/arch10r2/031/deepseek-ai--DeepSeek-V4-Flash/b300",
     str(ROOT / "src/launchplan/facts/data/hub/deepseek-ai--DeepSeek-V4-Flash"), "b300",
     ["--tp-size", "1", "--pp-size", "2", "--kv-cache-dtype", "fp8_e4m3",
      "--mem-fraction-static", "0.3", "--context-length", "131072",
      "--swa-full-tokens-ratio", "0.5"], 286789730304, 48398279433),
])
def test_sglang_s_recorded_binding_rank(name, model, gpu, argv, before, weights):
    """Two recorded launches whose binding rank is not rank 0 (the recording sizes every
    rank and keeps the one with the fewest tokens): Qwen3.5-9B at pp 3, DeepSeek-V4-Flash's
    compressed pools at pp 2."""
    want = _recorded(name)
    assert want["pp_rank"] == 1
    got = _pool(model, argv, gpu=gpu, weights=weights, before=before).as_json()
    for field in ("kv_bytes_per_token", "max_total_num_tokens", "max_running_requests",
                  "kv_budget_bytes", "swa_max_total_num_tokens"):
        assert got[field] == want[field], field
