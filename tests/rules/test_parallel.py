"""Parallel-layout rules: attention DP (P27), context parallelism (P28), KV sharding (P29),
the PP overlap rule (P31)."""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules import parallel as p
from launchplan.rules.graph_config import default_config, prefill_sizes, with_phase
from tests.rules.conftest import MLA, fake_model, make_view


def fields(out):
    return out.fields if isinstance(out, Declare) else out


def graph(max_bs=16384):
    config = default_config(True)
    return {"cuda_graph_config": with_phase(config, "prefill", max_bs=max_bs,
                                            bs=prefill_sizes(max_bs))}


def test_data_parallelism_checks():
    assert isinstance(p.data_parallelism_checks(make_view(attn_dp_size=0)), Refuse)
    assert isinstance(p.data_parallelism_checks(make_view(attn_dp_size=2, dp_size=2)), Refuse)
    assert p.data_parallelism_checks(make_view(attn_dp_size=2)) is None


def test_data_parallelism_defaults():
    assert p.data_parallelism_defaults(make_view(enable_dp_lm_head=True)) == {
        "enable_dp_lm_head": False}
    assert p.data_parallelism_defaults(make_view(enable_dp_lm_head=True, attn_dp_size=2)) is None


def test_load_balance_method_default():
    """Recorded: wild3/aimed/lb/* (a PD prefill server, an explicit method)."""
    assert p.load_balance_method_default(make_view()) == {"load_balance_method": "round_robin"}
    assert p.load_balance_method_default(make_view(disaggregation_mode="prefill")) == {
        "load_balance_method": "follow_bootstrap_room"}
    assert p.load_balance_method_default(make_view(disaggregation_mode="decode")) == {
        "load_balance_method": "round_robin"}
    assert p.load_balance_method_default(make_view(load_balance_method="total_tokens")) is None


def test_attention_dp_divides_chunk_and_reclamps_the_prefill_graph():
    out = p.attention_dp_adjustments(make_view(overlay=graph(), tp_size=8, attn_dp_size=4,
                                               chunked_prefill_size=16384))
    got = fields(out)
    assert got["chunked_prefill_size"] == 4096
    assert abs(got["schedule_conservativeness"] - 0.3) < 1e-12
    prefill = got["cuda_graph_config"]["prefill"]
    assert prefill["max_bs"] == 4096 and prefill["bs"] == prefill_sizes(4096)


def test_attention_dp_keeps_locked_and_disabled_prefill_graphs():
    out = p.attention_dp_adjustments(make_view(overlay=graph(), tp_size=8, attn_dp_size=4,
                                               chunked_prefill_size=16384,
                                               cuda_graph_max_bs_prefill=16384))
    assert "cuda_graph_config" not in fields(out)
    out = p.attention_dp_adjustments(make_view(overlay=graph(), tp_size=8, attn_dp_size=4,
                                               chunked_prefill_size=16384,
                                               cuda_graph_bs_prefill=[8, 16]))
    prefill = fields(out)["cuda_graph_config"]["prefill"]
    assert prefill["max_bs"] == 4096 and prefill["bs"] == prefill_sizes(16384)
    disabled = {"cuda_graph_config": with_phase(graph()["cuda_graph_config"], "prefill",
                                                backend="disabled")}
    out = p.attention_dp_adjustments(make_view(overlay=disabled, tp_size=8, attn_dp_size=4,
                                               chunked_prefill_size=16384))
    assert "cuda_graph_config" not in fields(out)


def test_attention_dp_off_and_indivisible():
    assert p.attention_dp_adjustments(make_view(overlay=graph(), chunked_prefill_size=8192)) \
        is None
    assert isinstance(p.attention_dp_adjustments(make_view(
        overlay=graph(), tp_size=8, attn_dp_size=3, chunked_prefill_size=8192)), Refuse)


def test_tp_lm_head_all_to_all_default_and_validation():
    assert p.tp_lm_head_all_to_all_default(make_view(
        disaggregation_mode="decode", attn_dp_size=4, tp_size=4)) == {
        "enable_tp_lm_head_all_to_all": True}
    assert p.tp_lm_head_all_to_all_default(make_view()) == {
        "enable_tp_lm_head_all_to_all": False}
    assert p.tp_lm_head_all_to_all_default(make_view(enable_tp_lm_head_all_to_all=False)) \
        is None
    assert isinstance(p.dp_lm_head_validation(make_view(enable_dp_lm_head=True)), Refuse)
    assert p.dp_lm_head_validation(make_view(enable_dp_lm_head=True, attn_dp_size=2)) is None


def test_boundary_parallelism():
    nemotron = fake_model(model_type="nemotron_h")
    assert isinstance(p.boundary_parallelism(make_view(model=nemotron, attn_cp_size=2)), Refuse)
    out = p.boundary_parallelism(make_view(model=nemotron, enable_attn_tp_input_scattered=True))
    assert fields(out) == {"enable_attn_tp_input_scattered": False}
    assert p.boundary_parallelism(make_view(model=fake_model(model_type="llama"),
                                            enable_attn_tp_input_scattered=True)) is None


def test_context_parallelism_checks():
    assert isinstance(p.context_parallelism_checks(make_view(enable_prefill_cp=True)), Refuse)
    assert isinstance(p.context_parallelism_checks(make_view(
        "mi300x", enable_prefill_cp=True, cp_strategy="zigzag")), Refuse)
    assert isinstance(p.context_parallelism_checks(make_view(tp_size=6, attn_cp_size=4)), Refuse)
    assert p.context_parallelism_checks(make_view(enable_prefill_cp=True, cp_strategy="zigzag",
                                                  tp_size=4, attn_cp_size=4)) is None


def test_prefill_cp_graph_default_restores_breakable():
    off = {"cuda_graph_config": with_phase(default_config(True), "prefill", backend="disabled")}
    cp = dict(enable_prefill_cp=True, cp_strategy="zigzag", tp_size=4, attn_cp_size=4,
              attention_backend="trtllm_mha")
    out = p.prefill_cp_cuda_graph_default(make_view(overlay=off, **cp))
    assert fields(out)["cuda_graph_config"]["prefill"]["backend"] == "breakable"
    out = p.prefill_cp_cuda_graph_default(make_view(overlay=off, disaggregation_mode="decode",
                                                    **cp))
    assert fields(out) == {}
    out = p.prefill_cp_cuda_graph_default(make_view(overlay=off, **{**cp, "attention_backend":
                                                                    "fa3"}))
    assert fields(out) == {} and out.note
    assert p.prefill_cp_cuda_graph_default(make_view(overlay=off)) is None


def test_kv_cache_sharding():
    base = dict(enable_kv_cache_sharding=True, disaggregation_mode="prefill",
                attention_backend="trtllm_mla", tp_size=8, page_size=64,
                chunked_prefill_size=8100)
    model = fake_model(**MLA)
    automatic = {**graph(), "mem_fraction_static": 0.8}  # decided, not given
    out = p.kv_cache_sharding(make_view(model=model, overlay=automatic, **base))
    got = fields(out)
    assert got["chunked_prefill_size"] == 8128
    assert got["cuda_graph_config"]["prefill"]["backend"] == "disabled"
    assert got["mem_fraction_static"] < 0.8
    assert isinstance(p.kv_cache_sharding(make_view(model=model, overlay=graph(),
                                                    **{**base, "page_size": 1})), Refuse)
    assert isinstance(p.kv_cache_sharding(make_view(model=model, overlay=graph(),
                                                    **{**base, "disaggregation_mode": "null"})),
                      Refuse)
    assert p.kv_cache_sharding(make_view(overlay=graph())) is None
    assert p.kv_cache_sharding_recheck(make_view(overlay=graph())) is None


def test_pipeline_parallel_overlap_disable():
    assert fields(p.pipeline_parallel_overlap_disable(make_view(pp_size=2))) == {
        "disable_overlap_schedule": True}
    assert p.pipeline_parallel_overlap_disable(make_view()) is None


def test_decode_context_parallel_checks():
    assert p.decode_context_parallel_checks(make_view(dcp_size=1)) is None
    assert p.decode_context_parallel_checks(make_view(dcp_size=2)) is None
    for bad in (dict(dcp_size=0), dict(dcp_size=-1), dict(dcp_size=2, enable_prefill_cp=True)):
        assert isinstance(p.decode_context_parallel_checks(make_view(**bad)), Refuse), bad


def test_decode_context_parallel_exchange_settings_need_decode_cp():
    """Recorded: wild/38 (fi_a2a without DCP) and wild/20, wild/191 (--dcp-replicate-q-proj
    without DCP) are refused by SGLang's decode-CP hook before anything else."""
    check = p.decode_context_parallel_checks
    for bad in (dict(dcp_comm_backend="fi_a2a"), dict(dcp_comm_backend="a2a"),
                dict(dcp_replicate_q_proj=True),
                dict(dcp_size=2, dcp_comm_backend="ag_rs", dcp_replicate_q_proj=True)):
        assert isinstance(check(make_view(**bad)), Refuse), bad
    assert isinstance(check(make_view("mi300x", dcp_size=2, dcp_comm_backend="fi_a2a")), Refuse)
    assert check(make_view(dcp_size=2, dcp_comm_backend="a2a", dcp_replicate_q_proj=True)) is None
    assert check(make_view(dcp_comm_backend="ag_rs")) is None


def test_dcp_comm_backend_default():
    """ag_rs without decode CP; with it fi_a2a on SM10x when the node's TP width is a multiple
    of dcp_size (always on a GB200 fabric), a2a otherwise (oracle probes, 0.5.23)."""
    default = p.dcp_comm_backend_default

    def pick(gpu, **values):
        return fields(default(make_view(gpu, **values)))["dcp_comm_backend"]

    assert pick("h100") == "ag_rs"
    assert pick("h100", tp_size=8, dcp_size=2) == "a2a"
    assert pick("mi300x", tp_size=8, dcp_size=2) == "a2a"
    assert pick("b200", tp_size=8, dcp_size=2) == "fi_a2a"
    assert pick("b200", tp_size=8, dcp_size=3) == "a2a"
    assert pick("gb200", tp_size=4, dcp_size=3) == "fi_a2a"
    assert default(make_view(dcp_size=2, dcp_comm_backend="ag_rs")) is None
    assert pick("b300", tp_size=8, dcp_size=2) == "fi_a2a"
    # across two nodes a B200 node holds 4 ranks: a DCP group of 8 leaves its NVLink domain,
    # while a GB200's device name vouches for the MNNVL fabric spanning the nodes
    assert pick("b200", tp_size=8, nnodes=2, dcp_size=8) == "a2a"
    assert pick("gb200", tp_size=8, nnodes=2, dcp_size=8) == "fi_a2a"
    assert pick("h20", tp_size=8, dcp_size=2) == "a2a"  # not SM10x
    assert pick("rtx-pro-6000", tp_size=8, dcp_size=2) == "a2a"
    assert [t for t in ("b200", "gb200", "h20", "gb10") if p.mnnvl_fabric_device(
        make_view(t).target)] == ["gb200"]


QWEN4_EXP = dict(architectures=("Qwen4ExpForConditionalGeneration",),
                 arch0="Qwen4ExpForConditionalGeneration",
                 text_config={"linear_num_key_heads": 16, "linear_num_value_heads": 32})
GLM5_NEXT = dict(architectures=("Glm5NextForConditionalGeneration",),
                 arch0="Glm5NextForConditionalGeneration", text_config={})


def _sharing(model=QWEN4_EXP, variant=p.cp_tp_group_sharing, gpu="h100", **values):
    cp = dict(enable_prefill_cp=True, tp_size=4, attn_cp_size=4,
              cp_strategy="zigzag" if model is QWEN4_EXP else "interleave")
    return variant(make_view(gpu, model=fake_model(**model), overlay=graph(),
                             **{**cp, **values}))


def test_cp_tp_group_sharing_declares_and_drops_qwen4_exps_prefill_graph():
    got = fields(_sharing())
    assert got["enable_cp_tp_group_sharing"] is True
    assert got["cuda_graph_config"]["prefill"]["backend"] == "disabled"
    got = fields(_sharing(GLM5_NEXT))  # GLM-5 Next keeps its graph in 0.5.23 ...
    assert got == {"enable_cp_tp_group_sharing": True}
    got = fields(_sharing(GLM5_NEXT, p.cp_tp_group_sharing_0_5_22))  # ... not in 0.5.22
    assert got["cuda_graph_config"]["prefill"]["backend"] == "disabled"
    assert _sharing(QWEN4_EXP, p.cp_tp_group_sharing_0_5_22) is None  # not known there
    assert _sharing(enable_prefill_cp=False) is None
    assert _sharing(attn_cp_size=1) is None
    assert p.cp_tp_group_sharing(make_view(enable_prefill_cp=True, tp_size=4,
                                           attn_cp_size=4, cp_strategy="zigzag")) is None
    assert _sharing(gpu="mi300x") is None  # ROCm refuses prefill CP for them first


def test_cp_tp_group_sharing_refusals():
    for values in (dict(attn_cp_size=2), dict(cp_strategy="interleave"), dict(ep_size=4),
                   dict(moe_a2a_backend="deepep"), dict(enable_mixed_chunk=True),
                   dict(dcp_size=2), dict(speculative_algorithm="NGRAM"),
                   dict(disaggregation_mode="decode"), dict(pp_size=2)):
        assert isinstance(_sharing(**values), Refuse), values
    assert not isinstance(_sharing(disaggregation_mode="prefill"), Refuse)
    assert isinstance(_sharing(disaggregation_mode="prefill",
                               env={"SGLANG_DISAGG_STAGING_BUFFER": "1"}), Refuse)
    # GLM-5 Next: native MTP or DFLASH; under PD only a DFLASH prefill over mooncake
    assert not isinstance(_sharing(GLM5_NEXT, speculative_algorithm="EAGLE"), Refuse)
    assert not isinstance(_sharing(GLM5_NEXT, speculative_algorithm="DFLASH"), Refuse)
    assert isinstance(_sharing(GLM5_NEXT, p.cp_tp_group_sharing_0_5_22,
                               speculative_algorithm="DFLASH"), Refuse)
    assert isinstance(_sharing(GLM5_NEXT, speculative_algorithm="EAGLE",
                               speculative_eagle_topk=2), Refuse)
    assert isinstance(_sharing(GLM5_NEXT, disaggregation_mode="prefill"), Refuse)
    assert not isinstance(_sharing(GLM5_NEXT, disaggregation_mode="prefill",
                                   speculative_algorithm="DFLASH",
                                   disaggregation_transfer_backend="mooncake"), Refuse)
    assert isinstance(_sharing(GLM5_NEXT, p.cp_tp_group_sharing_0_5_22,
                               disaggregation_mode="prefill"), Refuse)


def test_cp_tp_group_sharing_needs_tp_to_divide_the_linear_heads():
    odd = {**QWEN4_EXP, "text_config": {"linear_num_key_heads": 6,
                                        "linear_num_value_heads": 12}}
    assert isinstance(_sharing(odd), Refuse)
    # GLM-5 Next's KDA heads: linear_attn_config, linear_num_heads, or the class default 64
    assert isinstance(_sharing({**GLM5_NEXT, "text_config": {"linear_num_heads": 6}}), Refuse)
    assert isinstance(_sharing({**GLM5_NEXT, "text_config": {
        "linear_attn_config": {"num_heads": 6}}}), Refuse)
    assert not isinstance(_sharing(GLM5_NEXT, tp_size=8, attn_cp_size=8), Refuse)
    assert isinstance(_sharing(GLM5_NEXT, tp_size=128, attn_cp_size=128), Refuse)


DSA_MODEL = dict(architectures=("GlmMoeDsaForCausalLM",), arch0="GlmMoeDsaForCausalLM",
                 is_mla=True, is_deepseek_dsa=True)
DSA_SHARD = dict(enable_kv_cache_sharding=True, disaggregation_mode="prefill", tp_size=8,
                 page_size=64, chunked_prefill_size=8192, attention_backend="dsa",
                 device="cuda", enable_prefill_cp=True, attn_cp_size=8,
                 cp_strategy="interleave", dsa_prefill_backend="trtllm",
                 dsa_decode_backend="trtllm", kv_cache_dtype="fp8_e4m3",
                 disaggregation_transfer_backend="mooncake")


def _dsa_shard(model=DSA_MODEL, **values):
    return p.kv_cache_sharding(make_view(model=fake_model(**model), overlay=graph(),
                                         **{**DSA_SHARD, **values}))


def test_dsa_kv_sharding_needs_interleave_cp_trtllm_fp8_page_64_and_mooncake():
    assert not isinstance(_dsa_shard(), Refuse)
    assert not isinstance(_dsa_shard(enable_hierarchical_cache=True), Refuse)
    for values in (dict(enable_prefill_cp=False), dict(cp_strategy="zigzag"),
                   dict(pp_size=2), dict(dsa_prefill_backend="flashmla_sparse"),
                   dict(kv_cache_dtype="bfloat16"), dict(page_size=128),
                   dict(disaggregation_transfer_backend="nixl"),
                   dict(enable_dsa_cache_layer_split=True),
                   dict(attention_backend="fa3"),  # a DSA model shards only on dsa
                   dict(enable_hierarchical_cache=True, hicache_io_backend="direct"),
                   dict(enable_hierarchical_cache=True, hicache_mem_layout="page_first_direct"),
                   dict(enable_hierarchical_cache=True, hicache_storage_backend="file")):
        assert isinstance(_dsa_shard(**values), Refuse), values
    pooled = {**DSA_MODEL, "config": {"index_kpool": 4}}
    assert isinstance(_dsa_shard(pooled), Refuse)
    assert isinstance(_dsa_shard({**DSA_MODEL, "config": {"index_kpool_compress": True}}),
                      Refuse)


def test_kv_sharding_refuses_layouts_it_cannot_stripe():
    gqa = dict(enable_kv_cache_sharding=True, disaggregation_mode="prefill", tp_size=2,
               page_size=64, chunked_prefill_size=8192, attention_backend="fa3",
               enable_prefill_cp=True, attn_cp_size=2, disaggregation_transfer_backend="nixl")

    def shard(model=None, env=None, **values):
        return p.kv_cache_sharding(make_view("h100", model=model or fake_model(), env=env,
                                             overlay=graph(), **{**gqa, **values}))

    assert not isinstance(shard(), Refuse)
    assert not isinstance(shard(enable_dynamic_chunking=True), Refuse)  # PP 1: no sizer
    assert isinstance(shard(enable_dynamic_chunking=True, pp_size=2), Refuse)
    assert isinstance(shard(env={"SGLANG_DISAGG_STAGING_BUFFER": "1"}), Refuse)
    assert isinstance(shard(fake_model(is_encoder_decoder=True)), Refuse)
    assert isinstance(shard(fake_model(attention_chunk_size=8192)), Refuse)
    assert isinstance(shard(enable_hierarchical_cache=True, hicache_storage_backend="file"),
                      Refuse)
    assert not isinstance(shard(enable_hierarchical_cache=True), Refuse)


def test_dwdp_spreads_attention_dp_and_ep_over_the_group_without_graphs():
    got = fields(p.dwdp_layout(make_view(tp_size=4, dwdp_size=4, attn_dp_size=2,
                                         moe_a2a_backend="deepep")))
    assert got == {"attn_dp_size": 4, "dp_size": 1,
                   "enable_dp_attention_local_control_broadcast": True,
                   "enable_dp_lm_head": True, "moe_dense_tp_size": 1, "ep_size": 4,
                   "moe_dp_size": 1, "moe_a2a_backend": "none", "disable_cuda_graph": True}
    assert p.dwdp_layout(make_view(tp_size=4, dwdp_size=4,
                                   disaggregation_mode="prefill")) is not None
    assert p.dwdp_layout(make_view(tp_size=4)) is None
    for values in (dict(dwdp_size=2), dict(disaggregation_mode="decode"),
                   dict(enable_eplb=True), dict(speculative_algorithm="NGRAM"),
                   dict(pp_size=2), dict(enable_two_batch_overlap=True)):
        assert isinstance(p.dwdp_layout(make_view(**{"tp_size": 4, "dwdp_size": 4,
                                                     **values})), Refuse), values
