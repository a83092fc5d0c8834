"""Generate ``tests/parity/data/refusals-cases.json``: launches aimed at SGLang's refusals that
no recorded case had met.

    PYTHONPATH=src:. python tests/parity/tools/gen_refusals_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py refusals --jobs 1 --timeout 120

Each line below was written for one refusal of SGLang 0.5.23's resolution or of its launcher
check (the suite is recorded through ``launcher_oracle.py``), counted unmet over every
recorded ``results-*.jsonl``: a plausible command line of a real user (backends x targets,
quantization x hardware, speculative decoding x parallelism, PD disaggregation, LoRA, HiCache,
attention DP, PP, multimodal serving, deterministic inference, watermarking, gRPC serving, ...)
that runs into it on a suitable model and target. Whatever SGLang answers is recorded; a line
SGLang accepts is still compared field by field.

The seeded part moves each line to another target of the same kind (the family its refusal
depends on: Hopper, Blackwell, ROCm or any CUDA GPU), so the draw is not tied to one GPU.
"""

from __future__ import annotations

import random
import shlex

from tests.parity.tools import gen_wild3_cases as wild3
from tests.parity.tools import gen_wild5_cases as wild5

SEED = 2323

# target family -> the simulated targets that belong to it
FAMILIES: dict[str, tuple[str, ...]] = {
    "cuda": ("a100", "h100", "h200", "b200", "b300"),
    "hopper": ("h100", "h200"),
    "blackwell": ("b200", "b300", "gb200"),
    "rocm": ("mi300x", "mi355x"),
    "cdna4": ("mi355x",),
    "sm80": ("a100",),
    "rtx": ("rtx5090",),
}

L8 = "models/llama-3.1-8b"
K26 = "parity-models/kimi-k2.6-nvfp4"
Q3 = "models/qwen3-8b"
DS3 = "models/deepseek-v3"
DSL = "models/deepseek-v2-lite"
MOE = "models/qwen3-30b-a3b"
OSS = "models/gpt-oss-20b"
VL = "models/qwen2.5-vl-7b"
NEXT = "parity-models/qwen3-next-synth"
NEMO = "parity-models/nemotron-3-nano-30b-a3b"
DSA = "parity-models/deepseek-v3.2"
K3 = "parity-models/kimi-k3-synth"
M3 = "parity-models/minimax-m3-synth"
IQ = "parity-models/iquest-q1-synth"
IQMTP = "parity-models/iquest-q1-mtp-synth"
MUSE = "parity-models/muse-spark-synth"
MIMO = "parity-models/mimo-v2-flash"
Q4X = "parity-models/qwen4-exp-synth"
SALA = "parity-models/minicpm-sala-synth"
HYV = "parity-models/deepseek-v4-flash"
V41 = "parity-models/deepseek-v4.1-synth"
GLMDSA = "parity-models/glm-moe-dsa-synth"
MOBIUS = "parity-models/interns2-mobius-synth"
EAGLE = "models/llama-3.1-8b-eagle"
EAGLE3 = "models/llama-3.1-8b-eagle3"
G5N = "parity-models/glm5-next-synth"
DSV3_FP4 = "shipped/nvidia--DeepSeek-V3-0324-NVFP4"
Q36_FP4 = "shipped/nvidia--Qwen3.6-35B-A3B-NVFP4"
LONGCAT = "parity-models/longcat-flash-chat"
# FlyDSL MegaMoE with a decode capacity of its own (below the 8192-token default)
FLYDSL = {"SGLANG_AMD_USE_FLYDSL_MEGA_MOE": "1", "SGLANG_AMD_FLYDSL_MEGA_MOE_DECODE_MTPR": "512"}
WM = "--enable-watermark --watermark-config"
PD_P = "--disaggregation-mode prefill"
PD_D = "--disaggregation-mode decode"
# a prefill-only embedding server without a KV cache
PO = "--is-embedding --prefill-only-disable-kv-cache --chunked-prefill-size -1"
# KV cache sharding, which runs on PD prefill workers only
KVS8 = f"--tp-size 8 {PD_P} --enable-kv-cache-sharding"
# Muse Spark's layer-norm sequence parallelism as its deployment runs it (NVFP4, TP8/EP8)
LNSP = ("--tp-size 8 --ep-size 8 --enable-layernorm-sp --quantization modelopt_fp4 "
        "--moe-a2a-backend flashinfer --moe-runner-backend flashinfer_trtllm")
LNSP4 = LNSP.replace("8", "4")
MEGA_SP = ("--tp-size 8 --ep-size 8 --enable-layernorm-sp --enable-megamoe-for-layernorm-sp "
           "--moe-runner-backend flashinfer_trtllm")
REPLAY = "--tp-size 8 --enable-encoder-swa-bounded-replay"
UNO = "--speculative-algorithm UNO --uno-lora-path /tmp/uno --speculative-num-draft-tokens 4"

# (tag, family, model, command line, environment): one per aimed refusal
LINES: tuple[tuple[str, str, str, str, dict[str, str]], ...] = (
    # watermarking (launcher check)
    ("watermark/config-alone", "cuda", L8, '--watermark-config {"key":"abc"}', {}),
    ("watermark/window", "cuda", L8, WM + ' {"key":"abc","context_window":128}', {}),
    ("watermark/window-zero", "cuda", L8, WM + ' {"key":"abc","context_window":0}', {}),
    ("watermark/mixing", "cuda", L8,
     WM + ' {"key":"abc","key_b":"def","mixing_probability":1.0}', {}),
    ("watermark/mixing-no-b", "cuda", L8, WM + ' {"key":"abc","mixing_probability":0.3}', {}),
    ("watermark/key-b-alone", "cuda", L8, WM + ' {"key_b":"def"}', {}),
    ("watermark/max-prob", "cuda", L8, WM + ' {"key":"abc","max_probability":1.5}', {}),
    ("watermark/enforce", "cuda", L8, WM + ' {"enforce_all":true}', {}),
    ("watermark/default-enabled", "cuda", L8, WM + ' {"default_enabled":true}', {}),
    ("watermark/logit-processor", "cuda", L8, "--enable-watermark "
     "--enable-custom-logit-processor", {}),
    ("watermark/pd", "cuda", L8, f"--enable-watermark {PD_P}", {}),
    ("watermark/dflash", "cuda", Q3, "--enable-watermark --speculative-algorithm DFLASH "
     "--speculative-draft-model-path " + Q3, {}),
    ("watermark/standalone", "cuda", L8, "--enable-watermark --speculative-algorithm "
     "STANDALONE --speculative-draft-model-path models/llama-3.2-1b", {}),
    ("watermark/pp-eagle", "cuda", L8, "--enable-watermark --pp-size 2 "
     "--speculative-algorithm EAGLE --speculative-draft-model-path " + EAGLE, {}),
    ("watermark/rejection", "cuda", L8, "--enable-watermark --speculative-algorithm EAGLE "
     "--speculative-draft-model-path " + EAGLE + " --speculative-eagle-topk 1 "
     "--speculative-use-rejection-sampling", {}),
    ("watermark/rust-server", "cuda", L8, "--enable-watermark", {"SGLANG_RUST_SERVER": "1"}),
    ("watermark/ngram-ok", "cuda", L8, "--enable-watermark --speculative-algorithm NGRAM", {}),
    ("watermark/rocm", "rocm", L8, WM + ' {"key":"abc"}', {}),
    # LoRA
    ("lora/max-loras-zero", "cuda", L8, "--enable-lora --max-lora-rank 16 "
     "--lora-target-modules all --max-loras-per-batch 0", {}),
    ("lora/drain-negative", "cuda", L8, "--enable-lora --max-lora-rank 16 "
     "--lora-target-modules all --lora-drain-wait-threshold -1", {}),
    ("lora/moe-runner-no-lora", "cuda", MOE, "--moe-runner-backend lora_triton", {}),
    ("lora/moe-runner-backend", "cuda", MOE, "--enable-lora --max-lora-rank 16 "
     "--lora-target-modules all --moe-runner-backend lora_triton --lora-backend csgmv", {}),
    ("lora/moe-runner-quant", "hopper", MOE, "--enable-lora "
     "--max-lora-rank 16 --lora-target-modules all --moe-runner-backend lora_triton "
     "--lora-backend triton_v2 --quantization w8a8_int8", {}),
    ("lora/moe-runner-a2a", "hopper", MOE, "--enable-lora --max-lora-rank 16 "
     "--lora-target-modules all --moe-runner-backend lora_triton --lora-backend triton_v2 "
     "--tp-size 4 --ep-size 4 --moe-a2a-backend deepep", {}),
    ("lora/moe-runner-eplb", "hopper", MOE, "--enable-lora --max-lora-rank 16 "
     "--lora-target-modules all --moe-runner-backend lora_triton --lora-backend triton_v2 "
     "--tp-size 4 --ep-size 4 --enable-eplb", {}),
    ("lora/moe-runner-redundant", "hopper", MOE, "--enable-lora --max-lora-rank 16 "
     "--lora-target-modules all --moe-runner-backend lora_triton --lora-backend triton_v2 "
     "--tp-size 4 --ep-size 4 --ep-num-redundant-experts 8", {}),
    ("lora/spec-moe-runner", "hopper", MOE, "--speculative-algorithm EAGLE3 "
     "--speculative-draft-model-path " + EAGLE3 + " --speculative-moe-runner-backend "
     "lora_triton", {}),
    ("lora/eagle-overlap-plan-stream", "cuda", L8, "--enable-lora --max-lora-rank 16 "
     "--lora-target-modules all --speculative-algorithm EAGLE --speculative-draft-model-path "
     + EAGLE, {"SGLANG_ENABLE_OVERLAP_PLAN_STREAM": "1"}),
    ("lora/paths-bad-json", "cuda", L8, '--enable-lora --lora-paths {"lora_name":"a"}', {}),
    ("lora/chunk-size", "cuda", L8, "--enable-lora --max-lora-rank 16 "
     "--lora-target-modules all --lora-backend csgmv --max-lora-chunk-size 16", {}),
    # Mamba / hybrid models
    ("mamba/philox", "cuda", NEXT, "--mamba-cache-philox-rounds -1", {}),
    ("mamba/max-states-zero", "cuda", NEXT, "--mamba-max-states-per-path 0", {}),
    ("mamba/max-states-neg", "cuda", NEXT, "--mamba-max-states-per-path -5", {}),
    ("mamba/sr-dtype", "cuda", NEXT, "--enable-mamba-cache-stochastic-rounding", {}),
    ("mamba/sr-rocm", "rocm", NEXT, "--enable-mamba-cache-stochastic-rounding "
     "--mamba-ssm-dtype float16", {}),
    ("mamba/sr-hopper-triton", "hopper", NEXT, "--enable-mamba-cache-stochastic-rounding "
     "--mamba-ssm-dtype float16 --mamba-backend triton", {}),
    ("mamba/sr-blackwell", "blackwell", NEXT, "--enable-mamba-cache-stochastic-rounding "
     "--mamba-ssm-dtype float16", {}),
    ("mamba/no-buffer-trtllm", "blackwell", NEXT, "--mamba-radix-cache-strategy no_buffer "
     "--attention-backend trtllm_mha", {}),
    ("mamba/lazy-pd", "hopper", NEXT, f"--mamba-radix-cache-strategy extra_buffer_lazy {PD_P}",
     {}),
    ("mamba/extra-buffer-rocm", "rocm", NEXT, "--mamba-radix-cache-strategy extra_buffer", {}),
    ("mamba/linear-fi-cuda12", "blackwell", NEXT, "--linear-attn-prefill-backend flashinfer",
     {"__cuda": "12.9"}),
    ("mamba/page-major-decode", "hopper", NEXT, "--enable-unified-memory "
     "--enable-page-major-kv-layout --linear-attn-decode-backend cutedsl", {}),
    ("mamba/page-major-flashinfer", "hopper", NEXT, "--enable-unified-memory "
     "--enable-page-major-kv-layout --mamba-backend flashinfer", {}),
    ("mamba/nemotron-no-buffer-trtllm", "blackwell", NEMO,
     "--mamba-radix-cache-strategy no_buffer --attention-backend trtllm_mha "
     "--disable-overlap-schedule", {}),
    # HiCache / HiSparse / LMCache
    ("hicache/host-mode", "cuda", L8, "--enable-hierarchical-cache --hicache-host-memory-mode "
     "bogus", {}),
    ("hicache/buffer-only-size", "cuda", L8, "--enable-hierarchical-cache "
     "--hicache-host-memory-mode buffer_only --hicache-ratio 0", {}),
    ("hicache/lmcache-dp", "hopper", DS3, "--tp-size 8 --enable-lmcache --attn-dp-size 8", {}),
    ("hicache/lmcache-dcp", "hopper", DS3, "--tp-size 8 --enable-lmcache --dcp-size 2", {}),
    ("hicache/lmcache-streaming", "cuda", L8, "--enable-lmcache --enable-streaming-session",
     {}),
    ("hisparse/kv-dtype", "hopper", DSA, "--tp-size 8 --enable-hisparse --kv-cache-dtype "
     "fp8_e5m2", {}),
    ("hisparse/topk", "hopper", DSA, "--tp-size 8 --enable-hisparse --speculative-algorithm "
     "EAGLE --speculative-eagle-topk 2 --speculative-num-steps 3 "
     "--speculative-num-draft-tokens 6", {}),
    ("hisparse/adaptive", "hopper", DSA, "--tp-size 8 --enable-hisparse "
     "--disable-radix-cache --speculative-algorithm EAGLE --speculative-adaptive", {}),
    ("hisparse/dcp", "hopper", DSA, "--tp-size 8 --enable-hisparse --dcp-size 2", {}),
    ("hisparse/rocm-unified", "rocm", DSA, "--tp-size 8 --enable-hisparse --disable-radix-cache",
     {"SGLANG_HACK_FLASHMLA_BACKEND": "unified"}),
    ("hisparse/pd-radix", "hopper", DSA, f"--tp-size 8 --enable-hisparse {PD_D} "
     "--disaggregation-decode-enable-radix-cache", {}),
    # unified memory / page-major layout
    ("unified/tbo", "hopper", DS3, "--tp-size 8 --enable-unified-memory "
     "--enable-two-batch-overlap --moe-a2a-backend deepep", {}),
    ("unified/lmcache", "cuda", L8, "--enable-unified-memory --enable-lmcache", {}),
    ("unified/eagle-hicache", "cuda", L8, "--enable-unified-memory --speculative-algorithm "
     "EAGLE --speculative-draft-model-path " + EAGLE
     + " --speculative-eagle-topk 1 --enable-hierarchical-cache", {}),
    ("unified/eagle-backup", "cuda", L8, f"--enable-unified-memory {PD_D} "
     "--speculative-algorithm EAGLE --speculative-draft-model-path " + EAGLE
     + " --speculative-eagle-topk 1 --disaggregation-decode-retraction-backup host_pool", {}),
    ("unified/dcp-gqa", "hopper", L8, "--tp-size 8 --enable-unified-memory --dcp-size 2", {}),
    ("unified/dcp-pd", "hopper", DS3, f"--tp-size 8 --enable-unified-memory --dcp-size 2 "
     f"{PD_D}", {}),
    ("unified/pd-hisparse", "hopper", DSA, f"--tp-size 8 --enable-unified-memory {PD_D} "
     "--enable-hisparse", {}),
    ("unified/offload-mamba", "hopper", NEXT, f"--enable-unified-memory {PD_D} "
     "--disaggregation-decode-enable-offload-kvcache", {}),
    # prefill-only without a KV cache
    ("prefill-only/nvfp4", "blackwell", L8, PO + " "
     "--kv-cache-dtype nvfp4", {}),
    ("prefill-only/attn-cp", "hopper", L8, PO + " --tp-size 4 "
     "--attn-cp-size 2", {}),
    ("prefill-only/prefill-cp", "hopper", DSA, PO + " --tp-size 8 "
     "--enable-prefill-cp", {}),
    ("prefill-only/hisparse", "hopper", DSA, PO + " --tp-size 8 "
     "--enable-hisparse", {}),
    # radix eviction
    ("radix/tlru-config", "cuda", L8, "--radix-eviction-policy tlru "
     '--radix-eviction-policy-config {"threshold":-1}', {}),
    # KV cache sharding
    ("kvshard/trtllm-mla-gqa", "blackwell", L8, KVS8 + " "
     "--attention-backend trtllm_mla", {}),
    ("kvshard/trtllm-mla-cp", "blackwell", DS3, KVS8 + " "
     "--attention-backend trtllm_mla --attn-cp-size 2", {}),
    ("kvshard/chunked-prefix", "blackwell", DS3, KVS8 + " "
     "--attention-backend trtllm_mla --disable-chunked-prefix-cache", {}),
    ("kvshard/spec", "hopper", DS3, KVS8 + " "
     "--speculative-algorithm EAGLE", {}),
    ("kvshard/lmcache", "hopper", DS3, KVS8 + " "
     "--enable-lmcache", {}),
    ("kvshard/hisparse", "hopper", DSA, KVS8 + " "
     "--enable-hisparse", {}),
    ("kvshard/tbo", "hopper", DS3, KVS8 + " "
     "--enable-two-batch-overlap --moe-a2a-backend deepep", {}),
    ("kvshard/unified", "hopper", DS3, KVS8 + " "
     "--enable-unified-memory", {}),
    ("kvshard/dcp", "hopper", DS3, KVS8 + " --dcp-size 2", {}),
    ("kvshard/flexkv", "hopper", DS3, KVS8 + " "
     "--enable-flexkv", {}),
    ("kvshard/session", "hopper", DS3, KVS8 + " "
     "--enable-streaming-session", {}),
    ("kvshard/transfer", "hopper", DS3, KVS8 + " "
     "--disaggregation-transfer-backend mori", {}),
    ("kvshard/page-size", "hopper", DS3, KVS8 + " "
     "--page-size 1", {}),
    ("kvshard/chunked-off", "hopper", DS3, KVS8 + " "
     "--chunked-prefill-size -1", {}),
    ("kvshard/gqa", "hopper", L8, KVS8, {}),
    ("kvshard/mla-dp", "hopper", DS3, KVS8 + " "
     "--attn-dp-size 8", {}),
    ("kvshard/radix-off", "hopper", DS3, KVS8 + " "
     "--disable-radix-cache", {}),
    ("kvshard/chunked-off-paged", "hopper", DS3, KVS8 + " --page-size 64 "
     "--chunked-prefill-size -1", {}),
    ("kvshard/session-paged", "hopper", DS3, KVS8 + " --page-size 64 "
     "--enable-streaming-session", {}),
    ("kvshard/linker-paged", "hopper", DS3, KVS8 + " --page-size 64 "
     "--enable-unified-cache-external-linker", {}),
    ("kvshard/mamba", "hopper", NEXT, KVS8.replace("8", "4"), {}),
    # LayerNorm SP and MegaMoE
    ("layernorm-sp/megamoe-llama", "blackwell", L8, "--enable-megamoe-for-layernorm-sp", {}),
    ("layernorm-sp/dp", "blackwell", MUSE, LNSP + " --attn-dp-size 8", {}),
    ("layernorm-sp/spec", "blackwell", MUSE, LNSP + " --speculative-algorithm EAGLE", {}),
    ("layernorm-sp/pp", "blackwell", MUSE, LNSP4 + " --pp-size 2", {}),
    ("layernorm-sp/tp2", "blackwell", MUSE, "--tp-size 2 --enable-layernorm-sp", {}),
    ("layernorm-sp/quant", "blackwell", MUSE, "--tp-size 8 --ep-size 8 --enable-layernorm-sp",
     {}),
    ("layernorm-sp/runner", "blackwell", MUSE, "--tp-size 8 --ep-size 8 --enable-layernorm-sp "
     "--quantization modelopt_fp4 --moe-a2a-backend flashinfer --moe-runner-backend "
     "flashinfer_cutlass", {}),
    ("layernorm-sp/a2a", "blackwell", MUSE, "--tp-size 8 --ep-size 8 --enable-layernorm-sp "
     "--quantization modelopt_fp4 --moe-runner-backend flashinfer_trtllm", {}),
    ("layernorm-sp/megamoe-mixed", "blackwell", MUSE, MEGA_SP + " --enable-mixed-chunk", {}),
    ("layernorm-sp/megamoe-pp", "blackwell", MUSE, "--tp-size 4 --ep-size 4 --pp-size 2 "
     "--enable-layernorm-sp --enable-megamoe-for-layernorm-sp", {}),
    ("layernorm-sp/megamoe-a2a", "blackwell", MUSE, MEGA_SP + " --moe-a2a-backend deepep", {}),
    ("layernorm-sp/megamoe-chunk", "blackwell", MUSE, MEGA_SP + " --chunked-prefill-size -1",
     {}),
    ("layernorm-sp/megamoe-ok", "blackwell", MUSE, MEGA_SP, {}),
    ("layernorm-sp/ok", "blackwell", MUSE, LNSP, {"SGLANG_MOE_NVFP4_DISPATCH": "0"}),
    # MegaMoE token budgets
    ("megamoe/chunked-off", "blackwell", DS3, "--tp-size 8 --ep-size 8 --moe-a2a-backend "
     "megamoe --chunked-prefill-size -1", {}),
    ("megamoe/budget", "blackwell", DS3, "--tp-size 8 --ep-size 8 --moe-a2a-backend megamoe "
     "--cuda-graph-max-bs-decode 512",
     {"SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK": "64"}),
    ("megamoe/fi-runner", "blackwell", DS3, "--tp-size 8 --ep-size 8 --moe-a2a-backend "
     "flashinfer_megamoe --moe-runner-backend flashinfer_trtllm", {}),
    # MoE runners and A2A
    ("moe/cutedsl-a2a", "blackwell", DS3, "--tp-size 8 --ep-size 8 --moe-runner-backend "
     "flashinfer_cutedsl --moe-a2a-backend mooncake", {}),
    ("moe/cutlass-fp8-ep", "blackwell", "models/qwen3-30b-a3b-fp8", "--tp-size 4 --ep-size 4 "
     "--moe-runner-backend cutlass", {}),
    ("moe/pplx-runner", "hopper", DS3, "--tp-size 8 --ep-size 8 --attn-dp-size 8 "
     "--moe-a2a-backend pplx --moe-runner-backend triton", {}),
    ("moe/deepep-v2-runner", "hopper", DS3, "--tp-size 8 --ep-size 8 --moe-a2a-backend "
     "deepep_v2 --moe-runner-backend triton", {}),
    ("moe/deepep-v2-fusion", "hopper", DS3, "--tp-size 8 --ep-size 8 --moe-a2a-backend "
     "deepep_v2 --enforce-shared-experts-fusion", {}),
    ("moe/fi-mxfp8-dispatch", "blackwell", DS3, "--tp-size 8 --ep-size 8 --moe-a2a-backend "
     "flashinfer --attn-dp-size 8 --flashinfer-a2a-dispatch-type mxfp8", {}),
    ("moe/cutedsl-normal", "blackwell", K26, "--tp-size 8 "
     "--ep-size 8 --moe-runner-backend flashinfer_cutedsl --moe-a2a-backend deepep "
     "--deepep-mode normal", {}),
    ("moe/triton-kernel-ep", "hopper", OSS, "--tp-size 4 --ep-size 4 --moe-runner-backend "
     "triton_kernel", {}),
    ("moe/nvfp4-online", "blackwell", MOE, "--quantization nvfp4_online --moe-runner-backend "
     "triton", {}),
    ("moe/shared-tp-llama", "hopper", DS3, "--tp-size 8 --shared-experts-tp-size 2", {}),
    ("moe/shared-tp-k3", "hopper", K3, "--tp-size 8 --shared-experts-tp-size 2", {}),
    ("moe/flashinfer-trtllm-eplb", "blackwell", NEMO, "--tp-size 4 --ep-size 4 "
     "--moe-runner-backend flashinfer_trtllm --enable-eplb", {}),
    ("moe/cutedsl-eplb", "blackwell", NEMO, "--tp-size 4 --ep-size 4 "
     "--moe-runner-backend flashinfer_cutedsl --enable-eplb", {}),
    ("moe/cutedsl-mooncake-nvfp4", "blackwell", K26, "--tp-size 8 --ep-size 8 "
     "--attn-dp-size 8 --moe-runner-backend flashinfer_cutedsl --moe-a2a-backend mooncake", {}),
    ("moe/fi-megamoe-runner", "blackwell", K26, "--tp-size 8 --ep-size 8 --moe-a2a-backend "
     "flashinfer_megamoe --moe-runner-backend flashinfer_trtllm", {}),
    ("moe/megamoe-nvfp4-chunked-off", "blackwell", K26, "--tp-size 8 --ep-size 8 "
     "--moe-a2a-backend megamoe --chunked-prefill-size -1", {}),
    ("moe/megamoe-nvfp4-budget", "blackwell", K26, "--tp-size 8 --ep-size 8 "
     "--moe-a2a-backend megamoe --cuda-graph-max-bs-decode 512",
     {"SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK": "64"}),
    ("moe/fi-dispatch-mxfp8-runner", "blackwell", MOE, "--tp-size 8 --ep-size 8 "
     "--attn-dp-size 8 --quantization mxfp8 --moe-a2a-backend flashinfer "
     "--moe-runner-backend triton --flashinfer-a2a-dispatch-type mxfp8", {}),
    ("hicache/buffer-only-ratio", "cuda", L8, "--enable-hierarchical-cache "
     "--hicache-host-memory-mode buffer_only --hicache-storage-backend file "
     "--hicache-ratio 0", {}),
    # speculative decoding
    ("spec/block-verif-ngram", "cuda", L8, "--speculative-algorithm NGRAM "
     "--speculative-use-block-verification", {}),
    ("spec/block-verif-standalone", "cuda", L8, "--speculative-algorithm STANDALONE "
     "--speculative-draft-model-path models/llama-3.2-1b --speculative-use-block-verification",
     {}),
    ("spec/rejection-standalone", "cuda", L8, "--speculative-algorithm STANDALONE "
     "--speculative-draft-model-path models/llama-3.2-1b --speculative-use-rejection-sampling",
     {}),
    ("spec/rejection-ngram", "cuda", L8, "--speculative-algorithm NGRAM "
     "--speculative-use-rejection-sampling", {}),
    ("spec/rejection-threshold", "cuda", L8, "--speculative-algorithm EAGLE "
     "--speculative-draft-model-path " + EAGLE + " --speculative-eagle-topk 1 "
     "--speculative-use-rejection-sampling --speculative-accept-threshold-single 0.5", {}),
    ("spec/rejection-acc", "cuda", L8, "--speculative-algorithm EAGLE3 "
     "--speculative-draft-model-path " + EAGLE3 + " --speculative-eagle-topk 1 "
     "--speculative-use-rejection-sampling --speculative-accept-threshold-acc 0.7", {}),
    ("spec/ngram-rocm-ok", "rocm", L8, "--speculative-algorithm NGRAM", {}),
    ("spec/ngram-sam-budget", "cuda", L8, "--speculative-algorithm NGRAM "
     "--speculative-ngram-external-corpus-path /tmp/corpus.jsonl "
     "--speculative-ngram-external-sam-budget 0", {}),
    ("spec/ngram-corpus-tokens", "cuda", L8, "--speculative-algorithm NGRAM "
     "--speculative-ngram-external-corpus-path /tmp/corpus.jsonl "
     "--speculative-ngram-external-sam-budget 4 --speculative-ngram-external-corpus-max-tokens 0",
     {}),
    ("spec/ngram-sam-over", "cuda", L8, "--speculative-algorithm NGRAM "
     "--speculative-num-draft-tokens 8 --speculative-ngram-external-corpus-path "
     "/tmp/corpus.jsonl --speculative-ngram-external-sam-budget 16", {}),
    ("spec/dflash-dp-cp", "hopper", Q3, "--tp-size 8 --attn-dp-size 2 --attn-cp-size 2 "
     "--enable-dp-lm-head --speculative-algorithm DFLASH --speculative-draft-model-path " + Q3,
     {}),
    ("spec/dflash-dp-coord", "hopper", Q3, "--tp-size 8 --attn-dp-size 8 "
     "--speculative-algorithm DFLASH --speculative-draft-model-path " + Q3,
     {"SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION": "1"}),
    ("spec/dflash-dp-rocm", "rocm", Q3, "--tp-size 8 --attn-dp-size 8 "
     "--speculative-algorithm DFLASH --speculative-draft-model-path " + Q3, {}),
    ("spec/dflash-block-zero", "cuda", Q3, "--speculative-algorithm DFLASH "
     "--speculative-draft-model-path " + Q3 + " --speculative-dflash-block-size 0", {}),
    ("spec/dflash-block-differs", "cuda", Q3, "--speculative-algorithm DFLASH "
     "--speculative-draft-model-path " + Q3 + " --speculative-dflash-block-size 8 "
     "--speculative-num-draft-tokens 16", {}),
    ("spec/dflash-window", "cuda", Q3, "--speculative-algorithm DFLASH "
     "--speculative-draft-model-path " + Q3 + " --speculative-dflash-block-size 16 "
     "--speculative-draft-window-size 8", {}),
    ("spec/dflash-rocm", "rocm", Q3, "--speculative-algorithm DFLASH "
     "--speculative-draft-model-path " + Q3, {}),
    ("spec/dspark-dp-lm-head", "hopper", DS3, "--tp-size 8 --attn-dp-size 8 "
     "--speculative-algorithm DSPARK", {}),
    ("spec/dspark-dp-a2a", "hopper", DS3, "--tp-size 8 --ep-size 8 --attn-dp-size 8 "
     "--enable-dp-lm-head --moe-a2a-backend deepep --speculative-algorithm DSPARK", {}),
    ("spec/dspark-dp-megamoe", "blackwell", DS3, "--tp-size 8 --ep-size 8 --attn-dp-size 8 "
     "--enable-dp-lm-head --moe-a2a-backend megamoe --speculative-algorithm DSPARK", {}),
    ("spec/dspark-dp-cp", "hopper", DS3, "--tp-size 8 --attn-dp-size 2 --attn-cp-size 2 "
     "--enable-dp-lm-head --speculative-algorithm DSPARK", {}),
    ("spec/dspark-spec-a2a", "hopper", DS3, "--tp-size 8 --attn-dp-size 8 "
     "--enable-dp-lm-head --speculative-algorithm DSPARK --speculative-moe-a2a-backend "
     "deepep", {}),
    ("spec/dspark-pp", "hopper", DS3, "--tp-size 4 --pp-size 2 --speculative-algorithm "
     "DSPARK", {}),
    ("spec/dspark-block-zero", "hopper", DS3, "--tp-size 8 --speculative-algorithm DSPARK "
     "--speculative-dspark-block-size 0", {}),
    ("spec/dspark-rocm", "rocm", DS3, "--tp-size 8 --speculative-algorithm DSPARK", {}),
    ("spec/dspark-pp-prefill", "hopper", DS3, f"--tp-size 4 --pp-size 2 {PD_P} "
     "--speculative-algorithm DSPARK", {"SGLANG_ENABLE_PP_SPEC": "1"}),
    ("spec/uno-rocm", "rocm", L8, UNO, {}),
    ("spec/uno-deterministic", "hopper", L8, "--speculative-algorithm UNO --uno-lora-path "
     "/tmp/uno --enable-deterministic-inference", {}),
    ("spec/uno-strict", "hopper", L8, "--speculative-algorithm UNO --uno-lora-path /tmp/uno "
     "--enable-strict-thinking", {}),
    ("spec/uno-tp", "hopper", L8, UNO + " --tp-size 2", {}),
    ("spec/uno-dp", "hopper", L8, UNO + " --attn-dp-size 2 --tp-size 2", {}),
    ("spec/uno-lora", "hopper", L8, UNO + " --enable-lora --max-lora-rank 16 "
     "--lora-target-modules all", {}),
    ("spec/uno-rejection", "hopper", L8, UNO + " --speculative-use-rejection-sampling", {}),
    ("spec/uno-backend", "hopper", L8, UNO + " --attention-backend flashinfer", {}),
    ("spec/uno-ok", "hopper", L8, UNO + " --attention-backend fa3", {}),
    ("spec/uno-blackwell", "blackwell", L8, UNO, {}),
    ("spec/uno-tree-steps", "hopper", L8, "--speculative-algorithm UNO --uno-lora-path "
     "/tmp/uno --attention-backend fa3 --speculative-eagle-topk 4 "
     "--speculative-num-draft-tokens 8", {}),
    ("spec/uno-topk-zero", "hopper", L8, UNO + " --attention-backend fa3 "
     "--speculative-eagle-topk 0", {}),
    ("spec/uno-tbo", "hopper", L8, "--speculative-algorithm UNO --uno-lora-path /tmp/uno "
     "--attention-backend fa3 --speculative-eagle-topk 2 --speculative-num-steps 3 "
     "--speculative-num-draft-tokens 6 --enable-two-batch-overlap", {}),
    ("spec/uno-q-big", "hopper", L8, "--speculative-algorithm UNO --uno-lora-path /tmp/uno "
     "--attention-backend fa3 --speculative-eagle-topk 8 --speculative-num-steps 4 "
     "--speculative-num-draft-tokens 256", {}),
    ("spec/uno-q-below-f", "hopper", L8, "--speculative-algorithm UNO --uno-lora-path /tmp/uno "
     "--attention-backend fa3 --speculative-eagle-topk 2 --speculative-num-steps 5 "
     "--speculative-num-draft-tokens 3", {}),
    ("spec/uno-qk-big", "hopper", L8, "--speculative-algorithm UNO --uno-lora-path /tmp/uno "
     "--attention-backend fa3 --speculative-eagle-topk 32 --speculative-num-steps 3 "
     "--speculative-num-draft-tokens 100", {}),
    ("spec/uno-tree-pdmux", "hopper", L8, "--speculative-algorithm UNO --uno-lora-path /tmp/uno "
     "--attention-backend fa3 --speculative-eagle-topk 2 --speculative-num-steps 3 "
     "--speculative-num-draft-tokens 6 --enable-pdmux --chunked-prefill-size -1", {}),
    ("spec/uno-tree-threshold", "hopper", L8, "--speculative-algorithm UNO --uno-lora-path "
     "/tmp/uno --attention-backend fa3 --speculative-eagle-topk 2 --speculative-num-steps 3 "
     "--speculative-num-draft-tokens 6 --speculative-accept-threshold-single 0.5", {}),
    ("spec/uno-tree-steps-zero", "hopper", L8, "--speculative-algorithm UNO --uno-lora-path "
     "/tmp/uno --attention-backend fa3 --speculative-eagle-topk 2 --speculative-num-steps 0 "
     "--speculative-num-draft-tokens 6", {}),
    ("spec/adaptive-steps", "cuda", L8, "--speculative-algorithm EAGLE "
     "--speculative-draft-model-path " + EAGLE + " --speculative-adaptive "
     "--speculative-num-steps 7", {}),
    ("spec/mixed-chunk-launcher", "cuda", L8, "--speculative-algorithm NGRAM "
     "--enable-mixed-chunk", {}),
    ("spec/eagle-pp", "hopper", DS3, "--tp-size 4 --pp-size 2 --speculative-algorithm EAGLE",
     {}),
    ("spec/eagle-pp-spec-env", "hopper", DS3, "--tp-size 4 --pp-size 2 "
     "--speculative-algorithm EAGLE", {"SGLANG_ENABLE_PP_SPEC": "1"}),
    ("spec/eagle-pp-spec-pd", "hopper", DS3, f"--tp-size 4 --pp-size 2 {PD_D} "
     "--speculative-algorithm EAGLE", {"SGLANG_ENABLE_PP_SPEC": "1"}),
    ("spec/eagle-pp-spec-adaptive", "hopper", DS3, f"--tp-size 4 --pp-size 2 {PD_P} "
     "--speculative-algorithm EAGLE --speculative-adaptive", {"SGLANG_ENABLE_PP_SPEC": "1"}),
    ("spec/eagle-pp-spec-dp", "hopper", DS3, f"--tp-size 4 --pp-size 2 {PD_P} "
     "--attn-dp-size 4 --speculative-algorithm EAGLE", {"SGLANG_ENABLE_PP_SPEC": "1"}),
    ("spec/eagle-pp-spec-adaptive-colocated", "hopper", DS3, "--tp-size 4 --pp-size 2 "
     "--speculative-algorithm EAGLE --speculative-adaptive", {"SGLANG_ENABLE_PP_SPEC": "1"}),
    ("spec/eagle-pp-spec-dp-colocated", "hopper", DS3, "--tp-size 4 --pp-size 2 "
     "--attn-dp-size 4 --speculative-algorithm EAGLE", {"SGLANG_ENABLE_PP_SPEC": "1"}),
    ("spec/eagle-pp-prefill", "hopper", DS3, f"--tp-size 4 --pp-size 2 {PD_P} "
     "--speculative-algorithm EAGLE", {}),
    # IQuest Q1
    ("iquest/backend", "hopper", IQ, "--attention-backend flashinfer", {}),
    ("iquest/cp", "hopper", IQ, "--tp-size 4 --attn-cp-size 2", {}),
    ("iquest/topk", "hopper", IQ, "--speculative-algorithm EAGLE --speculative-draft-model-path "
     + IQMTP + " --speculative-eagle-topk 2 --speculative-num-steps 3 "
     "--speculative-num-draft-tokens 6", {}),
    ("iquest/pp", "hopper", IQ, "--pp-size 2", {}),
    ("iquest/mtp-no-draft", "hopper", IQ, "--speculative-algorithm EAGLE", {}),
    ("iquest/mtp-self-draft", "hopper", IQ, "--speculative-algorithm EAGLE "
     "--speculative-draft-model-path " + IQ, {}),
    ("iquest/mtp-multilayer", "hopper", IQ, "--speculative-algorithm EAGLE "
     "--speculative-draft-model-path " + IQMTP + " --enable-multi-layer-eagle", {}),
    ("iquest/mtp-width", "hopper", IQ, "--speculative-algorithm EAGLE "
     "--speculative-draft-model-path " + IQMTP + " --speculative-num-steps 3 "
     "--speculative-num-draft-tokens 6", {}),
    ("iquest/mtp-draft-backend", "hopper", IQ, "--speculative-algorithm EAGLE "
     "--speculative-draft-model-path " + IQMTP + " --speculative-draft-attention-backend "
     "flashinfer", {}),
    ("iquest/blackwell", "blackwell", IQ, "", {}),
    # MiniMax M3, Kimi K3, Qwen4-Exp, MiniCPM SALA, HYV4, MiMo V2, Intern-S2-Mobius
    ("minimax-m3/pp", "hopper", M3, "--tp-size 4 --pp-size 2", {}),
    ("minimax-m3/dspark", "hopper", M3, "--tp-size 8 --speculative-algorithm DSPARK", {}),
    ("minimax-m3/pd-dflash", "hopper", M3, f"--tp-size 8 {PD_D} --speculative-algorithm "
     "DFLASH --speculative-draft-model-path " + Q3, {}),
    ("kimi-k3/dcp-dspark", "blackwell", K3, "--tp-size 8 --dcp-size 2 "
     "--speculative-algorithm DSPARK", {}),
    ("kimi-k3/dcp-rocm", "rocm", K3, "--tp-size 8 --dcp-size 2", {}),
    ("qwen4-exp/unified", "hopper", Q4X, "--tp-size 4 --enable-unified-memory", {}),
    ("qwen4-exp/indexer-a100", "sm80", Q4X, "--tp-size 8 --qsa-indexer-dtype fp8_e4m3", {}),
    ("qwen4-exp/mori-pp", "rocm", Q4X, f"--tp-size 4 --pp-size 2 {PD_P} "
     "--disaggregation-transfer-backend mori", {}),
    ("minicpm-sala/hicache", "cuda", SALA, "--enable-hierarchical-cache", {}),
    ("minicpm-sala/pd", "cuda", "parity-models/minicpm-sala-sparse-synth", PD_P, {}),
    ("hyv4/prefill-cp", "hopper", HYV, "--tp-size 8 --enable-prefill-cp", {}),
    ("hyv4/dcp", "hopper", HYV, "--tp-size 8 --dcp-size 2", {}),
    ("mimo/cp-strategy", "hopper", MIMO, "--tp-size 8 --enable-prefill-cp --cp-strategy "
     "interleave", {}),
    ("mimo/cp-language", "hopper", MIMO, "--tp-size 8 --enable-prefill-cp --cp-strategy "
     "zigzag", {}),
    ("mobius/pp", "hopper", MOBIUS, "--tp-size 4 --pp-size 2", {}),
    ("mobius/tp", "hopper", MOBIUS, "--tp-size 2", {}),
    # DeepSeek DSA / V3 families
    ("dsa/dcp-hicache", "hopper", DSA, "--tp-size 8 --dcp-size 2 --enable-hierarchical-cache",
     {}),
    ("dsa/dcp-pd", "hopper", DSA, f"--tp-size 8 --dcp-size 2 {PD_D}", {}),
    ("dsa/dcp-topk", "hopper", DSA, "--tp-size 8 --dcp-size 2 --speculative-algorithm EAGLE "
     "--speculative-eagle-topk 2 --speculative-num-steps 3 --speculative-num-draft-tokens 6",
     {}),
    ("dsa/layer-split-no-cp", "hopper", DSA, f"--tp-size 8 {PD_P} "
     "--enable-dsa-cache-layer-split", {}),
    ("dsa/layer-split-decode", "hopper", DSA, f"--tp-size 8 {PD_D} "
     "--enable-dsa-cache-layer-split", {}),
    ("dsa/layer-split-nixl", "hopper", DSA, f"--tp-size 8 {PD_P} --enable-prefill-cp "
     "--cp-strategy interleave --enable-dsa-cache-layer-split "
     "--disaggregation-transfer-backend nixl", {}),
    ("dsa/layer-split-pp", "hopper", DSA, f"--tp-size 4 --pp-size 2 {PD_P} "
     "--enable-prefill-cp --cp-strategy interleave --enable-dsa-cache-layer-split", {}),
    ("dsa/prefill-cp-colocated", "hopper", DSA, "--tp-size 8 --enable-prefill-cp", {}),
    ("dsa/glm-kvshard-spec", "hopper", GLMDSA, KVS8 + " "
     "--speculative-algorithm EAGLE --speculative-eagle-topk 2 --speculative-num-steps 3 "
     "--speculative-num-draft-tokens 6", {}),
    ("dsv4/mega-h100", "hopper", HYV, "--tp-size 8 --dsv4-attn-backend flashmla_mega", {}),
    ("dsv4/trtllm-cp", "blackwell", HYV, "--tp-size 8 --dsv4-attn-backend trtllm "
     "--attn-cp-size 2", {}),
    ("dsv4/cp-a2a", "blackwell", HYV, "--tp-size 8 --ep-size 8 --attn-cp-size 2 "
     "--moe-a2a-backend mooncake", {}),
    ("dsv4/cp-deepep", "blackwell", HYV, "--tp-size 8 --ep-size 8 --attn-cp-size 2 "
     "--moe-a2a-backend deepep", {}),
    ("dsv4/v41-trtllm-graph", "blackwell", "parity-models/deepseek-v4.1-synth", "--tp-size 8 "
     "--dsv4-attn-backend trtllm --cuda-graph-backend-prefill full", {}),
    ("dsv4/hip-prefill-cp", "rocm", HYV, "--tp-size 8 --enable-prefill-cp --cp-strategy "
     "interleave", {}),
    ("minicpm-sala/sparse-hicache", "cuda", "parity-models/minicpm-sala-sparse-synth",
     "--enable-hierarchical-cache", {}),
    ("lora/moe-runner-nvfp4", "blackwell", MOE, "--enable-lora --max-lora-rank 16 "
     "--lora-target-modules all --moe-runner-backend lora_triton --lora-backend triton_v2 "
     "--quantization modelopt_fp4", {}),
    # context parallelism and PP
    ("cp/pp", "hopper", DS3, "--tp-size 4 --pp-size 2 --attn-cp-size 2", {}),
    ("cp/aiter-fusion", "rocm", DS3, "--tp-size 8 --attn-cp-size 2 "
     "--enable-aiter-allreduce-fusion", {}),
    ("cp/ep-moe-dp", "hopper", DS3, "--tp-size 8 --attn-cp-size 2 --ep-size 2 "
     "--moe-dp-size 2", {}),
    ("pp/overlap-launcher", "cuda", L8, "--pp-size 2 --enable-pdmux", {}),
    ("pdmux/pp", "hopper", L8, "--pp-size 2 --enable-pdmux", {}),
    ("pdmux/pd", "hopper", L8, f"--enable-pdmux --chunked-prefill-size -1 {PD_P}", {}),
    ("pdmux/overlap", "hopper", L8, "--enable-pdmux --chunked-prefill-size -1", {}),
    ("dwdp/size", "hopper", DS3, "--tp-size 8 --dwdp-size 1", {}),
    ("dwdp/pp", "hopper", DS3, "--tp-size 2 --pp-size 2 --dwdp-size 2", {}),
    # elastic EP
    ("elastic/ray", "hopper", DS3, "--tp-size 8 --ep-size 8 --attn-dp-size 8 "
     "--elastic-ep-backend mooncake --elastic-ep-initial-size 4 --use-ray", {}),
    ("elastic/pp", "hopper", DS3, "--tp-size 4 --pp-size 2 --ep-size 4 "
     "--elastic-ep-backend mooncake --elastic-ep-initial-size 2", {}),
    ("elastic/no-dp", "hopper", DS3, "--tp-size 8 --ep-size 8 --elastic-ep-backend mooncake "
     "--elastic-ep-initial-size 4", {}),
    ("elastic/eplb-algo", "hopper", DS3, "--tp-size 8 --ep-size 8 --attn-dp-size 8 "
     "--elastic-ep-backend mooncake --eplb-algorithm deepseek", {}),
    ("elastic/join-offset", "hopper", DS3, "--tp-size 8 --ep-size 8 --attn-dp-size 8 "
     "--elastic-ep-backend mooncake --elastic-ep-join-mode scale "
     "--elastic-ep-join-rank-offset -1", {}),
    # PD, encoder disaggregation
    ("pd/decode-dcp-transfer", "hopper", DS3, f"--tp-size 8 --dcp-size 2 {PD_D} "
     "--disaggregation-transfer-backend mooncake_tcp", {}),
    ("epd/prefix-mm", "cuda", VL, "--enable-prefix-mm-cache", {}),
    ("epd/both", "cuda", VL, "--encoder-only --language-only", {}),
    ("epd/grpc", "cuda", VL, "--encoder-only --grpc-port 30001", {}),
    ("epd/muse-adaptive", "blackwell", MUSE, "--tp-size 8 --language-only "
     "--enable-adaptive-dispatch-to-encoder", {}),
    # serving front ends
    ("serve/ssl-cert", "cuda", L8, "--ssl-certfile /nonexistent/cert.pem "
     "--ssl-keyfile /nonexistent/key.pem", {}),
    ("serve/ssl-cert-missing", "cuda", L8, "--ssl-keyfile /etc/hosts --ssl-certfile "
     "/nonexistent/cert.pem", {}),
    ("serve/ssl-ca-missing", "cuda", L8, "--ssl-keyfile /etc/hosts --ssl-certfile /etc/hosts "
     "--ssl-ca-certs /nonexistent/ca.pem", {}),
    ("serve/mm-process-config", "cuda", VL, '--mm-process-config {"image":3}', {}),
    ("serve/prefill-complete-mamba", "hopper", NEXT, f"{PD_D} "
     "--disaggregation-decode-allocation-policy prefill_complete", {}),
    ("serve/ssl-ca", "cuda", L8, "--ssl-ca-certs /nonexistent/ca.pem", {}),
    ("serve/http2-streams", "cuda", L8, "--http2-max-concurrent-streams 0", {}),
    ("serve/http2-window", "cuda", L8, "--http2-initial-connection-window-size 10", {}),
    ("serve/grpc-timeout", "cuda", L8, "--grpc-response-timeout-secs 0", {}),
    ("serve/sidecar-args-alone", "cuda", L8, '--sidecar-args ["--x"]', {}),
    ("serve/sidecar-args-bad", "cuda", L8, '--sidecar router --sidecar-args {"a":1}', {}),
    ("serve/sidecar-empty", "cuda", L8, "--sidecar ''", {}),
    ("serve/sidecar-grpc-mode", "cuda", L8, "--sidecar router --grpc-mode", {}),
    ("serve/grpc-ray", "cuda", L8, "--grpc-port 30001 --use-ray", {}),
    ("serve/grpc-api-key", "cuda", L8, "--grpc-port 30001 --api-key secret", {}),
    ("serve/return-hidden-mode", "cuda", L8, "--enable-return-hidden-states "
     "--return-hidden-states-mode last", {}),
    ("serve/limit-mm", "cuda", VL, '--limit-mm-data-per-request {"smell":2}', {}),
    ("serve/load-publish", "cuda", L8, "--load-publish-endpoint tcp://127.0.0.1:5557", {}),
    ("serve/load-publish-null", "cuda", L8, "--load-publish-endpoint tcp://127.0.0.1:5557 "
     '--kv-events-config {"publisher":"null"}', {}),
    ("serve/kv-events-bad", "cuda", L8, "--load-publish-endpoint tcp://127.0.0.1:5557 "
     "--kv-events-config not-json", {}),
    ("serve/aux-hidden-draft", "cuda", L8, "--enable-return-aux-hidden-states "
     "--speculative-algorithm EAGLE3 --speculative-draft-model-path " + EAGLE3, {}),
    ("serve/aux-hidden-pp", "cuda", L8, "--enable-return-aux-hidden-states "
     "--speculative-algorithm EAGLE3 --pp-size 2", {}),
    ("serve/aux-hidden-empty", "cuda", L8, "--enable-return-aux-hidden-states "
     "--speculative-algorithm EAGLE3 --return-aux-hidden-state-layer-ids", {}),
    ("serve/aux-hidden-neg", "cuda", L8, "--enable-return-aux-hidden-states "
     "--speculative-algorithm EAGLE3 --return-aux-hidden-state-layer-ids -1 3", {}),
    ("serve/aux-hidden-repeat", "cuda", L8, "--enable-return-aux-hidden-states "
     "--speculative-algorithm EAGLE3 --return-aux-hidden-state-layer-ids 3 3", {}),
    ("serve/instanttensor-rocm", "rocm", L8, "--load-format instanttensor", {}),
    ("serve/ipc-cache", "cuda", L8, "--load-format ipc_cache", {}),
    ("serve/quant-comm-tp1", "cuda", L8, "--enable-quant-communications", {}),
    ("serve/detok-zero", "cuda", L8, "--detokenizer-worker-num 0", {}),
    ("serve/sampling-mask-env", "cuda", L8, "",
     {"SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS": "128"}),
    ("mm/vmm-rocm", "rocm", VL, "--mm-feature-transport cuda_vmm", {}),
    ("mm/vmm-pp", "cuda", VL, "--mm-feature-transport cuda_vmm --pp-size 2", {}),
    ("mm/ipc-multinode", "hopper", VL, "--mm-feature-transport cuda_ipc --tp-size 16 "
     "--nnodes 2", {}),
    # graph buckets (launcher check)
    ("graph/buckets-empty", "cuda", L8, "--cuda-graph-bs-decode", {}),
    # attention backends x targets
    ("attn/prefill-cp-trtllm-hopper", "hopper", L8, "--tp-size 4 --attn-cp-size 2 "
     "--enable-prefill-cp --prefill-attention-backend trtllm_mha", {}),
    ("attn/linear-verify", "hopper", NEXT, "--speculative-algorithm EAGLE "
     "--linear-attn-verify-backend cutedsl", {}),
    ("attn/deterministic-mla", "hopper", DS3, "--tp-size 8 --enable-deterministic-inference "
     "--attention-backend triton", {}),
    ("attn/deterministic-mla-trtllm", "blackwell", DS3, "--tp-size 8 "
     "--enable-deterministic-inference --attention-backend trtllm_mla", {}),
    ("attn/deterministic-flashmla", "hopper", DS3, "--tp-size 8 "
     "--enable-deterministic-inference --attention-backend flashmla", {}),
    ("kv4/spec-draft", "blackwell", L8, "--kv-cache-dtype nvfp4 --attention-backend trtllm_mha "
     "--speculative-algorithm EAGLE --speculative-draft-model-path " + EAGLE
     + " --speculative-draft-attention-backend flashinfer", {}),
    ("kv4/fa4-mla", "blackwell", DS3, "--tp-size 8 --kv-cache-dtype nvfp4 "
     "--attention-backend fa4 --decode-attention-backend flashinfer", {}),
    ("nvfp4/dequant-option", "blackwell", L8, "--kv-cache-dtype nvfp4 "
     "--prefill-kv-cache-dequant-dtype fp8_e4m3 --prefill-attention-backend flashinfer", {}),
    # model config
    ("dtype/unknown", "cuda", L8, "--dtype float8", {}),
    ("quant/modelopt-mixed", "cuda", L8, "--quantization modelopt_mixed", {}),
    # a fourth batch (lines are only ever appended: each line's target is drawn in order)
    ("prefill-only/no-radix-attn-cp", "hopper", L8, PO + " --disable-radix-cache --tp-size 4 "
     "--attn-cp-size 2", {}),
    ("prefill-only/no-radix-prefill-cp", "hopper", DSA, PO + " --disable-radix-cache "
     "--tp-size 8 --enable-prefill-cp", {}),
    ("prefill-only/no-radix-hisparse", "hopper", DSA, PO + " --disable-radix-cache "
     "--tp-size 8 --enable-hisparse", {}),
    ("layernorm-sp/megamoe-capacity", "blackwell", MUSE, MEGA_SP,
     {"SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK": "512"}),
    ("layernorm-sp/megamoe-big-chunk", "blackwell", MUSE, MEGA_SP
     + " --chunked-prefill-size 32768", {}),
    ("hisparse/bf16-spelling", "hopper", DSA, "--tp-size 8 --enable-hisparse "
     "--disable-radix-cache --kv-cache-dtype bf16", {}),
    ("attn/deterministic-mla-flashinfer", "hopper", DS3, "--tp-size 8 "
     "--enable-deterministic-inference --attention-backend flashinfer", {}),
    ("kvshard/mla-tp1", "hopper", DSL, f"{PD_P} --enable-kv-cache-sharding --page-size 64",
     {}),
    ("kvshard/mla-dp-paged", "hopper", DS3, KVS8 + " --page-size 64 --attn-dp-size 8", {}),
    ("dsv4/prefill-cp-mooncake", "blackwell", HYV, f"--tp-size 8 --ep-size 8 {PD_P} "
     "--enable-prefill-cp --cp-strategy interleave --moe-a2a-backend mooncake", {}),
    # a fifth: DeepSeek-V4.1's encoder SWA replay
    ("dsv41/replay-no-cap", "blackwell", V41, f"{REPLAY}", {}),
    ("dsv41/replay-small-chunk", "blackwell", V41, f"{REPLAY} --max-running-requests 64 "
     "--chunked-prefill-size 64", {}),
    ("dsv41/replay-mixed", "blackwell", V41, f"{REPLAY} --max-running-requests 64 "
     "--enable-mixed-chunk", {}),
    ("dsv41/replay-pd-decode", "blackwell", V41, f"{REPLAY} --max-running-requests 64 "
     f"{PD_D}", {}),
    ("dsv41/replay-rocm-graph", "rocm", V41, f"{REPLAY} --max-running-requests 64 "
     "--cuda-graph-backend-prefill breakable", {}),
    ("dsv41/replay-ok", "blackwell", V41, f"{REPLAY} --max-running-requests 64", {}),
    # a sixth: prefill_complete allocation on prefill servers, NVFP4 KV with DFLASH
    ("pd/prefill-complete-prefill", "hopper", L8, f"{PD_P} "
     "--disaggregation-decode-allocation-policy prefill_complete", {}),
    ("pd/prefill-complete-pp", "hopper", L8, f"{PD_P} --tp-size 2 --pp-size 2 "
     "--disaggregation-decode-allocation-policy prefill_complete "
     "--optimistic-prefill-attempts 2", {}),
    ("pd/prefill-complete-hicache", "hopper", L8, f"{PD_P} --enable-hierarchical-cache "
     "--hicache-storage-backend file --hicache-write-policy write_back "
     "--disaggregation-decode-allocation-policy prefill_complete "
     "--optimistic-prefill-attempts 2", {}),
    ("pd/prefill-complete-ok", "hopper", L8, f"{PD_P} --enable-hierarchical-cache "
     "--disaggregation-decode-allocation-policy prefill_complete "
     "--optimistic-prefill-attempts 2", {}),
    ("kv4/dflash", "blackwell", Q3, "--kv-cache-dtype nvfp4 --attention-backend trtllm_mha "
     "--speculative-algorithm DFLASH --speculative-draft-model-path " + Q3, {}),
    # a seventh: refusals still unmet after the sixth (metrics buckets, elastic EP scale-up,
    # devices other than CUDA named with --device, UNO trees, DSpark and DFLASH once the
    # oracle venv has openai, FlashInfer MegaMoE on a shipped NVFP4 checkpoint, ...)
    ('metrics/tse-3', 'cuda', L8, '--enable-metrics --prompt-tokens-buckets tse 1 2', {}),
    ('metrics/tse-word', 'cuda', L8, '--enable-metrics --prompt-tokens-buckets tse mid 2 3', {}),
    ('metrics/tse-count', 'cuda', L8, '--enable-metrics --generation-tokens-buckets tse '
     '100 2 0', {}),
    ('metrics/tse-mid', 'cuda', L8, '--enable-metrics --prompt-tokens-buckets tse 0 2 5', {}),
    ('metrics/default-2', 'cuda', L8, '--enable-metrics --prompt-tokens-buckets default 10', {}),
    ('metrics/custom-none', 'cuda', L8, '--enable-metrics --prompt-tokens-buckets custom', {}),
    ('metrics/custom-word', 'cuda', L8, '--enable-metrics --prompt-tokens-buckets custom '
     '10 big', {}),
    ('metrics/custom-neg', 'cuda', L8, '--enable-metrics --prompt-tokens-buckets custom -1 '
     '100', {}),
    ('checks/mm-proc', 'cuda', VL, '--mm-processor-worker-num -1', {}),
    ('checks/instanttensor-cpu', 'cuda', L8, '--load-format instanttensor --device cpu', {}),
    ('watermark/cpu', 'cuda', L8, '--enable-watermark --device cpu', {}),
    ('watermark/rejection-topk1', 'hopper', L8, '--enable-watermark '
     '--speculative-algorithm EAGLE --speculative-draft-model-path ' + EAGLE + ' '
     '--speculative-eagle-topk 1 --speculative-num-steps 3 --speculative-num-draft-tokens '
     '4 --speculative-use-rejection-sampling', {}),
    ('pd/ib-device-blank', 'cuda', L8, '--disaggregation-mode prefill '
     "--disaggregation-ib-device ' '", {}),
    ('serve/http2-streams-enabled', 'cuda', L8, '--enable-http2 '
     '--http2-max-concurrent-streams 0', {}),
    ('serve/http2-window-enabled', 'cuda', L8, '--enable-http2 '
     '--http2-initial-connection-window-size 10', {}),
    ('spec/uno-cpu', 'hopper', L8, '--device cpu --speculative-algorithm UNO '
     '--uno-lora-path /tmp/uno --speculative-num-draft-tokens 4', {}),
    ('spec/uno-q-zero', 'hopper', L8, '--speculative-algorithm UNO --uno-lora-path '
     '/tmp/uno --speculative-num-draft-tokens 0', {}),
    ('spec/dspark-cpu', 'hopper', Q3, '--device cpu --speculative-algorithm DSPARK '
     '--speculative-draft-model-path models/qwen3-8b', {}),
    ('spec/ngram-hpu', 'hopper', L8, '--device hpu --speculative-algorithm NGRAM', {}),
    ('spec/blockv-cpu', 'hopper', L8, '--device cpu --speculative-algorithm EAGLE '
     '--speculative-draft-model-path ' + EAGLE + ' --speculative-use-block-verification', {}),
    ('spec/rej-threshold', 'hopper', L8, '--speculative-algorithm EAGLE '
     '--speculative-draft-model-path ' + EAGLE + ' --speculative-eagle-topk 1 '
     '--speculative-num-steps 3 --speculative-num-draft-tokens 4 '
     '--speculative-use-rejection-sampling --speculative-accept-threshold-single 0.5', {}),
    ('iquest/draft-llama', 'hopper', IQ, '--speculative-algorithm EAGLE '
     '--speculative-draft-model-path models/llama-3.1-8b', {}),
    ('iquest/token-map', 'hopper', IQ, '--speculative-algorithm EAGLE '
     '--speculative-draft-model-path parity-models/iquest-q1-mtp-synth '
     '--speculative-token-map /tmp/map.pt', {}),
    ('iquest/steps-zero', 'hopper', IQ, '--speculative-algorithm EAGLE '
     '--speculative-draft-model-path parity-models/iquest-q1-mtp-synth '
     '--speculative-num-steps 0', {}),
    ('parallel/moe-dp-pp', 'hopper', MOE, '--tp-size 4 --moe-dp-size 2 --pp-size 2', {}),
    ('elastic-ep/eplb', 'hopper', DS3, '--tp-size 8 --ep-size 8 --elastic-ep-backend '
     'mooncake --enable-eplb --eplb-algorithm deepseek', {}),
    ('elastic-ep/ray', 'hopper', DS3, '--tp-size 8 --ep-size 8 --attn-dp-size 8 '
     '--enable-dp-lm-head --elastic-ep-backend mooncake --max-ep-size 16 '
     '--load-balance-method round_robin --use-ray', {}),
    ('elastic-ep/initial', 'hopper', DS3, '--tp-size 8 --ep-size 8 --attn-dp-size 8 '
     '--enable-dp-lm-head --elastic-ep-backend mooncake --max-ep-size 16 '
     '--load-balance-method round_robin --elastic-ep-join-mode scale --node-rank 1 '
     '--elastic-ep-join-rank-offset 8 --elastic-ep-initial-size 16', {}),
    ('elastic-ep/cp', 'hopper', DS3, '--tp-size 8 --ep-size 8 --attn-dp-size 4 '
     '--attn-cp-size 2 --enable-dp-lm-head --elastic-ep-backend mooncake --max-ep-size 16 '
     '--load-balance-method round_robin', {}),
    ('unified/dcp-flashmla', 'hopper', DS3, '--tp-size 8 --enable-unified-memory '
     '--dcp-size 2 --attention-backend flashmla', {}),
    ('nvfp4/dequant-backend', 'blackwell', L8, '--kv-cache-dtype nvfp4 '
     '--prefill-kv-cache-dequant-dtype fp8_e4m3 --prefill-attention-backend fa3', {}),
    ('kvshard/dllm', 'hopper', DS3, '--tp-size 8 --disaggregation-mode prefill '
     '--enable-kv-cache-sharding --dllm-algorithm LowConfidence', {}),
    ('kvshard/radix-backend', 'hopper', DS3, '--tp-size 8 --disaggregation-mode prefill '
     '--enable-kv-cache-sharding --radix-cache-backend mooncake', {}),
    ('kvshard/session-radix', 'hopper', DS3, '--tp-size 8 --disaggregation-mode prefill '
     '--enable-kv-cache-sharding --enable-session-radix-cache', {}),
    ('hicache/dcp-lmcache', 'hopper', DS3, '--tp-size 8 --dcp-size 2 '
     '--enable-hierarchical-cache --enable-lmcache', {}),
    ('hisparse/rocm-unified-kv', 'cdna4', HYV, '--tp-size 8 --enable-hisparse '
     '--disable-radix-cache', {'SGLANG_HACK_FLASHMLA_BACKEND': 'unified_kv_triton'}),
    ('layernorm-sp/megamoe-llama-sp', 'blackwell', L8, '--tp-size 8 --enable-layernorm-sp '
     '--enable-megamoe-for-layernorm-sp', {}),
    ('layernorm-sp/megamoe-cap0', 'blackwell', MUSE, '--tp-size 8 --ep-size 8 '
     '--enable-layernorm-sp --enable-megamoe-for-layernorm-sp --moe-runner-backend '
     'flashinfer_trtllm', {'SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK': '0'}),
    ('lora/elastic', 'hopper', MOE, '--enable-lora --max-lora-rank 16 '
     '--lora-target-modules all --moe-runner-backend lora_triton --lora-backend triton_v2 '
     '--tp-size 8 --ep-size 8 --elastic-ep-backend mooncake --elastic-ep-join-mode scale '
     '--node-rank 1 --elastic-ep-join-rank-offset 8', {}),
    ('lm-head/tp-a2a-dp', 'hopper', DS3, '--tp-size 8 --attn-dp-size 8 '
     '--enable-tp-lm-head-all-to-all --enable-dp-lm-head', {}),
    ('dsa/prefill-cp-decode', 'hopper', DSA, '--tp-size 8 --enable-prefill-cp '
     '--disaggregation-mode decode', {}),
    ('mobius/pp-tp2', 'hopper', MOBIUS, '--pp-size 2 --tp-size 2', {}),
    ('qwen4-exp/qsa-fp8', 'hopper', Q4X, '--qsa-indexer-dtype fp8_e4m3', {}),
    ('linear-attn/replayssm', 'hopper', NEXT, '--speculative-algorithm EAGLE '
     '--enable-linear-replayssm-spec', {'SGLANG_RAGGED_VERIFY_MODE': 'compact'}),
    ('spec/rej-det-cpu', 'hopper', L8, '--device cpu --attention-backend triton '
     '--enable-deterministic-inference --speculative-algorithm EAGLE '
     '--speculative-draft-model-path ' + EAGLE + ' --speculative-eagle-topk 1 '
     '--speculative-num-steps 3 --speculative-num-draft-tokens 4 '
     '--speculative-use-rejection-sampling', {}),
    ('elastic-ep/cpu', 'hopper', DS3, '--tp-size 8 --ep-size 8 --attn-dp-size 8 '
     '--enable-dp-lm-head --elastic-ep-backend mooncake --max-ep-size 16 '
     '--load-balance-method round_robin --cuda-graph-backend-prefill disabled --device cpu', {}),
    ('elastic-ep/embedding', 'hopper', DS3, '--tp-size 8 --ep-size 8 --attn-dp-size 8 '
     '--enable-dp-lm-head --elastic-ep-backend mooncake --max-ep-size 16 '
     '--load-balance-method round_robin --cuda-graph-backend-prefill disabled '
     '--is-embedding', {}),
    ('elastic-ep/encoder-only', 'hopper', DS3, '--tp-size 8 --ep-size 8 --attn-dp-size 8 '
     '--enable-dp-lm-head --elastic-ep-backend mooncake --max-ep-size 16 '
     '--load-balance-method round_robin --cuda-graph-backend-prefill disabled '
     '--encoder-only', {}),
    ('elastic-ep/hooks', 'hopper', DS3, '--tp-size 8 --ep-size 8 --attn-dp-size 8 '
     '--enable-dp-lm-head --elastic-ep-backend mooncake --max-ep-size 16 '
     '--load-balance-method round_robin --cuda-graph-backend-prefill disabled '
     '--forward-hooks [{"target_modules":["model.layers.0"],"hook_factory":"m:f"}]', {}),
    ('elastic-ep/pdmux', 'hopper', DS3, '--tp-size 8 --ep-size 8 --attn-dp-size 8 '
     '--enable-dp-lm-head --elastic-ep-backend mooncake --max-ep-size 16 '
     '--load-balance-method round_robin --cuda-graph-backend-prefill disabled '
     '--enable-pdmux', {}),
    ('elastic-ep/no-dp', 'hopper', DS3, '--tp-size 8 --ep-size 8 --moe-dense-tp-size 1 '
     '--elastic-ep-backend mooncake --max-ep-size 16 --load-balance-method round_robin '
     '--cuda-graph-backend-prefill disabled', {}),
    ('elastic-ep/ep-tp', 'hopper', DS3, '--tp-size 8 --ep-size 4 --attn-dp-size 8 '
     '--enable-dp-lm-head --elastic-ep-backend mooncake --max-ep-size 16 '
     '--load-balance-method round_robin --cuda-graph-backend-prefill disabled', {}),
    ('elastic-ep/dllm', 'hopper', DS3, '--tp-size 8 --ep-size 8 --attn-dp-size 8 '
     '--enable-dp-lm-head --elastic-ep-backend mooncake --max-ep-size 16 '
     '--load-balance-method round_robin --cuda-graph-backend-prefill disabled '
     '--dllm-algorithm JointThreshold', {}),
    ('unified/pd-hisparse-flashmla', 'hopper', DSA, '--tp-size 8 --enable-unified-memory '
     '--disaggregation-mode decode --enable-hisparse --attention-backend flashmla', {}),
    ('unified/offload-mamba-file', 'hopper', NEXT, '--enable-unified-memory '
     '--disaggregation-mode decode --disaggregation-decode-enable-offload-kvcache '
     '--hicache-storage-backend file', {}),
    ('unified/offload-swa', 'hopper', OSS, '--enable-unified-memory --disaggregation-mode '
     'decode --disaggregation-decode-enable-offload-kvcache --hicache-storage-backend file', {}),
    ('layernorm-sp/megamoe-bucket', 'blackwell', MUSE, '--tp-size 8 --ep-size 8 '
     '--enable-layernorm-sp --enable-megamoe-for-layernorm-sp --moe-runner-backend '
     'flashinfer_trtllm --cuda-graph-backend-prefill breakable --cuda-graph-bs-prefill 512 '
     '1024 --chunked-prefill-size 4096', {}),
    ('dsv4/rocm-cp', 'cdna4', HYV, '--tp-size 8 --disaggregation-mode prefill '
     '--enable-prefill-cp --cp-strategy interleave --prefill-attention-backend aiter', {}),
    ('cp-tp/spec', 'hopper', G5N, '--tp-size 8 '
     '--enable-prefill-cp --attn-cp-size 8 --cp-strategy interleave '
     '--speculative-algorithm EAGLE --speculative-eagle-topk 2', {}),
    ('spec/adaptive', 'hopper', L8, '--speculative-algorithm EAGLE '
     '--speculative-draft-model-path ' + EAGLE + ' --speculative-adaptive '
     '--speculative-num-steps 9', {}),
    ('spec/dflash-dp-xpu', 'hopper', Q3, '--device xpu --tp-size 2 --attn-dp-size 2 '
     '--speculative-algorithm DFLASH --speculative-draft-model-path models/qwen3-8b', {}),
    ('spec/dspark-block0', 'hopper', Q3, '--speculative-algorithm DSPARK '
     '--speculative-draft-model-path models/qwen3-8b --speculative-dspark-block-size 0', {}),
    ('spec/dspark-draft1', 'hopper', Q3, '--speculative-algorithm DSPARK '
     '--speculative-draft-model-path models/qwen3-8b --speculative-num-draft-tokens 1', {}),
    ('spec/dspark-pp-spec-env', 'hopper', Q3, '--speculative-algorithm DSPARK '
     '--speculative-draft-model-path models/qwen3-8b --pp-size 2 --disaggregation-mode '
     'prefill', {'SGLANG_ENABLE_PP_SPEC': '1'}),
    ('watermark/token-oracle', 'hopper', L8, '--enable-watermark --sampling-backend '
     'token_oracle', {'SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE': '1'}),
    ('dsv4/rr-dp', 'blackwell', HYV, '--tp-size 8 --attn-dp-size 2 --enable-prefill-cp '
     '--cp-strategy interleave', {}),
    ('spec/uno-tree-capacity', 'hopper', L8, '--speculative-algorithm UNO --uno-lora-path '
     '/tmp/uno --speculative-num-draft-tokens 20 --speculative-num-steps 2 '
     '--speculative-eagle-topk 2', {}),
    ('spec/uno-tree-parent', 'hopper', L8, '--speculative-algorithm UNO --uno-lora-path '
     '/tmp/uno --speculative-num-draft-tokens 8 --speculative-num-steps 2 '
     '--speculative-eagle-topk 4', {}),
    ('graph/cpu-compile-bs', 'hopper', L8, '--device cpu --enable-torch-compile '
     '--torch-compile-max-bs 0 --cuda-graph-max-bs-decode 0', {}),
    ('unified/eagle-hicache-next', 'hopper', NEXT, '--enable-unified-memory '
     '--enable-hierarchical-cache --speculative-algorithm EAGLE --speculative-eagle-topk 1 '
     '--speculative-num-steps 3 --speculative-num-draft-tokens 4', {}),
    ('fi-megamoe/fc2-reduce', 'blackwell', DSV3_FP4, '--quantization modelopt_fp4 '
     '--tp-size 8 --ep-size 8 --attn-dp-size 8 --moe-a2a-backend flashinfer_megamoe',
     {'SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE': 'nvfp4',
      'SGLANG_FLASHINFER_MEGAMOE_IN_KERNEL_FC2_REDUCE': '1'}),
    ('fi-megamoe/runner', 'blackwell', DSV3_FP4, '--quantization modelopt_fp4 --tp-size 8 '
     '--ep-size 8 --attn-dp-size 8 --moe-a2a-backend flashinfer_megamoe '
     '--moe-runner-backend flashinfer_cutlass', {}),
    ('fi-megamoe/w4a16-combine', 'blackwell', DSV3_FP4, '--quantization modelopt_fp4 '
     '--tp-size 8 --ep-size 8 --attn-dp-size 8 --moe-a2a-backend flashinfer_megamoe',
     {'SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16': '1',
      'SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE': 'mxfp8'}),
    ('fi-megamoe/w4a16-dtype', 'blackwell', DSV3_FP4, '--quantization modelopt_fp4 '
     '--tp-size 8 --ep-size 8 --attn-dp-size 8 --moe-a2a-backend flashinfer_megamoe '
     '--dtype float16', {'SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16': '1'}),
    ('w4a16/qwen3.6-triton', 'blackwell', Q36_FP4, '--tp-size 2 --moe-runner-backend triton', {}),
    # LongCat-Flash (its config from transformers' class defaults, which are the checkpoint's)
    ("longcat/tp8", "hopper", LONGCAT, "--tp-size 8", {}),
    ("longcat/prefill-cp-attn-cp", "hopper", LONGCAT, "--tp-size 8 --enable-prefill-cp "
     "--attn-cp-size 2 --cp-strategy zigzag", {}),
    # an IQuest Q1 draft of another width or depth; DSpark's and DeepSeek-V4.1's verify modes
    ("iquest/mtp-draft-wider", "hopper", IQ, "--speculative-algorithm EAGLE "
     "--speculative-draft-model-path parity-models/iquest-q1-mtp-wide-synth", {}),
    ("iquest/mtp-draft-deeper", "hopper", IQ, "--speculative-algorithm EAGLE "
     "--speculative-draft-model-path parity-models/iquest-q1-mtp-deep-synth", {}),
    ("spec/dspark-dp-mori-compact", "hopper", MOE, "--speculative-algorithm DSPARK "
     "--speculative-draft-model-path " + MOE + " --tp-size 4 --ep-size 4 --attn-dp-size 4 "
     "--enable-dp-lm-head --moe-a2a-backend mori", {"SGLANG_RAGGED_VERIFY_MODE": "compact"}),
    ("kimi-k3/dcp-dspark-compact", "blackwell", K3, "--tp-size 8 --dcp-size 2 "
     "--decode-attention-backend trtllm_mla --speculative-algorithm DSPARK "
     "--speculative-draft-model-path " + K3, {"SGLANG_RAGGED_VERIFY_MODE": "compact"}),
    ("dsv41/dspark-pd-compact", "blackwell", V41, f"--tp-size 8 {PD_P} "
     "--speculative-algorithm DSPARK --speculative-draft-model-path " + V41,
     {"SGLANG_RAGGED_VERIFY_MODE": "compact"}),
    ("serve/http2-ssl-refresh", "cuda", L8, "--enable-http2 --enable-ssl-refresh "
     "--ssl-keyfile /etc/hosts --ssl-certfile /etc/hosts", {}),
    # FlyDSL MegaMoE's separate decode capacity on ROCm, with and without attention CP
    ("megamoe/flydsl-decode-cap-cp", "cdna4", HYV, "--tp-size 8 --ep-size 8 "
     "--moe-a2a-backend megamoe --enable-prefill-cp --cp-strategy interleave "
     "--max-running-requests 64", FLYDSL),
    ("megamoe/flydsl-decode-cap", "cdna4", HYV, "--tp-size 8 --ep-size 8 "
     "--moe-a2a-backend megamoe --max-running-requests 64", FLYDSL),
)


def _split(line: str) -> list[str]:
    """The words of a line as a shell passes them, JSON objects and lists kept whole (their
    double quotes are part of the value)."""
    words = shlex.split(line, posix=False)
    return [w[1:-1] if len(w) >= 2 and w[0] == w[-1] == "'" else w for w in words]


def cases(seed: int, suite: str) -> list[dict]:
    rng = random.Random(seed)
    compared = wild5.compared_fields()
    out = []
    for tag, family, model, line, env in LINES:
        argv = _split(line)
        fields = compared + wild3.own_fields(argv, compared)
        if "--enable-lora" in argv or "--lora-paths" in argv:
            # the launcher check itself writes it (check_lora_server_args: false when unset),
            # after the resolution launchplan plans, which leaves it unset as resolution does
            fields = [f for f in fields if f != "enable_lora_overlap_loading"]
        case: dict = {"name": f"{suite}/{tag}", "platform": rng.choice(FAMILIES[family]),
                      "model": model, "argv": argv, "fields": fields}
        cuda = env.get("__cuda")
        if cuda:
            case["platform_overrides"] = {"cuda": cuda}
        env = {k: v for k, v in env.items() if not k.startswith("__")}
        out.append({**case, "env": env} if env else case)
    return out


def main() -> None:
    wild5.write_draw("refusals", SEED, cases)


if __name__ == "__main__":
    main()
