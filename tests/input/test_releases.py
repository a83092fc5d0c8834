"""Each shipped SGLang release has its own flag surface, read from its wheel's field table.

A flag that exists in only some releases is accepted exactly where that release's parser
accepts it and refused elsewhere with one line naming the flag and the release; defaults
that moved between releases start each resolution from that release's value; and an older
release's table is never read unless that release is chosen.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from launchplan.commands.main import main
from launchplan.commands.options import COMPAT_CHOICES
from launchplan.errors import InputError
from launchplan.input.cli import parse_argv
from launchplan.input.fields import RELEASES, release_table
from launchplan.planner import resolve
from launchplan.rulesets import RULESETS

BASE = ["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b"]


def test_the_compat_choices_are_the_rule_sets():
    assert COMPAT_CHOICES == tuple(RULESETS)
    assert {RULESETS[name].sglang for name in RULESETS} == set(RELEASES)


@pytest.mark.parametrize(("release", "count"), [("0.5.21", 519), ("0.5.22", 536),
                                                ("0.5.23", 546)])
def test_each_table_is_its_release(release, count):
    table = release_table(release)
    assert table.version == release and len(table.fields) == count
    assert table.cli_only_dests == ("config",)


@pytest.mark.parametrize(("flag", "has"), [
    # added in 0.5.23
    ("--enable-paged-experts", {"0.5.23"}),
    ("--enable-hicache", {"0.5.23"}),  # an alias 0.5.23 added to --enable-hierarchical-cache
    ("--no-enable-tf32-matmul", {"0.5.23"}),  # store-true became --x/--no-x
    ("--monokernel-backend", {"0.5.23"}),
    # added in 0.5.22
    ("--enable-kv-cache-sharding", {"0.5.22", "0.5.23"}),
    ("--attn-dp-size", {"0.5.22", "0.5.23"}),
    # removed
    ("--speculative-skip-dp-mlp-sync", {"0.5.21", "0.5.22"}),
    ("--cuda-graph-tc-compiler", {"0.5.21"}),
])
def test_a_flag_exists_only_where_its_release_has_it(flag, has):
    for release in RELEASES:
        argv = [flag] + (["amd"] if flag == "--monokernel-backend" else [])
        argv += ["eager"] if flag == "--cuda-graph-tc-compiler" else []
        argv += ["2"] if flag == "--attn-dp-size" else []
        if release in has:
            parse_argv(argv, release)
        else:
            with pytest.raises(InputError) as err:
                parse_argv(argv, release)
            message = str(err.value)
            assert flag in message and f"SGLang {release}" in message, message


def test_the_refusal_names_a_release_that_has_the_flag():
    with pytest.raises(InputError) as err:
        parse_argv(["--enable-paged-experts"], "0.5.22")
    assert "SGLang 0.5.23" in str(err.value)
    with pytest.raises(InputError) as err:
        parse_argv(["--speculative-skip-dp-mlp-sync"])
    assert "SGLang 0.5.22" in str(err.value)


def test_choices_follow_the_release():
    parse_argv(["--moe-runner-backend", "lora_triton"])
    with pytest.raises(InputError, match="--moe-runner-backend"):
        parse_argv(["--moe-runner-backend", "lora_triton"], "0.5.22")
    # 0.5.21 still lists tc_piecewise as a graph backend choice; later releases refuse it
    assert parse_argv(["--cuda-graph-backend-decode", "tc_piecewise"], "0.5.21").values == {
        "cuda_graph_backend_decode": "tc_piecewise"}
    with pytest.raises(InputError):
        parse_argv(["--cuda-graph-backend-decode", "tc_piecewise"], "0.5.22")


@pytest.mark.parametrize("setting", [{"backend": "tc_piecewise"}, {"tc_compiler": "inductor"}])
def test_graph_config_json_follows_the_release(setting):
    # --cuda-graph-config's backends and keys per phase are each wheel's (cuda_graph_phases)
    text = json.dumps({"prefill": setting})
    raw = parse_argv(["--cuda-graph-config", text], "0.5.21")
    assert raw.values == {"cuda_graph_config": {"prefill": setting}}
    for release in ("0.5.22", "0.5.23"):
        with pytest.raises(InputError, match="removed"):
            parse_argv(["--cuda-graph-config", text], release)
    assert release_table("0.5.23").graph_phases["prefill"][0] == ("full", "breakable",
                                                                   "disabled")


def test_unique_prefixes_are_those_of_the_release():
    # argparse takes unique prefixes of the release's own spellings: "--enable-hic" is a
    # prefix of 0.5.23's --enable-hicache alone, and of nothing in 0.5.22
    raw = parse_argv(["--enable-hierarchical"], "0.5.22")
    assert raw.values == {"enable_hierarchical_cache": True}
    with pytest.raises(InputError, match="--enable-hic"):
        parse_argv(["--enable-hic"], "0.5.22")
    assert parse_argv(["--enable-hic"]).values == {"enable_hierarchical_cache": True}


def test_keyword_fields_are_checked_against_the_release():
    resolve(fields={"enable_paged_experts": True}, gpu="h100", model_path="llama-3.1-8b")
    with pytest.raises(InputError) as err:
        resolve(fields={"enable_paged_experts": True}, gpu="h100",
                model_path="llama-3.1-8b", compat="0.5.22")
    assert "enable_paged_experts" in str(err.value) and "0.5.22" in str(err.value)


@pytest.mark.parametrize(("field", "values"), [
    ("file_storage_path", {"0.5.21": "sglang_storage", "0.5.22": None, "0.5.23": None}),
    ("disaggregation_decode_host_receive_threshold",
     {"0.5.21": 0.0, "0.5.22": 1.0, "0.5.23": 1.0}),
])
def test_defaults_follow_the_release(field, values):
    for release, want in values.items():
        result = resolve(gpu="h100", model_path="llama-3.1-8b", compat=release)
        assert result.value(field) == want
        assert result.source(field) == "default"


def test_the_plan_lists_the_release_fields_only():
    assert len(resolve(gpu="h100", model_path="llama-3.1-8b", compat="0.5.22").resolved()) == 536
    assert "speculative_skip_dp_mlp_sync" in resolve(
        gpu="h100", model_path="llama-3.1-8b", compat="0.5.21").resolved()


def test_cli_refuses_a_missing_flag_in_one_line(capsys):
    code = main([*BASE, "--compat", "0.5.22", "--enable-paged-experts"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "--enable-paged-experts" in err and "0.5.22" in err
    assert main([*BASE, "--compat", "0.5.23", "--enable-paged-experts",
                 "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["compat"] == "0.5.23"


def test_a_config_file_is_read_against_the_release(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text("enable-paged-experts: true\n")
    assert main([*BASE, "--compat", "0.5.22", "--config", str(path)]) == 2
    assert "0.5.22" in capsys.readouterr().err


def test_older_tables_load_only_when_chosen():
    code = (
        "import launchplan.input.fields as f, launchplan.input.cli as c\n"
        "from launchplan.planner import resolve\n"
        "resolve(['--tp-size', '2'], gpu='h100', model_path='llama-3.1-8b')\n"
        "assert set(f._TABLES) <= {'0.5.23'}, f._TABLES\n"
        "assert set(c._SURFACES) == {'0.5.23'}, c._SURFACES\n"
        "resolve(['--tp-size', '2'], gpu='h100', model_path='llama-3.1-8b', compat='0.5.22')\n"
        "assert set(f._TABLES) == {'0.5.22'} | (set(f._TABLES) & {'0.5.23'}), f._TABLES\n"
        "assert '0.5.21' not in f._TABLES\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("release", ["0.5.21", "0.5.22"])
def test_the_pinned_command_is_spelled_for_its_release(release):
    from launchplan.emit import emitted_argv

    plan = resolve(["--tp-size", "8", "--enable-dp-attention", "--dp-size", "8"], gpu="b200",
                   model_path="deepseek-v3", compat=release)
    argv = emitted_argv(plan)
    again = resolve(argv, gpu="b200", compat=release)  # parsed by the release's own surface
    assert again.value("cuda_graph_config") == plan.value("cuda_graph_config")
    assert again.value("mem_fraction_static") == plan.value("mem_fraction_static")
