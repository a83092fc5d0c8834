"""A GPTQ checkpoint as SGLang 0.5.23 holds it after repacking it for Marlin.

On CUDA SM80+ ``gptq_marlin`` claims every symmetric 4/8-bit GPTQ checkpoint it can (plain
``gptq`` is not even registered there). ``GPTQMarlinLinearKernel`` then swaps a symmetric
checkpoint's zero points for an empty tensor and, without act order, its group index too;
with act order it keeps the sorted index beside its sort permutation. The MoE scheme keeps
its zero points, allocated in the model dtype over the packed columns.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.facts.models import load_model
from launchplan.facts.targets import get_target
from launchplan.memory.params import layout
from launchplan.memory.plan import memory_plan
from launchplan.memory.quant_bytes import marlin_repacked, scheme_of
from launchplan.memory.weights import plan_weights
from launchplan.planner import resolve

MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"
QC = {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True, "desc_act": False}


def test_repacked_linear_keeps_weights_and_scales_only():
    s = marlin_repacked(scheme_of(QC, "gptq"), act_order=False)
    rows, cols = 4096, 11008
    assert s.matrix_bytes(rows, cols) == rows * cols / 2 + rows * (cols // 128) * 2


def test_act_order_keeps_the_index_and_its_permutation():
    plain = marlin_repacked(scheme_of(QC, "gptq"), act_order=False)
    ordered = marlin_repacked(scheme_of({**QC, "desc_act": True}, "gptq"), act_order=True)
    assert ordered.matrix_bytes(512, 2048) - plain.matrix_bytes(512, 2048) == 2048 * 2 * 4


def test_repacked_experts_keep_zero_points_in_the_model_dtype():
    s = marlin_repacked(scheme_of(QC, "gptq"), act_order=False).of("experts")
    rows, cols = 1536, 2048  # w13 of one Qwen3-30B-A3B expert: (2 x 768, hidden)
    groups = cols // 128
    # int32 weights over cols/8 packed rows, fp16 scales, fp16 zero points over rows/8
    assert s.matrix_bytes(rows, cols) == cols // 8 * rows * 4 + groups * rows * 2 \
        + groups * rows // 8 * 2


def _dropped(model_dir: Path) -> float:
    """Bytes the checkpoint format has that the repacked model does not: every quantized
    matrix's int32 group index, a linear's 4-bit zero points, half an expert's."""
    facts = load_model(str(model_dir))
    lay = layout(facts.config, facts.text_config, facts.model_type, facts.text_model_type,
                 facts.arch0)
    out = 0.0
    for t in lay.main:
        if not t.linear or "lm_head" in t.name:
            continue
        rows, cols = t.shape
        n = t.copies * max(1, len(t.layers))
        zero = rows * (cols // 128) * 4 / 8
        out += n * (cols * 4 + (zero / 2 if t.shard == "experts" else zero))
    return out


@pytest.mark.parametrize("name", ["qwen2.5-7b-instruct-gptq-int4", "qwen3-30b-a3b-gptq-int4"])
def test_a_cuda_launch_plans_the_repacked_checkpoint(name):
    model_dir = MODELS / name
    assert json.loads((model_dir / "config.json").read_text())["quantization_config"] \
        ["desc_act"] is False
    as_stored = plan_weights(load_model(str(model_dir))).bytes_per_gpu
    plan = memory_plan(resolve([], gpu=get_target("h100"), model_path=str(model_dir)))
    assert plan is not None
    assert as_stored - plan.weights_bytes == pytest.approx(_dropped(model_dir), abs=2)
