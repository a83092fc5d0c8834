"""``launchplan matrix``: the support matrix of the rules, as HTML, Markdown or JSON."""

from __future__ import annotations

import html
import sys
from collections.abc import Sequence
from typing import Any

from launchplan.errors import InputError

HELP = """usage: launchplan matrix [--html FILE] [--format md|json] [--gpu NAME ...] [--compat C]

For every target x attention backend (whole, and split prefill/decode pairs) x attention
kind (MHA/GQA: llama-3.1-8b, MLA: deepseek-v2-lite, hybrid: gpt-oss-20b) x switch (plain,
speculative top-k 4 with the bundled EAGLE draft, FP8 KV cache, full prefill CUDA graph):
the backend the plan ends with, the page size and preflight's verdict, with the reason.

options:
  --html FILE     write a self-contained page (inline CSS, no network, no links); the
                  reason is shown on hover
  --format md|json
                  print Markdown (default) or JSON on stdout
  --gpu NAME      only this target (repeatable; default: the simulated targets)
  --compat default|0.5.23
"""

VERDICT_LABEL = {"starts": "starts", "fails-at-start": "fails at start-up",
                 "runtime-error": "runtime error", "refused": "refused", "n/a": "n/a"}


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(HELP)
        return 0
    out_file, fmt, gpus, compat = _parse(argv)
    from launchplan.checks.matrix import cells
    from launchplan.facts.targets import SIMULATED, get_target

    for gpu in gpus:
        get_target(gpu)  # one line naming --gpu when unknown
    table = list(cells(gpus or list(SIMULATED), compat))
    if out_file is not None:
        try:
            with open(out_file, "w", encoding="utf-8") as fh:
                fh.write(to_html(table, compat))
        except OSError as exc:
            raise InputError("--html", "a writable file", out_file, exc.strerror) from None
        sys.stderr.write(f"launchplan: wrote {len(table)} cells to {out_file}\n")
        if fmt is None:
            return 0
    if fmt == "json":
        from launchplan.commands.output import to_json

        sys.stdout.write(to_json({"compat": compat, "cells": [c.to_dict() for c in table]})
                         + "\n")
    else:
        sys.stdout.write(to_markdown(table))
    return 0


def _parse(argv: Sequence[str]) -> tuple[str | None, str | None, list[str], str]:
    out_file = fmt = None
    compat = "default"
    gpus: list[str] = []
    i = 0
    while i < len(argv):
        flag, eq, inline = argv[i].partition("=")
        if flag not in ("--html", "--format", "--gpu", "--compat"):
            raise InputError(argv[i], "one of --html, --format, --gpu, --compat for matrix",
                             message=f"matrix: unknown option {argv[i]!r} (options: --html "
                             "FILE, --format md|json, --gpu NAME, --compat C)")
        if eq:
            value, i = inline, i + 1
        elif i + 1 < len(argv):
            value, i = argv[i + 1], i + 2
        else:
            raise InputError(flag, "a value", message=f"{flag}: expected a value after it")
        if flag == "--html":
            out_file = value
        elif flag == "--format":
            if value not in ("md", "json"):
                raise InputError("--format", "md or json for matrix", value)
            fmt = value
        elif flag == "--gpu":
            gpus.append(value)
        else:
            if value not in ("default", "0.5.23"):
                raise InputError("--compat", "default or 0.5.23", value)
            compat = value
    return out_file, fmt, gpus, compat


def _groups(table: Sequence[Any]) -> dict[tuple[str, str], dict[tuple[str, str], dict[str, Any]]]:
    """(kind, model) -> (gpu, backend asked) -> switch -> cell, in generation order."""
    out: dict[tuple[str, str], dict[tuple[str, str], dict[str, Any]]] = {}
    for c in table:
        out.setdefault((c.kind, c.model), {}).setdefault((c.gpu, c.choice), {})[c.switch] = c
    return out


def _switches(table: Sequence[Any]) -> list[str]:
    return list(dict.fromkeys(c.switch for c in table))


def _summary(c: Any) -> str:
    if c.backend is None:
        return VERDICT_LABEL[c.verdict]
    return f"{c.backend}, page {c.page_size}: {VERDICT_LABEL[c.verdict]}"


def to_markdown(table: Sequence[Any]) -> str:
    switches = _switches(table)
    lines: list[str] = []
    for (kind, model), rows in _groups(table).items():
        lines += [f"### {kind} ({model})", "",
                  "| target | backend asked | " + " | ".join(switches) + " |",
                  "|---|---|" + "---|" * len(switches)]
        for (gpu, choice), by_switch in rows.items():
            lines.append(f"| {gpu} | {choice} | "
                         + " | ".join(_summary(by_switch[s]) for s in switches) + " |")
        lines.append("")
    return "\n".join(lines) + "\n"


_CSS = """
body { font: 13px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1b1b1b; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
table { border-collapse: collapse; margin-bottom: 1em; }
th, td { border: 1px solid #c8c8c8; padding: 3px 6px; vertical-align: top; }
th { background: #f0f0f0; text-align: left; }
td.cell { min-width: 11em; cursor: help; }
td.cell .b { font-weight: 600; } td.cell .p { color: #555; }
td.cell .v { display: block; font-size: 0.92em; }
.v-starts { background: #e3f4e1; } .v-fails-at-start { background: #fde3c8; }
.v-runtime-error { background: #fbd3d3; } .v-refused { background: #e6e6e6; color: #555; }
.v-n\\/a { background: #fafafa; color: #999; }
.legend span { padding: 2px 8px; margin-right: 6px; border: 1px solid #c8c8c8; }
"""


def to_html(table: Sequence[Any], compat: str = "default") -> str:
    switches = _switches(table)
    esc = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             # nothing may load from anywhere: the page is complete as written
             '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
             'style-src \'unsafe-inline\'">',
             "<title>launchplan support matrix</title>", f"<style>{_CSS}</style>",
             "</head><body>",
             f"<h1>Support matrix from launchplan's rules (SGLang 0.5.23, rules {esc(compat)})"
             "</h1>",
             "<p>Each cell: the attention backend the plan ends with, its page size and "
             "preflight's verdict. Hover a cell for the reason.</p>",
             '<p class="legend">' + "".join(
                 f'<span class="v-{esc(v)}">{esc(label)}</span>'
                 for v, label in VERDICT_LABEL.items()) + "</p>"]
    for (kind, model), rows in _groups(table).items():
        parts.append(f"<h2>{esc(kind)}: {esc(model)}</h2>")
        parts.append(f'<table data-kind="{esc(kind)}"><thead><tr><th>target</th>'
                     "<th>backend asked</th>"
                     + "".join(f"<th>{esc(s)}</th>" for s in switches) + "</tr></thead><tbody>")
        for (gpu, choice), by_switch in rows.items():
            parts.append(f"<tr><th>{esc(gpu)}</th><th>{esc(choice)}</th>")
            for s in switches:
                c = by_switch[s]
                inner = (f'<span class="b">{esc(str(c.backend))}</span> '
                         f'<span class="p">page {esc(str(c.page_size))}</span>'
                         if c.backend is not None else "")
                parts.append(
                    f'<td class="cell v-{esc(c.verdict)}" title="{esc(c.reason)}" '
                    f'data-model="{esc(model)}" data-gpu="{esc(gpu)}" '
                    f'data-choice="{esc(choice)}" '
                    f'data-switch="{esc(s)}">{inner}'
                    f'<span class="v">{esc(VERDICT_LABEL[c.verdict])}</span></td>')
            parts.append("</tr>")
        parts.append("</tbody></table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
