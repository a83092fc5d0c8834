"""Generate ``tests/parity/data/random-cases.json``: points drawn from ``check``'s default space.

Unlike the hand-written suites, these are not chosen for subtlety: 300 points sampled from
the default check space (seed 424242), 40% of them with one extra flag from a small list
(chunk, running limit, memory fraction, DP, PP, graph sizes, deterministic inference...).
They guard against rules fitted to the hand-picked cases. Record SGLang's answers with
``../shared/oracle/sglang_oracle.py`` (plain and ``--rules main``) into
``results-random-{0.5.23,main}.jsonl``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from launchplan.checks.space import Space, default_models
from launchplan.facts.targets import SIMULATED

DATA = Path(__file__).parents[1] / "data"
EXTRA_FLAGS = [["--chunked-prefill-size", "4096"], ["--max-running-requests", "64"],
               ["--mem-fraction-static", "0.8"], ["--dp-size", "2", "--enable-dp-attention"],
               ["--attn-dp-size", "2"], ["--disable-radix-cache"],
               ["--cuda-graph-max-bs-decode", "96"], ["--max-total-tokens", "3000"],
               ["--enable-deterministic-inference"], ["--disable-cuda-graph-padding"],
               ["--pp-size", "2"]]


def main() -> None:
    fields = json.loads((DATA / "public-cases.json").read_text())[0]["fields"]
    fields = fields + ["disable_radix_cache", "cuda_graph_config.prefill.bs"]
    points = Space(list(SIMULATED), default_models()).sample(300, seed=424242)
    rng = random.Random(5)
    cases = []
    for i, point in enumerate(points):
        argv = ["models/" + a if a == "llama-3.1-8b-eagle" else a for a in point.argv()]
        if rng.random() < 0.4:
            argv += rng.choice(EXTRA_FLAGS)
        cases.append({"name": f"random/{i}", "platform": point.gpu,
                      "model": f"models/{point.model}", "argv": argv, "fields": fields})
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else DATA / "random-cases.json"
    out.write_text(json.dumps(cases, indent=0) + "\n")
    print(f"wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
