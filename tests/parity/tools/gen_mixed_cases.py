"""Generate ``tests/parity/data/mixed-cases.json``: the draws, the alternate models and the
platform overrides at once.

``draws`` keeps the public random cases' models and default target facts, ``topics`` and
``overrides`` move named launches. A held-out case may do all three: a launch drawn like the
random ones, on a same-kind model, on a target whose memory, CUDA runtime or GPU count is
overridden. Each target gets two override sets besides its defaults (few, as the oracle
starts a worker per set); a launch without speculation moves to a same-kind model half the
time (a draft or MTP head is tied to its model).

    python tests/parity/tools/gen_mixed_cases.py [--count N] [--seed S] [OUT]
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gen_draws_cases import arguments, draw  # noqa: E402
from gen_overrides_cases import CUDA, MEMORY_GIB  # noqa: E402
from gen_topics_cases import ALTERNATE  # noqa: E402

DATA = Path(__file__).parents[1] / "data"


def _override_sets(rng: random.Random, platforms: list[str]) -> dict[str, list[dict | None]]:
    """Per target: its own facts (None) and two override sets drawn as ``overrides`` draws."""
    sets: dict[str, list[dict | None]] = {}
    for platform in platforms:
        sets[platform] = [None]
        for _ in range(2):
            over: dict[str, object] = {"mem_mib": rng.choice(MEMORY_GIB) * 1024
                                       + rng.choice((0, 0, -512, 512))}
            if not platform.startswith("mi") and rng.random() < 0.75:
                over["cuda"] = rng.choice(CUDA)
            if rng.random() < 0.3:
                over["gpus"] = rng.choice((1, 2, 4, 8))
            sets[platform].append(over)
    return sets


def main() -> None:
    args, stats, cases = arguments("mixed", 500, 5151)
    rng = random.Random(args.seed)
    fields = next(c["fields"] for c in cases if c["name"].startswith("r"))
    sets = _override_sets(rng, stats["platforms"])
    out: list[dict] = []
    seen: set[tuple] = set()
    while len(out) < args.count:
        platform, model, argv = draw(stats, rng)
        if (not any("speculative" in a for a in argv) and ALTERNATE.get(model)
                and rng.random() < 0.5):
            model = rng.choice(ALTERNATE[model])
        over = rng.choice(sets[platform])
        key = (platform, model, json.dumps(over), tuple(argv))
        if key in seen:
            continue
        seen.add(key)
        case = {"name": f"mixed/{len(out)}", "platform": platform, "model": model,
                "argv": argv, "fields": fields}
        if over:
            case["platform_overrides"] = over
        out.append(case)
    Path(args.out).write_text(json.dumps(out, indent=0) + "\n")
    print(f"wrote {len(out)} cases to {args.out}")


if __name__ == "__main__":
    main()
