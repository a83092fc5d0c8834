"""``launchplan migrate --to RELEASE FLAGS``: a command line rewritten for a release.

Older flags become their replacements (``input/migrations.py``), each change with a note;
then the old and the new line are planned and compared (``diff``), so the user learns
whether the launch still runs the same way.
"""

from __future__ import annotations

import shlex
import sys

from launchplan.commands.options import no_markdown, noting_launch, split_argv
from launchplan.commands.output import render_table, to_json, wrapped
from launchplan.errors import InputError, LaunchplanError

HELP = """usage: launchplan migrate --to RELEASE --gpu TARGET --model-path MODEL [--from R] FLAGS

Rewrites the SGLang flags for RELEASE (older flags to their replacements, each with a note),
prints the new launch line, and compares the plans of the old and the new line (--from names
the release the old line ran on; without it only the new line is planned). Exit 0 when the
plan is unchanged (or only the new line could be planned), 1 when it changed, 2 bad input (a
new line that cannot be planned here, say a draft model not on this machine, is still
printed, with the reason on stderr and as plan_error in JSON).

options: --to, --from, --format table|json, --env KEY=VALUE, --gpu-* and --host-* overrides,
  --launch N (a pasted text with several launch commands: migrate the Nth)
"""

ALLOWED = frozenset({"--gpu", "--launch", "--gpu-memory-mib", "--gpu-capability", "--gpu-count",
                     "--host-ib-devices", "--host-imex-channel",
                     "--cuda-version", "--compat", "--to", "--from", "--format", "--env",
                     "--model-path"})


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(HELP)
        return 0
    from launchplan.commands.diff import _side, compare
    from launchplan.input.migrations import rewrite

    split = split_argv(argv, ALLOWED)
    with noting_launch(split):
        opts = split.options
        to = opts.get("to") or opts.get("compat") or "0.5.23"
        fmt = no_markdown(opts.get("format"), "migrate") or "table"
        if fmt not in ("table", "json"):
            raise InputError("--format", "table or json for migrate", fmt)
        new_argv, notes = rewrite(list(split.sglang_argv), to, _old_release(argv, opts))
        model = opts.get("model_path")
        model = model[-1] if isinstance(model, list) else model
        if model:
            new_argv = _without_model_alias(new_argv, model, notes)
        head = ["--model-path", model] if model else []
        env = opts.get("env") or []  # a pasted line's assignments stay in front of it
        env = [env] if isinstance(env, str) else list(env)
        line = " ".join([*(_assignment(e) for e in env), "python -m sglang.launch_server",
                         shlex.join([*head, *new_argv])])
        try:
            new_side = _side({**opts, "compat": to}, new_argv, argv)
        except InputError as exc:  # the line is migrated; planning it needs what is not here
            return _unplanned(fmt, to, opts, line, new_argv, notes, exc)
        old_side, differences, old_error = None, None, None
        if opts.get("from"):
            try:
                old_side = _side({**opts, "compat": opts["from"]}, list(split.sglang_argv), argv)
            except LaunchplanError as exc:  # the old line does not parse on the old release
                old_error = getattr(exc, "message", str(exc))
            else:
                differences = compare(old_side, new_side)
        if fmt == "json":
            sys.stdout.write(to_json({"to": to, "from": opts.get("from"), "command": line,
                                      "argv": new_argv, "changes": notes,
                                      "verdict": new_side["preflight"].verdict,
                                      "old_error": old_error,
                                      "differences": differences}) + "\n")
        else:
            out = sys.stdout
            out.write(line + "\n")
            for note in notes or ["no flag needed a change"]:
                out.write(wrapped(note) + "\n")
            report = new_side["preflight"]
            out.write(f"preflight on {to}: {report.verdict}\n")
            for problem in (p for p in report.problems if p.decides):
                out.write(wrapped(f"{problem.requirement}: {problem.why}", "  ") + "\n")
            if old_error:
                out.write(wrapped(f"the old line does not plan on {opts['from']}: {old_error}",
                                  "  ") + "\n")
            elif differences is not None:
                if not differences:
                    out.write(f"the plan is the same as the old line's on {opts['from']}\n")
                else:
                    out.write(f"the plan differs from the old line's on {opts['from']}:\n")
                    render_table(("field", opts["from"], to),
                                 [(d["field"], d["left"], d["right"]) for d in differences], out)
        return 1 if differences else 0


def _unplanned(fmt: str, to: str, opts: dict, line: str, new_argv: list[str], notes: list[str],
               exc: InputError) -> int:
    """The migrated line when the new line cannot be planned here (a draft model's files not
    on this machine, a value the new release refuses): the rewrite is still the answer asked
    for, so it is printed, with why no plan follows; the exit is bad input's."""
    message = getattr(exc, "message", None) or str(exc)
    if fmt == "json":
        sys.stdout.write(to_json({"to": to, "from": opts.get("from"), "command": line,
                                  "argv": new_argv, "changes": notes, "verdict": None,
                                  "plan_error": message, "old_error": None,
                                  "differences": None}) + "\n")
    else:
        sys.stdout.write(line + "\n")
        for note in notes or ["no flag needed a change"]:
            sys.stdout.write(wrapped(note) + "\n")
    sys.stderr.write(f"launchplan: the migrated line could not be planned: {message}\n")
    return exc.exit_code


def _assignment(pair: str) -> str:
    """``NAME=VALUE`` as a shell assignment: only the value is quoted (a quoted name would
    make the word a command, not an assignment)."""
    name, _, value = pair.partition("=")
    return f"{name}={shlex.quote(value)}"


def _old_release(argv: list[str], opts: dict) -> str | None:
    """The release the old line was written for: ``--from``, else the one release a pasted
    text names (``0.4.6.post5`` too, which launchplan does not model); None when unknown."""
    if opts.get("from"):
        return str(opts["from"])
    from launchplan.commands.options import COMPAT_CHOICES, release_texts
    from launchplan.input.pasted import cleaned, looks_pasted
    from launchplan.input.pasted_release import reported_release

    if not looks_pasted(argv):
        return None
    found = reported_release(release_texts(argv, cleaned), COMPAT_CHOICES)
    return found[1] if found is not None else None


def _without_model_alias(argv: list[str], model: str, notes: list[str]) -> list[str]:
    """``argv`` without a pasted ``--model X``: the line leads with ``--model-path`` as
    given, and SGLang keeps the last of the two spellings, so X would run, not the model
    planned."""
    from launchplan.commands.options import taken_out

    rest, values = taken_out(argv, "--model")
    for value in values:
        notes.append(f"--model {value or ''} replaced by --model-path {model}: the two spell "
                     "one flag, and the last one given is the model SGLang loads")
    return rest
