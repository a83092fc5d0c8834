"""Generate ``tests/parity/data/wild-cases.json``: command lines as people write them.

    PYTHONPATH=src:. python tests/parity/tools/gen_wild_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py wild --jobs 2

The ``random`` suite samples ``check``'s default space (backend x page x graphs x KV dtype x
tp x EAGLE); this one goes past it. Each case is a realistic base (a TP width, sometimes an
attention backend, speculative decoding, quantization, attention DP, expert parallelism, a
chunk, a memory fraction, a running limit, a context length, a page size, a KV dtype, radix
and mixed-chunk switches, HiCache, LoRA, multimodal switches...) on every simulated target
and every bundled model, plus 1-6 flags drawn at random from the whole flag surface the rules
read or trigger on (``random_line`` of ``tests/engine/test_skipping_parity.py``: valid
choices, small numbers, plausible words). Seeded: rerunning writes the same file.

Fields compared: every field a rule writes (as the coverage and reach suites), plus the
fields the case's own flags set. Left out: path-valued fields (the oracle answers absolute
folders where launchplan keeps the bundled name), and fields that name files or hosts the
oracle's simulation cannot open.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from launchplan.facts.models import bundled_models
from launchplan.input.fields import FIELDS
from tests.engine.test_skipping_parity import _rule_fields, random_line
from tests.parity.tools.gen_coverage_cases import fields as written_fields

DATA = Path(__file__).parents[1] / "data"
SEED = 20261201
COUNT = 300
PLATFORMS = ("a100", "h100", "h200", "b200", "gb200", "b300", "rtx5090", "mi300x", "mi355x")
DRAFTS = ("llama-3.1-8b-eagle", "llama-3.1-8b-eagle3")
# flags a wild line never draws at random: the model itself, files the simulation has no
# copy of, and switches that make SGLang reach out to a network, a process or a device
NEVER = {"model_path", "config", "tokenizer_path", "speculative_draft_model_path",
         "lora_paths", "uno_lora_path", "speculative_adaptive_config", "json_model_override_args",
         "speculative_ngram_external_corpus_path", "debug_tensor_dump_output_folder",
         "served_model_name", "device", "load_format", "revision", "download_dir",
         "model_loader_extra_config", "host", "port", "nnodes", "node_rank", "dist_init_addr"}
# compared fields the two sides spell differently (see gen_coverage_cases.SKIP)
NOT_COMPARED = {"tokenizer_path", "served_model_name", "speculative_draft_model_path",
                "model_path", "lora_paths"}
BACKENDS = ("flashinfer", "fa3", "fa4", "triton", "trtllm_mha", "trtllm_mla", "flashmla",
            "cutedsl_mla", "aiter", "torch_native", "flex_attention", "wave")
QUANT = ("fp8", "w8a8_fp8", "modelopt_fp4", "modelopt_fp8", "awq", "gptq", "mxfp4",
         "w8a8_int8", "compressed-tensors", "bitsandbytes", "mxfp8")
KV = ("fp8_e4m3", "fp8_e5m2", "bf16", "bfloat16", "auto", "nvfp4", "mxfp8", "fp4_mx_block16")


def gpus(platform: str) -> int:
    return {"gb200": 4, "rtx5090": 1}.get(platform, 8)


def base(rng: random.Random, platform: str, model: str) -> list[str]:
    """A plausible launch: a TP width and a handful of the flags people really pass."""
    argv: list[str] = []
    widths = [w for w in (1, 2, 4, 8) if w <= gpus(platform)]
    tp = rng.choice(widths) if rng.random() < 0.9 else rng.choice((2, 4, 8))
    if tp > 1 or rng.random() < 0.2:
        argv += [rng.choice(("--tp-size", "--tp", "--tensor-parallel-size")), str(tp)]
    p = rng.random
    if p() < 0.35:  # mostly one the platform has, sometimes any
        usual = (("aiter", "triton", "wave") if platform.startswith("mi")
                 else ("flashinfer", "fa3", "fa4", "triton", "trtllm_mha", "flashmla"))
        argv += ["--attention-backend", rng.choice(usual if p() < 0.7 else BACKENDS)]
    elif p() < 0.1:
        argv += ["--prefill-attention-backend", rng.choice(BACKENDS),
                 "--decode-attention-backend", rng.choice(BACKENDS)]
    if p() < 0.2:
        argv += speculative(rng, model)
    if p() < 0.15:
        argv += ["--quantization", rng.choice(QUANT)]
    if p() < 0.25:
        argv += ["--kv-cache-dtype", rng.choice(KV)]
    if tp > 1 and p() < 0.2:
        dp = rng.choice([d for d in (2, 4, 8) if d <= tp] or [tp])
        argv += (["--enable-dp-attention", "--dp-size", str(dp)] if p() < 0.5
                 else ["--attn-dp-size", str(dp)])
    if p() < 0.15:
        argv += ["--ep-size", str(rng.choice((1, 2, tp, 8)))]
        if p() < 0.5:
            argv += ["--moe-a2a-backend", rng.choice(("deepep", "none", "mooncake", "flashinfer"))]
    if p() < 0.1:
        argv += ["--moe-runner-backend", rng.choice(FIELDS["moe_runner_backend"].choices)]
    if p() < 0.25:
        argv += ["--chunked-prefill-size", rng.choice(("2048", "4096", "8192", "16384", "-1"))]
    if p() < 0.25:
        argv += ["--mem-fraction-static", rng.choice(("0.7", "0.8", "0.85", "0.88", "0.9"))]
    if p() < 0.2:
        argv += ["--max-running-requests", rng.choice(("16", "64", "128", "256", "1024"))]
    if p() < 0.15:
        argv += ["--context-length", rng.choice(("4096", "8192", "32768", "131072"))]
    if p() < 0.15:
        argv += ["--page-size", rng.choice(("1", "16", "32", "64", "128"))]
    if p() < 0.15:
        argv += ["--disable-radix-cache"]
    if p() < 0.1:
        argv += ["--enable-mixed-chunk"]
    if p() < 0.1:
        argv += ["--enable-hierarchical-cache"]
        if p() < 0.5:
            argv += ["--hicache-ratio", rng.choice(("1.5", "2", "3"))]
        if p() < 0.5:
            argv += ["--hicache-mem-layout", rng.choice(FIELDS["hicache_mem_layout"].choices)]
    if p() < 0.08:
        argv += ["--enable-lora", "--max-lora-rank", rng.choice(("8", "16", "64"))]
        if p() < 0.5:
            argv += ["--lora-target-modules", "all"]
    if p() < 0.08:
        argv += ["--enable-multimodal"]
        if p() < 0.5:
            argv += ["--mm-attention-backend", rng.choice(FIELDS["mm_attention_backend"].choices)]
    if p() < 0.1:
        argv += [rng.choice(("--disable-cuda-graph", "--enable-torch-compile",
                             "--disable-overlap-schedule", "--enable-two-batch-overlap",
                             "--enable-deterministic-inference", "--enable-eplb"))]
    if p() < 0.1:
        # the bare prefix is ambiguous in 0.5.23 (decode or prefill): bad input, sometimes
        flag = rng.choice(("--cuda-graph-max-bs-decode",) * 4 + ("--cuda-graph-max-bs",))
        argv += [flag, rng.choice(("8", "32", "160", "512"))]
    if p() < 0.05:
        argv += ["--dtype", rng.choice(("bfloat16", "float16", "half", "auto"))]
    return argv


def speculative(rng: random.Random, model: str) -> list[str]:
    algo = rng.choice(("EAGLE", "EAGLE3", "NEXTN", "NGRAM", "STANDALONE"))
    argv = ["--speculative-algorithm", algo]
    if algo in ("EAGLE", "EAGLE3") and model == "llama-3.1-8b":
        draft = DRAFTS[0] if algo == "EAGLE" else DRAFTS[1]
        argv += ["--speculative-draft-model-path", f"models/{draft}"]
    elif algo == "STANDALONE":
        argv += ["--speculative-draft-model-path", "models/llama-3.1-8b"]
    if rng.random() < 0.5 and algo != "NGRAM":
        steps = rng.choice((1, 2, 3, 5))
        topk = rng.choice((1, 1, 4))
        argv += ["--speculative-num-steps", str(steps), "--speculative-eagle-topk", str(topk),
                 "--speculative-num-draft-tokens", str(rng.choice((steps + 1, 8)))]
    return argv


def wild(rng: random.Random, triggers: list[str], reads: list[str]) -> list[str]:
    """1-6 flags from the whole surface, those pointing at files or hosts left out."""
    for _ in range(50):
        argv = random_line(rng, [t for t in triggers if t not in NEVER],
                           [r for r in reads if r not in NEVER])
        names = flag_fields(argv)
        if not names & NEVER:
            return argv
    return []


FLAG_NAMES = {flag: name for name, spec in FIELDS.items() for flag in spec.flags}


def flag_fields(argv: list[str]) -> set[str]:
    return {FLAG_NAMES[a] for a in argv if a in FLAG_NAMES}


def main() -> None:
    rng = random.Random(SEED)
    triggers, reads = _rule_fields()
    compared = [f for f in written_fields() if f not in NOT_COMPARED]
    models = sorted(m for m in bundled_models() if m not in DRAFTS)
    cases: list[dict] = []
    for i in range(COUNT):
        platform = PLATFORMS[i % len(PLATFORMS)]
        model = models[rng.randrange(len(models))]
        argv = base(rng, platform, model)
        if rng.random() < 0.6:
            argv += wild(rng, triggers, reads)
        own = sorted(f for f in flag_fields(argv) - NOT_COMPARED - NEVER
                     if f not in compared and not f.startswith("_"))
        cases.append({"name": f"wild/{i}", "platform": platform, "model": f"models/{model}",
                      "argv": argv, "fields": compared + own})
    out = DATA / "wild-cases.json"
    out.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print(f"wild: wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
