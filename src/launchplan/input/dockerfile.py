"""A Dockerfile whose image starts SGLang (whole, or the piece a page quotes): its
``ENTRYPOINT``/``CMD`` and ``ENV``.

Serving repositories ship a short Dockerfile (``FROM lmsysorg/sglang``, ``ENV ...``, ``CMD
["python3", "-m", "sglang.launch_server", ...]``); pasting that file is pasting the launch.
Docker runs the last ``ENTRYPOINT`` followed by the last ``CMD`` (an exec-form JSON array
as it is; a shell form through ``/bin/sh -c``), with the ``ENV`` values set before them in
the container's environment. The file is read as text, never built.
"""

from __future__ import annotations

import json
import re
import shlex

#: A Dockerfile line: an instruction keyword (case-insensitive, by convention upper case).
_INSTRUCTION = re.compile(r"^\s*([A-Za-z]+)(?:\s+(.*))?$", re.DOTALL)
_KEYWORDS = frozenset({"FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY",
                       "ENTRYPOINT", "VOLUME", "USER", "WORKDIR", "ARG", "ONBUILD",
                       "STOPSIGNAL", "HEALTHCHECK", "SHELL", "MAINTAINER"})
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def looks_like_dockerfile(text: str) -> bool:
    """Whether ``text`` is a Dockerfile: it starts (after comments) with ``FROM`` or
    ``ARG`` and every instruction line is one of Docker's; or it is a piece of one that a
    README or an issue quotes ("add to your Dockerfile": ``ENV ...`` then ``CMD [...]``),
    two or more instructions, each keyword in upper case as Dockerfiles write them (a
    shell's ``env A=1 python ...`` is a command, not ``ENV``)."""
    lines = _instructions(text, written=True)
    if not lines or not all(keyword.upper() in _KEYWORDS for keyword, _ in lines) or not any(
            keyword.upper() in ("CMD", "ENTRYPOINT") for keyword, _ in lines):
        return False
    if lines[0][0].upper() in ("FROM", "ARG"):
        return True
    return len(lines) >= 2 and all(keyword.isupper() for keyword, _ in lines)


def dockerfile_launch(text: str) -> tuple[list[str], list[str]]:
    """(words, env assignments): what the image runs (``ENTRYPOINT`` then ``CMD``, each
    the last one given) and its ``ENV`` values, in order."""
    entrypoint: list[str] = []
    cmd: list[str] = []
    env: list[str] = []
    known: dict[str, str] = {}  # ARG defaults and ENV values, as later lines see them
    for keyword, rest in _instructions(text):
        if keyword == "ARG":
            name, eq, default = rest.partition("=")
            if eq and _ENV_NAME.match(name.strip()):
                known[name.strip()] = default.strip().strip("\"'")
        elif keyword == "ENV":
            # the builder fills ${NAME} in an ENV value from the ARGs and ENVs before it
            pairs = [f"{n}={_filled(v, known)}" for n, _, v in
                     (pair.partition("=") for pair in _env_pairs(rest))]
            env.extend(pairs)
            known.update(pair.split("=", 1) for pair in pairs)
        elif keyword == "ENTRYPOINT":
            entrypoint = _command(rest)
            cmd = []  # Docker resets an inherited CMD when ENTRYPOINT is set
        elif keyword == "CMD":
            cmd = _command(rest)
    return entrypoint + cmd, env


_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def _filled(value: str, known: dict[str, str]) -> str:
    """``value`` with each ``$NAME``/``${NAME}`` the Dockerfile has set replaced."""
    return _REFERENCE.sub(lambda m: known.get(m.group(1) or m.group(2), m.group(0)), value)


def shell_script(words: list[str]) -> str | None:
    """The script of an image command that runs a shell (``["sh", "-c", "python3 -m ..."]``,
    ``ENTRYPOINT ["/bin/bash", "-c", ...]``, a shell form), or None."""
    if len(words) >= 3 and words[0].rsplit("/", 1)[-1] in ("sh", "bash", "dash", "zsh") \
            and re.fullmatch(r"-[a-z]*c", words[1]):
        return words[2]
    return None


def _instructions(text: str, written: bool = False) -> list[tuple[str, str]]:
    """(KEYWORD, rest) per instruction, continuation lines joined, comments skipped: a
    comment or empty line inside a continued instruction too (Docker drops comment lines
    before it joins continuations, so ``RUN a && \\`` then ``# note`` then ``b`` is one
    ``RUN``). The keyword in upper case, or as ``written``."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        match = _INSTRUCTION.match(pending + line)
        pending = ""
        if match:
            keyword = match.group(1) if written else match.group(1).upper()
            out.append((keyword, (match.group(2) or "").strip()))
        else:
            out.append(("", line))
    return out


def _command(rest: str) -> list[str]:
    """An exec form's items, or a shell form as ``/bin/sh -c`` runs it."""
    items = exec_form(rest)
    return items if items is not None else ["/bin/sh", "-c", rest]


def exec_form(text: str) -> list[str] | None:
    """The words of an exec form (a JSON array of strings: Docker's ``CMD [...]``, Podman's
    ``--entrypoint '[...]'``), or None for anything else."""
    if not text.startswith("["):
        return None
    try:
        items = json.loads(text)
    except ValueError:
        return None
    if isinstance(items, list) and all(isinstance(i, str) for i in items):
        return items
    return None


def _env_pairs(rest: str) -> list[str]:
    """``ENV A=1 B="two"`` or the older ``ENV NAME value`` form, as ``NAME=VALUE``."""
    try:
        words = shlex.split(rest)
    except ValueError:
        return []
    if words and "=" not in words[0]:
        return [f"{words[0]}={' '.join(words[1:])}"] if _ENV_NAME.match(words[0]) else []
    return [w for w in words if "=" in w and _ENV_NAME.match(w.partition("=")[0])]
