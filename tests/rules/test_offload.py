"""The offload flags that exclude each other, checked before and after the model overrides."""

from __future__ import annotations

import math

import pytest

from launchplan.errors import Refusal
from launchplan.planner import resolve
from launchplan.rulesets import get_ruleset


def _refusal(argv: list[str] | None = None, **fields: object) -> str | None:
    try:
        resolve(argv or [], fields=fields or None, gpu="h100", model_path="llama-3.1-8b")
    except Refusal as refusal:
        return refusal.source
    return None


@pytest.mark.parametrize("argv", [
    ["--ple-offload-embedding", "--cpu-offload-gb", "4"],
    ["--ple-offload-embedding", "--offload-group-size", "2"],
    ["--ple-offload-backend", "file", "--no-ple-offload-embedding"],
])
def test_conflicting_offload_flags_are_refused_first_thing(argv: list[str]) -> None:
    assert _refusal(argv) == "offload_compatibility"


@pytest.mark.parametrize("argv", [
    ["--ple-offload-embedding"],
    ["--ple-offload-embedding", "--offload-group-size", "0"],
    ["--ple-offload-backend", "file"],  # PLE offload left unset: not explicitly off
    ["--no-ple-offload-embedding", "--cpu-offload-gb", "4"],
])
def test_compatible_offload_flags_resolve(argv: list[str]) -> None:
    assert _refusal(argv) is None


def test_numbers_that_are_not_above_zero_never_conflict() -> None:
    for value in (math.nan, -math.inf, 0, -3):
        assert _refusal(ple_offload_embedding=True, cpu_offload_gb=value) is None
    assert _refusal(ple_offload_embedding=True, cpu_offload_gb=math.inf) == \
        "offload_compatibility"


def test_the_second_check_runs_after_the_model_overrides_in_every_release() -> None:
    for compat in ("default", "0.5.23", "0.5.22", "0.5.21"):
        names = [spec.name for spec in get_ruleset(compat).rules()]
        first, second = names.index("offload_compatibility"), \
            names.index("offload_compatibility_recheck")
        assert first < names.index("qwen4_exp_overrides") < second, compat
