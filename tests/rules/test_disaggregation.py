"""PD disaggregation rules on a view."""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules.disaggregation import (
    mooncake_tcp_transport,
    pd_server_roles,
    pd_server_roles_0_5_21,
    pd_server_roles_0_5_22,
    pd_transfer_settings,
    prefill_complete_allocation_checks,
)
from tests.rules.conftest import make_view


def test_decode_server_turns_the_radix_cache_off_unless_asked():
    out = pd_server_roles(make_view(disaggregation_mode="decode"))
    assert isinstance(out, Declare) and out.fields["disable_radix_cache"] is True
    out = pd_server_roles(make_view(disaggregation_mode="decode",
                                    disaggregation_decode_enable_radix_cache=True))
    assert out.fields["disable_radix_cache"] is False
    assert pd_server_roles(make_view()) is None
    assert pd_server_roles(make_view(disaggregation_mode="prefill")) is None


def test_decode_extra_slots_over_a_dp_width_of_zero():
    # 0.5.22 on share the requests over dp_size x attn_dp_size unchecked; 0.5.21 over at least 1
    for zero in (dict(dp_size=0), dict(attn_dp_size=0)):
        view = make_view(disaggregation_mode="decode", max_running_requests=16, **zero)
        for rule in (pd_server_roles, pd_server_roles_0_5_22):
            out = rule(view)
            assert isinstance(out, Refuse) and "ZeroDivisionError" in out.message
        assert pd_server_roles_0_5_21(view).fields["disaggregation_decode_extra_slots"] == 32
        # without a request cap nothing is divided
        assert isinstance(pd_server_roles(make_view(disaggregation_mode="decode", **zero)),
                          Declare)


def test_decode_extra_slots_for_small_batches():
    out = pd_server_roles(make_view(disaggregation_mode="decode", max_running_requests=64,
                                    attn_dp_size=4))
    assert out.fields["disaggregation_decode_extra_slots"] == 32
    out = pd_server_roles(make_view(disaggregation_mode="decode", max_running_requests=512))
    assert out.fields["disaggregation_decode_extra_slots"] == 0


def test_refusals():
    assert isinstance(pd_server_roles(make_view(disaggregation_mode="prefill",
                                                disaggregation_transfer_backend="fake")), Refuse)
    assert isinstance(pd_server_roles(make_view(
        disaggregation_mode="decode", disaggregation_decode_enable_radix_cache=True,
        enable_hisparse=True)), Refuse)
    assert isinstance(pd_transfer_settings(make_view(
        disaggregation_decode_host_receive_threshold=1.5)), Refuse)
    assert isinstance(pd_transfer_settings(make_view(
        disaggregation_mode="decode", dcp_size=2, disaggregation_transfer_backend="nope")),
        Refuse)


def test_transfer_settings_and_mooncake_tcp():
    out = pd_transfer_settings(make_view(disaggregation_decode_host_receive_threshold=0.5))
    assert out == {"disaggregation_decode_retraction_backup": "host_pool"}
    out = pd_transfer_settings(make_view(disaggregation_mode="prefill",
                                         disaggregation_decode_allocation_policy="prefill_complete"))
    assert out == {"optimistic_prefill_attempts": 1}
    out = mooncake_tcp_transport(make_view(disaggregation_transfer_backend="mooncake_tcp"))
    assert out.fields == {"disaggregation_transfer_backend": "mooncake",
                          "disaggregation_ib_device": None}


def test_prefill_complete_allocation_needs_a_plain_pd_layout():
    """Recorded: wild run 1 (prefill_complete without PD mode and with attention TP) is refused
    by SGLang with every missing piece named."""
    check = prefill_complete_allocation_checks
    policy = dict(disaggregation_decode_allocation_policy="prefill_complete")
    out = check(make_view(tp_size=4, **policy))
    assert isinstance(out, Refuse)
    assert "aggregated serving" in out.message and "attention tensor" in out.message
    assert check(make_view(disaggregation_mode="decode", **policy)) is None
    # attention DP spelled --enable-dp-attention --dp-size: SGLang counts it as attention DP
    assert check(make_view(disaggregation_mode="prefill", tp_size=2, dp_size=2,
                           enable_dp_attention=True, **policy)) is None
    for bad in (dict(disaggregation_transfer_backend="nixl"), dict(pp_size=2),
                dict(disaggregation_decode_host_receive_threshold=0.5),
                dict(disaggregation_decode_enable_radix_cache=True),
                dict(enable_hierarchical_cache=True)):
        assert isinstance(check(make_view(disaggregation_mode="decode", **policy, **bad)),
                          Refuse), bad
    assert isinstance(check(make_view(disaggregation_mode="decode",
                                      env={"SGLANG_RUST_SERVER": "1"}, **policy)), Refuse)
    assert check(make_view(disaggregation_mode="decode")) is None


def test_pd_role_switch_refuses_what_a_role_flip_cannot_rebuild():
    from launchplan.rules.disaggregation import (
        pd_role_switch_checks,
        pd_role_switch_checks_0_5_22,
    )

    def switch(rule=pd_role_switch_checks, **values):
        return rule(make_view(enable_pd_role_switch=True, **values))

    assert switch(disaggregation_mode="prefill") is None
    assert switch(pp_size=2) is None  # not a PD server: nothing is checked
    for values in (dict(ep_size=2), dict(moe_a2a_backend="deepep"), dict(pp_size=2),
                   dict(dcp_size=2), dict(speculative_algorithm="NGRAM"),
                   dict(attn_dp_size=2, enable_dp_attention_local_control_broadcast=True)):
        out = switch(disaggregation_mode="decode", **values)
        assert isinstance(out, Refuse), values
    out = switch(disaggregation_mode="decode", pp_size=2, speculative_algorithm="NGRAM")
    assert "pipeline" in out.message and "NGRAM" in out.message  # every feature named
    # 0.5.23 keeps attention DP (without the local broadcast) and DP replicas; before, no
    for values in (dict(attn_dp_size=2), dict(dp_size=2), dict(ep_join_mode="scale")):
        assert switch(disaggregation_mode="prefill", **values) is None, values
        assert isinstance(switch(pd_role_switch_checks_0_5_22, disaggregation_mode="prefill",
                                 **values), Refuse), values


def test_staging_buffers_need_mooncake_or_nixl():
    from launchplan.rules.disaggregation import pd_staging_buffer_transport

    staging = {"SGLANG_DISAGG_STAGING_BUFFER": "1"}
    for mode, backend, refused in (("decode", "mori", True), ("prefill", "fake", True),
                                   ("prefill", "nixl", False), ("decode", "mooncake", False),
                                   ("null", "mori", False)):
        out = pd_staging_buffer_transport(make_view(
            env=staging, disaggregation_mode=mode, disaggregation_transfer_backend=backend))
        assert isinstance(out, Refuse) is refused, (mode, backend)
    assert pd_staging_buffer_transport(make_view(
        disaggregation_mode="decode", disaggregation_transfer_backend="mori")) is None


def test_rust_server_prefill_serves_kv_bootstrap_on_the_api_port():
    """Every release: under SGLANG_RUST_SERVER a prefill server's bootstrap port is its api
    port; a third port given for it is refused; decode servers keep theirs."""
    from launchplan.rules.disaggregation import (
        pd_server_roles,
        pd_server_roles_0_5_21,
        pd_server_roles_0_5_22,
    )

    rust = {"SGLANG_RUST_SERVER": "1"}
    for rule in (pd_server_roles, pd_server_roles_0_5_22, pd_server_roles_0_5_21):
        def roles(env=rust, rule=rule, **values):
            return rule(make_view(env=env, **{"disaggregation_mode": "prefill", "port": 31000,
                                              "disaggregation_bootstrap_port": 8998, **values}))
        assert roles().fields == {"disaggregation_bootstrap_port": 31000}
        assert roles(disaggregation_bootstrap_port=31000) is None
        assert isinstance(roles(disaggregation_bootstrap_port=9100), Refuse)
        assert roles(env={}) is None
        assert "disaggregation_bootstrap_port" not in rule(make_view(
            env=rust, disaggregation_mode="decode", port=31000,
            disaggregation_bootstrap_port=8998)).fields
