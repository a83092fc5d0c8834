"""``launchplan resolve``: the plan SGLang would run with, and why."""

from __future__ import annotations

import sys

from launchplan.commands.options import split_argv
from launchplan.commands.output import print_plan, to_json
from launchplan.commands.targets_arg import target_from
from launchplan.errors import InputError, Refusal

HELP = """usage: launchplan resolve --gpu TARGET --model-path MODEL [SGLang flags] [options]

options:
  --gpu NAME             GPU target (`launchplan targets`) or auto
  --gpu-memory-mib N, --gpu-capability X.Y, --gpu-count N, --cuda-version X.Y
                         plan for another SKU of the target
  --compat default|0.5.23
  --format table|json
  --env KEY=VALUE        an SGLang environment variable the plan assumes (repeatable)
  --strict               refuse (exit 3) instead of overriding explicit input
  --emit sglang          print one `python -m sglang.launch_server ...` line pinning the plan

Every SGLang 0.5.23 flag is accepted, as SGLang parses it, including --config FILE.yaml.
--help=GROUP, --help=FLAG or --help=WORD narrows this help.
"""

ALLOWED = frozenset({"--gpu", "--gpu-memory-mib", "--gpu-capability", "--gpu-count",
                     "--cuda-version", "--compat", "--format", "--env", "--strict", "--emit"})


def parse_env(pairs: list[str] | None) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs or []:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise InputError("--env", "KEY=VALUE", pair)
        env[key] = value
    return env


def main(argv: list[str]) -> int:
    from launchplan.commands.help import grouped, help_request, topic

    asked = help_request(argv)
    if asked is not None:
        sys.stdout.write(topic(asked) if asked else HELP + "\n" + grouped())
        return 0
    from launchplan.engine.pipeline import run
    from launchplan.planner import build_raw, build_record
    from launchplan.rulesets import get_ruleset

    split = split_argv(argv, ALLOWED)
    opts = split.options
    fmt = opts.get("format") or "table"
    if fmt == "csv":
        raise InputError("--format", "table or json for resolve", fmt)
    compat = opts.get("compat") or "default"
    target = target_from(opts)
    env = parse_env(opts.get("env"))
    strict = bool(opts.get("strict"))
    rules = get_ruleset(compat).rules()

    def resolve_with(extra: dict):
        raw = build_raw(split.sglang_argv, extra)
        return run(build_record(raw, target, compat=compat, env=env), rules, trace=strict,
                   launcher_refuses=strict)

    try:
        result = resolve_with({})
    except Refusal as refusal:
        if fmt == "json" and refusal.result is not None:
            sys.stdout.write(to_json(refusal.result.to_dict()) + "\n")
        raise
    if strict and result.overrides():
        return refuse_overrides(result, resolve_with, fmt)
    from launchplan.checks.idempotence import reapplied

    result.warnings.extend(reapplied(result))
    if opts.get("emit") == "sglang":
        return emit_sglang(result, target, env)
    if fmt == "json":
        from launchplan.checks.effective import config_hash

        data = result.to_dict()
        data["config_hash"] = config_hash(result)
        sys.stdout.write(to_json(data) + "\n")
    else:
        print_plan(result)
    return 0


def refuse_overrides(result, resolve_with, fmt: str) -> int:
    """--strict: every override of explicit input, with a flag change that avoids it; exit 3."""
    from launchplan.checks.alternatives import as_flags, keeping_changes

    entries = []
    for o in result.overrides():
        changes = keeping_changes(result, o["field"], o["input"], resolve_with)
        entries.append({**o, "avoid_with": [as_flags(c) for c in changes]})
    if fmt == "json":
        data = result.to_dict()
        data["error"] = {"source": "--strict",
                         "message": f"{len(entries)} explicit value(s) would be overridden",
                         "overrides": entries}
        sys.stdout.write(to_json(data) + "\n")
    for e in entries:
        avoid = " | ".join(e["avoid_with"]) or "no single flag change avoids it"
        sys.stderr.write(f"launchplan: --strict: {e['field']}: you gave {e['input']!r}, "
                         f"{e['source']} wants {e['resolved']!r}; avoid with: {avoid}\n")
    return 3


def emit_sglang(result, target, env) -> int:
    """--emit sglang: the pinned launch line on stdout; what SGLang would still change, stderr."""
    from launchplan.emit import pin_warnings, sglang_command
    from launchplan.engine.pipeline import run
    from launchplan.planner import build_raw, build_record
    from launchplan.rulesets import get_ruleset

    def resolve_again(argv, compat):
        record = build_record(build_raw(argv), target, compat=compat, env=env)
        return run(record, get_ruleset(compat).rules())

    sys.stdout.write(sglang_command(result) + "\n")
    for note in pin_warnings(result, resolve_again):
        sys.stderr.write(f"launchplan: note: {note}\n")
    return 0
