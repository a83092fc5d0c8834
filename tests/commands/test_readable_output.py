"""What people read: decisions first, floats as written, 80 columns, no Python reprs."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.commands.output import cell, human_float


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_floats_read_as_written():
    assert human_float(0.7224999999999999) == "0.7225"
    assert cell(0.85 * 0.85) == "0.7225"
    assert cell({"a": [0.1 + 0.2]}) == '{"a": [0.3]}'
    assert human_float(float("nan")) == "nan" and human_float(2.0) == "2.0"


def test_the_table_shows_your_values_and_marks_overrides(capsys):
    code, out, _ = run(["resolve", "--gpu", "b200", "--model-path", "llama-3.1-8b",
                        "--attention-backend", "fa4", "--page-size", "16", "--tp-size", "2"],
                       capsys)
    assert code == 0
    rows = {line.split()[0].lstrip("!"): line for line in out.splitlines() if line.strip()}
    assert "your input" in rows["tp_size"]
    assert "overrode yours" in next(line for line in out.splitlines()
                                    if line.startswith("! page_size"))
    assert "(fields at defaults nothing touched: --all)" in out
    code, everything, _ = run(["resolve", "--gpu", "b200", "--model-path", "llama-3.1-8b",
                               "--all"], capsys)
    assert "enable_lora" in everything and "enable_lora" not in out


@pytest.mark.parametrize("model", ["llama-3.1-8b", "deepseek-v3", "gpt-oss-20b"])
def test_notes_fit_80_columns_and_explain_shows_no_reprs(model, capsys):
    code, out, _ = run(["resolve", "--gpu", "b200", "--model-path", model, "--tp-size", "8"],
                       capsys)
    tail = out[out.index("\n\n", out.index("set by")):]  # past the plan table
    assert code == 0 and all(len(line) <= 80 for line in tail.splitlines()), tail
    code, out, _ = run(["explain", "--all", "--gpu", "b200", "--model-path", model], capsys)
    assert code == 0
    assert "mappingproxy" not in out and "object at 0x" not in out
    assert not any(line.startswith("_") for line in out.splitlines())
    assert all(len(line) <= 80 for line in out.splitlines() if line.startswith("       "))


def test_version_and_unknown_commands(capsys):
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out.startswith("launchplan ")
    code, _, err = run(["resovle"], capsys)
    assert code == 2 and err.count("\n") == 1 and err.count("launchplan") == 1
    assert "did you mean resolve?" in err and "commands: resolve" in err
