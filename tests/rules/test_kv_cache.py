"""KV-cache rules: backend aliases (P03), K15, NVFP4 dequant (P17), KV4 (P21), MXFP8 (P22)."""

from __future__ import annotations

import pytest

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules import kv_cache as k
from tests.rules.conftest import MLA, fake_model, make_view


def fields(out):
    return out.fields if isinstance(out, Declare) else out


def test_backend_aliases():
    out = k.deprecated_backend_aliases(make_view(attention_backend="compressed",
                                                 prefill_attention_backend="tokenspeed_mla",
                                                 decode_attention_backend="tokenspeed_mla"))
    assert fields(out) == {"attention_backend": "dsv4",
                           "prefill_attention_backend": "trtllm_mla",
                           "decode_attention_backend": "cutedsl_mla"}
    assert k.deprecated_backend_aliases(make_view(attention_backend="fa3")) is None


def test_tokenspeed_mla_implications():
    out = k.tokenspeed_mla_implications(make_view(attention_backend="tokenspeed_mla",
                                                  speculative_algorithm="EAGLE"))
    assert fields(out) == {"kv_cache_dtype": "fp8_e4m3", "speculative_attention_mode": "decode"}
    out = k.tokenspeed_mla_implications(make_view(decode_attention_backend="tokenspeed_mla",
                                                  kv_cache_dtype="fp8_e4m3"))
    assert out is None
    assert k.tokenspeed_mla_implications(make_view(prefill_attention_backend="tokenspeed_mla")) \
        is None


def test_prefill_only_kv_cache_args():
    ok = dict(prefill_only_disable_kv_cache=True, is_embedding=True, chunked_prefill_size=-1,
              disable_radix_cache=True)
    assert k.prefill_only_kv_cache_args(make_view(**ok)) is None
    for bad in (dict(is_embedding=False), dict(kv_cache_dtype="nvfp4"),
                dict(kv_cache_dtype="mxfp8"), dict(chunked_prefill_size=8192),
                dict(disable_radix_cache=False), dict(enable_prefill_cp=True)):
        assert isinstance(k.prefill_only_kv_cache_args(make_view(**{**ok, **bad})), Refuse)


@pytest.mark.parametrize(("gpu", "values", "expected"), [
    ("b200", {}, ("trtllm_mha", "nvfp4")),
    ("rtx5090", {}, ("flashinfer", "fp8_e4m3")),
    ("b200", {"attention_backend": "flashinfer"}, ("flashinfer", "fp8_e4m3")),
    ("b200", {"prefill_attention_backend": "trtllm_mha"}, ("trtllm_mha", "nvfp4")),
])
def test_nvfp4_prefill_dequant(gpu, values, expected):
    got = fields(k.nvfp4_prefill_dequant(make_view(gpu, kv_cache_dtype="nvfp4", **values)))
    assert got == {"prefill_attention_backend": expected[0],
                   "decode_attention_backend": "trtllm_mha",
                   "prefill_kv_cache_dequant_dtype": expected[1]}


def test_nvfp4_prefill_dequant_refusals():
    assert isinstance(k.nvfp4_prefill_dequant(make_view(
        prefill_kv_cache_dequant_dtype="fp8_e4m3")), Refuse)
    assert isinstance(k.nvfp4_prefill_dequant(make_view(
        kv_cache_dtype="nvfp4", attention_backend="triton")), Refuse)
    assert isinstance(k.nvfp4_prefill_dequant(make_view(
        "rtx5090", kv_cache_dtype="nvfp4", prefill_kv_cache_dequant_dtype="nvfp4")), Refuse)
    assert isinstance(k.nvfp4_prefill_dequant(make_view(
        kv_cache_dtype="nvfp4", decode_attention_backend="fa4")), Refuse)
    assert k.nvfp4_prefill_dequant(make_view()) is None


def test_kv4_platform_and_native_recipe():
    assert isinstance(k.kv4_compatibility(make_view("mi300x", kv_cache_dtype="fp4_mx_block16",
                                                    attention_backend="triton")), Refuse)
    assert isinstance(k.kv4_compatibility(make_view("h100", kv_cache_dtype="nvfp4",
                                                    attention_backend="triton")), Refuse)
    native = dict(kv_cache_dtype="nvfp4", attention_backend="trtllm_mha")
    out = k.kv4_compatibility(make_view(speculative_algorithm="EAGLE", **native))
    assert fields(out) == {"speculative_draft_attention_backend": "trtllm_mha"}
    assert isinstance(k.kv4_compatibility(make_view(speculative_algorithm="DFLASH", **native)),
                      Refuse)
    assert isinstance(k.kv4_compatibility(make_view(speculative_algorithm="NGRAM", **native)),
                      Refuse)
    assert isinstance(k.kv4_compatibility(make_view(disaggregation_mode="prefill", **native)),
                      Refuse)
    assert k.kv4_compatibility(make_view(**native)) is None


def test_kv4_mixed_recipe_and_backend_matrix():
    mixed = dict(kv_cache_dtype="nvfp4", attention_backend="trtllm_mha",
                 prefill_attention_backend="flashinfer", decode_attention_backend="trtllm_mha")
    out = k.kv4_compatibility(make_view(speculative_algorithm="EAGLE", **mixed))
    assert fields(out)["speculative_attention_mode"] == "decode"
    assert isinstance(k.kv4_compatibility(make_view(kv_cache_dtype="fp4_mx_block16",
                                                    attention_backend="fa3")), Refuse)
    assert isinstance(k.kv4_compatibility(make_view(
        kv_cache_dtype="fp4_mx_block16", prefill_attention_backend="fa4",
        decode_attention_backend="fa3", attention_backend="fa4")), Refuse)
    assert k.kv4_compatibility(make_view(model=fake_model(**MLA),
                                         kv_cache_dtype="fp4_mx_block16",
                                         attention_backend="trtllm_mla")) is None
    out = k.kv4_compatibility(make_view(kv_cache_dtype="fp4_mx_block16",
                                        prefill_attention_backend="fa3",
                                        decode_attention_backend="triton",
                                        attention_backend="triton"))
    assert fields(out) == {} and out.note


def test_mxfp8_kv_check():
    assert isinstance(k.mxfp8_kv_check(make_view("h100", kv_cache_dtype="mxfp8")), Refuse)
    assert k.mxfp8_kv_check(make_view("b200", kv_cache_dtype="mxfp8")) is None
    assert k.mxfp8_kv_check(make_view("h100")) is None
