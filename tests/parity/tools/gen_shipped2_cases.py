"""Generate ``tests/parity/data/shipped2-cases.json``: the launches an operator starts from, over
the Hub configs launchplan ships from earlier commits of the repositories that vendor them
(ai-dynamo/aiconfigurator's history, ztxz16/fastllm, casys-kaist/LLMServingSim:
``tools/ship_hub_history.py``; ``origin`` in ``data/hub/SOURCES.json``).

    PYTHONPATH=src:. python tests/parity/tools/gen_shipped2_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py shipped2 --jobs 1

Each model is launched with SGLang's defaults at the tensor parallel size its weights need on
H100, H200 and B200 (none on H100 where eight of them cannot hold it; NVFP4 weights only on
Blackwell and, to hear SGLang on it, H200), with an FP8 KV cache on H200 and B200, with its
own MTP layers as the draft where the checkpoint has them (NEXTN for Qwen's hybrids, EAGLE
for DeepSeek), and at tp 8 on MI300X. Cases name the folders ``shipped/<ORG--NAME>``.
"""

from __future__ import annotations

import json
from pathlib import Path

PARITY = Path(__file__).resolve().parents[1]
OUT = PARITY / "data" / "shipped2-cases.json"
HUB = PARITY.parents[1] / "src" / "launchplan" / "facts" / "data" / "hub"

MTP_STEPS = ["--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
             "--speculative-num-draft-tokens", "4"]

#: folder -> ({platform: tp size}, the speculative algorithm of its MTP layers or None).
#: The sizes are what the BF16/FP8/NVFP4 weights need with room for a KV cache: 80 GB on
#: H100, 141 GB on H200, 180 GB on B200.
MODELS: dict[str, tuple[dict[str, int], str | None]] = {
    "Qwen--Qwen3-Next-80B-A3B-Thinking": ({"h100": 4, "h200": 2, "b200": 2}, "NEXTN"),
    "Qwen--Qwen3.6-35B-A3B": ({"h100": 2, "h200": 1, "b200": 1}, "NEXTN"),
    "deepseek-ai--DeepSeek-V3.1": ({"h200": 8, "b200": 8}, "EAGLE"),
    "nvidia--DeepSeek-V3-0324-NVFP4": ({"h200": 8, "b200": 4}, "EAGLE"),
    "deepseek-ai--DeepSeek-R1-Distill-Qwen-32B": ({"h100": 2, "h200": 1, "b200": 1}, None),
    "Qwen--Qwen2.5-32B": ({"h100": 2, "h200": 1, "b200": 1}, None),
    "Qwen--Qwen2.5-7B": ({"h100": 1, "h200": 1, "b200": 1}, None),
    "Qwen--Qwen2.5-1.5B": ({"h100": 1, "h200": 1, "b200": 1}, None),
    "meta-llama--Llama-2-70b-hf": ({"h100": 4, "h200": 2, "b200": 2}, None),
    "meta-llama--Llama-2-13b-hf": ({"h100": 1, "h200": 1, "b200": 1}, None),
    "meta-llama--Llama-2-7b-hf": ({"h100": 1, "h200": 1, "b200": 1}, None),
    "Qwen--Qwen3-Coder-30B-A3B-Instruct": ({"h100": 2, "h200": 1, "b200": 1}, None),
    "Qwen--Qwen3-30B-A3B-Instruct-2507": ({"h100": 2, "h200": 1, "b200": 1}, None),
}


def launches(tps: dict[str, int], mtp: str | None) -> list[tuple[str, str, list[str]]]:
    """(platform, name, argv) of one model's launches."""
    out = []
    for platform, tp in tps.items():
        base = ["--tp-size", str(tp)]
        out.append((platform, f"tp{tp}", base))
        if platform != "h100":
            out.append((platform, f"tp{tp}-fp8kv", [*base, "--kv-cache-dtype", "fp8_e4m3"]))
            if mtp is not None:
                out.append((platform, f"tp{tp}-mtp",
                            [*base, "--speculative-algorithm", mtp, *MTP_STEPS]))
    out.append(("mi300x", "tp8", ["--tp-size", "8"]))
    return out


def suite_cases(suite: str, models: dict[str, tuple[dict[str, int], str | None]]) -> list[dict]:
    """Every launch of each shipped folder in ``models``, named ``SUITE/FOLDER/PLATFORM/NAME``
    (the shipped suites share it)."""
    fields = json.loads((PARITY / "data" / "reach-cases.json").read_text())[0]["fields"]
    out = []
    for folder, (tps, mtp) in models.items():
        assert (HUB / folder / "config.json").is_file(), folder
        for platform, name, argv in launches(tps, mtp):
            out.append({"name": f"{suite}/{folder}/{platform}/{name}", "platform": platform,
                        "model": f"shipped/{folder}", "argv": argv, "fields": fields})
    return out


def write(out: Path, cases: list[dict]) -> None:
    """Write a suite's cases one a line, as the recorder reads them."""
    out.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print(f"{out.name}: {len(cases)} cases")


def cases() -> list[dict]:
    return suite_cases("shipped2", MODELS)


if __name__ == "__main__":
    write(OUT, cases())
