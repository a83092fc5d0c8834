"""MoE kernel and A2A rules (P30)."""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules import moe as m
from launchplan.rules.graph_config import default_config, with_phase
from tests.rules.conftest import decide, fake_model, make_view

GRAPH = {"cuda_graph_config": default_config(True)}


def fields(out):
    return out.fields if isinstance(out, Declare) else out


def test_runner_from_quantization():
    assert fields(m.moe_runner_quant_constraints(make_view(quantization="nvfp4_online"))) == {
        "moe_runner_backend": "flashinfer_trtllm"}
    assert isinstance(m.moe_runner_quant_constraints(make_view(
        "h100", quantization="nvfp4_online")), Refuse)
    assert isinstance(m.moe_runner_quant_constraints(make_view(
        quantization="nvfp4_online", moe_runner_backend="triton")), Refuse)
    assert fields(m.moe_runner_quant_constraints(make_view(quantization="mxfp8"))) == {
        "moe_runner_backend": "flashinfer_trtllm"}
    assert fields(m.moe_runner_quant_constraints(make_view(
        "mi355x", quantization="mxfp8"))) == {"moe_runner_backend": "triton"}
    assert fields(m.moe_runner_quant_constraints(make_view(
        quantization="mxfp8", moe_runner_backend="triton"))) == {
        "moe_runner_backend": "flashinfer_trtllm"}
    assert fields(m.moe_runner_quant_constraints(make_view(
        "rtx5090", quantization="modelopt_fp4"))) == {"moe_runner_backend": "flashinfer_cutlass"}
    assert m.moe_runner_quant_constraints(make_view()) is None


def test_runner_checks():
    assert isinstance(m.moe_runner_quant_checks(make_view(
        moe_runner_backend="flashinfer_cutlass", quantization="fp8")), Refuse)
    assert isinstance(m.moe_runner_quant_checks(make_view(
        moe_runner_backend="flashinfer_trtllm", quantization="awq")), Refuse)
    assert isinstance(m.moe_runner_quant_checks(make_view(
        moe_runner_backend="cutlass", quantization="fp8", ep_size=2)), Refuse)
    assert m.moe_runner_quant_checks(make_view(moe_runner_backend="flashinfer_trtllm",
                                               quantization="fp8")) is None


def test_fusion_disables():
    assert fields(m.moe_runner_fusion_disable(make_view(
        moe_runner_backend="flashinfer_trtllm"))) == {"disable_shared_experts_fusion": True}
    assert m.moe_runner_fusion_disable(make_view()) is None
    assert fields(m.a2a_fusion_adjustments(make_view(moe_a2a_backend="flashinfer"))) == {
        "disable_shared_experts_fusion": True}
    assert fields(m.a2a_fusion_adjustments(make_view(
        moe_a2a_backend="deepep", enable_waterfill=True, disable_shared_experts_fusion=True))) \
        == {"disable_shared_experts_fusion": False, "enforce_shared_experts_fusion": True}
    assert m.a2a_fusion_adjustments(make_view()) is None


def test_a2a_backend_and_ep_size():
    assert fields(m.a2a_backend_overrides(make_view(enable_waterfill=True))) == {
        "moe_a2a_backend": "deepep"}
    assert m.a2a_backend_overrides(make_view(enable_waterfill=True, moe_a2a_backend="megamoe")) \
        is None
    assert fields(m.a2a_ep_size(make_view(moe_a2a_backend="deepep", tp_size=8))) == {
        "ep_size": 8}
    assert m.a2a_ep_size(make_view(tp_size=8)) is None


def test_deepep_graph_disables():
    out = m.a2a_deepep_adjustments(make_view(overlay=GRAPH, moe_a2a_backend="deepep",
                                             deepep_mode="normal"))
    config = fields(out)["cuda_graph_config"]
    assert config["decode"]["backend"] == config["prefill"]["backend"] == "disabled"
    out = m.a2a_deepep_adjustments(make_view(overlay=GRAPH, moe_a2a_backend="deepep",
                                             moe_runner_backend="flashinfer_cutedsl"))
    assert fields(out) == {"deepep_mode": "low_latency"}
    assert isinstance(m.a2a_deepep_adjustments(make_view(
        overlay=GRAPH, moe_a2a_backend="deepep", moe_runner_backend="flashinfer_cutedsl",
        deepep_mode="normal")), Refuse)
    assert m.a2a_deepep_adjustments(make_view(overlay=GRAPH, moe_a2a_backend="deepep")) is None


def test_deepep_v2():
    out = fields(m.a2a_deepep_v2_adjustments(make_view(overlay=GRAPH,
                                                       moe_a2a_backend="deepep_v2")))
    assert out["moe_runner_backend"] == "deep_gemm"
    assert out["cuda_graph_config"]["prefill"]["backend"] == "disabled"
    assert out["cuda_graph_config"]["decode"]["backend"] == "full"
    assert isinstance(m.a2a_deepep_v2_adjustments(make_view(
        overlay=GRAPH, moe_a2a_backend="deepep_v2", moe_runner_backend="triton")), Refuse)
    assert isinstance(m.a2a_deepep_v2_adjustments(make_view(
        overlay=GRAPH, moe_a2a_backend="deepep_v2", nnodes=2)), Refuse)


def test_ascend_tp_normalize():
    assert m.a2a_ascend_tp_normalize(make_view(moe_a2a_backend="ascend_tp")) == {
        "moe_a2a_backend": "none"}
    assert m.a2a_ascend_tp_normalize(make_view()) is None


def test_flashinfer_a2a():
    base = dict(moe_a2a_backend="flashinfer", tp_size=4, attn_dp_size=4)
    assert isinstance(m.a2a_flashinfer_checks(make_view(**base)), Refuse)  # runner auto
    assert m.a2a_flashinfer_checks(make_view(moe_runner_backend="flashinfer_cutlass",
                                             **base)) is None
    out = m.a2a_flashinfer_checks(make_view(moe_runner_backend="flashinfer_trtllm",
                                            flashinfer_a2a_dispatch_type="bf16", **base))
    assert fields(out) == {"moe_runner_backend": "flashinfer_trtllm_routed",
                           "flashinfer_a2a_dispatch_type": "bf16"}
    assert isinstance(m.a2a_flashinfer_checks(make_view(
        moe_a2a_backend="flashinfer", tp_size=4, moe_runner_backend="flashinfer_cutlass")),
        Refuse)
    assert isinstance(m.a2a_flashinfer_checks(make_view(flashinfer_a2a_dispatch_type="bf16")),
                      Refuse)
    assert m.a2a_flashinfer_checks(make_view()) is None


# nvidia/DeepSeek-V4-*-NVFP4's quantization_config: FP8 checkpoint, NVFP4 routed experts
HYBRID_NVFP4 = {"quant_method": "fp8", "quant_algo": "MIXED_PRECISION", "moe_quant_algo": "NVFP4",
                "group_size": 16}


def test_flashinfer_a2a_dispatch_type():
    """An explicit dispatch type is resolved from the experts' format and checked against it;
    a hybrid NVFP4 MoE checkpoint dispatches NVFP4 whatever ``quantization`` says."""
    base = dict(moe_a2a_backend="flashinfer", tp_size=8, attn_dp_size=8,
                moe_runner_backend="flashinfer_cutlass")

    def dispatch(given, model=None, **values):
        return m.a2a_flashinfer_checks(make_view(model=model, flashinfer_a2a_dispatch_type=given,
                                                 **{**base, **values}))

    hybrid = fake_model(quantization_config=HYBRID_NVFP4)
    assert fields(dispatch("auto")) == {"flashinfer_a2a_dispatch_type": "bf16"}
    assert fields(dispatch("auto", quantization="modelopt_fp4")) == {
        "flashinfer_a2a_dispatch_type": "nvfp4"}
    assert fields(dispatch("auto", hybrid)) == {"flashinfer_a2a_dispatch_type": "nvfp4"}
    assert fields(dispatch("nvfp4", hybrid)) == {"flashinfer_a2a_dispatch_type": "nvfp4"}
    assert isinstance(dispatch("nvfp4"), Refuse)  # bf16 experts
    assert isinstance(dispatch("mxfp8"), Refuse)  # no --quantization mxfp8
    assert fields(dispatch("auto", quantization="mxfp8",
                           moe_runner_backend="flashinfer_trtllm")) == {
        "flashinfer_a2a_dispatch_type": "mxfp8", "moe_runner_backend": "flashinfer_trtllm_routed"}
    assert isinstance(dispatch("mxfp8", quantization="mxfp8"), Refuse)  # cutlass runner
    w4a16 = {"SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16": "1"}
    assert isinstance(m.a2a_flashinfer_checks(make_view(
        env=w4a16, flashinfer_a2a_dispatch_type="auto", quantization="nvfp4_online",
        **{**base, "moe_runner_backend": "flashinfer_cutedsl"})), Refuse)
    assert m.a2a_flashinfer_checks(make_view(**base)) is None  # no type given: none resolved
    assert m.nvfp4_dispatch(make_view(model=hybrid, **base))
    assert not m.nvfp4_dispatch(make_view(**base))


def test_cutedsl_runner_takes_hybrid_nvfp4_experts():
    base = dict(moe_runner_backend="flashinfer_cutedsl", tp_size=8)
    hybrid = fake_model(quantization_config=HYBRID_NVFP4)
    assert m.moe_runner_quant_checks(make_view(model=hybrid, **base)) is None
    assert isinstance(m.moe_runner_quant_checks(make_view(**base)), Refuse)
    no_group = fake_model(quantization_config={k: v for k, v in HYBRID_NVFP4.items()
                                               if k != "group_size"})
    assert isinstance(m.moe_runner_quant_checks(make_view(model=no_group, **base)), Refuse)


def test_mori_and_pplx_modes():
    assert fields(m.a2a_mori_pplx_modes(make_view(moe_a2a_backend="mori"))) == {
        "deepep_mode": "normal"}
    assert fields(m.a2a_mori_pplx_modes(make_view(moe_a2a_backend="pplx", attn_dp_size=2))) == {
        "deepep_mode": "low_latency", "moe_runner_backend": "deep_gemm"}
    assert isinstance(m.a2a_mori_pplx_modes(make_view(moe_a2a_backend="pplx")), Refuse)
    assert isinstance(m.a2a_mori_pplx_modes(make_view(moe_a2a_backend="pplx", attn_dp_size=2,
                                                      deepep_mode="normal")), Refuse)
    assert m.a2a_mori_pplx_modes(make_view()) is None


def test_mori_and_pplx_dispatch_budgets():
    mori = dict(moe_a2a_backend="mori", chunked_prefill_size=8192)
    assert isinstance(m.a2a_mori_pplx_modes(make_view("mi300x", **mori)), Refuse)
    assert fields(m.a2a_mori_pplx_modes(make_view(
        "mi300x", env={"SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "8192"}, **mori))) == {
        "deepep_mode": "normal"}
    assert m.a2a_mori_pplx_modes(make_view("mi300x", disaggregation_mode="decode",
                                           deepep_mode="normal", **mori)) is None
    pplx = dict(moe_a2a_backend="pplx", attn_dp_size=2, chunked_prefill_size=128)
    assert fields(m.a2a_mori_pplx_modes(make_view("h100", **pplx)))["deepep_mode"] == \
        "low_latency"
    assert isinstance(m.a2a_mori_pplx_modes(make_view(
        "h100", cuda_graph_max_bs_decode=256, **pplx)), Refuse)


def test_flashinfer_a2a_workspace_budget():
    from launchplan.rules.moe import flashinfer_a2a_token_budget as budget

    graph = {"cuda_graph_config": default_config(True)}
    base = dict(moe_a2a_backend="flashinfer", chunked_prefill_size=8192, attn_dp_size=2)
    assert decide(budget, make_view(overlay=graph, **base)) is None  # capacity max(8192, 4096)
    assert isinstance(decide(budget,
                             make_view(overlay=graph, **dict(base, chunked_prefill_size=-1))),
                      Refuse)
    env = {"SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "1024"}
    assert isinstance(decide(budget, make_view(overlay=graph, env=env, **base)), Refuse)
    big_decode = {"cuda_graph_config": with_phase(default_config(True), "decode",
                                                  max_bs=8192)}
    small = dict(base, chunked_prefill_size=2048)
    assert isinstance(decide(budget, make_view(overlay=big_decode, **small)), Refuse)
    assert decide(budget, make_view(overlay=graph)) is None


def test_experimental_marlin_contract():
    """SGLang's experimental Marlin MoE-LoRA runner: no A2A under EP; LoRA needs virtual
    experts, the triton LoRA backend and, under EP, the plain expert placement."""
    marlin = {"moe_runner_backend": "experimental_sgl_marlin"}
    lora = {**marlin, "enable_lora": True, "lora_use_virtual_experts": True,
            "lora_backend": "triton"}
    check = m.experimental_marlin_checks
    assert decide(check, make_view(moe_runner_backend="triton", enable_lora=True)) is None
    assert decide(check, make_view(**marlin)) is None  # no LoRA: the stock Marlin path
    refused = decide(check, make_view(**marlin, ep_size=8, moe_a2a_backend="deepep"))
    assert isinstance(refused, Refuse) and "--moe-a2a-backend none" in refused.message
    assert decide(check, make_view(**marlin, ep_size=8, enable_eplb=True)) is None
    for given, said in (({"lora_use_virtual_experts": False}, "--lora-use-virtual-experts"),
                        ({"lora_backend": "csgmv"}, "--lora-backend triton"),
                        ({"ep_size": 8, "enable_eplb": True}, "enable_eplb True"),
                        ({"ep_size": 8, "ep_num_redundant_experts": 8},
                         "ep_num_redundant_experts 8"),
                        ({"ep_size": 8, "init_expert_location": "random"},
                         "init_expert_location random")):
        out = decide(check, make_view(**{**lora, **given}))
        assert isinstance(out, Refuse) and said in out.message, (given, out)
    assert decide(check, make_view(**lora)) is None
    assert decide(check, make_view(**lora, ep_size=8)) is None
    # adapters given with the switch unset turn LoRA on; an explicit False keeps it off
    assert isinstance(decide(check, make_view(**marlin, lora_paths=["a=/x"])), Refuse)
    assert decide(check, make_view(**marlin, lora_paths=["a=/x"], enable_lora=False)) is None


def test_nvfp4_dispatch_variable_under_flashinfer_a2a():
    base = dict(moe_a2a_backend="flashinfer", tp_size=4, attn_dp_size=4,
                moe_runner_backend="flashinfer_cutlass", flashinfer_a2a_dispatch_type="bf16")
    assert fields(m.a2a_flashinfer_checks(make_view(**base))) == {
        "flashinfer_a2a_dispatch_type": "bf16"}
    for value in ("1", "0", "abc"):  # set at all: refused beside an explicit dispatch type
        out = m.a2a_flashinfer_checks(make_view(env={"SGLANG_MOE_NVFP4_DISPATCH": value},
                                                **base))
        assert isinstance(out, Refuse) and "SGLANG_MOE_NVFP4_DISPATCH" in out.message
    auto = {**base, "flashinfer_a2a_dispatch_type": None}
    assert m.a2a_flashinfer_checks(make_view(env={"SGLANG_MOE_NVFP4_DISPATCH": "1"},
                                             **auto)) is None
    cutedsl = {**auto, "moe_runner_backend": "flashinfer_cutedsl"}
    w4a16 = {"SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16": "1"}
    assert m.a2a_flashinfer_checks(make_view(env=w4a16, **cutedsl)) is None
    assert isinstance(m.a2a_flashinfer_checks(make_view(
        env={**w4a16, "SGLANG_MOE_NVFP4_DISPATCH": "true"}, **cutedsl)), Refuse)
    assert m.a2a_flashinfer_checks(make_view(
        env={**w4a16, "SGLANG_MOE_NVFP4_DISPATCH": "0"}, **cutedsl)) is None


def test_cutedsl_per_token_activation_refuses_deepep():
    base = dict(moe_runner_backend="flashinfer_cutedsl", quantization="modelopt_fp4",
                moe_a2a_backend="deepep", tp_size=8, ep_size=8)
    assert m.moe_runner_quant_checks(make_view(**base)) is None
    env = {"SGLANG_FLASHINFER_NVFP4_PER_TOKEN_ACTIVATION": "1"}
    assert isinstance(m.moe_runner_quant_checks(make_view(env=env, **base)), Refuse)
    assert isinstance(m.moe_runner_quant_checks(make_view(
        **{**base, "quantization": "nvfp4_online"})), Refuse)
    assert m.moe_runner_quant_checks(make_view(
        env=env, **{**base, "moe_a2a_backend": "flashinfer"})) is None


def test_muse_spark_turns_per_token_activation_on_for_modelopt_fp4():
    muse = fake_model(arch0="MuseSparkForConditionalGeneration")
    base = dict(moe_runner_backend="flashinfer_cutedsl", quantization="modelopt_fp4",
                moe_a2a_backend="deepep", tp_size=8, ep_size=8)
    assert isinstance(m.moe_runner_quant_checks(make_view(model=muse, **base)), Refuse)
    for off in ("0", "abc"):  # set: SGLang keeps it, and "abc" reads as the default (off)
        assert m.moe_runner_quant_checks(make_view(
            model=muse, env={"SGLANG_FLASHINFER_NVFP4_PER_TOKEN_ACTIVATION": off},
            **base)) is None
    assert m.moe_runner_quant_checks(make_view(
        model=muse, **{**base, "quantization": "modelopt_mixed"})) is None


def test_mori_ep_v2_turns_low_latency_into_normal():
    """Recorded: env-reach's mori-ep-v2-forced and mori-ep-v2-dsv4 cases."""
    mori = dict(moe_a2a_backend="mori", deepep_mode="low_latency", tp_size=8,
                chunked_prefill_size=4096)
    dsv4 = fake_model(arch0="DeepseekV4ForCausalLM", dtype="bfloat16")
    qwen = fake_model(arch0="Qwen3MoeForCausalLM", dtype="bfloat16")
    aiter = {"SGLANG_USE_AITER": "1"}

    def mode(model, env, rule=m.a2a_mori_pplx_modes):
        out = rule(make_view("mi355x", model=model, env=env, **mori))
        return fields(out)["deepep_mode"] if out else "low_latency"

    assert mode(dsv4, aiter) == "normal"  # supported: EPv2 by default
    assert mode(dsv4, {}) == "low_latency"  # no aiter runner: falls back to EPv1
    assert mode(dsv4, {**aiter, "MORI_ENABLE_SDMA": "1"}) == "low_latency"
    assert mode(dsv4, {**aiter, "SGLANG_MORI_EP_V2": "0"}) == "low_latency"
    assert mode(qwen, aiter) == "low_latency"  # validated on DeepSeek-V4 only
    for forced in ("1", "true", "abc"):  # set and not false: EPv2 even where unsupported
        assert mode(qwen, {"SGLANG_MORI_EP_V2": forced}) == "normal"
    assert mode(qwen, {"SGLANG_MORI_EP_V2": "1"}, m.a2a_mori_pplx_modes_0_5_21) == \
        "low_latency"  # no EPv2 in 0.5.21
    wide = fake_model(arch0="DeepseekV4ForCausalLM", dtype="bfloat16")
    out = m.a2a_mori_pplx_modes(make_view("mi355x", model=wide, env=aiter,
                                          **{**mori, "tp_size": 16}))
    assert out is None  # across hosts: EPv1
