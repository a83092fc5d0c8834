"""Launches pasted as deployment manifests: Kubernetes, LeaderWorkerSet, Compose, exec form."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.manifest import launch_in, looks_like_manifest
from launchplan.input.pasted import looks_pasted, unpaste

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  template:
    spec:
      containers:
        - name: server
          image: lmsysorg/sglang:latest
          command: ["python3", "-m", "sglang.launch_server"]
          args:
            - --model-path
            - $(MODEL_ID)
            - --tp
            - "2"
            - --port
            - 30000
          env:
            - name: MODEL_ID
              value: meta-llama/Llama-3.1-8B-Instruct
            - name: SGLANG_ENABLE_TORCH_COMPILE
              value: "1"
            - name: HF_TOKEN
              valueFrom:
                secretKeyRef: {name: hf, key: token}
"""

LEADER_WORKER_SET = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
          - name: leader
            command:
              - /bin/sh
              - -c
              - |
                python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 \\
                  --tp 16 --dist-init-addr $(LWS_LEADER_ADDRESS):20000 \\
                  --nnodes $(LWS_GROUP_SIZE) --node-rank $(LWS_WORKER_INDEX)
    workerTemplate:
      spec:
        containers:
          - name: worker
            command: ["/bin/sh", "-c", "python3 -m sglang.launch_server --tp 16"]
"""

COMPOSE = """\
services:
  sglang:
    image: lmsysorg/sglang:latest
    environment:
      SGLANG_X: "1"
    entrypoint: python3 -m sglang.launch_server
    command: --model-path meta-llama/Llama-3.1-8B-Instruct
      --host 0.0.0.0
      --tp 2
"""


def test_a_kubernetes_deployment_gives_its_container_args_and_env():
    assert looks_pasted([DEPLOYMENT]) and looks_like_manifest(DEPLOYMENT)
    argv, env = unpaste(["--gpu", "h100", DEPLOYMENT])
    assert argv == ["--gpu", "h100", "--model-path", "meta-llama/Llama-3.1-8B-Instruct",
                    "--tp", "2", "--port", "30000"]
    # literal values only: a secret's value is not in the manifest
    assert env == ["MODEL_ID=meta-llama/Llama-3.1-8B-Instruct", "SGLANG_ENABLE_TORCH_COMPILE=1"]


def test_a_leader_worker_set_plans_the_leader_with_the_sizes_it_fixes():
    argv, _ = unpaste([LEADER_WORKER_SET])
    assert argv == ["--model-path", "deepseek-ai/DeepSeek-R1", "--tp", "16",
                    "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000", "--nnodes", "2",
                    "--node-rank", "0"]


def test_compose_runs_entrypoint_then_command():
    argv, env = unpaste([COMPOSE])
    assert argv == ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--host", "0.0.0.0",
                    "--tp", "2"]
    assert env == ["SGLANG_X=1"]


@pytest.mark.parametrize("text", [
    '["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "2"]',
    'CMD ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "2"]',
    'command: ["sglang", "serve", "--model-path", "m", "--tp", "2"]',
    'args: ["/bin/bash", "-c", "pip list && SGLANG_Y=1 python3 -m sglang.launch_server '
    '--model-path m --tp 2 > /tmp/log"]',
])
def test_exec_forms_leave_the_flags(text):
    assert looks_pasted([text])
    argv, _ = unpaste([text])
    assert argv == ["--model-path", "m", "--tp", "2"]


def test_a_shell_line_inside_an_exec_form_keeps_its_assignments():
    _, env = unpaste(['command: ["sh", "-c", "SGLANG_Y=1 python3 -m sglang.launch_server '
                      '--model-path m"]'])
    assert env == ["SGLANG_Y=1"]


def test_a_list_valued_flag_is_not_taken_for_a_manifest():
    tokens = ["--model-path", "m", "--cuda-graph-bs-decode", "[1, 2]"]
    assert not looks_like_manifest("[1, 2]")
    assert not looks_pasted(tokens)


@pytest.mark.parametrize(("text", "said"), [
    ("containers:\n  - command: [python3, -m, sglang.launch_server\n  args: {", "YAML"),
    ("services:\n  web:\n    image: nginx\n    command: nginx -g 'daemon off;'\n"
     "# sglang is started elsewhere", "SGLang's launcher"),
])
def test_a_manifest_without_a_launch_is_one_line_of_bad_input(text, said, capsys):
    with pytest.raises(InputError) as err:
        launch_in(text)
    assert said in str(err.value) and "pasted manifest" in str(err.value)
    assert main(["resolve", "--gpu", "h100", text]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1
    assert "Traceback" not in out.err


def test_an_unresolved_reference_names_the_flag_that_holds_it(capsys):
    worker = LEADER_WORKER_SET.replace("--node-rank $(LWS_WORKER_INDEX)",
                                       "--node-rank $(POD_INDEX)")
    assert main(["resolve", "--gpu", "h100", worker]) == 2
    err = capsys.readouterr().err
    assert "--node-rank" in err and "$(POD_INDEX)" in err


def test_resolve_plans_a_pasted_deployment(capsys):
    assert main(["resolve", "--gpu", "h100", DEPLOYMENT, "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["resolved"]["tp_size"] == 2 and plan["resolved"]["port"] == 30000
    assert plan["resolved"]["model_path"] == "meta-llama/Llama-3.1-8B-Instruct"


def test_aliases_cannot_make_a_manifest_huge_or_cyclic():
    """As Kubernetes' own YAML decoder (go-yaml) refuses them ("excessive aliasing", "value
    contains itself"): one line of bad input at once, whether or not the launch uses them."""
    laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi"))
    with pytest.raises(InputError, match="expand to at most 100,000 values"):
        launch_in(laughs + "command: sglang\n")  # 9**9 leaves if walked through the aliases
    cyclic = "spec:\n  x: &a [*a]\n  command: [python3, -m, sglang.launch_server, --tp, '2']\n"
    with pytest.raises(InputError, match="refers to a node that contains it"):
        unpaste([cyclic])
    shared = ("spec:\n  x: &a [--tp, '2']\n  command: [python3, -m, sglang.launch_server]\n"
              "  args: *a\n")
    assert unpaste([shared])[0] == ["--tp", "2"]  # an alias of a real size is fine


def test_a_manifest_nested_beyond_reason_is_one_line_of_bad_input(capsys):
    text = "command: sglang\nx: " + "[" * 20000 + "]" * 20000
    assert main(["resolve", "--gpu", "h100", text]) == 2
    assert "nested less deeply" in capsys.readouterr().err


def test_the_gpus_a_container_requests_are_the_gpus_it_sees(capsys):
    from launchplan.input.manifest import gpus_requested

    pod = ("spec:\n  containers:\n  - name: s\n    command: [python3, -m, sglang.launch_server]\n"
           "    args: [--model-path, llama-3.3-70b, --tp, '8']\n"
           "    resources:\n      limits:\n        nvidia.com/gpu: \"4\"\n")
    assert gpus_requested(pod) == 4
    assert gpus_requested(DEPLOYMENT) is None  # no resources: the node's count stands
    compose = COMPOSE + ("    deploy:\n      resources:\n        reservations:\n"
                         "          devices:\n          - driver: nvidia\n            count: 2\n"
                         "            capabilities: [gpu]\n")
    assert gpus_requested(compose) == 2
    # a pod that asks for four GPUs cannot start tp 8, whatever the node holds
    assert main(["resolve", "--gpu", "h100", pod, "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["target"]["gpu_count"] == 4
    assert "gpus-on-node" in [p["requirement"] for p in plan["preflight"]["problems"]]
    assert main(["resolve", "--gpu", "h100", pod, "--gpu-count", "8", "--format",
                 "json"]) == 0  # an explicit count wins
    assert json.loads(capsys.readouterr().out)["target"]["gpu_count"] == 8


def test_an_exec_item_is_one_argument_as_the_container_gets_it(capsys):
    # SGLang's parser gets "--model-path m" as one argument and refuses it; so does the plan
    pod = ('spec:\n  containers:\n  - command: ["python3", "-m", "sglang.launch_server"]\n'
           '    args: ["--model-path llama-3.1-8b", "--tp", "2"]\n')
    assert unpaste([pod])[0] == ["--model-path llama-3.1-8b", "--tp", "2"]
    assert main(["resolve", "--gpu", "h100", pod]) == 2
    err = capsys.readouterr().err
    assert "two items" in err and len(err.strip().splitlines()) == 1


def test_compose_device_ids_and_gpus_requests_count_the_gpus():
    from launchplan.input.manifest import gpus_requested

    pinned = COMPOSE + ("    deploy:\n      resources:\n        reservations:\n"
                        "          devices:\n          - driver: nvidia\n"
                        "            device_ids: [\"1\", \"3\"]\n            capabilities: [gpu]\n")
    assert gpus_requested(pinned) == 2
    assert gpus_requested(COMPOSE + "    gpus:\n    - driver: nvidia\n      count: 4\n") == 4
    assert gpus_requested(COMPOSE + "    gpus: all\n") is None


@pytest.mark.parametrize(("option", "count"), [
    ("--gpus all", None), ("--gpus 2", 2), ("--gpus '\"device=0,1,2\"'", 3),
    ("--gpus=device=7", 1), ("--gpus '\"device=0,1\",capabilities=compute'", 2),
])
def test_docker_gpus_is_the_gpu_count_the_launch_sees(option, count, capsys):
    line = (f"docker run --rm {option} -e SGLANG_X=1 lmsysorg/sglang:latest python3 -m "
            "sglang.launch_server --model-path llama-3.1-8b --tp 4")
    assert main(["resolve", "--gpu", "h100", line, "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["target"]["gpu_count"] == (count or 8)
    short = "gpus-on-node" in [p["requirement"] for p in plan["preflight"]["problems"]]
    assert short == (count is not None and count < 4)


def test_a_helm_template_is_named_as_one(capsys):
    template = ("containers:\n  - name: sglang\n    command: [python3, -m, sglang.launch_server]\n"
                "    args: [--model-path, llama-3.1-8b]\n    resources:\n      limits:\n"
                "        nvidia.com/gpu: {{ .Values.gpus }}\n")
    assert main(["resolve", "--gpu", "h100", template]) == 2
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert first.startswith("launchplan: the pasted manifest:") and "helm template" in first


_POD = ("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: s\n"
        "    command: [python3, -m, sglang.launch_server]\n"
        "    args: [--model-path, llama-3.3-70b, --tp, '8']\n"
        "    env:\n    - name: SGLANG_X\n      value: '1'\n"
        "    resources:\n      limits:\n        nvidia.com/gpu: \"4\"\n")


@pytest.mark.parametrize("script", [
    f"cat <<'EOF' | kubectl apply -f -\n{_POD}EOF\n",
    f"kubectl apply -f - <<EOF\n{_POD}EOF\nkubectl get pods -w\n",
    f"$ cat <<EOF | kubectl create --filename=- -n serving\n{_POD}EOF",
])
def test_a_manifest_a_here_document_feeds_to_kubectl_apply_is_the_launch(script, capsys):
    # the shell line only delivers it: the text was refused as running cat and kubectl apply
    notes: list[str] = []
    assert unpaste([script], notes=notes) == (["--model-path", "llama-3.3-70b", "--tp", "8"],
                                              ["SGLANG_X=1"])
    assert "here-document to kubectl apply" in notes[0]
    assert main(["resolve", "--gpu", "h100", script, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["target"]["gpu_count"] == 4  # the pod's GPUs


def test_a_here_document_that_is_no_sglang_manifest_is_left_as_it_was(capsys):
    # a config file a here-document writes is still that file, and a manifest of another
    # engine fed to kubectl is still no SGLang launch
    script = ("cat > c.yaml <<EOF\ntp-size: 2\nEOF\n"
              "python -m sglang.launch_server --model-path m --config c.yaml")
    assert unpaste([script])[0] == ["--tp-size", "2", "--model-path", "m"]
    vllm = "kubectl apply -f - <<EOF\nkind: Pod\nspec:\n  containers:\n  - command: [vllm]\nEOF"
    assert main(["resolve", "--gpu", "h100", vllm]) == 2
    assert "it runs kubectl apply" in capsys.readouterr().err


def test_a_role_based_groups_leader_worker_variables_are_its_size_and_the_leaders_index():
    rbg = ("kind: RoleBasedGroup\nspec:\n  roles:\n  - name: backend\n    leaderWorkerPattern:\n"
           "      size: 2\n      template:\n        spec:\n          containers:\n"
           "          - command: [python3, -m, sglang.launch_server, --model-path, m, --tp, '16',"
           " --dist-init-addr, '$(RBG_LWP_LEADER_ADDRESS):6379', --nnodes,"
           " $(RBG_LWP_GROUP_SIZE), --node-rank, $(RBG_LWP_WORKER_INDEX)]\n")
    assert unpaste([rbg])[0] == ["--model-path", "m", "--tp", "16", "--dist-init-addr",
                                 "$(RBG_LWP_LEADER_ADDRESS):6379", "--nnodes", "2",
                                 "--node-rank", "0"]
    # a worker's own patch is not the leader: its index stays unknown
    worker = rbg.replace("      template:", "      workerTemplatePatch:")
    assert unpaste([worker])[0][-1] == "$(RBG_LWP_WORKER_INDEX)"


def test_a_manifest_indented_as_a_whole_is_read_without_its_indent():
    # a fence inside a page's tab or a list item keeps its lines at the fence's indent: the
    # first line's indent went with the text's ends, the others' stayed (a YAML error)
    page = ('=== "AMD"\n\n    <div editor-title="examples/.dstack.yml">\n\n    ```yaml\n'
            '    type: service\n    image: lmsysorg/sglang:latest\n    env:\n'
            '      - MODEL_ID=qwen3-8b\n    commands:\n'
            '      - python3 -m sglang.launch_server\n         --model-path $MODEL_ID\n'
            '         --tp 2\n    port: 8000\n    ```\n    </div>\n')
    assert unpaste([page]) == (["--model-path", "qwen3-8b", "--tp", "2"],
                               ["MODEL_ID=qwen3-8b"])


ANSIBLE = """\
- hosts: gpu
  tasks:
    - name: Start SGLang container
      docker_container:
        name: sglang
        image: lmsysorg/sglang:latest
        env:
          HF_TOKEN: "{{ lookup('ansible.builtin.env', 'HF_TOKEN') }}"
          CUDA_DEVICE_ORDER: PCI_BUS_ID
          SGLANG_ENABLE_JIT_DEEPGEMM: 0
        device_requests:
          - driver: nvidia
            count: 2
            capabilities:
              - ['gpu','nvidia']
        command: >
          python3
          -m sglang.launch_server
          --model-path qwen3-8b
"""


def test_a_container_env_given_as_a_mapping_is_its_environment():
    # Ansible's docker_container (like Nomad's env block) maps names to values; a value the
    # tool renders from a template is not known to the paste, so it is left out
    assert unpaste([ANSIBLE]) == (["--model-path", "qwen3-8b"],
                                  ["CUDA_DEVICE_ORDER=PCI_BUS_ID",
                                   "SGLANG_ENABLE_JIT_DEEPGEMM=0"])


def test_docker_device_requests_count_the_gpus_the_container_sees():
    from launchplan.input.manifest import gpus_requested

    assert gpus_requested(ANSIBLE) == 2
    assert gpus_requested(ANSIBLE.replace("count: 2", "count: -1")) is None  # every GPU


def test_a_workflows_and_jobs_env_reach_the_run_script_of_a_step():
    # GitHub Actions sets a workflow's env, then its job's, then the step's, for the step's
    # run script: a job pinning CUDA_VISIBLE_DEVICES narrows the launch in every step
    workflow = ("name: e2e\non: push\nenv:\n  PORT: '8413'\njobs:\n  gpu-job:\n"
                "    runs-on: self-hosted\n    env:\n      CUDA_VISIBLE_DEVICES: 6\n"
                "    steps:\n    - uses: actions/checkout@v3\n    - name: Launch\n"
                "      env:\n        TP: '1'\n      run: |\n"
                "        python3 -m sglang.launch_server --model-path qwen3-8b --port $PORT"
                " --tp $TP &\n        sleep 60\n")
    assert unpaste([workflow]) == (["--model-path", "qwen3-8b", "--port", "8413", "--tp", "1"],
                                   ["PORT=8413", "CUDA_VISIBLE_DEVICES=6", "TP=1"])


def test_a_vast_template_launches_from_the_variables_its_image_reads():
    # vastai/sglang runs no command a template gives: its supervisor script starts
    # ``sglang serve --model-path $SGLANG_MODEL $SGLANG_ARGS``, adding the instance's GPU
    # count as the TP size unless AUTO_PARALLEL is false or the args set a parallel size
    template = ('image: vastai/sglang\ntag: latest\nenv:\n'
                '  SGLANG_MODEL: "qwen3-8b"\n  SGLANG_ARGS: "--port 18000 --context-length 4096"\n')
    assert unpaste([template])[0] == ["--model-path", "qwen3-8b", "--port", "18000",
                                      "--context-length", "4096",
                                      "--tensor-parallel-size", "$GPU_COUNT"]
    fixed = template + '  AUTO_PARALLEL: "false"\n'
    assert unpaste([fixed])[0][-1] == "4096"
    # another image, or no model, is no launch
    with pytest.raises(InputError):
        unpaste([template.replace("SGLANG_MODEL", "MODEL")])


def test_an_editors_debug_configuration_runs_its_module_with_its_args_and_env():
    # VS Code's launch.json is JSON with comments and trailing commas; a configuration
    # that launches a module runs python -m MODULE ARGS in its env, one launch each
    config = ('{\n  // debug configurations\n  "version": "0.2.0",\n  "configurations": [\n'
              '    {"name": "serve", "type": "debugpy", "request": "launch",\n'
              '     "module": "sglang.launch_server",\n'
              '     "args": ["--model-path", "/models/m", "--tp-size", "2",\n'
              '              // "--disable-cuda-graph",\n'
              '              "--port", "30000",],\n'
              '     "env": {"CUDA_VISIBLE_DEVICES": "6,7", /* "X": "1" */}},\n'
              '    {"name": "prefill", "type": "debugpy", "request": "launch",\n'
              '     "module": "sglang.launch_server", "args": ["--model-path", "/models/m",\n'
              '     "--disaggregation-mode", "prefill", "--url", "http://h:1//x"]},\n  ]\n}\n')
    assert looks_like_manifest(config)
    assert unpaste([config]) == (["--model-path", "/models/m", "--tp-size", "2",
                                  "--port", "30000"], ["CUDA_VISIBLE_DEVICES=6,7"])
    assert unpaste([config], launch=2)[0][-2:] == ["--url", "http://h:1//x"]


def _inspected_record(count: int | None) -> dict:
    """A ``docker inspect`` container record as Docker writes it (trimmed)."""
    argv = ["-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--tp", "2"]
    return {"Id": "4f1c", "Path": "python3", "Args": argv,
            "Config": {"Env": ["SGLANG_ENABLE_JIT_DEEPGEMM=0", "PATH=/usr/local/bin:/usr/bin"],
                       "Cmd": ["python3", *argv], "Entrypoint": None,
                       "Image": "lmsysorg/sglang:latest"},
            "HostConfig": {"DeviceRequests": None if count is None else [
                {"Driver": "", "Count": count, "DeviceIDs": None, "Capabilities": [["gpu"]],
                 "Options": {}}]}}


@pytest.mark.parametrize("dumps", [lambda r: json.dumps([r], indent=4),
                                   lambda r: json.dumps([r], separators=(",", ":"))])
def test_docker_inspect_runs_path_and_args_in_config_env(dumps):
    # Path + Args is the argv Docker started (Config.Cmd repeats it: one launch, not two);
    # the compact form is what ``docker inspect --format '{{json .}}'`` prints
    text = dumps(_inspected_record(2))
    assert unpaste([text]) == (["--model-path", "Qwen/Qwen3-8B", "--tp", "2"],
                               ["SGLANG_ENABLE_JIT_DEEPGEMM=0", "PATH=/usr/local/bin:/usr/bin"])
    from launchplan.input.manifest import gpus_requested, launch_total

    assert launch_total(text) == 1 and gpus_requested(text) == 2
    assert gpus_requested(dumps(_inspected_record(None))) is None


def test_a_kubernetes_variable_the_manifest_leaves_unset_is_named_as_one(capsys):
    manifest = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: sg\nspec:\n"
                "  template:\n    spec:\n      containers:\n        - name: sglang\n"
                "          image: lmsysorg/sglang:latest\n"
                '          command: ["python3", "-m", "sglang.launch_server"]\n'
                '          args: ["--model-path", "qwen3-8b", "--tp", "$(TP_SIZE)"]\n')
    assert main(["resolve", "--gpu", "h100", manifest]) == 2
    err = capsys.readouterr().err
    assert "got '$(TP_SIZE)'" in err and "Kubernetes fills it from the container's env" in err
    assert "command substitution" not in err and err.count("\n") == 1


def test_an_llmaz_services_workload_template_sets_the_group_size():
    # llmaz's Service wraps a LeaderWorkerSet: its workloadTemplate.size is LWS_GROUP_SIZE
    service = ("apiVersion: inference.llmaz.io/v1alpha1\nkind: Service\nmetadata:\n  name: s\n"
               "spec:\n  workloadTemplate:\n    size: 2\n    leaderTemplate:\n      spec:\n"
               "        containers:\n          - name: model-runner\n"
               "            command: [python3, -m, sglang.launch_server, --model-path, "
               "qwen3-8b, --tp, '2', --nnodes, $(LWS_GROUP_SIZE), --node-rank, '0']\n")
    assert unpaste([service])[0] == ["--model-path", "qwen3-8b", "--tp", "2", "--nnodes", "2",
                                     "--node-rank", "0"]


CONFIG_MAP_DEPLOYMENT = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: sglang-config}
data: {MODEL_ID: qwen3-8b, TP: "2", SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN: "1"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: sglang}
spec:
  template:
    spec:
      containers:
        - name: sglang
          envFrom: [{configMapRef: {name: sglang-config}}]
          env:
            - name: MODEL
              valueFrom: {configMapKeyRef: {name: sglang-config, key: MODEL_ID}}
            - name: TP
              value: "4"
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "$(MODEL)", "--tp", "$(TP)"]
"""


def test_a_config_map_pasted_with_its_deployment_fills_the_containers_variables():
    argv, env = unpaste([CONFIG_MAP_DEPLOYMENT])
    # the map's entries, then the container's own env over them, as Kubernetes sets them
    assert argv == ["--model-path", "qwen3-8b", "--tp", "4"]
    assert "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" in env and "MODEL=qwen3-8b" in env
    # without the map the variables stay unset
    alone = CONFIG_MAP_DEPLOYMENT.split("---\n", 1)[1]
    assert unpaste([alone])[0][1] == "$(MODEL)"


@pytest.mark.parametrize("text", [
    # GitLab CI: the file's variables reach every job's script, a job's its own
    "variables:\n  MODEL: qwen3-8b\nserve:\n  image: lmsysorg/sglang:latest\n  variables:\n"
    '    SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN: "1"\n  script:\n'
    "    - python3 -m sglang.launch_server --model-path $MODEL --context-length 200000\n",
    # a Taskfile's env beside its vars
    "version: '3'\nvars:\n  MODEL: qwen3-8b\n"
    "env:\n  SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN: \"1\"\n"
    "tasks:\n  serve:\n    cmds:\n      - python -m sglang.launch_server --model-path "
    "{{.MODEL}} --context-length 200000\n",
])
def test_a_ci_file_s_variables_and_a_taskfile_s_env_reach_the_launch(text):
    argv, env = unpaste([text])
    assert argv == ["--model-path", "qwen3-8b", "--context-length", "200000"]
    assert "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" in env


def test_a_quoted_manifest_piped_through_envsubst_gets_the_exported_values():
    """``cat <<'EOF' | envsubst | kubectl apply -f -``: the shell leaves the quoted
    here-document alone, envsubst fills in what the script exported."""
    script = ("export MODEL=qwen3-8b TP=2\ncat <<'EOF' | envsubst | kubectl apply -f -\n"
              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: sglang\nspec:\n  containers:\n"
              "  - name: sglang\n    image: lmsysorg/sglang:latest\n"
              '    command: ["python3", "-m", "sglang.launch_server", "--model-path", '
              '"${MODEL}", "--tp", "${TP}"]\nEOF\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]
    plain = script.replace(" | envsubst", "")  # kubectl gets the references as written
    assert unpaste([plain])[0] == ["--model-path", "${MODEL}", "--tp", "${TP}"]


def test_a_program_that_builds_a_manifest_is_named_as_code_not_bad_yaml(capsys):
    """A Pulumi (or CDK8s) program holds a container spec as code; YAML's parse error about
    it would point at a line of the program. The line says what the text is instead."""
    program = ('const deployment = new k8s.apps.v1.Deployment("sglang", {\n'
               "  spec: { template: { spec: { containers: [{\n"
               '    name: "sglang",\n'
               '    command: ["python3", "-m", "sglang.launch_server"],\n'
               '    args: ["--model-path", modelPath, "--tp", "2"],\n'
               "  }] } } },\n});\nconst modelPath = \"qwen3-8b\";\n")
    assert main(["resolve", "--gpu", "h100", program]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "JavaScript or TypeScript" in err
    assert "mapping values" not in err



def test_a_hyperpod_worker_s_environment_variables_are_its_environment():
    """SageMaker HyperPod's InferenceEndpointConfig names a worker container's environment
    ``environmentVariables`` (name/value items, as a container's ``env``): a Chinese
    deployment guide's (find_string id 19029851687) reaches the plan."""
    from launchplan.input.pasted import unpaste

    text = ("apiVersion: inference.sagemaker.aws.amazon.com/v1\nkind: InferenceEndpointConfig\n"
            "spec:\n  worker:\n    image: lmsysorg/sglang:latest\n"
            "    command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-8B,"
            " --tp, \"2\"]\n    environmentVariables:\n      - name: SGLANG_ENABLE_JIT_DEEPGEMM\n"
            "        value: \"0\"\n")
    assert unpaste([text]) == (["--model-path", "Qwen/Qwen3-8B", "--tp", "2"],
                               ["SGLANG_ENABLE_JIT_DEEPGEMM=0"])
