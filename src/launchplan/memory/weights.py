"""Weights per GPU: the checkpoint's tensors, their bytes, and each GPU's share.

The parameter count comes from ``config.json`` (``params.py``), the bytes per tensor from
the dtype and the checkpoint's quantization (``quant_bytes.py``), and the share per GPU from
how SGLang 0.5.23 shards each kind of tensor:

* attention projections split over the attention TP group (``tp / (attn_dp x attn_cp)``:
  with attention DP, attention weights repeat in every DP group); K/V heads are
  replicated when that group is larger than the model's KV heads; MLA's down-projections
  (``q_a_proj``, ``kv_a_proj_with_mqa``) and every norm are replicated;
* dense MLPs split over TP (DeepSeek-style first-k dense layers over ``moe_dense_tp_size``:
  replicated when it is 1); shared experts over TP, or replicated under an all-to-all MoE
  backend (DeepEP and friends);
* routed experts: ``ceil((E + redundant) / ep)`` experts per EP rank, each split over the
  ``tp / (ep x moe_dp)`` MoE-TP group; routers are replicated; a shared expert fused into
  the MoE (DeepSeek-V3/R1 under EP on AMD) sits on every EP rank, split over MoE-TP;
* the vocabulary-parallel embedding and LM head split over TP (vocabulary padded to a
  multiple of 64; the head over the attention-TP group with ``--enable-dp-lm-head``);
* pipeline stages hold contiguous layer ranges (``SGLANG_PP_LAYER_PARTITION`` or SGLang's
  even split with the remainder on the last stages); the embedding sits on the first stage,
  the final norm and LM head on the last. The plan reports the most loaded GPU.

The speculative draft is a separate figure: an EAGLE/EAGLE3 draft checkpoint's own layers
(the embedding, and the LM head unless EAGLE3 brings a reduced-vocabulary one, are shared
with the target), or the MTP layers of a DeepSeek-style checkpoint, sharded like the target.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from functools import partial
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from launchplan.facts.environment import flag, plain_flag
from launchplan.facts.memo import per_object
from launchplan.facts.quantization import (
    QuantPlatform,
    checkpoint_override,
    fp8_held_experts,
    hybrid_nvfp4_experts,
    mxfp4_routed_experts,
)
from launchplan.memory.moe_padding import NONE, ExpertPadding, _up, expert_padding
from launchplan.memory.params import ATTN_HEADS, Layout, Tensor, built_text_type, layout
from launchplan.memory.quant_bytes import Ignored, Scheme, ignored, marlin_repacked, scheme_of
from launchplan.memory.vision import ATTN as VISION_ATTN
from launchplan.memory.vision import HEADS as VISION_HEADS
from launchplan.memory.vision import POS as VISION_POS
from launchplan.memory.vision import POS_KINDS
from launchplan.memory.vision import POS_TP as VISION_POS_TP
from launchplan.memory.vision import TP as VISION_TP
from launchplan.memory.vision import group as vision_group
from launchplan.struct import Struct

if TYPE_CHECKING:
    from launchplan.engine.result import Result
    from launchplan.facts.models import ModelFacts

_DTYPE_BYTES = {"float32": 4, "float": 4, "fp32": 4, "float64": 8, "bfloat16": 2, "float16": 2,
                "half": 2, "fp16": 2, "bf16": 2, "float8_e4m3fn": 1, "fp8": 1}
#: methods that quantize a non-quantized checkpoint at load time (online), and their storage
_ONLINE = {"fp8": Scheme("fp8", "fp8_tensor"), "w8a8_fp8": Scheme("w8a8_fp8", "fp8_channel"),
           "w8a8_int8": Scheme("w8a8_int8", "fp8_channel"),
           "modelopt_fp8": Scheme("modelopt_fp8", "fp8_tensor", static_input=True)}
#: speculative algorithms whose draft is the target checkpoint's own MTP layers by default
_MTP_ALGOS = frozenset({"EAGLE", "NEXTN", "MTP", "EAGLE3"})
#: model types whose embedding shards over the attention-TP group under attention DP
#: (qwen2.py, qwen2_moe.py, gpt_oss.py; the DeepSeek family through get_embedding_tp_kwargs)
_ATTN_TP_EMBED = ("qwen2", "qwen3", "gpt_oss")


class WeightPlan(Struct):
    """What the weights take: totals, the most loaded GPU, and the draft's share."""

    total_params: int  # parameters SGLang loads for the target model
    checkpoint_params: int  # everything the checkpoint stores (MTP layers included)
    bytes_total: int  # the target's weights as loaded, one unsharded copy
    checkpoint_bytes: int  # predicted size of the checkpoint's tensors (safetensors total)
    bytes_per_gpu: int  # the most loaded GPU
    draft_params: int  # the speculative draft's own parameters (0 without one)
    draft_bytes_per_gpu: int
    breakdown: Mapping[str, int]  # component -> bytes on the most loaded GPU
    quantization: str | None  # the storage scheme of quantized matrices
    caveats: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"total_params": self.total_params, "bytes_total": self.bytes_total,
                "bytes_per_gpu": self.bytes_per_gpu, "draft_params": self.draft_params,
                "draft_bytes_per_gpu": self.draft_bytes_per_gpu,
                "checkpoint_bytes": self.checkpoint_bytes,
                "breakdown": dict(self.breakdown), "quantization": self.quantization,
                "caveats": list(self.caveats)}


class Parallel(NamedTuple):
    """The sharding that decides each GPU's share (SGLang's resolved parallel sizes)."""

    tp: int = 1
    pp: int = 1
    ep: int = 1
    attn_tp: int = 0  # 0: same as tp
    dense_tp: int = 0  # DeepSeek first-k dense layers (moe_dense_tp_size); 0: tp
    lm_head_tp: int = 0  # 0: tp
    embed_tp: int = 0  # 0: tp
    moe_dp: int = 1  # MoE data parallel: experts repeat in each MoE-DP group
    redundant_experts: int = 0
    shared_experts_replicated: bool = False
    shared_experts_fused: bool = False  # one more expert on every EP rank, over MoE-TP
    pp_partition: tuple[int, ...] | None = None
    #: routed experts a GPU holds per MoE layer when the rest live elsewhere (paged experts'
    #: resident slots, KTransformers' GPU experts); None: all its local experts
    resident_experts: int | None = None
    #: ``--mm-enable-dp-encoder``: a tower that reads it is whole on every GPU (``vision.py``)
    encoder_dp: bool = False
    dp_attention: bool = False  # attention DP (a vision position table's group, ``vision.py``)
    #: the fused shared expert is off the GPU: KTransformers' GPU experts stop short of its id
    #: (only with resident experts, which the written-out sums (``_prologue``) never see)
    shared_experts_offloaded: bool = False

    def group(self, kind: str) -> int:
        if kind in ("attn_tp", "kv"):
            return self.attn_tp or self.tp
        if kind == "dense":
            return self.dense_tp or self.tp
        if kind == "head":
            return self.lm_head_tp or self.tp
        if kind == "vocab":
            return self.embed_tp or self.tp
        if kind == "shared":
            if self.shared_experts_fused:
                return max(1, self.tp // max(1, self.ep) // max(1, self.moe_dp))
            return 1 if self.shared_experts_replicated else self.tp
        if kind in ("tp", "experts"):
            return self.tp
        if kind.startswith("vision_"):
            return vision_group(kind, self.tp, self.attn_tp or self.tp, self.encoder_dp,
                                self.dp_attention)
        return 1


# --- public API ------------------------------------------------------------------------------

@per_object
def checkpoint_size(model: ModelFacts) -> tuple[int, int]:
    """(parameters, bytes) the checkpoint stores: its dtype, its quantization, MTP included.

    An EAGLE draft checkpoint stores its own layers and ``fc`` plus (assumed) a copy of the
    token embedding; an EAGLE3 one its layer, ``fc``, reduced LM head and the two vocabulary
    maps (``d2t`` int64, ``t2d`` bool), counted as parameters of one and a half bytes here.
    """
    lay = _layout(model)
    scheme, ign = _checkpoint_scheme(model)
    unq = _dtype_bytes(_checkpoint_dtype(model))
    tensors = ([t for t in lay.main if not t.padding] + [t for t in lay.mtp if not t.padding]
               + list(lay.stored_only))
    kind = _eagle_kind(model)
    if kind:
        tensors = list(_draft_layout(model))
        if kind == "eagle":
            tensors += [t for t in lay.main if t.component == "embedding"]
        else:
            vocab = model.vocab_size or 0
            draft_vocab = model.text_config.get("draft_vocab_size") or vocab
            maps = (8 * draft_vocab + vocab) / unq  # d2t int64 + t2d bool, in dtype units
            tensors += [Tensor("d2t_t2d", "draft_maps", (round(maps), 1))]
    total = sum(_bytes(t, scheme, ign, unq) for t in tensors)
    return sum(t.params for t in tensors), int(round(total))


_SINGLE = Parallel()


def plan_weights(model: ModelFacts, par: Parallel = _SINGLE, *, dtype: str | None = None,
                 quantization: str | None = None, draft: ModelFacts | None = None,
                 mtp_draft: bool = False, pad: ExpertPadding = NONE,
                 fp8_experts: bool = False, extras: int = 0) -> WeightPlan:
    """Weights of ``model`` under ``par``; ``dtype``/``quantization`` are SGLang's flags.

    ``draft`` is a separate draft checkpoint's facts; ``mtp_draft`` means the draft is the
    target's own MTP layers (DeepSeek-style NextN). ``pad`` is how the MoE kernel that will
    run the routed experts rounds their buffers (``moe_padding.py``). ``fp8_experts``: the
    routed experts an FP8 checkpoint packs as MXFP4 are held as FP8
    (``facts.quantization.fp8_held_experts``). ``extras``: what loading leaves beside the
    checkpoint's tensors on this platform (``FP8_ABSORBED``, ``MOE_INDEX``).
    """
    key = (id(model), par, dtype, quantization, id(draft), mtp_draft, pad, fp8_experts,
           extras)
    hit = _PLANS.get(key)
    if hit is not None and hit[0] is model and hit[1] is draft:
        return hit[2]
    plan = _plan(model, par, dtype, quantization, draft, mtp_draft, pad, fp8_experts,
                 extras)
    if len(_PLANS) > 1024:
        _PLANS.clear()
    _PLANS[key] = (model, draft, plan)  # holding both keeps their ids unique
    return plan


_PLANS: dict[tuple[Any, ...], tuple[Any, Any, WeightPlan]] = {}


def forget() -> None:
    """Drop the weight plans and figures remembered per launch (``memory.plan.forget``)."""
    _PLANS.clear()
    _BYTES.clear()


def _plan(model: ModelFacts, par: Parallel, dtype: str | None, quantization: str | None,
          draft: ModelFacts | None, mtp_draft: bool, pad: ExpertPadding,
          fp8_experts: bool = False, extras: int = 0) -> WeightPlan:
    caveats: list[str] = []
    st = _stored(model, quantization, dtype, fp8_experts, extras)
    caveats += st.notes
    scheme, ign, unq = st.scheme, st.ign, st.unq
    ck_params, ck_bytes = checkpoint_size(model)
    main = _table(st.tensors, scheme, ign, unq)
    per_gpu, breakdown = _per_gpu(model, st.tensors, par, scheme, ign, unq, pad)
    draft_params, draft_gpu = _draft_share(model, par, dtype, draft, mtp_draft, pad,
                                           scheme, ign, unq, caveats, own=st.own_mtp)
    return WeightPlan(
        total_params=main.params, checkpoint_params=ck_params,
        bytes_total=int(round(main.loaded)), checkpoint_bytes=ck_bytes,
        bytes_per_gpu=int(round(per_gpu)), draft_params=draft_params,
        draft_bytes_per_gpu=int(round(draft_gpu)),
        breakdown={k: int(round(v)) for k, v in breakdown.items() if v},
        quantization=scheme.name if scheme else None, caveats=tuple(caveats))


def _figures(model: ModelFacts, par: Parallel, dtype: str | None, quantization: str | None,
             draft: ModelFacts | None, mtp_draft: bool, pad: ExpertPadding,
             fp8_experts: bool = False, extras: int = 0
             ) -> tuple[int, int, tuple[str, ...]]:
    """``_plan``'s per-GPU figures and caveats alone: the model's stored tables (per-model
    facts, ``_stored``) times this launch's shares. (``round`` of a number is an int.)"""
    st = _stored(model, quantization, dtype, fp8_experts, extras)
    hidden, inter = pad
    padded = hidden > 1 or inter > 1
    memo: dict[Any, Any] = {}  # padded expert shapes and bytes, shared by target and draft
    if par.pp <= 1:  # ``_one_stage_sum``
        per_gpu = _summed(model, st.main, par, st.scheme, st.unq, pad, memo,
                          _GROUPS_PADDED if padded else _GROUPS)
    else:
        per_gpu = _per_gpu_staged(model, st.tensors, par, st.scheme, st.ign, st.unq, pad)[0]
    if draft is None:
        if not mtp_draft:
            return round(per_gpu), 0, st.caveats
        if st.mtp is not None:  # the checkpoint's own MTP layers (``_draft_share``)
            draft_gpu = _summed(model, st.mtp, par, st.scheme, st.unq, pad, memo,
                                _FLAT_PADDED if padded else _FLAT)  # ``_flat_sum``
            draft_gpu += _flat_share(model, _own_copies(model), par, None, st.ign, st.unq,
                                     NONE, memo)
            return round(per_gpu), round(draft_gpu), st.caveats
    caveats = list(st.caveats)
    _, draft_gpu = _draft_share(model, par, dtype, draft, mtp_draft, pad, st.scheme, st.ign,
                                st.unq, caveats, memo, st.own_mtp)
    return round(per_gpu), round(draft_gpu), tuple(caveats)


class _Stored:
    """A model's weights under one storage (``--quantization``, ``--dtype``): its scheme,
    unquantized modules, dtype bytes, the caveats they bring, and the byte tables of its
    tensors. Per-model facts, made once, like the parsed config."""

    __slots__ = ("model", "scheme", "ign", "unq", "notes", "caveats", "tensors", "own_mtp",
                 "main", "mtp", "sums")

    def __init__(self, model: ModelFacts, quantization: str | None, dtype: str | None,
                 fp8_experts: bool = False, extras: int = 0) -> None:
        lay = _layout(model)
        notes = list(lay.caveats)
        if model.config_dtype is None:
            notes.append("config.json names no torch_dtype: checkpoint tensors assumed bf16")
        scheme, ign = _runtime_scheme(model, quantization, notes, fp8_experts)
        if extras & MARLIN_GPTQ and scheme is not None and scheme.kind == "int_group":
            scheme = marlin_repacked(scheme, bool((model.quant_config or {}).get("desc_act")))
        unq = _dtype_bytes(model.dtype if dtype in (None, "auto") else dtype)
        self.model, self.scheme, self.ign, self.unq = model, scheme, ign, unq
        self.notes, self.caveats = notes, tuple(notes)
        #: the target's layers and the MTP layers a speculative draft loads from this
        #: checkpoint (``_own_mtp``), MLA's absorbed copies as this storage keeps them
        self.tensors, self.own_mtp = (_with_extras(model, extras) if extras & _LAYOUT_EXTRAS
                                      else (lay.main, _own_mtp(model)))
        self.main = _table(self.tensors, scheme, ign, unq)
        self.mtp = _table(self.own_mtp, scheme, ign, unq) if lay.mtp else None
        #: written-out sums of these tables (``_stored_summer``), made on first use
        self.sums: dict[int, Any] = {}


#: components built outside the LM's layer stack (encoders, towers, the RoPE table)
_OUTSIDE_LAYERS = frozenset({"vision", "audio", "text_encoder", "rope_cache"})


def _stored(model: ModelFacts, quantization: str | None, dtype: str | None,
            fp8_experts: bool = False, extras: int = 0) -> _Stored:
    key = (id(model), quantization, dtype, fp8_experts, extras)
    hit = _STORAGES.get(key)
    if hit is None or hit.model is not model:
        hit = _Stored(model, quantization, dtype, fp8_experts, extras)
        if len(_STORAGES) >= 1024:
            _STORAGES.clear()
        _STORAGES[key] = hit  # holding the model keeps its id unique
    return hit


def _storage(model: ModelFacts, quantization: str | None, dtype: str | None,
             caveats: list[str], fp8_experts: bool = False
             ) -> tuple[Scheme | None, Ignored, int]:
    """(scheme, unquantized modules, dtype bytes) of the target's weights; ``caveats``
    gets the layout's and the storage's."""
    st = _stored(model, quantization, dtype, fp8_experts)
    caveats += st.notes
    return st.scheme, st.ign, st.unq


#: (model id, --quantization, --dtype, FP8 experts?, FP8 absorbed copies?) -> how a model's
#: weights are stored under each
#: storage flag (per-model facts, as ``_TABLES``)
_STORAGES: dict[tuple[Any, ...], _Stored] = {}


def _draft_share(model: ModelFacts, par: Parallel, dtype: str | None,
                 draft: ModelFacts | None, mtp_draft: bool, pad: ExpertPadding,
                 scheme: Scheme | None, ign: Ignored, unq: int, caveats: list[str],
                 memo: dict[Any, Any] | None = None, own: list[Tensor] | None = None
                 ) -> tuple[int, float]:
    """(the draft's parameters, its bytes per GPU); 0s without one. ``own``: the MTP
    layers as the storage keeps them (``_Stored.own_mtp``), else ``_own_mtp``."""
    if draft is not None:
        d_lay = _draft_layout(draft)
        d_scheme, d_ign = _runtime_scheme(draft, None, caveats)
        d_unq = _dtype_bytes(draft.dtype if dtype in (None, "auto") else dtype)
        return (_table(d_lay, d_scheme, d_ign, d_unq).params,
                _flat_share(model, d_lay, par, d_scheme, d_ign, d_unq, NONE, memo)
                + _flat_share(model, _draft_copies(draft), par, None, d_ign, d_unq, NONE,
                              memo))
    lay = _layout(model)
    if mtp_draft and lay.mtp:
        if own is None:
            own = _own_mtp(model)
        return (_table(own, scheme, ign, unq).params,
                _flat_share(model, own, par, scheme, ign, unq, pad, memo)
                + _flat_share(model, _own_copies(model), par, None, ign, unq, NONE, memo))
    if mtp_draft:
        caveats.append(_no_mtp(model))
    return 0, 0


_NO_MTP = ("speculative MTP draft, but the checkpoint declares no MTP layers launchplan can "
           "count: draft weights taken as 0")
#: MTP layer counts a config may declare (DeepSeek's and most others', Qwen3.5's, Sarvam's)
_MTP_COUNT_KEYS = ("num_nextn_predict_layers", "mtp_num_hidden_layers", "num_mtp_layers")


@per_object
def _no_mtp(model: ModelFacts) -> str:
    """The caveat of an MTP draft launchplan counts as nothing: a checkpoint that declares
    MTP layers is told apart from one that declares none, so the note does not deny what
    the file says."""
    cfg = model.text_config
    declared = next((key for key in _MTP_COUNT_KEYS
                     if isinstance(cfg.get(key), int) and not isinstance(cfg.get(key), bool)
                     and cfg[key] > 0), None)
    if declared is None:
        return _NO_MTP
    return (f"speculative MTP draft: the checkpoint declares {cfg[declared]} MTP layer(s) "
            f"({declared}), but launchplan does not count {model.arch0 or model.model_type}'s "
            "MTP draft: draft weights taken as 0")
#: ``_Stored.sums`` keys: 0 the target's layers, 1 with padded experts; plus this, with
#: the MTP draft's layers and copies
_FUSED_MTP = 2


def _stored_summer(model: ModelFacts, st: _Stored, kind: int) -> Any:
    """``_Stored.sums[kind]``: the target's one-stage sum (``_one_stage_sum``), and with
    an MTP draft also its MTP layers' flat sum and that of the embedding and head copies
    it holds (``_draft_share``), in one function; None when a table needs the loops."""
    padded = kind & 1
    main = _GROUPS_PADDED if padded else _GROUPS
    if kind < _FUSED_MTP:
        return _fused_summer((st.main,), (main,))
    copies = _table(_own_copies(model), None, st.ign, st.unq)
    return _fused_summer((st.main, st.mtp, copies),
                         (main, _FLAT_PADDED if padded else _FLAT, _FLAT))


def weights_per_gpu(result: Result) -> WeightPlan:
    """The weight plan of a resolved launch (its final tp/ep/pp/DP values and draft)."""
    model, par, dtype, quantization, draft, mtp, pad, fp8, extras = _launch_shape(result)
    return plan_weights(model, par, dtype=dtype, quantization=quantization, draft=draft,
                        mtp_draft=mtp, pad=pad, fp8_experts=fp8, extras=extras)


def weight_bytes(result: Result, sizes: tuple[int, int, int, int, int] | None = None,
                 record: Any = None) -> tuple[int, int, tuple[str, ...]]:
    """(``bytes_per_gpu``, ``draft_bytes_per_gpu``, ``caveats``) of ``weights_per_gpu``:
    what the memory plan needs, without the breakdown and totals. ``sizes``: the launch's
    (tp, pp, ep, attention DP, MoE DP) as ``_launch_shape`` normalises them, when the
    caller has them at hand (``_launch_shape``). ``record``: the launch's, when ``result``
    is its values as a plain ``dict`` (``values.plain_values``).

    Remembered by the sharding the launch's values come to (``_launch_shape``): a sweep's
    launches share a few. (A memo by the values read, before normalising them, cost about
    what ``_launch_shape`` does, found or not.)"""
    model, par, dtype, quantization, draft, mtp, pad, fp8, extras = _launch_shape(
        result, sizes, record)
    key = (id(model), par, dtype, quantization, id(draft), mtp, pad, fp8, extras)
    hit = _BYTES.get(key) if _BYTES else None  # (empty after ``forget``: no hash to take)
    if hit is not None and hit[0] is model and hit[1] is draft:
        return hit[2]
    st = _STORAGES.get((id(model), quantization, dtype, fp8, extras))  # ``_stored``, inline
    if st is None or st.model is not model:
        st = _stored(model, quantization, dtype, fp8, extras)
    if draft is None and par.pp <= 1 and par.resident_experts is None:
        # one stage, no draft checkpoint: one written-out function for the target's layers
        # (and, for an MTP draft, its MTP layers and the copies it holds), per storage
        hidden, inter = pad
        kind = (_FUSED_MTP if mtp and st.mtp is not None else 0) + (hidden > 1 or inter > 1)
        summer = st.sums.get(kind, _UNSET)
        if summer is _UNSET:
            summer = st.sums[kind] = _stored_summer(model, st, kind)
    else:
        summer = None
    if summer is None:  # (``_figures`` says why: the general sums)
        figures = _figures(model, par, dtype, quantization, draft, mtp, pad, fp8, extras)
    elif kind < _FUSED_MTP:
        figures = (round(summer(model, par, pad, st.scheme, st.unq, None)), 0,
                   st.caveats if not mtp else (*st.caveats, _no_mtp(model)))
    else:
        per_gpu, mtp_gpu, copies_gpu = summer(model, par, pad, st.scheme, st.unq, None)
        figures = round(per_gpu), round(mtp_gpu + copies_gpu), st.caveats
    if len(_BYTES) >= 4096:
        _BYTES.clear()
    _BYTES[key] = (model, draft, figures)  # holding both keeps their ids unique
    return figures


#: Every field ``_launch_shape`` reads (a test holds it to that).
SHAPE_NAMES = (
    "tp_size", "attn_dp_size", "enable_dp_attention", "dp_size", "attn_cp_size", "ep_size",
    "moe_dense_tp_size", "moe_a2a_backend", "enable_dp_lm_head", "pp_size", "moe_dp_size",
    "ep_num_redundant_experts", "disable_shared_experts_fusion", "enable_two_batch_overlap",
    "enable_single_batch_overlap", "speculative_algorithm", "speculative_draft_model_path",
    "model_path", "moe_runner_backend", "dtype", "quantization", "enable_paged_experts",
    "paged_experts_num_resident", "kt_weight_path", "kt_num_gpu_experts",
    "mm_enable_dp_encoder")
#: (model id, sharding, dtype, quantization, draft id, MTP?, padding) -> (model, draft,
#: figures). Holding the objects keeps their ids theirs.
_BYTES: dict[tuple[Any, ...], tuple[Any, Any, tuple[int, int, tuple[str, ...]]]] = {}


def _launch_shape(result: Result, sizes: tuple[int, int, int, int, int] | None = None,
                  record: Any = None) -> tuple[Any, ...]:
    """(model, sharding, dtype, quantization, draft, MTP draft?, expert padding, FP8
    experts?, extras): all that decides a launch's weights, from its final values, target and
    environment.
    ``sizes``: (tp, pp, ep, attn_dp_size, moe_dp_size) each as ``_pos`` takes it, when the
    caller has read them already (the memory plan checks them first). ``record``: given
    when ``result`` is a plain ``dict`` of the values (``values.plain_values``)."""
    if record is None:
        v, record = result.value, result.record
    else:
        v = result.__getitem__
    model = record.model
    is_mla, attn_tp_embedding, may_fuse_shared, has_experts, fp4_experts = _model_facts(model)
    if sizes is None:  # each size as ``_pos`` takes it (a positive int, else 1), inline
        tp, pp, ep, attn_dp, moe_dp = (v("tp_size"), v("pp_size"), v("ep_size"),
                                       v("attn_dp_size"), v("moe_dp_size"))
        tp = tp if type(tp) is int and tp > 0 else 1
        pp = pp if type(pp) is int and pp > 0 else 1
        ep = ep if type(ep) is int and ep > 0 else 1
        attn_dp = attn_dp if type(attn_dp) is int and attn_dp > 0 else 1
        moe_dp = moe_dp if type(moe_dp) is int and moe_dp > 0 else 1
    else:
        tp, pp, ep, attn_dp, moe_dp = sizes
    (dp_attention, cp, redundant, dense, a2a, dp_lm_head, encoder_dp, algo, dtype,
     quantization) = _SHAPE_READ(result)
    # attention TP = tp / (attention DP x attention CP); 0.5.23 keeps attention DP in
    # attn_dp_size (--enable-dp-attention with --dp-size lands there)
    if attn_dp == 1 and dp_attention:
        attn_dp = _pos(v("dp_size"))
    split = attn_dp * (cp if type(cp) is int and cp > 0 else 1)
    attn_tp = tp // split if tp % split == 0 else tp
    env = record.env
    fused = may_fuse_shared and _fuses_shared_experts(v, record, ep)
    resident = _resident_experts(v) if has_experts else None
    par = _parallel((
        tp, pp, ep if tp % ep == 0 else 1, attn_tp,
        dense if dense is not None and isinstance(dense, int) and dense > 0 else 0,
        attn_tp if dp_lm_head else 0,
        1 if is_mla and env and record.env_flag("SGLANG_ENABLE_EMBED_REPLICATION")
        else (attn_tp if attn_tp_embedding else 0),
        moe_dp,
        redundant if type(redundant) is int and redundant > 0 else 0,
        a2a not in (None, "none") or bool(env) and record.env_flag("SGLANG_SHARED_EXPERT_TP1"),
        fused,
        pp_partition(env.get("SGLANG_PP_LAYER_PARTITION")) if env else None,
        resident,
        encoder_dp is True, attn_dp > 1,
        fused and resident is not None and resident <= _routed_experts(model)))
    algo = algo.upper() if algo is not None and isinstance(algo, str) else None
    draft = record.draft
    mtp = False
    if algo is not None and draft is None:
        path = v("speculative_draft_model_path")
        if path in (None, v("model_path")) and (algo in _MTP_ALGOS or (
                algo == "DSPARK" and _dspark_stages(model))):
            mtp = True
    elif draft is not None and draft.config_file == model.config_file:
        draft, mtp = None, True
    target = record.target
    extras = FP8_ABSORBED if is_mla and _fp8_absorbed(model, quantization, dtype, target,
                                                         env) else 0
    if model.quant_method == "gptq" and target is not None and checkpoint_override(
            model.quant_config or {}, quantization, QuantPlatform.from_target(target)
    ) == "gptq_marlin":
        extras |= MARLIN_GPTQ
    if has_experts:
        sm100, sm90, sm120, hip = _target_bits(target)
        runner = v("moe_runner_backend")
        if _keeps_moe_index(model, runner, sm100, hip):
            extras |= MOE_INDEX
        pad = expert_padding(model.quant_method, runner, sm100=sm100,
                             sm90=sm90, sm120=sm120, hip=hip,
                             # mxfp4.py reads both the plain way (true/1 only)
                             aiter=bool(env) and plain_flag(env, "SGLANG_USE_AITER"),
                             aiter_k3=bool(env) and plain_flag(env, "SGLANG_AITER_K3_OPT"),
                             a2a=a2a)
    else:  # no routed experts: nothing to pad
        pad = NONE
    return (model, par, dtype, quantization, draft if algo is not None else None,
            mtp, pad, bool(env) and fp4_experts and fp8_held_experts(model, env), extras)


#: ``extras`` bits: MLA's absorbed copies kept in FP8 (``_fp8_absorbed``); the compressed-
#: tensors WNA16 MoE's index buffers left allocated (``_keeps_moe_index``); a GPTQ
#: checkpoint repacked for Marlin (``quant_bytes.marlin_repacked``)
FP8_ABSORBED, MOE_INDEX, MARLIN_GPTQ = 1, 2, 4
#: the bits that add or change tensors (``_with_extras``); the rest change only their bytes
_LAYOUT_EXTRAS = FP8_ABSORBED | MOE_INDEX


def _keeps_moe_index(model: ModelFacts, runner: Any, sm100: bool, hip: bool) -> bool:
    """Whether a compressed-tensors weight-only integer MoE (WNA16) keeps its act-order
    index buffers on the GPU. SGLang 0.5.23's ``CompressedTensorsWNA16MoE.create_weights``
    allocates ``w13_weight_g_idx``, ``w2_weight_g_idx`` and their sort indices (int32, per
    expert over the input dimension); the Marlin path swaps them for empty tensors after
    loading, the Triton path (``CompressedTensorsWNA16TritonMoE``) keeps them. The Triton
    path is ROCm's, ``--moe-runner-backend triton``'s, and Blackwell's default for a
    symmetric int4 checkpoint grouped by 32 or 128 without act order; a group-32 one under
    ``flashinfer_trtllm`` takes the MXINT4 method instead (``compressed_tensors.py``)."""
    if model.quant_method != "compressed-tensors":
        return False
    w = _wna16_weights(model)
    if w is None:
        return False
    symmetric = w.get("symmetric", True) is not False
    group, bits, actorder = w.get("group_size"), w.get("num_bits"), w.get("actorder")
    if runner == "flashinfer_trtllm" and bits == 4 and group == 32 and symmetric:
        return False  # CompressedTensorsMxInt4MoE
    if hip or runner == "triton":
        return True
    return runner in (None, "auto") and sm100 and bits == 4 and group in (32, 128) \
        and symmetric and not actorder


def _wna16_weights(model: ModelFacts) -> Mapping[str, Any] | None:
    """The weights spec of a compressed-tensors config whose linear layers are weight-only
    static integers by group or channel (SGLang's ``_is_wNa16_group_channel``), else None."""
    groups = (model.quant_config or {}).get("config_groups")
    if not isinstance(groups, Mapping) or not groups:
        return None
    first = next(iter(groups.values()))
    if not isinstance(first, Mapping) or first.get("input_activations") is not None:
        return None
    w = first.get("weights")
    if not isinstance(w, Mapping) or w.get("type", "int") != "int" or w.get("dynamic"):
        return None
    return w if w.get("strategy") in ("group", "channel") else None


def _fp8_absorbed(model: ModelFacts, quantization: str | None, dtype: str | None,
                  target: Any, env: Mapping[str, str] | None) -> bool:
    """Whether SGLang keeps MLA's absorbed ``w_kc``/``w_vc`` in FP8 (one byte an element)
    rather than bf16: ``post_load_weights`` (``deepseek_weight_loader.py``) dequantizes a
    128 x 128 block-FP8 ``kv_b_proj`` to bf16 on CUDA, unless DeepGEMM's BMM is on
    (``SGLANG_USE_DEEPGEMM_BMM`` with DeepGEMM, which is Hopper's path: Blackwell's DeepGEMM
    skips it); it re-quantizes any other FP8 projection per tensor (ROCm's, other block
    sizes, per-channel and per-tensor FP8). An int8, AWQ or unquantized projection is
    copied in bf16 (the default tensors), as is a mixed-precision checkpoint's (assumed)."""
    scheme = _stored(model, quantization, dtype).scheme
    if scheme is None or scheme.experts_only or scheme.parts or "int8" in scheme.name \
            or not scheme.kind.startswith("fp8"):
        return False
    _, sm90, _, hip = _target_bits(target) if target is not None else (False,) * 4
    if scheme.kind != "fp8_block" or scheme.block != (128, 128) or hip:
        return True
    env = env or {}
    return sm90 and flag(env, "SGLANG_USE_DEEPGEMM_BMM") \
        and flag(env, "SGLANG_ENABLE_JIT_DEEPGEMM")


def _with_extras(model: ModelFacts, extras: int) -> tuple[list[Tensor], list[Tensor]]:
    """The model's layers and its MTP draft's (``_own_mtp``) with what loading leaves beside
    them (``extras``): MLA's absorbed copies stored as their ``kv_b_proj`` is (``linear``: FP8
    where the projection is, its block scales' few bytes included; bf16 where a config leaves
    it unquantized), and each routed-expert stack's index buffers (int32: two per input
    column of w13, whole on every MoE-TP rank, and two per column of w2, split)."""
    key = (id(model), extras)
    hit = _EXTRAS.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]

    def loaded(tensors: list[Tensor]) -> list[Tensor]:
        out: list[Tensor] = []
        for t in tensors:
            if extras & FP8_ABSORBED and t.component == "mla_absorbed":
                t = t._replace(linear=True)
            out.append(t)
            if extras & MOE_INDEX and t.shard == "experts" and t.name.endswith("down_proj"):
                hidden, inter = t.shape
                base = t.name[: -len("down_proj")]
                out += [Tensor(base + "w13_g_idx", "moe_index", (2 * hidden, 1), t.layers,
                               t.copies, shard="expert_index", fp32=True, padding=True),
                        Tensor(base + "w2_g_idx", "moe_index", (2 * inter, 1), t.layers,
                               t.copies, shard="expert_index_tp", fp32=True, padding=True)]
        return out
    lists = loaded(_layout(model).main), loaded(_own_mtp(model))
    if len(_EXTRAS) >= 256:
        _EXTRAS.clear()
    _EXTRAS[key] = (model, lists)  # holding the model keeps its id unique
    return lists


#: (model id, extras) -> (model, the lists ``_with_extras`` makes)
_EXTRAS: dict[tuple[int, int], tuple[Any, tuple[list[Tensor], list[Tensor]]]] = {}


#: the values every launch's shape reads, in one call (the rest only in some launches)
_SHAPE_READ = itemgetter("enable_dp_attention", "attn_cp_size", "ep_num_redundant_experts",
                         "moe_dense_tp_size", "moe_a2a_backend", "enable_dp_lm_head",
                         "mm_enable_dp_encoder", "speculative_algorithm", "dtype",
                         "quantization")


def _resident_experts(v: Any) -> int | None:
    """Routed experts per MoE layer the GPU holds when the launch keeps the rest off it:
    KTransformers' ``--kt-num-gpu-experts`` once ``--kt-weight-path`` gives the CPU experts
    (``layers/moe/kt_ep_wrapper.py`` builds the GPU method for that many), else paged
    experts' ``--paged-experts-num-resident`` (``layers/moe/paged_experts``: at most the
    local experts). None: every local expert is on the GPU."""
    if v("kt_weight_path") is not None:
        n = v("kt_num_gpu_experts")
        return n if type(n) is int and n >= 0 else None
    if v("enable_paged_experts") is True:
        n = v("paged_experts_num_resident")
        return n if type(n) is int and n >= 1 else None
    return None


#: ``Parallel`` from a tuple of every field, without the generated ``__new__``'s call
_parallel = partial(tuple.__new__, Parallel)


class _ModelFacts(NamedTuple):
    """What ``_launch_shape`` asks of a model, looked up once."""

    is_mla: bool
    attn_tp_embedding: bool  # the embedding shards over attention TP
    may_fuse_shared_experts: bool  # DeepSeek-V3/R1's shape (``_fuses_shared_experts``)
    has_experts: bool  # routed experts in the checkpoint (their buffers may be padded)
    fp4_experts: bool  # routed experts packed as MXFP4 inside an FP8 checkpoint


@per_object
def _model_facts(model: ModelFacts) -> _ModelFacts:
    # (the text class a wrapper builds whatever its file names: MiniCPM-V 2.6's Qwen2)
    mt = built_text_type(model.config, model.model_type) or model.text_model_type \
        or model.model_type
    cfg = model.text_config
    lay = _layout(model)
    return _ModelFacts(
        bool(model.is_mla), bool(model.is_mla or mt.startswith(_ATTN_TP_EMBED)),
        model.arch0 == "DeepseekV3ForCausalLM" and cfg.get("n_routed_experts") == 256
        and cfg.get("n_shared_experts") == 1,
        any(t.shard == "experts" for t in (*lay.main, *lay.mtp)),
        _fp4_in_fp8(model))


def _fp4_in_fp8(model: ModelFacts) -> bool:
    scheme = _checkpoint_scheme(model)[0]
    return scheme is not None and scheme.experts is not None \
        and scheme.experts.kind == "mxfp4"


@per_object
def _target_bits(target: Any) -> tuple[bool, bool, bool, bool]:
    return target.is_sm100, target.is_sm90, target.is_sm120, target.is_hip


# --- internals -------------------------------------------------------------------------------

def _fuses_shared_experts(v: Any, record: Any, ep: int) -> bool:
    """Whether DeepSeek-V3/R1's shared expert rides in the fused MoE under EP.

    It matters for memory with EP > 1 (without EP both layouts split it over TP), or with
    KTransformers' CPU experts, which take the fused shared expert too unless the GPU experts
    reach its id (``Parallel.shared_experts_offloaded``); SGLang 0.5.23 fuses it under EP
    on AMD gfx942+ only; DeepEP-class backends, two-batch
    or single-batch overlap and W4AFP8 checkpoints keep it apart
    (``DeepseekV2ForCausalLM.shared_experts_fusion_disable_reason``).
    """
    model = record.model
    cfg = model.text_config
    target = record.target
    if v("disable_shared_experts_fusion"):
        return False
    if ep <= 1:
        # without EP it matters only when KTransformers moves experts off the GPU: the
        # fused shared expert is the MoE's last expert id, on the CPU unless the GPU experts
        # (ids 0 to kt_num_gpu_experts - 1) reach it; SGLang fuses there on CUDA SM80+ and
        # AMD gfx942+
        if v("kt_weight_path") is None:
            return False
        if target.capability < ((9, 4) if target.is_hip else (8, 0)):
            return False
    elif not target.is_hip:
        return False
    if model.arch0 != "DeepseekV3ForCausalLM" or cfg.get("n_routed_experts") != 256 \
            or cfg.get("n_shared_experts") != 1:
        return False
    if v("moe_a2a_backend") not in (None, "none") or v("enable_two_batch_overlap") \
            or v("enable_single_batch_overlap") or model.quant_method == "w4afp8":
        return False
    return True


def _routed_experts(model: Any) -> int:
    """The routed experts per MoE layer the config names (the fused shared expert's id)."""
    n = model.text_config.get("n_routed_experts")
    return n if type(n) is int and n > 0 else 0


def _pos(value: Any, default: int = 1) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
        else default


def pp_partition(text: str | None) -> tuple[int, ...] | None:
    """``SGLANG_PP_LAYER_PARTITION``'s per-stage layer counts (None: unset or unreadable)."""
    if not text:
        return None
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        return None


def _dtype_bytes(dtype: str) -> int:
    return _DTYPE_BYTES.get(str(dtype).lower().replace("torch.", ""), 2)


_LAYOUTS: dict[int, tuple[Any, Layout]] = {}


def _layout(model: ModelFacts) -> Layout:
    """The model's tensors, computed once per facts object (facts are cached and frozen)."""
    hit = _LAYOUTS.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]
    lay = layout(model.config, model.text_config, model.model_type, model.text_model_type,
                 model.arch0)
    if len(_LAYOUTS) > 256:
        _LAYOUTS.clear()
    _LAYOUTS[id(model)] = (model, lay)  # holding the facts keeps their id unique
    return lay


def _checkpoint_dtype(model: ModelFacts) -> str:
    """The dtype of the checkpoint's unquantized tensors: ``torch_dtype``, else bf16.

    A config without ``torch_dtype`` (gpt-oss) says nothing about its files; bf16 is what
    current checkpoints store (assumption, listed in the plan's caveats).
    """
    return model.config_dtype or "bfloat16"


@per_object
def _checkpoint_scheme(model: ModelFacts) -> tuple[Scheme | None, Ignored]:
    qc = model.quant_config
    scheme = scheme_of(qc, model.quant_method)
    if scheme is not None and hybrid_nvfp4_experts(model):
        scheme = scheme._replace(experts=Scheme("nvfp4", "nvfp4"))
    elif scheme is not None and scheme.kind != "mxfp4" and mxfp4_routed_experts(model):
        scheme = scheme._replace(experts=Scheme("mxfp4", "mxfp4"))
    return scheme, ignored(_sidecar_quant(model) or qc)


def _runtime_scheme(model: ModelFacts, quantization: str | None,
                    caveats: list[str], fp8_experts: bool = False
                    ) -> tuple[Scheme | None, Ignored]:
    scheme, ign = _checkpoint_scheme(model)
    if fp8_experts and scheme is not None and scheme.experts is not None \
            and scheme.experts.kind == "mxfp4":  # held as the checkpoint's FP8
        scheme = scheme._replace(experts=None)
    if model.quant_method is not None and scheme is None:
        caveats.append(f"quantization {model.quant_method!r}: storage format unknown to "
                       "launchplan; weights counted at the model dtype")
    if scheme is None and quantization:
        online = _ONLINE.get(quantization)
        if online is None:
            caveats.append(f"--quantization {quantization}: online storage format unknown to "
                           "launchplan; weights counted at the model dtype")
        return online, ign
    return scheme, ign


def _sidecar_quant(model: ModelFacts) -> Mapping[str, Any] | None:
    """``hf_quant_config.json`` beside the config (ModelOpt lists its excluded modules there)."""
    if model.quant_method not in ("modelopt_fp4", "modelopt_fp8", "modelopt_mixed", "w4afp8"):
        return None
    import json
    import os

    path = os.path.join(os.path.dirname(model.config_file), "hf_quant_config.json")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


_UNSET: Any = object()


def _bytes(t: Tensor, scheme: Scheme | None, ign: Ignored | None, unq: int,
           skip: Any = _UNSET, shape: tuple[int, int] | None = None,
           copies: int | None = None, matrix: float | None = None) -> float:
    """Bytes of the whole tensor stack (``skip``: ``_skipped``, when known); ``shape`` and
    ``copies`` replace the tensor's own (a GPU's padded experts); ``matrix`` is
    ``scheme.matrix_bytes(*shape)`` when known."""
    if shape is None:
        shape = t.shape
    if copies is None:
        copies = t.copies
    plain = shape[0] * shape[1] * copies * max(1, len(t.layers)) * (4 if t.fp32 else unq)
    if scheme is not None and scheme.parts and (t.linear or t.component == "lm_head"):
        scheme = dict(scheme.parts).get(t.component)  # mixed precision: by component
        t = t._replace(linear=True)
    if scheme is None or not t.linear or (scheme.experts_only and t.shard != "experts"):
        return plain
    if scheme.experts is not None and t.shard == "experts":
        scheme = scheme.experts
    if skip is _UNSET:
        skip = _skipped(t, scheme, ign)
    one = (scheme.matrix_bytes(*shape) if matrix is None else matrix) * copies
    if not t.layers:
        return plain if skip else one
    n_skip = len(skip) if isinstance(skip, set) else 0
    plain_one = shape[0] * shape[1] * copies * unq
    return one * (len(t.layers) - n_skip) + plain_one * n_skip


def _skipped(t: Tensor, scheme: Scheme | None, ign: Ignored | None) -> Any:
    """The layers of ``t`` left unquantized (a set), or for a tensor outside the stack
    whether it is (it depends on the name and layers only, not on the shape)."""
    return ign.layers(t.name, t.layers) if ign else (set() if t.layers else False)


def _share(model: ModelFacts, t: Tensor, par: Parallel) -> float:
    """The fraction of a tensor one GPU holds (within its pipeline stage)."""
    kind = t.shard
    if kind == "kv":
        kv = max(1, model.total_num_kv_heads)
        return max(1, kv // par.group("kv")) / kv
    if kind == "shared" and par.shared_experts_offloaded:
        return 0.0
    if kind in ("experts", "expert_index", "expert_index_tp"):
        experts = max(1, t.copies)
        ep = max(1, par.ep)
        local = -(-(experts + par.redundant_experts) // ep)  # integer ceil: exact for any size
        if par.resident_experts is not None and local > par.resident_experts:
            local = par.resident_experts
        if kind == "expert_index":  # over w13's input columns: whole on every MoE-TP rank
            return local / experts
        return local / experts / max(1, par.tp // ep // max(1, par.moe_dp))
    if kind in ("vocab", "head") or kind in POS_KINDS:
        vocab = t.shape[0]
        group = par.group(kind)
        pad = 64 if _pad(vocab, 64) % group == 0 else 64 * group
        return _pad(vocab, pad) / group / vocab
    if kind == ATTN_HEADS and t.heads:  # split by its own heads, at least one a rank
        return -(-t.heads // par.group("attn_tp")) / t.heads
    if kind == VISION_HEADS and t.heads:  # padded with dummy heads to fill the group
        return -(-t.heads // par.group(kind)) / t.heads
    return 1 / par.group(kind)


def _pad(n: int, to: int) -> int:
    return (n + to - 1) // to * to


def _stages(n_layers: int, par: Parallel) -> list[range]:
    return pp_stages(n_layers, par.pp, par.pp_partition)


def pp_stages(n_layers: int, pp: int, partition: tuple[int, ...] | None) -> list[range]:
    """Each pipeline stage's layers, as SGLang's ``get_pp_indices`` (``distributed/utils.py``)
    splits them: ``SGLANG_PP_LAYER_PARTITION``'s counts when they match the stages and the
    layers, else even shares with the extra layers on the last stages."""
    pp = max(1, pp)
    if pp > 1 and partition and len(partition) == pp and sum(partition) == n_layers:
        out, start = [], 0
        for n in partition:
            out.append(range(start, start + n))
            start += n
        return out
    base, rem = divmod(n_layers, pp)
    out, start = [], 0
    for rank in range(pp):
        n = base + (1 if rank >= pp - rem else 0)
        out.append(range(start, start + n))
        start += n
    return out


def _padded_experts(t: Tensor, par: Parallel, pad: ExpertPadding) -> Tensor:
    """One GPU's routed experts of kind ``t`` as SGLang allocates them: its local experts,
    the intermediate size split over the MoE-TP group, both sizes rounded by ``pad``."""
    moe_tp = max(1, par.tp // max(1, par.ep) // max(1, par.moe_dp))
    local = -(-(t.copies + par.redundant_experts) // max(1, par.ep))
    if par.resident_experts is not None and local > par.resident_experts:
        local = par.resident_experts
    return t._replace(shape=_padded_shape(t, _leaf(t), moe_tp, pad), copies=local)


def _leaf(t: Tensor) -> str:
    return t.name.removesuffix(".bias").rsplit(".", 1)[-1]


def _padded_shape(t: Tensor, leaf: str, moe_tp: int, pad: ExpertPadding) -> tuple[int, int]:
    """``t``'s shape on one GPU: the intermediate size over MoE-TP, both sizes padded."""
    rows, cols = t.shape
    if leaf in ("down_proj", "w2"):  # (hidden, intermediate); its bias (hidden,) is whole
        h, i = pad.sizes(rows, cols // moe_tp)
        shape = (h, i if cols > 1 else 1)
    elif leaf == "gate_up_proj":  # the fused bias (2 x intermediate,)
        shape = (2 * pad.sizes(1, rows // 2 // moe_tp)[1], cols)
    else:  # gate/up: (intermediate, hidden)
        h, i = pad.sizes(cols, rows // moe_tp)
        shape = (i, h)
    return shape


def _per_gpu(model: ModelFacts, tensors: list[Tensor], par: Parallel, scheme: Scheme | None,
             ign: Ignored, unq: int, pad: ExpertPadding = NONE,
             memo: dict[Any, Any] | None = None) -> tuple[float, dict[str, float]]:
    if par.pp <= 1:  # one stage: every tensor whole, its bytes from the model's table
        return _per_gpu_one_stage(model, tensors, par, scheme, ign, unq, pad, memo)
    return _per_gpu_staged(model, tensors, par, scheme, ign, unq, pad)


def _per_gpu_staged(model: ModelFacts, tensors: list[Tensor], par: Parallel,
                    scheme: Scheme | None, ign: Ignored, unq: int, pad: ExpertPadding = NONE,
                    ) -> tuple[float, dict[str, float]]:
    """The most loaded pipeline stage, tensor by tensor."""
    n_layers = model.num_hidden_layers or 0
    stages = _stages(n_layers, par)
    per_stage: list[dict[str, float]] = [{} for _ in stages]
    tied_head = par.pp > 1 and not any(t.component == "lm_head" for t in tensors)
    for t in tensors:
        share = _share(model, t, par)
        if pad and t.shard == "experts":
            t, share = _padded_experts(t, par, pad), 1.0
        if t.component in _OUTSIDE_LAYERS:  # not the LM's layers: on the
            b = _bytes(t, scheme, ign, unq) * share  # ranks that build the tower (or the first)
            for stage in per_stage if t.every_stage else per_stage[:1]:
                _add(stage, t.component, b)
            continue
        if t.layers:
            for s, rng in enumerate(stages):
                mine = t.layers if len(stages) == 1 else tuple(i for i in t.layers if i in rng)
                if mine:
                    _add(per_stage[s], t.component,
                         _bytes(t._replace(layers=mine), scheme, ign, unq) * share)
            continue
        b = _bytes(t, scheme, ign, unq) * share
        last = t.component == "lm_head" or t.shard == "last"
        _add(per_stage[-1 if last else 0], t.component, b)
        if tied_head and t.component == "embedding":
            _add(per_stage[-1], "lm_head", b)  # a tied head is a copy on the last stage
    best = max(per_stage, key=lambda d: sum(d.values()))
    return sum(best.values()), best


def _per_gpu_one_stage(model: ModelFacts, tensors: list[Tensor], par: Parallel,
                       scheme: Scheme | None, ign: Ignored, unq: int, pad: ExpertPadding,
                       memo: dict[Any, Any] | None = None) -> tuple[float, dict[str, float]]:
    """``_per_gpu`` without pipeline stages: the same products, summed in the same order
    (per component, in tensor order), from the model's table."""
    table = _table(tensors, scheme, ign, unq)
    padded = pad.hidden > 1 or pad.intermediate > 1
    values = _shares(model, table, par, scheme, unq, pad if padded else NONE, memo)
    out: dict[str, float] = {}
    for component, pairs in (table.padded_groups if padded else table.groups):
        acc = 0.0
        for b, k in pairs:
            acc += b * values[k]
        out[component] = acc
    return sum(out.values()), out


def _one_stage_sum(model: ModelFacts, table: _Table, par: Parallel, scheme: Scheme | None,
                   unq: int, pad: ExpertPadding, memo: dict[Any, Any] | None) -> float:
    """``_per_gpu_one_stage``'s total alone (the same sums, without the breakdown)."""
    padded = pad.hidden > 1 or pad.intermediate > 1
    return _summed(model, table, par, scheme, unq, pad, memo, _GROUPS_PADDED if padded
                   else _GROUPS)


def _flat_share(model: ModelFacts, tensors: list[Tensor], par: Parallel,
                scheme: Scheme | None, ign: Ignored, unq: int,
                pad: ExpertPadding = NONE, memo: dict[Any, Any] | None = None) -> float:
    """A draft's bytes per GPU: sharded like the target, not split over pipeline stages."""
    return _flat_sum(model, _table(tensors, scheme, ign, unq), par, scheme, unq, pad, memo)


def _flat_sum(model: ModelFacts, table: _Table, par: Parallel, scheme: Scheme | None,
              unq: int, pad: ExpertPadding, memo: dict[Any, Any] | None) -> float:
    """``_flat_share`` of a table at hand."""
    padded = pad.hidden > 1 or pad.intermediate > 1
    return _summed(model, table, par, scheme, unq, pad, memo, _FLAT_PADDED if padded
                   else _FLAT)


#: the sums a table's function can make: per component then in all (a stage's total), or
#: flat (a draft's), each with routed experts at their padded bytes or not
_GROUPS, _GROUPS_PADDED, _FLAT, _FLAT_PADDED = range(4)


def _summed(model: ModelFacts, table: _Table, par: Parallel, scheme: Scheme | None,
            unq: int, pad: ExpertPadding, memo: dict[Any, Any] | None, kind: int) -> float:
    """One of ``table``'s sums under ``par``: its function (``_summer``), which works out
    from the sharding only the group sizes its table's shares use."""
    summer = table.summers.get(kind, _UNSET)
    if summer is _UNSET:
        summer = table.summers[kind] = _summer(table, kind)
    if summer is None or par.resident_experts is not None:  # the written-out sums hold
        return _looped(model, table, par, scheme, unq, pad, memo, kind)  # every local expert
    return summer(model, par, pad, scheme, unq, {} if memo is None else memo)


def _looped(model: ModelFacts, table: _Table, par: Parallel, scheme: Scheme | None,
            unq: int, pad: ExpertPadding, memo: dict[Any, Any] | None, kind: int) -> float:
    """``_summed`` as loops over ``_shares``' values (what a table's function writes out)."""
    values = _shares(model, table, par, scheme, unq, pad if kind == _GROUPS_PADDED
                     or kind == _FLAT_PADDED else NONE, memo)
    if kind == _FLAT or kind == _FLAT_PADDED:
        out = 0.0
        for b, k in (table.flat if kind == _FLAT else table.flat_padded):
            out += b * values[k]
        return out
    parts = []
    for _, pairs in (table.groups if kind == _GROUPS else table.padded_groups):
        acc = 0.0
        for b, k in pairs:
            acc += b * values[k]
        parts.append(acc)
    return sum(parts)


def _summer(table: _Table, kind: int) -> Any:
    """A function computing one of ``table``'s sums from a launch's group sizes, written
    out for this table: each share key's share as ``_shares`` works it out, then each
    pair's product added in the table's order, as the loops over ``values`` add them (the
    very same floating-point operations, so the very same sum), without the loops' per-pair
    tuple and list work. Made once per table (a per-model fact, as the table is).

    What never changes is written as a constant: a replicated tensor's share is 1.0 and
    ``b * 1.0`` is ``b`` exactly, so its term is ``b`` itself, and a sum's leading
    constants fold when the function is compiled (the same additions, done once). Local
    expert counts and padded expert shapes are worked out once per distinct value."""
    written = _sum_lines(table, kind, "", None)
    if written is None:
        return None
    lines, result = written
    return _compiled(lines + [f"    return {result}"])


def _fused_summer(tables: tuple[_Table, ...], kinds: tuple[int, ...]) -> Any:
    """One function returning the sums of several tables of one model under the same
    sharding, padding and storage (a target's layers, its MTP layers, the embedding and
    head copies the MTP draft holds): each table's sum written out as ``_summer`` writes
    it (its own variables), the derived group sizes and padded expert shapes worked out
    once for all; the result is the tuple of the sums. None when a table has a shard kind
    only the loops know."""
    lines: list[str] = []
    results = []
    entries: dict[Any, str] = {}
    for i, (table, kind) in enumerate(zip(tables, kinds)):
        written = _sum_lines(table, kind, f"_{i}", entries)
        if written is None:
            return None
        lines += written[0]
        results.append(written[1])
    return _compiled(lines + [f"    return {', '.join(results)}"])


def _compiled(lines: list[str]) -> Any:
    # a config's number may be infinite or not a number: its repr is then ``inf`` / ``nan``
    scope: dict[str, Any] = {"_padded_entry": _padded_entry, "inf": math.inf, "nan": math.nan}
    exec("\n".join(_prologue(lines) + lines), scope)  # noqa: S102 - code written from a table's numbers
    return scope["summer"]


def _sum_lines(table: _Table, kind: int, tag: str, entries: dict[Any, str] | None
               ) -> tuple[list[str], str] | None:
    """The body lines of ``_summer`` for ``table`` and the expression of its sum, its
    variables ending in ``tag``. ``entries``: padded expert shapes already worked out in
    the function (shape key -> its variable's index), each then computed once without a
    memo; None: looked up in the call's ``memo`` (shared with other calls)."""
    lines: list[str] = []
    n = len(table.keys)
    padded = kind == _GROUPS_PADDED or kind == _FLAT_PADDED
    local: dict[int, str] = {}  # expert count -> the variable of its local count

    def local_experts(count: int) -> str:
        name = local.get(count)
        if name is None:  # named by order: a config's count may be -1 or 1.5
            name = local[count] = f"n{len(local)}{tag}"
            lines.append(f"    {name} = -(-({count!r} + red) // ep)")
        return name

    shares: dict[int, str | None] = {}  # share index -> its variable (None: exactly 1.0)
    for i, (key, _) in enumerate(table.keys):
        share = key[0]
        if share == "attn_tp":
            expr = "1 / attn"
        elif share == "tp":
            expr = "1 / tp"
        elif share == "replicated" or share == "last":
            shares[i] = None  # 1 / 1
            continue
        elif share == "kv":
            lines.append(f"    kv{tag} = model.total_num_kv_heads")
            lines.append(f"    kv{tag} = kv{tag} if kv{tag} > 1 else 1")
            expr = f"(kv{tag} // attn if kv{tag} // attn > 1 else 1) / kv{tag}"
        elif share == "experts":
            experts = key[1] if key[1] > 1 else 1
            expr = f"{local_experts(experts)} / {experts} / moe_tp"
        elif share in _PADDED_GROUPS:
            vocab, group = key[1], _PADDED_GROUPS[share]
            whole = (vocab + 63) // 64 * 64  # ``_pad`` to 64, then to 64 x group if need be
            expr = (f"({whole} if not {whole} % {group} else ({vocab} + 64 * {group} - 1) "
                    f"// (64 * {group}) * (64 * {group})) / {group} / {vocab}")
        elif share == "dense":
            expr = "1 / dense"
        elif share == "shared":
            expr = "1 / shared"
        elif share == VISION_TP:
            expr = "1 / vtp"
        elif share == VISION_ATTN:
            expr = "1 / vattn"
        else:  # a shard kind only ``_share`` knows: the loops over ``_shares``
            return None
        lines.append(f"    s{i}{tag} = {expr}")
        shares[i] = f"s{i}{tag}"

    experts: dict[int, str] = {}  # padded experts' index -> the variable of their bytes
    if padded:  # ``_padded_values``, written out
        mine: dict[Any, str] = {} if entries is None else entries  # shape key -> ``o{..}``
        written: dict[str, str] = {}  # an expression -> the variable holding it
        for j, (t, _, skip, n_skip, elem, key) in enumerate(table.experts):
            kind_, (rows, cols) = key
            at = mine.get(key)
            if at is None:
                at = mine[key] = f"{len(mine)}{tag}"
                args = f"{kind_}, {rows}, {cols}, moe_tp, hp, ip, mb"
                if entries is None:
                    name = repr(f"{kind_}:{rows}x{cols}")  # (a string's hash is kept)
                    lines += [f"    o{at} = memo.get({name})",
                              f"    if o{at} is None:",
                              f"        o{at} = memo[{name}] = _padded_entry({args})"]
                else:
                    lines.append(f"    o{at} = _padded_entry({args})")
                lines.append(f"    r{at}, c{at} = o{at}[0]")
            layers = len(t.layers)
            r, c, o, ll = f"r{at}", f"c{at}", f"o{at}", local_experts(t.copies)
            plain = f"{r} * {c} * {ll} * {layers or 1} * {elem}"
            if not t.linear:
                expr = plain
            else:  # (``+ 0`` when no layer is skipped: a sum from 0.0 adds the same then)
                expr = (f"{r} * {c} * {ll} * {elem} if {bool(skip)} else {o}[1] * {ll}"
                        if not layers else f"{o}[1] * {ll} * {layers - n_skip}" + (
                            f" + {r} * {c} * {ll} * unq * {n_skip}" if n_skip else ""))
                expr = f"{plain} if mb is None else {expr}"
            if expr not in written:  # gate and up projections alike: one product
                written[expr] = f"x{j}{tag}"
                lines.append(f"    x{j}{tag} = {expr}")
            experts[j] = written[expr]

    def term(b: float, k: int) -> str:
        if k >= n:
            return f"{b!r} * {experts[k - n]}"
        share = shares[k]
        return repr(b) if share is None else f"{b!r} * {share}"

    if kind == _FLAT or kind == _FLAT_PADDED:
        chains = [(f"out{tag}", [term(b, k) for b, k in
                                 (table.flat if kind == _FLAT else table.flat_padded)])]
    else:
        chains = [(f"p{g}{tag}", [term(b, k) for b, k in pairs]) for g, (_, pairs) in
                  enumerate(table.groups if kind == _GROUPS else table.padded_groups)]
    seen: dict[str, int] = {}
    for _, terms in chains:
        for text in terms:
            seen[text] = seen.get(text, 0) + 1
    products: dict[str, str] = {}  # a product added more than once: multiplied once
    for text, count in seen.items():
        if count > 1 and " * " in text:
            products[text] = f"m{len(products)}{tag}"
            lines.append(f"    m{len(products) - 1}{tag} = {text}")
    for name, terms in chains:
        lines += _chain(name, [products.get(text, text) for text in terms])
    if kind == _FLAT or kind == _FLAT_PADDED:
        return lines, f"out{tag}"
    parts = "".join(f"{name}, " for name, _ in chains)
    return lines, f"sum(({parts}))"  # sum(()): 0


#: What a summer's body may use, worked out from its arguments (``model, par, pad, scheme,
#: unq, memo``) as ``_shares`` works them out: (the name, the names its line reads, the line).
#: The sharding is unpacked at once (each named-tuple field read is a descriptor call).
_DERIVED = (
    ("attn", ("attn_tp", "tp"), "attn = attn_tp or tp"),
    ("ep", (), "ep = ep if ep > 1 else 1"),
    ("moe_tp", ("ep", "moe_dp", "tp"),
     "moe_tp = tp // ep // (moe_dp if moe_dp > 1 else 1)\n"
     "    moe_tp = moe_tp if moe_tp > 1 else 1"),
    ("vocab_g", ("embed_tp", "tp"), "vocab_g = embed_tp or tp"),
    ("head_g", ("head_tp", "tp"), "head_g = head_tp or tp"),
    ("dense", ("dense_tp", "tp"), "dense = dense_tp or tp"),
    ("shared", ("fused", "moe_tp", "replicated", "tp"),
     "shared = moe_tp if fused else 1 if replicated else tp"),
    # a vision tower's groups (``vision.group``): whole on every GPU under the DP encoder
    # but for a TP-split position table; its position table over attention TP under DP
    # attention
    ("vtp", ("encoder_dp", "tp"), "vtp = 1 if encoder_dp else tp"),
    ("vattn", ("encoder_dp", "attn"), "vattn = 1 if encoder_dp else attn"),
    ("vpos", ("encoder_dp", "dp_attention", "attn", "tp"),
     "vpos = 1 if encoder_dp else attn if dp_attention else tp"),
    ("hp", (), "hp, ip = pad"),
    ("mb", (), 'mb = None if scheme is None else scheme.of("experts").matrix_bytes'),
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _prologue(body: list[str]) -> list[str]:
    """A summer's first lines: its signature, the sharding unpacked, then each derived
    value ``body`` reads (or a derived line reads), in ``_DERIVED``'s order."""
    used = set(_WORD.findall("\n".join(body)))
    if "ip" in used:
        used.add("hp")
    needed: list[str] = []
    for name, reads, line in reversed(_DERIVED):  # a later line may read an earlier one
        if name in used:
            needed.append(line)
            used.update(reads)
    return ["def summer(model, par, pad, scheme, unq, memo):",
            "    (tp, _, ep, attn_tp, dense_tp, head_tp, embed_tp, moe_dp, red, replicated, "
            "fused, _, _, encoder_dp, dp_attention, _) = par",
            *(f"    {line}" for line in reversed(needed))]


#: shard kinds padded like a vocabulary -> the summer's argument holding their group size
_PADDED_GROUPS = {"vocab": "vocab_g", "head": "head_g", VISION_POS: "vpos",
                  VISION_POS_TP: "tp"}


def _padded_entry(kind: int, rows: int, cols: int, moe_tp: int, hidden_pad: int,
                  inter_pad: int, matrix_bytes: Any) -> tuple[tuple[int, int], Any]:
    """(padded shape, its matrix bytes or None) of a routed-expert tensor on one GPU, as
    ``_padded_values`` works them out (``kind``: ``_PAD_KIND``)."""
    if kind == 0:  # down_proj, w2
        inter = cols // moe_tp
        shape = (_up(rows, hidden_pad), _up(inter, inter_pad) if cols > 1 else 1)
    elif kind == 1:  # gate_up_proj
        shape = (2 * _up(rows // 2 // moe_tp, inter_pad), cols)
    else:
        shape = (_up(rows // moe_tp, inter_pad), _up(cols, hidden_pad))
    return shape, None if matrix_bytes is None else matrix_bytes(*shape)


def _chain(name: str, terms: list[str]) -> list[str]:
    """``name = 0.0``, then each term added in order (``acc += b * share``), a few per line
    (``a + b + c`` adds left to right: the same additions)."""
    if not terms:
        return [f"    {name} = 0.0"]
    out = []
    for at in range(0, len(terms), 16):  # the first line starts from 0.0 itself, so that
        start = "0.0" if at == 0 else name  # its leading constants fold
        out.append(f"    {name} = {start} + {' + '.join(terms[at:at + 16])}")
    return out


def _shares(model: ModelFacts, table: _Table, par: Parallel, scheme: Scheme | None,
            unq: int, pad: ExpertPadding, memo: dict[Any, Any] | None = None
            ) -> list[float]:
    """Each share key's share under ``par`` (``_share``, the groups worked out once), then
    (with a padding other than ``NONE``) each routed-expert tensor's padded bytes: the
    values a table's pairs index. ``memo`` keeps the padded shapes and matrix bytes for the
    other tables of the same model, sharding and padding."""
    tp = par.tp
    attn = par.attn_tp or tp
    ep = par.ep if par.ep > 1 else 1
    moe_tp = tp // ep // (par.moe_dp if par.moe_dp > 1 else 1)
    if moe_tp < 1:
        moe_tp = 1
    redundant = par.redundant_experts
    resident = par.resident_experts
    out = []
    for key, t in table.keys:  # plain branches: a few launches' worth of builtin calls
        kind = key[0]
        if kind == "attn_tp":
            out.append(1 / attn)
        elif kind == "tp":
            out.append(1 / tp)
        elif kind == "replicated" or kind == "last":
            out.append(1 / 1)
        elif kind == "kv":
            kv = model.total_num_kv_heads
            kv = kv if kv > 1 else 1
            local = kv // attn
            out.append((local if local > 1 else 1) / kv)
        elif kind == "experts":
            experts = key[1] if key[1] > 1 else 1
            local = -(-(experts + redundant) // ep)
            if resident is not None and local > resident:
                local = resident
            out.append(local / experts / moe_tp)
        elif kind == "vocab" or kind == "head":
            vocab = key[1]
            group = (par.embed_tp if kind == "vocab" else par.lm_head_tp) or tp
            padded = (vocab + 63) // 64 * 64
            if padded % group:
                padded = _pad(vocab, 64 * group)
            out.append(padded / group / vocab)
        elif kind == "dense":
            out.append(1 / (par.dense_tp or tp))
        elif kind == "shared":
            out.append(0.0 if par.shared_experts_offloaded else
                       1 / (moe_tp if par.shared_experts_fused else
                            1 if par.shared_experts_replicated else tp))
        else:
            out.append(_share(model, t, par))
    if pad is not NONE:  # each routed-expert tensor's padded bytes
        out += _padded_values(table, ep, moe_tp, redundant, scheme, unq, pad, memo, resident)
    return out


def _padded_values(table: _Table, ep: int, moe_tp: int, redundant: int,
                   scheme: Scheme | None, unq: int, pad: ExpertPadding,
                   memo: dict[Any, Any] | None, resident: int | None = None) -> list[Any]:
    """``_bytes(_padded_experts(t, par, pad))`` of each routed-expert tensor of ``table``,
    each padded shape worked out once (``memo`` keeps them for the other tables of the same
    model, sharding and padding)."""
    out: list[Any] = []
    if memo is None:
        memo = {}
    hidden_pad, inter_pad = pad
    for t, _, skip, n_skip, elem, key in table.experts:
        local = -(-(t.copies + redundant) // ep)
        if resident is not None and local > resident:
            local = resident
        one = memo.get(key)  # (padded shape, its matrix bytes) of this shape and leaf kind
        if one is None:
            kind, (rows, cols) = key  # ``_padded_shape``, ``pad.sizes`` inline
            if kind == 0:  # down_proj, w2
                inter = cols // moe_tp
                padded_shape = (_up(rows, hidden_pad), _up(inter, inter_pad)
                                if cols > 1 else 1)
            elif kind == 1:  # gate_up_proj
                padded_shape = (2 * _up(rows // 2 // moe_tp, inter_pad), cols)
            else:
                padded_shape = (_up(rows // moe_tp, inter_pad), _up(cols, hidden_pad))
            one = memo[key] = (padded_shape, None if scheme is None else
                               scheme.of("experts").matrix_bytes(*padded_shape))
        rows, cols = one[0]
        layers = t.layers
        if scheme is None or not t.linear:
            out.append(rows * cols * local * (len(layers) or 1) * elem)
            continue
        one = one[1] * local
        if not layers:
            out.append(rows * cols * local * elem if skip else one)
        else:
            out.append(one * (len(layers) - n_skip) + rows * cols * local * unq * n_skip)
    return out


#: how a routed-expert leaf's shape pads (``_padded_shape``): 0 as (hidden, intermediate),
#: 1 as a fused gate/up bias, 2 (any other leaf) as (intermediate, hidden)
_PAD_KIND = {"down_proj": 0, "w2": 0, "gate_up_proj": 1}


class _Table(Struct):
    """A tensor list's bytes under one storage (scheme, unquantized modules, dtype bytes),
    arranged so that a launch's sharding only multiplies and adds (a ``Struct``: its slots
    read at an attribute's cost).

    A pair ``(b, k)`` is one tensor's contribution ``b * values[k]``: its whole-stack bytes
    (a float) times its share, or (routed experts under a padding kernel) 1.0 times its
    padded bytes.
    """

    keys: tuple[tuple[tuple[Any, ...], Tensor], ...]  # share keys, each with a tensor
    groups: tuple[tuple[str, tuple[tuple[Any, int], ...]], ...]  # component -> pairs
    padded_groups: tuple[tuple[str, tuple[tuple[Any, int], ...]], ...]
    flat: tuple[tuple[Any, int], ...]  # every pair, in tensor order
    flat_padded: tuple[tuple[Any, int], ...]
    #: routed experts: tensor, leaf, skipped layers (and how many), bytes of an unquantized
    #: element, and (how its shape pads, the shape): the key of its padded shape
    experts: tuple[tuple[Tensor, str, Any, int, int, tuple[Any, ...]], ...]
    loaded: float  # the bytes of every tensor, summed in order
    params: int
    #: ``_summer``'s functions of this table, made on first use (one per sum kind)
    summers: dict[int, Any]


#: (ids of a tensor list, a scheme and an Ignored, dtype bytes) -> (list, scheme, Ignored,
#: table): holding them keeps their ids theirs.
#: Tensor lists belong to a model's facts (``_layout``, ``_own_mtp``, ``_draft_layout``),
#: so these are per-model facts under each storage a launch can pick, not per launch.
_TABLES: dict[tuple[Any, ...], tuple[Any, Any, Any, _Table]] = {}


def _table(tensors: list[Tensor], scheme: Scheme | None, ign: Ignored, unq: int) -> _Table:
    key = (id(tensors), id(scheme), id(ign), unq)
    hit = _TABLES.get(key)
    if hit is not None and hit[0] is tensors and hit[1] is scheme and hit[2] is ign:
        return hit[3]
    keys: dict[tuple[Any, ...], int] = {}
    reps: list[tuple[tuple[Any, ...], Tensor]] = []
    experts: list[tuple[Tensor, str, Any, int, int, tuple[Any, ...]]] = []
    for t in tensors:  # first the share keys: padded bytes take the slots after them
        share_key = _share_key(t)
        if share_key not in keys:
            keys[share_key] = len(reps)
            reps.append((share_key, t))
        if t.shard == "experts":
            skip = _skipped(t, scheme, ign)
            leaf = _leaf(t)
            experts.append((t, leaf, skip, len(skip) if isinstance(skip, set) else 0,
                            4 if t.fp32 else unq, (_PAD_KIND.get(leaf, 2), t.shape)))
    plain: list[tuple[str, Any, int]] = []
    per_gpu: list[tuple[str, Any, int]] = []  # padded experts: bytes * 1.0 (per stage)
    flat: list[tuple[str, Any, int]] = []  # padded experts: + bytes (a draft's flat sum)
    slot = len(reps)
    total = []
    for t in tensors:
        b = _bytes(t, scheme, ign, unq)
        total.append(b)
        # as a float: ``b * share`` converts it to a double anyway (the same rounding), and
        # a float times a float is the interpreter's fast path
        row = (t.component, float(b), keys[_share_key(t)])
        plain.append(row)
        if t.shard == "experts":
            per_gpu.append((t.component, 1.0, slot))
            flat.append((t.component, 1.0, slot))
            slot += 1
        else:
            per_gpu.append(row)
            flat.append(row)
    table = _Table(tuple(reps), _grouped(plain), _grouped(per_gpu),
                   tuple((b, k) for _, b, k in plain), tuple((b, k) for _, b, k in flat),
                   tuple(experts), sum(total), sum(t.params for t in tensors), {})
    if len(_TABLES) >= 1024:
        _TABLES.clear()
    _TABLES[key] = (tensors, scheme, ign, table)
    return table


def _share_key(t: Tensor) -> tuple[Any, ...]:
    """What ``_share`` reads of a tensor besides its shard kind."""
    kind = t.shard
    if kind in ("experts", "expert_index", "expert_index_tp"):
        return kind, t.copies
    if kind in ("vocab", "head") or kind in POS_KINDS:
        return kind, t.shape[0]
    if kind in (VISION_HEADS, ATTN_HEADS):
        return kind, t.heads
    return (kind,)


def _grouped(rows: list[tuple[str, Any, int]]
             ) -> tuple[tuple[str, tuple[tuple[Any, int], ...]], ...]:
    """Pairs by component, components in first-use order (the per-GPU dict's order)."""
    out: dict[str, list[tuple[Any, int]]] = {}
    for component, b, k in rows:
        out.setdefault(component, []).append((b, k))
    return tuple((c, tuple(pairs)) for c, pairs in out.items())


def _add(d: dict[str, float], key: str, value: float) -> None:
    d[key] = d.get(key, 0.0) + value


def _eagle_kind(model: ModelFacts) -> str | None:
    arch = " ".join(model.architectures).upper()
    return "eagle3" if "EAGLE3" in arch else "eagle" if "EAGLE" in arch else None


@per_object
def _dspark_stages(model: ModelFacts) -> bool:
    """Whether the checkpoint's draft layers are a DSpark drafter (DeepSeek-V4's DSpark
    revisions), which a DSPARK launch without a draft path loads as its draft."""
    if model.text_model_type != "deepseek_v4":  # the only family ``layout`` builds them for
        return False
    config = model.config if isinstance(model.config, Mapping) else {}
    return bool(config.get("dspark_target_layer_ids"))


def _own_mtp(model: ModelFacts) -> list[Tensor]:
    """The MTP layers a speculative draft loads from the target's checkpoint (its
    embedding and head end up the target's; the copies it holds until then are
    ``_own_copies``)."""
    return [t for t in _layout(model).mtp if t.component != "mtp_embedding"]


@per_object
def _own_copies(model: ModelFacts) -> list[Tensor]:
    """The embedding and LM head an MTP draft builds for itself (unquantized, in the
    model's dtype, vocabulary-sharded like the target's), resident while the target's
    KV pool is sized.

    SGLang 0.5.23's NextN/MTP classes (``deepseek_nextn.py``, ``qwen3_5_mtp.py``,
    ``qwen3_next_mtp.py``, ``glm4_moe_nextn.py``, ...) construct a ``VocabParallelEmbedding``
    and a ``ParallelLMHead`` (the embedding itself where the config ties them); the
    scheduler loads the draft, then sizes the target's pool from the free memory
    (``init_model_worker`` -> ``init_memory_pools`` -> ``init_target_memory_pool``), and
    only then does ``EAGLEWorkerV2.alloc_memory_pool`` call ``init_lm_head``, which swaps in
    the target's tensors (``set_embed_and_head``) and frees the copies. So the pool is
    short by them, and the draft's 'Load weight end' mem usage includes them. A DSpark
    drafter (``DeepseekV4ForCausalLMDSpark``) builds none on a GPU: it runs on the target's.
    """
    if _dspark_stages(model):
        return []
    return [t for t in _layout(model).main if t.component in ("embedding", "lm_head")]


@per_object
def _draft_copies(draft: ModelFacts) -> list[Tensor]:
    """The embedding (and head) an EAGLE/EAGLE3 draft builds and holds until
    ``init_lm_head`` hands it the target's, after the target's pool is sized (as
    ``_own_copies``): an EAGLE draft's embedding and untied head, an EAGLE3 draft's
    embedding, and its full-vocabulary head when it names no ``draft_vocab_size``
    (``load_lm_head_from_target``). A standalone draft keeps its own (counted already)."""
    kind = _eagle_kind(draft)
    cfg = draft.text_config
    vocab, h = int(cfg.get("vocab_size") or 0), draft.hidden_size or 0
    if kind is None or not vocab or not h:
        return []
    out = [Tensor("model.embed_tokens", "embedding", (vocab, h), shard="vocab")]
    draft_vocab = cfg.get("draft_vocab_size")
    if not cfg.get("tie_word_embeddings") and (
            kind == "eagle" or not (isinstance(draft_vocab, int) and draft_vocab > 0)):
        # (an EAGLE3 draft's reduced head is its own, ``_draft_layout``)
        out.append(Tensor("lm_head", "lm_head", (vocab, h), shard="head"))
    return out


@per_object
def _draft_layout(draft: ModelFacts) -> list[Tensor]:
    """The tensors an EAGLE/EAGLE3 (or standalone) draft loads beyond what it shares.

    EAGLE drafts end up sharing the target's embedding and LM head (the copies they hold
    until the target's pool is sized are ``_draft_copies``); an EAGLE3 draft with its own
    ``draft_vocab_size`` keeps a reduced LM head. EAGLE feeds ``fc`` with 2 x hidden
    (token embedding and target feature); EAGLE3 with the target's three auxiliary hidden
    states, and its first layer's q/k/v read 2 x hidden.
    """
    lay = _layout(draft)
    # a draft in the target's process gets the target's RoPE table from get_rope's cache
    tensors = [t for t in lay.main if t.component != "rope_cache"]
    cfg = draft.text_config
    h = draft.hidden_size or 0
    kind = _eagle_kind(draft)
    if kind == "eagle3":
        target_h = int(cfg.get("target_hidden_size") or h)
        aux = int(cfg.get("num_aux_hidden_states") or 3)
        draft_vocab = cfg.get("draft_vocab_size")
        out: list[Tensor] = []
        tied = bool(cfg.get("tie_word_embeddings"))
        if isinstance(draft_vocab, int) and draft_vocab > 0 and not tied:
            out.append(Tensor("lm_head", "lm_head", (draft_vocab, h), shard="head"))
        for t in tensors:
            if t.component in ("embedding", "lm_head"):
                continue
            if t.name.endswith(("q_proj", "k_proj", "v_proj")) and t.layers[:1] == (0,):
                t = t._replace(shape=(t.shape[0], 2 * t.shape[1]))
            out.append(t)
        out += [Tensor("fc", "draft_fc", (h, aux * target_h)),
                Tensor("midlayer.hidden_norm", "norms", (h, 1))]
        return out
    if kind == "eagle":
        out = [t for t in tensors if t.component not in ("embedding", "lm_head")
               and t.name != "model.norm"]
        return out + [Tensor("fc", "draft_fc", (h, 2 * h + 1))]
    return tensors  # a standalone draft model loads everything


def published_sizes() -> dict[str, dict[str, Any]]:
    """The bundled models' published checkpoint sizes, with their sources (a data file)."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "facts" / "data" / "published_weights.json"
    with open(path, encoding="utf-8") as f:
        return dict(json.load(f)["models"])
