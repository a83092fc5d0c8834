"""Kimi-K3: MLA attention backends (with decode context parallelism) and the MoE runner."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.attention import effective_backends
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    BATCH,
    backends_unset,
    env_true,
    mxfp4_pack_quantized,
)

ARCHS = frozenset({"KimiK3ForConditionalGeneration"})

# Decode backends whose MLA kernel can verify a DSPARK draft of any width in one call.
DSPARK_VERIFY_BACKENDS = frozenset({"trtllm_mla", "cutedsl_mla"})


def _ragged_verify_mode(v: Any) -> str:
    return str(v.env.get("SGLANG_RAGGED_VERIFY_MODE", "static"))


def _gluon_mla_available(v: Any) -> bool:
    """aiter's gluon MLA decode: on unless ``SGLANG_AITER_MLA_GLUON`` turns it off.

    Assumed: aiter and a Triton with Gluon ``cga_layout`` (>= 3.7) are installed.
    """
    return env_true(v, "SGLANG_AITER_MLA_GLUON")  # on by default


def _dcp(v: Any, tokenspeed: bool = False) -> dict[str, Any] | Refuse:
    out: dict[str, Any] = {}
    if v.enable_symm_mem:
        out["enable_symm_mem"] = False  # decode graphs are wrong with it under DCP
    if v.speculative_algorithm == "DSPARK":
        mode = _ragged_verify_mode(v)
        if mode != "static":
            return Refuse("Kimi-K3 with decode context parallelism and DSPARK needs "
                          f"SGLANG_RAGGED_VERIFY_MODE=static (got {mode!r})")
        out["speculative_attention_mode"] = "decode"
    prefill, decode = effective_backends(v)
    if decode in ("cutedsl_mla", None):
        return Refuse("Kimi-K3 decode context parallelism on cutedsl_mla needs FlashInfer's "
                      "DCP-capable trtllm-gen MLA decode (FlashInfer 0.6.17+), which launchplan "
                      "assumes absent, as the oracle harness does")
    elif tokenspeed and decode == "tokenspeed_mla":
        out.update(prefill_attention_backend="tokenspeed_mla",
                   decode_attention_backend="tokenspeed_mla", kv_cache_dtype="fp8_e4m3")
    elif decode == "aiter":
        if not _gluon_mla_available(v):
            return Refuse("Kimi-K3 decode context parallelism on aiter needs aiter's gluon "
                          "MLA kernel, which SGLANG_AITER_MLA_GLUON turns off")
        out.update(prefill_attention_backend="triton" if prefill == "triton" else "aiter",
                   decode_attention_backend="aiter")
    else:
        return Refuse("Kimi-K3 decode context parallelism needs the cutedsl_mla or aiter "
                      f"decode attention backend, not {decode!r}")
    if v.dcp_replicate_q_proj is None and v.dcp_comm_backend in ("a2a", "fi_a2a"):
        out["dcp_replicate_q_proj"] = True
    return out


_OVERRIDES = dict(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS + ("dcp_size", "enable_symm_mem", "speculative_algorithm",
                            "dcp_replicate_q_proj", "dcp_comm_backend"),
    writes=("enable_symm_mem", "speculative_attention_mode", "prefill_attention_backend",
            "decode_attention_backend", "dcp_replicate_q_proj"),
    facts=("model.arch0", "target.is_sm100", "target.sm"),
)


@rule(**_OVERRIDES, sglang="_kimi_k3_overrides (model_overrides/kimi_k3.py)")
def kimi_k3_overrides(v: View) -> dict | Refuse | None:
    """Kimi-K3's MLA backends: trtllm_mla on SM100/SM103, a cutedsl_mla or aiter DCP pair.

    When: decode CP (``--dcp-size`` > 1), or else an SM100/SM103 GPU.
    Effect: with decode CP the decode side must be cutedsl_mla (refused, see Assumes) or aiter
        (prefill aiter, or triton if asked), anything else refused; ``enable_symm_mem`` = off,
        ``dcp_replicate_q_proj`` = on for a2a comms, and DSPARK gets
        ``speculative_attention_mode`` = decode (static ragged verify only, else refused).
        Without it, an unset trio becomes trtllm_mla for prefill and decode, and DSPARK verifies
        on the decode backend when that backend's MLA kernel can (trtllm_mla, cutedsl_mla).
    Why: decode graphs are wrong with symmetric memory under DCP; decode CP needs a DCP-capable
        MLA decode kernel (FlashInfer's trtllm-gen one behind cutedsl_mla, or aiter's gluon one)
        (``_kimi_k3_overrides``, arg_groups/model_overrides/kimi_k3.py).
    Assumes: as in the oracle harness, FlashInfer's DCP-capable MLA decode (checked by signature
        at run time) is absent; aiter and a Triton with Gluon (>= 3.7) are installed, so aiter's
        gluon MLA kernel is present unless ``SGLANG_AITER_MLA_GLUON`` turns it off.
    """
    if v.dcp_size > 1:
        return _dcp(v)
    return _sm100_defaults(v, lambda backend: backend in DSPARK_VERIFY_BACKENDS)


def _sm100_defaults(v: Any, verifies: Any) -> dict | None:
    t = v.target
    if not (t.is_sm100 and t.sm in (100, 103)):
        return None
    unset = backends_unset(v)
    if v.speculative_algorithm != "DSPARK":
        if not unset:
            return None
        return {"decode_attention_backend": "trtllm_mla",
                "prefill_attention_backend": "trtllm_mla"}
    out: dict[str, Any] = {}
    if unset:
        backend: str | None = "trtllm_mla"
        out.update(decode_attention_backend="trtllm_mla", prefill_attention_backend="trtllm_mla")
    else:
        backend = effective_backends(v)[1]
    if verifies(backend):
        out["speculative_attention_mode"] = "decode"
    return out or None


@rule(name="kimi_k3_overrides", variant="0.5.22",
      **{**_OVERRIDES,
         "reads": _OVERRIDES["reads"] + ("kv_cache_dtype", "speculative_num_draft_tokens",
                                         "speculative_dspark_block_size"),
         "writes": _OVERRIDES["writes"] + ("kv_cache_dtype",)},
      sglang="_kimi_k3_overrides (0.5.21-0.5.22)")
def kimi_k3_overrides_0_5_22(v: View) -> dict | Refuse | None:
    """0.5.21-0.5.22: as ``kimi_k3_overrides``, with tokenspeed_mla as a backend of its own.

    When: as ``kimi_k3_overrides``.
    Effect: as ``kimi_k3_overrides``; besides, a tokenspeed_mla decode side under decode CP
        runs tokenspeed_mla for prefill and decode with an fp8_e4m3 KV cache, and DSPARK
        verifies on a tokenspeed_mla decode backend when the KV cache is fp8_e4m3 and the
        verify is at most 8 tokens wide (the draft tokens, else the DSPARK block + 1, else 8).
    Why: 0.5.23 folded tokenspeed_mla into cutedsl_mla; before, Kimi-K3 handled it apart
        (``_kimi_k3_overrides`` and ``_dspark_verify_on_decode_backend`` in 0.5.22).
    Assumes: as ``kimi_k3_overrides``.
    """
    if v.dcp_size > 1:
        return _dcp(v, tokenspeed=True)
    block = v.speculative_dspark_block_size
    q_len = v.speculative_num_draft_tokens or (block + 1 if block is not None else 8)
    return _sm100_defaults(v, lambda backend: backend in DSPARK_VERIFY_BACKENDS or (
        backend == "tokenspeed_mla" and v.kv_cache_dtype == "fp8_e4m3" and q_len <= 8))


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=("moe_runner_backend",),
    writes=("moe_runner_backend",),
    facts=("model.arch0", "model.config", "target.is_sm100", "target.sm"),
    sglang="_kimi_k3_moe_runner_overrides (model_overrides/kimi_k3.py)",
)
def kimi_k3_moe_runner_overrides(v: View) -> dict | None:
    """An MXFP4 pack-quantized K3 on SM100/SM103/SM107 runs MoE on ``flashinfer_mxfp4``.

    When: the MoE runner is automatic, the GPU is SM100/SM103/SM107 and the checkpoint is MXFP4
        pack-quantized.
    Effect: ``moe_runner_backend`` = ``flashinfer_mxfp4``; otherwise nothing.
    Why: trtllm-gen's fused MXFP4 MoE reads the packed experts; left on auto, loading would expand
        them to bf16 (``_kimi_k3_moe_runner_overrides``, arg_groups/model_overrides/kimi_k3.py).
    Assumes: nothing.
    """
    t = v.target
    if (v.moe_runner_backend == "auto" and t.is_sm100
            and t.sm in (100, 103, 107) and mxfp4_pack_quantized(v)):
        return {"moe_runner_backend": "flashinfer_mxfp4"}
    return None


# --- outside the override batch: the family's pass in handle_model_specific_adjustments ---

KIMI_HYBRID_ARCHS = frozenset({"KimiLinearForCausalLM", "KimiK3ForConditionalGeneration"})


@rule(
    phase=Phase.MODEL,
    reads=("linear_attn_decode_backend", "mamba_ssm_dtype"),
    writes=("linear_attn_decode_backend",),
    facts=("model.arch0", "target.is_sm100"),
    archs=KIMI_HYBRID_ARCHS,
    sglang="apply_kimi_k3_linear_attn_defaults (kimi_k3_hook.py)",
)
def kimi_linear_attn_defaults(v: View) -> dict | None:
    """Kimi hybrids with a bf16 SSM state on SM10x decode KDA with triton.

    When: ``--linear-attn-decode-backend`` is unset, ``mamba_ssm_dtype`` is bfloat16 and the GPU
        is SM10x.
    Effect: ``linear_attn_decode_backend`` = ``triton``; otherwise nothing.
    Why: its packed decode kernel is faster than the recurrent one on these shapes, and state
        replay needs triton (``apply_kimi_k3_linear_attn_defaults``, kimi_k3_hook.py).
    Assumes: nothing.
    """
    if (v.linear_attn_decode_backend is None
            and v.mamba_ssm_dtype == "bfloat16" and v.target.is_sm100):
        return {"linear_attn_decode_backend": "triton"}
    return None


@rule(
    phase=Phase.MODEL,
    reads=("speculative_algorithm", "linear_attn_verify_backend",
           "speculative_draft_attention_backend"),
    writes=("linear_attn_verify_backend", "speculative_draft_attention_backend"),
    facts=("model.arch0", "target.is_sm100"),
    archs=KIMI_HYBRID_ARCHS,
    sglang="apply_kimi_k3_spec_backend_defaults (kimi_k3_hook.py)",
)
def kimi_spec_backend_defaults(v: View) -> dict | None:
    """Kimi hybrids verify drafts with the fused CuTeDSL KDA kernel; DSPARK drafts use trtllm_mha.

    When: a speculative algorithm is set.
    Effect: an unset ``linear_attn_verify_backend`` = ``nv_cutedsl``; with DSPARK on SM10x, an
        unset ``speculative_draft_attention_backend`` = ``trtllm_mha``.
    Why: the DSPARK draft is dense MQA and trtllm_mha plans without a host sync
        (``apply_kimi_k3_spec_backend_defaults``, kimi_k3_hook.py).
    Assumes: nothing.
    """
    if v.speculative_algorithm is None:
        return None
    out: dict[str, Any] = {}
    if v.linear_attn_verify_backend is None:
        out["linear_attn_verify_backend"] = "nv_cutedsl"
    if (v.speculative_algorithm == "DSPARK" and v.speculative_draft_attention_backend is None
            and v.target.is_sm100):
        out["speculative_draft_attention_backend"] = "trtllm_mha"
    return out or None
