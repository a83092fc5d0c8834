"""Remote-instance weight loading (SGLang's ``handle_load_format``, after the MoE budgets).

A server started with ``--remote-instance-weight-loader-start-seed-via-transfer-engine`` seeds
other instances' weights over Mooncake's TransferEngine; SGLang keeps the switch only where
that engine can run.
"""

from __future__ import annotations

from launchplan.engine.declarations import Declare
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View

SEED_FLAG = "remote_instance_weight_loader_start_seed_via_transfer_engine"


@rule(
    phase=Phase.SERVING,
    reads=(SEED_FLAG, "enable_memory_saver"),
    writes=(SEED_FLAG,),
    sglang="handle_load_format (validate_transfer_engine)",
    triggers=(SEED_FLAG,),
)
def transfer_engine_seed(v: View) -> Declare | None:
    """The TransferEngine weight seed is switched off under the memory saver.

    When: ``--remote-instance-weight-loader-start-seed-via-transfer-engine`` is on.
    Effect: declares it False with ``--enable-memory-saver``, True otherwise.
    Why: the memory saver's virtual allocations cannot be registered with the TransferEngine
        (``validate_transfer_engine``); SGLang logs this and serves without the seed.
    Assumes: Mooncake's ``mooncake.engine`` is importable on the serving host (SGLang also
        switches the seed off, with a warning, where it is not).
    """
    if not v.get(SEED_FLAG):
        return None
    if v.enable_memory_saver:
        return Declare({SEED_FLAG: False}, "the TransferEngine weight seed does not work with "
                                           "--enable-memory-saver: switched off")
    return Declare({SEED_FLAG: True})
