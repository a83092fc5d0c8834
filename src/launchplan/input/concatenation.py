"""A launch a program builds from string literals joined with ``+`` (Go, JavaScript, Java,
C#), as the one string it makes.

Go has no implicit concatenation of adjacent literals, so a long command is written
``"python3 -m sglang.launch_server --model-path M " +`` and ``"--tp-size 2"`` on the next line;
Java and JavaScript do the same, and put a variable between two pieces
(``"--model-path " + path + " --tp 1"``). Read as a shell line, only the first literal was a
command and the rest was lost (or ``+`` became an argument). Python is not read here: its
syntax tree gives the values the names hold (``input.python_launch``).
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterator

#: one double- or single-quoted literal on one line (escapes kept as written)
_LITERAL = r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
#: ``"a" + "b"`` (over a line break too), and ``"a" + name + "b"`` / ``"a" + name`` where
#: the name is a variable, a field or a call the program fills in at run time
_JOINED = re.compile(rf"({_LITERAL})\s*\+\s*({_LITERAL})")
_NAME = r"[A-Za-z_][\w.]*(?:\([^()\n]*\))?"
_WITH_NAME = re.compile(rf"({_LITERAL})\s*\+\s*({_NAME})\s*(?:\+\s*({_LITERAL}))?")
#: the pieces a chain is joined over at most (a real command has tens; a text of thousands
#: of ``+`` must not cost a pass each)
_MAX_PASSES = 64
#: whether a text joins a literal with ``+`` at all (the cheap test first)
_ANY = re.compile(rf"(?:{_LITERAL})\s*\+")


def _not_python(text: str) -> bool:
    """Whether ``text`` fails to parse as Python (Python's own reader follows its names; a
    chain too deep for the parser is no program of a launch either)."""
    try:
        ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return True
    except (RecursionError, MemoryError):
        return False
    return False


def joins_literals(text: str) -> bool:
    """Whether ``text`` is source code (not Python) that joins string literals with ``+``."""
    if _ANY.search(text) is None:
        return False
    return _not_python(text)


def joined(text: str) -> str:
    """``text`` with each ``+`` chain of literals written as the one literal it makes; a
    name between two pieces becomes a ``${name}`` reference, open as a shell variable the
    text does not set is."""
    previous = None
    for _ in range(_MAX_PASSES):  # each pass joins a piece more of every chain
        if previous == text:
            break
        previous = text
        text = _JOINED.sub(_join, text)
        text = _WITH_NAME.sub(_join_name, text)
    # a literal stands apart from the call around it (``Sprintf("...", x)``, ``setCmd("...")``):
    # read as a shell line, its text would run into the ``(`` and the ``,`` or ``)``
    return re.sub(_LITERAL, _apart, text)


def _apart(match: re.Match[str]) -> str:
    literal = match.group(0)
    return f" {literal} " if "sglang" in literal else literal


def _join(match: re.Match[str]) -> str:
    left, right = match.group(1), match.group(2)
    if left[0] != right[0]:  # 'a' + "b": join inside the first one's quotes
        right = left[0] + right[1:-1].replace(left[0], "\\" + left[0]) + left[0]
    return left[:-1] + right[1:]


def _join_name(match: re.Match[str]) -> str:
    left, name, right = match.group(1), match.group(2), match.group(3)
    quote = left[0]
    reference = "${" + re.sub(r"\W+", "_", name).strip("_") + "}"
    tail = right[1:-1] if right is not None else ""
    return left[:-1] + reference + tail + quote


#: a string literal that starts SGLang (``"python -m sglang.launch_server ..."``, ``"-m
#: sglang.launch_server ..."``, ``"sglang serve ..."``): double-, single- or back-quoted, on
#: one line
_LAUNCH_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`')
_LAUNCHER = re.compile(r"sglang\.launch_server|\bsglang\s+serve\b")
#: a call the literal is an argument of: ``execSync(``, ``format!(``, ``new
#: ProcessStartInfo(``, ``exec.Command(``, ``String::from(`` (no shell's ``$(``)
_CALL_OPEN = re.compile(r"[A-Za-z_][\w.:]*!?\(")
#: what follows a literal in code: ``.to_string()``, a statement's ``;`` after a declared
#: binding
_METHOD_AFTER = re.compile(r"\s*\.\s*[a-z_]\w*\(")
_JOINED_AFTER = re.compile(r"\s*\+")
#: how far past a launch literal its call's closing parenthesis is looked for (its other
#: arguments: a few lines), so a text of many unclosed calls costs no pass of its own each
_CALL_REACH = 2000
_DECLARED_BEFORE = re.compile(
    r"\b(?:let|const|var|val|auto|string|String|std::string)\s+(?:mut\s+)?[A-Za-z_]\w*"
    r"(?:\s*:\s*[\w<>&':]+)?\s*=\s*$")
#: a Python script's own ways of running a launch: its reader follows those
_PYTHON_SIGNS = re.compile(r"\bsubprocess\.|\bos\.system\(|\blaunch_server_cmd\(|\bsgl\.Engine\(|"
                           r"^\s*[!%]", re.MULTILINE)


def code_literals(text: str) -> bool:
    """Whether ``text`` is program code (not Python, not a shell script) that hands a launch
    over as a string literal: an argument of a call (``execSync("...", {...})``,
    ``format!("...", a)``, ``new ProcessStartInfo("python", "-m sglang...")``), a literal a
    method is called on (``"...".to_string()``) or one a declared binding takes (``let cmd
    = "...";``). Read as shell text, the code's punctuation after the closing quote would
    stick to the last flag's value."""
    if "sglang" not in text or _PYTHON_SIGNS.search(text) is not None:
        return False
    if next(_launch_lines(text), None) is None:
        return False
    return _not_python(text)


def literal_launches(text: str) -> str:
    """``text`` with each launch its code literals make (see ``code_literals``) on a line
    of its own, in place of the code that makes it: a literal ends at its closing quote;
    the literals a call is given first are its words in order
    (``ProcessStartInfo("python", "-m ...")``); a ``format!`` has its holes filled (a
    literal argument's text, a computed one a ``{name}`` placeholder). The rest of the
    text is kept (a page's other blocks hold launches of their own)."""
    out: list[str] = []
    at = 0
    for start, end, line in _launch_lines(text):
        out += [text[at:start], f"\n{line}\n"]
        at = end
    return "".join(out) + text[at:]


#: A Rust raw string (``r#"..."#``, ``r##"..."##``): its text as written, over lines, up to
#: a quote followed by as many ``#`` as opened it. (Only Rust spells a raw string so.)
_RAW_STRING = re.compile(r'\br(#+)"(.*?)"\1', re.DOTALL)


def raw_strings_apart(text: str) -> str:
    """``text`` with each Rust raw string that names SGLang's launcher (a function that
    returns a bash script, ``Some(r#"...echo "Run: python3 -m sglang..."..."#)``) written as
    its text on lines of its own: what the string holds is a script, and the code's
    ``"#),`` after it is none of its words (read as shell, it stuck to the last flag's
    value)."""
    if '#"' not in text:
        return text
    # the ``r#`` that opened it stays, a word no shell line starts with: it still tells
    # the code's language where the string's text fails to load (as a manifest)
    return _RAW_STRING.sub(lambda m: f"r{m.group(1)}\n{m.group(2)}\n"
                           if _LAUNCHER.search(m.group(2)) else m.group(0), text)


def _launch_lines(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, line) of each piece of code in ``text`` that makes a launch line."""
    from launchplan.input.process_builders import _balanced, _items, formatted

    done = -1
    for literal in _LAUNCH_LITERAL.finditer(text):
        if literal.start() < done or _LAUNCHER.search(literal.group(0)) is None \
                or " " not in literal.group(0):
            continue  # ``exec.Command("python3", "-m", "sglang.launch_server", ...)``: an
            # argv of one-word literals, which the pasted-line reader takes item by item
        if _JOINED_AFTER.match(text, literal.end()) or text[max(0, literal.start() - 80):
                                                            literal.start()].rstrip().endswith("+"):
            continue  # a piece of a ``+`` chain: ``joined`` makes it one literal first
        call = _enclosing_call(text, literal.start(), literal.end())
        if call is not None:
            opened, inner_at = call
            inner, end = _balanced(text[:literal.end() + _CALL_REACH], inner_at, "\"'`")
            if end is None:
                continue
            done = end
            line: str | None
            if opened.group(0).startswith("format!"):
                line = formatted(inner)
            else:
                words: list[str] = []
                for item in _items(inner, "\"'`"):
                    piece = _LAUNCH_LITERAL.fullmatch(item)
                    if piece is None:
                        break  # the call's options (``{stdio: "inherit"}``), not its command
                    words.append(_text(piece.group(0)))
                line = " ".join(words) if any(map(_LAUNCHER.search, words)) else None
            if line is not None:
                yield opened.start(), end, line
            continue
        if _METHOD_AFTER.match(text, literal.end()) or _DECLARED_BEFORE.search(
                text[max(0, literal.start() - 120):literal.start()]):
            method = _METHOD_AFTER.match(text, literal.end())
            end = literal.end()
            if method is not None:  # ``.to_string()``: its parentheses go with it
                _, closes = _balanced(text[:end + _CALL_REACH], method.end(), "\"'`")
                end = closes if closes is not None else end
            done = end
            yield literal.start(), end, _text(literal.group(0))


def _enclosing_call(text: str, start: int, end: int) -> tuple[re.Match[str], int] | None:
    """(callee, index after its ``(``) of the innermost call whose parentheses hold the
    literal at ``start``..``end``, looked for a few lines back; None when it stands in no
    call (or in a shell's ``$(...)``)."""
    from launchplan.input.process_builders import _balanced

    window = max(0, start - 300)
    opens = list(_CALL_OPEN.finditer(text, window, start))
    for found in reversed(opens):
        if text[found.start() - 1:found.start()] == "$":
            continue
        _, closes = _balanced(text[:end + _CALL_REACH], found.end(), "\"'`")
        if closes is not None and closes >= end:
            return found, found.end()
    return None


def _text(literal: str) -> str:
    """A literal's text: its quotes off, its escapes read."""
    body = literal[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


#: A statement of program code that appends a literal to a variable (``cmd += ' --tp 8';``,
#: JavaScript's, Java's, C#'s): a space before ``+=``, which a shell's append
#: (``CMD+=" --tp 8"``) cannot have, and a quote after it.
_APPENDED = re.compile(r"^[ \t]*([A-Za-z_$][\w$.]*)[ \t]+\+=[ \t]*[\"'`]", re.MULTILINE)


def built_by_appends(text: str) -> str | None:
    """The variable in which ``text``, program code other than Python, builds an SGLang
    launch by appending string literals to it (``let cmd = ''; cmd += 'sglang serve ...';
    cmd += ' --tp 4';``, a docs page's command generator), else None. Its pieces are
    added under the program's own conditions (``if (isAMD)``) and filled from its values at
    run time, so no one of its lines, read as shell text, is the command it makes."""
    if " +=" not in text or "sglang" not in text:
        return None
    for found in _APPENDED.finditer(text):
        name = found.group(1)
        declared = re.compile(rf"\b{re.escape(name)}\s*(?:\+)?=\s*[\"'`]")
        if any(_LAUNCHER.search(line) for line in text.split("\n")
               if declared.search(line)) and _not_python(text):
            return name
    return None
