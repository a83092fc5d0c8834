"""Facts derived once per model: a cache keyed by the identity of a loaded fact object.

Model and target facts are loaded once and shared by every resolution that names them, so
anything a rule derives from them alone (a preference read out of ``config.json``, say) can
be computed once per object instead of once per resolution.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

T = TypeVar("T")
_LIMIT = 4096


def per_object(fn: Callable[[Any], T]) -> Callable[[Any], T]:
    """Cache ``fn(obj)`` by ``id(obj)``, keeping ``obj`` alive while its answer is cached."""
    cache: dict[int, tuple[Any, T]] = {}

    @wraps(fn)
    def cached(obj: Any) -> T:
        hit = cache.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = fn(obj)
        if len(cache) >= _LIMIT:
            cache.clear()
        cache[id(obj)] = (obj, value)
        return value

    return cached
