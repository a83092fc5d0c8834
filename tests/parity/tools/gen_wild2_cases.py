"""Generate ``tests/parity/data/wild2-cases.json``: a second, independent draw of wild lines.

    PYTHONPATH=src:. python tests/parity/tools/gen_wild2_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py wild2 --jobs 2

The same kind of line as ``gen_wild_cases.py`` (a realistic base, half of them followed by
1-6 flags drawn from the frozen pool of what the rules read and trigger on), drawn with
another seed after the first suite's fixes had landed, over every bundled model (38, the
newly bundled ones included) and every simulated target: evidence that the classes fixed
for the first draw were classes, and a net for the next ones. It found three: SGLang's
Mamba-backend checks (``mamba_backend_checks``) and two refusal texts the test had not
mapped to the rule that gives them. ``AIMED`` lines follow what a third draw found
(quantize-and-serve, refused in every case by 0.5.21-0.5.23's model config).
"""

from __future__ import annotations

import json
import random

from tests.parity.tools import gen_wild_cases as wild

SEED = 4242
COUNT = 240
#: Lines aimed at what a third draw found (``wild2/aimed/<name>``): platform, model, argv.
AIMED = {
    "quantize-and-serve-without-modelopt": ("h100", "llama-3.1-8b", ["--quantize-and-serve"]),
    "quantize-and-serve-with-modelopt": (
        "h100", "llama-3.1-8b", ["--quantize-and-serve", "--quantization", "modelopt_fp8"]),
}


def main() -> None:
    rng = random.Random(SEED)
    triggers, reads, compared = wild.pool(False)
    models = sorted(m for m in wild.bundled_models() if m not in wild.DRAFTS)
    cases = []
    for i in range(COUNT):
        platform = wild.PLATFORMS[i % len(wild.PLATFORMS)]
        model = models[rng.randrange(len(models))]
        argv = wild.base(rng, platform, model)
        if rng.random() < 0.5:
            argv += wild.wild(rng, triggers, reads)
        own = sorted(f for f in wild.flag_fields(argv) - wild.NOT_COMPARED - wild.NEVER
                     if f not in compared and not f.startswith("_"))
        cases.append({"name": f"wild2/{i}", "platform": platform, "model": f"models/{model}",
                      "argv": argv, "fields": compared + own})
    for name, (platform, model, argv) in AIMED.items():
        cases.append({"name": f"wild2/aimed/{name}", "platform": platform,
                      "model": f"models/{model}", "argv": argv, "fields": compared})
    out = wild.DATA / "wild2-cases.json"
    out.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print(f"wild2: wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
