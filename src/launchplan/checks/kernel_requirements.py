"""Kernel and backend requirements: what each attention kernel needs of the final plan.

Each row names the SGLang 0.5.23 code (or kernel fact) that makes it true. Rules that refuse
on one of these read the row (``launchplan.checks.requirements.by_name``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from launchplan.checks.predicates import (
    ALWAYS,
    NEVER,
    PAGE_TREE_BACKENDS,
    SIDES,
    Cond,
    Plan,
    Requirement,
    Severity,
    Values,
    cond,
    field_in,
    field_is,
    gpu,
    graph_is,
    model,
    named,
    uses,
)
from launchplan.vocabulary import EAGLE_FAMILY

R = Severity.REFUSED
START = Severity.FAILS_AT_START
RUNTIME = Severity.RUNTIME_ERROR
DEGRADED = Severity.DEGRADED
SRT = "sglang/srt/"
REGISTRY = SRT + "layers/attention/attention_registry.py: "

# --- shared conditions ------------------------------------------------------------------------

eagle_family = cond("EAGLE-family speculation",
                    lambda p: p["speculative_algorithm"] in EAGLE_FAMILY, "speculative_algorithm")
eagle_topk_gt_1 = cond(
    "EAGLE top-k > 1",
    lambda p: p["speculative_algorithm"] in EAGLE_FAMILY
    and _num(p["speculative_eagle_topk"]) > 1,
    "speculative_algorithm", "speculative_eagle_topk")
paged = cond("page_size > 1", lambda p: _num(p["page_size"], 1) > 1, "page_size")
fa_prefill = Cond("the prefill backend is fa3 or fa4",
                  lambda p: p.prefill_backend in ("fa3", "fa4"), SIDES[:2],
                  lambda p: ("prefill_attention_backend",) if p["prefill_attention_backend"]
                  else ("attention_backend",), frozenset({"fa3", "fa4"}))
chunked = cond("chunked prefill is on (chunked_prefill_size > 0)",
               lambda p: _num(p["chunked_prefill_size"]) > 0, "chunked_prefill_size")


def _num(value: Any, default: float = 0) -> float:
    """A number for comparisons: None becomes ``default``; nan compares false everywhere."""
    return default if value is None else value


def _is_pow2(n: Any) -> bool:
    return isinstance(n, int) and n > 0 and n & (n - 1) == 0


def _gqa_ratio(p: Values) -> int:
    """Query heads per KV head on one attention-TP rank (SGLang's trtllm_mha precondition)."""
    m = p.model
    heads = m.num_attention_heads or 0
    attn_tp = max(1, _int(p["tp_size"]) // max(1, _int(p["attn_dp_size"], 1)))
    q = heads // attn_tp
    kv = m.num_kv_heads(attn_tp)
    return q // max(kv, 1)


def _int(value: Any, default: int = 1) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _trtllm_mha_page_ok(p: Values) -> bool:
    page = p["page_size"]
    if not isinstance(page, int) or page < 128:
        return True
    return (_gqa_ratio(p) > 1 and p.model.head_dim == p.model.v_head_dim and _is_pow2(page))


def _chunk_aligned(p: Values) -> bool:
    chunk, page = p["chunked_prefill_size"], p["page_size"] or 1
    if not isinstance(page, int) or page < 1:
        return True  # page_size itself is the problem (page-size-positive)
    return chunk % page == 0


#: The attention backends each release registers by name (``@register_attention_backend`` in
#: layers/attention/attention_registry.py); a deprecated spelling resolution rewrites
#: (``compressed``, and ``tokenspeed_mla`` from 0.5.23) never reaches the registry.
_REGISTERED_COMMON = frozenset({
    "flashinfer", "trtllm_mla", "cutedsl_mla", "aiter", "wave", "ascend", "dsa", "qsa", "nsa",
    "dsv4", "triton", "torch_native", "flex_attention", "flashmla", "fa3", "fa4",
    "trtllm_mha", "hpc_ops", "intel_amx", "minicpm_flashattn", "minicpm_flashinfer",
    "intel_xpu"})
REGISTERED_ATTENTION_BACKENDS: dict[str, frozenset[str]] = {
    "0.5.23": _REGISTERED_COMMON | {"llada2_cfg_flashinfer"},
    "0.5.22": _REGISTERED_COMMON | {"llada2_cfg_flashinfer", "tokenspeed_mla"},
    "0.5.21": _REGISTERED_COMMON | {"tokenspeed_mla"},
}


def _unregistered(p: Values) -> list[str]:
    """The final prefill and decode backends the release's registry does not know."""
    names = REGISTERED_ATTENTION_BACKENDS.get(p.result.record.raw.release,
                                              REGISTERED_ATTENTION_BACKENDS["0.5.23"])
    return [b for b in dict.fromkeys((p.prefill_backend, p.decode_backend))
            if isinstance(b, str) and b not in names]


# --- the table --------------------------------------------------------------------------------

KERNEL_REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        "flashmla-page-64", named("flashmla", fields=SIDES[::2]), field_in("page_size", {64}),
        "FlashMLA kernels page the KV cache at 64", START,
        SRT + "layers/attention/flashmla_backend.py: PAGE_SIZE = 64, asserted when the "
        "metadata is built (CUDA-graph capture)"),
    Requirement(
        "trtllm-mla-page", named("trtllm_mla", fields=SIDES[::2]),
        field_in("page_size", {32, 64}), "TRT-LLM MLA kernels take pages of 32 or 64", START,
        SRT + "arg_groups/overrides.py: _mla_backend_page_constraints snaps to 64 because the "
        "trtllm-gen MLA kernels exist for 32 and 64 only", verified=False),
    Requirement(
        "trtllm-mla-blackwell", named("trtllm_mla", fields=SIDES[::2]),
        gpu("a Blackwell GPU", lambda t: t.is_blackwell),
        "TRT-LLM MLA kernels are trtllm-gen builds for SM10x/SM12x", R,
        SRT + "arg_groups/overrides.py: _mla_kv_cache_dtype_checks raises"),
    Requirement(
        "cutedsl-mla-page", named("cutedsl_mla"), field_in("page_size", {32, 64}),
        "CuteDSL MLA pages at 32 or 64", START,
        SRT + "arg_groups/overrides.py: _mla_backend_page_constraints; CuteDslMLABackend "
        "subclasses the TRT-LLM MLA backend", verified=False),
    Requirement(
        "cutedsl-mla-sm100", named("cutedsl_mla"),
        gpu("an SM10x GPU", lambda t: t.is_sm100), "CuteDSL MLA targets SM10x only", R,
        SRT + "arg_groups/overrides.py: _cutedsl_prefill_backend_fill raises"),
    Requirement(
        "cutedsl-mla-decode-only", named("cutedsl_mla", fields=SIDES[1:2]), NEVER,
        "CuteDSL MLA has no prefill kernel", R,
        SRT + "arg_groups/overrides.py: _cutedsl_prefill_backend_fill asserts the prefill "
        "side is not cutedsl_mla"),
    Requirement(
        "trtllm-mha-page", named("trtllm_mha"), field_in("page_size", {16, 32, 64, 128}),
        "TRT-LLM MHA pages at 16, 32, 64 or 128", START,
        SRT + "arg_groups/overrides.py: the trtllm_mha snap in _mla_backend_page_constraints; "
        "trtllm-gen has kernels for these page sizes only", verified=False),
    Requirement(
        "trtllm-mha-page-128-gqa",
        uses("trtllm_mha") & gpu("SM10x (trtllm-gen, not XQA)", lambda t: t.is_sm100)
        & cond("page_size >= 128", lambda p: _num(p["page_size"], 1) >= 128, "page_size"),
        cond("GQA (more query than KV heads per rank), equal QK/V head dims and a "
             "power-of-two page", _trtllm_mha_page_ok, "page_size", "tp_size"),
        "trtllm-gen serves pages of 128 or more only through its dynamic tokens-per-page "
        "kernels, which exist for GQA with equal QK/V head dims", START,
        SRT + "layers/attention/trtllm_mha_backend.py: TRTLLMHAAttnBackend.__init__ raises "
        "ValueError",
        detail=lambda p: (f"trtllm_mha at page {p['page_size']} needs GQA and equal QK/V head "
                          f"dims: {_gqa_ratio(p)} query head(s) per KV head, head dims "
                          f"{p.model.head_dim}/{p.model.v_head_dim}")),
    Requirement(
        "trtllm-mha-topk-1", uses("trtllm_mha") & eagle_family,
        cond("EAGLE top-k 1", lambda p: _num(p["speculative_eagle_topk"], 1) <= 1,
             "speculative_eagle_topk"),
        "TRT-LLM MHA verifies a single draft chain (top-k 1)", R,
        SRT + "arg_groups/speculative_hook.py: _handle_eagle_family raises"),
    Requirement(
        "trtllm-mha-gpu", uses("trtllm_mha"),
        gpu("SM90, SM10x or SM12x", lambda t: t.is_sm90 or t.is_sm100 or t.is_sm120),
        "TRT-LLM MHA kernels exist for Hopper, Blackwell and SM12x", R,
        SRT + "arg_groups/attention_hook.py: handle_attention_backend_compatibility raises"),
    Requirement(
        "mla-only-backends",
        uses("trtllm_mla") | uses("cutedsl_mla"),
        model("an MLA model", lambda m: m.is_mla),
        "trtllm_mla and cutedsl_mla implement MLA attention only", START,
        REGISTRY + "create_trtllm_mla_backend / create_cutedsl_mla_backend raise ValueError "
        "for a non-MLA model"),
    Requirement(
        "flashmla-mla-only", uses("flashmla"), model("an MLA model", lambda m: m.is_mla),
        "FlashMLA implements MLA attention only", START,
        SRT + "layers/attention/flashmla_backend.py: FlashMLABackend.__init__ reads the model "
        "config's kv_lora_rank, which a non-MLA model does not have"),
    Requirement(
        "mha-only-backends",
        uses("trtllm_mha") | uses("hpc_ops"),
        model("a non-MLA model", lambda m: not m.is_mla),
        "trtllm_mha and hpc_ops implement MHA/GQA attention only", START,
        REGISTRY + "create_trtllm_mha_backend / create_hpc_ops_backend raise ValueError for "
        "an MLA model"),
    Requirement(
        "hpc-ops-no-speculation", uses("hpc_ops"),
        cond("no speculative decoding", lambda p: p["speculative_algorithm"] is None,
             "speculative_algorithm"),
        "the HPC-Ops backend has no speculative-decoding path", START,
        REGISTRY + "create_hpc_ops_backend raises ValueError under speculative decoding"),
    Requirement(
        "no-cross-attention-backends",
        uses("triton") | uses("hpc_ops"),
        model("a decoder-only model", lambda m: not m.is_encoder_decoder),
        "the triton and hpc_ops backends have no cross-attention kernels", START,
        REGISTRY + "create_triton_backend asserts, create_hpc_ops_backend raises, for an "
        "encoder-decoder model"),
    Requirement(
        "trtllm-mla-dcp-speculation",
        uses("trtllm_mla", sides=("decode",))
        & cond("decode context parallelism", lambda p: _num(p["dcp_size"], 1) > 1, "dcp_size"),
        cond("no speculative decoding", lambda p: p["speculative_algorithm"] is None,
             "speculative_algorithm"),
        "trtllm_mla decode does not pass the DCP metadata or return the LSE a cross-rank "
        "merge needs", START,
        REGISTRY + "create_trtllm_mla_backend raises ValueError (cutedsl_mla serves it)"),
    Requirement(
        "attention-backend-registered", ALWAYS,
        cond("the prefill and decode backends are ones this release registers",
             lambda p: not _unregistered(p), *SIDES),
        "each scheduler builds its attention backend by name from the registry; resolution "
        "does not check a name given as a keyword (sgl.Engine, ServerArgs) rather than a flag",
        START,
        SRT + "model_executor/model_runner_components/attention_backend_setup.py: "
        "_build_full_attention_backend_from_str raises 'Invalid attention backend' for a name "
        "no @register_attention_backend gave (the command line's choices refuse it earlier)",
        detail=lambda p: (f"{', '.join(map(repr, _unregistered(p)))} is not an attention "
                          f"backend SGLang {p.result.record.raw.release} registers")),
    Requirement(
        "hpc-ops-page-64", named("hpc_ops"), field_in("page_size", {64}),
        "HPC-Ops attention pages at 64", START,
        SRT + "layers/attention/hpc_ops_backend.py: the backend raises on another page size"),
    Requirement(
        "fa3-gpu", uses("fa3"),
        gpu("SM8x or SM9x", lambda t: t.is_cuda and t.capability[0] in (8, 9)),
        "FlashAttention 3 kernels are built for Ampere/Ada and Hopper", START,
        SRT + "layers/attention/attention_registry.py: create_flashattention_v3_backend "
        "asserts SM8x (non-MLA) or SM9x when the backend is built; resolution accepts it. "
        "On ROCm the capability check can pass (MI300X reports 9.4), but the kernels are "
        "CUDA builds in sgl_kernel.flash_attn (Hopper wgmma/TMA, Ampere mma)",
        detail=lambda p: (f"FlashAttention 3 is built for SM8x and SM9x; {p.target.name} is "
                          f"SM{p.target.sm}" + ("" if p.target.is_cuda else
                                                " on ROCm, where its CUDA kernels do not exist"))),
    Requirement(
        "fa4-gpu", uses("fa4"),
        gpu("an NVIDIA SM8x-SM12x GPU", lambda t: t.is_cuda and 8 <= t.capability[0] <= 12),
        "FlashAttention 4 is a CuTe DSL (CUDA) kernel for SM8x to SM11x, with an SM12x port",
        START,
        "sglang/kernels/ops/attention/flash_attn/cute/interface.py asserts the arch is SM8x-SM11x "
        "(SM12x goes to flash_attention_v4_sm120); CuTe DSL compiles for NVIDIA GPUs only, so "
        "a ROCm GPU (whose 9.x capability passes that assert) cannot run it",
        detail=lambda p: (f"FlashAttention 4 is a CUDA kernel for SM8x-SM12x; {p.target.name} "
                          f"is {'SM' + str(p.target.sm) if p.target.is_cuda else 'a ROCm GPU'}")),
    Requirement(
        "aiter-rocm", uses("aiter"),
        gpu("an AMD GPU (ROCm)", lambda t: t.is_hip),
        "aiter is AMD's kernel library, built for ROCm only", START,
        SRT + "layers/attention/aiter_backend.py imports aiter's kernels in a try block that "
        "only prints a line when the import fails; on a CUDA host they stay undefined, so the "
        "backend fails when it first runs them (warm-up or graph capture)",
        detail=lambda p: f"aiter's kernels are ROCm builds; {p.target.name} is a CUDA GPU"),
    Requirement(
        "ascend-npu", uses("ascend"), field_is("device", "npu"),
        "the ascend backend runs on Ascend NPUs (torch_npu) only", START,
        SRT + "hardware_backend/npu/attention/ascend_backend.py imports torch_npu and "
        "sgl_kernel_npu at module level; the registry imports it when the backend is built",
        detail=lambda p: f"the ascend backend needs torch_npu, which {p.target.name}'s "
                         "CUDA/ROCm build does not have"),
    Requirement(
        "intel-amx-cpu", uses("intel_amx"), field_is("device", "cpu"),
        "the intel_amx backend runs SGLang's CPU kernels", START,
        SRT + "layers/attention/intel_amx_backend.py binds torch.ops.sgl_kernel."
        "decode_attention_cpu (and the CPU extend kernel) when built: the CPU build of "
        "sgl-kernel registers them, the GPU builds do not",
        detail=lambda p: f"intel_amx runs the CPU build's kernels; this launch runs on "
                         f"{p.target.name}"),
    Requirement(
        "fa3-not-mla-on-sm8x", uses("fa3") & model("an MLA model", lambda m: m.is_mla)
        & gpu("an SM8x GPU", lambda t: t.is_cuda and t.capability[0] == 8),
        NEVER, "FlashAttention 3's MLA path needs Hopper", START,
        SRT + "layers/attention/attention_registry.py: create_flashattention_v3_backend "
        "asserts"),
    Requirement(
        "fa3-kv-e4m3", uses("fa3"), ~field_is("kv_cache_dtype", "fp8_e5m2"),
        "FlashAttention 3 reads FP8 KV caches in e4m3 only", RUNTIME,
        SRT + "layers/attention/flashattention_backend.py casts q to the KV dtype and the "
        "FA3 kernel takes fp16/bf16/e4m3; _attention_backend_fa3_fp8_fallback looks at "
        "attention_backend only, so a split fa3 side keeps e5m2"),
    Requirement(
        "fa4-topk-page-1", uses("fa4") & eagle_topk_gt_1, field_in("page_size", {1}),
        "FA4's kernel aborts on EAGLE's two-pass page-tree cascade at page_size > 1", RUNTIME,
        SRT + "arg_groups/overrides.py: _fa4_page_constraint skips its force for top-k > 1 "
        "because the FA4 CUTLASS kernel aborts on that cascade at page > 1 (its comment); "
        "the page-tree guard in _handle_eagle_family reads attention_backend only, so a "
        "split fa4 side passes resolution", verified=False),
    Requirement(
        "fa4-page", uses("fa4") & model("a non-MLA model", lambda m: not m.is_mla)
        & gpu("SM10x", lambda t: t.is_sm100),
        field_in("page_size", {1, 128}),
        "FA4 on SM10x is tuned for page 128 (TMA path); other page sizes take its non-TMA "
        "paged path", DEGRADED,
        "flash_attn/cute/interface.py (vendored FA4): a non-TMA paged path serves other page "
        "sizes; SGLang 0.5.23's _fa4_page_constraint forces 128 as a policy", verified=False),
    Requirement(
        "full-prefill-graph-fa-page-1", graph_is("prefill", "full") & fa_prefill,
        field_in("page_size", {1}),
        "a full prefill CUDA graph captures the FlashAttention path at page 1 only", RUNTIME,
        "unverified: only the later FA4 fix's description says so; "
        "flashattention_backend.py _init_full_cg_prefill_metadata builds a page-strided "
        "block table and asserts nothing", verified=False),
    Requirement(
        "eagle-topk-page-tree", eagle_topk_gt_1 & paged,
        cond("the base backend is flashinfer, fa3 or triton",
             lambda p: p["attention_backend"] in PAGE_TREE_BACKENDS, "attention_backend"),
        "EAGLE top-k > 1 over pages needs the two-pass page-tree cascade", R,
        SRT + "arg_groups/speculative_hook.py: _handle_eagle_family raises (it reads "
        "attention_backend only)"),
    Requirement(
        "chunk-multiple-of-page",
        chunked & cond("not a PD decode server",
                       lambda p: p["disaggregation_mode"] != "decode", "disaggregation_mode"),
        cond("chunked_prefill_size is a multiple of page_size", _chunk_aligned,
             "chunked_prefill_size", "page_size"),
        "prefill chunks are cut on page boundaries", START,
        SRT + "arg_groups/validation_hook.py: check_server_args asserts "
        "chunked_prefill_size % page_size == 0",
        detail=lambda p: (f"chunked_prefill_size {p['chunked_prefill_size']} is not a "
                          f"multiple of page_size {p['page_size']}")),
    Requirement(
        "mamba-no-buffer",
        field_is("mamba_radix_cache_strategy", "no_buffer"),
        cond("page_size 1, overlap scheduling off and not trtllm_mha",
             lambda p: (p["page_size"] in (1, None) and p["disable_overlap_schedule"]
                        and p["attention_backend"] != "trtllm_mha"),
             "page_size", "disable_overlap_schedule", "attention_backend"),
        "the no-buffer Mamba radix cache tracks state per token, synchronously", RUNTIME,
        SRT + "arg_groups/mamba_hook.py: validate_mamba_no_buffer asserts on the values the "
        "model hook sees; a later rule changing them is not re-checked", verified=False),
    Requirement(
        "eager-backend-no-graphs",
        named("torch_native", fields=SIDES[:1]) | named("flex_attention", fields=SIDES[:1]),
        cond("no CUDA-graph phase is captured",
             lambda p: p.graph("prefill", "backend") == "disabled"
             and (p.graph("decode", "backend") == "disabled" or _cpu_eager(p)),
             "cuda_graph_config.decode.backend", "cuda_graph_config.prefill.backend",
             "device", "enable_torch_compile"),
        "torch_native and flex_attention keep no CUDA-graph state, so capture fails", START,
        SRT + "arg_groups/attention_hook.py turns both graphs off for them; "
        "layers/attention/torch_native_backend.py has no graph metadata methods; "
        "model_executor/model_runner_components/cuda_graph_setup.py captures no decode graph "
        "on a CPU device without --enable-torch-compile, whatever the config says"),
    Requirement(
        "decode-graph-within-running-limit",
        cond("decode graphs are on and max_running_requests is set",
             lambda p: p.graph("decode", "backend") != "disabled"
             and p["max_running_requests"] is not None,
             "max_running_requests"),
        cond("decode max_bs <= max_running_requests",
             lambda p: _num(p.graph("decode", "max_bs")) <= p["max_running_requests"],
             "cuda_graph_config.decode.max_bs"),
        "graphs above the request limit are never captured, but the memory estimate "
        "reserved room for them", DEGRADED,
        SRT + "model_executor/base_cuda_graph_runner.py: get_batch_sizes_to_capture drops "
        "sizes above the request pool; arg_groups/memory_hook.py reserves max_bs x 2 MB "
        "before the speculative hook sets max_running_requests"),
    Requirement(
        "mem-fraction-reserve",
        cond("mem_fraction_static was derived (not given)",
             lambda p: not p.explicit("mem_fraction_static"), "mem_fraction_static"),
        cond("it matches the final CUDA-graph, chunk and attention-DP setup",
             lambda p: _reserve_matches(p), "mem_fraction_static",
             "cuda_graph_config.prefill.backend", "cuda_graph_config.decode.backend",
             "chunked_prefill_size", "enable_dp_attention"),
        "the static fraction was estimated for graphs, a chunk or attention-DP padding the "
        "final plan does not have, so part of the KV pool is left unused", DEGRADED,
        SRT + "arg_groups/memory_hook.py estimates the reserve before later hooks turn "
        "graphs off (torch_native, DeepSeek trtllm_mla prefill) or, in 0.5.21, clear a "
        "single DP group's --enable-dp-attention (handle_data_parallelism)"),
)


def _cpu_eager(plan: Values) -> bool:
    """A CPU server without torch.compile captures no decode graph (the decode backend left
    in its config is never used), so the attention backend needs no graph state there."""
    return plan["device"] == "cpu" and not plan["enable_torch_compile"]


def _reserve_matches(plan: Values) -> bool:
    """Recompute SGLang's reserve estimate on the final values; compare with the plan's.

    When every field the estimate reads ends with the value it had when the estimate was
    made (nothing after it touched them, or what did left the same value), the estimate saw
    the final values and matches by construction: the common case, decided without
    rerunning it.
    """
    if not isinstance(plan, Plan):
        return True
    declarations = plan.result.declarations
    estimate = -1
    for at in range(len(declarations) - 1, -1, -1):
        d = declarations[at]
        if "mem_fraction_static" in d.fields:
            if d.source == "aiter_memory_scaling":
                return True  # a deliberate scaling on top of the estimate, not a stale one
            if estimate < 0 and d.source == "mem_fraction_default":
                estimate = at
    if estimate < 0:
        return True
    spec = _estimate_rule(plan.result.record.compat)
    reads, raw = spec.reads, plan.result.record.raw
    for at in range(estimate + 1, len(declarations)):
        fields = declarations[at].fields
        if reads.isdisjoint(fields):  # the common case: no set made
            continue
        if not all(_unchanged_after(declarations, estimate, name, raw)
                   for name in reads.intersection(fields)):
            break
    else:  # every field the estimate reads ends as it was then
        return True
    decided = plan["mem_fraction_static"]
    again = spec.func(_FinalView(plan))
    if not again:
        return True
    try:
        return abs(again["mem_fraction_static"] - decided) < 5e-4
    except TypeError:
        return True


def _unchanged_after(declarations: list[Any], at: int, name: str, raw: Any) -> bool:
    """Whether ``name`` ends as it was when declaration ``at`` was made (same type too)."""
    before = final = _UNSET
    if raw.explicit(name):
        before = final = raw.get(name)
    for i, d in enumerate(declarations):
        if name in d.fields:
            if i < at:
                before = d.fields[name]
            final = d.fields[name]
    return final is before or (type(final) is type(before) and final == before)


_UNSET: Any = object()


@cache
def _estimate_rule(compat: str) -> Any:
    """The rule set's ``mem_fraction_default`` (0.5.21's also reads its DP-attention switch,
    which its data-parallelism defaults may clear after the estimate)."""
    from launchplan.rulesets import get_ruleset

    return next(s for s in get_ruleset(compat).rules() if s.name == "mem_fraction_default")


class _FinalView:
    """The final values, read like a view with ``mem_fraction_static`` unset: the values the
    plan holds are attributes (a read is a dictionary lookup, as a view's), others are asked
    of the plan."""

    def __init__(self, plan: Plan) -> None:
        values = self.__dict__
        values.update(plan)
        values["mem_fraction_static"] = None
        values["_plan"] = plan
        values["target"] = plan.target
        values["model"] = plan.model
        record = values["record"] = plan.result.record
        values["draft"] = record.draft  # the other facts a view carries (``FACT_NAMES``)
        values["env"] = record.env
        values["compat"] = record.compat

    def __getattr__(self, name: str) -> Any:  # a name the plan has not read yet
        return self._plan[name]

    def __getitem__(self, name: str) -> Any:
        if name == "mem_fraction_static":
            return None
        return self._plan[name]
