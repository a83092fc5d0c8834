"""PD disaggregation rules on a view."""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules.disaggregation import (
    mooncake_tcp_transport,
    pd_server_roles,
    pd_transfer_settings,
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
