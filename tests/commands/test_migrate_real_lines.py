"""``migrate`` on real old launch lines (tests/input/data/pasted_lines.json entries that carry
``migrated_argv_0_5_23``: the flags SGLang 0.5.23 accepts with the old line's meaning, each
checked with real 0.5.23 and, for the old meaning, the old release's own flag table)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.commands.main import main

LINES = json.loads((Path(__file__).parents[1] / "input" / "data" / "pasted_lines.json")
                   .read_text())
OLD = [e for e in LINES if "migrated_argv_0_5_23" in e]


def _groups(argv: list[str]) -> list[tuple[str, ...]]:
    """The line's flags, each with the values after it, in any order (a migrated line may
    place a rewritten flag where the old one stood or at the end: SGLang reads both alike)."""
    out: list[list[str]] = []
    for word in argv:
        if word.startswith("--") or not out:
            out.append([word])
        else:
            out[-1].append(word)
    return sorted(tuple(group) for group in out)


def test_the_old_lines_are_there():
    assert len(OLD) >= 10


@pytest.mark.parametrize("entry", OLD, ids=[e["source"].split(" ")[0] for e in OLD])
def test_an_old_real_line_migrates_to_the_flags_sglang_accepts(entry, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    argv = ["migrate", "--gpu", entry["gpu"], entry["text"], "--format", "json"]
    if "model" in entry:
        argv += ["--model-path", entry["model"]]
    main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    assert _groups(json.loads(out)["argv"]) == _groups(entry["migrated_argv_0_5_23"])
