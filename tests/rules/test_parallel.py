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
