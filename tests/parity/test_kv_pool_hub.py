"""SGLang 0.5.23's own KV-pool sizing of every shipped Hub config: launchplan must agree.

The cases (``data/kv-pool-hub-cases.json``, written by ``tools/gen_kv_pool_hub_cases.py``)
launch each shipped config (``src/launchplan/facts/data/hub/``) the ``kv-pool`` suite does not
already size on the GPUs and TP that hold its checkpoint, with the auto and FP8 KV caches and
the flags that move a hybrid pool's split; ``data/results-kv-pool-hub.jsonl`` holds SGLang's
answers (``tools/record_kv_pool.py``). Compared as ``test_kv_pool.py`` compares: every sized
field equal, refusals alike.
"""

from __future__ import annotations

import pytest

from tests.parity.test_kv_pool import DATA, _by_model, _load, model_disagreements

CASES = DATA / "kv-pool-hub-cases.json"
RESULTS = DATA / "results-kv-pool-hub.jsonl"
#: Cases recorded; a smaller number means the recording lost cases.
EXPECTED_CASES = 2847
PAIRS = _load(CASES, RESULTS) if CASES.exists() and RESULTS.exists() else []
BY_MODEL = _by_model(PAIRS)


def test_recordings_present_and_complete():
    assert CASES.exists(), f"missing {CASES}: run tests/parity/tools/gen_kv_pool_hub_cases.py"
    assert RESULTS.exists(), f"missing {RESULTS}: run tests/parity/tools/record_kv_pool.py"
    assert len(PAIRS) == EXPECTED_CASES
    assert sum(1 for _, r in PAIRS if r["ok"]) >= EXPECTED_CASES * 3 // 4
    broken = [c["name"] for c, r in PAIRS if r.get("stage") == "harness"]
    assert not broken, f"the recording failed on {broken}: record again"


@pytest.mark.parametrize("model", sorted(BY_MODEL))
def test_kv_pool_of_shipped_config_agrees_with_sglang(model):
    """Every recorded case of one shipped config; the message names each disagreeing case."""
    wrong = model_disagreements(BY_MODEL[model], "kv-pool-hub")
    assert not wrong, wrong
