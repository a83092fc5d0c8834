"""The ``launchplan`` command: dispatch to a subcommand, turn errors into one line and a code.

Exit codes: 0 a plan, 1 problems found (``check``) or an internal error, 2 bad input,
3 a configuration SGLang (or ``--strict``) refuses.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from launchplan.errors import InputError, LaunchplanError, Refusal

USAGE = """usage: launchplan COMMAND [options] [SGLang flags]
       launchplan --version

commands:
  resolve      resolve an SGLang launch for a GPU target and a model
  explain      the chain of rules behind a field's value
  check        resolve a space of launches and report rule collisions
  sweep        group a sweep grid by the configuration each point really runs
  diff         two plans side by side: two releases, or two launches
  migrate      a command line rewritten for a release, and whether its plan changes
  targets      list the GPU targets
  models       list the bundled models
  rules        every rule, in pipeline order: when it acts, its effect, why, its assumptions
  requirements the table of what each kernel and feature needs
  matrix       the support matrix of the rules (target x backend x attention kind)

Run `launchplan COMMAND --help` for a command's options.
"""


# command name -> (module, function); a command's module is imported only when it runs
COMMANDS: dict[str, tuple[str, str]] = {
    "resolve": ("launchplan.commands.resolve", "main"),
    "explain": ("launchplan.commands.explain", "main"),
    "check": ("launchplan.commands.check", "main"),
    "sweep": ("launchplan.commands.sweep", "main"),
    "diff": ("launchplan.commands.diff", "main"),
    "migrate": ("launchplan.commands.migrate", "main"),
    "targets": ("launchplan.commands.catalog", "targets_main"),
    "models": ("launchplan.commands.catalog", "models_main"),
    "rules": ("launchplan.commands.listing", "rules_main"),
    "requirements": ("launchplan.commands.listing", "requirements_main"),
    "matrix": ("launchplan.commands.matrix", "main"),
}


def _command(name: str) -> Callable[[list[str]], int] | None:
    entry = COMMANDS.get(name)
    if entry is None:
        return None
    import importlib

    return getattr(importlib.import_module(entry[0]), entry[1])


def version() -> str:
    """The installed distribution's version (the source tree's when not installed)."""
    try:
        from importlib.metadata import version as installed

        return installed("launchplan")
    except Exception:
        return "0.1.0+source"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0 if args else 2
    if args[0] in ("--version", "-V", "version"):
        sys.stdout.write(f"launchplan {version()} (SGLang 0.5.23 flag surface)\n")
        return 0
    name, rest = args[0], args[1:]
    try:
        command = _command(name)
        if command is None:
            import difflib

            close = difflib.get_close_matches(name, COMMANDS, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise InputError("launchplan", "a command", name,
                             message=f"unknown command {name!r}{hint} (commands: "
                             + ", ".join(COMMANDS) + ")")
        return command(rest)
    except Refusal as exc:
        sys.stderr.write(f"launchplan: refused by {exc.source}: {exc.message}\n")
        _launch_judged(exc)
        return exc.exit_code
    except LaunchplanError as exc:
        sys.stderr.write(f"launchplan: {getattr(exc, 'message', None) or exc}\n")
        _launch_judged(exc)
        return exc.exit_code
    except BrokenPipeError:  # the reader went away (e.g. `| head`): not an error
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the final flush
        except OSError:
            pass
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("launchplan: interrupted\n")
        return 130
    except Exception as exc:  # never a traceback: one line naming what broke
        if os.environ.get("LAUNCHPLAN_DEBUG"):
            raise
        sys.stderr.write(f"launchplan: internal error: {type(exc).__name__}: {exc}\n")
        return 1


def _launch_judged(exc: Exception) -> None:
    """The line saying which of a pasted text's launches the error concerns, when it holds
    several (``options.noting_launch``)."""
    note = getattr(exc, "launch_note", None)
    if note:
        sys.stderr.write(f"launchplan: {note}\n")


def cli() -> int:
    """The ``launchplan`` script: ``main`` with the cyclic collector held off while the
    command's modules load. Loading makes tens of thousands of objects that live as long as
    the process (the field table, ~350 rule specs, their modules), and every collection
    pass meanwhile walks them all again for nothing: about a tenth of a cold ``resolve``.
    Once loaded, they are frozen out of later passes (``gc.freeze``) and collection resumes
    for the command's own work, so a long ``check`` or ``sweep`` is collected as before."""
    import gc

    gc.disable()
    try:
        if len(sys.argv) > 1 and sys.argv[1] in COMMANDS:
            _command(sys.argv[1])  # what ``main`` runs next, loaded now
    except Exception:  # noqa: S110 - ``main`` loads it again and reports what is wrong
        pass
    finally:
        gc.freeze()
        gc.enable()
    return main()


if __name__ == "__main__":
    raise SystemExit(cli())
