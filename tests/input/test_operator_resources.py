"""An operator's resource that keeps the launcher's command and its flags apart (h12 F3):
llmaz's BackendRuntime is read as llmaz joins them, and a bare launcher whose flags sit in a
list nothing here joins to it is refused, naming that list. Each test fails without the fix
(the bare command was planned, its flags dropped without a word)."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.input.manifest import launch_in

#: InftyAI/llmaz, test/config/backends/sglang.yaml (the same CR as its docs' SGLang
#: example; cut after the preset's args): the current shape, spec.command and
#: spec.recommendedConfigs[].args
RUNTIME = """\
apiVersion: inference.llmaz.io/v1alpha1
kind: BackendRuntime
metadata:
  labels:
    app.kubernetes.io/name: backendruntime
    app.kubernetes.io/part-of: llmaz
    app.kubernetes.io/created-by: llmaz
  name: sglang
spec:
  command:
    - python3
    - -m
    - sglang.launch_server
  image: lmsysorg/sglang
  version: v0.4.5-cu121
  # Do not edit the preset argument name unless you know what you're doing.
  # Free to add more arguments with your requirements.
  recommendedConfigs:
    - name: default
      args:
        - --model-path
        - "{{ .ModelPath }}"
        - --served-model-name
        - "{{ .ModelName }}"
        - --host
        - "0.0.0.0"
        - --port
        - "8080"
"""

#: InftyAI/llmaz before v0.1.1 (test/config/backends/sglang.yaml at cd29631^, cut after
#: the preset): spec.commands and spec.args[].flags
OLD_RUNTIME = """\
apiVersion: inference.llmaz.io/v1alpha1
kind: BackendRuntime
metadata:
  name: sglang
spec:
  commands:
    - python3
    - -m
    - sglang.launch_server
  image: lmsysorg/sglang
  version: v0.2.10-cu121
  args:
    - name: default
      flags:
        - --model-path
        - "{{ .ModelPath }}"
        - --served-model-name
        - "{{ .ModelName }}"
        - --host
        - "0.0.0.0"
        - --port
        - "8080"
"""

#: the harvest's probe (h12 probe/cr1.yaml): the same CR with literal arguments
LITERAL = RUNTIME.replace('"{{ .ModelPath }}"', "meta-llama/Llama-3.1-8B-Instruct").replace(
    '        - --served-model-name\n        - "{{ .ModelName }}"\n',
    '        - --tp\n        - "2"\n')

#: a second preset, and a Playground (InftyAI/llmaz docs/examples/sglang/playground.yaml's
#: Playground) that names it and adds an argument of its own
PRESETS = LITERAL.replace("\n    - name: default\n",
                          "\n    - name: wide\n      args: [--model-path, "
                          "meta-llama/Llama-3.1-8B-Instruct, --tp, \"4\"]\n"
                          "    - name: default\n")
PLAYGROUND = """\
---
apiVersion: inference.llmaz.io/v1alpha1
kind: Playground
metadata:
  name: qwen2-0--5b
spec:
  replicas: 1
  modelClaim:
    modelName: qwen2-0--5b
  backendRuntimeConfig:
    backendName: sglang
    configName: wide
    args: [--port, "9000"]
"""

#: an operator CR of a shape launchplan does not know: the engine's flags in a field of its own
UNKNOWN = """\
apiVersion: serving.example.io/v1
kind: EngineRuntime
metadata:
  name: sglang
spec:
  container:
    image: lmsysorg/sglang:latest
    command: [python3, -m, sglang.launch_server]
  engine:
    extraArgs:
      - --model-path
      - meta-llama/Llama-3.1-8B-Instruct
      - --tp
      - "2"
"""


def _plan(capsys, *argv: str) -> dict:
    assert main(["resolve", "--gpu", "h100", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["resolved"]


def test_a_backend_runtime_runs_its_command_with_its_default_presets_args(capsys):
    plan = _plan(capsys, RUNTIME, "--model-path", "qwen3-8b")
    assert (plan["host"], plan["port"]) == ("0.0.0.0", 8080)


def test_the_model_path_llmaz_fills_is_named_as_open_not_missing(capsys):
    assert main(["resolve", "--gpu", "h100", RUNTIME]) == 2
    err = capsys.readouterr().err
    assert "{{ .ModelPath }}" in err and "give --model-path again" in err


def test_literal_preset_arguments_are_the_launchs_flags(capsys):
    plan = _plan(capsys, LITERAL)
    assert (plan["tp_size"], plan["port"]) == (2, 8080)
    assert plan["model_path"] == "meta-llama/Llama-3.1-8B-Instruct"


@pytest.mark.parametrize("text", [
    OLD_RUNTIME,
    # llmaz's chart before e8fea37 named its presets by mode: Default, SpeculativeDecoding
    OLD_RUNTIME.replace("- name: default", "- mode: Default")])
def test_the_older_commands_and_flags_shape_is_joined_alike(text, capsys):
    plan = _plan(capsys, text, "--model-path", "qwen3-8b")
    assert (plan["host"], plan["port"]) == ("0.0.0.0", 8080)


def test_a_pasted_playground_picks_the_preset_and_adds_its_args(capsys):
    plan = _plan(capsys, PRESETS + PLAYGROUND)
    assert (plan["tp_size"], plan["port"]) == (4, 9000)


def test_a_preset_the_runtime_lacks_is_one_line_naming_the_key(capsys):
    missing = PLAYGROUND.replace("configName: wide", "configName: tiny")
    assert main(["resolve", "--gpu", "h100", LITERAL + missing]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "spec.recommendedConfigs" in err and "'tiny'" in err and "'default'" in err


def test_the_reading_says_which_preset_was_joined():
    notes: list[str] = []
    words, _ = launch_in(RUNTIME, notes=notes)
    assert words[3:] == ["--model-path", "{{ .ModelPath }}", "--served-model-name",
                         "{{ .ModelName }}", "--host", "0.0.0.0", "--port", "8080"]
    assert len(notes) == 1 and "'default'" in notes[0] and "recommendedConfigs" in notes[0]


def test_flags_left_in_a_list_nothing_joins_are_named_not_dropped(capsys):
    assert main(["resolve", "--gpu", "h100", UNKNOWN, "--model-path", "llama-3.1-8b"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "spec.engine.extraArgs" in err and "--tp" in err
