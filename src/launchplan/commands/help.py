"""Help that scales to 546 flags: grouped by namespace, and searchable.

``--help`` lists every SGLang flag under its namespace with launchplan's one-line
description; ``--help=GROUP`` shows one namespace, ``--help=FLAG`` one flag in full, and
``--help=WORD`` searches flag names, namespaces and descriptions (as vLLM's help does).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from launchplan.errors import InputError

DESCRIPTIONS = Path(__file__).parents[1] / "input" / "data" / "descriptions.json"


@cache
def descriptions() -> tuple[dict[str, str], dict[str, str]]:
    """(field → one line, namespace → one line), written for launchplan."""
    try:
        data = json.loads(DESCRIPTIONS.read_text())
    except (OSError, ValueError):
        return {}, {}
    return data.get("descriptions", {}), data.get("groups", {})


def _flag_line(name: str) -> str:
    from launchplan.input.fields import FIELDS

    spec = FIELDS[name]
    flags = ", ".join(spec.flags) if spec.flags else f"({name}: keyword only)"
    text = descriptions()[0].get(name, "")
    return f"  {flags:44} {text}".rstrip()


def grouped() -> str:
    from launchplan.input.fields import GROUPS

    fields, groups = descriptions()
    lines = ["SGLang 0.5.23 flags, by namespace (--help=GROUP, --help=FLAG or --help=WORD):"]
    for group, names in GROUPS.items():
        lines.append("")
        lines.append(f"{group}: {groups.get(group, '')}".rstrip(": "))
        lines.extend(_flag_line(n) for n in names)
    return "\n".join(lines) + "\n"


def topic(query: str) -> str:
    """Help for one namespace, one flag, or every flag matching a word."""
    from launchplan.input.fields import FIELDS, FLAG_TO_FIELD, GROUPS

    fields, groups = descriptions()
    q = query.strip()
    if q in GROUPS:
        head = f"{q}: {groups.get(q, '')}".rstrip(": ")
        return head + "\n" + "\n".join(_flag_line(n) for n in GROUPS[q]) + "\n"
    name = FLAG_TO_FIELD.get(q) or FLAG_TO_FIELD.get("--" + q) or (q if q in FIELDS else None)
    if name is None and q.replace("-", "_") in FIELDS:
        name = q.replace("-", "_")
    if name is not None:
        return detail(name, FIELDS[name], fields.get(name, ""))
    word = q.lower().lstrip("-")
    hits = [n for n, spec in FIELDS.items()
            if word in n.lower() or word.replace("-", "_") in n.lower()
            or word in spec.group.lower() or word in fields.get(n, "").lower()]
    if not hits:
        import difflib

        pool = list(GROUPS) + [f for spec in FIELDS.values() for f in spec.flags]
        close = difflib.get_close_matches(q, pool, n=1)
        raise InputError("--help", "a namespace, a flag or a word found in the help", query,
                         f"did you mean {close[0]}?" if close else None)
    return (f"{len(hits)} flags match {query!r}:\n"
            + "\n".join(_flag_line(n) for n in hits) + "\n")


def detail(name: str, spec: Any, text: str) -> str:
    lines = [f"{', '.join(spec.flags) or '(no flag; keyword only)'}",
             f"  {text}" if text else "",
             f"  field:     {name}  (namespace {spec.group})",
             f"  type:      {spec.type}",
             f"  default:   {spec.default!r}"]
    if spec.choices:
        lines.append(f"  choices:   {', '.join(map(str, spec.choices))}")
    if spec.nargs not in (None, 0):
        lines.append(f"  values:    {spec.nargs}")
    if spec.resolvable:
        lines.append("  resolvable: rules may decide this field")
    if spec.fallback is not None:
        lines.append(f"  fallback:  {spec.fallback!r} when unset and undecided")
    return "\n".join(line for line in lines if line) + "\n"


def help_request(argv: list[str]) -> str | None:
    """The help text an argv asks for (``--help``, ``-h``, ``--help=X``), or None."""
    for token in argv:
        if token in ("-h", "--help"):
            return ""
        if token.startswith("--help="):
            return token.split("=", 1)[1]
    return None
