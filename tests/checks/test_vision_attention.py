"""Vision towers that sum their attention over the whole TP group fail to build when
attention DP or CP narrows attention TP to more than one GPU (recorded with SGLang's own
tower classes: ``tests/parity/data/results-vision-params.jsonl``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan import resolve
from launchplan.checks.preflight import preflight
from launchplan.checks.vision_attention import FULL_TP_REDUCE

ROW = "vision-attention-over-full-tp"
RECORDED = Path(__file__).resolve().parents[1] / "parity" / "data" / "results-vision-params.jsonl"
MODELS = {"qwen2_5_vl": "qwen2.5-vl-7b", "siglip": "gemma-3-27b"}


def fails(model: str, argv: list[str]) -> bool:
    result = resolve(argv, gpu="h100", model_path=model)
    return ROW in [p.requirement for p in preflight(result).problems]


def test_the_row_says_what_the_recording_says_for_the_towers_it_names():
    rows = [json.loads(line) for line in RECORDED.read_text(encoding="utf-8").splitlines()]
    checked = 0
    for row in rows:
        model = MODELS.get(row["family"])
        if model is None or "--enable-dp-attention" not in row["argv"]:
            continue
        assert fails(model, row["argv"]) == (not row["ok"]), row["argv"]
        checked += 1
    assert checked == 4


@pytest.mark.parametrize("argv", [
    ["--tp", "4"], ["--tp", "8", "--enable-dp-attention", "--dp", "8"],
    ["--tp", "4", "--enable-dp-attention", "--dp", "2", "--mm-enable-dp-encoder"],
    ["--tp", "4", "--enable-dp-attention", "--dp", "2", "--disaggregation-mode", "decode",
     "--disaggregation-transfer-backend", "mooncake"],
])
def test_whole_groups_a_whole_tower_or_no_tower_here_start(argv):
    assert not fails("qwen2.5-vl-7b", argv)


def test_towers_that_reduce_over_attention_tp_or_text_models_are_not_named():
    assert "qwen3_vl" not in FULL_TP_REDUCE
    assert not fails("llama-3.1-8b", ["--tp", "4", "--enable-dp-attention", "--dp", "2"])
    assert fails("gemma-3-27b", ["--tp", "4", "--enable-dp-attention", "--dp", "2",
                                 "--mm-enable-dp-encoder"])  # Gemma 3 ignores the switch
