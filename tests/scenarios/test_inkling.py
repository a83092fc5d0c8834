"""Inkling: fa4 plus a full prefill graph by default -- rules.md C1 and C10 on a real model."""

from __future__ import annotations

import json

import pytest

from launchplan import resolve

CONFIG = {"architectures": ["InklingForConditionalGeneration"], "model_type": "inkling_mm_model",
          "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
          "num_hidden_layers": 32, "vocab_size": 32000, "max_position_embeddings": 32768,
          "torch_dtype": "bfloat16"}


@pytest.fixture
def inkling(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    return str(tmp_path)


def test_c1_on_inkling_is_fixed_by_the_default_rules(inkling):
    new = resolve([], gpu="b200", model_path=inkling)
    old = resolve([], gpu="b200", model_path=inkling, compat="0.5.23")
    assert new.value("attention_backend") == old.value("attention_backend") == "fa4"
    assert new.value("cuda_graph_config")["prefill"]["backend"] == "full"
    assert (new.value("page_size"), old.value("page_size")) == (1, 128)
    assert new.source("cuda_graph_backend_prefill") == "inkling_prefill_graph_default"


def test_c10_legacy_disable_does_not_stop_the_inkling_default(inkling):
    result = resolve(["--disable-cuda-graph"], gpu="b200", model_path=inkling)
    config = result.value("cuda_graph_config")
    assert config["decode"]["backend"] == "disabled" and config["prefill"]["backend"] == "full"
    assert {"field": "cuda_graph_config.prefill.backend", "input": "disabled",
            "resolved": "full", "source": "inkling_prefill_graph_default",
            "flag": "disable_cuda_graph"} in result.overrides()


def test_an_explicit_prefill_choice_wins(inkling):
    result = resolve(["--disable-prefill-cuda-graph"], gpu="b200", model_path=inkling)
    assert result.value("cuda_graph_config")["prefill"]["backend"] == "disabled"
    assert result.value("page_size") == 128
