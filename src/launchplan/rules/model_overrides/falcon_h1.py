"""Falcon-H1 and Jet-Nemotron (hybrid Mamba/linear attention): triton on SM10x."""

from __future__ import annotations

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BATCH, sm100_base_default

ARCHS = frozenset({"FalconH1ForCausalLM", "JetNemotronForCausalLM",
                   "JetVLMForConditionalGeneration"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("attention_backend",),
    writes=("attention_backend",),
    facts=("model.arch0", "target.is_sm100"),
    sglang="_falcon_h1_jet_overrides (model_overrides/falcon_h1.py)",
)
def falcon_h1_jet_overrides(v: View) -> dict | None:
    """On SM10x an unset base backend becomes triton instead of the generic trtllm_mha.

    SGLang keeps these hybrid models off the trtllm_mha default on Blackwell; elsewhere the
    generic default applies.
    """
    return sm100_base_default(v, "triton")
