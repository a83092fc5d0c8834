"""Forms a seventh harvest of real launch texts found misread: each test fails without its fix."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import unpaste

LAUNCH = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B"


def test_launch_n_on_a_text_with_no_launch_says_it_holds_none(capsys):
    """Not "the pasted text holds one launch command": the error the text's own reading gives."""
    text = "#!/bin/bash\n# start the server by hand (see the README)\necho ready\n"
    assert main(["resolve", "--gpu", "h100", "--launch", "2", text]) == 2
    err = capsys.readouterr().err
    assert "expected an SGLang launch" in err and "got none" in err and "holds" not in err
    assert main(["resolve", "--gpu", "h100", "--launch", "2", LAUNCH]) == 2
    assert "holds 1 launch command" in capsys.readouterr().err


@pytest.mark.parametrize("reference", ['"${NAME:-}"', "${NAME-}"])
def test_an_unset_variable_with_no_default_after_a_flag_stays_open(reference):
    """``--model-path "${MODEL:-}"``: the value is whatever the environment holds, so it is
    open, not a flag without a value; after a boolean flag it is still no word at all."""
    argv, _ = unpaste([f"{LAUNCH} --served-model-name {reference} --tp 2"])
    assert argv == ["--model-path", "Qwen/Qwen3-8B", "--served-model-name", "${NAME}",
                    "--tp", "2"]
    argv, _ = unpaste([f"{LAUNCH} --enable-metrics {reference} --tp 2"])
    assert argv == ["--model-path", "Qwen/Qwen3-8B", "--enable-metrics", "--tp", "2"]
    argv, _ = unpaste([f"NAME=served\n{LAUNCH} --served-model-name {reference}"])
    assert argv[-2:] == ["--served-model-name", "served"]


def test_an_open_model_path_is_named_as_the_environments(capsys):
    assert main(["resolve", "--gpu", "h100",
                 'python3 -m sglang.launch_server --model-path "${MODEL:-}" --tp 2']) == 2
    err = capsys.readouterr().err
    assert "--model-path" in err and "${MODEL}" in err and "expected a value after it" not in err


@pytest.mark.parametrize("key", ["cmd", "_sglang_command", "SGLANG_CMD", "cmd_line",
                                 "server_cmd"])
def test_a_folded_command_under_any_command_key_is_one_line(key):
    """YAML folds a ``>-`` block's lines into one: ``--tp 2`` on the second line is the
    launch's, under Ansible's ``cmd`` and its private ``_name`` facts as under ``command``."""
    text = (f"{key}: >-\n  python -m sglang.launch_server --model-path Qwen/Qwen3-8B\n"
            "  --tp 2 --port 30000\n")
    assert unpaste([text])[0] == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2", "--port",
                                  "30000"]


def test_prose_saying_cmd_is_no_manifest():
    from launchplan.input.manifest import looks_like_manifest

    assert not looks_like_manifest("cmd:\n- server `python -m sglang.launch_server --tp 2`\n")


def test_an_unrendered_jinja_value_is_named_as_a_template(capsys):
    text = ("- name: build the command\n  ansible.builtin.set_fact:\n"
            "    _sglang_command: >-\n      python -m sglang.launch_server\n"
            "      --model-path {{ sglang_model }} --tp 2\n")
    assert main(["resolve", "--gpu", "h100", text]) == 2
    err = capsys.readouterr().err
    assert "the value of --model-path is a template expression" in err


POD = """apiVersion: v1
kind: Pod
spec:
  containers:
  - name: sglang
    image: lmsysorg/sglang:latest
    env:
    - name: TP
      value: "2"
    command: {command}
    args: ["python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp $TP"]
"""
COMPOSE = """services:
  sglang:
    image: lmsysorg/sglang:latest
    environment:
      TP: "2"
      MODEL: Qwen/Qwen3-8B
    entrypoint: ["/bin/bash", "-c"]
    command:
      - |
        exec python3 -m sglang.launch_server --model-path "$$MODEL" --tp "$$TP"
"""


def test_a_containers_shell_script_reads_the_containers_environment():
    """The shell a Pod's or a service's command starts inherits the container's ``env``:
    ``$TP`` in its script is that entry's value (Compose's ``$$`` being a plain ``$``)."""
    argv, env = unpaste([POD.format(command='["/bin/sh", "-c"]')])
    assert argv == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2"] and "TP=2" in env
    argv, _ = unpaste([COMPOSE])
    assert argv == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2"]


def test_an_exec_form_container_leaves_a_shell_reference_as_written(capsys):
    """Without a shell nothing expands ``$TP`` (Kubernetes expands only ``$(TP)``)."""
    text = POD.format(command='["python3", "-m", "sglang.launch_server"]').replace(
        'args: ["python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp $TP"]',
        'args: ["--model-path", "Qwen/Qwen3-8B", "--tp", "$TP"]')
    assert main(["resolve", "--gpu", "h100", text]) == 2
    assert "'$TP'" in capsys.readouterr().err


def test_a_modal_gpu_named_by_a_constant_asks_for_its_count(capsys):
    """Modal's ``gpu=`` is an expression: ``GPU_CONFIG = "H100:2"`` asks for two GPUs, as
    the literal would (the plan's GPU count follows it, noted)."""
    import json

    text = ('import modal\nGPU_CONFIG = "H100:2"\napp = modal.App("sglang")\n\n'
            "@app.function(gpu=GPU_CONFIG)\ndef serve():\n    import subprocess\n"
            '    subprocess.Popen(["python3", "-m", "sglang.launch_server", "--model-path", '
            '"Qwen/Qwen3-8B", "--tp", "2"])\n')
    assert main(["resolve", "--gpu", "h100", "--format", "json", text]) == 0
    assert json.loads(capsys.readouterr().out)["target"]["gpu_count"] == 2


@pytest.mark.parametrize("value", ['"$OVERRIDE"', "'{{ override }}'"])
def test_an_open_json_value_is_named_as_open_not_as_broken_json(capsys, value):
    assert main(["resolve", "--gpu", "h100",
                 f"{LAUNCH} --json-model-override-args {value}"]) == 2
    err = capsys.readouterr().err
    assert "--json-model-override-args: expected a JSON value, got" in err
    assert "line 1, column 1" not in err


def test_an_open_value_a_free_text_flag_takes_is_noted(capsys):
    """``--served-model-name "$NAME"``: the plan holds the reference as written, which is not
    what SGLang gets; a note says so (the launch plans, as SGLang's parser takes any text)."""
    import json

    assert main(["resolve", "--gpu", "h100", "--format", "json",
                 f'{LAUNCH} --served-model-name "$NAME" --tp 2']) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert any(w.startswith("--served-model-name $NAME: a value the pasted text leaves open")
               for w in warnings)


def test_a_notebooks_percent_env_reaches_its_later_shell_escapes():
    """IPython's ``%env CUDA_VISIBLE_DEVICES=0,1`` sets the kernel's environment, which a
    later cell's ``!python -m sglang.launch_server`` inherits (two GPUs seen, not eight)."""
    for form in ("%env CUDA_VISIBLE_DEVICES=0,1", "%env CUDA_VISIBLE_DEVICES 0,1"):
        text = f"{form}\n!python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\n"
        argv, env = unpaste([text])
        assert argv == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2"]
        assert "CUDA_VISIBLE_DEVICES=0,1" in env


PAGE = """Offline:

```py
import sglang as sgl
llm = sgl.Engine(model_path="Qwen/Qwen3-8B", tp_size=1)
```

Online serving:

```bash
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --port 30000
```
"""


def test_a_page_with_an_engine_block_and_a_server_launch_holds_both():
    """Docs and model cards show an offline ``sgl.Engine`` block and the server's command:
    two launches in page order, either one planned with --launch N."""
    from launchplan.input.pasted import launch_count

    assert launch_count([PAGE]) == 2
    assert unpaste([PAGE])[0] == ["--model-path", "Qwen/Qwen3-8B", "--tp-size", "1"]
    assert unpaste([PAGE], launch=2)[0] == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2",
                                            "--port", "30000"]
    server_first = PAGE.split("Online serving:")[1] + "\n" + PAGE.split("Online serving:")[0]
    assert unpaste([server_first])[0][-2:] == ["--port", "30000"]
