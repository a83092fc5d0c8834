"""A NixOS module that runs SGLang, read as the script it amounts to.

NixOS starts SGLang as an OCI container (``virtualisation.oci-containers.containers.NAME``:
its ``cmd`` a Nix list of strings, ``"python3" "-m" "sglang.launch_server" ...``, no commas)
or as a systemd service whose ``ExecStart`` is a Nix string or a ``pkgs.writeShellScript``
script (``''...''``). Values come from a ``let ... in`` block (``model = "qwen3-8b"; tp = 2;``)
and are interpolated as ``${model}`` or ``${toString tp}``; the environment is an
``environment = { NAME = "value"; }`` set or a ``serviceConfig.Environment = [ "NAME=value" ]``
list (or a ``let`` name holding one). Nix's ``${...}`` looks like a shell reference, so read as
a shell text every value was left open. Here each binding the module sets to a literal is
filled in, the environment becomes ``export`` lines and the launch (the container's list as
a command line, or the service's script) follows them. A derivation (``${pkgs.python3}``,
``model = pkgs.qwen35-9b-awq``) stays a ``${...}`` reference: its path is known when Nix
builds, not here.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

#: a Nix binding to a literal: ``name = "text";``, ``name = 2;``, ``name = true;``
_BINDING = re.compile(r'^[ \t]*([A-Za-z_][\w-]*)[ \t]*=[ \t]*(?:"((?:[^"\\]|\\.)*)"|'
                      r"(-?\d+(?:\.\d+)?)|(true|false))[ \t]*;", re.MULTILINE)
#: an interpolation of a name, or of ``toString name``
_INTERPOLATION = re.compile(r"\$\{\s*(?:toString\s+)?([A-Za-z_][\w.-]*)\s*\}")
#: ``environment = { ... };`` (an attribute set of strings)
_ENV_SET = re.compile(r"\benvironment[ \t]*=[ \t]*\{(.*?)\};", re.DOTALL)
_ENV_ENTRY = re.compile(r'([A-Za-z_]\w*)[ \t]*=[ \t]*"((?:[^"\\]|\\.)*)"[ \t]*;')
#: ``Environment = [ "A=1" "B=2" ];`` or a ``let`` name holding such a list
_LIST = re.compile(r"\b([A-Za-z_][\w-]*)[ \t]*=[ \t]*\[(.*?)\][ \t]*;", re.DOTALL)
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
#: a multi-line string ``''...''`` (a ``writeShellScript`` body) or an ``ExecStart`` string
_INDENTED = re.compile(r"''(.*?)''", re.DOTALL)
_EXEC_START = re.compile(r'\bExecStart[ \t]*=[ \t]*"((?:[^"\\]|\\.)*)"[ \t]*;')


def looks_like_nix_module(text: str) -> bool:
    """Whether ``text`` is a Nix expression (a module's arguments, ``let ... in``,
    ``pkgs.``, ``oci-containers``) that mentions SGLang."""
    return "sglang" in text and ("pkgs" in text or "oci-containers" in text) and bool(
        re.search(r"(?:^|\n)\s*(?:\{[^}\n]*\bpkgs\b[^}\n]*\}:|let\b)|oci-containers", text))


def as_script(text: str) -> str | None:
    """The shell script the module's SGLang launch amounts to (see the module), or None
    when no launch is found in it."""
    text = re.sub(r"(?m)(^|[ \t])#.*$", r"\1", text)  # comments
    values = {m.group(1): m.group(2) if m.group(2) is not None else m.group(3) or m.group(4)
              for m in _BINDING.finditer(text)}
    lists = {m.group(1): _STRING.findall(m.group(2)) for m in _LIST.finditer(text)}

    def filled(value: str) -> str:
        return _INTERPOLATION.sub(lambda m: values.get(m.group(1), m.group(0)), value)

    for _ in range(3):  # a binding built from others (``flags = "--tp ${toString tp}"``)
        values = {name: filled(value) for name, value in values.items()}

    launch = _launch(text, lists, filled)
    if launch is None:
        return None
    env: list[str] = []
    for block in _ENV_SET.finditer(text):
        env += [f"{name}={filled(value)}" for name, value in _ENV_ENTRY.findall(block.group(1))]
    for match in re.finditer(r"\bEnvironment[ \t]*=[ \t]*(\[.*?\]|[A-Za-z_][\w-]*)[ \t]*;",
                             text, re.DOTALL):
        given = match.group(1)
        items = _STRING.findall(given) if given.startswith("[") else lists.get(given, [])
        env += [filled(item) for item in items if "=" in item]
    exports = [f"export {shlex.quote(pair)}" for pair in env
               if re.match(r"[A-Za-z_]\w*=", pair)]
    return "\n".join([*exports, launch])


def _launch(text: str, lists: dict[str, list[str]],
            filled: Callable[[str], str]) -> str | None:
    """The launch: an OCI container's ``cmd`` list as one command line, else the
    ``ExecStart`` string or ``''...''`` script that starts SGLang."""
    for name, items in lists.items():  # an OCI container's cmd list
        words = [filled(item) for item in items]
        if name in ("cmd", "entrypoint") and any("sglang" in w for w in words):
            return " ".join(shlex.quote(w) if "${" not in w else w for w in words)
    for pattern in (_EXEC_START, _INDENTED):
        for match in pattern.finditer(text):
            body = match.group(1)
            if "sglang" in body and ("launch_server" in body or "serve" in body):
                return filled(body.replace('\\"', '"'))
    return None
