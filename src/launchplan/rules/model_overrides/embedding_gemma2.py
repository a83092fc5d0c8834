"""EmbeddingGemma2: an encoder with bidirectional attention."""

from __future__ import annotations

from typing import Any

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BACKEND_FIELDS, BATCH

ARCHS = frozenset({"EmbeddingGemma2Model"})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS,
    writes=("disable_radix_cache", "attention_backend"),
    facts=("model.arch0",),
    sglang="_embedding_gemma2_overrides (model_overrides/embedding_gemma2.py)",
)
def embedding_gemma2_overrides(v: View) -> dict | None:
    """No radix cache (a prompt's K/V depend on later tokens), and triton when base is unset.

    Bidirectional prompt attention makes cached prefixes wrong; triton is the backend that
    runs it.
    """
    out: dict[str, Any] = {"disable_radix_cache": True}
    if v.attention_backend is None:
        out["attention_backend"] = "triton"
    return out
