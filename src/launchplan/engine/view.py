"""The read-only view a rule sees: raw input with the declarations so far laid over it.

The view keeps one overlay dict that the pipeline updates as declarations are appended, so
a read is a dict lookup, newest declaration first, then the input, then the field default.
Fallbacks are *not* applied here (SGLang applies them only to final results), so a rule
can still tell "unset" (``None``) from a value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from launchplan.input.fields import FIELDS, default_of

if TYPE_CHECKING:
    from launchplan.engine.record import Record

_MISSING = object()

# Field defaults, built once per process. Rules never mutate values they read.
DEFAULTS: dict[str, Any] = {name: default_of(name) for name in FIELDS}


class ReadOnlyError(AttributeError):
    pass


class View:
    """Read access to field values (``view.page_size`` or ``view["page_size"]``) and facts.

    ``view.target`` is the GPU, ``view.model`` the model facts, ``view.draft`` the draft
    model's facts (or None), ``view.record`` the input record.
    """

    __slots__ = ("_overlay", "record", "target", "model", "draft", "env", "compat")

    def __init__(self, record: Record) -> None:
        object.__setattr__(self, "record", record)
        object.__setattr__(self, "_overlay", dict(record.raw.values))
        object.__setattr__(self, "target", record.target)
        object.__setattr__(self, "model", record.model)
        object.__setattr__(self, "draft", record.draft)
        object.__setattr__(self, "env", record.env)
        object.__setattr__(self, "compat", record.compat)

    def __getattr__(self, name: str) -> Any:
        value = self._overlay.get(name, _MISSING)
        if value is _MISSING:
            try:
                return DEFAULTS[name]
            except KeyError:
                raise AttributeError(f"no SGLang field named {name!r}") from None
        return value

    def __getitem__(self, name: str) -> Any:
        return self.__getattr__(name)

    def get(self, name: str, default: Any = None) -> Any:
        value = self._overlay.get(name, _MISSING)
        if value is _MISSING:
            return DEFAULTS.get(name, default)
        return value

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
        self._overlay.update(fields)

    def _values(self) -> dict[str, Any]:
        return self._overlay


class TracingView(View):
    """A view that records which fields a rule read (for ``explain`` and the read-set test)."""

    __slots__ = ("reads",)

    def __init__(self, record: Record) -> None:
        super().__init__(record)
        object.__setattr__(self, "reads", {})

    def __getattr__(self, name: str) -> Any:
        value = View.__getattr__(self, name)
        self.reads.setdefault(name, value)
        return value

    def get(self, name: str, default: Any = None) -> Any:
        value = View.get(self, name, default)
        self.reads.setdefault(name, value)
        return value
