"""``launchplan rules`` and ``launchplan requirements``: the rule set and the requirement
table as launchplan runs them."""

from __future__ import annotations

import sys

from launchplan.commands.options import split_argv
from launchplan.commands.output import render_table, to_json


def rules_main(argv: list[str]) -> int:
    from launchplan.rulesets import get_ruleset

    opts = split_argv(argv, frozenset({"--format", "--compat", "--hazards"})).options
    rules = get_ruleset(opts.get("compat") or "default").rules()
    if opts.get("hazards"):
        return hazards_listing(rules, opts.get("format"))
    if opts.get("format") == "json":
        sys.stdout.write(to_json([{
            "name": r.name, "phase": r.phase.name.lower(), "variant": r.variant,
            "sglang": r.sglang, "reads": sorted(r.reads), "writes": sorted(r.writes),
            "facts": list(r.facts), "doc": r.doc} for r in rules]) + "\n")
        return 0
    out = sys.stdout
    for n, r in enumerate(rules, 1):
        variant = f" [{r.variant}]" if r.variant else ""
        out.write(f"{n:3}. {r.name}{variant}  ({r.phase.name.lower()}; SGLang: {r.sglang})\n")
        for line in r.doc.splitlines():
            out.write(f"       {line}\n" if line else "\n")
        if r.writes:
            out.write(f"       writes: {', '.join(sorted(r.writes))}\n")
        reads = sorted(r.reads) + list(r.facts)
        if reads:
            out.write(f"       reads:  {', '.join(reads)}\n")
        out.write("\n")
    return 0


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
