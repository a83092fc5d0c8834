"""A launch a program builds from string literals joined with ``+`` (Go, JavaScript, Java,
C#), as the one string it makes.

Go has no implicit concatenation of adjacent literals, so a long command is written
``"python3 -m sglang.launch_server --model-path M " +`` and ``"--tp-size 2"`` on the next line;
Java and JavaScript do the same, and put a variable between two pieces
(``"--model-path " + path + " --tp 1"``). Read as a shell line, only the first literal was a
command and the rest was lost (or ``+`` became an argument). Python is not read here: its
syntax tree gives the values the names hold (``input.python_launch``).
"""

from __future__ import annotations

import ast
import re
import textwrap

#: one double- or single-quoted literal on one line (escapes kept as written)
_LITERAL = r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
#: ``"a" + "b"`` (over a line break too), and ``"a" + name + "b"`` / ``"a" + name`` where
#: the name is a variable, a field or a call the program fills in at run time
_JOINED = re.compile(rf"({_LITERAL})\s*\+\s*({_LITERAL})")
_NAME = r"[A-Za-z_][\w.]*(?:\([^()\n]*\))?"
_WITH_NAME = re.compile(rf"({_LITERAL})\s*\+\s*({_NAME})\s*(?:\+\s*({_LITERAL}))?")
#: the pieces a chain is joined over at most (a real command has tens; a text of thousands
#: of ``+`` must not cost a pass each)
_MAX_PASSES = 64
#: whether a text joins a literal with ``+`` at all (the cheap test first)
_ANY = re.compile(rf"(?:{_LITERAL})\s*\+")


def joins_literals(text: str) -> bool:
    """Whether ``text`` is source code (not Python) that joins string literals with ``+``."""
    if _ANY.search(text) is None:
        return False
    try:
        ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return True
    except (RecursionError, MemoryError):
        return False  # a chain too deep for Python's parser: no program of a launch
    return False  # Python: its own reader follows the names


def joined(text: str) -> str:
    """``text`` with each ``+`` chain of literals written as the one literal it makes; a
    name between two pieces becomes a ``${name}`` reference, open as a shell variable the
    text does not set is."""
    previous = None
    for _ in range(_MAX_PASSES):  # each pass joins a piece more of every chain
        if previous == text:
            break
        previous = text
        text = _JOINED.sub(_join, text)
        text = _WITH_NAME.sub(_join_name, text)
    # a literal stands apart from the call around it (``Sprintf("...", x)``, ``setCmd("...")``):
    # read as a shell line, its text would run into the ``(`` and the ``,`` or ``)``
    return re.sub(_LITERAL, _apart, text)


def _apart(match: re.Match[str]) -> str:
    literal = match.group(0)
    return f" {literal} " if "sglang" in literal else literal


def _join(match: re.Match[str]) -> str:
    left, right = match.group(1), match.group(2)
    if left[0] != right[0]:  # 'a' + "b": join inside the first one's quotes
        right = left[0] + right[1:-1].replace(left[0], "\\" + left[0]) + left[0]
    return left[:-1] + right[1:]


def _join_name(match: re.Match[str]) -> str:
    left, name, right = match.group(1), match.group(2), match.group(3)
    quote = left[0]
    reference = "${" + re.sub(r"\W+", "_", name).strip("_") + "}"
    tail = right[1:-1] if right is not None else ""
    return left[:-1] + reference + tail + quote
