"""Typographic dashes, quotes and spaces that web pages and word processors put into commands.

A blog or a chat client turns ``--tp`` into ``—tp`` (an em dash) or ``–-tp`` and ``"x"``
into ``“x”``, and a space into a no-break one. The shell passes those characters through
unchanged, so SGLang's parser refuses the dash as a positional argument, keeps the curly
quotes in the value and a flag and its value joined by a no-break space as one word; the
error says which character it is and what to type instead. A path or model name wholly
inside a pair of them (``--model-path “/models/x”``) is plainly that path: it is read so,
with a note, since no real folder or Hub id starts and ends with such a quote.
"""

from __future__ import annotations

import re

_DASHES = "\u2012\u2013\u2014\u2015\u2212"  # figure, en, em, horizontal bar, minus sign
_QUOTES = "\u201c\u201d\u201e\u2018\u2019\u201a\u00ab\u00bb"
#: What may open and close a quoted value: English curly pairs (and the closing mark twice,
#: which some editors produce), German low-high pairs, guillemets either way.
_OPENERS = "\u201c\u201d\u201e\u2018\u2019\u201a\u00ab\u00bb"
_CLOSERS = "\u201c\u201d\u2018\u2019\u00ab\u00bb"
#: Spaces a web page or chat client puts where a plain one was typed (no-break, thin,
#: ideographic, zero-width): the shell does not split at them, so a flag and its value
#: become one word.
_SPACES = {"\u00a0": "no-break space", "\u2002": "en space", "\u2003": "em space",
           "\u2007": "figure space", "\u2008": "punctuation space", "\u2009": "thin space",
           "\u200a": "hair space", "\u200b": "zero-width space", "\u202f": "narrow no-break "
           "space", "\u205f": "math space", "\u3000": "ideographic space",
           "\ufeff": "zero-width no-break space"}
#: Full-width forms of the shell's operators that a Chinese or Japanese input method types
#: (``export X=1；python ...``, ``cd /srv ＆＆ python ...``, ``... ＼`` at a line's end): the
#: shell reads them as letters of a word, so they end, chain or continue nothing.
_OPERATORS = {"\uff1b": ("full-width semicolon", ";"), "\uff06": ("full-width ampersand", "&"),
              "\uff5c": ("full-width vertical bar", "|"), "\uff1e": ("full-width '>'", ">"),
              "\uff1c": ("full-width '<'", "<"), "\uff3c": ("full-width backslash", "\\")}


#: A template engine's expression written as one word (``{{model}}``, ``/models/{{name}}``,
#: ``{{.MODEL}}``): Mustache's, Jinja's, Go's; not a GitHub Actions ``${{ ... }}``.
_TEMPLATE_WORD = re.compile(r"(?<!\$)\{\{[^{}\s]+\}\}")


def typographic_hint(text: str) -> str | None:
    """One clause for an error about ``text``, when it holds a typographic dash at its start
    or typographic quotes, or is written as a template's placeholder (``{{model}}``: the
    way a value is written, as these are, which error paths that look no further would
    otherwise take for an open shell variable); None otherwise."""
    if "{{" in text and _TEMPLATE_WORD.search(text):
        from launchplan.input.shell_vars import TEMPLATE_HINT

        return TEMPLATE_HINT
    if text and text[0] in _DASHES:
        plain = "--" + text.lstrip(_DASHES + "-")
        return (f"it starts with a typographic dash (U+{ord(text[0]):04X}) a web page or "
                f"editor put in place of '--': write {plain}")
    spaced = odd_space_hint(text)
    if spaced is not None:
        return spaced
    operator = full_width_operator_hint(text)
    if operator is not None:
        return operator
    if any(ch in _QUOTES for ch in text):
        return ("it holds typographic quotes, which the shell keeps as part of the value: "
                "use plain ' or \" quotes")
    return None


def odd_space_hint(text: str, subject: str = "it") -> str | None:
    """One clause for an error about ``text`` (called ``subject``) when it holds a space
    other than a plain one (or a zero-width one); None otherwise."""
    odd = next((ch for ch in text if ch in _SPACES), None)
    if odd is None:
        return None
    name = _SPACES[odd]
    article = "an" if name[0] in "aeiou" else "a"
    return (f"{subject} holds {article} {name} (U+{ord(odd):04X}) from a web page; the shell "
            "does not split at it, so it stays inside the word: retype it as a plain space")


def has_full_width_operator(text: str) -> bool:
    """Whether ``text`` holds a full-width form of a shell operator (see ``_OPERATORS``)."""
    return any(ch in _OPERATORS for ch in text)


def full_width_operator_hint(text: str, subject: str = "it") -> str | None:
    """One clause for an error about ``text`` (called ``subject``) when it holds a
    full-width form of a shell operator; None otherwise. The shell keeps such a character
    inside the word, so the command does not end, chain or continue where the page meant."""
    odd = next((ch for ch in text if ch in _OPERATORS), None)
    if odd is None:
        return None
    name, plain = _OPERATORS[odd]
    return (f"{subject} holds a {name} (U+{ord(odd):04X}) from an input method; the shell "
            f"does not take it for '{plain}', so it stays inside the word: retype it as a "
            f"plain '{plain}'")


def unquoted(text: str) -> str | None:
    """``text`` without the typographic quotes it is wholly wrapped in, or None when it is
    not so wrapped (or nothing is inside them)."""
    if len(text) > 2 and text[0] in _OPENERS and text[-1] in _CLOSERS:
        inner = text[1:-1]
        if inner.strip() and not any(ch in _QUOTES for ch in inner):
            return inner
    return None
