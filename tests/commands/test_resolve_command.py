"""``launchplan resolve``: JSON shape, table, exit codes, one-line errors, --strict, --compat."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from launchplan.commands.main import main
from launchplan.facts.targets import CATALOG

BASE = ["resolve", "--gpu", "b200", "--model-path", "llama-3.1-8b"]


def run_cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_json_plan_has_every_part(capsys):
    code, out, err = run_cli([*BASE, "--attention-backend", "fa4", "--page-size", "16",
                              "--format", "json"], capsys)
    assert code == 0, err
    plan = json.loads(out)
    assert set(plan) >= {"resolved", "declarations", "overrides_of_input", "normalizations",
                         "warnings", "target", "model", "compat"}
    resolved = plan["resolved"]
    assert len(resolved) == 546
    assert resolved["page_size"] == 128
    assert resolved["model_path"] == "llama-3.1-8b"
    assert resolved["random_seed"] is None
    assert set(resolved["cuda_graph_config"]) == {"decode", "prefill"}
    assert {"backend", "max_bs", "bs"} <= set(resolved["cuda_graph_config"]["decode"])
    assert plan["overrides_of_input"][0]["source"] == "fa4_page_constraint"
    assert plan["target"]["name"] == "b200" and plan["compat"] == "default"
    assert all(set(d) == {"source", "fields"} for d in plan["declarations"])


def test_table_names_the_rule(capsys):
    code, out, _ = run_cli([*BASE, "--attention-backend", "fa4"], capsys)
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("page_size"))
    assert "128" in line and "fa4_page_constraint" in line


def test_refusal_exits_3_with_partial_json(capsys):
    code, out, err = run_cli(["resolve", "--gpu", "a100", "--model-path", "llama-3.1-8b",
                              "--attention-backend", "trtllm_mha", "--format", "json"], capsys)
    assert code == 3
    assert err.count("\n") == 1 and "trtllm_mha_platform_checks" in err
    plan = json.loads(out)
    assert plan["error"]["source"] == "trtllm_mha_platform_checks"
    assert plan["resolved"]["attention_backend"] == "trtllm_mha"


@pytest.mark.parametrize(("argv", "needle"), [
    (["--attention-backend", "fa5"], "--attention-backend"),
    (["--page-sise", "16"], "did you mean --page-size"),
    (["--page-size", "abc"], "--page-size"),
])
def test_bad_input_is_one_line_exit_2_no_json(argv, needle, capsys):
    code, out, err = run_cli([*BASE, *argv, "--format", "json"], capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and needle in err


@pytest.mark.parametrize("model", ["none", "dummy", "no-such-model"])
def test_model_less_or_missing_model_is_bad_input(model, capsys):
    code, _, err = run_cli(["resolve", "--gpu", "b200", "--model-path", model], capsys)
    assert code == 2 and "config.json" in err and err.count("\n") == 1


def test_unknown_gpu_suggests(capsys):
    code, _, err = run_cli(["resolve", "--gpu", "b20", "--model-path", "llama-3.1-8b"], capsys)
    assert code == 2 and "b200" in err


def test_strict_refuses_overrides_and_says_how_to_avoid(capsys):
    code, _, err = run_cli([*BASE, "--attention-backend", "fa4", "--page-size", "16",
                            "--strict"], capsys)
    assert code == 3
    assert "page_size" in err and "fa4_page_constraint" in err
    assert "--cuda-graph-backend-prefill full" in err


def test_strict_without_overrides_is_a_plan(capsys):
    code, _, _ = run_cli([*BASE, "--attention-backend", "fa4", "--page-size", "128",
                          "--strict"], capsys)
    assert code == 0


def test_compat_changes_the_fa4_full_prefill_case(capsys):
    argv = [*BASE, "--attention-backend", "fa4", "--cuda-graph-backend-prefill", "full",
            "--format", "json"]
    _, out, _ = run_cli(argv, capsys)
    assert json.loads(out)["resolved"]["page_size"] == 1
    _, out, _ = run_cli([*argv, "--compat", "0.5.23"], capsys)
    assert json.loads(out)["resolved"]["page_size"] == 128


def test_gpu_fact_overrides(capsys):
    _, out, _ = run_cli([*BASE, "--gpu-memory-mib", "40000", "--format", "json"], capsys)
    plan = json.loads(out)
    assert plan["resolved"]["chunked_prefill_size"] == 4096
    _, out, _ = run_cli(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                         "--cuda-version", "12.2", "--format", "json"], capsys)
    assert json.loads(out)["resolved"]["attention_backend"] == "flashinfer"  # not SM90+12.3


def test_the_host_s_infiniband_devices_check_a_mooncake_launch(capsys):
    argv = ["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b", "--disaggregation-mode",
            "prefill", "--disaggregation-ib-device", "mlx5_1, mlx5_0,mlx5_1"]
    code, out, _ = run_cli([*argv, "--format", "json"], capsys)
    assert code == 0 and json.loads(out)["resolved"]["disaggregation_ib_device"] == \
        "mlx5_1,mlx5_0"
    code, out, _ = run_cli([*argv, "--host-ib-devices", "mlx5_0,mlx5_1"], capsys)
    assert code == 0
    code, _, err = run_cli([*argv, "--host-ib-devices", "mlx5_0"], capsys)
    assert code == 3 and "mlx5_1" in err and "lacks" in err
    code, _, err = run_cli([*argv, "--host-ib-devices", "none"], capsys)
    assert code == 3 and "no InfiniBand" in err
    code, _, err = run_cli([*argv, "--host-ib-devices", ","], capsys)
    assert code == 2 and err.count("\n") == 1 and "--host-ib-devices" in err


def test_console_script_runs():
    proc = subprocess.run([sys.executable, "-m", "launchplan.commands.main", "targets"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and "b200" in proc.stdout


def test_targets_and_models_lists(capsys):
    code, out, _ = run_cli(["targets", "--format", "json"], capsys)
    listed = json.loads(out)
    assert code == 0 and [t["name"] for t in listed] == list(CATALOG) and len(listed) == 29
    assert {"h20", "l40s", "rtx4090", "gb10"} <= {t["name"] for t in listed}
    code, out, _ = run_cli(["models"], capsys)
    assert code == 0 and "deepseek-v3" in out and "MLA" in out


def test_config_hash_is_stable_and_ignores_spelling(capsys):
    def plan_hash(argv):
        code, out, _ = run_cli([*BASE, *argv, "--format", "json"], capsys)
        assert code == 0
        return json.loads(out)["config_hash"]

    base = plan_hash(["--attention-backend", "fa4"])
    assert base == plan_hash(["--attention-backend", "fa4"])
    assert base == plan_hash(["--attention-backend", "fa4", "--page-size", "16"])  # forced 128
    assert base != plan_hash(["--attention-backend", "trtllm_mha"])
    assert plan_hash(["--cuda-graph-backend-prefill", "disabled"]) == plan_hash(
        ["--disable-prefill-cuda-graph"])


def test_python_dash_m_runs_the_commands():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "launchplan", "resolve", "--gpu", "b200",
                           "--model-path", "llama-3.1-8b", "--format", "json"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and json.loads(done.stdout)["target"]["name"] == "b200"
    bad = subprocess.run([sys.executable, "-m", "launchplan", "resolve", "--gpu", "nope"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_a_lone_dash_reads_the_pasted_text_from_standard_input(capsys, monkeypatch):
    import io

    page = "We'll start it:\n\n```bash\n" + "# padding\n" * 20000 + (
        "python -m sglang.launch_server --model-path qwen3-8b --tp 2\n```\n")
    assert len(page) > 128 << 10  # more than one argument may hold
    monkeypatch.setattr("sys.stdin", io.StringIO(page))
    assert main(["resolve", "-", "--gpu", "h100", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["resolved"]["tp_size"] == 2
    monkeypatch.setattr("sys.stdin", io.StringIO("  \n"))
    assert main(["resolve", "--gpu", "h100", "-"]) == 2
    assert "-: expected a pasted launch on standard input" in capsys.readouterr().err


def test_a_dash_with_no_text_piped_in_is_one_line_of_bad_input(capsys, monkeypatch):
    class Terminal:
        def isatty(self) -> bool:
            return True

    class Captured:
        def isatty(self) -> bool:
            return False

        def read(self, size: int = -1) -> str:
            raise OSError("reading from stdin while output is captured")

    for stdin, got in ((Terminal(), "got 'a terminal'"), (None, "got 'no standard input'"),
                       (Captured(), "got 'an unreadable standard input'")):
        monkeypatch.setattr("sys.stdin", stdin)
        assert main(["resolve", "-", "--gpu", "h100"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and got in err
