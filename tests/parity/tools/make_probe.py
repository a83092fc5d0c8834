"""Make an every-field probe of recorded suites: their cases again, each compared on every field
of SGLang 0.5.23's record, under a suite name of its own.

    PYTHONPATH=src:. python tests/parity/tools/make_probe.py NAME SUITE[,SUITE...] [--sample N]
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py probe-NAME --release 0.5.23
    PYTHONPATH=src:. python -m pytest tests/parity/test_parity.py -k probe-NAME

A suite compares the fields its generator chose (the public cases' 23, a wild line's 120 or
so); a field SGLang decides that no suite compares is never held to it. A probe asks the
oracle for all of them (``gen_wild8_cases.every_field``) on launches already known to agree,
so each difference it shows is a decision launchplan lacks or makes otherwise. Probes are
local: ``probe-*`` files are git-ignored and ``oracle_cases`` takes up whichever are present,
recorded through ``targets_oracle.py`` (the whole target catalog) by ``record_suite``.
``--sample N`` keeps N cases drawn with a fixed seed (a large suite such as ``grid``).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.parity.tools.gen_wild8_cases import every_field  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data"


def probe(name: str, suites: list[str], sample: int | None = None) -> list[dict]:
    """The cases of ``suites``, named ``probe-NAME/<case>``, each asking for every field."""
    fields = every_field()
    cases = [dict(case, name=f"probe-{name}/{case['name']}", fields=fields)
             for suite in suites
             for case in json.loads((DATA / f"{suite}-cases.json").read_text())]
    if sample is not None and sample < len(cases):
        cases = random.Random(14).sample(cases, sample)
    return cases


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    name, suites = argv[0].removeprefix("probe-"), argv[1].split(",")
    missing = [s for s in suites if not (DATA / f"{s}-cases.json").is_file()]
    if missing:
        print(f"make_probe: no suite named {', '.join(missing)} in {DATA}", file=sys.stderr)
        return 2
    sample = int(argv[argv.index("--sample") + 1]) if "--sample" in argv else None
    cases = probe(name, suites, sample)
    out = DATA / f"probe-{name}-cases.json"
    out.write_text(json.dumps(cases, indent=1) + "\n")
    print(f"probe-{name}: {len(cases)} cases, {len(cases[0]['fields']) if cases else 0} "
          f"fields each, in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
