"""The values of the few Python expressions a launch script builds its argv with.

Scripts that keep optional flags in a dict add them to the command with a comprehension
(Modal's ``sglang_low_latency.py``: ``speculative_config = {...}``, ``speculative_config |=
{...}``, then ``cmd += [item for k, v in speculative_config.items() for item in
(f"--{k}", str(v))]``). This module works such an expression out from the script's text,
never running it: literals, names bound to literals, f-strings of those, ``str(...)``,
tuples and lists, and comprehensions over literal tuples or a dict the script fills with
literals. Anything else is ``UNKNOWN``, so the caller can say it was not read.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from launchplan.input.python_flow import in_flow, loop_bindings

#: What an expression is when its value is not known from the text.
UNKNOWN = object()


def literal_dicts(tree: ast.Module) -> dict[str, dict[Any, Any] | None]:
    """Each dict a script assigns to a plain name with literal keys and values, as its
    statements leave it in source order: ``NAME = {...}``, then the edits
    ``mapping_edits`` reads (``NAME |= {...}``, ``NAME.update({...})``, ``NAME[key] =
    value``, ...). A name some statement changes in a way not read here, or under an
    ``if``/loop (decided at run time), maps to None; one never set to a dict is left out."""
    found: dict[str, dict[Any, Any] | None] = {}
    steps: list[tuple[int, int, str, Any]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            items = _literal_dict(node.value) if isinstance(node.value, ast.Dict) else None
            name, change = node.targets[0].id, _Reset(items) if items is not None else None
        elif (edited := mapping_edits(node)) is not None:
            name, change = edited
        else:
            continue
        steps.append((node.lineno, node.col_offset, name,
                      change if not in_flow(tree, node) else None))
    for *_, name, change in sorted(steps, key=lambda s: (s[0], s[1])):
        if isinstance(change, _Reset):
            found[name] = dict(change.items)
        elif name in found:
            found[name] = _applied(found[name], change)
    return found


class _Reset:
    """A fresh assignment of a literal dict (``NAME = {...}``)."""

    def __init__(self, items: dict[Any, Any]) -> None:
        self.items = items


def _applied(current: dict[Any, Any] | None, edits: list[Edit] | None
             ) -> dict[Any, Any] | None:
    """``current`` after ``edits``, as literal values; None when either is not known (a
    key or value known only at run time)."""
    if current is None or edits is None:
        return None
    out = dict(current)
    for edit in edits:
        if edit.key is UNKNOWN:
            return None
        if edit.value is None:
            out.pop(edit.key, None)
            continue
        if edit.keep and edit.key in out:
            continue
        literal = _literal(edit.value)
        if literal is UNKNOWN:
            return None
        out[edit.key] = literal
    return out


@dataclass(frozen=True)
class Edit:
    """One change a statement makes to a mapping: ``key`` (a literal, or ``UNKNOWN``) set
    to the expression ``value`` as written, or taken out (``value`` None); with ``keep``,
    an entry already there stays (``setdefault``)."""

    key: Any
    value: ast.expr | None
    keep: bool = False


def mapping_edits(node: ast.AST) -> tuple[str, list[Edit] | None] | None:
    """(name, its edits in order) when the statement ``node`` edits the mapping a plain
    name holds: ``NAME[key] = value``, ``del NAME[key]``, ``NAME |= {...}``,
    ``NAME.update({...}, k=v)``, ``NAME.setdefault(key, value)``, ``NAME.pop(key)``. The
    edits are None when what the statement adds is not spelled out in it (``NAME |=
    other``). None for any other statement. One reader for both uses: the engine's
    keyword mappings kept as expressions (``engine_call``), a comprehension's literal dicts
    kept as values (``literal_dicts``)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            return target.value.id, [Edit(_literal(target.slice), node.value)]
        return None
    if isinstance(node, ast.AugAssign):
        if isinstance(node.op, ast.BitOr) and isinstance(node.target, ast.Name):
            return node.target.id, spelled_entries(node.value)
        return None
    if isinstance(node, ast.Delete):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript) \
                and isinstance(node.targets[0].value, ast.Name):
            return node.targets[0].value.id, [Edit(_literal(node.targets[0].slice), None)]
        return None
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return None
    call = node.value
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.attr in ("update", "setdefault", "pop")):
        return None
    args = call.args
    if func.attr == "update":
        if len(args) > 1 or any(k.arg is None for k in call.keywords):
            return func.value.id, None
        edits = spelled_entries(args[0]) if args else []
        if edits is not None:
            edits += [Edit(k.arg, k.value) for k in call.keywords]
        return func.value.id, edits
    if not args or call.keywords:
        return func.value.id, None
    key = _literal(args[0])
    if func.attr == "pop":
        return func.value.id, [Edit(key, None)]
    return func.value.id, [Edit(key, args[1] if len(args) > 1 else ast.Constant(None),
                                keep=True)]


def spelled_entries(node: ast.expr) -> list[Edit] | None:
    """The entries a mapping the statement writes out holds, in order: a dict display
    (``**`` of another display spread in place) or ``dict(...)`` of keywords (and one such
    display); None for one built elsewhere (a name, ``**other``)."""
    out: list[Edit] = []
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values):
            if key is None:
                spread = spelled_entries(value)
                if spread is None:
                    return None
                out += spread
            else:
                out.append(Edit(_literal(key), value))
        return out
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "dict" and len(node.args) <= 1:
        for arg, piece in (*((None, a) for a in node.args),
                           *((k.arg, k.value) for k in node.keywords)):
            if arg is not None:
                out.append(Edit(arg, piece))
                continue
            spread = spelled_entries(piece)
            if spread is None:
                return None
            out += spread
        return out
    return None


def argparse_defaults(tree: ast.Module) -> dict[str, ast.expr]:
    """The default each option of the script's argparse parser has, keyed as its code reads
    the parsed value (``args.tp`` of ``add_argument("--tp", type=int, default=4)`` and ``args
    = parser.parse_args()``): what a script run with no arguments of its own gets, as a
    shell script's ``${2:-8}`` does. An option with no default, a required one, or one with
    an ``action`` (a switch, a count, a list) is left out: its value is the caller's."""
    holders = {node.targets[0].id for node in ast.walk(tree)
               if isinstance(node, ast.Assign) and len(node.targets) == 1
               and isinstance(node.targets[0], ast.Name) and _parsed_args(node.value)}
    out: dict[str, ast.expr] = {}
    if not holders:
        return out
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        options = [a.value for a in node.args
                   if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        given = {k.arg: k.value for k in node.keywords if k.arg}
        required = given.get("required")
        if not options or "default" not in given or "action" in given or (
                isinstance(required, ast.Constant) and required.value):
            continue
        dest = given.get("dest")
        if isinstance(dest, ast.Constant) and isinstance(dest.value, str):
            name = dest.value
        else:
            long = [o for o in options if o.startswith("--")]
            name = (long or options)[0].lstrip("-").replace("-", "_")
        for holder in holders:
            out[f"{holder}.{name}"] = given["default"]
    return out


def _parsed_args(value: ast.expr) -> bool:
    """Whether ``value`` is a parser's parsed namespace: ``parser.parse_args()``, or
    ``parser.parse_known_args()[0]``."""
    if isinstance(value, ast.Subscript):
        value = value.value
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr in ("parse_args", "parse_known_args"))


def _literal_dict(node: ast.Dict) -> dict[Any, Any] | None:
    out: dict[Any, Any] = {}
    for key, value in zip(node.keys, node.values):
        if key is None:
            return None  # ``**other``: not a literal
        k, v = _literal(key), _literal(value)
        if k is UNKNOWN or v is UNKNOWN:
            return None
        out[k] = v
    return out


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool)):
        return node.value
    return UNKNOWN


def value(node: ast.expr, names: dict[str, Any], dicts: dict[str, Any]) -> Any:
    """The value of ``node`` with ``names`` bound (a comprehension's variables and the
    script's literal names), ``dicts`` the script's literal dicts; ``UNKNOWN`` when the
    text does not say."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool)):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id, UNKNOWN)
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [value(e, names, dicts) for e in node.elts]
        return UNKNOWN if any(i is UNKNOWN for i in items) else tuple(items)
    if isinstance(node, ast.JoinedStr):
        parts: list[str] = []
        for piece in node.values:
            if isinstance(piece, ast.Constant):
                parts.append(str(piece.value))
                continue
            if not isinstance(piece, ast.FormattedValue) or piece.format_spec is not None \
                    or piece.conversion not in (-1, ord("s")):
                return UNKNOWN
            inner = value(piece.value, names, dicts)
            if inner is UNKNOWN:
                return UNKNOWN
            parts.append(str(inner))
        return "".join(parts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "str" and len(node.args) == 1 and not node.keywords:
        inner = value(node.args[0], names, dicts)
        return UNKNOWN if inner is UNKNOWN else str(inner)
    if isinstance(node, ast.ListComp):
        out = list(_comprehended(node.elt, node.generators, names, dicts))
        return UNKNOWN if any(item is UNKNOWN for item in out) else tuple(out)
    return UNKNOWN


def _comprehended(elt: ast.expr, generators: list[ast.comprehension], names: dict[str, Any],
                  dicts: dict[str, Any]) -> Iterator[Any]:
    """The items a comprehension makes, in order; an ``UNKNOWN`` item when a loop's
    iterable, target or condition is not read here."""
    if not generators:
        yield value(elt, names, dicts)
        return
    first, rest = generators[0], generators[1:]
    items = _iterated(first.iter, names, dicts)
    if items is UNKNOWN or first.ifs or first.is_async:
        yield UNKNOWN
        return
    for item in items:
        bound = _bound(first.target, item)
        if bound is None:
            yield UNKNOWN
            return
        yield from _comprehended(elt, rest, {**names, **bound}, dicts)


def _iterated(node: ast.expr, names: dict[str, Any], dicts: dict[str, Any]) -> Any:
    """The items of a loop's iterable: a literal tuple or list, or a literal dict's
    ``.items()``, ``.keys()``, ``.values()`` (or the dict itself, its keys)."""
    if isinstance(node, ast.Name) and dicts.get(node.id) is not None:
        return list(dicts[node.id])
    if isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name) \
            and dicts.get(node.func.value.id) is not None:
        known = dicts[node.func.value.id]
        views = {"items": list(known.items()), "keys": list(known),
                 "values": list(known.values())}
        return views.get(node.func.attr, UNKNOWN)
    found = value(node, names, dicts)
    return list(found) if isinstance(found, tuple) else UNKNOWN


def _bound(target: ast.expr, item: Any) -> dict[str, Any] | None:
    return loop_bindings(target, item, lambda v: v if isinstance(v, tuple) else None)
