"""A pinned SGLang launch command: every value the plan decided, as explicit flags.

With every decision pinned, SGLang has nothing left to change at start-up, except where a
rule transforms a value it reads (listed in ``checks.idempotence``) or where the SGLang
release runs a different rule (0.5.23's FA4 page force). ``pin_warnings`` finds those by
resolving the emitted command again.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from launchplan.checks.effective import FOLDED
from launchplan.engine.result import Result
from launchplan.input.fields import FIELDS, SGLANG_VERSION, FieldSpec, release_table

LAUNCHER = "python -m sglang.launch_server"
NEVER_PINNED = frozenset({"random_seed"}) | FOLDED


def _fields_of(result: Result) -> dict[str, FieldSpec]:
    """The field table of the release the plan was made for: its flags are the ones to emit."""
    release = result.record.raw.release
    return FIELDS if release == SGLANG_VERSION else release_table(release).fields


def pinned_values(result: Result) -> dict[str, Any]:
    """Input fields and decided fields that have a command-line flag, in table order."""
    raw = result.record.raw
    chosen = set(raw.values) | set(result.declared())
    fields = _fields_of(result)
    out = {}
    for name in fields:
        if name not in chosen or name in NEVER_PINNED or not fields[name].flags:
            continue
        if name == "random_seed" and not raw.explicit(name):
            continue
        out[name] = result.value(name)
    return out


def to_argv(values: dict[str, Any], fields: dict[str, FieldSpec] = FIELDS) -> list[str]:
    """SGLang command-line tokens that set exactly these values (spelled as ``fields`` say)."""
    argv: list[str] = []
    for name, value in values.items():
        spec = fields[name]
        flag = spec.flags[0]
        if spec.action in ("_StoreTrueAction", "DeprecatedStoreTrueAction"):
            if value:
                argv.append(flag)
            continue
        if spec.action == "BooleanOptionalAction":
            if value is True:
                argv.append(flag)
            elif value is False:
                argv.append(next(f for f in spec.flags if f.startswith("--no-")))
            continue
        if value is None:
            continue
        if name == "cuda_graph_config":
            value = {phase: {k: v for k, v in keys.items() if v is not None}
                     for phase, keys in value.items()}
        if isinstance(value, dict):
            argv += [flag, json.dumps(value, separators=(",", ":"), sort_keys=True)]
        elif isinstance(value, (list, tuple)):
            if spec.nargs in ("+", "*"):
                if value or spec.nargs == "*":
                    argv += [flag, *(str(v) for v in value)]
            else:
                argv += [flag, json.dumps(list(value))]
        else:
            argv += [flag, str(value)]
    return argv


def sglang_command(result: Result) -> str:
    """One line: the launch command that pins the plan."""
    values = pinned_values(result)
    argv = ["--model-path", str(values.pop("model_path"))] + to_argv(values, _fields_of(result))
    return LAUNCHER + " " + " ".join(shlex.quote(t) for t in argv)


def emitted_argv(result: Result) -> list[str]:
    values = pinned_values(result)
    return ["--model-path", str(values.pop("model_path"))] + to_argv(values, _fields_of(result))


def pin_warnings(result: Result, resolve_again: Any) -> list[str]:
    """Where the targeted SGLang would still change a pinned value at start-up.

    ``resolve_again(argv, compat)`` resolves a command line on the same target. Besides the
    rule set in use, SGLang 0.5.23 itself is checked when the plan used the default rules.
    """
    argv = emitted_argv(result)
    notes = []
    compats = [result.record.compat] + (["0.5.23"] if result.record.compat == "default" else [])
    for compat in compats:
        try:
            again = resolve_again(argv, compat)
        except Exception as exc:  # a refusal of the pinned plan is worth saying, not fatal
            notes.append(f"SGLang ({compat} rules) would refuse the pinned command: {exc}")
            continue
        for o in again.overrides():
            who = "this SGLang" if compat == result.record.compat else f"SGLang {compat}"
            notes.append(f"{who} would still change {o['field']} from {o['input']!r} to "
                         f"{o['resolved']!r} at start-up ({o['source']})")
    return notes
