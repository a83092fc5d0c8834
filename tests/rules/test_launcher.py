"""The launcher's checks after resolution: LoRA, the text watermark, metrics, TBO and PP."""

from __future__ import annotations

import math

import pytest

from launchplan.engine.declarations import Refuse
from launchplan.rules.launcher import (
    launcher_load_publish_checks,
    launcher_lora_checks,
    launcher_lora_checks_0_5_22,
    launcher_metrics_checks,
    launcher_pipeline_parallel_checks,
    launcher_two_batch_overlap_check,
    launcher_watermark_checks,
    lora_enabled,
)
from tests.rules.conftest import make_view

LORA = dict(enable_lora=True, max_lora_rank=8, lora_target_modules=["all"])


def test_lora_is_on_with_the_switch_or_with_adapters_and_the_switch_unset():
    assert lora_enabled(make_view(enable_lora=True))
    assert lora_enabled(make_view(lora_paths=["a=/x"]))
    assert not lora_enabled(make_view(lora_paths=["a=/x"], enable_lora=False))
    assert not lora_enabled(make_view(lora_paths=[]))


@pytest.mark.parametrize("values", [
    dict(enable_lora=True),  # nothing to size the buffers from
    {**LORA, "lora_target_modules": ["all", "q_proj"]},
    {**LORA, "max_loaded_loras": 2},  # below the batch of 8
    dict(lora_paths=["a=/x", "b=/y"], max_loaded_loras=1, max_loras_per_batch=1),
    {**LORA, "enable_lora_overlap_loading": True},  # no cap on the pinned adapters
    {**LORA, "enable_lora_overlap_loading": True, "max_loaded_loras": 17},
    {**LORA, "speculative_algorithm": "STANDALONE"},
    {**LORA, "speculative_algorithm": "EAGLE", "speculative_adaptive": True},
    {**LORA, "max_lora_chunk_size": 48},
    {**LORA, "lora_drain_wait_threshold": -1.0},
    {**LORA, "lora_drain_wait_threshold": math.nan},
    {**LORA, "lora_backend": "triton_v2", "attn_dp_size": 2, "tp_size": 2},
    dict(max_loras_per_batch=0),
    dict(moe_runner_backend="lora_triton"),  # a LoRA MoE runner without LoRA
    {**LORA, "moe_runner_backend": "lora_triton"},  # ... and not on triton_v2
    {**LORA, "moe_runner_backend": "lora_triton", "lora_backend": "triton_v2",
     "moe_a2a_backend": "deepep"},
    {**LORA, "moe_runner_backend": "lora_triton", "lora_backend": "triton_v2",
     "quantization": "modelopt_fp4"},
    dict(speculative_algorithm="EAGLE", speculative_moe_runner_backend="lora_triton"),
])
def test_lora_launches_the_launcher_refuses(values):
    assert isinstance(launcher_lora_checks(make_view("h100", **values)), Refuse)


@pytest.mark.parametrize("values", [
    {}, dict(lora_paths=["a=/x"]), LORA, {**LORA, "speculative_algorithm": "NGRAM"},
    {**LORA, "speculative_algorithm": "EAGLE3"},
    {**LORA, "enable_lora_overlap_loading": True, "max_loaded_loras": 16},
    dict(lora_paths=[{"lora_name": "a", "lora_path": "/x"}], max_loaded_loras=8),
    {**LORA, "moe_runner_backend": "lora_marlin", "lora_backend": "triton_v2",
     "quantization": "modelopt_fp4"},
    dict(lora_paths=["a=/x"], enable_lora=False, max_loaded_loras=0, max_loras_per_batch=1),
])
def test_lora_launches_that_start(values):
    assert launcher_lora_checks(make_view("h100", **values)) is None


def test_lora_before_0_5_23_has_no_triton_v2_or_moe_runner_checks():
    v2 = make_view("h100", **LORA, lora_backend="triton_v2", attn_dp_size=2, tp_size=2)
    assert isinstance(launcher_lora_checks(v2), Refuse)
    assert launcher_lora_checks_0_5_22(v2) is None
    runner = make_view("h100", moe_runner_backend="lora_triton")
    assert launcher_lora_checks_0_5_22(runner) is None
    assert isinstance(launcher_lora_checks_0_5_22(make_view("h100", enable_lora=True)), Refuse)
    rocm = make_view("mi300x", **LORA, lora_backend="triton_v2")
    assert isinstance(launcher_lora_checks(rocm), Refuse)


WATERMARK = dict(enable_watermark=True, device="cuda")


@pytest.mark.parametrize("values", [
    dict(watermark_config='{"key": "ab"}'),  # a config, the switch off
    {**WATERMARK, "device": "cpu"},
    {**WATERMARK, "watermark_key": "xyz"},
    {**WATERMARK, "watermark_key": "0x" + "1" * 17},
    {**WATERMARK, "watermark_key_b": "12"},  # key_b without a key
    {**WATERMARK, "watermark_key": "ab", "watermark_mixing_probability": 0.3},
    {**WATERMARK, "watermark_context_window": 65},
    {**WATERMARK, "watermark_context_window": True},
    {**WATERMARK, "watermark_max_probability": 0.0},
    {**WATERMARK, "watermark_max_probability": math.nan},
    {**WATERMARK, "watermark_enforce_all": True},
    {**WATERMARK, "enable_custom_logit_processor": True},
    {**WATERMARK, "sampling_backend": "my_sampler"},
    {**WATERMARK, "disaggregation_mode": "decode"},
    {**WATERMARK, "speculative_algorithm": "DFLASH"},
    {**WATERMARK, "speculative_algorithm": "EAGLE", "pp_size": 2},
    {**WATERMARK, "speculative_use_rejection_sampling": True},
])
def test_watermark_launches_the_launcher_refuses(values):
    assert isinstance(launcher_watermark_checks(make_view(**values)), Refuse)


def test_watermark_launches_that_start():
    assert launcher_watermark_checks(make_view(**WATERMARK)) is None
    assert launcher_watermark_checks(make_view(
        **WATERMARK, watermark_key="0xA1", watermark_key_b="ff",
        watermark_mixing_probability=0.3, watermark_default_enabled=True,
        speculative_algorithm="NGRAM")) is None
    assert isinstance(launcher_watermark_checks(make_view(
        **WATERMARK, env={"SGLANG_RUST_SERVER": "1"})), Refuse)
    assert launcher_watermark_checks(make_view()) is None


@pytest.mark.parametrize(("values", "refused"), [
    (dict(prompt_tokens_buckets=["default"]), False),
    (dict(prompt_tokens_buckets=["default", "3"]), True),
    (dict(prompt_tokens_buckets=["tse", "1000", "2", "8"]), False),
    (dict(prompt_tokens_buckets=["tse", "1000", "1", "8"]), True),
    (dict(prompt_tokens_buckets=["tse", "1000", "2"]), True),
    (dict(generation_tokens_buckets=["tse", "x", "2", "8"]), True),
    (dict(generation_tokens_buckets=["custom", "10", "100"]), False),
    (dict(generation_tokens_buckets=["custom"]), True),
    (dict(generation_tokens_buckets=["custom", "10", "10"]), True),
    (dict(generation_tokens_buckets=["custom", "-1"]), True),
    (dict(generation_tokens_buckets=["linear"]), True),
    (dict(export_metrics_to_file=True), True),
    (dict(export_metrics_to_file=True, export_metrics_to_file_dir="/tmp/m"), False),
    (dict(tokenizer_metrics_allowed_custom_labels=["team"]), False),
    (dict(tokenizer_metrics_allowed_custom_labels=["team"],
          tokenizer_metrics_custom_labels_header=""), True),
    (dict(gc_threshold=[1, 2, 3]), False),
    (dict(gc_threshold=[1, 2, 3, 4]), True),
    (dict(mm_processor_worker_num=-1), True),
])
def test_metrics_and_worker_checks(values, refused):
    assert isinstance(launcher_metrics_checks(make_view(**values)), Refuse) is refused


def test_two_batch_overlap_needs_an_all_to_all_or_attention_dp():
    assert isinstance(launcher_two_batch_overlap_check(make_view(
        enable_two_batch_overlap=True)), Refuse)
    for values in (dict(attn_dp_size=2), dict(moe_a2a_backend="deepep"),
                   dict(ep_join_mode="scale")):
        assert launcher_two_batch_overlap_check(make_view(
            enable_two_batch_overlap=True, **values)) is None


@pytest.mark.parametrize(("values", "env", "refused"), [
    (dict(speculative_algorithm="EAGLE3"), None, True),
    (dict(speculative_algorithm="EAGLE"), None, True),  # aggregated serving
    (dict(speculative_algorithm="EAGLE", disaggregation_mode="prefill"), None, False),
    (dict(speculative_algorithm="EAGLE", enable_multi_layer_eagle=True,
          disaggregation_mode="prefill"), None, True),
    (dict(speculative_algorithm="EAGLE"), {"SGLANG_ENABLE_PP_SPEC": "1"}, False),
    (dict(speculative_algorithm="EAGLE", attn_dp_size=2), {"SGLANG_ENABLE_PP_SPEC": "1"},
     True),
    (dict(speculative_algorithm="DSPARK", disaggregation_mode="prefill"), None, False),
    (dict(speculative_algorithm="DSPARK", disaggregation_mode="prefill"),
     {"SGLANG_ENABLE_PP_SPEC": "1"}, True),
    (dict(min_free_slots_delay=2), None, True),
    (dict(disable_overlap_schedule=False), None, True),
    ({}, None, False),
])
def test_pipeline_parallel_launch_checks(values, env, refused):
    view = make_view(pp_size=2, env=env, **{"disable_overlap_schedule": True, **values})
    assert isinstance(launcher_pipeline_parallel_checks(view), Refuse) is refused
    assert launcher_pipeline_parallel_checks(make_view(min_free_slots_delay=2)) is None


def test_hisparse_runs_on_sparse_attention_models_with_a_narrow_setup():
    from launchplan.rules.launcher import launcher_hisparse_checks
    from tests.rules.conftest import fake_model

    dsa = fake_model(arch0="GlmMoeDsaForCausalLM", is_deepseek_dsa=True)
    v4 = fake_model(arch0="DeepseekV4ForCausalLM")
    m3 = fake_model(arch0="MiniMaxM3SparseForConditionalGeneration")
    on = dict(enable_hisparse=True, disable_radix_cache=True)

    def check(model, gpu="h100", env=None, **values):
        return launcher_hisparse_checks(make_view(gpu, model=model, env=env,
                                                  **{**on, **values}))

    assert isinstance(check(fake_model()), Refuse)  # a dense model
    assert check(dsa) is None and check(m3, kv_cache_dtype="fp8_e5m2") is None
    for values in (dict(disable_radix_cache=False), dict(enable_mixed_chunk=True),
                   dict(speculative_algorithm="EAGLE", speculative_eagle_topk=2),
                   dict(speculative_algorithm="EAGLE", speculative_adaptive=True),
                   dict(kv_cache_dtype="fp8_e5m2"),
                   dict(kv_cache_dtype="bfloat16", dsa_decode_backend="flashmla_kv"),
                   dict(kv_cache_dtype="fp8_e4m3", dsa_prefill_backend="flashmla_sparse")):
        assert isinstance(check(dsa, **values), Refuse), values
    assert check(dsa, kv_cache_dtype="fp8_e4m3", dsa_decode_backend="flashmla_kv") is None
    assert check(dsa, "mi300x", dsa_decode_backend="tilelang") is None
    assert isinstance(check(dsa, "mi300x", dsa_decode_backend="flashmla_kv"), Refuse)
    assert check(v4, "mi300x", kv_cache_dtype="fp8_e5m2") is None  # ROCm V4: no dtype check
    assert isinstance(check(v4, "mi300x", env={
        "SGLANG_HACK_FLASHMLA_BACKEND": "unified_kv_triton"}), Refuse)
    assert isinstance(check(v4, kv_cache_dtype="fp8_e5m2"), Refuse)
    assert launcher_hisparse_checks(make_view()) is None


def test_hisparse_in_0_5_21_takes_mixed_chunks_and_any_speculation():
    from launchplan.rules.launcher import launcher_hisparse_checks, launcher_hisparse_checks_0_5_21
    from tests.rules.conftest import fake_model

    dsa = fake_model(arch0="GlmMoeDsaForCausalLM", is_deepseek_dsa=True)
    for values in (dict(enable_mixed_chunk=True),
                   dict(speculative_algorithm="EAGLE", speculative_eagle_topk=4)):
        view = make_view(model=dsa, enable_hisparse=True, disable_radix_cache=True, **values)
        assert isinstance(launcher_hisparse_checks(view), Refuse)
        assert launcher_hisparse_checks_0_5_21(view) is None
    radix = make_view(model=dsa, enable_hisparse=True)
    assert isinstance(launcher_hisparse_checks_0_5_21(radix), Refuse)


@pytest.mark.parametrize(("values", "refused"), [
    ({}, False),
    (dict(model_impl="mindspore"), True),
    (dict(load_format="instanttensor", device="cuda"), False),
    (dict(load_format="instanttensor", device="cpu"), True),
    (dict(enable_quant_communications=True, tp_size=2, device="cuda"), True),
    (dict(enable_quant_communications=True, tp_size=1, device="npu"), True),
    (dict(enable_quant_communications=True, tp_size=2, device="npu"), False),
    (dict(sampling_backend="intel_xpu", device="cuda"), True),
    (dict(grpc_port=30000), True),  # the HTTP port's default
    (dict(grpc_port=30000, grpc_mode=True), False),
    (dict(grpc_port=30001), False),
])
def test_device_bound_features_and_ports(values, refused):
    from launchplan.rules.launcher import launcher_device_checks

    assert isinstance(launcher_device_checks(make_view(**values)), Refuse) is refused


@pytest.mark.parametrize("config", [
    None, "", "not-json", '["zmq"]', '{"endpoint": "tcp://*:5557"}', '{"publisher": "null"}',
    '{"publisher": "zmq", "endpoint": ""}'])
def test_load_publishing_needs_an_active_kv_events_publisher(config):
    view = make_view(load_publish_endpoint="tcp://*:6000", kv_events_config=config)
    assert isinstance(launcher_load_publish_checks(view), Refuse)


def test_load_publishing_off_or_with_a_publisher_starts():
    active = '{"publisher": "zmq", "endpoint": "tcp://*:5557"}'
    assert launcher_load_publish_checks(make_view(load_publish_endpoint="auto",
                                                  kv_events_config=active)) is None
    for off in (None, "", " off "):
        assert launcher_load_publish_checks(make_view(load_publish_endpoint=off)) is None
