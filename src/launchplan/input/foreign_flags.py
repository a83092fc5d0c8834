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


#: The flags of SGLang Diffusion's server (``sglang serve`` starts it for a diffusion
#: model: FLUX, Wan, Qwen-Image, ...) that the language-model server's parser refuses, as
#: SGLang 0.5.23 names them (``sglang/multimodal_gen/runtime/server_args``). A launch of that
#: server pasted here fails on the first of them; a did-you-mean would point at an unrelated
#: language-model flag (``--text-encoder-cpu-offload`` is closest to ``--cpu-offload-gb``).
DIFFUSION: frozenset[str] = frozenset({
    "--allow-bf16-reduced-precision-reduction", "--allow-cudnn-tf32", "--async-output-save",
    "--attention-backend-config", "--backend", "--batching-config", "--batching-delay-ms",
    "--batching-max-size", "--batching-mode", "--bcg-text-buckets", "--cache-dit-config",
    "--cfg-parallel-size", "--component-attention-backends", "--component-residency",
    "--conditioning-cache-max-size-mb", "--cpu-offload-components",
    "--direct-gpu-weight-loading", "--disable-autocast", "--disable-conditioning-cache",
    "--dit-cpu-offload", "--dit-layerwise-offload", "--dit-layerwise-residency-lifetime",
    "--dit-layerwise-residency-policy", "--dit-layerwise-resident-layers",
    "--dit-offload-prefetch-size", "--enable-batching-metrics",
    "--enable-breakable-cuda-graph", "--enable-cfg-parallel", "--encoder-parallel",
    "--gpu-ids", "--hsdp-replicate-dim", "--hsdp-shard-dim",
    "--http-graceful-shutdown-timeout", "--image-encoder-cpu-offload", "--input-save-path",
    "--kv-cache-quant", "--kv-cache-quant-asymmetric", "--kv-cache-quant-block-size",
    "--kv-cache-quant-centroids", "--kv-cache-quant-iters", "--kv-cache-quant-keep-recent",
    "--kv-cache-quant-sink", "--kv-cache-quant-sink-keep", "--kv-cache-quant-stages",
    "--kv-gather-degree", "--layerwise-offload-components", "--layerwise-offload-modules",
    "--layerwise-prefetch-size", "--layerwise-residency-lifetime",
    "--layerwise-residency-policy", "--layerwise-resident-layers", "--load-diffusion-decoder",
    "--lora-alpha", "--lora-merge-mode", "--lora-nickname", "--lora-scale",
    "--lora-weight-name", "--ltx2-two-stage-device-mode", "--mask-strategy-file-path",
    "--master-port", "--minimax-h3-adaln-cache-path", "--minimax-h3-adaln-host-cache-gb",
    "--minimax-h3-adaln-online", "--minimax-h3-adaln-plan-width", "--model-id",
    "--model-subfolder", "--model-variant", "--num-gpus", "--offload-during-compile",
    "--output-path", "--pe-server-url", "--performance-mode", "--pin-cpu-memory",
    "--pipeline-class-name", "--prompt-enhancer-config", "--prompt-file-path",
    "--quantization-ignored-layers", "--regional-compile", "--ring-degree",
    "--scheduler-port", "--scheduler-rpc-timeout", "--sp-degree",
    "--srt-encoder-connection-timeout", "--srt-encoder-timeout", "--srt-encoder-url",
    "--strict-ports", "--text-encoder-cpu-offload", "--ulysses-degree",
    "--use-fsdp-inference", "--vae-cpu-offload", "--warmup-mode", "--warmup-num-frames",
    "--warmup-resolutions", "--warmup-sampling-params", "--warmup-steps", "--webui",
    "--webui-port",
})


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
    if dashed in DIFFUSION:
        return (f"{flag} is a flag of SGLang Diffusion's server, which sglang serve starts "
                "for a diffusion model; launchplan plans the language-model server")
    entry = VLLM.get(dashed)
    if entry is None:
        return None
    new, note = entry
    said = f"{flag} is a vLLM flag"
    if new == "nothing":
        return f"{said}; SGLang needs none: {note}"
    return f"{said}: use {new}" + (f"; {note}" if note else "")
