"""A launch command held in a Python script's string or list literal.

SGLang's own docs start servers from notebooks with ``launch_server_cmd("python -m
sglang.launch_server --model-path ...")``, and test or benchmark scripts with
``subprocess.Popen(["python3", "-m", "sglang.launch_server", ...])``. A user who pastes
such a cell means that command: this module finds the first literal that starts SGLang's
launcher. The script is read with ``ast``, never run; a command built at run time (an
f-string, a variable) is not a literal and is not found. A program in another language
(Go, JavaScript, Rust) that holds the argv as a list of string literals is read from the
items around the quoted launcher module.
"""

from __future__ import annotations

import ast
import copy
import re
import shlex
import textwrap
from collections.abc import Callable, Iterator
from typing import NamedTuple

from launchplan.errors import InputError
from launchplan.input import EXPECTED_LAUNCH, shell_vars
from launchplan.input.python_flow import (
    LOOKING_CALLS,
    SHOWING_CALLS,
    ancestors,
    branches,
    called_name,
    data_uses,
    loop_bindings,
)
from launchplan.input.python_literals import (
    PERCENT_FIELD,
    bound_arguments,
    bound_literals,
    branch_state,
    first_calls,
    formatted,
    is_launcher,
    parsed_python,
    rendered_text,
    shortened,
    word_of,
)


def launch_literal(text: str, notes: list[str] | None = None,
                   launch: int | None = None) -> str | list[str] | None:
    """The ``launch``-th (from 1, in source order; the first by default) string (a command
    line) or list of strings (an argv) in the Python source ``text`` that starts SGLang's
    launcher; None when ``text`` is not Python or has none. How the script grows that argv
    where it is not read goes into ``notes``."""
    picked = launch_literal_at(text, notes, launch)
    return picked[0] if picked is not None else None


def launch_literal_at(text: str, notes: list[str] | None = None, launch: int | None = None
                      ) -> tuple[str | list[str], int] | None:
    """(the literal that holds the script's ``launch``-th launch, which launch of that
    literal it is, from 1). A string may hold several command lines (a usage docstring
    with a line per server, a shell script the program writes out): each counts, as the
    same lines pasted as a shell text do, and the shell reader picks the one named."""
    if not _may_launch(text):
        if _WRAPPER_CALL.search(text) and not _starts_engine(text) \
                and (tree := parsed_python(text)) is not None:
            _refuse_wrapper(tree)
        return None
    tree = parsed_python(text)
    shown: list[ast.AST] = []
    templates: list[_Template] = []
    data: list[tuple[ast.AST, list[str]]] = []
    prose: list[ast.AST] = []
    found = _launch_nodes(tree, shown, templates, data, prose) if tree is not None else []
    if not found:
        if prose and not (shown or templates or data) and not _starts_engine(text):
            if _WRAPPER_CALL.search(text):
                _refuse_wrapper(tree)  # type: ignore[arg-type]
            raise _only_prose(prose[0])
        if templates and not _starts_engine(text):
            raise _only_templated(templates[0])
        if shown and not _starts_engine(text):
            raise _only_shown(shown)
        if data and not _starts_engine(text):
            raise _only_data(data)
        listed = quoted_list(text)
        if listed is None:
            joined = joined_command(text)
            if joined is None and tree is not None and _WRAPPER_CALL.search(text) \
                    and not _starts_engine(text):
                _refuse_wrapper(tree)
            return (joined, 1) if joined is not None else None
        given = go_environment(text)
        return (["env", *given, *listed] if given else listed), 1
    at, within = _picked(found, launch)
    value, node, grows = found[at]
    assert tree is not None
    if grows.startswith(_FROM_MANIFEST) and notes is not None:
        notes.append(_manifest_note(node, grows))
    value = _with_helper_flags(tree, _finished(tree, value, node, grows, notes), node)
    return _without_open_spreads(value, notes), within


def _may_launch(text: str) -> bool:
    """Whether ``text`` may hold a launch read here: it names SGLang and its launcher
    (``launch_server``, ``serve``) or the nightly tests' ``ModelLaunchSettings``, or it
    calls SGLang's test helper ``popen_launch_server``, a name of SGLang's own: a test's
    ``setUpClass`` body is pasted without the import that would name the package."""
    return ("sglang" in text and ("launch_server" in text or "serve" in text
                                  or "ModelLaunchSettings(" in text)
            or "popen_launch_server(" in text)


def _starts_engine(text: str) -> bool:
    """Whether the script starts an engine (``sgl.Engine(...)``): its launch, whatever it
    prints."""
    from launchplan.input.engine_call import looks_like_engine_call

    return looks_like_engine_call(text)


#: A call whose name says it starts SGLang (``SGLangEndpoint(``, ``start_sglang(``): the
#: cheap test before a script is searched for a wrapper it imports (``_refuse_wrapper``).
_WRAPPER_CALL = re.compile(r"(?i)\b\w*sglang\w*\s*\(")
#: The packages whose calls launchplan reads as SGLang's own (not a wrapper's).
_OWN_PACKAGES = frozenset({"sglang", "sglang_router"})
#: A wrapper's keyword that names the model it serves: with a dict of ``--flag`` keys, what
#: tells a server it starts from a client it connects.
_MODEL_KEYWORDS = frozenset({"model", "model_path", "model_name", "model_id", "model_name_or_path"})


def _refuse_wrapper(tree: ast.Module) -> None:
    """Refuse a script that starts SGLang through a class or function it imports from
    another package (``SGLangEndpoint(model_path=..., tp=8, extra_server_args=ARGS)`` of a
    vendor's ``autoinference_utils``): the command line is built in code the paste does
    not hold, so its keywords cannot be mapped to flags (``tp=`` may be ``--tp-size`` or
    anything else). The error names the wrapper and any dict of ``--flag`` keys it is
    handed, so the user knows what to paste instead. Nothing happens when no such call
    is found (the callers first leave out the wrappers ``engine_call`` reads, Flyte's
    ``SGLangAppEnvironment``)."""
    imported: dict[str, str] = {}  # the name a script calls -> the module it comes from
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.split(".")[0] not in _OWN_PACKAGES:
            for alias in node.names:
                imported[alias.asname or alias.name] = node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in _OWN_PACKAGES:
                    imported[alias.asname or alias.name.split(".")[0]] = alias.name
    defined = {node.name for node in ast.walk(tree)
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    shown = _shown_nodes(tree)
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call) or id(call) in shown:
            continue
        func = call.func
        root = func
        while isinstance(root, ast.Attribute):  # ep.SGLangEndpoint, pkg.mod.SGLangEndpoint
            root = root.value
        if not isinstance(root, ast.Name) or root.id not in imported:
            continue
        name = func.attr if isinstance(func, ast.Attribute) else root.id
        module = imported[root.id]
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute):
            module = f"{module}.{ast.unparse(func.value).split('.', 1)[1]}"
        if "sglang" not in name.lower() or name in defined:
            continue
        handed = ""
        flagged = [(keyword, _flag_keys(tree, keyword.value)) for keyword in call.keywords]
        if not any(keys for _, keys in flagged) and not any(
                keyword.arg in _MODEL_KEYWORDS for keyword in call.keywords):
            continue  # a client (``base_url=...``) or a helper: no server it starts
        for keyword, flags in flagged:
            if flags:
                given = ast.unparse(keyword.value)
                handed = (f" (its {keyword.arg}={shortened(given, 40)} holds {len(flags)} "
                          f"SGLang flag{'s' if len(flags) > 1 else ''}: {', '.join(flags[:3])}"
                          f"{', ...' if len(flags) > 3 else ''}; what the wrapper makes of its "
                          "other arguments is in its own code)")
                break
        raise InputError("the pasted text", EXPECTED_LAUNCH, message=(
            f"the pasted text: expected {EXPECTED_LAUNCH}, got a Python program that starts "
            f"SGLang through {name}(...) imported from {module} (line {call.lineno}), a "
            f"wrapper whose code is not in the paste, so the command line it runs cannot be "
            f"read{handed}: paste that command line (ps -o args on the server shows it), "
            "or give its flags to launchplan in place of the app"))


def _flag_keys(tree: ast.Module, node: ast.expr, depth: int = 0) -> list[str]:
    """The ``--flag`` keys of the dict ``node`` makes, when the text spells them: a dict
    display, a module name bound to one, or ``A | B`` of such (values need not be known)."""
    if depth > 8:
        return []
    if isinstance(node, ast.Dict):
        return [key.value for key in node.keys if isinstance(key, ast.Constant)
                and isinstance(key.value, str) and key.value.startswith("--")]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left = _flag_keys(tree, node.left, depth + 1)
        return [*left, *(k for k in _flag_keys(tree, node.right, depth + 1) if k not in left)]
    if isinstance(node, ast.Name):
        bound = [stmt.value for stmt in tree.body if isinstance(stmt, ast.Assign)
                 and _assigns_name(stmt, node.id)]
        return _flag_keys(tree, bound[-1], depth + 1) if bound else []
    return []


def _only_prose(node: ast.AST) -> InputError:
    """The error for a Python program whose one mention of SGLang's launcher is a sentence
    in a docstring (``\"\"\"Launch sglang.launch_server with common options.\"\"\"``): the
    code builds its command in a way not read here, which is what the user must be told,
    not that the sentence is no command."""
    text = node.value if isinstance(node, ast.Constant) else ""
    line = next((line.strip() for line in str(text).splitlines() if "sglang" in line), "")
    return InputError("the pasted text", EXPECTED_LAUNCH, message=(
        f"the pasted text: expected {EXPECTED_LAUNCH}, got a Python program whose docstring "
        f"(line {getattr(node, 'lineno', '?')}: '{shortened(line, 60)}') names the launcher "
        "but whose code builds no command launchplan can read (it reads an argv list or "
        "command string naming the launcher, sgl.Engine(...), or a list of SGLang's flags "
        "handed to its own parser): paste the command the program runs"))


#: What a pasted text that holds no launch was expected to hold.


def _only_shown(shown: list[ast.AST]) -> InputError:
    """The error for a Python program whose only SGLang commands it prints, logs or raises
    (``print("Start it with: python -m sglang.launch_server ...")``): a hint to its user,
    which starts nothing, so the text holds no launch."""
    lines = ", ".join(dict.fromkeys(str(getattr(node, "lineno", "?")) for node in shown))
    expected = EXPECTED_LAUNCH
    return InputError("the pasted text", expected, message=(
        f"the pasted text: expected {expected}, got none: the Python script only prints "
        f"or raises an SGLang command (line {lines}), which starts nothing; paste the "
        "command itself to plan it"))


#: How the error says what a script does with a command it only handles as data
#: (``python_flow.DATA_USES``).
_DATA_VERBS = {"compares": "compares", "asserts": "asserts on", "prints": "prints"}


def _only_data(data: list[tuple[ast.AST, list[str]]]) -> InputError:
    """The error for a Python program whose SGLang commands are only data (a test's
    constant it compares, a table entry it prints, a local an assertion looks at): nothing
    it runs is handed one, so the text holds no launch."""
    lines = list(dict.fromkeys(str(getattr(node, "lineno", "?")) for node, _ in data))
    it = "it" if len(data) == 1 else "them"
    verbs = [f"{verb} {it}" for use, verb in _DATA_VERBS.items()
             if any(use in how for _, how in data)]
    said = verbs[0] if len(verbs) == 1 else f"{', '.join(verbs[:-1])} and {verbs[-1]},"
    held = ("an SGLang command" if len(data) == 1 else "SGLang commands",
            "line" if len(lines) == 1 else "lines", "starts" if len(data) == 1 else "start")
    return InputError("the pasted text", EXPECTED_LAUNCH, message=(
        f"the pasted text: expected {EXPECTED_LAUNCH}, got none: the Python script holds "
        f"{held[0]} only as data ({held[1]} {', '.join(lines)}: it {said} and runs nothing "
        f"with {it}), which {held[2]} nothing; paste the command itself to plan it"))


def _without_open_spreads(value: str | list[str], notes: list[str] | None
                          ) -> str | list[str]:
    """An argv list without the spreads known only at run time (``*sys.argv[1:]``, a
    parameter its call fills from elsewhere): whole argv items of their own, never a value
    of the flag before them, so the launch is planned without them, as a shell script's
    ``"$@"`` is, and ``notes`` names them."""
    if isinstance(value, str):
        if "${*" not in value:
            return value
        for found in _OPEN_FLAGS.finditer(value):
            if notes is not None:
                notes.append(f"the launch's command line takes flags from {found.group(1)}, "
                             "which the script works out when it runs: it is planned "
                             "without them (give those flags after the paste)")
        return _OPEN_FLAGS.sub("", value)
    kept = [word for word in value if not (word.startswith("${*") and word.endswith("}"))]
    if len(kept) < len(value) and notes is not None:
        for word in value:
            if word.startswith("${*") and word.endswith("}"):
                spread = word[3:-1]
                what = ("what that call returns, which launchplan does not work out from "
                        "the text" if spread.endswith(")") else "known only when the "
                        "script runs")
                notes.append(f"the launch's argv spreads {spread}, {what}: it is planned "
                             "without those items (give those flags after the paste)")
    return kept


#: A command line's word of flags the script works out when it runs (``rendered_text`` writes
#: ``{cfg.to_cli_args()}`` standing where flags go so).
_OPEN_FLAGS = re.compile(r"(?<!\S)\$\{\*(\S+?)\}(?!\S)")


def literal_total(text: str) -> int:
    """How many launches the Python source ``text`` holds in literals (0 when it is not
    Python or holds none): a script that starts two servers, or a usage docstring that
    shows a command line for each, is several launches, one of which is planned."""
    if not _may_launch(text):
        return 0
    tree = parsed_python(text)
    shown: list[ast.AST] = []
    templates: list[_Template] = []
    data: list[tuple[ast.AST, list[str]]] = []
    prose: list[ast.AST] = []
    found = _launch_nodes(tree, shown, templates, data, prose) if tree is not None else []
    if not found:
        if (shown or templates or data or prose) and not _starts_engine(text):
            return 0  # only printed: no launch (``launch_literal_at`` says so)
        return int(quoted_list(text) is not None or joined_command(text) is not None)
    return sum(_launches_in(value) for value, *_ in found)


def literal_launches(text: str) -> tuple[ast.Module, list[tuple[ast.AST, int]]] | None:
    """(the Python source ``text`` parsed as ``launch_literal_at`` reads it, each launch
    literal's node with how many launches it holds, in source order); None when ``text``
    is not Python. A script that also calls ``sgl.Engine(...)`` holds these launches
    beside its engines (``engine_call`` orders them)."""
    if not _may_launch(text):
        return None
    tree = parsed_python(text)
    if tree is None:
        return None
    return tree, [(node, _launches_in(value)) for value, node, _ in _launch_nodes(tree)]


def _launches_in(value: str | list[str]) -> int:
    """How many launches one literal holds: an argv list one; a string as many as its
    command lines start (at least one: it was found as a launch)."""
    if isinstance(value, list):
        return 1
    from launchplan.input.pasted import launch_count

    return max(launch_count([value]), 1)


#: The launcher module as a quoted literal of another language's source.
_QUOTED_LAUNCHER = re.compile(r"""(["'])(?:sglang\.launch_server|sglang_router\.launch_server)\1""")
_OPENERS = {"(": ")", "[": "]", "{": "}"}


def quoted_list(text: str) -> list[str] | None:
    """The argv a program in another language (Go ``[]string{"python3", "-m",
    "sglang.launch_server", ...}`` or ``exec.Command(...)``, a JavaScript ``spawn("python3",
    ["-m", ...])``, a Rust ``.args([...])``) holds as the comma-separated items around the
    quoted launcher module: string literals are their values, anything else (a variable,
    ``strconv.Itoa(tp)``) an open ``${...}``; an argv that starts at ``-m`` is the
    interpreter's, as the call before it names."""
    found = _QUOTED_LAUNCHER.search(text)
    if found is None:
        return None
    start = _opening(text, found.start())
    line = text[text.rfind("\n", 0, start) + 1:start].lstrip()
    if start is None or line.startswith(("ENTRYPOINT", "CMD", "RUN")):
        return None  # a Dockerfile's exec form: the Dockerfile reader's, with its image
    end = _matching(text, start)
    if end is None:
        return None
    items = [_item(piece) for piece in _top_level(text[start + 1:end])]
    items = [item for item in items if item]
    if items[:1] == ["-m"]:
        items.insert(0, "python3")
    from launchplan.input.pasted import launches_sglang

    module = next((at for at, item in enumerate(items) if item.endswith("launch_server")),
                  None)  # None: the quoted name is part of a longer item, a shell word's
    # the module with no flags after it is a wrapper's prefix (flags come from elsewhere)
    if module is None or module + 1 >= len(items):
        return None
    return items if launches_sglang(items) else None


#: Go's environment for a command: ``cmd.Env = append(os.Environ(), "NAME=value", ...)``
#: (the caller's environment and these) or ``cmd.Env = []string{"NAME=value"}``.
_GO_ENV = re.compile(r"\.Env\s*=\s*(?:append\s*\(|\[\]string\s*\{)")
_GO_ENTRY = re.compile(r'"([A-Za-z_][A-Za-z0-9_]*=(?:[^"\\\n]|\\.)*)"')


def go_environment(text: str) -> list[str]:
    """The ``NAME=value`` literals a Go program puts in its command's ``Env`` (each
    ``.Env =`` setting's, in order; a value it builds at run time, ``"TP="+tp``, is no
    literal and is left out): the launch's environment, as ``env`` would give it."""
    entries: list[str] = []
    for found in _GO_ENV.finditer(text):
        end = _matching(text, found.end() - 1)
        if end is not None:
            entries.extend(m.group(1) for m in _GO_ENTRY.finditer(text, found.end(), end)
                           if text[m.end():m.end() + 1].strip() in ("", ",", ")", "}"))
    return entries


#: A call that joins a list of strings with a separator: Terraform's and HCL's
#: ``join(" ", [...])``, the same spelled in other configuration languages.
_JOIN = re.compile(r"""\bjoin\(\s*(["'])((?:\\.|(?!\1).)*)\1\s*,\s*\[""")


def joined_command(text: str) -> str | None:
    """The command line a ``join(" ", ["python3 -m sglang.launch_server", "--tp 2", ...])``
    in a configuration file (Terraform's ``command = join(...)``, one such call per branch
    of a conditional) builds: its string items joined by the separator; of several joins,
    the first whose line starts SGLang's launcher. An item that is no literal is an open
    ``${...}``."""
    from launchplan.input.pasted import launches_sglang

    for found in _JOIN.finditer(text):
        start = found.end() - 1
        end = _matching(text, start)
        if end is None:
            continue
        items = [_item(piece) for piece in _top_level(text[start + 1:end])]
        line = found.group(2).replace("\\n", "\n").join(item for item in items if item)
        try:
            words = shell_vars.shell_split(line)
        except ValueError:
            continue
        if launches_sglang(words):
            return line
    return None


def _opening(text: str, at: int) -> int | None:
    """The index of the unmatched bracket that encloses position ``at``."""
    depth = 0
    quote = ""
    for i in range(at - 1, -1, -1):
        char = text[i]
        if quote:
            if char == quote and text[i - 1:i] != "\\":
                quote = ""
            continue
        if char in "\"'":
            quote = char
        elif char in ")]}":
            depth += 1
        elif char in _OPENERS:
            if depth == 0:
                return i
            depth -= 1
    return None


def _unquoted(text: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """Each character of ``text`` from ``start`` that no quote holds, with the bracket depth
    once it is read (an opening bracket counts itself in, a closing one out)."""
    depth = 0
    quote = ""
    for i in range(start, len(text)):
        char = text[i]
        if quote:
            if char == quote and text[i - 1] != "\\":
                quote = ""
            continue
        if char in "\"'":
            quote = char
            continue
        if char in _OPENERS:
            depth += 1
        elif char in ")]}":
            depth -= 1
        yield i, char, depth


def _matching(text: str, start: int) -> int | None:
    """The index of the bracket closing the one at ``start``."""
    return next((i for i, char, depth in _unquoted(text, start)
                 if depth == 0 and char in ")]}"), None)


def _top_level(inside: str) -> list[str]:
    """``inside`` cut at its commas that no bracket or quote holds."""
    cuts = [i for i, char, depth in _unquoted(inside) if char == "," and depth == 0]
    bounds = [-1, *cuts, len(inside)]
    return [inside[a + 1:b] for a, b in zip(bounds, bounds[1:])]


def _item(piece: str) -> str:
    """One list item's value: a quoted literal's text, else an open ``${...}``."""
    piece = piece.strip()
    if not piece or piece.startswith("//"):
        return ""
    if len(piece) >= 2 and piece[0] == piece[-1] and piece[0] in "\"'`":
        import json

        try:
            return str(json.loads('"' + piece[1:-1].replace('"', '\\"') + '"'))
        except ValueError:
            return piece[1:-1]
    return "${" + "".join(piece.split()) + "}"


#: The growth a launch literal may get after its assignment: none, ``+=`` of text, the
#: additions to an argv list, or those to a list of command-line pieces (``parts =
#: ["python -m sglang.launch_server", f"--model-path {m}"]`` then ``parts.append(f"--tp
#: {tp}")``, joined with spaces and run by a shell).
_GROWS_TEXT, _GROWS_LIST, _GROWS_PARTS = "text", "list", "parts"


def _launch_nodes(tree: ast.Module, shown: list[ast.AST] | None = None,
                  templates: list[_Template] | None = None,
                  data: list[tuple[ast.AST, list[str]]] | None = None,
                  prose: list[ast.AST] | None = None
                  ) -> list[tuple[str | list[str], ast.AST, str]]:
    """Each launch literal in ``tree`` (see ``launch_literal``), in source order, with its
    node and how the script may grow it (``_finished`` adds that). A literal inside another
    one found (an f-string's own text, a list inside a call's keywords) is part of it; one
    a call only prints or logs is not started; a command assigned to a name that an
    f-string found later builds on (``f"{CMD} --port 30001"``) is that launch's piece; a
    manifest's text (a Compose template) starts its containers only when the script hands
    it to what runs it (``_manifest_launches``). The printed ones go into ``shown``, the
    manifests that start nothing into ``templates``, the commands only handled as data (with
    what the script does with each) into ``data``."""
    from launchplan.input.pasted import launches_sglang

    literals: dict[str, str] | None = None
    found: list[tuple[str | list[str], ast.AST, str]] = []
    for node in ast.walk(tree):
        value: ast.AST = node
        handed = _parser_argv(tree, node)
        if handed is not None:
            if literals is None:
                literals = bound_literals(tree)
            found.append(([*_PARSER_LAUNCH, *(word_of(e, literals) for e in handed.elts)],
                          handed, ""))
            continue
        if isinstance(node, ast.Call) and (container := _container_keywords(node)):
            if literals is None:
                literals = bound_literals(tree)
            words = _items(container, literals, tree)
            if launches_sglang(words):
                found.append((words, node, ""))
                continue
        helper_of = _HELPER_READERS.get(called_name(node)) if isinstance(node, ast.Call) else None
        if helper_of is not None and not (helper_of[1] and _defines(tree, called_name(node))):
            if literals is None:  # (one of SGLang's test helpers, as its test_utils has it)
                literals = bound_literals(tree)
            helper = helper_of[0](tree, node, literals)
            if helper is not None:
                found.append((helper, node, ""))
                continue
        if isinstance(node, ast.JoinedStr):  # f"python -m sglang.launch_server --tp {tp}"
            if literals is None:
                literals = bound_literals(tree)
            value = ast.Constant(rendered_text(node, literals, shell=True))
        elif (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
              and _joins_text(node)) or _formats_text(node):
            # "python -m sglang.launch_server " + "--tp 2", "... %s" % x, "... {}".format(x)
            if literals is None:
                literals = bound_literals(tree)
            value = ast.Constant(word_of(node, literals))
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            if _manifest_text(value.value):  # exec-form lists, folded ``command: >`` lines
                found.append((value.value, node, _MANIFEST_TEXT))
                continue
            try:
                words = shell_vars.shell_split(value.value)
            except ValueError:
                continue
            # the module's name alone is an argv item (of a call's arguments), not a line
            if len(words) > 1 and (launches_sglang(words) or _hands_on_launch(words)):
                found.append((value.value, node, _GROWS_TEXT))
        elif isinstance(node, (ast.List, ast.Tuple)) and node.elts and any(
                isinstance(e, ast.Constant) and is_launcher(e.value) for e in node.elts):
            if literals is None:
                literals = bound_literals(tree)
            words = _items(node.elts, literals, tree)
            if launches_sglang(words):
                found.append((words, node, _GROWS_LIST))
        elif isinstance(node, (ast.List, ast.Tuple)) and any(map(_fragment, node.elts)):
            if literals is None:
                literals = bound_literals(tree)
            line = " ".join(_piece(e, literals) for e in node.elts)
            try:
                if launches_sglang(shell_vars.shell_split(line)):
                    found.append((line, node, _GROWS_PARTS))
            except ValueError:
                continue
    found, manifests = _manifest_literals(found)
    kept = _own_launches(tree, found, shown, data, prose)
    if not manifests:
        return kept
    started = _manifest_launches(tree, manifests, templates)
    return sorted([*kept, *started], key=lambda item: _position(item[1]))


def _joins_text(node: ast.BinOp) -> bool:
    """Whether a ``+`` chain joins text: one of its operands a string literal or f-string."""
    return any(isinstance(n, ast.JoinedStr) or (isinstance(n, ast.Constant)
                                               and isinstance(n.value, str))
               for n in (node.left, node.right)) or any(
        isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and _joins_text(n)
        for n in (node.left, node.right))


def _formats_text(node: ast.AST) -> bool:
    """Whether ``node`` fills a string literal's fields: ``"..." % args``, ``"...".format()``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format" and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str))


def _own_launches(tree: ast.Module, found: list[tuple[str | list[str], ast.AST, str]],
                  shown: list[ast.AST] | None = None,
                  data: list[tuple[ast.AST, list[str]]] | None = None,
                  prose: list[ast.AST] | None = None
                  ) -> list[tuple[str | list[str], ast.AST, str]]:
    """``found`` in source order without the literals that start no launch of their own
    (see ``_launch_nodes``); the printed or raised ones go into ``shown``, those the
    script only handles as data (``_data_only``) into ``data``, the docstrings that only
    name the launcher in a sentence (``_prose_only``) into ``prose``."""
    inert: set[int] = set()  # the nodes inside a print or log call's arguments
    told: set[int] = set()  # those a user is shown (not a file written)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and called_name(node) in _INERT_CALLS:
            held = {id(n) for arg in (*node.args, *node.keywords) for n in ast.walk(arg)}
            inert |= held
            if called_name(node) != "write":
                told |= held
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            # ``raise SystemExit(f"... Start it with: python -m sglang.launch_server ...")``:
            # the message's text (a call among the arguments may still run one)
            held = {id(n) for arg in node.exc.args if _text_only(arg) for n in ast.walk(arg)}
            inert |= held
            told |= held
    if found:
        more_inert, more_told = _returned_to_show(tree, inert, told)
        inert |= more_inert
        told |= more_told
    kept: list[tuple[str | list[str], ast.AST, str]] = []
    inside: set[int] = set()
    for item in sorted(found, key=lambda f: _position(f[1])):
        node = item[1]
        if id(node) in told and id(node) not in inside and shown is not None:
            shown.append(node)
        if id(node) not in inside and id(node) not in inert:
            inside.update(id(n) for n in ast.walk(node) if n is not node)
            kept.append(item)
    pieces = {v.value.id for _, node, _ in kept if isinstance(node, ast.JoinedStr)
              for v in node.values
              if isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name)}
    named = {id(node.value) for node in ast.walk(tree)
             if isinstance(node, ast.Assign) and len(node.targets) == 1
             and isinstance(node.targets[0], ast.Name) and node.targets[0].id in pieces}
    kept = [item for item in kept if id(item[1]) not in named]
    kept = _data_only(tree, kept, data)
    # ``if TP > 1: cmd = [...] else: cmd = [...]``: the branch the script's own values take
    # is its launch; one it never runs is none (unless no launch is left: then the text's
    # launch is what the user pasted it for, its guard a switch they flip)
    from launchplan.input.python_values import decided

    live = [item for item in kept if not any(
        decided(tree, branch, field) is False for branch, field in branches(tree, item[1]))]
    live = live or kept
    # a docstring (or any bare string statement) describes the code; its words are the
    # launch only when the code itself builds none ("Launch sglang.launch_server with common
    # options." above the function that joins the real command)
    bare = {id(stmt.value) for stmt in ast.walk(tree) if isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)}
    said = [item for item in live if id(item[1]) in bare
            and _prose_only(item[0])]  # type: ignore[arg-type]
    if prose is not None:
        prose.extend(item[1] for item in said)
    live = [item for item in live if item not in said]
    return [item for item in live if id(item[1]) not in bare] or live


def _prose_only(text: str) -> bool:
    """Whether each line of a docstring that names the launcher is a sentence about it
    (``Launch sglang.launch_server with common options.``), no command a reader could run:
    the program's code is then what launches, read or not."""
    from launchplan.input.pasted import _refuse_sentence, launches_sglang

    for line in text.splitlines():
        try:
            words = shell_vars.shell_split(line)
        except ValueError:
            words = line.split()
        if not launches_sglang(words):
            continue
        try:
            _refuse_sentence(words)
        except InputError:
            continue
        return False
    return True


def _data_only(tree: ast.Module, kept: list[tuple[str | list[str], ast.AST, str]],
               data: list[tuple[ast.AST, list[str]]] | None
               ) -> list[tuple[str | list[str], ast.AST, str]]:
    """``kept`` without the command literals the script only handles as data
    (``python_flow.data_uses``: a lint test's table of allowed commands, a constant only
    compared, a local only asserted), which go into ``data`` with what it does with each.
    A literal that reaches any call that may run it, or that nothing uses, stays."""
    out: list[tuple[str | list[str], ast.AST, str]] = []
    for item in kept:
        node = item[1]
        how = None
        if isinstance(node, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.List, ast.Tuple)) \
                or _formats_text(node):
            how = data_uses(tree, node)
        if how is None:
            out.append(item)
        elif data is not None:
            data.append((node, how))
    return out


# A manifest a script holds as text (a Compose file or a Kubernetes object in a triple-quoted
# string it fills in with ``str.format``): its containers start only when the script hands
# the text to what runs it, as a shell script's here-document does (``heredoc``).

#: ``grows`` of a launch read from a manifest the script starts; what starts it follows.
_FROM_MANIFEST = "manifest:"


class _Template(NamedTuple):
    """A manifest's text a script holds and starts nothing with."""

    node: ast.AST  # where the text stands
    kind: str  # "a Compose file", "a Kubernetes manifest"
    written: str | None  # the file the script writes it to, if it writes one
    unread: str | None = None  # why the text the script does start cannot be read


#: ``grows`` of a literal that holds a manifest's text (``_manifest_text``).
_MANIFEST_TEXT = "manifest text"
#: SGLang's launcher as a manifest names it: in a command line, or as exec-form items.
_MANIFEST_LAUNCHER = re.compile(r"sglang[._]launch_server|\bsglang\W{1,4}serve\b")


def _manifest_text(text: str) -> bool:
    """Whether a literal's text is a manifest that runs SGLang (a Compose file, a
    Kubernetes object: ``manifest.looks_like_manifest``), read as one: its folded
    ``command: >`` lines are one command, its exec-form lists argv items, neither of which
    the shell reader takes so. (A task file whose ``run:`` script holds shell lines, as
    SkyPilot's, is left to the shell reader: what starts it is no ``docker compose up``.)"""
    if "\n" not in text or ":" not in text or text.lstrip().startswith("[") \
            or _MANIFEST_LAUNCHER.search(text) is None or _manifest_kind(text) is None:
        return False
    from launchplan.input.manifest import looks_like_manifest

    return looks_like_manifest(text)


def _manifest_literals(found: list[tuple[str | list[str], ast.AST, str]]
                       ) -> tuple[list[tuple[str | list[str], ast.AST, str]],
                                  list[tuple[str | list[str], ast.AST, str]]]:
    """(``found`` without the manifests' texts, those texts): a literal that holds one, or a
    text made from it that does (``.format(...)`` of it, an f-string); a launch literal
    inside one (the template a ``.format`` call fills, an f-string's own pieces) is part
    of it."""
    manifests = [item for item in found if item[2] == _MANIFEST_TEXT]
    if not manifests:
        return found, []
    inside = {id(n) for _, node, _ in manifests for n in ast.walk(node) if n is not node}
    manifests = [item for item in manifests if id(item[1]) not in inside]
    held = inside | {id(node) for _, node, _ in manifests}
    return [item for item in found if id(item[1]) not in held], manifests


def _manifest_launches(tree: ast.Module, manifests: list[tuple[str | list[str], ast.AST, str]],
                       templates: list[_Template] | None
                       ) -> list[tuple[str | list[str], ast.AST, str]]:
    """The launches of the manifests the script starts: a text it writes to a file that a
    command it runs starts (``docker compose up``, ``kubectl apply -f``), or feeds to
    ``kubectl apply -f -``. The script's steps are written as the shell lines that take
    them, so ``heredoc.applied_manifest`` judges them as it does a shell script's; each
    container of such a manifest that runs SGLang is one launch (its environment before
    its words). The others go into ``templates``."""
    from launchplan.input.heredoc import applied_manifest
    from launchplan.input.manifest import launch_in, launch_total

    literals = bound_literals(tree)
    out: list[tuple[str | list[str], ast.AST, str]] = []
    for value, node, _ in manifests:
        uses = _TextUses(tree, node, str(value), literals)
        writes = uses.writes()
        applied = applied_manifest(_as_shell_steps(writes, uses.runs()))
        kind = _manifest_kind(str(value)) or "a manifest"
        written = writes[0][0] if writes else None
        if applied is None:
            if templates is not None:
                templates.append(_Template(node, kind, written))
            continue
        total = launch_total(applied.body)
        if not total:
            try:
                launch_in(applied.body)
                unread = "it runs no SGLang launcher"
            except InputError as error:
                unread = error.message
            if templates is not None:
                templates.append(_Template(node, kind, written, unread))
            continue
        for which in range(1, total + 1):
            words, env = launch_in(applied.body, which)
            out.append(([*env, *words], node, _FROM_MANIFEST + applied.runs))
    return out


def _manifest_kind(text: str) -> str | None:
    """What a manifest's text is, as the error names it: one that ``docker compose up`` or
    ``kubectl apply`` starts; None for another kind."""
    if re.search(r"^[ \t]*services[ \t]*:", text, re.MULTILINE):
        return "a Compose file"
    if re.search(r"^[ \t]*(?:apiVersion|kind|containers)[ \t]*:", text, re.MULTILINE):
        return "a Kubernetes manifest"
    return None


def _only_templated(template: _Template) -> InputError:
    """The error for a Python script whose only SGLang launch is in a manifest's text it
    never starts (a deploy script that renders ``docker-compose.yml`` and prints how to
    start it): as with a command it only prints, the script itself starts nothing."""
    line = getattr(template.node, "lineno", "?")
    starts = "docker compose up, kubectl apply -f"
    if template.unread is not None:
        how = f"which it starts, but whose text as the script fills it in does not read: " \
              f"{template.unread}"
    elif template.written is not None:
        how = (f"which it writes to {template.written} but starts with no command it runs "
               f"({starts}; one it only prints starts nothing)")
    else:
        how = ("which it only fills in or returns: it writes it to no file that a command it "
               f"runs starts ({starts})")
    return InputError("the pasted text", EXPECTED_LAUNCH, message=(
        f"the pasted text: expected {EXPECTED_LAUNCH}, got none: the Python script holds "
        f"{template.kind}'s text (line {line}), {how}; paste the manifest as the script "
        "writes it to plan its launch"))


def _manifest_note(node: ast.AST, grows: str) -> str:
    return (f"the Python script starts the manifest text at line {getattr(node, 'lineno', '?')} "
            f"with {grows[len(_FROM_MANIFEST):]}: the launch is read from that manifest")


#: Calls that run a command: ``subprocess``'s, ``os.system``, asyncio's.
_RUN_CALLS = frozenset({"run", "Popen", "call", "check_call", "check_output", "system", "popen",
                        "getoutput", "getstatusoutput", "create_subprocess_exec",
                        "create_subprocess_shell"})
#: Calls that give back the text they are handed, changed as written here.
_TEXT_FUNCTIONS = frozenset({"textwrap.dedent", "dedent", "inspect.cleandoc", "cleandoc"})
#: A text's methods that give it back filled in (``str.format``, a ``string.Template``'s
#: ``substitute``, a Jinja template's ``render``) or stripped.
_TEXT_METHODS = frozenset({"format", "substitute", "safe_substitute", "render", "strip",
                           "lstrip", "rstrip"})
#: A here-document's end the shell steps below never hold as a line of a manifest.
_STEP_END = "LAUNCHPLAN_WRITTEN_TEXT"


class _TextUses:
    """How a script uses one text literal (``node``): the expressions whose value is that
    text or made from it (a name bound to it, ``.format(...)`` of it, a function that
    returns one of those, ``textwrap.dedent`` of it), the files it writes one of them to,
    and the commands it runs."""

    def __init__(self, tree: ast.Module, node: ast.AST, raw: str,
                 literals: dict[str, str]) -> None:
        self.tree, self.node, self.raw, self.literals = tree, node, raw, literals
        self.names: dict[str, ast.expr] = {}
        self.functions: dict[str, ast.expr] = {}
        assigns = [(a.targets[0].id, a.value) for a in ast.walk(tree)
                   if isinstance(a, ast.Assign) and len(a.targets) == 1
                   and isinstance(a.targets[0], ast.Name)]
        assigns += [(a.target.id, a.value) for a in ast.walk(tree)
                    if isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name)
                    and a.value is not None]
        functions = [f for f in ast.walk(tree)
                     if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for _ in range(6):  # a name bound to a function's result that returns another's...
            grew = False
            for name, value in assigns:
                if name not in self.names and self.text(value) is not None:
                    self.names[name] = value
                    grew = True
            for function in functions:
                if function.name in self.functions:
                    continue
                made = next((r for r in _returned(function) if self.text(r) is not None), None)
                if made is not None:
                    self.functions[function.name] = made
                    grew = True
            if not grew:
                break

    def text(self, expr: ast.expr, depth: int = 0) -> str | None:
        """The text ``expr`` makes when it is the literal or made from it (its fields filled
        with what the script passes, an open one left as written); None otherwise."""
        if depth > 12:
            return None
        if expr is self.node:
            if isinstance(expr, ast.JoinedStr):
                return rendered_text(expr, self.literals)
            return self.raw if isinstance(expr, ast.Constant) else word_of(expr, self.literals)
        if isinstance(expr, ast.Name):
            bound = self.names.get(expr.id)
            return None if bound is None else self.text(bound, depth + 1)
        if isinstance(expr, ast.IfExp):  # a file's template if it exists, else the fallback
            from launchplan.input.python_values import truth

            held = truth(expr.test, self.tree)
            sides = [expr.body, expr.orelse] if held is None else \
                [expr.body if held else expr.orelse]
            return next((made for side in sides
                         if (made := self.text(side, depth + 1)) is not None), None)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod):
            base = self.text(expr.left, depth + 1)
            if base is None:
                return None
            args = expr.right.elts if isinstance(expr.right, ast.Tuple) else [expr.right]
            filled = iter(word_of(a, self.literals) for a in args)
            return PERCENT_FIELD.sub(
                lambda m: "%" if m.group(0) == "%%" else next(filled, m.group(0)), base)
        if not isinstance(expr, ast.Call):
            return None
        func = expr.func
        if isinstance(func, ast.Name) and func.id in self.functions:
            return self.text(self.functions[func.id], depth + 1)
        called = ast.unparse(func)
        if called in _TEXT_FUNCTIONS and len(expr.args) == 1:
            base = self.text(expr.args[0], depth + 1)
            return None if base is None else textwrap.dedent(base)
        if called.rsplit(".", 1)[-1] == "Template" and len(expr.args) == 1:
            return self.text(expr.args[0], depth + 1)  # string's or Jinja's, filled below
        if not isinstance(func, ast.Attribute) or func.attr not in _TEXT_METHODS:
            return None
        base = self.text(func.value, depth + 1)
        if base is None:
            return None
        if func.attr in ("strip", "lstrip", "rstrip"):
            return getattr(base, func.attr)() if not expr.args else None
        positional = [word_of(a, self.literals) for a in expr.args]
        named = {k.arg: word_of(k.value, self.literals) for k in expr.keywords if k.arg}
        if func.attr == "format":
            return formatted(base, positional, named)
        if func.attr == "render":  # Jinja's ``{{ name }}``; a field not passed stays
            return re.sub(r"\{\{\s*(\w+)\s*\}\}",
                          lambda m: named.get(m.group(1), m.group(0)), base)
        import string

        return string.Template(base).safe_substitute(named)

    def writes(self) -> list[tuple[str, str]]:
        """(the path, the text) of each write of the text to a file: ``open(P, "w")``'s
        ``write`` (directly, or through the name ``with ... as f`` or ``f = open(...)``
        binds), ``Path(P).write_text``; in source order."""
        handles: dict[str, ast.expr] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
                bound, opening = node.optional_vars.id, node.context_expr
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name):
                bound, opening = node.targets[0].id, node.value
            else:
                continue
            opened = _opened_path(opening, bound)
            if opened is not None:
                handles[bound] = opened
        out: list[tuple[int, int, str, str]] = []
        for node in ast.walk(self.tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and len(node.args) == 1):
                continue
            holder = node.func.value
            if node.func.attr == "write_text":
                path: ast.expr | None = holder
            elif node.func.attr == "write":
                path = handles.get(holder.id) if isinstance(holder, ast.Name) \
                    else _opened_path(holder)
            else:
                continue
            made = self.text(node.args[0]) if path is not None else None
            if path is not None and made is not None:
                out.append((node.lineno, node.col_offset, word_of(path, self.literals), made))
        return [(path, made) for *_, path, made in sorted(out)]

    def runs(self) -> list[tuple[str, str | None]]:
        """(the command line, the text fed on its stdin when it is this one) of each
        command the script runs (``subprocess.run([...])``, ``os.system("...")``), in
        source order."""
        out: list[tuple[int, int, str, str | None]] = []
        for node in ast.walk(self.tree):
            if not (isinstance(node, ast.Call) and node.args and called_name(node) in _RUN_CALLS):
                continue
            first = _last_binding(self.tree, node.args[0])
            if called_name(node) == "create_subprocess_exec":
                words: list[str] | None = [word_of(a, self.literals) for a in node.args]
            elif isinstance(first, (ast.Constant, ast.JoinedStr, ast.BinOp)):
                words = None
            else:
                words = _list_words(first, self.literals, self.tree)
            line = " ".join(map(_step_word, words)) if words is not None \
                else _open_names(word_of(first, self.literals))
            fed = next((k.value for k in node.keywords if k.arg == "input"), None)
            out.append((node.lineno, node.col_offset, line,
                        self.text(fed) if fed is not None else None))
        return [(line, fed) for *_, line, fed in sorted(out, key=lambda r: r[:2])]


def _last_binding(tree: ast.Module, node: ast.expr) -> ast.expr:
    """What the name ``node`` was last set to before it, in its own scope (``cmd =
    f"kubectl apply -f {f.name}"`` then ``subprocess.run(cmd, shell=True)``: the f-string,
    its open pieces left open), else ``node``."""
    if not isinstance(node, ast.Name):
        return node
    from launchplan.input.python_values import scope_of

    scope = scope_of(node, tree)
    bound = [a for a in ast.walk(scope) if isinstance(a, ast.Assign) and len(a.targets) == 1
             and isinstance(a.targets[0], ast.Name) and a.targets[0].id == node.id
             and a.lineno <= node.lineno and scope_of(a, tree) is scope]
    return max(bound, key=lambda a: (a.lineno, a.col_offset)).value if bound else node


def _opened_path(node: ast.expr, bound: str | None = None) -> ast.expr | None:
    """The path ``node`` opens for writing (``open(P, "w")``, ``io.open``, ``P.open("w")``
    of a path; a ``tempfile.NamedTemporaryFile`` bound to ``bound``: its ``.name``), else
    None."""
    if not isinstance(node, ast.Call):
        return None
    func = ast.unparse(node.func)
    if func in ("open", "io.open", "codecs.open") and node.args:
        path, mode = node.args[0], node.args[1] if len(node.args) > 1 else None
    elif isinstance(node.func, ast.Attribute) and node.func.attr == "open":
        path, mode = node.func.value, node.args[0] if node.args else None
    elif func.rsplit(".", 1)[-1] == "NamedTemporaryFile" and bound is not None:
        # (its default mode, ``w+b``, writes too)
        path = ast.Attribute(ast.Name(bound, ast.Load()), "name", ast.Load())
        mode = node.args[0] if node.args else ast.Constant("w+b")
    else:
        return None
    mode = next((k.value for k in node.keywords if k.arg == "mode"), mode)
    written = isinstance(mode, ast.Constant) and isinstance(mode.value, str) \
        and any(c in mode.value for c in "wax")
    return path if written else None


def _step_word(word: str) -> str:
    """An argv item or path as a shell line writes it (``_open_names``), quoted when it
    holds a space."""
    word = _open_names(word)
    return shlex.quote(word) if re.search(r"\s", word) else word


def _open_names(text: str) -> str:
    """``text`` with each value only the run knows (``${args.out}``) written as a shell
    variable of the same name (``${args_out}``), which file matching reads as any text."""
    return re.sub(r"\$\{([^}]*)\}", lambda m: "${" + re.sub(r"\W", "_", m.group(1)) + "}",
                  text)


def _as_shell_steps(writes: list[tuple[str, str]], runs: list[tuple[str, str | None]]) -> str:
    """The shell lines that take a script's steps: each write of the text a here-document
    into its file, then each command it runs (one fed the text, that text piped in). The
    writes go first: a script's functions run in the order its main calls them, which
    their order in the file does not tell."""
    lines: list[str] = []
    for path, made in writes:
        lines += [f"cat > {_step_word(path)} <<'{_STEP_END}'", made.rstrip("\n"), _STEP_END]
    for line, fed in runs:
        if fed is None:
            lines.append(line)
        else:
            lines += [f"cat <<'{_STEP_END}' | {line}", fed.rstrip("\n"), _STEP_END]
    return "\n".join(lines)


def _returned_to_show(tree: ast.Module, inert: set[int], told: set[int]
                      ) -> tuple[set[int], set[int]]:
    """(the nodes of what a function returns when every call of it in the script only
    shows or writes the result, those of them only shown): ``print(build_cmd(cfg))`` of a
    ``build_cmd`` that returns an f-string command starts nothing, as printing the f-string
    itself does not. A result assigned to a name counts by that name's uses; a function the
    script never calls (a library's) keeps its command."""
    functions = [node for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not functions:
        return set(), set()
    calls: dict[str, list[ast.Call]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            calls.setdefault(called_name(node), []).append(node)
    more_inert: set[int] = set()
    more_told: set[int] = set()
    for function in functions:
        made = calls.get(function.name)
        if not made:
            continue
        uses = [_result_use(tree, call, inert, told) for call in made]
        if "runs" in uses:
            continue
        held = {id(n) for value in _returned(function) if _made_value(value)
                for n in ast.walk(value)}
        more_inert |= held
        if all(use == "told" for use in uses):
            more_told |= held
    return more_inert, more_told


def _result_use(tree: ast.Module, call: ast.Call, inert: set[int], told: set[int]) -> str:
    """How a script uses what ``call`` returns: ``told`` (only printed or logged),
    ``inert`` (only written to a file, or shown), ``runs`` (anything else: handed to a
    process, returned on, kept). A result assigned to a plain name is judged by that name's
    uses after it."""
    if id(call) in told:
        return "told"
    if id(call) in inert:
        return "inert"
    assign = next((a for a in ast.walk(tree) if isinstance(a, ast.Assign) and a.value is call
                   and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)), None)
    if assign is None:
        return "runs"
    from launchplan.input.python_values import binding_scope

    target = assign.targets[0]
    holder = binding_scope(target, tree)  # type: ignore[arg-type]
    after = (assign.end_lineno or assign.lineno, assign.end_col_offset or 0)
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name)
            and n.id == target.id and isinstance(n.ctx, ast.Load)  # type: ignore[attr-defined]
            and (n.lineno, n.col_offset) >= after and binding_scope(n, tree) is holder]
    if not uses or any(id(n) not in inert for n in uses):
        return "runs"
    return "told" if all(id(n) in told for n in uses) else "inert"


def _made_value(node: ast.expr) -> bool:
    """Whether a returned ``node`` only makes a command (text, an argv list, ``"...".format()``
    or ``" ".join(...)``), not runs one (``return subprocess.Popen([...])``: printing that
    call's result does not undo the start)."""
    if _text_only(node) or isinstance(node, (ast.List, ast.Tuple, ast.Name)):
        return True
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("format", "join")
            and isinstance(node.func.value, ast.Constant))


#: The nodes whose ``return`` is their own, not the function around them.
_OWN_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _returned(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    """The expressions ``function`` itself returns (not a nested function's), and what it
    assigns to a name it returns (``cmd = f"..."`` then ``return cmd``)."""
    out: list[ast.expr] = []
    names: set[str] = set()
    stack: list[ast.AST] = list(function.body)
    assigns: list[ast.Assign] = []
    while stack:
        node = stack.pop()
        if isinstance(node, _OWN_SCOPES):
            continue
        if isinstance(node, ast.Return) and node.value is not None:
            out.append(node.value)
            if isinstance(node.value, ast.Name):
                names.add(node.value.id)
        elif isinstance(node, ast.Assign):
            assigns.append(node)
        stack.extend(ast.iter_child_nodes(node))
    out += [a.value for a in assigns if len(a.targets) == 1
            and isinstance(a.targets[0], ast.Name) and a.targets[0].id in names]
    return out


def _text_only(node: ast.expr) -> bool:
    """Whether ``node`` only makes text: a string, an f-string, or ``+``/``%`` of them."""
    if isinstance(node, ast.Constant) or isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _text_only(node.left) and (isinstance(node.op, ast.Mod)
                                           or _text_only(node.right))
    return False


#: Calls whose arguments a script shows, not runs: ``print(f"running {cmd}")``,
#: ``logger.info(...)`` name a launch the script starts elsewhere, if at all.
_INERT_CALLS = SHOWING_CALLS | {"write"}


def _position(node: ast.AST) -> tuple[int, int, int, int]:
    """Where ``node`` stands in the source, an enclosing node before the ones it holds."""
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0),
            -getattr(node, "end_lineno", 0), -getattr(node, "end_col_offset", 0))


def _finished(tree: ast.Module, value: str | list[str], node: ast.AST, grows: str,
              notes: list[str] | None) -> str | list[str]:
    """A launch literal with what the script adds to it after assigning it (``cmd =
    f"python -m ..."`` then ``cmd += f"--tp {tp} "`` lines, or an argv list then ``cmd +=
    [...]``): the whole command the additions leave."""
    if grows == _GROWS_TEXT and isinstance(value, str):
        literals = bound_literals(tree)
        pieces = _appended_pieces(tree, node, literals, notes)
        if pieces is not None:
            return pieces
        return value + _grown(tree, node, literals, notes)
    if grows == _GROWS_PARTS and isinstance(value, str):
        literals = bound_literals(tree)
        more = _grown_list(tree, node, literals, notes, pieces=True)
        return " ".join([value, *more]) if more else value
    if grows == _GROWS_LIST and isinstance(value, list):
        literals = bound_literals(tree)
        words = list(value)
        first = node
        for _ in range(8):  # cmd = [...]; full = cmd + extra; run(full + ["--port", p])
            top, joined = _joined_lists(tree, node, literals, notes)
            words += [*joined, *_grown_list(tree, top, literals, notes)]
            derived = _derived_list(tree, top, literals, notes)
            if derived is None:
                break
            node, more = derived
            words += more
        if any(" " in word.strip() for word in words[len(value):]) \
                and _space_joined(tree, first):
            # ``cmd.append(f"--tp {tp}")`` of a list the script runs as ``" ".join(cmd)``:
            # the shell splits each piece, as it splits the whole line
            return " ".join(words)
        return words
    return value


def _piece(node: ast.expr, literals: dict[str, str]) -> str:
    """One piece of a command line a script joins with spaces (``f"--tp {tp}"``): its text
    as the shell will split it (an open expression with spaces kept one word)."""
    if isinstance(node, ast.JoinedStr):
        return rendered_text(node, literals, shell=True)
    return word_of(node, literals)


def _list_name(tree: ast.Module, node: ast.AST) -> tuple[str, ast.AST] | None:
    """(the name of the list ``node`` is assigned to or added to, the statement doing it):
    ``name = [...]`` of the node itself, ``name.append(node)``, ``name.extend([..., node])``
    or ``name += [..., node]``; None otherwise."""
    for stmt in ast.walk(tree):
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is node:
            name = _assigned_name(stmt)
            return (name, stmt) if name is not None else None
        if not isinstance(stmt, (ast.AugAssign, ast.Expr)):
            continue
        name = _added_list(stmt)
        if name is None:
            continue
        added, one = _list_addition(stmt, name)
        if added is node and one or (isinstance(added, (ast.List, ast.Tuple))
                                     and any(e is node for e in added.elts)):
            return name, stmt
    return None


def _space_joined(tree: ast.Module, node: ast.AST,
                  held: tuple[str, ast.AST] | None = None) -> bool:
    """Whether the list ``node`` makes (or is added to: ``held``, see ``_list_name``) is
    run as one command line: ``" ".join(name)`` of its name in the same function, outside
    a print or log call."""
    held = held or _list_name(tree, node)
    if held is None:
        return False
    name, stmt = held
    from launchplan.input.python_values import scope_of

    scope = scope_of(stmt, tree)
    shown = _shown_nodes(tree)
    return any(isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
               and call.func.attr == "join" and isinstance(call.func.value, ast.Constant)
               and call.func.value.value == " " and len(call.args) == 1
               and isinstance(call.args[0], ast.Name) and call.args[0].id == name
               and id(call) not in shown and scope_of(call, tree) is scope
               for call in ast.walk(tree))


def _appended_pieces(tree: ast.Module, node: ast.AST, literals: dict[str, str],
                     notes: list[str] | None) -> str | None:
    """The command line a list of pieces holds when the launcher's piece is added to it
    (``parts = []``, ``parts.append("python3 -m sglang.launch_server")``, then
    ``parts.append(f"--tp {tp}")`` and a ``" ".join(parts)`` the shell runs): every piece
    the list gets from its assignment on, in source order (``_grown_list``: one under a
    test the text leaves open is named in ``notes``); None when ``node`` is not added to
    a list the same function assigns and joins so (``cmd = ["bash", "-c"]`` then
    ``cmd.append("python -m ...")`` is an argv, its command line one item)."""
    held = _list_name(tree, node)
    if held is None or isinstance(held[1], (ast.Assign, ast.AnnAssign)) \
            or not _space_joined(tree, node, held):
        return None
    name, stmt = held
    from launchplan.input.python_values import scope_of

    scope = scope_of(stmt, tree)
    at = _position(stmt)[:2]
    bases = sorted((a for a in ast.walk(tree) if isinstance(a, (ast.Assign, ast.AnnAssign))
                    and _assigns_name(a, name) and _position(a)[:2] < at
                    and isinstance(a.value, (ast.List, ast.Tuple))
                    and scope_of(a, tree) is scope), key=_position)
    if not bases:
        return None
    base = bases[-1].value
    assert isinstance(base, (ast.List, ast.Tuple))
    first = [_piece(e, literals) for e in base.elts if not isinstance(e, ast.Starred)]
    return " ".join([*first, *_grown_list(tree, base, literals, notes, pieces=True,
                                          taken=stmt)])


def _derived_list(tree: ast.Module, node: ast.AST, literals: dict[str, str],
                  notes: list[str] | None) -> tuple[ast.AST, list[str]] | None:
    """(the larger list a script builds on the argv ``name = <node>`` and runs, the words it
    adds): ``name + extra`` (``subprocess.Popen(cmd + extra)``) or ``[*name, *extra]``, its
    first such use after the assignment that reads the same list, outside a print or log
    call and not ruled out by the script's values. None when the script runs ``name`` as
    it is first (``Popen(cmd)``), or builds on it nowhere. A piece not read here, or a use
    under a test the text leaves open, is named in ``notes``."""
    assign = next((a for a in ast.walk(tree) if isinstance(a, (ast.Assign, ast.AnnAssign))
                   and a.value is node and _assigned_name(a) is not None), None)
    if assign is None:
        return None
    name = _assigned_name(assign)
    from launchplan.input.python_values import binding_scope

    target = assign.targets[0] if isinstance(assign, ast.Assign) else assign.target
    holder = binding_scope(target, tree)  # type: ignore[arg-type]
    parents = {id(child): parent for parent in ast.walk(tree)
               for child in ast.iter_child_nodes(parent)}
    shown = _shown_nodes(tree)
    where = dict((id(branch), field) for branch, field in branches(tree, assign))
    after = (assign.end_lineno or assign.lineno, assign.end_col_offset or 0)
    uses = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name
                   and isinstance(n.ctx, ast.Load) and (n.lineno, n.col_offset) >= after
                   and id(n) not in shown and binding_scope(n, tree) is holder),
                  key=_position)
    for use in uses:
        parent = parents.get(id(use))
        grown: ast.AST | None = None
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add) \
                and parent.left is use:
            grown = parent
        elif isinstance(parent, ast.Starred) and isinstance(
                display := parents.get(id(parent)), (ast.List, ast.Tuple)) \
                and display.elts and display.elts[0] is parent and len(display.elts) > 1:
            grown = display
        elif isinstance(parent, ast.Call) and use in parent.args \
                and called_name(parent) not in LOOKING_CALLS:
            return None  # ``Popen(cmd)``: the list itself is what runs
        if grown is None:
            continue
        state, test = branch_state(tree, grown, where)
        if state is False:
            continue
        if state is None:
            if notes is not None:
                notes.append(_conditional_note(f"argv {name}", grown, test))
            continue
        if isinstance(grown, ast.BinOp):
            return grown, _joined_words(grown, literals, tree, notes)
        # an open spread stays a ``${*X}`` word: ``_without_open_spreads`` names it
        return grown, _items(grown.elts[1:], literals, tree)  # type: ignore[attr-defined]
    return None


def _shown_nodes(tree: ast.Module) -> set[int]:
    """The nodes inside a print or log call's arguments (``_INERT_CALLS``): what a script
    shows, not runs."""
    return {id(n) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and called_name(node) in _INERT_CALLS
            for arg in (*node.args, *node.keywords) for n in ast.walk(arg)}


def _joined_lists(tree: ast.Module, node: ast.AST, literals: dict[str, str],
                  notes: list[str] | None) -> tuple[ast.AST, list[str]]:
    """(the whole ``+`` chain an argv list literal starts, the words the lists after it
    add): ``[...] + EXTRA.split()``, ``[...] + shlex.split("...")``, ``[...] + (["--x"] if
    FP8 else [])`` make one argv, which the script assigns as a whole. A piece not read
    here is named in ``notes``."""
    parents = {id(n.left): n for n in ast.walk(tree)
               if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add)}
    top, words = node, []
    while id(top) in parents:
        chain = parents[id(top)]
        words += _joined_words(chain, literals, tree, notes)
        top = chain
    return top, words


def _joined_words(join: ast.BinOp, literals: dict[str, str], tree: ast.Module,
                  notes: list[str] | None) -> list[str]:
    """The words the list on the right of an argv's ``+`` adds; none, named in ``notes``,
    when the text does not give them."""
    more = _list_words(join.right, literals, tree, notes=notes)
    if more is None:
        if notes is not None:
            notes.append(f"the launch's argv is joined at line {join.lineno} with "
                         f"{shortened(ast.unparse(join.right))}, which launchplan cannot read "
                         "from the text: the flags it adds are not planned; give them after "
                         "the pasted text")
        return []
    return more


def _conditional_note(name: str, stmt: ast.AST, test: str) -> str:
    """The note for an addition to a launch made only under a test the text leaves open."""
    return (f"the launch's {name} grows at line {getattr(stmt, 'lineno', 0)} "
            f"({shortened(ast.unparse(stmt))}) only when {test}, which the pasted text does not "
            "fix: the flags it adds are not planned; give them after the pasted text if the "
            "script's run adds them")


#: What SGLang's docs helper ``sglang.test.doc_patch.launch_server_cmd`` (0.5.21 to 0.5.23
#: alike) puts after the command it is handed, after ``--port``: a notebook's server kept
#: small enough for several to share one GPU. ``sglang.utils.launch_server_cmd`` adds only
#: the port. Appended last, these win over the same flags in the command (argparse keeps a
#: flag's last value).
_DOC_PATCH_FLAGS = ("--max-running-requests", "128", "--max-total-tokens", "20480",
                    "--disable-cuda-graph", "--cuda-graph-max-bs-decode", "4")


def _with_helper_flags(tree: ast.Module, value: str | list[str], node: ast.AST
                       ) -> str | list[str]:
    """``value`` as a ``launch_server_cmd(command, host=..., port=...)`` call runs it: the
    helper adds ``--port`` (a free port it reserves when none is given: left out here, the
    number is only known at run time) and, when it is the docs' patched helper, the flags
    above. Any other launch is ``value`` unchanged."""
    call = _helper_call(tree, node)
    if call is None:
        return value
    given = {k.arg: k.value for k in call.keywords if k.arg}
    for name, item in zip(("command", "host", "port"), call.args):
        given.setdefault(name, item)
    port = given.get("port")
    added: list[str] = []
    if isinstance(port, ast.Constant) and isinstance(port.value, (int, str)) \
            and port.value is not None and not isinstance(port.value, bool):
        added += ["--port", str(port.value)]
    if _from_doc_patch(tree, call):
        added += _DOC_PATCH_FLAGS
    if not added:
        return value
    if isinstance(value, list):
        return [*value, *added]
    return f"{value.rstrip()} {shlex.join(added)}"


def _helper_call(tree: ast.Module, node: ast.AST) -> ast.Call | None:
    """The ``launch_server_cmd`` call ``node`` is the command of: handed to it directly, or
    through a name it was assigned to."""
    named = {target.id for assign in ast.walk(tree) if isinstance(assign, ast.Assign)
             and assign.value is node for target in assign.targets
             if isinstance(target, ast.Name)}
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and called_name(call) == "launch_server_cmd"):
            continue
        command = call.args[0] if call.args else next(
            (k.value for k in call.keywords if k.arg == "command"), None)
        if command is node or (isinstance(command, ast.Name) and command.id in named):
            return call
    return None


def _from_doc_patch(tree: ast.Module, call: ast.Call) -> bool:
    """Whether the called ``launch_server_cmd`` is ``sglang.test.doc_patch``'s: imported
    from it (under its own name or another), or reached through the module."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return "doc_patch" in ast.unparse(func.value)
    name = getattr(func, "id", "")
    source = None
    for imported in ast.walk(tree):
        if isinstance(imported, ast.ImportFrom) and imported.module:
            for alias in imported.names:
                if (alias.asname or alias.name) == name:
                    source = imported.module  # the last import of the name is the one called
    return source is not None and source.endswith("doc_patch")


def _picked(found: list[tuple[str | list[str], ast.AST, str]], launch: int | None
            ) -> tuple[int, int]:
    """(which of ``found`` holds the ``launch``-th launch, which launch of it that is): a
    number past the last picks the last, as the shell reader's pick does."""
    wanted = max(launch or 1, 1)
    count = 1
    for at, (value, *_) in enumerate(found):
        count = _launches_in(value)
        if wanted <= count:
            return at, wanted
        wanted -= count
    return len(found) - 1, count


#: Keywords a cloud SDK's call takes a container's command and arguments in (Vertex AI's
#: ``Model.upload(serving_container_command=[...], serving_container_args=[...])``).
_CONTAINER_KEYWORDS = (("serving_container_command", "serving_container_args"),)


def _container_keywords(call: ast.Call) -> list[ast.expr]:
    """The items of a call's container command and arguments keywords, in that order (the
    container runs the command with the arguments after it); empty for any other call."""
    given = {k.arg: k.value for k in call.keywords if k.arg}
    for keys in _CONTAINER_KEYWORDS:
        lists = [given.get(key) for key in keys]
        if any(isinstance(value, (ast.List, ast.Tuple)) for value in lists):
            return [item for value in lists if isinstance(value, (ast.List, ast.Tuple))
                    for item in value.elts]
    return []




def _test_helper_launch(tree: ast.Module, call: ast.Call,
                        literals: dict[str, str]) -> list[str] | None:
    """The server SGLang's own test helper ``popen_launch_server(model, base_url, timeout,
    api_key=None, other_args=[...], ..., pd_separated=False)`` starts (its tests are pasted
    into issues): ``sglang serve --model-path MODEL *other_args --host H --port P
    [--api-key K]``, as SGLang 0.5.23's ``sglang/test/test_utils.py`` builds it. A test's
    ``cls.X = ...`` attributes are read as names; other_args the text does not spell out
    are one open spread. None for a PD-separated launch (another launcher)."""
    given = {k.arg: k.value for k in call.keywords if k.arg}
    for name, value in zip(("model", "base_url", "timeout", "api_key", "other_args"), call.args):
        given.setdefault(name, value)
    pd = given.get("pd_separated")
    if "model" not in given or (isinstance(pd, ast.Constant) and pd.value) \
            or "num_replicas" in given:
        return None
    known = {**literals, **_attribute_literals(tree, literals)}
    # SGLang's test URL (test_utils.py): port 20000 + 1000 x the first visible GPU's index,
    # + 1000, outside its CI; 21000 with the first GPU (or none named), as a user runs a test
    known.setdefault("DEFAULT_URL_FOR_TEST", "http://127.0.0.1:21000")
    argv = ["sglang", "serve", "--model-path", word_of(given["model"], known)]
    extra = given.get("other_args")
    if extra is not None and not (isinstance(extra, ast.Constant) and extra.value is None):
        value = _local_value(tree, call, extra)
        words = _helper_args(tree, value, known)
        if words is None:
            words = _list_words(value, known, tree)
        # args known only when the test runs: one open spread, planned without (a note)
        argv += list(words) if words is not None else ["${*" + _spread_name(extra) + "}"]
    url = word_of(given["base_url"], known) if "base_url" in given else ""
    host, _, port = url.rpartition("://")[2].partition(":")
    if host and port and "${" not in url:
        argv += ["--host", host, "--port", port.rstrip("/")]
    key = given.get("api_key")
    if key is not None and not (isinstance(key, ast.Constant) and key.value is None):
        argv += ["--api-key", word_of(key, known)]
    return argv


def _defines(tree: ast.Module, name: str) -> bool:
    """Whether the script defines a class or function ``name`` of its own (then a call of
    it is the script's, not SGLang's helper of that name)."""
    return any(isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
               and node.name == name for node in ast.walk(tree))


#: Switches SGLang's ``ModelLaunchSettings`` adds to every launch it describes.
_SETTINGS_SWITCHES = ("--enable-multimodal", "--trust-remote-code")
#: The calls of SGLang's test runners that launch each settings object they are handed,
#: with the base URL they take (``DEFAULT_URL_FOR_TEST`` without one).
_SETTINGS_RUNNERS = frozenset({"run_combined_tests", "run_metrics"})


def _settings_launch(tree: ast.Module, call: ast.Call,
                     literals: dict[str, str]) -> list[str] | None:
    """The server SGLang's nightly tests describe with ``ModelLaunchSettings(model_path,
    tp_size=1, extra_args=None, env=None, variant=None, launch_timeout=None)`` and hand to a
    runner (``run_combined_tests``, ``run_metrics``): SGLang 0.5.23's
    ``sglang/test/test_utils.py`` appends ``--tp N`` to the extra args when ``tp_size > 1``
    and the literal word ``--tp`` is not among them (``--tp=8`` is not that word, so both
    are passed), then ``--enable-multimodal`` and ``--trust-remote-code`` unless present;
    the runners start it with ``popen_launch_server`` (``sglang serve --model-path MODEL
    *extra_args --host H --port P``). Extra args known only at run time (an imported list)
    stay one open spread, planned without (with a note). None without a model."""
    given = {k.arg: k.value for k in call.keywords if k.arg}
    names = ("model_path", "tp_size", "extra_args", "env", "variant", "launch_timeout")
    for name, value in zip(names, call.args):
        given.setdefault(name, value)
    if "model_path" not in given or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return None
    known = {**literals, **_attribute_literals(tree, literals)}
    known.setdefault("DEFAULT_URL_FOR_TEST", "http://127.0.0.1:21000")
    extra: list[str] = []
    held = given.get("extra_args")
    if held is not None and not (isinstance(held, ast.Constant) and held.value is None):
        value = _local_value(tree, call, held)
        words = _helper_args(tree, value, known)
        if words is None:
            words = _list_words(value, known, tree)
        extra = list(words) if words is not None else ["${*" + _spread_name(held) + "}"]
    tp = given.get("tp_size")
    if tp is not None:
        from launchplan.input.python_values import fixed

        size = fixed(tp, tree)
        if isinstance(size, bool) or not isinstance(size, (int, float)):
            extra += ["--tp", word_of(tp, known)]  # open: its value is the run's
        elif size > 1 and "--tp" not in extra:
            extra += ["--tp", str(size)]
    extra += [switch for switch in _SETTINGS_SWITCHES if switch not in extra]
    argv = ["sglang", "serve", "--model-path", word_of(given["model_path"], known), *extra]
    url = word_of(_settings_url(tree, call) or ast.Name("DEFAULT_URL_FOR_TEST"), known)
    host, _, port = url.rpartition("://")[2].partition(":")
    if host and port and "${" not in url:
        argv += ["--host", host, "--port", port.rstrip("/")]
    return argv



#: SGLang's test helpers that start a server -> (the reader of a call, whether a script's own
#: function of that name hides it): ``popen_launch_server`` (a script's own wrapper keeps
#: the helper's signature), ``ModelLaunchSettings`` of the nightly tests
_HELPER_READERS: dict[str, tuple[Callable[[ast.Module, ast.Call, dict[str, str]],
                                          list[str] | None], bool]] = {
    "popen_launch_server": (_test_helper_launch, False),
    "ModelLaunchSettings": (_settings_launch, True)}

def _settings_url(tree: ast.Module, call: ast.Call) -> ast.expr | None:
    """The ``base_url=`` of the runner call in the function that makes ``call`` (the
    runner launches the settings there); None without one (its default)."""
    for func in ast.walk(tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                inner is call for inner in ast.walk(func)):
            for node in ast.walk(func):
                if isinstance(node, ast.Call) and called_name(node) in _SETTINGS_RUNNERS:
                    return next((k.value for k in node.keywords if k.arg == "base_url"), None)
    return None


def _attribute_literals(tree: ast.Module, literals: dict[str, str]) -> dict[str, str]:
    """A test class's ``cls.X = <literal>`` (``self.X`` too) settings, as ``cls.X``."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Attribute) \
                and isinstance(node.targets[0].value, ast.Name) \
                and not isinstance(node.value, (ast.List, ast.Tuple, ast.Dict)):
            out[ast.unparse(node.targets[0])] = word_of(node.value, literals)
    return out


def _helper_args(tree: ast.Module, node: ast.expr, known: dict[str, str],
                 depth: int = 0) -> list[str] | None:
    """The words of a test helper's ``other_args``: a list, a name or ``cls.X`` the script
    sets to one (or a test class's own ``X = [...]``, which ``cls.X`` reads), and lists joined
    with ``+`` (SGLang's tests write ``["--chunked-prefill-size", "128"] + cls.other_args``);
    None for one known only at run time."""
    if depth > 8:
        return None
    value = _attribute_value(tree, node)
    if value is node and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        value = _class_list(tree, node.attr) or node  # cls.X, self.X, or the class's own X
    if isinstance(value, (ast.List, ast.Tuple)):
        return _items(value.elts, known, tree)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        left = _helper_args(tree, value.left, known, depth + 1)
        right = _helper_args(tree, value.right, known, depth + 1)
        return None if left is None or right is None else [*left, *right]
    return None


def _local_value(tree: ast.Module, call: ast.Call, node: ast.expr) -> ast.expr:
    """What a name handed to ``call`` holds there: its last assignment before the call in
    the function that makes it (two tests' ``launch_args`` are each their own), else
    ``node`` as it is (``_attribute_value`` then looks it up in the whole script)."""
    if not isinstance(node, ast.Name):
        return node
    for func in ast.walk(tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                inner is call for inner in ast.walk(func)):
            found = [a.value for a in ast.walk(func) if isinstance(a, ast.Assign)
                     and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)
                     and a.targets[0].id == node.id and a.lineno < call.lineno]
            if found:
                return found[-1]
    return node


def _class_list(tree: ast.Module, name: str) -> ast.List | ast.Tuple | None:
    """A class body's ``name = [...]`` (the first class that sets it: the test's base)."""
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            for stmt in cls.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                        and isinstance(stmt.targets[0], ast.Name) \
                        and stmt.targets[0].id == name \
                        and isinstance(stmt.value, (ast.List, ast.Tuple)):
                    return stmt.value
    return None


def _attribute_value(tree: ast.Module, node: ast.expr) -> ast.expr:
    """What ``cls.X`` (or a name) was set to, the last setting in the source; else ``node``."""
    if not isinstance(node, (ast.Attribute, ast.Name)):
        return node
    wanted = ast.unparse(node)
    found = node
    for stmt in ast.walk(tree):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and ast.unparse(stmt.targets[0]) == wanted:
            found = stmt.value
    return found


#: SGLang's own functions that parse a list of its flags as its launcher's command line
#: does: a script that hands one an argument list starts the server those flags describe
_PARSERS = frozenset({"prepare_server_args"})
_PARSER_LAUNCH = ("python3", "-m", "sglang.launch_server")


def _parser_argv(tree: ast.Module, node: ast.AST) -> ast.List | ast.Tuple | None:
    """The list of flags ``node`` hands SGLang's own argument parser, when it is such a call
    (``prepare_server_args(["--model-path", ...])``, or the name of a list the script
    assigns, ``args = [...]`` then ``prepare_server_args(args)``): the launch the script
    runs, with no launcher word of its own in the list, so no other form finds it."""
    if not (isinstance(node, ast.Call) and node.args and (
            ast.unparse(node.func).rsplit(".", 1)[-1] in _PARSERS
            or _sglang_parser(tree, node.func))):
        return None
    given = node.args[0]
    if isinstance(given, ast.Name):
        assigned = [a.value for a in ast.walk(tree) if isinstance(a, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == given.id for t in a.targets)]
        given = assigned[-1] if assigned else given
    return given if isinstance(given, (ast.List, ast.Tuple)) else None


def _sglang_parser(tree: ast.Module, func: ast.expr) -> bool:
    """Whether ``func`` is ``P.parse_args`` of an argparse parser ``P`` the script gives
    SGLang's flags (``ServerArgs.add_cli_args(P)``): the list it parses is a launch's."""
    if not (isinstance(func, ast.Attribute) and func.attr == "parse_args"
            and isinstance(func.value, ast.Name)):
        return False
    parser = func.value.id
    return any(isinstance(call, ast.Call) and ast.unparse(call.func).endswith("add_cli_args")
               and any(isinstance(a, ast.Name) and a.id == parser for a in call.args)
               for call in ast.walk(tree))


def _fragment(node: ast.expr) -> bool:
    """Whether ``node`` is a list item holding the launcher with other words
    (``"python -m sglang.launch_server"``): such a list is pieces of one command line, which
    the script joins with spaces (``" ".join(cmd)`` run with ``shell=True``), each piece
    (``f"--model {model}"``) split by the shell, not one argv item each."""
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)
            and " " in node.value.strip()
            and any(is_launcher(word) for word in node.value.split()))


def _hands_on_launch(words: list[str]) -> bool:
    """Whether one of a command's ``words`` is itself a command line that starts SGLang's
    launcher: the script another program runs (``screen -dmS s bash -c '... python3 -m
    sglang.launch_server ...'``, ``ssh host "..."``), which the shell reading takes apart."""
    from launchplan.input.pasted import launches_sglang

    for word in words:
        if " " in word.strip() and "sglang" in word:
            try:
                if launches_sglang(shell_vars.shell_split(word)):
                    return True
            except ValueError:
                continue
    return False


def _items(elts: list[ast.expr], literals: dict[str, str], tree: ast.Module,
           lists: dict[str, list[str] | None] | None = None) -> list[str]:
    """An argv list's items as words, a spread the script's text decides spelled out in
    place (``*EXTRA`` of a top-level ``EXTRA = ["--dp", "2"]``, ``*(extra or [])`` of a
    parameter its first call leaves at None); any other spread stays one open ``${*...}``
    word (``launch_literal_at`` plans the launch without it, with a note)."""
    out: list[str] = []
    for elt in elts:
        if isinstance(elt, ast.Starred):
            if lists is None:
                lists = _literal_lists(tree, literals)
            spread = _list_words(elt.value, literals, tree, lists)
            if spread is not None:
                out.extend(spread)
                continue
            out.append("${*" + _spread_name(elt.value) + "}")
            continue
        out.append(word_of(elt, literals))
    return out


def _list_words(node: ast.expr, literals: dict[str, str], tree: ast.Module,
                lists: dict[str, list[str] | None] | None = None,
                notes: list[str] | None = None) -> list[str] | None:
    """The argv items an expression that makes a list holds, when the text decides them: a
    list or tuple literal (an open item stays a ``${...}`` word), a known list's name (a
    function's own list as that function has it there: ``_local_list``), ``a + b``, ``X or
    []`` (the fallback when X is empty), ``list(X)`` / ``tuple(X)``, ``X if TEST else Y``
    of a test the script's values decide, ``S.split()`` and ``shlex.split(S)`` of a string
    it fixes (as Python splits it), a comprehension over literals (``python_values``); None
    for one known only at run time. What a local list's growth leaves unread goes into
    ``notes``."""
    from launchplan.input import python_values

    if isinstance(node, (ast.List, ast.Tuple)):
        items = _items(node.elts, literals, tree, lists)
        return None if any(item.startswith("${*") for item in items) else items
    if isinstance(node, ast.Name):
        local = _local_list(node, literals, tree, notes)
        if local is not _NOT_LOCAL:
            return local  # type: ignore[return-value]
        if lists is None:
            lists = _literal_lists(tree, literals)
        return lists.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _list_words(node.left, literals, tree, lists, notes)
        right = _list_words(node.right, literals, tree, lists, notes)
        return None if left is None or right is None else [*left, *right]
    if isinstance(node, ast.IfExp):
        held = python_values.truth(node.test, tree)
        if held is None:
            return None
        return _list_words(node.body if held else node.orelse, literals, tree, lists, notes)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2:
        first = _list_words(node.values[0], literals, tree, lists, notes)
        if first is None:
            return None
        return first if first else _list_words(node.values[1], literals, tree, lists, notes)
    if isinstance(node, ast.ListComp):
        found = python_values.value(node, dict(literals), python_values.literal_dicts(tree))
        return None if found is python_values.UNKNOWN else [str(item) for item in found]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        returned = _returned_for(node, tree)
        if returned is not None:
            if len(_FOLLOWING) > 8:
                return None
            _FOLLOWING.append(node)
            try:
                return _list_words(returned, literals, tree, lists, notes)
            finally:
                _FOLLOWING.pop()
    if not isinstance(node, ast.Call) or node.keywords:
        return _fixed_words(node, tree)
    func = ast.unparse(node.func)
    if func in ("list", "tuple") and len(node.args) == 1:
        return _list_words(node.args[0], literals, tree, lists, notes)
    split = func == "shlex.split" and len(node.args) == 1
    if split or (isinstance(node.func, ast.Attribute) and node.func.attr == "split"
                 and not node.args):
        text = word_of(node.args[0] if split else node.func.value, literals)  # type: ignore[attr-defined]
        if "${*" in text or text.startswith("${") and text.endswith("}") \
                and text.count("${") == 1:
            return None  # a string known only at run time, or flags it works out then
        try:
            return shlex.split(text) if split else text.split()
        except ValueError:
            return None
    return _fixed_words(node, tree)


#: The calls ``_list_words`` is following into their functions (a helper that calls
#: itself stops at a depth).
_FOLLOWING: list[ast.Call] = []


def _returned_for(call: ast.Call, tree: ast.Module) -> ast.expr | None:
    """What ``call`` of a function the script defines once returns, when its body only
    returns an expression (``def common_args(tp): return ["--tp", str(tp)]``, or an
    f-string's ``.split()``): that expression with each parameter replaced by what this
    call passes (else its default); None for any other call, or one that spreads
    ``*args``/``**kwargs`` into it."""
    from launchplan.input.python_values import returned_expression

    name = call.func.id  # type: ignore[attr-defined]
    defs = [n for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    if len(defs) != 1 or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return None
    returned = returned_expression(defs[0])
    if returned is None or defs[0].args.vararg or defs[0].args.kwarg:
        return None
    bound = bound_arguments(defs[0].args, call)
    if len(call.args) > len(defs[0].args.posonlyargs) + len(defs[0].args.args) \
            or any(k.arg not in bound for k in call.keywords) \
            or any(a.arg not in bound for a in (*defs[0].args.posonlyargs, *defs[0].args.args,
                                                 *defs[0].args.kwonlyargs)):
        return None

    class _Bind(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            # the caller's own nodes: their names are looked up where the call stands
            return bound.get(node.id, node) if isinstance(node.ctx, ast.Load) else node

    return _Bind().visit(copy.deepcopy(returned))


#: What ``_local_list`` gives for a name no function binds as a list of its own.
_NOT_LOCAL = object()


def _local_list(node: ast.Name, literals: dict[str, str], tree: ast.Module,
                notes: list[str] | None) -> object:
    """The words of the list a function's own name holds where ``node`` uses it
    (``server_args = [...]`` in a test's ``setUpClass``, then ``[...] + server_args``): its
    last assignment before the use in that function that the use sees (one under a branch
    the script's values rule out is skipped; a later one under a test the text leaves open
    makes the list open: None), with what the function adds to it before the use
    (``_grown_list``). ``_NOT_LOCAL`` for a name bound only as a parameter, or not in a
    function (the module's lists, ``_literal_lists``, hold those)."""
    from launchplan.input.python_values import binding_scope

    scope = binding_scope(node, tree)
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _NOT_LOCAL
    name = node.id
    if any(a.arg == name for a in (*scope.args.posonlyargs, *scope.args.args,
                                   *scope.args.kwonlyargs)):
        return _NOT_LOCAL
    from launchplan.input.python_values import scope_of

    at = _position(node)[:2]
    assigns = sorted((a for a in ast.walk(scope) if isinstance(a, (ast.Assign, ast.AnnAssign))
                      and _position(a)[:2] < at and scope_of(a, tree) is scope
                      and _assigns_name(a, name)), key=_position)
    where = dict((id(branch), field) for branch, field in branches(tree, node))
    base: ast.Assign | ast.AnnAssign | None = None
    open_after = False
    for assign in assigns:
        state, _ = branch_state(tree, assign, where)
        if state:
            base, open_after = assign, False
        elif state is None:
            open_after = True
    if base is None or open_after or base.value is None:
        return None
    words = _list_words(base.value, literals, tree, None, notes)
    if words is None:
        return None
    return [*words, *_grown_list(tree, base.value, literals, notes, until=at)]


def _assigns_name(stmt: ast.Assign | ast.AnnAssign, name: str) -> bool:
    """Whether ``stmt`` binds the plain name ``name`` alone (``name = ...``)."""
    return _assigned_name(stmt) == name


def _assigned_name(stmt: ast.Assign | ast.AnnAssign) -> str | None:
    """The plain name ``stmt`` binds alone (``name = ...``, ``name: T = ...``), else None."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    if len(targets) == 1 and isinstance(targets[0], ast.Name):
        return targets[0].id
    return None


def _fixed_words(node: ast.expr, tree: ast.Module) -> list[str] | None:
    """The items of a list the script's text fixes by other means (``CONFIG["extra_args"]``
    of a dict literal, a name bound to another list's name), as words; None otherwise."""
    from launchplan.input.python_values import fixed

    found = fixed(node, tree)
    if not isinstance(found, (list, tuple)) or not all(
            isinstance(item, (str, int, float)) and not isinstance(item, bool)
            for item in found):
        return None
    return [str(item) for item in found]


def _spread_name(node: ast.expr) -> str:
    """How an open spread is named: ``X`` of ``X or []`` (what the script passes on)."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        node = node.values[0]
    return "".join(ast.unparse(node).split())


def _literal_lists(tree: ast.Module, literals: dict[str, str]) -> dict[str, list[str] | None]:
    """The script's top-level ``NAME = [...]`` lists of words (the last of each; a name set
    again to anything else maps to None; an open item stays a ``${...}`` word), then each
    function parameter its first call passes a list of known words, or leaves at a default
    of None or an empty list (an empty spread: ``extra_args=None`` spread as ``*(extra_args
    or [])``)."""
    out: dict[str, list[str] | None] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            # EXTRA = ["--dp", "2"], EXTRA = "--dp 2".split(), BASE + (["--x"] if X else []);
            # an item known only at run time (an imported MODEL_PATH) stays an open word,
            # named where its flag needs it, not the whole list's flags dropped
            out[node.targets[0].id] = _list_words(node.value, literals, tree, out)
    functions = {node.name: node for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for name, call in first_calls(tree, functions).items():
        for param, value in bound_arguments(functions[name].args, call).items():
            if param in out:
                continue
            if isinstance(value, ast.Constant) and value.value is None:
                out[param] = []  # left at None: spread as ``X or []``, nothing
            elif (words := _known_words(value, literals)) is not None:
                out[param] = words
    return out


def _known_words(node: ast.expr, literals: dict[str, str]) -> list[str] | None:
    """A list or tuple literal's items as words, when every one is known."""
    if not isinstance(node, (ast.List, ast.Tuple)) or any(
            isinstance(e, ast.Starred) for e in node.elts):
        return None
    words = [word_of(e, literals) for e in node.elts]
    return None if any("${" in w for w in words) else words


def _grown(tree: ast.Module, node: ast.AST, literals: dict[str, str],
           notes: list[str] | None = None) -> str:
    """The text ``name += "..."`` statements add after ``name = <node>``, in source order:
    those under the same branches of the same ``if`` statements as the assignment (the
    other branch's additions go with the other command), and under a further test the
    script's own values decide (``if USE_FP8:`` of ``USE_FP8 = True``) when it holds. One
    made only when a test the text leaves open holds (``if "fp8" in args.model: ...``) is
    left out, as the run decides it, and named in ``notes``."""
    assign = next((a for a in ast.walk(tree) if isinstance(a, ast.Assign) and a.value is node
                   and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)), None)
    if assign is None:
        return ""
    name = assign.targets[0].id  # type: ignore[attr-defined]
    where = dict((id(branch), field) for branch, field in branches(tree, assign))
    added: list[tuple[int, int, str]] = []
    for aug in ast.walk(tree):
        if not (isinstance(aug, ast.AugAssign) and isinstance(aug.op, ast.Add)
                and isinstance(aug.target, ast.Name) and aug.target.id == name
                and aug.lineno > assign.lineno):
            continue
        state, test = branch_state(tree, aug, where)
        if not state:
            if state is None and notes is not None:
                notes.append(_conditional_note(f"command {name}", aug, test))
            continue
        if isinstance(aug.value, ast.JoinedStr):
            added.append((aug.lineno, aug.col_offset,
                          rendered_text(aug.value, literals, shell=True)))
        elif isinstance(aug.value, ast.Constant) and isinstance(aug.value.value, str):
            added.append((aug.lineno, aug.col_offset, aug.value.value))
    return "".join(text for *_, text in sorted(added))


def _grown_list(tree: ast.Module, node: ast.AST, literals: dict[str, str],
                notes: list[str] | None, until: tuple[int, int] | None = None,
                pieces: bool = False, taken: ast.AST | None = None) -> list[str]:
    """The items a script adds to the argv list ``name = <node>`` after assigning it (and
    before ``until``, a use that sees the list as it is there), in source order, under the
    same branches (as ``_grown``): ``name += [...]``, ``name.extend([...])``,
    ``name.append(item)``, of the lists ``_list_words`` reads (``shlex.split("...")``
    too), made to that same list (another function's ``name`` is its own). An addition not
    read here (a list known only at run time) is named in ``notes``: the flags it adds are
    not planned, and would otherwise go unnoticed. ``pieces``: the list holds pieces of a
    command line (``_piece``), not argv items. ``taken``: the statement that adds the
    launcher itself, whose branches are the launch's too (``if backend == "sglang":
    parts.append("python -m sglang.launch_server")``)."""
    assign: ast.stmt | None = next(
        (a for a in ast.walk(tree) if isinstance(a, (ast.Assign, ast.AnnAssign))
         and a.value is node and _assigned_name(a) is not None), None)
    if assign is not None:
        target = assign.targets[0] if isinstance(assign, ast.Assign) else assign.target
    else:
        # the launch added to a list that holds something else first (``cmd = ["docker",
        # "run", ..., IMAGE]`` then ``cmd.extend(["sglang", "serve", ...])``): what the
        # script adds to that list after it is the launch's too
        assign = next((a for a in ast.walk(tree) if isinstance(a, (ast.AugAssign, ast.Expr))
                       and _added_list(a) is not None and _list_addition(
                           a, _added_list(a))[0] is node), None)  # type: ignore[arg-type]
        if assign is None:
            return []
        target = assign.target if isinstance(assign, ast.AugAssign) else \
            assign.value.func.value  # type: ignore[attr-defined]
    name = target.id  # type: ignore[attr-defined]
    from launchplan.input.python_values import binding_scope

    holder = binding_scope(target, tree)  # type: ignore[arg-type]
    where = dict((id(branch), field) for branch, field in branches(tree, assign))
    if taken is not None:
        where.update((id(branch), field) for branch, field in branches(tree, taken))
    kind = f"command {name}" if pieces else f"argv {name}"
    added: list[tuple[int, int, list[str]]] = []
    for stmt in ast.walk(tree):
        if not isinstance(stmt, (ast.AugAssign, ast.Expr)):
            continue
        grown, one = _list_addition(stmt, name)
        if grown is None or stmt.lineno <= assign.lineno \
                or (until is not None and _position(stmt)[:2] >= until):
            continue
        changed = stmt.target if isinstance(stmt, ast.AugAssign) else \
            stmt.value.func.value  # type: ignore[attr-defined]
        if binding_scope(changed, tree) is not holder:
            continue
        state, test = branch_state(tree, stmt, where)
        if not state:
            if state is None and notes is not None:
                notes.append(_conditional_note(kind, stmt, test))
            continue
        loop = _loop_of(tree, stmt, assign)
        if loop is not None:
            passes = _unrolled(tree, loop, stmt)
            if passes is None:
                if notes is not None:
                    notes.append(f"the launch's {kind} grows at line {stmt.lineno} in "
                                 f"a loop (line {loop.lineno}) launchplan does not unroll from "
                                 "the text: the flags it adds are not planned; give them "
                                 "after the pasted text")
                continue
            items = []
            for bound in passes:
                item = _substituted(grown, bound)
                words = [_piece(item, literals) if pieces else word_of(item, literals)] \
                    if one else _list_words(item, literals, tree, notes=notes)
                if words is None:
                    items = None
                    break
                items.extend(words)
        else:
            items = [_piece(grown, literals) if pieces else word_of(grown, literals)] \
                if one else _list_words(grown, literals, tree, notes=notes)
        if items is None:
            if notes is not None:
                notes.append(f"the launch's {kind} grows at line {stmt.lineno} "
                             f"({shortened(ast.unparse(stmt))}) in a way launchplan cannot read "
                             "from the text: the flags it adds are not planned; give them "
                             "after the pasted text")
            continue
        added.append((stmt.lineno, stmt.col_offset, items))
    return [item for *_, items in sorted(added) for item in items]


def _loop_of(tree: ast.Module, stmt: ast.AST, assign: ast.AST) -> ast.For | None:
    """The innermost ``for`` loop around ``stmt`` that does not hold ``assign`` too (a
    loop that makes the argv afresh on each pass is the argv's own business), else None."""
    around = {id(node) for node, _ in ancestors(tree, assign)}
    loops = [node for node, field in ancestors(tree, stmt)
             if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and id(node) not in around]
    return loops[-1] if loops else None  # type: ignore[return-value]


def _unrolled(tree: ast.Module, loop: ast.AST, stmt: ast.AST
              ) -> list[dict[str, ast.expr]] | None:
    """Each pass of the statement ``for`` loop ``loop`` as its target names' values, when
    the text fixes what it iterates (``{"tp": 2, "port": 8000}.items()``, a module dict's
    ``.items()``/``.keys()``/``.values()``, a list of literals) and ``stmt`` runs on every
    pass (straight in the loop's body, with no ``continue``/``break`` there); None
    otherwise, as the comprehension form of the same thing is read."""
    from launchplan.input.python_values import UNKNOWN, fixed

    if not isinstance(loop, ast.For) or loop.orelse or stmt not in loop.body or any(
            isinstance(n, (ast.Continue, ast.Break)) for part in loop.body
            for n in ast.walk(part)):
        return None
    iterated = loop.iter
    method = None
    if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute) \
            and not iterated.args and not iterated.keywords \
            and iterated.func.attr in ("items", "keys", "values"):
        method, iterated = iterated.func.attr, iterated.func.value
    if isinstance(iterated, ast.Dict) and method is not None and all(
            isinstance(key, ast.Constant) for key in iterated.keys):
        # a dict display: each entry's own expression (an open value stays open)
        nodes: list[object] = [(key, value) for key, value in zip(iterated.keys,
                                                                   iterated.values)]
        if method != "items":
            nodes = [pair[int(method == "values")] for pair in nodes]  # type: ignore[index]
        return _passes(loop, nodes, lambda v: v)
    found = fixed(iterated, tree)
    if found is UNKNOWN:
        return None
    if method is not None:
        if not isinstance(found, dict):
            return None
        found = list(getattr(found, method)())
    elif isinstance(found, dict):
        found = list(found)
    if not isinstance(found, (list, tuple)):
        return None
    return _passes(loop, list(found), ast.Constant)


def _passes(loop: ast.For, items: list[object], node: Callable[[object], ast.expr]
            ) -> list[dict[str, ast.expr]] | None:
    """The loop's target names bound on each pass over ``items`` (``node`` makes each
    value an expression); None when an item does not unpack into the target."""
    if len(items) > 200:
        return None
    passes: list[dict[str, ast.expr]] = []
    for item in items:
        bound = loop_bindings(loop.target, item, lambda v: v if isinstance(
            v, (list, tuple)) else None)
        if bound is None:
            return None
        passes.append({k: node(v) for k, v in bound.items()})
    return passes


def _substituted(node: ast.expr, bound: dict[str, ast.expr]) -> ast.expr:
    """``node`` with each loop name of ``bound`` replaced by its value on one pass."""

    class _Bind(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.AST:
            return bound.get(name.id, name) if isinstance(name.ctx, ast.Load) else name

    return _Bind().visit(copy.deepcopy(node))


def _added_list(stmt: ast.AugAssign | ast.Expr) -> str | None:
    """The name of the list ``stmt`` adds to (``name += X``, ``name.extend(X)``), else None."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        return stmt.target.id
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
            and isinstance(stmt.value.func, ast.Attribute) \
            and isinstance(stmt.value.func.value, ast.Name):
        return stmt.value.func.value.id
    return None


def _list_addition(stmt: ast.AugAssign | ast.Expr, name: str) -> tuple[ast.expr | None, bool]:
    """(what ``stmt`` adds to the list ``name``, whether it is one item): ``name += X`` and
    ``name.extend(X)`` add X's items, ``name.append(X)`` adds X; (None, False) otherwise."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) \
            and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
        return stmt.value, False
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
                and call.func.value.id == name and call.func.attr in ("extend", "append") \
                and len(call.args) == 1 and not call.keywords:
            return call.args[0], call.func.attr == "append"
    return None, False


def script_environment(text: str, launch: int | None = None) -> list[str]:
    """The ``NAME=value`` pairs a Python script that holds a launch literal gives the
    server's environment, in source order: ``os.environ["NAME"] = "value"``,
    ``os.environ.update(...)``, ``os.environ.setdefault(...)``, a loop writing a spelled-out
    mapping's entries into ``os.environ``, a container image's ``.env({...})`` (Modal's
    ``Image.env``, the environment the server runs in), each before the ``launch``-th
    launch literal's line (one set after it is the client's), and a ``subprocess`` call's
    ``env=`` (not one of a call that runs another launch). Values the script spells out
    only (literals, names set to them); one computed at run time is left out."""
    tree = parsed_python(text)
    found_launches = _launch_nodes(tree) if tree is not None else []
    if tree is None or not found_launches:
        return []
    from launchplan.input.engine_call import (
        environ_assignment,
        environ_call,
        environ_loop,
        environment_entries,
        is_environ,
        names_before,
    )

    _, chosen, grows = found_launches[_picked(found_launches, launch)[0]]
    if grows.startswith(_FROM_MANIFEST):
        return []  # a container's: the manifest's own environment came with its words
    others = {id(node) for _, node, _ in found_launches if node is not chosen}
    before = getattr(chosen, "lineno", 0)
    names = names_before(tree, before)
    runners = _launch_runners(tree, chosen)
    found: list[tuple[int, int, list[str]]] = []
    for node in ast.walk(tree):
        pairs: list[str] = []
        if isinstance(node, ast.Assign) and node.lineno <= before:
            pairs = environ_assignment(node, names, tree)
        elif isinstance(node, ast.For) and node.lineno <= before:
            pairs = environ_loop(node, names)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.lineno <= before):
            func = node.func
            if is_environ(func.value):
                pairs = environ_call(node, names)
            elif func.attr == "env":
                pairs = [pair for arg in node.args
                         for pair in environment_entries(arg, names)]
        if isinstance(node, ast.Call) and not _runs_another(node, chosen, others):
            for kw in node.keywords:
                if kw.arg != "env":
                    continue
                given = _attribute_alias(tree, kw.value)  # env=cls.env of cls.env = env
                if not isinstance(given, ast.Name):
                    pairs += environment_entries(given, names)
                elif node.lineno >= before and (not runners or id(node) in runners):
                    # the call that runs the launch, env=env (not the script's other
                    # programs started with the same env after it)
                    pairs += _built_environment(tree, given.id, node.lineno)
        if pairs:
            found.append((node.lineno, node.col_offset, pairs))
    return [pair for *_, pairs in sorted(found, key=lambda item: item[:2]) for pair in pairs]


def _attribute_alias(tree: ast.Module, node: ast.expr) -> ast.expr:
    """The plain name a ``cls.X``/``self.X`` attribute holds when the script sets it once,
    to that name (a test's ``cls.env = env``, then ``Popen(..., env=cls.env)``); ``node``
    otherwise."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
        return node
    wanted = ast.unparse(node)
    set_to = [a.value for a in ast.walk(tree) if isinstance(a, ast.Assign)
              and any(isinstance(t, ast.Attribute) and ast.unparse(t) == wanted
                      for t in a.targets)]
    return set_to[0] if len(set_to) == 1 and isinstance(set_to[0], ast.Name) else node


def _launch_runners(tree: ast.Module, chosen: ast.AST) -> set[int]:
    """The calls that are handed the launch literal ``chosen``, or the name it is
    assigned to (``cmd = [...]`` then ``subprocess.Popen(cmd, env=env)``); empty when no
    call is seen to run it (a function returns it, say)."""
    held = {node.targets[0].id for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and node.value is chosen
            and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)}
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and any(
                inner is chosen or (isinstance(inner, ast.Name) and inner.id in held)
                for arg in node.args for inner in ast.walk(arg)):
            out.add(id(node))
    return out


def _runs_another(call: ast.Call, chosen: ast.AST, others: set[int]) -> bool:
    """Whether ``call`` holds another launch's literal and not the chosen one's: its
    ``env=`` is that launch's environment."""
    held = {id(node) for node in ast.walk(call)}
    return bool(held & others) and id(chosen) not in held


def _built_environment(tree: ast.Module, name: str, call_line: int) -> list[str]:
    """What a script puts into the mapping it hands a call as ``env=name``, built before
    that call: ``env = os.environ.copy()`` (or ``dict(os.environ)``, ``{**os.environ,
    **EXTRA}``) then ``env["NAME"] = "value"``, ``env.update(...)`` and loops writing a
    spelled-out mapping's entries into it. Literal entries only, in source order; a new
    ``env = ...`` before the call starts it afresh."""
    from launchplan.input.engine_call import (
        environ_loop,
        environment_entries,
        names_before,
    )

    names = names_before(tree, call_line)
    names.pop(name, None)  # ``env`` itself is read statement by statement below

    def writes(node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id == name

    found: list[tuple[int, int, list[str] | None]] = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", call_line) >= call_line:
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if writes(target):
                    found.append((node.lineno, node.col_offset, None))  # made afresh
                    found.append((node.lineno, node.col_offset + 1,
                                  environment_entries(node.value, names)))
                elif isinstance(target, ast.Subscript) and writes(target.value):
                    found.append((node.lineno, node.col_offset, environment_entries(
                        ast.Dict([target.slice], [node.value]), names)))
        elif isinstance(node, ast.For):
            found.append((node.lineno, node.col_offset, environ_loop(node, names, writes)))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("update", "setdefault") and writes(node.func.value)):
            entries = (ast.Dict([node.args[0]], [node.args[1]])
                       if node.func.attr == "setdefault" and len(node.args) == 2
                       else ast.Call(ast.Name("dict"), node.args, node.keywords))
            found.append((node.lineno, node.col_offset, environment_entries(entries, names)))
    out: list[str] = []
    for *_, pairs in sorted(found, key=lambda item: item[:2]):
        if pairs is None:
            out = []
        else:
            out += pairs
    return out
