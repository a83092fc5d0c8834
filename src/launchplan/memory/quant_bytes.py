"""Bytes of one weight matrix under a checkpoint's quantization, scales included.

Storage formats, as the checkpoints store them and SGLang 0.5.23 loads them:

* fp8 block-wise (DeepSeek-style ``weight_block_size`` [bn, bk]): 1 byte per weight plus a
  float32 ``weight_scale_inv`` per bn x bk block;
* fp8 per-tensor (``fp8`` without blocks, ``modelopt_fp8``): 1 byte plus float32 scalars;
* fp8 per-channel (``fbgemm_fp8``, ``w8a8_fp8``/``w8a8_int8`` online): 1 byte plus a float32
  scale per output row;
* nvfp4 (ModelOpt / compressed-tensors ``nvfp4-pack-quantized``): half a byte plus an fp8
  scale per 16 weights and float32 global scales;
* mxfp4 (gpt-oss): half a byte plus a uint8 scale per 32 weights;
* AWQ / GPTQ int-N: N/8 bytes plus an fp16 scale and a packed zero point per group (GPTQ
  also a 32-bit group index per input column); a GPTQ checkpoint SGLang repacks for Marlin
  keeps what ``marlin_repacked`` says;
* compressed-tensors: from ``config_groups`` (bits, float or int, strategy, group size).

Which modules stay unquantized comes from the config's ``ignore`` / ``ignored_layers`` /
``modules_to_not_convert`` / ``exclude_modules`` lists (``Ignored``).
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

_LAYER = re.compile(r"\.layers\.(\d+)(?=\.|$)")


class Scheme(NamedTuple):
    """How quantized matrices are stored: a name and the bytes of a (rows, cols) matrix."""

    name: str
    kind: str  # fp8_block | fp8_tensor | fp8_channel | nvfp4 | mxfp4 | int_group | bits
    bits: int = 8
    block: tuple[int, int] = (128, 128)
    group: int = 128
    zero_points: bool = False
    g_idx: int = 0  # int32 words kept per input column (GPTQ's group index, Marlin's sort)
    zero_bits: float = 0  # bits a stored zero point takes; 0: ``bits``
    scale_bytes: int = 4
    static_input: bool = False  # a float32 input scale per matrix
    experts_only: bool = False  # the method quantizes MoE experts only
    # routed experts stored another way than the rest (DeepSeek-V4's MXFP4 experts in an FP8
    # checkpoint): the scheme their matrices take, None when they share this one
    experts: Scheme | None = None
    # ModelOpt mixed precision: (component, scheme) for each component its quantized_layers
    # name, None for one left unquantized; a component not listed stays unquantized
    parts: tuple[tuple[str, Scheme | None], ...] = ()

    def of(self, shard: str) -> Scheme:
        """The scheme a tensor of this shard kind is stored in."""
        return self.experts if self.experts is not None and shard == "experts" else self

    def matrix_bytes(self, rows: int, cols: int) -> float:
        n = rows * cols
        if self.kind == "fp8_block":
            bn, bk = self.block
            extra = 4 if self.static_input else 0
            return n + math.ceil(rows / bn) * math.ceil(cols / bk) * 4 + extra
        if self.kind == "fp8_tensor":
            return n + 4 + (4 if self.static_input else 0)
        if self.kind == "fp8_channel":
            return n + rows * self.scale_bytes + (4 if self.static_input else 0)
        if self.kind == "nvfp4":
            return n / 2 + n / 16 + 8
        if self.kind == "mxfp4":
            return n / 2 + n / 32
        if self.kind == "int_group":
            groups = math.ceil(cols / self.group) if self.group > 0 else 1
            out = n * self.bits / 8 + rows * groups * self.scale_bytes
            if self.zero_points:
                out += rows * groups * (self.zero_bits or self.bits) / 8
            if self.g_idx:
                out += cols * 4 * self.g_idx
            return out
        return n * self.bits / 8


class Ignored:
    """The modules a quantization config leaves unquantized.

    Entries match a module path on dotted boundaries (``lm_head`` matches ``lm_head``, not
    ``lm_head_x``), as globs when they hold ``*``, or as regular expressions after ``re:``
    (compressed-tensors). An entry naming one layer (``model.layers.3.mlp.gate``) applies
    to that layer only.
    """

    __slots__ = ("_any", "_per_layer")

    def __init__(self, entries: Iterable[str]) -> None:
        self._any: list[str] = []
        self._per_layer: dict[str, set[int]] = {}
        for e in entries:
            if not isinstance(e, str) or not e:
                continue
            m = _LAYER.search(e) if not e.startswith("re:") and "*" not in e else None
            if m:
                key = e[:m.start()] + ".layers.{i}" + e[m.end():]
                self._per_layer.setdefault(key, set()).add(int(m.group(1)))
            else:
                self._any.append(e)

    def __bool__(self) -> bool:
        return bool(self._any or self._per_layer)

    def layers(self, name: str, layers: Sequence[int]) -> set[int] | bool:
        """For a tensor outside the stack: bool. Inside: the set of its layers ignored."""
        if not layers:
            return any(_match(e, name) for e in self._any)
        hit: set[int] = set()
        first = name.replace("{i}", str(layers[0])).replace("{e}", "0")
        for e in self._any:
            if e.startswith("re:"):
                for i in layers:
                    if _match(e, name.replace("{i}", str(i)).replace("{e}", "0")):
                        hit.add(i)
            elif _match(e, first):
                return set(layers)
        generic = name.replace("{e}", "0")
        for key, idx in self._per_layer.items():
            if _match(key, generic):
                hit |= idx & set(layers)
        return hit


def _match(entry: str, name: str) -> bool:
    if entry.startswith("re:"):
        try:
            return re.match(entry[3:], name) is not None
        except re.error:
            return False
    if "*" in entry or "?" in entry:
        return fnmatch.fnmatchcase(name, entry) or fnmatch.fnmatchcase(name, entry + ".*")
    return f".{entry}." in f".{name}."


_IGNORE_KEYS = ("ignore", "ignored_layers", "modules_to_not_convert", "exclude_modules",
                "ignored_modules", "skip_modules")


def ignored(qc: Mapping[str, Any] | None) -> Ignored:
    entries: list[str] = []
    for source in (qc or {}, (qc or {}).get("quantization") or {}):
        if not isinstance(source, Mapping):
            continue
        for key in _IGNORE_KEYS:
            v = source.get(key)
            if isinstance(v, str):
                entries.append(v)
            elif isinstance(v, (list, tuple)):
                entries += [x for x in v if isinstance(x, str)]
    return Ignored(entries)


def scheme_of(qc: Mapping[str, Any] | None, method: str | None) -> Scheme | None:
    """The storage scheme of a checkpoint's quantization config; None: not quantized."""
    if method is None:
        return None
    m = method.lower().replace("_", "-")
    q = qc or {}
    static = q.get("activation_scheme") == "static"
    if m in ("fp8", "modelopt-fp8", "mxfp8", "w8a8-fp8"):
        block = q.get("weight_block_size")
        if isinstance(block, (list, tuple)) and len(block) == 2:
            return Scheme(method, "fp8_block", block=(int(block[0]), int(block[1])),
                          static_input=static)
        if m == "modelopt-fp8":
            return Scheme(method, "fp8_tensor", static_input=True)
        if m == "mxfp8":
            return Scheme(method, "int_group", bits=8, group=32, scale_bytes=1)
        if m == "w8a8-fp8":
            return Scheme(method, "fp8_channel")
        return Scheme(method, "fp8_tensor", static_input=static)
    if m in ("fbgemm-fp8", "w8a8-int8"):
        return Scheme(method, "fp8_channel")
    if m == "modelopt-mixed" and isinstance(q.get("quantized_layers"), Mapping):
        return _modelopt_mixed(q["quantized_layers"], method)
    if m in ("modelopt-fp4", "modelopt-mixed", "nvfp4"):
        return Scheme(method, "nvfp4")
    if m == "mxfp4":
        return Scheme(method, "mxfp4", experts_only=True)
    if m in ("awq", "awq-marlin", "gptq", "gptq-marlin", "auto-round", "moe-wna16"):
        bits = int(q.get("bits", q.get("w_bit", 4)) or 4)
        group = int(q.get("group_size", q.get("q_group_size", 128)) or 128)
        gptq = m.startswith("gptq") or (m == "auto-round" and q.get("packing_format") != "awq")
        zero = bool(q.get("zero_point", True)) if not gptq else True
        return Scheme(method, "int_group", bits=bits, group=group, zero_points=zero,
                      g_idx=1 if gptq else 0, scale_bytes=2)
    if m == "compressed-tensors":
        return _compressed_tensors(q, method)
    if m == "bitsandbytes":
        return Scheme(method, "int_group", bits=4 if q.get("load_in_4bit") else 8, group=64,
                      scale_bytes=4 if q.get("load_in_4bit") else 0)
    return None


def marlin_repacked(scheme: Scheme, act_order: bool) -> Scheme:
    """A GPTQ checkpoint's storage once SGLang 0.5.23 repacks it for Marlin (``gptq_marlin``
    claims every symmetric 4/8-bit checkpoint it can on SM80+).

    Linear layers (``GPTQMarlinLinearKernel``): the packed weights and scales keep their
    size; the zero points of a symmetric checkpoint are swapped for an empty tensor; the
    group index is too without act order, and with it stays beside its sort permutation
    (two int32 words per input column). Routed experts (``GPTQMarlinMoEScheme``) keep their
    zero points, allocated in the model dtype over the packed column count (16 bits per
    ``32 / bits`` zero points), and the same index words. (With act order SGLang keeps one
    index per fused module, q/k/v or gate/up sharing one; here each checkpoint matrix
    counts its own: a few MiB over. Each linear's Marlin workspace, one int32 per SM, is
    left out.)
    """
    words = 2 if act_order else 0
    experts = scheme._replace(zero_points=True, zero_bits=scheme.bits / 2, g_idx=words)
    return scheme._replace(zero_points=False, g_idx=words, experts=experts)


def _compressed_tensors(q: Mapping[str, Any], method: str) -> Scheme | None:
    groups = q.get("config_groups")
    if not isinstance(groups, Mapping) or not groups:
        return None
    first = next(iter(groups.values()))
    w = first.get("weights") if isinstance(first, Mapping) else None
    if not isinstance(w, Mapping):
        return None
    bits = int(w.get("num_bits", 8) or 8)
    kind = w.get("type", "int")
    strategy = w.get("strategy", "tensor")
    inputs = first.get("input_activations")
    static = isinstance(inputs, Mapping) and not inputs.get("dynamic", True)
    if bits == 4 and kind == "float":  # nvfp4
        return Scheme(method, "nvfp4")
    if bits == 8 and kind == "float":
        if strategy == "block":
            block = w.get("block_structure") or [128, 128]
            return Scheme(method, "fp8_block", block=(int(block[0]), int(block[1])),
                          static_input=static)
        if strategy == "channel":
            return Scheme(method, "fp8_channel", scale_bytes=2, static_input=static)
        return Scheme(method, "fp8_tensor", static_input=static)
    if strategy == "group":
        return Scheme(method, "int_group", bits=bits, group=int(w.get("group_size") or 128),
                      scale_bytes=2, zero_points=not w.get("symmetric", True))
    if strategy == "channel":
        return Scheme(method, "fp8_channel" if bits == 8 else "int_group", bits=bits, group=0,
                      scale_bytes=2, zero_points=not w.get("symmetric", True))
    return Scheme(method, "bits", bits=bits)


#: ModelOpt mixed precision's per-layer algorithms and the storage each takes (SGLang's
#: ``ModelOptMixedPrecisionConfig``: FP8 is per-tensor with a static input scale, the
#: NVFP4 variants FP4 with an FP8 scale per 16, block FP8 by its group size)
_MIXED_ALGOS = {"FP8": ("fp8_tensor", True), "NVFP4": ("nvfp4", False),
                "W4A16_NVFP4": ("nvfp4", False), "FP8_PB_WO": ("fp8_block", False),
                "FP8_BLOCK": ("fp8_block", False), "MXFP8": ("mxfp8", False)}
#: Checkpoint-name markers of the plan's components, most specific first
_MIXED_PARTS = ((".shared_expert", "shared_experts"), (".experts", "experts"),
                (".self_attn.", "attention"), (".linear_attn.", "linear_attention"),
                (".mlp.", "mlp"), ("lm_head", "lm_head"))


def _modelopt_mixed(layers: Mapping[str, Any], method: str) -> Scheme:
    """A ModelOpt MIXED_PRECISION checkpoint: SGLang quantizes each linear layer by the
    algorithm ``quantized_layers`` gives it and leaves unlisted ones unquantized. The plan's
    tensors are per component, so each component takes the algorithm most of its listed
    layers have (Qwen3.6's NVFP4 checkpoints: FP8 attention and linear attention, NVFP4
    MLPs, experts and LM head)."""
    votes: dict[str, dict[str, int]] = {}
    for name, info in layers.items():
        algo = str(info.get("quant_algo", "") if isinstance(info, Mapping) else "").upper()
        part = next((c for marker, c in _MIXED_PARTS if marker in str(name)), None)
        if part is not None:
            votes.setdefault(part, {})
            votes[part][algo] = votes[part].get(algo, 0) + 1
    parts: list[tuple[str, Scheme | None]] = []
    for part, counts in sorted(votes.items()):
        algo = max(counts, key=lambda a: counts[a])
        kind, static = _MIXED_ALGOS.get(algo, ("", False))
        if kind == "fp8_block":
            sizes = [int(i.get("group_size", 128)) for i in layers.values()
                     if isinstance(i, Mapping) and str(i.get("quant_algo", "")).upper() == algo]
            size = sizes[0] if sizes else 128
            parts.append((part, Scheme(method, kind, block=(size, size))))
        elif kind == "mxfp8":
            parts.append((part, Scheme(method, "int_group", bits=8, group=32, scale_bytes=1)))
        else:
            parts.append((part, Scheme(method, kind, static_input=static) if kind else None))
    experts = dict(parts).get("experts")
    return Scheme(method, "nvfp4", experts=experts, parts=tuple(parts))
