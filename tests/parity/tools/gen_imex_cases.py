"""Generate ``tests/parity/data/imex-cases.json``: SGLang's own choice of multimodal feature
transport across nodes, on hosts with and without an IMEX channel.

    PYTHONPATH=src:. python tests/parity/tools/gen_imex_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py imex --jobs 1

On a GB200 or GB300 (an MNNVL fabric, told by device name; the catalog has the GB200)
SGLang picks CUDA VMM for a multimodal model served across nodes when the host mounts an IMEX
channel (``/dev/nvidia-caps-imex-channels/channel0``) and the model's class declares the
transport; no other suite's host has the channel. ``targets_oracle.py`` mounts it for a case whose
environment sets ``LAUNCHPLAN_ORACLE_IMEX_CHANNEL``, and ``oracle_cases`` hands launchplan the
same host (``Target.imex_channel``, as ``--host-imex-channel`` states it). Each launch runs
with and without the channel.
"""

from __future__ import annotations

import json
from pathlib import Path

PARITY = Path(__file__).resolve().parents[1]
OUT = PARITY / "data" / "imex-cases.json"
IMEX = {"LAUNCHPLAN_ORACLE_IMEX_CHANNEL": "1"}

QWEN3_VL_MOE = "shipped/Qwen--Qwen3-VL-30B-A3B-Instruct"
QWEN3_VL = "shipped/Qwen--Qwen3-VL-2B-Instruct"
QWEN35 = "shipped/Qwen--Qwen3.5-35B-A3B"
KIMI = "shipped/moonshotai--Kimi-K2.5"
QWEN25_VL = "models/qwen2.5-vl-7b"
LLAMA = "models/llama-3.1-8b"
TWO_NODES = ["--tp-size", "8", "--nnodes", "2", "--node-rank", "0",
             "--dist-init-addr", "10.0.0.1:5000"]

#: (label, platform, model, argv)
LAUNCHES = (
    ("qwen3-vl-moe", "gb200", QWEN3_VL_MOE, TWO_NODES),
    ("qwen3-vl", "gb200", QWEN3_VL, TWO_NODES),
    ("qwen3.5", "gb200", QWEN35, TWO_NODES),
    ("kimi-k2.5", "gb200", KIMI, ["--tp-size", "8", "--nnodes", "2", "--node-rank", "1",
                                  "--dist-init-addr", "10.0.0.1:5000"]),
    ("qwen3-vl-moe-one-node", "gb200", QWEN3_VL_MOE, ["--tp-size", "4"]),
    ("qwen3-vl-moe-h100", "h100", QWEN3_VL_MOE, TWO_NODES),
    ("qwen3-vl-moe-b200", "b200", QWEN3_VL_MOE, TWO_NODES),
    ("qwen2.5-vl", "gb200", QWEN25_VL, TWO_NODES),  # its class does not declare the transport
    ("llama", "gb200", LLAMA, TWO_NODES),  # not multimodal
    ("qwen3-vl-moe-pp", "gb200", QWEN3_VL_MOE, [*TWO_NODES[:2], "--pp-size", "2",
                                                *TWO_NODES[2:]]),
    ("qwen3-vl-moe-prefill", "gb200", QWEN3_VL_MOE,
     [*TWO_NODES, "--disaggregation-mode", "prefill"]),
    ("qwen3-vl-moe-language-only", "gb200", QWEN3_VL_MOE,
     [*TWO_NODES, "--language-only", "--encoder-urls", "http://10.0.0.2:30001"]),
    ("qwen3-vl-moe-text-only", "gb200", QWEN3_VL_MOE, [*TWO_NODES, "--language-model-only"]),
    ("qwen3-vl-moe-given-cpu", "gb200", QWEN3_VL_MOE,
     [*TWO_NODES, "--mm-feature-transport", "cpu"]),
    ("qwen3-vl-moe-given-vmm", "gb200", QWEN3_VL_MOE,
     [*TWO_NODES, "--mm-feature-transport", "cuda_vmm"]),
    ("qwen3-vl-moe-given-ipc", "gb200", QWEN3_VL_MOE,
     [*TWO_NODES, "--mm-feature-transport", "cuda_ipc"]),
    ("qwen3-vl-moe-transformers", "gb200", QWEN3_VL_MOE,
     [*TWO_NODES, "--model-impl", "transformers"]),
)
LEGACY = ("qwen3-vl-moe-legacy-env", "gb200", QWEN3_VL_MOE, TWO_NODES,
          {"SGLANG_USE_CUDA_IPC_TRANSPORT": "0"})


def main() -> None:
    fields = json.loads(
        (PARITY / "data" / "hub-cases.json").read_text(encoding="utf-8"))[0]["fields"]
    fields = ["mm_feature_transport", *(f for f in fields if f != "mm_feature_transport")]
    cases = []
    for label, platform, model, argv, *env in [*LAUNCHES, LEGACY]:
        base = env[0] if env else {}
        for host, extra in (("imex", IMEX), ("no-imex", {})):
            cases.append({"name": f"imex/{label}/{host}", "platform": platform, "model": model,
                          "argv": list(argv), "fields": fields, "env": {**base, **extra}})
    OUT.write_text(json.dumps(cases, indent=1) + "\n", encoding="utf-8")
    print(f"{len(cases)} cases in {OUT}")


if __name__ == "__main__":
    main()
