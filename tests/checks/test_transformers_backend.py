"""Preflight's ``transformers-backend`` row against SGLang's own choice of model class.

``tests/parity/tools/record_model_class.py`` asked each release's ``get_model_architecture``,
under the transformers version that release pins, for the class of a checkpoint with no SGLang
class of its own (GPT-NeoX, Falcon, BLOOM, names transformers lacks, names a later release
registers, over two GPUs): the transformers backend's, or the ValueError its compatibility gate
raises, then the backend's class built on the meta device (its own check of the class, and of
a tensor-parallel plan over more than one GPU). The row must say "fails at start" exactly where
SGLang raised, on every recorded launch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan import resolve
from launchplan.checks.preflight import preflight
from launchplan.facts.model_classes import (
    backend_compatible,
    everywhere,
    registered,
    transformers_pin,
)

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "parity" / "data"
RELEASES = ("0.5.21", "0.5.22", "0.5.23")


def _rows(release: str) -> list[dict]:
    path = DATA / f"results-model-class-{release}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _folder(row: dict, tmp_path: Path) -> str:
    src = ROOT / row["model"]
    if not row["architectures"]:
        return str(src)
    config = json.loads((src / "config.json").read_text())
    config["architectures"] = row["architectures"]
    out = tmp_path / row["name"]
    out.mkdir()
    (out / "config.json").write_text(json.dumps(config))
    return str(out)


@pytest.mark.parametrize("release", RELEASES)
def test_every_recorded_launch_starts_where_sglang_picked_a_class(release, tmp_path):
    rows = _rows(release)
    assert len(rows) == 30
    failing = 0
    for row in rows:
        assert row["transformers"] == transformers_pin(release), row["name"]
        assert row["ok"] or row["error"].startswith("ValueError"), row  # no harness failure
        result = resolve(row["argv"], gpu="h100", model_path=_folder(row, tmp_path),
                         compat="default" if release == "0.5.23" else release)
        problems = [p for p in preflight(result).problems
                    if p.requirement == "transformers-backend"]
        assert bool(problems) == (not row["ok"]), (release, row["name"], row.get("error"))
        failing += bool(problems)
        if row["ok"]:  # the fallback exactly when no name is registered (or it is asked for)
            archs = row["architectures"] or result.record.model.architectures
            native = any(a in registered(release) for a in archs)
            forced = "transformers" in row["argv"]
            assert row["class"] in registered(release), row["name"]
            if native and not forced:
                assert row["class"] in archs, row["name"]
            else:
                assert row["class"].startswith("Transformers"), row["name"]
    assert failing >= 6


def test_releases_and_pins_differ_where_the_recordings_do():
    """DiffLlama's transformers class took no pluggable attention backend in 5.12.1 (0.5.21's
    pin) and does in 5.19.0; Beam has an SGLang class from 0.5.23 only."""
    by = {r: {row["name"]: row for row in _rows(r)} for r in RELEASES}
    assert not by["0.5.21"]["difflama-name"]["ok"] and by["0.5.22"]["difflama-name"]["ok"]
    assert backend_compatible("DiffLlamaForCausalLM", "0.5.21") is False
    assert backend_compatible("DiffLlamaForCausalLM", "0.5.23") is True
    assert "BeamForCausalLM" in registered("0.5.23") - registered("0.5.22")


def test_tables_hold_sglang_registries_and_transformers_answers():
    assert {"LlamaForCausalLM", "DeepseekV3ForCausalLM", "TransformersForCausalLM"} \
        <= everywhere()
    assert len(registered("0.5.23")) > len(registered("0.5.21")) > 250
    assert backend_compatible("GPTNeoXForCausalLM", "0.5.23") is True
    assert backend_compatible("FalconForCausalLM", "0.5.23") is False
    assert backend_compatible("MyLlamaForCausalLM", "0.5.23") is None
    assert transformers_pin("0.5.23") == "5.19.0" and transformers_pin("0.5.21") == "5.12.1"


def test_the_row_names_the_class_and_the_pinned_transformers():
    models = ROOT / "tests" / "parity" / "models"
    falcon = str(models / "falcon-synth")
    verdict = preflight(resolve([], gpu="h100", model_path=falcon))
    (problem,) = [p for p in verdict.problems if p.requirement == "transformers-backend"]
    assert not verdict.starts
    assert "FalconForCausalLM" in problem.why and "5.19.0" in problem.why
    assert problem.severity.value == "fails-at-start"
    # asked for, the backend's own class refuses it when built
    forced = preflight(resolve(["--model-impl", "transformers"], gpu="h100", model_path=falcon))
    assert "refuses to build" in " ".join(p.why for p in forced.problems
                                          if p.requirement == "transformers-backend")
    # over two GPUs the backend needs the tensor-parallel plan OPT's config class lacks
    opt = preflight(resolve(["--model-impl", "transformers", "--tp-size", "2"], gpu="h100",
                            model_path=str(models / "opt-125m")))
    assert "no tensor-parallel plan" in " ".join(p.why for p in opt.problems)
    for model in (str(models / "gpt-neox-synth"), "llama-3.1-8b"):
        for argv in ([], ["--model-impl", "transformers"]):
            fine = preflight(resolve(argv, gpu="h100", model_path=model))
            assert "transformers-backend" not in {p.requirement for p in fine.problems}


def test_a_checkpoint_sglang_serves_never_reads_the_plan():
    """Most checkpoints name a class every release registers whose transformers class takes
    the backend: the row answers from the model alone, so the per-facts table of rows leaves
    it out after the first plan. Falcon-Mamba (registered, but its transformers class does
    not take the backend) reads --model-impl."""
    from launchplan.checks.predicates import TracedPlan
    from launchplan.checks.requirements import by_name

    row = by_name("transformers-backend")
    traced = TracedPlan(resolve([], gpu="h100", model_path="llama-3.1-8b"))
    assert not row.violated(traced) and not traced.opaque and not traced.reads
    mamba = str(ROOT / "tests" / "parity" / "models" / "falcon-mamba-7b")
    traced = TracedPlan(resolve([], gpu="h100", model_path=mamba))
    assert not row.violated(traced) and "model_impl" in traced.reads


def test_a_moe_checkpoint_whose_experts_count_the_backend_cannot_read_fails_at_start():
    """Aria (rhymes-ai/Aria: no SGLang class) reaches the transformers backend as a MoE model
    (``num_experts_per_tok`` 6), and names its 64 experts ``moe_num_experts``: SGLang 0.5.23's
    MoE class, built on the meta device, stops at "Cannot determine num_experts from config."
    (it reads num_local_experts, num_experts or n_routed_experts). The same file with the
    count under one of those names builds."""
    aria = str(ROOT / "tests" / "parity" / "models" / "aria")
    result = resolve(["--tp-size", "2"], gpu="h100", model_path=aria)
    (problem,) = [p for p in preflight(result).problems
                  if p.requirement == "transformers-backend"]
    assert "experts' count" in problem.why and "moe_num_experts" in problem.why


def test_a_moe_checkpoint_naming_its_experts_count_passes_the_backends_check(tmp_path):
    config = json.loads((ROOT / "tests" / "parity" / "models" / "aria" / "config.json")
                        .read_text())
    config["text_config"]["num_experts"] = config["text_config"]["moe_num_experts"]
    (tmp_path / "config.json").write_text(json.dumps(config))
    result = resolve(["--tp-size", "2"], gpu="h100", model_path=str(tmp_path))
    assert not [p for p in preflight(result).problems
                if p.requirement == "transformers-backend" and "experts" in p.why]
