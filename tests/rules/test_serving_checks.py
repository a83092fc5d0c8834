"""Serving-side checks the wild4 draw brought in front of SGLang: tokenizer batching, the
weight cache, Kimi-K3's shared-expert TP and int8 Mamba checkpoints (wild4/aimed/...)."""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules.expert_parallel import shared_experts_tp_checks
from launchplan.rules.late import int8_mamba_checkpoint_checks
from launchplan.rules.tokenizer_batching import tokenizer_batching
from launchplan.rules.weight_loading import weight_cache_checks
from tests.rules.conftest import decide, fake_model, make_view


def test_one_tokenizer_batching_approach_and_none_without_a_tokenizer():
    both = make_view(enable_tokenizer_batch_encode=True, enable_dynamic_batch_tokenizer=True)
    assert isinstance(tokenizer_batching(both), Refuse)
    out = tokenizer_batching(make_view(skip_tokenizer_init=True, detokenizer_worker_num=4,
                                       enable_tokenizer_batch_encode=True))
    assert isinstance(out, Declare) and out.fields == {
        "detokenizer_worker_num": 1, "enable_tokenizer_batch_encode": False}
    assert tokenizer_batching(make_view(skip_tokenizer_init=True)) is None
    # the Rust server keeps its own settings
    assert tokenizer_batching(make_view(skip_tokenizer_init=True, detokenizer_worker_num=4,
                                        env={"SGLANG_RUST_SERVER": "1"})) is None
    assert decide(tokenizer_batching, make_view(detokenizer_worker_num=4)) is None


def test_weight_cache_serves_no_draft_and_ipc_cache_is_internal():
    out = weight_cache_checks(make_view(weight_cache_mode="client",
                                        speculative_algorithm="NGRAM"))
    assert isinstance(out, Refuse) and "speculative" in out.message
    assert weight_cache_checks(make_view(weight_cache_mode="daemon")) is None
    assert isinstance(weight_cache_checks(make_view(load_format="ipc_cache")), Refuse)
    assert weight_cache_checks(make_view(weight_cache_mode="off",
                                         speculative_algorithm="EAGLE")) is None


def test_shared_experts_tp_is_kimi_k3_s_and_divides_attention_tp():
    k3 = fake_model(architectures=("KimiK3ForConditionalGeneration",),
                    arch0="KimiK3ForConditionalGeneration")
    ok = dict(tp_size=8, shared_experts_tp_size=4, moe_a2a_backend="deepep")
    assert shared_experts_tp_checks(make_view(model=k3, **ok)) is None
    out = shared_experts_tp_checks(make_view(model=k3, **{**ok, "attn_dp_size": 4}))
    assert isinstance(out, Refuse) and "divisor" in out.message  # attention TP is 2
    out = shared_experts_tp_checks(make_view(**ok))
    assert isinstance(out, Refuse) and "Kimi-K3" in out.message
    out = shared_experts_tp_checks(make_view(model=k3, **{**ok, "moe_a2a_backend": "none"}))
    assert isinstance(out, Refuse) and "all-to-all" in out.message
    assert isinstance(shared_experts_tp_checks(make_view(model=k3, **{
        **ok, "shared_experts_tp_size": 0})), Refuse)


def test_int8_mamba_checkpoints_need_the_built_in_mamba_radix_cache():
    for extra in ({"enable_hierarchical_cache": True}, {"radix_cache_backend": "x"},
                  {"enable_lmcache": True}):
        out = int8_mamba_checkpoint_checks(make_view(enable_int8_mamba_checkpoint=True, **extra))
        assert isinstance(out, Refuse), extra
    assert int8_mamba_checkpoint_checks(make_view(enable_int8_mamba_checkpoint=True)) is None


def test_linear_attention_kernels_flashinfer_on_sm100_and_flashkda_prefill_only():
    from launchplan.rules.late import linear_attn_backend_checks as rule

    out = rule(make_view("b200", mamba_ssm_dtype="bfloat16"))
    assert isinstance(out, Declare) and out.fields == {"linear_attn_decode_backend": "flashinfer"}
    assert rule(make_view("h100", mamba_ssm_dtype="bfloat16")) is None
    assert rule(make_view("b200", mamba_ssm_dtype="bfloat16", linear_attn_backend="helion")) \
        is None
    for gpu, extra in (("b200", {"linear_attn_backend": "flashinfer"}),
                       ("rtx5090", {"linear_attn_verify_backend": "flashinfer"}),
                       ("b200", {"linear_attn_backend": "flashinfer",
                                 "mamba_ssm_dtype": "float32"})):
        assert isinstance(rule(make_view(gpu, **extra)), Refuse), (gpu, extra)
    assert rule(make_view("h100", linear_attn_backend="flashinfer")) is None
    assert isinstance(rule(make_view("h100", linear_attn_decode_backend="flashkda")), Refuse)
    out = rule(make_view("h100", linear_attn_backend="flashkda"))
    assert isinstance(out, Declare) and out.fields == {"linear_attn_decode_backend": "triton"}


def test_replayssm_and_its_verify_form_have_their_limits():
    from launchplan.rules.late import linear_attn_backend_checks as rule

    for extra in ({"linear_attn_backend": "cutedsl"}, {"disaggregation_mode": "prefill"},
                  {"linear_replayssm_cache_len": 0},
                  {"mamba_radix_cache_strategy": "extra_buffer", "disable_radix_cache": False}):
        assert isinstance(rule(make_view("h100", enable_linear_replayssm=True, **extra)),
                          Refuse), extra
    assert rule(make_view("h100", enable_linear_replayssm=True)) is None
    out = rule(make_view("h100", enable_linear_replayssm_spec=True))
    assert isinstance(out, Declare) and out.fields == {"mamba_ssm_dtype": "float32"}
    for extra in ({"speculative_eagle_topk": 4}, {"enable_linear_replayssm": True},
                  {"disaggregation_mode": "prefill"}, {"linear_attn_backend": "cutedsl"}):
        assert isinstance(rule(make_view("h100", enable_linear_replayssm_spec=True, **extra)),
                          Refuse), extra
    # ragged verify needs DSPARK or DFLASH with a ring-writing verify kernel
    out = rule(make_view("h100", enable_linear_replayssm_spec=True,
                         env={"SGLANG_RAGGED_VERIFY_MODE": "compact"}))
    assert isinstance(out, Refuse)
