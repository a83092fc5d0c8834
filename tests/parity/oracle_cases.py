"""Recorded SGLang answers (the oracle's cases and results) and how launchplan runs them."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from launchplan.errors import InputError, Refusal
from launchplan.facts.targets import get_target, with_overrides
from launchplan.planner import resolve

DATA = Path(__file__).with_name("data")
# configs the project does not bundle, named ``parity-models/<name>`` in the cases
MODELS = Path(__file__).with_name("models")

# (compat, field) -> [agreeing cases, compared cases], printed after the run by conftest.py
AGREEMENT: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])

# (cases file, results for --compat 0.5.23, results for the default rules)
SUITES = {
    "public": ("public-cases.json", "results-public-0.5.23.jsonl", "results-public-main.jsonl"),
    "own": ("own-cases.json", "results-own-0.5.23.jsonl", "results-own-main.jsonl"),
    "extra": ("extra-cases.json", "results-extra-0.5.23.jsonl", "results-extra-main.jsonl"),
    "random": ("random-cases.json", "results-random-0.5.23.jsonl", "results-random-main.jsonl"),
    "extreme": ("extreme-cases.json", "results-extreme-0.5.23.jsonl",
                "results-extreme-main.jsonl"),
    "fidelity": ("fidelity-cases.json", "results-fidelity-0.5.23.jsonl",
                 "results-fidelity-main.jsonl"),
    "coverage": ("coverage-cases.json", "results-coverage-0.5.23.jsonl",
                 "results-coverage-main.jsonl"),
    "families": ("families-cases.json", "results-families-0.5.23.jsonl",
                 "results-families-main.jsonl"),
}
COMPAT_RESULTS = {"0.5.23": 1, "default": 2}
# How many recorded cases each suite holds: a suite that shrinks (a lost file, a dropped
# result line) fails instead of passing on fewer cases.
EXPECTED_CASES = {"public": 220, "own": 330, "extra": 105, "random": 300, "extreme": 229,
                  "fidelity": 149, "coverage": 61, "families": 44}


@dataclass(frozen=True)
class Case:
    suite: str
    name: str
    spec: dict[str, Any]
    expected: dict[str, Any]


def _local(path: Any) -> Any:
    """The oracle names models as ``models/<name>``; launchplan ships them under ``<name>``.
    ``parity-models/<name>`` is a config folder under ``tests/parity/models/``."""
    if isinstance(path, str) and path.startswith("models/"):
        return path[len("models/"):]
    if isinstance(path, str) and path.startswith("parity-models/"):
        return str(MODELS / path[len("parity-models/"):])
    return path


@cache
def load(suite: str, compat: str) -> tuple[Case, ...]:
    """Every case of a suite with its recorded answer; a missing file or answer is an error."""
    files = SUITES[suite]
    cases_path, results_path = DATA / files[0], DATA / files[COMPAT_RESULTS[compat]]
    cases = json.loads(cases_path.read_text())  # FileNotFoundError: never a silent skip
    results = {}
    for line in results_path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            results[row["name"]] = row
    missing = [c["name"] for c in cases if c["name"] not in results]
    if missing:
        raise LookupError(f"{results_path.name}: no recorded answer for {missing[:5]}")
    return tuple(Case(suite, c["name"], c, results[c["name"]]) for c in cases)


def run_case(case: Case, compat: str) -> tuple[str, Any]:
    """("ok", {field: value}) for a plan, ("refused", message) or ("bad-input", message)."""
    kind, got, _ = run_case_with_sources(case, compat)
    return kind, got


# (suite, case name, compat) -> the rules that met SGLang in that case: declared a field the
# case compares, or refused where SGLang refused (filled as cases run; see test_coverage.py)
MET: dict[tuple[str, str, str], frozenset[str]] = {}


def run_case_with_sources(case: Case, compat: str) -> tuple[str, Any, dict[str, str]]:
    """``run_case`` plus, for a plan, the rule that decided each field (``input``/``default``
    when none did), or for a refusal the refusing rule under ``"rule"``."""
    kind, got, sources, declarations = _run(case, compat)
    compared = {f.split(".")[0] for f in case.spec["fields"]}
    met = {d.source for d in declarations if compared & d.fields.keys()}
    if kind == "refused" and not case.expected["ok"]:
        met.add(sources["rule"])
    MET[(case.suite, case.name, compat)] = frozenset(met)
    return kind, got, sources


def _run(case: Case, compat: str) -> tuple[str, Any, dict[str, str], list[Any]]:
    spec = case.spec
    target = get_target(spec["platform"])
    over = spec.get("platform_overrides") or {}
    target = with_overrides(target, memory_mib=over.get("mem_mib"),
                            cuda_version=over.get("cuda"), gpu_count=over.get("gpus"))
    argv = [_local(a) for a in spec.get("argv", [])]
    fields = {k: _local(v) for k, v in spec["args"].items()} if "args" in spec else None
    try:
        result = resolve(argv, fields=fields, gpu=target, model_path=_local(spec["model"]),
                         compat=compat, env=spec.get("env"))
    except Refusal as exc:
        partial = exc.result.declarations if exc.result is not None else []
        return "refused", exc.message, {"rule": exc.source}, partial
    except InputError as exc:
        return "bad-input", exc.message, {}, []
    return ("ok", {f: pick(result, f) for f in spec["fields"]},
            {f: result.source(f.split(".")[0]) for f in spec["fields"]}, result.declarations)


def pick(result: Any, dotted: str) -> Any:
    head, _, rest = dotted.partition(".")
    value = result.value(head)
    if head == "random_seed":
        return None
    for part in rest.split(".") if rest else ():
        value = value[part] if isinstance(value, dict) else None
    return value


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            if math.isnan(float(a)) and math.isnan(float(b)):
                return True
            return math.isclose(float(a), float(b), abs_tol=5e-4)
        except (TypeError, ValueError):
            return False
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b
