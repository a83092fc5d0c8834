"""Help scaled to 546 flags: grouped, one flag in full, search by word; rules listings."""

from __future__ import annotations

import json

from launchplan.commands.main import main
from launchplan.input.fields import FIELDS, GROUPS


def cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_help_lists_every_flag_under_its_namespace(capsys):
    code, out, _ = cli(["resolve", "--help"], capsys)
    assert code == 0
    for group in GROUPS:
        assert f"\n{group}" in out
    flags = {f for spec in FIELDS.values() for f in spec.flags[:1]}
    assert all(f in out for f in flags)


def test_help_for_one_flag_group_and_word(capsys):
    code, out, _ = cli(["resolve", "--help=--attention-backend"], capsys)
    assert code == 0 and "exec.kernel" in out and "fa4" in out  # choices listed
    code, out, _ = cli(["resolve", "--help=exec.graph"], capsys)
    assert code == 0 and "--cuda-graph-backend-prefill" in out and "--page-size" not in out
    code, out, _ = cli(["resolve", "--help=eagle"], capsys)
    assert code == 0 and "--speculative-eagle-topk" in out


def test_help_for_nothing_is_bad_input(capsys):
    code, out, err = cli(["resolve", "--help=zzzqqq"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1


def test_rules_listing_covers_the_pipeline(capsys):
    from launchplan.rulesets import get_ruleset

    code, out, _ = cli(["rules", "--format", "json"], capsys)
    rules = json.loads(out)
    assert code == 0 and [r["name"] for r in rules] == [r.name for r in
                                                        get_ruleset("default").rules()]
    assert all(r["doc"] for r in rules)
    fa4 = next(r for r in rules if r["name"] == "fa4_page_constraint")
    assert "page_size" in fa4["writes"] and fa4["variant"] is None
    code, out, _ = cli(["rules", "--compat", "0.5.23", "--format", "json"], capsys)
    assert next(r for r in json.loads(out) if r["name"] == "fa4_page_constraint")["variant"] \
        == "0.5.23"


def test_requirements_listing(capsys):
    code, out, _ = cli(["requirements", "--format", "json"], capsys)
    names = {r["name"] for r in json.loads(out)}
    assert code == 0 and {"flashmla-page-64", "full-prefill-graph-fa-page-1"} <= names
