"""Model-specific adjustments around the override batch, one test (at least) per rule, and a
few whole resolutions that depend on them."""

from __future__ import annotations

import pytest

from launchplan.engine.declarations import Declare, Refuse
from launchplan.errors import Refusal
from launchplan.planner import resolve
from launchplan.rules.graph_config import default_config
from launchplan.rules.model_overrides.deepseek_v2 import (
    deepseek_moe_quant_resolution,
    deepseek_spec_moe_resolution,
    dsa_attention_tp_width,
    dsa_attention_tp_width_0_5_21,
    dsa_context_parallel_checks,
    dsa_kv_cache_dtype_default,
    dsa_prefill_cp_graph_disable,
    dsa_split_backend_resolution,
    dsa_two_batch_overlap_check,
    glm_dsa_aiter_allreduce_fusion,
    mla_prefill_cp_graph_disable,
)
from launchplan.rules.model_overrides.deepseek_v4 import (
    deepseek_v4_context_parallel,
    deepseek_v4_defaults,
    deepseek_v41_features,
)
from launchplan.rules.model_overrides.exaone import exaone_backend_check
from launchplan.rules.model_overrides.gemma4 import gemma4_backend_check
from launchplan.rules.model_overrides.glm5_next import glm5_next_spec_backend_defaults
from launchplan.rules.model_overrides.gpt_oss import gpt_oss_backend_check
from launchplan.rules.model_overrides.kimi_k3 import (
    kimi_linear_attn_defaults,
    kimi_spec_backend_defaults,
)
from launchplan.rules.model_overrides.lfm2 import lfm2_backend_check
from launchplan.rules.model_overrides.llama4 import llama4_backend_check
from launchplan.rules.model_overrides.mimo_v2 import mimo_v2_attention_tp_check
from launchplan.rules.model_overrides.olmo2 import olmo2_backend_check
from launchplan.rules.model_specific import (
    deterministic_allreduce_fusion_off,
    enforce_disable_allreduce_fusion,
    flashinfer_allreduce_fusion_auto_enable,
    mamba_radix_cache,
    mamba_radix_cache_baseline,
    mamba_radix_cache_for_linear_attn_spec,
    model_arch_constraints,
    model_quantization_check,
    prefill_decode_interval_default,
    remote_code_needs_trust,
    remote_code_needs_trust_at_model_config,
    sparse_head_overlap_disable,
)
from tests.rules.conftest import decide, make_view
from tests.rules.model_configs import DSV4_KEYS, MLA_KEYS, facts_builder

GRAPHS = {"cuda_graph_config": default_config(True)}


@pytest.fixture
def facts(tmp_path):
    return facts_builder(tmp_path)


def view(gpu, model, env=None, overlay=None, **values):
    return make_view(gpu, model, env=env, overlay=overlay, **values)


def fields(out):
    return out.fields if isinstance(out, Declare) else out


def dsa(facts, arch="DeepseekV32ForCausalLM", **cfg):
    return facts(arch, "deepseek_v3", index_topk=2048, **MLA_KEYS, **cfg)


# --- the model config build -----------------------------------------------------------------


def test_quantization_check_refuses_mxfp4_on_gfx942_only(facts):
    m = facts("GptOssForCausalLM", "gpt_oss", quantization_config={"quant_method": "mxfp4"})
    assert isinstance(model_quantization_check(view("mi300x", m)), Refuse)
    assert not isinstance(model_quantization_check(view("mi355x", m)), Refuse)
    assert model_quantization_check(view("b200", m)) is None
    # an explicit requantization serves it on the MI300X
    assert not isinstance(model_quantization_check(view("mi300x", m, quantization="quark_mxfp4")),
                          Refuse)


def test_a_config_class_only_remote_code_defines_needs_trust(facts):
    remote = facts("AcmeForCausalLM", "acme_private",
                   auto_map={"AutoConfig": "configuration_decilm.DeciLMConfig"})
    refused = remote_code_needs_trust(view("h100", remote))
    assert isinstance(refused, Refuse) and "--trust-remote-code" in refused.message
    assert remote_code_needs_trust(view("h100", remote, trust_remote_code=True)) is None
    # a type transformers knows is read with its own class, remote code or not
    known = facts("LlamaForCausalLM", auto_map={"AutoConfig": "configuration_x.XConfig"})
    assert remote_code_needs_trust(view("h100", known)) is None


def test_quantization_check_refuses_a_contradicting_flag(facts):
    m = facts("LlamaForCausalLM", quantization_config={"quant_method": "fp8"})
    assert isinstance(model_quantization_check(view("h100", m, quantization="awq")), Refuse)


# --- before the batch -----------------------------------------------------------------------


def test_deterministic_inference_enforces_fusion_off(facts):
    m = facts("LlamaForCausalLM")
    on = view("h100", m, enable_deterministic_inference=True)
    assert deterministic_allreduce_fusion_off(on) == {
        "enforce_disable_flashinfer_allreduce_fusion": True}
    assert deterministic_allreduce_fusion_off(view("h100", m)) is None


def test_mamba_baseline_is_off(facts):
    assert mamba_radix_cache_baseline(view("h100", facts("LlamaForCausalLM"))) == {
        "uses_mamba_radix_cache": False}


def test_arch_constraints(facts):
    mobius = facts("InternS2MobiusForConditionalGeneration")
    assert isinstance(model_arch_constraints(view("h100", mobius, pp_size=2)), Refuse)
    assert model_arch_constraints(view("h100", mobius)) is None
    llama = facts("LlamaForCausalLM")
    assert isinstance(model_arch_constraints(view("h100", llama,
                                                  enable_dsa_cache_layer_split=True)), Refuse)
    assert isinstance(model_arch_constraints(view("h100", llama, enable_cp_decode_attn_tp=True)),
                      Refuse)
    assert model_arch_constraints(view("h100", dsa(facts), enable_dsa_cache_layer_split=True)) \
        is None


def test_linear_attn_spec_pass_runs_for_gigachat_only(facts):
    giga = facts("GigaChat35ForCausalLM", "gigachat3_5", **MLA_KEYS)
    out = fields(mamba_radix_cache_for_linear_attn_spec(view("h100", giga)))
    # No extra-buffer support in its spec: no_buffer, overlap off.
    assert out == {"uses_mamba_radix_cache": True, "mamba_radix_cache_strategy": "no_buffer",
                   "disable_overlap_schedule": True}
    qwen = facts("Qwen3NextForCausalLM")
    assert mamba_radix_cache_for_linear_attn_spec(view("h100", qwen)) is None


# --- after the batch ------------------------------------------------------------------------


def test_kimi_linear_attn_decode_default(facts):
    m = facts("KimiLinearForCausalLM", **MLA_KEYS)
    assert kimi_linear_attn_defaults(view("b200", m, mamba_ssm_dtype="bfloat16")) == {
        "linear_attn_decode_backend": "triton"}
    assert kimi_linear_attn_defaults(view("h100", m, mamba_ssm_dtype="bfloat16")) is None


def test_kimi_spec_backends(facts):
    m = facts("KimiK3ForConditionalGeneration", **MLA_KEYS)
    assert kimi_spec_backend_defaults(view("b200", m, speculative_algorithm="DSPARK")) == {
        "linear_attn_verify_backend": "nv_cutedsl",
        "speculative_draft_attention_backend": "trtllm_mha"}
    assert kimi_spec_backend_defaults(view("h100", m, speculative_algorithm="DSPARK")) == {
        "linear_attn_verify_backend": "nv_cutedsl"}
    assert kimi_spec_backend_defaults(view("b200", m)) is None


def test_glm5_next_verify_backend(facts):
    m = facts("Glm5NextForConditionalGeneration", **MLA_KEYS)
    assert glm5_next_spec_backend_defaults(view("b200", m, speculative_algorithm="EAGLE")) == {
        "linear_attn_verify_backend": "nv_cutedsl"}
    assert glm5_next_spec_backend_defaults(view("h100", m, speculative_algorithm="EAGLE")) \
        is None


def test_deepseek_v4_defaults(facts):
    m = facts("DeepseekV4ForCausalLM", "deepseek_v4", **DSV4_KEYS)
    out = fields(deepseek_v4_defaults(view("b200", m, device="cuda")))
    assert out == {"kv_cache_dtype": "fp8_e4m3", "dsv4_attn_backend": "flashmla",
                   "max_running_requests": 256}
    v41 = facts("DeepseekV4ForCausalLM", "deepseek_v41", **DSV4_KEYS)
    assert fields(deepseek_v4_defaults(view("b200", v41, device="cuda")))[
        "dsv4_attn_backend"] == "flashmla_mega"
    assert isinstance(deepseek_v4_defaults(view("b200", m, kv_cache_dtype="fp8_e5m2")), Refuse)
    assert isinstance(deepseek_v4_defaults(view("b200", m, speculative_algorithm="EAGLE",
                                                speculative_eagle_topk=2)), Refuse)


def test_deepseek_v4_attention_widths_of_zero(facts):
    v41 = facts("DeepseekV4ForCausalLM", "deepseek_v41", **DSV4_KEYS)
    # V4.1 on SM10x tests attention TP for its default kernel: a width of 0 fails there
    for widths in (dict(attn_dp_size=0), dict(attn_cp_size=0)):
        assert isinstance(deepseek_v4_defaults(view("b200", v41, device="cuda", tp_size=8,
                                                    **widths)), Refuse)
    # ... unless another test decides first (PD, not SM10x) or a backend is given
    assert "dsv4_attn_backend" in fields(deepseek_v4_defaults(
        view("b200", v41, device="cuda", tp_size=8, attn_dp_size=0,
             disaggregation_mode="decode")))
    assert not isinstance(deepseek_v4_defaults(view("h200", v41, device="cuda", tp_size=8,
                                                    attn_dp_size=0)), Refuse)
    assert not isinstance(deepseek_v4_defaults(view("b200", v41, device="cuda", tp_size=8,
                                                    attn_dp_size=0, dsv4_attn_backend="flashmla")),
                          Refuse)
    # prefill CP declares tp_size over the DP groups before refusing attention DP
    m = facts("DeepseekV4ForCausalLM", "deepseek_v4", **DSV4_KEYS)
    cp = dict(enable_prefill_cp=True, cp_strategy="interleave", tp_size=8)
    zero = deepseek_v4_context_parallel(view("b200", m, attn_dp_size=0, **cp))
    assert isinstance(zero, Refuse) and "ZeroDivisionError" in zero.message
    two = deepseek_v4_context_parallel(view("b200", m, attn_dp_size=2, **cp))
    assert isinstance(two, Refuse) and "ZeroDivisionError" not in two.message


@pytest.mark.parametrize("gpu", ["h100", "b200", "mi300x"])
def test_dsa_attention_tp_width_of_zero(facts, gpu):
    for widths in (dict(attn_dp_size=0), dict(attn_cp_size=0)):
        assert isinstance(dsa_attention_tp_width(view(gpu, dsa(facts), tp_size=8, **widths)),
                          Refuse)
        # prefill CP lays the widths out itself and skips the division
        assert dsa_attention_tp_width(view(gpu, dsa(facts), tp_size=8, enable_prefill_cp=True,
                                           cp_strategy="interleave", **widths)) is None
    # a negative width divides: the positivity check refuses it later
    assert dsa_attention_tp_width(view(gpu, dsa(facts), tp_size=8, attn_dp_size=-1)) is None
    assert dsa_attention_tp_width(view(gpu, dsa(facts), tp_size=2, attn_dp_size=4)) is None


def test_dsa_attention_tp_width_in_0_5_21_needs_fewer_dp_groups_than_tp(facts):
    assert isinstance(dsa_attention_tp_width_0_5_21(view("h100", dsa(facts), tp_size=8,
                                                         attn_cp_size=0)), Refuse)
    assert isinstance(dsa_attention_tp_width_0_5_21(view("h100", dsa(facts), tp_size=8,
                                                         attn_dp_size=0)), Refuse)
    # one rank, one group: 0.5.21 computes nothing there (0.5.22 on still divides)
    assert dsa_attention_tp_width_0_5_21(view("h100", dsa(facts), attn_cp_size=0)) is None
    assert isinstance(dsa_attention_tp_width(view("h100", dsa(facts), attn_cp_size=0)), Refuse)


def test_dsa_two_batch_overlap_with_shared_indices(facts):
    shared = dsa(facts, index_topk_freq=2)
    assert isinstance(dsa_two_batch_overlap_check(view("h200", shared,
                                                       enable_two_batch_overlap=True)), Refuse)
    assert dsa_two_batch_overlap_check(view("h200", dsa(facts),
                                            enable_two_batch_overlap=True)) is None


def test_dsa_prefill_cp_graph_disable_ignores_the_lock(facts):
    out = dsa_prefill_cp_graph_disable(view("h200", dsa(facts), overlay=GRAPHS,
                                            enable_prefill_cp=True, tp_size=8,
                                            cuda_graph_backend_prefill="breakable"))
    assert out.fields["cuda_graph_config"]["prefill"]["backend"] == "disabled"
    assert dsa_prefill_cp_graph_disable(view("h200", dsa(facts), overlay=GRAPHS)) is None


@pytest.mark.parametrize(("gpu", "given", "expected"), [
    ("b200", "auto", "fp8_e4m3"), ("h200", "auto", "bfloat16"), ("mi300x", "auto", "bfloat16"),
    ("b200", "bf16", "bfloat16"),
])
def test_dsa_kv_cache_dtype(facts, gpu, given, expected):
    out = dsa_kv_cache_dtype_default(view(gpu, dsa(facts), kv_cache_dtype=given))
    assert fields(out) == {"kv_cache_dtype": expected}


def test_dsa_kv_cache_dtype_refusals(facts):
    assert isinstance(dsa_kv_cache_dtype_default(view("b200", dsa(facts),
                                                      kv_cache_dtype="fp8_e5m2")), Refuse)
    sinks = dsa(facts, learnable_sink=True)
    assert isinstance(dsa_kv_cache_dtype_default(view("b200", sinks, kv_cache_dtype="fp8_e4m3")),
                      Refuse)


@pytest.mark.parametrize(("gpu", "kv", "prefill", "decode"), [
    ("b200", "fp8_e4m3", "trtllm", "trtllm"),
    ("h200", "fp8_e4m3", "flashmla_kv", "flashmla_kv"),
    ("h200", "bfloat16", "flashmla_sparse", "fa3"),
    ("b200", "bfloat16", "flashmla_sparse", "trtllm"),
    ("mi300x", "bfloat16", "triton", "triton"),
])
def test_dsa_split_backends(facts, gpu, kv, prefill, decode):
    assert dsa_split_backend_resolution(view(gpu, dsa(facts), kv_cache_dtype=kv)) == {
        "dsa_prefill_backend": prefill, "dsa_decode_backend": decode}


def test_dsa_split_backend_special_cases(facts):
    glm = dsa(facts, "GlmMoeDsaForCausalLM")
    assert dsa_split_backend_resolution(view("rtx5090", glm, kv_cache_dtype="fp8_e4m3")) == {
        "dsa_prefill_backend": "flashinfer_sparse_mla",
        "dsa_decode_backend": "flashinfer_sparse_mla"}
    assert isinstance(dsa_split_backend_resolution(
        view("b200", dsa(facts), kv_cache_dtype="fp8_e4m3", dsa_prefill_backend="triton")),
        Refuse)
    assert isinstance(dsa_split_backend_resolution(
        view("h200", dsa(facts, learnable_sink=True), kv_cache_dtype="bfloat16",
             dsa_decode_backend="fa3")), Refuse)


def test_dsa_context_parallel_checks(facts):
    assert isinstance(dsa_context_parallel_checks(view("h200", dsa(facts), enable_prefill_cp=True,
                                                       disaggregation_mode="decode")), Refuse)
    split = dict(enable_dsa_cache_layer_split=True, disaggregation_mode="prefill",
                 enable_prefill_cp=True, cp_strategy="interleave")
    assert dsa_context_parallel_checks(view("h200", dsa(facts), **split)) is None
    assert isinstance(dsa_context_parallel_checks(view("h200", dsa(facts), **split, pp_size=2)),
                      Refuse)


def test_mla_prefill_cp_graph_disable(facts):
    m = facts("DeepseekV3ForCausalLM", "deepseek_v3", **MLA_KEYS)
    out = decide(mla_prefill_cp_graph_disable,
                 view("h200", m, overlay=GRAPHS, enable_prefill_cp=True))
    assert out.fields["cuda_graph_config"]["prefill"]["backend"] == "disabled"
    assert decide(mla_prefill_cp_graph_disable, view("h200", dsa(facts), overlay=GRAPHS,
                                             enable_prefill_cp=True)) is None


def test_deepseek_moe_quant_resolution(facts):
    fp8 = facts("DeepseekV3ForCausalLM", "deepseek_v3", **MLA_KEYS,
                quantization_config={"quant_method": "fp8"})
    assert fields(deepseek_moe_quant_resolution(view("b200", fp8))) == {
        "quantization": "fp8", "moe_runner_backend": "flashinfer_trtllm"}
    assert deepseek_moe_quant_resolution(view("h200", fp8)) is None
    assert fields(deepseek_moe_quant_resolution(view("b200", fp8, moe_a2a_backend="deepep"))) \
        == {"quantization": "fp8"}
    # No quantization_config on DeepSeek-V3: no FP8 weights assumed, bf16 kept.
    bf16 = facts("DeepseekV3ForCausalLM", "deepseek_v3", **MLA_KEYS)
    assert fields(deepseek_moe_quant_resolution(view("b200", bf16))) == {
        "moe_runner_backend": "flashinfer_trtllm"}
    longcat = facts("LongcatFlashForCausalLM", "deepseek_v3", **MLA_KEYS,
                    quantization_config={"quant_method": "fp8"})
    assert fields(deepseek_moe_quant_resolution(view("b200", longcat))) == {
        "quantization": "fp8", "fp8_gemm_runner_backend": "flashinfer_trtllm"}


def test_glm_dsa_aiter_fusion_on_rocm(facts):
    glm = dsa(facts, "GlmMoeDsaForCausalLM")
    assert glm_dsa_aiter_allreduce_fusion(view("mi355x", glm)) == {
        "enable_aiter_allreduce_fusion": True, "disable_aiter_allreduce_fusion_in_prefill": True}
    assert glm_dsa_aiter_allreduce_fusion(view("b200", glm)) is None


def test_deepseek_spec_moe_on_rocm(facts):
    m = facts("DeepseekV3ForCausalLM", "deepseek_v3", **MLA_KEYS)
    given = dict(quantization="modelopt_fp4", speculative_algorithm="EAGLE")
    assert decide(deepseek_spec_moe_resolution, view("mi355x", m, **given)) == {
        "speculative_moe_runner_backend": "triton", "speculative_moe_a2a_backend": "none"}
    env = {"SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE": "1"}
    assert isinstance(decide(deepseek_spec_moe_resolution,
                             view("mi355x", m, env=env, **given)), Refuse)
    assert decide(deepseek_spec_moe_resolution, view("b200", m, **given)) is None


def test_deepseek_v41_features(facts):
    v41 = facts("DeepseekV4ForCausalLM", "deepseek_v41", **DSV4_KEYS)
    assert deepseek_v41_features(view("b200", v41, overlay=GRAPHS)) == {
        "enable_decoder_swa_bounded_replay": True}
    assert deepseek_v41_features(view("b200", v41, overlay=GRAPHS, enable_prefill_cp=True)) \
        == {"enable_decoder_swa_bounded_replay": False}
    assert isinstance(deepseek_v41_features(view("b200", v41, overlay=GRAPHS, pp_size=2)),
                      Refuse)
    v4 = facts("DeepseekV4ForCausalLM", "deepseek_v4", **DSV4_KEYS)
    assert isinstance(deepseek_v41_features(view("b200", v4, overlay=GRAPHS,
                                                 enable_encoder_swa_bounded_replay=True)), Refuse)


def test_deepseek_v4_context_parallel(facts):
    v4 = facts("DeepseekV4ForCausalLM", "deepseek_v4", **DSV4_KEYS)
    assert deepseek_v4_context_parallel(view("b200", v4, enable_prefill_cp=True, tp_size=8,
                                             cp_strategy="interleave")) == {
        "attn_dp_size": 1, "dp_size": 1, "moe_dense_tp_size": 1, "attn_cp_size": 8}
    assert isinstance(deepseek_v4_context_parallel(view("b200", v4, enable_prefill_cp=True,
                                                        cp_strategy="zigzag")), Refuse)
    assert deepseek_v4_context_parallel(view("b200", v4)) is None


# --- the backend checks ---------------------------------------------------------------------


def test_gpt_oss_backend_check(facts):
    m = facts("GptOssForCausalLM", "gpt_oss")
    refusal = gpt_oss_backend_check(view("h100", m, prefill_attention_backend="flashinfer",
                                         attention_backend="fa3"))
    assert isinstance(refusal, Refuse) and "requires one of [" in refusal.message
    assert gpt_oss_backend_check(view("h100", m, attention_backend="fa3")) is None
    assert isinstance(gpt_oss_backend_check(view("h100", m, attention_backend="fa3",
                                                 moe_runner_backend="triton_kernel",
                                                 ep_size=2)), Refuse)


def test_mimo_v2_fused_qkv_tp(facts):
    m = facts("MiMoV2ForCausalLM", attention_projection_layout="fused_qkv")
    assert mimo_v2_attention_tp_check(view("b200", m, tp_size=4)) is None  # 4 KV heads
    assert isinstance(mimo_v2_attention_tp_check(view("b200", m, tp_size=8)), Refuse)
    split = facts("MiMoV2ForCausalLM", attention_projection_layout="split")
    assert mimo_v2_attention_tp_check(view("b200", split, tp_size=8)) is None
    # the effective width is computed for every layout: a DP or CP width of 0 fails it, and
    # an effective width of 0 (tp 2 over 4 DP groups) fails the fused layout's modulo
    for layout in (split, m):
        for widths in (dict(attn_dp_size=0), dict(attn_cp_size=0)):
            assert isinstance(mimo_v2_attention_tp_check(view("b200", layout, tp_size=8,
                                                              **widths)), Refuse)
    narrow = mimo_v2_attention_tp_check(view("b200", m, tp_size=2, attn_dp_size=4))
    assert isinstance(narrow, Refuse) and "ZeroDivisionError" in narrow.message
    assert mimo_v2_attention_tp_check(view("b200", split, tp_size=2, attn_dp_size=4)) is None
    assert mimo_v2_attention_tp_check(view("b200", split, attn_dp_size=0,
                                           encoder_only=True)) is None


@pytest.mark.parametrize(("check", "arch", "bad", "good", "cfg"), [
    (llama4_backend_check, "Llama4ForCausalLM", "flashinfer", "fa3", {}),
    (exaone_backend_check, "Exaone4ForCausalLM", "flashinfer", "triton",
     {"sliding_window_pattern": "LLLG"}),
    (olmo2_backend_check, "Olmo2ForCausalLM", "flashinfer", "fa3", {}),
    (lfm2_backend_check, "Lfm2ForCausalLM", "triton", "flashinfer", {}),
    (gemma4_backend_check, "Gemma4ForCausalLM", "flashinfer", "trtllm_mha", {}),
])
def test_backend_checks(facts, check, arch, bad, good, cfg):
    m = facts(arch, **cfg)
    assert isinstance(decide(check, view("h100", m, attention_backend=bad)), Refuse)
    assert decide(check, view("h100", m, attention_backend=good)) is None
    other = facts("LlamaForCausalLM")
    assert decide(check, view("h100", other, attention_backend=bad)) is None


# --- the tail -------------------------------------------------------------------------------


def test_mamba_radix_cache_strategy(facts):
    qwen = facts("Qwen3NextForCausalLM")
    assert fields(mamba_radix_cache(view("h100", qwen))) == {
        "uses_mamba_radix_cache": True, "mamba_radix_cache_strategy": "extra_buffer"}
    no_overlap = fields(mamba_radix_cache(view("h100", qwen, disable_overlap_schedule=True)))
    assert no_overlap["mamba_radix_cache_strategy"] == "no_buffer"
    assert mamba_radix_cache(view("h100", qwen, disable_radix_cache=True)) is None
    assert mamba_radix_cache(view("h100", facts("LlamaForCausalLM"))) is None


def test_mamba_radix_cache_validation(facts):
    qwen = facts("Qwen3NextForCausalLM")
    # no_buffer with a page > 1 is refused (it would be extra_buffer unless forced)
    assert isinstance(mamba_radix_cache(view("h100", qwen, page_size=16,
                                             mamba_radix_cache_strategy="no_buffer",
                                             disable_overlap_schedule=True)), Refuse)
    # an interval that is not a page multiple
    assert isinstance(mamba_radix_cache(view("h100", qwen, page_size=48)), Refuse)
    # a page size of 0: the multiple test itself fails, as SGLang's modulo does
    zero = mamba_radix_cache(view("h100", qwen, page_size=0))
    assert isinstance(zero, Refuse) and "ZeroDivisionError" in zero.message
    llama = facts("LlamaForCausalLM")
    assert isinstance(mamba_radix_cache(view("h100", llama, overlay={
        "uses_mamba_radix_cache": False}, mamba_radix_cache_strategy="extra_buffer")), Refuse)


def test_sparse_head_overlap(facts):
    m = facts("LlamaForCausalLM")
    out = sparse_head_overlap_disable(view("h100", m,
                                           env={"SGLANG_EMBEDDINGS_SPARSE_HEAD": "x"}))
    assert out.fields == {"disable_overlap_schedule": True}
    assert sparse_head_overlap_disable(view("h100", m)) is None


def test_allreduce_fusion_auto_enable(facts):
    qwen = facts("Qwen3MoeForCausalLM", "qwen3_moe")
    assert fields(flashinfer_allreduce_fusion_auto_enable(view("h100", qwen, tp_size=2))) == {
        "flashinfer_allreduce_fusion_backend": "auto"}
    assert flashinfer_allreduce_fusion_auto_enable(view("h100", qwen)) is None  # TP 1
    assert flashinfer_allreduce_fusion_auto_enable(view("a100", qwen, tp_size=2)) is None
    assert flashinfer_allreduce_fusion_auto_enable(
        view("h100", qwen, tp_size=2, attn_dp_size=2)) is None
    mimo = facts("MiMoV2FlashForCausalLM")
    assert fields(flashinfer_allreduce_fusion_auto_enable(view("b200", mimo, tp_size=4))) == {
        "flashinfer_allreduce_fusion_backend": "cutedsl"}
    assert flashinfer_allreduce_fusion_auto_enable(view("h100", mimo, tp_size=4)) is None


def test_enforce_disable_wins(facts):
    m = facts("LlamaForCausalLM")
    assert enforce_disable_allreduce_fusion(view(
        "h100", m, enforce_disable_flashinfer_allreduce_fusion=True)) == {
        "flashinfer_allreduce_fusion_backend": None}
    assert enforce_disable_allreduce_fusion(view("h100", m)) is None


def test_prefill_decode_interval_default(facts):
    m = facts("LlamaForCausalLM")
    assert prefill_decode_interval_default(view("h100", m)) == {"prefill_decode_interval": 0}
    assert prefill_decode_interval_default(view("h100", m, prefill_decode_interval=5)) is None


# --- whole resolutions ----------------------------------------------------------------------


def test_deepseek_v3_on_b200_resolves_trtllm_mla_and_trtllm_moe():
    result = resolve(["--tp-size", "8"], gpu="b200", model_path="deepseek-v3")
    assert result.value("attention_backend") == "trtllm_mla"
    assert result.source("attention_backend") == "deepseek_family_overrides"
    assert result.value("moe_runner_backend") == "flashinfer_trtllm"
    assert result.value("page_size") == 64


def test_gpt_oss_resolutions():
    b200 = resolve([], gpu="b200", model_path="gpt-oss-20b")
    assert (b200.value("attention_backend"), b200.value("moe_runner_backend")) == (
        "trtllm_mha", "flashinfer_mxfp4")
    with pytest.raises(Refusal) as refused:
        resolve([], gpu="mi300x", model_path="gpt-oss-20b")
    assert refused.value.source == "model_quantization_check"
    with pytest.raises(Refusal) as refused:
        resolve(["--attention-backend", "flashinfer"], gpu="h100", model_path="gpt-oss-20b")
    assert refused.value.source == "gpt_oss_backend_check"


def test_dense_model_on_hopper_gets_fusion_and_interval():
    result = resolve(["--tp-size", "2"], gpu="h100", model_path="qwen3-30b-a3b")
    assert result.value("flashinfer_allreduce_fusion_backend") == "auto"
    assert result.value("prefill_decode_interval") == 0
    assert result.value("uses_mamba_radix_cache") is False


@pytest.mark.parametrize("compat", ["0.5.23", "0.5.22", "0.5.21", "default"])
def test_quantize_and_serve_is_refused_with_or_without_modelopt(compat):
    """Recorded: wild2/aimed/quantize-and-serve-* (SGLang 0.5.23 refuses both at its model
    config's first check); 0.5.21 and 0.5.22 validate it the same way."""
    for extra, said in (([], "needs a ModelOpt"),
                        (["--quantization", "modelopt_fp8"], "disabled")):
        with pytest.raises(Refusal) as refused:
            resolve(["--quantize-and-serve", *extra], gpu="h100", model_path="llama-3.1-8b",
                     compat=compat)
        assert refused.value.source == "quantize_and_serve_check"
        assert said in refused.value.message
    assert resolve([], gpu="h100", model_path="llama-3.1-8b", compat=compat)


def test_0_5_23_reads_a_remote_code_config_before_the_decode_cp_checks(tmp_path, facts):
    """0.5.23 reads the config for every launch right after the model-independent checks
    (Muse Spark's environment step), so a remote-code checkpoint without --trust-remote-code
    meets that refusal before ``--dcp-size 0`` does (SGLang's answer, recorded as probe
    line w10d/63); 0.5.21 and 0.5.22 read it only where the model config is first built."""
    import json

    from launchplan import resolve
    from launchplan.errors import Refusal

    folder = tmp_path / "remote"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({
        "architectures": ["AcmeForCausalLM"], "model_type": "acme_private",
        "auto_map": {"AutoConfig": "configuration_acme.AcmeConfig"}, "hidden_size": 1024,
        "num_attention_heads": 16, "num_hidden_layers": 4, "vocab_size": 32000,
        "intermediate_size": 4096}))
    for compat, rule in (("default", "remote_code_needs_trust"),
                         ("0.5.23", "remote_code_needs_trust"),
                         ("0.5.22", "decode_context_parallel_checks"),
                         ("0.5.21", "decode_context_parallel_checks")):
        with pytest.raises(Refusal) as refused:
            resolve(fields={"dcp_size": 0}, gpu="h100", model_path=str(folder), compat=compat)
        assert refused.value.source == rule, compat
    with pytest.raises(Refusal) as refused:
        resolve(fields={}, gpu="h100", model_path=str(folder), compat="0.5.21")
    assert refused.value.source == "remote_code_needs_trust_at_model_config"
    remote = facts("AcmeForCausalLM", "acme_private",
                   auto_map={"AutoConfig": "configuration_acme.AcmeConfig"})
    assert isinstance(remote_code_needs_trust_at_model_config(view("h100", remote)), Refuse)
