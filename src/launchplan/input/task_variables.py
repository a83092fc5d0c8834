"""The variables a task platform sets from the task file's own resources.

A SkyPilot or dstack task's script reads the size of what it runs on from variables the
platform sets (``--tp $DSTACK_GPUS_NUM``, ``$((SKYPILOT_NUM_GPUS_PER_NODE *
SKYPILOT_NUM_NODES))``). Their values follow from the task's own ``resources`` and node
count, so a pasted task fixes them, as a LeaderWorkerSet fixes ``LWS_GROUP_SIZE``
(``manifest``). The head node's are given (rank 0), as for a leader's template. A count
the file leaves open (a range, a fraction, none written) leaves the variable unset, so a
flag holding it is reported rather than guessed.

Sources: SkyPilot's docs, "Environment Variables and Secrets" (SkyPilot native
environment variables: ``SKYPILOT_NUM_GPUS_PER_NODE``, the count of ``accelerators``;
``SKYPILOT_NUM_NODES``, ``num_nodes``; ``SKYPILOT_NODE_RANK``, 0 on the head node) and
"Distributed Multi-Node Jobs"; dstack's docs, reference "Environment variables"
(``DSTACK_GPUS_NUM``, the total number of GPUs in the run; ``DSTACK_GPUS_PER_NODE``;
``DSTACK_NODES_NUM``; ``DSTACK_NODE_RANK``), whose runner sets the total as GPUs per node
times nodes.
"""

from __future__ import annotations

from typing import Any

#: dstack's kinds of run configuration (its ``type:`` key) that run ``commands``.
_DSTACK_TYPES = ("task", "service", "dev-environment")


def platform_variables(node: dict[Any, Any]) -> dict[str, str]:
    """The variables SkyPilot or dstack sets for the task ``node`` (a task file's top-level
    mapping) that its resources fix, as strings; empty for any other mapping."""
    resources = node.get("resources")
    resources = resources if isinstance(resources, dict) else {}
    if node.get("type") in _DSTACK_TYPES and "commands" in node:
        return _dstack(resources, node.get("nodes", 1))
    if "run" in node and ("accelerators" in resources or "num_nodes" in node):
        return _skypilot(resources.get("accelerators"), node.get("num_nodes", 1))
    return {}


def _skypilot(accelerators: Any, nodes: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    if _whole(nodes) is None:
        return out
    out["SKYPILOT_NUM_NODES"] = str(nodes)
    out["SKYPILOT_NODE_RANK"] = "0"
    # one type (``H100:8``) or alternatives (``{H200:8, H100:8}``, ``[A100:8, H100:8]``):
    # the count is known when every alternative has the same one
    if isinstance(accelerators, dict):
        entries = [f"{k}:{v}" if v is not None else str(k) for k, v in accelerators.items()]
    elif isinstance(accelerators, list):
        entries = [str(item) for item in accelerators]
    elif isinstance(accelerators, str):
        entries = [accelerators]
    else:
        entries = []
    counts = {_whole(entry.rpartition(":")[2].strip()) if ":" in entry else None
              for entry in entries}
    if len(counts) == 1 and (count := counts.pop()) is not None:
        out["SKYPILOT_NUM_GPUS_PER_NODE"] = str(count)
    return out


def _dstack(resources: dict[Any, Any], nodes: Any) -> dict[str, str]:
    if _whole(nodes) is None:
        return {}
    out = {"DSTACK_NODES_NUM": str(nodes), "DSTACK_NODE_RANK": "0"}
    count = _dstack_count(resources.get("gpu"))
    if count is not None:
        out["DSTACK_GPUS_PER_NODE"] = str(count)
        out["DSTACK_GPUS_NUM"] = str(count * int(nodes))
    return out


def _dstack_count(gpu: Any) -> int | None:
    """The GPU count of dstack's ``gpu`` spec: ``H100:4``, ``A100:80GB:2``, ``4``, or a
    mapping's ``count``; None for a range (``MI300X:4..``, ``1..8``) or none written."""
    if isinstance(gpu, dict):
        return _whole(gpu.get("count"))
    if isinstance(gpu, int):
        return _whole(gpu)
    if not isinstance(gpu, str):
        return None
    counts = [part.strip() for part in gpu.split(":")
              if part.strip()[:1].isdigit() and not part.strip().upper().endswith("GB")]
    return _whole(counts[0]) if len(counts) == 1 else None


def _whole(value: Any) -> int | None:
    """A positive whole number (YAML's ``8`` or ``"8"``), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return value if isinstance(value, int) and value > 0 else None
