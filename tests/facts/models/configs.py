"""Shared helpers of the model-facts tests: the recorded SGLang cases and synthetic configs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.errors import InputError
from launchplan.facts.models import ModelFacts, load_model

DATA = Path(__file__).parent.parent / "data"
CASES = json.loads((DATA / "model_cases.json").read_text())
RECORDED = json.loads((DATA / "sglang_model_facts.json").read_text())
BY_NAME = {c["name"]: c for c in CASES}

LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
         "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
         "vocab_size": 128256, "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}


def write(tmp_path: Path, config, name: str = "m", files: dict | None = None) -> str:
    folder = tmp_path / name
    folder.mkdir(parents=True, exist_ok=True)
    text = config if isinstance(config, str) else json.dumps(config)
    (folder / "config.json").write_text(text)
    for fname, content in (files or {}).items():
        (folder / fname).write_text(content if isinstance(content, str) else json.dumps(content))
    return str(folder)


def llama(tmp_path: Path, **changes) -> ModelFacts:
    cfg = {**LLAMA, **changes}
    name = f"llama-{len(list(tmp_path.iterdir()))}"  # a fresh folder: no cache hit
    return load_model(write(tmp_path, {k: v for k, v in cfg.items() if v is not ...}, name))


def input_error(fn, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        fn(*args, **kwargs)
    err = info.value
    assert err.exit_code == 2
    assert "\n" not in err.message
    return err
