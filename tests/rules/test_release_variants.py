"""Rule variants of older SGLang releases (0.5.21, 0.5.22), each against its 0.5.23 rule.

Every variant named by a release's entry in ``rulesets.py`` is tested here on the input that
tells it apart from the current rule; parity with each release's recorded oracle answers is
checked in ``tests/parity``.
"""

from __future__ import annotations

from launchplan.engine.declarations import Refuse
from launchplan.rules import speculative as s
from launchplan.rules.attention import attention_backend_default, attention_backend_default_0_5_22
from launchplan.rules.graph_config import default_config, with_phase
from launchplan.rules.memory import (
    cuda_graph_sizing,
    cuda_graph_sizing_0_5_21,
    cuda_graph_sizing_0_5_22,
)
from tests.rules.conftest import MLA, fake_model, make_view
from tests.rules.test_speculative import draft_view, fields

GRAPH = {"cuda_graph_config": default_config(True)}


def _prefill_max_bs(rule, chunk, **values):
    view = make_view("b200", model=fake_model(**MLA),
                     overlay={**GRAPH, "chunked_prefill_size": chunk}, **values)
    return rule(view)["cuda_graph_config"]["prefill"]["max_bs"]


def test_mla_prefill_graph_is_flat_2048_before_0_5_23():
    for chunk in (16384, 1024):
        assert _prefill_max_bs(cuda_graph_sizing_0_5_22, chunk) == 2048
        assert _prefill_max_bs(cuda_graph_sizing_0_5_21, chunk) == 2048
    assert _prefill_max_bs(cuda_graph_sizing, 16384) == 8192
    assert _prefill_max_bs(cuda_graph_sizing, 1024) == 1024


def test_decode_cap_at_running_requests_came_in_0_5_22():
    def decode(rule):
        view = make_view("h100", max_running_requests=100,
                         overlay={**GRAPH, "chunked_prefill_size": 8192})
        return rule(view)["cuda_graph_config"]["decode"]["max_bs"]

    assert decode(cuda_graph_sizing) == decode(cuda_graph_sizing_0_5_22) == 100
    assert decode(cuda_graph_sizing_0_5_21) == 256


def test_deterministic_rejection_sampling_refused_on_cuda_before_0_5_23():
    on = dict(speculative_use_rejection_sampling=True, speculative_algorithm="EAGLE",
              speculative_eagle_topk=1, enable_deterministic_inference=True, device="cuda")
    assert s.eagle_rejection_sampling_checks(make_view(**on)) is None
    assert isinstance(s.eagle_rejection_sampling_checks_0_5_22(make_view(**on)), Refuse)
    plain = {**on, "enable_deterministic_inference": False}
    assert s.eagle_rejection_sampling_checks_0_5_22(make_view(**plain)) is None


def test_dflash_default_backend_on_sm100():
    view = make_view("b200", speculative_algorithm="DFLASH")
    assert attention_backend_default(view).fields == {"attention_backend": "trtllm_mha"}
    assert attention_backend_default_0_5_22(view).fields == {"attention_backend": "flashinfer"}
    eagle = make_view("b200", speculative_algorithm="EAGLE", speculative_eagle_topk=1)
    assert attention_backend_default_0_5_22(eagle).fields == \
        attention_backend_default(eagle).fields


def test_dflash_draft_fallback_is_flashinfer_on_sm100_before_0_5_23():
    base = dict(speculative_algorithm="DFLASH", speculative_draft_model_path="d",
                attention_backend="trtllm_mha")
    draft = fake_model(config={"num_hidden_layers": 2})
    assert fields(s.dflash_draft_backend(draft_view("b200", draft=draft, **base))) == {
        "speculative_draft_attention_backend": "fa4"}
    assert fields(s.dflash_draft_backend_0_5_22(draft_view("b200", draft=draft, **base))) == {
        "speculative_draft_attention_backend": "flashinfer"}


def test_tokenspeed_mla_is_its_own_backend_before_0_5_23():
    from launchplan.rules.attention import trtllm_mla_checks, trtllm_mla_checks_0_5_22
    from launchplan.rules.kv_cache import (
        deprecated_backend_aliases,
        deprecated_backend_aliases_0_5_22,
    )
    from launchplan.rules.page_size import backend_page_snaps, backend_page_snaps_0_5_22

    given = make_view("b200", model=fake_model(**MLA), attention_backend="tokenspeed_mla")
    assert deprecated_backend_aliases(given).fields == {"attention_backend": "cutedsl_mla"}
    assert deprecated_backend_aliases_0_5_22(given) is None
    assert deprecated_backend_aliases_0_5_22(make_view(attention_backend="compressed")).fields \
        == {"attention_backend": "dsv4"}
    assert backend_page_snaps(given) is None
    assert backend_page_snaps_0_5_22(given).fields == {"page_size": 64}
    assert trtllm_mla_checks(given) is None
    assert isinstance(trtllm_mla_checks_0_5_22(given), Refuse)  # KV auto: fp8_e4m3 needed
    fp8 = make_view("b200", model=fake_model(**MLA), attention_backend="tokenspeed_mla",
                    kv_cache_dtype="fp8_e4m3")
    assert trtllm_mla_checks_0_5_22(fp8) is None
    hopper = make_view("h200", model=fake_model(**MLA), attention_backend="tokenspeed_mla",
                       kv_cache_dtype="fp8_e4m3")
    assert isinstance(trtllm_mla_checks_0_5_22(hopper), Refuse)


def test_rocm_rccl_check_came_in_0_5_23():
    from launchplan.rules.deterministic import (
        deterministic_tp_collectives,
        deterministic_tp_collectives_0_5_22,
    )

    view = make_view("mi300x", enable_deterministic_inference=True, tp_size=4,
                     disable_custom_all_reduce=True)
    assert isinstance(deterministic_tp_collectives(view), Refuse)
    assert deterministic_tp_collectives_0_5_22(view) is None


def test_skip_dp_mlp_sync_needs_eagle_before_0_5_23():
    view = make_view(overlay={"speculative_skip_dp_mlp_sync": True})
    assert s.speculative_algorithm_known(view) is None
    assert isinstance(s.speculative_algorithm_known_0_5_22(view), Refuse)
    eagle = make_view(speculative_algorithm="EAGLE",
                      overlay={"speculative_skip_dp_mlp_sync": True})
    assert s.speculative_algorithm_known_0_5_22(eagle) is None


def test_supported_prefill_cp_keeps_its_breakable_graph():
    from launchplan.rules.cuda_graph import (
        cuda_graph_compatibility,
        cuda_graph_compatibility_0_5_22,
    )

    cp = dict(tp_size=2, attn_cp_size=2, enable_prefill_cp=True, cp_strategy="zigzag")
    for rule in (cuda_graph_compatibility, cuda_graph_compatibility_0_5_22):
        assert rule(make_view("b200", attention_backend="trtllm_mha", overlay=GRAPH,
                              **cp)) is None
        out = rule(make_view("b200", overlay=GRAPH, **cp))  # backend not known yet
        assert out.fields["cuda_graph_config"]["prefill"]["backend"] == "disabled"
    dsv4 = make_view("b200", attention_backend="dsv4", overlay=GRAPH,
                     **{**cp, "cp_strategy": "interleave"})
    assert cuda_graph_compatibility_0_5_22(dsv4) is None
    assert cuda_graph_compatibility(dsv4) is not None


# --- 0.5.21: the tc_piecewise prefill graph ------------------------------------------------------

def _prefill_backend(out) -> str | None:
    return None if out is None else out.fields["cuda_graph_config"]["prefill"]["backend"]


def test_tc_piecewise_is_a_graph_backend_only_in_0_5_21():
    from launchplan.input.fields import release_table
    from launchplan.rules.cuda_graph import (
        BACKENDS_0_5_21,
        validate_cuda_graph_config,
        validate_cuda_graph_config_0_5_21,
    )
    from launchplan.rules.graph_config import with_phase

    piecewise = {"cuda_graph_config": with_phase(default_config(True), "prefill",
                                                 backend="tc_piecewise")}
    assert isinstance(validate_cuda_graph_config(make_view(overlay=piecewise)), Refuse)
    assert validate_cuda_graph_config_0_5_21(make_view(overlay=piecewise)) is None
    odd = {"cuda_graph_config": with_phase(default_config(True), "decode", backend="odd")}
    assert isinstance(validate_cuda_graph_config_0_5_21(make_view(overlay=odd)), Refuse)
    # the variant's list is the wheel's (the field table read it from SGLang 0.5.21)
    for phase in ("decode", "prefill"):
        assert release_table("0.5.21").graph_phases[phase][0] == BACKENDS_0_5_21


MINIMAX_VL = dict(architectures=("MiniMaxM3SparseForConditionalGeneration",),
                  arch0="MiniMaxM3SparseForConditionalGeneration", is_multimodal=True,
                  multimodal_default=True, is_gguf=False)


def test_validated_multimodal_prefill_runs_tc_piecewise_in_0_5_21():
    from launchplan.rules.cuda_graph import (
        cuda_graph_compatibility_0_5_21,
        cuda_graph_compatibility_0_5_22,
    )

    model = fake_model(**MINIMAX_VL)
    assert _prefill_backend(cuda_graph_compatibility_0_5_21(
        make_view("h100", model=model, overlay=GRAPH))) == "tc_piecewise"
    # 0.5.22 validated it for the breakable graph instead
    assert cuda_graph_compatibility_0_5_22(make_view("h100", model=model, overlay=GRAPH)) is None
    # what torch.compile's piecewise capture cannot run turns it off again
    for blocker in (dict(tp_size=2, attn_dp_size=2), dict(enable_lora=True),
                    dict(disaggregation_mode="prefill")):
        out = cuda_graph_compatibility_0_5_21(make_view("h100", model=model, overlay=GRAPH,
                                                        **blocker))
        assert _prefill_backend(out) == "disabled", blocker
    # served text-only, it is no multimodal model: the breakable default stands
    assert cuda_graph_compatibility_0_5_21(make_view("h100", model=model, overlay=GRAPH,
                                                     enable_multimodal=False)) is None
    # trtllm_mla keeps the breakable path, which 0.5.21 has not validated for this model
    out = cuda_graph_compatibility_0_5_21(make_view("b200", model=model, overlay=GRAPH,
                                                    attention_backend="trtllm_mla"))
    assert _prefill_backend(out) == "disabled"
    # a backend the user chose is never touched
    assert cuda_graph_compatibility_0_5_21(make_view(
        "h100", model=model, overlay=GRAPH, cuda_graph_backend_prefill="breakable")) is None


def test_every_kda_model_loses_the_default_breakable_graph_in_0_5_21():
    from launchplan.rules.cuda_graph import (
        cuda_graph_compatibility_0_5_21,
        cuda_graph_compatibility_0_5_22,
    )

    glm = fake_model(architectures=("Glm5NextForConditionalGeneration",),
                     arch0="Glm5NextForConditionalGeneration", uses_kda=True,
                     multimodal_default=True, is_gguf=False)
    assert cuda_graph_compatibility_0_5_22(make_view("h100", model=glm, overlay=GRAPH)) is None
    assert _prefill_backend(cuda_graph_compatibility_0_5_21(
        make_view("h100", model=glm, overlay=GRAPH))) == "disabled"


def test_explicit_tc_piecewise_resolves_on_0_5_21_only():
    from launchplan import resolve
    from launchplan.errors import InputError

    argv = ["--cuda-graph-config", '{"prefill": {"backend": "tc_piecewise"}}']
    result = resolve(argv, gpu="h100", model_path="llama-3.1-8b", compat="0.5.21")
    assert result.value_at("cuda_graph_config.prefill.backend") == "tc_piecewise"
    assert result.value_at("cuda_graph_config.prefill.max_bs") == 8192  # sized as any graph
    for compat in ("0.5.22", "0.5.23"):
        try:
            resolve(argv, gpu="h100", model_path="llama-3.1-8b", compat=compat)
        except InputError as exc:
            assert "tc_piecewise" in str(exc)
        else:
            raise AssertionError(f"{compat} accepted tc_piecewise")


# --- 0.5.21: attention DP spelled --enable-dp-attention --dp-size N -------------------------------

def test_0_5_21_attention_dp_is_read_as_groups_and_reported_in_its_spelling():
    from launchplan.rules.bootstrap import (
        deprecated_dp_attention_0_5_21,
        dp_attention_spelling_0_5_21,
    )

    legacy = make_view(enable_dp_attention=True, dp_size=4, tp_size=4)
    assert deprecated_dp_attention_0_5_21(legacy).fields == {
        "enable_dp_attention": False, "attn_dp_size": 4, "dp_size": 1}
    assert deprecated_dp_attention_0_5_21(make_view(dp_size=4)) is None
    grouped = make_view(tp_size=4, overlay={"attn_dp_size": 4, "dp_size": 1})
    assert dp_attention_spelling_0_5_21(grouped).fields == {
        "dp_size": 4, "enable_dp_attention": True}
    assert dp_attention_spelling_0_5_21(make_view(dp_size=2)) is None


def test_0_5_21_attention_dp_derives_what_0_5_22_derives():
    from launchplan import resolve
    from launchplan.checks.launch_requirements import gpus_used
    from launchplan.checks.predicates import Plan
    from launchplan.checks.preflight import preflight
    from launchplan.memory.plan import memory_plan

    argv = ["--tp-size", "8", "--dp-size", "8", "--enable-dp-attention"]
    old, new = (resolve(argv, gpu="h200", model_path="deepseek-v3", compat=c)
                for c in ("0.5.21", "0.5.22"))
    assert (old["dp_size"], old["enable_dp_attention"]) == (8, True)  # as 0.5.21 reports
    assert (new["dp_size"], new["enable_dp_attention"], new["attn_dp_size"]) == (1, False, 8)
    for field in ("mem_fraction_static", "chunked_prefill_size", "cuda_graph_config",
                  "schedule_conservativeness"):
        assert old[field] == new[field], field
    assert gpus_used(Plan(old)) == gpus_used(Plan(new)) == (8, 8)
    assert [p.requirement for p in preflight(old).problems] == \
        [p.requirement for p in preflight(new).problems]
    assert memory_plan(old).to_dict() == memory_plan(new).to_dict()


def test_0_5_21_prefill_default_off_cuda_is_tc_piecewise_then_disabled():
    from launchplan.rules.cuda_graph import (
        cuda_graph_compatibility_0_5_21,
        parse_cuda_graph_config,
        parse_cuda_graph_config_0_5_21,
    )

    def prefill(out):
        return out["cuda_graph_config"]["prefill"]["backend"]

    assert prefill(parse_cuda_graph_config(make_view("mi300x"))) == "disabled"
    parsed = parse_cuda_graph_config_0_5_21(make_view("mi300x"))
    assert prefill(parsed) == "tc_piecewise"
    assert prefill(parse_cuda_graph_config_0_5_21(make_view("h100"))) == "breakable"
    out = cuda_graph_compatibility_0_5_21(make_view("mi300x", overlay=parsed))
    assert _prefill_backend(out) == "disabled"
    # chosen explicitly, it stays (0.5.21 skips every default cascade for a chosen backend)
    chosen = make_view("mi300x", cuda_graph_backend_prefill="tc_piecewise")
    assert cuda_graph_compatibility_0_5_21(make_view(
        "mi300x", overlay=parse_cuda_graph_config_0_5_21(chosen),
        cuda_graph_backend_prefill="tc_piecewise")) is None


def test_layernorm_sp_before_0_5_23_takes_qwen3_alone():
    from launchplan.rules.layernorm_sp import (
        layernorm_sp_checks_0_5_21,
        layernorm_sp_checks_0_5_22,
    )

    qwen3 = fake_model(architectures=("Qwen3ForCausalLM",), arch0="Qwen3ForCausalLM")
    muse = fake_model(architectures=("MuseSparkForConditionalGeneration",),
                      arch0="MuseSparkForConditionalGeneration")
    for rule in (layernorm_sp_checks_0_5_22, layernorm_sp_checks_0_5_21):
        assert rule(make_view(model=qwen3, enable_layernorm_sp=True, tp_size=2)) is None
        assert rule(make_view(model=qwen3, tp_size=1)) is None  # not asked for
        for bad in (dict(model=muse), dict(model=None), dict(model=qwen3, tp_size=1),
                    dict(model=qwen3, attn_dp_size=2),
                    dict(model=qwen3, speculative_algorithm="EAGLE")):
            values = {"enable_layernorm_sp": True, "tp_size": 2, **bad}
            if values["model"] is None:
                del values["model"]  # the default Llama
            assert isinstance(rule(make_view(**values)), Refuse), (rule.__name__, bad)
    # pipeline stages: refused from 0.5.22 on, not checked by 0.5.21
    staged = dict(model=qwen3, enable_layernorm_sp=True, tp_size=2, pp_size=2)
    assert isinstance(layernorm_sp_checks_0_5_22(make_view(**staged)), Refuse)
    assert layernorm_sp_checks_0_5_21(make_view(**staged)) is None


def test_unified_memory_refuses_a_trtllm_mha_decode_graph_in_0_5_22_only():
    from launchplan.rules.late import unified_memory_pool, unified_memory_pool_0_5_22

    hybrid = fake_model(is_hybrid_swa=True)

    def view(**values):
        return make_view("b200", model=hybrid, overlay=dict(GRAPH),
                         **{"enable_unified_memory": True, **values})

    trtllm = dict(attention_backend="trtllm_mha")
    assert isinstance(unified_memory_pool_0_5_22(view(**trtllm)), Refuse)
    assert unified_memory_pool(view(**trtllm)) is None  # 0.5.21 and 0.5.23 take it
    assert unified_memory_pool_0_5_22(view(attention_backend="fa3")) is None
    split = dict(attention_backend="fa3", decode_attention_backend="trtllm_mha")
    assert isinstance(unified_memory_pool_0_5_22(view(**split)), Refuse)
    from launchplan.rules.graph_config import DECODE, with_phase

    without_graph = {"cuda_graph_config": with_phase(default_config(True), DECODE,
                                                     backend="disabled")}
    assert unified_memory_pool_0_5_22(make_view(
        "b200", model=hybrid, overlay=without_graph, enable_unified_memory=True,
        **trtllm)) is None
    assert unified_memory_pool_0_5_22(view(enable_unified_memory=False, **trtllm)) is None


def test_pd_host_receive_turns_on_above_zero_in_0_5_21():
    from launchplan.rules.disaggregation import pd_transfer_settings, pd_transfer_settings_0_5_21

    def view(threshold, **values):
        return make_view(disaggregation_decode_host_receive_threshold=threshold, **values)

    # 0.5.21's default 0 is off; 0.5.22 on read 1 as off and below it as on
    assert pd_transfer_settings_0_5_21(view(0.0)) is None
    assert pd_transfer_settings(view(1.0)) is None
    for rule, on in ((pd_transfer_settings_0_5_21, 0.5), (pd_transfer_settings_0_5_21, 1.0),
                     (pd_transfer_settings, 0.5), (pd_transfer_settings, 0.0)):
        out = rule(view(on))
        assert out["disaggregation_decode_retraction_backup"] == "host_pool", (rule, on)
        assert isinstance(rule(view(on, enable_hisparse=True)), Refuse)
    # decode DCP: mori and ascend came in 0.5.22
    dcp = dict(disaggregation_mode="decode", dcp_size=2, disaggregation_transfer_backend="mori")
    assert isinstance(pd_transfer_settings_0_5_21(view(0.0, **dcp)), Refuse)
    assert pd_transfer_settings(view(1.0, **dcp)) is None


def test_the_draft_inherits_a_megamoe_runner_in_0_5_21():
    from launchplan.rules.speculative.normalize import (
        speculative_moe_runner_default,
        speculative_moe_runner_default_0_5_21,
    )

    mega = make_view(moe_runner_backend="flashinfer_megamoe")
    assert speculative_moe_runner_default_0_5_21(mega) == {
        "speculative_moe_runner_backend": "flashinfer_megamoe"}
    assert speculative_moe_runner_default(mega) == {
        "speculative_moe_runner_backend": "flashinfer_trtllm"}
    assert speculative_moe_runner_default_0_5_21(make_view(
        moe_runner_backend="triton", speculative_moe_runner_backend="auto")) is None


def test_a_decode_radix_cache_refuses_speculation_before_0_5_23():
    from launchplan.rules.disaggregation import pd_server_roles, pd_server_roles_0_5_22

    decode = dict(disaggregation_mode="decode", disaggregation_decode_enable_radix_cache=True)
    assert isinstance(pd_server_roles_0_5_22(make_view(**decode,
                                                       speculative_algorithm="EAGLE")), Refuse)
    assert pd_server_roles(make_view(**decode, speculative_algorithm="EAGLE")).fields[
        "disable_radix_cache"] is False
    for algorithm in (None, "DSPARK"):  # no draft KV to track, or DSPARK's own
        assert pd_server_roles_0_5_22(make_view(
            **decode, speculative_algorithm=algorithm)).fields["disable_radix_cache"] is False


def test_deepep_v2_prefill_budget_is_not_split_over_ranks_in_0_5_21():
    from launchplan.rules.deepep_v2 import deepep_v2_token_budget, deepep_v2_token_budget_0_5_21

    view = make_view("b200", moe_a2a_backend="deepep_v2", tp_size=8, chunked_prefill_size=8192,
                     env={"SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "1024"},
                     overlay={"cuda_graph_config": default_config(False)})
    assert deepep_v2_token_budget(view) is None  # 8192 over 8 ranks: 1024 each
    assert isinstance(deepep_v2_token_budget_0_5_21(view), Refuse)  # the whole 8192


def test_dsa_prefill_cp_in_0_5_21_pins_dense_tp_and_skips_the_fusion():
    from launchplan.planner import resolve
    from launchplan.rules.model_overrides.deepseek_v2 import deepseek_family_overrides_0_5_21
    from launchplan.rules.model_specific import flashinfer_allreduce_fusion_auto_enable_0_5_21
    from launchplan.rulesets import get_ruleset

    chosen = {s.name: s.func for s in get_ruleset("0.5.21").rules()}
    assert chosen["deepseek_family_overrides"] is deepseek_family_overrides_0_5_21
    assert chosen["flashinfer_allreduce_fusion_auto_enable"] is \
        flashinfer_allreduce_fusion_auto_enable_0_5_21

    model = "tests/parity/models/deepseek-v3.2-exp"
    argv = ["--tp-size", "8", "--enable-prefill-cp", "--cp-strategy", "interleave",
            "--attn-cp-size", "8"]
    old = resolve(argv, gpu="b200", model_path=model, compat="0.5.21")
    new = resolve(argv, gpu="b200", model_path=model, compat="0.5.22")
    assert old.value("moe_dense_tp_size") == 1 and new.value("moe_dense_tp_size") is None
    assert old.value("flashinfer_allreduce_fusion_backend") is None
    assert new.value("flashinfer_allreduce_fusion_backend") == "auto"


def test_a_scale_joiners_dp_lm_head_needs_attention_dp_groups_in_0_5_21():
    from launchplan.rules.parallel import dp_lm_head_validation, dp_lm_head_validation_0_5_21

    joiner = make_view(enable_dp_lm_head=True, ep_join_mode="scale", tp_size=1)
    assert dp_lm_head_validation(joiner) is None  # 0.5.22 on: a joiner is attention DP
    assert isinstance(dp_lm_head_validation_0_5_21(joiner), Refuse)
    grouped = make_view(enable_dp_lm_head=True, attn_dp_size=2, tp_size=2)
    assert dp_lm_head_validation_0_5_21(grouped) is None


V41 = dict(architectures=("DeepseekV4ForCausalLM",), arch0="DeepseekV4ForCausalLM",
           model_type="deepseek_v41")


def _v41_view(gpu="b200", prefill="breakable", **values):
    graph = default_config(True)
    graph["prefill"]["backend"] = prefill
    return make_view(gpu, model=fake_model(**V41), overlay={"cuda_graph_config": graph},
                     **values)


def test_dsv4_attention_kernel_is_picked_at_resolution_from_0_5_23_only():
    from launchplan.rules.model_overrides.deepseek_v4 import (
        deepseek_v4_defaults,
        deepseek_v4_defaults_0_5_22,
    )

    view = make_view("b200", model=fake_model(**V41), kv_cache_dtype="fp8_e4m3", tp_size=8,
                     attn_dp_size=8, device="cuda")
    assert deepseek_v4_defaults(view).fields["dsv4_attn_backend"] == "flashmla_mega"
    old = deepseek_v4_defaults_0_5_22(view).fields
    assert "dsv4_attn_backend" not in old and old["max_running_requests"] == 256
    trtllm = make_view("h100", model=fake_model(**V41), dsv4_attn_backend="trtllm",
                       device="cuda")
    assert isinstance(deepseek_v4_defaults_0_5_22(trtllm), Refuse)  # SM10x only, as before


def test_v41_prefill_graph_is_capped_at_16k_tokens_before_0_5_23():
    from launchplan.rules.model_overrides.deepseek_v4 import (
        deepseek_v41_features,
        deepseek_v41_features_0_5_21,
        deepseek_v41_features_0_5_22,
    )

    view = _v41_view()
    assert "cuda_graph_config" not in (deepseek_v41_features(view) or {})
    for rule in (deepseek_v41_features_0_5_22, deepseek_v41_features_0_5_21):
        assert rule(view)["cuda_graph_config"]["prefill"]["max_seq_len"] == 16384
    assert deepseek_v41_features_0_5_22(_v41_view(prefill="disabled")) is None
    # 0.5.22 exempts a breakable graph under interleave prefill CP; 0.5.21 does not
    cp = _v41_view(enable_prefill_cp=True, cp_strategy="interleave", tp_size=8)
    assert deepseek_v41_features_0_5_22(cp) is None
    assert deepseek_v41_features_0_5_21(cp)["cuda_graph_config"]["prefill"]["max_seq_len"] \
        == 16384


def test_v41_trtllm_and_swa_replay_limits_before_0_5_23():
    from launchplan.rules.model_overrides.deepseek_v4 import (
        deepseek_v41_features,
        deepseek_v41_features_0_5_21,
        deepseek_v41_features_0_5_22,
    )

    trtllm = _v41_view(prefill="disabled", dsv4_attn_backend="trtllm")
    assert isinstance(deepseek_v41_features_0_5_21(trtllm), Refuse)  # no trtllm on V4.1
    assert deepseek_v41_features_0_5_22(trtllm) is None
    breakable = _v41_view(dsv4_attn_backend="trtllm")
    assert isinstance(deepseek_v41_features_0_5_22(breakable), Refuse)  # disabled only
    assert not isinstance(deepseek_v41_features(breakable), Refuse)
    # encoder replay: 0.5.22 refuses any prefill graph and checks the budget itself
    replay = dict(enable_encoder_swa_bounded_replay=True, max_running_requests=64,
                  chunked_prefill_size=4096)
    assert isinstance(deepseek_v41_features_0_5_22(_v41_view(**replay)), Refuse)
    assert deepseek_v41_features_0_5_22(_v41_view(prefill="disabled", **replay)) is None
    small = {**replay, "chunked_prefill_size": 64}
    assert isinstance(deepseek_v41_features_0_5_22(_v41_view(prefill="disabled", **small)),
                      Refuse)
    # decoder replay is not turned on by default before 0.5.23
    assert deepseek_v41_features(_v41_view(prefill="disabled")) == {
        "enable_decoder_swa_bounded_replay": True}
    assert deepseek_v41_features_0_5_22(_v41_view(prefill="disabled")) is None


def test_dsv4_prefill_cp_on_rocm_has_no_limits_in_0_5_21():
    from launchplan.rules.model_overrides.deepseek_v4 import (
        deepseek_v4_context_parallel,
        deepseek_v4_context_parallel_0_5_21,
    )

    view = make_view("mi300x", model=fake_model(**V41), enable_prefill_cp=True,
                     cp_strategy="interleave", tp_size=8)
    assert isinstance(deepseek_v4_context_parallel(view), Refuse)  # V4.1 on ROCm
    assert deepseek_v4_context_parallel_0_5_21(view)["attn_cp_size"] == 8


def test_mimo_and_dsv4_cp_allreduce_fusion_before_0_5_23():
    from launchplan.planner import resolve
    from launchplan.rules.model_specific import (
        flashinfer_allreduce_fusion_auto_enable_0_5_21,
        flashinfer_allreduce_fusion_auto_enable_0_5_22,
    )
    from launchplan.rulesets import get_ruleset

    chosen = {s.name: s.func for s in get_ruleset("0.5.22").rules()}
    assert chosen["flashinfer_allreduce_fusion_auto_enable"] is \
        flashinfer_allreduce_fusion_auto_enable_0_5_22
    chosen = {s.name: s.func for s in get_ruleset("0.5.21").rules()}
    assert chosen["flashinfer_allreduce_fusion_auto_enable"] is \
        flashinfer_allreduce_fusion_auto_enable_0_5_21

    def fusion(model, argv, compat):
        result = resolve(argv, gpu="b200", model_path=f"tests/parity/models/{model}",
                         compat=compat)
        return result.value("flashinfer_allreduce_fusion_backend")

    assert fusion("mimo-v2-flash-synth", ["--tp-size", "4"], "0.5.23") == "cutedsl"
    assert fusion("mimo-v2-flash-synth", ["--tp-size", "4"], "0.5.22") is None
    cp = ["--tp-size", "8", "--enable-prefill-cp", "--cp-strategy", "interleave"]
    assert fusion("deepseek-v4-synth", cp, "0.5.22") == "auto"
    assert fusion("deepseek-v4-synth", cp, "0.5.21") is None


def test_model_overrides_absent_before_their_release():
    from launchplan.planner import resolve
    from launchplan.rulesets import get_ruleset

    def names(compat):
        return {s.name for s in get_ruleset(compat).rules()}

    for rule in ("beam_overrides", "muse_spark_overrides"):
        assert rule in names("0.5.23")
        assert rule not in names("0.5.22") | names("0.5.21")
    for rule in ("embedding_gemma2_overrides", "ernie45_vl_overrides"):
        assert rule in names("0.5.22") and rule not in names("0.5.21")

    def backend(compat):
        return resolve([], gpu="h100", model_path="tests/parity/models/beam-synth",
                       compat=compat).value("attention_backend")

    assert backend("0.5.23") == "trtllm_mha"
    assert backend("0.5.22") == "fa3"


def _resolve(model, gpu, compat, argv=()):
    from launchplan.planner import resolve

    return resolve(list(argv), gpu=gpu, model_path=f"tests/parity/models/{model}",
                   compat=compat)


def test_kimi_k3_reduces_by_all_reduce_from_0_5_22_only():
    from launchplan.rules.speculative.boundary import (
        boundary_reduction_default,
        boundary_reduction_default_0_5_21,
    )

    for arch in ("KimiK3ForConditionalGeneration", "Qwen4ExpForConditionalGeneration"):
        model = fake_model(config={"architectures": [arch]})
        view = make_view(model=model, boundary_reduction="auto")
        assert boundary_reduction_default(view)["boundary_reduction"] == "ar"
        assert boundary_reduction_default_0_5_21(view) == {
            "boundary_reduction": "rs+rsv", "speculative_boundary_reduction": "rs+rsv"}
    qwen3 = make_view(model=fake_model(config={"architectures": ["Qwen3ForCausalLM"]}),
                      boundary_reduction="auto")
    assert boundary_reduction_default_0_5_21(qwen3)["boundary_reduction"] == "ar"


def test_exaone_without_a_backend_is_refused_in_0_5_21():
    from launchplan.errors import Refusal
    from launchplan.rules.model_overrides.exaone import (
        exaone_backend_check_0_5_21,
        exaone_overrides_0_5_21,
    )

    model = fake_model(architectures=("Exaone4ForCausalLM",), arch0="Exaone4ForCausalLM",
                       model_type="exaone4", config={"sliding_window": 4096})
    assert exaone_overrides_0_5_21(make_view("h100", model=model)) == {
        "disable_hybrid_swa_memory": True}
    assert isinstance(exaone_backend_check_0_5_21(make_view("h100", model=model)), Refuse)
    assert exaone_backend_check_0_5_21(
        make_view("h100", model=model, attention_backend="fa3")) is None
    assert _resolve("exaone-4-synth", "h100", "0.5.22").value("attention_backend") == "fa3"
    try:
        _resolve("exaone-4-synth", "h100", "0.5.21")
    except Refusal as exc:
        assert exc.source == "exaone_backend_check"
    else:
        raise AssertionError("0.5.21 resolves EXAONE with no attention backend")
    given = _resolve("exaone-4-synth", "h100", "0.5.21", ["--attention-backend", "triton"])
    assert given.value("attention_backend") == "triton"


def test_inkling_defaults_to_fa4_on_hopper_from_0_5_22_only():
    from launchplan.rules.model_overrides.inkling import (
        inkling_overrides,
        inkling_overrides_0_5_21,
    )

    model = fake_model(architectures=("InklingForConditionalGeneration",),
                       arch0="InklingForConditionalGeneration")
    for gpu, old in (("h100", "triton"), ("b200", "fa4"), ("a100", "triton")):
        view = make_view(gpu, model=model)
        assert inkling_overrides_0_5_21(view)["attention_backend"] == old
    assert inkling_overrides(make_view("h100", model=model))["attention_backend"] == "fa4"


def test_mimo_v2_has_no_fa4_default_in_0_5_21():
    from launchplan.rules.model_overrides.mimo_v2 import (
        mimo_v2_overrides,
        mimo_v2_overrides_0_5_21,
    )

    model = fake_model(architectures=("MiMoV2FlashForCausalLM",), arch0="MiMoV2FlashForCausalLM",
                       config={"quantization_config": {"quant_method": "fp8"}},
                       quantization_config={"quant_method": "fp8"})
    view = make_view("b200", model=model, moe_a2a_backend="deepep")
    assert mimo_v2_overrides(view)["attention_backend"] == "fa4"
    assert "moe_runner_backend" not in mimo_v2_overrides(view)  # A2A picks its runner
    assert mimo_v2_overrides_0_5_21(view) == {"moe_runner_backend": "flashinfer_trtllm"}
    ngram = ["--tp-size", "8", "--speculative-algorithm", "NGRAM"]
    old = _resolve("mimo-v2-flash-synth", "b200", "0.5.21", ngram)
    assert (old.value("attention_backend"), old.value("page_size")) == ("flashinfer", 1)


def test_glm5_next_loses_its_default_breakable_graph_in_0_5_21():
    from launchplan.rulesets import get_ruleset

    def prefill(compat, argv=()):
        return _resolve("glm5-next-synth", "b200", compat, argv).value(
            "cuda_graph_config")["prefill"]["backend"]

    assert prefill("0.5.22") == "breakable"
    assert prefill("0.5.21") == "disabled"  # KDA to SGLang's GLM-5-Next config class
    assert prefill("0.5.21", ["--cuda-graph-backend-prefill", "breakable"]) == "breakable"
    eagle = ["--speculative-algorithm", "EAGLE", "--speculative-num-steps", "1",
             "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "2"]
    assert _resolve("glm5-next-synth", "b200", "0.5.22", eagle).value(
        "linear_attn_verify_backend") == "nv_cutedsl"
    assert "glm5_next_spec_backend_defaults" not in {
        s.name for s in get_ruleset("0.5.21").rules()}


def test_kv_sharding_before_0_5_23_refuses_speculation_hicache_and_dsa():
    from launchplan.rules.parallel import (
        kv_cache_sharding,
        kv_cache_sharding_0_5_22,
        kv_cache_sharding_recheck_0_5_22,
    )
    from launchplan.rulesets import get_ruleset

    base = dict(enable_kv_cache_sharding=True, disaggregation_mode="prefill", tp_size=8,
                attention_backend="fa3", page_size=64, chunked_prefill_size=8192,
                enable_prefill_cp=True, attn_cp_size=8, disaggregation_transfer_backend="nixl")
    overlay = {"cuda_graph_config": default_config(False)}
    gqa = fake_model(is_deepseek_dsa=False)
    python = {"SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND": "python"}  # 0.5.22 defaults to Rust
    plain = make_view("h100", model=gqa, overlay=overlay, env=python, **base)
    assert not isinstance(kv_cache_sharding(plain), Refuse)
    assert not isinstance(kv_cache_sharding_0_5_22(plain), Refuse)
    hicache = make_view("h100", model=gqa, overlay=overlay, enable_hierarchical_cache=True,
                        env=python, **base)
    assert not isinstance(kv_cache_sharding(hicache), Refuse)
    assert isinstance(kv_cache_sharding_0_5_22(hicache), Refuse)
    assert isinstance(kv_cache_sharding_recheck_0_5_22(hicache), Refuse)
    glm = fake_model(architectures=("GlmMoeDsaForCausalLM",), arch0="GlmMoeDsaForCausalLM",
                     is_mla=True, is_deepseek_dsa=True, num_nextn_predict_layers=1)
    dsa = dict(attention_backend="dsa", device="cuda", cp_strategy="interleave",
               dsa_prefill_backend="trtllm", dsa_decode_backend="trtllm",
               kv_cache_dtype="fp8_e4m3", disaggregation_transfer_backend="mooncake")
    spec = make_view("h100", model=glm, overlay=overlay, speculative_algorithm="EAGLE",
                     speculative_eagle_topk=1, env=python, **{**base, **dsa})
    assert not isinstance(kv_cache_sharding(spec), Refuse)
    assert isinstance(kv_cache_sharding_0_5_22(spec), Refuse)
    assert "kv_cache_sharding" not in {s.name for s in get_ruleset("0.5.21").rules()}


def test_flashinfer_a2a_and_megamoe_before_0_5_23():
    from launchplan.rules.mega_moe import (
        a2a_flashinfer_megamoe_checks,
        a2a_flashinfer_megamoe_checks_0_5_22,
    )
    from launchplan.rules.moe import a2a_flashinfer_checks, a2a_flashinfer_checks_0_5_22

    muse = fake_model(architectures=("MuseSparkForConditionalGeneration",),
                      arch0="MuseSparkForConditionalGeneration")
    sp = make_view(model=muse, moe_a2a_backend="flashinfer", tp_size=4, ep_size=4,
                   enable_layernorm_sp=True, moe_runner_backend="flashinfer_cutlass")
    assert a2a_flashinfer_checks(sp) is None
    assert isinstance(a2a_flashinfer_checks_0_5_22(sp), Refuse)
    groups = make_view(moe_a2a_backend="flashinfer", tp_size=4, attn_dp_size=4,
                       moe_runner_backend="flashinfer_cutlass")
    assert a2a_flashinfer_checks_0_5_22(groups) is None

    kimi = fake_model(architectures=("KimiK3ForConditionalGeneration",),
                      arch0="KimiK3ForConditionalGeneration", dtype="bfloat16",
                      quant_config={"routed_experts_quant_method": "mxfp4"})
    mega = dict(moe_a2a_backend="flashinfer_megamoe", tp_size=4, attn_dp_size=4)
    assert not isinstance(a2a_flashinfer_megamoe_checks(make_view(model=kimi, **mega)), Refuse)
    assert isinstance(a2a_flashinfer_megamoe_checks_0_5_22(make_view(model=kimi, **mega)),
                      Refuse)
    qwen = fake_model(architectures=("Qwen3MoeForCausalLM",), arch0="Qwen3MoeForCausalLM",
                      dtype="bfloat16", quant_config={})
    w4a16 = make_view(model=qwen, quantization="nvfp4_online", dtype="bfloat16",
                      env={"SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16": "1"}, **mega)
    assert not isinstance(a2a_flashinfer_megamoe_checks(w4a16), Refuse)
    assert isinstance(a2a_flashinfer_megamoe_checks_0_5_22(w4a16), Refuse)


def test_megamoe_budget_before_0_5_23_checks_encoders_and_caps_nothing():
    from launchplan.rules.mega_moe import megamoe_token_budget, megamoe_token_budget_0_5_22

    qwen = fake_model(architectures=("Qwen3MoeForCausalLM",), arch0="Qwen3MoeForCausalLM",
                      quant_config={})
    graph = default_config(True)
    graph["decode"]["max_bs"] = 16384
    base = dict(moe_a2a_backend="megamoe", chunked_prefill_size=4096, tp_size=8)
    capped = make_view("h100", model=qwen, overlay={"cuda_graph_config": graph},
                       max_running_requests=64, **base)
    assert megamoe_token_budget(capped) is None  # 64 requests bound the decode forward
    assert isinstance(megamoe_token_budget_0_5_22(capped), Refuse)  # 16384 > 8192
    encoder = make_view("h100", model=qwen, overlay={"cuda_graph_config": graph},
                        encoder_only=True, **base)
    assert megamoe_token_budget(encoder) is None
    assert isinstance(megamoe_token_budget_0_5_22(encoder), Refuse)


def test_a_sidecar_under_the_rust_server_is_refused_in_0_5_22_only():
    from launchplan.rules.deprecated_args import grpc_settings, grpc_settings_0_5_22

    rust = {"SGLANG_RUST_SERVER": "1"}
    view = make_view(sidecar="python -m side", grpc_port=30001, env=rust)
    assert not isinstance(grpc_settings(view), Refuse)
    assert isinstance(grpc_settings_0_5_22(view), Refuse)
    assert not isinstance(grpc_settings_0_5_22(make_view(sidecar="python -m side",
                                                         grpc_port=30001)), Refuse)


def test_watermark_in_preferred_sampling_params_before_watermarking():
    from launchplan.rules.late import other_validations, other_validations_0_5_21

    preferred = {"preferred_sampling_params": {"temperature": 0.5, "watermark": True}}
    assert isinstance(other_validations(make_view(**preferred)), Refuse)
    assert other_validations_0_5_21(make_view(**preferred)) is None  # no watermarking yet
    assert isinstance(other_validations_0_5_21(make_view(skip_tokenizer_init=True, **preferred)),
                      Refuse)  # the check's SamplingParams has no such argument


def test_pd_extra_slots_and_encoder_split_before_0_5_23():
    from launchplan.rules.disaggregation import pd_server_roles, pd_server_roles_0_5_22
    from launchplan.rules.encoder_disaggregation import (
        encoder_disaggregation_checks,
        encoder_disaggregation_checks_0_5_22,
    )

    # 2 running requests over 4 attention-DP ranks: 0.5.23 counts one per worker
    few = make_view(disaggregation_mode="decode", max_running_requests=2, attn_dp_size=4,
                    tp_size=4)
    assert pd_server_roles(few).fields["disaggregation_decode_extra_slots"] == 2
    assert pd_server_roles_0_5_22(few).fields["disaggregation_decode_extra_slots"] == 0
    m3 = fake_model(architectures=("MiniMaxM3SparseForConditionalGeneration",),
                    arch0="MiniMaxM3SparseForConditionalGeneration")
    encoder = make_view(model=m3, encoder_only=True)
    assert not isinstance(encoder_disaggregation_checks(encoder), Refuse)
    assert isinstance(encoder_disaggregation_checks_0_5_22(encoder), Refuse)


def test_kv_sharding_radix_tree_core():
    from launchplan.rules.parallel import kv_cache_sharding, kv_cache_sharding_0_5_22

    base = dict(enable_kv_cache_sharding=True, disaggregation_mode="prefill", tp_size=8,
                attention_backend="fa3", page_size=64, chunked_prefill_size=8192,
                enable_prefill_cp=True, attn_cp_size=8, disaggregation_transfer_backend="nixl")
    overlay = {"cuda_graph_config": default_config(False)}
    gqa = fake_model(is_deepseek_dsa=False)
    plain = make_view("h100", model=gqa, overlay=overlay, **base)
    assert not isinstance(kv_cache_sharding(plain), Refuse)  # 0.5.23 picks the Python core
    assert isinstance(kv_cache_sharding_0_5_22(plain), Refuse)  # 0.5.22 keeps Rust
    python = make_view("h100", model=gqa, overlay=overlay,
                       env={"SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND": "python"}, **base)
    assert not isinstance(kv_cache_sharding_0_5_22(python), Refuse)
    no_radix = make_view("h100", model=gqa, overlay=overlay, disable_radix_cache=True, **base)
    assert not isinstance(kv_cache_sharding_0_5_22(no_radix), Refuse)
    rust = make_view("h100", model=gqa, overlay=overlay,
                     env={"SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND": "rust"}, **base)
    assert isinstance(kv_cache_sharding(rust), Refuse)  # an explicit choice is kept


def test_prefill_cp_on_rocm_is_refused_by_0_5_21_alone():
    from launchplan.rules.bootstrap import prefill_cp_platform_check_0_5_21

    assert isinstance(prefill_cp_platform_check_0_5_21(
        make_view("mi300x", enable_prefill_cp=True)), Refuse)
    assert prefill_cp_platform_check_0_5_21(make_view("h100", enable_prefill_cp=True)) is None
    cp = ["--tp-size", "8", "--enable-prefill-cp", "--cp-strategy", "interleave"]
    from launchplan.errors import Refusal
    try:
        _resolve("deepseek-v4-synth", "mi300x", "0.5.21", cp)
    except Refusal as exc:
        assert exc.source == "prefill_cp_platform_check"
    else:
        raise AssertionError("0.5.21 plans prefill CP on ROCm")


def test_dflash_with_attention_dp_on_cuda_came_in_0_5_23():
    from launchplan.rules.speculative.dflash import dflash_defaults, dflash_defaults_0_5_22

    view = make_view("h100", speculative_algorithm="DFLASH", speculative_draft_model_path="d",
                     attn_dp_size=2, tp_size=2, enable_dp_lm_head=True, device="cuda")
    assert not isinstance(dflash_defaults(view), Refuse)
    assert isinstance(dflash_defaults_0_5_22(view), Refuse)
    plain = make_view("h100", speculative_algorithm="DFLASH", speculative_draft_model_path="d",
                      device="cuda")
    assert not isinstance(dflash_defaults_0_5_22(plain), Refuse)


def test_decode_cp_with_prefill_cp_is_refused_from_0_5_22_only():
    """Recorded: release/dcp-prefill-cp/* (0.5.21 plans both; a missing strategy is still
    refused there, by the context-parallelism check)."""
    from launchplan.rules.parallel import (
        decode_context_parallel_checks,
        decode_context_parallel_checks_0_5_21,
    )

    both = make_view(dcp_size=2, enable_prefill_cp=True, cp_strategy="zigzag")
    assert isinstance(decode_context_parallel_checks(both), Refuse)
    assert decode_context_parallel_checks_0_5_21(both) is None
    for bad in (dict(dcp_size=0), dict(dcp_comm_backend="a2a"),
                dict(dcp_size=2, dcp_comm_backend="ag_rs", dcp_replicate_q_proj=True)):
        assert isinstance(decode_context_parallel_checks_0_5_21(make_view(**bad)), Refuse), bad
    from launchplan.errors import Refusal
    from launchplan.planner import resolve

    try:
        resolve(["--tp-size", "8", "--dcp-size", "4", "--enable-prefill-cp"], gpu="h200",
                model_path="deepseek-v3", compat="0.5.21")
    except Refusal as exc:
        assert exc.source == "context_parallelism_checks"
    else:
        raise AssertionError("0.5.21 plans prefill CP without a strategy")


# --- 0.5.21: one group's --enable-dp-attention, read until its data-parallelism defaults ---------

def test_0_5_21_keeps_one_groups_switch_until_its_data_parallelism_defaults():
    from launchplan.rules.bootstrap import deprecated_dp_attention, deprecated_dp_attention_0_5_21
    from launchplan.rules.parallel import (
        attn_dp_enabled,
        data_parallelism_defaults,
        data_parallelism_defaults_0_5_21,
        dp_attention_switch_0_5_21,
    )

    one = make_view(enable_dp_attention=True, tp_size=8)
    assert deprecated_dp_attention_0_5_21(one) is None  # left on, as given
    assert deprecated_dp_attention(one).fields["enable_dp_attention"] is False  # 0.5.22 on
    assert dp_attention_switch_0_5_21(one) and not attn_dp_enabled(one)
    assert data_parallelism_defaults_0_5_21(one) == {"enable_dp_attention": False,
                                                     "enable_dp_lm_head": False}
    assert data_parallelism_defaults(one) == {"enable_dp_lm_head": False}
    groups = make_view(tp_size=8, overlay={"attn_dp_size": 8, "dp_size": 1})
    assert dp_attention_switch_0_5_21(groups)
    assert data_parallelism_defaults_0_5_21(groups) is None
    # a scale joiner keeps the switch (and is attention DP in 0.5.21 only with it)
    assert data_parallelism_defaults_0_5_21(make_view(enable_dp_attention=True,
                                                      ep_join_mode="scale")) is None
    assert not dp_attention_switch_0_5_21(make_view(ep_join_mode="scale"))


def test_0_5_21_graph_reserve_pads_for_one_groups_switch():
    from launchplan.rules.memory import (
        cuda_graph_sizing,
        graph_reserve_mib,
        mem_fraction_default,
        mem_fraction_default_0_5_21,
    )
    from launchplan.rules.parallel import dp_attention_switch_0_5_21

    def sized(max_bs):
        view = make_view("h100", overlay={**GRAPH, "chunked_prefill_size": 8192})
        graph = cuda_graph_sizing(view)["cuda_graph_config"]
        return {"chunked_prefill_size": 8192,
                "cuda_graph_config": with_phase(graph, "decode", max_bs=max_bs)}

    for max_bs, padding in ((256, 256 * 3), (512, 512 * 4.5)):  # x 1.5 more above 300
        on = make_view("h100", overlay=sized(max_bs), enable_dp_attention=True)
        assert graph_reserve_mib(on, dp_attention_switch_0_5_21) == \
            graph_reserve_mib(on) + padding
    on = make_view("h100", overlay=sized(256), enable_dp_attention=True, tp_size=8)
    assert mem_fraction_default_0_5_21(on)["mem_fraction_static"] < \
        mem_fraction_default(on)["mem_fraction_static"]
    off = make_view("h100", overlay=sized(256), tp_size=8)
    assert mem_fraction_default_0_5_21(off) == mem_fraction_default(off)


def test_0_5_21_model_and_pd_checks_see_one_groups_switch():
    from launchplan.rules.disaggregation import (
        pd_role_switch_checks_0_5_21,
        pd_role_switch_checks_0_5_22,
    )
    from launchplan.rules.model_overrides.deepseek_v2 import (
        glm_dsa_aiter_allreduce_fusion,
        glm_dsa_aiter_allreduce_fusion_0_5_21,
    )
    from launchplan.rules.model_overrides.deepseek_v4 import deepseek_v41_features_0_5_21
    from launchplan.rules.model_overrides.iquest_q1 import (
        iquest_q1_overrides,
        iquest_q1_overrides_0_5_21,
    )
    from launchplan.rules.model_overrides.minicpm import (
        minicpm_sala_overrides,
        minicpm_sala_overrides_0_5_21,
    )

    switch = dict(enable_dp_attention=True)
    role = dict(enable_pd_role_switch=True, disaggregation_mode="prefill")
    assert isinstance(pd_role_switch_checks_0_5_21(make_view(**role, **switch)), Refuse)
    assert pd_role_switch_checks_0_5_22(make_view(**role, **switch)) is None
    joiner = make_view(**role, ep_join_mode="scale")  # attention DP only from 0.5.22 on
    assert pd_role_switch_checks_0_5_21(joiner) is None
    assert isinstance(pd_role_switch_checks_0_5_22(joiner), Refuse)
    for rule, rule_0_5_21, arch in (
            (minicpm_sala_overrides, minicpm_sala_overrides_0_5_21, "MiniCPMSALAForCausalLM"),
            (iquest_q1_overrides, iquest_q1_overrides_0_5_21, "IQuestQ1ForCausalLM")):
        model = fake_model(architectures=(arch,), arch0=arch, model_type="llama", config={})
        assert isinstance(rule_0_5_21(make_view("h100", model=model, **switch)), Refuse)
        assert not isinstance(rule(make_view("h100", model=model, **switch)), Refuse)
        assert not isinstance(rule_0_5_21(make_view("h100", model=model)), Refuse)
    glm = fake_model(architectures=("GlmMoeDsaForCausalLM",), arch0="GlmMoeDsaForCausalLM")
    assert glm_dsa_aiter_allreduce_fusion_0_5_21(make_view("mi300x", model=glm, **switch)) \
        is None
    assert glm_dsa_aiter_allreduce_fusion(make_view("mi300x", model=glm, **switch)) == \
        glm_dsa_aiter_allreduce_fusion_0_5_21(make_view("mi300x", model=glm))
    replay = _v41_view(prefill="disabled", enable_decoder_swa_bounded_replay=True, tp_size=8)
    assert deepseek_v41_features_0_5_21(replay) is None
    replay = _v41_view(prefill="disabled", enable_decoder_swa_bounded_replay=True, tp_size=8,
                       **switch)
    assert "DP attention" in deepseek_v41_features_0_5_21(replay).message


def test_0_5_21_graph_and_fusion_defaults_see_one_groups_switch():
    from launchplan.rules.cuda_graph import cuda_graph_compatibility_0_5_21
    from launchplan.rules.model_specific import (
        flashinfer_allreduce_fusion_auto_enable_0_5_21,
        flashinfer_allreduce_fusion_auto_enable_0_5_22,
    )

    model = fake_model(**MINIMAX_VL)
    out = cuda_graph_compatibility_0_5_21(make_view("h100", model=model, overlay=GRAPH,
                                                    enable_dp_attention=True))
    assert _prefill_backend(out) == "disabled" and "attention DP" in out.note
    qwen = fake_model(architectures=("Qwen3MoeForCausalLM",), arch0="Qwen3MoeForCausalLM",
                      model_type="qwen3_moe")
    on = make_view("h100", model=qwen, tp_size=8, enable_dp_attention=True)
    assert flashinfer_allreduce_fusion_auto_enable_0_5_21(on) is None
    assert flashinfer_allreduce_fusion_auto_enable_0_5_22(on).fields == {
        "flashinfer_allreduce_fusion_backend": "auto"}


def test_0_5_21_context_parallel_layouts_turn_the_switch_on():
    from launchplan.rules.model_overrides.deepseek_v4 import deepseek_v4_context_parallel_0_5_21

    view = make_view("b200", model=fake_model(**V41), enable_prefill_cp=True,
                     cp_strategy="interleave", tp_size=8)
    assert deepseek_v4_context_parallel_0_5_21(view)["enable_dp_attention"] is True
    dsa = _resolve("deepseek-v3.2-exp", "b200", "0.5.21", [
        "--tp-size", "8", "--enable-prefill-cp", "--cp-strategy", "interleave"])
    turned_on = [d.source for d in dsa.declarations
                 if d.fields.get("enable_dp_attention") is True]
    assert turned_on == ["deepseek_family_overrides"]
    assert dsa.value("enable_dp_attention") is False  # one DP group: cleared again


def test_one_groups_switch_moves_0_5_21_plans_alone():
    from launchplan.planner import resolve

    def plan(compat, *extra):
        result = resolve(["--tp-size", "8", *extra], gpu="h100", model_path="qwen3-30b-a3b",
                         compat=compat)
        return (result.value("mem_fraction_static"),
                result.value("flashinfer_allreduce_fusion_backend"),
                result.value("enable_dp_attention"))

    for compat in ("0.5.23", "0.5.22", "default"):
        assert plan(compat, "--enable-dp-attention") == plan(compat)
    on, off = plan("0.5.21", "--enable-dp-attention"), plan("0.5.21")
    assert on[0] < off[0] and on[1] is None and off[1] == "auto"
    assert on[2] is False and off[2] is False  # reported cleared, as 0.5.21 does


def test_kda_verify_keeps_flashinfer_under_pp_spec_in_0_5_21():
    from launchplan.planner import resolve

    def verify(compat, env):
        result = resolve(["--mamba-ssm-dtype", "bfloat16", "--linear-attn-decode-backend",
                          "flashinfer"], gpu="b200",
                         model_path="tests/parity/models/kimi-linear-synth", compat=compat,
                         env=env)
        return result.value("linear_attn_verify_backend")

    pp_spec = {"SGLANG_ENABLE_PP_SPEC": "1"}
    assert verify("0.5.22", pp_spec) == verify("0.5.23", pp_spec) == "triton"
    assert verify("0.5.21", pp_spec) is None  # the fallback came in 0.5.22
    assert verify("0.5.22", None) is None


def test_glm5_next_breakable_prefill_policy_is_0_5_21_only():
    from launchplan.planner import resolve

    def plan(compat, gpu, *extra):
        result = resolve(["--tp-size", "8", *extra], gpu=gpu,
                         model_path="tests/parity/models/glm5-next-synth", compat=compat)
        prefill = result.value("cuda_graph_config")["prefill"]
        return result.value("chunked_prefill_size"), prefill["max_bs"], prefill["bs"]

    breakable = ("--cuda-graph-backend-prefill", "breakable")
    chunk, max_bs, sizes = plan("0.5.21", "h200", *breakable)
    assert (chunk, max_bs, sizes[-1]) == (4096, 4096, 4096)
    assert plan("0.5.22", "h200", *breakable)[:2] == (8192, 2048)
    # the chunk default is CUDA-only; a given max_bs is kept; DeepEP rounds up to 8s
    assert plan("0.5.21", "mi300x", *breakable)[:2] == (16384, 4096)
    assert plan("0.5.21", "h200", *breakable, "--cuda-graph-max-bs-prefill", "512")[:2] == (
        4096, 512)
    deepep = plan("0.5.21", "b200", *breakable, "--moe-a2a-backend", "deepep", "--ep-size", "8")
    assert deepep[2][0] == 8 and all(s % 8 == 0 for s in deepep[2]) and deepep[1] == 4096
    # no opt-in: the breakable prefill graph stays off, nothing moves
    assert plan("0.5.21", "h200")[:2] == plan("0.5.22", "h200")[:2]


def test_dp_spec_prefill_coordination_wants_single_layer_eagle_and_dspark_from_0_5_22():

    env = {"SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION": "1"}
    eagle = ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path",
             "llama-3.1-8b-eagle"]
    dspark = ["--speculative-algorithm", "DSPARK", "--speculative-draft-model-path",
              "llama-3.1-8b"]

    def refused(compat, argv, environment=env):
        return _refused_by("speculative_dp_coordination_check", argv, "h100", "llama-3.1-8b",
                           compat, environment)

    for compat in ("0.5.23", "0.5.22", "0.5.21"):
        assert refused(compat, [])  # the variable without speculation
        assert refused(compat, ["--speculative-algorithm", "NGRAM"])
        assert refused(compat, [*eagle, "--enable-multi-layer-eagle"])
        assert not refused(compat, eagle)
        assert not refused(compat, [], environment=None)
    assert not refused("0.5.22", dspark) and not refused("0.5.23", dspark)
    assert refused("0.5.21", dspark)


def test_tilelang_dsa_takes_an_fp8_cache_on_cuda_from_0_5_22():
    from launchplan.errors import Refusal
    from launchplan.planner import resolve

    both = ["--tp-size", "8", "--dsa-prefill-backend", "tilelang", "--dsa-decode-backend",
            "tilelang", "--kv-cache-dtype", "fp8_e4m3"]

    def outcome(compat, gpu, *extra):
        try:
            result = resolve([*both, *extra], gpu=gpu,
                             model_path="tests/parity/models/deepseek-v3.2-exp", compat=compat)
        except Refusal as exc:
            assert exc.source == "dsa_split_backend_resolution"
            return "refused"
        return result.value("dsa_decode_backend")

    assert outcome("0.5.22", "h200") == outcome("0.5.23", "h200") == "tilelang"
    assert outcome("0.5.21", "h200") == "refused"
    assert outcome("0.5.22", "a100") == outcome("0.5.21", "a100") == "refused"  # SM89+
    assert outcome("0.5.21", "mi300x") == "tilelang"  # ROCm reads FP8 in every release


def test_flashinfer_a2a_budget_is_cutedsl_only_and_over_ep_ranks_in_0_5_21():

    a2a = ["--tp-size", "8", "--enable-dp-attention", "--dp-size", "8", "--ep-size", "8",
           "--moe-a2a-backend", "flashinfer", "--quantization", "modelopt_fp4"]
    cutedsl = [*a2a, "--moe-runner-backend", "flashinfer_cutedsl"]

    def refused(compat, argv, env=None):
        return _refused_by("flashinfer_a2a_token_budget", argv, "b200", "qwen3-30b-a3b",
                           compat, env)

    # 16384 prefill tokens against 1024 x 8 EP ranks; 4096 per rank covers them
    assert refused("0.5.21", cutedsl)
    assert not refused("0.5.21", cutedsl,
                       {"SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "4096"})
    assert not refused("0.5.21", [*cutedsl, "--max-prefill-tokens", "4096"])
    # chunked prefill off: refused from 0.5.22 on, for any runner
    no_chunk = [*a2a, "--moe-runner-backend", "flashinfer_cutlass", "--chunked-prefill-size",
                "-1"]
    assert not refused("0.5.21", no_chunk) and refused("0.5.22", no_chunk)


def test_unified_memory_pool_in_0_5_21_is_dspark_only_and_keeps_the_linker():

    def refused(compat, *extra):
        return _refused_by("unified_memory_pool", ["--enable-unified-memory", *extra], "h100",
                           "llama-3.1-8b", compat)

    linker = ("--enable-unified-cache-external-linker",)
    assert refused("0.5.22", *linker) and not refused("0.5.21", *linker)
    host_pool_radix = ("--disaggregation-mode", "decode", "--disaggregation-decode-retraction-"
                       "backup", "host_pool", "--disaggregation-decode-enable-radix-cache")
    assert refused("0.5.21", *host_pool_radix) and not refused("0.5.22", *host_pool_radix)
    assert refused("0.5.21", "--speculative-algorithm", "NGRAM")
    assert not refused("0.5.21")


def test_deepep_v2_direct_mode_runs_across_nodes_in_0_5_21():

    env = {"SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "16384"}
    nodes = ["--tp-size", "16", "--nnodes", "2", "--node-rank", "0", "--moe-a2a-backend",
             "deepep_v2"]

    def refused(compat, *extra):
        return _refused_by("a2a_deepep_v2_adjustments", [*nodes, *extra], "b200",
                           "deepseek-v3", compat, env)

    assert refused("0.5.22") and refused("0.5.23")  # direct, the default, is NVLink-only
    assert not refused("0.5.21")
    assert not refused("0.5.22", "--deepep-v2-mode", "hybrid")


def test_gemma4_takes_fa4_from_0_5_22():
    from launchplan.errors import Refusal
    from launchplan.planner import resolve

    def backend(compat, *extra):
        try:
            result = resolve(list(extra), gpu="b200", compat=compat,
                             model_path="tests/parity/models/gemma-4-31b-it-nvfp4")
        except Refusal as exc:
            assert exc.source == "gemma4_backend_check"
            return "refused"
        return result.value("attention_backend")

    assert backend("0.5.22", "--attention-backend", "fa4") == "fa4"
    assert backend("0.5.21", "--attention-backend", "fa4") == "refused"
    assert backend("0.5.21") == backend("0.5.22") == "trtllm_mha"


def test_input_scattered_attention_reset_grew_kimi_k3_then_inkling():
    from launchplan.planner import resolve

    def scattered(model, compat):
        result = resolve(["--tp-size", "8", "--enable-attn-tp-input-scattered"], gpu="b200",
                         model_path=f"tests/parity/models/{model}", compat=compat)
        return result.value("enable_attn_tp_input_scattered")

    assert [scattered("kimi-k3-synth", c) for c in ("0.5.21", "0.5.22", "0.5.23")] == [
        True, False, False]
    assert [scattered("inkling-synth", c) for c in ("0.5.21", "0.5.22", "0.5.23")] == [
        True, True, False]


def _refused_by(rule, argv, gpu, model, compat, env=None):
    """Whether launchplan refuses the launch, asserting the refusal comes from ``rule``."""
    from launchplan.errors import Refusal
    from launchplan.planner import resolve

    try:
        resolve(argv, gpu=gpu, model_path=model, compat=compat, env=env)
    except Refusal as exc:
        assert exc.source == rule, exc.source
        return True
    return False


def test_this_rounds_variants_are_the_ones_their_releases_run():
    from launchplan.rules.cuda_graph import (
        glm5_next_breakable_chunk_default_0_5_21,
        glm5_next_breakable_prefill_sizes_0_5_21,
    )
    from launchplan.rules.late import linear_attn_backend_checks_0_5_21, unified_memory_pool_0_5_21
    from launchplan.rules.model_overrides.deepseek_v2 import dsa_split_backend_resolution_0_5_21
    from launchplan.rules.model_overrides.gemma4 import gemma4_backend_check_0_5_21
    from launchplan.rules.moe import (
        a2a_deepep_v2_adjustments_0_5_21,
        flashinfer_a2a_token_budget_0_5_21,
    )
    from launchplan.rules.parallel import boundary_parallelism_0_5_21, boundary_parallelism_0_5_22
    from launchplan.rules.speculative import speculative_dp_coordination_check_0_5_21
    from launchplan.rulesets import RULESETS

    def functions(name):
        return {spec.func for spec in RULESETS[name].rules()}

    only_0_5_21 = {glm5_next_breakable_chunk_default_0_5_21,
                   glm5_next_breakable_prefill_sizes_0_5_21, linear_attn_backend_checks_0_5_21,
                   unified_memory_pool_0_5_21, dsa_split_backend_resolution_0_5_21,
                   gemma4_backend_check_0_5_21, a2a_deepep_v2_adjustments_0_5_21,
                   flashinfer_a2a_token_budget_0_5_21, boundary_parallelism_0_5_21,
                   speculative_dp_coordination_check_0_5_21}
    assert only_0_5_21 <= functions("0.5.21")
    assert not only_0_5_21 & (functions("0.5.22") | functions("0.5.23") | functions("default"))
    assert boundary_parallelism_0_5_22 in functions("0.5.22") - functions("0.5.21")


def test_unified_memory_audited_backends_of_0_5_22():
    from launchplan.rules.late import unified_memory_pool, unified_memory_pool_0_5_22

    def view(model, **values):
        return make_view("b200", model=model, overlay=dict(GRAPH), enable_unified_memory=True,
                         **values)

    swa = fake_model(is_hybrid_swa=True)
    eagle3 = dict(speculative_algorithm="EAGLE3", speculative_eagle_topk=1)
    no_graph = dict(attention_backend="trtllm_mha", disable_cuda_graph=True)
    for values in ({**eagle3, **no_graph},  # an MHA target verifying on trtllm_mha
                   {**eagle3, "attention_backend": "triton",  # a fused draft on trtllm_mha
                    "speculative_draft_attention_backend": "trtllm_mha"},
                   {"speculative_algorithm": "DFLASH", **no_graph},
                   {"speculative_algorithm": "DSPARK", "attention_backend": "fa4"}):
        assert not isinstance(unified_memory_pool(view(swa, **values)), Refuse), values
        assert isinstance(unified_memory_pool_0_5_22(view(swa, **values)), Refuse), values
    # tokenspeed_mla is a verify kernel of its own in 0.5.22 (an alias from 0.5.23 on)
    mla_swa = fake_model(**{**MLA, "is_hybrid_swa": True})
    tokenspeed = dict(speculative_algorithm="DSPARK", attention_backend="tokenspeed_mla")
    assert unified_memory_pool_0_5_22(view(mla_swa, **tokenspeed)) is None
    assert isinstance(unified_memory_pool(view(mla_swa, **tokenspeed)), Refuse)


def test_page_major_layout_of_0_5_22_and_0_5_21():
    from launchplan.rules.late import page_major_kv_layout, page_major_kv_layout_0_5_22

    unified = {"enable_page_major_kv_layout": True}
    mimo = fake_model(has_asymmetric_kv=True)  # K rows 192 wide, V rows 128
    fa3 = dict(enable_unified_memory=True, attention_backend="fa3")
    assert page_major_kv_layout(make_view("h200", model=mimo, **fa3)) == unified
    assert isinstance(page_major_kv_layout_0_5_22(make_view("h200", model=mimo, **fa3)), Refuse)
    mla = fake_model(**MLA)
    tokenspeed = dict(enable_unified_memory=True, attention_backend="tokenspeed_mla")
    assert page_major_kv_layout_0_5_22(make_view(model=mla, **tokenspeed)) == unified
    assert isinstance(page_major_kv_layout(make_view(model=mla, **tokenspeed)), Refuse)
    gdn_prefill = dict(enable_unified_memory=True, attention_backend="fa3",
                       linear_attn_prefill_backend="flashinfer")
    assert page_major_kv_layout(make_view("h200", **gdn_prefill)) == unified
    assert isinstance(page_major_kv_layout_0_5_22(make_view("h200", **gdn_prefill)), Refuse)
    assert page_major_kv_layout_0_5_22(make_view("h200", **fa3)) == unified


def test_nvfp4_online_megamoe_runner_came_in_0_5_23():
    from launchplan.rules.moe import (
        moe_runner_quant_constraints,
        moe_runner_quant_constraints_0_5_22,
    )

    w4a16 = {"SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16": "1"}
    line = dict(quantization="nvfp4_online", moe_a2a_backend="flashinfer_megamoe",
                moe_runner_backend="auto")
    assert moe_runner_quant_constraints(make_view(env=w4a16, **line)).fields == {
        "moe_runner_backend": "flashinfer_megamoe"}
    assert moe_runner_quant_constraints_0_5_22(make_view(env=w4a16, **line)).fields == {
        "moe_runner_backend": "flashinfer_trtllm"}
    chosen = {**line, "moe_runner_backend": "flashinfer_megamoe"}
    assert moe_runner_quant_constraints(make_view(env=w4a16, **chosen)) is None
    assert isinstance(moe_runner_quant_constraints_0_5_22(make_view(env=w4a16, **chosen)), Refuse)


def test_rust_server_attention_dp_broadcast_came_in_0_5_23():
    from launchplan.rules.parallel import attention_dp_adjustments, attention_dp_adjustments_0_5_22

    rust = {"SGLANG_RUST_SERVER": "1"}
    line = dict(tp_size=8, attn_dp_size=8, chunked_prefill_size=8192)
    broadcast = "enable_dp_attention_local_control_broadcast"
    assert attention_dp_adjustments(make_view(env=rust, overlay=dict(GRAPH), **line)).fields[
        broadcast] is True
    older = attention_dp_adjustments_0_5_22(make_view(env=rust, overlay=dict(GRAPH), **line))
    assert broadcast not in older.fields
    assert older.fields["chunked_prefill_size"] == 1024  # the rest as in 0.5.23


def test_glm_dsa_and_mimo_v2_were_registered_for_deepep_v2_in_0_5_22():
    from launchplan.rules.deepep_v2 import deepep_v2_model_check, deepep_v2_model_check_0_5_21

    v2 = dict(moe_a2a_backend="deepep_v2")
    for arch in ("GlmMoeDsaForCausalLM", "MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM"):
        model = fake_model(arch0=arch, architectures=(arch,))
        assert deepep_v2_model_check(make_view(model=model, **v2)) is None
        assert isinstance(deepep_v2_model_check_0_5_21(make_view(model=model, **v2)), Refuse)
    dsv3 = fake_model(arch0="DeepseekV3ForCausalLM", architectures=("DeepseekV3ForCausalLM",))
    assert deepep_v2_model_check_0_5_21(make_view(model=dsv3, **v2)) is None


def test_0_5_21_counts_plain_data_parallel_replicas_in_the_cp_groups():
    from launchplan.rules.parallel import (
        context_parallelism_checks,
        context_parallelism_checks_0_5_21,
    )

    plain = dict(tp_size=8, dp_size=4, attn_dp_size=1, attn_cp_size=4)
    assert context_parallelism_checks(make_view(**plain)) is None
    refused = context_parallelism_checks_0_5_21(make_view(**plain))
    assert isinstance(refused, Refuse) and "(16)" in refused.message
    # 0.5.21's attention DP, read as attn_dp_size with dp_size 1: both releases refuse
    groups = dict(tp_size=8, dp_size=1, attn_dp_size=4, attn_cp_size=4)
    assert isinstance(context_parallelism_checks(make_view(**groups)), Refuse)
    assert isinstance(context_parallelism_checks_0_5_21(make_view(**groups)), Refuse)
    fits = dict(tp_size=8, dp_size=2, attn_dp_size=1, attn_cp_size=4)
    assert context_parallelism_checks_0_5_21(make_view(**fits)) is None
