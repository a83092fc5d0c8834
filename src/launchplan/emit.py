"""A pinned SGLang launch command: every value the plan decided, as explicit flags.

With every decision pinned, SGLang has nothing left to change at start-up, except where a
rule transforms a value it reads (listed in ``checks.idempotence``) or where the SGLang
release runs a different rule (0.5.23's FA4 page force). ``pin_warnings`` finds those by
resolving the emitted command again.
"""

from __future__ import annotations

import shlex
from typing import Any

from launchplan import encoding
from launchplan.checks.effective import FOLDED
from launchplan.engine.result import Result
from launchplan.input.cli import reads_as_value
from launchplan.input.fields import FIELDS, SGLANG_VERSION, FieldSpec, release_table
from launchplan.rules.size_lists import is_described

LAUNCHER = "python -m sglang.launch_server"
NEVER_PINNED = frozenset({"random_seed"}) | FOLDED
#: A folded spelling stays the way to say its field in a release whose table has no flag for
#: that field: 0.5.21 has no --attn-dp-size, so its attention DP is --enable-dp-attention.
_FOLDED_INTO = {"enable_dp_attention": "attn_dp_size"}


def _fields_of(result: Result) -> dict[str, FieldSpec]:
    """The field table of the release the plan was made for: its flags are the ones to emit."""
    release = result.record.raw.release
    return FIELDS if release == SGLANG_VERSION else release_table(release).fields


def pinned_values(result: Result) -> dict[str, Any]:
    """Input fields and decided fields that have a command-line flag, in table order, with
    the values SGLang transforms on reading replaced by their preimages (``unapplied``)."""
    from launchplan.checks.idempotence import unapplied

    return unapplied(result, _decided(result))


def _decided(result: Result) -> dict[str, Any]:
    raw = result.record.raw
    chosen = set(raw.values) | set(result.declared())
    fields = _fields_of(result)
    never = NEVER_PINNED - {name for name, into in _FOLDED_INTO.items()
                            if into not in fields or not fields[into].flags}
    out = {}
    for name in fields:
        if name not in chosen or name in never or not fields[name].flags:
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
            # A described capture list (SizeList) is not pinned: SGLang generates the same
            # one from the pinned max_bs, and the list itself could not be written out.
            value = {phase: {k: v for k, v in keys.items()
                             if v is not None and not is_described(v)}
                     for phase, keys in value.items()}
        if isinstance(value, dict):
            argv += [flag, encoding.dumps(value, separators=(",", ":"), sort_keys=True)]
        elif isinstance(value, (list, tuple)):
            if spec.nargs in ("+", "*"):
                if value or spec.nargs == "*":
                    argv += [flag, *(str(v) for v in value)]
            else:
                argv += [flag, encoding.dumps(list(value))]
        else:
            text = str(value)
            argv += [flag, text] if reads_as_value(text) else [f"{flag}={text}"]
    return argv


def sglang_command(result: Result) -> str:
    """One line: the launch command that pins the plan."""
    values = pinned_values(result)
    argv = ["--model-path", str(values.pop("model_path"))] + to_argv(values, _fields_of(result))
    return LAUNCHER + " " + " ".join(shlex.quote(t) for t in argv)


def input_command(result: Result) -> str:
    """One line: the launch as it was given (its input fields, the model path first)."""
    fields = _fields_of(result)
    given = {name: value for name, value in result.record.raw.values.items()
             if name in fields and fields[name].flags and name != "model_path"}
    argv = ["--model-path", str(result.value("model_path"))] + to_argv(given, fields)
    return LAUNCHER + " " + " ".join(shlex.quote(t) for t in argv)


def emitted_argv(result: Result) -> list[str]:
    values = pinned_values(result)
    return ["--model-path", str(values.pop("model_path"))] + to_argv(values, _fields_of(result))


def pin_warnings(result: Result, resolve_again: Any, argv: list[str] | None = None) -> list[str]:
    """Where the targeted SGLang would still change a pinned value at start-up, one note per
    cause (a change both rule sets make is named once, with both).

    ``resolve_again(argv, compat)`` resolves a command line on the same target. Besides the
    rule set in use, SGLang 0.5.23 itself is checked when the plan used the default rules.
    A pinned plan whose effective configuration differs from the plan's is reported too.
    """
    from launchplan.checks.effective import config_hash
    from launchplan.checks.idempotence import differences

    argv = emitted_argv(result) if argv is None else argv
    ours = result.record.compat
    # besides the rule set in use, SGLang 0.5.23 itself when the plan used the default rules
    compats = [ours] + (["0.5.23"] if ours == "default" else [])
    found: dict[str, list[str]] = {}
    for compat in compats:
        try:
            again = resolve_again(argv, compat)
        except Exception as exc:  # a refusal of the pinned plan is worth saying, not fatal
            found.setdefault(f"would refuse the pinned command: {exc}", []).append(compat)
            continue
        # a pinned preimage that SGLang turns into the planned value is the point, not a note
        changes = {o["field"]: (o["input"], o["resolved"], o["source"])
                   for o in again.overrides() if o["resolved"] != result.value_at(o["field"])}
        if config_hash(again) != config_hash(result):
            for name, (before, after, rule) in differences(result, again).items():
                changes.setdefault(name, (before, after, rule))
        dotted = {n.split(".")[0] for n in changes if "." in n}
        for name, (before, after, rule) in changes.items():
            if name in dotted:  # the structure is named key by key already
                continue
            text = (f"would still change {name} from {_shown(before)} to {_shown(after)} at "
                    f"start-up ({rule})")
            found.setdefault(text, []).append(compat)
    notes = []
    for text, where in found.items():
        names = ["this SGLang" if c == ours else f"SGLang {c}" for c in where]
        notes.append(f"{' and '.join(names)} {text}")
    return notes


def _shown(value: Any) -> str:
    """A value in a note: long lists shortened as the plan table shows them."""
    from launchplan.commands.output import cell

    return cell(value) if isinstance(value, (list, dict)) or not isinstance(value, str) \
        else repr(value)


def _scalar(token: str) -> Any:
    """A command-line token as the YAML scalar SGLang's merger writes back as that token."""
    for kind in (int, float):
        try:
            value = kind(token)
        except ValueError:
            continue
        if str(value) == token:
            return value
    return token


def config_parts(result: Result) -> tuple[dict[str, Any], list[str]]:
    """The pinned plan as a ``--config`` mapping, and the flags a config file cannot hold
    (SGLang's merger refuses ``--x/--no-x`` switches: they stay on the command line)."""
    from launchplan.input.config_file import _key_classes

    _, unsupported = _key_classes(result.record.raw.release)
    fields = _fields_of(result)
    mapping: dict[str, Any] = {}
    leftover: list[str] = []
    for name, value in pinned_values(result).items():
        tokens = (to_argv({name: value}, fields) if name != "model_path"
                  else ["--model-path", str(value)])
        if not tokens:
            continue
        key = tokens[0][2:]
        if key.replace("-", "_") in unsupported:
            leftover += tokens
        elif FIELDS[name].nargs in ("+", "*"):  # an empty list too: the merger skips it
            mapping[key] = [_scalar(t) for t in tokens[1:]]
        elif len(tokens) == 1:
            mapping[key] = True
        elif isinstance(value, dict):
            import json

            mapping[key] = json.loads(tokens[1])  # the merger writes it back as JSON
        else:
            mapping[key] = _scalar(tokens[1])
    return mapping, leftover


def config_yaml(result: Result) -> str:
    """A YAML file for SGLang's ``--config`` that pins the plan; the first line says how to
    launch it (with the switches a config file cannot hold)."""
    import yaml

    mapping, leftover = config_parts(result)
    launch = " ".join([LAUNCHER, "--config", "FILE.yaml", *map(shlex.quote, leftover)])
    header = (f"# {launch}\n# pinned by launchplan for {result.record.target.name}; "
              "SGLang 0.5.23 flags\n")
    body = "".join(
        yaml.safe_dump({key: value}, sort_keys=False, width=100,
                       default_flow_style=None if isinstance(value, (dict, list)) else False)
        for key, value in mapping.items())
    return header + body
