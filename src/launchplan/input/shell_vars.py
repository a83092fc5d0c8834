"""Shell variables a pasted script sets, and their expansion in the launch's words.

Real launch scripts set their values once at the top (``MODEL="Qwen/..."``, ``export
PORT=30000``) and refer to them in the launch (``--model-path ${MODEL} --port $PORT``). A
plan of that paste should read the launch as the shell would run it: each reference to a
variable the text sets is replaced by its value. A reference the text leaves open (a
variable from the caller's shell, ``$((...))`` arithmetic, ``$(...)``) stays as written,
and a value that holds one is reported as such when it does not parse.

The words arrive already split by ``shlex``, which drops quotes: a reference inside single
quotes (which the shell would not expand) is expanded too. Launch lines almost never
single-quote a ``$``, so the simpler reading is kept.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Mapping

#: ``$NAME``, ``${NAME}``, and the forms with a word: ``${NAME:-word}`` / ``${NAME:=word}``
#: (the word when the text does not set the name), ``${NAME:+word}`` (the word when it
#: does, else nothing) and ``${NAME:?message}`` (the shell stops with the message when the
#: name is unset: the value must come from the caller's shell), each also without the colon;
#: a word may hold further references, two deep (``${CUDA_GRAPH_MAX_BS:-${MAXRUN:-10}}``).
#: A positional parameter (``$1``, ``${2:-8}``) is a name too: the script's arguments, which
#: a pasted script run as it stands does not have, unless it sets them (``set --``, a call
#: of the function that holds the launch).
_REFERENCE = re.compile(r"\$(?:\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*|\d+)"
                        r"(?:(?P<op>:?[-=+?])(?P<default>(?:\$\{(?:\$\{[^{}]*\}|[^{}])*\}|[^}])*))?\}"
                        r"|(?P<bare>[A-Za-z_][A-Za-z0-9_]*|\d))")
#: What still looks like a shell expansion after expanding what the text sets (a
#: PowerShell splat, ``@serve``, whose array the text builds at run time, and a template's
#: ``{{ .Values.model }}``, too).
_OPEN = re.compile(r"\$(?:\{|\(|[A-Za-z_])|^@[A-Za-z_]\w*$|\{\{.*\}\}")


#: ``NAME=value``, or ``NAME+=value`` (bash appends to the value): a shell assignment word.
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")
#: Where ``values`` marks bash's ``set -a`` (allexport) as on: no variable has this name.
ALLEXPORT = " allexport"
#: Builtins that set variables from their ``NAME=VALUE`` words.
_DECLARING = frozenset({"export", "local", "declare", "typeset", "readonly"})


def declared(segment: list[str], values: dict[str, str]) -> list[str]:
    """Record the variables the command ``segment`` sets into ``values`` (assignments alone,
    or after ``export``, ``local``, ``declare``, ``readonly``), and give the names it exports
    (``export``, ``declare -x``): those are the environment of what the script starts. An
    array assignment (``shell_arrays``) is recorded too, and so are the values an ``if``
    block leaves when its branch is not decided here (``shell_branches.MERGED``)."""
    from launchplan.input import shell_arrays, shell_branches

    merged = shell_branches.merged_values(segment, values)
    if merged is not None:
        return merged
    _defaults_assigned(segment, values)
    if shell_arrays.assign(segment, values):
        return []
    if _loop_variable(segment, values):
        return []
    if _arithmetic_assigned(segment, values):
        return []
    if segment[:1] == ["shift"]:
        _shifted(segment, values)
        return []
    if _read_or_printed(segment, values):
        return []
    if segment and all(ASSIGNMENT.match(w) for w in segment):
        assigned(segment, values)  # set for the script, not exported (but under set -a)
        return [w.partition("=")[0].removesuffix("+") for w in segment] \
            if ALLEXPORT in values else []
    if segment in (["set", "-a"], ["set", "-o", "allexport"]):
        values[ALLEXPORT] = "1"  # every variable set from here on is exported
        return []
    if segment in (["set", "+a"], ["set", "+o", "allexport"]):
        values.pop(ALLEXPORT, None)
        return []
    fish = _fish_set(segment)
    if fish is not None:
        name, value, exported = fish
        values[name] = expand(value, values)
        return [name] if exported else []
    if not segment or segment[0] not in _DECLARING:
        return []
    words = [w for w in segment[1:] if ASSIGNMENT.match(w)]
    assigned(words, values)
    exports = segment[0] == "export" or (
        segment[0] in ("declare", "typeset")
        and any(w.startswith("-") and "x" in w for w in segment[1:]))
    if not exports:
        return []
    # ``export NAME`` of a name the script set before exports that value
    return [w.partition("=")[0].removesuffix("+") for w in segment[1:]
            if ASSIGNMENT.match(w) or (w in values and not w.startswith("-"))]


#: fish's ``set`` scope and export options (``-g``, ``-x``, ``-gx``, ``--export``...).
_FISH_SET_OPTION = re.compile(r"^(?:-[gxlUuf]+|--(?:global|export|local|universal|function))$")


def _fish_set(segment: list[str]) -> tuple[str, str, bool] | None:
    """(name, value, exported) of another shell's assignment, or None: fish's ``set [-gx]
    NAME VALUE...`` (``-x`` exports; its words joined by spaces, as fish passes a list to a
    child's environment), csh's ``set NAME = VALUE`` / ``set NAME=VALUE`` and ``setenv NAME
    VALUE`` (exported). bash's own ``set`` takes options (``-x`` traces, ``-euo pipefail``)
    or sets the positional parameters, which no launch script does with ``set NAME VALUE``."""
    if segment[:1] == ["setenv"] and len(segment) in (2, 3) and _NAME.fullmatch(segment[1]):
        return segment[1], segment[2] if len(segment) == 3 else "", True
    if segment[:1] != ["set"]:
        return None
    if len(segment) == 2 and ASSIGNMENT.match(segment[1]) and "+=" not in segment[1][:-1]:
        name, _, value = segment[1].partition("=")
        return name, value, False
    if len(segment) == 4 and segment[2] == "=" and _NAME.fullmatch(segment[1]):
        return segment[1], segment[3], False
    at = 1
    exported = False
    while at < len(segment) and _FISH_SET_OPTION.match(segment[at]):
        option = segment[at]
        exported |= option == "--export" or (not option.startswith("--") and "x" in option)
        at += 1
    if at + 1 >= len(segment) or not _NAME.fullmatch(segment[at]) \
            or (at == 1 and len(segment) < 3):
        return None
    return segment[at], " ".join(segment[at + 1:]), exported


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _loop_variable(segment: list[str], values: dict[str, str]) -> bool:
    """Record the first value a ``for NAME in WORD ...`` loop over literal words gives its
    variable (``for RANK in 0 1 2 3; do ssh node$RANK "... --node-rank $RANK"``), or over
    an array's items or indices (``for idx in "${!GPU_IDS[@]}"``): the body, read once, is
    the loop's first run. A loop over what the script cannot know here
    (``$(seq 1 8)``, ``"$@"``) leaves NAME unset. Whether ``segment`` was a loop's head."""
    if len(segment) < 4 or segment[0] != "for" or segment[2] != "in" \
            or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", segment[1]):
        return False
    listed = _loop_items(segment[3], values)  # for idx in "${!GPU_IDS[@]}"; do ...
    if listed is not None:
        if listed:
            values[segment[1]] = listed[0]
        return True
    first = expand(segment[3], values)
    if segment[3].startswith("$") and first != segment[3]:
        # ``for tp in $TPS`` of TPS="1 2 4": the shell splits the value into the loop's
        # words (the usual sweep loop; the quotes that would keep it whole are gone here)
        first = next(iter(first.split()), "")
    if first and not open_reference(first) and "$" not in first:
        values[segment[1]] = first
    return True


#: One assignment of ``let`` or ``((...))``: ``T=T*4``, ``T*=2``, ``T+=1``, ``T++``, ``--T``.
_ARITHMETIC_ASSIGNMENT = re.compile(
    r"^\s*(?:(?P<name>[A-Za-z_]\w*)\s*(?P<op>[-+*/%]|<<|>>|[&|^])?=(?!=)\s*(?P<expr>.+?)"
    r"|(?P<post>[A-Za-z_]\w*)\s*(?P<postop>\+\+|--)|(?P<preop>\+\+|--)\s*(?P<pre>[A-Za-z_]\w*))"
    r"\s*$")


def _arithmetic_assigned(segment: list[str], values: dict[str, str]) -> bool:
    """Record what ``let T=T*4`` or ``((T *= 2))`` (``,``-separated assignments, ``T++``)
    leaves in its variables: the shell's value when every name it reads is an integer the
    script sets, else the arithmetic as written, an expansion left open (never the stale
    value from before). Whether ``segment`` was such a command."""
    if not segment:
        return False
    if segment[0] == "let":
        parts = segment[1:]
    else:
        joined = " ".join(segment)
        if not (joined.startswith("((") and joined.endswith("))")):
            return False
        parts = joined[2:-2].split(",")
    for part in parts:
        match = _ARITHMETIC_ASSIGNMENT.match(part)
        if match is None:
            continue
        name = match.group("name") or match.group("post") or match.group("pre")
        if match.group("name"):
            op, expression = match.group("op"), match.group("expr")
        else:
            op, expression = (match.group("postop") or match.group("preop"))[0], "1"
        expression = expand(expression, values)  # ``let T=$T*4``: the shell's $T first
        if op:
            expression = f"{name} {op} ({expression})"
        span = f"$(({expression}))"
        whole = _ARITHMETIC.fullmatch(span)
        values[name] = span if whole is None else _worked_out(whole, values)
    return True


def _read_or_printed(segment: list[str], values: dict[str, str]) -> bool:
    """Record what ``read [-r] A B <<< "words"`` (a here-string's words, the last name taking
    the rest) or ``printf -v NAME FORMAT [ARGS]`` (``%s`` and ``%d`` filled in order) sets;
    whether ``segment`` was one of them."""
    separators = None  # ``IFS='|' read -r a b <<< "$row"``: the row split at each |
    if segment[:1] and segment[0].startswith("IFS=") and segment[1:2] == ["read"]:
        separators = segment[0][4:]
        segment = segment[1:]
    here = next((at for at, w in enumerate(segment) if w.startswith("<<<")), None)
    if segment[:1] == ["read"] and here is not None:
        glued = segment[here][3:]  # ``<<<"$config"`` as one word
        source = glued if glued else (segment[here + 1] if here + 1 < len(segment) else None)
        options = segment[1:here]
        if "-a" in options[:-1] and source is not None:
            # ``read -r -a ARR <<< "words"``: an array of the words (split at IFS)
            from launchplan.input.shell_arrays import set_all

            text = expand(source, values)
            parts = [w for w in re.split("[" + re.escape(separators) + "]", text) if w] \
                if separators and separators.strip() else text.split()
            set_all(options[options.index("-a") + 1], parts, values)
            return True
        names = [w for w in segment[1:here] if not w.startswith("-")]
        if source is None or not names or not all(
                re.fullmatch(r"[A-Za-z_]\w*", n) for n in names):
            return True
        text = expand(source, values)
        if separators and separators.strip():  # a separator other than white space
            pattern = "[" + re.escape(separators.replace(" ", "").replace("\t", "")) + "]"
            words = re.split(pattern, text, maxsplit=len(names) - 1) if len(names) > 1 \
                else [text]
        else:
            words = text.split(None, len(names) - 1)
        for name, word in zip(names, [*words, *[""] * (len(names) - len(words))]):
            values[name] = word
        return True
    if segment[:2] == ["printf", "-v"] and len(segment) >= 4 \
            and re.fullmatch(r"[A-Za-z_]\w*", segment[2]):
        values[segment[2]] = _printf(expand(segment[3], values),
                                     [expand(w, values) for w in segment[4:]])
        return True
    return False


#: a printf conversion launch scripts use (``%s``, ``%d``, ``%q``: a word quoted for reuse
#: as shell input) or a literal ``%%``
_CONVERSION = re.compile(r"%%|%[-0-9]*[sdiq]")


def _printf(template: str, args: list[str]) -> str:
    """``printf TEMPLATE ARGS`` once through: each conversion filled in order (``%q`` quoted
    only where the word needs it, as bash does), none left when the arguments run out."""
    filled = iter(args)

    def fill(match: re.Match[str]) -> str:
        if match.group(0) == "%%":
            return "%"
        word = next(filled, "")
        return shlex.quote(word) if match.group(0).endswith("q") and word else word

    return _CONVERSION.sub(fill, template)


#: The backslash escapes printf's template and ``echo -e`` turn into characters.
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "r": ""}
_ESCAPE = re.compile(r"\\([ntr\\])")


def output(program: str, args: list[str]) -> str | None:
    """What ``echo ARGS`` or ``printf TEMPLATE ARGS`` prints, its options read and the
    escapes printf's template (and ``echo -e``'s words) hold turned into characters: a
    printed ``--tp 2\\n`` ends the line there, it is no ``2n``. None for a printf with no
    template (``printf -v`` assigns instead of printing)."""
    if program == "printf":
        if args[:1] == ["--"]:
            args = args[1:]
        if not args or args[0].startswith("-"):
            return None
        return _printf(_ESCAPE.sub(lambda m: _ESCAPES[m.group(1)], args[0]), args[1:])
    escapes = False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for option in args[0][1:]:
            escapes = option == "e" if option in "eE" else escapes
        args = args[1:]
    text = " ".join(args)
    return _ESCAPE.sub(lambda m: _ESCAPES[m.group(1)], text) if escapes else text


def printed(value: str, values: Mapping[str, str]) -> str | None:
    """What a ``$(printf 'TEMPLATE' ARGS...)`` substitution prints (a launcher's safe way to
    build a command for ``tmux``/``ssh``), or None for any other value."""
    if not (value.startswith("$(printf ") and value.endswith(")")):
        return None
    try:
        words = shell_split(value[2:-1])
    except ValueError:
        return None
    if len(words) < 2 or words[1].startswith("-"):
        return None
    return _printf(expand(words[1], values), [expand(w, values) for w in words[2:]])


def _shifted(segment: list[str], values: dict[str, str]) -> None:
    """``shift`` (or ``shift N``): the script's arguments move down by one (N), as a wrapper
    that reads ``model=$1; shift`` before passing ``"$@"`` on expects. A count that is no
    number, or more than there are, leaves them as they are (the shell fails the command)."""
    count = segment[1] if len(segment) > 1 else "1"
    items = positional(values)
    if not count.isdigit() or int(count) > len(items):
        return  # bash's shift fails then, and moves nothing
    for at in range(1, len(items) + 1):
        values.pop(str(at), None)
    values.update((str(at), item) for at, item in enumerate(items[int(count):], 1))


def _defaults_assigned(segment: list[str], values: dict[str, str]) -> None:
    """Record the defaults ``${NAME:=word}`` (or ``${NAME=word}``) assigns when the command
    ``segment`` runs, wherever it stands (``echo "Port: ${PORT:=30000}"``, ``: "${TP:=8}"``):
    the shell sets NAME for the rest of the script when it is unset (or, with the colon,
    empty)."""
    for word in segment:
        if "=" not in word or "${" not in word:
            continue
        for match in _REFERENCE.finditer(word):
            written = match.group("op") or ""
            name = match.group("braced")
            if written.lstrip(":") != "=" or name is None or name.isdigit():
                continue
            if name not in values or (written.startswith(":") and values[name] == ""):
                values[name] = expand(match.group("default"), values)


def assigned(words: Iterable[str], values: dict[str, str]) -> None:
    """Record ``NAME=VALUE`` words into ``values`` (later ones win, as in the shell); a
    value is itself expanded against what was set before it. ``NAME+=VALUE`` appends to
    what the script set (scripts grow their options a line at a time: ``OPTS+=" --tp 8"``),
    to nothing when it set none, as a fresh shell runs the script."""
    for word in words:
        name, _, value = word.partition("=")
        if name.endswith("+"):
            name = name[:-1]
            values[name] = bounded(values.get(name, "") + expand(value, values), word)
        else:
            made = printed(value, values) if value.startswith("$(printf ") else None
            values[name] = made if made is not None else expand(value, values)


#: The script's arguments as a whole, or a slice of them: ``$@``, ``$*``, ``${@}``,
#: ``${@:2}`` (from the second on), ``${@:2:3}`` (three from the second).
_ALL_POSITIONAL = re.compile(r"\$\{[@*](?::(\d+)(?::(\d+))?)?\}|\$[@*]")


def positional(values: Mapping[str, str]) -> list[str]:
    """The script's arguments as ``values`` holds them (``$1``, ``$2`` ...; none when the
    script is run as pasted, without ``set --`` or a call of its function)."""
    out: list[str] = []
    while str(len(out) + 1) in values:
        out.append(values[str(len(out) + 1)])
    return out


def _arguments_slice(match: re.Match[str], values: Mapping[str, str]) -> str:
    return " ".join(_sliced(match, values))


def _sliced(match: re.Match[str], values: Mapping[str, str]) -> list[str]:
    start = int(match.group(1)) if match.group(1) else 1
    args = positional(values)[max(start, 1) - 1:]
    return args[:int(match.group(2))] if match.group(2) else args


def arguments_slice(word: str, values: Mapping[str, str]) -> list[str] | None:
    """The words a launch word that is a slice of the script's arguments (``${@:2}``,
    ``${*:2:3}``) passes, one each as the shell splits them; None for any other word."""
    match = _ALL_POSITIONAL.fullmatch(word)
    return _sliced(match, values) if match and match.group(1) else None


#: ``${#ARR[@]}`` / ``${#ARR[*]}``: the number of items in an array.
_ARRAY_LENGTH = re.compile(r"\$\{#([A-Za-z_][A-Za-z0-9_]*)\[[@*]\]\}")


def _array_length(match: re.Match[str], values: Mapping[str, str]) -> str:
    from launchplan.input.shell_arrays import items

    listed = items("${" + match.group(1) + "[@]}", dict(values))
    return match.group(0) if listed is None else str(len(listed))


#: One item of an array by its index: ``${GPUS[0]}``, ``${D_IP[$i]}``, ``${PORTS[i]}``.
_ELEMENT = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\[([^\]@*]+)\]\}")


def _element(match: re.Match[str], values: Mapping[str, str]) -> str:
    """The item ``${NAME[KEY]}`` picks from an array the script sets (an indexed array's
    index a number, or a variable, with or without its ``$``, holding one; negative counts
    from the end; an associative array's key a word, ``$key`` expanded): one it does not
    hold gives nothing, as in bash. Left as written otherwise."""
    from launchplan.input.shell_arrays import item

    found = item(match.group(1), match.group(2), values)
    return match.group(0) if found is None else found


def _loop_items(word: str, values: Mapping[str, str]) -> list[str] | None:
    """What a loop head's ``in`` word goes over when it names an array the script sets:
    its items (``"${GPUS[@]}"``) or its indices (``"${!GPUS[@]}"``); else None."""
    from launchplan.input.shell_arrays import items, keys_of

    if word.startswith("${!") and word.endswith(("[@]}", "[*]}")):
        return keys_of(word[3:-4], values)
    return items(word, dict(values))


#: Characters a word may hold once expanded. A launch's words are a few hundred characters;
#: a script that doubles a variable forty times (``B=$A$A``, ``C=$B$B``, ...) would otherwise
#: build a value of a terabyte, a few hundred bytes of text taking all the memory there is.
MAX_EXPANDED_CHARS = 1 << 20


def expand(word: str, values: Mapping[str, str]) -> str:
    """``word`` with every reference to a name in ``values`` replaced by its value, and the
    script's arguments (``$@``, ``${@:2}``) by those it has: none, run as pasted. A word
    expanding past ``MAX_EXPANDED_CHARS`` is bad input."""
    if "$" not in word:
        return word
    return bounded(_expand(word, values), word)


def bounded(value: str, written: str, what: str = "the pasted script") -> str:
    """``value`` (what ``written`` expands to), refused past ``MAX_EXPANDED_CHARS``: every
    reader of a paste's variables (shell, arrays, make, just) expands through here."""
    if len(value) > MAX_EXPANDED_CHARS:
        from launchplan.errors import InputError

        raise InputError(what, f"variables that expand to at most {MAX_EXPANDED_CHARS:,} "
                         "characters", None, f"{written[:60]!r} expands to {len(value):,}")
    return value


def _expand(word: str, values: Mapping[str, str]) -> str:
    if "@" in word or "*" in word:
        word = _ALL_POSITIONAL.sub(lambda m: _arguments_slice(m, values), word)
        if "${#" in word:  # ${#ARR[@]}: how many items an array the script sets holds
            word = _ARRAY_LENGTH.sub(lambda m: _array_length(m, values), word)

    def replace(match: re.Match[str]) -> str:
        name = match.group("braced") or match.group("bare")
        written = match.group("op") or ""
        op = written.lstrip(":")
        # with the colon, a name set to nothing counts as unset (``${2:-30000}`` of "")
        is_set = name in values and not (written.startswith(":") and values[name] == "")
        if op == "+":
            return expand(match.group("default"), values) if is_set else ""
        if op in ("-", "=") and not is_set:
            return expand(match.group("default"), values)
        if name in values:
            return values[name]
        if op == "?":
            return "${" + name + "}"  # required from the caller: left open, without the message
        return match.group(0)

    if "[" in word and "${" in word:  # ${GPUS[0]}: an item of an array the script sets
        word = _ELEMENT.sub(lambda m: _element(m, values), word)
    if "${" in word:  # ${MODEL##*/}, ${NAME^^}: an edit of a value the script sets
        word = _EDIT.sub(lambda m: _edited(m, values), word)
    expanded = _REFERENCE.sub(replace, word)
    if "$(echo " in expanded:  # $(echo serve --tp 2): the words echo prints
        expanded = _ECHO.sub(_echoed, expanded)
    if "$(expr " in expanded:  # $(expr 16 \* 2) on integers: the shell works it out too
        expanded = _EXPR.sub(_expr_value, expanded)
    return _ARITHMETIC.sub(lambda m: _worked_out(m, values), expanded) if "$((" in expanded \
        else expanded


#: ``${NAME#pattern}`` (``##``, ``%``, ``%%``: a prefix or suffix the pattern matches taken
#: off, shortest or longest), ``${NAME/pattern/text}`` (``//``: every match replaced) and
#: ``${NAME^^}`` / ``${NAME,,}`` (``^`` / ``,``: the first character), as bash edits a value.
_EDIT = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P<op>##|#|%%|%|//|/|\^\^|\^|,,|,)"
                   r"(?P<arg>[^{}]*)\}")


def _edited(match: re.Match[str], values: Mapping[str, str]) -> str:
    """The edited value of a name the script sets; else the reference as written (open),
    as it is too for a value that is itself open (``rest=${spec#*=}`` then ``${rest%%:*}``):
    the edit applies to what that value becomes, so the value as written is not it."""
    name, op, arg = match.group("name"), match.group("op"), match.group("arg")
    if name not in values or "$" in arg or _OPEN.search(values[name]):
        return match.group(0)
    value = values[name]
    if op in ("^^", ",,", "^", ","):
        if arg:  # a pattern of the characters to change: not read here
            return match.group(0)
        change = str.upper if op[0] == "^" else str.lower
        return change(value) if len(op) == 2 else change(value[:1]) + value[1:]
    if op in ("/", "//"):
        split = re.search(r"(?<!\\)/", arg)  # the first unescaped slash ends the pattern
        pattern, text = (arg[:split.start()], arg[split.end():]) if split else (arg, "")
        if not pattern:
            return value
        found = re.compile(_glob(pattern), re.DOTALL)
        return found.sub(lambda _: text, value, count=0 if op == "//" else 1)
    whole = re.compile(_glob(arg), re.DOTALL)
    cuts = range(len(value) + 1)
    if op in ("#", "##"):  # the shortest (or longest) prefix the pattern matches
        for cut in (cuts if op == "#" else reversed(cuts)):
            if whole.fullmatch(value[:cut]):
                return value[cut:]
    else:  # "%", "%%": the shortest (or longest) suffix
        for cut in (reversed(cuts) if op == "%" else cuts):
            if whole.fullmatch(value[cut:]):
                return value[:cut]
    return value


def _glob(pattern: str) -> str:
    """A shell pattern (``*``, ``?``, ``[...]``) as a regular expression; the longest match
    first, as the shell's replacement takes it."""
    out: list[str] = []
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "[" and (close := pattern.find("]", at + 2)) > 0:
            inner = pattern[at + 1:close]
            out.append("[" + ("^" + inner[1:] if inner[:1] in "!^" else inner)
                       .replace("\\", "\\\\") + "]")
            at = close
        elif char == "\\" and at + 1 < len(pattern):
            at += 1
            out.append(re.escape(pattern[at]))
        else:
            out.append(re.escape(char))
        at += 1
    return "".join(out)


#: ``$(echo WORDS)`` of plain words (no further command, pipe or redirection in it).
_ECHO = re.compile(r"\$\(echo\s+((?:[^()`|;&<>\\]|\\.)*)\)")
#: A reference that is a whole word: ``$NAME`` or ``${NAME}``.
WHOLE_REFERENCE = re.compile(r"^\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)$")


def _echoed(match: re.Match[str]) -> str:
    """What ``echo`` prints for its words: them, one space apart (its ``-n``/``-e`` options
    taken off); a script gathers a launch's flags so (``ARGS=$(echo serve --tp 16 ...)``)."""
    try:
        words = shell_split(match.group(1))
    except ValueError:
        return match.group(0)
    while words and re.fullmatch(r"-[neE]+", words[0]):
        words.pop(0)
    return " ".join(words)


#: ``$(expr A OP B)`` on two integers (the ``*`` escaped or not, as a script writes it).
_EXPR = re.compile(r"\$\(expr\s+(-?\d+)\s+\\?([-+*/%])\s+(-?\d+)\s*\)")


def _expr_value(match: re.Match[str]) -> str:
    left, op, right = int(match.group(1)), match.group(2), int(match.group(3))
    if op in "/%" and right == 0:
        return match.group(0)  # expr fails on it: left open
    # expr divides toward zero, as C does
    quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1) if right else 0
    value = {"+": left + right, "-": left - right, "*": left * right, "/": quotient,
             "%": left - quotient * right}[op]
    return str(value)


#: ``$((...))`` arithmetic (one level of parentheses inside).
_ARITHMETIC = re.compile(r"\$\(\(((?:[^()]|\([^()]*\))*)\)\)")
#: A bare name inside arithmetic (``$((num * 2))``), which the shell reads as its value.
_ARITHMETIC_NAME = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


def _worked_out(match: re.Match[str], values: Mapping[str, str]) -> str:
    """An arithmetic expansion's value when its names are integers the script sets (the
    shell works it out then); else the span as written, an expansion left open."""
    inner = _ARITHMETIC_NAME.sub(lambda n: values.get(n.group(0), n.group(0)), match.group(1))
    if not _LITERAL_ARITHMETIC.match(inner):
        return match.group(0)
    value = _arithmetic(inner)
    return match.group(0) if value is None else str(value)


def open_reference(value: str) -> bool:
    """Whether ``value`` still holds a shell expansion the pasted text does not resolve (a
    positional parameter, ``$1``, among them: the script's or a function's argument that
    no call in the text gives)."""
    return bool(_OPEN.search(value) or _POSITIONAL.search(value))


#: A positional parameter's reference (``$1``); ``${1}`` is one of ``_OPEN``'s.
_POSITIONAL = re.compile(r"\$[1-9]")


#: A docs page's placeholder for a value to fill in: ``<your-model-path>``, ``{model/path}``.
_PLACEHOLDER = re.compile(r"^(?:<[^<>\s]+>|\{[A-Za-z_][\w./ -]*\})$")
#: A placeholder within a word (``<D_node_ip>:<D_dist_port>``, ``<ip>:5000``): quoted, as the
#: shell kept it; no redirection is written ``<name>`` with its closing bracket.
_PLACEHOLDER_IN = re.compile(r"<[A-Za-z_][^<>\s]*>")
#: A placeholder written with spaces inside (``<your model path>``), kept as one word.
_SPACED_PLACEHOLDER = re.compile(r"^<[A-Za-z_][\w.-]*(?: [\w.-]+)+>$")
#: A value a page spells as the reader's own (``YOUR_MODEL_PATH``, ``your-model-path``):
#: no checkpoint is named so.
_YOURS = re.compile(r"^(?:YOUR_[A-Z0-9_]+|your[-_][a-z0-9_-]+)$")


def placeholder(value: str) -> bool:
    """Whether ``value`` is a placeholder a page leaves for the reader to fill in (the shell
    would take ``<...>`` for redirections; the launch was never meant to run as written),
    or a path one of whose parts is (``/workspace/models/<change-your-model-here>``, a
    template's variable quoted so the shell kept it); ``YOUR_MODEL_PATH`` and
    ``your-model-path`` are the reader's value to give too."""
    parts = [value, *value.split("/")] if "/" in value else [value]
    return any(_PLACEHOLDER.match(part) or _YOURS.match(part) for part in parts) \
        or _PLACEHOLDER_IN.search(value) is not None or _SPACED_PLACEHOLDER.match(value) is not None


#: The hint a value that is a placeholder gets.
PLACEHOLDER_HINT = ("a placeholder the pasted text leaves to fill in: put the real value there, "
                    "or give the flag after the paste")


def command_substitution(value: str) -> bool:
    """Whether ``value`` holds a ``$(...)`` command the shell would run to make it (not
    ``$((...))`` arithmetic): the script may well set it, by a command read, not run."""
    return _COMMAND.search(value) is not None


_COMMAND = re.compile(r"\$\((?!\()")


#: A value that is one ``$(NAME)`` reference: Kubernetes' and make's spelling of a variable
#: far more often than a shell running a command called NAME.
_NAMED_REFERENCE = re.compile(r"^\$\([A-Za-z_][A-Za-z0-9_]*\)$")


def named_reference(value: str) -> bool:
    """Whether ``value`` is one ``$(NAME)`` reference (``$(TP_SIZE)``, ``$(LWS_GROUP_SIZE)``)."""
    return _NAMED_REFERENCE.match(value) is not None


#: The hint such a value gets when the text does not set NAME.
NAMED_REFERENCE_HINT = ("a $(NAME) variable the pasted text does not set: Kubernetes fills it "
                        "from the container's env and passes an undefined one on as written; "
                        "make, from the Makefile; put its value in the launch, paste the env "
                        "or variable that sets it, or give the flag after the paste")


def template_word(value: str) -> bool:
    """Whether ``value`` is a piece of a template expression (``{{``, ``{{ .Values.tp }}``,
    ``{{.MODEL}}``): Helm's, Go's or Jinja's, which the shell never sees unrendered. A
    GitHub Actions expression (``${{ secrets.TP }}``) is not one: ``helm template`` renders
    none (see ``actions_expression``)."""
    if actions_expression(value):
        return False
    return value.startswith("{{") or value.endswith("}}")


#: A GitHub Actions expression in a value: ``${{ matrix.tp }}``, ``${{ secrets.MODEL }}``.
_ACTIONS_EXPRESSION = re.compile(r"\$\{\{.*?\}\}")


def actions_expression(value: str) -> bool:
    """Whether ``value`` holds a GitHub Actions expression (``${{ ... }}``) the pasted
    workflow leaves open: a secret, a step's output, a matrix or input it does not spell
    out. Actions fills it per job run; launchplan knows only what the text gives."""
    return _ACTIONS_EXPRESSION.search(value) is not None


#: The hint such a value gets.
ACTIONS_EXPRESSION_HINT = ("a GitHub Actions expression (${{ ... }}) the pasted workflow "
                           "leaves open (a secret, a step's output, a matrix or input value it "
                           "does not spell out), which Actions fills in when the job runs: "
                           "put its value in the launch, or paste the step as the job's log "
                           "shows it")


#: The hint such a value gets.
TEMPLATE_HINT = ("a template expression ({{ ... }}: a Helm chart's, Go's or Jinja's), which "
                 "the template engine fills before anything runs: paste the rendered text "
                 "(helm template CHART -f values.yaml, or the file as deployed)")


#: The hint an unparsable value made by a command substitution gets.
COMMAND_SUBSTITUTION_HINT = ("a command substitution launchplan does not run: put the value it "
                             "prints in the launch, or give the flag after the paste")


#: The hint an unparsable value holding an open reference gets.
OPEN_REFERENCE_HINT = ("a variable or expression the pasted text leaves open (a shell "
                       "variable, an argument ($1) the script or one of its functions is "
                       "called with, one its if/case branches set differently, or a value its "
                       "script works out when it runs): put its value in the launch, set it "
                       "in the pasted script, or give the flag after the paste")


#: Arithmetic the shell can do on literals alone (``$((4 << 30))``): integers and operators.
_LITERAL_ARITHMETIC = re.compile(r"^[\d\s+\-*/%<>&|^~()]+$")
#: Characters a command substitution's text holds that the word splitter would act on.
_SPLITTING = frozenset(" \t|;&<>'\"")


#: An assignment or a flag whose value is a backquoted command substitution (``TP=`expr 16
#: \* $N```, ``--host `hostname -I | awk ...```): one word to the shell, as ``$(...)`` is.
_BACKQUOTED_VALUE = re.compile(
    r"(\b[A-Za-z_][A-Za-z0-9_]*=|(?<!\S)--?[A-Za-z][\w-]*(?:=|[ \t]+))`([^`\n]*)`")


def substitutions_kept_whole(text: str) -> str:
    """``text`` with each ``$(...)`` and ``$((...))`` made one word, as the shell keeps it
    within the word it stands in: arithmetic on literals is worked out (``$((4 << 30))``
    is ``4294967296``); anything else (``$(hostname -i)``, ``$((TP * 2))``) stays as
    written, escaped so the splitter does not cut it at its spaces or pipes, and is later
    reported as an expansion the paste leaves open. So is a ``${...}`` with spaces in it
    (``${MODEL:?set MODEL first}``): the shell reads it as one piece of its word. Single-quoted
    text is left alone."""
    if "`" in text:  # NAME=`cmd`: the old spelling of NAME=$(cmd)
        text = _BACKQUOTED_VALUE.sub(lambda m: f"{m.group(1)}$({m.group(2)})", text)
    if "$#" in text or "${#" in text:  # $# and ${#ARR[@]} are no comments, though the
        text = text.replace("${#", "${\\#").replace("$#", "$\\#")  # splitter takes them so
    if "$(" not in text and not _SPACED_BRACES.search(text):
        return text
    out: list[str] = []
    at = 0
    quote = ""
    while at < len(text):
        char = text[at]
        if char == "#" and not quote and (at == 0 or text[at - 1] in " \t\n"):
            end = text.find("\n", at)  # a comment (its apostrophes are not quotes)
            end = len(text) if end < 0 else end
            out.append(text[at:end])
            at = end
            continue
        if char in "'\"" and (not quote or quote == char) and (at == 0 or text[at - 1] != "\\"):
            quote = "" if quote else char
        elif char == "$" and quote != "'" and text.startswith("$(", at):
            end = _closing(text, at + 1)
            if end is not None:
                out.append(_substitution(text[at:end + 1], inside_quotes=quote == '"'))
                at = end + 1
                continue
        elif char == "$" and not quote and text.startswith("${", at):
            end = _closing_brace(text, at + 1)
            span = text[at:end + 1] if end is not None else ""
            if " " in span and "'" not in span and '"' not in span:
                out.append(_escaped(span))
                at += len(span)
                continue
        out.append(char)
        at += 1
    return "".join(out)


#: A ``${`` whose braces hold a space before they close (``${NAME:?set NAME first}``).
_SPACED_BRACES = re.compile(r"\$\{[^}\n]*[ \t][^}\n]*\}")


def _closing_brace(text: str, opening: int) -> int | None:
    """The index of the brace that closes the one at ``opening`` (nesting counted), on the
    same line; None when the line ends first."""
    depth = 0
    for at in range(opening, len(text)):
        char = text[at]
        if char == "\n":
            return None
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return at
    return None


def _closing(text: str, opening: int) -> int | None:
    """The index of the parenthesis that closes the one at ``opening`` (nesting counted).
    The substitution may go on over lines (``ARGS=$(echo serve ...`` then ``)`` on a line of
    its own), not past a blank line: a ``$(`` left open in prose takes no script with it."""
    depth = 0
    for at in range(opening, len(text)):
        if text[at] == "(":
            depth += 1
        elif text[at] == ")":
            depth -= 1
            if depth == 0:
                return at
        elif text.startswith("\n\n", at) or text.startswith("\n\n", at - 1):
            return None
    return None


def _substitution(span: str, *, inside_quotes: bool) -> str:
    span = span.replace("\n", " ")  # its lines are one command's words (``$(echo a\n b)``)
    if span.startswith("$((") and span.endswith("))"):
        inner = span[3:-2]
        if _LITERAL_ARITHMETIC.match(inner):
            value = _arithmetic(inner)
            if value is not None:
                return str(value)
    if inside_quotes:
        return span
    return _escaped(span)


def _escaped(span: str) -> str:
    """``span`` with each character the word splitter would act on escaped, and each
    backslash before a plain character, so that the splitter gives it back as written
    (``tr ',' '\\n'`` keeps its backslash: the command the shell would run is shown). One
    before ``$``, a backquote, a quote or a backslash is left to the splitter, which takes
    it off as a double-quoted string's shell would (``ssh host "... \\$(hostname)"``)."""
    out: list[str] = []
    for at, char in enumerate(span):
        plain = char == "\\" and span[at + 1:at + 2] not in ("$", "`", '"', "'", "\\", "")
        out.append("\\" + char if char in _SPLITTING or plain else char)
    return "".join(out)


def _arithmetic(expression: str) -> int | None:
    """The shell's integer value of ``expression`` (literals and operators only), or None
    when it is not one the shell would compute (a division by zero, a stray token)."""
    import ast
    import operator

    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.FloorDiv: operator.floordiv, ast.Div: operator.floordiv, ast.Mod: operator.mod,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift,
           ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor}

    def value(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd,
                                                                  ast.Invert)):
            inner = value(node.operand)
            return -inner if isinstance(node.op, ast.USub) else (
                ~inner if isinstance(node.op, ast.Invert) else inner)
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            right = value(node.right)
            if isinstance(node.op, (ast.LShift, ast.RShift)) and not 0 <= right < 64:
                raise ValueError(right)
            return ops[type(node.op)](value(node.left), right)
        raise ValueError(node)

    try:
        return value(ast.parse(expression.strip(), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return None


#: Characters after which a ``#`` starts a word (unquoted whitespace and control operators).
_WORD_BREAKS = frozenset(" \t\n;&|()<>")


def uncommented(text: str) -> str:
    """``text`` without its shell comments: a ``#`` opens one only where a word starts
    (``a#b`` and ``a\\ #b`` are words, as the shell reads them; Python's shlex cuts both)."""
    quote = ""
    starts_word = True
    at = 0
    while at < len(text):
        char = text[at]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                at += 1
        elif char == "\\":
            if text[at + 1:at + 2] != "\n":  # an escaped char is a word's; a continuation
                starts_word = False  # joins the lines and changes nothing
            at += 2
            continue
        elif char in "'\"":
            quote = char
        elif char == "#" and starts_word:
            end = text.find("\n", at)
            text = text[:at] + ("" if end < 0 else text[end:])
            continue
        starts_word = not quote and char in _WORD_BREAKS
        at += 1
    return text


def shell_split(text: str) -> list[str]:
    """``text``'s words as a POSIX shell splits them, comments left out (``shlex.split``
    with comments taken off first where the shell takes them: see ``uncommented``), a
    control operator a word for itself however it is spaced (``--tp 2;echo``)."""
    text = uncommented(text)
    if "$'" in text:
        text = _ansi_c_unquoted(text)
    return shlex.split(operators_apart(text))


#: The escapes of bash's ``$'...'`` quoting that a launch line may hold.
_ANSI_C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b",
                   "E": "\x1b", "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"',
                   "?": "?"}


def _ansi_c_unquoted(text: str) -> str:
    """``text`` with each unquoted ``$'...'`` (bash's ANSI-C quoting: ``$'qwen3-8b'``,
    ``$'a\\tb'``) written as the plain single-quoted word it stands for, escapes decoded.
    One left open stays as written."""

    def decoded(at: int) -> tuple[str, int] | None:
        if not text.startswith("$'", at):
            return None
        out: list[str] = []
        end = at + 2
        while end < len(text) and text[end] != "'":
            if text[end] == "\\" and end + 1 < len(text):
                out.append(_ANSI_C_ESCAPES.get(text[end + 1], "\\" + text[end + 1]))
                end += 2
            else:
                out.append(text[end])
                end += 1
        return (shlex.quote("".join(out)), end + 1) if end < len(text) else None

    return _rewritten_unquoted(text, decoded)


def _rewritten_unquoted(text: str, act: Callable[[int], tuple[str, int] | None]) -> str:
    """``text`` copied through with ``act`` asked at each position outside quotes and
    backslash escapes (as the shell reads them): its (text, next position) replaces the
    text from there, None copies the character."""
    out: list[str] = []
    quote = ""
    at = 0
    while at < len(text):
        char = text[at]
        if char == "\\" and quote != "'" and at + 1 < len(text):
            out.append(text[at:at + 2])
            at += 2
            continue
        if quote:
            quote = "" if char == quote else quote
        elif (done := act(at)) is not None:
            out.append(done[0])
            at = done[1]
            continue
        elif char in "'\"":
            quote = char
        out.append(char)
        at += 1
    return "".join(out)


#: An unquoted word that is a ``case`` pattern (``fast|quick)``): its ``|`` is no pipe.
_CASE_PATTERN = re.compile(r"\(?[^\s()]*\|[^\s()]*\)$")


def fields(value: str) -> list[str]:
    """The words an unquoted reference to ``value`` becomes: split at its spaces, as the
    shell splits an expansion (quotes inside it are plain characters), except inside a
    command substitution the paste could not run (``$(seq -s ' ' 1 4)``), which stays one
    open word: the shell ran it at assignment and split only its output."""
    if "$(" not in value and "`" not in value and "${" not in value:
        return value.split()
    out: list[str] = []
    word: list[str] = []
    at = 0
    while at < len(value):
        char = value[at]
        if char.isspace():
            if word:
                out.append("".join(word))
                word = []
            at += 1
            continue
        end = _substitution_end(value, at)
        if end is not None:
            word.append(value[at:end])
            at = end
            continue
        word.append(char)
        at += 1
    if word:
        out.append("".join(word))
    return out


def _substitution_end(text: str, at: int) -> int | None:
    """The index just after the ``$(...)``, ``${...}`` or backquoted substitution that starts
    at ``at``; None when none starts there or it does not close."""
    char = text[at]
    if char == "`":
        close = text.find("`", at + 1)
    elif char == "$" and text.startswith(("$(", "${"), at):
        close = (_closing(text, at + 1) if text[at + 1] == "(" else
                 _closing_brace(text, at + 1))
    else:
        return None
    return close + 1 if close is not None and close > at else None


#: A placeholder a page writes with its choices in angle brackets (``<PORT|30000>``,
#: ``<hf-id|dir>``): a value to fill in, not a pipe
_ANGLE_CHOICES = re.compile(r"^<[\w.:/-]+(?:\|[\w.:/-]+)+>$")


def operators_apart(text: str) -> str:
    """``text`` with a space on each side of an unquoted ``;``, ``|``, ``&`` and their
    doubled forms where a word touches them: the shell ends a word there (``--port
    30000|tee log``, ``--port 30000&``), where ``shlex`` would keep ``30000|tee`` one word.
    Left as written: quoted or escaped ones, a substitution's (``$(a|b)``), redirections
    (``2>&1``, ``&>log``, ``>|f``), and a ``case`` pattern's alternatives (``a|b)``)."""
    if not any(c in text for c in ";|&"):
        return text
    n = len(text)

    def apart(at: int) -> tuple[str, int] | None:
        char = text[at]
        if char in "$`":
            end = _substitution_end(text, at)  # a substitution's own operators stay
            return (text[at:end], end) if end is not None else None
        if char not in ";|&" or _redirection(text, at) or (
                char == "|" and (_case_pattern(word := _word_around(text, at))
                                 or _ANGLE_CHOICES.match(word))):
            return None
        end = at + 1
        if end < n and (text[end] == char or (char == "|" and text[end] == "&")):
            end += 1  # ``;;``, ``||``, ``&&``, ``|&``
        before = " " if at and not text[at - 1].isspace() else ""
        after = " " if end < n and not text[end].isspace() else ""
        return before + text[at:end] + after, end

    return _rewritten_unquoted(text, apart)


def _case_pattern(word: str) -> bool:
    """Whether ``word`` is a ``case`` branch's alternatives (``a|b)``): it ends in ``)``,
    tested first (the pattern's match backtracks over a long run of ``|``)."""
    return word.endswith(")") and _CASE_PATTERN.match(word) is not None


def _redirection(text: str, at: int) -> bool:
    """Whether the operator character at ``at`` belongs to a redirection: ``>&``, ``<&``,
    ``&>``, ``>|``."""
    before = text[at - 1] if at else ""
    after = text[at + 1] if at + 1 < len(text) else ""
    char = text[at]
    return (char == "&" and (before in "<>" and before != "" or after == ">")) or (
        char == "|" and before == ">")


#: how far ``_word_around`` looks each way: a ``case`` pattern is a short word, and a run of
#: thousands of operators must not cost a scan of the run at each of them
_AROUND = 256


def _word_around(text: str, at: int) -> str:
    """The unspaced run of characters holding position ``at`` (at most ``_AROUND``
    characters each way)."""
    start = at
    while start > 0 and at - start < _AROUND and not text[start - 1].isspace():
        start -= 1
    end = at
    while end < len(text) and end - at < _AROUND and not text[end].isspace():
        end += 1
    return text[start:end]
