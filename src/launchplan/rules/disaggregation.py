"""Prefill/decode (PD) disaggregation: the role a server plays changes its caches and slots.

A PD decode server receives finished prefills over the network, so by default it keeps no
radix (prefix) cache of its own; a PD prefill server never decodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from launchplan.engine.declarations import Declare, Refuse, arithmetic_refusal
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.parallel import attn_dp_enabled, dp_attention_switch_0_5_21

DECODE_DCP_TRANSPORTS = frozenset({"mooncake", "nixl", "mori", "ascend", "fake"})


@rule(
    phase=Phase.MODEL_SOURCE,
    reads=("disaggregation_transfer_backend",),
    writes=("disaggregation_transfer_backend", "disaggregation_ib_device"),
    triggers=("disaggregation_transfer_backend",),
    sglang="handle_pd_disaggregation (mooncake_tcp)",
    normalizes=True,
)
def mooncake_tcp_transport(v: View) -> Declare | None:
    """``mooncake_tcp`` is Mooncake with its TCP transport forced: no RDMA device is chosen.

    When: ``disaggregation_transfer_backend`` is mooncake_tcp.
    Effect: declares ``disaggregation_transfer_backend`` mooncake and
        ``disaggregation_ib_device`` None.
    Why: SGLang rewrites the alias and sets MC_FORCE_TCP=1 for Mooncake
        (``handle_pd_disaggregation``).
    Assumes: nothing.
    """
    if v.disaggregation_transfer_backend != "mooncake_tcp":
        return None
    return Declare({"disaggregation_transfer_backend": "mooncake",
                    "disaggregation_ib_device": None},
                   "mooncake_tcp is Mooncake over TCP (SGLang sets MC_FORCE_TCP=1)")


@rule(
    phase=Phase.MODEL_SOURCE,
    reads=("disaggregation_decode_allocation_policy", "disaggregation_mode",
           "disaggregation_transfer_backend", "pp_size", "attn_cp_size", "dcp_size", "tp_size",
           "dp_size", "enable_dp_attention", "enable_pdmux", "decoupled_spec_role",
           "enable_pd_role_switch", "encoder_only", "language_only", "enable_hisparse",
           "disaggregation_decode_host_receive_threshold",
           "disaggregation_decode_enable_radix_cache", "enable_hierarchical_cache",
           "hicache_storage_backend", "hicache_write_policy"),
    sglang="handle_pd_disaggregation (_validate_prefill_complete)",
    triggers={"disaggregation_decode_allocation_policy": ("prefill_complete",)},
)
def prefill_complete_allocation_checks(v: View) -> Refuse | None:
    """The prefill_complete decode allocation runs in a narrow PD layout only.

    When: ``--disaggregation-decode-allocation-policy prefill_complete``.
    Effect: refuses, naming every missing piece at once: aggregated serving (no PD mode), a
        transfer backend other than mooncake, PP, attention CP or decode CP, attention TP
        above 1 (``tp_size`` other than the attention-DP width, counted from
        ``--enable-dp-attention --dp-size`` as SGLang does after its DP-attention alias, so
        any TP above 1), PD multiplexing or decoupled speculation, role switching, encoder
        disaggregation, HiSparse, decode host KV buffering, a decode radix cache or HiCache,
        a prefill HiCache other than L2 write_back, staging buffers, the Rust bootstrap
        registry.
    Why: decode allocates a request's KV only once prefill has finished, which the other
        layouts cannot signal (``_validate_prefill_complete`` in ``handle_pd_disaggregation``).
    Assumes: SGLANG_DISAGG_STAGING_BUFFER and SGLANG_RUST_SERVER are unset unless the
        environment given sets them.
    """
    if v.disaggregation_decode_allocation_policy != "prefill_complete":
        return None
    mode = v.disaggregation_mode
    attn_dp = v.dp_size if v.enable_dp_attention else 1
    gaps = [name for name, hit in (
        ("aggregated serving", mode not in ("prefill", "decode")),
        ("transfer backends other than mooncake", v.disaggregation_transfer_backend
         != "mooncake"),
        ("pipeline or attention context parallelism",
         v.pp_size != 1 or v.attn_cp_size != 1 or v.dcp_size != 1),
        ("attention tensor parallelism greater than one", v.tp_size != attn_dp),
        ("PD multiplexing or decoupled speculation",
         v.enable_pdmux or v.decoupled_spec_role != "null"),
        ("runtime PD role switching", v.enable_pd_role_switch),
        ("encoder disaggregation", v.encoder_only or v.language_only),
        ("HiSparse", v.enable_hisparse),
        ("decode host KV buffering", v.disaggregation_decode_host_receive_threshold < 1),
        ("decode radix cache or decode HiCache", mode == "decode" and (
            v.disaggregation_decode_enable_radix_cache or v.enable_hierarchical_cache)),
        ("prefill HiCache other than L2 write_back", mode == "prefill"
         and v.enable_hierarchical_cache and (v.hicache_storage_backend is not None
                                              or v.hicache_write_policy != "write_back")),
        ("staging buffers", v.record.env_flag("SGLANG_DISAGG_STAGING_BUFFER")),
        ("the Rust bootstrap registry", v.record.env_flag("SGLANG_RUST_SERVER")),
    ) if hit]
    if gaps:
        return Refuse("--disaggregation-decode-allocation-policy prefill_complete does not "
                      "support " + ", ".join(gaps))
    return None


#: What the PD transfer knobs read and write, in every release.
_PD_TRANSFER = dict(
    phase=Phase.MODEL_SOURCE,
    reads=("disaggregation_mode", "disaggregation_decode_allocation_policy",
           "optimistic_prefill_attempts", "disaggregation_decode_host_receive_threshold",
           "enable_hisparse", "enable_pd_role_switch", "disaggregation_decode_retraction_backup",
           "dcp_size", "disaggregation_transfer_backend"),
    writes=("optimistic_prefill_attempts", "disaggregation_decode_retraction_backup"),
    triggers=("disaggregation_decode_allocation_policy",
              "disaggregation_decode_host_receive_threshold", "dcp_size"),
)


@rule(**_PD_TRANSFER, sglang="handle_pd_disaggregation (allocation, host receive, decode DCP)")
def pd_transfer_settings(v: View) -> Declare | Refuse | None:
    """PD transfer knobs that depend on each other.

    When: whenever its promises hold.
    Effect: a ``prefill_complete`` decode allocation on a prefill server with 0 optimistic
        attempts sets ``optimistic_prefill_attempts`` 1; a host-receive threshold outside
        [0, 1] is refused; below 1 it refuses HiSparse, role switching and a cpu_tensor
        retraction backup, and sets ``disaggregation_decode_retraction_backup`` host_pool;
        decode DCP on a PD decode server refuses transports other than mooncake, nixl, mori,
        ascend or fake.
    Why: host-side KV receive buffers in the host pool, which HiSparse and role switching cannot
        use; decode DCP needs a transport that relays KV per DCP rank
        (``handle_pd_disaggregation``).
    Assumes: nothing.
    """
    return _pd_transfer(v, receive_on=lambda t: t < 1, transports=DECODE_DCP_TRANSPORTS)


#: 0.5.21's decode-DCP transports (mori and ascend came in 0.5.22).
DECODE_DCP_TRANSPORTS_0_5_21 = frozenset({"mooncake", "nixl", "fake"})


@rule(name="pd_transfer_settings", variant="0.5.21", **_PD_TRANSFER,
      sglang="handle_pd_disaggregation (0.5.21)")
def pd_transfer_settings_0_5_21(v: View) -> Declare | Refuse | None:
    """0.5.21's PD transfer knobs: host receive is on above 0, fewer decode-DCP transports.

    When: whenever its promises hold.
    Effect: as ``pd_transfer_settings``, except that a host-receive threshold above 0 (the
        default 0 leaves it off) turns decode host KV receive on, and decode DCP on a PD
        decode server takes mooncake, nixl or fake only.
    Why: 0.5.22 turned the threshold around (default 1, on below it) and added the mori and
        ascend transports (``handle_pd_disaggregation`` of each release).
    Assumes: nothing.
    """
    return _pd_transfer(v, receive_on=lambda t: t > 0, transports=DECODE_DCP_TRANSPORTS_0_5_21)


def _pd_transfer(v: View, *, receive_on: Callable[[float], bool], transports: frozenset[str]
                 ) -> Declare | Refuse | None:
    out: dict = {}
    if (v.disaggregation_decode_allocation_policy == "prefill_complete"
            and v.disaggregation_mode == "prefill" and v.optimistic_prefill_attempts == 0):
        out["optimistic_prefill_attempts"] = 1
    threshold = v.disaggregation_decode_host_receive_threshold
    if not 0 <= threshold <= 1:
        return Refuse("--disaggregation-decode-host-receive-threshold must be between 0 and 1, "
                      f"got {threshold}")
    if receive_on(threshold):
        if v.enable_hisparse or v.enable_pd_role_switch:
            return Refuse("decode host KV receive does not support HiSparse or PD role switching")
        if v.disaggregation_decode_retraction_backup == "cpu_tensor":
            return Refuse("decode host KV receive needs --disaggregation-decode-retraction-backup "
                          "host_pool")
        out["disaggregation_decode_retraction_backup"] = "host_pool"
    if (v.disaggregation_mode == "decode" and v.dcp_size > 1
            and v.disaggregation_transfer_backend not in transports):
        return Refuse("decode context parallelism on a PD decode server needs the "
                      f"{', '.join(sorted(transports))} transfer backend, got "
                      f"{v.disaggregation_transfer_backend}")
    return out or None


_PD_ROLES = dict(
    phase=Phase.MODEL_SOURCE,
    reads=("disaggregation_mode", "disaggregation_decode_enable_radix_cache", "enable_hisparse",
           "disaggregation_transfer_backend", "disaggregation_decode_extra_slots",
           "max_running_requests", "dp_size", "attn_dp_size", "speculative_algorithm",
           "disaggregation_bootstrap_port", "port"),
    writes=("disable_radix_cache", "disaggregation_decode_extra_slots",
            "disaggregation_bootstrap_port"),
    triggers=("disaggregation_mode",),
)
# the KV bootstrap port a PD prefill server listens on unless told otherwise (every release)
DEFAULT_BOOTSTRAP_PORT = 8998


@rule(**_PD_ROLES, sglang="handle_pd_disaggregation (decode and prefill roles; "
                          "_alias_bootstrap_port_to_api_port)")
def pd_server_roles(v: View) -> Declare | Refuse | None:
    """A PD decode server keeps no radix cache unless asked, and reserves transfer slots.

    When: ``disaggregation_mode`` is decode (or prefill, for the transport check).
    Effect: refuses the fake transport on a prefill server; under SGLANG_RUST_SERVER a
        prefill server's ``disaggregation_bootstrap_port`` becomes its ``port`` (an explicit
        bootstrap port other than both is refused). On a decode server sets
        ``disable_radix_cache`` True, or False with
        ``--disaggregation-decode-enable-radix-cache`` (experimental; refused with HiSparse or
        the fake transport); an unset ``disaggregation_decode_extra_slots`` becomes twice the
        per-worker batch when that is at most 32, else 0.
    Why: the decode server's prefixes arrive computed from the prefill server, requests
        still in transfer need slots, and the Rust server serves the KV bootstrap registry on
        its api listener (``handle_pd_disaggregation``, decode and prefill roles).
    Assumes: SGLANG_RUST_SERVER is unset unless the environment given sets it; the transfer
        backend is a built-in one (0.5.23 keeps the port of a backend that brings its own
        bootstrap server; every built-in one uses the common registry).
    """
    return _pd_roles(v, speculation_allowed=True, per_worker_floor=1)


@rule(name="pd_server_roles", variant="0.5.22", **_PD_ROLES,
      sglang="handle_pd_disaggregation (0.5.21-0.5.22 decode and prefill roles)")
def pd_server_roles_0_5_22(v: View) -> Declare | Refuse | None:
    """0.5.21-0.5.22: as ``pd_server_roles``; a decode radix cache refuses speculation.

    When: ``disaggregation_mode`` is decode (or prefill, for the transport check).
    Effect: as ``pd_server_roles``, and ``--disaggregation-decode-enable-radix-cache`` with a
        speculative algorithm other than DSPARK is refused; fewer running requests than DP
        ranks reserve no extra decode slots (0.5.23 counts at least one request per worker).
    Why: the decode radix cache did not track draft KV before 0.5.23, which lifted the check
        (``handle_pd_disaggregation`` of each release).
    Assumes: nothing.
    """
    return _pd_roles(v, speculation_allowed=False, per_worker_floor=0)


@rule(name="pd_server_roles", variant="0.5.21", **_PD_ROLES,
      sglang="handle_pd_disaggregation (0.5.21 decode and prefill roles)")
def pd_server_roles_0_5_21(v: View) -> Declare | Refuse | None:
    """0.5.21: as 0.5.22's ``pd_server_roles``, with at least one DP rank to share requests.

    When: as ``pd_server_roles``.
    Effect: as 0.5.22's ``pd_server_roles``, except that a DP width of 0 counts as one rank
        when the running requests are shared out, so it refuses nothing there.
    Why: 0.5.21 divides by ``max(1, dp_size)``; 0.5.22 by the DP ranks as given, which a width
        of 0 stops (``handle_pd_disaggregation`` of each release).
    Assumes: nothing.
    """
    return _pd_roles(v, speculation_allowed=False, per_worker_floor=0, one_rank_at_least=True)


def _pd_roles(v: View, *, speculation_allowed: bool, per_worker_floor: int,
              one_rank_at_least: bool = False) -> Declare | Refuse | None:
    """``per_worker_floor`` 0 (before 0.5.23): fewer running requests than DP ranks reserve
    no extra slots. ``one_rank_at_least`` (0.5.21): a DP width of 0 shares them over one rank;
    later releases divide by it, which fails as SGLang's own division does."""
    mode = v.disaggregation_mode
    if mode == "prefill" and v.disaggregation_transfer_backend == "fake":
        return Refuse("a PD prefill server cannot use the fake transfer backend")
    if mode == "prefill" and v.record.env_flag("SGLANG_RUST_SERVER"):
        return _rust_bootstrap_port(v)
    if mode != "decode":
        return None
    if v.disaggregation_decode_enable_radix_cache:
        if v.enable_hisparse:
            return Refuse("--disaggregation-decode-enable-radix-cache cannot be combined with "
                          "--enable-hisparse")
        if v.disaggregation_transfer_backend == "fake":
            return Refuse("--disaggregation-decode-enable-radix-cache cannot be combined with "
                          "the fake transfer backend")
        if not speculation_allowed and v.speculative_algorithm not in (None, "DSPARK"):
            return Refuse("--disaggregation-decode-enable-radix-cache cannot be combined with "
                          f"speculative decoding ({v.speculative_algorithm}) in this release")
        out: dict = {"disable_radix_cache": False}
        note = "the radix cache on a PD decode server is experimental"
    else:
        out = {"disable_radix_cache": True}
        note = "a PD decode server keeps no radix cache (prefixes arrive from prefill)"
    if v.disaggregation_decode_extra_slots is None:
        slots = 0
        if v.max_running_requests is not None:
            ranks = v.dp_size * v.attn_dp_size
            if one_rank_at_least:
                ranks = max(1, ranks)
            try:
                per_worker = max(per_worker_floor, v.max_running_requests // ranks)
            except ZeroDivisionError as exc:
                return arithmetic_refusal(f"the running requests per PD decode worker "
                                          f"(dp_size {v.dp_size}, attn_dp_size "
                                          f"{v.attn_dp_size})", exc)
            if per_worker <= 32:
                slots = per_worker * 2
        out["disaggregation_decode_extra_slots"] = slots
    return Declare(out, note)


def _rust_bootstrap_port(v: View) -> Declare | Refuse | None:
    """The Rust server answers KV bootstrap requests on the api port: a prefill server's
    bootstrap port is its ``port``, and a third port given for it is refused."""
    port, bootstrap = v.port, v.disaggregation_bootstrap_port
    if bootstrap not in (DEFAULT_BOOTSTRAP_PORT, port):
        return Refuse(f"under SGLANG_RUST_SERVER the KV bootstrap registry is served on the api "
                      f"port: --disaggregation-bootstrap-port {bootstrap} conflicts with "
                      f"--port {port}; drop it")
    if bootstrap == port:
        return None
    return Declare({"disaggregation_bootstrap_port": port},
                   f"SGLANG_RUST_SERVER: the KV bootstrap registry is served on port {port}")


@rule(
    phase=Phase.MODEL_SOURCE,
    reads=("disaggregation_mode", "disaggregation_transfer_backend"),
    sglang="handle_pd_disaggregation (staging buffer)",
    triggers=("disaggregation_mode",),
)
def pd_staging_buffer_transport(v: View) -> Refuse | None:
    """PD KV staging buffers go through Mooncake or NIXL only.

    When: a PD prefill or decode server with SGLANG_DISAGG_STAGING_BUFFER set.
    Effect: refuses a transfer backend other than mooncake or nixl.
    Why: only those two senders stage KV slices through the buffer
        (``handle_pd_disaggregation``, before the role-switch check).
    Assumes: SGLANG_DISAGG_STAGING_BUFFER is unset unless the environment given sets it.
    """
    if (v.disaggregation_mode in ("prefill", "decode")
            and v.record.env_flag("SGLANG_DISAGG_STAGING_BUFFER")
            and v.disaggregation_transfer_backend not in ("mooncake", "nixl")):
        return Refuse("SGLANG_DISAGG_STAGING_BUFFER needs the mooncake or nixl transfer "
                      f"backend, not {v.disaggregation_transfer_backend}")
    return None


_ROLE_SWITCH = dict(
    phase=Phase.MODEL_SOURCE,
    reads=("disaggregation_mode", "enable_pd_role_switch", "ep_size", "moe_a2a_backend",
           "pp_size", "attn_dp_size", "ep_join_mode", "dp_size", "dcp_size",
           "enable_dp_attention_local_control_broadcast", "speculative_algorithm"),
    triggers=("enable_pd_role_switch",),
)


def _role_switch_refusal(v: View, *, dp_layouts: bool,
                         attn_dp_test: Callable[[Any], bool] = attn_dp_enabled) -> Refuse | None:
    """``dp_layouts``: before 0.5.23 any attention DP and any DP replicas were refused too;
    0.5.23 keeps them and refuses only attention DP's local control broadcast.
    ``attn_dp_test``: the release's test of attention DP."""
    if not v.enable_pd_role_switch or v.disaggregation_mode not in ("prefill", "decode"):
        return None
    attn_dp = attn_dp_test(v)
    found = [what for what, hit in (
        ("attention DP", dp_layouts and attn_dp),
        (f"expert parallelism (ep_size {v.ep_size})", v.ep_size > 1),
        (f"MoE all-to-all ({v.moe_a2a_backend})", v.moe_a2a_backend != "none"),
        (f"pipeline parallelism (pp_size {v.pp_size})", v.pp_size > 1),
        ("attention DP's local control broadcast", not dp_layouts and attn_dp
         and v.enable_dp_attention_local_control_broadcast),
        (f"data-parallel replicas (dp_size {v.dp_size})", dp_layouts and v.dp_size > 1),
        (f"decode context parallelism (dcp_size {v.dcp_size})", v.dcp_size > 1),
        (f"speculative decoding ({v.speculative_algorithm})",
         v.speculative_algorithm is not None),
    ) if hit]
    if found:
        return Refuse("--enable-pd-role-switch cannot carry over the role-specific state of "
                      + ", ".join(found))
    return None


@rule(**_ROLE_SWITCH, sglang="handle_pd_disaggregation (role switch)")
def pd_role_switch_checks(v: View) -> Refuse | None:
    """A server that may flip between PD prefill and decode refuses features tied to a role.

    When: ``--enable-pd-role-switch`` on a PD prefill or decode server.
    Effect: refuses, naming them all, EP above 1, a MoE all-to-all backend other than none,
        PP above 1, attention DP with its local control broadcast, decode CP above 1 and any
        speculative algorithm.
    Why: a role flip does not rebuild the state these set up for one role
        (``handle_pd_disaggregation``, after the staging-buffer check).
    Assumes: nothing.
    """
    return _role_switch_refusal(v, dp_layouts=False)


@rule(name="pd_role_switch_checks", variant="0.5.22", **_ROLE_SWITCH,
      sglang="handle_pd_disaggregation (role switch, 0.5.22)")
def pd_role_switch_checks_0_5_22(v: View) -> Refuse | None:
    """0.5.22: the role-switch refusals, with any attention DP or DP replicas too.

    When: ``--enable-pd-role-switch`` on a PD prefill or decode server.
    Effect: as ``pd_role_switch_checks``, but attention DP of any width and ``dp_size`` above
        1 are refused outright.
    Why: 0.5.23 narrowed the DP refusals to the local control broadcast
        (``handle_pd_disaggregation`` of each release).
    Assumes: nothing.
    """
    return _role_switch_refusal(v, dp_layouts=True)


@rule(name="pd_role_switch_checks", variant="0.5.21",
      **{**_ROLE_SWITCH, "reads": _ROLE_SWITCH["reads"] + ("enable_dp_attention",)},
      sglang="handle_pd_disaggregation (role switch, 0.5.21)")
def pd_role_switch_checks_0_5_21(v: View) -> Refuse | None:
    """0.5.21: as the 0.5.22 variant, with attention DP read from 0.5.21's switch.

    When: ``--enable-pd-role-switch`` on a PD prefill or decode server.
    Effect: as the 0.5.22 variant, but ``--enable-dp-attention`` is refused with one DP group
        too, and a scale-up joiner without the switch is not.
    Why: 0.5.21 tests ``enable_dp_attention``, which it clears with one DP group only later,
        in ``handle_data_parallelism``.
    Assumes: nothing.
    """
    return _role_switch_refusal(v, dp_layouts=True, attn_dp_test=dp_attention_switch_0_5_21)
