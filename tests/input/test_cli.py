"""parse_argv against SGLang's real parser (recorded) and against hand-made expectations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.errors import InputError
from launchplan.input.cli import parse_argv
from launchplan.input.fields import FIELDS

FIXTURES = json.loads((Path(__file__).parent / "data" / "argparse-fixtures.json").read_text())
CASES = FIXTURES["cases"]
BASELINE = FIXTURES["baseline"]


@pytest.fixture(scope="module")
def config_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("configs")
    for name, text in FIXTURES["configs"].items():
        (where / name).write_text(text)
    return where


def _same(a: object, b: object) -> bool:
    # JSON text compares types too (1 vs 1.0 vs True) and treats NaN as equal to itself
    return json.dumps(a) == json.dumps(b)


def test_recording_is_for_this_table() -> None:
    assert FIXTURES["sglang_version"] == "0.5.23"
    assert set(BASELINE) == set(FIELDS)
    assert len(CASES) > 1000


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['tag']}" for i, c in enumerate(CASES)])
def test_matches_real_parser(case: dict, config_dir: Path) -> None:
    argv = [a.replace("@DIR@", str(config_dir)) for a in case["argv"]]
    if case["ok"]:
        raw = parse_argv(argv)
        wrong = {}
        for name in FIELDS:
            expected = case["set"].get(name, BASELINE[name])
            if not _same(raw.get(name), expected):
                wrong[name] = (raw.get(name), expected)
        assert not wrong, f"(ours, SGLang's) differ for {argv}: {wrong}"
        if case["warned"]:
            assert raw.deprecations
    elif case.get("required"):
        # argparse reports the missing --model-path first; parse_argv leaves that to its caller
        try:
            raw = parse_argv(argv)
        except InputError:
            return
        assert not raw.explicit("model_path")
    else:
        with pytest.raises(InputError):
            parse_argv(argv)


# --- hand-made expectations ------------------------------------------------------------------

M = ["--model-path", "m"]


def _error(argv: list[str]) -> InputError:
    with pytest.raises(InputError) as err:
        parse_argv(argv)
    return err.value


def test_values_are_typed_and_explicit() -> None:
    raw = parse_argv(M + ["--tp", "2", "--page-size=16", "--enable-metrics",
                          "--mem-fraction-static", "0.8", "--context-length", "128k",
                          "--cuda-graph-bs-decode", "1", "2", "4"])
    assert raw.values == {"model_path": "m", "tp_size": 2, "page_size": 16,
                          "enable_metrics": True, "mem_fraction_static": 0.8,
                          "context_length": 128000, "cuda_graph_bs_decode": [1, 2, 4]}
    assert set(raw.origin.values()) == {"cli"}
    assert raw.explicit("page_size") and not raw.explicit("dp_size")
    assert raw.get("dp_size") == 1 and raw.get("attention_backend") is None
    assert raw.notices == [] and raw.deprecations == []


def test_model_path_is_not_required_here() -> None:
    raw = parse_argv(["--tp-size", "2"])
    assert not raw.explicit("model_path") and raw.get("model_path") is None
    assert parse_argv([]).values == {}


def test_aliases_and_unique_prefixes() -> None:
    assert parse_argv(["--model", "x"]).values == {"model_path": "x"}
    assert parse_argv(["--ep", "4"]).values == {"ep_size": 4}
    assert parse_argv(["--expert-parallel", "4"]).values == {"ep_size": 4}
    assert parse_argv(["--enable-hicach"]).values == {"enable_hierarchical_cache": True}
    assert parse_argv(["--fp8-gemm-backend", "cutlass"]).values == {
        "fp8_gemm_runner_backend": "cutlass"}


def test_ambiguous_prefix_names_candidates_and_wins_over_later_errors() -> None:
    err = _error(["--page-size", "abc", "--page", "4"])
    assert err.subject == "--page"
    assert "--page-size" in err.hint and "--paged-experts-num-resident" in err.hint


def test_boolean_optional_pairs() -> None:
    assert parse_argv(["--no-enable-tf32-matmul"]).values == {"enable_tf32_matmul": False}
    raw = parse_argv(["--no-dllm-fdfo", "--dllm-fdfo"])
    assert raw.values == {"dllm_fdfo": True}
    assert any("more than once" in n for n in raw.notices)


def test_later_occurrence_wins_with_a_notice() -> None:
    raw = parse_argv(["--page-size", "16", "--page-size", "32"])
    assert raw.get("page_size") == 32
    assert raw.notices == ["--page-size is set more than once; SGLang keeps the last value, 32"]
    assert parse_argv(["--page-size", "16", "--page-size", "16"]).notices == []


def test_deprecated_spellings() -> None:
    raw = parse_argv(["--disable-cuda-graph", "--enable-dp-attention"])
    assert raw.values == {"disable_cuda_graph": True, "enable_dp_attention": True}
    assert len(raw.deprecations) == 2
    assert "--cuda-graph-backend-decode disabled" in raw.deprecations[0]
    raw = parse_argv(["--monokernel-backend", "amd", "--monokernel-backend=amd"])
    assert raw.values == {"enable_amd_monokernel": True}
    assert raw.deprecations == ["--monokernel-backend is deprecated in SGLang 0.5.23: use "
                                "--enable-amd-monokernel"]
    for flag, field in [("--grpc-mode", "grpc_mode"),
                        ("--disable-fast-image-processor", "disable_fast_image_processor"),
                        ("--enable-flashinfer-allreduce-fusion",
                         "enable_flashinfer_allreduce_fusion")]:
        raw = parse_argv([flag])
        assert raw.values == {field: True}
        assert len(raw.deprecations) == 1 and raw.deprecations[0].startswith(flag)


def test_nargs_forms() -> None:
    assert parse_argv(["--model-checksum"]).values == {"model_checksum": ""}
    assert parse_argv(["--model-checksum", "abc"]).values == {"model_checksum": "abc"}
    assert parse_argv(["--lora-target-modules"]).values == {"lora_target_modules": []}
    assert parse_argv(["--lora-target-modules", "q_proj", "all"]).values == {
        "lora_target_modules": ["q_proj", "all"]}
    assert parse_argv(["--page-size=--"]).values == {"page_size": []}  # argparse's quirk
    assert _error(["--cuda-graph-bs-decode"]).expected == "at least one value after it"


def test_negative_numbers_are_values_but_exponents_are_not() -> None:
    assert parse_argv(["--page-size", "-5"]).values == {"page_size": -5}
    assert parse_argv(["--mem-fraction-static", "-.5"]).values == {"mem_fraction_static": -0.5}
    err = _error(["--mem-fraction-static", "-1e5"])
    assert "--mem-fraction-static=-1e5" in err.hint
    assert parse_argv(["--mem-fraction-static=-1e5"]).values == {"mem_fraction_static": -1e5}
    assert parse_argv(["--served-model-name", "-a b"]).values == {"served_model_name": "-a b"}


def test_lora_paths() -> None:
    raw = parse_argv(["--lora-paths", " a ", '{"lora_name": "n", "lora_path": "p"}', "x=y"])
    assert raw.values == {"lora_paths": ["a", {"lora_name": "n", "lora_path": "p"}, "x=y"]}
    assert "lora_path" in _error(["--lora-paths", '{"lora_name": "n"}']).expected
    assert _error(["--lora-paths", "{nope}"]).subject == "--lora-paths"


@pytest.mark.parametrize(("text", "value"), [
    ("128k", 128_000), ("1M", 1_000_000), ("1Ki", 1024), ("2Mi", 2 * 1024 ** 2),
    ("25.6k", 25_600), ("1.0005k", 1000), (" 64 ", 64), ("+5", 5), ("1_000", 1000),
    ("3Ti", 3 * 2 ** 40),
])
def test_human_readable_ints(text: str, value: int) -> None:
    assert parse_argv(["--context-length", text]).values == {"context_length": value}


@pytest.mark.parametrize("text", ["1.5Ki", "1K", "1kb", "-1k", "1e3", "abc", ""])
def test_human_readable_int_rejects(text: str) -> None:
    assert _error(["--context-length", text]).subject == "--context-length"


def test_json_list_type_is_strict_like_orjson() -> None:
    assert parse_argv(["--sidecar-args", '["a", 1]']).values == {"sidecar_args": ["a", 1]}
    assert parse_argv(["--sidecar-args", "18446744073709551616"]).values == {
        "sidecar_args": 1.8446744073709552e19}
    for bad in ["NaN", "[Infinity]", "1e400", '"\\ud800"', "[1,]"]:
        assert _error(["--sidecar-args", bad]).subject == "--sidecar-args"
    # plain json.loads fields accept what Python's json accepts
    raw = parse_argv(["--preferred-sampling-params", "NaN"])
    assert raw.values["preferred_sampling_params"] != raw.values["preferred_sampling_params"]


def test_cuda_graph_config_and_backends() -> None:
    raw = parse_argv(["--cuda-graph-config", '{"prefill": {"max_seq_len": 4096}}'])
    assert raw.values == {"cuda_graph_config": {"prefill": {"max_seq_len": 4096}}}
    assert _error(["--cuda-graph-config", '{"decode": {"max_seq_len": 1}}']).got == "max_seq_len"
    assert _error(["--cuda-graph-config", '{"verify": {}}']).got == "verify"
    assert "removed" in _error(["--cuda-graph-config",
                                '{"prefill": {"backend": "tc_piecewise"}}']).hint
    assert "removed" in _error(["--cuda-graph-backend-prefill", "tc_piecewise"]).hint
    assert _error(["--cuda-graph-backend-decode", "fulll"]).hint == "did you mean full?"


def test_nullable_str() -> None:
    assert parse_argv(["--quantization-param-path", "None"]).values == {
        "quantization_param_path": None}
    assert parse_argv(["--quantization-param-path", "p"]).values == {
        "quantization_param_path": "p"}


def test_error_messages_are_one_line_and_name_the_flag() -> None:
    assert str(_error(["--page-size", "abc"])) == "--page-size: expected an integer, got 'abc'"
    err = _error(["--pgae-size", "3"])
    assert str(err) == ("--pgae-size: expected a flag SGLang 0.5.23 accepts "
                        "(did you mean --page-size?)")
    err = _error(["--attention-backend", "fa5"])
    assert err.subject == "--attention-backend" and err.got == "fa5"
    assert "(25 choices)" in err.expected and err.hint == "did you mean fa4?"
    assert str(_error(["--dtype", "fp8"])) == (
        "--dtype: expected one of auto, half, float16, bfloat16, float, float32, got 'fp8'")
    assert _error(["--enable-metrics=1"]).expected == "no value (it is a switch)"
    assert _error(["--log-requests-level", "7"]).got == 7
    for argv in (["--page-size", "abc"], ["extra"], ["--mode", "x"], ["--", "x"]):
        assert "\n" not in str(_error(argv))


def test_a_family_name_is_answered_with_its_members() -> None:
    # vLLM's --kv-cache-dtype fp8 is closest in spelling to mxfp8, an unrelated format
    assert _error(["--kv-cache-dtype", "fp8"]).hint == "did you mean fp8_e5m2 or fp8_e4m3?"
    assert _error(["--moe-runner-backend", "flashinfer"]).hint == (
        "did you mean one of the 6 flashinfer_* choices?")
    assert _error(["--attention-backend", "fa5"]).hint == "did you mean fa4?"  # no family


@pytest.mark.parametrize("argv, hint", [
    (["--dtype", "fp16"], "did you mean float16?"),  # PyTorch's and vLLM's short names
    (["--dtype", "BF16"], "did you mean bfloat16?"),
    (["--attention-backend", "FLASH_ATTN"], "did you mean fa3 or fa4?"),  # vLLM's backend
    (["--attention-backend", "FLASHINFER"], "did you mean flashinfer, in lower case?"),
    (["--kv-cache-dtype", "fp8_e4m3fn"], "did you mean fp8_e4m3?"),  # torch's dtype name
])
def test_a_value_spelled_as_another_tool_spells_it_is_named(argv, hint) -> None:
    assert _error(argv).hint == hint


def test_positionals_are_errors_reported_after_value_errors() -> None:
    err = _error(["--page-size", "1", "2"])
    assert err.got == "2" and err.hint == "--page-size takes a single value"
    assert _error(["stray", "--page-size", "abc"]).subject == "--page-size"
    assert _error(["--enable-metrics", "true"]).hint == (
        "--enable-metrics is a switch and takes no value")
    assert "after '--'" in _error(["--", "--page-size", "4"]).hint


def test_help_is_not_a_plan() -> None:
    for argv in (["-h"], ["--help"], ["-hh"], ["--he"]):
        assert "usage" in _error(argv).hint
    assert _error(["-hx"]).expected == "no value (it is a switch)"


def test_log_level_must_be_a_logging_level() -> None:
    assert parse_argv(["--log-level", "WARN"]).values == {"log_level": "WARN"}
    assert _error(["--log-level", "loud"]).subject == "--log-level"
    assert _error(["--log-level", "basic_format"]).subject == "--log-level"


def test_radix_policy_typed_in_full_is_explicit() -> None:
    raw = parse_argv(["--radix-eviction-policy", "lfu"])
    assert raw.get("_radix_eviction_policy_explicitly_set") is True
    assert parse_argv(["--radix-eviction-policy=lru"]).explicit(
        "_radix_eviction_policy_explicitly_set")
    assert parse_argv([]).get("_radix_eviction_policy_explicitly_set") is False


def test_argv_must_be_a_sequence_of_text() -> None:
    with pytest.raises(TypeError):
        parse_argv("--tp 2")  # type: ignore[arg-type]
    assert _error(["--page-size", 4]).expected == "text arguments"  # type: ignore[list-item]


def test_keyword_path_takes_values_as_given() -> None:
    from launchplan.input.raw import RawInput

    raw = RawInput.from_fields({"tp_size": "2", "attention_backend": "not-a-choice",
                                "stat_loggers": {"x": int}})
    assert raw.values["tp_size"] == "2" and raw.get("attention_backend") == "not-a-choice"
    assert set(raw.origin.values()) == {"keyword"}
    assert raw.get("page_size") is None
    with pytest.raises(InputError) as err:
        RawInput.from_fields({"tp_sze": 2})
    assert err.value.hint == "did you mean tp_size?"
    with pytest.raises(InputError):
        RawInput.from_fields({"config": "x.yaml"})  # a CLI-only dest, not a field


def test_short_command_line_is_fast() -> None:
    import time

    argv = M + ["--tp-size", "2", "--page-size", "16", "--enable-metrics",
                "--mem-fraction-static", "0.8", "--attention-backend", "fa3"]
    parse_argv(argv)
    runs = 2000
    start = time.perf_counter()
    for _ in range(runs):
        parse_argv(argv)
    per_call = (time.perf_counter() - start) / runs
    assert per_call < 500e-6  # ~15 µs on a laptop; generous for slow CI


def test_the_token_oracle_variable_widens_the_sampling_backend_choices():
    argv = ["--sampling-backend", "token_oracle"]
    with pytest.raises(InputError):
        parse_argv(argv)
    with pytest.raises(InputError):
        parse_argv(argv, env={"SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE": "0"})
    for release in ("0.5.23", "0.5.22", "0.5.21"):
        raw = parse_argv(argv, release, env={"SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE": "y"})
        assert raw.values["sampling_backend"] == "token_oracle"
    # the wider surface is the parser's only change: other choices still hold
    with pytest.raises(InputError):
        parse_argv(["--sampling-backend", "nope"],
                   env={"SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE": "1"})
    assert parse_argv(["--sampling-backend", "pytorch"],
                      env={"SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE": "1"}).values[
        "sampling_backend"] == "pytorch"


def test_an_array_left_unexpanded_is_named_as_one(capsys):
    """``"${ARGS[@]}"`` stays as written when an item is known only at run time (an unquoted
    ``$IP`` that bash splits): the message says so, not that SGLang takes no positional
    arguments."""
    from launchplan.commands.main import main

    text = ('IP=$(hostname -i)\nARGS=(--model-path qwen3-8b --host $IP --tp 2)\n'
            'python -m sglang.launch_server "${ARGS[@]}"\n')
    assert main(["resolve", "--gpu", "h100", text]) == 2
    assert "an array whose items the pasted script only knows when it runs" in \
        capsys.readouterr().err
