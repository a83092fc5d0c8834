"""Generate ``tests/parity/data/draws-cases.json``: fresh draws in the public random cases' own
distribution.

The oracle's public cases hold 140 random launches (``r0000``..``r0139``); cases held out
from us are most likely drawn the same way. This draws new launches with the frequencies
those 140 show, learned from the file rather than written down here: the platform and model
(uniform over those seen), then each flag group with the share of cases that set it and its
values as often as they appear (tp, one attention backend or a prefill/decode pair, page size,
the per-phase CUDA-graph backends, ``--disable-cuda-graph``, KV dtype, memory fraction, chunk,
running limit), and speculation as a whole bundle copied from a random case of the same model
(a draft path only where that model's cases give one). Flags are written in the public
cases' order. A probe of fidelity beyond the cases we have, not a fit to them.

    python tests/parity/tools/gen_draws_cases.py [--count N] [--seed S] [OUT]
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

DATA = Path(__file__).parents[1] / "data"
PUBLIC = DATA / "public-cases.json"

#: Flag groups drawn independently (speculation and the attention choice are drawn apart).
GROUPS = ("--tp-size", "--page-size", "--cuda-graph-backend-prefill",
          "--cuda-graph-backend-decode", "--disable-cuda-graph", "--kv-cache-dtype",
          "--mem-fraction-static", "--chunked-prefill-size", "--max-running-requests")
_SPLIT = ("--prefill-attention-backend", "--decode-attention-backend")
_BARE = frozenset({"--disable-cuda-graph"})


def _pairs(argv: list[str]) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    i = 0
    while i < len(argv):
        flag = argv[i]
        if flag in _BARE:
            out.append((flag, None))
            i += 1
        else:
            out.append((flag, argv[i + 1]))
            i += 2
    return out


def learn(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """The random cases' frequencies: per group its share and value counts, the attention
    choice's shares, the speculative bundles per model, and the flags' order."""
    drawn = [c for c in cases if c["name"].startswith("r") and "argv" in c]
    share: Counter[str] = Counter()
    values: dict[str, Counter[str | None]] = {}
    attention: Counter[str] = Counter()
    single: Counter[str | None] = Counter()
    split: Counter[tuple[str | None, str | None]] = Counter()
    bundles: dict[str, list[list[str]]] = {}
    places: dict[str, list[float]] = {}
    for case in drawn:
        pairs = _pairs(case["argv"])
        given = dict(pairs)
        for at, (flag, _) in enumerate(pairs):
            places.setdefault(flag, []).append(at / len(pairs))
        for flag in GROUPS:
            if flag in given:
                share[flag] += 1
                values.setdefault(flag, Counter())[given[flag]] += 1
        if "--attention-backend" in given:
            attention["single"] += 1
            single[given["--attention-backend"]] += 1
        elif _SPLIT[0] in given:
            attention["split"] += 1
            split[(given[_SPLIT[0]], given.get(_SPLIT[1]))] += 1
        else:
            attention["none"] += 1
        spec = [part for flag, value in pairs if flag.startswith("--speculative")
                for part in ((flag,) if value is None else (flag, value))]
        bundles.setdefault(case["model"], []).append(spec)
    return {"n": len(drawn), "share": share, "values": values, "attention": attention,
            "single": single, "split": split, "bundles": bundles,
            "platforms": sorted({c["platform"] for c in drawn}),
            "models": sorted({c["model"] for c in drawn}),
            "order": {flag: sum(p) / len(p) for flag, p in places.items()}}


def _pick(rng: random.Random, counts: Counter[Any]) -> Any:
    keys = sorted(counts, key=repr)
    return rng.choices(keys, weights=[counts[k] for k in keys])[0]


def draw(stats: dict[str, Any], rng: random.Random) -> tuple[str, str, list[str]]:
    platform = rng.choice(stats["platforms"])
    model = rng.choice(stats["models"])
    chosen: list[tuple[str, str | None]] = []
    for flag in GROUPS:
        if rng.random() < stats["share"][flag] / stats["n"]:
            chosen.append((flag, _pick(rng, stats["values"][flag])))
    kind = _pick(rng, stats["attention"])
    if kind == "single":
        chosen.append(("--attention-backend", _pick(rng, stats["single"])))
    elif kind == "split":
        prefill, decode = _pick(rng, stats["split"])
        chosen.append((_SPLIT[0], prefill))
        if decode is not None:
            chosen.append((_SPLIT[1], decode))
    order = stats["order"]
    chosen.sort(key=lambda pair: order.get(pair[0], 1.0))
    argv = [part for flag, value in chosen
            for part in ((flag,) if value is None else (flag, value))]
    spec = rng.choice(stats["bundles"].get(model) or [[]])
    if spec:  # the public cases put speculation after the graph and KV flags
        at = next((i for i, a in enumerate(argv) if a in ("--mem-fraction-static",
                                                          "--chunked-prefill-size",
                                                          "--max-running-requests")),
                  len(argv))
        argv[at:at] = spec
    return platform, model, argv


def arguments(suite: str, count: int, seed: int) -> tuple[argparse.Namespace, dict[str, Any],
                                                         list[dict[str, Any]]]:
    """A draw generator's command line (``--count``, ``--seed``, the output file), the public
    cases' learned frequencies, and the public cases."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=count)
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("out", nargs="?", default=str(DATA / f"{suite}-cases.json"))
    cases = json.loads(PUBLIC.read_text())
    return parser.parse_args(), learn(cases), cases


def main() -> None:
    args, stats, cases = arguments("draws", 400, 20261203)
    fields = next(c["fields"] for c in cases if c["name"].startswith("r"))
    rng = random.Random(args.seed)
    out, seen = [], set()
    while len(out) < args.count:
        platform, model, argv = draw(stats, rng)
        key = (platform, model, tuple(argv))
        if key in seen:
            continue
        seen.add(key)
        out.append({"name": f"draws/{len(out)}", "platform": platform, "model": model,
                    "argv": argv, "fields": fields})
    Path(args.out).write_text(json.dumps(out, indent=0) + "\n")
    print(f"wrote {len(out)} cases to {args.out}")


if __name__ == "__main__":
    main()
