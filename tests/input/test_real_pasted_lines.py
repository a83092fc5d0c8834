"""Real launch lines, scripts, manifests and notebook cells from public sources, pasted as
they were written (tests/input/data/pasted_lines.json: each with its source, the GPU target
and, where its model is not bundled, the bundled model given after it).

Every entry must give its recorded exit code (0 a plan, 2 bad input naming the flag, 3 an
SGLang refusal), never 1; a planned entry's launch words and environment are pinned too,
as the shell would run them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import launch_count, unpaste

LINES = json.loads((Path(__file__).parent / "data" / "pasted_lines.json").read_text())


def _by_source(fragment: str) -> dict:
    found = [e for e in LINES if fragment in e["source"]]
    assert found, fragment
    return found[0]


def test_the_set_is_real_and_varied():
    assert len(LINES) >= 170
    assert all(e["source"] and e["text"] and e["exit"] in (0, 2, 3) for e in LINES)
    assert len({e["text"] for e in LINES}) == len(LINES)
    kinds = {"docker run": 0, "sglang serve": 0, "sgl.Engine": 0, "kind: ": 0, "export ": 0,
             "--nnodes": 0, "--disaggregation-mode": 0, "--speculative-": 0, "deepep": 0,
             "SGLANG_USE_AITER": 0, "${": 0, "\\\n": 0, "--config": 0,
             "sglang_router.launch_server": 0, "GLM-5": 0, "Kimi-K2.5": 0, "Qwen3.5": 0,
             "DeepSeek-V3.2": 0, "DeepSeek-V4": 0, "gpt-oss": 0, "Llama-4": 0,
             " `\n": 0, "$env:": 0, "kind: RoleBasedGroup": 0, "kind: ServingRuntime": 0,
             "commands:": 0, "entrypoint:": 0, "```": 0, "\n> ": 0, "ssh ": 0, "uv run": 0,
             "$((": 0, "$SLURM_NODEID": 0, " ^\n": 0, "@serve": 0, "MiniMax-M2": 0,
             "Nemotron-3": 0, "Qwen3.6": 0, 'f"python -m sglang': 0, "\n    ! python": 0,
             "<< EOF": 0, "````diff": 0, "@app.cell": 0, "root@": 0,
             "sglang_router.launch_router": 0, "envs:": 0, "server_args=ServerArgs(": 0,
             ".env(": 0, "--json-model-override-args": 0, "--lora-paths": 0, "eval ": 0,
             "apptainer exec": 0, "--is-embedding": 0, "ExecStart=": 0, "[Container]": 0,
             "engine_kwargs": 0, "SGLangAppEnvironment(": 0, "for RANK in": 0, "cmd +=": 0,
             "=$(echo serve": 0, "HIP_VISIBLE_DEVICES": 0, "#SBATCH": 0, "<details>": 0,
             "| kubectl apply -f -": 0, "leaderWorkerPattern": 0, "sudo docker run": 0,
             "--container-image=": 0, "env=env": 0, '"${!': 0, "theme={": 0,
             "editor-title": 0, "--kt-method": 0, "start_command:": 0, "--setenv ": 0,
             '"SM_SGLANG_': 0, "deep-learning-containers/sglang:server": 0,
             'ENTRYPOINT ["python3"': 0, "!nohup ": 0, "screen -dmS": 0,
             '"containerDefinitions"': 0, "--entrypoint sglang": 0, "GLM-5.3": 0,
             ':?Set': 0, "<<: *": 0, "docker_container:": 0, "runs-on:": 0,
             "bash < $JOB_SCRIPT": 0, "=($nodes)": 0, "SessionExecuteRequest(": 0,
             "kubectl run ": 0, "tmux send-keys": 0, "setsid python3": 0,
             "os.environ.setdefault(": 0, "image: vastai/sglang": 0,
             '"module": "sglang.launch_server"': 0, "server_args=server_args": 0,
             "set -gx ": 0, "/bin/sglang serve": 0, "from sglang.srt.server import Runtime": 0,
             "[program:sglang]": 0, "$(or $(": 0, "# /// script": 0,
             "bash -lc \"\n": 0, "uv run --python": 0,
             "just uvx-sgl": 0, "[]string{": 0, "cmd_parts = [": 0,
             "modelCommand: custom": 0, "disaggregation.mini_lb": 0,
             'exec = ["-m"': 0, "<code>python": 0, "' -- \\\n": 0,
             "--entrypoint /work/": 0, "$CTR run ": 0, "${EXTRA_ARGS:-}": 0,
             "\n|\n||\n": 0, "  sglang_config:\n": 0, "--model-impl atom": 0,
             "sgl-omni serve": 0, "kind: InferenceService": 0, "/h/u/# export": 0,
             "uv run python -m sgl_jax": 0}
    for e in LINES:
        for kind in kinds:
            kinds[kind] += kind in e["text"]
    assert all(kinds.values()), kinds


@pytest.mark.parametrize("entry", LINES, ids=[f"{n}" for n in range(len(LINES))])
def test_each_real_line_gives_its_exit_code(entry, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a Hub id that is not bundled stays unknown
    argv = ["resolve", "--gpu", entry["gpu"], entry["text"]]
    if "model" in entry:
        argv += ["--model-path", entry["model"]]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == entry["exit"], err
    assert "Traceback" not in err
    if code:
        first = err.strip().splitlines()[0]
        assert first.startswith("launchplan: ") and entry["error_names"] in first
    else:
        assert unpaste([entry["text"]]) == (entry["argv"], entry["env"])


def test_a_comment_that_ends_in_a_backslash_does_not_swallow_the_launch():
    # the first line is a commented-out variable with a trailing backslash: in the shell it
    # stays a comment, and the assignments and launch on the next lines still run
    entry = _by_source("Alpamayo")
    argv, env = unpaste([entry["text"]])
    assert argv[:2] == ["--model-path", "/data/models/Alpamayo-R1-10B-Origin"]
    assert "--attention-backend" in argv and "--skip-server-warmup" not in argv
    assert env == ["FLASHINFER_DISABLE_VERSION_CHECK=1", "CUDA_VISIBLE_DEVICES=4"]


def test_the_variables_a_script_sets_are_expanded_in_its_launch():
    argv, env = unpaste([_by_source("Qwen3.5-397B GPTQ")["text"]])
    assert argv[:2] == ["--model-path", "Qwen/Qwen3.5-397B-A17B-GPTQ-Int4"]
    assert argv[argv.index("--tp-size") + 1] == "2"
    assert env == ["SGLANG_USE_AITER=1"]  # set, not exported: not the launch's environment
    argv, env = unpaste([_by_source("issues/10001")["text"]])
    assert argv[argv.index("--disaggregation-mode") + 1] == "decode"
    assert argv[argv.index("--dist-init-addr") + 1] == "10.160.1.22:5000"
    assert argv[1] == "${MODEL}"  # the script never sets it


def test_exported_values_are_expanded_and_kept_as_the_environment():
    argv, env = unpaste([_by_source("hip-attention")["text"]])
    assert argv[argv.index("--port") + 1] == "8921"
    assert argv[argv.index("--model-path") + 1] == (
        "ibnzterrell/Meta-Llama-3.3-70B-Instruct-AWQ-INT4")
    assert "CHUNK_SIZE=32768" in env and env[-2:] == ["HIP_HEAD_REDUCE=2", "PASSKEY_LEN=1000"]


def test_a_default_in_a_reference_is_taken_when_the_script_leaves_the_name_unset():
    argv, _ = unpaste(["TP=4\npython3 -m sglang.launch_server --model-path m "
                       "--tp ${TP:-8} --port ${PORT:-30000} --host ${HOST}"])
    assert argv == ["--model-path", "m", "--tp", "4", "--port", "30000", "--host", "${HOST}"]


def test_a_value_left_as_a_shell_reference_is_reported_as_one(capsys):
    entry = _by_source("AMD GSM8K")
    assert main(["resolve", "--gpu", "mi300x", entry["text"], "--model-path", "qwen3-8b"]) == 2
    err = capsys.readouterr().err
    assert "--tp-size: expected an integer, got '${TP}'" in err
    assert "shell variable" in err


def test_a_launch_held_in_a_python_string_is_read():
    argv, _ = unpaste([_by_source("openai_api_completions")["text"]])
    # the docs' patched helper appends its small-server flags after the command
    assert argv == ["--model-path", "meta-llama/Meta-Llama-3.1-8B-Instruct", "--host", "0.0.0.0",
                    "--log-level", "warning", "--max-running-requests", "128",
                    "--max-total-tokens", "20480", "--disable-cuda-graph",
                    "--cuda-graph-max-bs-decode", "4"]
    popen = ('import subprocess\nproc = subprocess.Popen(["python3", "-m", '
             '"sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--tp", "2"])\n')
    assert unpaste([popen]) == (["--model-path", "Qwen/Qwen3-8B", "--tp", "2"], [])


def test_a_whole_dockerfile_pastes_as_its_cmd_and_env():
    argv, env = unpaste([_by_source("RubricLab")["text"]])
    assert argv == ["--model-path", "Qwen/Qwen3-8B", "--host", "0.0.0.0", "--port", "8000",
                    "--grammar-backend", "llguidance"]
    assert env == ["HF_TOKEN="]
    shell_form = ("FROM lmsysorg/sglang:latest\nENV SGLANG_X 1\n"
                  "CMD python3 -m sglang.launch_server --model-path m --tp 2\n")
    assert unpaste([shell_form]) == (["--model-path", "m", "--tp", "2"], ["SGLANG_X=1"])


def test_sglang_serve_reads_a_positional_model_and_its_backend_choice(capsys):
    assert unpaste(["sglang serve Qwen/Qwen3-8B --tp 2"])[0] == [
        "--model-path", "Qwen/Qwen3-8B", "--tp", "2"]
    assert unpaste(["sglang serve --model-type llm Qwen/Qwen3-8B"])[0] == [
        "--model-path", "Qwen/Qwen3-8B"]
    assert main(["resolve", "--gpu", "h100",
                 "sglang serve --model-type=diffusion --model-path qwen3-8b"]) == 2
    assert "--model-type: expected auto or llm" in capsys.readouterr().err


def test_sglang_launch_server_is_refused_as_sglangs_console_script_refuses_it(capsys):
    # the console script's subcommands are serve, generate and version (cli/main.py, 0.5.21
    # to 0.5.23): argparse stops `sglang launch_server` before any flag is read
    for text in ("sglang launch_server --model-path llama-3.1-8b --tp 2",
                 "/opt/venv/bin/sglang launch_server --model-path llama-3.1-8b"):
        assert main(["resolve", "--gpu", "h100", text]) == 2
        err = capsys.readouterr().err
        assert "launch_server: expected a subcommand of SGLang's console script" in err
        assert err.count("\n") == 1
    assert main(["resolve", "--gpu", "h100", "--format", "json",
                 "python -m sglang.launch_server --model-path llama-3.1-8b"]) == 0
    capsys.readouterr()


def test_sglang_serve_needs_the_model_on_its_own_command_line(tmp_path, capsys):
    # SGLang's serve command (0.5.21 to 0.5.23, cli/serve.py) looks for --model-path/--model
    # or a positional model before its parser runs, so a model set only in --config, or
    # behind an abbreviation argparse would expand, stops it (sgl-project/sglang#36105);
    # python -m sglang.launch_server reads the same config and starts
    config = tmp_path / "serve.yaml"
    config.write_text("model-path: llama-3.1-8b\ntp-size: 2\n")
    assert main(["resolve", "--gpu", "h100", f"sglang serve --config {config}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("launchplan: --model-path: expected the model on `sglang serve`")
    assert f"it does not look in --config {config}" in err and err.count("\n") == 1
    assert main(["resolve", "--gpu", "h100", "sglang serve --tp 2 --model-pa llama-3.1-8b"]) == 2
    assert "got none:" in capsys.readouterr().err
    assert main(["resolve", "--gpu", "h100", "--format", "json",
                 f"python -m sglang.launch_server --config {config}"]) == 0
    capsys.readouterr()
    assert unpaste(["sglang serve llama-3.1-8b"])[0] == ["--model-path", "llama-3.1-8b"]
    assert unpaste(["sglang serve --model=m --tp 2"])[0] == ["--model=m", "--tp", "2"]
    assert unpaste(["sglang serve --tp 2 --model m"])[0] == ["--tp", "2", "--model", "m"]
    # a model given after the paste, as launchplan's messages suggest, completes the line
    assert main(["resolve", "--gpu", "h100", "sglang serve --tp 2",
                 "--model-path", "llama-3.1-8b"]) == 0


def test_the_router_launcher_plans_one_of_its_workers():
    # its --dp-size counts SGLang servers, each started with --dp-size 1 (the router
    # launcher's launch_server_process): one worker's flags are planned
    notes: list[str] = []
    argv, env = unpaste([_by_source("evalhub")["text"]], notes=notes)
    assert argv == ["--model-path", "$HOME/models/DeepSeek-R1-Distill-Qwen-1.5B",
                    "--context-length", "32768", "--port", "30000"]
    assert len(notes) == 1 and "--dp-size 8 starts 8 separate SGLang servers" in notes[0]
    argv, _ = unpaste([_by_source("delphi")["text"]])  # in a docstring, behind `uv run`
    assert "--dp-size" not in argv and "--tensor-parallel-size=2" in argv
    assert unpaste(["python -m sglang_router.launch_server --model-path m --dp=4 --tp 2"]) == (
        ["--model-path", "m", "--tp", "2"], [])


def test_the_router_launchers_dp_is_explained_as_workers_not_attention_dp(capsys):
    entry = _by_source("verl GenRM")
    assert main(["resolve", "--gpu", "h100", entry["text"], "--model-path", "qwen2.5-0.5b",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    note = next(w for w in data["warnings"] if "sglang_router.launch_server" in w)
    assert "starts 4 separate SGLang servers" in note and "--attn-dp-size" in note
    assert data["resolved"]["dp_size"] == 1


@pytest.mark.parametrize("flag, names", [
    ("--max-model-len", "--max-model-len is a vLLM flag: use --context-length N"),
    ("--max_model_len", "use --context-length N"),
    ("--gpu-memory-utilization", "use --mem-fraction-static F"),
    ("--enable-prefix-caching", "SGLang needs none"),
    ("--mem_fraction_static", "written with dashes: --mem-fraction-static"),
    # one dash (``-dp 4`` in an issue): SGLang has no short options, argparse refuses it
    ("-dp", "written with two dashes: --dp"),
    ("-mem-fraction-static", "written with two dashes: --mem-fraction-static"),
    # SGLang Diffusion's own (a FLUX sglang serve line in issue 19104)
    ("--text-encoder-cpu-offload", "a flag of SGLang Diffusion's server"),
    ("--ulysses-degree", "a flag of SGLang Diffusion's server"),
])
def test_a_flag_of_another_spelling_names_sglangs(flag, names, capsys):
    assert main(["resolve", "--gpu", "h100", "--model-path", "qwen3-8b", flag, "1"]) == 2
    assert names in capsys.readouterr().err


def test_migrate_keeps_a_pasted_lines_environment_in_front(capsys):
    entry = _by_source("issues/16026")
    assert main(["migrate", "--to", "0.5.23", "--gpu", "h100", entry["text"],
                 "--model-path", "deepseek-v3"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("no_proxy='*' SGLANG_TORCH_PROFILER_DIR=./ python -m "
                           "sglang.launch_server ")
    assert "--cuda-graph-max-bs-decode 64" in line


@pytest.mark.parametrize("line, names", [
    ("python3 -m sglang.launch_server —model-path qwen3-8b", "(U+2014)"),
    ("python3 -m sglang.launch_server --model-path qwen3-8b –-tp 2", "write --tp"),
    ("python3 -m sglang.launch_server --model-path qwen3-8b --tp “2”", "typographic quotes"),
])
def test_typographic_dashes_and_quotes_are_named(line, names, capsys):
    assert main(["resolve", "--gpu", "h100", line]) == 2
    assert names in capsys.readouterr().err


def test_a_space_after_a_continuation_backslash_is_named(capsys):
    line = "python3 -m sglang.launch_server --model-path qwen3-8b \\ \n  --tp 2"
    assert main(["resolve", "--gpu", "h100", line]) == 2
    assert "remove the space after the backslash" in capsys.readouterr().err


def test_a_paste_with_several_launches_lists_them_and_plans_the_first(capsys):
    entry = _by_source("issues/3467")  # node 1's and node 2's commands
    assert main(["resolve", "--gpu", "h100", entry["text"], "--model-path", "llama-3.1-70b",
                 "--format", "json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert any("holds 2 launch commands: [1] --node-rank 0 --port 3000 --dist-init-addr" in w
               and "launch 1 is planned (--launch N plans another)" in w for w in warnings)
    single = _by_source("issues/9590")
    assert main(["resolve", "--gpu", "h20", single["text"], "--model-path", "deepseek-v3",
                 "--format", "json"]) == 0
    assert not any("launch commands" in w for w in json.loads(capsys.readouterr().out)[
        "warnings"])


@pytest.mark.parametrize("path", ["“qwen3-8b”", "‘qwen3-8b’", "„qwen3-8b“", "”qwen3-8b”",
                                  "«qwen3-8b»"])
def test_a_model_path_in_typographic_quotes_is_read_as_the_path(path, capsys):
    line = f"python3 -m sglang.launch_server --model-path {path} --tp 1"
    assert main(["resolve", "--gpu", "h100", line, "--emit", "sglang"]) == 0
    out, err = capsys.readouterr()
    assert "--model-path qwen3-8b " in out and path not in out
    assert main(["resolve", "--gpu", "h100", line, "--format", "json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert any(f"--model-path {path} is wrapped in typographic quotes" in w
               and "planned as qwen3-8b" in w for w in warnings)


def test_a_model_path_with_one_typographic_quote_is_named_in_the_error(capsys):
    line = "python3 -m sglang.launch_server --model-path “/models/my-own-model"
    assert main(["resolve", "--gpu", "h100", line]) == 2
    err = capsys.readouterr().err
    assert err.startswith("launchplan: --model-path: expected a folder")
    assert "typographic quotes" in err and err.count("\n") == 1


PD_PAIR = ("# prefill\n"
           "python -m sglang.launch_server --model-path qwen3-8b --disaggregation-mode prefill "
           "--port 30000 &\n"
           "# decode\n"
           "CUDA_VISIBLE_DEVICES=1 python -m sglang.launch_server --model-path qwen3-8b "
           "--disaggregation-mode decode --port 30001 &\n"
           "python -m sglang_router.launch_router --pd-disaggregation "
           "--prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001\n")


def test_launch_picks_one_launch_of_several(capsys):
    assert unpaste([PD_PAIR], launch=2) == (
        ["--model-path", "qwen3-8b", "--disaggregation-mode", "decode", "--port", "30001"],
        ["CUDA_VISIBLE_DEVICES=1"])
    for chosen, mode in (("1", "prefill"), ("2", "decode")):
        assert main(["resolve", "--gpu", "h100", PD_PAIR, "--launch", chosen,
                     "--format", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["resolved"]["disaggregation_mode"] == mode
        note = next(w for w in data["warnings"] if "launch commands" in w)
        assert ("[1] --disaggregation-mode prefill --port 30000, [2] --disaggregation-mode "
                "decode --port 30001") in note and f"launch {chosen} is planned" in note


def test_one_line_with_two_background_launches_counts_two():
    line = ("python -m sglang.launch_server --model-path m --port 1 & "
            "python -m sglang.launch_server --model-path m --port 2 &")
    assert launch_count([line]) == 2
    assert unpaste([line], launch=2)[0] == ["--model-path", "m", "--port", "2"]


@pytest.mark.parametrize("extra, names", [
    (["--launch", "3"], "--launch: expected 1 to 2 (the pasted text holds 2 launch commands)"),
    (["--launch=0"], "--launch: expected 1 to 2"),
    (["--launch", "two"], "--launch: expected an integer"),
    (["--launch"], "--launch: expected a value"),
])
def test_a_launch_out_of_range_is_named(extra, names, capsys):
    assert main(["resolve", "--gpu", "h100", PD_PAIR, *extra]) == 2
    assert capsys.readouterr().err.startswith(f"launchplan: {names}")


def test_launch_without_a_pasted_text_is_named(capsys):
    assert main(["resolve", "--gpu", "h100", "--model-path", "qwen3-8b", "--launch", "2"]) == 2
    assert "--launch: expected a pasted launch text" in capsys.readouterr().err


def test_a_required_variable_the_script_leaves_to_the_caller_stays_a_reference():
    # ${NAME:?message}: the shell stops unless the caller's environment sets NAME
    argv, _ = unpaste([_by_source("586355895")["text"]])
    assert argv[argv.index("--dist-init-addr") + 1] == "${DIST_INIT_ADDR}"
    assert argv[argv.index("--nnodes") + 1] == "2"  # ${NNODES:-2}
    from launchplan.input.shell_vars import expand

    assert expand("${A:+on}${B:+off}", {"A": "1"}) == "on"
    assert expand("${B:=7}", {}) == "7"


def test_flags_on_lines_after_a_missing_backslash_are_named_not_planned(capsys):
    entry = _by_source("gpustack/gpustack/pull/4022")
    notes: list[str] = []
    argv, _ = unpaste([entry["text"]], notes=notes)
    assert "--reasoning-parser" not in argv  # the shell ends the launch at that line
    assert len(notes) == 1 and "does not end in a backslash" in notes[0]
    assert "(--reasoning-parser deepseek-v3 --tool-call-parser deepseekv32)" in notes[0]
    assert main(["resolve", "--gpu", "h200", entry["text"], "--model-path", "deepseek-v3",
                 "--format", "json"]) == 0
    assert any("does not end in a backslash" in w
               for w in json.loads(capsys.readouterr().out)["warnings"])
    whole = "python3 -m sglang.launch_server --model-path m --tp 2\n\necho done\n"
    notes = []
    assert unpaste([whole], notes=notes)[0] == ["--model-path", "m", "--tp", "2"] and not notes


def test_a_flag_wrapped_across_two_lines_is_read_whole():
    entry = _by_source("sglang/pull/18389")  # "--chunked-prefill-" / "size 131072 ..."
    notes: list[str] = []
    argv, _ = unpaste([entry["text"]], notes=notes)
    assert argv[argv.index("--chunked-prefill-size") + 1] == "131072"
    assert "--disaggregation-transfer-backend" in argv  # the rest of the wrapped line too
    assert any("read as --chunked-prefill-size" in n for n in notes)
    # a dash that ends a value or a comment is not a broken flag
    argv, _ = unpaste(["python -m sglang.launch_server --model-path m-\nsize 2"])
    assert argv == ["--model-path", "m-"]


def test_the_new_models_lines_with_renamed_flags_name_the_new_spelling(capsys):
    for fragment, new in (("issues/28431", "use --mamba-radix-cache-strategy"),
                          ("GLM-5-FP8)", "use --dsa-prefill-backend"),
                          # a no-op since 0.5.13: nothing to use instead
                          ("40325693943", "no replacement: drop it")):
        entry = _by_source(fragment)
        argv = ["resolve", "--gpu", entry["gpu"], entry["text"]]
        argv += ["--model-path", entry["model"]] if "model" in entry else []
        assert main(argv) == 2
        assert new in capsys.readouterr().err


def test_a_launch_inside_markdown_inline_code_is_read_from_the_code():
    argv, _ = unpaste([_by_source("31177646277")["text"]])  # "e.g.`python -m ...`"
    assert argv == ["--model-path", "meta-llama/Llama-4-Scout-17B-16E-Instruct", "--tp", "8",
                    "--context-length", "65536"]
    assert unpaste(["run ``python -m sglang.launch_server --model-path m --tp 2`` here"])[0] == [
        "--model-path", "m", "--tp", "2"]


def test_each_launch_of_a_real_pd_script_is_listed_and_can_be_planned(capsys):
    entry = _by_source("Mooncake, DeepSeek multi-node")  # prefill 0/1, decode 0/1
    assert launch_count([entry["text"]]) == 4
    assert main(["resolve", "--gpu", "h100", entry["text"], "--model-path", "deepseek-v3",
                 "--launch", "3", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["resolved"]["disaggregation_mode"] == "decode"
    assert data["resolved"]["max_running_requests"] == 128
    note = next(w for w in data["warnings"] if "launch commands" in w)
    assert "[1] --disaggregation-mode prefill --node-rank 0" in note
    assert "[4] --disaggregation-mode decode --node-rank 1" in note
    assert "launch 3 is planned (--launch 3)" in note


def test_a_scripts_interpreter_variable_and_flag_variable_are_read_as_the_shell_does(capsys):
    # CUDA_VISIBLE_DEVICES=$DECODE_GPUS $PYTHON -m sglang.launch_server ...; the prefill
    # launch ends in an unquoted $PREFILL_EXTRA holding four flags
    text = _by_source("LAPS PD leak")["text"]
    argv, env = unpaste([text])
    assert env == ["CUDA_VISIBLE_DEVICES=1"]
    assert argv[argv.index("--disaggregation-mode") + 1] == "decode"
    argv, env = unpaste([text], launch=2)
    assert env == ["CUDA_VISIBLE_DEVICES=0"]
    assert argv[-5:] == ["--enable-piecewise-cuda-graph", "--enable-batch-prefill-cuda-graph",
                         "--enable-laps-scheduler", "--laps-length-threshold", "256"]
    assert main(["resolve", "--gpu", "h100", text, "--model-path", "qwen2.5-7b",
                 "--launch", "2"]) == 2
    err = capsys.readouterr().err  # a no-op since 0.5.13: the default prefill graph applies
    assert "--enable-piecewise-cuda-graph" in err and "no replacement: drop it" in err
    # a quoted value that is one word stays one word
    assert unpaste(['P="/my models/x"\npython -m sglang.launch_server --model-path $P'])[0] == [
        "--model-path", "/my models/x"]


def test_a_real_powershell_launch_is_read_as_windows_runs_it():
    argv, env = unpaste([_by_source("66046137957")["text"]])  # param() defaults, $env:
    assert argv[:6] == ["--model-path", "Qwen/Qwen2.5-0.5B-Instruct", "--host", "0.0.0.0",
                        "--port", "30000"]
    assert env == ["HF_ENDPOINT=https://hf-mirror.com"]  # PYTHONPATH is computed: left out
    argv, _ = unpaste([_by_source("54627205538")["text"]])
    assert argv[:2] == ["--model-path", "G:\\你的BARD模型目录"]  # the backslash is kept


def test_real_rolebasedgroup_roles_are_two_launches(capsys):
    entry = _by_source("sgl-project/rbg")
    assert main(["resolve", "--gpu", "h100", entry["text"], "--model-path", entry["model"],
                 "--launch", "2", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["resolved"]["disaggregation_mode"] == "decode"
    assert data["target"]["gpu_count"] == 1  # the decode container's nvidia.com/gpu limit


def test_real_launches_in_markup_quotes_and_config_text_are_found():
    argv, env = unpaste([_by_source("60410968983")["text"]])  # a Markdown blockquote
    assert argv[:4] == ["--model-path", "zai-org/GLM-5.1-FP8", "--tp", "8"]
    assert env == ["SGLANG_ENABLE_SPEC_V2=1"]
    argv, env = unpaste([_by_source("issues/5873")["text"]])  # ssh host "... && ( ... )"
    assert argv[argv.index("--disaggregation-mode") + 1] == "prefill"
    assert env[0] == "CUDA_VISIBLE_DEVICES=0,1,2,3"
    argv, _ = unpaste([_by_source("1274879981")["text"]])  # $(...) kept whole
    assert argv[argv.index("--dist-init-addr") + 1] == (
        "$(echo $SLURM_JOB_NODELIST | cut -d',' -f1):5000")
    assert unpaste([_by_source("55587791167")["text"]])[1] == [
        "FLASHINFER_WORKSPACE_SIZE=4294967296"]  # $((4 << 30))


def test_the_cold_start_screen_lets_every_real_paste_through():
    """``split_argv`` loads the paste readers only when its cheap screen says a token may
    be pasted; the screen must never turn away what ``looks_pasted`` would take."""
    from launchplan.commands.options import _may_be_pasted
    from launchplan.input.pasted import looks_pasted

    texts = [[e["text"]] for e in LINES]
    tokens = [[t] for e in LINES for t in e.get("argv", [])]
    assert sum(looks_pasted(t) for t in texts) > 100
    for argv in (*texts, *tokens):
        assert _may_be_pasted(argv) or not looks_pasted(argv), argv


def test_a_launch_gathered_by_echo_into_an_array_is_read():
    # the cookbook's DeepSeek-V3.2 two-node script: sglang_args=$(echo serve ...) over lines,
    # sglang_args=($sglang_args), sglang "${sglang_args[@]}" | tee (was: "it runs serve")
    argv, env = unpaste([_by_source("DeepSeek-V3.2 DP2 + MTP")["text"]])
    assert argv[:4] == ["--model-path", "$MAPPED_MODEL_PATH", "--nccl-init",
                        "$MASTER_ADDR:$MASTER_PORT"]
    assert argv[-2:] == ["--served-model-name", "DeepSeek-V3.2-Opt-dp2-mtp"]
    assert env == ["SGLANG_DEEPEP_LL_COMBINE_SEND_NUM_SMS=32", "SGLANG_SET_CPU_AFFINITY=1"]


def test_a_commented_continuation_and_a_placeholder_address_are_read_as_the_shell_reads():
    # Hygon's DeepSeek-V4-Flash pages: ``... expert_distribution.pt  \ #note`` ends the
    # command with the word " #note"; ``--dist-init-addr "<D_node_ip>:<D_dist_port>"`` keeps
    # its value (was: dropped, --tp read in its place)
    argv, _ = unpaste([_by_source("backslash is followed by a space")["text"]])
    assert argv[-3:] == ["--init-expert-location", "/xxx/expert_distribution.pt",
                         " #见上述EPLB配置参考"]
    argv, _ = unpaste([_by_source("placeholders in angle brackets")["text"]])
    assert argv[argv.index("--dist-init-addr") + 1] == "<D_node_ip>:<D_dist_port>"


def test_the_environment_reaches_a_launch_through_the_runner_that_hands_it_to_a_shell():
    # the Slurm job exports on the host; srun (with a Pyxis container) keeps them for the
    # bash -c that runs the launch
    _, env = unpaste([_by_source("66797474526")["text"]])
    assert "SGLANG_JIT_DEEPGEMM_FAST_WARMUP=true" in env and "HF_HUB_OFFLINE=1" in env
    # docker run's -e options are the environment of the bash -c inside the container
    _, env = unpaste([_by_source("57819142593")["text"]])
    assert env[:2] == ["HIP_VISIBLE_DEVICES=4,5", "CUDA_VISIBLE_DEVICES=4,5"]
    assert "SGLANG_USE_AITER=1" in env
    # the sbatch script's exports reach the sglang serve among the commands of srun's bash -c
    _, env = unpaste([_by_source("multi-node sbatch tab")["text"]])
    assert "PORT=30000" in env and "HF_HOME=/scratch/data/.cache" in env
    # a Python script's env = os.environ.copy() with an item set, passed to Popen(env=env)
    assert unpaste([_by_source("35313449463")["text"]])[1] == ["CUDA_VISIBLE_DEVICES=0"]


def test_a_docker_bash_c_launch_gets_the_scripts_arrays_and_e_values_expanded():
    # GLM-5.2 control arm: ``-e SGLANG_DP_USE_GATHERV="$DPA"`` of DPA=0 and an empty
    # ``${DP_ARGS[*]}`` inside ``--entrypoint bash IMAGE -c "..."``: the outer shell expands
    # both before the container starts (was: '$DPA', and '${DP_ARGS[*]}' a stray word)
    argv, env = unpaste([_by_source("62183647265")["text"]])
    assert argv[-2:] == ["--watchdog-timeout", "3600"] and "--dp-size" not in argv
    assert "SGLANG_DP_USE_GATHERV=0" in env and env[0] == "SGLANG_USE_AITER=1"


def test_flags_a_python_test_class_lists_are_no_launch(capsys):
    # SGLang's CI and manual tests keep a server's flags in a class's list, one a line
    for source in ("54491298065", "56116453573"):
        entry = _by_source(source)
        assert main(["resolve", "--gpu", entry["gpu"], entry["text"]]) == 2
        err = capsys.readouterr().err
        assert err.startswith("launchplan: the pasted text: expected an SGLang launch")
        assert "got a Python program in which launchplan finds none" in err
        assert err.count("\n") == 1


def test_a_loop_over_an_arrays_indices_is_read_at_its_first_run():
    argv, env = unpaste([_by_source("57406039107")["text"]])
    assert argv[argv.index("--port") + 1] == "30000" and env == ["CUDA_VISIBLE_DEVICES=0"]


def test_a_slurm_head_address_from_an_array_of_a_commands_output_stays_open():
    # the sbatch array job's head node is ${nodes_array[0]} of nodes_array=($nodes), nodes
    # being scontrol's output: the address keeps the expansion (was: "$(scontrol", the
    # command's first word taken for the array's first item)
    argv, _ = unpaste([_by_source("49646002361")["text"]])
    assert argv[argv.index("--dist-init-addr") + 1] == (
        '$(srun --nodes=1 --ntasks=1 -w "${nodes_array[0]}" hostname --ip-address):5000')


@pytest.mark.parametrize("text, argv", [
    # ${EXTRA_ARGS:-} at a launcher's end (serve_opd32b.sh): unset, the shell passes no word
    ("python -m sglang.launch_server --model-path m --tp 2 ${EXTRA_ARGS:-}",
     ["--model-path", "m", "--tp", "2"]),
    ("python -m sglang.launch_server --model-path m ${EXTRA:-} --tp 2",
     ["--model-path", "m", "--tp", "2"]),
    # a default or alternative that holds flags is split at its spaces, as $EXTRA would be
    ("python -m sglang.launch_server --model-path m ${EXTRA:---tp 2 --dp 2}",
     ["--model-path", "m", "--tp", "2", "--dp", "2"]),
    ("FP8=1\npython -m sglang.launch_server --model-path m ${FP8:+--kv-cache-dtype fp8_e4m3}",
     ["--model-path", "m", "--kv-cache-dtype", "fp8_e4m3"]),
    ("python -m sglang.launch_server --model-path m ${FP8:+--kv-cache-dtype fp8_e4m3} --tp 2",
     ["--model-path", "m", "--tp", "2"]),
    # a value that is not flags stays one word, as a path with a space would
    ("python -m sglang.launch_server --model-path ${MODEL:-/models/my model}",
     ["--model-path", "/models/my model"]),
])
def test_a_whole_word_expansion_with_an_operator_splits_as_a_bare_reference(text, argv):
    assert unpaste([text])[0] == argv


@pytest.mark.parametrize("tail", ["…", "...", "[...]"])
def test_an_ellipsis_where_flags_go_is_named_as_elided_text(tail, capsys):
    # a diligence note's compose line ends in `--tp 8 …`: the writer left the rest out
    line = f"sglang serve --model-path qwen3-8b --tp 8 {tail}"
    assert main(["resolve", "--gpu", "h100", line]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"launchplan: command line: expected flags and their values, got "
                          f"{tail!r}")
    assert "an ellipsis where flags go" in err and err.count("\n") == 1


@pytest.mark.parametrize("script", [
    # containerd's docker-compatible client: its run takes docker's -e/--env options
    "nerdctl run --rm --gpus all -e NCCL_TIMEOUT=1800 img {launch}",
    # the runner named by a variable the script sets (a p5en smoke-test script's $CTR)
    'CTR="${{CONTAINER_RUNTIME:-nerdctl}}"\n'
    "$CTR run --rm --gpus all -e NCCL_TIMEOUT=1800 img {launch}",
    "RUNTIME=docker\n${{RUNTIME}} run --gpus all -e NCCL_TIMEOUT=1800 img {launch}",
])
def test_a_runner_by_another_name_or_in_a_variable_passes_its_env_options(script):
    launch = "python3 -m sglang.launch_server --model-path m --tp-size 8"
    text = script.format(launch=launch)
    assert unpaste([text]) == (["--model-path", "m", "--tp-size", "8"], ["NCCL_TIMEOUT=1800"])


def test_a_command_substitution_is_named_as_one_launchplan_does_not_run(capsys):
    # serve_opd32b.sh: CG_BS_DECODE="$(for b in ...; done)" then --cuda-graph-bs-decode
    # $CG_BS_DECODE; the script sets it, by a command the reader does not run
    entry = _by_source("55672387397")
    assert main(["resolve", "--gpu", entry["gpu"], entry["text"],
                 "--model-path", entry["model"]]) == 2
    err = capsys.readouterr().err
    assert err.startswith("launchplan: --cuda-graph-bs-decode: expected an integer")
    assert "a command substitution launchplan does not run" in err
    assert "leaves open" not in err and err.count("\n") == 1
    # a variable left unset keeps its own hint
    assert main(["resolve", "--gpu", "h100", "python -m sglang.launch_server "
                 "--model-path qwen3-8b --tp ${TP}"]) == 2
    assert "variable or expression the pasted text leaves open" in capsys.readouterr().err
