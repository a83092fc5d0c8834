"""``launchplan rules`` with sectioned docstrings: the table shows each rule's summary, the
detailed listing its four sections and engine-held promises, JSON both split out."""

from __future__ import annotations

import csv
import io
import json

from launchplan.commands.main import main
from launchplan.rulesets import get_ruleset


def _run(argv, capsys) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def test_table_has_one_row_per_rule_with_its_summary(capsys):
    rules = get_ruleset("default").rules()
    lines = _run(["rules", "--format", "table"], capsys).splitlines()
    assert lines[0].split() == ["#", "rule", "phase", "decides"]
    assert len(lines) == 2 + len(rules)
    fa4 = next(r for r in rules if r.name == "fa4_page_constraint")
    row = next(ln for ln in lines if " fa4_page_constraint " in ln)
    assert row.rstrip().endswith(fa4.summary) and "When:" not in "".join(lines)


def test_csv_is_the_table_as_rows(capsys):
    rows = list(csv.reader(io.StringIO(_run(["rules", "--format", "csv"], capsys))))
    assert rows[0] == ["n", "rule", "phase", "summary"]
    assert len(rows) == 1 + len(get_ruleset("default").rules())


def test_detailed_listing_prints_the_sections_and_the_promises(capsys):
    out = _run(["rules"], capsys)
    block = out.split(". whisper_radix_disable  (")[1].split("\n\n\n")[0]
    for label in ("When:", "Effect:", "Why:", "Assumes:"):
        assert f"\n       {label} " in block
    assert "promises: applies=" in block
    trigger_block = out.split(". deepep_v2_model_check  (")[1].split("\n\n")[1]
    assert "promises: triggers=moe_a2a_backend in ['deepep_v2']" in trigger_block


def test_json_splits_summary_and_sections(capsys):
    listed = json.loads(_run(["rules", "--format", "json"], capsys))
    by_name = {r["name"]: r for r in listed}
    for spec in get_ruleset("default").rules():
        entry = by_name[spec.name]
        assert entry["summary"] == spec.summary
        assert set(entry["sections"]) == {"when", "effect", "why", "assumes"}
        assert all(entry["sections"].values())
    # a continuation line joins its section with one space
    when = by_name["deepseek_trtllm_mla_prefill_graph"]["sections"]["when"]
    assert "prefill backend is trtllm_mla, the prefill graph" in when and "\n" not in when
