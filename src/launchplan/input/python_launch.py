"""A launch command held in a Python script's string or list literal.

SGLang's own docs start servers from notebooks with ``launch_server_cmd("python -m
sglang.launch_server --model-path ...")``, and test or benchmark scripts with
``subprocess.Popen(["python3", "-m", "sglang.launch_server", ...])``. A user who pastes
such a cell means that command: this module finds the first literal that starts SGLang's
launcher. The script is read with ``ast``, never run; a command built at run time (an
f-string, a variable) is not a literal and is not found.
"""

from __future__ import annotations

import ast
import shlex


def launch_literal(text: str) -> str | list[str] | None:
    """The first string (a command line) or list of strings (an argv) in the Python source
    ``text`` that starts SGLang's launcher; None when ``text`` is not Python or has none."""
    if "sglang" not in text or not ("launch_server" in text or "serve" in text):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    from launchplan.input.pasted import launches_sglang

    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                words = shlex.split(node.value, comments=True)
            except ValueError:
                continue
            if launches_sglang(words):
                return node.value
        elif isinstance(node, (ast.List, ast.Tuple)) and node.elts and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            words = [e.value for e in node.elts]  # type: ignore[attr-defined]
            if launches_sglang(words):
                return words
    return None
