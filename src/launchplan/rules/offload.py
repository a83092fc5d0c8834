"""Weight offload flags that exclude each other (SGLang's ``handle_offload_compatibility``).

SGLang checks them twice: early, on the flags as given, and again after the model overrides,
which may turn the per-layer-embedding (PLE) offload on by default (Qwen4-Exp).
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View

# what both runs of the check read (refusals only: nothing is declared)
_OFFLOAD = dict(
    reads=("ple_offload_embedding", "ple_offload_backend", "cpu_offload_gb",
           "offload_group_size"),
    writes=(),
    triggers=("ple_offload_embedding", "ple_offload_backend"),
)


def _above_zero(value: Any) -> bool:
    """``value > 0`` as SGLang compares it, False for anything that is not a number."""
    return isinstance(value, (int, float)) and value > 0


def _offload_problem(v: Any) -> Refuse | None:
    if v.ple_offload_embedding and (_above_zero(v.cpu_offload_gb)
                                    or _above_zero(v.offload_group_size)):
        return Refuse("--ple-offload-embedding excludes --cpu-offload-gb and "
                      "--offload-group-size: layer offload would copy the pinned PLE "
                      "table back onto the GPU")
    if v.ple_offload_backend == "file" and v.ple_offload_embedding is False:
        return Refuse("--ple-offload-backend file needs --ple-offload-embedding: the file "
                      "holds the offloaded table")
    return None


@rule(phase=Phase.BOOTSTRAP, sglang="handle_offload_compatibility", **_OFFLOAD)
def offload_compatibility(v: View) -> Refuse | None:
    """PLE offload excludes generic layer offload; a file backend needs PLE offload on.

    When: ``ple_offload_embedding`` or ``ple_offload_backend`` is given.
    Effect: refuses PLE offload together with ``cpu_offload_gb`` > 0 or
        ``offload_group_size`` > 0, and ``ple_offload_backend`` file with PLE offload
        explicitly off.
    Why: generic layer offload would stage the pinned PLE embedding back to the device, and
        the file backend is the offloaded table (``handle_offload_compatibility``, first run,
        right after the HiCache ratio default).
    Assumes: nothing.
    """
    return _offload_problem(v)


@rule(phase=Phase.MODEL, sglang="handle_offload_compatibility (second run)", **_OFFLOAD)
def offload_compatibility_recheck(v: View) -> Refuse | None:
    """The offload check again, after model overrides may have turned PLE offload on.

    When: ``ple_offload_embedding`` or ``ple_offload_backend`` is given or declared.
    Effect: the refusals of ``offload_compatibility``, on the values the model overrides
        left (Qwen4-Exp defaults PLE offload on for bf16 on CUDA).
    Why: SGLang runs ``handle_offload_compatibility`` a second time after
        ``handle_model_specific_adjustments`` and the prefill-decode interval default.
    Assumes: nothing.
    """
    return _offload_problem(v)
