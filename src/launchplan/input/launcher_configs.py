"""Configuration files of tools that start SGLang for you, as the launch they start.

A manifest names its container's command; these tools build the command from fields of
their own, so a pasted file of theirs is read as the command they would run:

* an Ansible play: a ``shell``/``command`` task's line, with the play's ``vars`` rendered
  into its Jinja ``{{ name }}`` and the task's ``environment`` exported;
* NeMo Evaluator's ``deployment`` of ``type: sglang``: its launcher's command template
  filled from the deployment's fields. Source: NVIDIA-NeMo/Evaluator,
  ``packages/nemo-evaluator-launcher/src/nemo_evaluator_launcher/configs/deployment/
  sglang.yaml`` (the defaults below and the flags the template passes).
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

#: An Ansible task's module that runs a command line: its string (or its ``cmd``).
_ANSIBLE_RUNNERS = ("shell", "command", "ansible.builtin.shell", "ansible.builtin.command",
                    "ansible.legacy.shell", "ansible.legacy.command")
#: A Jinja expression Ansible renders: ``{{ name }}``, ``{{ name | default('x') }}``.
_JINJA = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\|\s*default\(\s*(['\"]?)"
                    r"(.*?)\2\s*\)\s*)?\}\}")

#: NeMo Evaluator's SGLang deployment: each flag its command template passes, the
#: deployment field that fills it, and that field's default in the launcher's config.
_EVALUATOR_FLAGS = (("--host", None, "0.0.0.0"), ("--port", "port", 8000),
                    ("--served-model-name", "served_model_name", None),
                    ("--tp-size", "tensor_parallel_size", 8),
                    ("--dp-size", "data_parallel_size", 1),
                    ("--pp-size", "pipeline_parallel_size", 1))
#: Where the launcher mounts a ``checkpoint_path`` in the container.
_EVALUATOR_CHECKPOINT = "/checkpoint"


def launcher_config(node: dict[Any, Any]) -> dict[Any, Any]:
    """``node`` as a container that runs the launch, when it is a tool's configuration
    this module reads; ``node`` itself otherwise."""
    if node.get("type") == "sglang" and ("hf_model_handle" in node
                                          or "checkpoint_path" in node):
        return _evaluator_deployment(node)
    tasks = node.get("tasks")
    if isinstance(tasks, list) and ("hosts" in node or "vars" in node):
        return _ansible_play(node, tasks)
    return node


def scalar_text(value: Any) -> str:
    """A YAML value as the text a command line or an environment gets (``true``, not
    Python's ``True``; a mapping or list as JSON)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value) if isinstance(value, (dict, list)) else str(value)



def _ansible_play(node: dict[Any, Any], tasks: list[Any]) -> dict[Any, Any]:
    """An Ansible play whose ``shell``/``command`` tasks run as written, with the play's
    ``vars`` rendered into their ``{{ name }}`` (a name the play does not set stays the
    shell's ``${name}``, open; a ``default(...)`` filter gives its value) and each task's
    ``environment`` exported to its line (a task script's ``env``)."""
    values = node.get("vars")
    known = {str(k): scalar_text(v) for k, v in values.items() if not isinstance(v, (dict, list))
             and v is not None} if isinstance(values, dict) else {}

    def rendered(text: str) -> str:
        def one(found: re.Match[str]) -> str:
            if found.group(1) in known:
                return known[found.group(1)]
            if found.group(2) is not None or found.group(3):
                return found.group(3)  # {{ port | default(30000) }}
            return "${" + found.group(1) + "}"

        return _JINJA.sub(one, text)

    def as_run(task: Any) -> Any:
        if not isinstance(task, dict):
            return task
        line = next((task[key] for key in _ANSIBLE_RUNNERS if key in task), None)
        if isinstance(line, dict):  # ``cmd: ...``, or ``argv: [...]`` (no shell between)
            argv = line.get("argv")
            line = shlex.join(map(scalar_text, argv)) if isinstance(argv, list) else line.get("cmd")
        if not isinstance(line, str) or "sglang" not in line:
            return task
        env = task.get("environment")
        return {"name": task.get("name"), "run": rendered(line),
                "env": {k: rendered(scalar_text(v)) for k, v in env.items()}
                if isinstance(env, dict) else None}

    return {**node, "tasks": [as_run(task) for task in tasks]}


def _evaluator_deployment(node: dict[Any, Any]) -> dict[Any, Any]:
    """NeMo Evaluator's SGLang deployment as the container its launcher starts: the model
    (``hf_model_handle``, else the mounted ``checkpoint_path``), its template's flags from
    the deployment's fields (their defaults where it leaves one out), ``extra_args``
    after them, and ``env_vars`` as the environment. A deployment that gives its own
    ``command`` runs that."""
    if isinstance(node.get("command"), str) and "sglang" in node["command"]:
        return node
    handle = node.get("hf_model_handle")
    model = handle if handle else (_EVALUATOR_CHECKPOINT if node.get("checkpoint_path")
                                   else None)
    words = ["python3", "-m", "sglang.launch_server"]
    if model is not None:
        words += ["--model-path", scalar_text(model)]
    for flag, field, default in _EVALUATOR_FLAGS:
        value = node.get(field, default) if field is not None else default
        if value is not None and value != "???":
            words += [flag, scalar_text(value)]
    extra = node.get("extra_args")
    command = shlex.join(words) + (f" {extra}" if isinstance(extra, str) and extra else "")
    env = node.get("env_vars")
    return {"command": command, "env": env if isinstance(env, dict) else None}
