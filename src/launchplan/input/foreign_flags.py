"""Flags pasted from another server's command line, and what SGLang calls them.

Deployment notes often switch engines by swapping ``vllm serve`` for ``sglang serve`` and
keep the rest (``--max-model-len 8192 --gpu-memory-utilization 0.9``), and people write
Python-style ``--max_model_len``. SGLang's parser refuses both; a spelling-based
did-you-mean then points somewhere unrelated (``--max-model-len`` is closest to
``--model-impl``). For these the SGLang flag is known, so the error names it.

The vLLM flags are those of vLLM's engine arguments (docs.vllm.ai, "Engine Arguments");
each maps to the SGLang server flag with the same role, and the note says where the two
differ in meaning.
"""

from __future__ import annotations

from collections.abc import Collection

#: vLLM flag -> (SGLang flag(s), how they differ; empty when they mean the same).
VLLM: dict[str, tuple[str, str]] = {
    "--max-model-len": ("--context-length N", ""),
    "--gpu-memory-utilization": (
        "--mem-fraction-static F",
        "SGLang's fraction covers weights and KV cache, not activations"),
    "--max-num-seqs": ("--max-running-requests N", ""),
    "--max-num-batched-tokens": ("--chunked-prefill-size N (and --max-prefill-tokens N)", ""),
    "--enforce-eager": ("--disable-cuda-graph", ""),
    "--block-size": ("--page-size N", ""),
    "--enable-prefix-caching": ("nothing", "SGLang's radix cache is on by default"),
    "--no-enable-prefix-caching": ("--disable-radix-cache", ""),
    "--enable-chunked-prefill": ("nothing", "SGLang chunks prefills by default, "
                                 "--chunked-prefill-size sets the chunk"),
    "--enable-auto-tool-choice": ("--tool-call-parser NAME", "SGLang needs only the parser"),
    "--guided-decoding-backend": ("--grammar-backend NAME", ""),
    "--seed": ("--random-seed N", ""),
    "--hf-overrides": ("--json-model-override-args JSON", ""),
    "--distributed-executor-backend": ("nothing", "SGLang starts its own processes"),
    "--swap-space": ("nothing", "SGLang has no CPU swap space; see --enable-hierarchical-cache"),
    "--disable-log-requests": ("nothing", "SGLang logs no requests unless --log-requests"),
}


def foreign_hint(flag: str, known: Collection[str]) -> str | None:
    """One clause for an error line about an unknown ``flag``: the SGLang spelling of a
    vLLM flag, the dashed form of an underscored flag SGLang has, or the two-dash form of
    a long flag written with one (``-dp 4``, ``-tp 2``: SGLang has no short options, so
    its parser refuses them); None otherwise."""
    if flag[:1] == "-" and flag[1:2].isalpha() and len(flag) > 2:
        long = "-" + flag.replace("_", "-")
        # argparse takes a unique prefix (``--dp`` for ``--dp-size``), so such a one is meant
        if long in known or len([k for k in known if k.startswith(long)]) == 1:
            return f"SGLang's flags are written with two dashes: {long}"
        return None
    dashed = "--" + flag[2:].replace("_", "-") if flag.startswith("--") else flag
    if dashed != flag and dashed in known:
        return f"SGLang's flags are written with dashes: {dashed}"
    entry = VLLM.get(dashed)
    if entry is None:
        return None
    new, note = entry
    said = f"{flag} is a vLLM flag"
    if new == "nothing":
        return f"{said}; SGLang needs none: {note}"
    return f"{said}: use {new}" + (f"; {note}" if note else "")
