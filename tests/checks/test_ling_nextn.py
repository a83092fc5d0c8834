"""An EAGLE-family launch with no draft checkpoint on a model whose draft is its own MTP layer:
SGLang points the draft at the target's path, renames its class to the NextN form, and that
loader stops unless the config declares exactly one MTP layer (h19: Ling-lite 1.5 with
``--speculative-algorithm EAGLE`` died loading the draft; launchplan said "starts")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan import resolve
from launchplan.checks.preflight import preflight
from launchplan.checks.requirements import Severity
from launchplan.facts.models import clear_cache

MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"
LING = MODELS / "ling-lite-1.5"
RULE = "nextn-draft-layer-count"


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def _problems(model: Path | str, *argv: str) -> dict:
    verdict = preflight(resolve(["--trust-remote-code", *argv], gpu="h100",
                                model_path=str(model)))
    return {p.requirement: p for p in verdict.problems}, verdict


def _written(tmp_path: Path, folder: str, **changes) -> Path:
    config = json.loads((MODELS / folder / "config.json").read_text())
    for key, value in changes.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    (tmp_path / "config.json").write_text(json.dumps(config))
    return tmp_path


@pytest.mark.parametrize("algorithm", ["EAGLE", "NEXTN"])
def test_ling_v1_own_draft_fails_at_start(algorithm):
    """Ling v1's files declare no ``num_nextn_predict_layers``: BailingMoeForCausalLMNextN's
    loader raises ValueError after the target's weights are loaded."""
    problems, verdict = _problems(LING, "--speculative-algorithm", algorithm)
    problem = problems[RULE]
    assert problem.severity is Severity.FAILS_AT_START and not verdict.starts
    assert "num_nextn_predict_layers" in problem.why
    assert "--speculative-draft-model-path" in problem.why and "NGRAM" in problem.why
    assert "bailing_moe.py" in problem.why


def test_ling_v1_without_own_draft_starts():
    """NGRAM needs no draft model; a separate draft checkpoint is loaded as its own class."""
    problems, _ = _problems(LING, "--speculative-algorithm", "NGRAM")
    assert RULE not in problems
    problems, _ = _problems(LING)
    assert RULE not in problems


@pytest.mark.parametrize("count, starts", [(1, True), (2, False), (0, False)])
def test_ling_declared_count_must_be_one(tmp_path, count, starts):
    """The loader asserts the count is 1 (only one NextN layer is supported)."""
    model = _written(tmp_path, "ling-lite-1.5", num_nextn_predict_layers=count)
    problems, _ = _problems(model, "--speculative-algorithm", "EAGLE")
    assert (RULE not in problems) == starts


@pytest.mark.parametrize("folder, change, starts", [
    # GLM-4.7-Flash as published declares 1; transformers 5's Glm4MoeLiteConfig has no default
    ("glm-4.7-flash", {}, True),
    ("glm-4.7-flash", {"num_nextn_predict_layers": None}, False),
    # DeepSeek-V3's config class maps num_mtp_layers (default 1) onto the key; 0 (as Kimi K2's
    # file writes) fails the loader's assertion
    ("deepseek-v3.2-exp", {"num_nextn_predict_layers": None}, True),
    ("deepseek-v3.2-exp", {"num_nextn_predict_layers": 0}, False),
])
def test_other_nextn_loaders(tmp_path, folder, change, starts):
    model = _written(tmp_path, folder, **change)
    problems, _ = _problems(model, "--speculative-algorithm", "EAGLE", "--tp-size", "8")
    assert (RULE not in problems) == starts
