"""Every numeric flag the speculative rules read, at the parser's edge values, under each
speculative algorithm a plain launch can run.

The random property tests (``test_extremes.py``) set numbers but rarely an algorithm too, and a
rule's arithmetic only runs under its algorithm: NGRAM divided its draft tokens by a BFS
breadth of 0 (a wild10 probe on 0.5.21 found the ZeroDivisionError, an internal error). Here
each (algorithm, field, value) is tried once, on every release: each must end in a plan, bad
input or a refusal, with valid JSON.
"""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.engine.phases import Phase
from launchplan.input.fields import FIELDS
from launchplan.rulesets import get_ruleset

#: One launch per algorithm that plans as it is (checked below), on a bundled target and model.
BASES: dict[str, list[str]] = {
    "NGRAM": ["--gpu", "h100", "--model-path", "llama-3.1-8b",
              "--speculative-algorithm", "NGRAM"],
    "EAGLE": ["--gpu", "h100", "--model-path", "llama-3.1-8b",
              "--speculative-algorithm", "EAGLE",
              "--speculative-draft-model-path", "llama-3.1-8b-eagle"],
    "EAGLE3": ["--gpu", "h100", "--model-path", "llama-3.1-8b",
               "--speculative-algorithm", "EAGLE3",
               "--speculative-draft-model-path", "llama-3.1-8b-eagle3"],
    "NEXTN": ["--gpu", "b200", "--model-path", "deepseek-v3", "--tp", "8",
              "--speculative-algorithm", "NEXTN"],
}
EDGES = ("0", "-1", "2147483648", "nan", "inf")
RELEASES = ("default", "0.5.21")


def _speculative_numbers() -> list[str]:
    """The numeric flag fields any speculative rule reads (every release's rule set)."""
    names = {f for spec in get_ruleset("default").rules() if spec.phase is Phase.SPECULATIVE
             for f in spec.reads}
    return sorted(n for n in names if FIELDS.get(n) is not None and FIELDS[n].flags
                  and FIELDS[n].parse in ("int", "float", "human_readable_int"))


NUMBERS = _speculative_numbers()


def _run(argv: list[str], capsys) -> int:
    code = main(["resolve", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert code in (0, 2, 3), (argv, code, err)
    if code == 0:
        json.loads(out, parse_constant=lambda token: pytest.fail(f"{token} in JSON"))
    else:
        assert err.count("\n") == 1 and "Traceback" not in err, err
    return code


@pytest.mark.parametrize("algorithm", sorted(BASES))
def test_each_base_launch_plans(algorithm, capsys):
    assert _run(BASES[algorithm], capsys) == 0


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("algorithm", sorted(BASES))
def test_speculative_numbers_at_their_edges_never_crash(algorithm, release, capsys):
    assert NUMBERS, "no numeric field read by a speculative rule"
    for name in NUMBERS:
        flag = FIELDS[name].flags[0]
        for value in EDGES:
            if FIELDS[name].parse != "float" and value in ("nan", "inf"):
                continue  # the parser refuses them for an integer: bad input, tested elsewhere
            _run([*BASES[algorithm], flag, value, "--compat", release], capsys)
