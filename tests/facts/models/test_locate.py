"""Locating a model: folder, file, bundled name, and what is not a model.
"""

from __future__ import annotations

import json
import os

from launchplan.facts.models import (
    load_model,
)
from tests.facts.models.configs import (
    LLAMA,
    input_error,
    write,
)


def test_folder_file_and_bundled_name(tmp_path, monkeypatch):
    folder = write(tmp_path, LLAMA, "my-model")
    assert load_model(folder).name == "my-model"
    assert load_model(os.path.join(folder, "config.json")).name == "my-model"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(LLAMA))
    assert load_model(str(other)).name == "other"
    # a folder next to the working directory wins over a bundled name
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {**LLAMA, "max_position_embeddings": 1234}, "qwen3-8b")
    assert load_model("qwen3-8b").context_len == 1234
    assert load_model("deepseek-v3").name == "deepseek-v3"
    gguf = tmp_path / "my-model" / "model.gguf"
    gguf.write_bytes(b"GGUF\x03\x00")
    g = load_model(str(gguf))
    assert g.is_gguf and g.arch0 == "LlamaForCausalLM"


def test_missing_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = input_error(load_model, "foo")
    assert err.message.startswith("--model-path: expected a folder holding config.json or a "
                                  "bundled model name (deepseek-r1, deepseek-v2-lite,")
    assert err.message.endswith("got 'foo'")
    (tmp_path / "empty").mkdir()
    err = input_error(load_model, "empty")
    assert "config.json" in err.message and "empty" in err.message
    for dummy in ("none", "dummy", "DUMMY"):
        assert "config.json" in input_error(load_model, dummy).message
    input_error(load_model, "")
    input_error(load_model, 42)  # type: ignore[arg-type]
