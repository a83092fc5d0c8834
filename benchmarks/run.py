"""launchplan's speed goals, measured: ``python benchmarks/run.py`` (a minute or two).

Prints, with medians over repeated runs:
  * cold ``launchplan resolve --format json`` (process start to exit);
  * in-process resolutions per second from parsed fields, for three inputs;
  * the same from a command line (``argv=``), parsing included;
  * ``launchplan check`` over 100,000 points on every core (``--check-points 1000000`` for the
    full million);
  * peak RSS of one ``resolve`` process.
With ``SGLANG_ORACLE_PYTHON`` naming a Python that has the oracle's environment
(``../shared/oracle/README.md``), the same three inputs are also resolved by SGLang 0.5.23
and the ratio is printed.
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
    """Calls per second: the median of ``repeats`` runs of about ``seconds`` each."""
    fn()
    rates = []
    for _ in range(repeats):
        n, start = 0, time.perf_counter()
        while True:
            for _ in range(50):
                fn()
            n += 50
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        rates.append(n / elapsed)
    return statistics.median(rates)


def cold_start(runs: int) -> tuple[float, float]:
    """Median wall time of ``launchplan resolve --format json``, and peak RSS in MB."""
    gpu, model, argv = INPUTS["llama-3.1-8b defaults on h100"]
    cmd = [sys.executable, "-m", "launchplan.commands.main", "resolve", "--gpu", gpu,
           "--model-path", model, *argv, "--format", "json"]
    # As installed: bytecode cached (this workplace sets PYTHONDONTWRITEBYTECODE, which
    # would recompile every module on every run); one warm-up run writes the cache.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(cmd, capture_output=True, check=True, env=env)
    times, peak = [], 0.0
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, check=True, env=env)
        times.append(time.perf_counter() - start)
        json.loads(proc.stdout)
    import resource

    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB -> MiB on Linux
    return statistics.median(times), peak


def _bare_python(runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return times


def in_process() -> dict[str, tuple[float, float]]:
    from launchplan.input.cli import parse_argv
    from launchplan.planner import resolve

    out = {}
    for label, (gpu, model, argv) in INPUTS.items():
        fields = parse_argv(argv).values
        by_fields = median_rate(lambda f=fields, g=gpu, m=model: resolve(
            fields=f, gpu=g, model_path=m))
        by_argv = median_rate(lambda a=argv, g=gpu, m=model: resolve(
            a, gpu=g, model_path=m))
        out[label] = (by_fields, by_argv)
    return out


def check_run(points: int, jobs: int) -> tuple[float, int]:
    from launchplan.checks.runner import run_check
    from launchplan.checks.space import Space, default_models
    from launchplan.facts.targets import CATALOG

    space = Space(list(CATALOG), default_models())
    total = space.size()
    if points <= total:
        chosen = space.sample(points, seed=1)
    else:  # the default space has 272,160 points: walk it again until `points` are checked
        every = list(space)
        chosen = (every * -(-points // total))[:points]
    start = time.perf_counter()
    run_check(chosen, "default", jobs=jobs)
    return time.perf_counter() - start, len(chosen)


def oracle_times() -> dict[str, float] | None:
    """SGLang 0.5.23's own resolve time for the three inputs, through the oracle harness."""
    python = os.environ.get("SGLANG_ORACLE_PYTHON")
    if not python:
        return None
    cases = [{"name": label, "platform": gpu, "model": f"models/{model}", "argv": argv,
              "fields": ["page_size"]} for label, (gpu, model, argv) in INPUTS.items()]
    times: dict[str, list[float]] = {label: [] for label in INPUTS}
    for _ in range(3):
        proc = subprocess.run([python, str(ORACLE / "sglang_oracle.py"), "-"],
                              input=json.dumps(cases), capture_output=True, text=True,
                              cwd=ORACLE, check=True)
        for line in proc.stdout.splitlines():
            row = json.loads(line)
            times[row["name"]].append(row["resolve_s"])
    return {label: statistics.median(v) for label, v in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check-points", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--cold-runs", type=int, default=15)
    args = parser.parse_args()

    print(f"launchplan benchmarks on {os.cpu_count()} cores, Python "
          f"{sys.version.split()[0]}\n")
    bare = statistics.median(_bare_python(args.cold_runs))
    cold, rss = cold_start(args.cold_runs)
    print(f"cold `launchplan resolve --format json`: median {cold * 1000:.0f} ms "
          f"over {args.cold_runs} runs (goal <= 100 ms; a bare `python -c pass` here: "
          f"{bare * 1000:.0f} ms)")
    print(f"peak RSS of one resolve process: {rss:.1f} MB (goal <= 50 MB)\n")
    rates = in_process()
    oracle = oracle_times()
    print("in-process resolutions per second, one core (goals: fields >= 10,000; argv >= 2,500)")
    for label, (by_fields, by_argv) in rates.items():
        line = f"  {label:58} fields {by_fields:8,.0f}/s   argv {by_argv:8,.0f}/s"
        if oracle:
            line += f"   SGLang {1 / oracle[label]:6.1f}/s (x{by_fields * oracle[label]:,.0f})"
        print(line)
    if oracle is None:
        print("  (set SGLANG_ORACLE_PYTHON to time SGLang 0.5.23 on the same inputs)")
    seconds, n = check_run(args.check_points, args.jobs)
    print(f"\n`check` over {n:,} points with {args.jobs} jobs: {seconds:.1f} s "
          f"({n / seconds:,.0f} points/s; 1,000,000 points would take "
          f"{1_000_000 / (n / seconds):.0f} s; goal <= 180 s)")


if __name__ == "__main__":
    main()
