"""EPLB, the expert dispatch pick, the expert-distribution recorder and elastic EP.

The wild parity suite records SGLang refusing ``--enable-eplb`` on one EP rank (wild/94,
wild/165, wild/224) and ``--elastic-ep-join-mode`` without a backend (wild/47).
"""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules import expert_parallel as ep
from tests.rules.conftest import make_view


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
                                          elastic_ep_backend="mooncake")) is None
    out = ep.elastic_ep_checks(make_view(elastic_ep_backend="mooncake", enable_eplb=True))
    assert fields(out) == {"eplb_algorithm": "elasticity_aware"}
    assert isinstance(ep.elastic_ep_checks(make_view(elastic_ep_backend="mooncake",
                                                     enable_eplb=True, eplb_algorithm="x")),
                      Refuse)
    assert isinstance(ep.elastic_ep_checks(make_view(elastic_ep_backend="nixl", pp_size=2)),
                      Refuse)
