"""GPU targets: the oracle's facts exactly, the probes derived from them, overrides, auto."""

from __future__ import annotations

import sys

import pytest

from launchplan.errors import InputError
from launchplan.facts.targets import CATALOG, get_target, parse_capability, with_overrides

# name: (capability, MiB per GPU, GPUs, vendor, runtime, flashinfer) from the oracle's README
ORACLE = {
    "a100": ((8, 0), 81920, 8, "nvidia", "13.0", True),
    "h100": ((9, 0), 81559, 8, "nvidia", "13.0", True),
    "h200": ((9, 0), 143771, 8, "nvidia", "13.0", True),
    "b200": ((10, 0), 183359, 8, "nvidia", "13.0", True),
    "gb200": ((10, 0), 189471, 4, "nvidia", "13.0", True),
    "b300": ((10, 3), 275040, 8, "nvidia", "13.0", True),
    "rtx5090": ((12, 0), 32607, 1, "nvidia", "13.0", True),
    "mi300x": ((9, 4), 196592, 8, "amd", "6.4", False),
    "mi355x": ((9, 5), 294896, 8, "amd", "7.0", False),
}


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_catalog_matches_the_oracle(name):
    t = CATALOG[name]
    assert (t.capability, t.memory_mib, t.gpu_count, t.vendor, t.runtime_version,
            t.has_flashinfer) == ORACLE[name]


def test_derived_probes():
    assert CATALOG["h100"].is_sm90 and not CATALOG["h100"].is_sm100
    assert all(CATALOG[n].is_sm100 for n in ("b200", "gb200", "b300"))
    assert CATALOG["rtx5090"].is_sm120 and CATALOG["rtx5090"].is_blackwell
    assert not CATALOG["mi300x"].is_cuda and CATALOG["mi300x"].is_hip
    assert not CATALOG["mi300x"].is_sm90  # capability 9.4 on ROCm is not Hopper
    assert CATALOG["mi355x"].is_gfx95 and not CATALOG["mi300x"].is_gfx95
    assert CATALOG["b300"].sm == 103


def test_overrides_plan_for_another_sku():
    old_cuda = with_overrides(CATALOG["h100"], cuda_version="12.2")
    assert not old_cuda.is_sm90  # Hopper needs CUDA >= 12.3
    small = with_overrides(CATALOG["b200"], memory_mib=98304, gpu_count=4)
    assert (small.memory_mib, small.gpu_count, small.capability) == (98304, 4, (10, 0))
    assert with_overrides(CATALOG["a100"], capability="9.0").is_sm90
    assert with_overrides(CATALOG["a100"]) is CATALOG["a100"]


@pytest.mark.parametrize(("text", "cap"), [("10.0", (10, 0)), ("100", (10, 0)), ("9", (9, 0)),
                                           ("12.1", (12, 1))])
def test_capability_spellings(text, cap):
    assert parse_capability(text) == cap


@pytest.mark.parametrize("bad", ["x", "", "1.2.3", "99.0", "-1"])
def test_bad_capability(bad):
    with pytest.raises(InputError, match="--gpu-capability"):
        parse_capability(bad)


def test_bad_overrides_and_names():
    with pytest.raises(InputError, match="--gpu-memory-mib"):
        with_overrides(CATALOG["h100"], memory_mib=0)
    with pytest.raises(InputError, match="did you mean h100"):
        get_target("h10")


def test_auto_without_nvml_says_so_plainly(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    with pytest.raises(InputError) as info:
        get_target("auto")
    assert "nvidia-ml-py" in info.value.message and "\n" not in info.value.message
