"""The multimodal feature transport: cpu unless a GPU transport is asked for and can run."""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.facts.targets import get_target, with_overrides
from launchplan.rules.mm_transport import CUDA_VMM_ARCHS, mm_feature_transport_default
from tests.rules.conftest import fake_model, make_view


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


def test_sglang_picks_cuda_vmm_across_mnnvl_nodes_with_an_imex_channel():
    """A multimodal model whose class declares CUDA VMM, served across GB200 nodes (no PD
    role), on a host that mounts the IMEX channel: cuda_vmm; take away any one of those and
    it is cpu. Chosen so, it still refuses pipeline parallelism, and says how to avoid it."""
    arch = "Qwen3VLMoeForConditionalGeneration"
    assert arch in CUDA_VMM_ARCHS
    vl = fake_model(architectures=(arch,), arch0=arch, is_multimodal=True)
    imex = with_overrides(get_target("gb200"), imex_channel=True)
    two = dict(nnodes=2, disaggregation_mode="null")
    assert value(mm_feature_transport_default(make_view(imex, model=vl, **two))) == "cuda_vmm"
    others = [
        make_view("gb200", model=vl, **two),  # no IMEX channel
        make_view(with_overrides(get_target("h100"), imex_channel=True), model=vl, **two),
        make_view(imex, model=vl, nnodes=1, disaggregation_mode="null"),
        make_view(imex, model=vl, nnodes=2, disaggregation_mode="prefill"),
        make_view(imex, model=vl, language_model_only=True, **two),
        make_view(imex, model=fake_model(architectures=("Qwen2_5_VLForConditionalGeneration",),
                                         arch0="Qwen2_5_VLForConditionalGeneration",
                                         is_multimodal=True), **two),
        make_view(imex, model=vl, env={"SGLANG_USE_CUDA_IPC_TRANSPORT": "0"}, **two),
        make_view(imex, model=vl, model_impl="transformers", **two),
    ]
    for view in others:
        assert value(mm_feature_transport_default(view)) == "cpu"
    assert value(mm_feature_transport_default(make_view(
        imex, model=vl, encoder_only=True, **two))) == "cpu"
    out = mm_feature_transport_default(make_view(imex, model=vl, pp_size=2, **two))
    assert isinstance(out, Refuse) and "--mm-feature-transport cpu" in out.message
