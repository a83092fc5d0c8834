"""SGLang 0.5.23's side of the speed ratios, timed inside one warm process.

Run by ``benchmarks/run.py`` with the oracle venv's Python (``SGLANG_ORACLE_PYTHON``), one
process per platform. It sets up the oracle's simulated GPU host (the harness in
``../shared/oracle/sglang_oracle.py``, imported, not copied), then for each case on stdin
times, in this long-lived process: SGLang's own argparse parse of the command line, and a
warm resolution from the parsed fields (``ServerArgs`` built from the namespace, then
``resolve_once()``). It prints
one JSON line per case with the median CPU seconds of each.

stdin: ``{"platform": NAME, "oracle": DIR, "seconds": S,
          "cases": [{"name": ..., "model": DIR, "argv": [...]}]}``
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time


def _median_seconds(fn, seconds: float, at_least: int = 3) -> float:
    fn()  # warm: lazy imports and caches are not what we time
    times: list[float] = []
    deadline = time.process_time() + seconds  # CPU time, as launchplan's side is timed
    while len(times) < at_least or time.process_time() < deadline:
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    job = json.load(sys.stdin)
    sys.path.insert(0, job["oracle"])
    import sglang_oracle as oracle  # the harness's simulated platform

    p = dict(oracle.PLATFORMS[job["platform"]])
    for k in [k for k in os.environ if k.startswith(("SGLANG_", "SGL_"))]:
        del os.environ[k]
    oracle._STUB_ACTIVE.update(oracle.STUB_ROOTS["common"] | oracle.STUB_ROOTS[p["vendor"]])
    sys.meta_path.append(oracle._StubFinder())
    oracle.install_device_fakes(p)
    import sglang.srt.server_args  # noqa: F401
    oracle.install_sglang_probe_patches(p)
    import sglang.srt.arg_groups.pipeline  # noqa: F401
    from sglang.srt.runtime_context import override_platform
    from sglang.srt.server_args import ServerArgs

    facts = oracle.platform_facts(p)
    logging.disable(logging.CRITICAL)  # SGLang's warnings are not what we time
    parser = argparse.ArgumentParser(prog="sglang serve")
    ServerArgs.add_cli_args(parser)
    out = sys.__stdout__
    devnull = open(os.devnull, "w")  # noqa: SIM115 - SGLang prints while resolving
    for case in job["cases"]:
        argv = ["--model-path", case["model"], *case["argv"]]

        def parse(argv=argv):
            return parser.parse_args(argv)

        namespace = parser.parse_args(argv)

        def resolve(namespace=namespace):  # from parsed fields, as launchplan's from-fields
            with override_platform(**facts):
                ServerArgs.from_cli_args(namespace).resolve_once()

        sys.stdout = devnull
        try:
            parse_s = _median_seconds(parse, job["seconds"])
            resolve_s = _median_seconds(resolve, job["seconds"])
        finally:
            sys.stdout = out
        out.write(json.dumps({"name": case["name"], "parse_s": parse_s,
                              "resolve_s": resolve_s}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
