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

# (compat, field) -> [agreeing cases, compared cases], printed after the run by conftest.py
AGREEMENT: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])

# suite -> its cases file; the answers per rule set are results-<suite>-<tag>.jsonl
SUITES = {
    "public": "public-cases.json",
    "own": "own-cases.json",
    "extra": "extra-cases.json",
    "random": "random-cases.json",
    "release": "release-cases.json",  # aimed at what changed between releases
}
# rule set -> the tag of its recordings: the oracle's --rules main for the default rules,
# else the SGLang release the oracle ran (a missing recording is simply not checked)
COMPATS = {"default": "main", "0.5.23": "0.5.23", "0.5.22": "0.5.22", "0.5.21": "0.5.21"}


# What the oracle reports when its venv lacks an optional module a code path imports (the
# DFLASH draft loader wants openai in some releases): an environment failure, not SGLang's
# answer, so such a row is not a case.
HARNESS_ERRORS = ("ModuleNotFoundError", "ImportError")


# Fields where launchplan knowingly reports another spelling than a release: 0.5.21 keeps
# `--enable-dp-attention --dp-size N` as given (dp_size N, the switch on), while launchplan
# resolves every release with 0.5.22's reading (attn_dp_size N, dp_size 1, switch off), which
# every derived value (graph sizes, memory fraction, checks) agrees with. Compared and counted
# in the agreement table, and required to differ exactly here (so a fix shows up).
KNOWN_DIVERGENCES: dict[str, frozenset[str]] = {
    "0.5.21": frozenset({"dp_size", "enable_dp_attention"}),
}


# Whole cases launchplan knowingly answers otherwise: 0.5.21 still runs the tc_piecewise
# graph backend (removed in 0.5.22); launchplan does not model it and refuses it. The test
# requires these to keep failing the same way, so a fix shows up.
KNOWN_CASE_DIVERGENCES: frozenset[tuple[str, str]] = frozenset({
    ("0.5.21", "own/cudagraph/llama-3.1-8b/h100/json-tc_piecewise"),
    ("0.5.21", "own/cudagraph/llama-3.1-8b/h100/flag-tc_piecewise"),
})


def results_path(suite: str, compat: str) -> Path:
    return DATA / f"results-{suite}-{COMPATS[compat]}.jsonl"


@dataclass(frozen=True)
class Case:
    suite: str
    name: str
    spec: dict[str, Any]
    expected: dict[str, Any]


def _local(path: Any) -> Any:
    """The oracle names models as ``models/<name>``; launchplan ships them under ``<name>``."""
    if isinstance(path, str) and path.startswith("models/"):
        return path[len("models/"):]
    return path


@cache
def load(suite: str, compat: str) -> tuple[Case, ...]:
    cases_path, answers = DATA / SUITES[suite], results_path(suite, compat)
    if not cases_path.exists() or not answers.exists():
        return ()
    cases = json.loads(cases_path.read_text())
    results = {}
    for line in answers.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            if (row["error"] or "").startswith(HARNESS_ERRORS):
                continue  # the harness venv lacked a module: no answer of SGLang's
            results[row["name"]] = row
    return tuple(Case(suite, c["name"], c, results[c["name"]]) for c in cases
                 if c["name"] in results)


def run_case(case: Case, compat: str) -> tuple[str, dict[str, Any] | str]:
    """("ok", {field: value}) for a plan, ("refused", message) or ("bad-input", message)."""
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
        return "refused", exc.message
    except InputError as exc:
        return "bad-input", exc.message
    return "ok", {f: pick(result, f) for f in spec["fields"]}


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
            return math.isclose(float(a), float(b), abs_tol=5e-4)
        except (TypeError, ValueError):
            return False
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b
