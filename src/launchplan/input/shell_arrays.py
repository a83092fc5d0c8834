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
from collections.abc import Mapping

from launchplan.errors import InputError
from launchplan.input import shell_vars

#: The first word of the one-line form of an array assignment: ``MARK NAME = items...``.
MARK = "__launchplan_array__"
#: An array assignment's start: ``NAME=(``, ``NAME+=(``, after ``local``/``declare -a``
#: (``declare -A``: an associative array, its items ``[key]=value``).
#: It may follow other commands on its line (``[ -n "$X" ] && ARGS+=(...)``, ``if ...;
#: then ARGS+=(...)``, a ``case`` pattern's ``fast) ARGS+=(...) ;;``, a C-style loop's
#: ``for ((i=0; i<4; i++)); do ARGS+=(...)``).
_OPENER = re.compile(r"^([ \t]*(?:(?:[^'\"\n#()]|\"[^\"\n]*\"|'[^'\n]*'|\(\([^()\n]*\)\))*?"
                     r"(?:;|&&|\|\|)[ \t]*)?"
                     r"(?:(?:then|else|do|\{|[^\s()]+\))[ \t]+)?)"
                     r"(?:(?:local|declare|typeset|readonly)((?:[ \t]+-\w+)*)[ \t]+)?"
                     r"([A-Za-z_]\w*)(\+?)=\(", re.MULTILINE)
#: The word that marks an associative array's one-line form: ``MARK ASSOCIATIVE NAME = ...``.
ASSOCIATIVE = "-A"
#: An item given with its index or key: ``[tp]=8``, ``[2]=x`` (quotes taken off by now).
_KEYED = re.compile(r"^\[([^\]]+)\](\+?)=(.*)$", re.DOTALL)
#: An assignment to one item: ``M[tp]=8``, ``M[$key]+=x``, ``GPUS[2]=5``.
_ITEM_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w*)\[([^\]]+)\](\+?)=(.*)$", re.DOTALL)
#: A reference to all of an array's items: ``${NAME[@]}`` (quotes taken off by now).
_ALL_ITEMS = re.compile(r"^\$\{([A-Za-z_]\w*)\[[@*]\]\}$")
#: A command substitution the paste could not work out (``$(scontrol ...)``, backquotes;
#: not arithmetic): the words it stands for are the command's output.
_COMMAND_OUTPUT = re.compile(r"\$\((?!\()|`")
#: How the items are kept among the script's string values.
_SEPARATOR = "\x1f"
#: Put before an item written as a double-quoted reference alone (``--host "$IP"``), which
#: the shell never splits: the quotes are gone once the line is split into words.
QUOTED = "\x02"
#: An item that is a double-quoted reference alone: ``"$IP"``, ``"${NODE_IP}"``.
_QUOTED_REFERENCE = re.compile(
    r'(?<![^\s(])"(\$(?:\{[A-Za-z_]\w*\}|[A-Za-z_]\w*))"(?=[\s)]|$)')


def on_one_line(text: str) -> str:
    """``text`` with each array assignment written as one line the script reader knows:
    ``MARK NAME = items`` (``+=`` to add), its items as written, comments left out."""
    for _ in range(8):  # a second assignment on a line (``T && A=(..) || A=(..)``): again
        if "=(" not in text:
            break
        once = _one_pass(text)
        if once == text:
            break
        text = once
    return text


def _one_pass(text: str) -> str:
    """``text`` with the first array assignment of each line written on its marked line."""
    out: list[str] = []
    at = 0
    while (opener := _OPENER.search(text, at)) is not None:
        body = _body(text, opener.end())
        if body is None:  # never closed: a cut launch is named, anything else left as it is
            _refuse_cut_launch(opener.group(3), text[opener.end():])
            break
        items, end = body
        out.append(text[at:opener.start()])
        op = "+=" if opener.group(4) else "="
        kind = f"{ASSOCIATIVE} " if re.search(r"-\w*A", opener.group(2) or "") else ""
        items = _QUOTED_REFERENCE.sub(lambda m: f'"{QUOTED}{m.group(1)}"', items)
        out.append(f"{opener.group(1)}{MARK} {kind}{opener.group(3)} {op} {items}")
        at = end
    out.append(text[at:])
    return "".join(out)


#: What makes a never-closed array a launch's: SGLang's launcher or one of its flags.
_LAUNCH_ITEM = re.compile(r"sglang(?:\.launch_server|_router\.launch_server|\s+serve\b)|"
                          r"(?<![^\s(])--model(?:-path)?\b")


def _refuse_cut_launch(name: str, rest: str) -> None:
    """Refuse a text that ends inside the array ``name`` when its items hold a launch: a
    review hunk or an excerpt cut before the ``)``. Inside ``NAME=(`` the shell reads line
    breaks as separators of the items up to the ``)``, so the lines are no commands of
    their own (nor do they want backslashes); what the array holds is known only to the
    part that was cut, with the line that runs it."""
    if not _LAUNCH_ITEM.search(rest):
        return
    lines = [line.strip() for line in rest.split("\n") if line.strip()]
    last = lines[-1][:40] if lines else ""
    subject, expected = f"the bash array {name}", "its items up to the closing ')'"
    got = (f"the text's end after {len(lines)} item line{'s' * (len(lines) != 1)}"
           + (f" (the last: {last!r})" if last else ""))
    raise InputError(subject, expected, got, message=(
        f"{subject}: expected {expected}, got {got}: the paste is cut inside {name}=( ... ), "
        "whose lines are the array's items, not commands; paste the array to its ')' and the "
        f"line that runs it (\"${{{name}[@]}}\")"))


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
    """Record the array a marked ``segment`` assigns into ``values``; whether it was one.
    Also ``declare -A NAME`` (an empty associative array) and item assignments
    (``M[tp]=8``, ``GPUS[$i]=3``) of a command of assignments."""
    if _declared_associative(segment, values) or _items_assigned(segment, values):
        return True
    if segment[:1] != [MARK] or len(segment) < 3:
        return False
    associative = segment[1] == ASSOCIATIVE
    if associative:
        segment = segment[1:]
    name, op, words = segment[1], segment[2], segment[3:]
    associative = associative or f"{name}{_KEYS}" in values and f"{name}{_ASSOC}" in values
    if associative or any(_KEYED.match(w) for w in words):
        if op == "=":
            _cleared(name, values, associative)
        for word in words:
            keyed = _KEYED.match(word)
            if keyed is not None:
                set_item(name, keyed.group(1), keyed.group(3), values, keyed.group(2) == "+")
            elif not associative:  # ``(a [5]=b c)``: c goes after the index before it
                set_item(name, str(_next_index(name, values)), word, values)
        return True
    found: list[str] = []
    for word in words:
        if word.startswith(QUOTED):  # ``"$IP"``: one word, whatever its value holds
            value = shell_vars.expand(word[len(QUOTED):], values)
            found.extend([value] if value else [])  # (an empty one: no flag's value, as
            continue  # the launch line reader has a quoted empty reference)
        listed = items(word, values)
        if listed is None and shell_vars.WHOLE_REFERENCE.match(word):
            value = shell_vars.expand(word, values)
            if _COMMAND_OUTPUT.search(value):
                # ``($nodes)`` of ``nodes=$(scontrol show hostnames)``: the words are the
                # command's output, unknown here; ``${ARR[0]}`` stays as written
                values.pop(f"{name}[@]", None)
                values.pop(f"{name}{_KEYS}", None)
                return True
            listed = shell_vars.fields(value)  # ``($ARGS)``: split at spaces
        found.extend(listed if listed is not None else [shell_vars.expand(word, values)])
    if op == "+=":
        found = [*(items(f"${{{name}[@]}}", values) or []), *found]
        if f"{name}{_KEYS}" in values:  # a sparse array grows past its last index
            start = _next_index(name, values)
            added = [str(start + n) for n in range(len(found) - len(_keys(name, values)))]
            values[f"{name}{_KEYS}"] = _SEPARATOR.join([*_keys(name, values), *added])
    else:
        values.pop(f"{name}{_KEYS}", None)
    values[f"{name}[@]"] = shell_vars.bounded(_SEPARATOR.join(found), f"{name}=(...)")
    return True


def set_all(name: str, words: list[str], values: dict[str, str]) -> None:
    """Make ``name`` the array of ``words`` (``read -a NAME``, ``mapfile``): 0, 1, 2 ..."""
    values.pop(f"{name}{_KEYS}", None)
    values[f"{name}[@]"] = shell_vars.bounded(_SEPARATOR.join(words), f"{name}=(...)")


#: Where ``values`` keeps an array's keys when they are not 0, 1, 2 ... (an associative
#: array's, a sparse one's), and that an array is associative.
_KEYS = "[!]"
_ASSOC = "[-A]"


def _declared_associative(segment: list[str], values: dict[str, str]) -> bool:
    """Record ``declare -A NAME ...`` (``local -A``, ``typeset -gA``): each NAME an empty
    associative array, unless the script set it already. Whether ``segment`` was one."""
    if segment[:1] not in (["declare"], ["local"], ["typeset"]) or not any(
            re.fullmatch(r"-\w*A\w*", w) for w in segment[1:]):
        return False
    for name in segment[1:]:
        if re.fullmatch(r"[A-Za-z_]\w*", name):
            values[f"{name}{_ASSOC}"] = "1"
            if f"{name}[@]" not in values:
                _cleared(name, values, True)
    return not any(shell_vars.ASSIGNMENT.match(w) for w in segment[1:])


def _items_assigned(segment: list[str], values: dict[str, str]) -> bool:
    """Record a command of assignments one of which sets an item (``M[tp]=8``,
    ``GPUS[$i]=3``, ``M[k]+=x``), the others plain; whether ``segment`` was one."""
    if not segment or not any(_ITEM_ASSIGNMENT.match(w) for w in segment) or not all(
            _ITEM_ASSIGNMENT.match(w) or shell_vars.ASSIGNMENT.match(w) for w in segment):
        return False
    for word in segment:
        item = _ITEM_ASSIGNMENT.match(word)
        if item is None:
            shell_vars.assigned([word], values)
        else:
            set_item(item.group(1), item.group(2), item.group(4), values, item.group(3) == "+")
    return True


def _cleared(name: str, values: dict[str, str], associative: bool) -> None:
    values[f"{name}[@]"] = ""
    if associative:
        values[f"{name}{_KEYS}"] = ""
        values[f"{name}{_ASSOC}"] = "1"
    else:
        values.pop(f"{name}{_KEYS}", None)


def is_open(name: str, values: Mapping[str, str]) -> bool:
    """Whether array ``name`` is one the script leaves open (``opened``)."""
    return values.get(f"{name}[@]") == "${" + name + "[@]}"


def opened(name: str, values: dict[str, str]) -> None:
    """Make array ``name`` one whose items the script leaves open: ``"${NAME[@]}"`` stays
    one word as written, and so does each of its items."""
    values[f"{name}[@]"] = "${" + name + "[@]}"
    values.pop(f"{name}{_KEYS}", None)


def _keys(name: str, values: dict[str, str]) -> list[str]:
    """The keys of array ``name`` (its indices 0, 1, ... unless they are kept apart)."""
    kept = values.get(f"{name}{_KEYS}")
    if kept is not None:
        return kept.split(_SEPARATOR) if kept else []
    return [str(n) for n in range(len(items(f"${{{name}[@]}}", values) or []))]


def _next_index(name: str, values: dict[str, str]) -> int:
    indices = [int(k) for k in _keys(name, values) if re.fullmatch(r"-?\d+", k)]
    return max(indices) + 1 if indices else 0


def subscript(name: str, written: str, values: Mapping[str, str]) -> str | None:
    """The key ``written`` between an array's brackets stands for: an associative array's
    word, expanded (``$key``); an indexed array's arithmetic (``i``, ``$i``, ``2``), as a
    number. None when it is not one the script fixes."""
    if f"{name}{_ASSOC}" in values:
        key = shell_vars.expand(written, values)
        return None if shell_vars.open_reference(key) else key
    index = written.strip()
    index = values.get(index, index) if not index.startswith("$") \
        else shell_vars.expand(index, values)
    return index if re.fullmatch(r"-?\d+", index) else None


def set_item(name: str, written: str, value: str, values: dict[str, str],
             append: bool = False) -> None:
    """Set the item of array ``name`` whose key ``written`` stands for to ``value``
    (expanded; ``append``: added to the item's value), as ``NAME[KEY]=value`` does; the
    array is created when the script has none of that name. A key the script leaves open
    makes the whole array open: which item changed is not known here."""
    if is_open(name, values):
        return  # an array left open stays open
    if f"{name}[@]" not in values:
        _cleared(name, values, f"{name}{_ASSOC}" in values)
    key = subscript(name, written, values)
    if key is None:
        opened(name, values)
        return
    listed = items(f"${{{name}[@]}}", values) or []
    keys = _keys(name, values)
    value = shell_vars.expand(value, values)
    if key in keys:
        at = keys.index(key)
        listed[at] = listed[at] + value if append else value
    else:
        keys.append(key)
        listed.append(value)
    values[f"{name}[@]"] = shell_vars.bounded(_SEPARATOR.join(listed), f"{name}[{written}]")
    if f"{name}{_ASSOC}" in values or keys != [str(n) for n in range(len(keys))]:
        values[f"{name}{_KEYS}"] = _SEPARATOR.join(keys)


def item(name: str, written: str, values: Mapping[str, str]) -> str | None:
    """The item ``${NAME[KEY]}`` gives of an array the script sets: by key, or by index
    (negative: from the end); nothing for one it does not hold, as in bash. None when the
    array or the key is not one the script fixes."""
    listed = items(f"${{{name}[@]}}", dict(values))
    key = subscript(name, written, values)
    if listed is None or key is None or is_open(name, values):
        return None
    keys = _keys(name, dict(values))
    if key in keys:
        return listed[keys.index(key)]
    if f"{name}{_ASSOC}" not in values and key.startswith("-") and -len(listed) <= int(key):
        return listed[int(key)]
    return ""


def keys_of(name: str, values: Mapping[str, str]) -> list[str] | None:
    """The keys (``${!NAME[@]}``) of an array the script sets; None for another."""
    if items(f"${{{name}[@]}}", dict(values)) is None:
        return None
    return _keys(name, dict(values))


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
