"""Routed experts kept off the GPU. Paged experts (``--enable-paged-experts``): the launches
SGLang 0.5.23's first MoE layer refuses to build (``check_paged_experts_compat``) are
preflight problems, each named; KTransformers (``--kt-weight-path``) needs its GPU expert
count. A dense model never builds such a layer, so the switches are harmless there."""

from __future__ import annotations

import pytest

from launchplan import resolve
from launchplan.checks.offloaded_experts import router_top_k
from launchplan.checks.preflight import preflight

ROW = "paged-experts-compatible"
GOOD = ["--enable-paged-experts", "--paged-experts-num-resident", "16"]


def problem(argv: list[str], model: str = "qwen3-30b-a3b", gpu: str = "h100"):
    report = preflight(resolve(argv, gpu=gpu, model_path=model))
    found = [p for p in report.problems if p.requirement == ROW]
    return found[0] if found else None


def test_a_supported_launch_starts():
    assert problem(GOOD) is None


def test_a_dense_model_never_reaches_the_check():
    assert problem(["--enable-paged-experts"], model="llama-3.1-8b") is None


def test_the_switch_off_is_no_problem():
    assert problem(["--tp", "2"]) is None


@pytest.mark.parametrize(("extra", "field"), [
    (["--tp", "2"], "tp_size"),
    (["--tp", "2", "--ep", "2"], "ep_size"),
    (["--pp-size", "2"], "pp_size"),
    (["--tp", "2", "--ep", "2", "--enable-eplb"], "enable_eplb"),  # EPLB needs ep > 1
    (["--cuda-graph-backend-prefill", "full"], "cuda_graph_config.prefill.backend"),
    (["--load-format", "dummy"], "load_format"),
    (["--enable-fused-moe-sum-all-reduce"], "enable_fused_moe_sum_all_reduce"),
])
def test_each_unsupported_setting_is_named(extra, field):
    found = problem([*GOOD, *extra])
    assert found is not None and found.severity.value == "fails-at-start"
    assert field in found.values


def test_the_resident_count_is_required_and_covers_the_router_top_k():
    assert router_top_k(resolve([], gpu="h100", model_path="qwen3-30b-a3b").record.model) == 8
    missing = problem(["--enable-paged-experts"])
    assert missing is not None and "no --paged-experts-num-resident" in missing.why
    few = problem(["--enable-paged-experts", "--paged-experts-num-resident", "4"])
    assert few is not None and "below the router's top-k 8" in few.why
    assert problem(["--enable-paged-experts", "--paged-experts-num-resident", "8"]) is None


def test_every_problem_is_listed_at_once():
    found = problem(["--enable-paged-experts", "--tp", "2", "--ep", "2", "--enable-eplb"])
    assert found is not None
    assert all(text in found.why for text in ("tp_size 2", "ep_size 2", "--enable-eplb",
                                                  "no --paged-experts-num-resident"))


@pytest.mark.parametrize(("argv", "fails"), [
    (["--kt-weight-path", "/models/cpu-experts"], True),
    (["--kt-weight-path", "/models/cpu-experts", "--kt-num-gpu-experts", "-1"], True),
    (["--kt-weight-path", "/models/cpu-experts", "--kt-num-gpu-experts", "0"], False),
    (["--kt-weight-path", "/models/cpu-experts", "--kt-num-gpu-experts", "30"], False),
    (["--kt-num-gpu-experts", "30"], False),  # no CPU experts: KTransformers is off
])
def test_ktransformers_needs_the_gpu_expert_count(argv, fails):
    report = preflight(resolve(argv, gpu="h100", model_path="qwen3-30b-a3b"))
    assert any(p.requirement == "kt-gpu-experts-given" for p in report.problems) is fails
    dense = preflight(resolve(argv, gpu="h100", model_path="llama-3.1-8b"))
    assert not any(p.requirement == "kt-gpu-experts-given" for p in dense.problems)
