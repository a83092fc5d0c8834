"""Model classes whose constructors refuse pipeline parallelism (h23 round, F3).

SGLang 0.5.23 resolves ``--pp-size 2`` for Nanbeige4.2-3B (the oracle agreed on every plan
field), but ``NanbeigeModel.__init__`` asserts a pipeline of one stage while each rank builds
the model; SDAR, SDAR-MoE, Falcon-H1, LFM2, LFM2-MoE, Qwen3-Next and Hunyuan V4 refuse it the
same way (``facts/data/pp_refusing_models.json`` names each constructor). Preflight says
"fails at start" and names ``--pp-size 1``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan import resolve
from launchplan.checks.preflight import preflight
from launchplan.checks.requirements import Severity
from launchplan.commands.main import main
from launchplan.facts.model_classes import registered, releases
from launchplan.facts.models.class_traits import pp_refusal, pp_refusing_classes

MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"
ROW = "model-pipeline-parallel"


def _problems(folder: str, *argv: str) -> dict:
    result = resolve(["--trust-remote-code", *argv], gpu="h100",
                     model_path=str(MODELS / folder))
    return {p.requirement: p for p in preflight(result).problems}


def test_nanbeige_with_a_pipeline_fails_at_start():
    problem = _problems("nanbeige4.2-3b", "--tp-size", "2", "--pp-size", "2")[ROW]
    assert problem.severity is Severity.FAILS_AT_START
    assert problem.fields == ("pp_size",)
    assert "NanbeigeForCausalLM" in problem.why and "--pp-size 1" in problem.why
    assert "models/nanbeige.py" in problem.why


def test_nanbeige_without_a_pipeline_starts():
    assert ROW not in _problems("nanbeige4.2-3b", "--tp-size", "2")


@pytest.mark.parametrize("folder, arch", [
    ("sdar-synth", "SDARForCausalLM"),
    ("falcon-h1-synth", "FalconH1ForCausalLM"),
    ("lfm2-synth", "Lfm2ForCausalLM"),
    ("lfm2-8b-a1b-4bit", "Lfm2MoeForCausalLM"),
])
def test_other_refusing_classes(folder, arch):
    problem = _problems(folder, "--pp-size", "2")[ROW]
    assert arch in problem.why


def test_a_pipeline_of_a_class_that_takes_one_is_not_flagged():
    result = resolve(["--pp-size", "2"], gpu="h100", model_path="llama-3.1-8b")
    assert ROW not in {p.requirement for p in preflight(result).problems}
    assert _problems("iquest-coder-v1-40b-loop-instruct", "--pp-size", "2").get(ROW) is None


def test_transformers_backend_builds_another_class():
    """Under --model-impl transformers SGLang does not build its own class."""
    problems = _problems("nanbeige4.2-3b", "--pp-size", "2", "--model-impl", "transformers")
    assert ROW not in problems


def test_table_names_registered_classes_with_their_constructor():
    rows = pp_refusing_classes()
    assert {"NanbeigeForCausalLM", "SDARMoeForCausalLM", "Qwen3NextForCausalLM",
            "HYV4ForCausalLM"} <= set(rows)
    for release in releases():
        names = registered(release)
        assert all(arch in names for arch in rows), release
    assert all(where.startswith("models/") for where in rows.values())
    assert pp_refusal("LlamaForCausalLM") is None


def test_cli_names_the_way_out(capsys):
    code = main(["resolve", "--gpu", "h100", "--model-path", str(MODELS / "nanbeige4.2-3b"),
                 "--trust-remote-code", "--tp-size", "2", "--pp-size", "2",
                 "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    report = out["preflight"]
    assert report["verdict"] == "fails-at-start"
    problem = next(p for p in report["problems"] if p["requirement"] == ROW)
    assert "--pp-size 1" in problem["fixes"]
