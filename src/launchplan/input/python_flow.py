"""Where a statement of a pasted Python script sits in its control flow.

A script's launch is read from its text, never run: a statement under an ``if`` or a loop
runs or not at the script's own run time, so the readers (``python_launch``,
``python_values``) need to know which tests surround it. One walk of the tree answers both
questions they ask.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
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
