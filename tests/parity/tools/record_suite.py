"""Record SGLang's answers for parity suites: 0.5.23 and the default rules, or one older release.

    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py SUITE[,SUITE...] [--jobs N]
        [--missing]
    ~/sglang-oracle-0.5.22/bin/python tests/parity/tools/record_suite.py SUITE[,SUITE...]
        --release 0.5.22 [--jobs N] [--missing] [--timeout SECONDS]

Reads ``tests/parity/data/SUITE-cases.json`` and writes ``results-SUITE-0.5.23.jsonl`` and
``results-SUITE-main.jsonl`` beside it with the oracle (``$LAUNCHPLAN_ORACLE_DIR``, by default
``/work/shared/oracle``; see its README). ``--release X`` records plain SGLang as installed in
the running interpreter (which must be release X) into ``results-SUITE-X.jsonl`` instead.
Every suite named goes to the oracle in one batch, so each platform's worker imports SGLang
once (about 25 s) for all of them.

Model paths ``parity-models/<name>`` name the ``config.json`` folders under
``tests/parity/models/`` (configs the project does not bundle); they are handed to the oracle
as absolute paths, as are ``shipped/<ORG--NAME>`` (the Hub configs launchplan ships, under
``src/launchplan/facts/data/hub/``). ``models/<name>`` is the oracle's own folder of that
name, or launchplan's bundled model of that name when the oracle has none. ``--missing``
records only the cases that have no answer yet and merges them into the existing files (in
case order); a case the oracle stops at ``--timeout`` (seconds per case, the oracle's own
default otherwise) is written as its error row, so ``--missing`` does not take it again.
Suites run through a wrapper of the oracle: ``targets_oracle.py`` (the catalog's further GPU
targets too), or for ``LAUNCHER_SUITES`` ``launcher_oracle.py`` (SGLang's launcher check
too), or for ``dllm`` ``dllm_oracle.py`` (SGLang's diffusion algorithms registered); each
notes a typed ``--radix-eviction-policy`` as SGLang's command-line entry does
(``oracle_common``).
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
BUNDLED = PARITY.parents[1] / "src" / "launchplan" / "facts" / "data" / "models"
ORACLE = Path(os.environ.get("LAUNCHPLAN_ORACLE_DIR", "/work/shared/oracle"))
PREFIX, ORACLE_PREFIX = "parity-models/", "models/"
SHIPPED, SHIPPED_PREFIX = BUNDLED.parent / "hub", "shipped/"  # the Hub configs launchplan ships
PATH_KEYS = ("speculative_draft_model_path", "tokenizer_path")
# Every suite is recorded through a wrapper of the oracle. ``targets_oracle.py`` by default:
# the catalog's further GPU targets (the nine simulated platforms as the oracle has them),
# simulated InfiniBand devices and IMEX channel when a case's env asks, and, as every wrapper
# (``oracle_common.load_oracle``), a typed --radix-eviction-policy noted as SGLang's
# command-line entry notes it. "launcher" and "refusals" add the launcher's
# check_server_args after resolution.
TARGETS_ORACLE = Path(__file__).with_name("targets_oracle.py")
LAUNCHER_SUITES = {"launcher": Path(__file__).with_name("launcher_oracle.py"),
                   "refusals": Path(__file__).with_name("launcher_oracle.py")}
#: Every suite recorded through another wrapper than ``targets_oracle.py``: the launcher suites,
#: and ``dllm``, with SGLang's diffusion algorithms registered (their modules do not import
#: under the oracle's stubs).
SUITE_ORACLES = {**LAUNCHER_SUITES, "dllm": Path(__file__).with_name("dllm_oracle.py")}


def absolute(value: object) -> object:
    """A model folder the oracle can open: its own, else ours (absolute)."""
    if not isinstance(value, str):
        return value
    if value.startswith(PREFIX):
        folder = MODELS / value[len(PREFIX):]
    elif value.startswith(SHIPPED_PREFIX):
        folder = SHIPPED / value[len(SHIPPED_PREFIX):]
    elif value.startswith(ORACLE_PREFIX) and not (ORACLE / value).is_dir():
        folder = BUNDLED / value[len(ORACLE_PREFIX):]
    else:
        return value
    if not (folder / "config.json").is_file():
        raise SystemExit(f"{value}: no {folder}/config.json")
    return str(folder)


def for_oracle(case: dict) -> dict:
    out = dict(case, model=absolute(case["model"]))
    if "argv" in case:
        out["argv"] = [absolute(a) for a in case["argv"]]
    if "args" in case:
        out["args"] = {k: absolute(v) if k in PATH_KEYS else v for k, v in case["args"].items()}
    return out


def _option(argv: list[str], flag: str, default: str | None) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else default


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):  # no suite named first: say how instead
        asked = argv[:1] in (["--help"], ["-h"])
        print((__doc__ or "").strip(), file=sys.stdout if asked else sys.stderr)
        return 0 if asked else 2
    missing = [s for s in argv[0].split(",") if not (DATA / f"{s}-cases.json").is_file()]
    if missing:
        print(f"record_suite: no suite named {', '.join(missing)} in {DATA}", file=sys.stderr)
        return 2
    suites, jobs = argv[0].split(","), _option(argv, "--jobs", "1")
    release = _option(argv, "--release", None)
    if release is not None:
        import sglang  # the oracle's own interpreter: it must be the release asked for

        if sglang.__version__ != release:
            raise SystemExit(f"--release {release}: this interpreter has sglang "
                             f"{sglang.__version__}")
    tags = (release,) if release else ("0.5.23", "main")
    cases = {s: json.loads((DATA / f"{s}-cases.json").read_text()) for s in suites}
    names = [c["name"] for s in suites for c in cases[s]]
    if len(names) != len(set(names)):
        raise SystemExit(f"{','.join(suites)}: duplicate case names")
    scripts = {SUITE_ORACLES.get(s, TARGETS_ORACLE) for s in suites}
    if len(scripts) != 1:
        raise SystemExit(f"{','.join(suites)}: suites of another wrapper "
                         f"({', '.join(SUITE_ORACLES)}) are recorded in a batch of their own")
    (script,) = scripts
    for tag in tags:
        outs = {s: DATA / f"results-{s}-{tag}.jsonl" for s in suites}
        known = {s: _rows(outs[s]) if "--missing" in argv else {} for s in suites}
        todo = [c for s in suites for c in cases[s] if c["name"] not in known[s]]
        if not todo:
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump([for_oracle(c) for c in todo], f)
        fresh = Path(f.name + ".out")
        cmd = [sys.executable, str(script), f.name, "--out", str(fresh), "--jobs", jobs]
        timeout = _option(argv, "--timeout", None)
        if timeout is not None:
            cmd += ["--timeout", timeout]
        if tag == "main":
            cmd += ["--rules", "main"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        answers = _rows(fresh)
        for s in suites:
            known[s].update((c["name"], answers[c["name"]]) for c in cases[s]
                            if c["name"] in answers)
            outs[s].write_text("".join(json.dumps(known[s][c["name"]]) + "\n"
                                       for c in cases[s] if c["name"] in known[s]))
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
