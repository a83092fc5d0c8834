"""Launch commands as people paste them: a launcher prefix, env assignments, continuations.

Docs, model cards and bug reports write ``CUDA_VISIBLE_DEVICES=0,1 python3 -m
sglang.launch_server --model-path M \\`` over several lines, or ``sglang serve ...``. A user
should be able to paste that after ``launchplan resolve --gpu h100`` as it is: this module
turns it into the SGLang argv (the flags) and the environment assignments before it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from launchplan.errors import InputError

#: ``NAME=value`` before the command: a shell environment assignment.
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: A Python interpreter, however it is spelled (``python``, ``python3.11``, a path, ``uv run``).
_PYTHON = re.compile(r"^(?:.*/)?python(?:3(?:\.\d+)?)?$")
_MODULES = frozenset({"sglang.launch_server", "sglang.launch_server.py"})
_WRAPPERS = frozenset({"env", "exec", "nohup", "time"})


def looks_pasted(tokens: Sequence[str]) -> bool:
    """Whether ``tokens`` hold a launcher prefix or a whole command in one argument."""
    return any(_is_command_token(t) or "\n" in t or (" " in t and _wordy(t)) for t in tokens)


def unpaste(tokens: Sequence[str]) -> tuple[list[str], list[str]]:
    """(argv, env assignments): the launch's own flags in order, and ``KEY=VALUE`` pairs.

    Tokens that hold several words (a whole pasted command in one argument) are split as a
    POSIX shell would, after joining backslash-newline continuations. The launcher prefix
    (``python -m sglang.launch_server``, ``sglang serve``) is dropped wherever it stands,
    and assignments right before it are kept as the environment the launch assumes.
    """
    words: list[str] = []
    for token in tokens:
        if "\n" in token or (" " in token and _wordy(token)):
            words.extend(_split(token))
        else:
            words.append(token)
    argv: list[str] = []
    env: list[str] = []
    i = 0
    while i < len(words):
        end = _prefix_end(words, i)
        if end is None:
            argv.append(words[i])
            i += 1
            continue
        # assignments (and wrappers) right before the launcher belong to it
        while argv and (_ASSIGNMENT.match(argv[-1]) or argv[-1] in _WRAPPERS):
            word = argv.pop()
            if _ASSIGNMENT.match(word):
                env.insert(0, word)
        i = end
    return argv, env


def _wordy(token: str) -> bool:
    """A single argument that is really a command line (not a value with a space in it)."""
    stripped = token.strip()
    return stripped.startswith(("-", "python", "sglang", "CUDA_", "SGLANG_")) or any(
        m in stripped for m in _MODULES) or bool(_ASSIGNMENT.match(stripped.split(" ")[0]))


def _split(text: str) -> list[str]:
    text = re.sub(r"\\\r?\n", " ", text)  # line continuations
    try:
        return shlex.split(text, comments=True)
    except ValueError as exc:
        raise InputError("the pasted command", "a complete shell command line (balanced "
                         "quotes)", text[:60], str(exc)) from None


def _is_command_token(token: str) -> bool:
    return token in _MODULES or token == "sglang" or bool(_PYTHON.match(token))


def _prefix_end(words: list[str], i: int) -> int | None:
    """If a launcher prefix starts at ``i``, the index just after it."""
    word = words[i]
    if _PYTHON.match(word):
        j = i + 1
        while j < len(words) and words[j] in ("-u", "-O", "-B"):
            j += 1
        if j + 1 < len(words) and words[j] == "-m" and words[j + 1] in _MODULES:
            return j + 2
        if j < len(words) and words[j].endswith("launch_server.py"):
            return j + 1
        return None
    if word == "sglang" and i + 1 < len(words) and words[i + 1] in ("serve", "launch_server"):
        return i + 2
    if word in _MODULES:
        return i + 1
    return None
