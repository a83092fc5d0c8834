"""The repository's real SGLang start-up logs, damaged one way at a time, each planned once.

``python benchmarks/fuzz_logs.py [--runs 1500] [--seed 1] [--budget 30]`` picks a log of
``tests/input/data/server_logs`` and damages it as pastes and log collectors do, or as a hand
edit might: one logged value replaced (a number out of range, a word, NaN, a deeply nested or
very long literal, an unclosed quote), one ``key=value`` item dropped or written twice, the
``server_args`` line cut off or abridged with an ellipsis, wrapped at a terminal's width,
prefixed with timestamps, coloured with ANSI escapes, written with CRLF endings or an
invalid UTF-8 byte, or one of the memory lines' numbers replaced. It runs ``launchplan
resolve --from-log FILE --format json`` (or ``explain FIELD --from-log FILE``:
``--commands``) on the result in a forked child (with the log's own target and stand-in
model from ``sources.json`` half the time, with neither the other half) and counts what
``fuzz_lines.py`` counts: internal errors, hangs and invalid JSON, each printed with the
damage that caused it.

A log launchplan cannot read should get one line naming what is wrong (exit 2); a log it reads
gets a plan (0) or a refusal (3). Anything else is launchplan's bug.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "tests" / "input" / "data" / "server_logs"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_configs import summary  # noqa: E402
from fuzz_lines import run_one, verdict  # noqa: E402

from launchplan.commands.main import main  # noqa: E402

#: Values written in place of a logged one (Python literals, as a repr would hold them, and
#: text no repr holds).
VALUES = ("None", "0", "-1", "1.5", "-0.0", "'abc'", "''", "True", "nan", "inf", "-inf",
          "float('nan')", "1e309", "9" * 400, "[]", "{}", "()", "'", "\"", "[" * 3000 + "]" * 3000,
          "{'a': " * 500 + "1" + "}" * 500, "<object object at 0x7f3a2c>", "ServerArgs(x=1)",
          "{'a': [1, {'b': None}]}", "1_000", "0x10", "b'x'", "'-1'", "'1e400'", "[None, 'x']",
          "'\\x00'", "Ellipsis", "...", "lambda: 0", "__import__('os')")
#: Replacements of a memory line's number.
NUMBERS = ("-5", "0", "1e400", "99999999999999999999999999", "nan", "abc", "", "1.2.3")
#: an item of the logged record: ``key=`` after ``(`` or ``, `` (repr), or ``'key': `` (dict)
_ITEM = re.compile(r"(?:(?<=\()|(?<=, ))([a-z_][a-z0-9_]*)="
                   r"|(?:(?<=\{)|(?<=, ))'([a-z_][a-z0-9_]*)': ")
_MEMORY_NUMBER = re.compile(r"(?:#tokens: |avail mem=|max_total_num_tokens=|"
                            r"max_running_requests=)([0-9.]+)")


def _items(line: str) -> list[tuple[int, int]]:
    """(value start, value end) of each item of the logged record in ``line``."""
    marks = list(_ITEM.finditer(line))
    close = max(line.rfind(")"), line.rfind("}"))
    out = []
    for n, mark in enumerate(marks):
        start = mark.end()
        end = marks[n + 1].start() - 2 if n + 1 < len(marks) else (
            close if close > start else len(line))
        out.append((start, max(start, end)))
    return out


def _args_line(lines: list[str]) -> int | None:
    for n, line in enumerate(lines):
        if "server_args=" in line:
            return n
    return None


def _logged_items(text: str) -> tuple[list[str], int, list[re.Match[str]]] | None:
    """The log's lines, the start-up line's index and its items' marks (None: no such line)."""
    lines = text.split("\n")
    at = _args_line(lines)
    if at is None:
        return None
    return lines, at, list(_ITEM.finditer(lines[at]))


def replace_value(text: str, rng: random.Random) -> tuple[str, str]:
    lines = text.split("\n")
    at = _args_line(lines)
    if at is None:
        return replace_number(text, rng)
    items = _items(lines[at])
    if not items:
        return text, "no items"
    start, end = rng.choice(items)
    value = rng.choice(VALUES)
    line = lines[at]
    key = line[:start].rstrip("=: '").rsplit(" ", 1)[-1].lstrip("('{")
    lines[at] = line[:start] + value + line[end:]
    return "\n".join(lines), f"{key} := {value[:40]}"


def drop_or_repeat_item(text: str, rng: random.Random) -> tuple[str, str]:
    found = _logged_items(text)
    if found is None:
        return replace_number(text, rng)
    lines, at, marks = found
    line = lines[at]
    if len(marks) < 2:
        return text, "no items"
    n = rng.randrange(len(marks) - 1)
    item = line[marks[n].start():marks[n + 1].start()]
    if rng.random() < 0.5:
        lines[at] = line[:marks[n].start()] + line[marks[n + 1].start():]
        return "\n".join(lines), f"dropped {item[:40]}"
    lines[at] = line[:marks[n + 1].start()] + item + line[marks[n + 1].start():]
    return "\n".join(lines), f"repeated {item[:40]}"


def cut_line(text: str, rng: random.Random) -> tuple[str, str]:
    lines = text.split("\n")
    at = _args_line(lines)
    if at is None:
        return text[:rng.randrange(len(text) + 1)], "cut the log"
    where = rng.randrange(len(lines[at]) + 1)
    lines[at] = lines[at][:where]
    keep_rest = rng.random() < 0.5
    return "\n".join(lines if keep_rest else lines[:at + 1]), f"cut the line at {where}"


def wrap_line(text: str, rng: random.Random) -> tuple[str, str]:
    width = rng.choice((80, 120, 200))
    lines = text.split("\n")
    at = _args_line(lines)
    if at is None:
        return text, "no line"
    line = lines[at]
    lines[at] = "\n".join(line[i:i + width] for i in range(0, len(line), width))
    return "\n".join(lines), f"wrapped at {width}"


def decorate(text: str, rng: random.Random) -> tuple[str, str]:
    kind = rng.choice(("timestamps", "ansi", "crlf", "bad byte", "tabs", "nul"))
    if kind == "timestamps":
        return "\n".join(f"[2026-01-01 00:00:0{n % 10} TP{n % 8}] {line}"
                         for n, line in enumerate(text.split("\n"))), kind
    if kind == "ansi":
        return "\n".join(f"\x1b[3{n % 8}m{line}\x1b[0m"
                         for n, line in enumerate(text.split("\n"))), kind
    if kind == "crlf":
        return text.replace("\n", "\r\n"), kind
    if kind == "tabs":
        return text.replace(", ", ",\t"), kind
    where = rng.randrange(len(text) + 1)
    return text[:where] + ("\udcff" if kind == "bad byte" else "\x00") + text[where:], kind


def abridge(text: str, rng: random.Random) -> tuple[str, str]:
    """An ellipsis where a poster left fields out: an item of its own, glued before a key or
    after a value, or in place of a value."""
    found = _logged_items(text)
    if found is None:
        return replace_number(text, rng)
    lines, at, marks = found
    line = lines[at]
    if not marks:
        return text, "no items"
    mark = rng.choice(marks)
    dots = rng.choice(("...", "\u2026"))
    kind = rng.choice(("item", "before key", "after value", "value"))
    if kind == "item":
        lines[at] = line[:mark.start()] + dots + ", " + line[mark.start():]
    elif kind == "before key":
        lines[at] = line[:mark.start()] + dots + rng.choice(("", " ")) + line[mark.start():]
    else:
        start, end = _items(line)[marks.index(mark)]
        lines[at] = (line[:end] + " " + dots + line[end:] if kind == "after value"
                     else line[:start] + dots + line[end:])
    return "\n".join(lines), f"{dots} {kind} at {mark.group(0)[:30]!r}"


def replace_number(text: str, rng: random.Random) -> tuple[str, str]:
    found = list(_MEMORY_NUMBER.finditer(text))
    if not found:
        return text, "no memory line"
    match = rng.choice(found)
    number = rng.choice(NUMBERS)
    return (text[:match.start(1)] + number + text[match.end(1):],
            f"{match.group(0)[:-len(match.group(1)) or None]}{number}")


#: fields and memory quantities ``explain`` is asked about
EXPLAINED = ("page_size", "tp_size", "mem_fraction_static", "attention_backend",
             "chunked_prefill_size", "cuda_graph_config.decode.max_bs", "max_running_requests",
             "max_total_num_tokens", "kv_cache_dtype", "device")

DAMAGES: tuple[Callable[[str, random.Random], tuple[str, str]], ...] = (
    replace_value, replace_value, replace_value, drop_or_repeat_item, cut_line, wrap_line,
    decorate, replace_number, abridge)


def main_cli() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=30.0, help="seconds per run")
    ap.add_argument("--commands", default="resolve,explain",
                    help="comma-separated among resolve and explain (a field of the plan)")
    args = ap.parse_args()
    commands = args.commands.split(",")
    rng = random.Random(args.seed)
    entries = json.loads((LOGS / "sources.json").read_text())["logs"]
    with contextlib.redirect_stdout(io.StringIO()):  # warm up before forking
        main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b", "--format", "json"])
    failures = 0
    codes: dict[int | None, int] = {}
    with tempfile.TemporaryDirectory(prefix="fuzz-logs-") as scratch:
        for n in range(args.runs):
            entry = rng.choice(entries)
            text = (LOGS / entry["file"]).read_text(encoding="utf-8", errors="surrogateescape")
            damage = rng.choice(DAMAGES)
            damaged, what = damage(text, rng)
            path = Path(scratch) / f"log{n}.log"
            path.write_bytes(damaged.encode("utf-8", errors="surrogateescape"))
            command = rng.choice(commands)
            argv = ["resolve", "--from-log", str(path), "--format", "json"]
            if command == "explain":
                argv = ["explain", rng.choice(EXPLAINED), "--from-log", str(path),
                        "--format", "json"]
            if rng.random() < 0.5:
                model = ROOT / entry["model"]
                argv += ["--gpu", entry["gpu"], "--model-path",
                         str(model) if model.is_dir() else entry["model"]]
            run = run_one(argv, args.budget)
            codes[run["code"]] = codes.get(run["code"], 0) + 1
            problem = verdict(argv, run)
            if problem:
                failures += 1
                last = (run["err"].strip().splitlines() or [""])[-1]
                print(f"{problem}: {entry['file']} {damage.__name__}: {what!r} "
                      f"({' '.join(a for a in argv if a != str(path))})\n    {last[:300]}",
                      flush=True)
    return summary(f"{args.runs} runs over {len(entries)} logs, seed {args.seed}", codes,
                   failures)


if __name__ == "__main__":
    sys.exit(main_cli())
