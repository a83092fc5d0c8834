"""Where two SGLang releases answer a recorded case differently, a differing rule variant says why.

For each pair of neighbouring releases and every suite recorded on both, every case whose
recorded answers differ is resolved under both rule sets: each differing field must be
decided, on one side or the other, by a rule whose variant differs between the two entries
of ``rulesets.py``, or by a rule that read a value such a rule decided (the static memory
fraction reads the graph sizes), or start from a default that moved between the tables,
and a refusal on one side only must come from such a rule or from the flag surface. This
keeps the variants complete and honest: an upgrade's changes are attributable to rules.
"""

from __future__ import annotations

import pytest

from launchplan.errors import InputError, Refusal
from launchplan.input.fields import release_table
from launchplan.planner import resolve
from launchplan.rulesets import PIPELINE, RULESETS
from tests.parity.oracle_cases import KNOWN_DIVERGENCES, SUITES, _local, load, same

PAIRS = [("0.5.22", "0.5.23"), ("0.5.21", "0.5.22")]


def differing_rules(old: str, new: str) -> set[str]:
    a, b = RULESETS[old].variants, RULESETS[new].variants
    return {name for name in PIPELINE if a.get(name) != b.get(name)}


def moved_defaults(old: str, new: str) -> set[str]:
    a, b = release_table(old).fields, release_table(new).fields
    return {n for n in a.keys() & b.keys() if a[n].default != b[n].default}


def pairs_of_cases(old: str, new: str):
    for suite in sorted(SUITES):
        before = {c.name: c for c in load(suite, old)}
        for case in load(suite, new):
            was = before.get(case.name)
            if was is None:
                continue
            a, b = was.expected, case.expected
            if a["ok"] != b["ok"] or (a["ok"] and not _same_record(a["resolved"],
                                                                  b["resolved"])):
                yield was, case


def _same_record(a: dict, b: dict) -> bool:
    """Two recorded answers hold the same values (nan equal to nan, as the parity test reads
    them: a given ``nan`` is the same answer on both releases)."""
    return a.keys() == b.keys() and all(same(a[f], b[f]) for f in a)


def outcome(case, compat):
    spec = case.spec
    argv = [_local(a) for a in spec.get("argv", [])]
    fields = {k: _local(v) for k, v in spec["args"].items()} if "args" in spec else None
    try:
        return resolve(argv, fields=fields, gpu=spec["platform"],
                       model_path=_local(spec["model"]), compat=compat,
                       env=spec.get("env"), trace=True)
    except (Refusal, InputError) as exc:
        return exc


def _decided_by(result, field: str, rules: set[str]) -> bool:
    """``field`` came from a differing rule, or from a rule reading what one decided."""
    if result.source(field) in rules:
        return True
    head = field.partition(".")[0]
    earlier: dict[str, set[str]] = {}  # field -> the rules that declared it so far
    for declaration in result.declarations:
        if head in declaration.fields and any(
                earlier.get(read, set()) & rules for read in declaration.reads or ()):
            return True
        for name in declaration.fields:
            earlier.setdefault(name, set()).add(declaration.source)
    return False


def _refused_on(refusal: Refusal, compat: str, rules: set[str]) -> bool:
    """The refusing rule read a value that a differing rule decided before it (a 0.5.21
    host-receive threshold turns the retraction backup to host_pool, which the cache check
    then refuses off a PD decode server)."""
    partial = getattr(refusal, "result", None)
    spec = next((s for s in RULESETS[compat].rules() if s.name == refusal.source), None)
    if partial is None or spec is None:
        return False
    decided = {name for d in partial.declarations if d.source in rules for name in d.fields}
    return bool(decided & set(spec.reads))


def _platform_default(case) -> bool:
    return not case.spec.get("platform_overrides")


@pytest.mark.parametrize(("old", "new"), PAIRS, ids=[f"{a}->{b}" for a, b in PAIRS])
def test_every_recorded_difference_comes_from_a_differing_variant(old, new):
    rules = differing_rules(old, new)
    defaults = moved_defaults(old, new)
    assert rules, f"{old} and {new} share every rule variant"
    unexplained = []
    for was, case in pairs_of_cases(old, new):
        if not _platform_default(case):
            continue
        left, right = outcome(was, old), outcome(case, new)
        sides = (left, right)
        if any(isinstance(s, InputError) for s in sides):
            continue  # the flag surface differs: the field tables explain it
        refusals = [s for s in sides if isinstance(s, Refusal)]
        if len(refusals) == 1:
            compat = old if refusals[0] is left else new
            if refusals[0].source not in rules and not _refused_on(refusals[0], compat, rules):
                unexplained.append((case.name, "refusal", refusals[0].source))
            continue
        if refusals:
            continue
        for field in case.expected["resolved"]:
            before = was.expected["resolved"].get(field)
            after = case.expected["resolved"].get(field)
            if same(before, after) or "<unreadable" in f"{before}{after}":
                continue  # equal, or a field one of the releases does not have
            if field in KNOWN_DIVERGENCES.get(old, ()) or field in KNOWN_DIVERGENCES.get(new, ()):
                continue
            head = field.partition(".")[0]
            if not (_decided_by(left, field, rules) or _decided_by(right, field, rules)
                    or head in defaults):
                sources = sorted({left.source(field), right.source(field)})
                unexplained.append((case.name, field, sources))
    assert not unexplained, unexplained


def test_the_mla_prefill_graph_change_is_the_only_public_change_of_0_5_23():
    changed = set()
    for was, case in pairs_of_cases("0.5.22", "0.5.23"):
        if was.suite != "public":
            continue
        a, b = was.expected["resolved"], case.expected["resolved"]
        changed |= {f for f in a if a[f] != b.get(f)}
        assert outcome(was, "0.5.22").source("cuda_graph_config.prefill.max_bs") == \
            "cuda_graph_sizing"
    assert changed == {"cuda_graph_config.prefill.max_bs"}
