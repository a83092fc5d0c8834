"""DeepSeek-V4's compressed pools (``memory.dsv4_pool``): the relations that hold whatever
the figures (the figures themselves are checked against SGLang's DSV4 pool configurator in
tests/parity/test_kv_pool.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.facts.targets import before_load_bytes, get_target
from launchplan.memory.dsv4_pool import (
    LAYOUTS,
    indexer_bytes,
    owners_by_ratio,
    page_bytes_per_token,
    ring_size,
)
from launchplan.memory.kv_pool import NotEnoughMemory, kv_pool
from launchplan.memory.plan import memory_plan
from launchplan.planner import resolve

GIB = 1 << 30
MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"
V4 = str(MODELS / "deepseek-v4-synth")
V41 = str(MODELS / "deepseek-v4.1-synth")


def pool(argv=(), model=V4, gpu="h100", weights=20 * GIB, env=None):
    target = get_target(gpu)
    result = resolve([str(a) for a in argv], gpu=target, model_path=model, compat="0.5.23",
                     env=env)
    return kv_pool(result, weights_bytes=weights, before_load_bytes=before_load_bytes(target))


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_page_is_padded_to_its_row_stride_and_never_shrinks(layout):
    per_token, align = LAYOUTS[layout]
    for rows in (1, 2, 64, 128, 256):
        padded = page_bytes_per_token(layout, rows)
        assert padded >= per_token
        assert round(padded * rows) % align == 0
        assert padded * rows - per_token * rows < align  # less than one stride of padding


def test_the_fp4_indexer_key_is_smaller_than_the_fp8_one():
    assert indexer_bytes(128, fp4=True) < indexer_bytes(128, fp4=False)
    assert indexer_bytes(128, fp4=False) > 128  # FP8 values plus their scales


def test_rings_widen_under_speculative_decoding():
    for ratio in (2, 4, 128):
        assert ring_size(ratio, 3, False) > ring_size(ratio, 0, False)
    # the ratio-2 ring is a power of two wider than the drafts and the pending pair
    for drafts in range(1, 9):
        ring = ring_size(2, drafts, False)
        assert ring & (ring - 1) == 0 and ring > drafts + 1
    assert ring_size(128, 0, True) == 1  # one running state under online compression


def test_low_ratios_own_storage_only_on_their_kv_source_layers():
    ratios = [0, 1, 2, 4, 128, 1, 2, 4]
    assert owners_by_ratio(ratios, ()) == {4: 2, 128: 1}
    assert owners_by_ratio(ratios, [1, 2, 6]) == {4: 2, 128: 1, 1: 1, 2: 2}
    assert list(owners_by_ratio(ratios, [1, 2])) == [4, 128, 1, 2]  # SGLang's order


def test_the_pool_reports_its_compressed_pools():
    p = pool()
    assert p.configurator == "dsv4"
    assert p.full_max_total_num_tokens == p.max_total_num_tokens
    assert p.max_total_num_tokens % p.page_size == 0
    assert p.c4_max_total_num_tokens == p.max_total_num_tokens // 4
    assert p.c128_max_total_num_tokens == p.max_total_num_tokens // 128
    assert p.c128_state_pool_size == (p.max_running_requests + 1) * 128
    # the explicit ratio: SWA tokens follow the full tokens
    assert p.swa_max_total_num_tokens == int(p.max_total_num_tokens * 0.1) // 256 * 256
    assert not any("not modelled" in c for c in p.caveats)


def test_a_draft_layer_inflates_every_token_by_one_layer_in_the_layers():
    plain = pool()
    mtp = pool(["--speculative-algorithm", "EAGLE", "--speculative-num-steps", 1,
                "--speculative-eagle-topk", 1, "--speculative-num-draft-tokens", 2])
    layers = len(json.loads((Path(V4) / "config.json").read_text())["compress_ratios"])
    # wider rings also raise the SWA slot's share of the ratio-4 state, so at least that
    assert mtp.kv_bytes_per_token >= plain.kv_bytes_per_token * (layers + 1) / layers
    assert mtp.max_total_num_tokens < plain.max_total_num_tokens


def test_bf16_compress_state_costs_less_per_token():
    fp32 = pool()
    bf16 = pool(env={"SGLANG_DSV4_COMPRESS_STATE_DTYPE": "bfloat16"})
    assert bf16.kv_bytes_per_token < fp32.kv_bytes_per_token
    assert bf16.max_total_num_tokens > fp32.max_total_num_tokens


def test_more_requests_leave_fewer_tokens():
    tokens = [pool(["--max-running-requests", n]).max_total_num_tokens for n in (8, 256, 2048)]
    assert tokens == sorted(tokens, reverse=True) and len(set(tokens)) == 3


def test_the_request_cap_sizes_the_swa_pool_when_no_ratio_is_chosen():
    """V4.1 sets no SWA ratio: the SWA pool holds the requests' windows and prefix tails,
    whatever the budget, and the per-token bytes leave the SWA slots out."""
    small, large = pool(model=V41, weights=20 * GIB), pool(model=V41, weights=10 * GIB)
    assert small.swa_max_total_num_tokens == large.swa_max_total_num_tokens
    assert small.max_total_num_tokens < large.max_total_num_tokens
    ratio = pool(["--swa-full-tokens-ratio", 0.1], model=V41)
    assert small.kv_bytes_per_token < ratio.kv_bytes_per_token
    no_tails = pool(["--swa-prefix-tails", 0], model=V41)
    assert no_tails.swa_max_total_num_tokens < small.swa_max_total_num_tokens
    with pytest.raises(NotEnoughMemory, match="request cap"):
        pool(["--max-running-requests", 5000], model=V41, weights=40 * GIB)


def test_max_total_tokens_caps_the_full_pool_and_an_swa_pool_too_small_refuses():
    p = pool(["--max-total-tokens", 200000], gpu="h200")
    assert p.max_total_num_tokens == 200000 // 256 * 256
    assert p.c4_max_total_num_tokens == p.max_total_num_tokens // 4
    with pytest.raises(NotEnoughMemory, match="SWA pool"):
        pool(["--max-total-tokens", 4096], gpu="h200")


def _low_ratio_sizer(tmp_path):
    """The pool sizer of a V4.1-shaped config with ratio-1 and ratio-2 KV-source layers (the
    recorded ``deepseek-v4.1-low-ratio-synth`` checks its figures) on a B200."""
    from launchplan.memory.kv_pool import _Plan, _sizer

    config = json.loads((Path(V41) / "config.json").read_text())
    ratios = [1 if i % 6 == 0 else 2 if i % 6 == 3 else r
              for i, r in enumerate(config["compress_ratios"])]
    config.update(compress_ratios=ratios,
                  kv_source_layer_ids=[i for i, r in enumerate(ratios)
                                       if r in (1, 2) and i % 12 < 6])
    folder = tmp_path / "dsv41-low-ratio"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    result = resolve(["--swa-full-tokens-ratio", "0.1"], gpu=get_target("b200"),
                     model_path=str(folder), compat="0.5.23")
    return _sizer(_Plan(result))


def test_low_ratio_layers_keep_their_reserved_pages_inside_the_budget(tmp_path):
    """The reserved pages of ratio-1 and ratio-2 layers are paid for, the tokens stay
    page-aligned, and one more page would not fit."""
    sizer = _low_ratio_sizer(tmp_path)
    assert set(sizer.owners) == {1, 2, 4, 128}
    budget = 50 * GIB
    full = sizer.size(budget, None)["full"]
    rest = budget - sizer.fixed_bytes
    assert full % sizer.page == 0
    assert full * sizer.full_bytes + sizer._padding(full) <= rest
    over = full + sizer.page
    assert over * sizer.full_bytes + sizer._padding(over) > rest
    assert sum(sizer.state_bytes_fixed(256)) > sizer.state_bytes_fixed(256)[0]  # ratio-2 rings


@pytest.mark.parametrize("budget", [10**35, 10**26 * GIB, 1e26 * GIB, 2.0 ** 900])
def test_a_budget_too_large_for_a_float_to_step_a_page_still_gets_a_size(tmp_path, budget):
    """A corrupt logged free memory (1e26 GB) once stepped down a page at a time for ever:
    at such magnitudes one page changes no float product. It is sized in bounded steps, and
    what it gives still fits."""
    sizer = _low_ratio_sizer(tmp_path)
    full = sizer.size(budget, None)["full"]
    rest = budget - sizer.fixed_bytes
    assert 0 < full and full % sizer.page == 0
    assert full * sizer.full_bytes + sizer._padding(full) <= rest


def test_the_memory_plan_shows_the_compressed_token_counts():
    data = memory_plan(resolve(["--tp-size", "8"], gpu="b200", model_path=V4)).to_dict()
    assert data["fits"]
    assert data["c4_max_total_num_tokens"] == data["max_total_num_tokens"] // 4
    assert data["kv_pool_bytes"] <= data["kv_budget_bytes"]
    plain = memory_plan(resolve([], gpu="h100", model_path="llama-3.1-8b")).to_dict()
    assert "c4_max_total_num_tokens" not in plain


def test_resolve_shows_the_compressed_pools(capsys):
    from launchplan.commands.main import main

    code = main(["resolve", "--gpu", "b200", "--model-path", V4, "--tp-size", "8"])
    out = capsys.readouterr().out
    assert code == 0
    assert "c4_max_total_num_tokens" in out and "c128_max_total_num_tokens" in out
