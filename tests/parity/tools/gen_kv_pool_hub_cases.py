"""The ``kv-pool-hub`` cases: every shipped Hub config under a few launches that fit its GPU.

    PYTHONPATH=src python tests/parity/tools/gen_kv_pool_hub_cases.py
    /root/sglang-oracle/bin/python tests/parity/tools/record_kv_pool.py \\
        tests/parity/data/kv-pool-hub-cases.json --out tests/parity/data/results-kv-pool-hub.jsonl

The ``kv-pool`` suite (``gen_kv_pool_cases.py``) sizes only the shipped configs whose shape
nothing else covers, under nominal weight shares; this suite sizes every other shipped config
(``src/launchplan/facts/data/hub/``) as it would be launched: on H100, H200, B200 and MI300X,
each at the smallest TP (1/2/4/8, dividing the attention heads) whose share of the checkpoint
(launchplan's ``checkpoint_size``) leaves two fifths of the GPU, with that share as the weights'
bytes (a checkpoint no 8 GPUs hold: TP 8 on B200 and MI300X, weights a nominal share); the
auto and FP8 (e4m3) KV caches, TP 8 where the smallest TP is less, and the flags that move a
hybrid model's pool split (the state cache's ratio, cap and radix strategy; the SWA
ratio and its request-capped and disabled pools; MTP drafts; DeepSeek-V4's backends). Then
the kv-pool suite's own launches of its architecture models over the same configs, with
its nominal weight shares (``kv-hub-shares/...``).
"""
from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_kv_pool_cases import (  # noqa: E402
    MEM_MIB,
    MIB,
    ROOT,
    SHIPPED,
    SHIPPED_DIR,
    SHIPPED_NOT_SIZED,
    SHIPPED_PREFIX,
    _architecture_cases,
    _has_state,
    _hybrid_swa,
    _text,
    _tp_sizes,
)

OUT = os.path.join(os.path.dirname(HERE), "data", "kv-pool-hub-cases.json")
PLATFORMS = ("h100", "h200", "b200", "mi300x")
#: Shipped configs this suite leaves out, and why (besides those the kv-pool suite sizes).
NOT_SIZED: dict[str, str] = dict(SHIPPED_NOT_SIZED)
#: The weights' share of a GPU for a checkpoint no 8 GPUs hold (Kimi-K3, GLM-5 in BF16).
NOMINAL_SHARE = 0.6


def _checkpoint_bytes(folder: str) -> int:
    """What the checkpoint stores, by launchplan's own reading of its config."""
    from launchplan.facts.models.loading import load_model
    from launchplan.memory.weights import checkpoint_size

    return checkpoint_size(load_model(folder))[1]


def shipped_names() -> list[str]:
    """Every shipped config this suite sizes (the kv-pool suite's and the unloadable left out)."""
    folder = os.path.join(ROOT, SHIPPED_DIR)
    return [n for n in sorted(os.listdir(folder))
            if os.path.isfile(os.path.join(folder, n, "config.json"))
            and n not in SHIPPED and n not in NOT_SIZED]


def _smallest_tp(tps: list[int], weights: int, platform: str) -> int | None:
    room = (MEM_MIB[platform] - 1536) * MIB * 0.6
    return next((tp for tp in tps if weights / tp <= room), None)


def generate() -> list[dict]:
    cases: list[dict] = []
    for name in shipped_names():
        cases.extend(_launches(name))
    return cases + _nominal_cases()


def _launches(name: str) -> list[dict]:
    """One shipped config's launches at the TP its checkpoint needs on each GPU."""
    folder = os.path.join(ROOT, SHIPPED_DIR, name)
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    text = _text(config)
    tps = _tp_sizes(config)
    weights = _checkpoint_bytes(folder)
    archs = config.get("architectures") or ()
    fits = {p: _smallest_tp(tps, weights, p) for p in PLATFORMS}
    fits = {p: tp for p, tp in fits.items() if tp is not None}
    # too big for 8 GPUs of any kind: the widest TP, its weights a nominal share
    share = None if fits else NOMINAL_SHARE
    if not fits:
        fits = {"b200": tps[-1], "mi300x": tps[-1]}
    cases: list[dict] = []

    def add(detail, platform, tp, argv=(), env=None):
        before = (MEM_MIB[platform] - 1536) * MIB
        case = {"name": f"kv-hub/{name}/{platform}/{detail}", "platform": platform,
                "model": SHIPPED_PREFIX + name, "argv": ["--tp-size", tp, *argv],
                "before_load_bytes": before,
                "weights_bytes": int(weights / tp if share is None else before * share)}
        if env:
            case["env"] = env
        cases.append(case)

    for platform, tp in fits.items():
        add(f"auto/tp{tp}", platform, tp)
        if platform != "h200":
            add(f"fp8_e4m3/tp{tp}", platform, tp, ["--kv-cache-dtype", "fp8_e4m3"])
    # the widest TP once, on the biggest-memory NVIDIA GPU that fits the model
    wide = "b200" if "b200" in fits else next(iter(fits))
    if tps[-1] > fits[wide]:
        add(f"auto/tp{tps[-1]}", wide, tps[-1])
        add(f"fp8_e4m3/tp{tps[-1]}", wide, tps[-1], ["--kv-cache-dtype", "fp8_e4m3"])
    home = "h200" if "h200" in fits else wide
    tp = fits[home]
    if _has_state(config):
        for ratio in (0.5, 0.9):
            add(f"mamba-ratio{ratio}", home, tp, ["--mamba-full-memory-ratio", ratio])
        add("mamba-max-cache200", home, tp, ["--max-mamba-cache-size", 200])
        add("mamba-no-radix-mrr32", home, tp, ["--disable-radix-cache",
                                               "--max-running-requests", 32])
        add("mamba-extra_buffer", home, tp, ["--mamba-radix-cache-strategy", "extra_buffer"])
        add("more-mamba-extra_buffer-page64", home, tp, [
            "--mamba-radix-cache-strategy", "extra_buffer", "--page-size", 64])
        add("more-mamba-ratio0.5-mrr16", home, tp, ["--mamba-full-memory-ratio", 0.5,
                                                    "--max-running-requests", 16])
    swa = _hybrid_swa(config) or text.get("sliding_window") or text.get("compress_ratios") \
        or "Llama4ForConditionalGeneration" in archs
    if swa:
        for ratio in (0.1, 0.5):
            add(f"swa-ratio{ratio}", home, tp, ["--swa-full-tokens-ratio", ratio])
        add("swa-request-cap", home, tp, ["--disable-radix-cache",
                                          "--max-running-requests", 64])
        add("swa-disabled", home, tp, ["--disable-hybrid-swa-memory"])
        add("more-swa-ratio0.3-page64", home, tp, ["--swa-full-tokens-ratio", 0.3,
                                                   "--page-size", 64])
        add("more-swa-context8192", home, tp, ["--context-length", 8192])
    mtp = ["--speculative-algorithm", "EAGLE", "--speculative-num-steps", 1,
           "--speculative-eagle-topk", 1, "--speculative-num-draft-tokens", 2]
    if text.get("num_nextn_predict_layers"):  # (DeepSeek-V4's draft takes top-k 1 only)
        add("eagle-mtp", home, tp, mtp)
        add("more-eagle-mtp-fp8", home, tp, mtp + ["--kv-cache-dtype", "fp8_e4m3"])
    if text.get("compress_ratios") and "b200" in fits:  # DeepSeek-V4's compressed pools
        add("dsv4-trtllm", "b200", max(fits["b200"], 4), ["--dsv4-attn-backend", "trtllm"])
    # more of the launches people make, at the same TP
    add("more-page64", home, tp, ["--page-size", 64])
    add("more-context8192", home, tp, ["--context-length", 8192])
    add("more-mrr16", home, tp, ["--max-running-requests", 16])
    add("more-mem0.85", home, tp, ["--mem-fraction-static", 0.85])
    add("more-fp8_e5m2", home, tp, ["--kv-cache-dtype", "fp8_e5m2"])
    add("more-pd-decode", home, tp, ["--disaggregation-mode", "decode"])
    if tps[-1] >= 8:
        add("more-dp-attention", home, 8, ["--dp-size", 8, "--enable-dp-attention"])
        add("more-dp-attention-dp2", home, 8, ["--dp-size", 2, "--enable-dp-attention"])
    return cases


def _nominal_cases() -> list[dict]:
    """The kv-pool suite's launches of its architecture models (every KV dtype, TP, page,
    caps, short context, small and exhausted budgets, attention DP, MTP, state and SWA flags)
    over the same configs, with its nominal weight shares; named ``kv-hub-shares/...``."""
    configs = {}
    for name in shipped_names():
        with open(os.path.join(ROOT, SHIPPED_DIR, name, "config.json")) as f:
            configs[SHIPPED_PREFIX + name] = json.load(f)
    cases = _architecture_cases(configs)
    for case in cases:
        case["name"] = "kv-hub-shares/" + case["name"].split("/", 1)[1]
    return cases


if __name__ == "__main__":
    generated = generate()
    with open(OUT, "w") as f:
        json.dump(generated, f, indent=1)
        f.write("\n")
    print(f"{len(generated)} cases over {len({c['model'] for c in generated})} configs -> {OUT}",
          file=sys.stderr)
