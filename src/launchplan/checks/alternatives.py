"""What would have kept an explicit value: one-flag changes that stop a rule overriding it.

Used by ``explain`` and ``--strict``. The search is honest rather than clever: for each
field the overriding rule read, try the other values that field can take (its choices, a
boolean's other state, a few numbers for numeric knobs) and keep the changes under which
the user's value survives resolution.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from launchplan.engine.result import Result
from launchplan.errors import LaunchplanError
from launchplan.input.fields import FIELDS

# Numeric fields rules branch on, and values worth trying for them.
NUMERIC_TRIALS: dict[str, tuple[Any, ...]] = {
    "speculative_eagle_topk": (1, 2, 4),
    "page_size": (1, 16, 32, 64, 128),
    "tp_size": (1, 2, 4, 8),
    "pp_size": (1, 2),
    "dp_size": (1, 2),
    "attn_dp_size": (1, 2),
    "ep_size": (1, 2, 4, 8),
    "nnodes": (1, 2),
    "mem_fraction_static": (0.8, 0.9),
    "chunked_prefill_size": (2048, 8192, 16384),
    "cuda_graph_max_bs_decode": (8, 64, 256),
    "max_running_requests": (64, 256),
    "context_length": (2048, 8192, 32768),
}
#: Values a field's limit comes from the model: tried first, as the nearest value that works
#: (a context above the config's limit is best served by the limit itself).
FACT_TRIALS: dict[str, Callable[[Any], Any]] = {
    "context_length": lambda record: record.model.derived_context_len,
}
# Fields whose value changes which kernels run; worth trying even if a rule did not read them.
ALWAYS_TRY = ("attention_backend", "prefill_attention_backend", "decode_attention_backend",
              "cuda_graph_backend_prefill")


def trial_values(name: str, current: Any = None, record: Any = None) -> tuple[Any, ...]:
    """The values worth trying for ``name``; a number's trials nearest ``current`` first, so
    the change offered is the smallest that works (a 65,536-token context over a 40,960
    limit is better served by 32,768 than by 2,048), after the value the model's own limit
    gives (``FACT_TRIALS``, with the launch's ``record``: 40,960 itself)."""
    spec = FIELDS[name]
    if spec.choices:
        return tuple(spec.choices)
    if spec.type in ("bool", "Optional[bool]"):
        return (True, False)
    trials = NUMERIC_TRIALS.get(name, ())
    if isinstance(current, (int, float)) and not isinstance(current, bool) \
            and current == current:  # nan has no nearest value: keep the table's order
        trials = tuple(sorted(trials, key=lambda value: _distance(value, current)))
    fact = FACT_TRIALS.get(name)
    if fact is not None and record is not None:
        limit = fact(record)
        if isinstance(limit, int) and limit > 0:
            trials = (limit, *(t for t in trials if t != limit))
    return trials


def _distance(value: float, current: float) -> float:
    """How far apart two settings are: by ratio for positive numbers (8 is as far from 16 as
    64 from 128), else by difference; an infinite current value is nearest the largest."""
    if current == float("inf"):
        return -value
    if value > 0 and current > 0:
        return abs(math.log(value) - math.log(current))  # each log takes any int's size
    return abs(value - current)


def keeping_changes(
    result: Result,
    field: str,
    wanted: Any,
    resolve_with: Callable[[dict[str, Any]], Result],
    *,
    limit: int = 4,
) -> list[dict[str, Any]]:
    """Up to ``limit`` single-field changes under which ``field`` resolves to ``wanted``.

    ``resolve_with(extra_fields)`` resolves the same input with ``extra_fields`` laid over
    it. Changes that make SGLang refuse, or that change ``field`` itself, are skipped.
    """
    readers: dict[str, None] = {}
    for d in result.chain(field.split(".")[0]):
        readers.update(dict.fromkeys(d.reads))
    candidates = [f for f in (*readers, *ALWAYS_TRY) if f in FIELDS and f != field]
    found: list[dict[str, Any]] = []
    for name in dict.fromkeys(candidates):
        current = result.value(name)
        for value in trial_values(name, current, result.record):
            if value == current:
                continue
            try:
                other = resolve_with({name: value})
            except LaunchplanError:
                continue
            if other.value_at(field) == wanted:
                found.append({name: value})
                break
        if len(found) >= limit:
            break
    return found


def as_flags(change: dict[str, Any]) -> str:
    """A field change as the command-line flag that makes it."""
    parts = []
    for name, value in change.items():
        flags = FIELDS[name].flags
        flag = flags[0] if flags else f"{name}="
        if value is None:
            parts.append(f"(without {flag})")
        elif value is True:
            parts.append(flag)
        elif value is False:
            no = [f for f in flags if f.startswith("--no-")]
            parts.append(no[0] if no else f"(without {flag})")
        else:
            parts.append(f"{flag} {value}")
    return " ".join(parts)
