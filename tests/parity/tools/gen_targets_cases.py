"""Generate ``tests/parity/data/targets-cases.json``: SGLang's answers on the further GPU targets.

The catalog's targets beyond the oracle's nine (``src/launchplan/facts/data/targets.json``) are
simulated by ``targets_oracle.py``. These cases are the evidence that the defaults SGLang derives
from a GPU's memory (``mem_fraction_static``, ``chunked_prefill_size``, the decode graph's
``max_bs``, ``max_running_requests``) and from its capability (the attention backend, FP8 KV,
speculative decoding) come out right on 24, 48, 80, 96, 120 and 141 GB cards: every target's
defaults, then tensor parallelism (tp >= 4 moves the graph size), a backend, EAGLE / MTP and
FP8 KV on the capability classes the oracle's own nine do not cover (SM86, SM89, SM121), and
the decode context-parallel collective, which SGLang picks partly by device name (GB200).

Record with ``/root/sglang-oracle/bin/python tests/parity/tools/record_suite.py targets --jobs 1``
(``record_suite.py`` runs this suite through ``targets_oracle.py``).
Usage: ``python tests/parity/tools/gen_targets_cases.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from oracle_common import PLAN_FIELDS

OUT = Path(__file__).resolve().parents[1] / "data" / "targets-cases.json"
FIELDS = PLAN_FIELDS + ["disable_radix_cache"]
LLAMA, QWEN3, DSV2 = "models/llama-3.1-8b", "models/qwen3-8b", "models/deepseek-v2-lite"
DSV3 = "models/deepseek-v3"
# the decode context-parallel collective: the one default SGLang derives from a device name
DCP_FIELDS = ["dcp_comm_backend", "dcp_replicate_q_proj", "attention_backend", "page_size",
              "tp_size"]
EAGLE = ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path",
         "models/llama-3.1-8b-eagle", "--speculative-num-steps", "3",
         "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"]
TARGETS = ["h20", "h800", "h100-pcie", "h100-nvl", "h200-nvl", "gh200", "a800", "a100-40gb",
           "l40s", "l40", "l4", "a10g", "a10", "rtx4090", "rtx3090", "rtx6000-ada",
           "rtx-pro-6000", "rtx-pro-6000-ws", "gb10", "gb300"]

CASES: list[tuple[str, str, str, list[str]]] = [
    # every target's defaults: the memory tier and the capability's backend
    *((f"defaults/llama/{t}", t, LLAMA, []) for t in TARGETS),
    ("defaults/qwen3/a10g", "a10g", QWEN3, []),
    ("defaults/qwen3/l40s", "l40s", QWEN3, []),
    ("defaults/dsv2lite/h20", "h20", DSV2, []),  # MLA
    ("defaults/dsv2lite/rtx4090", "rtx4090", DSV2, []),
    # tensor parallelism: tp >= 4 raises the decode graph on the 24-60 GB tiers
    ("tp/llama/a10g/tp4", "a10g", LLAMA, ["--tp-size", "4"]),
    ("tp/llama/l40s/tp4", "l40s", LLAMA, ["--tp-size", "4"]),
    ("tp/llama/a100-40gb/tp8", "a100-40gb", LLAMA, ["--tp-size", "8"]),
    ("tp/llama/rtx4090/tp2", "rtx4090", LLAMA, ["--tp-size", "2"]),
    ("tp/dsv2lite/h20/tp8", "h20", DSV2, ["--tp-size", "8"]),
    # an attention backend chosen on capabilities the nine do not cover
    ("backend/llama/l40s/fa3", "l40s", LLAMA, ["--attention-backend", "fa3"]),
    ("backend/llama/rtx4090/triton", "rtx4090", LLAMA, ["--attention-backend", "triton"]),
    ("backend/llama/a10g/flashinfer", "a10g", LLAMA, ["--attention-backend", "flashinfer"]),
    ("backend/llama/rtx-pro-6000/trtllm", "rtx-pro-6000", LLAMA,
     ["--attention-backend", "trtllm_mha"]),
    ("backend/llama/gb10/fa4", "gb10", LLAMA, ["--attention-backend", "fa4"]),
    ("backend/llama/h20/fa3", "h20", LLAMA, ["--attention-backend", "fa3"]),
    # speculative decoding
    ("spec/llama/h20/eagle", "h20", LLAMA, EAGLE),
    ("spec/llama/l4/eagle", "l4", LLAMA, EAGLE),
    ("spec/llama/rtx-pro-6000/eagle", "rtx-pro-6000", LLAMA, EAGLE),
    ("spec/llama/rtx3090/eagle", "rtx3090", LLAMA, EAGLE),
    # FP8 KV cache
    ("fp8kv/llama/l40s/e4m3", "l40s", LLAMA, ["--kv-cache-dtype", "fp8_e4m3"]),
    ("fp8kv/llama/rtx4090/e5m2", "rtx4090", LLAMA, ["--kv-cache-dtype", "fp8_e5m2"]),
    ("fp8kv/llama/a10g/e4m3", "a10g", LLAMA, ["--kv-cache-dtype", "fp8_e4m3"]),
    ("fp8kv/llama/gb10/e4m3", "gb10", LLAMA, ["--kv-cache-dtype", "fp8_e4m3"]),
    ("fp8kv/dsv2lite/h800/e4m3", "h800", DSV2, ["--kv-cache-dtype", "fp8_e4m3"]),
    # GB300 (SM103 with an NVL72 tray's four GPUs and its device name): DeepSeek-V3 on a tray,
    # with MTP, and FP8 KV on a dense model
    ("defaults/dsv3/gb300/tp4", "gb300", DSV3, ["--tp-size", "4"]),
    ("spec/dsv3/gb300/mtp-tp4", "gb300", DSV3,
     ["--tp-size", "4", "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
      "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"]),
    ("fp8kv/llama/gb300/e4m3", "gb300", LLAMA, ["--kv-cache-dtype", "fp8_e4m3"]),
    ("backend/llama/gb300/fa4", "gb300", LLAMA, ["--attention-backend", "fa4"]),
]
# (name, gpu, model, argv): fi_a2a on SM10x when the DCP group fits one NVLink domain, which a
# GB200's device name alone vouches for across nodes; a2a elsewhere; the collective's checks
DCP_CASES: list[tuple[str, str, str, list[str]]] = [
    ("dcp/dsv3/b200/tp8-dcp2", "b200", DSV3, ["--tp-size", "8", "--dcp-size", "2"]),
    ("dcp/dsv3/gb200/tp4-dcp2", "gb200", DSV3, ["--tp-size", "4", "--dcp-size", "2"]),
    ("dcp/dsv3/b200/2nodes-dcp8", "b200", DSV3,
     ["--tp-size", "8", "--nnodes", "2", "--dcp-size", "8"]),
    ("dcp/dsv3/gb200/2nodes-dcp8", "gb200", DSV3,
     ["--tp-size", "8", "--nnodes", "2", "--dcp-size", "8"]),
    ("dcp/dsv3/b300/tp8-dcp2", "b300", DSV3, ["--tp-size", "8", "--dcp-size", "2"]),
    ("dcp/dsv3/gb300/2nodes-dcp8", "gb300", DSV3,
     ["--tp-size", "8", "--nnodes", "2", "--dcp-size", "8"]),
    ("dcp/dsv3/b300/2nodes-dcp8", "b300", DSV3,
     ["--tp-size", "8", "--nnodes", "2", "--dcp-size", "8"]),
    ("dcp/dsv3/h20/tp8-dcp2", "h20", DSV3, ["--tp-size", "8", "--dcp-size", "2"]),
    ("dcp/dsv3/rtx-pro-6000/tp8-dcp2", "rtx-pro-6000", DSV3,
     ["--tp-size", "8", "--dcp-size", "2"]),
    ("dcp/dsv3/mi300x/tp8-dcp2", "mi300x", DSV3, ["--tp-size", "8", "--dcp-size", "2"]),
    ("dcp/llama/b200/no-dcp", "b200", LLAMA, ["--tp-size", "8"]),
    ("dcp/llama/b200/a2a-without-dcp", "b200", LLAMA, ["--dcp-comm-backend", "a2a"]),
    ("dcp/dsv3/mi300x/fi-a2a", "mi300x", DSV3,
     ["--tp-size", "8", "--dcp-size", "2", "--dcp-comm-backend", "fi_a2a"]),
    ("dcp/dsv3/b200/replicate-q-ag-rs", "b200", DSV3,
     ["--tp-size", "8", "--dcp-size", "2", "--dcp-comm-backend", "ag_rs",
      "--dcp-replicate-q-proj"]),
]


def main() -> None:
    cases = [{"name": f"targets/{name}", "platform": gpu, "model": model, "argv": argv,
              "fields": FIELDS} for name, gpu, model, argv in CASES]
    cases += [{"name": f"targets/{name}", "platform": gpu, "model": model, "argv": argv,
               "fields": DCP_FIELDS} for name, gpu, model, argv in DCP_CASES]
    OUT.write_text(json.dumps(cases, indent=1) + "\n")
    print(f"{OUT}: {len(cases)} cases")


if __name__ == "__main__":
    main()
