"""Shell, page and manifest forms a tenth harvest of real launch texts found misread: each
test fails without its fix."""

from __future__ import annotations

import pytest

from launchplan.errors import InputError
from launchplan.input.pasted import launch_count, runner_gpus, unpaste

SHELL_BLOCK = ("```bash\npython -m sglang.launch_server --model-path qwen/qwen2.5-0.5b-instruct\n"
               "```\n")
POWERSHELL_BLOCK = ("```powershell\ndocker run -d --gpus all `\n    lmsysorg/sglang:latest `\n"
                    "    python3 -m sglang.launch_server `\n"
                    "        --model-path qwen/qwen2.5-0.5b-instruct\n```\n")
COMPOSE_BLOCK = ("```yaml\nservices:\n  sglang:\n    image: lmsysorg/sglang:latest\n"
                 "    command: python3 -m sglang.launch_server --model-path qwen3-8b --tp 2\n"
                 "    deploy:\n      resources:\n        reservations:\n          devices:\n"
                 "            - driver: nvidia\n              count: 2\n"
                 "              capabilities: [gpu]\n```\n")
FIRST = ["--model-path", "qwen/qwen2.5-0.5b-instruct"]


@pytest.mark.parametrize("page", [
    SHELL_BLOCK + "\n" + COMPOSE_BLOCK,
    POWERSHELL_BLOCK + "\n" + COMPOSE_BLOCK,
    "Run:\n" + SHELL_BLOCK + "\nOr with Docker Compose:\n" + COMPOSE_BLOCK + "\nDone.\n"])
def test_a_page_of_a_shell_block_and_a_compose_block_reads_each_as_its_kind(page):
    """A docs page shows ``python -m sglang.launch_server`` (or a PowerShell ``docker run``)
    and then "or with Docker Compose" and a ```` ```yaml ```` ``services:`` block: each
    block is a file of its own kind, the launches counted in page order (find_string id
    56921946352, a Windows Docker + SGLang guide). The whole page was loaded as YAML."""
    assert launch_count([page]) == 2
    assert unpaste([page])[0] == FIRST
    assert unpaste([page], launch=2)[0] == ["--model-path", "qwen3-8b", "--tp", "2"]
    assert runner_gpus([page], 2) == 2


def test_a_compose_block_that_starts_nothing_is_no_part_of_the_shell_launch():
    """A ``services:`` block beside the launch that runs no SGLang is another file."""
    page = SHELL_BLOCK + "\n```yaml\nservices:\n  web:\n    image: nginx\n```\n"
    assert launch_count([page]) == 1
    assert unpaste([page])[0] == FIRST


def test_a_compose_block_before_the_shell_block_is_launch_one():
    """Page order: the Compose block first is the first launch."""
    page = COMPOSE_BLOCK + "\n" + SHELL_BLOCK
    assert unpaste([page])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]
    assert unpaste([page], launch=2)[0] == FIRST


def test_a_launch_flags_config_block_stays_with_the_page():
    """A YAML block of SGLang's own flags (a ``--config`` file) is no manifest: the page is
    read as before."""
    page = SHELL_BLOCK + "\n```yaml\ntp-size: 2\n```\n"
    assert launch_count([page]) == 1
    assert unpaste([page])[0][:2] == FIRST


LAUNCH = "python3 -m sglang.launch_server --model-path qwen3-8b"


@pytest.mark.parametrize("loop", [
    "for x in --trust-remote-code --enable-metrics; do\n  ARGS+=(\"$x\")\ndone\n",
    "for x in --trust-remote-code --enable-metrics; do ARGS+=(\"$x\"); done\n",
    "F=\"--trust-remote-code --enable-metrics\"\nfor x in $F; do ARGS+=(\"$x\"); done\n",
    "L=(--trust-remote-code --enable-metrics)\nfor x in \"${L[@]}\"; do ARGS+=(\"$x\"); done\n"])
def test_a_loop_that_collects_flags_runs_once_per_item(loop):
    """``for x in A B; do ARGS+=("$x"); done``: bash runs the body once for each word of the
    list (bash(1), "for name in word"); read once, it kept the first flag alone and dropped
    the others silently (find_string id 69040551975, a GLM-5.2 MI355X decode launcher)."""
    text = "ARGS=()\n" + loop + LAUNCH + ' "${ARGS[@]}"\n'
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--trust-remote-code",
                                  "--enable-metrics"]


def test_a_batch_size_loop_with_a_test_collects_what_passes():
    """The GLM-5.2 launcher's form: the batch sizes under the concurrency, then the
    concurrency itself."""
    text = ("CONC=64\nB=()\nfor b in 1 2 4 8 16 32 64 128; do\n"
            '    [ "$b" -lt "$CONC" ] && B+=("$b")\ndone\nB+=("$CONC")\n'
            + LAUNCH + ' --cuda-graph-bs "${B[@]}"\n')
    assert unpaste([text])[0][2:] == ["--cuda-graph-bs", "1", "2", "4", "8", "16", "32", "64"]


@pytest.mark.parametrize("head", ["for i in $(seq 0 3)", "for i in `seq 0 3`",
                                  "for i in {0..3}", "for ((i=0; i<4; i++))",
                                  "N=4\nfor ((i=0; i<N; i++))"])
def test_a_gpu_list_built_in_a_loop_over_a_known_range(head):
    """``GPUS="${GPUS}${GPUS:+,}$i"`` over ``$(seq 0 3)``: a ``seq`` (or brace range, or
    C-style loop) with literal bounds is known; the variable was the loop's ``$i``."""
    text = (f'GPUS=""\n{head}; do GPUS="${{GPUS}}${{GPUS:+,}}$i"; done\n'
            f"CUDA_VISIBLE_DEVICES=$GPUS {LAUNCH} --tp 4\n")
    assert unpaste([text])[1] == ["CUDA_VISIBLE_DEVICES=0,1,2,3"]


def test_a_c_style_loop_body_runs_its_count():
    """``for ((i=0;i<3;i++)); do A+=(--enable-metrics); done``: the body was never applied."""
    text = "A=()\nfor ((i=0;i<2;i++)); do A+=(--enable-metrics); done\n" + LAUNCH + ' "${A[@]}"\n'
    assert unpaste([text])[0][2:] == ["--enable-metrics", "--enable-metrics"]


def test_a_string_of_batch_sizes_built_in_a_loop_is_split_unquoted():
    """``BS="$BS $b"`` then ``--cuda-graph-bs $BS``: the unquoted value's numbers are words."""
    text = 'BS=""\nfor b in 1 2 4 8; do BS="$BS $b"; done\n' + LAUNCH + " --cuda-graph-bs $BS\n"
    assert unpaste([text])[0][2:] == ["--cuda-graph-bs", "1", "2", "4", "8"]


def test_a_loop_over_what_the_text_does_not_hold_is_not_unrolled():
    """``for f in $(ls ...)``: the items are the machine's; the loop is read as before."""
    text = ("A=()\nfor x in $(cat /etc/flags); do A+=(\"$x\"); done\n"
            + LAUNCH + ' "${A[@]}"\n')
    assert "--enable-metrics" not in unpaste([text])[0]


def test_a_loop_that_launches_is_read_once_as_before():
    """A sweep that starts a server per item stays one launch (its first item)."""
    text = "for tp in 1 2 4; do\n  " + LAUNCH + " --tp $tp\ndone\n"
    assert launch_count([text]) == 1
    assert unpaste([text])[0][2:] == ["--tp", "1"]


@pytest.mark.parametrize(("line", "env"), [
    ("env $COMMON sglang serve --model-path qwen3-8b", ["A=1", "B=2"]),
    ("env $COMMON X=4 nohup sglang serve --model-path qwen3-8b", ["A=1", "B=2", "X=4"]),
    ("env $COMMON X=4 setsid nohup sglang serve --model-path qwen3-8b > s.log 2>&1 < /dev/null &",
     ["A=1", "B=2", "X=4"]),
    ("env ${COMMON} X=4 setsid python -m sglang.launch_server --model-path qwen3-8b",
     ["A=1", "B=2", "X=4"])])
def test_env_takes_the_assignments_an_unquoted_variable_holds(line, env):
    """``COMMON="A=1 B=2"`` then ``env $COMMON X=4 setsid nohup sglang serve ...``: the
    shell splits the value before env runs, and env(1) takes every leading NAME=VALUE
    operand as an assignment; they were dropped, and all of them after ``setsid``
    (find_string id 57071237830, a Qwen3.6 replay-SSM experiment script)."""
    text = f'COMMON="A=1 B=2"\n{line}\n'
    argv, assigned = unpaste([text])
    assert argv == ["--model-path", "qwen3-8b"]
    assert assigned == env


@pytest.mark.parametrize(("tail", "shown", "file"), [
    ("$(cat /etc/sglang-args.conf)", "$(cat /etc/sglang-args.conf)", "/etc/sglang-args.conf"),
    ("`cat args.txt`", "`cat args.txt`", "args.txt"),
    ("$(< /etc/sglang.args)", "$(< /etc/sglang.args)", "/etc/sglang.args"),
    ("$([[ -f /etc/a.conf ]] && cat /etc/a.conf)", "$([[ -f /etc/a.conf ]] && cat /etc/a.conf)",
     "/etc/a.conf")])
def test_flags_from_a_command_substitution_are_named_as_such(tail, shown, file):
    """``... --model-path M $(cat /etc/sglang-args.conf)``: bash splits what the command
    prints into more flags, read from a file the paste does not include; the error said
    --model-path took a single value, or showed the backquoted command cut at its space
    (find_string id 8380672113, a vast.ai SGLang supervisor script)."""
    from launchplan.input.cli import parse_argv

    argv = unpaste([f"python -m sglang.launch_server --model-path qwen3-8b --tp 2 {tail}"])[0]
    with pytest.raises(InputError) as caught:
        parse_argv(argv)
    message = str(caught.value)
    assert f"got {shown!r}" in message
    assert f"the flags read from {file}, a file the paste does not include" in message
    assert "takes a single value" not in message



@pytest.mark.parametrize(("text", "argv", "env"), [
    ('ENV HF_HOME=/models\nCMD ["sh", "-c", "sglang serve --model-path qwen3-8b --port 30000 '
     '--host 0.0.0.0"]\n', ["--model-path", "qwen3-8b", "--port", "30000", "--host", "0.0.0.0"],
     ["HF_HOME=/models"]),
    ('ENV HF_HOME=/models\nCMD ["python3", "-m", "sglang.launch_server", "--model-path", '
     '"qwen3-8b", "--tp", "2"]\n', ["--model-path", "qwen3-8b", "--tp", "2"], ["HF_HOME=/models"]),
    ('ENV A=0\nENTRYPOINT ["python3", "-m", "sglang.launch_server"]\n'
     'CMD ["--model-path", "qwen3-8b", "--tp", "2"]\n', ["--model-path", "qwen3-8b", "--tp", "2"],
     ["A=0"]),
    ("ENV A=0\nCMD python3 -m sglang.launch_server --model-path qwen3-8b --tp 2\n",
     ["--model-path", "qwen3-8b", "--tp", "2"], ["A=0"])])
def test_a_dockerfile_piece_without_from_is_read_as_a_dockerfile(text, argv, env):
    """``ENV ...`` then ``CMD [...]``, the tail of a Dockerfile a README quotes: read as
    shell, the exec form's closing bracket was glued to the last value and the ENV lost,
    or nothing launched (find_string id 173416124, an OpenShift GLM-Image Dockerfile)."""
    assert unpaste([text]) == (argv, env)


def test_a_shell_script_with_a_lower_case_env_command_is_no_dockerfile():
    """``env A=1 python -m ...`` is the shell's env(1): the script is read as before."""
    text = "env A=1 python3 -m sglang.launch_server --model-path qwen3-8b\necho started\n"
    assert unpaste([text]) == (["--model-path", "qwen3-8b"], ["A=1"])


POD = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n  - name: w\n"
       "    image: lmsysorg/sglang:latest\n    command: {command}\n    args:\n      - |\n"
       "        ulimit -l unlimited && python3 -m dynamo.sglang \\\n"
       "          --model-path \"$MODEL_PATH\" --tp-size 2\n    env:\n"
       "      - name: MODEL_PATH\n        value: /opt/models/qwen\n")


@pytest.mark.parametrize("command", ['["/bin/sh", "-c"]', '["bash", "-lc"]'])
def test_a_refused_container_is_named_by_the_server_its_script_starts(command):
    """``sh -c "ulimit -l unlimited && python3 -m dynamo.sglang ..."``: the container runs
    Dynamo's worker; the message named its variables and ``ulimit`` (find_string id
    61943743512, a Dynamo DGD recipe page)."""
    with pytest.raises(InputError) as caught:
        unpaste([POD.format(command=command)])
    message = str(caught.value)
    assert "its containers run python3 -m dynamo.sglang" in message
    assert "ulimit" not in message and "MODEL_PATH=" not in message


TERRAFORM = '''{locals}resource "kubernetes_deployment" "sglang" {{
  metadata {{
    name = "sglang"
  }}
  spec {{
    template {{
      spec {{
        container {{
          name    = "sglang"
          image   = var.image
          command = ["python3", "-m", "sglang.launch_server"]
          args    = {args}
          env {{
            name  = "HF_HUB_OFFLINE"
            value = "1"
          }}
          resources {{
            limits = {{
              "nvidia.com/gpu" = 2
            }}
          }}
        }}
      }}
    }}
  }}
}}
'''


@pytest.mark.parametrize(("locals_", "args"), [
    ("", '["--model-path", "Qwen/Qwen3-8B", "--tp-size", "2"]'),
    ('locals {\n  sglang_args = ["--model-path", "Qwen/Qwen3-8B", "--tp-size", "2"]\n}\n',
     "local.sglang_args"),
    ('locals {\n  base = [\n    "--model-path", "Qwen/Qwen3-8B",\n  ]\n'
     '  tp = 2\n  all = concat(local.base, ["--tp-size", tostring(local.tp)])\n}\n',
     "local.all")])
def test_a_terraform_kubernetes_deployment_is_read_as_its_container(locals_, args):
    """``resource "kubernetes_deployment"`` with ``container { command = [...] args = [...]
    env {...} }`` in HCL: the container it declares, as the same Kubernetes YAML is read;
    it was read as shell, "it runs resource, spec, template" (find_string id 61643365277,
    a GLM-5 LMCache EKS blueprint)."""
    text = TERRAFORM.format(locals=locals_, args=args)
    assert unpaste([text]) == (["--model-path", "Qwen/Qwen3-8B", "--tp-size", "2"],
                               ["HF_HUB_OFFLINE=1"])
    assert runner_gpus([text]) is None  # the pod's request, read by the manifest reader


def test_a_terraform_variable_stays_open():
    """``var.model_path``: a ``-var`` or ``.tfvars`` file sets it, whatever its default."""
    text = TERRAFORM.format(locals="", args='["--model-path", var.model_path, "--tp-size", '
                                           'tostring(var.tp)]')
    assert unpaste([text])[0] == ["--model-path", "${var.model_path}", "--tp-size", "${var.tp}"]
