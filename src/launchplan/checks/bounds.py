"""What a plan holds only in bounded form, for preflight to report.

SGLang builds some structures in proportion to a user number (a CUDA-graph capture list of
one size per batch up to ``max_bs``). launchplan keeps the values but never builds such a
structure beyond a fixed size: ``oversized(result)`` names each one, so preflight can say
that the launch would spend its start-up (and memory) capturing them.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from launchplan.engine.result import Result
from launchplan.rules.graph_config import PHASES
from launchplan.rules.size_lists import LIMIT, SizeList, count_text


class Bounded(NamedTuple):
    """One bounded structure: the field path, the user-derived value that sized it, what
    launchplan kept instead of building it, and why."""

    field: str
    value: Any
    bounded: str
    why: str


def oversized(result: Result) -> list[Bounded]:
    """Every structure of ``result`` described rather than built (empty for sane plans)."""
    out: list[Bounded] = []
    config = result.value("cuda_graph_config")
    if not isinstance(config, dict):
        return out
    for phase in PHASES:
        settings = config.get(phase)
        sizes = settings.get("bs") if isinstance(settings, dict) else None
        if isinstance(sizes, SizeList):
            out.append(Bounded(
                f"cuda_graph_config.{phase}.bs", settings.get("max_bs"),
                f"{count_text(sizes.length)} capture sizes up to {count_text(sizes.last())}, "
                f"kept as a description (more than {LIMIT:,} values)",
                f"SGLang would build this list and capture one {phase} CUDA graph per size"))
    return out
