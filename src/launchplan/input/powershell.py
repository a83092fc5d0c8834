"""A launch written for a Windows shell, read as the POSIX shell line it stands for.

Windows users (and docs written for them) continue a long command with a backtick at the
end of the line in PowerShell (``python -m sglang.launch_server `\\n  --model-path ...``)
or a caret in ``cmd.exe`` (``... ^``, with ``set NAME=value`` and ``%NAME%``), set the
environment with ``$env:NAME = "value"``, give a script's defaults in a
``param([string]$Model = "...")`` block or ``$Model = "..."`` lines, and write
paths with backslashes, which
PowerShell keeps as they are. This module rewrites such a text into the POSIX form the
pasted-line reader knows: ``\\`` continuations, ``export NAME=value``, ``Model=...``
assignments, ``${NAME}`` references and backslashes escaped so the shell splitter keeps
them. A value PowerShell computes (``(Read-Host ...)``) is not a literal and is left out,
so a flag that uses it reports the open reference.
"""

from __future__ import annotations

import re

#: A line that ends in PowerShell's continuation (a backtick after a space) or cmd.exe's
#: (a caret), with a word of the command before it (group 1: the line up to the sign). A
#: line of only a caret, or a caret under a gutter (``      |     ^``), is the column marker
#: a compiler, Triton or Python's SyntaxError prints under the code it points at, which
#: bug reports paste above their launch: no command goes on there.
_CONTINUED = re.compile(r"^(?=[^\n]*?[\w-]{2})([^\n]*?\S)[ \t]+[`^][ \t]*$", re.MULTILINE)
#: cmd.exe's ``set NAME=value`` and its ``%NAME%`` references.
_CMD_SET = re.compile(r"^[ \t]*set[ \t]+\"?([A-Za-z_][A-Za-z0-9_]*)=([^\"]*)\"?[ \t]*$",
                      re.IGNORECASE)
_CMD_READ = re.compile(r"%([A-Za-z_][A-Za-z0-9_]*)%")
#: ``$env:NAME = value`` on a line of its own.
_ENV_SET = re.compile(r"^[ \t]*\$env:([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*(.*?)[ \t]*$",
                      re.IGNORECASE)
#: A ``param(...)`` entry with a default: ``[string]$Model = "Qwen/Qwen3-8B",``.
_PARAM = re.compile(r"^[ \t]*(?:\[[\w.\[\]]+\][ \t]*)*\$([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*"
                    r"(.*?)[ \t]*,?[ \t]*$")
#: A script variable set on a line of its own: ``$MODEL_PATH = "Qwen/Qwen3-8B"``, ``[int]$PORT
#: = 30000`` (``$env:`` ones are ``_ENV_SET``'s).
_VAR_SET = re.compile(r"^[ \t]*(?:\[[\w.\[\]]+\][ \t]*)*\$(?!env:)([A-Za-z_][A-Za-z0-9_]*)"
                      r"[ \t]*=[ \t]*(.*?)[ \t]*$", re.IGNORECASE)
#: A literal PowerShell value: a quoted string or a bare word (no call, no pipeline, no
#: hashtable or array literal: ``@{``, ``@(``).
_LITERAL = re.compile(r"""^(?:"[^"`$]*"|'[^']*'|(?!@)[^\s"'()|;`${}]+)(?:[ \t]+#.*)?$""")
#: ``$env:NAME`` read inside a command.
_ENV_READ = re.compile(r"\$env:([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)


def looks_like_powershell(text: str) -> bool:
    """Whether ``text`` continues lines with backticks, sets ``$env:`` variables, sets a
    ``$name = value`` variable (no POSIX shell assigns so), starts a process with
    ``Start-Process``, or is a batch file (``set NAME=value`` read back as ``%NAME%``)."""
    return ("`" in text or "^" in text) and bool(_CONTINUED.search(text)) or (
        "$env:" in text.lower() and bool(
            re.search(r"^[ \t]*\$env:\w+[ \t]*=", text, re.MULTILINE | re.IGNORECASE))) or (
        "$" in text and bool(_ANY_VAR_SET.search(text))) or "start-process" in text.lower() or (
        "%" in text and bool(_CMD_READ.search(text))
        and bool(re.search(r"^[ \t]*set[ \t]+\"?\w+=", text, re.MULTILINE | re.IGNORECASE)))


#: a ``$name = value`` line anywhere in a text (``_VAR_SET`` reads one line)
_ANY_VAR_SET = re.compile(r"^[ \t]*(?:\[[\w.\[\]]+\][ \t]*)*\$(?!env:)[A-Za-z_]\w*[ \t]*="
                          r"(?!=)[ \t]*\S", re.MULTILINE | re.IGNORECASE)


#: ``Start-Process [-FilePath] PROGRAM ... -ArgumentList @( ... )`` (the list may span lines)
_START_PROCESS = re.compile(
    r"^[ \t]*(?:\$\w+[ \t]*=[ \t]*)?Start-Process\b(?P<head>[^\n@]*?)-ArgumentList[ \t]*"
    r"@\((?P<items>.*?)\)(?P<tail>[^\n]*)$", re.MULTILINE | re.DOTALL | re.IGNORECASE)
#: the program ``Start-Process`` runs: ``-FilePath X`` or its first positional word
_FILE_PATH = re.compile(r"(?:-FilePath[ \t]+)?(\S+)", re.IGNORECASE)
#: an argument list's item: a quoted string, or a variable (a cast before it)
_ARGUMENT = re.compile(r"""'([^']*)'|"([^"`$]*)"|(?:\[\w.]+\])?\$(\w+)""")


def _started_processes(text: str) -> str:
    """``text`` with each ``Start-Process PROGRAM -ArgumentList @(...)`` written as the
    command line it starts (PowerShell's way to start a server in the background and keep
    its process), the call operator ``& $python ...`` as ``$python ...``."""
    def started(match: re.Match[str]) -> str:
        program = _FILE_PATH.search(match.group("head"))
        if program is None:
            return match.group(0)
        words = [program.group(1)]
        for item in _ARGUMENT.finditer(match.group("items")):
            quoted = item.group(1) if item.group(1) is not None else item.group(2)
            words.append(f"'{quoted}'" if quoted is not None else "$" + item.group(3))
        return " ".join(words)

    text = _START_PROCESS.sub(started, text)
    return re.sub(r"^([ \t]*)&[ \t]+(?=[$'\"\w])", r"\1", text, flags=re.MULTILINE)


#: A top-level array assignment, ``$serve = @(`` or ``$serve += @(``, to its ``)``.
_ARRAY = re.compile(r"^\$([A-Za-z_]\w*)[ \t]*(\+?=)[ \t]*@\((.*?)^\)", re.MULTILINE | re.DOTALL)
#: An array's item that is a literal string.
_ITEM = re.compile(r"""^(?:"([^"`$]*)"|'([^']*)')$""")


def _arrays(text: str) -> dict[str, list[str]]:
    """The arrays of literal strings ``text`` builds at its top level, for splatting
    (``sglang serve @serve``). An array also added to in a nested block (an ``if``) or
    holding a computed item is left out: its contents depend on the run."""
    arrays: dict[str, list[str]] = {}
    broken: set[str] = set()
    for match in _ARRAY.finditer(text):
        name, op, body = match.groups()
        items: list[str] = []
        for raw in re.split(r"[,\n]", re.sub(r"#[^\n]*", "", body)):
            raw = raw.strip()
            if not raw:
                continue
            item = _ITEM.match(raw)
            if item is None:
                broken.add(name)
                break
            items.append(item.group(1) if item.group(1) is not None else item.group(2))
        arrays[name] = arrays.get(name, []) + items if op == "+=" else items
    for nested in re.finditer(r"^[ \t]+\$([A-Za-z_]\w*)[ \t]*\+?=", text, re.MULTILINE):
        broken.add(nested.group(1))
    return {name: items for name, items in arrays.items() if name not in broken}


#: An expandable here-string (``$s = @"`` ... ``"@``, its close at a line's start) that
#: holds a launch: the text of a script PowerShell writes (``$s | Out-File run.ps1``).
_HERE_STRING = re.compile(r'^[ \t]*(?:\$\w+[ \t]*=[ \t]*)?@"[ \t]*\n(.*?)\n"@',
                          re.MULTILINE | re.DOTALL)
#: PowerShell's escapes in an expandable string: a backtick before a character.
_ESCAPES = {"n": "\n", "t": "\t", "r": "", "0": ""}


def _here_string_text(match: re.Match[str]) -> str:
    """The text a here-string that launches stands for, its escapes read (```` `` ```` a
    backtick, ```` `$ ```` a dollar sign the written script reads as its variable): its
    lines are the launch. One that starts nothing stays as written."""
    body = match.group(1)
    if "sglang" not in body:
        return match.group(0)
    return re.sub(r"`(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


#: A top-level hashtable assignment, ``$spec = @{`` (its body is read to the matching ``}``).
_TABLE_START = re.compile(r"^\$([A-Za-z_]\w*)[ \t]*=[ \t]*@\{", re.MULTILINE)
#: An index after a hashtable literal: ``["2b"]``, ``['2b']`` or ``[$JudgeModel]``.
_INDEX = re.compile(r"""\[[ \t]*(?:"([^"`$]*)"|'([^']*)'|\$([A-Za-z_]\w*))[ \t]*\]""")
#: A hashtable entry's key and the rest of it: ``Name = "x"``, ``"2b" = @{``.
_ENTRY = re.compile(r"""[ \t]*(?:"([^"`$]*)"|'([^']*)'|([A-Za-z_][\w.-]*))[ \t]*=[ \t]*""")
#: A member read of a script variable: ``$spec.ServedName``, ``$cfg.Model.Path``.
_MEMBER = re.compile(r"\$([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)")

#: A hashtable's value: a string, or a table of them (None where the script computes it).
_Table = dict[str, "str | _Table | None"]


def _table(body: str, at: int) -> tuple[_Table | None, int]:
    """The hashtable literal whose body starts at ``body[at]`` (just after ``@{``), keys
    lower-cased (PowerShell reads them so), and where it ends (after its ``}``); None for the
    table when an entry is not a literal (a value the script computes), the end -1 when
    the text ends first."""
    table: _Table = {}
    readable = True
    while at < len(body):
        while at < len(body) and body[at] in " \t\r\n;":
            at += 1
        if body.startswith("}", at):
            return (table if readable else None), at + 1
        if body.startswith("#", at):
            at = body.find("\n", at) if "\n" in body[at:] else len(body)
            continue
        entry = _ENTRY.match(body, at)
        if entry is None:
            return None, _closing(body, at)
        key = next(group for group in entry.groups() if group is not None).lower()
        at = entry.end()
        if body.startswith("@{", at):
            table[key], at = _table(body, at + 2)
            if at < 0:
                return None, -1
            continue
        value = re.match(r""""([^"`$\n]*)"|'([^'\n]*)'|([^\s;}"'$()]+)(?=[ \t]*[;\n}#])""",
                         body[at:])
        if value is None:
            readable = False
            at = min((i for i in (body.find("\n", at), body.find(";", at)) if i >= 0),
                     default=len(body))
            continue
        table[key] = next(group for group in value.groups() if group is not None)
        at += value.end()
    return None, -1


def _closing(body: str, at: int) -> int:
    """Where the hashtable open at ``body[at]`` ends (after its ``}``), -1 when it does not."""
    depth = 1
    for index in range(at, len(body)):
        depth += {"{": 1, "}": -1}.get(body[index], 0)
        if depth == 0:
            return index + 1
    return -1


def _literal_values(text: str) -> dict[str, str]:
    """The variables a script sets once to a literal (``$JudgeModel = "2b"``, a ``param``
    default), by lower-cased name: what a hashtable index ``[$JudgeModel]`` reads."""
    seen: dict[str, set[str]] = {}
    for line in text.split("\n"):
        found = _PARAM.match(line)
        if found:
            value = found.group(2).rstrip(",").strip()
            known = _LITERAL.match(value)
            seen.setdefault(found.group(1).lower(), set()).add(
                value.split(" #", 1)[0].strip().strip("'\"") if known else "\0")
    return {name: values.pop() for name, values in seen.items()
            if len(values) == 1 and "\0" not in values}


def _hashtables(text: str) -> tuple[str, dict[str, _Table | str | None]]:
    """``text`` without its top-level hashtable assignments (``$spec = @{ ... }``, which a
    POSIX shell cannot read; their lines kept blank), and each one's value by lower-cased
    name: the table, or the entry an index picks (``@{ ... }[$JudgeModel]``, the index a
    literal the script sets), None when it is not known here."""
    tables: dict[str, _Table | str | None] = {}
    pieces: list[str] = []
    done = 0
    for start in _TABLE_START.finditer(text):
        if start.start() < done:
            continue
        table, end = _table(text, start.end())
        if end < 0:
            break
        value: _Table | str | None = table
        index = _INDEX.match(text, end)
        if index is not None:
            end = index.end()
            key = index.group(1) if index.group(1) is not None else index.group(2)
            if key is None:
                key = _literal_values(text).get(index.group(3).lower())
            value = table.get(key.lower()) if table is not None and key is not None else None
        tables[start.group(1).lower()] = value
        pieces.append(text[done:start.start()] + "\n" * text.count("\n", start.start(), end))
        done = end
    return "".join(pieces) + text[done:], tables


def _member_reads(line: str, tables: dict[str, _Table | str | None],
                  literals: dict[str, str]) -> str:
    """``line`` with each member read of a script variable outside quotes
    (``$spec.ServedName``; PowerShell reads a member there, and in ``$($spec.ServedName)``)
    as the string it gives when the variable is a literal hashtable, and open otherwise:
    as written when the POSIX text sets no such variable, else as ``${spec.ServedName}``
    (the shell would read ``$spec`` then the text ``.ServedName``). Inside double quotes
    ``"$spec.Name"`` reads the variable alone."""
    out: list[str] = []
    quote = ""
    at = 0
    while at < len(line):
        char = line[at]
        sub = line.startswith("$(", at) and _MEMBER.match(line, at + 2)
        if sub and line.startswith(")", sub.end()) and quote != "'":
            out.append(_member(sub, tables, literals, quote))
            at = sub.end() + 1
            continue
        member = _MEMBER.match(line, at) if char == "$" and not quote else None
        if member is not None:
            out.append(_member(member, tables, literals, quote))
            at = member.end()
            continue
        if char in "'\"" and (not quote or quote == char):
            quote = "" if quote else char
        out.append(char)
        at += 1
    return "".join(out)


def _member(match: re.Match[str], tables: dict[str, _Table | str | None],
            literals: dict[str, str], quote: str) -> str:
    """The text a member read stands for (see ``_member_reads``)."""
    value: _Table | str | None = tables.get(match.group(1).lower())
    for name in match.group(2)[1:].split("."):
        value = value.get(name.lower()) if isinstance(value, dict) else None
    if isinstance(value, str):
        return value if quote else _quoted(value)
    if match.group(1).lower() in literals:
        return "${" + match.group(1) + match.group(2) + "}"
    return "$" + match.group(1) + match.group(2)


def as_posix(text: str) -> str:
    """The POSIX shell text that runs what the PowerShell ``text`` runs (see the module)."""
    tables: dict[str, _Table | str | None] = {}
    if "@{" in text:
        text, tables = _hashtables(text)
    if '@"' in text:
        text = _HERE_STRING.sub(_here_string_text, text)
    if "start-process" in text.lower() or "&" in text:
        text = _started_processes(text)
    arrays = _arrays(text) if "@(" in text else {}
    if arrays:
        text = re.sub(r"(?<![\w@])@([A-Za-z_]\w*)\b",
                      lambda m: " ".join(_quoted(i) for i in arrays[m.group(1)])
                      if m.group(1) in arrays else m.group(0), _ARRAY.sub("", text))
    out: list[str] = []
    in_param = False
    literals: dict[str, str] | None = None
    for line in text.split("\n"):
        stripped = line.strip()
        if re.match(r"^param\s*\(", stripped, re.IGNORECASE):
            in_param = not stripped.endswith(")")
            out.append("")
            continue
        if in_param:
            in_param = stripped != ")"
            found = _PARAM.match(line)
            value = found.group(2).rstrip(",").strip() if found else ""
            out.append(f"{found.group(1)}={value}" if found and _LITERAL.match(value) else "")
            continue
        cmd_set = _CMD_SET.match(line)
        if cmd_set:
            out.append(f"export {cmd_set.group(1)}={_escaped(cmd_set.group(2))}")
            continue
        line = _CMD_READ.sub(r"${\1}", line)
        setting = _ENV_SET.match(line)
        if setting:
            value = setting.group(2)
            out.append(f"export {setting.group(1)}={_escaped(value)}"
                       if _LITERAL.match(value) else "")
            continue
        assigned = _VAR_SET.match(line)
        if assigned:  # the script's own variable, read as $NAME later: a shell assignment
            value = assigned.group(2)
            out.append(f"{assigned.group(1)}={_escaped(value)}"
                       if _LITERAL.match(value) else "")
            continue
        line = _ENV_READ.sub(r"${\1}", line)
        if "$" in line and "." in line and _MEMBER.search(line):
            if literals is None:
                literals = _literal_values(text)
            line = _member_reads(line, tables, literals)
        if _CONTINUED.search(line):
            line = _CONTINUED.sub(r"\1 \\", line)
            out.append(_escaped(line[:-1]) + "\\")
        else:
            out.append(_escaped(line))
    return "\n".join(out)


def _escaped(line: str) -> str:
    """``line`` with each backslash outside single quotes doubled: PowerShell keeps a
    backslash (``G:\\models\\x``) where the POSIX splitter would take it as an escape."""
    out: list[str] = []
    quoted = False
    for char in line:
        if char == "'":
            quoted = not quoted
        out.append("\\\\" if char == "\\" and not quoted else char)
    return "".join(out)


def _quoted(item: str) -> str:
    """``item`` as one word of a POSIX command line (single-quoted when it needs it)."""
    return item if re.fullmatch(r"[\w@%+=:,./-]+", item) else "'" + item.replace("'", "") + "'"
