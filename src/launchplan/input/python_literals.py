"""What a Python script's names and expressions hold, read from its literals alone.

A pasted script builds its launch from names (``MODEL = "Qwen/..."``, a function's defaults,
``self.port`` set in ``__init__``, a dataclass's fields, a ``click`` option's default) and
expressions of them (f-strings, ``str.format``, ``%``, joins). This module works out the text
each holds, never running the script; what the text does not fix is written as an open
``${NAME}`` so the reader can say it was not read. ``python_launch`` finds the launch itself,
``notebook_cells`` a notebook's shell escapes; both read names and words here.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Container
from pathlib import PurePath
from typing import Any

from launchplan.input.python_flow import branches


def shortened(source: str, limit: int = 80) -> str:
    """``source`` on one line, cut at ``limit`` characters: a note quotes the statement,
    not a page of it."""
    source = " ".join(source.split())
    return source if len(source) <= limit else source[:limit - 1] + "…"




def branch_state(tree: ast.Module, stmt: ast.AST, where: dict[int, str]
                  ) -> tuple[bool | None, str]:
    """Whether an addition ``stmt`` to a launch runs with it, and the open test when that is
    undecided: False under the other branch of an ``if`` the launch's assignment is under,
    or under a branch the script's own values rule out (``if USE_FP8:`` with ``USE_FP8 =
    False``); None under a test the text leaves open (an argument, the environment); True
    otherwise."""
    from launchplan.input.python_values import decided

    state: bool | None = True
    test = ""
    for branch, field in branches(tree, stmt):
        if id(branch) in where:
            if where[id(branch)] != field:
                return False, ""
            continue
        held = decided(tree, branch, field)
        if held is False:
            return False, ""
        if held is None and state:
            state = None
            shown = shortened(ast.unparse(branch.test), 60)
            test = f"{shown} holds" if field == "body" else f"{shown} does not hold"
    return state, test


def literal_pair(name: Any, value: ast.expr) -> str | None:
    """``NAME=value`` for a variable whose name is a plain string and whose value a plain
    string or number literal; None for anything computed (or a boolean)."""
    if (isinstance(name, str) and isinstance(value, ast.Constant)
            and isinstance(value.value, (str, int, float))
            and not isinstance(value.value, bool)):
        return f"{name}={value.value}"
    return None


def literal_mapping(node: ast.expr) -> list[str]:
    """A dict literal's entries whose key and value are plain strings (or numbers), as
    ``NAME=value``; ``**os.environ`` and computed entries are left out."""
    if not isinstance(node, ast.Dict):
        return []
    pairs = (literal_pair(key.value if isinstance(key, ast.Constant) else None, value)
             for key, value in zip(node.keys, node.values))
    return [pair for pair in pairs if pair is not None]


def entry_words(text: str, key: re.Pattern[str]) -> list[tuple[int, str, str]] | None:
    """(line, key, value) of each setting a Python ``text`` makes under a string key that
    ``key`` matches whole: a dict entry ``"KEY": value``, a keyword ``dict(KEY=value)``, an
    item assignment ``env["KEY"] = value``; in source order. Each value is read as an argv
    item is (``word_of``): a name the script sets is its value, one it leaves open a
    ``${...}`` reference, never the expression's text. None when ``text`` is not Python."""
    tree = parsed_python(text)
    if tree is None:
        return None
    literals = bound_literals(tree)
    found: list[tuple[int, int, str, ast.expr]] = []
    for node in ast.walk(tree):
        pairs: list[tuple[object, ast.expr]] = []
        if isinstance(node, ast.Dict):
            pairs = [(k.value, v) for k, v in zip(node.keys, node.values)
                     if isinstance(k, ast.Constant)]
        elif isinstance(node, ast.Call):
            pairs = [(k.arg, k.value) for k in node.keywords if k.arg]
        elif isinstance(node, ast.Assign):
            pairs = [(t.slice.value, node.value) for t in node.targets
                     if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant)]
        for name, value in pairs:
            if isinstance(name, str) and key.fullmatch(name):
                found.append((value.lineno, value.col_offset, name, value))
    return [(line, name, _entry_word(value, literals))
            for line, _, name, value in sorted(found, key=lambda f: f[:2])]


def expression_word(source: str) -> str | None:
    """The Python expression ``source`` (cut out of a text that is no whole program) read as
    an argv item is, with no name known; None when it is no expression."""
    try:
        node = quiet_parse(source.strip()).body
    except (SyntaxError, ValueError):
        return None
    if len(node) != 1 or not isinstance(node[0], ast.Expr):
        return None
    return _entry_word(node[0].value, {})


def _entry_word(node: ast.expr, literals: dict[str, str]) -> str:
    """``word_of``, with the booleans a mapping may hold as SageMaker's reader wants them
    (``True``, JSON's ``true``: the word ``true``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return str(node.value).lower()
    if isinstance(node, ast.Name) and node.id in ("true", "false") and node.id not in literals:
        return node.id
    return word_of(node, literals)


#: The argv items that name SGLang's launcher (a list holding one is worth reading).
_LAUNCHERS = frozenset({"sglang.launch_server", "sglang_router.launch_server", "serve"})


def is_launcher(word: object) -> bool:
    """Whether the argv item ``word`` names SGLang's launcher: its module, or its
    ``launch_server.py`` run by path from a source checkout
    (``python/sglang/launch_server.py``), as the shell reader takes such a path."""
    return isinstance(word, str) and (word in _LAUNCHERS or word == "sglang/launch_server.py"
                                      or word.endswith("/sglang/launch_server.py"))


def _module_statements(tree: ast.Module) -> list[ast.stmt]:
    """The statements that run when the script is started, in order: the module's own,
    with an ``if __name__ == "__main__":`` block's in its place (that test holds for a
    script run as a program, which is how a launch script is run)."""
    out: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.If) and _main_guard(node.test):
            out.extend(node.body)
        else:
            out.append(node)
    return out


def _main_guard(test: ast.expr) -> bool:
    """Whether ``test`` is ``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = {ast.unparse(test.left), ast.unparse(test.comparators[0])}
    return sides in ({"__name__", "'__main__'"}, {"__name__", '"__main__"'})


def _scoped_word(node: ast.Name, literals: dict[str, str]) -> str | None:
    """The word a name used inside a function is, when that function binds it once
    itself (``literals`` is one table for the whole script: two functions' ``tp`` would
    share it), or as its straight-line run leaves it (``python_values``); an open word for
    a name the function sets again where the text leaves it undecided; None for any other
    name."""
    tree = getattr(literals, "tree", None)
    if tree is None:
        return None
    from launchplan.input.python_values import fixed, scope_of

    if scope_of(node, tree) is tree:
        return None
    found = fixed(node, tree)
    if isinstance(found, (str, int, float, PurePath)) and not isinstance(found, bool):
        return str(found)
    from launchplan.input.python_values import binding_scope

    holder = binding_scope(node, tree)
    if isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            and _rebound(holder, node.id):
        # ``if os.getenv("ALT"): port = 9000`` over the parameter: the run decides which
        # value it holds, not the call's argument the table has
        return "${" + node.id + "}"
    return None


def word_of(node: ast.expr, literals: dict[str, str]) -> str:
    """One argv item as the script builds it: a literal, a name it sets to one, an f-string,
    ``str(x)``, ``os.environ.get(NAME, default)`` (its default); ``sys.executable`` is the
    interpreter. Anything known only at run time stays a ``${...}`` reference, left open."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float)):
        return str(node.value)
    if isinstance(node, ast.Name) and node.id in literals:
        scoped = _scoped_word(node, literals)  # a function's own ``tp``, not another's
        return scoped if scoped is not None else literals[node.id]
    if isinstance(node, ast.Attribute) and (dotted := ast.unparse(node)) in literals:
        return literals[dotted]  # args.tp: its parser's default
    if isinstance(node, ast.Subscript) and (key := _entry_key(node, literals)) in literals:
        # LORA_PATH["base"], PATHS[model_name] (the key a name the script sets to a
        # literal), MODELS[name]["path"]
        return literals[key]
    if isinstance(node, ast.JoinedStr):
        return rendered_text(node, literals)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) \
            and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
        # "... --model-path %s --tp %d" % (model, 2): each conversion filled in order
        args = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        filled = iter(word_of(a, literals) for a in args)
        return PERCENT_FIELD.sub(lambda m: "%" if m.group(0) == "%%" else next(filled, m.group(0)),
                            node.left.value)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format" and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str)):
        # "... --model-path {} --tp {tp}".format(model, tp=2)
        positional = [word_of(a, literals) for a in node.args]
        named = {k.arg: word_of(k.value, literals) for k in node.keywords if k.arg}
        return formatted(node.func.value.value, positional, named)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        # "python -m sglang.launch_server " + model + " --tp " + str(tp): the text joined
        left, right = node.left, node.right
        if all(isinstance(n, ast.Constant) and type(n.value) in (int, float)
               for n in (left, right)):
            return str(left.value + right.value)  # type: ignore[attr-defined]
        return word_of(left, literals) + word_of(right, literals)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("str", "int", "float") and len(node.args) == 1):
        return word_of(node.args[0], literals)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "join" and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str) and len(node.args) == 1):
        items = _joined_items(node.args[0], literals)
        if items is not None:  # " ".join(f"--{k} {v}" for k, v in params.items())
            return node.func.value.value.join(items)
    if ast.unparse(node) == "sys.executable":
        return "python3"
    tree = getattr(literals, "tree", None)
    if isinstance(node, ast.IfExp) and tree is not None:
        from launchplan.input.python_values import truth

        held = truth(node.test, tree)  # "fp8" if USE_FP8 else "auto"
        if held is not None:
            return word_of(node.body if held else node.orelse, literals)
    if (isinstance(node, ast.Call) and ast.unparse(node.func) == "json.dumps"
            and len(node.args) == 1 and not node.keywords):
        dumped = _json_value(node.args[0], literals, tree)
        if dumped is not _OPEN:
            return json.dumps(dumped)  # json.dumps' defaults: ", " and ": " separators
    if (isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.environ.get", "os.getenv")
            and len(node.args) == 2 and isinstance(node.args[1], ast.Constant)):
        return str(node.args[1].value)  # the value with the variable unset, as ${NAME:-word}
    if tree is not None:
        # a name bound to another name, a function's local ``os.environ.get(...)``, an
        # option's default given as a constant: what the script's own text fixes
        from launchplan.input.python_values import fixed

        found = fixed(node, tree)
        if isinstance(found, (str, int, float, PurePath)) and not isinstance(found, bool):
            return str(found)  # a pathlib path the text spells out: its text, as str() gives
    return "${" + "".join(ast.unparse(node).split()) + "}"


#: What a piece of a ``json.dumps`` argument is when the text does not fix it.
_OPEN = object()


def _json_value(node: ast.expr, literals: dict[str, str], tree: ast.Module | None) -> Any:
    """The value ``json.dumps(node)`` dumps, when the script fixes it: dict, list and tuple
    displays of literals, f-strings of known names, and names the script binds to such a
    value (``python_values``); ``_OPEN`` otherwise (the argv item stays open)."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(
            node.value, (str, int, float, bool))):
        return node.value
    if isinstance(node, ast.Dict):
        out: dict[Any, Any] = {}
        for key, item in zip(node.keys, node.values):
            k = _OPEN if key is None else _json_value(key, literals, tree)
            v = _json_value(item, literals, tree)
            if k is _OPEN or v is _OPEN or isinstance(k, (dict, list)):
                return _OPEN
            out[k] = v
        return out
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_json_value(e, literals, tree) for e in node.elts]
        return _OPEN if _OPEN in items or any(
            isinstance(e, ast.Starred) for e in node.elts) else items
    if isinstance(node, ast.JoinedStr):
        text = rendered_text(node, literals)
        return _OPEN if "${" in text else text
    if tree is None:
        return _OPEN
    from launchplan.input.python_values import UNKNOWN, fixed

    found = fixed(node, tree)
    if found is UNKNOWN:
        return _OPEN
    try:
        json.dumps(found)
    except (TypeError, ValueError):
        return _OPEN
    return found


#: a printf-style conversion (``%s``, ``%d``, ``%5.2f``) or a literal ``%%``
PERCENT_FIELD = re.compile(r"%%|%[-+ #0]*\d*(?:\.\d+)?[sdirfgeExXoc]")
#: a ``str.format`` field: ``{}``, ``{0}``, ``{name}`` (a conversion or spec after it)
_FIELD = re.compile(r"\{\{|\}\}|\{([A-Za-z_]\w*|\d+)?(?:![rsa])?(?::[^{}]*)?\}")


def formatted(text: str, positional: list[str], named: dict[str, str]) -> str:
    """``text.format(...)`` with the rendered arguments; a field no argument fills stays as
    written (``${...}`` where only the run knows the value)."""
    auto = iter(positional)

    def field(match: re.Match[str]) -> str:
        whole, key = match.group(0), match.group(1)
        if whole in ("{{", "}}"):
            return whole[0]
        if key is None:
            return next(auto, whole)
        if key.isdigit():
            return positional[int(key)] if int(key) < len(positional) else whole
        return named.get(key, whole)

    return _FIELD.sub(field, text)


def _joined_items(node: ast.expr, literals: dict[str, str]) -> list[str] | None:
    """The items a ``str.join`` joins: a list's, or a comprehension's over a dict the script
    sets to literals (``[f"--{k} {v}" for k, v in serve_params.items()]``, Modal's idiom of
    server flags kept in a dict), each rendered with that entry's key and value; None for
    anything else."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return [word_of(e, literals) for e in node.elts]
    if not (isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1):
        return None
    loop = node.generators[0]
    call = loop.iter
    if loop.ifs or loop.is_async or not (
            isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr == "items" and not call.args
            and isinstance(loop.target, ast.Tuple) and len(loop.target.elts) == 2
            and all(isinstance(e, ast.Name) for e in loop.target.elts)):
        return None
    listed = literals.get(ast.unparse(call))
    if listed is None:
        return None
    key_name, value_name = (e.id for e in loop.target.elts)  # type: ignore[attr-defined]
    out = []
    for key, value in json.loads(listed):
        bound = {**literals, key_name: key, value_name: value}
        out.append(word_of(node.elt, bound))
    return out


def _entry_key(node: ast.expr, literals: dict[str, str]) -> str | None:
    """The flat name ``bound_literals`` gives a dict entry (``MODELS['a']['path']``) for a
    subscript chain whose keys are literals or names the script sets to one; else None."""
    if isinstance(node, ast.Name):
        return node.id
    if not isinstance(node, ast.Subscript):
        return None
    base = _entry_key(node.value, literals)
    if base is None:
        return None
    key = node.slice
    if isinstance(key, ast.Constant) and isinstance(key.value, (str, int)):
        return f"{base}[{key.value!r}]"
    if isinstance(key, ast.Name) and key.id in literals:
        return f"{base}[{literals[key.id]!r}]"
    return None


def _option_default(default: ast.expr) -> ast.expr:
    """A parameter's default as written, or the one a Typer ``Option``/``Argument`` holds
    (``tp: int = typer.Option(2)``: its first argument, or ``default=``)."""
    if isinstance(default, ast.Call) and isinstance(default.func, (ast.Attribute, ast.Name)) \
            and ast.unparse(default.func).rsplit(".", 1)[-1] in ("Option", "Argument"):
        given = [k.value for k in default.keywords if k.arg == "default"] or default.args[:1]
        return given[0] if given else default
    return default


def _click_defaults(func: ast.FunctionDef | ast.AsyncFunctionDef,
                    tree: ast.Module | None = None) -> dict[str, str]:
    """The defaults click's ``@click.option("--tp", default=2)`` decorators give the
    function's parameters (the option's name with its dashes dropped and ``-`` as ``_``, or
    the bare name given beside it), which a script run without arguments runs with; a
    default named by a constant the script fixes (``default=DEFAULT_TP``) is its value."""
    out: dict[str, str] = {}
    for decorator in func.decorator_list:
        if not (isinstance(decorator, ast.Call) and ast.unparse(decorator.func).endswith(
                ("click.option", "click.argument"))):
            continue
        names = [a.value for a in decorator.args
                 if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        default = next((k.value for k in decorator.keywords if k.arg == "default"), None)
        if default is not None and not isinstance(default, ast.Constant) and tree is not None:
            from launchplan.input.python_values import fixed

            default = ast.Constant(fixed(default, tree))
        if not names or not (isinstance(default, ast.Constant) and isinstance(
                default.value, (str, int, float)) and not isinstance(default.value, bool)):
            continue
        bare = [n for n in names if not n.startswith("-")]
        longest = max((n for n in names if n.startswith("-")), key=len, default=names[0])
        name = bare[0] if bare else longest.lstrip("-").replace("-", "_")
        out[name] = str(default.value)
    return out


def _dict_items(tree: ast.Module, out: dict[str, str]) -> None:
    """Each ``NAME = {...}`` (a module's or a function's: Modal keeps its server flags in a
    dict inside the method that starts the server) as its entries in order, under
    ``NAME.items()`` (JSON pairs of key and value as the script would render the value:
    ``${...}`` where only the run knows it), for a comprehension joining them into flags."""
    from launchplan.input.python_values import mapping_edits

    edits: list[tuple[ast.AST, str, Any]] | None = None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Dict)):
            continue
        entries: dict[str, str] = {}
        for key, value in zip(node.value.keys, node.value.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                break  # a ``**spread`` or a computed key: the entries are not all known
            entries[key.value] = _shown_entry(value, out)
        else:
            if edits is None:
                edits = [(n, *edited) for n in ast.walk(tree)
                         if (edited := mapping_edits(n)) is not None]
            _edited_entries(tree, node, entries, out, edits)
            out.setdefault(f"{node.targets[0].id}.items()",
                           json.dumps([list(pair) for pair in entries.items()]))


def _shown_entry(value: ast.expr, out: dict[str, str]) -> str:
    """A dict entry's value as the script renders it into a flag (``True`` as Python
    prints it)."""
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        return str(value.value)
    return word_of(value, out)


def _edited_entries(tree: ast.Module, assign: ast.Assign, entries: dict[str, str],
                    out: dict[str, str], edits: list[tuple[ast.AST, str, Any]]) -> None:
    """``entries`` of the dict ``assign`` sets, after the edits the same scope makes to it
    later in source order (``params.update({...})``, ``params["k"] = v``, ``del``) that run
    with it: under the assignment's own branches, or under a test the script's own values
    decide (``if USE_EAGLE == "1":`` of ``USE_EAGLE = os.getenv("USE_EAGLE") or "1"``). An
    edit under a test the text leaves open, or one not spelled out, ends the reading."""
    from launchplan.input.python_values import scope_of

    name = assign.targets[0].id  # type: ignore[attr-defined]
    mine = [(node, changes) for node, edited, changes in edits if edited == name
            and node.lineno > assign.lineno]  # type: ignore[attr-defined]
    if not mine:
        return
    scope = scope_of(assign, tree)
    where = dict((id(branch), field) for branch, field in branches(tree, assign))
    for node, changes in sorted(mine, key=lambda e: (e[0].lineno, e[0].col_offset)):  # type: ignore[attr-defined]
        if scope_of(node, tree) is not scope:
            continue
        state, _ = branch_state(tree, node, where)
        if state is False:
            continue
        if state is None or changes is None:
            return
        for edit in changes:
            if not isinstance(edit.key, str):
                return
            if edit.value is None:
                entries.pop(edit.key, None)
            elif not (edit.keep and edit.key in entries):
                entries[edit.key] = _shown_entry(edit.value, out)


def _flatten_dict(prefix: str, node: ast.Dict, out: dict[str, str], depth: int = 0) -> None:
    """A dict literal's scalar entries under flat names (``PATHS['a']``), nested dicts'
    too (``MODELS['a']['path']``): a table of models a script picks its launch from."""
    for key, value in zip(node.keys, node.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, (str, int))):
            continue
        name = f"{prefix}[{key.value!r}]"
        if isinstance(value, ast.Dict) and depth < 3:
            _flatten_dict(name, value, out, depth + 1)
        elif (isinstance(value, ast.Constant) and isinstance(value.value, (str, int, float))
              and not isinstance(value.value, bool)):
            out[name] = str(value.value)


def _alias_entry(name: str, node: ast.expr, out: dict[str, str]) -> None:
    """``name = MODELS[key]`` in a function: the entry's own entries under ``name`` too
    (``cfg['path']``), as the function reads them."""
    key = _entry_key(node, out)
    if key is None:
        return
    start = key + "["
    for flat, word in list(out.items()):
        if flat.startswith(start):
            out.setdefault(name + flat[len(key):], word)


def quiet_parse(source: str) -> ast.Module:
    """``ast.parse`` without the warnings Python prints for a pasted string's escapes
    (``"E:\\models"`` is an invalid escape sequence to Python 3.12, a SyntaxWarning on
    stderr): the text is read for its literals, not run. A text nested deeper than the
    parser goes (thousands of ``+``) is a SyntaxError too: no program of a launch."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(source)
        except (RecursionError, MemoryError):
            raise SyntaxError("nested deeper than Python's parser goes") from None


def parsed_python(text: str) -> ast.Module | None:
    """``text`` parsed as Python: as it is, without a notebook cell's IPython lines, or, for
    a piece cut out of a larger literal (an indented dict entry ``"cmd": ("sglang serve
    ..." "--tp 8"),``, list items), dedented and put back inside the braces, brackets or
    parentheses it came from."""
    import textwrap

    body = textwrap.dedent(text.strip("\n"))
    # a notebook cell's IPython lines (``!pip install ...``, ``%%time``) are not Python
    cell = "\n".join(line[:len(line) - len(line.lstrip())] + "pass"
                     if line.lstrip().startswith(("!", "%")) else line
                     for line in body.split("\n"))
    for candidate in (text, body, cell, f"{{\n{body}\n}}", f"[\n{body}\n]",
                      f"(\n{body}\n)"):
        try:
            return quiet_parse(candidate)
        except (SyntaxError, ValueError):
            continue
    return None


def literal_names(text: str) -> dict[str, str] | None:
    """The names a Python source ``text`` sets to values it knows (``bound_literals``);
    None when ``text`` is not Python."""
    tree = parsed_python(text)
    return bound_literals(tree) if tree is not None else None


#: A keyword ``gpu=`` given a name or an attribute (Modal's ``@app.function(gpu=GPU_CONFIG)``),
#: not a call (``modal.gpu.H100(count=2)``) nor a literal.
_GPU_NAME = re.compile(r"(?<![\w./-])gpu\s*=\s*([A-Za-z_][\w.]*)(?![\w.(\[])")


def gpu_keyword_filled(line: str, text: str) -> str:
    """``line`` with a ``gpu=NAME`` keyword written as the string the script binds NAME to
    (``GPU_CONFIG = "H100:2"``, ``f"{GPU_TYPE}:{GPU_COUNT}"`` of bound names,
    ``os.environ.get("GPU", "H100:2")``'s default, as its argv reads them): Modal's ``gpu=``
    is an ordinary expression, so the name asks for what the literal would. ``line`` as it
    is when it has no such keyword or the name's value is not a string the text fixes."""
    found = _GPU_NAME.search(line)
    if found is None:
        return line
    names = literal_names(text)
    word = names.get(found.group(1)) if names is not None else None
    if word is None or "${" in word or not word.strip() or '"' in word:
        return line
    return f'{line[:found.start(1)]}"{word}"{line[found.end(1):]}'


def bound_literals(tree: ast.Module) -> dict[str, str]:
    """The script's top-level ``NAME = <literal>`` assignments (its ``if __name__ ==
    "__main__":`` block's too; ``A, B = "x", 2`` as well; the last of each wins), and the
    literal defaults of its functions' parameters (``def serve(model_path: str =
    "Qwen/...", port: int = 30000)``: what a call that leaves them out runs with)."""
    out: dict[str, str] = _Literals(tree)
    for func in ast.walk(tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [*func.args.posonlyargs, *func.args.args]
            defaults = func.args.defaults
            pairs = [*zip(params[len(params) - len(defaults):], defaults),
                     *((a, d) for a, d in zip(func.args.kwonlyargs, func.args.kw_defaults)
                       if d is not None)]
            for param, default in pairs:
                default = _option_default(default)
                if (isinstance(default, ast.Constant)
                        and isinstance(default.value, (str, int, float))
                        and not isinstance(default.value, bool)):
                    out[param.arg] = str(default.value)
            out.update(_click_defaults(func, tree))
    from launchplan.input.python_values import argparse_defaults

    for key, default in argparse_defaults(tree).items():  # args.tp of --tp's default
        if not (isinstance(default, ast.Constant) and isinstance(default.value, bool)):
            word = word_of(default, out)
            if "${" not in word and word != "None":
                out[key] = word
    for node in _module_statements(tree):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and not isinstance(node.value, ast.Dict)
                and not (isinstance(node.value, ast.Constant)
                         and isinstance(node.value.value, bool))):
            # a literal, or what the script works out from literals and a process that sets
            # no variable of its own (``int(os.environ.get("TP", "2"))``)
            word = word_of(node.value, out)
            if "${" in word or isinstance(node.value, (ast.List, ast.Tuple)):
                out.pop(node.targets[0].id, None)
            else:
                out[node.targets[0].id] = word
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1
              and isinstance(node.targets[0], ast.Tuple)
              and isinstance(node.value, ast.Tuple)
              and len(node.targets[0].elts) == len(node.value.elts)):
            # GPU_TYPE, N_GPUS = "H100!", 2: each name its literal, as Python unpacks them
            for target, item in zip(node.targets[0].elts, node.value.elts):
                if (isinstance(target, ast.Name) and isinstance(item, ast.Constant)
                        and isinstance(item.value, (str, int, float))
                        and not isinstance(item.value, bool)):
                    out[target.id] = str(item.value)
                elif isinstance(target, ast.Name):
                    out.pop(target.id, None)  # set to what the text does not say
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1
              and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Dict)):
            _flatten_dict(node.targets[0].id, node.value, out)  # PATHS = {"a": "..."}
    _dict_items(tree, out)
    _bind_call_arguments(tree, out)
    _bind_instance_attributes(tree, out)
    _bind_class_attributes(tree, out)
    _bind_field_defaults(tree, out)
    for func in ast.walk(tree):  # a default naming a module constant: (model: str = MODEL)
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [*func.args.posonlyargs, *func.args.args]
            named = [*zip(params[len(params) - len(func.args.defaults):], func.args.defaults),
                     *((a, d) for a, d in zip(func.args.kwonlyargs, func.args.kw_defaults)
                       if d is not None)]
            for param, default in named:
                if isinstance(default, ast.Name) and default.id in out:
                    out.setdefault(param.arg, out[default.id])
    for func in ast.walk(tree):  # a function's own names set from those: base = PATHS["a"]
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in func.body:
                if (isinstance(node, ast.Assign) and len(node.targets) == 1
                        and isinstance(node.targets[0], ast.Name)
                        and isinstance(node.value, (ast.Subscript, ast.Constant))):
                    _alias_entry(node.targets[0].id, node.value, out)  # cfg = MODELS[name]
                    word = word_of(node.value, out)
                    if not word.startswith("${"):
                        out.setdefault(node.targets[0].id, word)
    return out


class _Literals(dict[str, str]):
    """The names a script sets, as words, with the script itself: a conditional expression's
    test and a ``json.dumps`` of a dict need the values as Python has them (``2``, not
    ``"2"``), which ``python_values`` works out from the tree."""

    def __init__(self, tree: ast.Module) -> None:
        super().__init__()
        self.tree = tree


def first_calls(tree: ast.Module, names: Container[str]) -> dict[str, ast.Call]:
    """Each of ``names`` (a function or class the script defines) with its first call in
    source order: the one a script run from the top makes first, whose arguments are read."""
    calls = sorted((node for node in ast.walk(tree) if isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name) and node.func.id in names),
                   key=lambda c: (c.lineno, c.col_offset))
    first: dict[str, ast.Call] = {}
    for call in calls:
        first.setdefault(call.func.id, call)  # type: ignore[attr-defined]
    return first


def bound_arguments(args: ast.arguments, call: ast.Call, *, defaults: bool = True,
               skip: int = 0) -> dict[str, ast.expr]:
    """What each parameter of a function (``args``; the first ``skip`` left out: a
    method's ``self``) holds on ``call``: the call's positional and keyword arguments over
    the parameters' defaults (with ``defaults``)."""
    params = [a.arg for a in (*args.posonlyargs, *args.args)][skip:]
    given: dict[str, ast.expr] = {}
    if defaults:
        given.update(zip(params[len(params) - len(args.defaults):], args.defaults))
        given.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults)
                     if d is not None)
    given.update((params[i], arg) for i, arg in enumerate(call.args)
                 if i < len(params) and not isinstance(arg, ast.Starred))
    given.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
    return given


def _bind_call_arguments(tree: ast.Module, out: dict[str, str]) -> None:
    """Bind each function's parameters to the words its first call in the script passes
    (``build_cmd("Qwen/Qwen3-8B")`` of ``def build_cmd(model)``): what the launch it builds
    gets when the script runs, over the parameter's default."""
    functions = {node.name: node for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if not functions:
        return
    for name, call in first_calls(tree, functions).items():  # the run read
        for param, arg in bound_arguments(functions[name].args, call, defaults=False).items():
            word = word_of(arg, out)
            if "${" not in word:
                out[param] = word


def _bind_instance_attributes(tree: ast.Module, out: dict[str, str]) -> None:
    """``self.X`` of a class whose ``__init__`` sets ``self.X = param`` (or a literal), and
    ``__init__``'s own parameters, bound to what the script's first ``Class(...)`` call
    passes (else their defaults): a server-manager class that builds its launch from
    ``{self.model_path}`` and ``{self.tp}`` (or from ``model_path`` in ``__init__``) runs
    with the arguments the script constructs it with."""
    classes = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    inits = {name: init for name, cls in classes.items()
             if (init := next((f for f in cls.body if isinstance(f, ast.FunctionDef)
                               and f.name == "__init__"), None)) is not None}
    first = first_calls(tree, inits)
    # a class the text never constructs (its caller does) runs with its defaults, as a
    # dataclass's fields do: ``self.model = model or os.getenv("MODEL", "m")`` of
    # ``model=None`` is "m"; an attribute another class sets too is left open
    setters: dict[str, int] = {}
    for init in inits.values():
        for attr in {ast.unparse(t) for stmt in init.body if isinstance(stmt, ast.Assign)
                     for t in stmt.targets}:
            setters[attr] = setters.get(attr, 0) + 1
    for name, init in inits.items():
        call = first.get(name)
        given = {param: word_of(arg, out) for param, arg in bound_arguments(
            init.args, call if call is not None else ast.Call(ast.Name(name), [], []),
            skip=1).items()}
        for param, word in given.items():  # a launch ``__init__`` builds from its parameters
            if "${" not in word and word != "None":
                out.setdefault(param, word)
        for stmt in init.body:
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Attribute)
                    and ast.unparse(stmt.targets[0].value) == "self"):
                continue
            value = stmt.value
            if isinstance(value, ast.Name) and _rebound(init, value.id):
                # ``if port is None: port = int(os.getenv("PORT", "8000"))`` before
                # ``self.port = port``: the value the script's run leaves there
                word = _fixed_word(value, tree)
            elif isinstance(value, ast.Name):
                word = given.get(value.id, "${")
            else:
                word = word_of(value, out)
            key = f"self.{stmt.targets[0].attr}"
            if "${" in word or word == "None":
                continue
            if call is not None:
                out[key] = word
            elif setters.get(key) == 1:
                out.setdefault(key, word)


def _bind_class_attributes(tree: ast.Module, out: dict[str, str]) -> None:
    """``cls.X`` of a test's ``setUpClass`` that sets ``cls.port = 21000`` (a value the text
    fixes, set once in the script): the launch its ``server_args`` list builds from
    ``str(cls.port)`` runs with it."""
    setters: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id == "cls":
                    setters.setdefault(ast.unparse(target), []).append(node.value)
    for key, values in setters.items():
        if len(values) == 1 and not isinstance(values[0], (ast.List, ast.Tuple, ast.Dict)):
            word = word_of(values[0], out)
            if "${" not in word and word != "None":
                out.setdefault(key, word)


def _rebound(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``function`` binds its name ``name`` in its body too (a parameter it sets
    again, ``if port is None: port = ...``)."""
    return any(isinstance(node, ast.Name) and node.id == name
               and isinstance(node.ctx, ast.Store) for node in ast.walk(function))


def _fixed_word(node: ast.expr, tree: ast.Module) -> str:
    """``node``'s value as a word when the script's text fixes it (``python_values``);
    an open ``${...}`` otherwise."""
    from launchplan.input.python_values import fixed

    found = fixed(node, tree)
    if isinstance(found, (str, int, float, PurePath)) and not isinstance(found, bool):
        return str(found)
    return "${" + "".join(ast.unparse(node).split()) + "}"


def _class_fields(cls: ast.ClassDef) -> dict[str, ast.expr | None]:
    """A class's fields in order, each with its default (None without one): a dataclass's,
    a pydantic model's or a NamedTuple's ``name: type = value`` (``field(default=value)``
    too), and a plain class attribute ``NAME = value``."""
    fields: dict[str, ast.expr | None] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if "ClassVar" in ast.unparse(stmt.annotation):
                continue
            value = stmt.value
            if isinstance(value, ast.Call) and ast.unparse(value.func).endswith("field"):
                value = next((k.value for k in value.keywords if k.arg == "default"), None)
            fields[stmt.target.id] = value
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name):
            fields[stmt.targets[0].id] = stmt.value
    return fields


def _bind_field_defaults(tree: ast.Module, out: dict[str, str]) -> None:
    """``cfg.tp`` of ``cfg = Config(...)``, a class with no ``__init__`` of its own (a
    dataclass, a pydantic model, a NamedTuple, a class of settings): the call's argument
    for the field (positional in field order, or by keyword), else the field's default;
    ``Config.tp`` is that default. A launch built from a settings object runs with the
    values the script constructs it with."""
    classes = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
               and not any(isinstance(f, ast.FunctionDef) and f.name == "__init__"
                           for f in node.body)}
    if not classes:
        return
    fields = {name: _class_fields(cls) for name, cls in classes.items()}
    for name, defaults in fields.items():
        for field, default in defaults.items():
            word = "${" if default is None else word_of(default, out)
            if "${" not in word and word != "None":
                out.setdefault(f"{name}.{field}", word)
    def constructed(call: ast.Call, defaults: dict[str, ast.expr | None]
                    ) -> dict[str, ast.expr | None]:
        given: dict[str, ast.expr | None] = dict(defaults)
        given.update(zip(defaults, (a for a in call.args if not isinstance(a, ast.Starred))))
        given.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
        return given

    for node in _module_statements(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id in fields):
            continue
        given = constructed(node.value, fields[node.value.func.id])
        for field, value in given.items():
            word = "${" if value is None else word_of(value, out)
            if "${" not in word and word != "None":
                out[f"{node.targets[0].id}.{field}"] = word
    # ``self.tp`` in the class's own methods (``def build_cmd(self)``): the instance the
    # script makes first, else the defaults; a field two classes share is left open
    first = first_calls(tree, fields)
    owners: dict[str, list[str]] = {}
    for name, defaults in fields.items():
        for field in defaults:
            owners.setdefault(field, []).append(name)
    for name, defaults in fields.items():
        given = constructed(first[name], defaults) if name in first else defaults
        for field, value in given.items():
            word = "${" if value is None else word_of(value, out)
            if len(owners[field]) == 1 and "${" not in word and word != "None":
                out.setdefault(f"self.{field}", word)


def _where_flags_go(node: ast.JoinedStr, piece: ast.FormattedValue, before: list[str]
                    ) -> bool:
    """Whether the f-string placeholder ``piece`` (a call or attribute, not a plain name: a
    shell variable's reading covers that) is a word of its own where a flag would stand:
    after the launcher or a flag's value, not after a flag (its value)."""
    if not isinstance(piece.value, (ast.Call, ast.Attribute)) or piece.format_spec:
        return False
    if isinstance(piece.value, ast.Call) and ast.unparse(piece.value.func) in (
            "str", "int", "float"):
        return False
    at = node.values.index(piece)
    after = node.values[at + 1] if at + 1 < len(node.values) else None
    if after is not None and not (isinstance(after, ast.Constant)
                                  and str(after.value)[:1].isspace()):
        return False
    text = "".join(before)
    if not text or not text[-1].isspace():
        return False
    words = text.replace("\\\n", " ").split()
    return bool(words) and not words[-1].startswith("-") and "sglang" in text


def rendered_text(node: ast.JoinedStr, literals: dict[str, str], *, shell: bool = False) -> str:
    """An f-string's text: a placeholder that names a literal the script assigns is that
    value (an inline conditional, ``{'--dp 2' if tp > 1 else ''}``, the branch its test
    takes when the script fixes it); any other stays a ``${...}`` reference, left open (and
    reported where a flag needs its value). ``shell``: the text is a command line a shell
    splits; an open expression with spaces is quoted so it stays one readable word, as
    written, not cut at its spaces (nor its quotes taken off)."""
    parts: list[str] = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value))
        elif isinstance(value, ast.FormattedValue):
            word = word_of(value.value, literals)
            written = ast.unparse(value.value)
            if shell and word.startswith("${") and _where_flags_go(node, value, parts):
                # ``python -m sglang.launch_server {cfg.to_cli_args()}``: flags built when
                # the script runs, not an argument (``_without_open_spreads`` names them)
                parts.append("${*" + "".join(written.split()) + "}")
                continue
            if word == "${" + "".join(written.split()) + "}" and written != "".join(
                    written.split()):
                # ``{'--enable-dp-attention --dp 2' if tp > 1 else ''}``, its test open
                word = "${" + written + "}"
                if shell:
                    word = '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'
            parts.append(word)
    return "".join(parts)
