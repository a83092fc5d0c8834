"""launchplan's speed goals as same-run ratios: ``python benchmarks/run.py`` (a few minutes).

This machine is shared and noisy, so every goal is a ratio of two figures measured in the
same run. Every launchplan figure includes the preflight verdict and the memory plan (as
``resolve`` computes them). Each in-process figure is given twice:
  * **repeated input** -- the same input resolved again in a warm process, as SGLang's warm
    figure is: ``resolve`` is incremental, so a repeat replays the previous plan (no rule
    runs) and shares its memory plan and preflight verdict;
  * **from scratch** -- every rule that can read the input run, the memory plan and every
    preflight row that can read a value computed afresh (``incremental=False``, memos
    cleared). What is a function of the facts alone stays loaded, as a model's facts do:
    preflight's rows that read no value (per target, model, draft and environment) and, per
    input shape as well, the output of a rule that can read no value the input decides
    (``engine.pipeline``'s folded steps; ``check``'s determinism test calls every rule).
Printed:
  * cold ``launchplan resolve --format json`` against a bare ``python -c pass`` (both with
    bytecode cached, runs interleaved; the goal takes the median of each pair's ratio);
  * resolutions per second (one core) from parsed fields and from a command line, both ways;
  * with ``SGLANG_ORACLE_PYTHON`` (the oracle venv's Python; ``../shared/oracle/README.md``):
    SGLang 0.5.23's argparse parse of the same command lines and its warm in-process
    resolution, timed by ``benchmarks/sglang_side.py`` in that venv, in a long-lived process
    with the oracle's simulated GPU host;
  * what the memory plan adds to a resolution: for repeated inputs, from scratch, and over
    distinct points of ``check``'s sample (its memo filled as a sweep fills it);
  * ``check`` over 100,000 points of the default space on every core, against the single-core
    rate of resolving the same sample's points from scratch (``--check-points 1000000`` for
    the full million).
Each goal prints as ``ratio goal PASS/FAIL`` with the figure it uses.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORACLE = ROOT.parent / "shared" / "oracle"

INPUTS = {
    "llama-3.1-8b defaults on h100": ("h100", "llama-3.1-8b", []),
    "deepseek-v3 tp8 + EAGLE (MTP) on b200": (
        "b200", "deepseek-v3",
        ["--tp-size", "8", "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
         "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"]),
    "fa4 prefill + trtllm_mha decode, full prefill graph, b200": (
        "b200", "llama-3.1-8b",
        ["--prefill-attention-backend", "fa4", "--decode-attention-backend", "trtllm_mha",
         "--cuda-graph-backend-prefill", "full"]),
}


def median_rate(fn, seconds: float = 1.0, repeats: int = 5) -> float:
    """Calls per CPU second of this process: the median of ``repeats`` runs of about
    ``seconds`` each (CPU time, so the other jobs of a shared machine do not count; SGLang's
    side is timed the same way)."""
    fn()
    rates = []
    for _ in range(repeats):
        n, start = 0, time.process_time()
        while True:
            for _ in range(50):
                fn()
            n += 50
            elapsed = time.process_time() - start
            if elapsed >= seconds:
                break
        rates.append(n / elapsed)
    return statistics.median(rates)


def cold_start(runs: int) -> tuple[float, float, float, float]:
    """Median wall times of ``launchplan resolve --format json`` and of a bare
    ``python -c pass`` (runs interleaved, so both see the same load), the median of the
    ratios of each pair (a bare start, then launchplan's, back to back: a drift in the
    machine's load moves both of a pair, where it can move one median and not the other),
    and peak RSS in MB."""
    gpu, model, argv = INPUTS["llama-3.1-8b defaults on h100"]
    cmd = [sys.executable, "-m", "launchplan.commands.main", "resolve", "--gpu", gpu,
           "--model-path", model, *argv, "--format", "json"]
    bare_cmd = [sys.executable, "-c", "pass"]
    # As installed: bytecode cached (this workplace sets PYTHONDONTWRITEBYTECODE, which
    # would recompile every module on every run); one warm-up run writes the caches.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(cmd, capture_output=True, check=True, env=env)
    subprocess.run(bare_cmd, check=True, env=env)
    times, bare = [], []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(bare_cmd, check=True, env=env)
        bare.append(time.perf_counter() - start)
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, check=True, env=env)
        times.append(time.perf_counter() - start)
        json.loads(proc.stdout)
    import resource

    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB -> MiB on Linux
    paired = statistics.median(t / b for t, b in zip(times, bare))
    return statistics.median(times), statistics.median(bare), paired, peak


def _planned(result):
    """What ``resolve`` adds to a resolution: the preflight verdict and the memory plan."""
    _PLAN_FUNCTIONS["memory"](result)
    return _PLAN_FUNCTIONS["preflight"](result)


def _plan_functions() -> dict:
    """Imported once, when timing starts (an import statement per call is not launchplan's:
    two of them cost about 2 us, which ``_planned_afresh`` paid on every call until now)."""
    from launchplan.checks.preflight import preflight
    from launchplan.memory.plan import forget, memory_plan

    return {"memory": memory_plan, "preflight": preflight, "forget": forget}


_PLAN_FUNCTIONS: dict = {}


def _planned_afresh(result):
    """The same, nothing remembered: the memory plan's memos forgotten, every row evaluated."""
    functions = _PLAN_FUNCTIONS
    functions["forget"]()
    functions["memory"](result)
    return functions["preflight"](result, shared=False)


def in_process() -> dict[str, dict[str, float]]:
    """Per input, resolutions per second (preflight and memory plan included): from fields
    and from argv, each for a repeated input and from scratch."""
    from launchplan.input.cli import parse_argv
    from launchplan.planner import resolve

    _PLAN_FUNCTIONS.update(_plan_functions())
    out = {}
    for label, (gpu, model, argv) in INPUTS.items():
        fields = parse_argv(argv).values
        out[label] = {
            "fields": median_rate(lambda f=fields, g=gpu, m=model: _planned(resolve(
                fields=f, gpu=g, model_path=m))),
            "argv": median_rate(lambda a=argv, g=gpu, m=model: _planned(resolve(
                a, gpu=g, model_path=m))),
            "fields_scratch": median_rate(lambda f=fields, g=gpu, m=model: _planned_afresh(
                resolve(fields=f, gpu=g, model_path=m, incremental=False))),
            "argv_scratch": median_rate(lambda a=argv, g=gpu, m=model: _planned_afresh(
                resolve(a, gpu=g, model_path=m, incremental=False))),
        }
    return out


def memory_overhead(*, repeated: bool, runs: int = 2000) -> float:
    """What the memory plan adds to a resolution (mean over the three inputs), as a share of
    the resolution's own time: each plan timed right after its resolution, interleaved, the
    two intervals summed apart (the difference of two rates would drown a few microseconds
    in the noise). ``repeated``: a repeated input (the plan is the previous one's, shared);
    else resolution and memory plan both from scratch (every memo cleared first, untimed).

    Fair to both sides: ``memory.forget()`` drops only what a launch's values key (the
    weights by sharding); what depends on the model alone (tensor tables under each
    storage, KV geometry, its own MTP draft), each release's unset values and each target's
    free memory by GPUs spanned stay, as the resolution's loaded facts do. One untimed
    plan per input first loads them, so that no timed plan pays a model's first load."""
    from launchplan.input.cli import parse_argv
    from launchplan.memory import plan as memory
    from launchplan.planner import resolve

    clock = time.perf_counter
    shares = []
    for gpu, model, argv in INPUTS.values():
        fields = parse_argv(argv).values
        # warm, untimed: the model's facts loaded, the memory plan's per-model ones too (its
        # tensor tables and their sum functions), as any launch of the model leaves them
        memory.memory_plan(resolve(fields=fields, gpu=gpu, model_path=model,
                                   incremental=repeated))
        ratios = []
        for _ in range(5):
            resolving = planning = 0.0
            for _ in range(runs):
                if not repeated:
                    memory.forget()
                begin = clock()
                result = resolve(fields=fields, gpu=gpu, model_path=model,
                                 incremental=repeated)
                middle = clock()
                memory.memory_plan(result)
                resolving += middle - begin
                planning += clock() - middle
            ratios.append(planning / resolving)
        shares.append(statistics.median(ratios))
    return statistics.mean(shares)


def memory_overhead_on_points(points: int) -> float:
    """The memory plan's added time over distinct points of ``check``'s sample, each
    resolved from scratch and planned right after (the two intervals summed apart); the
    plan's memo fills as a sweep over those points fills it."""
    from launchplan.checks.runner import point_resolver
    from launchplan.errors import InputError, Refusal
    from launchplan.memory import plan as memory

    resolve = point_resolver("default", incremental=False)
    chosen = _points(points)
    for point in chosen:  # once, untimed: the facts every point names are loaded, the
        try:  # memory plan's per-model ones (tensor tables by storage) too; forget() then
            memory.memory_plan(resolve(point))  # drops every memo a launch's values key
        except (Refusal, InputError):
            pass
    memory.forget()
    clock = time.perf_counter
    resolving = planning = 0.0
    for point in chosen:
        begin = clock()
        try:
            result = resolve(point)
        except (Refusal, InputError):
            continue
        middle = clock()
        memory.memory_plan(result)
        resolving += middle - begin
        planning += clock() - middle
    return planning / resolving


def _points(points: int):
    from launchplan.checks.space import Space, default_models
    from launchplan.facts.targets import SIMULATED

    space = Space(list(SIMULATED), default_models())  # check's default space
    total = space.size()
    if points <= total:
        return space.sample(points, seed=1)
    every = list(space)  # the default space has 272,160 points: walk it again as needed
    return (every * -(-points // total))[:points]


def check_run(points: int, jobs: int) -> tuple[float, int]:
    from launchplan.checks.runner import run_check

    chosen = _points(points)
    start = time.perf_counter()
    run_check(chosen, "default", jobs=jobs)
    return time.perf_counter() - start, len(chosen)


def fields_rate_on_points(points: int) -> float:
    """Single-core full resolutions (+ preflight and memory plan) per second over the first
    ``points`` of the same sample ``check`` walks: every point from scratch, nothing reused
    (no incremental resolution, no preflight or memory-plan memo). One pass, wall clock, as
    ``check`` is timed; ``main`` warms it once untimed and takes the median of three.

    Each pass walks the sample as a process meets it for the first time, its facts loaded:
    the pruned steps and folds learned by input shape are forgotten first (a second pass
    would learn a fold for every shape the first met once, and later ones replay them all,
    which is neither a first walk nor what ``check``'s incremental walk does)."""
    from launchplan.checks.runner import point_resolver
    from launchplan.engine.pipeline import PLANS
    from launchplan.errors import InputError, Refusal

    chosen = _points(max(points, 1))[:points]
    resolve = point_resolver("default", incremental=False)
    _PLAN_FUNCTIONS.update(_plan_functions())
    PLANS.forget_shapes()
    start = time.perf_counter()
    for point in chosen:
        try:
            _planned_afresh(resolve(point))
        except (Refusal, InputError):
            pass
    return len(chosen) / (time.perf_counter() - start)


def sglang_side(seconds: float) -> dict[str, tuple[float, float]] | None:
    """SGLang 0.5.23's argparse parse and warm resolution of the same inputs, in seconds,
    timed in the oracle venv (one long-lived process per platform)."""
    python = os.environ.get("SGLANG_ORACLE_PYTHON")
    if not python:
        return None
    out: dict[str, tuple[float, float]] = {}
    for platform in sorted({gpu for gpu, _, _ in INPUTS.values()}):
        cases = [{"name": label, "model": str(ORACLE / "models" / model), "argv": argv}
                 for label, (gpu, model, argv) in INPUTS.items() if gpu == platform]
        job = {"platform": platform, "oracle": str(ORACLE), "seconds": seconds,
               "cases": cases}
        proc = subprocess.run([python, str(ROOT / "benchmarks" / "sglang_side.py")],
                              input=json.dumps(job), capture_output=True, text=True,
                              check=True)
        for line in proc.stdout.splitlines():
            if line.startswith("{"):
                row = json.loads(line)
                out[row["name"]] = (row["parse_s"], row["resolve_s"])
    return out


def goal(label: str, ratio: float, target: float, *, at_most: bool) -> bool:
    ok = ratio <= target if at_most else ratio >= target
    sign = "<=" if at_most else ">="
    print(f"  {label:70} {ratio:8.2f}x  (goal {sign} {target:g}x)  "
          f"{'PASS' if ok else 'FAIL'}")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check-points", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--cold-runs", type=int, default=25)
    parser.add_argument("--sglang-seconds", type=float, default=3.0,
                        help="seconds of SGLang timing per input and measure")
    args = parser.parse_args()

    print(f"launchplan benchmarks on {os.cpu_count()} cores, Python "
          f"{sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}; every launchplan "
          "figure includes preflight and the memory plan\n")
    cold, bare, paired, rss = cold_start(args.cold_runs)
    print(f"cold `launchplan resolve --format json`: median {cold * 1000:.0f} ms; bare "
          f"`python -c pass`: {bare * 1000:.0f} ms ({args.cold_runs} interleaved runs; the "
          f"median of the pairs' ratios {paired:.2f}, of the medians {cold / bare:.2f}); "
          f"peak RSS {rss:.1f} MB")
    rates = in_process()
    sglang = sglang_side(args.sglang_seconds)
    print("\nin-process, one core, per second: launchplan from fields / from argv, for a "
          "repeated input | from scratch"
          + ("; SGLang 0.5.23 argparse parse / warm resolution" if sglang else ""))
    for label, r in rates.items():
        line = (f"  {label:58} {r['fields']:7,.0f} / {r['argv']:7,.0f} | "
                f"{r['fields_scratch']:6,.0f} / {r['argv_scratch']:6,.0f}")
        if sglang:
            parse_s, resolve_s = sglang[label]
            line += f"   SGLang {1 / parse_s:6,.0f} / {1 / resolve_s:5,.1f}"
        print(line)
    if sglang is None:
        print("  (set SGLANG_ORACLE_PYTHON to the oracle venv's python for SGLang's side)")
    fields_rate = statistics.mean(r["fields"] for r in rates.values())
    scratch_rate = statistics.mean(r["fields_scratch"] for r in rates.values())
    # the single-core reference: warmed once untimed (the facts of the sample's models loaded,
    # as check's workers inherit them), then timed once before and twice after the check run,
    # so that a burst of the machine's other jobs moves one of three passes, not the ratio
    from launchplan.engine.pipeline import PLANS

    reference_points = min(args.check_points, 5000)
    fields_rate_on_points(reference_points)
    passes = [fields_rate_on_points(reference_points)]
    PLANS.forget_shapes()  # check's workers learn their own shapes, as the passes do
    seconds, n = check_run(args.check_points, args.jobs)
    check_rate = n / seconds
    passes += [fields_rate_on_points(reference_points) for _ in range(2)]
    same_points = statistics.median(passes)
    print(f"\n`check` over {n:,} points, {args.jobs} jobs (wall clock, load average "
          f"{os.getloadavg()[0]:.1f}): {seconds:.1f} s "
          f"({check_rate:,.0f} points/s); single core: {same_points:,.0f}/s resolving the "
          f"same sample's points from scratch (median of {', '.join(f'{r:,.0f}' for r in passes)}"
          f"), {scratch_rate:,.0f}/s the three inputs from scratch, {fields_rate:,.0f}/s the "
          "three inputs repeated")

    scratch_plan = memory_overhead(repeated=False)
    repeated_plan = memory_overhead(repeated=True)
    points_plan = memory_overhead_on_points(min(args.check_points, 2000))
    print("\ngoals (same-run ratios; 'repeated': the same input resolved again in a warm "
          "process, as SGLang's warm figure is; 'from scratch': nothing reused)")
    goal("cold `resolve --format json` / bare python start (median of pairs)", paired, 3,
         at_most=True)
    goal("memory plan's added time / a resolution's: repeated inputs", repeated_plan, 0.2,
         at_most=True)
    goal("memory plan's added time / a resolution's: from scratch", scratch_plan, 0.2,
         at_most=True)
    goal("memory plan's added time / a resolution's: distinct points (sweep)", points_plan,
         0.2, at_most=True)
    if sglang:
        for key, what in (("argv", "repeated input"), ("argv_scratch", "from scratch")):
            ratio = statistics.mean((1 / r[key]) / sglang[label][0]
                                    for label, r in rates.items())
            goal(f"resolution from a command line / SGLang's argparse parse: {what}",
                 ratio, 0.5, at_most=True)
        for key, what in (("fields", "repeated input"), ("fields_scratch", "from scratch")):
            speedup = statistics.mean(r[key] * sglang[label][1] for label, r in rates.items())
            goal(f"from fields vs SGLang's warm in-process resolution: {what}", speedup, 250,
                 at_most=False)
    else:
        print("  (SGLang ratios: set SGLANG_ORACLE_PYTHON)")
    goal(f"check on {args.jobs} cores / single core, same sample from scratch",
         check_rate / same_points, 3, at_most=False)
    print("  (the goal's \"single-core from-fields rate\" is read as resolving the points "
          "check walks, from scratch:\n   the rate of a repeated input measures a replay, "
          f"not a resolution; check / that rate: {check_rate / fields_rate:.2f}x)")


if __name__ == "__main__":
    main()
