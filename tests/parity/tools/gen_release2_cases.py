"""Generate ``tests/parity/data/release2-cases.json``: realistic launches leaning on what changed
between SGLang 0.5.21, 0.5.22 and 0.5.23.

    PYTHONPATH=src:. python tests/parity/tools/gen_release2_cases.py [--probe SEED]
    ~/sglang-oracle-0.5.22/bin/python tests/parity/tools/record_suite.py release2 \\
        --release 0.5.22 --jobs 1 --timeout 120       # likewise 0.5.21 (PYTHONPATH=tf 5.12.1)
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py release2 --jobs 1

0.5.21 runs under its pinned transformers 5.12.1 (``PYTHONPATH=/root/tf-5.12.1``); the venv as
built on 2026-12-02 lacked what that transformers imports (httpx, torchvision) and holds newer
tokenizers and huggingface_hub than it accepts, so the recording put an overlay after it on
``PYTHONPATH``: httpx, httpcore and h11 (``pip install --no-deps --target``), version
metadata of tokenizers 0.23.0 and huggingface_hub 1.99.0, and an inert ``torchvision`` package
(resolution never runs an image processor). 24 public cases recorded so equal the stored
0.5.21 answers.

``release-cases.json`` holds one case per difference found by reading the wheels. Here each
``release2/<i>`` line is a realistic base (``gen_wild_cases.base``) plus one or two groups of
flags whose surface or meaning moved between the releases (``../shared/spec/versions.md`` and
the release field tables in ``src/launchplan/input/data``): the graph backends (tc_piecewise
and its compiler, gone in 0.5.22), the attention-DP spellings (``--attn-dp-size`` came in
0.5.22), PD decode settings (the receive threshold's default, the allocation policy), the
watermark, block verification and the W4A4 MegaMoE draft, context parallelism and KV
sharding, the DSA switches, the HiCache storage backends, the backends that came or changed
(tokenspeed_mla, llada2_cfg_flashinfer, dsv4 flashmla_mega), and the 0.5.23 switches
(paged experts, aux hidden states, the tri-state booleans); half of them with a feature group
of ``gen_wild4_cases``. The models are the bundled ones and the parity configs older releases
can read. Then the lines the probes found disagreeing (``release2/found/<seed>-<n>``).
Seeded and frozen: the groups are data here, so later rules do not change the draw.

``--probe SEED`` draws the same kind of lines with another seed into ``r2pSEED-cases.json``
(``r2pSEED/<i>``, no found lines), to look for the next classes.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable

from tests.parity.tools import gen_wild3_cases as wild3
from tests.parity.tools import gen_wild4_cases as wild4
from tests.parity.tools import gen_wild_cases as wild

from launchplan.input.fields import release_table

SEED = 7202  # the seed of the first probe (r2p7202): its first COUNT lines
COUNT = 150
# parity configs every release reads (no Muse Spark, whose class 0.5.21-0.5.22 take from
# transformers; no Gemma 4, EmbeddingGemma 2 or Nemotron 3 Super, which the older venvs'
# transformers refuses: HARNESS_MESSAGES)
PARITY = ("deepseek-v3.2-exp", "deepseek-v4-synth", "deepseek-v4.1-synth", "glm-moe-dsa-synth",
          "glm5-next-synth", "kimi-k3-synth", "kimi-linear-synth", "mimo-v2-flash",
          "minicpm-sala-synth", "iquest-q1-synth", "exaone-4-synth", "inkling-synth",
          "minimax-m3-synth", "nemotron-h-synth", "qwen3-next-synth", "qwen3.5-9b",
          "qwen3.6-35b-a3b", "qwen2.5-vl-7b-instruct", "glm-4.5-air", "gemma-3-4b-it",
          "whisper-large-v3", "beam-synth", "ernie-4.5-vl-synth", "llama-4-scout-synth",
          "minimax-m2.5", "kimi-k2.5", "step-3.5-synth", "falcon-h1-synth")
# fields the release differences move, compared in every line
RELEASE_FIELDS = ["disaggregation_decode_host_receive_threshold",
                  "disaggregation_decode_allocation_policy", "enable_fused_qk_norm_rope",
                  "hicache_ratio", "hicache_write_policy", "hicache_mem_layout",
                  "hicache_io_backend", "enable_kv_cache_sharding", "enable_cp_tp_group_sharing",
                  "cp_strategy", "enable_prefill_cp", "dcp_size", "enable_watermark",
                  "speculative_use_block_verification", "enable_layernorm_sp",
                  "file_storage_path", "load_format"]
Draw = Callable[[random.Random], list[str]]
_some = wild4._some


def graphs(rng: random.Random) -> list[str]:
    """The graph backends per phase (tc_piecewise only before 0.5.22) and the decode cap."""
    phases = ("full", "breakable", "tc_piecewise", "disabled")
    out = _some(rng, ["--cuda-graph-backend-decode", rng.choice(phases)],
                ["--cuda-graph-backend-prefill", rng.choice(phases)],
                ["--cuda-graph-tc-compiler", rng.choice(("eager", "inductor"))],
                ["--max-running-requests", rng.choice(("8", "48", "96", "200"))],
                ["--cuda-graph-max-bs-prefill", rng.choice(("16", "256", "4096"))],
                ["--cuda-graph-config", json.dumps(
                    {rng.choice(("decode", "prefill")): {"max_bs": rng.choice((64, 512))}})],
                p=0.35)
    return out or ["--cuda-graph-backend-decode", "tc_piecewise"]


def dp_spelling(rng: random.Random) -> list[str]:
    """Attention DP in 0.5.21's spelling and in 0.5.22's, one group too."""
    dp = rng.choice(("1", "2", "4", "8"))
    argv = rng.choice((["--enable-dp-attention", "--dp-size", dp], ["--attn-dp-size", dp],
                       ["--enable-dp-attention"], ["--dp-size", dp]))
    return argv + _some(rng, ["--enable-dp-lm-head"], ["--moe-dense-tp-size", "1"],
                        ["--moe-a2a-backend", rng.choice(("deepep", "mori", "megamoe"))],
                        ["--speculative-algorithm", "EAGLE"], p=0.3)


def pd_decode(rng: random.Random) -> list[str]:
    """PD roles with the settings whose defaults or checks moved."""
    mode = rng.choice(("decode", "decode", "prefill"))
    return ["--disaggregation-mode", mode] + _some(
        rng, ["--disaggregation-decode-host-receive-threshold", rng.choice(("0", "0.5", "1"))],
        ["--disaggregation-decode-allocation-policy", rng.choice(("early", "prefill_complete"))],
        ["--disaggregation-decode-enable-offload-kvcache"], ["--enable-pd-role-switch"],
        ["--disaggregation-decode-enable-radix-cache"],
        ["--hicache-storage-backend", rng.choice(("file", "mooncake"))],
        ["--disaggregation-decode-retraction-backup", rng.choice(("host_pool", "cpu_tensor"))],
        ["--dp-size", rng.choice(("2", "4"))], p=0.3)


def watermark(rng: random.Random) -> list[str]:
    """The text watermark (0.5.22 on)."""
    return ["--enable-watermark"] + _some(
        rng, ["--watermark-key", "42"], ["--watermark-context-window", rng.choice(("1", "4"))],
        ["--watermark-default-enabled"], ["--watermark-enforce-all"],
        ["--watermark-mixing-probability", rng.choice(("0.5", "1.5"))], p=0.4)


def speculation(rng: random.Random) -> list[str]:
    """Speculative switches that came, went or changed meaning between the releases."""
    algo = rng.choice(("EAGLE", "NEXTN", "DFLASH", "NGRAM", "STANDALONE"))
    argv = ["--speculative-algorithm", algo]
    if algo in ("DFLASH", "STANDALONE"):
        argv += ["--speculative-draft-model-path", "models/llama-3.2-1b"]
    return argv + _some(
        rng, ["--speculative-use-block-verification"],
        ["--speculative-enable-w4a4-mxfp4-megamoe"], ["--speculative-skip-dp-mlp-sync"],
        ["--speculative-use-rejection-sampling"], ["--enable-deterministic-inference"],
        ["--speculative-moe-runner-backend", rng.choice(("megamoe", "triton", "lora_triton"))],
        ["--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
         "--speculative-num-draft-tokens", "4"], p=0.3)


def context_parallel(rng: random.Random) -> list[str]:
    """Prefill and decode CP, KV-cache sharding and CP/TP group sharing (0.5.22 on)."""
    return _some(rng, ["--enable-prefill-cp"], ["--cp-strategy", rng.choice(("zigzag",
                                                                             "interleave"))],
                 ["--attn-cp-size", rng.choice(("2", "4"))], ["--dcp-size", rng.choice(("2", "4"))],
                 ["--enable-kv-cache-sharding"], ["--enable-cp-tp-group-sharing"],
                 ["--disaggregation-mode", "prefill"], p=0.4) or ["--enable-prefill-cp"]


def dsa(rng: random.Random) -> list[str]:
    """The DSA switches and backends (the Triton union and fused indexer came in 0.5.22)."""
    backends = ("flashmla_sparse", "flashmla_kv", "trtllm", "fa3", "tilelang", "triton_sparse_mla",
                "intel_xpu", "aiter")
    return _some(rng, ["--dsa-triton-union", rng.choice(("0", "2", "4"))],
                 ["--enable-dsa-fused-indexer"], ["--qsa-indexer-dtype", "fp8_e4m3"],
                 ["--dsa-prefill-backend", rng.choice(backends)],
                 ["--dsa-decode-backend", rng.choice(backends)],
                 ["--kv-cache-dtype", rng.choice(("fp8_e4m3", "bf16"))], p=0.35) or [
        "--dsa-triton-union", "2"]


def storage(rng: random.Random) -> list[str]:
    """HiCache storage and its host pool (seaweedfs and a file path default came in 0.5.22)."""
    return ["--enable-hierarchical-cache"] + _some(
        rng, ["--hicache-storage-backend", rng.choice(("seaweedfs", "file", "mooncake", "mori"))],
        ["--file-storage-path", "/tmp/kv"], ["--hicache-write-policy",
                                             rng.choice(("write_back", "write_through"))],
        ["--hicache-host-memory-fraction", rng.choice(("0", "0.5"))],
        ["--enable-unified-cache-external-linker"],
        ["--disaggregation-mode", "decode"], p=0.35)


def backends(rng: random.Random) -> list[str]:
    """Backends and formats that came or changed (tokenspeed_mla, llada2_cfg_flashinfer, ...)."""
    name = rng.choice(("tokenspeed_mla", "cutedsl_mla", "trtllm_mla", "llada2_cfg_flashinfer",
                       "fa4", "trtllm_mha", "flashmla", "dsv4"))
    flag = rng.choice(("--attention-backend", "--decode-attention-backend",
                       "--prefill-attention-backend"))
    return [flag, name] + _some(
        rng, ["--kv-cache-dtype", rng.choice(("fp8_e4m3", "auto"))],
        ["--page-size", rng.choice(("16", "32", "64"))],
        ["--dsv4-attn-backend", rng.choice(("flashmla", "flashmla_mega", "trtllm"))],
        ["--load-format", rng.choice(("instanttensor", "safetensors"))], p=0.3)


def later_switches(rng: random.Random) -> list[str]:
    """Switches of 0.5.23 alone (bad input before) and the tri-state booleans."""
    return _some(rng, ["--enable-paged-experts"], ["--paged-experts-num-resident", "4"],
                 ["--enable-return-aux-hidden-states"], ["--prefill-decode-interval-min-bs", "8"],
                 ["--enable-hicache"], ["--no-enable-tf32-matmul"], ["--enable-tf32-matmul"],
                 ["--enable-fused-qk-norm-rope"], ["--no-mm-enable-dp-encoder"],
                 ["--enable-decoder-swa-bounded-replay"], ["--lora-backend", "triton_v2"],
                 ["--moe-runner-backend", rng.choice(("lora_triton", "lora_marlin"))],
                 ["--reasoning-parser", "beam"], ["--enable-http-worker-reuseport"],
                 ["--enable-megamoe-for-layernorm-sp"], p=0.15) or ["--enable-paged-experts"]


def moe(rng: random.Random) -> list[str]:
    """MoE runners and all-to-all backends whose checks moved (MegaMoE, MoRI, layernorm SP)."""
    return _some(rng, ["--moe-a2a-backend", rng.choice(("megamoe", "flashinfer_megamoe", "mori",
                                                        "deepep", "deepep_v2"))],
                 ["--moe-runner-backend", rng.choice(("megamoe", "flashinfer_megamoe",
                                                      "flashinfer_trtllm", "deep_gemm"))],
                 ["--enable-layernorm-sp"], ["--ep-size", rng.choice(("2", "8"))],
                 ["--deepep-mode", "low_latency"], ["--enable-eplb"],
                 ["--chunked-prefill-size", "16384"], p=0.35) or ["--moe-a2a-backend", "megamoe"]


RELEASE_GROUPS: tuple[Draw, ...] = (graphs, dp_spelling, pd_decode, watermark, speculation,
                                     context_parallel, dsa, storage, backends, later_switches,
                                     moe)

#: Lines aimed at the classes the probes and the source diff found (``release2/found/<name>``):
#: platform, model, argv, environment. ``r2p7202`` (300 lines, 0.5.22) found the DFLASH
#: attention-DP wording; reading the releases' pipelines found the rest, each confirmed on the
#: oracles before it was fixed: GLM-5 Next's breakable prefill policy (0.5.21 only), the KDA
#: verify fallback under SGLANG_ENABLE_PP_SPEC (0.5.22 on), DP spec/prefill coordination (every
#: release; DSPARK from 0.5.22), TileLang DSA with an FP8 cache on CUDA (0.5.22 on), 0.5.21's
#: CuteDSL-only FlashInfer A2A budget, and 0.5.21's unified-pool checks.
GLM5 = "parity-models/glm5-next-synth"
DSA = "parity-models/deepseek-v3.2-exp"
QWEN3_MOE = "models/qwen3-30b-a3b"
EAGLE_DRAFT = ["--speculative-draft-model-path", "models/llama-3.1-8b-eagle"]
BREAKABLE = ["--tp-size", "8", "--cuda-graph-backend-prefill", "breakable"]
TILELANG = ["--tp-size", "8", "--dsa-prefill-backend", "tilelang", "--dsa-decode-backend",
            "tilelang"]
FP8 = ["--kv-cache-dtype", "fp8_e4m3"]
FI_A2A = ["--tp-size", "8", "--enable-dp-attention", "--dp-size", "8", "--ep-size", "8",
          "--moe-a2a-backend", "flashinfer", "--quantization", "modelopt_fp4"]
CUTEDSL = FI_A2A + ["--moe-runner-backend", "flashinfer_cutedsl"]
COORDINATION = {"SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION": "1"}
UNIFIED = ["--enable-unified-memory"]
DEEPEP_V2_NODES = ["--tp-size", "16", "--nnodes", "2", "--node-rank", "0", "--moe-a2a-backend",
                   "deepep_v2"]
GEMMA4 = "parity-models/gemma-4-31b-it-nvfp4"
SCATTERED = ["--tp-size", "8", "--enable-attn-tp-input-scattered"]
DEEPEP_V2_ENV = {"SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "16384"}
FOUND: list[tuple[str, str, str, list[str], dict[str, str]]] = [
    ("dflash-attention-dp", "h100", "models/deepseek-r1", [
        "--tp-size", "8", "--enable-dp-attention", "--dp-size", "8", "--speculative-algorithm",
        "DFLASH", "--speculative-draft-model-path", "models/llama-3.2-1b", "--enable-dp-lm-head",
        "--moe-a2a-backend", "deepep"], {}),
    ("glm5-next/h200/breakable", "h200", GLM5, BREAKABLE, {}),
    ("glm5-next/b200/breakable-chunk8192", "b200", GLM5,
     BREAKABLE + ["--chunked-prefill-size", "8192"], {}),
    ("glm5-next/h200/breakable-maxbs512", "h200", GLM5,
     BREAKABLE + ["--cuda-graph-max-bs-prefill", "512"], {}),
    ("glm5-next/b200/breakable-deepep", "b200", GLM5,
     BREAKABLE + ["--moe-a2a-backend", "deepep", "--ep-size", "8"], {}),
    ("glm5-next/h200/default", "h200", GLM5, ["--tp-size", "8"], {}),
    ("glm5-next/mi300x/breakable", "mi300x", GLM5, BREAKABLE, {}),
    ("glm5-next/h200/breakable-config", "h200", GLM5, [
        "--tp-size", "8", "--cuda-graph-config", '{"prefill": {"backend": "breakable"}}'], {}),
    ("kda/b200/pp-spec-flashinfer", "b200", "parity-models/kimi-linear-synth", [
        "--mamba-ssm-dtype", "bfloat16", "--linear-attn-decode-backend", "flashinfer"],
     {"SGLANG_ENABLE_PP_SPEC": "1"}),
    ("kda/b200/flashinfer", "b200", "parity-models/kimi-linear-synth", [
        "--mamba-ssm-dtype", "bfloat16", "--linear-attn-decode-backend", "flashinfer"], {}),
    ("coordination/none", "h100", "models/llama-3.1-8b", [], COORDINATION),
    ("coordination/eagle", "h100", "models/llama-3.1-8b", [
        "--speculative-algorithm", "EAGLE", *EAGLE_DRAFT], COORDINATION),
    ("coordination/ngram", "h100", "models/llama-3.1-8b", [
        "--speculative-algorithm", "NGRAM"], COORDINATION),
    ("coordination/multi-layer-eagle", "h100", "models/llama-3.1-8b", [
        "--speculative-algorithm", "EAGLE", *EAGLE_DRAFT, "--enable-multi-layer-eagle"],
     COORDINATION),
    ("coordination/eagle3-dp", "h100", "models/llama-3.1-8b", [
        "--speculative-algorithm", "EAGLE3", *EAGLE_DRAFT, "--tp-size", "2",
        "--enable-dp-attention", "--dp-size", "2"], COORDINATION),
    ("dsa/h200/tilelang-fp8", "h200", DSA, TILELANG + FP8, {}),
    ("dsa/h200/tilelang-prefill-fp8", "h200", DSA, [
        "--tp-size", "8", "--dsa-prefill-backend", "tilelang", *FP8], {}),
    ("dsa/h200/triton-decode", "h200", DSA, ["--tp-size", "8", "--dsa-decode-backend",
                                             "triton"], {}),
    ("dsa/b200/tilelang-fp8-dcp", "b200", DSA, TILELANG + FP8 + ["--dcp-size", "2"], {}),
    ("dsa/a100/tilelang-fp8", "a100", DSA, TILELANG + FP8, {}),
    ("dsa/h200/hisparse-tilelang-fp8", "h200", DSA, [
        "--tp-size", "8", "--enable-hisparse", "--dsa-decode-backend", "tilelang", *FP8], {}),
    ("dsa/h200/tilelang-bf16", "h200", DSA, TILELANG, {}),
    ("dsa/mi300x/tilelang-fp8", "mi300x", DSA, TILELANG + FP8, {}),
    ("flashinfer-a2a/cutedsl", "b200", QWEN3_MOE, CUTEDSL, {}),
    ("flashinfer-a2a/cutedsl-no-chunk", "b200", QWEN3_MOE,
     CUTEDSL + ["--chunked-prefill-size", "-1"], {}),
    ("flashinfer-a2a/cutedsl-prefill4096", "b200", QWEN3_MOE,
     CUTEDSL + ["--max-prefill-tokens", "4096"], {}),
    ("flashinfer-a2a/cutedsl-decode", "b200", QWEN3_MOE,
     CUTEDSL + ["--disaggregation-mode", "decode"], {}),
    ("flashinfer-a2a/cutedsl-env4096", "b200", QWEN3_MOE, CUTEDSL,
     {"SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "4096"}),
    ("flashinfer-a2a/cutlass-no-chunk", "b200", QWEN3_MOE, FI_A2A + [
        "--moe-runner-backend", "flashinfer_cutlass", "--chunked-prefill-size", "-1"], {}),
    ("flashinfer-a2a/cutedsl-chunk2048", "b200", QWEN3_MOE, CUTEDSL + [
        "--max-prefill-tokens", "2048", "--chunked-prefill-size", "2048"], {}),
    ("unified/plain", "h100", "models/llama-3.1-8b", UNIFIED, {}),
    ("unified/eagle", "h100", "models/llama-3.1-8b", UNIFIED + [
        "--speculative-algorithm", "EAGLE", *EAGLE_DRAFT], {}),
    ("unified/gemma3-eagle3", "h100", "parity-models/gemma-3-4b-it", UNIFIED + [
        "--speculative-algorithm", "EAGLE3", *EAGLE_DRAFT, "--speculative-eagle-topk", "1",
        "--speculative-num-steps", "3", "--speculative-num-draft-tokens", "4"], {}),
    ("unified/linker", "h100", "models/llama-3.1-8b", UNIFIED + [
        "--enable-unified-cache-external-linker"], {}),
    ("unified/host-pool-radix", "h100", "models/llama-3.1-8b", UNIFIED + [
        "--disaggregation-mode", "decode", "--disaggregation-decode-retraction-backup",
        "host_pool", "--disaggregation-decode-enable-radix-cache"], {}),
    ("unified/gemma3-host-pool", "h100", "parity-models/gemma-3-4b-it", UNIFIED + [
        "--disaggregation-mode", "decode", "--disaggregation-decode-retraction-backup",
        "host_pool"], {}),
    ("unified/b200-trtllm-mha", "b200", "models/llama-3.1-8b", UNIFIED + [
        "--attention-backend", "trtllm_mha"], {}),
    ("unified/ngram", "h100", "models/llama-3.1-8b", UNIFIED + [
        "--speculative-algorithm", "NGRAM"], {}),
    ("unified/hicache", "h100", "models/llama-3.1-8b", UNIFIED + [
        "--enable-hierarchical-cache"], {}),
    # DeepEP v2's direct mode (the default) across nodes: refused from 0.5.22 on
    ("deepep-v2/two-nodes-direct", "b200", "models/deepseek-v3", DEEPEP_V2_NODES, DEEPEP_V2_ENV),
    ("deepep-v2/two-nodes-hybrid", "b200", "models/deepseek-v3",
     DEEPEP_V2_NODES + ["--deepep-v2-mode", "hybrid"], DEEPEP_V2_ENV),
    ("deepep-v2/one-node", "b200", "models/deepseek-v3", [
        "--tp-size", "8", "--moe-a2a-backend", "deepep_v2"], DEEPEP_V2_ENV),
    # Gemma 4 on fa4: refused by 0.5.21's backend assert
    ("gemma4/b200/fa4", "b200", GEMMA4, ["--attention-backend", "fa4"], {}),
    ("gemma4/b200/default", "b200", GEMMA4, [], {}),
    ("gemma4/b200/decode-fa4", "b200", GEMMA4, ["--decode-attention-backend", "fa4"], {}),
    # input-scattered attention turned off for Kimi-K3 from 0.5.22, Inkling from 0.5.23
    ("scattered/inkling", "b200", "parity-models/inkling-synth", SCATTERED, {}),
    ("scattered/kimi-k3", "b200", "parity-models/kimi-k3-synth", SCATTERED, {}),
]
# fields the found lines' fixes write, compared in those lines
FOUND_FIELDS = ["cuda_graph_config.prefill.bs", "linear_attn_decode_backend",
                "enable_attn_tp_input_scattered",
                "linear_attn_verify_backend", "mamba_ssm_dtype", "max_prefill_tokens",
                "enable_page_major_kv_layout"]


def models() -> list[str]:
    bundled = sorted(f"models/{m}" for m in wild.bundled_models() if m not in wild.DRAFTS)
    return bundled + [f"parity-models/{m}" for m in PARITY]


def fits(argv: list[str], release: str) -> bool:
    """Whether every flag of a line, and every value given to a flag with choices, is in a
    release's surface (its field table): the line reaches that release's resolution."""
    table = release_table(release)
    for i, token in enumerate(argv):
        if not token.startswith("--"):
            continue
        field = table.flag_to_field.get(token)
        if field is None:
            return False
        choices = table.fields[field].choices
        if choices and i + 1 < len(argv) and str(argv[i + 1]) not in map(str, choices):
            return False
    return True


def line(rng: random.Random, platform: str, model: str) -> list[str]:
    argv = wild.base(rng, platform, model.split("/", 1)[1])
    for group in rng.sample(RELEASE_GROUPS, rng.randint(1, 2)):
        argv += group(rng)
    if rng.random() < 0.5:
        argv += wild4.groups(rng, model.split("/", 1)[1], argv)
    return argv


def draw(rng: random.Random, suite: str, count: int, compared: list[str]) -> list[dict]:
    """``count`` lines: a third drawn until they fit 0.5.21's surface, a third 0.5.22's (so
    they reach resolution there), a third as they come (mostly bad input before 0.5.23)."""
    pool = models()
    cases = []
    for i in range(count):
        platform = wild.PLATFORMS[i % len(wild.PLATFORMS)]
        model = pool[rng.randrange(len(pool))]
        argv = line(rng, platform, model)
        release = ("0.5.21", "0.5.22", None)[i % 3]
        for _ in range(40):
            if release is None or fits(argv, release):
                break
            argv = line(rng, platform, model)
        cases.append({"name": f"{suite}/{i}", "platform": platform, "model": model,
                      "argv": argv, "fields": compared + wild3.own_fields(argv, compared)})
    return cases


def main() -> None:
    probe = sys.argv[sys.argv.index("--probe") + 1] if "--probe" in sys.argv else None
    suite = f"r2p{probe}" if probe else "release2"
    _, _, compared = wild.pool(False)
    compared = compared + [f for f in RELEASE_FIELDS + wild4.FIX_FIELDS if f not in compared]
    count = int(sys.argv[sys.argv.index("--count") + 1]) if "--count" in sys.argv else COUNT
    cases = draw(random.Random(int(probe) if probe else SEED), suite, count, compared)
    if not probe:
        found_fields = compared + [f for f in FOUND_FIELDS if f not in compared]
        for name, platform, model, argv, env in FOUND:
            case = {"name": f"release2/found/{name}", "platform": platform, "model": model,
                    "argv": argv, "fields": found_fields + wild3.own_fields(argv, found_fields)}
            if env:
                case["env"] = env
            cases.append(case)
    out = wild.DATA / f"{suite}-cases.json"
    out.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print(f"{suite}: wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
