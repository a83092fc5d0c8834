"""SGLang's environment variables, read the way SGLang reads them.

A plan assumes an environment (``--env``, or the variables a pasted command line sets).
SGLang declares most of its variables in ``srt/environ.py`` with a type and a default, and
reads them through that declaration: a boolean is true for ``true``/``1``/``yes``/``y`` and
false for ``false``/``0``/``no``/``n`` (any case, nothing stripped); an integer or a float is
whatever Python's ``int``/``float`` accept; a value that does not parse is not an error --
SGLang warns and uses the default. A few older variables are read by a plain helper
(``get_bool_env_var``) that knows only ``true``/``1``. One table here, so every rule reads a
variable the same way and an odd spelling (``on``, ``Y``, `` 1``, ``abc``) means what it
means to SGLang instead of whatever each call site guessed.

The kinds and defaults are SGLang 0.5.23's (``srt/environ.py``); 0.5.21 and 0.5.22 declare
the same ones for every variable listed, except ``SGLANG_HACK_FLASHMLA_BACKEND``'s default
(``tilelang`` in 0.5.21), which no rule reads as a default, and two variables older releases
lack: ``SGLANG_MORI_EP_V2`` (from 0.5.22) and ``SGLANG_AMD_FLYDSL_MEGA_MOE_DECODE_MTPR``
(0.5.23); the rules that read them have release variants without them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_TRUE = frozenset({"true", "1", "yes", "y"})
_FALSE = frozenset({"false", "0", "no", "n"})

#: name -> (kind, default): kind is "bool", "int", "float" or "str" (``srt/environ.py``).
VARIABLES: dict[str, tuple[str, Any]] = {
    "MOONCAKE_PROTOCOL": ("str", "rdma"),
    "SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION": ("bool", False),
    "SGLANG_AITER_KV_CACHE_LAYOUT": ("str", "nhd"),
    "SGLANG_AITER_MLA_GLUON": ("bool", True),
    "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": ("bool", False),
    "SGLANG_AMD_FLYDSL_MEGA_MOE_DECODE_MTPR": ("int", 0),
    "SGLANG_AMD_FLYDSL_MEGA_MOE_MTPR": ("int", 8192),
    "SGLANG_AMD_USE_FLYDSL_MEGA_MOE": ("bool", False),
    "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK": ("int", 128),
    "SGLANG_DISABLE_LAZY_COMPACTION": ("bool", False),
    "SGLANG_DISABLE_M3_FP8_ATTN_GEMM": ("bool", False),
    "SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS": ("int", None),
    "SGLANG_DISAGG_STAGING_BUFFER": ("bool", False),
    "SGLANG_DSA_HIP_DISABLE_PRESHUFFLE": ("bool", False),
    "SGLANG_DSV4_COMPRESSED_KV_LAYOUT": ("str", "auto"),
    "SGLANG_DSV4_COMPRESS_STATE_DTYPE": ("str", "float32"),
    "SGLANG_DSV4_FP4_DEQUANT": ("bool", False),
    "SGLANG_DSV4_FP4_EXPERTS": ("bool", True),
    "SGLANG_DSV4_KV_LAYOUT": ("str", "v4"),
    "SGLANG_EMBEDDINGS_SPARSE_HEAD": ("str", None),
    "SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION": ("bool", False),
    "SGLANG_ENABLE_EMBED_REPLICATION": ("bool", False),
    "SGLANG_ENABLE_JIT_DEEPGEMM": ("bool", True),
    "SGLANG_ENABLE_OVERLAP_PLAN_STREAM": ("bool", False),
    "SGLANG_ENABLE_POST_CAPTURE_KV_SIZING": ("bool", False),
    "SGLANG_ENABLE_PP_SPEC": ("bool", False),
    "SGLANG_EXPERIMENTAL_LORA_OPTI": ("bool", False),
    "SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16": ("bool", False),
    "SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE": ("str", "bf16"),
    "SGLANG_FLASHINFER_MEGAMOE_IN_KERNEL_FC2_REDUCE": ("bool", False),
    "SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK": ("int", None),
    "SGLANG_FLASHINFER_NVFP4_PER_TOKEN_ACTIVATION": ("bool", False),
    "SGLANG_GRPC_PORT": ("int", None),
    "SGLANG_GRPC_WORKER_THREADS": ("int", 4),
    "SGLANG_HACK_FLASHMLA_BACKEND": ("str", "auto"),
    "SGLANG_IS_FLASHINFER_AVAILABLE": ("bool", True),
    "SGLANG_IS_IN_CI": ("bool", False),
    "SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE": ("bool", False),
    "SGLANG_M3_ALLOW_CUSTOM_AR": ("bool", False),
    "SGLANG_MAMBA_CONV_DTYPE": ("str", "bfloat16"),
    "SGLANG_MAMBA_SSM_DTYPE": ("str", None),
    "SGLANG_MINICPM_FORCE_DENSE": ("bool", False),
    "SGLANG_MM_FEATURE_CACHE_MB": ("int", 1024),
    "SGLANG_MOE_NVFP4_DISPATCH": ("bool", False),
    "SGLANG_MOONCAKE_CUSTOM_MEM_POOL": ("str", None),
    "SGLANG_MORI_EP_V2": ("bool", True),
    "SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK": ("int", 4096),
    "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE": ("bool", False),
    "SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK": ("int", 8192),
    "SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK": ("bool", False),
    "SGLANG_OPT_MINIMAX_M3_FP8_INDEX_CACHE": ("bool", True),
    "SGLANG_OPT_USE_ONLINE_COMPRESS": ("bool", False),
    "SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK": ("int", 128),
    "SGLANG_PREFILL_DELAYER_MAX_DELAY_PASSES": ("int", None),
    "SGLANG_PREFILL_DELAYER_TOKEN_USAGE_LOW_WATERMARK": ("float", None),
    "SGLANG_RAGGED_VERIFY_MODE": ("str", "static"),
    "SGLANG_RUST_SERVER": ("bool", False),
    "SGLANG_SCHEDULER_DECREASE_PREFILL_IDLE": ("bool", False),
    "SGLANG_SHARED_EXPERT_TP1": ("bool", False),
    "SGLANG_SIMULATE_ACC_LEN": ("float", -1.0),
    "SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR": ("float", None),
    "SGLANG_SWA_EVICTION_INTERVAL": ("int", 128),
    "SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND": ("str", "rust"),
    "SGLANG_USE_AITER": ("bool", False),
    "SGLANG_USE_AITER_UNIFIED_ATTN": ("bool", False),
    "SGLANG_USE_CUDA_IPC_TRANSPORT": ("bool", False),
    "SGLANG_USE_DEEPGEMM_BMM": ("bool", False),
    "SGLANG_VLM_CACHE_SIZE_MB": ("int", 100),
}

#: Variables SGLang reads only through ``get_bool_env_var`` (no declaration; default off).
PLAIN_FLAGS = frozenset({"SGLANG_AITER_K3_OPT"})


def _parsed(kind: str, raw: str) -> Any:
    """``raw`` as a ``kind`` value; ValueError when SGLang's parser would not take it."""
    if kind == "bool":
        low = raw.lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise ValueError(raw)
    if kind == "int":
        return int(raw)
    if kind == "float":
        return float(raw)
    return raw


def value(env: Mapping[str, str], name: str) -> Any:
    """The variable's value as SGLang's declaration reads it: the default when unset or
    when the given text does not parse (SGLang warns and carries on)."""
    kind, default = VARIABLES[name]
    raw = env.get(name)
    if raw is None:
        return default
    try:
        return _parsed(kind, raw)
    except ValueError:
        return default


def flag(env: Mapping[str, str], name: str) -> bool:
    """A boolean variable: declared ones as ``value`` reads them, the undeclared ones as
    ``plain_flag`` does."""
    if name in PLAIN_FLAGS:
        return plain_flag(env, name)
    return bool(value(env, name))


def plain_flag(env: Mapping[str, str], name: str) -> bool:
    """A boolean as ``get_bool_env_var`` reads it: true only for ``true`` or ``1`` (any
    case), off when unset. Some code still reads a declared variable this way (the DSA
    indexer's aiter test reads ``SGLANG_USE_AITER`` so), and then ``y`` or ``yes`` is off."""
    return env.get(name, "false").lower() in ("true", "1")


def given(env: Mapping[str, str], name: str) -> bool:
    """Whether the environment sets the variable at all (SGLang's ``is_set``), whatever its
    text: a few decisions turn on being set, not on the value."""
    return name in env


#: Either variable lets SGLang take a context above the one derived from the config, for the
#: model and for a draft alike (``ModelConfig._derive_context_length``; CI counts too).
LONGER_CONTEXT_ENV = ("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "SGLANG_IS_IN_CI")


def longer_context_allowed(env: Mapping[str, str]) -> bool:
    """Whether SGLang takes a context length above the derived one under ``env``."""
    return any(flag(env, name) for name in LONGER_CONTEXT_ENV)


def unreadable(env: Mapping[str, str]) -> list[str]:
    """One line per declared variable whose text SGLang would not parse and would replace
    by its default (what SGLang's warning says, in launchplan's words)."""
    out = []
    for name, raw in env.items():
        spec = VARIABLES.get(name)
        if spec is None:
            continue
        kind, default = spec
        try:
            _parsed(kind, raw)
        except ValueError:
            wanted = {"bool": "true/1/yes/y or false/0/no/n", "int": "an integer",
                      "float": "a number"}[kind]
            out.append(f"{name}={raw!r} is not {wanted}: SGLang warns and uses its default "
                       f"{default!r}")
    return out
