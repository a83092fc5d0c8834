"""A recipe whose command is a template the recipe's own fields fill.

Some launchers keep a run as a YAML recipe: a ``command:`` written with ``{name}``
placeholders, and the values for them in the same document. sparkrun (scitrera/sparkrun,
``src/sparkrun/recipe.py``: ``build_config_chain`` and ``render_command``) fills the
placeholders from the recipe's ``defaults:`` mapping, with its top-level ``model:`` when
``defaults`` names none, and fills again until nothing changes (a default may name another);
an override given to the runner when it runs replaces a default, and is not in the paste.
The command a reader pastes is therefore filled here the same way, as ``str.format`` fills a
name; a placeholder the document gives no value stays as written, so the flag holding it is
reported as open.
"""

from __future__ import annotations

import re
from typing import Any

#: A ``{name}`` placeholder: not a shell's ``${name}``, nor a template engine's ``{{ x }}``.
_PLACEHOLDER = re.compile(r"(?<![{$])\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")
#: Fill passes at most (a value naming another placeholder is filled on the next pass), and
#: the longest command filled: values that name each other cannot grow it without end.
_MAX_PASSES = 8
_MAX_LENGTH = 100_000
#: Top-level keys that are the recipe's structure, not values a placeholder takes.
_STRUCTURE = ("command", "defaults")


def is_recipe(node: dict[Any, Any]) -> bool:
    """Whether ``node`` is a recipe: a ``command`` that holds a ``{name}`` placeholder beside
    a ``defaults`` mapping (or, with no defaults, the ``model`` and ``runtime`` every sparkrun
    recipe names). Cheap: mapping lookups, then one search of the command."""
    command = node.get("command")
    if not (isinstance(node.get("defaults"), dict)
            or (isinstance(node.get("model"), str) and "runtime" in node)):
        return False
    if isinstance(command, list):
        command = " ".join(str(word) for word in command)
    return isinstance(command, str) and _PLACEHOLDER.search(command) is not None


def filled_recipe(node: dict[Any, Any]) -> tuple[dict[Any, Any], dict[str, str]]:
    """``node`` with its ``command`` filled from its own values (``is_recipe`` holds), and
    each name filled with the value it took, in the order the command names them. A
    command string is a shell's (sparkrun writes it into the bash script that starts the
    container): it comes back as ``sh -c`` and the script, its ``\\`` line ends joined as
    the shell joins them."""
    values = _values(node)
    used: dict[str, str] = {}

    def one(found: re.Match[str]) -> str:
        name = found.group(1)
        if name not in values:
            return found.group(0)
        used.setdefault(name, values[name])
        return values[name]

    def filled(text: str) -> str:
        for _ in range(_MAX_PASSES):
            after = _PLACEHOLDER.sub(one, text)
            if after == text or len(after) > _MAX_LENGTH:
                break
            text = after
        return text

    command = node["command"]
    if isinstance(command, list):
        command = [filled(word) if isinstance(word, str) else word for word in command]
    else:
        command = ["sh", "-c", filled(command)]
    return {**node, "command": command}, used


def recipe_note(node: dict[Any, Any]) -> str | None:
    """What a reader should know about a recipe's filled command: the values are the
    recipe's own, which the runner's overrides would replace. None when nothing was filled."""
    _, used = filled_recipe(node)
    if not used:
        return None
    shown = ", ".join(f"{{{name}}} = {value}" for name, value in list(used.items())[:6])
    more = f" and {len(used) - 6} more" if len(used) > 6 else ""
    return (f"the recipe's command placeholders are filled from the recipe itself (its "
            f"defaults: mapping, then its top-level keys), as its runner fills them: "
            f"{shown}{more}; an override given to the runner when it runs is not in the paste")


def _values(node: dict[Any, Any]) -> dict[str, str]:
    """The values a placeholder takes: ``defaults`` first, then the recipe's top-level
    scalars (``model``) for names ``defaults`` leaves out, each as ``str.format`` writes it.
    A key left empty gives no value: its placeholder stays open."""
    values: dict[str, str] = {}
    defaults = node.get("defaults")
    top = {key: value for key, value in node.items() if key not in _STRUCTURE}
    for source in (defaults if isinstance(defaults, dict) else {}, top):
        for key, value in source.items():
            if value is not None and not isinstance(value, (dict, list)):
                values.setdefault(str(key), str(value))
    return values
