"""``launchplan sweep``: which points of a grid really run differently."""

from __future__ import annotations

import csv
import sys

from launchplan.commands.check import build_space
from launchplan.commands.options import no_markdown
from launchplan.commands.output import render_table, to_json
from launchplan.errors import InputError

HELP = """usage: launchplan sweep --axis FIELD=v1,v2,... [--axis ...] --gpu NAME --model-path MODEL
                        [--compat default|0.5.23|0.5.22|0.5.21] [--format table|json|csv]
                        [--columns max_total_num_tokens,max_running_requests,...]
                        [--jobs N] [--executor local|ray [--ray-address ADDR]]

Resolves the cartesian product of the axes and groups the points by the configuration they
really run with, naming the rules that made points collapse; refused points are grouped by
reason, and points that resolve but will not start (preflight) are kept out of the
configurations and grouped by their first problem. Every point carries its verdict.
`gpu`, `model` and `compat` can be axes too (--axis gpu=h100,b200, --axis
compat=0.5.22,0.5.23). Large grids run in work units: on --jobs processes (default one),
or as Ray tasks with --executor ray (the ray extra; on RAY_ADDRESS / --ray-address, else a
local instance); the report is the same wherever the units ran. A grid holds at most
1,000,000 points, each listed; `launchplan check --sample N` samples a larger space.
"""

#: Points a sweep grid may hold: every point is resolved, kept and listed (about 2 KB each in
#: memory, 200 bytes of JSON), so a million takes a few minutes and a few GB; a grid of 4
#: million once ran for ten minutes towards ten GB. Larger spaces are ``check``'s, sampled.
MAX_SWEEP_POINTS = 1_000_000

ALLOWED = frozenset({"--gpu", "--compat", "--format", "--axis", "--model-path", "--model",
                     "--columns", "--jobs", "--executor", "--ray-address"})


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(HELP)
        return 0
    from launchplan.checks.sweep import run_sweep

    space, opts = build_space(argv, ALLOWED)
    if not space.axes and len(space.gpus) * len(space.models) == 1:
        raise InputError("--axis", "at least one FIELD=v1,v2,... to sweep",
                         message="sweep: give at least one --axis FIELD=v1,v2,...")
    if not opts.get("gpu") and not any(a.startswith("gpu=") for a in opts.get("axis") or []):
        raise InputError("--gpu", "a target or an --axis gpu=...",
                         message="sweep: name a --gpu (or sweep it with --axis gpu=...)")
    if not opts.get("model_path") and not any(a.startswith(("model=", "model_path="))
                                              for a in opts.get("axis") or []):
        raise InputError("--model-path", "a model or an --axis model=...",
                         message="sweep: name a --model-path (or sweep it with --axis model=...)")
    space.replace_defaults = True
    fmt = no_markdown(opts.get("format"), "sweep") or "table"
    axes = [name for name, _ in space.axes]
    if len(space.gpus) > 1:
        axes.insert(0, "gpu")
    if len(space.models) > 1:
        axes.insert(1 if "gpu" in axes else 0, "model")
    if len(space.compats) > 1 or space.compats[0] is not None:
        axes.insert(0, "compat")
    size = space.size()
    if size > MAX_SWEEP_POINTS:
        raise InputError("--axis", f"a grid of at most {MAX_SWEEP_POINTS:,} points", size,
                         message=f"--axis: expected a grid of at most {MAX_SWEEP_POINTS:,} "
                         f"points (sweep resolves and lists every one), got {size:,}; "
                         "launchplan check --sample N takes a sample of a larger space")
    points = list(space)
    columns = _columns(opts.get("columns"))
    jobs = opts.get("jobs")
    jobs = 1 if jobs is None else jobs
    if jobs <= 0:
        raise InputError("--jobs", "a positive number of processes", jobs)
    executor = opts.get("executor") or "local"
    if opts.get("ray_address") and executor != "ray":
        raise InputError("--ray-address", "--executor ray alongside it", opts["ray_address"])
    report = run_sweep(points, axes, opts.get("compat") or "default",
                       progress=sys.stderr.isatty() and len(points) >= 1000, jobs=jobs,
                       executor=executor, ray_address=opts.get("ray_address"))
    if columns:
        from launchplan.checks.sweep import add_columns

        add_columns(report, columns)
    if fmt == "json":
        sys.stdout.write(to_json(report.to_dict()) + "\n")
    elif fmt == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(["group", *axes, "verdict", *columns, "collapsed_by", "reason"])
        blank = [""] * len(columns)
        for n, group in enumerate(report.distinct, 1):
            for point in group.points:
                writer.writerow([n, *(point[a] for a in axes), point["verdict"],
                                 *(group.columns.get(c) for c in columns),
                                 ";".join(group.collapsed_by), ""])
        for reason, points in report.refused.items():
            for point in points:
                writer.writerow(["", *(point[a] for a in axes), point["verdict"], *blank, "",
                                 reason])
        for (_verdict, reason), points in report.not_starting.items():
            for point in points:
                writer.writerow(["", *(point[a] for a in axes), point["verdict"], *blank, "",
                                 reason])
    else:
        out = sys.stdout
        failing = sum(len(p) for p in report.not_starting.values())
        out.write(f"{report.points} points, {len(report.distinct)} distinct configurations, "
                  f"{sum(len(p) for p in report.refused.values())} refused, "
                  f"{failing} will not start\n\n")
        shown = _varying(report)
        for n, group in enumerate(report.distinct, 1):
            summary = ", ".join(f"{k}={v}" for k, v in shown(group.config).items())
            out.write(f"config {n}: {summary or '(identical to the others in shown fields)'}\n")
            if group.columns:
                out.write("  " + ", ".join(f"{k}={_shown(v)}" for k, v in group.columns.items())
                          + "\n")
            rows = [[*(point[a] for a in axes), point["verdict"]] for point in group.points]
            render_table([*axes, "verdict"], rows, out)
            if group.collapsed_by:
                out.write("  collapsed by: " + ", ".join(group.collapsed_by) + "\n")
            out.write("\n")
        for reason, points in report.refused.items():
            out.write(f"refused ({len(points)} points): {reason}\n")
        from launchplan.checks.preflight import VERDICT_TEXT

        for (verdict, reason), points in report.not_starting.items():
            out.write(f"{VERDICT_TEXT[verdict]} ({len(points)} points): {reason}\n")
            render_table(axes, [[p[a] for a in axes] for p in points], out)
    return 0


def _columns(text: str | None) -> list[str]:
    """``--columns a,b``: memory-plan quantities or SGLang fields (dotted paths allowed)."""
    if not text:
        return []
    from launchplan.input.fields import FIELDS
    from launchplan.memory.plan import QUANTITIES

    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        if name not in QUANTITIES and name.partition(".")[0] not in FIELDS:
            raise InputError("--columns", "memory quantities (" + ", ".join(QUANTITIES)
                             + ") or SGLang fields", name)
    return names


def _shown(value) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _varying(report):
    """Show, for each configuration, only the fields that differ between configurations."""
    configs = [g.config for g in report.distinct]
    keys = [k for k in (configs[0] if configs else {})
            if len({repr(c.get(k)) for c in configs}) > 1]

    def shown(config):
        out = {}
        for k in keys:
            value = config.get(k)
            if k == "cuda_graph_config" and isinstance(value, dict):
                value = "/".join(str(value[p]["backend"]) for p in ("decode", "prefill"))
            out[k] = value
        return out

    return shown
