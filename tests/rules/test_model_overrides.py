"""The model-override registry: each provider for its architectures, and the batch semantics.

Every test builds real model facts from a small ``config.json`` in ``tmp_path`` and calls the
provider on a view, as the pipeline would.
"""

from __future__ import annotations

import pytest

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.pipeline import run
from launchplan.engine.record import Record
from launchplan.engine.registry import MARK, discover, rule
from launchplan.facts.targets import CATALOG
from launchplan.input.raw import RawInput
from launchplan.rules.model_overrides import BATCH
from launchplan.rules.model_overrides.bailing_moe_v3 import bailing_moe_v3_overrides
from launchplan.rules.model_overrides.beam import beam_overrides
from launchplan.rules.model_overrides.cohere2_moe import cohere2_moe_runner_overrides
from launchplan.rules.model_overrides.constants import model_override_constants
from launchplan.rules.model_overrides.deepseek_v2 import deepseek_family_overrides
from launchplan.rules.model_overrides.deepseek_v4 import deepseek_v4_overrides
from launchplan.rules.model_overrides.embedding_gemma2 import embedding_gemma2_overrides
from launchplan.rules.model_overrides.ernie45_vl import ernie45_vl_overrides
from launchplan.rules.model_overrides.exaone import exaone_overrides
from launchplan.rules.model_overrides.falcon_h1 import falcon_h1_jet_overrides
from launchplan.rules.model_overrides.gemma2_gemma3 import gemma2_gemma3_overrides
from launchplan.rules.model_overrides.gemma4 import gemma4_overrides
from launchplan.rules.model_overrides.gigachat35 import gigachat35_overrides
from launchplan.rules.model_overrides.glm4_moe import glm4_moe_overrides
from launchplan.rules.model_overrides.gpt_oss import gpt_oss_overrides
from launchplan.rules.model_overrides.granitemoehybrid import granite_moe_hybrid_overrides
from launchplan.rules.model_overrides.inkling import inkling_overrides
from launchplan.rules.model_overrides.interns2_mobius import interns2_mobius_baseline_overrides
from launchplan.rules.model_overrides.iquest_q1 import iquest_q1_overrides
from launchplan.rules.model_overrides.kimi_k3 import (
    kimi_k3_moe_runner_overrides,
    kimi_k3_overrides,
)
from launchplan.rules.model_overrides.lfm2 import lfm2_overrides
from launchplan.rules.model_overrides.llama4 import llama4_overrides
from launchplan.rules.model_overrides.mimo_v2 import mimo_v2_overrides
from launchplan.rules.model_overrides.minicpm import minicpm_sala_overrides
from launchplan.rules.model_overrides.minicpmv import minicpm_v4_6_overrides
from launchplan.rules.model_overrides.minimax_m2 import minimax_m2_overrides
from launchplan.rules.model_overrides.minimax_m3 import minimax_m3_overrides
from launchplan.rules.model_overrides.moss_vl import moss_vl_overrides
from launchplan.rules.model_overrides.muse_glimmer import muse_glimmer_fp4_gemm_runner_overrides
from launchplan.rules.model_overrides.muse_spark import muse_spark_overrides
from launchplan.rules.model_overrides.nemotron_h import nemotron_h_overrides
from launchplan.rules.model_overrides.olmo2 import olmo2_overrides
from launchplan.rules.model_overrides.qwen3_5 import (
    qwen3_5_hybrid_overrides,
    qwen3_5_hybrid_overrides_0_5_22,
)
from launchplan.rules.model_overrides.qwen3_moe import qwen3_moe_family_overrides
from launchplan.rules.model_overrides.qwen3_vl import (
    qwen3vl_hopper_serving_overrides,
    qwen3vl_overrides,
)
from launchplan.rules.model_overrides.qwen4_exp import (
    qwen4_exp_overrides,
    qwen4_exp_overrides_0_5_22,
)
from launchplan.rules.model_overrides.step3p import step3p_overrides
from launchplan.rulesets import PIPELINE
from tests.rules.conftest import decide, make_view
from tests.rules.model_configs import DSV4_KEYS, LLM, MLA_KEYS, facts_builder


@pytest.fixture
def facts(tmp_path):
    return facts_builder(tmp_path)


def view(gpu, model, env=None, **values):
    return make_view(gpu, model, env=env, **values)


def deepseek(facts, arch="DeepseekV3ForCausalLM", **cfg):
    return facts(arch, "deepseek_v3", **MLA_KEYS, **cfg)


# --- the constant table ---------------------------------------------------------------------


def test_constants_force_bfloat16_for_mistral_large3_only(facts):
    m = deepseek(facts, "MistralLarge3ForCausalLM")
    assert model_override_constants(view("b200", m, dtype="float16")) == {"dtype": "bfloat16"}
    assert model_override_constants(view("b200", deepseek(facts))) is None


# --- one test per provider ------------------------------------------------------------------


def test_bailing_v3_mixed_fp8_mxfp4_uses_flashinfer_mxfp4(facts):
    qc = {"quant_method": "fp8", "routed_experts_quant_method": "mxfp4"}
    m = facts("BailingMoeV3ForCausalLM", quantization_config=qc, **MLA_KEYS)
    assert bailing_moe_v3_overrides(view("b200", m, device="cuda")) == {
        "moe_runner_backend": "flashinfer_mxfp4"}
    assert bailing_moe_v3_overrides(view("a100", m, device="cuda")) is None  # not SM80
    plain = facts("BailingMoeV3ForCausalLM", quantization_config={"quant_method": "fp8"},
                  **MLA_KEYS)
    assert bailing_moe_v3_overrides(view("b200", plain, device="cuda")) is None


def test_beam_trtllm_mha_on_sm90_sm100_sm120_and_nvfp4_moe(facts):
    m = facts("BeamForCausalLM", "beam")
    assert beam_overrides(view("h100", m)) == {"attention_backend": "trtllm_mha"}
    assert beam_overrides(view("a100", m)) == {}
    assert beam_overrides(view("h100", m, attention_backend="fa3")) == {}
    nvfp4 = facts("BeamForCausalLM", "beam",
                  quantization_config={"quant_method": "modelopt", "quant_algo": "NVFP4"})
    assert beam_overrides(view("b200", nvfp4))["moe_runner_backend"] == "flashinfer_trtllm"


def test_cohere2_moe_trtllm_on_sm100_for_bf16(facts):
    m = facts("Cohere2MoeForCausalLM")
    assert cohere2_moe_runner_overrides(view("b200", m)) == {
        "moe_runner_backend": "flashinfer_trtllm"}
    assert cohere2_moe_runner_overrides(view("h100", m)) is None
    fp8 = facts("Cohere2MoeForCausalLM", quantization_config={"quant_method": "fp8"})
    assert cohere2_moe_runner_overrides(view("b200", fp8)) is None


def test_deepseek_v3_gets_trtllm_mla_on_sm100_only_when_nothing_is_chosen(facts):
    m = deepseek(facts)
    assert deepseek_family_overrides(view("b200", m)) == {"attention_backend": "trtllm_mla"}
    assert deepseek_family_overrides(view("h200", m)) is None
    assert deepseek_family_overrides(view("b200", m, decode_attention_backend="flashinfer")) \
        is None


def test_deepseek_dsa_backend_and_page(facts):
    dsa = deepseek(facts, "DeepseekV32ForCausalLM", index_topk=2048)
    assert deepseek_family_overrides(view("h200", dsa)) == {"attention_backend": "dsa",
                                                            "page_size": 64}
    # The page is forced even over an explicit one, and kpool multiplies it.
    pooled = deepseek(facts, "DeepseekV32ForCausalLM", index_topk=2048, index_kpool=4)
    assert deepseek_family_overrides(view("b200", pooled, page_size=16))["page_size"] == 256
    # ROCm without the aiter preshuffle kernel runs page 1; with SGLANG_USE_AITER, 64.
    assert deepseek_family_overrides(view("mi300x", dsa))["page_size"] == 1
    assert deepseek_family_overrides(
        view("mi300x", dsa, env={"SGLANG_USE_AITER": "1"}))["page_size"] == 64


def test_deepseek_dsa_decode_cp_and_prefill_cp(facts):
    dsa = deepseek(facts, "DeepseekV32ForCausalLM", index_topk=2048)
    out = deepseek_family_overrides(view("b200", dsa, dcp_size=2, tp_size=8))
    assert out["dsa_prefill_backend"] == out["dsa_decode_backend"] == "trtllm"
    assert isinstance(deepseek_family_overrides(
        view("b200", dsa, dcp_size=2, speculative_eagle_topk=2)), Refuse)
    cp = deepseek_family_overrides(view("h200", dsa, tp_size=8, enable_prefill_cp=True,
                                        cp_strategy="zigzag"))
    assert cp["attn_cp_size"] == 8 and cp["moe_a2a_backend"] == "deepep" and cp["ep_size"] == 8


def test_deepseek_prefill_cp_over_zero_dp_groups(facts):
    # the CP width is tp_size over the DP groups: SGLang's division by 0 stops it, for DSA and
    # plain MLA alike; an explicit interleave width divides nothing
    dsa = deepseek(facts, "DeepseekV32ForCausalLM", index_topk=2048)
    zero = dict(tp_size=8, attn_dp_size=0, enable_prefill_cp=True)
    assert isinstance(deepseek_family_overrides(view("h200", dsa, **zero, cp_strategy="zigzag")),
                      Refuse)
    interleave = deepseek_family_overrides(view("h200", dsa, **zero, cp_strategy="interleave",
                                                attn_cp_size=4))
    assert interleave["attn_cp_size"] == 4 and interleave["attn_dp_size"] == 0
    mla = deepseek(facts, "DeepseekV3ForCausalLM")
    assert isinstance(deepseek_family_overrides(view("h200", mla, **zero)), Refuse)


def test_hyv4_refuses_prefill_cp(facts):
    m = deepseek(facts, "HYV4ForCausalLM")
    assert isinstance(deepseek_family_overrides(view("b200", m, enable_prefill_cp=True)),
                      Refuse)


def test_deepseek_v4_dsv4_page_256_over_input(facts):
    m = facts("DeepseekV4ForCausalLM", "deepseek_v4", **DSV4_KEYS)
    out = deepseek_v4_overrides(view("b200", m, attention_backend="fa3", page_size=64,
                                     device="cuda"))
    assert out["attention_backend"] == "dsv4" and out["page_size"] == 256
    assert out["swa_full_tokens_ratio"] == 0.1
    assert out["moe_runner_backend"] == "flashinfer_mxfp4"  # SGLANG_DSV4_FP4_EXPERTS default
    off = deepseek_v4_overrides(view("b200", m, device="cuda",
                                     env={"SGLANG_DSV4_FP4_EXPERTS": "0"}))
    assert "moe_runner_backend" not in off


def test_embedding_gemma2_radix_off_and_triton(facts):
    m = facts("EmbeddingGemma2Model")
    assert embedding_gemma2_overrides(view("h100", m)) == {"disable_radix_cache": True,
                                                           "attention_backend": "triton"}
    assert embedding_gemma2_overrides(view("h100", m, attention_backend="fa3")) == {
        "disable_radix_cache": True}


def test_ernie45_vl_refuses_attention_dp(facts):
    m = facts("Ernie4_5_VLMoeForConditionalGeneration")
    assert isinstance(ernie45_vl_overrides(view("h100", m, attn_dp_size=2, tp_size=2)), Refuse)
    assert ernie45_vl_overrides(view("h100", m)) is None


@pytest.mark.parametrize(("gpu", "backend"), [("b200", "trtllm_mha"), ("h100", "fa3"),
                                              ("rtx5090", "fa3"), ("mi300x", "triton")])
def test_exaone_swa_backend(facts, gpu, backend):
    m = facts("Exaone4ForCausalLM", sliding_window_pattern="LLLG")
    assert exaone_overrides(view(gpu, m)) == {"disable_hybrid_swa_memory": True,
                                              "attention_backend": backend}
    assert exaone_overrides(view(gpu, facts("Exaone4ForCausalLM"))) is None


def test_exaone_pattern_has_a_class_default(facts):
    # transformers' EXAONE 4 config defaults sliding_window_pattern to 4
    m = facts("Exaone4ForCausalLM", "exaone4")
    assert exaone_overrides(view("h100", m))["disable_hybrid_swa_memory"] is True
    explicit_null = facts("Exaone4ForCausalLM", "exaone4", sliding_window_pattern=None)
    assert exaone_overrides(view("h100", explicit_null)) is None


def test_falcon_h1_triton_on_sm100(facts):
    m = facts("FalconH1ForCausalLM")
    assert falcon_h1_jet_overrides(view("b200", m)) == {"attention_backend": "triton"}
    assert falcon_h1_jet_overrides(view("h100", m)) is None


def test_gemma2_gemma3_disable_hybrid_swa(facts):
    assert decide(gemma2_gemma3_overrides, view("h100", facts("Gemma3ForCausalLM"))) == {
        "disable_hybrid_swa_memory": True}
    assert decide(gemma2_gemma3_overrides, view("h100", facts("LlamaForCausalLM"))) is None


def test_gemma4_default_and_split_fill(facts):
    m = facts("Gemma4ForCausalLM")
    assert gemma4_overrides(view("b200", m)) == {"attention_backend": "trtllm_mha"}
    assert gemma4_overrides(view("h100", m)) == {"attention_backend": "triton"}
    # Only a split side chosen: the base is still filled.
    assert gemma4_overrides(view("b200", m, prefill_attention_backend="fa4")) == {
        "attention_backend": "trtllm_mha"}
    diffusion = facts("DiffusionGemmaForBlockDiffusion")
    assert gemma4_overrides(view("b200", diffusion)) == {"attention_backend": "triton"}


def test_gigachat35_shared_experts_and_multi_layer_eagle(facts):
    m = facts("GigaChat35ForCausalLM", **MLA_KEYS)
    assert gigachat35_overrides(view("h100", m, speculative_algorithm="EAGLE")) == {
        "disable_shared_experts_fusion": True, "enable_multi_layer_eagle": True}
    assert gigachat35_overrides(view("h100", m, speculative_algorithm="NEXTN")) == {
        "disable_shared_experts_fusion": True}


def test_glm4_moe_quantization_and_runner_on_sm100(facts):
    m = facts("Glm4MoeForCausalLM", "glm4_moe", quantization_config={"quant_method": "fp8"})
    # fp8 is not a trtllm-gen choice for GLM: only the quantization is copied in.
    assert glm4_moe_overrides(view("b200", m)) == {"quantization": "fp8",
                                                   "enable_tf32_matmul": True}
    bf16 = facts("Glm4MoeForCausalLM", "glm4_moe")
    assert glm4_moe_overrides(view("b200", bf16))["moe_runner_backend"] == "flashinfer_trtllm"
    assert glm4_moe_overrides(view("h100", bf16)) == {"enable_tf32_matmul": True}


@pytest.mark.parametrize(("gpu", "backend", "runner"), [
    ("b200", "trtllm_mha", "flashinfer_mxfp4"), ("h100", "fa3", None),
    ("mi355x", "aiter", None), ("a100", "triton", None), ("rtx5090", "triton", "flashinfer_mxfp4"),
])
def test_gpt_oss_defaults(facts, gpu, backend, runner):
    m = facts("GptOssForCausalLM", "gpt_oss", quantization_config={"quant_method": "mxfp4"})
    out = gpt_oss_overrides(view(gpu, m))
    assert out["attention_backend"] == backend and out["dtype"] == "bfloat16"
    assert out.get("moe_runner_backend") == runner


def test_gpt_oss_on_rocm_with_aiter(facts):
    bf16 = facts("GptOssForCausalLM", "gpt_oss")
    out = gpt_oss_overrides(view("mi355x", bf16, env={"SGLANG_USE_AITER": "1"}))
    assert out["moe_runner_backend"] == "triton" and "dtype" not in out
    assert "attention_backend" not in gpt_oss_overrides(
        view("b200", bf16, decode_attention_backend="triton"))


def test_granite_hybrid_flashinfer_only_with_mamba_layers(facts):
    hybrid = facts("GraniteMoeHybridForCausalLM", layer_types=["mamba", "attention"])
    dense = facts("GraniteMoeHybridForCausalLM", layer_types=["attention", "attention"])
    assert granite_moe_hybrid_overrides(view("b200", hybrid)) == {
        "attention_backend": "flashinfer"}
    assert granite_moe_hybrid_overrides(view("b200", dense)) is None
    alias = facts("GraniteMoeHybridForCausalLM", layers_block_type=["mamba", "attention"])
    assert granite_moe_hybrid_overrides(view("b200", alias)) == {
        "attention_backend": "flashinfer"}
    # SGLang's config class fills in what the file leaves out: every sixth layer attends,
    # the rest are Mamba; transformers 5's spellings are read back
    default = facts("GraniteMoeHybridForCausalLM", num_hidden_layers=12)
    assert granite_moe_hybrid_overrides(view("b200", default)) == {
        "attention_backend": "flashinfer"}
    respelled = facts("GraniteMoeHybridForCausalLM",
                      layer_types=["linear_attention", "full_attention"])
    assert granite_moe_hybrid_overrides(view("b200", respelled)) == {
        "attention_backend": "flashinfer"}


def test_inkling_layout(facts):
    m = facts("InklingForConditionalGeneration")
    assert inkling_overrides(view("h100", m)) == {
        "swa_full_tokens_ratio": 0.1, "mamba_full_memory_ratio": 0.1,
        "mamba_radix_cache_strategy": "extra_buffer", "uses_mamba_radix_cache": True,
        "attention_backend": "fa4"}
    out = inkling_overrides(view("a100", m, disable_radix_cache=True))
    assert out["attention_backend"] == "triton" and "uses_mamba_radix_cache" not in out


def test_interns2_mobius_triton_kernel(facts):
    m = facts("InternS2MobiusForConditionalGeneration")
    assert interns2_mobius_baseline_overrides(view("h100", m)) == {
        "moe_runner_backend": "triton_kernel"}
    assert interns2_mobius_baseline_overrides(view("h100", m, moe_runner_backend="triton")) \
        is None


def test_iquest_q1_fa3_everywhere(facts):
    m = facts("IQuestQ1ForCausalLM")
    assert iquest_q1_overrides(view("h100", m)) == {"attention_backend": "fa3"}
    assert iquest_q1_overrides(view("h100", m, prefill_attention_backend="fa3")) == {
        "decode_attention_backend": "fa3"}
    assert isinstance(iquest_q1_overrides(view("h100", m, attention_backend="triton")), Refuse)
    assert isinstance(iquest_q1_overrides(view("h100", m, pp_size=2)), Refuse)


def test_kimi_k3_backends(facts):
    m = facts("KimiK3ForConditionalGeneration", **MLA_KEYS)
    assert kimi_k3_overrides(view("b300", m)) == {"decode_attention_backend": "trtllm_mla",
                                                  "prefill_attention_backend": "trtllm_mla"}
    assert kimi_k3_overrides(view("h100", m)) is None
    # DCP: the cutedsl_mla pair needs a FlashInfer kernel assumed absent; aiter works.
    assert isinstance(kimi_k3_overrides(view("b200", m, dcp_size=2, tp_size=8)), Refuse)
    dcp = kimi_k3_overrides(view("mi355x", m, dcp_size=2, tp_size=8, enable_symm_mem=True,
                                 decode_attention_backend="aiter",
                                 prefill_attention_backend="triton"))
    assert dcp == {"enable_symm_mem": False, "prefill_attention_backend": "triton",
                   "decode_attention_backend": "aiter"}
    assert isinstance(kimi_k3_overrides(view("b200", m, dcp_size=2, tp_size=8,
                                             decode_attention_backend="fa3")), Refuse)
    dspark = kimi_k3_overrides(view("b200", m, speculative_algorithm="DSPARK",
                                    decode_attention_backend="flashinfer"))
    assert dspark is None  # flashinfer cannot verify DSPARK on the decode side


def test_kimi_k3_moe_runner_for_mxfp4_pack(facts):
    qc = {"quant_method": "compressed-tensors",
          "config_groups": {"group_0": {"format": "mxfp4-pack-quantized"}}}
    m = facts("KimiK3ForConditionalGeneration", quantization_config=qc, **MLA_KEYS)
    assert kimi_k3_moe_runner_overrides(view("b200", m)) == {
        "moe_runner_backend": "flashinfer_mxfp4"}
    assert kimi_k3_moe_runner_overrides(view("h100", m)) is None


def test_lfm2_flashinfer_on_sm100(facts):
    m = facts("Lfm2ForCausalLM")
    assert lfm2_overrides(view("b200", m)) == {"attention_backend": "flashinfer"}
    assert lfm2_overrides(view("b200", m, attention_backend="triton")) is None


@pytest.mark.parametrize(("gpu", "backend"), [("b200", "trtllm_mha"), ("h100", "fa3"),
                                              ("mi300x", "aiter"), ("rtx5090", "triton")])
def test_llama4_backend(facts, gpu, backend):
    m = facts("Llama4ForCausalLM")
    assert llama4_overrides(view(gpu, m)) == {"attention_backend": backend}


def test_llama4_fp8_moe_and_cpu(facts):
    m = facts("Llama4ForCausalLM")
    assert llama4_overrides(view("b200", m, quantization="fp8"))["moe_runner_backend"] \
        == "flashinfer_trtllm"
    assert llama4_overrides(view("b200", m, device="cpu")) is None


def test_mimo_v2(facts):
    m = facts("MiMoV2FlashForCausalLM", quantization_config={"quant_method": "fp8"})
    assert mimo_v2_overrides(view("b200", m, speculative_algorithm="EAGLE")) == {
        "enable_multi_layer_eagle": True, "attention_backend": "fa4",
        "moe_runner_backend": "flashinfer_trtllm"}
    fp4 = facts("MiMoV2FlashForCausalLM",
                quantization_config={"quant_method": "fp8", "store_dtype": "MXFP4"})
    assert mimo_v2_overrides(view("h100", fp4)) == {"moe_runner_backend": "marlin"}


def test_minicpm_sparse_backends(facts):
    m = facts("MiniCPMSALAForCausalLM", has_minicpm_sparse_attention=True)
    assert minicpm_sala_overrides(view("b200", m)) == {"disable_radix_cache": True,
                                                       "attention_backend": "minicpm_flashinfer"}
    assert minicpm_sala_overrides(view("h100", m))["attention_backend"] == "minicpm_flashattn"
    dense = minicpm_sala_overrides(view("h100", m, attention_backend="minicpm_flashattn",
                                        env={"SGLANG_MINICPM_FORCE_DENSE": "1"}))
    assert dense["attention_backend"] == "fa3"
    assert isinstance(minicpm_sala_overrides(view("h100", m, attn_dp_size=2, tp_size=2)),
                      Refuse)


def test_minicpm_sala_derives_sparse_and_lightning_from_mixers(facts):
    sala = facts("MiniCPMSALAForCausalLM", "minicpm_sala", mixer_types=["attn", "lightning"],
                 sparse_config={"kernel_size": 32})
    assert minicpm_sala_overrides(view("h100", sala)) == {
        "disable_radix_cache": True, "attention_backend": "minicpm_flashattn"}
    dense = facts("MiniCPMSALAForCausalLM", "minicpm_sala")  # attention only, no sparse config
    assert minicpm_sala_overrides(view("h100", dense)) is None


def test_minicpm_v4_6_triton_on_sm100(facts):
    m = facts("MiniCPMV4_7ForConditionalGeneration")
    assert minicpm_v4_6_overrides(view("b200", m)) == {"attention_backend": "triton"}
    assert minicpm_v4_6_overrides(view("h100", m)) is None


def test_minimax_m2(facts):
    m = facts("MiniMaxM2ForCausalLM", "minimax_m2",
              quantization_config={"quant_method": "modelopt", "quant_algo": "NVFP4"})
    assert minimax_m2_overrides(view("b200", m)) == {
        "enable_tf32_matmul": True, "moe_runner_backend": "flashinfer_trtllm_routed"}
    assert minimax_m2_overrides(view("h100", m)) == {"enable_tf32_matmul": True}


def test_minimax_m3_platforms(facts):
    m = facts("MiniMaxM3SparseForCausalLM")
    assert minimax_m3_overrides(view("b200", m)) == {"attention_backend": "fa4",
                                                     "page_size": 128,
                                                     "moe_runner_backend": "triton"}
    assert minimax_m3_overrides(view("b200", m, kv_cache_dtype="fp8_e4m3"))[
        "attention_backend"] == "trtllm_mha"
    assert minimax_m3_overrides(view("h100", m))["attention_backend"] == "fa3"
    rocm = minimax_m3_overrides(view("mi300x", m))
    assert rocm["attention_backend"] == "triton" and rocm["disable_custom_all_reduce"] is True


def test_minimax_m3_nvfp4(facts):
    qc = {"quant_method": "mxfp8", "moe_quant_algo": "NVFP4",
          "moe_quant_format": "nvfp4-pack-quantized"}
    m = facts("MiniMaxM3SparseForCausalLM", quantization_config=qc)
    out = minimax_m3_overrides(view("b200", m))
    assert out["quantization"] == "minimax_m3_nvfp4" and out["kv_cache_dtype"] == "fp8_e4m3"
    assert out["moe_a2a_backend"] == "megamoe" and out["page_size"] == 128
    assert isinstance(minimax_m3_overrides(view("b200", m, page_size=64)), Refuse)


def test_moss_vl_flashinfer_prefill(facts):
    m = facts("MossVLForConditionalGeneration")
    assert moss_vl_overrides(view("h100", m)) == {"prefill_attention_backend": "flashinfer"}
    assert isinstance(moss_vl_overrides(view("h100", m, attention_backend="fa3")), Refuse)
    assert moss_vl_overrides(view("h100", m, attention_backend="fa3",
                                  prefill_attention_backend="flashinfer")) is None


def test_muse_glimmer_marlin_on_sm120(facts):
    m = facts("MuseGlimmerForCausalLM")
    assert muse_glimmer_fp4_gemm_runner_overrides(view("rtx5090", m)) == {
        "fp4_gemm_runner_backend": "marlin"}
    assert muse_glimmer_fp4_gemm_runner_overrides(view("b200", m)) is None


def test_muse_spark(facts):
    m = facts("MuseSparkForConditionalGeneration")
    assert muse_spark_overrides(view("h100", m, attn_dp_size=2, tp_size=2)) == {
        "enable_tf32_matmul": True, "kv_cache_dtype": "fp8_e4m3",
        "mm_enable_dp_encoder": True}
    assert muse_spark_overrides(view("h100", m, kv_cache_dtype="bf16",
                                     enable_tf32_matmul=False)) is None


def test_nemotron_h(facts):
    m = facts("NemotronHForCausalLM", "nemotron_h")
    assert nemotron_h_overrides(view("b200", m)) == {"moe_runner_backend": "flashinfer_trtllm",
                                                     "attention_backend": "trtllm_mha"}
    spec = nemotron_h_overrides(view("b200", m, speculative_algorithm="EAGLE"))
    assert spec["page_size"] == 64 and spec["mamba_radix_cache_strategy"] == "extra_buffer"
    assert spec["speculative_draft_attention_backend"] == "trtllm_mha"
    assert nemotron_h_overrides(view("h100", m)) == {"moe_runner_backend": "flashinfer_cutlass"}
    qc = {"quant_method": "modelopt", "quant_algo": "FP8"}
    bad = facts("NemotronHForCausalLM", "nemotron_h", quantization_config=qc,
                mlp_hidden_act="silu")
    assert isinstance(nemotron_h_overrides(view("b200", bad)), Refuse)
    # relu2 is the config class default
    fp8 = facts("NemotronHForCausalLM", "nemotron_h", quantization_config=qc)
    assert nemotron_h_overrides(view("b200", fp8))["quantization"] == "modelopt_fp8"


def test_nemotron_h_plain_modelopt_needs_the_checkpoint_quant_algo(facts):
    """SGLang indexes ``quantization_config["quant_algo"]`` to refine a plain ``modelopt``:
    with no such mapping in config.json (or no key in it) it stops with an attribute or key
    error (the wild10 probe, seed 10606, on 0.5.23), so the launch is refused; a named method
    needs no such key and goes through."""
    bare = facts("NemotronHForCausalLM", "nemotron_h")
    refused = nemotron_h_overrides(view("h100", bare, quantization="modelopt"))
    assert isinstance(refused, Refuse) and "no quantization_config" in refused.message
    keyless = facts("NemotronHForCausalLM", "nemotron_h",
                    quantization_config={"quant_method": "modelopt"})
    assert isinstance(nemotron_h_overrides(view("h100", keyless, quantization="modelopt")),
                      Refuse)
    named = nemotron_h_overrides(view("h100", bare, quantization="modelopt_fp8"))
    assert named == {"quantization": "modelopt_fp8", "moe_runner_backend": "flashinfer_cutlass"}
    # the mixed method reads the per-layer table off the same attribute (SGLang 0.5.23:
    # AttributeError on h100 and b200 alike); an empty table is fine
    for gpu in ("h100", "b200"):
        assert isinstance(nemotron_h_overrides(view(gpu, bare, quantization="modelopt_mixed")),
                          Refuse)
    tableless = facts("NemotronHForCausalLM", "nemotron_h",
                      quantization_config={"quant_method": "modelopt",
                                           "quant_algo": "MIXED_PRECISION"})
    mixed = nemotron_h_overrides(view("h100", tableless, quantization="modelopt_mixed"))
    assert mixed["quantization"] == "modelopt_mixed"


@pytest.mark.parametrize(("gpu", "backend"), [("b200", "trtllm_mha"), ("a100", "fa3"),
                                              ("mi300x", "triton")])
def test_olmo2(facts, gpu, backend):
    m = facts("Olmo2ForCausalLM")
    assert olmo2_overrides(view(gpu, m)) == {"disable_hybrid_swa_memory": True,
                                             "attention_backend": backend}


def test_qwen3_5_hybrid_sm100_choice(facts):
    m = facts("Qwen3NextForCausalLM")
    # Radix cache on, no extra buffer, no speculation: the page-1 case, so triton.
    assert qwen3_5_hybrid_overrides(view("b200", m)) == {"attention_backend": "triton",
                                                         "page_size": 1}
    assert qwen3_5_hybrid_overrides(view("b200", m, disable_radix_cache=True)) == {
        "attention_backend": "trtllm_mha", "page_size": 64}
    assert qwen3_5_hybrid_overrides(view("h100", m)) is None


def test_qwen3_5_dflash_on_sm100_follows_each_releases_default(facts):
    # 0.5.23's generic SM10x default gives DFLASH (top-k unset) trtllm_mha; 0.5.21-0.5.22's
    # does not, so the hybrid model takes triton with page 1 there (recorded with SGLang
    # 0.5.22 and 0.5.21: kv-pool case qwen3.5-35b-a3b/b200/dflash-fp8)
    m = facts("Qwen3_5MoeForConditionalGeneration")
    dflash = dict(speculative_algorithm="DFLASH", disable_radix_cache=True)
    assert qwen3_5_hybrid_overrides(view("b200", m, **dflash)) == {
        "attention_backend": "trtllm_mha", "page_size": 64}
    assert qwen3_5_hybrid_overrides_0_5_22(view("b200", m, **dflash)) == {
        "attention_backend": "triton", "page_size": 1}
    eagle = dict(speculative_algorithm="EAGLE", speculative_eagle_topk=1,
                 disable_radix_cache=True)
    assert qwen3_5_hybrid_overrides_0_5_22(view("b200", m, **eagle)) \
        == qwen3_5_hybrid_overrides(view("b200", m, **eagle))
    q4 = facts("Qwen4ExpForConditionalGeneration")
    assert qwen4_exp_overrides(view("b200", q4, **dflash))["page_size"] == 64
    assert qwen4_exp_overrides_0_5_22(view("b200", q4, **dflash))["page_size"] == 1


def test_qwen3_moe_family_trtllm_on_sm100(facts):
    m = facts("Qwen3MoeForCausalLM", "qwen3_moe")
    assert qwen3_moe_family_overrides(view("b200", m)) == {
        "moe_runner_backend": "flashinfer_trtllm"}
    assert qwen3_moe_family_overrides(view("b200", m, moe_a2a_backend="deepep")) is None
    assert qwen3_moe_family_overrides(view("h100", m)) is None
    qc = {"quant_method": "modelopt_mixed",
          "quantized_layers": {"model.layers.0.mlp.experts": {"quant_algo": "W4A16_NVFP4"}}}
    w4a16 = facts("Qwen3MoeForCausalLM", "qwen3_moe", quantization_config=qc)
    assert isinstance(qwen3_moe_family_overrides(
        view("b200", w4a16, moe_runner_backend="flashinfer_trtllm")), Refuse)


def test_qwen3vl_aiter_unified_page(facts):
    m = facts("Qwen3VLForConditionalGeneration")
    env = {"SGLANG_USE_AITER_UNIFIED_ATTN": "1"}
    assert qwen3vl_overrides(view("mi300x", m, env=env)) == {"page_size": 16}
    assert qwen3vl_overrides(view("mi300x", m)) is None


def test_qwen3vl_hopper_serving(facts):
    text = dict(LLM, model_type="qwen3_vl_text")
    m = facts("Qwen3VLForConditionalGeneration", "qwen3_vl", text_config=text,
              vision_config={"depth": 24, "hidden_size": 1024})
    assert qwen3vl_hopper_serving_overrides(view("h100", m)) == {
        "mm_preprocess_cache_size_mb": 0, "mm_feature_transport": "cuda_ipc",
        "radix_eviction_policy": "priority", "prefill_decode_interval": 22,
        "decode_attention_backend": "flashinfer"}
    assert qwen3vl_hopper_serving_overrides(view("a100", m)) is None


def test_qwen4_exp(facts):
    m = facts("Qwen4ExpForConditionalGeneration")
    out = qwen4_exp_overrides(view("b200", m))
    assert out == {"ple_offload_embedding": True, "attention_backend": "triton",
                   "page_size": 1}
    qsa = dict(indexer_n_heads=32, indexer_kv_heads=1, indexer_head_dim=128,
               indexer_budget=4096, indexer_compress_ratio=2)
    assert qwen4_exp_overrides(view("b200", facts("Qwen4ExpForConditionalGeneration",
                                                  **qsa)))["page_size"] == 64
    assert isinstance(qwen4_exp_overrides(view("b200", m, enable_unified_memory=True)), Refuse)
    # num_experts defaults to 512 in the text config class: a dense-TP 1 is cleared
    assert qwen4_exp_overrides(view("h100", m, moe_dense_tp_size=1))["moe_dense_tp_size"] \
        is None


def test_step3p_predicate_matches_substrings(facts):
    m = facts("Step3p5ForCausalLM")
    assert decide(step3p_overrides, view("b200", m, enable_hierarchical_cache=True)) == {
        "attention_backend": "fa4", "swa_full_tokens_ratio": 1.0,
        "disable_hybrid_swa_memory": True}
    assert decide(step3p_overrides, view("h100", facts("Step3p7ForConditionalGenerationMTP"))) == {
        "attention_backend": "fa3"}
    assert decide(step3p_overrides, view("h100", facts("LlamaForCausalLM"))) is None


# --- the batch ------------------------------------------------------------------------------

seen: list = []


@rule(phase=Phase.MODEL, batch=BATCH, reads=("attention_backend",),
      writes=("attention_backend",))
def probe_provider(v):
    """Test provider: records the backend it sees and declares triton.

    When: whenever its promises hold.
    Effect: declares ``attention_backend`` triton after recording the value it read.
    Why: it shows what a provider of the model-override batch sees.
    Assumes: nothing.
    """
    seen.append(v.attention_backend)
    return {"attention_backend": "triton"}


def _record(model, gpu="b200", **values):
    return Record(RawInput(dict(values), dict.fromkeys(values, "cli")), CATALOG[gpu], model)


def test_providers_in_one_batch_cannot_see_each_other(facts):
    seen.clear()
    m = facts("GptOssForCausalLM", "gpt_oss", quantization_config={"quant_method": "mxfp4"})
    result = run(_record(m), [getattr(gpt_oss_overrides, MARK), getattr(probe_provider, MARK)])
    assert seen == [None]  # the GPT-OSS choice had not landed when the probe ran
    # Both landed afterwards, in order: the later provider wins the shared field.
    assert [d.source for d in result.chain("attention_backend")] == [
        "gpt_oss_overrides", "probe_provider"]
    assert result.value("attention_backend") == "triton"


def test_a_rule_after_the_batch_sees_it_landed(facts):
    from launchplan.rules.model_overrides.gpt_oss import gpt_oss_backend_check

    m = facts("GptOssForCausalLM", "gpt_oss")
    result = run(_record(m, gpu="h100"), [getattr(gpt_oss_overrides, MARK),
                                          getattr(gpt_oss_backend_check, MARK)])
    assert result.value("attention_backend") == "fa3"


def test_pipeline_lists_every_provider_in_sglang_order():
    start = PIPELINE.index("model_override_constants")
    batch = list(PIPELINE[start:PIPELINE.index("step3p_overrides") + 1])
    registry = discover()
    assert all(registry[(name, None)].batch == BATCH for name in batch)
    assert len(batch) == 39  # the constants, 37 exact providers, 1 predicate provider
    assert batch[0] == "model_override_constants"
    assert batch[-2:] == ["muse_spark_overrides", "step3p_overrides"]
    # exact providers follow SGLang's alphabetical module order
    assert batch.index("deepseek_family_overrides") < batch.index("gpt_oss_overrides") \
        < batch.index("qwen3_5_hybrid_overrides") < batch.index("qwen3_moe_family_overrides")
    assert batch.index("kimi_k3_overrides") + 1 == batch.index("kimi_k3_moe_runner_overrides")


def test_deepseek_dsa_pages_are_flat_and_decode_cp_plain_in_0_5_21(facts):
    from launchplan.rules.model_overrides.deepseek_v2 import deepseek_family_overrides_0_5_21

    pooled = deepseek(facts, "DeepseekV32ForCausalLM", index_topk=2048, index_kpool=4)
    assert deepseek_family_overrides_0_5_21(view("b200", pooled))["page_size"] == 64
    dsa = deepseek(facts, "DeepseekV32ForCausalLM", index_topk=2048)
    dcp = view("b200", dsa, dcp_size=2, tp_size=8, speculative_eagle_topk=2)
    assert isinstance(deepseek_family_overrides(dcp), Refuse)
    assert deepseek_family_overrides_0_5_21(dcp) == {"attention_backend": "dsa",
                                                     "page_size": 64}
    # interleave prefill CP refuses attention-DP groups in 0.5.21 too
    groups = view("h200", dsa, tp_size=8, enable_prefill_cp=True, cp_strategy="interleave",
                  attn_dp_size=2)
    assert isinstance(deepseek_family_overrides_0_5_21(groups), Refuse)


def test_model_overrides_before_0_5_23(facts):
    """What 0.5.23 added to four model overrides, absent from their 0.5.21-0.5.22 variants."""
    from launchplan.rules.model_overrides.kimi_k3 import kimi_k3_overrides_0_5_22
    from launchplan.rules.model_overrides.minicpmv import minicpm_v4_6_overrides_0_5_22
    from launchplan.rules.model_overrides.minimax_m3 import minimax_m3_overrides_0_5_22
    from launchplan.rules.model_overrides.nemotron_h import nemotron_h_overrides_0_5_22
    from tests.rules.conftest import decide

    v47 = facts("MiniCPMV4_7ForConditionalGeneration")
    assert decide(minicpm_v4_6_overrides, view("b200", v47)) == {"attention_backend": "triton"}
    assert decide(minicpm_v4_6_overrides_0_5_22, view("b200", v47)) is None
    v46 = facts("MiniCPMV4_6ForConditionalGeneration")
    assert decide(minicpm_v4_6_overrides_0_5_22, view("b200", v46)) == {
        "attention_backend": "triton"}

    nemotron = facts("NemotronHForCausalLM", "nemotron_h")
    eplb = view("b200", nemotron, enable_eplb=True, moe_runner_backend="flashinfer_trtllm")
    assert isinstance(nemotron_h_overrides(eplb), Refuse)
    assert nemotron_h_overrides_0_5_22(eplb) == {"attention_backend": "trtllm_mha"}
    redundant = view("b200", nemotron, ep_num_redundant_experts=8)
    assert nemotron_h_overrides(redundant)["moe_runner_backend"] == "flashinfer_trtllm_routed"
    assert nemotron_h_overrides_0_5_22(redundant)["moe_runner_backend"] == "flashinfer_trtllm"

    qc = {"quant_method": "mxfp8", "moe_quant_algo": "NVFP4",
          "moe_quant_format": "nvfp4-pack-quantized"}
    m3 = facts("MiniMaxM3SparseForCausalLM", quantization_config=qc)
    old = minimax_m3_overrides_0_5_22(view("b200", m3))
    assert old["quantization"] == "mxfp8" and "moe_a2a_backend" not in old

    k3 = facts("KimiK3ForConditionalGeneration", **MLA_KEYS)
    tokenspeed = view("b200", k3, dcp_size=2, tp_size=8,
                      decode_attention_backend="tokenspeed_mla")
    assert isinstance(kimi_k3_overrides(tokenspeed), Refuse)
    assert kimi_k3_overrides_0_5_22(tokenspeed) == {
        "prefill_attention_backend": "tokenspeed_mla",
        "decode_attention_backend": "tokenspeed_mla", "kv_cache_dtype": "fp8_e4m3"}
    dspark = dict(speculative_algorithm="DSPARK", decode_attention_backend="tokenspeed_mla")
    assert kimi_k3_overrides_0_5_22(view("b200", k3, kv_cache_dtype="fp8_e4m3", **dspark)) == {
        "speculative_attention_mode": "decode"}
    assert kimi_k3_overrides_0_5_22(view("b200", k3, kv_cache_dtype="fp8_e4m3",
                                         speculative_num_draft_tokens=16, **dspark)) is None
