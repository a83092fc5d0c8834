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

import itertools
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
    """A literal's text (``"x".to_string()``, ``String::from("x")`` and ``format!`` with
    its holes filled are literals too); any other expression as a ``${...}`` reference
    (left open)."""
    expression = expression.strip().removeprefix("&")
    literal = _STRING.fullmatch(expression)
    if literal is not None:
        return _unescaped(literal.group(1))
    owned = _OWNED.fullmatch(expression)
    if owned is not None and _STRING.fullmatch(inner := (owned.group(1) or owned.group(2))):
        return _word(inner)
    if (call := _FORMAT.fullmatch(expression)) is not None:
        filled = formatted(call.group(1))
        if filled is not None:
            return filled
    return "${" + re.sub(r"\W+", "_", expression).strip("_") + "}"


def _unescaped(text: str) -> str:
    return text.encode().decode("unicode_escape")


#: a literal made an owned string: ``String::from("x")``, ``"x".to_string()`` / ``.to_owned()``
#: / ``.into()``: the same text
_OWNED = re.compile(r"String::from\((.*)\)|(.*?)\s*\.\s*(?:to_string|to_owned|into)\(\)",
                    re.DOTALL)
#: a ``format!`` call (``format!("... {} ...", a, b)``), its arguments
_FORMAT = re.compile(r"format!\s*\((.*)\)", re.DOTALL)
#: one hole of a Rust format string (``{}``, ``{0}``, ``{name}``, ``{:?}``) or an escaped brace
_HOLE = re.compile(r"\{\{|\}\}|\{([^{}:]*)(?::[^{}]*)?\}")
#: a ``name = value`` argument of ``format!``
_NAMED_ARGUMENT = re.compile(r"([A-Za-z_]\w*)\s*=(?!=)\s*(.*)", re.DOTALL)
#: the variable an expression starts from (``model`` of ``model.as_deref().unwrap_or(..)``)
_LEADING_NAME = re.compile(r"[&*(\s]*([A-Za-z_]\w*)")


def formatted(arguments: str) -> str | None:
    """The text ``format!(arguments)`` makes, each hole filled with its argument when that
    is a literal (a string or a number); a value the program computes at run time is left
    open (see ``_filled``): a ``{name}`` placeholder to fill in, as a docs page's ``{model}``
    is. None when the first argument is no string literal."""
    items = _items(arguments)
    template = _STRING.fullmatch(items[0]) if items else None
    if template is None:
        return None
    positional: list[str] = []
    named: dict[str, str] = {}
    for item in items[1:]:
        pair = _NAMED_ARGUMENT.fullmatch(item)
        if pair is not None:
            named[pair.group(1)] = pair.group(2)
        else:
            positional.append(item)
    implicit = itertools.count()  # ``{}`` takes the next positional argument
    text = _unescaped(template.group(1))

    def fill(hole: re.Match[str]) -> str:
        if hole.group(0) in ("{{", "}}"):
            return hole.group(0)[0]
        key = hole.group(1).strip()
        # a hole glued to the text before it (``--port 30000{}``) adds to that word: an
        # open value there is the word's unknown rest, not a value of its own
        glued = hole.start() > 0 and not text[hole.start() - 1].isspace() \
            and text[hole.start() - 1] != "="
        if key == "" or key.isdigit():
            at = next(implicit) if key == "" else int(key)
            if at >= len(positional):
                return "{}"
            return _filled(positional[at], glued)
        return _filled(named.get(key, key), glued)  # ``{model}``: a variable it captures

    return _HOLE.sub(fill, text)


def _filled(expression: str, glued: bool) -> str:
    """A ``format!`` argument's text: a literal's own; else a ``{name}`` placeholder,
    named after the variable it comes from, or, ``glued`` to a word, a ``${name}``
    reference (the word's rest, left open)."""
    expression = expression.strip()
    word = _word(expression)
    if not word.startswith("${"):
        return word
    if re.fullmatch(r"-?\d+(?:\.\d+)?(?:_?[iuf]\d+)?", expression):
        return re.sub(r"_?[iuf]\d+$", "", expression)  # 30000, 30000u16
    name = _LEADING_NAME.match(expression)
    found = name.group(1) if name is not None else "value"
    return "${" + found + "}" if glued else "{" + found + "}"


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
