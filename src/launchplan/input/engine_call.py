"""Launches written as Python: the offline engine's ``sgl.Engine(...)`` call.

Bug reports about the offline engine paste a script, not a command line: ``llm =
sgl.Engine(model_path="...", tp_size=2, mem_fraction_static=0.8)``, often after
``os.environ["SGLANG_X"] = "1"``. The engine hands its keyword arguments to ``ServerArgs``
as they are, so each is a field. This module reads such a script with ``ast`` (never
running it) and turns the call into the flags that set the same fields, and the
``os.environ`` assignments before it into the launch's environment.

Ray hands an SGLang engine its keywords the same way: Ray Serve's ``LLMConfig(...,
engine_kwargs={...})`` (with ``server_cls=SGLangServer`` or ``build_sglang_openai_app``) and
Ray Data's ``SGLangEngineProcessorConfig(model_source=..., engine_kwargs=dict(...))``. Their
``engine_kwargs`` are the engine's keywords, and the model they load, when those name none, is
the config's ``model_source``. Flyte's ``SGLangAppEnvironment(model_hf_path=..., extra_args=[...])``
starts the server with that model and those command-line words.

A script may also build the arguments itself and start SGLang's HTTP server with them:
``server_args = ServerArgs(model_path=..., tp_size=2)`` then ``launch_server(server_args)``
(``launch_server`` of ``sglang.srt.entrypoints.http_server``, or ``run_server`` of
``sglang.launch_server``). The server runs with that object as it is, so the ``ServerArgs``
call's keywords are the launch's fields, as they are for ``Engine(server_args=...)``.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from pathlib import PurePath
from typing import Any

from launchplan.errors import InputError
from launchplan.input import shell_vars
from launchplan.input.python_flow import ancestors, loop_bindings
from launchplan.input.python_literals import literal_pair, quiet_parse, shortened

#: A call of the offline engine (``sgl.Engine(``, ``sglang.Engine(``, ``Engine(``), or of
#: the frontend language's ``sgl.Runtime(``, which starts a server from the same keywords.
_CALL = re.compile(r"(?:^|[^\w.])(?:(?:[A-Za-z_][\w]*\.)*Engine|(?:sgl|sglang)\.Runtime)\s*\(")
#: Ray's configs that start an SGLang engine from their ``engine_kwargs`` (Ray Serve's
#: ``LLMConfig`` serves vLLM too: it counts only in a script that names SGLang).
_RAY_CONFIGS = frozenset({"LLMConfig", "SGLangEngineProcessorConfig"})
_RAY_CALL = re.compile(r"(?:^|[^\w])(?:LLMConfig|SGLangEngineProcessorConfig)\s*\(")
#: Flyte's app of an SGLang server: its model and the launch's further command-line words.
_FLYTE_APP = "SGLangAppEnvironment"
#: ``Runtime``'s own keywords (how long it waits for its server), not ServerArgs fields.
_RUNTIME_OWN = frozenset({"launch_timeout"})


#: ``Runtime`` imported by name from an SGLang module (``from sglang.srt.server import
#: Runtime``, as 2024 scripts did), then called bare.
_RUNTIME_IMPORT = re.compile(r"^\s*from\s+sglang[\w.]*\s+import\s+[^\n]*\bRuntime\b", re.M)


#: SGLang's server started in the script from a ServerArgs object it builds: the HTTP
#: server's ``launch_server(server_args)``, or ``run_server(server_args)`` of the module
#: ``python -m sglang.launch_server`` runs.
_SERVER_STARTERS = frozenset({"launch_server", "run_server"})
_SERVER_START = re.compile(r"(?:^|[^\w])(?:launch_server|run_server)\s*\(")


def looks_like_engine_call(text: str) -> bool:
    return "=" in text and (bool(_CALL.search(text)) or _ray_sglang(text)
                            or _bare_runtime(text) or _server_started(text))


def _server_started(text: str) -> bool:
    """Whether ``text`` is a Python script that starts SGLang's server from a
    ``ServerArgs(...)`` it builds (:func:`_server_args_launches`). A shell paste that only
    quotes such a call (a traceback's ``launch_server(server_args)`` under a logged
    ``server_args=ServerArgs(...)``) is no such script."""
    if not ("ServerArgs(" in text and "sglang" in text and _SERVER_START.search(text)):
        return False
    try:
        return bool(_server_args_launches(_tree(text)))
    except InputError:
        return False


def _bare_runtime(text: str) -> bool:
    """Whether ``text`` imports SGLang's ``Runtime`` by name and calls it."""
    return bool(_RUNTIME_IMPORT.search(text)) and bool(
        re.search(r"(?:^|[^\w.])Runtime\s*\(", text))


def _ray_sglang(text: str) -> bool:
    """Whether ``text`` builds a Ray config of an SGLang engine, or a Flyte SGLang app."""
    if f"{_FLYTE_APP}(" in text:
        return True
    return "engine_kwargs" in text and "sglang" in text.lower() and bool(_RAY_CALL.search(text))


def engine_launch(text: str, launch: int | None = None, notes: list[str] | None = None
                  ) -> tuple[list[str], list[str]]:
    """(flags, env assignments) of the ``launch``-th launch of the script ``text`` (in
    source order, from 1; the first by default): its ``Engine(...)`` calls (a script that
    compares two settings, or loads a teacher and a student, starts an engine for each) and
    the servers it starts beside them from launch literals, whose reading notes go into
    ``notes``."""
    tree = _tree(text)
    calls = _calls(tree, _ray_sglang(text))
    if not calls:
        raise InputError("the pasted Python", "a call of sgl.Engine(...)", "none")
    order = _launch_order(text, len(calls), notes)
    kind, which = order[min(max(launch or 1, 1), len(order)) - 1]
    if kind == "literal":
        return _literal_launch(text, which, notes)
    call = calls[which - 1]
    names = _literals_before(tree, call)
    found: list[tuple[int, int, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            found.append((node.lineno, node.col_offset, environ_assignment(node, names, tree)))
        elif isinstance(node, ast.Call):
            found.append((node.lineno, node.col_offset, environ_call(node, names)))
        elif isinstance(node, ast.For):
            found.append((node.lineno, node.col_offset, environ_loop(node, names)))
    env = [pair for *_, pairs in sorted(found, key=lambda item: item[:2]) for pair in pairs]
    return _patched_by_docs(tree, call, _flags(call, names, tree, notes)), env


def _patched_by_docs(tree: ast.Module, call: ast.Call, argv: list[str]) -> list[str]:
    """``argv`` as the engine gets it in a script that imports ``sglang.test.doc_patch``
    (SGLang's docs notebooks do): importing it replaces ``ServerArgs.__post_init__`` in that
    process (0.5.21 to 0.5.23 alike) so that an unset request limit and token cap become 128
    and 20480, and the CUDA graphs are off with a decode batch of at most 4, whatever the
    call says."""
    if not _imports_doc_patch(tree):
        return argv
    given = {k.arg for k in call.keywords
             if k.arg and not (isinstance(k.value, ast.Constant) and k.value.value is None)}
    added = [*(["--max-running-requests", "128"] if "max_running_requests" not in given
               else []),
             *(["--max-total-tokens", "20480"] if "max_total_tokens" not in given else []),
             "--disable-cuda-graph", "--cuda-graph-max-bs-decode", "4"]
    return [*argv, *added]


def _imports_doc_patch(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(
                alias.name.endswith("doc_patch") for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (
                (node.module or "").endswith("doc_patch")
                or any(alias.name == "doc_patch" for alias in node.names)):
            return True
    return False


def engine_total(text: str) -> int:
    """How many launches the script ``text`` makes (0 when it is not Python): its
    ``Engine(...)`` calls, and the servers it starts from launch literals beside them
    (``subprocess.Popen([... "sglang.launch_server", ...])``)."""
    try:
        engines = len(_calls(_tree(text), _ray_sglang(text)))
    except InputError:
        return 0
    return len(_launch_order(text, engines)) if engines else 0


def _launch_order(text: str, engines: int, notes: list[str] | None = None
                  ) -> list[tuple[str, int]]:
    """The launches of a script with ``engines`` engine calls, in source order, each as
    (``"engine"`` or ``"literal"``, which of its kind, from 1): a benchmark that starts a
    server with ``subprocess.Popen`` and an offline engine, or a Modal app with a served
    function and a test one, holds both, as a page with both blocks does. A literal inside
    an engine call's arguments is part of that call; a docstring's command line is shown,
    not started. Engines only when the text is not one program the literal reader parses
    alike."""
    from launchplan.input.python_launch import literal_launches

    def engines_only() -> list[tuple[str, int]]:
        if engines < 2:
            return [("engine", 1)] if engines else []
        own = _tree(text)
        placed = _placed_calls(own, _ray_sglang(text))
        if len(placed) != engines:
            return [("engine", n) for n in range(1, engines + 1)]
        return _reached_first(own, [("engine", n, at) for n, (_, at) in
                                    enumerate(placed, 1)], notes)

    read = literal_launches(text)
    if read is None or not read[1]:
        return engines_only()
    tree, literals = read
    placed = _placed_calls(tree, _ray_sglang(text))
    if len(placed) != engines:
        return engines_only()
    inside = {id(n) for call, at in placed for top in (call, at) for n in ast.walk(top)}
    # a string standing as a statement (a docstring's usage line) shows a command, beside
    # an engine the script does start
    inside.update(id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)
                  and isinstance(n.value, (ast.Constant, ast.JoinedStr)))
    order: list[tuple[tuple[int, int], str, int, ast.AST]] = [
        ((at.lineno, at.col_offset), "engine", n, at) for n, (_, at) in enumerate(placed, 1)]
    which = 0
    for node, count in literals:
        for _ in range(count):
            which += 1
            if id(node) not in inside:
                order.append(((getattr(node, "lineno", 0), getattr(node, "col_offset", 0)),
                              "literal", which, node))
    return _reached_first(tree, [(kind, n, node) for _, kind, n, node in
                                 sorted(order, key=lambda item: item[:3])], notes)


def _reached_first(tree: ast.Module, launches: list[tuple[str, int, ast.AST]],
                   notes: list[str] | None = None) -> list[tuple[str, int]]:
    """``launches`` (kind, which, node) in source order, the ones the script's run reaches
    first: an engine in a function its ``__main__`` never calls (or calls only under a
    mode its option defaults rule out) is no launch of that run, so it is not the one
    planned; it stays listed, after them, and ``notes`` says why."""
    from launchplan.input.python_flow import unreached

    if len(launches) < 2:
        return [(kind, n) for kind, n, _ in launches]
    away = unreached(tree, [node for *_, node in launches])
    if not away:
        return [(kind, n) for kind, n, _ in launches]
    if notes is not None:
        lines = [str(getattr(node, "lineno", "?")) for *_, node in launches
                 if id(node) in away]
        where = (f"the launch at line {lines[0]}" if len(lines) == 1
                 else f"the launches at lines {', '.join(lines)}")
        notes.append(f"the pasted script's run as written (its option defaults) does not "
                     f"reach {where}: a function nothing it runs calls, or a branch its "
                     "values rule out; the launches it reaches are listed first")
    return [(kind, n) for kind, n, node in sorted(
        launches, key=lambda item: id(item[2]) in away)]


def _literal_launch(text: str, which: int, notes: list[str] | None = None
                    ) -> tuple[list[str], list[str]]:
    """(words, env assignments) of the ``which``-th launch a script holds in a literal, as
    the pasted reader takes a script holding only such launches."""
    from launchplan.input.pasted import _from_launcher, _runner_env, _runner_start, _split
    from launchplan.input.python_launch import launch_literal_at, script_environment

    picked = launch_literal_at(text, notes, which)
    if picked is None:  # pragma: no cover - counted by the same reader
        raise InputError("the pasted Python", "a launch it starts", "none")
    found, within = picked
    env: list[str] = []
    if isinstance(found, str):
        words = _split(found, within)
    else:  # an argv list: a container run around it keeps its -e NAME=VALUE
        words = _from_launcher(found)
        before = found[:len(found) - len(words)]
        if (runner := _runner_start(before)) is not None:
            env.extend(_runner_env(before[runner:]))
    return words, [*env, *script_environment(text, which)]


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
        salvaged = _statements(_dedented(text))
        if salvaged is not None:
            return salvaged
        raise InputError("the pasted Python", "a script holding sgl.Engine(...)",
                         f"{exc.msg} (line {exc.lineno})") from None


def _statement_lines(text: str) -> list[int]:
    """The indices of the lines of ``text`` that make Python statements standing on their
    own (``_statements``), in order."""
    import codeop

    kept: list[int] = []
    pending: list[int] = []
    lines = text.split("\n")
    for at in range(len(lines)):
        pending.append(at)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compiled = codeop.compile_command(
                    "\n".join(lines[i] for i in pending) + "\n", symbol="exec")
        except (SyntaxError, ValueError, OverflowError):
            pending = []  # prose, or a statement cut off: no part of the program
            continue
        if compiled is not None:
            kept.extend(pending)
            pending = []
    return kept


#: A shell line that starts SGLang's server (after assignments or a notebook's ``!``).
_SHELL_LAUNCH = re.compile(r"^[ \t]*!?(?:[A-Za-z_]\w*=\S*[ \t]+)*(?:python3?|sglang)\b[^\n]*"
                           r"(?:-m[ \t]+sglang\.launch_server\b|\bserve\b)")


def page_launches(text: str) -> tuple[list[tuple[int, str, int]], str] | None:
    """For a page whose code blocks of two languages were joined (an offline
    ``sgl.Engine(...)`` block and a shell block starting the server: docs and model cards
    show both), its launches in page order, as (line, "engine" or "shell", which of that
    kind, from 1), and the shell part of the page (its Python lines blanked); None for a
    text that is a Python program, or holds no shell launch beside its engine calls."""
    dedented = _dedented(text)
    try:
        quiet_parse(dedented)
        return None
    except SyntaxError:
        pass
    if _inline_script(text) is not None:
        return None
    lines = dedented.split("\n")
    kept = _statement_lines(dedented)
    python = set(kept)
    shell = [at for at, line in enumerate(lines)
             if at not in python and _SHELL_LAUNCH.match(line)]
    if not shell:
        return None
    try:
        tree = quiet_parse("\n".join(lines[i] for i in kept))
    except SyntaxError:
        return None
    engines = sorted(kept[node.lineno - 1] for node in _calls(tree)
                     if 0 < node.lineno <= len(kept))
    if not engines:
        return None
    order = sorted([*((line, "engine", n) for n, line in enumerate(engines, 1)),
                    *((line, "shell", n) for n, line in enumerate(shell, 1))])
    rest = "\n".join("" if at in python else line for at, line in enumerate(lines))
    return order, rest


def _statements(text: str) -> ast.Module | None:
    """The Python statements of ``text`` that stand on their own, when the whole is no
    program: a page that shows code without its fences (its headings and sentences on lines
    between the statements, a loop body that lost its indent). Each line that starts no
    statement which compiles, alone or with the lines after it that it opens, is left out.
    None unless what is left calls an engine."""
    lines = text.split("\n")
    try:
        tree = quiet_parse("\n".join(lines[i] for i in _statement_lines(text)))
    except SyntaxError:
        return None
    return tree if any(isinstance(node, ast.Call) and (_is_engine(node.func)
                                                       or _is_runtime(node.func))
                       for node in ast.walk(tree)) else None


def _inline_script(text: str) -> str | None:
    """The program of a shell line that runs Python on one (``python -c "import sglang as
    sgl; llm = sgl.Engine(...)"``), or None."""
    try:
        words = shell_vars.shell_split(text.strip())
    except ValueError:
        return None
    for at, word in enumerate(words[:-1]):
        if word == "-c" and at > 0 and "python" in words[at - 1].rsplit("/", 1)[-1]:
            return words[at + 1]
    return None


def _calls(tree: ast.Module, ray: bool = False) -> list[ast.Call]:
    """The engine calls in ``tree``, in source order; with ``ray``, Ray's SGLang configs
    (:func:`_ray_sglang`) too."""
    return [call for call, _ in _placed_calls(tree, ray)]


def _placed_calls(tree: ast.Module, ray: bool = False) -> list[tuple[ast.Call, ast.Call]]:
    """(each engine call, the call that starts it: itself, or the ``launch_server(...)``
    handed a ``ServerArgs(...)``), in the source order of the latter."""
    runtime = _runtime_imported(tree)
    calls = [(n, n) for n in ast.walk(tree) if isinstance(n, ast.Call)
             and (_is_engine(n.func) or (ray and _ray_config(n.func))
                  or (runtime and isinstance(n.func, ast.Name) and n.func.id == "Runtime"))]
    calls += _server_args_launches(tree)
    return sorted(calls, key=lambda c: (c[1].lineno, c[1].col_offset))


def _server_args_launches(tree: ast.Module) -> list[tuple[ast.Call, ast.Call]]:
    """(the ``ServerArgs(...)`` call, the call that starts the server with it) for each
    ``launch_server(...)`` / ``run_server(...)`` of SGLang's in ``tree`` whose argument is a
    ``ServerArgs(...)`` written there or set to a name before. A call handed anything else
    (``prepare_server_args(sys.argv[1:])``, a function's parameter) starts a server whose
    arguments are not in the script, and is not counted."""
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _starts_server(node.func)):
            continue
        given = node.args[0] if len(node.args) == 1 and not node.keywords else next(
            (k.value for k in node.keywords if k.arg == "server_args"), None)
        if isinstance(given, ast.Name):
            given = _literals_before(tree, node).get(given.id)
        if isinstance(given, ast.Call) and _is_server_args(given.func):
            out.append((given, node))
    return out


def _starts_server(func: ast.expr) -> bool:
    """``launch_server`` / ``run_server`` called bare (imported by name, as scripts do) or
    through a module (``http_server.launch_server``, an alias of SGLang's module): handed a
    ``ServerArgs(...)`` in a script that names SGLang, the call is SGLang's."""
    if isinstance(func, ast.Name):
        return func.id in _SERVER_STARTERS
    return isinstance(func, ast.Attribute) and func.attr in _SERVER_STARTERS


def _is_server_args(func: ast.expr) -> bool:
    return getattr(func, "id", getattr(func, "attr", None)) == "ServerArgs"


def _ray_config(func: ast.expr) -> bool:
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    return name in _RAY_CONFIGS or name == _FLYTE_APP


def _flyte_words(call: ast.Call, names: dict[str, ast.expr]) -> list[str]:
    """The command-line words of a Flyte ``SGLangAppEnvironment``: ``--model-path`` of its
    ``model_hf_path`` (or ``model_path``), then its ``extra_args``, as the app passes them."""
    own = {k.arg: k.value for k in call.keywords if k.arg is not None}
    out: list[str] = []
    model = own.get("model_hf_path", own.get("model_path"))
    if model is not None:
        if isinstance(model, ast.Name) and model.id in names:
            model = names[model.id]
        try:
            out += ["--model-path", str(ast.literal_eval(model))]
        except ValueError:  # a run's output, known when the app starts: left open
            out += ["--model-path", "${" + "".join(ast.unparse(model).split()) + "}"]
    extra = own.get("extra_args")
    if isinstance(extra, ast.Name) and extra.id in names:
        extra = names[extra.id]
    if extra is not None:
        try:
            words = ast.literal_eval(extra)
        except ValueError:
            raise InputError(f"{_FLYTE_APP}(extra_args=...)", "a list of literal words",
                             ast.unparse(extra)[:60]) from None
        out += [_text(word) for word in words]
    return out


def _ray_keywords(call: ast.Call, names: dict[str, ast.expr]) -> list[tuple[str, ast.expr]]:
    """The engine keywords a Ray config holds: its ``engine_kwargs`` entries, after the
    ``model_path`` its ``model_source`` (or ``model_loading_config``'s) names when they set
    none. Ray's own settings (replicas, placement, batch size) are not the engine's."""
    own = {k.arg: k.value for k in call.keywords if k.arg is not None}
    engine = own.get("engine_kwargs")
    if engine is None:
        raise InputError(f"{ast.unparse(call.func)}(...)", "engine_kwargs holding the "
                         "SGLang engine's keywords", "none")
    spread = ast.Call(func=ast.Name(id="Engine", ctx=ast.Load()), args=[],
                      keywords=[ast.keyword(arg=None, value=engine)])
    found = _keywords(spread, names)
    if not any(name == "model_path" for name, _ in found):
        source = own.get("model_source")
        loading = own.get("model_loading_config")
        if isinstance(loading, ast.Name) and loading.id in names:
            loading = names[loading.id]
        if source is None and isinstance(loading, ast.Dict):
            source = next((v for k, v in zip(loading.keys, loading.values)
                           if isinstance(k, ast.Constant) and k.value == "model_source"), None)
        if source is not None:
            found.insert(0, ("model_path", source))
    return found


def _dedented(text: str) -> str:
    """A snippet cut from inside a function or a notebook cell: its common indent off."""
    import textwrap

    return textwrap.dedent(text.strip("\n"))


def _is_engine(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id == "Engine"
    return isinstance(func, ast.Attribute) and (func.attr == "Engine" or _is_runtime(func))


def _is_runtime(func: ast.expr) -> bool:
    """``sgl.Runtime`` / ``sglang.Runtime`` (or ``Runtime`` imported from SGLang): the
    frontend's server, started from ServerArgs keywords as the engine is
    (sglang/lang/backend/runtime_endpoint.py)."""
    if isinstance(func, ast.Name):
        return func.id == "Runtime"
    return (isinstance(func, ast.Attribute) and func.attr == "Runtime"
            and isinstance(func.value, ast.Name) and func.value.id in ("sgl", "sglang"))


def _runtime_imported(tree: ast.Module) -> bool:
    """Whether the script imports ``Runtime`` by name from an SGLang module (its bare
    ``Runtime(...)`` calls are then SGLang's; another library's ``Runtime`` is not)."""
    return any(isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sglang"
               and any(alias.name == "Runtime" and alias.asname is None for alias in node.names)
               for node in ast.walk(tree))


def environ_assignment(node: ast.Assign, names: dict[str, ast.expr] | None = None,
                       tree: ast.Module | None = None) -> list[str]:
    """``os.environ["NAME"] = "value"`` as ``NAME=value``: a literal name and value, or
    names the script sets to literals (``os.environ["PORT"] = str(PORT)``); with the
    script's ``tree``, a value its text fixes through further names (a function's
    parameter its first call passes: ``os.environ["CUDA_VISIBLE_DEVICES"] = gpu``)."""
    out = []
    for target in node.targets:
        if isinstance(target, ast.Subscript) and is_environ(target.value):
            pair = _evaluated_pair(target.slice, node.value, {}, names or {})
            if pair is None and tree is not None:
                pair = _fixed_pair(target.slice, node.value, tree)
            if pair is not None:
                out.append(pair)
    return out


def _fixed_pair(key: ast.expr, value: ast.expr, tree: ast.Module) -> str | None:
    """``NAME=value`` of an environment write whose name and value the script's text fixes
    (``python_values.fixed``); None otherwise."""
    from launchplan.input.python_values import fixed

    name, found = fixed(key, tree), fixed(value, tree)
    if isinstance(found, (str, int, float)) and not isinstance(found, bool):
        return literal_pair(name, ast.Constant(found))
    return None


def environ_call(node: ast.Call, names: dict[str, ast.expr] | None = None) -> list[str]:
    """``os.environ.update({...})`` (or ``update(NAME="value")``, ``update(MAPPING)``,
    ``update(**MAPPING)`` of a mapping the script spells out) and
    ``os.environ.setdefault("NAME", "value")`` as ``NAME=value`` pairs, literal names and
    values only. ``setdefault`` gives its value where the variable is unset: a pasted
    script is planned for a process whose environment sets nothing of its own."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and is_environ(func.value)):
        return []
    if func.attr == "setdefault" and len(node.args) == 2:
        pair = _evaluated_pair(*node.args, {}, names or {})
        return [pair] if pair is not None else []
    if func.attr != "update":
        return []
    return environment_entries(ast.Call(ast.Name("dict"), node.args, node.keywords),
                               names or {})


def environment_entries(node: ast.expr, names: dict[str, ast.expr], depth: int = 0
                        ) -> list[str]:
    """The ``NAME=value`` entries of a mapping handed over as an environment, in order:
    a dict display, ``dict(...)``, ``a | b``, ``x.copy()``, or a name the script sets to
    one of those. ``os.environ`` spread in (``{**os.environ, **EXTRA}``, ``dict(os.environ,
    ...)``) adds nothing: the planned process's own environment sets nothing. An entry
    whose key or value is computed at run time is left out, not guessed."""
    return [pair for key, value in _mapping_items(node, names, depth)
            if (pair := _evaluated_pair(key, value, {}, names)) is not None]


def environ_loop(loop: ast.For, names: dict[str, ast.expr],
                 target: Any = None) -> list[str]:
    """What a loop over a mapping or list the script spells out writes into the
    environment (``for key, value in ENV.items(): os.environ[key] = value``, ``for k in
    ENV: os.environ[k] = ENV[k]``, ``os.environ.setdefault(k, v)`` over literal pairs),
    each pass's ``NAME=value`` in order. ``target`` tells the mapping written into
    (``os.environ`` by default; an ``env`` dict a call is later handed). Every pass is
    taken, whatever test in the body guards its write: the script is read, not run."""
    writes = target or is_environ
    passes = _loop_passes(loop, names)
    out: list[str] = []
    for bound in passes:
        for stmt in loop.body:
            for node in ast.walk(stmt):
                pair = None
                if isinstance(node, ast.Assign):
                    for aim in node.targets:
                        if isinstance(aim, ast.Subscript) and writes(aim.value):
                            pair = _evaluated_pair(aim.slice, node.value, bound, names)
                elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                      and node.func.attr == "setdefault" and writes(node.func.value)
                      and len(node.args) == 2):
                    pair = _evaluated_pair(*node.args, bound, names)
                if pair is not None:
                    out.append(pair)
    return out


def _loop_passes(loop: ast.For, names: dict[str, ast.expr]) -> list[dict[str, ast.expr]]:
    """The loop variables of each pass of ``loop``, as expressions: over a spelled-out
    mapping's ``.items()``, ``.keys()`` (or the mapping itself), or a literal list or tuple
    (of pairs too); none when the iterable is computed at run time."""
    source = loop.iter
    view = None
    if (isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute)
            and not source.args and source.func.attr in ("items", "keys")):
        source, view = source.func.value, source.func.attr
    for _ in range(8):
        if not (isinstance(source, ast.Name) and source.id in names):
            break
        source = names[source.id]
    items: list[ast.expr] = []
    if isinstance(source, (ast.List, ast.Tuple)) and view is None:
        items = list(source.elts)
    elif isinstance(source, (ast.Dict, ast.Call, ast.BinOp)):
        entries = _mapping_items(source, names, 0)
        items = [ast.Tuple([key, value]) if view == "items" else key
                 for key, value in entries]
    passes = []
    for item in items:
        bound = _bound_expressions(loop.target, item)
        if bound is not None:
            passes.append(bound)
    return passes


def _bound_expressions(target: ast.expr, item: ast.expr) -> dict[str, ast.expr] | None:
    """``for`` target names bound to the parts of one item (``k, v`` to a pair)."""
    return loop_bindings(target, item, lambda e: e.elts if isinstance(e, (ast.Tuple, ast.List))
                         else None)


def _mapping_items(node: ast.expr, names: dict[str, ast.expr], depth: int
                   ) -> list[tuple[ast.expr, ast.expr]]:
    """(key, value) expressions of a mapping the script spells out, later entries after
    earlier ones; ``os.environ`` (or its copy) contributes none."""
    if depth > 8 or is_environ(node):
        return []
    if isinstance(node, ast.Name) and node.id in names:
        return _mapping_items(names[node.id], names, depth + 1)
    if isinstance(node, ast.Dict):
        out: list[tuple[ast.expr, ast.expr]] = []
        for key, value in zip(node.keys, node.values):
            if key is None:
                out += _mapping_items(value, names, depth + 1)
            else:
                out.append((key, value))
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return (_mapping_items(node.left, names, depth + 1)
                + _mapping_items(node.right, names, depth + 1))
    if not isinstance(node, ast.Call):
        return []
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "copy" and not node.args:
        return _mapping_items(func.value, names, depth + 1)
    if isinstance(func, ast.Name) and func.id == "dict" and len(node.args) <= 1:
        out = [item for arg in node.args for item in _mapping_items(arg, names, depth + 1)]
        for keyword in node.keywords:
            if keyword.arg is None:
                out += _mapping_items(keyword.value, names, depth + 1)
            else:
                out.append((ast.Constant(keyword.arg), keyword.value))
        return out
    return []


def _evaluated_pair(key: ast.expr, value: ast.expr, bound: dict[str, ast.expr],
                    names: dict[str, ast.expr]) -> str | None:
    """``NAME=value`` when both ends come to literals (through a loop's ``bound``
    variables and the script's literal ``names``); None for anything computed."""
    name, text = _evaluated(key, bound, names), _evaluated(value, bound, names)
    if name is None or text is None:
        return None
    return literal_pair(name.value, text)


def _evaluated(node: ast.expr, bound: dict[str, ast.expr], names: dict[str, ast.expr],
               depth: int = 0) -> ast.Constant | None:
    """The literal ``node`` comes to: a constant, a loop variable or a name set to one,
    ``str(...)`` of one, a spelled-out mapping's entry (``ENV[k]``); None otherwise."""
    if depth > 8:
        return None
    if isinstance(node, ast.Constant):
        return node
    if isinstance(node, ast.Name):
        known = bound.get(node.id, names.get(node.id))
        inner = bound if node.id in bound else {}  # a loop variable's part names no loop's
        return _evaluated(known, inner, names, depth + 1) if known is not None else None
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "str" and len(node.args) == 1 and not node.keywords):
        inner = _evaluated(node.args[0], bound, names, depth + 1)
        return ast.Constant(str(inner.value)) if inner is not None else None
    if isinstance(node, ast.Subscript):
        key = _evaluated(node.slice, bound, names, depth + 1)
        if key is None:
            return None
        entries = {k.value: v for k, v in _mapping_items(node.value, names, depth + 1)
                   if isinstance(k, ast.Constant)}
        if key.value in entries:
            return _evaluated(entries[key.value], {}, names, depth + 1)
    return None


def is_environ(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ")


def _literals_before(tree: ast.Module, call: ast.Call) -> dict[str, ast.expr]:
    """The names the script sets to a literal (``MODEL = "Qwen/..."``, ``args =
    dict(tp_size=2)``, ``kw = {"tp_size": 2}``) before ``call``, the last setting of
    each: what ``Engine(model_path=MODEL, **kw)`` gets when the script runs straight
    through."""
    return names_before(tree, call.lineno)


def names_before(tree: ast.Module, line: int) -> dict[str, ast.expr]:
    """The expression each name is last set to before ``line`` (mapping edits applied).
    A name set again inside a branch or loop is still taken at its last value before the
    line: the reading of a script that is not run."""
    from launchplan.input.python_values import Edit, argparse_defaults, mapping_edits

    found: list[tuple[int, int, str, ast.expr]] = []
    edits: list[tuple[int, int, str, list[Edit] | None, ast.AST]] = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", line) >= line:
            continue
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            found.append((node.lineno, node.col_offset, node.targets[0].id, node.value))
        elif (edited := mapping_edits(node)) is not None:
            edits.append((node.lineno, node.col_offset, *edited, node))

    names: dict[str, ast.expr] = dict(argparse_defaults(tree))  # args.tp: --tp's default
    names.update(_returned(tree))
    at: dict[str, tuple[int, int]] = {}
    for line, col, name, value in sorted(found, key=lambda f: f[:2]):
        names[name], at[name] = value, (line, col)
    for line, col, name, change, node in sorted(edits, key=lambda e: e[:2]):
        if name in names and (line, col) > at[name] and not _skipped(tree, node):
            names[name] = _edited(names[name], change, node)
    return names


def _skipped(tree: ast.Module, node: ast.AST) -> bool:
    """Whether the script's run never makes the edit ``node``: it sits under an ``if`` the
    text decides against (``if engine_kwargs: kw.update(engine_kwargs)`` of a parameter
    left at its default None, ``if key in self.extra_kwargs:`` of a wrapper given no extra
    keywords)."""
    from launchplan.input.python_values import decided

    return any(isinstance(around, ast.If) and field in ("body", "orelse")
               and decided(tree, around, field) is False
               for around, field in ancestors(tree, node))


def _returned(tree: ast.Module) -> dict[str, ast.expr]:
    """``NAME()`` for each function the script defines once whose body only returns an
    expression (``def build_engine_kwargs(args): return {...}``): what its calls give, its
    parameters left as written (an engine keyword's value then read as any other)."""
    from launchplan.input.python_values import returned_expression

    defined: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.setdefault(node.name, []).append(node)
    return {f"{name}()": returned for name, defs in defined.items() if len(defs) == 1
            and (returned := returned_expression(defs[0])) is not None}


def _entries(mapping: ast.expr, names: dict[str, ast.expr] | None = None,
             depth: int = 0) -> dict[str, ast.expr] | None:
    """A mapping's entries when the script spells them out: ``{"k": v}`` (``{**BASE, ...}``
    of such a mapping too), ``dict(k=v)``, ``dataclasses.asdict(ServerArgs(k=v))``, or a
    name of ``names`` set to one; None for any other (one built at run time)."""
    if depth > 8:
        return None
    if isinstance(mapping, ast.Name) and names and mapping.id in names:
        mapping = names[mapping.id]
    if isinstance(mapping, ast.Call) and isinstance(mapping.func, ast.Name) and names \
            and f"{mapping.func.id}()" in names:  # a settings builder's returned mapping
        return _entries(names[f"{mapping.func.id}()"], names, depth + 1)
    if isinstance(mapping, ast.Subscript) and isinstance(mapping.slice, ast.Constant):
        outer = _entries(mapping.value, names, depth + 1)  # CONFIG["engine"] of a literal
        inner = outer.get(mapping.slice.value) if outer is not None else None
        return _entries(inner, names, depth + 1) if inner is not None else None
    out: dict[str, ast.expr] = {}
    if isinstance(mapping, ast.Dict):
        for key, value in zip(mapping.keys, mapping.values):
            if key is None:  # ``**BASE``: its entries, in place
                spread = _entries(value, names, depth + 1)
                if spread is None:
                    return None
                out.update(spread)
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                out[key.value] = value
            else:
                return None
        return out
    if not isinstance(mapping, ast.Call):
        return None
    func = ast.unparse(mapping.func)
    if func == "dict" and len(mapping.args) <= 1:
        if mapping.args:
            spread = _entries(mapping.args[0], names, depth + 1)
            if spread is None:
                return None
            out.update(spread)
        for k in mapping.keywords:
            if k.arg is None:
                spread = _entries(k.value, names, depth + 1)
                if spread is None:
                    return None
                out.update(spread)
            else:
                out[k.arg] = k.value
        return out
    if func in ("asdict", "dataclasses.asdict") and len(mapping.args) == 1:
        built = mapping.args[0]
        if isinstance(built, ast.Name) and names and built.id in names:
            built = names[built.id]
        if isinstance(built, ast.Call) and not built.args \
                and ast.unparse(built.func).rsplit(".", 1)[-1] == "ServerArgs":
            return _entries(ast.Call(ast.Name("dict"), [], built.keywords), names, depth + 1)
    return None


def _edited(mapping: ast.expr, edits: list[Any] | None, node: ast.AST) -> ast.expr:
    """``mapping`` (the literal a name was set to) after ``edits`` (``python_values.Edit``)
    the statement ``node`` makes, as a dict literal; an edit not read here (a key known at
    run time, entries added from a mapping not spelled out) makes it the edit's own text,
    which ``_keywords`` names as a mapping built at run time."""
    entries = _entries(mapping)
    if entries is None:
        return mapping
    if edits is None or any(not isinstance(edit.key, str) for edit in edits):
        return _edit_text(node)
    entries = dict(entries)
    for edit in edits:
        if edit.value is None:
            entries.pop(edit.key, None)
        elif not (edit.keep and edit.key in entries):
            entries[edit.key] = edit.value
    return ast.Dict(keys=[ast.Constant(k) for k in entries], values=list(entries.values()))


def _edit_text(node: ast.AST) -> ast.expr:
    """The expression a mapping edit turns on (``kw[name]``, ``kw.update(other)``)."""
    if isinstance(node, (ast.Assign, ast.Delete)):
        return node.targets[0]
    if isinstance(node, (ast.AugAssign, ast.Expr)):
        return node.value
    return ast.Constant(None)


def _keywords(call: ast.Call, names: dict[str, ast.expr],
              unread: list[tuple[ast.expr, str]] | None = None,
              tree: ast.Module | None = None) -> list[tuple[str, ast.expr]]:
    """``call``'s keyword arguments, each ``**name`` of a literal mapping the script sets
    spread into its entries. A mapping the script takes from outside the paste (a settings
    file it loads, a function of a module it imports) goes into ``unread`` with where it
    comes from: an open mapping the flags given after the paste complete. Any other mapping
    built at run time is an error."""
    out: list[tuple[str, ast.expr]] = []
    for keyword in call.keywords:
        built = _server_args_call(keyword, names)
        if built is not None:  # Engine(server_args=ServerArgs(...)): the engine takes it whole
            out.extend(_keywords(built, names, unread, tree))
            continue
        if keyword.arg is not None:
            out.append((keyword.arg, keyword.value))
            continue
        entries = _entries(keyword.value, names)
        if entries is None:  # ``**kwargs`` built at run time: the values are not in the script
            source = _mapping_source(keyword.value, tree) if unread is not None else None
            if source is not None:
                unread.append((keyword.value, source))  # type: ignore[union-attr]
                continue
            raise InputError("sgl.Engine(**...)", "keyword arguments written out, or a "
                             "mapping the script sets to literals", ast.unparse(keyword.value)[:60])
        out.extend(entries.items())
    return out


#: Calls that read a settings file, by their last name part, with the file kind.
_LOADERS = {"yaml": "YAML", "OmegaConf": "YAML", "json": "JSON", "toml": "TOML",
            "tomllib": "TOML", "tomli": "TOML"}
#: Modules whose functions pass a mapping on (``asdict``, ``from_dict``) rather than make it.
_PASSING_MODULES = frozenset({"dataclasses", "dacite", "copy", "typing", "functools",
                              "collections", "os", "json", "yaml"})


def _mapping_source(expr: ast.expr, tree: ast.Module | None) -> str | None:
    """Where the engine's ``**mapping`` comes from, followed through the names the script
    sets, when that is outside the paste: a settings file it loads
    (``yaml.safe_load(open(path))``, the path as the text fixes it), a function of a module
    it imports; None otherwise."""
    if tree is None:
        return None
    from launchplan.input.python_values import fixed

    imported: dict[str, str] = {}
    bound: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                imported[alias.asname or alias.name] = node.module
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.value is not None:
            bound.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if isinstance(item.optional_vars, ast.Name):
                    bound.setdefault(item.optional_vars.id, []).append(item.context_expr)
    queue, seen, module_call = [expr], set(), None
    while queue and len(seen) < 60:
        for node in ast.walk(queue.pop(0)):
            if isinstance(node, ast.Call):
                head = ast.unparse(node.func).split(".")[0]
                if head in _LOADERS and node.args:
                    path = node.args[0]
                    opened = bound.get(path.id, [path]) if isinstance(path, ast.Name) else [path]
                    for candidate in opened:
                        if isinstance(candidate, ast.Call) and ast.unparse(
                                candidate.func) == "open" and candidate.args:
                            path = candidate.args[0]
                    value = fixed(path, tree)
                    shown = value if isinstance(value, str) else ast.unparse(path)
                    return f"the {_LOADERS[head]} file the script loads ({shown})"
                # a function of another module handed only literals makes the mapping
                # there; one handed the script's own values (a parameter) passes them on
                if isinstance(node.func, ast.Name) and module_call is None and \
                        imported.get(node.func.id, "").split(".")[0] not in _PASSING_MODULES \
                        and node.func.id in imported and all(
                            isinstance(a, ast.Constant) for a in (
                                *node.args, *(k.value for k in node.keywords))):
                    module_call = (f"{node.func.id}() of the module it imports "
                                   f"({imported[node.func.id]})")
            elif isinstance(node, ast.Name) and node.id not in seen:
                seen.add(node.id)
                queue.extend(bound.get(node.id, []))
    return module_call


def _server_args_call(keyword: ast.keyword, names: dict[str, ast.expr]) -> ast.Call | None:
    """The ``ServerArgs(...)`` call an engine's ``server_args=`` keyword hands it (written
    there or set to a name before): the engine runs with that object as it is, so its
    keywords are the launch's fields. None for any other keyword."""
    if keyword.arg != "server_args":
        return None
    value = keyword.value
    if isinstance(value, ast.Name) and value.id in names:
        value = names[value.id]
    if isinstance(value, ast.Call) and not value.args and (
            getattr(value.func, "id", getattr(value.func, "attr", None)) == "ServerArgs"):
        return value
    return None


def _flags(call: ast.Call, names: dict[str, ast.expr] | None = None,
           tree: ast.Module | None = None, notes: list[str] | None = None) -> list[str]:
    """The flags ``call``'s keywords set; a keyword's value the script fixes only through
    further names (``model_path = args.model_path`` of an option's default, a function's
    parameter its first call passes, ``CONFIG["tp_size"]``) is worked out from ``tree``."""
    from launchplan.input.fields import FIELDS

    if call.args:
        raise InputError("sgl.Engine(...)", "keyword arguments only (ServerArgs fields)",
                         f"{len(call.args)} positional")
    names = names or {}
    argv: list[str] = []
    own = _RUNTIME_OWN if _is_runtime(call.func) else frozenset()
    if getattr(call.func, "id", getattr(call.func, "attr", None)) == _FLYTE_APP:
        return _flyte_words(call, names)
    unread: list[tuple[ast.expr, str]] = []
    keywords = _ray_keywords(call, names) if _ray_config(call.func) else _keywords(
        call, names, unread, tree)
    for spread, source in unread:
        if notes is not None:
            notes.append(f"{ast.unparse(call.func)}(**{shortened(ast.unparse(spread))}): the "
                         f"engine's keywords come from {source}, not in the pasted text: "
                         "planned with the keywords written out and the flags given after "
                         "the paste; its other settings are not known")
    if unread and not any(name == "model_path" for name, _ in keywords):
        # the mapping holds the model too: an open value a later --model-path gives
        keywords = [("model_path", unread[0][0]), *keywords]
    for name, expr in keywords:
        if name in own:
            continue
        written = expr
        if isinstance(expr, ast.Name) and expr.id in names:
            expr = names[expr.id]  # ``model_path=MODEL`` with ``MODEL = "..."`` above
        elif isinstance(expr, ast.Attribute) and (dotted := ast.unparse(expr)) in names:
            expr = names[dotted]  # ``tp_size=args.tp``: the option's default
        expr = _defaulted(expr, names)
        spec = FIELDS.get(name)
        if spec is None:
            # ServerArgs(**kwargs) refuses a keyword it lacks before it looks at any value,
            # and matches it whole: never as a flag's abbreviation or alias (``tp=2``)
            raise _unknown_keyword(name, call)
        try:
            value = ast.literal_eval(expr)
        except (ValueError, SyntaxError):
            value = _fixed_value(written, expr, tree)
        if value is _OPEN:
            if spec.nargs == 0 or not spec.flags:
                raise InputError(f"sgl.Engine({name}=...)", "a literal value (a variable's "
                                 "value is not in the pasted text)",
                                 ast.unparse(expr)[:60])
            # a value known only when the script runs (``args.model_path``) stays open, as a
            # shell reference does: a flag given after the paste replaces it, and if none
            # does, the flag is reported with the expression it holds
            argv.extend([spec.flags[0], "${" + "".join(ast.unparse(expr).split()) + "}"])
            continue
        argv.extend(_flag_words(spec, value))
    return argv


#: What ``_fixed_value`` gives for a value the text leaves open.
_OPEN = object()


def _fixed_value(written: ast.expr, expr: ast.expr, tree: ast.Module | None) -> Any:
    """The value of an engine keyword as written (``written``) or as the names before the
    call make it (``expr``), when the script's text fixes it (``python_values.fixed``): a
    literal, or a list or dict of them; ``_OPEN`` otherwise."""
    if tree is None:
        return _OPEN
    from launchplan.input.python_values import UNKNOWN, fixed

    for node in (written, expr):
        found = fixed(node, tree)
        if isinstance(found, PurePath):
            return str(found)  # model_path=MODEL_DIR of a pathlib path: its text
        if found is not UNKNOWN and _plain(found):
            return found
    return _OPEN


def _plain(value: Any) -> bool:
    """Whether ``value`` is what a literal writes: None, a string, number or bool, or a
    list, tuple or dict of such."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(item) for item in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return False


#: Integer arithmetic a script writes in a default (``8*1024``).
_ARITHMETIC = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
               ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b}


def _defaulted(expr: ast.expr, names: dict[str, ast.expr] | None = None) -> ast.expr:
    """``expr`` as a literal when the script fixes it: ``os.environ.get(NAME, default)`` (or
    ``os.getenv``) is its default, as in a process that sets none of its own; ``int(...)``,
    ``float(...)`` and ``str(...)`` of a literal, integer arithmetic (``8*1024``), and
    ``json.dumps`` of a literal (its names' literals, from ``names``) are worked out.
    Anything else comes back as it is (a value known only at run time)."""
    if isinstance(expr, ast.BinOp) and type(expr.op) in _ARITHMETIC:
        left, right = _defaulted(expr.left), _defaulted(expr.right)
        if all(isinstance(side, ast.Constant) and type(side.value) is int
               for side in (left, right)):
            try:
                value = _ARITHMETIC[type(expr.op)](left.value, right.value)  # type: ignore[attr-defined]
            except ZeroDivisionError:
                return expr
            return ast.Constant(value)
        return expr
    if not isinstance(expr, ast.Call) or expr.keywords:
        return expr
    func = ast.unparse(expr.func)
    if func == "json.dumps" and len(expr.args) == 1:
        try:  # json_model_override_args=json.dumps({...}): the text the engine is handed
            return ast.Constant(json.dumps(_dumped(expr.args[0], names or {})))
        except (ValueError, TypeError):
            return expr
    if func in ("os.environ.get", "os.getenv") and len(expr.args) == 2:
        return _defaulted(expr.args[1])
    if func in ("int", "float", "str") and len(expr.args) == 1:
        inner = _defaulted(expr.args[0])
        if isinstance(inner, ast.Constant) and isinstance(inner.value, (str, int, float)) \
                and not isinstance(inner.value, bool):
            try:
                return ast.Constant({"int": int, "float": float, "str": str}[func](inner.value))
            except ValueError:
                return expr
    return expr


def _dumped(node: ast.expr, names: dict[str, ast.expr], depth: int = 0) -> Any:
    """The value a ``json.dumps`` argument holds: dict, list and tuple displays of literals,
    names set to literals (``names``) and what ``_defaulted`` works out; ValueError for a
    value known only at run time."""
    if depth > 8:
        raise ValueError("nested too deep")
    if isinstance(node, ast.Name) and node.id in names:
        return _dumped(names[node.id], names, depth + 1)
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise ValueError("a ** spread")
        return {_dumped(k, names, depth + 1): _dumped(v, names, depth + 1)
                for k, v in zip(node.keys, node.values)}
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_dumped(e, names, depth + 1) for e in node.elts]
    found = _defaulted(node, names)
    if isinstance(found, ast.Constant) and (found.value is None or isinstance(
            found.value, (str, int, float, bool))):
        return found.value
    raise ValueError("not a literal")


def _unknown_keyword(name: str, call: ast.Call) -> InputError:
    """The error for an engine keyword that is no ServerArgs field, with the flag it would
    be and what became of that flag (a retired one's fate, or the reader's near spelling)."""
    from launchplan.input.cli import parse_argv
    from launchplan.input.fields import SGLANG_VERSION
    from launchplan.input.migrations import migration_hint

    flag = "--" + name.replace("_", "-")
    hint = migration_hint(flag)
    if hint is None:
        try:
            parse_argv([flag])
        except InputError as exc:
            hint = exc.hint if exc.subject == flag else None
    return InputError(f"{ast.unparse(call.func)}({name}=...)",
                      f"a ServerArgs field (SGLang {SGLANG_VERSION} has no {flag})", name, hint)


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
