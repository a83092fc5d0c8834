"""``launchplan diff``: two plans side by side, only what differs, and the rule behind each side.

Two forms: the same launch under two rule sets (``--compat 0.5.22 --to 0.5.23 ...``), and
two launches under one (``... A_FLAGS -- B_FLAGS``: B inherits A's target, model and options
unless it names its own). Exit 0 when the plans are equal, 1 when they differ (like
``diff``), 2 on bad input.
"""

from __future__ import annotations

import sys
from typing import Any

from launchplan.commands.options import split_argv
from launchplan.commands.output import cell, render_table, to_json, wrapped
from launchplan.errors import InputError, Refusal

HELP = """usage: launchplan diff --gpu TARGET --model-path MODEL [--compat A] [--to B] [flags]
       launchplan diff --gpu TARGET --model-path MODEL [A flags] -- [B flags]

Resolves two plans and lists every field whose final value differs, with the rule (and its
reason) that decided each side; the preflight verdict and the KV-cache capacity are compared
too. Flags only one release has, left at their defaults, are listed apart: they change
nothing the launch does. --to names the right side's rule set (default: the left's). After
`--`, the right side's SGLang flags; --gpu, --model-path and other options given there
replace the left's.
Exit 0 when equal, 1 when they differ, 2 for bad input.

options: --compat (or --from, as migrate spells it), --to, --format table|json,
  --env KEY=VALUE, --gpu-* and --host-* overrides,
  --launch N (a pasted text with several launch commands: the Nth)
"""

ALLOWED = frozenset({"--gpu", "--launch", "--gpu-memory-mib", "--gpu-capability", "--gpu-count",
                     "--host-ib-devices", "--host-imex-channel",
                     "--cuda-version", "--compat", "--from", "--to", "--format", "--env",
                     "--model-path", "--before-load-mib", "--load-overhead-mib"})


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(HELP)
        return 0
    left_argv, right_argv = _halves(argv)
    left = split_argv(left_argv, ALLOWED)
    right = split_argv(right_argv, ALLOWED) if right_argv is not None else None
    fmt = (right.options.get("format") if right else None) or left.options.get("format") \
        or "table"
    if fmt not in ("table", "json"):
        raise InputError("--format", "table or json for diff", fmt)
    _from_as_compat(left.options)
    if right is not None:
        _from_as_compat(right.options)
    left_opts = dict(left.options)
    left_compat = left_opts.pop("to", None)
    right_opts = {**left.options, **(right.options if right else {})}
    right_opts["compat"] = (right.options.get("compat") if right and "compat" in right.options
                            else left_compat or left.options.get("compat") or "default")
    right_opts.pop("to", None)
    a = _side(left_opts, left.sglang_argv, left_argv)
    b = _side(right_opts, right.sglang_argv if right else left.sglang_argv,
              left_argv + (right_argv or []))
    differences = compare(a, b)
    only = release_only(a, b)
    if fmt == "json":
        sys.stdout.write(to_json({"left": a["about"], "right": b["about"],
                                  "differences": differences, "release_only": only}) + "\n")
    else:
        _table(a, b, differences)
        if only:
            sys.stdout.write("\nflags only one release has, at their defaults:\n")
        for side in ("left", "right"):
            names = [d["field"] for d in only if d["side"] == side]
            if names:
                sys.stdout.write(wrapped(f"{side} only: " + ", ".join(names)) + "\n")
    return 1 if differences else 0


def _from_as_compat(options: dict[str, Any]) -> None:
    """``--from A`` (as ``migrate`` spells the old release) is the left side's ``--compat``."""
    if "from" not in options:
        return
    from launchplan.commands.options import COMPAT_CHOICES

    chosen = options.pop("from")
    if chosen not in COMPAT_CHOICES:
        raise InputError("--from", "one of " + ", ".join(COMPAT_CHOICES), chosen)
    if options.get("compat", chosen) != chosen:
        raise InputError("--from", f"the same rule set as --compat {options['compat']} (they "
                         "name one side)", chosen)
    options["compat"] = chosen


def _halves(argv: list[str]) -> tuple[list[str], list[str] | None]:
    if "--" not in argv:
        return list(argv), None
    cut = argv.index("--")
    return list(argv[:cut]), list(argv[cut + 1:])


def _side(opts: dict[str, Any], sglang_argv: list[str], words: list[str]) -> dict[str, Any]:
    """One side: its plan (or refusal), its preflight and memory, and what it was; ``words``:
    the side's command words as given (a pasted task there may ask for an unlisted GPU)."""
    from launchplan.checks.preflight import preflight, refused
    from launchplan.commands.resolve import parse_env
    from launchplan.commands.targets_arg import target_from
    from launchplan.engine.pipeline import run
    from launchplan.memory.plan import memory_plan
    from launchplan.planner import build_raw, build_record
    from launchplan.rulesets import get_ruleset

    compat = opts.get("compat") or "default"
    target = target_from(opts, words)
    env = parse_env(opts.get("env"))
    model = opts.get("model_path")
    model = model[-1] if isinstance(model, list) else model
    raw = build_raw(sglang_argv, model_path=model, compat=compat, env=env)  # its release's flags
    about = {"gpu": target.name, "model": raw.values.get("model_path"), "compat": compat,
             "argv": list(sglang_argv)}
    try:
        result = run(build_record(raw, target, compat=compat, env=env),
                     get_ruleset(compat).rules(), trace=True)  # (what each rule read)
    except Refusal as exc:
        report = refused(exc.source, exc.message, exc.requirement, exc.result)
        return {"about": about, "result": None, "refusal": exc, "preflight": report,
                "memory": None}
    return {"about": about, "result": result, "refusal": None, "preflight": preflight(result),
            "memory": memory_plan(result)}


def compare(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Every field (CUDA-graph keys as dotted paths) whose final value differs."""
    out: list[dict[str, Any]] = []
    if a["refusal"] is not None or b["refusal"] is not None:
        sides = [_refusal_text(s) for s in (a, b)]
        if sides[0] != sides[1]:
            out.append({"field": "(resolution)", "left": sides[0], "right": sides[1],
                        "left_source": _refusal_source(a), "right_source": _refusal_source(b),
                        "left_why": "", "right_why": ""})
        return out
    left, right = _flat(a["result"]), _flat(b["result"])
    only = {d["field"] for d in release_only(a, b)}
    for name in sorted(set(left) | set(right)):
        if name.startswith("_") or name in only or left.get(name) == right.get(name):
            continue
        left_source, right_source = _source(a["result"], name), _source(b["result"], name)
        out.append({"field": name, "left": left.get(name), "right": right.get(name),
                    "left_source": left_source, "right_source": right_source,
                    "left_why": _why(a["result"], name), "right_why": _why(b["result"], name),
                    "left_why_not": _why_not(a["result"], right_source, name),
                    "right_why_not": _why_not(b["result"], left_source, name)})
    for label, pick in (("preflight.verdict", lambda s: s["preflight"].verdict),
                        ("memory.max_total_num_tokens",
                         lambda s: s["memory"].max_total_num_tokens if s["memory"] else None)):
        x, y = pick(a), pick(b)
        if x != y:
            out.append({"field": label, "left": x, "right": y, "left_source": "launchplan",
                        "right_source": "launchplan", "left_why": "", "right_why": ""})
    return out


def release_only(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Fields one side's release does not have while the other's sits at its default: a flag
    added or removed between releases, not a change in how the launch runs."""
    if a["refusal"] is not None or b["refusal"] is not None:
        return []
    left, right = _flat(a["result"]), _flat(b["result"])
    out = []
    for side, mine, other, result in (("left", left, right, a["result"]),
                                      ("right", right, left, b["result"])):
        for name in sorted(set(mine) - set(other)):
            if not name.startswith("_") and "." not in name \
                    and result.source(name) == "default":
                out.append({"field": name, "side": side, "value": mine[name]})
    return out


def _flat(result: Any) -> dict[str, Any]:
    values = dict(result.resolved())
    graph = values.pop("cuda_graph_config", None)
    if isinstance(graph, dict):
        for phase, settings in graph.items():
            for key, value in (settings or {}).items():
                values[f"cuda_graph_config.{phase}.{key}"] = value
    return values


def _source(result: Any, name: str) -> str:
    return result.source(name)


def _why(result: Any, name: str) -> str:
    """The note of the declaration that decided ``name``, else its rule's summary."""
    from launchplan.explain import rule_specs

    head = name.split(".")[0]
    source = result.source(name)
    for d in reversed(result.chain(head)):
        if d.source == source and d.note:
            return d.note
    spec = rule_specs(result.record.compat).get(source)
    return spec.summary if spec is not None else ""


def _why_not(result: Any, rule: str, name: str) -> str:
    """When the rule that set ``name`` on the other side ran here, before the rule that set
    it here (or with none setting it), and left it: its ``When:`` (the condition that did
    not hold) and what it read here; else empty. A rule that ran after this side's decider
    found the field set already, which says nothing."""
    from launchplan.engine.pipeline import QUIET
    from launchplan.explain import _shown_reads, rule_specs

    quiet = result.extras.get(QUIET) or {}
    reads = quiet.get(rule)
    mine = result.source(name)
    if reads is None or rule == mine:
        return ""
    specs = rule_specs(result.record.compat)
    order = {n: i for i, n in enumerate(specs)}
    if mine in order and order[rule] > order[mine]:
        return ""
    spec = specs.get(rule)
    when = spec.section("When") if spec is not None else ""
    shown = ", ".join(f"{k}={cell(v)}" for k, v in _shown_reads(reads).items())
    return f"{rule} ran here and left it (it acts when {when.rstrip('.')}; read {shown})"


def _refusal_text(side: dict[str, Any]) -> str:
    exc = side["refusal"]
    return "resolves" if exc is None else f"refused: {exc.message}"


def _refusal_source(side: dict[str, Any]) -> str:
    exc = side["refusal"]
    return "-" if exc is None else exc.source


def _table(a: dict[str, Any], b: dict[str, Any], differences: list[dict[str, Any]]) -> None:
    out = sys.stdout
    for mark, side in (("left ", a), ("right", b)):
        about = side["about"]
        out.write(f"{mark}: --gpu {about['gpu']} --model-path {about['model']} --compat "
                  f"{about['compat']} {' '.join(about['argv'])}".rstrip() + "\n")
    if not differences:
        out.write("\nthe plans are the same\n")
        return
    out.write(f"\n{len(differences)} field(s) differ\n")
    rows = [(d["field"], cell(d["left"]), cell(d["right"]), d["left_source"], d["right_source"])
            for d in differences]
    render_table(("field", "left", "right", "left set by", "right set by"), rows, out)
    notes = [d for d in differences if d["left_why"] or d["right_why"]]
    if notes:
        out.write("\nwhy:\n")
        for d in notes:
            if d["left_why"]:
                out.write(wrapped(f"{d['field']} (left, {d['left_source']}): {d['left_why']}")
                          + "\n")
            if d.get("left_why_not"):
                out.write(wrapped(f"{d['field']} (left): {d['left_why_not']}") + "\n")
            if d["right_why"] and d["right_why"] != d["left_why"]:
                out.write(wrapped(f"{d['field']} (right, {d['right_source']}): "
                                  f"{d['right_why']}") + "\n")
            if d.get("right_why_not"):
                out.write(wrapped(f"{d['field']} (right): {d['right_why_not']}") + "\n")
