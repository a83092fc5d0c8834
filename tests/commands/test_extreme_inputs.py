"""Regressions of issue 15 (and the no-crash part of issue 9): each input that once crashed,
hung or wrote invalid JSON, through the command entry point.

What SGLang 0.5.23 resolves for these lines is recorded in the parity suite ``extreme``;
here the commands must answer with a documented exit code, valid JSON, and no structure
proportional to the number given.
"""

from __future__ import annotations

import json

import pytest

from launchplan.checks.bounds import oversized
from launchplan.commands.main import main
from launchplan.planner import resolve
from launchplan.rules.size_lists import SizeList
from tests.properties.test_no_crash import strict_json

LLAMA = ["--gpu", "h100", "--model-path", "llama-3.1-8b"]
HUGE_DECODE = ["--gpu", "rtx5090", "--model-path", "llama-3.1-8b",
               "--cuda-graph-max-bs-decode", "2147483648"]


def run_cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def assert_no_crash(code: int, err: str) -> None:
    assert code in (0, 2, 3), err
    assert "internal error" not in err and "failed:" not in err and "Traceback" not in err


@pytest.mark.parametrize("command", [
    ["resolve", *LLAMA, "--format", "json"],
    ["explain", "page_size", *LLAMA, "--format", "json"],
    ["sweep", *LLAMA, "--axis", "attention_backend=fa3,triton", "--format", "json"],
])
@pytest.mark.parametrize("flags", [["--page-size", "0"], ["--nnodes", "0"]])
def test_zero_page_size_and_zero_nodes_warn_instead_of_dividing(command, flags, capsys):
    if command[0] == "sweep":  # sweep takes SGLang fields as axes
        flags = ["--axis", f"{flags[0][2:].replace('-', '_')}={flags[1]}"]
    code, out, err = run_cli([*command, *flags], capsys)
    assert_no_crash(code, err)
    assert code == 0
    plan = strict_json(out)
    if command[0] == "resolve":  # said as a launcher warning, or as a preflight problem
        said = plan["warnings"] + [json.dumps(p) for p in
                                   plan.get("preflight", {}).get("problems", [])]
        assert any("divides by zero" in w or flags[0][2:] in w.replace("_", "-")
                   for w in said), said


def test_zero_page_size_is_a_launcher_refusal_under_strict(capsys):
    code, _, err = run_cli(["resolve", *LLAMA, "--page-size", "0", "--strict"], capsys)
    assert code == 3 and "page_size 0" in err


@pytest.mark.parametrize("value, written", [("nan", "nan"), ("inf", "inf"), ("-inf", "-inf")])
def test_non_finite_floats_are_written_as_strings(value, written, capsys):
    code, out, err = run_cli(["resolve", *LLAMA, f"--mem-fraction-static={value}",
                              "--format", "json"], capsys)
    assert code == 0, err
    assert strict_json(out)["resolved"]["mem_fraction_static"] == written


def test_non_finite_floats_in_explain_and_emit(capsys):
    code, out, err = run_cli(["explain", "mem_fraction_static", *LLAMA,
                              "--mem-fraction-static", "nan", "--format", "json"], capsys)
    assert code == 0, err
    assert "nan" in json.dumps(strict_json(out))
    code, out, err = run_cli(["resolve", *LLAMA, "--schedule-conservativeness", "inf",
                              "--emit", "sglang"], capsys)
    assert code == 0 and "--schedule-conservativeness inf" in out, err


def test_a_two_billion_decode_batch_is_described_not_built(capsys):
    code, out, err = run_cli(["resolve", *HUGE_DECODE, "--format", "json"], capsys)
    assert code == 0, err
    assert len(out) < 200_000  # the plan, not 67 million sizes
    plan = strict_json(out)
    decode = plan["resolved"]["cuda_graph_config"]["decode"]
    assert decode["max_bs"] == 2147483648
    assert decode["bs"]["length"] == 67_108_900
    assert decode["bs"]["range"] == {"start": 512, "stop": 2147483680, "step": 32}
    assert plan["resolved"]["mem_fraction_static"] == pytest.approx(-131718.4)  # as SGLang
    assert any("67,108,900 sizes" in w for w in plan["warnings"])


def test_oversized_names_the_described_list():
    result = resolve(HUGE_DECODE[4:], gpu="rtx5090", model_path="llama-3.1-8b")
    sizes = result.value("cuda_graph_config")["decode"]["bs"]
    assert isinstance(sizes, SizeList) and sizes.last() == 2147483648
    [entry] = oversized(result)
    assert entry.field == "cuda_graph_config.decode.bs" and entry.value == 2147483648
    assert "67,108,900" in entry.bounded and "decode" in entry.why
    assert oversized(resolve([], gpu="h100", model_path="llama-3.1-8b")) == []


@pytest.mark.parametrize("argv", [
    ["--cuda-graph-max-bs-decode", "9223372036854775808"],
    ["--cuda-graph-max-bs-prefill", "9223372036854775808"],
    ["--chunked-prefill-size", "9223372036854775808"],
    ["--cuda-graph-max-bs-decode", "1" + "0" * 40, "--disable-cuda-graph-padding"],
    ["--attn-dp-size", "2", "--chunked-prefill-size", "9223372036854775808"],
])
def test_sizes_beyond_64_bits_answer(argv, capsys):
    for command in (["resolve", *LLAMA, *argv, "--format", "json"],
                    ["explain", "--all", *LLAMA, *argv, "--format", "json"]):
        code, out, err = run_cli(command, capsys)
        assert_no_crash(code, err)
        if out:
            strict_json(out)


def test_emit_pins_max_bs_and_leaves_the_described_list_to_sglang(capsys):
    code, out, err = run_cli(["resolve", *HUGE_DECODE, "--emit", "sglang"], capsys)
    assert code == 0, err
    config = json.loads(out.split("--cuda-graph-config ")[1].split("' ")[0].strip("'"))
    assert config["decode"]["max_bs"] == 2147483648 and "bs" not in config["decode"]
    assert "bs" in config["prefill"]  # a short list is still pinned
    assert "would still change" not in err  # SGLang regenerates the same list


@pytest.mark.parametrize("config, message", [
    ('{"decode": {"bs": []}}', "empty sequence"),
    ('{"decode": {"max_bs": 1e308}}', "float"),
    ('{"prefill": {"max_bs": 100.5}}', "float"),
    ('{"prefill": {"max_context_size": Infinity}}', "max context inf"),
    ('{"prefill": {"max_context_size": NaN}}', "max context nan"),
])
def test_graph_sizes_sglang_cannot_build_are_refused(config, message, capsys):
    """SGLang 0.5.23 raises on each of these during resolution (recorded with the oracle)."""
    code, out, err = run_cli(["resolve", *LLAMA, "--cuda-graph-config", config,
                              "--format", "json"], capsys)
    assert code == 3 and message in err, err
    strict_json(out)


@pytest.mark.parametrize("flags", [["--dcp-size", "0"], ["--dcp-size", "-1"],
                                   ["--mm-preprocess-cache-size-mb", "-1"],
                                   ["--asr-max-buffer-seconds", "0"]])
def test_sglang_value_checks_refuse(flags, capsys):
    code, _, err = run_cli(["resolve", *LLAMA, *flags], capsys)
    assert code == 3, err


def test_the_encoding_writes_non_finite_numbers_as_strings_everywhere():
    from launchplan import encoding
    from launchplan.rules.graph_config import decode_sizes

    nan, inf = float("nan"), float("inf")
    data = {"a": nan, "b": [inf, -inf, (1.5, nan)], "c": {nan: {1, 2}}, "d": 1e308,
            "e": decode_sizes(2**31, speculative=False, no_padding=False)}
    parsed = strict_json(encoding.dumps(data, sort_keys=True))
    assert parsed["a"] == "nan" and parsed["b"] == ["inf", "-inf", [1.5, "nan"]]
    assert parsed["c"] == {"nan": [1, 2]} and parsed["d"] == 1e308
    assert parsed["e"]["length"] == 67_108_900
    assert encoding.dumps({"x": 1.0}) == json.dumps({"x": 1.0})  # the common case unchanged


def test_emit_notes_name_structured_keys_once_and_shortly(capsys):
    code = main(["resolve", "--gpu", "h200", "--model-path", "gpt-oss-20b", "--enable-waterfill",
                 "--emit", "sglang"])
    _, err = capsys.readouterr()
    assert code == 0 and "internal error" not in err
    assert all(len(line) < 400 for line in err.splitlines())
