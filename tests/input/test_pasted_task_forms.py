"""Forms of pasted launches first seen in the fourth round of real texts (SkyPilot and
dstack task files, a Modal script's image environment, a notebook cell's JSON source in a
review diff, a ``--config`` YAML copied out of an indented block, a start-up log pasted in
place of the launch, a draft path that is not on this machine). Each test fails on the
reader before these forms were handled.
"""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import launch_count, unpaste

SKYPILOT = """\
envs:
  MODEL_NAME: Qwen/Qwen3-8B
  HF_TOKEN: # pass it with --env

resources:
  accelerators: {L4:1, A100:1}

run: |
  source ~/sglang/bin/activate
  python -m sglang.launch_server --model-path $MODEL_NAME \\
    --host 0.0.0.0 --port 8000
"""

DSTACK = """\
type: task
env:
  - MODEL=Qwen/Qwen3-8B
  - HF_TOKEN
commands:
  - python -m sglang.launch_server --model-path $MODEL --tp 2
"""


def test_a_task_files_variables_reach_its_script():
    argv, env = unpaste([SKYPILOT])
    assert argv == ["--model-path", "Qwen/Qwen3-8B", "--host", "0.0.0.0", "--port", "8000"]
    assert env == ["MODEL_NAME=Qwen/Qwen3-8B"]  # HF_TOKEN: left to the caller, unset


def test_a_dstack_env_list_reaches_its_commands():
    argv, env = unpaste([DSTACK])
    assert argv == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2"]
    assert env == ["MODEL=Qwen/Qwen3-8B"]


def test_a_python_scripts_environment_goes_with_its_launch_literal():
    script = """\
import os, subprocess
import modal

image = modal.Image.from_registry("lmsysorg/sglang:latest").env({"HF_XET_HIGH_PERFORMANCE": "1"})
os.environ["CUDA_HOME"] = "/usr/local/cuda"
os.environ.update({"SGLANG_ENABLE_SPEC_V2": "1"})
cmd = ["python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B"]
proc = subprocess.Popen(cmd, env={"NCCL_DEBUG": "INFO", **os.environ})
"""
    argv, env = unpaste([script])
    assert argv == ["--model-path", "Qwen/Qwen3-8B"]
    assert env == ["HF_XET_HIGH_PERFORMANCE=1", "CUDA_HOME=/usr/local/cuda",
                   "SGLANG_ENABLE_SPEC_V2=1", "NCCL_DEBUG=INFO"]


def test_an_environment_a_script_builds_for_the_call_that_runs_the_launch_goes_with_it():
    # env = os.environ.copy(), items set on it, then Popen(cmd, env=env): the server's
    script = """\
import os, subprocess
env = os.environ.copy()
env["CUDA_VISIBLE_DEVICES"] = "0,1"
env.update({"SGLANG_ENABLE_SPEC_V2": "1"})
cmd = ["python", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "2"]
proc = subprocess.Popen(cmd, env=env)
env = {}
env["LATER"] = "1"
"""
    assert unpaste([script]) == (["--model-path", "m", "--tp", "2"],
                                 ["CUDA_VISIBLE_DEVICES=0,1", "SGLANG_ENABLE_SPEC_V2=1"])
    spread = script.replace("env = os.environ.copy()", 'env = {**os.environ, "A": "1"}')
    assert unpaste([spread])[1] == ["A=1", "CUDA_VISIBLE_DEVICES=0,1",
                                    "SGLANG_ENABLE_SPEC_V2=1"]


CELL_DIFF = """\
```diff
+    "docker run -d --gpus '\\"device=0\\"' \\\\\\n",
+    "  lmsysorg/sglang:dev \\\\\\n",
+    "  sglang serve \\\\\\n",
+    "  --model-path Qwen/Qwen3-8B --tp 1\\n",
+    "\\n",
+    "curl http://localhost:30000/v1/models\\n",
```
"""


def test_a_notebook_cells_json_source_in_a_review_diff_is_its_code():
    argv, _ = unpaste([CELL_DIFF])
    assert argv == ["--model-path", "Qwen/Qwen3-8B", "--tp", "1"]


def test_a_notebook_cells_json_source_pasted_bare_is_its_code():
    text = '    "!python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\\n",\n' \
           '    "print(1)\\n"\n'
    assert unpaste([text])[0] == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2"]


CELL_DIFF_WITH_KEYS = r"""```diff
@@ -20,9 +20,10 @@
    "cell_type": "markdown",
    "source": [
     "Start the server with `python3 -m sglang.launch_server --model-path x --tp 8`\n"
    ]
   },
   {
    "cell_type": "code",
    "outputs": [],
    "source": [
     "server_process, port = launch_server_cmd(\n",
-    "    \"python3 -m sglang.launch_server --model-path qwen3-0.6b --host 0.0.0.0\"\n",
+    "    \"python3 -m sglang.launch_server --model-path qwen3-8b --host 0.0.0.0 \"\n",
+    "    \"--tp 2\"\n",
     ")\n",
     "wait_for_server(f\"http://localhost:{port}\")"
    ]
```
"""


def test_a_notebook_diff_with_the_cells_other_keys_around_its_source_is_its_code():
    # the cell's keys and brackets around its source list are JSON, not words of the launch;
    # a Markdown cell's source is prose
    assert unpaste([CELL_DIFF_WITH_KEYS])[0] == ["--model-path", "qwen3-8b", "--host",
                                                 "0.0.0.0", "--tp", "2"]


def test_a_config_yaml_copied_out_of_an_indented_block_is_read_as_one():
    text = " # Memory\n mem-fraction-static: 0.82\n chunked-prefill-size: 4096\n" \
           " enable-metrics: true  # observability\n"
    argv, _ = unpaste([text])
    assert argv == ["--mem-fraction-static", "0.82", "--chunked-prefill-size", "4096",
                    "--enable-metrics"]


@pytest.mark.parametrize("logged", [
    "server_args=ServerArgs(model_path='/models/Qwen3-8B', tp_size=8, mem_fraction_static=0.88)",
    # 0.5.21 on: the resolved values as a dict
    "server_args={'model_path': '/models/Qwen3-8B', 'tp_size': 8, 'mem_fraction_static': 0.88}",
])
def test_a_start_up_log_pasted_for_a_launch_is_named_with_the_command_that_reads_it(
        capsys, logged):
    log = (f"[2026-05-15 08:39:19] {logged}\n"
           "[2026-05-15 08:39:36 TP0] Load weight begin. avail mem=93.61 GB\n")
    assert main(["resolve", "--gpu", "h100", log]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "start-up log" in lines[0] and "--from-log" in lines[0]


@pytest.mark.parametrize("flags", [
    ["--speculative-draft-model-path", "/tmp/lmsys/EAGLE3-draft"],
    ["--speculative-draft-model-path=/tmp/lmsys/EAGLE3-draft"],
])
def test_a_draft_not_on_this_machine_is_named_by_the_drafts_flag(capsys, flags):
    line = " ".join(["python -m sglang.launch_server --model-path llama-3.1-8b",
                     "--speculative-algorithm EAGLE3", *flags])
    assert main(["resolve", "--gpu", "h100", line]) == 2
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert first.startswith("launchplan: --speculative-draft-model-path: ")
    assert "give --speculative-draft-model-path again" in first


def test_a_default_that_is_itself_a_default_expansion_is_worked_out():
    script = ('MAXRUN=${MAXRUN:-10}\n'
              'python3 -m sglang.launch_server --model-path qwen3-8b \\\n'
              '  --max-running-requests "${MAXRUN:-10}" \\\n'
              '  --cuda-graph-max-bs-decode "${CUDA_GRAPH_MAX_BS:-${MAXRUN:-10}}"\n')
    argv, _ = unpaste([script])
    assert argv[-2:] == ["--cuda-graph-max-bs-decode", "10"]
    deeper = "python3 -m sglang.launch_server --model-path qwen3-8b --port ${A:-${B:-${C:-1}}}"
    assert unpaste([deeper])[0][-1] == "1"


def test_a_default_assigned_inside_another_command_holds_for_the_launch():
    script = ('echo "Port: ${SGL_PORT:=30000}"\n'
              ': "${TP:=2}"\n'
              'python3 -m sglang.launch_server --model-path qwen3-8b --port ${SGL_PORT} '
              '--tp $TP\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--port", "30000",
                                    "--tp", "2"]


def test_a_launch_kept_in_a_variable_and_run_by_eval_is_its_value():
    script = ('PORT=30000\n'
              'CMD="python3 -m sglang.launch_server \\\n'
              '  --model-path qwen3-8b --port $PORT" \\\n'
              '  || sleep infinity\n'
              'eval "$CMD"\n')
    assert unpaste([script]) == (["--model-path", "qwen3-8b", "--port", "30000"], [])


def test_flags_cut_inside_a_quoted_value_are_named_as_unbalanced_not_dropped(capsys):
    text = ('  --serving-framework sglang \\\n'
            '  --framework-args "--model-path /models/gpt-oss-20b \\\n'
            '    --host 0.0.0.0 \\\n')
    assert main(["resolve", "--gpu", "h100", text]) == 2
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert "balanced quotes" in first


def test_a_flag_whose_dashes_a_page_dropped_is_named_with_them(capsys):
    text = ("server = subprocess.Popen([\n'python', 'm', 'sglang.launch_server',\n"
            "'modelpath', 'meta-llama/Llama-3.1-8B', 'port', '30000'\n])\n")
    assert main(["resolve", "--gpu", "h100", text]) == 2
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert "'modelpath'" in first and "--model-path with its dashes lost" in first


def test_the_launchers_module_named_in_a_sentence_is_no_launch(capsys):
    text = ("2. install from source. start sglang.launch_server get error. Error is below:\n"
            " 30000 --host 0.0.0.0\n"
            "[2024-12-20 02:00:36] server_args=ServerArgs(model_path='models/Qwen2.5-0.5B', "
            "port=30000, mem_fraction_\n")
    assert main(["resolve", "--gpu", "h100", text]) == 2
    assert "start-up log" in capsys.readouterr().err.strip().splitlines()[0]


@pytest.mark.parametrize("reference", ["$EXTRA_ARGS", "${EXTRA_ARGS}"])
def test_an_unset_variable_where_flags_go_is_named_as_one(capsys, reference):
    text = f"python -m sglang.launch_server --model-path qwen3-8b --port 30000 {reference}"
    assert main(["resolve", "--gpu", "h100", text]) == 2
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert "takes a single value" not in first and "does not set" in first


def test_the_environment_a_script_sets_after_its_launch_is_not_the_servers():
    script = ('import os\n'
              'os.environ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"] = "1"\n'
              'proc, port = launch_server_cmd("python3 -m sglang.launch_server '
              '--model-path qwen3-8b")\n'
              'os.environ["API_KEY"] = "sglang"\n')
    assert unpaste([script]) == (["--model-path", "qwen3-8b"],
                                 ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"])


def test_a_json_value_whose_quotes_the_shell_removed_is_named_so(capsys):
    text = ('python -m sglang.launch_server --model-path qwen3-8b '
            '--json-model-override-args {"rope_scaling":{"factor":4.0}}')
    assert main(["resolve", "--gpu", "h100", text]) == 2
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert first.startswith("launchplan: --json-model-override-args: ")
    assert "double quotes are gone" in first


def test_a_launch_in_double_quotes_for_another_shell_gets_this_shells_variables():
    script = ('PORT="${2:-30000}"\nMODEL=/models/qwen3-8b\n'
              'tmux new-session -d -s sglang \\\n'
              '    "python -m sglang.launch_server --model-path \'${MODEL}\' --port ${PORT}"\n')
    assert unpaste([script])[0] == ["--model-path", "/models/qwen3-8b", "--port", "30000"]


@pytest.mark.parametrize("line", [
    "[2026-05-15 08:39:19] server_args=ServerArgs(model_path='/models/Qwen3-8B', tp_size=8)",
    "[2026-05-15 08:39:19] server_args={'model_path': '/models/Qwen3-8B', 'tp_size': 8}",
])
def test_the_start_up_line_alone_is_named_too(capsys, line):
    """One logged line, no line break: the same one-line error as a pasted log, in both of
    the forms SGLang logs (the dict from 0.5.21 on)."""
    assert main(["resolve", "--gpu", "h100", line]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "start-up log" in lines[0] and "--from-log" in lines[0]


def test_an_unquoted_json_value_the_shell_split_at_its_spaces_is_named_so(capsys):
    text = ('sglang serve --model-path qwen3-8b --model-loader-extra-config '
            '{"enable_multithread_load": true,"num_threads": 4} --enable-cache-report')
    assert main(["resolve", "--gpu", "h100", text]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "got 'true,num_threads:'" in err
    assert ("the JSON value of --model-loader-extra-config is not quoted, so the shell split "
            "it at its spaces and removed its double quotes") in err
    assert "--model-loader-extra-config '{...}'" in err


def test_a_list_of_command_line_pieces_is_joined_as_the_shell_reads_it():
    # "python -m sglang.launch_server" as one item, f"--model {m}" as another: the script
    # runs " ".join(cmd) with shell=True, so each piece is split into its words
    script = (
        "import subprocess, sys\nmodel_path = sys.argv[1]\ncmd = [\n"
        '    "python -m sglang.launch_server",\n    "--model-path",\n    model_path,\n'
        '    f"--tp {2}",\n    "--port",\n    str(8000),\n]\n'
        'subprocess.run(" ".join(cmd), shell=True, check=True)\n')
    assert unpaste([script]) == (
        ["--model-path", "${model_path}", "--tp", "2", "--port", "8000"], [])
    # an argv list (one item a word) keeps a value with a space in it whole
    argv = ('import subprocess\nsubprocess.Popen(["python", "-m", "sglang.launch_server", '
            '"--model-path", "m", "--chat-template", "a b"])\n')
    assert unpaste([argv])[0] == ["--model-path", "m", "--chat-template", "a b"]


def test_a_comment_that_names_a_launch_in_backticks_documents_the_scripts_own():
    script = ("# Run it with `python -m sglang.launch_server ...`\n"
              "python -m sglang.launch_server --model-path m --tp 2\n")
    assert unpaste([script]) == (["--model-path", "m", "--tp", "2"], [])
    # the backticked launch of a note that runs none is still read
    assert unpaste(["# Start: `python -m sglang.launch_server --model-path m --tp 4`\n"
                    "then curl localhost"])[0] == ["--model-path", "m", "--tp", "4"]


@pytest.mark.parametrize("source", [
    # Go: a struct's []string field, and os/exec's variadic call (which Python reads as a
    # walrus expression: its "sglang.launch_server" argument alone is no command line)
    'w := Workload{Command: []string{"python3", "-m", "sglang.launch_server",\n'
    '\t"--model-path", model, "--tp", "2"}}\n',
    'cmd := exec.Command("python3", "-m", "sglang.launch_server", "--model-path", model, '
    '"--tp", "2")',
    # JavaScript's spawn(program, [args]) and Rust's Command::new(program).args([...])
    'const child = spawn("python3", ["-m", "sglang.launch_server", "--model-path", model, '
    '"--tp", "2"]);',
    'Command::new("python3").args(["-m", "sglang.launch_server", "--model-path", &model, '
    '"--tp", "2"]).spawn()?;',
    # Python's own call of separate string arguments, and a Nomad job's HCL args list
    'proc = await asyncio.create_subprocess_exec("python", "-m", "sglang.launch_server", '
    '"--model-path", model, "--tp", "2")',
    'task "s" {\n  config {\n    command = "python3"\n    args = ["-m", '
    '"sglang.launch_server", "--model-path", "${NOMAD_META_model}", "--tp", "2"]\n  }\n}\n',
])
def test_an_argv_of_string_literals_in_another_language_is_read(source):
    argv, env = unpaste([source])
    assert argv[0] == "--model-path" and argv[1].startswith("${") and argv[2:] == ["--tp", "2"]
    assert env == []


def test_a_taskfiles_cmds_run_with_its_vars_filled_and_its_env_exported():
    taskfile = ("version: '3'\ntasks:\n  serve:\n    env:\n      SGLANG_X: 1\n    vars:\n"
                "      MODEL: Qwen/Qwen3-8B\n    cmds:\n      - python -m sglang.launch_server "
                "--model-path {{.MODEL}} --tp 2 --port {{.PORT}}\n")
    # a name the task's vars do not set comes from Task's caller: left open
    assert unpaste([taskfile]) == (
        ["--model-path", "Qwen/Qwen3-8B", "--tp", "2", "--port", "${PORT}"], ["SGLANG_X=1"])


@pytest.mark.parametrize("call", ["prepare_server_args(args)", "prepare_server_args([*args])",
                                  "sargs.prepare_server_args(args)"])
def test_a_list_of_flags_handed_to_sglangs_own_parser_is_the_launch(call):
    # the script holds no launcher word: SGLang's parser takes the list as its command line
    script = ("from sglang.srt.entrypoints.http_server import launch_server\n"
              "from sglang.srt import server_args as sargs\n"
              "if __name__ == '__main__':\n"
              "    args = ['--model-path', 'Qwen/Qwen3-8B', '--tp', '2']\n"
              f"    launch_server({call})\n")
    argv, _ = unpaste([script.replace("[*args]", "['--model-path', 'Qwen/Qwen3-8B', "
                                                  "'--tp', '2']")])
    assert argv == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2"]


def test_a_python_warning_printed_after_the_launch_is_output_not_a_second_launch():
    # SGLang's launcher warns on start and quotes `sglang serve` in the warning's message
    text = ("(sglang) root@cd358b8592fa:~/sglang# python3 -m sglang.launch_server "
            "--model Qwen/Qwen3-8B\n"
            "/home/sglang/python/sglang/launch_server.py:54: UserWarning: 'python -m "
            "sglang.launch_server' is still supported, but 'sglang serve' is the "
            "recommended entrypoint.\n"
            "  Example: sglang serve --model-path <model> [options]\n"
            "  warnings.warn(\n"
            "[2026-05-22 15:58:14] Warning: You are sending unauthenticated requests\n")
    assert launch_count([text]) == 1
    assert unpaste([text])[0] == ["--model", "Qwen/Qwen3-8B"]


def test_prose_after_a_code_block_inside_a_blockquote_is_not_the_launchs():
    # a quoted TL;DR: the fence is quoted too, and the sentence after it names a flag in
    # inline code; it was read as more words of the launch ("got 'Best'")
    text = ("> **TL;DR — recommended: `combo` ≈ 24 TPS.**\n> ```\n"
            "> sglang serve --model-path m --tp 8 \\\n"
            ">   --schedule-policy lpm\n> ```\n"
            "> Best **achievable**: add `--json-model-override-args '{\"a\": 1}'`.")
    assert unpaste([text])[0] == ["--model-path", "m", "--tp", "8", "--schedule-policy", "lpm"]


@pytest.mark.parametrize("text, runs", [
    ("start command: python3 -m sglang.lanuch_server --model-path m --tp-size 2",
     "python3 -m sglang.lanuch_server"),
    ("Run it with: docker run --gpus all vllm/vllm-openai --model m", "docker run"),
])
def test_a_labelled_one_line_command_that_starts_no_launch_is_named_by_what_it_runs(
        capsys, text, runs):
    # the label before the command hid it: the whole line was named as a positional word
    assert main(["resolve", "--gpu", "h100", text]) == 2
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert first.startswith("launchplan: the pasted text: ") and first.endswith(f"it runs {runs}")


@pytest.mark.parametrize("text", [
    "Run `sglang serve --model-path m --tp 8` on the node",
    "| SGLang reference launch | `sglang serve --model-path m --tp 8`; supported on H200 |",
    "| 启动命令 | `sglang serve --model-path m --tp 8`（应用侧 `engine: sglang`） |",
])
def test_a_one_line_sglang_serve_in_inline_code_after_other_words_is_the_launch(text):
    # the backtick before `sglang serve` hid the launcher: the whole line, a table row or a
    # sentence, was taken as one positional word
    assert unpaste([text]) == (["--model-path", "m", "--tp", "8"], [])


@pytest.mark.parametrize("text", [
    "```python3 -m sglang.launch_server --model-path m --tp 4 ```",
    "config: tp=4\n\n```python3 -m sglang.launch_server --model-path m --tp 4 ```\n\nIt is slow.",
])
def test_a_launch_in_a_triple_backtick_span_on_one_line_is_that_code(text):
    # a one-line ```...``` is an inline code span, not a fence (a fence's info string holds no
    # backtick): its closing backticks were taken as a word of the launch
    assert unpaste([text]) == (["--model-path", "m", "--tp", "4"], [])


@pytest.mark.parametrize("text", [
    "The path is <code>pip install sglang</code> followed by <code>python3 -m "
    "sglang.launch_server --model-path m --tp 4</code>. Both expose an endpoint.",
    "Z.ai's repository documents <code>python3 -m sglang.launch_server --model-path "
    "\"m\" --tp 4</code>.",
    "a server command using <code>python -m sglang.launch_server --model-path m --tp 4</code>, "
    "with <code>auto</code> also shown",
    "<td><code>python3 -m sglang.launch_server --model-path m\n--tp 4</code>；\n"
    "日志确认 <code>Tree cache initialized</code></td>",
    "<code>python3 -m sglang.launch_server --model-path m --tp 4 &amp;&amp; echo up</code>",
])
def test_a_launch_in_an_html_code_element_is_that_code(text):
    # a page's HTML writes inline code as <code>...</code>: the words after </code> were taken
    # as the last flag's value ("--port: got 'Both'"), a prose apostrophe unbalanced the
    # quotes, and a line break inside the element lost the flags after it
    assert unpaste([text]) == (["--model-path", "m", "--tp", "4"], [])


@pytest.mark.parametrize("text", [
    "bash -c 'exec python3 -m sglang.launch_server \"$@\"' -- --model-path m --tp 4",
    "sh -c 'cd /srv && python3 -m sglang.launch_server \"$@\"' sglang --model-path m --tp 4",
    "docker run -d --gpus all img bash -lc '\n  set -euo pipefail\n"
    "  exec python3 -m sglang.launch_server \"$@\"\n' -- \\\n  --model-path m \\\n"
    "  --tp 4 \\\n  >out.txt",
])
def test_a_shell_script_given_arguments_after_it_passes_them_to_its_launch(text):
    # `bash -c SCRIPT NAME ARGS...` runs SCRIPT with NAME as $0 and ARGS as "$@": the launch's
    # flags come after the script; its "$@" was taken for this shell's own, empty, arguments
    assert unpaste([text])[0] == ["--model-path", "m", "--tp", "4"]


@pytest.mark.parametrize("text", [
    "docker run --env A=1 img bash -lc 'python3 -m sglang.launch_server --model-path m'",
    "docker run --env A=1 --entrypoint /bin/bash img -lc 'python3 -m sglang.launch_server "
    "--model-path m'",
    "export A=1\nbash -ec 'python3 -m sglang.launch_server --model-path m'",
])
def test_a_shell_started_with_an_option_cluster_ending_in_c_gets_the_environment(text):
    # `bash -lc SCRIPT` is `bash -l -c SCRIPT`: only a bare -c was taken for a shell's script,
    # so the container's --env options (or the script's exports) were left off the launch
    assert unpaste([text]) == (["--model-path", "m"], ["A=1"])


def test_a_parameter_expansion_with_spaces_in_it_is_one_word(capsys):
    # `${NAME:?message}` is one word of the shell's however many spaces its message holds;
    # the message's words were taken for commands ("it runs is, ...") or for stray words of
    # the launch
    text = ("version=${SGLANG_VERSION:?SGLANG_VERSION is required}\n"
            "python3 -m pip install \"sglang==${version}\"\n")
    assert main(["resolve", "--gpu", "h100", text]) == 2
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert first.endswith("it runs python3 -m pip")
    launch = "python3 -m sglang.launch_server --model-path ${MODEL:?set MODEL first} --tp 4"
    assert unpaste([launch])[0] == ["--model-path", "${MODEL}", "--tp", "4"]


GO_TASKFILE = """\
version: '3'
vars:
  MODEL: qwen3-8b
  TP: 2
tasks:
  serve:
    cmds:
      - python -m sglang.launch_server --model-path {{.MODEL}} --tp {{.TP}} --port 30000
"""


def test_a_taskfiles_top_level_vars_reach_every_tasks_commands():
    assert unpaste([GO_TASKFILE])[0] == ["--model-path", "qwen3-8b", "--tp", "2",
                                         "--port", "30000"]
    # a task's own vars win over the file's
    own = GO_TASKFILE.replace("    cmds:", "    vars:\n      TP: 4\n    cmds:")
    assert unpaste([own])[0] == ["--model-path", "qwen3-8b", "--tp", "4", "--port", "30000"]


def test_a_terraform_command_joined_from_a_list_of_strings_is_that_line():
    hcl = ('resource "gpu_node" "n" {\n  container {\n'
           '    command = var.backend == "vllm" ? join(" ", ["vllm serve m", "--tp 2"]) : '
           'join(" ", [\n      "python3 -m sglang.launch_server",\n'
           '      "--model-path ${var.model_id}",\n      "--tp-size 2",\n    ])\n  }\n}\n')
    # the SGLang branch of the conditional; the file's own input variable is left open
    assert unpaste([hcl])[0] == ["--model-path", "${var.model_id}", "--tp-size", "2"]


def test_an_unrendered_template_expression_is_named_as_one(capsys):
    tpl = ('{{- define "serve" -}}\npython3 -m sglang.launch_server --model-path '
           '{{ .Values.model }} --port {{ .Values.port }}\n{{- end -}}\n')
    assert main(["resolve", "--gpu", "h100", tpl]) == 2
    err = capsys.readouterr().err
    assert "a template expression" in err and "helm template" in err and err.count("\n") == 1
