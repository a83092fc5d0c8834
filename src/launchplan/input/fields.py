"""SGLang's ServerArgs fields per release, loaded from the shipped tables.

Each table (``data/sglang-<release>-fields.json``) was read from that release's wheel by
``tests/input/tools/make_field_table.py``, so nothing here is typed by hand: adding a release
means shipping another table. 0.5.23's table is on the cold-start path of every command (read
through its marshal index, ``launchplan.tables``, one pass over the rows); an older release's
table loads only when it is chosen.
"""

from __future__ import annotations

import os
from typing import Any

from launchplan import tables
from launchplan.struct import Struct

SGLANG_VERSION = "0.5.23"
RELEASES: tuple[str, ...] = ("0.5.21", "0.5.22", SGLANG_VERSION)
"""The SGLang releases whose flag surface ships, oldest first."""
_DATA = os.path.join(os.path.dirname(__file__), "data")
TABLE_PATH = os.path.join(_DATA, f"sglang-{SGLANG_VERSION}-fields.json")

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


# phase -> (backends, keys) that a release's ``--cuda-graph-config`` parser accepts
GraphPhases = dict[str, tuple[tuple[str, ...], tuple[str, ...]]]


def _load(version: str = SGLANG_VERSION,
          ) -> tuple[dict[str, FieldSpec], tuple[str, ...], GraphPhases]:
    path = os.path.join(_DATA, f"sglang-{version}-fields.json")
    table = tables.load(path)
    if table.get("sglang_version") != version:
        raise RuntimeError(f"{path}: expected SGLang {version} facts")
    if table.get("extra_flags") and version != SGLANG_VERSION:
        # a hand-registered spelling needs its replacement written down, as EXTRA_FLAGS does
        raise RuntimeError(f"{path}: teach fields.py the extra flags of SGLang {version}")
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
    graph = {phase: (tuple(spec["backends"]), tuple(spec["keys"]))
             for phase, spec in table["cuda_graph_phases"].items()}
    return fields, tuple(table.get("cli_only_dests", ())), graph


FIELDS, CLI_ONLY_DESTS, GRAPH_PHASES = _load()
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


class ReleaseTable:
    """One release's flag surface, and the field facts the engine resolves it with.

    ``fields`` are the release's own ServerArgs fields. ``engine_fields`` adds 0.5.23's fields
    the release lacks (rules may read them; they stay at their defaults, as if absent), so a
    rule set for an older release runs the same rules; ``defaults`` holds their start values.
    ``graph_phases`` is what the release's ``--cuda-graph-config`` accepts per phase.
    """

    __slots__ = ("version", "fields", "cli_only_dests", "extra_flags", "flag_to_field",
                 "engine_fields", "defaults", "graph_phases")

    def __init__(self, version: str, fields: dict[str, FieldSpec],
                 cli_only_dests: tuple[str, ...], extra_flags: tuple[ExtraFlag, ...],
                 graph_phases: GraphPhases) -> None:
        self.version = version
        self.graph_phases = graph_phases
        self.fields = fields
        self.cli_only_dests = cli_only_dests
        self.extra_flags = extra_flags
        self.flag_to_field = {flag: s.name for s in fields.values() for flag in s.flags}
        self.flag_to_field.update((extra.flag, extra.field) for extra in extra_flags)
        self.engine_fields = fields if fields is FIELDS else {**FIELDS, **fields}
        self.defaults = {name: _fresh(spec.default) for name, spec in self.engine_fields.items()}

    def default_of(self, name: str) -> Any:
        return _fresh(self.engine_fields[name].default)


def _fresh(default: Any) -> Any:
    return list(default) if type(default) is tuple else default


_TABLES: dict[str, ReleaseTable] = {}


def release_table(version: str = SGLANG_VERSION) -> ReleaseTable:
    """The flag surface of one release (``RELEASES``), loaded on first use."""
    table = _TABLES.get(version)
    if table is None:
        if version == SGLANG_VERSION:
            table = ReleaseTable(version, FIELDS, CLI_ONLY_DESTS, EXTRA_FLAGS, GRAPH_PHASES)
        elif version in RELEASES:
            fields, dests, graph = _load(version)
            table = ReleaseTable(version, fields, dests, (), graph)
        else:
            raise KeyError(f"no field table for SGLang {version}")
        _TABLES[version] = table
    return table


def release_introducing(flag: str, version: str) -> str | None:
    """The shipped release nearest ``version`` that has ``flag``, for an error hint (slow path)."""
    order = sorted(RELEASES, key=lambda r: abs(RELEASES.index(r) - RELEASES.index(version)))
    for other in order:
        if other != version and flag in release_table(other).flag_to_field:
            return other
    return None
