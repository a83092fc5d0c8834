"""The target a command line names: ``--gpu`` plus the fact overrides."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from launchplan.errors import InputError
from launchplan.facts.targets import Target, get_target, parse_ib_devices, with_overrides


def target_from(options: dict[str, Any], argv: Sequence[str] = ()) -> Target:
    """The target the options name; ``argv``: the command's words, whose pasted task may ask
    for a GPU no target names (said so instead of a bare "required")."""
    name = options.get("gpu")
    if not name:
        if argv:
            from launchplan.input.gpu_request import refuse_unlisted

            refuse_unlisted(argv)
        raise InputError("--gpu", "a target", message="--gpu: required (one of the targets "
                         "listed by `launchplan targets`, or auto)")
    target, count = counted_target(name)
    given = options.get("gpu_count")
    if count is not None and given is not None and given != count:
        raise InputError("--gpu-count", f"the count --gpu {name} gives ({count}), or no "
                         "--gpu-count", given)
    return with_overrides(
        target,
        memory_mib=options.get("gpu_memory_mib"),
        capability=options.get("gpu_capability"),
        gpu_count=given if given is not None else count,
        cuda_version=options.get("cuda_version"),
        before_load_mib=options.get("before_load_mib"),
        load_overhead_mib=options.get("load_overhead_mib"),
        ib_devices=None if options.get("host_ib_devices") is None
        else parse_ib_devices(options["host_ib_devices"]),
        imex_channel=True if options.get("host_imex_channel") else None,
    )


#: A count written with the GPU, as people size a node: ``8xH100``, ``8 x H200``, ``4×A100``,
#: ``2*L40S`` (count first), ``H100x8`` (count last), ``H100:8`` (SkyPilot's spelling).
_COUNT_FIRST = re.compile(r"^\s*(\d+)\s*[x×*]\s*(\S.*?)\s*$", re.IGNORECASE)
_COUNT_LAST = re.compile(r"^\s*(\S.*?)\s*(?:[x×*]|:)\s*(\d+)\s*$", re.IGNORECASE)


def counted_target(name: str) -> tuple[Target, int | None]:
    """The target ``--gpu`` names and the GPU count written with it, if any. A name that is
    a target as written is one (``mi300x`` ends in an x); a count is read only when the
    rest then names a target."""
    try:
        return get_target(name), None
    except InputError as plain:
        for pattern, (at_count, at_name) in ((_COUNT_FIRST, (1, 2)), (_COUNT_LAST, (2, 1))):
            match = pattern.match(name)
            if match is None:
                continue
            try:
                target = get_target(match.group(at_name))
            except InputError:
                continue
            count = int(match.group(at_count))
            if count <= 0:
                raise InputError("--gpu", "a positive number of GPUs with the target",
                                 name) from None
            return target, count
        raise plain from None
