"""The branches of a pasted script's ``if`` blocks that the shell would not run.

Launch scripts pick between settings with a test on a variable they set themselves
(``EXPERT_MODE=${EXPERT_MODE:-native}`` then ``if [ "$EXPERT_MODE" = dequant ]; then
export SGLANG_X=1; MOE_ARGS=""; fi``). Read line by line, the body's assignments would all
apply; the shell runs only the branch its test picks. This module drops the commands of the
branches a test decides against, when the test compares words whose values the script fixes
(``[ A = B ]``, ``[[ A != B ]]``, ``test -z A``, ``[ A -eq 1 ]``), and ``$#``, the number of
the script's arguments (none as pasted, unless ``set --`` gives some). A ``while`` loop's body
is read when its test holds (``while [[ $# -gt 0 ]]; do case $1 in ...`` over the script's
arguments runs no times as pasted, as does ``while getopts ...``).
A test on anything else (a caller's variable, a file, a
command's status) decides nothing here: every branch of its block is read, each from the
values the script had before the block (a marker segment, ``MERGED``, puts them back), and
after the block a variable its branches leave with different values is open, as one the
caller sets is: which value the shell has is decided when the script runs (``if [ "$(nvidia-smi
-L | wc -l)" -ge 8 ]; then TP=8; else TP=4; fi``). A block with one branch read (``if [ -z
"$MODEL" ]; then MODEL=...; fi``) leaves that branch's values, as its lines read in order do.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass

from launchplan.input import shell_arrays, shell_vars

#: Words that start a branch's body, written on the same line as its first command.
_BODY_KEYWORDS = ("then", "else", "do")
_INTEGER_TESTS = {"-eq": int.__eq__, "-ne": int.__ne__, "-lt": int.__lt__,
                  "-le": int.__le__, "-gt": int.__gt__, "-ge": int.__ge__}


#: The first word of a segment ``live_segments`` adds where an undecided block's branch
#: starts or the block ends: the variables whose values it puts (see ``merged_values``).
MERGED = "__launchplan_merged__"
#: How a ``MERGED`` segment's word writes a name and its state: ``NAME<sep>=value``,
#: ``NAME<sep>?`` (open) or ``NAME<sep>-`` (unset), with ``+`` after the name when exported.
_SEP = "\x1e"


@dataclass
class _Block:
    """One open ``if`` or ``case`` block (or loop): whether the text around it runs, what its
    tests decided, and the values its branches start from and leave (not for a loop)."""

    outer: bool  # the block itself is in a branch that runs
    live: bool  # the branch being read runs (or may: its test decides nothing here)
    taken: bool  # an earlier branch's test was decided true
    unsure: bool  # an earlier branch's test decided nothing
    subject: str | None = None  # a ``case`` block's word (None: an ``if`` block)
    in_branch: bool = False  # a ``case`` block: between a pattern and its ``;;``
    before: dict[str, str] | None = None  # the script's values as the block opened
    outcomes: list[dict[str, str]] | None = None  # the values each live branch left
    filled: set[str] | None = None  # a loop over the script's arguments that runs no times:
    # the names its body sets from them (``-m) MODEL_PATH="$2"``)
    guard: bool = False  # an ``if`` testing whether a value is given (``[ -z "$MODEL" ]``)
    test: str = ""  # an ``if`` block's test, as written (``[ "$1" = ngram ]``)


def live_segments(segments: list[list[str]]) -> list[list[str]]:
    """``segments`` (commands, in order) without those in branches the shell skips, each
    body command without the ``then``/``else``/``do`` (or ``case`` pattern) written before
    it on its line; a ``MERGED`` segment where a branch of an undecided block starts (the
    values before the block back) and where that block ends (the values its branches
    leave: see the module's docstring)."""
    values: dict[str, str] = {}
    exported: set[str] = set()  # names the script exports: a merged value is exported too
    blocks: list[_Block] = []
    out: list[list[str]] = []

    def switch(block: _Block, decided: bool | None) -> None:
        """Go on to ``block``'s next branch, whose test gave ``decided``."""
        if block.live and block.outcomes is not None:
            block.outcomes.append(dict(values))
        _next_branch(block, decided)
        if block.live and block.unsure and block.before is not None:
            out.append(_put(values, block.before, exported))  # each branch from the same values

    def close(block: _Block) -> None:
        if block.live and block.outcomes is not None:
            block.outcomes.append(dict(values))
        if block.unsure and block.outer and block.before is not None \
                and block.outcomes is not None:
            out.append(_put(values, _merged(block.before, block.outcomes, block.guard,
                                            block.test), exported))

    pending = list(segments)
    budget = [_MAX_UNROLLED]  # segments unrolled loops may still add, across the script
    frames: list[tuple[list[str], dict[str, str]]] = []  # (a function's ``}``, the $N it hid)
    at = 0
    while at < len(pending):
        seg = pending[at]
        at += 1
        head = seg[0] if seg else ""
        running = not blocks or blocks[-1].live
        if frames and seg is frames[-1][0]:  # the function's body is over: the script's $N
            _positional_set(values, frames.pop()[1])
        elif head.endswith("()") or head == "function":
            frame = _called_with(pending, at - 1, values)
            if frame is not None:
                frames.append(frame)
        if head == "for" and running and (blocks == [] or blocks[-1].subject is None) \
                and (unrolled := _unrolled(pending, at - 1, values, budget)) is not None:
            end, runs = unrolled
            pending[at - 1:end + 1] = runs  # the loop as the runs of its body, in order
            at -= 1
            continue
        if blocks and blocks[-1].subject is not None and head != "esac":
            seg = _case_branch(blocks[-1], seg, switch)
            head = ""
        elif head == "case" and len(seg) >= 3 and seg[2] == "in":
            subject = shell_vars.expand(seg[1], values)
            known = not (shell_vars.open_reference(subject) or subject.startswith("$")
                         or _callers_argument(seg[1], values))
            blocks.append(_Block(outer=running, live=False, taken=False, unsure=not known,
                                 subject=subject if known else "", before=dict(values),
                                 outcomes=[]))
            if len(seg) == 3:
                out.append([])
                continue
            # ``case $M in a) TP=2;; *) TP=8;; esac`` on one line: its first branch follows
            seg = _case_branch(blocks[-1], seg[3:], switch)
            head = ""
        elif head == "esac" and blocks:
            close(blocks.pop())
            seg = seg[1:]
        elif head == "if":
            blocks.append(_opened(running, _decided(seg[1:], values), dict(values)))
            blocks[-1].guard = _presence_test(seg[1:])
            blocks[-1].test = " ".join(seg[1:])
        elif head == "elif" and blocks:
            switch(blocks[-1], _decided(seg[1:], values))
        elif head == "else" and blocks:
            switch(blocks[-1], None if blocks[-1].unsure else True)
            seg = seg[1:]
        elif head == "fi" and blocks:
            close(blocks.pop())
            seg = seg[1:]
        elif head in ("while", "until", "for", "select"):
            # a loop's body runs when its test holds: ``while [[ $# -gt 0 ]]`` over the
            # script's arguments runs no times when the script is pasted without any
            decided = _decided(seg[1:], values) if head in ("while", "until") else None
            if head == "while" and seg[1:2] == ["getopts"]:
                # ``while getopts "m:t:" opt``: the options of a script run with none (as
                # pasted, unless ``set --`` gives some) end the loop at once
                decided = False if not shell_vars.positional(values) else None
            if head == "until" and decided is not None:
                decided = not decided
            blocks.append(_opened(running, decided, None))
            if decided is False and head == "while" and running and _over_arguments(seg):
                blocks[-1].filled = set()
            if head in ("for", "select"):
                shell_vars.declared(seg, values)  # the loop variable's first word
            out.append(seg if head in ("for", "select") else [])
            continue
        elif head == "done" and blocks:
            loop = blocks.pop()
            if loop.filled:
                out.append(_filled_open(values, loop.filled, exported))
            seg = seg[1:]
        elif head in _BODY_KEYWORDS:
            seg = seg[1:]
        if head in ("if", "elif") or not (not blocks or blocks[-1].live):
            if blocks and head not in ("if", "elif"):
                _note_filled(blocks, seg)
            out.append(seg if head in ("if", "elif") else [])
            continue
        if seg[:2] == ["set", "--"]:  # the script's arguments, as $1, $2 ... and $#
            values.update((str(n), w) for n, w in enumerate(seg[2:], 1))
        exported.update(shell_vars.declared(seg, values))
        out.append(seg)
    return out


#: How many segments the loops of one script may unroll to, all told, and how many times
#: one loop may run: a batch-size list or a GPU range is a few dozen; past that the loop is
#: read as before (once, its first item), not run a million times.
_MAX_UNROLLED = 4096
_MAX_RUNS = 256
#: The commands a loop body may hold to be unrolled: it builds values (assignments, arrays,
#: tests, arithmetic, nested loops), and starts nothing. A body that launches, calls a
#: function or leaves the loop early (``break``) is read once, as before.
_BUILDING = frozenset({"if", "elif", "else", "fi", "then", "do", "done", "for", "[", "[[",
                       "test", "export", "local", "declare", "typeset", "readonly", "let",
                       "echo", "printf", ":", "true", "false", shell_arrays.MARK})
#: A C-style loop head's three parts (``for ((i=0; i<N; i++))``): its start, its test, its step.
_C_START = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*(\S+)\s*$")
_C_TEST = re.compile(r"^\s*([A-Za-z_]\w*)\s*(<=|<|>=|>|!=)\s*(\S+)\s*$")
_C_STEP = re.compile(r"^\s*(?:([A-Za-z_]\w*)\s*(\+\+|--)|(\+\+|--)\s*([A-Za-z_]\w*)"
                     r"|([A-Za-z_]\w*)\s*([-+])=\s*(\S+))\s*$")
#: ``$(seq LAST)``, ``$(seq FIRST LAST)``, ``$(seq FIRST STEP LAST)`` (or in backquotes), and
#: bash's brace range ``{FIRST..LAST}``.
_SEQ = re.compile(r"^(?:\$\(|`)\s*seq((?:\s+\S+){1,3})\s*(?:\)|`)$")
_BRACE_RANGE = re.compile(r"^\{(-?\d+)\.\.(-?\d+)\}$")


def _called_with(segments: list[list[str]], at: int, values: dict[str, str]
                 ) -> tuple[list[str], dict[str, str]] | None:
    """For a function defined at ``segments[at]`` (``serve() {``) that the script later
    calls with words it fixes (``serve off``): bind ``$1``, ``$2`` ... to them for the body,
    so a test on the function's own argument is decided as that call decides it (the
    launch's reading binds the same first call). Give back (the body's closing ``}``, the
    positional parameters the call hides); None when there is no such call."""
    seg = segments[at]
    name = seg[1] if seg[0] == "function" and len(seg) > 1 else seg[0]
    name = name.removesuffix("()")
    if not name or not (seg[1:] in ([], ["{"]) or seg[0] == "function"):
        return None
    depth = 0
    end = None
    for n in range(at, len(segments)):
        words = segments[n]
        if words[-1:] == ["{"] or words[:1] == ["{"]:  # the body, or a group inside it
            depth += 1
        elif words[:1] == ["}"]:
            depth -= 1
            if depth <= 0:
                end = n
                break
    if end is None:
        return None
    for n in range(end + 1, len(segments)):
        words = [w for w in segments[n] if not shell_vars.ASSIGNMENT.match(w)]
        if words[:1] != [name]:
            continue
        arguments = []
        for word in words[1:]:
            if word[:1] in "<>" or word[:1].isdigit() and word[1:2] in "<>":
                break  # a redirection ends the call's arguments
            arguments.append(shell_vars.expand(word, values))
        if any("$" in w or "`" in w for w in arguments):
            return None  # a value the script works out later (a loop's item): undecided
        hidden = {k: v for k, v in values.items() if k.isdigit()}
        _positional_set(values, {str(i): w for i, w in enumerate(arguments, 1)})
        return segments[end], hidden
    return None


def _positional_set(values: dict[str, str], positional: dict[str, str]) -> None:
    """Make ``values``' ``$1``, ``$2`` ... exactly ``positional``."""
    for key in [k for k in values if k.isdigit()]:
        del values[key]
    values.update(positional)


def _unrolled(segments: list[list[str]], at: int, values: dict[str, str],
              budget: list[int]) -> tuple[int, list[list[str]]] | None:
    """The loop whose head is ``segments[at]`` (``for NAME in WORDS``, or C-style ``for
    ((i=0; i<N; i++))``) as the shell runs it: for each item, ``NAME=item`` and then its
    body (bash(1): "the list is executed once for each member"), and the index of its
    ``done``. Read once, a body that collects batch sizes (``B+=("$b")``), flags or GPU ids
    (``GPUS="${GPUS}${GPUS:+,}$i"``) kept the first item alone. None (the loop read as
    before) when its items are not all known from the text, its body does more than build
    values, or it runs past the bounds."""
    head, start = _loop_head(segments, at, values)
    end = _loop_end(segments, start)
    if head is None or end is None or segments[end] != ["done"]:
        return None
    body = [seg[1:] if seg[:1] == ["do"] else seg for seg in segments[start:end]]
    if segments[start][:1] != ["do"] or not all(_building(seg) for seg in body):
        return None
    name, runs, after = head
    if runs is None:
        runs = _loop_words(segments[at][3:], values)
    if runs is None or len(runs) > _MAX_RUNS:
        return None
    out: list[list[str]] = []
    for item in runs:
        out.append([f"{name}={item}"])
        out.extend(seg for seg in body if seg)
    if after is not None:
        out.append([f"{name}={after}"])
    budget[0] -= len(out)
    if budget[0] < 0:
        return None
    return end, out


def _loop_head(segments: list[list[str]], at: int, values: dict[str, str]
               ) -> tuple[tuple[str, list[str] | None, str | None] | None, int]:
    """(the loop variable, its items when a C-style head fixes them (None: the ``in``
    words give them), the value it is left with after the last run) and the index of the
    segment after the head; (None, ...) for a head of another form."""
    seg = segments[at]
    if len(seg) >= 3 and seg[2] == "in" and re.fullmatch(r"[A-Za-z_]\w*", seg[1]):
        return (seg[1], None, None), at + 1
    if len(seg) != 2 or not seg[1].startswith("((") or at + 2 >= len(segments):
        return None, at + 1
    parts = [seg[1][2:], " ".join(segments[at + 1]), " ".join(segments[at + 2])]
    if not parts[2].endswith("))"):
        return None, at + 1
    parts[2] = parts[2][:-2]
    return _c_runs(parts, values), at + 3


def _c_runs(parts: list[str], values: dict[str, str]
            ) -> tuple[str, list[str] | None, str | None] | None:
    """The runs of a C-style loop whose start, test and step are integers the head fixes."""
    start, test, step = (_C_START.match(parts[0]), _C_TEST.match(parts[1]),
                         _C_STEP.match(parts[2]))
    if start is None or test is None or step is None:
        return None
    name = start.group(1)
    stepped = step.group(1) or step.group(4) or step.group(5)
    if test.group(1) != name or stepped != name:
        return None
    try:
        value, limit = _integer(start.group(2), values), _integer(test.group(3), values)
        by = (1 if "+" in (step.group(2) or step.group(3) or "") else -1) \
            if step.group(5) is None else int(step.group(7)) * (1 if step.group(6) == "+" else -1)
    except ValueError:
        return None
    holds = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__,
             "!=": int.__ne__}[test.group(2)]
    runs: list[str] = []
    while holds(value, limit):
        if len(runs) >= _MAX_RUNS or by == 0:
            return None
        runs.append(str(value))
        value += by
    return name, runs, str(value)


def _integer(word: str, values: dict[str, str]) -> int:
    """The integer an arithmetic operand stands for: a number, or a variable the script
    sets to one (``N``, ``$N``); ValueError otherwise."""
    if re.fullmatch(r"[A-Za-z_]\w*", word):
        word = values.get(word, word)
    return int(shell_vars.expand(word, values))


def _loop_end(segments: list[list[str]], start: int) -> int | None:
    """The index of the ``done`` that closes the loop whose body starts at ``start``."""
    depth = 0
    for at in range(start, len(segments)):
        seg = segments[at]
        words = seg[1:] if seg[:1] and seg[0] in _BODY_KEYWORDS else seg
        if words[:1] and words[0] in ("for", "while", "until", "select"):
            depth += 1
        elif seg[:1] == ["done"]:
            if depth == 0:
                return at
            depth -= 1
    return None


def _building(seg: list[str]) -> bool:
    """Whether the loop body's command ``seg`` only builds values (``_BUILDING``)."""
    while seg[:1] and seg[0] in _BODY_KEYWORDS:
        seg = seg[1:]
    if not seg:
        return True
    if any("sglang" in word for word in seg):
        return False
    first = seg[0]
    return (first in _BUILDING or first == MERGED or first.startswith("((")
            or bool(shell_vars.ASSIGNMENT.match(first)) and all(
                shell_vars.ASSIGNMENT.match(w) for w in seg))


def _loop_words(words: list[str], values: dict[str, str]) -> list[str] | None:
    """The items a ``for NAME in WORDS`` loop goes over, when the text fixes them all:
    literal words, an array's items or keys, a variable's value split at blanks, a ``seq``
    of integers or a brace range; None when any is open (``"$@"``, ``$(ls ...)``)."""
    out: list[str] = []
    for word in _backquotes_joined(words):
        if "$" not in word and any(c in word for c in "*?["):
            return None  # a file-name pattern: what it matches is the machine's
        listed = shell_vars._loop_items(word, values)
        if listed is not None:
            out.extend(listed)
        elif (ranged := _numbers(word, values)) is not None:
            out.extend(ranged)
        elif "$" in word or "`" in word:
            value = shell_vars.expand(word, values)
            if shell_vars.open_reference(value) or "$" in value or "`" in value:
                return None
            out.extend(value.split())
        else:
            out.append(word)
        if len(out) > _MAX_RUNS:
            return None
    return out if all(_plain_item(item) for item in out) else None


def _backquotes_joined(words: list[str]) -> list[str]:
    """``words`` with a backquoted command the splitter cut at its blanks (```seq``, ``0``,
    ``3```) one word again."""
    out: list[str] = []
    open_quote = False
    for word in words:
        if open_quote:
            out[-1] += " " + word
        else:
            out.append(word)
        if word.count("`") % 2:
            open_quote = not open_quote
    return out


def _plain_item(item: str) -> bool:
    """Whether a loop item can be assigned back as a word (no expansion left in it)."""
    return "$" not in item and "`" not in item and "\x02" not in item


def _numbers(word: str, values: dict[str, str]) -> list[str] | None:
    """The integers ``$(seq ...)`` or ``{A..B}`` stands for, its bounds known; else None."""
    brace = _BRACE_RANGE.match(word)
    if brace is not None:
        first, last = int(brace.group(1)), int(brace.group(2))
        by = 1 if last >= first else -1
    else:
        seq = _SEQ.match(word)
        if seq is None:
            return None
        try:
            bounds = [int(shell_vars.expand(b, values)) for b in seq.group(1).split()]
        except ValueError:
            return None
        first, by, last = (1, 1, bounds[0]) if len(bounds) == 1 else \
            (bounds[0], 1, bounds[1]) if len(bounds) == 2 else tuple(bounds)
        if by == 0:
            return None
    count = (last - first) // by + 1
    if count > _MAX_RUNS:
        return None
    return [str(first + n * by) for n in range(max(count, 0))]


def _merged(before: dict[str, str], outcomes: list[dict[str, str]],
            guard: bool = False, test: str = "") -> dict[str, str]:
    """The values after a block whose branch is not decided here, from those each branch
    read leaves (``outcomes``): a name they all leave with one value has it; one they leave
    with different values, or set in some and leave unset in others, is open. A block with
    one branch read (``if [ -z "$MODEL" ]; then MODEL=...; fi``, an ``else`` the script's
    values rule out) leaves that branch's values, as its lines read in order would. When
    its test picks a mode rather than asks whether a value is given (``guard``), each name
    the script set before the block and the branch changes (``extra=""`` then ``if [ "$1"
    = ngram ]; then extra="--speculative-algorithm NGRAM"; fi``) is recorded under
    ``KEPT`` with ``test``: the shell skipping the branch keeps the old value, and a launch
    that reads the name says which value it was planned with."""
    if len(outcomes) < 2:  # one branch read: its values, as the script's own lines
        if not outcomes or guard:
            return outcomes[0] if outcomes else before
        out = dict(outcomes[0])
        kept = [name.partition("[")[0] for name, value in outcomes[0].items()
                if (old := before.get(name)) is not None and old != value
                and _NAME.match(name) and not shell_vars.open_reference(old)]
        if kept:
            entries = [e for e in out.get(KEPT, "").split(_ENTRY) if e]
            entries += [f"{name}{_PART}{test}" for name in dict.fromkeys(kept)]
            out[KEPT] = _ENTRY.join(entries)
        return out
    out = dict(before)
    for name in {n for state in outcomes for n in state} | before.keys():
        found = {state.get(name) for state in outcomes}
        if found == {None}:
            out.pop(name, None)
        else:
            out[name] = found.pop() if len(found) == 1 else _OPEN
    return out


#: The state of a name whose value the script leaves undecided.
_OPEN = "\x00open"
#: Where ``values`` lists the names a one-branch block left with its branch's value though
#: its test decides nothing here, each with that test (``kept_branches``); no variable has
#: this name.
KEPT = " branch-kept"
_ENTRY = "\x1d"
_PART = "\x1f"
_NAME = re.compile(r"^[A-Za-z_]\w*(?:\[@\])?$")


def kept_branches(values: dict[str, str]) -> list[tuple[str, str]]:
    """(name, test) for each name a one-branch ``if`` whose test decides nothing here left
    with its branch's value (``_merged``), in the order the script set them."""
    return [tuple(e.split(_PART, 1)) for e in values.get(KEPT, "").split(_ENTRY)  # type: ignore[misc]
            if _PART in e]


def _put(values: dict[str, str], wanted: dict[str, str], exported: set[str]) -> list[str]:
    """A ``MERGED`` segment that makes ``values`` ``wanted`` (for the names that differ),
    applied to ``values`` too."""
    words = [MERGED]
    for name in sorted(values.keys() | wanted.keys()):
        if values.get(name) == wanted.get(name):
            continue
        mark = "+" if name in exported else ""
        state = wanted.get(name)
        words.append(f"{name}{mark}{_SEP}" + (
            "-" if state is None else "?" if state == _OPEN else "=" + state))
    if len(words) == 1:
        return []
    merged_values(words, values)
    return words


def merged_values(segment: list[str], values: dict[str, str]) -> list[str] | None:
    """Apply a ``MERGED`` segment to ``values``: each name it writes gets its value, is
    unset, or is open (``${NAME}``, the reference as the caller's variable would leave it;
    an array, ``${NAME[@]}``, one open item). The exported names it sets come back; None
    when ``segment`` is no ``MERGED`` one."""
    if segment[:1] != [MERGED]:
        return None
    names: list[str] = []
    for word in segment[1:]:
        name, _, state = word.partition(_SEP)
        exported = name.endswith("+")
        name = name.removesuffix("+")
        if state == "-":
            values.pop(name, None)
            continue
        if state == "?" and "[" in name:  # an array's items or keys: all of it is open
            shell_arrays.opened(name.partition("[")[0], values)
        elif state == "?":
            values[name] = "${" + name + "}"
        else:
            values[name] = state[1:]
        if exported and not name.endswith("]"):
            names.append(name)
    return names


#: A reference to one of the script's arguments: ``$2``, ``${1:-status}``, ``$OPTARG``.
_ARGUMENT = re.compile(r"\$(?:\{(?:([1-9]\d*)|OPTARG)(?![\w\[])|([1-9])|OPTARG(?!\w))")
#: A loop test over the script's arguments: ``[[ $# -gt 0 ]]``, ``getopts``.
_ARGUMENTS_TEST = frozenset({"$#", "${#}", "getopts"})


def _callers_argument(word: str, values: dict[str, str]) -> bool:
    """Whether ``word`` reads one of the script's arguments (``${1:-status}``) that the
    paste does not give (no ``set --``): the caller picks it, so a test on it decides
    nothing, whatever default the reference falls back to."""
    if "$" not in word:
        return False
    return any((found.group(1) or found.group(2)) not in values
               for found in _ARGUMENT.finditer(word) if found.group(1) or found.group(2))


def _over_arguments(seg: list[str]) -> bool:
    """Whether the ``while`` loop ``seg`` walks the script's arguments (an option loop)."""
    return any(w in _ARGUMENTS_TEST for w in seg[1:])


def _note_filled(blocks: list[_Block], seg: list[str]) -> None:
    """Record in the option loop around ``seg`` (a command it skips) the names ``seg`` sets
    from the script's arguments (``MODEL_PATH="$2"``, ``TP=$OPTARG``)."""
    loop = next((b for b in reversed(blocks) if b.filled is not None), None)
    if loop is None or not seg or not all(shell_vars.ASSIGNMENT.match(w) for w in seg):
        return
    for word in seg:
        name, _, value = word.partition("=")
        if _ARGUMENT.search(value):
            loop.filled.add(name.removesuffix("+"))  # type: ignore[union-attr]


def _filled_open(values: dict[str, str], filled: set[str], exported: set[str]) -> list[str]:
    """A ``MERGED`` segment recording (under ``FILLED``) each of ``filled`` the script set
    to nothing before its option loop (``MODEL_PATH=""`` then ``-m) MODEL_PATH="$2"``): the
    script is meant to be called with that option, so where a flag takes the value it is
    the caller's, as an unset variable's is. Its value stays empty for the script's own
    tests (``if [ -n "$EAGLE" ]`` on an optional one), as the shell reads them run bare; a
    name with a default of its own (``TP=8``) keeps it."""
    names = set(values.get(FILLED, "").split())
    names.update(name for name in filled if values.get(name) == "")
    if not names:
        return []
    return _put(values, {**values, FILLED: " ".join(sorted(names))}, exported)


#: Where ``values`` lists (space-separated) the names an option loop fills from the script's
#: arguments and the script otherwise leaves empty; no variable has this name.
FILLED = " argument-filled"


def _case_branch(block: _Block, seg: list[str],
                 switch: Callable[[_Block, bool | None], None]) -> list[str]:
    """``seg`` inside a ``case`` block: a pattern (``fast)``, ``a|b)``, ``*)``) starts a
    branch (``switch`` goes on to it), which runs when it is the first to match the block's
    word (any may, when the word is the caller's); ``;;`` ends it. The command words the
    branch runs come back."""
    if not block.in_branch and seg and seg[0].endswith(")"):
        patterns = seg[0].lstrip("(")[:-1].split("|")
        decided = None if block.unsure else any(
            fnmatch.fnmatchcase(block.subject or "", p.strip("\"'")) for p in patterns)
        switch(block, decided)
        block.in_branch = True
        seg = seg[1:]
    if seg[-1:] == [";"]:  # ``;;`` (the splitter left one ``;``)
        block.in_branch = False
        seg = seg[:-1]
    elif seg and seg[-1].endswith(";"):  # ``TP=2;;``: the splitter took one, one is left
        block.in_branch = False
        seg = [*seg[:-1], seg[-1][:-1]] if seg[-1] != ";" else seg[:-1]
    return seg


def _presence_test(words: list[str]) -> bool:
    """Whether the test ``words`` only asks if one value is given (``[ -z "$MODEL" ]``,
    ``[[ -n $QUANT ]]``): its branch fills in or uses that value, the script's default."""
    words = words[1:] if words[:1] == ["!"] else words
    if words[:1] == ["test"]:
        words = ["[", *words[1:], "]"]
    return len(words) == 4 and words[0] in ("[", "[[") and words[1] in ("-n", "-z")


def _opened(running: bool, decided: bool | None, before: dict[str, str] | None) -> _Block:
    return _Block(outer=running, live=running and decided is not False,
                  taken=decided is True, unsure=decided is None, before=before,
                  outcomes=None if before is None else [])


def _next_branch(block: _Block, decided: bool | None) -> None:
    """Move ``block`` on to its next branch (``elif`` or ``else``), whose test gave
    ``decided`` (``else``: true, unless an earlier test decided nothing)."""
    if block.taken:
        block.live = False
        return
    block.live = block.outer and decided is not False
    block.taken = decided is True and not block.unsure
    block.unsure = block.unsure or decided is None


#: ``${VAR:-}`` / ``${VAR-}``: a variable read as nothing when unset (``set -u`` scripts
#: test a caller's variable so); it does not set VAR
_PRESENCE = re.compile(r"^\$\{([A-Za-z_]\w*):?-\}$")


def _decided(words: list[str], values: dict[str, str]) -> bool | None:
    """The outcome of the test ``words`` (after ``if``), or None when it is not a test of
    values the script fixes."""
    negate = words[:1] == ["!"]
    words = words[1:] if negate else words
    glob = False  # ``[[ $M == *8b* ]]``: the right side is a pattern
    if words[:1] == ["["] and words[-1:] == ["]"]:
        words = words[1:-1]
    elif words[:1] == ["[["] and words[-1:] == ["]]"]:
        words = words[1:-1]
        glob = True
    elif words[:1] == ["test"]:
        words = words[1:]
    else:
        return None
    if any((found := _PRESENCE.match(w)) and found.group(1) not in values for w in words):
        return None  # ``[ -n "${VAR:-}" ]``: whether the caller set VAR, which the text is not
    if any(_callers_argument(w, values) for w in words):
        return None  # ``[ "${1:-start}" = start ]``: what the caller passes, not the default
    count = str(len(shell_vars.positional(values)))  # $#: none, run as pasted
    operands = [count if w in ("$#", "${#}") else shell_vars.expand(w, values) for w in words]
    if any(shell_vars.open_reference(w) or w.startswith("$") for w in operands):
        return None
    outcome = _compared(operands, glob)
    return None if outcome is None else outcome != negate


def _compared(operands: list[str], glob: bool = False) -> bool | None:
    """``glob``: inside ``[[ ]]``, where the right side of ``==``/``!=`` is a pattern (its
    quotes, which make a part literal, are gone by now: a ``*``, ``?`` or ``[`` is read as
    the pattern's, as scripts that size a launch from a model's name mean it)."""
    if len(operands) == 2 and operands[0] in ("-n", "-z"):
        return (operands[1] != "") == (operands[0] == "-n")
    if len(operands) != 3:
        return None
    left, op, right = operands
    if op in ("=", "==", "!=") and glob and any(c in right for c in "*?["):
        return fnmatch.fnmatchcase(left, right) == (op != "!=")
    if op in ("=", "=="):
        return left == right
    if op == "!=":
        return left != right
    if op in _INTEGER_TESTS:
        try:
            return bool(_INTEGER_TESTS[op](int(left), int(right)))
        except ValueError:
            return None
    return None
