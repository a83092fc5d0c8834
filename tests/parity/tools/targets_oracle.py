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
machine has no such directory) and shows how it normalises and refuses the value itself; a
case whose ``env`` sets ``LAUNCHPLAN_ORACLE_IMEX_CHANNEL`` runs on a host that mounts an IMEX
channel (``/dev/nvidia-caps-imex-channels/channel0``), which SGLang asks before it picks CUDA
VMM feature transport on a GB200/GB300. SGLang then asks the model's class whether it declares
that transport, and the oracle's venv cannot import model classes (their kernel modules are
absent), so this script answers from the installed model sources instead: the class SGLang
would resolve (the first registered architecture; none under ``--model-impl transformers`` or
``mindspore``, whose wrapper classes declare nothing) and the attribute as the class or a base
sets it, read with ``ast``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from oracle_common import load_oracle

TARGETS = Path(__file__).resolve().parents[3] / "src/launchplan/facts/data/targets.json"
# Hosts that are not x86: SGLang asks the CPU architecture only for its CPU device.
AARCH64 = {"gh200", "gb10", "gb300"}
# SGLang's resolution never reads the SM count; the fake device needs one.
SMS = 132
IB_SYSFS, IB_DEVICES = "/sys/class/infiniband", "LAUNCHPLAN_ORACLE_IB_DEVICES"
IMEX_PATH, IMEX = "/dev/nvidia-caps-imex-channels/channel0", "LAUNCHPLAN_ORACLE_IMEX_CHANNEL"


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


def simulate_imex_channel() -> None:
    """Answer for the IMEX channel's device node from the case's environment (and, when it is
    mounted, for the model class's CUDA VMM declaration SGLang asks next)."""
    exists = os.path.exists

    def sim_exists(path: Any) -> bool:
        if path == IMEX_PATH:
            if IMEX not in os.environ:
                return False
            import sglang.srt.model_loader.utils as loader_utils

            loader_utils.supports_cuda_vmm_feature_transport = _declares_cuda_vmm
            return True
        return exists(path)

    os.path.exists = sim_exists


def _declares_cuda_vmm(model_config: Any) -> bool:
    impl = str(getattr(model_config, "model_impl", "auto")).lower()
    if impl.endswith(("transformers", "mindspore")):
        return False
    declared = _cuda_vmm_classes()
    for arch in getattr(model_config.hf_config, "architectures", None) or []:
        if arch in declared:
            return declared[arch]
    return False  # no registered class: SGLang's Transformers wrapper, which declares nothing


_VMM: dict[str, bool] = {}


def _cuda_vmm_classes() -> dict[str, bool]:
    """Each registered model class (``EntryClass``) of the installed SGLang: whether it, or the
    nearest base that says, sets ``supports_cuda_vmm_feature_transport``."""
    if _VMM:
        return _VMM
    import ast
    import importlib.util

    spec = importlib.util.find_spec("sglang.srt.models")
    assert spec is not None and spec.submodule_search_locations
    folder = Path(list(spec.submodule_search_locations)[0])
    classes: dict[str, tuple[list[str], bool | None]] = {}
    entries: set[str] = set()
    for path in sorted(folder.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "")
                         for b in node.bases]
                said = None
                for stmt in node.body:
                    target = (stmt.targets[0] if isinstance(stmt, ast.Assign) else
                              stmt.target if isinstance(stmt, ast.AnnAssign) else None)
                    if isinstance(target, ast.Name) and \
                            target.id == "supports_cuda_vmm_feature_transport":
                        said = bool(getattr(stmt.value, "value", False))
                classes.setdefault(node.name, (bases, said))
            elif isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets):
                items = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) \
                    else [node.value]
                entries.update(i.id for i in items if isinstance(i, ast.Name))

    def declares(name: str, seen: frozenset[str] = frozenset()) -> bool:
        if name not in classes or name in seen:
            return False
        bases, said = classes[name]
        if said is not None:
            return said
        return any(declares(b, seen | {name}) for b in bases if b)

    _VMM.update({name: declares(name) for name in entries})
    return _VMM


def main() -> None:
    simulate_infiniband()
    simulate_imex_channel()
    oracle = _oracle()
    for name, entry in platforms().items():
        oracle.PLATFORMS.setdefault(name, entry)
    oracle.__file__ = os.path.abspath(__file__)  # its workers start through this script
    oracle.main()


if __name__ == "__main__":
    main()
