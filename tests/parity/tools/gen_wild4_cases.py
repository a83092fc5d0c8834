"""Generate ``tests/parity/data/wild4-cases.json``: a fourth draw of wild lines, combining the
feature groups real launches set together.

    PYTHONPATH=src:. python tests/parity/tools/gen_wild4_cases.py [--probe SEED]
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py wild4 --jobs 2

The earlier draws add flags one by one from the rules' surface; a flag no rule reads is drawn
only rarely, and a group of flags that belong together (a PD decode role with its KV offload
and retraction backup, HiCache with its layout and storage, LoRA with its backend) almost
never. Each ``wild4/<i>`` line here is a realistic base (``gen_wild_cases.base``) plus one to
two feature groups: PD disaggregation, LoRA, multimodal serving, the hierarchical cache,
quantization, speculative decoding (NGRAM, STANDALONE, EAGLE3 too), attention DP with the
DP LM head, pipeline parallelism, and the serving switches around the tokenizer, the weight
cache and the cache backends; a third of them are followed by 1-6 flags leaning on the rarest
rules, as in ``gen_wild3_cases`` (its frozen rarity table). The models are every bundled one
and the published configs under ``tests/parity/models`` (no synthetic ones). Then the lines
aimed at the classes this draw found (``wild4/aimed/<name>``). Seeded and frozen: the groups
and the rarity table are data here, so later rules do not change the draw.

``--probe SEED`` draws the same kind of lines with another seed into ``probe-cases.json``
(named ``probe/<i>``, no aimed lines), to look for the next classes. ``--record-older X``
records the lines that reach the HiCache host-pool rules (``older_subset``) with the oracle
venv of release X (``~/sglang-oracle-X``) into ``results-wild4-X.jsonl``, the answers those
rules' older variants are checked against (the first older recording); the other lines are
recorded after them with ``record_suite.py wild4 --release X --missing``.
"""

from __future__ import annotations

import json
import random
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from tests.parity.tools import gen_wild3_cases as wild3
from tests.parity.tools import gen_wild_cases as wild

from launchplan.input.fields import FIELDS

SEED = 4044
COUNT = 240
# published checkpoints' configs the suites keep (tests/parity/models/README.md)
PUBLISHED = ("qwen2.5-vl-7b-instruct", "qwen2-vl-7b-instruct", "llava-1.5-7b-hf",
             "gemma-3-4b-it", "gemma-2-9b-it", "olmo-2-1124-7b", "deepseek-v3.2-exp",
             "glm-4.5-air", "whisper-large-v3", "glm-4.7-flash", "qwen3.5-9b",
             "qwen3.6-35b-a3b")
Draw = Callable[[random.Random], list[str]]


def _some(rng: random.Random, *options: list[str], p: float = 0.5) -> list[str]:
    """Each option's tokens with probability ``p``."""
    return [t for option in options if rng.random() < p for t in option]


def pd(rng: random.Random) -> list[str]:
    mode = rng.choice(("prefill", "decode"))
    argv = ["--disaggregation-mode", mode]
    argv += _some(rng, ["--disaggregation-transfer-backend",
                        rng.choice(("mooncake", "nixl", "fake", "mori"))],
                  ["--disaggregation-decode-retraction-backup",
                   rng.choice(("cpu_tensor", "host_pool", "none"))],
                  ["--disaggregation-decode-host-receive-threshold", rng.choice(("0.5", "1"))],
                  ["--disaggregation-decode-enable-offload-kvcache"],
                  ["--hicache-storage-backend", rng.choice(("file", "mooncake"))],
                  ["--disaggregation-decode-enable-radix-cache"], p=0.25)
    return argv


def lora(rng: random.Random) -> list[str]:
    argv = ["--enable-lora", "--max-lora-rank", rng.choice(("8", "16", "64"))]
    return argv + _some(rng, ["--lora-target-modules", "all"],
                        ["--max-loras-per-batch", rng.choice(("1", "4", "8"))],
                        ["--lora-backend", rng.choice(FIELDS["lora_backend"].choices)],
                        ["--max-loaded-loras", rng.choice(("8", "16"))],
                        ["--moe-runner-backend", rng.choice(("lora_triton", "triton"))],
                        p=0.3)


def multimodal(rng: random.Random) -> list[str]:
    argv = ["--enable-multimodal"] if rng.random() < 0.7 else []
    return argv + _some(rng, ["--mm-attention-backend",
                              rng.choice(FIELDS["mm_attention_backend"].choices)],
                        ["--mm-enable-dp-encoder"], ["--language-model-only"],
                        ["--mm-feature-transport", rng.choice(("cpu", "cuda_ipc"))],
                        [rng.choice(("--encoder-only", "--language-only"))],
                        ["--enable-prefix-mm-cache"], p=0.25)


def hicache(rng: random.Random) -> list[str]:
    argv = ["--enable-hierarchical-cache"]
    return argv + _some(rng, ["--hicache-ratio", rng.choice(("1.5", "2", "3"))],
                        ["--hicache-size", rng.choice(("0", "16", "64"))],
                        ["--hicache-mem-layout", rng.choice(FIELDS["hicache_mem_layout"].choices)],
                        ["--hicache-io-backend", rng.choice(("direct", "kernel"))],
                        ["--hicache-write-policy",
                         rng.choice(FIELDS["hicache_write_policy"].choices)],
                        ["--hicache-storage-backend",
                         rng.choice(("file", "mooncake", "hf3fs", "nixl", "npu_memcache"))],
                        ["--hicache-host-memory-mode", "buffer_only"],
                        ["--hicache-host-memory-fraction", rng.choice(("0.5", "1", "1.5"))],
                        ["--hicache-storage-prefetch-policy",
                         rng.choice(FIELDS["hicache_storage_prefetch_policy"].choices)],
                        p=0.25)


def quantization(rng: random.Random) -> list[str]:
    return (["--quantization", rng.choice(wild.QUANT)]
            + _some(rng, ["--kv-cache-dtype", rng.choice(wild.KV)],
                    ["--fp8-gemm-backend",
                     rng.choice(FIELDS["fp8_gemm_runner_backend"].choices)],
                    ["--moe-runner-backend", rng.choice(FIELDS["moe_runner_backend"].choices)],
                    p=0.35))


def speculative(rng: random.Random, model: str) -> list[str]:
    argv = wild.speculative(rng, model)
    return argv + _some(rng, ["--speculative-draft-attention-backend",
                              rng.choice(("flashinfer", "fa3", "triton", "trtllm_mha"))],
                        ["--speculative-moe-runner-backend", rng.choice(("triton", "deep_gemm"))],
                        p=0.2)


def attention_dp(rng: random.Random, tp: int) -> list[str]:
    dp = rng.choice([d for d in (2, 4, 8) if d <= tp] or [2])
    argv = (["--enable-dp-attention", "--dp-size", str(dp)] if rng.random() < 0.5
            else ["--attn-dp-size", str(dp)])
    return argv + _some(rng, ["--enable-dp-lm-head"], ["--moe-dense-tp-size", "1"],
                        ["--moe-a2a-backend", rng.choice(("deepep", "none", "flashinfer"))],
                        ["--deepep-mode", rng.choice(FIELDS["deepep_mode"].choices)],
                        ["--ep-size", str(tp)], p=0.4)


def pipeline(rng: random.Random) -> list[str]:
    return (["--pp-size", rng.choice(("2", "4"))]
            + _some(rng, ["--pp-max-micro-batch-size", rng.choice(("4", "16"))],
                    ["--pp-async-batch-depth", rng.choice(("1", "2"))],
                    ["--chunked-prefill-size", rng.choice(("4096", "-1"))], p=0.35))


def serving(rng: random.Random) -> list[str]:
    return _some(rng, [rng.choice(("--enable-tokenizer-batch-encode",
                                   "--enable-dynamic-batch-tokenizer"))],
                 ["--skip-tokenizer-init", "--detokenizer-worker-num", "2"],
                 ["--weight-cache-mode", rng.choice(("client", "daemon"))],
                 ["--enable-lmcache"], ["--enable-int8-mamba-checkpoint"],
                 ["--enable-unified-cache-external-linker"], p=0.3) or ["--skip-server-warmup"]


GROUPS = ("pd", "lora", "multimodal", "hicache", "quantization", "speculative",
          "attention_dp", "pipeline", "serving")


def groups(rng: random.Random, model: str, argv: list[str]) -> list[str]:
    """One or two feature groups, each drawn once."""
    tp = next((int(argv[i + 1]) for i, a in enumerate(argv)
               if a in ("--tp-size", "--tp", "--tensor-parallel-size")), 1)
    out: list[str] = []
    for name in rng.sample(GROUPS, rng.randint(1, 2)):
        if name == "speculative":
            out += speculative(rng, model)
        elif name == "attention_dp":
            out += attention_dp(rng, max(tp, 2))
        else:
            out += globals()[name](rng)
    return out


#: Lines aimed at the classes this draw found (``wild4/aimed/<name>``): platform, model, argv.
#: SGLang sizes the HiCache host pool on every launch (handle_hicache_ratio_default) and
#: normalises its host mode, layout and I/O backend before data parallelism (handle_hicache,
#: where the external cache linker is checked too); the tokenizer batching, weight cache,
#: shared-expert TP, int8 Mamba checkpoint and linear-attention kernel checks
#: (handle_linear_attn_backend, for any model) run in their own hooks. The LMCache and decode
#: offload lines keep texts of checks launchplan already had, first recorded here.
LINKER = ["--enable-unified-cache-external-linker"]
DYNAMIC = LINKER + ["--unified-cache-external-linker-backend", "dynamic",
                    "--unified-cache-external-linker-config"]
AIMED: dict[str, tuple[str, str, list[str]]] = {
    "hicache/buffer-only-no-storage": ("h100", "llama-3.1-8b", [
        "--enable-hierarchical-cache", "--hicache-host-memory-mode", "buffer_only"]),
    "hicache/buffer-only-write-back": ("h100", "llama-3.1-8b", [
        "--enable-hierarchical-cache", "--hicache-host-memory-mode", "buffer_only",
        "--hicache-storage-backend", "file", "--hicache-write-policy", "write_back"]),
    "hicache/buffer-only-decode": ("h100", "llama-3.1-8b", [
        "--disaggregation-mode", "decode", "--enable-hierarchical-cache",
        "--hicache-host-memory-mode", "buffer_only", "--hicache-storage-backend", "file"]),
    "hicache/fraction-above-one": ("h100", "llama-3.1-8b", [
        "--enable-hierarchical-cache", "--hicache-host-memory-fraction", "1.5"]),
    "hicache/fraction-zero-decode": ("h200", "qwen3-8b", [
        "--disaggregation-mode", "decode", "--hicache-host-memory-fraction", "0"]),
    "hicache/page-first-direct": ("h100", "llama-3.1-8b", [
        "--enable-hierarchical-cache", "--hicache-mem-layout", "page_first_direct"]),
    "hicache/direct-io": ("b200", "qwen3-32b", [
        "--tp-size", "2", "--enable-hierarchical-cache", "--hicache-io-backend", "direct"]),
    "hicache/mooncake-layer-first": ("h100", "llama-3.1-8b", [
        "--enable-hierarchical-cache", "--hicache-storage-backend", "mooncake",
        "--hicache-mem-layout", "layer_first"]),
    "hicache/memcache-layer-first-direct": ("h100", "llama-3.1-8b", [
        "--enable-hierarchical-cache", "--hicache-storage-backend", "npu_memcache",
        "--hicache-mem-layout", "layer_first", "--hicache-io-backend", "direct"]),
    "hicache/unified-memory-direct": ("h100", "llama-3.1-8b", [
        "--enable-hierarchical-cache", "--hicache-io-backend", "direct",
        "--enable-unified-memory", "--attention-backend", "fa3"]),
    "hicache/decode-receive-layer-first": ("h100", "llama-3.1-8b", [
        "--disaggregation-mode", "decode", "--disaggregation-decode-host-receive-threshold",
        "0.5", "--hicache-mem-layout", "page_first"]),
    "hicache/decode-receive-mooncake": ("h100", "llama-3.1-8b", [
        "--disaggregation-mode", "decode", "--disaggregation-decode-host-receive-threshold",
        "0.5", "--hicache-storage-backend", "mooncake", "--hicache-mem-layout", "layer_first",
        "--enable-hierarchical-cache"]),
    "hicache/ratio-given": ("h100", "llama-3.1-8b", ["--hicache-ratio", "3"]),
    "hicache/size-buffer-only": ("h100", "llama-3.1-8b", [
        "--hicache-size", "10", "--hicache-host-memory-mode", "buffer_only"]),
    "hicache/dcp-mla": ("h100", "deepseek-v3", [
        "--tp-size", "8", "--dcp-size", "2", "--enable-hierarchical-cache"]),
    "hicache/dcp-mooncake-layer-first": ("h100", "deepseek-v3", [
        "--tp-size", "8", "--dcp-size", "2", "--enable-hierarchical-cache",
        "--hicache-storage-backend", "mooncake", "--hicache-mem-layout", "layer_first"]),
    "hicache/dcp-eagle": ("h100", "deepseek-v3", [
        "--tp-size", "8", "--dcp-size", "2", "--enable-hierarchical-cache",
        "--speculative-algorithm", "EAGLE"]),
    "hicache/dcp-buffer-only-storage": ("h100", "deepseek-v3", [
        "--tp-size", "8", "--dcp-size", "2", "--enable-hierarchical-cache",
        "--hicache-storage-backend", "file", "--hicache-host-memory-mode", "buffer_only"]),
    "hicache/dcp-mha": ("h100", "qwen3-32b", [
        "--tp-size", "8", "--dcp-size", "2", "--enable-hierarchical-cache"]),
    "linker/no-radix": ("h100", "llama-3.1-8b", LINKER + ["--disable-radix-cache"]),
    "linker/hicache": ("h100", "llama-3.1-8b", LINKER + ["--enable-hierarchical-cache"]),
    "linker/storage": ("h100", "llama-3.1-8b", LINKER + ["--hicache-storage-backend", "file"]),
    "linker/config-not-object": ("h100", "llama-3.1-8b", LINKER + [
        "--unified-cache-external-linker-config", "[1]"]),
    "linker/dynamic-missing-module": ("h100", "llama-3.1-8b", DYNAMIC + ['{"linker": "A"}']),
    "linker/dynamic": ("h100", "llama-3.1-8b", DYNAMIC + [
        '{"linker": "A", "linker_module_path": "m"}']),
    "linker/dynamic-unknown-key": ("h100", "llama-3.1-8b", DYNAMIC + [
        '{"linker": "A", "linker_module_path": "m", "x": 1}']),
    "linker/mla-dedup-alone": ("h100", "llama-3.1-8b", ["--enable-linker-mla-dedup"]),
    "linker/mla-dedup": ("h100", "deepseek-v3", ["--tp-size", "8"] + LINKER + [
        "--enable-linker-mla-dedup"]),
    "tokenizer/both-batchings": ("h100", "llama-3.1-8b", [
        "--enable-tokenizer-batch-encode", "--enable-dynamic-batch-tokenizer"]),
    "tokenizer/skip-init": ("h100", "llama-3.1-8b", [
        "--skip-tokenizer-init", "--detokenizer-worker-num", "4",
        "--enable-tokenizer-batch-encode"]),
    "weight-cache/speculative": ("h100", "llama-3.1-8b", [
        "--weight-cache-mode", "client", "--speculative-algorithm", "NGRAM"]),
    "weight-cache/daemon": ("h100", "llama-3.1-8b", ["--weight-cache-mode", "daemon"]),
    "shared-experts-tp/llama": ("h100", "llama-3.1-8b", ["--shared-experts-tp-size", "2"]),
    "shared-experts-tp/deepseek": ("h100", "deepseek-v3", [
        "--tp-size", "8", "--shared-experts-tp-size", "2", "--moe-a2a-backend", "deepep"]),
    "int8-mamba/hicache": ("h100", "llama-3.1-8b", [
        "--enable-int8-mamba-checkpoint", "--enable-hierarchical-cache"]),
    "int8-mamba/lmcache": ("h100", "qwen3-8b", [
        "--enable-int8-mamba-checkpoint", "--enable-lmcache"]),
    "int8-mamba/alone": ("h100", "qwen3-8b", ["--enable-int8-mamba-checkpoint"]),
    "int8-mamba/radix-backend": ("h100", "parity-models/qwen3-next-synth", [
        "--tp-size", "2", "--enable-int8-mamba-checkpoint", "--radix-cache-backend", "x"]),
    "lmcache/hicache": ("h100", "llama-3.1-8b", [
        "--enable-hierarchical-cache", "--enable-lmcache"]),
    "lmcache/no-radix": ("h100", "llama-3.1-8b", ["--enable-lmcache", "--disable-radix-cache"]),
    "lmcache/ngram": ("h100", "llama-3.1-8b", ["--enable-lmcache", "--speculative-algorithm",
                                               "NGRAM"]),
    "lmcache/pd-prefill": ("h100", "llama-3.1-8b", [
        "--enable-lmcache", "--disaggregation-mode", "prefill"]),
    "lmcache/buffer-only": ("h100", "llama-3.1-8b", [
        "--enable-lmcache", "--hicache-host-memory-mode", "buffer_only"]),
    "pd/offload-without-storage": ("h100", "llama-3.1-8b", [
        "--disaggregation-mode", "decode", "--disaggregation-decode-enable-offload-kvcache"]),
    "pd/offload-and-host-pool": ("h100", "llama-3.1-8b", [
        "--disaggregation-mode", "decode", "--disaggregation-decode-enable-offload-kvcache",
        "--hicache-storage-backend", "file", "--disaggregation-decode-retraction-backup",
        "host_pool"]),
    "pd/host-pool-dcp": ("h100", "deepseek-v3", [
        "--tp-size", "8", "--disaggregation-mode", "decode",
        "--disaggregation-decode-retraction-backup", "host_pool", "--dcp-size", "2"]),
    "linear-attn/flashinfer-sm100-no-bf16": ("b200", "llama-3.1-8b", [
        "--linear-attn-backend", "flashinfer"]),
    "linear-attn/sm100-bf16-default": ("b200", "parity-models/qwen3-next-synth", [
        "--mamba-ssm-dtype", "bfloat16"]),
    "linear-attn/flashinfer-float32": ("b200", "parity-models/qwen3-next-synth", [
        "--linear-attn-backend", "flashinfer", "--mamba-ssm-dtype", "float32"]),
    "linear-attn/flashinfer-hopper": ("h100", "parity-models/qwen3-next-synth", [
        "--linear-attn-backend", "flashinfer"]),
    "linear-attn/flashkda-decode": ("h100", "llama-3.1-8b", [
        "--linear-attn-decode-backend", "flashkda"]),
    "linear-attn/flashkda-base": ("h100", "parity-models/kimi-linear-synth", [
        "--linear-attn-backend", "flashkda"]),
    "linear-attn/verify-flashinfer-sm120": ("rtx5090", "llama-3.1-8b", [
        "--linear-attn-verify-backend", "flashinfer"]),
    "linear-attn/helion-base": ("b200", "llama-3.1-8b", [
        "--mamba-ssm-dtype", "bfloat16", "--linear-attn-backend", "helion"]),
    "replayssm/cutedsl": ("h100", "llama-3.1-8b", [
        "--enable-linear-replayssm", "--linear-attn-backend", "cutedsl"]),
    "replayssm/pd": ("h100", "llama-3.1-8b", [
        "--enable-linear-replayssm", "--disaggregation-mode", "prefill"]),
    "replayssm/cache-len-0": ("h100", "llama-3.1-8b", [
        "--enable-linear-replayssm", "--linear-replayssm-cache-len", "0"]),
    "replayssm/extra-buffer": ("h100", "parity-models/qwen3-next-synth", [
        "--enable-linear-replayssm", "--mamba-radix-cache-strategy", "extra_buffer"]),
    "replayssm-spec/float32": ("h100", "llama-3.1-8b", ["--enable-linear-replayssm-spec"]),
    "replayssm-spec/tree": ("h100", "llama-3.1-8b", [
        "--enable-linear-replayssm-spec", "--speculative-algorithm", "EAGLE",
        "--speculative-draft-model-path", "models/llama-3.1-8b-eagle",
        "--speculative-eagle-topk", "4", "--speculative-num-steps", "3",
        "--speculative-num-draft-tokens", "8"]),
    "replayssm-spec/with-replayssm": ("h100", "llama-3.1-8b", [
        "--enable-linear-replayssm-spec", "--enable-linear-replayssm"]),
    "replayssm-spec/pd-prefill": ("h100", "llama-3.1-8b", [
        "--enable-linear-replayssm-spec", "--disaggregation-mode", "prefill"]),
    "replayssm-spec/cutedsl": ("b200", "llama-3.1-8b", [
        "--enable-linear-replayssm-spec", "--linear-attn-backend", "cutedsl"]),
    # architectures no suite had a published config for (tests/parity/models/README.md)
    "published/glm-4.7-flash": ("h100", "parity-models/glm-4.7-flash", []),
    "published/glm-4.7-flash-mtp": ("h100", "parity-models/glm-4.7-flash", [
        "--tp-size", "2", "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
        "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"]),
    "published/glm-4.7-flash-dp-b200": ("b200", "parity-models/glm-4.7-flash", [
        "--tp-size", "4", "--attn-dp-size", "4", "--enable-dp-lm-head"]),
    "published/qwen3.5-9b": ("h100", "parity-models/qwen3.5-9b", []),
    "published/qwen3.5-9b-nextn-b200": ("b200", "parity-models/qwen3.5-9b", [
        "--speculative-algorithm", "NEXTN"]),
    "published/qwen3.5-9b-hicache": ("h200", "parity-models/qwen3.5-9b", [
        "--enable-hierarchical-cache", "--mamba-radix-cache-strategy", "extra_buffer"]),
    "published/qwen3.6-35b-a3b": ("h100", "parity-models/qwen3.6-35b-a3b", ["--tp-size", "2"]),
    "published/qwen3.6-35b-a3b-ep-b200": ("b200", "parity-models/qwen3.6-35b-a3b", [
        "--tp-size", "4", "--ep-size", "4", "--speculative-algorithm", "EAGLE"]),
    "published/qwen3.6-35b-a3b-mi355x": ("mi355x", "parity-models/qwen3.6-35b-a3b", [
        "--tp-size", "2", "--language-model-only"]),
}
# lines the probe draws found disagreeing (``wild4/found/<seed>-<n>``): with the fixes above
# in place, a first probe (``--probe 5454``, 240 lines) still found SGLang texts of checks
# launchplan makes that no recorded case had mapped (a PD prefill server or a decode radix
# cache on the fake transfer backend, DFLASH capture without layer ids, decode host receive
# with HiSparse)
FOUND: list[tuple[str, str, str, list[str]]] = [
    ("5454-70", "mi300x", "qwen3-4b", (
        "--tp 2 --attention-backend aiter --mem-fraction-static 0.8 --enable-mixed-chunk "
        "--enable-multimodal --disaggregation-mode prefill --disaggregation-transfer-backend "
        "fake --disaggregation-decode-enable-offload-kvcache --hicache-storage-backend file "
        "--pp-size 4 --chunked-prefill-size -1 --mm-attention-backend sdpa --encoder-only "
        "--language-model-only --mm-enable-dp-encoder --context-length 2 --language-model-only "
        "--dcp-comm-backend a2a").split()),
    ("5454-86", "b300", "parity-models/glm-4.5-air", (
        "--tp-size 4 --attention-backend fa4 --kv-cache-dtype bf16 --moe-runner-backend marlin "
        "--mem-fraction-static 0.7 --enable-hierarchical-cache --hicache-size 0 "
        "--hicache-io-backend direct --hicache-write-policy write_through_selective "
        "--hicache-storage-backend file --hicache-host-memory-mode buffer_only "
        "--disaggregation-mode prefill --disaggregation-transfer-backend fake "
        "--disaggregation-decode-host-receive-threshold 1 --enable-dp-attention --dp-size 4 "
        "--moe-a2a-backend none").split()),
    ("5454-116", "mi355x", "parity-models/llava-1.5-7b-hf", (
        "--attention-backend fa4 --speculative-algorithm EAGLE --speculative-num-steps 3 "
        "--speculative-eagle-topk 4 --speculative-num-draft-tokens 8 --kv-cache-dtype nvfp4 "
        "--enable-mixed-chunk --disaggregation-mode decode --quantize-and-serve "
        "--speculative-algorithm DFLASH --speculative-eagle-topk -1 --rl-on-policy-target fsdp "
        "--rl-on-policy-target fsdp --fp8-gemm-backend auto --enable-tp-lm-head-all-to-all "
        "--enable-return-aux-hidden-states --enable-return-aux-hidden-states").split()),
    ("5454-184", "gb200", "deepseek-v2-lite", (
        "--attention-backend fa4 --quantization mxfp4 --kv-cache-dtype bf16 "
        "--max-running-requests 16 --enable-multimodal --mm-attention-backend sdpa "
        "--speculative-algorithm NGRAM --disaggregation-mode decode "
        "--disaggregation-transfer-backend fake --disaggregation-decode-enable-radix-cache "
        "--quantization compressed-tensors --fp8-gemm-backend aiter "
        "--speculative-num-steps 2").split()),
    ("5454-233", "mi355x", "gemma-2-9b", (
        "--tensor-parallel-size 2 --moe-runner-backend auto --quantization compressed-tensors "
        "--disaggregation-mode decode --disaggregation-transfer-backend nixl "
        "--disaggregation-decode-host-receive-threshold 0.5 --hicache-storage-backend file "
        "--enable-hierarchical-cache --hicache-size 0 --hicache-mem-layout page_first_direct "
        "--prefill-only-disable-kv-cache --enable-hisparse --asr-max-buffer-seconds 2 "
        "--speculative-draft-sink-size 4 --speculative-algorithm DSPARK").split()),
    # a second probe (``--probe 6565``, 240 lines, the groups as now) found one more such text
    # (DSA's KV cache dtypes)
    ("6565-128", "h200", "parity-models/deepseek-v3.2-exp", (
        "--tp-size 8 --kv-cache-dtype mxfp8 --max-running-requests 16 --enable-lora "
        "--max-lora-rank 16 --enable-hierarchical-cache --hicache-storage-backend nixl").split()),
]
# fields the fixes for this draw write, compared in every line
FIX_FIELDS = ["hicache_ratio", "hicache_host_memory_fraction", "hicache_mem_layout",
              "hicache_io_backend", "hicache_write_policy", "detokenizer_worker_num",
              "enable_tokenizer_batch_encode", "enable_dynamic_batch_tokenizer",
              "linear_attn_decode_backend", "linear_attn_verify_backend", "mamba_ssm_dtype"]


def models() -> list[str]:
    """Bundled models (as ``models/<name>``) and the published parity configs."""
    bundled = sorted(f"models/{m}" for m in wild.bundled_models() if m not in wild.DRAFTS)
    return bundled + [f"parity-models/{m}" for m in PUBLISHED]


def older_subset(case: dict) -> bool:
    """A line that reaches the HiCache host-pool rules: aimed at HiCache, the linker, LMCache or
    a PD decode host pool, or setting a HiCache flag."""
    aimed = ("/aimed/hicache/", "/aimed/linker/", "/aimed/lmcache/", "/aimed/pd/")
    return (any(a in case["name"] for a in aimed)
            or any(t.startswith("--hicache") or t == "--enable-hierarchical-cache"
                   for t in case["argv"]))


def record_older(release: str) -> None:
    from tests.parity.tools.record_suite import ORACLE, for_oracle

    cases = [c for c in json.loads((wild.DATA / "wild4-cases.json").read_text())
             if older_subset(c)]
    with tempfile.TemporaryDirectory() as tmp:
        todo, answers = Path(tmp) / "cases.json", Path(tmp) / "out.jsonl"
        todo.write_text(json.dumps([for_oracle(c) for c in cases]))
        subprocess.run([str(Path.home() / f"sglang-oracle-{release}" / "bin" / "python"),
                        str(ORACLE / "sglang_oracle.py"), str(todo), "--out", str(answers),
                        "--jobs", "2"], check=True, stdout=subprocess.DEVNULL)
        rows = {json.loads(line)["name"]: line.rstrip("\n")
                for line in answers.read_text().splitlines() if line.strip()}
    out = wild.DATA / f"results-wild4-{release}.jsonl"
    out.write_text("".join(rows[c["name"]] + "\n" for c in cases if c["name"] in rows))
    print(f"wild4: {len(rows)} answers of SGLang {release} in {out}")


def main() -> None:
    given = wild.options(valued=("--probe", "--record-older"))
    if "--record-older" in given:
        record_older(given["--record-older"])
        return
    probe = given.get("--probe")
    suite = "probe" if probe else "wild4"
    rng = random.Random(int(probe) if probe else SEED)
    table = json.loads(wild3.RARITY.read_text())
    triggers, reads, compared = wild.pool(False)
    triggers = [t for t in triggers if t not in wild3.NEVER]
    reads = [r for r in reads if r not in wild3.NEVER]
    compared = compared + [f for f in FIX_FIELDS if f not in compared]
    pool = models()
    cases = []
    for i in range(COUNT):
        platform = wild.PLATFORMS[i % len(wild.PLATFORMS)]
        model = pool[rng.randrange(len(pool))]
        name = model.split("/", 1)[1]
        argv = wild.base(rng, platform, name)
        argv += groups(rng, name, argv)
        if rng.random() < 0.35:
            argv += wild3.leaning(rng, table, triggers, reads)
        cases.append({"name": f"{suite}/{i}", "platform": platform, "model": model,
                      "argv": argv, "fields": compared + wild3.own_fields(argv, compared)})
    extra = {} if probe else {
        **{f"aimed/{name}": line for name, line in AIMED.items()},
        **{f"found/{n}": (platform, model, argv) for n, platform, model, argv in FOUND}}
    for name, (platform, model, argv) in extra.items():
        model = model if "/" in model else f"models/{model}"
        cases.append({"name": f"wild4/{name}", "platform": platform, "model": model,
                      "argv": argv, "fields": compared + wild3.own_fields(argv, compared)})
    out = wild.DATA / f"{suite}-cases.json"
    out.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print(f"{suite}: wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
