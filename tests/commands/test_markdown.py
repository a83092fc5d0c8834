"""``resolve --format markdown``: the plan as GitHub-flavoured Markdown."""

from __future__ import annotations

import json

from launchplan.commands.main import main

BASE = ["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b"]


def markdown(capsys, *extra):
    assert main([*BASE, *extra, "--format", "markdown"]) == 0
    return capsys.readouterr().out


def test_the_plan_reads_as_markdown_with_every_decision(capsys):
    out = markdown(capsys, "--tp", "2", "--page-size", "32")
    assert main([*BASE, "--tp", "2", "--page-size", "32", "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    lines = out.splitlines()
    assert lines[0].startswith("### launchplan: llama-3.1-8b on h100")
    # the launch as given, then the verdict, a table and the memory line
    assert "python -m sglang.launch_server --model-path llama-3.1-8b --tp-size 2 " \
           "--page-size 32" in out
    assert "**Preflight: starts**" in out
    header = lines.index("| field | input/default | resolved | set by |")
    assert lines[header + 1] == "|---|---|---|---|"
    rows = [line for line in lines[header + 2:] if line.startswith("| ")]
    assert all(row.count(" | ") == 3 for row in rows)  # four cells each, none split
    assert any(row.startswith("| `mem_fraction_static` |") and
               f"| {plan['resolved']['mem_fraction_static']} |" in row for row in rows)
    assert f"max_total_num_tokens {plan['memory']['max_total_num_tokens']:,}" in out
    assert "<details><summary>the command that pins this plan</summary>" in out


def test_pipes_in_values_do_not_break_the_table(capsys):
    out = markdown(capsys, "--json-model-override-args", '{"a|b": 1}')
    row = next(line for line in out.splitlines() if "json_model_override_args" in line)
    assert "a\\|b" in row and row.replace("\\|", "").count("|") == 5


def test_a_launch_that_will_not_start_lists_its_problems(capsys):
    assert main(["resolve", "--gpu", "h100", "--model-path", "deepseek-v3", "--tp", "8",
                 "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "**Preflight: fails at start-up**" in out
    assert "- **[fails-at-start] memory-fits**" in out and "<sub>" in out


def test_other_commands_refuse_markdown_in_one_line(capsys):
    for argv in (["sweep", "--gpu", "h100", "--model-path", "llama-3.1-8b", "--axis",
                  "page_size=1,16"], ["explain", "page_size", "--gpu", "h100",
                                      "--model-path", "llama-3.1-8b"]):
        assert main([*argv, "--format", "markdown"]) == 2
        err = capsys.readouterr().err
        assert "--format" in err and "markdown" in err and len(err.strip().splitlines()) == 1
