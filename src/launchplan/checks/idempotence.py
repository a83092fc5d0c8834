"""Resolving a plan's own values again must change nothing, except where SGLang itself
is not idempotent. Those rules are listed here, in one place, with the reason.

A rule listed here transforms a value it reads (scales, divides) instead of choosing one,
so a pinned value is transformed again. ``resolve`` warns when a plan contains such a
value; ``check`` and the tests accept changes made by these rules only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launchplan.engine.result import Result
from launchplan.input.fields import FIELDS

# rule name -> (field it re-transforms, why SGLang does it again)
NON_IDEMPOTENT: Mapping[str, tuple[str, str]] = {
    "aiter_memory_scaling": (
        "mem_fraction_static",
        "aiter on contexts over 8192 tokens scales mem_fraction_static by 0.85, even an "
        "explicit value",
    ),
    "attention_dp_chunk_division": (
        "chunked_prefill_size",
        "attention data parallelism divides chunked_prefill_size by attn_dp_size, even an "
        "explicit value",
    ),
    "attention_dp_conservativeness": (
        "schedule_conservativeness",
        "attention data parallelism scales schedule_conservativeness by 0.3",
    ),
}


def pinned_fields(result: Result) -> dict[str, Any]:
    """The plan's decided values as explicit input: every input field and every declared field.

    ``random_seed`` stays unset (it is drawn at start-up), and internal fields (those
    starting with an underscore) are left to SGLang.
    """
    names = dict.fromkeys(result.record.raw.values)
    names.update(dict.fromkeys(result.declared()))
    return {n: result.value(n) for n in names
            if n in FIELDS and not n.startswith("_") and n != "random_seed"}


def reapplied(result: Result) -> list[str]:
    """Warnings for values in this plan that SGLang would transform again if pinned."""
    out = []
    for d in result.declarations:
        if d.source in NON_IDEMPOTENT:
            field, why = NON_IDEMPOTENT[d.source]
            out.append(f"{field} = {result.value(field)!r} will be changed again at start-up "
                       f"if passed explicitly: {why}")
    return out


def differences(first: Result, second: Result) -> dict[str, tuple[Any, Any, str]]:
    """Fields whose value changed on re-resolution: field -> (before, after, rule)."""
    from launchplan.checks.effective import candidate_fields

    out = {}
    for name in candidate_fields((first, second)):
        before, after = first.value(name), second.value(name)
        if before != after:
            out[name] = (before, after, second.source(name))
    return out


def unexpected(diffs: Mapping[str, tuple[Any, Any, str]]) -> dict[str, tuple[Any, Any, str]]:
    """The differences not explained by a listed non-idempotent rule."""
    allowed = {(field, rule) for rule, (field, _) in NON_IDEMPOTENT.items()}
    return {k: v for k, v in diffs.items() if (k, v[2]) not in allowed}
