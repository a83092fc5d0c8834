"""Explanations: the chain of declarations behind one field, as data.

Everything here is read off a traced result: the input (or default), then every
declaration that changed the value, with the rule's name, the fields and facts it read and
its reason, and, where a rule replaced an explicit user value, what would have kept it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from launchplan.checks.alternatives import as_flags, keeping_changes
from launchplan.engine.registry import RuleSpec
from launchplan.engine.result import Result
from launchplan.rules.graph_config import PHASES


def rule_specs(compat: str) -> dict[str, RuleSpec]:
    """Rule name → the spec that runs under this rule set."""
    from launchplan.rulesets import get_ruleset

    return {spec.name: spec for spec in get_ruleset(compat).rules()}


def _dig(value: Any, path: str) -> Any:
    for part in path.split(".") if path else ():
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _facts(spec: RuleSpec | None, result: Result) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    if spec is None:
        return facts
    record = result.record
    for name in spec.facts:
        owner, _, attr = name.partition(".")
        obj = {"target": record.target, "model": record.model}.get(owner)
        value = getattr(obj, attr, None) if obj is not None else None
        facts[name] = _plain_fact(value, attr)
    return facts


def _plain_fact(value: Any, attr: str) -> Any:
    """A fact as plain data: a raw configuration mapping is named, never dumped."""
    from collections.abc import Mapping

    if isinstance(value, Mapping):
        return f"({attr} of config.json)" if attr in ("config", "text_config") else {
            str(k): _plain_fact(v, str(k)) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_plain_fact(v, attr) for v in value]
    return value


def explain_field(
    result: Result,
    field: str,
    resolve_with: Callable[[dict[str, Any]], Result] | None = None,
) -> dict[str, Any]:
    """The chain behind ``field`` (dotted paths reach into ``cuda_graph_config``)."""
    head, _, path = field.partition(".")
    raw = result.record.raw
    specs = rule_specs(result.record.compat)
    given = raw.explicit(head)
    start = _dig(raw.get(head), path)
    if head == "cuda_graph_config" and path:
        given = _graph_key_given(result, path)
        start = given[1] if given else None
    steps = []
    previous = start
    for d in result.chain(head):
        value = _dig(d.fields[head], path)
        if path and value == previous:
            continue
        spec = specs.get(d.source)
        steps.append({
            "source": d.source,
            "value": value,
            "reads": _shown_reads(d.reads),
            "facts": _facts(spec, result),
            "reason": d.note or (spec.summary if spec else ""),
            "sglang": spec.sglang if spec else "",
        })
        previous = value
    final = result.value_at(field)
    out: dict[str, Any] = {
        "field": field,
        "input": start if given else None,
        "origin": (raw.origin.get(head, "cli") if given else "default"),
        "default": None if given else start,
        "resolved": final,
        "steps": steps,
    }
    out["not_applied"], out["not_for_this"] = _not_applied(result, head, specs, steps)
    if given and steps and final != start:
        out["override"] = {"input": start, "resolved": final, "source": steps[-1]["source"]}
        if resolve_with is not None:
            changes = keeping_changes(result, field, start, resolve_with)
            out["override"]["kept_by"] = [as_flags(c) for c in changes]
    return out


def _not_applied(result: Result, head: str, specs: dict[str, RuleSpec],
                 steps: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The rules that can set ``head`` and did not here, in pipeline order: each that ran
    and left it (with what it read: its condition did not hold on those values) or whose
    trigger cannot hold (it was not asked, or left out of the walk for this input's shape);
    and how many more are not for this target or model (or come after a refusal). Read off a
    traced result (``pipeline.QUIET``); an untraced one has no such record: nothing listed."""
    from launchplan.engine.pipeline import QUIET

    quiet = result.extras.get(QUIET)
    if quiet is None:
        return [], 0
    deciding = {step["source"] for step in steps} | {d.source for d in result.chain(head)}
    declared = {d.source: d for d in result.declarations}
    record = result.record
    listed: list[dict[str, Any]] = []
    elsewhere = 0
    for name, spec in specs.items():
        if head not in spec.writes or name in deciding:
            continue
        if name in declared:  # it declared other fields, not this one
            reads: dict[str, Any] | None = declared[name].reads
        elif name in quiet:
            reads = quiet[name]
        elif result.refusal is None and spec.admits(record.target, record.model):
            reads = None  # left out of the walk: no trigger of it can hold for this input
        else:
            elsewhere += 1
            continue
        if reads is None:
            wanted = list(spec.triggers) if spec.trigger_values is None else [
                f"{f} is one of {', '.join(sorted(map(str, allowed)))}"
                for f, allowed in spec.trigger_values]
            what = wanted[0] if len(wanted) == 1 else (
                "one of " + ", ".join(wanted[:-1]) + " or " + wanted[-1])
            verb = "" if spec.trigger_values is not None and len(wanted) == 1 else " is set"
            listed.append({"source": name, "ran": False, "reads": {},
                           "reason": f"not asked: it acts when {what}{verb}"})
            continue
        listed.append({"source": name, "ran": True, "reads": _shown_reads(reads),
                       "facts": _facts(spec, result),
                       "reason": spec.section("When") or spec.summary})
    return listed, elsewhere


def _shown_reads(reads: dict[str, Any]) -> dict[str, Any]:
    """What a rule read, with the CUDA-graph config shown as its two phase backends (and
    launchplan's private bookkeeping fields left out)."""
    out = {k: _plain_fact(v, k) for k, v in reads.items()
           if k != "cuda_graph_config" and not k.startswith("_")}
    config = reads.get("cuda_graph_config")
    if isinstance(config, dict):
        for phase in PHASES:
            out[f"cuda_graph_config.{phase}.backend"] = (config.get(phase) or {}).get("backend")
    return out


def _graph_key_given(result: Result, path: str) -> tuple[str, Any] | None:
    """(flag, value) when the user asked for this CUDA-graph key, else None."""
    from launchplan.engine.result import _RawReader
    from launchplan.rules.graph_config import requested_settings

    phase, _, key = path.partition(".")
    if phase not in PHASES:
        return None
    settings, origin = requested_settings(_RawReader(result.record.raw))
    if (phase, key) in settings:
        return origin[(phase, key)], settings[(phase, key)]
    return None


def changed_fields(result: Result) -> list[str]:
    """Every field (CUDA-graph keys as dotted paths) whose final value differs from its input,
    private bookkeeping fields left out."""
    return [row[0] for row in changed_rows(result) if not row[0].startswith("_")]


def changed_rows(result: Result) -> list[tuple[str, Any, Any, str]]:
    """(field, input or default, resolved, source) for every decided value that moved."""
    raw = result.record.raw
    rows: list[tuple[str, Any, Any, str]] = []
    for name in sorted(result.declared()):
        final = result.value(name)
        before = raw.get(name)
        if name == "cuda_graph_config":
            rows.extend(_graph_rows(result, before if isinstance(before, dict) else {}))
            continue
        if final != before:
            rows.append((name, before, final, result.source(name)))
    return rows


def _graph_rows(result: Result, given: dict) -> list[tuple[str, Any, Any, str]]:
    final = result.value("cuda_graph_config")
    rows = []
    for phase in PHASES:
        for key, value in final[phase].items():
            if value is None:
                continue
            dotted = f"cuda_graph_config.{phase}.{key}"
            before = (given.get(phase) or {}).get(key)
            rows.append((dotted, before, value, result.source(dotted)))
    return rows
