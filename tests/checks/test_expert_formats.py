"""MXFP4 routed experts dequantized to FP8 (``SGLANG_DSV4_FP4_DEQUANT``) start only under the
automatic MoE runner: SGLang's FP8 config asserts it when the first MoE layer is built."""

from __future__ import annotations

from pathlib import Path

import pytest

from launchplan import resolve
from launchplan.checks.preflight import preflight
from launchplan.facts.models import load_model
from launchplan.facts.quantization import (
    dequantized_experts,
    fp4_experts,
    fp8_held_experts,
    mxfp4_routed_experts,
)

ROW = "dequantized-experts-auto-runner"
V4 = str(Path(__file__).resolve().parents[1] / "parity" / "models" / "deepseek-v4-flash")
DEQUANT = {"SGLANG_DSV4_FP4_DEQUANT": "1"}


def rows(argv: list[str], env: dict[str, str], model: str = V4) -> list[str]:
    result = resolve(["--tp-size", "4", *argv], gpu="b200", model_path=model, env=env)
    return [p.requirement for p in preflight(result).problems]


def test_a_named_runner_with_dequantized_experts_fails_at_start():
    assert ROW in rows(["--moe-runner-backend", "triton"], DEQUANT)


def test_the_automatic_runner_starts():
    assert ROW not in rows([], DEQUANT)


@pytest.mark.parametrize("env", [{}, {"SGLANG_DSV4_FP4_DEQUANT": "0"},
                                 {"SGLANG_DSV4_FP4_DEQUANT": "on"},  # unreadable: off
                                 {**DEQUANT, "SGLANG_DSV4_FP4_EXPERTS": "0"}])
def test_without_dequantized_fp4_experts_any_runner_is_fine(env):
    assert ROW not in rows(["--moe-runner-backend", "triton"], env)


def test_a_model_without_packed_experts_is_never_dequantized():
    assert ROW not in rows(["--moe-runner-backend", "triton"], DEQUANT, model="deepseek-v3")


def test_the_layout_facts_follow_the_environment():
    v4, v3 = load_model(V4), load_model("deepseek-v3")
    assert mxfp4_routed_experts(v4) and not mxfp4_routed_experts(v3)
    assert fp4_experts(v4, {}) and not fp4_experts(v4, {"SGLANG_DSV4_FP4_EXPERTS": "no"})
    assert fp4_experts(v4, {"SGLANG_DSV4_FP4_EXPERTS": "off"})  # unreadable: the default
    assert dequantized_experts(v4, DEQUANT) and not dequantized_experts(v3, DEQUANT)
    assert fp8_held_experts(v4, DEQUANT)
    assert fp8_held_experts(v4, {"SGLANG_DSV4_FP4_EXPERTS": "0"})
    assert not fp8_held_experts(v4, {})
    assert not fp8_held_experts(v4, {"SGLANG_DSV4_FP4_EXPERTS": "1"})
