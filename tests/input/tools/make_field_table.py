"""Write SGLang's ServerArgs field table for the release installed in the running interpreter.

Run inside an oracle venv (never by the test suite), e.g.::

    /root/sglang-oracle-0.5.22/bin/python tests/input/tools/make_field_table.py

It writes ``src/launchplan/input/data/sglang-<version>-fields.json``: one row per ServerArgs
field (name, namespace, type, default, every option spelling of the action that writes it, the
argparse action class and type function, choices, nargs, const, whether resolution may declare
it, its scalar fallback), then the parser destinations that are no field (``cli_only_dests``)
and the hand-registered spellings that write a field through a second action
(``extra_flags``), and what ``--cuda-graph-config`` accepts per phase (``cuda_graph_phases``:
its backends and keys). Everything is read from SGLang's own objects: its record class, its
field metadata, the argparse parser it builds and its CUDA-graph config module; nothing is
typed by hand. Run with ``--check`` to
compare with the shipped table instead of writing it.
"""

from __future__ import annotations

import argparse
import json
import sys
import typing
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parents[3] / "src" / "launchplan" / "input" / "data"
REQUIRED_MARK = "<required>"
NOTE = ("Facts about SGLang {v}'s ServerArgs fields and their command-line flags, read from "
        "the installed package. 'parse' is the name of the argparse type function; 'action' the "
        "argparse action class; fields with no flags have no automatic command-line flag.")


def type_text(tp: object) -> str:
    if isinstance(tp, type) and getattr(tp, "__module__", "") == "builtins":
        return tp.__name__
    return repr(tp).replace("typing.", "")


def jsonable(value: object) -> object:
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):  # registry-backed choices: no order of their own
        return sorted(jsonable(v) for v in value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"default {value!r} is not JSON")


def action_name(action: argparse.Action) -> str:
    return type(action).__name__


def parse_name(action: argparse.Action) -> str | None:
    fn = action.type
    if fn is None:
        return None
    return getattr(fn, "__name__", type(fn).__name__)


def build() -> dict:
    from sglang.srt import server_args as sa
    from sglang.srt.arg_groups import arg_utils as au
    from sglang.version import __version__

    cls = sa.ServerArgs
    parser = argparse.ArgumentParser()
    cls.add_cli_args(parser)
    by_dest: dict[str, list[argparse.Action]] = {}
    for action in parser._actions:
        by_dest.setdefault(action.dest, []).append(action)
    hints = typing.get_type_hints(cls)
    namespaces = au.namespace_of(cls)
    resolvable = au.resolvable_fields(cls)
    fallbacks = au.fallbacks_of(cls)
    rows, extra = [], []
    for field in au.record_fields(cls):
        name = field.name
        default = au._field_default(field)
        default = REQUIRED_MARK if default is au._MISSING else jsonable(default)
        actions = by_dest.get(name, [])
        main = actions[0] if actions else None
        for other in actions[1:]:
            extra.append({"flag": other.option_strings[0], "field": name,
                          "flags": list(other.option_strings), "action": action_name(other),
                          "choices": jsonable(other.choices), "nargs": other.nargs,
                          "const": jsonable(other.const)})
        rows.append({
            "name": name,
            "group": namespaces[name],
            "type": type_text(hints[name]),
            "default": default,
            "flags": list(main.option_strings) if main else [],
            "action": action_name(main) if main else None,
            "parse": parse_name(main) if main else None,
            "choices": jsonable(main.choices) if main and main.choices is not None else None,
            "nargs": main.nargs if main else None,
            "const": jsonable(main.const) if main else None,
            "resolvable": name in resolvable,
            "fallback": jsonable(fallbacks.get(name)),
        })
    fields = {r["name"] for r in rows}
    cli_only = [d for d in by_dest if d not in fields and d != "help"]
    table = {"sglang_version": __version__, "note": NOTE.format(v=__version__), "fields": rows,
             "cli_only_dests": cli_only}
    if extra:
        table["extra_flags"] = extra
    table["cuda_graph_phases"] = graph_phases()
    return table


def graph_phases() -> dict:
    """Per phase, the backends and keys the release's ``--cuda-graph-config`` parser accepts."""
    from sglang.srt.model_executor import cuda_graph_config as cg

    return {phase: {"backends": list(cg.ALLOWED_BACKENDS_PER_PHASE[phase]),
                    "keys": list(cg.ALLOWED_KEYS_PER_PHASE[phase])}
            for phase in cg.Phase.ALL}


def comparable(table: dict) -> dict:
    """The table with choice lists as sets (a set-valued choice list has no canonical order)."""
    out = json.loads(json.dumps(table))
    for row in out["fields"]:
        if row["choices"] is not None:
            row["choices"] = sorted(map(repr, row["choices"]))
    out.pop("extra_flags", None)
    return out


def main() -> int:
    table = build()
    path = OUT_DIR / f"sglang-{table['sglang_version']}-fields.json"
    text = json.dumps(table, indent=1, ensure_ascii=False) + "\n"
    if "--check" in sys.argv[1:]:
        same = path.exists() and comparable(json.loads(path.read_text())) == comparable(table)
        print(f"{path.name}: {'same' if same else 'DIFFERS'} ({len(table['fields'])} fields)")
        return 0 if same else 1
    path.write_text(text)
    print(f"wrote {path} ({len(table['fields'])} fields)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
