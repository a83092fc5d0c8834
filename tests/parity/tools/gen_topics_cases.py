"""Generate ``tests/parity/data/topics-cases.json``: the public cases' named launches on every
target.

The public cases give each topic (``fa4``, ``split``, ``eagle3``, ``mtp``, ``kv-fp8_e4m3``,
``cg-prefill-full``, ...) as fields (``args``) on one or two targets, mostly a B200 or an H100.
Cases held out from us may name the same topics on the other targets. Here every such case's
fields run on each target the oracle simulates other than its own, on its own model and, on
every other target, on a model of the same kind instead (a dense GQA model for Llama, the
smaller MLA model for DeepSeek-V3, at the same tensor-parallel size): launches that need the
model itself (an EAGLE draft trained for Llama-3.1-8B, MTP) keep it.

    python tests/parity/tools/gen_topics_cases.py [OUT]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DATA = Path(__file__).parents[1] / "data"
PUBLIC = DATA / "public-cases.json"

#: A model of the same kind per public model, for every other target.
ALTERNATE = {"models/llama-3.1-8b": ("models/qwen3-8b", "models/mistral-7b-v0.3",
                                     "models/qwen2.5-7b"),
             "models/deepseek-v3": ("models/deepseek-v2-lite",),
             "models/qwen3-30b-a3b": ("models/gpt-oss-20b",)}
#: Fields that tie a launch to its model (a draft trained for it, the model's own MTP head).
_MODEL_BOUND = ("speculative_algorithm", "speculative_draft_model_path")


def _launch(case: dict) -> tuple[str, str, str]:
    return case["platform"], case["model"], json.dumps(case["args"], sort_keys=True)


def main() -> None:
    out_path = Path(sys.argv[1]) if len(sys.argv) > 1 else DATA / "topics-cases.json"
    cases = json.loads(PUBLIC.read_text())
    platforms = sorted({c["platform"] for c in cases})
    out = []
    for case in cases:
        args = case.get("args")
        if args is None or case.get("platform_overrides"):
            continue
        alternates = ALTERNATE.get(case["model"], ())
        bound = any(name in args for name in _MODEL_BOUND)
        for at, platform in enumerate(p for p in platforms if p != case["platform"]):
            model = case["model"]
            if at % 2 == 1 and alternates and not bound:
                model = alternates[(at // 2) % len(alternates)]
            name = f"topics/{case['name']}/{model.split('/')[-1]}/{platform}"
            out.append({"name": name, "platform": platform, "model": model,
                        "args": dict(args), "fields": case["fields"]})
    # once per launch: a public case, or another topic case, may already be this launch
    seen = {_launch(c) for c in cases if "args" in c}
    unique = [c for c in out if not (_launch(c) in seen or seen.add(_launch(c)))]
    out_path.write_text(json.dumps(unique, indent=0) + "\n")
    print(f"wrote {len(unique)} cases to {out_path}")


if __name__ == "__main__":
    main()
