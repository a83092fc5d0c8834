"""What the operator actually gave, before any resolution rule looks at it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launchplan.errors import InputError
from launchplan.input.fields import FIELDS, SGLANG_VERSION, default_of, release_table
from launchplan.struct import Struct, factory

ORIGINS = ("cli", "config", "keyword")


class RawInput(Struct, frozen=False):
    """The explicit input: a field absent from ``values`` was left at its default.

    ``origin`` says where each explicit value came from (``cli``, ``config`` or ``keyword``).
    ``notices`` lists input SGLang would silently ignore or drop; ``deprecations`` lists retired
    spellings that were used. Both are in launchplan's words, one line each. ``release`` is the
    SGLang release whose flag surface (fields, defaults) the input was read against.
    """

    values: dict[str, Any] = factory(dict)
    origin: dict[str, str] = factory(dict)
    notices: list[str] = factory(list)
    deprecations: list[str] = factory(list)
    release: str = SGLANG_VERSION

    def get(self, name: str) -> Any:
        """The explicit value of ``name``, else SGLang's default for it."""
        values = self.values
        if name in values:
            return values[name]
        if self.release != SGLANG_VERSION:
            table = release_table(self.release)
            if name not in table.engine_fields:
                raise KeyError(f"{name!r} is not a ServerArgs field")
            return table.default_of(name)
        if name not in FIELDS:
            raise KeyError(f"{name!r} is not a ServerArgs field")
        return default_of(name)

    def explicit(self, name: str) -> bool:
        """Whether the operator set ``name`` (even to its default value)."""
        return name in self.values

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any], release: str = SGLANG_VERSION) -> RawInput:
        """SGLang's keyword path (``Engine(**kwargs)``): values are taken exactly as given.

        Like SGLang, no type conversion and no choice check happen here; only an unknown field
        name is refused, since constructing ServerArgs with it would fail.
        """
        known = FIELDS if release == SGLANG_VERSION else release_table(release).fields
        values = dict(fields)
        if not values.keys() <= known.keys():  # one C-level test (``check`` pins ~150 fields)
            raise unknown_field_error(next(n for n in values if n not in known), release)
        return cls(values, dict.fromkeys(values, "keyword"), [], [], release)


def unknown_field_error(name: object, release: str = SGLANG_VERSION) -> InputError:
    """Refuse a keyword that is not a ServerArgs field, suggesting the nearest one."""
    hint = None
    known = FIELDS if release == SGLANG_VERSION else release_table(release).fields
    if isinstance(name, str):
        import difflib  # only paid for on the error path

        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        if close:
            hint = f"did you mean {close[0]}?"
        if name in release_table(SGLANG_VERSION).fields and name not in known:
            hint = f"{name} is new in a later SGLang than {release}"
    return InputError(f"keyword argument {name!r}",
                      f"a ServerArgs field of SGLang {release}", None, hint)
