"""List the command-line flags of older SGLang releases, read from their wheels.

People paste launch lines written for releases long before the ones launchplan models; the
migration table (``src/launchplan/input/migrations.py``) must name every flag those releases
had that 0.5.23 no longer accepts. This reads each release's ``sglang/srt/server_args.py``
straight out of its wheel (never imported: the old code needs torch) and collects the option
strings of its ``add_argument`` calls with ``ast``. Fetch the wheels first, without installing::

    pip download --no-deps -d /tmp/sgl-wheels sglang==0.4.6

then::

    python tools/old_sglang_flags.py /tmp/sgl-wheels

writes ``src/launchplan/input/data/sglang-old-flags.json`` (``migrate`` reads it): per flag,
the releases read that had it (first and last), so a test can check each one is accepted by
0.5.23 or named by the table.
``--check`` compares with the written file instead.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

OUT = (Path(__file__).resolve().parents[1] / "src" / "launchplan" / "input" / "data"
       / "sglang-old-flags.json")
MEMBER = "sglang/srt/server_args.py"
FIELD_MODULES = ("device", "disagg", "exec_", "lora", "memory", "mm", "model", "observability",
                 "parallel", "schedule", "serving", "spec")
NOTE = ("Option strings of add_argument calls in sglang/srt/server_args.py of each SGLang wheel "
        "listed in 'releases' (read with ast, not imported), by tools/old_sglang_flags.py. "
        "'flags' maps each option to the first and last of those releases that had it.")


def release_key(version: str) -> tuple[int, ...]:
    """Numeric order of release strings like 0.4.10 or 0.5.3.post1."""
    return tuple(int(part) for part in re.findall(r"\d+", version))


def _positional_flags(tree: ast.AST) -> set[str]:
    """Every ``--option`` string passed positionally to an ``add_argument`` call."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "add_argument":
            names = [arg.value for arg in node.args if isinstance(arg, ast.Constant)
                     and isinstance(arg.value, str) and arg.value.startswith("--")]
            found.update(_with_negations(names, {k.arg: k.value for k in node.keywords}))
    return found


def _with_negations(names: list[str], keywords: dict[str | None, ast.AST]) -> list[str]:
    """``names``, plus the ``--no-`` forms argparse's BooleanOptionalAction adds."""
    action = keywords.get("action")
    if getattr(action, "attr", getattr(action, "id", "")) == "BooleanOptionalAction":
        return names + ["--no-" + n[2:] for n in names]
    return names


def _field_flags(tree: ast.AST, classes: set[str]) -> set[str]:
    """The flags of annotated fields (``name: A[T, "help"]`` or ``A[T, Arg(...)]``) in
    ``classes``: from 0.5.14 on, SGLang derives a flag from each such field (its name with
    dashes, or ``cli_name``, plus ``aliases``) unless ``no_cli`` is set."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ClassDef) and node.name in classes):
            continue
        for item in node.body:
            if not (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)):
                continue
            ann = item.annotation
            if not (isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name)
                    and ann.value.id in ("A", "Annotated")
                    and isinstance(ann.slice, ast.Tuple) and len(ann.slice.elts) >= 2):
                continue
            meta = ann.slice.elts[1]
            names = ["--" + item.target.id.replace("_", "-")]
            if isinstance(meta, ast.Call) and getattr(meta.func, "id", "") == "Arg":
                keywords = {k.arg: k.value for k in meta.keywords}
                if _constant(keywords.get("no_cli")) is True:
                    continue
                if isinstance(_constant(keywords.get("cli_name")), str):
                    names[0] = _constant(keywords["cli_name"])
                aliases = keywords.get("aliases")
                if isinstance(aliases, (ast.List, ast.Tuple)):
                    names += [_constant(e) for e in aliases.elts]
                names = _with_negations(names, keywords)
            elif not (isinstance(meta, ast.Constant) and isinstance(meta.value, str)):
                continue  # no Arg metadata: no automatic flag
            found.update(n for n in names if isinstance(n, str))
    return found


def _constant(node: ast.AST | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _input_classes(tree: ast.AST) -> set[str]:
    """``ServerArgs`` and the field classes it is assembled from (``_INPUT_NAMESPACES``)."""
    classes = {"ServerArgs"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
                getattr(t, "id", "") == "_INPUT_NAMESPACES" for t in node.targets) \
                and isinstance(node.value, (ast.List, ast.Tuple)):
            classes.update(e.id for e in node.value.elts if isinstance(e, ast.Name))
    return classes


def flags_in(read: Callable[[str], str | None]) -> set[str]:
    """A release's flags; ``read(member)`` gives a package file's text (None if absent)."""
    main = ast.parse(read(MEMBER) or "")
    classes = _input_classes(main)
    flags = _positional_flags(main) | _field_flags(main, classes)
    if len(classes) > 1:  # the field classes live in arg_groups/fields/ (0.5.19 on)
        for module in FIELD_MODULES:
            text = read(f"sglang/srt/arg_groups/fields/{module}.py")
            if text:
                flags |= _field_flags(ast.parse(text), classes)
    return flags


def wheel_release(path: Path) -> str:
    return path.name.split("-")[1]


def _member_reader(archive: zipfile.ZipFile) -> Callable[[str], str | None]:
    names = set(archive.namelist())
    return lambda member: archive.read(member).decode() if member in names else None


def collect(wheel_dir: Path) -> dict[str, object]:
    per_release: dict[str, set[str]] = {}
    for wheel in sorted(wheel_dir.glob("sglang-*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            per_release[wheel_release(wheel)] = flags_in(_member_reader(archive))
    releases = sorted(per_release, key=release_key)
    flags: dict[str, list[str]] = {}
    for release in releases:
        for flag in sorted(per_release[release]):
            flags.setdefault(flag, [release, release])[1] = release
    return {"note": NOTE, "releases": releases,
            "counts": {r: len(per_release[r]) for r in releases},
            "flags": dict(sorted(flags.items()))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel_dir", type=Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    table = collect(args.wheel_dir)
    text = json.dumps(table, indent=1) + "\n"
    if args.check:
        same = OUT.read_text() == text
        print("same as the shipped list" if same else f"{OUT} differs")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"{len(table['flags'])} flags from {len(table['releases'])} releases -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
