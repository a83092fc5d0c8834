"""The one reader of a script's mapping edits, shared by the engine-keyword reader (which
keeps expressions) and the literal-dict reader (which keeps values)."""

from __future__ import annotations

import ast

from launchplan.input.python_values import UNKNOWN, literal_dicts, mapping_edits


def _edits(statement: str):
    name, edits = mapping_edits(ast.parse(statement).body[0])
    return name, None if edits is None else [
        (e.key, None if e.value is None else ast.unparse(e.value), e.keep) for e in edits]


def test_each_edit_statement_is_read_as_key_and_expression_edits():
    assert _edits('kw["tp"] = n') == ("kw", [("tp", "n", False)])
    assert _edits("kw[name] = 2") == ("kw", [(UNKNOWN, "2", False)])
    assert _edits('del kw["tp"]') == ("kw", [("tp", None, False)])
    assert _edits('kw |= {"a": 1, **{"b": x}}') == ("kw", [("a", "1", False), ("b", "x", False)])
    assert _edits('kw.update({"a": 1}, b=2)') == ("kw", [("a", "1", False), ("b", "2", False)])
    assert _edits('kw.update(dict(a=1))') == ("kw", [("a", "1", False)])
    assert _edits('kw.setdefault("a", 3)') == ("kw", [("a", "3", True)])
    assert _edits('kw.pop("a")') == ("kw", [("a", None, False)])
    assert _edits("kw |= other") == ("kw", None)
    assert _edits("kw.update(other)") == ("kw", None)
    assert mapping_edits(ast.parse("x = 1").body[0]) is None
    assert mapping_edits(ast.parse("kw.get('a')").body[0]) is None


def test_literal_dicts_follow_every_edit_the_shared_reader_reads():
    tree = ast.parse('cfg = {"a": 1, "b": 2}\ncfg.setdefault("a", 9)\ncfg.setdefault("c", 3)\n'
                     'cfg.pop("b")\ndel cfg["c"]\ncfg.update(dict(d=4))\n'
                     'other = {"x": 1}\nother[key] = 2\nitems = [1]\nitems.pop(0)\n')
    found = literal_dicts(tree)
    assert found["cfg"] == {"a": 1, "d": 4}
    assert found["other"] is None  # a key known at run time
    assert "items" not in found  # never a dict: its pop is a list's
