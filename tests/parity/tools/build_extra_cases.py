"""Build ``tests/parity/data/extra-cases.json`` from hand-written case files.

    python tests/parity/tools/build_extra_cases.py SOURCE.json [SOURCE.json ...] \\
        [--results RESULTS.jsonl ...] [--out tests/parity/data/extra-cases.json]

The extra suite (NGRAM, DFLASH, DSPARK, UNO, adaptive and deterministic decoding,
multi-item scoring, tokenspeed_mla, NVFP4/KV4/MXFP8 caches, DP attention, PP,
DeepEP/waterfill/FlashInfer A2A, unified memory, CP, KV sharding, aux capture,
max-context) uses the same case format as ``public-cases.json``.

This script

* merges the source lists in order, keeping one copy of a case listed twice with the
  same content (a name listed twice with different content is an error);
* refuses names already used by ``public-cases.json`` or ``own-cases.json``;
* refuses model paths other than ``models/<bundled model>`` (drafts included);
* with ``--results`` (oracle recordings of a first run), drops every field the oracle
  recorded as an absolute path (e.g. ``speculative_draft_model_path``: the oracle turns
  ``models/x`` into its own absolute folder, launchplan answers with the bundled name,
  so the two cannot be compared).

Recording (needs the oracle venv, see /work/shared/oracle/README.md)::

    python /work/shared/oracle/sglang_oracle.py tests/parity/data/extra-cases.json \\
        --out tests/parity/data/results-extra-0.5.23.jsonl --jobs 2
    python /work/shared/oracle/sglang_oracle.py tests/parity/data/extra-cases.json \\
        --out tests/parity/data/results-extra-main.jsonl --jobs 2 --rules main
    python tests/parity/tools/summarize_results.py tests/parity/data/extra-cases.json
"""
from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(HERE), "data")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
BUNDLED = os.path.join(ROOT, "src", "launchplan", "facts", "data", "models")
PATH_ARGS = ("--model-path", "--speculative-draft-model-path", "--tokenizer-path")
PATH_KEYS = ("model_path", "speculative_draft_model_path", "tokenizer_path")


def _bundled() -> set[str]:
    return {d for d in os.listdir(BUNDLED)
            if os.path.isfile(os.path.join(BUNDLED, d, "config.json"))}


def _paths(case: dict) -> list[str]:
    argv = case.get("argv") or []
    found = [case["model"]]
    found += [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in PATH_ARGS]
    found += [a.split("=", 1)[1] for a in argv if a.split("=", 1)[0] in PATH_ARGS and "=" in a]
    found += [v for k, v in (case.get("args") or {}).items() if k in PATH_KEYS]
    return found


def _absolute_fields(results: list[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in results:
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                row = json.loads(line)
                for field, value in (row.get("resolved") or {}).items():
                    if isinstance(value, str) and os.path.isabs(value):
                        out.setdefault(row["name"], set()).add(field)
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sources", nargs="+")
    ap.add_argument("--results", nargs="*", default=[])
    ap.add_argument("--out", default=os.path.join(DATA, "extra-cases.json"))
    a = ap.parse_args(argv)

    taken = set()
    for other in ("public-cases.json", "own-cases.json"):
        with open(os.path.join(DATA, other)) as f:
            taken |= {c["name"] for c in json.load(f)}
    bundled = _bundled()
    problems: list[str] = []
    merged: dict[str, dict] = {}
    duplicates = 0
    for src in a.sources:
        with open(src) as f:
            for case in json.load(f):
                name = case["name"]
                if name in merged:
                    if merged[name] != case:
                        problems.append(f"{name}: listed twice with different content")
                    duplicates += 1
                    continue
                if name in taken:
                    problems.append(f"{name}: already used by the public or own suite")
                for p in _paths(case):
                    if not (isinstance(p, str) and p.startswith("models/")
                            and p[len("models/"):] in bundled):
                        problems.append(f"{name}: {p!r} is not a bundled model")
                merged[name] = case

    dropped = 0
    for name, fields in _absolute_fields(a.results).items():
        case = merged.get(name)
        if case is None:
            continue
        keep = [f for f in case["fields"] if f not in fields]
        dropped += len(case["fields"]) - len(keep)
        case["fields"] = keep

    for p in problems:
        print("problem:", p, file=sys.stderr)
    if problems:
        return 1
    with open(a.out, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(c) for c in merged.values()) + "\n]\n")
    print(f"{len(merged)} cases ({duplicates} repeated listings merged, "
          f"{dropped} absolute-path fields dropped) -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
