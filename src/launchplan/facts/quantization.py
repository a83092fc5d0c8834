"""Quantization facts of SGLang 0.5.23: which method a checkpoint declares, whether a
``--quantization`` value may serve it, and which methods each platform registers.

Everything platform-dependent is a table; the functions only read tables, so no rule grows a
chain of vendor ifs. The functions are pure: a platform is a value (``QuantPlatform``), never
a probe of the machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launchplan.facts.environment import flag
from launchplan.struct import Struct

# --- tables -------------------------------------------------------------------------------

#: Methods registered on every platform, in SGLang's registry order (the order matters: the
#: checkpoint-override pass walks it and the "unknown method" message lists it).
BASE_METHODS: tuple[str, ...] = (
    "fp8", "mxfp8", "minimax_m3_nvfp4", "blockwise_int8", "modelopt", "modelopt_fp8",
    "modelopt_fp4", "nvfp4_online", "modelopt_mixed", "w8a8_int8", "w8a8_fp8", "awq",
    "awq_marlin", "bitsandbytes", "gguf", "gptq_marlin", "moe_wna16", "compressed-tensors",
    "w4afp8", "petit_nvfp4", "quark", "quark_mxfp4", "auto-round", "auto-round-int8",
    "modelslim", "quark_int4fp8_moe", "humming", "mxfp_w4a8",
)

#: Extra methods each platform registers, appended in this order after ``BASE_METHODS``.
#: ``amd`` gets ``mxfp4`` only on gfx95 devices (MI350/MI355X), see ``AMD_GFX95_EXTRA``.
PLATFORM_EXTRA: Mapping[str, tuple[str, ...]] = {
    "nvidia": ("mxfp4",),
    "amd": (),
    "intel": ("mxfp4", "gptq", "awq"),  # XPU variants; "awq" is already registered
    "ascend": ("gptq", "mxfp4"),        # Ascend GPTQ and the W4A4 mxfp4 variant
    "cpu": ("mxfp4", "gptq"),
    "apple": ("mlx_q4", "mlx_q8"),
}
AMD_GFX95_EXTRA: tuple[str, ...] = ("mxfp4",)

#: Spellings accepted for a platform, mapped to the keys of ``PLATFORM_EXTRA``.
VENDOR_ALIASES: Mapping[str, str] = {
    "nvidia": "nvidia", "cuda": "nvidia",
    "amd": "amd", "rocm": "amd", "hip": "amd",
    "intel": "intel", "xpu": "intel",
    "ascend": "ascend", "npu": "ascend",
    "apple": "apple", "mps": "apple",
    "cpu": "cpu",
}

#: The only methods ROCm builds accept (checked after registration).
ROCM_ALLOWED: frozenset[str] = frozenset({
    "awq", "fp8", "compressed_tensors", "compressed-tensors", "w8a8_fp8", "petit_nvfp4",
    "quark", "mxfp4", "mxfp8", "auto-round", "auto-round-int8", "quark_int4fp8_moe",
    "quark_mxfp4",
})

#: Methods SGLang does not warn about as "not fully optimized".
OPTIMIZED: frozenset[str] = frozenset({
    "fp8", "marlin", "modelopt_fp8", "modelopt_fp4", "modelopt_mixed", "nvfp4_online",
    "gptq_marlin_24", "gptq_marlin", "awq_marlin", "compressed_tensors", "compressed-tensors",
    "experts_int8", "w8a8_int8", "w8a8_fp8", "moe_wna16", "w4afp8", "petit_nvfp4", "quark",
    "modelslim", "humming", "quark_mxfp4", "auto-round", "minimax_m3_nvfp4",
})
#: ... and the ones that are not warned about on SM100 either way.
OPTIMIZED_ON_SM100: frozenset[str] = frozenset({"mxfp4", "mxfp8"})

#: A ``--quantization`` value kept although the checkpoint names another method (§3.3).
CLI_ACCEPTS_CHECKPOINT: Mapping[str, frozenset[str]] = {
    "modelopt_fp8": frozenset({"modelopt"}),
    "modelopt_fp4": frozenset({"modelopt", "fp8"}),
    "modelopt_mixed": frozenset({"modelopt"}),
    "nvfp4_online": frozenset({"fp8", "modelopt_fp8"}),
    "minimax_m3_nvfp4": frozenset({"mxfp8"}),
    "petit_nvfp4": frozenset({"modelopt"}),
    "w8a8_int8": frozenset({"compressed-tensors", "compressed_tensors"}),
    "w8a8_fp8": frozenset({"compressed-tensors", "compressed_tensors"}),
    "auto-round-int8": frozenset({"compressed-tensors", "compressed_tensors"}),
}

#: CLI methods that requantize whatever the checkpoint holds (online requantization).
REQUANTIZATION: frozenset[str] = frozenset({"quark_mxfp4"})

#: ModelOpt ``quant_algo`` → method, used when the CLI says the generic ``modelopt``.
MODELOPT_ALGO_FOR_CLI: Mapping[str, str] = {
    "FP8": "modelopt_fp8", "MXFP8": "mxfp8", "FP4": "modelopt_fp4", "NVFP4": "modelopt_fp4",
    "NVFP4_AWQ": "modelopt_fp4", "W4A16_NVFP4": "modelopt_fp4",
}

#: Group sizes the marlin kernels take (AWQ and GPTQ conversion). A tuple: the checkpoint's
#: value is tested for membership and may be any JSON value, hashable or not.
MARLIN_GROUP_SIZES: tuple[int, ...] = (-1, 32, 64, 128)

#: Minimum compute capability the loader demands per method (load time, not resolution).
MIN_SM: Mapping[str, int] = {
    "fp8": 80, "mxfp8": 100, "modelopt_fp8": 89, "w8a8_fp8": 89, "modelopt_fp4": 80,
    "modelopt_mixed": 80, "mxfp4": 80, "awq_marlin": 80, "gptq_marlin": 80,
    "blockwise_int8": 80, "w4afp8": 90, "petit_nvfp4": 90, "nvfp4_online": 100, "awq": 75,
    "w8a8_int8": 75, "humming": 75, "compressed-tensors": 70, "bitsandbytes": 70,
    "moe_wna16": 70, "quark": 70, "gguf": 60, "auto-round": 60,
}
#: ``mxfp8`` loads from capability 95 on gfx95.
MIN_SM_GFX95: Mapping[str, int] = {"mxfp8": 95}


# --- errors -------------------------------------------------------------------------------

class QuantizationError(Exception):
    """SGLang refuses the quantization; ``message`` is one line for the user."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class QuantizationMismatch(QuantizationError):
    """The checkpoint's method and ``--quantization`` disagree and no rule reconciles them."""

    def __init__(self, checkpoint: str, requested: str) -> None:
        self.checkpoint = checkpoint
        self.requested = requested
        super().__init__(
            f"the checkpoint is quantized as {checkpoint!r}, which --quantization "
            f"{requested!r} cannot serve (SGLang accepts a different value only for "
            "compatible pairs or an online requantization method)")


class UnknownQuantization(QuantizationError):
    """The method is not registered on this platform."""

    def __init__(self, method: str, registered: tuple[str, ...]) -> None:
        self.method = method
        self.registered = registered
        super().__init__(f"quantization method {method!r} is not registered on this platform; "
                         f"it registers: {', '.join(registered)}")


class NotSupportedOnRocm(QuantizationError):
    """Registered, but outside ROCm's allow-list."""

    def __init__(self, method: str) -> None:
        self.method = method
        super().__init__(f"{method} quantization is not supported on ROCm")


# --- platform -----------------------------------------------------------------------------

class QuantPlatform(Struct):
    """What quantization checks need to know about the host.

    ``vendor`` is one of ``PLATFORM_EXTRA``'s keys (aliases accepted); ``sm`` is the device
    capability as a number (H100 → 90, MI300X reports 94), None without a GPU.
    """

    vendor: str
    sm: int | None = None
    gfx: str | None = None

    @classmethod
    def of(cls, vendor: str, sm: int | None = None, gfx: str | None = None) -> QuantPlatform:
        return cls(_vendor(vendor), sm, gfx)

    @classmethod
    def from_target(cls, target: Any) -> QuantPlatform:
        """From a ``facts.targets.Target`` (anything with ``vendor``, ``sm`` and ``gfx``)."""
        return cls.of(target.vendor, getattr(target, "sm", None), getattr(target, "gfx", None))

    @property
    def is_cuda(self) -> bool:
        return self.vendor == "nvidia"

    @property
    def is_hip(self) -> bool:
        return self.vendor == "amd"

    @property
    def is_gfx95(self) -> bool:
        return self.is_hip and bool(self.gfx) and "gfx95" in str(self.gfx)


def _vendor(vendor: str) -> str:
    try:
        return VENDOR_ALIASES[vendor.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"unknown platform vendor {vendor!r}; expected one of "
                         f"{', '.join(sorted(VENDOR_ALIASES))}") from None


# --- registry -----------------------------------------------------------------------------

def registry(vendor: str, gfx: str | None = None, is_cpu: bool = False) -> tuple[str, ...]:
    """The registered methods in SGLang's order: base, then the platform's additions."""
    key = "cpu" if is_cpu else _vendor(vendor)
    extra = PLATFORM_EXTRA[key]
    if key == "amd" and gfx and "gfx95" in gfx:
        extra = extra + AMD_GFX95_EXTRA
    order = list(BASE_METHODS)
    order += [m for m in extra if m not in order]
    return tuple(order)


def registered_methods(vendor: str, gfx: str | None = None, is_cpu: bool = False) -> frozenset[str]:
    """The methods ``--quantization`` (or a checkpoint) may name on this platform."""
    return frozenset(registry(vendor, gfx, is_cpu))


def check_registered(method: str, platform: QuantPlatform, *,
                     is_cpu: bool = False) -> tuple[str, ...]:
    """Refuse a method the platform cannot run; return the warnings SGLang would log."""
    order = registry(platform.vendor, platform.gfx, is_cpu)
    if method not in order:
        raise UnknownQuantization(method, order)
    if platform.is_hip and method not in ROCM_ALLOWED:
        raise NotSupportedOnRocm(method)
    if method in OPTIMIZED or (method in OPTIMIZED_ON_SM100 and platform.is_cuda
                               and platform.sm is not None and platform.sm // 10 == 10):
        return ()
    return (f"{method} quantization is not fully optimized yet; it may run slower than the "
            "unquantized model",)


# --- detection ----------------------------------------------------------------------------

def modelopt_parse(qc: Mapping[str, Any]) -> dict[str, Any] | None:
    """The method a ModelOpt description names through ``quant_algo`` (§3.2), or None.

    Accepts the nested ``hf_quant_config.json`` form (``{"quantization": {...}}``) and the flat
    ``quantization_config`` form.
    """
    inner = qc.get("quantization", qc)
    if not isinstance(inner, Mapping):
        return None
    nested = inner.get("quantization")
    if isinstance(nested, Mapping):
        inner = nested
    if not inner:
        return None
    algo = inner.get("quant_algo")
    if not isinstance(algo, str):
        return None
    if algo == "MIXED_PRECISION":
        layers = inner.get("quantized_layers")
        layers = layers.values() if isinstance(layers, Mapping) else ()
        nvfp4 = any(isinstance(layer, Mapping)
                    and str(layer.get("quant_algo", "")).upper() in ("NVFP4", "W4A16_NVFP4")
                    for layer in layers)
        return {"quant_method": "modelopt_mixed" if nvfp4 else "w4afp8", "quant_algo": algo}
    if "FP4" in algo:
        return {"quant_method": "modelopt_fp4", "quant_algo": algo}
    if algo == "FP8":
        return {"quant_method": "modelopt_fp8", "quant_algo": algo}
    if algo == "MXFP8":
        return {"quant_method": "mxfp8", "quant_algo": algo}
    return None


def effective_quant_config(config: Mapping[str, Any], *,
                           hf_quant_config: Mapping[str, Any] | None = None,
                           modelslim: Mapping[str, Any] | None = None,
                           is_draft: bool = False) -> dict[str, Any] | None:
    """The quantization description SGLang verifies, in its order of sources (§3.2).

    ``config`` is the top-level ``config.json``; ``hf_quant_config`` and ``modelslim`` are
    the parsed ``hf_quant_config.json`` / ``quant_model_description.json`` beside it, if any.
    """
    qc: dict[str, Any] | None = None
    raw = config.get("quantization_config")
    if isinstance(raw, Mapping):
        qc = dict(raw)
        if "quant_method" not in qc or qc["quant_method"] == "modelopt":
            parsed = modelopt_parse(qc)
            if parsed:
                qc.update(parsed)
    if qc is None:
        compression = config.get("compression_config")
        if isinstance(compression, Mapping):
            qc = dict(compression)
    if qc is None and hf_quant_config is not None:
        qc = modelopt_parse(hf_quant_config)
    if modelslim is not None and not is_draft:
        qc = {**modelslim, "quant_method": "modelslim"}
    return qc


def checkpoint_kv_algo(config: Mapping[str, Any], hf_quant_config: Mapping[str, Any] | None,
                       method: str | None) -> str | None:
    """The KV-cache quantization a checkpoint declares (``"FP8"``, ``"NVFP4"``, ``"auto"``),
    as the quantization config SGLang 0.5.23 builds for ``method`` reports it
    (``kv_cache_quant_algo``); None when it declares none. Under ``--kv-cache-dtype auto``
    an FP8 one stores the KV cache in FP8 (``mem_cache/kv_cache_dtype.py``): its scales are
    calibrated for that pool.

    The description is the one ``model_loader/weight_utils.get_quant_config`` hands the
    method's ``from_config``: config.json's own ``quantization_config`` (or its text
    config's, or ``compression_config``), except a ``modelopt_mixed`` one lacking the
    per-layer map or the KV metadata, else ``hf_quant_config.json``. ModelOpt's read it
    from a flat ``kv_cache_scheme`` mapping (float, 8 bits: FP8; the mixed method's 4
    bits: NVFP4; else ``auto``), a scheme named by a string (the FP4 method only),
    ``kv_cache_quant_algo``, or the nested file's ``quantization.kv_cache_quant_algo``;
    compressed-tensors' from a static symmetric per-tensor 8-bit float
    ``kv_cache_scheme`` (FP8; any other is ignored); FP8's and Petit's from
    ``kv_cache_quant_algo``; MiniMax-M3's NVFP4 always keeps an FP8 cache."""
    if not method:
        return None
    source: Mapping[str, Any] | None = None
    text = config.get("text_config")
    for candidate in (config.get("quantization_config"),
                      text.get("quantization_config") if isinstance(text, Mapping) else None,
                      config.get("compression_config")):
        if isinstance(candidate, Mapping):
            source = candidate
            break
    if method == "minimax_m3_nvfp4":
        return "FP8"  # (a checkpoint naming it; resolution picks it for M3.1's NVFP4 too)
    if method.startswith("modelopt"):
        return _modelopt_kv(source, hf_quant_config, method)
    if source is None:
        return None
    if method in ("compressed-tensors", "compressed_tensors"):
        scheme = source.get("kv_cache_scheme")
        supported = isinstance(scheme, Mapping) and scheme.get("type") == "float" \
            and scheme.get("num_bits") == 8 and scheme.get("strategy") == "tensor" \
            and scheme.get("symmetric", True) and not scheme.get("dynamic", False)
        return "FP8" if supported else None
    if method in ("fp8", "petit_nvfp4"):
        found = source.get("kv_cache_quant_algo")
        return found if isinstance(found, str) else None
    return None


def _modelopt_kv(source: Mapping[str, Any] | None, hf_quant_config: Mapping[str, Any] | None,
                 method: str) -> str | None:
    """``checkpoint_kv_algo`` for ModelOpt's methods."""
    if source is not None and method == "modelopt_mixed" and (
            "quantized_layers" not in source or (
                "kv_cache_quant_algo" not in source and "kv_cache_scheme" not in source)):
        source = None  # SGLang reads hf_quant_config.json instead
    if source is None:
        source = hf_quant_config
    if source is None:
        return None
    algo = source.get("quant_algo")
    if algo is None:  # nested: hf_quant_config.json's ``quantization`` section
        section = source.get("quantization")
        found = section.get("kv_cache_quant_algo") if isinstance(section, Mapping) else None
        return found if isinstance(found, str) else None
    scheme = source.get("kv_cache_scheme")
    if isinstance(scheme, Mapping):
        if scheme.get("type") == "float" and scheme.get("num_bits") == 8:
            return "FP8"
        if method == "modelopt_mixed" and scheme.get("type") == "float" \
                and scheme.get("num_bits") == 4:
            return "NVFP4"
        return "auto"
    if isinstance(scheme, str) and method == "modelopt_fp4":
        name = scheme.strip().upper()
        return "FP8" if name in ("FP8", "FLOAT8") else (
            "NVFP4" if name in ("FP4", "FLOAT4", "NVFP4") else "auto")
    found = source.get("kv_cache_quant_algo")
    return found if isinstance(found, str) else None


def detect_quant_method(config: Mapping[str, Any], *,
                        hf_quant_config: Mapping[str, Any] | None = None,
                        modelslim: Mapping[str, Any] | None = None,
                        is_draft: bool = False) -> str | None:
    """The checkpoint's method, lower-case; None when it declares no quantization.

    An empty string means "a quantization description without a method name": SGLang then
    uses the ``--quantization`` value in its place, or fails with an empty method name.
    """
    qc = effective_quant_config(config, hf_quant_config=hf_quant_config, modelslim=modelslim,
                                is_draft=is_draft)
    if qc is None:
        return None
    return method_of(qc)


def method_of(qc: Mapping[str, Any]) -> str:
    """The lower-cased ``quant_method`` of a description; "" when it names none."""
    method = qc.get("quant_method")
    return method.lower() if isinstance(method, str) else ""


# --- the checkpoint-override pass ---------------------------------------------------------

def _modelopt_rule(qc: Mapping[str, Any], cli: str | None, p: QuantPlatform) -> str | None:
    if cli == "nvfp4_online" or cli in REQUANTIZATION:
        return None
    if cli == "modelopt":
        algo = qc.get("quant_algo")
        method = MODELOPT_ALGO_FOR_CLI.get(algo.upper()) if isinstance(algo, str) else None
        if method:
            return method
    if qc.get("quant_method") in ("modelopt_fp8", "modelopt_fp4"):
        return str(qc["quant_method"])
    return None


def _modelopt_mixed_rule(qc: Mapping[str, Any], cli: str | None, p: QuantPlatform) -> str | None:
    return "modelopt_mixed" if qc.get("quant_method") == "modelopt_mixed" else None


def _awq_marlin_rule(qc: Mapping[str, Any], cli: str | None, p: QuantPlatform) -> str | None:
    convertible = (p.is_cuda and (p.sm or 0) >= 80 and method_of(qc) == "awq"
                   and qc.get("bits") == 4 and qc.get("zero_point") is True
                   and qc.get("group_size") in MARLIN_GROUP_SIZES)
    return "awq_marlin" if convertible and cli in (None, "marlin", "awq_marlin") else None


def _gptq_marlin_rule(qc: Mapping[str, Any], cli: str | None, p: QuantPlatform) -> str | None:
    marlin_format = qc.get("checkpoint_format") == "marlin" or bool(qc.get("is_marlin_format"))
    convertible = (method_of(qc) == "gptq" and qc.get("bits") in (4, 8)
                   and qc.get("sym") is True and qc.get("desc_act") is not None
                   and qc.get("group_size") in MARLIN_GROUP_SIZES and (p.sm or 0) >= 80)
    if convertible and not marlin_format and cli in (None, "marlin", "gptq_marlin"):
        return "gptq_marlin"
    return None


def _moe_wna16_rule(qc: Mapping[str, Any], cli: str | None, p: QuantPlatform) -> str | None:
    if cli != "moe_wna16":
        return None
    method, bits = method_of(qc), qc.get("bits")
    gptq = method == "gptq" and not qc.get("desc_act") and bits in (4, 8)
    awq = method == "awq" and bits == 4 and (p.sm if p.sm is not None else -1) >= MIN_SM["awq"]
    return "moe_wna16" if gptq or awq else None


def _petit_rule(qc: Mapping[str, Any], cli: str | None, p: QuantPlatform) -> str | None:
    return "petit_nvfp4" if p.is_hip and method_of(qc) == "modelopt" else None


def _humming_rule(qc: Mapping[str, Any], cli: str | None, p: QuantPlatform) -> str | None:
    return "humming" if cli == "humming" and qc.get("quant_method") != "mxfp4" else None


def _mlx_rule(qc: Mapping[str, Any], cli: str | None, p: QuantPlatform) -> str | None:
    if cli is not None or "quant_method" in qc:
        return None
    bits, group = qc.get("bits"), qc.get("group_size")
    if not (type(bits) is int and type(group) is int):
        return None
    return {4: "mlx_q4", 8: "mlx_q8"}.get(bits)


#: Registered methods whose class may claim a checkpoint, keyed by registry name. The pass
#: walks the platform's registry order and stops at the first claim.
OVERRIDE_RULES: Mapping[str, Any] = {
    "modelopt": _modelopt_rule,
    "modelopt_fp8": _modelopt_rule,
    "modelopt_fp4": _modelopt_rule,
    "modelopt_mixed": _modelopt_mixed_rule,
    "awq_marlin": _awq_marlin_rule,
    "gptq_marlin": _gptq_marlin_rule,
    "moe_wna16": _moe_wna16_rule,
    "petit_nvfp4": _petit_rule,
    "humming": _humming_rule,
    "mlx_q4": _mlx_rule,
    "mlx_q8": _mlx_rule,
}


def checkpoint_override(qc: Mapping[str, Any], cli: str | None, platform: QuantPlatform, *,
                        is_draft: bool = False) -> str | None:
    """The method a registered class claims for this checkpoint (e.g. ``awq`` → ``awq_marlin``).

    None when no class claims it, when the CLI asks for a requantization, or for a draft that
    explicitly asks ``nvfp4_online`` over a ModelOpt FP4/mixed checkpoint.
    """
    if cli in REQUANTIZATION:
        return None
    if is_draft and cli == "nvfp4_online" and method_of(qc) in ("modelopt_fp4", "modelopt_mixed"):
        return None
    for name in registry(platform.vendor, platform.gfx):
        rule = OVERRIDE_RULES.get(name)
        claimed = rule(qc, cli, platform) if rule else None
        if claimed:
            return claimed
    return None


# --- reconciliation -----------------------------------------------------------------------

def reconcile_quantization(detected: str | None, cli: str | None, *, is_draft: bool,
                           draft_requantization_allowed: bool = False) -> str | None:
    """The method SGLang goes on with, given the checkpoint's and the CLI's (§3.3).

    ``detected`` is the checkpoint's method after the override pass (None: no description;
    ``""``: a description without a name). ``draft_requantization_allowed`` is the HIP
    Qwen3.5-MTP exception for an explicit ``quark_mxfp4`` draft request. Raises
    ``QuantizationMismatch``.
    """
    if cli is not None:
        cli = cli.lower()
    if detected is None:
        return cli
    if detected == "" and cli:
        detected = cli  # an unnamed description takes the CLI's name
    if cli is None or cli == detected:
        return detected
    if detected in CLI_ACCEPTS_CHECKPOINT.get(cli, ()):
        return cli
    if is_draft and cli == "nvfp4_online" and detected in ("modelopt_fp4", "modelopt_mixed"):
        return cli
    if is_draft and not (draft_requantization_allowed and cli in REQUANTIZATION):
        return detected
    if cli in REQUANTIZATION:
        return cli
    raise QuantizationMismatch(detected, cli)


class QuantVerdict(Struct):
    """The verified method (None: unquantized) and the warnings SGLang would log."""

    method: str | None
    warnings: tuple[str, ...] = ()


def verify_quantization(qc: Mapping[str, Any] | None, cli: str | None, platform: QuantPlatform,
                        *, is_draft: bool = False, is_cpu: bool = False,
                        draft_requantization_allowed: bool = False) -> QuantVerdict:
    """SGLang's whole verification: override pass, reconciliation, registry and ROCm checks.

    ``qc`` is ``effective_quant_config(...)`` of the checkpoint (``ModelFacts.quant_config``).
    Raises a ``QuantizationError`` where SGLang refuses.
    """
    cli = cli.lower() if cli is not None else None
    detected: str | None = None
    if qc is not None:
        detected = method_of(qc) or (cli or "")
        claimed = checkpoint_override(qc, cli, platform, is_draft=is_draft)
        if claimed:
            detected = cli = claimed
    method = reconcile_quantization(detected, cli, is_draft=is_draft,
                                    draft_requantization_allowed=draft_requantization_allowed)
    if method is None:
        return QuantVerdict(None)
    return QuantVerdict(method, check_registered(method, platform, is_cpu=is_cpu))


# (model, quantization, target) -> None (clean) or (refusal message, warnings): a pure
# function of these, which resolution and preflight ask on every launch of a sweep.
_VERDICTS: dict[tuple[int, Any, Any], tuple[str | None, str] | None] = {}
_KEEP: dict[int, Any] = {}  # the objects whose ids key ``_VERDICTS``, alive while cached


def quantization_verdict(model: Any, quantization: Any, target: Any
                         ) -> tuple[str | None, str] | None:
    """``verify_quantization`` of ``model``'s checkpoint with this ``quantization`` value on
    ``target``: None when SGLang accepts it without a word, else (the refusal or None, the
    warnings joined)."""
    key = (id(model), quantization if isinstance(quantization, str) else repr(quantization),
           id(target))
    if key in _VERDICTS:
        return _VERDICTS[key]
    try:
        verdict = verify_quantization(model.quant_config, quantization,
                                      QuantPlatform.from_target(target))
        out = (None, "; ".join(verdict.warnings)) if verdict.warnings else None
    except QuantizationError as exc:
        out = (exc.message, "")
    if len(_VERDICTS) > 4096:
        _VERDICTS.clear()
        _KEEP.clear()
    _KEEP[id(model)] = model
    _KEEP[id(target)] = target
    _VERDICTS[key] = out
    return out


# --- routed experts packed as MXFP4 inside another checkpoint ------------------------------


def hybrid_nvfp4_experts(model: Any) -> bool:
    """A hybrid FP8+NVFP4 MoE checkpoint (SGLang's ``nvfp4_moe_meta``, built in
    ``configs/model_config.py`` from ``config.json``'s own ``quantization_config``): a
    ``quant_algo`` MIXED_PRECISION with ``moe_quant_algo`` NVFP4 and a group size
    (nvidia/DeepSeek-V4-*-NVFP4). Its routed experts are NVFP4 whatever the ``quantization``
    field says (an FP8 one, or none), so the NVFP4 MoE runners and dispatch take them."""
    qc = model.quantization_config if isinstance(model.quantization_config, Mapping) else {}
    return (str(qc.get("quant_algo", "")).upper() == "MIXED_PRECISION"
            and str(qc.get("moe_quant_algo", "")).upper() == "NVFP4"
            and qc.get("group_size") is not None)


_MIMO_V2 = ("MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM")


def mxfp4_routed_experts(model: Any) -> bool:
    """The checkpoint packs its routed experts as MXFP4 inside another quantization
    (``configs/model_config.py``): a ``routed_experts_quant_method`` of mxfp4, MiMo-V2's
    ``store_dtype`` mxfp4, and DeepSeek-V4 without that key, whose published checkpoints say
    ``expert_dtype`` fp4 (SGLang probes the weights; a plan has only the config)."""
    qc = model.quantization_config if isinstance(model.quantization_config, Mapping) else {}
    method = qc.get("routed_experts_quant_method")
    if method == "mxfp4":
        return True
    arch = model.arch0
    if arch in _MIMO_V2:
        return str(qc.get("store_dtype") or "").lower() == "mxfp4"
    return arch.startswith("DeepseekV4") and method is None


def _env_decides(model: Any) -> bool:
    """DeepSeek-V4 without ``routed_experts_quant_method``: the environment says the layout."""
    qc = model.quantization_config if isinstance(model.quantization_config, Mapping) else {}
    return model.arch0.startswith("DeepseekV4") and qc.get("routed_experts_quant_method") is None


def fp4_experts(model: Any, env: Mapping[str, str]) -> bool:
    """SGLang's ``is_fp4_experts`` under an environment: the checkpoint's layout, except that
    ``SGLANG_DSV4_FP4_EXPERTS`` (on by default) says it for DeepSeek-V4 without the key.
    (SGLang may also probe the weights' dtype; it keeps the variable's answer when it cannot
    read them, as before a Hub checkpoint is downloaded, which is where a plan stands.)"""
    if _env_decides(model):
        return flag(env, "SGLANG_DSV4_FP4_EXPERTS")
    return mxfp4_routed_experts(model)


def dequantized_experts(model: Any, env: Mapping[str, str]) -> bool:
    """MXFP4 routed experts dequantized to FP8 at load (``SGLANG_DSV4_FP4_DEQUANT``): the
    FP8 MoE method serves them, and only under the automatic MoE runner (``Fp8Config``'s
    ``get_quant_method`` asserts it)."""
    return flag(env, "SGLANG_DSV4_FP4_DEQUANT") and fp4_experts(model, env)


def fp8_held_experts(model: Any, env: Mapping[str, str]) -> bool:
    """Routed experts a checkpoint packs as MXFP4 that the GPU holds as FP8 instead: the
    dequantizing switch is on, or DeepSeek-V4 is told its experts are not FP4
    (``SGLANG_DSV4_FP4_EXPERTS`` off, without the switch: no detection runs)."""
    if flag(env, "SGLANG_DSV4_FP4_DEQUANT"):
        return True
    return (_env_decides(model) and "SGLANG_DSV4_FP4_EXPERTS" in env
            and "SGLANG_DSV4_FP4_DEQUANT" not in env
            and not flag(env, "SGLANG_DSV4_FP4_EXPERTS"))
