"""Expert-parallel load balancing: EPLB, the expert dispatch pick, the expert-distribution
recorder and elastic EP (SGLang's ``handle_eplb_and_dispatch``,
``handle_expert_distribution_metrics`` and ``handle_elastic_ep``, right after the A2A hooks).

EPLB moves redundant expert replicas between EP ranks from recorded routing statistics, so
it needs more than one EP rank and a recorder; which replica a token goes to must agree across
ranks when no all-to-all backend routes each token to one rank.
"""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse, arithmetic_refusal
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.graph_config import DECODE, PREFILL
from launchplan.rules.parallel import attn_dp_enabled
from launchplan.rules.rdma_devices import assumed_present, checked_devices

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
    reads=("elastic_ep_backend", "enable_eplb", "eplb_algorithm", "pp_size", "ep_join_mode",
           "node_rank", "ep_join_rank_offset", "max_ep_size", "elastic_ep_initial_size",
           "tp_size", "mooncake_ib_device"),
    writes=("eplb_algorithm", "mooncake_ib_device"),
    facts=("target.ib_devices", "target.name"),
    sglang="handle_elastic_ep (backend, join mode, rank offset, EP size bounds)",
    triggers=("elastic_ep_backend", "ep_join_mode", "ep_join_rank_offset", "max_ep_size",
              "elastic_ep_initial_size"),
)
def elastic_ep_checks(v: View) -> Declare | Refuse | None:
    """Elastic EP: elastic EPLB, one PP stage, a backend, join settings fitting the mode.

    When: any elastic EP setting is given (backend, join mode, join rank offset, max or
        initial EP size).
    Effect: with a backend and EPLB, an auto ``eplb_algorithm`` becomes elasticity_aware and
        another non-elastic one is refused; a backend with ``--pp-size`` above 1 is refused;
        a join mode without a backend is refused; a scale join needs ``--node-rank`` 1 and a
        positive rank offset; a non-zero rank offset needs the scale join mode; a max EP size
        needs a backend and must be positive; an initial EP size needs a scale-up deployment
        (a backend and a max EP size above ``--tp-size``). The Mooncake backend re-declares
        ``mooncake_ib_device`` in the form its device check returns (``rdma_devices``:
        unset stays unset, as Mooncake discovers the devices; a list stripped, de-duplicated
        and re-joined; a GPU mapping re-serialised), refusing one that names no device or
        is malformed. In SGLang's order.
    Why: rebalancing must know that ranks come and go, a rank joins through the elastic
        backend, and a joining group's ranks are numbered after the EP ranks already serving
        (``handle_elastic_ep``); Mooncake's transfer engine opens the RDMA devices named.
    Assumes: the host has the named RDMA devices unless its devices are stated (the device
        check looks them up under the host's ``/sys/class/infiniband``; ``rdma_devices``); a
        mapping file (``X.json``) is read when it is on this machine, and one that is not is
        taken to exist where SGLang starts (noted; refused under ``--gpu auto``).
    """
    out: dict[str, str | None] = {}
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
        if v.elastic_ep_backend == "mooncake":
            devices = checked_devices("--mooncake-ib-device", v.mooncake_ib_device,
                                      v.target.ib_devices, this_host=v.target.name == "auto")
            if isinstance(devices, Refuse):
                return devices
            out["mooncake_ib_device"] = devices
    offset = v.ep_join_rank_offset
    if v.ep_join_mode is not None:
        if v.elastic_ep_backend is None:
            return Refuse(f"--elastic-ep-join-mode {v.ep_join_mode} needs --elastic-ep-backend")
        if v.ep_join_mode == "scale":
            if v.node_rank != 1:
                return Refuse("--elastic-ep-join-mode scale joins one TP group as --node-rank "
                              f"1; got --node-rank {v.node_rank}")
            if offset <= 0:
                return Refuse("--elastic-ep-join-mode scale needs --elastic-ep-join-rank-offset "
                              f"at the current EP size (above 0); got {offset}")
    if offset != 0:
        if v.ep_join_mode != "scale":
            return Refuse(f"--elastic-ep-join-rank-offset {offset} applies only with "
                          "--elastic-ep-join-mode scale")
        if offset < 0:
            return Refuse(f"--elastic-ep-join-rank-offset must be 0 or more; got {offset}")
    if v.max_ep_size is not None:
        if v.elastic_ep_backend is None:
            return Refuse("--max-ep-size needs --elastic-ep-backend")
        if v.max_ep_size <= 0:
            return Refuse(f"--max-ep-size must be above 0; got {v.max_ep_size}")
    if v.elastic_ep_initial_size is not None and not elastic_scaling(v):
        return Refuse("--elastic-ep-initial-size needs an elastic EP scale-up deployment "
                      "(--elastic-ep-backend and a --max-ep-size above --tp-size)")
    if "eplb_algorithm" in out:
        return Declare(out, "elastic EP rebalances with eplb_algorithm elasticity_aware")
    note = (assumed_present("--mooncake-ib-device", v.mooncake_ib_device, v.target.ib_devices)
            if "mooncake_ib_device" in out else None)
    return Declare(out, note) if out else None


def elastic_scaling(v: View) -> bool:
    """SGLang's runtime EP scale-up is on: a backend and room above the launch-time TP width."""
    return (v.elastic_ep_backend is not None and v.max_ep_size is not None
            and v.max_ep_size > v.tp_size)


_SCALE_UP_READS = (
    "elastic_ep_backend", "max_ep_size", "tp_size", "attn_dp_size", "attn_cp_size",
    "elastic_ep_initial_size", "ep_join_mode", "ep_join_rank_offset", "moe_dense_tp_size",
    "elastic_ep_scale_timeout", "tokenizer_worker_num", "use_ray",
    "enable_elastic_expert_backup", "load_balance_method", "pp_size", "dcp_size",
    "cuda_graph_config", "device", "speculative_algorithm", "is_embedding", "dllm_algorithm",
    "encoder_only", "forward_hooks", "enable_pdmux", "enable_dp_lm_head", "moe_dp_size",
    "ep_size", "moe_a2a_backend")
_SCALE_UP_WRITES = ("enable_dp_attention_local_control_broadcast", "elastic_ep_initial_size")


_SCALE_UP = dict(phase=Phase.MOE, reads=_SCALE_UP_READS, writes=_SCALE_UP_WRITES,
                 triggers=("max_ep_size",))


@rule(**_SCALE_UP, sglang="handle_elastic_ep (runtime scale-up)")
def elastic_ep_scale_up(v: View) -> Declare | Refuse | None:
    """Elastic EP scale-up: EP sizes in whole attention replicas, graphs that survive joins.

    When: a backend and ``--max-ep-size`` above ``--tp-size`` (runtime scale-up).
    Effect: refuses an attention layout that does not split TP; EP sizes (max, initial, a
        joiner's offset) not whole multiples of the attention replica (attention TP x CP);
        attention TP above 1 without ``--moe-dense-tp-size 1``; a non-positive scale timeout;
        more than one tokenizer worker; Ray; elastic expert backup. Declares
        ``enable_dp_attention_local_control_broadcast`` True. A joiner needs an initial EP
        size no larger than its offset, offset + TP within the max EP size, and (at TP 1)
        ``--moe-dense-tp-size 1``; the primary's initial size defaults to, and must equal,
        its TP size. Then refuses a load-balance method other than round_robin, a backend
        other than mooncake, PP above 1, a DCP size not dividing attention TP, decode graphs
        other than full or disabled, prefill graphs on, under full decode graphs a non-CUDA
        device, speculative decoding, embedding, diffusion, encoder-only, forward hooks or
        PDMux; and no attention DP, no DP LM head, attention CP, MoE DP, ``ep_size`` other
        than ``tp_size`` or an A2A backend other than nixl. In SGLang's order.
    Why: joining ranks extend WORLD, so every per-rank layout must be fixed by the attention
        replica and recaptured graphs must be plain (``handle_elastic_ep``).
    Assumes: nothing.
    """
    return _scale_up(v, replicas=True)


@rule(name="elastic_ep_scale_up", variant="0.5.22", **_SCALE_UP,
      sglang="handle_elastic_ep (runtime scale-up, 0.5.21-0.5.22)")
def elastic_ep_scale_up_0_5_22(v: View) -> Declare | Refuse | None:
    """Before 0.5.23 the scale-up spans all of TP with attention DP: no replica arithmetic.

    When: a backend and ``--max-ep-size`` above ``--tp-size`` (runtime scale-up).
    Effect: as in 0.5.23 without the attention-replica, dense-TP and DCP checks, and with
        attention DP as wide as TP required just before the nixl A2A check.
    Why: those releases ran attention as pure DP over WORLD, so every EP size was a rank
        count (``handle_elastic_ep``, 0.5.21-0.5.22; 0.5.21 spells attention DP as
        ``--enable-dp-attention --dp-size``, the same layout).
    Assumes: nothing.
    """
    return _scale_up(v, replicas=False)


def _scale_up(v: View, *, replicas: bool) -> Declare | Refuse | None:
    """The scale-up checks; ``replicas``: 0.5.23's attention-replica layout checks."""
    if not elastic_scaling(v):
        return None
    tp, dp, cp = v.tp_size, v.attn_dp_size, v.attn_cp_size
    join = v.ep_join_mode == "scale"
    attn_tp = 1
    if replicas:
        if tp <= 0 or dp <= 0 or cp <= 0 or tp % (dp * cp):
            return Refuse(f"elastic EP scale-up: --tp-size {tp} does not split into attention "
                          f"DP {dp} x CP {cp}")
        attn_tp = tp // dp // cp
        replica = attn_tp * cp
        sizes = [("--max-ep-size", v.max_ep_size),
                 ("the initial EP size", v.elastic_ep_initial_size or tp)]
        if join:
            sizes.append(("--elastic-ep-join-rank-offset", v.ep_join_rank_offset))
        for what, size in sizes:
            if size <= 0 or size % replica:
                return Refuse(f"elastic EP scale-up: {what} {size} is not a whole number of "
                              f"attention replicas of {replica} ranks")
        if attn_tp > 1 and v.moe_dense_tp_size != 1:
            return Refuse(f"elastic EP scale-up with attention TP {attn_tp} needs "
                          "--moe-dense-tp-size 1")
    if v.elastic_ep_scale_timeout <= 0:
        return Refuse("--elastic-ep-scale-timeout must be above 0; got "
                      f"{v.elastic_ep_scale_timeout}")
    if v.tokenizer_worker_num != 1:
        return Refuse("elastic EP scale-up needs --tokenizer-worker-num 1; got "
                      f"{v.tokenizer_worker_num}")
    if v.use_ray:
        return Refuse("elastic EP scale-up does not run under --use-ray")
    if v.enable_elastic_expert_backup:
        return Refuse("elastic EP scale-up does not run with --enable-elastic-expert-backup")
    out: dict[str, object] = {"enable_dp_attention_local_control_broadcast": True}
    initial = v.elastic_ep_initial_size
    offset = v.ep_join_rank_offset
    if join:
        if initial is None:
            return Refuse("an elastic EP scale joiner needs --elastic-ep-initial-size (the "
                          "primary deployment's EP size at launch)")
        if initial > offset:
            return Refuse(f"--elastic-ep-initial-size {initial} exceeds the current EP size "
                          f"{offset} (--elastic-ep-join-rank-offset)")
        if offset + tp > v.max_ep_size:
            return Refuse(f"the joining group would reach EP {offset + tp}, past "
                          f"--max-ep-size {v.max_ep_size}")
        if tp == 1 and v.moe_dense_tp_size != 1:
            return Refuse("a one-rank elastic EP joining group needs --moe-dense-tp-size 1")
    else:
        if initial is None:
            initial = out["elastic_ep_initial_size"] = tp
        if initial != tp:
            return Refuse(f"the primary's --elastic-ep-initial-size {initial} must equal its "
                          f"--tp-size {tp}")
    if initial <= 0:
        return Refuse(f"--elastic-ep-initial-size must be above 0; got {initial}")
    if v.load_balance_method != "round_robin":
        return Refuse("elastic EP scale-up needs --load-balance-method round_robin; got "
                      f"{v.load_balance_method}")
    if v.elastic_ep_backend != "mooncake":
        return Refuse("elastic EP scale-up needs --elastic-ep-backend mooncake; got "
                      f"{v.elastic_ep_backend}")
    if v.pp_size != 1:
        return Refuse(f"elastic EP scale-up needs --pp-size 1; got {v.pp_size}")
    if replicas and attn_tp % v.dcp_size:
        return Refuse(f"elastic EP scale-up: --dcp-size {v.dcp_size} does not divide "
                      f"attention TP {attn_tp}")
    graphs = v.cuda_graph_config
    decode = graphs[DECODE]["backend"]
    if decode not in ("disabled", "full"):
        return Refuse(f"elastic EP scale-up recaptures decode graphs only as full or "
                      f"disabled; got {decode}")
    if graphs[PREFILL]["backend"] != "disabled":
        return Refuse("elastic EP scale-up needs prefill CUDA graphs disabled")
    if decode == "full":
        blocker = _recapture_blocker(v)
        if blocker:
            return Refuse(f"elastic EP recaptures decode CUDA graphs, which {blocker}")
    needs = [(attn_dp_enabled(v), "attention DP (--attn-dp-size)"),
             (v.enable_dp_lm_head, "--enable-dp-lm-head"),
             (v.attn_cp_size == 1, "--attn-cp-size 1"),
             (v.moe_dp_size == 1, "--moe-dp-size 1"),
             (v.ep_size == tp, f"ep_size equal to tp_size {tp} (got {v.ep_size})")]
    if not replicas:
        needs.append((dp == tp, f"attention DP as wide as tp_size {tp} (got {dp})"))
    needs.append((v.moe_a2a_backend == "nixl",
                  f"--moe-a2a-backend nixl (got {v.moe_a2a_backend})"))
    for held, what in needs:
        if not held:
            return Refuse(f"elastic EP scale-up needs {what}")
    note = "elastic EP scale-up broadcasts DP-attention control locally"
    if "elastic_ep_initial_size" in out:
        note += f"; the primary's initial EP size is its TP size {tp}"
    return Declare(out, note)


def _recapture_blocker(v: View) -> str | None:
    """What stops SGLang recapturing decode graphs after a scale-up, if anything."""
    if v.device != "cuda":
        return f"needs CUDA (device {v.device})"
    for held, what in ((v.speculative_algorithm is not None, "speculative decoding"),
                       (v.is_embedding, "an embedding model"),
                       (v.dllm_algorithm is not None, "a diffusion model"),
                       (v.encoder_only, "an encoder-only server"),
                       (bool(v.forward_hooks), "forward hooks"),
                       (v.enable_pdmux, "PDMux")):
        if held:
            return f"does not work with {what}"
    return None


# all-to-all backends that give Kimi-K3's shared experts their own TP group
SHARED_EXPERT_A2A = ("deepep", "megamoe", "mooncake", "ascend_fuseep", "mori")


@rule(
    phase=Phase.MOE,
    reads=("shared_experts_tp_size", "tp_size", "attn_cp_size", "attn_dp_size",
           "moe_a2a_backend"),
    facts=("model.arch0",),
    sglang="handle_shared_experts_tp",
    triggers=("shared_experts_tp_size",),
)
def shared_experts_tp_checks(v: View) -> Refuse | None:
    """A TP width for shared experts is Kimi-K3's, divides attention TP and needs an EP A2A.

    When: ``--shared-experts-tp-size`` is given.
    Effect: refuses an attention CP width of 0 (the division by it fails), a size that is not
        a positive divisor of the attention TP width (TP over attention DP and CP), a first
        architecture other than KimiK3ForConditionalGeneration,
        and an all-to-all backend outside deepep, megamoe, mooncake, ascend_fuseep and mori.
    Why: only Kimi-K3 splits its shared experts off the routed ones, over groups carved from
        the attention TP ranks while the routed experts travel over the EP all-to-all
        (``handle_shared_experts_tp``).
    Assumes: the model is loaded from a path (not an instance connector).
    """
    size = v.shared_experts_tp_size
    try:
        attn_tp = v.tp_size // v.attn_dp_size // v.attn_cp_size
    except ZeroDivisionError as exc:  # an attention CP width of 0 is checked nowhere before
        return arithmetic_refusal(f"the attention TP width for --shared-experts-tp-size "
                                  f"(tp_size {v.tp_size}, attn_cp_size {v.attn_cp_size})", exc)
    if size < 1 or attn_tp % size:
        return Refuse(f"--shared-experts-tp-size {size} must be a positive divisor of the "
                      f"attention TP width {attn_tp}")
    if v.model.arch0 != "KimiK3ForConditionalGeneration":
        return Refuse("--shared-experts-tp-size is for Kimi-K3 only")
    if v.moe_a2a_backend not in SHARED_EXPERT_A2A:
        return Refuse("--shared-experts-tp-size needs an expert-parallel all-to-all backend ("
                      + ", ".join(SHARED_EXPERT_A2A) + ")")
    return None
