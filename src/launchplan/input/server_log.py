"""The ``server_args=ServerArgs(...)`` line SGLang logs at start-up, read back as data.

The line is the repr of SGLang's resolved arguments: keyword arguments whose values are
Python literals (and, for a few fields, objects such as ``LoRARef(...)``). It is read with
``ast.literal_eval`` value by value, never evaluated. Pasted logs are often damaged: a log
prefix before it, lines wrapped by a terminal or a web page, the end cut off. A wrapped
line is joined back; a cut-off value is dropped and the line marked truncated.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from launchplan.errors import InputError
from launchplan.struct import Struct, factory

MARKER = "ServerArgs("
MAX_LOG_BYTES = 16 << 20


class LoggedArgs(Struct, frozen=False):
    """What the log says SGLang resolved."""

    values: dict[str, Any] = factory(dict)
    unreadable: dict[str, str] = factory(dict)  # field -> the text that is not a literal
    truncated: bool = False
    line: int = 0  # 1-based line of the marker in the log


def read_log(path: str) -> LoggedArgs:
    """The last ``server_args=ServerArgs(...)`` in the file at ``path``."""
    try:
        with open(path, "rb") as fh:
            blob = fh.read(MAX_LOG_BYTES)
    except OSError as exc:
        raise InputError("--from-log", "a readable log file", path, exc.strerror) from None
    return parse_log(blob.decode("utf-8", errors="replace"), path)


def parse_log(text: str, name: str = "log") -> LoggedArgs:
    at = text.rfind(MARKER)
    if at < 0:
        raise InputError("--from-log", "a log holding SGLang's `server_args=ServerArgs(...)` "
                         "start-up line", name)
    line = text.count("\n", 0, at) + 1
    # a terminal or a web page wraps the one long line: join it back
    body = re.sub(r"\r?\n[ \t]*", "", text[at + len(MARKER):])
    segments, closed = _segments(body)
    out = LoggedArgs(line=line, truncated=not closed)
    for i, segment in enumerate(segments):
        name_, eq, value = segment.partition("=")
        key = name_.strip()
        if not eq or not key.isidentifier():
            if i == len(segments) - 1 and not closed:
                break
            continue
        try:
            out.values[key] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            if i == len(segments) - 1 and not closed:
                break  # the value the cut went through
            out.unreadable[key] = value.strip()[:80]
    if not out.values:
        raise InputError("--from-log", "keyword arguments after `ServerArgs(`", name)
    return out


def _segments(body: str) -> tuple[list[str], bool]:
    """Top-level ``name=value`` pieces up to the closing parenthesis; whether it was found."""
    pieces: list[str] = []
    depth = 0
    quote = ""
    start = 0
    i = 0
    while i < len(body):
        c = body[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                pieces.append(body[start:i])
                return [p for p in pieces if p.strip()], True
            depth -= 1
        elif c == "," and depth == 0:
            pieces.append(body[start:i])
            start = i + 1
        i += 1
    pieces.append(body[start:])
    return [p for p in pieces if p.strip()], False
