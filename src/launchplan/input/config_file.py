"""``--config FILE.yaml``: SGLang's YAML merger, rebuilt.

SGLang does not read the file into fields: it turns each entry into command-line tokens, puts
them in front of the remaining argv and lets its parser do the rest. That is why the command
line beats the file, why keys must be spelled like flags, and why a ``false`` cannot switch a
store-true flag off. We keep that shape so every quirk follows from the same parse; the
differences are deliberate limits (size bound, strict UTF-8) and that problems become
:class:`InputError` instead of tracebacks.

PyYAML is imported here, lazily: only command lines that use ``--config`` pay for it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import PurePath
from typing import Any

from launchplan.errors import InputError
from launchplan.input.fields import SGLANG_VERSION, release_table
from launchplan.input.yaml_bound import check_expansion

MAX_CONFIG_BYTES = 1 << 20
"""launchplan's own bound: a server config is a few KiB; anything near this is a mistake."""

_YAML_SUFFIXES = (".yaml", ".yml")


@dataclass(slots=True)
class ConfigExpansion:
    """argv with ``--config PATH`` replaced by the tokens SGLang derives from the file."""

    path: str
    tokens: list[str]
    rest: list[str]
    notices: list[str] = field(default_factory=list)


def expand_config(argv: Sequence[str], release: str = SGLANG_VERSION) -> ConfigExpansion | None:
    """Apply SGLang's merger to ``argv``; None when the exact token ``--config`` is absent.

    Only that exact token triggers it (``--config=FILE`` does not); the path is the next
    token, whatever it looks like.
    """
    where = [i for i, token in enumerate(argv) if token == "--config"]
    if not where:
        return None
    if len(where) > 1:
        raise InputError("--config", "a single config file", None,
                         f"--config appears {len(where)} times")
    at = where[0]
    if at == len(argv) - 1:
        raise InputError("--config", "a YAML file path after it")
    path = argv[at + 1]
    if not isinstance(path, str):
        raise InputError("--config", "a YAML file path after it", path)
    _check_named(path)
    data = load_config(path)
    tokens, notices = config_tokens(data, path, release)
    return ConfigExpansion(path, tokens, [*argv[:at], *argv[at + 2:]], notices)


#: What a config path the pasted text leaves open can be completed with.
_OPEN_CONFIG_HINT = ("the pasted text leaves the file open: paste the YAML with the launch "
                     "(the file's keys as a block beside the command), or put the path of a "
                     "file on this machine in its place")


def _check_named(path: str) -> None:
    """A path the pasted text leaves open (``$CONFIG``, ``<file>``, ``{{ .Values.config }}``)
    is bad input saying so, not a file that was looked for and not found."""
    from launchplan.input import shell_vars

    if (shell_vars.open_reference(path) or shell_vars.placeholder(path)
            or shell_vars.template_word(path) or shell_vars.actions_expression(path)):
        raise InputError("--config", "a YAML file path", path, _OPEN_CONFIG_HINT)


def load_config(path: str) -> dict[Any, Any]:
    """Read the YAML mapping at ``path`` with SGLang's checks (suffix, existence, root)."""
    # SGLang tests pathlib's notion of the suffix, case-insensitively.
    if PurePath(path).suffix.lower() not in _YAML_SUFFIXES:
        raise InputError("--config", "a .yaml or .yml file", path)
    if not os.path.exists(path):
        raise InputError("--config", "an existing file", path)
    if not os.path.isfile(path):
        raise InputError("--config", "a regular file", path)
    try:
        with open(path, "rb") as fh:
            blob = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise InputError("--config", "a readable file", path, exc.strerror) from None
    if len(blob) > MAX_CONFIG_BYTES:
        raise InputError("--config", f"a file of at most {MAX_CONFIG_BYTES // 1024} KiB", path)
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("--config", "a UTF-8 text file", path) from None

    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.constructor.ConstructorError as exc:
        raise InputError(f"--config {path}", "plain YAML data (no !!python or custom tags)",
                         None, _yaml_problem(exc)) from None
    except yaml.YAMLError as exc:
        raise InputError(f"--config {path}", "valid YAML", None, _yaml_problem(exc)) from None
    except RecursionError:
        raise InputError(f"--config {path}", "YAML of reasonable nesting depth") from None
    if data is None:
        return {}
    check_expansion(data, f"--config {path}")
    if not isinstance(data, dict):
        raise InputError(f"--config {path}", "a mapping of option names to values at the top "
                         "level", None, f"it holds a {_yaml_kind(data)}")
    return data


def config_tokens(data: dict[Any, Any], path: str = "config file",
                  release: str = SGLANG_VERSION) -> tuple[list[str], list[str]]:
    """Turn a config mapping into argv tokens exactly as SGLang does, plus notices.

    Keys are emitted as written (``--`` + key); only the classification of a key (store-true,
    unsupported) normalises hyphens to underscores.
    """
    store_true, unsupported = _key_classes(release)
    tokens: list[str] = []
    notices: list[str] = []
    for key, value in data.items():
        if not isinstance(key, str):
            raise InputError(f"--config {path}", "option names (text) as keys", key)
        norm = key.replace("-", "_")
        if norm in unsupported:
            raise InputError(f"--config {path}: key {key!r}",
                             "an option SGLang can read from a config file",
                             None, f"{unsupported[norm]} only works on the command line")
        flag = "--" + key
        if isinstance(value, bool):
            if norm in store_true:
                if value:
                    tokens.append(flag)
                else:
                    notices.append(f"{path}: '{key}: false' has no effect: SGLang adds a switch "
                                   "only for true and cannot turn one off from a config file")
            else:
                tokens += (flag, "true" if value else "false")
        elif isinstance(value, list):
            if value:
                tokens.append(flag)
                tokens.extend(str(item) for item in value)
            else:
                notices.append(f"{path}: '{key}: []' is skipped: SGLang passes nothing for "
                               "an empty list, so the default stays")
        elif isinstance(value, dict):
            try:
                tokens += (flag, json.dumps(value))
            except (TypeError, ValueError) as exc:
                raise InputError(f"--config {path}: key {key!r}",
                                 "a mapping that can be written as JSON", None,
                                 str(exc)) from None
        else:
            tokens += (flag, str(value))
    return tokens, notices


@cache
def _key_classes(release: str) -> tuple[frozenset[str], dict[str, str]]:
    """Config keys of store-true flags, and unsupported keys → the flag that makes them so.

    SGLang supports store-true flags and flags that take exactly one token group (plain
    ``store`` of any nargs, or any action with no nargs); anything else (``--x/--no-x``,
    retired switches, the LoRA path action) is refused unless a supported flag shares the key.
    """
    store_true: set[str] = set()
    supported: set[str] = {"config"}
    refused: dict[str, str] = {}
    table = release_table(release)
    for spec in table.fields.values():
        if not spec.flags:
            continue
        keys = {spec.name, *(f[2:].replace("-", "_") for f in spec.flags if f[:2] == "--")}
        if spec.action == "_StoreTrueAction":
            store_true |= keys
            supported |= keys
        elif spec.action == "_StoreAction" or spec.nargs is None:
            supported |= keys
        else:
            for key in keys:
                refused.setdefault(key, spec.flags[0])
    for extra in table.extra_flags:
        supported |= {extra.field, extra.flag[2:].replace("-", "_")}
    unsupported = {k: flag for k, flag in refused.items() if k not in supported}
    return frozenset(store_true), unsupported


def _yaml_problem(exc: Exception) -> str:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        return f"{problem} at line {mark.line + 1}"
    return str(problem)


def _yaml_kind(data: object) -> str:
    if isinstance(data, list):
        return "list"
    if isinstance(data, str):
        return "string"
    return type(data).__name__
