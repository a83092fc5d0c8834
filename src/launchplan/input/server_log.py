"""The ``server_args=ServerArgs(...)`` line SGLang logs at start-up, read back as data.

The line is the repr of SGLang's resolved arguments: keyword arguments whose values are
Python literals (and, for a few fields, objects such as ``LoRARef(...)``). It is read with
``ast.literal_eval`` value by value, never evaluated. Since the CUDA-graph settings became
one field (0.5.19 on), it is logged as ``CudaGraphConfig(decode=PhaseConfig(...), ...)``:
those two record types are read as mappings of their keyword arguments, the form
launchplan plans them in, so the most rule-written field of a recent log is compared.
From 0.5.21 SGLang logs the resolved arguments as a dict instead, ``server_args={'model_path':
..., 'cuda_graph_config': {'decode': {...}, ...}, ...}`` (``ServerArgs.resolved_dict``): its
items are read the same way, value by value. In that dict (0.5.22 on, the releases with
``attn_dp_size``) ``enable_dp_attention`` is not the field but a report, ``attn_dp_size > 1``,
for clients of ``/server_info``; the field itself resolves false, so the report is set aside.
Pasted logs are often damaged: a log prefix before it, lines wrapped by a terminal or a
web page, the end cut off. A wrapped line is joined back; a cut-off value is dropped and
the line marked truncated, as is a line abridged with ``...`` in place of fields (where the
line stops, only a value that shows its own end, a closing quote or bracket, is kept: a bare
number there may be the first digits of the logged one). A cut-off
line ends where the paste goes on with something else
(a blank line, the next timestamped record, a code fence), so the ``name=value`` pieces of
the records after it are never read as its fields.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from launchplan.errors import InputError
from launchplan.input.benchmarks import MODULES, server_words, starts_engine
from launchplan.input.pasted_release import named_version
from launchplan.struct import Struct, factory

MARKER = "ServerArgs("
#: what a poster writes in place of the fields they left out of the line (SGLang's own
#: clean-startup-log reference prints ``server_args=ServerArgs(model_path='Qwen/Qwen3-8B',
#: ...)``): the line is then read as cut, its left-out fields not compared
ELISIONS = frozenset({"...", "\u2026"})
DICT_MARKER = "server_args={"  # 0.5.21 on: the resolved arguments as a dict
_DICT_ITEM = re.compile(r"\s*(['\"])([A-Za-z_][A-Za-z0-9_]*)\1\s*:(.*)", re.DOTALL)
#: What marks a pasted text or argument as the start-up line, in either form.
LOGGED_MARKERS = ("server_args=" + MARKER, DICT_MARKER)
#: The one hint for a start-up log given where a launch was expected.
LOG_NOT_LAUNCH = ("it is SGLang's start-up log (its server_args=ServerArgs(...) or "
                  "server_args={...} line holds the resolved values, not the launch); "
                  "compare it with its plan: launchplan resolve --from-log FILE (- reads it "
                  "from stdin)")
MAX_LOG_BYTES = 16 << 20
#: What a log collector writes before every line it passes on, so a line that begins with it
#: is a record of its own: Ray's ``(SGLangEngine pid=322526) `` (``(WorkerDict pid=7, ip=
#: 10.0.0.2)``; the RL frameworks run SGLang as a Ray actor; the terminal colours around it
#: kept, or pasted without their escape character), Docker Compose's ``sglang-1  | ``,
#: journald's ``Jun 05 12:36:11 host python[25973]: ``.
_COLLECTOR_PREFIX = (
    r"(?:\x1b?\[[0-9;]*m)?\([A-Za-z_][\w.:-]*[ \t]+pid=\d+(?:,[ \t]*ip=[0-9A-Fa-f.:]+)?\)"
    r"|[A-Za-z0-9][\w.-]*[ \t]+\|(?:[ \t]|$)"
    r"|[A-Z][a-z]{2}[ \t]+\d{1,2}[ \t]+\d\d:\d\d:\d\d[ \t]+\S+[ \t]+[^\s:]+:[ \t]")
#: A line that starts a log record of its own (or closes the pasted block), never a wrapped
#: piece of the start-up line: ``[2026-01-14 05:25:43 TP0] ...`` (after a container's
#: ``2026-09-22T06:49:56.33Z`` stamp too), ``INFO 02-11 10:25:22 ...``, ``2025-03-07 23:50:27,531
#: - ...``, a Markdown fence, a log collector's prefix (``_COLLECTOR_PREFIX``).
_RECORD_START = re.compile(
    r"[ \t]*(?:\d{4}-\d\d-\d\dT[\d:.]+Z?[ \t]+)?(?:"
    r"\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d"
    r"|\d{4}-\d\d-\d\d[ T]\d\d:\d\d"
    r"|(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)[ \t]+\d\d-\d\d[ \t]"
    r"|```|~~~|" + _COLLECTOR_PREFIX + ")")
# Record types SGLang logs by their repr whose keyword arguments are plain settings.
RECORDS = frozenset({"CudaGraphConfig", "PhaseConfig"})


#: the start-up line's marker as a name of its own: never the tail of a longer name or an
#: attribute (a script's ``extra_server_args={...}`` keyword, ``self.server_args={...}``)
_LOGGED_MARKER = re.compile(r"(?<![\w.])server_args=(?:ServerArgs\(|\{)")


def is_logged_args(text: str) -> bool:
    """Whether ``text`` holds SGLang's logged start-up line."""
    return "server_args=" in text and _LOGGED_MARKER.search(text) is not None


class LoggedMemory(Struct):
    """The memory figures a start-up log printed (GB in SGLang's logs are GiB), each None
    when the log does not hold its line: one rank's, as a multi-rank log prints each line
    once per rank, the rank SGLang sizes the pool by (``_sizing_rank``)."""

    before_load_gib: float | None = None  # "Load weight begin. avail mem="
    after_load_gib: float | None = None  # "Load weight end. ... avail mem="
    weights_gib: float | None = None  # "Load weight end. ... mem usage=" (newer releases)
    # what the same rank's later weight loads took (a speculative draft's, loaded after the
    # target's), so what the weights took is the target's and the draft's as the plan counts
    more_weights_gib: float = 0.0
    max_total_num_tokens: int | None = None  # the scheduler's line, else "#tokens:"
    max_running_requests: int | None = None
    context_len: int | None = None
    # whether SGLang made the KV pool: True with its pool or scheduler line, False when the
    # log ends in SGLang's "Not enough memory" error instead, None when it shows neither
    pool_made: bool | None = None
    #: "Mamba Cache is allocated. max_mamba_cache_size: N": a hybrid linear-attention
    #: model's recurrent-state slots (per rank)
    max_mamba_cache_size: int | None = None
    #: the pools a hybrid model's lines state beside the full one, by the memory plan's
    #: names (``swa_max_total_num_tokens``; DeepSeek-V4's ``c4_...`` and ``c128_...``)
    pools: dict[str, int] = factory(dict)
    #: the draft class a speculative run loaded when that is the only weight load the log
    #: shows (the target's grepped or cut away): its figures are not the target's
    draft_load_only: str | None = None
    #: a pool the log shows as one, with no hybrid line beside it (no sliding-window split,
    #: no Full/SWA labels, no SWAKVPool): its tokens and its K plus V size (GiB), from which
    #: the bytes a token takes tell which layers it holds (a hybrid sliding-window model
    #: pooled whole by a build with hybrid SWA memory off holds every layer as full)
    one_pool_tokens: int | None = None
    one_pool_gib: float | None = None

    @property
    def free_before_gib(self) -> float | None:
        """Free memory before loading: logged, or (older releases) after plus usage."""
        if self.before_load_gib is not None:
            return self.before_load_gib
        if self.after_load_gib is not None and self.weights_gib is not None:
            return self.after_load_gib + self.weights_gib
        return None

    @property
    def loaded_gib(self) -> float | None:
        """What the weights took: logged, or (older releases) before minus after."""
        if self.weights_gib is not None:
            return self.weights_gib + self.more_weights_gib
        if self.before_load_gib is not None and self.after_load_gib is not None:
            return self.before_load_gib - self.after_load_gib + self.more_weights_gib
        return None

    def any(self) -> bool:
        return bool(self.pools) or any(v is not None for k, v in self.as_dict().items()
                                       if k not in ("more_weights_gib", "pools",
                                                    "draft_load_only", "one_pool_tokens",
                                                    "one_pool_gib"))


class LoggedArgs(Struct, frozen=False):
    """What the log says SGLang resolved."""

    values: dict[str, Any] = factory(dict)
    unreadable: dict[str, str] = factory(dict)  # field -> the text that is not a literal
    truncated: bool = False
    #: the fields were left out by whoever pasted the line (``...``), not lost to a cut
    abridged: bool = False
    #: the log shows the server got past start-up: its KV pool made, its CUDA graphs
    #: captured or its ready line printed, and no start-up failure after them
    started: bool = False
    #: the error a start-up died of beyond the KV pool's own refusal (``LoggedMemory.pool_made``
    #: covers "Not enough memory"): a CUDA graph capture that failed, an out-of-memory, the
    #: scheduler's exception, before the server served anything; its line as logged
    failure: str | None = None
    line: int = 0  # 1-based line of the marker in the log; 0: the log has none
    memory: LoggedMemory = factory(LoggedMemory)
    form: str = "repr"  # "repr": ServerArgs(...); "dict": {...} (0.5.21 on)
    set_aside: dict[str, Any] = factory(dict)  # logged items that are not the field (reports)
    devices: list[str] = factory(list)  # the GPU device names the log prints, distinct
    # the per-GPU total the log states (``stated_total``): SGLang's own when nvidia-smi gave
    # none (unified-memory parts such as GB10; the least of its ranks' figures, as SGLang
    # sizes by it), a pasted nvidia-smi table's, torch's out-of-memory message's; None when
    # none is stated
    reported_mib: int | None = None
    reported_by: str | None = None  # what states it (SGLANG_TOTAL, SMI_TOTAL, TORCH_TOTAL)
    notes: list[str] = factory(list)  # how the command read it (the GPU it took from it)
    # the launch command the log shows before its start-up line (line number, its text):
    # what the fields a cut-off line lost were typed as
    command: tuple[int, str] | None = None
    #: the shell assignments the text makes before that command (``TP=2``, ``export
    #: MODEL=...``, ``option+=" --flag"``), one a line, when the command refers to a
    #: variable: its script's values, read with it as a pasted script is read
    command_context: str = ""
    #: a device other than a GPU the log's records name where its line names none (an
    #: Ascend NPU's "Capture ... NPU graph", its ``ascend`` backends): the log's hardware
    device_named: str | None = None
    #: the one SGLang release the log's text names (an environment report's ``sglang:
    #: 0.5.22``, an image tag, a container's banner): (the version as written, its words)
    named_release: tuple[str, str] | None = None
    #: the latest date the log's records are stamped with (``2025-08-30``), None when they
    #: carry no date: when the run was, for a log that names no release
    last_stamp: str | None = None
    #: the largest memory figure (GB as SGLang prints it) the start-up's records state and
    #: which record: free memory, a load's usage, a pool's size, all one device's
    largest_memory: tuple[float, str] | None = None


def read_log(path: str) -> LoggedArgs:
    """The last ``server_args=ServerArgs(...)`` in the file at ``path`` (``-``: standard
    input, as ``docker logs sglang 2>&1 | launchplan resolve --from-log - ...`` pipes it)."""
    if path == "-":
        import sys

        blob = sys.stdin.buffer.read(MAX_LOG_BYTES)
        return parse_log(_decoded(blob), "standard input")
    try:
        with open(path, "rb") as fh:
            skipped, blob = _last_start(fh)
            lines_before = _lines_before(fh, skipped)
    except OSError as exc:
        raise InputError("--from-log", "a readable log file", path, exc.strerror) from None
    out = parse_log(_decoded(blob), path)
    if lines_before:  # line numbers of the whole file, not of the part read
        out.line += lines_before if out.line else 0
        if out.command is not None:
            out.command = (out.command[0] + lines_before, out.command[1])
    return out


def _decoded(blob: bytes) -> str:
    """A log's text: UTF-8, or UTF-16 where it opens with that byte-order mark (what
    Windows PowerShell 5.1's ``>`` writes when a server's output is redirected there)."""
    if blob[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return blob[: len(blob) & ~1].decode("utf-16", errors="replace")
    return blob.decode("utf-8", errors="replace")


#: Bytes kept before the start-up line of a log larger than ``MAX_LOG_BYTES`` (the launch
#: command a container or script printed before it).
_BEFORE_START = 1 << 20


def _last_start(fh: BinaryIO) -> tuple[int, bytes]:
    """At most ``MAX_LOG_BYTES`` of the log: all of it when it is smaller, else the part
    from just before its last start-up line on (a server's log of weeks, or of a container
    restarted many times, holds its latest launch near the end), else its beginning. The
    file is searched from the end in blocks, so a log of gigabytes costs one block or a few.
    Also the bytes left out before the part (0 when it is the beginning)."""
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    fh.seek(0)
    if size <= MAX_LOG_BYTES:
        return 0, fh.read(MAX_LOG_BYTES)
    markers = [m.encode() for m in LOGGED_MARKERS]
    overlap = max(len(m) for m in markers)
    end = size
    while end > 0:
        start = max(0, end - MAX_LOG_BYTES)
        fh.seek(start)
        block = fh.read(end - start + overlap)
        found = max(block.rfind(m) for m in markers)
        if found >= 0:
            skipped = max(0, start + found - _BEFORE_START)
            fh.seek(skipped)
            return skipped, fh.read(MAX_LOG_BYTES)
        end = start
    fh.seek(0)
    return 0, fh.read(MAX_LOG_BYTES)


def _lines_before(fh: BinaryIO, skipped: int) -> int:
    """The lines in the first ``skipped`` bytes of the file (counted in blocks)."""
    fh.seek(0)
    lines = 0
    while skipped > 0:
        block = fh.read(min(skipped, MAX_LOG_BYTES))
        if not block:
            break
        lines += block.count(b"\n")
        skipped -= len(block)
    return lines


#: A Kubernetes node's log record (containerd, CRI-O): ``<time> <stream> <P|F> <text>``, ``P``
#: a part of a line the runtime split (at 16 KiB), ``F`` the line's last part.
_CRI_RECORD = re.compile(r"^\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d) (?:stdout|stderr) ([PF]) ",
                         re.MULTILINE)
#: ``docker logs --timestamps``' stamp (nanoseconds, UTC) starting a printed line...
_DOCKER_STAMP_LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z ", re.MULTILINE)
#: ... and inside one: Docker stores a message over 16 KiB as parts, and prints each part
#: with its own stamp, on the same line (docker/cli#4941)
_DOCKER_STAMP_INSIDE = re.compile(r"(?<=\S)\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z ")


def as_written(text: str) -> str:
    """The log as SGLang wrote it, from what a container runtime stored or printed: Docker's
    json-file records (``{"log": "...", "stream": ..., "time": ...}``, one a line), CRI
    records, and ``docker logs --timestamps`` output, each with the parts of a line over 16
    KiB joined again. SGLang's start-up line is longer than that from its 2026 releases on,
    so read part by part the field at the split would be lost."""
    if '{"log"' in text:
        text = _json_file_records(text)
    if _CRI_RECORD.search(text):
        out: list[str] = []
        for line in text.split("\n"):
            record = _CRI_RECORD.match(line)
            if record is None:
                out.append(line + "\n")
            else:  # a part continues on the next record's text
                out.append(line[record.end():] + ("" if record.group(1) == "P" else "\n"))
        text = "".join(out)
    if _DOCKER_STAMP_LINE.search(text):
        text = _DOCKER_STAMP_INSIDE.sub("", text)
    return text


def _json_file_records(text: str) -> str:
    """Docker's json-file log as the lines it holds: each record's ``log`` text, which ends
    in a newline only where the line ended (a part of a longer line does not)."""
    import json

    out: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith('{"log"') and stripped.endswith("}"):
            try:
                record = json.loads(stripped)
            except ValueError:
                record = None
            if isinstance(record, dict) and isinstance(record.get("log"), str):
                out.append(record["log"])
                continue
        out.append(line + "\n")
    return "".join(out)


#: (followed by what a command line goes on with: a space, a quote, a continuation, the end;
#: not by a prose sentence's comma or stop: "launch: bare sglang.launch_server, TP4, ...")
_LAUNCH_COMMAND = re.compile(r"(?:sglang\.launch_server|\bsglang\s+(?:serve|launch_server))"
                             r"(?=[\s\"'`\\]|$)")
#: SGLang's engine benchmarks (``input.benchmarks``): each builds the server's arguments from
#: its own command line and starts the engine, so its run's memory lines (and no server_args
#: line) show it as the command of those lines (a server launch above it is another run)
_BENCHMARK = re.compile(r"\b(?:" + "|".join(re.escape(m) for m in sorted(MODULES, key=len,
                                                                          reverse=True))
                        + r")\b")


#: a command line a page wrapped inside an option's dashes (``... --batch 4 -`` and then
#: ``-input-len 2048`` on the next line): the next line goes on with the option
_WRAPPED_DASH = re.compile(r"\s-{1,2}[ \t]*$")


#: SGLang's own hint, printed first by every ``python -m sglang.launch_server`` of the 2026
#: builds, quotes a launch it does not run: ``'python -m sglang.launch_server' is still
#: supported, but 'sglang serve' is the recommended entrypoint`` and ``Example: sglang serve
#: --model-path <model> [options]``; a line holding such placeholders is no launch either
_NOT_A_LAUNCH = re.compile(r"recommended entrypoint|<model>|\[options\]")
#: the row after a command row that a terminal broke at its width (no backslash): the piece of
#: a token the break cut, at most one value more, then a flag (``ormat dummy --dtype ...``,
#: ``2     --disable-cuda-graph``); an output line (``error: ... --foo``) has a colon first
_WRAPPED_ROW = re.compile(r"[ \t]*(?:[^\s:]+[ \t]+){0,2}--[A-Za-z]")
#: the narrowest terminal row read as wrapped (a short command line ends where it ends)
_MIN_ROW = 60


def launch_command(text: str) -> tuple[int, str] | None:
    """The last line of ``text`` that starts an SGLang server (``python -m
    sglang.launch_server ...``, ``sglang serve ...``) or runs ``sglang.bench_one_batch``
    (read as the server launch its flags make), with the lines its trailing backslashes
    continue it onto (or a page's wrap inside an option's dashes, or a terminal's rows), and
    its 1-based line number; None when there is none. A pasted issue often shows the command
    and then its log. SGLang's own hint naming ``sglang serve`` is not a launch."""
    lines = text.split("\n")
    for at in range(len(lines) - 1, -1, -1):
        line = lines[at]
        bench = _BENCHMARK.search(line)
        if bench is not None and not starts_engine(bench.group(0), line[bench.end():].split()):
            bench = None  # measuring a server already running (``--base-url``)
        if (bench or _LAUNCH_COMMAND.search(line)) and MARKER not in line \
                and DICT_MARKER not in line and not _NOT_A_LAUNCH.search(line):
            end = at
            command = line
            lead = _LINE_LEAD.match(line)
            while end + 1 < len(lines):
                following = lines[end + 1]
                if lines[end].rstrip().endswith("\\"):
                    if lead is not None and (own := _LINE_LEAD.match(following)) is not None:
                        following = following[own.end():]  # each line's collector prefix
                    command += "\n" + following
                elif _WRAPPED_DASH.search(lines[end]) and following.startswith("-"):
                    command = command.rstrip() + following  # ``--batch 4 -`` / ``-input-len``
                elif _terminal_row(lines[end], following, len(line) if end > at else 0):
                    command = _rejoined(command, following)
                else:
                    break
                end += 1
            manifest = _manifest_launch(lines, at)
            if manifest is not None:
                return manifest
            return at + 1, _server_launch(command) if bench else command
    return None


#: A line of a script that only sets variables: ``TP=2``, ``export MODEL=/m``, ``declare -i
#: N=4``, ``option+=" --flag"`` (bash appends), several on one line too
_SETS_VARIABLE = re.compile(r"[ \t]*(?:(?:export|declare|typeset|local|readonly)"
                            r"(?:[ \t]+-\w+)*[ \t]+)?[A-Za-z_]\w*\+?=")
#: an assignment of a command's output, alone on its line (``HOST=$(hostname -i | awk ...)``)
_SUBSTITUTED = re.compile(r"[ \t]*(?:export[ \t]+)?[A-Za-z_]\w*=\"?\$\((?!\()[^\n]*\)\"?[ \t]*$")
#: the assignments read before a command at most (a long script's last ones count)
_MAX_ASSIGNMENTS = 500


def shell_assignments(text: str, line: int) -> str:
    """The lines before ``line`` (1-based) of ``text`` that only set shell variables, each
    with the lines its trailing backslashes continue it onto, in order: a start script
    pasted with its log sets what its launch command refers to (``--tp $TP``), and the
    command is read with them as the pasted-text reader reads a script. A line whose words
    do not split (an open quote) or that runs a command besides is left out."""
    from launchplan.input.shell_vars import ASSIGNMENT, shell_split

    lines = text.split("\n")[:max(0, line - 1)]
    kept: list[str] = []
    at = 0
    while at < len(lines):
        start = at
        while lines[at].rstrip().endswith("\\") and at + 1 < len(lines):
            at += 1
        at += 1
        if _SETS_VARIABLE.match(lines[start]) is None:
            continue
        piece = "\n".join(lines[start:at]).rstrip("\r")
        if _SUBSTITUTED.match(piece) is not None:  # set by a command the script runs: the
            kept.append(piece)  # reader keeps the reference open, as the value is unknown
            continue
        try:
            words = shell_split(piece)
        except ValueError:  # an open quote: a value going on over lines not read
            continue
        declaring = False
        for word in words:
            declaring = word in _DECLARING or (declaring and word.startswith("-"))
            if not (declaring or word == ";" or ASSIGNMENT.match(word)):
                break
        else:
            kept.append(piece)
    return "\n".join(kept[-_MAX_ASSIGNMENTS:])


#: the builtins that set variables from their ``NAME=VALUE`` words
_DECLARING = frozenset({"export", "declare", "typeset", "local", "readonly"})


#: SGLang's test helpers that start a server from a model and a list of flags
#: (``popen_launch_server(MODEL, URL, timeout=..., other_args=[...])``): its CI's and its
#: hardware vendors' failure reports show the launch so
_HELPER_CALL = re.compile(r"\bpopen_launch(?:_pd)?_server\(")
#: the line opening a list a launch's flags may be written in: a Python name bound to a list
#: (``XPU_SERVER_ARGS = [``), a manifest's ``args:`` key with its items below or in brackets
_LIST_OPENS = re.compile(r"^[ \t]*(?:[A-Za-z_]\w*[ \t]*=|(?:-[ \t]+)?args[ \t]*:)[ \t]*(?:(\[)|$)",
                         re.MULTILINE)


def shown_launch(text: str) -> tuple[int, str] | None:
    """The launch ``text`` shows before its records: a command line (``launch_command``),
    else a call of SGLang's test helper (the code block around it, which the pasted-text
    reader reads as it reads such a paste), else the last list of SGLang flags (a Python
    list, a manifest's ``args:``), as the command it stands for. None when it shows none."""
    found = launch_command(text)
    if found is not None or ("--" not in text):  # the cheap test: no flag, no list of them
        return found
    calls = list(_HELPER_CALL.finditer(text))
    if calls:
        call = calls[-1].start()
        fence = max(text.rfind("```", 0, call), text.rfind("~~~", 0, call))
        start = text.find("\n", fence) + 1 if fence >= 0 else 0
        end = _call_end(text, calls[-1].end())
        return text.count("\n", 0, call) + 1, text[start:end]
    for opening in reversed(list(_LIST_OPENS.finditer(text))):
        flags = _listed_flags(text, opening)
        if flags:
            import shlex

            return (text.count("\n", 0, opening.start()) + 1,
                    "python -m sglang.launch_server " + shlex.join(flags))
    return _flags_block(text)


#: a line of bare flags: it starts with a long option (a continuation backslash may end it)
_FLAG_LINE = re.compile(r"[ \t]*--[A-Za-z][\w-]*(?:[ \t=]|$)")
#: a line that ends a block of lines: a blank one, a Markdown fence
_BLOCK_EDGE = re.compile(r"[ \t]*(?:```|~~~|$)")
#: a record of the log itself (a stamped line; ``[22:12:13] ...`` as run notes quote them)
_LOG_RECORD = re.compile(r"[ \t]*\[\d\d:\d\d:\d\d\]|" + _RECORD_START.pattern)


def _flags_block(text: str, anywhere: bool = False) -> tuple[int, str] | None:
    """The last block of bare SGLang flags ``text`` shows before the log's first record (a
    fenced block, a paragraph or the lines under a caption ending in a colon, each line
    starting with a flag, a line wholly in backticks too; every word a flag of SGLang's or
    a value after one that takes it: a run note's "the configuration is:" over
    ``--mem-fraction-static 0.8 --context-length 2048``), as the launch it stands for, as
    the pasted-text reader takes such a block; None when it shows none. ``anywhere``: in
    the whole text, the log's records no bound (a block not read, to name)."""
    import shlex

    from launchplan.input.cli import flag_field, takes_value

    lines = text.split("\n")
    first = len(lines) if anywhere else next(
        (n for n, line in enumerate(lines) if _LOG_RECORD.match(line)
         and not _BLOCK_EDGE.match(line)), len(lines))
    lines = [_unticked(line) for line in lines[:first]]
    found: tuple[int, str] | None = None
    at = 0
    while at < first:
        if _FLAG_LINE.match(lines[at]) is None or (
                at and not _BLOCK_EDGE.match(lines[at - 1])
                and not lines[at - 1].rstrip().endswith((":", "\uff1a"))):
            at += 1
            continue
        end = at
        while end < first and not _BLOCK_EDGE.match(lines[end]):
            end += 1
        block = lines[at:end]
        at = end
        if not all(_FLAG_LINE.match(line) or _continues(block, n)
                   for n, line in enumerate(block)):
            continue
        try:
            words = shlex.split(" ".join(line.rstrip().removesuffix("\\") for line in block))
        except ValueError:  # an open quote: no block of flags
            continue
        values = 0  # the values the last flag may still take: one, more (a list), none
        known = unknown = 0
        for word in words:
            if word.startswith("--"):
                name = word.split("=", 1)[0]
                ours = flag_field(name) is not None or takes_value(name)
                if not ours and not known:
                    break  # it opens with no flag of SGLang's: another program's options
                known, unknown = known + ours, unknown + (not ours)
                # (a flag no release modelled has, a retired or a fork's: its value, if any,
                # is read with it, and the launch's reading names it as not accepted)
                values = 1 if "=" not in word and (takes_value(name) or not ours) else 0
            elif values == 1 or (values > 1 and not _PLAIN_WORD.match(word)):
                values += 1  # a list's further values (``--cuda-graph-bs 1 2 4``), no words
            else:
                break  # a word no flag takes: prose, a command
        else:
            if known > unknown:  # mostly SGLang's flags, not another program's
                found = (end - len(block) + 1,
                         "python -m sglang.launch_server " + shlex.join(words))
    return found


def _unticked(line: str) -> str:
    """A line that is one Markdown code span, a backtick at either end (a run note's flags
    written inline), as the code it holds; any other line as it is."""
    plain = line.strip()
    if len(plain) > 2 and plain[0] == plain[-1] == "`" and "`" not in plain[1:-1]:
        return plain[1:-1]
    return line


#: a word of prose (after a flag's value, the rest of a sentence, not a list's next value)
_PLAIN_WORD = re.compile(r"[A-Za-z]+[,.;:]?$")


def _continues(block: list[str], n: int) -> bool:
    """Whether line ``n`` of ``block`` goes on from the one before it (a backslash ends it)."""
    return n > 0 and block[n - 1].rstrip().endswith("\\")


def _call_end(text: str, at: int) -> int:
    """Where the call whose arguments start at ``at`` closes (past its parenthesis; the end
    of its line when a paste cut it), strings skipped; at most 4,000 characters on."""
    depth, quote = 1, ""
    stop = min(len(text), at + 4000)
    for i in range(at, stop):
        c = text[i]
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _listed_flags(text: str, opening: re.Match[str]) -> list[str] | None:
    """The strings of the list ``opening`` starts, when they are SGLang flags and their
    values (the first a flag); None otherwise (another list, one that does not read)."""
    if opening.group(1):  # a Python list (or a manifest's in brackets): to its bracket
        start = opening.start(1)
        body = text[start:_call_end(text, start + 1)]
        try:
            items = ast.literal_eval(body)
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            return None
    else:  # a manifest's items, each ``- value`` below the key
        lines = text[opening.end():].split("\n")[1:]
        items = []
        for line in lines:
            item = _LIST_ITEM.match(line)
            if item is None:
                break
            value = line[item.end():].strip()
            if value[:1] in "'\"" and value[-1:] == value[:1] and len(value) > 1:
                value = value[1:-1]
            items.append(value)
    if not isinstance(items, list) or not items or not all(isinstance(i, str) for i in items):
        return None
    if not items[0].startswith("--"):
        return None
    return items


#: What a log collector puts before each line it passes on (``_COLLECTOR_PREFIX``, after a
#: ``kubectl logs --timestamps`` stamp or alone): a command a script echoes over several
#: lines carries it on every line, and its continuation lines are read without it.
_LINE_LEAD = re.compile(r"(?:\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d)[ \t]+(?:"
                        + _COLLECTOR_PREFIX + r")?|(?:" + _COLLECTOR_PREFIX + r"))")


#: a manifest's key holding a launch as a list (Kubernetes, Compose, Helm values)
_LIST_KEY = re.compile(r"([ \t]*)(?:-[ \t]+)?(?:command|args|entrypoint)[ \t]*:")
_LIST_ITEM = re.compile(r"[ \t]*-[ \t]")


def _manifest_launch(lines: list[str], at: int) -> tuple[int, str] | None:
    """A launch written as a manifest's list (``command:`` then ``- python3``, ``- -m``,
    ``- sglang.launch_server``, ``- --tp``, ``- "16"``, or ``command: [...]``), with the
    ``args:`` list beside it: the lines from its key to its last item, for the paste reader,
    and the key's line number. None when line ``at`` is no such list's."""
    key = at
    while key >= 0 and _LIST_KEY.match(lines[key]) is None:
        line = lines[key]
        if key != at and not (_LIST_ITEM.match(line) or line.lstrip().startswith("#")):
            return None
        if key == at and not _LIST_ITEM.match(line):
            return None
        key -= 1
    if key < 0:
        return None
    indent = len(_LIST_KEY.match(lines[key]).group(1))  # type: ignore[union-attr]
    end, keys = key, 1
    while end + 1 < len(lines):
        line = lines[end + 1]
        lead = len(line) - len(line.lstrip())
        if not line.strip():
            break
        sibling = _LIST_KEY.match(line)
        if sibling is not None and len(sibling.group(1)) == indent:
            if keys == 2:
                break
            keys += 1
        elif not (lead > indent or (lead == indent and _LIST_ITEM.match(line))):
            break
        end += 1
    return key + 1, "\n".join(lines[key:end + 1])


def _terminal_row(row: str, following: str, first: int) -> bool:
    """Whether ``following`` goes on with ``row`` as a terminal's next row: ``row`` is as wide
    as a terminal, and ``following`` is no record and no other launch, and carries a flag or
    follows a row the terminal filled (``first``: the width of the command's first row when
    ``row`` is a later one, which fills one row or several; a copy drops the spaces a row
    ends in, so a row a column or two short of them is still full)."""
    width = len(row)
    if width < _MIN_ROW or not following.strip() \
            or _RECORD_START.match(following) is not None \
            or _LAUNCH_COMMAND.search(following) is not None:
        return False
    return _WRAPPED_ROW.match(following) is not None or any(
        abs(first - rows * width) <= 2 * rows for rows in (1, 2, 3))


def _rejoined(command: str, row: str) -> str:
    """``command`` and a terminal's next ``row``: a terminal breaks at its width, inside a
    token as often as between two, and a copy may drop the spaces at the break. A break
    next to a space keeps it; an option cut short (``--load-f`` / ``ormat``) is made whole;
    a whole option, or a row starting one, is a boundary; else a value was cut
    (``0.1`` / ``2``)."""
    if not command or not row or command[-1].isspace() or row[0].isspace():
        return command + row
    from launchplan.input.cli import ALL_FLAGS

    head = command.split()[-1]
    tail = row.split()[0]
    if head.startswith("--") and head not in ALL_FLAGS \
            and (head + tail).split("=", 1)[0] in ALL_FLAGS:
        return command + row
    if tail.startswith("-") or head.split("=", 1)[0] in ALL_FLAGS:
        return command + " " + row
    return command + row


def _server_launch(command: str) -> str:
    """A benchmark command as the server launch it resolves: the module named
    ``sglang.launch_server``, the benchmark's own options and their values left out (its
    server flags are SGLang's server arguments, resolved the same way)."""
    words = command.replace("\\\n", " ").split()
    for at, word in enumerate(words):
        found = _BENCHMARK.search(word)
        if found is not None:
            kept, _ = server_words(found.group(0), words[at + 1:], lenient=True)
            launcher = word[:found.start()] + "sglang.launch_server" + word[found.end():]
            return " ".join([*words[:at], launcher, *kept])
    return command


def parse_log(text: str, name: str = "log") -> LoggedArgs:
    """The log's resolved arguments and memory figures. A log cut down to its memory lines
    (no ``server_args`` line) is read for those alone: the launch is then the flags given."""
    text, mark = _unflattened(as_written(text))
    if "\x1b[" in text:  # the cheap test: a log with no escape pays nothing
        text = _SGR.sub("", text)
    if text.startswith(">") or "\n>" in text:  # the cheap test: no line starts with ``>``
        text = _unquoted(text)
    out = _parse_log(text, name)
    if mark is not None:
        out.notes.append(f"the text's {mark.strip()!r} marks stand for its line breaks (a "
                         "dump that flattened the paste): read as line ends, and the line "
                         "numbers here count the lines they make")
    return out


#: A Markdown quote's marks at a line's start (GitHub's "Quote reply" puts ``> `` before
#: every line of the comment it quotes, once per level), never Python's ``>>> `` prompt.
_QUOTED_LINE = re.compile(r"^(?!>>>(?:[ \t]|$))(?:>[ \t]?)+", re.MULTILINE)


def _unquoted(text: str) -> str:
    """``text`` with its quoted lines read as the lines they quote: a log carried from one
    comment to the next as a quote-reply keeps its stamps and error lines, which the
    readers find only at a line's start. Lines keep their numbers."""
    return _QUOTED_LINE.sub("", text)


#: An ANSI SGR escape (``ESC[36;1m``, ``ESC[0m``): a terminal's or a CI page's colour, never
#: part of a word. GitHub Actions' raw log echoes a ``run:`` step's script in cyan line by
#: line, so a reset after a continuation backslash would otherwise hide the backslash.
_SGR = re.compile(r"\x1b\[[0-9;:]*m")


#: What a dump writes in place of each line break of a paste it flattens to one line (a
#: public issue or pull-request dump: the return symbol U+23CE; the return arrow U+21B5
#: likewise), a space either side: a blank line is two marks, a continuation line's indent
#: follows its mark. The record reader finds SGLang's records anywhere in a line, the
#: command finder only at a line's start: both read the lines the marks stand for.
_BREAK_MARKS = (" \u23ce ", " \u21b5 ")


def _unflattened(text: str) -> tuple[str, str | None]:
    """``text`` with its line-break marks (``_BREAK_MARKS``) made line breaks again, and the
    mark; the text itself and None when it holds fewer than two of one mark (a lone arrow
    is some other use of it)."""
    if "\u23ce" not in text and "\u21b5" not in text:  # the cheap test: no mark at all
        return text, None
    for mark in _BREAK_MARKS:
        if text.count(mark) >= 2:
            return text.replace(mark, "\n"), mark
    return text, None


#: Lines SGLang prints only once start-up is past its checks: a CUDA graph captured (every
#: release's wording), the server ready.
_STARTED = re.compile(r"Capture (?:[a-z ]*)?cuda graph end|The server is fired up and ready",
                      re.IGNORECASE)
#: What a start-up dies of past the pool's sizing: SGLang's graph runners re-raise a failed
#: capture as "Capture cuda graph failed: ..." (every release; the piecewise and draft
#: runners with their own word before "cuda graph"); torch's out-of-memory errors (CUDA and
#: ROCm spell it alike); a process of the server logging the exception it dies of ("Scheduler
#: hit an exception", and so the tokenizer and detokenizer managers, the data-parallel
#: controller, the multi-tokenizer routers); the launcher's record that a child process
#: died while the server was still starting ("Received sigquit from a child process").
_FAILED = re.compile(r"Capture (?:[a-z ]*)?cuda graph failed[^\n]*"
                     r"|(?:torch\.(?:cuda\.)?OutOfMemoryError: )?(?:CUDA|HIP) out of memory[^\n]*"
                     r"|\b\w*(?:Scheduler|Manager|Controller|Router) hit an exception[^\n]*"
                     r"|Received sigquit from a child process[^\n]*", re.IGNORECASE)
#: The line a Python traceback ends in, the error itself (after a container's time stamp):
#: ``RuntimeError: CUDA error: invalid device ordinal``, ``zmq.error.ZMQError: ...``,
#: ``triton.runtime.errors.OutOfResources: out of resource: shared memory, ...``.
_RAISED = re.compile(r"^(?:\d{4}-\d\d-\d\dT[\d:.]+Z?[ \t]+)?((?:(?:[a-z_]\w*\.)+[A-Z]\w*"
                     r"|[A-Z]\w*(?:Error|Exception|Exit|Interrupt))(?::[ \t][^\n]*)?)[ \t]*$",
                     re.MULTILINE)
#: Records of a server already serving (ready, its first batches logged, or a request it
#: took: a request's input checked against the context length, an answered POST in the HTTP
#: access log; a request logged on receipt may be the start-up's own warm-up, still running):
#: a failure after one is not the start-up's.
_SERVING = re.compile(r"The server is fired up and ready|\b(?:Prefill|Decode) batch[. ]"
                      r"|Input length \(\d+ tokens\) exceeds"
                      r"|\"POST /[^\"\n]* HTTP/[\d.]+\" 200\b", re.IGNORECASE)


def _draft_only(draft: str | None) -> str | None:
    """Why a log whose only memory record is a draft's weight load has nothing to compare."""
    if draft is None:
        return None
    return (f"its only memory record is a speculative draft's weight load (type={draft}), "
            "which says nothing of the target's memory: paste the start-up from its beginning")


def _parse_log(text: str, name: str) -> LoggedArgs:
    at, marker = max((text.rfind(MARKER), MARKER), (text.rfind(DICT_MARKER), DICT_MARKER))
    if at < 0 and (abridged := _abridged_line(text)) is not None:
        return abridged
    if at < 0:
        memory = parse_memory(text)
        if memory.any():  # the command it shows before its memory lines is the launch
            first = _first_memory_record(text)
            start = text.rfind("\n", 0, first) + 1
            command = shown_launch(text[:start])
            later = _later_launch(text, start) if command is None else None
            out = _with_memory(LoggedArgs(command=command or later and later[0]), text)
            if later is not None:
                out.notes.append(later[1])
            elif out.command is None and first < len(text):
                _unread_command(out, text, start, first, "first memory record")
            if out.command is None and ("\n--" in text or "\n`--" in text):  # (cheap test)
                _unread_flags(out, text)
            _logged_role(out, text, "the log has no server_args line")
            return out
        failed = _FAILED.search(text)
        # (or a traceback its own frames show a start-up's, its wrapper record not pasted)
        bare = _startup_traceback(text) if failed is None else None
        failed_at = failed.start() if failed is not None else bare[0] if bare else None
        if failed_at is not None:
            # the report an issue asks for: the launch command, then the error SGLang's
            # start-up died of (the long server_args line left out): the command is the launch
            command = shown_launch(text[:text.rfind("\n", 0, failed_at) + 1])
            if command is None:  # shown after it: bash's job line (``./run.sh: line 28:
                command = launch_command(text)  # 8891 Killed  python3 -m ...``), a post's
            # "my command:" under its log; with none (a ``docker logs --tail``, a crashed
            # pod's ``kubectl logs``: the launch lives in a file elsewhere) the launch is the
            # flags given, as for a log of memory records alone
            out = _with_memory(LoggedArgs(command=command), text)
            if command is not None or out.failure is not None:
                return out
        raise InputError("--from-log", "a log holding SGLang's `server_args=ServerArgs(...)` "
                         "(or, 0.5.21 on, `server_args={...}`) start-up line, its memory "
                         "lines, or a launch command and the error its start-up died of", name,
                         _TRACEBACK_NOT_STARTUP if failed_at is None
                         and next(_tracebacks(text), None) is not None
                         else _draft_only(memory.draft_load_only))
    line = text.count("\n", 0, at) + 1
    start = text.rfind("\n", 0, at) + 1
    # a file several start-ups wrote (a log appended to, a notebook's cells, a failed start
    # and its retry): the line read is the last one's, so are the memory records
    first = min((i for i in (text.find(MARKER), text.find(DICT_MARKER)) if i >= 0), default=at)
    own = text[start:] if first < at else text
    body = _joined(text[at + len(marker):], _quote_depth(text[start:at]))
    segments, closed = _segments(body)
    separated = body.rstrip().endswith(",")  # the cut fell after a whole value's comma
    form = "dict" if marker == DICT_MARKER else "repr"
    # (a whole line needs no command: the list forms are looked for only past a cut)
    out = LoggedArgs(line=line, truncated=not closed, form=form,
                     command=(launch_command if closed else shown_launch)(text[:start]))
    if out.command is None and not closed:  # the fields the cut line lost stay unread then
        _unread_command(out, text, start, at, "server_args line")
    for i, segment in enumerate(segments):
        segment, abridged = _unabridged(segment)
        if abridged:
            out.truncated = out.abridged = True  # by whoever pasted it: fields left out
            if not segment.strip():
                continue
        key, value = _item(segment, form)
        if key is not None and value.strip() in ELISIONS:
            out.truncated = True  # ``tp_size=...``: the value itself left out, not Ellipsis
            continue
        last_cut = i == len(segments) - 1 and not closed
        if key is None or (last_cut and not separated and not _self_delimited(value)):
            # the piece the cut went through: a bare number or name there (``...=81`` of
            # 8192, ``...=0.8`` of 0.874) reads as a value, but may be its first digits
            if last_cut:
                break
            continue
        try:
            out.values[key] = _literal(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            if i == len(segments) - 1 and not closed:
                break  # the value the cut went through
            out.unreadable[key] = value.strip()[:80]
    if not out.values:
        # a search excerpt or an issue preview cuts at a fixed width, often inside the first
        # field: the line still marks a start-up log, and the command above it is the launch
        cut = body.split("\n", 1)[0].strip()[:60]
        if closed or out.command is None:
            raise InputError("--from-log", "keyword arguments after `ServerArgs(`"
                             if form == "repr" else "'name': value items after `server_args={`",
                             cut or "nothing",
                             None if closed else f"line {line} is cut off before its first "
                             "complete field, and the log shows no launch command above it")
        out.notes.append(f"the server_args line (line {line}) is cut off before its first "
                         f"complete field ({cut!r}): no logged value is read")
    if form == "dict":
        _set_aside_reports(out)
    if out.values.get("attention_backend") is None:
        _chosen_backend(out, text)
    if out.truncated and "disaggregation_mode" not in out.values:
        # (the records after the start-up line before this one: a role line is printed
        # before its line, so the last start-up's ``own`` part holds none)
        before = max(text.rfind(MARKER, 0, start), text.rfind(DICT_MARKER, 0, start))
        _logged_role(out, text[text.find("\n", before) + 1:] if before >= 0 else text,
                     "its line lost the field to a cut")
    return _with_memory(out, text, own)


#: The record of the attention backend SGLang chose when none was given: releases before
#: 0.5 chose it in the model runner, after logging ``attention_backend=None`` in the line
#: ("not set", "not explicitly specified"); later ones choose it before the line, which a
#: cut may have lost ("not specified").
_BACKEND_CHOSEN = re.compile(r"Attention backend not (?:explicitly )?(?:set|specified)\. "
                             r"Use (\w+) backend by default")


def _chosen_backend(out: LoggedArgs, text: str) -> None:
    """The attention backend the log says SGLang chose (the last start-up's record), where
    its line logs none or lost the field to a cut: the backend the launch ran with."""
    found = list(_BACKEND_CHOSEN.finditer(text))
    chosen = found[-1] if found else None
    if chosen is None or ("attention_backend" not in out.values and not out.truncated):
        return
    why = "logs none" if "attention_backend" in out.values else "lost the field to a cut"
    out.values["attention_backend"] = chosen.group(1)
    out.notes.append(f"attention_backend {chosen.group(1)!r}: the backend the log says SGLang "
                     f"chose by default (its line {why})")


#: The records SGLang prints only while resolving a PD-disaggregated server's arguments, by
#: its role: a prefill server's CUDA graphs switched off, a decode server's radix cache
#: forced off (or, asked for, kept: "EXPERIMENTAL: Radix cache is enabled ...").
_ROLE_RECORD = re.compile(r"Cuda graph is disabled for (prefill) server"
                          r"|KV cache is forced as chunk cache for (decode) server"
                          r"|Radix cache is enabled for (decode) server")


def _logged_role(out: LoggedArgs, text: str, why: str) -> None:
    """The PD role (``disaggregation_mode``) SGLang's own records in ``text`` (the start-up
    read) say the server had, taken as the logged value where no line gives it (``why``),
    as those records are printed for that role alone; nothing when they name none or both
    (two servers' logs in one paste)."""
    if "server" not in text or "disaggregation_mode" in out.values:  # the cheap test
        return
    roles = {next(r for r in m.groups() if r) for m in _ROLE_RECORD.finditer(text)}
    if len(roles) != 1:
        return
    role = roles.pop()
    out.values["disaggregation_mode"] = role
    out.notes.append(f"disaggregation_mode {role!r}: the log shows SGLang's record for a PD "
                     f"{role} server ({why}), so that role is planned")


#: A start-up line a poster cut down to the fields they meant, with neither ``ServerArgs(``
#: nor the dict around them: ``server_args ... tp_size=4 ... mem_fraction_static=0.8 ...``.
_ABRIDGED = re.compile(r"^[^\n]*?\bserver_args\s*(?:\.\.\.|\u2026)\s*(\w+=[^\n]*)$",
                       re.MULTILINE)
_ELIDED_GAP = re.compile(r"\s*(?:\.\.\.|\u2026)\s*|,\s+(?=\w+=)")


def _abridged_line(text: str) -> LoggedArgs | None:
    """The last such line's fields (``_ABRIDGED``), each a literal; the rest of the launch
    as a cut-off line's is (the command the log shows, the flags given). None when the log
    has none, or no field of it reads."""
    found = list(_ABRIDGED.finditer(text))
    if not found:
        return None
    match = found[-1]
    start = match.start()
    out = LoggedArgs(line=text.count("\n", 0, start) + 1, truncated=True, form="repr",
                     command=launch_command(text[:start]))
    for piece in _ELIDED_GAP.split(match.group(1)):
        key, value = _item(piece.strip(), "repr")
        if key is None or not value.strip():
            continue
        try:
            out.values[key] = _literal(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            out.unreadable[key] = value.strip()[:80]
    if not out.values:
        return None
    return _with_memory(out, text)


def _with_memory(out: LoggedArgs, text: str, own: str | None = None) -> LoggedArgs:
    """``out`` with what the log says besides the line: the memory records and how far the
    start-up got, read from ``own`` (the start-up the line belongs to; the whole log by
    default), the GPU it names and the memory total SGLang's fallback line reports."""
    own = text if own is None else own
    out.memory = parse_memory(own)
    if out.memory.draft_load_only:
        out.notes.append(f"the only weight load the log shows is the draft's "
                         f"(type={out.memory.draft_load_only}): its figures are not compared "
                         "with the target's weights or free memory")
    if out.memory.pool_made is None and _no_pool_profiled(out, own):
        out.memory = out.memory.replace(pool_made=False)
    if out.command is not None and "$" in out.command[1] \
            and _LIST_KEY.match(out.command[1]) is None:  # (a manifest's are its pod's)
        out.command_context = shell_assignments(text, out.command[0])
    failure, served = _failure_phase(own)
    out.failure = failure or _killed_in_load(out.memory, own)
    if served is not None:
        out.notes.append(f"the log's {served}: the server died serving, not starting up "
                         "(though no ready line precedes it), so no start-up failure is "
                         "reported")
    out.started = out.failure is None and (
        out.memory.pool_made is True or _STARTED.search(own) is not None)
    if " GB" in own:  # the cheap test: a log with no memory figure pays nothing
        out.largest_memory = max(((float(m.group(2)), m.group(1).rstrip(":= "))
                                  for m in _MEMORY_FIGURE.finditer(own)), default=None)
    out.devices = logged_devices(text)
    stated = stated_total(text)
    if stated is not None:
        out.reported_mib, out.reported_by = stated
    out.named_release = named_version([text])
    out.last_stamp = last_stamp(text)
    if "device" not in out.values and _NPU_RECORD.search(text) is not None:
        out.device_named = "npu"
    return out


#: a figure of one device's memory in SGLang's records (its free memory, what loading took,
#: the size of a pool or of its K or V part)
_MEMORY_FIGURE = re.compile(r"((?:SWAKVPool )?(?:avail mem|mem usage|[KV] size)[=:] ?)"
                            r"([0-9]+(?:\.[0-9]+)?) GB")


#: a record's date where it starts (after a log collector's prefix, a bracket): SGLang's
#: ``[2025-08-30 16:40:58 TP0]``, a Python logger's ``2025-03-07 23:50:27,531``, a container
#: runtime's ``2026-09-22T06:49:56.33Z``
_STAMP = re.compile(r"^[^\S\n]*(?:" + _COLLECTOR_PREFIX + r")?[^\S\n]*\[?(20\d\d-[01]\d-[0-3]\d)"
                    r"[ T]\d\d:\d\d", re.MULTILINE)


def last_stamp(text: str) -> str | None:
    """The latest date a record of ``text`` is stamped with (ISO dates order as text)."""
    return max((m.group(1) for m in _STAMP.finditer(text)), default=None)


#: When each modelled release came out: the upload time of its wheels on PyPI (the index's
#: ``upload-time``: 0.5.21 2026-10-01T07:45Z, 0.5.22 2026-10-16T00:25Z, 0.5.23
#: 2026-10-30T01:34Z). A log whose records are all stamped before the first ran an older build.
RELEASE_DATES = {"0.5.21": "2026-10-01", "0.5.22": "2026-10-16", "0.5.23": "2026-10-30"}


def predates(logged: LoggedArgs) -> str | None:
    """The note for a log that names no release while its text shows it ran a build older
    than the releases launchplan models: its records' dates, before the first one came out
    (``RELEASE_DATES``), or, undated, a ``ServerArgs(...)`` repr line (the modelled releases
    log a dict) holding fields none of them has. Such a log is still planned with the
    modelled rules, and what its build did otherwise (defaults, a pool's layout) shows as
    differences and memory errors: the note says where they may come from. None otherwise
    (a release named has its own note)."""
    from launchplan.input.fields import RELEASES, release_table

    if logged.named_release is not None:
        return None
    first = RELEASES[0]
    date = RELEASE_DATES.get(first)
    if logged.last_stamp is not None:
        if date is None or logged.last_stamp >= date:
            return None
        why = f"its records are stamped {logged.last_stamp}, before {first} came out ({date})"
    elif logged.line and logged.form == "repr" and not any(
            all(n in release_table(r).fields for n in logged.values if not n.startswith("_"))
            for r in RELEASES):
        why = ("its server_args line is the ServerArgs(...) repr, not the dict the modelled "
               "releases log, and holds fields none of them has")
    else:
        return None
    return (f"the log predates the releases launchplan models ({first} to {RELEASES[-1]}): "
            f"{why}, and it names no release; its older build may explain defaults and memory "
            "figures that differ from the plan's")


#: records only an Ascend NPU's run prints: its graph capture, its attention backend, its
#: torch extension, its device names
_NPU_RECORD = re.compile(r"\bNPU graph|\bascend|\btorch_npu\b|\bnpu:\d", re.IGNORECASE)


#: signs a process was killed from outside: the shell's ``Killed`` (the kernel's OOM killer
#: sends SIGKILL), and the warning Python's resource tracker prints for the semaphores a
#: killed process left behind
_KILLED = re.compile(r"resource_tracker: There appear to be|^[ \t]*Killed[ \t]*$", re.MULTILINE)
#: records of a weight load under way (SGLang's, and the shard progress bars it draws)
_LOADING = re.compile(r"Load weight begin|loading (?:safetensors checkpoint )?shards",
                      re.IGNORECASE)


def _killed_in_load(memory: LoggedMemory, text: str) -> str | None:
    """A start-up that ends inside its weight load with signs the process was killed (on a
    unified-memory or consumer host, the kernel's out-of-memory killer, which leaves no
    Python error to log); None otherwise."""
    if memory.after_load_gib is not None or memory.pool_made is not None:
        return None
    loading = _LOADING.search(text)
    if loading is None or _KILLED.search(text, loading.end()) is None:
        return None
    return ("killed during the weight load: the log ends there with a bare `Killed` or the "
            "leaked-semaphore warning a killed process leaves, most often the host's "
            "out-of-memory killer's doing")


def _no_pool_profiled(out: LoggedArgs, text: str) -> bool:
    """Whether the log's record of a pool profiled at no tokens is the target's own: the
    launch has no draft (its line says so), or the record follows the first weight load of
    its rank with no second load (a draft's) between them."""
    found = _NONE_PROFILED.search(text)
    if found is None or out.values.get("speculative_algorithm"):
        return False
    if out.line:
        return True
    rank = _rank(text, found.start())
    loads = [m for m in _AFTER.finditer(text, 0, found.start()) if _rank(text, m.start()) == rank]
    return len(loads) == 1


def startup_failure(text: str) -> str | None:
    """The first failure ``_FAILED`` finds before the server serves (``_SERVING``), as
    logged (up to 200 characters), else a traceback whose own frames are a start-up's
    (``_startup_traceback``: those frames are the start-up's wherever they stand, a
    restart's after serving too); None when there is none, or when the failure's own
    traceback shows it died serving (``_failure_phase``)."""
    return _failure_phase(text)[0]


def _failure_phase(text: str) -> tuple[str | None, str | None]:
    """(``startup_failure``'s answer, and when a failure record's own traceback runs through
    the serving loop, what it died of there: a crash report pasted as its command and the
    scheduler's traceback, with no ready line before it, is a crash under load)."""
    failed = _FAILED.search(text)
    if failed is None:
        bare = _startup_traceback(text) or _pool_refused(text)
        if bare is None:
            return None, None
        return (bare[1] if len(bare[1]) <= 200 else bare[1][:199] + "\u2026"), None
    serving = _SERVING.search(text, 0, failed.start())
    if serving is not None:
        return None, None
    found = failed.group(0).strip()
    loop = _serving_frame(text, failed)
    if _cut_header(found, text[failed.end():]):
        head = found[:found.index("exception") + len("exception")]
        found = f"{head} (the log ends its traceback before the error)"
    elif found.endswith("Traceback (most recent call last):"):
        # the process logged its traceback: the error it died of ends it
        raised = _RAISED.search(text, failed.end(), failed.end() + 20000)
        head = found[:found.index("Traceback")].rstrip(": ")
        found = (f"{head}: {raised.group(1).strip()}" if raised is not None
                 else f"{head} (the log ends its traceback before the error)")
    elif found.lower().startswith("received sigquit"):
        # the child's own error, when the log kept it, stands before the launcher's record
        before = list(_RAISED.finditer(text, max(0, failed.start() - 20000), failed.start()))
        if before:
            found = "a child process died: " + before[-1].group(1).strip()
        elif _JOB_KILLED.search(text, failed.end()) is not None:
            found = ("killed: the shell's job line says Killed, a SIGKILL most often from the "
                     "host's out-of-memory killer")
    found = found if len(found) <= 200 else found[:199] + "\u2026"
    if loop is not None:
        return None, f"{found} was raised in the serving loop ({loop})"
    return found, None


#: what may stand before a pool refusal on its line: the error's type (``ValueError: ``)
_ERROR_TYPE = re.compile(r"(?:(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception): )?$")


def _pool_refused(text: str) -> tuple[int, str] | None:
    """SGLang's own refusal to size the pool (``_NOT_ENOUGH``) quoted bare, the wrapper
    record (``Scheduler hit an exception``) not pasted: raised while the pool is sized, so
    it ends the start-up wherever it is quoted; None without one, or after serving began."""
    refused = _NOT_ENOUGH.search(text)
    if refused is None or _SERVING.search(text, 0, refused.start()) is not None:
        return None
    start = text.rfind("\n", 0, refused.start()) + 1
    end = text.find("\n", refused.end())
    line = text[start:len(text) if end < 0 else end]
    if end >= 0 and not line.rstrip().endswith("."):  # wrapped by whoever quoted it
        after = text.find("\n", end + 1)
        rest = text[end + 1:len(text) if after < 0 else after].strip()
        if rest.endswith(".") and len(rest) < 80:  # (the sentence's end, not a record)
            line += " " + rest
    typed = _ERROR_TYPE.search(line, 0, refused.start() - start)
    return refused.start(), line[typed.start() if typed else refused.start() - start:].strip()


def _serving_frame(text: str, failed: re.Match[str]) -> str | None:
    """Where the traceback of the failure ``failed`` matched first runs into the serving loop
    (``_frame_kind``, outermost first, the calls its source lines make counted), or None when
    a start-up frame comes first, it shows neither, or there is no traceback of its own: the
    one a wrapper record (``Scheduler hit an exception: Traceback ...``) opens on its line or
    the next, or the one an error line (torch's out-of-memory) ends."""
    line_end = text.find("\n", failed.end())
    next_end = text.find("\n", line_end + 1) if line_end >= 0 else -1
    header = text.find(_TRACEBACK, failed.start(), len(text) if next_end < 0 else next_end)
    if header < 0:  # the error line a traceback ends in: that traceback's own frames
        last = max(_tracebacks(text, failed.start()), default=None)  # (in order: the last)
        if last is None:
            return None
        frames, error, end = _traceback_at(text, last[1], calls=True)
        if error is None or end < failed.start():  # (another traceback, ended before it)
            return None
    else:
        frames, _, _ = _traceback_at(text, header + len(_TRACEBACK), calls=True)
    first = next((f for f in frames if _frame_kind(f)), None)
    if first is None or _frame_kind(first) != "serving":
        return None
    return f"{first[0]}.py {first[1]}" if first[0] else f"{first[1]}()"


#: A Python traceback's first line; its frames follow, indented, then the error line.
_TRACEBACK = "Traceback (most recent call last):"


def _cut_header(found: str, after: str) -> bool:
    """Whether a process's ``... hit an exception:`` record ends the text inside the header
    of the traceback it logs (``: T``, ``: Traceback (most rec``, nothing after the colon):
    a search excerpt or a paste cut at any character, the error not in it. The whole
    header is the caller's other case."""
    if after.strip() or "hit an exception" not in found:
        return False
    rest = found[found.index("hit an exception") + len("hit an exception"):]
    if not rest.startswith(":"):
        return False
    rest = rest[1:].strip()
    return len(rest) < len(_TRACEBACK) and _TRACEBACK.startswith(rest)


#: why a text with a traceback is still no start-up's failure
_TRACEBACK_NOT_STARTUP = ("its traceback runs through no start-up of SGLang's: none of the "
                          "scheduler's, a model worker's or the model runner's construction, "
                          "the launcher's starting of its processes or its warm-up")
#: a frame of a traceback in one of SGLang's runtime files: the file's name, the function
_SGLANG_FRAME = re.compile(r'File "[^"\n]*?sglang[/\\]srt[/\\](?:[^"\n]*[/\\])?(\w+)\.py", '
                           r"line \d+, in ([\w<>]+)")
#: SGLang's runtime parts whose construction is the start-up (the scheduler, its model
#: workers, speculative workers, the model runner, CUDA-graph runners, the data-parallel
#: controller, the tokenizer and detokenizer managers, the offline engine): a traceback
#: through one of their ``__init__`` died starting up, as does one through the model
#: runner's ``initialize`` or the launcher's starting of its processes and its warm-up.
_STARTUP_FILE = re.compile(r"scheduler\w*|\w*worker\w*|model_runner|\w*cuda_graph_runner"
                           r"|data_parallel_controller|(?:de)?tokenizer_manager|engine")
_STARTUP_CALL = re.compile(r"_launch_subprocesses|_launch_scheduler_processes|launch_engine"
                           r"|_wait_and_warmup|_execute_server_warmup")
#: functions of the serving loop and of request handling (the scheduler's event loops, its
#: requests' intake, a batch's run and result; the HTTP and OpenAI entry points, the
#: tokenizer manager's): a traceback through one died serving, even where it goes on into a
#: constructor (a request's own, a graph recaptured)
_SERVING_CALL = re.compile(r"event_loop\w*|run_event_loop|process_input_requests"
                           r"|handle_\w*request\w*|run_batch|forward_thread_func\w*"
                           r"|handle_loop|process_batch_result\w*|generate_request"
                           r"|_handle_batch_output|\w*completions\w*")


def _startup_traceback(text: str) -> tuple[int, str] | None:
    """The first traceback in ``text`` whose frames show a start-up dying (``_STARTUP_FILE``,
    ``_STARTUP_CALL``; the outermost frame of either kind decides, since Python prints the
    outermost first), where its header starts and how it is named: its error line, or that
    the paste ends it before one. Many pasted logs start at the traceback, the wrapper record
    SGLang logs it in (``Scheduler hit an exception:``) left on the line above."""
    for at, after in _tracebacks(text):
        frames, error, end = _traceback_at(text, after)
        decided = next((kind for kind in map(_frame_kind, frames) if kind), None)
        if decided == "start-up":
            first = next(f for f in frames if _frame_kind(f) == "start-up")
            head = f"a traceback through {first[0]}.py {first[1]}"
            if frames[-1] != first:
                head += f" ... {frames[-1][0]}.py {frames[-1][1]}"
            return at, (f"{head}: {error}" if error is not None
                        else f"{head}, which the log ends before its error")
    return None


#: a traceback's frame line (after a container's stamp or a collector's prefix, which
#: ``_traceback_at`` strips): ``  File "/sglang/srt/managers/scheduler.py", line 66, in f``
_FRAME_LINE = re.compile(r'^[^\n]*?[ \t]File "[^"\n]+", line \d+, in \S', re.MULTILINE)


def _tracebacks(text: str, stop: int | None = None) -> Iterator[tuple[int, int]]:
    """The tracebacks of ``text`` (those starting before ``stop``) in order: where each
    starts and the position ``_traceback_at`` reads its frames after. One starts at its
    header, or, where a paste lost the header (an excerpt, a scrolled-back terminal, a
    "continued" slice that begins mid-traceback), at a frame line no frame or code line of
    a traceback stands above: the frames alone show what a traceback shows."""
    stop = len(text) if stop is None else stop
    frameless = 'File "' not in text  # the cheap test: no frame line, only headers count
    at = 0
    frame: int | None = None  # the next headless frame found, kept while it is ahead
    while at < stop:
        header = text.find(_TRACEBACK, at, stop)
        if not frameless and (frame is None or frame < at):
            frame = _headless_frame(text, at, stop)
            frameless = frame is None  # (none from here on: never looked for again)
        if frame is not None and (header < 0 or frame < header):
            yield frame, frame - 1
            at = _traceback_at(text, frame - 1)[2]
        elif header >= 0:
            yield header, header + len(_TRACEBACK)
            at = _traceback_at(text, header + len(_TRACEBACK))[2]
        else:
            return
        at += 1  # (past the line that ended the traceback read)


def _headless_frame(text: str, at: int, stop: int) -> int | None:
    """Where the first frame line from ``at`` starts that opens a traceback of its own: the
    indented lines above it (a command's continuation lines, say) hold no frame, and the
    line above them is no traceback's header."""
    word = text.find('File "', at, stop)
    while word >= 0:  # (found by its words first: a log's other lines cost nothing)
        start = text.rfind("\n", 0, word) + 1
        found = _FRAME_LINE.match(text, start) if start >= at else None
        word = text.find('File "', word + 6, stop)
        if found is None or not _line_body(text[start:found.end()])[:1].isspace():
            continue  # (a sentence quoting a frame, not one)
        end = start - 1
        for _ in range(200):  # (a traceback's frames and code lines: far fewer)
            if end < 0:
                return start
            body = _line_body(text[text.rfind("\n", 0, end) + 1:end])
            if not body.strip():
                return start
            if not body[:1].isspace():
                if body.rstrip().endswith(_TRACEBACK):
                    break
                return start
            if body.lstrip().startswith('File "'):
                break  # a frame above: this one is in its traceback
            end = text.rfind("\n", 0, end)
    return None


def _line_body(line: str) -> str:
    """``line`` without a container's stamp or a log collector's prefix (``_LINE_LEAD``)."""
    lead = _LINE_LEAD.match(line)
    return line[lead.end():] if lead is not None else line


def _frame_kind(frame: tuple[str, str]) -> str | None:
    """``start-up``, ``serving`` or None (a frame that says neither) for an SGLang frame."""
    module, function = frame
    if _SERVING_CALL.fullmatch(function):
        return "serving"
    if _STARTUP_CALL.fullmatch(function) or (module, function) == ("model_runner", "initialize") \
            or (function == "__init__" and _STARTUP_FILE.fullmatch(module)):
        return "start-up"
    return None


def _traceback_at(text: str, at: int, calls: bool = False
                  ) -> tuple[list[tuple[str, str]], str | None, int]:
    """The traceback whose header ends at ``at``: its SGLang frames (file name, function),
    outermost first; its error line, None when the paste ends or goes on with something else
    first (a blank line, a log record); and where it ends. Frames and code are indented; the
    first line that is not ends the traceback, the error when it reads as one. With
    ``calls``, the call the source line under an SGLang frame makes counts as the frame it
    leads to (``_called``), so a traceback cut after its first frame still shows its way."""
    pos = text.find("\n", at) if at >= 0 else -1  # (-1: the frames start the text)
    frames: list[tuple[str, str]] = []
    under = False  # the line before was an SGLang frame: this one is its source line
    while (0 <= pos or at < 0) and pos < len(text) - 1:
        at = 0  # (the first line read: from here on ``pos`` is a line's end)
        end = text.find("\n", pos + 1)
        end = len(text) if end < 0 else end
        line = text[pos + 1:end].rstrip("\r")
        lead = _LINE_LEAD.match(line)
        body = line[lead.end():] if lead is not None else line
        if not body.strip():
            return frames, None, end
        if body[0] not in " \t":
            raised = _RAISED.match(body)
            return frames, raised.group(1).strip() if raised else None, end
        frame = _SGLANG_FRAME.search(body)
        if frame is not None:
            frames.append((frame.group(1), frame.group(2)))
        elif calls and under and (called := _called(body)) is not None:
            frames.append(called)
        under = frame is not None
        pos = end
    return frames, None, len(text)


#: the call a traceback's source line makes (Python prints the line under its frame):
#: ``scheduler.event_loop_pp()``, ``scheduler = Scheduler(``, ``result = self.run_batch(b)``
_CALL = re.compile(r"(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)[ \t]*\(")


def _called(code: str) -> tuple[str, str] | None:
    """The frame the first call of a source line leads to: a class's construction as its
    module's ``__init__`` (``Scheduler(`` as scheduler.py's, ``TpModelWorker(`` as
    tp_model_worker's: SGLang names its files after its classes), a function by its name
    alone (no file); None for a line without a call."""
    found = _CALL.search(code)
    if found is None:
        return None
    name = found.group(1)
    if name[:1].isupper():
        return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower(), "__init__"
    return "", name


#: the status line bash prints for a job a signal ended, after all its output:
#: ``./serve.sh: line 28:  8891 Killed                  python3 -m sglang.launch_server ...``
_JOB_KILLED = re.compile(r"^[^\n]*\bline \d+:[ \t]+\d+[ \t]+Killed[ \t]", re.MULTILINE)


#: SGLang's line when nvidia-smi reports no memory total and torch's figure stands in:
#: ``... Reported total GPU memory per device (MiB): [124546], using min: 124546 MiB.``
_REPORTED_TOTAL = re.compile(r"Reported total GPU memory per device \(MiB\): \[([\d,\s]+)\]")
#: torch's out-of-memory message, which states the device's size: ``GPU 3 has a total
#: capacity of 79.10 GiB of which ...`` (torch 2), ``(GPU 0; 15.78 GiB total capacity; ...``
#: (torch 1)
_TORCH_TOTAL = re.compile(r"GPU \d+ has a total capacity of ([0-9]+(?:\.[0-9]+)?) ([GM])iB"
                          r"|\(GPU \d+; ([0-9]+(?:\.[0-9]+)?) ([GM])iB total capacity")
#: what states each kind of total, as the notes name it
SGLANG_TOTAL = "SGLang's per-GPU total line"
SMI_TOTAL = "nvidia-smi's table"
TORCH_TOTAL = "torch's out-of-memory message"


def reported_total_mib(text: str) -> int | None:
    """The least per-GPU total (MiB) SGLang's fallback line reports, the last such line's;
    None without one. A log that names no device may still say this much of its GPU."""
    found = _REPORTED_TOTAL.findall(text)
    figures = [int(n) for n in re.findall(r"\d+", found[-1])] if found else []
    return min(figures) if figures else None


def stated_total(text: str) -> tuple[int, str] | None:
    """The per-GPU total (MiB) the log states, and what states it: SGLang's fallback line,
    else the totals of an ``nvidia-smi`` table pasted with it (the least), else torch's
    out-of-memory message (the last; to its two decimals). None when nothing states one:
    a log that names no device, or one no target describes, still says this much of it."""
    total = reported_total_mib(text)
    if total is not None:
        return total, SGLANG_TOTAL
    if "MiB |" in text:  # the cheap test: a table's memory column
        from launchplan.input.gpu_request import smi_table_gpus

        totals = [mib for _, mib in smi_table_gpus(text) if mib]
        if totals:
            return min(totals), SMI_TOTAL
    if "total capacity" in text:
        found = list(_TORCH_TOTAL.finditer(text))
        if found:
            figure, unit = found[-1].group(1, 2) if found[-1].group(1) else found[-1].group(3, 4)
            return round(float(figure) * (1024 if unit == "G" else 1)), TORCH_TOTAL
    return None


#: Where a log names its GPU: the file name of a tuned kernel configuration SGLang loads or
#: misses (``.../E=256,N=256,device_name=NVIDIA_H20,dtype=fp8_w8a8,...json``: the device name
#: CUDA reports, spaces made underscores), ``python -m sglang.check_env``'s or
#: ``nvidia-smi -L``'s GPU line pasted beside it (``GPU 0,1,2,3: NVIDIA H200``), and the rows
#: of an ``nvidia-smi`` table pasted above it (read as the pasted-text reader reads them).
_KERNEL_CONFIG_DEVICE = re.compile(r"device_name=([^,/\s\]\[]+)")
_GPU_LINE = re.compile(r"^\s*GPU [0-9][0-9, ]*:\s*(\S[^(\n]*?)\s*(?:\(UUID:[^)\n]*\)\s*)?$",
                       re.MULTILINE)


def logged_devices(text: str) -> list[str]:
    """The distinct GPU device names ``text`` prints, in CUDA's spelling (``NVIDIA H100 80GB
    HBM3``), first seen first."""
    names = [m.group(1).removesuffix(".json").replace("_", " ")
             for m in _KERNEL_CONFIG_DEVICE.finditer(text)]
    names += [m.group(1) for m in _GPU_LINE.finditer(text)]
    if "MiB |" in text or "Off |" in text or "On |" in text:  # the cheap test: a table's
        # memory column, or its persistence mode before the bus id
        from launchplan.input.gpu_request import smi_table_gpus

        names += [_untruncated(name, names) for name, _ in smi_table_gpus(text)]
    return list(dict.fromkeys(name for name in names if name.strip()))


def _untruncated(name: str, names: list[str]) -> str:
    """A device name as an ``nvidia-smi`` table gives it, made whole: the table cuts a long
    one to its column with ``...`` (``NVIDIA RTX 6000 Ada Gene...``), so the one name the log
    prints elsewhere, or else the one catalog device, that it starts is the device; the name
    as cut when none or several are."""
    stem = name.removesuffix("...")
    if stem == name:
        return name
    from launchplan.facts.targets import CATALOG

    whole = {n for n in names if n.startswith(stem)} or {
        t.device_name for t in CATALOG.values() if t.device_name and t.device_name.startswith(stem)}
    return whole.pop() if len(whole) == 1 else name


#: A Markdown blockquote's markers before a line: ``> `` (a reply quoting a log), ``>> ``...
_QUOTE = re.compile(r"[ \t]*((?:>[ \t]?)+)")


def _quote_depth(before: str) -> int:
    """How many blockquote markers open the line ``before`` begins (0 outside a quote)."""
    match = _QUOTE.match(before)
    return match.group(1).count(">") if match else 0


def _joined(rest: str, depth: int = 0) -> str:
    """The start-up line from its marker on, its wrapped pieces joined back (a terminal or a
    web page breaks the one long line, often mid-name). A line that ends the paste's run of
    pieces is not joined: a blank line, a new timestamped log record, a code fence. So a line
    cut off by the paste stops there, and the records after it (``Load weight end. ...,
    dtype=...``, the scheduler's ``chunked_prefill_size=..., max_running_requests=...``) are
    not read as its fields. Inside a blockquote (``depth`` markers: a reply quoting the log)
    each piece is read without its markers (a piece without them continues the quote, as
    Markdown reads it), so the next quoted record still ends the line."""
    first, *following = rest.split("\n")
    pieces = [first.rstrip("\r")]
    for raw in following:
        piece = raw.rstrip("\r")
        if depth:  # a quoted piece, or one of Markdown's lazy continuation lines
            match = _QUOTE.match(piece)
            piece = piece[match.end():] if match else piece
        if not piece.strip() or _RECORD_START.match(piece):
            break
        pieces.append(piece.lstrip(" \t"))
    return "".join(pieces)


def _item(segment: str, form: str) -> tuple[str | None, str]:
    """A ``name=value`` (repr) or ``'name': value`` (dict) piece as its name and value text;
    no name when the piece is not one."""
    if form == "dict":
        match = _DICT_ITEM.match(segment)
        return (match.group(2), match.group(3)) if match else (None, "")
    name, eq, value = segment.partition("=")
    key = name.strip()
    return (key, value) if eq and key.isidentifier() else (None, "")


#: ``...`` or ``\u2026`` where a poster left fields out, before a field of the same piece
#: (``... tp_size=2``, ``...tp_size=2``; ``..., tp_size=2`` is a piece of its own) or after it
#: (``tp_size=2 ...)``)
_LEADING_ELISION = re.compile(r"\s*(?:\.\.\.|\u2026)(?=\s|$|[A-Za-z_'\"])")
_TRAILING_ELISION = re.compile(r"(?<=\s)(?:\.\.\.|\u2026)\s*$")


def _unabridged(segment: str) -> tuple[str, bool]:
    """A piece without the elision a poster wrote before or after it, and whether there was
    one: ``... context_length=8192`` is the field ``context_length``, fields left out before
    it (read as a separate piece, the field would be lost without a word)."""
    abridged = False
    match = _LEADING_ELISION.match(segment)
    if match:
        segment, abridged = segment[match.end():], True
    match = _TRAILING_ELISION.search(segment)
    if match:
        segment, abridged = segment[:match.start()], True
    return segment, abridged


def _self_delimited(value: str) -> bool:
    """Whether a value's text shows where it ends: a closing quote or bracket. Where a cut-off
    line stops, only such a value is known whole; a bare token (a number, ``True``, ``None``)
    may have lost its tail to the cut."""
    return value.rstrip().endswith(("'", '"', ")", "]", "}"))


def _set_aside_reports(out: LoggedArgs) -> None:
    """The dict's ``enable_dp_attention`` is ``attn_dp_size > 1`` where the release has
    ``attn_dp_size`` (0.5.22 on; in 0.5.21's dict it is still the field): not compared."""
    width = out.values.get("attn_dp_size")
    if isinstance(width, int) and out.values.get("enable_dp_attention") == (width > 1):
        out.set_aside["enable_dp_attention"] = out.values.pop("enable_dp_attention")


def _literal(text: str) -> Any:
    """A Python literal, or one of ``RECORDS`` as a dict of its (literal) keyword arguments."""
    if not any(text.startswith(name + "(") for name in RECORDS):
        return ast.literal_eval(text)
    return _record(ast.parse(text, mode="eval").body)


def _record(node: ast.expr) -> Any:
    if isinstance(node, ast.Call):
        if not (isinstance(node.func, ast.Name) and node.func.id in RECORDS) or node.args:
            raise ValueError("not a record launchplan reads")
        return {kw.arg: _record(kw.value) for kw in node.keywords if kw.arg}
    return ast.literal_eval(node)


_NUMBER = r"([0-9]+(?:\.[0-9]+)?)"
_BEFORE = re.compile(r"Load weight begin\. avail mem=" + _NUMBER + " GB")
#: (a page or terminal may wrap the long record of 2026 builds before ``avail mem=``)
_AFTER = re.compile(r"Load weight end\.(?:[^\n]|\n(?=[ \t]*avail mem=))*?avail mem="
                    + _NUMBER + r" GB(?:, mem usage=" + _NUMBER + " GB)?")
#: the model class a weight load names when it is a speculative draft's (EAGLE and EAGLE3
#: heads, NextN/MTP layers, DFlash and DSpark drafters): ``type=LlamaForCausalLMEagle3``
_DRAFT_LOAD = re.compile(r"type=(\w*?(?:Eagle3?|NextN|MTP|DFlash\w*|DSpark\w*|Draft\w*))\b")
#: a record's rank tags (``TP1``, ``DP0 TP0``, ``TP0 EP0``...) before its message
_RANK = re.compile(r"\b(?:DP|TP|PP|EP|CP)[0-9]+\b")
#: The scheduler's summary record, from its first field: ``max_total_num_tokens=N, ...,
#: max_running_requests=N, context_len=N, ...``. Read field by field (``_scheduler``): a
#: paste cuts it, a page wraps it after a comma, a fork prints fewer fields, and a journal
#: quotes ``grep -o``'s ``max_total_num_tokens=N`` alone; a number the line ends in is taken
#: whole, as no record prints anything after it (nor one a JSON export's quote closes:
#: Cloud Logging's ``textPayload``, CloudWatch's ``@message``).
_SCHEDULER = re.compile(r"max_total_num_tokens=([0-9]+)(?=,|\"|[ \t]*(?:\n|$))")
_SUMMARY_FIELDS = re.compile(
    r"\b(max_running_requests|context_len)=([0-9]+)(?=,|\"|[ \t]*(?:\n|$))")
#: SGLang's cap on the requests a hybrid model's state slots hold (0.5.23), printed before
#: the summary: the requests it logs when the summary is not in the paste
_MAMBA_CAP = re.compile(r"max_running_requests is capped to ([0-9]+) by the mamba state cache")
_ALLOCATED = re.compile(r"(?:KV|Cache) is allocated\.[^\n]*?#tokens: ([0-9]+)")
#: The hybrid sliding-window pool's split (every release since 0.4): the full layers' tokens
#: are max_total_num_tokens; the unlabelled "KV Cache is allocated" line after it, in the
#: releases before the Full/SWA labels, is the SWA layers' pool.
_SWA_SPLIT = re.compile(r"Use sliding window memory pool\.[^\n]*?full_layer_tokens=([0-9]+)")
#: the labelled full pool of the releases that label the hybrid pools' lines
_FULL_ALLOCATED = re.compile(r"Full KV Cache is allocated\.[^\n]*?#tokens: ([0-9]+)")
#: the hybrid sliding-window pool's own line, after its two allocations (every 0.5 release):
#: its full size is the full layers' pool, SGLang's max_total_num_tokens
_SWA_POOL = re.compile(r"SWAKVPool (?:mem usage|VA upper bound):[^\n]*?full size: ([0-9]+)")
#: Under SGLang's post-capture KV sizing (0.5.23, opt-in) the pool lines before the graph
#: capture state a reserved upper bound ("VA upper bound"); these lines, after it, state
#: the pool kept: its tokens, and a hybrid sliding-window model's split.
_POST_CAPTURE = re.compile(r"Post-capture KV sizing: KV cache allocated\.[^\n]*?#tokens: ([0-9]+)")
_POST_CAPTURE_SPLIT = re.compile(r"Post-capture KV sizing: full_layer_tokens=([0-9]+), "
                                 r"swa_layer_tokens=([0-9]+)")
_MAMBA = re.compile(r"Mamba Cache is allocated\.[^\n]*?max_mamba_cache_size: ([0-9]+)")
_SWA_TOKENS = re.compile(r"swa_layer_tokens=([0-9]+)|swa size: ([0-9]+)")
#: DeepSeek-V4's pools, once as profiled and, under --max-total-tokens, again as capped
_DSV4_POOLS = re.compile(r"DSV4 pool sizes: full=([0-9]+), swa=([0-9]+), c4=([0-9]+), "
                         r"c128=([0-9]+)")
#: a --max-total-tokens above the pool SGLang profiled: the profiled one is used (an older
#: release's draft worker printed it too, with a negative value that sizes nothing)
_PROFILED = re.compile(r"max_total_tokens=[0-9]+ is larger than the profiled value ([0-9]+)")
#: the same record with no tokens profiled (zero or negative): an older release's draft
#: worker printed it beside the target's pool; in a launch without a draft, the weights left
#: the pool nothing, and SGLang stops next ("Not enough memory")
_NONE_PROFILED = re.compile(r"is larger than the profiled value (?:-[0-9]+|0)\b")
#: SGLang's errors when the loaded weights leave the pool no memory: every release's "Not
#: enough memory" (the pool sized to no tokens), and the KV-cache configurator's earlier
#: refusal (0.5.23), raised when what is left after loading is already gone
#: A hybrid (mamba / linear-attention) model's two refusals (0.5.23's KV-cache configurator):
#: no memory left for a single state slot, and slots too few for one request.
_NOT_ENOUGH = re.compile(r"Not enough memory\. Please try to increase --mem-fraction-static"
                         r"|Loaded weights leave no GPU memory for the KV cache"
                         r"|Not enough GPU memory for hybrid \(mamba/linear-attention\) state cache"
                         r"|state cache is too small to serve any requests")


#: what the memory records say, any of which a terminal may cut at its width
_MEMORY_WORDS = re.compile(r"Load weight|avail mem|is allocated|#tokens|max_total_num_tokens"
                           r"|SWAKVPool|DSV4 pool|sliding window memory|Post-capture"
                           r"|Mamba Cache|max_mamba_cache_size")


#: a line that opens a record of its own though no timestamp leads it: a bracketed tag
#: (``[TP0]``, ``[t DP3 TP3]``) or the first words of a memory record
_OWN_RECORD = re.compile(r"[ \t]*(?:\[[^\]\n]{1,60}\]|(?:Load weight|KV Cache|Full KV|SWA KV"
                         r"|max_total_num_tokens|Mamba Cache|Memory pool|Use sliding window"
                         r"|SWAKVPool|DSV4 pool|Post-capture|Capture)\b)")


def _rows_joined(text: str) -> str:
    """``text`` with the memory records a terminal wrapped at its width made whole again.

    A terminal breaks a long record where its width ends, in the middle of a number as
    often as between words, and a copy of it keeps the break: ``#tokens: 16647`` / ``75, K
    size...`` would read 16,647 tokens. A row goes on in the next line when that line
    starts no record of its own and either the row is as wide as the terminal (the width
    two or more rows of the text fill; a copy drops the space a row ended in, which is put
    back; no line of the text is longer) or a number runs across the break. Only records
    that say something of memory are joined."""
    if "\n" not in text or _MEMORY_WORDS.search(text) is None:
        return text
    lines = text.split("\n")
    goes_on = [bool(n.strip()) and _RECORD_START.match(n) is None
               and _OWN_RECORD.match(n) is None for n in lines[1:]] + [False]
    filled: dict[int, int] = {}
    for line, more in zip(lines, goes_on):
        if more and len(line) >= _MIN_ROW:
            filled[len(line)] = filled.get(len(line), 0) + 1
    width = max((w for w, count in filled.items() if count >= 2), default=0)
    if width and max(map(len, lines)) > width:
        width = 0  # a line longer than the rows: no terminal's width
    out: list[str] = []
    i = 0
    while i < len(lines):
        record = row = lines[i]
        while goes_on[i] and len(row) >= _MIN_ROW and (
                width - 1 <= len(row) <= width
                or (row[-1].isdigit() and lines[i + 1][:1].isdigit())) \
                and _MEMORY_WORDS.search(record + lines[i + 1]) is not None:
            i += 1
            record += (" " if len(row) == width - 1 else "") + lines[i]
            row = lines[i]
        out.append(record)
        i += 1
    return "\n".join(out)


def parse_memory(text: str) -> LoggedMemory:
    """The memory lines of a start-up log, wherever they stand (a log prefix, a rank tag
    and other lines between them are fine, and so is a terminal's wrap: ``_rows_joined``);
    the first of each kind counts, taken from the rank SGLang sizes the pool by when
    several ranks print them (``_sizing_rank``)."""
    text = _rows_joined(text)
    before, after = _sizing_rank(text)
    draft = _DRAFT_LOAD.search(after.group(0)) if after is not None else None
    if after is not None and draft is not None:
        # the first weight load the log shows is a speculative draft's (SGLang loads the
        # target first): a begin record is the target's only when the draft's own follows it
        rank = _rank(text, after.start())
        begins = [b for b in _BEFORE.finditer(text, 0, after.start())
                  if _rank(text, b.start()) == rank]
        before = begins[0] if len(begins) >= 2 else None
        after = None
    more = _later_loads_gib(text, after) if after else 0.0
    scheduler = _SCHEDULER.search(text)
    summary = _summary(text, scheduler)
    split = _split_before_pool(text)
    dsv4 = _dsv4_pools(text)
    kept_split = _POST_CAPTURE_SPLIT.search(text)
    allocated = _POST_CAPTURE.search(text) or kept_split or _FULL_ALLOCATED.search(text) \
        or split or _SWA_POOL.search(text) or dsv4 or _ALLOCATED.search(text) \
        or _PROFILED.search(text)
    tokens = scheduler.group(1) if scheduler else allocated.group(1) if allocated else None
    pool_made = True if tokens else False if _NOT_ENOUGH.search(text) else None
    mamba = _MAMBA.search(text)
    pools: dict[str, int] = {}
    stated = split or _SWA_POOL.search(text)  # the line stating the SWA pool beside it
    swa = _SWA_TOKENS.search(_line_at(text, stated.start())) if stated else None
    if kept_split is not None and int(kept_split.group(2)):
        pools["swa_max_total_num_tokens"] = int(kept_split.group(2))
    elif swa is not None:
        pools["swa_max_total_num_tokens"] = int(swa.group(1) or swa.group(2))
    if dsv4 is not None:
        pools.update(zip(("swa_max_total_num_tokens", "c4_max_total_num_tokens",
                          "c128_max_total_num_tokens"), map(int, dsv4.groups()[1:])))
    one = _one_pool(text) if allocated is not None and allocated.re is _ALLOCATED \
        and not pools else None
    return LoggedMemory(
        before_load_gib=float(before.group(1)) if before else None,
        after_load_gib=float(after.group(1)) if after else None,
        weights_gib=float(after.group(2)) if after and after.group(2) else None,
        more_weights_gib=more,
        max_total_num_tokens=int(tokens) if tokens else None,
        max_running_requests=summary.get("max_running_requests"),
        context_len=summary.get("context_len"),
        pool_made=pool_made,
        max_mamba_cache_size=int(mamba.group(1)) if mamba else None, pools=pools,
        draft_load_only=draft.group(1) if draft is not None else None,
        one_pool_tokens=int(one.group(1)) if one else None,
        one_pool_gib=float(one.group(2)) + float(one.group(3)) if one else None)


#: the pool line with its sizes: ``KV Cache is allocated. #tokens: 1179579, K size: 27.00 GB,
#: V size: 27.00 GB`` (unlabelled: a labelled "Full"/"SWA" line is one of a hybrid's pools)
_POOL_SIZES = re.compile(r"(?<!Full )(?<!SWA )KV Cache is allocated\.[^\n]*?#tokens: ([0-9]+), "
                         r"K size: ([0-9]+(?:\.[0-9]+)?) GB, V size: ([0-9]+(?:\.[0-9]+)?) GB")
#: what a hybrid sliding-window pool prints beside its allocations, in any release
_HYBRID_POOL_WORDS = re.compile(r"sliding window memory pool|SWAKVPool|(?:Full|SWA) KV Cache"
                                r"|swa_layer_tokens|swa size:")


def _one_pool(text: str) -> re.Match[str] | None:
    """The pool line of a log that shows its KV pool as one (``LoggedMemory.one_pool_gib``):
    the first with its sizes, when no line of a hybrid pool stands anywhere in the log."""
    if _HYBRID_POOL_WORDS.search(text) is not None:
        return None
    return _POOL_SIZES.search(text)


def _summary(text: str, scheduler: re.Match[str] | None) -> dict[str, int]:
    """The scheduler summary's request limit and context length: the fields of its record
    (its line, and the next when a page wrapped it after a comma); else, for the requests,
    the cap a hybrid model's state slots put on them."""
    out: dict[str, int] = {}
    if scheduler is not None:
        end = text.find("\n", scheduler.end())
        end = len(text) if end < 0 else end
        if text[:end].rstrip().endswith(","):  # wrapped: the record goes on below
            following = text.find("\n", end + 1)
            end = len(text) if following < 0 else following
        out = {m.group(1): int(m.group(2))
               for m in _SUMMARY_FIELDS.finditer(text, scheduler.end(), end)}
    if "max_running_requests" not in out and (cap := _MAMBA_CAP.search(text)) is not None:
        out["max_running_requests"] = int(cap.group(1))
    return out


def _line_at(text: str, at: int) -> str:
    end = text.find("\n", at)
    return text[text.rfind("\n", 0, at) + 1:end if end >= 0 else len(text)]


def _dsv4_pools(text: str) -> re.Match[str] | None:
    """DeepSeek-V4's pools as sized: the last line of the rank that printed first (each
    rank prints the profiled pools, then, under a cap, the capped ones)."""
    first = _DSV4_POOLS.search(text)
    if first is None:
        return None
    rank = _rank(text, first.start())
    last = first
    for match in _DSV4_POOLS.finditer(text, first.end()):
        if _rank(text, match.start()) == rank:
            last = match
    return last


def _split_before_pool(text: str) -> re.Match[str] | None:
    """The hybrid sliding-window split that sized the pool: the last before the first
    allocation (under ``--max-total-tokens`` 0.5.23 prints the profiled split, then the
    capped one), the last of all when the log ends before the allocation; the first when
    none stands before it."""
    allocation = _ALLOCATED.search(text)
    stop = allocation.start() if allocation else len(text)
    splits = list(_SWA_SPLIT.finditer(text, 0, stop))
    return splits[-1] if splits else _SWA_SPLIT.search(text)


def _first_memory_record(text: str) -> int:
    """Where the log's first memory record starts (the end when it has none): a command
    after it launched another run, so only what stands before its line is this run's."""
    found = [m.start() for m in (p.search(text) for p in
                                 (_BEFORE, _AFTER, _ALLOCATED, _SCHEDULER, _NOT_ENOUGH,
                                  _SWA_SPLIT, _SWA_POOL, _MAMBA, _DSV4_POOLS,
                                  _POST_CAPTURE_SPLIT, _POST_CAPTURE)) if m]
    return min(found) if found else len(text)


def _later_launch(text: str, start: int) -> tuple[tuple[int, str] | None, str] | None:
    """A launch command the text shows only after its first memory record (on the line at
    ``start``) and the note saying how it was taken: as the records' launch when it is the
    text's one launch, no memory record follows it and it stands in a block of its own (a
    blank line or a fence between: an issue's "I saw this: <its line>" above "launched
    with: <command>"), else named and not read (a command right below a log's records, or
    with records of its own, most often started another run). None when the text shows
    no command after them (the cheap test: no launch word past them)."""
    if _LAUNCH_COMMAND.search(text, start) is None and _BENCHMARK.search(text, start) is None:
        return None
    found = launch_command(text)
    if found is None or text.count("\n", 0, start) + 1 >= found[0]:  # (on their line: said
        return None  # by ``_unread_command``)
    at = _line_start(text, found[0])
    records = text.count("\n", 0, start) + 1
    head = f"the launch command at line {found[0]} comes after the log's memory records (line "
    other = launch_command(text[:at]) is not None
    own = _first_memory_record(text[at:]) < len(text) - at
    apart = _BLOCK_BREAK.search(text, start, at) is not None
    if apart and not other and not own:
        return found, (f"{head}{records}), in a block of its own and the text's only launch: "
                       "read as theirs (give the flags of the logged launch if it started "
                       "another run)")
    why = ("is not the text's only launch" if other else "has memory records of its own "
           "after it" if own else "follows them in the same block, as a next run's does")
    return None, f"{head}{records}): not read as theirs, as it {why}; give their launch's flags"


def _unread_flags(out: LoggedArgs, text: str) -> None:
    """Say so when the text shows a block of SGLang flags that is not read as the launch (it
    stands among or after the log's records, where a next run's would): the plan is then
    the flags given, and the note sends the user to give those."""
    shown = _flags_block(text, anywhere=True)
    if shown is not None:
        flags = shown[1].removeprefix("python -m sglang.launch_server ")
        flags = flags if len(flags) <= 80 else flags[:79] + "\u2026"
        out.notes.append(f"line {shown[0]} shows SGLang flags with no launcher before them "
                         f"({flags}), after the log's first record: not read as its launch; "
                         "give them to plan it")


#: what ends a pasted block: a blank line, a Markdown fence
_BLOCK_BREAK = re.compile(r"\n[ \t]*(?:\n|```|~~~)")


def _line_start(text: str, number: int) -> int:
    """Where the 1-based line ``number`` of ``text`` starts."""
    at = 0
    for _ in range(number - 1):
        at = text.index("\n", at) + 1
    return at


def _unread_command(out: LoggedArgs, text: str, start: int, first: int, what: str) -> None:
    """Say so when the line of the log's ``what`` (from ``start``) shows a launch command
    before that record (at ``first``): a paste whose line breaks were lost, some other way
    than the marks ``_unflattened`` restores (an escaped ``\\n``), so its records read but
    its command, not at a line's start, does not."""
    shown = _LAUNCH_COMMAND.search(text, start, first)
    if shown is None or _NOT_A_LAUNCH.search(text, start, first) is not None:
        return
    number = text.count("\n", 0, start) + 1
    out.notes.append(f"line {number} shows an SGLang launch "
                     f"command before the log's {what}, on the same line (a paste that lost "
                     "its line breaks?): not read as the launch")


def _sizing_rank(text: str) -> tuple[re.Match[str] | None, re.Match[str] | None]:
    """The "Load weight begin" and "Load weight end" records of the rank whose free memory
    sizes the pool. Each rank logs its own free memory, while SGLang sizes by the least over
    the ranks (before loading, and again after), and ranks print in no set order: the rank
    with the least free memory before loading (after it, where the log has no begin line)
    gives both records, so a begin and an end are never read off different ranks."""
    first_end = _AFTER.search(text)
    first = _BEFORE.search(text) or first_end
    if first is None:
        return None, None
    # one start-up's records: those before its scheduler line (a later paste is another's)
    done = _SCHEDULER.search(text, first.end())
    stop = done.start() if done else len(text)
    begins: dict[tuple[str, ...], re.Match[str]] = {}
    for match in _BEFORE.finditer(text, 0, stop):
        begins.setdefault(_rank(text, match.start()), match)
    ends: dict[tuple[str, ...], re.Match[str]] = {}
    for match in _AFTER.finditer(text, 0, stop):
        ends.setdefault(_rank(text, match.start()), match)
    if begins:
        rank = min(begins, key=lambda r: float(begins[r].group(1)))
        return begins[rank], ends.get(rank, first_end)
    if ends:
        rank = min(ends, key=lambda r: float(ends[r].group(1)))
        return None, ends[rank]
    return None, first_end


def _rank(text: str, at: int) -> tuple[str, ...]:
    """The rank tags of the record holding position ``at`` (none on a one-GPU log)."""
    start = text.rfind("\n", 0, at) + 1
    return tuple(_RANK.findall(text[start:at]))


def _later_loads_gib(text: str, first: re.Match[str]) -> float:
    """What the first record's rank took in its later weight loads (a draft's, after the
    target's) up to the scheduler's line: each load's logged usage, or (releases that log
    none) the avail mem of its "Load weight begin" minus that of its end. Other ranks print
    the same loads again."""
    rank = _rank(text, first.start())
    # the start-up ends at the scheduler's line: a load after it is another start-up's
    done = _SCHEDULER.search(text, first.end())
    stop = done.start() if done else len(text)
    total = 0.0
    for end in _AFTER.finditer(text, first.end(), stop):
        if _rank(text, end.start()) != rank:
            continue
        if end.group(2):
            total += float(end.group(2))
            continue
        begins = [b for b in _BEFORE.finditer(text, first.end(), end.start())
                  if _rank(text, b.start()) == rank]
        if begins:
            total += float(begins[-1].group(1)) - float(end.group(1))
    return total


def _segments(body: str) -> tuple[list[str], bool]:
    """Top-level ``name=value`` pieces up to the closing parenthesis; whether it was found."""
    pieces: list[str] = []
    depth = 0
    quote = ""
    start = 0
    i = 0
    while i < len(body):
        c = body[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                pieces.append(body[start:i])
                return [p for p in pieces if p.strip()], True
            depth -= 1
        elif c == "," and depth == 0:
            pieces.append(body[start:i])
            start = i + 1
        i += 1
    pieces.append(body[start:])
    return [p for p in pieces if p.strip()], False
