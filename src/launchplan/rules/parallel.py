"""Parallel layouts: attention DP (P27), context parallelism (P28),
KV-cache sharding (P29, re-checked at the end) and the pipeline-parallel overlap rule (P31).

Attention DP splits the batch across ``attn_dp_size`` attention groups inside one TP group,
so per-rank quantities SGLang sized for the whole group (the prefill chunk, the prefill
graph's token buckets) are divided here, after the memory tiers already used them.
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.attention import BACKEND_FIELDS, effective_backends
from launchplan.rules.graph_config import (
    DECODE,
    INPUT_FIELDS,
    PREFILL,
    locked,
    multimodal_blocks_breakable,
    prefill_sizes,
    with_phase,
)
from launchplan.rules.size_lists import as_sequence, largest, rounded_up
from launchplan.vocabulary import BREAKABLE_GRAPH_A2A


def attn_dp_enabled(v: Any) -> bool:
    """SGLang's ``attn_dp_enabled``: attention DP wider than 1, or an EP scale-up joiner."""
    return v.attn_dp_size > 1 or v.ep_join_mode == "scale"


def dp_attention_switch_0_5_21(v: Any) -> bool:
    """SGLang 0.5.21's ``enable_dp_attention`` as its rules read it (0.5.21 only).

    0.5.21 has no ``attn_dp_size``: its rules test the switch itself. launchplan's 0.5.21
    bootstrap moves N > 1 groups to ``attn_dp_size`` and clears the switch, but leaves a
    single group's switch on as given, as 0.5.21 does until its data-parallelism defaults
    clear it (``data_parallelism_defaults``, 0.5.21); a context-parallel override may also
    turn it on. A rule calling this declares both ``attn_dp_size`` and ``enable_dp_attention``
    in ``reads=``. Unlike ``attn_dp_enabled``, a scale-up joiner alone is not attention DP.
    A width below 1 is attention DP too: 0.5.21 checks no width, so ``--dp-size -1`` with the
    switch divides the chunk by -1 (SGLang 0.5.21 resolves it so).
    """
    return v.attn_dp_size != 1 or bool(v.enable_dp_attention)


# --- decode context parallelism (checked before the CUDA-graph parse) ---------------------------


#: Device names SGLang takes for a GPU on a multi-node NVLink (MNNVL) fabric.
MNNVL_DEVICE_TAGS = ("GB200", "GB300")


def mnnvl_fabric_device(target: Any) -> bool:
    """SGLang's ``is_mnnvl_fabric_device``: the GB200/GB300 superchips, told by device name.

    Assumes: no other part registered on an NVLink fabric (0.5.23 also asks NVML for SM107
    systems with a generic name; no catalog target is one).
    """
    name = (target.device_name or "").upper()
    return target.is_cuda and any(tag in name for tag in MNNVL_DEVICE_TAGS)


@rule(
    phase=Phase.MODEL_SOURCE,
    reads=("dcp_comm_backend", "dcp_size", "tp_size", "pp_size", "nnodes"),
    writes=("dcp_comm_backend",),
    facts=("target.is_sm100", "target.device_name", "target.is_cuda", "target.is_hip"),
    sglang="_dcp_comm_backend_default",
)
def dcp_comm_backend_default(v: View) -> Declare | None:
    """How decode-context-parallel ranks exchange attention partials, when not given.

    When: ``--dcp-comm-backend`` is not given.
    Effect: declares ``dcp_comm_backend`` ag_rs without decode CP (``dcp_size`` 1); with it,
        fi_a2a on an SM10x GPU on an MNNVL fabric or whose per-node TP width is a multiple of
        ``dcp_size``, else a2a (CUDA and ROCm).
    Why: FlashInfer's MNNVL all-to-all needs the DCP group inside one NVLink domain; the plain
        all-to-all works anywhere (``_dcp_comm_backend_default``, ``is_fi_a2a_supported``).
    Assumes: only GB200/GB300 are on an MNNVL fabric (SGLang also asks NVML whether another
        GPU completed fabric registration; a plan cannot).
    """
    if v.dcp_comm_backend is not None:
        return None
    if v.dcp_size <= 1:
        return Declare({"dcp_comm_backend": "ag_rs"})
    t = v.target
    per_node = v.tp_size // max(v.nnodes // v.pp_size, 1) if v.pp_size else v.tp_size
    if t.is_sm100 and (mnnvl_fabric_device(t) or per_node % v.dcp_size == 0):
        backend = "fi_a2a"
    elif t.is_cuda or t.is_hip:
        backend = "a2a"
    else:
        backend = "ag_rs"
    return Declare({"dcp_comm_backend": backend},
                   f"decode context parallelism over {v.dcp_size} ranks exchanges with "
                   f"{backend}")


_DCP_CHECKS = dict(
    phase=Phase.MODEL_SOURCE,
    facts=("target.is_cuda",),
    triggers=("dcp_size", "dcp_comm_backend", "dcp_replicate_q_proj"),
)


@rule(**_DCP_CHECKS,
      reads=("dcp_size", "enable_prefill_cp", "dcp_comm_backend", "dcp_replicate_q_proj"),
      sglang="handle_decode_context_parallelism (checks)")
def decode_context_parallel_checks(v: View) -> Refuse | None:
    """Decode CP is at least 1 wide, without prefill CP; its exchange settings need it.

    When: whenever its promises hold.
    Effect: refuses ``--dcp-size`` below 1; ``--dcp-size`` > 1 with ``--enable-prefill-cp``;
        ``--dcp-comm-backend`` a2a or fi_a2a without ``--dcp-size`` > 1; fi_a2a off CUDA;
        ``--dcp-replicate-q-proj`` without ``--dcp-size`` > 1 or with ag_rs.
    Why: the KV cache is split over ``dcp_size`` ranks, so 0 or a negative width has no
        meaning; the all-to-all backends and the replicated Q projection only change the
        decode-CP reduction, and fi_a2a is FlashInfer's MNNVL kernel
        (``handle_decode_context_parallelism``).
    Assumes: nothing.
    """
    if v.dcp_size > 1 and v.enable_prefill_cp:  # a width above 1 passes the width check
        return Refuse("--dcp-size > 1 does not support --enable-prefill-cp")
    return _dcp_checks(v)


@rule(name="decode_context_parallel_checks", variant="0.5.21", **_DCP_CHECKS,
      reads=("dcp_size", "dcp_comm_backend", "dcp_replicate_q_proj"),
      sglang="handle_decode_context_parallelism (checks, 0.5.21)")
def decode_context_parallel_checks_0_5_21(v: View) -> Refuse | None:
    """0.5.21: as the current rule, with decode CP and prefill CP allowed together.

    When: as ``decode_context_parallel_checks``.
    Effect: as ``decode_context_parallel_checks``, except that ``--dcp-size`` > 1 with
        ``--enable-prefill-cp`` is not refused here.
    Why: 0.5.21's ``handle_decode_context_parallelism`` has no prefill-CP check; 0.5.22 added
        it (prefill CP still needs its ``--cp-strategy``, checked with context parallelism).
    Assumes: nothing.
    """
    return _dcp_checks(v)


def _dcp_checks(v: View) -> Refuse | None:
    """The width and exchange checks every release makes."""
    if v.dcp_size < 1:
        return Refuse(f"--dcp-size must be at least 1, got {v.dcp_size}")
    backend = v.dcp_comm_backend
    if backend in ("a2a", "fi_a2a") and v.dcp_size <= 1:
        return Refuse(f"--dcp-comm-backend {backend} changes only the decode context-parallel "
                      "reduction; it needs --dcp-size > 1")
    if backend == "fi_a2a" and not v.target.is_cuda:
        return Refuse("--dcp-comm-backend fi_a2a is FlashInfer's MNNVL all-to-all (Blackwell "
                      "CUDA); use a2a or ag_rs here")
    if v.dcp_replicate_q_proj:
        if v.dcp_size <= 1:
            return Refuse("--dcp-replicate-q-proj needs --dcp-size > 1")
        if backend not in ("a2a", "fi_a2a"):
            return Refuse("--dcp-replicate-q-proj applies to the a2a and fi_a2a DCP backends "
                          f"only; --dcp-comm-backend is {backend}")
    return None


# --- P27: data parallelism -------------------------------------------------------------------


@rule(
    phase=Phase.PARALLEL,
    reads=("attn_dp_size", "dp_size"),
    sglang="handle_data_parallelism (checks)",
    triggers=("attn_dp_size",),
)
def data_parallelism_checks(v: View) -> Refuse | None:
    """Attention DP is at least 1 wide and cannot run inside data-parallel replicas.

    When: whenever its promises hold.
    Effect: refuses ``--attn-dp-size`` below 1, and attention DP > 1 with ``--dp-size`` > 1.
    Why: a width below 1 has no meaning, and SGLang does not combine attention DP with
        data-parallel replicas (``handle_data_parallelism``).
    Assumes: nothing.
    """
    if v.attn_dp_size < 1:
        return Refuse(f"--attn-dp-size must be positive, got {v.attn_dp_size}")
    if v.attn_dp_size > 1 and v.dp_size > 1:
        return Refuse(f"--dp-size {v.dp_size} replicas cannot be combined with "
                      f"--attn-dp-size {v.attn_dp_size}")
    return None


@rule(
    name="data_parallelism_checks", variant="0.5.21",
    phase=Phase.PARALLEL,
    reads=("attn_dp_size", "tp_size"),
    sglang="handle_data_parallelism (0.5.21: tp_size % dp_size)",
    triggers=("attn_dp_size",),
)
def data_parallelism_checks_0_5_21(v: View) -> Refuse | None:
    """0.5.21: only a width of 0 stops the attention-DP handler.

    When: whenever its promises hold.
    Effect: refuses an attention-DP width of 0; a negative width passes (the adjustments
        divide by it).
    Why: 0.5.21 checks no width: its ``handle_data_parallelism`` computes ``tp_size %
        dp_size``, which raises ZeroDivisionError for 0 and holds for -1; attention DP is
        the only data parallelism its switch counts, so no replica check applies.
    Assumes: nothing.
    """
    if v.attn_dp_size == 0:
        return Refuse(f"tp_size {v.tp_size} % dp_size 0: integer modulo by zero (0.5.21 "
                      "checks no attention-DP width)")
    return None


@rule(
    phase=Phase.PARALLEL,
    reads=("dp_size", "attn_dp_size", "ep_join_mode", "enable_dp_lm_head"),
    writes=("enable_dp_lm_head",),
    sglang="_data_parallelism_defaults",
)
def data_parallelism_defaults(v: View) -> dict | None:
    """With a single DP rank (and no EP scale-up) there is nothing to shard the LM head over.

    When: ``dp_size`` x ``attn_dp_size`` is 1 and ``ep_join_mode`` is not scale.
    Effect: declares ``enable_dp_lm_head`` False, also when it already is: the declaration (not
        only a change) is what SGLang's resolution records.
    Why: a DP LM head shards over DP ranks (``_data_parallelism_defaults``).
    Assumes: nothing.
    """
    if v.dp_size * v.attn_dp_size == 1 and v.ep_join_mode != "scale":
        return {"enable_dp_lm_head": False}
    return None


@rule(
    name="data_parallelism_defaults", variant="0.5.21",
    phase=Phase.PARALLEL,
    reads=("dp_size", "attn_dp_size", "ep_join_mode", "enable_dp_lm_head"),
    writes=("enable_dp_lm_head", "enable_dp_attention"),
    sglang="_data_parallelism_defaults (0.5.21)",
)
def data_parallelism_defaults_0_5_21(v: View) -> dict | None:
    """0.5.21: one DP group (and no EP scale-up) clears ``--enable-dp-attention`` too.

    When: as ``data_parallelism_defaults`` (0.5.21's ``dp_size`` is launchplan's ``dp_size`` x
        ``attn_dp_size``: one of them is 1).
    Effect: declares ``enable_dp_attention`` and ``enable_dp_lm_head`` False.
    Why: 0.5.21 has no deprecation step for the switch: a single group's switch stays on, and
        every rule before ``handle_data_parallelism`` reads it (graph reserve, all-reduce
        fusion, tc_piecewise graph, model and PD checks), until ``_data_parallelism_defaults``
        clears it with the DP LM head.
    Assumes: nothing.
    """
    if v.dp_size * v.attn_dp_size == 1 and v.ep_join_mode != "scale":
        return {"enable_dp_attention": False, "enable_dp_lm_head": False}
    return None


_ATTENTION_DP = dict(
    phase=Phase.PARALLEL,
    reads=("attn_dp_size", "ep_join_mode", "tp_size", "schedule_conservativeness",
           "chunked_prefill_size") + INPUT_FIELDS,
    writes=("schedule_conservativeness", "chunked_prefill_size", "cuda_graph_config",
            "enable_dp_attention_local_control_broadcast"),
    triggers=("attn_dp_size", "ep_join_mode"),
)


@rule(**_ATTENTION_DP, sglang="handle_data_parallelism (attention DP)")
def attention_dp_adjustments(v: View) -> Declare | Refuse | None:
    """Attention DP: chunk //= attn_dp_size, conservativeness x 0.3, prefill graph re-clamped.

    When: attention DP is enabled (``attn_dp_size`` > 1 or an EP scale-up joiner).
    Effect: refuses a ``tp_size`` not divisible by ``attn_dp_size``; divides
        ``chunked_prefill_size`` (even an explicit one); multiplies
        ``schedule_conservativeness`` by 0.3; cuts an unlocked prefill max_bs above the divided
        chunk to it (regenerating unlocked buckets); sets
        ``enable_dp_attention_local_control_broadcast`` under SGLANG_RUST_SERVER.
    Why: each attention group prefills its own share, and the MoE all-to-all budget is sized
        from the divided chunk (``handle_data_parallelism``, attention DP).
    Assumes: SGLANG_RUST_SERVER is unset unless the environment given sets it; nothing
        re-aligns the divided chunk to the page size (the launcher check may then fail).
    """
    return _attention_dp(v, rust_broadcast=True)


@rule(**_ATTENTION_DP, name="attention_dp_adjustments", variant="0.5.22",
      sglang="handle_data_parallelism (attention DP; 0.5.21, 0.5.22)")
def attention_dp_adjustments_0_5_22(v: View) -> Declare | Refuse | None:
    """0.5.21-0.5.22: attention DP's adjustments without the Rust server's broadcast.

    When: as ``attention_dp_adjustments``.
    Effect: as ``attention_dp_adjustments``, except that SGLANG_RUST_SERVER leaves
        ``enable_dp_attention_local_control_broadcast`` as it is.
    Why: 0.5.23 turned the local control broadcast on for the Rust server's attention DP
        (``handle_data_parallelism`` of each release).
    Assumes: as ``attention_dp_adjustments``.
    """
    return _attention_dp(v, rust_broadcast=False)


@rule(**{**_ATTENTION_DP, "reads": _ATTENTION_DP["reads"] + ("enable_dp_attention",)},
      name="attention_dp_adjustments", variant="0.5.21",
      sglang="handle_data_parallelism (attention DP; 0.5.21)")
def attention_dp_adjustments_0_5_21(v: View) -> Declare | Refuse | None:
    """0.5.21: the adjustments for every attention-DP width but one, negative ones included.

    When: 0.5.21's switch is on (``dp_attention_switch_0_5_21``: any width but 1) or an EP
        scale-up joiner.
    Effect: as ``attention_dp_adjustments_0_5_22``, with the width as given: ``--dp-size -1``
        divides the chunk to its negative (8192 -> -8192) and cuts the prefill graph's
        max_bs to it (no capture sizes left).
    Why: 0.5.21's ``handle_data_parallelism`` asserts only ``tp_size % dp_size == 0`` (which
        -1 and -2 pass with TP 2) before dividing; the positive-width check came in 0.5.22.
    Assumes: as ``attention_dp_adjustments``.
    """
    return _attention_dp(v, rust_broadcast=False, enabled=dp_attention_switch_0_5_21(v))


def _attention_dp(v: View, *, rust_broadcast: bool, enabled: bool | None = None
                  ) -> Declare | Refuse | None:
    if not (attn_dp_enabled(v) if enabled is None else enabled or attn_dp_enabled(v)):
        return None
    if v.tp_size % v.attn_dp_size:
        return Refuse(f"tp_size {v.tp_size} must be divisible by attn_dp_size {v.attn_dp_size}")
    chunk = v.chunked_prefill_size // v.attn_dp_size
    out: dict[str, Any] = {
        "schedule_conservativeness": v.schedule_conservativeness * 0.3,
        "chunked_prefill_size": chunk,
    }
    if rust_broadcast and v.record.env_flag("SGLANG_RUST_SERVER"):
        out["enable_dp_attention_local_control_broadcast"] = True
    config = v.cuda_graph_config
    prefill = config[PREFILL]
    keys = locked(v)
    if (prefill["backend"] != "disabled" and prefill["max_bs"] is not None
            and prefill["max_bs"] > chunk and (PREFILL, "max_bs") not in keys):
        clamped: dict[str, Any] = {"max_bs": chunk}
        if (PREFILL, "bs") not in keys:
            clamped["bs"] = prefill_sizes(chunk)
        out["cuda_graph_config"] = with_phase(config, PREFILL, **clamped)
    return Declare(out, f"attention DP: chunked_prefill_size {v.chunked_prefill_size} -> "
                        f"{chunk}")


@rule(
    phase=Phase.PARALLEL,
    reads=("enable_tp_lm_head_all_to_all", "disaggregation_mode", "attn_dp_size", "tp_size",
           "attn_cp_size", "enable_dp_lm_head"),
    writes=("enable_tp_lm_head_all_to_all",),
    sglang="_tp_lm_head_all_to_all_default",
)
def tp_lm_head_all_to_all_default(v: View) -> dict | None:
    """The TP LM-head all-to-all is on only for pure attention-DP PD decode servers.

    When: ``enable_tp_lm_head_all_to_all`` is unset.
    Effect: declares it True on a PD decode server with attention DP over all of TP, no
        attention CP and no DP LM head; False otherwise.
    Why: the head's layout is fixed at load time, and the TP path would slow the long prefills
        of prefill and colocated servers, which keep the communication-free DP LM head
        (``_tp_lm_head_all_to_all_default``).
    Assumes: nothing.
    """
    if v.enable_tp_lm_head_all_to_all is not None:
        return None
    enable = (v.disaggregation_mode == "decode" and v.attn_dp_size > 1
              and v.tp_size == v.attn_dp_size and v.attn_cp_size == 1
              and not v.enable_dp_lm_head)
    return {"enable_tp_lm_head_all_to_all": enable}


_LM_HEAD = dict(
    phase=Phase.PARALLEL,
    reads=("enable_dp_lm_head", "enable_tp_lm_head_all_to_all", "attn_dp_size",
           "ep_join_mode", "tp_size", "attn_cp_size"),
)


@rule(**_LM_HEAD, sglang="_dp_lm_head_validation")
def dp_lm_head_validation(v: View) -> Refuse | None:
    """A DP LM head and the TP LM-head all-to-all both need attention DP; the latter, TP = DP.

    When: ``enable_dp_lm_head`` or ``enable_tp_lm_head_all_to_all`` is true.
    Effect: refuses either without attention DP; the all-to-all with a DP LM head, with
        ``tp_size`` != ``attn_dp_size``, or with ``attn_cp_size`` != 1.
    Why: a DP LM head shards over attention-DP ranks and the all-to-all over TP ranks, so
        they exclude each other (``_dp_lm_head_validation``).
    Assumes: nothing.
    """
    return _lm_head_checks(v, attn_dp_enabled(v))


@rule(name="dp_lm_head_validation", variant="0.5.21",
      **{**_LM_HEAD, "reads": _LM_HEAD["reads"] + ("enable_dp_attention",)},
      sglang="_dp_lm_head_validation (0.5.21)")
def dp_lm_head_validation_0_5_21(v: View) -> Refuse | None:
    """0.5.21: as the current rule, with attention DP read from its own switch alone.

    When: as ``dp_lm_head_validation``.
    Effect: as ``dp_lm_head_validation``, except that an elastic-EP scale joiner does not
        count as attention DP unless ``--enable-dp-attention`` is on (which 0.5.21's
        data-parallelism defaults leave on for a joiner): without it, its DP LM head is
        refused.
    Why: 0.5.21 checked ``enable_dp_attention`` itself; 0.5.22 counts a scale joiner, which
        joins an attention-DP deployment, as attention DP.
    Assumes: nothing.
    """
    return _lm_head_checks(v, dp_attention_switch_0_5_21(v))


def _lm_head_checks(v: View, attn_dp: bool) -> Refuse | None:
    if v.enable_dp_lm_head and not attn_dp:
        return Refuse("--enable-dp-lm-head needs attention DP (--attn-dp-size > 1)")
    if v.enable_tp_lm_head_all_to_all:
        if not attn_dp:
            return Refuse("--enable-tp-lm-head-all-to-all needs attention DP")
        if v.enable_dp_lm_head:
            return Refuse("--enable-tp-lm-head-all-to-all shards the LM head over TP and "
                          "cannot be combined with --enable-dp-lm-head")
        if v.tp_size != v.attn_dp_size:
            return Refuse("--enable-tp-lm-head-all-to-all needs tp_size == attn_dp_size")
        if v.attn_cp_size != 1:
            return Refuse("--enable-tp-lm-head-all-to-all needs attn_cp_size 1")
    return None


@rule(
    phase=Phase.PARALLEL,
    reads=("load_balance_method", "disaggregation_mode"),
    writes=("load_balance_method",),
    sglang="handle_load_balance_method",
)
def load_balance_method_default(v: View) -> dict | None:
    """An auto load-balance method is round_robin, or follow_bootstrap_room on PD prefill.

    When: ``--load-balance-method`` is auto (its default).
    Effect: declares ``load_balance_method`` follow_bootstrap_room on a PD prefill server,
        round_robin otherwise.
    Why: a prefill server must send each request to the DP rank its decode peer bootstraps
        with; elsewhere plain rotation serves (``handle_load_balance_method``).
    Assumes: nothing.
    """
    if v.load_balance_method != "auto":
        return None
    prefill = v.disaggregation_mode == "prefill"
    return {"load_balance_method": "follow_bootstrap_room" if prefill else "round_robin"}


# --- P28: context parallelism ----------------------------------------------------------------

_KIMI_K3_ARCHS = ("KimiK3ForConditionalGeneration", "KimiK3LinearForCausalLM")
_BOUNDARY_SCOPE_ARCHS = ("InklingForConditionalGeneration", "InklingForConditionalGenerationMTP",
                         *_KIMI_K3_ARCHS)
_BOUNDARY: dict[str, Any] = dict(
    phase=Phase.PARALLEL,
    reads=("attn_cp_size", "enable_prefill_cp", "enable_attn_tp_input_scattered"),
    writes=("enable_attn_tp_input_scattered",),
    facts=("model.model_type", "model.arch0"),
    triggers=("attn_cp_size", "enable_attn_tp_input_scattered"),
)


@rule(**_BOUNDARY, sglang="handle_context_parallelism (_boundary_parallelism_overrides)")
def boundary_parallelism(v: View) -> Declare | Refuse | None:
    """Models whose forward never enters the input-scattered attention scope turn it off.

    When: the model is Nemotron-H, LongCat-Flash, Kimi-K3 or Inkling.
    Effect: refuses Nemotron-H with ``attn_cp_size`` > 1 and LongCat-Flash with prefill CP and
        ``attn_cp_size`` > 1; declares ``enable_attn_tp_input_scattered`` False for all four.
    Why: their forward never uses the scattered-input attention path
        (``handle_context_parallelism``, ``_boundary_parallelism_overrides``).
    Assumes: nothing.
    """
    return _boundary(v, _BOUNDARY_SCOPE_ARCHS)


@rule(name="boundary_parallelism", variant="0.5.22", **_BOUNDARY,
      sglang="handle_context_parallelism (_boundary_parallelism_overrides, 0.5.22)")
def boundary_parallelism_0_5_22(v: View) -> Declare | Refuse | None:
    """0.5.22: as in 0.5.23, but Inkling keeps input-scattered attention as asked.

    When: as ``boundary_parallelism``.
    Effect: as ``boundary_parallelism`` for Nemotron-H, LongCat-Flash and Kimi-K3 only.
    Why: 0.5.23 added Inkling to the models turned off (``_boundary_parallelism_overrides``).
    Assumes: nothing.
    """
    return _boundary(v, _KIMI_K3_ARCHS)


@rule(name="boundary_parallelism", variant="0.5.21", **_BOUNDARY,
      sglang="handle_context_parallelism (_boundary_parallelism_overrides, 0.5.21)")
def boundary_parallelism_0_5_21(v: View) -> Declare | Refuse | None:
    """0.5.21: only Nemotron-H and LongCat-Flash turn input-scattered attention off.

    When: as ``boundary_parallelism``.
    Effect: as ``boundary_parallelism`` for Nemotron-H and LongCat-Flash only.
    Why: 0.5.22 added Kimi-K3, 0.5.23 Inkling (``_boundary_parallelism_overrides``).
    Assumes: nothing.
    """
    return _boundary(v, ())


def _boundary(v: View, scope_archs: tuple[str, ...]) -> Declare | Refuse | None:
    model_type = v.model.model_type
    nemotron = model_type in ("nemotron_h", "nemotron_h_puzzle")
    longcat = model_type == "longcat_flash"
    if nemotron and v.attn_cp_size > 1:
        return Refuse("Nemotron-H does not support --attn-cp-size > 1")
    if longcat and v.enable_prefill_cp and v.attn_cp_size > 1:
        return Refuse("LongCat-Flash does not support --enable-prefill-cp with "
                      "--attn-cp-size > 1")
    if (nemotron or longcat or v.model.arch0 in scope_archs) and \
            v.enable_attn_tp_input_scattered:
        return Declare({"enable_attn_tp_input_scattered": False},
                       f"input-scattered attention disabled: {v.model.arch0} does not use it")
    return None


# --- DWDP: distributed weight data parallelism (before the CUDA-graph parse) ---------------


@rule(
    phase=Phase.GRAPH_DEFAULTS,
    reads=("dwdp_size", "tp_size", "disaggregation_mode", "enable_eplb",
           "speculative_algorithm", "pp_size", "enable_two_batch_overlap"),
    writes=("attn_dp_size", "dp_size", "enable_dp_attention_local_control_broadcast",
            "enable_dp_lm_head", "moe_dense_tp_size", "ep_size", "moe_dp_size",
            "moe_a2a_backend", "disable_cuda_graph"),
    sglang="handle_dwdp",
    triggers=("dwdp_size",),
)
def dwdp_layout(v: View) -> Declare | Refuse | None:
    """DWDP prefetches remote experts' weights instead of exchanging tokens: its own layout.

    When: ``dwdp_size`` above 1.
    Effect: refuses a DWDP size other than ``tp_size``, a PD decode server, EPLB, speculative
        decoding, PP and TBO; otherwise declares attention DP over the whole DWDP group
        (``attn_dp_size`` = ``dwdp_size``, ``dp_size`` 1, local control broadcast, DP LM
        head), ``ep_size`` = ``dwdp_size`` with ``moe_dense_tp_size`` 1, ``moe_dp_size`` 1
        and no MoE all-to-all, and ``disable_cuda_graph``.
    Why: every rank holds a static slice of the experts and prefetches the rest each layer, so
        tokens never move and the prefetch events cannot be captured (``handle_dwdp``).
    Assumes: nothing.
    """
    size = v.dwdp_size
    if size is None or size <= 1:
        return None
    for hit, what in (
            (size != v.tp_size, f"--dwdp-size {size} must equal tp_size {v.tp_size}"),
            (v.disaggregation_mode not in ("null", "prefill"),
             "DWDP runs without PD or on a PD prefill server only"),
            (v.enable_eplb, "DWDP's static expert partition excludes EPLB"),
            (v.speculative_algorithm is not None, "DWDP does not support speculative decoding"),
            (v.pp_size != 1, "DWDP needs pp_size 1"),
            (v.enable_two_batch_overlap, "DWDP's prefetch events exclude two-batch overlap")):
        if hit:
            return Refuse(what)
    note = f"DWDP over {size} ranks: attention DP {size}, EP {size}, no CUDA graphs"
    if v.disaggregation_mode == "null":
        note += " (without PD, every decode step fetches all remote experts again)"
    return Declare({"attn_dp_size": size, "dp_size": 1,
                    "enable_dp_attention_local_control_broadcast": True,
                    "enable_dp_lm_head": True, "moe_dense_tp_size": 1, "ep_size": size,
                    "moe_dp_size": 1, "moe_a2a_backend": "none",
                    "disable_cuda_graph": True}, note)


# --- CP-TP group sharing: prefill CP over the whole TP group (hybrid linear attention) -------

#: Architectures whose model code runs prefill CP with the CP group equal to the TP group,
#: and the CP strategy each one implements (SGLang's ``resolve_cp_tp_group_sharing``).
CP_TP_SHARING_STRATEGY = {"Glm5NextForConditionalGeneration": "interleave",
                          "Qwen4ExpForConditionalGeneration": "zigzag"}
#: GLM-5 Next's config class default for ``linear_num_heads``, the KDA head count when the
#: config gives no ``linear_attn_config`` (SGLang 0.5.23, ``configs/glm5_next.py``).
GLM5_NEXT_LINEAR_HEADS_DEFAULT = 64

_CP_TP_READS = ("enable_prefill_cp", "attn_cp_size", "tp_size", "cp_strategy",
                "speculative_algorithm", "speculative_draft_model_path", "model_path",
                "speculative_eagle_topk", "enable_dsa_cache_layer_split", "dcp_size",
                "enable_mixed_chunk", "moe_dp_size", "ep_size", "moe_a2a_backend",
                "enable_waterfill", "pp_size", "dp_size", "disaggregation_mode",
                "disaggregation_transfer_backend", "cuda_graph_config")


def _linear_heads(model: Any) -> dict[str, Any]:
    """The linear-attention head counts that keep their TP partition, by config key."""
    text = model.text_config
    if text.get("linear_num_key_heads") is not None:
        return {k: text.get(k) for k in ("linear_num_key_heads", "linear_num_value_heads")}
    linear = text.get("linear_attn_config")
    if isinstance(linear, dict) and "num_heads" in linear:
        return {"num_heads": linear["num_heads"]}
    return {"num_heads": text.get("linear_num_heads", GLM5_NEXT_LINEAR_HEADS_DEFAULT)}


def _cp_tp_sharing(v: Any, *, qwen4: bool) -> Declare | Refuse | None:
    """``qwen4``: 0.5.23 added Qwen4-Exp, DFLASH on GLM-5 Next and PD prefill for GLM-5 Next
    (0.5.22 knows GLM-5 Next alone, refuses any PD role and always drops its prefill graph)."""
    arch = v.model.arch0
    known = CP_TP_SHARING_STRATEGY if qwen4 else {
        "Glm5NextForConditionalGeneration": "interleave"}
    if not v.enable_prefill_cp or v.attn_cp_size <= 1 or arch not in known:
        return None
    if v.target.is_hip:
        return None  # prefill CP on ROCm is refused first (context_parallelism_checks)
    if v.attn_cp_size != v.tp_size:
        return Refuse(f"CP-TP group sharing ({arch}) needs attn_cp_size equal to tp_size, got "
                      f"{v.attn_cp_size} and {v.tp_size}")
    if v.cp_strategy != known[arch]:
        return Refuse(f"CP-TP group sharing ({arch}) needs --cp-strategy {known[arch]}")
    glm = arch == "Glm5NextForConditionalGeneration"
    algorithm = v.speculative_algorithm
    if algorithm is not None:
        if not glm:
            return Refuse("CP-TP group sharing does not support speculative decoding here")
        native_mtp = (str(algorithm).upper() in ("EAGLE", "NEXTN")
                      and v.speculative_draft_model_path in (None, v.model_path)
                      and v.speculative_eagle_topk in (None, 1))
        if not native_mtp and not (qwen4 and algorithm == "DFLASH"):
            return Refuse("CP-TP group sharing supports only native MTP with top-k 1"
                          + (" or DFLASH" if qwen4 else ""))
    unsupported = [("--enable-dsa-cache-layer-split", v.enable_dsa_cache_layer_split),
                   ("--dcp-size > 1", v.dcp_size > 1),
                   ("--enable-mixed-chunk", v.enable_mixed_chunk),
                   ("--moe-dp-size > 1", v.moe_dp_size > 1)]
    pd = v.disaggregation_mode
    if not qwen4:
        unsupported.append(("PD disaggregation", pd != "null"))
    elif not glm:
        unsupported += [("--ep-size > 1", v.ep_size > 1),
                        ("--moe-a2a-backend", v.moe_a2a_backend != "none"),
                        ("--enable-waterfill", v.enable_waterfill),
                        ("--pp-size > 1", v.pp_size > 1),
                        ("a PD decode server", pd == "decode")]
    elif pd != "null":
        unsupported += [("a PD decode server", pd == "decode"),
                        ("a transfer backend other than mooncake",
                         v.disaggregation_transfer_backend != "mooncake"),
                        ("PD prefill without DFLASH", algorithm != "DFLASH"),
                        ("--pp-size > 1", v.pp_size > 1), ("--dp-size > 1", v.dp_size > 1),
                        ("--ep-size > 1", v.ep_size > 1)]
    for what, hit in unsupported:
        if hit:
            return Refuse(f"CP-TP group sharing does not support {what}")
    if qwen4 and pd == "prefill" and v.record.env_flag("SGLANG_DISAGG_STAGING_BUFFER"):
        return Refuse("CP-TP group sharing does not support SGLANG_DISAGG_STAGING_BUFFER")
    for key, count in _linear_heads(v.model).items():
        if not isinstance(count, int) or count % v.tp_size:
            return Refuse(f"CP-TP group sharing keeps linear attention TP-partitioned: "
                          f"{key} {count} must be divisible by tp_size {v.tp_size}")
    out: dict[str, Any] = {"enable_cp_tp_group_sharing": True}
    if not glm or not qwen4:
        out["cuda_graph_config"] = with_phase(v.cuda_graph_config, PREFILL, backend="disabled")
    return Declare(out, f"prefill CP shares the TP group ({arch})"
                   + ("; prefill CUDA graph off (batch-dependent sequence collectives)"
                      if "cuda_graph_config" in out else ""))


_CP_TP = dict(phase=Phase.PARALLEL, reads=_CP_TP_READS,
              writes=("enable_cp_tp_group_sharing", "cuda_graph_config"),
              facts=("model.arch0", "model.text_config", "target.is_hip"),
              triggers=("enable_prefill_cp",))


@rule(**_CP_TP, sglang="resolve_cp_tp_group_sharing")
def cp_tp_group_sharing(v: View) -> Declare | Refuse | None:
    """GLM-5 Next and Qwen4-Exp run prefill CP over the whole TP group.

    When: ``--enable-prefill-cp`` with ``attn_cp_size`` above 1 on GLM-5 Next or Qwen4-Exp
        (not on ROCm, which refuses prefill CP for them first).
    Effect: refuses a CP width other than TP, a CP strategy other than the model's
        (interleave for GLM-5 Next, zigzag for Qwen4-Exp), speculation other than GLM-5
        Next's native MTP (top-k 1) or DFLASH, DSA cache-layer split, decode CP, mixed chunks,
        MoE DP; on Qwen4-Exp EP, a MoE all-to-all, waterfill, PP and a PD decode role; on
        GLM-5 Next under PD a decode role, a transport other than mooncake, no DFLASH, PP, DP
        replicas and EP; linear-attention head counts TP does not divide. Declares
        ``enable_cp_tp_group_sharing``, and on Qwen4-Exp the prefill graph off.
    Why: the CP group is the TP group; MoE and linear attention keep their TP partition, and
        Qwen4-Exp's sequence collectives have batch-dependent sizes
        (``resolve_cp_tp_group_sharing``, inside ``handle_context_parallelism``).
    Assumes: a GLM-5 Next config without ``linear_attn_config`` or ``linear_num_heads`` has
        its class default of 64 KDA heads.
    """
    return _cp_tp_sharing(v, qwen4=True)


@rule(name="cp_tp_group_sharing", variant="0.5.22", **_CP_TP,
      sglang="resolve_cp_tp_group_sharing (0.5.22)")
def cp_tp_group_sharing_0_5_22(v: View) -> Declare | Refuse | None:
    """0.5.22: CP-TP group sharing for GLM-5 Next only, without PD or DFLASH.

    When: ``--enable-prefill-cp`` with ``attn_cp_size`` above 1 on GLM-5 Next.
    Effect: as ``cp_tp_group_sharing``, except that speculation must be native MTP (no
        DFLASH), any PD role is refused, and the prefill graph is always turned off.
    Why: 0.5.23 added Qwen4-Exp, DFLASH and PD prefill (``resolve_cp_tp_group_sharing`` of
        each release).
    Assumes: as ``cp_tp_group_sharing``.
    """
    return _cp_tp_sharing(v, qwen4=False)


@rule(
    phase=Phase.PARALLEL,
    reads=("enable_prefill_cp", "cp_strategy", "attn_cp_size", "tp_size", "attn_dp_size",
           "enable_aiter_allreduce_fusion", "moe_dp_size", "ep_size", "pp_size",
           "language_only", "language_model_only"),
    facts=("target.is_hip", "model.arch0", "model.is_multimodal"),
    sglang="handle_context_parallelism",
    triggers=("enable_prefill_cp", "attn_cp_size", "moe_dp_size"),
)
def context_parallelism_checks(v: View) -> Refuse | None:
    """Context-parallel layouts that SGLang refuses.

    When: whenever its promises hold.
    Effect: refuses prefill CP on ROCm except DeepSeek-V4; DeepSeek V3.2 with zigzag; MiMo V2
        with another strategy or with multimodal input; prefill CP without a strategy; TP not
        divisible into attention DP x CP groups; aiter all-reduce fusion with CP or MoE DP;
        MoE DP with TP not divisible by it, EP x MoE-DP above TP, PP, or (with EP) EP x MoE-DP
        != TP; ``attn_cp_size`` != ``moe_dp_size`` unless ``moe_dp_size`` is 1.
    Why: SGLang refuses these layouts while resolving (``handle_context_parallelism``).
    Assumes: nothing.
    """
    return _context_parallelism_refusal(v, ("attn_dp_size",))


_CP_CHECKS = dict(
    phase=Phase.PARALLEL,
    facts=("target.is_hip", "model.arch0", "model.is_multimodal"),
    triggers=("enable_prefill_cp", "attn_cp_size", "moe_dp_size"),
)


@rule(name="context_parallelism_checks", variant="0.5.21", **_CP_CHECKS,
      reads=("enable_prefill_cp", "cp_strategy", "attn_cp_size", "tp_size", "dp_size",
             "attn_dp_size", "enable_aiter_allreduce_fusion", "moe_dp_size", "ep_size", "pp_size",
             "language_only", "language_model_only"),
      sglang="handle_context_parallelism (0.5.21)")
def context_parallelism_checks_0_5_21(v: View) -> Refuse | None:
    """0.5.21: as ``context_parallelism_checks``, the CP groups counted over ``dp_size``.

    When: as the current check.
    Effect: TP must divide into 0.5.21's ``dp_size`` x ``attn_cp_size`` groups, where that
        ``dp_size`` counts plain data-parallel replicas and attention-DP groups alike (here
        ``dp_size`` x ``attn_dp_size``, 0.5.21's attention DP being read in 0.5.22's layout);
        the rest as the current check.
    Why: 0.5.21's ``handle_context_parallelism`` divides by ``dp_size`` (0.5.22 divides by
        ``attn_dp_size``; recorded on 0.5.21 with Kimi-K2, ``--dp-size 4 --attn-cp-size 4``
        at TP 8, with and without ``--enable-dp-attention``).
    Assumes: nothing.
    """
    return _context_parallelism_refusal(v, ("dp_size", "attn_dp_size"))


def _context_parallelism_refusal(v: View, groups: tuple[str, ...]) -> Refuse | None:
    """The first CP layout SGLang refuses; ``groups``: the fields whose product the TP ranks
    must divide into, with ``attn_cp_size``."""
    arch = v.model.arch0
    cp = v.enable_prefill_cp
    if cp and v.target.is_hip and arch != "DeepseekV4ForCausalLM":
        return Refuse(f"prefill CP on ROCm supports only DeepseekV4ForCausalLM, not {arch}")
    if cp and arch == "DeepseekV32ForCausalLM" and v.cp_strategy == "zigzag":
        return Refuse("DeepSeek V3.2 prefill CP does not support --cp-strategy zigzag; "
                      "use interleave")
    if cp and arch in ("MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM"):
        if v.cp_strategy != "zigzag":
            return Refuse("MiMo V2 prefill CP supports only --cp-strategy zigzag")
        if v.model.is_multimodal and not v.language_only and not v.language_model_only:
            return Refuse("MiMo V2 prefill CP supports text only; add --language-only")
    if cp and v.cp_strategy is None:
        return Refuse("--enable-prefill-cp needs --cp-strategy")
    if v.attn_cp_size > 1:
        if v.tp_size % v.attn_cp_size:
            return Refuse(f"tp_size {v.tp_size} must be divisible by attn_cp_size "
                          f"{v.attn_cp_size}")
        width = v.attn_cp_size
        for name in groups:
            width *= v[name]
        if v.tp_size % width:
            return Refuse(f"tp_size {v.tp_size} must be divisible by {' x '.join(groups)} x "
                          f"attn_cp_size ({width})")
        if v.enable_aiter_allreduce_fusion:
            return Refuse("aiter all-reduce fusion does not support context parallelism")
    moe_dp = v.moe_dp_size
    if moe_dp > 1:
        if v.tp_size % moe_dp:
            return Refuse(f"tp_size {v.tp_size} must be divisible by moe_dp_size {moe_dp}")
        if v.ep_size * moe_dp > v.tp_size:
            return Refuse("ep_size x moe_dp_size must not exceed tp_size")
        if v.pp_size != 1:
            return Refuse("pipeline parallelism is not supported with MoE data parallelism")
        if v.ep_size > 1 and v.ep_size * moe_dp != v.tp_size:
            return Refuse("ep_size x moe_dp_size must equal tp_size")
        if v.enable_aiter_allreduce_fusion:
            return Refuse("aiter all-reduce fusion does not support context parallelism")
    if v.attn_cp_size != moe_dp and moe_dp != 1:
        return Refuse("attn_cp_size != moe_dp_size needs moe_dp_size 1")
    return None


def supports_prefill_cp_graph(v: Any) -> bool:
    """Whether this prefill-CP layout has a breakable-graph (BCG) path.

    Prefill CP over the whole TP group at pp 1, with zigzag on trtllm_mha, or interleave on
    the dsa backend for GLM-5 Next (no DP replicas, no EP).
    """
    if not (v.enable_prefill_cp and v.pp_size == 1 and v.attn_cp_size == v.tp_size):
        return False
    prefill = effective_backends(v)[0]
    if v.cp_strategy == "zigzag" and prefill == "trtllm_mha":
        return True
    return (v.cp_strategy == "interleave" and prefill == "dsa" and v.dp_size == 1
            and v.ep_size == 1 and v.attn_cp_size > 1
            and "Glm5NextForConditionalGeneration" in v.model.architectures)


@rule(
    phase=Phase.PARALLEL,
    reads=BACKEND_FIELDS + INPUT_FIELDS + (
        "enable_prefill_cp", "cp_strategy", "pp_size", "attn_cp_size", "tp_size", "dp_size",
        "ep_size", "dcp_size", "enable_two_batch_overlap", "moe_a2a_backend",
        "disaggregation_mode", "enable_multimodal", "language_model_only", "model_impl"),
    writes=("cuda_graph_config",),
    facts=("model.architectures", "model.uses_kda", "model.is_multimodal"),
    sglang="apply_prefill_cp_cuda_graph_default",
    triggers=("enable_prefill_cp",),
)
def prefill_cp_cuda_graph_default(v: View) -> Declare | None:
    """Supported prefill CP gets a breakable prefill graph, even if an earlier default disabled it.

    When: ``enable_prefill_cp`` is true.
    Effect: unless the user chose the prefill backend, a supported layout
        (``supports_prefill_cp_graph``) sets the prefill phase back to breakable, then the
        other breakable blockers (KDA models but GLM-5 Next, decode CP, two-batch overlap,
        unvalidated A2A backends, multimodal models) and the PD decode role disable it again
        and DeepEP rounds its buckets to multiples of 8; a note says which.
    Why: at the graph parse neither the backend nor the CP layout was known
        (``apply_prefill_cp_cuda_graph_default``).
    Assumes: nothing.
    """
    if not v.enable_prefill_cp:
        return None
    config = v.cuda_graph_config
    if (PREFILL, "backend") in locked(v) or not supports_prefill_cp_graph(v):
        if config[PREFILL]["backend"] != "breakable":
            return Declare({}, "this prefill CP layout runs without a breakable prefill graph")
        return None
    new = with_phase(config, PREFILL, backend="breakable")
    model = v.model
    blocked = (
        (model.uses_kda and "Glm5NextForConditionalGeneration" not in model.architectures)
        or v.dcp_size > 1 or v.enable_two_batch_overlap
        or v.moe_a2a_backend not in BREAKABLE_GRAPH_A2A
        or multimodal_blocks_breakable(v)
    )
    if blocked or v.disaggregation_mode == "decode":
        new = with_phase(new, PREFILL, backend="disabled")
    elif v.moe_a2a_backend == "deepep":
        prefill = new[PREFILL]
        sizes = prefill["bs"] or prefill_sizes(prefill["max_bs"] or 2048)
        aligned = rounded_up(sizes, 8)
        if aligned != as_sequence(sizes):
            new = with_phase(new, PREFILL, bs=aligned, max_bs=largest(aligned))
    if new[PREFILL]["backend"] != "breakable":
        note = "this prefill CP layout runs without a breakable prefill graph"
    else:
        note = "breakable prefill CUDA graph enabled for supported prefill CP"
    return Declare({"cuda_graph_config": new} if new != config else {}, note)


# --- P29: KV-cache sharding ------------------------------------------------------------------

_KV_SHARD_READS = BACKEND_FIELDS + (
    "enable_kv_cache_sharding", "disaggregation_mode", "speculative_algorithm",
    "speculative_eagle_topk", "enable_multi_layer_eagle", "dllm_algorithm",
    "radix_cache_backend", "enable_unified_memory", "dcp_size", "enable_lmcache",
    "enable_hisparse", "enable_two_batch_overlap", "enable_prefill_cp", "attn_cp_size",
    "attn_dp_size", "ep_join_mode", "tp_size", "page_size", "chunked_prefill_size",
    "cuda_graph_config", "disaggregation_transfer_backend", "enable_streaming_session",
    "enable_session_radix_cache", "enable_flexkv", "enable_unified_cache_external_linker",
    "mem_fraction_static", "disable_chunked_prefix_cache", "disable_radix_cache",
    "enable_hierarchical_cache", "hicache_storage_backend", "hicache_host_memory_mode",
    "hicache_io_backend", "hicache_mem_layout", "enable_dynamic_chunking", "pp_size", "device",
    "cp_strategy", "dsa_prefill_backend", "dsa_decode_backend", "kv_cache_dtype",
    "enable_dsa_cache_layer_split")
_KV_SHARD_FACTS = ("model.is_mla", "model.arch0", "target.memory_mib", "model.is_deepseek_dsa",
                   "model.num_nextn_predict_layers", "model.is_encoder_decoder",
                   "model.attention_chunk_size", "model.config")


_TREE_CORE_ENV = "SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND"


def _kv_sharding(v: Any, tree_core_default: str = "python") -> Declare | Refuse | None:
    """``tree_core_default``: the radix tree core KV sharding meets when the environment names
    none (0.5.23 picks Python for it; 0.5.22 keeps the general default, Rust)."""
    if not v.enable_kv_cache_sharding:
        return None
    if v.disaggregation_mode != "prefill":
        return Refuse("--enable-kv-cache-sharding runs only on PD prefill servers: each rank "
                      "holds only its stripe of every page")
    model = v.model
    if v.speculative_algorithm is not None and not (
            v.speculative_algorithm == "EAGLE" and model.arch0 == "GlmMoeDsaForCausalLM"
            and model.num_nextn_predict_layers == 1
            and v.speculative_eagle_topk == 1 and not v.enable_multi_layer_eagle):
        return Refuse("KV sharding supports speculative decoding only for GLM DSA single-layer "
                      "NextN MTP with EAGLE and top-k 1")
    for flag, what in (("dllm_algorithm", "diffusion language models"),
                       ("radix_cache_backend", "another radix cache backend"),
                       ("enable_unified_cache_external_linker", "the external cache linker"),
                       ("enable_streaming_session", "streaming sessions"),
                       ("enable_session_radix_cache", "the session radix cache"),
                       ("enable_flexkv", "FlexKV"), ("enable_unified_memory", "unified memory")):
        if v[flag]:
            return Refuse(f"--enable-kv-cache-sharding does not support {what}")
        if flag == "radix_cache_backend":
            core = str(v.record.env.get(_TREE_CORE_ENV, tree_core_default)).strip().lower()
            if not v.disable_radix_cache and core != "python":
                return Refuse("--enable-kv-cache-sharding needs the Python radix tree core; "
                              f"{_TREE_CORE_ENV}={core!r} is not supported for sharded KV")
    if v.dcp_size > 1:
        return Refuse("--enable-kv-cache-sharding and decode context parallelism are "
                      "mutually exclusive")
    refusal = _kv_sharding_layout_problem(v)
    if refusal is not None:
        return refusal
    prefill = effective_backends(v)[0]
    if prefill == "dsa":
        refusal = _dsa_kv_sharding_problem(v)
        if refusal is not None:
            return refusal
    elif model.is_deepseek_dsa:
        return Refuse("DSA KV sharding needs the dsa attention backend")
    if prefill not in ("fa3", "trtllm_mla", "dsa"):
        return Refuse("--enable-kv-cache-sharding needs the fa3 prefill backend, or "
                      f"trtllm_mla for plain-TP MLA; got {prefill}")
    if prefill == "trtllm_mla":
        if not model.is_mla:
            return Refuse("KV sharding with trtllm_mla needs an MLA model")
        if v.attn_cp_size > 1:
            return Refuse("KV sharding with trtllm_mla supports plain-TP MLA only")
        if v.disable_chunked_prefix_cache:
            return Refuse("KV sharding with trtllm_mla needs chunked prefix caching")
    if v.disaggregation_transfer_backend not in ("mooncake", "nixl"):
        return Refuse("--enable-kv-cache-sharding supports the mooncake and nixl transfer "
                      f"backends only, not {v.disaggregation_transfer_backend}")
    if v.record.env_flag("SGLANG_DISAGG_STAGING_BUFFER"):
        return Refuse("--enable-kv-cache-sharding cannot send through "
                      "SGLANG_DISAGG_STAGING_BUFFER (it assumes contiguous slices)")
    if model.is_mla:
        if v.attn_cp_size <= 1 and attn_dp_enabled(v):
            return Refuse("KV sharding for MLA without prefill CP needs plain TP attention")
        if v.attn_cp_size <= 1 and v.tp_size <= 1:
            return Refuse("KV sharding for MLA without prefill CP needs tp_size > 1")
    elif not v.enable_prefill_cp or v.attn_cp_size <= 1:
        return Refuse("KV sharding for GQA models shards across CP ranks: it needs "
                      "--enable-prefill-cp with attn_cp_size > 1")
    page = v.page_size if v.page_size is not None else 1
    if page <= 1:
        return Refuse("--enable-kv-cache-sharding needs a page size above 1 (64 recommended): "
                      "the page is the transfer and gather unit")
    chunk = v.chunked_prefill_size
    if chunk is None or chunk <= 0:
        return Refuse("--enable-kv-cache-sharding needs chunked prefill")
    out: dict[str, Any] = {}
    notes = []
    if chunk % page:
        rounded = -(-chunk // page) * page
        out["chunked_prefill_size"] = rounded
        notes.append(f"chunked_prefill_size {chunk} -> {rounded} (a multiple of the page)")
        delta = 1.5 * (max(rounded, 2048) - max(chunk, 2048))
        if not v.explicit("mem_fraction_static") and delta > 0:
            memory = v.target.memory_mib
            if not memory or v.mem_fraction_static is None:
                return Refuse("cannot round the chunk for KV sharding without the GPU memory; "
                              f"pass a multiple of {page}")
            fraction = float(v.mem_fraction_static) - delta / memory
            if fraction <= 0:
                return Refuse(f"rounding the chunk would use all reserved memory; pass a "
                              f"smaller multiple of {page}")
            out["mem_fraction_static"] = fraction
    config = v.cuda_graph_config
    new = config
    if new[PREFILL]["backend"] != "disabled":
        new = with_phase(new, PREFILL, backend="disabled")
        notes.append("prefill CUDA graph disabled: KV sharding cannot be captured")
    if v.speculative_algorithm is not None:
        new = with_phase(new, DECODE, backend="disabled")
    if new != config:
        out["cuda_graph_config"] = new
    return Declare(out, "; ".join(notes) or None) if out else None


def _kv_sharding_layout_problem(v: Any) -> Refuse | None:
    """The HiCache, chunking and model-shape limits of KV sharding, in SGLang's order."""
    model = v.model
    hicache = v.enable_hierarchical_cache
    for hit, what in (
        (hicache and v.hicache_storage_backend is not None,
         "--enable-kv-cache-sharding keeps HiCache on the host only: no "
         "--hicache-storage-backend (storage moves whole pages)"),
        (hicache and model.is_deepseek_dsa and v.hicache_host_memory_mode != "cache",
         "KV-sharded DSA HiCache needs --hicache-host-memory-mode cache"),
        (hicache and model.is_deepseek_dsa and (
            v.hicache_io_backend != "kernel"
            or v.hicache_mem_layout not in ("layer_first", "page_first")),
         "KV-sharded DSA HiCache needs kernel I/O with the layer_first or page_first layout"),
        (v.enable_lmcache, "--enable-kv-cache-sharding does not support LMCache"),
        (v.enable_hisparse, "--enable-kv-cache-sharding does not support HiSparse"),
        (v.enable_dynamic_chunking and v.pp_size > 1,
         "--enable-kv-cache-sharding does not support dynamic chunking under pipeline "
         "parallelism (its chunks can outgrow the shard scratch)"),
        (v.enable_two_batch_overlap,
         "--enable-kv-cache-sharding does not support two-batch overlap"),
        (model.is_encoder_decoder,
         "--enable-kv-cache-sharding does not support encoder-decoder models"),
        (model.attention_chunk_size is not None,
         "--enable-kv-cache-sharding does not support chunked local attention"),
    ):
        if hit:
            return Refuse(what)
    return None


def _dsa_kv_sharding_problem(v: Any) -> Refuse | None:
    """What the dsa prefill backend needs to shard KV (0.5.23's DSA sub-checks)."""
    config = v.model.config
    if (v.device != "cuda" or not v.enable_prefill_cp or v.attn_cp_size <= 1
            or v.cp_strategy != "interleave" or v.pp_size != 1):
        return Refuse("DSA KV sharding needs interleave prefill CP wider than 1 on CUDA, "
                      "at pp_size 1")
    if (v.dsa_prefill_backend != "trtllm" or v.dsa_decode_backend != "trtllm"
            or v.kv_cache_dtype != "fp8_e4m3" or v.page_size != 64):
        return Refuse("DSA KV sharding needs the trtllm DSA backends for prefill and decode, "
                      "an fp8_e4m3 KV cache and page size 64")
    if (v.disaggregation_transfer_backend != "mooncake" or v.enable_dsa_cache_layer_split
            or config.get("index_kpool", 1) != 1 or config.get("index_kpool_compress", False)):
        return Refuse("DSA KV sharding needs mooncake, an uncompressed index_kpool of 1 and "
                      "no DSA cache-layer split")
    return None


@rule(
    phase=Phase.PARALLEL,
    reads=_KV_SHARD_READS,
    writes=("chunked_prefill_size", "mem_fraction_static", "cuda_graph_config"),
    facts=_KV_SHARD_FACTS,
    sglang="handle_kv_cache_sharding",
    triggers=("enable_kv_cache_sharding",),
)
def kv_cache_sharding(v: View) -> Declare | Refuse | None:
    """Logical-page KV sharding (PD prefill only): validation, page-aligned chunk, eager prefill.

    When: ``enable_kv_cache_sharding`` is true.
    Effect: refuses (one line naming the conflict) a role other than PD prefill; speculation
        other than GLM DSA single-layer NextN EAGLE top-k 1; DLLM, other radix backends, a
        radix cache on a tree core other than Python (the default for sharding), the
        external linker, sessions, FlexKV, unified memory, decode CP, HiCache storage (L3),
        DSA HiCache other than a cache-mode host with kernel I/O on layer_first or
        page_first, LMCache, HiSparse, dynamic chunking under PP, TBO, encoder-decoder and
        chunked-attention models; a prefill backend other than fa3 (or trtllm_mla for
        plain-TP MLA, or dsa: then interleave prefill CP > 1 on CUDA at PP 1, trtllm DSA
        backends, fp8_e4m3 KV, page 64, mooncake, index_kpool 1 uncompressed, no cache-layer
        split; a DSA model needs dsa); transports other than mooncake/nixl, or a staging
        buffer; layouts without the needed TP or CP; page 1; chunking off.
        Rounds ``chunked_prefill_size`` up to the page (an automatic ``mem_fraction_static``
        pays for the larger activations) and disables the prefill graph (and the decode graph
        under speculation) in ``cuda_graph_config``, even when chosen.
    Why: a rank stores only its stripe of each page, so pages are the transfer and gather unit,
        and graphs cannot replay the per-batch gather plan (``handle_kv_cache_sharding``).
    Assumes: nothing.
    """
    return _kv_sharding(v)


@rule(
    phase=Phase.LATE,
    reads=_KV_SHARD_READS,
    writes=("chunked_prefill_size", "mem_fraction_static", "cuda_graph_config"),
    facts=_KV_SHARD_FACTS,
    sglang="handle_kv_cache_sharding (second run)",
    triggers=("enable_kv_cache_sharding",),
)
def kv_cache_sharding_recheck(v: View) -> Declare | Refuse | None:
    """KV sharding re-checked over the final view: capability rules may change backends late.

    When: ``enable_kv_cache_sharding`` is true.
    Effect: the same refusals and declarations as ``kv_cache_sharding``, now over the values
        every later rule left.
    Why: SGLang runs ``handle_kv_cache_sharding`` a second time at the end of resolution.
    Assumes: nothing.
    """
    return _kv_sharding(v)


def _kv_sharding_0_5_22(v: Any) -> Declare | Refuse | None:
    """0.5.22's narrower KV sharding: no speculation, no HiCache, no DSA model."""
    if not v.enable_kv_cache_sharding or v.disaggregation_mode != "prefill":
        return _kv_sharding(v)
    if v.speculative_algorithm is not None:
        return Refuse("--enable-kv-cache-sharding does not support speculative decoding in "
                      "this release")
    if v.enable_hierarchical_cache:
        return Refuse("--enable-kv-cache-sharding does not support the hierarchical cache in "
                      "this release: HiCache moves whole pages")
    if v.model.is_deepseek_dsa or effective_backends(v)[0] == "dsa":
        return Refuse("--enable-kv-cache-sharding does not support DSA models in this release "
                      "(their indexer buffers are not striped)")
    return _kv_sharding(v, tree_core_default="rust")


_KV_SHARD_0_5_22 = dict(
    reads=_KV_SHARD_READS,
    writes=("chunked_prefill_size", "mem_fraction_static", "cuda_graph_config"),
    facts=_KV_SHARD_FACTS,
    triggers=("enable_kv_cache_sharding",),
)


@rule(name="kv_cache_sharding", variant="0.5.22", phase=Phase.PARALLEL, **_KV_SHARD_0_5_22,
      sglang="handle_kv_cache_sharding (0.5.22)")
def kv_cache_sharding_0_5_22(v: View) -> Declare | Refuse | None:
    """0.5.22: as ``kv_cache_sharding``, without speculation, HiCache or DSA models.

    When: ``enable_kv_cache_sharding`` is true.
    Effect: as ``kv_cache_sharding``; besides, on a PD prefill server any speculative decoding,
        ``--enable-hierarchical-cache`` and a DSA model (or the dsa prefill backend) are
        refused, and so is a radix cache on the default (Rust) tree core: only
        SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND=python, or no radix cache, shards.
    Why: 0.5.23 admitted GLM DSA NextN speculation, HiCache host offload and DSA sharding
        (``handle_kv_cache_sharding`` in 0.5.22 refuses all three).
    Assumes: as ``kv_cache_sharding``.
    """
    return _kv_sharding_0_5_22(v)


@rule(name="kv_cache_sharding_recheck", variant="0.5.22", phase=Phase.LATE,
      **_KV_SHARD_0_5_22, sglang="handle_kv_cache_sharding (second run, 0.5.22)")
def kv_cache_sharding_recheck_0_5_22(v: View) -> Declare | Refuse | None:
    """0.5.22: ``kv_cache_sharding_0_5_22`` re-checked over the final view.

    When: ``enable_kv_cache_sharding`` is true.
    Effect: the refusals and declarations of ``kv_cache_sharding_0_5_22`` over the values every
        later rule left.
    Why: 0.5.22 runs ``handle_kv_cache_sharding`` a second time at the end too.
    Assumes: as ``kv_cache_sharding``.
    """
    return _kv_sharding_0_5_22(v)


# --- P31 -------------------------------------------------------------------------------------


@rule(
    phase=Phase.MOE,
    reads=("pp_size", "disable_overlap_schedule"),
    writes=("disable_overlap_schedule",),
    sglang="_pipeline_parallel_overlap_disable",
    triggers=("pp_size",),
)
def pipeline_parallel_overlap_disable(v: View) -> Declare | None:
    """Pipeline parallelism has its own micro-batch overlap: the overlap schedule goes off.

    When: ``pp_size`` > 1.
    Effect: declares ``disable_overlap_schedule`` True.
    Why: the PP scheduler overlaps micro-batches itself
        (``_pipeline_parallel_overlap_disable``).
    Assumes: nothing.
    """
    if v.pp_size > 1:
        return Declare({"disable_overlap_schedule": True},
                       "pipeline parallelism is incompatible with the overlap schedule")
    return None
