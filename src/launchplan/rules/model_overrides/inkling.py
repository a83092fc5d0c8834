"""Inkling: hybrid SWA/Mamba pool ratios, the extra-buffer Mamba cache, fa4 or triton."""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BACKEND_FIELDS, BATCH, backends_unset

ARCHS = frozenset({"InklingForConditionalGeneration", "InklingForConditionalGenerationMTP"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS + ("swa_full_tokens_ratio", "mamba_full_memory_ratio",
                            "mamba_radix_cache_strategy", "disable_radix_cache"),
    writes=("swa_full_tokens_ratio", "mamba_full_memory_ratio", "mamba_radix_cache_strategy",
            "uses_mamba_radix_cache", "attention_backend"),
    facts=("model.arch0", "target.is_sm90", "target.is_sm100"),
    sglang="_inkling_overrides (model_overrides/inkling.py)",
)
def inkling_overrides(v: View) -> dict | None:
    """Inkling's layout: pool ratios 0.1, extra-buffer Mamba cache, fa4 (SM90/SM10x) or triton.

    Its attention runs only on fa4 or triton, so with no backend chosen it gets fa4 on
    Hopper and SM10x and triton elsewhere. Unset SWA and Mamba pool ratios become 0.1, an
    ``auto`` Mamba strategy becomes ``extra_buffer`` (the model requires it), and with the
    radix cache on the Mamba radix cache is used.
    """
    out: dict[str, Any] = {}
    if v.swa_full_tokens_ratio is None:
        out["swa_full_tokens_ratio"] = 0.1
    if v.mamba_full_memory_ratio is None:
        out["mamba_full_memory_ratio"] = 0.1
    if v.mamba_radix_cache_strategy == "auto":
        out["mamba_radix_cache_strategy"] = "extra_buffer"
    if not v.disable_radix_cache:
        out["uses_mamba_radix_cache"] = True
    if backends_unset(v):
        t = v.target
        out["attention_backend"] = "fa4" if t.is_sm90 or t.is_sm100 else "triton"
    return out
