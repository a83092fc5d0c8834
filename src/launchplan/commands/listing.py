"""``launchplan rules`` and ``launchplan requirements``: the rule set and the requirement
table as launchplan runs them."""

from __future__ import annotations

import csv
import sys

from launchplan.commands.options import no_markdown, split_argv
from launchplan.commands.output import render_table, to_json
from launchplan.engine.registry import RuleSpec, doc_sections


def rules_main(argv: list[str]) -> int:
    from launchplan.rulesets import get_ruleset

    opts = split_argv(argv, frozenset({"--format", "--compat", "--hazards"})).options
    rules = get_ruleset(opts.get("compat") or "default").rules()
    if opts.get("hazards"):
        return hazards_listing(rules, no_markdown(opts.get("format"), "hazards"))
    fmt = no_markdown(opts.get("format"), "this listing")
    if fmt == "json":
        sys.stdout.write(to_json([{
            "name": r.name, "phase": r.phase.name.lower(), "variant": r.variant,
            "sglang": r.sglang, "reads": sorted(r.reads), "writes": sorted(r.writes),
            "facts": list(r.facts), "summary": r.summary, "doc": r.doc,
            "sections": {k.lower(): v for k, v in doc_sections(r.doc).items()},
            "promises": promises(r)} for r in rules]) + "\n")
        return 0
    out = sys.stdout
    rows = [(n, r.name + (f" [{r.variant}]" if r.variant else ""), r.phase.name.lower(),
             r.summary) for n, r in enumerate(rules, 1)]
    if fmt == "table":
        render_table(("#", "rule", "phase", "decides"), rows, out)
        return 0
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(("n", "rule", "phase", "summary"))
        writer.writerows(rows)
        return 0
    for n, r in enumerate(rules, 1):
        variant = f" [{r.variant}]" if r.variant else ""
        out.write(f"{n:3}. {r.name}{variant}  ({r.phase.name.lower()}; SGLang: {r.sglang})\n")
        for line in r.doc.splitlines():
            out.write(f"       {line}\n" if line else "\n")
        said = promises(r)
        if said:
            out.write("       promises: " + "; ".join(f"{k}={v}" for k, v in said.items())
                      + "\n")
        if r.writes:
            out.write(f"       writes: {', '.join(sorted(r.writes))}\n")
        reads = sorted(r.reads) + list(r.facts)
        if reads:
            out.write(f"       reads:  {', '.join(reads)}\n")
        out.write("\n")
    return 0


def promises(r: RuleSpec) -> dict[str, str]:
    """The engine-held conditions a rule's ``When`` section does not repeat, in words."""
    said: dict[str, str] = {}
    if r.archs is not None:
        said["archs"] = ", ".join(sorted(r.archs))
    if r.trigger_values is not None:
        said["triggers"] = ", ".join(f"{f} in {sorted(map(str, vals))}"
                                     for f, vals in r.trigger_values)
    elif r.triggers:
        said["triggers"] = "some of " + ", ".join(r.triggers) + " set"
    if r.applies is not None:
        said["applies"] = "a predicate on target and model"
    return said


def requirements_main(argv: list[str]) -> int:
    from launchplan.checks.requirements import REQUIREMENTS

    opts = split_argv(argv, frozenset({"--format"})).options
    if opts.get("format") == "json":
        sys.stdout.write(to_json([{"name": r.name, "severity": r.severity.value,
                                   "verified": r.verified, "when": r.when.text,
                                   "needs": r.needs.text, "why": r.why,
                                   "evidence": r.evidence} for r in REQUIREMENTS]) + "\n")
        return 0
    out = sys.stdout
    for r in REQUIREMENTS:
        tag = r.severity.value + ("" if r.verified else ", unverified")
        out.write(f"{r.name}  [{tag}]\n")
        out.write(f"  when:     {r.when.text}\n  needs:    {r.needs.text}\n")
        out.write(f"  why:      {r.why}\n  evidence: {r.evidence}\n\n")
    return 0


def hazards_listing(rules, fmt: str | None) -> int:
    """``rules --hazards``: reads a later rule may invalidate, and fields with many writers."""
    from launchplan.checks.hazards import ordering_hazards, writers_by_field

    hazards = ordering_hazards(rules)
    shared = {f: w for f, w in writers_by_field(rules).items() if len(w) > 1}
    if fmt == "json":
        sys.stdout.write(to_json({
            "ordering_hazards": [{"reader": h.reader, "field": h.field,
                                  "later_writers": list(h.later_writers)} for h in hazards],
            "shared_fields": shared}) + "\n")
        return 0
    out = sys.stdout
    out.write(f"{len(hazards)} reads that a later rule may invalidate:\n")
    render_table(("rule", "reads", "later written by"),
                 [(h.reader, h.field, ", ".join(h.later_writers)) for h in hazards], out)
    out.write(f"\n{len(shared)} fields with more than one writer (the last one wins):\n")
    render_table(("field", "writers, in order"),
                 [(f, ", ".join(w)) for f, w in sorted(shared.items())], out)
    return 0
