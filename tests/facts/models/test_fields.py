"""Bad config files and fields: one clear line, exit code 2, naming the file or field.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.facts.models import (
    fields,
    load_model,
)
from tests.facts.models.configs import (
    LLAMA,
    input_error,
    write,
)


@pytest.mark.parametrize("text, fragment", [
    ('{"architectures": ["LlamaForCausalLM"],\n "model_type": }', "line 2, column 16"),
    ("", "line 1, column 1"),
    ("[1, 2]", "expected a JSON object, got a JSON list"),
    ('"hello"', "expected a JSON object, got a JSON string"),
    ("1" * 5000, "valid JSON"),
    ("[" * 100_000 + "]" * 100_000, "valid JSON"),
])
def test_malformed_config_files(tmp_path, text, fragment):
    err = input_error(load_model, write(tmp_path, text))
    assert "config.json" in err.message and fragment in err.message


def test_non_utf8_and_oversized_files(tmp_path, monkeypatch):
    folder = write(tmp_path, LLAMA)
    Path(folder, "config.json").write_bytes(b'{"a": "\xff"}')
    assert "UTF-8" in input_error(load_model, folder).message
    Path(folder, "config.json").write_text(json.dumps(LLAMA))
    monkeypatch.setattr(fields, "MAX_CONFIG_BYTES", 100)
    err = input_error(load_model, folder)
    assert "config.json" in err.message and "bytes" in err.message


@pytest.mark.parametrize("changes, field, expected", [
    ({"num_attention_heads": "x"}, "'num_attention_heads'", "expected an integer, got 'x'"),
    ({"num_attention_heads": 0, "hidden_size": 64}, "'num_attention_heads'", "positive"),
    ({"hidden_size": float("nan")}, "'hidden_size'", "an integer"),
    ({"hidden_size": 10**40}, "'hidden_size'", "digits"),
    ({"architectures": ...}, "'architectures'", "the key is missing"),
    ({"architectures": []}, "'architectures'", "non-empty list"),
    ({"architectures": "LlamaForCausalLM"}, "'architectures'", "list"),
    ({"architectures": [1]}, "'architectures'", "list of strings"),
    ({"model_type": ...}, "'model_type'", "the key is missing"),
    ({"model_type": 7}, "'model_type'", "a string"),
    ({"max_position_embeddings": None}, "'max_position_embeddings'", "null"),
    ({"max_position_embeddings": -5}, "'max_position_embeddings'", "positive"),
    ({"rope_scaling": {"type": "linear"}}, "'rope_scaling.factor'", "requires it"),
    ({"rope_scaling": {"type": "linear", "factor": "2"}}, "'rope_scaling.factor'", "number"),
    ({"rope_scaling": [1]}, "'rope_scaling'", "a JSON object"),
    ({"rope_scaling": {"rope_type": ["yarn"], "factor": 2}}, "'rope_scaling.rope_type'",
     "a rope type name"),
    ({"text_config": 5}, "'text_config'", "a JSON object"),
    # a sub-config class launchplan has no defaults for: it reports instead of guessing
    ({"model_type": "mllama", "text_config": {"hidden_size": 8}, "architectures": ["X"]},
     "'text_config.num_attention_heads'", "the key is missing"),
    ({"compression_config": [1]}, "'compression_config'", "a JSON object"),
    ({"sliding_window": "big"}, "'sliding_window'", "an integer"),
])
def test_bad_fields(tmp_path, changes, field, expected):
    cfg = {**LLAMA, **changes}
    if changes.get("model_type") == "mllama":
        cfg = {k: v for k, v in cfg.items() if k != "num_attention_heads"}
    err = input_error(load_model, write(tmp_path, {k: v for k, v in cfg.items() if v is not ...}))
    assert f"config.json field {field}" in err.message
    if expected:
        assert expected in err.message
