"""``resolve --format markdown``: a plan to paste into an issue, a pull request or a runbook.

Reports about a launch travel as text people paste into GitHub. The terminal table loses
its columns there; JSON is for programs. This writes the same content as the table view
(the verdict with each problem's evidence and fixes, the decisions, the warnings, the
memory plan) in GitHub-flavoured Markdown: the launch as given on top, the command that
pins the plan folded away at the end.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from launchplan.commands.output import GIB, cell, plan_rows, request_table_text


def _escaped(text: str) -> str:
    """A table cell: pipes escaped, line breaks as spaces."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    """Inline code that survives backticks inside it."""
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}" if fence == "`" else f"{fence} {text} {fence}"


def print_markdown(result: Any, report: Any, memory: Any, out: TextIO | None = None) -> None:
    from launchplan.checks.alternatives import as_flags
    from launchplan.checks.preflight import VERDICT_TEXT
    from launchplan.emit import input_command, sglang_command

    out = out or sys.stdout
    target, model = result.record.target, result.record.model
    out.write(f"### launchplan: {model.name} on {target.name} (rules {result.record.compat})"
              "\n\n")
    out.write("```bash\n" + input_command(result) + "\n```\n\n")
    out.write(f"**Preflight: {VERDICT_TEXT[report.verdict]}**\n\n")
    for p in report.problems:
        tag = p.severity.value + ("" if p.verified else ", unverified")
        line = f"- **[{tag}] {p.requirement}**: {p.why}"
        if p.fixes:
            line += " Avoid with " + ", ".join(_code(as_flags(f)) for f in p.fixes) + "."
        out.write(line + f"\n  <sub>{p.evidence}</sub>\n")
    if report.problems:
        out.write("\n")
    rows, _ = plan_rows(result)
    out.write("| field | input/default | resolved | set by |\n|---|---|---|---|\n")
    for name, before, final, source, overridden in rows:
        by = f"**{source} (overrode yours)**" if overridden else source
        out.write(f"| {_code(name)} | {_escaped(cell(before))} | {_escaped(cell(final))} | "
                  f"{_escaped(by)} |\n")
    warnings = [*result.record.raw.notices, *result.record.raw.deprecations, *result.warnings]
    if warnings:
        out.write("\n**Warnings**\n\n" + "".join(f"- {_escaped(w)}\n" for w in warnings))
    out.write("\n" + _memory_line(memory) + "\n")
    out.write("\n<details><summary>the command that pins this plan</summary>\n\n```bash\n"
              + sglang_command(result) + "\n```\n</details>\n")


def _memory_line(plan: Any) -> str:
    if plan is None:
        return "**Memory per GPU**: not planned (the target's memory is unknown, or " \
               "mem_fraction_static or page_size cannot size a pool)"
    parts = (("weights", plan.weights_bytes + plan.draft_weights_bytes),
             ("KV pool", plan.kv_pool_bytes), ("reserve", plan.reserved_bytes),
             ("other", plan.other_bytes))
    text = (f"**Memory per GPU** ({plan.gpu_bytes / GIB:.1f} GiB): "
            + " · ".join(f"{name} {size / GIB:.1f} GiB" for name, size in parts))
    if not plan.fits:
        return text + f". Does not fit: {plan.problem}"
    table = request_table_text(plan)
    if table:
        text += f"; {_escaped(table)}"
    return (text + f"; max_total_num_tokens {plan.max_total_num_tokens:,}, "
            f"max_running_requests {plan.max_running_requests:,}; "
            f"{plan.concurrency_at_context:,} requests at the full context "
            f"({plan.context_len:,} tokens), {plan.concurrency_at_request:,} at "
            f"{plan.request_tokens:,} tokens each")
