"""The launch's environment settings (``SGLANG_*`` variables) the memory sizing reads."""

from __future__ import annotations

from typing import Any

from launchplan.facts import environment


def env_int(env: Any, name: str, default: int) -> int:
    """An integer environment setting of the launch: ``default`` when unset (a value the
    launch's own path may choose, as SGLang sets some before reading them), else as SGLang
    reads it, where text that is not an integer is the variable's declared default."""
    if name not in env:
        return default
    return environment.value(env, name)
