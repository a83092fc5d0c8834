"""The oracle, plus the launcher's own check: SGLang's ``check_server_args`` after resolution.

    ~/sglang-oracle/bin/python tests/parity/tools/launcher_oracle.py CASES --out OUT [--jobs N]

Same arguments and output as the oracle's ``sglang_oracle.py`` (``$LAUNCHPLAN_ORACLE_DIR``,
by default ``/work/shared/oracle``), which records resolution (``resolve_once``) only. SGLang's
engine launcher then runs ``ServerArgs.check_server_args()`` before it starts any worker;
here every case runs it too, right after a resolution that succeeded. A launch the check
refuses is reported ``ok: false`` with the error ``LauncherCheckError: <type>: <message>``
and, as for any resolved case, its resolved fields; every row says ``launcher_checked``.

Nothing of the oracle is changed on disk: this script imports it, wraps its per-case
function, and has its per-platform worker processes started through this script again.
"""

from __future__ import annotations

import os
from typing import Any

from oracle_common import load_oracle

PREFIX = "LauncherCheckError"


class LauncherCheckError(Exception):
    """What ``check_server_args`` raised, kept apart from resolution's own refusals."""


def _oracle() -> Any:
    return load_oracle()


def _with_launcher_check(run_case: Any) -> Any:
    def run_case_and_check(case: dict, facts: dict) -> dict:
        # runs in the case's forked child: the patch dies with it
        from sglang.srt.server_args import ServerArgs

        resolve_once = ServerArgs.resolve_once

        def resolve_then_check(self: Any, *args: Any, **kwargs: Any) -> Any:
            out = resolve_once(self, *args, **kwargs)
            try:
                self.check_server_args()
            except Exception as exc:  # noqa: BLE001 - every refusal is data
                raise LauncherCheckError(f"{type(exc).__name__}: {exc}") from exc
            return out

        ServerArgs.resolve_once = resolve_then_check
        row = run_case(case, facts)
        row["launcher_checked"] = True
        return row

    return run_case_and_check


def main() -> None:
    oracle = _oracle()
    oracle.__file__ = os.path.abspath(__file__)  # its workers start through this script
    oracle.run_case = _with_launcher_check(oracle.run_case)
    oracle.main()


if __name__ == "__main__":
    main()
