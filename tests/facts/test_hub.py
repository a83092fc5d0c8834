"""Hugging Face ids, offline, on a cache the test builds itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.commands.main import main

LLAMA = Path(__file__).parents[2] / "src/launchplan/facts/data/models/llama-3.1-8b/config.json"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def offline_cache(tmp_path, monkeypatch):
    hub = tmp_path / "hub"
    repo = hub / "models--acme--tiny-llama"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(COMMIT)
    snapshot = repo / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    config = json.loads(LLAMA.read_text())
    config["num_key_value_heads"] = 4
    (snapshot / "config.json").write_text(json.dumps(config))
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(hub))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    return hub


def test_a_cached_id_resolves_offline(offline_cache, capsys):
    code = main(["resolve", "--gpu", "h100", "--model-path", "acme/tiny-llama",
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    plan = json.loads(out)
    assert plan["resolved"]["model_path"] == "acme/tiny-llama"
    assert plan["model"]["total_num_kv_heads"] == 4
    assert plan["resolved"]["attention_backend"] == "fa3"


def test_a_missing_id_is_one_line_exit_2(offline_cache, capsys):
    code = main(["resolve", "--gpu", "h100", "--model-path", "acme/no-such-model"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and "acme/no-such-model" in err


def test_an_unreachable_hub_fails_at_once_with_how_to_fix(tmp_path, monkeypatch, capsys):
    from huggingface_hub import constants

    from launchplan.facts import hub

    def no_download(*args, **kwargs):
        raise AssertionError("the download (and its retries) must not be tried")

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(hub, "hub_reachable", lambda timeout=hub.PROBE_SECONDS: False)
    monkeypatch.setattr(hub, "_download", no_download)
    code = main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                 "--speculative-algorithm", "EAGLE",
                 "--speculative-draft-model-path", "someorg/some-draft"])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("launchplan: --speculative-draft-model-path:")
    assert "HF_HUB_OFFLINE=1" in err and "local folder" in err


def test_the_probe_says_no_for_a_closed_local_endpoint(monkeypatch):
    from launchplan.facts.hub import hub_reachable

    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens (loopback only)
    assert hub_reachable(timeout=0.5) is False


@pytest.fixture
def unreachable_hub(tmp_path, monkeypatch):
    """An empty Hub cache, no HF_HUB_OFFLINE, and a Hub that does not answer."""
    constants = pytest.importorskip("huggingface_hub.constants")
    from launchplan.facts import hub

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(hub, "hub_reachable", lambda timeout=hub.PROBE_SECONDS: False)


def test_an_unreachable_id_names_the_similar_ids_launchplan_ships(unreachable_hub, capsys):
    """Another size or quantization of a shipped family is named in the hint (never
    planned in its place); an id like no shipped one gets no such list."""
    code = main(["resolve", "--gpu", "h100", "--model-path", "Qwen/Qwen3.5-122B-A10B-FP8"])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1
    assert "similar ids" in err and "Qwen/Qwen3.5-122B-A10B," in err
    code = main(["resolve", "--gpu", "h100", "--model-path", "someorg/unlike-anything"])
    _, err = capsys.readouterr()
    assert code == 2 and "similar ids" not in err


def test_the_hint_names_a_bundled_base_model_of_an_instruct_id_first(unreachable_hub, capsys):
    """An instruct id whose base model is bundled (or the reverse) is named first, with the
    name that plans it, ahead of other sizes of the family."""
    code = main(["resolve", "--gpu", "h100", "--model-path", "Qwen/Qwen2.5-72B-Instruct"])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1
    hint = err.split("similar ids (another model, not this one): ")[1]
    assert hint.startswith("Qwen/Qwen2.5-72B (bundled as qwen2.5-72b), ")
    assert main(["resolve", "--gpu", "h100", "--model-path", "qwen2.5-72b"]) == 0
