"""Defaults filled before anything reads them."""

from __future__ import annotations

from launchplan.rules.defaults import device_default, missing_default_values
from tests.rules.conftest import make_view


def test_paths_default_to_the_model_and_unquant_means_none():
    out = missing_default_values(make_view(model_path="m", quantization="unquant"))
    assert out["tokenizer_path"] == "m" and out["served_model_name"] == "m"
    assert out["quantization"] is None
    assert out["speculative_draft_model_quantization"] is None  # inherited unquant
    assert out["_speculative_draft_quantization_explicitly_set"] is False


def test_draft_quantization_inherits_the_targets_input():
    out = missing_default_values(make_view(model_path="m", quantization="fp8"))
    assert out["speculative_draft_model_quantization"] == "fp8"
    out = missing_default_values(make_view(model_path="m", tokenizer_path="t",
                                           speculative_draft_model_quantization="awq"))
    assert "tokenizer_path" not in out and out["_speculative_draft_quantization_explicitly_set"]


def test_device_defaults_to_cuda_and_loses_its_index():
    assert device_default(make_view("mi300x")) == {"device": "cuda"}
    assert device_default(make_view(device="cuda:3")) == {"device": "cuda"}
    # a given device is SGLang's step's too: it strips whatever device it has (recorded on
    # a pasted ``sglang serve ... --device cuda``, PR 21752)
    assert device_default(make_view(device="cuda")) == {"device": "cuda"}
