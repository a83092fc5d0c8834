"""The effective configuration: the resolved values an engine runs with.

Two launches that differ only in how they were spelled (a convenience flag folded into
``cuda_graph_config``, a deprecated flag folded into its replacement) or in names and paths
run the same way; comparing effective configurations is how ``sweep`` collapses points
and how ``check`` tests idempotence.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from typing import Any

from launchplan.engine.result import Result
from launchplan.input.fields import FIELDS
from launchplan.rules.graph_config import INPUT_FIELDS

# Raw spellings that rules fold into other fields: they echo input, they decide nothing.
FOLDED = frozenset(f for f in INPUT_FIELDS if f != "cuda_graph_config") | {
    "enable_dp_attention",
    "enable_flashinfer_allreduce_fusion",
}
# Names and paths: where things are, not how they run.
_NAME_SUFFIXES = ("_path", "_paths", "_name", "_dir", "_file", "_revision")
NAMES = frozenset(f for f in FIELDS if f.endswith(_NAME_SUFFIXES)) | {
    "random_seed", "host", "port", "served_model_name", "revision",
}
NOT_EFFECTIVE = FOLDED | NAMES


_ORDER = {name: i for i, name in enumerate(FIELDS)}
_KNOWN = frozenset(_ORDER)


_SPECULATIVE = frozenset(n for n, s in FIELDS.items()
                         if s.group == "spec" and n != "speculative_algorithm")


# Whether the draft's quantization was given is read only when a DSPARK MiniMax draft is
# built (sglang/srt/configs/model_config.py: ModelConfig.__init__, is_draft_quantization_explicit).
_DRAFT_QUANT_GIVEN = frozenset({"_speculative_draft_quantization_explicitly_set"})


def inert(result: Result) -> frozenset[str]:
    """Fields that have no effect in this plan: the speculative settings (a draft's
    quantization, its step counts) when no speculative algorithm runs, and the record of
    whether the draft's quantization was given except under DSPARK."""
    algorithm = result.value("speculative_algorithm")
    if algorithm is None:
        return _SPECULATIVE
    return _DRAFT_QUANT_GIVEN if algorithm != "DSPARK" else frozenset()


def candidate_fields(results: Iterable[Result]) -> list[str]:
    """Fields that are explicit or declared in any of the results (others are defaults),
    less those with no effect in every one of them."""
    return candidate_names((frozenset(r.record.raw.values) | r.declared(), inert(r))
                           for r in results)


def candidate_set(first: Result, second: Result, known_equal: Collection[str] = ()
                  ) -> set[str]:
    """``candidate_fields`` of two results, unordered (``differences`` orders only the
    names that differ: sorting every candidate would cost more than comparing them), less
    ``known_equal``: names the caller knows hold equal values, among them every name of
    ``second``'s input when it passes any."""
    names = set(first.record.raw.values)
    names.update(first.declared())
    if not known_equal:
        names.update(second.record.raw.values)
    names.update(second.declared())
    if known_equal:
        names.difference_update(known_equal)
    names -= NOT_EFFECTIVE
    names -= inert(first) & inert(second)
    names &= _KNOWN
    return names


def in_field_order(names: Iterable[str]) -> list[str]:
    return sorted(names, key=_ORDER.__getitem__)


def candidate_names(plans: Iterable[tuple[frozenset[str], frozenset[str]]]) -> list[str]:
    """``candidate_fields`` from each plan's (explicit or declared fields, inert fields)."""
    names: set[str] = set()
    idle: frozenset[str] | None = None
    for given, quiet in plans:
        names.update(given)
        idle = quiet if idle is None else idle & quiet
    names -= NOT_EFFECTIVE
    names -= idle or frozenset()
    return sorted((n for n in names if n in _ORDER), key=_ORDER.__getitem__)


def effective(result: Result, fields: Iterable[str]) -> dict[str, Any]:
    return {name: result.value(name) for name in fields}


def same_effective(first: Result, second: Result, names: Iterable[str]) -> bool:
    """Whether two results hold the same effective values on ``names``, as ``key_of`` of
    each would say (a NaN equals a NaN, a tuple its list), without writing either whole
    configuration out: a value that is the same object, or of the same type and equal, needs
    no JSON; only the rest are compared by their ``key_of`` form."""
    for name in names:
        a, b = first.value(name), second.value(name)
        if a is b or (type(a) is type(b) and a == b):
            continue
        if json.dumps(a, sort_keys=True, default=str) != json.dumps(b, sort_keys=True,
                                                                     default=str):
            return False
    return True


def key_of(config: dict[str, Any]) -> str:
    """A hashable, deterministic form of a configuration."""
    return json.dumps(config, sort_keys=True, default=str)


def config_hash(result: Result) -> str:
    """A stable hash of the effective configuration: equal plans, equal hash (for CI
    snapshots and caches). Names, paths, folded convenience flags and fields with no effect
    in the plan do not count."""
    idle = inert(result)
    names = [n for n in FIELDS if n not in NOT_EFFECTIVE and n not in idle]
    return _sha256()(key_of(effective(result, names)).encode()).hexdigest()[:16]


def _sha256() -> Any:
    """SHA-256 from Python's own implementation where it has one: ``hashlib`` loads OpenSSL
    first (4 ms of a cold ``resolve --format json``, which prints the hash); the digest is the
    same."""
    try:
        from _sha2 import sha256  # Python 3.12 and later
    except ImportError:
        try:
            from _sha256 import sha256  # Python 3.11
        except ImportError:  # a build without the builtin module
            from hashlib import sha256
    return sha256
