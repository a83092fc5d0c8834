"""Generate ``tests/parity/data/release3-cases.json``: launches aimed at the branches SGLang
changed between 0.5.21, 0.5.22 and 0.5.23 that the release2 suite did not reach, plus a fresh
draw of the release-leaning generator.

    PYTHONPATH=src:. python tests/parity/tools/gen_release3_cases.py [--aim | --aim2 ... --aim5]
    ~/sglang-oracle-0.5.22/bin/python tests/parity/tools/record_suite.py release3 \\
        --release 0.5.22 --jobs 1 --timeout 120       # likewise 0.5.21 (its own transformers)
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py release3 --jobs 1

``release3/<i>`` are the first ``COUNT`` lines of the release-leaning probe ``r2p7303``
(``gen_release2_cases --probe 7303``), drawn before this round's fixes. ``AIMED``
(``release3/aimed/<name>``) holds a few lines per branch that moved between the releases,
found by diffing the three installed wheels' ``srt/arg_groups`` and ``configs/model_config.py``
and listing the error texts and ``SGLANG_*`` reads each release has: each line is written so
that branch decides its answer on at least one release. The classes they found, each
confirmed on the oracles before it was fixed: the unified pool under PD disaggregation (every
release), 0.5.22's audited unified-pool backends, the page-major layout of 0.5.21-0.5.22
(asymmetric K/V rows, tokenspeed_mla, no FlashInfer GDN prefill), nvfp4_online's MegaMoE
runner (0.5.23 only), the Rust server's KV bootstrap port (every release) and attention-DP
broadcast (0.5.23 only), and post-capture KV sizing under Mooncake over EFA (every release)
and of a hybrid-SWA unified pool (0.5.22 on); the rest pin wordings of refusals launchplan
already made. ``--aim``, ``--aim2`` ... ``--aim5`` write those batches alone into
``r3aimN-cases.json`` (the probes that looked for them).
"""

from __future__ import annotations

import json
import random
import sys

from tests.parity.tools import gen_release2_cases as release2
from tests.parity.tools import gen_wild3_cases as wild3
from tests.parity.tools import gen_wild4_cases as wild4
from tests.parity.tools import gen_wild_cases as wild

SEED = 7303  # the release-leaning probe r2p7303 (gen_release2_cases --probe 7303): its first
COUNT = 80  # lines
UNIFIED = ["--enable-unified-memory"]
QWEN3_VL = "parity-models/qwen3-vl-30b-a3b-instruct"
EAGLE_DRAFT = ["--speculative-draft-model-path", "models/llama-3.1-8b-eagle"]
DSPARK = ["--speculative-algorithm", "DSPARK", *EAGLE_DRAFT]
GEMMA3 = "parity-models/gemma-3-4b-it"
GPT_OSS = "models/gpt-oss-20b"
MIMO = "parity-models/mimo-v2-flash"
QWEN3_NEXT = "parity-models/qwen3-next-synth"
LLAMA = "models/llama-3.1-8b"
RUST = {"SGLANG_RUST_SERVER": "1"}
POST_CAPTURE = {"SGLANG_ENABLE_POST_CAPTURE_KV_SIZING": "1"}
V4_FLASH = "parity-models/deepseek-v4-flash"
V41 = "parity-models/deepseek-v4.1-synth"
EAGLE3_CHAIN = ["--speculative-algorithm", "EAGLE3", *EAGLE_DRAFT, "--speculative-eagle-topk",
                "1", "--speculative-num-steps", "3", "--speculative-num-draft-tokens", "4"]
#: (name, platform, model, argv, environment): the lines aimed at the changed branches.
AIMED: list[tuple[str, str, str, list[str], dict[str, str]]] = [
    # the unified pool's audited backends per speculative algorithm (0.5.22: MHA rails
    # triton/flashinfer/fa3, DSPARK's list with tokenspeed_mla and without fa4)
    ("unified/gpt-oss-eagle3-trtllm-mha", "b200", GPT_OSS,
     UNIFIED + EAGLE3_CHAIN + ["--attention-backend", "trtllm_mha", "--disable-cuda-graph"], {}),
    ("unified/gpt-oss-eagle3-fa3", "h100", GPT_OSS, UNIFIED + EAGLE3_CHAIN + [
        "--attention-backend", "fa3"], {}),
    ("unified/gpt-oss-eagle3-draft-trtllm-mha", "b200", GPT_OSS, UNIFIED + EAGLE3_CHAIN + [
        "--attention-backend", "triton", "--speculative-draft-attention-backend", "trtllm_mha"],
     {}),
    ("unified/qwen3-next-mtp-trtllm-mha", "b200", QWEN3_NEXT, UNIFIED + [
        "--tp-size", "4", "--speculative-algorithm", "NEXTN", "--speculative-eagle-topk", "1",
        "--speculative-num-steps", "3", "--speculative-num-draft-tokens", "4",
        "--attention-backend", "trtllm_mha", "--disable-cuda-graph"], {}),
    ("unified/qwen3-next-mtp-flashinfer", "b200", QWEN3_NEXT, UNIFIED + [
        "--tp-size", "4", "--speculative-algorithm", "NEXTN", "--speculative-eagle-topk", "1",
        "--speculative-num-steps", "3", "--speculative-num-draft-tokens", "4",
        "--attention-backend", "flashinfer"], {}),
    ("unified/dspark-fa4", "b200", LLAMA, UNIFIED + DSPARK + ["--attention-backend", "fa4"], {}),
    ("unified/dspark-b200-default", "b200", LLAMA, UNIFIED + DSPARK, {}),
    ("unified/dspark-triton", "h100", LLAMA, UNIFIED + DSPARK + ["--attention-backend", "triton"],
     {}),
    ("unified/dflash-trtllm-mha", "b200", LLAMA, UNIFIED + [
        "--speculative-algorithm", "DFLASH", "--speculative-draft-model-path",
        "models/llama-3.2-1b", "--attention-backend", "trtllm_mha", "--disable-cuda-graph"], {}),
    ("unified/dflash-fa3", "h100", LLAMA, UNIFIED + [
        "--speculative-algorithm", "DFLASH", "--speculative-draft-model-path",
        "models/llama-3.2-1b", "--attention-backend", "fa3"], {}),
    # the page-major layout's model and kernel checks (0.5.21/0.5.22: asymmetric K/V rows
    # refused, tokenspeed_mla a paged MLA backend, no flashinfer linear-attention prefill)
    ("page-major/mimo-h200", "h200", MIMO, ["--tp-size", "8"] + UNIFIED, {}),
    ("page-major/mimo-h200-triton", "h200", MIMO, ["--tp-size", "8", "--attention-backend",
                                                   "triton"] + UNIFIED, {}),
    ("page-major/mimo-b200-fa4", "b200", MIMO, ["--tp-size", "8", "--attention-backend", "fa4"]
     + UNIFIED, {}),
    ("page-major/mimo-h200-flashinfer", "h200", MIMO, [
        "--tp-size", "8", "--attention-backend", "flashinfer"] + UNIFIED, {}),
    ("page-major/qwen3-next-flashinfer-prefill", "h200", QWEN3_NEXT, [
        "--tp-size", "4", "--linear-attn-prefill-backend", "flashinfer"] + UNIFIED, {}),
    ("page-major/qwen3-next-b200-flashinfer", "b200", QWEN3_NEXT, [
        "--tp-size", "4", "--linear-attn-backend", "flashinfer"] + UNIFIED, {}),
    ("page-major/deepseek-tokenspeed", "b200", "models/deepseek-v3", [
        "--tp-size", "8", "--attention-backend", "tokenspeed_mla", "--kv-cache-dtype",
        "fp8_e4m3"] + UNIFIED, {}),
    ("page-major/kimi-linear-tokenspeed", "b200", "parity-models/kimi-linear-synth", [
        "--tp-size", "4", "--attention-backend", "tokenspeed_mla", "--kv-cache-dtype",
        "fp8_e4m3"] + UNIFIED, {}),
    ("page-major/plain-triton", "h100", LLAMA, [
        "--enable-page-major-kv-layout", "--attention-backend", "triton"], {}),
    # nvfp4_online's MoE runner with the MegaMoE A2A and the W4A16 switch (0.5.23 on)
    ("nvfp4-online/megamoe-w4a16", "b200", "models/qwen3-30b-a3b", [
        "--tp-size", "8", "--ep-size", "8", "--quantization", "nvfp4_online",
        "--moe-a2a-backend", "flashinfer_megamoe", "--attn-dp-size", "8"],
     {"SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16": "1"}),
    ("nvfp4-online/megamoe-runner", "b200", "models/qwen3-30b-a3b", [
        "--tp-size", "8", "--ep-size", "8", "--quantization", "nvfp4_online",
        "--moe-a2a-backend", "flashinfer_megamoe", "--attn-dp-size", "8",
        "--moe-runner-backend", "flashinfer_megamoe"],
     {"SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16": "1"}),
    ("nvfp4-online/plain", "b200", "models/qwen3-30b-a3b", [
        "--tp-size", "4", "--quantization", "nvfp4_online"], {}),
    # the unified pool under PD disaggregation: the whole-envelope transfer (Mooncake only,
    # no PP, no speculation over Mooncake, no HiSparse; decode offload to file storage only,
    # not MLA, Mamba or SWA; the host-pool backup without Mamba), every release
    ("unified-pd/nixl", "h100", LLAMA, UNIFIED + [
        "--disaggregation-mode", "decode", "--disaggregation-transfer-backend", "nixl"], {}),
    ("unified-pd/mooncake", "h100", LLAMA, UNIFIED + ["--disaggregation-mode", "prefill"], {}),
    ("unified-pd/pp2", "h100", LLAMA, UNIFIED + ["--disaggregation-mode", "prefill",
                                                 "--pp-size", "2"], {}),
    ("unified-pd/eagle3", "h100", GPT_OSS, UNIFIED + EAGLE3_CHAIN + [
        "--disaggregation-mode", "decode"], {}),
    ("unified-pd/dspark", "h100", LLAMA, UNIFIED + DSPARK + [
        "--attention-backend", "triton", "--disaggregation-mode", "decode"], {}),
    ("unified-pd/hisparse", "h200", "parity-models/deepseek-v3.2-exp", UNIFIED + [
        "--tp-size", "8", "--disaggregation-mode", "decode", "--enable-hisparse"], {}),
    ("unified-pd/offload-mooncake", "h100", LLAMA, UNIFIED + [
        "--disaggregation-mode", "decode", "--disaggregation-decode-enable-offload-kvcache",
        "--hicache-storage-backend", "mooncake"], {}),
    ("unified-pd/offload-file", "h100", LLAMA, UNIFIED + [
        "--disaggregation-mode", "decode", "--disaggregation-decode-enable-offload-kvcache",
        "--hicache-storage-backend", "file"], {}),
    ("unified-pd/offload-file-gemma3", "h100", GEMMA3, UNIFIED + [
        "--disaggregation-mode", "decode", "--disaggregation-decode-enable-offload-kvcache",
        "--hicache-storage-backend", "file"], {}),
    ("unified-pd/offload-file-deepseek", "h200", "models/deepseek-v2-lite", UNIFIED + [
        "--disaggregation-mode", "decode", "--disaggregation-decode-enable-offload-kvcache",
        "--hicache-storage-backend", "file"], {}),
    ("unified-pd/host-pool-qwen3-next", "h200", QWEN3_NEXT, UNIFIED + [
        "--tp-size", "4", "--disaggregation-mode", "decode",
        "--disaggregation-decode-retraction-backup", "host_pool"], {}),
    ("unified-pd/host-pool-llama", "h100", LLAMA, UNIFIED + [
        "--disaggregation-mode", "decode", "--disaggregation-decode-retraction-backup",
        "host_pool"], {}),
    # SGLANG_RUST_SERVER: attention DP's local control broadcast (0.5.23 on), and a PD prefill
    # server's KV bootstrap registry served on the api port (every release)
    ("rust/attention-dp", "h100", "models/qwen3-30b-a3b", [
        "--tp-size", "8", "--enable-dp-attention", "--dp-size", "8"], RUST),
    ("rust/attention-dp-4", "h200", "models/deepseek-v2-lite", [
        "--tp-size", "8", "--enable-dp-attention", "--dp-size", "4"], RUST),
    ("rust/prefill", "h100", LLAMA, ["--disaggregation-mode", "prefill"], RUST),
    ("rust/prefill-port", "h100", LLAMA, ["--disaggregation-mode", "prefill", "--port", "31000"],
     RUST),
    ("rust/prefill-bootstrap-port", "h100", LLAMA, [
        "--disaggregation-mode", "prefill", "--disaggregation-bootstrap-port", "9100"], RUST),
    ("rust/prefill-same-ports", "h100", LLAMA, [
        "--disaggregation-mode", "prefill", "--port", "31000", "--disaggregation-bootstrap-port",
        "31000"], RUST),
    ("rust/prefill-nixl", "h100", LLAMA, [
        "--disaggregation-mode", "prefill", "--disaggregation-transfer-backend", "nixl"], RUST),
    ("rust/decode", "h100", LLAMA, ["--disaggregation-mode", "decode", "--port", "31000"], RUST),
    ("rust/prefill-no-env", "h100", LLAMA, ["--disaggregation-mode", "prefill", "--port",
                                            "31000"], {}),
    # refusals only the older releases make, in their own words (an unmapped wording is a
    # refusal no recording had met)
    ("older/v4-trtllm-pd", "b200", V4_FLASH, ["--tp-size", "4", "--dsv4-attn-backend", "trtllm",
                                             "--disaggregation-mode", "prefill"], {}),
    ("older/v41-trtllm", "b200", V41, ["--tp-size", "8", "--dsv4-attn-backend", "trtllm"], {}),
    ("older/v41-trtllm-no-prefill-graph", "b200", V41, [
        "--tp-size", "8", "--dsv4-attn-backend", "trtllm", "--cuda-graph-backend-prefill",
        "disabled"], {}),
    ("older/v41-encoder-swa-replay", "b200", V41, [
        "--tp-size", "8", "--enable-encoder-swa-bounded-replay"], {}),
    ("older/v41-encoder-swa-replay-sized", "b200", V41, [
        "--tp-size", "8", "--enable-encoder-swa-bounded-replay", "--max-running-requests", "64",
        "--chunked-prefill-size", "4096"], {}),
    ("older/kv-sharding-dsa", "b200", "parity-models/glm-moe-dsa-synth", [
        "--tp-size", "8", "--disaggregation-mode", "prefill", "--enable-kv-cache-sharding",
        "--page-size", "64", "--enable-prefill-cp", "--cp-strategy", "interleave",
        "--attn-cp-size", "8", "--dsa-prefill-backend", "trtllm", "--dsa-decode-backend",
        "trtllm", "--kv-cache-dtype", "fp8_e4m3"], {}),
    ("older/kimi-k3-dcp-flashinfer", "b200", "parity-models/kimi-k3-synth", [
        "--tp-size", "8", "--dcp-size", "2", "--decode-attention-backend", "flashinfer"], {}),
    ("older/kimi-k3-dcp-tokenspeed", "b200", "parity-models/kimi-k3-synth", [
        "--tp-size", "8", "--dcp-size", "2", "--decode-attention-backend", "tokenspeed_mla",
        "--kv-cache-dtype", "fp8_e4m3"], {}),
    ("older/v4-zigzag-cp", "b200", V4_FLASH, [
        "--tp-size", "4", "--enable-prefill-cp", "--cp-strategy", "zigzag"], {}),
    ("older/dsa-interleave-cp-dp", "h200", "parity-models/deepseek-v3.2-exp", [
        "--tp-size", "8", "--enable-prefill-cp", "--cp-strategy", "interleave",
        "--enable-dp-attention", "--dp-size", "2"], {}),
    ("older/tp-lm-head-a2a-dp2", "h100", "models/qwen3-30b-a3b", [
        "--tp-size", "4", "--enable-dp-attention", "--dp-size", "2",
        "--enable-tp-lm-head-all-to-all"], {}),
    ("older/dp-cp-width", "h100", "models/qwen3-30b-a3b", [
        "--tp-size", "4", "--enable-dp-attention", "--dp-size", "4", "--attn-cp-size", "2"], {}),
    ("older/pd-decode-dcp-ascend", "h200", "models/deepseek-v3", [
        "--tp-size", "8", "--dcp-size", "2", "--disaggregation-mode", "decode",
        "--disaggregation-transfer-backend", "ascend"], {}),
    ("older/pd-decode-dcp-nixl", "h200", "models/deepseek-v3", [
        "--tp-size", "8", "--dcp-size", "2", "--disaggregation-mode", "decode",
        "--disaggregation-transfer-backend", "nixl"], {}),
    # post-capture KV sizing (an opt-in): a hybrid-SWA unified pool resizes from 0.5.22 on,
    # and Mooncake over EFA rules it out (every release)
    ("postcap/gpt-oss-unified", "h100", GPT_OSS, UNIFIED + ["--attention-backend", "fa3"],
     POST_CAPTURE),
    ("postcap/gpt-oss-unified-eagle3", "h100", GPT_OSS, UNIFIED + EAGLE3_CHAIN + [
        "--attention-backend", "fa3"], POST_CAPTURE),
    ("postcap/qwen3-next-unified", "h200", QWEN3_NEXT, UNIFIED + ["--tp-size", "4"],
     POST_CAPTURE),
    ("postcap/gpt-oss", "h100", GPT_OSS, ["--attention-backend", "fa3"], POST_CAPTURE),
    ("postcap/llama-efa", "h100", LLAMA, [], {**POST_CAPTURE, "MOONCAKE_PROTOCOL": "efa"}),
    ("postcap/llama-efa-nixl", "h100", LLAMA, ["--disaggregation-transfer-backend", "nixl"],
     {**POST_CAPTURE, "MOONCAKE_PROTOCOL": "EFA"}),
    ("postcap/llama", "h100", LLAMA, [], POST_CAPTURE),
    # refusals every release makes that no recording had met
    ("unmet/host-pool-dcp", "h200", "models/deepseek-v3", [
        "--tp-size", "8", "--dcp-size", "2", "--disaggregation-mode", "decode",
        "--disaggregation-decode-retraction-backup", "host_pool"], {}),
    ("unmet/host-pool-priority", "h100", LLAMA, [
        "--disaggregation-mode", "decode", "--disaggregation-decode-retraction-backup",
        "host_pool", "--enable-priority-scheduling"], {}),
    ("unmet/host-pool-priority-no-preemption", "h100", LLAMA, [
        "--disaggregation-mode", "decode", "--disaggregation-decode-retraction-backup",
        "host_pool", "--enable-priority-scheduling", "--disable-priority-preemption"], {}),
    ("unmet/offload-no-storage", "h100", LLAMA, [
        "--disaggregation-mode", "decode", "--disaggregation-decode-enable-offload-kvcache"], {}),
    ("unmet/offload-host-pool", "h100", LLAMA, [
        "--disaggregation-mode", "decode", "--disaggregation-decode-enable-offload-kvcache",
        "--hicache-storage-backend", "file", "--disaggregation-decode-retraction-backup",
        "host_pool"], {}),
    ("unmet/dsa-cp-two-nodes", "h200", "parity-models/deepseek-v3.2-exp", [
        "--tp-size", "16", "--nnodes", "2", "--node-rank", "0", "--dist-init-addr",
        "10.0.0.1:5000", "--enable-prefill-cp", "--cp-strategy", "interleave"], {}),
    ("unmet/v4-trtllm-no-chunk", "b200", V4_FLASH, [
        "--tp-size", "4", "--dsv4-attn-backend", "trtllm", "--chunked-prefill-size", "-1"], {}),
    ("unmet/v4-trtllm-hisparse", "b200", V4_FLASH, [
        "--tp-size", "4", "--dsv4-attn-backend", "trtllm", "--enable-hisparse"], {}),
    ("unmet/v4-trtllm-h200", "h200", V4_FLASH, [
        "--tp-size", "8", "--dsv4-attn-backend", "trtllm"], {}),
    ("unmet/v4-trtllm-bf16-kv", "b200", V4_FLASH, [
        "--tp-size", "4", "--dsv4-attn-backend", "trtllm", "--kv-cache-dtype", "bfloat16"], {}),
    # HiCache: unified memory's page_first_direct layout (0.5.23 moves it to page_first)
    ("hicache/unified-direct", "h100", LLAMA, UNIFIED + [
        "--enable-hierarchical-cache", "--hicache-mem-layout", "page_first_direct"], {}),
    # a typed --radix-eviction-policy is kept where Qwen3-VL's large-Hopper serving defaults
    # (0.5.23) would pick priority: SGLang's command-line entry notes the flag as typed
    ("entry/typed-lru-qwen3-vl-h100", "h100", QWEN3_VL, ["--radix-eviction-policy", "lru"], {}),
    ("entry/typed-lru-qwen3-vl-h200", "h200", QWEN3_VL, ["--radix-eviction-policy=lru"], {}),
    ("entry/default-policy-qwen3-vl-h100", "h100", QWEN3_VL, [
        "--prefill-decode-interval", "8"], {}),
]
#: fields the aimed lines' branches write, compared in those lines
AIMED_FIELDS = ["disaggregation_bootstrap_port", "enable_page_major_kv_layout",
                "moe_runner_backend", "hicache_mem_layout",
                "hicache_io_backend", "speculative_moe_runner_backend",
                "disable_shared_experts_fusion", "linear_attn_prefill_backend",
                "linear_attn_decode_backend", "flashinfer_allreduce_fusion_backend"]


def compared() -> list[str]:
    """release2's compared fields plus the aimed lines' own."""
    _, _, fields = wild.pool(False)
    fields = fields + [f for f in release2.RELEASE_FIELDS + wild4.FIX_FIELDS if f not in fields]
    return fields + [f for f in release2.FOUND_FIELDS + AIMED_FIELDS if f not in fields]


def aimed(suite: str, fields: list[str]) -> list[dict]:
    cases = []
    for name, platform, model, argv, env in AIMED:
        case = {"name": f"{suite}/{name}", "platform": platform, "model": model, "argv": argv,
                "fields": fields + wild3.own_fields(argv, fields)}
        if env:
            case["env"] = env
        cases.append(case)
    return cases


def main() -> None:
    fields = compared()
    if "--aim" in sys.argv:
        suite, cases = "r3aim", aimed("r3aim", fields)
    elif "--aim2" in sys.argv:  # the second batch of aimed lines
        suite = "r3aim2"
        cases = [c for c in aimed(suite, fields) if c["name"].split("/")[1] == "rust"]
    elif "--aim4" in sys.argv:  # the fourth: post-capture KV sizing
        suite = "r3aim4"
        cases = [c for c in aimed(suite, fields) if c["name"].split("/")[1] == "postcap"]
    elif "--aim5" in sys.argv:  # the fifth: refusals no recording had met
        suite = "r3aim5"
        cases = [c for c in aimed(suite, fields) if c["name"].split("/")[1] == "unmet"]
    elif "--aim3" in sys.argv:  # the third: refusals only the older releases make
        suite = "r3aim3"
        cases = [c for c in aimed(suite, fields) if c["name"].split("/")[1] == "older"]
    else:
        suite = "release3"
        cases = release2.draw(random.Random(SEED), suite, COUNT, fields)
        cases += aimed("release3/aimed", fields)
    out = wild.DATA / f"{suite}-cases.json"
    out.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print(f"{suite}: wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
