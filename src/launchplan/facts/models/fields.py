"""Reading a config's JSON within bounds, and typed reads of its fields.

Every way a file or a field can be wrong becomes one ``InputError`` line naming the file and
the field, with the offending value shortened so messages stay one short line.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from typing import Any

from launchplan.errors import InputError
from launchplan.numbers import finite

#: Config files larger than this are refused before they are read.
MAX_CONFIG_BYTES = 16 * 1024 * 1024
#: Integers in a config may not exceed this (keeps float arithmetic and output sane).
MAX_INT = 2**63 - 1


def _read_json(path: str, display: str) -> Any:
    """Parse one JSON file, turning every way it can be wrong into one ``InputError`` line."""
    try:
        size = os.stat(path).st_size
        if size > MAX_CONFIG_BYTES:
            raise InputError(display, f"a file of at most {MAX_CONFIG_BYTES // (1 << 20)} MiB",
                             hint=f"it has {size} bytes")
        with open(path, "rb") as f:
            # what stat promised and a byte more, not a 16 MiB buffer for every model load
            data = f.read(size + 1 if size else MAX_CONFIG_BYTES + 1)
            if size and len(data) > size:  # the file grew since stat: up to the cap
                data += f.read(MAX_CONFIG_BYTES + 1 - len(data))
    except OSError as e:
        raise InputError(display, "a readable file", hint=e.strerror or str(e)) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise InputError(display, f"a file of at most {MAX_CONFIG_BYTES // (1 << 20)} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(display, "UTF-8 text", hint=f"byte {e.start} is not UTF-8") from None
    return _parse_json(text, display)


def _parse_json(text: str, display: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        from launchplan.input import shell_vars

        template = text.lstrip().startswith("{{")  # Jinja's or Helm's, not nested JSON
        if template or shell_vars.open_reference(text):
            # ``--json-model-override-args "$OVERRIDE"``, ``${json.dumps(cfg)}``: not JSON
            # gone wrong, a value the pasted text leaves to be filled in
            raise InputError(display, "a JSON value", text, shell_vars.TEMPLATE_HINT
                             if template else shell_vars.OPEN_REFERENCE_HINT) from None
        hint = f"line {e.lineno}, column {e.colno}: {e.msg}"
        if text.lstrip().startswith("{") and ":" in text and '"' not in text:
            # ``--json-model-override-args {"a":1}`` unquoted: the shell ate the quotes
            hint += ("; its double quotes are gone, as the shell removes them from a value "
                     "not wrapped in single quotes: write '{\"key\": value}'")
        raise InputError(display, "valid JSON", hint=hint) from None
    except RecursionError:
        raise InputError(display, "valid JSON", hint="nested too deeply") from None
    except ValueError as e:  # e.g. an integer literal with too many digits
        raise InputError(display, "valid JSON", hint=str(e).split(";")[0]) from None


class _Fields:
    """Typed reads of one config dict, naming the file and field in every error."""

    __slots__ = ("d", "where", "prefix", "overridden")

    def __init__(self, d: Mapping[str, Any], where: str, prefix: str = "",
                 overridden: frozenset[str] = frozenset()) -> None:
        self.d = d
        self.where = where
        self.prefix = prefix
        self.overridden = overridden

    def subject(self, key: str) -> str:
        tail = " (after --json-model-override-args)" if key in self.overridden else ""
        return f"{self.where} field '{_printable(f'{self.prefix}{key}')}'{tail}"

    def fail(self, key: str, expected: str, got: Any = None, hint: str | None = None) -> InputError:
        return InputError(self.subject(key), expected, _shown(got), hint)

    def int(self, key: str, *, positive: bool = False, default: int | None = None,
            negative_means_none: bool = False) -> int | None:
        """The key as an integer; ``negative_means_none`` reads a negative value as "off"
        (the -1 "disabled" marker some published files use where SGLang keeps it unchecked)."""
        v = self.d.get(key)
        if v is None:
            return default
        n = _as_int(v)
        if n is None or abs(n) > MAX_INT:
            raise self.fail(key, "an integer", v)
        if negative_means_none and n < 0:
            return None
        if positive and n <= 0:
            raise self.fail(key, "a positive integer", v)
        if n < 0:
            raise self.fail(key, "a non-negative integer", v)
        return n

    def need_int(self, key: str, why: str, *, positive: bool = True) -> int:
        n = self.int(key, positive=positive)
        if n is None:
            raise self.fail(key, f"an integer ({why})", hint="the key is missing")
        return n

    def str(self, key: str) -> str | None:
        v = self.d.get(key)
        if v is None:
            return None
        if not isinstance(v, str):
            raise self.fail(key, "a string", v)
        return v

    def mapping(self, key: str) -> Mapping[str, Any] | None:
        v = self.d.get(key)
        if v is None:
            return None
        if not isinstance(v, Mapping):
            raise self.fail(key, "a JSON object", v)
        return v

    def str_list(self, key: str) -> list[str] | None:
        v = self.d.get(key)
        if v is None:
            return None
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self.fail(key, "a list of strings", v)
        return v


def _as_int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and math.isfinite(v) and v.is_integer():
        return int(v)
    return None


def _num(v: Any) -> float:
    """A number for comparisons; anything else counts as 0."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return 0
    return v if finite(v) else 0


class _Described(str):
    """A description of a value, shown in messages without quotes."""

    def __repr__(self) -> str:
        return str(self)


def _printable(name: str) -> str:
    """A key as one short printable line: a newline or another control character in a
    config's key (JSON allows them) written as its escape, a long key cut."""
    if not name.isprintable():
        name = name.encode("unicode_escape").decode("ascii")
    return name if len(name) <= 80 else name[:77] + "..."


def _shown(v: Any) -> Any:
    """Keep error messages one short line, whatever the JSON held."""
    if isinstance(v, (Mapping, list, tuple)):  # (a loaded config holds frozen copies)
        return _Described(f"a JSON {'object' if isinstance(v, Mapping) else 'list'}")
    if isinstance(v, str) and len(v) > 60:
        return v[:57] + "..."
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 10**18:
        return _Described(f"an integer of {len(str(abs(v)))} digits")
    return v


def _json_kind(v: Any) -> str:
    return _Described({dict: "a JSON object", list: "a JSON list", str: "a JSON string",
                       bool: "a JSON boolean", type(None): "null"}.get(type(v), "a JSON number"))
