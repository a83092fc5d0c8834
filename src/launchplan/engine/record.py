"""The record: everything a resolution starts from, and nothing it decides."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from launchplan.facts.environment import flag
from launchplan.struct import Struct

if TYPE_CHECKING:
    from launchplan.facts.models import ModelFacts
    from launchplan.facts.targets import Target
    from launchplan.input.raw import RawInput

_EMPTY: Mapping[str, str] = MappingProxyType({})


class Record(Struct):
    """Raw input as given, plus the facts: the GPU target, the model and its draft.

    ``env`` holds the SGLang environment variables this resolution assumes (facts too:
    launchplan never reads the process environment on the resolution path).
    """

    raw: RawInput
    target: Target
    model: ModelFacts
    draft: ModelFacts | None = None
    compat: str = "default"
    env: Mapping[str, str] = _EMPTY

    def env_flag(self, name: str) -> bool:
        """A boolean SGLang variable as SGLang reads it (``facts.environment``)."""
        return flag(self.env, name)
