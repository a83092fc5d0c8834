"""``launchplan check``: resolve a whole space of launches and report problems by class."""

from __future__ import annotations

import sys
from typing import Any

from launchplan.commands.options import no_markdown, split_argv
from launchplan.commands.output import render_table, to_json
from launchplan.errors import InputError
from launchplan.facts.models.snapshots import shown_model

HELP = """usage: launchplan check [--gpu NAME]... [--model-path MODEL]... [--axis FIELD=v1,v2]...
                        [--sample N --seed S] [--jobs N] [--compat default|0.5.23|0.5.22|0.5.21]
                        [--executor local|ray [--ray-address ADDR]]
                        [--format table|json] [--fail-on runtime-error|fails-at-start|degraded]
                        [--upgrade OLD:NEW]

Resolves every point of a combinatorial space and reports problems by class: preflight
problems by severity (fails-at-start, runtime-error, degraded: the requirement table and
SGLang's launcher checks), rules that crash instead of refusing, non-idempotence and
non-determinism. Unverified requirements are listed but never fail the check.

The default space: every simulated target (the nine the oracle checks; `launchplan targets`
lists more, name them with --gpu) x every bundled model x the attention backends for the
model's attention kind (with split pairs) x page_size unset/1/16/64/128 x prefill CUDA graph
unset/full/breakable/disabled x decode CUDA graph unset/full x speculation (none; EAGLE top-k
1 and 4 for Llama-class models; MTP for DeepSeek) x KV dtype auto/fp8_e4m3/fp8_e5m2 x tp 1/8.
--gpu and --model-path narrow it (repeatable); --axis FIELD=... replaces that dimension or
adds one. --upgrade OLD:NEW lists instead every point whose plan changes from one rule set to the
other, grouped by the fields and rules responsible (exit 0). Exit 0 when clean, 1 when a
failing problem is found (engine defects, and verified
preflight problems at least as bad as --fail-on, runtime-error by default: degraded plans
are counted, not failed), 2 for bad input.

--executor ray runs the work units as Ray tasks (the ray extra: pip install
'launchplan[ray]'): on the cluster at --ray-address or RAY_ADDRESS, else on a small local
instance (loopback only, 2 CPUs). Results come back in order; the report is the same.
"""

ALLOWED = frozenset({"--gpu", "--compat", "--format", "--axis", "--sample", "--seed", "--jobs",
                     "--model-path", "--model", "--fail-on", "--upgrade", "--executor",
                     "--ray-address"})
FAIL_ON = ("fails-at-start", "runtime-error", "degraded")


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(HELP)
        return 0
    from launchplan.checks.runner import run_check

    space, opts = build_space(argv, ALLOWED)
    fmt = no_markdown(opts.get("format"), "check") or "table"
    if fmt not in ("table", "json"):
        raise InputError("--format", "table or json for check", fmt)
    compat = opts.get("compat") or "default"
    from launchplan.checks.predicates import Severity

    fail_on_text = opts.get("fail_on") or "runtime-error"
    if fail_on_text not in FAIL_ON:
        raise InputError("--fail-on", " or ".join(FAIL_ON), fail_on_text)
    fail_on = Severity(fail_on_text)
    if opts.get("sample") is not None:
        if opts["sample"] <= 0:
            raise InputError("--sample", "a positive number of points", opts["sample"])
        points: Any = space.sample(opts["sample"], opts.get("seed") or 0)
    else:
        points = space  # walked group by group as the work units are taken
    jobs = opts.get("jobs")
    if jobs is not None and jobs <= 0:
        raise InputError("--jobs", "a positive number of processes", jobs)
    if opts.get("upgrade"):
        return upgrade(list(points), opts["upgrade"], fmt)
    executor = opts.get("executor") or "local"
    if opts.get("ray_address") and executor != "ray":
        raise InputError("--ray-address", "--executor ray alongside it", opts["ray_address"])
    report = run_check(points, compat, jobs=jobs, progress=sys.stderr.isatty(),
                       executor=executor, ray_address=opts.get("ray_address"))
    failing = report.failing(fail_on)
    if fmt == "json":
        sys.stdout.write(to_json(report.to_dict(fail_on)) + "\n")
    else:
        out = sys.stdout
        out.write(f"{report.points} points checked ({report.refused} refused by SGLang's rules, "
                  f"{report.bad_input} bad input), rules {compat}\n")
        counts = report.counts()
        if counts:
            out.write("problem points by kind: "
                      + ", ".join(f"{k} {n}" for k, n in counts.items()) + "\n")
        problems = report.problems()
        if not problems:
            out.write("no problems found\n")
        else:
            rows = [(p.kind + ("" if p.verified else " (unverified)"),
                     "yes" if p.failing(fail_on) else "no", p.requirement,
                     ", ".join("input" if s == "input" else s for s in p.sources), p.count,
                     f"--gpu {p.example.gpu} --model-path {shown_model(p.example.model)} "
                     + " ".join(p.example.argv())) for p in problems if p.example]
            render_table(("kind", "fails", "requirement", "rules", "points",
                          "smallest example"), rows, out)
    return 1 if failing else 0


def upgrade(points, spec: str, fmt: str) -> int:
    """``--upgrade OLD:NEW``: the points whose plan changes, grouped by the rules behind it."""
    from launchplan.checks.upgrade import run_upgrade
    from launchplan.rulesets import get_ruleset

    old, sep, new = spec.partition(":")
    if not sep or not old or not new:
        raise InputError("--upgrade", "OLD:NEW, two rule sets (e.g. 0.5.22:0.5.23)", spec)
    get_ruleset(old), get_ruleset(new)  # unknown releases are bad input, before any work
    report = run_upgrade(points, old, new)
    if fmt == "json":
        sys.stdout.write(to_json(report.to_dict()) + "\n")
    else:
        out = sys.stdout
        out.write(f"{report.points} points, {report.points - report.unchanged} change from "
                  f"{old} to {new}, in {len(report.changes)} groups\n")
        rows = []
        for c in report.groups():
            example = c.example
            rows.append((", ".join(c.fields), ", ".join(c.rules) or "-", c.count,
                         "; ".join(f"{f}: {c.before.get(f)} -> {c.after.get(f)}"
                                   for f in c.fields)[:70],
                         f"--gpu {example.gpu} --model-path {shown_model(example.model)} "
                         + " ".join(example.argv())))
        if rows:
            render_table(("fields", "rules", "points", "smallest example's change",
                          "smallest example"), rows, out)
    return 0


def build_space(argv: list[str], allowed: frozenset[str]):
    """The space a check or sweep command line describes, and its launchplan options."""
    from launchplan.checks.space import Space, default_models, parse_axis
    from launchplan.facts.models import load_model
    from launchplan.facts.targets import SIMULATED, get_target
    from launchplan.planner import local_model

    split = split_argv([_model_alias(a) for a in argv], allowed | {"--model-path"},
                       repeatable=frozenset({"--gpu"}))
    if split.sglang_argv:
        raise InputError(split.sglang_argv[0], "a launchplan option of this command",
                         message=f"{split.sglang_argv[0]}: not an option of this command; "
                         "use --axis FIELD=v1,v2 to vary SGLang fields")
    opts = split.options
    # the default space walks the simulated targets (facts/targets.py SIMULATED says why)
    gpus = [get_target(g).name for g in _many(opts.get("gpu"))] or list(SIMULATED)
    models = _many(opts.get("model_path"))
    compats: list[str | None] = [None]
    axes = []
    for text in opts.get("axis") or []:
        name, values = parse_axis(text)
        if name == "gpu":
            gpus = [get_target(v).name for v in values]
        elif name == "model":
            models = list(values)
        elif name == "compat":
            compats = list(values)
        else:
            axes.append((name, values))
    # a Hugging Face id as resolve reads it (a bundled copy, else the local cache)
    models = [local_model(m) for m in models]
    for m in models:
        load_model(m)  # a missing model is bad input, before any work
    return Space(gpus, models or default_models(), axes, compats=compats), opts


def _model_alias(token: str) -> str:
    return "--model-path" + token[len("--model"):] if token.split("=")[0] == "--model" else token


def _many(value) -> list[str]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]
