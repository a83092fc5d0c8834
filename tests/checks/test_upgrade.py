"""``check --upgrade OLD:NEW``: the points an upgrade changes, grouped by their rules."""

from __future__ import annotations

import json

from launchplan.checks.space import Space, parse_axis
from launchplan.checks.upgrade import run_upgrade
from launchplan.commands.main import main


def test_the_fa4_fix_is_the_only_change_from_0_5_23_to_default():
    space = Space(["b200"], ["llama-3.1-8b"],
                  axes=[parse_axis("attention_backend=fa4,triton"),
                        parse_axis("cuda_graph_backend_prefill=unset,full")],
                  replace_defaults=True)
    report = run_upgrade(list(space), "0.5.23", "default")
    assert report.points == 4 and report.points - report.unchanged == 1
    (group,) = report.groups()
    assert group.fields == ("page_size",) and "fa4_page_constraint" in group.rules
    assert (group.before["page_size"], group.after["page_size"]) == (128, 1)


def test_the_command_lists_groups_and_rejects_unknown_releases(capsys):
    code = main(["check", "--gpu", "b200", "--model-path", "llama-3.1-8b", "--axis",
                 "attention_backend=fa4", "--axis", "cuda_graph_backend_prefill=full",
                 "--upgrade", "0.5.23:default", "--format", "json"])
    data = json.loads(capsys.readouterr()[0])
    assert code == 0 and data["changed"] >= 1
    assert data["groups"][0]["example"]["argv"]
    code = main(["check", "--upgrade", "0.4.0:0.5.23", "--sample", "3"])
    assert code == 2 and "0.4.0" in capsys.readouterr()[1]
