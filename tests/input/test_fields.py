"""The field table as launchplan exposes it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from launchplan.input import fields
from launchplan.input.fields import (
    FIELDS,
    FLAG_TO_FIELD,
    GROUPS,
    REQUIRED_FIELDS,
    FieldSpec,
    default_of,
)


def _table() -> dict:
    with open(fields.TABLE_PATH, encoding="utf-8") as fh:
        return json.load(fh)


def test_every_table_row_becomes_a_spec_in_order() -> None:
    rows = _table()["fields"]
    assert len(FIELDS) == len(rows) == 546
    assert list(FIELDS) == [row["name"] for row in rows]
    assert all(isinstance(spec, FieldSpec) for spec in FIELDS.values())


def test_spec_is_frozen_and_slotted() -> None:
    spec = FIELDS["page_size"]
    with pytest.raises(AttributeError):
        spec.default = 7  # type: ignore[misc]
    assert not hasattr(spec, "__dict__")


def test_spec_attributes_follow_the_table() -> None:
    tp = FIELDS["tp_size"]
    assert tp.group == "parallel"
    assert tp.flags == ("--tp-size", "--tensor-parallel-size")
    assert tp.parse == "int" and tp.action == "_StoreAction" and tp.default == 1
    backend = FIELDS["cuda_graph_backend_decode"]
    assert backend.choices == ("full", "breakable", "disabled")
    assert backend.parse == "parse_cuda_graph_backend_arg"
    assert FIELDS["swa_full_tokens_ratio"].fallback == 0.8
    assert FIELDS["attention_backend"].resolvable is True
    assert FIELDS["model_checksum"].nargs == "?" and FIELDS["model_checksum"].const == ""
    assert FIELDS["stat_loggers"].flags == ()


def test_groups_partition_the_fields() -> None:
    assert len(GROUPS) == 21
    names = [name for group in GROUPS.values() for name in group]
    assert sorted(names) == sorted(FIELDS)
    assert "page_size" in GROUPS["schedule"]
    assert "cuda_graph_config" in GROUPS["exec.graph"]
    assert GROUPS["exec.overlap"] and len(GROUPS["exec.overlap"]) == 3


def test_flag_to_field_covers_every_spelling() -> None:
    for spec in FIELDS.values():
        for flag in spec.flags:
            assert FLAG_TO_FIELD[flag] == spec.name
    assert FLAG_TO_FIELD["--model"] == "model_path"
    assert FLAG_TO_FIELD["--ep"] == "ep_size"
    assert FLAG_TO_FIELD["--context-bucket"] == "cuda_graph_prefill_max_context"
    assert FLAG_TO_FIELD["--fp8-gemm-backend"] == "fp8_gemm_runner_backend"
    assert FLAG_TO_FIELD["--no-enable-tf32-matmul"] == "enable_tf32_matmul"
    assert FLAG_TO_FIELD["--disable-cuda-graph"] == "disable_cuda_graph"
    # a retired spelling the table does not list
    assert FLAG_TO_FIELD["--monokernel-backend"] == "enable_amd_monokernel"
    assert "--config" not in FLAG_TO_FIELD


def test_model_path_is_the_only_required_field() -> None:
    assert REQUIRED_FIELDS == {"model_path"}
    assert FIELDS["model_path"].required and FIELDS["model_path"].default is None
    assert default_of("model_path") is None


def test_default_of_returns_fresh_mutable_defaults() -> None:
    first = default_of("allowed_media_domains")
    assert first == [] and isinstance(first, list)
    first.append("example.com")
    assert default_of("allowed_media_domains") == []
    assert FIELDS["allowed_media_domains"].default == ()


def test_default_of_scalars() -> None:
    assert default_of("tp_size") == 1
    assert default_of("page_size") is None
    assert default_of("log_level") == "info"
    assert default_of("dllm_fdfo") is True
    with pytest.raises(KeyError):
        default_of("no_such_field")


def test_no_string_default_needs_argparse_conversion() -> None:
    # argparse runs the type function over string defaults it did not see; if a future table
    # had e.g. a "128k" default with human_readable_int, default_of would have to convert it.
    for spec in FIELDS.values():
        if isinstance(spec.default, str) and spec.flags:
            assert spec.parse in ("str", None), spec.name


def test_field_table_loads_fast_and_without_heavy_imports() -> None:
    code = (
        "import sys, time; t = time.perf_counter(); import launchplan.input.fields; "
        "print(time.perf_counter() - t); print('yaml' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[1] == "False"
    assert float(out[0]) < 0.5  # generous: a loaded CI box, not the ~3 ms target
