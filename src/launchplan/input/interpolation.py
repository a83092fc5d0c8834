"""What a tool fills into a pasted file before anything in it runs.

Docker Compose interpolates ``${VAR:-default}`` (and ``$$``) when it loads a Compose file, and
GitHub Actions fills ``${{ env.X }}``, ``${{ matrix.X }}`` and ``${{ inputs.X }}`` into a step
before the step's shell sees it: the launch a container or a step runs is the file with those
filled in. A project's ``.env`` pasted with the Compose file (its ``NAME=VALUE`` lines) is
read; the machine's own shell variables are not in the paste, so a name neither sets and
with no default stays as written (reported as a value the paste leaves open).
"""

from __future__ import annotations

import re
from typing import Any


def filled_in(doc: Any, dotenv: dict[str, str] | None = None) -> Any:
    """``doc`` (one loaded YAML document) as its tool reads it before running it;
    ``dotenv``: a Compose project's ``.env`` pasted with it (``NAME=VALUE`` lines)."""
    if _is_compose(doc):
        return _compose_interpolated(doc, dotenv or {})
    if _is_workflow(doc):
        return _actions_filled(doc)
    return doc


def _is_compose(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("services"), dict)


#: Compose's interpolation: ``$$`` (a literal ``$``), ``${NAME}``, ``$NAME`` and the forms with
#: a word, ``${NAME:-word}`` / ``${NAME-word}`` (the word when unset), ``${NAME:+word}`` /
#: ``${NAME+word}`` (the word when set) and ``${NAME:?message}`` / ``${NAME?message}``.
_COMPOSE_REFERENCE = re.compile(
    r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+?])((?:[^{}]|\{[^{}]*\})*))?\}")


def _compose_interpolated(node: Any, dotenv: dict[str, str]) -> Any:
    """A Compose file's values as Compose reads them before it runs anything: a name the
    pasted ``.env`` sets is its value, ``${NAME:-default}`` of an unset (or, with the colon,
    empty) one its default, ``${NAME:+word}`` the word when set, ``$$`` a ``$``. The
    machine's shell is not in the paste: a name neither sets is unset, and a reference with
    no default stays as written (reported as a value the paste leaves open)."""
    if isinstance(node, dict):
        return {key: _compose_interpolated(value, dotenv) for key, value in node.items()}
    if isinstance(node, list):
        return [_compose_interpolated(item, dotenv) for item in node]
    if isinstance(node, str) and "$" in node:
        return _COMPOSE_REFERENCE.sub(lambda m: _compose_value(m, dotenv), node)
    return node


def _compose_value(match: re.Match[str], dotenv: dict[str, str]) -> str:
    if match.group(0) == "$$":
        return "$"
    name, op, word = match.group(1), match.group(2) or "", match.group(3) or ""
    value = dotenv.get(name)
    usable = value is not None and (value != "" or not op.startswith(":"))
    if op.endswith("-"):
        return value if usable and value is not None else _COMPOSE_REFERENCE.sub(
            lambda m: _compose_value(m, dotenv), word)
    if op.endswith("+"):
        return _COMPOSE_REFERENCE.sub(lambda m: _compose_value(m, dotenv), word) \
            if usable else ""
    return value if value is not None else "${" + name + "}"


#: A ``.env`` line at the start of a line: ``NAME=VALUE`` (Compose's own file format; an
#: ``export`` before it is taken too), the value unquoted, or in single or double quotes.
_DOTENV_LINE = re.compile(r"^(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.MULTILINE)


def dotenv_apart(text: str) -> tuple[str, dict[str, str]]:
    """A Compose file pasted with its project's ``.env`` (``# .env`` lines of ``NAME=VALUE``
    before or after ``services:``): the YAML without those lines, and their values, which
    Compose interpolates into the file. Text with no ``services:`` key comes back as it is."""
    if not re.search(r"^services[ \t]*:", text, re.MULTILINE):
        return text, {}
    values: dict[str, str] = {}
    for match in _DOTENV_LINE.finditer(text):
        raw = match.group(2).strip()
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
            raw = raw[1:-1]
        elif raw.startswith("#"):  # ``NAME= # note``: set, to nothing
            raw = ""
        elif " #" in raw:  # an unquoted value ends at a comment
            raw = raw.split(" #", 1)[0].rstrip()
        values[match.group(1)] = raw
    if not values:
        return text, {}
    return _DOTENV_LINE.sub("", text), values


def _is_workflow(doc: Any) -> bool:
    """A GitHub Actions (or Gitea/Forgejo) workflow: jobs with ``runs-on``."""
    jobs = doc.get("jobs") if isinstance(doc, dict) else None
    return isinstance(jobs, dict) and any(isinstance(job, dict) and "runs-on" in job
                                          for job in jobs.values())


#: An Actions expression that names one value: ``${{ env.TP }}``, ``${{ matrix.model }}``,
#: ``${{ inputs.tp }}``, ``${{ github.event.inputs.tp }}``.
_ACTIONS_VALUE = re.compile(r"\$\{\{\s*((?:env|matrix|inputs|github\.event\.inputs)\."
                            r"[A-Za-z_][\w-]*)\s*\}\}")


def _actions_filled(doc: dict[Any, Any]) -> dict[Any, Any]:
    """A workflow with the expressions Actions fills before a step's shell runs: ``env.X``
    from the workflow's, job's and step's ``env``, ``matrix.X`` as the first combination
    (as a loop is read as its first run), ``inputs.X`` as a manual run's default."""
    trigger = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare ``on`` key as true
    dispatch = trigger.get("workflow_dispatch") if isinstance(trigger, dict) else None
    declared = dispatch.get("inputs") if isinstance(dispatch, dict) else None
    known: dict[str, str] = {}
    for name, spec in (declared or {}).items():
        if isinstance(spec, dict) and spec.get("default") is not None:
            known[f"inputs.{name}"] = known[f"github.event.inputs.{name}"] = \
                _text(spec["default"])
    known.update(_scoped("env", doc.get("env")))
    jobs = dict(doc["jobs"])
    for name, job in jobs.items():
        if not isinstance(job, dict):
            continue
        here = {**known, **_scoped("env", job.get("env"))}
        strategy = job.get("strategy")
        matrix = strategy.get("matrix") if isinstance(strategy, dict) else None
        if isinstance(matrix, dict):
            here.update({f"matrix.{key}": _text(values[0] if isinstance(values, list)
                                                else values)
                         for key, values in matrix.items()
                         if isinstance(key, str) and values not in ([], None)
                         and key not in ("include", "exclude")})
        steps = job.get("steps")
        filled = _filled(job, here)
        if isinstance(steps, list):
            filled["steps"] = [_filled(step, {**here, **_scoped("env", step.get("env"))})
                               if isinstance(step, dict) else step for step in steps]
        jobs[name] = filled
    return {**doc, "jobs": jobs}


def _scoped(prefix: str, mapping: Any) -> dict[str, str]:
    if not isinstance(mapping, dict):
        return {}
    return {f"{prefix}.{key}": _text(value) for key, value in mapping.items()
            if value is not None and not isinstance(value, (dict, list))}


def _filled(node: Any, known: dict[str, str]) -> Any:
    """``node`` with each ``${{ NAME }}`` of ``known`` replaced (others as written)."""
    if isinstance(node, dict):
        return {key: _filled(value, known) for key, value in node.items()}
    if isinstance(node, list):
        return [_filled(item, known) for item in node]
    if isinstance(node, str) and "${{" in node:
        return _ACTIONS_VALUE.sub(lambda m: known.get(m.group(1), m.group(0)), node)
    return node


def _text(value: Any) -> str:
    """A YAML scalar as the text a tool writes it (``true`` for YAML's true)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
