"""SGLang's environment variables read as SGLang reads them, and every read going through
the one table."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from launchplan.facts import environment
from launchplan.facts.environment import (
    VARIABLES,
    flag,
    given,
    plain_flag,
    unreadable,
    value,
)

SRC = Path(__file__).resolve().parents[2] / "src" / "launchplan"


@pytest.mark.parametrize("text,expected", [
    ("1", True), ("true", True), ("True", True), ("YES", True), ("y", True),
    ("0", False), ("false", False), ("No", False), ("n", False),
])
def test_a_boolean_knows_the_spellings_sglang_knows(text: str, expected: bool) -> None:
    assert flag({"SGLANG_USE_AITER": text}, "SGLANG_USE_AITER") is expected


@pytest.mark.parametrize("text", ["on", "off", " 1", "1 ", "", "enabled", "2"])
def test_any_other_boolean_text_is_the_default(text: str) -> None:
    # SGLang warns and keeps the default: off for most, on for a few
    assert flag({"SGLANG_USE_AITER": text}, "SGLANG_USE_AITER") is False
    assert flag({"SGLANG_ENABLE_JIT_DEEPGEMM": text}, "SGLANG_ENABLE_JIT_DEEPGEMM") is True


def test_unset_is_the_declared_default() -> None:
    for name, (_, default) in VARIABLES.items():
        assert value({}, name) == default or (default is None and value({}, name) is None)
    assert flag({}, "SGLANG_DSV4_FP4_EXPERTS") is True
    assert flag({}, "SGLANG_DSV4_FP4_DEQUANT") is False


def test_numbers_parse_as_python_parses_them_else_the_default() -> None:
    name = "SGLANG_VLM_CACHE_SIZE_MB"
    assert value({name: " 64 "}, name) == 64
    assert value({name: "1_000"}, name) == 1000
    for bad in ("abc", "12.5", "", "5e4"):
        assert value({name: bad}, name) == 100
    acc = "SGLANG_SIMULATE_ACC_LEN"
    assert value({acc: "2.5"}, acc) == 2.5
    assert math.isinf(value({acc: "inf"}, acc))
    assert math.isnan(value({acc: "nan"}, acc))
    assert value({acc: "fast"}, acc) == -1.0


def test_plain_flags_know_only_true_and_1() -> None:
    name = "SGLANG_AITER_K3_OPT"
    assert flag({name: "TRUE"}, name) and flag({name: "1"}, name)
    assert not flag({name: "yes"}, name) and not flag({}, name)
    # a declared variable read the plain way at one site (recorded: environment/dsa-aiter)
    aiter = "SGLANG_USE_AITER"
    assert flag({aiter: "y"}, aiter) and not plain_flag({aiter: "y"}, aiter)
    assert plain_flag({aiter: "True"}, aiter) and not plain_flag({}, aiter)


def test_given_is_set_whatever_the_text() -> None:
    assert given({"SGLANG_GRPC_PORT": ""}, "SGLANG_GRPC_PORT")
    assert not given({}, "SGLANG_GRPC_PORT")


def test_unreadable_values_are_named_with_the_default_sglang_keeps() -> None:
    lines = unreadable({"SGLANG_VLM_CACHE_SIZE_MB": "abc", "SGLANG_USE_AITER": "on",
                        "SGLANG_RUST_SERVER": "1", "SOMETHING_ELSE": "x"})
    assert len(lines) == 2
    assert any("SGLANG_VLM_CACHE_SIZE_MB='abc'" in line and "100" in line for line in lines)
    assert any("SGLANG_USE_AITER='on'" in line and "False" in line for line in lines)


def test_every_variable_a_rule_reads_by_name_is_in_the_table() -> None:
    """A read that bypasses the table would parse its own way; every SGLANG_ name in the
    package's code is declared here (or read only as a string/presence, listed below)."""
    names = set()
    for path in SRC.rglob("*.py"):
        if path.parts[-2] in ("input",):  # the readers of pasted text name examples
            continue
        names |= set(re.findall(r"\"(SGLANG_[A-Z0-9_]+)\"", path.read_text(encoding="utf-8")))
    undeclared = names - set(VARIABLES) - environment.PLAIN_FLAGS - {
        "SGLANG_PP_LAYER_PARTITION", "SGLANG_EXPERT_PACK_PATH"}  # read as text: os.getenv
    assert not undeclared, sorted(undeclared)
