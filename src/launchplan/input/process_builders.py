"""A launch a program builds with a process API, as the shell line it runs: Rust's
``std::process::Command`` chain and Node's ``spawn``/``execFile`` with an argv array.

Services that supervise an SGLang process in Rust build its argv one token a call:
``Command::new("python3").arg("-m").arg("sglang.launch_server").arg("--tp").arg("2")``, with
``.args([...])`` for several and ``.env("NAME", "value")`` for its environment, then
``.spawn()``. Read as a shell text nothing of it was a command. Each chain is written as the
line it starts (``NAME=value python3 -m sglang.launch_server --tp 2``); an argument the
program computes (``.arg(model_path)``, ``.arg(port.to_string())``) becomes a ``${...}``
reference, open as a shell variable the text does not set is.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

#: the start of a chain (``tokio::process::Command`` too)
_NEW = re.compile(r"Command::new\(\s*")
#: one call of the chain: ``.arg(X)``, ``.args([...])``, ``.env(K, V)`` and others to skip
_CALL = re.compile(r"\s*\.\s*([a-z_]+)\s*\(")
#: a Rust string literal (raw strings included), or an expression up to its closing paren
_STRING = re.compile(r'r?#*"((?:[^"\\]|\\.)*)"#*')


def looks_like_command_builder(text: str) -> bool:
    return "Command::new(" in text and "sglang" in text


def as_shell(text: str) -> str:
    """``text`` with each ``Command::new(...)`` chain that starts SGLang written as the shell
    line it runs, one a line; the rest of the program left out."""
    text = re.sub(r"(?m)^[ \t]*//.*$", "", text)  # a commented-out ``.arg(...)`` runs not
    lines = []
    for start in _NEW.finditer(text):
        line = _chain(text, start)
        if line is not None and "sglang" in line:
            lines.append(line)
    return "\n".join(lines) if lines else text


#: ``let mut command = Command::new(...)``: the name later statements add calls to
_BOUND = re.compile(r"let\s+(?:mut\s+)?([A-Za-z_]\w*)\s*(?::[^=;]+)?=\s*(?:[\w:]*::)?$")


def _chain(text: str, start: re.Match[str]) -> str | None:
    """The line one ``Command::new(...)`` chain runs (and the calls later statements add to
    the variable it is bound to), or None when its program cannot be read."""
    bound = _BOUND.search(text[max(0, start.start() - 200):start.start()])
    program, at = _argument(text, start.end())
    if program is None:
        return None
    words = [program]
    env: list[str] = []
    while True:
        call = _CALL.match(text, at)
        if call is None and bound is not None:  # ``command.arg(...)`` in a later statement
            later = re.compile(rf"(?<![\w.]){bound.group(1)}(?=\s*\.\s*[a-z_]+\s*\()")
            found = later.search(text, at)
            call = _CALL.match(text, found.end()) if found is not None else None
        if call is None:
            break
        name, at = call.group(1), call.end()
        inner, end = _balanced(text, at)
        if end is None:
            break
        at = end
        if name == "arg":
            words.append(_word(inner))
        elif name == "args":
            words.extend(_word(item) for item in _items(inner))
        elif name == "env":
            parts = _items(inner)
            if len(parts) == 2:
                env.append(f"{_word(parts[0])}={_word(parts[1])}")
        elif name in ("spawn", "output", "status", "exec"):
            break
    return " ".join(shlex.quote(w) if not w.startswith("${") else w for w in [*env, *words])


def _argument(text: str, at: int) -> tuple[str | None, int]:
    inner, end = _balanced(text, at)
    return (_word(inner), end) if end is not None else (None, at)


def _outside_strings(text: str, at: int = 0, quotes: str = '"'
                     ) -> Iterator[tuple[int, str, int]]:
    """(index, character, nesting depth after it) of each character of ``text`` from ``at``
    that is outside a string literal (opened by one of ``quotes``: Rust's ``"``, as ``'``
    starts a lifetime there; JavaScript's three), depth counted over ``([{``; the quotes
    themselves are skipped."""
    depth, quoted, i = 0, "", at
    while i < len(text):
        char = text[i]
        if quoted:
            if char == "\\":
                i += 1
            elif char == quoted:
                quoted = ""
        elif char in quotes:
            quoted = char
        else:
            depth += 1 if char in "([{" else -1 if char in ")]}" else 0
            yield i, char, depth
        i += 1


def _balanced(text: str, at: int, quotes: str = '"') -> tuple[str, int | None]:
    """The text from ``at`` to the ``)`` that closes the call opened just before it, and
    the index after that ``)``; None when it never closes."""
    for i, _, depth in _outside_strings(text, at, quotes):
        if depth < 0:
            return text[at:i], i + 1
    return "", None


def _items(inner: str, quotes: str = '"') -> list[str]:
    """The comma-separated items of a call's arguments or an array (``["-m", "x"]``)."""
    inner = inner.strip()
    if inner.startswith(("[", "&[", "vec![")) and inner.endswith("]"):
        inner = inner[inner.index("[") + 1:-1]
    cuts = [i for i, char, depth in _outside_strings(inner, 0, quotes)
            if char == "," and depth == 0]
    bounds = zip([-1, *cuts], [*cuts, len(inner)])
    return [inner[a + 1:b].strip() for a, b in bounds if inner[a + 1:b].strip()]


def _word(expression: str) -> str:
    """A literal's text; any other expression as a ``${...}`` reference (left open)."""
    expression = expression.strip().removeprefix("&")
    literal = _STRING.fullmatch(expression)
    if literal is not None:
        return literal.group(1).encode().decode("unicode_escape")
    return "${" + re.sub(r"\W+", "_", expression).strip("_") + "}"


#: Node's ``spawn``/``execFile`` (``child_process.``, ``Sync`` variants): program, argv array,
#: options
_JS_CALL = re.compile(r"\b(?:spawn|execFile)(?:Sync)?\(\s*")
#: a JavaScript binding to a literal: ``const model = "qwen3-8b";``
_JS_CONST = re.compile(r"""\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*"""
                       r"""(?:"([^"\n]*)"|'([^'\n]*)'|(-?\d+(?:\.\d+)?))\s*;?""")
#: an ``env: { ... }`` option's entries (``...process.env`` spread skipped)
_JS_ENV = re.compile(r"\benv\s*:\s*\{(.*?)\}", re.DOTALL)
_JS_ENTRY = re.compile(r"""["']?([A-Za-z_]\w*)["']?\s*:\s*(?:"([^"\n]*)"|'([^'\n]*)'|(\d+))""")


_JS_QUOTES = "\"'`"


def looks_like_node_spawn(text: str) -> bool:
    return "sglang" in text and _JS_CALL.search(text) is not None


def node_as_shell(text: str) -> str:
    """``text`` with each ``spawn(PROGRAM, [ARGS], {env: {...}})`` that starts SGLang as
    the shell line it runs (consts the script binds to literals filled in, ``String(x)``
    read as ``x``, any other expression a ``${...}`` reference); ``text`` as it is without
    one."""
    consts = {m.group(1): next(g for g in m.groups()[1:] if g is not None)
              for m in _JS_CONST.finditer(text)}
    lines = []
    for call in _JS_CALL.finditer(text):
        inner, end = _balanced(text, call.end(), _JS_QUOTES)
        if end is None:
            continue
        parts = _items(inner, _JS_QUOTES)
        if len(parts) < 2 or not parts[1].lstrip().startswith("["):
            continue
        words = [_js_word(parts[0], consts),
                 *(_js_word(i, consts) for i in _items(parts[1], _JS_QUOTES))]
        if not any("sglang" in w for w in words):
            continue
        env = []
        for block in _JS_ENV.finditer(" ".join(parts[2:])):
            env += [f"{m.group(1)}={next(g for g in m.groups()[1:] if g is not None)}"
                    for m in _JS_ENTRY.finditer(block.group(1))]
        lines.append(" ".join(shlex.quote(w) if not w.startswith("${") else w
                              for w in [*env, *words]))
    return "\n".join(lines) if lines else text


def _js_word(expression: str, consts: dict[str, str]) -> str:
    expression = expression.strip()
    wrapped = re.fullmatch(r"String\((.*)\)|(.*)\.toString\(\)", expression)
    if wrapped is not None:
        expression = (wrapped.group(1) or wrapped.group(2)).strip()
    if expression in consts:
        return consts[expression]
    quoted = re.fullmatch(r'"([^"]*)"|\'([^\']*)\'|`([^`$]*)`', expression)
    if quoted is not None:
        return next(g for g in quoted.groups() if g is not None)
    if re.fullmatch(r"-?\d+(?:\.\d+)?", expression):
        return expression
    return "${" + re.sub(r"\W+", "_", expression).strip("_") + "}"
