"""Preflight: will this launch start on this hardware, and if not, why and what avoids it.

Every plan gets a verdict from the one requirement table, SGLang's launcher checks (the
LAUNCHER phase) and, for a refused launch, the refusal itself. A problem carries its
severity, a one-line why, the evidence (SGLang file and function, or the kernel fact) and,
when asked, the single flag changes that avoid it. Unverified requirements are reported but
never decide the verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from launchplan.checks.bounds import oversized
from launchplan.checks.launch_requirements import LAUNCH_REQUIREMENTS
from launchplan.checks.requirements import (
    REQUIREMENTS,
    Requirement,
    Severity,
    by_name,
    check,
)
from launchplan.engine.pipeline import SAME_PLAN
from launchplan.engine.result import Result
from launchplan.struct import Struct, factory

VALIDATION = "sglang/srt/arg_groups/validation_hook.py: "
VERDICT_TEXT = {"starts": "starts", "fails-at-start": "fails at start-up",
                "runtime-error": "runtime error", "refused": "refused"}


class Problem(Struct, frozen=False):
    """One reason a launch will not start (or will run worse than it could)."""

    requirement: str  # a requirement's name, or the rule that refused
    severity: Severity
    why: str
    evidence: str
    verified: bool = True
    fields: tuple[str, ...] = ()
    values: dict[str, Any] = factory(dict)
    rules: tuple[str, ...] = ()  # the rules whose decisions produced the offending values
    fixes: list[dict[str, Any]] = factory(list)

    @property
    def decides(self) -> bool:
        """Whether this problem can make the verdict something other than ``starts``."""
        return self.verified and self.severity.blocks

    def to_dict(self) -> dict[str, Any]:
        from launchplan.checks.alternatives import as_flags

        return {"requirement": self.requirement, "severity": self.severity.value,
                "why": self.why, "evidence": self.evidence, "verified": self.verified,
                "fields": list(self.fields), "values": self.values, "rules": list(self.rules),
                "fixes": [as_flags(f) for f in self.fixes]}


class Preflight(Struct, frozen=False):
    problems: list[Problem]

    @property
    def verdict(self) -> str:
        worst = [p.severity for p in self.problems if p.decides]
        return min(worst, key=lambda s: s.rank).value if worst else "starts"

    @property
    def starts(self) -> bool:
        return self.verdict == "starts"

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "problems": [p.to_dict() for p in self.problems]}


def preflight(result: Result, requirements: Iterable[Requirement] | None = None,
              *, shared: bool = True) -> Preflight:
    """The verdict on a resolved plan: requirement violations and launcher refusals.

    ``shared``: a repeated input (a result carrying its plan's ``SamePlan``) takes the
    verdict computed for that plan; ``False`` evaluates every row afresh.
    """
    same = result.extras.get(SAME_PLAN) if requirements is None and shared \
        else None  # a repeated input: its plan's verdict
    if same is not None and "preflight" in same.analyses:
        return _copy(same.analyses["preflight"])
    problems: list[Problem] = []
    seen: set[str] = set()
    for v in check(result, requirements):
        req = v.requirement
        seen.add(req.name)
        problems.append(Problem(req.name, req.severity, v.message, req.evidence,
                                req.verified, v.culprits, _plain(v.values), v.sources, []))
    for rule, message, requirement in result.launcher:
        if requirement in seen:
            continue
        problems.append(_from_rule(rule, message, requirement, Severity.FAILS_AT_START,
                                   result))
    problems.extend(_oversized(result))
    problems.sort(key=lambda p: (p.severity.rank, not p.verified, p.requirement))
    report = Preflight(problems)
    if same is not None:
        same.analyses["preflight"] = _copy(report)
    return report


def _copy(report: Preflight) -> Preflight:
    """A report of its own; its problems are shared (``with_fixes`` replaces a problem
    instead of changing it)."""
    return Preflight(list(report.problems))


def _oversized(result: Result) -> list[Problem]:
    """Structures SGLang would build in proportion to a user number (kept described here)."""
    return [Problem("oversized-structure", Severity.DEGRADED,
                    f"{b.field} holds {b.bounded}: {b.why}",
                    "sglang/srt/model_executor/base_cuda_graph_runner.py: "
                    "get_batch_sizes_to_capture builds the list at start-up and captures only "
                    "the sizes up to the request pool", True, (b.field.split(".")[0],),
                    {b.field: b.value}, (result.source(b.field),))
            for b in oversized(result)]


def refused(source: str, message: str, requirement: str | None,
            result: Result | None) -> Preflight:
    """The verdict on a launch SGLang's resolution refuses: one ``refused`` problem."""
    return Preflight([_from_rule(source, message, requirement, Severity.REFUSED, result)])


def _from_rule(rule: str, message: str, requirement: str | None, severity: Severity,
               result: Result | None) -> Problem:
    if requirement is not None:
        req = by_name(requirement)
        fields = req.fields
        return Problem(req.name, severity, message, req.evidence, req.verified, fields,
                       _values(result, fields), (rule,))
    spec = _rule_spec(rule)
    where = spec.sglang if spec is not None else rule
    evidence = (VALIDATION + where if severity is Severity.FAILS_AT_START
                else f"SGLang 0.5.23: {where}")
    fields = tuple(sorted(spec.reads)) if spec is not None else ()
    return Problem(rule, severity, message, evidence, True, fields, {}, (rule,))


def _values(result: Result | None, fields: Iterable[str]) -> dict[str, Any]:
    if result is None:
        return {}
    return _plain({f: result.value_at(f) for f in fields})


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in values.items()}


def _rule_spec(name: str) -> Any:
    from launchplan.engine.registry import discover

    for (rule_name, _variant), spec in discover().items():
        if rule_name == name:
            return spec
    return None


# --- what avoids a problem ---------------------------------------------------------------------

Resolver = Callable[[dict[str, Any]], Result]


def find_fixes(problem: Problem, result: Result | None, resolve_with: Resolver,
               *, limit: int = 4, known: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """Up to ``limit`` single-flag changes under which ``problem`` is gone and the launch
    still resolves with no new problem as bad (``known``: the problems it already has)."""
    from launchplan.checks.alternatives import ALWAYS_TRY, trial_values
    from launchplan.errors import LaunchplanError
    from launchplan.input.fields import FIELDS

    candidates = [GRAPH_FLAGS.get(f, f) for f in problem.fields]
    if problem.requirement not in _SHAPE_NAMES:  # kernels: another backend may avoid it
        candidates += list(ALWAYS_TRY)
    found: list[dict[str, Any]] = []
    budget = TRIAL_BUDGET
    for name in dict.fromkeys(c for c in candidates if c in FIELDS):
        current = result.value(name) if result is not None else None
        trials = trial_values(name, current, result.record if result is not None else None)
        if result is not None and result.record.raw.explicit(name):
            trials = (FIELDS[name].default, *trials)  # dropping the flag first
        for value in dict.fromkeys(trials):
            if value == current:
                continue
            if budget <= 0:
                return found
            budget -= 1
            try:
                other = resolve_with({name: value})
            except LaunchplanError:
                continue
            if not _still_there(problem, other, known):
                found.append({name: value})
                if len(found) >= limit or sum(name in f for f in found) >= PER_FIELD:
                    break
        if len(found) >= limit:
            break
    return found


PER_FIELD = 2  # alternatives shown per flag
# Launch-shape problems are avoided by changing their own fields, never a kernel.
_SHAPE_NAMES = frozenset(r.name for r in LAUNCH_REQUIREMENTS)
#: Re-resolutions one problem's search may spend: a plan answers in well under a second
#: even when every flag it could change has dozens of choices.
TRIAL_BUDGET = 30


# A CUDA-graph setting and the flag a user changes it with.
GRAPH_FLAGS = {"cuda_graph_config.prefill.backend": "cuda_graph_backend_prefill",
               "cuda_graph_config.decode.backend": "cuda_graph_backend_decode",
               "cuda_graph_config.decode.max_bs": "cuda_graph_max_bs_decode",
               "cuda_graph_config.prefill.max_bs": "cuda_graph_max_bs_prefill"}


def _still_there(problem: Problem, other: Result, known: frozenset[str]) -> bool:
    again = other.extras.get("preflight")
    if again is None:
        again = other.extras["preflight"] = preflight(other)
    if any(p.requirement == problem.requirement for p in again.problems):
        return True
    # a fix that brings a new problem as bad or worse (even a suspected one) is no fix
    return any(p.severity.blocks and p.severity.rank <= problem.severity.rank
               and p.requirement not in known for p in again.problems)


def with_fixes(report: Preflight, result: Result | None, resolve_with: Resolver) -> Preflight:
    """Each problem's fixes. Problems share candidate changes (the backends, tp), so each
    change is resolved and preflighted once for all of them."""
    known = frozenset(p.requirement for p in report.problems)
    memo = _Memo(resolve_with)
    report.problems = [  # new problems: a repeated input's report shares its problems
        p.replace(fixes=find_fixes(p, result, memo, known=known)) for p in report.problems]
    return report


class _Memo:
    """``resolve_with`` remembered per single-field change (errors included)."""

    def __init__(self, resolve_with: Resolver) -> None:
        self._resolve = resolve_with
        self._seen: dict[tuple[str, str], Any] = {}

    def __call__(self, extra: dict[str, Any]) -> Result:
        from launchplan.errors import LaunchplanError

        key = tuple(sorted((k, repr(v)) for k, v in extra.items()))
        if key not in self._seen:
            try:
                self._seen[key] = self._resolve(extra)
            except LaunchplanError as exc:
                self._seen[key] = exc
        found = self._seen[key]
        if isinstance(found, Exception):
            raise found
        return found


__all__ = ["REQUIREMENTS", "Preflight", "Problem", "VERDICT_TEXT", "find_fixes", "preflight",
           "refused", "with_fixes"]
