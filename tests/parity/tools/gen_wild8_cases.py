"""Generate ``tests/parity/data/wild8-cases.json``: launches leaning on what no recorded suite
had set, over every model family and the whole target catalog.

    PYTHONPATH=src:. python tests/parity/tools/gen_wild8_cases.py [--probe SEED]
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py wild8 --jobs 1 --timeout 120

Before this draw, counting every ``*-cases.json`` (9,290 cases) against SGLang 0.5.23's field
table left gaps that real launches reach:

* values of SGLang's choice lists no case had given: ``--quantization`` gptq_marlin,
  petit_nvfp4, w4afp8, auto-round, mxfp_w4a8, mlx_q8, unquant; most ``--load-format``\\ s;
  ``--dtype float``/``float32``; four schedule policies and the priority eviction policy;
  the tokenizer modes and backends; attention backends (qsa, hpc_ops, intel_xpu, ascend, the
  MiniCPM ones, compressed/dsv4 as a prefill or decode half); the DSA kernels' and the linear
  attention kernels' lists; the draft's KV dtype, MoE runner, A2A and quantization; HiCache
  storage backends aibrix/dynamic/simm/shm; LoRA target modules, eviction policies and
  chunk sizes; the FP4/BF16 GEMM runners, the MXFP4 MoE precision, DeepEP's output dtype,
  the MNNVL all-reduce fusion, boundary reductions; and the single choice fields (hidden
  states mode, weight cache, KV canary, start-up load mode, encoder transfer, balancedness
  report, load balancing ``auto``/``follow_bootstrap_room``);
* about a hundred flags never set at all (``--enable-fp32-lm-head``,
  ``--enable-shared-experts-attn-tp``, ``--prefill-max-requests``, ``--enable-prefill-delayer``
  and its knobs, the scheduler's priority knobs, ``--enable-custom-logit-processor``,
  ``--enable-return-routed-experts``, ...);
* 112 of the 113 configs under ``tests/parity/models`` and ten bundled models appear in no
  wild draw: every one of them (but the AWQ/GPTQ checkpoints, see ``gen_wild6_cases``) is
  drawn here with a profile read from its config.

Each line is a guide's launch of its model (``gen_wild6_cases.line``, or ``gen_wild5``'s
launch for a profile read from the config) plus one to three of the gap groups below, now and
then one of wild7's crossed groups (speculation, attention DP, EP, PP, PD, multimodal) and an
odd value (0, -1, 2**31, nan, inf) of a flag the line sets. Seeded and frozen; ``--probe
SEED`` draws the same kind of lines into ``probe-cases.json``.
"""

from __future__ import annotations

import json
import random
import sys
from functools import cache

from tests.parity.tools import gen_wild3_cases as wild3
from tests.parity.tools import gen_wild5_cases as wild5
from tests.parity.tools import gen_wild6_cases as wild6
from tests.parity.tools import gen_wild7_cases as wild7
from tests.parity.tools import gen_wild_cases as wild

SEED = 8080
COUNT = 200
Profile = wild5.Profile

#: configs no wild draw had (tests/parity/models, bundled): their profile is read from the file
EXTRA = (
    "bailing-moe-v3-vl-fp8-mxfp4-synth", "bailing-moe-v3-vl-synth", "beam-synth",
    "cohere2-moe-synth", "deepseek-v3.2-exp", "deepseek-v3.2-topk-freq-synth",
    "deepseek-v4-synth", "deepseek-v4.1-low-ratio-synth", "deepseek-v4.1-synth",
    "embedding-gemma2-synth", "embeddinggemma-synth", "ernie-4.5-vl-synth", "exaone-4-synth",
    "falcon-h1-synth", "gemma-2-9b-it", "gemma-3-4b-it", "gemma-4-assistant-synth",
    "gemma-4-k-eq-v-synth", "gemma-4-synth", "gigachat-3.5-synth", "glm-4.5-air",
    "glm-moe-dsa-synth", "glm5-next-synth", "granite-4.0-h-synth", "hrm-text-synth",
    "inkling-synth", "interns2-mobius-synth", "iquest-q1-mtp-synth", "iquest-q1-synth",
    "kimi-k3-mxfp4-synth", "kimi-k3-synth", "kimi-linear-synth", "lfm2-synth",
    "llama-4-scout-synth", "llava-1.5-7b-hf", "mimo-v2-flash-synth", "mimo-v2-fused-qkv-synth",
    "minicpm-sala-sparse-synth", "minicpm-sala-synth", "minicpm-v-4.6-synth",
    "minimax-m2-synth", "minimax-m3-synth", "ml3-synth", "mllama-synth", "moss-vl-synth",
    "muse-glimmer-synth", "muse-spark-synth", "nemotron-h-synth", "olmo-2-1124-7b",
    "qwen2-vl-7b-instruct", "qwen2.5-vl-7b-instruct", "qwen2.5-vl-no-vision-config",
    "qwen3-next-synth", "qwen3-vl-8b-synth", "qwen4-exp-synth", "step-3.5-synth",
    "whisper-large-v3",
)
EXTRA_BUNDLED = ("llama-3.1-70b", "llama-3.2-1b", "llama-3.2-3b", "mixtral-8x7b", "phi-3.5-mini",
                 "qwen2.5-0.5b", "qwen2.5-32b", "qwen2.5-3b", "qwen3-0.6b", "qwen3-1.7b",
                 "qwen3-14b", "qwen3-235b-a22b", "qwen3-32b")

#: SGLang 0.5.23's choice values no suite had given (and the seen ones beside them)
QUANT = ("gptq_marlin", "petit_nvfp4", "w4afp8", "auto-round", "auto-round-int8", "mxfp_w4a8",
         "mlx_q8", "mlx_q4", "unquant", "humming", "modelslim", "quark", "quark_mxfp4",
         "quark_int4fp8_moe", "bitsandbytes", "gguf", "moe_wna16", "w8a8_int8", "modelopt_fp8",
         "modelopt_mixed", "modelopt", "mxfp8", "fp8", "mxfp4")
LOAD_FORMATS = ("pt", "npcache", "sharded_state", "presharded", "gguf", "expert_pack",
                "bitsandbytes", "mistral", "layered", "flash_rl", "fastsafetensors", "dummy",
                "safetensors", "instanttensor", "auto")
DTYPES = ("float", "float32", "half", "float16", "bfloat16", "auto")
ATTENTION = ("qsa", "llada2_cfg_flashinfer", "minicpm_flashattn", "minicpm_flashinfer",
             "intel_xpu", "hpc_ops", "ascend", "compressed", "dsv4", "intel_amx", "fa3",
             "flashinfer", "triton", "trtllm_mha", "fa4", "aiter", "flashmla", "tokenspeed_mla",
             "nsa", "dsa", "wave", "flex_attention", "torch_native")
DSA_KERNELS = ("flashmla_sparse", "flashmla_sparse_q8", "flashmla_kv", "flashinfer_sparse_mla",
               "fa3", "tilelang", "aiter", "trtllm", "flashmla_auto")
LINEAR = ("triton", "cutedsl", "flashinfer", "ptx_kda", "nvidia_kda", "helion", "flashkda",
          "intel_xpu")
MOE_RUNNERS = ("auto", "triton", "triton_kernel", "flashinfer_trtllm", "flashinfer_trtllm_routed",
               "flashinfer_cutlass", "flashinfer_mxfp4", "flashinfer_cutedsl", "cutlass",
               "deep_gemm", "aiter", "marlin", "experimental_sgl_marlin", "lora_triton")
LORA_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj",
                "qkv_proj", "gate_up_proj", "embed_tokens", "lm_head", "q_a_proj",
                "kv_a_proj_with_mqa", "kv_b_proj", "all")
#: store-true flags no suite had set (the file-, plugin- and network-bound ones left out)
TOGGLES = ("--enable-fp32-lm-head", "--enable-shared-experts-attn-tp",
           "--schedule-low-priority-values-first", "--trust-request-chat-template",
           "--return-input-ids", "--enable-mfu-metrics", "--enable-request-time-stats-logging",
           "--show-time-cost", "--debug-cuda-graph", "--enable-layerwise-nvtx-marker",
           "--flashinfer-mla-disable-ragged", "--enable-fused-moe-sum-all-reduce",
           "--enable-mscclpp", "--enable-scattered-sconv",
           "--disable-flashinfer-cutlass-moe-fp4-allgather", "--enable-prefill-delayer",
           "--enable-weights-cpu-backup", "--enable-custom-logit-processor",
           "--enable-return-routed-experts", "--enable-return-indexer-topk",
           "--disaggregation-enable-kv-checksum", "--disable-aiter-allreduce-fusion-in-prefill",
           "--disable-aiter-allreduce-fusion-in-decode", "--enable-cache-report",
           "--enable-dense-mlp-attn-tp", "--disable-attn-tp-gather", "--sleep-on-idle",
           "--enable-profile-cuda-graph", "--enable-cudagraph-gc", "--enable-torch-symm-mem",
           "--pre-warm-nccl", "--enable-quant-communications", "--enable-lean-attention",
           "--triton-attention-reduce-in-fp32", "--enable-precise-embedding-interpolation",
           "--disable-shared-experts-fusion", "--enable-mm-global-cache",
           "--enable-metrics-for-all-schedulers", "--enable-strict-thinking",
           "--enable-tf32-matmul", "--enable-single-batch-overlap", "--enable-two-batch-overlap",
           "--enable-dynamic-chunking", "--enable-session-radix-cache", "--disable-radix-cache",
           "--enable-priority-scheduling", "--disable-priority-preemption",
           "--enable-deterministic-inference", "--enable-mixed-chunk", "--enable-memory-saver",
           "--disable-overlap-schedule", "--enable-tp-lm-head-all-to-all", "--enable-pdmux",
           "--enable-hisparse", "--enable-flexkv", "--enable-lmcache",
           "--enable-return-hidden-states", "--disable-hybrid-swa-memory",
           "--enable-multi-layer-eagle", "--enable-draft-weights-cpu-backup")
#: numeric flags no suite (or one or two cases) had set, with plain and odd values
NUMBERS = {"--prefill-max-requests": ("1", "8", "0", "-1"),
           "--scheduler-recv-interval": ("1", "10", "0", "-1"),
           "--priority-scheduling-preemption-threshold": ("0", "10", "-1"),
           "--max-lora-chunk-size": ("16", "32", "64", "128", "0", "7"),
           "--mm-processor-worker-num": ("0", "2", "-1"),
           "--prefill-delayer-max-delay-ms": ("0", "50", "-1"),
           "--prefill-delayer-queue-min-ratio": ("0", "0.5", "nan", "inf"),
           "--prefill-delayer-token-usage-low-watermark": ("0", "0.3", "nan", "-0.5"),
           "--dynamic-batch-tokenizer-batch-timeout": ("0", "0.002", "inf"),
           "--offload-num-in-group": ("1", "2", "0"), "--offload-group-size": ("2", "4", "0"),
           "--speculative-ngram-capacity": ("0", "1000000"),
           "--eplb-min-rebalancing-utilization-threshold": ("0", "0.5", "nan"),
           "--tbo-token-distribution-threshold": ("0", "0.48", "inf", "-1"),
           "--lora-drain-wait-threshold": ("0", "0.5", "-1"),
           "--hicache-storage-prefetch-retry-max-attempts": ("0", "3", "-1"),
           "--batch-notify-size": ("0", "16", "-1"), "--gc-warning-threshold-secs": ("0", "nan"),
           "--weight-cache-timeout": ("0", "30", "-1"),
           "--grpc-response-timeout-secs": ("0", "-1", "60"),
           "--triton-attention-split-tile-size": ("0", "64", "-1"),
           "--num-reserved-decode-tokens": ("0", "512", "-1"),
           "--c128-page-size": ("0", "64", "128"),
           "--mamba-track-interval": ("0", "64", "256", "-1"),
           "--decode-log-interval": ("0", "40", "-1"),
           "--linear-replayssm-cache-len": ("0", "16", "-1")}


#: lines aimed at the classes the probes found (``wild8/found/<name>``): platform, model, argv,
#: environment, and fields compared beyond the line's own. The probe of seed 8181 (299 lines)
#: agreed on 287 on SGLang 0.5.23: SGLang settles --return-hidden-states-mode with hidden-state
#: capture in a hook launchplan lacked (5 lines), ``--load-format expert_pack`` is refused by
#: a hook launchplan lacked (2), a page size of -1 meets an assert before the prefill graph's
#: max context is aligned (1), and four refusals launchplan made from the right rule in words
#: the harness did not map (IQuest Q1's FA3 sink, MiniCPM SALA's HiCache, the Mamba extra
#: buffer's bare assert).
#: a DeepSeek-V4 pack's loader config naming files every host has (SGLang checks they exist;
#: its manifest defaults to ``<pack_path>.manifest.json``)
PACK = '{"pack_path": "/etc/hosts", "manifest_path": "/etc/hosts", "source_path": ' \
       '"/etc/hosts", "source_sha256": "a", "model_identity_sha256": "b", "config_sha256": "c"}'
FOUND: dict[str, tuple[str, str, list[str], dict[str, str], list[str]]] = {
    "hidden-mode-last": ("h100", "models/llama-3.1-8b", [
        "--return-hidden-states-mode", "last"], {}, []),
    "hidden-no-mode": ("h100", "models/qwen3-8b", ["--enable-return-hidden-states"], {},
                       ["return_hidden_states_mode"]),
    "hidden-both": ("b200", "parity-models/gemma-7b", [
        "--enable-return-hidden-states", "--return-hidden-states-mode", "full"], {}, []),
    "hidden-aux": ("h100", "models/llama-3.1-8b", [
        "--enable-return-aux-hidden-states", "--speculative-algorithm", "EAGLE3"], {},
                   ["return_hidden_states_mode", "enable_return_hidden_states"]),
    "expert-pack-no-pack": ("h200", "parity-models/deepseek-v4-synth", [
        "--load-format", "expert_pack"], {}, []),
    "expert-pack-wide": ("h200", "parity-models/deepseek-v4-synth", [
        "--load-format", "expert_pack", "--tp", "8", "--cuda-graph-backend-decode", "full",
        "--model-loader-extra-config", PACK], {}, []),
    "expert-pack-served": ("h200", "parity-models/deepseek-v4-synth", [
        "--load-format", "expert_pack", "--model-loader-extra-config", PACK], {}, []),
    "expert-pack-env": ("b200", "parity-models/deepseek-v4-synth", [
        "--load-format", "expert_pack", "--model-loader-extra-config",
        '{"manifest_path": "/etc/hosts", "source_path": "/etc/hosts", "source_sha256": "a", '
        '"model_identity_sha256": "b", "config_sha256": "c"}'],
                        {"SGLANG_EXPERT_PACK_PATH": "/etc/hosts"}, []),
    "expert-pack-kimi-linear": ("h100", "parity-models/kimi-linear-synth", [
        "--load-format", "expert_pack", "--trust-remote-code"],
                                {"SGLANG_EXPERT_PACK_PATH": "/etc/hosts"}, []),
    "expert-pack-llama": ("h100", "models/llama-3.1-8b", [
        "--load-format", "expert_pack", "--model-loader-extra-config", PACK], {}, []),
    "page-negative-prefill-context": ("h100", "models/llama-3.1-8b", [
        "--page-size", "-1", "--cuda-graph-prefill-max-context", "4096"], {}, []),
    "page-zero-prefill-context": ("b200", "models/qwen3-8b", [
        "--page-size", "0", "--cuda-graph-prefill-max-context", "2048"], {}, []),
    "mamba-track-off-page": ("h200", "shipped/nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", [
        "--tp", "2", "--mamba-radix-cache-strategy", "extra_buffer", "--page-size", "48"], {},
                             []),
    "mamba-track-below-drafts": ("h200", "parity-models/qwen3-next-synth", [
        "--mamba-radix-cache-strategy", "extra_buffer", "--speculative-num-draft-tokens",
        "2147483648"], {}, []),
    "iquest-flashinfer": ("h100", "parity-models/iquest-q1-synth", [
        "--attention-backend", "flashinfer"], {}, []),
    "iquest-topk": ("h100", "parity-models/iquest-q1-synth", [
        "--speculative-algorithm", "EAGLE", "--speculative-eagle-topk", "2"], {}, []),
    "minicpm-sala-hicache": ("h100", "parity-models/minicpm-sala-synth", [
        "--trust-remote-code", "--enable-hierarchical-cache"], {}, []),
    # the every-field probe (seed 8383): fields SGLang declares on every launch
    "custom-loader-default": ("h100", "models/llama-3.1-8b", [], {},
                              ["custom_weight_loader", "load_format", "encoder_transfer_backend"]),
    "remote-instance-no-seed": ("h100", "models/llama-3.1-8b", [
        "--load-format", "remote_instance"], {}, ["custom_weight_loader", "load_format"]),
    "remote-instance-nccl-no-ports": ("b200", "models/qwen3-8b", [
        "--load-format", "remote_instance", "--remote-instance-weight-loader-seed-instance-ip",
        "10.0.0.2", "--remote-instance-weight-loader-seed-instance-service-port", "9000"], {},
                                      ["load_format"]),
    "remote-instance-ready": ("b200", "models/qwen3-8b", [
        "--load-format", "remote_instance", "--remote-instance-weight-loader-seed-instance-ip",
        "10.0.0.2", "--remote-instance-weight-loader-seed-instance-service-port", "9000",
        "--remote-instance-weight-loader-send-weights-group-ports", "[30001,30002]"], {},
                              ["load_format"]),
    "encoder-transfer-kimi-k3-tp8": ("h200", "parity-models/kimi-k3-synth", ["--tp", "8"], {},
                                     ["encoder_transfer_backend"]),
    "encoder-transfer-kimi-k3-tp1": ("h200", "parity-models/kimi-k3-synth", [], {},
                                     ["encoder_transfer_backend"]),
}


def _choice_groups(rng: random.Random) -> dict[str, list[str]]:
    """The gap groups: each a few tokens of one field family, drawn from SGLang's whole list."""
    c = rng.choice
    return {
        "quantization": ["--quantization", c(QUANT)],
        "load": wild5._some(rng, ["--load-format", c(LOAD_FORMATS)], ["--dtype", c(DTYPES)],
                            p=0.6) or ["--dtype", c(DTYPES)],
        "scheduling": [*c((["--schedule-policy", c(("lof", "routing-key", "hrrn",
                                                    "shortest-prefill-first", "lpm", "fcfs",
                                                    "dfs-weight"))],
                           ["--radix-eviction-policy", "priority"],
                           ["--radix-eviction-policy", "priority",
                            "--enable-priority-scheduling"],
                           ["--enable-priority-scheduling", "--schedule-policy",
                            c(("fcfs", "lof", "lpm", "hrrn"))]))],
        "tokenizer": wild5._some(rng, ["--tokenizer-mode", c(("auto", "slow"))],
                                 ["--tokenizer-backend", c(("huggingface", "fastokens"))],
                                 ["--sampling-defaults", c(("openai", "model"))],
                                 ["--sampling-backend", c(("flashinfer", "pytorch", "ascend"))],
                                 p=0.5) or ["--tokenizer-mode", "slow"],
        "attention": c((["--attention-backend", c(ATTENTION)],
                        ["--prefill-attention-backend", c(ATTENTION)],
                        ["--decode-attention-backend", c(ATTENTION)],
                        ["--prefill-attention-backend", c(ATTENTION),
                         "--decode-attention-backend", c(ATTENTION)])),
        "dsa": wild5._some(rng, ["--dsa-prefill-backend", c(DSA_KERNELS)],
                           ["--dsa-decode-backend", c(DSA_KERNELS)],
                           ["--dsa-topk-backend", c(("sgl-kernel", "torch", "flashinfer"))],
                           ["--dsa-paged-mqa-logits-backend", c(("auto", "deepgemm", "aiter"))],
                           p=0.5) or ["--dsa-decode-backend", c(DSA_KERNELS)],
        "draft": ["--speculative-algorithm", c(("EAGLE", "NEXTN", "NGRAM", "EAGLE3"))]
        + wild5._some(rng, ["--speculative-draft-kv-cache-dtype",
                            c(("auto", "fp8_e5m2", "fp8_e4m3", "bfloat16"))],
                      ["--speculative-moe-runner-backend", c(MOE_RUNNERS)],
                      ["--speculative-moe-a2a-backend", c(("none", "deepep", "flashinfer",
                                                           "mooncake", "megamoe"))],
                      ["--speculative-draft-model-quantization", c(QUANT)],
                      ["--speculative-draft-load-format", c(LOAD_FORMATS)],
                      ["--speculative-ngram-match-type", c(("BFS", "PROB"))], p=0.45),
        "linear": wild5._some(rng, ["--linear-attn-backend", c(LINEAR)],
                              ["--linear-attn-decode-backend", c(LINEAR)],
                              ["--linear-attn-prefill-backend", c(LINEAR)],
                              ["--linear-attn-verify-backend", c(LINEAR + ("nv_cutedsl",))],
                              ["--mamba-radix-cache-strategy", c(("auto", "no_buffer",
                                                                  "extra_buffer"))],
                              ["--mamba-ssm-dtype", c(("float32", "bfloat16", "float16"))],
                              p=0.4) or ["--linear-attn-backend", c(LINEAR)],
        "hicache": ["--enable-hierarchical-cache"] + wild5._some(
            rng, ["--hicache-storage-backend", c(("aibrix", "dynamic", "simm", "shm", "file"))],
            ["--hicache-io-backend", c(("kernel_ascend", "kernel", "direct"))],
            ["--hicache-mem-layout", c(("page_first", "layer_first", "page_first_direct"))],
            ["--unified-cache-external-linker-backend", c(("mooncake", "mori"))], p=0.5),
        "lora": ["--enable-lora"] + wild5._some(
            rng, ["--lora-target-modules", *rng.sample(LORA_MODULES, rng.randint(1, 3))],
            ["--lora-eviction-policy", c(("lru", "fifo"))],
            ["--max-lora-chunk-size", c(("16", "32", "64", "128"))],
            ["--lora-backend", c(("triton", "csgmv", "torch_native", "triton_v2"))],
            ["--max-lora-rank", c(("8", "64", "256"))], p=0.5),
        "kernels": wild5._some(
            rng, ["--fp4-gemm-backend", c(("auto", "marlin", "flashinfer_cutedsl",
                                           "flashinfer_cudnn"))],
            ["--bf16-gemm-backend", c(("auto", "cutedsl", "gemv", "torch"))],
            ["--flashinfer-mxfp4-moe-precision", c(("default", "fp8", "bf16"))],
            ["--deepep-dispatcher-output-dtype", c(("bf16", "fp8", "int8", "nvfp4"))],
            ["--enable-flashinfer-allreduce-fusion", "--flashinfer-allreduce-fusion-backend",
             c(("mnnvl", "auto", "cutedsl"))],
            ["--boundary-reduction", c(("rs", "rsv", "rs+rsv"))],
            ["--moe-runner-backend", c(MOE_RUNNERS)], p=0.4)
        or ["--moe-runner-backend", c(MOE_RUNNERS)],
        "modes": wild5._some(
            rng, ["--enable-return-hidden-states", "--return-hidden-states-mode",
                  c(("last", "full"))],
            ["--weight-cache-mode", c(("off", "daemon", "client"))],
            ["--kv-canary", c(("none", "log", "raise"))],
            ["--startup-weight-load-mode", c(("serial", "overlap"))],
            ["--expert-balancedness-report-mode", c(("prometheus", "both"))],
            ["--log-requests", "--log-requests-level", c(("0", "1", "2", "3"))],
            ["--dp-size", "2", "--load-balance-method", c(("auto", "follow_bootstrap_room"))],
            p=0.35) or ["--startup-weight-load-mode", c(("serial", "overlap"))],
        "toggles": rng.sample(TOGGLES, rng.randint(1, 3)),
        "numbers": [t for flag in rng.sample(sorted(NUMBERS), rng.randint(1, 2))
                    for t in (flag, c(NUMBERS[flag]))],
    }


GAPS = ("quantization", "load", "scheduling", "tokenizer", "attention", "dsa", "draft", "linear",
        "hicache", "lora", "kernels", "modes", "toggles", "numbers")
#: wild7's crossed groups drawn beside the gaps now and then
CROSSED = ("speculative", "dp-attention", "ep", "pp", "disaggregation", "multimodal", "kv",
           "page", "serving")


@cache
def _config(model: str) -> dict:
    prefix, name = model.split("/", 1)
    folder = {"parity-models": wild.DATA.parent / "models",
              "shipped": wild5.BUNDLED.parent / "hub"}.get(prefix, wild5.BUNDLED) / name
    return json.loads((folder / "config.json").read_text())


def profile_of(model: str) -> Profile:
    """A deployment profile read from the config: attention kind, size class, traits."""
    config = _config(model)
    text = config.get("text_config") or config.get("llm_config") or config
    kind = "mha"
    if "index_topk" in text or "index_n_heads" in text:
        kind = "dsa"
    elif "compress_ratios" in text or "deepseek_v4" in str(text.get("model_type", "")):
        kind = "dsv4"
    elif text.get("kv_lora_rank"):
        kind = "mla"
    elif any(k in text for k in ("layer_types", "layers_block_type", "hybrid_override_pattern",
                                 "linear_num_value_heads", "mamba_d_ssm", "full_attn_idxs")):
        kind = "hybrid"
    experts = next((text[k] for k in ("n_routed_experts", "num_experts", "num_local_experts",
                                      "moe_num_experts") if isinstance(text.get(k), int)), 0)
    hidden, layers = text.get("hidden_size") or 4096, text.get("num_hidden_layers") or 32
    inter = text.get("moe_intermediate_size") or text.get("intermediate_size") or 4 * hidden
    inter = max(inter) if isinstance(inter, list) else inter  # per-layer widths
    params = layers * (4 * hidden * hidden + 3 * hidden * inter * max(experts, 1))
    size = "small" if params < 2e10 else "mid" if params < 1.6e11 else "big"
    vision = any(k in config for k in ("vision_config", "audio_config", "vision_encoder"))
    return Profile(kind, size, mtp=bool(text.get("num_nextn_predict_layers")),
                   moe=experts > 0, vision=vision)


@cache
def models() -> dict[str, Profile]:
    """Every model drawn: wild7's (with wild6's hand-written profiles) and the others."""
    extra = {f"parity-models/{n}": profile_of(f"parity-models/{n}") for n in EXTRA}
    extra.update({f"models/{n}": profile_of(f"models/{n}") for n in EXTRA_BUNDLED})
    return {**wild7.MODELS, **extra}


def line(rng: random.Random, model: str, platform: str) -> tuple[list[str], dict[str, str]]:
    """The guide's launch, one to three gap groups, maybe a crossed group and an odd value."""
    profile = models()[model]
    if model in wild6.MODELS:
        argv, env = wild6.line(rng, model, platform)
    else:
        argv, env = wild7._plain(rng, profile, model, platform)
    _, arch = wild6.TARGETS[platform]
    groups = _choice_groups(rng)
    for name in rng.sample(GAPS, rng.randint(1, 3)):
        argv += groups[name]
    if rng.random() < 0.35:
        argv += wild7._group(rng, rng.choice(CROSSED), profile, arch, wild6._tp_of(argv))
    if rng.random() < 0.2:
        argv += wild7._group(rng, "odd", profile, arch, wild6._tp_of(argv))
    if rng.random() < 0.15:
        variable, spellings = rng.choice(wild7.ENV)
        env = {**env, variable: rng.choice(spellings)}
    return argv, env


def every_field() -> list[str]:
    """Every field of SGLang 0.5.23's record a plan can be held to (``--every-field``: a probe
    asks the oracle for all of them, so a field SGLang decides that no line compares shows
    up): the spelled-differently, drawn, private and harness ones left out, the CUDA-graph
    config key by key."""
    from launchplan.input.fields import release_table

    names = set(release_table("0.5.23").fields) - wild.NOT_COMPARED - wild3.HARNESS
    graph = {f"cuda_graph_config.{phase}.{key}" for phase, keys in wild3.GRAPH_KEYS.items()
             for key in keys}
    # SGLang draws a seed when none is given; private fields are the CLI parser's (the oracle
    # builds the record without it)
    names = {n for n in names if not n.startswith("_")} - {"random_seed"}
    return sorted((names - {"cuda_graph_config"}) | graph)


#: the rule-written fields wild5's frozen pool lacked when this suite was recorded (frozen,
#: as that pool is: a rule written since adds no field the recording never asked for)
WRITTEN = ("allowed_media_domains", "debug_cuda_graph", "disaggregation_bootstrap_port",
           "elastic_ep_initial_size", "enable_cp_tp_group_sharing",
           "enable_flashinfer_allreduce_fusion", "enable_prefill_delayer",
           "enable_return_hidden_states", "flashinfer_a2a_dispatch_type", "grpc_port",
           "grpc_worker_threads", "image_processor_backend", "load_balance_method", "moe_dp_size",
           "prefill_delayer_max_delay_passes", "prefill_delayer_token_usage_low_watermark",
           "return_hidden_states_mode", "smg_grpc_mode", "tool_call_parser")


def written() -> list[str]:
    """wild5's compared fields and every other field a rule wrote (the hidden-states pair,
    load balancing, the prefill delayer, gRPC, ...), bar the harness's."""
    compared = wild5.compared_fields()
    return compared + [f for f in WRITTEN if f not in compared]


def cases(seed: int, suite: str) -> list[dict]:
    rng = random.Random(seed)
    compared = every_field() if "--every-field" in sys.argv else written()
    pool = models()
    old, new = sorted(wild7.MODELS), sorted(pool.keys() - wild7.MODELS.keys())
    out = []
    for i in range(COUNT if suite != "probe" else 300):
        model = rng.choice(new if rng.random() < 0.5 else old)
        platform = rng.choice(wild6.FLEETS[pool[model].size])
        argv, env = line(rng, model, platform)
        if wild7._graph_too_big(argv):
            continue
        out.append(wild7._case(f"{suite}/{i}", platform, model, argv, env, compared))
    if suite == "wild8":
        for name, (platform, model, argv, env, extra) in FOUND.items():
            case = wild7._case(f"wild8/found/{name}", platform, model, argv, env, compared)
            case["fields"] += [f for f in extra if f not in case["fields"]]
            out.append(case)
    return out


def main() -> None:
    wild5.write_draw("wild8", SEED, cases)


if __name__ == "__main__":
    main()
