"""A web page's Markdown around a pasted launch: code fences and blockquote markers.

People copy a launch out of a rendered page or its Markdown source, and the markup comes
along: the fence lines of a code block (```` ```bash ````, ```` ```yaml ````, ``~~~``), and
the ``> `` of a quoted reply or a ``> [!NOTE]`` box in front of every line. Neither is part
of the command, manifest or script: a fence line would otherwise be a word of the launch
(after a last line that kept its ``\\``) or a Python syntax error, and ``>`` a shell
redirection. This module takes that markup off, and nothing else.
"""

from __future__ import annotations

import re

#: A Markdown code-fence line: three or more backticks or tildes, an optional info string.
_FENCE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[\w+.#-]*(?:[ \t]+[^`\n]*)?[ \t]*$")
#: A blockquote marker (``>``, ``> >``) at the start of a line, and the space after it.
_QUOTE = re.compile(r"^[ \t]*>(?:[ \t]?>)*[ \t]?")


def unmarked(text: str) -> str:
    """``text`` without Markdown fence lines and, when every line that holds anything is
    quoted, without the blockquote markers. Text with neither comes back as it is."""
    if "```" not in text and "~~~" not in text and ">" not in text:
        return text
    lines = text.split("\n")
    filled = [line for line in lines if line.strip()]
    if filled and all(_QUOTE.match(line) for line in filled):
        lines = [_QUOTE.sub("", line, count=1) for line in lines]
    if "```" in text or "~~~" in text:
        lines = ["" if _FENCE.match(line) else line for line in lines]
    return "\n".join(lines)
