"""HiSparse's pools: the GPU rows that address the host-expanded token space grow by the
host-to-device ratio (recorded against SGLang in the kv-pool suite's ``hisparse`` cases)."""

from __future__ import annotations

import json

from launchplan.facts.targets import before_load_bytes, get_target
from launchplan.memory.kv_pool import kv_pool
from launchplan.planner import resolve

GIB = 1 << 30
H200 = get_target("h200")


def pool(argv, model="deepseek-ai/DeepSeek-V3.2", compat="0.5.23"):
    result = resolve(["--tp-size", "8", *argv], gpu=H200, model_path=model, compat=compat)
    return kv_pool(result, weights_bytes=80 * GIB, before_load_bytes=before_load_bytes(H200))


def hisparse(ratio=None, *extra, **kw):
    config = [] if ratio is None else ["--hisparse-config",
                                       json.dumps({"host_to_device_ratio": ratio})]
    return pool(["--enable-hisparse", *config, *extra], **kw)


def _indexer(p) -> int:
    return next(size for what, size in p.steps if what.startswith("DSA indexer rows"))


def test_dsa_indexer_rows_span_the_host_ratio():
    plain = pool([])
    assert _indexer(hisparse(1)) == _indexer(plain)
    for ratio in (2, 3, 4):
        p = hisparse(ratio)
        assert _indexer(p) == _indexer(plain) * ratio
        assert p.kv_bytes_per_token == plain.kv_bytes_per_token + _indexer(plain) * (ratio - 1)
        assert p.max_total_num_tokens < plain.max_total_num_tokens
    assert hisparse().kv_bytes_per_token == hisparse(2).kv_bytes_per_token  # SGLang's default


def test_a_draft_widens_its_rows_from_0_5_22_on():
    mtp = ["--speculative-algorithm", "EAGLE", "--speculative-num-steps", "1",
           "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "2"]
    cells = {release: (pool(mtp, compat=release).kv_bytes_per_token,
                       hisparse(3, *mtp, compat=release).kv_bytes_per_token)
             for release in ("0.5.23", "0.5.22", "0.5.21")}
    assert cells["0.5.23"] == cells["0.5.22"]
    plain, wide = cells["0.5.23"]
    plain_old, wide_old = cells["0.5.21"]
    assert plain == plain_old and wide > wide_old > plain  # 0.5.21 widens only the index


def test_a_ratio_launchplan_does_not_size_is_said():
    p = hisparse(2.5)
    assert any("HiSparse" in c and "2.5" in c for c in p.caveats)
    assert p.kv_bytes_per_token == pool([]).kv_bytes_per_token
    assert not any("HiSparse" in c for c in hisparse(4).caveats)


def test_deepseek_v4_shrinks_only_its_ratio_4_rows():
    model = "deepseek-ai/DeepSeek-V4-Flash"
    plain = pool([], model=model)
    for ratio in (2, 4):
        p = hisparse(ratio, model=model)
        assert p.kv_bytes_per_token < plain.kv_bytes_per_token
        assert not any("HiSparse" in c for c in p.caveats)
    assert hisparse(1, model=model).kv_bytes_per_token == plain.kv_bytes_per_token
