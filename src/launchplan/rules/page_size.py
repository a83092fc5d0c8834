"""KV-cache page size: backend snaps, the FlashAttention 4 constraint, and the default.

``page_size`` starts unset. Backend snaps run before the default, so they see ``None`` for
an unset input and snap it; the default only fills what is still unset afterwards.
"""

from __future__ import annotations

from launchplan.engine.declarations import Declare
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.attention import BACKEND_FIELDS, any_backend, effective_backends
from launchplan.rules.graph_config import PREFILL

# Page sizes each paged kernel is built for, and the size a snap moves to. The order is
# SGLang's: several snaps can apply in one pass, each starting from the previous result.
# (backend, fields that select it, allowed page sizes, snap target)
PAGE_SNAPS: tuple[tuple[str, tuple[str, ...], frozenset[int], int], ...] = (
    ("flashmla", ("attention_backend", "decode_attention_backend"), frozenset({64}), 64),
    ("trtllm_mla", ("attention_backend", "decode_attention_backend"), frozenset({32, 64}), 64),
    ("cutedsl_mla", BACKEND_FIELDS, frozenset({32, 64}), 64),
    ("trtllm_mha", BACKEND_FIELDS + ("speculative_draft_attention_backend",),
     frozenset({16, 32, 64, 128}), 64),
    ("hpc_ops", BACKEND_FIELDS, frozenset({64}), 64),
)


# 0.5.21-0.5.22: tokenspeed_mla (a backend of its own then) snapped after trtllm_mla
PAGE_SNAPS_0_5_22 = PAGE_SNAPS[:2] + (
    ("tokenspeed_mla", ("attention_backend", "decode_attention_backend"), frozenset({32, 64}),
     64),
) + PAGE_SNAPS[2:]

_SNAP_BACKENDS = frozenset(snap[0] for snap in PAGE_SNAPS_0_5_22)
_SNAP_NOTES = {b: f"{b} supports page sizes {sorted(allowed)}"
               for b, _, allowed, _ in PAGE_SNAPS_0_5_22}
_SNAPS = dict(
    phase=Phase.ATTENTION,
    reads=BACKEND_FIELDS + ("speculative_draft_attention_backend", "page_size"),
    writes=("page_size",),
)


@rule(sglang="_mla_backend_page_constraints", **_SNAPS)
def backend_page_snaps(v: View) -> Declare | None:
    """Snap page_size to what the chosen paged kernels support, even over an explicit value.

    When: a base, prefill, decode or draft backend is one with page constraints.
    Effect: an unsupported or unset ``page_size`` becomes 64: flashmla allows 64 only;
        trtllm_mla and cutedsl_mla 32 or 64; trtllm_mha (also as the draft backend) 16, 32, 64
        or 128; hpc_ops 64. The note names each constraint.
    Why: these kernels index the KV cache in fixed page shapes
        (``_mla_backend_page_constraints``); the snaps run before the page default, so they see
        an unset input as None.
    Assumes: a trtllm_mha page of 128 runs here (SGLang checks its GQA and equal K/V head dims
        only when the backend starts, on trtllm-gen's dynamic-page kernels).
    """
    return _snapped(v, PAGE_SNAPS)


@rule(name="backend_page_snaps", variant="0.5.22",
      sglang="_mla_backend_page_constraints (0.5.21-0.5.22)", **_SNAPS)
def backend_page_snaps_0_5_22(v: View) -> Declare | None:
    """As in 0.5.23, and tokenspeed_mla (base or decode) runs at page 32 or 64 only.

    When: as the 0.5.23 rule, or tokenspeed_mla is the base or decode backend.
    Effect: as the 0.5.23 rule, with tokenspeed_mla snapping to 64 outside 32/64.
    Why: before 0.5.23 tokenspeed_mla was a backend of its own
        (``_mla_backend_page_constraints``, 0.5.21-0.5.22).
    Assumes: nothing.
    """
    return _snapped(v, PAGE_SNAPS_0_5_22)


def _snapped(v: View, snaps: tuple) -> Declare | None:
    named = (v.attention_backend, v.prefill_attention_backend, v.decode_attention_backend,
             v.speculative_draft_attention_backend)
    if _SNAP_BACKENDS.isdisjoint(named):
        return None
    page = v.page_size
    moved: list[str] = []
    for backend, fields, allowed, target in snaps:
        if backend in named and page not in allowed and any(v[f] == backend for f in fields):
            moved.append(_SNAP_NOTES[backend])
            page = target
    if page == v.page_size:
        return None
    return Declare({"page_size": page},
                   f"page_size {v.page_size} -> {page}: " + "; ".join(moved))


def _fa4_forces_page(v: View) -> bool:
    return (
        any_backend(v, "fa4")
        and not v.model.is_mla
        and v.target.is_sm100
        and (v.speculative_eagle_topk or 0) <= 1
    )


def _fa4_page(v: View) -> Declare:
    if "DiffusionGemmaForBlockDiffusion" in v.model.architectures:
        return Declare({"page_size": 1})
    moved = f": page_size {v.page_size} -> 128" if v.page_size != 128 else ""
    return Declare({"page_size": 128},
                   f"fa4 on SM10x runs non-MLA models at page size 128 only{moved}")


_FA4_READS = BACKEND_FIELDS + ("speculative_eagle_topk", "page_size")
_FA4_FACTS = ("model.is_mla", "target.is_sm100", "model.architectures")


@rule(
    name="fa4_page_constraint",
    phase=Phase.ATTENTION,
    reads=_FA4_READS + ("cuda_graph_config",),
    writes=("page_size",),
    facts=_FA4_FACTS,
    sglang="_fa4_page_constraint (with the later full-prefill-graph exemption)",
)
def fa4_page_constraint(v: View) -> Declare | None:
    """fa4 on SM10x forces page 128 for non-MLA models, unless the prefill graph is full.

    When: a side runs fa4 on SM10x for a non-MLA model, EAGLE top-k is at most 1 and the
        prefill CUDA graph is not ``full``.
    Effect: declares ``page_size`` 128 (DiffusionGemma: 1). When exempt, page_size keeps what
        earlier rules left (often the default 1, or 64 from the trtllm_mha snap when fa4 is
        only one side of a split).
    Why: the FA4 kernels run non-MLA attention on SM10x at page 128 only; explicit EAGLE top-k
        > 1 runs the page-tree cascade (page 1), and a full prefill graph captures the FA path
        at page 1 only (``_fa4_page_constraint`` with the later full-prefill exemption).
    Assumes: nothing.
    """
    if not _fa4_forces_page(v) or v.cuda_graph_config[PREFILL]["backend"] == "full":
        return None
    return _fa4_page(v)


@rule(
    name="fa4_page_constraint",
    variant="0.5.23",
    phase=Phase.ATTENTION,
    reads=_FA4_READS,
    writes=("page_size",),
    facts=_FA4_FACTS,
    sglang="_fa4_page_constraint (0.5.23)",
)
def fa4_page_constraint_0_5_23(v: View) -> Declare | None:
    """fa4 on SM10x forces page 128 for non-MLA models, even under a full prefill graph.

    When: a side runs fa4 on SM10x for a non-MLA model and EAGLE top-k is at most 1.
    Effect: declares ``page_size`` 128 (DiffusionGemma: 1).
    Why: SGLang 0.5.23 has no full-prefill exemption, so a full prefill graph, which captures
        the FA path at page 1 only, ends up at page 128 (rules.md C1; ``_fa4_page_constraint``).
    Assumes: nothing.
    """
    if not _fa4_forces_page(v):
        return None
    return _fa4_page(v)


@rule(
    phase=Phase.ATTENTION,
    reads=BACKEND_FIELDS + ("page_size",),
    writes=("page_size",),
    facts=("model.is_mla",),
    sglang="_intel_xpu_page_constraint",
)
def intel_xpu_page_constraint(v: View) -> Declare | None:
    """The intel_xpu kernels page at 64 or 128 (MLA also 16 or 32); anything else → 128.

    When: the effective prefill or decode backend is intel_xpu and ``page_size`` is not allowed.
    Effect: declares ``page_size`` 128.
    Why: the XPU attention kernels support only those page sizes
        (``_intel_xpu_page_constraint``).
    Assumes: nothing.
    """
    if "intel_xpu" not in effective_backends(v):
        return None
    allowed = {64, 128} | ({16, 32} if v.model.is_mla else set())
    if v.page_size in allowed:
        return None
    return Declare({"page_size": 128},
                   f"intel_xpu supports page sizes {sorted(allowed)}: page_size -> 128")


@rule(
    phase=Phase.PAGE_DEFAULT,
    reads=("page_size",),
    writes=("page_size",),
    facts=("target.is_hip",),
    sglang="_page_size_default",
)
def page_size_default(v: View) -> dict | None:
    """An unset page_size becomes 1 (64 on ROCm with the vectorised 5-D aiter KV layout).

    When: ``page_size`` is still unset after the backend snaps.
    Effect: declares ``page_size`` 1, or 64 on ROCm when SGLANG_AITER_KV_CACHE_LAYOUT is
        vectorized_5d.
    Why: SGLang's unset page is one token; its vectorised 5-D aiter KV layout (ROCm) is tuned
        for 64-token pages (``_page_size_default``).
    Assumes: SGLANG_AITER_KV_CACHE_LAYOUT is unset unless the environment given sets it.
    """
    if v.page_size is not None:
        return None
    layout = v.env.get("SGLANG_AITER_KV_CACHE_LAYOUT", "").lower()
    if v.target.is_hip and layout == "vectorized_5d":
        return {"page_size": 64}
    return {"page_size": 1}
