"""DeepGEMM MegaMoE: the runner alias, the GPU generation and overlap, the token budget."""

from __future__ import annotations

import pytest

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules.graph_config import default_config
from launchplan.rules.mega_moe import megamoe_compat, megamoe_runner_alias, megamoe_token_budget
from tests.rules.conftest import decide, fake_model, make_view

QWEN_MOE = fake_model(architectures=("Qwen3MoeForCausalLM",), arch0="Qwen3MoeForCausalLM",
                      quant_config=None)
LLAMA = fake_model(quant_config=None)
GRAPH = {"cuda_graph_config": default_config(True)}


def test_the_megamoe_runner_names_the_a2a_backend():
    out = decide(megamoe_runner_alias,
                 make_view(moe_runner_backend="megamoe", moe_a2a_backend="deepep"))
    assert isinstance(out, Declare)
    assert out.fields == {"moe_runner_backend": "auto", "moe_a2a_backend": "megamoe"}
    assert decide(megamoe_runner_alias, make_view(moe_runner_backend="deep_gemm")) is None


@pytest.mark.parametrize(("gpu", "ok"), [("a100", False), ("h100", True), ("b200", True),
                                         ("b300", True), ("rtx5090", False), ("mi300x", True)])
def test_megamoe_needs_hopper_or_sm100(gpu, ok):
    out = decide(megamoe_compat, make_view(gpu, moe_a2a_backend="megamoe"))
    assert (out is None) is ok
    assert decide(megamoe_compat, make_view(gpu)) is None


def test_megamoe_has_no_batch_overlap():
    for flag in ("enable_two_batch_overlap", "enable_single_batch_overlap"):
        assert isinstance(megamoe_compat(make_view("h100", moe_a2a_backend="megamoe",
                                                   **{flag: True})), Refuse)


def test_the_token_budget_binds_only_models_without_a_fallback():
    base = dict(moe_a2a_backend="megamoe", chunked_prefill_size=16384, tp_size=1,
                attn_dp_size=1)
    assert isinstance(megamoe_token_budget(make_view(model=QWEN_MOE, overlay=GRAPH, **base)),
                      Refuse)
    assert megamoe_token_budget(make_view(model=LLAMA, overlay=GRAPH, **base)) is None
    assert megamoe_token_budget(make_view("mi300x", model=QWEN_MOE, overlay=GRAPH,
                                          **base)) is None
    fits = dict(base, chunked_prefill_size=8192)
    assert megamoe_token_budget(make_view(model=QWEN_MOE, overlay=GRAPH, **fits)) is None
    assert isinstance(megamoe_token_budget(make_view(
        model=QWEN_MOE, overlay=GRAPH, **dict(base, chunked_prefill_size=-1))), Refuse)
    env = {"SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK": "16384"}
    assert megamoe_token_budget(make_view(model=QWEN_MOE, overlay=GRAPH, env=env,
                                          **base)) is None
    nvfp4 = dict(base, quantization="modelopt_fp4")
    assert isinstance(megamoe_token_budget(make_view(model=LLAMA, overlay=GRAPH, **nvfp4)),
                      Refuse)
    # not an integer: SGLang warns and keeps its default, so the budget binds as unset
    unreadable = {"SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK": "lots"}
    assert isinstance(megamoe_token_budget(make_view(model=QWEN_MOE, overlay=GRAPH,
                                                     env=unreadable, **base)), Refuse)


def test_flashinfer_megamoe_needs_a_validated_model_fp4_or_mxfp8_attention_dp_and_sm100():
    from launchplan.rules.mega_moe import a2a_flashinfer_megamoe_checks as check

    ok = dict(moe_a2a_backend="flashinfer_megamoe", quantization="mxfp8", tp_size=4,
              attn_dp_size=4, moe_runner_backend="auto", dtype="auto")
    model = fake_model(architectures=("Qwen3MoeForCausalLM",), arch0="Qwen3MoeForCausalLM",
                       quant_config=None, dtype="bfloat16")
    out = decide(check, make_view(model=model, **ok))
    assert isinstance(out, Declare)
    assert out.fields == {"moe_runner_backend": "flashinfer_megamoe"}
    assert isinstance(decide(check, make_view(model=LLAMA, **ok)), Refuse)
    assert isinstance(decide(check, make_view(model=model, **dict(ok, quantization=None))), Refuse)
    assert isinstance(decide(check, make_view(model=model, **dict(ok, attn_dp_size=1))), Refuse)
    assert isinstance(decide(check,
                             make_view(model=model, **dict(ok, moe_runner_backend="triton"))),
                      Refuse)
    assert isinstance(decide(check, make_view("h100", model=model, **ok)), Refuse)
    assert isinstance(decide(check, make_view(model=model, env={
        "SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE": "fp16"}, **ok)), Refuse)
    fp4_experts = fake_model(architectures=("Qwen3MoeForCausalLM",),
                             arch0="Qwen3MoeForCausalLM", dtype="bfloat16",
                             quant_config={"routed_experts_quant_method": "mxfp4"})
    assert isinstance(decide(check, make_view(model=fp4_experts, **dict(ok, quantization=None))),
                      Declare)
    assert decide(check, make_view(model=model)) is None


def test_the_token_budget_over_an_attention_cp_width_of_zero():
    # SGLang aligns the prefill chunk to tp / attention DP / attention CP unchecked
    zero = dict(moe_a2a_backend="megamoe", chunked_prefill_size=8192, tp_size=8,
                attn_dp_size=2, attn_cp_size=0)
    out = megamoe_token_budget(make_view("b200", model=QWEN_MOE, overlay=GRAPH, **zero))
    assert isinstance(out, Refuse) and "ZeroDivisionError" in out.message
    # a model with a fallback is not budgeted, so nothing divides
    assert megamoe_token_budget(make_view("b200", model=LLAMA, overlay=GRAPH, **zero)) is None


def test_flydsl_decode_capacity_on_rocm():
    """Recorded: env-reach's flydsl-decode-capacity and flydsl-no-request-cap cases."""
    base = dict(moe_a2a_backend="megamoe", tp_size=8, ep_size=8, max_running_requests=128)
    fly = {"SGLANG_AMD_USE_FLYDSL_MEGA_MOE": "1", "SGLANG_AMD_FLYDSL_MEGA_MOE_DECODE_MTPR": "64"}

    def budget(gpu="mi355x", env=fly, **over):
        return megamoe_token_budget(make_view(gpu, model=QWEN_MOE, overlay=GRAPH, env=env,
                                              **{**base, **over}))

    assert isinstance(budget(), Refuse)  # 128 requests on one rank > 64
    assert budget(max_running_requests=64) is None
    assert budget(attn_dp_size=8) is None  # 16 requests per attention-DP rank
    assert isinstance(budget(max_running_requests=None), Refuse)
    assert isinstance(budget(max_running_requests=32, attn_cp_size=2), Refuse)
    assert isinstance(budget(max_running_requests=16, speculative_algorithm="EAGLE",
                             speculative_num_draft_tokens=8), Refuse)  # 16 x 8 > 64
    assert budget(disaggregation_mode="prefill") is None
    assert budget(env={**fly, "SGLANG_AMD_FLYDSL_MEGA_MOE_MTPR": "64"}) is None  # merged
    assert budget(env={"SGLANG_AMD_FLYDSL_MEGA_MOE_DECODE_MTPR": "64"}) is None  # switch off
    assert budget(encoder_only=True) is None


def test_nvfp4_binds_the_budget_only_as_config_json_describes_it():
    # SGLang's model config reads quant_algo from config.json's quantization_config; a
    # ModelOpt checkpoint that describes NVFP4 only in hf_quant_config.json (the verified
    # description launchplan derives for its weights) gets no budget check (probe x26b)
    base = dict(moe_a2a_backend="megamoe", chunked_prefill_size=16384, tp_size=1,
                attn_dp_size=1)
    described = {"quant_method": "modelopt", "quant_algo": "NVFP4"}
    in_config = fake_model(quantization_config=described, quant_config=described)
    separate = fake_model(quantization_config=None, quant_config=described)
    assert isinstance(megamoe_token_budget(make_view(model=in_config, overlay=GRAPH, **base)),
                      Refuse)
    assert megamoe_token_budget(make_view(model=separate, overlay=GRAPH, **base)) is None
    given = dict(base, quantization="modelopt_fp4")  # named on the command line: it binds
    assert isinstance(megamoe_token_budget(make_view(model=separate, overlay=GRAPH, **given)),
                      Refuse)
