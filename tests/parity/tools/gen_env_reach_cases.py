"""Generate ``tests/parity/data/env-reach-cases.json``: for each SGLang variable that resolution
reads beyond the ``environment`` suite's, a launch it changes, once with it and once without.

    PYTHONPATH=src:. python tests/parity/tools/gen_env_reach_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py env-reach --jobs 1

Each pair shares its launch; only the environment differs, and SGLang's answers differ
between the two (a field, or a refusal), so the pair holds launchplan to what the variable
does, not merely to the launch.
"""

from __future__ import annotations

import json
from pathlib import Path

PARITY = Path(__file__).resolve().parents[1]
OUT = PARITY / "data" / "env-reach-cases.json"

LLAMA = "models/llama-3.1-8b"
QWEN_MOE = "models/qwen3-30b-a3b"
DSV31_NVFP4 = "shipped/nvidia--DeepSeek-V3.1-NVFP4"
FI_A2A = ["--tp-size", "2", "--attn-dp-size", "2", "--moe-a2a-backend", "flashinfer",
          "--moe-runner-backend", "flashinfer_cutlass", "--flashinfer-a2a-dispatch-type", "bf16"]
CUTEDSL_DEEPEP = ["--tp-size", "8", "--quantization", "modelopt_fp4",
                  "--moe-runner-backend", "flashinfer_cutedsl", "--moe-a2a-backend", "deepep"]
CUTEDSL_FI_A2A = ["--tp-size", "8", "--attn-dp-size", "8", "--quantization", "modelopt_fp4",
                  "--moe-runner-backend", "flashinfer_cutedsl", "--moe-a2a-backend", "flashinfer"]
UNIFIED_PD = ["--enable-unified-memory", "--disaggregation-mode", "prefill",
              "--disaggregation-transfer-backend", "mooncake"]
MORI_LL = ["--tp-size", "8", "--ep-size", "8", "--moe-a2a-backend", "mori",
           "--deepep-mode", "low_latency", "--chunked-prefill-size", "4096"]
DSV4 = "parity-models/deepseek-v4-flash"
MEGAMOE = ["--tp-size", "8", "--ep-size", "8", "--moe-a2a-backend", "megamoe"]
FLYDSL = {"SGLANG_AMD_USE_FLYDSL_MEGA_MOE": "1"}
FLYDSL_DECODE = {"SGLANG_AMD_FLYDSL_MEGA_MOE_DECODE_MTPR": "64"}
POST_CAPTURE = {"SGLANG_ENABLE_POST_CAPTURE_KV_SIZING": "1"}
W4A16 = {"SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16": "1"}

#: (label, platform, model, argv, environment without the variable, {variable: value}...)
LAUNCHES = (
    ("decrease-prefill-idle", "h100", LLAMA, [], {},
     {"SGLANG_SCHEDULER_DECREASE_PREFILL_IDLE": "1"},
     {"SGLANG_SCHEDULER_DECREASE_PREFILL_IDLE": "yes"}),
    ("delayer-passes", "h100", LLAMA, ["--prefill-delayer-max-delay-passes", "3"], {},
     {"SGLANG_PREFILL_DELAYER_MAX_DELAY_PASSES": "7"},
     {"SGLANG_PREFILL_DELAYER_MAX_DELAY_PASSES": "0"}),
    ("delayer-watermark", "h100", LLAMA, [], {},
     {"SGLANG_PREFILL_DELAYER_TOKEN_USAGE_LOW_WATERMARK": "0.25"},
     {"SGLANG_PREFILL_DELAYER_TOKEN_USAGE_LOW_WATERMARK": "0.0"}),
    ("mooncake-pool", "h100", LLAMA, [], POST_CAPTURE,
     {"SGLANG_MOONCAKE_CUSTOM_MEM_POOL": "NVLINK"},
     {"SGLANG_MOONCAKE_CUSTOM_MEM_POOL": ""}),
    ("token-oracle", "h100", LLAMA, ["--sampling-backend", "token_oracle"], {},
     {"SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE": "1"},
     {"SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE": "y"},
     {"SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE": "0"}),
    ("nvfp4-dispatch", "b200", QWEN_MOE, FI_A2A, {},
     {"SGLANG_MOE_NVFP4_DISPATCH": "0"},
     {"SGLANG_MOE_NVFP4_DISPATCH": "1"}),
    # the same in the spelling 0.5.21 knows (attention DP by --enable-dp-attention --dp-size)
    ("nvfp4-dispatch-dp", "b200", QWEN_MOE,
     ["--tp-size", "2", "--enable-dp-attention", "--dp-size", "2"] + FI_A2A[4:], {},
     {"SGLANG_MOE_NVFP4_DISPATCH": "0"}),
    ("nvfp4-dispatch-w4a16", "b200", DSV31_NVFP4, CUTEDSL_FI_A2A, W4A16,
     {"SGLANG_MOE_NVFP4_DISPATCH": "1"},
     {"SGLANG_MOE_NVFP4_DISPATCH": "0"}),
    ("per-token-activation", "b200", DSV31_NVFP4, CUTEDSL_DEEPEP, {},
     {"SGLANG_FLASHINFER_NVFP4_PER_TOKEN_ACTIVATION": "1"},
     {"SGLANG_FLASHINFER_NVFP4_PER_TOKEN_ACTIVATION": "n"}),
    # MoRI EPv2 (0.5.22 on) turns low_latency into normal: forced when set true (or to
    # anything that is not false), else only where supported (DeepSeek-V4 with aiter, no SDMA)
    ("mori-ep-v2-forced", "mi300x", QWEN_MOE, MORI_LL, {},
     {"SGLANG_MORI_EP_V2": "1"},
     {"SGLANG_MORI_EP_V2": "abc"}),
    ("mori-ep-v2-dsv4", "mi355x", DSV4, MORI_LL[2:], {"SGLANG_USE_AITER": "1"},
     {"SGLANG_MORI_EP_V2": "0"},
     {"SGLANG_MORI_EP_V2": "true"},
     {"MORI_ENABLE_SDMA": "1"}),
    # ROCm FlyDSL MegaMoE (0.5.23) with a decode capacity below the merged one: the largest
    # decode step (128 requests on one rank) must fit it
    ("flydsl-decode-capacity", "mi355x", QWEN_MOE, MEGAMOE + ["--max-running-requests", "128"],
     {},
     {**FLYDSL, **FLYDSL_DECODE},
     FLYDSL_DECODE,
     FLYDSL,
     {**FLYDSL, **FLYDSL_DECODE, "SGLANG_AMD_FLYDSL_MEGA_MOE_MTPR": "64"}),
    ("flydsl-no-request-cap", "mi355x", QWEN_MOE, MEGAMOE, {},
     {**FLYDSL, **FLYDSL_DECODE},
     {**FLYDSL, **FLYDSL_DECODE, "SGLANG_AMD_FLYDSL_MEGA_MOE_DECODE_MTPR": "0"}),
    # Muse Spark's launch defaults turn per-token activations on for modelopt_fp4 when unset
    ("per-token-activation-muse", "b200", "parity-models/muse-spark-synth", CUTEDSL_DEEPEP, {},
     {"SGLANG_FLASHINFER_NVFP4_PER_TOKEN_ACTIVATION": "0"},
     {"SGLANG_FLASHINFER_NVFP4_PER_TOKEN_ACTIVATION": "abc"}),
    # Muse Spark's LayerNorm SP needs BF16 dispatch; unset, SGLang turns NVFP4 dispatch on
    ("nvfp4-dispatch-muse-sp", "b200", "parity-models/muse-spark-synth",
     ["--tp-size", "4", "--ep-size", "4", "--enable-layernorm-sp", "--quantization",
      "modelopt_fp4", "--moe-runner-backend", "flashinfer_trtllm", "--moe-a2a-backend",
      "flashinfer"], {},
     {"SGLANG_MOE_NVFP4_DISPATCH": "0"},
     {"SGLANG_MOE_NVFP4_DISPATCH": "1"}),
    ("lazy-compaction", "h100", LLAMA, UNIFIED_PD, {},
     {"SGLANG_DISABLE_LAZY_COMPACTION": "1"},
     {"SGLANG_DISABLE_LAZY_COMPACTION": "false"}),
)

EXTRA_FIELDS = ["enable_prefill_delayer", "prefill_delayer_max_delay_passes",
                "prefill_delayer_token_usage_low_watermark"]


def main() -> None:
    fields = json.loads(
        (PARITY / "data" / "hub-cases.json").read_text(encoding="utf-8"))[0]["fields"]
    fields = fields + [f for f in EXTRA_FIELDS if f not in fields]
    cases = []
    for label, platform, model, argv, base, *variants in LAUNCHES:
        for i, env in enumerate(({},) + tuple(variants)):
            name = f"env-reach/{label}/" + ("without" if not env else str(i))
            cases.append({"name": name, "platform": platform, "model": model, "argv": argv,
                          "fields": fields, "env": {**base, **env}})
    OUT.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n",
                   encoding="utf-8")
    print(f"{len(cases)} cases -> {OUT}")


if __name__ == "__main__":
    main()
