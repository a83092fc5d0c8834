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
    # SGLang's docs, "Deprecated Features, Server Arguments and Environment Variables" (its
    # MoE runner backend table), list these with their replacements
    Migration("--enable-deepep-moe", "--moe-a2a-backend deepep",
              "DeepEP became one of the MoE all-to-all backends"),
    Migration("--enable-flashinfer-cutedsl-moe", "--moe-runner-backend flashinfer_cutedsl",
              "folded into the MoE runner choice"),
    Migration("--enable-triton-kernel-moe", "--moe-runner-backend triton_kernel",
              "folded into the MoE runner choice"),
    Migration("--enable-flashinfer-mxfp4-moe", "--moe-runner-backend flashinfer_mxfp4",
              "folded into the MoE runner choice"),
    # sgl-project/sglang#5480 replaced the MLA switches with attention backends
    Migration("--enable-flashinfer-mla", "--attention-backend flashinfer",
              "the FlashInfer MLA kernels are the flashinfer attention backend"),
    Migration("--enable-flashmla", "--attention-backend flashmla",
              "FlashMLA became an attention backend"),
    # sgl-project/sglang#2065 retired the sampling switch with --disable-flashinfer
    Migration("--disable-flashinfer-sampling", "--sampling-backend pytorch",
              "the sampling kernels are chosen with --sampling-backend"),
)}


def migration_hint(flag: str) -> str | None:
    """One clause for an error line: what an old flag became, or None if it is not one."""
    entry = MIGRATIONS.get(flag)
    if entry is None:
        return None
    return f"{entry.old} is an older SGLang flag ({entry.note}): use {entry.new}"


def rewrite(argv: list[str]) -> tuple[list[str], list[str]]:
    """(the command line in current flags, one note per change). Flags it does not know
    as old pass through unchanged; values keep their order."""
    out: list[str] = []
    notes: list[str] = []
    i = 0
    tp = _tp(argv)
    while i < len(argv):
        token = argv[i]
        flag, eq, inline = token.partition("=")
        entry = MIGRATIONS.get(flag)
        if entry is None:
            out.append(token)
            i += 1
            continue
        values = [inline] if eq else []
        i += 1
        if flag in ("--cuda-graph-max-bs", "--cuda-graph-bs") and not eq:
            while i < len(argv) and not argv[i].startswith("--"):
                values.append(argv[i])
                i += 1
                if flag == "--cuda-graph-max-bs":
                    break
        new = _replacement(flag, values, tp)
        out.extend(new)
        notes.append(f"{token}{' ' + ' '.join(values) if values and not eq else ''} -> "
                     f"{' '.join(new)}: {entry.note}")
    return _dp_attention(out, notes)


def _replacement(flag: str, values: list[str], tp: str) -> list[str]:
    if flag == "--cuda-graph-max-bs":
        return ["--cuda-graph-max-bs-decode", *values]
    if flag == "--cuda-graph-bs":
        return ["--cuda-graph-bs-decode", *values]
    if flag == "--enable-ep-moe":
        return ["--ep-size", tp]
    if flag == "--disable-flashinfer":
        return ["--attention-backend", "triton", "--sampling-backend", "pytorch"]
    return MIGRATIONS[flag].new.split()


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
    """``--enable-dp-attention`` with ``--dp N``: the older spelling of ``--attn-dp-size N``."""
    if "--enable-dp-attention" not in argv:
        return argv, notes
    out = [t for t in argv if t != "--enable-dp-attention"]
    for flag in ("--dp", "--dp-size", "--data-parallel-size"):
        for i, token in enumerate(out):
            name, eq, inline = token.partition("=")
            if name != flag:
                continue
            value = inline if eq else (out[i + 1] if i + 1 < len(out) else "1")
            del out[i:i + (1 if eq else 2)]
            out += ["--attn-dp-size", value]
            notes.append(f"--enable-dp-attention {flag} {value} -> --attn-dp-size {value}: "
                         "attention data parallelism has its own size; --dp-size now counts "
                         "whole replicas")
            return out, notes
    notes.append("--enable-dp-attention without --dp-size: it has no effect; use "
                 "--attn-dp-size N")
    return out, notes
