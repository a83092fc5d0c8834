"""Memory rules on a view: capacity tiers, capture sizes, the static fraction's reserve."""

from __future__ import annotations

import pytest

from launchplan.rules.graph_config import default_config, with_phase
from launchplan.rules.memory import (
    chunked_prefill_default,
    cuda_graph_sizing,
    graph_reserve_mib,
    mem_fraction_default,
    mem_fraction_default_0_5_21,
    tier_of,
)
from tests.rules.conftest import MLA, fake_model, make_view

GRAPH = {"cuda_graph_config": default_config(True)}


@pytest.mark.parametrize(("mib", "tp", "expected"), [
    (16000, 1, (2048, 8)), (32607, 1, (4096, 48)), (32607, 4, (4096, 160)),
    (40960, 1, (4096, 32)), (81559, 1, (8192, 256)), (81559, 8, (8192, 512)),
    (143771, 2, (8192, 256)), (183359, 1, (16384, 512)), (None, 1, (4096, 160)),
])
def test_capacity_tiers_including_the_non_monotonic_one(mib, tp, expected):
    assert tier_of(mib, tp) == expected


def test_chunk_default_only_when_unset():
    assert chunked_prefill_default(make_view("h100")) == {"chunked_prefill_size": 8192}
    assert chunked_prefill_default(make_view("h100", chunked_prefill_size=2048)) is None


def test_decode_max_bs_capped_by_an_explicit_running_limit_only_when_defaulted():
    view = make_view("h100", max_running_requests=100,
                     overlay={**GRAPH, "chunked_prefill_size": 8192})
    decode = cuda_graph_sizing(view)["cuda_graph_config"]["decode"]
    assert decode["max_bs"] == 100 and decode["bs"][-1] == 100
    pinned = with_phase(default_config(True), "decode", max_bs=300)
    view = make_view("h100", max_running_requests=100,
                     overlay={"cuda_graph_config": pinned, "chunked_prefill_size": 8192})
    assert cuda_graph_sizing(view)["cuda_graph_config"]["decode"]["max_bs"] == 300


def test_explicit_decode_sizes_set_max_bs():
    sizes = with_phase(default_config(True), "decode", bs=[1, 2, 4, 16], max_bs=300)
    view = make_view("h100", overlay={"cuda_graph_config": sizes, "chunked_prefill_size": 8192})
    assert cuda_graph_sizing(view)["cuda_graph_config"]["decode"]["max_bs"] == 16



def test_a_cpu_graph_needs_a_positive_torch_compile_batch_limit():
    """On --device cpu the graph's sizes come from torch_compile_max_bs (else the decode
    max_bs, else the largest given size); SGLang refuses a limit that is not positive, on every
    release, and sizes a positive one."""
    from launchplan.engine.declarations import Refuse
    from launchplan.rules.memory import cuda_graph_sizing_0_5_21, cuda_graph_sizing_0_5_22

    zero_max = with_phase(default_config(True), "decode", max_bs=0)
    zero_list = with_phase(default_config(True), "decode", bs=[0])
    for sizing in (cuda_graph_sizing, cuda_graph_sizing_0_5_22, cuda_graph_sizing_0_5_21):
        for config, limit in ((zero_max, None), (zero_max, 0), (zero_list, 8)):
            view = make_view("h100", device="cpu", torch_compile_max_bs=limit,
                             overlay={"cuda_graph_config": config, "chunked_prefill_size": 8192})
            assert isinstance(sizing(view), Refuse), (sizing, config, limit)
        view = make_view("h100", device="cpu", torch_compile_max_bs=16,
                         overlay={"cuda_graph_config": zero_max, "chunked_prefill_size": 8192})
        assert sizing(view)["torch_compile_max_bs"] == 16
        view = make_view("h100", torch_compile_max_bs=0,
                         overlay={"cuda_graph_config": default_config(True),
                                  "chunked_prefill_size": 8192})
        assert not isinstance(sizing(view), Refuse)

def test_prefill_max_bs_caps():
    view = make_view("b200", model=fake_model(**MLA), overlay={**GRAPH,
                     "chunked_prefill_size": 16384})
    assert cuda_graph_sizing(view)["cuda_graph_config"]["prefill"]["max_bs"] == 8192
    view = make_view("b200", max_total_tokens=3000,
                     overlay={**GRAPH, "chunked_prefill_size": 16384})
    assert cuda_graph_sizing(view)["cuda_graph_config"]["prefill"]["max_bs"] == 3000
    view = make_view("b200", model_path="meta/Llama-2-7b",
                     overlay={**GRAPH, "chunked_prefill_size": 16384})
    assert cuda_graph_sizing(view)["cuda_graph_config"]["prefill"]["max_bs"] == 4096


def sized(gpu, **values):
    view = make_view(gpu, overlay={**GRAPH, "chunked_prefill_size": tier_of(
        make_view(gpu).target.memory_mib, values.get("tp_size", 1))[0]}, **values)
    return {**GRAPH, "chunked_prefill_size": view.chunked_prefill_size,
            **cuda_graph_sizing(view)}


@pytest.mark.parametrize(("gpu", "tp", "fraction"), [
    ("h100", 1, 0.830), ("h100", 8, 0.812), ("a100", 1, 0.83),
])
def test_static_fraction_worked_examples(gpu, tp, fraction):
    overlay = sized(gpu, tp_size=tp)
    out = mem_fraction_default(make_view(gpu, tp_size=tp, overlay=overlay))
    assert out["mem_fraction_static"] == pytest.approx(fraction, abs=5e-4)


def test_explicit_fraction_is_left_alone():
    assert mem_fraction_default(make_view("h100", mem_fraction_static=0.7)) is None


def test_graph_reserve_counts_what_is_captured():
    overlay = sized("h100")
    view = make_view("h100", overlay=overlay)
    prefill_buckets = len(overlay["cuda_graph_config"]["prefill"]["bs"])
    assert graph_reserve_mib(view) == 256 * 2 + prefill_buckets * 8
    mla = make_view("h100", model=fake_model(**MLA), overlay=overlay)
    assert graph_reserve_mib(mla) == 256 * 2 + 1536
    # attention DP pads the decode graphs; an elastic EP scale joiner is attention DP even at
    # attn_dp_size 1 (wild3/aimed/elastic/scale-up-one-rank-joiner-dense-tp)
    joiner = make_view("h100", overlay=overlay, ep_join_mode="scale")
    assert graph_reserve_mib(joiner) == graph_reserve_mib(view) + 256 * 1 * 3
    dp4 = make_view("h100", overlay=overlay, attn_dp_size=4)
    assert graph_reserve_mib(dp4) == graph_reserve_mib(view) + 256 * 4 * 3


def _vlm(model_type, vision, arch="Qwen2_5_VLForConditionalGeneration"):
    config = {"model_type": model_type}
    if vision is not None:
        config["vision_config"] = vision
    return fake_model(architectures=(arch,), arch0=arch, is_multimodal=True,
                      model_type=model_type, config=config)


def test_vlm_headroom_reads_the_vision_config_as_transformers_presents_it():
    overlay = sized("h100")
    text = mem_fraction_default(make_view("h100", overlay=overlay))["mem_fraction_static"]

    def fraction(model, **values):
        return mem_fraction_default(make_view("h100", model=model, overlay=overlay,
                                              **values))["mem_fraction_static"]

    # Qwen2.5-VL keeps its depth under ``depth`` (the class's attribute map): 32 x 1280^2
    qwen = _vlm("qwen2_5_vl", {"depth": 32, "hidden_size": 1280})
    ratio = 32 * 1280**2 / (24 * 1024**2)
    assert fraction(qwen) == pytest.approx(text * 0.95 * (1 - 0.1 * (ratio - 1)))
    # a ViT-L/14-sized CLIP encoder under LLaVA: the base 0.95 only
    llava = _vlm("llava", {"model_type": "clip_vision_model", "num_hidden_layers": 24,
                           "hidden_size": 1024}, "LlavaForConditionalGeneration")
    assert fraction(llava) == pytest.approx(text * 0.95)
    # a class that builds its default vision config when config.json has none: its defaults
    assert fraction(_vlm("qwen2_5_vl", None)) < text * 0.95
    # the original LLaVA format (LlavaLlamaForCausalLM) has no vision_config: LLaVA's class
    # builds a ViT-L/14 (24 x 1024), not the CLIP vision class's 12 x 768 defaults
    original = _vlm("llava", None, "LlavaLlamaForCausalLM")
    assert fraction(original) == pytest.approx(text * 0.95)
    # Gemma 4's class leaves vision_config unset when config.json has none: no adjustment
    assert fraction(_vlm("gemma4", None, "Gemma4ForConditionalGeneration")) == text
    # a model type whose vision config stays a plain dict: getattr finds neither key
    plain = _vlm("not_a_vlm_type", {"num_hidden_layers": 64, "hidden_size": 4096})
    assert fraction(plain) == pytest.approx(text * 0.95)
    # language-only servers and text-only launches keep the text fraction
    assert fraction(qwen, language_only=True) == text
    assert fraction(qwen, language_model_only=True) == text


def test_vlm_headroom_multiplies_in_sglang_s_order_to_the_last_bit():
    """SGLang multiplies the fraction by (0.95 x the size factor), not by 0.95 and then the
    factor: the two groupings differ in the last bit for most fractions, and a logged value
    (Kimi-K2.5 on an MI355X logs 0.8260405859375) must be met exactly."""
    overlay = sized("h100")
    text = mem_fraction_default(make_view("h100", overlay=overlay))["mem_fraction_static"]
    qwen = _vlm("qwen2_5_vl", {"depth": 32, "hidden_size": 1280})
    out = mem_fraction_default(make_view("h100", model=qwen, overlay=overlay))
    factor = 1 - 0.1 * (32 * 1280**2 / (24 * 1024**2) - 1)
    assert text == 0.83 and text * 0.95 * factor != text * (0.95 * factor)
    assert out["mem_fraction_static"] == text * (0.95 * factor)


def test_muse_spark_turns_post_capture_kv_sizing_on_unless_the_environment_says():
    overlay = sized("h100")
    muse = fake_model(arch0="MuseSparkForConditionalGeneration")
    plain = mem_fraction_default(make_view("h100", overlay=overlay, device="cuda"))[
        "mem_fraction_static"]
    on = mem_fraction_default(make_view("h100", model=muse, overlay=overlay, device="cuda"))
    assert on["mem_fraction_static"] > plain  # no graph reserve: sized again after capture
    off = mem_fraction_default(make_view(
        "h100", model=muse, overlay=overlay, device="cuda",
        env={"SGLANG_ENABLE_POST_CAPTURE_KV_SIZING": "0"}))
    assert off["mem_fraction_static"] == plain


def test_a_custom_mooncake_pool_rules_post_capture_kv_sizing_out():
    overlay = sized("h100")
    on = {"SGLANG_ENABLE_POST_CAPTURE_KV_SIZING": "1"}
    plain = mem_fraction_default(make_view("h100", overlay=overlay, device="cuda"))[
        "mem_fraction_static"]
    post = mem_fraction_default(make_view("h100", overlay=overlay, device="cuda", env=on))
    assert post["mem_fraction_static"] > plain
    for pool in ("NVLINK", ""):  # any value, the empty one too: SGLang tests "is set"
        env = {**on, "SGLANG_MOONCAKE_CUSTOM_MEM_POOL": pool}
        out = mem_fraction_default(make_view("h100", overlay=overlay, device="cuda", env=env))
        assert out["mem_fraction_static"] == plain


def test_post_capture_kv_sizing_under_efa_and_the_unified_pool():
    """Mooncake over EFA rules post-capture sizing out (every release); a hybrid-SWA unified
    pool without draft pools is sized after capture from 0.5.22 on, never in 0.5.21."""
    overlay = sized("h100")
    on = {"SGLANG_ENABLE_POST_CAPTURE_KV_SIZING": "1"}

    def fraction(rule=mem_fraction_default, model=None, env=on, **values):
        return rule(make_view("h100", model=model or fake_model(
            is_hybrid_swa=False, is_hybrid_linear=False), overlay=overlay, device="cuda",
            env=env, **{"disaggregation_transfer_backend": "mooncake", **values}))[
            "mem_fraction_static"]

    plain, post = fraction(env={}), fraction()
    assert post > plain
    assert fraction(env={**on, "MOONCAKE_PROTOCOL": "EFA"}) == plain
    assert fraction(env={**on, "MOONCAKE_PROTOCOL": "efa"},
                    disaggregation_transfer_backend="nixl") == post
    swa = fake_model(is_hybrid_swa=True, is_hybrid_linear=False)
    assert fraction(model=swa, enable_unified_memory=True) == post
    assert fraction(mem_fraction_default_0_5_21, model=swa, enable_unified_memory=True) == plain
    assert fraction(model=swa, enable_unified_memory=True, speculative_algorithm="EAGLE3") == plain
    assert fraction(enable_unified_memory=True) == plain  # not a hybrid-SWA pool


def test_qwen3_vl_on_a_large_hopper_keeps_decode_in_graphs_up_to_the_running_limit():
    """SGLang's memory hook raises the decode graph's max_bs to an explicit running limit of at
    most 512 for a multimodal Qwen3-VL on a Hopper with 60 GiB or more, unless the user sized
    the decode graph (every release; a 0.5.21 probe, wild8 seed 21808, found the 256 of the
    H100 tier where SGLang captured 512)."""
    from pathlib import Path

    from launchplan import resolve

    model = str(Path(__file__).parents[1] / "parity" / "models" / "qwen3-vl-8b-synth")

    def decode_max_bs(gpu: str, *flags: str, compat: str = "default") -> int:
        result = resolve(list(flags), gpu=gpu, model_path=model, compat=compat)
        return result.value("cuda_graph_config")["decode"]["max_bs"]

    for compat in ("default", "0.5.22", "0.5.21"):
        assert decode_max_bs("h100", "--max-running-requests", "400", compat=compat) == 400
    assert decode_max_bs("h100") == 256  # no running limit given: the tier's
    assert decode_max_bs("h100", "--max-running-requests", "600") == 256  # above 512
    assert decode_max_bs("h100", "--max-running-requests", "400",
                         "--cuda-graph-max-bs-decode", "128") == 128  # sized by the user
    assert decode_max_bs("a100", "--max-running-requests", "400") == 256  # not a Hopper
