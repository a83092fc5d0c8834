"""Combinatorial spaces of launches: the default space of ``check`` and user axes.

A point is (gpu, model, fields): SGLang field values taken as given (the keyword path, so
no parsing per point). Axes multiply; ``--axis FIELD=v1,v2`` replaces or adds a dimension,
and ``gpu`` and ``model`` are axes too.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from launchplan.errors import InputError
from launchplan.input.fields import FIELDS

UNSET = None


@dataclass(frozen=True)
class Point:
    gpu: str
    model: str
    fields: tuple[tuple[str, Any], ...]
    compat: str | None = None  # a rule set of its own (the ``compat`` axis), else the command's

    def as_dict(self) -> dict[str, Any]:
        return dict(self.fields)

    def argv(self) -> list[str]:
        """The point as an SGLang command line (the flags that set its fields)."""
        out: list[str] = []
        for name, value in self.fields:
            flag = FIELDS[name].flags[0] if FIELDS[name].flags else f"--{name}"
            if value is True:
                out.append(flag)
            elif isinstance(value, list):
                out.extend([flag, *map(str, value)])
            elif isinstance(value, dict):
                out.extend([flag, json.dumps(value)])
            else:
                out.extend([flag, str(value)])
        return out


# --- the default space -------------------------------------------------------------------------

MHA_BACKENDS: tuple[dict[str, Any], ...] = (
    {}, {"attention_backend": "triton"}, {"attention_backend": "flashinfer"},
    {"attention_backend": "fa3"}, {"attention_backend": "fa4"},
    {"attention_backend": "trtllm_mha"}, {"attention_backend": "torch_native"},
    {"prefill_attention_backend": "fa4", "decode_attention_backend": "trtllm_mha"},
    {"prefill_attention_backend": "trtllm_mha", "decode_attention_backend": "fa4"},
    {"prefill_attention_backend": "fa4"}, {"decode_attention_backend": "fa4"},
    {"prefill_attention_backend": "fa3", "decode_attention_backend": "flashinfer"},
)
MLA_BACKENDS: tuple[dict[str, Any], ...] = (
    {}, {"attention_backend": "triton"}, {"attention_backend": "flashinfer"},
    {"attention_backend": "fa3"}, {"attention_backend": "flashmla"},
    {"attention_backend": "trtllm_mla"}, {"attention_backend": "cutedsl_mla"},
    {"attention_backend": "fa4"},
    {"prefill_attention_backend": "fa4", "decode_attention_backend": "trtllm_mla"},
    {"decode_attention_backend": "cutedsl_mla"},
)
PAGE_SIZES = (UNSET, 1, 16, 64, 128)
PREFILL_GRAPHS = (UNSET, "full", "breakable", "disabled")
DECODE_GRAPHS = (UNSET, "full")
KV_DTYPES = (UNSET, "fp8_e4m3", "fp8_e5m2")
TP_SIZES = (UNSET, 8)
EAGLE_TOPK1 = {"speculative_algorithm": "EAGLE", "speculative_num_steps": 3,
               "speculative_eagle_topk": 1, "speculative_num_draft_tokens": 4}
EAGLE_TOPK4 = {"speculative_algorithm": "EAGLE", "speculative_num_steps": 5,
               "speculative_eagle_topk": 4, "speculative_num_draft_tokens": 8}


def speculation_for(model: Any) -> tuple[dict[str, Any], ...]:
    """No speculation; EAGLE top-k 1 and top-k 4 for Llama-class models; MTP for DeepSeek."""
    if model.arch0 == "LlamaForCausalLM":
        draft = {"speculative_draft_model_path": "llama-3.1-8b-eagle"}
        return ({}, {**EAGLE_TOPK1, **draft}, {**EAGLE_TOPK4, **draft})
    if model.arch0 in ("DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM"):
        return ({}, dict(EAGLE_TOPK1))
    return ({},)


#: Bundled models left out of the default space, each with the model in the space that stands
#: for it: another size of the same class, with the same attention kind, quantization, KV
#: head count and head tying, so it reaches the same rules. A model adds about 37,000
#: points (1,058,400 for the 29 left in); the list keeps the full ``check`` from growing
#: with every size bundled. A model given with ``--model-path`` is checked all the same.
SIZE_VARIANTS: dict[str, str] = {
    "llama-3.2-3b": "llama-3.2-1b",
    "qwen2.5-3b": "qwen2.5-0.5b",
    "qwen2.5-32b": "qwen2.5-72b",
    "qwen3-1.7b": "qwen3-0.6b",
    "qwen3-4b": "qwen3-0.6b",
    "qwen3-14b": "qwen3-32b",
}


def default_models() -> list[str]:
    """Bundled models that are not draft heads, less the size variants stood in for."""
    from launchplan.facts.models import bundled_models, load_model

    return [name for name in bundled_models()
            if "Eagle" not in load_model(name).arch0 and name not in SIZE_VARIANTS]


@dataclass
class Space:
    """gpus × models × (per-model axes) × user axes; enumerated lazily, in a fixed order."""

    gpus: Sequence[str]
    models: Sequence[str]
    axes: Sequence[tuple[str, tuple[Any, ...]]] = ()
    replace_defaults: bool = False
    compats: Sequence[str | None] = (None,)  # the ``compat`` axis: rule sets to resolve under

    def _model_axes(self, model_name: str) -> list[tuple[tuple[str, Any], ...]]:
        """The per-model cartesian factors, each a tuple of alternatives of field sets."""
        from launchplan.facts.models import load_model

        user = {name for name, _ in self.axes}
        factors: list[tuple[dict[str, Any], ...]] = []
        if not self.replace_defaults:
            model = load_model(model_name)
            defaults: list[tuple[str, tuple[dict[str, Any], ...]]] = [
                ("attention_backend", MLA_BACKENDS if model.is_mla else MHA_BACKENDS),
                ("page_size", _single("page_size", PAGE_SIZES)),
                ("cuda_graph_backend_prefill", _single("cuda_graph_backend_prefill",
                                                       PREFILL_GRAPHS)),
                ("cuda_graph_backend_decode", _single("cuda_graph_backend_decode",
                                                      DECODE_GRAPHS)),
                ("speculative_algorithm", speculation_for(model)),
                ("kv_cache_dtype", _single("kv_cache_dtype", KV_DTYPES)),
                ("tp_size", _single("tp_size", TP_SIZES)),
            ]
            factors = [alts for name, alts in defaults if name not in user]
        for name, values in self.axes:
            factors.append(_single(name, values))
        return factors  # type: ignore[return-value]

    def size(self) -> int:
        total = 0
        for model in self.models:
            n = 1
            for alts in self._model_axes(model):
                n *= len(alts)
            total += n * len(self.gpus) * len(self.compats)
        return total

    def __iter__(self) -> Iterator[Point]:
        for gpu in self.gpus:
            for model in self.models:
                for compat in self.compats:
                    yield from _block(gpu, model, compat, self._model_axes(model))

    def groups(self) -> Iterator[tuple[tuple[str, str, str], Iterator[Point]]]:
        """The space's points by (target, model, rule set), in that key's order, each group's
        points made as they are consumed, in the order ``__iter__`` gives them: ``check``
        walks a space of tens of millions of points (every architecture x release x target)
        without holding it (600 bytes a point)."""
        factors = {model: self._model_axes(model) for model in self.models}
        keys = sorted((gpu, model, compat or "") for gpu in self.gpus for model in self.models
                      for compat in self.compats)
        for gpu, model, compat in keys:
            yield (gpu, model, compat), _block(gpu, model, compat or None, factors[model])

    def sample(self, n: int, seed: int) -> list[Point]:
        """``n`` distinct points drawn uniformly (all of them if the space is smaller).

        Points are decoded from their index, so a sample of a large space never enumerates
        it; the draw is the same as sampling the enumerated list.
        """
        total = self.size()
        if n >= total:
            return list(self)
        blocks = self._blocks()
        return [self._point_at(i, blocks) for i in random.Random(seed).sample(range(total), n)]

    def _blocks(self) -> list[tuple[str, str, str | None, list[tuple[dict[str, Any], ...]],
                                     int]]:
        """(gpu, model, compat, factors, size) per block, in enumeration order."""
        per_model = {}
        for model in self.models:
            factors = self._model_axes(model)
            size = 1
            for alts in factors:
                size *= len(alts)
            per_model[model] = (factors, size)
        return [(gpu, model, compat, *per_model[model]) for gpu in self.gpus
                for model in self.models for compat in self.compats]

    def _point_at(self, index: int, blocks: list) -> Point:
        for gpu, model, compat, factors, size in blocks:
            if index >= size:
                index -= size
                continue
            merged: dict[str, Any] = {}
            picks = []
            for alts in reversed(factors):  # the last factor varies fastest
                index, pick = divmod(index, len(alts))
                picks.append(alts[pick])
            for part in reversed(picks):
                merged.update(part)
            return Point(gpu, model, tuple(merged.items()), compat)
        raise IndexError("point index out of range")


def _block(gpu: str, model: str, compat: str | None,
           factors: list[tuple[dict[str, Any], ...]]) -> Iterator[Point]:
    """The points of one (target, model, rule set), the last factor varying fastest."""
    for combo in itertools.product(*factors):
        merged: dict[str, Any] = {}
        for part in combo:
            merged.update(part)
        yield Point(gpu, model, tuple(merged.items()), compat)


def _single(name: str, values: Sequence[Any]) -> tuple[dict[str, Any], ...]:
    return tuple({} if v is UNSET else {name: v} for v in values)


def parse_axis(text: str) -> tuple[str, tuple[Any, ...]]:
    """``FIELD=v1,v2,...`` with each value converted by the field's own type."""
    name, eq, values = text.partition("=")
    name = name.strip().lstrip("-").replace("-", "_")
    if not eq or not values:
        raise InputError("--axis", "FIELD=v1,v2,...", text)
    if name in ("gpu", "model", "model_path"):
        return ("gpu" if name == "gpu" else "model"), tuple(v.strip() for v in values.split(","))
    if name == "compat":
        from launchplan.rulesets import get_ruleset

        chosen = tuple(v.strip() for v in values.split(","))
        for value in chosen:
            get_ruleset(value)  # an unknown rule set is bad input naming --compat
        return "compat", chosen
    if name not in FIELDS:
        import difflib

        close = difflib.get_close_matches(name, FIELDS, n=1)
        raise InputError("--axis", "an SGLang field name", name,
                         f"did you mean {close[0]}?" if close else None)
    return name, tuple(convert(name, v.strip()) for v in values.split(","))


def convert(name: str, text: str) -> Any:
    """One axis value as the field's type (``none`` / ``unset`` means "not given")."""
    if text.lower() in ("none", "unset", ""):
        return UNSET
    spec = FIELDS[name]
    kind = spec.parse or ""
    try:
        if spec.type in ("bool", "Optional[bool]"):
            if text.lower() in ("true", "1", "yes", "on"):
                return True
            if text.lower() in ("false", "0", "no", "off"):
                return False
            raise ValueError(text)
        if kind == "int" or kind == "human_readable_int":
            value: Any = int(text)
        elif kind == "float":
            value = float(text)
        else:
            value = text
    except ValueError:
        raise InputError(f"--axis {name}", f"values of type {spec.type}", text) from None
    if spec.choices and value not in spec.choices:
        raise InputError(f"--axis {name}", "one of " + ", ".join(map(str, spec.choices)), text)
    if spec.flags and (spec.nargs in ("+", "*") or kind in _STRUCTURED):
        # a list or JSON field: the value as SGLang's command line reads it ([5], {...})
        from launchplan.input.cli import parse_argv

        try:
            return parse_argv([f"{spec.flags[0]}={text}"]).values[name]
        except InputError:
            raise InputError(f"--axis {name}", f"values of type {spec.type}", text) from None
    return value


_STRUCTURED = frozenset({"loads", "json_list_type", "parse_cuda_graph_config_arg"})
