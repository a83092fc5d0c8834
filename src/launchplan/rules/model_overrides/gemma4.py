"""Gemma 4 (and DiffusionGemma): attention backends with its sliding windows, NVFP4 MoE."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.attention import effective_backends
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    BATCH,
    arch0,
    backends_unset,
    model_quantization,
)

ARCHS = frozenset({
    "Gemma4ForConditionalGeneration",
    "Gemma4ForCausalLM",
    "Gemma4UnifiedForConditionalGeneration",
    "DiffusionGemmaForBlockDiffusion",
})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS + ("moe_runner_backend", "quantization"),
    writes=("attention_backend", "quantization", "moe_runner_backend"),
    facts=("model.arch0", "model.quant_method", "target.is_sm100",
           "model.quant_config", "target.gfx", "target.sm", "target.vendor"),
    sglang="_gemma4_overrides (model_overrides/gemma4.py)",
)
def gemma4_overrides(v: View) -> dict | None:
    """Gemma 4 defaults to trtllm_mha on SM10x and triton elsewhere (DiffusionGemma: triton).

    When: whenever its promises hold; the MoE part for a modelopt_fp4 checkpoint on SM10x with an
        automatic MoE runner.
    Effect: ``attention_backend`` = that default when nothing is chosen, and also when only a
        split side is; ``quantization`` = ``modelopt_fp4`` and ``moe_runner_backend`` =
        ``flashinfer_trtllm`` for the MoE case.
    Why: filling the base when only one split side is set keeps the other side from falling to a
        generic default Gemma 4 cannot run (``_gemma4_overrides``,
        arg_groups/model_overrides/gemma4.py).
    Assumes: nothing.
    """
    t = v.target
    if arch0(v) == "DiffusionGemmaForBlockDiffusion" or not t.is_sm100:
        default = "triton"
    else:
        default = "trtllm_mha"
    out: dict[str, Any] = {}
    if backends_unset(v) or v.attention_backend is None:
        out["attention_backend"] = default
    if t.is_sm100 and v.moe_runner_backend == "auto" and model_quantization(v) == "modelopt_fp4":
        out["quantization"] = "modelopt_fp4"
        out["moe_runner_backend"] = "flashinfer_trtllm"
    return out or None


# --- outside the override batch: the family's pass in handle_model_specific_adjustments ---

# The backends that run Gemma 4's attention (both effective sides are checked).
GEMMA4_BACKENDS = ("trtllm_mha", "triton", "fa4", "ascend", "intel_xpu", "intel_amx", "aiter")


_BACKEND_CHECK: dict[str, Any] = dict(
    phase=Phase.MODEL,
    reads=BACKEND_FIELDS,
    facts=("model.arch0",),
    archs=ARCHS - {"DiffusionGemmaForBlockDiffusion"},
)


@rule(**_BACKEND_CHECK, sglang="handle_model_specific_adjustments (Gemma4 assert)")
def gemma4_backend_check(v: View) -> Refuse | None:
    """Gemma 4 runs on trtllm_mha, triton, fa4, ascend, intel_xpu, intel_amx or aiter only.

    When: whenever its promises hold (DiffusionGemma is not checked here).
    Effect: refuses when the effective prefill or decode backend is outside that list, naming both.
    Why: the Gemma4 assert in ``handle_model_specific_adjustments`` (model_hook.py) accepts only
        those backends for its attention.
    Assumes: nothing.
    """
    return _gemma4_backend_refusal(v, GEMMA4_BACKENDS)


@rule(name="gemma4_backend_check", variant="0.5.21", **_BACKEND_CHECK,
      sglang="handle_model_specific_adjustments (Gemma4 assert, 0.5.21)")
def gemma4_backend_check_0_5_21(v: View) -> Refuse | None:
    """0.5.21: Gemma 4's backends without fa4.

    When: as ``gemma4_backend_check``.
    Effect: as ``gemma4_backend_check``, fa4 refused too.
    Why: 0.5.22 added fa4 to the Gemma4 assert's list (``handle_model_specific_adjustments``).
    Assumes: nothing.
    """
    return _gemma4_backend_refusal(v, tuple(b for b in GEMMA4_BACKENDS if b != "fa4"))


def _gemma4_backend_refusal(v: View, allowed: tuple[str, ...]) -> Refuse | None:
    prefill, decode = effective_backends(v)
    if prefill not in allowed or decode not in allowed:
        return Refuse(f"Gemma 4 needs one of {', '.join(allowed)}; got prefill "
                      f"{prefill}, decode {decode}")
    return None
