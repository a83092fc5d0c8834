"""CUDA-graph parse precedence, locks, the default cascade, DeepEP alignment and roles."""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules.cuda_graph import (
    cuda_graph_compatibility,
    deepep_prefill_alignment,
    disaggregation_graph_roles,
    parse_cuda_graph_config,
    validate_cuda_graph_config,
)
from launchplan.rules.graph_config import (
    decode_sizes,
    default_config,
    locked,
    prefill_sizes,
    with_phase,
)
from tests.rules.conftest import decide, fake_model, make_view


def parsed(gpu="b200", **values):
    return parse_cuda_graph_config(make_view(gpu, **values))["cuda_graph_config"]


def test_defaults_per_vendor():
    assert parsed()["decode"]["backend"] == "full"
    assert parsed()["prefill"]["backend"] == "breakable"
    assert parsed("mi300x")["prefill"]["backend"] == "disabled"


def test_parse_precedence():
    # legacy global < per-phase disable < convenience flags < JSON
    config = parsed(disable_cuda_graph=True, cuda_graph_backend_prefill="breakable")
    assert config["decode"]["backend"] == "disabled"
    assert config["prefill"]["backend"] == "breakable"
    config = parsed(disable_prefill_cuda_graph=True, cuda_graph_backend_prefill="full")
    assert config["prefill"]["backend"] == "full"
    config = parsed(cuda_graph_backend_decode="breakable",
                    cuda_graph_config={"decode": {"backend": "disabled", "max_bs": 64}})
    assert config["decode"] == {"backend": "disabled", "max_bs": 64, "bs": None}
    config = parsed(cuda_graph_bs_decode=[1, 2, 4], cuda_graph_prefill_max_context=4096)
    assert config["decode"]["bs"] == [1, 2, 4]
    assert config["prefill"]["max_context_size"] == 4096


def test_locks_follow_every_non_default_source():
    view = make_view(disable_decode_cuda_graph=True, cuda_graph_max_bs_prefill=128)
    assert locked(view) == {("decode", "backend"), ("prefill", "max_bs")}
    assert locked(make_view()) == frozenset()


def test_cascade_disables_default_breakable_prefill_only_when_unlocked():
    graph = {"cuda_graph_config": default_config(True)}
    out = cuda_graph_compatibility(make_view(pp_size=2, overlay=graph))
    assert isinstance(out, Declare)
    assert out.fields["cuda_graph_config"]["prefill"]["backend"] == "disabled"
    assert cuda_graph_compatibility(make_view(pp_size=2, cuda_graph_backend_prefill="breakable",
                                              overlay=graph)) is None
    for values in ({"dcp_size": 2}, {"attn_cp_size": 2}, {"enable_two_batch_overlap": True},
                   {"moe_a2a_backend": "mooncake"}):
        assert cuda_graph_compatibility(make_view(overlay=graph, **values)) is not None
    assert cuda_graph_compatibility(make_view(moe_a2a_backend="deepep", overlay=graph)) is None
    kda = fake_model(uses_kda=True, arch0="KimiLinearForCausalLM")
    assert cuda_graph_compatibility(make_view(model=kda, overlay=graph)) is not None


def test_deepep_rounds_prefill_sizes_up_to_multiples_of_8():
    config = with_phase(default_config(True), "prefill", bs=[4, 12, 20])
    out = deepep_prefill_alignment(make_view(moe_a2a_backend="deepep",
                                             overlay={"cuda_graph_config": config}))
    assert out["cuda_graph_config"]["prefill"]["bs"] == [8, 16, 24]
    assert out["cuda_graph_config"]["prefill"]["max_bs"] == 24


def test_disaggregation_roles_respect_locks():
    graph = {"cuda_graph_config": default_config(True)}
    out = disaggregation_graph_roles(make_view(disaggregation_mode="prefill", overlay=graph))
    assert out["cuda_graph_config"]["decode"]["backend"] == "disabled"
    out = disaggregation_graph_roles(make_view(disaggregation_mode="decode", overlay=graph))
    assert out["cuda_graph_config"]["prefill"]["backend"] == "disabled"
    assert disaggregation_graph_roles(make_view(disaggregation_mode="decode",
                                                cuda_graph_backend_prefill="breakable",
                                                overlay=graph)) is None


def test_validation():
    bad = with_phase(default_config(True), "decode", backend="tc_piecewise")
    assert isinstance(validate_cuda_graph_config(make_view(overlay={"cuda_graph_config": bad})),
                      Refuse)
    full = with_phase(default_config(True), "prefill", backend="full")
    out = validate_cuda_graph_config(make_view(overlay={"cuda_graph_config": full}))
    assert isinstance(out, Declare) and out.fields == {} and out.note


def test_generators():
    assert decode_sizes(256, speculative=False, no_padding=False)[:6] == [1, 2, 4, 8, 12, 16]
    assert decode_sizes(100, speculative=False, no_padding=False)[-1] == 100
    assert decode_sizes(5, speculative=False, no_padding=True) == [1, 2, 3, 4, 5]
    assert decode_sizes(48, speculative=True, no_padding=False)[:9] == [1, 2, 3, 4, 5, 6, 7, 8, 10]
    assert len(prefill_sizes(2048)) == 42
    assert len(prefill_sizes(4096)) == 50
    assert len(prefill_sizes(8192)) == 58
    assert len(prefill_sizes(16384)) == 74


def test_graph_defaults_for_inkling_and_muse_glimmer():
    from launchplan.rules.cuda_graph import (
        inkling_prefill_graph_default,
        muse_glimmer_prefill_graph_max_bs,
    )

    inkling = fake_model(arch0="InklingForConditionalGeneration")
    assert decide(inkling_prefill_graph_default, make_view(model=inkling)) == {
        "cuda_graph_backend_prefill": "full"}
    assert decide(inkling_prefill_graph_default, make_view(model=inkling,
                                                   disable_prefill_cuda_graph=True)) is None
    assert decide(inkling_prefill_graph_default, make_view()) is None
    muse = fake_model(arch0="MuseGlimmerForCausalLM")
    assert decide(muse_glimmer_prefill_graph_max_bs, make_view(model=muse)) == {
        "cuda_graph_max_bs_prefill": 512}
    assert decide(muse_glimmer_prefill_graph_max_bs, make_view(model=muse,
                                                       cuda_graph_max_bs_prefill=64)) is None


def test_multimodal_models_lose_the_breakable_prefill_graph_unless_validated():
    graph = {"cuda_graph_config": default_config(True)}
    llava = fake_model(architectures=("LlavaForConditionalGeneration",),
                       arch0="LlavaForConditionalGeneration", is_multimodal=True)
    out = cuda_graph_compatibility(make_view(model=llava, overlay=graph))
    assert out.fields["cuda_graph_config"]["prefill"]["backend"] == "disabled"
    assert cuda_graph_compatibility(make_view(model=llava, overlay=graph,
                                              cuda_graph_backend_prefill="breakable")) is None
    assert cuda_graph_compatibility(make_view(model=llava, overlay=graph,
                                              language_model_only=True)) is None
    validated = fake_model(architectures=("Qwen3_5ForConditionalGeneration",),
                           arch0="Qwen3_5ForConditionalGeneration", is_multimodal=True)
    assert cuda_graph_compatibility(make_view(model=validated, overlay=graph)) is None
