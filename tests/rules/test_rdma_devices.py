"""The RDMA device check's normal form and refusals (``rules/rdma_devices.py``), and the two
rules that hand their flags through it."""

from __future__ import annotations

import json

import pytest

from launchplan.engine.declarations import Declare, Refuse
from launchplan.facts.targets import get_target, with_overrides
from launchplan.rules import encoder_disaggregation as enc
from launchplan.rules import expert_parallel as ep
from launchplan.rules.rdma_devices import checked_devices
from tests.rules.conftest import make_view

FLAG = "--disaggregation-ib-device"


@pytest.mark.parametrize(("given", "normal"), [
    ("mlx5_0", "mlx5_0"),
    (" mlx5_0, mlx5_1 ,mlx5_2 ", "mlx5_0,mlx5_1,mlx5_2"),
    ("mlx5_1,mlx5_0,mlx5_1,mlx5_0", "mlx5_1,mlx5_0"),  # the first of each name, in order
    (",mlx5_0,,mlx5_1,", "mlx5_0,mlx5_1"),
    ('["mlx5_0"]', '["mlx5_0"]'),  # not an object: one (odd) device name
    ('{ "1" : " mlx5_1 , mlx5_1 ", "0":"mlx5_0" }', '{"1":"mlx5_1","0":"mlx5_0"}'),
    ('{"00": "mlx5_0", "01": "mlx5_1"}', '{"0":"mlx5_0","1":"mlx5_1"}'),
    ('{"0": "mlx5_0", "00": "mlx5_1"}', '{"0":"mlx5_1"}'),  # one GPU: the later list
    ('  {"0": "mlx5_0"}  ', '{"0":"mlx5_0"}'),
    ('{"\u0663": "mlx5_0"}', '{"3":"mlx5_0"}'),  # a decimal digit of another script
    ('{"0": "d\u00e9v"}', '{"0":"d\\u00e9v"}'),  # re-serialised in ASCII
    ("/etc/mooncake/ib.json", "/etc/mooncake/ib.json"),  # the host's file: passed through
])
def test_a_device_value_takes_the_check_s_normal_form(given, normal):
    assert checked_devices(FLAG, given) == normal
    assert checked_devices(FLAG, normal) == normal  # the normal form is a fixed point


@pytest.mark.parametrize("given", [
    "", "   ", ", ,", "{}", '{"0": "mlx5_0",}', "{bad", '{"gpu0": "mlx5_0"}',
    '{"-1": "mlx5_0"}', '{"0": ["mlx5_0"]}', '{"0": 5}', '{"0": null}',
    '{"0": "mlx5_0", "1": " , "}', '{"\u00b2": "mlx5_0"}',
])
def test_a_value_that_names_no_device_or_is_malformed_is_refused(given):
    out = checked_devices(FLAG, given)
    assert isinstance(out, Refuse) and out.message.startswith(FLAG)


def test_unset_stays_unset():
    assert checked_devices(FLAG, None) is None


def fields(out: object) -> dict:
    assert isinstance(out, Declare), out
    return out.fields


def test_the_rules_declare_the_normal_form():
    out = enc.encoder_disaggregation_checks(make_view(
        disaggregation_mode="prefill", disaggregation_transfer_backend="mooncake",
        disaggregation_ib_device=" mlx5_0,mlx5_0 "))
    assert fields(out)["disaggregation_ib_device"] == "mlx5_0"
    out = ep.elastic_ep_checks(make_view(elastic_ep_backend="mooncake",
                                         mooncake_ib_device='{"1": "b", "0": "a,a"}'))
    assert json.loads(fields(out)["mooncake_ib_device"]) == {"1": "b", "0": "a"}
    out = ep.elastic_ep_checks(make_view(elastic_ep_backend="mooncake",
                                         mooncake_ib_device="{}"))
    assert isinstance(out, Refuse) and "--mooncake-ib-device" in out.message


def test_a_stated_host_is_checked_as_sglang_checks_it():
    """Names the host lacks are refused after normalising; a host with no InfiniBand refuses
    any name, but a blank value is refused for being blank first."""
    host = ("mlx5_0", "mlx5_1")
    assert checked_devices(FLAG, " mlx5_1,mlx5_0,mlx5_1", host) == "mlx5_1,mlx5_0"
    assert checked_devices(FLAG, '{"1": "mlx5_1"}', host) == '{"1":"mlx5_1"}'
    for lacking in ("mlx5_0,mlx5_2", '{"0": "mlx5_0", "1": "mlx4_0"}', '["mlx5_0"]'):
        out = checked_devices(FLAG, lacking, host)
        assert isinstance(out, Refuse) and "lacks" in out.message
    for value in ("mlx5_0", '{"0": "mlx5_0"}', "{bad", "/etc/ib.json"):
        out = checked_devices(FLAG, value, ())
        assert isinstance(out, Refuse) and "no InfiniBand" in out.message
    assert "no RDMA device" in checked_devices(FLAG, " ", ()).message
    assert checked_devices(FLAG, "/etc/ib.json", host) == "/etc/ib.json"


def test_the_host_s_devices_reach_the_rules_through_the_target():
    pd = dict(disaggregation_mode="decode", disaggregation_transfer_backend="mooncake",
              disaggregation_ib_device="mlx5_3")
    elastic = dict(elastic_ep_backend="mooncake", mooncake_ib_device="mlx5_3")
    assert fields(enc.encoder_disaggregation_checks(make_view("h100", **pd)))[
        "disaggregation_ib_device"] == "mlx5_3"  # not stated: taken as present
    assert fields(ep.elastic_ep_checks(make_view("h100", **elastic)))[
        "mooncake_ib_device"] == "mlx5_3"
    for host in ((), ("mlx5_0",)):
        target = with_overrides(get_target("h100"), ib_devices=host)
        assert isinstance(enc.encoder_disaggregation_checks(make_view(target, **pd)), Refuse)
        assert isinstance(ep.elastic_ep_checks(make_view(target, **elastic)), Refuse)
    target = with_overrides(get_target("h100"), ib_devices=("mlx5_3",))
    assert fields(ep.elastic_ep_checks(make_view(target, **elastic)))[
        "mooncake_ib_device"] == "mlx5_3"


def test_a_plan_that_takes_the_devices_as_present_says_so():
    pd = dict(disaggregation_mode="decode", disaggregation_transfer_backend="mooncake",
              disaggregation_ib_device="mlx5_3")
    out = enc.encoder_disaggregation_checks(make_view("h100", **pd))
    assert isinstance(out, Declare) and "--host-ib-devices" in out.note
    stated = with_overrides(get_target("h100"), ib_devices=("mlx5_3",))
    assert enc.encoder_disaggregation_checks(make_view(stated, **pd)).note is None
    unset = enc.encoder_disaggregation_checks(make_view("h100", **{**pd,
                                                                "disaggregation_ib_device": None}))
    assert unset.note is None  # Mooncake discovers the devices: nothing is assumed
    out = ep.elastic_ep_checks(make_view("h100", elastic_ep_backend="mooncake",
                                         mooncake_ib_device="mlx5_0"))
    assert "--mooncake-ib-device" in out.note


def _mapping_file(tmp_path, text: str | bytes) -> str:
    path = tmp_path / "ib.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_mapping_file_at_hand_is_read_as_the_inline_mapping(tmp_path):
    """SGLang reads the file and then checks its object as it checks an inline one; the plan
    holds that normal form (re-serialised, each list stripped and de-duplicated), which is a
    fixed point of the check."""
    path = _mapping_file(tmp_path, '{"0": "mlx5_0", "1": " mlx5_1 ,mlx5_1", '
                                   '"2": "mlx5_0,mlx5_1"}')
    normal = '{"0":"mlx5_0","1":"mlx5_1","2":"mlx5_0,mlx5_1"}'
    assert checked_devices(FLAG, path) == normal
    assert checked_devices(FLAG, f"  {path} ") == normal
    assert checked_devices(FLAG, normal) == normal
    assert checked_devices(FLAG, path, ("mlx5_0", "mlx5_1")) == normal
    lacking = checked_devices(FLAG, path, ("mlx5_0",))
    assert isinstance(lacking, Refuse) and "mlx5_1 for GPU 1" in lacking.message


@pytest.mark.parametrize("content", [
    '{"0": ""}', '{"0": "mlx5_0", "1": " , "}', "{}", "[]", '"mlx5_0"', "not json", "",
    '{"0": ["mlx5_0"]}', '{"gpu0": "mlx5_0"}', b"\xff\xfe{}",
])
def test_a_mapping_file_sglang_refuses_is_refused_naming_flag_and_file(tmp_path, content):
    path = _mapping_file(tmp_path, content)
    out = checked_devices(FLAG, path)
    assert isinstance(out, Refuse), out
    assert out.message.startswith(FLAG)
    assert "ib.json" in out.message or "GPU" in out.message or "expected" in out.message


def test_a_mapping_file_not_here_passes_on_a_named_target_and_is_refused_on_this_host():
    missing = "/nonexistent/launchplan-test/ib.json"
    assert checked_devices(FLAG, missing) == missing
    out = checked_devices(FLAG, missing, this_host=True)
    assert isinstance(out, Refuse) and missing in out.message and "does not exist" in out.message
    pd = dict(disaggregation_mode="prefill", disaggregation_transfer_backend="mooncake",
              disaggregation_ib_device=missing)
    planned = enc.encoder_disaggregation_checks(make_view("h100", **pd))
    assert fields(planned)["disaggregation_ib_device"] == missing
    assert "not on this machine" in planned.note and missing in planned.note
    here = get_target("h100").replace(name="auto")
    assert isinstance(enc.encoder_disaggregation_checks(make_view(here, **pd)), Refuse)
    elastic = ep.elastic_ep_checks(make_view(here, elastic_ep_backend="mooncake",
                                             mooncake_ib_device=missing))
    assert isinstance(elastic, Refuse) and "--mooncake-ib-device" in elastic.message


def test_a_read_mapping_file_reaches_the_plan(tmp_path):
    path = _mapping_file(tmp_path, '{"1": "mlx5_1", "0": "mlx5_0,mlx5_0"}')
    from launchplan.planner import resolve

    result = resolve(["--disaggregation-mode", "prefill", "--disaggregation-ib-device", path],
                     gpu="h100", model_path="llama-3.1-8b")
    assert result["disaggregation_ib_device"] == '{"1":"mlx5_1","0":"mlx5_0"}'
    assert not any("not on this machine" in w for w in result.warnings)
    gone = resolve(["--disaggregation-mode", "prefill", "--disaggregation-ib-device",
                    path + ".gone.json"], gpu="h100", model_path="llama-3.1-8b")
    assert gone["disaggregation_ib_device"] == path + ".gone.json"
    assert any("not on this machine" in w for w in gone.warnings)
