"""Muse Glimmer: the FP4 GEMM runner on SM12x."""

from __future__ import annotations

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BATCH

ARCHS = frozenset({"MuseGlimmerForConditionalGeneration", "MuseGlimmerForCausalLM"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("fp4_gemm_runner_backend",),
    writes=("fp4_gemm_runner_backend",),
    facts=("model.arch0", "target.is_sm120"),
    sglang="_muse_glimmer_fp4_gemm_runner_overrides (model_overrides/muse_glimmer.py)",
)
def muse_glimmer_fp4_gemm_runner_overrides(v: View) -> dict | None:
    """On SM12x an automatic FP4 GEMM runner becomes marlin for Muse Glimmer."""
    if v.target.is_sm120 and v.fp4_gemm_runner_backend == "auto":
        return {"fp4_gemm_runner_backend": "marlin"}
    return None
