"""Attention-backend rules: the generic default table, the split collapse, checks, fallbacks."""

from __future__ import annotations

import pytest

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules.attention import (
    aiter_memory_scaling,
    attention_backend_default,
    cutedsl_mla_prefill_fill,
    default_attention_backend,
    eager_backend_graph_disable,
    fa3_fp8_e5m2_fallback,
    trtllm_mha_platform_checks,
    trtllm_mla_checks,
    whisper_radix_disable,
)
from launchplan.rules.graph_config import default_config
from tests.rules.conftest import MLA, decide, fake_model, make_view


@pytest.mark.parametrize(("gpu", "expected"), [
    ("a100", "flashinfer"), ("h100", "fa3"), ("h200", "fa3"), ("b200", "trtllm_mha"),
    ("gb200", "trtllm_mha"), ("b300", "trtllm_mha"), ("rtx5090", "flashinfer"),
    ("mi300x", "aiter"), ("mi355x", "aiter"),
])
def test_generic_default_mha(gpu, expected):
    assert default_attention_backend(make_view(gpu)) == expected


@pytest.mark.parametrize(("gpu", "tp", "expected"), [
    ("h200", 8, "fa3"), ("b200", 8, "flashinfer"), ("a100", 1, "triton"),
    ("mi300x", 8, "aiter"), ("mi300x", 2, "triton"), ("rtx5090", 8, "triton"),
])
def test_generic_default_mla(gpu, tp, expected):
    assert default_attention_backend(make_view(gpu, fake_model(**MLA), tp_size=tp)) == expected


def test_speculation_changes_the_default():
    # topk > 1: neither fa3 on Hopper nor trtllm_mha on SM10x
    assert default_attention_backend(make_view("h100", speculative_eagle_topk=4)) == "flashinfer"
    # topk 1 with a page > 1: Hopper falls through (rules.md C22)
    assert default_attention_backend(make_view("h100", speculative_eagle_topk=1,
                                               page_size=16)) == "flashinfer"
    # SM10x with an algorithm but no explicit topk: flashinfer
    assert default_attention_backend(make_view("b200", speculative_algorithm="EAGLE")) \
        == "flashinfer"
    assert default_attention_backend(make_view("b200", speculative_algorithm="dflash")) \
        == "trtllm_mha"


def test_asymmetric_kv_and_sinks():
    assert default_attention_backend(make_view("b200", fake_model(has_asymmetric_kv=True))) \
        == "fa4"
    assert default_attention_backend(make_view("a100", fake_model(has_attention_sinks=True))) \
        == "triton"


def test_split_collapse_overrides_explicit_base():
    out = attention_backend_default(make_view(attention_backend="fa3",
                                              prefill_attention_backend="triton",
                                              decode_attention_backend="triton"))
    assert out.fields == {"attention_backend": "triton"}


def test_base_filled_only_when_unset():
    assert attention_backend_default(make_view(attention_backend="fa4")) is None
    out = attention_backend_default(make_view("h100", prefill_attention_backend="fa4"))
    assert out.fields == {"attention_backend": "fa3"}  # the split side is not consulted


def test_torch_native_disables_both_graph_phases():
    out = eager_backend_graph_disable(make_view(
        attention_backend="torch_native", overlay={"cuda_graph_config": default_config(True)}))
    config = out.fields["cuda_graph_config"]
    assert config["decode"]["backend"] == config["prefill"]["backend"] == "disabled"
    flex = eager_backend_graph_disable(make_view(
        attention_backend="flex_attention", speculative_algorithm="EAGLE",
        overlay={"cuda_graph_config": default_config(True)}))
    assert isinstance(flex, Refuse)


def test_whisper_radix():
    model = fake_model(architectures=("WhisperForConditionalGeneration",))
    assert decide(whisper_radix_disable, make_view(model=model)) == {"disable_radix_cache": True}
    assert decide(whisper_radix_disable, make_view()) is None


def test_trtllm_mla_needs_blackwell_and_a_supported_kv_dtype():
    assert isinstance(trtllm_mla_checks(make_view("h200", attention_backend="trtllm_mla")),
                      Refuse)
    assert trtllm_mla_checks(make_view("rtx5090", attention_backend="trtllm_mla")) is None
    assert isinstance(trtllm_mla_checks(make_view(attention_backend="trtllm_mla",
                                                  kv_cache_dtype="bfloat16")), Refuse)
    assert trtllm_mla_checks(make_view(decode_attention_backend="trtllm_mla",
                                       kv_cache_dtype="bf16")) is None


def test_cutedsl_mla():
    out = cutedsl_mla_prefill_fill(make_view(attention_backend="cutedsl_mla"))
    assert isinstance(out, Declare) and out.fields == {"prefill_attention_backend": "trtllm_mla"}
    assert isinstance(cutedsl_mla_prefill_fill(make_view(prefill_attention_backend="cutedsl_mla")),
                      Refuse)
    assert isinstance(cutedsl_mla_prefill_fill(make_view("h100",
                                                         decode_attention_backend="cutedsl_mla")),
                      Refuse)
    assert cutedsl_mla_prefill_fill(make_view(decode_attention_backend="cutedsl_mla",
                                              prefill_attention_backend="fa4")) is None


def test_trtllm_mha_platforms():
    assert isinstance(trtllm_mha_platform_checks(make_view("a100", attention_backend="trtllm_mha")),
                      Refuse)
    assert trtllm_mha_platform_checks(make_view("h100", attention_backend="trtllm_mha")) is None
    assert isinstance(trtllm_mha_platform_checks(make_view(
        "rtx5090", attention_backend="trtllm_mha", kv_cache_dtype="fp8_e4m3")), Refuse)
    assert isinstance(trtllm_mha_platform_checks(make_view(
        "a100", attention_backend="fa3", decode_attention_backend="trtllm_mha")), Refuse)
    assert isinstance(trtllm_mha_platform_checks(make_view(
        "h100", attention_backend="trtllm_mha", attn_cp_size=2)), Refuse)


def test_fa3_e5m2_falls_back_on_the_base_only():
    out = fa3_fp8_e5m2_fallback(make_view(attention_backend="fa3", kv_cache_dtype="fp8_e5m2"))
    assert out.fields == {"attention_backend": "triton"}
    assert fa3_fp8_e5m2_fallback(make_view(attention_backend="triton",
                                           prefill_attention_backend="fa3",
                                           kv_cache_dtype="fp8_e5m2")) is None


def test_aiter_scales_memory_for_long_contexts():
    out = aiter_memory_scaling(make_view("mi300x", attention_backend="aiter",
                                         overlay={"mem_fraction_static": 0.9}))
    assert out.fields["mem_fraction_static"] == pytest.approx(0.765)
    short = fake_model(context_len=8192)
    assert aiter_memory_scaling(make_view("mi300x", short, attention_backend="aiter")) is None
    honored = aiter_memory_scaling(make_view(
        "mi300x", attention_backend="aiter", mem_fraction_static=0.8,
        env={"SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION": "1"}))
    assert honored.fields == {}
