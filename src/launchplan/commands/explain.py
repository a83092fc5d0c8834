"""``launchplan explain FIELD``: why a field has its value, rule by rule."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from launchplan.commands.options import no_markdown, noting_launch, split_argv
from launchplan.commands.output import cell, print_preflight, to_json, wrapped
from launchplan.commands.resolve import parse_env
from launchplan.commands.targets_arg import target_from
from launchplan.errors import InputError

HELP = """usage: launchplan explain FIELD --gpu TARGET --model-path MODEL [SGLang flags] [options]
       launchplan explain --all --gpu TARGET --model-path MODEL [SGLang flags] [options]

The chain behind one field: its input or default, then each declaration with the rule, the
fields and facts it read and its reason; an override of your input says what would have
kept it. FIELD may be dotted (cuda_graph_config.prefill.backend), and may come last instead
of first when the word before it is not a flag that takes a value. The preflight verdict of
the plan comes first (JSON: a "preflight" key; --all gives {"explanations": [...]}).

options: --all, --format table|json, --compat default|0.5.23|0.5.22|0.5.21,
  --gpu-* overrides, --host-ib-devices NAMES|none and --host-imex-channel (the host's
  InfiniBand devices and IMEX channel), --env K=V, --from-log FILE (explain the launch a
  start-up log's server_args line records, with the values `resolve --from-log` takes as
  input),
  --launch N (a pasted text with several launch commands: explain the Nth)
"""

ALLOWED = frozenset({"--gpu", "--launch", "--gpu-memory-mib", "--gpu-capability", "--gpu-count",
                     "--host-ib-devices", "--host-imex-channel",
                     "--cuda-version", "--compat", "--format", "--env", "--all",
                     "--before-load-mib", "--load-overhead-mib", "--assume-request-tokens",
                     "--from-log"})


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(HELP)
        return 0
    from launchplan.checks.preflight import preflight, refused, with_fixes
    from launchplan.engine.pipeline import run
    from launchplan.errors import Refusal
    from launchplan.explain import changed_fields, explain_field
    from launchplan.input.fields import FIELDS
    from launchplan.planner import build_raw, build_record
    from launchplan.rulesets import get_ruleset

    field = None
    if argv and not argv[0].startswith("-"):
        field, argv = argv[0], argv[1:]
    split = split_argv(argv, ALLOWED)
    with noting_launch(split):
        opts = split.options
        if field is None and not opts.get("all"):
            field = _trailing_field(split.sglang_argv)
        if field is None and not opts.get("all"):
            raise InputError("explain", "a FIELD to explain, or --all",
                             message="explain: name a FIELD (e.g. `launchplan explain page_size "
                             "--gpu ...`) or pass --all")
        from launchplan.memory.plan import QUANTITIES

        if field is not None and field.partition(".")[0] not in FIELDS and field not in QUANTITIES:
            import difflib

            close = difflib.get_close_matches(field, [*FIELDS, *QUANTITIES], n=1)
            raise InputError("explain FIELD", "an SGLang field name", field,
                             f"did you mean {close[0]}?" if close else None)
        fmt = no_markdown(opts.get("format"), "explain") or "table"
        from launchplan.commands.resolve import log_report, read_logged

        read = read_logged(opts)
        compat = opts.get("compat") or "default"
        target = target_from(opts, argv)
        env = parse_env(opts.get("env"))
        rules = get_ruleset(compat).rules()

        argv_used: list[str] = split.sglang_argv
        base: dict[str, Any] = {}
        if read is not None:
            _, logged = log_report(opts["from_log"], split.sglang_argv, target, compat, env, read)
            argv_used, base = [], dict(logged.inputs)
            for name, why in logged.not_accepted.items():  # explained without them: say so
                sys.stderr.write(f"launchplan: note: the logged {name} is not used: {why}\n")

        def resolve_with(extra: dict[str, Any]):
            raw = build_raw(argv_used, {**base, **extra}, compat=compat)
            return run(build_record(raw, target, compat=compat, env=env), rules, trace=True)

        def quick(extra: dict[str, Any]):
            raw = build_raw(argv_used, {**base, **extra}, compat=compat)
            return run(build_record(raw, target, compat=compat, env=env), rules)

        try:
            result = resolve_with({})
            report = with_fixes(preflight(result), result, quick)
        except Refusal as refusal:
            if refusal.result is None:
                raise
            result = refusal.result
            report = with_fixes(refused(refusal.source, refusal.message, refusal.requirement,
                                        result), result, quick)
            sys.stderr.write(f"launchplan: note: SGLang refuses this configuration "
                             f"({refusal.source}: {refusal.message}); explaining what was decided "
                             "before the refusal\n")
        if field in QUANTITIES and field not in FIELDS:
            return explain_memory(field, result, report, fmt, opts)
        fields = changed_fields(result) if field is None else [field]
        explanations = [explain_field(result, f, resolve_with) for f in fields]
        if field is None:  # --all: what changed, each field's chain (why-not: field by field)
            for item in explanations:
                item.pop("not_applied", None)
                item.pop("not_for_this", None)
        if fmt == "json":
            payload: Any = ({"explanations": explanations} if field is None
                            else dict(explanations[0]))
            payload["preflight"] = report.to_dict()
            sys.stdout.write(to_json(payload) + "\n")
        else:
            print_preflight(report, sys.stdout)
            for item in explanations:
                print_explanation(item, sys.stdout)
        return 0


def explain_memory(name: str, result: Any, report: Any, fmt: str, opts: dict[str, Any]) -> int:
    """A memory-plan quantity (``max_total_num_tokens``, ...): the arithmetic step by step."""
    from launchplan.memory.plan import DEFAULT_REQUEST_TOKENS, memory_plan

    plan = memory_plan(result, request_tokens=opts.get("request_tokens")
                       or DEFAULT_REQUEST_TOKENS)
    if plan is None:
        raise InputError("explain FIELD", "a launch whose memory can be planned (a target with "
                         "known memory, 0 < mem_fraction_static, page_size >= 1)", name)
    value = plan.to_dict().get(name)
    steps = list(plan.steps)
    if name == "req_to_token_bytes" and value:
        steps.append(_table_step(result, plan))
    if fmt == "json":
        sys.stdout.write(to_json({"field": name, "resolved": value, "fits": plan.fits,
                                  "steps": [[k, v] for k, v in steps],
                                  "caveats": list(plan.caveats),
                                  "preflight": report.to_dict()}) + "\n")
        return 0
    out = sys.stdout
    print_preflight(report, out)
    out.write(f"{name} = {cell(value)}   (memory plan, per GPU)\n")
    for n, (label, step) in enumerate(steps, 1):
        shown = f"{step:,.4f}" if isinstance(step, float) else (
            f"{step:,}" if isinstance(step, int) else cell(step))
        out.write(f"  {n:2}. {label}: {shown}\n")
    if not plan.fits:
        out.write(f"  does not fit: {plan.problem}\n")
    for caveat in plan.caveats:
        out.write(f"  caveat: {caveat}\n")
    return 0


def _table_step(result: Any, plan: Any) -> tuple[str, int]:
    """The request-to-token table's own step: SGLang builds it once the pool is sized, so
    the pool's steps end before it."""
    from launchplan.memory.plan import req_to_token_shape
    from launchplan.memory.values import plain_values

    rows, width = req_to_token_shape(plain_values(result), plan.max_running_requests,
                                     plan.context_len, result.value("page_size"))
    return (f"request-to-token table = {rows:,} rows (max_running_requests + 1, with any PD "
            f"decode pre-allocation) x {width:,} slots (context {plan.context_len:,} and the "
            "headroom) x 4 B, built after the pool, out of the reserve", rows * width * 4)


def print_explanation(item: dict[str, Any], out: TextIO) -> None:
    """One field's chain: a Rich table on a terminal (when Rich is installed), else text."""
    if out.isatty():
        try:
            from rich.console import Console
            from rich.table import Table
        except ImportError:
            pass
        else:
            _rich_explanation(item, Console(file=out), Table)
            return
    _plain_explanation(item, out)


def _rich_explanation(item: dict[str, Any], console: Any, table_type: Any) -> None:
    from rich.markup import escape

    start = (f"input {cell(item['input'])} (from the {item['origin']})"
             if item["origin"] != "default" else f"default {cell(item['default'])}")
    if not item["steps"]:
        console.print(escape(f"{item['field']} = {cell(item['resolved'])}   ({start}); "
                             "no rule changed it"))
        _rich_not_applied(item, console)
        return
    table = table_type(title=escape(f"{item['field']} = {cell(item['resolved'])}   ({start})"),
                       title_justify="left")
    for column in ("#", "rule", "value", "why", "read"):
        table.add_column(column, overflow="fold")
    for n, step in enumerate(item["steps"], 1):
        reads = {**step["reads"], **step["facts"]}
        table.add_row(str(n), step["source"], escape(cell(step["value"])),
                      escape(step["reason"]),
                      escape(", ".join(f"{k}={cell(v)}" for k, v in reads.items())))
    console.print(table)
    override = item.get("override")
    if override:
        kept = " | ".join(override.get("kept_by") or []) or "no single flag change keeps it"
        console.print(f"[bold red]your value {escape(cell(override['input']))} was "
                      f"overridden by {override['source']}[/]; it would have been kept with: "
                      f"{escape(kept)}")
    _rich_not_applied(item, console)
    console.print()


def _rich_not_applied(item: dict[str, Any], console: Any) -> None:
    """``_plain_not_applied`` through Rich (the same text, markup escaped)."""
    import io

    from rich.markup import escape

    text = io.StringIO()
    _plain_not_applied(item, text)
    if text.getvalue():
        console.print(escape(text.getvalue().rstrip("\n")))


def _plain_explanation(item: dict[str, Any], out: TextIO) -> None:
    out.write(f"{item['field']} = {cell(item['resolved'])}\n")
    if item["input"] is not None or item["origin"] != "default":
        out.write(f"  input    {cell(item['input'])} (from the {item['origin']})\n")
    else:
        out.write(f"  default  {cell(item['default'])}\n")
    for n, step in enumerate(item["steps"], 1):
        out.write(f"  {n}. {step['source']} -> {cell(step['value'])}\n")
        if step["reason"]:
            out.write(wrapped(step["reason"], "       why: ") + "\n")
        reads = {**step["reads"], **step["facts"]}
        if reads:
            shown = ", ".join(f"{k}={cell(v)}" for k, v in reads.items())
            out.write(wrapped(shown, "       read: ") + "\n")
    override = item.get("override")
    if override:
        out.write(f"  ! your value {cell(override['input'])} was overridden by "
                  f"{override['source']}\n")
        kept = override.get("kept_by")
        if kept:
            out.write("    it would have been kept with: " + " | ".join(kept) + "\n")
        else:
            out.write("    no single flag change keeps it\n")
    if not item["steps"]:
        out.write("  (no rule changed it)\n")
    _plain_not_applied(item, out)
    out.write("\n")


def _plain_not_applied(item: dict[str, Any], out: TextIO) -> None:
    """The rules that can set the field and did not, each with why not."""
    rows = item.get("not_applied") or []
    if not rows:
        return
    out.write(f"  rules that can set {item['field'].partition('.')[0]} and did not here:\n")
    for row in rows:
        if row["ran"]:
            out.write(f"    - {row['source']}: ran and left it\n")
            if row["reason"]:
                out.write(wrapped(row["reason"], "         acts when: ") + "\n")
            reads = {**row["reads"], **row.get("facts", {})}
            if reads:
                shown = ", ".join(f"{k}={cell(v)}" for k, v in reads.items())
                out.write(wrapped(shown, "         read: ") + "\n")
        else:
            out.write(wrapped(row["reason"], f"    - {row['source']}: ") + "\n")
    if item.get("not_for_this"):
        out.write(f"    ({item['not_for_this']} more not for this target or model)\n")


def _trailing_field(argv: list[str]) -> str | None:
    """A FIELD written last instead of first (``explain --gpu b200 ... --attention-backend
    fa4 page_size``), taken out of ``argv``: a bare word naming a field (or a dotted path
    into one) that the word before it cannot take as its value (a flag's value, or a
    switch's neighbour). SGLang takes no positional arguments, so the word is no flag's."""
    from launchplan.input.fields import FIELDS, FLAG_TO_FIELD

    if not argv or argv[-1].startswith("-") or argv[-1].partition(".")[0] not in FIELDS:
        return None
    before = argv[-2] if len(argv) > 1 else ""
    if before.startswith("-") and "=" not in before:
        name = FLAG_TO_FIELD.get(before)
        if name is None or FIELDS[name].nargs != 0:
            return None  # the value of the flag before it (or of a flag not known here)
    return argv.pop()

