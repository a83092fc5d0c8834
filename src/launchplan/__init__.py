"""launchplan: SGLang's server-argument resolution, explained, without a GPU.

``resolve(argv, fields=..., gpu=..., model_path=..., compat=...)`` returns a ``Result``
whose ``to_dict()`` is the JSON plan; bad input raises ``InputError`` and a configuration
SGLang refuses raises ``Refusal`` (carrying the partial result).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from launchplan.errors import InputError, LaunchplanError, Refusal

if TYPE_CHECKING:
    from launchplan.engine.result import Result

__all__ = ["InputError", "LaunchplanError", "Refusal", "resolve"]


def resolve(*args: Any, **kwargs: Any) -> Result:
    """See ``launchplan.planner.resolve``; imported lazily to keep ``import launchplan`` cheap."""
    from launchplan.planner import resolve as _resolve

    return _resolve(*args, **kwargs)
