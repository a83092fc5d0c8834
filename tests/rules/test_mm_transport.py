"""The multimodal feature transport: cpu unless a GPU transport is asked for and can run."""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules.mm_transport import mm_feature_transport_default
from tests.rules.conftest import make_view


def value(out):
    assert isinstance(out, Declare)
    return out.fields["mm_feature_transport"]


def test_unset_is_cpu_and_the_legacy_variable_still_chooses():
    assert value(mm_feature_transport_default(make_view("h100"))) == "cpu"
    env = {"SGLANG_USE_CUDA_IPC_TRANSPORT": "1"}
    assert value(mm_feature_transport_default(make_view("h100", env=env))) == "cuda_ipc"
    env = {"SGLANG_USE_CUDA_IPC_TRANSPORT": "0"}
    assert value(mm_feature_transport_default(make_view("h100", env=env))) == "cpu"


def test_gpu_transports_are_checked():
    assert value(mm_feature_transport_default(make_view(
        "h100", mm_feature_transport="cuda_ipc"))) == "cuda_ipc"
    assert isinstance(mm_feature_transport_default(make_view(
        "mi300x", mm_feature_transport="cuda_ipc")), Refuse)
    assert isinstance(mm_feature_transport_default(make_view(
        "h100", mm_feature_transport="cuda_ipc", nnodes=2)), Refuse)
    assert isinstance(mm_feature_transport_default(make_view(
        "h100", mm_feature_transport="cuda_vmm", pp_size=2)), Refuse)
    assert value(mm_feature_transport_default(make_view(
        "h100", mm_feature_transport="cuda_vmm", encoder_only=True))) == "cpu"
