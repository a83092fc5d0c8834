"""Pasted shapes read as what they run: systemd and Quadlet units, Ray and Flyte configs of an
SGLang engine, a launch a script builds in a variable, the script's argument slices, and a
YAML values file that starts nothing."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import launch_count, unpaste

UNIT = """[Unit]
Description=SGLang Inference Server
After=network.target

[Service]
Type=simple
Environment="SGLANG_ENABLE_SPEC_V2=1" "CUDA_VISIBLE_DEVICES=0,1"
Environment=HF_HOME=/data/hf
EnvironmentFile=-/etc/sglang/env
ExecStart=/usr/bin/python3 -m sglang.launch_server \\
  --model-path Qwen/Qwen3-8B \\
  --tp-size 2 --port ${PORT}
Restart=on-failure

[Install]
WantedBy=multi-user.target
"""


def test_a_systemd_units_environment_and_execstart_are_the_launch():
    notes: list[str] = []
    argv, env = unpaste([UNIT], notes=notes)
    assert argv == ["--model-path", "Qwen/Qwen3-8B", "--tp-size", "2", "--port", "${PORT}"]
    assert env == ["SGLANG_ENABLE_SPEC_V2=1", "CUDA_VISIBLE_DEVICES=0,1", "HF_HOME=/data/hf"]
    assert any("systemd unit" in n for n in notes)
    assert any("EnvironmentFile=/etc/sglang/env" in n for n in notes)


def test_systemd_expands_a_variable_its_unit_sets_in_execstart():
    unit = UNIT.replace("Environment=HF_HOME=/data/hf", "Environment=PORT=30010")
    argv, env = unpaste([unit])
    assert argv[-2:] == ["--port", "30010"] and "PORT=30010" in env


def test_an_execstart_prefix_is_systemds_not_the_commands():
    unit = UNIT.replace("ExecStart=/usr", "ExecStart=-/usr")
    assert unpaste([unit])[0][:2] == ["--model-path", "Qwen/Qwen3-8B"]


def test_a_unit_a_script_writes_by_a_here_document_is_its_launch():
    script = ("DIR=/opt/sglang\ncat > /etc/systemd/system/sglang.service <<EOF\n[Service]\n"
              "WorkingDirectory=$DIR\nEnvironment=\"SGLANG_X=$DIR/x\"\n"
              "ExecStart=/usr/bin/python3 -m sglang.launch_server --model-path m --port 1\n"
              "EOF\nsystemctl daemon-reload\n")
    notes: list[str] = []
    assert unpaste([script], notes=notes) == (["--model-path", "m", "--port", "1"],
                                               ["SGLANG_X=/opt/sglang/x"])
    assert any("here-document" in n for n in notes)


def test_a_podman_quadlet_containers_exec_is_the_launch():
    quadlet = ("[Container]\nImage=lmsysorg/sglang:latest\nEnvironment=HF_HOME=/cache\n"
               "Exec=python3 -m sglang.launch_server --model-path /models/m --port 8001\n")
    assert unpaste([quadlet]) == (["--model-path", "/models/m", "--port", "8001"],
                                  ["HF_HOME=/cache"])


def test_a_unit_without_a_launch_is_not_read_as_one(capsys):
    unit = ("[Service]\nEnvironment=SGLANG_BASE_URL=http://127.0.0.1:30000\n"
            "ExecStart=/usr/bin/uvicorn app:app\n")
    assert main(["resolve", "--gpu", "h100", unit]) == 2
    assert "expected an SGLang launch" in capsys.readouterr().err


RAY_SERVE = '''from ray import serve
from ray.serve.llm import LLMConfig
from ray.llm.examples.sglang.modules.builder import build_sglang_openai_app

llm_config = LLMConfig(
    model_loading_config={"model_id": "m", "model_source": "Qwen/Qwen3-8B"},
    deployment_config={"autoscaling_config": {"min_replicas": 1, "max_replicas": 2}},
    engine_kwargs={"tp_size": 2, "mem_fraction_static": 0.8, "trust_remote_code": True},
)
app = build_sglang_openai_app({"llm_configs": [llm_config]})
'''


def test_a_ray_serve_llmconfigs_engine_kwargs_are_the_engines_keywords():
    argv, _ = unpaste([RAY_SERVE])
    assert argv == ["--model-path", "Qwen/Qwen3-8B", "--tp-size", "2",
                    "--mem-fraction-static", "0.8", "--trust-remote-code"]
    assert launch_count([RAY_SERVE]) == 1


def test_a_ray_data_processor_config_reads_its_model_source_and_engine_kwargs():
    text = ("from ray.data.llm import SGLangEngineProcessorConfig\n"
            "config = SGLangEngineProcessorConfig(model_source='Qwen/Qwen3-8B',\n"
            "    engine_kwargs=dict(dtype='half', tp_size=2), batch_size=32)\n")
    assert unpaste([text])[0] == ["--model-path", "Qwen/Qwen3-8B", "--dtype", "half",
                                  "--tp-size", "2"]


def test_a_vllm_llmconfig_is_not_taken_for_sglangs(capsys):
    text = RAY_SERVE.replace("build_sglang_openai_app", "build_openai_app").replace(
        "ray.llm.examples.sglang.modules.builder", "ray.serve.llm")
    assert main(["resolve", "--gpu", "h100", text]) == 2
    assert "expected an SGLang launch" in capsys.readouterr().err


def test_a_flyte_sglang_app_runs_its_model_and_extra_args(capsys):
    text = ("from flyteplugins.sglang import SGLangAppEnvironment\n"
            "app = SGLangAppEnvironment(name='a', model_hf_path='Qwen/Qwen3-8B',\n"
            "    extra_args=['--tp', '2', '--max-model-len', '4096'])\n")
    assert unpaste([text])[0] == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2",
                                  "--max-model-len", "4096"]
    assert main(["resolve", "--gpu", "h100", text]) == 2
    assert "--max-model-len is a vLLM flag" in capsys.readouterr().err


def test_a_launch_built_in_a_variable_line_by_line_is_one_launch_with_every_flag():
    script = ('MODEL=Qwen/Qwen3-8B\nCMD="python -m sglang.launch_server"\n'
              'CMD="$CMD --model-path $MODEL"\nCMD="$CMD --tp 2"\n'
              'if [ "$FAST" = "1" ]; then\n  CMD="$CMD --disable-radix-cache"\nfi\n'
              'nohup $CMD > log 2>&1 &\n')
    assert launch_count([script]) == 1
    assert unpaste([script])[0] == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2",
                                    "--disable-radix-cache"]


@pytest.mark.parametrize("slice_", ["${@:2}", "${*:2}", "${@:2:3}", "$@"])
def test_the_scripts_arguments_in_a_value_are_none_when_pasted(slice_):
    script = (f'EXTRA="{slice_}"\n'
              'CMD="python -m sglang.launch_server --model-path m --port 1 ${EXTRA}"\n'
              'eval "$CMD"\n')
    assert unpaste([script])[0] == ["--model-path", "m", "--port", "1"]


def test_the_scripts_argument_slice_takes_what_set_gives():
    script = ('set -- m --tp 2 --port 5\n'
              'python -m sglang.launch_server --model-path $1 ${@:2:2}\n')
    assert unpaste([script])[0] == ["--model-path", "m", "--tp", "2"]


def test_a_helm_values_file_is_named_as_one_not_read_as_flags(capsys):
    values = ('app: qwen\n\nmodelName: Qwen/Qwen2.5-72B-Instruct\n\nextraArgs:\n'
              '  - "--tp"\n  - "8"\n\nresources:\n  limits:\n    nvidia.com/gpu: "8"\n')
    assert main(["resolve", "--gpu", "h100", values]) == 2
    err = capsys.readouterr().err
    assert "a YAML mapping (app, modelName, extraArgs, resources)" in err
    assert "helm template" in err and "--tp-size" not in err


def test_values_whose_sections_sit_under_names_no_option_has_are_not_a_config(capsys):
    # `model:` is an SGLang option, so the text first looks like a --config file's content;
    # the section under `sglang:`, which no option is called, says it is a chart's values
    values = ('model:\n  name: Qwen/Qwen2.5-7B-Instruct\nsglang:\n  extraArgs:\n'
              '    - "--tp-size"\n    - "2"\n')
    assert main(["resolve", "--gpu", "h100", values]) == 2
    err = capsys.readouterr().err
    assert "a YAML mapping (model, sglang)" in err and "helm template" in err
    assert "--sglang" not in err


def test_a_config_with_a_mapping_under_an_option_stays_a_config():
    from launchplan.input.config_paste import pasted_config

    text = 'tp-size: 2\njson-model-override-args:\n  rope_scaling: null\n'
    flags, _ = pasted_config(text)
    assert flags[:2] == ["--tp-size", "2"]
    assert flags[2:] == ["--json-model-override-args", '{"rope_scaling": null}']


def test_a_review_threads_file_line_and_reviewers_words_are_not_commands():
    # as a pull request page shows a review comment: the file and line, the diff, then
    # the reviewer's words; only the block is code
    thread = ("docs/serve.md:12\n```diff\n@@ -10,3 +10,3 @@\n python -m sglang.launch_server \\\n"
              "-  --model-path a --tp 2\n+  --model-path b --tp 4\n```\n"
              "**reviewer**:\nshould this be tp 8?\n")
    assert unpaste([thread])[0] == ["--model-path", "b", "--tp", "4"]


def test_a_notebook_cells_json_lines_in_a_review_thread_are_read_as_the_cell():
    thread = ('run.ipynb\n```diff\n+    "export X=1\\n",\n'
              '+    "sglang serve \\\\\\n",\n+    "  --model-path m --tp 2\\n",\n```\n'
              "**reviewer**:\nIs a \\ missing here?\n")
    assert unpaste([thread]) == (["--model-path", "m", "--tp", "2"], ["X=1"])


def test_a_hunk_headings_continued_line_starts_the_command_its_lines_go_on_with(capsys):
    # ``@@ ... @@ docker run --gpus all \``: the heading is the line before the hunk, whose
    # lines continue that command; without a launcher it runs the image, not SGLang
    diff = ("```diff\n@@ -76,7 +76,7 @@ docker run --gpus all \\\n     --ipc=host \\\n"
            "     lmsysorg/sglang:latest \\\n"
            "-    python3 -m sglang.launch_server --model-path m --port 30000\n"
            "+    --model-path m --port 30000\n```\n")
    assert main(["resolve", "--gpu", "h100", diff]) == 2
    assert "it runs docker run" in capsys.readouterr().err


def test_a_launch_two_shells_deep_is_found_and_counted():
    # ssh runs docker exec, which runs bash -c with the launch: the node-0 launch is one
    text = ("ssh n0 \"docker exec -d c bash -c 'export X=1 && python3 -m sglang.launch_server "
            "--model-path m --node-rank 0 > log 2>&1'\"\n"
            "docker exec -d c bash -c 'python3 -m sglang.launch_server --model-path m "
            "--node-rank 1'\n")
    assert launch_count([text]) == 2
    assert unpaste([text])[0] == ["--model-path", "m", "--node-rank", "0"]


def test_an_arrays_length_a_backquoted_expr_and_its_arithmetic_are_worked_out():
    text = ("IPs=('10.0.0.1' '10.0.0.2')\nnnodes=${#IPs[@]}\n"
            "tp_size=`expr 16 \\* ${nnodes}`\n"
            "python3 -m sglang.launch_server --model-path m --nnodes $nnodes --tp-size $tp_size\n")
    assert unpaste([text])[0] == ["--model-path", "m", "--nnodes", "2", "--tp-size", "32"]


def test_a_backquoted_command_the_paste_cannot_run_stays_one_open_word():
    text = ("HOST=`hostname -I | awk '{print $1}'`\n"
            "python3 -m sglang.launch_server --model-path qwen3-8b --host $HOST\n")
    argv, _ = unpaste([text])
    assert argv[argv.index("--host") + 1] == "$(hostname -I | awk '{print $1}')"


def test_a_for_loop_over_literal_words_is_read_as_its_first_run():
    text = ('for RANK in 0 1 2 3; do\n  ssh node-$RANK "python -m sglang.launch_server '
            '--model-path m --node-rank $RANK --port $((9001 + RANK))"\ndone\n')
    assert unpaste([text])[0] == ["--model-path", "m", "--node-rank", "0", "--port", "9001"]
    unknown = ('for i in $(seq 0 3); do\n'
               '  python -m sglang.launch_server --model-path m --port $i\ndone\n')
    assert unpaste([unknown])[0][-1] == "$i"


def test_a_while_loop_over_the_scripts_arguments_runs_no_times_as_pasted():
    script = ('PORT=30000\nTP=8\nwhile [[ $# -gt 0 ]]; do\n  case $1 in\n'
              '    --port) PORT="$2"; shift 2 ;;\n    --tp) TP="$2"; shift 2 ;;\n  esac\ndone\n'
              'python -m sglang.launch_server --model-path m --port "$PORT" --tp "$TP"\n')
    assert unpaste([script])[0] == ["--model-path", "m", "--port", "30000", "--tp", "8"]
    given = "set -- --port 1 --tp 2\n" + script
    # with arguments the body runs: its first run, the case on $1 (--port) taking $2
    assert unpaste([given])[0][-4:] == ["--port", "1", "--tp", "8"]


def test_a_python_command_grown_by_plus_equals_is_read_whole():
    script = ('import os\nPATHS = {"base": "Qwen/Qwen3-8B"}\n\n\ndef launch(args):\n'
              '    base = PATHS["base"]\n    if args.plain:\n'
              '        cmd = f"python3 -m sglang.launch_server --model {base} "\n    else:\n'
              '        cmd = f"python3 -m sglang.launch_server --model {base} --lora-paths "\n'
              '        cmd += "a=/l/a "\n    cmd += "--disable-radix-cache "\n'
              '    if args.fast:\n        cmd += "--enable-torch-compile "\n'
              '    cmd += f"--tp {args.tp}"\n    os.system(cmd)\n')
    argv, _ = unpaste([script])
    assert argv == ["--model", "Qwen/Qwen3-8B", "--disable-radix-cache", "--tp", "${args.tp}"]


@pytest.mark.parametrize("path", ["YOUR_MODEL_PATH", "/data/your-model-dir", "your_model"])
def test_a_model_path_spelled_as_the_readers_own_is_named_a_placeholder(path, capsys):
    assert main(["resolve", "--gpu", "h100",
                 f"python -m sglang.launch_server --model-path {path} --port 1"]) == 2
    err = capsys.readouterr().err
    assert f"got '{path}'" in err and "placeholder" in err


def test_a_local_shell_handed_the_launch_inherits_the_exports_a_remote_one_does_not():
    launch = '"python -m sglang.launch_server --model-path m"'
    assert unpaste([f"export X=1\nbash -c {launch}\n"])[1] == ["X=1"]
    assert unpaste([f"export X=1\nssh node0 {launch}\n"])[1] == []
    unit = ("[Service]\nEnvironment=SGLANG_X=0\n"
            "ExecStart=/bin/bash -c 'exec python3 -m sglang.launch_server --model-path m'\n")
    assert unpaste([unit]) == (["--model-path", "m"], ["SGLANG_X=0"])


@pytest.mark.parametrize("text, env", [
    # the command's own assignments set the shell's environment, which the launch inherits
    ('CUDA_VISIBLE_DEVICES=0 bash -c "{}"', ["CUDA_VISIBLE_DEVICES=0"]),
    # a Slurm step (a Pyxis container too) and Apptainer keep the caller's environment
    ('export SGLANG_X=1\nsrun --overlap --ntasks=1 \\\n  --container-image=img \\\n'
     '  bash -c "{}" &', ["SGLANG_X=1"]),
    ('export SGLANG_X=1\napptainer exec img bash -c "{}"', ["SGLANG_X=1"]),
    # a container runner's shell gets what its -e options pass in, the host's exports not
    ('export Y=2\nexport Z=3\ndocker run -e SGLANG_X=1 -e Y --gpus all img bash -c "{}"',
     ["SGLANG_X=1", "Y=2"]),
    ('export A=1\nsudo bash -c "{}"', []),  # sudo resets the environment
    # the outer shell expands a -e value before docker passes it in, quoted or not
    ('A=1\ndocker run -e SGLANG_X=$A img bash -c "{}"', ["SGLANG_X=1"]),
    ('A=1\ndocker run -e SGLANG_X="$A" -e B=${{B:-2}} img sh -c "{}"', ["SGLANG_X=1", "B=2"]),
    # ``A=2 docker ...`` sets A for docker only: its own -e value was expanded before that
    ('A=1\nA=2 docker run -e SGLANG_X=$A img bash -c "{}"', ["SGLANG_X=1"]),
    # a script of several commands handed to the shell: the launch is one of them
    ("export PORT=30000\nsrun -ul bash -c '\n  set -x\n  echo starting\n  {} &\n  wait\n'",
     ["PORT=30000"]),
])
def test_the_environment_reaches_a_shell_a_runner_hands_the_launch_to(text, env):
    launch = "python -m sglang.launch_server --model-path m"
    notes: list[str] = []
    assert unpaste([text.format(launch)], notes=notes) == (["--model-path", "m"], env)
    assert any("sets Z on the host" in n for n in notes) == ("Z=3" in text)


def test_an_array_of_a_commands_output_has_items_the_paste_does_not_know():
    # a Slurm job's ``nodes_array=($nodes)`` of ``nodes=$(scontrol show hostnames ...)``
    # holds the host names the command prints: its first item is not the first word of the
    # command's text, and a flag holding it names the expansion as written
    job = ('nodes=$(scontrol show hostnames "$SLURM_JOB_NODELIST")\nnodes_array=($nodes)\n'
           'head_node=${nodes_array[0]}\n'
           'python3 -m sglang.launch_server --model-path m --dist-init-addr $head_node:5000\n')
    assert unpaste([job])[0] == ["--model-path", "m", "--dist-init-addr",
                                 "${nodes_array[0]}:5000"]
    # a variable holding plain words still splits into them
    words = "ARGS='--tp 2'\nA=($ARGS)\npython3 -m sglang.launch_server --model-path m ${A[1]}\n"
    assert unpaste([words])[0] == ["--model-path", "m", "2"]


def test_an_array_item_by_index_and_a_loop_over_an_array_take_its_values():
    # ``for idx in "${!GPU_IDS[@]}"`` runs first with idx 0, so ``${GPU_IDS[$idx]}`` is the
    # first item and ``$((30000 + idx * 10))`` 30000; a loop over the items takes the first
    by_index = ('GPU_IDS=(4 5 6 7)\nfor idx in "${!GPU_IDS[@]}"; do\n'
                '    gpu_id="${GPU_IDS[$idx]}"\n    port=$((30000 + idx * 10))\n'
                '    CUDA_VISIBLE_DEVICES=${gpu_id} python3 -m sglang.launch_server \\\n'
                '        --model-path m --port ${port} &\ndone\n')
    assert unpaste([by_index]) == (["--model-path", "m", "--port", "30000"],
                                   ["CUDA_VISIBLE_DEVICES=4"])
    by_item = by_index.replace('"${!GPU_IDS[@]}"', '"${GPU_IDS[@]}"')
    # over the items, idx is 4 the first time, past the array's end: bash gives nothing
    assert unpaste([by_item])[1] == ["CUDA_VISIBLE_DEVICES="]
    items = "PORTS=(30000 30001)\npython -m sglang.launch_server --model-path m --port ${PORTS[1]}"
    assert unpaste([items])[0][-1] == "30001"
    assert unpaste([items.replace("[1]", "[-1]")])[0][-1] == "30001"


def test_a_runners_e_value_from_a_script_variable_reaches_the_shell_it_starts(capsys):
    text = ('A=1\ndocker run -e SGLANG_USE_AITER=$A img bash -c '
            '"python3 -m sglang.launch_server --model-path qwen3-8b"')
    assert main(["resolve", "--gpu", "mi355x", "--format", "json", text]) == 0
    out = capsys.readouterr().out
    assert "SGLANG_USE_AITER" not in out  # read as 1, not '$A' SGLang cannot parse


@pytest.mark.parametrize("text, argv", [
    # the outer shell expands the array inside the double quotes; the -c shell splits it
    ('DP=(--tp 2)\nbash -c "{} ${{DP[*]}}"', ["--tp", "2"]),
    ('DP=(--tp 2)\nbash -c "{} ${{DP[*]}} --port 1"', ["--tp", "2", "--port", "1"]),
    ('DP=(--enable-metrics)\nbash -c "{} ${{DP[@]}} --port 1"',
     ["--enable-metrics", "--port", "1"]),
    ('DP=()\ndocker run --entrypoint bash img -c "{} ${{DP[*]}}"', []),
    ('DP=()\ndocker run --entrypoint bash img -c "{} ${{DP[@]}} --port 1"', ["--port", "1"]),
    # ssh joins its arguments again into one remote command line
    ('DP=(--tp 2)\nssh node0 "{} ${{DP[@]}}"', ["--tp", "2"]),
    # an array the script never sets stays as written
    ('bash -c "{} ${{DP[*]}}"', ["${DP[*]}"]),
])
def test_an_array_in_a_double_quoted_shell_script_is_expanded_by_the_outer_shell(text, argv):
    launch = "python3 -m sglang.launch_server --model-path m"
    assert unpaste([text.format(launch)])[0] == ["--model-path", "m", *argv]


def test_an_array_of_several_items_cuts_a_double_quoted_c_script(capsys):
    # bash -c "... ${DP[@]}" gives -c the text up to the first item: the rest are its $0
    # and arguments (bash -c "echo ${A[@]}" with A=(--tp 2) prints --tp)
    text = 'DP=(--tp 2)\nbash -c "python3 -m sglang.launch_server --model-path qwen3-8b ${DP[@]}"'
    notes: list[str] = []
    assert unpaste([text], notes=notes)[0] == ["--model-path", "qwen3-8b", "--tp"]
    assert any("the rest (2) being its $0" in n for n in notes)
    assert main(["resolve", "--gpu", "h100", text]) == 2
    assert "--tp-size: expected a value" in capsys.readouterr().err
    assert main(["resolve", "--gpu", "h100", "--format", "json",
                 text.replace("[@]", "[*]")]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("text", [
    'x = [\n    "--tp",\n    "8",\n]',
    'x = [\n    "--tp",\n    "8"\n]',
    'other_args = [\n    "--tp", "8",\n    "--trust-remote-code"\n]\n',
])
def test_flags_listed_over_lines_in_python_are_no_launch(text, capsys):
    # a list literal's items are a program's data, as the same list on one line is
    assert main(["resolve", "--gpu", "h100", text]) == 2
    err = capsys.readouterr().err
    assert err.startswith("launchplan: the pasted text: expected an SGLang launch")
    assert "got none: it runs" in err and err.count("\n") == 1
