"""Every recorded oracle case: launchplan must agree with SGLang field by field, for the
right reason.

``--compat 0.5.23`` is checked against plain SGLang 0.5.23, the default rules against the
oracle's ``--rules main`` (0.5.23 plus the later FA4 full-prefill exemption), ``--compat
0.5.22`` and ``0.5.21`` against the oracle run on those releases' wheels. A refusal must match
a refusal *from the rule that corresponds to SGLang's error*; a command line SGLang's parser
rejects must be bad input (exit 2); in an accepted case each field's value must agree and,
for 0.5.23 and the default rules, so must the rule that decided it (``correspondence.py``
holds both mappings, written against 0.5.23's error texts, with the older releases' own
wordings, and resolver names). A suite
recorded with SGLang's launcher check (``tools/launcher_oracle.py``) must also agree on it:
where SGLang's launcher refuses a resolved launch, launchplan's corresponding LAUNCHER rule
flags its plan, and nowhere else. Each suite must hold exactly the number of cases it is
known to hold.
"""

from __future__ import annotations

import pytest

from launchplan.input.fields import release_table
from launchplan.rulesets import RULESETS
from tests.parity.correspondence import refusal_rules, source_agrees
from tests.parity.oracle_cases import (
    AGREEMENT,
    COMPATS,
    CONFIG_FILE_ERRORS,
    EXPECTED_CASES,
    KNOWN_CASE_DIVERGENCES,
    KNOWN_DIVERGENCES,
    LAUNCHER_FINDINGS,
    PARSER_ACTION_ERRORS,
    PROBES,
    SUITES,
    launcher_error,
    load,
    run_case_with_sources,
    same,
)

CURRENT = ("0.5.23", "default")
PARAMS = [
    pytest.param(case, compat, id=f"{compat}:{case.name}")
    for suite in [*SUITES, *PROBES]
    for compat in COMPATS
    for case in load(suite, compat)
]


@pytest.mark.parametrize(("suite", "compat"), sorted(EXPECTED_CASES))
def test_every_suite_loads_all_its_cases(suite, compat):
    assert len(load(suite, compat)) == EXPECTED_CASES[(suite, compat)]


@pytest.mark.parametrize(("case", "compat"), PARAMS)
def test_case_agrees_with_sglang(case, compat):
    kind, got, sources = run_case_with_sources(case, compat)
    expected = case.expected
    if (compat, case.name) in KNOWN_CASE_DIVERGENCES:  # must still disagree: a fix shows up
        assert (kind == "ok") != expected["ok"], "now agrees: drop it from the known list"
        return
    checked = launcher_error(expected)
    if checked is not None:
        _launcher_refusal_agrees(case, compat, kind, got, checked)
    elif expected.get("launcher_checked") and kind == "ok":
        found = LAUNCHER_FINDINGS[(case.suite, case.name, compat)]
        assert not found, f"SGLang's launcher check passes; launchplan's {found} would refuse"
    if not expected["ok"] and checked is None:
        error = expected["error"] or ""
        # argparse errors (and its actions' own), a keyword that is no field of the release
        # (SGLang's record raises TypeError on construction), and a config.json the config
        # classes refuse are bad input
        parser_error = ("argparse" in error or "Unexpected keyword argument" in error
                        or any(text in error for text in PARSER_ACTION_ERRORS)
                        or any(error.startswith(text) for text in CONFIG_FILE_ERRORS)
                        or error.startswith(f"ValueError: {CONFIG_FILE_ERRORS[-1]}"))
        wanted = "bad-input" if parser_error else "refused"
        assert kind == wanted, f"SGLang: {error[:200]}; launchplan: {kind} {got}"
        if kind == "refused":
            rules = refusal_rules(error, older=compat not in CURRENT)
            assert rules, f"no launchplan rule is mapped to SGLang's error: {error[:200]}"
            assert sources["rule"] in rules, (
                f"launchplan refused in {sources['rule']} ({got}); SGLang's error "
                f"{error[:160]!r} corresponds to {sorted(rules)}")
        return
    assert kind == "ok", f"SGLang resolved this; launchplan {kind}: {got}"
    wrong = {}
    release = RULESETS[compat].sglang
    for field, want in expected["resolved"].items():
        if isinstance(want, str) and want.startswith("<unreadable: KeyError"):
            # a field this release does not have: launchplan's plan must not have it either
            assert field.partition(".")[0] not in release_table(release).fields, field
            continue
        stats = AGREEMENT[(compat, field)]
        stats[1] += 1
        if same(got.get(field), want):
            stats[0] += 1
        else:
            wrong[field] = {"sglang": want, "launchplan": got.get(field)}
    known = KNOWN_DIVERGENCES.get(compat, frozenset())
    if known and wrong and set(wrong) <= known:  # only the fields known to differ
        return
    assert not wrong, wrong
    if compat not in CURRENT:
        return
    wrong_source = {}
    for field, sglang_source in expected["sources"].items():
        head = field.split(".")[0]
        if not source_agrees(head, sglang_source, sources[field]):
            wrong_source[field] = {"sglang": sglang_source, "launchplan": sources[field]}
    assert not wrong_source, f"decided by a different rule: {wrong_source}"


def _launcher_refusal_agrees(case, compat, kind, got, error):
    """SGLang resolved the launch and its launcher check refused it: launchplan plans it
    (exit 0) and its LAUNCHER rule that corresponds to SGLang's error flags it."""
    assert kind == "ok", f"resolution accepts this (launcher check: {error[:160]}); {kind} {got}"
    found = LAUNCHER_FINDINGS[(case.suite, case.name, compat)]
    assert found, f"SGLang's launcher refuses ({error[:160]}); launchplan's checks pass"
    rules = refusal_rules(error, older=compat not in CURRENT)
    assert rules, f"no launchplan rule is mapped to SGLang's launcher error: {error[:200]}"
    assert found[0] in rules, (
        f"launchplan's launcher check {found[0]} flags it; SGLang's error {error[:160]!r} "
        f"corresponds to {sorted(rules)}")
