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
import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from launchplan.input.python_flow import ancestors, in_flow, loop_bindings

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
    out: dict[str, ast.expr] = {}
    for keys, given in _argparse_options(tree):
        if "default" in given and "action" not in given:
            out.update(dict.fromkeys(keys, given["default"]))
    return out


#: The value a switch's ``action`` leaves when the script is run without it.
_SWITCH_DEFAULTS = {"store_true": False, "store_false": True}


def argparse_values(tree: ast.Module) -> dict[str, Any]:
    """``argparse_defaults`` as Python values, for a test the script makes on them
    (``if args.fp8:``): a literal default, and a switch's own (``store_true`` is False when
    the script runs without it, as the other options are read at their defaults)."""
    out: dict[str, Any] = {}
    for keys, given in _argparse_options(tree):
        action = given.get("action")
        if "default" in given:
            if action is not None and not (isinstance(action, ast.Constant)
                                           and action.value in _SWITCH_DEFAULTS):
                continue
            try:
                found = ast.literal_eval(given["default"])
            except (ValueError, SyntaxError, TypeError):
                continue
        elif isinstance(action, ast.Constant) and action.value in _SWITCH_DEFAULTS:
            found = _SWITCH_DEFAULTS[action.value]
        else:
            continue
        out.update(dict.fromkeys(keys, found))
    return out


def _argparse_options(tree: ast.Module) -> Iterator[tuple[list[str], dict[str, ast.expr]]]:
    """Each option of the script's parser that is not required: the names its code reads
    the parsed value by (``args.tp``, one per parsed namespace), and the keywords it is
    added with."""
    holders = {node.targets[0].id for node in ast.walk(tree)
               if isinstance(node, ast.Assign) and len(node.targets) == 1
               and isinstance(node.targets[0], ast.Name) and _parsed_args(node.value)}
    if not holders:
        return
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        options = [a.value for a in node.args
                   if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        given = {k.arg: k.value for k in node.keywords if k.arg}
        required = given.get("required")
        if not options or (isinstance(required, ast.Constant) and required.value):
            continue
        dest = given.get("dest")
        if isinstance(dest, ast.Constant) and isinstance(dest.value, str):
            name = dest.value
        else:
            long = [o for o in options if o.startswith("--")]
            name = (long or options)[0].lstrip("-").replace("-", "_")
        yield [f"{holder}.{name}" for holder in holders], given


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


# What a script's own text fixes: the tests of its ``if`` statements and conditional
# expressions over module constants, argparse defaults and a function's first call, read as
# Python would run them with no arguments and an empty environment (as its argv is read).

_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_,
    ast.IsNot: operator.is_not, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b}
_ARITHMETIC: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
#: Calls whose value follows from their arguments' alone.
_PURE_CALLS: dict[str, Callable[..., Any]] = {
    "str": str, "int": int, "float": float, "bool": bool, "len": len}
_STRING_METHODS = frozenset({"lower", "upper", "strip", "startswith", "endswith", "split"})
#: The longest text or list worked out here: a script's flags, not a generated table.
_MAX_SIZE = 10_000


def truth(node: ast.expr, tree: ast.Module) -> bool | None:
    """Whether the test ``node`` of the script ``tree`` holds, when its text fixes it;
    None when it depends on what the text leaves open (an argument, the environment, a
    name set more than once)."""
    return _fixed(tree).truth(node)


def fixed(node: ast.expr, tree: ast.Module) -> Any:
    """The value of ``node`` when the script's text fixes it (see ``truth``); ``UNKNOWN``
    otherwise."""
    return _fixed(tree).value(node)


def decided(tree: ast.Module, branch: ast.If, field: str) -> bool | None:
    """Whether the script runs ``field`` (``body`` or ``orelse``) of the ``if`` statement
    ``branch``: the test's truth, the ``if __name__ == "__main__":`` block taken (a launch
    script runs as a program); None when the test is open."""
    if field == "body" and _main_test(branch.test):
        return True
    held = truth(branch.test, tree)
    if held is None:
        return None
    return held if field == "body" else not held


def _main_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = {ast.unparse(test.left), ast.unparse(test.comparators[0])}
    return sides in ({"__name__", "'__main__'"}, {"__name__", '"__main__"'})


@lru_cache(maxsize=8)
def _fixed(tree: ast.Module) -> _Fixed:
    return _Fixed(tree)


class _Fixed:
    """The names a script binds once, each worked out when first asked: a name whose only
    binding is ``NAME = expr`` outside loops and open branches is ``expr``'s value; a
    function parameter is what the function's first call passes, else its default;
    ``args.x`` of an argparse namespace its option's default. A name bound twice (or by a
    loop, an import, a ``with``) is open: which binding holds is the run's business."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.sites: dict[str, list[ast.AST]] = {}
        self.parents: dict[int, ast.AST] = {}
        self.stored: set[str] = set()  # attributes the script sets (``args.tp = 2``)
        functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
            for name in _bound_names(node):
                self.sites.setdefault(name, []).append(node)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.stored.add(ast.unparse(node))
            changed = _changed_name(node)
            if changed is not None:  # CFG["tp"] = 2, CFG.update(...): not its literal now
                self.sites.setdefault(changed, []).append(node)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.setdefault(node.name, []).append(node)
        self.functions = {name: defs[0] for name, defs in functions.items() if len(defs) == 1}
        self.options = argparse_values(tree)
        self.known: dict[str, Any] = {}
        self.busy: set[str] = set()

    def lookup(self, name: str) -> Any:
        if name in self.known:
            return self.known[name]
        if name in self.busy:
            return UNKNOWN
        self.busy.add(name)
        try:
            found = self._bound(name)
        finally:
            self.busy.discard(name)
        self.known[name] = found
        return found

    def _bound(self, name: str) -> Any:
        if "." in name:
            holder = name.split(".", 1)[0]
            if name not in self.options or name in self.stored \
                    or len(self.sites.get(holder, ())) != 1:
                return UNKNOWN
            return self.options[name]
        sites = self.sites.get(name, [])
        if len(sites) != 1:
            return UNKNOWN
        site = sites[0]
        if isinstance(site, ast.arg):
            return self._parameter(site)
        statement = self.parents.get(id(site))
        if isinstance(statement, ast.Assign) and all(
                isinstance(t, ast.Name) for t in statement.targets):
            bound = statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None \
                and statement.target is site:
            bound = statement.value
        else:
            return UNKNOWN
        for node, field in ancestors(self.tree, statement):
            if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) or (
                    isinstance(node, ast.If) and field in ("body", "orelse")
                    and decided(self.tree, node, field) is not True):
                return UNKNOWN
        return self.value(bound)

    def _parameter(self, param: ast.arg) -> Any:
        """A parameter's value in the function's first call in the script (by position or
        keyword), else its default; open for ``*args``/``**kwargs`` and lambdas."""
        arguments = self.parents.get(id(param))
        function = self.parents.get(id(arguments))
        if not isinstance(arguments, ast.arguments) or not isinstance(
                function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or param is arguments.vararg or param is arguments.kwarg:
            return UNKNOWN
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults = dict(zip(map(id, positional[len(positional) - len(arguments.defaults):]),
                            arguments.defaults))
        defaults.update((id(a), d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults)
                        if d is not None)
        call = self._first_call(function)
        if call is not None:
            for keyword in call.keywords:
                if keyword.arg == param.arg:
                    return self.value(keyword.value)
            if param in positional:
                at = positional.index(param)
                if any(isinstance(a, ast.Starred) for a in call.args[:at + 1]):
                    return UNKNOWN
                if at < len(call.args):
                    return self.value(call.args[at])
            if any(k.arg is None for k in call.keywords):
                return UNKNOWN  # ``**options`` may hold it
        default = defaults.get(id(param))
        return UNKNOWN if default is None else self.value(default)

    def _first_call(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.Call | None:
        if self.functions.get(function.name) is not function:
            return None
        calls = [node for node in ast.walk(self.tree) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Name) and node.func.id == function.name]
        return min(calls, key=lambda c: (c.lineno, c.col_offset), default=None)

    def truth(self, node: ast.expr) -> bool | None:
        if isinstance(node, ast.BoolOp):
            held = [self.truth(v) for v in node.values]
            decisive = isinstance(node.op, ast.Or)  # ``or`` holds on one true operand
            if decisive in held:
                return decisive
            return None if None in held else not decisive
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            held = self.truth(node.operand)
            return None if held is None else not held
        found = self.value(node)
        if found is UNKNOWN:
            return None
        try:
            return bool(found)
        except Exception:  # noqa: BLE001 - a value whose truth Python would not give
            return None

    def value(self, node: ast.expr) -> Any:
        try:
            found = self._value(node)
        except Exception:  # noqa: BLE001 - what would raise when run is no value
            return UNKNOWN
        if isinstance(found, (str, list, tuple, dict)) and len(found) > _MAX_SIZE:
            return UNKNOWN
        return found

    def _value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.lookup(node.id)
        if isinstance(node, ast.Attribute):
            return self.lookup(ast.unparse(node))
        if isinstance(node, ast.BoolOp):
            return self._bool_op(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            held = self.truth(node.operand)
            return UNKNOWN if held is None else not held
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            inner = self.value(node.operand)
            if isinstance(inner, (int, float)):
                return -inner if isinstance(node.op, ast.USub) else inner
            return UNKNOWN
        if isinstance(node, ast.Compare):
            left = self.value(node.left)
            for op, right_node in zip(node.ops, node.comparators):
                right = self.value(right_node)
                if left is UNKNOWN or right is UNKNOWN:
                    return UNKNOWN
                if not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            left, right = self.value(node.left), self.value(node.right)
            if left is UNKNOWN or right is UNKNOWN:
                return UNKNOWN
            if isinstance(node.op, ast.Mult) and not all(
                    isinstance(v, (int, float)) for v in (left, right)):
                return UNKNOWN  # ``"-" * n``: not worth working out
            return _ARITHMETIC[type(node.op)](left, right)
        if isinstance(node, ast.IfExp):
            held = self.truth(node.test)
            return UNKNOWN if held is None else self.value(node.body if held else node.orelse)
        if isinstance(node, (ast.Tuple, ast.List)):
            items = [self.value(e) for e in node.elts]
            if any(i is UNKNOWN for i in items) or any(
                    isinstance(e, ast.Starred) for e in node.elts):
                return UNKNOWN
            return tuple(items) if isinstance(node, ast.Tuple) else items
        if isinstance(node, ast.Dict):
            out = {}
            for key, item in zip(node.keys, node.values):
                k = UNKNOWN if key is None else self.value(key)
                v = self.value(item)
                if k is UNKNOWN or v is UNKNOWN:
                    return UNKNOWN
                out[k] = v
            return out
        if isinstance(node, ast.JoinedStr):
            return self._joined(node)
        if isinstance(node, ast.Subscript):
            base, key = self.value(node.value), self.value(node.slice)
            return UNKNOWN if UNKNOWN in (base, key) else base[key]
        if isinstance(node, ast.Call):
            return self._call(node)
        return UNKNOWN

    def _bool_op(self, node: ast.BoolOp) -> Any:
        """``a and b`` / ``a or b`` as Python gives it: the operand that decides."""
        last: Any = UNKNOWN
        for operand in node.values:
            last = self.value(operand)
            if last is UNKNOWN:
                return UNKNOWN
            if bool(last) == isinstance(node.op, ast.Or):
                return last
        return last

    def _joined(self, node: ast.JoinedStr) -> Any:
        parts: list[str] = []
        for piece in node.values:
            if isinstance(piece, ast.Constant):
                parts.append(str(piece.value))
                continue
            if not isinstance(piece, ast.FormattedValue):
                return UNKNOWN
            inner = self.value(piece.value)
            spec = "" if piece.format_spec is None else self.value(piece.format_spec)
            if inner is UNKNOWN or spec is UNKNOWN:
                return UNKNOWN
            if piece.conversion == ord("r"):
                inner = repr(inner)
            parts.append(format(inner, spec))
        return "".join(parts)

    def _call(self, node: ast.Call) -> Any:
        func = ast.unparse(node.func)
        args = [self.value(a) for a in node.args]
        if UNKNOWN in args or any(isinstance(a, ast.Starred) for a in node.args) \
                or node.keywords:
            return UNKNOWN
        if func in _PURE_CALLS and len(args) <= 1:
            return _PURE_CALLS[func](*args)
        if func in ("os.environ.get", "os.getenv") and len(args) == 2:
            return args[1]  # the variable unset, as the argv's reading takes it
        if isinstance(node.func, ast.Attribute) and node.func.attr in _STRING_METHODS:
            base = self.value(node.func.value)
            if isinstance(base, str):
                return getattr(base, node.func.attr)(*args)
        return UNKNOWN


def _bound_names(node: ast.AST) -> list[str]:
    """The names the node binds where it stands: an assignment's (or loop's, ``with``'s,
    walrus's) targets, a parameter, a function or class, an import, an ``except ... as``."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return [node.id]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return []
    return []


#: Methods that change the list or dict they are called on.
_CHANGING = frozenset({"append", "extend", "insert", "remove", "pop", "clear", "update",
                       "setdefault", "sort", "reverse", "popitem", "add", "discard"})


def _changed_name(node: ast.AST) -> str | None:
    """The name whose list or dict ``node`` changes in place (``NAME[k] = v``, ``del
    NAME[k]``, ``NAME.update(...)``): one more binding of it, as far as its value goes."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
        base = node.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in _CHANGING:
        base = node.func.value
    else:
        return None
    while isinstance(base, ast.Subscript):
        base = base.value
    return base.id if isinstance(base, ast.Name) else None
