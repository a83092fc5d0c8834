"""Flags people still paste from older SGLang releases, and what each became.

A did-you-mean guesses by spelling and may point the opposite way (``--enable-flashinfer-moe``
is closest to ``--disable-flashinfer-autotune``); for a retired or split flag the exact
replacement is known, so the error says it. Each entry: the old flag, the flags that replace
it (``N`` where a value is the user's to choose), and what happened to it.
"""

from __future__ import annotations

from typing import NamedTuple


class Migration(NamedTuple):
    old: str
    new: str  # the replacement, as flags
    note: str  # what changed, in a few words


MIGRATIONS: dict[str, Migration] = {m.old: m for m in (
    Migration("--cuda-graph-max-bs", "--cuda-graph-max-bs-decode N",
              "split per CUDA-graph phase; the old flag sized the decode graphs"),
    Migration("--cuda-graph-bs", "--cuda-graph-bs-decode N [N ...]",
              "split per CUDA-graph phase; the old flag listed the decode batch sizes"),
    Migration("--enable-ep-moe", "--ep-size N (N = --tp-size)",
              "expert parallelism is sized, not switched on"),
    Migration("--enable-flashinfer-moe", "--moe-runner-backend flashinfer_cutlass",
              "renamed --enable-flashinfer-cutlass-moe, then folded into the MoE runner choice"),
    Migration("--enable-flashinfer-cutlass-moe", "--moe-runner-backend flashinfer_cutlass",
              "folded into the MoE runner choice"),
    Migration("--enable-flashinfer-trtllm-moe", "--moe-runner-backend flashinfer_trtllm",
              "folded into the MoE runner choice"),
    Migration("--disable-flashinfer", "--attention-backend triton --sampling-backend pytorch",
              "retired; it meant the triton attention kernels and PyTorch sampling"),
)}


def migration_hint(flag: str) -> str | None:
    """One clause for an error line: what an old flag became, or None if it is not one."""
    entry = MIGRATIONS.get(flag)
    if entry is None:
        return None
    return f"{entry.old} is an older SGLang flag ({entry.note}): use {entry.new}"
