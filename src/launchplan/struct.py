"""Light record types: slots and an ``__init__`` from annotations, without code generation.

``dataclasses`` generates and ``exec``s code for every class, about a millisecond each,
and importing it costs more; a cold ``launchplan resolve`` defines a dozen record types, so
that alone was a fifth of the start-up budget. ``Struct`` gives the same shape for the
cases launchplan needs: annotated fields with optional defaults (``factory(list)`` for a
fresh mutable default; ``uncompared()`` to leave a field out of equality), keyword or
positional construction, equality, hashing, a repr,
``replace()`` and ``as_dict()``. ``frozen=True`` (the default) refuses assignment.
"""

from __future__ import annotations

from typing import Any, ClassVar

_MISSING = object()


class factory:  # noqa: N801 - reads like dataclasses.field(default_factory=...)
    """A default made fresh for each instance: ``items: list = factory(list)``."""

    __slots__ = ("make",)

    def __init__(self, make: Any) -> None:
        self.make = make


class uncompared:  # noqa: N801 - reads like dataclasses.field(compare=False)
    """A field left out of equality and hashing (raw mappings, say); optionally a default."""

    __slots__ = ("default",)

    def __init__(self, default: Any = _MISSING) -> None:
        self.default = default


class _StructMeta(type):
    def __new__(mcs, name: str, bases: tuple, namespace: dict, frozen: bool = True) -> Any:
        annotations = namespace.get("__annotations__", {})
        own = [f for f, t in annotations.items() if not str(t).startswith("ClassVar")]
        inherited: tuple[str, ...] = ()
        compared: tuple[str, ...] = ()
        defaults: dict[str, Any] = {}
        for base in bases:
            inherited += getattr(base, "_fields", ())
            compared += getattr(base, "_compared", ())
            defaults.update(getattr(base, "_defaults", {}))
        for f in own:
            value = namespace.pop(f, _MISSING)
            if type(value) is uncompared:
                value = value.default
            else:
                compared += (f,)
            if value is not _MISSING:
                defaults[f] = value
        namespace["__slots__"] = tuple(own)
        namespace["_fields"] = inherited + tuple(own)
        namespace["_compared"] = compared
        namespace["_defaults"] = defaults
        namespace["_frozen"] = frozen
        return super().__new__(mcs, name, bases, namespace)

    def __init__(cls, name: str, bases: tuple, namespace: dict, frozen: bool = True) -> None:
        super().__init__(name, bases, namespace)
        # each field's slot setter, in order: storing through it skips the attribute lookup
        # ``object.__setattr__`` makes per field (construction is on every plan's path)
        cls._setters = tuple(getattr(cls, f).__set__ for f in cls._fields)


class Struct(metaclass=_StructMeta):
    """Base of launchplan's record types; subclass with ``frozen=False`` for mutable ones."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _compared: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}
    _frozen: ClassVar[bool] = True
    _setters: ClassVar[tuple[Any, ...]] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        fields = self._fields
        if not kwargs and len(args) == len(fields):  # every field, in order
            for set_field, value in zip(self._setters, args):
                set_field(self, value)
            return
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes {len(fields)} fields")
        set_ = object.__setattr__
        for name, value in zip(fields, args):
            set_(self, name, value)
        for name in fields[len(args):]:
            value = kwargs.pop(name, _MISSING)
            if value is _MISSING:
                value = self._defaults.get(name, _MISSING)
                if value is _MISSING:
                    raise TypeError(f"{type(self).__name__} needs {name}")
                if type(value) is factory:
                    value = value.make()
            set_(self, name, value)
        if kwargs:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(kwargs))}")

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(f"{type(self).__name__} is immutable")
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._compared)

    def __hash__(self) -> int:
        if not self._frozen:
            raise TypeError(f"unhashable type: {type(self).__name__}")
        return hash((type(self), *(getattr(self, f) for f in self._compared)))

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__}({inner})"

    def replace(self, **changes: Any) -> Any:
        """A copy with some fields changed."""
        values = {f: getattr(self, f) for f in self._fields}
        values.update(changes)
        return type(self)(**values)

    def as_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self._fields}
