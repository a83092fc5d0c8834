"""Deterministic-inference rules (P16)."""

from __future__ import annotations

import pytest

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules import deterministic as d
from tests.rules.conftest import MLA, fake_model, make_view

ON = dict(enable_deterministic_inference=True)
DSV3 = fake_model(**MLA)


def fields(out):
    return out.fields if isinstance(out, Declare) else out


def test_on_policy_target_turns_it_on():
    assert fields(d.deterministic_on_policy_target(make_view(rl_on_policy_target="fsdp"))) == {
        "enable_deterministic_inference": True}
    assert d.deterministic_on_policy_target(make_view()) is None


def test_fusions_and_sampling():
    assert fields(d.deterministic_aiter_allreduce_disable(make_view(
        enable_aiter_allreduce_fusion=True, **ON))) == {"enable_aiter_allreduce_fusion": False}
    assert d.deterministic_aiter_allreduce_disable(make_view(
        enable_aiter_allreduce_fusion=True)) is None
    assert fields(d.deterministic_allreduce_fusion_disable(make_view(
        flashinfer_allreduce_fusion_backend="auto", **ON))) == {
        "flashinfer_allreduce_fusion_backend": None}
    assert fields(d.deterministic_sampling_backend(make_view(
        sampling_backend="flashinfer", **ON))) == {"sampling_backend": "pytorch"}
    assert d.deterministic_sampling_backend(make_view(sampling_backend="ascend", **ON)) is None


@pytest.mark.parametrize(("gpu", "model", "expected"), [
    ("b200", None, "flashinfer"), ("b200", DSV3, "triton"), ("rtx5090", None, "flashinfer"),
    ("h100", None, "fa3"), ("a100", DSV3, "fa3"), ("mi300x", None, "fa3"),
])
def test_deterministic_attention_default(gpu, model, expected):
    out = d.deterministic_attention_backend(make_view(gpu, model=model, **ON))
    assert fields(out) == {"attention_backend": expected}


def test_deterministic_attention_refuses_unlisted_backend():
    assert isinstance(d.deterministic_attention_backend(make_view(
        attention_backend="trtllm_mla", **ON)), Refuse)
    assert d.deterministic_attention_backend(make_view(attention_backend="triton", **ON)) is None
    assert d.deterministic_attention_backend(make_view()) is None


def test_mla_backend_check_and_radix():
    assert isinstance(d.deterministic_mla_backend_check(make_view(
        model=DSV3, attention_backend="flashinfer", **ON)), Refuse)
    assert isinstance(d.deterministic_mla_backend_check(make_view(
        "h100", model=DSV3, attention_backend="fa4", **ON)), Refuse)
    assert d.deterministic_mla_backend_check(make_view(
        "b200", model=DSV3, attention_backend="fa4", **ON)) is None
    assert fields(d.deterministic_radix_disable(make_view(attention_backend="flashinfer",
                                                          **ON))) == {"disable_radix_cache": True}
    assert d.deterministic_radix_disable(make_view(attention_backend="fa3", **ON)) is None


def test_tp_collectives():
    assert fields(d.deterministic_tp_collectives(make_view(tp_size=2, **ON))) == {
        "disable_custom_all_reduce": True, "enable_torch_symm_mem": False}
    assert d.deterministic_tp_collectives(make_view(tp_size=1, **ON)) is None
    assert d.deterministic_tp_collectives(make_view("mi300x", tp_size=8, **ON)) is None
    assert isinstance(d.deterministic_tp_collectives(make_view(
        "mi300x", tp_size=8, disable_custom_all_reduce=True, **ON)), Refuse)


@pytest.mark.parametrize(("gpu", "expected"), [("h100", "flashinfer"), ("mi300x", "pytorch")])
def test_sampling_backend_default(gpu, expected):
    assert d.sampling_backend_default(make_view(gpu)) == {"sampling_backend": expected}
    assert d.sampling_backend_default(make_view(gpu, sampling_backend="pytorch")) is None
