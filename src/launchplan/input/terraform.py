"""A Terraform (OpenTofu) file whose Kubernetes resource runs SGLang, read as that manifest.

EKS and GKE blueprints deploy SGLang with the ``kubernetes`` provider: a
``resource "kubernetes_deployment"`` (or ``kubernetes_pod``, ``kubernetes_stateful_set``,
their ``_v1`` spellings) holds a ``container { command = [...] args = [...] env { name =
... value = ... } }`` block in HCL, the same fields a Kubernetes manifest gives in YAML.
Read as shell, its block names were taken for commands. This module reads each such
container as the Kubernetes container it declares and writes them as one Pod's YAML, which
the manifest reader takes from there.

HCL values are read as far as the file fixes them: strings, numbers, lists, a ``locals``
entry it sets (``args = local.sglang_args``), ``concat``, ``tostring`` and ``join`` of
those. A ``var.NAME`` is the caller's (a ``-var`` or a ``.tfvars`` file may set it, whatever
its default), and a conditional on one is decided when the plan runs: such a value stays
open, written ``${var.NAME}`` (the interpolation HCL would fill), never guessed.
"""

from __future__ import annotations

import re
from typing import Any

#: A resource of the Kubernetes provider that runs containers.
_RESOURCE = re.compile(r'^[ \t]*resource[ \t]+"kubernetes_(?:deployment|pod|stateful_set|'
                       r'daemon_set|daemonset|job|cron_job|replication_controller)(?:_v1)?"'
                       r'[ \t]+"[^"]*"[ \t]*\{', re.MULTILINE)
#: A ``container {`` block (``init_container`` blocks start nothing that serves).
_CONTAINER = re.compile(r"(?<![\w\"])container[ \t]*\{")
_LOCALS = re.compile(r"(?<![\w\"])locals[ \t]*\{")
#: HCL's tokens: a heredoc is rare in a container spec and not read.
_TOKEN = re.compile(r'\s+|#[^\n]*|//[^\n]*|/\*.*?\*/|(?P<string>"(?:[^"\\]|\\.)*")'
                    r"|(?P<number>-?\d+(?:\.\d+)?)"
                    r"|(?P<name>[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*|\[\d+\])*)"
                    r"|(?P<punct>==|!=|>=|<=|&&|\|\||[\[\](){},?:=<>!+*/%-])", re.DOTALL)


class _Open(str):
    """A value the file leaves to the plan (a variable, a condition on one): its text."""


def looks_like_terraform(text: str) -> bool:
    """Whether ``text`` is HCL with a Kubernetes resource that declares a container."""
    return bool(_RESOURCE.search(text)) and bool(_CONTAINER.search(text))


def as_manifest(text: str) -> str | None:
    """The containers of the file's Kubernetes resources as one Pod's YAML, or None when
    none of them starts SGLang's launcher (the file is left to the other readers)."""
    from launchplan.input.pasted import launches_sglang

    local = _Locals(_attributes_of_blocks(text, _LOCALS))
    containers = []
    for body in _blocks(text, _CONTAINER):
        attributes = _attributes(body)
        spec: dict[str, Any] = {}
        for key in ("name", "image"):
            if key in attributes:
                spec[key] = _scalar(local.value(attributes[key]))
        for key in ("command", "args"):
            if key in attributes:
                value = local.value(attributes[key])
                spec[key] = ([_scalar(item) for item in value] if isinstance(value, list)
                             else [_scalar(value)])
        env = []
        for entry in _blocks(body, re.compile(r"(?<![\w\"])env[ \t]*\{")):
            pairs = _attributes(entry)
            if "name" in pairs and "value" in pairs:
                env.append({"name": _scalar(local.value(pairs["name"])),
                            "value": _scalar(local.value(pairs["value"]))})
        if env:
            spec["env"] = env
        for resources in _blocks(body, re.compile(r"(?<![\w\"])resources[ \t]*\{")):
            limits = _attributes(resources).get("limits")
            found = local.value(limits) if limits is not None else None
            if isinstance(found, dict):
                spec["resources"] = {"limits": {k: _scalar(v) for k, v in found.items()}}
        containers.append(spec)
    if not any(launches_sglang([*c.get("command", []), *c.get("args", [])])
               for c in containers):
        return None
    import yaml

    return yaml.safe_dump({"apiVersion": "v1", "kind": "Pod",
                           "spec": {"containers": containers}}, sort_keys=False)


def _scalar(value: Any) -> str:
    """A value as the text a container field gets: an open one as its reference."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return _Open("${" + "…" + "}")
    return str(value)


def _blocks(text: str, opener: re.Pattern[str]) -> list[str]:
    """The bodies of the blocks ``opener`` starts (its match ends at the ``{``), outermost
    first, in order; a block inside another of the same kind is its own too."""
    out: list[str] = []
    for match in opener.finditer(text):
        end = _closing(text, match.end())
        if end is not None:
            out.append(text[match.end():end])
    return out


def _attributes_of_blocks(text: str, opener: re.Pattern[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for body in _blocks(text, opener):
        found.update(_attributes(body))
    return found


def _closing(text: str, start: int) -> int | None:
    """The index of the brace that closes the block whose body starts at ``start``."""
    depth = 0
    for token in _TOKEN.finditer(text, start):
        punct = token.group("punct")
        if punct in ("{", "[", "("):
            depth += 1
        elif punct in ("}", "]", ")"):
            if depth == 0:
                return token.start() if punct == "}" else None
            depth -= 1
    return None


def _attributes(body: str) -> dict[str, str]:
    """``NAME = expression`` at the top level of a block's ``body`` (its nested blocks'
    own left out): each expression's text."""
    tokens = [t for t in _TOKEN.finditer(body) if t.lastgroup is not None]
    out: dict[str, str] = {}
    depth = 0
    at = 0
    while at < len(tokens):
        token = tokens[at]
        punct = token.group("punct")
        if depth == 0 and token.group("name") and at + 1 < len(tokens) \
                and tokens[at + 1].group("punct") == "=":
            start = tokens[at + 1].end()
            end_at = at + 2
            inner = 0
            while end_at < len(tokens):
                mark = tokens[end_at].group("punct")
                if mark in ("[", "(", "{"):
                    inner += 1
                elif mark in ("]", ")", "}"):
                    inner -= 1
                if inner == 0 and end_at + 1 < len(tokens) and \
                        body.count("\n", tokens[end_at].end(), tokens[end_at + 1].start()) \
                        and tokens[end_at + 1].group("punct") not in ("?", ":") \
                        and tokens[end_at].group("punct") not in ("?", ":", ","):
                    break
                end_at += 1
            last = tokens[min(end_at, len(tokens) - 1)]
            out[token.group("name")] = body[start:last.end()]
            at = end_at + 1
            continue
        if punct in ("{", "[", "("):
            depth += 1
        elif punct in ("}", "]", ")"):
            depth -= 1
        at += 1
    return out


class _Locals:
    """The file's ``locals`` entries, each worked out once, on demand."""

    def __init__(self, written: dict[str, str]) -> None:
        self.written = written
        self.done: dict[str, Any] = {}
        self.busy: set[str] = set()

    def value(self, expression: str) -> Any:
        tokens = [t.group(0) for t in _TOKEN.finditer(expression) if t.lastgroup is not None]
        try:
            value, at = self._expr(tokens, 0)
        except (IndexError, ValueError):
            return _Open("${" + " ".join(tokens) + "}")
        return value if at == len(tokens) else _Open("${" + " ".join(tokens) + "}")

    def _local(self, name: str) -> Any:
        if name in self.done:
            return self.done[name]
        if name not in self.written or name in self.busy:
            return _Open("${local." + name + "}")
        self.busy.add(name)
        found = self.value(self.written[name])
        self.busy.discard(name)
        self.done[name] = found
        return found

    def _sequence(self, tokens: list[str], at: int, close: str) -> tuple[list[Any], int]:
        """The comma-separated expressions from ``at`` up to ``close`` (a list's items, a
        call's arguments), and the position after ``close``."""
        items: list[Any] = []
        while tokens[at] != close:
            item, at = self._expr(tokens, at)
            items.append(item)
            if tokens[at] == ",":
                at += 1
        return items, at + 1

    def _expr(self, tokens: list[str], at: int) -> tuple[Any, int]:
        start = at
        value, at = self._primary(tokens, at)
        if at < len(tokens) and tokens[at] in ("==", "!=", ">=", "<=", ">", "<", "&&", "||",
                                               "+", "-", "*", "/", "%"):
            value, at = self._primary(tokens, at + 1)  # arithmetic or a test: not worked out
            value = _Open("${" + " ".join(tokens[start:at]) + "}")
        if at < len(tokens) and tokens[at] == "?":
            condition = value
            yes, at = self._expr(tokens, at + 1)
            if at >= len(tokens) or tokens[at] != ":":
                raise ValueError("a conditional without ':'")
            no, at = self._expr(tokens, at + 1)
            if isinstance(condition, bool):
                return (yes if condition else no), at
            return _Open("${" + " ".join(tokens[start:at]) + "}"), at
        return value, at

    def _primary(self, tokens: list[str], at: int) -> tuple[Any, int]:
        token = tokens[at]
        if token.startswith('"'):
            return self._string(token[1:-1]), at + 1
        if re.fullmatch(r"-?\d+(?:\.\d+)?", token):
            return token, at + 1
        if token in ("true", "false"):
            return token == "true", at + 1
        if token == "[":
            return self._sequence(tokens, at + 1, "]")
        if token == "{":
            found: dict[str, Any] = {}
            at += 1
            while tokens[at] != "}":
                key = tokens[at].strip('"')
                if tokens[at + 1] not in ("=", ":"):
                    raise ValueError("an object item without '='")
                item, at = self._expr(tokens, at + 2)
                found[key] = item
                if tokens[at] == ",":
                    at += 1
            return found, at + 1
        if token == "(":
            value, at = self._expr(tokens, at + 1)
            return value, at + 1
        if at + 1 < len(tokens) and tokens[at + 1] == "(":
            arguments, at = self._sequence(tokens, at + 2, ")")
            return _called(token, arguments), at
        if token.startswith("local."):
            name = token[len("local."):]
            if re.fullmatch(r"[\w-]+", name):
                return self._local(name), at + 1
        return _Open("${" + token + "}"), at + 1

    def _string(self, text: str) -> str:
        """A quoted string's text: its escapes, and each ``${...}`` it interpolates."""
        text = text.replace('\\"', '"').replace("\\\\", "\\").replace("\\n", "\n")

        def filled(match: re.Match[str]) -> str:
            value = self.value(match.group(1))
            return value if isinstance(value, str) else match.group(0)

        return re.sub(r"\$\{([^{}]*)\}", filled, text)


def _called(function: str, arguments: list[Any]) -> Any:
    """HCL's ``concat``, ``tostring`` and ``join`` of known values; others left open."""
    if function == "concat" and all(isinstance(a, list) for a in arguments):
        return [item for a in arguments for item in a]
    if function == "tostring" and len(arguments) == 1 and isinstance(arguments[0], str):
        return arguments[0]
    if function == "join" and len(arguments) == 2 and isinstance(arguments[0], str) \
            and isinstance(arguments[1], list) and all(isinstance(a, str) for a in arguments[1]):
        return arguments[0].join(arguments[1])
    if function == "concat":  # a list of a condition's outcome: its items are open
        return [item for a in arguments for item in (a if isinstance(a, list) else [a])]
    return _Open("${" + function + "(…)}")
