"""Shell forms a later harvest of real launch texts found misread (h10 N1, N3, N4): each
test fails without its fix."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import unpaste

OPTION_LOOP = ('MODEL_PATH=""\nTP_SIZE=8\nEAGLE=""\n'
               'while [[ $# -gt 0 ]]; do\n    case $1 in\n'
               '        -m|--model-path)\n            MODEL_PATH="$2"\n            shift 2\n'
               '            ;;\n        --tp) TP_SIZE="$2"; shift 2 ;;\n'
               '        --eagle) EAGLE="$2"; shift 2 ;;\n    esac\ndone\n')


def test_a_model_path_the_option_loop_fills_stays_open_for_the_caller():
    """``MODEL_PATH=""`` filled only by the script's ``-m) MODEL_PATH="$2"`` loop (a
    MiroMind rollout script, find_string id 7948752144): the launch's ``--model-path
    "$MODEL_PATH"`` is the caller's value, open, not a flag without one; a default of the
    script's own (``TP_SIZE=8``) stays."""
    text = OPTION_LOOP + ('python3 -m sglang.launch_server --model-path "$MODEL_PATH" '
                          '--tp "$TP_SIZE" --port 30000\n')
    assert unpaste([text])[0] == ["--model-path", "${MODEL_PATH}", "--tp", "8",
                                  "--port", "30000"]


def test_a_getopts_loop_fills_open_values_too():
    text = ('MODEL=""\nwhile getopts "m:" opt; do\n  case $opt in\n    m) MODEL=$OPTARG ;;\n'
            '  esac\ndone\npython -m sglang.launch_server --model-path "$MODEL"\n')
    assert unpaste([text])[0] == ["--model-path", "${MODEL}"]


def test_an_optional_value_the_option_loop_fills_stays_empty_in_the_scripts_tests():
    """An option the script tests for (``if [ -n "$EAGLE" ]``) is read as not given: the
    branch that adds it is skipped, as when the script runs with no arguments."""
    text = OPTION_LOOP + ('ARGS="--port 30000"\nif [ -n "$EAGLE" ]; then\n'
                          '  ARGS="$ARGS --speculative-algorithm EAGLE3"\nfi\n'
                          'python -m sglang.launch_server --model-path qwen3-8b $ARGS\n')
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--port", "30000"]


def test_the_model_path_given_after_the_paste_fills_the_open_one(capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    text = OPTION_LOOP + 'python3 -m sglang.launch_server --model-path "$MODEL_PATH"\n'
    assert main(["resolve", "--gpu", "h100", text, "--model-path", "llama-3.1-8b"]) == 0
    assert "model llama-3.1-8b" in capsys.readouterr().out


@pytest.mark.parametrize("reference", ['"$EXTRA"', '"${EXTRA}"'])
def test_a_quoted_empty_value_after_a_flag_is_an_empty_argument(reference):
    """``EXTRA=""`` then ``--served-model-name "$EXTRA"``: bash passes one empty argument
    (SGLang's parser takes it), as the literal ``--served-model-name ""`` is read."""
    text = ('EXTRA=""\npython -m sglang.launch_server --model-path llama-3.1-8b '
            f'--served-model-name {reference} --port 30000\n')
    assert unpaste([text])[0] == ["--model-path", "llama-3.1-8b", "--served-model-name", "",
                                  "--port", "30000"]


def test_a_bare_empty_value_after_a_flag_is_still_no_word(capsys, monkeypatch):
    """Unquoted, the shell drops the empty word: the flag is left without its value."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    text = ('EXTRA=""\npython -m sglang.launch_server --model-path llama-3.1-8b '
            '--served-model-name $EXTRA --port 30000\n')
    assert main(["resolve", "--gpu", "h100", text]) == 2
    assert "--served-model-name: expected a value" in capsys.readouterr().err


@pytest.mark.parametrize("subject", ['"${1:-status}"', "${1:-status}", '"${1-status}"'])
def test_a_case_on_the_callers_argument_with_a_default_keeps_every_branch(subject):
    """``case "${1:-status}" in start) <launch> ;; status) curl ;; esac`` (a start/stop
    script, find_string id 70324611881): the caller's argument picks the branch, so the
    launch under ``start)`` is found, not only the default's branch."""
    text = (f"case {subject} in\n  start)\n"
            "    python -m sglang.launch_server --model-path qwen3-8b --port 30000 &\n"
            "    ;;\n  status)\n    curl -sf http://127.0.0.1:30000/health && echo ok\n"
            "    ;;\nesac\n")
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--port", "30000"]


def test_an_if_on_the_callers_argument_with_a_default_keeps_every_branch():
    text = ('if [ "${1:-stop}" = start ]; then\n'
            "  python -m sglang.launch_server --model-path qwen3-8b\nfi\n")
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b"]


def test_a_case_on_an_argument_set_by_set_stays_decided():
    text = ("set -- fast\ncase ${1:-slow} in\n  fast) TP=2 ;;\n  *) TP=8 ;;\nesac\n"
            "python -m sglang.launch_server --model-path qwen3-8b --tp $TP\n")
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


ROUTER = ("python -m sglang_router.launch_router --pd-disaggregation \\\n"
          "  --prefill http://10.72.90.11:30000 9000 \\   # url + bootstrap-port\n"
          "  --decode  http://10.72.213.52:30000 \\\n"
          "  --policy cache_aware --host 0.0.0.0 --port 8000\n")


def test_a_router_command_with_a_comment_after_its_backslash_is_named_as_the_router(capsys):
    """``\\   # comment`` ends the router's command at that line (the backslash escapes the
    space): the lines after it are not SGLang server flags given on their own (Chinese GB300
    PD notes, find_string id 54492177644)."""
    assert main(["resolve", "--gpu", "h100", ROUTER]) == 2
    err = capsys.readouterr().err.strip().splitlines()[0]
    assert "it runs python -m sglang_router.launch_router" in err
    assert "backslash followed by a space" in err
    assert "--prefill:" not in err


WRAPPED = ("python3 -m sglang.launch_server --model-path qwen3-8b --tp 2 "
           "--dist-init-addr 10.4\n2.74.84:20010 --nnodes 2 --node-rank {rank} --host 0.0.0.0\n")


def test_a_launch_wrapped_inside_a_value_is_noted(capsys, monkeypatch):
    """An issue paste (sgl-project/sglang#4017) wraps the long launch line inside the
    ``--dist-init-addr`` value: the line after it, holding ``--nnodes``/``--node-rank``, is
    a command of its own to the shell; the plan says so instead of dropping it silently."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["resolve", "--gpu", "h100", WRAPPED.format(rank=0)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "looks wrapped inside its last value (--dist-init-addr 10.4)" in out
    assert "2.74.84:20010 --nnodes 2" in out


def test_a_line_after_the_launch_that_runs_a_program_is_no_wrapped_value(capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    text = ("python3 -m sglang.launch_server --model-path qwen3-8b --port 30000\n"
            "curl --max-time 5 http://localhost:30000/health\n")
    assert main(["resolve", "--gpu", "h100", text]) == 0
    assert "wrapped" not in capsys.readouterr().out


def test_identical_launches_name_their_twin():
    from launchplan.input.pasted import launch_summaries

    text = WRAPPED.format(rank=0) + "\n" + WRAPPED.format(rank=1)
    assert launch_summaries([text], 2) == ["[1] the same flags as another ([2])",
                                           "[2] the same flags as another ([1])"]
