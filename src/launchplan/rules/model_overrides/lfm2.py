"""LFM2 (hybrid convolution/attention): FlashInfer on SM10x."""

from __future__ import annotations

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BATCH, sm100_base_default

ARCHS = frozenset({"Lfm2ForCausalLM", "Lfm2MoeForCausalLM"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("attention_backend",),
    writes=("attention_backend",),
    facts=("model.arch0", "target.is_sm100"),
    sglang="_lfm2_overrides (model_overrides/lfm2.py)",
)
def lfm2_overrides(v: View) -> dict | None:
    """On SM10x an unset base backend becomes flashinfer instead of the generic trtllm_mha."""
    return sm100_base_default(v, "flashinfer")
