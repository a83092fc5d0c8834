"""An architecture launchplan does not know gets SGLang's generic behaviour, never an error."""

from __future__ import annotations

import json

from launchplan import resolve

CONFIG = {"architectures": ["FooBarForCausalLM"], "model_type": "llama", "hidden_size": 2048,
          "num_attention_heads": 16, "num_hidden_layers": 8, "vocab_size": 1000,
          "max_position_embeddings": 4096}


def test_generic_defaults_apply(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    for gpu, backend, page in (("b200", "trtllm_mha", 64), ("h100", "fa3", 1),
                               ("a100", "flashinfer", 1), ("mi300x", "aiter", 1)):
        result = resolve([], gpu=gpu, model_path=str(tmp_path))
        assert (result.value("attention_backend"), result.value("page_size")) == (backend, page)
        assert not [d for d in result.declarations if d.source.endswith("_overrides")]
