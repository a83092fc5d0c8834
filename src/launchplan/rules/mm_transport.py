"""How multimodal features travel from tokenizer workers to the scheduler
(SGLang's ``handle_multimodal_feature_transport``, run with the environment handling).

CUDA IPC (and CUDA VMM across MNNVL nodes) keeps a fixed pool on the base GPU, memory the KV
cache then lacks, so both are opt-in: an unset transport is ``cpu``.
"""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts import environment
from launchplan.rules.parallel import mnnvl_fabric_device

LEGACY_ENV = "SGLANG_USE_CUDA_IPC_TRANSPORT"

#: Model classes that declare CUDA VMM feature transport (``supports_cuda_vmm_feature_transport``
#: on the class or a base it inherits from; the same in 0.5.21-0.5.23, Muse Spark's from 0.5.23,
#: the release that registers it).
CUDA_VMM_ARCHS = frozenset({
    "Cosmos3ForConditionalGeneration", "DeepseekV4ForCausalLM",
    "InternS1ProForConditionalGeneration", "InternS2MobiusForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "KimiK25ForConditionalGeneration",
    "KimiK3ForConditionalGeneration", "MuseSparkForConditionalGeneration",
    "Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration",
    "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    "Qwen4ExpForConditionalGeneration",
})


@rule(
    phase=Phase.SERVING,
    reads=("mm_feature_transport", "encoder_only", "pp_size", "nnodes", "disaggregation_mode",
           "enable_multimodal", "language_model_only", "model_impl"),
    writes=("mm_feature_transport",),
    facts=("target.is_cuda", "target.device_name", "target.imex_channel", "model.arch0"),
    sglang="handle_multimodal_feature_transport (serving_hook.py)",
)
def mm_feature_transport_default(v: View) -> Declare | Refuse | None:
    """An unset multimodal feature transport is ``cpu``; GPU transports are checked.

    When: whenever its promises hold.
    Effect: declares ``mm_feature_transport``: the flag, else the retired
        SGLANG_USE_CUDA_IPC_TRANSPORT (1: cuda_ipc, 0: cpu), else cuda_vmm for a multimodal
        model whose class supports it, served across nodes (no PD role) on a GB200/GB300
        host with an IMEX channel, else cpu; an encoder-only server falls back to cpu.
        Refuses cuda_ipc off CUDA or on several nodes, and cuda_vmm (chosen or given) off
        CUDA or with pipeline parallelism.
    Why: CUDA IPC and VMM keep a fixed pool on the base GPU that the KV cache then lacks, so
        they are opt-in, except where the MNNVL/IMEX stack that CUDA VMM fabric handles need
        is already up (``handle_multimodal_feature_transport`` in ``serving_hook.py``).
    Assumes: the host mounts no IMEX channel unless stated (``Target.imex_channel``).
    """
    transport = v.mm_feature_transport
    note = None
    if transport is None:
        if environment.given(v.env, LEGACY_ENV):
            transport = "cuda_ipc" if environment.flag(v.env, LEGACY_ENV) else "cpu"
            note = f"{LEGACY_ENV} is retired: mm_feature_transport -> {transport}"
        else:
            transport = "cuda_vmm" if _fabric_transport(v) else "cpu"
    if v.encoder_only and transport in ("cuda_ipc", "cuda_vmm"):
        transport = "cpu"
        note = "an encoder-only server sends features over the encoder transfer backend: cpu"
    if transport == "cuda_vmm":
        if not v.target.is_cuda:
            return Refuse("--mm-feature-transport cuda_vmm needs NVIDIA CUDA")
        if v.pp_size != 1:
            chosen = ("" if v.mm_feature_transport is not None else
                      " (SGLang's own choice for a multi-node launch on a GB200/GB300 host "
                      "with an IMEX channel: pass --mm-feature-transport cpu)")
            return Refuse("--mm-feature-transport cuda_vmm does not support pipeline "
                          f"parallelism{chosen}")
    if transport == "cuda_ipc":
        if not v.target.is_cuda:
            return Refuse("--mm-feature-transport cuda_ipc needs NVIDIA CUDA")
        if v.nnodes != 1:
            return Refuse("--mm-feature-transport cuda_ipc works on a single node only")
    return Declare({"mm_feature_transport": transport}, note)


def _fabric_transport(v: View) -> bool:
    """SGLang's own pick of CUDA VMM: a multimodal model served by one PD-less server group
    across nodes of a GB200/GB300 MNNVL fabric whose IMEX channel is mounted, when the
    model's class declares the transport (SGLang's own class: under ``--model-impl
    transformers`` or ``mindspore`` the wrapper class serves, which declares nothing)."""
    t = v.target
    return (not v.encoder_only and v.nnodes != 1 and v.disaggregation_mode == "null"
            and t.is_cuda and t.imex_channel and mnnvl_fabric_device(t)
            and v.model.arch0 in CUDA_VMM_ARCHS
            and v.model_impl not in ("transformers", "mindspore")  # their wrappers do not
            and v.model.multimodal(v.enable_multimodal,
                                   language_model_only=v.language_model_only,
                                   model_impl=v.model_impl))
