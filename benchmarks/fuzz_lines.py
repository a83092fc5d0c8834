"""Random command lines from SGLang's flag table, extreme numbers included, each run once.

``python benchmarks/fuzz_lines.py [--lines 2000] [--seed 1] [--budget 20]
[--commands resolve,explain,sweep,emit]`` builds random launch lines (as a careless script or
a hostile config would write them), runs each through ``launchplan`` in a forked child (one
import, a fresh process per line) and counts what must never happen:

* internal errors (exit code outside 0, 2, 3, or a traceback / "internal error" on stderr);
* hangs (no answer within ``--budget`` seconds; the child is killed);
* invalid JSON (RFC 8259: no NaN or Infinity tokens) on stdout of a ``--format json`` run.

``check`` exits 1 when it finds problems in the rules; that is an answer, not a crash.

It also prints the slowest line and the largest memory growth of a child over the parent, so
a regression in bounded time or memory shows as a number. Each failure is printed with its
command line, to be replayed with ``launchplan ...``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import resource
import shlex
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from launchplan.commands.main import main  # noqa: E402
from launchplan.facts.targets import CATALOG  # noqa: E402
from launchplan.input.fields import FIELDS  # noqa: E402

MODELS = ("llama-3.1-8b", "deepseek-v3", "gpt-oss-20b", "qwen3-8b")
EXTREME_INTS = ("0", "-1", "1", "2", "3", "7", "64", "4096", "2147483647", "2147483648",
                "-2147483648", "4294967296", "9223372036854775807", "9223372036854775808",
                "-9223372036854775809", "18446744073709551616", "1" + "0" * 30,
                "1" + "0" * 400, "9" * 4300)
EXTREME_FLOATS = ("nan", "inf", "-inf", "0", "-0.0", "-1", "0.5", "1", "1.5", "1e308",
                  "-1e308", "5e-324", "2147483648", "1e-300")
HUMAN_INTS = EXTREME_INTS + ("32k", "1.5M", "1Ki", "8Gi", "999T", "9" * 4300 + "T",
                              "9" * 4280 + "T")
GRAPH_CONFIGS = (
    '{"decode": {"max_bs": 2147483648}}', '{"decode": {"max_bs": 0}}',
    '{"decode": {"max_bs": -1}}', '{"prefill": {"max_bs": 9223372036854775808}}',
    '{"decode": {"bs": [1, 2147483648]}}', '{"decode": {"bs": []}}',
    '{"prefill": {"bs": [0, -1]}}', '{"decode": {"max_bs": 1e308}}',
    '{"decode": {"max_bs": NaN}}', '{"prefill": {"max_context_size": Infinity}}',
    '{"decode": {"backend": "full", "max_bs": 64}}', '{"prefill": {"max_seq_len": 0}}',
)
JSONS = ('{}', '[]', 'null', '0', 'NaN', '{"a": Infinity}', '[1e308]', '"x"',
         '{"max_bs": 2147483648}', '[2147483648, -1]')
TEXTS = ("", "None", "auto", "x", "-1", "nan", "fa4", "1e308", "ü")


def numeric_text(rng: random.Random, parse: str | None) -> str:
    if parse == "float":
        if rng.random() < 0.7:
            return rng.choice(EXTREME_FLOATS)
        return repr(rng.uniform(-10, 10))
    if parse == "human_readable_int":
        return rng.choice(HUMAN_INTS)
    if rng.random() < 0.7:
        return rng.choice(EXTREME_INTS)
    return str(rng.randint(-5, 1 << rng.randint(1, 64)))


def value_text(rng: random.Random, spec) -> str:
    if spec.choices and rng.random() < 0.8:
        return str(rng.choice(spec.choices))
    if spec.parse in ("int", "float", "human_readable_int"):
        return numeric_text(rng, spec.parse)
    if spec.parse == "parse_cuda_graph_config_arg":
        return rng.choice(GRAPH_CONFIGS)
    if spec.parse in ("loads", "json_list_type"):
        return rng.choice(JSONS + GRAPH_CONFIGS[:3])
    if spec.parse == "parse_cuda_graph_backend_arg":
        return rng.choice(("full", "breakable", "disabled"))
    return rng.choice(TEXTS)


def command_line(rng: random.Random, command: str) -> list[str]:
    """One random line: 1-6 flags from the table, then the planner's own options.

    ``sweep`` and ``check`` take SGLang fields as axes: each single-valued flag becomes
    ``--axis field=value`` (check samples 8 points of its space around them).
    """
    specs = [s for s in FIELDS.values() if s.flags and s.name not in ("model_path", "config")]
    numeric = [s for s in specs if s.parse in ("int", "float", "human_readable_int")
               or s.parse == "parse_cuda_graph_config_arg"]
    argv: list[str] = []
    axes: list[str] = []
    keywords: list[tuple[str, Any]] = []  # the same launch as sgl.Engine keyword arguments
    for _ in range(rng.randint(1, 6)):
        spec = rng.choice(numeric if rng.random() < 0.6 else specs)
        flag = rng.choice(spec.flags)
        if spec.nargs == 0:
            argv.append(flag)
            axes.append(f"{spec.name}=true")
            keywords.append((spec.name, True))
            continue
        count = rng.randint(1, 3) if spec.nargs in ("+", "*") else 1
        values = [value_text(rng, spec) for _ in range(count)]
        keywords.append((spec.name, values if spec.nargs in ("+", "*") else values[0]))
        if count == 1 and values[0].startswith("-") and rng.random() < 0.8:
            argv.append(f"{flag}={values[0]}")  # argparse reads a lone "-inf" as a flag
        else:
            argv += [flag, *values]
        if count == 1 and "," not in values[0]:
            axes.append(f"{spec.name}={values[0]}")
    gpu, model = rng.choice(sorted(CATALOG)), rng.choice(MODELS)
    base = ["--gpu", gpu, "--model-path", model]
    if command == "resolve":
        return ["resolve", *base, *argv, "--format", "json"]
    if command == "paste":
        return ["resolve", *base, pasted(rng, argv, keywords), "--format", "json"]
    if command == "emit":
        return ["resolve", *base, *argv, "--emit", "sglang"]
    if command == "explain":
        return ["explain", "--all", *base, *argv, "--format", "json"]
    axis_args = [a for axis in axes for a in ("--axis", axis)]
    if command == "check":
        return ["check", *base, *axis_args, "--sample", "8", "--seed", "1", "--jobs", "1",
                "--format", "json"]
    return ["sweep", *base, "--axis", "page_size=1,16", *axis_args, "--format", "json"]


def pasted(rng: random.Random, argv: list[str], keywords: list[tuple[str, Any]]) -> str:
    """The launch as people paste it: after a prompt, in a script, a Kubernetes container,
    a Compose service, an exec-form array or an offline-engine call."""
    launcher = ["python3", "-m", "sglang.launch_server"]
    form = rng.randrange(6)
    if form == 0:
        return "user@host:~$ SGLANG_X=1 " + shlex.join([*launcher, *argv])
    if form == 1:
        return ("export SGLANG_X=1\ncd /srv && " + shlex.join([*launcher, *argv])
                + " > server.log 2>&1 &\n")
    if form == 2:
        return ("spec:\n  containers:\n  - name: s\n    command: " + json.dumps(launcher)
                + "\n    args: " + json.dumps(argv)
                + "\n    env:\n    - {name: SGLANG_X, value: '1'}\n")
    if form == 3:
        return ("services:\n  s:\n    entrypoint: " + " ".join(launcher)
                + "\n    command: " + json.dumps(argv) + "\n")
    if form == 4:
        return json.dumps([*launcher, *argv])
    return ("import sglang as sgl\nllm = sgl.Engine(\n"
            + "".join(f"    {name}={value!r},\n" for name, value in keywords) + ")\n")


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not RFC 8259 JSON")


def run_one(argv: list[str], budget: float) -> dict:
    """Run ``launchplan argv`` in a forked child; exit code, output, wall time, peak RSS."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:  # the child: launchplan with stdout/stderr in the files
            code = 1
            try:
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                sys.stdout = os.fdopen(1, "w", closefd=False)
                sys.stderr = os.fdopen(2, "w", closefd=False)
                code = main(argv)
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code if isinstance(code, int) else 1)
        hung = False
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            if time.perf_counter() - start > budget:
                os.kill(pid, signal.SIGKILL)
                done, status, usage = os.wait4(pid, 0)
                hung = True
                break
            time.sleep(0.002)
        elapsed = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return {"code": None if hung else os.waitstatus_to_exitcode(status), "hung": hung,
                "out": out.read().decode("utf-8", "replace"),
                "err": err.read().decode("utf-8", "replace"),
                "seconds": elapsed, "rss_mib": usage.ru_maxrss / 1024}


def verdict(argv: list[str], run: dict) -> str | None:
    """Why this run is a failure, or None."""
    if run["hung"]:
        return "hang"
    allowed = (0, 1, 2, 3) if argv[0] == "check" else (0, 2, 3)
    if run["code"] not in allowed or "Traceback" in run["err"] or \
            "internal error" in run["err"] or " failed: " in run["err"]:
        return "internal error"
    if "--format" in argv and argv[argv.index("--format") + 1] == "json" and run["out"].strip():
        try:
            data = json.loads(run["out"], parse_constant=_reject_constant)
        except ValueError:
            return "invalid JSON"
        if argv[0] == "check" and any(p.get("kind") in ("crash", "nondeterminism")
                                      for p in data.get("problems", ())):
            return "internal error"  # a rule crashed on a point check resolved
    return None


def main_cli() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=20.0, help="seconds per line")
    ap.add_argument("--commands", default="resolve",
                    help="comma-separated among resolve, paste (the same launch pasted as "
                    "a script, manifest or engine call), emit, explain, sweep, check")
    args = ap.parse_args()
    commands = args.commands.split(",")
    rng = random.Random(args.seed)
    with contextlib.redirect_stdout(io.StringIO()):  # warm up before forking
        main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b", "--format", "json"])
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    counts: dict[str, int] = {"internal error": 0, "hang": 0, "invalid JSON": 0}
    codes: dict[int | None, int] = {}
    slowest: tuple[float, list[str]] = (0.0, [])
    biggest: tuple[float, list[str]] = (0.0, [])
    started = time.perf_counter()
    for n in range(args.lines):
        argv = command_line(rng, commands[n % len(commands)])
        run = run_one(argv, args.budget)
        codes[run["code"]] = codes.get(run["code"], 0) + 1
        if run["seconds"] > slowest[0]:
            slowest = (run["seconds"], argv)
        if run["rss_mib"] - base_rss > biggest[0]:
            biggest = (run["rss_mib"] - base_rss, argv)
        problem = verdict(argv, run)
        if problem:
            counts[problem] += 1
            last = (run["err"].strip().splitlines() or [""])[-1]
            print(f"{problem}: launchplan {' '.join(argv)}\n    {last[:300]}", flush=True)
    total = time.perf_counter() - started
    print(f"\n{args.lines} lines ({', '.join(commands)}), seed {args.seed}, "
          f"{total:.0f} s in all")
    print("exit codes: " + ", ".join(f"{c}: {k}" for c, k in sorted(
        codes.items(), key=lambda kv: str(kv[0]))))
    print("failures: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(f"slowest line: {slowest[0]:.2f} s: launchplan {' '.join(slowest[1])}")
    print(f"largest memory growth over the parent ({base_rss:.0f} MiB): {biggest[0]:.0f} MiB"
          + (f": launchplan {' '.join(biggest[1])}" if biggest[1] else ""))
    return 1 if any(counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main_cli())
