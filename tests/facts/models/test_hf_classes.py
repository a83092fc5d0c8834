"""transformers class emulation: class defaults, aliases, text sub-configs, parser fixes.
"""

from __future__ import annotations

import json
from pathlib import Path

from launchplan.facts.models import (
    hf_classes,
    load_model,
)
from tests.facts.models.configs import (
    RECORDED,
    input_error,
    write,
)


def test_class_default_tables_match_transformers():
    for model_type, row in RECORDED["class_defaults"].items():
        emulated = hf_classes._with_class_defaults({}, model_type, "config.json", "")
        assert {k: emulated.get(k) for k in row} == row, model_type
        extra = set(hf_classes._TYPE_DEFAULTS[model_type].defaults) - set(row)
        assert not extra, (model_type, extra)
    assert set(RECORDED["class_defaults"]) == set(hf_classes._TYPE_DEFAULTS)


def test_known_model_types_match_transformers():
    assert hf_classes._KNOWN_MODEL_TYPES == frozenset(RECORDED["known_model_types"])


def test_qwen2_sliding_window_needs_use_sliding_window(tmp_path):
    base = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 1024,
            "num_attention_heads": 16, "sliding_window": 4096}
    assert load_model(write(tmp_path, base, "off")).sliding_window is None
    on = load_model(write(tmp_path, {**base, "use_sliding_window": True}, "on"))
    assert on.sliding_window == 4096 and not on.is_hybrid_swa
    assert load_model("qwen2.5-7b").config["sliding_window"] is None  # dropped, as transformers
    assert load_model("qwen2.5-7b").text_config is load_model("qwen2.5-7b").config


def test_missing_keys_take_class_defaults(tmp_path):
    m = load_model(write(tmp_path, {"architectures": ["LlamaForCausalLM"], "model_type": "llama"}))
    assert (m.hidden_size, m.num_attention_heads, m.total_num_kv_heads, m.head_dim) == \
        (4096, 32, 32, 128)
    assert (m.context_len, m.num_hidden_layers, m.vocab_size, m.dtype) == \
        (2048, 32, 32000, "float16")
    q3 = load_model(write(tmp_path, {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
                                     "hidden_size": 1024, "num_attention_heads": 16}, "q3"))
    assert q3.head_dim == 128 and q3.total_num_kv_heads == 32  # class constants, not derived
    mistral = load_model(write(tmp_path, {"architectures": ["MistralForCausalLM"],
                                          "model_type": "mistral"}, "mi"))
    assert (mistral.context_len, mistral.sliding_window, mistral.total_num_kv_heads) == \
        (131072, 4096, 8)


def test_attribute_aliases_and_kv_head_rules(tmp_path):
    gpt2 = load_model(write(tmp_path, {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2",
                                       "n_embd": 1600, "n_head": 25, "n_layer": 48}, "gpt2"))
    assert (gpt2.hidden_size, gpt2.num_attention_heads, gpt2.head_dim, gpt2.context_len) == \
        (1600, 25, 64, 1024)
    falcon = {"architectures": ["FalconForCausalLM"], "model_type": "falcon", "hidden_size": 8192,
              "num_attention_heads": 128, "num_kv_heads": 8, "multi_query": True}
    assert load_model(write(tmp_path, falcon, "f1")).total_num_kv_heads == 1
    newer = {**falcon, "new_decoder_architecture": True}
    assert load_model(write(tmp_path, newer, "f2")).total_num_kv_heads == 8
    glm = {"architectures": ["ChatGLMModel"], "model_type": "chatglm", "hidden_size": 4096,
           "num_attention_heads": 32, "num_layers": 40, "multi_query_group_num": 2,
           "seq_length": 131072}
    m = load_model(write(tmp_path, glm, "glm"))
    assert (m.total_num_kv_heads, m.num_kv_heads(8), m.num_hidden_layers, m.context_len) == \
        (2, 1, 40, 131072)


def test_text_config_vlms(tmp_path):
    cfg = {"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl",
           "torch_dtype": "bfloat16", "text_config": {"hidden_size": 3584,
                                                      "num_attention_heads": 28,
                                                      "num_key_value_heads": 4}}
    m = load_model(write(tmp_path, cfg))
    # no model_type in the sub-config: the parent's default text class fills the rest
    assert (m.text_model_type, m.head_dim, m.context_len, m.dtype) == \
        ("qwen2_5_vl_text", 128, 32768, "bfloat16")
    assert m.is_multimodal and m.has_text_config and m.multimodal()
    assert not m.multimodal(False) and not m.multimodal(language_model_only=True)
    assert m.config["num_attention_heads"] == 28  # text attributes copied to the top level
    gemma3 = {"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
              "text_config": {"model_type": "gemma3_text"}}
    g = load_model(write(tmp_path, gemma3, "g3"))
    assert not g.multimodal_default and not g.is_multimodal and g.multimodal(True)
    llava = {"architectures": ["LlavaLlamaForCausalLM"], "model_type": "llava",
             "hidden_size": 4096, "num_attention_heads": 32, "torch_dtype": "bfloat16"}
    lv = load_model(write(tmp_path, llava, "lv"))
    assert lv.dtype == "float16" and not lv.has_text_config and lv.is_multimodal
    thinker = {"architectures": ["Qwen2_5OmniModel"], "model_type": "qwen2_5_omni",
               "torch_dtype": "bfloat16",
               "thinker_config": {"text_config": {"model_type": "qwen2", "hidden_size": 896,
                                                  "num_attention_heads": 14,
                                                  "torch_dtype": "float32"}}}
    t = load_model(write(tmp_path, thinker, "omni"))
    assert (t.head_dim, t.dtype, t.text_model_type) == (64, "bfloat16", "qwen2")


def test_json_model_override_args(tmp_path):
    m = load_model("llama-3.1-8b", json_override='{"max_position_embeddings": 65536}')
    assert m.context_len == 65536
    merged = load_model("llama-3.1-8b",
                        json_override='{"rope_scaling": {"rope_type": "linear", "factor": 2}}')
    assert merged.rope_scaling["low_freq_factor"] == 1.0  # merged into the existing dict
    archs = load_model("qwen3-8b", json_override='{"architectures": ["Qwen3MoeForCausalLM"]}')
    assert archs.arch0 == "Qwen3MoeForCausalLM"
    vlm = {"architectures": ["Mistral3ForConditionalGeneration"], "model_type": "mistral3",
           "text_config": {"model_type": "mistral", "hidden_size": 5120,
                           "num_attention_heads": 32, "max_position_embeddings": 131072}}
    path = write(tmp_path, vlm)
    v = load_model(path, json_override={"text_config": {"max_position_embeddings": 8192}})
    assert v.context_len == 8192 and v.head_dim == 160  # merged, not replaced
    err = input_error(load_model, "qwen3-8b", json_override='{"num_attention_heads": "x"}')
    assert "'num_attention_heads' (after --json-model-override-args)" in err.message
    err = input_error(load_model, "qwen3-8b", json_override='{"a": ')
    assert err.message.startswith("--json-model-override-args: expected valid JSON (line 1")
    input_error(load_model, "qwen3-8b", json_override="[1, 2]")


# --- class defaults that change what the rules see (recorded from transformers 5.24) ------

def test_glm_moe_dsa_without_index_topk_is_still_dsa(tmp_path):
    path = write(tmp_path, {"architectures": ["GlmMoeDsaForCausalLM"],
                            "model_type": "glm_moe_dsa", "torch_dtype": "bfloat16"})
    facts = load_model(path)
    assert facts.is_mla and facts.is_deepseek_dsa and facts.index_topk == 2048


def test_granite_hybrid_mamba_chunk_defaults_to_256(tmp_path):
    path = write(tmp_path, {"architectures": ["GraniteMoeHybridForCausalLM"],
                            "model_type": "granitemoehybrid", "hidden_size": 1024,
                            "mamba_d_head": 32,  # 64 heads of 32 make up 2 x 1024
                            "num_hidden_layers": 4, "layer_types": ["mamba", "attention",
                                                                    "mamba", "attention"]})
    assert load_model(path).mamba_chunk_size == 256


def test_nemotron_h_takes_its_legacy_chunk_size():
    # SGLang's own NemotronHConfig reads ``chunk_size`` when ``mamba_chunk_size`` is absent:
    # every published Nemotron-H writes the legacy key (128), so 256 would be the wrong chunk
    folder = Path(__file__).parents[2] / "parity" / "models" / "nemotron-h-synth"
    config = json.loads((folder / "config.json").read_text())
    assert "mamba_chunk_size" not in config and config["chunk_size"] == 128
    assert load_model(str(folder)).mamba_chunk_size == 128


def test_config_classes_that_name_their_own_architecture(tmp_path):
    # SGLang's DeepSeek-VL2 and Janus classes set ``architectures`` whatever the file says;
    # their published checkpoints carry no such key. DeepSeek-VL2's language config is built
    # by SGLang's own permissive class, which takes null MLA ranks (the Tiny model's MHA)
    language = {"model_type": "deepseek_v2", "hidden_size": 1280, "num_attention_heads": 10,
                "num_key_value_heads": 10, "num_hidden_layers": 12, "kv_lora_rank": None,
                "q_lora_rank": None, "qk_nope_head_dim": 0, "qk_rope_head_dim": 0,
                "v_head_dim": 0, "use_mla": False, "max_position_embeddings": 4096}
    vl2 = {"model_type": "deepseek_vl_v2", "language_config": language,
           "torch_dtype": "bfloat16"}
    m = load_model(write(tmp_path, vl2, "vl2"))
    assert m.architectures == ("DeepseekVL2ForCausalLM",) and m.is_multimodal
    assert (m.attention_arch, m.total_num_kv_heads, m.head_dim) == ("MHA", 10, 128)
    named = load_model(write(tmp_path, {**vl2, "architectures": ["DeepseekVLV2ForCausalLM"]},
                             "named"))
    assert named.architectures == ("DeepseekVL2ForCausalLM",)
    janus = {"model_type": "multi_modality", "language_config": {
        "model_type": "llama", "hidden_size": 2048, "num_attention_heads": 16}}
    assert load_model(write(tmp_path, janus, "janus")).arch0 == "MultiModalityCausalLM"


def test_config_classes_that_rename_an_architecture(tmp_path):
    # SGLang's OLMo 3 class serves the checkpoint with its OLMo 2 model: Olmo3ForCausalLM is
    # dropped and Olmo2ForCausalLM added last, or named alone when the file has no key; other
    # names stay (found by archdraws2's allenai Olmo-3.1-32B-Instruct: SGLang's OLMo 2
    # overrides, no hybrid SWA pool and its own backend choice, did not apply)
    olmo3 = {"model_type": "olmo3", "hidden_size": 1024, "num_attention_heads": 8,
             "num_key_value_heads": 8, "num_hidden_layers": 4, "sliding_window": 4096}
    named = load_model(write(tmp_path, {**olmo3, "architectures": ["Olmo3ForCausalLM"]}, "a"))
    assert named.architectures == ("Olmo2ForCausalLM",)
    assert load_model(write(tmp_path, olmo3, "b")).architectures == ("Olmo2ForCausalLM",)
    both = {**olmo3, "architectures": ["Olmo3ForCausalLM", "LlamaForCausalLM"]}
    assert load_model(write(tmp_path, both, "c")).architectures == (
        "LlamaForCausalLM", "Olmo2ForCausalLM")
    other = {**olmo3, "architectures": ["LlamaForCausalLM"]}
    assert load_model(write(tmp_path, other, "d")).architectures == ("LlamaForCausalLM",)


def test_dbrx_strict_classes_refuse_what_sglang_refuses(tmp_path):
    # SGLang 0.5.23 reads a DBRX config through transformers' strict classes (each declared
    # field's JSON kind checked, a tied embedding refused) and then its own DbrxConfig, whose
    # attention and FFN blocks take no key they do not name. Found by archdraws3's
    # mlx-community/dbrx-instruct-4bit (``moe_normalize_expert_weights`` written as 1): every
    # launch on it was refused by SGLang and planned by launchplan. Each refusal below was
    # checked against the 0.5.23 oracle.
    dbrx = {"architectures": ["DbrxForCausalLM"], "model_type": "dbrx", "d_model": 1024,
            "n_heads": 8, "n_layers": 4, "max_seq_len": 4096, "vocab_size": 1000,
            "attn_config": {"clip_qkv": 8, "kv_n_heads": 2, "rope_theta": 500000,
                            "model_type": ""},
            "ffn_config": {"ffn_hidden_size": 2048, "moe_num_experts": 4, "moe_top_k": 2,
                           "moe_jitter_eps": 0, "moe_loss_weight": 0.05,
                           "moe_normalize_expert_weights": 1.0, "model_type": ""}}
    assert load_model(write(tmp_path, dbrx, "ok")).total_num_kv_heads == 2
    assert load_model(write(tmp_path, {**dbrx, "eos_token_id": [1, 2]}, "eos")) is not None

    def refused(change, name):
        cfg = {**dbrx, "attn_config": dict(dbrx["attn_config"]),
               "ffn_config": dict(dbrx["ffn_config"])}
        change(cfg)
        return input_error(load_model, write(tmp_path, cfg, name)).message

    # an integer where only a float is declared, at either level; a float or a boolean
    # where an integer is
    assert "moe_normalize_expert_weights" in refused(
        lambda c: c["ffn_config"].update(moe_normalize_expert_weights=1), "int")
    assert "resid_pdrop" in refused(lambda c: c.update(resid_pdrop=0), "top")
    assert "kv_n_heads" in refused(lambda c: c["attn_config"].update(kv_n_heads=2.0), "float")
    assert "attn_pdrop" in refused(lambda c: c["attn_config"].update(attn_pdrop=True), "bool")
    assert "tie_word_embeddings" in refused(lambda c: c.update(tie_word_embeddings=True), "tie")
    # keys SGLang's own blocks do not name (transformers' base-class clutter included)
    assert "return_dict" in refused(lambda c: c["attn_config"].update(return_dict=True), "kw")
    assert "hidden_size" in refused(lambda c: c["ffn_config"].update(hidden_size=1024), "hid")


def test_strict_classes_refuse_a_declared_field_of_another_kind(tmp_path):
    # transformers 5.24 checks the JSON kind of every field its strict classes declare with a
    # concrete type (data/strict_kinds.json, written from those classes); SGLang 0.5.23 reads
    # every config through them first. Checked against the 0.5.23 oracle: a Llama file with
    # ``"rms_norm_eps": 1`` or ``"initializer_range": 0`` is refused.
    llama = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024,
             "num_attention_heads": 8, "num_hidden_layers": 4, "vocab_size": 1000}
    assert load_model(write(tmp_path, {**llama, "attention_dropout": 0}, "ok")) is not None
    for name, change in (("eps", {"rms_norm_eps": 1}), ("init", {"initializer_range": 0}),
                         ("layers", {"num_hidden_layers": True}),
                         ("act", {"hidden_act": 1})):
        err = input_error(load_model, write(tmp_path, {**llama, **change}, name))
        assert f"field '{next(iter(change))}'" in err.message
        assert "transformers' strict llama config class" in err.message
    # the same check on a VLM's text sub-config, by its own class
    vlm = {"architectures": ["Mistral3ForConditionalGeneration"], "model_type": "mistral3",
           "text_config": {"model_type": "mistral", "hidden_size": 1024,
                           "num_attention_heads": 8, "rms_norm_eps": 1}}
    err = input_error(load_model, write(tmp_path, vlm, "vlm"))
    assert "field 'text_config.rms_norm_eps'" in err.message
    # a key set by --json-model-override-args is named as such
    err = input_error(load_model, "llama-3.1-8b", json_override='{"rms_norm_eps": 1}')
    assert "'rms_norm_eps' (after --json-model-override-args)" in err.message


def test_a_layer_list_of_another_length_than_the_layers_is_refused(tmp_path):
    # transformers 5.24's base config validates ``layer_types`` (and ``mlp_layer_types``)
    # against ``num_hidden_layers`` on construction; checked against the 0.5.23 oracle: a
    # Qwen3 file listing 37 for 36 layers is refused, 36 resolves. EXAONE-4.5-33B-FP8's
    # published file lists 65 for 64 in its text config, which Exaone4_5Config builds as
    # Exaone4Config (model_type exaone4_5_text relabelled)
    qwen3 = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 1024,
             "num_attention_heads": 8, "num_key_value_heads": 8, "num_hidden_layers": 4,
             "vocab_size": 1000}
    full = ["full_attention"] * 4
    assert load_model(write(tmp_path, {**qwen3, "layer_types": full}, "ok")) is not None
    err = input_error(load_model, write(tmp_path, {**qwen3, "layer_types": [*full, full[0]]},
                                        "long"))
    assert "field 'layer_types'" in err.message and "one entry per layer (4" in err.message
    # an override updates the config the class built: a one-layer cut of a file passes
    # (pull request 11018 ran gpt-oss-20b's 24 listed layers as one)
    cut = write(tmp_path, {**qwen3, "layer_types": full}, "cut")
    assert load_model(cut, json_override='{"num_hidden_layers": 1}') is not None
    models = Path(__file__).resolve().parents[2] / "parity" / "models"
    err = input_error(load_model, str(models / "exaone-4.5-33b-fp8"))
    assert "text_config.layer_types" in err.message and "(64, num_hidden_layers)" in err.message


def test_the_strict_kinds_table_read_one_model_type_at_a_time_is_the_whole_table():
    """A launch reads only its model type's line of ``strict_kinds.json``; every line must
    give what parsing the whole file gives, and an unknown type nothing."""
    import json

    from launchplan.facts.models import hf_classes

    table = json.loads(hf_classes._STRICT_KINDS_FILE.read_text(encoding="utf-8"))["kinds"]
    assert len(table) > 100
    for mt, fields in table.items():
        assert hf_classes._strict_kinds(mt) == {k: frozenset(v) for k, v in fields.items()}
    assert hf_classes._strict_kinds("no-such-model-type") == {}
