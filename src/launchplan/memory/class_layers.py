"""Layer kinds and attention shapes that a sliding-window model's config class fills in.

Some configs leave the split between sliding-window and full-attention layers, or the
full-attention layers' shape, to their config class, and SGLang sizes the KV pools from
what the class makes of them:

- Gemma 4 (and its unified, assistant and diffusion variants) and EmbeddingGemma 2
  (transformers 5.24's config classes): without ``layer_types`` every sixth layer is full
  attention (EmbeddingGemma 2 reads ``sliding_window_pattern`` for the six); the last layer
  is always made full attention, given or not. The base ``head_dim`` and
  ``num_key_value_heads`` are the sliding-window layers'; full-attention layers take
  ``global_head_dim`` (default 512) and, for Gemma 4 only where ``attention_k_eq_v`` is set,
  ``num_global_key_value_heads`` (EmbeddingGemma 2 always, default 1). SGLang's config
  loading flattens that into full-attention ``head_dim`` / ``num_key_value_heads`` and
  ``swa_*`` values (``_apply_gemma4_attention_overrides``).
- Beam (SGLang's ``BeamConfig``): without ``layer_types`` every sixth layer, and the last,
  is full attention; given kinds are kept as they are.
- Spark-X2.5 (SGLang's ``Spark2_5Config``): the given kinds cut to ``num_hidden_layers``,
  else three sliding-window layers then a full one, repeated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from launchplan.facts.memo import per_object
from launchplan.facts.models.attention import spark2_5_layer_types

#: Top-level model types whose attention shapes SGLang flattens as Gemma 4's.
GEMMA4_MODEL_TYPES = ("gemma4", "gemma4_assistant", "gemma4_unified",
                      "gemma4_unified_assistant", "diffusion_gemma", "embedding_gemma2")
#: The config classes' defaults: a full-attention layer every sixth, its head width.
FULL_EVERY, GLOBAL_HEAD_DIM = 6, 512
#: EmbeddingGemma 2's full-attention KV heads when the config names none.
EMBEDDING_GEMMA2_GLOBAL_KV_HEADS = 1
#: Classes whose default split is a full-attention layer every sixth, the last one too.
_BEAM_ARCHS = ("BeamForCausalLM",)


class Shapes(NamedTuple):
    """Per-kind attention shapes (total KV heads, before any sharding)."""

    full_head_dim: int
    full_v_head_dim: int
    full_kv_heads: int
    swa_head_dim: int
    swa_v_head_dim: int
    swa_kv_heads: int


def _default_kinds(layers: int, every: int) -> list[str]:
    return ["sliding_attention" if (i + 1) % every else "full_attention" for i in range(layers)]


@per_object
def layer_kinds(model: Any) -> list[str] | None:
    """The layer kinds SGLang's split reads, as the config class leaves them; None for a
    model whose class does not fill them in (its ``layer_types`` are read as given)."""
    text = model.text_config
    given = text.get("layer_types")
    layers = int(model.num_hidden_layers or 0)
    if model.model_type in GEMMA4_MODEL_TYPES:
        return gemma4_kinds(text, model.model_type, layers)
    if model.text_model_type == "spark2_5":
        return spark2_5_layer_types(text)
    if model.has_arch(*_BEAM_ARCHS) and given is None:
        kinds = _default_kinds(layers, FULL_EVERY)
        if kinds:
            kinds[-1] = "full_attention"
        return kinds
    return None


@per_object
def attention_shapes(model: Any) -> Shapes | None:
    """Full-attention and sliding-window shapes of a Gemma-4-typed config; None for others
    (their model facts already carry SGLang's shapes)."""
    if model.model_type not in GEMMA4_MODEL_TYPES:
        return None
    return gemma4_shapes(model.text_config, model.model_type, int(model.head_dim),
                         int(model.total_num_kv_heads))


def gemma4_kinds(text: Mapping[str, Any], model_type: str, layers: int) -> list[str]:
    """A Gemma-4-typed config's layer kinds (``layer_kinds``), from its text config alone so
    the parameter count reads the same split the KV pools do."""
    every = FULL_EVERY
    if model_type == "embedding_gemma2":
        every = int(text.get("sliding_window_pattern") or FULL_EVERY)
    given = text.get("layer_types")
    kinds = list(given) if given is not None else _default_kinds(layers, every)
    if kinds:
        kinds[-1] = "full_attention"
    return kinds


def gemma4_shapes(text: Mapping[str, Any], model_type: str, head_dim: int,
                  kv_heads: int) -> Shapes:
    """A Gemma-4-typed config's per-kind attention shapes (``attention_shapes``), from its text
    config; ``head_dim`` and ``kv_heads`` stand in where the file names neither."""
    swa_head = int(text.get("head_dim") or head_dim)
    swa_kv = int(text.get("num_key_value_heads") or kv_heads)
    full_head = int(text.get("global_head_dim") or GLOBAL_HEAD_DIM)
    full_kv = swa_kv
    global_kv = text.get("num_global_key_value_heads")
    if model_type == "embedding_gemma2":
        full_kv = int(global_kv if global_kv is not None else EMBEDDING_GEMMA2_GLOBAL_KV_HEADS)
    elif global_kv is not None and text.get("attention_k_eq_v",
                                            model_type == "diffusion_gemma"):
        full_kv = int(global_kv)
    full_v = int(text.get("v_head_dim") or full_head)
    return Shapes(full_head, full_v, full_kv, swa_head, swa_head, swa_kv)
