"""Rule docstrings have fixed sections, and registration refuses one that lacks them.

Every rule's docstring is a one-line summary, a blank line, then ``When``, ``Effect``,
``Why`` and ``Assumes`` in that order (continuations indented four spaces), so a reader
finds the same four answers in every rule. ``@rule`` validates this when it builds the
rule's spec; these tests feed it each kind of defect and check every rule set's rules.
"""

from __future__ import annotations

import pytest

from launchplan.engine.phases import Phase
from launchplan.engine.registry import (
    RuleDefinitionError,
    docstring_problem,
    rule,
)
from launchplan.rulesets import RULESETS

GOOD = """Decides the example field.

When: whenever its promises hold.
Effect: declares ``page_size`` 1.
Why: SGLang's ``_handle_page_size`` does the same
    on every platform.
Assumes: nothing.
"""


def _register(doc: str, name: str = "doc_example"):
    def body(view):
        return None

    body.__doc__ = doc
    body.__name__ = name
    return rule(phase=Phase.BOOTSTRAP, sglang="example", name=name)(body)


def test_well_formed_docstring_registers() -> None:
    assert docstring_problem(GOOD.strip()) is None
    assert _register(GOOD).__name__ == "doc_example"


@pytest.mark.parametrize(("doc", "found"), [
    ("Decides the example field.", "found only a summary, missing When, Effect, Why, Assumes"),
    ("Decides the example field.\nand more.\n\nWhen: x\nEffect: y\nWhy: z\nAssumes: nothing",
     "found a summary longer than one line"),
    (GOOD.replace("Why: SGLang's ``_handle_page_size`` does the same\n    on every platform.\n",
                  ""), "missing Why"),
    (GOOD.replace("When: whenever its promises hold.\nEffect: declares ``page_size`` 1.",
                  "Effect: declares ``page_size`` 1.\nWhen: whenever its promises hold."),
     "found Effect before When"),
    (GOOD.replace("Effect: declares ``page_size`` 1.", "Effect:"), "Effect is empty"),
    (GOOD.replace("Effect: declares ``page_size`` 1.", "Effect:   "), "Effect is empty"),
    (GOOD.replace("Assumes: nothing.", "Assumes: nothing.\nWhy: again."), "found Why twice"),
    (GOOD.replace("Assumes: nothing.", "Assumes: nothing.\nNote: a stray paragraph."),
     "line 8 after Assumes is neither a section nor indented by four"),
    (GOOD.replace("When: whenever", "Some prose first.\nWhen: whenever"),
     "line 3 before When is neither a section nor indented by four"),
    (GOOD.replace("Effect:", "\nEffect:"), "found a blank line (line 4) among the sections"),
    (GOOD.replace("    on every", "  on every"),
     "line 6 after Why is neither a section nor indented by four"),
])
def test_each_defect_fails_registration_with_one_clear_line(doc: str, found: str) -> None:
    with pytest.raises(RuleDefinitionError) as err:
        _register(doc, name="broken_rule")
    message = str(err.value)
    assert message.startswith("rule broken_rule: docstring needs a one-line summary, a blank "
                              "line, then sections When, Effect, Why, Assumes in that order; ")
    assert found in message
    assert "\n" not in message


def test_every_rule_of_every_rule_set_has_the_sections() -> None:
    checked = 0
    for ruleset in RULESETS.values():
        for spec in ruleset.rules():
            assert docstring_problem(spec.doc) is None, (spec.name, spec.variant)
            assert spec.summary == spec.doc.splitlines()[0]
            checked += 1
    assert checked >= 210


def test_every_rule_says_when_it_acts_as_one_section():
    """``explain`` quotes a rule's ``When:`` for a rule that ran and left a field: every rule
    of every rule set has one, continuation lines joined, and no other section runs in."""
    for name in RULESETS:
        for spec in RULESETS[name].rules():
            when = spec.section("When")
            assert when, spec.name
            assert "Effect:" not in when and "\n" not in when, spec.name


def test_the_quick_reading_accepts_only_what_the_line_reading_accepts() -> None:
    """``_well_formed`` (string methods) may only say yes where the line-by-line reading
    finds no problem: every rule's docstring, and each one broken in the ways a hand edit
    breaks one, read both ways."""
    from launchplan.engine.registry import _problem_by_lines, _well_formed, discover

    def broken(doc: str):
        lines = doc.split("\n")
        for at in range(len(lines)):
            yield "\n".join(lines[:at] + lines[at + 1:])  # a line lost
            yield "\n".join(lines[:at] + [""] + lines[at:])  # a blank line put in
            yield "\n".join(lines[:at] + [lines[at].strip()] + lines[at + 1:])  # unindented
            yield "\n".join(lines[:at] + [lines[at].split(":")[0] + ":"] + lines[at + 1:])
        for a in range(2, len(lines)):
            for b in range(a + 1, len(lines)):
                swapped = list(lines)
                swapped[a], swapped[b] = swapped[b], swapped[a]
                yield "\n".join(swapped)

    specs = list(discover().values())
    for spec in specs:
        assert _well_formed(spec.doc) and _problem_by_lines(spec.doc) is None, spec.name
    for spec in specs[::7]:
        for doc in broken(spec.doc):
            if _well_formed(doc):
                assert _problem_by_lines(doc) is None, (spec.name, doc)
