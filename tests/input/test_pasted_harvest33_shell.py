"""Shell forms a harvest of real launch texts found misread (h7: H7, H5, H2): a launch a
script only prints, a usage check before the launch, and the "no launch" line for a command
run through a wrapper. Each test fails without its fix."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.pasted import launch_count, looks_pasted, unpaste

LAUNCH = "python -m sglang.launch_server --model-path qwen3-8b --tp 2"
ARGV = ["--model-path", "qwen3-8b", "--tp", "2"]


def _error(text: str, capsys) -> str:
    """The one line ``resolve`` prints for ``text``, which it refuses (exit 2)."""
    assert main(["resolve", "--gpu", "h100", text]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize("text", [
    f'echo "{LAUNCH}"',
    f'echo "Start the server with:"\necho "  {LAUNCH}"',
    f"echo Start it with: {LAUNCH}",
    f'if [ -f x ]; then\n  echo "   ${{P}}{LAUNCH}"\nfi',
    f'printf "{LAUNCH}\\n"',
    f"echo '{LAUNCH}' >> README.md",
    f'echo "{LAUNCH}" > run.sh\ncat run.sh',
    f"ssh node1 \"echo '{LAUNCH}'\""])
def test_a_launch_a_shell_script_only_prints_starts_nothing(text, capsys):
    """``echo``/``printf`` print a command, as Python's print does: a setup script's "start
    the server with: ..." hint is no launch (a Korean installer printing its usage, find_string
    id 22832513922); printf's ``\\n`` never became a ``2n`` TP size."""
    err = _error(text, capsys)
    assert "got none: the script only prints an SGLang command (line" in err
    assert "which starts nothing" in err


def test_the_only_prints_line_names_the_lines_that_print():
    text = f'set -e\necho "done"\necho "  {LAUNCH}"\n'
    with pytest.raises(InputError) as caught:
        unpaste([text])
    assert "(line 3)" in caught.value.message


@pytest.mark.parametrize("text", [
    f'echo "{LAUNCH}" | bash',
    f"printf '{LAUNCH}\\n' | sh",
    f'printf "%s\\n" "{LAUNCH}" | sudo bash -s',
    f'eval "$(echo {LAUNCH})"',
    f'echo "{LAUNCH}" > run.sh\nbash run.sh',
    f'echo "{LAUNCH}" > run.sh\nchmod +x run.sh\n./run.sh',
    f'echo "{LAUNCH}" | tee /etc/run.sh\nsh /etc/run.sh',
    f'echo "{LAUNCH}" > run.sh && source run.sh',
    f"docker run --gpus all img bash -c 'echo \"{LAUNCH}\" > /r.sh && bash /r.sh'"])
def test_a_printed_launch_the_shell_then_runs_is_the_launch(text):
    """What a shell reads from a pipe, or a file the printed text went into that the script
    then runs, is started: those stay launches."""
    assert unpaste([text]) == (ARGV, [])
    assert launch_count([text]) == 1


def test_a_script_printed_line_by_line_into_a_file_is_run_with_its_exports():
    text = ("echo '#!/bin/bash' > /opt/run.sh\n"
            "echo 'export SGLANG_X=1' >> /opt/run.sh\n"
            f"echo '{LAUNCH} --port 30001' >> /opt/run.sh\n"
            "chmod +x /opt/run.sh\nnohup /opt/run.sh > /tmp/s.log 2>&1 &\n")
    assert unpaste([text]) == ([*ARGV, "--port", "30001"], ["SGLANG_X=1"])
    escaped = f'echo -e "export A=1\\n{LAUNCH}" > run.sh && bash run.sh'
    assert unpaste([escaped]) == (ARGV, ["A=1"])


def test_a_printed_hint_beside_the_real_launch_leaves_the_launch():
    text = f'echo "Start: {LAUNCH}"\n{LAUNCH} --port 1\n'
    assert unpaste([text]) == ([*ARGV, "--port", "1"], [])
    assert launch_count([text]) == 1


@pytest.mark.parametrize("check", [
    "python -m sglang.launch_server --help",
    "python -m sglang.launch_server --help | grep nixl",
    "python3 -m sglang.launch_server --help > sglang-launch-help.txt",
    "sglang serve -h"])
def test_a_usage_check_before_the_launch_is_no_launch(check):
    """A launcher asked for ``--help`` prints its usage and exits, starting no server: the
    launch after it is the text's (a Chinese production-parameter page, find_string id
    57451117166)."""
    for launch in (LAUNCH, "sglang serve --model-path qwen3-8b --tp 2"):
        text = f"{check}\n{launch}\n"
        assert unpaste([text])[0] == ARGV
        assert launch_count([text]) == 1


def test_a_usage_check_alone_is_still_reported_as_asking_for_the_help(capsys):
    err = _error("python -m sglang.launch_server --help | grep nixl\nnvidia-smi", capsys)
    assert "--help" in err and "usage" in err


VLLM = "vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8001"
ROUTER = "python -m sglang_router.launch_router --worker-urls http://a:1 --port 8000"


@pytest.mark.parametrize("text", [
    f"read -r -d '' serve_cmd << EOF\n{VLLM}\nEOF\neval \"${{serve_cmd}}\"\n",
    f'CMD="{VLLM}"\n$CMD\n',
    f"nohup {VLLM} &", f'bash -c "{VLLM}"', f'ssh node1 "{VLLM}"', f'eval "{VLLM}"',
    f"sudo -u svc bash -lc '{VLLM}'",
    f"read -a ids <<< \"0 1\"\nmkdir -p logs\neval \"{VLLM}\"\n"])
def test_the_no_launch_line_names_the_program_behind_the_wrapper(text, capsys):
    """``eval "$cmd"`` of a here-document read into a variable (a DP-router script, find_string
    id 43426330938), ``$CMD``, and one-line ``nohup``/``bash -c``/``ssh``/``eval`` name what
    they run, not ``read, eval``, nor "SGLang takes no positional arguments"."""
    err = _error(text, capsys)
    assert err.rstrip().endswith("got none: it runs vllm serve"), err


@pytest.mark.parametrize("text", [
    f"read -r -d '' router_cmd << EOF\n{ROUTER}\nEOF\neval \"${{router_cmd}}\"\n",
    f'CMD="{ROUTER}"\n$CMD\n', f"nohup {ROUTER} &"])
def test_a_router_behind_a_wrapper_keeps_the_router_hint(text, capsys):
    err = _error(text, capsys)
    assert "it runs python -m sglang_router.launch_router (" in err
    assert "routes requests to SGLang servers" in err


def test_a_one_line_wrapped_command_is_a_command_line():
    assert looks_pasted([f"nohup {VLLM} &"]) and looks_pasted([f'ssh node1 "{VLLM}"'])
    assert not looks_pasted(["time series"])
