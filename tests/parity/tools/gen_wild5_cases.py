"""Generate ``tests/parity/data/wild5-cases.json``: launches people really write for the published
2026 configs, on every target launchplan knows.

    PYTHONPATH=src:. python tests/parity/tools/gen_wild5_cases.py [--probe SEED]
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py wild5 --jobs 2

The ``hub`` suite plans the published configs of ``tests/parity/models`` with five fixed launches
on H200, B200 and MI300X. This draw goes where their deployment guides and issues go: each
``wild5/<i>`` line takes one of those configs (or a bundled model of the same generation) on a
target that can hold it (the oracle's nine and the catalog's further GPUs, so the suite is
recorded through ``targets_oracle.py``), a width that fits the node, and the flags written for
that architecture: the attention backends of its kind (MHA, MLA, DSA with its sparse prefill and
decode kernels, DeepSeek-V4, hybrid linear attention) and platform, its MTP or EAGLE draft (or
NGRAM, or a small STANDALONE draft of its family) with steps, top-k and draft tokens, page
size, KV dtype, chunk, running limit, decode and prefill CUDA-graph settings, attention DP with
the DP LM head, expert parallelism with DeepEP or Mooncake and a MoE runner, pipeline
parallelism, a PD role, HiCache, the Mamba cache of hybrid models, multimodal serving of the
vision-language ones, a quantization override, a context length and the family's tool-call and
reasoning parsers. A few lines keep spellings people still copy from older guides
(``--cuda-graph-max-bs``, ``cutlass_mla``), which 0.5.23 refuses as bad input.

Seeded and frozen: the model profiles, targets and choices are data here, so later rules do
not change the draw. ``--probe SEED`` draws the same kind of lines with another seed into
``probe-cases.json`` (``probe/<i>``), to look for the next classes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.parity.tools import gen_wild3_cases as wild3
from tests.parity.tools import gen_wild4_cases as wild4
from tests.parity.tools import gen_wild_cases as wild

SEED = 5050
BUNDLED = Path(__file__).resolve().parents[3] / "src" / "launchplan" / "facts" / "data" / "models"
COUNT = 240


@dataclass(frozen=True)
class Profile:
    """What a deployment of one model looks like: its attention kind, size class, family
    parsers, draft options and traits."""

    kind: str  # mha, mla, dsa, dsv4, hybrid
    size: str  # small (one consumer GPU), mid (one to four datacenter GPUs), big (a node)
    parsers: tuple[str | None, str | None] = (None, None)  # tool-call, reasoning
    mtp: bool = False  # the checkpoint carries MTP/NextN layers
    moe: bool = False
    vision: bool = False
    quant: str = "bf16"  # bf16, fp8, nvfp4, int4 (the checkpoint's own)
    draft: str | None = None  # a STANDALONE draft of the same family and vocabulary
    eagle3: str | None = None  # an EAGLE3 draft checkpoint


DSV32 = ("deepseekv32", "deepseek-v3")
DSV4 = ("deepseekv4", "deepseek-v4")
KIMI = ("kimi_k2", "kimi_k2")
GLM5 = ("glm47", "glm45")
QWEN35 = ("qwen3_coder", "qwen3")
MINIMAX = ("minimax-m2", "minimax-append-think")
NEMO = ("qwen3_coder", "nemotron_3")

#: model (as the case names it) -> its profile. The published configs of tests/parity/models
#: (README there names each source) and bundled models of the same generation.
MODELS: dict[str, Profile] = {
    "parity-models/deepseek-v3.2": Profile("dsa", "big", DSV32, mtp=True, moe=True, quant="fp8"),
    "parity-models/deepseek-v4-flash": Profile("dsv4", "big", DSV4, mtp=True, moe=True,
                                               quant="fp8"),
    "parity-models/deepseek-v4-pro": Profile("dsv4", "big", DSV4, mtp=True, moe=True,
                                             quant="fp8"),
    "parity-models/deepseek-v4-flash-nvfp4": Profile("dsv4", "big", DSV4, mtp=True, moe=True,
                                                     quant="nvfp4"),
    "parity-models/gemma-4-26b-a4b": Profile("mha", "mid", ("gemma4", "gemma4"), moe=True,
                                             vision=True),
    "parity-models/gemma-4-31b-it-nvfp4": Profile("mha", "small", ("gemma4", "gemma4"),
                                                  vision=True, quant="nvfp4"),
    "parity-models/qwen3.5-397b-a17b": Profile("hybrid", "big", QWEN35, mtp=True, moe=True,
                                               vision=True,
                                               draft="parity-models/qwen3.5-9b"),
    "parity-models/qwen3.5-35b-a3b": Profile("hybrid", "mid", QWEN35, mtp=True, moe=True,
                                             vision=True),
    "parity-models/qwen3.5-27b": Profile("hybrid", "mid", QWEN35, mtp=True, vision=True),
    "parity-models/qwen3.5-9b": Profile("hybrid", "small", QWEN35, mtp=True, vision=True),
    "parity-models/qwen3.6-35b-a3b": Profile("hybrid", "mid", QWEN35, moe=True, vision=True),
    "parity-models/qwen3-vl-30b-a3b-instruct": Profile("mha", "mid", ("qwen", None), moe=True,
                                                       vision=True),
    "parity-models/kimi-k2.5": Profile("mla", "big", KIMI, moe=True, vision=True, quant="int4"),
    "parity-models/kimi-k2.6-nvfp4": Profile("mla", "big", KIMI, moe=True, vision=True,
                                             quant="nvfp4"),
    "parity-models/kimi-k3": Profile("mla", "big", ("kimi_k3", "kimi_k3"), moe=True,
                                     quant="int4"),
    "parity-models/glm-5-fp8": Profile("dsa", "big", GLM5, mtp=True, moe=True, quant="fp8"),
    "parity-models/glm-5.2": Profile("dsa", "big", GLM5, mtp=True, moe=True),
    "parity-models/glm-4.7-flash": Profile("mla", "mid", GLM5, mtp=True, moe=True),
    "parity-models/minimax-m2.5": Profile("mha", "big", MINIMAX, moe=True, quant="fp8"),
    "parity-models/minimax-m2.7": Profile("mha", "big", MINIMAX, moe=True, quant="fp8"),
    "parity-models/llama-4-scout-17b-16e-instruct": Profile("mha", "big", ("pythonic", None),
                                                            moe=True, vision=True),
    "parity-models/llama-4-maverick-17b-128e-instruct": Profile("mha", "big",
                                                                ("pythonic", None),
                                                                moe=True, vision=True),
    "parity-models/mimo-v2-flash": Profile("mha", "big", ("mimo", "mimo"), moe=True,
                                           quant="fp8"),
    "parity-models/nemotron-3-nano-30b-a3b": Profile("hybrid", "mid", NEMO, moe=True),
    "parity-models/nvidia-nemotron-3-super-120b-a12b-fp8": Profile("hybrid", "big", NEMO,
                                                                   mtp=True, moe=True,
                                                                   quant="fp8"),
    "parity-models/mixtral-8x22b-v0.1": Profile("mha", "big", ("mistral", None), moe=True),
    "models/deepseek-v3": Profile("mla", "big", ("deepseekv3", "deepseek-v3"), mtp=True,
                                  moe=True, quant="fp8"),
    "models/deepseek-r1": Profile("mla", "big", ("deepseekv3", "deepseek-r1"), mtp=True,
                                  moe=True, quant="fp8"),
    "models/qwen3-235b-a22b-fp8": Profile("mha", "big", ("qwen25", "qwen3"), moe=True,
                                          quant="fp8", draft="models/qwen3-0.6b"),
    "models/gpt-oss-120b": Profile("mha", "mid", ("gpt-oss", "gpt-oss"), moe=True,
                                   quant="mxfp4"),
    "models/llama-3.3-70b": Profile("mha", "mid", ("llama3", None),
                                    draft="models/llama-3.2-1b"),
    "models/llama-3.1-8b": Profile("mha", "small", ("llama3", None),
                                   eagle3="models/llama-3.1-8b-eagle3"),
    "models/qwen3-30b-a3b": Profile("mha", "mid", ("qwen25", "qwen3"), moe=True),
}

#: target -> (GPUs on its node, vendor-architecture tag). The oracle's nine and the further
#: targets of src/launchplan/facts/data/targets.json (recorded through targets_oracle.py).
TARGETS = {
    "h100": (8, "sm90"), "h200": (8, "sm90"), "h20": (8, "sm90"), "h800": (8, "sm90"),
    "h200-nvl": (8, "sm90"), "gh200": (1, "sm90"), "a100": (8, "sm80"),
    "b200": (8, "sm100"), "b300": (8, "sm100"), "gb200": (4, "sm100"),
    "rtx5090": (1, "sm120"), "rtx-pro-6000": (8, "sm120"), "gb10": (1, "sm120"),
    "rtx4090": (1, "sm89"), "l40s": (8, "sm89"),
    "mi300x": (8, "rocm"), "mi355x": (8, "rocm"),
}
#: size class -> the targets such a model is deployed on (weights that fit a node)
FLEETS = {
    "big": ("h200", "h200", "b200", "b200", "b300", "gb200", "h20", "h800", "h100", "mi300x",
            "mi355x", "mi355x"),
    "mid": ("h100", "h200", "b200", "gb200", "a100", "l40s", "rtx-pro-6000", "h200-nvl", "gh200",
            "h20", "mi300x", "mi355x"),
    "small": ("rtx5090", "rtx4090", "rtx-pro-6000", "gb10", "l40s", "h100", "gh200", "a100",
              "b200", "mi300x"),
}
#: attention backends per (kind, architecture), as the guides for each write them
BACKENDS = {
    ("mha", "sm90"): ("fa3", "flashinfer", "triton", "fa3"),
    ("mha", "sm80"): ("flashinfer", "triton"),
    ("mha", "sm89"): ("flashinfer", "triton"),
    ("mha", "sm100"): ("trtllm_mha", "fa4", "flashinfer", "triton", "trtllm_mha"),
    ("mha", "sm120"): ("flashinfer", "triton", "fa4"),
    ("mha", "rocm"): ("aiter", "triton", "aiter"),
    ("mla", "sm90"): ("fa3", "flashmla", "flashinfer", "triton", "cutlass_mla"),
    ("mla", "sm80"): ("flashinfer", "triton"),
    ("mla", "sm89"): ("flashinfer", "triton"),
    ("mla", "sm100"): ("trtllm_mla", "cutedsl_mla", "flashinfer", "flashmla", "cutlass_mla",
                       "trtllm_mla"),
    ("mla", "sm120"): ("flashinfer", "triton"),
    ("mla", "rocm"): ("aiter", "triton", "aiter"),
    ("dsa", "sm90"): ("nsa", "dsa", "fa3"),
    ("dsa", "sm100"): ("nsa", "dsa", "trtllm_mla"),
    ("dsa", "rocm"): ("nsa", "aiter"),
    ("dsv4", "sm90"): ("dsv4", "compressed"),
    ("dsv4", "sm100"): ("dsv4", "compressed"),
    ("dsv4", "rocm"): ("dsv4", "aiter"),
    ("hybrid", "sm90"): ("fa3", "flashinfer", "triton"),
    ("hybrid", "sm80"): ("flashinfer", "triton"),
    ("hybrid", "sm89"): ("flashinfer", "triton"),
    ("hybrid", "sm100"): ("trtllm_mha", "fa4", "flashinfer", "triton"),
    ("hybrid", "sm120"): ("flashinfer", "triton"),
    ("hybrid", "rocm"): ("aiter", "triton"),
}
DSA_KERNELS = {"sm90": ("flashmla_sparse", "flashmla_kv", "fa3", "tilelang", "flashmla_auto"),
               "sm100": ("flashmla_sparse", "flashmla_kv", "trtllm", "flashinfer_sparse_mla",
                         "flashmla_auto"),
               "rocm": ("aiter", "tilelang", "triton")}
MOE_RUNNERS = {"sm90": ("deep_gemm", "triton", "flashinfer_cutlass", "cutlass"),
               "sm100": ("flashinfer_trtllm", "flashinfer_cutlass", "deep_gemm", "triton",
                         "flashinfer_cutedsl", "cutlass"),
               "sm120": ("flashinfer_cutlass", "triton", "marlin"),
               "sm89": ("triton", "marlin"), "sm80": ("triton", "marlin"),
               "rocm": ("aiter", "triton")}
QUANT_OVERRIDES = {"bf16": ("fp8", "w8a8_fp8", "fp8"), "fp8": ("fp8", "w8a8_fp8"),
                   "nvfp4": ("modelopt_fp4", "modelopt_fp4"), "int4": ("compressed-tensors",),
                   "mxfp4": ("mxfp4",),
                   # the community's AWQ/GPTQ and llm-compressor checkpoints (gen_wild6_cases)
                   "awq": ("awq", "awq_marlin", "awq_marlin", "moe_wna16"),
                   "gptq": ("gptq", "gptq_marlin", "gptq_marlin", "moe_wna16"),
                   "w4a16": ("compressed-tensors",), "w8a8": ("compressed-tensors", "w8a8_int8"),
                   "fp8-ct": ("compressed-tensors", "fp8")}


def _remote_code(model: str) -> bool:
    """Whether the config names code of its checkpoint (``auto_map``): with
    ``--trust-remote-code`` transformers would import it, and these folders hold the config
    alone, so such a line is not drawn with that flag (the oracle cannot open the code)."""
    prefix, name = model.split("/", 1)
    folder = {"parity-models": wild.DATA.parent / "models",
              "shipped": BUNDLED.parent / "hub"}.get(prefix, BUNDLED) / name
    return "auto_map" in json.loads((folder / "config.json").read_text())


def _width(rng: random.Random, profile: Profile, gpus: int, nodes: int = 1) -> int:
    """The TP width such a model is launched with on ``nodes`` nodes of ``gpus`` GPUs."""
    if profile.size == "big":  # the whole node (a GB200 tray holds four), or all of them
        return gpus * nodes
    if profile.size == "mid":
        return min(gpus, rng.choice((1, 2, 2, 4, 8)))
    return min(gpus, rng.choice((1, 1, 1, 2)))


def _speculative(rng: random.Random, profile: Profile) -> list[str]:
    options = ["NGRAM"]
    if profile.mtp:
        options += ["EAGLE", "EAGLE", "NEXTN", "NEXTN"]
    if profile.draft:
        options += ["STANDALONE"]
    if profile.eagle3:
        options += ["EAGLE3", "EAGLE3"]
    algo = rng.choice(options)
    argv = ["--speculative-algorithm", algo]
    if algo == "STANDALONE":
        argv += ["--speculative-draft-model-path", profile.draft]
    elif algo == "EAGLE3":
        argv += ["--speculative-draft-model-path", profile.eagle3]
    if algo == "NGRAM":
        if rng.random() < 0.4:
            argv += ["--speculative-num-draft-tokens", rng.choice(("8", "16"))]
        return argv
    if rng.random() < 0.8:
        steps = rng.choice((1, 2, 3, 3, 3, 5))
        topk = rng.choice((1, 1, 1, 4, 8))
        draft = steps + 1 if topk == 1 else rng.choice((8, 16, steps + 1))
        argv += ["--speculative-num-steps", str(steps), "--speculative-eagle-topk", str(topk),
                 "--speculative-num-draft-tokens", str(draft)]
    if rng.random() < 0.15:
        argv += ["--speculative-draft-attention-backend",
                 rng.choice(("fa3", "flashinfer", "triton", "trtllm_mha"))]
    return argv


def line(rng: random.Random, model: str, platform: str) -> list[str]:
    """One launch of ``model`` on ``platform``, with the flags its guides write."""
    return launch(rng, MODELS[model], model, *TARGETS[platform])


def launch(rng: random.Random, profile: Profile, model: str, gpus: int, arch: str,
           nodes: int = 1) -> list[str]:
    """One launch of ``model`` (deployed as ``profile`` says) on ``nodes`` nodes of ``gpus``
    GPUs of architecture ``arch``: a big model spans every node in TP."""
    p = rng.random
    argv: list[str] = []
    tp = _width(rng, profile, gpus, nodes)
    if tp > 1:
        argv += [rng.choice(("--tp", "--tp-size", "--tp", "--tensor-parallel-size")), str(tp)]
    if p() < 0.35 and not _remote_code(model):
        argv += ["--trust-remote-code"]
    backends = BACKENDS.get((profile.kind, arch))
    if backends and p() < 0.45:
        argv += ["--attention-backend", rng.choice(backends)]
    elif backends and p() < 0.08:
        argv += ["--prefill-attention-backend", rng.choice(backends),
                 "--decode-attention-backend", rng.choice(backends)]
    if profile.kind == "dsa" and arch in DSA_KERNELS and p() < 0.3:
        kernels = DSA_KERNELS[arch]
        argv += _some(rng, ["--dsa-prefill-backend", rng.choice(kernels)],
                      ["--dsa-decode-backend", rng.choice(
                          [k for k in kernels if k != "triton"] or kernels)], p=0.7)
    if p() < 0.3:
        argv += _speculative(rng, profile)
    if p() < 0.3:
        argv += ["--kv-cache-dtype", rng.choice(("fp8_e4m3", "fp8_e4m3", "fp8_e5m2", "bf16",
                                                 "auto"))]
    if p() < 0.15:
        argv += ["--page-size", rng.choice(("1", "16", "32", "64", "128"))]
    if p() < 0.3:
        argv += ["--chunked-prefill-size", rng.choice(("4096", "8192", "16384", "32768", "-1"))]
    if p() < 0.3:
        argv += ["--max-running-requests", rng.choice(("32", "64", "128", "256", "512", "1024"))]
    if p() < 0.3:
        argv += ["--mem-fraction-static", rng.choice(("0.7", "0.8", "0.85", "0.88", "0.9",
                                                      "0.92"))]
    if p() < 0.2:
        argv += ["--context-length", rng.choice(("8192", "32768", "65536", "131072", "262144"))]
    if p() < 0.2:  # a legacy spelling now and then: bad input in 0.5.23
        flag = "--cuda-graph-max-bs" if p() < 0.15 else "--cuda-graph-max-bs-decode"
        argv += [flag, rng.choice(("16", "32", "64", "128", "256", "512"))]
    if p() < 0.06:
        argv += ["--disable-cuda-graph"]
    elif p() < 0.15:  # the prefill (piecewise) graph
        argv += _some(rng, ["--cuda-graph-backend-prefill", rng.choice(("full", "breakable",
                                                                        "disabled"))],
                      ["--cuda-graph-max-bs-prefill", rng.choice(("4", "8", "16"))],
                      ["--cuda-graph-prefill-max-context", rng.choice(("2048", "4096"))],
                      ["--disable-prefill-cuda-graph"], p=0.4) or ["--disable-prefill-cuda-graph"]
    if tp > 1 and (profile.kind in ("mla", "dsa", "dsv4") or profile.moe) and p() < 0.3:
        dp = rng.choice([d for d in (2, 4, 8) if d <= tp])
        argv += (["--enable-dp-attention", "--dp-size", str(dp)] if p() < 0.6
                 else ["--attn-dp-size", str(dp)])
        argv += _some(rng, ["--enable-dp-lm-head"], ["--moe-dense-tp-size", "1"], p=0.35)
    if profile.moe and tp > 1 and p() < 0.3:
        argv += ["--ep-size", str(tp)] if p() < 0.7 else ["--ep", str(tp)]
        if arch != "rocm" and p() < 0.6:
            argv += ["--moe-a2a-backend", rng.choice(("deepep", "deepep", "mooncake"))]
            argv += _some(rng, ["--deepep-mode", rng.choice(("auto", "normal", "low_latency"))],
                          p=0.4)
        elif arch == "rocm" and p() < 0.3:
            argv += ["--moe-a2a-backend", "mori"]
        if p() < 0.2:
            argv += ["--enable-eplb", "--ep-num-redundant-experts", rng.choice(("0", "32"))]
    if profile.moe and p() < 0.15:
        argv += ["--moe-runner-backend", rng.choice(MOE_RUNNERS[arch])]
    if p() < 0.2:
        argv += ["--quantization", rng.choice(QUANT_OVERRIDES.get(profile.quant, ("fp8",)))]
    if tp >= 4 and p() < 0.06:
        argv += ["--pp-size", "2"]
    if p() < 0.1:
        argv += ["--disaggregation-mode", rng.choice(("prefill", "decode"))]
        argv += _some(rng, ["--disaggregation-transfer-backend", rng.choice(("mooncake",
                                                                             "nixl"))], p=0.5)
    if p() < 0.1:
        argv += ["--enable-hierarchical-cache"]
        argv += _some(rng, ["--hicache-ratio", rng.choice(("1.5", "2"))],
                      ["--hicache-size", rng.choice(("64", "200"))],
                      ["--hicache-write-policy", rng.choice(("write_through", "write_back"))],
                      ["--hicache-mem-layout", rng.choice(("page_first", "layer_first",
                                                           "page_first_direct"))],
                      ["--hicache-io-backend", rng.choice(("kernel", "direct"))],
                      ["--hicache-storage-backend", rng.choice(("file", "mooncake"))], p=0.3)
    if profile.kind == "hybrid" and p() < 0.35:
        argv += _some(rng, ["--mamba-ssm-dtype", rng.choice(("float32", "bfloat16"))],
                      ["--max-mamba-cache-size", rng.choice(("256", "1024"))],
                      ["--mamba-radix-cache-strategy", rng.choice(("auto", "no_buffer",
                                                                    "extra_buffer"))],
                      ["--mamba-full-memory-ratio", rng.choice(("0.5", "0.9"))],
                      ["--mamba-backend", rng.choice(("triton", "flashinfer"))],
                      ["--linear-attn-backend", rng.choice(("triton", "cutedsl",
                                                            "flashinfer"))],
                      p=0.35) or ["--mamba-ssm-dtype", "bfloat16"]
    if profile.vision and p() < 0.3:
        argv += _some(rng, ["--enable-multimodal"],
                      ["--mm-attention-backend", rng.choice(
                          ("aiter_attn", "triton_attn") if arch == "rocm"
                          else ("fa3", "sdpa", "triton_attn", "fa4"))],
                      ["--mm-enable-dp-encoder"], p=0.5) or ["--enable-multimodal"]
    elif profile.vision and p() < 0.05:
        argv += ["--language-model-only"]
    tool, reasoning = profile.parsers
    if tool and p() < 0.3:
        argv += ["--tool-call-parser", tool]
    if reasoning and p() < 0.3:
        argv += ["--reasoning-parser", reasoning]
    if p() < 0.08:
        argv += [rng.choice(("--enable-torch-compile", "--enable-two-batch-overlap",
                             "--disable-radix-cache", "--enable-mixed-chunk",
                             "--disable-overlap-schedule", "--enable-symm-mem"))]
    return argv


def _some(rng: random.Random, *options: list[str], p: float = 0.5) -> list[str]:
    """Each option's tokens with probability ``p``."""
    return [t for option in options if rng.random() < p for t in option]


def compared_fields() -> list[str]:
    """The rule-written fields every line compares: the frozen pool and wild4's fixes."""
    _, _, compared = wild.pool(False)
    return compared + [f for f in wild4.FIX_FIELDS if f not in compared]


def cases(seed: int, suite: str) -> list[dict]:
    rng = random.Random(seed)
    compared = compared_fields()
    names = sorted(MODELS)
    out = []
    for i in range(COUNT):
        model = names[rng.randrange(len(names))]
        platform = rng.choice(FLEETS[MODELS[model].size])
        argv = line(rng, model, platform)
        out.append({"name": f"{suite}/{i}", "platform": platform, "model": model, "argv": argv,
                    "fields": compared + wild3.own_fields(argv, compared)})
    return out


def main() -> None:
    write_draw("wild5", SEED, cases)


def write_draw(name: str, seed: int, draw: Callable[[int, str], list[dict]]) -> None:
    """Write suite ``name``'s draw (``seed``), or with ``--probe SEED`` the same kind of lines
    drawn with that seed into ``probe-cases.json``."""
    probe = wild.options(valued=("--probe",), switches=("--every-field", "--pairs")).get("--probe")
    suite = "probe" if probe else name
    rows = draw(int(probe) if probe else seed, suite)
    out = wild.DATA / f"{suite}-cases.json"
    out.write_text("[\n" + ",\n".join(json.dumps(c) for c in rows) + "\n]\n")
    print(f"{suite}: wrote {len(rows)} cases to {out}")


if __name__ == "__main__":
    main()
