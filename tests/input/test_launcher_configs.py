"""Configuration files of tools that start SGLang read as the launch they start."""

from __future__ import annotations

import pytest

from launchplan.input.pasted import unpaste


@pytest.mark.parametrize("runner", ["ansible.builtin.shell: >\n        ", "shell: ",
                                    "command:\n        cmd: ", "argv"])
def test_an_ansible_plays_command_task_runs_with_the_plays_vars(runner):
    if runner == "argv":  # the command module's list: each item one argument
        runner = ("ansible.builtin.command:\n        argv: [python3, -m, sglang.launch_server, "
                  "--model-path, '{{ model_path }}', --tp, '{{ tp }}', --port, "
                  "'{{ port | default(30000) }}']\n      # ")
    play = ("- hosts: gpu\n  vars:\n    model_path: qwen3-8b\n    tp: 2\n  tasks:\n"
            "    - name: install\n      pip: {name: sglang}\n"
            f"    - name: start sglang\n      {runner}python3 -m sglang.launch_server "
            "--model-path {{ model_path }} --tp {{ tp }} --port {{ port | default(30000) }}\n"
            "      environment:\n        SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN: '1'\n")
    assert unpaste([play]) == (
        ["--model-path", "qwen3-8b", "--tp", "2", "--port", "30000"],
        ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"])
    # a name the play does not set is left open, and reported where a flag needs it
    assert unpaste([play.replace("    tp: 2\n", "")])[0][3] == "${tp}"


DEPLOYMENT = """deployment:
  type: sglang
  image: lmsysorg/sglang:latest
  hf_model_handle: meta-llama/Llama-3.1-8B-Instruct
  checkpoint_path: null
  served_model_name: llama-3.1-8b
  port: 8000
  tensor_parallel_size: 2
  extra_args: "--context-length 200000"
  env_vars: {SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN: "1"}
"""


def test_a_nemo_evaluator_deployment_runs_its_launchers_command():
    argv, env = unpaste([DEPLOYMENT])
    assert argv == ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--host", "0.0.0.0",
                    "--port", "8000", "--served-model-name", "llama-3.1-8b", "--tp-size", "2",
                    "--dp-size", "1", "--pp-size", "1", "--context-length", "200000"]
    assert env == ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"]
    # the launcher's defaults fill what the deployment leaves out (tp 8), and a checkpoint
    # is read where the launcher mounts it
    local = DEPLOYMENT.replace("  tensor_parallel_size: 2\n", "").replace(
        "hf_model_handle: meta-llama/Llama-3.1-8B-Instruct", "hf_model_handle: null").replace(
        "checkpoint_path: null", "checkpoint_path: /models/llama")
    argv = unpaste([local])[0]
    assert argv[:2] == ["--model-path", "/checkpoint"] and argv[argv.index("--tp-size") + 1] == "8"


def test_a_play_of_one_command_task_with_an_argv_list_is_read():
    play = ("- hosts: gpu_nodes\n  tasks:\n    - name: start sglang\n"
            "      ansible.builtin.command:\n        argv:\n          - python3\n"
            "          - -m\n          - sglang.launch_server\n          - --model-path\n"
            "          - qwen3-8b\n          - --tp\n          - \"2\"\n")
    assert unpaste([play]) == (["--model-path", "qwen3-8b", "--tp", "2"], [])
