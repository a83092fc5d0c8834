"""MoE kernels and all-to-all backends (SGLang's P30: ``handle_moe_kernel_config`` and
``handle_a2a_moe``).

The MoE runner follows the quantization (some formats exist in one kernel family only);
shared-expert fusion is switched off where a runner or an A2A backend cannot fuse; EP-spanning
A2A backends force ``ep_size = tp_size``; DeepEP's normal (host-synchronised) dispatch and
DeepEP v2's prefill cannot be captured in CUDA graphs.
"""

from __future__ import annotations

import math
from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts import environment
from launchplan.facts.quantization import hybrid_nvfp4_experts
from launchplan.rules.graph_config import DECODE, PREFILL, with_phase
from launchplan.rules.model_overrides import model_dtype
from launchplan.rules.parallel import attn_dp_enabled

#: Set to anything, it picks the FlashInfer A2A dispatch dtype (true: NVFP4) the old way.
NVFP4_DISPATCH_ENV = "SGLANG_MOE_NVFP4_DISPATCH"
PER_TOKEN_ACTIVATION_ENV = "SGLANG_FLASHINFER_NVFP4_PER_TOKEN_ACTIVATION"

#: SGLang's launch defaults turn per-token NVFP4 activations on for this architecture's
#: modelopt_fp4 checkpoints when the variable is unset (``apply_muse_spark_env_defaults``).
PER_TOKEN_BY_DEFAULT = frozenset({"MuseSparkForConditionalGeneration"})


def per_token_nvfp4_activation(v: Any) -> bool:
    """Whether FlashInfer's NVFP4 MoE quantizes activations per token: the variable as read,
    or, unset, on for Muse Spark's modelopt_fp4 checkpoints (they carry per-token scales)."""
    if environment.given(v.env, PER_TOKEN_ACTIVATION_ENV):
        return v.record.env_flag(PER_TOKEN_ACTIVATION_ENV)
    return v.model.arch0 in PER_TOKEN_BY_DEFAULT and v.quantization == "modelopt_fp4"


def nvfp4_dispatch(v: Any) -> bool:
    """SGLANG_MOE_NVFP4_DISPATCH as SGLang reads it once the A2A checks ran: as given, or,
    unset, turned on for FlashInfer A2A with no dispatch type given over NVFP4 experts
    (modelopt_fp4 or a hybrid NVFP4 MoE checkpoint; unless CuTe DSL's W4A16 path runs), where
    ``handle_a2a_moe`` sets it."""
    if environment.given(v.env, NVFP4_DISPATCH_ENV):
        return v.record.env_flag(NVFP4_DISPATCH_ENV)
    w4a16 = (v.moe_runner_backend == "flashinfer_cutedsl"
             and v.record.env_flag("SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16"))
    return (v.moe_a2a_backend == "flashinfer" and v.flashinfer_a2a_dispatch_type is None
            and not w4a16 and nvfp4_dispatchable(v))


def nvfp4_dispatchable(v: Any) -> bool:
    """Whether FlashInfer A2A can dispatch NVFP4 activations: the experts are NVFP4, by the
    ``quantization`` field (modelopt_fp4) or a hybrid NVFP4 MoE checkpoint."""
    return v.quantization == "modelopt_fp4" or hybrid_nvfp4_experts(v.model)


MXFP8_RUNNERS = ("cutlass", "deep_gemm", "flashinfer_megamoe", "flashinfer_trtllm",
                 "flashinfer_trtllm_routed")
NVFP4_ONLINE_RUNNERS = ("flashinfer_trtllm", "flashinfer_trtllm_routed", "flashinfer_cutedsl")
# A2A backends whose experts span the whole TP group.
EP_SPANNING_A2A = frozenset({"megamoe", "deepep", "deepep_v2", "mooncake", "nixl",
                             "ascend_fuseep", "flashinfer", "flashinfer_megamoe", "mori",
                             "pplx"})
# Runners that keep shared experts out of the fused MoE call.
_UNFUSED_RUNNERS = ("lora_triton", "lora_cutedsl", "lora_marlin", "flashinfer_cutedsl",
                    "flashinfer_trtllm", "experimental_sgl_trtllm", "flashinfer_trtllm_routed")


_RUNNER_QUANT = dict(
    phase=Phase.MOE,
    reads=("moe_runner_backend", "quantization", "moe_a2a_backend"),
    writes=("moe_runner_backend",),
    facts=("target.is_sm100", "target.is_sm110", "target.is_sm120", "target.is_hip",
           "target.is_gfx95"),
    triggers=("quantization",),
)


@rule(**_RUNNER_QUANT, sglang="_moe_runner_backend_quant_constraints")
def moe_runner_quant_constraints(v: View) -> Declare | Refuse | None:
    """The MoE runner a quantization format needs.

    When: ``quantization`` is nvfp4_online, mxfp8, or modelopt_fp4 on SM110/SM120.
    Effect: nvfp4_online: refused off SM100/SM103; auto → flashinfer_trtllm (flashinfer_megamoe
        with the MegaMoE A2A and W4A16 switch), other runners refused. mxfp8: auto →
        flashinfer_trtllm (triton on gfx95; flashinfer_megamoe with its A2A), unsupported
        runners overridden with a note. modelopt_fp4 on SM110/SM120: auto → flashinfer_cutlass.
    Why: some formats exist in one kernel family only; the trtllm-gen MoE kernels are
        SM100-only (``_moe_runner_backend_quant_constraints``).
    Assumes: SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16 and SGLANG_USE_AITER are unset unless the
        environment given sets them.
    """
    return _runner_quant(v, megamoe_w4a16=True)


@rule(**_RUNNER_QUANT, name="moe_runner_quant_constraints", variant="0.5.22",
      sglang="_moe_runner_backend_quant_constraints (0.5.21, 0.5.22)")
def moe_runner_quant_constraints_0_5_22(v: View) -> Declare | Refuse | None:
    """0.5.21-0.5.22: nvfp4_online's MoE never runs on flashinfer_megamoe.

    When: as ``moe_runner_quant_constraints``.
    Effect: as ``moe_runner_quant_constraints``, except that nvfp4_online's auto runner is
        flashinfer_trtllm and an explicit flashinfer_megamoe is refused, whatever the A2A
        backend and SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16 say.
    Why: the MegaMoE W4A16 path for online NVFP4 came in 0.5.23
        (``_moe_runner_backend_quant_constraints`` of each release).
    Assumes: as ``moe_runner_quant_constraints``.
    """
    return _runner_quant(v, megamoe_w4a16=False)


def _runner_quant(v: View, *, megamoe_w4a16: bool) -> Declare | Refuse | None:
    runner = v.moe_runner_backend
    quant = v.quantization
    target = v.target
    note = None
    if quant == "nvfp4_online":
        w4a16 = (megamoe_w4a16 and v.moe_a2a_backend == "flashinfer_megamoe"
                 and v.record.env_flag("SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16"))
        if not target.is_sm100:
            return Refuse("--quantization nvfp4_online needs an SM100/SM103 GPU")
        if runner == "auto":
            runner = "flashinfer_megamoe" if w4a16 else "flashinfer_trtllm"
        elif runner not in NVFP4_ONLINE_RUNNERS and not (
                runner == "flashinfer_megamoe" and w4a16):
            return Refuse("--quantization nvfp4_online supports the flashinfer_trtllm, "
                          "flashinfer_trtllm_routed or flashinfer_cutedsl MoE runners "
                          f"(flashinfer_megamoe only with its A2A and W4A16); got {runner}")
    if quant == "mxfp8":
        gfx95 = target.is_hip and target.is_gfx95
        allowed = list(MXFP8_RUNNERS)
        if gfx95 or (target.is_hip and runner == "triton"):
            allowed.append("triton")
        if gfx95 and v.record.env_flag("SGLANG_USE_AITER"):
            allowed.append("aiter")
        if v.moe_a2a_backend == "flashinfer_megamoe":
            default = "flashinfer_megamoe"
        else:
            default = "triton" if gfx95 else "flashinfer_trtllm"
        if runner == "auto":
            runner = default
        elif runner not in allowed:
            note = f"mxfp8 MoE supports {', '.join(allowed)}; {runner} -> {default}"
            runner = default
    if runner == "auto" and quant == "modelopt_fp4" and (target.is_sm120 or target.is_sm110):
        runner = "flashinfer_cutlass"
        note = "modelopt_fp4 MoE on SM110/SM120 uses flashinfer_cutlass"
    if runner == v.moe_runner_backend:
        return None
    return Declare({"moe_runner_backend": runner}, note)


@rule(
    phase=Phase.MOE,
    reads=("moe_runner_backend", "quantization", "ep_size", "tp_size", "moe_a2a_backend"),
    facts=("model.arch0", "model.quantization_config"),
    sglang="handle_moe_kernel_config (runner checks)",
    triggers=("moe_runner_backend",),
)
def moe_runner_quant_checks(v: View) -> Refuse | None:
    """Each FlashInfer MoE runner implements a fixed set of weight formats and EP layouts.

    When: ``moe_runner_backend`` is a FlashInfer runner, experimental_sgl_trtllm or cutlass.
    Effect: refuses formats or layouts outside: cutlass: modelopt fp4/fp8/mixed or bf16, EP 1
        or TP; cutedsl: NVFP4 formats or a hybrid NVFP4 MoE checkpoint, EP 1 or TP, A2A
        none/deepep/flashinfer (not deepep with per-token NVFP4 activations: nvfp4_online or
        SGLANG_FLASHINFER_NVFP4_PER_TOKEN_ACTIVATION); trtllm:
        modelopt fp4/fp8/mixed, nvfp4_online, fp8, mxfp8, compressed-tensors or bf16;
        trtllm_routed: fp8, mxfp8, modelopt fp4/mixed, nvfp4_online, minimax_m3_nvfp4 or bf16;
        FP8/MXFP8 (non-FlashInfer) cutlass: EP 1.
    Why: each kernel family is compiled for those formats (``handle_moe_kernel_config``,
        runner checks).
    Assumes: SGLANG_FLASHINFER_NVFP4_PER_TOKEN_ACTIVATION is unset (on for Muse Spark's modelopt_fp4
        checkpoints, off otherwise) unless the environment given sets it.
    """
    runner, quant = v.moe_runner_backend, v.quantization
    ep_ok = v.ep_size in (1, v.tp_size)
    if runner == "flashinfer_cutlass":
        if quant not in ("modelopt_fp4", "modelopt_fp8", "modelopt_mixed", None):
            return Refuse(f"the flashinfer_cutlass MoE runner does not support {quant}")
        if not ep_ok:
            return Refuse("flashinfer_cutlass MoE needs ep_size 1 or tp_size")
    if runner == "flashinfer_cutedsl":
        if quant not in ("modelopt_fp4", "modelopt_mixed", "nvfp4_online") \
                and not hybrid_nvfp4_experts(v.model):
            return Refuse(f"the flashinfer_cutedsl MoE runner does not support {quant}")
        if not ep_ok:
            return Refuse("flashinfer_cutedsl MoE needs ep_size 1 or tp_size")
        if v.moe_a2a_backend not in ("none", "deepep", "flashinfer"):
            return Refuse("flashinfer_cutedsl MoE supports moe_a2a_backend none, deepep or "
                          f"flashinfer, not {v.moe_a2a_backend}")
        if v.moe_a2a_backend == "deepep" and (
                quant == "nvfp4_online" or per_token_nvfp4_activation(v)):
            return Refuse("flashinfer_cutedsl with per-token NVFP4 activations (nvfp4_online or "
                          f"{PER_TOKEN_ACTIVATION_ENV}) runs with moe_a2a_backend none or "
                          "flashinfer, not deepep")
    if runner in ("flashinfer_trtllm", "experimental_sgl_trtllm") and quant not in (
            "modelopt_fp4", "nvfp4_online", "fp8", "mxfp8", "modelopt_fp8", "modelopt_mixed",
            "compressed-tensors", None):
        return Refuse(f"the {runner} MoE runner does not support {quant}")
    if runner == "flashinfer_trtllm_routed" and quant not in (
            "fp8", "mxfp8", "modelopt_fp4", "modelopt_mixed", "nvfp4_online",
            "minimax_m3_nvfp4", None):
        return Refuse(f"the flashinfer_trtllm_routed MoE runner does not support {quant}")
    if runner == "cutlass" and quant in ("fp8", "mxfp8") and v.ep_size != 1:
        return Refuse("FP8/MXFP8 cutlass MoE needs ep_size 1")
    return None


@rule(
    phase=Phase.MOE,
    reads=("moe_runner_backend", "disable_shared_experts_fusion"),
    writes=("disable_shared_experts_fusion",),
    sglang="_moe_runner_fusion_disable",
    triggers=("moe_runner_backend",),
)
def moe_runner_fusion_disable(v: View) -> Declare | None:
    """Runners without a fused shared-expert path keep shared experts separate.

    When: ``moe_runner_backend`` is a LoRA MoE, FlashInfer CuteDSL or TRT-LLM runner.
    Effect: declares ``disable_shared_experts_fusion`` True.
    Why: those kernels have no fused shared-expert path (``_moe_runner_fusion_disable``).
    Assumes: nothing.
    """
    if v.moe_runner_backend in _UNFUSED_RUNNERS:
        return Declare({"disable_shared_experts_fusion": True},
                       f"shared-expert fusion disabled for the {v.moe_runner_backend} MoE "
                       "runner")
    return None


@rule(
    phase=Phase.MOE,
    reads=("moe_a2a_backend", "enable_waterfill"),
    writes=("moe_a2a_backend",),
    sglang="_a2a_backend_overrides",
    triggers=("enable_waterfill",),
)
def a2a_backend_overrides(v: View) -> Declare | None:
    """Waterfill balancing runs on the DeepEP or MegaMoE dispatch only: other A2A → deepep.

    When: ``enable_waterfill`` is true and ``moe_a2a_backend`` is neither deepep nor megamoe.
    Effect: declares ``moe_a2a_backend`` deepep.
    Why: Waterfill's load balancing is implemented in those dispatchers
        (``_a2a_backend_overrides``).
    Assumes: nothing.
    """
    if v.enable_waterfill and v.moe_a2a_backend not in ("deepep", "megamoe"):
        return Declare({"moe_a2a_backend": "deepep"},
                       "Waterfill needs DeepEP or MegaMoE: moe_a2a_backend -> deepep")
    return None


@rule(
    phase=Phase.MOE,
    reads=("moe_a2a_backend", "ep_size", "tp_size"),
    writes=("ep_size",),
    sglang="_a2a_ep_size",
    triggers=("moe_a2a_backend",),
)
def a2a_ep_size(v: View) -> Declare | None:
    """EP-spanning A2A backends put one expert shard on every TP rank: ep_size = tp_size.

    When: ``moe_a2a_backend`` is an EP-spanning backend (``EP_SPANNING_A2A``).
    Effect: declares ``ep_size`` = ``tp_size`` (with a note when it changes).
    Why: these all-to-all backends dispatch tokens to every rank's experts (``_a2a_ep_size``).
    Assumes: nothing.
    """
    if v.moe_a2a_backend not in EP_SPANNING_A2A:
        return None
    note = (f"{v.moe_a2a_backend} MoE: ep_size {v.ep_size} -> {v.tp_size}"
            if v.ep_size != v.tp_size else None)
    return Declare({"ep_size": v.tp_size}, note)


@rule(
    phase=Phase.MOE,
    reads=("moe_a2a_backend", "enable_waterfill", "disable_shared_experts_fusion"),
    writes=("disable_shared_experts_fusion", "enforce_shared_experts_fusion"),
    sglang="_a2a_fusion_adjustments / handle_a2a_moe (waterfill)",
    triggers=("moe_a2a_backend", "enable_waterfill"),
)
def a2a_fusion_adjustments(v: View) -> Declare | None:
    """Shared-expert fusion as each A2A backend needs it.

    When: whenever its promises hold.
    Effect: Waterfill on DeepEP/MegaMoE re-enables fusion (``disable_shared_experts_fusion``
        False); Waterfill sets ``enforce_shared_experts_fusion`` True; FlashInfer A2A,
        FlashInfer MegaMoE and DeepEP v2 set ``disable_shared_experts_fusion`` True.
    Why: Waterfill balances fused shared experts; those dispatchers keep them separate
        (``_a2a_fusion_adjustments`` / ``handle_a2a_moe``, waterfill).
    Assumes: nothing.
    """
    a2a = v.moe_a2a_backend
    out: dict[str, bool] = {}
    if a2a in ("deepep", "megamoe") and v.enable_waterfill:
        if v.disable_shared_experts_fusion:
            out["disable_shared_experts_fusion"] = False
    elif a2a in ("flashinfer", "flashinfer_megamoe", "deepep_v2"):
        out["disable_shared_experts_fusion"] = True
    if v.enable_waterfill:
        out["enforce_shared_experts_fusion"] = True
    return Declare(out, f"shared-expert fusion adjusted for the {a2a} A2A backend") if out \
        else None


@rule(
    phase=Phase.MOE,
    reads=("moe_a2a_backend", "moe_runner_backend", "deepep_mode", "cuda_graph_config"),
    writes=("deepep_mode", "cuda_graph_config"),
    sglang="handle_a2a_moe (deepep)",
    triggers=("moe_a2a_backend",),
)
def a2a_deepep_adjustments(v: View) -> Declare | Refuse | None:
    """DeepEP: CuteDSL FP4 MoE dispatches low-latency only; normal mode disables graphs.

    When: ``moe_a2a_backend`` is deepep.
    Effect: with flashinfer_cutedsl an auto ``deepep_mode`` becomes low_latency and normal is
        refused; normal mode disables both phases of ``cuda_graph_config``, even when chosen.
    Why: normal (prefill) dispatch synchronises with the host, so it cannot be captured; CuteDSL
        FP4 has no normal-dispatch handler (``handle_a2a_moe``, deepep).
    Assumes: nothing.
    """
    if v.moe_a2a_backend != "deepep":
        return None
    out: dict[str, Any] = {}
    mode = v.deepep_mode
    if v.moe_runner_backend == "flashinfer_cutedsl":
        if mode == "auto":
            mode = out["deepep_mode"] = "low_latency"
        elif mode == "normal":
            return Refuse("flashinfer_cutedsl FP4 MoE supports DeepEP low_latency dispatch "
                          "only; pass --deepep-mode low_latency or auto")
    if mode == "normal":
        config = v.cuda_graph_config
        config = with_phase(with_phase(config, DECODE, backend="disabled"), PREFILL,
                            backend="disabled")
        out["cuda_graph_config"] = config
        return Declare(out, "CUDA graphs disabled: DeepEP normal dispatch cannot be captured")
    return Declare(out, "DeepEP low_latency dispatch for flashinfer_cutedsl") if out else None


_DEEPEP_V2: dict[str, Any] = dict(
    phase=Phase.MOE,
    reads=("moe_a2a_backend", "moe_runner_backend", "enable_two_batch_overlap",
           "enable_single_batch_overlap", "enforce_shared_experts_fusion", "deepep_v2_mode",
           "nnodes", "cuda_graph_config"),
    writes=("moe_runner_backend", "cuda_graph_config"),
    triggers=("moe_a2a_backend",),
)


@rule(**_DEEPEP_V2, sglang="handle_a2a_moe (deepep_v2)")
def a2a_deepep_v2_adjustments(v: View) -> Declare | Refuse | None:
    """DeepEP v2 runs DeepGEMM experts and an eager prefill.

    When: ``moe_a2a_backend`` is deepep_v2.
    Effect: an auto runner becomes deep_gemm, another is refused; refuses TBO/SBO, enforced
        shared-expert fusion, and ``direct`` mode across nodes; disables the prefill phase of
        ``cuda_graph_config`` even when chosen.
    Why: its prefill reads host-side token counts, and ``direct`` mode is NVLink-only
        (``handle_a2a_moe``, deepep_v2).
    Assumes: nothing.
    """
    return _deepep_v2(v, direct_single_node=True)


@rule(name="a2a_deepep_v2_adjustments", variant="0.5.21", **_DEEPEP_V2,
      sglang="handle_a2a_moe (deepep_v2, 0.5.21)")
def a2a_deepep_v2_adjustments_0_5_21(v: View) -> Declare | Refuse | None:
    """0.5.21: DeepEP v2's runner and prefill graph, and ``direct`` mode across nodes too.

    When: ``moe_a2a_backend`` is deepep_v2.
    Effect: as ``a2a_deepep_v2_adjustments``, but ``--deepep-v2-mode direct`` (the default)
        with ``--nnodes`` above 1 is not refused.
    Why: the NVLink-only check of ``direct`` mode came in 0.5.22 (``handle_a2a_moe``).
    Assumes: nothing.
    """
    return _deepep_v2(v, direct_single_node=False)


def _deepep_v2(v: View, direct_single_node: bool) -> Declare | Refuse | None:
    if v.moe_a2a_backend != "deepep_v2":
        return None
    out: dict[str, Any] = {}
    runner = v.moe_runner_backend
    if runner == "auto":
        out["moe_runner_backend"] = "deep_gemm"
    elif runner != "deep_gemm":
        return Refuse(f"DeepEP v2 MoE supports --moe-runner-backend deep_gemm only; got "
                      f"{runner}")
    if v.enable_two_batch_overlap or v.enable_single_batch_overlap:
        return Refuse("DeepEP v2 MoE does not support two- or single-batch overlap")
    if v.enforce_shared_experts_fusion:
        return Refuse("DeepEP v2 MoE does not support --enforce-shared-experts-fusion")
    if direct_single_node and v.deepep_v2_mode == "direct" and v.nnodes > 1:
        return Refuse("--deepep-v2-mode direct is NVLink-only; use hybrid across nodes")
    out["cuda_graph_config"] = with_phase(v.cuda_graph_config, PREFILL, backend="disabled")
    return Declare(out, "DeepEP v2: deep_gemm MoE runner, prefill CUDA graph disabled")


@rule(
    phase=Phase.MOE,
    reads=("moe_a2a_backend",),
    writes=("moe_a2a_backend",),
    sglang="handle_a2a_moe (ascend_tp)",
    triggers=("moe_a2a_backend",),
)
def a2a_ascend_tp_normalize(v: View) -> dict | None:
    """``ascend_tp`` is plain tensor-parallel MoE: it is stored as ``none``.

    When: ``moe_a2a_backend`` is ascend_tp.
    Effect: declares ``moe_a2a_backend`` none.
    Why: SGLang treats it as an alias of no all-to-all (``handle_a2a_moe``, ascend_tp).
    Assumes: nothing.
    """
    if v.moe_a2a_backend == "ascend_tp":
        return {"moe_a2a_backend": "none"}
    return None


def _flashinfer_a2a_topology_ok(v: Any) -> bool:
    """Rank-uniform token sources: attention DP over all of TP, or Muse Spark's prefill
    sequence parallelism on TP4/EP4 or TP8/EP8."""
    attn_dp = attn_dp_enabled(v)
    if attn_dp and v.attn_dp_size == v.tp_size:
        return True
    return (v.model.arch0 == "MuseSparkForConditionalGeneration" and v.enable_layernorm_sp
            and not attn_dp and v.attn_dp_size == 1
            and (v.tp_size, v.ep_size) in ((4, 4), (8, 8)))


_FLASHINFER_A2A_RUNNERS = ("flashinfer_cutlass", "flashinfer_cutedsl", "flashinfer_trtllm",
                           "flashinfer_trtllm_routed", "deep_gemm")


_FLASHINFER_A2A = dict(
    phase=Phase.MOE,
    reads=("moe_a2a_backend", "flashinfer_a2a_dispatch_type", "attn_dp_size", "ep_join_mode",
           "tp_size", "ep_size", "enable_layernorm_sp", "moe_runner_backend", "quantization"),
    writes=("moe_runner_backend", "flashinfer_a2a_dispatch_type"),
    facts=("model.arch0", "model.quantization_config"),
    triggers=("moe_a2a_backend", "flashinfer_a2a_dispatch_type"),
)


@rule(**_FLASHINFER_A2A,
      sglang="handle_a2a_moe (flashinfer), handle_flashinfer_a2a_dispatch_type")
def a2a_flashinfer_checks(v: View) -> Declare | Refuse | None:
    """FlashInfer A2A needs rank-uniform token sources and a runner that takes its dispatch.

    When: ``moe_a2a_backend`` is flashinfer, or a dispatch type is given without it (refused).
    Effect: refuses a layout other than attention DP over the whole TP group (or Muse Spark
        prefill SP on TP4/EP4, TP8/EP8), and a runner other than a FlashInfer one or
        deep_gemm; with an explicit dispatch type flashinfer_trtllm becomes
        flashinfer_trtllm_routed, and the dispatch type is resolved: auto becomes mxfp8 over
        --quantization mxfp8, nvfp4 over NVFP4 experts (modelopt_fp4 or a hybrid NVFP4 MoE
        checkpoint), else bf16; mxfp8 needs --quantization mxfp8 and the
        flashinfer_trtllm_routed runner, nvfp4 NVFP4 experts. Refuses SGLANG_MOE_NVFP4_DISPATCH
        set (any value) beside an explicit dispatch type, and on under CuTe DSL's W4A16 switch
        with flashinfer_cutedsl, where an explicit type must be bf16.
    Why: an explicit dispatch type hands the experts top-k ids and weights
        (``handle_a2a_moe``, flashinfer) in a dtype the experts' kernels take; the variable is
        the older way to pick the dispatch dtype, and W4A16 needs BF16 activations
        (``handle_flashinfer_a2a_dispatch_type``).
    Assumes: SGLANG_MOE_NVFP4_DISPATCH and SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16 are unset
        unless the environment given sets them.
    """
    return _flashinfer_a2a(v, _flashinfer_a2a_topology_ok)


def _flashinfer_a2a(v: View, topology_ok: Any) -> Declare | Refuse | None:
    a2a = v.moe_a2a_backend
    if a2a != "flashinfer":
        if v.flashinfer_a2a_dispatch_type not in (None, "auto"):
            return Refuse("--flashinfer-a2a-dispatch-type needs --moe-a2a-backend flashinfer")
        return None
    if not topology_ok(v):
        return Refuse("FlashInfer MoE A2A needs --attn-dp-size equal to --tp-size")
    runner = v.moe_runner_backend
    if (runner == "flashinfer_cutedsl"
            and v.record.env_flag("SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16")
            and v.record.env_flag(NVFP4_DISPATCH_ENV)):
        return Refuse("CuTe DSL NVFP4 W4A16 takes BF16 FlashInfer dispatch: "
                      f"{NVFP4_DISPATCH_ENV} must not be on")
    out: dict[str, str] = {}
    note = None
    if v.flashinfer_a2a_dispatch_type is not None:
        if runner == "flashinfer_trtllm":
            runner = out["moe_runner_backend"] = "flashinfer_trtllm_routed"
            note = "FlashInfer A2A dispatches top-k ids: flashinfer_trtllm_routed"
        dispatch = _dispatch_type(v, runner)
        if isinstance(dispatch, Refuse):
            return dispatch
        out["flashinfer_a2a_dispatch_type"] = dispatch  # declared even as given, as SGLang
    if runner not in _FLASHINFER_A2A_RUNNERS:
        return Refuse("FlashInfer MoE A2A runs with the flashinfer_cutlass, flashinfer_cutedsl, "
                      f"flashinfer_trtllm(_routed) or deep_gemm MoE runner, not {runner}")
    return Declare(out, note) if out else None


def _dispatch_type(v: View, runner: str) -> str | Refuse:
    """The dtype an explicit ``--flashinfer-a2a-dispatch-type`` dispatches in (``auto``
    resolved from the experts' format), or why it cannot."""
    given = v.flashinfer_a2a_dispatch_type
    w4a16 = (runner == "flashinfer_cutedsl"
             and v.record.env_flag("SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16"))
    if w4a16 and given in ("auto", "nvfp4"):
        return Refuse("CuTe DSL NVFP4 W4A16 needs --flashinfer-a2a-dispatch-type bf16")
    if environment.given(v.env, NVFP4_DISPATCH_ENV):
        return Refuse(f"{NVFP4_DISPATCH_ENV} (set to anything) and "
                      "--flashinfer-a2a-dispatch-type exclude each other")
    nvfp4 = nvfp4_dispatchable(v)
    if given == "auto":
        given = "mxfp8" if v.quantization == "mxfp8" else "nvfp4" if nvfp4 else "bf16"
    if given == "mxfp8" and v.quantization != "mxfp8":
        return Refuse("--flashinfer-a2a-dispatch-type mxfp8 needs --quantization mxfp8, not "
                      f"{v.quantization}")
    if given == "mxfp8" and runner != "flashinfer_trtllm_routed":
        return Refuse("--flashinfer-a2a-dispatch-type mxfp8 needs the flashinfer_trtllm_routed "
                      f"MoE runner, not {runner}")
    if given == "nvfp4" and not nvfp4:
        return Refuse("--flashinfer-a2a-dispatch-type nvfp4 needs NVFP4 experts (modelopt_fp4 "
                      f"or a hybrid NVFP4 MoE checkpoint); quantization is {v.quantization}")
    return given


@rule(name="a2a_flashinfer_checks", variant="0.5.22", **_FLASHINFER_A2A,
      sglang="handle_a2a_moe (flashinfer, 0.5.21-0.5.22)")
def a2a_flashinfer_checks_0_5_22(v: View) -> Declare | Refuse | None:
    """0.5.21-0.5.22: as ``a2a_flashinfer_checks``, with attention DP over all of TP only.

    When: as ``a2a_flashinfer_checks``.
    Effect: as ``a2a_flashinfer_checks``, but Muse Spark's prefill sequence parallelism on
        TP4/EP4 or TP8/EP8 is refused like any layout without attention DP = TP.
    Why: the Muse Spark exception came in 0.5.23 (``handle_a2a_moe`` in 0.5.22 asserts
        attention DP equal to TP).
    Assumes: nothing.
    """
    return _flashinfer_a2a(v, lambda view: (view.attn_dp_size > 1 or view.ep_join_mode == "scale")
                           and view.attn_dp_size == view.tp_size)


_MORI_PPLX = dict(
    phase=Phase.MOE,
    reads=("moe_a2a_backend", "deepep_mode", "attn_dp_size", "moe_runner_backend",
           "chunked_prefill_size", "disaggregation_mode", "cuda_graph_max_bs_decode",
           "tp_size", "dtype"),
    writes=("deepep_mode", "moe_runner_backend"),
    facts=("model.arch0", "model.dtype"),
    triggers=("moe_a2a_backend",),
)


@rule(**_MORI_PPLX, sglang="handle_a2a_moe (mori, pplx)")
def a2a_mori_pplx_modes(v: View) -> Declare | Refuse | None:
    """MoRI EP dispatches in normal mode by default; pplx is low-latency DeepGEMM only.

    When: ``moe_a2a_backend`` is mori or pplx.
    Effect: MoRI: auto ``deepep_mode`` becomes normal, and so does low_latency under MoRI
        EPv2 (``mori_ep_v2``); a prefill chunk above its buffer is refused. pplx: refuses
        normal mode, fewer than two attention-DP groups, a runner other than deep_gemm, and a
        chunk or explicit --cuda-graph-max-bs-decode above its buffer; auto mode becomes
        low_latency and an auto runner deep_gemm.
    Why: pplx's all-to-all needs attention-DP groups and the masked DeepGEMM expert path; each
        rank's dispatch buffer must hold a prefill chunk; MoRI EPv2 has no low-latency kernel
        of its own (``handle_a2a_moe``, mori, pplx).
    Assumes: SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK is 4096,
        SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK 128, SGLANG_MORI_EP_V2 unset (on where
        supported) and SGLANG_USE_AITER and MORI_ENABLE_SDMA off unless the environment
        given sets them; the model is not loaded through an instance connector.
    """
    return _mori_pplx(v, epv2=True)


@rule(name="a2a_mori_pplx_modes", variant="0.5.21", **_MORI_PPLX,
      sglang="handle_a2a_moe (mori, pplx; 0.5.21)")
def a2a_mori_pplx_modes_0_5_21(v: View) -> Declare | Refuse | None:
    """0.5.21: as ``a2a_mori_pplx_modes``, without MoRI EPv2 (low_latency stays).

    When: as ``a2a_mori_pplx_modes``.
    Effect: as ``a2a_mori_pplx_modes``, except that an explicit low_latency ``deepep_mode``
        under MoRI is kept whatever SGLANG_MORI_EP_V2 says.
    Why: MoRI EPv2 and its variable came in 0.5.22 (0.5.21's ``handle_a2a_moe`` remaps only
        an auto mode).
    Assumes: as ``a2a_mori_pplx_modes``.
    """
    return _mori_pplx(v, epv2=False)


#: SGLang's MoRI EPv2 switch: on by default where supported; set true, it is forced.
MORI_EP_V2_ENV = "SGLANG_MORI_EP_V2"
#: The architectures MoRI EPv2 was validated on (``is_deepseek_v4``).
MORI_EP_V2_ARCHS = frozenset({"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN",
                              "DeepseekV4ForCausalLMDSpark"})


def mori_ep_v2(v: Any) -> bool:
    """Whether MoRI runs EPv2: the variable off means EPv1; set true (any value it reads as
    true, or one it cannot parse), EPv2 even where unsupported; unset, EPv2 only within one
    8-GPU host, with the aiter MoE runner on, SDMA off, bf16 weights and a DeepSeek-V4
    model, else EPv1 (SGLang falls back with a warning)."""
    if not v.record.env_flag(MORI_EP_V2_ENV):
        return False
    if environment.given(v.env, MORI_EP_V2_ENV):
        return True
    return (v.tp_size <= 8 and v.record.env_flag("SGLANG_USE_AITER")
            and not environment.plain_flag(v.env, "MORI_ENABLE_SDMA")
            and model_dtype(v) == "bfloat16" and v.model.arch0 in MORI_EP_V2_ARCHS)


def _mori_pplx(v: View, *, epv2: bool) -> Declare | Refuse | None:
    a2a, mode = v.moe_a2a_backend, v.deepep_mode
    budgeted = (v.chunked_prefill_size or 0) > 0 and v.disaggregation_mode != "decode"
    if a2a == "mori":
        if budgeted and v.chunked_prefill_size > environment.value(v.env, _MORI_ENV):
            return Refuse(f"MoRI EP dispatches a {v.chunked_prefill_size}-token chunk per "
                          f"rank, above {_MORI_ENV}; raise it or lower --chunked-prefill-size")
        if mode == "auto":
            return Declare({"deepep_mode": "normal"}, "MoRI EP uses deepep_mode normal")
        if mode == "low_latency" and epv2 and mori_ep_v2(v):
            return Declare({"deepep_mode": "normal"},
                           "MoRI EPv2 has no low-latency kernel: deepep_mode normal")
        return None
    if a2a != "pplx":
        return None
    if mode == "normal":
        return Refuse("moe_a2a_backend pplx supports low-latency dispatch only")
    if v.attn_dp_size < 2:
        return Refuse("moe_a2a_backend pplx needs attention DP with at least 2 groups")
    if v.moe_runner_backend not in ("deep_gemm", "auto"):
        return Refuse("moe_a2a_backend pplx runs with the deep_gemm MoE runner only")
    if budgeted:
        tokens = max(v.chunked_prefill_size, v.cuda_graph_max_bs_decode or 0)
        if tokens > environment.value(v.env, _PPLX_ENV):
            return Refuse(f"pplx EP dispatches up to {tokens} tokens per rank, above "
                          f"{_PPLX_ENV}; raise it or lower --chunked-prefill-size")
    out: dict[str, str] = {}
    if mode == "auto":
        out["deepep_mode"] = "low_latency"
    if v.moe_runner_backend == "auto":
        out["moe_runner_backend"] = "deep_gemm"
    return Declare(out, "pplx EP: low-latency dispatch on deep_gemm") if out else None



_MORI_ENV = "SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
_PPLX_ENV = "SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK"


def prefill_buffer_tokens(v: View) -> int:
    """The prefill-buffer ceiling: the chunk (0 when chunking is off); with PP dynamic
    chunking up to max_prefill_tokens or 1.25 x the chunk."""
    chunk = v.chunked_prefill_size if v.chunked_prefill_size and v.chunked_prefill_size > 0 \
        else 0
    if v.enable_dynamic_chunking and v.pp_size > 1 and chunk:
        return max(chunk, v.max_prefill_tokens or 0, math.ceil(chunk * 1.25))
    return chunk


def decode_graph_tokens(v: View) -> tuple[int, int]:
    """(requests, tokens per request) of the largest decode/verify CUDA graph on one DP rank;
    (0, 1) on a PD prefill server or without a decode graph."""
    decode = v.cuda_graph_config[DECODE]
    if v.disaggregation_mode == "prefill" or decode["backend"] == "disabled":
        return 0, 1
    graph_bs = decode["max_bs"] or 0
    if v.max_running_requests is not None:
        graph_bs = min(graph_bs, max(1, v.max_running_requests // v.attn_dp_size))
    per_request = (v.speculative_num_draft_tokens or 1) if v.speculative_algorithm else 1
    return graph_bs, per_request


_FLASHINFER_A2A_ENV = "SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK"


@rule(
    phase=Phase.SPECULATIVE,
    reads=("moe_a2a_backend", "disaggregation_mode", "chunked_prefill_size",
           "enable_dynamic_chunking", "pp_size", "max_prefill_tokens", "cuda_graph_config",
           "max_running_requests", "attn_dp_size", "speculative_algorithm",
           "speculative_num_draft_tokens"),
    sglang="validate_flashinfer_a2a_token_budget (moe_hook.py)",
    triggers={"moe_a2a_backend": ("flashinfer",)},
)
def flashinfer_a2a_token_budget(v: View) -> Refuse | None:
    """FlashInfer A2A's per-rank workspace must hold the largest forward one rank dispatches.

    When: whenever its promises hold (``moe_a2a_backend`` flashinfer).
    Effect: refuses chunked prefill off (except on a PD decode server), and a need above the
        capacity: the prefill buffer and the prefill graph's max batch (not on PD decode), and
        the decode graph's requests x draft tokens.
    Why: eager prefill sends a whole per-rank extend batch through the workspace
        (``validate_flashinfer_a2a_token_budget`` in ``moe_hook.py``).
    Assumes: SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK is unset (capacity: the prefill
        buffer, at least 4096) unless the environment given sets it; adaptive speculation's
        widest step is its draft tokens.
    """
    if v.disaggregation_mode != "decode" and (v.chunked_prefill_size or 0) <= 0:
        return Refuse("FlashInfer MoE A2A needs chunked prefill (--chunked-prefill-size > 0)")
    buffer = prefill_buffer_tokens(v)
    tokens = 0
    if v.disaggregation_mode != "decode":
        tokens = buffer
        prefill = v.cuda_graph_config[PREFILL]
        if prefill["backend"] != "disabled":
            tokens = max(tokens, prefill["max_bs"] or 0)
    requests, per_request = decode_graph_tokens(v)
    required = max(tokens, requests * per_request)
    capacity = environment.value(v.env, _FLASHINFER_A2A_ENV)  # unset: the buffer, >= 4096
    if capacity is None:
        capacity = max(buffer, 4096)
    if required > capacity:
        return Refuse(f"FlashInfer MoE A2A needs {required} tokens per rank, above its "
                      f"workspace of {capacity}; set {_FLASHINFER_A2A_ENV} or lower "
                      "--chunked-prefill-size / the CUDA graph max batch sizes")
    return None


@rule(
    name="flashinfer_a2a_token_budget",
    variant="0.5.21",
    phase=Phase.SPECULATIVE,
    reads=("moe_a2a_backend", "moe_runner_backend", "disaggregation_mode",
           "max_prefill_tokens", "cuda_graph_config", "ep_size", "speculative_algorithm",
           "speculative_num_draft_tokens"),
    sglang="validate_cutedsl_a2a_token_budget (moe_hook.py, 0.5.21)",
    triggers={"moe_a2a_backend": ("flashinfer",)},
)
def flashinfer_a2a_token_budget_0_5_21(v: View) -> Refuse | None:
    """0.5.21: FlashInfer A2A's budget is checked for the CuteDSL runner only, over all EP ranks.

    When: ``moe_a2a_backend`` flashinfer with the flashinfer_cutedsl runner, max_prefill_tokens
        above 0, not a PD decode server.
    Effect: refuses when the largest CuteDSL forward (max_prefill_tokens, a tc_piecewise
        prefill graph's max batch, the decode graph's max batch x draft tokens) exceeds the
        per-rank capacity times ``ep_size``; chunked prefill off is not refused.
    Why: 0.5.21's ``validate_cutedsl_a2a_token_budget``; 0.5.22 replaced it with a per-rank
        check of every FlashInfer A2A launch (``validate_flashinfer_a2a_token_budget``).
    Assumes: SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK is unset (1024 per rank) unless
        the environment given sets it.
    """
    prefill_tokens = v.max_prefill_tokens or 0
    if (v.moe_runner_backend != "flashinfer_cutedsl" or prefill_tokens <= 0
            or v.disaggregation_mode == "decode"):
        return None
    config = v.cuda_graph_config
    if config[PREFILL]["backend"] == "tc_piecewise":
        prefill_tokens = max(prefill_tokens, config[PREFILL]["max_bs"] or 0)
    per_request = (v.speculative_num_draft_tokens or 1) if v.speculative_algorithm else 1
    required = max(prefill_tokens, (config[DECODE]["max_bs"] or 0) * per_request)
    capacity = (environment.value(v.env, _FLASHINFER_A2A_ENV) or 1024) * v.ep_size
    if capacity < required:
        return Refuse(f"FlashInfer MoE A2A with flashinfer_cutedsl needs {required} tokens, "
                      f"above {_FLASHINFER_A2A_ENV} x ep_size = {capacity}; set it to "
                      f"{-(-required // v.ep_size)} or lower --max-prefill-tokens")
    return None


#: what the experimental Marlin MoE-LoRA runner needs of an EP launch: experts where the
#: trivial placement puts them, one copy each, no rebalancing while serving
_MARLIN_EP_PLACEMENT = (
    ("init_expert_location", lambda value: value != "trivial"),
    ("ep_num_redundant_experts", lambda value: value != 0),
    ("enable_eplb", bool),
    ("elastic_ep_backend", lambda value: value is not None),
    ("enable_elastic_expert_backup", bool),
)


@rule(
    phase=Phase.MOE,
    reads=("moe_runner_backend", "ep_size", "moe_a2a_backend", "enable_lora", "lora_paths",
           "lora_use_virtual_experts", "lora_backend", "init_expert_location",
           "ep_num_redundant_experts", "enable_eplb", "elastic_ep_backend",
           "enable_elastic_expert_backup"),
    sglang="validate_experimental_sgl_marlin",
    triggers={"moe_runner_backend": ("experimental_sgl_marlin",)},
)
def experimental_marlin_checks(v: View) -> Refuse | None:
    """Experimental Marlin MoE: no A2A under EP; LoRA on virtual experts, triton, plain EP.

    When: ``moe_runner_backend`` is experimental_sgl_marlin once the EP hooks have run.
    Effect: refuses EP above 1 with an A2A backend; with LoRA on (``--enable-lora``, or
        adapters given with the switch unset), refuses it without
        ``--lora-use-virtual-experts``, with a LoRA backend other than triton, and under EP
        with a non-trivial expert location, redundant experts, EPLB, an elastic EP backend
        or elastic expert backup. In SGLang's order.
    Why: this runner fuses the LoRA deltas into the Marlin expert GEMMs through virtual
        experts fed by the triton LoRA kernels' batch layout; it implements neither token
        dispatch nor moving experts between ranks (``validate_experimental_sgl_marlin``,
        the same in 0.5.21-0.5.23).
    Assumes: nothing.
    """
    ep = v.ep_size > 1
    if ep and v.moe_a2a_backend != "none":
        return Refuse("--moe-runner-backend experimental_sgl_marlin with EP needs "
                      f"--moe-a2a-backend none; got {v.moe_a2a_backend}")
    if not (bool(v.enable_lora) or (v.enable_lora is None and bool(v.lora_paths))):
        return None
    if not v.lora_use_virtual_experts:
        return Refuse("LoRA on --moe-runner-backend experimental_sgl_marlin needs "
                      "--lora-use-virtual-experts")
    if v.lora_backend != "triton":
        return Refuse("LoRA on --moe-runner-backend experimental_sgl_marlin needs "
                      f"--lora-backend triton; got {v.lora_backend}")
    if ep:
        moved = [name for name, off_plain in _MARLIN_EP_PLACEMENT if off_plain(v[name])]
        if moved:
            return Refuse("LoRA on --moe-runner-backend experimental_sgl_marlin with EP needs "
                          "the trivial expert placement, no redundant experts, no EPLB and "
                          "no elastic EP; got " + ", ".join(f"{n} {v[n]}" for n in moved))
    return None
