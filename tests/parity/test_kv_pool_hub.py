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

from tests.parity.test_kv_pool import (
    DATA,
    _by_model,
    _load,
    check_recordings,
    comparable,
    model_disagreements,
)

CASES = DATA / "kv-pool-hub-cases.json"
RESULTS = DATA / "results-kv-pool-hub.jsonl"
#: Cases recorded; a smaller number means the recording lost cases.
EXPECTED_CASES = 3428
PAIRS = _load(CASES, RESULTS) if CASES.exists() and RESULTS.exists() else []
BY_MODEL = _by_model(comparable(PAIRS))


def test_recordings_present_and_complete():
    check_recordings(CASES, RESULTS, PAIRS, EXPECTED_CASES)


@pytest.mark.parametrize("model", sorted(BY_MODEL))
def test_kv_pool_of_shipped_config_agrees_with_sglang(model):
    """Every recorded case of one shipped config; the message names each disagreeing case."""
    wrong = model_disagreements(BY_MODEL[model], "kv-pool-hub")
    assert not wrong, wrong
