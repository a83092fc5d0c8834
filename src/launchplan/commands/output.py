"""Rendering plans: JSON for tools, a plain table for people (Rich on a terminal, if present)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO

from launchplan import encoding
from launchplan.engine.result import Result
from launchplan.numbers import human_float
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
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return human_float(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        text = encoding.plain(value)  # nan, inf, -inf and very long integers, unquoted
        if isinstance(text, str):
            return text
    return encoding.dumps(_humane(value))


def _humane(value: Any) -> Any:
    """Floats inside structures rounded for display the way ``human_float`` does."""
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return float(human_float(value))
    if isinstance(value, dict):
        return {k: _humane(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_humane(v) for v in value]
    return value


def wrapped(text: str, indent: str = "  - ", width: int = 80) -> str:
    """One note wrapped on word boundaries to ``width`` columns, continuation indented."""
    import textwrap

    return textwrap.fill(text, width=width, initial_indent=indent,
                         subsequent_indent=" " * len(indent), break_long_words=False,
                         break_on_hyphens=False)


def print_plan(result: Result, out: TextIO | None = None, *, show_all: bool = False) -> None:
    """The table view of a plan: the decisions first (what rules set or changed, what you
    gave, overrides marked), then warnings. ``show_all`` adds every untouched default."""
    out = out or sys.stdout
    target, model = result.record.target, result.record.model
    out.write(f"target {target.name} (SM{target.sm}, {target.memory_mib} MiB x "
              f"{target.gpu_count})  model {model.name} ({model.attention_arch})  "
              f"rules {result.record.compat}\n\n")
    rows, hidden = plan_rows(result, show_all=show_all)
    color = out.isatty()
    shown = [(("! " if over else "") + name, before, final,
              _mark(source, over, color)) for name, before, final, source, over in rows]
    render_table(("field", "input/default", "resolved", "set by"), shown, out)
    if hidden:
        out.write(f"({hidden} bookkeeping values and paths not shown; --format json has every "
                  "field)\n")
    if not show_all:
        out.write("(fields at defaults nothing touched: --all)\n")
    overrides = result.overrides()
    if overrides:
        out.write("\n! overrides of your input:\n")
        for o in overrides:
            out.write(wrapped(f"{o['field']}: you gave {cell(o['input'])}, {o['source']} made "
                              f"it {cell(o['resolved'])}", "  ") + "\n")
    warnings = list(result.record.raw.notices) + list(result.record.raw.deprecations)
    warnings += result.warnings
    if warnings:
        out.write("\nwarnings:\n")
        for w in warnings:
            out.write(wrapped(w) + "\n")


def plan_rows(result: Result, *, show_all: bool = False
              ) -> tuple[list[tuple[str, Any, Any, str, bool]], int]:
    """(field, input/default, resolved, set by, overridden) rows, decisions first; and how
    many bookkeeping rows were left out."""
    from launchplan.checks.effective import NAMES
    from launchplan.explain import changed_rows
    from launchplan.input.fields import FIELDS

    raw = result.record.raw
    overridden = {o["field"] for o in result.overrides()}
    rows = [(n, b, f, s, n in overridden) for n, b, f, s in changed_rows(result)]
    seen = {r[0] for r in rows}
    graph_given = any(n.startswith("cuda_graph_config") for n in seen)
    for name in sorted(raw.values):
        if name in seen or (name == "cuda_graph_config" and graph_given):
            continue
        value = result.value(name)
        rows.append((name, raw.values[name], value, "your input", False))
        seen.add(name)
    if show_all:
        for name in sorted(FIELDS):
            if name not in seen and name != "cuda_graph_config":
                rows.append((name, None, result.value(name), "default", False))
    kept = [r for r in rows if not r[0].startswith("_") and r[0] not in NAMES]
    order = {"your input": 1, "default": 2}
    kept.sort(key=lambda r: (order.get(r[3], 0), r[0]))
    return kept, len(rows) - len(kept)


def _mark(source: str, overridden: bool, color: bool) -> str:
    if not overridden:
        return source
    return f"\x1b[31m{source} (overrode yours)\x1b[0m" if color else f"{source} (overrode yours)"


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
        out.write(wrapped(f"[{tag}] {p.requirement}: {p.why}", "  ") + "\n")
        out.write(wrapped(p.evidence, "      evidence: ") + "\n")
        if p.rules:
            rules = ", ".join("your input" if r == "input" else r for r in p.rules)
            out.write(wrapped(rules, "      decided by: ") + "\n")
        if p.fixes:
            out.write(wrapped(" | ".join(as_flags(f) for f in p.fixes), "      avoid with: ")
                      + "\n")
    out.write("\n")


GIB = float(1 << 30)


#: The request-to-token table is named from this size on (a 128K context's 2,049 rows are
#: 1 GiB; a 4K context's, 32 MiB, are not worth a line).
TABLE_SHOWN_BYTES = 256 << 20


def request_table_text(plan: Any) -> str:
    """The request-to-token table's share of the reserve, when sizeable ('' otherwise):
    SGLang builds it after sizing the KV pool, so the reserve shown is not all free."""
    table = plan.req_to_token_bytes
    if table < TABLE_SHOWN_BYTES:
        return ""
    if table > plan.reserved_bytes:
        return (f"the request-to-token table takes {table / GIB:.2f} GiB, more than the "
                f"{plan.reserved_bytes / GIB:.1f} GiB reserve it comes out of "
                "(max_running_requests x context length, int32)")
    return (f"of the reserve, the request-to-token table: {table / GIB:.2f} GiB "
            "(max_running_requests x context length, int32; built after the KV pool)")


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
    out.write(f"\nmemory per GPU ({plan.gpu_bytes / GIB:.1f} GiB):\n  "
              + " | ".join(f"{name} {size / GIB:.1f} GiB" for name, size in parts) + "\n")
    if out.isatty():
        out.write("  " + _bar(parts, plan.gpu_bytes) + "\n")
    target = result.record.target
    assumed = ("stated with --before-load-mib" if target.before_load_mib is not None
               else "assumed: GPU memory less the CUDA context and communication buffers; "
               "override with --before-load-mib")
    out.write(wrapped(f"free before loading {plan.before_load_bytes / GIB:.1f} GiB ({assumed})",
                      "  ") + "\n")
    if plan.draft_weights_bytes:
        out.write(f"  of the weights, the speculative draft: {plan.draft_weights_bytes / GIB:.1f} "
                  "GiB\n")
    table = request_table_text(plan)
    if table:
        out.write(wrapped(table, "  ") + "\n")
    if not plan.fits:
        out.write(f"  does not fit: {plan.problem}\n")
        return
    from launchplan.memory.plan import ENCODER_ONLY_CAVEAT

    if ENCODER_ONLY_CAVEAT in plan.caveats:
        out.write(wrapped(ENCODER_ONLY_CAVEAT, "  ") + "\n")
        return
    per_token = plan.kv_bytes_per_token
    out.write(f"  max_total_num_tokens {plan.max_total_num_tokens:,} "
              f"({per_token:,} bytes per token)\n")
    stored = _kv_storage(plan)
    if stored:
        out.write(wrapped(stored, "  ") + "\n")
    for key in ("full_max_total_num_tokens", "swa_max_total_num_tokens",
                "c4_max_total_num_tokens", "c128_max_total_num_tokens"):
        if key in plan.extra:
            out.write(f"  {key} {plan.extra[key]:,}\n")
    out.write(f"  max_running_requests {plan.max_running_requests:,}\n")
    out.write(wrapped(f"concurrency: {plan.concurrency_at_context:,} at the full context "
                      f"({plan.context_len:,} tokens), {plan.concurrency_at_request:,} at "
                      f"{plan.request_tokens:,} tokens a request (--assume-request-tokens)",
                      "  ") + "\n")


def _kv_storage(plan: Any) -> str | None:
    """The KV cache's storage when a checkpoint or a method decided it under ``auto`` (the
    flag then says nothing of the halved bytes a token)."""
    from launchplan.memory.kv_pool import KV_DTYPE_STEP

    for label, value in plan.steps:
        if label.startswith(KV_DTYPE_STEP) and "auto:" in label and value == "fp8":
            reason = label[label.index("auto:") + 5:].rstrip(")").strip()
            return f"KV cache fp8 under --kv-cache-dtype auto: {reason}"
    return None


def _bar(parts: Sequence[tuple[str, int]], total: int, width: int = 60) -> str:
    marks = "WKR."
    cells = []
    for (_, size), mark in zip(parts, marks):
        cells.append(mark * max(0, round(width * size / total)) if total else "")
    return "[" + "".join(cells)[:width].ljust(width) + "]  W weights  K KV pool  R reserve"


def print_log_report(report: Any, path: str, line: int, out: TextIO | None = None) -> None:
    """--from-log: the comparison first (empty is agreement), then what was read."""
    out = out or sys.stdout
    result = report.result
    target = result.record.target
    if not line:
        shown = any(n.startswith("the log has no server_args line:") for n in report.notes)
        launch = "the command it shows and the flags given" if shown else "the flags given"
        out.write(f"log {path}: no server_args line; the launch is {launch}, planned "
                  f"on {target.name} (rules {result.record.compat})\n")
    else:
        out.write(f"log {path} (line {line}): {len(report.inputs)} values taken as input, "
                  f"{report.compared} compared on {target.name} (rules "
                  f"{result.record.compat})\n")
    if report.abridged:
        out.write("  the logged line is abridged (fields left out with ...): those fields are "
                  "not compared\n")
    elif report.truncated:
        out.write("  the logged line is cut off: the fields after the cut are not compared\n")
    for note in report.notes:
        out.write(wrapped(note, indent="  ") + "\n")
    for note in getattr(report, "respelled", ()):
        out.write(wrapped(f"read in {report.release}'s terms: {note}", indent="  ") + "\n")
    for note in result.record.raw.notices:
        if "is not on this machine" in note:  # the logged model path, read as a bundled model
            out.write(f"  {note}\n")
    if report.explicit:
        out.write("agrees if you passed these explicitly (launchplan's rule would decide "
                  "otherwise):\n")
        rows = [(d.field, _short(d.logged), _short(d.planned), d.rule) for d in report.explicit]
        render_table(("field", "logged", "rule would set", "rule"), rows, out)
    if not line:
        pass  # no logged values to compare with
    elif report.agrees:
        out.write("differences: none (the plan agrees with the log)\n")
    else:
        out.write(f"differences: {len(report.differences)}\n")
        rows = [(d.field, _short(d.logged), _short(d.planned), d.rule)
                for d in report.differences]
        render_table(("field", "logged", "planned", "rule"), rows, out)
    if report.memory:
        _print_log_memory(report.memory, out)
    if report.release_hint and report.release_hint != result.record.compat:
        out.write(wrapped(f"every logged field is one of SGLang {report.release_hint}'s: "
                          f"--compat {report.release_hint} plans it as that release", indent="")
                  + "\n")
    if report.unknown:
        out.write(wrapped(f"fields SGLang {report.release} does not have (not used): "
                          f"{', '.join(report.unknown)}", indent="") + "\n")
    if report.unreadable:
        out.write(wrapped("values that are not plain literals (not used): "
                          + ", ".join(report.unreadable), indent="") + "\n")
    for name, why in report.not_accepted.items():
        out.write(wrapped(f"{name}: not accepted as input by {report.release}: {why}",
                          indent="") + "\n")
    for name, why in getattr(report, "not_planned", {}).items():
        out.write(wrapped(f"{name}: not planned: {why}", indent="") + "\n")
    for name, why in report.refused_if_given.items():
        out.write(wrapped(f"{name}: the logged value, given, is refused by {report.release} "
                          f"(the log's release decided otherwise): {why}", indent="") + "\n")
    for name, how in getattr(report, "overridden_if_given", {}).items():
        out.write(wrapped(f"{name}: the logged value, given, is still replaced by "
                          f"{report.release}'s {how['rule']} with {_short(how['value'])} (the "
                          f"log's release decided otherwise)", indent="") + "\n")


def _print_log_memory(rows: list[Any], out: TextIO) -> None:
    """The log's memory figures beside the plan's, per GPU, with relative errors; a figure
    a full GPU capped is marked as the floor it is, its note under the table."""
    def shown(value: Any, unit: str) -> str:
        if value is None:
            return "-"
        if isinstance(value, bool):  # the KV pool made, or not
            return "yes" if value else "no"
        return f"{value:.2f} {unit}" if unit else f"{value:,}"

    def error(row: Any, planned: Any) -> str:
        value = row.error(planned)
        if row.lower_bound and planned is not None:
            # a full GPU's figure is a floor: a plan below it is under by at least this
            return "GPU full" if value is None else f"<={value:+.1%}"
        return "-" if value is None else f"{value:+.1%}"

    def logged(row: Any) -> str:
        text = shown(row.logged, row.unit)
        return ">=" + text if row.lower_bound else text

    out.write("memory per GPU (the plan's figure, then planned again from the log's free "
              "memory before loading):\n")
    table = [(r.figure, logged(r), shown(r.planned, r.unit), error(r, r.planned),
              shown(r.from_logged_free, r.unit) if r.from_logged_free is not None else "-",
              error(r, r.from_logged_free)) for r in rows]
    render_table(("figure", "logged", "planned", "error", "from logged free", "error"),
                 table, out)
    for r in rows:
        if r.note:
            out.write(wrapped(f"{r.figure}: {r.note}", indent="  ") + "\n")


def _short(value: Any, width: int = 40) -> str:
    text = cell(value)
    return text if len(text) <= width else text[:width - 3] + "..."
