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
import posixpath
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath, PurePosixPath
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
#: A ``pathlib`` path's methods and attributes whose value follows from the path's text
#: alone (``resolve()``, ``exists()``, ``home()`` ask the machine the script runs on).
_PATH_METHODS = frozenset({"as_posix", "joinpath", "with_name", "with_suffix", "with_stem"})
_PATH_PARTS = frozenset({"name", "parent", "stem", "suffix"})
#: ``pathlib``'s path classes: each makes the path its arguments join.
_PATH_CLASSES = frozenset({"Path", "PurePath", "PosixPath", "PurePosixPath"})


def _path_types(tree: ast.Module) -> frozenset[str]:
    """How the script calls ``pathlib``'s path classes: ``Path`` of ``from pathlib import
    Path`` (its ``as`` name too), ``pathlib.Path`` of ``import pathlib``. A ``Path`` the
    script does not import from pathlib is someone else's and is not evaluated."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "pathlib":
            out.update(a.asname or a.name for a in node.names if a.name in _PATH_CLASSES)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "pathlib":
                    out.update(f"{alias.asname or 'pathlib'}.{name}" for name in _PATH_CLASSES)
    return frozenset(out)
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


def scope_of(node: ast.AST, tree: ast.Module) -> ast.AST:
    """The function, lambda, class or comprehension ``node`` of ``tree`` stands in, else
    the module: where its names are its own."""
    return _fixed(tree).scope(node)


def binding_scope(node: ast.Name, tree: ast.Module) -> ast.AST | None:
    """The scope whose bindings a use of the name ``node`` sees, as Python resolves it (its
    own scope's, an enclosing function's, the module's); None for a name the text never
    binds or declares ``global``/``nonlocal`` (bound across scopes)."""
    return _fixed(tree).binding_scope(node.id, scope_of(node, tree))


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


#: The nodes that open a scope of their own names.
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)


@lru_cache(maxsize=8)
def _fixed(tree: ast.Module) -> _Fixed:
    return _Fixed(tree)


class _Fixed:
    """The names a script binds once, each worked out when first asked: a name whose only
    binding is ``NAME = expr`` outside loops and open branches is ``expr``'s value,
    followed from name to name (a cycle is open); a function parameter is what the
    function's first call passes (a class's ``__init__``'s, what ``Class(...)`` passes),
    else its default (a click or Typer option's too); ``args.x`` of an argparse namespace
    its option's default; a function of no parameters that only returns an expression,
    called, that expression's value. Names are looked up in the scope of their use, as
    Python does: a function's locals are its own. A name bound twice in its scope (or by a
    loop, an import, a ``with``) is open: which binding holds is the run's business."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        # each name's bindings by the scope they bind it in (a function's locals are its
        # own: ``tp`` set in two functions is two names), and by name alone
        self.sites: dict[tuple[int, str], list[ast.AST]] = {}
        self.everywhere: dict[str, list[ast.AST]] = {}
        self.changed: set[str] = set()  # CFG["tp"] = 2, CFG.update(...): not its literal now
        self.declared: set[str] = set()  # ``global``/``nonlocal`` names: bound across scopes
        self.parents: dict[int, ast.AST] = {}
        self.stored: set[str] = set()  # attributes the script sets (``args.tp = 2``)
        functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
        for node in ast.walk(tree):
            for name in _bound_names(node):
                self.sites.setdefault((id(self.scope(node)), name), []).append(node)
                self.everywhere.setdefault(name, []).append(node)
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                self.declared.update(node.names)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.stored.add(ast.unparse(node))
            changed = _changed_name(node)
            if changed is not None:
                self.changed.add(changed)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.setdefault(node.name, []).append(node)
        self.functions = {name: defs[0] for name, defs in functions.items() if len(defs) == 1}
        self.classes = {node.name: node for node in ast.walk(tree)
                        if isinstance(node, ast.ClassDef)}
        self.options = argparse_values(tree)
        self.path_types = _path_types(tree)
        # a default given through a name (``default=DEFAULT_MODEL``): worked out when asked
        self.option_exprs = {key: expr for key, expr in argparse_defaults(tree).items()
                             if key not in self.options}
        self.known: dict[tuple[int, str], Any] = {}
        self.busy: set[tuple[int, str]] = set()

    def scope(self, node: ast.AST) -> ast.AST:
        """The scope ``node`` stands in: the nearest function, lambda, class or
        comprehension around it, else the module (a node not in the tree: the module)."""
        at = self.parents.get(id(node))
        while at is not None and not isinstance(at, _SCOPES):
            at = self.parents.get(id(at))
        return at if at is not None else self.tree

    def _sites(self, name: str, scope: ast.AST) -> list[ast.AST]:
        """The bindings a use of ``name`` in ``scope`` sees, as Python resolves it: the
        scope's own, else an enclosing function's (a class body's only from within it),
        else the module's."""
        if name in self.declared:
            return self.everywhere.get(name, [])
        holder = self.binding_scope(name, scope)
        return self.sites[(id(holder), name)] if holder is not None else []

    def binding_scope(self, name: str, scope: ast.AST) -> ast.AST | None:
        """The scope whose bindings of ``name`` a use in ``scope`` sees (``_sites``)."""
        if name in self.declared:
            return None
        at, start = scope, True
        while True:
            if (start or not isinstance(at, ast.ClassDef)) and self.sites.get((id(at), name)):
                return at
            if at is self.tree:
                return None
            at, start = self.scope(at), False

    def lookup(self, name: str, scope: ast.AST | None = None) -> Any:
        at = scope if scope is not None else self.tree
        return self._once((id(at), name), lambda: self._bound(name, at))

    def _once(self, key: tuple[int, str], compute: Callable[[], Any]) -> Any:
        """``compute()`` once per ``key``, remembered; UNKNOWN when asked again while it runs
        (a name defined through itself)."""
        if key in self.known:
            return self.known[key]
        if key in self.busy:
            return UNKNOWN
        self.busy.add(key)
        try:
            found = compute()
        finally:
            self.busy.discard(key)
        self.known[key] = found
        return found

    def _bound(self, name: str, scope: ast.AST) -> Any:
        if "." in name:
            holder, rest = name.split(".", 1)
            held = self._sites(holder, scope)
            if len(held) == 1 and isinstance(held[0], ast.arg) and "." not in rest \
                    and name in self.stored:
                # ``self.tp_size`` in a method: what ``__init__`` set it to
                return self._instance_attribute(held[0], rest)
            if name in self.stored or len(held) != 1 or holder in self.changed:
                return UNKNOWN
            if isinstance(held[0], ast.arg):  # ``args.model`` of a parameter: the caller's
                passed = self._passed(held[0])
                if isinstance(passed, ast.Name):
                    return self.lookup(f"{passed.id}.{rest}", self.scope(passed))
                return UNKNOWN
            if name in self.options:
                return self.options[name]
            if name in self.option_exprs:
                return self.value(self.option_exprs[name])
            return UNKNOWN
        sites = self._sites(name, scope)
        if len(sites) != 1 or name in self.changed:
            return UNKNOWN
        site = sites[0]
        if isinstance(site, ast.arg):
            return self._parameter(site)
        if isinstance(site, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return _Function(site)
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

    def _instance_attribute(self, param: ast.arg, attr: str) -> Any:
        """``self.<attr>`` read in a method whose first parameter is ``param``: the value the
        class's ``__init__`` sets it to (its parameters from the script's first
        ``Class(...)`` call, else their defaults), when that is the class's only setting of
        it and ``__init__`` makes it on every run; open otherwise (a wrapper that sets it
        again later, in a branch the text leaves open, or in another method)."""
        arguments = self.parents.get(id(param))
        method = self.parents.get(id(arguments))
        cls = self.parents.get(id(method))
        if not isinstance(cls, ast.ClassDef) or not isinstance(
                method, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or not method.args.args or method.args.args[0] is not param \
                or any(ast.unparse(d) in ("staticmethod", "classmethod")
                       for d in method.decorator_list):
            return UNKNOWN
        setters: list[ast.Assign] = []
        for function in cls.body:
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    or not function.args.args:
                continue
            me = function.args.args[0].arg
            for node in ast.walk(function):
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        for part in ast.walk(target):
                            if isinstance(part, ast.Attribute) and part.attr == attr \
                                    and isinstance(part.value, ast.Name) \
                                    and part.value.id == me:
                                if not (isinstance(node, ast.Assign) and target is part
                                        and function.name == "__init__"):
                                    return UNKNOWN
                                setters.append(node)
        if len(setters) != 1:
            return UNKNOWN
        constructed = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                          and n.func.id == cls.name for n in ast.walk(self.tree))
        if not constructed and any(
                other is not cls and isinstance(other, ast.ClassDef) and any(
                    isinstance(t, ast.Attribute) and t.attr == attr
                    and isinstance(t.ctx, ast.Store) for t in ast.walk(other))
                for other in self.classes.values()):
            return UNKNOWN  # which class's instance the method runs on is the caller's
        for node, field in ancestors(self.tree, setters[0]):
            if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler)) or (
                    isinstance(node, ast.If) and field in ("body", "orelse")
                    and decided(self.tree, node, field) is not True):
                return UNKNOWN
        return self.value(setters[0].value)

    def _flowed(self, use: ast.Name) -> Any:
        """The value a name its own function binds more than once has at ``use``, as the
        script's straight-line run leaves it: the last binding before the use that runs
        (``if port is None: port = int(os.getenv("PORT", "8000"))`` after the parameter
        ``port=None``, the default idiom), one under a branch the script's values rule out
        or in an ``except`` handler (the run read raises nothing) skipped; open after a
        binding under a test the text leaves open, in a loop, or of another kind (``+=``, a
        ``for`` target) until a later binding that runs."""
        scope = self.scope(use)
        # a function's own names only: a module's name set twice stays open (its functions
        # may run between the two settings)
        if use.id in self.declared or self.binding_scope(use.id, scope) is not scope \
                or not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or len(self.sites[(id(scope), use.id)]) < 2:
            return UNKNOWN
        return self._once((id(use), "#flow"), lambda: self._flow_value(use, scope))

    def _flow_value(self, use: ast.Name, scope: ast.AST) -> Any:
        around = {id(node) for node, _ in ancestors(self.tree, use)}
        at = (use.lineno, use.col_offset)
        current: Any = UNKNOWN
        for site in sorted(self.sites[(id(scope), use.id)], key=_site_position):
            statement = site if isinstance(site, ast.arg) else self._statement(site)
            if statement is None:
                return UNKNOWN
            state: bool | None = True
            for node, field in ancestors(self.tree, statement):
                if id(node) in around:
                    if isinstance(node, _LOOPS_AND_MATCH):
                        return UNKNOWN  # a binding in the use's loop reaches its next pass
                    continue
                if isinstance(node, ast.If) and field in ("body", "orelse"):
                    held = decided(self.tree, node, field)
                    if held is False:
                        state = False
                        break
                    if held is None:
                        state = None
                elif isinstance(node, ast.ExceptHandler):
                    state = False
                    break
                elif isinstance(node, _LOOPS_AND_MATCH):
                    state = None
            if state is False or (not isinstance(site, ast.arg) and (
                    statement.end_lineno or 0, statement.end_col_offset or 0) > at):
                continue  # not run, or bound after the use (or by the statement using it)
            current = UNKNOWN if state is None else self._site_value(site, statement)
        return current

    def _statement(self, site: ast.AST) -> ast.stmt | None:
        at: ast.AST | None = site
        while at is not None and not isinstance(at, ast.stmt):
            at = self.parents.get(id(at))
        return at

    def _site_value(self, site: ast.AST, statement: ast.AST) -> Any:
        """The value one binding gives its name: a parameter's (``_parameter``), a plain
        assignment's; ``UNKNOWN`` for any other kind."""
        if isinstance(site, ast.arg):
            return self._parameter(site)
        if isinstance(statement, ast.Assign) and all(
                isinstance(t, ast.Name) for t in statement.targets):
            return self.value(statement.value)
        if isinstance(statement, ast.AnnAssign) and statement.value is not None \
                and statement.target is site:
            return self.value(statement.value)
        return UNKNOWN

    def _parameter(self, param: ast.arg) -> Any:
        """A parameter's value in the function's first call in the script (by position or
        keyword), else its default; open for ``*args``/``**kwargs`` and lambdas."""
        passed = self._passed(param)
        if passed is None:
            return self._extra_keywords(param)
        return self.value(passed)

    def _extra_keywords(self, param: ast.arg) -> Any:
        """A ``**kwargs`` parameter's value: the keywords the function's first call passes
        that no named parameter takes (none when the script never calls it: its caller's
        extras are not in the text, and a wrapper run with its defaults gets none); open
        for any other parameter, or a call that spreads ``**options``."""
        arguments = self.parents.get(id(param))
        function = self.parents.get(id(arguments))
        if not isinstance(arguments, ast.arguments) or param is not arguments.kwarg \
                or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return UNKNOWN
        call, _ = self._first_call(function)
        if call is None:
            return {}
        named = {a.arg for a in (*arguments.posonlyargs, *arguments.args,
                                 *arguments.kwonlyargs)}
        out: dict[str, Any] = {}
        for keyword in call.keywords:
            if keyword.arg is None:
                return UNKNOWN
            if keyword.arg not in named:
                out[keyword.arg] = self.value(keyword.value)
        return out

    def _passed(self, param: ast.arg) -> ast.expr | None:
        """The expression a parameter gets (``_parameter``); None when not known."""
        arguments = self.parents.get(id(param))
        function = self.parents.get(id(arguments))
        if not isinstance(arguments, ast.arguments) or not isinstance(
                function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or param is arguments.vararg or param is arguments.kwarg:
            return None
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults = dict(zip(map(id, positional[len(positional) - len(arguments.defaults):]),
                            arguments.defaults))
        defaults.update((id(a), d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults)
                        if d is not None)
        call, skip = self._first_call(function)
        if param in positional[:skip]:
            return None  # a method's ``self``
        if call is not None:
            for keyword in call.keywords:
                if keyword.arg == param.arg:
                    return keyword.value
            if param in positional:
                at = positional.index(param) - skip
                if any(isinstance(a, ast.Starred) for a in call.args[:at + 1]):
                    return None
                if at < len(call.args):
                    return call.args[at]
            if any(k.arg is None for k in call.keywords):
                return None  # ``**options`` may hold it
        default = defaults.get(id(param))
        if default is None:
            return _click_default(function, param.arg)
        return _option_default(default)

    def _first_call(self, function: ast.FunctionDef | ast.AsyncFunctionDef
                    ) -> tuple[ast.Call | None, int]:
        """(the function's first call in the script, how many leading parameters that call
        does not pass): a class's ``__init__`` is called as the class, ``self`` not passed."""
        owner = self.parents.get(id(function))
        method = isinstance(owner, ast.ClassDef)
        if function.name == "__init__" and method \
                and self.classes.get(owner.name) is owner:  # type: ignore[union-attr]
            name, skip = owner.name, 1  # type: ignore[union-attr]
        elif self.functions.get(function.name) is function:
            name = function.name
            # a method called on its object (``runner.load("...")``) is not passed ``self``
            skip = int(method and not any(ast.unparse(d) == "staticmethod"
                                          for d in function.decorator_list))
        else:
            return None, 0
        by_attribute = method and function.name != "__init__"

        def calls_it(node: ast.AST) -> bool:
            if not isinstance(node, ast.Call):
                return False
            if by_attribute:
                return isinstance(node.func, ast.Attribute) and node.func.attr == name
            return isinstance(node.func, ast.Name) and node.func.id == name

        calls = [node for node in ast.walk(self.tree) if calls_it(node)]
        return min(calls, key=lambda c: (c.lineno, c.col_offset), default=None), skip

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
        if isinstance(found, (str, list, tuple, dict)) and len(found) > _MAX_SIZE \
                or isinstance(found, _Function):
            return UNKNOWN
        return found

    def _value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            found = self.lookup(node.id, self.scope(node))
            if found is UNKNOWN and hasattr(node, "lineno"):
                return self._flowed(node)
            return found
        if isinstance(node, ast.Attribute):
            if node.attr in _PATH_PARTS:  # MODEL_DIR.parent, MODEL_DIR.name of a known path
                base = self.value(node.value)
                if isinstance(base, PurePath):
                    return getattr(base, node.attr)
            return self.lookup(ast.unparse(node), self.scope(node))
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
            if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
                right = self.value(node.comparators[0])
                if isinstance(right, (dict, list, tuple, str)) and not right:
                    # ``key in self.extra_kwargs`` of an empty mapping: whatever the key
                    return isinstance(node.ops[0], ast.NotIn)
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
            # ``os.getenv("X") or "d"``: unset in the planned process, so None here (alone,
            # such a lookup stays open: a flag's value is not dropped on that reading)
            last = None if _environment_lookup(operand) else self.value(operand)
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
        if func in self.path_types and args and all(
                isinstance(a, (str, PurePath)) for a in args):
            return PurePosixPath(*args)  # Path("/models/xor"): a path the text spells out
        if func == "os.path.join" and args and all(
                isinstance(a, (str, PurePath)) for a in args):
            return posixpath.join(*args)
        if isinstance(node.func, ast.Attribute) and node.func.attr in _PATH_METHODS:
            base = self.value(node.func.value)
            if isinstance(base, PurePath) and all(isinstance(a, (str, PurePath)) for a in args):
                return getattr(base, node.func.attr)(*args)
        if func in ("os.environ.get", "os.getenv") and len(args) == 2:
            return args[1]  # the variable unset, as the argv's reading takes it
        if isinstance(node.func, ast.Name):
            called = self.lookup(node.func.id, self.scope(node))
            if isinstance(called, _Function) and not args:
                return self.value(called.returned) if called.returned is not None \
                    else UNKNOWN
        if isinstance(node.func, ast.Attribute) and node.func.attr in _STRING_METHODS:
            base = self.value(node.func.value)
            if isinstance(base, str):
                return getattr(base, node.func.attr)(*args)
        return UNKNOWN


_LOOPS_AND_MATCH = (ast.For, ast.AsyncFor, ast.While, ast.Match)


def _site_position(site: ast.AST) -> tuple[int, int]:
    return getattr(site, "lineno", 0), getattr(site, "col_offset", 0)


class _Function:
    """A function the script defines, as a name's value: ``returned`` is the expression of
    its one ``return`` when its body only returns it (``def kwargs(): return {...}``),
    which a call without arguments gives."""

    def __init__(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        given = node.args
        # only a function of no parameters: its one value is the same on every call
        self.returned = None if (given.posonlyargs or given.args or given.kwonlyargs
                                 or given.vararg or given.kwarg) \
            else returned_expression(node)


def returned_expression(function: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.expr | None:
    """The expression a function returns when its body is (a docstring and) one ``return``
    of it: a settings builder (``def build_engine_kwargs(args): return {...}``) is that
    expression with its parameters bound. None for any other body (what it returns depends
    on statements run first)."""
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    if function.decorator_list or len(body) != 1 or not isinstance(body[0], ast.Return):
        return None
    return body[0].value


def _option_default(default: ast.expr) -> ast.expr | None:
    """A parameter's default as written, or the one a Typer ``Option``/``Argument`` holds
    (``tp: int = typer.Option(DEFAULT_TP)``: its first argument, or ``default=``; None
    without one)."""
    if isinstance(default, ast.Call) and isinstance(default.func, (ast.Attribute, ast.Name)) \
            and ast.unparse(default.func).rsplit(".", 1)[-1] in ("Option", "Argument"):
        given = [k.value for k in default.keywords if k.arg == "default"] or default.args[:1]
        return given[0] if given else None
    return default


def _click_default(function: ast.FunctionDef | ast.AsyncFunctionDef,
                   name: str) -> ast.expr | None:
    """The ``default=`` of the click option that fills the parameter ``name``
    (``@click.option("--tp", default=DEFAULT_TP)``: what a run without arguments gets)."""
    for decorator in function.decorator_list:
        if not (isinstance(decorator, ast.Call) and ast.unparse(decorator.func).endswith(
                ("click.option", "click.argument"))):
            continue
        names = [a.value for a in decorator.args
                 if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        bare = [n for n in names if not n.startswith("-")]
        longest = max((n for n in names if n.startswith("-")), key=len, default="")
        if names and (bare[0] if bare else longest.lstrip("-").replace("-", "_")) == name:
            return next((k.value for k in decorator.keywords if k.arg == "default"), None)
    return None


def _environment_lookup(node: ast.expr) -> bool:
    """Whether ``node`` reads an environment variable with no default of its own
    (``os.getenv("X")``, ``os.environ.get("X")``): None where the variable is unset."""
    return (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
            and ast.unparse(node.func) in ("os.environ.get", "os.getenv"))


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
