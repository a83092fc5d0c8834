"""Whether a value is a number float arithmetic can take, for any value a parser admits.

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
