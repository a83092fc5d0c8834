"""The pasted suite's generator hands SGLang what the texts mean (tools/gen_pasted_cases.py)."""

from __future__ import annotations

from tests.parity.tools.gen_pasted_cases import for_oracle


def test_a_flag_written_as_a_unique_prefix_is_dropped_as_its_full_spelling():
    # Kimi-K2.5's config names code of its checkpoint, which the oracle's folder lacks:
    # --trust-remote (argparse's prefix of --trust-remote-code) must go like the full flag,
    # and a prefix of --model-path like the model path's own flags
    argv = ["--model-pa", "/work/models/", "--trust-remote", "--tp", "8"]
    assert for_oracle(argv, "shipped/moonshotai--Kimi-K2.5") == ["--tp", "8"]
