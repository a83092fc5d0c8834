"""Quantization facts: detection (§3.2), CLI reconciliation (§3.3), platform validity (§3.4)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from launchplan.facts import quantization as q
from launchplan.facts.models import clear_cache, load_model
from launchplan.facts.quantization import (
    NotSupportedOnRocm,
    QuantizationMismatch,
    QuantPlatform,
    UnknownQuantization,
    check_registered,
    checkpoint_override,
    detect_quant_method,
    modelopt_parse,
    reconcile_quantization,
    registered_methods,
    verify_quantization,
)

H100 = QuantPlatform.of("nvidia", 90)
B200 = QuantPlatform.of("nvidia", 100)
T4 = QuantPlatform.of("nvidia", 75)
MI300X = QuantPlatform.of("amd", 94, "gfx942")
MI355X = QuantPlatform.of("amd", 95, "gfx950")
APPLE = QuantPlatform.of("apple")


# --- the registry -------------------------------------------------------------------------

def test_registry_by_platform():
    base = set(q.BASE_METHODS)
    assert registered_methods("nvidia") == base | {"mxfp4"}
    assert registered_methods("amd", "gfx942") == base
    assert registered_methods("amd", "gfx950") == base | {"mxfp4"}
    assert registered_methods("intel") == base | {"mxfp4", "gptq"}  # awq is already there
    assert registered_methods("ascend") == base | {"gptq", "mxfp4"}
    assert registered_methods("nvidia", is_cpu=True) == base | {"mxfp4", "gptq"}
    assert registered_methods("apple") == base | {"mlx_q4", "mlx_q8"}
    assert registered_methods("cuda") == registered_methods("nvidia")
    assert "gptq" not in registered_methods("nvidia")  # only its marlin conversion
    with pytest.raises(ValueError):
        registered_methods("sparc")


def test_registry_order_is_sglangs():
    order = q.registry("amd", "gfx950")
    assert order[:3] == ("fp8", "mxfp8", "minimax_m3_nvfp4") and order[-1] == "mxfp4"
    assert q.registry("intel").index("awq") == q.BASE_METHODS.index("awq")


def test_check_registered():
    assert check_registered("fp8", H100) == ()
    with pytest.raises(UnknownQuantization) as err:
        check_registered("mxfp4", MI300X)
    assert "mxfp4" in err.value.message and "fp8" in err.value.message
    with pytest.raises(UnknownQuantization):
        check_registered("gptq", H100)
    with pytest.raises(UnknownQuantization):
        check_registered("mlx_q4", H100)
    with pytest.raises(UnknownQuantization):
        check_registered("", H100)
    with pytest.raises(NotSupportedOnRocm) as rocm:
        check_registered("modelopt_fp8", MI355X)
    assert "ROCm" in rocm.value.message
    assert check_registered("mxfp4", MI355X)  # allowed on ROCm, but not "optimized"
    assert check_registered("mxfp4", B200) == ()  # no warning on SM100
    assert "not fully optimized" in check_registered("awq", H100)[0]
    assert check_registered("mlx_q8", APPLE)


# --- detection ----------------------------------------------------------------------------

@pytest.mark.parametrize("qc, method", [
    ({"quant_algo": "FP8"}, "modelopt_fp8"),
    ({"quant_algo": "NVFP4"}, "modelopt_fp4"),
    ({"quant_algo": "W4A16_NVFP4"}, "modelopt_fp4"),
    ({"quant_algo": "MXFP8"}, "mxfp8"),
    ({"quant_algo": "MIXED_PRECISION",
      "quantized_layers": {"a": {"quant_algo": "nvfp4"}}}, "modelopt_mixed"),
    ({"quant_algo": "MIXED_PRECISION", "quantized_layers": {"a": {"quant_algo": "FP8"}}},
     "w4afp8"),
    ({"quant_algo": "INT8"}, None),
    ({"quantization": {"quant_algo": "FP8"}}, "modelopt_fp8"),  # hf_quant_config.json form
    ({"quantization": {"quantization": {"quant_algo": "NVFP4"}}}, "modelopt_fp4"),
    ({"quantization": "FP8"}, None),
    ({"quant_algo": 8}, None),
    ({}, None),
])
def test_modelopt_parse(qc, method):
    parsed = modelopt_parse(qc)
    assert (parsed or {}).get("quant_method") == method


@pytest.mark.parametrize("config, sidecars, method", [
    ({}, {}, None),
    ({"quantization_config": None}, {}, None),
    ({"quantization_config": {"quant_method": "FP8"}}, {}, "fp8"),
    ({"quantization_config": {"quant_method": "modelopt", "quant_algo": "FP8"}}, {},
     "modelopt_fp8"),
    ({"quantization_config": {"quant_method": "modelopt", "quant_algo": "INT4"}}, {},
     "modelopt"),
    ({"quantization_config": {"quant_algo": "NVFP4"}}, {}, "modelopt_fp4"),
    ({"quantization_config": {}}, {}, ""),  # a description without a name
    ({"quantization_config": {"bits": 4, "group_size": 64}}, {}, ""),
    ({"compression_config": {"quant_method": "compressed-tensors"}}, {}, "compressed-tensors"),
    ({}, {"hf_quant_config": {"quantization": {"quant_algo": "FP8"}}}, "modelopt_fp8"),
    ({"quantization_config": {"quant_method": "fp8"}},
     {"hf_quant_config": {"quantization": {"quant_algo": "NVFP4"}}}, "fp8"),
    ({"quantization_config": {"quant_method": "fp8"}}, {"modelslim": {"x": 1}}, "modelslim"),
])
def test_detect_quant_method(config, sidecars, method):
    assert detect_quant_method(config, **sidecars) == method


def test_modelslim_is_ignored_for_drafts():
    config = {"quantization_config": {"quant_method": "fp8"}}
    assert detect_quant_method(config, modelslim={}, is_draft=True) == "fp8"


# --- the override pass (awq → awq_marlin and friends) -------------------------------------

AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}
GPTQ = {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True, "desc_act": False}


@pytest.mark.parametrize("qc, cli, platform, claimed", [
    (AWQ, None, H100, "awq_marlin"),
    (AWQ, "marlin", H100, "awq_marlin"),
    (AWQ, "awq", H100, None),  # explicit awq keeps the slow kernel
    (AWQ, None, T4, None),  # marlin needs SM80
    (AWQ, None, MI300X, None),  # CUDA only
    ({**AWQ, "zero_point": False}, None, H100, None),
    ({**AWQ, "bits": 8}, None, H100, None),
    ({**AWQ, "group_size": 256}, None, H100, None),
    ({**AWQ, "group_size": [128]}, None, H100, None),
    ({**GPTQ, "group_size": {"a": 1}}, None, H100, None),
    (GPTQ, None, H100, "gptq_marlin"),
    (GPTQ, None, MI300X, "gptq_marlin"),  # ROCm passes the capability test, then is refused
    (GPTQ, "gptq", H100, None),
    ({**GPTQ, "bits": 8}, None, H100, "gptq_marlin"),
    ({**GPTQ, "sym": False}, None, H100, None),
    ({k: v for k, v in GPTQ.items() if k != "desc_act"}, None, H100, None),
    ({**GPTQ, "checkpoint_format": "marlin"}, None, H100, None),
    ({**GPTQ, "is_marlin_format": True}, None, H100, None),
    (GPTQ, "moe_wna16", H100, "moe_wna16"),
    ({**GPTQ, "desc_act": True}, "moe_wna16", H100, None),
    (AWQ, "moe_wna16", T4, "moe_wna16"),
    ({"quant_method": "modelopt_fp4"}, None, H100, "modelopt_fp4"),
    ({"quant_method": "modelopt", "quant_algo": "FP8"}, "modelopt", H100, "modelopt_fp8"),
    ({"quant_method": "modelopt", "quant_algo": "MXFP8"}, "modelopt", H100, "mxfp8"),
    ({"quant_method": "modelopt_fp4"}, "nvfp4_online", H100, None),
    ({"quant_method": "modelopt_fp4"}, "quark_mxfp4", H100, None),
    ({"quant_method": "modelopt_mixed"}, None, H100, "modelopt_mixed"),
    ({"quant_method": "modelopt"}, None, MI300X, "petit_nvfp4"),
    ({"quant_method": "modelopt"}, None, H100, None),
    ({"quant_method": "fp8"}, "humming", H100, "humming"),
    ({"quant_method": "mxfp4"}, "humming", H100, None),
    ({"bits": 4, "group_size": 64}, None, APPLE, "mlx_q4"),
    ({"bits": 8, "group_size": 64}, None, APPLE, "mlx_q8"),
    ({"bits": 4, "group_size": 64}, None, H100, None),
    ({"bits": 4, "group_size": 64}, "fp8", APPLE, None),
])
def test_checkpoint_override(qc, cli, platform, claimed):
    assert checkpoint_override(qc, cli, platform) == claimed


def test_draft_nvfp4_online_skips_the_override_pass():
    qc = {"quant_method": "modelopt_fp4"}
    assert checkpoint_override(qc, "nvfp4_online", H100, is_draft=True) is None


# --- reconciliation (§3.3) ------------------------------------------------------------------

@pytest.mark.parametrize("cli, checkpoints", sorted(q.CLI_ACCEPTS_CHECKPOINT.items()))
def test_compatible_pairs_keep_the_cli(cli, checkpoints):
    for detected in checkpoints:
        assert reconcile_quantization(detected, cli, is_draft=False) == cli


@pytest.mark.parametrize("detected, cli, is_draft, result", [
    (None, None, False, None),
    (None, "fp8", False, "fp8"),  # online quantization of an unquantized checkpoint
    ("fp8", None, False, "fp8"),
    ("fp8", "FP8", False, "fp8"),
    ("", "fp8", False, "fp8"),  # an unnamed description takes the CLI's name
    ("", None, False, ""),
    ("fp8", "quark_mxfp4", False, "quark_mxfp4"),  # requantization
    ("fp8", "awq", True, "fp8"),  # a draft takes its checkpoint's method
    ("modelopt_fp4", "nvfp4_online", True, "nvfp4_online"),
])
def test_reconcile(detected, cli, is_draft, result):
    assert reconcile_quantization(detected, cli, is_draft=is_draft) == result


def test_reconcile_mismatch_and_draft_requantization():
    with pytest.raises(QuantizationMismatch) as err:
        reconcile_quantization("fp8", "awq", is_draft=False)
    assert "'fp8'" in err.value.message and "'awq'" in err.value.message
    assert err.value.checkpoint == "fp8" and err.value.requested == "awq"
    assert reconcile_quantization("fp8", "quark_mxfp4", is_draft=True) == "fp8"
    assert reconcile_quantization("fp8", "quark_mxfp4", is_draft=True,
                                  draft_requantization_allowed=True) == "quark_mxfp4"


# --- the whole verification, on bundled checkpoints -----------------------------------------

def test_gpt_oss_fails_on_mi300x_and_passes_on_mi355x():
    clear_cache()
    qc = load_model("gpt-oss-20b").quant_config
    with pytest.raises(UnknownQuantization):
        verify_quantization(qc, None, MI300X)
    assert verify_quantization(qc, None, MI355X).method == "mxfp4"
    assert verify_quantization(qc, None, H100).method == "mxfp4"
    assert verify_quantization(qc, "quark_mxfp4", MI300X).method == "quark_mxfp4"


def test_verify_quantization_end_to_end():
    clear_cache()
    fp8 = load_model("deepseek-v3").quant_config
    assert verify_quantization(fp8, None, H100) == q.QuantVerdict("fp8")
    assert verify_quantization(fp8, "modelopt_fp4", H100).method == "modelopt_fp4"
    with pytest.raises(QuantizationMismatch):
        verify_quantization(fp8, "awq", H100)
    assert verify_quantization(fp8, "awq", H100, is_draft=True).method == "fp8"
    plain = load_model("llama-3.1-8b").quant_config
    assert plain is None
    assert verify_quantization(plain, None, H100).method is None
    assert verify_quantization(plain, "fp8", H100).method == "fp8"
    with pytest.raises(UnknownQuantization):
        verify_quantization(plain, "gptq", H100)
    assert verify_quantization(AWQ, None, H100).method == "awq_marlin"
    assert verify_quantization(AWQ, "awq", H100).method == "awq"
    with pytest.raises(NotSupportedOnRocm):
        verify_quantization(GPTQ, None, MI300X)
    with pytest.raises(UnknownQuantization) as empty:
        verify_quantization({"bits": 4}, None, H100)
    assert empty.value.method == ""
    assert verify_quantization({"bits": 4}, "fp8", H100).method == "fp8"
    assert verify_quantization({"bits": 4, "group_size": 32}, None, APPLE).method == "mlx_q4"


def test_platform_from_target():
    from launchplan.facts.targets import get_target

    p = QuantPlatform.from_target(get_target("mi355x"))
    assert (p.vendor, p.sm, p.is_gfx95, p.is_hip) == ("amd", 95, True, True)
    assert QuantPlatform.from_target(get_target("h100")) == H100


@pytest.mark.parametrize("declared, method", [
    ({"quant_method": "modelopt", "quant_algo": "NVFP4"}, "modelopt_fp4"),
    ({"quant_algo": "FP8"}, "modelopt_fp8"),
    ({"quant_method": "modelopt", "quant_algo": "SOMETHING_ELSE"}, "modelopt"),
    ({"quant_method": "fp8", "quant_algo": "NVFP4"}, "fp8"),  # only modelopt is refined
])
def test_a_modelopt_config_json_names_the_method_sglang_rules_read(tmp_path, declared, method):
    """SGLang's model config refines a ModelOpt ``quantization_config`` in the config's own
    mapping, so the overrides that read the checkpoint's method see ``modelopt_fp4`` where
    the file says ``modelopt`` with NVFP4 (a published NVFP4 Kimi K2.6 checkpoint: SGLang
    0.5.23 resolves ``quantization`` to modelopt_fp4 on B200, the hub suite records it)."""
    import json

    (tmp_path / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
        "num_attention_heads": 32, "num_hidden_layers": 2, "vocab_size": 1000,
        "quantization_config": declared}))
    clear_cache()
    model = load_model(str(tmp_path))
    assert model.quantization_config.get("quant_method", "modelopt") == method
    if "quant_algo" in declared:
        assert model.quantization_config["quant_algo"] == declared["quant_algo"]


def test_hybrid_nvfp4_experts_reads_the_published_v4_nvfp4_config():
    """nvidia/DeepSeek-V4-Flash-NVFP4 (an FP8 quant_method with NVFP4 MoE layers) is a hybrid
    NVFP4 MoE checkpoint; the plain V4-Flash FP8 one and a ModelOpt NVFP4 one are not."""
    models = Path(__file__).resolve().parents[1] / "parity" / "models"
    assert q.hybrid_nvfp4_experts(load_model(str(models / "deepseek-v4-flash-nvfp4")))
    assert not q.hybrid_nvfp4_experts(load_model(str(models / "deepseek-v4-flash")))
    assert not q.hybrid_nvfp4_experts(SimpleNamespace(quantization_config={
        "quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}))
    assert not q.hybrid_nvfp4_experts(SimpleNamespace(quantization_config=None))


FP8_SCHEME = {"type": "float", "num_bits": 8, "dynamic": False}
CT_STATIC = {"type": "float", "num_bits": 8, "strategy": "tensor", "symmetric": True,
             "dynamic": False}


@pytest.mark.parametrize(("config", "hf_quant", "method", "expected"), [
    # ModelOpt, flat (config.json): the scheme mapping, or kv_cache_quant_algo
    ({"quantization_config": {"quant_algo": "NVFP4", "kv_cache_scheme": FP8_SCHEME}}, None,
     "modelopt_fp4", "FP8"),
    ({"quantization_config": {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}}, None,
     "modelopt_fp8", "FP8"),
    ({"quantization_config": {"quant_algo": "NVFP4",
                              "kv_cache_scheme": {"type": "int", "num_bits": 8}}}, None,
     "modelopt_fp4", "auto"),
    # a scheme named by a string: the FP4 method maps it, the FP8 method does not
    ({"quantization_config": {"quant_algo": "NVFP4", "kv_cache_scheme": "FP8"}}, None,
     "modelopt_fp4", "FP8"),
    ({"quantization_config": {"quant_algo": "FP8", "kv_cache_scheme": "FP8"}}, None,
     "modelopt_fp8", None),
    # nested: hf_quant_config.json alone
    ({}, {"quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8"}},
     "modelopt_fp4", "FP8"),
    # modelopt_mixed: config.json without the KV metadata falls through to the file
    ({"quantization_config": {"quant_algo": "MIXED_PRECISION", "quantized_layers": {}}},
     {"quantization": {"quant_algo": "MIXED_PRECISION", "kv_cache_quant_algo": "FP8"}},
     "modelopt_mixed", "FP8"),
    # compressed-tensors: a static symmetric per-tensor FP8 scheme only
    ({"quantization_config": {"quant_method": "compressed-tensors",
                              "kv_cache_scheme": CT_STATIC}}, None, "compressed-tensors",
     "FP8"),
    ({"quantization_config": {"quant_method": "compressed-tensors",
                              "kv_cache_scheme": {**CT_STATIC, "dynamic": True}}}, None,
     "compressed-tensors", None),
    ({"quantization_config": {"quant_method": "fp8", "kv_cache_quant_algo": "FP8"}}, None,
     "fp8", "FP8"),
    ({"quantization_config": {"quant_method": "awq"}}, None, "awq", None),
    ({}, None, None, None),
])
def test_the_kv_cache_a_checkpoint_declares_is_read_where_sglang_reads_it(
        config, hf_quant, method, expected):
    assert q.checkpoint_kv_algo(config, hf_quant, method) == expected


def test_a_checkpoint_declaring_an_fp8_kv_cache_gets_an_fp8_pool_under_auto():
    from launchplan.memory.plan import memory_plan
    from launchplan.planner import resolve

    def per_token(flags):
        plan = memory_plan(resolve(flags, gpu="b200",
                                   model_path="nvidia/Llama-3.1-70B-Instruct-FP8"))
        return plan.kv_bytes_per_token

    # SGLang sizes the pool from the checkpoint's FP8 declaration (its scales calibrate it)
    assert per_token(["--tp", "8"]) == per_token(["--tp", "8", "--kv-cache-dtype", "fp8_e4m3"])
    assert per_token(["--tp", "8", "--kv-cache-dtype", "bf16"]) == \
        2 * per_token(["--tp", "8"])
