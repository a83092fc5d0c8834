"""Derived model facts: the §7 reference values, SGLang's own ``ModelConfig``, synthetic configs.

``data/sglang_model_facts.json`` holds what SGLang 0.5.23's own ``ModelConfig`` derived for
every case in ``data/model_cases.json`` (recorded by ``make_model_fixtures.py`` in the oracle
venv); ``test_matches_sglang`` checks launchplan against it case by case.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType

import pytest

from launchplan.errors import InputError
from launchplan.facts import quantization
from launchplan.facts.models import (
    ModelFacts,
    bundled_models,
    load_draft_model,
    load_model,
)
from launchplan.facts.targets import get_target
from tests.facts.models.configs import (
    BY_NAME,
    CASES,
    LLAMA,
    RECORDED,
    input_error,
    llama,
    write,
)

# --- §7 reference values --------------------------------------------------------------------------

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


# --- agreement with SGLang's own ModelConfig ------------------------------------------------------

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


# --- synthetic configs ----------------------------------------------------------------------------

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
    # SGLang keeps a non-positive length as given (its worker refuses it at start: preflight)
    assert load_model("llama-3.1-8b", context_length=0).context_len == 0
    assert load_model("llama-3.1-8b", context_length=-5).context_len == -5
    input_error(load_model, "llama-3.1-8b", context_length=2**64)
    input_error(load_model, "llama-3.1-8b", context_length="128k")


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
