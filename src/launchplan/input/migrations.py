"""Flags people still paste from older SGLang releases, and what each became.

A did-you-mean guesses by spelling and may point the opposite way (``--enable-flashinfer-moe``
is closest to ``--disable-flashinfer-autotune``); for a retired or split flag the exact
replacement is known, so the error says it. Each entry: the old flag, the flags that replace
it (``N`` where a value is the user's to choose; nothing for a flag removed outright), what
happened to it, and the release that stopped accepting it when that is one launchplan
models (older ones were gone before 0.5.21).
"""

from __future__ import annotations

import functools
from bisect import bisect_left
from pathlib import Path
from typing import NamedTuple

from launchplan.input.fields import RELEASES, release_table


class Migration(NamedTuple):
    old: str
    new: str  # the replacement, as flags; "" for a flag removed without one
    note: str  # what changed, in a few words
    since: str = ""  # the first release without the flag (of the wheels read)
    takes_value: bool = False  # the old flag took a value: it goes with the flag or moves
    carry: str = ""  # "one"/"many": the old value(s) move to the replacement's first flag
    # (with no replacement, "many" only says how many values go with the flag)
    values: tuple[tuple[str, str], ...] = ()  # old value -> new value, where renamed
    source: str = ""  # where the replacement is read from (a release's wheel, a PR)


#: 0.5.3's NSA backend names as 0.5.4 renamed them (the two releases' choice lists, in order).
_NSA_VALUES = (("flashmla_prefill", "flashmla_sparse"), ("flashmla_decode", "flashmla_kv"))

MIGRATIONS: dict[str, Migration] = {m.old: m for m in (
    Migration("--cuda-graph-max-bs", "--cuda-graph-max-bs-decode N",
              "split per CUDA-graph phase; the old flag sized the decode graphs", "0.5.20",
              True, "one",
              source="0.5.19 wheel: its deprecation"),
    Migration("--cuda-graph-bs", "--cuda-graph-bs-decode N [N ...]",
              "split per CUDA-graph phase; the old flag listed the decode batch sizes", "0.5.20",
              True, "many",
              source="0.5.19 wheel: its deprecation"),
    Migration("--enable-ep-moe", "--ep-size N (N = --tp-size)",
              "expert parallelism is sized, not switched on", "0.5.5",
              source="0.5.4 wheel: its deprecation"),
    Migration("--enable-flashinfer-moe", "--moe-runner-backend flashinfer_cutlass",
              "renamed --enable-flashinfer-cutlass-moe, then folded into the MoE runner choice",
              "0.4.10",
              source="0.4.10 wheel; SGLang docs, deprecated features"),
    Migration("--enable-flashinfer-cutlass-moe", "--moe-runner-backend flashinfer_cutlass",
              "folded into the MoE runner choice", "0.5.5",
              source="0.5.4 wheel: its deprecation"),
    Migration("--enable-flashinfer-trtllm-moe", "--moe-runner-backend flashinfer_trtllm",
              "folded into the MoE runner choice", "0.5.5",
              source="0.5.4 wheel: its deprecation"),
    # 0.3.x's ServerArgs turned it into attention_backend = "triton" and nothing else; the
    # sampling kernels had their own switch, --disable-flashinfer-sampling
    Migration("--disable-flashinfer", "--attention-backend triton",
              "retired; it chose the triton attention kernels", "0.4.2",
              source="0.3.5 wheel: ServerArgs.__post_init__"),
    # SGLang's docs, "Deprecated Features, Server Arguments and Environment Variables" (its
    # MoE runner backend table), list these with their replacements
    Migration("--enable-deepep-moe", "--moe-a2a-backend deepep",
              "DeepEP became one of the MoE all-to-all backends", "0.5.5",
              source="0.5.4 wheel: its deprecation"),
    Migration("--enable-flashinfer-cutedsl-moe", "--moe-runner-backend flashinfer_cutedsl",
              "folded into the MoE runner choice", "0.5.5",
              source="0.5.4 wheel: its deprecation"),
    Migration("--enable-triton-kernel-moe", "--moe-runner-backend triton_kernel",
              "folded into the MoE runner choice", "0.5.5",
              source="0.5.4 wheel: its deprecation"),
    Migration("--enable-flashinfer-mxfp4-moe", "--moe-runner-backend flashinfer_mxfp4",
              "folded into the MoE runner choice", "0.5.5",
              source="0.5.4 wheel: its deprecation"),
    # sgl-project/sglang#5480 replaced the MLA switches with attention backends
    Migration("--enable-flashinfer-mla", "--attention-backend flashinfer",
              "the FlashInfer MLA kernels are the flashinfer attention backend", "0.4.8",
              source="0.4.7 wheel: its deprecation; sgl-project/sglang#5480"),
    Migration("--enable-flashmla", "--attention-backend flashmla",
              "FlashMLA became an attention backend", "0.4.8",
              source="0.4.7 wheel: its deprecation; sgl-project/sglang#5480"),
    # sgl-project/sglang#2065 retired the sampling switch with --disable-flashinfer
    Migration("--disable-flashinfer-sampling", "--sampling-backend pytorch",
              "the sampling kernels are chosen with --sampling-backend", "0.4.2",
              source="0.4.1 wheel: its deprecation; sgl-project/sglang#2065"),
    # sgl-project/sglang#27418 renamed the hybrid (mamba) models' cache strategy; 0.5.21 to
    # 0.5.23 accept only the new name (a later main takes the old one as an alias, #37960)
    Migration("--mamba-scheduler-strategy", "--mamba-radix-cache-strategy N",
              "renamed: it picks how the mamba state is kept for the radix cache", "0.5.20", True,
              "one",
              source="0.5.19 wheel: its deprecation; sgl-project/sglang#27418"),
    # sgl-project/sglang#25821 renamed NSA to DSA (DeepSeek Sparse Attention); 0.5.21 to
    # 0.5.23 accept only the --dsa-* flags (the "nsa" attention backend stays an alias)
    Migration("--nsa-prefill-backend", "--dsa-prefill-backend N", "NSA was renamed DSA", "0.5.20",
              True, "one",
              source="0.5.19 wheel: its deprecation; sgl-project/sglang#25821"),
    Migration("--nsa-decode-backend", "--dsa-decode-backend N", "NSA was renamed DSA", "0.5.20",
              True, "one",
              source="0.5.19 wheel: its deprecation; sgl-project/sglang#25821"),
    # sgl-project/sglang#27312 merged the context-parallel switches into --enable-prefill-cp
    # with --cp-strategy; the DSA mode round-robin-split (its default, #26179) is interleave
    # and in-seq-split is zigzag (#27252)
    Migration("--enable-nsa-prefill-context-parallel",
              "--enable-prefill-cp --cp-strategy interleave",
              "prefill context parallelism is one switch with a strategy; the old default "
              "round-robin-split layout is interleave", "0.5.20",
              source="0.5.19 wheel: its deprecation; sgl-project/sglang#27312"),
    Migration("--enable-dsa-prefill-context-parallel",
              "--enable-prefill-cp --cp-strategy interleave",
              "prefill context parallelism is one switch with a strategy; the old default "
              "round-robin-split layout is interleave", "0.5.20",
              source="0.5.19 wheel: its deprecation; sgl-project/sglang#27312"),
    Migration("--enable-prefill-context-parallel", "--enable-prefill-cp --cp-strategy zigzag",
              "prefill context parallelism is one switch with a strategy; the in-seq-split "
              "layout is zigzag", "0.5.20",
              source="0.5.19 wheel: its deprecation; sgl-project/sglang#27312"),
    Migration("--nsa-prefill-cp-mode", "--cp-strategy zigzag|interleave",
              "the layout is --cp-strategy: in-seq-split is zigzag, round-robin-split "
              "interleave", "0.5.20", True,
              source="sgl-project/sglang#27312, #27252"),
    Migration("--dsa-prefill-cp-mode", "--cp-strategy zigzag|interleave",
              "the layout is --cp-strategy: in-seq-split is zigzag, round-robin-split "
              "interleave", "0.5.20", True,
              source="sgl-project/sglang#27312, #27252"),
    Migration("--prefill-cp-mode", "--cp-strategy zigzag|interleave",
              "the layout is --cp-strategy: in-seq-split is zigzag, round-robin-split "
              "interleave", "0.5.20", True,
              source="0.5.19 wheel: its deprecation; sgl-project/sglang#27312"),
    # the piecewise (torch.compile) prefill CUDA graph became on by default
    # (sgl-project/sglang#16331): 0.5.13 kept --enable-piecewise-cuda-graph as a no-op, so the
    # default (subject to SGLang's auto-disable conditions) is its meaning; then one of the
    # prefill graph backends (#23906), the breakable backend the default since (#23004).
    # --enforce-piecewise-cuda-graph skipped those conditions: 0.5.19 made it an alias of
    # --cuda-graph-backend-prefill=tc_piecewise, gone in 0.5.22; a named prefill backend is
    # what keeps the graph from being switched off (0.5.21's
    # cuda_graph_hook.apply_cuda_graph_compatibility)
    Migration("--enable-piecewise-cuda-graph", "",
              "prefill CUDA graphs are on by default; 0.5.13 made the switch a no-op", "0.5.14",
              source="0.5.13 wheel: its deprecation"),
    Migration("--enforce-piecewise-cuda-graph", "--cuda-graph-backend-prefill breakable",
              "naming the prefill graph backend keeps it from being switched off (0.5.19 "
              "aliased it to tc_piecewise, removed in 0.5.22)", "0.5.20",
              source="0.5.19 wheel: its deprecation"),
    Migration("--disable-piecewise-cuda-graph", "--cuda-graph-backend-prefill disabled",
              "the prefill CUDA graph is switched off by its backend", "0.5.20",
              source="0.5.19 wheel: its deprecation"),
    # removed between 0.5.21 and 0.5.23 (the three releases' flag sets, diffed): 0.5.22's
    # CUDA-graph config refuses the tc_piecewise backend and its compiler key as removed
    Migration("--cuda-graph-tc-compiler", "",
              "it chose the compiler of the tc_piecewise CUDA-graph backend, removed with it "
              "(prefill graphs: --cuda-graph-backend-prefill breakable, full or disabled)",
              since="0.5.22", takes_value=True,
              source="0.5.21 and 0.5.22's field tables; 0.5.22's cuda_graph_config.py"),
    # 0.5.23's scheduler always runs that extra sync with speculative decoding and DP
    # attention, unless SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION=1 (0.5.22 and 0.5.23's
    # scheduler.py, the batch-merge step)
    Migration("--speculative-skip-dp-mlp-sync", "",
              "the extra DP MLP sync with speculative decoding is no longer optional "
              "(SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION=1 is the one way around it, for "
              "single-layer EAGLE, EAGLE3 or DSPARK)", since="0.5.23",
              source="0.5.22 and 0.5.23's field tables and scheduler.py"),
    # Older releases, read from their wheels (tools/old_sglang_flags.py; every x.y.z from
    # 0.3.0 to 0.5.20): ``since`` is the first wheel without the flag, and the
    # replacement is what the last wheel with it says (its deprecation action or help), or the
    # flag that took its place in the next one.
    *(Migration(*row[:3], since=row[3], takes_value=row[4], carry=row[5], source=row[6],
                values=row[7] if len(row) > 7 else ())
      for row in (
        # 0.3.0 sized the request pool with it (at most N - 1 requests then ran); 0.3.1's
        # ModelRunner sizes that pool from --max-running-requests and runs up to its size
        ("--max-num-reqs", "--max-running-requests N", "it sized the request pool, which "
         "--max-running-requests sizes from 0.3.1 (its N requests may all run; 0.3.0 ran at "
         "most N - 1 of a pool of N)", "0.3.1",
         True, "one", "0.3.0 and 0.3.1 wheels: model_runner.py, tp_worker.py"),
        ("--enable-mla", "", "MLA became the default (0.3.2 to 0.4.5 had --disable-mla)",
         "0.3.2", False, "", "0.3.2 wheel: --disable-mla in its place"),
        ("--additional-ports", "", "removed", "0.3.3", True, "many", "0.3.3 wheel"),
        ("--efficient-weight-load", "", "removed", "0.3.4", False, "", "0.3.4 wheel"),
        ("--max-torch-compile-bs", "--torch-compile-max-bs N", "renamed", "0.3.5", True, "one",
         "0.3.5 wheel"),
        ("--disable-penalizer", "", "removed", "0.3.6", False, "", "0.3.6 wheel"),
        ("--disable-regex-jump-forward", "", "removed (jump-forward decoding went in 0.4.4)",
         "0.3.6", False, "", "0.3.6 wheel"),
        ("--disable-nan-detection", "", "NaN detection became opt-in", "0.4.1", False, "",
         "0.4.1 wheel: --enable-nan-detection in its place"),
        ("--disable-disk-cache", "--disable-outlines-disk-cache", "renamed", "0.4.2", False, "",
         "0.4.1 wheel: its deprecation names the new flag"),
        # not in any wheel read: the 0.1 releases' switch (their docs/flashinfer.md);
        # FlashInfer attention was the default by 0.3.0, which had --disable-flashinfer.
        # Written today it is a unique prefix of --enable-flashinfer-allreduce-fusion
        ("--enable-flashinfer", "", "FlashInfer attention, the flashinfer backend, has long "
         "been the default", "0.3.0", False, "",
         "SGLang 0.1's docs/flashinfer.md; 0.3.0 wheel: --disable-flashinfer"),
        # renamed in August 2024, before 0.3.0 (xorbitsai/inference#2191 followed the rename)
        ("--attention-reduce-in-fp32", "--triton-attention-reduce-in-fp32",
         "renamed: it only ever applied to the triton attention kernels", "0.3.0", False, "",
         "0.3.0 wheel: --triton-attention-reduce-in-fp32; xorbitsai/inference#2191"),
        ("--enable-overlap-schedule", "", "the overlap scheduler is on by default "
         "(--disable-overlap-schedule turns it off)", "0.4.2", False, "",
         "0.4.1 wheel: its deprecation says to drop it"),
        ("--disable-jump-forward", "", "jump-forward decoding was removed", "0.4.4", False, "",
         "0.4.4 wheel"),
        ("--file-storage-pth", "--file-storage-path N", "renamed", "0.4.4", True, "one",
         "0.4.4 wheel"),
        ("--prefill-only-one-req", "", "removed", "0.4.4", True, "", "0.4.4 wheel"),
        ("--return-hidden-states", "--enable-return-hidden-states",
         "hidden states are asked for per request, once the server allows them", "0.4.4",
         False, "", "0.4.8 wheel: --enable-return-hidden-states"),
        ("--disable-mla", "", "MLA models always run MLA attention", "0.4.6", False, "",
         "0.4.6 wheel: no disable_mla left in sglang/srt"),
        ("--n-share-experts-fusion", "", "shared-expert fusion is automatic "
         "(--disable-shared-experts-fusion turns it off)", "0.4.7", True, "", "0.4.7 wheel"),
        ("--disable-overlap-cg-plan", "", "removed", "0.4.10", False, "", "0.4.10 wheel"),
        ("--impl", "--model-impl N", "renamed", "0.4.10", True, "one", "0.4.10 wheel"),
        ("--pdlb-url", "", "the PD load-balancer registration was removed", "0.5.2", True, "",
         "0.5.2 wheel"),
        ("--debug-tensor-dump-prefill-only", "", "removed", "0.5.4", False, "", "0.5.4 wheel"),
        ("--max-micro-batch-size", "--pp-max-micro-batch-size N",
         "renamed for pipeline parallelism", "0.5.4", True, "one", "0.5.4 wheel"),
        ("--nsa-prefill", "--dsa-prefill-backend N", "renamed --nsa-prefill-backend, then DSA; "
         "flashmla_prefill is flashmla_sparse, flashmla_decode flashmla_kv", "0.5.4", True,
         "one", "0.5.3 and 0.5.4 wheels: their NSA backend choices, in order", _NSA_VALUES),
        ("--nsa-decode", "--dsa-decode-backend N", "renamed --nsa-decode-backend, then DSA; "
         "flashmla_prefill is flashmla_sparse, flashmla_decode flashmla_kv", "0.5.4", True,
         "one", "0.5.3 and 0.5.4 wheels: their NSA backend choices, in order", _NSA_VALUES),
        ("--enable-beta-spec", "", "0.5.5 moved the overlapped speculative path to the "
         "SGLANG_ENABLE_SPEC_V2 variable, which 0.5.23 no longer reads", "0.5.5", False, "",
         "0.5.5 wheel: server_args.py and environ.py"),
        ("--oltp-traces-endpoint", "--otlp-traces-endpoint N", "the misspelling was fixed",
         "0.5.5", True, "one", "0.5.5 wheel"),
        ("--kt-amx-method", "--kt-method N", "renamed", "0.5.6", True, "one", "0.5.6 wheel"),
        ("--kt-amx-weight-path", "--kt-weight-path N", "renamed", "0.5.6", True, "one",
         "0.5.6 wheel"),
        ("--dllm-block-size", "", "the block size is the model's (32 for LLaDA2); "
         "--dllm-algorithm-config takes a YAML file of algorithm options", "0.5.7", True, "",
         "0.5.7 wheel: sglang/srt/dllm/config.py"),
        ("--enable-flashinfer-autotune", "", "FlashInfer autotuning is on by default "
         "(--disable-flashinfer-autotune turns it off)", "0.5.7", False, "", "0.5.7 wheel"),
        ("--load-watch-interval", "", "removed", "0.5.7", True, "", "0.5.7 wheel"),
        ("--disaggregation-decode-enable-fake-auto", "", "removed", "0.5.9", False, "",
         "0.5.9 wheel"),
        ("--disable-hicache-numa-detect", "", "removed (NUMA binding is --numa-node)", "0.5.10",
         False, "", "0.5.10 wheel"),
        ("--disaggregation-decode-tp", "", "removed", "0.5.10", True, "", "0.5.10 wheel"),
        ("--disaggregation-decode-dp", "", "removed", "0.5.10", True, "", "0.5.10 wheel"),
        ("--disaggregation-prefill-pp", "", "removed", "0.5.10", True, "", "0.5.10 wheel"),
        ("--mm-max-concurrent-calls", "", "removed", "0.5.10", True, "", "0.5.10 wheel"),
        ("--mm-per-request-timeout", "", "removed", "0.5.10", True, "", "0.5.10 wheel"),
        ("--speculative-ngram-branch-length", "--speculative-ngram-max-trie-depth N",
         "renamed (both default to 18)", "0.5.10", True, "one", "0.5.9 and 0.5.10 wheels"),
        ("--speculative-ngram-min-match-window-size", "", "matching covers every suffix up "
         "to --speculative-ngram-max-trie-depth", "0.5.10", True, "", "sgl-project/sglang#21225"),
        ("--speculative-ngram-max-match-window-size", "", "matching covers every suffix up "
         "to --speculative-ngram-max-trie-depth", "0.5.10", True, "", "sgl-project/sglang#21225"),
        *((flag, "", "double sparsity attention was removed", "0.5.11", flag != "--enable-"
           "double-sparsity", "", "sgl-project/sglang#23009")
          for flag in ("--enable-double-sparsity", "--ds-channel-config-path",
                       "--ds-heavy-channel-num", "--ds-heavy-token-num", "--ds-heavy-channel-type",
                       "--ds-sparse-decode-threshold")),
        ("--multi-item-scoring-delimiter", "", "multi-item scoring is switched on with "
         "--enable-mis", "0.5.11", True, "", "0.5.11 wheel: --enable-mis"),
        ("--enable-nan-detection", "", "0.5.12 pointed to environment variables 0.5.23 no "
         "longer reads", "0.5.13", False, "", "0.5.12 wheel: its help"),
        ("--record-nolora-graph", "", "removed", "0.5.13", False, "", "0.5.13 wheel"),
        ("--no-record-nolora-graph", "", "removed", "0.5.13", False, "", "0.5.13 wheel"),
        ("--custom-sigquit-handler", "", "it only ever applied to the Python Engine",
         "0.5.14", True, "", "0.5.13 wheel: its help"),
        ("--debug-tensor-dump-inject", "", "removed", "0.5.14", True, "", "0.5.14 wheel"),
        ("--hybrid-kvcache-ratio", "--swa-full-tokens-ratio N", "a different ratio (SWA-layer "
         "over full-layer KV tokens): choose it anew", "0.5.14", True, "",
         "0.4.10 wheel: its deprecation names the new flag"),
        ("--enable-deepep-waterfill", "--enable-waterfill --moe-a2a-backend deepep",
         "Waterfill serves more all-to-all backends; the old switch implied DeepEP", "0.5.16",
         False, "", "0.5.15 and 0.5.16 wheels: the two flags' help"),
        ("--optimistic-prefill-retries", "--optimistic-prefill-attempts N", "renamed",
         "0.5.16", True, "one", "0.5.16 wheel"),
        ("--torchao-config", "", "the torchao integration was removed", "0.5.18", True, "",
         "sgl-project/sglang#34295"),
        ("--collect-tokens-histogram", "", "token histograms are collected whenever "
         "--enable-metrics is set", "0.5.20", False, "", "0.5.19 wheel: its deprecation"),
        ("--enable-breakable-cuda-graph", "--cuda-graph-backend-prefill breakable",
         "the prefill graph backend names it", "0.5.20", False, "",
         "0.5.19 wheel: its deprecation"),
        ("--enable-expert-distribution-metrics", "--expert-balancedness-report-mode server_log",
         "refused from 0.5.18: the report is routed, server_log (as the old switch logged), "
         "prometheus or both", "0.5.20", False, "", "0.5.17 and 0.5.18 wheels"),
        ("--enable-gdn-replayssm-spec", "--enable-linear-replayssm-spec", "renamed", "0.5.20",
         False, "", "0.5.19 wheel: its deprecation"),
        ("--piecewise-cuda-graph-compiler", "", "an alias of --cuda-graph-tc-compiler, which "
         "0.5.22 removed with the tc_piecewise backend", "0.5.20", True, "",
         "0.5.19 wheel: its deprecation"),
        ("--piecewise-cuda-graph-max-tokens", "--cuda-graph-max-bs-prefill N",
         "the prefill graph sizes are per phase", "0.5.20", True, "one",
         "0.5.19 wheel: its deprecation"),
        ("--piecewise-cuda-graph-tokens", "--cuda-graph-bs-prefill N [N ...]",
         "the prefill graph sizes are per phase", "0.5.20", True, "many",
         "0.5.19 wheel: its deprecation"),
        ("--prefill-round-robin-balance", "", "removed", "0.5.20", False, "",
         "0.5.19 wheel: its deprecation"),
        ("--speculative-dflash-draft-window-size", "--speculative-draft-window-size N",
         "renamed", "0.5.20", True, "one", "0.5.19 wheel: its deprecation"),
        ("--stream-output", "--incremental-streaming-output", "renamed", "0.5.20", False, "",
         "0.5.19 wheel: its deprecation"),
        ("--elastic-ep-rejoin", "--elastic-ep-join-mode recover", "the join mode names it",
         "0.5.21", False, "", "0.5.20 wheel: its help"),
        ("--keep-mm-feature-on-device", "--mm-feature-transport cuda_ipc",
         "GPU-resident features are a transport choice", "0.5.21", False, "",
         "0.5.20 wheel: its help"),
    )),
)}

#: Flags seen in pasted launch lines that no SGLang release launchplan knows has, for which
#: a spelling-based did-you-mean would mislead: flag -> what to say instead.
NOT_SGLANG: dict[str, str] = {
    # a Qwen3.5 launch script for AMD GPUs (pasted_lines.json); not in 0.5.21 to 0.5.23's
    # flags, nor found in SGLang's repository, issues or docs
    "--disable-mamba-scheduler": (
        "--disable-mamba-scheduler is not a flag of any SGLang release launchplan knows: how "
        "hybrid (mamba) models keep their state for the radix cache is "
        "--mamba-radix-cache-strategy (auto, no_buffer, extra_buffer, extra_buffer_lazy; formerly "
        "--mamba-scheduler-strategy), and with --disable-radix-cache it has no role: drop it"),
}

class RetiredValue(NamedTuple):
    flag: str
    value: str
    note: str  # what became of it; without ``new`` the rewrite drops the flag (its default)
    since: str  # the first release that refuses the value (of the wheels read)
    new: str = ""  # the value that names the same thing now, where one does
    source: str = ""  # where that is read from (a release's wheel, a PR)


#: The attention-backend flags, which share one list of choices.
_ATTENTION_FLAGS = ("--attention-backend", "--prefill-attention-backend",
                    "--decode-attention-backend")
#: The flags taking a quantization method (the draft model's since 0.5.7).
_QUANT_FLAGS = ("--quantization", "--speculative-draft-model-quantization")

#: Values of current flags that a release stopped accepting (the modeled releases' choices,
#: diffed, a test keeps these complete; and older wheels' choices for values seen in real
#: lines). 0.5.22's CUDA-graph config refuses the backend as removed.
RETIRED_VALUES: dict[tuple[str, str], RetiredValue] = {(v.flag, v.value): v for v in (
    *(RetiredValue(f"--cuda-graph-backend-{phase}", "tc_piecewise",
                   f"the tc_piecewise backend was removed (breakable, full or disabled remain; "
                   f"without the flag the {phase} default, {default}, applies)", "0.5.22",
                   source="0.5.21 and 0.5.22's field tables; 0.5.22's cuda_graph_config.py")
      for phase, default in (("prefill", "breakable"), ("decode", "full"))),
    # the first FP4 KV cache (PRs 10078 and 12612): E8M0-style scales over blocks of 16.
    # 0.5.20 lists both names but refuses fp4_e2m1 at start, naming fp4_mx_block16, and
    # its FP4MXBlock16KVQuantizeUtil is 0.5.15's BlockFP4KVQuantizeUtil renamed (same
    # block, scale and packing); no release launchplan models takes the old name
    RetiredValue("--kv-cache-dtype", "fp4_e2m1",
                 "the block-16 MX-scaled FP4 KV cache it chose is named fp4_mx_block16 (nvfp4 "
                 "is the E4M3-scaled one)", "0.5.21", "fp4_mx_block16",
                 "0.5.15 and 0.5.20 wheels: layers/quantization/kvfp4_tensor.py; 0.5.20's "
                 "mem_cache/kv_cache_dtype.py"),
    # 0.5.18's shared choice list has these backends, 0.5.20's arg_groups/choices.py not
    # (0.5.19 was not read)
    *(RetiredValue(flag, "cutlass_mla",
                   "the Blackwell CUTLASS MLA backend was retired in favour of trtllm_mla",
                   "0.5.20", "trtllm_mla",
                   "0.5.18 and 0.5.20 wheels: the choice lists; sgl-project/sglang#32111")
      for flag in _ATTENTION_FLAGS),
    *(RetiredValue(flag, "dual_chunk_flash_attn",
                   "the dual-chunk attention backend was removed, no replacement (models with "
                   "a dual_chunk_attention_config take the default backend)", "0.5.20",
                   source="0.5.18 and 0.5.20 wheels: the choice lists")
      for flag in _ATTENTION_FLAGS),
    # vLLM's loader for Marlin-serialized GPTQ checkpoints: 0.5.4 imported it from vLLM,
    # 0.5.10 and 0.5.18 still listed the choice with no loader registered, 0.5.20 not
    *(RetiredValue(flag, "marlin",
                   "the loader for Marlin-serialized checkpoints (vLLM's) was removed, no "
                   "replacement (the checkpoint's own quantization config applies)", "0.5.20",
                   source="0.5.4, 0.5.10, 0.5.18 and 0.5.20 wheels: the choice lists and "
                   "layers/quantization/__init__.py")
      for flag in _QUANT_FLAGS),
    # QServe's W4A8 method (sgl-project/sglang#6521): 0.5.15 lists it, 0.5.18 has neither
    # the choice nor layers/quantization/qoq.py (0.5.16 and 0.5.17 were not read)
    *(RetiredValue(flag, "qoq", "the QoQ (QServe W4A8) method was removed, no replacement",
                   "0.5.18", source="0.5.15 and 0.5.18 wheels: the choice lists")
      for flag in _QUANT_FLAGS),
    # the data-parallel dispatch policies by their first names: 0.5.4 still lists both
    # (shortest_queue routes to the rank with fewest requests, minimum_tokens fell back to
    # round robin), 0.5.10 has total_requests and total_tokens in their place (0.5.5 to 0.5.9
    # were not read)
    RetiredValue("--load-balance-method", "shortest_queue",
                 "the policy sending each request to the rank holding the fewest requests is "
                 "named total_requests", "0.5.10", "total_requests",
                 "0.5.4 and 0.5.10 wheels: the choice lists and "
                 "managers/data_parallel_controller.py; sgl-project/sglang#11469"),
    RetiredValue("--load-balance-method", "minimum_tokens",
                 "the policy sending each request to the rank holding the fewest tokens is "
                 "named total_tokens", "0.5.10", "total_tokens",
                 "0.5.4 and 0.5.10 wheels: the choice lists and "
                 "managers/data_parallel_controller.py; sgl-project/sglang#7379"),
    # SGLang's own NVFP4 CUTLASS GEMM: 0.5.10 and 0.5.15 list it, 0.5.18 not
    RetiredValue("--fp4-gemm-backend", "cutlass",
                 "SGLang's own NVFP4 CUTLASS GEMM was removed (FlashInfer's, another kernel, "
                 "is flashinfer_cutlass; without the flag auto picks per GPU)", "0.5.18",
                 source="0.5.10, 0.5.15 and 0.5.18 wheels: the choice lists"),
    # vLLM's SqueezeLLM loader: 0.3.0 and 0.3.1 list it, 0.3.6 not
    *(RetiredValue(flag, "squeezellm", "the SqueezeLLM method was removed, no replacement",
                   "0.3.6", source="0.3.1 and 0.3.6 wheels: the choice lists")
      for flag in _QUANT_FLAGS),
)}


def retired_value_hint(flag: str, value: object) -> str | None:
    """One clause for a choice error: what a value a release stopped taking became."""
    retired = RETIRED_VALUES.get((flag, str(value)))
    if retired is None:
        return None
    then = f"use {flag} {retired.new}" if retired.new else "drop it"
    return (f"{flag} {value} is an older SGLang value, which SGLang {retired.since} and later "
            f"refuse: {retired.note}; {then}")


#: The CP layout names of the retired mode flags, as --cp-strategy values.
_CP_LAYOUT = {"in-seq-split": "zigzag", "round-robin-split": "interleave"}
_CP_MODES = ("--nsa-prefill-cp-mode", "--dsa-prefill-cp-mode", "--prefill-cp-mode")
_CP_SWITCHES = {"--enable-nsa-prefill-context-parallel": "interleave",
                "--enable-dsa-prefill-context-parallel": "interleave",
                "--enable-prefill-context-parallel": "zigzag"}



def migration_hint(flag: str) -> str | None:
    """One clause for an error line: what an old flag became, or None if it is not one."""
    entry = MIGRATIONS.get(flag)
    if entry is None:
        return NOT_SGLANG.get(flag)
    if not entry.new:
        at = RELEASES.index(entry.since) if entry.since in RELEASES else 0
        if at:  # the last release with it is one launchplan models
            return (f"{entry.old} is a flag of SGLang {RELEASES[at - 1]}, removed in "
                    f"{entry.since} ({entry.note}): drop it")
        return (f"{entry.old} is an older SGLang flag, removed in {entry.since} "
                f"({entry.note}), no replacement: drop it")
    return (f"{entry.old} is an older SGLang flag (removed in {entry.since}; {entry.note}): "
            f"use {entry.new}")


def rewrite(argv: list[str], to: str | None = None,
            old: str | None = None) -> tuple[list[str], list[str]]:
    """(the command line in current flags, one note per change). Flags it does not know
    as old (or that release ``to`` still has) pass through unchanged; values keep their
    order. ``old`` is the release the line was written for, when known (a pasted text that
    names it): its flags decide what an abbreviation meant."""
    said: list[str] = []
    argv = _old_abbreviations(argv, to, old, said)
    argv, notes = _prefill_cp(argv)
    notes[:0] = said
    argv = _retired_values(argv, to, notes)
    out: list[str] = []
    spans: list[tuple[int, int, str]] = []  # (start, length, flag) of each replacement
    i = 0
    tp = _tp(argv)
    while i < len(argv):
        token = argv[i]
        flag, eq, inline = token.partition("=")
        entry = MIGRATIONS.get(flag)
        if entry is None or not gone_in(entry, to):
            out.append(token)
            i += 1
            continue
        values = [inline] if eq else []
        i += 1
        if not eq and entry.takes_value:
            while i < len(argv) and not argv[i].startswith("--"):
                values.append(argv[i])
                i += 1
                if entry.carry != "many":
                    break
        new = _replacement(entry, values, tp)
        spans.append((len(out), len(new), new[0] if new else ""))
        out.extend(new)
        said = f"{token}{' ' + ' '.join(values) if values and not eq else ''}"
        if new:
            notes.append(f"{said} -> {' '.join(new)}: {entry.note}")
        elif entry.new:  # a replacement whose value is the user's to choose
            notes.append(f"{said} dropped: {entry.note}; set {entry.new} yourself")
        else:
            notes.append(f"{said} dropped: removed in SGLang {entry.since}; {entry.note}")
    out = _one_replacement_per_flag(out, spans, notes)
    if to in RELEASES and "--attn-dp-size" not in release_table(to).flag_to_field:
        return out, notes  # 0.5.21 sizes attention DP only with --enable-dp-attention
    return _dp_attention(out, notes)


@functools.cache
def _old_surfaces() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(release, its flags sorted) for each wheel from 0.3.0 to 0.5.20, oldest first
    (``data/sglang-old-flags.json``, which ``tools/old_sglang_flags.py`` wrote)."""
    import json  # only for a line with an abbreviation

    data = json.loads((Path(__file__).parent / "data" / "sglang-old-flags.json").read_text())
    releases: list[str] = data["releases"]
    at = {release: i for i, release in enumerate(releases)}
    flags: list[list[str]] = [[] for _ in releases]
    for flag, (first, last) in data["flags"].items():
        for i in range(at[first], at[last] + 1):
            flags[i].append(flag)
    return tuple((release, tuple(sorted(f))) for release, f in zip(releases, flags))


def _spellings(flags: tuple[str, ...], typed: str) -> list[str]:
    """The flags ``typed`` names in a sorted flag list: itself, or those it abbreviates."""
    at = bisect_left(flags, typed)
    if at < len(flags) and flags[at] == typed:
        return [typed]
    found = []
    while at < len(flags) and flags[at].startswith(typed):
        found.append(flags[at])
        at += 1
    return found


def _reads(flags: tuple[str, ...], typed: str) -> bool:
    """Whether a release with these flags takes ``typed``: a retired flag only as itself
    (``--enable-flashinfer`` is no abbreviation), any other as itself or a unique prefix."""
    found = _spellings(flags, typed)
    return found == [typed] if typed in MIGRATIONS else len(found) == 1


def _old_abbreviations(argv: list[str], to: str | None, old: str | None,
                       notes: list[str]) -> list[str]:
    """Abbreviations spelled out as the old release read them. argparse took any unique
    prefix, and a prefix unique then may be ambiguous now (``--speculative-draft``) or name
    a newer flag (``--enable-ep``, ``--enable-eplb`` today, ``--enable-ep-moe`` in 0.4.6).
    The releases the line parses on (or the one ``old`` names) decide; a prefix that still
    reads as a flag today is spelled out only for a line that is old (``old`` given, or a
    retired flag in it), and only where every such release read it as one other flag."""
    from launchplan.input.cli import flags_of  # (cli imports this module's hints lazily)

    end = argv.index("--") if "--" in argv else len(argv)
    heads = [(i, argv[i].partition("=")[0]) for i in range(end)
             if argv[i].startswith("--") and len(argv[i]) > 2]
    if not heads:
        return argv
    surfaces = _old_surfaces()
    if old is not None:
        if not old[:1].isdigit() or _key(old) >= _key(RELEASES[0]):
            return argv  # a modeled rule set: the parser reads the line as that release did
        older = [s for s in surfaces if _key(s[0]) <= _key(old)]
        surfaces = (older[-1] if older else surfaces[0],)
    current = tuple(sorted(flags_of(to if to in RELEASES else RELEASES[-1])))
    line_is_old = old is not None or any(head in MIGRATIONS for _, head in heads)
    known = [(i, head) for i, head in heads
             if any(_reads(flags, head) for _, flags in surfaces)]
    out = list(argv)
    for i, head in heads:
        if head in MIGRATIONS or head in NOT_SGLANG:
            continue
        now = _spellings(current, head)
        if now == [head]:
            continue
        window = [(release, flags) for release, flags in surfaces
                  if all(_reads(flags, other) for j, other in known if j != i)]
        meant = {found[0] for _, flags in window or surfaces
                 if len(found := _spellings(flags, head)) == 1}
        if not meant or (len(now) == 1 and not meant - set(now)):
            continue  # no old release read it as one flag, or each read it as today
        release = to if to in RELEASES else RELEASES[-1]
        if len(now) == 1 and not line_is_old:  # nothing says the line is old: only a note
            then = "; ".join(f"SGLang {_read_as(head, full)} read it as {full}"
                             for full in sorted(meant - set(now)))
            notes.append(f"{head} kept: SGLang {release} reads it as {now[0]}; {then} (for a "
                         "line from then, write that flag out)")
            continue
        if len(meant) != 1:
            continue
        (full,) = meant
        today = ("finds it ambiguous" if len(now) > 1 else
                 f"reads it as {now[0]}" if now else "has no flag it abbreviates")
        out[i] = full + argv[i][len(head):]
        notes.append(f"{head} -> {full}: SGLang {_read_as(head, full)} read the abbreviation "
                     f"as {full}; SGLang {release} {today}")
    return out


def _read_as(typed: str, full: str) -> str:
    """The releases (as "first to last") whose parser read ``typed`` as ``full``."""
    read = [release for release, flags in _old_surfaces() if _spellings(flags, typed) == [full]]
    return f"{read[0]} to {read[-1]}" if len(read) > 1 else read[0]


def _one_replacement_per_flag(out: list[str], spans: list[tuple[int, int, str]],
                              notes: list[str]) -> list[str]:
    """Two retired flags rewritten to the same flag (``--enable-flashinfer-mla`` and
    ``--disable-flashinfer`` both name an attention backend) keep only the last: the one
    SGLang's parser would read, so the line says once what it runs."""
    last: dict[str, int] = {}
    for start, _, flag in spans:
        if flag:
            last[flag] = start
    drop = [(start, length, flag) for start, length, flag in spans
            if flag and last[flag] != start]
    for start, length, flag in reversed(drop):
        value = " ".join(out[start:start + length])
        notes.append(f"{value} left out: a later retired flag also sets {flag}, and the "
                     "parser keeps the last")
        del out[start:start + length]
    return out


def gone_in(entry: Migration | RetiredValue, to: str | None) -> bool:
    """Whether release ``to`` no longer has the entry's flag or value (the latest when not
    given)."""
    if to is None or to not in RELEASES:
        return True
    return _key(to) >= _key(entry.since)


def _retired_values(argv: list[str], to: str | None, notes: list[str]) -> list[str]:
    """A current flag given a value its release ``to`` refuses: the value's new name where it
    has one, else the flag goes (its default applies); and the retired backend and keys
    inside ``--cuda-graph-config``."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        flag, eq, inline = argv[i].partition("=")
        value = inline if eq else (argv[i + 1] if i + 1 < len(argv) else "")
        width = 1 if eq else 2
        retired = RETIRED_VALUES.get((flag, value))
        if retired is not None and gone_in(retired, to):
            if retired.new:
                out += [f"{flag}={retired.new}"] if eq else [flag, retired.new]
                notes.append(f"{flag} {value} -> {flag} {retired.new}: {retired.note}")
            else:
                notes.append(f"{flag} {value} dropped: {retired.note}")
            i += width
            continue
        if flag == "--cuda-graph-config" and value.startswith("{"):
            config = _graph_config(value, to, notes)
            if config is None:
                i += width
                continue
            out += [f"{flag}={config}"] if eq else [flag, config]
            i += width
            continue
        out.append(argv[i])
        i += 1
    return out


def _graph_config(text: str, to: str | None, notes: list[str]) -> str | None:
    """A --cuda-graph-config JSON without what ``to`` refuses; None when nothing is left."""
    import json  # only for a line that sets the graph config

    try:
        config = json.loads(text)
    except ValueError:
        return text
    if not isinstance(config, dict):
        return text
    changed = False
    for phase, settings in list(config.items()):
        if not isinstance(settings, dict):
            continue
        if "tc_compiler" in settings and gone_in(MIGRATIONS["--cuda-graph-tc-compiler"], to):
            del settings["tc_compiler"]  # the config key of the flag, gone with it
            changed = True
        retired = RETIRED_VALUES.get((f"--cuda-graph-backend-{phase}", str(settings.get(
            "backend"))))
        if retired is not None and gone_in(retired, to):
            del settings["backend"]
            changed = True
        if not settings:
            del config[phase]
    if not changed:
        return text
    notes.append(f"--cuda-graph-config {text} -> {json.dumps(config) if config else '(dropped)'}"
                 ": the tc_piecewise backend and its tc_compiler key were removed in 0.5.22")
    return json.dumps(config) if config else None


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split(".") if part.isdigit())


def _prefill_cp(argv: list[str]) -> tuple[list[str], list[str]]:
    """The retired context-parallel switches and mode flags as ``--enable-prefill-cp
    --cp-strategy S``: a mode given with the switch picks S, in place of the switch's
    old default layout."""
    switch = next((t for t in argv if t in _CP_SWITCHES), None)
    mode_at = next((i for i, t in enumerate(argv) if t.partition("=")[0] in _CP_MODES), None)
    if switch is None and mode_at is None:
        return argv, []
    layout, mode_words = None, []
    if mode_at is not None:
        name, eq, value = argv[mode_at].partition("=")
        if not eq and mode_at + 1 < len(argv):
            value = argv[mode_at + 1]
        mode_words = argv[mode_at:mode_at + (1 if eq else 2)]
        layout = _CP_LAYOUT.get(value, value)
    out = [t for i, t in enumerate(argv) if mode_at is None
           or not mode_at <= i < mode_at + len(mode_words)]
    if switch is None:
        at = mode_at
        new = ["--cp-strategy", str(layout)]
    else:
        at = out.index(switch)
        out.remove(switch)
        new = ["--enable-prefill-cp", "--cp-strategy", layout or _CP_SWITCHES[switch]]
    out[at:at] = new
    old = " ".join([*([switch] if switch else []), *mode_words])
    entry = MIGRATIONS[switch or mode_words[0].partition("=")[0]]
    return out, [f"{old} -> {' '.join(new)}: {entry.note}"]


def _replacement(entry: Migration, values: list[str], tp: str) -> list[str]:
    """The flags that replace ``entry.old`` given with ``values``; [] when the flag goes
    (removed outright, or its replacement's value is the user's to choose)."""
    if entry.old == "--enable-ep-moe":
        return ["--ep-size", tp]
    words = entry.new.split()
    if not words:
        return []
    if entry.carry:
        renamed = dict(entry.values)
        return [words[0], *(renamed.get(v, v) for v in values)]
    if "N" in words:
        return []
    return words


def _tp(argv: list[str]) -> str:
    for i, token in enumerate(argv):
        flag, eq, inline = token.partition("=")
        if flag in ("--tp", "--tp-size", "--tensor-parallel-size"):
            if eq:
                return inline
            if i + 1 < len(argv):
                return argv[i + 1]
    return "1"


def _dp_attention(argv: list[str], notes: list[str]) -> tuple[list[str], list[str]]:
    """``--enable-dp-attention`` with ``--dp N``: the older spelling of ``--attn-dp-size N``.
    ``--dp``, ``--dp-size`` and ``--data-parallel-size`` set one field, the last one given
    wins, so every one of them goes and the last value is the size."""
    if "--enable-dp-attention" not in argv:
        return argv, notes
    out: list[str] = []
    said: list[str] = []
    value = None
    i = 0
    while i < len(argv):
        name, eq, inline = argv[i].partition("=")
        if argv[i] == "--enable-dp-attention":
            i += 1
            continue
        if name in ("--dp", "--dp-size", "--data-parallel-size"):
            value = inline if eq else (argv[i + 1] if i + 1 < len(argv) else "1")
            said.append(f"{name} {value}")
            i += 1 if eq else 2
            continue
        out.append(argv[i])
        i += 1
    if value is None:
        notes.append("--enable-dp-attention without --dp-size: it has no effect; use "
                     "--attn-dp-size N")
        return out, notes
    out += ["--attn-dp-size", value]
    notes.append(f"--enable-dp-attention {' '.join(said)} -> --attn-dp-size {value}: attention "
                 "data parallelism has its own size; --dp-size now counts whole replicas")
    return out, notes
