"""The resolved values the memory plan reads, fetched once into a plain mapping.

The memory modules ask for a few dozen values, several of them more than once; through
``Result.value`` each ask is a Python call, together as much time as the arithmetic. A
``Values`` holds the final value of every name in ``NAMES`` and of every field the input or
the rules set (the same answers as ``Result.value``), copied in two dictionary updates, so
a read is a dictionary lookup. Any other name is still answered, from the result, at a
Python call's cost (a test keeps the memory plan's reads inside ``NAMES``).

The first update copies a per-release base: each name's value when unset, for ``NAMES``
and for every field a launch of that release has set so far (a few dozen: launches set
the same fields). The second then only replaces values: a field new to the dictionary
would grow it, and growing (a new table, every entry placed again) cost more than the
two copies. The base learns a field the first time an input or a rule sets it; what it
holds is the release's unset value, the same for every launch.
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.result import Result

#: Every field the memory plan (plan.py, weights.py, kv_pool.py with the capture check,
#: and launch_requirements.gpus_used) may read.
NAMES = (
    "tp_size", "pp_size", "dp_size", "ep_size", "attn_dp_size", "attn_cp_size",
    "moe_dp_size", "dcp_size", "nnodes", "gpu_id_step", "base_gpu_id",
    "mem_fraction_static", "page_size", "kv_cache_dtype", "dtype", "quantization",
    "model_path", "speculative_algorithm", "speculative_draft_model_path",
    "speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens",
    "speculative_draft_kv_cache_dtype", "speculative_draft_attention_backend",
    "enable_dp_attention", "enable_dp_lm_head", "moe_dense_tp_size", "moe_a2a_backend",
    "moe_runner_backend", "ep_num_redundant_experts", "disable_shared_experts_fusion",
    "enable_two_batch_overlap", "enable_single_batch_overlap", "max_total_tokens",
    "max_running_requests", "chunked_prefill_size", "disable_radix_cache",
    "disable_overlap_schedule", "disaggregation_mode", "disaggregation_decode_extra_slots",
    "enable_pd_role_switch",
    "enable_unified_memory", "enable_kv_cache_sharding", "enable_linear_replayssm_spec",
    "enable_multimodal", "language_model_only", "model_impl", "mm_feature_transport",
    "disable_hybrid_swa_memory", "swa_full_tokens_ratio", "attention_backend",
    "prefill_attention_backend", "decode_attention_backend", "dsa_prefill_backend",
    "dsa_decode_backend", "enable_cp_tp_group_sharing", "mamba_ssm_dtype",
    "mamba_radix_cache_strategy", "mamba_full_memory_ratio", "max_mamba_cache_size",
    "disable_attn_tp_gather", "rl_on_policy_target", "mm_preprocess_cache_size_mb",
    "cpu_offload_gb",
    "dsv4_attn_backend", "_swa_full_tokens_ratio_explicitly_set", "swa_prefix_tails",
    "enable_deepseek_v4_fp4_indexer", "enable_hisparse", "hisparse_config",
    "enable_encoder_swa_bounded_replay",
    "enable_paged_experts", "paged_experts_num_resident", "kt_weight_path", "kt_num_gpu_experts",
    "mm_enable_dp_encoder", "cuda_graph_config",
)


class Values(dict):
    """name -> final value of one resolved launch, read like a ``Result`` (``value``,
    ``[name]``, ``record``, ``model``, ``target``) by the memory modules."""

    __slots__ = ("record", "result")

    value = dict.__getitem__  # a C-level lookup; ``__missing__`` covers other names

    def __missing__(self, name: str) -> Any:
        if self.result is None:  # let go of once the plan was made (``plan._remembered``)
            raise KeyError(name)
        value = self.result.value(name)
        self[name] = value
        return value

    @property
    def model(self) -> Any:
        return self.record.model

    @property
    def target(self) -> Any:
        return self.record.target

    def value_at(self, dotted: str) -> Any:
        return self.result.value_at(dotted)


_new_values = dict.__new__

#: per release (its defaults table): (name -> what ``Result.value`` gives when unset,
#: the fields whose unset value is a fallback, their names)
_BASES: dict[int, tuple[Any, dict[str, Any], tuple[tuple[str, Any], ...], frozenset[str]]] = {}


def _base(fields: Any, defaults: dict[str, Any], bases: dict[int, Any] = _BASES,
          names: tuple[str, ...] = NAMES) -> tuple[dict[str, Any],
                                                   tuple[tuple[str, Any], ...],
                                                   frozenset[str]]:
    hit = bases.get(id(defaults))
    if hit is not None and hit[0] is defaults:
        return hit[1], hit[2], hit[3]
    base = {}
    for name in names:
        if name in defaults:
            value = defaults[name]
            base[name] = fields[name].fallback if value is None else value
    fallbacks = tuple((name, field.fallback) for name, field in fields.items()
                      if field.fallback is not None)
    names = frozenset(name for name, _ in fallbacks)
    fallback_names = frozenset(name for name, _ in fallbacks)
    if len(bases) > 64:
        bases.clear()
    bases[id(defaults)] = (defaults, base, fallbacks, fallback_names)
    return base, fallbacks, fallback_names


def _learn(defaults: dict[str, Any], fields: Any, overlay: Any,
           bases: dict[int, Any] = _BASES) -> None:
    """Add to the release's base every field of ``overlay`` (names) it lacks, at its unset
    value (``Result.value`` of a field no one set); names the release lacks stay out."""
    defaults_, base, fallbacks, names = bases[id(defaults)]
    grown = dict(base)
    for name in overlay:
        if name not in grown and name in defaults:
            value = defaults[name]
            grown[name] = fields[name].fallback if value is None else value
    # a fresh copy: its table just large enough, so that ``update`` copies it whole
    bases[id(defaults)] = (defaults_, dict(grown), fallbacks, names)


def values_of(result: Any) -> Values:
    """The memory plan's values of ``result`` (an ``engine.result.Result``), read once."""
    out = _new_values(Values)  # (``dict.__new__``: an empty dictionary, no type call)
    out.result, out.record = result, result.record
    return _fill(out, result)


def plain_values(result: Any) -> dict[str, Any]:
    """``values_of`` as a plain ``dict`` (its record apart): the memory plan's own reads.
    A subclass's ``[name]`` (and ``itemgetter``) goes through a looked-up ``__getitem__``
    (dict's is a method, not a slot), about twice a plain dictionary's lookup.

    After a walk from scratch the result holds its view's dictionary (``Result.final``):
    every field's final value, already in place and still in the cache. It is used as it
    is, with the few fallbacks applied (``_fallen_back``), instead of a copy of the values
    (a sixth of the plan's instructions); any other result is copied (``_fill``)."""
    final = result.final if type(result) is Result else None
    if final is None:
        return _fill({}, result)
    defaults = result._defaults
    hit = _BASES.get(id(defaults))  # the release's fallbacks, as ``_fill`` finds them
    fallbacks = hit[2] if hit is not None and hit[0] is defaults else _base(
        result._fields, defaults)[1]
    for name, fallback in fallbacks:
        if final.get(name, fallback) is None:
            _fallen_back(final, result, name, fallback)
    return final


def _fallen_back(final: dict[str, Any], result: Any, name: str, fallback: Any) -> None:
    """``Result.value``'s fallback in ``final``: a ``None`` no declaration set reads as the
    field's fallback (the input's own ``None`` too); a declared ``None`` stays."""
    if name not in result._overlay or name not in result.declared():
        final[name] = fallback


def as_values(values: dict[str, Any], record: Any) -> Values:
    """A plain dictionary of ``plain_values`` as a ``Values`` (for the general sizing)."""
    out = _new_values(Values)
    out.result, out.record = None, record
    out.update(values)
    return out


def _fill(out: dict[str, Any], result: Any, bases: dict[int, Any] = _BASES,
          names: tuple[str, ...] = NAMES) -> Any:
    """``out`` filled with the final value of every name of the release's base in ``bases``
    (``names``, then what launches set) and of every field the input or the rules set."""
    if type(result) is not Result:  # another kind of result: asked name by name
        for name in names:
            try:
                out[name] = result.value(name)
            except KeyError:
                pass
        return out
    overlay, defaults = result._overlay, result._defaults
    hit = bases.get(id(defaults))  # ``_base``, inline
    if hit is not None and hit[0] is defaults:
        base, fallbacks, names = hit[1], hit[2], hit[3]
    else:
        base, fallbacks, names = _base(result._fields, defaults, bases, names)
    out.update(base)
    out.update(overlay)  # every value the rules or the input set (as ``Result.value``, but:)
    if len(out) != len(base):  # a field the base does not hold yet: it learns it
        _learn(defaults, result._fields, overlay, bases)
    if not overlay.keys().isdisjoint(names):  # (C: launches seldom set those fields)
        for name, fallback in fallbacks:  # a None no declaration set reads as the fallback
            if name in overlay and overlay[name] is None and name not in result.declared():
                out[name] = fallback
    return out  # a field the release lacks stays out: reading it fails as Result.value does
