"""Routed experts kept off the GPU: what such a launch needs to start.

Paged experts (``--enable-paged-experts``): SGLang 0.5.23's resolution does nothing with the
switch; the first MoE layer built checks the launch (``check_paged_experts_compat``) and
raises one error listing every problem. The feature keeps ``--paged-experts-num-resident``
routed experts per MoE layer on the GPU and pages the rest in from pinned host memory, one
GPU only, with CUDA graphs that can break out for the host-planned waves.

KTransformers (``--kt-weight-path``): the CPU runs the experts past ``--kt-num-gpu-experts``;
the GPU's MoE method is built for that many experts, so the count must be given.

A model without MoE layers never reaches either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launchplan.checks.launch_requirements import experts
from launchplan.checks.predicates import Cond, Requirement, Severity, Values, cond
from launchplan.facts.memo import per_object

START = Severity.FAILS_AT_START
EVIDENCE = ("sglang/srt/layers/moe/paged_experts/method.py: check_paged_experts_compat, "
            "run by make_for_layer when FusedMoE builds its first layer, raises RuntimeError")
SINGLE_GPU = ("tp_size", "ep_size", "pp_size", "dp_size")


def _on(p: Values) -> bool:
    return p["enable_paged_experts"] is True and experts(p) > 0


ON = cond("paged experts on a MoE model", _on, "enable_paged_experts")


@per_object
def router_top_k(model: Any) -> int | None:
    """Experts each token is routed to (``num_experts_per_tok``), when the config says."""
    cfg = getattr(model, "text_config", None)
    value = cfg.get("num_experts_per_tok") if isinstance(cfg, Mapping) else None
    return value if type(value) is int and value > 0 else None


def problems(p: Values) -> list[tuple[str, str]]:
    """(field, problem) for everything the check would list for this plan, in its order."""
    out = [(name, f"{name} {p[name]} (one GPU only)") for name in SINGLE_GPU
           if not (type(p[name]) is int and p[name] <= 1)]
    if p["enable_eplb"]:
        out.append(("enable_eplb", "--enable-eplb (expert load balancing moves experts the "
                    "pager tracks)"))
    if p["speculative_algorithm"] is not None:
        out.append(("speculative_algorithm",
                    f"speculative decoding ({p['speculative_algorithm']})"))
    prefill, decode = p.graph("prefill", "backend"), p.graph("decode", "backend")
    if prefill not in ("breakable", "disabled"):
        out.append(("cuda_graph_config.prefill.backend", f"a {prefill} prefill CUDA graph "
                    "(expert waves need breakable or disabled)"))
    if decode not in ("full", "disabled"):
        out.append(("cuda_graph_config.decode.backend", f"a {decode} decode CUDA graph "
                    "(full or disabled)"))
    if p["load_format"] == "dummy":
        out.append(("load_format", "--load-format dummy (the host store needs real weights)"))
    resident, top_k = p["paged_experts_num_resident"], router_top_k(p.model)
    if type(resident) is not int:
        out.append(("paged_experts_num_resident", "no --paged-experts-num-resident"))
    elif top_k is not None and resident < top_k:
        out.append(("paged_experts_num_resident", f"paged_experts_num_resident {resident} "
                    f"below the router's top-k {top_k}"))
    if p["enable_fused_moe_sum_all_reduce"]:
        out.append(("enable_fused_moe_sum_all_reduce", "--enable-fused-moe-sum-all-reduce "
                    "(paged experts sum the top-k outputs themselves)"))
    return out


NEEDS = ("tp_size", "ep_size", "pp_size", "dp_size", "enable_eplb", "speculative_algorithm",
         "cuda_graph_config.prefill.backend", "cuda_graph_config.decode.backend",
         "load_format", "paged_experts_num_resident", "enable_fused_moe_sum_all_reduce")
COMPATIBLE = Cond("a launch paged experts support", lambda p: not problems(p), NEEDS,
                  lambda p: tuple(dict.fromkeys(f for f, _ in problems(p))))

OFFLOADED_EXPERTS_REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        "paged-experts-compatible", ON, COMPATIBLE,
        "paged experts keep a few routed experts per MoE layer on one GPU and page the rest "
        "in from host memory: one GPU, no speculation or expert load balancing, CUDA graphs "
        "that can break out for the paging waves, real weights, a resident count of at "
        "least the router's top-k", START, EVIDENCE,
        detail=lambda p: "paged experts cannot start with " + "; ".join(
            text for _, text in problems(p))),
    Requirement(
        "kt-gpu-experts-given",
        cond("KTransformers CPU experts on a MoE model",
             lambda p: p["kt_weight_path"] is not None and experts(p) > 0, "kt_weight_path"),
        cond("--kt-num-gpu-experts given (0 or more)",
             lambda p: type(p["kt_num_gpu_experts"]) is int and p["kt_num_gpu_experts"] >= 0,
             "kt_num_gpu_experts"),
        "the GPU's share of each MoE layer is built for --kt-num-gpu-experts experts; without "
        "the count there is nothing to build it for", START,
        "sglang/srt/layers/moe/kt_ep_wrapper.py: KTEPWrapperMethod.create_weights builds the "
        "wrapped GPU method with num_experts=kt_num_gpu_experts (None by default)",
        detail=lambda p: (f"--kt-weight-path with kt_num_gpu_experts "
                          f"{p['kt_num_gpu_experts']}")),
)
