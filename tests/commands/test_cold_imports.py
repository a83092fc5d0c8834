"""A plain ``launchplan resolve`` imports only what it needs (the cold-start goal).

A rule module that pulls in ``dataclasses`` (and with it ``inspect`` and ``dis``), or any
heavy package, costs every cold start several milliseconds; this test names the module.
"""

from __future__ import annotations

import json
import subprocess
import sys

# Never on the resolution path: heavy packages, and standard modules a cold start can avoid.
FORBIDDEN = ("torch", "transformers", "numpy", "yaml", "rich", "pynvml", "ray",
             "dataclasses", "inspect", "asyncio", "ast")

_PROBE = """
import contextlib, io, json, sys
sys.argv = ["launchplan", "resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b",
            "--format", "json"]
from launchplan.commands.main import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main()
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def test_a_plain_resolve_imports_nothing_heavy() -> None:
    proc = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                          check=True)
    probe = json.loads(proc.stdout.strip().splitlines()[-1])
    assert probe["code"] == 0
    loaded = {name.split(".")[0] for name in probe["modules"]}
    assert not loaded & set(FORBIDDEN), sorted(loaded & set(FORBIDDEN))


_CLI = """
import contextlib, gc, io, json, sys
sys.argv = ["launchplan", *json.loads(sys.argv[1])]
from launchplan.commands.main import cli
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = cli()
print(json.dumps({"code": code, "enabled": gc.isenabled(), "frozen": gc.get_freeze_count(),
                  "out": out.getvalue()}))
"""


def _cli(args: list[str]) -> dict:
    proc = subprocess.run([sys.executable, "-c", _CLI, json.dumps(args)], capture_output=True,
                          text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_script_loads_with_the_collector_held_off_then_collects_again() -> None:
    """``cli`` (the ``launchplan`` script) freezes what loading made and turns collection
    back on before the command runs; its plan is ``main``'s, byte for byte."""
    from launchplan.commands.main import main

    args = ["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b", "--format", "json"]
    ran = _cli(args)
    assert ran["code"] == 0 and ran["enabled"] and ran["frozen"] > 10_000
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    assert json.loads(ran["out"]) == json.loads(out.getvalue())
    bad = _cli(["no-such-command"])  # nothing to load: main reports it as before
    assert bad["code"] == 2 and bad["enabled"]
