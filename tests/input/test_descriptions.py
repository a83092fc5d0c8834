"""launchplan's own one-line description of every SGLang field and namespace.

``data/descriptions.json`` feeds ``--help``: one line per field (grouped by namespace and
searchable by name, group and text) and one line per namespace. The lines are launchplan's own
wording, not SGLang's help texts, so this file only checks shape: coverage of the field table,
one short line each, and no two fields sharing a description.
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict

import pytest

from launchplan.input import fields

DESCRIPTIONS_PATH = os.path.join(os.path.dirname(fields.TABLE_PATH), "descriptions.json")

# Longest line a description may be: --help shows it after the flag names, on one line.
MAX_CHARS = 120

# Field groups allowed to share one description, each with the reason. Keep it small: two
# fields with the same line are indistinguishable in --help search, so an entry here has to
# name why the fields really are the same setting seen from two places.
ALLOWED_SHARED: dict[frozenset[str], str] = {}


def _load(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


@pytest.fixture(scope="module")
def table() -> dict:
    return _load(fields.TABLE_PATH)


@pytest.fixture(scope="module")
def data() -> dict:
    return _load(DESCRIPTIONS_PATH)


def _check_line(where: str, text: object) -> list[str]:
    if not isinstance(text, str) or not text.strip():
        return [f"{where}: empty or not a string: {text!r}"]
    problems = []
    if text != text.strip():
        problems.append(f"{where}: leading or trailing whitespace")
    if "\n" in text or "\r" in text:
        problems.append(f"{where}: more than one line")
    if len(text) >= MAX_CHARS:
        problems.append(f"{where}: {len(text)} characters (limit {MAX_CHARS - 1})")
    if text.endswith("."):
        problems.append(f"{where}: ends with a period")
    return problems


def _normalized(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def test_version_matches_the_field_table(data: dict, table: dict) -> None:
    assert data["sglang_version"] == table["sglang_version"] == fields.SGLANG_VERSION


def test_every_field_has_a_description_and_nothing_else(data: dict, table: dict) -> None:
    names = [row["name"] for row in table["fields"]]
    described = data["descriptions"]
    assert len(names) == 546
    assert [n for n in names if n not in described] == []
    assert [n for n in described if n not in set(names)] == []
    # Fields with no command-line flag are described too: explain and --config show them.
    no_flag = [row["name"] for row in table["fields"] if not row["flags"]]
    assert no_flag and all(described[n] for n in no_flag)


def test_every_namespace_has_a_description_and_nothing_else(data: dict, table: dict) -> None:
    namespaces = {row["group"] for row in table["fields"]}
    assert len(namespaces) == 21
    assert set(data["groups"]) == namespaces


def test_each_description_is_one_short_line(data: dict) -> None:
    problems = []
    for name, text in data["descriptions"].items():
        problems += _check_line(f"field {name}", text)
    for group, text in data["groups"].items():
        problems += _check_line(f"group {group}", text)
    assert problems == []


def test_no_two_fields_share_a_description(data: dict) -> None:
    by_text: dict[str, set[str]] = defaultdict(set)
    for name, text in data["descriptions"].items():
        by_text[_normalized(text)].add(name)
    shared = [frozenset(names) for names in by_text.values() if len(names) > 1]
    unexplained = sorted(sorted(s) for s in shared if s not in ALLOWED_SHARED)
    assert unexplained == []
    # An allow-list entry that no longer matches is stale: drop it.
    assert [sorted(s) for s in ALLOWED_SHARED if s not in shared] == []


def test_no_two_namespaces_share_a_description(data: dict) -> None:
    texts = [_normalized(text) for text in data["groups"].values()]
    assert len(texts) == len(set(texts))


def test_a_description_is_not_just_its_field_name(data: dict) -> None:
    lazy = [
        name
        for name, text in data["descriptions"].items()
        if _normalized(text) == _normalized(name.replace("_", " "))
    ]
    assert lazy == []


def test_the_shape_check_catches_bad_lines() -> None:
    assert _check_line("f", "Fine line") == []
    assert _check_line("f", "")
    assert _check_line("f", "two\nlines")
    assert _check_line("f", "x" * MAX_CHARS)
    assert _check_line("f", "Ends with a period.")
    assert _normalized("Port of the server") == _normalized("port of the  server!")
