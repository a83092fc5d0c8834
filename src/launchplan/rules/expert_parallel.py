"""Expert-parallel load balancing: EPLB, the expert dispatch pick, the expert-distribution
recorder and elastic EP (SGLang's ``handle_eplb_and_dispatch``,
``handle_expert_distribution_metrics`` and ``handle_elastic_ep``, right after the A2A hooks).

EPLB moves redundant expert replicas between EP ranks from recorded routing statistics, so
it needs more than one EP rank and a recorder; which replica a token goes to must agree across
ranks when no all-to-all backend routes each token to one rank.
"""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View

ELASTIC_EPLB = ("elasticity_aware", "elasticity_aware_hierarchical")


@rule(
    phase=Phase.MOE,
    reads=("enable_eplb", "expert_distribution_recorder_mode", "init_expert_location",
           "ep_dispatch_algorithm", "moe_a2a_backend", "ep_join_mode", "ep_size"),
    writes=("expert_distribution_recorder_mode", "ep_dispatch_algorithm"),
    sglang="handle_eplb_and_dispatch",
    triggers=("enable_eplb", "init_expert_location", "ep_dispatch_algorithm"),
)
def eplb_dispatch(v: View) -> Declare | Refuse | None:
    """EPLB records routing statistics and picks replicas the same way on every rank.

    When: ``--enable-eplb``, an ``--init-expert-location`` other than trivial, or an explicit
        ``--ep-dispatch-algorithm``.
    Effect: with EPLB and no recorder mode, declares ``expert_distribution_recorder_mode``
        stat; with EPLB or a non-trivial expert location and no dispatch algorithm, declares
        ``ep_dispatch_algorithm`` dynamic without an A2A backend, static with one; refuses
        static or lp without an A2A backend, and EPLB on a single EP rank (outside an elastic
        EP scale-up join).
    Why: without an all-to-all every EP rank runs the MoE over the same tokens and sums the
        partial outputs, so each must pick the same replica (the row-index pick); EPLB has
        nothing to rebalance on one rank (``handle_eplb_and_dispatch``).
    Assumes: nothing.
    """
    out: dict[str, str] = {}
    if v.enable_eplb and v.expert_distribution_recorder_mode is None:
        out["expert_distribution_recorder_mode"] = "stat"
    no_a2a = v.moe_a2a_backend == "none"
    algorithm = v.ep_dispatch_algorithm
    if (v.enable_eplb or v.init_expert_location != "trivial") and algorithm is None:
        algorithm = out["ep_dispatch_algorithm"] = "dynamic" if no_a2a else "static"
    if no_a2a and algorithm in ("static", "lp"):
        return Refuse(f"--ep-dispatch-algorithm {algorithm} picks a different replica on each "
                      "rank, which needs an A2A backend routing each token to one rank; use "
                      "dynamic with --moe-a2a-backend none")
    if v.enable_eplb and v.ep_join_mode != "scale" and v.ep_size <= 1:
        return Refuse("--enable-eplb needs expert parallelism: --ep-size above 1 (or an A2A "
                      f"backend that sets it); ep_size is {v.ep_size}")
    if not out:
        return None
    return Declare(out, "EPLB: " + ", ".join(f"{k} {val}" for k, val in out.items()))


@rule(
    phase=Phase.MOE,
    reads=("expert_balancedness_report_mode", "expert_distribution_recorder_mode",
           "expert_distribution_recorder_buffer_size", "eplb_rebalance_num_iterations"),
    writes=("expert_distribution_recorder_mode", "expert_distribution_recorder_buffer_size"),
    sglang="handle_expert_distribution_metrics",
)
def expert_distribution_metrics(v: View) -> dict | None:
    """The expert-distribution recorder's mode and buffer, when not given.

    When: whenever its promises hold.
    Effect: with an expert-balancedness report and no recorder mode, declares
        ``expert_distribution_recorder_mode`` stat; without a buffer size, declares
        ``expert_distribution_recorder_buffer_size`` as ``--eplb-rebalance-num-iterations``
        (1000 by default), or 1000 when that is unset and a recorder mode is.
    Why: a report needs statistics, and the buffer holds one EPLB rebalancing window of them
        (``handle_expert_distribution_metrics``).
    Assumes: nothing.
    """
    out: dict[str, object] = {}
    mode = v.expert_distribution_recorder_mode
    if v.expert_balancedness_report_mode != "off" and mode is None:
        mode = out["expert_distribution_recorder_mode"] = "stat"
    if v.expert_distribution_recorder_buffer_size is None:
        if v.eplb_rebalance_num_iterations is not None:
            out["expert_distribution_recorder_buffer_size"] = v.eplb_rebalance_num_iterations
        elif mode is not None:
            out["expert_distribution_recorder_buffer_size"] = 1000
    return out or None


@rule(
    phase=Phase.MOE,
    reads=("elastic_ep_backend", "enable_eplb", "eplb_algorithm", "pp_size", "ep_join_mode"),
    writes=("eplb_algorithm",),
    sglang="handle_elastic_ep (backend and join mode)",
    triggers=("elastic_ep_backend", "ep_join_mode"),
)
def elastic_ep_checks(v: View) -> Declare | Refuse | None:
    """Elastic EP: an elasticity-aware EPLB, one pipeline stage, and a backend to join with.

    When: ``--elastic-ep-backend`` or ``--elastic-ep-join-mode`` is given.
    Effect: with a backend and EPLB, an auto ``eplb_algorithm`` becomes elasticity_aware and
        another non-elastic one is refused; a backend with ``--pp-size`` above 1 is refused;
        a join mode without a backend is refused.
    Why: rebalancing must know that ranks come and go, and a rank joins through the elastic
        backend (``handle_elastic_ep``).
    Assumes: the scale-up join's own requirements (node rank, rank offset, attention DP, DP
        LM head, graph backends, timeouts) are not modelled; a line reaching them is planned
        as if they held.
    """
    out: dict[str, str] = {}
    if v.elastic_ep_backend is not None:
        if v.enable_eplb:
            algorithm = v.eplb_algorithm
            if algorithm == "auto":
                algorithm = out["eplb_algorithm"] = "elasticity_aware"
            if algorithm not in ELASTIC_EPLB:
                return Refuse("elastic EP needs --eplb-algorithm auto, elasticity_aware or "
                              f"elasticity_aware_hierarchical; got {algorithm}")
        if v.pp_size != 1:
            return Refuse(f"elastic EP needs --pp-size 1; got {v.pp_size}")
    if v.ep_join_mode is not None and v.elastic_ep_backend is None:
        return Refuse(f"--elastic-ep-join-mode {v.ep_join_mode} needs --elastic-ep-backend")
    return Declare(out, "elastic EP rebalances with eplb_algorithm elasticity_aware") \
        if out else None
