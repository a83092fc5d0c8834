"""Check and summarise recorded oracle results for the parity cases.

    python tests/parity/tools/summarize_results.py [CASES] [RESULTS_0523] [RESULTS_MAIN]

Defaults: ``tests/parity/data/own-cases.json``, ``results-own-0.5.23.jsonl`` and
``results-own-main.jsonl`` next to it.  It checks that

* there is exactly one result line per case, in the same order and with the same names;
* every line has ``ok`` true, or ``ok`` false with an ``error`` (SGLang's refusal);
* no error is a harness failure (``harness:`` prefix, or an ImportError /
  ModuleNotFoundError / AttributeError on a stub) and no field is ``<unreadable``;
* no line reports ``probe_mismatch`` (the simulated device disagreeing with the facts);

and prints counts (argv/args, ok/refused, per platform, per topic), the errors, and the
cases on which the two rule sets disagree (with the differing fields).  Exit status 1
if a check fails.
"""
from __future__ import annotations

import collections
import json
import os
import sys

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
HARNESS_MARKS = ("harness:", "ImportError", "ModuleNotFoundError", "_Dummy", "_StubModule")


def load_jsonl(path):
    with open(path) as f:
        return [json.loads(ln) for ln in f if ln.strip()]


def main(argv):
    cases_p = argv[1] if len(argv) > 1 else os.path.join(DATA, "own-cases.json")
    base = os.path.basename(cases_p).replace("-cases.json", "")
    r1_p = argv[2] if len(argv) > 2 else os.path.join(DATA, f"results-{base}-0.5.23.jsonl")
    r2_p = argv[3] if len(argv) > 3 else os.path.join(DATA, f"results-{base}-main.jsonl")
    cases = json.load(open(cases_p))
    problems = []
    runs = {}
    for tag, p in (("0.5.23", r1_p), ("main", r2_p)):
        if not os.path.exists(p):
            print(f"(no {p})")
            continue
        res = load_jsonl(p)
        runs[tag] = res
        if [r["name"] for r in res] != [c["name"] for c in cases]:
            problems.append(f"{tag}: result names/order differ from the cases")
        for r in res:
            if not r.get("ok") and not r.get("error"):
                problems.append(f"{tag}: {r['name']}: not ok and no error")
            if r.get("error") and any(m in r["error"] for m in HARNESS_MARKS):
                problems.append(f"{tag}: {r['name']}: harness? {r['error'][:200]}")
            if r.get("probe_mismatch"):
                problems.append(f"{tag}: {r['name']}: probe_mismatch {r['probe_mismatch']}")
            for k, v in (r.get("resolved") or {}).items():
                if isinstance(v, str) and v.startswith("<unreadable"):
                    problems.append(f"{tag}: {r['name']}: {k} {v}")
    def topic(c):
        return c["name"].split("/")[1]

    print(f"cases: {len(cases)}  argv: {sum('argv' in c for c in cases)}  "
          f"args: {sum('args' in c for c in cases)}")
    print("per platform:", dict(sorted(collections.Counter(c['platform'] for c in cases).items())))
    print("per topic:", dict(collections.Counter(topic(c) for c in cases)))
    for tag, res in runs.items():
        ok = sum(bool(r.get("ok")) for r in res)
        print(f"[{tag}] ok {ok}  refused {len(res) - ok}")
        per = collections.defaultdict(lambda: [0, 0])
        for c, r in zip(cases, res):
            per[topic(c)][0 if r.get("ok") else 1] += 1
        print(f"[{tag}] per topic ok/refused:", {k: tuple(v) for k, v in per.items()})
    if "0.5.23" in runs:
        print("\nrefusals (0.5.23):")
        for r in runs["0.5.23"]:
            if not r.get("ok"):
                print(f"  {r['name']}: {r['error'][:220]}")
    if len(runs) == 2:
        print("\nrule sets disagree on:")
        for a, b in zip(runs["0.5.23"], runs["main"]):
            diff = {k: (a["resolved"].get(k), b["resolved"].get(k))
                    for k in set(a["resolved"]) | set(b["resolved"])
                    if a["resolved"].get(k) != b["resolved"].get(k)
                    and not k.endswith(".bs")}
            bs = [k for k in a["resolved"] if k.endswith(".bs")
                  and a["resolved"].get(k) != b["resolved"].get(k)]
            if a.get("ok") != b.get("ok") or diff or bs or a.get("error") != b.get("error"):
                print(f"  {a['name']}: ok {a.get('ok')}->{b.get('ok')} {diff}"
                      + (f" (+{bs} differ)" if bs else ""))
    if problems:
        print("\nPROBLEMS:")
        for p in problems:
            print("  " + p)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
