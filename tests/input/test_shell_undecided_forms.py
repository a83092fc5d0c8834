"""Shell forms the pasted-text reader misread: an ``if`` whose test launchplan cannot decide
with a different value in each branch (the last branch's value won, silently), Slurm's
heterogeneous steps and MPI's multiple programs (``srun A : B``: the components' words were
glued into one launch), bash's associative arrays (``declare -A M=([tp]=8)``, ``M[tp]=8``,
``${M[$key]}``: left unread), and a backslash inside a command substitution (``tr ',' '\\n'``:
lost from the word the error showed). Each test fails on the reader before the fix.
"""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import launch_count, unpaste

LAUNCH = "python3 -m sglang.launch_server --model-path qwen3-8b"


@pytest.mark.parametrize("test", [
    '[ "$(nvidia-smi -L | wc -l)" -ge 8 ]', "[[ -d /data/ckpt ]]", 'grep -q H200 /proc/x',
    '[ "$ROLE" = prefill ]'])
def test_branches_an_undecided_test_picks_between_leave_the_value_open(test):
    script = f"if {test}; then\n  TP=8\nelse\n  TP=4\nfi\n{LAUNCH} --tp $TP\n"
    assert unpaste([script])[0][-1] == "${TP}"


def test_an_undecided_value_is_reported_as_left_open(capsys):
    script = f'if [ "$(nproc)" -gt 64 ]; then TP=8; else TP=4; fi\n{LAUNCH} --tp $TP\n'
    assert main(["resolve", "--gpu", "h100", script]) == 2
    err = capsys.readouterr().err
    assert "--tp-size" in err and "the pasted text leaves open" in err


def test_branches_that_agree_give_their_value():
    script = (f'if [ "$(hostname)" = a ]; then\n  export TP=8\nelif [ -d /x ]; then\n'
              f'  TP=8\nelse\n  TP=8\nfi\n{LAUNCH} --tp $TP\n')
    assert unpaste([script])[0][-1] == "8"


def test_each_undecided_branch_starts_from_the_values_before_the_block():
    script = (f'PORT=1\nif [ -f /etc/a ]; then\n  PORT=2\n  {LAUNCH} --port $PORT\n'
              f'else\n  {LAUNCH} --port $PORT\nfi\n')
    assert unpaste([script], launch=1)[0][-1] == "2"
    assert unpaste([script], launch=2)[0][-1] == "1"


def test_an_undecided_case_block_and_an_array_grown_in_it():
    script = ('ARGS=(--tp 2)\ncase "$MODE" in\n  fast) ARGS+=(--enable-torch-compile) ;;\n'
              f'  *) ARGS+=(--disable-cuda-graph) ;;\nesac\n{LAUNCH} "${{ARGS[@]}}"\n')
    assert unpaste([script])[0][-1] == "${ARGS[@]}"


def test_a_single_branch_and_decided_blocks_read_as_before():
    script = ('MODE=fast\nif [ -z "$MODEL" ]; then MODEL=qwen3-8b; fi\n'
              'if [ "$MODE" = fast ]; then TP=2; else TP=4; fi\n'
              'python3 -m sglang.launch_server --model-path $MODEL --tp $TP\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


def test_an_export_left_open_by_branches_is_open_in_the_environment():
    script = ('if [ -e /dev/infiniband ]; then export NCCL_IB_DISABLE=0; '
              f'else export NCCL_IB_DISABLE=1; fi\n{LAUNCH}\n')
    assert unpaste([script])[1][-1] == "NCCL_IB_DISABLE=${NCCL_IB_DISABLE}"


HET = ("SGLANG_X=1 srun --het-group=0 -N1 python3 -m sglang_router.launch_router --port 8000 "
       f": -N2 --gpus-per-node=8 {LAUNCH} --tp 8")


def test_a_heterogeneous_slurm_step_runs_each_component_apart():
    assert unpaste([HET]) == (["--model-path", "qwen3-8b", "--tp", "8"], ["SGLANG_X=1"])
    first = f"srun -N1 {LAUNCH} --tp 8 : -N1 python3 -m sglang_router.launch_router --port 80"
    assert unpaste([first])[0] == ["--model-path", "qwen3-8b", "--tp", "8"]


def test_each_sglang_component_of_a_multi_program_launch_is_a_launch():
    line = (f"mpirun -np 1 {LAUNCH} --disaggregation-mode prefill : -np 1 {LAUNCH} "
            "--disaggregation-mode decode")
    assert launch_count([line]) == 2
    assert unpaste([line], launch=2)[0][-1] == "decode"
    assert unpaste(["echo a : b; " + LAUNCH])[0] == ["--model-path", "qwen3-8b"]


ASSOCIATIVE = """\
declare -A CFG=(
  [model]=qwen3-8b   # the checkpoint
  ["tp"]=2
)
declare -A PORTS
PORTS[prefill]=30000
PORTS[decode]=30001
EXTRA[decode]="--disable-radix-cache --page-size 64"
role=decode
for r in "${!PORTS[@]}"; do echo "$r"; done
python3 -m sglang.launch_server --model-path ${CFG[model]} --tp ${CFG[tp]} \\
  --port ${PORTS[$role]} --dp ${#PORTS[@]} ${EXTRA[1]} ${CFG[absent]}
"""


def test_associative_arrays_give_their_items_by_key():
    argv, _ = unpaste([ASSOCIATIVE.replace("EXTRA[decode]", "EXTRA[1]")])
    assert argv == ["--model-path", "qwen3-8b", "--tp", "2", "--port", "30001", "--dp", "2",
                    "--disable-radix-cache", "--page-size", "64"]


@pytest.mark.parametrize(("lines", "word"), [
    ("GPUS=(0 1 2 3)\nGPUS[1]=7\n", "${GPUS[1]}"), ("i=2\nA[$i]=5\n", "${A[2]}"),
    ("declare -A M=([a]=1)\nM[a]+=0\nk=a\n", "${M[$k]}"),
    ("A=(1 [3]=4 5)\n", "${A[4]}")])
def test_item_assignments_set_what_a_later_reference_reads(lines, word):
    value = {"${GPUS[1]}": "7", "${A[2]}": "5", "${M[$k]}": "10", "${A[4]}": "5"}[word]
    assert unpaste([f"{lines}{LAUNCH} --tp {word}"])[0][-1] == value


def test_an_array_item_an_undecided_branch_sets_is_open():
    script = ('declare -A M=([tp]=8)\nif [ -d /data ]; then M[tp]=4; else M[tp]=2; fi\n'
              f'{LAUNCH} --tp ${{M[tp]}}\n')
    assert unpaste([script])[0][-1] == "${M[tp]}"


@pytest.mark.parametrize("written", [
    "$(echo $CUDA_VISIBLE_DEVICES | tr ',' '\\n' | wc -l)",
    '$(nvidia-smi -L | tr "\\n" , | wc -l)'])
def test_a_backslash_inside_a_command_substitution_is_kept_as_written(written, capsys):
    script = f"NGPU={written}\n{LAUNCH} --tp $NGPU\n"
    assert unpaste([script])[0][-1] == written
    assert unpaste([f"{LAUNCH} --tp {written}"])[0][-1] == written
    assert main(["resolve", "--gpu", "h100", script]) == 2
    assert "\\n" in capsys.readouterr().err  # the backslash is shown


def test_a_backquoted_value_keeps_its_backslashes():
    line = f"{LAUNCH} --tp `echo 0,1 | tr , \"\\n\" | wc -l`"
    assert unpaste([line])[0][-1] == '$(echo 0,1 | tr , "\\n" | wc -l)'
    assert unpaste([f"N=2\nTP=`expr 4 \\* $N`\n{LAUNCH} --tp $TP"])[0][-1] == "8"


@pytest.mark.parametrize(("line", "tail"), [
    ('[ "$DPA" = "1" ] && ARGS+=(--enable-dp-attention)', ["--tp", "2"]),
    ('[ "$DPA" = "0" ] && ARGS+=(--enable-dp-attention)', ["--tp", "2", "--enable-dp-attention"]),
    ('[ "$DPA" = "1" ] || ARGS+=(--dp 2)', ["--tp", "2", "--dp", "2"]),
    ('[[ $DPA == 1 ]] && ARGS+=(--dp 2) || ARGS+=(--dp 1)', ["--tp", "2", "--dp", "1"]),
    ('if [ "$DPA" = 0 ]; then ARGS+=(--dp 4); fi', ["--tp", "2", "--dp", "4"]),
])
def test_a_test_the_script_decides_rules_out_the_command_after_and_or(line, tail):
    script = f'DPA="${{DPA:-0}}"\nARGS=(--tp 2)\n{line}\n{LAUNCH} "${{ARGS[@]}}"\n'
    assert unpaste([script])[0][2:] == tail


def test_a_script_running_one_launch_and_handing_another_to_a_shell_has_both():
    # the prefill server started here, the decode server on another node over ssh: two
    # launches in the order the script starts them (ssh's remote shell gets no export)
    text = ("export TP=2\n"
            "ssh node1 \"python -m sglang.launch_server --model-path m --port 2 --tp $TP\" &\n"
            "python -m sglang.launch_server --model-path m --port 1 --tp $TP\n")
    assert launch_count([text]) == 2
    assert unpaste([text], launch=1) == (["--model-path", "m", "--port", "2", "--tp", "2"], [])
    assert unpaste([text], launch=2) == (["--model-path", "m", "--port", "1", "--tp", "2"],
                                         ["TP=2"])
    local = "python -m sglang.launch_server --model-path a &\nbash -c 'python -m " \
            "sglang.launch_server --model-path b'\n"
    assert launch_count([local]) == 2 and unpaste([local], launch=2)[0][1] == "b"


def test_a_quoted_string_a_command_only_names_is_no_second_launch():
    text = ("nohup python -m sglang.launch_server --model-path m --port 1 &\n"
            "pgrep -f \"sglang.launch_server --model-path m\" && echo \"sglang serve is up\"\n")
    assert launch_count([text]) == 1


def test_a_getopts_loop_runs_no_times_as_pasted_so_the_defaults_hold():
    script = ('MODEL_PATH="qwen3-8b"\nTP=2\n'
              'while getopts "m:t:h" opt; do\n  case $opt in\n'
              '    m) MODEL_PATH="$OPTARG" ;;\n    t) TP="$OPTARG" ;;\n'
              '    h) echo usage; exit 0 ;;\n  esac\ndone\n'
              'python -m sglang.launch_server --model-path "$MODEL_PATH" --tp $TP\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]
    # with arguments set in the script, the loop's outcome is the script's to decide
    given = script.replace("TP=2\n", "TP=2\nset -- -t 4\n")
    assert unpaste([given])[0][3] == "${TP}"  # open: which value, the run decides


@pytest.mark.parametrize("branch", [
    'if [[ "$MODEL" == *8b* ]]; then TP=2; else TP=8; fi',
    'if [[ "$MODEL" == *"8b"* ]]; then TP=2; else TP=8; fi',
    'if [[ $MODEL != *70b* ]]; then TP=2; else TP=8; fi',
    '[[ $MODEL == qwen3-?b ]] && TP=2 || TP=8',
    "case $MODEL in qwen3-8b) TP=2;; *) TP=8;; esac",
    "case $MODEL in *70b*) TP=8;; *8b) TP=2;; esac",
])
def test_a_pattern_test_of_a_name_the_script_sets_takes_its_branch(branch):
    """``[[ X == PATTERN ]]`` matches a pattern, and a ``case`` written on one line decides as
    one written over several: a script sizing tp from its model's name plans that tp."""
    script = f"MODEL=qwen3-8b\n{branch}\npython3 -m sglang.launch_server --model-path m --tp $TP\n"
    assert unpaste([script])[0] == ["--model-path", "m", "--tp", "2"]


@pytest.mark.parametrize("loop", [
    'TPS="2 4 8"\nfor tp in ${TPS}; do',
    'TPS="${TPS:-2 4 8}"\nfor tp in $TPS; do',
    "for tp in 2 4 8; do",
])
def test_a_sweep_over_a_variable_s_words_plans_its_first(loop):
    """``for tp in $TPS`` splits the value into words, as a literal list is: the body read
    once is the first run (the whole list had become one value of --tp)."""
    script = (f'{loop}\n  python3 -m sglang.launch_server --model-path m --tp "${{tp}}"\n'
              "done\n")
    assert unpaste([script])[0] == ["--model-path", "m", "--tp", "2"]
