"""Launch commands pasted as written: launcher prefixes, continuations, env assignments."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import is_manifest, launch_count, looks_pasted, unpaste


@pytest.mark.parametrize("tokens", [
    ["python", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "2"],
    ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "2"],
    ["/usr/bin/python3.11", "-u", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "2"],
    ["sglang", "serve", "--model-path", "m", "--tp", "2"],
    ["python -m sglang.launch_server \\\n  --model-path m \\\n  --tp 2"],
    ["python -m sglang.launch_server --model-path m --tp 2  # two GPUs"],
])
def test_prefixes_and_continuations_leave_the_flags(tokens):
    assert looks_pasted(tokens)
    argv, env = unpaste(tokens)
    assert argv == ["--model-path", "m", "--tp", "2"] and env == []


def test_assignments_before_the_launcher_are_the_environment():
    argv, env = unpaste(["--gpu", "h100", "CUDA_VISIBLE_DEVICES=0,1 SGLANG_X=1 python3 -m "
                         "sglang.launch_server --model-path m"])
    assert argv == ["--gpu", "h100", "--model-path", "m"]
    assert env == ["CUDA_VISIBLE_DEVICES=0,1", "SGLANG_X=1"]


def test_values_with_spaces_are_not_taken_for_commands():
    tokens = ["--model-path", "m", "--json-model-override-args", '{"a": 1}']
    assert not looks_pasted(tokens)
    argv, _ = unpaste(["python", "-m", "sglang.launch_server", *tokens])
    assert argv == tokens


def test_unbalanced_quotes_are_one_line_of_bad_input(capsys):
    code = main(["resolve", "--gpu", "h100", "python -m sglang.launch_server --model-path 'm"])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and "pasted command" in err


def test_resolve_takes_a_pasted_launch_with_its_environment(capsys):
    pasted = ("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 python3 -m sglang.launch_server \\\n"
              "  --model-path llama-3.1-8b --speculative-algorithm EAGLE \\\n"
              "  --speculative-draft-model-path llama-3.1-8b-eagle --tp 2")
    code = main(["resolve", "--gpu", "h100", pasted, "--format", "json"])
    data = json.loads(capsys.readouterr()[0])
    assert code == 0 and data["resolved"]["tp_size"] == 2
    # the environment assignment took effect: the short draft context is allowed
    assert "draft-context" not in {p["requirement"] for p in data["preflight"]["problems"]}


def test_a_whole_line_starting_with_an_assignment_is_a_command():
    line = ("SGLANG_ENABLE_JIT_DEEPGEMM=0 python3 -m sglang.launch_server --model-path m "
            "--tp 8 --trust-remote-code")
    assert looks_pasted([line])
    argv, env = unpaste(["--gpu", "h200", line])
    assert argv == ["--gpu", "h200", "--model-path", "m", "--tp", "8", "--trust-remote-code"]
    assert env == ["SGLANG_ENABLE_JIT_DEEPGEMM=0"]


@pytest.mark.parametrize("runner", [
    "docker run --gpus all --shm-size 32g -p 30000:30000 -v ~/.cache/hf:/root/.cache/hf "
    "--env SGLANG_X=1 -e HF_TOKEN=secret -e PASSED_THROUGH --ipc=host lmsysorg/sglang:latest",
    "podman run --device nvidia.com/gpu=all --env=SGLANG_X=1 -e HF_TOKEN=secret "
    "docker.io/lmsysorg/sglang:v0.5.3",
    "SGLANG_X=1 HF_TOKEN=secret srun -N 1 --gpus-per-node 8",
    "SGLANG_X=1 uv run --with sglang env HF_TOKEN=secret",
])
def test_a_container_or_job_runner_around_the_launch_is_dropped(runner):
    line = f"{runner} python3 -m sglang.launch_server --model-path m --tp 8 --port 30000"
    assert looks_pasted([line])
    argv, env = unpaste(["--gpu", "h100", line])
    assert argv == ["--gpu", "h100", "--model-path", "m", "--tp", "8", "--port", "30000"]
    assert env == ["SGLANG_X=1", "HF_TOKEN=secret"]


def test_resolve_takes_a_pasted_docker_run(capsys):
    pasted = ("docker run --gpus all -p 30000:30000 --ipc=host -e SGLANG_ENABLE_JIT_DEEPGEMM=0 "
              "lmsysorg/sglang:latest python3 -m sglang.launch_server --model-path "
              "llama-3.1-8b --tp 2 --host 0.0.0.0 --port 30000")
    code = main(["resolve", "--gpu", "h100", pasted, "--format", "json"])
    data = json.loads(capsys.readouterr()[0])
    assert code == 0 and data["resolved"]["tp_size"] == 2 and data["resolved"]["port"] == 30000


@pytest.mark.parametrize("line", [
    "nohup python3 -m sglang.launch_server --model-path m --tp 8 > server.log 2>&1 &",
    "pip install 'sglang[all]' && python3 -m sglang.launch_server --model-path m --tp 8",
    "python3 -m sglang.launch_server --model-path m --tp 8 2>&1 | tee launch.log",
    "cd /srv; python3 -m sglang.launch_server --model-path m --tp 8 >>out.log",
])
def test_shell_plumbing_around_the_launch_is_dropped(line):
    argv, env = unpaste([line])
    assert argv == ["--model-path", "m", "--tp", "8"] and env == []


@pytest.mark.parametrize("prompt", ["$ ", "% ", "(sglang) $ ", "user@host:~$ ",
                                    "(venv) user@gpu-node-3:~/work$ ",
                                    "root@a1b2:/sgl-workspace# "])
def test_a_shell_prompt_before_the_launch_is_dropped(prompt):
    argv, env = unpaste([f"{prompt}SGLANG_X=1 python3 -m sglang.launch_server --model-path m "
                         "--tp 2"])
    assert argv == ["--model-path", "m", "--tp", "2"] and env == ["SGLANG_X=1"]


@pytest.mark.parametrize("prompt", ["root@srv-ia-010:/var/tmp# ", "user@host:~$ ", "$ "])
def test_a_prompt_before_a_continued_command_does_not_hide_its_backslash(prompt):
    # a root prompt's ``#`` would start a comment that swallows the line's continuation
    text = (f"{prompt}docker run \\\n    --gpus all \\\n    lmsysorg/sglang:latest \\\n"
            "    python -m sglang.launch_server \\\n    --model-path m \\\n    --tp 2\n")
    assert unpaste([text]) == (["--model-path", "m", "--tp", "2"], [])


def test_a_script_exports_its_environment_to_the_launch():
    script = ("# serve the model\n"
              "export SGLANG_ENABLE_JIT_DEEPGEMM=0\n"
              "export CUDA_VISIBLE_DEVICES=0,1 NCCL_DEBUG=INFO\n"
              "LOCAL_ONLY=1\n"  # not exported: the launch does not see it
              "cd /srv && python3 -m sglang.launch_server --model-path m \\\n"
              "  --json-model-override-args '{\"a\":\n 1}' --tp=2\n"
              "echo done\n")
    argv, env = unpaste([script])
    assert argv == ["--model-path", "m", "--json-model-override-args", '{"a":\n 1}', "--tp=2"]
    assert env == ["SGLANG_ENABLE_JIT_DEEPGEMM=0", "CUDA_VISIBLE_DEVICES=0,1", "NCCL_DEBUG=INFO"]


def test_an_export_chained_before_the_launch_is_kept():
    argv, env = unpaste(["export SGLANG_X=1 && python3 -m sglang.launch_server --model-path m"])
    assert argv == ["--model-path", "m"] and env == ["SGLANG_X=1"]


def test_a_continuation_inside_a_word_joins_the_word_as_the_shell_does():
    # the path is cut at the backslash: the shell drops backslash and newline, nothing else
    argv, _ = unpaste(["nohup python3 -m sglang.launch_server --model /models/\\\nQwen/Qwen3-8B/"
                       "  --tp 1 >log 2>&1 &"])
    assert argv == ["--model", "/models/Qwen/Qwen3-8B/", "--tp", "1"]
    # a next line that starts a flag is still a word of its own without a space before `\`
    argv, _ = unpaste(["python -m sglang.launch_server --model-path m --tp 2\\\n--port 1"])
    assert argv == ["--model-path", "m", "--tp", "2", "--port", "1"]


def test_a_variable_set_to_nothing_passes_no_word():
    script = ('EXTRA=""\npython -m sglang.launch_server --model-path m $EXTRA --tp 2 '
              '${EXTRA}')
    assert unpaste([script]) == (["--model-path", "m", "--tp", "2"], [])


@pytest.mark.parametrize(("mode", "argv", "env"), [
    ("native", ["--model-path", "m", "--moe-runner-backend", "x"], ["A=1"]),
    ("dequant", ["--model-path", "m"], ["A=1", "FP4_DEQUANT=1"]),
])
def test_an_if_block_runs_the_branch_its_test_picks(mode, argv, env):
    script = (f'MODE=${{MODE:-{mode}}}\nexport A=1\nMOE="--moe-runner-backend x"\n'
              'if [ "$MODE" = dequant ]; then\n  export FP4_DEQUANT=1\n  MOE=""\nfi\n'
              "python3 -m sglang.launch_server --model-path m $MOE")
    assert unpaste([script]) == (argv, env)


def test_if_elif_else_and_an_undecided_test():
    script = ("TP=4\nif [[ $TP -eq 8 ]]; then\n  PORT=1\nelif test $TP -lt 8; then PORT=2\n"
              "else\n  PORT=3\nfi\npython -m sglang.launch_server --model-path m --port $PORT")
    assert unpaste([script])[0] == ["--model-path", "m", "--port", "2"]
    # a test on the caller's variable decides nothing: both launches stay, as before
    script = ('if [ "$RANK" -eq 0 ]; then\n  python -m sglang.launch_server --model-path m '
              "--node-rank 0\nelse\n  python -m sglang.launch_server --model-path m "
              "--node-rank $RANK\nfi")
    assert launch_count([script]) == 2


def test_a_script_writing_a_compose_file_is_read_as_a_script():
    script = ("cat > docker-compose.yml << 'EOF'\nservices:\n  sglang:\n"
              "    image: lmsysorg/sglang\n    entrypoint: python3 -m sglang.launch_server\n"
              "    command: --model-path x\n"
              "EOF\npython3 -m sglang.launch_server --model-path m --tp 2\n")
    assert not is_manifest(script)
    assert unpaste([script]) == (["--model-path", "m", "--tp", "2"], [])


@pytest.mark.parametrize("line", [
    "CUDA_VISIBLE_DEVICES=1 numactl --cpunodebind=0 python3 -m sglang.launch_server "
    "--model-path m",
    "CUDA_VISIBLE_DEVICES=1 timeout 600 python -m sglang.launch_server --model-path m",
    "CUDA_VISIBLE_DEVICES=1 pixi run python -m sglang.launch_server --model-path m",
])
def test_assignments_before_another_program_reach_the_launch_it_starts(line):
    assert unpaste([line]) == (["--model-path", "m"], ["CUDA_VISIBLE_DEVICES=1"])


def test_each_inline_code_launch_over_lines_is_read_with_its_continuations():
    notes = ("1. `CUDA_VISIBLE_DEVICES=0 uv run python -m sglang.launch_server \\\n"
             "  --model-path a \\\n  --port 8000`\n"
             "2. `CUDA_VISIBLE_DEVICES=1 uv run python -m sglang.launch_server \\\n"
             "  --model-path b \\\n  --port 8080`")
    assert launch_count([notes]) == 2
    assert unpaste([notes], launch=1) == (["--model-path", "a", "--port", "8000"],
                                          ["CUDA_VISIBLE_DEVICES=0"])
    assert unpaste([notes], launch=2) == (["--model-path", "b", "--port", "8080"],
                                          ["CUDA_VISIBLE_DEVICES=1"])


def test_a_script_passes_on_the_arguments_it_sets_or_none():
    script = ('if [ $# -eq 0 ]; then\n  set -- \\\n    --model-path m \\\n    --tp 4\nfi\n'
              'python3 -m sglang.launch_server "$@"\n')
    assert unpaste([script]) == (["--model-path", "m", "--tp", "4"], [])
    notes: list[str] = []
    wrapper = 'exec python3 -m sglang.launch_server --model-path m "$@"'
    assert unpaste([wrapper], notes=notes) == (["--model-path", "m"], [])
    assert any("($@)" in note for note in notes)


@pytest.mark.parametrize("before", [
    "pkill -f sglang.launch_server\nsleep 2",
    "ps aux | grep sglang.launch_server",
    "printf '  %q' python3 -m sglang.launch_server; echo",
    'if ! pgrep -f "sglang.launch_server" > /dev/null; then echo down; fi',
])
def test_a_command_that_only_names_the_launcher_is_not_a_launch(before):
    script = f"{before}\npython -m sglang.launch_server --model-path m --tp 2\n"
    assert launch_count([script]) == 1
    assert unpaste([script]) == (["--model-path", "m", "--tp", "2"], [])


def test_local_and_declare_set_variables_declare_x_exports_them():
    script = ('launch() {\n  local port=8000 model="m"\n  declare -x SGLANG_X=1\n'
              '  python -m sglang.launch_server --model-path "$model" --port $port\n}\n')
    assert unpaste([script]) == (["--model-path", "m", "--port", "8000"], ["SGLANG_X=1"])


def test_a_bash_array_of_flags_is_the_launch_it_passes():
    script = ('COMMON=(\n  --model-path m   # the checkpoint\n  --tp 2\n)\n'
              'if [ "$ROLE" = prefill ]; then\n  COMMON+=(--disaggregation-mode prefill)\nfi\n'
              'FLAGS=("${COMMON[@]}" --port 1)\nEXTRA=()\n'
              'SGLANG_X=1 python3 -m sglang.launch_server "${FLAGS[@]}" "${EXTRA[@]}" > log 2>&1')
    argv, env = unpaste([script])
    assert argv == ["--model-path", "m", "--tp", "2", "--disaggregation-mode", "prefill",
                    "--port", "1"]  # the test on the caller's ROLE decides nothing
    assert env == ["SGLANG_X=1"]


@pytest.mark.parametrize(("mode", "tp", "env"), [
    ("big", "8", ["SGLANG_X=1"]), ("tiny", "1", []), ("other", "2", []),
])
def test_a_case_block_runs_the_branch_its_word_matches(mode, tp, env):
    script = (f"MODE=${{MODE:-{mode}}}\n"
              'case "$MODE" in\n  small|tiny)\n    TP=1\n    ;;\n'
              "  big) TP=8; export SGLANG_X=1 ;;\n  *)\n    TP=2\n    ;;\nesac\n"
              "python -m sglang.launch_server --model-path m --tp $TP")
    assert unpaste([script]) == (["--model-path", "m", "--tp", tp], env)


def test_export_of_a_name_set_before_exports_its_value():
    script = ("GPUS=0,1\nCUDA_VISIBLE_DEVICES=$GPUS\nexport CUDA_VISIBLE_DEVICES\n"
              "python -m sglang.launch_server --model-path m --tp 2")
    assert unpaste([script])[1] == ["CUDA_VISIBLE_DEVICES=0,1"]


def test_a_function_holding_the_launch_gets_the_arguments_of_its_call():
    script = ('serve() {\n  local model=$1 port=${2:-30000}\n'
              "  CUDA_VISIBLE_DEVICES=$3 python -m sglang.launch_server --model-path $model "
              '--port $port --tp $((TP * 2))\n}\nTP=2\nserve Qwen/Qwen3-8B "" 1\n')
    assert unpaste([script]) == (["--model-path", "Qwen/Qwen3-8B", "--port", "30000",
                                  "--tp", "4"], ["CUDA_VISIBLE_DEVICES=1"])


def test_positional_defaults_and_arithmetic_on_the_script_values():
    script = ("num_prefill=${1:-4}\n"
              "python -m sglang.launch_server --model-path m --tp-size $((${num_prefill}*8)) "
              "--dp-size $((num_prefill * 8)) --nnodes $num_prefill --port $((30000 + $2))")
    argv, _ = unpaste([script])
    assert argv == ["--model-path", "m", "--tp-size", "32", "--dp-size", "32", "--nnodes", "4",
                    "--port", "$((30000 + $2))"]  # $2 is not given: left open


@pytest.mark.parametrize(("line", "flag", "placeholder"), [
    ("python -m sglang.launch_server --model-path <your-model-path> --tp 2",
     "--model-path", "<your-model-path>"),
    ("python -m sglang.launch_server --model-path llama-3.1-8b --tp <tp_size> > log 2>&1",
     "--tp-size", "<tp_size>"),
    ("python3 -m sglang.launch_server --model-path {trained/model/path} --tp 2",
     "--model-path", "{trained/model/path}"),
    # a template's path with a placeholder part, through a quoted variable
    ('MODEL_PATH="/workspace/models/<change-your-model-here>"\nnohup python3 -m '
     'sglang.launch_server \\\n    --model-path "$MODEL_PATH" \\\n    > "$LOG" 2>&1 &\n',
     "--model-path", "/workspace/models/<change-your-model-here>"),
])
def test_a_page_placeholder_is_named_as_one(line, flag, placeholder, capsys):
    assert main(["resolve", "--gpu", "h100", line]) == 2
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert first.startswith(f"launchplan: {flag}:") and f"'{placeholder}'" in first
    assert "placeholder the pasted text leaves to fill in" in first


def test_an_address_an_editor_linked_to_itself_is_the_address():
    line = ("python -m sglang.launch_server --model-path m --trust-remote --host "
            "[0.0.0.0](http://0.0.0.0/) --port 30000")
    assert unpaste([line])[0] == ["--model-path", "m", "--trust-remote", "--host", "0.0.0.0",
                                  "--port", "30000"]
    # a link to somewhere else is not an address of the launch: left as written
    other = "python -m sglang.launch_server --model-path [m](https://hf.co/m)"
    assert unpaste([other])[0] == ["--model-path", "[m](https://hf.co/m)"]


@pytest.mark.parametrize("text, runs", [
    ("export logfile=./router.log\nnohup \\\npython -u -m sglang_router.launch_router \\\n"
     "    --pd-disaggregation --prefill http://10.0.0.1:8000 \\\n> $logfile 2>&1 &\n",
     ": it runs python -m sglang_router.launch_router"),
    ("`python3 -u -m sgl_jax.launch_server --model-path Qwen/Qwen3-32B --tp-size 4`",
     ": it runs python3 -m sgl_jax.launch_server"),
    ("(base) (base) root@node1:~# conda deactivate\nroot@node1:~# python3 -m sglang.check_env\n"
     "CUDA available: True\n", ": it runs conda deactivate, python3 -m sglang.check_env"),
    ("vllm serve Qwen/Qwen3-8B \\\n  --tensor-parallel-size 2", ": it runs vllm serve"),
    # another engine's launch on one line, bare or after a label, is named the same way
    ("vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2", ": it runs vllm serve"),
    ("Command: vllm serve Qwen/Qwen3-8B --tp 2", ": it runs vllm serve"),
    ("trtllm-serve Qwen/Qwen3-8B --tp_size 2", ": it runs trtllm-serve"),
    # a workflow's YAML list items (``- name: ...``) are no flags
    ("jobs:\n  t:\n    steps:\n      - name: Bench\n        run: |\n          python3 -m "
     "sglang.bench_latency --model m --batch-size 1\n",
     ": it runs python3 -m sglang.bench_latency"),
    # a container given the server's flags but no launch command, on one line or in a
    # sentence's inline code: the image starts no SGLang server by itself
    ("docker run --gpus all --ipc=host lmsysorg/sglang:dev --host 0.0.0.0 --port 30000",
     ": it runs docker run"),
    ("I ran `podman run --rm lmsysorg/sglang:latest --port 30000` to start it.",
     ": it runs podman run"),
    # a project tool's run starts a script of the project's, which the error names
    ("uv run runpod/create_pod.py sglang -- --model-path Qwen/Qwen3-4B",
     ": it runs uv run runpod/create_pod.py"),
    ("conda run -n serve python serve.py --port 30000", ": it runs conda run python"),
])
def test_a_paste_that_starts_no_sglang_launch_names_what_it_runs(text, runs, capsys):
    # its words are no SGLang argv: reading them as flags named a stray word instead
    assert main(["resolve", "--gpu", "h100", text]) == 2
    err = capsys.readouterr().err
    assert err.startswith("launchplan: the pasted text: expected an SGLang launch (")
    assert runs in err and err.count("\n") == 1


@pytest.mark.parametrize("router", ["sglang.srt.disaggregation.mini_lb",
                                    "sglang_router.launch_router"])
def test_a_router_alone_is_named_as_one_that_serves_no_model(router, capsys):
    text = (f"python3 -m {router} --prefill http://a:30000 --decode http://b:30001 "
            "--host 0.0.0.0 2>&1 | tee proxy.log\npython3 -m sglang.bench_serving --port 8000\n")
    assert main(["resolve", "--gpu", "h200", text]) == 2
    err = capsys.readouterr().err
    assert f"{router} routes requests to SGLang servers launched on their own" in err
    assert "paste a server's launch" in err and err.count("\n") == 1


def test_a_no_break_space_that_hides_the_launcher_is_named(capsys):
    # a web page's U+00A0 between the module and the first flag makes them one word
    assert main(["resolve", "--gpu", "h100",
                 "python -m sglang.launch_server\u00a0--model-path m --tp 2"]) == 2
    err = capsys.readouterr().err
    assert "holds a no-break space (U+00A0) from a web page" in err and err.count("\n") == 1


def test_flags_pasted_over_lines_without_a_launcher_stay_the_launchs():
    assert unpaste(["--model-path m\n--tp 2\n"])[0] == ["--model-path", "m", "--tp", "2"]


@pytest.mark.parametrize("text, env", [
    # an issue's caption over a block of flags, the environment in a block of its own
    ("Server args:\n```\n--model-path m\n--tp 2\n```\nEnv:\n```\n"
     "export SGLANG_ENABLE_JIT_DEEPGEMM=0\n```", ["SGLANG_ENABLE_JIT_DEEPGEMM=0"]),
    ("launch with\n  --model-path m --tp 2\n\nSGLANG_X=1 FOO=2", ["SGLANG_X=1", "FOO=2"]),
    ("I launch the server with the following args\n--model-path m\n--tp 2", []),
    ("**Launch args**\n```\n--model-path m --tp 2\n```", []),
    ("Server args (v0.5.11, 8x H100):\n```bash\n--model-path m \\\n  --tp 2\n```\n"
     "and the env:\n```\nSGLANG_X=1\n```", ["SGLANG_X=1"]),
    # the environment before the flags, no caption at all
    ("export SGLANG_X=1\n--model-path m\n--tp 2", ["SGLANG_X=1"]),
    # the flags as a Markdown list's items, under a caption or not
    ("Launch flags:\n- --model-path m\n- --tp 2\n", []),
    ("* --model-path m\n* --tp 2", []),
    # one-word headings over the blocks
    ("Env\n- SGLANG_X=1\n\nArgs\n- --model-path m\n- --tp 2", ["SGLANG_X=1"]),
])
def test_a_caption_over_a_list_of_flags_is_prose_and_its_env_block_the_environment(text, env):
    # the caption's words were read as arguments ("expected flags and their values, got
    # 'Server'") and the export as more of them
    notes: list[str] = []
    assert unpaste([text], notes=notes) == (["--model-path", "m", "--tp", "2"], env)
    assert len(notes) == (0 if text.startswith(("export", "* ")) else 1)


def test_a_captioned_list_of_flags_plans_and_says_how_it_was_read(capsys):
    text = "Server args:\n--model-path llama-3.1-8b\n--tp 2\n\nexport SGLANG_X=1"
    assert main(["resolve", "--gpu", "h100", "--format", "json", text]) == 0
    assert "('Server args:') as captions" in capsys.readouterr().out


@pytest.mark.parametrize("text, stray", [
    # prose after the flags is no caption of them: still a stray word, named as one
    ("Server args:\n--model-path m --tp 2\nand it crashes", "and"),
    # another program's command over flags is no caption either
    ("vllm serve m\n--tp 2", "vllm"),
    ("docker run img\n--tp 2", "docker"),
])
def test_words_around_a_flag_list_that_caption_nothing_stay_arguments(text, stray, capsys):
    assert main(["resolve", "--gpu", "h100", text]) == 2
    assert f"expected flags and their values, got '{stray}'" in capsys.readouterr().err


@pytest.mark.parametrize("text, argv", [
    # a caption over a real launch: the launch is read as always
    ("Server args:\npython -m sglang.launch_server --model-path m --tp 2",
     ["--model-path", "m", "--tp", "2"]),
    ("launch with\nsglang serve --model-path m --tp 2", ["--model-path", "m", "--tp", "2"]),
    # flags after the launch's last line stay lost to the shell (and are named in a note)
    ("python -m sglang.launch_server --model-path m\n--tp 2", ["--model-path", "m"]),
])
def test_flags_with_a_real_launch_word_are_read_as_before(text, argv):
    assert unpaste([text]) == (argv, [])


def test_prose_not_followed_by_flags_is_still_no_launch(capsys):
    assert main(["resolve", "--gpu", "h100", "Please help me launch the server\nexport X=1"]) == 2
    err = capsys.readouterr().err
    # the sentence is no program the text runs: the line names none rather than "Please"
    assert "expected an SGLang launch" in err and "got none" in err and "Please" not in err


def test_the_no_launch_line_names_the_programs_a_page_runs_not_its_headings(capsys):
    # NVIDIA's DGX Spark playbook page as text (build.nvidia.com/spark/sglang, 2026): a
    # title, a reading time and a step heading before the commands it shows
    page = ("SGLang for Inference\n\n30 MIN\n\nInstall and use SGLang on DGX Spark\n\n"
            "# Verify Docker installation\ndocker --version\n\n# Check NVIDIA GPU drivers\n"
            "nvidia-smi\n\nPull the SGLang Container\n\n"
            "examples/deployments/GKE/sglang/v1alpha1/disagg.yaml\ndf -h /\n")
    assert main(["resolve", "--gpu", "h100", page]) == 2
    err = capsys.readouterr().err
    assert "got none: it runs docker, nvidia-smi, df" in err
    for heading in ("SGLang for", "30 MIN", "Install", "Pull", "disagg.yaml"):
        assert heading not in err


def test_a_container_env_option_in_typographic_quotes_is_read_as_the_assignment():
    text = ("docker run --gpus all --env “HF_TOKEN=<secret>” -e ‘SGLANG_X=1’ \\\n"
            "    lmsysorg/sglang:latest python3 -m sglang.launch_server --model-path m --tp 8")
    notes: list[str] = []
    assert unpaste([text], notes=notes) == (["--model-path", "m", "--tp", "8"],
                                            ["HF_TOKEN=<secret>", "SGLANG_X=1"])
    assert len(notes) == 2 and "read as HF_TOKEN=<secret>" in notes[0]


@pytest.mark.parametrize("line, argv", [
    # a ``#`` inside a word is the word's: only one that starts a word opens a comment
    ("sglang serve --model-path m --chat-template a#b.jinja --tp 2",
     ["--model-path", "m", "--chat-template", "a#b.jinja", "--tp", "2"]),
    # an escaped space then ``#``: one word (" #note"), and the line (the command) ends there
    ("sglang serve --model-path m \\\n  --tp 2  \\ #note\n  --port 1",
     ["--model-path", "m", "--tp", "2", " #note"]),
    ("sglang serve --model-path m --tp 2 # a comment\n",
     ["--model-path", "m", "--tp", "2"]),
    ("sglang serve --model-path m --tp 2 '#kept' \"x #y\"",
     ["--model-path", "m", "--tp", "2", "#kept", "x #y"]),
])
def test_a_hash_inside_a_word_is_no_comment(line, argv):
    assert unpaste([line])[0] == argv


@pytest.mark.parametrize("value", ["<D_node_ip>:<D_dist_port>", "<ip>:5000", "http://<host>:8000",
                                   "<a>b"])
def test_a_quoted_value_holding_placeholders_is_kept_as_a_value(value):
    # ``--dist-init-addr "<D_node_ip>:<D_dist_port>"``: quoted, no redirection; the value is
    # the reader's to fill in and stays the flag's (it was dropped, the next flag taking
    # its place)
    argv, _ = unpaste([f'sglang serve --model-path m --dist-init-addr "{value}" --tp 8'])
    assert argv == ["--model-path", "m", "--dist-init-addr", value, "--tp", "8"]


@pytest.mark.parametrize("script", [
    # the cookbook's DeepSeek-V3.2 form: flags gathered by $(echo ...), split into an array
    'ARGS=$(echo serve \\\n  --model-path m \\\n  --tp 2)\nARGS=($ARGS)\n'
    'sglang "${ARGS[@]}" 2>&1 | tee x.log',
    'ARGS=(serve --model-path m --tp 2)\nsglang "${ARGS[@]}"',
    # the substitution goes on over lines, its ``)`` on a line of its own
    'A=$(echo serve \\\n  --model-path m --tp 2\n)\n\nA=($A)\n\nsglang "${A[@]}" | tee log',
    'CMD="serve --model-path m --tp 2"\nsglang $CMD',
    'LAUNCH="python3 -m sglang.launch_server"\n$LAUNCH --model-path m --tp 2',
])
def test_a_launch_whose_launcher_words_a_variable_holds_is_found(script):
    # the program's subcommand (or the whole launcher) comes from the script's own variable:
    # the text was refused as running no launch ("it runs serve")
    assert unpaste([script]) == (["--model-path", "m", "--tp", "2"], [])


def test_echo_in_a_command_substitution_gives_its_words():
    assert unpaste(['A=$(echo --model-path m --tp 2)\nsglang serve $A'])[0] == [
        "--model-path", "m", "--tp", "2"]
    assert unpaste(['H=$(hostname -i)\nsglang serve --model-path m --host $H'])[0] == [
        "--model-path", "m", "--host", "$(hostname -i)"]


def test_a_container_launch_in_inline_code_is_still_read():
    line = "I used `docker run --gpus all img python3 -m sglang.launch_server --tp 2` here."
    assert unpaste([line])[0] == ["--tp", "2"]


def test_a_scripts_exports_reach_a_container_only_through_its_env_options():
    # the host shell's exports are no environment of a launch in a container: docker run
    # starts it with the image's environment and what -e passes in (a bare -e NAME passes
    # the value the script exported)
    script = ("export HF_TOKEN=t\nexport SGLANG_X=1\nexport MODEL=m\n"
              "docker run --gpus all -e HF_TOKEN -e SGLANG_Y=2 img \\\n"
              "  python3 -m sglang.launch_server --model-path $MODEL --tp 2")
    notes: list[str] = []
    assert unpaste([script], notes=notes) == (["--model-path", "m", "--tp", "2"],
                                              ["HF_TOKEN=t", "SGLANG_Y=2"])
    assert len(notes) == 1 and "sets SGLANG_X, MODEL on the host" in notes[0]
    sudo = "export SGLANG_X=1\nsudo docker run img python3 -m sglang.launch_server --tp 2"
    assert unpaste([sudo]) == (["--tp", "2"], [])


@pytest.mark.parametrize("runner", ["docker run", "sudo docker run", "podman run"])
def test_assignments_before_a_container_runner_are_the_clients_not_the_launchs(runner):
    # ``A=1 docker run ...`` sets A for the docker client on the host: the container sees it
    # only through ``-e A`` (which passes the client's value), as a script's export
    line = (f"SGLANG_X=1 HF_TOKEN=t {runner} --gpus all -e HF_TOKEN -e SGLANG_Y=2 img "
            "python3 -m sglang.launch_server --tp 2")
    notes: list[str] = []
    argv, env = unpaste([line], notes=notes)
    assert argv == ["--tp", "2"]
    assert env == (["SGLANG_Y=2"] if runner.startswith("sudo") else ["HF_TOKEN=t", "SGLANG_Y=2"])
    assert "SGLANG_X" not in " ".join(env)
    inherit = "SGLANG_X=1 srun -N1 python3 -m sglang.launch_server --tp 2"
    assert unpaste([inherit]) == (["--tp", "2"], ["SGLANG_X=1"])


@pytest.mark.parametrize("before", ["", "srun -N1 ", "apptainer exec img.sif ", "uv run "])
def test_a_scripts_exports_still_reach_a_launch_that_inherits_them(before):
    script = f"export SGLANG_X=1\n{before}python3 -m sglang.launch_server --tp 2"
    assert unpaste([script]) == (["--tp", "2"], ["SGLANG_X=1"])


@pytest.mark.parametrize("value", ["Model: sglang test", "sglang test", "vllm serve me"])
def test_a_flags_value_with_spaces_is_never_read_as_a_pasted_command(value, capsys):
    # the word after a flag that reads a value is that value, whatever words it holds
    assert main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                 "--served-model-name", value, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["resolved"]["served_model_name"] == value


def test_a_flag_only_an_older_release_has_still_reads_the_next_word_as_its_value():
    # 0.5.21's --cuda-graph-tc-compiler reads a value; a paste is read before its release is
    # known, so the word after it is that value there too, spaces and all
    from launchplan.input.cli import flags_of, takes_value

    assert "--cuda-graph-tc-compiler" not in flags_of("0.5.23")
    assert "--cuda-graph-tc-compiler" in flags_of("0.5.21")
    assert takes_value("--cuda-graph-tc-compiler") and takes_value("--served-model-name")
    assert not takes_value("--trust-remote-code") and not takes_value("--no-such-flag")
