"""Predicted vs published checkpoint sizes, and weights per GPU.

Run ``python benchmarks/weights_table.py``.
For every bundled model: the parameters launchplan counts from ``config.json``, the checkpoint
bytes it predicts (dtype, quantization and scales), the published size with the relative
difference (sources in ``src/launchplan/facts/data/published_weights.json``), and the weights
one GPU holds at a typical tensor-parallel size: the smallest of 1, 2, 4, 8, 16 whose share
fits in 60% of an 80 GiB GPU (for an EAGLE draft head: the draft's own share beside its
target on one GPU). ``--markdown`` prints the table for the README. Last, the cost
of ``weights_per_gpu`` next to a resolution (medians).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from launchplan.facts.models import bundled_models, load_model  # noqa: E402
from launchplan.memory.weights import (  # noqa: E402
    Parallel,
    checkpoint_size,
    plan_weights,
    published_sizes,
    weights_per_gpu,
)
from launchplan.planner import resolve  # noqa: E402

GB = 1e9
GiB = 2**30
BUDGET = 0.6 * 80 * GiB


def rows() -> list[dict]:
    published = published_sizes()
    out = []
    for name in sorted(bundled_models()):
        m = load_model(name)
        params, predicted = checkpoint_size(m)
        pub = published.get(name, {}).get("published_bytes")
        if "Eagle" in m.arch0:  # a draft head: its share next to its target, on one GPU
            tp, plan = 1, plan_weights(load_model("llama-3.1-8b"), draft=m)
            per_gpu = plan.draft_bytes_per_gpu
        else:
            tp = next((t for t in (1, 2, 4, 8, 16)
                       if plan_weights(m, Parallel(tp=t)).bytes_per_gpu <= BUDGET), 16)
            plan = plan_weights(m, Parallel(tp=tp))
            per_gpu = plan.bytes_per_gpu
        out.append({"name": name, "params": params, "predicted": predicted, "published": pub,
                    "delta": None if not pub else (predicted - pub) / pub, "tp": tp,
                    "per_gpu": per_gpu, "quant": plan.quantization or m.dtype})
    return out


def show(table: list[dict], markdown: bool) -> None:
    head = ["model", "params", "stored as", "predicted GB", "published GB", "diff",
            "tp", "weights/GPU GiB"]
    lines = []
    for r in table:
        pub = f"{r['published'] / GB:.2f}" if r["published"] else "not found"
        diff = f"{r['delta'] * 100:+.3f}%" if r["delta"] is not None else "-"
        lines.append([r["name"], f"{r['params'] / 1e9:.2f}B", r["quant"],
                      f"{r['predicted'] / GB:.2f}", pub, diff, str(r["tp"]),
                      f"{r['per_gpu'] / GiB:.2f}"])
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|")
        for line in lines:
            print("| " + " | ".join(line) + " |")
        return
    widths = [max(len(x[i]) for x in [head, *lines]) for i in range(len(head))]
    for line in [head, ["-" * w for w in widths], *lines]:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(line, widths))))
    checked = [r for r in table if r["delta"] is not None]
    worst = max(checked, key=lambda r: abs(r["delta"]))
    print(f"\n{len(checked)} of {len(table)} models have a published size; all within 2%: "
          f"{all(abs(r['delta']) <= 0.02 for r in checked)} (largest difference "
          f"{worst['delta'] * 100:+.3f}%, {worst['name']})")


def timing() -> None:
    argv = ["--tp-size", "8", "--speculative-algorithm", "EAGLE"]
    res, wts = [], []
    for _ in range(30):
        t0 = time.perf_counter()
        r = resolve(argv, gpu="b200", model_path="deepseek-v3")
        t1 = time.perf_counter()
        weights_per_gpu(r)
        t2 = time.perf_counter()
        res.append(t1 - t0)
        wts.append(t2 - t1)
    print(f"\ndeepseek-v3 tp8 + MTP on b200: resolve {statistics.median(res) * 1e3:.2f} ms, "
          f"weights_per_gpu {statistics.median(wts) * 1e3:.3f} ms (median of 30; the first "
          f"weights call builds the tensor list: {wts[0] * 1e3:.2f} ms)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    show(rows(), args.markdown)
    if not args.markdown:
        timing()


if __name__ == "__main__":
    main()
