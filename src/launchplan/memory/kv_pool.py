"""The KV pool SGLang 0.5.23 sizes at start-up, from a resolved plan and three byte counts.

SGLang measures the GPU's free memory twice: once before the weights are loaded (CUDA
context and communication buffers already taken), once after. The KV budget is what is
free after loading minus ``(1 - mem_fraction_static)`` of the first figure, both in GiB as
floats (through a float32 all-reduce when more than one rank measures). The budget divided
by the architecture's bytes per token, page-aligned and capped by ``--max-total-tokens``,
is ``max_total_num_tokens``; ``max_running_requests`` follows from it; the decode CUDA-graph
batch sizes above it are dropped.

Modelled: MHA/GQA (KV heads sharded over attention-TP, one per rank at least), MLA
(``kv_lora_rank + qk_rope_head_dim``; DSA's scaled FP8 layout and indexer bytes), hybrid
sliding-window pools (full/SWA split by ``--swa-full-tokens-ratio``, or the request-capped
SWA pool of ``swa_request_cap``; the layer kinds and full-attention shapes a config class
fills in, ``class_layers``), FP8, MXFP8 and FP4 KV caches with their scale bytes, the
EAGLE/MTP draft's KV charged to the target's bytes per token, the layers loop, recurrent and
encoder-decoder models attend (``kv_layers``), and the per-request state pools of linear
attention and Mamba layers (gated delta net, Mamba2, short convolutions, KDA; a share of the
budget set aside per request slot, before the KV pool); DeepSeek-V4's compressed pools are
``dsv4_pool``'s. Not modelled (``caveats`` says so when a plan needs them): other state
pools (lightning, Inkling's, Qwen4-Exp's PLE convolutions), unified memory pools, MiniMax
sparse pools of 0.5.23's NVFP4-native stack, QSA pools, KV-cache sharding,
the pipeline-parallel layer split of MiniMax sparse pools, DFLASH drafts and post-capture
resizing (off by default in 0.5.23).

Pipeline parallelism: each stage sizes its own pool, for its own layers when the model class
keeps its stage's range (``kv_layers.LAYER_RANGE_CLASSES``; every layer otherwise), from the
free memory all ranks agree on (the most loaded stage's weights), and SGLang's scheduler
then gives every stage the smallest stage's token count (``_binding_stage``). (The model
classes' ranges are 0.5.23's; 0.5.22 and 0.5.21 agree the stages' counts the same way.)

Pure and fast: integer and float arithmetic on the plan's values, nothing imported lazily
except the draft model's facts when the plan names a draft the record does not carry.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from operator import itemgetter
from typing import Any

from launchplan.errors import InputError
from launchplan.facts.memo import per_object
from launchplan.facts.models.attention import granite_hybrid_kinds
from launchplan.facts.models.fields import _as_int, _json_kind, _shown
from launchplan.facts.models.mamba_hybrids import HYBRID_MAMBA2_DEFAULTS
from launchplan.input.hisparse_config import hisparse_settings, pool_ratio
from launchplan.memory.class_layers import attention_shapes, layer_kinds
from launchplan.memory.dsv4_pool import Dsv4Pool, owners_by_ratio, ring_size
from launchplan.memory.env_settings import env_int
from launchplan.memory.kv_layers import (
    attention_layers,
    keeps_stage_range,
    loop_pool_note,
    zaya_attention_ids,
)
from launchplan.memory.shortfall import NotEnoughMemory
from launchplan.memory.swa_request_cap import swa_request_cap
from launchplan.memory.token_cap import capped
from launchplan.numbers import human_float
from launchplan.rules.model_overrides.minimax_m3 import MSA_PAGE_SIZE
from launchplan.rules.model_overrides.qwen3_vl import large_hopper_qwen3_vl
from launchplan.struct import Struct

GIB = 1 << 30
#: Bytes per element of each KV storage dtype (FP4 packs two values in one byte).
_DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4, "fp8": 1, "fp4": 1}
#: --kv-cache-dtype -> storage kind.
_KV_KIND = {"fp8_e4m3": "fp8", "fp8_e5m2": "fp8", "mxfp8": "fp8", "bf16": "bfloat16",
            "bfloat16": "bfloat16", "nvfp4": "fp4", "fp4_mx_block16": "fp4"}
FP4_SCALE_BLOCK = 16  # one scale byte per 16 FP4 values (both FP4 recipes)
MXFP8_SCALE_BLOCK = 32
DSA_QUANT_BLOCK = 128  # DSA's FP8 latent rows carry a 4-byte scale per 128 values
DSA_ROPE_BYTES = 2  # DSA keeps the rope part in bf16
#: Context lengths SGLang scales its request estimate by: 512 requests per context's worth
#: of tokens, clamped to [2048, 4096].
REQ_ESTIMATE_PER_CONTEXT, REQ_ESTIMATE_MIN, REQ_ESTIMATE_MAX = 512, 2048, 4096
#: SGLANG_VLM_CACHE_SIZE_MB and SGLANG_MM_FEATURE_CACHE_MB defaults, reserved from the KV
#: budget of multimodal models (the second only for CUDA-IPC/VMM feature transport).
VLM_CACHE_MB, MM_FEATURE_CACHE_MB = 100, 1024
#: Architectures whose model class shortens the configured window by one token (their
#: ``get_attention_sliding_window_size``), and those whose class gives a fixed window.
_WINDOW_MINUS_ONE = ("GptOssForCausalLM", "MuseGlimmerForCausalLM", "Exaone4ForCausalLM",
                     "BeamForCausalLM", "MuseGlimmerForConditionalGeneration",
                     "Gemma4ForConditionalGeneration", "Gemma4ForCausalLM",
                     "Olmo2ForCausalLM", "AfmoeForCausalLM", "MellumForCausalLM")
_WINDOW_FIXED = {"EmbeddingGemma2Model": 512}
#: Architectures whose sliding-window pool 0.5.22 and 0.5.21 do not know (one pool there).
_SWA_SINCE_0_5_23 = ("BeamForCausalLM",)


class KvPool(Struct):
    """One GPU's KV pool as SGLang 0.5.23 would size it (all byte figures are per GPU).

    ``kv_bytes_per_token`` is the pool configurator's cost of one ``max_total_num_tokens``
    token: an integer, except for hybrid sliding-window pools, where it is the full-layer
    bytes plus ``swa_full_tokens_ratio`` times the SWA-layer bytes (a float, as in SGLang).
    """

    configurator: str  # "default" | "hybrid_swa" | "swa_request_cap"
    kv_dtype: str  # storage dtype: bfloat16, float16, float32, fp8, fp4
    kv_bytes_per_token: int | float
    before_load_bytes: int
    weights_bytes: int
    kv_budget_bytes: int
    max_total_num_tokens: int
    max_running_requests: int
    page_size: int
    full_max_total_num_tokens: int | None = None
    swa_max_total_num_tokens: int | None = None
    full_bytes_per_token: int | None = None  # hybrid SWA: bytes of one full-pool token
    swa_bytes_per_token: int | None = None  # hybrid SWA: bytes of one SWA-pool token
    draft_layers: int = 0  # draft KV layers charged to each token (EAGLE/MTP)
    mamba_state_bytes_per_slot: int | None = None  # linear-attention state of one request
    max_mamba_cache_size: int | None = None  # request slots of linear-attention state
    #: DeepSeek-V4's compressed pools (``dsv4_pool``): rows of the ratio-4 and ratio-128
    #: pools, and the compress-state slots of the ratio-4 ring (per SWA page) and the
    #: ratio-128 ring (per request slot)
    c4_max_total_num_tokens: int | None = None
    c128_max_total_num_tokens: int | None = None
    c4_state_pool_size: int | None = None
    c128_state_pool_size: int | None = None
    capture_bs: tuple[int, ...] = ()  # decode CUDA-graph batch sizes that survive
    steps: tuple[tuple[str, Any], ...] = ()  # (label, value): the arithmetic, in order
    caveats: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self._fields if k not in ("steps",)}
        out["capture_bs"] = list(self.capture_bs)
        out["caveats"] = list(self.caveats)
        out["steps"] = [[label, value] for label, value in self.steps]
        return out


def kv_pool(result: Any, *, weights_bytes: int, before_load_bytes: int,
            gpu_bytes: int | None = None) -> KvPool:
    """Size the KV pool of a resolved plan on one GPU.

    ``before_load_bytes``: free memory before loading (see ``facts.targets.before_load_bytes``);
    ``weights_bytes``: what every weight resident at sizing time takes on this GPU (the
    target's and, with speculative decoding, the draft's); ``gpu_bytes`` (the GPU's total)
    is recorded for the steps only. Raises ``NotEnoughMemory`` where SGLang refuses.
    """
    plan = _Plan(result)
    steps: list[tuple[str, Any]] = []
    caveats = plan.caveats()
    sizer, budget, pool, max_reqs, mamba = size(plan, before_load_bytes, weights_bytes,
                                                gpu_bytes, steps)
    capacity = pool["max_total_num_tokens"]
    capture = _capture_sizes(plan, max_reqs)
    return KvPool(
        configurator=sizer.name, kv_dtype=plan.kv_kind, kv_bytes_per_token=sizer.cell,
        before_load_bytes=before_load_bytes, weights_bytes=weights_bytes,
        kv_budget_bytes=budget, max_total_num_tokens=capacity,
        max_running_requests=max_reqs, page_size=plan.page,
        full_max_total_num_tokens=pool.get("full"), swa_max_total_num_tokens=pool.get("swa"),
        full_bytes_per_token=getattr(sizer, "full_bytes", None),
        swa_bytes_per_token=getattr(sizer, "swa_bytes", None),
        draft_layers=plan.draft_layers,
        mamba_state_bytes_per_slot=mamba.per_slot if mamba else None,
        max_mamba_cache_size=mamba.slots if mamba else None,
        c4_max_total_num_tokens=pool.get("c4"), c128_max_total_num_tokens=pool.get("c128"),
        c4_state_pool_size=pool.get("c4_state"), c128_state_pool_size=pool.get("c128_state"),
        capture_bs=tuple(capture), steps=tuple(steps),
        caveats=tuple(caveats))


def size(plan: _Plan, before_load_bytes: int, weights_bytes: int, gpu_bytes: int | None,
         steps: list[tuple[str, Any]] | None) -> tuple[Any, int, dict[str, int], int, Any]:
    """(sizer, KV budget, pool token counts, max_running_requests, linear-attention state):
    the pool without its capture sizes. ``steps`` (a list, or None for none) gets the
    arithmetic, in order."""
    if steps is not None and gpu_bytes is not None:
        steps.append(("gpu memory (bytes)", gpu_bytes))
    mamba = _GdnState(plan) if plan.facts.state else None
    if mamba is not None and mamba.per_slot <= 0:  # no state layer the config lets us count
        mamba = None  # (a caveat says so): sized as attention only, never a division by 0
    budget = _budget(plan, before_load_bytes, weights_bytes, steps, mamba)
    if plan.stages is not None:
        sizer = _binding_stage(plan, budget, steps is not None)
    else:
        sizer = _Default(plan, steps is not None) if not plan.hybrid_swa \
            else _sizer(plan, steps is not None)
    if steps is not None:
        steps.append((kv_dtype_label(plan), plan.kv_kind))
        steps.extend(sizer.describe())
    pool = sizer.size(budget, steps)
    max_reqs = _max_running_requests(plan, pool["max_total_num_tokens"], steps, mamba)
    if _graph_alignment(plan) > 1:  # only an aligned capture list can come out empty
        _check_capture(plan, max_reqs)
    if isinstance(sizer, Dsv4Pool):  # its ratio-128 state slots follow the request count
        pool.update(sizer.finalize(max_reqs))
    return sizer, budget, pool, max_reqs, mamba


#: the start of the step that names the KV cache's storage and why (``kv_dtype_label``)
KV_DTYPE_STEP = "KV cache dtype"


def kv_dtype_label(plan: _Plan) -> str:
    """Why the pool stores what it stores: under ``auto`` a checkpoint's FP8 declaration
    halves the bytes of a token, which the flag alone does not show."""
    if plan.kv_flag != "auto":
        return f"{KV_DTYPE_STEP} (--kv-cache-dtype {plan.kv_flag})"
    if plan.kv_kind == "fp8":
        if _checkpoint_fp8_kv(plan.model):
            return (f"{KV_DTYPE_STEP} (--kv-cache-dtype auto: the checkpoint's quantization "
                    "config declares an FP8 KV cache)")
        return (f"{KV_DTYPE_STEP} (--kv-cache-dtype auto: --quantization {_M3_NVFP4} always "
                "keeps an FP8 KV cache)")
    dtype = plan.v("dtype")
    if dtype is None or dtype == "auto":
        return f"{KV_DTYPE_STEP} (--kv-cache-dtype auto: the model's dtype)"
    return f"{KV_DTYPE_STEP} (--kv-cache-dtype auto: --dtype {dtype})"


def plain_size(values: dict[str, Any], record: Any, tp: int, pp: int, attn_dp: int,
               before: int, weights: int) -> tuple[int, int, int, int, list[str]] | None:
    """``size`` and ``_Plan.caveats`` of the commonest launch, without their objects: a
    model with one pool of every layer (no state cache, sliding-window, DeepSeek-V4 or
    MiniMax pool, no multimodal reserve, no DSA indexer), an EAGLE/MTP draft or none, a
    KV cache of 1 or 2 bytes or FP8, well-typed ``values`` (a plain dict, ``values.
    plain_values``, of the launch of ``record``; ``tp``, ``pp``, ``attn_dp``:
    positive ints, as the memory plan checked them). (KV budget, ``max_total_num_tokens``,
    bytes per token, ``max_running_requests``, caveats), or None: then ``size`` (which
    also words any shortfall) gives them. ``tests/memory/test_kv_pool.py`` holds the two
    equal."""
    model = record.model
    facts = _model_facts(model)
    if facts.special or facts.maybe_multimodal or facts.shapes is not None or facts.dsa \
            or (pp > 1 and keeps_stage_range(model)):  # (per-stage pools: ``size``)
        return None
    (page, attn_cp, dcp, fraction, flag, spec, cap, asked, unified, sharding,
     disaggregation) = _PLAIN_READ(values)
    if type(fraction) is not float:
        return None
    if spec is None:
        draft_layers = 0
    elif spec in _DRAFT_ALGOS:
        draft_layers = _draft_layers(values.__getitem__, record.draft, spec, model,
                                     record.env)[0]
    else:  # other algorithms' caveats
        return None
    if page is None:
        page = 1
    if attn_cp is None:
        attn_cp = 1
    if dcp is None:
        dcp = 1
    if not (type(page) is int and type(attn_cp) is int and type(dcp) is int
            and page > 0 and attn_cp > 0 and dcp > 0):
        return None
    if flag is None or flag == "auto":
        kind = _auto_kv_kind(facts, values["dtype"])
    elif type(flag) is str:
        kind = _KV_KIND.get(flag, "bfloat16")
    else:
        return None
    if kind == "fp4":
        return None
    kv = _DTYPE_BYTES[kind]
    layers = facts.kv_layers
    if facts.mla:  # ``_Default``'s rows, as it writes them
        cell = (int(model.kv_lora_rank) + int(model.qk_rope_head_dim)) * layers * kv
    else:
        attn_tp = tp // attn_dp // attn_cp
        heads = model.num_kv_heads(attn_tp if attn_tp > 1 else 1, dcp)
        dims = model.head_dim + model.v_head_dim
        cell = heads * dims * layers * kv
        if flag == "mxfp8":
            cell += heads * dims * layers // MXFP8_SCALE_BLOCK
    if draft_layers and layers:
        cell += int(cell * draft_layers / layers)
    if not cell:
        return None
    before_gib, after_gib = _gib(before, weights, tp * pp)  # ``_budget``
    rest = after_gib - before_gib * (1 - fraction)
    if rest <= 0:
        return None
    budget = int(rest * GIB)
    tokens = budget // cell // page * page  # ``_Default.size``
    if cap is not None and cap < tokens:
        tokens = cap // page * page
    if tokens <= 0:
        return None
    half = tokens // 2  # ``_max_running_requests``
    reqs = _estimate(tokens, model.context_len)  # (raising as it does for a 0 context)
    if asked is not None:
        reqs = int(asked) // attn_dp
        if reqs < 1 and record.raw.release not in _OLD:  # ``requests_per_rank``
            reqs = 1
    if half < reqs:
        reqs = half
    if reqs <= 0 or attn_dp > 1 or attn_cp > 1 or values["enable_two_batch_overlap"] \
            or values["moe_a2a_backend"] not in (None, "none") \
            or values["moe_dense_tp_size"] is not None:
        return None  # (an aligned capture list may come out empty: ``_check_capture``)
    caveats = []  # ``_Plan.caveats`` of such a launch
    if facts.loop_note:
        caveats.append(facts.loop_note)
    if unified:
        caveats.append(_UNIFIED)
    if pp > 1:
        caveats.append(_pp_whole(model))
    if sharding or dcp > 1:
        caveats.append(_SHARDED)
    if record.env and record.env_flag("SGLANG_ENABLE_POST_CAPTURE_KV_SIZING"):
        caveats.append(_POST_CAPTURE)
    if disaggregation == "decode":
        caveats.append(_PD_DECODE)
    return budget, tokens, cell, reqs, caveats


_PLAIN_READ = itemgetter("page_size", "attn_cp_size", "dcp_size", "mem_fraction_static",
                         "kv_cache_dtype", "speculative_algorithm", "max_total_tokens",
                         "max_running_requests", "enable_unified_memory",
                         "enable_kv_cache_sharding", "disaggregation_mode")
#: releases that divide --max-running-requests down to none per attention-DP rank
_OLD = frozenset({"0.5.22", "0.5.21"})


def _gib(before: int, weights: int, world: int) -> tuple[float, float]:
    """The free memory before and after loading, in GiB as SGLang reads them: through its
    float32 MIN all-reduce when more than one rank measures (``_f32``; packing converts an
    int as ``float`` does)."""
    after = before - weights
    if world > 1:
        return _F32_UNPACK(_F32_PACK(before))[0] / GIB, _F32_UNPACK(_F32_PACK(after))[0] / GIB
    return before / GIB, after / GIB


def _estimate(capacity: int, context: Any) -> int:
    """SGLang's request estimate: 512 per context's worth of tokens, in [2048, 4096]."""
    if type(context) is not int:
        context = int(context)
    estimate = int(capacity / context * REQ_ESTIMATE_PER_CONTEXT)
    # clamped to [REQ_ESTIMATE_MIN, REQ_ESTIMATE_MAX] (conditionals: no builtin calls)
    return REQ_ESTIMATE_MAX if estimate > REQ_ESTIMATE_MAX else \
        REQ_ESTIMATE_MIN if estimate < REQ_ESTIMATE_MIN else estimate


# --- the plan's values ------------------------------------------------------------------------

#: the values every plan reads, in one call (others only under some launches)
_READ = itemgetter("page_size", "attn_cp_size", "dcp_size", "mem_fraction_static",
                   "kv_cache_dtype", "speculative_algorithm", "disable_hybrid_swa_memory",
                   "dtype")
#: --dtype -> the model dtype SGLang runs (``auto``: the config's, as the facts derive it)
_RUN_DTYPE = {"half": "float16", "float16": "float16", "float": "float32", "float32": "float32",
              "bfloat16": "bfloat16"}


def _auto_kv_kind(facts: Any, dtype: Any) -> str:
    """The KV storage under --kv-cache-dtype auto: the model dtype SGLang runs (--dtype
    when given), unless the checkpoint declares an FP8 KV cache."""
    kind = facts.auto_kv_kind
    if dtype is None or dtype == "auto" or kind == "fp8":
        return kind
    return _RUN_DTYPE.get(dtype, kind) if type(dtype) is str else kind


class _Plan:
    """The resolved values and model facts the sizing reads, looked up once."""

    def __init__(self, result: Any, sizes: tuple[int, int, int] | None = None) -> None:
        """``sizes``: (tp, pp, attn_dp_size) as read below, when the caller has them (the
        memory plan, from the sizes it checked: positive ints)."""
        self.result = result
        record = result.record
        self.model = model = record.model
        self.target = record.target
        self.env = record.env
        v = result.value
        self.v = v
        page, attn_cp, dcp, fraction, flag, spec, swa_off, dtype = _READ(result)
        # each ``int(value or 1)``; an int as it is (the common case, without a call)
        self.page = page if type(page) is int and page else int(page or 1)
        if sizes is None:
            tp, pp, attn_dp = v("tp_size"), v("pp_size"), v("attn_dp_size")
            tp = tp if type(tp) is int and tp else int(tp or 1)
            pp = pp if type(pp) is int and pp else int(pp or 1)
            attn_dp = attn_dp if type(attn_dp) is int and attn_dp else int(attn_dp or 1)
        else:
            tp, pp, attn_dp = sizes
        self.tp, self.pp, self.attn_dp = tp, pp, attn_dp
        self.attn_cp = attn_cp = attn_cp if type(attn_cp) is int and attn_cp \
            else int(attn_cp or 1)
        self.dcp = dcp = dcp if type(dcp) is int and dcp else int(dcp or 1)
        attn_tp = tp // attn_dp // attn_cp
        self.attn_tp = attn_tp if attn_tp > 1 else 1
        self.attn_dcp = dcp if dcp > 1 else 1
        self.world = tp * pp
        self.mem_fraction = fraction if type(fraction) is float else float(fraction)
        flag = flag or "auto"
        self.kv_flag = flag = flag if type(flag) is str else str(flag)
        self.facts = facts = _model_facts(model)
        self.kv_kind = kind = _auto_kv_kind(facts, dtype) if flag == "auto" \
            else _kv_kind(flag, model)
        if flag == "auto" and kind != "fp8" and v("quantization") == _M3_NVFP4:
            self.kv_kind = kind = "fp8"  # the method's config always declares an FP8 cache
        self.kv_bytes = _DTYPE_BYTES[kind]
        self.spec = spec
        old = record.raw.release in _OLD
        self.hybrid_swa = facts.hybrid_swa and not swa_off and not (
            old and model.has_arch(*_SWA_SINCE_0_5_23))
        self.draft_layers, self.draft = _draft_layers(v, record.draft, spec, model, self.env) \
            if spec in _DRAFT_ALGOS else _NO_DRAFT
        # 0.5.23 gives each attention-DP rank one request at least; 0.5.22 and 0.5.21 divide
        # --max-running-requests down to none when it is below the ranks
        self.one_request_at_least = not old
        #: 0.5.23 charges a DFLASH-family draft's own pool to the full tokens of the
        #: request-capped SWA sizing too; 0.5.21-0.5.22 leave it out there
        self.cap_charges_own_draft = not old
        #: bytes per target token of a DFLASH/DSPARK draft's own pool (0: none; None: its
        #: config is not known)
        self.own_pool_draft = _own_pool_draft(self, record.draft) \
            if spec in _OWN_POOL_ALGOS else 0
        self.record_draft_layers = int(record.draft.num_hidden_layers or 0) \
            if self.own_pool_draft is not None and spec in _OWN_POOL_ALGOS else 0
        #: HiSparse keeps index keys for every DSA layer, those that skip top-k included
        self.hisparse_on = bool(v("enable_hisparse"))
        #: HiSparse's host-to-device ratio (1 without HiSparse; None: a ratio not sized)
        self.hisparse = pool_ratio(hisparse_settings(v("hisparse_config"))) \
            if self.hisparse_on else 1
        #: 0.5.22 on widen an EAGLE draft's KV rows to HiSparse's host-expanded token space
        self.hisparse_draft_kv = record.raw.release != "0.5.21"
        #: each pipeline rank's layers, where its pool holds only its own (None: one stage,
        #: or a pool every stage sizes for every layer or not split here; ``caveats``)
        self.stages = _pp_split(self) if pp > 1 else None

    def requests_per_rank(self, requests: Any) -> int:
        """--max-running-requests (or a request count) per attention-DP rank."""
        share = int(requests) // self.attn_dp
        return max(1, share) if self.one_request_at_least else share

    def caveats(self) -> list[str]:
        v, model, facts = self.v, self.model, self.facts
        out = []
        unified, sharding, disaggregation = _CAVEAT_READ(self.result)
        special = facts.special  # (a plain model skips the tests only its kind can pass)
        if special and facts.hybrid_linear and not facts.state:
            out.append(f"{model.linear_attn_kind} linear-attention state pools are not "
                       "modelled: the KV figures leave out the state memory SGLang sets "
                       "aside per request slot")
        if special and facts.hybrid_linear and v("enable_linear_replayssm_spec"):
            out.append("ReplaySSM speculative state rings are not modelled")
        if facts.loop_note:
            out.append(facts.loop_note)
        if unified:
            out.append(_UNIFIED)
        if self.pp > 1 and self.stages is None:
            out.append(_pp_whole(model, facts.state) if not keeps_stage_range(model)
                       else _PP_STATE if facts.state else _PP)
        if sharding or self.dcp > 1:
            out.append(_SHARDED)
        if special:
            if facts.state and not _state_layers(model)[0]:
                out.append(f"{model.arch0}: no linear-attention state layer can be counted "
                           "from config.json: no state cache sized")
            if facts.dsv4 and self.hybrid_swa:
                out.extend(_dsv4_caveats(self))
            if facts.minimax_sparse and _minimax_sparse(self, 0, 0) is None:
                out.append(f"{model.arch0} pools are not modelled")
            elif self.hybrid_swa and not facts.dsv4 and not any(_layer_split(model)):
                out.append("its sliding-window layers are not known from config.json "
                           "(SGLang's config class sets them): sized as one pool of every "
                           "layer")
        # DeepSeek-V4's pools price any draft as one more layer (``dsv4_pool``), a DSpark
        # one included: no own draft pool there
        if self.spec in _OWN_POOL_ALGOS and self.own_pool_draft is None and not facts.dsv4:
            out.append(f"{self.spec} draft pools are not modelled")
        if self.hisparse is None:
            out.append(_HISPARSE_RATIO + repr(hisparse_settings(
                v("hisparse_config")).host_to_device_ratio))
        if self.env and self.result.record.env_flag("SGLANG_ENABLE_POST_CAPTURE_KV_SIZING"):
            out.append(_POST_CAPTURE)
        if disaggregation == "decode":
            out.append(_PD_DECODE)
        return out


_UNIFIED = "unified memory pools are not modelled"
_PP = ("pipeline parallelism: this pool's split over the stages is not modelled: sized as if "
       "every stage held every layer (SGLang sizes each stage for its own layers: more tokens)")
_PP_STATE = ("pipeline parallelism: the KV cache's split over the stages is not modelled: "
             "sized as if every stage held every layer (SGLang sizes each stage for its own "
             "layers: more tokens); a state slot priced by the largest stage's share of the "
             "state layers, as SGLang prices it")


def _pp_whole(model: Any, state: bool = False) -> str:
    """The note of a pipeline launch whose class keeps no stage range: SGLang's figure, but
    not what a reader expects of a pipeline."""
    return (f"pipeline parallelism: SGLang's {model.arch0} class keeps no stage layer range, "
            "so every stage's KV pool holds rows for every layer (as SGLang 0.5.23 sizes it)"
            + ("; a state slot priced by the largest stage's share of the state layers, as "
               "SGLang prices it" if state else ""))
_SHARDED = "KV-cache sharding / decode context parallelism: per-rank rows only"
_POST_CAPTURE = ("post-capture KV sizing is on: SGLang shrinks this pool again after "
                 "capturing CUDA graphs, by what the graphs took")
_PD_DECODE = "PD decode: the pre-allocated transfer slots are not modelled"
_HISPARSE_RATIO = ("HiSparse pools are sized as without HiSparse: launchplan sizes a "
                   "host_to_device_ratio that is an integer of at least 1, not ")
#: the values every plan's caveats read
_CAVEAT_READ = itemgetter("enable_unified_memory", "enable_kv_cache_sharding",
                          "disaggregation_mode")


def _dsv4_caveats(plan: _Plan) -> list[str]:
    """What DeepSeek-V4's pool sizing leaves out on this launch."""
    v, env, out = plan.v, plan.env, []
    if plan.target.is_hip and str(env.get("SGLANG_HACK_FLASHMLA_BACKEND", "")).lower() \
            == "unified_kv_triton":
        out.append("DeepSeek-V4's unified-KV pools (unified_kv_triton) are not modelled: "
                   "sized as FlashMLA's paged pools")
    if v("enable_encoder_swa_bounded_replay"):
        out.append("encoder-bounded SWA replay (DSpark) is not modelled")
    return out


class _ModelFacts(Struct):
    """What the sizing asks of a model on every launch, looked up once per model (a
    ``Struct``: its slots read at an attribute's cost, a named tuple's fields at a call's)."""

    state: bool  # a modelled per-request state cache (``_state_kind``)
    hybrid_linear: bool
    hybrid_swa: bool  # sliding-window layers in a pool of their own
    minimax_sparse: bool  # MiniMax-M3 sparse attention (``_minimax_sparse``)
    dsv4: bool  # DeepSeek-V4's compressed pools (``dsv4_pool``)
    auto_kv_kind: str  # the KV storage under --kv-cache-dtype auto
    kv_layers: int  # KV layers of the default pool
    maybe_multimodal: bool  # multimodal under some flags (the flags can only turn it off)
    mla: bool
    dsa: bool  # DeepSeek sparse attention (its indexer rows)
    shapes: Any  # a Gemma-4-typed config class's attention shapes (``attention_shapes``)
    #: any of state, hybrid_linear, hybrid_swa, minimax_sparse, dsv4 (a model's own
    #: caveats can apply)
    special: bool
    #: a loop model's pool sized for more layers than it runs (``kv_layers.loop_pool_note``)
    loop_note: str | None = None


@per_object
def _model_facts(model: Any) -> _ModelFacts:
    state = _state_kind(model) is not None
    kinds = (state, bool(model.is_hybrid_linear), bool(model.is_hybrid_swa),
             model.arch0.startswith("MiniMaxM3Sparse"), model.arch0.startswith("DeepseekV4"))
    return _ModelFacts(
        *kinds,
        _kv_kind("auto", model),
        len(_state_layers(model)[1]) if state else attention_layers(model),
        model.multimodal(True, model_impl="auto")
        or model.multimodal(True, model_impl="transformers"),
        bool(model.is_mla), bool(model.is_deepseek_dsa), attention_shapes(model), any(kinds),
        loop_pool_note(model))


def _kv_kind(flag: str, model: Any) -> str:
    if flag == "auto":
        if _checkpoint_fp8_kv(model):
            return "fp8"
        return model.dtype if model.dtype in _DTYPE_BYTES else "bfloat16"
    return _KV_KIND.get(flag, "bfloat16")


#: The quantization SGLang 0.5.23 serves MiniMax-M3.1's NVFP4 checkpoints with: its config
#: always carries an FP8 KV cache (``layers/quantization/minimax_m3_nvfp4.py``).
_M3_NVFP4 = "minimax_m3_nvfp4"


@per_object
def _checkpoint_fp8_kv(model: Any) -> bool:
    """A checkpoint that declares an FP8 KV cache (ModelOpt's, compressed-tensors' static
    per-tensor scheme, ...) stores it in FP8 under ``auto``
    (``facts.quantization.checkpoint_kv_algo``: where SGLang reads the declaration)."""
    algo = model.checkpoint_kv_algo
    return isinstance(algo, str) and algo.upper() == "FP8"


def _draft_layers(v: Any, draft: Any, spec: Any, model: Any, env: Any) -> tuple[int, Any]:
    """KV layers of an EAGLE/MTP draft (``spec``: the speculative algorithm; ``v`` reads
    the launch's values, ``draft`` the draft facts its record carries), charged to every
    target token (0 without one), and the draft's facts.

    With a draft checkpoint: its next-token layer count if it declares one, else its layer
    count. Without one, the target's own next-token layers (MTP heads); none for others.
    """
    if spec not in _DRAFT_ALGOS:
        return _NO_DRAFT
    path = v("speculative_draft_model_path")
    if draft is None and path:
        if path == v("model_path"):  # the target's own checkpoint (MTP): once per model
            key = (id(model), spec)
            hit = _OWN_DRAFTS.get(key)
            if hit is None or hit[0] is not model:
                hit = _OWN_DRAFTS[key] = (model, _load_draft(model, spec, env, str(path)))
                if len(_OWN_DRAFTS) > 256:
                    _OWN_DRAFTS.clear()
            draft = hit[1]
        else:
            draft = _load_draft(model, spec, env, str(path))
    source = draft if (path and draft is not None) else model
    if source.num_nextn_predict_layers is not None:
        return int(source.num_nextn_predict_layers), draft
    if path and draft is not None:
        return int(attention_layers(draft)), draft
    return 0, draft


#: speculative algorithms whose draft's KV layers are charged to the target's tokens (a set:
#: the usual None is not compared with each)
_DRAFT_ALGOS = frozenset({"EAGLE", "EAGLE3", "NEXTN", "MTP", "STANDALONE"})
_NO_DRAFT = (0, None)
#: (target model id, algorithm) -> (target, its own checkpoint's facts as a draft, or None)
_OWN_DRAFTS: dict[tuple[int, Any], tuple[Any, Any]] = {}


def _load_draft(model: Any, spec: Any, env: Any, path: str) -> Any:
    from launchplan.facts.models import load_draft_model

    try:
        return load_draft_model(path, target=model, speculative_algorithm=spec, env=env)
    except Exception:  # noqa: BLE001 - an unreadable draft leaves the target's own
        return None


#: speculative algorithms whose draft runs with a KV pool of its own, sized from the draft's
#: config and charged to every target token (SGLang's DFLASH family)
_OWN_POOL_ALGOS = frozenset({"DFLASH", "DSPARK"})


def _own_pool_draft(plan: _Plan, draft: Any) -> int | None:
    """Bytes per target token of a DFLASH-family draft's own KV pool, as SGLang's KV-cache
    configurator prices it (0.5.21-0.5.23): the draft's KV heads over its attention group
    (attention TP; the whole TP group under context parallelism without attention DP), K
    and V head dimensions, every draft layer, in the draft's KV dtype, replicated on each
    decode-context rank. None where no draft config is known; 0 where SGLang cannot price
    it (a KV dtype its draft path rejects), and then it scales the target's rows by layers.
    """
    if draft is None or plan.v("speculative_draft_model_path") is None:
        return None
    layers = draft.num_hidden_layers
    if type(layers) is not int or layers <= 0 or not draft.head_dim:
        return None
    kind = _draft_kv_kind(plan, draft)
    if kind is None:
        return 0
    group = plan.tp if plan.attn_cp > 1 and plan.attn_dp == 1 else plan.attn_tp
    heads = draft.num_kv_heads(group)
    return heads * (int(draft.head_dim) + int(draft.v_head_dim or draft.head_dim)) * layers \
        * _DTYPE_BYTES[kind] * plan.attn_dcp


def _draft_kv_kind(plan: _Plan, draft: Any) -> str | None:
    """The DFLASH draft's KV storage: --speculative-draft-kv-cache-dtype, else the target's
    flag; ``auto`` is the draft's model dtype; an fa4 draft backend keeps the model dtype
    whatever the flag (FA4 reads K in the query's dtype). None: a flag SGLang's draft
    path does not take."""
    v = plan.v
    flag = v("speculative_draft_kv_cache_dtype")
    flag = plan.kv_flag if flag is None else str(flag)
    dtype = v("dtype")
    model_kind = _RUN_DTYPE.get(dtype, draft.dtype) if type(dtype) is str else draft.dtype
    if model_kind not in _DTYPE_BYTES:
        model_kind = "bfloat16"
    if flag == "auto":
        return model_kind
    kind = _KV_KIND.get(flag)
    if kind is None:
        return None
    if v("speculative_draft_attention_backend") == "fa4":
        return model_kind
    return kind


def _f32(value: int) -> float:
    """A byte count as it comes out of SGLang's float32 all-reduce."""
    return _F32_UNPACK(_F32_PACK(float(value)))[0]


_F32_PACK, _F32_UNPACK = struct.Struct("f").pack, struct.Struct("f").unpack


# --- the budget -------------------------------------------------------------------------------

def _budget(plan: _Plan, before: int, weights: int, steps: list | None,
            mamba: _GdnState | None = None) -> int:
    before_gib, after_gib = _gib(before, weights, plan.world)
    slack_gib = before_gib * (1 - plan.mem_fraction)
    mm_gib = _multimodal_reserve_gib(plan) if plan.facts.maybe_multimodal else 0.0
    rest = after_gib - slack_gib - mm_gib
    if steps is not None:
        steps.extend([
            ("free before loading (GiB)", before_gib),
            ("weights (bytes)", weights),
            ("free after loading (GiB)", after_gib),
            (f"slack: before x (1 - mem_fraction_static {_fraction(plan.mem_fraction)}) (GiB)",
             slack_gib),
        ])
        if mm_gib:
            steps.append(("multimodal reserve (GiB)", mm_gib))
    if mamba is not None:
        rest = mamba.reserve(rest, steps)
    if rest <= 0:
        need = 1 - after_gib / before_gib if before_gib else 1.0
        raise NotEnoughMemory(
            f"the loaded weights leave no memory for the KV cache at mem_fraction_static "
            f"{_fraction(plan.mem_fraction)} (it would need more than {need:.4f})")
    budget = int(rest * GIB)
    if steps is not None:
        steps.append(("KV budget = after - slack (bytes)", budget))
    return budget


def _fraction(value: float) -> str:
    """A rule-derived fraction as the plan table shows it (0.85 x 0.85 is 0.7225 there, not
    0.7224999999999999), so a message and the table beside it name the same value."""
    return human_float(value) if isinstance(value, float) else str(value)


def _multimodal_reserve_gib(plan: _Plan) -> float:
    v, model = plan.v, plan.model
    if not plan.facts.maybe_multimodal or not model.multimodal(v("enable_multimodal"),
                            language_model_only=bool(v("language_model_only")),
                            model_impl=str(v("model_impl") or "auto")):
        return 0.0
    vlm_default, feature_default = _mm_cache_defaults(plan)
    reserve = env_int(plan.env, "SGLANG_VLM_CACHE_SIZE_MB", vlm_default)
    if v("mm_feature_transport") in ("cuda_ipc", "cuda_vmm"):
        reserve += env_int(plan.env, "SGLANG_MM_FEATURE_CACHE_MB", feature_default)
    return reserve / 1024


def _mm_cache_defaults(plan: _Plan) -> tuple[int, int]:
    """SGLANG_VLM_CACHE_SIZE_MB and SGLANG_MM_FEATURE_CACHE_MB when unset. SGLang's
    Qwen3-VL serving path on a large Hopper sets the first to 0 and, for 400 or more
    requests over CUDA IPC without any cache kept, the second to 3 GiB; an RL on-policy
    target sets the first to 0."""
    v = plan.v
    if not large_hopper_qwen3_vl(plan):
        return (0 if v("rl_on_policy_target") is not None else VLM_CACHE_MB), \
            MM_FEATURE_CACHE_MB
    vlm = env_int(plan.env, "SGLANG_VLM_CACHE_SIZE_MB", 0)
    retains = (v("mm_preprocess_cache_size_mb") or 0) > 0 or vlm > 0
    reqs = v("max_running_requests")
    wave = reqs is not None and reqs >= 400 and not retains \
        and v("mm_feature_transport") == "cuda_ipc"
    return 0, 3 * 1024 if wave else MM_FEATURE_CACHE_MB


# --- bytes per token --------------------------------------------------------------------------

def _sizer(plan: _Plan, explain: bool = True) -> Any:
    if plan.hybrid_swa and plan.facts.dsv4:
        return Dsv4Pool(plan)
    if plan.hybrid_swa and _layer_split(plan.model)[0]:
        if _request_cap_applies(plan):
            return _SwaRequestCap(plan)
        return _HybridSwa(plan)
    return _Default(plan, explain)


@per_object
def _layer_split(model: Any) -> tuple[list[int], list[int]]:
    """(SWA layer ids, full-attention layer ids) of a hybrid sliding-window model."""
    text = model.text_config
    layers = int(model.num_hidden_layers or 0)
    if model.has_arch("Llama4ForConditionalGeneration"):
        return ([i for i in range(layers) if (i + 1) % 4],
                [i for i in range(layers) if (i + 1) % 4 == 0])
    pattern = text.get("hybrid_layer_pattern")
    if isinstance(pattern, (list, tuple)) and not text.get("layer_types"):
        if len(pattern) < layers:  # SGLang reads an entry for every layer, and stops
            raise InputError(f"{model.config_file} field '{_text_block(model)}"
                             "hybrid_layer_pattern'",
                             f"an entry (1 sliding-window, 0 full attention) for each of the "
                             f"{layers} layers", _shown(pattern))
        return ([i for i in range(layers) if pattern[i] == 1],
                [i for i in range(layers) if pattern[i] == 0])
    kinds = layer_kinds(model)
    if kinds is None:
        kinds = list(text.get("layer_types") or ())
    if model.has_arch("Step3p5ForCausalLM", "Step3p7ForConditionalGeneration"):
        kinds = kinds[:layers]
    return ([i for i, k in enumerate(kinds) if k == "sliding_attention"],
            [i for i, k in enumerate(kinds) if k == "full_attention"])


def _fp4_mha_bytes(plan: _Plan, heads: int, head_dim: int, layers: int) -> int:
    """FP4 K+V rows with their block scales, plus the dequant workspace FlashInfer prefill
    reads (shared by all layers). nvfp4 keeps a token-linear scale copy for the FlashInfer
    or SM12x paths and a native one for TRT-LLM on SM10x."""
    v = plan.v
    prefill = v("prefill_attention_backend") or v("attention_backend")
    decode = v("decode_attention_backend") or v("attention_backend")
    data = heads * (head_dim // 2) * layers * 2
    if plan.kv_flag == "fp4_mx_block16":
        return data + (heads * head_dim // FP4_SCALE_BLOCK) * layers * 2
    dequant = prefill == "flashinfer"
    native = prefill == "trtllm_mha" or decode == "trtllm_mha"
    native_layout = plan.target.is_sm100
    scale_copies = int(dequant or (native and not native_layout)) + int(native and native_layout)
    scales = heads * (head_dim // FP4_SCALE_BLOCK) * layers * 2 * scale_copies
    workspace = heads * head_dim * 2 if dequant else 0
    return data + scales + workspace


def _mla_row(plan: _Plan) -> int:
    """Elements of one MLA latent row; DSA's scaled FP8 layout adds scales and a bf16 rope."""
    model, v = plan.model, plan.v
    rank, rope = int(model.kv_lora_rank), int(model.qk_rope_head_dim)
    if not model.is_deepseek_dsa:
        return rank + rope
    prefill, decode = v("dsa_prefill_backend"), v("dsa_decode_backend")
    role = v("disaggregation_mode")
    trtllm = (decode == "trtllm" if role == "decode" else prefill == "trtllm"
              if role == "prefill" else "trtllm" in (prefill, decode))
    raw = ("tilelang", "triton", "aiter")
    if trtllm or (plan.target.is_hip and (prefill in raw or decode in raw)) or \
            (prefill == "tilelang" and decode == "tilelang"):
        return rank + rope
    if plan.kv_kind == "fp8":
        return rank + rank // DSA_QUANT_BLOCK * 4 + rope * DSA_ROPE_BYTES
    return rank + rope


def _minimax_sparse(plan: _Plan, heads: int, head_dim: int
                    ) -> list[tuple[str, int]] | None:
    """MiniMax-M3 sparse attention's KV bytes per token as SGLang's pool configurator sizes
    them (0.5.21-0.5.23), as (what, bytes) parts, or None where launchplan does not size it:
    an FP4 KV cache, a HiSparse host ratio that is not an integer of at least 1, a draft,
    pipeline stages. Under HiSparse the dense layers' K and V and the index rows span the
    host ratio's token space; the sparse layers' K and V do not.

    0.5.23's NVFP4-native stack (an M3.1 NVFP4 checkpoint on Blackwell) keeps each sparse
    layer's K and V, and its index K, packed in 128-token pages (``_packed_page_rows``): the
    per-token figure is the sparse layers' row bytes over 128, whatever the KV dtype; SGLang
    counts no dense layer in it.

    Otherwise every layer keeps K and V in the KV dtype, element bytes only (the pool is a
    sum of sub-pools, so no MXFP8 or FP4 scale term); each sparse layer adds a single-head
    index K (and an index V where ``sparse_disable_index_value`` leaves it) of
    ``sparse_index_dim``, replicated on every attention-TP rank. The index is stored in the
    KV dtype when the attention GEMMs run in fp8 (fp8_e4m3 KV, trtllm_mha, SM100, not
    disabled by ``SGLANG_DISABLE_M3_FP8_ATTN_GEMM``), from 0.5.23 also for fp8_e4m3 KV on
    Hopper, in fp8 on gfx95 unless ``SGLANG_OPT_MINIMAX_M3_FP8_INDEX_CACHE`` (on by default)
    is turned off, else in the model dtype."""
    model, v = plan.model, plan.v
    config = model.text_config.get("sparse_attention_config") \
        or model.config.get("sparse_attention_config")
    ratio = plan.hisparse
    if not isinstance(config, Mapping) or plan.draft_layers or plan.pp > 1 or ratio is None:
        return None
    record = plan.result.record
    old = record.raw.release in _OLD
    target = plan.target
    freq = config.get("sparse_attention_freq") or ()
    k_only = config.get("sparse_disable_index_value") or ()
    sparse = [i for i, f in enumerate(freq) if f != 0]  # SGLang's test, for any entry
    index_dim = int(config.get("sparse_index_dim") or 0)
    if not old and v("quantization") == "minimax_m3_nvfp4" and target.is_blackwell:
        main, index = _packed_page_rows(heads, head_dim, index_dim)
        return [(f"{len(sparse)} sparse layers x (K+V row {main} B + index row {index} B) "
                 f"per {MSA_PAGE_SIZE} tokens, NVFP4 with scales", len(sparse) * (main + index)
                 // MSA_PAGE_SIZE)]
    if plan.kv_kind == "fp4":
        return None
    with_value = sum(1 for i in sparse if not (i < len(k_only) and k_only[i] != 0))
    kv_flag = plan.kv_flag
    if kv_flag == "auto" and plan.kv_kind == "fp8":
        kv_flag = "fp8_e4m3"  # the name SGLang's pool configurator is handed for it
    if kv_flag == "fp8_e4m3" and v("attention_backend") == "trtllm_mha" and target.is_sm100 \
            and not record.env_flag("SGLANG_DISABLE_M3_FP8_ATTN_GEMM"):
        index_bytes = plan.kv_bytes
    elif not old and kv_flag == "fp8_e4m3" and target.is_sm90:
        index_bytes = plan.kv_bytes
    elif target.is_gfx95 and record.env_flag("SGLANG_OPT_MINIMAX_M3_FP8_INDEX_CACHE"):
        index_bytes = 1
    else:
        index_bytes = 4 if v("dtype") == "float32" else 2
    count = len(freq) or plan.facts.kv_layers
    kv = plan.kv_bytes
    index = (with_value * 2 + len(sparse) - with_value) * index_dim * index_bytes
    if ratio == 1:
        return [(f"{heads} KV heads x (K {head_dim} + V {head_dim}) x {count} layers x {kv} B, "
                 "no block scales", heads * 2 * head_dim * count * kv),
                ("MiniMax sparse index rows, every attention-TP rank", index)]
    # HiSparse: the dense layers' rows and the index rows address the host-expanded space
    dense = count - len(sparse)
    return [(f"{heads} KV heads x (K {head_dim} + V {head_dim}) x ({dense} dense layers x "
             f"HiSparse host ratio {ratio} + {len(sparse)} sparse) x {kv} B, no block scales",
             heads * 2 * head_dim * (dense * ratio + len(sparse)) * kv),
            (f"MiniMax sparse index rows, every attention-TP rank, x HiSparse host ratio "
             f"{ratio}", index * ratio)]


#: NVFP4 keeps one scale byte per 16 elements.
_NVFP4_GROUP = 16
#: Each part of a packed page row starts on a 128-byte boundary (the MSA kernels' aligned
#: views, HiCache's 128-byte page-row copies).
_ROW_ALIGN = 128


def _packed_page_rows(heads: int, head_dim: int, index_dim: int) -> tuple[int, int]:
    """Bytes of one sparse layer's page in the NVFP4-native pool: (the K and V row: payload
    of half a byte an element and a scale per 16 for each, over ``heads``; the index row:
    the same for one head of ``index_dim``)."""
    def aligned(size: int) -> int:
        return -(-size // _ROW_ALIGN) * _ROW_ALIGN

    def row(elements: int) -> int:
        return aligned(elements // 2) + aligned(elements // _NVFP4_GROUP)

    return 2 * row(heads * MSA_PAGE_SIZE * head_dim), row(MSA_PAGE_SIZE * index_dim)


def _dsa_indexer_bytes(model: Any, layers: int, *, all_layers: bool,
                       ids: Any = None) -> int:
    """Index-K rows (FP8 with a 4-byte scale per 128), one per layer that computes top-k.
    ``ids``: the global layer ids of the pool's slots (a pipeline stage's; SGLang numbers
    them from 0 when their count is not ``layers``)."""
    config = model.text_config
    dim = int(config.get("index_head_dim") or 0)
    kpool = int(config.get("index_kpool") or 1)
    per_token = -(-(dim + dim // DSA_QUANT_BLOCK * 4) // kpool)
    if ids is None or len(ids) != layers:
        ids = range(layers)
    count = layers if all_layers else sum(not _dsa_skips_topk(config, i) for i in ids)
    return per_token * count


def _dsa_skips_topk(config: Any, layer: int) -> bool:
    kinds = config.get("indexer_types")
    if kinds is not None:
        return 0 <= layer < len(kinds) and kinds[layer] == "shared"
    factor = config.get("cli_factor") or 1
    if factor > 1:
        return layer % factor != 0
    pattern = config.get("index_topk_pattern")
    if pattern is not None:
        return layer < len(pattern) and pattern[layer] == "S"
    freq = config.get("index_topk_freq") or 1
    offset = config.get("index_skip_topk_offset")
    if offset is not None:
        return max(layer - offset + 1, 0) % freq != 0
    return max(layer - 1, 0) % freq != 0


class _Default:
    """One pool for every layer: ``budget // bytes_per_token``, page-aligned."""

    name = "default"

    def __init__(self, plan: _Plan, explain: bool = True, rank: int | None = None) -> None:
        """``rank``: the pipeline rank whose own layers the pool holds (``plan.stages``)."""
        self.plan = plan
        model = plan.model
        parts: list[tuple[str, Any]] | None = [] if explain else None
        self.parts = parts
        ids: Any = None  # the layer ids of the DSA pool's slots (None: 0 up)
        if rank is None:
            layers = plan.facts.kv_layers
        else:
            stage = plan.stages[rank]
            layers, ids = _stage_kv_layers(plan, stage)
            if parts is not None:
                parts.append(_stage_step(plan, rank, "KV layers", layers))
        self.layers = layers
        kv = plan.kv_bytes
        if plan.facts.mla:
            row = _mla_row(plan)
            cell = row * layers * kv
            if parts is not None:
                parts.append((f"MLA row {row} elements x {layers} layers x {kv} B", cell))
            if plan.kv_kind == "fp4":
                scales = (int(model.kv_lora_rank) + int(model.qk_rope_head_dim)) \
                    // FP4_SCALE_BLOCK * layers * kv
                cell = cell // 2 + scales
                if parts is not None:
                    parts.append(("FP4: half the bytes plus block scales", cell))
            if plan.facts.dsa:
                indexer = _dsa_indexer_bytes(model, layers, all_layers=plan.hisparse_on,
                                             ids=ids) * plan.attn_dcp
                if plan.hisparse and plan.hisparse > 1:
                    # the index keys address HiSparse's whole host-expanded token space
                    indexer *= plan.hisparse
                    if parts is not None:
                        parts.append((f"DSA indexer rows x HiSparse host ratio "
                                      f"{plan.hisparse}", indexer))
                elif parts is not None:
                    parts.append(("DSA indexer rows", indexer))
                cell += indexer
        else:
            if plan.facts.shapes is None:  # ``_full_geometry``'s common case, inline
                heads, k_dim, v_dim = (model.num_kv_heads(plan.attn_tp, plan.attn_dcp),
                                       model.head_dim, model.v_head_dim)
            else:
                heads, k_dim, v_dim = _full_geometry(plan)
            dims = k_dim + v_dim
            minimax = _minimax_sparse(plan, heads, k_dim) if plan.facts.minimax_sparse \
                else None
            if minimax is not None:
                cell = sum(size for _, size in minimax)
                if parts is not None:
                    parts.extend(minimax)
            elif plan.kv_kind == "fp4":
                cell = _fp4_mha_bytes(plan, heads, k_dim, layers)
                if parts is not None:
                    parts.append((f"FP4 ({plan.kv_flag}) K+V with scales, {heads} KV "
                                  f"heads x {layers} layers", cell))
            else:
                cell = heads * dims * layers * kv
                if parts is not None:
                    parts.append((f"{heads} KV heads x (K {k_dim} + V {v_dim}) x {layers} "
                                  f"layers x {kv} B", cell))
                if plan.kv_flag == "mxfp8":
                    cell += heads * dims * layers // MXFP8_SCALE_BLOCK
                    if parts is not None:
                        parts.append(("MXFP8 block scales", cell))
        if plan.draft_layers and layers:
            if plan.facts.dsa:
                ratio = plan.hisparse or 1
                indexer = _dsa_indexer_bytes(model, layers, all_layers=plan.hisparse_on,
                                             ids=ids) * plan.attn_dcp * ratio
                draft = int((cell - indexer) * plan.draft_layers / layers)
                if plan.hisparse_draft_kv:
                    draft *= ratio
                draft *= plan.attn_dcp
                draft += _dsa_indexer_bytes(model, plan.draft_layers, all_layers=True) \
                    * ratio * plan.attn_dcp
            else:
                draft = int(cell * plan.draft_layers / layers)
            cell += draft
            if parts is not None:
                parts.append((f"draft KV: {plan.draft_layers} layer(s)", draft))
        own = plan.own_pool_draft
        if own is not None and plan.spec in _OWN_POOL_ALGOS and layers:
            if own:
                cell += own
                if parts is not None:
                    parts.append((f"{plan.spec} draft's own pool: "
                                  f"{plan.record_draft_layers} layer(s)", own))
            else:  # a draft SGLang cannot price: the target's rows scaled by layers
                total = layers + plan.record_draft_layers * plan.attn_dcp
                cell = (cell * total + layers - 1) // layers
                if parts is not None:
                    parts.append((f"{plan.spec} draft priced as the target's rows x "
                                  f"{total}/{layers}", cell))
        self.cell = cell

    def describe(self) -> list[tuple[str, Any]]:
        return self.parts + [("KV bytes per token", self.cell)]

    def size(self, budget: int, steps: list | None) -> dict[str, int]:
        page = self.plan.page
        if not self.cell:  # no KV layers at all: the pool only indexes requests' tokens
            tokens = (self.plan.v("max_total_tokens") or int(self.plan.model.context_len))
            tokens = tokens // page * page
            if steps is not None:
                steps.append(("no KV layers: tokens = --max-total-tokens or the context", tokens))
            return {"max_total_num_tokens": tokens}
        tokens = budget // self.cell // page * page
        if steps is not None:
            steps.append((f"tokens = budget // bytes per token, page-aligned ({page})", tokens))
        cap = self.plan.v("max_total_tokens")
        if cap is not None and cap < tokens:
            tokens = cap // page * page
            if steps is not None:
                steps.append((f"capped by --max-total-tokens {cap}, page-aligned", tokens))
        if tokens <= 0:
            raise NotEnoughMemory("not enough memory for a single KV page: raise "
                                  "--mem-fraction-static")
        return {"max_total_num_tokens": tokens}


#: SGLang's Dots3Config defaults for its sliding-window layers' MLA row
_DOTS3_SWA_RANKS = {"swa_kv_lora_rank": 512, "swa_qk_rope_head_dim": 64}


class _HybridSwa:
    """Full-attention and sliding-window layers in two pools: the SWA pool holds
    ``swa_full_tokens_ratio`` tokens per full token."""

    name = "hybrid_swa"

    def __init__(self, plan: _Plan, rank: int | None = None) -> None:
        """``rank``: the pipeline rank whose own layers the pools hold (``plan.stages``)."""
        self.plan = plan
        self.rank = rank
        model = plan.model
        kv = plan.kv_bytes
        swa_ids, full_ids = _layer_split(model)
        if rank is not None:
            stage = plan.stages[rank]
            swa_ids = [i for i in swa_ids if i in stage]
            full_ids = [i for i in full_ids if i in stage]
        self.full_layers, self.swa_layers = len(full_ids), len(swa_ids)
        self.ratio = float(plan.v("swa_full_tokens_ratio"))
        if model.is_mla:
            full = (int(model.kv_lora_rank) + int(model.qk_rope_head_dim)) * kv
            # (Dots3Config's own defaults where the file leaves the SWA ranks out)
            swa_rank, swa_rope = (model.text_config.get(key, _DOTS3_SWA_RANKS.get(key))
                                  for key in _DOTS3_SWA_RANKS)
            swa = (int(swa_rank or 0) + int(swa_rope or 0)) * kv
        else:
            heads, k_dim, v_dim = _full_geometry(plan, dcp=False)
            swa_heads, swa_k, swa_v = _swa_geometry(plan)
            full = heads * (k_dim + v_dim) * kv
            swa = swa_heads * (swa_k + swa_v) * kv
            if plan.kv_flag == "mxfp8":
                full += heads * (k_dim + v_dim) // MXFP8_SCALE_BLOCK
                swa += swa_heads * (swa_k + swa_v) // MXFP8_SCALE_BLOCK
        self.full_per_token, self.swa_per_token = full, swa
        draft_swa = 0
        if plan.draft_layers and plan.draft is not None and plan.draft.is_hybrid_swa:
            draft_swa = min(len(_layer_split(plan.draft)[0]), plan.draft_layers)
        self.draft_swa = draft_swa
        self.draft_full = plan.draft_layers - draft_swa
        # a DFLASH-family draft's own pool, charged to every full token (0 if unpriced)
        self.own_draft = plan.own_pool_draft or 0
        self.full_bytes = full * (self.full_layers + self.draft_full)
        self.swa_bytes = swa * (self.swa_layers + self.draft_swa)
        if self.full_layers == 0:
            self.cell = full * self.draft_full + swa * (self.swa_layers + self.draft_swa) \
                + self.own_draft
        else:
            self.cell = self.full_bytes + self.ratio * self.swa_bytes + self.own_draft
        self.window = _sliding_window(model)

    def describe(self) -> list[tuple[str, Any]]:
        stage = [] if self.rank is None else [_stage_step(self.plan, self.rank, "layers")]
        return stage + [
            (f"full layers {self.full_layers} (+{self.draft_full} draft) x "
             f"{self.full_per_token} B", self.full_bytes),
            (f"SWA layers {self.swa_layers} (+{self.draft_swa} draft) x "
             f"{self.swa_per_token} B", self.swa_bytes),
            (f"KV bytes per full token = full + {self.ratio} x SWA", self.cell),
        ]

    def size(self, budget: int, steps: list | None) -> dict[str, int]:
        tokens = int(budget // self.cell)
        if steps is not None:
            steps.append(("full tokens = budget // bytes per full token", tokens))
        return self._split(capped(self.plan, tokens, steps), steps)

    def _split(self, tokens: int, steps: list | None) -> dict[str, int]:
        page = self.plan.page
        if self.full_layers == 0:
            swa = tokens // page * page
            if steps is not None:
                steps.append(("SWA tokens (all layers SWA), page-aligned", swa))
            _positive(swa)
            return {"max_total_num_tokens": swa, "full": 0, "swa": swa}
        full = tokens // page * page
        swa = int(full * self.ratio) // page * page
        if steps is not None:
            steps.extend([("full tokens, page-aligned", full),
                          (f"SWA tokens = full x {self.ratio}, page-aligned", swa)])
        _positive(full)
        if not self.plan.v("enable_unified_memory") and self.window is not None \
                and self.window + page >= swa:
            raise NotEnoughMemory(
                f"the SWA pool ({swa} tokens) cannot hold one request: it needs more than "
                f"the window ({self.window}) plus a page ({page}); raise "
                "--swa-full-tokens-ratio or the KV budget")
        return {"max_total_num_tokens": full, "full": full, "swa": swa}


class _SwaRequestCap(_HybridSwa):
    """Radix cache off and --max-running-requests given: the SWA pool holds exactly the
    windows of that many requests (plus prefill chunks in flight); the rest is full."""

    name = "swa_request_cap"

    def __init__(self, plan: _Plan, rank: int | None = None) -> None:
        super().__init__(plan, rank)
        self.swa_cap = swa_request_cap(plan, self.window)

    def size(self, budget: int, steps: list | None) -> dict[str, int]:
        page = self.plan.page
        swa = -(-self.swa_cap // page) * page
        fixed = swa * self.swa_bytes
        own = self.own_draft if self.plan.cap_charges_own_draft else 0
        full = int((budget - fixed) // (self.full_bytes + own)) // page * page
        if steps is not None:
            steps.extend([("SWA tokens for the requests' windows, page-aligned", swa),
                          ("SWA pool bytes", fixed),
                          ("full tokens = (budget - SWA pool) // full bytes, page-aligned",
                           full)])
        if full <= 0:
            raise NotEnoughMemory(
                f"the SWA pool sized for --max-running-requests ({swa} tokens) leaves no "
                "room for the full-attention pool: lower --max-running-requests or raise "
                "--mem-fraction-static")
        cap = self.plan.v("max_total_tokens")
        if cap is not None and cap < full:
            full = cap // page * page
            swa = min(swa, cap)
            if steps is not None:
                steps.extend([(f"capped by --max-total-tokens {cap}: full tokens", full),
                              ("SWA tokens", swa)])
        return {"max_total_num_tokens": full, "full": full, "swa": swa}


def _positive(tokens: int) -> None:
    if tokens <= 0:
        raise NotEnoughMemory("not enough memory for the KV cache: raise "
                              "--mem-fraction-static")


def _full_geometry(plan: _Plan, dcp: bool = True) -> tuple[int, int, int]:
    """(KV heads per rank, K width, V width) of a full-attention layer: the model facts',
    or the full-attention shape a Gemma-4-typed config class sets (``class_layers``)."""
    model = plan.model
    shapes = attention_shapes(model)
    dcp_size = plan.attn_dcp if dcp else 1
    if shapes is None:
        return model.num_kv_heads(plan.attn_tp, dcp_size), model.head_dim, model.v_head_dim
    groups = max(plan.attn_tp // dcp_size, 1)
    return (max(1, shapes.full_kv_heads // groups), shapes.full_head_dim,
            shapes.full_v_head_dim)


def _swa_geometry(plan: _Plan) -> tuple[int, int, int]:
    """(KV heads per rank, K width, V width) of a sliding-window layer."""
    model = plan.model
    shapes = attention_shapes(model)
    if shapes is None:
        return (_swa_kv_heads(model, plan.attn_tp), model.swa_head_dim,
                model.swa_v_head_dim)
    return (max(1, shapes.swa_kv_heads // plan.attn_tp), shapes.swa_head_dim,
            shapes.swa_v_head_dim)


def _swa_kv_heads(model: Any, attn_tp: int) -> int:
    text = model.text_config
    total = text.get("swa_num_key_value_heads")
    if total is None and isinstance(text.get("attention_other_setting"), dict):
        total = text["attention_other_setting"].get("num_attention_groups")
    if total is None:
        return model.num_kv_heads(attn_tp)
    return max(1, int(total) // attn_tp)


@per_object
def _sliding_window(model: Any) -> int | None:
    if model.arch0 in _WINDOW_FIXED:
        return _WINDOW_FIXED[model.arch0]
    window = model.sliding_window
    if window is None:  # no window: a chunked-attention model's chunk stands in (Llama 4)
        chunk = model.text_config.get("attention_chunk_size")
        return int(chunk) if chunk else None
    return int(window) - 1 if model.has_arch(*_WINDOW_MINUS_ONE) else int(window)


def _request_cap_applies(plan: _Plan) -> bool:
    v = plan.v
    if v("max_running_requests") is None or not v("disable_radix_cache"):
        return False
    chunk = v("chunked_prefill_size")
    if v("disaggregation_mode") != "decode" and (chunk is None or chunk <= 0):
        return False
    return _sliding_window(plan.model) is not None and bool(_layer_split(plan.model)[1])


# --- linear-attention and Mamba state ------------------------------------------------------

_STATE_DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
#: Request slots of state per running request with the radix cache on (two more for the
#: overlapped extra buffer); one without it.
MAMBA_SLOTS_PER_REQUEST = 3


@per_object
def _state_kind(model: Any) -> str | None:
    """Which per-request state cache SGLang sets up (its ``mambaish_config``), for the
    families whose state shape is modelled here: ``gdn`` (Qwen3-Next / Qwen3.5,
    GigaChat-3.5, Qwen4-Exp without PLE layers), ``mamba2`` (Nemotron-H, Falcon-H1,
    Granite-4.0-H), ``short_conv`` (LFM2), ``mamba1`` (Mamba, Falcon-Mamba), ``kda``
    (Kimi-Linear, Kimi-K3), ``kda_glm5`` (GLM-5-Next) and ``cca`` (ZAYA1's CCA conv
    windows); None for others (and for models without one)."""
    kind, text_type = model.linear_attn_kind, model.text_model_type
    if kind == "gdn" and text_type in _GDN_MODEL_TYPES:
        if text_type == "qwen4_exp_text" and model.text_config.get("ple_layer_ids"):
            return None  # its PLE short-conv state rides on each request too
        return "gdn"
    if kind == "mamba" and text_type in _MAMBA2_MODEL_TYPES:
        return _MAMBA2_MODEL_TYPES[text_type]
    if kind == "mamba" and text_type in _MAMBA1_MODEL_TYPES:
        return "mamba1"
    if kind == "mamba" and text_type == "zaya":
        return "cca"
    if kind == "kda" and text_type == "kimi_linear":
        return "kda"
    if kind == "kda" and model.model_type == "glm5_next":
        return "kda_glm5"
    return None


_GDN_MODEL_TYPES = ("qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "qwen3_5", "qwen3_5_moe",
                    "gigachat3_5", "qwen4_exp_text")
#: Gated-delta-net shape defaults of the config classes (key heads, value heads, key dim,
#: value dim, conv kernel): Qwen3-Next's, and GigaChat-3.5's (SGLang's GigaChat35Config).
_GDN_DEFAULTS = {"gigachat3_5": (8, 16, 128, 128, 4)}
_GDN_DEFAULT = (16, 32, 128, 128, 4)
_MAMBA2_MODEL_TYPES = {"nemotron_h": "mamba2", "falcon_h1": "mamba2",
                       "granitemoehybrid": "mamba2", "lfm2": "short_conv",
                       "lfm2_moe": "short_conv"}
#: Pure Mamba-1 stacks (state-spaces Mamba, Falcon-Mamba): every layer a selective-scan mixer
#: that SGLang runs on its Mamba-2 state pool with one-wide heads (``create_full_rank``).
_MAMBA1_MODEL_TYPES = frozenset({"mamba", "falcon_mamba"})
#: transformers' MambaConfig / FalconMambaConfig defaults for the keys the state shape reads.
_MAMBA1_DEFAULTS = {"state_size": 16, "conv_kernel": 4, "expand": 2}


@per_object
def _state_layers(model: Any) -> tuple[list[int], list[int]]:
    """(state layer ids, full-attention layer ids) of a model with a state cache."""
    text = model.text_config
    layers = range(int(model.num_hidden_layers or 0))
    kind = _state_kind(model)
    if kind == "gdn" and model.text_model_type == "gigachat3_5":
        kinds = list(text.get("layer_types") or ())
        return ([i for i in layers if i < len(kinds) and kinds[i] == "linear_attention"],
                [i for i in layers if i < len(kinds) and kinds[i] == "full_attention"])
    if kind == "gdn":
        interval = int(text.get("full_attention_interval") or 1)
        return ([i for i in layers if (i + 1) % interval],
                [i for i in layers if (i + 1) % interval == 0])
    if kind == "kda":  # Kimi: 1-based KDA layer numbers
        linear = set((text.get("linear_attn_config") or {}).get("kda_layers") or ())
        return ([i for i in layers if i + 1 in linear], [i for i in layers if i + 1 not in linear])
    if kind == "kda_glm5":
        linear = set(_glm5_next_linear(text)["kda_layers"])
        return [i for i in layers if i in linear], [i for i in layers if i not in linear]
    if kind == "mamba1":  # no attention layer at all
        return list(layers), []
    if kind == "cca":  # ZayaConfig: the attention layers carry the conv state too
        ids = [i for i in zaya_attention_ids(text) if i in layers]
        return ids, ids
    if model.text_model_type == "falcon_h1":  # every layer has both
        return list(layers), list(layers)
    if model.text_model_type == "nemotron_h":
        pattern = str(text.get("hybrid_override_pattern") or "")
        return ([i for i in layers if i < len(pattern) and pattern[i] == "M"],
                [i for i in layers if i < len(pattern) and pattern[i] == "*"])
    kinds = granite_hybrid_kinds(text) if model.text_model_type == "granitemoehybrid" \
        else list(text.get("layer_types") or ())
    state, full = (("conv", "short_conv"), ("full_attention",)) if kind == "short_conv" \
        else (("mamba",), ("attention",))
    return ([i for i in layers if i < len(kinds) and kinds[i] in state],
            [i for i in layers if i < len(kinds) and kinds[i] in full])


def _glm5_next_linear(text: Any) -> dict:
    """GLM-5-Next's KDA settings: its ``linear_attn_config``, else what SGLang's
    ``Glm5NextConfig`` builds from ``layer_types`` (0-based KDA layer ids; without them,
    every layer but each fourth) and the ``linear_*`` keys (defaults 64 heads of 128, a
    4-wide conv)."""
    given = text.get("linear_attn_config")
    if given:
        return given
    kinds = text.get("layer_types")
    layers = int(text.get("num_hidden_layers") or 0)
    kda = [i for i, k in enumerate(kinds) if k == "linear_attention"] if kinds is not None \
        else [i for i in range(layers) if i % 4 != 3]
    return {"kda_layers": kda, "num_heads": int(text.get("linear_num_heads") or 64),
            "head_dim": int(text.get("linear_head_dim") or 128),
            "short_conv_kernel_size": int(text.get("linear_conv_kernel_dim") or 4)}


def _mamba2_elements(tp: int, intermediate: int, groups: int, heads: int, head_dim: int,
                     state: int, kernel: int) -> tuple[int, int]:
    """(conv, temporal) state elements of one Mamba2-shaped layer on one rank: the conv
    window over x, B and C (groups widened to a multiple of the ranks) and the
    (heads x head dim x state) matrix, both head-sharded."""
    if groups % tp:
        groups = tp
    return ((intermediate + 2 * groups * state) // tp * (kernel - 1),
            heads // tp * head_dim * state)


def _state_elements(model: Any, tp: int) -> tuple[int, int, bool]:
    """(conv elements, temporal elements, whether the config's ``mamba_ssm_dtype`` counts)
    of one state layer on one rank."""
    text, kind = model.text_config, _state_kind(model)
    if kind == "gdn":
        keys = ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                "linear_value_head_dim", "linear_conv_kernel_dim")
        defaults = _GDN_DEFAULTS.get(model.text_model_type, _GDN_DEFAULT)
        k_heads, v_heads, k_dim, v_dim, kernel = (
            int(text[k]) if text.get(k) is not None else d for k, d in zip(keys, defaults))
        return (*_mamba2_elements(tp, v_heads * v_dim, k_heads, v_heads, v_dim, k_dim,
                                  kernel), True)
    if kind in ("kda", "kda_glm5"):
        linear = (text.get("linear_attn_config") or {}) if kind == "kda" \
            else _glm5_next_linear(text)
        block = _text_block(model) + ("linear_attn_config." if kind == "kda" else "")
        heads, dim, kernel = (_state_int(model, linear, key, default, block) for key, default
                              in (("num_heads", None), ("head_dim", None),
                                  ("short_conv_kernel_size", 4)))
        return ((kernel - 1) * 3 * (heads * dim // tp), heads // tp * dim * dim, False)
    if kind == "short_conv":
        cache = _state_int(model, text, "conv_L_cache", 3)  # the class default (LFM2)
        return int(text.get("hidden_size")) // tp * (cache - 1), 0, True
    if kind == "mamba1":
        # the conv runs over the inner channels alone (B and C come after it), and each
        # channel keeps a full-rank state row: heads of width one, sharded over TP
        get = {**_MAMBA1_DEFAULTS, **{k: v for k, v in text.items() if v is not None}}.get
        inner = int(get("intermediate_size") or int(get("expand")) * int(text["hidden_size"]))
        return (inner // tp * (int(get("conv_kernel")) - 1), inner // tp * int(get("state_size")),
                True)
    if kind == "cca":
        return _cca_elements(model, tp), 0, False
    model_type = model.text_model_type
    if model_type == "falcon_h1":
        given = {k: v for k, v in text.items() if v is not None}
        get = {**HYBRID_MAMBA2_DEFAULTS["falcon_h1"], **given}.get
        heads = int(get("mamba_n_heads"))
        inner = int(get("mamba_d_ssm") or int(get("mamba_expand")) * int(text["hidden_size"]))
        head_dim = get("mamba_d_head")
        head_dim = inner // heads if head_dim in (None, "auto") else int(head_dim)
        return (*_mamba2_elements(tp, inner, int(get("mamba_n_groups")), heads, head_dim,
                                  int(get("mamba_d_state")), int(get("mamba_d_conv"))), True)
    if model_type == "nemotron_h":
        # SGLang's config class stores its own spellings (mamba_n_groups, mamba_d_conv) but
        # sizes the state from ``n_groups`` and ``conv_kernel``: the Hub files' keys, which
        # land on the config as given (``conv_kernel`` over mamba_d_conv's default 4)
        heads, head_dim, state = (_state_int(model, text, key, None) for key in (
            "mamba_num_heads", "mamba_head_dim", "ssm_state_size"))
        groups = _state_int(model, text, "n_groups" if "n_groups" in text else
                            "mamba_n_groups", 8)
        kernel = _state_int(model, text, "conv_kernel" if "conv_kernel" in text else
                            "mamba_d_conv", 4)
        return (*_mamba2_elements(tp, heads * head_dim, groups, heads, head_dim, state,
                                  kernel), True)
    # Granite-4.0-H: SGLang's own config class fills a key the file leaves out; one the file
    # sets to null or a non-integer reaches the state's shape arithmetic, which stops
    heads, expand, groups, head_dim, state, conv = (
        _state_int(model, text, key, HYBRID_MAMBA2_DEFAULTS["granitemoehybrid"][key])
        for key in ("mamba_n_heads", "mamba_expand", "mamba_n_groups", "mamba_d_head",
                    "mamba_d_state", "mamba_d_conv"))
    return (*_mamba2_elements(tp, expand * int(text["hidden_size"]), groups, heads, head_dim,
                              state, conv), False)


#: ZayaConfig's defaults for the keys its CCA state shape reads
_CCA_DEFAULTS = {"num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 128,
                 "cca_time0": 2, "cca_time1": 2, "hidden_size": 2048}


def _cca_elements(model: Any, tp: int) -> int:
    """Conv-state elements of one ZAYA1 attention layer on one rank
    (``ZayaConfig.mamba2_cache_params``): the rank's q and k channels over both convs'
    left padding (``cca_time0 - 1 + cca_time1 - 1`` steps), and the previous hidden state,
    whole on every rank. No temporal state."""
    text = model.text_config
    heads, kv, head_dim, t0, t1, hidden = (_state_int(model, text, key, default)
                                           for key, default in _CCA_DEFAULTS.items())
    return (heads + kv) * head_dim // tp * (t0 - 1 + t1 - 1) + hidden


def _text_block(model: Any) -> str:
    """The prefix naming a text-model key where the file holds it (``text_config.`` or none)."""
    return "text_config." if isinstance(model.config.get("text_config"), Mapping) else ""


def _state_int(model: Any, block: Mapping[str, Any], key: str, default: int | None,
               prefix: str = "") -> int:
    """An integer the state shape reads: the class default when the file leaves it out
    (``None``: the class has none, so SGLang stops)."""
    value = block.get(key, default)
    number = _as_int(value)
    if number is None:
        missing = key not in block
        shown = None if missing else _json_kind(None) if value is None else _shown(value)
        raise InputError(f"{model.config_file} field '{prefix}{key}'", "an integer (SGLang "
                         "sizes the recurrent state from it)", shown,
                         "the key is missing" if missing else None)
    return number


class _GdnState:
    """The per-request recurrent state of every linear-attention (or Mamba) layer: a
    causal-conv window and a state matrix, head-sharded over attention TP, shaped per
    family (``_state_elements``). SGLang gives it ``mamba_full_memory_ratio / (1 + ratio)``
    of the budget (or as many slots as asked), before the KV pool takes the rest."""

    def __init__(self, plan: _Plan) -> None:
        self.plan = plan
        v, text = plan.v, plan.model.text_config
        tp = plan.tp if v("enable_cp_tp_group_sharing") else plan.attn_tp
        conv, temporal, config_dtype = _state_elements(plan.model, tp)
        env = plan.env
        conv_dtype = env.get("SGLANG_MAMBA_CONV_DTYPE", "bfloat16")
        ssm_dtype = (v("mamba_ssm_dtype") or env.get("SGLANG_MAMBA_SSM_DTYPE")
                     or (text.get("mamba_ssm_dtype") if config_dtype else None) or "float32")
        state_layers = _state_layers(plan.model)[0]
        self.layers = len(state_layers)
        self.per_slot = (conv * _STATE_DTYPE_BYTES.get(conv_dtype, 2)
                         + temporal * _STATE_DTYPE_BYTES.get(ssm_dtype, 4)) * self.layers
        self.stage_layers = _largest_stage_share(plan, state_layers)
        #: what a slot costs on one rank: under PP, the largest stage's share of the layers
        self.stage_per_slot = self.per_slot if self.stage_layers == self.layers \
            else int(self.per_slot * (self.stage_layers / max(self.layers, 1)))
        self.ratio = self._slots_per_request()
        self.slots = 0

    def _slots_per_request(self) -> int:
        v = self.plan.v
        if v("disable_radix_cache"):
            return 1
        skip_lock = self.plan.result.record.env_flag("SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK")
        base = MAMBA_SLOTS_PER_REQUEST - (1 if skip_lock else 0)
        strategy = v("mamba_radix_cache_strategy")
        if strategy in ("extra_buffer", "extra_buffer_lazy"):
            if strategy == "extra_buffer_lazy":
                return base + 1
            return base + (1 if v("disable_overlap_schedule") else 2)
        return base + (1 if skip_lock else 0)

    def reserve(self, rest_gib: float, steps: list | None) -> float:
        """Set the slot count and return what is left for the KV pool (GiB)."""
        v, plan = self.plan.v, self.plan
        per_slot = self.stage_per_slot
        draft_tokens = v("speculative_num_draft_tokens")
        spec = plan.spec is not None and v("disaggregation_mode") != "prefill"
        asked_reqs = v("max_running_requests")
        if steps is not None:
            steps.append((f"linear-attention state per request slot ({self.layers} layers, bytes)",
                          self.per_slot))
            if per_slot != self.per_slot:
                steps.append((f"of which the largest pipeline stage holds ({self.stage_layers} "
                              "layers, bytes)", per_slot))
        if v("max_mamba_cache_size") is not None:
            self.slots = int(v("max_mamba_cache_size")) // plan.attn_dp
            if spec:
                reqs = min(plan.requests_per_rank(asked_reqs), self.slots // self.ratio)
                rest_gib -= per_slot * (reqs + 1) * draft_tokens / GIB
        elif v("disable_radix_cache") and asked_reqs is not None:
            self.slots = plan.requests_per_rank(asked_reqs)
            if spec:
                rest_gib -= per_slot * (self.slots + 1) * draft_tokens / GIB
        else:
            share = float(v("mamba_full_memory_ratio"))
            budget = rest_gib * share / (1 + share) * GIB
            if spec:
                tokens = draft_tokens
                self.slots = int((budget - per_slot * (1 + tokens))
                                 // (per_slot * (1 + tokens / self.ratio)))
                reqs = min(plan.requests_per_rank(asked_reqs), self.slots // self.ratio)
                rest_gib -= per_slot * (reqs + 1) * tokens / GIB
            else:
                self.slots = int((budget - per_slot) // per_slot)
        if self.slots <= 0:
            raise NotEnoughMemory(
                "not enough memory for the linear-attention state cache: lower "
                "--max-running-requests or raise --mem-fraction-static")
        if steps is not None:
            steps.append(("state slots (max_mamba_cache_size)", self.slots))
        rest_gib -= (self.slots + 1) * per_slot / GIB
        return rest_gib


def _largest_stage_share(plan: _Plan, layers: list[int]) -> int:
    """The most state layers one pipeline stage holds: SGLang 0.5.23 prices a state slot by
    that share of the layers on every rank (``mem_cache/kv_cache_configurator.py``,
    ``KVCacheConfigurator._handle_max_mamba_cache``, over ``get_pp_indices`` of
    ``num_hidden_layers`` for each rank)."""
    if plan.pp <= 1 or not layers:
        return len(layers)
    return max(sum(1 for i in layers if i in stage) for stage in _stages_of(plan))


def _stages_of(plan: _Plan) -> list[range]:
    """Each pipeline rank's layers: ``get_pp_indices``' split of ``num_hidden_layers``
    (``SGLANG_PP_LAYER_PARTITION`` included), as the model classes and the state pricing
    take it."""
    from launchplan.memory.weights import pp_partition, pp_stages

    env = plan.env
    partition = pp_partition(env.get("SGLANG_PP_LAYER_PARTITION")) if env else None
    return pp_stages(int(plan.model.num_hidden_layers or 0), plan.pp, partition)


def _pp_split(plan: _Plan) -> list[range] | None:
    """The pipeline ranks' layer ranges when each rank's pools hold only its own layers
    (MHA, MLA, DSA, a hybrid model's full-attention layers, sliding-window and DeepSeek-V4
    pools); None where SGLang sizes every stage for every layer (a class without a stage
    range) or the pool is one not split here (MiniMax sparse, sliding-window layers not
    known: a caveat says so)."""
    model, facts = plan.model, plan.facts
    if not keeps_stage_range(model) or facts.minimax_sparse:
        return None
    if plan.hybrid_swa and not facts.dsv4 and not _layer_split(model)[0]:
        return None  # its sliding-window layers unknown: one pool of every layer (a caveat)
    if facts.dsv4 and not plan.hybrid_swa:
        return None
    layers = int(model.num_hidden_layers or 0)
    if not facts.state and (layers <= 0 or facts.kv_layers % layers):
        return None  # a pool whose layers are not the stack's (or its loops'): not split
    return _stages_of(plan)


def _stage_kv_layers(plan: _Plan, stage: range) -> tuple[int, list[int] | range]:
    """(KV layers, their global ids) of one pipeline stage's pool: a hybrid model's
    full-attention layers in the stage, else the stage's layers (times a loop model's
    loops: ``resolve_layer_indices``' ``num_effective_layers``)."""
    if plan.facts.state:
        ids = [i for i in _state_layers(plan.model)[1] if i in stage]
        return len(ids), ids
    loops = plan.facts.kv_layers // int(plan.model.num_hidden_layers)
    return len(stage) * loops, stage


class _Dsv4Stage(Dsv4Pool):
    """DeepSeek-V4's pools of one pipeline rank: its stage's layers and the compressed-
    storage owners among them (``collect_sources_by_ratio`` over the stage), the draft's
    inflation over the stage's layers too."""

    def __init__(self, plan: _Plan, rank: int) -> None:
        super().__init__(plan)
        stage = plan.stages[rank]
        text = plan.model.text_config
        ratios = [int(r) for r in (text.get("compress_ratios") or ())]
        ratios = ratios[:int(plan.model.num_hidden_layers or 0)]
        local = ratios[stage.start:stage.stop]
        sources = [int(i) - stage.start for i in text.get("kv_source_layer_ids") or ()
                   if int(i) in stage]
        self.layers = len(local)
        self.owners = owners_by_ratio(local, sources)
        hip = plan.target.is_hip
        self.rings = {r: ring_size(r, self.draft_tokens, self.online and not hip)
                      for r in self.owners if r != 1}
        self.swa_bytes = self._swa_bytes()
        self.full_bytes = self._full_bytes()
        if self.spec and self.layers:
            inflation = (self.layers + 1) / self.layers
            self.full_bytes *= inflation
            self.swa_bytes *= inflation
        self.cell = self.full_bytes
        self.rank = rank

    def describe(self) -> list[tuple[str, Any]]:
        return [_stage_step(self.plan, self.rank, "layers"), *super().describe()]


def _stage_step(plan: _Plan, rank: int, what: str, count: int | None = None
                ) -> tuple[str, Any]:
    """The step naming the pipeline rank whose pools bind, and its layers."""
    stage = plan.stages[rank]
    return (f"pipeline rank {rank} of {plan.pp} (the fewest tokens: every rank's): layers "
            f"{stage.start}-{stage.stop - 1}, {what}",
            len(stage) if count is None else count)


def _binding_stage(plan: _Plan, budget: int, explain: bool) -> Any:
    """The pipeline rank whose pool sets every rank's: each sizes its own layers' pool from
    the same budget, its token count capped by --max-total-tokens, and SGLang's scheduler
    takes the smallest over the stages (a MIN all-reduce in ``KVCacheConfigurator.
    _apply_token_constraints``; the first such rank here). A stage without KV layers binds
    nothing (SGLang gives it an unbounded count), unless capped."""
    cap = plan.v("max_total_tokens")
    page = plan.page
    best: Any = None
    best_tokens: int | None = None
    two_pools = plan.hybrid_swa and (plan.facts.dsv4 or _layer_split(plan.model)[0])
    for rank in range(len(plan.stages)):
        if two_pools:  # its tokens: what its own sizing gives (capped there)
            sizer = _Dsv4Stage(plan, rank) if plan.facts.dsv4 \
                else _SwaRequestCap(plan, rank) if _request_cap_applies(plan) \
                else _HybridSwa(plan, rank)
            tokens = sizer.size(budget, None)["max_total_num_tokens"]
            if best is None or tokens < best_tokens:
                best, best_tokens = sizer, tokens
            continue
        sizer = _Default(plan, explain, rank)
        tokens = budget // sizer.cell // page * page if sizer.cell else None
        if cap is not None and (tokens is None or cap < tokens):
            tokens = cap
        if best is None or (tokens is not None
                            and (best_tokens is None or tokens < best_tokens)):
            best, best_tokens = sizer, tokens
    return best


# --- requests and graphs ----------------------------------------------------------------------

def _max_running_requests(plan: _Plan, capacity: int, steps: list | None,
                          mamba: _GdnState | None = None) -> int:
    context = plan.model.context_len
    estimate = _estimate(capacity, context)
    half = capacity // 2
    asked = plan.v("max_running_requests")
    if asked is not None:
        per_worker = plan.requests_per_rank(asked)
        reqs = half if half < per_worker else per_worker
        if steps is not None:
            steps.append((f"max_running_requests = min({per_worker} per attention-DP worker, "
                          "tokens // 2)", reqs))
    else:
        reqs = half if half < estimate else estimate
        if steps is not None:
            steps.append((f"max_running_requests = min(tokens / context {context} x 512 "
                          "in [2048, 4096], tokens // 2)", reqs))
    if mamba is not None:
        cap = mamba.slots // mamba.ratio
        if cap < reqs:
            reqs = cap
            if steps is not None:
                steps.append((f"capped by the state slots: {mamba.slots} // {mamba.ratio} per "
                              "request", reqs))
        if reqs <= 0:
            raise NotEnoughMemory(
                f"the linear-attention state cache ({mamba.slots} slots, {mamba.ratio} per "
                "request) cannot serve one request: lower --max-running-requests or raise "
                "--mem-fraction-static")
    if reqs <= 0:  # SGLang stops capturing CUDA graphs for 0 requests
        if asked is not None and plan.requests_per_rank(asked) <= 0:  # 0.5.22 and 0.5.21
            raise NotEnoughMemory(
                f"--max-running-requests {asked} leaves no request for each of the "
                f"{plan.attn_dp} attention-DP ranks: give it one per rank at least")
        raise NotEnoughMemory(f"a pool of {capacity} tokens holds no request: raise "
                              "--mem-fraction-static")
    return reqs


#: the start of the problem ``_check_capture`` raises (the preflight row words it apart)
NO_CAPTURE_SIZE = "no decode CUDA-graph batch size survives"


def _check_capture(plan: _Plan, max_reqs: int) -> None:
    """Raise ``NotEnoughMemory`` when CUDA graphs are on and no decode batch size survives:
    SGLang 0.5.23 rounds the request pool up to the alignment (attention TP under attention
    DP, x2 under two-batch overlap), keeps only multiples of it and asserts the list is not
    empty (``model_executor/runner/base_cuda_graph_runner.py``,
    ``get_batch_sizes_to_capture``), so the launch stops at capture."""
    from launchplan.rules.size_lists import SizeList

    if _capture_sizes(plan, max_reqs):
        return
    decode = (plan.v("cuda_graph_config") or {}).get("decode") or {}
    given = decode.get("bs")
    if decode.get("backend") == "disabled" or given is None \
            or (not isinstance(given, SizeList) and not given):
        return  # no decode graph is captured (--disable-cuda-graph)
    align = _graph_alignment(plan)
    gathered = _gathered_buffer(plan) and plan.attn_tp > 1
    tbo = bool(plan.v("enable_two_batch_overlap"))
    why = [f"attention TP {plan.attn_tp} under attention DP"] if gathered else []
    if tbo:
        why.append("two-batch overlap's 2")
    if align != (plan.attn_tp if gathered else 1) * (2 if tbo else 1):
        why.append(f"attention CP {plan.attn_cp}")
    raise NotEnoughMemory(
        f"{NO_CAPTURE_SIZE}: {max_reqs} request(s) per rank, and SGLang keeps only batch "
        f"sizes that are multiples of {align} ({' x '.join(why) or 'the capture alignment'})"
        ", so its CUDA-graph capture asserts at start-up: give --max-running-requests "
        f"{align} or more (a multiple of {align}), or --disable-cuda-graph")


def _capture_sizes(plan: _Plan, max_reqs: int) -> list[int]:
    """Decode CUDA-graph batch sizes kept once the request pool holds ``max_reqs``."""
    from launchplan.rules.size_lists import SizeList

    decode = (plan.v("cuda_graph_config") or {}).get("decode") or {}
    given = decode.get("bs")
    if given is None or (not isinstance(given, SizeList) and not given):
        return []
    cap = _paged_experts_cap(plan, decode)
    if cap is not None:
        given = sorted({bs for bs in given if bs <= cap} | {min(cap, max(given))})
    align = _graph_alignment(plan)
    limit = -(-max_reqs // align) * align
    if type(given) is list and max(given) <= limit:  # the common case: every size kept
        return sorted({bs for bs in given if bs % align == 0})
    sizes: list[int] = []
    over = False
    for bs in given:  # a described list ascends: stop at the limit instead of walking it
        if bs > limit:
            over = True
            if isinstance(given, SizeList):
                break
            continue
        sizes.append(bs)
    if over:
        sizes.append(limit)
    return sorted({bs for bs in sizes if bs % align == 0 and bs <= limit})


def _paged_experts_cap(plan: _Plan, decode: Any) -> int | None:
    """The largest decode graph paged experts keep: with a full decode graph, SGLang's first
    MoE layer caps the capture sizes at ``resident // top_k`` requests (at least one), the
    batches whose routed experts fit the resident slots at once, when the model is built
    (``layers/moe/paged_experts/method.py``, ``_cap_decode_capture_batch_sizes``), before
    the pool's request cap trims them. None: no cap."""
    v = plan.v
    if v("enable_paged_experts") is not True or decode.get("backend") != "full":
        return None
    from launchplan.checks.launch_requirements import routed_experts
    from launchplan.checks.offloaded_experts import router_top_k

    resident, top_k = v("paged_experts_num_resident"), router_top_k(plan.model)
    if type(resident) is not int or top_k is None or not routed_experts(plan.model):
        return None
    return max(1, resident // top_k)


def _graph_alignment(plan: _Plan) -> int:
    v = plan.v
    align = 2 if v("enable_two_batch_overlap") else 1
    if _gathered_buffer(plan):
        align *= plan.attn_tp
    if not plan.target.is_hip and align % plan.attn_cp:
        align *= plan.attn_cp
    return align


def _gathered_buffer(plan: _Plan) -> bool:
    v = plan.v
    a2a = v("moe_a2a_backend") or "none"
    dense_tp = v("moe_dense_tp_size")
    # 0.5.21 reports attention DP as dp_size with the switch on: those are no replicas
    replicas = 1 if v("enable_dp_attention") else int(v("dp_size") or 1)
    dp_ranks = replicas * plan.attn_dp
    if plan.attn_dp > 1:
        if dense_tp is None or not v("enable_dp_lm_head") or a2a == "none":
            return True
        if a2a in ("flashinfer", "mori_epv2", "flashinfer_megamoe"):
            return True
        if dense_tp > plan.tp // dp_ranks:
            return True
    if v("disable_attn_tp_gather"):
        return False
    if a2a != "none" or dense_tp is not None:
        return dp_ranks < plan.tp if plan.attn_dp > 1 else True
    return False
