"""The repository's real model configs, one key changed at a time, each planned once.

``python benchmarks/fuzz_configs.py [--runs 1500] [--seed 1] [--budget 30]`` picks a config
folder (``tests/parity/models`` and the bundled models), changes one key (top level or up to
two blocks down: deleted, null, 0, -1, 1.5, a word, 10^12, an empty list or object, true),
copies the folder with that config, and runs ``launchplan resolve --format json`` on it in
a forked child on a random target (a third of the runs split over 2-8 GPUs). It counts what
``fuzz_lines.py`` counts -- internal errors, hangs, invalid JSON -- and prints each with the
key and value that caused it, to be replayed by hand.

A config a real SGLang could not load should get one line naming the field (exit 2), and a
config it loads a plan (0) or a refusal (3); the other outcomes are launchplan's bugs.

``--every-key`` walks instead of drawing: every key named like an identifier (module names of
quantization tables left out), each on ``--configs-per-key`` configs that hold it (drawn with
the seed), each with every change, targets taken in turn (about 16,000 launches, an hour; a
random draw reaches a given key and change once in thousands of runs).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_lines import run_one, verdict  # noqa: E402

from launchplan.commands.main import main  # noqa: E402

TARGETS = ("h100", "b200", "gb200", "a100", "h20", "l40s", "rtx4090", "mi300x", "mi355x")
DELETE = object()
CHANGES: tuple[Any, ...] = (DELETE, None, 0, -1, 1.5, "abc", 10**12, [], {}, True)


def key_paths(config: dict[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every key of the config, descending into objects up to two blocks down."""
    for key, value in config.items():
        if isinstance(value, dict) and len(prefix) < 2:
            yield from key_paths(value, (*prefix, key))
        else:
            yield (*prefix, key)


def changed(config: dict[str, Any], path: tuple[str, ...], change: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(config))
    block = out
    for key in path[:-1]:
        block = block[key]
    if change is DELETE:
        del block[path[-1]]
    else:
        block[path[-1]] = change
    return out


def main_cli() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=30.0, help="seconds per run")
    ap.add_argument("--every-key", action="store_true",
                    help="every key with every change, instead of --runs random draws")
    ap.add_argument("--configs-per-key", type=int, default=2)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    configs = sorted((ROOT / "tests" / "parity" / "models").glob("*/config.json")) + sorted(
        (ROOT / "src" / "launchplan" / "facts" / "data" / "models").glob("*/config.json"))
    draws = every_key(configs, rng, args.configs_per_key) if args.every_key else None
    runs = len(draws) if draws is not None else args.runs
    with contextlib.redirect_stdout(io.StringIO()):  # warm up before forking
        main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b", "--format", "json"])
    failures = 0
    codes: dict[int | None, int] = {}
    scratch = Path(tempfile.mkdtemp(prefix="fuzz-configs-"))
    try:
        for n in range(runs):
            if draws is not None:
                source, path, change = draws[n]
                config = json.loads(source.read_text())
                target = TARGETS[n % len(TARGETS)]
            else:
                source = rng.choice(configs)
                config = json.loads(source.read_text())
                paths = list(key_paths(config))
                if not paths:
                    continue
                path, change = rng.choice(paths), rng.choice(CHANGES)
                target = rng.choice(TARGETS)
            folder = scratch / f"m{n}"
            shutil.copytree(source.parent, folder)
            (folder / "config.json").write_text(json.dumps(changed(config, path, change)))
            argv = ["resolve", "--gpu", target, "--model-path", str(folder), "--format", "json"]
            if draws is None and rng.random() < 0.3:
                argv += ["--tp-size", str(rng.choice((2, 4, 8)))]
            run = run_one(argv, args.budget)
            codes[run["code"]] = codes.get(run["code"], 0) + 1
            problem = verdict(argv, run)
            if problem:
                failures += 1
                shown = "deleted" if change is DELETE else repr(change)
                last = (run["err"].strip().splitlines() or [""])[-1]
                print(f"{problem}: {source.parent.name} {'.'.join(path)} {shown} "
                      f"({' '.join(argv[1:3])} {' '.join(argv[6:])})\n    {last[:300]}",
                      flush=True)
            shutil.rmtree(folder)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return summary(f"{runs} runs over {len(configs)} configs, seed {args.seed}"
                   + (", every key" if draws is not None else ""), codes, failures)


def every_key(configs: list[Path], rng: random.Random, per_key: int
              ) -> list[tuple[Path, tuple[str, ...], Any]]:
    """(config, key path, change) for every identifier-like key, on up to ``per_key`` of the
    configs holding it, with every change."""
    holders: dict[str, list[tuple[Path, tuple[str, ...]]]] = {}
    for source in configs:
        for path in key_paths(json.loads(source.read_text())):
            if all(k.isidentifier() and not any(c.isdigit() for c in k) for k in path):
                holders.setdefault(path[-1], []).append((source, path))
    out = []
    for key in sorted(holders):
        where = holders[key]
        for source, path in rng.sample(where, min(per_key, len(where))):
            out += [(source, path, change) for change in CHANGES]
    return out


def summary(what: str, codes: dict[int | None, int], failures: int) -> int:
    """Print a run's closing lines (what ran, the exit codes, the failures); its exit code."""
    print(f"\n{what}")
    print("exit codes: " + ", ".join(f"{c}: {k}" for c, k in sorted(
        codes.items(), key=lambda kv: str(kv[0]))))
    print(f"failures: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main_cli())
