"""Generate ``tests/parity/data/own-cases.json``: launchplan's own parity cases.

These cases complement the oracle's 220 public cases (``public-cases.json``).
Each one is a question for the SGLang 0.5.23 oracle
(``/work/shared/oracle/sglang_oracle.py``); the recorded answers live next to
the cases file as ``results-own-0.5.23.jsonl`` (plain 0.5.23) and
``results-own-main.jsonl`` (``--rules main``: 0.5.23 plus the later FA4
full-prefill-graph exemption).

Case format (identical to the public cases):
``name`` (``own/<topic>/<model>/<gpu>/<detail>``), ``platform``, ``model``
(``models/<name>``, relative to the oracle folder), either ``argv`` (a command
line, parsed by SGLang's own parser) or ``args`` (keyword arguments, no choice
checks), ``fields`` (the public 23 fields plus ``disable_radix_cache`` and
``cuda_graph_config.prefill.bs``) and optional ``platform_overrides``.

Topics: default, split, page, kvdtype, spec, cudagraph, parallel, memory,
platform, validation.  Refusals (SGLang raising) are deliberate: the expected
answer is the error.

Usage::

    python tests/parity/tools/gen_own_cases.py            # rewrite own-cases.json
    python tests/parity/tools/gen_own_cases.py --check    # only validate / print counts

Recording (needs the oracle venv, see /work/shared/oracle/README.md)::

    python /work/shared/oracle/sglang_oracle.py tests/parity/data/own-cases.json \\
        --out tests/parity/data/results-own-0.5.23.jsonl --jobs 2
    python /work/shared/oracle/sglang_oracle.py tests/parity/data/own-cases.json \\
        --out tests/parity/data/results-own-main.jsonl --jobs 2 --rules main

Then ``python tests/parity/tools/summarize_results.py`` checks and summarises
the recordings.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(HERE), "data")

FIELDS = [
    "attention_backend",
    "prefill_attention_backend",
    "decode_attention_backend",
    "page_size",
    "kv_cache_dtype",
    "mem_fraction_static",
    "chunked_prefill_size",
    "max_running_requests",
    "disable_cuda_graph",
    "disable_overlap_schedule",
    "cuda_graph_backend_decode",
    "cuda_graph_backend_prefill",
    "cuda_graph_config.decode.backend",
    "cuda_graph_config.prefill.backend",
    "cuda_graph_config.decode.max_bs",
    "cuda_graph_config.prefill.max_bs",
    "speculative_algorithm",
    "speculative_num_steps",
    "speculative_eagle_topk",
    "speculative_num_draft_tokens",
    "speculative_draft_attention_backend",
    "moe_runner_backend",
    "tp_size",
    # extra, beyond the public 23 (both read cleanly from the oracle)
    "disable_radix_cache",
    "cuda_graph_config.prefill.bs",
]

MODELS = {"deepseek-v2-lite", "deepseek-v3", "gpt-oss-20b", "llama-3.1-8b",
          "mistral-7b-v0.3", "qwen2.5-7b", "qwen3-30b-a3b", "qwen3-8b"}
GPUS = ["a100", "h100", "h200", "b200", "gb200", "b300", "rtx5090", "mi300x", "mi355x"]

EAGLE = "models/llama-3.1-8b-eagle"
EAGLE3 = "models/llama-3.1-8b-eagle3"

CASES: list[dict] = []


def case(topic, model, gpu, detail, argv=None, args=None, po=None):
    """Append one case; exactly one of argv / args."""
    assert model in MODELS, model
    assert gpu in GPUS, gpu
    assert (argv is None) != (args is None)
    c = {"name": f"own/{topic}/{model}/{gpu}/{detail}", "platform": gpu,
         "model": f"models/{model}"}
    if argv is not None:
        c["argv"] = [str(x) for x in argv]
    else:
        c["args"] = args
    c["fields"] = list(FIELDS)
    if po:
        c["platform_overrides"] = po
    CASES.append(c)


def spec(alg, steps=None, topk=None, draft_tokens=None, draft=None):
    """argv fragment for speculative decoding."""
    a = ["--speculative-algorithm", alg]
    if draft:
        a += ["--speculative-draft-model-path", draft]
    if steps is not None:
        a += ["--speculative-num-steps", steps]
    if topk is not None:
        a += ["--speculative-eagle-topk", topk]
    if draft_tokens is not None:
        a += ["--speculative-num-draft-tokens", draft_tokens]
    return a


L, D3, D2, G, M, Q25, Q3M, Q3 = ("llama-3.1-8b", "deepseek-v3", "deepseek-v2-lite",
                                 "gpt-oss-20b", "mistral-7b-v0.3", "qwen2.5-7b",
                                 "qwen3-30b-a3b", "qwen3-8b")
TP8 = ["--tp-size", 8]

# ---------------------------------------------------------------- default ---
# model x target combinations the public set does not cover
case("default", Q3, "a100", "plain", argv=[])
case("default", Q3, "h200", "plain", argv=[])
case("default", Q3, "b200", "plain", argv=[])
case("default", Q3, "rtx5090", "plain", argv=[])
case("default", M, "h100", "plain", args={})
case("default", M, "b300", "plain", args={})
case("default", M, "mi300x", "plain", argv=[])
case("default", Q25, "rtx5090", "plain", argv=[])
case("default", Q25, "b300", "plain", args={})
case("default", L, "mi355x", "plain", argv=[])
case("default", D2, "h100", "plain", argv=[])
case("default", D2, "gb200", "plain", argv=[])
case("default", D2, "rtx5090", "plain", args={})
case("default", D2, "mi300x", "plain", argv=[])
case("default", D3, "b300", "tp8", argv=TP8)
case("default", D3, "a100", "tp8", args={"tp_size": 8})
case("default", D3, "mi355x", "tp8", argv=TP8)
case("default", G, "a100", "plain", argv=[])
case("default", G, "gb200", "plain", argv=[])
case("default", G, "rtx5090", "plain", args={})
case("default", Q3M, "h100", "tp2", argv=["--tp-size", 2])
case("default", Q3M, "mi355x", "tp4", argv=["--tp-size", 4])

# ------------------------------------------------------------------ split ---
# fa4 on one side only; the other side falls back to the generically filled base
for gpu in ("b200", "gb200", "b300", "h100", "rtx5090"):
    case("split", L, gpu, "prefill-fa4-only", argv=["--prefill-attention-backend", "fa4"])
    case("split", L, gpu, "decode-fa4-only", argv=["--decode-attention-backend", "fa4"])
case("split", Q3, "b200", "prefill-fa4-only", args={"prefill_attention_backend": "fa4"})
case("split", G, "b200", "prefill-fa4-decode-trtllm_mha",
     argv=["--prefill-attention-backend", "fa4", "--decode-attention-backend", "trtllm_mha"])
case("split", G, "b200", "flashinfer+flashinfer-collapse",
     argv=["--prefill-attention-backend", "flashinfer", "--decode-attention-backend", "flashinfer"])
# split collapse: both sides equal but base differs
case("split", L, "b200", "collapse-flashinfer-over-triton",
     argv=["--attention-backend", "triton", "--prefill-attention-backend", "flashinfer",
           "--decode-attention-backend", "flashinfer"])
case("split", L, "h100", "collapse-fa4-over-fa3",
     argv=["--attention-backend", "fa3", "--prefill-attention-backend", "fa4",
           "--decode-attention-backend", "fa4"])
case("split", L, "b200", "collapse-fa4-over-triton",
     args={"attention_backend": "triton", "prefill_attention_backend": "fa4",
           "decode_attention_backend": "fa4"})
case("split", M, "gb200", "collapse-trtllm_mha-over-flashinfer",
     argv=["--attention-backend", "flashinfer", "--prefill-attention-backend", "trtllm_mha",
           "--decode-attention-backend", "trtllm_mha", "--page-size", 16])
case("split", L, "h100", "base-triton+fa3+flashinfer",
     argv=["--attention-backend", "triton", "--prefill-attention-backend", "fa3",
           "--decode-attention-backend", "flashinfer"])
case("split", Q25, "b200", "flashinfer+trtllm_mha",
     argv=["--prefill-attention-backend", "flashinfer", "--decode-attention-backend", "trtllm_mha"])
case("split", Q25, "gb200", "trtllm_mha+fa4",
     argv=["--prefill-attention-backend", "trtllm_mha", "--decode-attention-backend", "fa4"])
case("split", Q3M, "b300", "fa4+triton",
     args={"prefill_attention_backend": "fa4", "decode_attention_backend": "triton", "tp_size": 2})
# MLA splits
case("split", D3, "b200", "prefill-fa4-only", argv=TP8 + ["--prefill-attention-backend", "fa4"])
case("split", D3, "b200", "decode-trtllm_mla-only",
     argv=TP8 + ["--decode-attention-backend", "trtllm_mla"])
case("split", D3, "b200", "prefill-trtllm_mla-only",
     argv=TP8 + ["--prefill-attention-backend", "trtllm_mla"])
case("split", D3, "gb200", "trtllm_mla+cutedsl_mla",
     argv=["--tp-size", 4, "--prefill-attention-backend", "trtllm_mla",
           "--decode-attention-backend", "cutedsl_mla"])
case("split", D3, "b300", "prefill-cutedsl_mla",
     argv=TP8 + ["--prefill-attention-backend", "cutedsl_mla",
                 "--decode-attention-backend", "trtllm_mla"])
case("split", D2, "h200", "decode-flashmla-only", argv=["--decode-attention-backend", "flashmla"])
case("split", D2, "h200", "prefill-flashmla-only", argv=["--prefill-attention-backend", "flashmla"])
case("split", D2, "b200", "fa4+flashinfer",
     args={"prefill_attention_backend": "fa4", "decode_attention_backend": "flashinfer"})
case("split", Q3, "mi300x", "aiter+triton",
     argv=["--prefill-attention-backend", "aiter", "--decode-attention-backend", "triton"])
case("split", D3, "mi355x", "triton+aiter",
     argv=TP8 + ["--prefill-attention-backend", "triton", "--decode-attention-backend", "aiter"])

# ------------------------------------------------------------------- page ---
for p in (16, 64, 128):
    case("page", D3, "h200", f"flashmla-page{p}",
         argv=TP8 + ["--attention-backend", "flashmla", "--page-size", p])
case("page", D2, "b200", "flashmla-page32", args={"attention_backend": "flashmla", "page_size": 32})
for p in (1, 16, 64, 128):
    case("page", D3, "b200", f"trtllm_mla-page{p}",
         argv=TP8 + ["--attention-backend", "trtllm_mla", "--page-size", p])
case("page", D3, "gb200", "trtllm_mla-page32",
     args={"attention_backend": "trtllm_mla", "page_size": 32, "tp_size": 4})
case("page", D2, "b300", "trtllm_mla-page48", argv=["--attention-backend", "trtllm_mla",
                                                     "--page-size", 48])
for p in (32, 64, 16, 128):
    case("page", D3, "b200", f"cutedsl_mla-page{p}",
         argv=TP8 + ["--attention-backend", "cutedsl_mla", "--page-size", p])
case("page", D2, "b300", "cutedsl_mla-nopage", args={"attention_backend": "cutedsl_mla"})
for p in (1, 8, 16, 64, 128, 96):
    case("page", L, "b200", f"trtllm_mha-page{p}",
         argv=["--attention-backend", "trtllm_mha", "--page-size", p])
case("page", L, "h100", "trtllm_mha-page16", argv=["--attention-backend", "trtllm_mha",
                                                    "--page-size", 16])
case("page", Q3, "rtx5090", "trtllm_mha-page128",
     args={"attention_backend": "trtllm_mha", "page_size": 128})
case("page", M, "b300", "trtllm_mha-page48", argv=["--attention-backend", "trtllm_mha",
                                                    "--page-size", 48])
for p in (1, 64, 256):
    case("page", L, "b200", f"fa4-page{p}", argv=["--attention-backend", "fa4", "--page-size", p])
case("page", L, "b300", "fa4-page32", argv=["--attention-backend", "fa4", "--page-size", 32])
case("page", Q25, "gb200", "fa4-nopage", args={"attention_backend": "fa4"})
case("page", L, "h100", "fa4-page64", argv=["--attention-backend", "fa4", "--page-size", 64])
case("page", L, "rtx5090", "fa4-page16", argv=["--attention-backend", "fa4", "--page-size", 16])
case("page", D3, "b200", "fa4-mla-page64", argv=TP8 + ["--attention-backend", "fa4",
                                                        "--page-size", 64])
case("page", L, "h100", "hpc_ops", argv=["--attention-backend", "hpc_ops"])
case("page", L, "h100", "hpc_ops-page16", args={"attention_backend": "hpc_ops", "page_size": 16})
case("page", Q3, "mi300x", "aiter-page16", argv=["--page-size", 16])
case("page", L, "b200", "default-page32", argv=["--page-size", 32])
case("page", L, "a100", "default-page64", argv=["--page-size", 64])
case("page", L, "b200", "trtllm_mha-page64-chunk1000",
     argv=["--attention-backend", "trtllm_mha", "--page-size", 64, "--chunked-prefill-size", 1000])

# ---------------------------------------------------------------- kvdtype ---
case("kvdtype", L, "a100", "fp8_e4m3", argv=["--kv-cache-dtype", "fp8_e4m3"])
case("kvdtype", L, "mi300x", "fp8_e4m3", argv=["--kv-cache-dtype", "fp8_e4m3"])
case("kvdtype", L, "h200", "fa3-fp8_e5m2",
     argv=["--attention-backend", "fa3", "--kv-cache-dtype", "fp8_e5m2"])
case("kvdtype", L, "h100", "split-fa3+fa3-fp8_e5m2",
     argv=["--prefill-attention-backend", "fa3", "--decode-attention-backend", "fa3",
           "--kv-cache-dtype", "fp8_e5m2"])
case("kvdtype", L, "h100", "split-fa3+flashinfer-fp8_e5m2",
     argv=["--prefill-attention-backend", "fa3", "--decode-attention-backend", "flashinfer",
           "--kv-cache-dtype", "fp8_e5m2"])
case("kvdtype", Q3, "h200", "decode-fa3-only-fp8_e5m2",
     args={"decode_attention_backend": "fa3", "kv_cache_dtype": "fp8_e5m2"})
case("kvdtype", D3, "h200", "fp8_e5m2", argv=TP8 + ["--kv-cache-dtype", "fp8_e5m2"])
case("kvdtype", L, "b200", "fp8_e5m2", argv=["--kv-cache-dtype", "fp8_e5m2"])
case("kvdtype", D3, "b200", "bf16", argv=TP8 + ["--kv-cache-dtype", "bf16"])
case("kvdtype", D3, "b200", "bfloat16", argv=TP8 + ["--kv-cache-dtype", "bfloat16"])
case("kvdtype", D3, "b300", "trtllm_mla-bfloat16",
     args={"tp_size": 8, "attention_backend": "trtllm_mla", "kv_cache_dtype": "bfloat16"})
case("kvdtype", D3, "gb200", "trtllm_mla-fp8_e5m2",
     argv=["--tp-size", 4, "--attention-backend", "trtllm_mla", "--kv-cache-dtype", "fp8_e5m2"])
case("kvdtype", D3, "b200", "cutedsl_mla-bfloat16",
     argv=TP8 + ["--attention-backend", "cutedsl_mla", "--kv-cache-dtype", "bfloat16"])
case("kvdtype", D3, "b200", "cutedsl_mla-fp8_e5m2",
     argv=TP8 + ["--attention-backend", "cutedsl_mla", "--kv-cache-dtype", "fp8_e5m2"])
case("kvdtype", D2, "h100", "bfloat16", argv=["--kv-cache-dtype", "bfloat16"])
for gpu in ("h100", "b200", "rtx5090", "mi355x"):
    case("kvdtype", L, gpu, "mxfp8", argv=["--kv-cache-dtype", "mxfp8"])
case("kvdtype", D3, "b200", "mxfp8", args={"tp_size": 8, "kv_cache_dtype": "mxfp8"})
case("kvdtype", L, "b200", "nvfp4", argv=["--kv-cache-dtype", "nvfp4"])
case("kvdtype", L, "b200", "nvfp4-flashinfer",
     argv=["--kv-cache-dtype", "nvfp4", "--attention-backend", "flashinfer"])
case("kvdtype", L, "b200", "nvfp4-triton",
     argv=["--kv-cache-dtype", "nvfp4", "--attention-backend", "triton"])
case("kvdtype", L, "rtx5090", "nvfp4", argv=["--kv-cache-dtype", "nvfp4"])
case("kvdtype", L, "h100", "nvfp4", argv=["--kv-cache-dtype", "nvfp4"])
case("kvdtype", L, "mi300x", "nvfp4", args={"kv_cache_dtype": "nvfp4"})
case("kvdtype", D3, "b200", "nvfp4", argv=TP8 + ["--kv-cache-dtype", "nvfp4"])
case("kvdtype", L, "b200", "nvfp4-dequant-fp8",
     argv=["--kv-cache-dtype", "nvfp4", "--prefill-kv-cache-dequant-dtype", "fp8_e4m3"])
case("kvdtype", L, "h100", "dequant-without-nvfp4",
     argv=["--prefill-kv-cache-dequant-dtype", "fp8_e4m3"])
case("kvdtype", L, "h100", "fp4_mx_block16", argv=["--kv-cache-dtype", "fp4_mx_block16"])
case("kvdtype", L, "a100", "fp4_mx_block16-triton",
     argv=["--kv-cache-dtype", "fp4_mx_block16", "--attention-backend", "triton"])
case("kvdtype", L, "b200", "fp4_mx_block16-fa4+triton",
     argv=["--kv-cache-dtype", "fp4_mx_block16", "--prefill-attention-backend", "fa4",
           "--decode-attention-backend", "triton"])
case("kvdtype", Q25, "rtx5090", "trtllm_mha-fp8_e4m3",
     argv=["--attention-backend", "trtllm_mha", "--kv-cache-dtype", "fp8_e4m3"])
case("kvdtype", Q25, "rtx5090", "decode-trtllm_mha-fp8_e4m3",
     argv=["--decode-attention-backend", "trtllm_mha", "--kv-cache-dtype", "fp8_e4m3"])
case("kvdtype", G, "b200", "fp8_e4m3", args={"kv_cache_dtype": "fp8_e4m3"})
case("kvdtype", Q3, "mi355x", "fp8_e4m3", argv=["--kv-cache-dtype", "fp8_e4m3"])
case("kvdtype", L, "gb200", "mxfp8-fa4", argv=["--kv-cache-dtype", "mxfp8", "--attention-backend",
                                               "fa4"])
case("kvdtype", L, "a100", "mxfp8", argv=["--kv-cache-dtype", "mxfp8"])
case("kvdtype", L, "b300", "nvfp4-eagle-topk1",
     argv=["--kv-cache-dtype", "nvfp4"] + spec("EAGLE", 3, 1, 4, EAGLE))
case("kvdtype", L, "b200", "nvfp4-fa4", argv=["--kv-cache-dtype", "nvfp4", "--attention-backend",
                                              "fa4"])

# ------------------------------------------------------------------- spec ---
for gpu in ("a100", "h200", "gb200", "b300", "rtx5090", "mi355x"):
    case("spec", L, gpu, "eagle-auto", argv=spec("EAGLE", draft=EAGLE))
case("spec", L, "h100", "eagle-auto-nodraft", argv=spec("EAGLE"))
case("spec", L, "b200", "eagle3-auto", args={"speculative_algorithm": "EAGLE3",
                                             "speculative_draft_model_path": EAGLE3})
case("spec", L, "h100", "eagle-auto-page16", argv=spec("EAGLE", draft=EAGLE) + ["--page-size", 16])
case("spec", L, "b200", "eagle-auto-trtllm_mha",
     argv=spec("EAGLE", draft=EAGLE) + ["--attention-backend", "trtllm_mha"])
case("spec", L, "b200", "eagle-auto-fa4", argv=spec("EAGLE", draft=EAGLE) +
     ["--attention-backend", "fa4"])
case("spec", L, "b300", "eagle-topk2-fa4", argv=spec("EAGLE", 3, 2, 6, EAGLE) +
     ["--attention-backend", "fa4"])
case("spec", L, "gb200", "eagle-topk1", argv=spec("EAGLE", 3, 1, 4, EAGLE))
case("spec", L, "b200", "eagle-topk1-drafttokens8", argv=spec("EAGLE", 3, 1, 8, EAGLE))
case("spec", L, "h100", "eagle-topk1-page16", argv=spec("EAGLE", 3, 1, 4, EAGLE) +
     ["--page-size", 16])
# EAGLE topk > 1 with page > 1, per base backend
for be, gpu in (("flashinfer", "b200"), ("fa3", "h100"), ("triton", "a100"), ("fa4", "h100"),
                ("trtllm_mha", "h200"), ("torch_native", "a100"), ("aiter", "mi300x"),
                ("flashinfer", "rtx5090")):
    case("spec", L, gpu, f"eagle-topk4-page16-{be}", argv=spec("EAGLE", 5, 4, 8, EAGLE) +
         ["--attention-backend", be, "--page-size", 16])
case("spec", L, "b200", "eagle-topk4-split-flashinfer+fa3-page16",
     argv=spec("EAGLE", 5, 4, 8, EAGLE) + ["--attention-backend", "triton",
                                           "--prefill-attention-backend", "flashinfer",
                                           "--decode-attention-backend", "fa3", "--page-size", 16])
case("spec", L, "b200", "eagle-steps-without-topk", argv=spec("EAGLE", 3, None, None, EAGLE))
case("spec", L, "h100", "eagle-auto-mrr16", argv=spec("EAGLE", draft=EAGLE) +
     ["--max-running-requests", 16])
case("spec", L, "b200", "eagle-auto-mrr256", args={"speculative_algorithm": "EAGLE",
                                                   "speculative_draft_model_path": EAGLE,
                                                   "max_running_requests": 256})
case("spec", Q3, "h100", "eagle3-auto", argv=spec("EAGLE3", draft=EAGLE3))
case("spec", M, "b200", "eagle-auto", argv=spec("EAGLE", draft=EAGLE))
case("spec", D3, "b200", "nextn-auto", argv=TP8 + spec("NEXTN"))
case("spec", D3, "gb200", "eagle-auto", argv=["--tp-size", 4] + spec("EAGLE"))
case("spec", D3, "h200", "eagle-topk2", argv=TP8 + spec("EAGLE", 3, 2, 4))
case("spec", D3, "h200", "eagle-topk2-flashmla", argv=TP8 + spec("EAGLE", 3, 2, 4) +
     ["--attention-backend", "flashmla"])
case("spec", D3, "b200", "eagle-topk2-trtllm_mla", argv=TP8 + spec("EAGLE", 3, 2, 4))
case("spec", D3, "mi300x", "nextn-auto", args={"tp_size": 8, "speculative_algorithm": "NEXTN"})
case("spec", D2, "h100", "nextn-auto", argv=spec("NEXTN"))
case("spec", L, "h100", "standalone", argv=spec("STANDALONE", draft="models/llama-3.1-8b"))
case("spec", L, "b200", "standalone-topk2",
     argv=spec("STANDALONE", 3, 2, 6, "models/llama-3.1-8b"))
case("spec", L, "h100", "ngram", argv=spec("NGRAM"))
case("spec", L, "b200", "ngram", argv=spec("NGRAM"))
case("spec", L, "h100", "ngram-fa3-page16", argv=spec("NGRAM") + ["--attention-backend", "fa3",
                                                                  "--page-size", 16])
case("spec", L, "a100", "ngram-flashinfer-page16", argv=spec("NGRAM") + ["--page-size", 16])
case("spec", Q3, "mi300x", "ngram-breadth1",
     argv=spec("NGRAM") + ["--speculative-ngram-max-bfs-breadth", 1])
case("spec", G, "b200", "eagle3-topk1-nodraft", argv=spec("EAGLE3", 3, 1, 4))
case("spec", L, "b200", "eagle-adaptive",
     argv=spec("EAGLE", draft=EAGLE) + ["--speculative-adaptive"])
case("spec", L, "h100", "eagle-adaptive-topk4",
     argv=spec("EAGLE", 5, 4, 8, EAGLE) + ["--speculative-adaptive"])
case("spec", L, "b200", "frozen_kv_mtp", argv=spec("FROZEN_KV_MTP", draft=EAGLE3))
case("spec", L, "mi355x", "ngram", argv=spec("NGRAM"))
case("spec", L, "mi355x", "eagle-topk4-page16-aiter", argv=spec("EAGLE", 5, 4, 8, EAGLE) +
     ["--page-size", 16])
case("spec", D3, "mi355x", "eagle-topk1", argv=TP8 + spec("EAGLE", 3, 1, 4))
case("spec", L, "gb200", "eagle-topk1-trtllm_mha-page128",
     argv=spec("EAGLE", 3, 1, 4, EAGLE) + ["--attention-backend", "trtllm_mha", "--page-size", 128])
case("spec", L, "b200", "eagle-topk1-draft-backend-fa4",
     argv=spec("EAGLE", 3, 1, 4, EAGLE) + ["--speculative-draft-attention-backend", "fa4"])
case("spec", L, "h100", "eagle-topk1-draft-backend-trtllm_mha",
     argv=spec("EAGLE", 3, 1, 4, EAGLE) + ["--speculative-draft-attention-backend", "trtllm_mha"])
case("spec", L, "b200", "eagle-topk4-fa4-prefill-full", argv=spec("EAGLE", draft=EAGLE) +
     ["--attention-backend", "fa4", "--speculative-eagle-topk", 4, "--speculative-num-steps", 5,
      "--speculative-num-draft-tokens", 8, "--cuda-graph-backend-prefill", "full"])

# -------------------------------------------------------------- cudagraph ---
case("cudagraph", L, "h100", "disable-prefill", argv=["--disable-prefill-cuda-graph"])
case("cudagraph", L, "b200", "disable-decode", argv=["--disable-decode-cuda-graph"])
case("cudagraph", L, "b200", "disable-both-phases",
     argv=["--disable-prefill-cuda-graph", "--disable-decode-cuda-graph"])
case("cudagraph", L, "h100", "disable-all+prefill-breakable",
     argv=["--disable-cuda-graph", "--cuda-graph-backend-prefill", "breakable"])
case("cudagraph", L, "b200", "disable-all+fa4", argv=["--disable-cuda-graph",
                                                      "--attention-backend", "fa4"])
case("cudagraph", D3, "b200", "disable-all", argv=TP8 + ["--disable-cuda-graph"])
case("cudagraph", Q3, "h200", "disable-prefill+backend-full",
     argv=["--disable-prefill-cuda-graph", "--cuda-graph-backend-prefill", "full"])
case("cudagraph", L, "b200", "json-prefill-full-fa4",
     argv=["--attention-backend", "fa4", "--cuda-graph-config", '{"prefill": {"backend": "full"}}'])
case("cudagraph", L, "b200", "json-over-flag-decode",
     argv=["--cuda-graph-backend-decode", "disabled",
           "--cuda-graph-config", '{"decode": {"backend": "full", "max_bs": 64}}'])
case("cudagraph", L, "h100", "json-decode-bs",
     argv=["--cuda-graph-config", '{"decode": {"bs": [1, 2, 4, 8]}}'])
case("cudagraph", L, "h100", "json-prefill-max_bs-bs",
     argv=["--cuda-graph-config", '{"prefill": {"max_bs": 1024, "bs": [256, 512]}}'])
case("cudagraph", L, "h100", "json-tc_piecewise",
     argv=["--cuda-graph-config", '{"prefill": {"backend": "tc_piecewise"}}'])
case("cudagraph", L, "h100", "json-unknown-key",
     argv=["--cuda-graph-config", '{"decode": {"max_context_size": 4096}}'])
case("cudagraph", L, "h100", "flag-tc_piecewise",
     argv=["--cuda-graph-backend-prefill", "tc_piecewise"])
case("cudagraph", Q25, "h200", "max-bs-decode128", argv=["--cuda-graph-max-bs-decode", 128])
case("cudagraph", Q25, "b200", "max-bs-prefill2048", argv=["--cuda-graph-max-bs-prefill", 2048])
case("cudagraph", Q25, "a100", "bs-decode-list", argv=["--cuda-graph-bs-decode", 1, 2, 4, 16])
case("cudagraph", Q25, "h100", "bs-prefill-list", argv=["--cuda-graph-bs-prefill", 512, 1024])
case("cudagraph", Q25, "h100", "bs-decode+max-bs",
     argv=["--cuda-graph-bs-decode", 1, 2, 4, 16, "--cuda-graph-max-bs-decode", 300])
case("cudagraph", L, "b200", "max-bs-decode-vs-mrr",
     argv=["--cuda-graph-max-bs-decode", 300, "--max-running-requests", 100])
case("cudagraph", L, "b200", "mrr100", argv=["--max-running-requests", 100])
# full prefill graph with each backend
for be, gpu in (("flashinfer", "b200"), ("trtllm_mha", "b200"), ("triton", "b200"),
                ("fa3", "h100"), ("fa4", "gb200"), ("fa4", "b300"), ("fa4", "h100"),
                ("fa4", "rtx5090"), ("flashinfer", "a100"), ("aiter", "mi300x")):
    case("cudagraph", L, gpu, f"prefill-full-{be}",
         argv=["--attention-backend", be, "--cuda-graph-backend-prefill", "full"])
case("cudagraph", L, "gb200", "prefill-full-prefill-fa4-only",
     argv=["--prefill-attention-backend", "fa4", "--cuda-graph-backend-prefill", "full"])
case("cudagraph", L, "b300", "prefill-full-decode-fa4-only",
     argv=["--decode-attention-backend", "fa4", "--cuda-graph-backend-prefill", "full"])
case("cudagraph", Q3, "b200", "prefill-full-fa4-page64",
     args={"attention_backend": "fa4", "cuda_graph_backend_prefill": "full", "page_size": 64})
case("cudagraph", D3, "b200", "prefill-full-default", argv=TP8 + ["--cuda-graph-backend-prefill",
                                                                   "full"])
case("cudagraph", D3, "b200", "disable-prefill", argv=TP8 + ["--disable-prefill-cuda-graph"])
case("cudagraph", D3, "b200", "json-prefill-breakable",
     argv=TP8 + ["--cuda-graph-config", '{"prefill": {"backend": "breakable"}}'])
case("cudagraph", D3, "b200", "fa4-prefill-full", argv=TP8 + ["--attention-backend", "fa4",
                                                               "--cuda-graph-backend-prefill",
                                                               "full"])
case("cudagraph", D3, "h200", "flashmla-prefill-full",
     argv=TP8 + ["--attention-backend", "flashmla", "--cuda-graph-backend-prefill", "full"])
case("cudagraph", D3, "b300", "cutedsl_mla-prefill-full",
     argv=TP8 + ["--attention-backend", "cutedsl_mla", "--cuda-graph-backend-prefill", "full"])
case("cudagraph", L, "mi355x", "disable-all", argv=["--disable-cuda-graph"])
case("cudagraph", Q3, "mi355x", "prefill-breakable-max-bs4096",
     argv=["--cuda-graph-backend-prefill", "breakable", "--cuda-graph-max-bs-prefill", 4096])
case("cudagraph", L, "h100", "torch_native-prefill-full",
     argv=["--attention-backend", "torch_native", "--cuda-graph-backend-prefill", "full"])
case("cudagraph", L, "b200", "flex_attention", argv=["--attention-backend", "flex_attention"])
case("cudagraph", L, "mi300x", "json-prefill-breakable",
     argv=["--cuda-graph-config", '{"prefill": {"backend": "breakable"}}'])
case("cudagraph", L, "h100", "decode-breakable-eagle", argv=spec("EAGLE", 3, 1, 4, EAGLE) +
     ["--cuda-graph-backend-decode", "breakable"])
case("cudagraph", L, "b200", "args-cuda_graph_config-dict",
     args={"attention_backend": "fa4",
           "cuda_graph_config": {"prefill": {"backend": "full"}, "decode": {"max_bs": 32}}})
case("cudagraph", Q3M, "h200", "pp2", argv=["--pp-size", 2])
case("cudagraph", Q3M, "h200", "pp2-prefill-breakable",
     argv=["--pp-size", 2, "--cuda-graph-backend-prefill", "breakable"])
case("cudagraph", L, "b200", "disable-padding-eagle", argv=spec("EAGLE", 3, 1, 4, EAGLE) +
     ["--disable-cuda-graph-padding", "--cuda-graph-max-bs-decode", 24])

# --------------------------------------------------------------- parallel ---
for tp in (2, 4, 8):
    case("parallel", L, "h200", f"tp{tp}", argv=["--tp-size", tp])
case("parallel", Q3, "rtx5090", "tp4", args={"tp_size": 4})
case("parallel", Q3, "rtx5090", "tp2", argv=["--tp-size", 2])
case("parallel", Q3M, "b200", "tp4", argv=["--tp-size", 4])
case("parallel", L, "h100", "tp2-dp2-dpattn",
     argv=["--tp-size", 2, "--dp-size", 2, "--enable-dp-attention"])
case("parallel", L, "b200", "dp2-no-dpattn", argv=["--dp-size", 2])
case("parallel", D3, "h200", "tp8-dp8-dpattn",
     argv=TP8 + ["--dp-size", 8, "--enable-dp-attention"])
case("parallel", D3, "b200", "tp8-dp8-dpattn",
     argv=TP8 + ["--dp-size", 8, "--enable-dp-attention"])
case("parallel", D3, "b200", "tp8-dp4-dpattn-bf16",
     args={"tp_size": 8, "dp_size": 4, "enable_dp_attention": True, "kv_cache_dtype": "bf16"})
case("parallel", D3, "h200", "tp8-attn-dp-size4", argv=TP8 + ["--attn-dp-size", 4])
case("parallel", L, "b200", "tp3-dp3-dpattn-page64",
     argv=["--tp-size", 3, "--dp-size", 3, "--enable-dp-attention"])
case("parallel", D3, "h200", "tp8-dp8-dpattn-prefill-max-bs",
     argv=TP8 + ["--dp-size", 8, "--enable-dp-attention", "--cuda-graph-max-bs-prefill", 4096])
case("parallel", Q3M, "mi300x", "tp4-dp2-dpattn",
     argv=["--tp-size", 4, "--dp-size", 2, "--enable-dp-attention"])
case("parallel", L, "h100", "dpattn-standalone",
     argv=["--tp-size", 2, "--dp-size", 2, "--enable-dp-attention"] +
     spec("STANDALONE", draft="models/llama-3.1-8b"))
case("parallel", L, "h100", "dpattn-ngram",
     argv=["--tp-size", 2, "--dp-size", 2, "--enable-dp-attention"] + spec("NGRAM"))
case("parallel", L, "rtx5090", "tp8-on-1gpu", argv=TP8)
case("parallel", D3, "gb200", "tp4-dp4-dpattn", argv=["--tp-size", 4, "--dp-size", 4,
                                                      "--enable-dp-attention"])
case("parallel", D3, "mi355x", "tp8-dp8-dpattn", argv=TP8 + ["--dp-size", 8,
                                                             "--enable-dp-attention"])
case("parallel", Q3M, "a100", "tp2-dp2-dpattn-chunk6000",
     argv=["--tp-size", 2, "--dp-size", 2, "--enable-dp-attention", "--chunked-prefill-size", 6000])
case("parallel", G, "gb200", "tp8-on-4gpus", args={"tp_size": 8})

# ----------------------------------------------------------------- memory ---
case("memory", L, "mi300x", "aiter-mem0.8", argv=["--mem-fraction-static", 0.8])
case("memory", M, "mi355x", "aiter-mem0.8-ctx32k", argv=["--mem-fraction-static", 0.8])
case("memory", L, "mi300x", "aiter-honor-env", argv=["--mem-fraction-static", 0.8])
CASES[-1]["env"] = {"SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION": "1"}
case("memory", L, "mi300x", "triton-mem0.8", argv=["--attention-backend", "triton",
                                                  "--mem-fraction-static", 0.8])
case("memory", L, "h100", "chunk-minus1", argv=["--chunked-prefill-size", -1])
case("memory", Q3, "mi355x", "chunk-minus1", argv=["--chunked-prefill-size", -1])
case("memory", D3, "mi355x", "aiter-mla-mem0.9", argv=TP8 + ["--mem-fraction-static", 0.9])
case("memory", G, "mi355x", "aiter-tp2-mem0.88", argv=["--tp-size", 2,
                                                       "--mem-fraction-static", 0.88])
case("memory", D3, "b200", "chunk-minus1", args={"tp_size": 8, "chunked_prefill_size": -1})
case("memory", L, "b200", "chunk2048", argv=["--chunked-prefill-size", 2048])
case("memory", D3, "h200", "chunk32768-mla", argv=TP8 + ["--chunked-prefill-size", 32768])
case("memory", Q25, "b200", "chunk32768-mha", argv=["--chunked-prefill-size", 32768])
case("memory", L, "h100", "mrr32", argv=["--max-running-requests", 32])
case("memory", L, "h100", "mrr1000", argv=["--max-running-requests", 1000])
case("memory", L, "h200", "max-total-tokens4096", argv=["--max-total-tokens", 4096])
case("memory", Q25, "b300", "max-total-tokens100000", args={"max_total_tokens": 100000})
case("memory", Q3, "a100", "mem0.5-chunk4096-mrr64",
     argv=["--mem-fraction-static", 0.5, "--chunked-prefill-size", 4096,
           "--max-running-requests", 64])
case("memory", L, "h100", "max-prefill-tokens-chunk-minus1",
     argv=["--chunked-prefill-size", -1, "--max-prefill-tokens", 32768])
for mib in (16384, 20480, 24576, 35840, 40960, 61440, 92160, 163840):
    case("memory", L, "h100", f"mem{mib}", argv=[], po={"mem_mib": mib})
case("memory", L, "h100", "mem24576-tp4", argv=["--tp-size", 4], po={"mem_mib": 24576})
case("memory", L, "h100", "mem40960-tp4", args={"tp_size": 4}, po={"mem_mib": 40960})
case("memory", L, "b200", "mem40960-tp2", argv=["--tp-size", 2], po={"mem_mib": 40960})
case("memory", D3, "mi300x", "mem65536-tp8", argv=TP8, po={"mem_mib": 65536})

# --------------------------------------------------------------- platform ---
case("platform", L, "h100", "cuda12.2", argv=[], po={"cuda": "12.2"})
case("platform", D3, "h100", "cuda12.2-tp8", argv=TP8, po={"cuda": "12.2"})
case("platform", L, "h100", "cuda12.2-fa3", argv=["--attention-backend", "fa3"],
     po={"cuda": "12.2"})
case("platform", L, "h100", "cuda12.2-trtllm_mha", argv=["--attention-backend", "trtllm_mha"],
     po={"cuda": "12.2"})
case("platform", L, "h100", "cuda12.3", args={}, po={"cuda": "12.3"})
case("platform", L, "b200", "cuda12.4", argv=[], po={"cuda": "12.4"})
case("platform", L, "b200", "cuda12.4-fa4", argv=["--attention-backend", "fa4"],
     po={"cuda": "12.4"})
case("platform", L, "b200", "cuda12.8", argv=[], po={"cuda": "12.8"})
case("platform", D3, "b200", "cuda12.4-tp8", argv=TP8, po={"cuda": "12.4"})
case("platform", L, "rtx5090", "cuda12.4-trtllm_mha", argv=["--attention-backend", "trtllm_mha"],
     po={"cuda": "12.4"})
case("platform", L, "b300", "gpus2-tp4", argv=["--tp-size", 4], po={"gpus": 2})
case("platform", L, "h200", "mem-large-300000", args={}, po={"mem_mib": 300000})
case("platform", G, "h100", "cuda12.2", argv=[], po={"cuda": "12.2"})

# ------------------------------------------------------------- validation ---
# Validations and refusals: many of these raise in SGLang (the error is the answer);
# some pass resolution although the combination fails later (backend creation).
case("validation", L, "h100", "argv-unknown-kv-dtype", argv=["--kv-cache-dtype", "fp8"])
case("validation", L, "h100", "argv-unknown-spec-alg", argv=spec("MTP"))
case("validation", D3, "b200", "args-cutlass_mla-page", args={"tp_size": 8,
                                                          "attention_backend": "cutlass_mla",
                                                          "page_size": 128})
case("validation", G, "b200", "gpt-oss-flashinfer", argv=["--attention-backend", "flashinfer"])
case("validation", G, "h100", "gpt-oss-decode-flashinfer",
     argv=["--decode-attention-backend", "flashinfer"])
case("validation", L, "b200", "deterministic", argv=["--enable-deterministic-inference"])
case("validation", L, "h100", "deterministic", argv=["--enable-deterministic-inference"])
case("validation", L, "mi300x", "deterministic", argv=["--enable-deterministic-inference"])
case("validation", D3, "b200", "deterministic", argv=TP8 + ["--enable-deterministic-inference"])
case("validation", D3, "h200", "deterministic", argv=TP8 + ["--enable-deterministic-inference"])
case("validation", L, "b200", "deterministic-trtllm_mha",
     argv=["--enable-deterministic-inference", "--attention-backend", "trtllm_mha"])
case("validation", D3, "h200", "deterministic-fa4", args={"tp_size": 8,
                                                      "enable_deterministic_inference": True,
                                                      "attention_backend": "fa4"})
case("validation", L, "h100", "mis-fa3", argv=["--enable-mis", "--attention-backend", "fa3"])
case("validation", L, "a100", "mis-default", argv=["--enable-mis"])
case("validation", L, "b200", "trtllm_mla-on-mha", argv=["--attention-backend", "trtllm_mla"])
case("validation", D3, "h200", "trtllm_mha-on-mla",
     argv=TP8 + ["--attention-backend", "trtllm_mha"])
case("validation", D3, "h100", "cutedsl_mla-hopper", argv=TP8 + ["--attention-backend",
                                                              "cutedsl_mla"])
case("validation", L, "mi300x", "trtllm_mha-rocm", argv=["--attention-backend", "trtllm_mha"])
case("validation", L, "b200", "tp0", argv=["--tp-size", 0])
case("validation", L, "h100", "flex-eagle", argv=spec("EAGLE", 3, 1, 4, EAGLE) +
     ["--attention-backend", "flex_attention"])
case("validation", L, "b200", "eagle-auto-page64", argv=spec("EAGLE", draft=EAGLE) +
     ["--page-size", 64])
case("validation", L, "a100", "uno", argv=spec("UNO", draft=EAGLE) +
     ["--speculative-num-draft-tokens", 4])
case("validation", L, "h100", "dflash-nodraft", argv=spec("DFLASH"))
case("validation", L, "h100", "uno-no-lora",
     argv=spec("UNO") + ["--speculative-num-draft-tokens", 4])
case("validation", L, "mi355x", "deterministic", argv=["--enable-deterministic-inference"])
case("validation", D3, "mi355x", "deterministic-tp8", args={"tp_size": 8,
                                                           "enable_deterministic_inference": True})
case("validation", L, "gb200", "mis-flashinfer", argv=["--enable-mis", "--attention-backend",
                                                       "flashinfer"])
case("validation", L, "a100", "fa3-on-sm80", argv=["--attention-backend", "fa3"])
case("validation", D2, "a100", "fa3-mla-on-sm80", argv=["--attention-backend", "fa3"])
case("validation", L, "h100", "prefill-only-no-kv", argv=["--prefill-only-disable-kv-cache"])


FIELD_TABLE = os.path.join(HERE, "..", "..", "..", "src", "launchplan", "input", "data",
                           "sglang-0.5.23-fields.json")


def argv_to_args(argv: list) -> dict:
    """Keyword form of a (valid) command line, using the shipped SGLang field table
    (flag -> field name, parser, nargs).  Only for flags whose values pass SGLang's
    choice checks: the keyword path skips them."""
    table = json.load(open(FIELD_TABLE))["fields"]
    by_flag = {o: f for f in table for o in f["flags"]}
    out, i = {}, 0
    while i < len(argv):
        f = by_flag[argv[i]]
        i += 1
        if f["nargs"] == 0:
            out[f["name"]] = True
            continue
        if f["nargs"] == "+":
            vals = []
            while i < len(argv) and not argv[i].startswith("--"):
                vals.append(argv[i])
                i += 1
        else:
            vals = [argv[i]]
            i += 1
        conv = {"int": int, "human_readable_int": int, "float": float,
                "parse_cuda_graph_config_arg": json.loads, "loads": json.loads}.get(
                    f["parse"], str)
        vals = [conv(v) for v in vals]
        out[f["name"]] = vals if f["nargs"] == "+" else vals[0]
    return out


def rebalance(cases: list, every: int = 3) -> None:
    """Turn every `every`-th eligible argv case into keyword form, so that about a third
    of the cases take SGLang's Engine(**kwargs) path.  Validation cases and cases about
    the command-line parser itself (JSON config, tc_piecewise) stay on argv."""
    n = 0
    for c in cases:
        if "argv" not in c or c["name"].split("/")[1] == "validation" or not c["argv"] \
                or "json-" in c["name"] or "tc_piecewise" in c["argv"]:
            continue
        n += 1
        if n % every == 0:
            c["args"] = argv_to_args(c.pop("argv"))
            c["fields"] = c.pop("fields")  # keep key order: ..., args, fields


def check(cases: list) -> None:
    names = [c["name"] for c in cases]
    dup = [n for n, k in collections.Counter(names).items() if k > 1]
    assert not dup, f"duplicate names: {dup}"
    pub = json.load(open(os.path.join(DATA, "public-cases.json")))
    pnames = {c["name"] for c in pub}
    assert not pnames & set(names)
    def key(c):  # argv and args spellings of the same question compare equal
        a = c.get("args")
        if a is None:
            a = argv_to_args(c["argv"])
        return json.dumps([c["platform"], c["model"], a, c.get("platform_overrides"),
                           c.get("env")], sort_keys=True)
    pkeys = {key(c) for c in pub}
    same = [c["name"] for c in cases if key(c) in pkeys]
    assert not same, f"identical to a public case: {same}"
    print(f"{len(cases)} cases: {sum('argv' in c for c in cases)} argv, "
          f"{sum('args' in c for c in cases)} args", file=sys.stderr)
    print("per platform:", dict(collections.Counter(c["platform"] for c in cases)),
          file=sys.stderr)
    print("per topic:", dict(collections.Counter(c["name"].split("/")[1] for c in cases)),
          file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="validate and count only")
    ap.add_argument("--out", default=os.path.join(DATA, "own-cases.json"))
    a = ap.parse_args()
    rebalance(CASES)
    check(CASES)
    if not a.check:
        with open(a.out, "w") as f:
            json.dump(CASES, f, indent=1)
            f.write("\n")
        print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
