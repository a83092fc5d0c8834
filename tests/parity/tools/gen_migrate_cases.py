"""Generate ``tests/parity/data/migrate-cases.json``: old launch lines, migrated to 0.5.23.

    PYTHONPATH=src:. python tests/parity/tools/gen_migrate_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py migrate --jobs 1

Each ``migrate/<i>`` case starts from a realistic base (``gen_wild_cases.base``) plus one or
two groups of flags from older SGLang releases (0.3.0 to 0.5.20, the retired flags of
``input/migrations.py`` with the values tutorials and issues pass them), and stores the line
``launchplan migrate --to 0.5.23`` prints: the oracle then says whether real 0.5.23 accepts
the migrated line and how it resolves it. ``old`` keeps the line as pasted. Every group is
used at least once (line i takes group i first). Then pairs of a line 0.5.21 reads whose
flags or values later releases retired (``migrate/old/<k>``, recorded on 0.5.21 too) and its
migration (``migrate/new/<k>``): the two answers say whether the plan really changed, which
``migrate --from 0.5.21`` must tell (``tests/parity/test_migrate_from.py``). Seeded and
frozen.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
from collections.abc import Callable

from tests.parity.oracle_cases import _local
from tests.parity.tools import gen_release2_cases as release2
from tests.parity.tools import gen_wild3_cases as wild3
from tests.parity.tools import gen_wild_cases as wild

from launchplan.commands.main import main as launchplan
from launchplan.input.migrations import rewrite

SEED = 5023
COUNT = 60
DSA = "parity-models/deepseek-v3.2-exp"
HYBRID = "parity-models/qwen3-next-synth"
Group = Callable[[random.Random], list[str]]


def _pick(*options: str) -> Callable[[random.Random], str]:
    return lambda rng: rng.choice(options)


# (old flags, a model they need or None): the retired flags as old lines pass them
GROUPS: list[tuple[Group, str | None]] = [
    (lambda r: ["--enable-ep-moe"], None),
    (lambda r: ["--enable-deepep-moe", "--deepep-mode", _pick("auto", "low_latency")(r)], None),
    (lambda r: [_pick("--enable-flashinfer-moe", "--enable-flashinfer-cutlass-moe",
                      "--enable-flashinfer-trtllm-moe", "--enable-triton-kernel-moe",
                      "--enable-flashinfer-mxfp4-moe", "--enable-flashinfer-cutedsl-moe")(r)],
     None),
    (lambda r: ["--disable-flashinfer"], None),
    (lambda r: ["--disable-flashinfer-sampling"], None),
    (lambda r: [_pick("--enable-flashinfer-mla", "--enable-flashmla")(r)], None),
    (lambda r: ["--cuda-graph-max-bs", _pick("32", "64", "160", "256")(r)], None),
    (lambda r: ["--cuda-graph-bs", *_pick("1 2 4 8 16", "1 2 4 8 16 32 64", "8 16")(r).split()],
     None),
    (lambda r: [_pick("--enable-overlap-schedule", "--disable-jump-forward",
                      "--disable-nan-detection", "--enable-nan-detection")(r)], None),
    (lambda r: ["--disable-disk-cache"], None),
    (lambda r: ["--disable-mla"], None),
    (lambda r: ["--n-share-experts-fusion", _pick("8", "16")(r)], None),
    (lambda r: ["--impl", _pick("transformers", "sglang")(r)], None),
    (lambda r: ["--enable-double-sparsity", "--ds-heavy-channel-num", "16",
                "--ds-heavy-channel-type", "k", "--ds-channel-config-path", "/cfg/ds.json"],
     None),
    (lambda r: ["--torchao-config", _pick("int8wo", "int4wo-128", "fp8wo")(r)], None),
    (lambda r: [_pick("--stream-output", "--collect-tokens-histogram",
                      "--enable-expert-distribution-metrics")(r)], None),
    (lambda r: ["--enable-piecewise-cuda-graph", "--piecewise-cuda-graph-max-tokens",
                _pick("2048", "4096", "8192")(r)], None),
    (lambda r: ["--piecewise-cuda-graph-tokens", "64", "128", "256", "512"], None),
    (lambda r: [_pick("--disable-piecewise-cuda-graph", "--enforce-piecewise-cuda-graph",
                      "--enable-breakable-cuda-graph")(r)], None),
    (lambda r: ["--piecewise-cuda-graph-compiler", _pick("eager", "inductor")(r)], None),
    (lambda r: ["--mamba-scheduler-strategy", _pick("no_buffer", "extra_buffer")(r)], HYBRID),
    (lambda r: ["--nsa-prefill-backend", _pick("flashmla_sparse", "tilelang")(r),
                "--nsa-decode-backend", _pick("flashmla_kv", "fa3")(r)], DSA),
    (lambda r: ["--hybrid-kvcache-ratio", _pick("0.5", "0.8")(r)], None),
    (lambda r: ["--speculative-algorithm", "NGRAM", "--speculative-ngram-branch-length",
                _pick("12", "18")(r), "--speculative-ngram-min-match-window-size", "1"], None),
    (lambda r: [_pick("--keep-mm-feature-on-device", "--elastic-ep-rejoin",
                      "--prefill-round-robin-balance", "--disable-overlap-cg-plan")(r)], None),
    (lambda r: ["--file-storage-pth", "/tmp/sgl_storage"], None),
    (lambda r: ["--oltp-traces-endpoint", "localhost:4317"], None),
    (lambda r: ["--load-watch-interval", "0.1", "--max-micro-batch-size", "8"], None),
    (lambda r: ["--enable-dp-attention", "--dp", _pick("2", "4", "8")(r)], None),
    (lambda r: ["--speculative-skip-dp-mlp-sync"], None),
    (lambda r: ["--cuda-graph-tc-compiler", _pick("eager", "inductor")(r)], None),
]


def migrated(platform: str, model: str, old: list[str]) -> list[str] | None:
    """The line ``launchplan migrate --to 0.5.23`` prints (its argv, model paths as the
    oracle names them), None if it refuses it as bad input."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = launchplan(["migrate", "--to", "0.5.23", "--gpu", platform, "--model-path",
                           _local(model), *map(_local, old), "--format", "json"])
    if code == 2:
        return None
    new = rewrite(old, "0.5.23")[0]
    assert list(map(_local, new)) == json.loads(out.getvalue())["argv"]
    return new


def draw(rng: random.Random, compared: list[str]) -> list[dict]:
    pool = [m for m in release2.models() if m.startswith("models/")]
    cases: list[dict] = []
    i = 0
    while len(cases) < COUNT and i < 10 * COUNT:
        platform = wild.PLATFORMS[i % len(wild.PLATFORMS)]
        first = GROUPS[i % len(GROUPS)]
        groups = [first] + ([rng.choice(GROUPS)] if rng.random() < 0.4 else [])
        model = next((m for _, m in groups if m), None) or pool[rng.randrange(len(pool))]
        old = wild.base(rng, platform, model.split("/", 1)[1])
        for group, _ in groups:
            old += group(rng)
        i += 1
        new = migrated(platform, model, old)
        if new is None:  # launchplan refuses the migrated line as bad input: draw another
            print("refused:", platform, model, *old)
            continue
        cases.append({"name": f"migrate/{len(cases)}", "platform": platform, "model": model,
                      "argv": new, "old": old,
                      "fields": compared + wild3.own_fields(new, compared)})
    return cases


# lines 0.5.21 still reads whose flags or values later releases retired: their plan on 0.5.21
# against the migrated line's on 0.5.23 checks what `migrate --from 0.5.21` says
FROM_GROUPS: list[tuple[Group, str | None]] = [
    (lambda r: ["--cuda-graph-tc-compiler", _pick("eager", "inductor")(r)], None),
    (lambda r: ["--cuda-graph-backend-prefill", "tc_piecewise", "--cuda-graph-tc-compiler",
                _pick("eager", "inductor")(r)], None),
    (lambda r: ["--cuda-graph-backend-decode", "tc_piecewise"], None),
    (lambda r: ["--cuda-graph-config", json.dumps(
        {"prefill": {"backend": "tc_piecewise", "tc_compiler": _pick("eager", "inductor")(r),
                     "max_bs": int(_pick("16", "64")(r))}})], None),
    (lambda r: ["--enable-dp-attention", "--dp", _pick("2", "4", "8")(r)], "models/deepseek-v3"),
    (lambda r: ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path",
                "models/llama-3.1-8b-eagle", "--enable-dp-attention", "--dp", "2",
                "--speculative-skip-dp-mlp-sync"], "models/llama-3.1-8b"),
]
FROM_COUNT = 18


def draw_from(rng: random.Random, compared: list[str]) -> list[dict]:
    """``migrate/old/<k>`` (the line as 0.5.21 read it) and ``migrate/new/<k>`` (migrated)."""
    pool = [m for m in release2.models() if m.startswith("models/")]
    cases: list[dict] = []
    for k in range(FROM_COUNT):
        platform = wild.PLATFORMS[k % len(wild.PLATFORMS)]
        group, need = FROM_GROUPS[k % len(FROM_GROUPS)]
        for _ in range(40):
            model = need or pool[rng.randrange(len(pool))]
            old = wild.base(rng, platform, model.split("/", 1)[1]) + group(rng)
            if release2.fits(old, "0.5.21") and migrated(platform, model, old) is not None:
                break
        new = rewrite(old, "0.5.23")[0]
        fields = compared + wild3.own_fields(old + new, compared)
        cases.append({"name": f"migrate/old/{k}", "platform": platform, "model": model,
                      "argv": old, "migrated": new, "fields": fields})
        cases.append({"name": f"migrate/new/{k}", "platform": platform, "model": model,
                      "argv": new, "old": old, "fields": fields})
    return cases


def main() -> None:
    _, _, compared = wild.pool(False)
    compared = compared + [f for f in release2.RELEASE_FIELDS if f not in compared]
    cases = draw(random.Random(SEED), compared)
    cases += draw_from(random.Random(SEED + 1), compared)
    out = wild.DATA / "migrate-cases.json"
    out.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print(f"migrate: wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
