"""The result of a resolution: final values, the chain behind each, and what changed input."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from launchplan.engine.declarations import Declaration
from launchplan.engine.view import DEFAULTS
from launchplan.input.fields import FIELDS, SGLANG_VERSION, release_table

if TYPE_CHECKING:
    from launchplan.engine.record import Record

# Values SGLang draws at random at start-up: a plan cannot know them.
RANDOM_AT_STARTUP = frozenset({"random_seed"})


def default_value(release: str, name: str) -> Any:
    """What ``Result.value`` gives for a field no input or declaration set, in a release."""
    if release == SGLANG_VERSION:
        fields, defaults = FIELDS, DEFAULTS
    else:
        table = release_table(release)
        fields, defaults = table.engine_fields, table.defaults
    value = defaults[name]
    return fields[name].fallback if value is None else value


class Result:
    """What a rule set decided for one record.

    ``value(field)`` follows SGLang's resolution result: the newest declaration (as is, even
    ``None``), else the input, else the default; the field's fallback replaces a ``None``
    that did not come from a declaration.
    """

    __slots__ = ("record", "declarations", "warnings", "_overlay", "refusal", "_declared",
                 "launcher", "refusal_requirement", "extras", "_fields", "_defaults", "final")

    def __init__(self, record: Record, declarations: list[Declaration], warnings: list[str],
                 overlay: dict[str, Any]) -> None:
        self.record = record
        self.declarations = declarations
        self.warnings = warnings
        self._overlay = overlay
        self.refusal: tuple[str, str] | None = None
        self.refusal_requirement: str | None = None
        self._declared: frozenset[str] | None = None
        # (rule, message, requirement or None) for each check SGLang's launcher would fail
        self.launcher: list[tuple[str, str, str | None]] = []
        # analyses derived from the final plan, computed once (the memory plan, ...)
        self.extras: dict[Any, Any] = {}
        # every field's final value, fallbacks not applied: the view's own dictionary when a
        # walk from scratch finished (no one else holds it then), else None
        self.final: dict[str, Any] | None = None
        release = record.raw.release
        if release == SGLANG_VERSION:
            self._fields, self._defaults = FIELDS, DEFAULTS
        else:  # an older release: its own defaults and fallbacks
            table = release_table(release)
            self._fields, self._defaults = table.engine_fields, table.defaults

    @property
    def refused(self) -> bool:
        return self.refusal is not None

    def declared(self) -> frozenset[str]:
        if self._declared is None:
            self._declared = frozenset(f for d in self.declarations for f in d.fields)
        return self._declared

    def value(self, name: str) -> Any:
        if name in self._overlay:
            value = self._overlay[name]
            if value is None and name not in self.declared():
                return self._fields[name].fallback
            return value
        value = self._defaults[name]
        return self._fields[name].fallback if value is None else value

    def __getitem__(self, name: str) -> Any:
        return self.value(name)

    def value_at(self, dotted: str) -> Any:
        """``value`` along a dotted path: ``cuda_graph_config.prefill.backend``."""
        if "." not in dotted:
            return self.value(dotted)
        head, _, path = dotted.partition(".")
        return _dig(self.value(head), path.split("."))

    def chain(self, name: str) -> list[Declaration]:
        """Every declaration of ``name``, oldest first."""
        return [d for d in self.declarations if name in d.fields]

    def source(self, name: str) -> str:
        """The rule that decided ``name`` last, or ``input`` / ``default``.

        A dotted name (``cuda_graph_config.prefill.backend``) follows one key of a
        structured value: the source is the last declaration that changed that key.
        """
        head, _, path = name.partition(".")
        if path:
            return self._key_source(head, path.split("."))
        if name not in self._overlay:  # neither given nor declared: no chain to look at
            return "default"
        for d in reversed(self.declarations):
            if name in d.fields:
                return d.source
        return "input" if self.record.raw.explicit(name) else "default"

    def _key_source(self, head: str, path: list[str]) -> str:
        source = "input" if self.record.raw.explicit(head) else "default"
        previous: Any = _dig(self.record.raw.get(head), path)
        for d in self.declarations:
            if head in d.fields:
                value = _dig(d.fields[head], path)
                if value != previous:
                    source = d.source
                previous = value
        return source

    def overrides(self) -> list[dict[str, Any]]:
        """Each explicit user value a rule replaced (``overrides_of_input``)."""
        return override_entries(self)[0]

    def to_dict(self) -> dict[str, Any]:
        """The JSON plan: resolved values, declarations, overrides, warnings and facts."""
        overrides, normalizations = override_entries(self)
        record = self.record
        out: dict[str, Any] = {
            "resolved": self.resolved(),
            "declarations": [{"source": d.source, "fields": d.fields}
                             for d in self.declarations],
            "overrides_of_input": overrides,
            "normalizations": normalizations,
            "warnings": list(record.raw.notices) + list(record.raw.deprecations)
            + list(self.warnings),
            "target": record.target.facts(),
            "model": model_summary(record.model),
            "compat": record.compat,
        }
        if self.refusal is not None:
            out["error"] = {"source": self.refusal[0], "message": self.refusal[1]}
        return out

    def resolved(self) -> dict[str, Any]:
        """Every SGLang field with its final value (``random_seed`` is unknown: None)."""
        release = self.record.raw.release
        names = FIELDS if release == SGLANG_VERSION else release_table(release).fields
        out = {name: self.value(name) for name in names}
        for name in RANDOM_AT_STARTUP:
            if not self.record.raw.explicit(name):
                out[name] = None
        return out


def _dig(value: Any, path: list[str]) -> Any:
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def override_entries(result: Result) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(overrides_of_input, normalizations): each explicit user value a rule replaced.

    A rule marked ``normalizes`` only renamed the value (an alias, ``cuda:0`` → ``cuda``):
    that is a normalization, not an override. The per-phase CUDA-graph flags count as input
    for the phase settings they ask for.
    """
    overrides: list[dict[str, Any]] = []
    normalizations: list[dict[str, Any]] = []
    raw = result.record.raw
    declared = result.declared()
    for name, given in raw.values.items():
        if name not in declared or name == "cuda_graph_config":
            continue
        final = result.value(name)
        if final == given:
            continue
        last = result.chain(name)[-1]
        entry = {"field": name, "input": given, "resolved": final, "source": last.source}
        (normalizations if last.normalization else overrides).append(entry)
    overrides.extend(_graph_overrides(result))
    return overrides, normalizations


def _graph_overrides(result: Result) -> list[dict[str, Any]]:
    from launchplan.rules.graph_config import CONVENIENCE, requested_settings

    if "cuda_graph_config" not in result.declared():
        return []
    requested, asked_by = requested_settings(_RawReader(result.record.raw))
    if not requested:
        return []
    final = result.value("cuda_graph_config")
    out = []
    for (phase, key), wanted in requested.items():
        got = final[phase][key]
        if got == wanted:
            continue
        source = result.source(f"cuda_graph_config.{phase}.{key}")
        if source == "parse_cuda_graph_config":  # folded from a flag a rule declared?
            for flag, flag_phase, flag_key in CONVENIENCE:
                if (flag_phase, flag_key) == (phase, key) and flag in result.declared():
                    source = result.source(flag)
        out.append({"field": f"cuda_graph_config.{phase}.{key}", "input": wanted,
                    "resolved": got, "source": source, "flag": asked_by[(phase, key)]})
    return out


class _RawReader:
    """Reads the user's input only, in the shape ``requested_settings`` expects of a view."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    def __getitem__(self, name: str) -> Any:
        return self._raw.get(name)

    __getattr__ = __getitem__

    def raw(self, name: str) -> Any:
        return self._raw.get(name)


def model_summary(model: Any) -> dict[str, Any]:
    """The derived model facts as plain data (the raw ``config`` left out)."""
    from collections.abc import Mapping

    out: dict[str, Any] = {}
    for name in getattr(model, "_fields", ()):
        value = getattr(model, name)
        if name in ("config", "config_file") or isinstance(value, Mapping):
            continue  # raw configuration, not derived facts
        out[name] = list(value) if isinstance(value, tuple) else value
    return out
