"""The memory plan and preflight stay total on numbers no launch has (found by fuzzing)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

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


@pytest.mark.parametrize(("model", "key", "value"), [
    ("gpt-oss-20b", "num_local_experts", -1),  # once an internal error (fuzz_configs)
    ("gpt-oss-20b", "num_local_experts", 1.5),
    ("gpt-oss-20b", "num_local_experts", float("inf")),
    ("deepseek-v3", "n_routed_experts", -1),
    ("deepseek-v3", "vocab_size", float("inf")),
    ("qwen3-30b-a3b", "num_experts", float("nan")),
])
def test_an_impossible_expert_count_in_a_config_gets_a_plan(model, key, value, tmp_path,
                                                           capsys):
    """The weights' written-out sum functions take the config's numbers as they come: a
    negative or fractional expert count names no variable, and an infinite or undefined
    one is a number there too; the functions give the loops' very sums."""
    from launchplan.facts.models import load_model
    from launchplan.memory import weights
    from launchplan.memory.moe_padding import ExpertPadding
    from launchplan.memory.weights import Parallel

    source = Path(__file__).parents[2] / "src/launchplan/facts/data/models" / model
    shutil.copytree(source, tmp_path / model)
    config = json.loads((source / "config.json").read_text())
    config[key] = value
    (tmp_path / model / "config.json").write_text(json.dumps(config))
    for tp in ("1", "8"):
        code = main(["resolve", "--gpu", "gb200", "--model-path", str(tmp_path / model),
                     "--tp-size", tp, "--format", "json"])
        out, err = capsys.readouterr()
        assert "internal error" not in err, err
        if code in (0, 3) and out:
            assert json.loads(out)["preflight"]["verdict"]
        else:
            assert code == 2 and err.count("\n") == 1, err
    try:
        loaded = load_model(str(tmp_path / model))
    except Exception:  # noqa: BLE001 - refused as bad input above: no sums to compare
        return
    st = weights._stored(loaded, None, None)
    for pad in (ExpertPadding(), ExpertPadding(1, 128)):
        summer = weights._stored_summer(loaded, st, pad.hidden > 1 or pad.intermediate > 1)
        if summer is None:
            continue
        for par in (Parallel(), Parallel(tp=8, ep=8, attn_tp=1, lm_head_tp=1, embed_tp=1)):
            try:
                looped = weights._one_stage_sum(loaded, st.main, par, st.scheme, st.unq, pad,
                                                None)
            except ArithmeticError:
                continue
            got = summer(loaded, par, pad, st.scheme, st.unq, None)
            assert got == looped or (got != got and looped != looped), (par, pad)
