"""Generate ``tests/parity/data/wild6-cases.json``: realistic launches across the whole target
catalog, on several nodes, with the operational flags people add around the guide's line.

    PYTHONPATH=src:. python tests/parity/tools/gen_wild6_cases.py [--probe SEED]
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py wild6 --jobs 1

``wild5`` draws the flags each architecture's deployment guide writes on 17 targets. This draw
keeps that line (``gen_wild5_cases.launch``) and goes where wild5 did not:

* every GPU of ``src/launchplan/facts/data/targets.json`` as well as the oracle's nine (PCIe
  and NVL H100s, A800, A100 40GB, L40, L4, A10G, A10, RTX 3090, RTX 6000 Ada, the RTX PRO 6000
  workstation card), so the suite is recorded through ``targets_oracle.py``;
* more models of each size: bundled ones (Gemma 2/3, Phi-4, Mistral 7B, Qwen 2.5/3, GPT-OSS
  20B, DeepSeek-V2-Lite, Llama 3.1 405B, Kimi K2, GLM-4.5, Qwen3-Coder 480B) and Hub configs
  launchplan ships (``shipped/<ORG--NAME>``), and the community's quantized checkpoints:
  llm-compressor's W4A16, W8A8 INT8 and FP8-dynamic exports (AWQ and GPTQ ones are drawn but
  left out, ``MARLIN_CONVERTED`` says why);
* multi-node launches of the big models: ``--nnodes 2`` (or 4 on A100s) with a node rank and
  the rendezvous address, TP across every GPU or TP per node with a PP stage per node;
* the operational flags written around the guide's line: token budgets, dtype, scheduling
  policy, CUDA-graph batch sizes, torch.compile, sampling and grammar backends, deterministic
  inference, CPU offload, dummy weights, plain data parallelism with its balancing method,
  custom all-reduce and NVLS switches, the server's host, port, name and metrics;
* the SGLANG_* variables the guides export with those lines (AITER on ROCm, a longer context
  than the config's).

Seeded and frozen: profiles, targets and choices are data here, so later rules do not change
the draw. ``--probe SEED`` draws the same kind of lines with another seed into
``probe-cases.json`` (``probe/<i>``), to look for the next classes.
"""

from __future__ import annotations

import random

from tests.parity.tools import gen_wild3_cases as wild3
from tests.parity.tools import gen_wild5_cases as wild5

SEED = 6060
COUNT = 200  # lines drawn; those on AWQ/GPTQ checkpoints are left out (MARLIN_CONVERTED)
Profile = wild5.Profile

#: further models (as the case names them) -> their deployment profile: bundled configs and
#: Hub configs launchplan ships, beside wild5's
MODELS: dict[str, Profile] = {
    **wild5.MODELS,
    "models/gemma-2-9b": Profile("mha", "small"),
    "models/gemma-3-27b": Profile("mha", "mid", vision=True),
    "models/phi-4": Profile("mha", "small"),
    "models/mistral-7b-v0.3": Profile("mha", "small", ("mistral", None)),
    "models/qwen3-8b": Profile("mha", "small", ("qwen25", "qwen3"),
                               draft="models/qwen3-0.6b"),
    "models/qwen3-4b": Profile("mha", "small", ("qwen25", "qwen3")),
    "models/qwen2.5-7b": Profile("mha", "small", ("qwen25", None)),
    "models/qwen2.5-72b": Profile("mha", "mid", ("qwen25", None)),
    "models/qwen2.5-vl-7b": Profile("mha", "small", vision=True),
    "models/gpt-oss-20b": Profile("mha", "small", ("gpt-oss", "gpt-oss"), moe=True,
                                  quant="mxfp4"),
    "models/deepseek-v2-lite": Profile("mla", "small", moe=True),
    "models/qwen3-30b-a3b-fp8": Profile("mha", "mid", ("qwen25", "qwen3"), moe=True,
                                        quant="fp8"),
    "models/llama-3.1-405b": Profile("mha", "big", ("llama3", None)),
    "models/kimi-k2": Profile("mla", "big", ("kimi_k2", None), moe=True, quant="fp8"),
    "models/glm-4.5": Profile("mha", "big", ("glm45", "glm45"), mtp=True, moe=True),
    "models/qwen3-coder-480b": Profile("mha", "big", ("qwen3_coder", None), moe=True),
    "shipped/deepseek-ai--DeepSeek-V3.1": Profile("mla", "big", ("deepseekv31", "deepseek-v3"),
                                                  mtp=True, moe=True, quant="fp8"),
    "shipped/nvidia--DeepSeek-V3-0324-NVFP4": Profile("mla", "big", ("deepseekv3", None),
                                                      mtp=True, moe=True, quant="nvfp4"),
    "shipped/zai-org--GLM-5.1-FP8": Profile("dsa", "big", wild5.GLM5, mtp=True, moe=True,
                                            quant="fp8"),
    "shipped/Qwen--Qwen3-Next-80B-A3B-Thinking": Profile("hybrid", "mid", wild5.QWEN35,
                                                         mtp=True, moe=True),
    "shipped/Qwen--Qwen3.5-122B-A10B": Profile("hybrid", "big", wild5.QWEN35, mtp=True,
                                               moe=True, vision=True),
    "shipped/Qwen--Qwen3-VL-8B-Instruct": Profile("mha", "small", ("qwen", None),
                                                  vision=True),
    "shipped/Qwen--Qwen3-32B-FP8": Profile("mha", "mid", ("qwen25", "qwen3"), quant="fp8"),
    "shipped/nvidia--Llama-3.1-70B-Instruct-FP8": Profile("mha", "mid", ("llama3", None),
                                                          quant="fp8"),
    "shipped/nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4": Profile("hybrid", "mid",
                                                                     wild5.NEMO, moe=True,
                                                                     quant="nvfp4"),
    "shipped/stepfun-ai--Step-3.7-Flash-FP8": Profile("mha", "big", ("step3", "step3"),
                                                      moe=True, vision=True, quant="fp8"),
    "shipped/meta-llama--Llama-2-7b-hf": Profile("mha", "small"),
    # the community's quantized checkpoints (tests/parity/models/README.md): AWQ and GPTQ
    # INT4, llm-compressor's W4A16, W8A8 INT8 and FP8-dynamic
    "parity-models/qwen2.5-7b-instruct-awq": Profile("mha", "small", ("qwen25", None),
                                                     quant="awq"),
    "parity-models/qwen2.5-7b-instruct-gptq-int4": Profile("mha", "small", ("qwen25", None),
                                                           quant="gptq"),
    "parity-models/qwen3-32b-awq": Profile("mha", "small", ("qwen25", "qwen3"), quant="awq"),
    "parity-models/qwen3-30b-a3b-gptq-int4": Profile("mha", "small", ("qwen25", "qwen3"),
                                                     moe=True, quant="gptq"),
    "parity-models/qwen3-30b-a3b-awq": Profile("mha", "small", ("qwen25", "qwen3"), moe=True,
                                               quant="awq"),
    "parity-models/llama-3.3-70b-instruct-awq": Profile("mha", "mid", ("llama3", None),
                                                        quant="awq"),
    "parity-models/llama-3.1-8b-instruct-w4a16": Profile("mha", "small", ("llama3", None),
                                                         quant="w4a16"),
    "parity-models/llama-3.1-8b-instruct-w8a8": Profile("mha", "small", ("llama3", None),
                                                        quant="w8a8"),
    "parity-models/llama-3.1-8b-instruct-fp8-dynamic": Profile("mha", "small",
                                                               ("llama3", None),
                                                               quant="fp8-ct"),
}

#: target -> (GPUs on its node, architecture tag as wild5's tables key it): wild5's and the
#: catalog's other GPUs (Ampere's sm86 cards run the sm80 kernels)
TARGETS = {
    **wild5.TARGETS,
    "h100-pcie": (8, "sm90"), "h100-nvl": (8, "sm90"), "a800": (8, "sm80"),
    "a100-40gb": (8, "sm80"), "l40": (8, "sm89"), "l4": (8, "sm89"), "a10g": (8, "sm80"),
    "a10": (4, "sm80"), "rtx3090": (1, "sm80"), "rtx6000-ada": (1, "sm89"),
    "rtx-pro-6000-ws": (1, "sm120"),
}
FLEETS = {
    "big": wild5.FLEETS["big"] + ("h100", "h800", "a800", "b200", "mi300x"),
    "mid": wild5.FLEETS["mid"] + ("h100-pcie", "h100-nvl", "a800", "a100-40gb", "l40",
                                  "rtx6000-ada", "rtx-pro-6000-ws", "l4"),
    "small": wild5.FLEETS["small"] + ("l4", "a10g", "a10", "rtx3090", "rtx6000-ada",
                                      "rtx-pro-6000-ws", "l40", "h100-pcie"),
}
#: node counts a big model spans, per target (A100s need four nodes for the largest)
NODES = {"a100": (2, 4), "a800": (2, 4), "h100": (2, 2, 4), "h800": (2,), "h20": (2,),
         "h200": (2,), "b200": (2,), "mi300x": (2,), "mi355x": (2,), "gb200": (2, 4)}


DP8 = ["--tp", "8", "--enable-dp-attention", "--dp", "8", "--moe-a2a-backend", "flashinfer"]
#: lines the probe draws found disagreeing, and lines aimed at each class they found
#: (``wild6/found/<name>``): platform, model, argv. A first probe (seed 6202, 200 lines; with
#: seed 6101, wild5's 7505 and wild4's 9898, 879 answered) disagreed on one: the CuTe DSL MoE
#: runner on a hybrid FP8+NVFP4 checkpoint (DeepSeek-V4-Flash-NVFP4), which SGLang accepts by
#: its NVFP4 experts; the same fact decides FlashInfer A2A's dispatch dtype, which SGLang
#: resolves and checks when ``--flashinfer-a2a-dispatch-type`` is given.
FOUND: dict[str, tuple[str, str, list[str]]] = {
    "6202-142": ("b300", "parity-models/deepseek-v4-flash-nvfp4", (
        "--tensor-parallel-size 8 --trust-remote-code --speculative-algorithm EAGLE "
        "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
        "--page-size 128 --mem-fraction-static 0.85 --ep-size 8 --moe-a2a-backend deepep "
        "--moe-runner-backend flashinfer_cutedsl --reasoning-parser deepseek-v4 "
        "--enable-flashinfer-allreduce-fusion --tokenizer-worker-num 2").split()),
    "cutedsl-hybrid-nvfp4": ("b200", "parity-models/deepseek-v4-flash-nvfp4", [
        "--tp", "8", "--moe-runner-backend", "flashinfer_cutedsl"]),
    "dispatch-nvfp4-on-bf16": ("b200", "models/qwen3-30b-a3b", DP8 + [
        "--moe-runner-backend", "flashinfer_cutlass", "--flashinfer-a2a-dispatch-type", "nvfp4"]),
    "dispatch-auto-bf16": ("b200", "models/qwen3-30b-a3b", DP8 + [
        "--moe-runner-backend", "flashinfer_cutlass", "--flashinfer-a2a-dispatch-type", "auto"]),
    "dispatch-mxfp8-unquantized": ("b200", "models/qwen3-30b-a3b", DP8 + [
        "--moe-runner-backend", "flashinfer_cutlass", "--flashinfer-a2a-dispatch-type", "mxfp8"]),
    "dispatch-auto-mxfp8": ("b200", "models/qwen3-30b-a3b", DP8 + [
        "--quantization", "mxfp8", "--moe-runner-backend", "flashinfer_trtllm",
        "--flashinfer-a2a-dispatch-type", "auto"]),
    "dispatch-auto-hybrid-nvfp4": ("b200", "parity-models/deepseek-v4-flash-nvfp4", DP8 + [
        "--flashinfer-a2a-dispatch-type", "auto"]),
    "dispatch-nvfp4-hybrid-nvfp4": ("b200", "parity-models/deepseek-v4-flash-nvfp4", DP8 + [
        "--flashinfer-a2a-dispatch-type", "nvfp4"]),
    "dispatch-auto-modelopt-fp4": ("b200", "shipped/nvidia--DeepSeek-V3-0324-NVFP4", DP8 + [
        "--moe-runner-backend", "flashinfer_cutlass", "--flashinfer-a2a-dispatch-type", "auto"]),
}


def _nodes(rng: random.Random, profile: Profile, platform: str) -> tuple[int, bool]:
    """How many nodes the launch spans, and whether each node is a PP stage (else TP spans
    them all)."""
    if profile.size != "big" or platform not in NODES or rng.random() >= 0.3:
        return 1, False
    return rng.choice(NODES[platform]), rng.random() < 0.35


def _operational(rng: random.Random, arch: str, tp: int) -> list[str]:
    """The flags written around the guide's line: budgets, scheduling, graphs, backends,
    server settings."""
    options = [
        ["--max-total-tokens", rng.choice(("65536", "200000", "1000000"))],
        ["--max-prefill-tokens", rng.choice(("8192", "16384", "32768"))],
        ["--dtype", rng.choice(("bfloat16", "float16", "half", "auto"))],
        ["--schedule-policy", rng.choice(("lpm", "fcfs", "dfs-weight", "random"))],
        ["--schedule-conservativeness", rng.choice(("0.3", "1.0", "1.3"))],
        ["--cuda-graph-bs-decode", *rng.choice((("1", "2", "4", "8"), ("1", "8", "16", "32",
                                                                       "64", "128")))],
        ["--cuda-graph-max-bs-decode", rng.choice(("8", "48", "160", "512"))],
        ["--enable-torch-compile", "--torch-compile-max-bs", rng.choice(("1", "8", "32"))],
        ["--num-continuous-decode-steps", rng.choice(("2", "4"))],
        ["--sampling-backend", rng.choice(("flashinfer", "pytorch"))],
        ["--grammar-backend", rng.choice(("xgrammar", "outlines", "llguidance", "none"))],
        ["--enable-deterministic-inference"],
        ["--cpu-offload-gb", rng.choice(("4", "20"))],
        ["--load-format", rng.choice(("dummy", "auto", "safetensors"))],
        ["--disable-custom-all-reduce"],
        ["--enable-nccl-nvls"],
        ["--stream-interval", rng.choice(("1", "8"))],
        ["--enable-metrics"],
        ["--served-model-name", "model"],
        ["--host", "0.0.0.0", "--port", rng.choice(("30000", "8000"))],
        ["--watchdog-timeout", "1200"],
        ["--skip-server-warmup"],
        ["--disable-chunked-prefix-cache"],
        ["--radix-eviction-policy", rng.choice(("lru", "lfu"))],
        ["--enable-memory-saver"],
        ["--swa-full-tokens-ratio", rng.choice(("0.3", "0.8"))],
        ["--triton-attention-num-kv-splits", rng.choice(("8", "16"))],
        ["--fp8-gemm-backend", rng.choice(("auto", "deep_gemm", "cutlass", "triton",
                                           "flashinfer_trtllm", "aiter"))],
        ["--enable-flashinfer-allreduce-fusion"],
        ["--tokenizer-worker-num", rng.choice(("2", "4"))],
        ["--log-level", rng.choice(("info", "warning", "debug"))],
    ]
    if tp > 1:
        options += [["--dp-size", rng.choice(("2", "4")), "--load-balance-method",
                     rng.choice(("round_robin", "total_requests", "total_tokens",
                                 "minimum_tokens"))]]
    if arch == "rocm":
        options += [["--enable-aiter-allreduce-fusion"]]
    if arch == "sm100":
        options += [["--kv-cache-dtype", rng.choice(("fp4_e2m1", "fp8_e4m3"))],
                    ["--fp4-gemm-backend", rng.choice(("auto", "flashinfer_cutlass",
                                                       "flashinfer_trtllm", "flashinfer_cudnn"))]]
    count = rng.choice((0, 1, 1, 2, 2, 3, 4))
    return [t for option in rng.sample(options, count) for t in option]


def _env(rng: random.Random, arch: str, argv: list[str]) -> dict[str, str]:
    """The variables a guide exports with such a line."""
    env = {}
    if arch == "rocm" and rng.random() < 0.4:
        env["SGLANG_USE_AITER"] = rng.choice(("1", "0"))
    if "--context-length" in argv and rng.random() < 0.4:
        env["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"] = "1"
    return env


def _tp_of(argv: list[str]) -> int:
    for flag in ("--tp", "--tp-size", "--tensor-parallel-size"):
        if flag in argv:
            return int(argv[argv.index(flag) + 1])
    return 1


def line(rng: random.Random, model: str, platform: str) -> tuple[list[str], dict[str, str]]:
    """One launch of ``model`` on ``platform`` (maybe several nodes of it) and its
    environment."""
    profile = MODELS[model]
    gpus, arch = TARGETS[platform]
    nodes, pp_per_node = _nodes(rng, profile, platform)
    argv = wild5.launch(rng, profile, model, gpus, arch, 1 if pp_per_node else nodes)
    if nodes > 1:
        if pp_per_node and "--pp-size" not in argv:
            argv += ["--pp-size", str(nodes)]
        argv += ["--nnodes", str(nodes), "--node-rank", str(rng.randrange(nodes)),
                 "--dist-init-addr", "10.0.0.1:5000"]
    argv += _operational(rng, arch, _tp_of(argv))
    return argv, _env(rng, arch, argv)


#: checkpoint formats whose lines are drawn (so the draw keeps its sequence) but left out: SGLang
#: converts an AWQ or GPTQ checkpoint to its Marlin kernels when sgl_kernel's Marlin types
#: take its bits and group size on an SM80+ GPU (``override_quantization_method``), and the
#: oracle's venv has no sgl_kernel (its scalar types are stubs), so the oracle answers "not
#: convertible" where a real host converts: a plain GPTQ checkpoint then reads as the
#: unregistered ``gptq``, and ``--quantization awq_marlin`` as a mismatch (probe seed 6303:
#: 25 of 160 lines). launchplan plans the conversion a real host makes.
MARLIN_CONVERTED = ("awq", "gptq")


def cases(seed: int, suite: str) -> list[dict]:
    rng = random.Random(seed)
    compared = wild5.compared_fields()
    names = sorted(MODELS)
    out = []
    for i in range(COUNT):
        model = names[rng.randrange(len(names))]
        platform = rng.choice(FLEETS[MODELS[model].size])
        argv, env = line(rng, model, platform)
        if MODELS[model].quant in MARLIN_CONVERTED:
            continue
        case = {"name": f"{suite}/{i}", "platform": platform, "model": model, "argv": argv,
                "fields": compared + wild3.own_fields(argv, compared)}
        if env:
            case["env"] = env
        out.append(case)
    if suite == "wild6":
        for name, (platform, model, argv) in FOUND.items():
            out.append({"name": f"wild6/found/{name}", "platform": platform, "model": model,
                        "argv": argv, "fields": compared + wild3.own_fields(argv, compared)})
    return out


def main() -> None:
    wild5.write_draw("wild6", SEED, cases)


if __name__ == "__main__":
    main()
