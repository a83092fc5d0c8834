"""The read-only view a rule sees: raw input with the declarations so far laid over it.

The view keeps one overlay dict that the pipeline updates as declarations are appended, so
a read is a dict lookup, newest declaration first, then the input, then the field default.
Fallbacks are *not* applied here (SGLang applies them only to final results), so a rule
can still tell "unset" (``None``) from a value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from launchplan.input.fields import FIELDS, SGLANG_VERSION, default_of, release_table

if TYPE_CHECKING:
    from launchplan.engine.record import Record

# Field defaults, built once per process. Rules never mutate values they read.
DEFAULTS: dict[str, Any] = {name: default_of(name) for name in FIELDS}


def defaults_for(release: str) -> dict[str, Any]:
    """Start values under an older release's table (its defaults, 0.5.23's for the rest)."""
    return release_table(release).defaults


class ReadOnlyError(AttributeError):
    pass


# Attributes a view carries besides field values; no SGLang field may share these names.
FACT_NAMES = ("record", "target", "model", "draft", "env", "compat")


class View:
    """Read access to field values (``view.page_size`` or ``view["page_size"]``) and facts.

    ``view.target`` is the GPU, ``view.model`` the model facts, ``view.draft`` the draft
    model's facts (or None), ``view.record`` the input record.

    Every field value lives in the instance ``__dict__`` (defaults, then the input, then each
    declaration as it lands), so reading a field is a plain attribute lookup: rules read
    hundreds of values per resolution, and this is the hot path.
    """

    def __init__(self, record: Record) -> None:
        values = self.__dict__
        raw = record.raw
        values.update(DEFAULTS if raw.release == SGLANG_VERSION else defaults_for(raw.release))
        values.update(raw.values)
        values["record"] = record
        values["target"] = record.target
        values["model"] = record.model
        values["draft"] = record.draft
        values["env"] = record.env
        values["compat"] = record.compat

    def __getitem__(self, name: str) -> Any:
        try:
            return self.__dict__[name]
        except KeyError:
            raise AttributeError(f"no SGLang field named {name!r}") from None

    def get(self, name: str, default: Any = None) -> Any:
        return self.__dict__.get(name, default)

    def raw(self, name: str) -> Any:
        """The value as the user gave it (or the default), ignoring every declaration."""
        return self.record.raw.get(name)

    def explicit(self, name: str) -> bool:
        """Whether the user gave this field (command line, config file or keyword)."""
        return name in self.record.raw.values

    def __setattr__(self, name: str, value: Any) -> None:
        raise ReadOnlyError(f"a view is read-only: declare {name!r} instead of assigning it")

    def __delattr__(self, name: str) -> None:
        raise ReadOnlyError("a view is read-only")

    # --- used by the pipeline only ----------------------------------------------------------

    def _apply(self, fields: Mapping[str, Any]) -> None:
        self.__dict__.update(fields)


class TracingView(View):
    """A view that records which fields a rule read (for ``explain`` and the read-set test)."""

    def __init__(self, record: Record) -> None:
        super().__init__(record)
        self.__dict__["_reads"] = {}

    @property
    def reads(self) -> dict[str, Any]:
        return self.__dict__["_reads"]

    def __getattribute__(self, name: str) -> Any:
        values = object.__getattribute__(self, "__dict__")
        if name in FIELDS:
            value = values[name]
            values["_reads"].setdefault(name, value)
            return value
        return object.__getattribute__(self, name)

    def __getitem__(self, name: str) -> Any:
        return self.__getattribute__(name)

    def get(self, name: str, default: Any = None) -> Any:
        return self.__getattribute__(name) if name in FIELDS else default


def _check_names() -> None:
    clash = set(FACT_NAMES) | {n for n in vars(View) if not n.startswith("__")}
    clash &= FIELDS.keys()
    if clash:
        raise RuntimeError(f"SGLang fields shadow view attributes: {sorted(clash)}")


_check_names()
