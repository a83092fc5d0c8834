"""DFLASH and DSPARK drafts run with a KV pool of their own, charged to every target token
from the draft's config (recorded against SGLang in the kv-pool suite's ``dflash`` and
``dspark`` cases); ``--dtype`` sets the ``auto`` KV cache's width."""

from __future__ import annotations

from pathlib import Path

from launchplan.facts.targets import before_load_bytes, get_target
from launchplan.memory.kv_pool import kv_pool
from launchplan.planner import resolve

GIB = 1 << 30
DRAFTS = Path(__file__).resolve().parents[1] / "parity" / "models"
DFLASH_8B = ["--speculative-algorithm", "DFLASH", "--speculative-draft-model-path",
             str(DRAFTS / "qwen3-8b-dflash-b16")]


def pool(argv, model="qwen3-8b", gpu="h100", compat="0.5.23"):
    target = get_target(gpu)
    result = resolve(list(argv), gpu=target, model_path=model, compat=compat)
    return kv_pool(result, weights_bytes=16 * GIB, before_load_bytes=before_load_bytes(target))


def _draft_part(p) -> int:
    return next(size for what, size in p.steps if "draft's own pool" in what)


def test_the_draft_pool_is_its_heads_layers_and_kv_width():
    plain, dflash = pool([]), pool(DFLASH_8B)
    # the draft: 8 KV heads x (128 + 128) x 5 layers x 2 bytes
    assert _draft_part(dflash) == 8 * 256 * 5 * 2
    assert dflash.kv_bytes_per_token == plain.kv_bytes_per_token + 8 * 256 * 5 * 2
    assert dflash.max_total_num_tokens < plain.max_total_num_tokens
    assert not any("DFLASH" in c for c in dflash.caveats)
    # heads shard over the draft's attention-TP group
    assert _draft_part(pool(DFLASH_8B + ["--tp-size", "8"])) == 1 * 256 * 5 * 2


def test_the_draft_kv_width_follows_its_own_flag_unless_fa4_reads_it():
    fp8 = ["--kv-cache-dtype", "fp8_e4m3"]
    assert _draft_part(pool(DFLASH_8B + fp8)) == 8 * 256 * 5
    own = ["--speculative-draft-kv-cache-dtype", "fp8_e4m3"]
    assert _draft_part(pool(DFLASH_8B + own)) == 8 * 256 * 5
    # FA4 reads K in the query's dtype: an fa4 draft keeps the model's width
    fa4 = ["--speculative-draft-attention-backend", "fa4"]
    assert _draft_part(pool(DFLASH_8B + fp8 + fa4, gpu="b200")) == 8 * 256 * 5 * 2


def test_dspark_drafts_are_priced_alike():
    dspark = ["--speculative-algorithm", "DSPARK", "--speculative-draft-model-path",
              str(DRAFTS / "qwen3-8b-dspark")]
    assert _draft_part(pool(dspark)) == _draft_part(pool(DFLASH_8B))


def test_dtype_float32_widens_the_auto_kv_cache():
    bf16 = pool([], model="llama-3.1-8b")
    f32 = pool(["--dtype", "float32"], model="llama-3.1-8b")
    assert f32.kv_bytes_per_token == 2 * bf16.kv_bytes_per_token
    assert pool(["--dtype", "half"], model="llama-3.1-8b").kv_bytes_per_token \
        == bf16.kv_bytes_per_token
    # an explicit KV dtype is not the model's
    assert pool(["--dtype", "float32", "--kv-cache-dtype", "fp8_e4m3"],
                model="llama-3.1-8b").kv_bytes_per_token * 2 == bf16.kv_bytes_per_token
    # and the DFLASH draft runs at the model dtype too
    assert _draft_part(pool(DFLASH_8B + ["--dtype", "float32"])) == 8 * 256 * 5 * 4
