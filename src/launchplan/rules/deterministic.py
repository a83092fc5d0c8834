"""Deterministic inference (SGLang's P16 ``handle_deterministic_inference``).

Batch-invariant results need kernels whose reduction order does not depend on the batch:
a deterministic attention backend, PyTorch sampling, no fused all-reduce, and on CUDA the
NCCL tree all-reduce instead of the custom and symmetric-memory ones. It runs before the
generic attention default, so an unset backend is filled here first.
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View

DETERMINISTIC_BACKENDS = ("ascend", "fa3", "fa4", "flashinfer", "intel_xpu", "triton")
# Backends whose deterministic kernels also keep the radix (prefix) cache correct.
RADIX_DETERMINISTIC_BACKENDS = ("ascend", "fa3", "fa4", "triton")
# Absorbed-MLA families for the default choice; the later radix check adds GLM-5 Next.
DEEPSEEK_LIKE = frozenset({
    "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
    "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
    "Glm4MoeLiteForCausalLM",
})
DEEPSEEK_LIKE_RADIX = DEEPSEEK_LIKE | {"Glm5NextForConditionalGeneration"}

_ON = ("enable_deterministic_inference",)


def _on(v: Any) -> bool:
    return bool(v.enable_deterministic_inference)


@rule(
    phase=Phase.KERNEL,
    reads=("sampling_backend",),
    writes=("sampling_backend",),
    facts=("target.has_flashinfer", "target.is_cuda"),
    sglang="_sampling_backend_default",
)
def sampling_backend_default(v: View) -> dict | None:
    """An unset sampling backend is FlashInfer's fused top-k/top-p kernels where installed
    (CUDA only), else PyTorch; it runs just before the deterministic passes."""
    if v.sampling_backend is not None:
        return None
    target = v.target
    return {"sampling_backend": "flashinfer" if target.has_flashinfer and target.is_cuda
            else "pytorch"}


@rule(
    phase=Phase.KERNEL,
    reads=("rl_on_policy_target",),
    writes=_ON,
    sglang="handle_deterministic_inference (rl_on_policy_target)",
    triggers=("rl_on_policy_target",),
)
def deterministic_on_policy_target(v: View) -> Declare | None:
    """An RL on-policy target must reproduce the trainer's logits: deterministic inference on."""
    if v.rl_on_policy_target is None:
        return None
    return Declare({"enable_deterministic_inference": True},
                   "deterministic inference enabled for --rl-on-policy-target")


@rule(
    phase=Phase.KERNEL,
    reads=_ON + ("enable_aiter_allreduce_fusion",),
    writes=("enable_aiter_allreduce_fusion",),
    sglang="handle_deterministic_inference (aiter all-reduce fusion)",
    triggers=_ON,
)
def deterministic_aiter_allreduce_disable(v: View) -> Declare | None:
    """aiter's fused all-reduce + RMSNorm reduces in a batch-dependent order: off."""
    if _on(v) and v.enable_aiter_allreduce_fusion:
        return Declare({"enable_aiter_allreduce_fusion": False},
                       "aiter all-reduce fusion disabled for deterministic inference")
    return None


@rule(
    phase=Phase.KERNEL,
    reads=_ON + ("flashinfer_allreduce_fusion_backend",),
    writes=("flashinfer_allreduce_fusion_backend",),
    sglang="_deterministic_allreduce_fusion_disable",
    triggers=_ON,
)
def deterministic_allreduce_fusion_disable(v: View) -> Declare | None:
    """FlashInfer's fused all-reduce is not batch-invariant: its backend is cleared."""
    if _on(v) and v.flashinfer_allreduce_fusion_backend is not None:
        return Declare({"flashinfer_allreduce_fusion_backend": None},
                       "FlashInfer all-reduce fusion disabled for deterministic inference")
    return None


@rule(
    phase=Phase.KERNEL,
    reads=_ON + ("sampling_backend",),
    writes=("sampling_backend",),
    sglang="_deterministic_sampling_backend",
    triggers=_ON,
)
def deterministic_sampling_backend(v: View) -> Declare | None:
    """Sampling runs on PyTorch (seeded per request); Ascend keeps its own sampler."""
    if _on(v) and v.sampling_backend != "ascend":
        return Declare({"sampling_backend": "pytorch"},
                       "sampling backend set to pytorch for deterministic inference")
    return None


@rule(
    phase=Phase.KERNEL,
    reads=_ON + ("attention_backend",),
    writes=("attention_backend",),
    facts=("target.is_sm100", "target.is_sm120", "model.arch0"),
    sglang="_deterministic_attention_backend",
    triggers=_ON,
)
def deterministic_attention_backend(v: View) -> Declare | Refuse | None:
    """An unset backend becomes a batch-invariant one; a set one must be on the list.

    Unset: SM10x/SM12x → triton for DeepSeek-like (absorbed-MLA) models, else flashinfer;
    any other GPU → fa3 (not checked against the platform). Set: ascend, fa3, fa4,
    flashinfer, intel_xpu or triton only. A backend a model override chose earlier counts
    as set (rules.md C7).
    """
    if not _on(v):
        return None
    backend = v.attention_backend
    if backend is None:
        target = v.target
        if target.is_sm100 or target.is_sm120:
            backend = "triton" if v.model.arch0 in DEEPSEEK_LIKE else "flashinfer"
        else:
            backend = "fa3"
        return Declare({"attention_backend": backend},
                       f"attention backend {backend} chosen for deterministic inference")
    if backend not in DETERMINISTIC_BACKENDS:
        return Refuse("deterministic inference supports attention backends "
                      f"{', '.join(DETERMINISTIC_BACKENDS)}; got {backend}")
    return None


@rule(
    phase=Phase.KERNEL,
    reads=_ON + ("attention_backend",),
    facts=("model.arch0", "target.is_sm100", "target.is_sm110"),
    sglang="handle_deterministic_inference (absorbed-MLA backends)",
    triggers=_ON,
    archs=DEEPSEEK_LIKE_RADIX,
)
def deterministic_mla_backend_check(v: View) -> Refuse | None:
    """Deterministic absorbed-MLA models need a radix-safe backend; fa4 only on SM100/SM110.

    flashinfer has no deterministic MLA path; fa4's absorbed-MLA ``qv`` argument exists
    only on SM100/SM110.
    """
    if not _on(v):
        return None
    backend = v.attention_backend
    if backend not in RADIX_DETERMINISTIC_BACKENDS:
        return Refuse("deterministic inference with absorbed-MLA models supports "
                      f"{', '.join(RADIX_DETERMINISTIC_BACKENDS)}; got {backend}")
    if backend == "fa4" and not (v.target.is_sm100 or v.target.is_sm110):
        return Refuse("deterministic absorbed-MLA on fa4 needs an SM100 or SM110 GPU")
    return None


@rule(
    phase=Phase.KERNEL,
    reads=_ON + ("attention_backend", "disable_radix_cache"),
    writes=("disable_radix_cache",),
    sglang="handle_deterministic_inference (radix cache)",
    triggers=_ON,
)
def deterministic_radix_disable(v: View) -> Declare | None:
    """Only ascend, fa3, fa4 and triton stay deterministic with prefix reuse: else radix off."""
    if not _on(v) or v.attention_backend in RADIX_DETERMINISTIC_BACKENDS:
        return None
    return Declare({"disable_radix_cache": True},
                   f"radix cache disabled: {v.attention_backend} is not deterministic with "
                   "prefix reuse")


_TP_COLLECTIVES = dict(
    phase=Phase.KERNEL,
    reads=_ON + ("tp_size", "disable_custom_all_reduce"),
    writes=("disable_custom_all_reduce", "enable_torch_symm_mem"),
    facts=("target.is_hip",),
    triggers=_ON,
)


@rule(sglang="handle_deterministic_inference (TP all-reduce) / _deterministic_rocm_rccl_check",
      **_TP_COLLECTIVES)
def deterministic_tp_collectives(v: View) -> Declare | Refuse | None:
    """TP > 1: CUDA uses NCCL's tree all-reduce with pinned channels; ROCm its one-stage kernel.

    On CUDA the custom and symmetric-memory all-reduces switch algorithms by message size,
    so both go off (SGLang also pins NCCL_ALGO and the channel count). On ROCm the one-stage
    custom all-reduce is already deterministic, and above two ranks RCCL is not, so
    disabling the custom all-reduce is refused.
    """
    return _tp_collectives(v, rocm_rccl_check=True)


@rule(name="deterministic_tp_collectives", variant="0.5.22",
      sglang="handle_deterministic_inference (TP all-reduce, 0.5.21-0.5.22)", **_TP_COLLECTIVES)
def deterministic_tp_collectives_0_5_22(v: View) -> Declare | Refuse | None:
    """As in 0.5.23, without the ROCm check: before 0.5.23 a disabled custom all-reduce at
    tp > 2 on ROCm was accepted (and ran through RCCL, which is not batch-invariant)."""
    return _tp_collectives(v, rocm_rccl_check=False)


def _tp_collectives(v: View, rocm_rccl_check: bool) -> Declare | Refuse | None:
    if not _on(v) or v.tp_size <= 1:
        return None
    if v.target.is_hip:
        if rocm_rccl_check and v.tp_size > 2 and v.disable_custom_all_reduce:
            return Refuse("deterministic inference on ROCm with tp_size > 2 needs the custom "
                          "all-reduce; RCCL is not batch-invariant")
        return None
    return Declare({"disable_custom_all_reduce": True, "enable_torch_symm_mem": False},
                   "deterministic TP: NCCL tree all-reduce; custom and symmetric-memory "
                   "all-reduce disabled")
