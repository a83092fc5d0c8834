"""What a rule may return, and the append-only stash of what rules declared.

Plain slotted classes: rules create these on every resolution, so construction stays a
few attribute stores.
"""

from __future__ import annotations

from typing import Any


class Declare:
    """Declarations with a note: the note becomes a warning and the reason shown by ``explain``.

    A rule may also return a plain ``dict``; ``Declare({}, note=...)`` only warns.
    """

    __slots__ = ("fields", "note")

    def __init__(self, fields: dict[str, Any], note: str | None = None) -> None:
        self.fields = fields
        self.note = note

    def __repr__(self) -> str:
        return f"Declare({self.fields!r}, note={self.note!r})"


class Refuse:
    """The configuration cannot run: SGLang raises here. ``message`` is in launchplan's words.

    ``requirement`` names the row of the requirement table the refusal enforces, when it is
    a pure constraint, so preflight reports one problem with that row's evidence.
    """

    __slots__ = ("message", "requirement")

    def __init__(self, message: str, requirement: str | None = None) -> None:
        self.message = message
        self.requirement = requirement

    def __repr__(self) -> str:
        return f"Refuse({self.message!r})"


def arithmetic_refusal(what: str, exc: Exception) -> Refuse:
    """SGLang's own step raises on this value (a division by zero, ``int(nan)``, ``range``
    over a float ...): the same refusal, said in launchplan's words, never a crash."""
    return Refuse(f"{what}: SGLang's resolution fails on this value "
                  f"({type(exc).__name__}: {exc})")


class Declaration:
    """One entry of the stash: ``source`` (a rule name) declared ``fields``.

    ``reads`` holds the field values the rule read, when the resolution was traced.
    """

    __slots__ = ("source", "fields", "note", "normalization", "reads")

    def __init__(self, source: str, fields: dict[str, Any], note: str | None = None,
                 normalization: bool = False, reads: dict[str, Any] | None = None) -> None:
        self.source = source
        self.fields = fields
        self.note = note
        self.normalization = normalization
        self.reads = reads if reads is not None else {}

    def __repr__(self) -> str:
        return f"Declaration({self.source!r}, {self.fields!r})"
