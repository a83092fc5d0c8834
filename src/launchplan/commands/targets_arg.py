"""The target a command line names: ``--gpu`` plus the fact overrides."""

from __future__ import annotations

from typing import Any

from launchplan.errors import InputError
from launchplan.facts.targets import Target, get_target, with_overrides


def target_from(options: dict[str, Any]) -> Target:
    name = options.get("gpu")
    if not name:
        raise InputError("--gpu", "a target", message="--gpu: required (one of the targets "
                         "listed by `launchplan targets`, or auto)")
    return with_overrides(
        get_target(name),
        memory_mib=options.get("gpu_memory_mib"),
        capability=options.get("gpu_capability"),
        gpu_count=options.get("gpu_count"),
        cuda_version=options.get("cuda_version"),
        before_load_mib=options.get("before_load_mib"),
        load_overhead_mib=options.get("load_overhead_mib"),
    )
