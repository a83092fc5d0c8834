"""Launches written as Python: the offline engine's ``sgl.Engine(...)`` call.

Bug reports about the offline engine paste a script, not a command line: ``llm =
sgl.Engine(model_path="...", tp_size=2, mem_fraction_static=0.8)``, often after
``os.environ["SGLANG_X"] = "1"``. The engine hands its keyword arguments to ``ServerArgs``
as they are, so each is a field. This module reads such a script with ``ast`` (never
running it) and turns the call into the flags that set the same fields, and the
``os.environ`` assignments before it into the launch's environment.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from launchplan.errors import InputError
from launchplan.input.python_launch import quiet_parse

#: A call of the offline engine (``sgl.Engine(``, ``sglang.Engine(``, ``Engine(``), or of
#: the frontend language's ``sgl.Runtime(``, which starts a server from the same keywords.
_CALL = re.compile(r"(?:^|[^\w.])(?:(?:[A-Za-z_][\w]*\.)*Engine|(?:sgl|sglang)\.Runtime)\s*\(")
#: ``Runtime``'s own keywords (how long it waits for its server), not ServerArgs fields.
_RUNTIME_OWN = frozenset({"launch_timeout"})


def looks_like_engine_call(text: str) -> bool:
    return "=" in text and bool(_CALL.search(text))


def engine_launch(text: str, launch: int | None = None) -> tuple[list[str], list[str]]:
    """(flags, env assignments) of the ``launch``-th ``Engine(...)`` call in the script
    ``text`` (in source order, from 1; the first by default): a script that compares two
    settings, or loads a teacher and a student, starts an engine for each."""
    tree = _tree(text)
    env: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            env.extend(environ_assignment(node))
    calls = _calls(tree)
    if not calls:
        raise InputError("the pasted Python", "a call of sgl.Engine(...)", "none")
    call = calls[min(max(launch or 1, 1), len(calls)) - 1]
    return _flags(call, _literals_before(tree, call)), env


def engine_total(text: str) -> int:
    """How many ``Engine(...)`` calls the script ``text`` makes (0 when it is not Python)."""
    try:
        return len(_calls(_tree(text)))
    except InputError:
        return 0


def _tree(text: str) -> ast.Module:
    try:
        return quiet_parse(_dedented(text))
    except SyntaxError as exc:
        script = _inline_script(text)
        if script is not None:
            try:
                return quiet_parse(script)
            except SyntaxError:
                pass
        raise InputError("the pasted Python", "a script holding sgl.Engine(...)",
                         f"{exc.msg} (line {exc.lineno})") from None


def _inline_script(text: str) -> str | None:
    """The program of a shell line that runs Python on one (``python -c "import sglang as
    sgl; llm = sgl.Engine(...)"``), or None."""
    import shlex

    try:
        words = shlex.split(text.strip(), comments=True)
    except ValueError:
        return None
    for at, word in enumerate(words[:-1]):
        if word == "-c" and at > 0 and "python" in words[at - 1].rsplit("/", 1)[-1]:
            return words[at + 1]
    return None


def _calls(tree: ast.Module) -> list[ast.Call]:
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _is_engine(n.func)]
    return sorted(calls, key=lambda n: (n.lineno, n.col_offset))


def _dedented(text: str) -> str:
    """A snippet cut from inside a function or a notebook cell: its common indent off."""
    import textwrap

    return textwrap.dedent(text.strip("\n"))


def _is_engine(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id == "Engine"
    return isinstance(func, ast.Attribute) and (func.attr == "Engine" or _is_runtime(func))


def _is_runtime(func: ast.expr) -> bool:
    """``sgl.Runtime`` / ``sglang.Runtime``: the frontend's server, started from ServerArgs
    keywords as the engine is (sglang/lang/backend/runtime_endpoint.py)."""
    return (isinstance(func, ast.Attribute) and func.attr == "Runtime"
            and isinstance(func.value, ast.Name) and func.value.id in ("sgl", "sglang"))


def environ_assignment(node: ast.Assign) -> list[str]:
    """``os.environ["NAME"] = "value"`` as ``NAME=value`` (literal name and value only)."""
    out = []
    for target in node.targets:
        if isinstance(target, ast.Subscript) and is_environ(target.value):
            try:
                name, value = ast.literal_eval(target.slice), ast.literal_eval(node.value)
            except ValueError:
                continue
            if isinstance(name, str):
                out.append(f"{name}={value}")
    return out


def is_environ(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ")


def _literals_before(tree: ast.Module, call: ast.Call) -> dict[str, ast.expr]:
    """The names the script sets to a literal (``MODEL = "Qwen/..."``, ``args =
    dict(tp_size=2)``, ``kw = {"tp_size": 2}``) before ``call``, the last setting of
    each: what ``Engine(model_path=MODEL, **kw)`` gets when the script runs straight
    through. A name set again inside a branch or loop is still taken at its last value
    before the call: the reading of a script that is not run."""
    found: list[tuple[int, int, str, ast.expr]] = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.lineno < call.lineno):
            found.append((node.lineno, node.col_offset, node.targets[0].id, node.value))
    return {name: value for _, _, name, value in sorted(found, key=lambda f: f[:2])}


def _keywords(call: ast.Call, names: dict[str, ast.expr]) -> list[tuple[str, ast.expr]]:
    """``call``'s keyword arguments, each ``**name`` of a literal mapping the script sets
    spread into its entries."""
    out: list[tuple[str, ast.expr]] = []
    for keyword in call.keywords:
        if keyword.arg is not None:
            out.append((keyword.arg, keyword.value))
            continue
        mapping = keyword.value
        if isinstance(mapping, ast.Name) and mapping.id in names:
            mapping = names[mapping.id]
        if isinstance(mapping, ast.Dict) and all(
                isinstance(k, ast.Constant) and isinstance(k.value, str) for k in mapping.keys):
            out.extend((k.value, v) for k, v in zip(mapping.keys, mapping.values))  # type: ignore[union-attr]
        elif (isinstance(mapping, ast.Call) and isinstance(mapping.func, ast.Name)
              and mapping.func.id == "dict" and not mapping.args
              and all(k.arg is not None for k in mapping.keywords)):
            out.extend((k.arg, k.value) for k in mapping.keywords)  # type: ignore[misc]
        else:  # ``**kwargs`` built at run time: the values are not in the script
            raise InputError("sgl.Engine(**...)", "keyword arguments written out, or a "
                             "mapping the script sets to literals", ast.unparse(keyword.value)[:60])
    return out


def _flags(call: ast.Call, names: dict[str, ast.expr] | None = None) -> list[str]:
    from launchplan.input.fields import FIELDS

    if call.args:
        raise InputError("sgl.Engine(...)", "keyword arguments only (ServerArgs fields)",
                         f"{len(call.args)} positional")
    names = names or {}
    argv: list[str] = []
    own = _RUNTIME_OWN if _is_runtime(call.func) else frozenset()
    for name, expr in _keywords(call, names):
        if name in own:
            continue
        if isinstance(expr, ast.Name) and expr.id in names:
            expr = names[expr.id]  # ``model_path=MODEL`` with ``MODEL = "..."`` above
        spec = FIELDS.get(name)
        try:
            value = ast.literal_eval(expr)
        except (ValueError, SyntaxError):
            if spec is None or spec.nargs == 0 or not spec.flags:
                raise InputError(f"sgl.Engine({name}=...)", "a literal value (a variable's "
                                 "value is not in the pasted text)",
                                 ast.unparse(expr)[:60]) from None
            # a value known only when the script runs (``args.model_path``) stays open, as a
            # shell reference does: a flag given after the paste replaces it, and if none
            # does, the flag is reported with the expression it holds
            argv.extend([spec.flags[0], "${" + "".join(ast.unparse(expr).split()) + "}"])
            continue
        if spec is None:  # the command-line reader names it, with suggestions
            argv.extend([f"--{name.replace('_', '-')}", _text(value)])
            continue
        argv.extend(_flag_words(spec, value))
    return argv


def _flag_words(spec: Any, value: Any) -> list[str]:
    """The flag words that set field ``spec`` to ``value``, as argparse would read them."""
    if value is None:
        return []  # ServerArgs' default
    if not spec.flags:
        raise InputError(f"sgl.Engine({spec.name}=...)", "a field that has a command-line "
                         "flag", spec.name)
    flag = spec.flags[0]
    if spec.action == "BooleanOptionalAction":
        return [flag] if value else [f"--no-{flag[2:]}"]
    if spec.nargs == 0:  # a switch
        if value is True:
            return [flag]
        if value is False and not spec.default:
            return []
        raise InputError(f"sgl.Engine({spec.name}=...)", f"True or False (a switch: {flag})",
                         repr(value))
    if isinstance(value, (list, tuple)):
        return [flag, *map(_text, value)]
    return [flag, _text(value)]


def _text(value: Any) -> str:
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
