"""Generate ``tests/parity/data/fidelity-cases.json``: cases for the disagreement classes of
launchplan issue 11 (multimodal memory and prefill graphs, MoE all-to-all validations,
``--context-length`` above the derived length), each written to probe the class, not a case.

    python tests/parity/tools/gen_fidelity_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py fidelity

``parity-models/<name>`` are the configs under ``tests/parity/models/`` (each cites its
source); ``models/<name>`` are the bundled ones.
"""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).parents[1] / "data"
FIELDS = [
    "attention_backend", "page_size", "chunked_prefill_size", "mem_fraction_static",
    "max_running_requests", "context_length", "cuda_graph_config.decode.backend",
    "cuda_graph_config.decode.max_bs", "cuda_graph_config.prefill.backend",
    "cuda_graph_config.prefill.max_bs", "moe_a2a_backend", "moe_runner_backend", "ep_size",
    "disable_shared_experts_fusion", "deepep_mode", "speculative_algorithm",
    "speculative_num_draft_tokens", "speculative_moe_a2a_backend", "disable_radix_cache",
    "enable_multimodal", "quantization", "kv_cache_dtype",
]
V2 = "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
LONGER = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"


def case(name: str, platform: str, model: str, argv: list[str], env: dict | None = None,
         **extra) -> dict:
    out = {"name": f"fidelity/{name}", "platform": platform, "model": model, "argv": argv,
           "fields": FIELDS}
    if env:
        out["env"] = env
    out.update(extra)
    return out


def context_length() -> list[dict]:
    out = []
    for model, derived in (("llama-3.1-8b", 131072), ("qwen3-8b", 40960),
                           ("deepseek-v2-lite", 163840)):
        m = f"models/{model}"
        out += [case(f"ctx/{model}/derived", "h100", m, ["--context-length", str(derived)]),
                case(f"ctx/{model}/above", "h100", m, ["--context-length", str(derived + 1)]),
                case(f"ctx/{model}/above+allow", "h100", m,
                     ["--context-length", str(derived * 2)], {LONGER: "1"}),
                case(f"ctx/{model}/above+allow-false", "b200", m,
                     ["--context-length", str(derived * 2)], {LONGER: "false"}),
                case(f"ctx/{model}/above+ci", "b200", m,
                     ["--context-length", str(derived * 2)], {"SGLANG_IS_IN_CI": "true"})]
    return out


def megamoe() -> list[dict]:
    out = []
    for gpu in ("a100", "h100", "b200", "b300", "rtx5090", "mi300x"):
        for model in ("deepseek-v3", "qwen3-30b-a3b"):
            tp = "8" if model == "deepseek-v3" and gpu != "rtx5090" else "1"
            argv = ["--tp-size", tp, "--moe-a2a-backend", "megamoe"]
            out.append(case(f"megamoe/{model}/{gpu}", gpu, f"models/{model}", argv))
        out.append(case(f"megamoe/runner-alias/deepseek-v3/{gpu}", gpu, "models/deepseek-v3",
                        ["--tp-size", "8", "--moe-runner-backend", "megamoe",
                         "--moe-a2a-backend", "deepep"]))
    for flag in ("--enable-two-batch-overlap", "--enable-single-batch-overlap"):
        out.append(case(f"megamoe/deepseek-v3/h100{flag[8:]}", "h100", "models/deepseek-v3",
                        ["--tp-size", "8", "--moe-a2a-backend", "megamoe", flag]))
    return out


def deepep_v2() -> list[dict]:
    out = []
    for model in ("llama-3.1-8b", "qwen3-30b-a3b", "deepseek-v3", "deepseek-v2-lite",
                  "gpt-oss-20b", "qwen3-8b"):
        tp = "8" if model == "deepseek-v3" else "2"
        argv = ["--tp-size", tp, "--moe-a2a-backend", "deepep_v2"]
        out.append(case(f"deepep_v2/{model}/b200/default-budget", "b200", f"models/{model}",
                        argv))
        out.append(case(f"deepep_v2/{model}/b200/budget-65536", "b200", f"models/{model}",
                        argv, {V2: "65536"}))
    ds = ["--tp-size", "8", "--moe-a2a-backend", "deepep_v2"]
    for capacity, extra in (("2048", []), ("2047", []), ("1024", []),
                            ("1024", ["--chunked-prefill-size", "8192"]),
                            ("256", ["--chunked-prefill-size", "2048",
                                     "--cuda-graph-max-bs-decode", "256"]),
                            ("255", ["--chunked-prefill-size", "2048",
                                     "--cuda-graph-max-bs-decode", "256"]),
                            ("200", ["--chunked-prefill-size", "1024",
                                     "--cuda-graph-max-bs-decode", "256",
                                     "--max-running-requests", "160"]),
                            ("200", ["--chunked-prefill-size", "1024",
                                     "--cuda-graph-max-bs-decode", "256"]),
                            ("200", ["--chunked-prefill-size", "-1",
                                     "--max-prefill-tokens", "1600",
                                     "--cuda-graph-max-bs-decode", "128"]),
                            ("4096", ["--attn-dp-size", "8", "--enable-dp-attention"]),
                            ("4096", ["--attn-dp-size", "4", "--enable-dp-attention"]),
                            ("512", ["--disable-cuda-graph", "--chunked-prefill-size", "4096"]),
                            ("512", ["--disable-cuda-graph", "--chunked-prefill-size", "4097"])):
        tag = "+".join(a.lstrip("-") for a in extra) or "defaults"
        out.append(case(f"deepep_v2/deepseek-v3/b200/cap{capacity}/{tag}", "b200",
                        "models/deepseek-v3", ds + extra, {V2: capacity}))
    for algo_argv, tag in ((["--speculative-algorithm", "EAGLE"], "eagle"),
                           (["--speculative-algorithm", "EAGLE",
                             "--speculative-moe-a2a-backend", "deepep"], "eagle+draft-deepep"),
                           (["--speculative-algorithm", "EAGLE",
                             "--speculative-moe-a2a-backend", "none"], "eagle+draft-none"),
                           (["--speculative-algorithm", "EAGLE",
                             "--speculative-moe-a2a-backend", "deepep_v2"], "eagle+draft-v2"),
                           (["--speculative-algorithm", "NGRAM"], "ngram")):
        out.append(case(f"deepep_v2/deepseek-v3/b200/{tag}", "b200", "models/deepseek-v3",
                        ds + algo_argv, {V2: "65536"}))
    out.append(case("deepep_v2/deepseek-v3/h100/cap65536", "h100", "models/deepseek-v3", ds,
                    {V2: "65536"}))
    return out


def flashinfer_megamoe() -> list[dict]:
    out = []
    fm = ["--moe-a2a-backend", "flashinfer_megamoe"]
    q = "models/qwen3-30b-a3b"
    dp4 = ["--tp-size", "4", "--attn-dp-size", "4"]
    out.append(case("fi-megamoe/llama-3.1-8b/b200", "b200", "models/llama-3.1-8b",
                    ["--tp-size", "4", "--attn-dp-size", "4"] + fm))
    out.append(case("fi-megamoe/qwen3-30b-a3b/b200/bf16", "b200", q, dp4 + fm))
    out.append(case("fi-megamoe/qwen3-30b-a3b/b200/mxfp8-no-dp", "b200", q,
                    ["--tp-size", "4", "--quantization", "mxfp8"] + fm))
    for gpu in ("h100", "b200", "b300", "rtx5090"):
        out.append(case(f"fi-megamoe/qwen3-30b-a3b/{gpu}/mxfp8", gpu, q,
                        dp4 + ["--quantization", "mxfp8"] + fm))
    out.append(case("fi-megamoe/qwen3-30b-a3b/b200/mxfp8-triton", "b200", q,
                    dp4 + ["--quantization", "mxfp8", "--moe-runner-backend", "triton"] + fm))
    out.append(case("fi-megamoe/qwen3-30b-a3b/b200/modelopt_fp4", "b200", q,
                    dp4 + ["--quantization", "modelopt_fp4"] + fm))
    out.append(case("fi-megamoe/qwen3-30b-a3b/b200/mxfp8-combine-fp16", "b200", q,
                    dp4 + ["--quantization", "mxfp8"] + fm,
                    {"SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE": "fp16"}))
    out.append(case("fi-megamoe/deepseek-v3/b200/fp8", "b200", "models/deepseek-v3",
                    ["--tp-size", "8", "--attn-dp-size", "8"] + fm))
    return out


def flashinfer_a2a() -> list[dict]:
    q = "models/qwen3-30b-a3b"
    base = ["--tp-size", "2", "--attn-dp-size", "2", "--moe-a2a-backend", "flashinfer"]
    env = "SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
    cutlass = base + ["--moe-runner-backend", "flashinfer_cutlass"]
    runner = [dict(c, name=c["name"] + "/cutlass", argv=c["argv"][:6] + cutlass[6:]
                   + c["argv"][6:]) for c in _fi_a2a(q, base, env)]
    return _fi_a2a(q, base, env) + runner


def _fi_a2a(q: str, base: list[str], env: str) -> list[dict]:
    return [
        case("fi-a2a/qwen3-30b-a3b/b200/defaults", "b200", q, base),
        case("fi-a2a/qwen3-30b-a3b/b200/no-chunking", "b200", q,
             base + ["--chunked-prefill-size", "-1"]),
        case("fi-a2a/qwen3-30b-a3b/b200/cap1024", "b200", q, base, {env: "1024"}),
        case("fi-a2a/qwen3-30b-a3b/b200/cap100000", "b200", q, base, {env: "100000"}),
        case("fi-a2a/qwen3-30b-a3b/b200/chunk2048-cap4096", "b200", q,
             base + ["--chunked-prefill-size", "2048"], {env: "4096"}),
        case("fi-a2a/qwen3-30b-a3b/b200/decode-graph-8192", "b200", q,
             base + ["--chunked-prefill-size", "2048", "--cuda-graph-max-bs-decode", "8192"]),
    ]


VLMS = ("qwen2.5-vl-7b-instruct", "qwen2-vl-7b-instruct", "llava-1.5-7b-hf", "gemma-3-4b-it",
        "qwen2.5-vl-no-vision-config")


def multimodal() -> list[dict]:
    out = []
    for name in VLMS:
        m = f"parity-models/{name}"
        for gpu in ("a100", "h100", "b200", "mi300x"):
            out.append(case(f"vlm/{name}/{gpu}", gpu, m, []))
        for tag, argv in (("tp2", ["--tp-size", "2"]),
                          ("enable-multimodal", ["--enable-multimodal"]),
                          ("prefill-breakable", ["--cuda-graph-backend-prefill", "breakable"]),
                          ("prefill-full", ["--cuda-graph-backend-prefill", "full"]),
                          ("mem-0.8", ["--mem-fraction-static", "0.8"]),
                          ("chunk-4096", ["--chunked-prefill-size", "4096"]),
                          ("language-only", ["--language-only"]),
                          ("no-graph", ["--disable-cuda-graph"])):
            out.append(case(f"vlm/{name}/h100/{tag}", "h100", m, argv))
    return out


def main() -> None:
    cases = (context_length() + megamoe() + deepep_v2() + multimodal() + flashinfer_megamoe()
             + flashinfer_a2a())
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    (DATA / "fidelity-cases.json").write_text(
        "[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print(f"wrote {len(cases)} cases")


if __name__ == "__main__":
    main()
