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


def test_compat_is_an_axis_of_sweep_and_check(capsys):
    code = main(["sweep", "--gpu", "b200", "--model-path", "llama-3.1-8b", "--axis",
                 "compat=0.5.23,default", "--axis", "attention_backend=fa4", "--axis",
                 "cuda_graph_backend_prefill=full", "--format", "json"])
    data = json.loads(capsys.readouterr()[0])
    assert code == 0 and data["points"] == 2 and len(data["distinct"]) == 2
    pages = {g["points"][0]["compat"]: g["config"]["page_size"] for g in data["distinct"]}
    assert pages == {"0.5.23": 128, "default": 1}
    main(["check", "--gpu", "b200", "--model-path", "llama-3.1-8b", "--axis",
          "compat=0.5.23,default", "--axis", "attention_backend=fa4", "--axis",
          "cuda_graph_backend_prefill=full", "--axis", "page_size=unset", "--axis",
          "kv_cache_dtype=unset", "--axis", "tp_size=unset", "--axis",
          "speculative_algorithm=unset", "--format", "json", "--jobs", "1"])
    report = json.loads(capsys.readouterr()[0])
    c1 = [p for p in report["problems"] if p["requirement"] == "full-prefill-graph-fa-page-1"]
    assert report["points"] == 4 and {p["example"]["compat"] for p in c1} == {"0.5.23"}
    code = main(["sweep", "--gpu", "b200", "--model-path", "llama-3.1-8b", "--axis",
                 "compat=0.4.0,0.5.23"])
    assert code == 2 and "--compat" in capsys.readouterr()[1]
