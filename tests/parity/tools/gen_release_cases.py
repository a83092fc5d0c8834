"""Generate ``tests/parity/data/release-cases.json``: cases aimed at what changed between releases.

Each case exercises one difference found by diffing the wheels' ``srt/arg_groups/`` (0.5.21,
0.5.22, 0.5.23; ``../shared/spec/versions.md``), with a neighbour that should not move. The
oracle records them on every release and on ``--rules main``::

    cd /work/shared/oracle
    for v in 0.5.21 0.5.22; do
      /root/sglang-oracle-$v/bin/python sglang_oracle.py \\
        /work/wt-releases/tests/parity/data/release-cases.json \\
        --out /work/wt-releases/tests/parity/data/results-release-$v.jsonl --jobs 2
    done   # 0.5.21 also wants PYTHONPATH=<dir with transformers 5.12.1>
    /root/sglang-oracle/bin/python sglang_oracle.py .../release-cases.json \\
        --out .../results-release-0.5.23.jsonl --jobs 2       # and --rules main -> -main

Usage: ``python tests/parity/tools/gen_release_cases.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from oracle_common import PLAN_FIELDS

OUT = Path(__file__).resolve().parents[1] / "data" / "release-cases.json"
FIELDS = PLAN_FIELDS + ["enable_dp_attention", "disable_radix_cache", "enable_tf32_matmul",
          "enable_fused_qk_norm_rope", "speculative_attention_mode"]
DSV3 = "models/deepseek-v3"
LLAMA = "models/llama-3.1-8b"
DRAFT = ["--speculative-draft-model-path", "models/llama-3.1-8b-eagle"]
EAGLE_MTP = ["--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
             "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"]

CASES: list[tuple[str, str, str, list[str]]] = [
    # MLA prefill graph max_bs: 2048 flat before 0.5.23, min(8192, chunk) after
    ("mla-prefill/dsv3/b200/tp8", "b200", DSV3, ["--tp-size", "8"]),
    ("mla-prefill/dsv3/b200/chunk1024", "b200", DSV3, ["--tp-size", "8",
                                                        "--chunked-prefill-size", "1024"]),
    ("mla-prefill/dsv3/h200/chunk4096", "h200", DSV3, ["--tp-size", "8",
                                                        "--chunked-prefill-size", "4096"]),
    ("mla-prefill/dsv2lite/h100", "h100", "models/deepseek-v2-lite", []),
    ("mla-prefill/dsv3/b200/maxbs-pinned", "b200", DSV3, [
        "--tp-size", "8", "--cuda-graph-config", '{"prefill": {"max_bs": 512}}']),
    # decode max_bs capped at an explicit max_running_requests from 0.5.22 on
    ("decode-cap/llama/h100/mrr64", "h100", LLAMA, ["--max-running-requests", "64"]),
    ("decode-cap/llama/b200/mrr1000", "b200", LLAMA, ["--max-running-requests", "1000"]),
    ("decode-cap/qwen3/h200/mrr32-pinned", "h200", "models/qwen3-8b", [
        "--max-running-requests", "32", "--cuda-graph-max-bs", "128"]),
    # DFLASH on SM100: trtllm_mha page 64 from 0.5.23, flashinfer before; draft fallback fa4
    ("dflash/llama/b200/default", "b200", LLAMA, ["--speculative-algorithm", "DFLASH", *DRAFT]),
    ("dflash/llama/b200/trtllm", "b200", LLAMA, ["--speculative-algorithm", "DFLASH", *DRAFT,
                                                 "--attention-backend", "trtllm_mha"]),
    ("dflash/llama/h100/default", "h100", LLAMA, ["--speculative-algorithm", "DFLASH", *DRAFT]),
    ("dflash/llama/b300/default", "b300", LLAMA, ["--speculative-algorithm", "DFLASH", *DRAFT]),
    # rejection sampling with deterministic inference: refused before 0.5.23 on CUDA too
    ("rejection/llama/h100/deterministic", "h100", LLAMA, [
        "--speculative-algorithm", "EAGLE", *DRAFT, "--speculative-num-steps", "3",
        "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
        "--speculative-use-rejection-sampling", "--enable-deterministic-inference"]),
    ("rejection/llama/h100/plain", "h100", LLAMA, [
        "--speculative-algorithm", "EAGLE", *DRAFT, "--speculative-num-steps", "3",
        "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
        "--speculative-use-rejection-sampling"]),
    # tokenspeed_mla: a backend of its own before 0.5.23, an alias of cutedsl_mla after
    ("tokenspeed/dsv3/b200/base", "b200", DSV3, ["--tp-size", "8",
                                                  "--attention-backend", "tokenspeed_mla"]),
    ("tokenspeed/dsv3/b200/base-fp8", "b200", DSV3, [
        "--tp-size", "8", "--attention-backend", "tokenspeed_mla",
        "--kv-cache-dtype", "fp8_e4m3"]),
    ("tokenspeed/dsv3/b200/decode-fp8-page16", "b200", DSV3, [
        "--tp-size", "8", "--decode-attention-backend", "tokenspeed_mla",
        "--kv-cache-dtype", "fp8_e4m3", "--page-size", "16"]),
    ("tokenspeed/dsv3/h200/base-fp8", "h200", DSV3, [
        "--tp-size", "8", "--attention-backend", "tokenspeed_mla",
        "--kv-cache-dtype", "fp8_e4m3"]),
    ("tokenspeed/dsv3/b200/mtp-fp8", "b200", DSV3, [
        "--tp-size", "8", "--attention-backend", "tokenspeed_mla",
        "--kv-cache-dtype", "fp8_e4m3", *EAGLE_MTP]),
    # dp attention: the old spelling is the only one in 0.5.21
    ("dp-attention/dsv3/h200/legacy", "h200", DSV3, ["--tp-size", "8", "--dp-size", "8",
                                                      "--enable-dp-attention"]),
    ("dp-attention/dsv3/b200/legacy-dp4", "b200", DSV3, ["--tp-size", "8", "--dp-size", "4",
                                                          "--enable-dp-attention"]),
    ("dp-attention/dsv3/h200/attn-dp-size", "h200", DSV3, ["--tp-size", "8",
                                                            "--attn-dp-size", "8"]),
    # prefill context parallelism: the graph hook came in 0.5.23
    ("prefill-cp/llama/b200/zigzag-trtllm", "b200", LLAMA, [
        "--tp-size", "2", "--enable-prefill-cp", "--attn-cp-size", "2", "--cp-strategy",
        "zigzag", "--attention-backend", "trtllm_mha"]),
    ("prefill-cp/llama/b200/zigzag-default", "b200", LLAMA, [
        "--tp-size", "2", "--enable-prefill-cp", "--attn-cp-size", "2", "--cp-strategy",
        "zigzag"]),
    # defaults that moved (False -> None) and flags that came or went
    ("defaults/qwen3/b200/plain", "b200", "models/qwen3-8b", []),
    ("flags/llama/h100/tf32-off", "h100", LLAMA, ["--no-enable-tf32-matmul"]),
    ("flags/llama/h100/paged-experts", "h100", LLAMA, ["--enable-paged-experts"]),
    ("flags/llama/h100/hicache-alias", "h100", LLAMA, ["--enable-hicache"]),
    ("flags/llama/h100/skip-dp-mlp-sync", "h100", LLAMA, ["--speculative-skip-dp-mlp-sync"]),
    ("flags/llama/h100/lora-triton-runner", "h100", "models/qwen3-30b-a3b", [
        "--moe-runner-backend", "lora_triton"]),
    ("flags/llama/h100/tc-compiler", "h100", LLAMA, ["--cuda-graph-tc-compiler", "eager"]),
    # the model-config parser: 0.5.23 looks it up when it first reads the config (before the
    # SSL checks), the releases before it when the model config is built (after them)
    ("config-parser/llama/h100/unknown", "h100", LLAMA, ["--model-config-parser", "x"]),
    ("config-parser/llama/h100/with-ssl-keyfile", "h100", LLAMA, [
        "--ssl-keyfile", "key.pem", "--model-config-parser", "x"]),
]


def main() -> None:
    cases = [{"name": f"release/{name}", "platform": gpu, "model": model, "argv": argv,
              "fields": FIELDS} for name, gpu, model, argv in CASES]
    OUT.write_text(json.dumps(cases, indent=1) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
