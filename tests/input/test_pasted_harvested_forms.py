"""Forms of pasted launches a harvest of real launch configurations showed launchplan
misreading: a ``--config`` YAML whose comment names the launcher, the variables SkyPilot
and dstack set from a task's own resources, a RoleBasedGroup role built from a shared
template and a patch, a Python argv grown by a comprehension over a dict of flags, a tuple
assignment of literals, and an assignment before ``docker run`` expanded in its own words.
Each test fails on the reader before these forms were handled.
"""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.input.manifest import gpus_requested
from launchplan.input.pasted import launch_count, unpaste

COMMENTED_CONFIG = """\
# SGLang server configuration
# Start with: python -m sglang.launch_server --config data/server_args.yaml

model-path: qwen3-8b
tp-size: 2
enable-metrics: true
"""


def test_a_config_yaml_whose_comment_names_the_launcher_is_read_as_the_config(capsys):
    # a YAML comment runs nothing: the text is the config it documents, not a shell script
    assert unpaste([COMMENTED_CONFIG]) == (
        ["--model-path", "qwen3-8b", "--tp-size", "2", "--enable-metrics"], [])
    assert main(["resolve", "--gpu", "h100", "--format", "json", COMMENTED_CONFIG]) == 0
    assert json.loads(capsys.readouterr().out)["resolved"]["tp_size"] == 2


SKYPILOT_TWO_NODES = """\
resources:
  accelerators: {H200:8, H100:8}
num_nodes: 2

run: |
  HEAD=$(echo "$SKYPILOT_NODE_IPS" | head -n1)
  TP=$(($SKYPILOT_NUM_GPUS_PER_NODE * $SKYPILOT_NUM_NODES))
  python -m sglang.launch_server --model-path deepseek-r1 --tp $TP \\
    --dist-init-addr ${HEAD}:5000 --nnodes ${SKYPILOT_NUM_NODES} \\
    --node-rank ${SKYPILOT_NODE_RANK} --trust-remote-code
"""


def test_skypilots_variables_are_set_from_the_tasks_accelerators_and_nodes():
    argv, env = unpaste([SKYPILOT_TWO_NODES])
    assert argv[argv.index("--tp") + 1] == "16"
    assert argv[argv.index("--nnodes") + 1] == "2"
    assert argv[argv.index("--node-rank") + 1] == "0"  # the head node's
    assert env == []  # the platform's variables, no setting of the launch
    one_node = ("resources:\n  accelerators: H100:4\nrun: |\n  python -m sglang.launch_server "
                "--model-path m --tp $SKYPILOT_NUM_GPUS_PER_NODE --nnodes $SKYPILOT_NUM_NODES\n")
    assert unpaste([one_node])[0] == ["--model-path", "m", "--tp", "4", "--nnodes", "1"]


@pytest.mark.parametrize(("accelerators", "count"), [
    ("H100:4", "4"), ("[A100-80GB:8, H100:8]", "8"), ("{H200:8, H100:4}", None),
    ("H100", None), ("A100:0.5", None)])
def test_a_skypilot_gpu_count_is_known_when_every_alternative_gives_the_same_one(
        accelerators, count, capsys):
    text = (f"resources:\n  accelerators: {accelerators}\nrun: |\n  python -m "
            "sglang.launch_server --model-path qwen3-8b --tp $SKYPILOT_NUM_GPUS_PER_NODE "
            "--node-rank $SKYPILOT_NODE_RANK\n")
    argv, _ = unpaste([text])
    assert argv[-1] == "0"
    assert argv[argv.index("--tp") + 1] == (count or "$SKYPILOT_NUM_GPUS_PER_NODE")
    if count is None:  # a count the task leaves open is not guessed
        assert main(["resolve", "--gpu", "h100", text]) == 2
        assert "--tp-size: expected an integer, got '$SKYPILOT_NUM_GPUS_PER_NODE'" in (
            capsys.readouterr().err)


def test_a_tasks_gpu_count_holds_when_gpu_names_the_type_to_plan_on(capsys):
    """``--gpu b200`` names the GPU type; the task still gets the two GPUs it asks for, so a
    tp 4 launch does not fit (unless the count is given, with --gpu-count or in --gpu)."""
    text = ("resources:\n  accelerators: H100:2\nrun: |\n  python -m sglang.launch_server "
            "--model-path qwen3-8b --tp 4\n")

    def planned(*flags: str) -> dict:
        assert main(["resolve", *flags, text, "--format", "json"]) == 0
        return json.loads(capsys.readouterr().out)

    on_b200 = planned("--gpu", "b200")
    assert on_b200["target"]["gpu_count"] == 2 and on_b200["target"]["device_name"] == (
        "NVIDIA B200")
    assert any(p["requirement"] == "gpus-on-node" for p in on_b200["preflight"]["problems"])
    assert planned("--gpu", "8xb200")["target"]["gpu_count"] == 8
    assert planned("--gpu", "b200", "--gpu-count", "4")["target"]["gpu_count"] == 4
    assert planned()["target"]["gpu_count"] == 2  # the task's own GPU, as before


DSTACK = """\
type: service
name: qwen
image: lmsysorg/sglang:latest
commands:
  - python3 -m sglang.launch_server --model-path qwen3-8b --tp $DSTACK_GPUS_NUM
    --node-rank $DSTACK_NODE_RANK
port: 8000
resources:
  gpu: {gpu}
"""


@pytest.mark.parametrize(("gpu", "nodes", "total"), [
    ("H100:4", "", "4"), ("H100:80GB:2", "", "2"), ("H100:4", "nodes: 2\n", "8"),
    ("{name: H100, count: 2}", "", "2"), ("H100:4..", "", None), ("80GB", "", None)])
def test_dstacks_gpu_total_is_the_count_times_the_nodes(gpu, nodes, total, capsys):
    text = DSTACK.format(gpu=gpu) + nodes
    argv, env = unpaste([text])
    assert argv[-1] == "0"  # the first node's rank
    assert argv[argv.index("--tp") + 1] == (total or "$DSTACK_GPUS_NUM")
    assert env == []
    assert main(["resolve", "--gpu", "h100", text]) == (0 if total else 2)
    if total is None:  # a range (or no count written) is not guessed
        assert "got '$DSTACK_GPUS_NUM'" in capsys.readouterr().err


RBG_TEMPLATE = """\
apiVersion: workloads.x-k8s.io/v1alpha2
kind: RoleBasedGroup
metadata:
  name: from-a-template
spec:
  roleTemplates:
    - name: engine-base
      template:
        spec:
          containers:
            - name: engine
              image: lmsysorg/sglang:v0.5.9
              env:
                - name: SGLANG_A
                  value: "1"
              resources:
                limits:
                  nvidia.com/gpu: "1"
  roles:
    - name: backend
      replicas: 1
      standalonePattern:
        templateRef:
          name: engine-base
          patch:
            spec:
              containers:
                - name: engine
                  env:
                    - name: SGLANG_B
                      value: "2"
                  command: [python3, -m, sglang.launch_server, --model-path, qwen3-0.6b,
                            --tp-size, "2"]
"""


def test_a_role_built_from_a_template_and_a_patch_keeps_the_templates_gpu_request(capsys):
    # the controller merges the patch into the template by container name: the pod runs the
    # patch's command with the template's one GPU (and both env lists)
    assert gpus_requested(RBG_TEMPLATE) == 1
    assert unpaste([RBG_TEMPLATE]) == (["--model-path", "qwen3-0.6b", "--tp-size", "2"],
                                       ["SGLANG_A=1", "SGLANG_B=2"])
    assert launch_count([RBG_TEMPLATE]) == 1
    assert main(["resolve", "--gpu", "h100", "--format", "json", RBG_TEMPLATE]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["target"]["gpu_count"] == 1
    assert plan["preflight"]["verdict"] == "fails-at-start"


def test_a_v1alpha1_role_with_a_template_patch_beside_its_reference_is_merged_too():
    text = RBG_TEMPLATE.replace("""\
      standalonePattern:
        templateRef:
          name: engine-base
          patch:
""", """\
      templateRef:
        name: engine-base
      templatePatch:
""")
    assert gpus_requested(text) == 1
    assert unpaste([text])[1] == ["SGLANG_A=1", "SGLANG_B=2"]


MODAL_SPECULATIVE = '''\
import subprocess
import modal

GPU_TYPE, N_GPUS = "H100!", 2
MODEL = "qwen3-30b-a3b-fp8"

speculative_config = {"speculative-algorithm": "EAGLE"}
speculative_config |= {"speculative-num-steps": 3, "speculative-eagle-topk": 1}
speculative_config.update({"speculative-num-draft-tokens": 4})

app = modal.App("s")


@app.cls(gpu=f"{GPU_TYPE}:{N_GPUS}")
class Server:
    @modal.enter()
    def start(self):
        cmd = ["python", "-m", "sglang.launch_server", "--model-path", MODEL,
               "--tp", f"{N_GPUS}"]
        cmd += [item for k, v in speculative_config.items() for item in (f"--{k}", str(v))]
        cmd.append("--enable-metrics")
        self.process = subprocess.Popen(cmd)
'''


def test_a_python_argv_grown_by_a_comprehension_over_a_literal_dict_is_read():
    argv, _ = unpaste([MODAL_SPECULATIVE])
    assert argv == ["--model-path", "qwen3-30b-a3b-fp8", "--tp", "2",
                    "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
                    "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
                    "--enable-metrics"]


def test_a_python_argv_grown_in_a_way_not_read_is_named_in_a_note(capsys):
    text = MODAL_SPECULATIVE.replace('speculative_config.update({"speculative-num-draft-tokens":'
                                     ' 4})', "speculative_config.update(load_extra())")
    notes: list[str] = []
    argv, _ = unpaste([text], notes=notes)
    assert "--speculative-algorithm" not in argv and "--enable-metrics" in argv
    assert len(notes) == 1 and "argv cmd grows at line 20" in notes[0]
    assert "cannot read" in notes[0]
    assert main(["resolve", "--gpu", "h100", "--format", "json", text]) == 0
    assert any("argv cmd grows" in w for w in json.loads(capsys.readouterr().out)["warnings"])


def test_a_tuple_assignment_of_literals_sets_each_name():
    text = ('import subprocess\nGPU_TYPE, N_GPUS = "H100!", 2\n'
            'subprocess.Popen(["python", "-m", "sglang.launch_server", "--model-path", "m", '
            '"--tp", f"{N_GPUS}", "--served-model-name", f"m-{GPU_TYPE}"])\n')
    assert unpaste([text])[0] == ["--model-path", "m", "--tp", "2",
                                  "--served-model-name", "m-H100!"]


def test_an_assignment_before_docker_run_is_the_clients_not_its_arguments():
    # bash expands the command's words with the shell's A (1); A=2 is the docker client's
    # environment, which a bare -e A passes into the container
    text = ("A=1\nA=2 docker run -e X=$A -e A img python -m sglang.launch_server "
            "--model-path m --port $A")
    assert unpaste([text]) == (["--model-path", "m", "--port", "1"], ["X=1", "A=2"])
    quoted = "A=1\nbash -c \"A=2 docker run -e X=$A img python -m sglang.launch_server " \
             "--model-path m\""
    assert unpaste([quoted])[1] == ["X=1"]


def test_a_root_shell_transcript_is_read_without_its_prompts():
    """An issue's reproduction pasted from a root shell (every command after ``# ``): as
    comments it holds no command, and the launch was lost without a word while the model
    given after the text was planned bare. With one line not so prompted, ``#`` lines stay
    comments, as the shell reads them."""
    from launchplan.input.pasted import unpaste

    notes: list[str] = []
    text = ("# pip install accelerate\n# sglang serve --model-path x --quantization "
            "modelopt_fp4 \\\n    --kv-cache-dtype fp8_e4m3 --tp 2")
    argv, _ = unpaste([text], notes=notes)
    assert argv == ["--model-path", "x", "--quantization", "modelopt_fp4", "--kv-cache-dtype",
                    "fp8_e4m3", "--tp", "2"]
    assert any("root shell" in note for note in notes)
    argv, _ = unpaste(["# sglang serve --model-path x --tp 2\n"
                       "python -m sglang.launch_server --model-path y"])
    assert argv == ["--model-path", "y"]


HTTP_SERVER_SCRIPT = '''\
from sglang.srt.entrypoints.http_server import launch_server
from sglang.srt.server_args import ServerArgs

PORT = 8112

def start_server(rollout_args):
    server_args = ServerArgs(
        model_path=rollout_args.model_id,
        port=PORT,
        tp_size=rollout_args.tensor_parallel_size,
        load_balancing_method="auto",
    )
    launch_server(server_args)

if __name__ == "__main__":
    server_args = ServerArgs(
        model_path="qwen3-0.6b",
        port=PORT,
        tp_size=1,
        lora_target_modules=["qkv_proj", "o_proj"],
        mem_fraction_static=0.85,
        enable_lora=True,
    )
    launch_server(server_args)
'''


def test_a_script_that_starts_the_http_server_from_its_own_server_args_is_a_launch(capsys):
    # ServerArgs(...) built in the script and handed to SGLang's launch_server (or to
    # run_server): the object's keywords are the launch, as for Engine(server_args=...)
    assert launch_count([HTTP_SERVER_SCRIPT]) == 2
    argv, env = unpaste([HTTP_SERVER_SCRIPT], launch=2)
    assert argv == ["--model-path", "qwen3-0.6b", "--port", "8112", "--tp-size", "1",
                    "--lora-target-modules", "qkv_proj", "o_proj",
                    "--mem-fraction-static", "0.85", "--enable-lora"]
    assert env == []
    inline = ("import sglang.launch_server as ls\nfrom sglang.srt.server_args import "
              "ServerArgs\nls.run_server(ServerArgs(model_path='m', tp_size=2))\n")
    assert unpaste([inline])[0] == ["--model-path", "m", "--tp-size", "2"]
    # the first launch's keyword is no ServerArgs field: named as SGLang refuses it
    assert main(["resolve", "--gpu", "h100", HTTP_SERVER_SCRIPT]) == 2
    err = capsys.readouterr().err
    assert err.startswith("launchplan: ServerArgs(load_balancing_method=...): expected a "
                          "ServerArgs field") and err.count("\n") == 1


def test_a_server_started_from_arguments_the_script_does_not_hold_is_no_launch():
    # prepare_server_args(sys.argv[1:]) is the command line the wrapper is given: no launch
    wrapper = ("import sys\nfrom sglang.srt.entrypoints.http_server import launch_server\n"
               "from sglang.srt.server_args import ServerArgs, prepare_server_args\n"
               "server_args = prepare_server_args(sys.argv[1:])\nlaunch_server(server_args)\n")
    assert launch_count([wrapper]) == 0


def test_another_launch_that_is_bad_input_does_not_stop_the_one_chosen(capsys):
    # of several launches the chosen one is planned; one that cannot be read is listed as
    # such, its error given only when it is the one planned
    text = ('import sglang as sgl\na = sgl.Engine(model_path="qwen3-0.6b", bogus_kw=1)\n'
            'b = sgl.Engine(model_path="qwen3-0.6b", tp_size=2)\n')
    assert main(["resolve", "--gpu", "h100", "--launch", "2", "--format", "json", text]) == 0
    data = json.loads(capsys.readouterr().out)
    listed = next(n for n in data["warnings"] if "launch commands" in n)
    assert "[1] not readable (sgl.Engine(bogus_kw=...))" in listed and "[2]" in listed
    assert data["resolved"]["tp_size"] == 2
    assert main(["resolve", "--gpu", "h100", text]) == 2
    assert "sgl.Engine(bogus_kw=...)" in capsys.readouterr().err
    assert main(["resolve", "--gpu", "h100", "--launch", "2", "--format", "json",
                 HTTP_SERVER_SCRIPT]) == 0
    assert json.loads(capsys.readouterr().out)["resolved"]["lora_target_modules"] == [
        "qkv_proj", "o_proj"]


def test_a_traceback_quoting_launch_server_under_a_logged_server_args_is_no_script():
    # an issue's launch, its logged ServerArgs(...) and a traceback through launch_server:
    # the shell launch is the one read, not a Python script
    text = ("python3 -m sglang.launch_server --model-path qwen3-8b --tp 2\n"
            "[2026-01-01 10:00:00] server_args=ServerArgs(model_path='qwen3-8b', tp_size=2)\n"
            "Traceback (most recent call last):\n"
            '  File "/sgl-workspace/sglang/python/sglang/launch_server.py", line 14, in <module>\n'
            "    launch_server(server_args)\n")
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


@pytest.mark.parametrize(("cell", "argv"), [
    # a table cell's command broken by <br> before each flag: one command, as the page shows
    ("python3 -m sglang.launch_server --model-path qwen3-8b<br>--tp 2<br/>--port 30000",
     ["--model-path", "qwen3-8b", "--tp", "2", "--port", "30000"]),
    # a break after a continuation backslash, a trailing break, upper case
    ("python3 -m sglang.launch_server --model-path qwen3-8b \\<br>--dp 2<BR />",
     ["--model-path", "qwen3-8b", "--dp", "2"]),
    # a break before another command: a new line, never words of the launch
    ("pip install sglang<br>python3 -m sglang.launch_server --model-path qwen3-8b --tp 2",
     ["--model-path", "qwen3-8b", "--tp", "2"]),
])
def test_html_line_breaks_of_a_table_cell_are_the_lines_they_show(cell, argv):
    assert unpaste([cell])[0] == argv


@pytest.mark.parametrize("text", [
    # Python: a + chain over a continuation, in parentheses, with a name and str()
    'cmd = "python3 -m sglang.launch_server --model-path qwen3-8b " + \\\n'
    '      "--tp-size 2 --port 8000"\nos.system(cmd)\n',
    'cmd = ("python3 -m sglang.launch_server --model-path qwen3-8b "\n'
    '       + "--tp-size 2" + " --port 8000")\nsubprocess.Popen(cmd, shell=True)\n',
    'tp = 2\ncmd = "python3 -m sglang.launch_server --model-path qwen3-8b --tp-size " '
    '+ str(tp) + " --port 8000"\nos.system(cmd)\n',
    # Go: adjacent literals do not join, so a long command is built with +
    'cmd := "python3 -m sglang.launch_server --model-path qwen3-8b " +\n'
    '\t"--tp-size 2 --port 8000"\nreturn []string{"sh", "-c", cmd}\n',
    # JavaScript
    'const cmd = "python3 -m sglang.launch_server --model-path qwen3-8b " +\n'
    '  "--tp-size 2 --port 8000";\nexecSync(cmd);\n',
])
def test_a_command_joined_with_plus_is_read_whole(text):
    """Every piece of a ``+`` chain is the launch's (only the first was read, the rest of the
    flags lost without a word)."""
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp-size", "2", "--port", "8000"]


def test_a_name_between_two_pieces_stays_open_and_the_call_around_them_is_no_value():
    java = ('frame.setCmd("python3 -m sglang.launch_server --model-path " + path + '
            '" --tp 1 --port 8080 --served-model-name model");\n')
    assert unpaste([java])[0] == ["--model-path", "${path}", "--tp", "1", "--port", "8080",
                                  "--served-model-name", "model"]
    go = ('cmd := fmt.Sprintf("python3 -m sglang.launch_server --model-path m "+\n'
          '    "--mem-fraction-static 0.5", port)\n')
    assert unpaste([go])[0] == ["--model-path", "m", "--mem-fraction-static", "0.5"]


@pytest.mark.parametrize("join", [
    '" ".join([f"--{k} {v}" for k, v in serve_params.items()])',
    '" ".join(f"--{k}={v}" for k, v in serve_params.items())',
])
def test_flags_kept_in_a_dict_and_joined_by_a_comprehension_are_the_launch_s(join):
    """Modal's idiom: the server's flags in a dict (inside the method that starts it), joined
    into the command line; a value only the run knows stays open."""
    script = ("class Model:\n    def enter(self):\n        serve_params = {\n"
              '            "model-path": "qwen3-8b",\n            "tp": 2,\n'
              '            "port": 8000,\n'
              '            "cuda-graph-max-bs": " ".join(map(str, range(1, 13))),\n'
              "        }\n"
              f'        serve_cmd = "python -m sglang.launch_server " + {join}\n'
              "        subprocess.Popen(serve_cmd, shell=True)\n")
    argv = unpaste([script])[0]
    flat = [p for w in argv for p in w.split("=", 1)] if "=" in join else argv
    assert flat[:6] == ["--model-path", "qwen3-8b", "--tp", "2", "--port", "8000"]
    assert flat[6] == "--cuda-graph-max-bs" and flat[7].startswith("${")


@pytest.mark.parametrize("text", [
    'x = "python -m sglang.launch_server " + ' + " + ".join(['"a"'] * 3000) + "\n",
    "import sglang as sgl\nllm = sgl.Engine(model_path=" + "(" * 3000 + '"m"' + ")" * 3000 + ")\n",
], ids=["plus-chain", "nested-parentheses"])
def test_a_text_nested_deeper_than_python_s_parser_is_bad_input_not_a_crash(text):
    """Python's parser gives up on thousands of nested operands (RecursionError): such a
    text is read as no program, one clear line at most, never a traceback."""
    from launchplan.errors import LaunchplanError

    try:
        unpaste([text])
    except LaunchplanError as exc:
        assert str(exc)


@pytest.mark.parametrize("line", [
    "CUDA_VISIBLE_DEVICES=0,1 nohup conda run -n sgl python -m sglang.launch_server",
    "CUDA_VISIBLE_DEVICES=0,1 nohup uv run python -m sglang.launch_server",
    "CUDA_VISIBLE_DEVICES=0,1 timeout 7200 sudo -E python3 -m sglang.launch_server",
    "CUDA_VISIBLE_DEVICES=0,1 exec conda run --no-capture-output -n sgl python -m "
    "sglang.launch_server",
    "CUDA_VISIBLE_DEVICES=0,1 nohup numactl --cpunodebind=0 --membind=0 timeout 3600 "
    "taskset -c 0-31 conda run -n sgl python -m sglang.launch_server",
])
def test_the_environment_before_stacked_wrappers_is_the_launchs(line):
    # a run tool (conda, uv, sudo -E) behind another wrapper still runs in the environment
    # set before the first
    assert unpaste([f"{line} --model-path m --tp 4 > log 2>&1 &"]) == (
        ["--model-path", "m", "--tp", "4"], ["CUDA_VISIBLE_DEVICES=0,1"])


def test_an_srun_behind_nohup_gives_its_gpu_request():
    from launchplan.input.gpu_request import slurm_gpus

    line = "nohup srun --gres=gpu:2 python -m sglang.launch_server --model-path m --tp 4 &"
    assert slurm_gpus(line) == (2, "--gres=gpu:2")
    assert slurm_gpus("X=1 setsid nohup srun -G 4 python -m sglang.launch_server")[0] == 4
