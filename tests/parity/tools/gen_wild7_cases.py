"""Generate ``tests/parity/data/wild7-cases.json``: launches of the architectures the suites
rarely touch, with feature groups crossed and the odd values a parser still takes.

    PYTHONPATH=src:. python tests/parity/tools/gen_wild7_cases.py [--probe SEED]
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py wild7 --jobs 1

``wild6`` drew a guide's line plus operational flags over the target catalog. This draw keeps
that line (``gen_wild6_cases.line``) and goes where no draw went:

* architectures SGLang 0.5.23 serves that no suite had a config of (counted over every
  ``*-cases.json``): Gemma 1, Qwen1.5-MoE, StarCoder2, Command R and R7B, OLMoE, Granite 3
  dense and MoE, Phi-3.5-MoE, the BERT and XLM-R embedders, Mamba-2 and Falcon-Mamba, Mistral
  Small 3.1 (Pixtral vision), Qwen2-Audio, GLM-4-0414, ERNIE 4.5 MoE, reward models on Llama
  and Gemma 2, a Mistral-based embedder (``tests/parity/models/README.md`` names each); half
  the lines run one of them;
* one to three feature groups crossed on one line, each drawn from SGLang's whole choice list
  rather than a guide's: speculative algorithm x attention backends (prefill, decode, draft)
  x page size x KV dtype x attention DP x EP and its A2A backend x PP x disaggregation x
  HiCache x LoRA x multimodal switches x embedding/reward serving x SGLANG_* variables;
* values the parser admits but nobody means: 0, negatives, 2**31 and beyond, ``nan`` and
  ``inf`` where a float is parsed.

Seeded and frozen. ``--probe SEED`` draws the same kind of lines into ``probe-cases.json``.
"""

from __future__ import annotations

import random

from tests.parity.tools import gen_wild3_cases as wild3
from tests.parity.tools import gen_wild5_cases as wild5
from tests.parity.tools import gen_wild6_cases as wild6

SEED = 7070
COUNT = 170
Profile = wild5.Profile

#: the architectures no suite had (tests/parity/models/README.md): name -> deployment profile
NEW_MODELS: dict[str, Profile] = {
    "parity-models/gemma-7b": Profile("mha", "small"),
    "parity-models/qwen1.5-moe-a2.7b": Profile("mha", "small", ("qwen25", None), moe=True),
    "parity-models/starcoder2-15b": Profile("mha", "small"),
    "parity-models/c4ai-command-r-v01": Profile("mha", "mid"),
    "parity-models/c4ai-command-r7b-12-2024": Profile("mha", "small"),
    "parity-models/olmoe-1b-7b-0924": Profile("mha", "small", moe=True),
    "parity-models/granite-3.1-8b-instruct": Profile("mha", "small", ("hermes", None)),
    "parity-models/granite-3.0-3b-a800m-instruct": Profile("mha", "small", ("hermes", None),
                                                           moe=True),
    "parity-models/phi-3.5-moe-instruct": Profile("mha", "mid", moe=True),
    "parity-models/bge-m3": Profile("embed", "small"),
    "parity-models/bge-large-en-v1.5": Profile("embed", "small"),
    "parity-models/e5-mistral-7b-instruct": Profile("embed", "small"),
    "parity-models/skywork-reward-llama-3.1-8b": Profile("embed", "small"),
    "parity-models/skywork-reward-gemma-2-27b": Profile("embed", "mid"),
    "parity-models/mamba-codestral-7b": Profile("ssm", "small"),
    "parity-models/falcon-mamba-7b": Profile("ssm", "small"),
    "parity-models/mistral-small-3.1-24b-instruct": Profile("mha", "mid", ("mistral", None),
                                                            vision=True),
    "parity-models/qwen2-audio-7b-instruct": Profile("mha", "small", vision=True),
    "parity-models/glm-4-9b-0414": Profile("mha", "small", ("glm", None)),
    "parity-models/ernie-4.5-21b-a3b-pt": Profile("mha", "small", moe=True),
}
#: wild6's models (AWQ/GPTQ left out, as there) and the new ones
MODELS: dict[str, Profile] = {
    **{m: p for m, p in wild6.MODELS.items() if p.quant not in wild6.MARLIN_CONVERTED},
    **NEW_MODELS,
}
ODD_INTS = ("0", "-1", "-7", "2147483648", "99999999999")
ODD_FLOATS = ("0", "-0.5", "1.5", "1e9", "nan", "inf", "-inf")
#: numeric flags and the kind of odd value each parses
ODD = {"--page-size": ODD_INTS, "--chunked-prefill-size": ODD_INTS,
       "--max-running-requests": ODD_INTS, "--max-total-tokens": ODD_INTS,
       "--max-prefill-tokens": ODD_INTS, "--context-length": ODD_INTS,
       "--cuda-graph-max-bs-decode": ODD_INTS, "--stream-interval": ODD_INTS,
       "--speculative-num-steps": ODD_INTS, "--speculative-eagle-topk": ODD_INTS,
       "--speculative-num-draft-tokens": ODD_INTS, "--max-lora-rank": ODD_INTS,
       "--max-loras-per-batch": ODD_INTS, "--hicache-size": ODD_INTS,
       "--max-mamba-cache-size": ODD_INTS, "--num-continuous-decode-steps": ODD_INTS,
       "--dp-size": ("0", "-1", "3"), "--ep-size": ("0", "-1", "3"), "--pp-size": ("0", "3"),
       "--mem-fraction-static": ODD_FLOATS, "--hicache-ratio": ODD_FLOATS,
       "--swa-full-tokens-ratio": ODD_FLOATS, "--schedule-conservativeness": ODD_FLOATS,
       "--mamba-full-memory-ratio": ODD_FLOATS}
ATTENTION = ("fa3", "fa4", "flashinfer", "triton", "trtllm_mha", "trtllm_mla", "flashmla",
             "cutedsl_mla", "aiter", "torch_native", "flex_attention", "wave", "dsa", "nsa",
             "intel_amx")
SPECULATIVE = ("EAGLE", "EAGLE3", "NEXTN", "NGRAM", "STANDALONE", "DFLASH")
#: variables people export with such lines (launchplan.facts.environment reads them)
ENV = (("SGLANG_USE_AITER", ("1", "0")), ("SGLANG_ENABLE_JIT_DEEPGEMM", ("0", "1")),
       ("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", ("1", "true")),
       ("SGLANG_ENABLE_SPEC_V2", ("1", "0")), ("SGLANG_ENABLE_TORCH_COMPILE", ("1",)),
       ("SGLANG_VLM_CACHE_SIZE_MB", ("0", "512")), ("SGLANG_SIMULATE_ACC_LEN", ("3", "nan")),
       ("SGLANG_DISABLE_LAZY_COMPACTION", ("1",)), ("SGLANG_HACK_FLASHMLA_BACKEND", ("1",)))

#: lines the probe draws found disagreeing, and lines aimed at each class they found
#: (``wild7/found/<name>``): platform, model, argv, environment. A first probe (seed 7171, 500
#: lines) agreed on 494: the six others were refusals of SGLang's DFLASH hook (attention DP
#: without the DP LM head, pp > 1) that launchplan made from the right rule, in words the
#: parity test's correspondence table did not map to it.
DP2 = ["--tp", "2", "--enable-dp-attention", "--dp-size", "2"]
DFLASH = ["--speculative-algorithm", "DFLASH"]
FOUND: dict[str, tuple[str, str, list[str], dict[str, str]]] = {
    "7171-188": ("mi355x", "parity-models/phi-3.5-moe-instruct", (
        "--tp-size 8 --trust-remote-code --enable-dp-attention --dp-size 4 "
        "--enable-hierarchical-cache --hicache-storage-backend file --fp8-gemm-backend "
        "flashinfer_trtllm --cuda-graph-max-bs-decode 160 --attention-backend fa4 "
        "--speculative-algorithm DFLASH --speculative-num-steps 2 --speculative-eagle-topk 2 "
        "--speculative-num-draft-tokens 4 --language-model-only --mm-attention-backend fa4 "
        "--mm-enable-dp-encoder --page-size 256").split(), {}),
    "7171-427": ("h100", "parity-models/granite-3.0-3b-a800m-instruct", (
        "--trust-remote-code --attention-backend fa3 --kv-cache-dtype auto --dtype bfloat16 "
        "--enable-metrics --pp-size 2 --disaggregation-mode prefill --speculative-algorithm "
        "DFLASH --enable-hierarchical-cache").split(), {"SGLANG_ENABLE_SPEC_V2": "1"}),
    "dflash-dp-no-lm-head": ("h100", "models/qwen3-30b-a3b", DP2 + DFLASH, {}),
    "dflash-dp-cp": ("h100", "models/qwen3-30b-a3b", DP2 + DFLASH + [
        "--enable-dp-lm-head", "--attn-cp-size", "2"], {}),
    "dflash-dp-coordination": ("b200", "models/qwen3-30b-a3b", DP2 + DFLASH + [
        "--enable-dp-lm-head"], {"SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION": "1"}),
    "dflash-dp-rocm": ("mi300x", "models/qwen3-30b-a3b", DP2 + DFLASH + [
        "--enable-dp-lm-head"], {}),
    "dflash-pp": ("h100", "models/llama-3.1-8b", DFLASH + ["--pp-size", "2"], {}),
    "dflash-no-draft": ("h100", "models/llama-3.1-8b", DFLASH, {}),
    # a probe of every numeric flag at 0, -1 and 2**31 (nan and inf for floats; 487 lines)
    # agreed but for a given --random-seed, which the parity harness never compared (it
    # masked the field as if SGLang had drawn it)
    "random-seed-0": ("h100", "parity-models/gemma-7b", ["--random-seed", "0"], {}),
    "random-seed-2-31": ("b200", "parity-models/bge-m3", ["--random-seed", "2147483648"], {}),
}


def _group(rng: random.Random, name: str, profile: Profile, arch: str, tp: int) -> list[str]:
    """One feature group's flags, drawn from SGLang's whole choice list."""
    c = rng.choice
    if name == "speculative":
        algo = c(SPECULATIVE)
        argv = ["--speculative-algorithm", algo]
        if algo == "STANDALONE":
            argv += ["--speculative-draft-model-path", profile.draft or "models/llama-3.2-1b"]
        if rng.random() < 0.6:
            argv += ["--speculative-num-steps", c(("1", "2", "3", "5")),
                     "--speculative-eagle-topk", c(("1", "2", "4")),
                     "--speculative-num-draft-tokens", c(("2", "4", "8", "16"))]
        if rng.random() < 0.3:
            argv += ["--speculative-draft-attention-backend", c(ATTENTION)]
        return argv
    if name == "attention":
        if rng.random() < 0.6:
            return ["--attention-backend", c(ATTENTION)]
        return ["--prefill-attention-backend", c(ATTENTION), "--decode-attention-backend",
                c(ATTENTION)]
    if name == "page":
        return ["--page-size", c(("1", "16", "32", "64", "128", "256"))]
    if name == "kv":
        return ["--kv-cache-dtype", c(("auto", "fp8_e5m2", "fp8_e4m3", "mxfp8", "bf16",
                                       "bfloat16", "nvfp4", "fp4_mx_block16"))]
    if name == "dp-attention":
        dp = c([d for d in (2, 4, 8) if d <= max(tp, 2)])
        argv = ["--tp", str(max(tp, dp)), "--enable-dp-attention", "--dp-size", str(dp)]
        return argv + wild5._some(rng, ["--enable-dp-lm-head"], ["--moe-dense-tp-size", "1"])
    if name == "ep":
        ep = max(tp, 2)
        argv = ["--tp", str(ep), "--ep-size", str(ep)]
        if rng.random() < 0.6:
            argv += ["--moe-a2a-backend", c(("deepep", "mooncake", "nixl", "mori", "flashinfer",
                                             "deepep_v2", "pplx", "megamoe", "none"))]
        if rng.random() < 0.3:
            argv += ["--moe-runner-backend", c(("auto", "triton", "deep_gemm", "cutlass",
                                                "flashinfer_trtllm", "flashinfer_cutlass",
                                                "flashinfer_cutedsl", "aiter", "marlin"))]
        return argv
    if name == "pp":
        return ["--pp-size", c(("2", "4"))] + wild5._some(
            rng, ["--pp-max-micro-batch-size", c(("4", "16"))], p=0.3)
    if name == "disaggregation":
        return ["--disaggregation-mode", c(("prefill", "decode"))] + wild5._some(
            rng, ["--disaggregation-transfer-backend", c(("mooncake", "nixl", "mori", "fake",
                                                          "mooncake_tcp"))], p=0.6)
    if name == "hicache":
        return ["--enable-hierarchical-cache"] + wild5._some(
            rng, ["--hicache-ratio", c(("1.2", "2", "3"))],
            ["--hicache-write-policy", c(("write_through", "write_back",
                                          "write_through_selective"))],
            ["--hicache-mem-layout", c(("page_first", "layer_first", "page_first_direct"))],
            ["--hicache-io-backend", c(("kernel", "direct"))],
            ["--hicache-storage-backend", c(("file", "mooncake", "hf3fs", "nixl", "sim"))],
            p=0.4)
    if name == "lora":
        return ["--enable-lora"] + wild5._some(
            rng, ["--max-lora-rank", c(("8", "16", "64"))],
            ["--lora-target-modules", *rng.sample(("q_proj", "k_proj", "v_proj", "o_proj",
                                                   "gate_proj", "up_proj", "down_proj", "all"),
                                                  rng.randint(1, 3))],
            ["--max-loras-per-batch", c(("1", "4", "8"))],
            ["--lora-backend", c(("triton", "csgmv", "torch_native", "triton_v2"))], p=0.5)
    if name == "multimodal":
        return wild5._some(rng, ["--enable-multimodal"], ["--language-model-only"],
                           ["--mm-attention-backend", c(("sdpa", "fa3", "fa4", "triton_attn",
                                                         "aiter_attn", "flashinfer_cudnn"))],
                           ["--mm-enable-dp-encoder"], ["--disable-fast-image-processor"],
                           p=0.4) or ["--enable-multimodal"]
    if name == "serving":
        return wild5._some(rng, ["--is-embedding"], ["--disable-radix-cache"],
                           ["--enable-return-hidden-states"], ["--enable-mixed-chunk"],
                           ["--disable-overlap-schedule"], p=0.35) or ["--is-embedding"]
    # odd values
    flag = c(sorted(ODD))
    return [flag, c(ODD[flag])]


GROUPS = ("speculative", "attention", "page", "kv", "dp-attention", "ep", "pp",
          "disaggregation", "hicache", "lora", "multimodal", "serving", "odd")


def line(rng: random.Random, model: str, platform: str) -> tuple[list[str], dict[str, str]]:
    """wild6's launch of ``model`` on ``platform``, then one to three crossed feature groups
    (a later flag overrides the line's own, as SGLang's parser does) and maybe variables."""
    profile = MODELS[model]
    argv, env = wild6.line(rng, model, platform) if model in wild6.MODELS else \
        _plain(rng, profile, model, platform)
    _, arch = wild6.TARGETS[platform]
    tp = wild6._tp_of(argv)
    for name in rng.sample(GROUPS, rng.randint(1, 3)):
        argv += _group(rng, name, profile, arch, tp)
    if rng.random() < 0.3:
        argv += _group(rng, "odd", profile, arch, tp)
    if rng.random() < 0.25:
        variable, spellings = rng.choice(ENV)
        env = {**env, variable: rng.choice(spellings)}
    return argv, env


def _plain(rng: random.Random, profile: Profile, model: str,
           platform: str) -> tuple[list[str], dict[str, str]]:
    """A new architecture's launch: wild5's guide line for its profile (the embedding and
    SSM kinds take no attention-backend table) and wild6's operational flags."""
    gpus, arch = wild6.TARGETS[platform]
    argv = wild5.launch(rng, profile, model, gpus, arch)
    argv += wild6._operational(rng, arch, wild6._tp_of(argv))
    return argv, {}


def _graph_too_big(argv: list[str]) -> bool:
    """Whether the line asks for decode CUDA graphs up to 99,999,999,999 requests: SGLang
    lists every batch size up to it, and the oracle's case process is killed (out of memory
    or at its timeout) before it answers (probe seed 7272: three such lines), so the draw
    leaves such a line out; launchplan plans it."""
    flag = "--cuda-graph-max-bs-decode"
    return any(a == flag and b == ODD_INTS[-1] for a, b in zip(argv, argv[1:]))


def cases(seed: int, suite: str) -> list[dict]:
    rng = random.Random(seed)
    compared = wild5.compared_fields()
    old, new = sorted(wild6.MODELS.keys() & MODELS.keys()), sorted(NEW_MODELS)
    out = []
    for i in range(COUNT if suite != "probe" else 500):
        model = rng.choice(new if rng.random() < 0.5 else old)
        platform = rng.choice(wild6.FLEETS[MODELS[model].size])
        argv, env = line(rng, model, platform)
        if _graph_too_big(argv):
            continue
        out.append(_case(f"{suite}/{i}", platform, model, argv, env, compared))
    if suite == "wild7":
        out += [_case(f"wild7/found/{name}", *found, compared) for name, found in FOUND.items()]
    return out


def _case(name: str, platform: str, model: str, argv: list[str], env: dict[str, str],
          compared: list[str]) -> dict:
    case = {"name": name, "platform": platform, "model": model, "argv": argv,
            "fields": compared + wild3.own_fields(argv, compared)}
    return {**case, "env": env} if env else case


def main() -> None:
    wild5.write_draw("wild7", SEED, cases)


if __name__ == "__main__":
    main()
