"""What a rule may return, and the append-only stash of what rules declared."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Declare:
    """Declarations with a note: the note becomes a warning and the reason shown by ``explain``.

    A rule may also return a plain ``dict``; ``Declare({}, note=...)`` only warns.
    """

    fields: dict[str, Any]
    note: str | None = None


@dataclass(slots=True)
class Refuse:
    """The configuration cannot run: SGLang raises here. ``message`` is in launchplan's words."""

    message: str


@dataclass(frozen=True, slots=True)
class Declaration:
    """One entry of the stash: ``source`` (a rule name) declared ``fields``."""

    source: str
    fields: dict[str, Any]
    note: str | None = None
    normalization: bool = False
    reads: dict[str, Any] = field(default_factory=dict)
