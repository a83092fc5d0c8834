"""systemd units that start SGLang: a ``.service`` file, or a Podman Quadlet ``.container``.

A server kept running by systemd is pasted as its unit file: ``[Service]`` with
``Environment="SGLANG_X=1" "CUDA_VISIBLE_DEVICES=0,1"`` lines and an ``ExecStart=`` that
runs ``python -m sglang.launch_server ...`` (continued over lines with ``\\`` as systemd
allows); a Quadlet ``[Container]`` section writes the same with ``Environment=`` and
``Exec=``. Read as shell text, the unit's other keys (``Description=SGLang Inference
Server``) would be commands and its ``Environment=`` lines would set nothing the launch
sees. This module rewrites a unit as the script systemd runs in effect: an ``export`` per
assignment, then each command that starts the launcher (systemd expands ``$NAME`` and
``${NAME}`` in it from those assignments, as the shell does from exported ones). An
``EnvironmentFile=`` is a file on the poster's host: its variables are not known, so a flag
that holds one stays an open reference, with a note.

Scripts write units too (``cat > /etc/systemd/system/sglang.service << EOF``): such a
here-document's unit is read the same way, after the lines that write it.

supervisord's ``[program:sglang]`` section is the same kind of service config: its
``command=`` is the launch and its ``environment=KEY="value",...`` (and the
``[supervisord]`` section's, which every program inherits) its environment. Read as shell
text the ``environment=`` line would only set a variable named ``environment``.
"""

from __future__ import annotations

import re
import shlex

#: A section header of a unit file.
_SECTION = re.compile(r"^\[([A-Za-z]+)\]$")
#: The sections whose keys say how the process runs (a service's, a Quadlet container's).
_RUN_SECTIONS = frozenset({"Service", "Container"})
#: The keys that hold the command: a service's ``ExecStart=``, a Quadlet's ``Exec=``.
_COMMAND_KEYS = frozenset({"ExecStart", "Exec"})
#: ``ExecStart=`` prefixes that change how systemd runs the command, not the command.
_EXEC_PREFIXES = "@-:+!"
#: A ``Key=value`` line of a unit.
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9]*)=(.*)$")
#: The launcher in a command line.
_LAUNCHER = re.compile(r"sglang(?:\.launch_server|_router\.launch_server|\s+serve\b)")


def looks_like_unit(text: str) -> bool:
    """Whether ``text`` is a unit file whose command starts SGLang's launcher: a
    ``[Service]`` or ``[Container]`` section, or ``Environment=`` lines beside the
    ``ExecStart=``/``Exec=`` line (a unit's lines quoted without their header)."""
    if "=" not in text:
        return False
    lines = _lines(text)
    commands = [value for key, value, _ in lines if key in _COMMAND_KEYS]
    if not any(_LAUNCHER.search(value) for value in commands):
        return False
    headed = any(section in _RUN_SECTIONS for _, _, section in lines)
    return headed or any(key in ("Environment", "EnvironmentFile") for key, _, _ in lines)


def as_script(text: str, *, expand: bool = False) -> tuple[str, list[str]]:
    """(the shell script the unit ``text`` amounts to, notes on how it was read).

    ``expand``: the unit was written by an unquoted here-document, so the writing shell
    already expanded ``$NAME`` in its values; they are written in double quotes for the
    script's own variables to be expanded the same way (systemd itself expands nothing in
    an ``Environment=`` value, so a unit pasted on its own keeps its values as they are)."""
    out: list[str] = []
    notes: list[str] = []
    kind = "Podman Quadlet unit" if any(s == "Container" for _, _, s in _lines(text)) \
        else "systemd unit"
    known: dict[str, str] = {}  # the Environment= values, as systemd hands them over
    for key, value, _ in _lines(text):
        if key == "Environment":
            out.extend(f"export {assignment}" for assignment in _assignments(value, expand))
            known.update(_values(value))
        elif key == "EnvironmentFile":
            path = value.strip().lstrip("-")
            notes.append(f"the {kind} reads variables from EnvironmentFile={path}, a file on "
                         "its host: they are not known here, so a flag that holds one is "
                         "reported as a variable the paste does not set")
        elif key in _COMMAND_KEYS and _LAUNCHER.search(value):
            command = value.strip().lstrip(_EXEC_PREFIXES)
            out.append(_braced_whole(command, known) if kind == "systemd unit" else command)
    key = "Exec" if kind.startswith("Podman") else "ExecStart"
    notes.insert(0, f"read as a {kind}: its Environment= lines are the launch's environment "
                    f"and its {key}= command is the launch")
    return "\n".join(out), notes


#: ``${NAME}`` in a command line, which systemd replaces by the value whole
_BRACED = re.compile(r"\$\{[A-Za-z_]\w*\}")


def _braced_whole(command: str, known: dict[str, str]) -> str:
    """``command`` with each unquoted ``${NAME}`` the unit's ``Environment=`` sets written as
    its value in single quotes: systemd puts a braced variable's value in as one argument,
    whitespace and all (systemd.service(5), "Command lines"), where ``$NAME`` alone is split
    at whitespace into words. One it does not set stays as written (its value is the host's)."""
    out: list[str] = []
    quote = ""
    at = 0
    while at < len(command):
        char = command[at]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "\\":
            out.append(command[at:at + 2])
            at += 2
            continue
        elif (found := _BRACED.match(command, at)) is not None:
            name = found.group(0)[2:-1]
            out.append(shlex.quote(known[name]) if name in known else found.group(0))
            at = found.end()
            continue
        out.append(char)
        at += 1
    return "".join(out)


#: A section header of a supervisord config: ``[program:NAME]``, ``[supervisord]``.
_SUPERVISOR_SECTION = re.compile(r"^\[(program:[^\]]+|supervisord)\]\s*$")
#: Any section header of an INI file (``[unix_http_server]``, ``[group:workers]``).
_ANY_SECTION = re.compile(r"^\[[^\]]+\]$")
#: A ``key=value`` (or ``key = value``, ``key: value``) line of a supervisord section.
_SUPERVISOR_KEY = re.compile(r"^([a-z_]+)\s*[=:]\s*(.*)$")


def looks_like_supervisor(text: str) -> bool:
    """Whether ``text`` is a supervisord config (its every line a section header, a key's
    line or a value's continuation) with a ``[program:...]`` section whose ``command=``
    starts SGLang's launcher. A page that shows such a section beside a launch of its own
    (an example ``command=python -m sglang.launch_server ...`` under a shell block) is
    not one: its shell lines are read as the page's commands."""
    section = ""
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if _ANY_SECTION.match(line):
            section = line
        elif not section or not (raw[:1] in (" ", "\t") or _SUPERVISOR_KEY.match(line)):
            return False
    return any(section.startswith("program:") and key == "command" and _LAUNCHER.search(value)
               for section, key, value in _supervisor_lines(text))


def supervisor_script(text: str) -> tuple[str, list[str]]:
    """(the shell script the supervisord config ``text`` amounts to, notes on how it was
    read): each launching program's command with its environment (the ``[supervisord]``
    section's first, the program's own over it) as assignments before it, which set it
    for that command alone.
    supervisord splits ``command=`` into words itself and runs it with no shell, so the
    words are quoted to stay as they are (a ``$NAME`` in it is not expanded)."""
    lines = _supervisor_lines(text)
    shared = [value for section, key, value in lines
              if section == "supervisord" and key == "environment"]
    programs: dict[str, dict[str, str]] = {}
    for section, key, value in lines:
        if section.startswith("program:"):
            programs.setdefault(section, {})[key] = value
    out: list[str] = []
    for keys in programs.values():
        command = keys.get("command", "")
        if not _LAUNCHER.search(command):
            continue
        assignments = [a for value in [*shared, keys.get("environment", "")]
                       for a in _supervisor_assignments(value)]
        try:
            words = shlex.split(command)
        except ValueError:
            words = command.split()
        out.append(" ".join([*assignments, shlex.join(words)]))
    notes = ["read as a supervisord config: each [program:...] command that starts the "
             "launcher is a launch, its environment= (and [supervisord]'s) its environment"]
    return "\n".join(out), notes


def _supervisor_lines(text: str) -> list[tuple[str, str, str]]:
    """(section, key, value) of each line of the supervisord config ``text``, a value
    continued on indented lines (as its INI parser reads them) joined with spaces."""
    out: list[tuple[str, str, str]] = []
    section = ""
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        header = _SUPERVISOR_SECTION.match(line)
        if header:
            section = header.group(1)
            continue
        if raw[:1] in (" ", "\t") and out and out[-1][0] == section:
            last = out[-1]
            out[-1] = (last[0], last[1], f"{last[2]} {line}".strip())
            continue
        match = _SUPERVISOR_KEY.match(line)
        if match is not None and section:
            out.append((section, match.group(1), match.group(2).strip()))
    return out


def _supervisor_assignments(value: str) -> list[str]:
    """The ``NAME=value`` assignments of a supervisord ``environment=`` value
    (``A="0,1",B=x``: commas between pairs, a quoted value may hold one), shell-quoted."""
    lexer = shlex.shlex(value, posix=True)
    lexer.whitespace = ","
    lexer.whitespace_split = True
    out = []
    try:
        pairs = list(lexer)
    except ValueError:
        return out
    for pair in pairs:
        name, eq, content = pair.strip().partition("=")
        if eq and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            out.append(f"{name}={shlex.quote(content)}")
    return out


def inline_written(script: str, notes: list[str] | None = None) -> str:
    """``script`` with the unit each here-document writes (a ``.service`` or a Quadlet
    ``.container`` that starts the launcher) read after the here-document: its
    ``export`` lines and command, as :func:`as_script` gives them."""
    if "<<" not in script or "=" not in script:
        return script
    from launchplan.input.heredoc import closed_heredocs

    lines = script.split("\n")
    out: list[str] = []
    done = 0
    for start, opener, end in closed_heredocs(lines):
        out.extend(lines[done:end + 1])
        done = end + 1
        body = "\n".join(lines[start + 1:end])
        if looks_like_unit(body):
            text, found = as_script(body, expand=not opener.group(1))
            out.extend(text.split("\n"))
            if notes is not None:
                notes.append(found[0].replace("read as a ", "a here-document writes a ", 1))
                notes.extend(found[1:])
    out.extend(lines[done:])
    return "\n".join(out)


def _lines(text: str) -> list[tuple[str, str, str]]:
    """(key, value, section) of each ``Key=value`` line of the unit ``text``, a value
    continued over lines by a trailing backslash joined as systemd joins it (a comment
    line, ``#`` or ``;``, in between is skipped)."""
    out: list[tuple[str, str, str]] = []
    section = ""
    pending: list[str] | None = None
    for raw in text.split("\n"):
        line = raw.strip()
        if pending is not None:
            if line.startswith(("#", ";")):
                continue
            pending.append(line[:-1].strip() if line.endswith("\\") else line)
            if line.endswith("\\"):
                continue
            key, first = pending[0].split("=", 1)
            out.append((key, " ".join([first, *pending[1:]]).strip(), section))
            pending = None
            continue
        header = _SECTION.match(line)
        if header:
            section = header.group(1)
            continue
        match = _KEY.match(line)
        if match is None:
            continue
        if line.endswith("\\"):
            pending = [line[:-1].rstrip()]
            continue
        out.append((match.group(1), match.group(2), section))
    if pending is not None:
        key, first = pending[0].split("=", 1)
        out.append((key, " ".join([first, *pending[1:]]).strip(), section))
    return out


def _values(value: str) -> dict[str, str]:
    """The variables an ``Environment=`` value sets, with their values."""
    try:
        words = shlex.split(value)
    except ValueError:
        words = value.split()
    return {name: content for name, eq, content in (w.partition("=") for w in words)
            if eq and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name)}


def _assignments(value: str, expand: bool) -> list[str]:
    """The ``NAME=value`` words of an ``Environment=`` value (several, each may be quoted),
    quoted again for the shell: as they are, or in double quotes when ``expand``."""
    try:
        words = shlex.split(value)
    except ValueError:
        words = value.split()
    out = []
    for word in words:
        name, eq, content = word.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            continue
        if expand:
            escaped = content.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`")
            out.append(f'{name}="{escaped}"')
        else:
            out.append(f"{name}={shlex.quote(content)}")
    return out
