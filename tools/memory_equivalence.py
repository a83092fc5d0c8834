"""Dump the memory plan's JSON over a large set of launches, to compare two versions of
``launchplan.memory`` byte for byte (a speed change must not move a figure).

    PYTHONPATH=src python tools/memory_equivalence.py /tmp/before.json
    (change the code)
    PYTHONPATH=src python tools/memory_equivalence.py /tmp/after.json
    cmp /tmp/before.json /tmp/after.json

Every bundled model and shipped Hub config x ``TARGETS`` x ``FLAG_SETS`` (plus a few
environments), resolved from scratch. Each launch is planned twice: with every
launch-keyed memo cleared first (``memory.plan.forget``), and again with the memos as the
whole run left them; both plans' JSON (as ``resolve --format json`` prints under
"memory", steps included) must agree, and the file holds one of them per launch.
"""

from __future__ import annotations

import sys

from launchplan.commands.output import to_json
from launchplan.errors import LaunchplanError
from launchplan.facts.models import bundled_models
from launchplan.facts.models.snapshots import snapshot_folder, snapshot_ids
from launchplan.memory import plan as memory
from launchplan.planner import resolve

TARGETS = ("h100", "h200", "b200", "gb200", "mi300x", "mi355x", "h20", "l40s", "a100-40gb",
           "rtx-pro-6000")
FLAG_SETS: tuple[tuple[str, ...], ...] = (
    (),
    ("--tp-size", "2"),
    ("--tp-size", "4"),
    ("--tp-size", "8"),
    ("--tp-size", "8", "--ep-size", "8"),
    ("--tp-size", "8", "--enable-dp-attention", "--dp-size", "8"),
    ("--tp-size", "8", "--enable-dp-attention", "--dp-size", "4", "--enable-dp-lm-head",
     "--moe-dense-tp-size", "1", "--ep-size", "8", "--moe-a2a-backend", "deepep"),
    ("--tp-size", "4", "--kv-cache-dtype", "fp8_e4m3"),
    ("--tp-size", "8", "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
     "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"),
    ("--tp-size", "4", "--pp-size", "2"),
    ("--tp-size", "2", "--quantization", "fp8"),
    ("--tp-size", "2", "--max-total-tokens", "100000"),
    ("--tp-size", "4", "--mem-fraction-static", "0.7"),
    ("--tp-size", "2", "--context-length", "8192"),
    ("--tp-size", "4", "--disable-radix-cache", "--max-running-requests", "64",
     "--page-size", "64", "--kv-cache-dtype", "fp8_e5m2"),
    ("--tp-size", "8", "--dtype", "float16", "--ep-size", "4",
     "--ep-num-redundant-experts", "8"),
)
#: (target, flags index, environment): launches whose environment the sizing reads
ENVS = (("mi300x", 4, {"SGLANG_USE_AITER": "1"}),
        ("h100", 9, {"SGLANG_PP_LAYER_PARTITION": "30,31"}),
        ("b200", 0, {"SGLANG_VLM_CACHE_SIZE_MB": "500"}))


def _plan_json(argv: list[str], gpu: str, env: dict[str, str] | None,
               forget: bool) -> str:
    if forget:
        memory.forget()
    try:
        result = resolve(argv, gpu=gpu, env=env, incremental=False)
    except LaunchplanError as exc:
        return "ERR " + type(exc).__name__
    plan = memory.memory_plan(result)
    return to_json(plan.to_dict() if plan is not None else None)


def main(path: str) -> int:
    models = [*bundled_models(), *(str(snapshot_folder(h)) for h in snapshot_ids())]
    launches = [(m, g, i, None) for m in models for g in TARGETS
                for i in range(len(FLAG_SETS))]
    launches += [(m, g, i, env) for m in models for g, i, env in ENVS]
    out, differ = [], 0
    for model, gpu, i, env in launches:
        argv = ["--model-path", model, *FLAG_SETS[i]]
        fresh = _plan_json(argv, gpu, env, True)
        warm = _plan_json(argv, gpu, env, False)
        if fresh != warm:
            differ += 1
            print(f"memos change the plan: {model} {gpu} {' '.join(FLAG_SETS[i])} {env}")
        name = model.rstrip("/").rsplit("/", 1)[-1]
        out.append(f"{name} | {gpu} | {' '.join(FLAG_SETS[i])} | {env}\n{fresh}\n")
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(out)
    planned = sum(1 for line in out if "\nERR " not in line and "\nnull" not in line)
    print(f"{len(launches)} launches, {planned} planned, {differ} differ with memos warm")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
