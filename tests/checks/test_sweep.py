"""``sweep``'s work units: the grouping is the same wherever the units ran, and it is the
grouping of the whole resolved plans (the compact per-point outcomes lose nothing)."""

from __future__ import annotations

import pytest

from launchplan.checks.effective import candidate_fields, effective, key_of
from launchplan.checks.preflight import preflight
from launchplan.checks.runner import point_resolver
from launchplan.checks.space import Space
from launchplan.checks.sweep import add_columns, axis_values, run_sweep
from launchplan.errors import InputError, Refusal

GRID = Space(["h100", "b200"], ["llama-3.1-8b", "deepseek-v3"],
             axes=[("page_size", (1, 16, 64)),
                   ("attention_backend", ("fa3", "flashinfer", "triton", "fa4")),
                   ("chunked_prefill_size", (2048, 8192)), ("tp_size", (8,))],
             replace_defaults=True, compats=("0.5.22", "0.5.23"))
AXES = ["compat", "gpu", "model", "page_size", "attention_backend", "chunked_prefill_size",
        "tp_size"]


def _reference(points, axes, compat):
    """The grouping computed from whole Result objects, the way sweep did in one process."""
    resolve = point_resolver(compat)
    started, refused, failing = [], 0, 0
    for point in points:
        try:
            result = resolve(point)
        except (Refusal, InputError):
            refused += 1
            continue
        if not preflight(result).starts:
            failing += 1
            continue
        started.append((point, result))
    names = candidate_fields(r for _, r in started)
    groups: dict[str, list[dict]] = {}
    for point, result in started:
        groups.setdefault(key_of(effective(result, names)), []).append(
            axis_values(point, axes))
    return groups, refused, failing


@pytest.fixture(scope="module")
def points():
    return list(GRID)


def test_units_group_as_the_whole_plans_do(points):
    report = run_sweep(points, AXES, "default")
    groups, refused, failing = _reference(points, AXES, "default")
    assert len(points) == 192
    assert {key_of(g.config): [{k: v for k, v in p.items() if k != "verdict"}
                               for p in g.points] for g in report.distinct} == groups
    assert sum(len(p) for p in report.refused.values()) == refused
    assert sum(len(p) for p in report.not_starting.values()) == failing
    # most plans are the same on both releases; DeepSeek's prefill graphs are not
    releases = [{p["compat"] for p in g.points} for g in report.distinct]
    assert {"0.5.22", "0.5.23"} in releases and {"0.5.23"} in releases


def test_processes_give_the_same_report(points):
    one = run_sweep(points, AXES, "default")
    two = run_sweep(points, AXES, "default", jobs=2)
    add_columns(one, ["max_total_num_tokens", "page_size"])
    add_columns(two, ["max_total_num_tokens", "page_size"])
    assert two.to_dict() == one.to_dict()
    assert all(g.columns["page_size"] == g.config.get("page_size", g.columns["page_size"])
               for g in one.distinct)
    assert any(isinstance(g.columns["max_total_num_tokens"], int) for g in one.distinct)


def test_ray_tasks_give_the_same_report(points):
    pytest.importorskip("ray", reason="the ray extra is not installed")
    subset = points[:60]
    local = run_sweep(subset, AXES, "default").to_dict()
    assert run_sweep(subset, AXES, "default", executor="ray").to_dict() == local
