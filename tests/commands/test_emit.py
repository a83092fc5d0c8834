"""--emit sglang: one pinned launch line that round-trips to the same plan."""

from __future__ import annotations

import shlex

import pytest

from launchplan.checks.effective import candidate_fields, config_hash
from launchplan.checks.idempotence import NON_IDEMPOTENT, differences
from launchplan.checks.space import Space, default_models
from launchplan.commands.main import main
from launchplan.emit import LAUNCHER, config_yaml, emitted_argv, sglang_command
from launchplan.errors import InputError, Refusal
from launchplan.facts.targets import SIMULATED
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


def test_emit_pins_the_value_aiter_scales_into_the_plan(capsys):
    # aiter multiplies even an explicit mem_fraction_static by 0.85: the line carries the
    # value SGLang turns into the planned one, so no note is needed
    plan = resolve([], gpu="mi300x", model_path="llama-3.1-8b")
    main(["resolve", "--gpu", "mi300x", "--model-path", "llama-3.1-8b", "--emit", "sglang"])
    out, err = capsys.readouterr()
    tokens = shlex.split(out)
    pinned = float(tokens[tokens.index("--mem-fraction-static") + 1])
    assert pinned != plan.value("mem_fraction_static")
    assert pinned * 0.85 == plan.value("mem_fraction_static")
    assert err == ""


def test_emit_pins_the_undivided_chunk_under_attention_dp(capsys):
    argv = ["--tp-size", "2", "--enable-dp-attention", "--dp-size", "2"]
    plan = resolve(argv, gpu="h100", model_path="llama-3.1-8b")
    main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b", *argv, "--emit", "sglang"])
    out, err = capsys.readouterr()
    tokens = shlex.split(out)
    chunk = int(tokens[tokens.index("--chunked-prefill-size") + 1])
    assert chunk // 2 == plan.value("chunked_prefill_size") and chunk != chunk // 2
    assert err == ""
    again = resolve(emitted_argv(plan), gpu="h100", model_path="llama-3.1-8b")
    assert config_hash(again) == config_hash(plan), differences(plan, again)


def test_the_yaml_file_round_trips_under_attention_dp(tmp_path):
    argv = ["--tp-size", "4", "--attn-dp-size", "4", "--enable-dp-lm-head"]
    plan = resolve(argv, gpu="h100", model_path="qwen3-30b-a3b")
    again = yaml_roundtrip(plan, tmp_path)
    assert config_hash(again) == config_hash(plan), differences(plan, again)


def test_a_note_for_one_cause_is_printed_once(capsys):
    # the 0.5.23 FA4 force on the default rules: one note naming 0.5.23
    main(["resolve", "--gpu", "b200", "--model-path", "llama-3.1-8b", "--attention-backend",
          "fa4", "--cuda-graph-backend-prefill", "full", "--emit", "sglang"])
    _, err = capsys.readouterr()
    notes = err.strip().splitlines()
    assert len(notes) == len(set(notes)) == 1, notes


def test_deepseek_on_b200_keeps_its_draft_quantization_out_of_the_plan():
    # the case: quantization fp8 comes from a model override; pinned, SGLang would
    # copy it into the draft's quantization, which has no effect without speculation
    first = resolve(["--tp-size", "8"], gpu="b200", model_path="deepseek-v3")
    second = resolve(emitted_argv(first), gpu="b200", model_path="deepseek-v3")
    assert second.value("speculative_draft_model_quantization") == "fp8"
    assert config_hash(first) == config_hash(second)
    mtp = ["--tp-size", "8", "--speculative-algorithm", "EAGLE"]
    first = resolve(mtp, gpu="b200", model_path="deepseek-v3")
    argv = emitted_argv(first)
    assert argv[argv.index("--speculative-draft-model-quantization") + 1] == "unquant"
    second = resolve(argv, gpu="b200", model_path="deepseek-v3")
    assert second.value("speculative_draft_model_quantization") is None
    assert config_hash(first) == config_hash(second)


def yaml_roundtrip(first, tmp_path, compat="default"):
    """Resolve the --emit yaml file (and the switches its first line keeps) again."""
    text = config_yaml(first)
    launch = shlex.split(text.splitlines()[0].lstrip("# "))
    path = tmp_path / "plan.yaml"
    path.write_text(text)
    argv = ["--config", str(path), *launch[launch.index("FILE.yaml") + 1:]]
    gpu, model = first.record.target.name, first.value("model_path")
    return resolve(argv, gpu=gpu, model_path=None if "--model-path" in argv else model,
                   compat=compat)


def test_emit_yaml_writes_a_config_file(capsys, tmp_path):
    code = main(["resolve", "--gpu", "b200", "--model-path", "deepseek-v3", "--tp-size", "8",
                 "--emit", "yaml"])
    out, _ = capsys.readouterr()
    assert code == 0 and out.startswith("# python -m sglang.launch_server --config FILE.yaml")
    import yaml

    data = yaml.safe_load(out)
    assert data["tp-size"] == 8 and data["page-size"] == 64
    assert data["cuda-graph-config"]["prefill"]["backend"] == "disabled"


def _bundled_launches():
    from launchplan.facts.models import bundled_models

    for gpu in SIMULATED:  # the further targets repeat these platforms
        for model in bundled_models():
            try:
                yield resolve([], gpu=gpu, model_path=model)
            except (Refusal, InputError):
                continue


def test_both_emit_forms_round_trip_on_every_bundled_model_and_target(tmp_path):
    checked = 0
    for first in _bundled_launches():
        gpu, model = first.record.target.name, first.value("model_path")
        second = resolve(emitted_argv(first), gpu=gpu, model_path=model)
        assert config_hash(second) == config_hash(first), (gpu, model, differences(first, second))
        third = yaml_roundtrip(first, tmp_path)
        assert config_hash(third) == config_hash(first), (gpu, model, differences(first, third))
        checked += 1
    assert checked > 150


@pytest.mark.parametrize("compat", ["default", "0.5.23"])
def test_both_emit_forms_round_trip_on_sampled_points_of_the_default_space(compat, tmp_path):
    points = Space(list(SIMULATED), default_models()).sample(150, seed=13)
    checked = 0
    for point in points:
        try:
            first = resolve(fields=point.as_dict(), gpu=point.gpu, model_path=point.model,
                            compat=compat)
        except (Refusal, InputError):
            continue
        second = resolve(emitted_argv(first), gpu=point.gpu, model_path=point.model,
                         compat=compat)
        assert config_hash(second) == config_hash(first), (point, differences(first, second))
        third = yaml_roundtrip(first, tmp_path, compat)
        assert config_hash(third) == config_hash(first), (point, differences(first, third))
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("compat", ["default", "0.5.23"])
def test_emitted_commands_round_trip_on_random_points(compat):
    points = Space(list(SIMULATED), default_models()).sample(150, seed=5)
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


@pytest.mark.parametrize("value", ["-1e+16", "-inf", "-0.5", "-3"])
def test_a_value_that_reads_as_a_flag_is_emitted_glued_to_its_flag(value):
    """argparse takes a token after a flag as its value only when it is no flag-like word: a
    plain negative number is, but ``-1e+16`` or ``-inf`` would be read as the next flag, so
    the emitted command writes ``--flag=VALUE`` for them and the launch parses back the same."""
    first = resolve([f"--schedule-conservativeness={value}"], gpu="h100",
                    model_path="llama-3.1-8b")
    argv = emitted_argv(first)
    glued = f"--schedule-conservativeness={first.value('schedule_conservativeness')}"
    assert (glued in argv) == value.startswith(("-1e", "-inf"))
    second = resolve(argv, gpu="h100", model_path="llama-3.1-8b")
    assert second.value("schedule_conservativeness") == first.value("schedule_conservativeness")


def test_a_derived_boundary_reduction_is_left_to_sglang_so_the_draft_keeps_its_own():
    """Qwen3 all-reduces at layer ends, its Llama EAGLE3 draft does not: with ``auto`` each
    keeps its own, while an explicit value would apply to both (the draft's has no flag). The
    emitted command leaves a derived value out; one the user gave stays."""
    fields = {"speculative_algorithm": "EAGLE3", "speculative_num_steps": 3,
              "speculative_draft_model_path": "llama-3.1-8b-eagle3",
              "speculative_eagle_topk": 1, "speculative_num_draft_tokens": 4}
    first = resolve(fields=fields, gpu="h200", model_path="qwen3-8b")
    assert (first.value("boundary_reduction"),
            first.value("speculative_boundary_reduction")) == ("ar", "rs+rsv")
    second = resolve(emitted_argv(first), gpu="h200", model_path="qwen3-8b")
    assert second.value("speculative_boundary_reduction") == "rs+rsv"
    given = resolve(["--boundary-reduction", "ar"], gpu="h200", model_path="qwen3-8b")
    assert "--boundary-reduction" in emitted_argv(given)


@pytest.mark.parametrize("compat", ["0.5.21", "0.5.22", "0.5.23"])
def test_attention_dp_survives_the_emitted_command_in_every_release(compat):
    """0.5.21 has no --attn-dp-size: its attention DP is --dp-size with --enable-dp-attention,
    which the emitted command must keep (it once dropped the switch as a folded spelling, so
    the pinned launch ran two plain replicas)."""
    first = resolve(["--tp-size", "2", "--dp-size", "2", "--enable-dp-attention"], gpu="h100",
                    model_path="llama-3.1-8b", compat=compat)
    second = resolve(emitted_argv(first), gpu="h100", model_path="llama-3.1-8b", compat=compat)
    assert second.value("attn_dp_size") == first.value("attn_dp_size") == 2
    assert config_hash(second) == config_hash(first)
