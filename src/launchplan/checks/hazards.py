"""Static checks of a rule set, from rule metadata alone (no resolution runs).

An *ordering hazard* is a rule that reads a field which a later rule may still change: the
reader decided on a value that may not be final. SGLang's known conflicts are of this kind
(rules.md C13: the memory reserve is computed before later rules disable graphs; §9: the FA4
page rule reads the prefill graph backend before later rules may switch it). Fields with
several writers are where "the last writer wins" decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from launchplan.engine.registry import RuleSpec


@dataclass(frozen=True)
class Hazard:
    reader: str
    field: str
    later_writers: tuple[str, ...]


def writers_by_field(rules: Sequence[RuleSpec]) -> dict[str, list[str]]:
    """Every field some rule declares, with its writers in pipeline order."""
    out: dict[str, list[str]] = {}
    for spec in rules:
        for field in sorted(spec.writes):
            out.setdefault(field, []).append(spec.name)
    return out


def ordering_hazards(rules: Sequence[RuleSpec]) -> list[Hazard]:
    """Rules that read a field a later rule may declare (the reader may see a stale value).

    A rule's own later writes do not count, nor do reads of a field the reader itself
    writes (a rule that adjusts a value reads it on purpose).
    """
    hazards = []
    for i, spec in enumerate(rules):
        for field in sorted(spec.reads - spec.writes):
            later = tuple(dict.fromkeys(
                r.name for r in rules[i + 1:] if field in r.writes and r.name != spec.name))
            if later:
                hazards.append(Hazard(spec.name, field, later))
    return hazards
