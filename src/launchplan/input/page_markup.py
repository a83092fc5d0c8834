"""A web page's Markdown around a pasted launch: code fences and blockquote markers.

People copy a launch out of a rendered page or its Markdown source, and the markup comes
along: the fence lines of a code block (```` ```bash ````, ```` ```yaml ````, ``~~~``), and
the ``> `` of a quoted reply or a ``> [!NOTE]`` box in front of every line. Neither is part
of the command, manifest or script: a fence line would otherwise be a word of the launch
(after a last line that kept its ``\\``) or a Python syntax error, and ``>`` a shell
redirection. An address a rich-text editor turned into a link to itself
(``--host [0.0.0.0](http://0.0.0.0/)``) is the address again. This module takes that markup
off, and nothing else.
"""

from __future__ import annotations

import re

#: A Markdown code-fence line: three or more backticks or tildes, an optional info string.
_FENCE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[\w+.#-]*(?:[ \t]+[^`\n]*)?[ \t]*$")
#: A blockquote marker (``>``, ``> >``) at the start of a line, and the space after it.
_QUOTE = re.compile(r"^[ \t]*>(?:[ \t]?>)*[ \t]?")


#: A link an editor made of an address in the command (``[0.0.0.0](http://0.0.0.0/)``):
#: its text and its target are the same address.
_AUTOLINK = re.compile(r"\[([^\]\s]+)\]\((?:[a-z]+://)?([^)\s]+?)/?\)")


def _address(link: re.Match[str]) -> str:
    """The address a link to itself stands for; any other link as it is."""
    text = re.sub(r"^[a-z]+://", "", link.group(1)).rstrip("/")
    return link.group(1) if text == link.group(2) else link.group(0)


def unmarked(text: str) -> str:
    """``text`` without Markdown fence lines and, when every line that holds anything is
    quoted, without the blockquote markers; an address an editor turned into a link to
    itself is the address again. Text with none of these comes back as it is."""
    if "](" in text:
        text = _AUTOLINK.sub(_address, text)
    if "```" not in text and "~~~" not in text and ">" not in text:
        return text
    lines = text.split("\n")
    filled = [line for line in lines if line.strip()]
    if filled and all(_QUOTE.match(line) for line in filled):
        lines = [_QUOTE.sub("", line, count=1) for line in lines]
    if "```" in text or "~~~" in text:
        lines = ["" if _FENCE.match(line) else line for line in lines]
    return "\n".join(lines)
