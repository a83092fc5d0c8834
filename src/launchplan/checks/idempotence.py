"""Resolving a plan's own values again must change nothing, except where SGLang itself
is not idempotent. Those rules are listed here, in one place, with the reason.

A rule listed here transforms a value it reads (scales, divides) instead of choosing one,
so a pinned value is transformed again. ``resolve`` warns when a plan contains such a
value; ``check`` and the tests accept changes made by these rules only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launchplan.engine.fixed_point import VOUCHED
from launchplan.engine.result import Result
from launchplan.input.fields import FIELDS, SGLANG_VERSION, release_table

# rule name -> (fields it changes again when pinned, why SGLang does it)
NON_IDEMPOTENT: Mapping[str, tuple[tuple[str, ...], str]] = {
    "aiter_memory_scaling": (
        ("mem_fraction_static",),
        "aiter on contexts over 8192 tokens scales mem_fraction_static by 0.85, even an "
        "explicit value",
    ),
    "attention_dp_adjustments": (
        ("chunked_prefill_size", "schedule_conservativeness", "cuda_graph_config"),
        "attention data parallelism divides chunked_prefill_size by attn_dp_size and scales "
        "schedule_conservativeness by 0.3, even explicit values",
    ),
    "missing_default_values": (
        ("speculative_draft_model_quantization",),
        "the draft's quantization defaults to the target's quantization as given; a "
        "checkpoint method that a model override copied into quantization is input once pinned",
    ),
}


# rule -> (fields it decides differently when the plan is pinned; empty: it refuses the
# pinned plan, why). These rules choose from a value a later step of SGLang's changes, so the
# plan's final value, given up front, leads them elsewhere. Each was checked against SGLang
# 0.5.23 itself: the pinned command of the launches below resolves there as launchplan says.
ORDER_DEPENDENT: Mapping[str, tuple[tuple[str, ...], str]] = {
    "deepep_prefill_alignment": (
        ("cuda_graph_config",),
        "waterfill chooses DeepEP after the prefill capture sizes were generated; given "
        "DeepEP up front, the sizes are rounded up to multiples of 8"),
    "eager_backend_graph_disable": (
        ("cuda_graph_config",),
        "a CPU launch's torch_native attention is chosen after the graph check; given up "
        "front, it turns the CUDA graphs off"),
    "deterministic_allreduce_fusion_off": (
        ("enforce_disable_flashinfer_allreduce_fusion",),
        "an RL on-policy target turns deterministic inference on after this check; given up "
        "front, it forces the all-reduce fusion off"),
    "mamba_radix_cache_baseline": (
        ("uses_mamba_radix_cache",),
        "deterministic inference turns the radix cache off after the hybrid-Mamba pass "
        "marked it in use; given up front, the pass leaves the mark off"),
    "flashinfer_allreduce_fusion_auto_enable": (
        ("flashinfer_allreduce_fusion_backend",),
        "an all-to-all backend SGLang normalizes to none later kept the fusion off; given "
        "none up front, the fusion is enabled"),
    "moe_runner_fusion_disable": (
        ("disable_shared_experts_fusion",),
        "follows qwen3_moe_family_overrides' runner, chosen only once the all-to-all "
        "backend is none"),
    "qwen3_moe_family_overrides": (
        ("moe_runner_backend",),
        "an all-to-all backend SGLang normalizes to none later kept the auto runner; given "
        "none up front, Blackwell's TRT-LLM runner is chosen"),
    "aux_hidden_state_capture": (
        (), "it clears a speculative algorithm that has no draft, then needs one when the "
            "cleared value is given"),
    "deterministic_attention_backend": (
        (), "the platform's default backend (aiter on ROCm) is chosen after this check; "
            "given up front, deterministic inference refuses it"),
    "iquest_q1_overrides": (
        (), "an fp8_e5m2 KV cache moves its fa3 to triton afterwards; given triton, the "
            "model refuses it"),
    "mamba_radix_cache": (
        (), "the backend's page snap (64) comes after the no_buffer check; given page 64, "
            "no_buffer refuses it"),
    "flashinfer_a2a_token_budget": (
        (), "the chunk it checks per rank is rescaled for attention DP after it; the pinned "
            "chunk is over FlashInfer's dispatch workspace"),
    "glm_dsa_aiter_allreduce_fusion": (
        ("enable_aiter_allreduce_fusion", "disable_aiter_allreduce_fusion_in_prefill"),
        "0.5.21 clears a single DP group's attention DP after this check; given no attention "
        "DP up front, GLM-DSA on ROCm turns the aiter fusion on"),
    "cache_compatibility": (
        (), "0.5.21 turns the radix cache off in a later step (an embedding model among "
            "them); given off up front beside the hierarchical cache, the check refuses both"),
    "linear_attn_backend_checks": (
        (), "NGRAM's draft top-k is set after this check; given up front, a top-k above 1 "
            "refuses the replay-SSM speculative path"),
}


def _preimage(planned: float, factor: float) -> float:
    """The float SGLang multiplies by ``factor`` to get exactly ``planned`` (the nearest one
    when no float lands exactly on it)."""
    import math

    start = planned / factor
    best, best_err = start, abs(start * factor - planned)
    for direction in (math.inf, -math.inf):
        x = start
        for _ in range(4):
            x = math.nextafter(x, direction)
            err = abs(x * factor - planned)
            if err < best_err:
                best, best_err = x, err
    return best


def _dp(result: Result) -> int:
    return int(result.value("attn_dp_size") or 1)


# rule -> field -> the value to pin so that the rule turns it into the plan's value
_INVERSES: Mapping[str, Mapping[str, Any]] = {
    "aiter_memory_scaling": {
        "mem_fraction_static": lambda r, v: _preimage(v, 0.85),
    },
    "attention_dp_adjustments": {
        # chunk // dp == planned for planned * dp; the prefill graph's max_bs is pinned, so
        # the re-clamp (which skips a locked max_bs) leaves it alone.
        "chunked_prefill_size": lambda r, v: v * _dp(r) if v is not None and v > 0 else v,
        "schedule_conservativeness": lambda r, v: _preimage(v, 0.3),
    },
}


def unapplied(result: Result, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` (a plan's pinned values) with each value a listed rule transforms replaced by
    the one SGLang turns into the planned value, so the pinned launch runs as planned (and
    the defaults in ``_REDERIVED`` left out).

    The draft's quantization is pinned as ``unquant`` when the plan runs a draft without one
    while the target's quantization is pinned (SGLang would otherwise copy it)."""
    out = {name: value for name, value in values.items() if not _rederived(result, name)}
    for rule, inverses in _INVERSES.items():
        if not _reapplies(result, rule):
            continue
        for name, inverse in inverses.items():
            if name in out and any(d.source == rule and name in d.fields
                                   for d in result.declarations):
                out[name] = inverse(result, out[name])
    if (result.value("speculative_algorithm") is not None
            and result.value("speculative_draft_model_quantization") is None
            and out.get("quantization") is not None):
        out["speculative_draft_model_quantization"] = "unquant"
    return out


def _reapplies(result: Result, rule: str) -> bool:
    """Whether pinning this plan makes ``rule`` change a value again."""
    if rule == "missing_default_values":
        return any(d.source != rule and "quantization" in d.fields
                   and d.fields["quantization"] is not None for d in result.declarations)
    return any(d.source == rule for d in result.declarations)


# field -> the rule whose default for it is left unpinned: SGLang derives the same value again
# from the same input, while a pinned one would count as the user's own (an explicit host
# ratio turns the automatic host memory fraction off)
_REDERIVED: Mapping[str, str] = {
    "hicache_ratio": "hicache_ratio_default",
    # an explicit value applies to the model and its draft alike, while ``auto`` lets a
    # separate draft keep its own preference (speculative_boundary_reduction has no flag)
    "boundary_reduction": "boundary_reduction_default",
}


def _rederived(result: Result, name: str) -> bool:
    return name in _REDERIVED and result.source(name) == _REDERIVED[name] \
        and not result.record.raw.explicit(name)


def pinned_fields(result: Result) -> dict[str, Any]:
    """The plan's decided values as explicit input: every input field and every declared field.

    ``random_seed`` stays unset (it is drawn at start-up), internal fields (those starting
    with an underscore) and the defaults in ``_REDERIVED`` are left to SGLang, and ``None``
    is not pinned: a command line cannot say it, and it means "unset".

    The names are those of the result's overlay (input, then declarations), each value read
    from it directly unless it is None (``Result.value`` then decides: a fallback or None);
    ``check`` pins every point's plan, and this is a loop over a few hundred names.
    """
    out = {}
    pinnable = _pinnable(result.record.raw.release)
    for name, value in result._overlay.items():
        if name not in pinnable:
            continue
        if value is None:
            value = result.value(name)
            if value is None:
                continue
        out[name] = value
    for name in _REDERIVED:
        if name in out and _rederived(result, name):
            del out[name]
    for name in _TOKEN_MARKERS:  # the pinned command names the flag, so it is set again
        if result.record.raw.values.get(name) is True:
            out[name] = True
    return out


#: Internal fields SGLang's parser sets when a flag's token is on the command line (not for a
#: keyword launch): a pinned plan written as a command sets them as its input did.
_TOKEN_MARKERS = ("_radix_eviction_policy_explicitly_set",)
#: Fields a plan may pin: SGLang's, less internal ones and what is drawn at start-up.
_PINNABLE = frozenset(n for n in FIELDS if not n.startswith("_") and n != "random_seed")
_PINNABLE_BY_RELEASE: dict[str, frozenset[str]] = {SGLANG_VERSION: _PINNABLE}


def _pinnable(release: str) -> frozenset[str]:
    """The fields a plan of ``release`` may pin: those its ServerArgs has (0.5.21 has no
    ``attn_dp_size``; its attention DP is ``dp_size`` with ``enable_dp_attention``)."""
    found = _PINNABLE_BY_RELEASE.get(release)
    if found is None:
        found = _PINNABLE_BY_RELEASE[release] = _PINNABLE & release_table(release).fields.keys()
    return found


def reapplied(result: Result) -> list[str]:
    """Warnings for values in this plan that SGLang would transform again if pinned."""
    out = []
    for rule, (fields, why) in NON_IDEMPOTENT.items():
        if _reapplies(result, rule):
            out.append(f"{', '.join(fields)} would be changed again if this plan's values were "
                       f"passed explicitly: {why}")
    return out


def differences(first: Result, second: Result, pinned: Mapping[str, Any] | None = None
                ) -> dict[str, tuple[Any, Any, str]]:
    """Fields whose value changed on re-resolution: field -> (before, after, rule), in
    field order. A value is read from the result's overlay unless it is None there (or
    absent): then ``Result.value`` decides (a default, or a fallback); a value is unchanged
    when it is the same object (a NaN pinned is the NaN it was).

    ``pinned``: ``second`` re-resolved ``pinned_fields(first)``. When the fixed-point test
    vouched for it (``VOUCHED``: its values are its input's own objects), every pinned field
    holds the very value ``first`` gave it, so only the fields left unpinned are compared
    (``check`` pins a few hundred fields a point; a handful are left)."""
    from launchplan.checks.effective import candidate_set, in_field_order

    mine, theirs = first._overlay, second._overlay
    vouched = pinned is not None and second.extras.get(VOUCHED) \
        and second.record.raw.values.keys() == pinned.keys()
    names = candidate_set(first, second, pinned if vouched else ())  # type: ignore[arg-type]
    changed = []
    for name in names:
        before, after = mine.get(name), theirs.get(name)
        if before is None:
            before = first.value(name)
        if after is None:
            after = second.value(name)
        if before is not after and before != after:
            changed.append(name)
    return {name: (first.value(name), second.value(name), second.source(name))
            for name in in_field_order(changed)}


def unexpected(diffs: Mapping[str, tuple[Any, Any, str]]) -> dict[str, tuple[Any, Any, str]]:
    """The differences not explained by a listed non-idempotent or order-dependent rule."""
    if not diffs:  # ``check`` asks this of every point, nearly always with nothing to explain
        return {}
    return {k: v for k, v in diffs.items() if (k, v[2]) not in _EXPLAINED}


#: (field, rule) pairs a listed rule is known to change on re-resolution.
_EXPLAINED = frozenset((field, rule) for table in (NON_IDEMPOTENT, ORDER_DEPENDENT)
                       for rule, (fields, _) in table.items() for field in fields)


def refuses_when_pinned(rule: str) -> bool:
    """Whether SGLang itself refuses a pinned plan through this rule (``ORDER_DEPENDENT``)."""
    entry = ORDER_DEPENDENT.get(rule)
    return entry is not None and not entry[0]
