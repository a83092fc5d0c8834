"""The default space's models: every bundled model but drafts and the listed size variants."""

from __future__ import annotations

from launchplan.checks.space import SIZE_VARIANTS, default_models
from launchplan.facts.models import bundled_models, load_model


def _traits(name: str) -> tuple:
    m = load_model(name)
    return (m.arch0, m.attention_arch, m.quant_method, m.dtype, m.total_num_kv_heads,
            bool(m.config.get("tie_word_embeddings")), m.is_hybrid_swa, m.is_multimodal)


def test_each_size_variant_has_a_stand_in_of_the_same_kind_in_the_space():
    space = set(default_models())
    for variant, stand_in in SIZE_VARIANTS.items():
        assert variant in bundled_models() and variant not in space, variant
        assert stand_in in space, stand_in
        assert _traits(variant) == _traits(stand_in), (variant, stand_in)


def test_the_space_keeps_every_other_bundled_target_model():
    space = set(default_models())
    for name in bundled_models():
        draft = "Eagle" in load_model(name).arch0
        assert (name in space) == (not draft and name not in SIZE_VARIANTS), name
