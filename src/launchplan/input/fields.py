"""SGLang 0.5.23's ServerArgs fields, loaded once from the shipped table.

The table (``data/sglang-0.5.23-fields.json``) was read from the installed SGLang package, so
nothing here is typed by hand: adding a release means shipping another table. Loading is on
the cold-start path of every command, hence plain ``json`` and one pass over the rows.
"""

from __future__ import annotations

import json
import os
from typing import Any

from launchplan.struct import Struct

SGLANG_VERSION = "0.5.23"
TABLE_PATH = os.path.join(os.path.dirname(__file__), "data", f"sglang-{SGLANG_VERSION}-fields.json")

# The table marks the one field without a default (argparse makes it required) this way.
_REQUIRED_MARK = "<required>"


class FieldSpec(Struct):
    """One ServerArgs field and how SGLang's command line reaches it.

    ``default`` is immutable (list defaults are stored as tuples); use :func:`default_of` for
    the value SGLang actually starts from. ``flags`` is empty for fields with no automatic flag.
    ``action`` and ``parse`` are the names of the argparse action class and type function.
    """

    name: str
    group: str
    type: str
    default: Any
    flags: tuple[str, ...]
    action: str | None
    parse: str | None
    choices: tuple[Any, ...] | None
    nargs: int | str | None
    const: Any
    resolvable: bool
    fallback: Any
    required: bool = False


class ExtraFlag:
    """A flag SGLang registers by hand that the field table does not list.

    Only retired spellings live here; they write into an existing field. (A plain class: one
    more record class would cost more at import than this whole table of one.)
    """

    __slots__ = ("flag", "field", "action", "choices", "value", "replacement")

    def __init__(self, flag: str, field: str, action: str, choices: tuple[str, ...] | None,
                 value: Any, replacement: str) -> None:
        self.flag = flag
        self.field = field
        self.action = action
        self.choices = choices
        self.value = value
        self.replacement = replacement


# `--monokernel-backend amd` was retired in favour of `--enable-amd-monokernel`; SGLang keeps the
# old spelling as a valued flag whose only legal value stores True into the new field.
EXTRA_FLAGS: tuple[ExtraFlag, ...] = (
    ExtraFlag("--monokernel-backend", "enable_amd_monokernel", "DeprecatedStoreConstAction",
              ("amd",), True, "--enable-amd-monokernel"),
)


def _load() -> tuple[dict[str, FieldSpec], tuple[str, ...]]:
    with open(TABLE_PATH, "rb") as fh:
        table = json.loads(fh.read())
    if table.get("sglang_version") != SGLANG_VERSION:
        raise RuntimeError(f"{TABLE_PATH}: expected SGLang {SGLANG_VERSION} facts")
    fields: dict[str, FieldSpec] = {}
    for row in table["fields"]:
        default = row["default"]
        required = default == _REQUIRED_MARK
        if required:
            default = None
        elif isinstance(default, list):
            default = tuple(default)
        choices = row["choices"]
        fields[row["name"]] = FieldSpec(
            row["name"], row["group"], row["type"], default, tuple(row["flags"]),
            row["action"], row["parse"], None if choices is None else tuple(choices),
            row["nargs"], row["const"], row["resolvable"], row["fallback"], required,
        )
    return fields, tuple(table.get("cli_only_dests", ()))


FIELDS, CLI_ONLY_DESTS = _load()
"""Every ServerArgs field, in the table's (SGLang's positional) order."""


def _groups() -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for spec in FIELDS.values():
        out.setdefault(spec.group, []).append(spec.name)
    return {group: tuple(names) for group, names in out.items()}


GROUPS: dict[str, tuple[str, ...]] = _groups()
"""Namespace path (``model``, ``exec.graph`` …) → its field names in table order."""

FLAG_TO_FIELD: dict[str, str] = {
    flag: spec.name for spec in FIELDS.values() for flag in spec.flags
}
FLAG_TO_FIELD.update((extra.flag, extra.field) for extra in EXTRA_FLAGS)
"""Every option spelling that writes a field (aliases, ``--no-…`` forms, retired spellings)."""

REQUIRED_FIELDS: frozenset[str] = frozenset(n for n, s in FIELDS.items() if s.required)


def default_of(name: str) -> Any:
    """The value SGLang starts ``name`` from when nobody sets it.

    Mutable defaults come back as a fresh list, so callers may not corrupt the table; the
    required ``model_path`` has no default and yields None.
    """
    default = FIELDS[name].default
    if type(default) is tuple:
        return list(default)
    return default
