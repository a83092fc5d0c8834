"""A web page's Markdown around a pasted launch: code fences and blockquote markers.

People copy a launch out of a rendered page or its Markdown source, and the markup comes
along: the fence lines of a code block (```` ```bash ````, ```` ```yaml ````, ``~~~``), and
the ``> `` of a quoted reply or a ``> [!NOTE]`` box in front of every line. Neither is part
of the command, manifest or script: a fence line would otherwise be a word of the launch
(after a last line that kept its ``\\``) or a Python syntax error, and ``>`` a shell
redirection. An address a rich-text editor turned into a link to itself
(``--host [0.0.0.0](http://0.0.0.0/)``) is the address again. A launch a pull request's
review shows in a diff (a ```` ```diff ```` block, or a hunk under ``@@ -1,4 +1,5 @@``) is
read as the change leaves it: its ``+`` and context lines without their marker column, its
``-`` lines gone. A Jupyter notebook's file pasted raw (its JSON, ``"cells": [...]``) is
read as its code cells' source, one after the other, as the notebook runs them (its
Markdown cells are prose); so is a piece of one cell's ``source`` list (its lines as JSON
strings, ``"sglang serve \\\n",``), as a review diff of a notebook shows it. This
module takes that markup off, and nothing else.
"""

from __future__ import annotations

import json
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


#: The opening line of a Markdown block of a diff (```` ```diff ````, ```` ````diff ````).
_DIFF_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})diff[ \t]*$")
#: A unified diff's hunk header.
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
#: The file header lines of a raw unified diff, before its first hunk.
_DIFF_HEADER = re.compile(r"^(?:diff --git |index [0-9a-f]|--- |\+\+\+ )")


def _new_side(lines: list[str]) -> list[str]:
    """``lines`` with each diff in them (a ```` ```diff ```` block; a raw diff from its first
    hunk header on) replaced by the text the change leaves: added and context lines
    without their marker column, removed lines, hunk headers and fences dropped."""
    out: list[str] = []
    fence: str | None = None  # the diff block's fence, while inside one
    raw = False
    for line in lines:
        if fence is None and not raw:
            opening = _DIFF_FENCE.match(line)
            if opening is not None or _HUNK.match(line):
                fence = opening.group(1) if opening is not None else None
                raw = opening is None
                if raw:
                    while out and _DIFF_HEADER.match(out[-1]):
                        out.pop()
                    heading = line[_HUNK.match(line).end():].strip()  # type: ignore[union-attr]
                    out.append(heading if heading.endswith("\\") else "")
                else:
                    out.append("")
                continue
            out.append(line)
        elif fence is not None and line.strip() and set(line.strip()) == {fence[0]} \
                and len(line.strip()) >= len(fence):
            fence = None  # the block ends
            out.append("")
        elif (hunk := _HUNK.match(line)) is not None:
            # the heading after ``@@ ... @@`` is a line before the hunk; one that ends in a
            # continuation (``@@ -76,7 +76,17 @@ docker run --gpus all \\``) is the start of
            # the command the hunk's lines go on with
            heading = line[hunk.end():].strip()
            if heading.endswith("\\"):
                out.append(heading)
        elif line.startswith("\\ No newline"):
            continue
        elif line.startswith("-"):
            continue  # the old side's line: the change takes it out
        else:
            out.append(line[1:] if line.startswith(("+", " ")) else line)
    return out


def notebook_code(text: str) -> str | None:
    """The code cells' source of a Jupyter notebook given as its file's JSON (each cell's
    ``source``, a string or a list of lines, cells one after the other), or None when
    ``text`` is no notebook."""
    if not text.lstrip().startswith("{") or '"cell_type"' not in text:
        return None
    try:
        cells = json.loads(text).get("cells")
    except (ValueError, AttributeError):
        return None
    if not isinstance(cells, list):
        return None
    code: list[str] = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            code.append("".join(source) if isinstance(source, list) else str(source))
    return "\n\n".join(code)


#: A line that holds nothing but the bars of a table's cell borders (``|``, ``||``).
_BARS_ONLY = re.compile(r"^[ \t]*\|{1,3}[ \t]*$")


#: A JSON string's escaped line break after an escaped backslash (a continued line:
#: ``\\\r\n``, ``\\\n``), or a Windows line end written as escapes (``\r\n``).
_ESCAPED_BREAK = re.compile(r"\\\\\\(?:r\\)?n|\\r\\n")


def json_escaped(text: str) -> str | None:
    """A one-line text that is a JSON string's content (a pull request's or issue's body
    as ``gh api`` or a crawler dumps it, its line ends and continuation backslashes written
    as escapes) decoded to the text it holds; None for another. Read as shell, its escapes
    were words of their own and glued to values (``--tp 4`` read as ``4rn``)."""
    if "\n" in text.strip() or _ESCAPED_BREAK.search(text) is None:
        return None
    try:
        return json.loads(f'"{text.strip()}"')
    except ValueError:  # a stray quote or escape: the common escapes only
        return re.sub(r"\\(r\\n|[nrt\\\"/])", lambda m: {
            "r\\n": "\n", "n": "\n", "r": "", "t": "\t"}.get(m.group(1), m.group(1)), text)


def _without_table_bars(text: str) -> str:
    """``text`` without the lines a scraped file view's table leaves between the file's
    lines: a code host's rendered page (a Gitea or Forgejo mirror's view of a Markdown
    file) copies each line of the file with a ``|`` and a ``||`` line of its table after
    it. No shell, Python or YAML line is a bar alone (``|`` and ``||`` start no command,
    and a continuation backslash before one would pipe the launch into the next line's
    flags), so they are taken off when the text has two or more of them; a text with
    none, or with one (a table's lone border among prose), comes back as it is."""
    lines = text.split("\n")
    bars = [at for at, line in enumerate(lines) if _BARS_ONLY.match(line)]
    if len(bars) < 2:
        return text
    dropped = set(bars)
    return "\n".join(line for at, line in enumerate(lines) if at not in dropped)


#: A file's line as a scraped code view's table row shows it: ``| <line> | |``, the empty
#: cell after it the view's blame or annotation column.
_CODE_ROW = re.compile(r"^\|[ \t]?(.*?)[ \t]*\|[ \t]*\|[ \t]*$")
#: A Markdown table's header rule (``|---|---|``): such a table is the page's own.
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}")


def _table_rows_unwrapped(text: str) -> str:
    """``text`` with each line of a scraped file view rendered as a two-column table (a
    Hugging Face blob page as text: every line ``| <line> | |``) as the line it shows, when
    two or more lines are such rows and no line is a Markdown table's header rule. Read
    as shell, the cell borders were words of their own (``' |'`` as a stray argument)."""
    lines = text.split("\n")
    rows = [_CODE_ROW.match(line) for line in lines]
    if sum(row is not None for row in rows) < 2 or any(_TABLE_RULE.match(line)
                                                       for line in lines):
        return text
    return "\n".join(row.group(1) if row is not None else line
                     for row, line in zip(rows, lines))


#: An HTML line break a Markdown table cell holds a long command with (``<br>``, ``<br/>``),
#: with the continuation backslash before it, if any.
_BREAK = re.compile(r"(\\[ \t]*)?<br[ \t]*/?>[ \t]*(-?)", re.IGNORECASE)


def _break(found: re.Match[str]) -> str:
    """A line break the page shows: a continued line (a backslash before it) and a line that
    goes on with a flag (``<br>--tp 2``) are the same command, any other line a new one."""
    if found.group(1):
        return "\\\n" + found.group(2)
    return " " + found.group(2) if found.group(2) else "\n"


def html_breaks(text: str) -> str:
    """``text`` with the ``<br>`` line breaks of a table cell (a README's table of launch
    commands, one cell a command) as the lines they show."""
    if "<" not in text or not _BREAK.search(text):
        return text
    return _BREAK.sub(_break, text)


#: An HTML page's preformatted block (``<pre>``, whatever its attributes), and any tag.
_PRE = re.compile(r"<pre\b[^>]*>(.*?)</pre\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^<>]*>")


def html_code_blocks(text: str) -> str | None:
    """An HTML page's (its source, a copied element) preformatted blocks as the Markdown
    code blocks they show, when one of them starts a launch: each block's text with its
    tags taken off (a highlighter wraps every token in a ``<span>``: Sphinx's Pygments,
    VitePress's Shiki) and its entities decoded (``&quot;``, ``&amp;``); the page's prose
    around them is no command. None for a text with no such block."""
    if "<pre" not in text and "<PRE" not in text:
        return None
    import html

    blocks = [html.unescape(_TAG.sub("", found.group(1))).strip("\n")
              for found in _PRE.finditer(text)]
    if not any(_LAUNCHER.search(block) for block in blocks):
        return None
    return "\n\n".join(f"```\n{block}\n```" for block in blocks if block.strip())


def unmarked(text: str) -> str:
    """``text`` without Markdown fence lines and, when every line that holds anything is
    quoted, without the blockquote markers; an address an editor turned into a link to
    itself is the address again; a notebook's JSON is its code; a scraped file view's
    table bars between its lines are gone. Text with none of these comes back as it is."""
    code = notebook_code(text)
    if code is not None:
        return code
    if "|" in text:
        text = _table_rows_unwrapped(_without_table_bars(text))
    if "](" in text:
        text = _AUTOLINK.sub(_address, text)
    if "```" not in text and "~~~" not in text and ">" not in text and "@@ -" not in text:
        return (_cell_source(text.split("\n")) if '\\n"' in text else None) or text
    lines = text.split("\n")
    filled = [line for line in lines if line.strip()]
    if filled and all(_QUOTE.match(line) for line in filled):
        # markers first: a quoted reply's code block is fenced inside the quote (``> ```"``),
        # and the quote's prose around it is no more a command than unquoted prose
        lines = [_QUOTE.sub("", line, count=1) for line in lines]
    lines = _fenced_only(_reopened(lines))
    manifest = _lone_manifest_block(lines)
    if manifest is not None:
        return manifest
    if ": " in text and not _LAUNCHER.search(text):
        config = _lone_config_block(lines)
        if config is not None:
            return config
    if "CMD" in text or "ENTRYPOINT" in text:
        dockerfile = _lone_dockerfile_block(lines)
        if dockerfile is not None:
            return dockerfile
    if any(_DIFF_FENCE.match(line) or _HUNK.match(line) for line in lines):
        lines = _new_side(lines)
    if "```" in text or "~~~" in text:
        shells = _own_shells(lines)
        lines = [shells.get(at, "") if _FENCE.match(line) else line
                 for at, line in enumerate(lines)]
    return _cell_source(lines) or "\n".join(lines)


def code_block_spans(text: str) -> list[tuple[int, int]]:
    """The (opening fence line, closing fence line) of each closed code block of ``text``,
    in order (its lines split at ``\n``)."""
    spans: list[tuple[int, int]] = []
    opened: int | None = None
    for at, line in enumerate(text.split("\n")):
        if _FENCE.match(line):
            if opened is None:
                opened = at
            else:
                spans.append((opened, at))
                opened = None
    return spans


def block_text(text: str, span: tuple[int, int]) -> str:
    """The dedented text of the code block ``span`` of ``text`` (``code_block_spans``)."""
    import textwrap

    return textwrap.dedent("\n".join(text.split("\n")[span[0] + 1:span[1]]))


def without_blocks(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the code blocks ``spans`` (and their fences) blanked, lines kept."""
    lines = text.split("\n")
    for start, end in spans:
        lines[start:end + 1] = [""] * (end + 1 - start)
    return "\n".join(lines)


#: The lines that stand for a code block's fences when the block is a shell of its own:
#: a launching block of a page with several (a prefill node's and a decode node's): what
#: it sets is not the environment of the launches after it.
SHELL_OPENS = "__launchplan_block__"
SHELL_ENDS = "__launchplan_block_end__"
#: A shell line that starts SGLang's server (a Python block's ``Engine(`` is no shell).
_SHELL_LAUNCH = re.compile(r"(?:^|[\s;&/])(?:python3?[\w.]*[ \t]+-m[ \t]+sglang\.launch_server"
                           r"|sglang[ \t]+serve)\b")
_PYTHON_CODE = re.compile(r"^\s*(?:import |from \S+ import |def |class )|\bEngine\s*\(", re.M)


def _own_shells(lines: list[str]) -> dict[int, str]:
    """{fence line: marker} for the code blocks of a page that each start their own launch,
    when it has several: the opening fence of each becomes ``SHELL_OPENS``, its closing one
    ``SHELL_ENDS``. A multi-node or prefill/decode page gives one block per node or role,
    typed into that machine's shell: a block's exports reach its own launch, not the next
    block's. (A block of exports alone, an ``export HF_TOKEN=...`` step, still sets the
    variables for the launches after it.) Empty for a page with one such block."""
    blocks = code_block_spans("\n".join(lines))
    launching = [(start, end) for start, end in blocks
                 if not _PYTHON_CODE.search(body := "\n".join(lines[start + 1:end]))
                 and _SHELL_LAUNCH.search(body)]
    if len(launching) < 2:
        return {}
    # (each after a blank line: a block's last line left continued, ``--tp 8 \\``, ends
    # at it as at the fence, and takes no marker into its words)
    return {at: f"\n{marker}" for start, end in launching
            for at, marker in ((start, SHELL_OPENS), (end, SHELL_ENDS))}


#: The launcher named in a line (a shell line, or a notebook cell's JSON string), or the
#: offline engine a Python block starts (``llm = sgl.Engine(...)``).
_LAUNCHER = re.compile(r"sglang(?:\.launch_server|_router\.launch_server|\s+serve\b)"
                       r"|\bEngine\s*\(")


def _fenced_only(lines: list[str]) -> list[str]:
    """``lines`` with the page's prose around its code blocks blanked, when a code block
    holds the launch: a review thread copied from a pull request comes with the file and
    line it comments on (``README.md:79``) before its ```` ```diff ```` block and the
    reviewer's words (``**merrymercy**: typo here?``) after it, and an issue with its
    sentences around the ```` ```bash ```` block; none of them is a command. A block left
    open runs to the end of the text."""
    inside = marked = False
    fenced = [False] * len(lines)
    code = [False] * len(lines)  # inside a block not marked as text, output or data
    fences: list[int] = []
    for at, line in enumerate(lines):
        if _FENCE.match(line):
            fences.append(at)
            inside = not inside
            marked = line.strip().lstrip("`~").split(" ")[0].lower() in _NOT_CODE
            continue
        fenced[at] = inside
        code[at] = inside and not marked
    if not fences:
        return lines
    if not any(f and _LAUNCHER.search(line) for f, line in zip(fenced, lines)):
        # no block launches, but a shell block lists the launch's flags a line each (a
        # page's "key settings": its variables, then ``--tp-size 4``...): the page's
        # text and output blocks around it (a script's path, figures) are no arguments
        # of that launch; of its prose only the captions over blocks stay (the paragraph
        # right before a fence): a sentence after the flags (``The MTP variant adds
        # `--speculative-num-steps 3` ...``) is the page's text, its inline code no flag
        if not any(c and _FLAG_LINE.match(line) for c, line in zip(code, lines)):
            return lines
        captions = _captions_over(lines, fenced, fences)
        out = ["" if (f and not c) or (not f and at not in fences and at not in captions
                                       and not _COMMAND_LINE.search(line)) else line
               for at, (f, c, line) in enumerate(zip(fenced, code, lines))]
        for at in fences:  # the caption over a text block ("长度关系：") goes with it
            if at + 1 < len(lines) and fenced[at + 1] and not code[at + 1]:
                before = at - 1
                while before >= 0 and not lines[before].strip():
                    before -= 1
                if before >= 0 and not fenced[before] and before not in fences \
                        and lines[before].rstrip().endswith((":", "\uff1a")):
                    out[before] = ""
        return out
    return [line if f or at in fences else "" for at, (f, line) in
            enumerate(zip(fenced, lines))]


#: A line that starts with a flag (``--tp-size 4``), as a list of a launch's flags has it.
_FLAG_LINE = re.compile(r"^[ \t]*--[A-Za-z]")
#: A line outside a page's blocks that is still part of a launch, not its prose: a flag line
#: (a list item's too), an assignment or ``export`` of one, or a launcher's command.
_COMMAND_LINE = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?(?:--[A-Za-z]|(?:export[ \t]+)?"
                           r"[A-Za-z_]\w*=)|" + _LAUNCHER.pattern)


def _captions_over(lines: list[str], fenced: list[bool], fences: list[int]) -> set[int]:
    """The lines of the paragraph right before each opening fence of ``lines`` (the
    caption a page writes over a block: ``Server args:``, ``**Launch args**``)."""
    captions: set[int] = set()
    for at in fences:
        if at + 1 >= len(lines) or not fenced[at + 1] and at + 1 not in fences:
            continue  # a closing fence (an empty block's opening one has its close next)
        before = at - 1
        while before >= 0 and lines[before].strip() and not fenced[before] \
                and before not in fences:
            captions.add(before)
            before -= 1
    return captions


#: A code block's info string that marks it as no command: a diagram, sample output, a
#: data file (a YAML or JSON config: its list items are values, not programs; a manifest
#: that launches is read as one before any naming).
_NOT_CODE = frozenset({"text", "txt", "plain", "plaintext", "mermaid", "output", "log",
                       "yaml", "yml", "json", "toml"})


def code_blocks(text: str) -> str | None:
    """``text`` with everything but its code blocks blanked (prose, fence lines, and the
    blocks marked as text or a diagram), or None when it has no other code block: what a
    page runs, for naming it when none of it starts a launch (its sentences are no
    commands)."""
    lines = text.replace("\r\n", "\n").split("\n")
    out = [""] * len(lines)
    inside = marked = found = False
    for at, line in enumerate(lines):
        if _FENCE.match(line):
            inside = not inside
            marked = line.strip().lstrip("`~").split(" ")[0].lower() in _NOT_CODE
        elif inside and not marked:
            out[at] = line
            found = found or bool(line.strip())
    return "\n".join(out) if found else None


def prose_around_blocks(text: str) -> bool:
    """Whether ``text`` is a page with code blocks, none of which starts a launch, and
    prose outside them: no part of it is a manifest's, so such a page is read for what its
    blocks run, not loaded whole as YAML."""
    inside = False
    prose = launching = False
    for line in text.replace("\r\n", "\n").split("\n"):
        if _FENCE.match(line):
            inside = not inside
        elif inside:
            launching = launching or bool(_LAUNCHER.search(line))
        elif line.strip():
            prose = True
    return prose and not launching


def _lone_manifest_block(lines: list[str]) -> str | None:
    """The code blocks of a page that start its launches, when each is a manifest or a
    JSON configuration (a ```` ```json ```` ``launch.json``, a ```` ```yaml ```` pod or a
    chart's ``containers:`` values): the page's other blocks (an install, a tunnel, a
    ``kubectl apply``, a Service, the output it shows) are other steps, not lines of those
    files. Several such blocks (a prefill and a decode LeaderWorkerSet, each in its own
    block) are read as the documents of one manifest. None otherwise (a script split over
    blocks, its variables set in one and the launch in another, is read whole)."""
    import textwrap

    from launchplan.input.manifest import looks_like_manifest

    blocks = _fenced_blocks(lines)
    launching = [b for b in blocks if any(_LAUNCHER.search(line) for line in b)]
    if len(blocks) < 2 or not launching:
        return None
    bodies = [textwrap.dedent("\n".join(block)).strip() for block in launching]
    for body in bodies:
        # a YAML document's first key (a whole object's ``apiVersion:``, or a chart values
        # file's ``containers:`` list), not a shell line (``NAME=value``, ``docker run``)
        # (after the comments a block starts with: ``# task.yaml``, a file's name)
        head = re.sub(r"^(?:[ \t]*#[^\n]*\n)+", "", body)
        if not head.startswith(("{", "[")) and not re.match(r"^[A-Za-z_][\w.-]*:(?:\s|$)",
                                                            head):
            return None
        if not looks_like_manifest(body):
            return None
    if len(bodies) > 1 and any(body.startswith(("{", "[")) for body in bodies):
        return None  # JSON texts are no YAML documents to put one after another
    if len(bodies) == 1 and re.search(r"^run[ \t]*:", bodies[0], re.MULTILINE):
        others = "\n".join(line for block in blocks if block not in launching
                           for line in block)
        return _sky_overridden(bodies[0], others)
    return "\n---\n".join(bodies)


#: A block's line that sets the environment: ``export NAME=value`` (or ``NAME=value``).
_EXPORT_LINE = re.compile(r"^[ \t]*(?:export[ \t]+)?[A-Za-z_]\w*=\S*[ \t]*$")
#: A top-level ``key: value`` line spelled like a server option (``tp-size: 4``).
_OPTION_KEY = re.compile(r"^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*[ \t]*:(?:[ \t]|$)", re.MULTILINE)


def _lone_config_block(lines: list[str]) -> str | None:
    """The one code block of a page that starts nothing and holds a ``--config`` file's
    server arguments (``tp-size: 16``, ``enable-dp-attention: true``), with the blocks of
    ``export`` lines before it: a bug report's "server args" block, then a ``curl`` check
    or the output it got, which are other steps, not lines of that file. None when no
    block, or more than one, is such a config."""
    import textwrap

    blocks = [textwrap.dedent("\n".join(block)).strip("\n") for block in _fenced_blocks(lines)]
    if len(blocks) < 2:
        return None
    configs = [at for at, body in enumerate(blocks)
               if _OPTION_KEY.search(body) and _server_args(body)]
    if len(configs) != 1 or any("--config" in body or "sglang" in body
                                for at, body in enumerate(blocks) if at != configs[0]):
        return None  # the file of a launch another block starts (SGLang's own or not)
    exports = [body for body in blocks[:configs[0]] if body.strip() and all(
        _EXPORT_LINE.match(line) or not line.strip() or line.lstrip().startswith("#")
        for line in body.split("\n"))]
    return "\n".join([*exports, blocks[configs[0]]])


def _server_args(body: str) -> bool:
    """Whether a block's ``body`` reads as a ``--config`` file (one SGLang refuses a key
    of, ``enable-dp-attention: true``, is still one: reading the page says why)."""
    from launchplan.errors import InputError
    from launchplan.input.config_paste import pasted_config

    try:
        return pasted_config(body) is not None
    except InputError:
        return True


def _reopened(lines: list[str]) -> list[str]:
    """``lines`` with an opening fence put back on top when the copy starts inside a code
    block: its first fence is bare and the next one carries an info string (```` ```yaml
    ````), which only an opening fence may, so the first one closes a block whose opening
    line was left out of the copy."""
    fences = [line.strip() for line in lines if _FENCE.match(line)]
    if len(fences) < 2 or fences[0].strip("`~") or not fences[1].strip("`~").strip():
        return lines
    return [fences[0], *lines]


#: A Dockerfile's ``CMD``: the command its image runs when nothing replaces it.
_IMAGE_CMD = re.compile(r"^[ \t]*CMD\b", re.MULTILINE)
#: A block that runs an image with its own command or arguments (``docker run IMAGE
#: --model-path M`` after an ``ENTRYPOINT``, a Compose service's ``command:``): they replace
#: the ``CMD``, so the page is read whole.
_RUNS_IMAGE = re.compile(r"\b(?:docker|podman|nerdctl)(?:[ \t]+container)?[ \t]+run\b"
                         r"|^[ \t]*(?:command|entrypoint|args)[ \t]*:", re.MULTILINE)


def _lone_dockerfile_block(lines: list[str]) -> str | None:
    """The one code block of a page that starts its launch, when it is a Dockerfile
    (``FROM lmsysorg/sglang`` ... ``CMD ["python3", "-m", "sglang.launch_server", ...]``):
    the page's other blocks (a ``curl`` check, a Compose file that builds the image and
    runs its ``CMD``) are other files or steps, and Docker's instructions are no shell
    commands. None for any other page: several launching blocks, an image with no ``CMD``,
    or one another block runs with a command of its own (read as a page)."""
    import textwrap

    from launchplan.input.dockerfile import looks_like_dockerfile

    blocks = _fenced_blocks(lines)
    if len(blocks) < 2:
        return None
    bodies = [textwrap.dedent("\n".join(block)).strip() for block in blocks]
    # (an exec form's ``["sglang", "serve", ...]`` is no launcher the line pattern sees)
    images = [b for b in bodies if "sglang" in b and looks_like_dockerfile(b)]
    if len(images) != 1 or not _IMAGE_CMD.search(images[0]) or any(
            _LAUNCHER.search(b) or _RUNS_IMAGE.search(b) for b in bodies if b is not images[0]):
        return None
    return images[0]


def _sky_overridden(task: str, others: str) -> str:
    """A SkyPilot task file as the page's ``sky launch ... --env ... --gpus ...`` command
    runs it (``skypilot_cli``); as written when no block gives one."""
    if "sky" not in others:
        return task
    from launchplan.input.skypilot_cli import applied, overrides

    changes = overrides(others)
    if not changes:
        return task
    import yaml

    try:
        node = yaml.safe_load(task)
    except yaml.YAMLError:
        return task
    if not isinstance(node, dict):
        return task
    return yaml.safe_dump(applied(node, changes), sort_keys=False, allow_unicode=True)


#: One item of a notebook cell's ``source`` list as its file holds it: a JSON string, then
#: the comma that separates it from the next.
_SOURCE_LINE = re.compile(r'^[ \t]*("(?:[^"\\]|\\.)*")[ \t]*,?[ \t]*$')


def _cell_source(lines: list[str]) -> str | None:
    """The code a notebook cell's ``source`` list stands for, when every line that holds
    anything is one of its JSON strings (``"docker run ... \\\n",``: a piece of the
    ``.ipynb`` file, as a review diff of a notebook shows it), else None."""
    filled = [line for line in lines if line.strip()]
    matches = [_SOURCE_LINE.match(line) for line in filled]
    if not filled or not any("\\n" in line for line in filled):
        return None
    if not all(matches):
        return _source_lists(filled)
    try:
        return "".join(json.loads(m.group(1)) for m in matches if m is not None)
    except ValueError:
        return None


#: The line that opens a notebook cell's ``source`` list, and one that names a cell's type.
_SOURCE_OPEN = re.compile(r'^[ \t]*"source"[ \t]*:[ \t]*\[[ \t]*$')
_CELL_TYPE = re.compile(r'^[ \t]*"cell_type"[ \t]*:[ \t]*"(\w+)"')


def _source_lists(lines: list[str]) -> str | None:
    """The code of the ``"source": [...]`` lists in a piece of a notebook's file with its
    other keys around them (a review diff's context lines: ``"outputs": []``, the list's
    brackets), one cell after the other; a Markdown cell's list is prose, left out. None
    when the piece holds no such list."""
    cells: list[str] = []
    kind = "code"
    at = 0
    while at < len(lines):
        line = lines[at]
        at += 1
        typed = _CELL_TYPE.match(line)
        if typed is not None:
            kind = typed.group(1)
        if not _SOURCE_OPEN.match(line):
            continue
        pieces: list[str] = []
        while at < len(lines) and (found := _SOURCE_LINE.match(lines[at])) is not None:
            pieces.append(found.group(1))
            at += 1
        if kind != "markdown":
            try:
                cells.append("".join(json.loads(piece) for piece in pieces))
            except ValueError:
                return None
        kind = "code"
    return "\n\n".join(cells) if cells else None


#: a Markdown page's front matter: ``---`` on the first line, YAML, ``---`` alone on a line
_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---[ \t]*\n(.*)\Z", re.DOTALL)


def without_front_matter(text: str) -> str:
    """A Markdown page with YAML front matter (a static site's, a notebook index's, a
    benchmark record's) as the part that holds its launch: the script a front-matter field
    holds (``run_command: |`` with its comment and continuation lines), else the page's
    body. The page is not one manifest: its body is no YAML. ``text`` as it is when the
    front matter does not close, is no mapping, or the body is YAML too (a manifest of
    several documents)."""
    match = _FRONT_MATTER.match(text)
    if match is None:
        return text
    import yaml

    try:
        front = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return text
    body = match.group(2)
    if not isinstance(front, dict) or _is_yaml(body):
        return text
    scripts = [value for value in front.values() if isinstance(value, str)
               and "sglang" in value and ("launch_server" in value or "serve" in value)]
    return scripts[0] if scripts else body


def _is_yaml(text: str) -> bool:
    """Whether ``text`` (what follows a front matter) parses as a YAML mapping or list."""
    import yaml

    try:
        documents = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError:
        return False
    return bool(documents) and all(isinstance(d, (dict, list)) for d in documents)


#: The first line of a YAML or JSON document in a code block: a key, or an object's brace.
_DATA_HEAD = re.compile(r"^(?:\{|[A-Za-z_][\w.-]*:(?:\s|$))")


def _data_block(body: str) -> bool:
    """Whether a code block's ``body`` is a YAML or JSON document of the manifest kind (a
    Compose file's ``services:``, a pod's ``spec:``), not shell: it starts with a key and
    loads as mappings. A flag-per-line shell block never does; nor does a ``--config``
    file's YAML, whose keys are SGLang's flags (it stays in the page for its launch)."""
    head = re.sub(r"^(?:[ \t]*#[^\n]*\n|[ \t]*\n)+", "", body)
    if not _DATA_HEAD.match(head):
        return False
    from launchplan.input.manifest import _MANIFEST_KEY

    if not _MANIFEST_KEY.search(head):
        return False
    import yaml

    try:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        documents = [d for d in yaml.load_all(head, Loader=loader) if d is not None]
    except Exception:  # yaml.YAMLError, or a value YAML cannot build
        return False
    return bool(documents) and all(isinstance(d, dict) for d in documents)


def mixed_page(text: str) -> tuple[list[tuple[str, str]], str, str] | None:
    """A page whose code blocks launch in two kinds (a shell block's ``docker run`` or
    ``python -m sglang.launch_server``, then "or with Docker Compose" and a ```` ```yaml ````
    block's ``services:``), as its launching blocks in page order (("shell" or
    "manifest", the block's text)), the page with its manifest blocks blanked (read as a
    page, as the shell reads it) and those manifests as one text of several documents.
    Each block is a file of its own kind: loading the whole page as YAML fails on its
    shell lines, and its YAML is no shell. A manifest block that starts nothing (a
    Service) is blanked too. None for a page without both kinds."""
    if "```" not in text and "~~~" not in text:
        return None
    text = text.replace("\r\n", "\n")
    spans = code_block_spans(text)
    if len(spans) < 2:
        return None
    order: list[tuple[str, str]] = []
    data: list[tuple[int, int]] = []
    manifests: list[str] = []
    for span in spans:
        body = block_text(text, span).strip()
        launching = any(_LAUNCHER.search(line) for line in body.split("\n"))
        if _data_block(body):
            data.append(span)
            if launching:
                order.append(("manifest", body))
                manifests.append(body)
        elif launching:
            order.append(("shell", body))
    if not data or not any(kind == "shell" for kind, _ in order):
        return None
    return order, without_blocks(text, data), "\n---\n".join(manifests)


def _fenced_blocks(lines: list[str]) -> list[list[str]]:
    """The lines inside each fenced block of a page, block by block."""
    blocks: list[list[str]] = []
    inside = False
    for line in lines:
        if _FENCE.match(line):
            inside = not inside
            if inside:
                blocks.append([])
            continue
        if inside:
            blocks[-1].append(line)
    return blocks
