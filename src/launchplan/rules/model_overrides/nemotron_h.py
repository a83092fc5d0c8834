"""Nemotron-H (hybrid Mamba): ModelOpt quantization, MoE runners, Blackwell backends."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    BATCH,
    arch0,
    backends_unset,
    config,
    model_quantization,
    quantization_config,
    text_config,
)

ARCHS = frozenset({"NemotronHForCausalLM", "NemotronHPuzzleForCausalLM",
                   "NemotronH_Omni_Reasoning_V3"})
MODELOPT = ("modelopt", "modelopt_fp8", "modelopt_fp4", "modelopt_mixed")


def _modelopt_method(v: Any) -> str | Refuse | None:
    """The ModelOpt method of the checkpoint, from ``quant_algo`` when it says "modelopt".

    That key is indexed, not looked up: a plain ``modelopt`` with no ``quant_algo`` in
    config.json's ``quantization_config`` (or no such mapping at all) stops SGLang with a
    bare attribute or key error, so it is refused here."""
    detected = model_quantization(v)
    if detected != "modelopt":
        return detected
    qc = v.model.quantization_config
    if not isinstance(qc, Mapping) or "quant_algo" not in qc:
        where = ("its quantization_config has no quant_algo" if isinstance(qc, Mapping)
                 else "its config.json has no quantization_config")
        return Refuse("quantization modelopt on Nemotron-H: SGLang reads the ModelOpt method "
                      f"from the checkpoint's quant_algo, and {where}; name the method "
                      "(--quantization modelopt_fp8 or modelopt_fp4)")
    algo = qc.get("quant_algo")
    if algo == "MIXED_PRECISION":
        return "modelopt_mixed"
    return "modelopt_fp4" if algo == "NVFP4" else "modelopt_fp8"


def _expert_remap_refusal(v: Any) -> str | None:
    if v.moe_runner_backend == "flashinfer_trtllm":
        return ("flashinfer_trtllm routes inside its kernel and cannot take EPLB or redundant "
                "experts on Nemotron-H; use --moe-runner-backend flashinfer_trtllm_routed")
    if (v.enable_eplb and v.moe_runner_backend == "flashinfer_cutedsl"
            and v.moe_a2a_backend == "none"):
        return ("flashinfer_cutedsl without an A2A backend does not move expert scales when "
                "EPLB rebalances; use flashinfer_trtllm_routed or set --moe-a2a-backend")
    if arch0(v) == "NemotronHPuzzleForCausalLM":
        counts = {b.get("n_routed_experts") for b in config(v).get("block_configs") or ()
                  if isinstance(b, Mapping) and b.get("block_type") == "moe"}
        if len(counts) > 1:
            return ("EPLB and redundant experts need the same routed expert count in every "
                    f"MoE layer, got {sorted(counts)}")
    return None


def _moe_runner(v: Any, is_modelopt: bool, quantization: str | None,
                remap: bool) -> str | Refuse | None:
    t = v.target
    auto = v.moe_runner_backend == "auto"
    if is_modelopt and quantization == "modelopt_mixed" \
            and not isinstance(v.model.quantization_config, Mapping):
        # SGLang reads the mixed checkpoint's per-layer table off the config's attribute
        return Refuse("quantization modelopt_mixed on Nemotron-H: SGLang reads each layer's "
                      "method from the checkpoint's quantization_config, and its config.json "
                      "has none")
    layers = quantization_config(v).get("quantized_layers") or {}
    w4a16 = is_modelopt and quantization == "modelopt_mixed" and any(
        isinstance(info, Mapping) and info.get("quant_algo") == "W4A16_NVFP4"
        and ".experts." in name for name, info in layers.items())
    if w4a16:
        if v.moe_a2a_backend != "none":
            return Refuse("W4A16_NVFP4 MoE layers need --moe-a2a-backend none")
        if v.moe_runner_backend not in ("auto", "marlin"):
            return Refuse("W4A16_NVFP4 MoE layers need --moe-runner-backend marlin")
        return "marlin" if auto else None
    if remap and auto and t.is_sm100 and v.moe_a2a_backend == "none":
        return "flashinfer_trtllm_routed"
    detected = model_quantization(v)
    if (is_modelopt or detected is None) and auto:
        if t.is_sm100 and v.moe_a2a_backend == "none":
            return "flashinfer_trtllm"
        if ((detected in ("modelopt_fp4", "modelopt_mixed") or quantization == "modelopt_fp4")
                and t.is_cuda and (8, 0) <= t.capability < (10, 0)):
            return "marlin"
        return "flashinfer_cutlass"
    return None


def _blackwell_backends(v: Any, out: dict[str, Any]) -> None:
    t = v.target
    algorithm = v.speculative_algorithm
    if algorithm is None:
        if t.is_sm100:
            out["attention_backend"] = "trtllm_mha"
        return
    algorithm = str(algorithm).upper()
    if t.is_sm100 and v.speculative_eagle_topk in (None, 1):
        out["attention_backend"] = "trtllm_mha"
        if v.page_size is None:
            out["page_size"] = 64
        if v.mamba_radix_cache_strategy == "auto":
            out["mamba_radix_cache_strategy"] = "extra_buffer"
        if (v.speculative_draft_attention_backend is None
                and algorithm in ("EAGLE", "NEXTN", "DSPARK")):
            out["speculative_draft_attention_backend"] = "trtllm_mha"
    else:
        out["attention_backend"] = "triton"
        if (v.speculative_draft_attention_backend is None
                and algorithm in ("EAGLE", "NEXTN", "DFLASH", "DSPARK")):
            out["speculative_draft_attention_backend"] = "flashinfer"


_OVERRIDES = dict(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS + (
        "quantization", "enable_eplb", "ep_num_redundant_experts", "init_expert_location",
        "moe_runner_backend", "moe_a2a_backend", "speculative_algorithm",
        "speculative_eagle_topk", "page_size", "mamba_radix_cache_strategy",
        "speculative_draft_attention_backend"),
    writes=("quantization", "moe_runner_backend", "attention_backend", "page_size",
            "mamba_radix_cache_strategy", "speculative_draft_attention_backend"),
    facts=("model.arch0", "model.quant_method", "model.config", "target.is_sm100",
           "target.is_blackwell", "target.is_cuda", "target.capability",
           "model.quant_config", "model.quantization_config", "target.gfx", "target.sm",
           "target.vendor"),
)


@rule(**_OVERRIDES, sglang="_nemotron_h_overrides (model_overrides/nemotron_h.py)")
def nemotron_h_overrides(v: View) -> dict | Refuse | None:
    """Nemotron-H: ModelOpt method, MoE runner and Blackwell attention defaults.

    When: whenever its promises hold; each field has its own condition below.
    Effect: a ModelOpt checkpoint (relu2 MLP required, else refused) sets ``quantization`` to its
        exact method. ``moe_runner_backend`` when automatic: marlin for W4A16 NVFP4 experts;
        flashinfer_trtllm_routed with EPLB/redundant experts on SM10x; for ModelOpt or
        unquantized weights flashinfer_trtllm on SM10x without A2A, marlin for FP4 on SM80-SM9x,
        else flashinfer_cutlass. On Blackwell with no backend chosen: trtllm_mha on SM10x; under
        speculation, trtllm_mha with page 64, the extra-buffer Mamba cache and a trtllm_mha draft
        when top-k is 1 on SM10x, otherwise triton with a flashinfer draft. Refuses expert
        remapping (EPLB, redundant experts) on runners that cannot follow it, and W4A16 NVFP4
        experts on other runners or A2A backends; refuses a plain ``modelopt`` method when the
        checkpoint's ``quantization_config`` names no ``quant_algo`` (SGLang indexes it), and
        ``modelopt_mixed`` when config.json has no ``quantization_config`` at all.
    Why: flashinfer_trtllm routes inside its kernel, so remapped experts need the routed variant
        (``_nemotron_h_overrides``, arg_groups/model_overrides/nemotron_h.py).
    Assumes: nothing.
    """
    return _overrides(v, expert_remap=True)


def _overrides(v: Any, *, expert_remap: bool) -> dict | Refuse | None:
    out: dict[str, Any] = {}
    is_modelopt = model_quantization(v) in MODELOPT
    quantization = v.quantization
    if is_modelopt:
        language = text_config(v) if arch0(v) == "NemotronH_Omni_Reasoning_V3" else config(v)
        if language.get("mlp_hidden_act", "relu2") != "relu2":  # relu2: the class default
            return Refuse("a ModelOpt Nemotron-H checkpoint must use the relu2 MLP activation")
        method = _modelopt_method(v)
        if isinstance(method, Refuse):
            return method
        out["quantization"] = quantization = method
    remap = expert_remap and (v.enable_eplb or v.ep_num_redundant_experts > 0
                              or v.init_expert_location != "trivial")
    if remap:
        reason = _expert_remap_refusal(v)
        if reason:
            return Refuse(reason)
    runner = _moe_runner(v, is_modelopt, quantization, remap)
    if isinstance(runner, Refuse):
        return runner
    if runner is not None:
        out["moe_runner_backend"] = runner
    if v.target.is_blackwell and backends_unset(v):
        _blackwell_backends(v, out)
    return out or None


@rule(name="nemotron_h_overrides", variant="0.5.22", **_OVERRIDES,
      sglang="_nemotron_h_overrides (0.5.21-0.5.22)")
def nemotron_h_overrides_0_5_22(v: View) -> dict | Refuse | None:
    """0.5.21-0.5.22: as ``nemotron_h_overrides``, with nothing said about expert remapping.

    When: as ``nemotron_h_overrides``.
    Effect: as ``nemotron_h_overrides``, but EPLB, redundant experts and a non-trivial initial
        expert layout neither pick flashinfer_trtllm_routed nor refuse a runner.
    Why: the expert-remap validation and its routed-runner default came in 0.5.23
        (``_nemotron_h_overrides`` in 0.5.22 has neither).
    Assumes: nothing.
    """
    return _overrides(v, expert_remap=False)
