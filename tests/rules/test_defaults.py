"""Defaults filled before anything reads them."""

from __future__ import annotations

from launchplan.rules.defaults import (
    cpu_attention_fallback,
    cpu_backends,
    device_default,
    missing_default_values,
    xpu_backends,
)
from tests.rules.conftest import make_view


def test_paths_default_to_the_model_and_unquant_means_none():
    out = missing_default_values(make_view(model_path="m", quantization="unquant"))
    assert out["tokenizer_path"] == "m" and out["served_model_name"] == "m"
    assert out["quantization"] is None
    assert out["speculative_draft_model_quantization"] is None  # inherited unquant
    assert out["_speculative_draft_quantization_explicitly_set"] is False


def test_draft_quantization_inherits_the_targets_input():
    out = missing_default_values(make_view(model_path="m", quantization="fp8"))
    assert out["speculative_draft_model_quantization"] == "fp8"
    out = missing_default_values(make_view(model_path="m", tokenizer_path="t",
                                           speculative_draft_model_quantization="awq"))
    assert "tokenizer_path" not in out and out["_speculative_draft_quantization_explicitly_set"]


def test_device_defaults_to_cuda_and_loses_its_index():
    assert device_default(make_view("mi300x")) == {"device": "cuda"}
    assert device_default(make_view(device="cuda:3")) == {"device": "cuda"}
    # a given device is SGLang's step's too: it strips whatever device it has (recorded on
    # a pasted ``sglang serve ... --device cuda``, PR 21752)
    assert device_default(make_view(device="cuda")) == {"device": "cuda"}


def test_a_cpu_server_samples_with_pytorch_and_attends_with_the_hosts_cpu_kernels():
    # SGLang's handle_cpu_backends: intel_amx on an x86-64 host, torch_native on Grace
    assert cpu_backends(make_view("h100", device="cpu")) == {
        "sampling_backend": "pytorch", "attention_backend": "intel_amx"}
    assert cpu_backends(make_view("gh200", device="cpu"))["attention_backend"] == "torch_native"
    # a given backend stays; the sampling backend is the hook's whatever was given
    assert cpu_backends(make_view(device="cpu", attention_backend="torch_native",
                                  sampling_backend="flashinfer")) == {
        "sampling_backend": "pytorch"}
    assert cpu_backends(make_view(device="cuda")) is None


def test_amx_attention_falls_back_to_torch_native_on_a_cpu_without_amx():
    out = cpu_attention_fallback(make_view(device="cpu", attention_backend="intel_amx"))
    assert out.fields == {"attention_backend": "torch_native"} and "AMX" in out.note
    assert cpu_attention_fallback(make_view(device="cuda", attention_backend="intel_amx")) is None
    assert cpu_attention_fallback(make_view(device="cpu", attention_backend="triton")) is None


def test_an_xpu_server_samples_with_xpu_kernels_and_leaves_decode_graphs_to_the_user():
    # SGLang's handle_xpu_backends keys on --device, not the platform: a pasted
    # ``sglang serve ... --device xpu`` resolves so on any target (issue 30335, recorded)
    from launchplan.planner import resolve

    def decode_graph(result):
        return result.value("cuda_graph_config")["decode"]["backend"]

    xpu = resolve(["--device", "xpu"], gpu="h100", model_path="qwen3-8b")
    assert xpu.value("sampling_backend") == "intel_xpu" and decode_graph(xpu) == "disabled"
    cuda = resolve([], gpu="h100", model_path="qwen3-8b")
    assert cuda.value("sampling_backend") != "intel_xpu" and decode_graph(cuda) == "full"
    # a decode backend the user chose stays when it is full, and is turned off otherwise
    chosen = ["--device", "xpu", "--sampling-backend", "pytorch"]
    full = resolve([*chosen, "--cuda-graph-backend-decode", "full"], gpu="h100",
                   model_path="qwen3-8b")
    assert decode_graph(full) == "full" and full.value("sampling_backend") == "pytorch"
    broken = resolve([*chosen, "--cuda-graph-backend-decode", "breakable"], gpu="h100",
                     model_path="qwen3-8b")
    assert decode_graph(broken) == "disabled"
    # the same on every release the rules know (0.5.21's hook is 0.5.23's)
    older = resolve(["--device", "xpu"], gpu="h100", model_path="qwen3-8b", compat="0.5.21")
    assert older.value("sampling_backend") == "intel_xpu" and decode_graph(older) == "disabled"
    # keyed on the device's value: the engine never calls it for another device
    from launchplan.engine.registry import MARK

    spec = getattr(xpu_backends, MARK)
    assert not spec.triggered({"device": "cuda"}) and spec.triggered({"device": "xpu"})
    # 0.5.23 turns the fused q/k-norm + RoPE kernel on when unset; older releases default it
    # off; a given switch stays
    assert xpu.value("enable_fused_qk_norm_rope") is True
    assert cuda.value("enable_fused_qk_norm_rope") is None
    assert older.value("enable_fused_qk_norm_rope") is False
    off = resolve(["--device", "xpu", "--no-enable-fused-qk-norm-rope"], gpu="h100",
                  model_path="qwen3-8b")
    assert off.value("enable_fused_qk_norm_rope") is False
