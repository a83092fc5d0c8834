"""Where a statement of a pasted Python script sits in its control flow, and where a value
it makes goes.

A script's launch is read from its text, never run: a statement under an ``if`` or a loop
runs or not at the script's own run time, so the readers (``python_launch``,
``python_values``) need to know which tests surround it. One walk of the tree answers both
questions they ask. A command string the script only compares, asserts on or prints starts
nothing, so ``python_launch`` also asks whether a command reaches anything that may run it
(``data_uses``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TypeVar

_LOOPS = (ast.For, ast.While, ast.AsyncFor)


def ancestors(tree: ast.AST, target: ast.AST) -> list[tuple[ast.AST, str]]:
    """The nodes around ``target`` in ``tree``, outermost first, each with the field of it
    (``body``, ``orelse``, ``test``, ...) that holds ``target``; empty when ``target`` is
    ``tree`` or not in it."""
    path: list[tuple[ast.AST, str]] = []

    def visit(node: ast.AST) -> bool:
        if node is target:
            return True
        for field, value in ast.iter_fields(node):
            for child in value if isinstance(value, list) else (value,):
                if isinstance(child, ast.AST):
                    path.append((node, field))
                    if visit(child):
                        return True
                    path.pop()
        return False

    return path if visit(tree) else []


def branches(tree: ast.AST, target: ast.AST) -> list[tuple[ast.If, str]]:
    """The ``if`` statements around ``target``, each with the branch (``body`` or
    ``orelse``) that holds it, outermost first."""
    return [(node, field) for node, field in ancestors(tree, target)
            if isinstance(node, ast.If) and field in ("body", "orelse")]


def in_flow(tree: ast.AST, target: ast.AST) -> bool:
    """Whether ``target`` sits in a branch of an ``if`` or anywhere in a loop: whether (or
    how often) it runs is the script's run-time business."""
    return any((isinstance(node, ast.If) and field in ("body", "orelse"))
               or isinstance(node, _LOOPS) for node, field in ancestors(tree, target))


Item = TypeVar("Item")


def loop_bindings(target: ast.expr, item: Item,
                  parts: Callable[[Item], Sequence[Item] | None]) -> dict[str, Item] | None:
    """The names a ``for`` target binds to one item (``k, v`` to a pair, nested as written),
    or None when the item does not unpack so: ``parts`` opens an item into its parts (an
    expression's tuple elements, a value's tuple), one helper for loops read as code or as
    values."""
    if isinstance(target, ast.Name):
        return {target.id: item}
    if not isinstance(target, ast.Tuple):
        return None
    pieces = parts(item)
    if pieces is None or len(pieces) != len(target.elts):
        return None
    out: dict[str, Item] = {}
    for sub, part in zip(target.elts, pieces):
        inner = loop_bindings(sub, part, parts)
        if inner is None:
            return None
        out.update(inner)
    return out


# Where a value a script makes goes: a command string a test compares, a table entry a
# script prints, a local an assertion looks at starts nothing, while one handed to any call
# not known to leave it be (``subprocess.run``, ``launch_server_cmd``, the script's own
# function) may start it. Reading follows the value through names, containers and text
# made from it; anything it cannot follow counts as a start, so only a value seen to end in
# data alone is called data.

#: Calls that give back (part of) the value they are handed, and start nothing:
#: ``next(iter(KNOWN.items()))``, ``shlex.split(cmd)``, ``pattern.match(cmd)``.
_PASSING_CALLS = frozenset({
    "str", "list", "tuple", "set", "frozenset", "sorted", "reversed", "iter", "next",
    "enumerate", "zip", "dict", "any", "all", "split", "join", "quote", "dedent", "cleandoc",
    "match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "escape", "dumps",
    "deepcopy", "copy", "format"})
#: Calls whose result says something about the value, not the value: ``len(cmd)``.
LOOKING_CALLS = frozenset({"len", "isinstance", "type", "id", "bool", "hash", "callable",
                            "hasattr", "repr"})
#: Calls that show their arguments to a person: ``print``, a logger's methods, click's,
#: SGLang's docs' ``print_highlight``.
SHOWING_CALLS = frozenset({"print", "debug", "info", "warning", "warn", "error", "exception",
                            "critical", "log", "echo", "secho", "pprint", "print_highlight"})
#: A value's own methods that give back text or items made from it (``cmd.replace(...)``,
#: ``KNOWN.items()``).
_PASSING_METHODS = frozenset({
    "replace", "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines", "startswith",
    "endswith", "lower", "upper", "casefold", "format", "join", "items", "values", "keys",
    "get", "copy", "count", "find", "rfind", "index", "rindex", "partition", "rpartition",
    "removeprefix", "removesuffix", "encode", "decode", "pop", "title", "expandtabs"})
#: Methods that change the list, dict or set they are called on: handed the value, the
#: container then holds it; called on the value, they give nothing back.
_FILLING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault",
                              "appendleft"})
_CHANGING_METHODS = frozenset({"remove", "clear", "sort", "reverse", "discard", "popitem"})
#: What a script does with a value it only handles as data, in the order the error says it.
DATA_USES = ("compares", "asserts", "prints")
#: How many expressions one value is followed through before it counts as a start.
_FOLLOW_LIMIT = 400


class _Index:
    """One tree's parents, name and attribute loads and calls by name, made once."""

    def __init__(self, tree: ast.Module) -> None:
        self.parents: dict[int, ast.AST] = {}
        self.names: dict[str, list[ast.Name]] = {}
        self.attributes: dict[str, list[ast.Attribute]] = {}
        self.calls: dict[str, list[ast.Call]] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                self.names.setdefault(node.id, []).append(node)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                self.attributes.setdefault(node.attr, []).append(node)
            elif isinstance(node, ast.Call):
                self.calls.setdefault(called_name(node), []).append(node)


@lru_cache(maxsize=8)
def _index(tree: ast.Module) -> _Index:
    return _Index(tree)


def called_name(call: ast.Call) -> str:
    """The name a call's function goes by (``popen_launch_server`` of ``tu.popen_...``)."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def data_uses(tree: ast.Module, node: ast.AST) -> list[str] | None:
    """What the script does with the value ``node`` makes (``DATA_USES``) when every use of
    it ends in data (compared, asserted, printed, or dropped); None when a use may start it
    (handed to a call not known to leave it be, returned from a function a call hands on,
    yielded, written) or when nothing uses it at all: a command string with nothing around
    it (``cmd = "python -m sglang.launch_server ..."``, a docstring) is the user's launch."""
    index = _index(tree)
    found: set[str] = set()
    seen: set[int] = set()
    work: list[ast.AST] = [node]
    while work:
        held = work.pop()
        if id(held) in seen:
            continue
        seen.add(id(held))
        if len(seen) > _FOLLOW_LIMIT:
            return None
        parent = index.parents.get(id(held))
        if isinstance(parent, ast.keyword):
            held, parent = parent, index.parents.get(id(parent))
        step = _step(tree, index, held, parent, held is node)
        if step is None:
            return None
        if isinstance(step, str):
            found.add(step)
        else:
            work.extend(step)
    return [use for use in DATA_USES if use in found] or None


def _step(tree: ast.Module, index: _Index, held: ast.AST, parent: ast.AST | None,
          first: bool) -> str | list[ast.AST] | None:
    """Where the value ``held`` stands goes on: a data use (``DATA_USES``), the
    expressions that hold it next (none: dropped), or None (it may be started)."""
    if parent is None:
        return None
    if isinstance(parent, ast.Expr):
        return None if first else []  # a bare string (a docstring) is the user's text
    if isinstance(parent, (ast.Compare, ast.UnaryOp)) or (
            isinstance(parent, (ast.If, ast.While, ast.IfExp)) and held is parent.test) or (
            isinstance(parent, ast.comprehension) and held in parent.ifs):
        return "compares"
    if isinstance(parent, ast.Assert):
        return "asserts"
    if isinstance(parent, (ast.BinOp, ast.BoolOp, ast.IfExp, ast.JoinedStr, ast.FormattedValue,
                           ast.Starred, ast.Subscript, ast.Slice, ast.Tuple, ast.List, ast.Set,
                           ast.Dict, ast.ListComp, ast.SetComp, ast.GeneratorExp,
                           ast.DictComp)):
        return [parent]
    if isinstance(parent, ast.Call):
        return _call_step(tree, index, held, parent)
    if isinstance(parent, ast.Attribute) and held is parent.value:
        call = index.parents.get(id(parent))
        if not (isinstance(call, ast.Call) and call.func is parent):
            return None
        if parent.attr in _PASSING_METHODS:
            return [call]
        return [] if parent.attr in _FILLING_METHODS | _CHANGING_METHODS else None
    if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
        if held is not parent.value:
            return []  # ``cmd[0] = ...``, ``d[cmd] = ...``: a store into it, nothing run
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        uses = _bound_uses(tree, index, targets)
        if uses is None:
            return None
        return [*uses, parent] if isinstance(parent, ast.NamedExpr) else uses
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and held is parent.iter:
        return _bound_uses(tree, index, [parent.target])
    if isinstance(parent, ast.Return):
        function = _function_of(index, parent)
        return None if function is None else list(index.calls.get(function.name, []))
    if isinstance(parent, ast.Delete):
        return []
    return None


def _call_step(tree: ast.Module, index: _Index, held: ast.AST, call: ast.Call
               ) -> str | list[ast.AST] | None:
    """Where a value handed to ``call`` (an argument, a keyword's) goes on (``_step``)."""
    if held is call.func:
        return None
    name = called_name(call)
    if name in SHOWING_CALLS:
        return "prints"
    if name.startswith("assert"):  # unittest's ``self.assertIn(...)``
        return "asserts"
    if name in LOOKING_CALLS:
        return []
    if name in _PASSING_CALLS:
        return [call]
    if name in _FILLING_METHODS and isinstance(call.func, ast.Attribute):
        return _bound_uses(tree, index, [call.func.value])  # ``commands.append(cmd)``
    return None


def _bound_uses(tree: ast.Module, index: _Index, targets: list[ast.expr]
                ) -> list[ast.AST] | None:
    """The loads of what ``targets`` bind (a name's in the scope that binds it, an
    attribute's by its name anywhere, a container's a subscript stores into); None for a
    target not followed."""
    from launchplan.input.python_values import binding_scope, scope_of

    out: list[ast.AST] = []
    for target in targets:
        while isinstance(target, (ast.Subscript, ast.Starred)):
            target = target.value
            if "environ" in ast.unparse(target):
                return None  # the environment every process the script starts inherits
        if isinstance(target, (ast.Tuple, ast.List)):
            inner = _bound_uses(tree, index, list(target.elts))
            if inner is None:
                return None
            out += inner
        elif isinstance(target, ast.Name):
            holder = binding_scope(target, tree)
            out += [use for use in index.names.get(target.id, [])
                    if binding_scope(use, tree) is holder]
            if isinstance(scope_of(target, tree), ast.ClassDef):  # read as ``self.NAME``
                out += index.attributes.get(target.id, [])
        elif isinstance(target, ast.Attribute):
            out += index.attributes.get(target.attr, [])
        else:
            return None
    return out


def _function_of(index: _Index, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function whose own ``return`` ``node`` is (None in a lambda or at the top)."""
    at = index.parents.get(id(node))
    while at is not None and not isinstance(at, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                 ast.Lambda)):
        at = index.parents.get(id(at))
    return at if isinstance(at, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def unreached(tree: ast.Module, targets: Sequence[ast.AST]) -> set[int]:
    """The ids of those ``targets`` the script's own run never reaches: in a function or
    method nothing it runs calls or names (a benchmark's ``run_native_eval`` its ``main``
    calls only under ``--mode native``, an engine setup kept for another mode), or under
    an ``if`` its values decide against. Empty when no target is reached (a module of
    definitions only, run by its importer: every function may be the entry point).
    Decorated functions (Modal, click, pytest fixtures), ``test*`` functions and the
    methods of a reached class that has bases (framework hooks) count as reached."""
    from launchplan.input.python_values import decided

    functions: dict[str, list[ast.AST]] = {}
    classes: dict[str, list[ast.ClassDef]] = {}
    owner: dict[int, ast.AST] = {}  # a node's innermost function, or the module
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.ClassDef):
            classes.setdefault(node.name, []).append(node)
    reached: set[int] = set()
    pending: list[ast.AST] = [tree]
    skipped: set[int] = set()  # nodes under a branch the script's values rule out

    def reach(unit: ast.AST) -> None:
        if id(unit) not in reached:
            reached.add(id(unit))
            pending.append(unit)

    def visit(node: ast.AST, unit: ast.AST) -> None:
        owner[id(node)] = unit
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not unit:
            if node.decorator_list or node.name.startswith("test"):
                reach(node)
            for decorator in node.decorator_list:
                visit(decorator, unit)
            return  # its body runs when it is called
        if isinstance(node, ast.If):
            visit(node.test, unit)
            for field in ("body", "orelse"):
                if decided(tree, node, field) is False:
                    for statement in getattr(node, field):
                        skipped.update(id(n) for n in ast.walk(statement))
                    continue
                for statement in getattr(node, field):
                    visit(statement, unit)
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            for function in functions.get(node.id, []):
                reach(function)
            for cls in classes.get(node.id, []):
                for item in cls.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                            cls.bases or item.name.startswith("__")):
                        reach(item)
        elif isinstance(node, ast.Attribute):
            for function in functions.get(node.attr, []):
                reach(function)
        for child in ast.iter_child_nodes(node):
            visit(child, unit)

    while pending:
        unit = pending.pop()
        body = unit.body if isinstance(unit, (ast.Module, ast.FunctionDef,
                                              ast.AsyncFunctionDef)) else []
        for statement in body:
            visit(statement, unit)
    named = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    out: set[int] = set()
    for target in targets:
        if id(target) in skipped:
            out.add(id(target))
            continue
        unit = owner.get(id(target))
        if unit is tree or id(unit) in reached:
            continue
        function = _enclosing_function(tree, target)
        if function is not None and function.name not in named \
                and len(function.args.args) + len(function.args.kwonlyargs) > 0 \
                and not isinstance(_parent_of(tree, function), ast.ClassDef):
            continue  # a function the script never names but takes arguments: its
            # importer's entry point (``start_server(rollout_args)``), not a dead setup
        out.add(id(target))
    return set() if len(out) == len(targets) else out


def _enclosing_function(tree: ast.Module, target: ast.AST
                        ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The outermost function ``target`` sits in, else None."""
    return next((node for node, _ in ancestors(tree, target)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def _parent_of(tree: ast.Module, node: ast.AST) -> ast.AST | None:
    found = ancestors(tree, node)
    return found[-1][0] if found else None
