"""A bound on what a YAML document's aliases expand to.

YAML lets a document name a node (``&a``) and repeat it (``*a``). PyYAML's safe loader keeps
a repeated node as one shared object, so loading is cheap, but anything that walks the data
as a tree (turning a config's values into command-line tokens, reading a manifest's
arguments, printing a value) visits it once per reference: nine lists of nine references,
eight levels deep, make a few hundred bytes that expand to 43 million strings (the "billion
laughs"). A reference to an enclosing node never ends at all. Every YAML launchplan reads --
``--config`` files and pasted configs, manifests, cloud-init and recipe files -- is measured
here right after loading, in time linear in the shared graph, and refused past the bound.
"""

from __future__ import annotations

from typing import Any

from launchplan.errors import InputError

MAX_EXPANDED = 100_000
"""Values a document may expand to: a server config or manifest holds hundreds."""


#: ``expanded_size`` of a node that contains itself: no size at all
CYCLE = -1


def expanded_size(data: Any, limit: int = MAX_EXPANDED) -> int | None:
    """How many values ``data`` holds when every shared node counts once per reference
    (mapping keys included); None past ``limit``, ``CYCLE`` when a node contains itself."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()  # containers on the current path: a cycle when met again
    # post-order walk: (node, children pushed yet?)
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:
        node, expanded = stack.pop()
        if not isinstance(node, (dict, list, tuple)):
            continue
        key = id(node)
        if expanded:
            open_.discard(key)
            total = 1 + sum(_size(child, sizes) for child in _children(node))
            if total > limit:
                return None
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if key in open_:
            return CYCLE
        open_.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node)
                     if isinstance(child, (dict, list, tuple)) and id(child) not in sizes)
    return _size(data, sizes)


def _children(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return [*node.keys(), *node.values()]
    return list(node)


def _size(node: Any, sizes: dict[int, int]) -> int:
    if isinstance(node, (dict, list, tuple)):
        return sizes.get(id(node), 0)
    return 1


def check_expansion(data: Any, subject: str) -> None:
    """Refuse ``data`` (a loaded YAML document) that expands past ``MAX_EXPANDED`` values or
    refers to itself; ``subject`` names where it came from."""
    size = expanded_size(data)
    if size is None:
        raise InputError(subject, f"YAML whose aliases (&name, *name) expand to at most "
                         f"{MAX_EXPANDED:,} values", None, "this one's expand to more")
    if size == CYCLE:
        raise InputError(subject, "YAML whose aliases (&name, *name) refer to finished nodes",
                         None, "one refers to a node that contains it")
