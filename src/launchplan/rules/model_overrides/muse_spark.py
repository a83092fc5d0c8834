"""Muse Spark: TF32, an FP8 KV cache and the DP encoder under attention DP.

SGLang registers this provider in ``overrides.py``, after the family package, so it comes
after every family module's providers in the batch.
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BATCH

ARCHS = frozenset({"MuseSparkForConditionalGeneration"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("enable_tf32_matmul", "kv_cache_dtype", "mm_enable_dp_encoder", "attn_dp_size"),
    writes=("enable_tf32_matmul", "kv_cache_dtype", "mm_enable_dp_encoder"),
    facts=("model.arch0",),
    sglang="_muse_spark_overrides (overrides.py)",
)
def muse_spark_overrides(v: View) -> dict | None:
    """Unset TF32 matmul goes on, an ``auto`` KV cache becomes fp8_e4m3, and under
    attention DP an unset ``mm_enable_dp_encoder`` goes on.

    Its NaViT vision encoder shards over the full TP group only, so narrower attention TP
    needs the replicated (data-parallel) encoder.
    """
    out: dict[str, Any] = {}
    if v.enable_tf32_matmul is None:
        out["enable_tf32_matmul"] = True
    if v.kv_cache_dtype == "auto":
        out["kv_cache_dtype"] = "fp8_e4m3"
    if v.mm_enable_dp_encoder is None and v.attn_dp_size > 1:
        out["mm_enable_dp_encoder"] = True
    return out or None
