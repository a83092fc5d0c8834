"""The planner: what it does to the input before any rule reads it."""

from __future__ import annotations

import pytest

from launchplan import resolve


@pytest.mark.parametrize("compat", ["default", "0.5.21"])
def test_a_legacy_sgl_variable_is_read_under_its_sglang_name(compat):
    """SGLang's environ module renames every SGL_ variable to SGLANG_ when it is imported
    (0.5.21 to 0.5.23; checked in both oracle installs: SGL_GRPC_WORKER_THREADS=8 with
    SGLANG_GRPC_WORKER_THREADS=2 reads 8)."""
    plain = resolve([], gpu="h100", model_path="llama-3.1-8b", compat=compat)
    legacy = resolve([], gpu="h100", model_path="llama-3.1-8b", compat=compat,
                     env={"SGL_GRPC_WORKER_THREADS": "8"})
    both = resolve([], gpu="h100", model_path="llama-3.1-8b", compat=compat,
                   env={"SGLANG_GRPC_WORKER_THREADS": "2", "SGL_GRPC_WORKER_THREADS": "8"})
    assert plain.value("grpc_worker_threads") == 4
    assert legacy.value("grpc_worker_threads") == 8
    assert both.value("grpc_worker_threads") == 8  # the SGL_ value wins, as in SGLang
    warnings = legacy.to_dict()["warnings"]
    assert sum("SGL_GRPC_WORKER_THREADS is the legacy spelling" in w for w in warnings) == 1


def test_the_callers_environment_is_not_changed():
    env = {"SGL_GRPC_WORKER_THREADS": "8"}
    resolve([], gpu="h100", model_path="llama-3.1-8b", env=env)
    assert env == {"SGL_GRPC_WORKER_THREADS": "8"}
