"""The oracle, simulating launchplan's further GPU targets as well as its own platforms.

    ~/sglang-oracle/bin/python tests/parity/tools/targets_oracle.py CASES --out OUT [--jobs N]

Same arguments and output as the oracle's ``sglang_oracle.py`` (``$LAUNCHPLAN_ORACLE_DIR``,
by default ``/work/shared/oracle``), whose platform table holds the nine simulated targets
only. This script adds one platform per target of ``src/launchplan/facts/data/targets.json``
(H20, L40S, A10G, RTX 4090, GB10, ...) with the same facts launchplan plans with: device name,
capability, memory (what ``nvidia-smi`` reports, which SGLang reads), GPUs per node, CUDA 13.0
and FlashInfer. Nothing of the oracle changes on disk: the table is extended in memory, and
its per-platform worker processes start through this script again so they see it too.

It also simulates a host's InfiniBand devices: a case whose ``env`` sets
``LAUNCHPLAN_ORACLE_IB_DEVICES`` (comma-separated names) runs on a host whose
``/sys/class/infiniband`` lists those names, so SGLang's device check of
``--disaggregation-ib-device`` / ``--mooncake-ib-device`` gets past the host lookup (this CPU
machine has no such directory) and shows how it normalises and refuses the value itself.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from oracle_common import load_oracle

TARGETS = Path(__file__).resolve().parents[3] / "src/launchplan/facts/data/targets.json"
# Hosts that are not x86: SGLang asks the CPU architecture only for its CPU device.
AARCH64 = {"gh200", "gb10"}
# SGLang's resolution never reads the SM count; the fake device needs one.
SMS = 132
IB_SYSFS, IB_DEVICES = "/sys/class/infiniband", "LAUNCHPLAN_ORACLE_IB_DEVICES"


def _oracle() -> Any:
    return load_oracle()


def platforms() -> dict[str, dict]:
    """The oracle's platform entry for each further target (keys as its table spells them)."""
    out = {}
    for row in json.loads(TARGETS.read_text(encoding="utf-8"))["targets"]:
        major, minor = (int(x) for x in row["capability"].split("."))
        entry = dict(vendor="nvidia", cuda="13.0", has_flashinfer=True, cap=(major, minor),
                     name=row["device_name"], mem_mib=row["memory_mib"], sms=SMS,
                     gpus=row["gpu_count"])
        if row["name"] in AARCH64:
            entry["host_arch"] = "aarch64"
        out[row["name"]] = entry
    return out


def simulate_infiniband() -> None:
    """Answer for ``/sys/class/infiniband`` from the case's environment (see the docstring)."""
    isdir, listdir = os.path.isdir, os.listdir

    def _names() -> list[str] | None:
        given = os.environ.get(IB_DEVICES)
        return None if given is None else [n for n in given.split(",") if n]

    def sim_isdir(path: Any) -> bool:
        if path == IB_SYSFS and _names() is not None:
            return True
        return isdir(path)

    def sim_listdir(path: Any = ".") -> list:
        names = _names() if path == IB_SYSFS else None
        return list(names) if names is not None else listdir(path)

    os.path.isdir, os.listdir = sim_isdir, sim_listdir


def main() -> None:
    simulate_infiniband()
    oracle = _oracle()
    for name, entry in platforms().items():
        oracle.PLATFORMS.setdefault(name, entry)
    oracle.__file__ = os.path.abspath(__file__)  # its workers start through this script
    oracle.main()


if __name__ == "__main__":
    main()
