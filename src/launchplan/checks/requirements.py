"""What each kernel and feature needs, as one table.

A requirement says: *when* a plan uses something, it *needs* a condition on the final
values. Rules decide values; requirements check that the decisions fit together, so two
rules that collide (rules.md §10) show up as a violation naming both sides instead of a
crash on the GPU. Conditions are small named predicates over a ``Plan`` (the final values
plus the facts), so the table reads like Spack's ``conflicts(when=..., msg=...)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from launchplan.engine.result import Result

SIDES = ("attention_backend", "prefill_attention_backend", "decode_attention_backend")
EAGLE_FAMILY = frozenset({"EAGLE", "EAGLE3", "STANDALONE"})
PAGE_TREE_BACKENDS = frozenset({"flashinfer", "fa3", "triton"})


class Plan:
    """Final values of a result, with the derived facts requirements talk about."""

    __slots__ = ("result", "target", "model", "_cache")

    def __init__(self, result: Result) -> None:
        self.result = result
        self.target = result.record.target
        self.model = result.record.model
        self._cache: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        cache = self._cache
        if name not in cache:
            cache[name] = self.result.value_at(name)
        return cache[name]

    @property
    def prefill_backend(self) -> Any:
        return self["prefill_attention_backend"] or self["attention_backend"]

    @property
    def decode_backend(self) -> Any:
        return self["decode_attention_backend"] or self["attention_backend"]

    def graph(self, phase: str, key: str) -> Any:
        return self[f"cuda_graph_config.{phase}.{key}"]


@dataclass(frozen=True)
class Cond:
    """A named predicate over a plan, and the fields whose provenance explains it."""

    text: str
    test: Callable[[Plan], bool]
    fields: tuple[str, ...] = ()
    # The fields that matter for this plan, when that depends on the plan (a backend that
    # is only the decode side, say); ``fields`` otherwise.
    relevant: Callable[[Plan], tuple[str, ...]] | None = None
    # Backends this condition needs present in the plan (None: no such need). Lets
    # ``check`` skip a kernel's requirements when the plan never names that kernel.
    gate: frozenset[str] | None = None

    def fields_for(self, plan: Plan) -> tuple[str, ...]:
        return self.relevant(plan) if self.relevant is not None else self.fields

    def __call__(self, plan: Plan) -> bool:
        return bool(self.test(plan))

    def __and__(self, other: Cond) -> Cond:
        gate = self.gate if self.gate is not None else other.gate
        return Cond(f"{self.text} and {other.text}", lambda p: self(p) and other(p),
                    self.fields + other.fields,
                    lambda p: self.fields_for(p) + other.fields_for(p), gate)

    def __or__(self, other: Cond) -> Cond:
        gate = (self.gate | other.gate) if self.gate is not None and other.gate is not None \
            else None
        return Cond(f"{self.text} or {other.text}", lambda p: self(p) or other(p),
                    self.fields + other.fields,
                    lambda p: self.fields_for(p) + other.fields_for(p), gate)

    def __invert__(self) -> Cond:
        return Cond(f"not {self.text}", lambda p: not self(p), self.fields, self.relevant)


# --- the predicate vocabulary ----------------------------------------------------------------


def uses(backend: str, *, sides: Iterable[str] = ("prefill", "decode")) -> Cond:
    """``backend`` is the effective prefill and/or decode attention backend."""
    sides = tuple(sides)

    def test(p: Plan) -> bool:
        return (("prefill" in sides and p.prefill_backend == backend)
                or ("decode" in sides and p.decode_backend == backend))

    def relevant(p: Plan) -> tuple[str, ...]:
        out = []
        if "prefill" in sides and p.prefill_backend == backend:
            out.append("prefill_attention_backend" if p["prefill_attention_backend"]
                       else "attention_backend")
        if "decode" in sides and p.decode_backend == backend:
            out.append("decode_attention_backend" if p["decode_attention_backend"]
                       else "attention_backend")
        return tuple(dict.fromkeys(out))

    return Cond(f"{backend} is the {'/'.join(sides)} backend", test, SIDES, relevant,
                frozenset({backend}))


def named(backend: str, *, fields: tuple[str, ...] = SIDES) -> Cond:
    """``backend`` appears in one of the given backend fields."""
    return Cond(f"{backend} is named in {', '.join(fields)}",
                lambda p: any(p[f] == backend for f in fields), fields,
                lambda p: tuple(f for f in fields if p[f] == backend), frozenset({backend}))


def field_in(name: str, allowed: Iterable[Any]) -> Cond:
    allowed = frozenset(allowed)
    shown = ", ".join(str(a) for a in sorted(allowed, key=str))
    return Cond(f"{name} in {{{shown}}}", lambda p: p[name] in allowed, (name,))


def field_is(name: str, value: Any) -> Cond:
    return Cond(f"{name} = {value}", lambda p: p[name] == value, (name,))


def graph_is(phase: str, backend: str) -> Cond:
    return Cond(f"the {phase} CUDA graph is {backend}",
                lambda p: p.graph(phase, "backend") == backend,
                (f"cuda_graph_config.{phase}.backend",))


def gpu(text: str, test: Callable[[Any], bool]) -> Cond:
    return Cond(text, lambda p: test(p.target))


def model(text: str, test: Callable[[Any], bool]) -> Cond:
    return Cond(text, lambda p: test(p.model))


def cond(text: str, test: Callable[[Plan], bool], *fields: str) -> Cond:
    return Cond(text, test, fields)


@dataclass(frozen=True)
class Requirement:
    """When ``when`` holds, ``needs`` must hold too. ``why`` is the kernel or hardware fact."""

    name: str
    when: Cond
    needs: Cond
    why: str

    def violated(self, plan: Plan) -> bool:
        return self.when(plan) and not self.needs(plan)

    def culprits(self, plan: Plan) -> tuple[str, ...]:
        """The offending fields: what ``needs`` constrains, else what ``when`` selected."""
        return self.needs.fields_for(plan) or self.when.fields_for(plan)

    @property
    def fields(self) -> tuple[str, ...]:
        seen: dict[str, None] = dict.fromkeys(self.when.fields + self.needs.fields)
        return tuple(seen)


speculative = cond("speculative decoding is on",
                   lambda p: p["speculative_algorithm"] is not None, "speculative_algorithm")
eagle_topk_gt_1 = cond(
    "EAGLE top-k > 1",
    lambda p: p["speculative_algorithm"] in EAGLE_FAMILY and (p["speculative_eagle_topk"] or 0) > 1,
    "speculative_algorithm", "speculative_eagle_topk")
paged = cond("page_size > 1", lambda p: (p["page_size"] or 1) > 1, "page_size")
fa_prefill = Cond("the prefill backend is fa3 or fa4",
                  lambda p: p.prefill_backend in ("fa3", "fa4"), SIDES[:2],
                  lambda p: ("prefill_attention_backend",) if p["prefill_attention_backend"]
                  else ("attention_backend",), frozenset({"fa3", "fa4"}))
chunked = cond("chunked prefill is on (chunked_prefill_size > 0)",
               lambda p: (p["chunked_prefill_size"] or 0) > 0, "chunked_prefill_size")

REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement("flashmla-page-64", named("flashmla", fields=SIDES[::2]),
                field_in("page_size", {64}), "FlashMLA kernels page the KV cache at 64"),
    Requirement("trtllm-mla-page", named("trtllm_mla", fields=SIDES[::2]),
                field_in("page_size", {32, 64}), "TRT-LLM MLA kernels take pages of 32 or 64"),
    Requirement("trtllm-mla-blackwell", named("trtllm_mla", fields=SIDES[::2]),
                gpu("a Blackwell GPU", lambda t: t.is_blackwell),
                "TRT-LLM MLA kernels are trtllm-gen builds for SM10x/SM12x"),
    Requirement("cutedsl-mla-page", named("cutedsl_mla"), field_in("page_size", {32, 64}),
                "CuteDSL MLA pages at 32 or 64"),
    Requirement("cutedsl-mla-sm100", named("cutedsl_mla"),
                gpu("an SM10x GPU", lambda t: t.is_sm100), "CuteDSL MLA targets SM10x only"),
    Requirement("cutedsl-mla-decode-only", named("cutedsl_mla", fields=SIDES[1:2]),
                cond("never", lambda p: False), "CuteDSL MLA has no prefill kernel"),
    Requirement("trtllm-mha-page", named("trtllm_mha"), field_in("page_size", {16, 32, 64, 128}),
                "TRT-LLM MHA pages at 16, 32, 64 or 128"),
    Requirement("trtllm-mha-topk-1", named("trtllm_mha") & speculative,
                cond("EAGLE top-k 1", lambda p: (p["speculative_eagle_topk"] or 1) <= 1,
                     "speculative_eagle_topk"),
                "TRT-LLM MHA verifies a single draft chain (top-k 1)"),
    Requirement("trtllm-mha-gpu", uses("trtllm_mha"),
                gpu("SM90, SM10x or SM12x", lambda t: t.is_sm90 or t.is_sm100 or t.is_sm120),
                "TRT-LLM MHA kernels exist for Hopper, Blackwell and SM12x"),
    Requirement("hpc-ops-page-64", named("hpc_ops"), field_in("page_size", {64}),
                "HPC-Ops attention pages at 64"),
    Requirement("fa3-gpu", uses("fa3"),
                gpu("SM8x or SM9x", lambda t: t.is_cuda and t.capability[0] in (8, 9)),
                "FlashAttention 3 kernels are built for Ampere/Ada and Hopper"),
    Requirement("fa3-not-mla-on-sm8x", uses("fa3") & model("an MLA model", lambda m: m.is_mla),
                gpu("SM9x", lambda t: t.capability[0] == 9),
                "FlashAttention 3's MLA path needs Hopper"),
    Requirement("fa3-kv-e4m3", uses("fa3"), ~field_is("kv_cache_dtype", "fp8_e5m2"),
                "FlashAttention 3 reads FP8 KV caches in e4m3 only"),
    Requirement("fa4-page", uses("fa4") & model("a non-MLA model", lambda m: not m.is_mla)
                & gpu("SM10x", lambda t: t.is_sm100),
                field_in("page_size", {1, 128}),
                "FA4 on SM10x runs non-MLA attention at page 128 (paged kernel) or page 1 "
                "(the page-tree cascade and the full prefill graph path)"),
    Requirement("full-prefill-graph-fa-page-1", graph_is("prefill", "full") & fa_prefill,
                field_in("page_size", {1}),
                "a full prefill CUDA graph captures the FlashAttention path at page 1 only"),
    Requirement("eagle-topk-page-tree", eagle_topk_gt_1 & paged,
                cond("the base backend is flashinfer, fa3 or triton",
                     lambda p: p["attention_backend"] in PAGE_TREE_BACKENDS, "attention_backend"),
                "EAGLE top-k > 1 over pages needs the two-pass page-tree cascade"),
    Requirement("chunk-multiple-of-page",
                chunked & cond("not a PD decode server",
                               lambda p: p["disaggregation_mode"] != "decode",
                               "disaggregation_mode"),
                cond("chunked_prefill_size is a multiple of page_size",
                     lambda p: p["chunked_prefill_size"] % (p["page_size"] or 1) == 0,
                     "chunked_prefill_size", "page_size"),
                "prefill chunks are cut on page boundaries"),
    Requirement("mamba-no-buffer",
                field_is("mamba_radix_cache_strategy", "no_buffer"),
                cond("page_size 1, overlap scheduling off and not trtllm_mha",
                     lambda p: (p["page_size"] in (1, None) and p["disable_overlap_schedule"]
                                and p["attention_backend"] != "trtllm_mha"),
                     "page_size", "disable_overlap_schedule", "attention_backend"),
                "the no-buffer Mamba radix cache tracks state per token, synchronously"),
    Requirement("eager-backend-no-graphs",
                named("torch_native", fields=SIDES[:1]) | named("flex_attention", fields=SIDES[:1]),
                cond("both CUDA-graph phases disabled",
                     lambda p: p.graph("decode", "backend") == p.graph("prefill", "backend")
                     == "disabled",
                     "cuda_graph_config.decode.backend", "cuda_graph_config.prefill.backend"),
                "torch_native and flex_attention cannot be captured in a CUDA graph"),
    Requirement("decode-graph-within-running-limit",
                cond("decode graphs are on and max_running_requests is set",
                     lambda p: p.graph("decode", "backend") != "disabled"
                     and p["max_running_requests"] is not None,
                     "max_running_requests"),
                cond("decode max_bs <= max_running_requests",
                     lambda p: (p.graph("decode", "max_bs") or 0) <= p["max_running_requests"],
                     "cuda_graph_config.decode.max_bs"),
                "graphs for batches larger than the running-request limit are never replayed "
                "but still hold memory"),
    Requirement("mem-fraction-reserve",
                cond("mem_fraction_static was derived (not given)",
                     lambda p: not p.result.record.raw.explicit("mem_fraction_static"),
                     "mem_fraction_static"),
                cond("it matches the final CUDA-graph and chunk setup",
                     lambda p: _reserve_matches(p), "mem_fraction_static",
                     "cuda_graph_config.prefill.backend", "cuda_graph_config.decode.backend",
                     "chunked_prefill_size"),
                "the static fraction reserves memory for the graphs and chunk of the final plan"),
)


def _reserve_matches(plan: Plan) -> bool:
    """Recompute SGLang's reserve estimate on the final values; compare with the plan's."""
    from launchplan.rules.memory import mem_fraction_default

    decided = plan["mem_fraction_static"]
    if any(d.source == "aiter_memory_scaling" for d in plan.result.chain("mem_fraction_static")):
        return True  # a deliberate scaling on top of the estimate, not a stale estimate
    view = _FinalView(plan)
    again = mem_fraction_default(view)
    if not again:
        return True
    return abs(again["mem_fraction_static"] - decided) < 5e-4


class _FinalView:
    """The final values, read like a view with ``mem_fraction_static`` unset."""

    def __init__(self, plan: Plan) -> None:
        self._plan = plan
        self.target = plan.target
        self.model = plan.model
        self.record = plan.result.record

    def __getattr__(self, name: str) -> Any:
        if name == "mem_fraction_static":
            return None
        return self._plan[name]

    __getitem__ = __getattr__


@dataclass(frozen=True)
class Violation:
    requirement: Requirement
    sources: tuple[str, ...]  # the rules whose declarations produced the offending values
    values: dict[str, Any]


def check(result: Result, requirements: Iterable[Requirement] = REQUIREMENTS) -> list[Violation]:
    """Every requirement the result breaks, with the declarations behind the values."""
    plan = Plan(result)
    present = {plan[f] for f in SIDES} | {plan["speculative_draft_attention_backend"]}
    out = []
    for req in requirements:
        gate = req.when.gate
        if gate is not None and gate.isdisjoint(present):
            continue
        if req.violated(plan):
            sources = tuple(dict.fromkeys(
                s for f in req.culprits(plan) if (s := result.source(f)) != "default"))
            values = {f: plan[f] for f in (*req.when.fields_for(plan), *req.culprits(plan))}
            out.append(Violation(req, sources, values))
    return out
