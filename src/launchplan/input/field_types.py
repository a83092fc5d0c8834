"""Whether a value taken as given (SGLang's keyword path) has the type its field declares.

The keyword path (``Engine(**kwargs)``, a logged ``server_args=...`` line, a pasted engine
call) takes values exactly as given, as SGLang does: no check on the way in, so a resolution
costs nothing for it. A value of the wrong type (``tp_size=[]``, ``quantization=True``) then
breaks the first rule that uses it, as it breaks SGLang's own ``__post_init__``. When a rule
fails, the engine asks here whether the input holds such a value; if so, the failure is bad
input naming that field, not a launchplan bug.

The test follows the field's annotation in ServerArgs, loosely where Python is loose: a bool
is an int, an int is a float, a tuple passes for a list, ``None`` passes where the annotation
is optional or the field starts as ``None`` (many fields annotated ``str`` do), and
annotations this does not read (unions of several kinds, callables, SGLang's own classes)
accept anything. A start-up log's values are SGLang's own, so ``--from-log`` sets aside a
logged value this does not admit (a damaged log) before planning.
"""

from __future__ import annotations

import re
from typing import Any

from launchplan.errors import InputError
from launchplan.input.fields import FieldSpec

#: How a mistyped value's error names its field: ``ServerArgs field 'tp_size'``.
MISTYPED_SUBJECT = "ServerArgs field "

_INT = (int,)
_FLOAT = (int, float)
_LIST = (list, tuple)
#: annotation (``Optional[...]`` removed) -> (accepted Python types, how to say it)
_SIMPLE: dict[str, tuple[tuple[type, ...], str]] = {
    "bool": ((bool, int), "true or false"),
    "int": (_INT, "an integer"),
    "float": (_FLOAT, "a number"),
    "str": ((str,), "a string"),
}
_OPTIONAL = re.compile(r"^Optional\[(.*)\]$")
_LITERAL = re.compile(r"^Literal\[(.*)\]$")


def expected_type(spec: FieldSpec) -> tuple[tuple[type, ...], str] | None:
    """The Python types a value of this field may have and how to name them; None when the
    annotation admits more than this reads."""
    kind = spec.type
    match = _OPTIONAL.match(kind)
    if match:
        kind = match.group(1)
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    if kind.startswith(("List[", "list[")):
        return _LIST, "a list"
    if kind.startswith(("Dict[", "dict[")):
        return (dict,), "an object (a dict)"
    match = _LITERAL.match(kind)
    if match:
        body = match.group(1)
        if all(part.strip().startswith(("'", '"', "None")) for part in body.split(",")):
            return (str,), "one of " + body.replace("'", "")
        if all(part.strip().lstrip("-").isdigit() for part in body.split(",")):
            return _INT, "one of " + body
    return None


def admits(spec: FieldSpec, value: Any, *, none: bool = True) -> bool:
    """Whether ``value`` has a type this field's annotation admits. ``None`` passes unless
    ``none`` is false; then only where the annotation is optional or the field starts as
    ``None``. (Real logs hold ``None`` in a few plain ``int`` and ``str`` fields: an older
    release's defaults, or fields its launch left unset, such as KTransformers' sizes.)"""
    if value is None:
        return none or spec.default is None or "Optional[" in spec.type \
            or "None" in spec.type
    accepted = expected_type(spec)
    return accepted is None or isinstance(value, accepted[0])


def mistyped(values: dict[str, Any], origin: dict[str, str],
             fields: dict[str, FieldSpec]) -> tuple[str, str, Any] | None:
    """The first value given on the keyword path whose type its field does not admit:
    (field, what was expected, the value); None when every one is admitted. A value of
    another type is named before a ``None`` in a field its annotation keeps from ``None``,
    which real logs sometimes hold."""
    given = [(name, value, fields[name]) for name, value in values.items()
             if origin.get(name) == "keyword" and name in fields]
    for none in (True, False):
        for name, value, spec in given:
            if not admits(spec, value, none=none):
                return name, _expected(spec), value
    return None


def _expected(spec: FieldSpec) -> str:
    accepted = expected_type(spec)
    return accepted[1] if accepted is not None else f"a value of type {spec.type}"


def mistyped_error(values: dict[str, Any], origin: dict[str, str],
                   fields: dict[str, FieldSpec], rule: str | None = None) -> InputError | None:
    """Bad input naming the first mistyped value (``mistyped``), which broke ``rule``."""
    found = mistyped(values, origin, fields)
    if found is None:
        return None
    name, expected, value = found
    return InputError(f"{MISTYPED_SUBJECT}{name!r}", expected, value,
                      f"given as is, it breaks {rule}" if rule else None)
