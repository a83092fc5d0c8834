"""Every rule meets SGLang in some recorded oracle case, or the allow-list says why not.

A rule *meets* SGLang when, in a case recorded for its rule set, it declares a field that case
compares or refuses where SGLang refuses (and the parity test then requires agreement). A rule
that never does is checked only against expectations written from the spec; ``UNMET`` lists
those, each with the reason no recorded case reaches it yet. The list must be exact: a rule
that starts meeting SGLang has to leave it.
"""

from __future__ import annotations

from launchplan.rulesets import RULESETS
from tests.parity.oracle_cases import COMPATS, MET, SUITES, load, run_case_with_sources
from tests.parity.unmet_rules import UNMET


def _met() -> set[str]:
    met: set[str] = set()
    for suite in SUITES:
        for compat in COMPATS:  # an older release's own rules meet it in its recordings
            for case in load(suite, compat):
                key = (case.suite, case.name, compat)
                if key not in MET:
                    run_case_with_sources(case, compat)
                met |= MET[key]
    return met


def test_rules_that_never_meet_sglang_are_exactly_the_allow_list():
    rules = {spec.name for ruleset in RULESETS.values() for spec in ruleset.rules()}
    unmet = rules - _met()
    assert sorted(unmet - UNMET.keys()) == [], "rules no recorded case reaches: add cases"
    assert sorted(UNMET.keys() - unmet) == [], "these now meet SGLang: drop them from UNMET"


def test_every_allow_list_entry_says_why():
    for name, why in UNMET.items():
        assert len(why) > 30, name
