"""Forms an eleventh harvest of real launch texts found misread (an issue's root-prompted
Reproduction block, a launch handed to ssh inside a shell function, SGLang's engine
benchmarks, a lost ``-m``, a JavaScript command builder, a paste after ``--format json``, a
comment holding a full-width semicolon): each test fails without its fix."""

from __future__ import annotations

import pytest

from launchplan.errors import InputError
from launchplan.input import benchmarks
from launchplan.input.pasted import launch_count, unpaste

ENVIRONMENT = ("### Environment\n\n```\nPython: 3.12.3 (main, Jun 19 2026) [GCC 13.3.0]\n"
               "CUDA available: True\nGPU 0,1: NVIDIA H100 80GB HBM3\nsglang: 0.5.15.post1\n"
               "```\n")


def _issue(reproduction: str) -> str:
    return f"### Reproduction\n\n```\n{reproduction}\n```\n\n{ENVIRONMENT}"


# F8: an issue's Reproduction block typed at a root prompt, then its Environment block


@pytest.mark.parametrize("reproduction", [
    "# python3 -m sglang.launch_server --model-path qwen3-8b --tp 2",
    "# docker run -it --gpus all lmsysorg/sglang:latest bash\n# pip install accelerate\n"
    "# sglang serve --model-path qwen3-8b --tp 2",
    "# sglang serve --model-path qwen3-8b \\\n    --tp 2"])
def test_a_root_prompted_block_beside_an_environment_block_is_the_session(reproduction):
    """SGLang's bug template asks for a Reproduction block, then the Environment
    (collect_env output, no prompt): the first is a root session (``# cmd``), whatever the
    other block holds (sglang issue on Gemma-4 QAT on a GB10). It was read as comments,
    then "it runs GPU" was blamed."""
    notes: list[str] = []
    argv, _ = unpaste([_issue(reproduction)], notes=notes)
    assert argv[-4:] == ["--model-path", "qwen3-8b", "--tp", "2"]
    assert any("root shell's prompt" in note for note in notes)


def test_a_commented_block_beside_a_live_launch_stays_comments():
    """A page that launches in another block keeps its ``#`` block as the comment it may
    be (an alternative left commented out)."""
    page = ("```\n# python -m sglang.launch_server --model-path qwen3-8b --tp 4\n```\n\n"
            "```\npython -m sglang.launch_server --model-path qwen3-8b --tp 2\n```\n")
    assert launch_count([page]) == 1
    assert unpaste([page])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


def test_an_environment_report_is_not_named_as_a_program():
    """With no launch anywhere, the Environment block's ``GPU 0,1: NVIDIA ...`` line is a
    report's label and value, not a command named ``GPU``."""
    with pytest.raises(InputError) as caught:
        unpaste([_issue("$ python3 -m sglang.bench_serving --num-prompts 2")])
    assert "GPU" not in str(caught.value)
    assert "bench_serving" in str(caught.value)


# F1: a launch handed to ssh / bash -c inside a shell function


@pytest.mark.parametrize("body, flags", [
    ('local node="$1" mode="$2"\n    ssh -n "u@$node" "docker run -d --gpus all '
     'lmsysorg/sglang:latest python3 -m sglang.launch_server --model-path qwen3-8b '
     '--disaggregation-mode $mode --host 0.0.0.0"',
     ["--model-path", "qwen3-8b", "--disaggregation-mode", "prefill", "--host", "0.0.0.0"]),
    ('bash -c "python3 -m sglang.launch_server --model-path qwen3-8b '
     '--disaggregation-mode $2 --port $3"',
     ["--model-path", "qwen3-8b", "--disaggregation-mode", "prefill", "--port", "30000"]),
    ('ssh node1 "python3 -m sglang.launch_server --model-path qwen3-8b --port $3"',
     ["--model-path", "qwen3-8b", "--port", "30000"])])
def test_a_quoted_launch_in_a_function_takes_the_calls_arguments(body, flags):
    """A multi-node driver's ``launch_role`` hands its launch to ``ssh`` (or ``bash -c``)
    in a double-quoted string: this shell expands ``$mode`` (``local mode="$2"``) and
    ``$2`` within the call ``launch_role 10.0.0.1 prefill 30000`` before ssh sends it. The
    function's positional parameters were left unbound (``got '$2'``)."""
    script = f"launch_role() {{\n    {body}\n}}\nlaunch_role 10.0.0.1 prefill 30000\n"
    assert unpaste([script])[0] == flags


def test_the_calls_arguments_end_with_the_function():
    """After the function, ``$1`` is the script's own again (none, as pasted)."""
    script = ('start() {\n    ssh n "python -m sglang.launch_server --model-path $1"\n}\n'
              'start qwen3-8b\nssh m "python -m sglang.launch_server --model-path x --tp $1"\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b"]
    assert unpaste([script], launch=2)[0][-2:] == ["--tp", "$1"]


def test_an_open_positional_parameter_is_named_as_open():
    """A ``$1`` no call gives is a value the paste leaves open, and the error says so."""
    from launchplan.input.shell_vars import open_reference

    assert open_reference("$1") and open_reference("${2}")
    assert not open_reference("1") and not open_reference("$")


# F5: the paste read the same wherever launchplan's options stand


CLICK = ('@click.option("--port", default=30000, type=int)\n'
         '@click.option("--tp", default=4, type=int)\n'
         'def start_sglang(ctx, model, port, tp):\n'
         '        cmd = (\n'
         '            "screen -dmS sglang bash -c \'"\n'
         '            f"{_sglang_env_prefix()}"\n'
         '            f"python3 -m sglang.launch_server --model-path {model} --port {port} '
         '--tp {tp} "\n'
         '            "2>&1 | tee /root/logs/sglang.log\'"\n'
         '        )\n'
         '        if rc != 0:\n'
         '            raise click.ClickException(f"Failed: {err}")\n')


@pytest.mark.parametrize("before", [[], ["--format", "json"], ["--format", "table"], ["json"],
                                    ["--compat", "0.5.22"], ["--gpu-count", "4"]])
def test_a_paste_after_an_options_value_is_read_as_alone(before):
    """``launchplan resolve --format json "$(cat f.py)"``: the word before the paste is
    another argument's, not part of the command the paste holds (the launcher's module
    left as a positional: ``got 'sglang.launch_server'``)."""
    argv, _ = unpaste([*before, CLICK])
    assert argv == [*before, "--model-path", "${model}", "--port", "30000", "--tp", "4"]


# F4: SGLang's engine benchmarks start the engine from the server flags


@pytest.mark.parametrize("command, flags, dropped", [
    ("python3 -m sglang.bench_offline_throughput --model-path qwen3-8b --num-prompts 10 "
     "--tp 2", ["--model-path", "qwen3-8b", "--tp", "2"], "--num-prompts 10"),
    ("python3 -m sglang.bench_one_batch --model-path qwen3-8b --batch-size 1 8 --input-len 256 "
     "--output-len 32 --tp 2 --correctness-test", ["--model-path", "qwen3-8b", "--tp", "2"],
     "--batch-size 1 8"),
    ("python -m sglang.benchmark.one_batch --model-path qwen3-8b --run-name r --tp 2",
     ["--model-path", "qwen3-8b", "--tp", "2"], "--run-name r"),
    ("python -m sglang.benchmark.one_batch_server --model-path qwen3-8b --batch-size 8 "
     "--output-len=16 --tp 2", ["--model-path", "qwen3-8b", "--tp", "2"], "--output-len=16"),
    ("python3 -m sglang.bench_offline_throughput --model-path qwen3-8b --num-p 10 --tp 2",
     ["--model-path", "qwen3-8b", "--tp", "2"], "--num-p 10")])
def test_an_engine_benchmark_is_read_as_its_server_flags(command, flags, dropped):
    """``bench_one_batch``, ``bench_offline_throughput`` and ``bench_one_batch_server`` (and
    their 2026 ``sglang.benchmark.*`` paths) parse the server's flags with their own and
    start that engine: the server flags are planned, the benchmark's options left out with
    a note (as ``--from-log`` reads a bench_one_batch run). They were "no launch"."""
    notes: list[str] = []
    argv, _ = unpaste([command], notes=notes)
    assert argv == flags
    assert any("SGLang's benchmark" in note and dropped in note for note in notes)


def test_a_benchmark_in_a_slurm_script_is_its_launch():
    """An sbatch script's ``srun bash -lc '... python3 -m sglang.bench_offline_throughput
    ...'``: the benchmark is the launch, not "it runs echo, which nvcc"."""
    script = ("#!/bin/bash\n#SBATCH --nodes=2\necho start\nwhich nvcc || true\n"
              "srun bash -lc 'python3 -m sglang.bench_offline_throughput --model-path qwen3-8b "
              "--load-format dummy --num-prompts 100 --tp 16 --nnodes 2 --node-rank 0'\n")
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--load-format", "dummy",
                                    "--tp", "16", "--nnodes", "2", "--node-rank", "0"]


@pytest.mark.parametrize("command", [
    "python3 -m sglang.bench_one_batch_server --model None --base-url http://x:30000 "
    "--batch-size 16",
    "python -m sglang.benchmark.one_batch_server --base-url=http://x:30000 --batch-size 16",
    "python3 -m sglang.bench_serving --backend sglang --num-prompts 10"])
def test_a_benchmark_of_a_running_server_starts_nothing(command):
    """``bench_one_batch_server --base-url URL`` measures the server at URL and
    ``bench_serving`` is a client: neither is a launch, and the error says why."""
    with pytest.raises(InputError) as caught:
        unpaste([command])
    assert "sends requests to a server already running" in str(caught.value)


def test_a_launch_beside_a_benchmark_of_it_is_the_one_launch():
    """A page that starts the server and then benchmarks it with ``--base-url`` holds one
    launch, as before."""
    page = ("python3 -m sglang.launch_server --model-path qwen3-8b --tp 2 &\n"
            "python3 -m sglang.bench_one_batch_server --model None --base-url "
            "http://localhost:30000 --batch-size 16\n")
    assert launch_count([page]) == 1
    assert unpaste([page])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


def test_an_ambiguous_benchmark_option_prefix_is_refused():
    """argparse refuses a prefix of several options of the benchmark's one parser."""
    with pytest.raises(InputError) as caught:
        benchmarks.server_words("sglang.bench_offline_throughput", ["--num", "10"])
    assert "--num-prompts" in str(caught.value) and "ambiguous" in str(caught.value)


# F3: python given the launcher's module name as its script


@pytest.mark.parametrize("command, shown", [
    ("python sglang.launch_server --model meta-llama/Llama-3.1-8B-Instruct --tp-size 8",
     "python sglang.launch_server"),
    ("python3 sglang.launch_server --model-path qwen3-8b --tp 2", "python3 sglang.launch_server"),
    ("python3 -u sglang.bench_one_batch --model-path qwen3-8b", "python3 sglang.bench_one_batch")])
def test_a_lost_dash_m_is_named(command, shown):
    """``python sglang.launch_server ...`` (sglang issue 5212, the ``-m`` lost in the
    paste) makes python look for a file of that name: the error names the missing ``-m``
    instead of "it runs python" (and ``python3`` is no longer read as a launch)."""
    with pytest.raises(InputError) as caught:
        unpaste([command])
    assert f"it runs {shown}" in str(caught.value) and "-m is missing" in str(caught.value)


# F9: a JavaScript command builder


@pytest.mark.parametrize("code", [
    "let cmd = '';\ncmd += 'sglang serve \\\\\\n';\ncmd += '  --model-path qwen3-8b';\n"
    "cmd += ` \\\\\\n  --tp ${tp}`;\ncmd += ' \\\\\\n  --trust-remote-code';\n",
    "    let cmd = '';\n    if (isAMD) {\n      cmd += 'SGLANG_USE_AITER=1 \\\\\\n';\n    }\n"
    "    cmd += 'sglang serve \\\\\\n';\n    cmd += '  --model-path moonshotai/Kimi-K2.6';\n"])
def test_a_program_that_appends_the_command_to_a_string_is_refused(code):
    """A docs page's JSX generator (``cmd += 'sglang serve \\\\\\n';``) was read as shell
    text: a launch of model ``\\n``, its later flags lost, planned at TP 1 when a model was
    given after it. It is code that builds the command: refused, naming it."""
    with pytest.raises(InputError) as caught:
        unpaste([code, "--model-path", "qwen3-8b"])
    assert "builds the command in a string (cmd += '...')" in str(caught.value)


def test_a_shell_append_is_still_a_launch():
    """bash's own append (``CMD+=" --tp 2"``, no space before ``+=``) builds a launch the
    shell runs."""
    script = 'CMD="python -m sglang.launch_server --model-path qwen3-8b"\nCMD+=" --tp 2"\n$CMD\n'
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


# F2: a comment after the launch's last flag


@pytest.mark.parametrize("comment", ["# 或 8；H100 常 tp8", "#或 8；H100 常 tp8"])
def test_a_comment_with_a_full_width_semicolon_is_no_glued_prose(comment):
    """``--tp 4   # 或 8；H100 常 tp8``: ``#`` starting a word begins a comment the shell
    drops; nothing is glued to ``4`` (the note said prose was)."""
    notes: list[str] = []
    line = f"sglang serve --model-path qwen3-8b --tp 4   {comment}"
    assert unpaste([line], notes=notes)[0] == ["--model-path", "qwen3-8b", "--tp", "4"]
    assert not any("glued" in note for note in notes)


def test_prose_glued_to_the_last_word_is_still_noted():
    notes: list[str] = []
    unpaste(["sglang serve --model-path qwen3-8b --log-level warning这条命令，启动服务"],
            notes=notes)
    assert any("glued" in note for note in notes)
