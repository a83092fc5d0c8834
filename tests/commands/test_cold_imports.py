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
