"""What the harvest tests ask of a bad-input run: exit 2, no traceback, one first line."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main


def first_error_line(capsys: pytest.CaptureFixture[str], *args: str, gpu: str = "h100") -> str:
    """The first stderr line of ``launchplan resolve --gpu GPU ARGS``, which must be bad input."""
    code = main(["resolve", "--gpu", gpu, *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    return err.strip().splitlines()[0]
