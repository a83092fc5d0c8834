"""Integers read from a model's ``config.json`` sections, for counting its tensors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def config_int(cfg: Mapping[str, Any], *keys: str, default: int = 0) -> int:
    """The first of ``keys`` holding a number (a float truncated; booleans and NaN skipped:
    configs spell the same size under several names, and some write 3072.0)."""
    for key in keys:
        v = cfg.get(key)
        if isinstance(v, bool):
            continue
        if isinstance(v, (int, float)) and v == v:
            return int(v)
    return default
