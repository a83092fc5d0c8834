"""The memory plan and preflight stay total on numbers no launch has (found by fuzzing)."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main

HUGE = "9" * 4200  # arithmetic on it exceeds what Python prints by default


@pytest.mark.parametrize("argv", [
    ["--gpu", "gb200", "--model-path", "gpt-oss-20b", "--pipeline-parallel-size",
     "1646763603222015"],
    ["--gpu", "gb200", "--model-path", "gpt-oss-20b", "--ep-num-redundant-experts",
     "1" + "0" * 80],
    ["--gpu", "a100", "--model-path", "deepseek-v3", "--base-gpu-id", HUGE],
    ["--gpu", "h200", "--model-path", "llama-3.1-8b", "--pp-size", "2147483647"],
    ["--gpu", "h100", "--model-path", "llama-3.1-8b", "--ep-size", "99999999999999999"],
])
def test_answers_with_a_verdict_and_valid_json(argv, capsys):
    code = main(["resolve", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert code in (0, 3) and "internal error" not in err, err
    data = json.loads(out, parse_constant=lambda t: pytest.fail(f"token {t}"))
    assert data["preflight"]["verdict"] in ("fails-at-start", "refused", "runtime-error")


def test_a_zero_tp_size_is_reported(capsys):
    code = main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b", "--tp-size", "0",
                 "--format", "json"])
    data = json.loads(capsys.readouterr()[0])
    names = {p["requirement"] for p in data["preflight"]["problems"]}
    assert code == 0 and "parallel-sizes-positive" in names
