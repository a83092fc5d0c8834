"""A value given as is (the keyword path, a logged line) with a type its field does not admit:
bad input naming the field when a rule breaks on it, never an internal error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from launchplan.commands.main import main
from launchplan.engine import pipeline
from launchplan.engine.pipeline import RuleCrash
from launchplan.errors import InputError
from launchplan.input.field_types import admits, expected_type, mistyped
from launchplan.input.fields import FIELDS, release_table
from launchplan.input.server_log import read_log
from launchplan.planner import resolve

LOGS = Path(__file__).parent / "data" / "server_logs"


def _kw(**values):
    return mistyped(values, dict.fromkeys(values, "keyword"), FIELDS)


@pytest.mark.parametrize(("name", "value"), [
    ("tp_size", []), ("tp_size", "2"), ("tp_size", 1.5), ("pp_size", ()),
    ("mem_fraction_static", "0.8"), ("mem_fraction_static", {}), ("quantization", True),
    ("attention_backend", 3), ("gc_threshold", "1,2"), ("radix_eviction_policy_config", [1]),
    ("enable_dp_attention", "yes"), ("tp_size", None), ("hicache_size", None),
])
def test_a_value_its_annotation_does_not_admit_is_named(name, value):
    found = _kw(**{name: value})
    assert found is not None and found[0] == name and found[2] == value


@pytest.mark.parametrize(("name", "value"), [
    ("tp_size", 2), ("tp_size", True), ("chunked_prefill_size", None), ("mem_fraction_static", 1),
    ("mem_fraction_static", float("nan")), ("quantization", "fp8"),
    ("gc_threshold", (1, 2)), ("gc_threshold", [1, 2]), ("enable_dp_attention", 1),
])
def test_values_python_treats_as_the_annotated_type_pass(name, value):
    assert _kw(**{name: value}) is None


def test_a_value_from_the_command_line_is_not_judged_here():
    assert mistyped({"tp_size": "x"}, {"tp_size": "cli"}, FIELDS) is None


@pytest.mark.parametrize("release", ["0.5.23", "0.5.22", "0.5.21"])
def test_every_default_is_admitted_by_its_own_annotation(release):
    """The annotations are read right: no release's own defaults look mistyped."""
    table = release_table(release)
    values = {name: table.default_of(name) for name in table.fields}
    assert mistyped(values, dict.fromkeys(values, "keyword"), table.fields) is None


def test_every_value_a_real_log_holds_is_admitted():
    """Logged values are SGLang's own: ``--from-log`` sets none of them aside, and only a
    ``None`` (which a few real logs hold in plain int and str fields) could ever be blamed
    for a rule's failure."""
    for path in sorted(LOGS.glob("*.log")):
        values = {k: v for k, v in read_log(str(path)).values.items() if k in FIELDS}
        assert all(admits(FIELDS[k], v) for k, v in values.items()), path.name
        found = mistyped(values, dict.fromkeys(values, "keyword"), FIELDS)
        assert found is None or found[2] is None, path.name


def test_another_type_is_named_before_a_none():
    found = _kw(tp_size=None, quantization=True)
    assert found is not None and found[0] == "quantization"


def test_the_annotations_this_reads_cover_most_fields():
    read = sum(1 for spec in FIELDS.values() if expected_type(spec) is not None)
    assert read >= 0.9 * len(FIELDS)


@pytest.mark.parametrize(("name", "value"), [
    ("tp_size", []), ("pp_size", ()), ("quantization", True),
])
def test_a_rule_breaking_on_a_mistyped_keyword_value_is_bad_input(name, value):
    with pytest.raises(InputError) as caught:
        resolve(fields={name: value}, gpu="h100", model_path="qwen3-30b-a3b",
                incremental=False)
    assert isinstance(caught.value.__cause__, RuleCrash)
    assert f"'{name}'" in caught.value.message and repr(value) in caught.value.message


def test_a_rule_failing_on_well_typed_input_stays_a_crash(monkeypatch):
    real = pipeline._run

    def broken(record, rules, **kw):
        raise RuleCrash("some_rule", ZeroDivisionError("x"))

    monkeypatch.setattr(pipeline, "_run", broken)
    with pytest.raises(RuleCrash):
        resolve(fields={"tp_size": 2}, gpu="h100", model_path="llama-3.1-8b")
    monkeypatch.setattr(pipeline, "_run", real)


def test_a_log_with_a_mistyped_value_is_planned_without_it(capsys, tmp_path):
    text = (LOGS / "docs-2025-08-vision-qwen2.5-vl-7b.log").read_text()
    damaged = re.sub(r"\bpp_size=\d+", "pp_size=()", text, count=1)
    assert damaged != text
    log = tmp_path / "damaged.log"
    log.write_text(damaged)
    code = main(["resolve", "--from-log", str(log), "--gpu", "h100", "--model-path",
                 "qwen2.5-vl-7b", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert "expected an integer, got ()" in report["not_accepted"]["pp_size"]
    assert "pp_size" not in {d["field"] for d in report["differences"]}


def test_explain_from_a_log_with_a_mistyped_value_explains_without_it(capsys, tmp_path):
    text = (LOGS / "docs-2025-08-vision-qwen2.5-vl-7b.log").read_text()
    log = tmp_path / "damaged.log"
    log.write_text(re.sub(r"\bpp_size=\d+", "pp_size=()", text, count=1))
    code = main(["explain", "--from-log", str(log), "--gpu", "h100", "--model-path",
                 "qwen2.5-vl-7b", "pp_size"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "pp_size = 1" in out and "internal error" not in err
    assert "note: the logged pp_size is not used" in err and "got ()" in err
