"""A start-up log's memory figures next to the memory plan of the launch it records.

A user holding a log asks why SGLang sized the KV pool as it did, or whether launchplan's
plan of the same launch can be trusted on another GPU. Each figure the log printed (free
memory before loading, what the weights took, ``max_total_num_tokens``,
``max_running_requests``, the context length) is set beside the plan's, with the relative
error. The pool is planned twice when the log states the free memory before loading: with
launchplan's assumption for the target (what a plan made before renting the GPU says),
and with the logged figure, which isolates the pool's arithmetic from the one figure that
depends on the machine (driver, CUDA context, other processes on the GPU).

A load that left the GPU full logged what the card held, not what the weights need: that
figure is a lower bound, and the row says so instead of stating an error the card caused.
"""

from __future__ import annotations

from typing import Any

from launchplan.input.server_log import LoggedMemory
from launchplan.memory.plan import load_overhead_bytes
from launchplan.struct import Struct

GiB = 1 << 30
FLAG = "yes/no"  # a row's unit when it says whether something happened (the KV pool made)
# Free memory after loading at or under this (GiB, printed to two decimals) means the load
# filled the card: one that hit the limit leaves the driver's scraps, tens of MiB at most.
FULL_AFTER_LOAD_GIB = 0.1


class MemoryRow(Struct):
    figure: str
    logged: float | int | None
    planned: float | int | None
    from_logged_free: float | int | None = None  # planned from the logged free memory
    unit: str = ""  # "GiB" for memory figures, "" for counts, "yes/no" for a made pool
    # the logged figure is what a full GPU held: the real one may be larger
    lower_bound: bool = False
    note: str | None = None  # why the row reads otherwise than a figure and its error

    def error(self, planned: float | int | None) -> float | None:
        """Relative to the logged figure; none for a plan at or above a lower bound, which
        the log cannot show wrong (below it, the plan is under by at least this)."""
        if planned is None or not self.logged or self.unit == FLAG:
            return None
        if self.lower_bound and planned >= self.logged:
            return None
        return (planned - self.logged) / self.logged

    def to_dict(self) -> dict[str, Any]:
        return {"figure": self.figure, "unit": self.unit or "count", "logged": self.logged,
                "planned": self.planned, "error": _rounded(self.error(self.planned)),
                "planned_from_logged_free_memory": self.from_logged_free,
                "error_from_logged_free_memory": _rounded(self.error(self.from_logged_free)),
                "logged_is_lower_bound": self.lower_bound, "note": self.note}


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _gib(value: int | None) -> float | None:
    return None if value is None else round(value / GiB, 2)


def memory_rows(logged: LoggedMemory, plan: Any, plan_from_logged: Any = None,
                target: Any = None) -> list[MemoryRow]:
    """One row per figure the log holds. ``plan``: the memory plan made with the target's
    own free-memory figure; ``plan_from_logged``: made with the log's (None without one);
    ``target``: whose load-overhead figure the plan charged."""
    def both(name: str) -> tuple[Any, Any]:
        first = getattr(plan, name) if plan is not None else None
        again = getattr(plan_from_logged, name) if plan_from_logged is not None else None
        return first, again

    rows: list[MemoryRow] = []
    if logged.free_before_gib is not None:
        rows.append(MemoryRow("free before loading", round(logged.free_before_gib, 2),
                              _gib(plan.before_load_bytes) if plan else None, unit="GiB"))
    if logged.loaded_gib is not None and plan is not None:
        # what loading took, as SGLang measures it: the tensors and loading's own overhead;
        # a later load (a draft's) counts only when the plan holds a draft to match it
        weights = plan.weights_bytes + plan.draft_weights_bytes + load_overhead_bytes(target)
        loaded = logged.loaded_gib
        if not plan.draft_weights_bytes and logged.more_weights_gib:
            loaded -= logged.more_weights_gib
        rows.append(_weights_row(round(loaded, 2), logged.after_load_gib, _gib(weights)))
    elif logged.loaded_gib is None and logged.after_load_gib is not None and plan is not None:
        # an older release's "Load weight end" with neither the usage nor a begin record:
        # what loading left free is the one figure of it, the target's free memory less the
        # weights and loading's overhead in the plan
        weights = plan.weights_bytes + plan.draft_weights_bytes + load_overhead_bytes(target)
        rows.append(MemoryRow("free after loading", round(logged.after_load_gib, 2),
                              _gib(plan.before_load_bytes - weights), unit="GiB"))
    if logged.pool_made is not None and plan is not None and not (logged.pool_made
                                                                  and plan.fits):
        # a log ending in SGLang's "Not enough memory" (the plan must find no room either),
        # or a pool the log made where the plan finds no room; a made pool planned is the
        # token rows' business
        again = plan_from_logged.fits if plan_from_logged is not None else None
        rows.append(MemoryRow("KV pool made", logged.pool_made, plan.fits, again, unit=FLAG))
    for name in ("max_total_num_tokens", "max_running_requests", "context_len"):
        value = getattr(logged, name)
        if value is not None:
            first, again = both(name)
            note = _every_layer_full(logged, plan) if name == "max_total_num_tokens" else None
            rows.append(MemoryRow(name, value, first,
                                  again if name != "context_len" else None, note=note))
    if logged.max_mamba_cache_size is not None and plan is not None:
        rows.append(_mamba_row(logged, plan, plan_from_logged))
    for name, value in logged.pools.items():
        if plan is not None and name in plan.extra:
            again = plan_from_logged.extra.get(name) if plan_from_logged is not None else None
            rows.append(MemoryRow(name, value, plan.extra[name], again))
    return rows


#: how near the bytes a logged token takes must be to the plan's for every layer (the log
#: prints the pool's sizes to a hundredth of a GiB)
_LAYOUT_TOLERANCE = 0.02


def _every_layer_full(logged: LoggedMemory, plan: Any) -> str | None:
    """The note for a hybrid sliding-window model whose log shows one pool holding every
    layer as full (the bytes its logged token takes are the plan's full and SWA layers'
    together): the build that ran had hybrid SWA memory off (older releases did so for
    some models), so the token counts differ by that layout, not by the plan's arithmetic.
    None otherwise. A note only: the plan is not refitted to the log."""
    if plan is None or not logged.one_pool_tokens or not logged.one_pool_gib:
        return None
    full = plan.extra.get("full_bytes_per_token")
    swa = plan.extra.get("swa_bytes_per_token")
    if not full or not swa:
        return None
    per_token = logged.one_pool_gib * GiB / logged.one_pool_tokens
    every = full + swa
    if abs(per_token - every) > _LAYOUT_TOLERANCE * every \
            or abs(per_token - every) >= abs(per_token - full):
        return None
    return (f"the log's build pooled every layer as full (hybrid SWA memory off): its one "
            f"pool of {logged.one_pool_tokens:,} tokens takes {logged.one_pool_gib:.2f} GiB "
            f"of K and V, {per_token:,.0f} B a token, the plan's full and SWA layers together "
            f"({full:,} + {swa:,} B), where the plan gives the SWA layers a pool of their own; "
            "the error is that layout's (--disable-hybrid-swa-memory plans it), not the "
            "memory model's")


def _mamba_row(logged: LoggedMemory, plan: Any, again: Any) -> MemoryRow:
    """A hybrid linear-attention model's state slots beside the plan's. SGLang caps the
    running requests at its slots over the slots a request holds (3, 4 or 5: the radix
    cache's strategy, the overlap scheduler, the release), so a log whose slots per request
    differ from the plan's explains a ``max_running_requests`` gap, when there is one: that
    is the row's note."""
    slots = logged.max_mamba_cache_size
    planned = plan.extra.get("max_mamba_cache_size")
    from_logged = again.extra.get("max_mamba_cache_size") if again is not None else None
    note = None
    per_request = plan.extra.get("mamba_slots_per_request")
    running = logged.max_running_requests
    planned_running = {getattr(p, "max_running_requests", None) for p in (plan, again)
                       if p is not None}
    if per_request and running and slots and running not in planned_running:
        # (requests the plan meets need no explaining: an explicit limit sizes the slots
        # from the memory split instead, whatever a request holds)
        held = slots / running
        if abs(held - per_request) >= 0.5:
            note = (f"the log holds {held:.1f} state slots per running request where the plan "
                    f"holds {per_request} (--mamba-radix-cache-strategy, the overlap "
                    "scheduler and the release decide it): max_running_requests differs by "
                    "that")
    return MemoryRow("max_mamba_cache_size", slots, planned, from_logged, note=note)


def _weights_row(loaded: float, after: float | None, planned: float | None) -> MemoryRow:
    """What the weights took as logged (``loaded`` GiB, ``after`` GiB free once loaded)
    beside the plan's. A load that left the GPU full logged only what the card held (it ran
    out of memory, or nearly): that figure is a lower bound, and the row says how the plan
    stands to it instead of an error the card caused."""
    if after is None or after > FULL_AFTER_LOAD_GIB or planned is None:
        return MemoryRow("weights as loaded", loaded, planned, unit="GiB")
    held = (f"the GPU was full after loading ({after:.2f} GiB free): the logged "
            f"{loaded:.2f} GiB is what the card held, a lower bound of what the weights need; "
            f"the plan's {planned:.2f} GiB")
    note = (f"{held} exceed what the card held (no error stated)" if planned >= loaded
            else f"{held} is under it, by at least {(loaded - planned) / loaded:.1%}")
    return MemoryRow("weights as loaded", loaded, planned, unit="GiB", lower_bound=True,
                     note=note)
