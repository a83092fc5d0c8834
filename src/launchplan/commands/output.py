"""Rendering plans: JSON for tools, a plain table for people (Rich on a terminal, if present)."""

from __future__ import annotations

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
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        text = encoding.plain(value)  # nan, inf, -inf and very long integers, unquoted
        if isinstance(text, str):
            return text
    return encoding.dumps(value)


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
