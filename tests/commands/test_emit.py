"""--emit sglang: one pinned launch line that round-trips to the same plan."""

from __future__ import annotations

import shlex

import pytest

from launchplan.checks.effective import candidate_fields
from launchplan.checks.idempotence import NON_IDEMPOTENT
from launchplan.checks.space import Space, default_models
from launchplan.commands.main import main
from launchplan.emit import LAUNCHER, emitted_argv, sglang_command
from launchplan.errors import Refusal
from launchplan.facts.targets import CATALOG
from launchplan.planner import resolve


def roundtrip(argv, gpu, model, compat="default"):
    first = resolve(argv, gpu=gpu, model_path=model, compat=compat)
    line = sglang_command(first)
    assert line.startswith(LAUNCHER + " ") and "\n" not in line
    tokens = shlex.split(line)[len(shlex.split(LAUNCHER)):]
    assert tokens == emitted_argv(first)
    second = resolve(tokens, gpu=gpu, model_path=model, compat=compat)
    return first, second


def unexplained(first, second):
    allowed = {f for fields, _ in NON_IDEMPOTENT.values() for f in fields}
    diffs = {n: (first.value(n), second.value(n)) for n in candidate_fields((first, second))
             if n not in ("model_path", "tokenizer_path", "served_model_name")
             and first.value(n) != second.value(n) and n not in allowed}
    overrides = [o for o in second.overrides() if o["source"] not in NON_IDEMPOTENT]
    return diffs, overrides


def test_emit_pins_the_fa4_plan(capsys):
    code = main(["resolve", "--gpu", "b200", "--model-path", "llama-3.1-8b",
                 "--attention-backend", "fa4", "--emit", "sglang"])
    out, err = capsys.readouterr()
    assert code == 0 and out.count("\n") == 1
    tokens = shlex.split(out)
    assert tokens[:3] == ["python", "-m", "sglang.launch_server"]
    assert tokens[tokens.index("--page-size") + 1] == "128"
    assert tokens[tokens.index("--attention-backend") + 1] == "fa4"


def test_emit_warns_where_0_5_23_would_still_force_the_page(capsys):
    main(["resolve", "--gpu", "b200", "--model-path", "llama-3.1-8b", "--attention-backend",
          "fa4", "--cuda-graph-backend-prefill", "full", "--emit", "sglang"])
    _, err = capsys.readouterr()
    assert "0.5.23" in err and "page_size" in err and "128" in err


def test_emit_warns_about_aiter_rescaling(capsys):
    main(["resolve", "--gpu", "mi300x", "--model-path", "llama-3.1-8b", "--emit", "sglang"])
    _, err = capsys.readouterr()
    assert "mem_fraction_static" in err


@pytest.mark.parametrize("compat", ["default", "0.5.23"])
def test_emitted_commands_round_trip_on_random_points(compat):
    points = Space(list(CATALOG), default_models()).sample(150, seed=5)
    checked = 0
    for point in points:
        try:
            first, second = roundtrip(point.argv(), point.gpu, point.model, compat)
        except Refusal:
            continue
        diffs, overrides = unexplained(first, second)
        assert not diffs and not overrides, (point, diffs, overrides)
        checked += 1
    assert checked > 50
