"""Where a pasted text's quotes close is found in linear time, and as ``shlex`` finds it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from launchplan.input import pasted


def _slow_logical_lines(text: str) -> list[str]:
    """The reading the scan replaces: each run of lines joined and split until it closes."""
    out: list[str] = []
    lines = text.splitlines()
    start = 0
    while start < len(lines):
        end, pending = pasted._joined_until_balanced(lines, start)
        if pending is not None:
            out.append(pending)
            start = end + 1  # type: ignore[operator]
        elif pasted._LAUNCHER_WORD.search(lines[start]) or pasted._FLAG_LINE.match(lines[start]):
            out.append("\n".join(lines[start:]))
            start = len(lines)
        else:
            out.append("")
            start += 1
    return out


PIECES = st.sampled_from(["'", '"', "\\", "#", "$'", " ", "a", "--tp 2", "x#y", "\\'",
                          '\\"', "python -m sglang.launch_server", "we'll", "$(", ")", "`"])
LINES = st.lists(st.lists(PIECES, max_size=8).map("".join), max_size=12)


@settings(max_examples=400, deadline=None)
@given(LINES)
def test_the_scan_joins_lines_as_shlex_does(lines):
    text = "\n".join(lines)
    assert pasted._logical_lines(text) == _slow_logical_lines(text)


def test_a_page_of_apostrophes_is_scanned_once_per_line(monkeypatch):
    # an apostrophe no later line closes made each of them rescan the rest of the page
    calls = []
    real = pasted._quote_exit

    def counted(line, quote, starts_word):
        calls.append(line)
        return real(line, quote, starts_word)

    monkeypatch.setattr(pasted, "_quote_exit", counted)
    prose = [f"We'll need line {i}'s value" if i % 3 == 0 else f"plain line {i}"
             for i in range(600)]
    text = "\n".join([*prose, "python -m sglang.launch_server --model-path m --tp 2"])
    lines = pasted._logical_lines(text)
    assert lines[-1].endswith("--tp 2") and len(calls) <= 8 * len(prose) + 8


def test_a_text_of_several_launches_is_taken_apart_once(monkeypatch):
    # listing a page's launches read the whole page again for each one
    calls = []
    real = pasted._segments

    def counted(words):
        calls.append(len(words))
        return real(words)

    monkeypatch.setattr(pasted, "_segments", counted)
    text = "\n".join(f"python -m sglang.launch_server --model-path m{n} --port {30000 + n}"
                     for n in range(6)) + "\n"
    summaries = pasted.launch_summaries([text], pasted.launch_count([text]))
    assert len(summaries) == 6 and len(calls) <= 2
