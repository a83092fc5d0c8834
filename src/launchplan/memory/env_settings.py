"""The launch's environment settings (``SGLANG_*`` variables) the memory sizing reads."""

from __future__ import annotations

from typing import Any


def env_int(env: Any, name: str, default: int) -> int:
    """An integer environment setting of the launch, its default when unset or unreadable
    (SGLang's own parsing would stop; the sizing keeps the default instead)."""
    try:
        return int(env.get(name, default))
    except (TypeError, ValueError):
        return default
