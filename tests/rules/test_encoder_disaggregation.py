"""Encoder disaggregation: which models split at the encoder, and the flag combinations."""

from __future__ import annotations

from launchplan.engine.declarations import Refuse
from launchplan.rules.encoder_disaggregation import (
    encoder_disaggregation_checks,
    language_model_only_checks,
    language_model_only_checks_0_5_21,
)
from tests.rules.conftest import fake_model, make_view

QWEN_VL = fake_model(architectures=("Qwen2_5_VLForConditionalGeneration",),
                     arch0="Qwen2_5_VLForConditionalGeneration", is_multimodal=True)
SCHEDULER = {"encoder_transfer_backend": "zmq_to_scheduler"}
LLAVA = fake_model(architectures=("LlavaForConditionalGeneration",),
                   arch0="LlavaForConditionalGeneration", is_multimodal=True)


def test_only_listed_architectures_split_at_the_encoder():
    for flag in ("language_only", "encoder_only"):
        assert encoder_disaggregation_checks(make_view(model=QWEN_VL, **{flag: True})).fields \
            == SCHEDULER
        assert isinstance(encoder_disaggregation_checks(make_view(model=LLAVA, **{flag: True})),
                          Refuse)
    assert encoder_disaggregation_checks(make_view(model=LLAVA)).fields == SCHEDULER


def test_flag_combinations():
    assert isinstance(encoder_disaggregation_checks(make_view(
        model=QWEN_VL, encoder_only=True, language_only=True)), Refuse)
    assert isinstance(encoder_disaggregation_checks(make_view(
        model=QWEN_VL, encoder_only=True, disaggregation_mode="prefill")), Refuse)
    assert isinstance(encoder_disaggregation_checks(make_view(
        model=QWEN_VL, enable_prefix_mm_cache=True)), Refuse)
    assert encoder_disaggregation_checks(make_view(
        model=QWEN_VL, enable_prefix_mm_cache=True, encoder_only=True)).fields == SCHEDULER


def test_a_mooncake_transfer_redeclares_its_rdma_devices():
    out = encoder_disaggregation_checks(make_view(disaggregation_mode="prefill"))
    assert out.fields == {"disaggregation_ib_device": None, **SCHEDULER}
    out = encoder_disaggregation_checks(make_view(disaggregation_mode="decode",
                                                  disaggregation_ib_device="mlx5_0"))
    assert out.fields == {"disaggregation_ib_device": "mlx5_0", **SCHEDULER}
    assert encoder_disaggregation_checks(make_view(
        disaggregation_mode="prefill", disaggregation_transfer_backend="nixl",
        encoder_transfer_backend="zmq_to_scheduler")) is None



def test_a_blank_rdma_device_list_is_refused_before_any_device_lookup():
    """SGLang strips the value and refuses an empty one before it reads the host's devices
    (and hands a named list on stripped); a value another transfer backend never reads is not
    checked."""
    for blank in ("", " ", "  \t"):
        out = encoder_disaggregation_checks(make_view(disaggregation_mode="prefill",
                                                      disaggregation_ib_device=blank))
        assert isinstance(out, Refuse) and "--disaggregation-ib-device" in out.message
        assert isinstance(encoder_disaggregation_checks(make_view(
            model=QWEN_VL, encoder_only=True, encoder_transfer_backend="mooncake",
            disaggregation_ib_device=blank)), Refuse)
        assert encoder_disaggregation_checks(make_view(
            disaggregation_mode="prefill", disaggregation_transfer_backend="nixl",
            encoder_transfer_backend="zmq_to_scheduler", disaggregation_ib_device=blank)) is None
    assert encoder_disaggregation_checks(make_view(
        disaggregation_mode="prefill", disaggregation_ib_device=" mlx5_0 ")).fields[
        "disaggregation_ib_device"] == "mlx5_0"  # stripped, as the device check returns it


def test_an_auto_encoder_transfer_backend_is_resolved_on_every_launch():
    """ZMQ to the scheduler, but to the tokenizer for Kimi-K3 VL's sharded tower (TP > 1);
    a given backend stays."""
    kimi = fake_model(architectures=("KimiK3ForConditionalGeneration",),
                      arch0="KimiK3ForConditionalGeneration", is_multimodal=True)
    assert encoder_disaggregation_checks(make_view(model=kimi, tp_size=8)).fields == {
        "encoder_transfer_backend": "zmq_to_tokenizer"}
    assert encoder_disaggregation_checks(make_view(model=kimi)).fields == SCHEDULER
    assert encoder_disaggregation_checks(make_view(
        model=kimi, tp_size=8, encoder_transfer_backend="mooncake")).fields == {
        "disaggregation_ib_device": None}


def test_language_model_only_checks():
    """Recorded: wild/found-later/158 (--language-model-only on Llama) is refused by SGLang."""
    glimmer = fake_model(architectures=("MuseGlimmerForConditionalGeneration",),
                         arch0="MuseGlimmerForConditionalGeneration", model_type="muse_glimmer")
    v4 = fake_model(architectures=("DeepseekV4ForCausalLM",), arch0="DeepseekV4ForCausalLM",
                    model_type="deepseek_v41")
    assert isinstance(language_model_only_checks(make_view(language_model_only=True)), Refuse)
    assert language_model_only_checks(make_view(model=glimmer, language_model_only=True)) is None
    assert language_model_only_checks(make_view(language_model_only=False)) is None
    for bad in (dict(encoder_only=True), dict(mm_enable_dp_encoder=True),
                dict(disaggregation_mode="prefill")):
        assert isinstance(language_model_only_checks(make_view(
            model=glimmer, language_model_only=True, **bad)), Refuse), bad
    # DeepSeek-V4.1 text-only workers keep PD (0.5.22 on); 0.5.21 has no DeepSeek-V4 at all
    assert language_model_only_checks(make_view(model=v4, language_model_only=True,
                                                disaggregation_mode="decode")) is None
    assert isinstance(language_model_only_checks_0_5_21(make_view(
        model=v4, language_model_only=True)), Refuse)
