"""Whether a value is a number float arithmetic can take, for any value a parser admits, and
how a float is shown to a person.

``math.isfinite`` and ``math.isnan`` convert their argument to a float first, and an int past
the float range (a ``config.json`` or a keyword argument may hold ``10**400``; JSON and Python
literals have no size limit) raises ``OverflowError`` there instead of answering. Such an int
is as unusable as ``inf`` for the arithmetic that follows, so it counts as not finite.
"""

from __future__ import annotations

import math
import sys
from typing import Any

_FLOAT_MAX = sys.float_info.max


def finite(value: Any) -> bool:
    """A real number (not a bool) that a float holds: a finite float, or an int within the
    float range."""
    kind = type(value)
    if kind is float:
        return math.isfinite(value)
    if kind is int:
        return -_FLOAT_MAX <= value <= _FLOAT_MAX
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return finite(float(value)) if isinstance(value, float) else finite(int(value))


def is_nan(value: Any) -> bool:
    """Whether ``value`` is a float NaN (an int never is, however large)."""
    return isinstance(value, float) and math.isnan(value)


def human_float(value: float) -> str:
    """A float as a person writes it: 0.7225, not 0.7224999999999999 (JSON keeps it exact).
    Tables and messages both print floats this way, so a message names the table's value."""
    if value != value or value in (float("inf"), float("-inf")):
        return str(value)
    if value == int(value) and abs(value) < 1e15:
        return f"{value:.1f}"
    return f"{value:.10g}"
