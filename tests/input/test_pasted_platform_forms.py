"""Launches that a hosting platform or a sandbox holds: a command under the platform's own key
(Baseten Truss's ``start_command``), a sandbox runner's own environment options (bubblewrap's
and systemd-run's ``--setenv``), read as the platform or runner runs them."""

from __future__ import annotations

import pytest

from launchplan.errors import InputError
from launchplan.input.pasted import unpaste


def test_a_command_under_a_compound_command_key_is_the_launch():
    # Truss runs docker_server.start_command in the container: a string split into words
    # (a plain scalar folded over two lines is one line to YAML), or ``sh -c "..."``
    truss = ("base_image:\n  image: lmsysorg/sglang:latest\ndocker_server:\n"
             "  start_command: python3 -m sglang.launch_server --model-path /models/m\n"
             "    --tp 2 --port 8000\n  server_port: 8000\n")
    assert unpaste([truss]) == (["--model-path", "/models/m", "--tp", "2", "--port", "8000"], [])
    shell = truss.replace("start_command: python3", 'start_command: sh -c "X=1 python3') \
        .replace("8000\n  server", '8000"\n  server')
    assert unpaste([shell]) == (["--model-path", "/models/m", "--tp", "2", "--port", "8000"],
                                ["X=1"])
    # other spellings of the same key; a setup hook beside it that starts nothing is not it
    camel = ("service:\n  preStartCommand: pip install 'x<2'\n  startCommand:\n"
             "    - sglang\n    - serve\n    - --model-path\n    - m\n")
    assert unpaste([camel]) == (["--model-path", "m"], [])


def test_a_command_key_whose_command_starts_no_launcher_is_not_the_launch():
    # a config whose command runs another program (naming sglang only in a value) is
    # refused as a manifest that starts nothing
    with pytest.raises(InputError, match="none that does"):
        unpaste(["job:\n  start_command: python3 serve.py --model sglang-model\n"])


def test_a_sandbox_runner_sets_the_launchs_environment_with_its_setenv_options():
    # bubblewrap's --setenv takes the name and the value as two arguments; its other
    # options (binds, --chdir) are the sandbox's, not the launch's
    bwrap = ("exec bwrap --ro-bind /srv/rootfs/usr /usr --setenv CUDA_VISIBLE_DEVICES 0,1 \\\n"
             "  --setenv SGLANG_X \"${SGLANG_X:-1}\" --chdir /work \\\n"
             "  python -m sglang.launch_server --model-path m --tp 2\n")
    assert unpaste([bwrap]) == (["--model-path", "m", "--tp", "2"],
                                ["CUDA_VISIBLE_DEVICES=0,1", "SGLANG_X=1"])
    # systemd-run's takes one NAME=VALUE (or --setenv=NAME=VALUE); -p sets a unit property
    unit = ("systemd-run --user --scope -p MemoryMax=3G --setenv=SGLANG_X=1 "
            "--setenv HF_HOME=/h -- python -m sglang.launch_server --model-path m")
    assert unpaste([unit]) == (["--model-path", "m"], ["SGLANG_X=1", "HF_HOME=/h"])


def test_sagemaker_variables_are_the_flags_the_sagemaker_image_starts_sglang_with():
    # the SageMaker SDK's env mapping: each SM_SGLANG_<NAME> is --<name> and its value;
    # the image adds the port, host and model path it defaults to when none is given
    sdk = ('model = Model(\n    image_uri="x.dkr.ecr.us-west-2.amazonaws.com/sglang:server",\n'
           '    env={\n        "SM_SGLANG_MODEL_PATH": "Qwen/Qwen3-8B",\n'
           '        "HF_TOKEN": "<token>",\n        "SM_SGLANG_TP_SIZE": "2",\n'
           '        "SM_SGLANG_ENABLE_METRICS": "true",\n'
           '        "SM_SGLANG_DISABLE_RADIX_CACHE": "false",\n    },\n)\n')
    assert unpaste([sdk]) == (["--model-path", "Qwen/Qwen3-8B", "--tp-size", "2",
                               "--enable-metrics", "--port", "8080", "--host", "0.0.0.0"],
                              ["HF_TOKEN=<token>"])
    # a docker line's -e options, the last value of a name winning; no model path given
    line = ("docker run --gpus all -e SM_SGLANG_TP_SIZE=4 -e SM_SGLANG_PORT=9000 "
            "-e SM_SGLANG_TP_SIZE=8 -e SGLANG_X=1 sglang:sagemaker")
    assert unpaste([line]) == (["--port", "9000", "--tp-size", "8", "--host", "0.0.0.0",
                                "--model-path", "/opt/ml/model"], ["SGLANG_X=1"])


def test_a_launch_command_beside_sagemaker_variables_is_the_launch():
    text = ("export SM_SGLANG_TP_SIZE=8\n"
            "python3 -m sglang.launch_server --model-path m --tp-size 2\n")
    # the export stays an environment variable, which SGLang itself does not read
    assert unpaste([text]) == (["--model-path", "m", "--tp-size", "2"], ["SM_SGLANG_TP_SIZE=8"])


def test_an_image_whose_entrypoint_is_the_launcher_takes_the_flags_after_it():
    # the AWS Deep Learning Containers' SGLang server image runs the launcher itself: the
    # words after the image are its flags (Docker's own options before it, -e kept)
    aws = ("docker run --gpus all --ipc=host -p 30000:30000 -e HF_TOKEN=t -it --rm \\\n"
           "  public.ecr.aws/deep-learning-containers/sglang:server-amzn2023-cuda \\\n"
           "  --model-path m --tp 8\n")
    assert unpaste([aws]) == (["--model-path", "m", "--tp", "8"], ["HF_TOKEN=t"])
    # lmsysorg/sglang has no such entrypoint: given flags only, it starts no launch
    with pytest.raises(InputError, match="got none"):
        unpaste([aws.replace("public.ecr.aws/deep-learning-containers/sglang:server-"
                             "amzn2023-cuda", "lmsysorg/sglang:latest")])


def test_a_pasted_dockerfiles_launcher_entrypoint_starts_the_runs_given_only_flags():
    page = ("```dockerfile\nFROM nvidia/cuda:12.8.0-devel-ubuntu22.04\n"
            "RUN pip3 install \"sglang[all]\"\n"
            "ENTRYPOINT [\"python3\", \"-m\", \"sglang.launch_server\"]\n```\n\n"
            "```bash\ndocker run -d --name s --gpus all -v /h:/root/.cache mine:v2 \\\n"
            "  --model-path m --port 8000\n```\n")
    assert unpaste([page]) == (["--model-path", "m", "--port", "8000"], [])


def test_a_json_task_definition_is_a_manifest_and_its_environment_list_is_read():
    # an ECS task definition: JSON, its container's command the flags of an image whose
    # entrypoint is the launcher, its environment a list of name/value objects
    task = ('{\n  "family": "sglang",\n  "containerDefinitions": [\n    {\n'
            '      "image": "public.ecr.aws/deep-learning-containers/sglang:server-cuda",\n'
            '      "command": ["--model-path", "m", "--host", "0.0.0.0"],\n'
            '      "environment": [{"name": "HF_TOKEN", "value": "t"}]\n    }\n  ]\n}\n')
    assert unpaste([task]) == (["--model-path", "m", "--host", "0.0.0.0"], ["HF_TOKEN=t"])
    # a JSON mapping of flags is no container spec: it stays out of the manifest reader
    with pytest.raises(InputError, match="expected an SGLang launch"):
        unpaste(['{\n  "model-path": "m",\n  "served-model-name": "sglang-x"\n}\n'])
    # under a page's heading and in a fence, as a docs page shows it
    page = f"### Task Definition\n\n```json\n{task}```\n"
    assert unpaste([page]) == (["--model-path", "m", "--host", "0.0.0.0"], ["HF_TOKEN=t"])


def test_a_python_literal_that_hands_the_launch_to_another_programs_shell_is_read():
    # the string a script runs is screen's, whose bash -c script starts the launcher
    script = ('def start(model):\n    cmd = (\n'
              '        f"screen -dmS sglang bash -c \'"\n'
              '        f"source /root/venv/bin/activate && "\n'
              '        f"python3 -m sglang.launch_server --model-path {model} --tp 4 "\n'
              '        f"2>&1 | tee /root/logs/sglang.log\'"\n    )\n')
    assert unpaste([script]) == (["--model-path", "${model}", "--tp", "4"], [])


def test_the_real_bubblewrap_script_gives_its_setenv_values_to_the_launch():
    import json
    from pathlib import Path

    lines = json.loads((Path(__file__).parent / "data" / "pasted_lines.json").read_text())
    text = next(e["text"] for e in lines if "57774020576" in e["source"])
    argv, env = unpaste([text])
    assert argv[argv.index("--tp-size") + 1] == "4"
    assert "CUDA_VISIBLE_DEVICES=0,1,2,3" in env and "SGLANG_M3_FORCE_STATIC=1" in env
    assert "NCCL_SOCKET_IFNAME=lo" in env  # a ${NAME:-default} the script leaves unset


@pytest.mark.parametrize("entrypoint, after", [
    ("--entrypoint sglang", "serve --model-path m --tp 2"),
    ("--entrypoint=sglang", "serve --model-path m --tp 2"),
    ("--entrypoint python3", "-m sglang.launch_server --model-path m --tp 2"),
    ("--entrypoint '[\"python3\", \"-m\", \"sglang.launch_server\"]'", "--model-path m --tp 2"),
])
def test_a_runs_entrypoint_option_runs_the_words_after_the_image(entrypoint, after):
    line = (f"docker run --rm --name s {entrypoint} --gpus all --shm-size 64g "
            f"--env CUDA_VISIBLE_DEVICES=0,1 registry/img:v1 {after}")
    assert unpaste([line]) == (["--model-path", "m", "--tp", "2"], ["CUDA_VISIBLE_DEVICES=0,1"])


def test_a_compose_extension_field_is_a_template_not_a_service():
    # the x- field holds the entrypoint the service merges in with its own command: the
    # service is the launch, the template (which Compose never runs) is not
    compose = ("x-common: &common\n  image: lmsysorg/sglang:latest\n"
               "  entrypoint: [\"sglang\", \"serve\"]\n\nservices:\n  llm:\n    <<: *common\n"
               "    command:\n      - --model-path=m\n      - --tp-size=2\n")
    assert unpaste([compose]) == (["--model-path=m", "--tp-size=2"], [])


def test_a_comment_inside_a_continued_run_keeps_the_dockerfile_one():
    # Docker drops comment lines before it joins continuations: the RUN goes on after one
    dockerfile = ("FROM lmsysorg/sglang:latest\n"
                  "RUN pip install --upgrade pip && \\\n"
                  "    # then the extra package\n"
                  "    pip install hf-transfer\n"
                  "ENV HF_HUB_ENABLE_HF_TRANSFER=1\n"
                  'CMD ["python3", "-m", "sglang.launch_server", "--model-path", "qwen3-8b", '
                  '"--tp", "2"]\n')
    assert unpaste([dockerfile]) == (["--model-path", "qwen3-8b", "--tp", "2"],
                                     ["HF_HUB_ENABLE_HF_TRANSFER=1"])


@pytest.mark.parametrize(("script", "env"), [
    # a prefixed variable is set without its prefix inside the container
    ("export APPTAINERENV_SGLANG_SET_CPU_AFFINITY=0\nexport HF_HOME=/h\n"
     "apptainer exec --nv sglang.sif python3 -m sglang.launch_server --model-path m",
     ["HF_HOME=/h", "SGLANG_SET_CPU_AFFINITY=0"]),
    # --cleanenv: only the prefixed ones and --env get in
    ("export SINGULARITYENV_HF_HUB_OFFLINE=1\nexport HF_HOME=/h\n"
     "singularity exec --nv --cleanenv --env CUDA_VISIBLE_DEVICES=0,1 img.sif "
     "python3 -m sglang.launch_server --model-path m",
     ["HF_HUB_OFFLINE=1", "CUDA_VISIBLE_DEVICES=0,1"]),
])
def test_apptainer_passes_its_prefixed_variables_and_cleanenv_keeps_the_rest_out(script, env):
    assert unpaste([script]) == (["--model-path", "m"], env)
    # the same container running the launch through its shell's -c passes the same
    shell = script.replace("python3 -m sglang.launch_server --model-path m",
                           'bash -c "python3 -m sglang.launch_server --model-path m"')
    assert unpaste([shell]) == (["--model-path", "m"], env)


@pytest.mark.parametrize("runner", [
    "docker run --gpus 2 --ipc=host lmsysorg/sglang:latest",
    "docker run --gpus '\"device=0,1\"' lmsysorg/sglang:latest",
    "podman run --device nvidia.com/gpu=0 --device nvidia.com/gpu=1 img",
])
@pytest.mark.parametrize("shell", ["bash -c", "sh -c", "/bin/bash -lc"])
def test_a_container_s_gpus_reach_a_launch_its_shell_runs(runner, shell):
    """``docker run --gpus 2 IMAGE bash -c "python -m ..."`` (the form that also has to cd or
    pip install first) gives the launch the container's two GPUs, as without the shell."""
    from launchplan.input.pasted import runner_gpus

    launch = "python3 -m sglang.launch_server --model-path m --tp 4"
    assert runner_gpus([f'{runner} {shell} "cd /srv && {launch}"']) == 2
    assert runner_gpus([f"{runner} {launch}"]) == 2
    assert runner_gpus([f'{runner} {shell} "echo python -m sglang"']) is None


def test_a_powershell_scripts_own_variables_fill_its_launch():
    script = ('$MODEL_PATH = "qwen3-8b"\n[int]$PORT = 32123\n$TP = (Read-Host "tp")\n'
              '$env:SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN = "1"\n'
              'python -m sglang.launch_server `\n    --model-path $MODEL_PATH `\n'
              '    --port $PORT\n')
    assert unpaste([script]) == (["--model-path", "qwen3-8b", "--port", "32123"],
                                 ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"])
    # a value PowerShell computes is no literal: a flag holding it stays open
    computed = script.replace("--port $PORT", "--tp $TP")
    assert unpaste([computed])[0][-1] in ("$TP", "${TP}")


PS_TABLE = ('param(\n    [ValidateSet("2b", "3b")]\n    [string]$JudgeModel = "2b"\n)\n'
            '$spec = @{\n    "2b" = @{\n        Name = "Qwen2-VL-2B"\n'
            '        ServedName = "qwen2-vl-2b-awq"\n    }\n'
            '    "3b" = @{ Name = "Qwen2.5-VL-3B"; ServedName = "qwen2.5-vl-3b-awq" }\n'
            '}[$JudgeModel]\n$modelPath = Join-Path $root "cache\\$($spec.Name)"\n'
            'docker run --rm --gpus all `\n    lmsysorg/sglang:latest `\n'
            '    python3 -m sglang.launch_server `\n    --model-path /models/judge `\n'
            '    --served-model-name $spec.ServedName\n')


@pytest.mark.parametrize(("script", "served"), [
    # a hashtable literal, indexed by a literal parameter: its entry's member
    (PS_TABLE, "qwen2-vl-2b-awq"),
    (PS_TABLE.replace('= "2b"\n)', '= "3b"\n)'), "qwen2.5-vl-3b-awq"),
    (PS_TABLE.replace("}[$JudgeModel]", '}["3b"]'), "qwen2.5-vl-3b-awq"),
    (PS_TABLE.replace("$spec.ServedName", "$($spec.ServedName)"), "qwen2-vl-2b-awq"),
    (PS_TABLE.replace("}[$JudgeModel]", "}").replace('"2b" = @{', "Small = @{")
     .replace("$spec.ServedName", "$spec.small.ServedName"), "qwen2-vl-2b-awq"),  # nested
    # the index the script works out when it runs, a member the table lacks, a value it
    # computes: the member read stays open as written, never the table literal's first
    # characters; a member of a string the script sets is open too
    (PS_TABLE.replace('[string]$JudgeModel = "2b"', "[string]$JudgeModel"),
     "$spec.ServedName"),
    (PS_TABLE.replace("$spec.ServedName", "$spec.Alias"), "$spec.Alias"),
    (PS_TABLE.replace('ServedName = "qwen2-vl-2b-awq"', "ServedName = (Get-Name)"),
     "$spec.ServedName"),
    ('$name = "qwen"\npython -m sglang.launch_server --model-path m '
     "--served-model-name $name.Length\n", "${name.Length}"),
])
def test_a_powershell_member_read_is_the_tables_value_or_open(script, served):
    argv, _ = unpaste([script])
    assert argv[-2:] == ["--served-model-name", served]
    assert not any("@{" in word for word in argv)


def test_what_a_quoted_script_exports_reaches_the_shell_it_hands_its_launch_to():
    # srun bash -lc '... export ...; singularity exec ... bash -lc "python -m ..."'
    script = ("bash -c '\n  export SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1\n"
              '  singularity exec --nv img.sif bash -lc "python3 -m sglang.launch_server '
              "--model-path m --context-length 200000\"\n'\n")
    assert unpaste([script]) == (["--model-path", "m", "--context-length", "200000"],
                                 ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"])


@pytest.mark.parametrize(("line", "env"), [
    ("sudo CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server --model-path m",
     ["CUDA_VISIBLE_DEVICES=0,1"]),  # sudo sets NAME=VALUE words for its command
    ("sudo -E -u svc SGLANG_X=1 python3 -m sglang.launch_server --model-path m",
     ["SGLANG_X=1"]),
    ("mpirun -np 1 -x CUDA_VISIBLE_DEVICES=0,1 -x SGLANG_X=1 python3 -m "
     "sglang.launch_server --model-path m", ["CUDA_VISIBLE_DEVICES=0,1", "SGLANG_X=1"]),
    ("mpirun -np 1 -genv SGLANG_X 1 python3 -m sglang.launch_server --model-path m",
     ["SGLANG_X=1"]),  # MPICH / Intel MPI
    ("srun --ntasks=1 --export=ALL,SGLANG_X=1,HF_HOME=/h python3 -m sglang.launch_server "
     "--model-path m", ["SGLANG_X=1", "HF_HOME=/h"]),
    ("export CUDA_VISIBLE_DEVICES=0,1\nscreen -dmS sgl bash -c \"python3 -m "
     "sglang.launch_server --model-path m\"", ["CUDA_VISIBLE_DEVICES=0,1"]),
    ("sudo -u svc python3 -m sglang.launch_server --model-path m", []),  # no assignment
])
def test_a_wrapper_s_own_way_of_setting_the_environment_reaches_the_launch(line, env):
    """sudo's ``NAME=VALUE`` words, mpirun's ``-x``/``-genv``, srun's ``--export`` list and a
    detached screen session (it inherits the exporting shell) all set the launch's
    environment, a device list included."""
    assert unpaste([line]) == (["--model-path", "m"], env)


@pytest.mark.parametrize(("command", "env"), [
    ('CMD ["sh", "-c", "python3 -m sglang.launch_server --model-path $MODEL_PATH --tp $TP"]',
     []),
    ('ENTRYPOINT ["/bin/bash", "-c", "cd /srv && python3 -m sglang.launch_server '
     '--model-path ${MODEL_PATH} --tp ${TP}"]', []),
    ("CMD python3 -m sglang.launch_server --model-path ${MODEL_PATH} --tp ${TP}", []),
])
def test_a_dockerfile_s_shell_command_sees_the_image_s_env(command, env):
    """An image command that runs a shell (exec form ``["sh", "-c", ...]`` or the shell form)
    expands the image's ENV values, ARG defaults filled in at build time."""
    dockerfile = ("FROM lmsysorg/sglang:latest\nARG TP_DEFAULT=2\n"
                  "ENV MODEL_PATH=qwen3-8b \\\n    TP=${TP_DEFAULT}\n" + command + "\n")
    assert unpaste([dockerfile]) == (["--model-path", "qwen3-8b", "--tp", "2"],
                                     ["MODEL_PATH=qwen3-8b", "TP=2", *env])


@pytest.mark.parametrize("script", [
    # Start-Process with an argument list: PowerShell's way to start a server in the background
    "$model='qwen3-8b'\n$port=30001\n$env:SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN='1'\n"
    "$p=Start-Process -FilePath python -ArgumentList @(\n  '-m','sglang.launch_server',\n"
    "  '--model-path',$model,\n  '--port',[string]$port\n) -NoNewWindow -PassThru\n",
    # $name = value lines without any $env: line, and the call operator on an interpreter
    "$python = 'C:\\venv\\Scripts\\python.exe'\n$model = \"qwen3-8b\"\n$port = 30001\n"
    "$env:SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN = '1'\n"
    "& $python -m sglang.launch_server --model-path $model --port $port\n",
])
def test_a_powershell_start_process_or_call_operator_launch_is_read(script):
    assert unpaste([script]) == (["--model-path", "qwen3-8b", "--port", "30001"],
                                 ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"])
    plain = "$model = \"qwen3-8b\"\npython -m sglang.launch_server --model-path $model\n"
    assert unpaste([plain])[0] == ["--model-path", "qwen3-8b"]


def test_a_batch_file_s_set_values_fill_its_percent_references():
    script = ("@echo off\nset MODEL=qwen3-8b\nset \"TP=2\"\n"
              "set SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1\n"
              "python -m sglang.launch_server --model-path %MODEL% --tp %TP%\n")
    argv, env = unpaste([script])
    assert argv == ["--model-path", "qwen3-8b", "--tp", "2"]
    assert "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" in env  # set: the child inherits it


def test_a_ray_jobs_runtime_env_vars_are_the_launchs_environment():
    for given in ("--runtime-env-json='{\"env_vars\": {\"SGLANG_X\": \"1\"}, \"pip\": []}'",
                  "--runtime-env-json '{\"env_vars\": {\"SGLANG_X\": \"1\"}}'"):
        line = (f"ray job submit --address http://127.0.0.1:8265 {given} -- "
                "python -m sglang.launch_server --model-path m --tp 2")
        assert unpaste([line]) == (["--model-path", "m", "--tp", "2"], ["SGLANG_X=1"])


@pytest.mark.parametrize("option", ["--gpu 2", "-g 2", "--gpu=2"])
def test_a_run_ai_jobs_gpu_request_is_the_launchs_gpus(option):
    from launchplan.input.pasted import runner_gpus

    line = (f"runai submit sgl -i lmsysorg/sglang:latest {option} -- python3 -m "
            "sglang.launch_server --model-path m --tp 4")
    assert unpaste([line])[0] == ["--model-path", "m", "--tp", "4"]
    assert runner_gpus([line]) == 2
