"""``launchplan migrate --from R`` tells the truth about whether the plan changes.

The ``migrate`` suite holds pairs: a line 0.5.21 reads whose flags or values later releases
retired (``migrate/old/<k>``, answered by SGLang 0.5.21, and by 0.5.22 where it still reads
it) and the line ``migrate --to 0.5.23`` makes of it (``migrate/new/<k>``, answered by SGLang
0.5.23). Where both start, the fields whose recorded answers differ are exactly the compared
fields ``migrate --from R`` reports as changed: no change it misses, none it invents.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from launchplan.commands.main import main
from tests.parity.oracle_cases import _local, load, results_path


def _readable(value: object) -> bool:
    return not (isinstance(value, str) and value.startswith("<unreadable"))


def _pairs(release: str):
    if not (results_path("migrate", release).exists()
            and results_path("migrate", "0.5.23").exists()):
        return []
    old = {c.name: c for c in load("migrate", release)}
    new = {c.name: c for c in load("migrate", "0.5.23")}
    return [(release, case, new[f"migrate/new/{name.rsplit('/', 1)[1]}"])
            for name, case in old.items() if name.startswith("migrate/old/")
            and f"migrate/new/{name.rsplit('/', 1)[1]}" in new]


PAIRS = _pairs("0.5.21") + _pairs("0.5.22")


def test_the_pairs_are_recorded():
    assert sum(release == "0.5.21" for release, _, _ in PAIRS) >= 15


@pytest.mark.parametrize("release, old, new", PAIRS,
                         ids=[f"{r}:{o.name}" for r, o, _ in PAIRS])
def test_migrate_from_says_which_fields_change(release, old, new):
    if not (old.expected["ok"] and new.expected["ok"]):
        pytest.skip("SGLang refuses one of the two lines")
    a, b = old.expected["resolved"], new.expected["resolved"]
    fields = {f for f in a.keys() & b.keys() if _readable(a[f]) and _readable(b[f])}
    truth = {f for f in fields if a[f] != b[f]}
    spec = old.spec
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["migrate", "--from", release, "--to", "0.5.23", "--gpu", spec["platform"],
                     "--model-path", _local(spec["model"]), *map(_local, spec["argv"]),
                     "--format", "json"])
    data = json.loads(out.getvalue())
    said = {d["field"] for d in data["differences"] or ()} & fields
    assert data["argv"] == [_local(t) for t in new.spec["argv"]]
    assert said == truth, f"SGLang changes {sorted(truth)}; migrate says {sorted(said)}"
    assert code == (1 if data["differences"] else 0)
