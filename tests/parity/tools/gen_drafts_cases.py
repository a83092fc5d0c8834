"""Generate ``tests/parity/data/drafts-cases.json``: DFLASH and DSPARK launches with the
published draft configs the KV-pool suite sizes, resolved by SGLang for every field.

    PYTHONPATH=src:. python tests/parity/tools/gen_drafts_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py drafts --jobs 1 --timeout 120
    ~/sglang-oracle-0.5.22/bin/python tests/parity/tools/record_suite.py drafts --release 0.5.22 ...

No earlier suite paired a DFLASH-family draft config with its target: their lines named no
draft, or one the oracle's older venvs could not load. The draft loader imports einops and
partial_json_parser, and the launch path openai (with sniffio), none of which ``requirements-
oracle.txt`` lists: a freshly built venv answers most of these lines with a ModuleNotFoundError
until they are installed into it (``pip install --no-deps einops partial_json_parser openai
sniffio``). The drafts are SpecForge's published configs (``tests/parity/models``: Qwen3-4B/8B
DFlash-b16, a Qwen3.5-35B-A3B DFlash draft, a Qwen3-8B DSpark draft, an MLA DFlash draft of
DeepSeek-V2-Lite), each on the targets it was trained for, over the target catalog: TP and
attention DP (with and without the DP LM head), KV dtypes and the draft's own, target and draft
attention backends, page sizes, draft-token and block sizes, request and graph limits, the
Mamba cache strategy, mixed chunks, the dtype. Seeded and frozen; the aimed lines come first:
Qwen3.5 on SM10x with DFLASH, where 0.5.21-0.5.22's default backend (no trtllm_mha for a top-k
DFLASH has not set yet) gives triton with page 1. DeepSeek-V4's DSpark checkpoints (their
drafter is their own ``mtp.*`` stages) close the suite.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from tests.parity.tools.gen_wild8_cases import every_field

OUT = Path(__file__).resolve().parents[1] / "data" / "drafts-cases.json"
SEED = 51206
COUNT = 120
#: (algorithm, draft folder, the targets it was trained for)
DRAFTS = (
    ("DFLASH", "qwen3-8b-dflash-b16", ("models/qwen3-8b", "models/qwen3-14b", "models/qwen3-32b")),
    ("DFLASH", "qwen3-4b-dflash-b16", ("models/qwen3-4b", "models/qwen3-30b-a3b",
                                       "models/qwen3-8b")),
    ("DFLASH", "qwen3.5-35b-a3b-dflash", ("parity-models/qwen3.5-35b-a3b",
                                          "parity-models/qwen3.6-35b-a3b")),
    ("DSPARK", "qwen3-8b-dspark", ("models/qwen3-8b", "models/qwen3-14b")),
    ("DFLASH", "deepseek-v2-lite-dflash", ("models/deepseek-v2-lite",)),
)
PLATFORMS = ("h100", "h200", "b200", "gb200", "b300", "mi300x", "mi355x", "rtx5090", "a100",
             "l40s", "h20")


def _draft(algorithm: str, folder: str) -> list[str]:
    return ["--speculative-algorithm", algorithm, "--speculative-draft-model-path",
            "parity-models/" + folder]


#: (platform, model, argv): Qwen3.5 with DFLASH on SM10x, and the others near it
AIMED = (
    ("b200", "parity-models/qwen3.5-35b-a3b",
     _draft("DFLASH", "qwen3.5-35b-a3b-dflash") + ["--kv-cache-dtype", "fp8_e4m3"]),
    ("b200", "parity-models/qwen3.5-35b-a3b", _draft("DFLASH", "qwen3.5-35b-a3b-dflash")),
    ("b200", "parity-models/qwen3.5-35b-a3b",
     _draft("DFLASH", "qwen3.5-35b-a3b-dflash") + ["--disable-radix-cache"]),
    ("b200", "parity-models/qwen3.5-35b-a3b", ["--speculative-algorithm", "EAGLE",
                                               "--kv-cache-dtype", "fp8_e4m3"]),
    ("b200", "models/qwen3-8b", _draft("DFLASH", "qwen3-8b-dflash-b16")),
    ("h100", "models/qwen3-8b", _draft("DFLASH", "qwen3-8b-dflash-b16")
     + ["--kv-cache-dtype", "fp8_e4m3"]),
    ("b200", "models/qwen3-8b", _draft("DSPARK", "qwen3-8b-dspark")),
    ("b200", "models/deepseek-v2-lite", _draft("DFLASH", "deepseek-v2-lite-dflash")),
)


#: (platform, model, argv): DeepSeek-V4's DSpark checkpoints, whose drafter is their own
#: ``mtp.*`` stages (no draft path), appended after the draw
_V4_FLASH, _V4_PRO = ("parity-models/deepseek-v4-flash-dspark",
                      "parity-models/deepseek-v4-pro-dspark")
_V4 = ["--speculative-algorithm", "DSPARK"]
V4_DSPARK = (
    ("b200", _V4_FLASH, ["--tp", "4", *_V4]),
    ("h200", _V4_FLASH, ["--tp", "8", *_V4]),
    ("gb200", _V4_FLASH, ["--tp", "4", *_V4, "--max-running-requests", "64"]),
    ("b300", _V4_PRO, ["--tp", "8", *_V4]),
    ("h200", _V4_PRO, ["--tp", "8", *_V4, "--enable-dp-attention", "--dp", "8",
                       "--enable-dp-lm-head"]),
    ("mi355x", _V4_FLASH, ["--tp", "8", *_V4]),
    ("b200", _V4_FLASH, ["--tp", "4", *_V4, "--speculative-num-draft-tokens", "6"]),
    ("b200", _V4_FLASH, ["--tp", "4", *_V4, "--speculative-dspark-block-size", "5"]),
    ("h100", _V4_FLASH, ["--tp", "8", *_V4, "--page-size", "64"]),
    ("b200", _V4_FLASH, ["--tp", "4", *_V4, "--disaggregation-mode", "decode"]),
    ("b200", _V4_FLASH, ["--tp", "4", *_V4, "--cuda-graph-max-bs-decode", "32"]),
    ("b200", _V4_FLASH, ["--tp", "4", *_V4, "--moe-runner-backend", "flashinfer_trtllm"]),
    # refused alike: attention DP without the DP LM head; draft tokens off the block size + 1
    ("h200", _V4_FLASH, ["--tp", "8", *_V4, "--enable-dp-attention", "--dp", "8"]),
    ("b200", _V4_FLASH, ["--tp", "4", *_V4, "--speculative-num-draft-tokens", "4"]),
)


def _line(rng: random.Random) -> tuple[str, str, list[str]]:
    algorithm, folder, targets = rng.choice(DRAFTS)
    argv = _draft(algorithm, folder)

    def maybe(p: float, *tokens: str) -> None:
        if rng.random() < p:
            argv.extend(tokens)

    maybe(0.4, "--tp", rng.choice(["1", "2", "4", "8"]))
    maybe(0.3, "--kv-cache-dtype", rng.choice(["auto", "fp8_e4m3", "bf16", "fp8_e5m2"]))
    maybe(0.3, "--speculative-draft-attention-backend",
          rng.choice(["fa4", "fa3", "flashinfer", "triton", "trtllm_mha"]))
    maybe(0.3, "--attention-backend",
          rng.choice(["fa3", "fa4", "flashinfer", "triton", "trtllm_mha", "aiter"]))
    maybe(0.2, "--speculative-draft-kv-cache-dtype", rng.choice(["fp8_e4m3", "bf16", "auto"]))
    maybe(0.25, "--page-size", rng.choice(["1", "16", "64", "128"]))
    maybe(0.2, "--speculative-num-draft-tokens", rng.choice(["4", "8", "16", "17"]))
    if rng.random() < 0.15:
        argv += (["--speculative-dflash-block-size", rng.choice(["8", "16"])]
                 if algorithm == "DFLASH" else
                 ["--speculative-dspark-block-size", rng.choice(["7", "15"])])
    if rng.random() < 0.2:
        argv += ["--tp", "4", "--dp", "2", "--enable-dp-attention"]
        maybe(0.7, "--enable-dp-lm-head")
    maybe(0.2, "--disable-radix-cache")
    maybe(0.15, "--max-running-requests", rng.choice(["8", "64", "256"]))
    maybe(0.15, "--cuda-graph-max-bs-decode", rng.choice(["8", "64", "256"]))
    maybe(0.1, "--disable-cuda-graph")
    maybe(0.1, "--mamba-radix-cache-strategy", rng.choice(["extra_buffer", "no_buffer"]))
    maybe(0.1, "--enable-mixed-chunk")
    maybe(0.1, "--dtype", rng.choice(["float16", "bfloat16"]))
    # the platform is drawn after the flags: the frozen draw keeps its order
    return rng.choice(PLATFORMS), rng.choice(targets), argv


def generate(seed: int = SEED, count: int = COUNT, name: str = "drafts") -> list[dict]:
    rng = random.Random(seed)
    fields = every_field()
    lines = [(p, m, list(a)) for p, m, a in AIMED] if name == "drafts" else []
    while len(lines) < count + (len(AIMED) if name == "drafts" else 0):
        lines.append(_line(rng))
    if name == "drafts":
        lines += [(p, m, list(a)) for p, m, a in V4_DSPARK]
    return [{"name": f"{name}/{i}", "platform": p, "model": m, "argv": a, "fields": fields}
            for i, (p, m, a) in enumerate(lines)]


if __name__ == "__main__":
    if "--probe" in sys.argv:
        seed = int(sys.argv[sys.argv.index("--probe") + 1])
        cases = generate(seed, COUNT, "probe")
        OUT.with_name("probe-cases.json").write_text(json.dumps(cases))
    else:
        cases = generate()
        OUT.write_text(json.dumps(cases))
    print(f"{len(cases)} cases", file=sys.stderr)
