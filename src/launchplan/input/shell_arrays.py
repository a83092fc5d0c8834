"""Bash arrays in a pasted script: the flags a launch script gathers before it starts SGLang.

Scripts of 2025-2026 build the launch in an array (``COMMON=(--model-path M --tp 8 ...)``
over several lines, one flag a line, comments between), add to it under conditions
(``COMMON+=(--disaggregation-bootstrap-port 8998)``) and start ``python -m
sglang.launch_server "${COMMON[@]}"``. Read line by line, the array's lines would be
commands of their own and ``${COMMON[@]}`` a word SGLang cannot parse. Here an array's
literal is put on one line, marked, so the script reader records its items (expanded as the
shell expands them when it assigns) and a launch's ``"${NAME[@]}"`` becomes those items.
"""

from __future__ import annotations

import re

from launchplan.input import shell_vars

#: The first word of the one-line form of an array assignment: ``MARK NAME = items...``.
MARK = "__launchplan_array__"
#: An array assignment's start: ``NAME=(``, ``NAME+=(``, after ``local``/``declare -a``.
_OPENER = re.compile(r"^([ \t]*)(?:(?:local|declare|typeset|readonly)(?:[ \t]+-\w+)*[ \t]+)?"
                     r"([A-Za-z_]\w*)(\+?)=\(", re.MULTILINE)
#: A reference to all of an array's items: ``${NAME[@]}`` (quotes taken off by now).
_ALL_ITEMS = re.compile(r"^\$\{([A-Za-z_]\w*)\[[@*]\]\}$")
#: A command substitution the paste could not work out (``$(scontrol ...)``, backquotes;
#: not arithmetic): the words it stands for are the command's output.
_COMMAND_OUTPUT = re.compile(r"\$\((?!\()|`")
#: How the items are kept among the script's string values.
_SEPARATOR = "\x1f"


def on_one_line(text: str) -> str:
    """``text`` with each array assignment written as one line the script reader knows:
    ``MARK NAME = items`` (``+=`` to add), its items as written, comments left out."""
    if "=(" not in text:
        return text
    out: list[str] = []
    at = 0
    while (opener := _OPENER.search(text, at)) is not None:
        body = _body(text, opener.end())
        if body is None:  # never closed: left as it is
            break
        items, end = body
        out.append(text[at:opener.start()])
        op = "+=" if opener.group(3) else "="
        out.append(f"{opener.group(1)}{MARK} {opener.group(2)} {op} {items}")
        at = end
    out.append(text[at:])
    return "".join(out)


def _body(text: str, start: int) -> tuple[str, int] | None:
    """(the items' text from ``start`` to the closing parenthesis, on one line and without
    comments; the index after that parenthesis), or None when it never closes."""
    out: list[str] = []
    quote = ""
    depth = 0
    at = start
    while at < len(text):
        char = text[at]
        if char == "\\" and quote != "'" and at + 1 < len(text):
            out.append(text[at:at + 2])
            at += 2
            continue
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == start or text[at - 1] in " \t\n("):
            end = text.find("\n", at)
            at = len(text) if end < 0 else end
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                return "".join(out).replace("\n", " "), at + 1
            depth -= 1
        out.append(char)
        at += 1
    return None


def assign(segment: list[str], values: dict[str, str]) -> bool:
    """Record the array a marked ``segment`` assigns into ``values``; whether it was one."""
    if segment[:1] != [MARK] or len(segment) < 3:
        return False
    name, op, words = segment[1], segment[2], segment[3:]
    found: list[str] = []
    for word in words:
        listed = items(word, values)
        if listed is None and shell_vars.WHOLE_REFERENCE.match(word):
            value = shell_vars.expand(word, values)
            if _COMMAND_OUTPUT.search(value):
                # ``($nodes)`` of ``nodes=$(scontrol show hostnames)``: the words are the
                # command's output, unknown here; ``${ARR[0]}`` stays as written
                values.pop(f"{name}[@]", None)
                return True
            listed = shell_vars.fields(value)  # ``($ARGS)``: split at spaces
        found.extend(listed if listed is not None else [shell_vars.expand(word, values)])
    if op == "+=":
        found = [*(items(f"${{{name}[@]}}", values) or []), *found]
    values[f"{name}[@]"] = shell_vars.bounded(_SEPARATOR.join(found), f"{name}=(...)")
    return True


def items(word: str, values: dict[str, str]) -> list[str] | None:
    """The items ``word`` stands for when it is ``${NAME[@]}`` of an array the script set
    (an empty list for an empty array), else None."""
    match = _ALL_ITEMS.match(word)
    if match is None or f"{match.group(1)}[@]" not in values:
        return None
    joined = values[f"{match.group(1)}[@]"]
    return joined.split(_SEPARATOR) if joined else []


#: A reference to all of an array's items anywhere in a word: ``${NAME[@]}``, ``${NAME[*]}``.
_ALL_ITEMS_INSIDE = re.compile(r"\$\{([A-Za-z_]\w*)\[([@*])\]\}")


def in_double_quotes(text: str, values: dict[str, str]) -> list[str]:
    """The words a double-quoted ``text`` (``bash -c "... ${ARGS[*]}"``) becomes once the
    arrays the script sets are expanded in it, as the shell expands them inside double
    quotes: ``${A[*]}`` joins the items with spaces, within the one word; ``${A[@]}`` ends
    the word after its first item and makes each further item a word of its own, the text
    after the reference going with the last item; an empty array adds nothing. A reference
    to an array the script does not set stays as written."""
    if "[" not in text or "${" not in text:
        return [text]
    words = [""]
    at = 0
    for match in _ALL_ITEMS_INSIDE.finditer(text):
        listed = items(f"${{{match.group(1)}[@]}}", values)
        words[-1] += text[at:match.start()]
        at = match.end()
        if listed is None:
            words[-1] += match.group(0)
        elif match.group(2) == "*" or not listed:
            words[-1] += " ".join(listed)
        else:
            words[-1] += listed[0]
            words.extend(listed[1:])
    words[-1] += text[at:]
    return words
