"""Every rule has a rule-level test, a docstring and an SGLang counterpart."""

from __future__ import annotations

from pathlib import Path

from launchplan.engine.registry import discover

TESTS = Path(__file__).parent


def test_every_rule_function_is_named_in_a_rule_test():
    text = "\n".join(p.read_text() for p in TESTS.glob("test_*.py"))
    untested = sorted(s.func.__name__ for s in discover().values()
                      if s.func.__name__ not in text)
    assert untested == []


def test_every_rule_names_its_sglang_counterpart_and_says_why():
    for spec in discover().values():
        assert spec.sglang, spec.name
        assert len(spec.doc.splitlines()[0]) > 20, spec.name
