"""Generate ``tests/parity/data/overrides-cases.json``: the public cases on targets whose CUDA
runtime, memory or GPU count is not the simulated default.

One public case (``platform-override/llama8b/b200-cuda12.9-96GiB``) overrides its target's
facts; the held-out cases may override others. SGLang sizes much from the GPU's memory (the
chunk, the CUDA-graph batch sizes, the static fraction, the running limit, each by tiers) and
gates kernels on the CUDA runtime, so a plan right at one memory size can be wrong at the next
tier. Here each simulated target gets a few override sets (a CUDA runtime from 12.4 to 13.0 on
NVIDIA parts, a memory size drawn around the tiers, sometimes a GPU count) and, on each, a
dozen public launches moved to that target (the fields cases and the random ones' command
lines, on their own model or a same-kind one). The oracle starts one worker per (target,
overrides), so the sets are few and the launches per set many.

    python tests/parity/tools/gen_overrides_cases.py [--seed S] [--sets N] [--per-set N] [OUT]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gen_topics_cases import ALTERNATE, PUBLIC  # noqa: E402

DATA = Path(__file__).parents[1] / "data"
#: CUDA runtimes a host may have (12.4 is the oldest SGLang 0.5.x wheels build for).
CUDA = ("12.4", "12.6", "12.8", "12.9", "13.0")
#: Memory sizes in GiB around where SGLang's defaults change tier, and real cards' sizes.
MEMORY_GIB = (12, 16, 20, 24, 32, 35, 40, 48, 60, 64, 80, 90, 96, 120, 141, 160, 180, 192,
              256, 288)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1204)
    parser.add_argument("--sets", type=int, default=4, help="override sets per target")
    parser.add_argument("--per-set", type=int, default=12)
    parser.add_argument("out", nargs="?", default=str(DATA / "overrides-cases.json"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cases = [c for c in json.loads(PUBLIC.read_text()) if not c.get("platform_overrides")]
    platforms = sorted({c["platform"] for c in cases})
    out = []
    for platform in platforms:
        amd = platform.startswith("mi")
        for n in range(args.sets):
            over: dict[str, object] = {"mem_mib": rng.choice(MEMORY_GIB) * 1024
                                       + rng.choice((0, 0, -512, 512))}
            if not amd and rng.random() < 0.75:
                over["cuda"] = rng.choice(CUDA)
            if rng.random() < 0.25:
                over["gpus"] = rng.choice((1, 2, 4, 8))
            tag = "-".join(f"{k}{v}" for k, v in sorted(over.items()))
            for case in rng.sample(cases, args.per_set):
                model = case["model"]
                bound = "speculative_algorithm" in (case.get("args") or {}) or any(
                    "speculative" in a for a in case.get("argv", []))
                if rng.random() < 0.4 and ALTERNATE.get(model) and not bound:
                    model = rng.choice(ALTERNATE[model])
                new: dict[str, object] = {
                    "name": f"overrides/{platform}/{n}-{tag}/{case['name']}/"
                            f"{model.split('/')[-1]}",
                    "platform": platform, "platform_overrides": over, "model": model,
                    "fields": case["fields"]}
                if "args" in case:
                    new["args"] = dict(case["args"])
                if "argv" in case:
                    new["argv"] = list(case["argv"])
                if "env" in case:
                    new["env"] = dict(case["env"])
                out.append(new)
    Path(args.out).write_text(json.dumps(out, indent=0) + "\n")
    print(f"wrote {len(out)} cases to {args.out}")


if __name__ == "__main__":
    main()
