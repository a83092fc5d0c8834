"""A fraction a rule derives (aiter's x0.85 on 0.85) is shown in messages as the plan table
shows it (0.7225), never as the float's full repr (0.7224999999999999).

Source: h18 texts/008.txt (find_string id 54696481823, an InferenceX-style 2026 MI355X Qwen3.5
MTP benchmark script: ``MEM_FRAC_STATIC=${MEM_FRAC_STATIC:-0.85}`` passed as
``--mem-fraction-static $MEM_FRAC_STATIC`` with aiter's attention), cut to the flags that
reach the same value with a model launchplan ships.
"""

from __future__ import annotations

import pytest

from launchplan.commands.main import main


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_the_memory_fits_failure_names_the_tables_fraction(capsys):
    # the weights of a 235B model on one MI355X: no room for the KV cache
    main(["resolve", "--gpu", "mi355x", "--model-path", "qwen3-235b-a22b", "--tp", "1",
          "--mem-fraction-static", "0.85"])
    out = " ".join(capsys.readouterr().out.split())
    assert "at mem_fraction_static 0.7225 (it would need more than" in out
    assert "0.7224999999999999" not in out


def test_the_explained_slack_step_names_the_tables_fraction(capsys):
    main(["explain", "max_total_num_tokens", "--gpu", "mi355x", "--model-path", "qwen3-8b",
          "--tp", "1", "--mem-fraction-static", "0.85", "--context-length", "32768"])
    out = capsys.readouterr().out
    assert "slack: before x (1 - mem_fraction_static 0.7225) (GiB)" in out
    assert "0.7224999999999999" not in out
