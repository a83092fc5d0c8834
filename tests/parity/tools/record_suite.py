"""Record SGLang 0.5.23's answers for one parity suite, both rule sets.

    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py SUITE [--jobs N] [--missing]

Reads ``tests/parity/data/SUITE-cases.json`` and writes ``results-SUITE-0.5.23.jsonl`` and
``results-SUITE-main.jsonl`` beside it with the oracle (``$LAUNCHPLAN_ORACLE_DIR``, by default
``/work/shared/oracle``; see its README). Model paths ``parity-models/<name>`` name the
``config.json`` folders under ``tests/parity/models/`` (configs the project does not bundle);
they are handed to the oracle as absolute paths. ``models/<name>`` stays the oracle's own
folder (launchplan's bundled model of that name). A suite in ``LAUNCHER_SUITES`` is recorded
with ``launcher_oracle.py`` (SGLang's launcher check too). ``--missing`` records only the cases that
have no answer yet and merges them into the existing files (in case order).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

PARITY = Path(__file__).resolve().parents[1]
DATA, MODELS = PARITY / "data", PARITY / "models"
ORACLE = Path(os.environ.get("LAUNCHPLAN_ORACLE_DIR", "/work/shared/oracle"))
PREFIX = "parity-models/"
PATH_ARGS = ("--model-path", "--speculative-draft-model-path", "--tokenizer-path")
PATH_KEYS = ("speculative_draft_model_path", "tokenizer_path")
# suites recorded with the launcher's check_server_args after resolution (see that script)
LAUNCHER_SUITES = {"launcher": Path(__file__).with_name("launcher_oracle.py")}


def absolute(value: object) -> object:
    if isinstance(value, str) and value.startswith(PREFIX):
        folder = MODELS / value[len(PREFIX):]
        if not (folder / "config.json").is_file():
            raise SystemExit(f"{value}: no {folder}/config.json")
        return str(folder)
    return value


def for_oracle(case: dict) -> dict:
    out = dict(case, model=absolute(case["model"]))
    if "argv" in case:
        out["argv"] = [absolute(a) for a in case["argv"]]
    if "args" in case:
        out["args"] = {k: absolute(v) if k in PATH_KEYS else v for k, v in case["args"].items()}
    return out


def main(argv: list[str]) -> int:
    suite, jobs = argv[0], "1"
    if "--jobs" in argv:
        jobs = argv[argv.index("--jobs") + 1]
    cases = json.loads((DATA / f"{suite}-cases.json").read_text())
    names = [c["name"] for c in cases]
    if len(names) != len(set(names)):
        raise SystemExit(f"{suite}: duplicate case names")
    for tag in ("0.5.23", "main"):
        out = DATA / f"results-{suite}-{tag}.jsonl"
        known = _rows(out) if "--missing" in argv else {}
        todo = [c for c in cases if c["name"] not in known]
        if not todo:
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump([for_oracle(c) for c in todo], f)
        fresh = Path(f.name + ".out")
        script = LAUNCHER_SUITES.get(suite, ORACLE / "sglang_oracle.py")
        cmd = [sys.executable, str(script), f.name, "--out", str(fresh), "--jobs", jobs]
        if tag == "main":
            cmd += ["--rules", "main"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        known.update(_rows(fresh))
        out.write_text("".join(json.dumps(known[n]) + "\n" for n in names))
        os.unlink(f.name)
        os.unlink(fresh)
    return 0


def _rows(path: Path) -> dict[str, dict]:
    if not path.exists():
        return {}
    rows = (json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return {row["name"]: row for row in rows}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
