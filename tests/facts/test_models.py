"""Model facts: the §7 reference values, synthetic configs, errors, caching and speed.

``data/sglang_model_facts.json`` holds what SGLang 0.5.23's own ``ModelConfig`` derived for
every case in ``data/model_cases.json`` (recorded by ``make_model_fixtures.py`` in the oracle
venv); ``test_matches_sglang`` checks launchplan against it case by case.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from types import MappingProxyType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from launchplan.errors import InputError
from launchplan.facts import models, quantization
from launchplan.facts.models import (
    ModelFacts,
    bundled_models,
    clear_cache,
    load_draft_model,
    load_model,
)
from launchplan.facts.targets import get_target

DATA = Path(__file__).parent / "data"
CASES = json.loads((DATA / "model_cases.json").read_text())
RECORDED = json.loads((DATA / "sglang_model_facts.json").read_text())
BY_NAME = {c["name"]: c for c in CASES}

LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
         "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
         "vocab_size": 128256, "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


def write(tmp_path: Path, config, name: str = "m", files: dict | None = None) -> str:
    folder = tmp_path / name
    folder.mkdir(parents=True, exist_ok=True)
    text = config if isinstance(config, str) else json.dumps(config)
    (folder / "config.json").write_text(text)
    for fname, content in (files or {}).items():
        (folder / fname).write_text(content if isinstance(content, str) else json.dumps(content))
    return str(folder)


def llama(tmp_path: Path, **changes) -> ModelFacts:
    cfg = {**LLAMA, **changes}
    name = f"llama-{len(list(tmp_path.iterdir()))}"  # a fresh folder: no cache hit
    return load_model(write(tmp_path, {k: v for k, v in cfg.items() if v is not ...}, name))


def input_error(fn, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        fn(*args, **kwargs)
    err = info.value
    assert err.exit_code == 2
    assert "\n" not in err.message
    return err


# --- §7 reference values --------------------------------------------------------------------

# name: (arch0, attention, context, head_dim, v_head_dim, heads, kv, kv/rank at tp8, dtype,
#        quant, sliding window, hybrid swa, sinks)
REFERENCE = {
    "llama-3.1-8b": ("LlamaForCausalLM", "MHA", 131072, 128, 128, 32, 8, 1, "bfloat16", None,
                     None, False, False),
    "deepseek-v3": ("DeepseekV3ForCausalLM", "MLA", 163840, 256, 128, 128, 128, 16, "bfloat16",
                    "fp8", None, False, False),
    "deepseek-v2-lite": ("DeepseekV2ForCausalLM", "MLA", 163840, 256, 128, 16, 16, 2,
                         "bfloat16", None, None, False, False),
    "gpt-oss-20b": ("GptOssForCausalLM", "MHA", 131072, 64, 64, 64, 8, 1, "float16", "mxfp4",
                    128, True, True),
    "qwen2.5-7b": ("Qwen2ForCausalLM", "MHA", 32768, 128, 128, 28, 4, 1, "bfloat16", None, None,
                   False, False),
    "qwen3-8b": ("Qwen3ForCausalLM", "MHA", 40960, 128, 128, 32, 8, 1, "bfloat16", None, None,
                 False, False),
    "qwen3-30b-a3b": ("Qwen3MoeForCausalLM", "MHA", 40960, 128, 128, 32, 4, 1, "bfloat16", None,
                      None, False, False),
    "mistral-7b-v0.3": ("MistralForCausalLM", "MHA", 32768, 128, 128, 32, 8, 1, "bfloat16", None,
                        None, False, False),
    "llama-3.1-8b-eagle": ("LlamaForCausalLMEagle", "MHA", 8192, 128, 128, 32, 8, 1, "float16",
                           None, None, False, False),
    "llama-3.1-8b-eagle3": ("LlamaForCausalLMEagle3", "MHA", 2048, 128, 128, 32, 8, 1,
                            "float16", None, None, False, False),
}


def test_every_bundled_model_has_reference_values():
    # the §7 table above, or SGLang's own recorded facts (test_matches_sglang)
    recorded = {c["model"] for c in CASES if "model" in c and c["name"] in RECORDED["cases"]}
    assert set(bundled_models()) <= set(REFERENCE) | recorded
    assert set(REFERENCE) <= set(bundled_models())


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_reference_values(name):
    m = load_model(name)
    got = (m.arch0, m.attention_arch, m.context_len, m.head_dim, m.v_head_dim,
           m.num_attention_heads, m.total_num_kv_heads, m.num_kv_heads(8), m.dtype,
           m.quant_method, m.sliding_window, m.is_hybrid_swa, m.has_attention_sinks)
    assert got == REFERENCE[name]
    assert m.name == name and m.path == name
    assert m.is_mla == (m.attention_arch == "MLA")
    assert not m.is_multimodal and m.is_generation and not m.caveats


def test_deepseek_mla_ranks_and_mtp_layers():
    m = load_model("deepseek-v3")
    assert (m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim) == (512, 128, 64)
    assert m.num_nextn_predict_layers == 1
    assert m.has_asymmetric_kv  # 256 vs 128, as SGLang computes it for MLA too
    assert not m.is_deepseek_dsa and m.index_topk is None
    assert load_model("llama-3.1-8b").kv_lora_rank is None


# --- agreement with SGLang's own ModelConfig ------------------------------------------------

def _path_of(case: dict, tmp_path: Path) -> str:
    if "model" in case:
        return case["model"]
    return write(tmp_path, case["config"], case["name"], case.get("files"))


def _launchplan(case: dict, tmp_path: Path):
    env = dict(case.get("env") or {})
    override = json.dumps(case["override"]) if case.get("override") else None
    if "draft_of" in case:
        target, _ = _launchplan(BY_NAME[case["draft_of"]], tmp_path)
        facts = load_draft_model(_path_of(case, tmp_path), target=target, json_override=override,
                                 env=env, speculative_algorithm=case.get("algorithm"))
    else:
        facts = load_model(_path_of(case, tmp_path), json_override=override,
                           context_length=case.get("context_length"), env=env)
    platform = quantization.QuantPlatform.from_target(get_target(case.get("platform", "h100")))
    verdict = quantization.verify_quantization(facts.quant_config, case.get("quantization"),
                                               platform, is_draft=facts.is_draft)
    return facts, verdict


def _comparable(f: ModelFacts, verdict) -> dict:
    return {
        "architectures": list(f.architectures), "model_type": f.model_type,
        "attention_arch": f.attention_arch, "num_hidden_layers": f.num_hidden_layers,
        "hidden_size": f.hidden_size, "vocab_size": f.vocab_size,
        "num_attention_heads": f.num_attention_heads, "total_num_kv_heads": f.total_num_kv_heads,
        "kv_heads_per_rank": {str(tp): f.num_kv_heads(tp) for tp in (1, 2, 4, 8, 16)},
        "head_dim": f.head_dim, "v_head_dim": f.v_head_dim, "swa_head_dim": f.swa_head_dim,
        "swa_v_head_dim": f.swa_v_head_dim, "has_asymmetric_kv": f.has_asymmetric_kv,
        "context_len": f.context_len, "dtype": f.dtype, "quantization": verdict.method,
        "sliding_window": f.sliding_window, "attention_chunk_size": f.attention_chunk_size,
        "is_hybrid_swa": f.is_hybrid_swa, "has_attention_sinks": f.has_attention_sinks,
        "is_multimodal": f.is_multimodal,
        "mm_chunked_prefill_supported": f.multimodal_default and f.mm_chunked_prefill_supported,
        "mm_breakable_graph_supported": f.multimodal_default and f.mm_breakable_graph_supported,
        "is_encoder_decoder": f.is_encoder_decoder, "is_generation": f.is_generation,
        "num_nextn_predict_layers": f.num_nextn_predict_layers,
        "is_deepseek_dsa": f.is_deepseek_dsa,
        "index_topk": f.index_topk if f.is_deepseek_dsa else None,
        "uses_kda": f.uses_kda, "linear_attn_kind": f.linear_attn_kind,
        "kv_lora_rank": f.kv_lora_rank, "qk_nope_head_dim": f.qk_nope_head_dim,
        "qk_rope_head_dim": f.qk_rope_head_dim,
    }


@pytest.mark.parametrize("name", sorted(RECORDED["cases"]))
def test_matches_sglang(name, tmp_path):
    case, recorded = BY_NAME[name], RECORDED["cases"][name]
    if "error" in recorded and case.get("launchplan") != "facts":
        with pytest.raises((InputError, quantization.QuantizationError)) as info:
            _launchplan(case, tmp_path)
        if isinstance(info.value, InputError):
            assert info.value.exit_code == 2
        return
    facts, verdict = _launchplan(case, tmp_path)
    if "error" in recorded:  # a deliberate difference, documented on the case
        return
    got = _comparable(facts, verdict)
    want = recorded["facts"]
    assert {k: got[k] for k in want} == want


def test_every_case_is_recorded_or_explained():
    unrecorded = {c["name"] for c in CASES if c.get("oracle", True)} - set(RECORDED["cases"])
    assert not unrecorded, "rerun make_model_fixtures.py in the oracle venv"


def test_class_default_tables_match_transformers():
    for model_type, row in RECORDED["class_defaults"].items():
        emulated = models._with_class_defaults({}, model_type, "config.json", "")
        assert {k: emulated.get(k) for k in row} == row, model_type
        extra = set(models._TYPE_DEFAULTS[model_type].defaults) - set(row)
        assert not extra, (model_type, extra)
    assert set(RECORDED["class_defaults"]) == set(models._TYPE_DEFAULTS)


def test_known_model_types_match_transformers():
    assert models._KNOWN_MODEL_TYPES == frozenset(RECORDED["known_model_types"])


# --- synthetic configs ------------------------------------------------------------------------

@pytest.mark.parametrize("rope, max_pos, context", [
    ({"type": "linear", "factor": 2.0}, 4096, 8192),
    ({"type": "dynamic", "factor": 2.0}, 4096, 8192),
    ({"type": "yarn", "factor": 4.0}, 32768, 32768),
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192}, 32768, 32768),
    ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "original_max_position_embeddings": 8192}, 131072, 131072),
    ({"rope_type": "default", "factor": 2.0}, 4096, 8192),
    ({"type": "linear", "factor": 2.0, "original_max_position_embeddings": 2048}, 4096, 4096),
    (None, 4096, 4096),
])
def test_rope_rules(tmp_path, rope, max_pos, context):
    m = llama(tmp_path, rope_scaling=rope, max_position_embeddings=max_pos)
    assert m.context_len == m.derived_context_len == context
    if rope:
        assert m.rope_scaling["rope_type"] == rope.get("rope_type", rope.get("type"))


def test_rope_nested_per_layer_type_never_multiplies(tmp_path):
    cfg = {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text",
           "max_position_embeddings": 131072, "rope_scaling": {"rope_type": "linear",
                                                                "factor": 8.0}}
    m = load_model(write(tmp_path, cfg))
    assert m.context_len == 131072
    assert m.sliding_window == 4096 and m.head_dim == 256  # Gemma3TextConfig's defaults


def test_context_keys_order_and_fallback(tmp_path):
    assert llama(tmp_path, max_position_embeddings=..., seq_length=8192).context_len == 8192
    bloom = load_model(write(tmp_path, {"architectures": ["BloomForCausalLM"],
                                        "model_type": "bloom", "n_head": 4}, "bloom"))
    assert (bloom.context_len, bloom.num_attention_heads, bloom.hidden_size) == (2048, 4, 64)
    assert not bloom.caveats
    # a known type without a defaults row: SGLang's generic fallback, flagged
    m = load_model(write(tmp_path, {"architectures": ["HeliumForCausalLM"], "model_type": "helium",
                                    "hidden_size": 64, "num_attention_heads": 4}, "helium"))
    assert m.context_len == 2048 and any("2048" in c for c in m.caveats)


def test_context_length_flag(tmp_path):
    assert load_model("llama-3.1-8b", context_length=4096).context_len == 4096
    err = input_error(load_model, "llama-3.1-8b", context_length=200_000, env={})
    assert "--context-length" in err.message and "131072" in err.message
    assert "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN" in err.message
    env = {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}
    m = load_model("llama-3.1-8b", context_length=200_000, env=env)
    assert (m.context_len, m.derived_context_len) == (200_000, 131072)
    # the environment is consulted again on a cached call
    input_error(load_model, "llama-3.1-8b", context_length=200_000, env={})
    assert load_model("llama-3.1-8b", context_length=200_000,
                      env={"SGLANG_IS_IN_CI": "true"}).context_len == 200_000
    err = input_error(load_model, "llama-3.1-8b", context_length=200_000,
                      env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "maybe"})
    assert "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN" in err.message
    input_error(load_model, "llama-3.1-8b", context_length=0)
    input_error(load_model, "llama-3.1-8b", context_length="128k")


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


def test_dtype_rules(tmp_path):
    assert llama(tmp_path, torch_dtype="float32").dtype == "float16"
    assert llama(tmp_path, torch_dtype=...).dtype == "float16"
    assert llama(tmp_path, torch_dtype=..., dtype="float8_e4m3fn").dtype == "float8_e4m3fn"
    assert llama(tmp_path, torch_dtype="float16", dtype="bfloat16").dtype == "bfloat16"
    assert llama(tmp_path, torch_dtype="half").config_dtype == "float16"
    gemma = {"architectures": ["GemmaForCausalLM"], "model_type": "gemma",
             "torch_dtype": "float32"}
    assert load_model(write(tmp_path, gemma, "g")).dtype == "bfloat16"
    err = input_error(llama, tmp_path, torch_dtype="bf16")
    assert "'torch_dtype'" in err.message and "'bf16'" in err.message


MLA_RANKS = {"kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
             "v_head_dim": 128}


@pytest.mark.parametrize("archs, model_type, extra, arch, head_dim", [
    (["DeepseekV2ForCausalLM"], "deepseek_v2", {}, "MLA", 256),
    (["DeepseekV32ForCausalLM"], "deepseek_v32", {}, "MLA", 256),
    (["MiniCPM3ForCausalLM"], "minicpm3", {}, "MLA", 128),
    (["KimiLinearForCausalLM"], "kimi_linear", MLA_RANKS, "MLA", 72),
    (["SarvamMLAForCausalLM"], "sarvam_mla", MLA_RANKS, "MLA", 192),
    (["BailingMoeV3ForCausalLM"], "llama", {**MLA_RANKS, "use_mla_nope": True}, "MLA", 128),
    (["DeepseekV4ForCausalLM"], "deepseek_v4", {"head_dim": 512, "sliding_window": 128,
                                                "index_head_dim": 128, "compress_ratios": [4]},
     "MHA", 512),
    (["Glm4MoeForCausalLMNextN"], "glm4_moe", {"head_dim": 128, "v_head_dim": 64}, "MHA", 128),
    (["PixtralForConditionalGeneration"], "llava", {}, "MHA", 128),
    # the ranks must sit in the text config: llava builds a default one when it is absent
    (["PixtralForConditionalGeneration"], "llava", MLA_RANKS, "MHA", 128),
    (["PixtralForConditionalGeneration"], "llava",
     {"text_config": {"model_type": "llama", "num_attention_heads": 32, **MLA_RANKS}}, "MLA", 256),
    (["LlamaForCausalLM", "DeepseekV3ForCausalLM"], "llama", MLA_RANKS, "MLA", 256),
])
def test_mla_table(tmp_path, archs, model_type, extra, arch, head_dim):
    cfg = {"architectures": archs, "model_type": model_type, "hidden_size": 4096,
           "num_attention_heads": 32, **extra}
    m = load_model(write(tmp_path, cfg))
    assert (m.attention_arch, m.head_dim, m.is_mla) == (arch, head_dim, arch == "MLA")
    assert m.arch0 == archs[0]  # dispatch still reads arch0
    if archs[0] == "Glm4MoeForCausalLMNextN":
        assert m.v_head_dim == 128 and not m.has_asymmetric_kv
    if archs[0] == "BailingMoeV3ForCausalLM":
        assert m.qk_rope_head_dim == 0


def test_mla_without_ranks_is_refused(tmp_path):
    cfg = {"architectures": ["LlamaForCausalLM", "DeepseekV3ForCausalLM"], "model_type": "llama",
           "hidden_size": 4096, "num_attention_heads": 32}
    err = input_error(load_model, write(tmp_path, cfg))
    assert "config.json field 'kv_lora_rank'" in err.message and "MLA" in err.message


def test_dsa_reads_arch0_and_index_topk(tmp_path):
    cfg = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
           "index_topk": 2048}
    m = load_model(write(tmp_path, cfg))
    assert m.is_deepseek_dsa and m.index_topk == 2048 and m.context_len == 4096
    other = {**cfg, "architectures": ["LlamaForCausalLM", "DeepseekV3ForCausalLM"]}
    m = load_model(write(tmp_path, other, "o"))
    assert m.is_mla and not m.is_deepseek_dsa


def test_ssm_and_hybrid_linear(tmp_path):
    m2 = load_model(write(tmp_path, {"architectures": ["Mamba2ForCausalLM"],
                                     "model_type": "mamba2"}, "m2"))
    assert (m2.attention_arch, m2.head_dim, m2.total_num_kv_heads, m2.num_attention_heads) == \
        ("SSM", 64, 0, None)
    assert m2.linear_attn_kind == "mamba" and m2.is_hybrid_linear and not m2.is_mla
    raw = load_model(write(tmp_path, {"d_model": 768, "n_layer": 24, "vocab_size": 50277,
                                      "ssm_cfg": {}, "pad_vocab_size_multiple": 8}, "raw"))
    assert (raw.arch0, raw.head_dim, raw.vocab_size, raw.attention_arch) == \
        ("MambaForCausalLM", 0, 50280, "SSM")
    nxt = load_model(write(tmp_path, {"architectures": ["Qwen3NextForCausalLM"],
                                      "model_type": "qwen3_next"}, "next"))
    assert (nxt.linear_attn_kind, nxt.attention_arch, nxt.head_dim) == ("gdn", "MHA", 256)
    kimi = {"architectures": ["KimiLinearForCausalLM"], "model_type": "kimi_linear",
            "linear_attn_config": {"kda_layers": [1], "full_attn_layers": [2]}, **MLA_RANKS}
    k = load_model(write(tmp_path, kimi, "kimi"))
    assert k.uses_kda and k.linear_attn_kind == "kda" and k.is_mla
    granite = {"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid",
               "layer_types": ["attention", "attention"]}
    assert load_model(write(tmp_path, granite, "g")).linear_attn_kind is None
    assert load_model("llama-3.1-8b").linear_attn_kind is None


def test_sliding_window_hybrid_swa_and_sinks(tmp_path):
    assert llama(tmp_path, learnable_sink=True).has_attention_sinks
    flagged = llama(tmp_path, is_hybrid_swa=True, sliding_window=1024)
    assert flagged.is_hybrid_swa and flagged.sliding_window == 1024
    mimo = {**LLAMA, "architectures": ["MiMoV2FlashForCausalLM"], "model_type": "llama",
            "add_swa_attention_sink_bias": True}
    assert load_model(write(tmp_path, mimo, "mimo")).has_attention_sinks
    beam = {**LLAMA, "architectures": ["BeamForCausalLM"], "layer_types": ["full_attention"]}
    assert not load_model(write(tmp_path, beam, "beam")).is_hybrid_swa


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


def test_embedding_and_encoder_decoder(tmp_path):
    emb = llama(tmp_path, architectures=["LlamaEmbeddingModel"])
    assert not emb.is_generation and emb.auto_embedding
    eg = {"architectures": ["Gemma3TextModel"], "model_type": "gemma3_text",
          "use_bidirectional_attention": True}
    e = load_model(write(tmp_path, eg, "eg"))
    assert e.is_embedding_gemma and not e.is_generation and e.sliding_window == 2049
    whisper = {"architectures": ["WhisperForConditionalGeneration"], "model_type": "whisper",
               "d_model": 384, "encoder_attention_heads": 6, "encoder_layers": 4}
    w = load_model(write(tmp_path, whisper, "w"))
    assert w.is_encoder_decoder and w.is_multimodal and w.head_dim == 64


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


def test_quantization_facts(tmp_path):
    m = load_model("gpt-oss-20b")
    assert m.quant_method == "mxfp4" and m.quantization_config["quant_method"] == "mxfp4"
    side = write(tmp_path, LLAMA, files={"hf_quant_config.json":
                                         {"quantization": {"quant_algo": "FP8"}}})
    s = load_model(side)
    assert s.quant_method == "modelopt_fp8" and s.quantization_config is None
    assert llama(tmp_path, quantization_config={}).quant_method == ""
    assert llama(tmp_path, quantization_config={"quant_method": "FP8"}).quant_method == "fp8"
    err = input_error(llama, tmp_path, quantization_config="fp8")
    assert "config.json field 'quantization_config'" in err.message
    err = input_error(llama, tmp_path, quantization_config={"quant_method": 3})
    assert "quant_method" in err.message


def test_drafts(tmp_path):
    target = load_model("deepseek-v3")
    d = load_draft_model("deepseek-v3", target=target)
    assert (d.arch0, d.is_mla, d.is_draft, d.context_len) == \
        ("DeepseekV3ForCausalLMNextN", True, True, 163840)
    q = load_draft_model("qwen3-30b-a3b", target=load_model("qwen3-30b-a3b"))
    assert (q.arch0, q.num_nextn_predict_layers) == ("Qwen3MoeForCausalLMMTP", 1)
    llama_target = load_model("llama-3.1-8b")
    err = input_error(load_draft_model, "llama-3.1-8b-eagle", target=llama_target, env={})
    assert err.message.startswith("--speculative-draft-model-path: expected a draft whose "
                                  "context length (8192, derived from llama-3.1-8b-eagle/")
    assert "target model's context length" in err.message and err.message.endswith("131072")
    env = {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}
    e = load_draft_model("llama-3.1-8b-eagle", target=llama_target, env=env)
    assert (e.context_len, e.derived_context_len, e.dtype) == (131072, 8192, "float16")
    short = load_model("llama-3.1-8b", context_length=2048)
    assert load_draft_model("llama-3.1-8b-eagle3", target=short).context_len == 2048
    # a draft ignores decode-context parallelism
    assert d.num_kv_heads(8, dcp_size=2) == 16 and target.num_kv_heads(8, dcp_size=2) == 32
    v4 = {"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4",
          "head_dim": 512, "sliding_window": 128, "index_head_dim": 128,
          "compress_ratios": [4, 4], "num_hidden_layers": 2, "dspark_block_size": 4}
    path = write(tmp_path, v4)
    v4t = load_model(path)
    assert load_draft_model(path, target=v4t).arch0 == "DeepseekV4ForCausalLMDSpark"
    nextn = load_draft_model(path, target=v4t, speculative_algorithm="eagle")
    assert (nextn.arch0, nextn.num_nextn_predict_layers) == ("DeepseekV4ForCausalLMNextN", 1)


def test_mistral_native_paths_are_flagged(tmp_path):
    m = load_model(write(tmp_path, LLAMA, "Mistral-Large-3-675B"))
    assert any("params.json" in c for c in m.caveats)


def test_remote_code_and_unknown_types(tmp_path):
    cfg = {"architectures": ["FooForCausalLM"], "model_type": "foobar", "hidden_size": 64,
           "num_attention_heads": 4}
    err = input_error(load_model, write(tmp_path, cfg, "a"))
    assert "config.json field 'model_type'" in err.message and "'foobar'" in err.message
    remote = load_model(write(tmp_path, {**cfg, "auto_map": {"AutoConfig": "x.FooConfig"}}, "b"))
    assert remote.has_remote_code and not remote.model_type_known and remote.caveats
    known = load_model(write(tmp_path, {**LLAMA, "auto_map": {"AutoConfig": "x.C"}}, "c"))
    assert known.has_remote_code and known.model_type_known


def test_facts_are_read_only():
    m = load_model("deepseek-v3")
    assert isinstance(m.config, MappingProxyType)
    with pytest.raises(TypeError):
        m.config["architectures"] = ["X"]  # type: ignore[index]
    assert isinstance(m.config["rope_scaling"], MappingProxyType)
    assert isinstance(m.config["architectures"], tuple)
    with pytest.raises(AttributeError):
        m.context_len = 1  # type: ignore[misc]
    assert m.has_arch("DeepseekV3ForCausalLM") and not m.has_arch("LlamaForCausalLM")


# --- locating models --------------------------------------------------------------------------

def test_folder_file_and_bundled_name(tmp_path, monkeypatch):
    folder = write(tmp_path, LLAMA, "my-model")
    assert load_model(folder).name == "my-model"
    assert load_model(os.path.join(folder, "config.json")).name == "my-model"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(LLAMA))
    assert load_model(str(other)).name == "other"
    # a folder next to the working directory wins over a bundled name
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {**LLAMA, "max_position_embeddings": 1234}, "qwen3-8b")
    assert load_model("qwen3-8b").context_len == 1234
    assert load_model("deepseek-v3").name == "deepseek-v3"
    gguf = tmp_path / "my-model" / "model.gguf"
    gguf.write_bytes(b"GGUF\x03\x00")
    g = load_model(str(gguf))
    assert g.is_gguf and g.arch0 == "LlamaForCausalLM"


def test_cache_hits_and_invalidation(tmp_path, monkeypatch):
    path = write(tmp_path, LLAMA)
    first = load_model(path)
    assert load_model(path) is first
    monkeypatch.setattr(models, "_RECHECK_SECONDS", 0.0)
    Path(path, "config.json").write_text(json.dumps({**LLAMA, "max_position_embeddings": 999}))
    os.utime(Path(path, "config.json"), ns=(1, 1))
    assert load_model(path).context_len == 999
    assert load_model("llama-3.1-8b") is load_model("llama-3.1-8b")
    assert load_model("llama-3.1-8b", context_length=4096) is not load_model("llama-3.1-8b")


# --- errors: one clear line, exit code 2, naming the file or field ------------------------------

def test_missing_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = input_error(load_model, "foo")
    assert err.message.startswith("--model-path: expected a folder holding config.json or a "
                                  "bundled model name (deepseek-r1, deepseek-v2-lite,")
    assert err.message.endswith("got 'foo'")
    (tmp_path / "empty").mkdir()
    err = input_error(load_model, "empty")
    assert "config.json" in err.message and "empty" in err.message
    for dummy in ("none", "dummy", "DUMMY"):
        assert "config.json" in input_error(load_model, dummy).message
    input_error(load_model, "")
    input_error(load_model, 42)  # type: ignore[arg-type]


@pytest.mark.parametrize("text, fragment", [
    ('{"architectures": ["LlamaForCausalLM"],\n "model_type": }', "line 2, column 16"),
    ("", "line 1, column 1"),
    ("[1, 2]", "expected a JSON object, got a JSON list"),
    ('"hello"', "expected a JSON object, got a JSON string"),
    ("1" * 5000, "valid JSON"),
    ("[" * 100_000 + "]" * 100_000, "valid JSON"),
])
def test_malformed_config_files(tmp_path, text, fragment):
    err = input_error(load_model, write(tmp_path, text))
    assert "config.json" in err.message and fragment in err.message


def test_non_utf8_and_oversized_files(tmp_path, monkeypatch):
    folder = write(tmp_path, LLAMA)
    Path(folder, "config.json").write_bytes(b'{"a": "\xff"}')
    assert "UTF-8" in input_error(load_model, folder).message
    Path(folder, "config.json").write_text(json.dumps(LLAMA))
    monkeypatch.setattr(models, "MAX_CONFIG_BYTES", 100)
    err = input_error(load_model, folder)
    assert "config.json" in err.message and "bytes" in err.message


@pytest.mark.parametrize("changes, field, expected", [
    ({"num_attention_heads": "x"}, "'num_attention_heads'", "expected an integer, got 'x'"),
    ({"num_attention_heads": 0, "hidden_size": 64}, "'num_attention_heads'", "positive"),
    ({"hidden_size": float("nan")}, "'hidden_size'", "an integer"),
    ({"hidden_size": 10**40}, "'hidden_size'", "digits"),
    ({"architectures": ...}, "'architectures'", "the key is missing"),
    ({"architectures": []}, "'architectures'", "non-empty list"),
    ({"architectures": "LlamaForCausalLM"}, "'architectures'", "list"),
    ({"architectures": [1]}, "'architectures'", "list of strings"),
    ({"model_type": ...}, "'model_type'", "the key is missing"),
    ({"model_type": 7}, "'model_type'", "a string"),
    ({"max_position_embeddings": None}, "'max_position_embeddings'", "null"),
    ({"max_position_embeddings": -5}, "'max_position_embeddings'", "positive"),
    ({"rope_scaling": {"type": "linear"}}, "'rope_scaling.factor'", "requires it"),
    ({"rope_scaling": {"type": "linear", "factor": "2"}}, "'rope_scaling.factor'", "number"),
    ({"rope_scaling": [1]}, "'rope_scaling'", "a JSON object"),
    ({"rope_scaling": {"rope_type": ["yarn"], "factor": 2}}, "'rope_scaling.rope_type'",
     "a rope type name"),
    ({"text_config": 5}, "'text_config'", "a JSON object"),
    # a sub-config class launchplan has no defaults for: it reports instead of guessing
    ({"model_type": "mllama", "text_config": {"hidden_size": 8}, "architectures": ["X"]},
     "'text_config.num_attention_heads'", "the key is missing"),
    ({"compression_config": [1]}, "'compression_config'", "a JSON object"),
    ({"sliding_window": "big"}, "'sliding_window'", "an integer"),
])
def test_bad_fields(tmp_path, changes, field, expected):
    cfg = {**LLAMA, **changes}
    if changes.get("model_type") == "mllama":
        cfg = {k: v for k, v in cfg.items() if k != "num_attention_heads"}
    err = input_error(load_model, write(tmp_path, {k: v for k, v in cfg.items() if v is not ...}))
    assert f"config.json field {field}" in err.message
    if expected:
        assert expected in err.message


def test_bad_sidecar(tmp_path):
    folder = write(tmp_path, LLAMA, files={"hf_quant_config.json": "{oops"})
    err = input_error(load_model, folder)
    assert "hf_quant_config.json" in err.message and "line 1" in err.message


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=20)
KEYS = st.sampled_from(["architectures", "model_type", "hidden_size", "num_attention_heads",
                        "num_key_value_heads", "head_dim", "max_position_embeddings",
                        "rope_scaling", "torch_dtype", "quantization_config", "text_config",
                        "sliding_window", "kv_lora_rank", "layer_types", "attn_config",
                        "thinker_config", "auto_map", "multi_query", "index_topk"])


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.dictionaries(KEYS, JSON, max_size=4),
       archs=st.sampled_from([["LlamaForCausalLM"], ["DeepseekV3ForCausalLM"],
                              ["Mamba2ForCausalLM"], ["GptOssForCausalLM"],
                              ["Qwen2_5_VLForConditionalGeneration"]]),
       model_type=st.sampled_from(["llama", "deepseek_v3", "mamba2", "qwen2_5_vl", "gpt2",
                                   "mpt", "dbrx", "nemotron-nas", "qwen2"]))
def test_any_json_gives_facts_or_one_input_error(tmp_path, changes, archs, model_type):
    cfg = {**LLAMA, "architectures": archs, "model_type": model_type, **changes}
    try:
        facts = load_model(write(tmp_path, json.dumps(cfg)))
    except InputError as e:
        assert e.exit_code == 2 and "\n" not in e.message and len(e.message) < 400
    else:
        assert isinstance(facts.context_len, int) and facts.context_len > 0
        assert isinstance(facts.head_dim, int) and isinstance(facts.total_num_kv_heads, int)
        assert facts.num_kv_heads(8) >= 1
        assert facts.attention_arch in ("MLA", "MHA", "SSM")
    finally:
        clear_cache()


# --- speed ------------------------------------------------------------------------------------

def test_speed_first_and_cached_calls():
    best_first = best_cached = float("inf")
    for _ in range(5):
        clear_cache()
        t = time.perf_counter()
        load_model("deepseek-v3")
        best_first = min(best_first, time.perf_counter() - t)
        t = time.perf_counter()
        for _ in range(1000):
            load_model("deepseek-v3")
        best_cached = min(best_cached, (time.perf_counter() - t) / 1000)
    # budgets: 2 ms and 5 µs; the asserts leave room for slow, shared CI machines
    assert best_first < 0.02
    assert best_cached < 50e-6
