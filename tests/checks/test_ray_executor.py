"""``check --executor ray``: the same report as the local executor, from Ray tasks on a local
instance (loopback, 2 CPUs). Skipped where the ray extra is not installed."""

from __future__ import annotations

import pytest

from launchplan.checks.runner import run_check
from launchplan.checks.space import Space, default_models
from launchplan.facts.targets import SIMULATED

pytest.importorskip(
    "ray", reason="the ray extra is not installed (pip install '.[ray]'): the Ray executor "
    "is not exercised here")


def test_ray_check_reports_what_the_local_check_reports():
    points = Space(list(SIMULATED), default_models()).sample(1200, seed=5)  # 3 units of 500
    local = run_check(points, "default", jobs=1).to_dict()
    assert run_check(points, "default", executor="ray").to_dict() == local
