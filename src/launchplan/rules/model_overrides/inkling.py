"""Inkling: hybrid SWA/Mamba pool ratios, the extra-buffer Mamba cache, fa4 or triton."""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BACKEND_FIELDS, BATCH, backends_unset

ARCHS = frozenset({"InklingForConditionalGeneration", "InklingForConditionalGenerationMTP"})


_INKLING = dict(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS + ("swa_full_tokens_ratio", "mamba_full_memory_ratio",
                            "mamba_radix_cache_strategy", "disable_radix_cache"),
    writes=("swa_full_tokens_ratio", "mamba_full_memory_ratio", "mamba_radix_cache_strategy",
            "uses_mamba_radix_cache", "attention_backend"),
    facts=("model.arch0", "target.is_sm90", "target.is_sm100"),
)


@rule(**_INKLING, sglang="_inkling_overrides (model_overrides/inkling.py)")
def inkling_overrides(v: View) -> dict | None:
    """Inkling's layout: pool ratios 0.1, extra-buffer Mamba cache, fa4 (SM90/SM10x) or triton.

    When: whenever its promises hold; each field has its own condition below.
    Effect: unset ``swa_full_tokens_ratio`` and ``mamba_full_memory_ratio`` become 0.1; an
        ``auto`` ``mamba_radix_cache_strategy`` becomes ``extra_buffer``; with the radix cache on,
        ``uses_mamba_radix_cache`` = true; with no backend chosen, ``attention_backend`` = fa4 on
        Hopper and SM10x and triton elsewhere.
    Why: its attention runs only on fa4 or triton, and the model requires the extra-buffer Mamba
        strategy (``_inkling_overrides``, arg_groups/model_overrides/inkling.py).
    Assumes: nothing.
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


@rule(name="inkling_overrides", variant="0.5.21", **_INKLING,
      sglang="_inkling_overrides (0.5.21)")
def inkling_overrides_0_5_21(v: View) -> dict | None:
    """0.5.21: as ``inkling_overrides``, with fa4 as the default on SM10x only.

    When: as ``inkling_overrides``.
    Effect: as ``inkling_overrides``, but Hopper's unset backend becomes triton, not fa4.
    Why: 0.5.22 extended the fa4 default to Hopper (``_inkling_overrides`` in 0.5.21 picks fa4
        on Blackwell alone).
    Assumes: nothing.
    """
    out = inkling_overrides(v)
    if out is not None and out.get("attention_backend") == "fa4" and not v.target.is_sm100:
        out["attention_backend"] = "triton"
    return out
