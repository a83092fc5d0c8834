"""Flags people still paste from older SGLang releases, and what each became.

A did-you-mean guesses by spelling and may point the opposite way (``--enable-flashinfer-moe``
is closest to ``--disable-flashinfer-autotune``); for a retired or split flag the exact
replacement is known, so the error says it. Each entry: the old flag, the flags that replace
it (``N`` where a value is the user's to choose; nothing for a flag removed outright), what
happened to it, and the release that stopped accepting it when that is one launchplan
models (older ones were gone before 0.5.21).
"""

from __future__ import annotations

from typing import NamedTuple

from launchplan.input.fields import RELEASES


class Migration(NamedTuple):
    old: str
    new: str  # the replacement, as flags; "" for a flag removed without one
    note: str  # what changed, in a few words
    since: str = ""  # the first release without the flag ("" = before 0.5.21)
    takes_value: bool = False  # a removed flag's value goes with it


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
    # sgl-project/sglang#27418 renamed the hybrid (mamba) models' cache strategy; 0.5.21 to
    # 0.5.23 accept only the new name (a later main takes the old one as an alias, #37960)
    Migration("--mamba-scheduler-strategy", "--mamba-radix-cache-strategy N",
              "renamed: it picks how the mamba state is kept for the radix cache"),
    # sgl-project/sglang#25821 renamed NSA to DSA (DeepSeek Sparse Attention); 0.5.21 to
    # 0.5.23 accept only the --dsa-* flags (the "nsa" attention backend stays an alias)
    Migration("--nsa-prefill-backend", "--dsa-prefill-backend N", "NSA was renamed DSA"),
    Migration("--nsa-decode-backend", "--dsa-decode-backend N", "NSA was renamed DSA"),
    # sgl-project/sglang#27312 merged the context-parallel switches into --enable-prefill-cp
    # with --cp-strategy; the DSA mode round-robin-split (its default, #26179) is interleave
    # and in-seq-split is zigzag (#27252)
    Migration("--enable-nsa-prefill-context-parallel",
              "--enable-prefill-cp --cp-strategy interleave",
              "prefill context parallelism is one switch with a strategy; the old default "
              "round-robin-split layout is interleave"),
    Migration("--enable-dsa-prefill-context-parallel",
              "--enable-prefill-cp --cp-strategy interleave",
              "prefill context parallelism is one switch with a strategy; the old default "
              "round-robin-split layout is interleave"),
    Migration("--enable-prefill-context-parallel", "--enable-prefill-cp --cp-strategy zigzag",
              "prefill context parallelism is one switch with a strategy; the in-seq-split "
              "layout is zigzag"),
    Migration("--nsa-prefill-cp-mode", "--cp-strategy zigzag|interleave",
              "the layout is --cp-strategy: in-seq-split is zigzag, round-robin-split "
              "interleave"),
    Migration("--dsa-prefill-cp-mode", "--cp-strategy zigzag|interleave",
              "the layout is --cp-strategy: in-seq-split is zigzag, round-robin-split "
              "interleave"),
    Migration("--prefill-cp-mode", "--cp-strategy zigzag|interleave",
              "the layout is --cp-strategy: in-seq-split is zigzag, round-robin-split "
              "interleave"),
    # the piecewise (torch.compile) prefill CUDA graph became on by default
    # (sgl-project/sglang#16331), then one of the prefill graph backends (#23906); the
    # breakable backend is the default prefill graph since (#23004), and an explicitly named
    # prefill backend is what --enforce-piecewise-cuda-graph used to ask for (0.5.21's
    # cuda_graph_hook.apply_cuda_graph_compatibility)
    Migration("--enable-piecewise-cuda-graph", "--cuda-graph-backend-prefill breakable",
              "prefill CUDA graphs are on by default; the prefill graph backend names them"),
    Migration("--enforce-piecewise-cuda-graph", "--cuda-graph-backend-prefill breakable",
              "naming the prefill graph backend keeps it from being switched off"),
    Migration("--disable-piecewise-cuda-graph", "--cuda-graph-backend-prefill disabled",
              "the prefill CUDA graph is switched off by its backend"),
    # removed between 0.5.21 and 0.5.23 (the three releases' flag sets, diffed): 0.5.22's
    # CUDA-graph config refuses the tc_piecewise backend and its compiler key as removed
    Migration("--cuda-graph-tc-compiler", "",
              "it chose the compiler of the tc_piecewise CUDA-graph backend, removed with it "
              "(prefill graphs: --cuda-graph-backend-prefill breakable, full or disabled)",
              since="0.5.22", takes_value=True),
    # 0.5.23's scheduler always runs that extra sync with speculative decoding and DP
    # attention, unless SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION=1 (0.5.22 and 0.5.23's
    # scheduler.py, the batch-merge step)
    Migration("--speculative-skip-dp-mlp-sync", "",
              "the extra DP MLP sync with speculative decoding is no longer optional "
              "(SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION=1 is the one way around it, for "
              "single-layer EAGLE, EAGLE3 or DSPARK)", since="0.5.23"),
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
        last = RELEASES[RELEASES.index(entry.since) - 1]
        return (f"{entry.old} is a flag of SGLang {last}, removed in {entry.since} "
                f"({entry.note}): drop it")
    return f"{entry.old} is an older SGLang flag ({entry.note}): use {entry.new}"


#: Old flags whose value is carried over to the replacement flag unchanged.
_RENAMED_WITH_VALUE = ("--mamba-scheduler-strategy", "--nsa-prefill-backend",
                       "--nsa-decode-backend")


def rewrite(argv: list[str], to: str | None = None) -> tuple[list[str], list[str]]:
    """(the command line in current flags, one note per change). Flags it does not know
    as old (or that release ``to`` still has) pass through unchanged; values keep their
    order."""
    argv, notes = _prefill_cp(argv)
    out: list[str] = []
    i = 0
    tp = _tp(argv)
    while i < len(argv):
        token = argv[i]
        flag, eq, inline = token.partition("=")
        entry = MIGRATIONS.get(flag)
        if entry is None or not _gone(entry, to):
            out.append(token)
            i += 1
            continue
        values = [inline] if eq else []
        i += 1
        many = flag == "--cuda-graph-bs"
        if not eq and (many or flag in _RENAMED_WITH_VALUE or flag == "--cuda-graph-max-bs"
                       or entry.takes_value):
            while i < len(argv) and not argv[i].startswith("--"):
                values.append(argv[i])
                i += 1
                if not many:
                    break
        new = _replacement(flag, values, tp)
        out.extend(new)
        said = f"{token}{' ' + ' '.join(values) if values and not eq else ''}"
        if new:
            notes.append(f"{said} -> {' '.join(new)}: {entry.note}")
        else:
            notes.append(f"{said} dropped: removed in SGLang {entry.since}; {entry.note}")
    return _dp_attention(out, notes)


def _gone(entry: Migration, to: str | None) -> bool:
    """Whether release ``to`` no longer has the entry's flag (the latest when not given)."""
    if not entry.since or to is None or to not in RELEASES:
        return True
    return RELEASES.index(to) >= RELEASES.index(entry.since)


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


def _replacement(flag: str, values: list[str], tp: str) -> list[str]:
    if flag == "--cuda-graph-max-bs":
        return ["--cuda-graph-max-bs-decode", *values]
    if flag == "--cuda-graph-bs":
        return ["--cuda-graph-bs-decode", *values]
    if flag == "--enable-ep-moe":
        return ["--ep-size", tp]
    if flag == "--disable-flashinfer":
        return ["--attention-backend", "triton", "--sampling-backend", "pytorch"]
    if flag in _RENAMED_WITH_VALUE:
        return [MIGRATIONS[flag].new.split()[0], *values]
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
