"""Generate ``tests/parity/data/hub-cases.json``: launches of published Hub ``config.json``
files of the architectures people deployed through 2026, as they are, no field cut or made up.

    PYTHONPATH=src:. python tests/parity/tools/gen_hub_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py hub --jobs 1

The synthetic configs under ``tests/parity/models`` (``-synth``) reach each model family's
rules with the fewest keys; these are the real files (DeepSeek-V3.2 and V4, Gemma 4, Qwen3.5,
Kimi K2.5/K2.6/K3, GLM-5, MiniMax M2.5/M2.7, Llama 4, MiMo-V2-Flash, Nemotron 3, Qwen3-VL,
Mixtral 8x22B), whose keys, quantization descriptions and sidecar files (``hf_quant_config.json``)
a synthetic config would not think of. They come from ai-dynamo/aiconfigurator's vendored
``model_configs`` (``tests/parity/models/README.md`` names each file). Every model is planned
with the launches an operator starts from on H200 and B200 (tp 8; attention DP; an FP8 KV cache;
an MTP/EAGLE draft; tp 4 with DeepEP expert parallelism) and tp 8 on MI300X.
"""

from __future__ import annotations

import json
from pathlib import Path

PARITY = Path(__file__).resolve().parents[1]
OUT = PARITY / "data" / "hub-cases.json"

#: folder under tests/parity/models -> the vendored file it was copied from
MODELS = {
    "deepseek-v3.2": "deepseek-ai--DeepSeek-V3.2",
    "deepseek-v4-flash": "deepseek-ai--DeepSeek-V4-Flash",
    "deepseek-v4-pro": "deepseek-ai--DeepSeek-V4-Pro",
    "deepseek-v4-flash-nvfp4": "nvidia--DeepSeek-V4-Flash-NVFP4",
    "gemma-4-26b-a4b": "google--gemma-4-26B-A4B",
    "gemma-4-31b-it-nvfp4": "nvidia--Gemma-4-31B-IT-NVFP4",
    "qwen3.5-397b-a17b": "Qwen--Qwen3.5-397B-A17B",
    "qwen3.5-35b-a3b": "Qwen--Qwen3.5-35B-A3B",
    "qwen3.5-27b": "Qwen--Qwen3.5-27B",
    "qwen3-vl-30b-a3b-instruct": "Qwen--Qwen3-VL-30B-A3B-Instruct",
    "kimi-k2.5": "moonshotai--Kimi-K2.5",
    "kimi-k2.6-nvfp4": "nvidia--Kimi-K2.6-NVFP4",
    "kimi-k3": "moonshotai--Kimi-K3",
    "glm-5-fp8": "zai-org--GLM-5-FP8",
    "glm-5.2": "zai-org--GLM-5.2",
    "minimax-m2.5": "MiniMaxAI--MiniMax-M2.5",
    "minimax-m2.7": "MiniMaxAI--MiniMax-M2.7",
    "llama-4-scout-17b-16e-instruct": "meta-llama--Llama-4-Scout-17B-16E-Instruct",
    "llama-4-maverick-17b-128e-instruct": "meta-llama--Llama-4-Maverick-17B-128E-Instruct",
    "mimo-v2-flash": "XiaomiMiMo--MiMo-V2-Flash",
    "nemotron-3-nano-30b-a3b": "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
    "nvidia-nemotron-3-super-120b-a12b-fp8": "nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-FP8",
    "mixtral-8x22b-v0.1": "mistralai--Mixtral-8x22B-v0.1",
}

LAUNCHES = {
    "tp8": ["--tp-size", "8"],
    "tp8-dpa": ["--tp-size", "8", "--attn-dp-size", "8"],
    "tp8-fp8kv": ["--tp-size", "8", "--kv-cache-dtype", "fp8_e4m3"],
    "tp8-mtp": ["--tp-size", "8", "--speculative-algorithm", "EAGLE", "--speculative-num-steps",
                "3", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"],
    "tp4-ep4-deepep": ["--tp-size", "4", "--ep-size", "4", "--moe-a2a-backend", "deepep"],
}


def cases() -> list[dict]:
    fields = json.loads((PARITY / "data" / "reach-cases.json").read_text())[0]["fields"]
    out = []
    for folder in MODELS:
        for platform in ("h200", "b200"):
            for name, argv in LAUNCHES.items():
                out.append({"name": f"hub/{folder}/{platform}/{name}", "platform": platform,
                            "model": f"parity-models/{folder}", "argv": argv,
                            "fields": fields})
        out.append({"name": f"hub/{folder}/mi300x/tp8", "platform": "mi300x",
                    "model": f"parity-models/{folder}", "argv": LAUNCHES["tp8"],
                    "fields": fields})
    return out


if __name__ == "__main__":
    OUT.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases()) + "\n]\n")
    print(f"{OUT}: {len(cases())} cases")
