"""Numbers past the float range are answered, not raised on (found by fuzz_logs.py)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from launchplan.commands.main import main
from launchplan.numbers import finite, is_nan

HUGE = 10 ** 400  # a JSON number or Python literal has no size limit; a float stops at ~1.8e308


@pytest.mark.parametrize(("value", "expected"), [
    (1, True), (-3, True), (0.5, True), (sys.float_info.max, True), (int(sys.float_info.max), True),
    (HUGE, False), (-HUGE, False), (float("inf"), False), (float("nan"), False),
    (True, False), ("1", False), (None, False),
])
def test_finite_answers_for_every_value(value, expected):
    assert finite(value) is expected


def test_is_nan_answers_for_a_huge_int():
    assert is_nan(float("nan")) and not is_nan(HUGE) and not is_nan(1.0) and not is_nan("nan")


@pytest.mark.parametrize("value", [HUGE, -HUGE], ids=["huge", "minus-huge"])
def test_a_huge_fraction_given_as_a_field_gets_a_verdict(value):
    """A keyword field keeps an int as given: the fraction row and the memory plan answer (a
    broken fraction, no pool) instead of raising OverflowError."""
    from launchplan.checks.preflight import preflight
    from launchplan.memory.plan import memory_plan
    from launchplan.planner import resolve

    result = resolve(fields={"mem_fraction_static": value}, gpu="h100",
                     model_path="llama-3.1-8b")
    problems = {p.requirement for p in preflight(result).problems}
    assert "mem-fraction-range" in problems
    assert memory_plan(result) is None


@pytest.mark.parametrize("command", [["resolve"], ["explain", "attention_backend"]])
def test_a_huge_logged_fraction_gets_a_plan(command, tmp_path: Path, capsys):
    """The fuzz_logs.py find: a logged ``mem_fraction_static`` of 400 nines made ``explain
    --from-log`` an internal error."""
    log = tmp_path / "server.log"
    log.write_text("[2026-01-01 00:00:00] server_args=ServerArgs(model_path='llama-3.1-8b', "
                   f"mem_fraction_static={HUGE}, tp_size=1)\n")
    code = main([*command, "--from-log", str(log), "--gpu", "h100", "--format", "json"])
    out, err = capsys.readouterr()
    assert code in (0, 3) and "internal error" not in err, err
    json.loads(out)


def test_a_huge_rope_factor_in_a_config_is_bad_input(tmp_path: Path, capsys):
    folder = tmp_path / "m"
    shutil.copytree(Path(__file__).parents[1] / "src/launchplan/facts/data/models/llama-3.1-8b",
                    folder)
    config = json.loads((folder / "config.json").read_text())
    config["rope_scaling"] = {"rope_type": "linear", "factor": HUGE}
    (folder / "config.json").write_text(json.dumps(config))
    code = main(["resolve", "--gpu", "h100", "--model-path", str(folder)])
    err = capsys.readouterr()[1]
    assert code == 2 and "rope_scaling.factor" in err and "internal error" not in err, err
