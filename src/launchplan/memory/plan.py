"""The memory plan of a resolved launch: weights, KV pool, tokens and concurrency per GPU.

It carries the resolved plan through SGLang 0.5.23's memory stage: the weights each GPU
loads (``memory.weights``), the budget left under ``mem_fraction_static`` and the KV pool
the architecture's configurator makes of it (``memory.kv_pool``), then how many requests
fit at once. The memory seen before loading is a stated fact of the target
(``facts.targets.before_load_bytes``), overridable with ``--before-load-mib``.
"""

from __future__ import annotations

from functools import partial
from operator import itemgetter
from typing import Any, NamedTuple

from launchplan.engine.pipeline import SAME_PLAN
from launchplan.engine.result import Result
from launchplan.facts.memo import per_object
from launchplan.facts.targets import before_load_bytes
from launchplan.memory import weights as _weights
from launchplan.memory.cpu_offload import CAVEAT as _OFFLOAD_CAVEAT
from launchplan.memory.cpu_offload import offloaded_bytes
from launchplan.memory.kv_pool import NotEnoughMemory, _Default, _Plan, plain_size, size
from launchplan.memory.values import Values, as_values, plain_values
from launchplan.memory.weights import weight_bytes
from launchplan.numbers import finite

#: A typical chat request when none is given: 2,048 prompt tokens and 512 generated.
DEFAULT_REQUEST_TOKENS = 2048 + 512

#: What loading spends beyond the checkpoint's tensors, per GPU. SGLang sizes the pool from
#: the memory free after loading, and its "Load weight end ... mem usage" exceeds the tensor
#: bytes in the public start-up logs of tests/memory/data/startup_logs.json: 0.12-0.15 GiB
#: for Llama-3.x and Qwen3-30B-A3B-FP8 on an H100, 0.19-0.20 GiB for Qwen2.5-7B, more under
#: tp or a vision tower (kernels loaded into the CUDA context, the allocator's partly used
#: segments), 0.02 GiB for Qwen3-8B under a 2026 build's multi-thread loader. An
#: assumption: about the smallest excess of the releases before it, rounded down. (Those
#: excesses were measured over the tensors alone; the RoPE table, 20-64 MiB of them for these
#: models, is counted with the weights now. The charge is kept: lower ones put more small
#: models outside 2% than they bring in.)
LOAD_OVERHEAD_BYTES = 128 << 20


def load_overhead_bytes(target: Any) -> int:
    """The target's stated figure (``--load-overhead-mib``), else the assumption above."""
    mib = getattr(target, "load_overhead_mib", None)
    return LOAD_OVERHEAD_BYTES if mib is None else mib << 20


#: The quantities ``explain`` and ``sweep --columns`` can show (JSON keys of the plan).
QUANTITIES = ("gpu_bytes", "before_load_bytes", "weights_bytes", "draft_weights_bytes",
              "kv_budget_bytes", "kv_bytes_per_token", "max_total_num_tokens",
              "max_running_requests", "concurrency_at_context", "concurrency_at_request",
              "kv_pool_bytes", "reserved_bytes", "other_bytes", "req_to_token_bytes", "fits",
              "full_max_total_num_tokens", "swa_max_total_num_tokens")


class _Figures(NamedTuple):
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
    #: the request-to-token table (``req_to_token_table_bytes``): allocated after the pool
    #: is sized, so it comes out of the reserve
    req_to_token_bytes: int = 0
    problem: str | None = None  # in launchplan's words, when it does not fit
    extra: dict[str, Any] = {}  # architecture-specific figures (SWA token counts, ...)
    caveats: tuple[str, ...] = ()
    #: the sizing's steps, or a list holding the arguments of ``_steps`` that makes them
    #: (then the steps too, once asked: most plans are never explained)
    made_steps: Any = ()


#: a ``MemoryPlan`` from a tuple of every field, without the generated ``__new__``'s call
#: (defined below)
_new_plan: Any = None

#: the fields equality compares (``extra`` repeats figures; ``made_steps`` is ``steps``)
_COMPARED = _Figures._fields[:17] + ("caveats",)


class MemoryPlan(_Figures):
    """Per-GPU memory of one launch (bytes), as SGLang would size it.

    A named tuple: thousands are made per second by ``check`` and ``sweep``. Two plans are
    equal when their figures, caveats and steps are."""

    __slots__ = ()

    @property
    def steps(self) -> tuple[tuple[str, Any], ...]:
        """(label, value): the KV pool's arithmetic, in order."""
        made = self.made_steps
        if type(made) is tuple:
            return made
        if len(made) == 1:
            made.append(_steps(*made[0]))
        return made[1]

    @property
    def other_bytes(self) -> int:
        """The rest of the GPU: CUDA context, communication buffers, activations."""
        return max(0, self.gpu_bytes - self.weights_bytes - self.draft_weights_bytes
                   - self.kv_pool_bytes - self.reserved_bytes)

    def _key(self) -> tuple[Any, ...]:
        return (*(getattr(self, name) for name in _COMPARED), self.steps)

    def __eq__(self, other: object) -> bool:
        if type(other) is not MemoryPlan:
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[Any, ...]:  # the steps made, not the function making them
        return MemoryPlan, (*self[:-1], self.steps)

    def to_dict(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in (
            "gpu_bytes", "before_load_bytes", "weights_bytes", "draft_weights_bytes",
            "kv_budget_bytes", "kv_bytes_per_token", "max_total_num_tokens",
            "max_running_requests", "context_len", "request_tokens", "concurrency_at_context",
            "concurrency_at_request", "fits", "reserved_bytes", "kv_pool_bytes",
            "req_to_token_bytes")}
        out["other_bytes"] = self.other_bytes
        out.update(self.extra)
        if self.problem:
            out["problem"] = self.problem
        out["steps"] = [[label, value] for label, value in self.steps]
        out["caveats"] = list(self.caveats)
        return out


_new_plan = partial(tuple.__new__, MemoryPlan)


def memory_plan(result: Result, *, request_tokens: int = DEFAULT_REQUEST_TOKENS
                ) -> MemoryPlan | None:
    """The memory plan of ``result``, or None when the target's memory is unknown.

    Computed once per result and request size (preflight and the output share it).
    """
    cache = result.extras
    key = _KEY if request_tokens == DEFAULT_REQUEST_TOKENS else ("memory", request_tokens)
    plan = cache.get(key, _UNSET)
    if plan is not _UNSET:
        return plan
    same = cache.get(SAME_PLAN)  # a repeated input: its plan's memory plan
    if same is None:  # ``_remembered``, inline (the path of every launch from scratch)
        try:
            plan = _plan(plain_values(result), request_tokens, result.record)
        except (ArithmeticError, ValueError):  # a number no real launch has: no plan
            plan = None
    elif key in same.analyses:
        plan = same.analyses[key]
    else:
        plan = same.analyses[key] = _remembered(result, request_tokens)
    cache[key] = plan
    return plan


_UNSET: Any = object()
#: the plan's key among a result's analyses for the default request (made once: its hash kept)
_KEY = ("memory", DEFAULT_REQUEST_TOKENS)


# --- memos -----------------------------------------------------------------------------------
# A repeated input shares its plan's memory plan (``SAME_PLAN``). Other launches reuse the
# weights by the sharding they come to (``weights.weight_bytes``). A whole plan is not
# remembered by every value it reads: over check's sampled points one in sixty would be
# found again, and the memo's entries, kept alive, cost the garbage collector more than the
# plans they saved (callgrind, 1,000 points: 136k instructions a point of 313k, 52k of them
# the collector). The free memory before loading is worked out afresh.


def forget() -> None:
    """Drop every memo keyed by a launch's values (the weight plans and figures by
    sharding). Per-model facts stay, as the parsed config does: a model's
    tensor tables under each ``--dtype``/``--quantization`` storage, its KV geometry, the
    facts of its own checkpoint as an MTP draft; so do each release's unset field values
    (``values._BASES``) and each target's free memory by GPUs spanned (``_free_before``),
    which no launch's values change."""
    _weights.forget()


def _remembered(result: Result, request_tokens: int) -> MemoryPlan | None:
    try:  # (the plan's lazy steps keep the values, not the whole result)
        return _plan(plain_values(result), request_tokens, result.record)
    except (ArithmeticError, ValueError):  # a number no real launch has: no plan, no crash
        return None


def _plan(result: Any, request_tokens: int, record: Any = None) -> MemoryPlan | None:
    """The memory plan of ``result`` (a ``Result``, or its ``Values``), computed afresh; or
    of its ``plain_values`` with its ``record``."""
    if record is None:
        record = result.record
        result = dict(result) if isinstance(result, Values) else plain_values(result)
    target = record.target
    free = _free_before(target)
    if free is None:  # the target's memory is unknown
        return None
    tp, pp, dp, attn_dp, ep, moe_dp, fraction, page, offload, nnodes, spec, mode = \
        _READ(result)
    # ``_plausible``'s common case inline: every size a bounded positive int, pp within the
    # layers (a launch's sizes nearly always are; else the general test). Of ints, each
    # ``size - 1`` is in [0, MAX_PARALLEL - 1] exactly when their bitwise or is (a power of
    # two's bits below it all set): one range test for the six
    if not ((type(tp), type(pp), type(dp), type(ep), type(attn_dp), type(moe_dp)) == _INTS
            and 0 <= (tp - 1 | pp - 1 | dp - 1 | ep - 1 | attn_dp - 1 | moe_dp - 1)
            < MAX_PARALLEL and (pp == 1 or _pp_fits(pp, record.model))):
        if not _plausible((tp, pp, dp, ep, attn_dp, moe_dp), record.model):
            return None  # preflight reports the parallel sizes themselves
        # each is then a positive int, None or True: read as 1 unless an int, as
        # ``weights._launch_shape``, ``kv_pool._Plan`` and ``gpus_used`` all take them
        tp = tp if type(tp) is int else 1
        pp = pp if type(pp) is int else 1
        ep = ep if type(ep) is int else 1
        attn_dp = attn_dp if type(attn_dp) is int else 1
        moe_dp = moe_dp if type(moe_dp) is int else 1
    if len(free) == 1:  # the GPUs spanned change nothing
        before = free[0]
    else:
        if nnodes is None or nnodes == 1:  # ``_node_gpus`` of one node, inline
            spanned = tp * pp * (dp if type(dp) is int and dp > 1 and attn_dp <= 1 else 1)
        else:
            spanned = _node_gpus(nnodes, tp, pp, dp, attn_dp)
        before = free[spanned] if spanned < len(free) else free[-1]
    if type(fraction) is not float:  # (a float's range test below rejects inf and nan)
        fraction = _fraction(fraction)
    if fraction is None or not 0 < fraction <= 1 or (page is not None and not (
            page >= 1 if type(page) is int else isinstance(page, int) and page >= 1)):
        return None  # no pool can be sized; preflight reports the value itself (a fraction
        # above 1 claims memory the GPU does not have)
    gpu = target.memory_mib << 20
    mine, draft, weight_caveats = weight_bytes(result, (tp, pp, ep, attn_dp, moe_dp), record)
    if offload and offload > 0:  # decoder layers kept in CPU memory: not loaded on the GPU
        mine -= offloaded_bytes(offload,
                                _weights.weights_per_gpu(as_values(result, record)).breakdown)
        weight_caveats = (*weight_caveats, _OFFLOAD_CAVEAT)
    reserved = int(before * (1 - fraction))
    context = record.model.context_len
    overhead = getattr(target, "load_overhead_mib", None)  # ``load_overhead_bytes``, inline
    overhead = LOAD_OVERHEAD_BYTES if overhead is None else overhead << 20
    if result.get("encoder_only") is True:
        return _encoder_server(result, record, gpu, before, overhead, context, request_tokens)
    loaded = mine + draft + overhead
    plain = plain_size(result, record, tp, pp, attn_dp, before, loaded)
    if plain is not None:  # the commonest pool, without the sizing's objects
        budget, tokens, per_token, max_reqs, caveats = plain
        cells, fixed, extra = tokens, 0, _NO_EXTRA
    else:
        kv_plan = _Plan(as_values(result, record), (tp, pp, attn_dp))
        try:
            sizer, budget, pool, max_reqs, mamba = size(kv_plan, before, loaded, gpu, None)
        except NotEnoughMemory as exc:
            budget = before - loaded - reserved
            return MemoryPlan(
                gpu_bytes=gpu, before_load_bytes=before, weights_bytes=mine,
                draft_weights_bytes=draft, kv_budget_bytes=budget, kv_bytes_per_token=0,
                max_total_num_tokens=0, max_running_requests=0, context_len=context,
                request_tokens=request_tokens, concurrency_at_context=0,
                concurrency_at_request=0, fits=False, reserved_bytes=reserved,
                kv_pool_bytes=0, problem=str(exc), caveats=weight_caveats)
        tokens = pool["max_total_num_tokens"]
        per_token = sizer.cell
        caveats = kv_plan.caveats()
        extra, cells, fixed = _pool_extra(sizer, pool, tokens)
        if mamba is not None:  # a hybrid linear-attention model's state slots, per rank
            extra = {**extra, "max_mamba_cache_size": mamba.slots,
                     "mamba_slots_per_request": mamba.ratio}
    pool_bytes = int(tokens * per_token) + fixed
    if spec is None and mode == "null" and max_reqs > 0 and type(context) is int:
        # ``req_to_token_table_bytes`` of the common launch, inline (no call)
        table = (max_reqs + 1) * (context + REQ_TO_TOKEN_EXTRA) * 4 if context > 0 else 0
    else:
        table = req_to_token_table_bytes(result, max_reqs, context, page)
    # ``_concurrent`` twice, inline: requests of a context's and of a request's tokens
    at_context = cells // context if context > 0 else 0
    if at_context > max_reqs:
        at_context = max_reqs
    at_request = cells // request_tokens if request_tokens > 0 else 0
    if at_request > max_reqs:
        at_request = max_reqs
    return _new_plan((
        gpu, before, mine, draft, budget, per_token, tokens, max_reqs, context,
        request_tokens, at_context if at_context > 0 else 0,
        at_request if at_request > 0 else 0, tokens > 0, reserved,
        budget if budget < pool_bytes else pool_bytes,
        table, None if tokens > 0 else "the KV pool holds no token",
        extra, weight_caveats + tuple(caveats) if caveats else weight_caveats,
        [(result, record, before, loaded, gpu, overhead)]))


#: Slots a request-to-token row holds beyond the context length without speculative decoding
#: (SGLang 0.5.23 ``mem_cache/allocation_sizing.py``: get_req_to_token_extra_context_len).
REQ_TO_TOKEN_EXTRA = 4


def req_to_token_table_bytes(values: Any, max_reqs: int, context: int, page: Any) -> int:
    """Bytes of SGLang's request-to-token table on one GPU (one attention-DP rank's).

    SGLang builds it after profiling the KV budget, so it is not in the pool's share: an
    int32 row of ``context + extra`` slots per request, ``max_reqs`` rows (per attention-DP
    worker) plus a padding row, plus the pre-allocation slots of a PD decode pool (0.5.23
    ``mem_cache/memory_pool.py`` ReqToTokenPool, ``disaggregation/decode.py``
    DecodeReqToTokenPool, ``mem_cache/kv_cache_configurator.py`` _build_req_to_token_pool).
    At a 10M context with 2,048 requests it is 80 GiB: more than the GPU."""
    rows, width = req_to_token_shape(values, max_reqs, context, page)
    return rows * width * 4


def req_to_token_shape(values: Any, max_reqs: int, context: int, page: Any) -> tuple[int, int]:
    """(rows, int32 slots a row) of the request-to-token table (``req_to_token_table_bytes``);
    (0, 0) when no pool holds a request."""
    if max_reqs <= 0 or type(context) is not int or context <= 0:
        return 0, 0
    draft = values.get("speculative_num_draft_tokens")
    extra = REQ_TO_TOKEN_EXTRA + draft if type(draft) is int and draft > 0 \
        else REQ_TO_TOKEN_EXTRA
    rows = max_reqs + 1
    spec = values.get("speculative_algorithm")
    if spec is not None and (type(page) is int and page > 1 or str(spec).upper() == "UNO"
                             or values.get("dcp_size") not in (None, 1)):
        extra = _spec_row_extra(values, extra, page)
    mode = values.get("disaggregation_mode")
    if mode == "decode" or mode not in (None, "null") and values.get("enable_pd_role_switch"):
        slots = values.get("disaggregation_decode_extra_slots")
        if type(slots) is int and slots > 0:
            rows += slots
    return rows, context + extra


def _spec_row_extra(values: Any, extra: int, page: Any) -> int:
    """A row's headroom under speculative decoding: with pages over one token (or UNO's
    double buffer at any page size) it holds twice a decode step's allocation plus a page's
    rounding (``allocation_sizing.py`` get_alloc_len_per_decode)."""
    width = page if type(page) is int and page > 1 else 1
    dcp = values.get("dcp_size")
    if type(dcp) is int and dcp > 1:
        width *= dcp
    algorithm = str(values.get("speculative_algorithm")).upper()
    if width == 1 and algorithm != "UNO":
        return extra
    steps = values.get("speculative_num_steps")
    topk = values.get("speculative_eagle_topk")
    tokens = values.get("speculative_num_draft_tokens")
    steps = steps if type(steps) is int and steps > 0 else 1
    topk = topk if type(topk) is int and topk > 0 else 1
    tokens = tokens if type(tokens) is int and tokens > 0 else 0
    if algorithm == "UNO":
        step = tokens + 1
    elif width == 1 or topk == 1 or algorithm == "NGRAM":
        step = max(steps * topk, tokens)
    else:  # a tree under pages: each branch's pages, rounded up
        step = max((2 * (width - 1) + steps) // width * width * topk, tokens)
    return max(extra, 2 * step + width - 1)


#: the parts of a checkpoint an encoder-only server loads (``weights``' components)
_ENCODER_PARTS = ("vision", "audio")
ENCODER_ONLY_CAVEAT = ("an encoder-only server (--encoder-only) loads only the model's "
                       "multimodal encoder and runs no language model: it holds no KV pool, "
                       "so it has no token or request figures")


def _encoder_server(result: Any, record: Any, gpu: int, before: int, overhead: int,
                    context: int, request_tokens: int) -> MemoryPlan:
    """An encoder-only server's memory: SGLang starts a server of its own for it (no model
    runner, no scheduler), which loads the vision (or audio) tower and no language model,
    so no KV pool is sized (``disaggregation/encoder``; the model class builds no language
    model when its config is marked encoder-only)."""
    breakdown = _weights.weights_per_gpu(as_values(result, record)).breakdown
    encoder = sum(int(breakdown.get(part, 0)) for part in _ENCODER_PARTS)
    steps = (("gpu memory (bytes)", gpu), ("free before loading (GiB)", before / (1 << 30)),
             ("weights: the multimodal encoder alone (bytes)", encoder),
             ("of which loading beyond the tensors (bytes)", overhead))
    fits = encoder + overhead < before
    return MemoryPlan(
        gpu_bytes=gpu, before_load_bytes=before, weights_bytes=encoder, draft_weights_bytes=0,
        kv_budget_bytes=0, kv_bytes_per_token=0, max_total_num_tokens=0,
        max_running_requests=0, context_len=context, request_tokens=request_tokens,
        concurrency_at_context=0, concurrency_at_request=0, fits=fits, reserved_bytes=0,
        kv_pool_bytes=0, problem=None if fits else "the encoder's weights exceed the memory "
        "free before loading", caveats=(ENCODER_ONLY_CAVEAT,), made_steps=steps)


def _pool_extra(sizer: Any, pool: dict[str, int], tokens: int
                ) -> tuple[dict[str, Any], int, int]:
    """(the architecture-specific figures of a pool, its cells a request takes tokens
    from, its bytes beyond the per-token ones)."""
    if len(pool) == 1 and type(sizer) is _Default:  # the default pool has none of these
        return _NO_EXTRA, tokens, 0
    extra: dict[str, Any] = {}
    for name, value in (("full_max_total_num_tokens", pool.get("full")),
                        ("swa_max_total_num_tokens", pool.get("swa")),
                        ("full_bytes_per_token", getattr(sizer, "full_bytes", None)),
                        ("swa_bytes_per_token", getattr(sizer, "swa_bytes", None)),
                        ("c4_max_total_num_tokens", pool.get("c4")),
                        ("c128_max_total_num_tokens", pool.get("c128"))):
        if value is not None:
            extra[name] = value
    return extra, pool.get("full") or tokens, getattr(sizer, "fixed_bytes", 0)


#: a plan's ``extra`` when its pool has no figures of its own (shared: plans never change it)
_NO_EXTRA: dict[str, Any] = {}

#: the values ``_plan`` reads itself, in one call (its values hold every one of them)
_READ = itemgetter("tp_size", "pp_size", "dp_size", "attn_dp_size", "ep_size", "moe_dp_size",
                   "mem_fraction_static", "page_size", "cpu_offload_gb", "nnodes",
                   # (whether the request-to-token table has more than its common shape)
                   "speculative_algorithm", "disaggregation_mode")


def _steps(values: dict[str, Any], record: Any, before: int, weights_bytes: int, gpu: int,
           overhead: int) -> tuple[tuple[str, Any], ...]:
    """The pool's sizing again, this time writing down its steps (``explain``, JSON)."""
    steps: list[tuple[str, Any]] = []
    size(_Plan(as_values(values, record)), before, weights_bytes, gpu, steps)
    at = next((i for i, (label, _) in enumerate(steps) if label == "weights (bytes)"), None)
    if at is not None:  # the loaded bytes carry the load overhead: say so next to them
        steps.insert(at + 1, ("of which loading beyond the tensors (bytes)", overhead))
    return tuple(steps)


@per_object
def _free_before(target: Any) -> tuple[int, ...] | None:
    """``before_load_bytes`` of the target for each count of GPUs a launch spans on its
    node (index 1 up to the node's GPUs; more read as all of them), or one figure when the
    span changes nothing (one GPU, a stated figure, no NVLink); None when its memory is
    unknown. A per-target fact, as the target's other facts."""
    if target.memory_mib is None:  # (``before_load_bytes`` is None only then)
        return None
    if target.gpu_count == 1 or target.before_load_mib is not None or not target.nvlink:
        return (before_load_bytes(target, 1),)  # type: ignore[return-value]
    return tuple(before_load_bytes(target, n)  # type: ignore[misc]
                 for n in range(target.gpu_count + 1))


#: No launch has more ranks in one parallel dimension than this (a planning bound, far above
#: any cluster SGLang has been run on; a power of two, as ``_plan``'s range test needs).
MAX_PARALLEL = 1 << 16
_INTS = (int,) * 6


def _plausible(sizes: tuple[Any, ...], model: Any) -> bool:
    """Parallel sizes (tp, pp, dp, ep, attention DP, MoE DP) a memory plan can describe:
    each at least 1 and bounded, and no more pipeline stages than layers (preflight reports
    any other value as a problem)."""
    for value in sizes:
        if type(value) is int and 0 < value <= MAX_PARALLEL or value is None:
            continue
        if not isinstance(value, int) or value < 1 or value > MAX_PARALLEL:
            return False
    layers = model.num_hidden_layers
    pp = sizes[1]
    return not layers or pp is None or pp == 1 or pp <= layers


def _pp_fits(pp: int, model: Any) -> bool:
    """No more pipeline stages than layers (``_plausible``'s last test)."""
    layers = model.num_hidden_layers
    return not layers or pp <= layers


def _node_gpus(nnodes: Any, tp: int, pp: int, dp: Any, attn_dp: int) -> int:
    """GPUs the launch spans on one node (its ranks talk to each other's buffers):
    ``gpus_used(result)[1]`` (at least 1), from ``nnodes`` and parallel sizes
    ``_plausible`` accepted, ``tp``, ``pp`` and ``attn_dp`` as positive ints (a test holds
    the two equal). Without attention DP, ``dp`` replicas take GPUs of their own; a
    pipeline stage spans ``nnodes // pp`` nodes."""
    replicas = dp if type(dp) is int and dp > 1 and attn_dp <= 1 else 1
    if type(nnodes) is not int or nnodes <= 1:  # one node holds every rank
        return tp * pp * replicas
    pp_node = pp // nnodes if pp // nnodes > 1 else 1
    spread = nnodes // pp if pp > 1 else nnodes
    tp_node = tp // spread if spread > 1 else tp
    return (tp_node if tp_node > 1 else 1) * pp_node * replicas


def _fraction(value: Any) -> float | None:
    if finite(value):
        return float(value)
    return None


def _concurrent(tokens: int, per_request: int, running_cap: int) -> int:
    """Requests of ``per_request`` tokens that fit at once (the scheduler's cap applies)."""
    if per_request <= 0:
        return 0
    fit = tokens // per_request
    if fit > running_cap:
        fit = running_cap
    return fit if fit > 0 else 0
