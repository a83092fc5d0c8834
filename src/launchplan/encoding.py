"""Plain RFC 8259 JSON for every value a plan can hold, non-finite numbers included.

SGLang's parser admits ``nan``, ``inf`` and ``-inf`` for float flags (and ``NaN`` /
``Infinity`` inside its JSON flags), and rules compute with them, so a plan may hold them.
JSON has no token for them: launchplan writes them as the strings ``"nan"``, ``"inf"`` and
``"-inf"``, everywhere it writes JSON. Described capture-size lists (``SizeList``) are written
in their compact form; sets as sorted lists; integers longer than Python prints (4,300
digits, reachable only by arithmetic on the longest inputs) as strings of their digits;
anything else JSON cannot hold as its ``str``.
"""

from __future__ import annotations

import json
import math
from typing import Any


def non_finite_text(value: float) -> str:
    """The string a non-finite float is written as: ``nan``, ``inf`` or ``-inf``."""
    if math.isnan(value):
        return "nan"
    return "inf" if value > 0 else "-inf"


# Python will not print an integer of more than 4,300 digits (sys.int_info); launchplan's
# parser admits no longer input, but arithmetic on one (a size + 1, a product) can exceed it.
_PRINTABLE_BITS = 14_000  # about 4,214 digits
_SPELLED_OUT_BITS = 70_000  # about 21,000 digits: still printed exactly, in milliseconds


def int_text(value: int) -> str:
    """``str(value)`` for any integer: exact up to about 21,000 digits, else its size."""
    bits = value.bit_length()
    if bits <= _PRINTABLE_BITS:
        return str(value)
    if bits > _SPELLED_OUT_BITS:
        return f"{'-' if value < 0 else ''}<an integer of about {int(bits * 0.30103):,} digits>"
    import sys

    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return str(value)
    finally:
        sys.set_int_max_str_digits(limit)


def plain(value: Any) -> Any:
    """``value`` as plain JSON data: finite numbers, strings, lists, string-keyed objects.

    Integers too long for Python to print as numbers are written as strings of their digits.
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else non_finite_text(value)
    if isinstance(value, int):
        return value if value.bit_length() <= _PRINTABLE_BITS else int_text(value)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict):
        return {_key(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return [plain(v) for v in sorted(value, key=str)]
    as_json = getattr(value, "as_json", None)
    if callable(as_json):
        return plain(as_json())
    return str(value)


def _key(key: Any) -> Any:
    if isinstance(key, float) and not math.isfinite(key):
        return non_finite_text(key)
    if isinstance(key, int) and key.bit_length() > _PRINTABLE_BITS:
        return int_text(key)
    return key if isinstance(key, (str, int, float, bool)) or key is None else str(key)


def _fallback(value: Any) -> Any:
    return plain(value)


def dumps(data: Any, **options: Any) -> str:
    """``json.dumps`` that never writes NaN or Infinity (see the module docstring).

    The common case (nothing non-finite) is one plain ``json.dumps``; only a value the
    strict encoder refuses is rewritten first.
    """
    try:
        return json.dumps(data, default=_fallback, allow_nan=False, **options)
    except ValueError:
        return json.dumps(plain(data), default=str, allow_nan=False, **options)


def json_object(text: str) -> dict[str, Any] | None:
    """A flag's JSON text as the object it must be, or None when it is not one (bad JSON, or
    a list, number or string): rules that read a JSON config flag refuse both alike."""
    try:
        value = json.loads(text)
    except ValueError:  # JSONDecodeError is one
        return None
    return value if isinstance(value, dict) else None
