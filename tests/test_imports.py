"""Every module imports on its own, in a fresh interpreter: an import cycle hidden by the
order the commands happen to import things in breaks a user of the Python API
(``import launchplan.facts.vision`` once failed so)."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "launchplan"


def _modules() -> list[str]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def _fails(module: str) -> str | None:
    run = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                         text=True, cwd=PACKAGE.parent)
    return None if run.returncode == 0 else f"{module}: {run.stderr.strip().splitlines()[-1]}"


def test_every_module_imports_on_its_own():
    modules = _modules()
    assert len(modules) > 150
    with ThreadPoolExecutor(max_workers=4) as pool:
        failures = [f for f in pool.map(_fails, modules) if f]
    assert failures == []
