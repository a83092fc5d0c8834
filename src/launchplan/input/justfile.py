"""justfiles whose recipes start SGLang, read as the shell lines ``just`` would run.

``just`` (a command runner) keeps launches as recipes: ``serve model tp="1":`` over
indented lines that say ``python -m sglang.launch_server --model {{model}} --tp {{tp}}``,
with the file's variables (``SGL_ARGS := COMMON + " --disable-radix-cache"``) and the
recipe's parameters interpolated by ``just`` before the shell sees the line. Read as shell
text, ``{{tp}}`` would be passed through as written. This module rewrites a justfile as the
script its recipes amount to: an ``export`` per variable the file exports, then each
recipe's lines with ``{{...}}`` evaluated. A parameter with a default takes it (a recipe run
with no arguments); one without, or a name the file does not set, becomes the shell
reference ``${name}``, left open as the value the paste does not give.
"""

from __future__ import annotations

import re

from launchplan.input.shell_vars import bounded

#: ``NAME := expression``, optionally ``export``ed.
_ASSIGN = re.compile(r"^(export\s+)?([A-Za-z_][A-Za-z0-9_-]*)\s*:=\s*(.*)$")
#: A recipe header: an optional ``@``, the name, parameters, a colon, dependencies.
_HEADER = re.compile(r"^@?([A-Za-z_][A-Za-z0-9_-]*)((?:\s+[+*$]?[A-Za-z_][A-Za-z0-9_-]*"
                     r"(?:=(?:\"[^\"]*\"|'[^']*'|[A-Za-z0-9_.-]+))?)*)\s*:(?!=)(.*)$")
#: One parameter of a header.
_PARAM = re.compile(r"[+*$]?([A-Za-z_][A-Za-z0-9_-]*)(?:=(\"[^\"]*\"|'[^']*'|\S+))?")
#: One piece of an expression: a quoted string, a name or an operator.
_PIECE = re.compile(r"\s*(\"(?:[^\"\\]|\\.)*\"|'[^']*'|[A-Za-z_][A-Za-z0-9_-]*|[+/])")
#: The launcher in a recipe line.
_LAUNCHER = re.compile(r"sglang(?:\.launch_server|_router\.launch_server|\s+serve\b)")


def looks_like_justfile(text: str) -> bool:
    """Whether ``text`` is a justfile with a recipe that starts SGLang's launcher: ``{{...}}``
    interpolation, and a ``NAME := value`` line or a recipe header with parameters (a YAML
    mapping or a Helm template has neither)."""
    if "{{" not in text or not _LAUNCHER.search(text):
        return False
    lines = text.split("\n")
    if any(line.startswith("\t") for line in lines) and "$(" in text:
        return False  # a Makefile's recipe
    assigned = any(_ASSIGN.match(line) and not line[0].isspace() for line in lines if line)
    headed = any(_HEADER.match(line) and _HEADER.match(line).group(2).strip()  # type: ignore
                 for line in lines if line and not line[0].isspace())
    # every line at the margin is just's: a page or script with other lines (prose, shell
    # steps) beside a justfile is not read as one, so none of its lines is dropped
    return (assigned or headed) and all(_justs(line) for line in lines)


#: just's settings and other top-level statements.
_STATEMENTS = re.compile(r"^(?:set|alias|import|mod|export)\b|^\[[\w:, \"'()-]+\]\s*$")


def _justs(line: str) -> bool:
    """Whether a line at the margin is just's (blank, a comment, an assignment, a recipe
    header, a setting or attribute); an indented line is a recipe's."""
    return (not line.strip() or line[0].isspace() or line.startswith("#")
            or bool(_ASSIGN.match(line) or _HEADER.match(line) or _STATEMENTS.match(line)))


def as_script(text: str) -> str:
    """The shell script the justfile ``text`` amounts to: ``export NAME=value`` for each
    variable it exports, then each recipe's lines with ``{{...}}`` evaluated from the
    file's variables and the recipe's parameters; recipes are left apart by blank lines."""
    values: dict[str, str] = {}
    exported: list[str] = []
    out: list[str] = []
    lines = text.replace("\r\n", "\n").split("\n")
    at = 0
    while at < len(lines):
        line = lines[at]
        at += 1
        if not line.strip() or line.lstrip().startswith("#") or line[0].isspace():
            continue
        if (found := _ASSIGN.match(line)) is not None:
            values[found.group(2)] = _evaluate(found.group(3), values)
            if found.group(1):
                exported.append(found.group(2))
            continue
        header = _HEADER.match(line)
        if header is None:
            continue
        params = dict(values)
        for param in _PARAM.finditer(header.group(2)):
            name, default = param.groups()
            params[name] = _evaluate(default, values) if default else "${" + name + "}"
        body: list[str] = []
        while at < len(lines) and (not lines[at].strip() or lines[at][0].isspace()):
            body.append(lines[at])
            at += 1
        out.append("")
        out.extend(_interpolated(_dedented(body), params))
    head = [f"export {name}={_quoted(values[name])}" for name in exported]
    return "\n".join(head + out) + "\n"


def _dedented(body: list[str]) -> list[str]:
    """A recipe's lines without their common indentation or a quiet ``@``."""
    indents = [len(line) - len(line.lstrip()) for line in body if line.strip()]
    cut = min(indents, default=0)
    return [line[cut:].removeprefix("@") for line in body]


def _interpolated(body: list[str], params: dict[str, str]) -> list[str]:
    """``body`` with each ``{{expression}}`` replaced by its value."""
    def value(found: re.Match[str]) -> str:
        return _evaluate(found.group(1), params, unknown=True)

    return [re.sub(r"\{\{(.*?)\}\}", value, line) for line in body]


def _evaluate(expression: str, values: dict[str, str], *, unknown: bool = False) -> str:
    """The value of a justfile expression: quoted strings and names joined by ``+`` (and
    ``/``, a path join); a name the file does not set is ``${name}``. What this reader does
    not evaluate (a function call, a conditional) keeps its text as written."""
    expression = expression.strip()
    pieces: list[str] = []
    at = 0
    while at < len(expression):
        found = _PIECE.match(expression, at)
        if found is None:
            return "{{" + expression + "}}" if unknown else expression
        piece = found.group(1)
        at = found.end()
        if piece == "+":
            continue
        if piece == "/":
            pieces.append("/")
        elif piece[0] in "\"'":
            pieces.append(piece[1:-1].replace('\\"', '"') if piece[0] == '"' else piece[1:-1])
        else:
            pieces.append(values.get(piece, "${" + piece + "}"))
    return bounded("".join(pieces), expression, "the pasted justfile")


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"
