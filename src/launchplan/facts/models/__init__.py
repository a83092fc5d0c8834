"""Model facts: what SGLang 0.5.23 derives from a checkpoint's ``config.json``.

``config.json`` is read as data only; no model or configuration code is imported or run. The
behaviour of the transformers config classes that SGLang relies on (class defaults, attribute
aliases, rope normalisation, Qwen2's sliding-window drop) is emulated from tables for the
model types launchplan knows; for others the JSON is taken as given and ``caveats`` says so.

By concern: ``loading`` (entry points, cache), ``locate`` (finding config.json), ``bundled``
(shipped models, Hub ids), ``fields`` (bounded JSON and typed field reads), ``hf_classes``
(transformers class emulation, SGLang's parser fixes), ``derive`` (dtype, context length,
the record), ``attention`` (shapes, KV heads, hybrid kinds), ``draft`` (draft renames),
``architectures`` (architecture tables), ``record`` (``ModelFacts``).
"""

from __future__ import annotations

from launchplan.facts.environment import LONGER_CONTEXT_ENV
from launchplan.facts.models.bundled import (
    HUB_RENAMES,
    bundled_alias,
    bundled_for_path,
    bundled_models,
)
from launchplan.facts.models.fields import MAX_CONFIG_BYTES, MAX_INT
from launchplan.facts.models.loading import clear_cache, load_draft_model, load_model
from launchplan.facts.models.record import ModelFacts

__all__ = [
    "HUB_RENAMES",
    "LONGER_CONTEXT_ENV",
    "MAX_CONFIG_BYTES",
    "MAX_INT",
    "ModelFacts",
    "bundled_alias",
    "bundled_for_path",
    "bundled_models",
    "clear_cache",
    "load_draft_model",
    "load_model",
]
