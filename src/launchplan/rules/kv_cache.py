"""KV-cache dtype rules: retired backend aliases (P03), the KV-less prefill preconditions
(K15), NVFP4 prefill dequantisation (K7/K8, P17), the FP4 KV matrix (K9, P21) and MXFP8
(K6, P22).

FP4 and MXFP8 caches store block scales beside the values; only some attention kernels read
that layout, so these rules pin or check the prefill and decode backends.
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.attention import BACKEND_FIELDS, effective_backends

BACKEND_ALIASES = {"compressed": "dsv4", "tokenspeed_mla": "cutedsl_mla"}
BACKEND_ALIASES_0_5_22 = {"compressed": "dsv4"}  # tokenspeed_mla was a backend of its own
_ALIAS_FIELDS = BACKEND_FIELDS + ("speculative_draft_attention_backend",)
FP4_KV = ("nvfp4", "fp4_mx_block16")


# --- P03 (handle_deprecated_args) ------------------------------------------------------------


_ALIASES = dict(phase=Phase.MODEL_SOURCE, reads=_ALIAS_FIELDS, writes=_ALIAS_FIELDS,
                triggers=_ALIAS_FIELDS, normalizes=True)


@rule(sglang="handle_deprecated_args (attention-backend aliases)", **_ALIASES)
def deprecated_backend_aliases(v: View) -> Declare | None:
    """Retired backend names are renamed: ``compressed`` → dsv4, ``tokenspeed_mla`` → cutedsl_mla.

    cutedsl_mla decodes only, so a ``tokenspeed_mla`` prefill side becomes trtllm_mla. The
    names are read as given, before any rule.
    """
    return _renamed(v, BACKEND_ALIASES)


@rule(name="deprecated_backend_aliases", variant="0.5.22",
      sglang="handle_deprecated_args (attention-backend aliases, 0.5.21-0.5.22)", **_ALIASES)
def deprecated_backend_aliases_0_5_22(v: View) -> Declare | None:
    """Only ``compressed`` → dsv4 is renamed: tokenspeed_mla is still a backend of its own."""
    return _renamed(v, BACKEND_ALIASES_0_5_22)


def _renamed(v: View, aliases: dict[str, str]) -> Declare | None:
    renamed: dict[str, str] = {}
    for field in _ALIAS_FIELDS:
        old = v.raw(field)
        if old in aliases:
            renamed[field] = aliases[old]
    if renamed.get("prefill_attention_backend") == "cutedsl_mla":
        renamed["prefill_attention_backend"] = "trtllm_mla"
    if not renamed:
        return None
    return Declare(renamed, "deprecated attention backend names: "
                   + ", ".join(f"{f}={v.raw(f)} -> {n}" for f, n in renamed.items()))


@rule(
    phase=Phase.MODEL_SOURCE,
    reads=("attention_backend", "decode_attention_backend", "kv_cache_dtype",
           "speculative_algorithm", "speculative_attention_mode"),
    writes=("kv_cache_dtype", "speculative_attention_mode"),
    sglang="handle_deprecated_args (tokenspeed_mla implications)",
    triggers=("attention_backend", "decode_attention_backend"),
)
def tokenspeed_mla_implications(v: View) -> Declare | None:
    """``tokenspeed_mla`` implied an FP8 (e4m3) KV cache and verifying drafts on the decode kernel.

    The rename keeps both: KV fp8_e4m3 (over an explicit dtype) and, when speculating with
    prefill-mode verification, decode-mode verification.
    """
    if "tokenspeed_mla" not in (v.raw("attention_backend"), v.raw("decode_attention_backend")):
        return None
    out: dict[str, str] = {}
    if v.kv_cache_dtype != "fp8_e4m3":
        out["kv_cache_dtype"] = "fp8_e4m3"
    if v.speculative_algorithm is not None and v.speculative_attention_mode == "prefill":
        out["speculative_attention_mode"] = "decode"
    if not out:
        return None
    return Declare(out, "tokenspeed_mla implied an fp8_e4m3 KV cache and decode-mode "
                   "verification")


# --- K15 (validate_prefill_only_disable_kv_cache_args, step 20) ------------------------------


@rule(
    phase=Phase.MODEL_SOURCE,
    reads=("prefill_only_disable_kv_cache", "is_embedding", "kv_cache_dtype",
           "chunked_prefill_size", "disable_radix_cache", "attn_cp_size", "enable_prefill_cp",
           "enable_hisparse"),
    sglang="validate_prefill_only_disable_kv_cache_args",
    triggers=("prefill_only_disable_kv_cache",),
)
def prefill_only_kv_cache_args(v: View) -> Refuse | None:
    """The KV-less prefill (no KV pool at all) has strict preconditions.

    Embedding mode only; no FP4 or MXFP8 KV (their pools allocate scales separately);
    chunked prefill off (-1) so K/V is never reused across chunks; radix cache off (it
    would index pool slots holding no data); no context parallelism (it writes K/V into the
    pool) and no HiSparse (its own pool family).
    """
    if not v.prefill_only_disable_kv_cache:
        return None
    if not v.is_embedding:
        return Refuse("--prefill-only-disable-kv-cache needs --is-embedding")
    if v.kv_cache_dtype in FP4_KV + ("mxfp8",):
        return Refuse("--prefill-only-disable-kv-cache does not support kv_cache_dtype "
                      f"{v.kv_cache_dtype}")
    if v.chunked_prefill_size != -1:
        return Refuse("--prefill-only-disable-kv-cache needs --chunked-prefill-size -1")
    if not v.disable_radix_cache:
        return Refuse("--prefill-only-disable-kv-cache needs --disable-radix-cache")
    if v.attn_cp_size > 1 or v.enable_prefill_cp:
        return Refuse("--prefill-only-disable-kv-cache does not support context parallelism")
    if v.enable_hisparse:
        return Refuse("--prefill-only-disable-kv-cache does not support --enable-hisparse")
    return None


# --- P17 -------------------------------------------------------------------------------------

# The prefill backend that consumes each dequantisation dtype, and back.
_NVFP4_PREFILL = {"fp8_e4m3": "flashinfer", "nvfp4": "trtllm_mha"}
_NVFP4_DEQUANT = {backend: dtype for dtype, backend in _NVFP4_PREFILL.items()}


@rule(
    phase=Phase.KERNEL,
    reads=BACKEND_FIELDS + ("kv_cache_dtype", "prefill_kv_cache_dequant_dtype"),
    writes=("prefill_attention_backend", "decode_attention_backend",
            "prefill_kv_cache_dequant_dtype"),
    facts=("target.is_sm100",),
    sglang="handle_nvfp4_prefill_kv_dequant_dtype",
    triggers=("kv_cache_dtype", "prefill_kv_cache_dequant_dtype"),
)
def nvfp4_prefill_dequant(v: View) -> Declare | Refuse | None:
    """An NVFP4 KV cache prefills through an FP8 workspace (flashinfer) or natively (trtllm_mha).

    The dequant dtype defaults from an already-chosen prefill (or base) backend, else to
    native NVFP4 on SM10x and FP8 elsewhere; native NVFP4 needs SM10x. Decode always reads
    NVFP4 on trtllm_mha. Conflicting explicit backends are refused. It runs before the
    generic default, so a model override's backend counts as chosen (rules.md C8).
    """
    requested = v.prefill_kv_cache_dequant_dtype
    if v.kv_cache_dtype != "nvfp4":
        if requested != "auto":
            return Refuse("--prefill-kv-cache-dequant-dtype applies only with "
                          "--kv-cache-dtype nvfp4")
        return None
    dtype = requested
    if dtype == "auto":
        chosen = v.prefill_attention_backend or v.attention_backend
        if chosen in _NVFP4_DEQUANT:
            dtype = _NVFP4_DEQUANT[chosen]
        elif chosen is not None:
            return Refuse(f"NVFP4 prefill needs an FP8 workspace (flashinfer) or native NVFP4 "
                          f"(trtllm_mha); {chosen} provides neither")
        else:
            dtype = "nvfp4" if v.target.is_sm100 else "fp8_e4m3"
    if dtype == "nvfp4" and not v.target.is_sm100:
        return Refuse("native NVFP4 prefill needs an SM10x GPU; use "
                      "--prefill-kv-cache-dequant-dtype fp8_e4m3")
    prefill = _NVFP4_PREFILL[dtype]
    if v.prefill_attention_backend not in (None, prefill):
        return Refuse(f"NVFP4 prefill dequant {dtype} needs prefill backend {prefill}, not "
                      f"{v.prefill_attention_backend}")
    if v.decode_attention_backend not in (None, "trtllm_mha"):
        return Refuse("NVFP4 decode needs the trtllm_mha decode backend, not "
                      f"{v.decode_attention_backend}")
    out = {"prefill_attention_backend": prefill, "decode_attention_backend": "trtllm_mha"}
    if requested == "auto":
        out["prefill_kv_cache_dequant_dtype"] = dtype
    return Declare(out, f"NVFP4 KV: prefill {prefill} ({dtype}), decode trtllm_mha")


# --- P21 / P22 -------------------------------------------------------------------------------

_NATIVE_SPEC = ("EAGLE", "EAGLE3", "NEXTN", "NGRAM")


@rule(
    phase=Phase.ATTENTION_LATE,
    reads=BACKEND_FIELDS + (
        "kv_cache_dtype", "enable_unified_memory", "speculative_algorithm",
        "speculative_ngram_max_bfs_breadth", "speculative_draft_attention_backend",
        "speculative_attention_mode", "disaggregation_mode", "enable_hierarchical_cache",
        "enable_lmcache"),
    writes=("speculative_draft_attention_backend", "speculative_attention_mode"),
    facts=("target.is_cuda", "target.is_sm100", "target.is_sm120", "model.is_mla"),
    sglang="handle_kv4_compatibility",
    triggers=("kv_cache_dtype",),
)
def kv4_compatibility(v: View) -> Declare | Refuse | None:
    """FP4 KV caches (nvfp4, fp4_mx_block16) against the backends that can read them.

    CUDA only; nvfp4 needs SM10x/SM12x; no unified memory. The SM10x native recipe
    (trtllm_mha on either side) keeps block scales in trtllm-gen's physical layout, which
    DFLASH/DSPARK prefix writes, PD transfer, HiCache and LMCache do not preserve; it
    speculates with EAGLE/EAGLE3/NEXTN or breadth-1 NGRAM, and a draft model runs on
    trtllm_mha too. The mixed recipe (flashinfer prefill, trtllm_mha decode) verifies on
    the decode kernel. Otherwise equal sides must be an FP4-capable backend.
    """
    kv = v.kv_cache_dtype
    if kv not in FP4_KV:
        return None
    target = v.target
    if not target.is_cuda:
        return Refuse("FP4 KV caches are supported on CUDA only")
    if kv == "nvfp4" and not (target.is_sm100 or target.is_sm120):
        return Refuse("--kv-cache-dtype nvfp4 needs an SM10x or SM12x GPU; use "
                      "fp4_mx_block16 for the block-16 FP4 recipe")
    if v.enable_unified_memory:
        return Refuse("FP4 KV caches do not support --enable-unified-memory (no block scales "
                      "in the unified pool)")
    prefill, decode = effective_backends(v)
    native = kv == "nvfp4" and target.is_sm100 and "trtllm_mha" in (prefill, decode)
    mixed = kv == "nvfp4" and prefill == "flashinfer" and decode == "trtllm_mha"
    algorithm = v.speculative_algorithm
    algo = algorithm.upper() if algorithm is not None else None
    out: dict[str, str] = {}
    notes = []
    if native:
        if algo in ("DFLASH", "DSPARK"):
            return Refuse(f"native NVFP4 on SM10x does not support {algo} yet; use EAGLE/NEXTN "
                          "or NGRAM")
        if algo is not None and algo not in _NATIVE_SPEC:
            return Refuse("native NVFP4 on SM10x speculates with EAGLE, EAGLE3, NEXTN or "
                          f"breadth-1 NGRAM; got {algo}")
        if algo == "NGRAM" and v.speculative_ngram_max_bfs_breadth != 1:
            return Refuse("native NVFP4 NGRAM needs --speculative-ngram-max-bfs-breadth 1: "
                          "trtllm_mha verifies linear chains only")
        if algo not in (None, "NGRAM"):
            draft = v.speculative_draft_attention_backend
            if draft is None:
                out["speculative_draft_attention_backend"] = "trtllm_mha"
                notes.append("native NVFP4: the draft worker runs on trtllm_mha")
            elif draft != "trtllm_mha":
                return Refuse("native NVFP4 needs --speculative-draft-attention-backend "
                              f"trtllm_mha; got {draft}")
        if mixed and algorithm is not None and v.speculative_attention_mode == "prefill":
            out["speculative_attention_mode"] = "decode"
            notes.append("mixed NVFP4: target verification runs on trtllm_mha (decode mode)")
        if v.disaggregation_mode != "null":
            return Refuse("native NVFP4 with trtllm_mha does not support PD disaggregation")
        if v.enable_hierarchical_cache or v.enable_lmcache:
            return Refuse("native NVFP4 with trtllm_mha does not support HiCache or LMCache")
    refusal = _kv4_backend_refusal(v, prefill, decode, mixed)
    if refusal is not None:
        return refusal
    if prefill != decode and prefill != "fa4" and not mixed:
        notes.append(f"FP4 KV with prefill {prefill} and decode {decode}: untested pairing")
    if not out and not notes:
        return None
    return Declare(out, "; ".join(notes) or None)


def _kv4_backend_refusal(v: Any, prefill: str, decode: str, mixed: bool) -> Refuse | None:
    mla = v.model.is_mla
    if prefill != decode and prefill != "fa4":
        return None
    if prefill == "fa4":
        allowed = ("flashinfer", "trtllm_mla") if mla else ("triton", "torch_native",
                                                            "flex_attention")
        if decode not in allowed:
            return Refuse(f"FP4 KV with fa4 prefill needs decode backend in {list(allowed)}; "
                          f"got {decode}")
        return None
    allowed = ("flashinfer", "trtllm_mla") if mla else ("triton", "torch_native",
                                                        "flex_attention", "trtllm_mha")
    if v.attention_backend not in allowed:
        return Refuse(f"FP4 KV needs attention_backend in {list(allowed)}; got "
                      f"{v.attention_backend}")
    return None


@rule(
    phase=Phase.ATTENTION_LATE,
    reads=("kv_cache_dtype",),
    facts=("target.is_blackwell", "target.name", "target.sm"),
    sglang="handle_mxfp8_kv_cache_compatibility",
    triggers=("kv_cache_dtype",),
)
def mxfp8_kv_check(v: View) -> Refuse | None:
    """An MXFP8 KV cache uses Blackwell's block-scaled operands (the FA4 MXFP8 path)."""
    if v.kv_cache_dtype == "mxfp8" and not v.target.is_blackwell:
        return Refuse(f"--kv-cache-dtype mxfp8 needs a Blackwell GPU; {v.target.name} is "
                      f"SM{v.target.sm}")
    return None
