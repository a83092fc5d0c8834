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


def test_a_checkpoints_own_config_class_types_its_vision_config():
    """MiniCPM-V and MiniCPM-o ship their config class (trust_remote_code): it builds a SigLIP
    vision config from the dict (and SigLIP-So400m without one), which SGLang's headroom
    reads, where a plain dict would give its 24 x 1024 fallbacks."""
    vision = {"model_type": "siglip_vision_model", "num_hidden_layers": 27, "hidden_size": 1152}
    for model_type in ("minicpmv", "minicpmo"):
        assert vision_class(model_type, vision) == "siglip_vision_model"
        assert vision_encoder_size(model_type, vision) == (27, 1152)
        assert absent_vision_size(model_type) == (27, 1152)
    # a key the dict leaves out takes the SigLIP class's default, not SGLang's fallback
    assert vision_encoder_size("minicpmv", {"num_hidden_layers": 27}) == (27, 768)


def test_minicpm_v_4s_published_file_sizes_its_headroom_as_sglang_does():
    """SGLang 0.5.23's resolution of openbmb/MiniCPM-V-4 with --trust-remote-code on an H100
    (the oracle, given a config class that builds the vision config as the published
    configuration_minicpm.py does): a static fraction of 0.7596298 (its 27 x 1152 encoder),
    not 0.79325 (a plain dict's 24 x 1024)."""
    from pathlib import Path

    from launchplan import resolve

    folder = Path(__file__).resolve().parents[1] / "parity" / "models" / "minicpm-v-4"
    result = resolve(["--trust-remote-code"], gpu="h100", model_path=str(folder))
    assert abs(result.value("mem_fraction_static") - 0.7596298339843749) < 1e-9
