"""Collect per-field agreement over the parity suite and print it after the run."""

from __future__ import annotations

import pytest

from tests.parity.oracle_cases import AGREEMENT


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not AGREEMENT:
        return
    terminalreporter.section("parity: per-field agreement with recorded SGLang answers")
    for (compat, field), (agree, total) in sorted(AGREEMENT.items()):
        terminalreporter.write_line(f"{compat:8} {field:42} {agree:4}/{total:<4}")
