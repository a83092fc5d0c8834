"""EPLB, the expert dispatch pick, the expert-distribution recorder and elastic EP.

The wild parity suite records SGLang refusing ``--enable-eplb`` on one EP rank (wild/94,
wild/165, wild/224) and ``--elastic-ep-join-mode`` without a backend (wild/47); wild3 a join
rank offset without the scale join mode, before LayerNorm SP refuses (wild3/aimed/elastic/...),
and the runtime scale-up's requirements.
"""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules import expert_parallel as ep
from launchplan.rules.graph_config import default_config, with_phase
from tests.rules.conftest import fake_model, make_view


def fields(out):
    return out.fields if isinstance(out, Declare) else out


def test_eplb_needs_more_than_one_ep_rank():
    assert isinstance(ep.eplb_dispatch(make_view(enable_eplb=True)), Refuse)
    assert isinstance(ep.eplb_dispatch(make_view(enable_eplb=True, tp_size=8)), Refuse)
    assert not isinstance(ep.eplb_dispatch(make_view(enable_eplb=True, ep_join_mode="scale")),
                          Refuse)


def test_eplb_records_and_picks_replicas_rank_invariantly_without_a2a():
    out = fields(ep.eplb_dispatch(make_view(enable_eplb=True, tp_size=8, ep_size=8)))
    assert out == {"expert_distribution_recorder_mode": "stat",
                   "ep_dispatch_algorithm": "dynamic"}
    out = fields(ep.eplb_dispatch(make_view(enable_eplb=True, tp_size=8, ep_size=8,
                                            moe_a2a_backend="deepep")))
    assert out["ep_dispatch_algorithm"] == "static"
    out = fields(ep.eplb_dispatch(make_view(init_expert_location="x.json", ep_size=8)))
    assert out == {"ep_dispatch_algorithm": "dynamic"}


def test_per_rank_dispatch_needs_an_a2a_backend():
    for algorithm in ("static", "lp"):
        assert isinstance(ep.eplb_dispatch(make_view(ep_size=8, ep_dispatch_algorithm=algorithm)),
                          Refuse)
        assert ep.eplb_dispatch(make_view(ep_size=8, ep_dispatch_algorithm=algorithm,
                                          moe_a2a_backend="deepep")) is None
    assert ep.eplb_dispatch(make_view(ep_dispatch_algorithm="dynamic")) is None


def test_expert_distribution_metrics():
    assert ep.expert_distribution_metrics(make_view()) == {
        "expert_distribution_recorder_buffer_size": 1000}
    assert ep.expert_distribution_metrics(make_view(eplb_rebalance_num_iterations=None,
                                                    expert_balancedness_report_mode="both")) == {
        "expert_distribution_recorder_mode": "stat",
        "expert_distribution_recorder_buffer_size": 1000}
    assert ep.expert_distribution_metrics(make_view(eplb_rebalance_num_iterations=None)) is None
    assert ep.expert_distribution_metrics(make_view(
        expert_distribution_recorder_buffer_size=5)) is None


def test_elastic_ep_checks():
    assert isinstance(ep.elastic_ep_checks(make_view(ep_join_mode="recover")), Refuse)
    assert ep.elastic_ep_checks(make_view(ep_join_mode="recover",
                                          elastic_ep_backend="nixl")) is None
    out = ep.elastic_ep_checks(make_view(elastic_ep_backend="mooncake", enable_eplb=True))
    assert fields(out) == {"eplb_algorithm": "elasticity_aware", "mooncake_ib_device": None}
    assert isinstance(ep.elastic_ep_checks(make_view(elastic_ep_backend="mooncake",
                                                     enable_eplb=True, eplb_algorithm="x")),
                      Refuse)
    assert isinstance(ep.elastic_ep_checks(make_view(elastic_ep_backend="nixl", pp_size=2)),
                      Refuse)


def test_mooncake_elastic_ep_declares_its_devices():
    """SGLang's Mooncake backend passes ``mooncake_ib_device`` through its device check, which
    hands an unset value back unset and refuses a list naming no device; other backends leave
    the field alone."""
    out = ep.elastic_ep_checks(make_view(elastic_ep_backend="mooncake"))
    assert fields(out) == {"mooncake_ib_device": None}
    out = ep.elastic_ep_checks(make_view(elastic_ep_backend="mooncake",
                                         mooncake_ib_device="mlx5_0,mlx5_1"))
    assert fields(out) == {"mooncake_ib_device": "mlx5_0,mlx5_1"}
    for empty in ("", " ", "\t"):
        out = ep.elastic_ep_checks(make_view(elastic_ep_backend="mooncake",
                                             mooncake_ib_device=empty))
        assert isinstance(out, Refuse) and "--mooncake-ib-device" in out.message
    assert ep.elastic_ep_checks(make_view(elastic_ep_backend="nixl",
                                          mooncake_ib_device="")) is None
    # SGLang checks one PP stage before the devices
    out = ep.elastic_ep_checks(make_view(elastic_ep_backend="mooncake", pp_size=2,
                                         mooncake_ib_device=""))
    assert isinstance(out, Refuse) and "--pp-size" in out.message


def test_elastic_ep_join_settings_fit_the_join_mode():
    def refused(**values):
        out = ep.elastic_ep_checks(make_view(**values))
        return out.message if isinstance(out, Refuse) else None

    assert "join-mode scale" in refused(ep_join_rank_offset=-1)  # not the sign first
    assert "join-mode scale" in refused(ep_join_rank_offset=8, ep_join_mode="recover",
                                        elastic_ep_backend="mooncake")
    assert "node-rank" in refused(ep_join_mode="scale", elastic_ep_backend="mooncake",
                                  ep_join_rank_offset=8)
    assert "above 0" in refused(ep_join_mode="scale", elastic_ep_backend="mooncake",
                                node_rank=1)
    assert refused(ep_join_mode="scale", elastic_ep_backend="mooncake", node_rank=1,
                   ep_join_rank_offset=8) is None
    assert "--elastic-ep-backend" in refused(max_ep_size=8)
    assert "above 0" in refused(max_ep_size=0, elastic_ep_backend="nixl")
    # an initial EP size needs room to scale: a max EP size above TP
    assert "scale-up" in refused(elastic_ep_initial_size=4, elastic_ep_backend="mooncake",
                                 max_ep_size=4, tp_size=4)
    assert refused(elastic_ep_initial_size=4, elastic_ep_backend="mooncake", max_ep_size=8,
                   tp_size=4) is None


SCALE_UP = dict(tp_size=8, attn_dp_size=8, enable_dp_lm_head=True, ep_size=8,
                moe_a2a_backend="nixl", elastic_ep_backend="mooncake", max_ep_size=16,
                load_balance_method="round_robin", device="cuda")


def scale_up(prefill="disabled", decode="full", **values):
    graphs = with_phase(with_phase(default_config(True), "prefill", backend=prefill),
                        "decode", backend=decode)
    return ep.elastic_ep_scale_up(make_view(overlay={"cuda_graph_config": graphs},
                                            **{**SCALE_UP, **values}))


def test_elastic_ep_scale_up_primary_and_joiner():
    out = scale_up()
    assert fields(out) == {"enable_dp_attention_local_control_broadcast": True,
                           "elastic_ep_initial_size": 8}
    joiner = scale_up(ep_join_mode="scale", node_rank=1, ep_join_rank_offset=8,
                      elastic_ep_initial_size=8)
    assert fields(joiner) == {"enable_dp_attention_local_control_broadcast": True}
    one_rank = dict(tp_size=1, attn_dp_size=1, ep_size=1, ep_join_mode="scale", node_rank=1,
                    ep_join_rank_offset=8, elastic_ep_initial_size=8)
    assert "one-rank" in scale_up(**one_rank).message
    assert not isinstance(scale_up(**one_rank, moe_dense_tp_size=1), Refuse)
    assert scale_up(max_ep_size=8) is None  # no room above TP: no scale-up
    assert scale_up(max_ep_size=None) is None


def test_elastic_ep_scale_up_refusals_in_order():
    def why(**values):
        out = scale_up(**values)
        assert isinstance(out, Refuse), values
        return out.message

    assert "attention replicas of 4" in why(attn_dp_size=2, max_ep_size=10)
    assert "--moe-dense-tp-size 1" in why(attn_dp_size=2)
    assert "--tokenizer-worker-num" in why(tokenizer_worker_num=2)
    assert "exceeds" in why(ep_join_mode="scale", ep_join_rank_offset=8,
                            elastic_ep_initial_size=16, max_ep_size=32)
    assert "past --max-ep-size" in why(ep_join_mode="scale", ep_join_rank_offset=16,
                                       elastic_ep_initial_size=8)
    assert "needs --elastic-ep-initial-size" in why(ep_join_mode="scale",
                                                    ep_join_rank_offset=8)
    assert "must equal" in why(elastic_ep_initial_size=4)
    assert "round_robin" in why(load_balance_method="total_requests")
    assert "mooncake" in why(elastic_ep_backend="nixl")
    assert "full or disabled" in why(decode="breakable")
    assert "prefill CUDA graphs" in why(prefill="breakable")
    assert "speculative" in why(speculative_algorithm="EAGLE")
    assert scale_up(decode="disabled", speculative_algorithm="EAGLE") is not None
    assert not isinstance(scale_up(decode="disabled", speculative_algorithm="EAGLE"), Refuse)
    assert "--enable-dp-lm-head" in why(enable_dp_lm_head=False)
    assert "nixl" in why(moe_a2a_backend="deepep")
    assert "ep_size" in why(ep_size=4)


def test_elastic_ep_scale_up_before_0_5_23_has_no_replica_layout():
    def older(**values):
        graphs = with_phase(default_config(True), "prefill", backend="disabled")
        return ep.elastic_ep_scale_up_0_5_22(make_view(overlay={"cuda_graph_config": graphs},
                                                       **{**SCALE_UP, **values}))

    assert fields(older()) == {"enable_dp_attention_local_control_broadcast": True,
                               "elastic_ep_initial_size": 8}
    # attention DP 2 of TP 8: 0.5.23 asks for a dense TP of 1 first, older releases refuse the
    # attention DP that does not span TP, after the DP LM head and EP checks
    out = older(attn_dp_size=2)
    assert isinstance(out, Refuse) and "as wide as tp_size" in out.message
    assert "--moe-dense-tp-size" in scale_up(attn_dp_size=2).message
    assert "attention replicas" in scale_up(attn_dp_size=2, max_ep_size=10).message
    assert "as wide as tp_size" in older(attn_dp_size=2, max_ep_size=10).message


def test_shared_experts_tp_over_an_attention_cp_width_of_zero():
    # nothing checks attn_cp_size before this division: SGLang's fails, and so does the rule
    for model in (fake_model(architectures=("KimiK3ForConditionalGeneration",),
                             arch0="KimiK3ForConditionalGeneration"), fake_model()):
        out = ep.shared_experts_tp_checks(make_view(model=model, tp_size=8, attn_cp_size=0,
                                                    shared_experts_tp_size=4))
        assert isinstance(out, Refuse) and "ZeroDivisionError" in out.message
