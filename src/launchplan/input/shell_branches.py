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
            out.append(_put(values, _merged(block.before, block.outcomes),
                            exported))

    for seg in segments:
        head = seg[0] if seg else ""
        running = not blocks or blocks[-1].live
        if blocks and blocks[-1].subject is not None and head != "esac":
            seg = _case_branch(blocks[-1], seg, switch)
            head = ""
        elif head == "case" and len(seg) >= 3 and seg[2] == "in":
            subject = shell_vars.expand(seg[1], values)
            known = not (shell_vars.open_reference(subject) or subject.startswith("$"))
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
            if head in ("for", "select"):
                shell_vars.declared(seg, values)  # the loop variable's first word
            out.append(seg if head in ("for", "select") else [])
            continue
        elif head == "done" and blocks:
            blocks.pop()
            seg = seg[1:]
        elif head in _BODY_KEYWORDS:
            seg = seg[1:]
        if head in ("if", "elif") or not (not blocks or blocks[-1].live):
            out.append(seg if head in ("if", "elif") else [])
            continue
        if seg[:2] == ["set", "--"]:  # the script's arguments, as $1, $2 ... and $#
            values.update((str(n), w) for n, w in enumerate(seg[2:], 1))
        exported.update(shell_vars.declared(seg, values))
        out.append(seg)
    return out


def _merged(before: dict[str, str], outcomes: list[dict[str, str]]) -> dict[str, str]:
    """The values after a block whose branch is not decided here, from those each branch
    read leaves (``outcomes``): a name they all leave with one value has it; one they leave
    with different values, or set in some and leave unset in others, is open. A block with
    one branch read (``if [ -z "$MODEL" ]; then MODEL=...; fi``, an ``else`` the script's
    values rule out) leaves that branch's values, as its lines read in order would."""
    if len(outcomes) < 2:  # one branch read: its values, as the script's own lines
        return outcomes[0] if outcomes else before
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
