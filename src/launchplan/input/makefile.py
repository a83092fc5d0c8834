"""Makefiles whose recipes start SGLang, read as the shell lines ``make`` would run.

Projects keep their launch as a make target (``make serve``): tab-indented recipe lines
under ``serve:``, with make's own references in them (``--model-path $(MODEL)``,
``$(or $(MODEL_PATH),meta-llama/Llama-3.2-1B-Instruct)``, ``$(if $(TP),--tp $(TP),)``,
``$$PORT``). The shell never sees those: make expands them first, from the file's variable
assignments (``MODEL ?= ...``, ``TP := 2``). Read as shell text, ``$(MODEL)`` would be a
command substitution and ``$(or ...)`` a word of its own. This module rewrites a Makefile as
the script its recipes amount to: an ``export`` per variable the file exports, then every
recipe line, expanded as make expands it. A variable the file does not set stays as the
shell reference ``${NAME}`` (make would take it from the command line or the environment,
which the paste does not show), so it is reported as the unset variable it is; inside
``$(if ...)`` and ``$(or ...)`` it is empty, as make has it when nothing sets it.
"""

from __future__ import annotations

import re

from launchplan.input.shell_vars import bounded

#: ``NAME = value`` and make's other assignment operators, optionally ``export``ed.
_ASSIGN = re.compile(r"^(export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*"
                     r"(::=|:=|\?=|\+=|!=|=)\s*(.*)$")
#: A rule's header: targets, a colon (not ``:=``), and prerequisites.
_RULE = re.compile(r"^([A-Za-z0-9_.%/${}()-][^:=#\t]*?)\s*::?(?!=)([^=]*)$")
#: The launcher in a recipe line.
_LAUNCHER = re.compile(r"sglang(?:\.launch_server|_router\.launch_server|\s+serve\b)")
#: Make's functions this reader evaluates; any other keeps its text as written.
_FUNCTIONS = frozenset({"or", "and", "if", "strip", "shell"})


def looks_like_makefile(text: str) -> bool:
    """Whether ``text`` is a Makefile with a recipe that starts SGLang's launcher: a rule
    header followed by a tab-indented recipe, and make's own marks (``.PHONY``, ``:=``/
    ``?=`` assignments or ``$(NAME)`` references) so that a Python block is not one."""
    if "\n\t" not in text or not _LAUNCHER.search(text):
        return False
    lines = text.split("\n")
    ruled = any(_RULE.match(line) and i + 1 < len(lines) and lines[i + 1].startswith("\t")
                for i, line in enumerate(lines) if line and not line[0].isspace())
    if not ruled or re.search(r"^\s*(?:def |class |import |from \S+ import )", text, re.M):
        return False
    marked = ".PHONY" in text or re.search(r"\$\((?:[A-Z_][A-Z0-9_]*|or|if|shell) ?", text)
    if not (marked or re.search(r"^\S+\s*(?::=|\?=)", text, re.M)):
        return False
    return all(_makes(line) for line in _logical(lines))


#: Make's directives, which stand at a line's start outside recipes.
_DIRECTIVES = re.compile(r"^-?(?:include|sinclude|export|unexport|override|ifeq|ifneq|ifdef|"
                         r"ifndef|else|endif|define|endef|vpath)\b")


def _makes(line: str) -> bool:
    """Whether a line outside the recipes is make's (blank, a comment, an assignment, a
    rule header, a directive): a page or script with other lines (prose, shell steps
    beside the Makefile) is not read as one, so none of its lines is dropped."""
    stripped = line.strip()
    return (not stripped or line[0] in "\t#" or stripped.startswith("#")
            or bool(_ASSIGN.match(stripped) or _RULE.match(stripped)
                    or _DIRECTIVES.match(stripped)))


def _logical(lines: list[str]) -> list[str]:
    """``lines`` with backslash-continued ones joined (a recipe's continuation lines kept
    under its tab)."""
    out: list[str] = []
    for line in lines:
        if out and out[-1].endswith("\\"):
            out[-1] = out[-1][:-1] + " " + line.strip()
        else:
            out.append(line)
    return out


def as_script(text: str, target: str | None = None) -> str:
    """The shell script the Makefile ``text`` amounts to: ``export NAME=value`` for each
    variable it exports, then each recipe line (its ``@``/``-``/``+`` prefix off) with make's
    references expanded; rules are left apart by blank lines. Given a ``target`` (``make
    serve`` of a Makefile a script writes), only that rule's recipe: what ``make TARGET``
    runs (its prerequisites' recipes build files, they start no server)."""
    values: dict[str, str] = {}
    exported: list[str] = []
    recipes: list[str] = []
    in_rule = False
    wanted = True  # whether the rule being read is one whose recipe is kept
    lines = text.replace("\r\n", "\n").split("\n")
    at = 0
    while at < len(lines):
        line = lines[at]
        at += 1
        if line.startswith("\t") and in_rule:
            recipe = line[1:]
            while recipe.endswith("\\") and at < len(lines):  # make keeps the backslash
                nxt = lines[at]
                at += 1
                recipe += "\n" + (nxt[1:] if nxt.startswith("\t") else nxt)
            if wanted:
                recipes.append(recipe.lstrip("@-+ "))
            continue
        while line.endswith("\\") and at < len(lines):  # a continued assignment or header
            line = line[:-1] + " " + lines[at].strip()
            at += 1
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if (found := _ASSIGN.match(stripped)) is not None:
            how, name, op, value = found.groups()
            if op == "?=" and name in values:
                pass
            elif op == "+=" and name in values:
                values[name] = f"{values[name]} {value}"
            elif op != "!=":
                values[name] = _expand(value, values) if op in (":=", "::=") else value
            if how and how.startswith("export"):
                exported.append(name)
            in_rule = False
            continue
        if stripped.startswith("export "):
            exported.extend(stripped.split()[1:])
            continue
        if (rule := _RULE.match(stripped)) is not None:
            in_rule = True
            wanted = target is None or target in _expand(rule.group(1), values).split()
            if wanted:
                recipes.append("")
            continue
        in_rule = False
    out = [f"export {name}={_quoted(_expand(values[name], values))}"
           for name in exported if name in values]
    out.extend(_expand(recipe, values) for recipe in recipes)
    return "\n".join(out) + "\n"


def default_goal(text: str) -> str | None:
    """The target a bare ``make`` runs: ``.DEFAULT_GOAL``'s, else the first rule's that is
    not a special one (``.PHONY``); None when the file has no rule."""
    goal = re.search(r"^\.DEFAULT_GOAL\s*:?=\s*(\S+)", text, re.M)
    if goal is not None:
        return goal.group(1)
    for line in text.split("\n"):
        rule = _RULE.match(line) if line and not line[0].isspace() else None
        if rule is not None and not rule.group(1).startswith((".", "$")):
            return rule.group(1).split()[0]
    return None


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def _expand(text: str, values: dict[str, str], depth: int = 0, *,
            unset: str | None = None) -> str:
    """``text`` with make's references expanded from ``values``: ``$$`` is ``$``, a set
    variable its (recursively expanded) value, an unset one ``${NAME}`` (or ``unset`` when
    given, as inside a function), and ``or``/``and``/``if``/``strip`` evaluated."""
    out: list[str] = []
    at = 0
    while at < len(text):
        char = text[at]
        if char != "$" or at + 1 >= len(text):
            out.append(char)
            at += 1
            continue
        nxt = text[at + 1]
        if nxt == "$":
            out.append("$")
            at += 2
            continue
        if nxt not in "({":
            out.append(char)  # a one-letter reference or an automatic variable: as written
            at += 1
            continue
        end = _closing(text, at + 1)
        if end is None:
            out.append(text[at:])
            break
        inner = text[at + 2:end]
        out.append(_reference(inner, values, depth, unset, text[at:end + 1]))
        at = end + 1
    return bounded("".join(out), text, "the pasted Makefile")


def _reference(inner: str, values: dict[str, str], depth: int, unset: str | None,
               written: str) -> str:
    """What the reference ``$(inner)`` expands to."""
    if depth > 20:  # a variable that refers to itself: make refuses it; keep it as written
        return written
    name, _, rest = inner.partition(" ")
    if name in _FUNCTIONS and rest:
        args = _arguments(rest)
        inside = [_expand(a, values, depth + 1, unset="") for a in args]
        if name == "or":
            return next((a.strip() for a in inside if a.strip()), "")
        if name == "and":
            return inside[-1].strip() if all(a.strip() for a in inside) else ""
        if name == "if":
            chosen = args[1] if inside[0].strip() else (args[2] if len(args) > 2 else "")
            return _expand(chosen, values, depth + 1, unset=unset).strip()
        if name == "strip":
            return " ".join(",".join(inside).split())
        return "$(" + ",".join(inside) + ")"  # $(shell cmd): what the shell would run
    key = _expand(inner, values, depth + 1, unset="").strip()
    if " " in key or ":" in key or "=" in key:  # a function or substitution not read here
        return written
    if key in values:
        return _expand(values[key], values, depth + 1, unset=unset)
    return unset if unset is not None else "${" + key + "}"


def _closing(text: str, start: int) -> int | None:
    """The index of the bracket closing the one at ``start``."""
    opening = text[start]
    closing = ")" if opening == "(" else "}"
    level = 0
    for at in range(start, len(text)):
        if text[at] == opening:
            level += 1
        elif text[at] == closing:
            level -= 1
            if level == 0:
                return at
    return None


def _arguments(text: str) -> list[str]:
    """A function's comma-separated arguments, commas inside nested references kept."""
    args: list[str] = []
    level = 0
    current: list[str] = []
    for char in text:
        if char in "({":
            level += 1
        elif char in ")}":
            level -= 1
        if char == "," and level == 0:
            args.append("".join(current))
            current = []
        else:
            current.append(char)
    args.append("".join(current))
    return args
