"""Shell variables a pasted script sets, and their expansion in the launch's words.

Real launch scripts set their values once at the top (``MODEL="Qwen/..."``, ``export
PORT=30000``) and refer to them in the launch (``--model-path ${MODEL} --port $PORT``). A
plan of that paste should read the launch as the shell would run it: each reference to a
variable the text sets is replaced by its value. A reference the text leaves open (a
variable from the caller's shell, ``$((...))`` arithmetic, ``$(...)``) stays as written,
and a value that holds one is reported as such when it does not parse.

The words arrive already split by ``shlex``, which drops quotes: a reference inside single
quotes (which the shell would not expand) is expanded too. Launch lines almost never
single-quote a ``$``, so the simpler reading is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

#: ``$NAME``, ``${NAME}``, and the forms with a word: ``${NAME:-word}`` / ``${NAME:=word}``
#: (the word when the text does not set the name), ``${NAME:+word}`` (the word when it
#: does, else nothing) and ``${NAME:?message}`` (the shell stops with the message when the
#: name is unset: the value must come from the caller's shell), each also without the colon.
_REFERENCE = re.compile(r"\$(?:\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)"
                        r"(?:(?P<op>:?[-=+?])(?P<default>[^}]*))?\}"
                        r"|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))")
#: What still looks like a shell expansion after expanding what the text sets.
_OPEN = re.compile(r"\$(?:\{|\(|[A-Za-z_])")


def assigned(words: Iterable[str], values: dict[str, str]) -> None:
    """Record ``NAME=VALUE`` words into ``values`` (later ones win, as in the shell); a
    value is itself expanded against what was set before it."""
    for word in words:
        name, _, value = word.partition("=")
        values[name] = expand(value, values)


def expand(word: str, values: Mapping[str, str]) -> str:
    """``word`` with every reference to a name in ``values`` replaced by its value."""
    if "$" not in word:
        return word

    def replace(match: re.Match[str]) -> str:
        name = match.group("braced") or match.group("bare")
        op = (match.group("op") or "").lstrip(":")
        if op == "+":
            return expand(match.group("default"), values) if name in values else ""
        if name in values:
            return values[name]
        if op in ("-", "="):
            return expand(match.group("default"), values)
        if op == "?":
            return "${" + name + "}"  # required from the caller: left open, without the message
        return match.group(0)

    return _REFERENCE.sub(replace, word)


def open_reference(value: str) -> bool:
    """Whether ``value`` still holds a shell expansion the pasted text does not resolve."""
    return bool(_OPEN.search(value))


#: The hint an unparsable value holding an open reference gets.
OPEN_REFERENCE_HINT = ("a shell variable or expansion the pasted text does not set: put its "
                       "value in the launch, or set it in the pasted script")
