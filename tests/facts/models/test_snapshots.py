"""Hub configs launchplan ships: a Hub id that is neither bundled nor cached plans offline."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.facts.models import bundled_alias, load_model
from launchplan.facts.models.snapshots import (
    HUB_DIR,
    snapshot_folder,
    snapshot_hub_id,
    snapshot_ids,
)
from launchplan.planner import resolve

SOURCES = json.loads((HUB_DIR / "SOURCES.json").read_text())
GLM = "zai-org/GLM-5-FP8"


@pytest.fixture
def empty_offline_cache(tmp_path, monkeypatch):
    import huggingface_hub.constants as constants

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    return tmp_path


def test_every_shipped_config_is_recorded_with_its_source_and_loads():
    ids = snapshot_ids()
    assert len(ids) >= 50 and set(ids) == set(SOURCES["shipped"])
    assert len(SOURCES["commit"]) == 40
    for hub in ids:
        assert bundled_alias(hub) is None, f"{hub} is bundled: the bundled model wins"
        folder = snapshot_folder(hub)
        assert folder is not None and snapshot_hub_id(folder) == hub
        assert load_model(str(folder)).name == hub


def test_a_shipped_id_plans_offline_in_any_letter_case_and_says_where_from(
        empty_offline_cache, capsys):
    for spelling in (GLM, GLM.lower()):
        code = main(["resolve", "--gpu", "h200", "--model-path", spelling, "--tp", "8",
                     "--format", "json"])
        out, err = capsys.readouterr()
        assert code == 0, err
        plan = json.loads(out)
        assert plan["resolved"]["model_path"] == spelling  # the user's spelling is kept
        assert plan["model"]["name"] == GLM
        assert any("ships" in w and SOURCES["commit"][:12] in w for w in plan["warnings"])
        assert plan["memory"]["max_total_num_tokens"] > 0


def test_the_local_cache_wins_over_the_shipped_copy(empty_offline_cache):
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = empty_offline_cache / "models--zai-org--GLM-5-FP8"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text(
        (HUB_DIR.parent / "models" / "llama-3.1-8b" / "config.json").read_text())
    result = resolve(["--model-path", GLM], gpu="h100")
    assert result.record.model.arch0 == "LlamaForCausalLM"
    assert not any("ships" in w for w in result.to_dict()["warnings"])


def test_another_revision_is_not_the_shipped_one(empty_offline_cache, capsys):
    code = main(["resolve", "--gpu", "h200", "--model-path", GLM, "--revision", "v0.1"])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and GLM in err


def test_a_path_from_another_machine_plans_the_shipped_config_it_names():
    for path in ("/models/GLM-5-FP8", "/data/zai-org/GLM-5-FP8/",
                 "/root/.cache/huggingface/hub/models--zai-org--GLM-5-FP8/snapshots/abc"):
        result = resolve(["--model-path", path, "--tp", "8"], gpu="h200")
        assert result.record.model.name == GLM, path
        assert result.value("model_path") == path
        assert any("not on this machine" in w and GLM in w
                   for w in result.to_dict()["warnings"])


@pytest.mark.parametrize("gpu", ["h200", "b200", "mi300x"])
def test_every_shipped_config_resolves_or_is_refused_with_a_plan(gpu, capsys):
    for hub in snapshot_ids():
        code = main(["resolve", "--gpu", gpu, "--model-path", str(snapshot_folder(hub)),
                     "--tp", "8", "--format", "json"])
        out, err = capsys.readouterr()
        assert code in (0, 3), f"{hub} on {gpu}: {err}"
        plan = json.loads(out)
        assert plan["model"]["name"] == hub
        assert ("error" in plan) == (code == 3)


def test_reports_name_a_shipped_model_by_its_hub_id(capsys):
    from launchplan.facts.models.snapshots import shown_model

    assert shown_model(str(snapshot_folder(GLM))) == GLM
    assert shown_model("llama-3.1-8b") == "llama-3.1-8b"
    code = main(["sweep", "--gpu", "b200", "--model-path", GLM, "--axis", "tp_size=8",
                 "--axis", "model=zai-org/GLM-5-FP8,deepseek-ai/DeepSeek-V3.2"])
    out = capsys.readouterr().out
    assert code == 0 and GLM in out and "deepseek-ai/DeepSeek-V3.2" in out
    assert str(HUB_DIR) not in out


def test_a_config_taken_from_an_earlier_commit_names_that_commit(empty_offline_cache):
    origin = SOURCES["origin"]
    assert origin and set(origin) <= set(SOURCES["shipped"])
    for hub, entry in origin.items():
        assert entry["repository"].startswith("https://github.com/")
        assert len(entry["commit"]) == 40 and entry["commit"] != SOURCES["commit"]
        assert entry["checked"], f"{hub}: say what its copy was compared with"
    hub = "deepseek-ai/DeepSeek-V3.1"
    warnings = resolve(["--model-path", hub, "--tp-size", "8"], gpu="h200").to_dict()["warnings"]
    assert any("ships" in w and origin[hub]["commit"][:12] in w for w in warnings)
    assert not any(SOURCES["commit"][:12] in w for w in warnings)


def test_every_config_from_an_earlier_commit_gets_a_memory_plan(empty_offline_cache, capsys):
    from tests.parity.tools.gen_shipped2_cases import MODELS
    from tests.parity.tools.gen_shipped3_cases import MODELS as MODELS3

    assert not set(MODELS) & set(MODELS3)
    models = {**MODELS, **MODELS3}
    assert {folder.replace("--", "/", 1) for folder in models} == set(SOURCES["origin"])
    for folder, (tps, _) in models.items():
        hub = folder.replace("--", "/", 1)
        code = main(["resolve", "--gpu", "h200", "--model-path", hub, "--tp",
                     str(tps["h200"]), "--format", "json"])
        out, err = capsys.readouterr()
        assert code == 0, f"{hub}: {err}"
        memory = json.loads(out)["memory"]
        assert memory["max_total_num_tokens"] > 0, hub


def _ship_tool():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[3] / "tools" / "ship_hub_history.py"
    spec = importlib.util.spec_from_file_location("ship_hub_history", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_ship_tool_reads_a_file_saved_from_the_index_without_a_git_directory(tmp_path):
    tool = _ship_tool()
    commit, path = "0" * 40, "models/x/config.json"
    saved = tmp_path / "acme+big" / "files" / commit / path
    saved.parent.mkdir(parents=True)
    saved.write_text('{"a": 1}\n')
    assert tool._read(tmp_path / "acme+big", commit, path) == '{"a": 1}\n'
    for hub, (repository, _, files, checked) in tool.FILES.items():
        assert SOURCES["origin"][hub]["repository"] == f"https://github.com/{repository}"
        assert SOURCES["shipped"][hub] == files and checked


@pytest.mark.parametrize("hub", ["google/gemma-3-4b-it", "meta-llama/Llama-3.1-70B-Instruct",
                                 "deepseek-ai/DeepSeek-V3.2-Exp", "Qwen/Qwen3.5-9B"])
def test_popular_launch_ids_plan_offline_from_their_shipped_config(hub, empty_offline_cache,
                                                                  capsys):
    code = main(["resolve", "--gpu", "h200", "--model-path", hub, "--tp", "8",
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    plan = json.loads(out)
    assert plan["model"]["name"] == hub and plan["memory"]["max_total_num_tokens"] > 0
    assert any(SOURCES["origin"][hub]["commit"][:12] in w for w in plan["warnings"])
