"""The shipped JSON tables read through their marshal index: the same values as the JSON, an
index that follows edits, and never a failure the JSON alone would not have."""

from __future__ import annotations

import json
import os
import sys

import pytest

from launchplan import tables
from launchplan.facts import model_classes, targets
from launchplan.input import fields


def _shipped() -> list[str]:
    data = os.path.dirname(fields.TABLE_PATH)
    return [*(os.path.join(data, f"sglang-{r}-fields.json") for r in fields.RELEASES),
            str(model_classes._DATA), str(targets.TARGETS_FILE)]


@pytest.mark.parametrize("path", _shipped(), ids=os.path.basename)
def test_a_shipped_table_reads_as_its_json(path: str) -> None:
    with open(path, "rb") as fh:
        expected = json.loads(fh.read())
    first, again = tables.load(path), tables.load(path)
    assert first == expected and again == expected
    assert json.dumps(again) == json.dumps(expected)  # key order and value types kept


def test_the_index_is_written_used_and_follows_an_edit(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "table.json"
    path.write_text(json.dumps({"rows": [1, 2.5, None, "x"], "nested": {"a": [True]}}))
    assert tables.load(str(path)) == {"rows": [1, 2.5, None, "x"], "nested": {"a": [True]}}
    index = tables.index_path(str(path))
    assert os.path.exists(index)
    with open(index, "rb") as fh:
        stamp = fh.read().split(b"\n", 1)[0] + b"\n"
    with open(index, "wb") as fh:  # an index with a current stamp is what is read
        import marshal

        fh.write(stamp + marshal.dumps({"from": "index"}))
    assert tables.load(str(path)) == {"from": "index"}
    path.write_text(json.dumps({"rows": [3]}))  # an edit: another size, a new stamp
    assert tables.load(str(path)) == {"rows": [3]}


def test_a_damaged_index_is_parsed_around_and_replaced(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "table.json"
    path.write_text('{"a": 1}')
    tables.load(str(path))
    index = tables.index_path(str(path))
    with open(index, "rb") as fh:
        stamp = fh.read().split(b"\n", 1)[0] + b"\n"
    with open(index, "wb") as fh:
        fh.write(stamp + b"\x00not marshal")
    assert tables.load(str(path)) == {"a": 1}
    assert tables.load(str(path)) == {"a": 1}


def test_no_index_is_written_without_bytecode_writing(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = tmp_path / "table.json"
    path.write_text('[1, 2]')
    assert tables.load(str(path)) == [1, 2]
    assert not os.path.exists(os.path.dirname(tables.index_path(str(path))))


def test_an_unwritable_index_folder_is_no_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "table.json"
    path.write_text('{"b": 2}')
    (tmp_path / "__pycache__").write_text("a file where the folder would be")
    assert tables.load(str(path)) == {"b": 2}
    assert tables.load(str(path)) == {"b": 2}
    assert sorted(os.listdir(tmp_path)) == ["__pycache__", "table.json"]  # no stray files


def test_a_missing_table_says_so_as_before(tmp_path) -> None:
    with pytest.raises(FileNotFoundError):
        tables.load(str(tmp_path / "absent.json"))
