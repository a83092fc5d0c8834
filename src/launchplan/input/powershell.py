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
#: (a caret).
_CONTINUED = re.compile(r"[ \t][`^][ \t]*$", re.MULTILINE)
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
#: A literal PowerShell value: a quoted string or a bare word (no call, no pipeline).
_LITERAL = re.compile(r"""^(?:"[^"`$]*"|'[^']*'|[^\s"'()|;`$]+)(?:[ \t]+#.*)?$""")
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


def as_posix(text: str) -> str:
    """The POSIX shell text that runs what the PowerShell ``text`` runs (see the module)."""
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
        if _CONTINUED.search(line):
            line = _CONTINUED.sub(" \\\\", line)
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
