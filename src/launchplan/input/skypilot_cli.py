"""A ``sky launch`` command line beside the SkyPilot task file it runs.

SkyPilot's documented way to pick a model or a GPU for a task file is its command line:
``sky launch -c sgl sglang.yaml --env MODEL=qwen3-8b --gpus H100:2`` runs the task with
``envs: {MODEL: ...}`` replaced by the ``--env`` values and ``resources.accelerators`` by
``--gpus`` (``--num-nodes`` likewise for ``num_nodes``). A page that shows the task file
in one block and that command in another runs the task as the command changes it.
Source: SkyPilot's CLI reference for ``sky launch`` / ``sky jobs launch`` / ``sky serve
up`` (``--env``, ``--gpus``, ``--num-nodes`` override the YAML's fields).
"""

from __future__ import annotations

import re
import shlex
from typing import Any

#: A SkyPilot command that runs a task file.
_SKY = re.compile(r"(?:^|[\s;&|])sky[ \t]+(?:launch|exec|jobs[ \t]+launch|serve[ \t]+up)\b"
                  r"(?P<rest>(?:[^\n\\]|\\.|\\\n)*)")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Overrides:
    """What a ``sky`` command line sets over its task file."""

    def __init__(self) -> None:
        self.env: dict[str, str] = {}
        self.gpus: str | None = None
        self.nodes: str | None = None

    def __bool__(self) -> bool:
        return bool(self.env) or self.gpus is not None or self.nodes is not None


def overrides(text: str) -> Overrides:
    """The ``--env NAME=VALUE``, ``--gpus`` and ``--num-nodes`` of the last ``sky``
    command in ``text`` that gives any (``--env NAME`` alone takes the caller's value,
    which the page does not show: left out)."""
    found = Overrides()
    for match in _SKY.finditer(text):
        try:
            words = shlex.split(match.group("rest").replace("\\\n", " "), comments=True)
        except ValueError:
            continue
        these = Overrides()
        at = 0
        while at < len(words):
            word, at = words[at], at + 1
            option, eq, glued = word.partition("=")
            if option not in ("--env", "--gpus", "--num-nodes"):
                continue
            if not eq:
                if at >= len(words):
                    break
                glued, at = words[at], at + 1
            if option == "--env":
                name, has, value = glued.partition("=")
                if has and _NAME.match(name):
                    these.env[name] = value
            elif option == "--gpus":
                these.gpus = glued
            else:
                these.nodes = glued
        if these:
            found = these
    return found


def applied(task: dict[Any, Any], changes: Overrides) -> dict[Any, Any]:
    """A copy of the SkyPilot task ``task`` with ``changes`` made."""
    task = dict(task)
    if changes.env:
        envs = task.get("envs")
        task["envs"] = {**(envs if isinstance(envs, dict) else {}), **changes.env}
    if changes.gpus is not None:
        resources = task.get("resources")
        resources = dict(resources) if isinstance(resources, dict) else {}
        resources["accelerators"] = changes.gpus
        task["resources"] = resources
    if changes.nodes is not None:
        task["num_nodes"] = int(changes.nodes) if changes.nodes.isdigit() else changes.nodes
    return task
