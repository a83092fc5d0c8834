"""Generate ``tests/parity/data/probes26-cases.json``: the lines of the twenty-sixth session's
coverage probe that met rule code no recorded case reached, kept so each class stays held.

    python tests/parity/tools/gen_probes26_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py probes26

The probe traced which branches of ``src/launchplan/rules`` the committed suites never take
and wrote launches to reach them (``probes26_lines.json`` beside this file, by topic):
- ``fa4-exemption``: non-MLA models on SM10x with fa4 attention across prefill CUDA-graph
  variants and speculative settings, where SGLang 0.5.23 and the later FA4 fix (the
  default rules) part on the page size or on refusing;
- ``megamoe-nvfp4``: MegaMoE on ModelOpt NVFP4 checkpoints, some describing NVFP4 only in
  ``hf_quant_config.json``, which SGLang's token-budget check does not read (the class the
  probe found: launchplan had refused what SGLang starts);
- ``cpu-speculative``: speculative decoding with ``--device cpu``, whose overlap schedule
  SGLang turns off in a helper of its own (the probe found launchplan naming another rule).
"""

from __future__ import annotations

import json
from pathlib import Path

TOOLS = Path(__file__).parent
DATA = TOOLS.parent / "data"
FIELDS = [
    "attention_backend", "prefill_attention_backend", "decode_attention_backend", "page_size",
    "chunked_prefill_size", "max_running_requests", "disable_overlap_schedule",
    "cuda_graph_config.decode.backend", "cuda_graph_config.decode.max_bs",
    "cuda_graph_config.prefill.backend", "cuda_graph_config.prefill.max_bs",
    "speculative_algorithm", "speculative_num_steps", "speculative_eagle_topk",
    "speculative_num_draft_tokens", "moe_a2a_backend", "moe_runner_backend", "ep_size",
    "quantization", "kv_cache_dtype", "disable_radix_cache", "enable_mixed_chunk",
]


def cases() -> list[dict]:
    lines = json.loads((TOOLS / "probes26_lines.json").read_text())
    count: dict[str, int] = {}
    out = []
    for line in lines:
        topic = line["topic"]
        count[topic] = count.get(topic, 0) + 1
        case = {"name": f"probes26/{topic}/{count[topic]}", "platform": line["platform"],
                "model": line["model"], "argv": line["argv"], "fields": FIELDS}
        if line.get("env"):
            case["env"] = line["env"]
        out.append(case)
    return out


def main() -> None:
    written = cases()
    (DATA / "probes26-cases.json").write_text(json.dumps(written, indent=1) + "\n")
    print(f"probes26: wrote {len(written)} cases")


if __name__ == "__main__":
    main()
