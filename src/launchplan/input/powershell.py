"""A launch written for a Windows shell, read as the POSIX shell line it stands for.

Windows users (and docs written for them) continue a long command with a backtick at the
end of the line in PowerShell (``python -m sglang.launch_server `\\n  --model-path ...``)
or a caret in ``cmd.exe`` (``... ^``, with ``set NAME=value`` and ``%NAME%``), set the
environment with ``$env:NAME = "value"``, give a script's defaults in a
``param([string]$Model = "...")`` block, and write paths with backslashes, which
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
#: A literal PowerShell value: a quoted string or a bare word (no call, no pipeline).
_LITERAL = re.compile(r"""^(?:"[^"`$]*"|'[^']*'|[^\s"'()|;`$]+)(?:[ \t]+#.*)?$""")
#: ``$env:NAME`` read inside a command.
_ENV_READ = re.compile(r"\$env:([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)


def looks_like_powershell(text: str) -> bool:
    """Whether ``text`` continues lines with backticks or sets ``$env:`` variables."""
    return ("`" in text or "^" in text) and bool(_CONTINUED.search(text)) or (
        "$env:" in text.lower() and bool(
            re.search(r"^[ \t]*\$env:\w+[ \t]*=", text, re.MULTILINE | re.IGNORECASE)))


def as_posix(text: str) -> str:
    """The POSIX shell text that runs what the PowerShell ``text`` runs (see the module)."""
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
