"""A speculative draft's config as SGLang's draft worker rewrites it (§4.2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _draft_renames(top: dict[str, Any], text: dict[str, Any], archs: list[str],
                   algorithm: str | None, has_text: bool
                   ) -> tuple[dict[str, Any], dict[str, Any], list[str], bool]:
    """``_config_draft_model``: rename arch0 to the draft form before shapes are derived."""
    archs = list(archs)
    arch0 = archs[0]
    if not has_text:
        text = top  # a plain LLM: one object, as in SGLang
    if text.get("model_type") == "dots3_note":
        for key in ("kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
                    "num_attention_heads", "num_key_value_heads", "v_head_dim"):
            if ("swa_" + key) in text:
                text[key] = text["swa_" + key]
        text["num_nextn_predict_layers"] = 1
        text["layer_types"] = ["sliding_attention"]
        archs[0] = "Dots3NoteForCausalLMNextN"
    elif arch0 == "DeepseekV4ForCausalLM":
        dspark = any(top.get(k) is not None for k in _DSPARK_KEYS)
        if dspark and algorithm in (None, "DSPARK"):
            archs[0] = "DeepseekV4ForCausalLMDSpark"
        else:
            archs[0] = "DeepseekV4ForCausalLMNextN"
            top["num_nextn_predict_layers"] = 1
    elif arch0 == "LongcatFlashForCausalLM":
        archs[0] = "LongcatFlashForCausalLMNextN"
        top["num_hidden_layers"] = top.get("num_nextn_predict_layers")
    elif arch0 == "Step3p7ForConditionalGeneration" and has_text:
        top, archs, has_text = text, ["Step3p5MTP"], False
    elif arch0 == "NemotronH_Omni_Reasoning_V3" and has_text:
        top, archs, has_text = text, ["NemotronHForCausalLMMTP"], False
        top["num_nextn_predict_layers"] = 1
    elif arch0 == "Glm5NextForConditionalGeneration":
        archs[0] = "Glm5NextForConditionalGenerationNextN"
        text["num_nextn_predict_layers"] = 1
        text["linear_attn_config"] = None
    elif arch0 == "Qwen4ExpForConditionalGeneration":
        archs[0] = "Qwen4ExpForCausalLMMTP"
        text.update(num_nextn_predict_layers=1, num_hidden_layers=1,
                    layer_types=["full_attention"], full_attention_interval=1)
    elif arch0 in _DRAFT_RENAMES:
        new, one_layer = _DRAFT_RENAMES[arch0]
        archs[0] = new
        if one_layer:
            top["num_nextn_predict_layers"] = 1
            if new == "Qwen3_5ForCausalLMMTP":
                text["num_nextn_predict_layers"] = 1
    top["architectures"] = archs
    return top, text, archs, has_text


#: arch0 → (draft arch0, whether num_nextn_predict_layers becomes 1).
_DRAFT_RENAMES: Mapping[str, tuple[str, bool]] = {
    "DeepseekV3ForCausalLM": ("DeepseekV3ForCausalLMNextN", False),
    "DeepseekV32ForCausalLM": ("DeepseekV3ForCausalLMNextN", False),
    "GlmMoeDsaForCausalLM": ("GlmMoeDsaForCausalLMNextN", False),
    "Glm4MoeForCausalLM": ("Glm4MoeForCausalLMNextN", False),
    "Glm4MoeLiteForCausalLM": ("Glm4MoeLiteForCausalLMNextN", False),
    "GlmOcrForConditionalGeneration": ("GlmOcrForConditionalGenerationNextN", False),
    "MiMoForCausalLM": ("MiMoMTP", False),
    "MiMoV2ForCausalLM": ("MiMoV2MTP", True),
    "MiMoV2FlashForCausalLM": ("MiMoV2MTP", True),
    "Step3p5ForCausalLM": ("Step3p5MTP", False),
    "InklingForConditionalGeneration": ("InklingForConditionalGenerationMTP", False),
    "GigaChat35ForCausalLM": ("GigaChat35ForCausalLMNextN", False),
    "BailingMoeV2ForCausalLM": ("BailingMoeForCausalLMNextN", False),
    "BailingMoeForCausalLM": ("BailingMoeForCausalLMNextN", False),
    "BailingMoeV2_5ForCausalLM": ("BailingMoeForCausalLMNextN", False),
    "BailingMoeV3ForCausalLM": ("BailingMoeForCausalLMNextN", False),
    "Ernie4_5_MoeForCausalLM": ("Ernie4_5_MoeForCausalLMMTP", False),
    "Qwen3NextForCausalLM": ("Qwen3NextForCausalLMMTP", True),
    "Qwen3MoeForCausalLM": ("Qwen3MoeForCausalLMMTP", True),
    "Qwen3_5ForConditionalGeneration": ("Qwen3_5ForCausalLMMTP", True),
    "Qwen3_5MoeForConditionalGeneration": ("Qwen3_5ForCausalLMMTP", True),
    "Qwen3_5ForCausalLM": ("Qwen3_5ForCausalLMMTP", True),
    "Qwen3_5MoeForCausalLM": ("Qwen3_5ForCausalLMMTP", True),
    "InternS2PreviewForConditionalGeneration": ("Qwen3_5ForCausalLMMTP", True),
    "InternS2MobiusForConditionalGeneration": ("Qwen3_5ForCausalLMMTP", True),
    "ExaoneMoEForCausalLM": ("ExaoneMoEForCausalLMMTP", True),
    "ExaoneMoeForCausalLM": ("ExaoneMoEForCausalLMMTP", True),
    "NemotronHForCausalLM": ("NemotronHForCausalLMMTP", True),
    "NemotronHPuzzleForCausalLM": ("NemotronHForCausalLMMTP", True),
    "HYV3ForCausalLM": ("HYV3ForCausalLMNextN", True),
    "HYV4ForCausalLM": ("HYV4ForCausalLMNextN", True),
}

_DSPARK_KEYS = ("dspark_block_size", "dspark_markov_rank", "dspark_noise_token_id",
                "dspark_target_layer_ids")
