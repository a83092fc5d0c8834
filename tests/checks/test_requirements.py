"""Requirements as data, and one test per rules.md §10 conflict that a requirement states.

Each test resolves a real plan and checks which requirement it breaks and which rules'
declarations produced the offending values.
"""

from __future__ import annotations

import pytest

from launchplan import resolve
from launchplan.checks.requirements import REQUIREMENTS, Plan, check
from launchplan.errors import Refusal


def violations(argv, gpu="b200", model="llama-3.1-8b", compat="default"):
    result = resolve(argv, gpu=gpu, model_path=model, compat=compat)
    return {v.requirement.name: v for v in check(result)}


def test_the_table_is_data_with_unique_names_and_reasons():
    names = [r.name for r in REQUIREMENTS]
    assert len(names) == len(set(names))
    assert all(r.why and r.when.text and r.needs.text for r in REQUIREMENTS)


def test_c1_fa4_page_force_against_full_prefill_graph():
    argv = ["--attention-backend", "fa4", "--cuda-graph-backend-prefill", "full"]
    found = violations(argv, compat="0.5.23")
    c1 = found["full-prefill-graph-fa-page-1"]
    assert c1.sources == ("fa4_page_constraint",)
    assert c1.values["page_size"] == 128
    assert "full-prefill-graph-fa-page-1" not in violations(argv)  # the later fix


def test_c1_neighbour_survives_the_fix():
    argv = ["--prefill-attention-backend", "fa4", "--cuda-graph-backend-prefill", "full"]
    found = violations(argv)
    assert found["full-prefill-graph-fa-page-1"].sources == ("backend_page_snaps",)
    assert found["full-prefill-graph-fa-page-1"].values["page_size"] == 64


def test_c2_c3_eagle_auto_topk_against_page_and_trtllm_mha_is_refused():
    eagle = ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path",
             "llama-3.1-8b-eagle"]
    with pytest.raises(Refusal):
        resolve(["--attention-backend", "fa4", *eagle], gpu="b200", model_path="llama-3.1-8b")
    with pytest.raises(Refusal):
        resolve(["--attention-backend", "trtllm_mha", *eagle], gpu="b200",
                model_path="llama-3.1-8b")


def test_c5_trtllm_mha_snap_then_fa4_is_legal():
    found = violations(["--prefill-attention-backend", "fa4",
                        "--decode-attention-backend", "trtllm_mha"])
    assert "trtllm-mha-page" not in found and "fa4-page" not in found


def test_c13_reserve_computed_before_a_later_graph_disable():
    found = violations(["--attention-backend", "torch_native"])
    assert "mem_fraction_default" in found["mem-fraction-reserve"].sources
    assert "mem-fraction-reserve" not in violations([])


def test_c13_reserve_before_the_deepseek_trtllm_mla_prefill_disable():
    found = violations(["--tp-size", "8"], model="deepseek-v3")
    assert "mem-fraction-reserve" in found


def test_c14_decode_graph_sized_before_speculation_caps_requests():
    found = violations(["--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
                        "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
                        "--speculative-draft-model-path", "llama-3.1-8b-eagle"], gpu="h100")
    c14 = found["decode-graph-within-running-limit"]
    assert c14.values["max_running_requests"] == 48
    assert c14.values["cuda_graph_config.decode.max_bs"] == 256


def test_c17_fa3_split_sides_keep_e5m2():
    found = violations(["--prefill-attention-backend", "fa3", "--decode-attention-backend",
                        "fa3", "--attention-backend", "fa3", "--kv-cache-dtype", "fp8_e5m2"],
                       gpu="h100")
    # the base fell back to triton, but the split sides still run fa3 with e5m2
    assert "fa3-kv-e4m3" in found


def test_c24_attention_dp_chunk_division_against_page_size():
    found = violations(["--tp-size", "3", "--dp-size", "3", "--enable-dp-attention",
                        "--page-size", "64", "--attention-backend", "triton"])
    assert "chunk-multiple-of-page" in found
    assert found["chunk-multiple-of-page"].values["chunked_prefill_size"] == 16384 // 3


def test_fa3_on_blackwell_passes_resolution_but_breaks_the_kernel_requirement():
    assert "fa3-gpu" in violations(["--attention-backend", "fa3"])
    assert "fa3-gpu" not in violations(["--attention-backend", "fa3"], gpu="h100")


@pytest.mark.parametrize(("backend", "row", "broken_on", "fine_on"), [
    ("aiter", "aiter-rocm", "h100", "mi300x"),  # AMD's library: ROCm builds only
    ("ascend", "ascend-npu", "h100", None),  # torch_npu: no GPU target has it
    ("intel_amx", "intel-amx-cpu", "mi355x", None),  # the CPU build's kernels
])
def test_a_backend_of_another_platform_fails_at_start(backend, row, broken_on, fine_on):
    argv = ["--attention-backend", backend]
    assert row in violations(argv, gpu=broken_on)
    if fine_on is not None:
        assert row not in violations(argv, gpu=fine_on)
    assert row not in violations(["--attention-backend", "triton"], gpu=broken_on)


def test_default_plans_of_every_bundled_model_are_clean_on_h100():
    for model in ("llama-3.1-8b", "qwen3-8b", "mistral-7b-v0.3", "qwen2.5-7b"):
        assert violations([], gpu="h100", model=model) == {}


def test_plan_reads_dotted_graph_keys():
    result = resolve([], gpu="b200", model_path="llama-3.1-8b")
    plan = Plan(result)
    assert plan["cuda_graph_config.prefill.backend"] == "breakable"
    assert plan.graph("decode", "max_bs") == 512


def test_a_cpu_server_without_torch_compile_captures_no_decode_graph():
    """C19 leaves a CPU server on torch_native with its decode graph still configured, but
    SGLang's decode capture returns before anything is captured on a CPU device unless
    torch.compile is on: the eager backend then needs no graph state (h21 F7)."""
    argv = ["--model-path", "qwen2.5-0.5b", "--device", "cpu",
            "--cuda-graph-backend-prefill", "disabled"]
    eager = resolve(argv, gpu="h100")
    assert eager.value("attention_backend") == "torch_native"
    assert eager.value("cuda_graph_config")["decode"]["backend"] != "disabled"
    assert "eager-backend-no-graphs" not in {v.requirement.name for v in check(eager)}
    compiled = resolve([*argv, "--enable-torch-compile"], gpu="h100")
    assert "eager-backend-no-graphs" in {v.requirement.name for v in check(compiled)}
