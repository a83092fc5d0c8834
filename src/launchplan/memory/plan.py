"""The memory plan of a resolved launch: weights, KV pool, tokens and concurrency per GPU.

It carries the resolved plan through SGLang 0.5.23's memory stage: the weights each GPU
loads (``memory.weights``), the budget left under ``mem_fraction_static`` and the KV pool
the architecture's configurator makes of it (``memory.kv_pool``), then how many requests
fit at once. The memory seen before loading is a stated fact of the target
(``facts.targets.before_load_bytes``), overridable with ``--before-load-mib``.
"""

from __future__ import annotations

import math
from typing import Any

from launchplan.checks.launch_requirements import gpus_used
from launchplan.engine.pipeline import SAME_PLAN
from launchplan.engine.result import Result
from launchplan.facts.targets import before_load_bytes
from launchplan.memory import weights as _weights
from launchplan.memory.kv_pool import NotEnoughMemory, _Plan, size
from launchplan.memory.values import Values, values_of
from launchplan.memory.weights import weights_per_gpu
from launchplan.struct import Struct, uncompared

#: A typical chat request when none is given: 2,048 prompt tokens and 512 generated.
DEFAULT_REQUEST_TOKENS = 2048 + 512


#: The quantities ``explain`` and ``sweep --columns`` can show (JSON keys of the plan).
QUANTITIES = ("gpu_bytes", "before_load_bytes", "weights_bytes", "draft_weights_bytes",
              "kv_budget_bytes", "kv_bytes_per_token", "max_total_num_tokens",
              "max_running_requests", "concurrency_at_context", "concurrency_at_request",
              "kv_pool_bytes", "reserved_bytes", "other_bytes", "fits",
              "full_max_total_num_tokens", "swa_max_total_num_tokens")


class MemoryPlan(Struct):
    """Per-GPU memory of one launch (bytes), as SGLang would size it."""

    gpu_bytes: int
    before_load_bytes: int
    weights_bytes: int
    draft_weights_bytes: int
    kv_budget_bytes: int
    kv_bytes_per_token: int | float
    max_total_num_tokens: int
    max_running_requests: int
    context_len: int
    request_tokens: int
    concurrency_at_context: int
    concurrency_at_request: int
    fits: bool
    reserved_bytes: int  # (1 - mem_fraction_static) of what was free before loading
    kv_pool_bytes: int  # what the pool's tokens take
    problem: str | None = None  # in launchplan's words, when it does not fit
    extra: dict[str, Any] = uncompared({})  # architecture-specific figures (SWA token counts, ...)
    caveats: tuple[str, ...] = ()
    #: the sizing's steps, or a function that makes them (most plans are never explained)
    made_steps: Any = uncompared(())

    @property
    def steps(self) -> tuple[tuple[str, Any], ...]:
        """(label, value): the KV pool's arithmetic, in order."""
        made = self.made_steps
        if type(made) is not tuple:
            made = made()
            object.__setattr__(self, "made_steps", made)
        return made

    @property
    def other_bytes(self) -> int:
        """The rest of the GPU: CUDA context, communication buffers, activations."""
        return max(0, self.gpu_bytes - self.weights_bytes - self.draft_weights_bytes
                   - self.kv_pool_bytes - self.reserved_bytes)

    def to_dict(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in (
            "gpu_bytes", "before_load_bytes", "weights_bytes", "draft_weights_bytes",
            "kv_budget_bytes", "kv_bytes_per_token", "max_total_num_tokens",
            "max_running_requests", "context_len", "request_tokens", "concurrency_at_context",
            "concurrency_at_request", "fits", "reserved_bytes", "kv_pool_bytes")}
        out["other_bytes"] = self.other_bytes
        out.update(self.extra)
        if self.problem:
            out["problem"] = self.problem
        out["steps"] = [[label, value] for label, value in self.steps]
        out["caveats"] = list(self.caveats)
        return out


def memory_plan(result: Result, *, request_tokens: int = DEFAULT_REQUEST_TOKENS
                ) -> MemoryPlan | None:
    """The memory plan of ``result``, or None when the target's memory is unknown.

    Computed once per result and request size (preflight and the output share it).
    """
    cache = result.extras
    key = ("memory", request_tokens)
    if key not in cache:
        same = cache.get(SAME_PLAN)  # a repeated input: its plan's memory plan
        if same is None:
            cache[key] = _remembered(result, request_tokens)
        elif key in same.analyses:
            cache[key] = same.analyses[key]
        else:
            cache[key] = same.analyses[key] = _remembered(result, request_tokens)
    return cache[key]


# --- early cut-off: a plan is reused when the values it reads are unchanged ----------------

#: (target, model, draft ids, compat, env, request size, the values read) ->
#: (target, model, draft, plan); the objects kept so that their ids stay theirs
_MEMO: dict[tuple[Any, ...], tuple[Any, Any, Any, MemoryPlan | None]] = {}
_MEMO_KEYS = 4096  # bounded: oldest keys go first


def forget() -> None:
    """Drop every memo keyed by a launch's values (the memory plans, the weight plans);
    what is derived from a model's facts alone stays, as the parsed config does."""
    _MEMO.clear()
    _weights.forget()


def _remembered(result: Result, request_tokens: int) -> MemoryPlan | None:
    """``_plan``, remembered by the values it reads (like a build system's early cut-off):
    ``check`` and ``sweep`` resolve thousands of points that differ only in fields the
    memory plan never reads."""
    values = values_of(result)
    record = result.record
    target, model, draft = record.target, record.model, record.draft
    key: tuple[Any, ...] | None = (
        id(target), id(model), id(draft), record.compat,
        tuple(sorted(record.env.items())) if record.env else (), request_tokens,
        values.key())
    try:
        hit = _MEMO.get(key)  # type: ignore[arg-type]
    except TypeError:  # an unhashable value: not remembered
        hit, key = None, None
    if hit is not None and hit[0] is target and hit[1] is model and hit[2] is draft:
        return hit[3]
    plan = _fresh(values, request_tokens)
    if key is not None and not values.untracked:
        if len(_MEMO) >= _MEMO_KEYS:
            del _MEMO[next(iter(_MEMO))]
        _MEMO[key] = (target, model, draft, plan)
    values.result = None if not values.untracked else values.result  # lazy steps need no more
    return plan


def _fresh(values: Values, request_tokens: int) -> MemoryPlan | None:
    try:
        return _plan(values, request_tokens)  # type: ignore[arg-type]
    except (ArithmeticError, ValueError):  # a number no real launch has: no plan, no crash
        return None


def _plan(result: Result, request_tokens: int) -> MemoryPlan | None:
    """The memory plan of ``result`` (a ``Result``, or its ``Values``), computed afresh."""
    if not isinstance(result, Values):
        result = values_of(result)  # type: ignore[assignment]
    target = result.record.target
    before = before_load_bytes(target, _node_gpus(result))
    if before is None or target.memory_mib is None:
        return None
    if not _plausible_shape(result):
        return None  # preflight reports the parallel sizes themselves
    fraction = _fraction(result.value("mem_fraction_static"))
    page = result.value("page_size")
    if fraction is None or not 0 < fraction <= 1 or (page is not None and not (
            isinstance(page, int) and page >= 1)):
        return None  # no pool can be sized; preflight reports the value itself (a fraction
        # above 1 claims memory the GPU does not have)
    gpu = target.memory_mib << 20
    weights = weights_per_gpu(result)
    mine, draft = weights.bytes_per_gpu, weights.draft_bytes_per_gpu
    reserved = int(before * (1 - fraction))
    context = result.record.model.context_len
    kv_plan = _Plan(result)
    try:
        sizer, budget, pool, max_reqs, _ = size(kv_plan, before, mine + draft, gpu, None)
    except NotEnoughMemory as exc:
        budget = before - mine - draft - reserved
        return MemoryPlan(
            gpu_bytes=gpu, before_load_bytes=before, weights_bytes=mine,
            draft_weights_bytes=draft, kv_budget_bytes=budget, kv_bytes_per_token=0,
            max_total_num_tokens=0, max_running_requests=0, context_len=context,
            request_tokens=request_tokens, concurrency_at_context=0,
            concurrency_at_request=0, fits=False, reserved_bytes=reserved, kv_pool_bytes=0,
            problem=str(exc), caveats=weights.caveats)
    tokens = pool["max_total_num_tokens"]
    cells = pool.get("full") or tokens
    per_token = sizer.cell
    extra: dict[str, Any] = {}
    for name, value in (("full_max_total_num_tokens", pool.get("full")),
                        ("swa_max_total_num_tokens", pool.get("swa")),
                        ("full_bytes_per_token", getattr(sizer, "full_bytes", None)),
                        ("swa_bytes_per_token", getattr(sizer, "swa_bytes", None))):
        if value is not None:
            extra[name] = value
    return MemoryPlan(
        gpu_bytes=gpu, before_load_bytes=before, weights_bytes=mine, draft_weights_bytes=draft,
        kv_budget_bytes=budget, kv_bytes_per_token=per_token,
        max_total_num_tokens=tokens, max_running_requests=max_reqs,
        context_len=context, request_tokens=request_tokens,
        concurrency_at_context=_concurrent(cells, context, max_reqs),
        concurrency_at_request=_concurrent(cells, request_tokens, max_reqs),
        fits=tokens > 0, reserved_bytes=reserved,
        kv_pool_bytes=min(budget, int(tokens * per_token)),
        problem=None if tokens > 0 else "the KV pool holds no token",
        extra=extra, caveats=tuple(weights.caveats) + tuple(kv_plan.caveats()),
        made_steps=lambda: _steps(result, before, mine + draft, gpu))


def _steps(values: Values, before: int, weights_bytes: int, gpu: int
           ) -> tuple[tuple[str, Any], ...]:
    """The pool's sizing again, this time writing down its steps (``explain``, JSON)."""
    steps: list[tuple[str, Any]] = []
    size(_Plan(values), before, weights_bytes, gpu, steps)
    return tuple(steps)


#: No launch has more ranks in one parallel dimension than this (a planning bound, far above
#: any cluster SGLang has been run on).
MAX_PARALLEL = 1 << 16


def _plausible_shape(result: Result) -> bool:
    """Parallel sizes a memory plan can describe: each at least 1 and bounded, and no more
    pipeline stages than layers (preflight reports any other value as a problem)."""
    for name in ("tp_size", "pp_size", "dp_size", "ep_size", "attn_dp_size", "moe_dp_size"):
        value = result.value(name)
        if value is None:
            continue
        if not isinstance(value, int) or not 1 <= value <= MAX_PARALLEL:
            return False
    layers = result.record.model.num_hidden_layers
    return not layers or result.value("pp_size") in (None, 1) or result.value("pp_size") <= layers


def _node_gpus(result: Result) -> int:
    """GPUs the launch spans on one node (its ranks talk to each other's buffers)."""
    return max(1, gpus_used(result)[1])  # it reads values by name only


def _fraction(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _concurrent(tokens: int, per_request: int, running_cap: int) -> int:
    """Requests of ``per_request`` tokens that fit at once (the scheduler's cap applies)."""
    if per_request <= 0:
        return 0
    return max(0, min(tokens // per_request, running_cap))
