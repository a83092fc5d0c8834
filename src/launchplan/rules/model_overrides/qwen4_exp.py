"""Qwen4-Exp: its limits, PLE offload, dense-TP, the SM10x backend and the QSA page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BATCH, config, model_dtype
from launchplan.rules.model_overrides.qwen3_5 import HYBRID_SM100_READS, hybrid_sm100_choice

ARCHS = frozenset({"Qwen4ExpForConditionalGeneration"})

# Compressed QSA addresses slot full_slot // ratio, so pages must be 64-token aligned.
QSA_PAGE_SIZE = 64
_QSA_FIELDS = ("indexer_n_heads", "indexer_kv_heads", "indexer_head_dim", "indexer_budget",
               "indexer_compress_ratio")
# The compressed-block top-k widths fast_topk_v2 implements.
_QSA_BLOCK_TOPK = (512, 2048)


def _text(v: Any) -> Mapping[str, Any]:
    sub = config(v).get("text_config")
    return sub if isinstance(sub, Mapping) else config(v)


def qsa_profile(v: Any) -> bool | str:
    """True for a valid compressed-QSA indexer config, False without one, else why not."""
    text = _text(v)
    if text.get("indexer_n_heads") is None:
        return False
    missing = [f for f in _QSA_FIELDS if text.get(f) is None]
    if missing:
        return f"the QSA indexer config lacks {missing}"
    values = {f: int(text[f]) for f in _QSA_FIELDS}
    ratio, budget = values["indexer_compress_ratio"], values["indexer_budget"]
    if any(x <= 0 for x in values.values()):
        return "the QSA indexer config values must be positive"
    if values["indexer_kv_heads"] != 1:
        return "the QSA MQA kernels need indexer_kv_heads 1"
    if ratio < 2:
        return f"QSA needs indexer_compress_ratio >= 2, got {ratio}"
    if budget % ratio or budget // ratio not in _QSA_BLOCK_TOPK:
        return ("QSA needs indexer_budget / indexer_compress_ratio to be a whole "
                f"{' or '.join(map(str, _QSA_BLOCK_TOPK))}, got {budget} / {ratio}")
    return True


_QWEN4 = dict(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=HYBRID_SM100_READS + (
        "disaggregation_mode", "disaggregation_transfer_backend", "pp_size",
        "enable_unified_memory", "ple_offload_embedding", "moe_dense_tp_size",
        "qsa_indexer_dtype", "dtype"),
    writes=("ple_offload_embedding", "moe_dense_tp_size", "attention_backend", "page_size"),
    facts=("model.arch0", "model.config", "model.dtype", "model.is_mla",
           "model.has_asymmetric_kv", "target.is_cuda", "target.is_sm90", "target.is_sm100",
           "model.architectures", "model.has_attention_sinks", "target.has_flashinfer",
           "target.is_hip"),
)


def _qwen4_exp(v: View, dflash_fast: bool) -> dict | Refuse | None:
    if (v.disaggregation_mode != "null" and v.disaggregation_transfer_backend == "mori"
            and v.pp_size > 1):
        return Refuse("Qwen4-Exp PD disaggregation over MORI needs --pp-size 1: MORI does not "
                      "exchange QSA layer metadata between pipeline stages yet")
    if v.enable_unified_memory:
        return Refuse("Qwen4-Exp does not support --enable-unified-memory yet")
    t = v.target
    out: dict[str, Any] = {}
    if v.ple_offload_embedding is None:
        out["ple_offload_embedding"] = t.is_cuda and model_dtype(v) == "bfloat16"
    # The text config class defaults num_experts to 512: only an explicit null clears it.
    if _text(v).get("num_experts", 512) is not None and v.moe_dense_tp_size == 1:
        out["moe_dense_tp_size"] = None
    if t.is_sm100 and v.attention_backend is None:
        out.update(hybrid_sm100_choice(v, dflash_fast))
    profile = qsa_profile(v)
    if isinstance(profile, str):
        return Refuse(profile)
    if v.qsa_indexer_dtype == "fp8_e4m3":
        if not (t.is_cuda and (t.is_sm90 or t.is_sm100)):
            return Refuse("--qsa-indexer-dtype fp8_e4m3 needs a CUDA SM90 or SM10x GPU")
        if not profile:
            return Refuse("--qsa-indexer-dtype fp8_e4m3 needs the compressed QSA indexer")
    if profile:
        out["page_size"] = QSA_PAGE_SIZE
    return out or None


@rule(**_QWEN4, sglang="_qwen4_exp_overrides (model_overrides/qwen4_exp.py)")
def qwen4_exp_overrides(v: View) -> dict | Refuse | None:
    """Qwen4-Exp's defaults; a compressed-QSA checkpoint forces page 64, applied last.

    When: whenever its promises hold; each field has its own condition below.
    Effect: refuses PD over MORI with pipeline parallelism, unified memory, an invalid QSA
        indexer config, and an fp8 QSA indexer off CUDA SM90/SM10x or without compressed QSA.
        Unset ``ple_offload_embedding`` = on for bf16 on CUDA; a ``moe_dense_tp_size`` of 1 on an
        MoE model is cleared; on SM10x an unset base backend picks trtllm_mha + page 64 or
        triton + page 1 as Qwen3.5 does; compressed QSA sets ``page_size`` = 64.
    Why: MORI does not exchange QSA layer metadata between pipeline stages yet; the compressed
        QSA indexer runs on 64-token pages (``_qwen4_exp_overrides``,
        arg_groups/model_overrides/qwen4_exp.py).
    Assumes: nothing.
    """
    return _qwen4_exp(v, dflash_fast=True)


@rule(name="qwen4_exp_overrides", variant="0.5.22", **_QWEN4,
      sglang="_qwen4_exp_overrides (model_overrides/qwen4_exp.py, 0.5.21-0.5.22)")
def qwen4_exp_overrides_0_5_22(v: View) -> dict | Refuse | None:
    """As in 0.5.23, but DFLASH on SM10x takes triton with page 1 (as Qwen3.5 does there).

    When: as the 0.5.23 rule.
    Effect: as the 0.5.23 rule, except the SM10x backend choice for DFLASH.
    Why: the 0.5.21-0.5.22 generic SM10x default gives trtllm_mha only to speculation with an
        explicit top-k (``get_default_attn_backend``, arg_groups/model_override_base.py).
    Assumes: nothing.
    """
    return _qwen4_exp(v, dflash_fast=False)
