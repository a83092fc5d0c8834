"""Hub ids of bundled checkpoints plan offline, from the shipped config.json."""

from __future__ import annotations

import json

from launchplan import resolve
from launchplan.facts.models import HUB_RENAMES, bundled_alias, bundled_models


def test_every_recorded_hub_id_names_its_bundled_model():
    from launchplan.facts.models.bundled import _BUNDLED_DIR

    data = json.loads((_BUNDLED_DIR.parent / "published_weights.json").read_text())
    for name, entry in data["models"].items():
        if entry.get("hf_id") and name in bundled_models():
            assert bundled_alias(entry["hf_id"]) == name


def test_renamed_repositories_follow_the_rename():
    for old, new in HUB_RENAMES.items():
        assert bundled_alias(old) == bundled_alias(new) is not None


def test_unknown_ids_are_not_guessed():
    assert bundled_alias("meta-llama/Llama-3.1-8B") is None  # the base model: not bundled
    assert bundled_alias("someone/llama-3.1-8b") is None


def test_a_hub_id_resolves_like_the_bundled_name_and_keeps_the_users_spelling(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    by_id = resolve(["--tp-size", "8"], gpu="b200", model_path="deepseek-ai/DeepSeek-V3")
    by_name = resolve(["--tp-size", "8"], gpu="b200", model_path="deepseek-v3")
    assert by_id.value("attention_backend") == by_name.value("attention_backend")
    assert by_id.record.model.name == "deepseek-v3"
    assert by_id.value("model_path") == "deepseek-ai/DeepSeek-V3"
