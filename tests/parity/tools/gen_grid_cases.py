"""Generate ``tests/parity/data/grid-cases.json``: every attention backend on every simulated
target and every model of the public cases.

The public cases name a backend, a model and a target (``argv/cutlass_mla/dsv3-tp8/b200``);
before this suite, half of the (target, model, backend) triples had never been met by any
recorded case. Here each is met once: every choice SGLang 0.5.23's ``--attention-backend``
admits (from launchplan's flag table, so a new choice is picked up), the public cases'
``cutlass_mla`` and no backend at all, on each target the oracle simulates and each model the
public cases use. The tensor-parallel size is drawn as the public random cases draw it (their
own frequencies, ``gen_draws_cases.learn``), except DeepSeek-V3, which the public cases always
run at tp 8. ``cutlass_mla``, which SGLang's argparse refuses (its ``--attention-backend``
choices leave it out) but ``ServerArgs`` takes, is given as the public cases give it: as
fields (``args``), not a command line.

    python tests/parity/tools/gen_grid_cases.py [--seed S] [OUT]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gen_draws_cases import PUBLIC, _pick, learn  # noqa: E402

from launchplan.facts.targets import SIMULATED  # noqa: E402
from launchplan.input.fields import FIELDS  # noqa: E402

DATA = Path(__file__).parents[1] / "data"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1203)
    parser.add_argument("out", nargs="?", default=str(DATA / "grid-cases.json"))
    args = parser.parse_args()
    cases = json.loads(PUBLIC.read_text())
    stats = learn(cases)
    fields = next(c["fields"] for c in cases if c["name"].startswith("r"))
    models = sorted({c["model"] for c in cases})
    choices = FIELDS["attention_backend"].choices
    backends: list[str | None] = [*choices, "cutlass_mla", None]
    tp_share = stats["share"]["--tp-size"] / stats["n"]
    rng = random.Random(args.seed)
    out = []
    for platform in sorted(SIMULATED):
        for model in models:
            for backend in backends:
                argv: list[str] = []
                if model.endswith("deepseek-v3"):
                    argv += ["--tp-size", "8"]
                elif rng.random() < tp_share:
                    argv += ["--tp-size", _pick(rng, stats["values"]["--tp-size"])]
                if backend is not None:
                    argv += ["--attention-backend", backend]
                case: dict[str, object] = {
                    "name": f"grid/{backend or 'none'}/{model.split('/')[-1]}/{platform}",
                    "platform": platform, "model": model, "argv": argv, "fields": fields}
                if backend is not None and backend not in choices:
                    case["args"] = {"tp_size": int(argv[1])} if argv[0] == "--tp-size" \
                        else {}
                    case["args"]["attention_backend"] = backend  # type: ignore[index]
                    del case["argv"]
                    case["name"] = f"grid/{backend}-fields/{model.split('/')[-1]}/{platform}"
                out.append(case)
    Path(args.out).write_text(json.dumps(out, indent=0) + "\n")
    print(f"wrote {len(out)} cases to {args.out}")


if __name__ == "__main__":
    main()
