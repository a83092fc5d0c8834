"""Generate ``tests/parity/data/pastedtargets-cases.json``: every launch of the ``pasted``
suite (real texts people posted, as launchplan reads them) again on another GPU target.

    PYTHONPATH=src:. python tests/parity/tools/gen_pastedtargets_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py pastedtargets --jobs 1

The pasted launches are the flag combinations people really write, but nearly half of them
ran on an H100 and the rest on a dozen GPUs. Held-out command lines will be run on any
target, so each launch here moves to one other target of the whole catalog (the oracle's
nine and the catalog's further ones), drawn from a generator seeded by the case's own name:
adding or removing a pasted text moves no other case. Everything else of the case stays
(model, flags, environment, a container's GPU count, the compared fields); the name is
``pastedtargets/<the pasted case's name without its prefix>/<target>``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from launchplan.facts.targets import CATALOG

DATA = Path(__file__).resolve().parents[1] / "data"
PASTED = DATA / "pasted-cases.json"
OUT = DATA / "pastedtargets-cases.json"


def cases() -> list[dict]:
    targets = sorted(CATALOG)
    out = []
    for case in json.loads(PASTED.read_text()):
        rng = random.Random(case["name"])
        platform = rng.choice([t for t in targets if t != case["platform"]])
        moved = {**case, "platform": platform,
                 "name": f"pastedtargets/{case['name'].removeprefix('pasted/')}/{platform}",
                 "source": f"{case['name']} on {platform} ({case['source']})"}
        out.append(moved)
    return out


def main() -> None:
    rows = cases()
    OUT.write_text("[\n" + ",\n".join(json.dumps(c) for c in rows) + "\n]\n")
    print(f"pastedtargets: wrote {len(rows)} cases to {OUT}")


if __name__ == "__main__":
    main()
