"""Shell grammar a harvest of real launch scripts showed launchplan misreading: options grown
with ``VAR+=" --flag"``, ``let`` and ``(( ))`` arithmetic, control operators written without
spaces, a here-document handed to ``kubectl`` whose ``$NAME`` the shell fills in, bash's
``${NAME##*/}`` edits and ``$'...'`` quoting. Each test fails on the reader before these
forms were handled (the flags were dropped, a stale value planned, or the launch refused).
"""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import unpaste
from launchplan.input.shell_vars import expand, shell_split

# the shape of a 2026 PD decode script (GLM-5 W8A8 on DCUs): one option per ``+=`` line
GROWN = """\
option="--numa-node 3 1 1 0"
#option+=" --disable-radix-cache "
option+=" --page-size 64 "
option+=" --enable-dp-attention --dp 2"
[ -n "$SMALL" ] || option+=" --disaggregation-mode decode"
python3 -m sglang.launch_server --model-path qwen3-8b ${option} --tp 2
"""


def test_options_grown_with_plus_equals_are_all_passed():
    argv, _ = unpaste([GROWN])
    assert argv == ["--model-path", "qwen3-8b", "--numa-node", "3", "1", "1", "0",
                    "--page-size", "64", "--enable-dp-attention", "--dp", "2",
                    "--disaggregation-mode", "decode", "--tp", "2"]


def test_a_launch_built_in_a_variable_with_plus_equals_is_that_launch():
    script = ('ARGS="python3 -m sglang.launch_server"\nARGS+=" --model-path qwen3-8b"\n'
              'ARGS+=" --tp 2"\neval "$ARGS"\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


def test_plus_equals_on_a_name_the_script_never_set_starts_from_nothing():
    script = 'EXTRA+=" --tp 2"\npython3 -m sglang.launch_server --model-path m $EXTRA\n'
    assert unpaste([script])[0] == ["--model-path", "m", "--tp", "2"]


@pytest.mark.parametrize(("statement", "tp"), [
    ("let T=T*4", "8"), ("((T=T*2))", "4"), ("(( T *= 3 ))", "6"), ("((T++))", "3"),
    ("let T=$T+2", "4"), ('let "T = T + 1" U=5', "3"), ("((U=1, T=T*5))", "10"),
])
def test_arithmetic_assignments_change_the_value_the_launch_reads(statement, tp):
    script = f"T=2\n{statement}\npython3 -m sglang.launch_server --model-path m --tp $T\n"
    assert unpaste([script])[0] == ["--model-path", "m", "--tp", tp]


def test_arithmetic_over_an_unknown_name_leaves_the_value_open_not_stale(capsys):
    script = "T=2\n((T=NODES*8))\npython3 -m sglang.launch_server --model-path m --tp $T\n"
    assert unpaste([script])[0][-1] == "$((NODES*8))"
    assert main(["resolve", "--gpu", "h100", script]) == 2
    assert "--tp-size" in capsys.readouterr().err


@pytest.mark.parametrize(("line", "words"), [
    ("--port 30000|tee log", ["--port", "30000", "|", "tee", "log"]),
    ("--port 30000&", ["--port", "30000", "&"]),
    ("--tp 2;echo started", ["--tp", "2", ";", "echo", "started"]),
    ("a&&b||c", ["a", "&&", "b", "||", "c"]),
    ("a|&b", ["a", "|&", "b"]),
    # left as written: redirections, quoted or escaped operators, substitutions, case patterns
    ("a 2>&1&", ["a", "2>&1", "&"]),
    ("cmd &>log >|f", ["cmd", "&>log", ">|f"]),
    ("echo 'a|b' \"c;d\" e\\;f", ["echo", "a|b", "c;d", "e;f"]),
    ("x=$(a|b) y=`c;d`", ["x=$(a|b)", "y=`c;d`"]),
    ("case $X in a|b) echo;; esac", ["case", "$X", "in", "a|b)", "echo", ";;", "esac"]),
])
def test_control_operators_end_a_word_however_they_are_spaced(line, words):
    assert shell_split(line) == words


def test_a_launch_piped_without_spaces_is_read_up_to_the_pipe():
    line = "python3 -m sglang.launch_server --model-path qwen3-8b --port 30000|tee server.log"
    assert unpaste([line])[0] == ["--model-path", "qwen3-8b", "--port", "30000"]


MANIFEST_FROM_VARIABLES = """\
MODEL=qwen3-8b
LAUNCH="python3 -m sglang.launch_server --model-path $MODEL"
kubectl apply -f - <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: sglang
spec:
  containers:
  - name: server
    image: lmsysorg/sglang:latest
    command: ["bash", "-c"]
    args:
    - |
      $LAUNCH --tp 2 --port \\$PORT
    env:
    - name: HF_HOME
      value: /cache
    resources:
      limits:
        nvidia.com/gpu: "2"
EOF
"""


def test_an_unquoted_here_document_to_kubectl_gets_the_scripts_values():
    argv, env = unpaste([MANIFEST_FROM_VARIABLES])
    # the shell filled in $LAUNCH while feeding kubectl; \\$PORT is the container's to expand
    assert argv[:5] == ["--model-path", "qwen3-8b", "--tp", "2", "--port"]
    assert env == ["HF_HOME=/cache"]  # the manifest's container, not the script's lines


def test_a_quoted_here_document_keeps_its_references_as_written():
    quoted = MANIFEST_FROM_VARIABLES.replace("<<EOF", "<<'EOF'").replace("$LAUNCH", "$L")
    quoted = quoted.replace('      $L --tp 2', '      python3 -m sglang.launch_server '
                            '--model-path $MODEL --tp 2')
    argv, _ = unpaste([quoted])
    assert argv[:2] == ["--model-path", "$MODEL"]


def test_a_manifest_written_to_a_file_and_applied_later_is_the_launch():
    script = MANIFEST_FROM_VARIABLES.replace(
        "kubectl apply -f - <<EOF", 'cat > "$OUT" <<EOF') + 'kubectl apply -f "$OUT"\n'
    argv, env = unpaste([script])
    assert argv[:4] == ["--model-path", "qwen3-8b", "--tp", "2"]
    assert env == ["HF_HOME=/cache"]


@pytest.mark.parametrize(("word", "value"), [
    ("${M##*/}", "Qwen3-8B"), ("${M#*/}", "Qwen3-8B"), ("${M%/*}", "Qwen"),
    ("${P%%.*}", "/m/name"), ("${P%.*}", "/m/name.tar"), ("${M,,}", "qwen/qwen3-8b"),
    ("${N^^}", "QWEN"), ("${N^}", "Qwen"), ("${M/Qwen/Q}", "Q/Qwen3-8B"),
    ("${M//Qwen/Q}", "Q/Q3-8B"), ("${M#[Qq]wen}", "/Qwen3-8B"), ("${M/Qwen\\//}", "Qwen3-8B"),
    ("${UNSET##*/}", "${UNSET##*/}"),  # a caller's variable: left open
])
def test_bash_edits_of_a_value_the_script_sets(word, value):
    values = {"M": "Qwen/Qwen3-8B", "P": "/m/name.tar.gz", "N": "qwen"}
    assert expand(word, values) == value


def test_the_served_name_derived_from_the_model_path(capsys):
    script = ("MODEL_PATH=/models/qwen3-8b\npython3 -m sglang.launch_server --model-path "
              "$MODEL_PATH --served-model-name ${MODEL_PATH##*/}\n")
    assert main(["resolve", "--gpu", "h100", "--format", "json", script]) == 0
    assert json.loads(capsys.readouterr().out)["resolved"]["served_model_name"] == "qwen3-8b"


def test_ansi_c_quoting_is_the_word_it_stands_for():
    assert shell_split("--model-path $'qwen3-8b' --x $'a\\tb' $'it\\'s'") == [
        "--model-path", "qwen3-8b", "--x", "a\tb", "it's"]
    assert shell_split("echo \"$'kept'\"") == ["echo", "$'kept'"]  # inside double quotes


def test_a_command_substitution_inside_a_variable_stays_one_open_word(capsys):
    # the shell ran $(seq ...) when it assigned X and split only its output
    script = ("X=\"--tp 2 --cuda-graph-bs-decode $(seq -s ' ' 1 4)\"\n"
              "python3 -m sglang.launch_server --model-path qwen3-8b $X\n")
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2",
                                    "--cuda-graph-bs-decode", "$(seq -s ' ' 1 4)"]
    assert main(["resolve", "--gpu", "h100", script]) == 2
    assert "a command substitution launchplan does not run" in capsys.readouterr().err


def test_a_manifest_running_another_program_names_it(capsys):
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: w\nspec:\n  containers:\n"
           "  - name: worker\n    image: i\n    command: [python3, -m, dynamo.sglang]\n"
           "    args: [--model-path, Qwen/Qwen3-8B]\n")
    assert main(["resolve", "--gpu", "h100", pod]) == 2
    assert "its containers run python3 -m dynamo.sglang" in capsys.readouterr().err
    vllm = pod.replace("[python3, -m, dynamo.sglang]", "[vllm, serve]")
    assert main(["resolve", "--gpu", "h100", vllm]) == 2
    assert "its containers run vllm serve" in capsys.readouterr().err


def test_an_exported_append_exports_the_name_it_grows():
    script = ('export NCCL_DEBUG=INFO\nexport NCCL_DEBUG+="_X"\n'
              'python3 -m sglang.launch_server --model-path qwen3-8b\n')
    # each export is listed, as for two plain ones; the last is the value the launch gets
    assert unpaste([script]) == (["--model-path", "qwen3-8b"],
                                 ["NCCL_DEBUG=INFO", "NCCL_DEBUG=INFO_X"])
    flags = 'export A=1\nexport A+=2\n--tp 2\n'
    assert unpaste([flags])[1][-1] == "A=12"


def test_words_after_a_launch_handed_to_a_scripts_own_function_are_not_its_flags():
    # a 2026 multi-node script: ssh_execute "$host" ... "$cmd" true; the function's own
    # last argument had been read as a value of the launch's last flag
    script = ('start() {\n    local cmd="python3 -m sglang.launch_server --model-path qwen3-8b '
              '--tp 2 > /tmp/log 2>&1"\n    remote node0 "$cmd" true\n}\nstart\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]
    # a wrapper, a runner, ssh or a plain command position passes the words after it on
    for line in ("nohup $CMD --tp 2 &", "srun -N1 $CMD --tp 2", "$CMD --tp 2",
                 'ssh node0 "$CMD" --tp 2', "CUDA_VISIBLE_DEVICES=0 $CMD --tp 2"):
        text = f'CMD="python3 -m sglang.launch_server --model-path m"\n{line}\n'
        assert unpaste([text])[0] == ["--model-path", "m", "--tp", "2"], line


def test_a_backquoted_flag_value_stays_one_word():
    line = ("python3 -m sglang.launch_server --model-path m --host "
            "`hostname -I | awk '{print $1}'` --tp 2 --port 30000")
    assert unpaste([line])[0] == ["--model-path", "m", "--host",
                                  "$(hostname -I | awk '{print $1}')", "--tp", "2",
                                  "--port", "30000"]


def test_a_sentence_a_page_glued_to_the_launch_is_not_part_of_it():
    page = ("标准命令如下:\npython3 -m sglang.launch_server --model-path m --port 30000 "
            "--log-level warning这条命令看似简单,但每个参数背后都对应着关键决策点。\n")
    assert unpaste([page])[0] == ["--model-path", "m", "--port", "30000",
                                  "--log-level", "warning"]
    # a path or a name written in the language, with no sentence in it, is kept
    path = "python3 -m sglang.launch_server --model-path /models/你的模型目录 --tp 2"
    assert unpaste([path])[0] == ["--model-path", "/models/你的模型目录", "--tp", "2"]


def test_shift_moves_the_arguments_a_wrapper_reads_and_passes_on():
    wrapper = ('serve() {\n  local model=$1\n  shift\n  local tp=$1\n  shift\n'
               '  python3 -m sglang.launch_server --model-path $model --tp $tp "$@"\n}\n'
               'serve qwen3-8b 2 --port 30001\n')
    assert unpaste([wrapper])[0] == ["--model-path", "qwen3-8b", "--tp", "2",
                                     "--port", "30001"]
    script = ('set -- m 4 --port 1 --x\nMODEL=$1 && shift; TP=$1; shift 1\nshift 9\n'
              'python3 -m sglang.launch_server --model-path $MODEL --tp $TP "$@"\n')
    # a shift of more than there are fails in bash and moves nothing
    assert unpaste([script])[0] == ["--model-path", "m", "--tp", "4", "--port", "1", "--x"]


def test_read_from_a_here_string_and_printf_v_set_their_variables():
    script = ('read -r MODEL TP REST <<< "qwen3-8b 2 a b"\nprintf -v PORT "%d" 30001\n'
              'python3 -m sglang.launch_server --model-path $MODEL --tp $TP --port $PORT '
              '--served-model-name "$REST"\n')
    # the last name takes the rest of the words, as read does
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2", "--port",
                                    "30001", "--served-model-name", "a b"]


@pytest.mark.parametrize("script", [
    # NVIDIA's cluster-script template: the command read into a variable, run by srun's shell
    "MODEL=qwen3-8b\nread -r -d '' cmd <<EOF\necho starting \\\n"
    "&& export SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 \\\n"
    "&& python3 -m sglang.launch_server --model-path ${MODEL} --tp 2\nEOF\n"
    'srun --container-image=lmsysorg/sglang:latest bash -c "${cmd}"\n',
    # a command captured from a here-document
    "MODEL=qwen3-8b\nCMD=$(cat <<EOF2\nexport SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 && "
    "python3 -m sglang.launch_server --model-path ${MODEL} --tp 2\nEOF2\n)\n"
    'bash -c "$CMD"\n',
])
def test_a_launch_a_here_document_reads_into_a_variable_is_run_with_it(script):
    assert unpaste([script]) == (["--model-path", "qwen3-8b", "--tp", "2"],
                                 ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"])


@pytest.mark.parametrize("read", [
    "IFS='|' read -r model tp <<<\"$config\"",
    "IFS='|' read -r model tp <<< \"$config\"",
])
def test_a_row_read_apart_at_its_separator_fills_the_launch(read):
    script = (f'config="qwen3-8b|2"\n{read}\n'
              'python3 -m sglang.launch_server --model-path "$model" --tp "$tp"\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]
    rest = script.replace("model tp", "model").replace(' --tp "$tp"', "")
    assert unpaste([rest])[0] == ["--model-path", "qwen3-8b|2"]  # the last name: the rest


@pytest.mark.parametrize("loop", [
    'while read -r model tp; do\n  python3 -m sglang.launch_server --model-path "$model" '
    '--tp "$tp"\ndone <<EOT\nqwen3-8b 2\nqwen3-32b 4\nEOT\n',
    # a separator, ``do`` on a line of its own, an indented here-document
    'while IFS=, read -r model tp\ndo\n  python3 -m sglang.launch_server --model-path '
    '"$model" --tp "$tp"\ndone <<-EOF\n\tqwen3-8b,2\n\tqwen3-32b,4\nEOF\n',
])
def test_a_while_read_loop_over_here_document_rows_is_read_at_its_first_row(loop):
    # read once, as a for loop over literal words is: its first run
    assert unpaste([loop])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


@pytest.mark.parametrize("build", [
    "serve_cmd=$(printf 'export CUDA_VISIBLE_DEVICES=%q && python3 -m sglang.launch_server "
    "--model-path %q --tp-size %q' \"${GPUS}\" \"${model}\" \"${tp}\")",
    "printf -v serve_cmd 'export CUDA_VISIBLE_DEVICES=%s && python3 -m sglang.launch_server "
    "--model-path %q --tp-size %d' \"${GPUS}\" \"${model}\" \"${tp}\"",
])
def test_a_command_printf_builds_for_tmux_is_read_with_its_values(build):
    """``printf %q`` is how launchers build a command safely for ``tmux``/``ssh``: its
    conversions are the arguments, and the export the command starts with its environment."""
    script = (f"GPUS=0,1\nmodel=qwen3-8b\ntp=2\n{build}\n"
              'tmux new-session -d -s sglang "${serve_cmd}"\n')
    assert unpaste([script]) == (["--model-path", "qwen3-8b", "--tp-size", "2"],
                                 ["CUDA_VISIBLE_DEVICES=0,1"])


def test_commands_typed_into_a_tmux_session_run_in_its_one_shell():
    """``tmux send-keys`` types each command into the session's shell: an export sent before
    the launch is its environment."""
    script = ("tmux new-session -d -s sglang\n"
              'tmux send-keys -t sglang "export SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" C-m\n'
              "tmux send-keys -t sglang 'python -m sglang.launch_server --model-path qwen3-8b "
              "--context-length 200000' Enter\n")
    assert unpaste([script]) == (["--model-path", "qwen3-8b", "--context-length", "200000"],
                                 ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"])


@pytest.mark.parametrize(("load", "exported"), [
    ("export $(cat .env | xargs)", True),
    ("export $(grep -v '^#' .env | xargs)", True),
    ("set -a; source .env; set +a", True),
    ("set -o allexport\n. ./.env\nset +o allexport", True),
    ("source .env", False),  # sets the variables for the script, exports none
])
def test_a_dotenv_file_the_script_writes_is_loaded_as_the_shell_loads_it(load, exported):
    script = ("cat > .env <<EOT\nSGLANG_X=1\nEOT\n" + load +
              "\npython -m sglang.launch_server --model-path m --tp 2\n")
    assert unpaste([script]) == (["--model-path", "m", "--tp", "2"],
                                 ["SGLANG_X=1"] if exported else [])


def test_set_a_exports_the_assignments_until_set_plus_a():
    script = ("set -a\nMODEL=m\nX=1\nset +a\nY=2\n"
              "python -m sglang.launch_server --model-path $MODEL --tp 2\n")
    assert unpaste([script]) == (["--model-path", "m", "--tp", "2"], ["MODEL=m", "X=1"])
