"""Typographic dashes and quotes that web pages and word processors put into commands.

A blog or a chat client turns ``--tp`` into ``—tp`` (an em dash) or ``–-tp`` and ``"x"``
into ``“x”``. The shell passes those characters through unchanged, so SGLang's parser
refuses the dash as a positional argument and keeps the curly quotes in the value; the
error says which character it is and what to type instead. A path or model name wholly
inside a pair of them (``--model-path “/models/x”``) is plainly that path: it is read so,
with a note, since no real folder or Hub id starts and ends with such a quote.
"""

from __future__ import annotations

_DASHES = "\u2012\u2013\u2014\u2015\u2212"  # figure, en, em, horizontal bar, minus sign
_QUOTES = "\u201c\u201d\u201e\u2018\u2019\u201a\u00ab\u00bb"
#: What may open and close a quoted value: English curly pairs (and the closing mark twice,
#: which some editors produce), German low-high pairs, guillemets either way.
_OPENERS = "\u201c\u201d\u201e\u2018\u2019\u201a\u00ab\u00bb"
_CLOSERS = "\u201c\u201d\u2018\u2019\u00ab\u00bb"


def typographic_hint(text: str) -> str | None:
    """One clause for an error about ``text``, when it holds a typographic dash at its start
    or typographic quotes; None otherwise."""
    if text and text[0] in _DASHES:
        plain = "--" + text.lstrip(_DASHES + "-")
        return (f"it starts with a typographic dash (U+{ord(text[0]):04X}) a web page or "
                f"editor put in place of '--': write {plain}")
    if any(ch in _QUOTES for ch in text):
        return ("it holds typographic quotes, which the shell keeps as part of the value: "
                "use plain ' or \" quotes")
    return None


def unquoted(text: str) -> str | None:
    """``text`` without the typographic quotes it is wholly wrapped in, or None when it is
    not so wrapped (or nothing is inside them)."""
    if len(text) > 2 and text[0] in _OPENERS and text[-1] in _CLOSERS:
        inner = text[1:-1]
        if inner.strip() and not any(ch in _QUOTES for ch in inner):
            return inner
    return None
