"""Errors as values: each carries what the edge (the commands) needs to print one line."""

from __future__ import annotations

from typing import Any


class LaunchplanError(Exception):
    """Base of everything launchplan raises on purpose."""

    exit_code = 1


class InputError(LaunchplanError):
    """Bad input: names the flag, file or field, what was expected and what was given.

    Exit code 2. ``subject`` is e.g. ``--page-size``, ``config.json field 'num_attention_heads'``
    or ``--config``; ``hint`` is an optional suggestion (a did-you-mean).
    """

    exit_code = 2

    def __init__(self, subject: str, expected: str, got: Any = None, hint: str | None = None,
                 *, message: str | None = None) -> None:
        self.subject = subject
        self.expected = expected
        self.got = got
        self.hint = hint
        if message is None:
            message = f"{subject}: expected {expected}"
            if got is not None:
                message += f", got {_show(got)}"
            if hint:
                message += f" ({hint})"
        self.message = message
        super().__init__(message)


class Refusal(LaunchplanError):
    """SGLang (or --strict) refuses the configuration: exit code 3.

    ``source`` is the rule that refused; ``result`` the partial result decided before it.
    """

    exit_code = 3

    def __init__(self, source: str, message: str, result: Any = None,
                 requirement: str | None = None) -> None:
        self.source = source
        self.message = message
        self.result = result
        self.requirement = requirement
        super().__init__(f"{source}: {message}")


#: Characters of a given value an error line shows (a pasted megabyte stays one short line).
SHOWN = 300


def quoted(text: str) -> str:
    """``text`` in quotes as it was written: ``repr`` doubles each backslash and escapes a
    quote, so a shell word such as ``tr``'s newline argument would not read as typed. A
    text with a control character is shown as ``repr`` shows it, so the line stays one."""
    if not text.isprintable():
        return repr(text)
    return f'"{text}"' if "'" in text and '"' not in text else f"'{text}'"


def _show(value: Any) -> str:
    if isinstance(value, str) and not value:
        return "an empty string"
    try:
        shown = quoted(value) if type(value) is str else repr(value)  # a subclass shows itself
    except RecursionError:  # a list that holds itself deeply enough
        shown = f"a {type(value).__name__} too deeply nested to show"
    if len(shown) > SHOWN:
        return f"{shown[:SHOWN - 60]}... ({len(shown):,} characters)"
    return shown
