"""The KV-pool parity cases: every bundled model under the launches that change its pool.

Used by ``record_kv_pool.py --generate`` (which writes ``tests/parity/data/kv-pool-cases.json``);
rerun it after adding models under ``src/launchplan/facts/data/models/`` and record again.

Per model: every KV dtype the model's attention can take (auto, bf16, fp8_e4m3, fp8_e5m2 at
tp 1/2/4/8; nvfp4, fp4_mx_block16 and mxfp8 on a B200), page sizes, ``--max-total-tokens``
and ``--max-running-requests`` caps, a short context, attention DP, small and exhausted
budgets, and the speculative launches it supports (EAGLE/EAGLE3 with the bundled Llama
drafts, MTP/NEXTN for models with next-token layers). Hybrid sliding-window models add
the SWA ratio, the request-capped SWA pool and ``--disable-hybrid-swa-memory``.

Then every parity-suite model config (``tests/parity/models/``: DSA indexers, linear
attention and Mamba state, sliding-window hybrids, MLA variants, compressed and shared KV)
under a shorter list of launches, plus the state-cache and SWA launches where they apply,
and for DeepSeek-V4's compressed pools the B200 layouts, the trtllm backend, MTP, a bf16
compress state, no prefix tails and a large request count. Last, the shipped Hub configs
(``shipped/<ORG--NAME>``) whose architecture or config shape none of those covers, under the
same launches (``SHIPPED`` says why each is there), appended after the others: record
just them (a cases file of that subset, or ``record_kv_pool.py --only <ORG--NAME>``) and
merge the rows into the results in case order.

The memory figures are inputs, not claims about a real launch: ``before_load_bytes`` is the
GPU's memory less a nominal 1.5 GiB of context and buffers, ``weights_bytes`` a share of it
chosen per case so that budgets of every size (and a few non-positive ones) occur.
"""
from __future__ import annotations

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
BUNDLED = os.path.join(ROOT, "src", "launchplan", "facts", "data", "models")
#: Test-only model configs (architectures no bundled model has yet), named by their path
#: from the repository root. qwen3-coder-next: Qwen/Qwen3-Coder-Next's config.json (the
#: fields that shape its memory; quantization_config left out), a gated-delta-net hybrid.
FIXTURES = os.path.join("tests", "parity", "data", "models")
#: The parity suites' model configs (published and synthetic, ``tests/parity/models/README.md``
#: says which): the architectures no bundled model has (DSA indexers, linear attention and
#: Mamba state, sliding-window hybrids, MLA variants, compressed and shared KV), each under a
#: shorter list of launches (``_architecture_cases``).
PARITY_MODELS = os.path.join("tests", "parity", "models")
#: The Hub configs launchplan ships (``src/launchplan/facts/data/hub/``), named
#: ``shipped/<ORG--NAME>`` like the other suites name them. Only those whose architecture or
#: config shape no bundled, fixture or parity model covers, each under the parity models'
#: launches, and why each one is there:
SHIPPED_DIR = os.path.join("src", "launchplan", "facts", "data", "hub")
SHIPPED_PREFIX = "shipped/"
SHIPPED: dict[str, str] = {
    "stepfun-ai--Step-3.7-Flash": "Step-3.7's architecture (Step3p7FlashForCausalLM)",
    "nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-NVFP4": "Nemotron-H by layers_block_type "
                                                       "alone, with a ModelOpt FP8 KV cache",
    "nvidia--Nemotron-H-56B-Base-8K": "Nemotron-H without MoE (Mamba, attention, MLP only)",
    "Qwen--Qwen3-VL-2B-Instruct": "a published dense Qwen3-VL (only a synthetic one before)",
    "Qwen--Qwen3-32B-FP8-Static-PerTensor": "an FP8 KV cache from compressed-tensors' "
                                            "kv_cache_scheme",
    "nvidia--Llama-3.1-70B-Instruct-FP8": "a dense GQA model with a ModelOpt FP8 KV cache",
    "nvidia--Qwen3.6-27B-NVFP4": "gated delta net with a ModelOpt FP8 KV cache",
    "nvidia--GLM-5.1-NVFP4": "a DSA indexer with a ModelOpt FP8 KV cache",
}
#: Shipped configs of an uncovered architecture left out, and why.
SHIPPED_NOT_SIZED: dict[str, str] = {
    "nvidia--Llama-3_3-Nemotron-Super-49B-v1": "DeciLM's config class is the checkpoint's own "
    "code (auto_map), which the shipped folder does not hold: SGLang cannot load the config",
}
MIB = 1 << 20
GIB = 1 << 30
MEM_MIB = {"a100": 81920, "h100": 81559, "h200": 143771, "b200": 183359, "mi300x": 196592,
           "rtx5090": 32607, "gb200": 189471, "b300": 275040, "mi355x": 294896}
GPUS = {"gb200": 4, "rtx5090": 1}  # others have 8
DRAFT_ARCHS = ("LlamaForCausalLMEagle", "LlamaForCausalLMEagle3")


#: Bundled models the recording harness cannot size, and why (their sizing is still written
#: from SGLang's code, but no recording backs it).
NOT_RECORDABLE: dict[str, str] = {}
#: Parity-suite models left out of the KV-pool cases, and why.
NOT_SIZED: dict[str, str] = {
    "gemma-4-assistant-synth": "a draft-only checkpoint (its layers all share the target's KV)",
    # DFLASH/DSPARK drafts: sized as the drafts of their targets (``_own_pool_draft_cases``)
    **dict.fromkeys(("qwen3-8b-dflash-b16", "qwen3-4b-dflash-b16", "qwen3.5-35b-a3b-dflash",
                     "qwen3-8b-dspark", "deepseek-v2-lite-dflash"),
                    "a DFLASH-family draft checkpoint (sized with its target)"),
    "iquest-q1-mtp-synth": "a draft-only checkpoint (the MTP head of IQuest-Q1)",
    # SGLang 0.5.23 stops while sizing these test configs (each case, each flag): the
    # synthetic files lack a key the pool code reads and the config class does not default.
    "nemotron-h-synth": "NemotronHConfig has no attribute 'n_groups' (the state shape reads it)",
    "interns2-mobius-synth": "its text config has no 'full_attention_interval'",
    "minicpm-v-4.6-synth": "its Qwen3.5 text config has no 'full_attention_interval'",
    "iquest-q1-synth": "hybrid SWA without a sliding-window layer (SGLang asserts one)",
    "minimax-m3-synth": "no sparse-attention config (SGLang's MiniMax-M3 pool needs one)",
    "inkling-synth": "the harness's stand-in model has no 'text_config' for its hybrid pools",
    "iquest-q1-mtp-wide-synth": "a draft-only checkpoint (an IQuest-Q1 MTP head)",
    "iquest-q1-mtp-deep-synth": "a draft-only checkpoint (an IQuest-Q1 MTP head)",
    # SGLang stops on the published file too: its Mamba2Config reads intermediate_size, which
    # transformers never sets (preflight's mamba2-state-shape row says so)
    "mamba-codestral-7b": "Mamba2Config has no attribute 'intermediate_size'",
    # the harness's CUDA host refuses plain gptq: sgl_kernel's scalar types are stubs there,
    # so SGLang's Marlin support probe fails and its gptq -> gptq_marlin override never fires
    # (a real SM80+ host converts these checkpoints, as launchplan plans them)
    "qwen2.5-7b-instruct-gptq-int4": "the recording host refuses plain gptq (Marlin probe)",
    "qwen3-30b-a3b-gptq-int4": "the recording host refuses plain gptq (Marlin probe)",
}


def _configs() -> dict[str, dict]:
    out = {}
    for folder, prefix in ((BUNDLED, ""), (os.path.join(ROOT, FIXTURES), FIXTURES + "/")):
        for name in sorted(os.listdir(folder)):
            if name in NOT_RECORDABLE:
                continue
            path = os.path.join(folder, name, "config.json")
            if os.path.isfile(path):
                with open(path) as f:
                    out[prefix + name] = json.load(f)
    return out


def _text(config: dict) -> dict:
    return config.get("text_config") or config


def _case(name, platform, model, argv, share, *, env=None):
    before = MEM_MIB[platform] * MIB - 1536 * MIB
    case = {"name": name, "platform": platform, "model": model, "argv": list(argv),
            "before_load_bytes": before, "weights_bytes": int(before * share)}
    if env:
        case["env"] = env
    return case


def _tp_sizes(config: dict) -> list[int]:
    text = _text(config)
    heads = text.get("num_attention_heads") or 1
    return [tp for tp in (1, 2, 4, 8) if heads % tp == 0]


def _is_mla(config: dict) -> bool:
    return _text(config).get("kv_lora_rank") is not None


def generate() -> list[dict]:
    configs = _configs()
    drafts = {n for n, c in configs.items() if set(c.get("architectures") or ()) & set(DRAFT_ARCHS)}
    cases: list[dict] = []
    shares = (0.12, 0.35, 0.55, 0.2, 0.7, 0.45, 0.28, 0.6)
    for model, config in configs.items():
        if model in drafts:
            continue
        text = _text(config)
        tps = _tp_sizes(config)
        k = 0

        def add(detail, platform, argv, share=None, env=None, model=model):
            nonlocal k
            share = shares[k % len(shares)] if share is None else share
            k += 1
            label = model.rsplit("/", 1)[-1]
            cases.append(_case(f"kv/{label}/{platform}/{detail}", platform, model, argv,
                               share, env=env))

        for dtype in ("auto", "fp8_e4m3", "fp8_e5m2"):
            for tp in tps:
                add(f"{dtype}/tp{tp}", "h100", ["--tp-size", tp, "--kv-cache-dtype", dtype],
                    shares[(k + tp) % len(shares)] / tp)
        add("bf16/tp1", "a100", ["--kv-cache-dtype", "bf16"])
        if (config.get("quantization_config") or {}).get("quant_method") != "mxfp4":
            # (SGLang has no MXFP4 weights on ROCm: such a launch fails before the KV pool)
            add("auto/mi300x/tp2", "mi300x",
                ["--tp-size", min(2, tps[-1]), "--kv-cache-dtype", "fp8_e4m3"])
        for dtype in ("nvfp4", "fp4_mx_block16"):
            for tp in tps[:2]:
                add(f"{dtype}/tp{tp}", "b200", ["--tp-size", tp, "--kv-cache-dtype", dtype])
        if not _is_mla(config):
            add("mxfp8/fa4", "b200", ["--kv-cache-dtype", "mxfp8", "--attention-backend", "fa4"])
            add("nvfp4/flashinfer-prefill", "b200",
                ["--kv-cache-dtype", "nvfp4", "--prefill-attention-backend", "flashinfer",
                 "--decode-attention-backend", "trtllm_mha"])
        for page in (16, 64):
            add(f"page{page}", "h100",
                ["--page-size", page, "--tp-size", tps[min(1, len(tps) - 1)]])
        for cap in (4096, 200000, 10**8):
            add(f"max-total-tokens{cap}", "h200", ["--max-total-tokens", cap])
        for mrr in (7, 300, 5000):
            add(f"max-running{mrr}", "h100", ["--max-running-requests", mrr])
        add("cap3000-mrr5000", "h100", ["--max-total-tokens", 3000, "--max-running-requests", 5000])
        add("context4096", "h100", ["--context-length", 4096])
        add("context4096-page64", "b200", ["--context-length", 4096, "--page-size", 64,
                                           "--kv-cache-dtype", "fp8_e4m3"])
        add("mem-fraction0.6", "h100", ["--mem-fraction-static", 0.6])
        add("tight-budget", "rtx5090", ["--mem-fraction-static", 0.9], share=0.82)
        add("no-budget", "h100", ["--mem-fraction-static", 0.5], share=0.8)
        if tps[-1] >= 8:
            add("dp-attention", "h100", ["--tp-size", 8, "--dp-size", 8,
                                         "--enable-dp-attention"], share=0.05)
            add("dp-attention-dp2", "b200", ["--tp-size", 4, "--dp-size", 2,
                                             "--enable-dp-attention"], share=0.1)
        if text.get("num_nextn_predict_layers"):
            for algo in ("EAGLE", "NEXTN"):
                add(f"{algo.lower()}-mtp", "b200", ["--tp-size", tps[-1],
                                                   "--speculative-algorithm", algo])
            add("mtp-steps", "h200", ["--tp-size", tps[-1], "--speculative-algorithm", "EAGLE",
                                      "--speculative-num-steps", 2,
                                      "--speculative-eagle-topk", 1,
                                      "--speculative-num-draft-tokens", 3])
        if config.get("architectures", [None])[0] == "LlamaForCausalLM":
            for draft in sorted(drafts):
                algo = "EAGLE3" if "eagle3" in draft else "EAGLE"
                add(f"{algo.lower()}-{draft}", "h100",
                    ["--speculative-algorithm", algo, "--speculative-draft-model-path", draft])
                add(f"{algo.lower()}-{draft}-tp2-fp8", "b200",
                    ["--tp-size", 2, "--kv-cache-dtype", "fp8_e4m3",
                     "--speculative-algorithm", algo, "--speculative-draft-model-path", draft])
            add("eagle-no-draft-path", "h100", ["--speculative-algorithm", "EAGLE"])
        if "linear_num_value_heads" in text:  # gated delta net: the state cache
            add("mamba-no-radix-mrr32", "h100", ["--disable-radix-cache",
                                                 "--max-running-requests", 32])
            add("mamba-max-cache200", "h100", ["--max-mamba-cache-size", 200])
            add("mamba-max-cache200-dp", "h200", ["--max-mamba-cache-size", 200, "--tp-size",
                                                  4, "--dp-size", 2, "--enable-dp-attention"])
            add("mamba-ratio0.5", "h200", ["--mamba-full-memory-ratio", 0.5])
            add("mamba-ssm-bf16", "h100", ["--mamba-ssm-dtype", "bfloat16"])
            for strategy in ("no_buffer", "extra_buffer", "extra_buffer_lazy"):
                add(f"mamba-{strategy}", "b200", ["--mamba-radix-cache-strategy", strategy,
                                                  "--tp-size", 2])
            add("mamba-no-overlap", "h100", ["--disable-overlap-schedule"])
            add("mamba-env-conv-fp32", "h100", [], env={"SGLANG_MAMBA_CONV_DTYPE": "float32"})
            add("mamba-skip-decode-lock", "h100", [],
                env={"SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK": "1"})
        if _hybrid_swa(config):
            for ratio in (0.5, 0.1):
                add(f"swa-ratio{ratio}", "h100", ["--swa-full-tokens-ratio", ratio])
            add("swa-request-cap", "h100", ["--disable-radix-cache",
                                            "--max-running-requests", 64])
            add("swa-request-cap-page64", "b200", ["--disable-radix-cache", "--page-size", 64,
                                                   "--max-running-requests", 200])
            add("swa-disabled", "h100", ["--disable-hybrid-swa-memory"])
            add("swa-cap", "h100", ["--max-total-tokens", 50000])
        # every other target, each launch at its widest TP, and the two PD roles
        for platform in ("a100", "h200", "gb200", "b300", "mi355x", "rtx5090"):
            tp = max(t for t in tps if t <= GPUS.get(platform, 8))
            add("x-target-default", platform, ["--tp-size", tp], 0.3 / tp)
        for role in ("prefill", "decode"):
            add(f"x-pd-{role}", "h100", ["--disaggregation-mode", role, "--tp-size", tps[-1]],
                0.3 / tps[-1])
    cases.extend(_architecture_cases())
    cases.extend(_fewer_requests_than_ranks())
    cases.extend(_architecture_cases(_shipped_configs()))
    cases.extend(_hisparse_config_cases())
    cases.extend(_own_pool_draft_cases())
    cases.extend(_dsv4_dspark_cases())
    return cases


#: DeepSeek-V4 with its attached DSpark drafter (the DSpark revisions' configs: no draft path,
#: the draft is the checkpoint's own ``mtp.*`` stages): (label, platform, model, flags, share)
_DSV4_DSPARK = [
    ("dspark-tp4", "b200", "deepseek-v4-flash-dspark", ["--tp-size", 4], 0.25),
    ("dspark-tp8", "b200", "deepseek-v4-flash-dspark", ["--tp-size", 8], 0.12),
    ("dspark-tp4", "h200", "deepseek-v4-flash-dspark", ["--tp-size", 4], 0.3),
    ("dspark-running-64", "gb200", "deepseek-v4-flash-dspark",
     ["--tp-size", 4, "--max-running-requests", 64], 0.25),
    ("dspark-fraction-0.8", "b300", "deepseek-v4-flash-dspark",
     ["--tp-size", 8, "--mem-fraction-static", 0.8], 0.12),
    ("dspark-swa-0.3", "b200", "deepseek-v4-flash-dspark",
     ["--tp-size", 4, "--swa-full-tokens-ratio", 0.3], 0.25),
    ("dspark-tp8", "h100", "deepseek-v4-flash-dspark", ["--tp-size", 8], 0.3),
    ("dspark-tp4", "mi355x", "deepseek-v4-flash-dspark", ["--tp-size", 4], 0.3),
    ("dspark-page-256-ctx-64k", "b200", "deepseek-v4-flash-dspark",
     ["--tp-size", 4, "--page-size", 256, "--context-length", 65536], 0.25),
    ("dspark-pd-prefill", "b200", "deepseek-v4-flash-dspark",
     ["--tp-size", 4, "--disaggregation-mode", "prefill"], 0.25),
    ("dspark-dp8-lm-head", "h200", "deepseek-v4-flash-dspark",
     ["--tp-size", 8, "--dp-size", 8, "--enable-dp-attention", "--enable-dp-lm-head"], 0.15),
    # refused while resolving: attention DP without the DP LM head, draft tokens off gamma + 1
    ("dspark-dp8", "h200", "deepseek-v4-flash-dspark",
     ["--tp-size", 8, "--dp-size", 8, "--enable-dp-attention"], 0.15),
    ("dspark-draft-tokens-4", "b200", "deepseek-v4-flash-dspark",
     ["--tp-size", 4, "--speculative-num-draft-tokens", 4], 0.25),
    ("dspark-tp8", "b200", "deepseek-v4-pro-dspark", ["--tp-size", 8], 0.5),
    ("dspark-tp8", "h200", "deepseek-v4-pro-dspark", ["--tp-size", 8], 0.55),
    ("dspark-running-32", "b300", "deepseek-v4-pro-dspark",
     ["--tp-size", 8, "--max-running-requests", 32], 0.45),
]


def _dsv4_dspark_cases() -> list[dict]:
    """DeepSeek-V4's DSpark speculation: the DSV4 sizer prices the drafter as one more layer
    of every pool, as it does an MTP draft (no DFLASH-family pool of its own)."""
    return [_case(f"kv/{model}/{platform}/{label}", platform, PARITY_MODELS + "/" + model,
                  ["--speculative-algorithm", "DSPARK"] + [str(a) for a in extra], share)
            for label, platform, model, extra, share in _DSV4_DSPARK]


#: DFLASH/DSPARK drafts (``tests/parity/models``: SpecForge's published draft configs) and
#: the targets they were trained for, or a target of another pool kind the draft is paired
#: with to reach that kind's sizer
_OWN_POOL_DRAFTS = [
    # (label, platform, target, algorithm, draft, extra flags, weight share)
    ("dflash", "h100", "qwen3-8b", "DFLASH", "qwen3-8b-dflash-b16", [], 0.3),
    ("dflash-fp8", "h100", "qwen3-8b", "DFLASH", "qwen3-8b-dflash-b16",
     ["--kv-cache-dtype", "fp8_e4m3"], 0.3),
    ("dflash-tp2", "h100", "qwen3-8b", "DFLASH", "qwen3-8b-dflash-b16", ["--tp-size", 2], 0.15),
    ("dflash-tp8", "h100", "qwen3-8b", "DFLASH", "qwen3-8b-dflash-b16", ["--tp-size", 8], 0.05),
    ("dflash-fa4-fp8", "b200", "qwen3-8b", "DFLASH", "qwen3-8b-dflash-b16",
     ["--kv-cache-dtype", "fp8_e4m3", "--speculative-draft-attention-backend", "fa4"], 0.3),
    ("dflash-draft-kv-fp8", "h100", "qwen3-8b", "DFLASH", "qwen3-8b-dflash-b16",
     ["--speculative-draft-kv-cache-dtype", "fp8_e4m3"], 0.3),
    ("dflash-draft-kv-fp8", "b200", "qwen3-8b", "DFLASH", "qwen3-8b-dflash-b16",
     ["--speculative-draft-kv-cache-dtype", "fp8_e4m3"], 0.3),
    ("dflash-dp2", "h100", "qwen3-8b", "DFLASH", "qwen3-8b-dflash-b16",
     ["--tp-size", 2, "--dp-size", 2, "--enable-dp-attention", "--enable-dp-lm-head"], 0.15),
    ("dflash-dp2-no-lm-head", "h100", "qwen3-8b", "DFLASH", "qwen3-8b-dflash-b16",
     ["--tp-size", 2, "--dp-size", 2, "--enable-dp-attention"], 0.15),
    ("dflash-float32", "h100", "qwen3-8b", "DFLASH", "qwen3-8b-dflash-b16",
     ["--dtype", "float32"], 0.3),
    ("dflash", "h100", "qwen3-4b", "DFLASH", "qwen3-4b-dflash-b16", [], 0.3),
    ("dflash-bf16-page16", "a100", "qwen3-4b", "DFLASH", "qwen3-4b-dflash-b16",
     ["--kv-cache-dtype", "bf16", "--page-size", 16], 0.3),
    ("dflash-tp2", "h100", "qwen3-30b-a3b", "DFLASH", "qwen3-4b-dflash-b16", ["--tp-size", 2],
     0.3),
    ("dflash", "h100", "llama-3.1-8b", "DFLASH", "qwen3-8b-dflash-b16", [], 0.3),
    ("dflash-tp2", "h100", PARITY_MODELS + "/qwen3.5-35b-a3b", "DFLASH",
     "qwen3.5-35b-a3b-dflash", ["--tp-size", 2], 0.3),
    ("dflash", "h200", PARITY_MODELS + "/qwen3.5-35b-a3b", "DFLASH", "qwen3.5-35b-a3b-dflash",
     [], 0.5),
    ("dflash-fp8", "b200", PARITY_MODELS + "/qwen3.5-35b-a3b", "DFLASH",
     "qwen3.5-35b-a3b-dflash", ["--kv-cache-dtype", "fp8_e4m3"], 0.4),
    ("dspark", "h100", "qwen3-8b", "DSPARK", "qwen3-8b-dspark", [], 0.3),
    ("dspark-tp2", "h100", "qwen3-8b", "DSPARK", "qwen3-8b-dspark", ["--tp-size", 2], 0.15),
    ("dflash", "h100", "deepseek-v2-lite", "DFLASH", "deepseek-v2-lite-dflash", [], 0.4),
    ("dflash-tp2", "h100", "deepseek-v2-lite", "DFLASH", "deepseek-v2-lite-dflash",
     ["--tp-size", 2], 0.2),
    ("dflash", "h100", "gpt-oss-20b", "DFLASH", "qwen3-8b-dflash-b16", [], 0.2),
    ("dflash", "h100", PARITY_MODELS + "/gemma-3-4b-it", "DFLASH", "qwen3-4b-dflash-b16", [],
     0.2),
    ("dflash-tp4", "b200", PARITY_MODELS + "/minimax-m3.1-nvfp4-synth", "DFLASH",
     "qwen3-8b-dflash-b16", ["--tp-size", 4, "--chunked-prefill-size", 4096], 0.4),
    # the request-capped sliding-window pool (radix cache off, a request limit): 0.5.23
    # charges the draft's pool to the full tokens there, 0.5.21-0.5.22 do not
    ("dflash-swa-request-cap", "h100", "gpt-oss-20b", "DFLASH", "qwen3-8b-dflash-b16",
     ["--disable-radix-cache", "--max-running-requests", 64], 0.2),
    ("dflash-swa-request-cap", "h100", PARITY_MODELS + "/gemma-3-4b-it", "DFLASH",
     "qwen3-4b-dflash-b16", ["--disable-radix-cache", "--max-running-requests", 32], 0.2),
    # a draft trained on a deeper target reads layers this one lacks: the scheduler stops
    ("dflash-draft-layers-beyond", "h100", "llama-3.2-3b", "DFLASH", "qwen3-4b-dflash-b16", [],
     0.1),
]


def _own_pool_draft_cases() -> list[dict]:
    """DFLASH and DSPARK: the draft runs with a KV pool of its own, priced per target
    token from the draft's config (its heads, layers and KV dtype, an fa4 draft keeping the
    model dtype), over the default, hybrid sliding-window, linear-attention and MLA sizers;
    and ``--dtype float32``, whose ``auto`` KV cache is float32."""
    cases = []
    for label, platform, model, algorithm, draft, extra, share in _OWN_POOL_DRAFTS:
        argv = ["--speculative-algorithm", algorithm, "--speculative-draft-model-path",
                PARITY_MODELS + "/" + draft] + extra
        cases.append(_case(f"kv/{model.rsplit('/', 1)[-1]}/{platform}/{label}", platform,
                           model, argv, share))
    cases.append(_case("kv/llama-3.1-8b/h100/dtype-float32", "h100", "llama-3.1-8b",
                       ["--dtype", "float32"], 0.3))
    cases.append(_case("kv/llama-3.1-8b/h100/dtype-half", "h100", "llama-3.1-8b",
                       ["--dtype", "half"], 0.3))
    return cases


def _hisparse_config_cases() -> list[dict]:
    """--hisparse-config texts the schedulers parse when they size the pools: the ones
    they stop on (preflight's ``hisparse-config`` row), and ratios launchplan leaves unsized
    (a fraction, zero: its caveat) beside one it sizes."""
    dsa, dsv4 = PARITY_MODELS + "/deepseek-v3.2", PARITY_MODELS + "/deepseek-v4-flash"
    texts = [("bad-json", dsa, "{x"), ("empty", dsa, ""), ("list", dsa, "[1]"),
             ("small-buffer", dsa, '{"top_k": 4096, "device_buffer_size": 1000}'),
             ("swap-block0", dsa, '{"swap_in_block_size": 0}'),
             ("swap-block-float", dsa, '{"swap_in_block_size": 64.0}'),
             ("v4-ratio-half", dsv4, '{"host_to_device_ratio": 0.5}'),
             ("v4-ratio3", dsv4, '{"host_to_device_ratio": 3}')]
    return [_case(f"kv/{model.rsplit('/', 1)[-1]}/h200/hisparse-config-{label}", "h200", model,
                  ["--tp-size", 8, "--enable-hisparse", "--hisparse-config", text], 0.5)
            for label, model, text in texts]


def _fewer_requests_than_ranks() -> list[dict]:
    """--max-running-requests below the attention-DP ranks, where the releases part: 0.5.23
    gives each rank one request at least, 0.5.22 and 0.5.21 divide down to none. Over the
    default pool, the request-capped SWA pool and a gated-delta-net state cache."""
    dp = ["--tp-size", 8, "--dp-size", 8, "--enable-dp-attention", "--max-running-requests", 4]
    return [
        _case("kv/llama-3.1-8b/h100/dp8-mrr4", "h100", "llama-3.1-8b", dp, 0.05),
        _case("kv/gpt-oss-20b/h100/dp8-mrr4-no-radix", "h100", "gpt-oss-20b",
              dp + ["--disable-radix-cache"], 0.05),
        _case("kv/qwen3-coder-next/h200/dp4-mrr2-no-radix", "h200",
              FIXTURES + "/qwen3-coder-next", ["--tp-size", 4, "--dp-size", 4,
                                                "--enable-dp-attention",
                                                "--max-running-requests", 2,
                                                "--disable-radix-cache"], 0.1),
    ]


def _parity_configs() -> dict[str, dict]:
    folder = os.path.join(ROOT, PARITY_MODELS)
    out = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name, "config.json")
        if name not in NOT_SIZED and os.path.isfile(path):
            with open(path) as f:
                out[PARITY_MODELS + "/" + name] = json.load(f)
    return out


#: Keys (of the text config) or layer kinds that mark a per-request state cache: gated delta
#: net, Mamba2, KDA, short convolutions.
_STATE_KEYS = ("linear_num_value_heads", "linear_attn_config", "mamba_n_heads",
               "mamba_num_heads", "hybrid_override_pattern", "conv_L_cache", "mamba_d_state")
_STATE_KINDS = ("linear_attention", "mamba", "conv")
#: Architectures whose state layers their config class sets up from defaults (no key says so).
_STATE_ARCHS = ("FalconH1ForCausalLM", "InklingForConditionalGeneration",
                "InternS2MobiusForConditionalGeneration", "MiniCPMSALAForCausalLM")


def _has_state(config: dict) -> bool:
    text = _text(config)
    return (any(k in text for k in _STATE_KEYS)
            or bool(set(text.get("layer_types") or ()) & set(_STATE_KINDS))
            or bool(set(config.get("architectures") or ()) & set(_STATE_ARCHS)))


def _shipped_configs() -> dict[str, dict]:
    out = {}
    for name in SHIPPED:
        with open(os.path.join(ROOT, SHIPPED_DIR, name, "config.json")) as f:
            out[SHIPPED_PREFIX + name] = json.load(f)
    return out


def _architecture_cases(configs: dict[str, dict] | None = None) -> list[dict]:
    """The parity models' (or ``configs``') launches: dtypes and TP, a page, caps, a short
    context, small and exhausted budgets, attention DP, MTP where the model has next-token
    layers, and the launches that move a sliding-window split or a state cache."""
    cases: list[dict] = []
    shares = (0.12, 0.35, 0.55, 0.2, 0.7, 0.45, 0.28, 0.6)
    for model, config in (_parity_configs() if configs is None else configs).items():
        text = _text(config)
        tps = _tp_sizes(config)
        top = tps[-1]
        extra = ["--trust-remote-code"] if os.path.isfile(os.path.join(
            ROOT, model, "configuration_" + str(config.get("model_type")) + ".py")) else []
        k = 0

        def add(detail, platform, argv, share=None, env=None, model=model, extra=extra):
            nonlocal k
            share = shares[k % len(shares)] if share is None else share
            k += 1
            label = model.rsplit("/", 1)[-1]
            cases.append(_case(f"kv/{label}/{platform}/{detail}", platform, model,
                               extra + list(argv), share, env=env))

        for tp in tps:
            add(f"auto/tp{tp}", "h100", ["--tp-size", tp], shares[(k + tp) % len(shares)] / tp)
        add(f"fp8_e4m3/tp{tps[min(1, len(tps) - 1)]}", "h100",
            ["--tp-size", tps[min(1, len(tps) - 1)], "--kv-cache-dtype", "fp8_e4m3"])
        add("bf16/tp1", "a100", ["--kv-cache-dtype", "bf16"])
        add("nvfp4/tp1", "b200", ["--kv-cache-dtype", "nvfp4"])
        if not _is_mla(config):
            add("mxfp8/fa4", "b200", ["--kv-cache-dtype", "mxfp8", "--attention-backend", "fa4"])
        add("page64", "h100", ["--page-size", 64, "--tp-size", tps[min(1, len(tps) - 1)]])
        for cap in (4096, 200000):
            add(f"max-total-tokens{cap}", "h200", ["--max-total-tokens", cap])
        for mrr in (7, 5000):
            add(f"max-running{mrr}", "h100", ["--max-running-requests", mrr])
        add("context4096", "h100", ["--context-length", 4096])
        add("tight-budget", "rtx5090", ["--mem-fraction-static", 0.9], share=0.82)
        add("no-budget", "h100", ["--mem-fraction-static", 0.5], share=0.8)
        add("x-target-mi300x", "mi300x", ["--tp-size", min(2, top)], 0.3 / min(2, top))
        if top >= 8:
            add("dp-attention", "h100", ["--tp-size", 8, "--dp-size", 8,
                                         "--enable-dp-attention"], share=0.05)
        if text.get("num_nextn_predict_layers"):
            add("eagle-mtp", "b200", ["--tp-size", top, "--speculative-algorithm", "EAGLE"])
            add("mtp-steps", "h200", ["--tp-size", top, "--speculative-algorithm", "EAGLE",
                                      "--speculative-num-steps", 2,
                                      "--speculative-eagle-topk", 1,
                                      "--speculative-num-draft-tokens", 3])
        if _has_state(config):
            add("mamba-no-radix-mrr32", "h100", ["--disable-radix-cache",
                                                 "--max-running-requests", 32])
            add("mamba-max-cache200", "h100", ["--max-mamba-cache-size", 200])
            add("mamba-ratio0.5", "h200", ["--mamba-full-memory-ratio", 0.5])
            add("mamba-ssm-bf16", "h100", ["--mamba-ssm-dtype", "bfloat16"])
            add("mamba-extra_buffer", "b200", ["--mamba-radix-cache-strategy", "extra_buffer",
                                               "--tp-size", min(2, top)])
        if _hybrid_swa(config) or text.get("sliding_window") or text.get("hybrid_layer_pattern") \
                or "Llama4ForConditionalGeneration" in (config.get("architectures") or ()):
            add("swa-ratio0.1", "h100", ["--swa-full-tokens-ratio", 0.1])
            add("swa-request-cap", "h100", ["--disable-radix-cache",
                                            "--max-running-requests", 64])
            add("swa-disabled", "h100", ["--disable-hybrid-swa-memory"])
        if (config.get("quantization_config") or {}).get("moe_quant_format") \
                == "nvfp4-pack-quantized":  # MiniMax-M3.1 NVFP4: packed page rows
            chunk = ["--chunked-prefill-size", 4096]  # MegaMoE's per-rank token budget
            for platform, tp in (("b200", 1), ("b200", 2), ("b200", 8), ("b300", 4),
                                 ("gb200", 4)):
                add(f"nvfp4-native/tp{tp}", platform, ["--tp-size", tp] + chunk)
            add("nvfp4-native/fp8", "b200", ["--tp-size", 2, "--kv-cache-dtype", "fp8_e4m3"]
                + chunk)
            add("nvfp4-native/bf16", "b200", ["--tp-size", 4, "--kv-cache-dtype", "bf16"]
                + chunk)
            add("nvfp4-native/dp8", "b200", ["--tp-size", 8, "--dp-size", 8,
                                             "--enable-dp-attention"] + chunk, share=0.12)
            add("nvfp4-native/dp2", "b200", ["--tp-size", 8, "--dp-size", 2,
                                             "--enable-dp-attention"] + chunk, share=0.12)
            add("nvfp4-native/max-total-tokens", "b200", ["--tp-size", 4,
                                                          "--max-total-tokens", 100000] + chunk)
            add("nvfp4-native/mrr48", "b200", ["--tp-size", 4, "--context-length", 8192,
                                               "--max-running-requests", 48] + chunk)
            add("nvfp4-native/hopper", "h100", ["--tp-size", 8] + chunk, share=0.3)
        if text.get("compress_ratios"):  # DeepSeek-V4's compressed pools
            add("dsv4-b200-tp1", "b200", ["--tp-size", 1])  # the V4.1 KV layouts' GPU
            add("dsv4-b200-tp4", "b200", ["--tp-size", 4])
            add("dsv4-trtllm", "b200", ["--tp-size", 4, "--dsv4-attn-backend", "trtllm"])
            add("dsv4-mtp", "h200", ["--tp-size", top, "--speculative-algorithm", "EAGLE",
                                     "--speculative-num-steps", 1,
                                     "--speculative-eagle-topk", 1,
                                     "--speculative-num-draft-tokens", 2])
            add("dsv4-state-bf16", "h100", [],
                env={"SGLANG_DSV4_COMPRESS_STATE_DTYPE": "bfloat16"})
            add("dsv4-prefix-tails0", "h100", ["--swa-prefix-tails", 0])
            add("dsv4-mrr1000-tp8", "h200", ["--tp-size", 8, "--max-running-requests",
                                              1000])
        if _hisparse_capable(config):  # HiSparse: rows spanning the host-expanded tokens
            hisparse = ["--enable-hisparse"]
            tp = 4 if 4 in tps else top
            add("hisparse", "h200", ["--tp-size", tp] + hisparse)
            add("hisparse-ratio4", "b200", ["--tp-size", tp, "--hisparse-config",
                                            '{"host_to_device_ratio": 4}'] + hisparse)
            add("hisparse-ratio1", "h100", ["--tp-size", top, "--hisparse-config",
                                            '{"host_to_device_ratio": 1}'] + hisparse)
            if not text.get("compress_ratios"):
                add("hisparse-fp8", "h200", ["--tp-size", top, "--kv-cache-dtype",
                                             "fp8_e4m3"] + hisparse)
            if text.get("num_nextn_predict_layers"):
                add("hisparse-mtp", "h200", ["--tp-size", top, "--speculative-algorithm",
                                             "EAGLE", "--speculative-num-steps", 1,
                                             "--speculative-eagle-topk", 1,
                                             "--speculative-num-draft-tokens", 2,
                                             "--hisparse-config",
                                             '{"host_to_device_ratio": 3}'] + hisparse)
    return cases


def _hisparse_capable(config: dict) -> bool:
    """A model SGLang serves with --enable-hisparse: DeepSeek sparse attention (an MLA
    model with an indexer), DeepSeek-V4, MiniMax-M3's sparse attention."""
    text = _text(config)
    return bool((_is_mla(config) and text.get("index_head_dim")) or text.get("compress_ratios")
                or text.get("sparse_attention_config") or config.get("sparse_attention_config"))


def _hybrid_swa(config: dict) -> bool:
    return "sliding_attention" in (_text(config).get("layer_types") or ())


if __name__ == "__main__":
    print(len(generate()), "cases")
