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


def test_a_path_from_another_machine_names_the_bundled_model_it_ends_in():
    from launchplan.facts.models import bundled_for_path

    assert bundled_for_path("/data2/deepseek-ai/DeepSeek-R1") == "deepseek-r1"
    assert bundled_for_path("/models/Qwen3-32B/") == "qwen3-32b"  # the repository's name
    assert bundled_for_path("/mnt/Meta-Llama-3.1-8B-Instruct") == "llama-3.1-8b"  # renamed
    assert bundled_for_path("/x/llama-3.1-8b") == "llama-3.1-8b"  # a bundled name
    assert bundled_for_path(  # the Hugging Face cache's layout
        "/home/u/hf/models--Qwen--Qwen3-8B/snapshots/2069b3fae1114555f3c020c81410e51fa0f656f2"
    ) == "qwen3-8b"
    assert bundled_for_path("/c/hub/models--someone--qwen3-8b/snapshots/abc") is None
    assert bundled_for_path("/mnt/model/") is None
    assert bundled_for_path("/models/DeepSeek-R1-0528") is None  # no near match
    assert bundled_for_path("/") is None


def test_a_pasted_launch_with_a_foreign_path_plans_the_bundled_model_and_says_so():
    result = resolve(["--model-path", "/no/such/dir/deepseek-ai/DeepSeek-V3", "--tp", "8"],
                     gpu="h200")
    assert result.record.model.name == "deepseek-v3"
    assert result.value("model_path") == "/no/such/dir/deepseek-ai/DeepSeek-V3"
    assert any("not on this machine" in w and "deepseek-v3" in w
               for w in result.to_dict()["warnings"])


def test_a_foreign_path_naming_no_bundled_model_says_how_to_substitute_one():
    import pytest

    from launchplan.errors import InputError

    with pytest.raises(InputError) as err:
        resolve(["--model-path", "/no/such/dir/my-finetune"], gpu="h100")
    assert err.value.subject == "--model-path"
    assert "give --model-path again after the pasted launch" in str(err.value)
