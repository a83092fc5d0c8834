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

Usage: ``python tests/parity/tools/gen_release_cases.py``; new cases are recorded alone with
``tools/record_suite.py release --missing`` (and ``--release X`` for each older release).
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


# Differences between the releases found later, each with the fields it moves and the
# environment it needs: (name, gpu, model, argv, extra fields, env).
MORE_FIELDS = ["disaggregation_decode_extra_slots", "dsa_prefill_backend", "dsa_decode_backend",
               "dsv4_attn_backend", "enable_decoder_swa_bounded_replay",
               "cuda_graph_config.prefill.max_seq_len", "flashinfer_allreduce_fusion_backend",
               "moe_a2a_backend", "attn_cp_size", "attn_dp_size"]
KIMI_K3 = "parity-models/kimi-k3-synth"
V41 = "parity-models/deepseek-v4.1-synth"
MORE: list[tuple[str, str, str, list[str], dict[str, str]]] = [
    # KV-cache sharding: 0.5.22 keeps the Rust radix tree core (which it refuses) and refuses
    # HiCache with it (0.5.23 picks the Python core and keeps host offload)
    ("kv-shard/dsv3/b200/plain", "b200", DSV3, [
        "--tp-size", "8", "--disaggregation-mode", "prefill", "--enable-kv-cache-sharding",
        "--page-size", "64"], {}),
    ("kv-shard/dsv3/b200/hicache", "b200", DSV3, [
        "--tp-size", "8", "--disaggregation-mode", "prefill", "--enable-kv-cache-sharding",
        "--page-size", "64", "--enable-hierarchical-cache"], {}),
    ("kv-shard/dsv3/b200/hicache-python-core", "b200", DSV3, [
        "--tp-size", "8", "--disaggregation-mode", "prefill", "--enable-kv-cache-sharding",
        "--page-size", "64", "--enable-hierarchical-cache"],
     {"SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND": "python"}),
    # MegaMoE's decode bound: capped by the running requests per DP rank from 0.5.23 on
    ("megamoe-budget/qwen3moe/h100/mrr64", "h100", "models/qwen3-30b-a3b", [
        "--tp-size", "8", "--moe-a2a-backend", "megamoe", "--max-running-requests", "64",
        "--cuda-graph-max-bs-decode", "9000"], {}),
    # Nemotron-H expert remapping: the routed runner and its checks came in 0.5.23
    ("nemotron/b200/eplb", "b200", "parity-models/nemotron-h-synth", [
        "--tp-size", "4", "--ep-size", "4", "--enable-eplb"], {}),
    # Kimi-K3 decode CP on tokenspeed_mla: its own pair before 0.5.23, cutedsl_mla after
    ("kimi-k3/b200/tokenspeed-dcp", "b200", KIMI_K3, [
        "--tp-size", "8", "--dcp-size", "2", "--decode-attention-backend", "tokenspeed_mla"],
     {}),
    # a sidecar under the Rust server: refused by 0.5.22 alone
    ("grpc/llama/h100/sidecar-rust", "h100", LLAMA, [
        "--sidecar", "python -m sidecar", "--grpc-port", "30001"], {"SGLANG_RUST_SERVER": "1"}),
    # watermark among the preferred sampling parameters: refused from 0.5.22 (watermarking)
    ("watermark/llama/h100/preferred", "h100", LLAMA, [
        "--preferred-sampling-params", '{"temperature": 0.5, "watermark": true}'], {}),
    # PD decode extra slots with fewer requests than DP ranks
    ("pd-decode/llama/h100/extra-slots", "h100", LLAMA, [
        "--disaggregation-mode", "decode", "--max-running-requests", "2", "--dp-size", "4"],
     {}),
    # DSA decode CP: trtllm DSA backends from 0.5.22
    ("dsa-dcp/dsv32/b200/dcp2", "b200", "parity-models/deepseek-v3.2-exp", [
        "--tp-size", "8", "--dcp-size", "2"], {}),
    # DeepSeek-V4.1: the 16k prefill graph cap and no default decoder replay before 0.5.23
    ("dsv41/b200/tp8", "b200", V41, ["--tp-size", "8"], {}),
    ("dsv41/b200/kv-fp8-attn-dp", "b200", V41, [
        "--tp-size", "8", "--attn-dp-size", "8", "--kv-cache-dtype", "fp8_e4m3"], {}),
    ("dsv41/mi300x/prefill-cp", "mi300x", V41, ["--tp-size", "8", "--enable-prefill-cp"], {}),
    ("dsv41/mi300x/prefill-cp-interleave", "mi300x", V41, [
        "--tp-size", "8", "--enable-prefill-cp", "--cp-strategy", "interleave"], {}),
    # MiniMax-M3 VL: an encoder-split model from 0.5.23
    ("encoder-split/minimax-m3/h100", "h100", "parity-models/minimax-m3-synth", [
        "--tp-size", "8", "--encoder-only"], {}),
    # decode CP with prefill CP: refused from 0.5.22 on, 0.5.21 only wants the CP strategy
    ("dcp-prefill-cp/llama/h100/zigzag", "h100", LLAMA, [
        "--tp-size", "2", "--dcp-size", "2", "--enable-prefill-cp", "--cp-strategy", "zigzag"],
     {}),
    ("dcp-prefill-cp/dsv3/b200/attn-cp-interleave", "b200", DSV3, [
        "--tp-size", "8", "--dcp-size", "2", "--attn-cp-size", "2", "--enable-prefill-cp",
        "--cp-strategy", "interleave"], {}),
    ("dcp-prefill-cp/dsv3/h200/no-strategy", "h200", DSV3, [
        "--tp-size", "8", "--dcp-size", "4", "--enable-prefill-cp"], {}),
    # 0.5.23 reads the config for every launch before the decode-CP checks (the Muse Spark
    # environment step): a remote-code checkpoint without --trust-remote-code is refused
    # there; 0.5.21/0.5.22 meet the decode-CP check first (probe line w10d/63)
    ("remote-code/moss-vl/mi300x/dcp-0", "mi300x", "parity-models/moss-vl-synth", [
        "--dcp-size", "0"], {}),
    ("remote-code/moss-vl/h100/dcp-0-trusted", "h100", "parity-models/moss-vl-synth", [
        "--dcp-size", "0", "--trust-remote-code"], {}),
]


# 0.5.21's --enable-dp-attention with one DP group: on as given until its data-parallelism
# defaults clear it, so every rule before them reads it (0.5.22 on clears it at once). One
# case per such reader: the graph reserve (and its x 1.5 above max_bs 300), FlashInfer and
# aiter all-reduce fusion, the tc_piecewise graph, the PD role switch, model refusals, and the
# context-parallel layouts that turn the switch on themselves.
DP_ONE_FIELDS = ["enable_dp_lm_head", "schedule_conservativeness",
                 "flashinfer_allreduce_fusion_backend", "enable_aiter_allreduce_fusion",
                 "moe_a2a_backend", "ep_size", "moe_dense_tp_size", "attn_cp_size",
                 "enable_decoder_swa_bounded_replay"]
DP_ONE = ["--enable-dp-attention"]
QWEN3_MOE = "models/qwen3-30b-a3b"
V41_MODEL = "parity-models/deepseek-v4.1-synth"
DP_ONE_CASES: list[tuple[str, str, str, list[str]]] = [
    ("dp-attention-one/llama/h100/tp8", "h100", LLAMA, ["--tp-size", "8", *DP_ONE]),
    ("dp-attention-one/llama/h100/maxbs512", "h100", LLAMA, [
        "--tp-size", "2", *DP_ONE, "--cuda-graph-max-bs-decode", "512"]),
    ("dp-attention-one/qwen3moe/b200/dp1", "b200", QWEN3_MOE, [
        "--tp-size", "4", "--dp-size", "1", *DP_ONE]),
    ("dp-attention-one/dsv3/b200/deepep", "b200", DSV3, [
        "--tp-size", "8", *DP_ONE, "--moe-a2a-backend", "deepep"]),
    ("dp-attention-one/dsv3/h200/mtp", "h200", DSV3, ["--tp-size", "8", *DP_ONE, *EAGLE_MTP]),
    ("dp-attention-one/dsv3/h200/pd-decode", "h200", DSV3, [
        "--tp-size", "8", *DP_ONE, "--disaggregation-mode", "decode"]),
    ("dp-attention-one/llama/h100/role-switch", "h100", LLAMA, [
        *DP_ONE, "--disaggregation-mode", "prefill", "--enable-pd-role-switch"]),
    ("dp-attention-one/minimax-m3/h100/tp8", "h100", "parity-models/minimax-m3-synth", [
        "--tp-size", "8", *DP_ONE]),
    ("dp-attention-one/minicpm-sala/h100", "h100", "parity-models/minicpm-sala-synth",
     DP_ONE),
    ("dp-attention-one/iquest-q1/h100", "h100", "parity-models/iquest-q1-synth", DP_ONE),
    ("dp-attention-one/glm-dsa/mi300x/tp8", "mi300x", "parity-models/glm-moe-dsa-synth", [
        "--tp-size", "8", *DP_ONE]),
    ("dp-attention-one/dsv41/b200/decoder-replay", "b200", V41_MODEL, [
        "--tp-size", "8", *DP_ONE, "--enable-decoder-swa-bounded-replay",
        "--cuda-graph-backend-prefill", "disabled"]),
    # the context-parallel layouts that turn 0.5.21's switch on (no --enable-dp-attention)
    ("dp-attention-one/dsv4/b200/prefill-cp", "b200", "parity-models/deepseek-v4-synth", [
        "--tp-size", "8", "--enable-prefill-cp", "--cp-strategy", "interleave"]),
    ("dp-attention-one/glm-dsa/h200/prefill-cp", "h200", "parity-models/glm-moe-dsa-synth", [
        "--tp-size", "8", "--enable-prefill-cp", "--cp-strategy", "interleave"]),
]


def main() -> None:
    cases = [{"name": f"release/{name}", "platform": gpu, "model": model, "argv": argv,
              "fields": FIELDS} for name, gpu, model, argv in CASES]
    for name, gpu, model, argv, env in MORE:
        case = {"name": f"release/{name}", "platform": gpu, "model": model, "argv": argv,
                "fields": FIELDS + MORE_FIELDS}
        if env:
            case["env"] = env
        cases.append(case)
    cases += [{"name": f"release/{name}", "platform": gpu, "model": model, "argv": argv,
               "fields": FIELDS + DP_ONE_FIELDS} for name, gpu, model, argv in DP_ONE_CASES]
    OUT.write_text(json.dumps(cases, indent=1) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
