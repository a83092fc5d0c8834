"""What the harvest tests ask of a paste: a bad-input run's one first line, a reading's notes."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import unpaste


def first_error_line(capsys: pytest.CaptureFixture[str], *args: str, gpu: str = "h100") -> str:
    """The first stderr line of ``launchplan resolve --gpu GPU ARGS``, which must be bad input."""
    code = main(["resolve", "--gpu", gpu, *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    return err.strip().splitlines()[0]


def read_with_notes(text: str) -> tuple[list[str], list[str]]:
    """(argv, notes) of one pasted text, as the paste reader takes it."""
    notes: list[str] = []
    argv, _ = unpaste([text], notes=notes)
    return argv, notes
