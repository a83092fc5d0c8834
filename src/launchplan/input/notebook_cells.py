"""A notebook cell's IPython shell escapes that start SGLang (``!python -m sglang...``).

IPython fills ``{expr}`` and ``$name`` in an escape from the kernel's names and runs it in a
shell that inherits the kernel's environment (``os.environ[...] = ...``, ``%env``): the cell
is read as the shell script IPython would run.
"""

from __future__ import annotations

import ast
import re
import shlex

from launchplan.input.python_literals import (
    bound_literals,
    parsed_python,
    quiet_parse,
    word_of,
)

#: an IPython shell escape that starts SGLang (``!python -m sglang.launch_server ...``)
_ESCAPE = re.compile(r"^[ \t]*!(?!=)(?=[^\n]*(?:sglang\.launch_server\b|\bsglang\s+serve\b))",
                     re.MULTILINE)
#: what IPython fills in a shell escape from the notebook's names: ``{expr}`` and ``$name``
_BRACED = re.compile(r"\{([A-Za-z_][\w.]*(?:\[[^\]{}]+\])?)\}")
_DOLLAR = re.compile(r"\$([A-Za-z_]\w*)\b(?!\})")
_ENVIRON = re.compile(r"""^[ \t]*os\.environ\[\s*["']([A-Za-z_]\w*)["']\s*\]\s*=""", re.MULTILINE)
#: IPython's ``%env NAME=VALUE`` (or ``%env NAME VALUE``): it sets the kernel's environment,
#: which every later shell escape inherits
_PERCENT_ENV = re.compile(r"^[ \t]*%env[ \t]+([A-Za-z_]\w*)(?:[ \t]*=[ \t]*|[ \t]+)(\S.*?)?[ \t]*$",
                          re.MULTILINE)


def ipython_escapes(text: str) -> str | None:
    """A notebook cell's shell escapes that start SGLang, as the script IPython runs: each
    ``{expr}`` and ``$name`` filled from the names the cell's Python sets, after an
    ``export`` of each ``os.environ["NAME"] = ...`` it sets (the escape's shell inherits the
    kernel's environment), and of each ``%env NAME=VALUE`` magic. None when ``text`` has no
    such escape or is no Python around it, or when it is Python as written: no statement
    starts with ``!``, so every such line is inside a string (a test's docstring quoting a
    notebook), which the script's own reading judges."""
    if _ESCAPE.search(text) is None:
        return None
    try:
        quiet_parse(text)
    except (SyntaxError, ValueError):
        pass  # an escape line is no Python: the cell is read without it below
    else:
        return None
    tree = parsed_python(text)
    if tree is None:
        return None
    names = bound_literals(tree)
    exports = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Subscript)
                and ast.unparse(node.targets[0].value) == "os.environ"):
            key = node.targets[0].slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                word = word_of(node.value, names)
                if "${" not in word:
                    exports.append(f"export {key.value}={shlex.quote(word)}")
    for found in _PERCENT_ENV.finditer(text):
        exports.append(f"export {found.group(1)}={shlex.quote(found.group(2) or '')}")
    lines = []
    for line in text.split("\n"):
        if _ESCAPE.match(line):
            shell = line.lstrip()[1:]
            shell = _BRACED.sub(lambda m: names.get(m.group(1), m.group(0)), shell)
            shell = _DOLLAR.sub(lambda m: names.get(m.group(1), m.group(0)), shell)
            lines.append(shell)
    return "\n".join([*exports, *lines])
