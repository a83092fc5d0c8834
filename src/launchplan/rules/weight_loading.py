"""Remote-instance weight loading (SGLang's ``handle_load_format``, after the MoE budgets).

A server started with ``--remote-instance-weight-loader-start-seed-via-transfer-engine`` seeds
other instances' weights over Mooncake's TransferEngine; SGLang keeps the switch only where
that engine can run.
"""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
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


@rule(
    phase=Phase.SERVING,
    reads=("weight_cache_mode", "speculative_algorithm", "load_format"),
    sglang="handle_load_format",
    triggers=("weight_cache_mode", "load_format"),
)
def weight_cache_checks(v: View) -> Refuse | None:
    """The weight cache daemon serves the target model only, and ipc_cache is internal.

    When: ``--weight-cache-mode`` or a load format is given.
    Effect: refuses ``load_format`` ipc_cache (only the weight cache selects it), and a weight
        cache mode other than off with speculative decoding.
    Why: the daemon exports the target model's weights, never a draft model's; ipc_cache is the
        format the weight cache picks itself (``handle_load_format``).
    Assumes: nothing.
    """
    if v.load_format == "ipc_cache":
        return Refuse("--load-format ipc_cache is internal: use --weight-cache-mode client or "
                      "daemon")
    if v.weight_cache_mode != "off" and v.speculative_algorithm is not None:
        return Refuse("--weight-cache-mode does not work with speculative decoding (the daemon "
                      "does not export the draft model's weights)")
    return None
