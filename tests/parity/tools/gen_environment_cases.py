"""Generate ``tests/parity/data/environment-cases.json``: launches whose plan turns on an SGLang
environment variable, each given in the spellings people write (``1``, ``True``, ``y``, ``on``,
`` 1``, ``abc``, a float where an integer is due).

    PYTHONPATH=src:. python tests/parity/tools/gen_environment_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py environment --jobs 1

SGLang parses a declared variable itself (``srt/environ.py``): booleans know true/1/yes/y
and false/0/no/n in any case, integers and floats what Python parses, and anything else is
replaced by the variable's default with a warning. The suite holds launchplan's one table of
those variables (``launchplan.facts.environment``) to what SGLang did, variable by variable.
"""

from __future__ import annotations

import json
from pathlib import Path

PARITY = Path(__file__).resolve().parents[1]
OUT = PARITY / "data" / "environment-cases.json"

BOOLEAN_SPELLINGS = ("1", "True", "y", "YES", "on", " 1", "0", "n", "off", "")

#: (label, platform, model, argv, variable, spellings)
LAUNCHES = (
    ("qwen3-vl-cache", "h100", "shipped/Qwen--Qwen3-VL-32B-Instruct", [],
     "SGLANG_VLM_CACHE_SIZE_MB", ("0", "64", " 8", "abc", "12.5", "")),
    ("dsa-aiter", "mi300x", "parity-models/deepseek-v3.2", ["--tp-size", "8"],
     "SGLANG_USE_AITER", BOOLEAN_SPELLINGS),
    ("dsv4-fp4-dequant", "b200", "parity-models/deepseek-v4-flash", ["--tp-size", "4"],
     "SGLANG_DSV4_FP4_DEQUANT", ("1", "y", "on", "0", "")),
    ("legacy-cuda-ipc", "h100", "models/qwen2.5-vl-7b", [],
     "SGLANG_USE_CUDA_IPC_TRANSPORT", BOOLEAN_SPELLINGS),
    ("longer-context", "h100", "models/llama-3.1-8b", ["--context-length", "262144"],
     "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", BOOLEAN_SPELLINGS),
    ("grpc-port", "h100", "models/llama-3.1-8b", [],
     "SGLANG_GRPC_PORT", ("50051", " 50052", "abc", "0", "5e4")),
    ("grpc-threads", "h100", "models/llama-3.1-8b", ["--grpc-port", "50051"],
     "SGLANG_GRPC_WORKER_THREADS", ("8", "0", "many", "2.0")),
    ("dsv4-fp4-experts", "b200", "parity-models/deepseek-v4-flash", ["--tp-size", "4"],
     "SGLANG_DSV4_FP4_EXPERTS", ("0", "False", "no", "off", "1")),
    ("staging-buffer", "h100", "models/llama-3.1-8b",
     ["--disaggregation-mode", "prefill", "--disaggregation-transfer-backend", "mooncake",
      "--enable-kv-cache-sharding", "--attention-backend", "fa3", "--tp-size", "2",
      "--enable-prefill-cp", "--attn-cp-size", "2", "--cp-strategy", "interleave",
      "--page-size", "64"],
     "SGLANG_DISAGG_STAGING_BUFFER", ("1", "y", "on", "TRUE")),
    ("ci-watchdog", "h100", "models/llama-3.1-8b", [],
     "SGLANG_IS_IN_CI", BOOLEAN_SPELLINGS),
    ("ragged-verify", "h200", "models/deepseek-v3",
     ["--tp-size", "8", "--speculative-algorithm", "EAGLE"],
     "SGLANG_RAGGED_VERIFY_MODE", ("static", "cap-accept", "compact", "Static", " static",
                                   "dynamic", "")),
)


def main() -> None:
    fields = json.loads(
        (PARITY / "data" / "hub-cases.json").read_text(encoding="utf-8"))[0]["fields"]
    extra = ["context_length", "grpc_port", "grpc_worker_threads", "soft_watchdog_timeout"]
    cases = []
    for label, platform, model, argv, name, spellings in LAUNCHES:
        for i, spelling in enumerate(spellings):
            cases.append({"name": f"environment/{label}/{i}", "platform": platform,
                          "model": model, "argv": argv,
                          "fields": fields + [f for f in extra if f not in fields],
                          "env": {name: spelling}})
    OUT.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n",
                   encoding="utf-8")
    print(f"{len(cases)} cases -> {OUT}")


if __name__ == "__main__":
    main()
