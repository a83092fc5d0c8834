"""GPU targets: the oracle's facts exactly, the further targets' facts and sources, the probes
derived from them, overrides, names, auto."""

from __future__ import annotations

import json
import re
import sys

import pytest

from launchplan.errors import InputError
from launchplan.facts.targets import (
    CATALOG,
    SIMULATED,
    TARGETS_FILE,
    get_target,
    local_ib_devices,
    parse_capability,
    parse_ib_devices,
    with_overrides,
)
from launchplan.rules.memory import tier_of

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


def test_gb300_is_an_sm103_grace_superchip_on_an_nvlink_fabric():
    """GB300: the B300's SM103 in an NVL72 tray of four, on an Arm (Grace) host, and told by
    its device name as a multi-node NVLink device (which picks fi_a2a for decode CP)."""
    from launchplan.rules.parallel import mnnvl_fabric_device

    gb300 = get_target("gb300")
    assert (gb300.sm, gb300.gpu_count, gb300.memory_mib) == (103, 4, 284208)
    assert gb300.is_sm100 and gb300.host_arm64 and mnnvl_fabric_device(gb300)
    assert not mnnvl_fabric_device(get_target("b300")) and not get_target("b300").host_arm64
    assert get_target("GB300 NVL72") is gb300 and get_target("NVIDIA GB300") is gb300


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


FURTHER = json.loads(TARGETS_FILE.read_text())["targets"]

# the architecture a device name belongs to, and its compute capability (CUDA's table)
FAMILIES = [
    (r"^NVIDIA (H20|H800|H100|H200|GH200)\b", (9, 0)),
    (r"^NVIDIA A(100|800)-", (8, 0)),
    (r"^NVIDIA (A10G?|GeForce RTX 3090)$", (8, 6)),
    (r"^NVIDIA (L40S?|L4|GeForce RTX 4090|RTX 6000 Ada Generation)$", (8, 9)),
    (r"^NVIDIA RTX PRO 6000 Blackwell", (12, 0)),
    (r"^NVIDIA GB10$", (12, 1)),
    (r"^NVIDIA GB300$", (10, 3)),
]
# (chunked_prefill_size, decode max_bs at tp 1) of SGLang's memory tier each size class falls in
TIERS = {24: (4096, 48), 40: (4096, 32), 48: (4096, 32), 80: (8192, 256), 94: (8192, 256),
         96: (8192, 256), 128: (8192, 256), 141: (8192, 256), 288: (16384, 512)}
GB = {"h20": 96, "h800": 80, "h100-pcie": 80, "h100-nvl": 94, "h200-nvl": 141, "gh200": 96,
      "a800": 80, "a100-40gb": 40, "l40s": 48, "l40": 48, "l4": 24, "a10g": 24, "a10": 24,
      "rtx4090": 24, "rtx3090": 24, "rtx6000-ada": 48, "rtx-pro-6000": 96,
      "rtx-pro-6000-ws": 96, "gb10": 128, "gb300": 288}


def test_the_simulated_targets_come_first_and_the_further_ones_are_all_named():
    assert list(CATALOG)[:len(SIMULATED)] == list(SIMULATED) == sorted(ORACLE, key=list(
        ORACLE).index)
    assert [row["name"] for row in FURTHER] == list(CATALOG)[len(SIMULATED):]
    assert sorted(GB) == sorted(row["name"] for row in FURTHER)


@pytest.mark.parametrize("row", FURTHER, ids=lambda row: row["name"])
def test_further_target_facts_are_consistent_and_sourced(row):
    t = CATALOG[row["name"]]
    assert re.fullmatch(r"[a-z][a-z0-9-]{1,15}", t.name)
    assert (t.vendor, t.runtime_version, t.has_flashinfer) == ("nvidia", "13.0", True)
    family = [cap for pattern, cap in FAMILIES if re.search(pattern, t.device_name)]
    assert family == [t.capability], t.device_name
    # nvidia-smi's MiB sit a few percent around the marketed GB (H100 80 GB: 81559 MiB)
    assert 0.9 < t.memory_mib * (1 << 20) / (GB[t.name] * 10**9) < 1.1
    assert tier_of(t.memory_mib, 1) == TIERS[GB[t.name]]
    assert t.gpu_count in (1, 4, 8) and row["assumes"]
    sources = " ".join(row["sources"].values())
    assert "https://" in sources
    for fact in ("device_name", "capability", "memory_mib"):
        assert any(fact in key for key in row["sources"]), fact


def test_device_names_are_unique_and_resolve_to_their_target():
    names = [t.device_name for t in CATALOG.values()]
    assert len(names) == len(set(names))
    for t in CATALOG.values():
        assert get_target(t.device_name) is t
        assert get_target(t.name.upper()) is t


@pytest.mark.parametrize("spelling, name", [
    ("H100_PCIe", "h100-pcie"), ("h100 nvl", "h100-nvl"), ("rtx-4090", "rtx4090"),
    ("RTX PRO 6000", "rtx-pro-6000"), ("NVIDIA GeForce RTX 3090", "rtx3090"),
    ("NVIDIA H100 80GB HBM3", "h100"), ("A100-40GB", "a100-40gb"), ("dgx-spark", None),
])
def test_spellings(spelling, name):
    if name is None:
        with pytest.raises(InputError, match="--gpu"):
            get_target(spelling)
    else:
        assert get_target(spelling).name == name


@pytest.mark.parametrize("typed, suggested", [
    ("4090", "rtx4090"), ("h2o", "h20"), ("l40x", "l40"), ("a100-24gb", "a100"),
    ("gb10x", "gb10"), ("rtx6000", "rtx6000-ada"),
])
def test_unknown_names_suggest_the_close_ones(typed, suggested):
    with pytest.raises(InputError) as info:
        get_target(typed)
    message = info.value.message
    assert "did you mean" in message and suggested in message.split("did you mean")[1]
    assert "--gpu-memory-mib" in message and "\n" not in message


@pytest.mark.parametrize(("spelling", "name"), [
    ("h100-sxm", "h100"), ("H100 SXM5 80GB", "h100"), ("h100_sxm5", "h100"),
    ("a100-80gb", "a100"), ("A100 40GB", "a100-40gb"), ("h200-141gb", "h200"),
    ("NVIDIA H100 PCIe 80GB", "h100-pcie"), ("gb200-nvl72", "gb200"), ("b200 192gb", "b200"),
    ("mi300x-192gb", "mi300x"), ("L40S-48GB", "l40s"),
])
def test_mounting_and_memory_words_are_read_past(spelling, name):
    assert get_target(spelling).name == name


@pytest.mark.parametrize("spelling", ["h100-96gb", "a100 24gb", "mi300", "sxm", "80gb",
                                      "h100 80gb 94gb"])
def test_another_skus_memory_or_a_bare_word_is_no_target(spelling):
    with pytest.raises(InputError, match="--gpu"):
        get_target(spelling)


def test_the_host_s_infiniband_devices_are_a_stated_fact(tmp_path):
    """Not stated: None (a launch's names are taken as present); ``none``: a host without;
    a list read as SGLang's device check reads the sysfs directory."""
    assert get_target("h100").ib_devices is None
    assert parse_ib_devices(" mlx5_0, mlx5_1,mlx5_0 ") == ("mlx5_0", "mlx5_1")
    assert parse_ib_devices("None") == ()
    with pytest.raises(InputError, match="--host-ib-devices"):
        parse_ib_devices(" , ")
    stated = with_overrides(get_target("h100"), ib_devices=("mlx5_0",))
    assert stated.ib_devices == ("mlx5_0",) and stated.facts()["ib_devices"] == ["mlx5_0"]
    assert "ib_devices" not in get_target("h100").facts()
    for name in ("mlx5_1", "mlx5_0"):
        (tmp_path / name).mkdir()
    assert local_ib_devices(str(tmp_path)) == ("mlx5_0", "mlx5_1")
    assert local_ib_devices(str(tmp_path / "absent")) == ()


def test_the_host_s_imex_channel_is_assumed_absent_and_can_be_stated():
    assert get_target("gb200").imex_channel is False
    stated = with_overrides(get_target("gb200"), imex_channel=True)
    assert stated.imex_channel and stated.facts()["imex_channel"] is True
    assert "imex_channel" not in get_target("gb200").facts()


def test_a_node_holds_at_most_the_bounded_number_of_gpus(capsys):
    """The memory plan keeps a figure per GPU count a launch can span: a count of 10^12 once
    ran for ever. Past the bound it is one line of bad input, at once."""
    from launchplan.commands.main import main
    from launchplan.facts.targets import MAX_GPUS_PER_NODE

    assert with_overrides(CATALOG["h100"], gpu_count=72).gpu_count == 72
    with pytest.raises(InputError, match="at most 1,024 on a node"):
        with_overrides(CATALOG["h100"], gpu_count=MAX_GPUS_PER_NODE + 1)
    code = main(["resolve", "--gpu", "h100", "--model-path", "deepseek-v3", "--tp", "8",
                 "--gpu-count", str(10**12)])
    assert code == 2 and "--gpu-count" in capsys.readouterr().err
