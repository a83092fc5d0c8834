"""0.5.21 checks no attention-DP width: ``--enable-dp-attention --dp-size -1`` resolves there
(recorded: ``extreme/dp-attention-width-*``), only a width of 0 stops it."""

from __future__ import annotations

import pytest

from launchplan.errors import Refusal
from launchplan.planner import resolve
from launchplan.rules.parallel import (
    attention_dp_adjustments_0_5_21,
    data_parallelism_checks_0_5_21,
)
from launchplan.rules.speculative.ngram import ngram_checks_0_5_21


def _plan(*argv: str):
    return resolve(["--enable-dp-attention", *argv], gpu="h100", model_path="llama-3.1-8b",
                   compat="0.5.21")


def test_a_negative_width_divides_the_chunk_as_0_5_21_does():
    assert attention_dp_adjustments_0_5_21.__name__ and data_parallelism_checks_0_5_21.__name__
    result = _plan("--dp-size", "-1", "--tp", "2")
    assert result.value("chunked_prefill_size") == -8192
    assert result.value("dp_size") == -1 and result.value("enable_dp_attention") is True
    assert result.value("cuda_graph_config")["prefill"]["bs"] == []


def test_a_width_of_0_is_refused_and_0_5_22_refuses_any_below_1():
    with pytest.raises(Refusal, match="modulo by zero"):
        _plan("--dp-size", "0", "--tp", "2")
    with pytest.raises(Refusal, match="must be positive"):
        resolve(["--attn-dp-size", "-1", "--tp", "2"], gpu="h100", model_path="llama-3.1-8b",
                compat="0.5.22")


def test_ngram_refuses_a_negative_width_as_attention_dp():
    assert ngram_checks_0_5_21.__name__
    with pytest.raises(Refusal) as refused:
        _plan("--dp-size", "-1", "--tp", "2", "--speculative-algorithm", "NGRAM")
    assert refused.value.source == "ngram_checks"
