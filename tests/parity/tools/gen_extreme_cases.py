"""Generate ``tests/parity/data/extreme-cases.json``: numbers SGLang's parser admits, at the edges.

Every integer and float flag that a rule reads gets the extreme values one at a time (0, -1,
2^31, 2^63 for integers; nan, inf, -inf, 0, -1, 1e308 for floats), on Llama-3.1-8B on an h100
(speculative knobs with EAGLE on), plus a few ``--cuda-graph-config`` objects with extreme
numbers and the crashes issue 15 named. What SGLang 0.5.23 does with them (resolve, refuse,
or raise something else) is the truth launchplan is held to.

Recording (needs the oracle venv; a memory cap keeps SGLang's enormous capture lists from
eating the shared machine, and cases SGLang cannot finish within the timeout or the cap are
dropped by ``--prune``)::

    (ulimit -v 8000000; python ../shared/oracle/sglang_oracle.py \\
        tests/parity/data/extreme-cases.json --out /tmp/x-0.5.23.jsonl --jobs 1 --timeout 40)
    python tests/parity/tools/gen_extreme_cases.py --prune /tmp/x-0.5.23.jsonl \\
        --out-results tests/parity/data/results-extreme-0.5.23.jsonl
    (the same with ``--rules main`` into results-extreme-main.jsonl)

On a busy machine the 2^31 decode line (12-17 s in SGLang) may hit the timeout: record that
case alone with ``--timeout 150`` and append its line to the results.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DATA = Path(__file__).parents[1] / "data"

INT_VALUES = ("0", "-1", "2147483648", "9223372036854775808")
FLOAT_VALUES = ("nan", "inf", "-inf", "0", "-1", "1e308")
# Reported for every case (no capture-size lists: SGLang's can have billions of entries).
REPORTED = ("attention_backend", "page_size", "mem_fraction_static", "chunked_prefill_size",
            "max_running_requests", "cuda_graph_config.decode.backend",
            "cuda_graph_config.prefill.backend", "cuda_graph_config.decode.max_bs",
            "cuda_graph_config.prefill.max_bs", "speculative_num_steps",
            "speculative_eagle_topk", "speculative_num_draft_tokens", "tp_size", "dp_size")
# Integer and float fields some rule reads (launchplan's registry, as of this suite).
FIELDS = {
    "int": ("tokenizer_worker_num", "detokenizer_worker_num", "max_running_requests",
            "max_total_tokens", "chunked_prefill_size", "prefill_decode_interval",
            "max_prefill_tokens", "page_size", "nnodes", "tp_size", "dcp_size", "pp_size",
            "pp_max_micro_batch_size", "dp_size", "attn_dp_size", "attn_cp_size",
            "moe_dp_size", "base_gpu_id", "gpu_id_step", "cuda_graph_max_bs_decode",
            "cuda_graph_max_bs_prefill", "cuda_graph_bs_decode", "cuda_graph_bs_prefill",
            "cuda_graph_prefill_max_context", "triton_attention_num_kv_splits",
            "torch_compile_max_bs", "speculative_num_steps", "speculative_eagle_topk",
            "speculative_num_draft_tokens", "speculative_draft_window_size", "ep_size",
            "ep_num_redundant_experts", "moe_dense_tp_size", "mamba_track_interval",
            "mm_preprocess_cache_size_mb", "disaggregation_decode_extra_slots",
            "optimistic_prefill_attempts", "kv_canary_sweep_interval",
            "sampling_mask_max_tokens", "cuda_graph_max_seq_len_prefill", "swa_prefix_tails",
            "speculative_draft_sink_size", "prefill_decode_interval_min_bs"),
    "float": ("mem_fraction_static", "schedule_conservativeness", "swa_full_tokens_ratio",
              "speculative_accept_threshold_single", "speculative_accept_threshold_acc",
              "mamba_full_memory_ratio", "disaggregation_decode_host_receive_threshold"),
}
GRAPH_CONFIGS = (
    {"decode": {"max_bs": 0}}, {"decode": {"max_bs": -1}}, {"decode": {"max_bs": 1e308}},
    {"prefill": {"max_bs": 0}}, {"prefill": {"max_bs": -8}}, {"decode": {"bs": [0]}},
    {"prefill": {"max_context_size": 0}}, {"prefill": {"max_seq_len": -1}},
)
EXTRA = (  # the lines issue 15 and issue 9 named, and a few neighbours
    ("rtx5090", "llama-3.1-8b", ["--cuda-graph-max-bs-decode", "2147483648"]),
    ("h100", "llama-3.1-8b", ["--page-size", "0"]),
    ("b200", "deepseek-v3", ["--page-size", "0"]),
    ("h100", "llama-3.1-8b", ["--nnodes", "0"]),
    ("h100", "llama-3.1-8b", ["--mem-fraction-static", "nan"]),
    ("h100", "llama-3.1-8b", ["--page-size", "-16"]),
    ("h100", "llama-3.1-8b", ["--chunked-prefill-size", "0", "--page-size", "0"]),
    ("h100", "llama-3.1-8b", ["--cuda-graph-max-bs-prefill", "2147483648"]),
    ("b200", "deepseek-v3", ["--tp-size", "8", "--chunked-prefill-size", "2147483648"]),
    ("h100", "llama-3.1-8b", ["--cuda-graph-max-bs-decode", "100000",
                              "--disable-cuda-graph-padding"]),
)
SPECULATIVE_CONTEXT = ["--speculative-algorithm", "EAGLE"]


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def cases() -> list[dict]:
    out = []
    for kind, names in FIELDS.items():
        for name in names:
            for value in INT_VALUES if kind == "int" else FLOAT_VALUES:
                context = SPECULATIVE_CONTEXT if name.startswith("speculative_") else []
                fields = [f for f in REPORTED if f != name] + [name]
                out.append({"name": f"extreme/{name}={value}", "platform": "h100",
                            "model": "models/llama-3.1-8b",
                            "argv": [*context, flag(name), value], "fields": fields})
    for config in GRAPH_CONFIGS:
        text = json.dumps(config, separators=(",", ":"))
        out.append({"name": f"extreme/cuda_graph_config={text}", "platform": "h100",
                    "model": "models/llama-3.1-8b", "argv": ["--cuda-graph-config", text],
                    "fields": list(REPORTED)})
    for gpu, model, argv in EXTRA:
        out.append({"name": f"extreme/{gpu}/{model}/{' '.join(argv)}", "platform": gpu,
                    "model": f"models/{model}", "argv": argv, "fields": list(REPORTED)})
    return out


def unfinished(row: dict) -> bool:
    """SGLang did not finish: a timeout, a dead child, or the memory cap (no faithful answer)."""
    error = row.get("error") or ""
    return error.startswith("harness:") or "MemoryError" in error


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DATA / "extreme-cases.json")
    ap.add_argument("--prune", type=Path, help="oracle results: drop the unfinished cases")
    ap.add_argument("--out-results", type=Path, help="where the pruned results go")
    args = ap.parse_args()
    if args.prune:
        rows = [json.loads(line) for line in args.prune.read_text().splitlines()
                if line.startswith("{")]
        kept = [r for r in rows if not unfinished(r)]
        for r in rows:
            if unfinished(r):
                print(f"dropped (SGLang did not finish): {r['name']}: {r['error'][:120]}")
        (args.out_results or args.prune).write_text(
            "".join(json.dumps(r) + "\n" for r in kept))
        names = {r["name"] for r in kept}
        case_list = [c for c in json.loads(args.out.read_text()) if c["name"] in names]
        args.out.write_text(json.dumps(case_list, indent=0) + "\n")  # no case without answer
        print(f"kept {len(kept)} of {len(rows)} results and their cases")
        return
    written = cases()
    args.out.write_text(json.dumps(written, indent=0) + "\n")
    print(f"wrote {len(written)} cases to {args.out}")


if __name__ == "__main__":
    main()
