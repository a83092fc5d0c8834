"""Rendering plans: JSON for tools, a plain table for people (Rich on a terminal, if present)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from launchplan import encoding
from launchplan.engine.result import Result
from launchplan.rules.size_lists import SizeList


def to_json(data: Any) -> str:
    """Deterministic RFC 8259 JSON: sorted keys; non-finite numbers as "nan", "inf", "-inf"
    and other non-JSON values as strings (``launchplan.encoding``)."""
    return encoding.dumps(data, sort_keys=True, indent=2)


def render_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], out: TextIO) -> None:
    """A table: Rich when writing to a terminal and Rich is installed, else aligned text."""
    text_rows = [[cell(c) for c in row] for row in rows]
    if out.isatty():
        try:
            from rich.console import Console
            from rich.table import Table
        except ImportError:
            pass
        else:
            table = Table(*headers)
            for row in text_rows:
                table.add_row(*row)
            Console(file=out).print(table)
            return
    widths = [max([len(h)] + [len(r[i]) for r in text_rows]) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()
    out.write(line + "\n" + "  ".join("-" * w for w in widths) + "\n")
    for row in text_rows:
        out.write("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + "\n")


def cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if isinstance(value, list) and len(value) > 8:
        return f"[{value[0]}, {value[1]}, ..., {value[-1]}] ({len(value)} values)"
    if isinstance(value, SizeList):
        return repr(value)
    return json.dumps(value, default=str)


def print_plan(result: Result, out: TextIO | None = None) -> None:
    """The table view of a plan: what moved and why, overrides, warnings."""
    out = out or sys.stdout
    target, model = result.record.target, result.record.model
    out.write(f"target {target.name} (SM{target.sm}, {target.memory_mib} MiB x "
              f"{target.gpu_count})  model {model.name} ({model.attention_arch})  "
              f"rules {result.record.compat}\n\n")
    from launchplan.checks.effective import NAMES
    from launchplan.explain import changed_rows

    rows = changed_rows(result)
    shown = [r for r in rows if not r[0].startswith("_") and r[0] not in NAMES]
    render_table(("field", "input/default", "resolved", "set by"), shown, out)
    if len(shown) < len(rows):
        out.write(f"({len(rows) - len(shown)} bookkeeping values and paths not shown; "
                  "--format json has every field)\n")
    overrides = result.overrides()
    if overrides:
        out.write("\noverrides of your input:\n")
        for o in overrides:
            out.write(f"  {o['field']}: you gave {cell(o['input'])}, {o['source']} made it "
                      f"{cell(o['resolved'])}\n")
    warnings = list(result.record.raw.notices) + list(result.record.raw.deprecations)
    warnings += result.warnings
    if warnings:
        out.write("\nwarnings:\n")
        for w in warnings:
            out.write(f"  - {w}\n")


def print_preflight(report: Any, out: TextIO | None = None) -> None:
    """The verdict first, then each problem: severity, why, evidence, what avoids it."""
    from launchplan.checks.alternatives import as_flags
    from launchplan.checks.preflight import VERDICT_TEXT

    out = out or sys.stdout
    problems = report.problems
    out.write(f"preflight: {VERDICT_TEXT[report.verdict]}")
    degraded = sum(1 for p in problems if p.decides is False)
    out.write(f" ({degraded} advisory)\n" if degraded and report.starts else "\n")
    for p in problems:
        tag = p.severity.value + ("" if p.verified else ", unverified")
        out.write(f"  [{tag}] {p.requirement}: {p.why}\n")
        out.write(f"      evidence: {p.evidence}\n")
        if p.rules:
            rules = ", ".join("your input" if r == "input" else r for r in p.rules)
            out.write(f"      decided by: {rules}\n")
        if p.fixes:
            out.write(f"      avoid with: {' | '.join(as_flags(f) for f in p.fixes)}\n")
    out.write("\n")


GIB = float(1 << 30)


def print_memory(plan: Any, result: Result, out: TextIO | None = None) -> None:
    """Per GPU: weights / KV pool / reserve / other, tokens, requests and concurrency."""
    out = out or sys.stdout
    if plan is None:
        out.write("\nmemory: not planned (the target's memory is unknown, or mem_fraction_static "
                  "or page_size cannot size a pool)\n")
        return
    parts = [("weights", plan.weights_bytes + plan.draft_weights_bytes),
             ("KV pool", plan.kv_pool_bytes), ("reserve", plan.reserved_bytes),
             ("other", plan.other_bytes)]
    out.write(f"\nmemory per GPU ({plan.gpu_bytes / GIB:.1f} GiB): "
              + " | ".join(f"{name} {size / GIB:.1f} GiB" for name, size in parts) + "\n")
    if out.isatty():
        out.write("  " + _bar(parts, plan.gpu_bytes) + "\n")
    target = result.record.target
    assumed = ("stated with --before-load-mib" if target.before_load_mib is not None
               else "assumed: GPU memory less the CUDA context and communication buffers; "
               "override with --before-load-mib")
    out.write(f"  free before loading {plan.before_load_bytes / GIB:.1f} GiB ({assumed})\n")
    if plan.draft_weights_bytes:
        out.write(f"  of the weights, the speculative draft: {plan.draft_weights_bytes / GIB:.1f} "
                  "GiB\n")
    if not plan.fits:
        out.write(f"  does not fit: {plan.problem}\n")
        return
    per_token = plan.kv_bytes_per_token
    out.write(f"  max_total_num_tokens {plan.max_total_num_tokens:,} "
              f"({per_token:,} bytes per token)\n")
    for key in ("full_max_total_num_tokens", "swa_max_total_num_tokens"):
        if key in plan.extra:
            out.write(f"  {key} {plan.extra[key]:,}\n")
    out.write(f"  max_running_requests {plan.max_running_requests:,}\n")
    out.write(f"  concurrency: {plan.concurrency_at_context:,} at the full context "
              f"({plan.context_len:,} tokens), {plan.concurrency_at_request:,} at "
              f"{plan.request_tokens:,} tokens a request (--assume-request-tokens)\n")


def _bar(parts: Sequence[tuple[str, int]], total: int, width: int = 60) -> str:
    marks = "WKR."
    cells = []
    for (_, size), mark in zip(parts, marks):
        cells.append(mark * max(0, round(width * size / total)) if total else "")
    return "[" + "".join(cells)[:width].ljust(width) + "]  W weights  K KV pool  R reserve"
