"""How recorded oracle rows are read before comparison (``oracle_cases.load``)."""

from __future__ import annotations

from tests.parity.oracle_cases import _abbreviations_are_input


def _row(**sources: str) -> dict:
    return {"ok": True, "resolved": {}, "sources": dict(sources)}


def test_a_field_set_through_an_abbreviated_flag_is_the_input():
    # SGLang's parser takes --mem-frac for --mem-fraction-static; the oracle, matching whole
    # option strings, recorded the field as a default
    row = _row(mem_fraction_static="default", dp_size="default", page_size="default")
    _abbreviations_are_input(row, ["--mem-frac", "0.9", "--dp", "8"], "0.5.23")
    assert row["sources"] == {"mem_fraction_static": "input", "dp_size": "input",
                              "page_size": "default"}


def test_full_flags_ambiguous_prefixes_and_rule_sources_are_left_alone():
    row = _row(mem_fraction_static="_handle_gpu_memory_settings", tp_size="default")
    # --tp-size is the whole flag; --mem-frac= is read with its value; --cuda-graph is the
    # prefix of many flags (argparse refuses it as ambiguous)
    _abbreviations_are_input(row, ["--tp-size", "2", "--mem-frac=0.8", "--cuda-graph"],
                             "0.5.23")
    assert row["sources"] == {"mem_fraction_static": "_handle_gpu_memory_settings",
                              "tp_size": "default"}
