"""Generate ``tests/parity/data/shipped-cases.json``: the hub suite's launches over every Hub
config launchplan ships (``src/launchplan/facts/data/hub``) that the hub suite does not
already hold, so each file a user can name by its Hub id has met SGLang.

    PYTHONPATH=src:. python tests/parity/tools/gen_shipped_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py shipped --jobs 1

Cases name those folders ``shipped/<ORG--NAME>``.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.parity.tools.gen_hub_cases import LAUNCHES, MODELS, PARITY

OUT = PARITY / "data" / "shipped-cases.json"
HUB = PARITY.parents[1] / "src" / "launchplan" / "facts" / "data" / "hub"


def folders() -> list[str]:
    """Every shipped folder but the hub suite's and those from earlier commits (``origin``
    in SOURCES.json: the shipped2 suite, ``gen_shipped2_cases.py``)."""
    origin = json.loads((HUB / "SOURCES.json").read_text()).get("origin", {})
    elsewhere = set(MODELS.values()) | {hub.replace("/", "--", 1) for hub in origin}
    return sorted(p.name for p in HUB.iterdir()
                  if (p / "config.json").is_file() and p.name not in elsewhere)


def cases() -> list[dict]:
    fields = json.loads((PARITY / "data" / "reach-cases.json").read_text())[0]["fields"]
    out = []
    for folder in folders():
        model = f"shipped/{folder}"
        for platform in ("h200", "b200"):
            for name, argv in LAUNCHES.items():
                out.append({"name": f"shipped/{folder}/{platform}/{name}",
                            "platform": platform, "model": model, "argv": argv,
                            "fields": fields})
        out.append({"name": f"shipped/{folder}/mi300x/tp8", "platform": "mi300x",
                    "model": model, "argv": LAUNCHES["tp8"], "fields": fields})
    return out


if __name__ == "__main__":
    OUT.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases()) + "\n]\n")
    print(f"{Path(OUT).name}: {len(cases())} cases")
