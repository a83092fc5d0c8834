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

LEGACY_ENV = "SGLANG_USE_CUDA_IPC_TRANSPORT"


@rule(
    phase=Phase.SERVING,
    reads=("mm_feature_transport", "encoder_only", "pp_size", "nnodes"),
    writes=("mm_feature_transport",),
    facts=("target.is_cuda",),
    sglang="handle_multimodal_feature_transport (serving_hook.py)",
)
def mm_feature_transport_default(v: View) -> Declare | Refuse | None:
    """An unset multimodal feature transport is ``cpu``; GPU transports are checked.

    When: whenever its promises hold.
    Effect: declares ``mm_feature_transport``: the flag, else the retired
        SGLANG_USE_CUDA_IPC_TRANSPORT (1: cuda_ipc, 0: cpu), else cpu; an encoder-only server
        falls back to cpu. Refuses cuda_ipc off CUDA or on several nodes, and cuda_vmm off CUDA
        or with pipeline parallelism.
    Why: CUDA IPC and VMM keep a fixed pool on the base GPU that the KV cache then lacks, so
        they are opt-in (``handle_multimodal_feature_transport`` in ``serving_hook.py``).
    Assumes: no MNNVL fabric with an IMEX channel (where SGLang would pick cuda_vmm for
        multi-node multimodal models).
    """
    transport = v.mm_feature_transport
    note = None
    if transport is None:
        if environment.given(v.env, LEGACY_ENV):
            transport = "cuda_ipc" if environment.flag(v.env, LEGACY_ENV) else "cpu"
            note = f"{LEGACY_ENV} is retired: mm_feature_transport -> {transport}"
        else:
            transport = "cpu"
    if v.encoder_only and transport in ("cuda_ipc", "cuda_vmm"):
        transport = "cpu"
        note = "an encoder-only server sends features over the encoder transfer backend: cpu"
    if transport == "cuda_vmm":
        if not v.target.is_cuda:
            return Refuse("--mm-feature-transport cuda_vmm needs NVIDIA CUDA")
        if v.pp_size != 1:
            return Refuse("--mm-feature-transport cuda_vmm does not support pipeline "
                          "parallelism")
    if transport == "cuda_ipc":
        if not v.target.is_cuda:
            return Refuse("--mm-feature-transport cuda_ipc needs NVIDIA CUDA")
        if v.nnodes != 1:
            return Refuse("--mm-feature-transport cuda_ipc works on a single node only")
    return Declare({"mm_feature_transport": transport}, note)
