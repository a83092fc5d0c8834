"""The vision-encoder size SGLang reads, as transformers' config classes present it."""

from __future__ import annotations

from launchplan.facts.vision import absent_vision_size, vision_class, vision_encoder_size


def test_attribute_map_and_class_defaults():
    # Qwen2-VL style encoders store their depth under ``depth``
    assert vision_encoder_size("qwen2_5_vl", {"depth": 32, "hidden_size": 1280}) == (32, 1280)
    assert vision_encoder_size("qwen2_vl", {"depth": 32, "embed_dim": 1280,
                                            "hidden_size": 1536}) == (32, 1536)
    # the canonical key reaches the aliased attribute too
    assert vision_encoder_size("qwen2_5_vl", {"num_hidden_layers": 8,
                                              "hidden_size": 1280}) == (8, 1280)
    # no keys: the class defaults
    layers, hidden = vision_encoder_size("qwen2_5_vl", {})
    assert layers == 32 and hidden > 0


def test_the_vision_class_can_follow_the_dicts_own_model_type():
    assert vision_class("llava", {"model_type": "siglip_vision_model"}) == "siglip_vision_model"
    assert vision_class("llava", {}) == "clip_vision_model"
    assert vision_encoder_size("gemma3", {"model_type": "siglip_vision_model",
                                          "num_hidden_layers": 27,
                                          "hidden_size": 1152}) == (27, 1152)


def test_a_plain_dict_answers_neither_attribute():
    assert vision_class("llama", {}) is None
    assert vision_encoder_size("llama", {"num_hidden_layers": 64,
                                         "hidden_size": 4096}) == (24, 1024)
    assert vision_encoder_size("qwen2_5_vl", None) == (24, 1024)


def test_a_class_building_its_own_vision_config_has_its_own_encoder_size():
    # without vision_config, LLaVA's class builds a ViT-L/14 (24 x 1024), not the CLIP vision
    # class's defaults (12 x 768); PaliGemma builds a SigLIP-So400m
    assert vision_encoder_size("llava", {}) == (12, 768)
    assert absent_vision_size("llava") == (24, 1024)
    assert absent_vision_size("paligemma") == (27, 1152)
    # a type the table does not know answers as an empty dict would
    assert absent_vision_size("llama") == (24, 1024)
