"""GPU targets as facts: what SGLang's platform probes would answer on each machine.

A rule never asks the machine anything; it reads a ``Target``. The catalog's first nine use
the same facts as the oracle's simulated platforms, so both sides resolve the same machine; the
further targets (``data/targets.json``: H20, L40S, RTX 4090, ...) carry public facts with their
sources, and ``tests/parity/tools/targets_oracle.py`` simulates them the same way.
"""

from __future__ import annotations

import os
from pathlib import Path

from launchplan import tables
from launchplan.errors import InputError
from launchplan.facts.memo import per_object
from launchplan.struct import Struct


class Target(Struct):
    """One GPU host: vendor, compute capability, memory per GPU, GPU count and runtime."""

    name: str
    vendor: str  # "nvidia" | "amd"
    device_name: str
    capability: tuple[int, int]
    memory_mib: int | None
    gpu_count: int
    runtime_version: str  # CUDA version on NVIDIA, ROCm version on AMD
    has_flashinfer: bool
    gfx: str | None = None  # AMD architecture name, e.g. gfx942
    #: Memory free on each GPU just before the weights load (after the CUDA context and the
    #: communication buffers); None: ``memory_mib - PRELOAD_OVERHEAD_MIB``. Overridable.
    before_load_mib: int | None = None
    #: What loading the weights spends beyond the checkpoint's tensors, per GPU; None: the
    #: memory plan's stated assumption (``memory.plan.LOAD_OVERHEAD_BYTES``). Overridable.
    load_overhead_mib: int | None = None
    #: GPUs of a node joined by NVLink (NVSwitch or bridges). On PCIe-only parts (the
    #: L4/L40S/A10 class, GeForce and RTX workstation cards) the communication buffers set
    #: up before loading do not grow with the peers (``preload_overhead_mib``).
    nvlink: bool = True
    #: The host's InfiniBand devices (what ``/sys/class/infiniband`` lists), which SGLang's
    #: RDMA device check looks each named device up in; ``()`` a host with none. None: not
    #: stated, and the names a launch gives are taken as present. Overridable
    #: (``--host-ib-devices``); ``--gpu auto`` reads this host's.
    ib_devices: tuple[str, ...] | None = None
    #: The host mounts an IMEX channel (``/dev/nvidia-caps-imex-channels/channel0``, set up
    #: by an MNNVL compute domain), which SGLang requires before it picks CUDA VMM transport
    #: for a multi-node multimodal launch on GB200/GB300. Assumed absent (SGLang's choice is
    #: then cpu); overridable (``--host-imex-channel``); ``--gpu auto`` reads this host's.
    imex_channel: bool = False

    # --- what SGLang's platform probes derive from the facts above ---------------------------

    @property
    def is_cuda(self) -> bool:
        return self.vendor == "nvidia"

    @property
    def is_hip(self) -> bool:
        return self.vendor == "amd"

    @property
    def host_arm64(self) -> bool:
        """The GPU comes with an Arm host CPU: NVIDIA's Grace superchips (GH200, GB200, GB300:
        Neoverse V2 cores) and GB10 (DGX Spark: Cortex-X925/A725 cores), SGLang's
        ``is_host_cpu_arm64``; every other target is assumed on an x86-64 host."""
        return self.is_cuda and any(part in self.device_name
                                    for part in ("GH200", "GB200", "GB300", "GB10"))

    @property
    def sm(self) -> int:
        """Capability as SGLang's ``device_sm`` number (9.0 → 90, 10.3 → 103)."""
        return self.capability[0] * 10 + self.capability[1]

    @property
    def is_sm90(self) -> bool:
        """Hopper with CUDA >= 12.3 (SGLang's ``is_hopper_with_cuda_12_3``)."""
        return _probes(self)["sm90"]

    @property
    def is_sm100(self) -> bool:
        """The whole SM10x major (B200, GB200, B300) with CUDA >= 12.8."""
        return _probes(self)["sm100"]

    @property
    def is_sm110(self) -> bool:
        return _probes(self)["sm110"]

    @property
    def is_sm120(self) -> bool:
        return _probes(self)["sm120"]

    @property
    def is_blackwell(self) -> bool:
        return _probes(self)["blackwell"]

    @property
    def is_gfx95(self) -> bool:
        return bool(self.gfx) and self.gfx.startswith("gfx95")

    def facts(self) -> dict[str, object]:
        """The facts as plain data, for JSON output and explanations."""
        return {
            "name": self.name,
            "vendor": self.vendor,
            "device_name": self.device_name,
            "capability": f"{self.capability[0]}.{self.capability[1]}",
            "memory_mib": self.memory_mib,
            "gpu_count": self.gpu_count,
            ("cuda_version" if self.is_cuda else "rocm_version"): self.runtime_version,
            "has_flashinfer": self.has_flashinfer,
            **({"before_load_mib": self.before_load_mib}
               if self.before_load_mib is not None else {}),
            **({"load_overhead_mib": self.load_overhead_mib}
               if self.load_overhead_mib is not None else {}),
            **({"gfx": self.gfx} if self.gfx else {}),
            **({} if self.nvlink else {"nvlink": False}),
            **({"ib_devices": list(self.ib_devices)} if self.ib_devices is not None else {}),
            **({"imex_channel": True} if self.imex_channel else {}),
        }


#: What a GPU has already spent when SGLang takes its pre-load memory baseline: the CUDA
#: context, and NCCL and custom all-reduce buffers that grow with the peers it talks to.
#: A stated assumption, from public start-up logs ("avail mem" before "Load weight begin"):
#: one H100 alone spends 0.84-1.17 GiB (SGLang's docs builds and pull request #4760), eight
#: H200 ranks 3.11 GiB each (pull request #11716: 140.40 - 137.29 GiB). In between it is
#: taken as linear in the GPUs of the node the launch spans; override with
#: ``before_load_mib`` when a real launch's log is at hand. The per-peer part is NVLink's:
#: four PCIe-only L4s spend 0.86 GiB each at tp 4, less than one H100 alone (QwQ-32B's
#: start-up log in github.com/didier-durand/llms-in-clouds docs/sglang.md, where SGLang
#: also reports its custom all-reduce off on more than two PCIe-only GPUs), so a target
#: without NVLink is charged the base only.
PRELOAD_BASE_MIB = 1024
PRELOAD_PER_PEER_MIB = 309  # (3186 - 1024) / 7: eight GPUs spend the 3.11 GiB above
PRELOAD_OVERHEAD_MIB = PRELOAD_BASE_MIB + 7 * PRELOAD_PER_PEER_MIB  # an 8-GPU launch


def preload_overhead_mib(gpus: int = 8, nvlink: bool = True) -> int:
    """The assumed overhead per GPU for a launch spanning ``gpus`` GPUs of one node
    (joined by NVLink unless ``nvlink`` is false)."""
    if not nvlink:
        return PRELOAD_BASE_MIB
    return PRELOAD_BASE_MIB + PRELOAD_PER_PEER_MIB * (max(1, gpus) - 1)


def before_load_bytes(target: Target, gpus: int | None = None) -> int | None:
    """Free bytes per GPU before loading: the target's stated figure, or its memory less
    the assumed overhead for ``gpus`` GPUs of the node (all of them when not given); None
    when the memory is unknown."""
    if target.before_load_mib is not None:
        return target.before_load_mib * (1 << 20)
    if target.memory_mib is None:
        return None
    count = target.gpu_count
    spanned = count if gpus is None or gpus > count else gpus
    if not target.nvlink:  # ``preload_overhead_mib``, inline (asked on every memory plan)
        overhead = PRELOAD_BASE_MIB
    else:
        overhead = PRELOAD_BASE_MIB + PRELOAD_PER_PEER_MIB * (spanned - 1 if spanned > 1 else 0)
    free = target.memory_mib - overhead
    return free * (1 << 20) if free > 0 else 0


@per_object
def _probes(target: Target) -> dict[str, bool]:
    """SGLang's platform predicates for one target, computed once per target object."""
    major = target.capability[0]
    cuda = target.is_cuda and _version(target.runtime_version)
    cuda_12_3 = bool(cuda) and cuda >= (12, 3)
    cuda_12_8 = bool(cuda) and cuda >= (12, 8)
    return {"sm90": major == 9 and cuda_12_3, "sm100": major == 10 and cuda_12_8,
            "sm110": major == 11 and cuda_12_8, "sm120": major == 12 and cuda_12_8,
            "blackwell": major in (10, 11, 12) and cuda_12_8}


_VERSIONS: dict[str, tuple[int, int]] = {}


def _version(text: str) -> tuple[int, int]:
    """``"12.8"`` -> ``(12, 8)``, memoized: the platform probes ask on every resolution."""
    known = _VERSIONS.get(text)
    if known is not None:
        return known
    parts = text.split(".")
    try:
        version = (int(parts[0]), int(parts[1]) if len(parts) > 1 else 0)
    except ValueError:
        version = (0, 0)
    if len(_VERSIONS) < 1024:
        _VERSIONS[text] = version
    return version


_NV = dict(vendor="nvidia", runtime_version="13.0", has_flashinfer=True)

#: The oracle's simulated platforms: the same facts on both sides (see the module docstring).
_SIMULATED = (
    Target("a100", device_name="NVIDIA A100-SXM4-80GB", capability=(8, 0),
           memory_mib=81920, gpu_count=8, **_NV),
    Target("h100", device_name="NVIDIA H100 80GB HBM3", capability=(9, 0),
           memory_mib=81559, gpu_count=8, **_NV),
    Target("h200", device_name="NVIDIA H200", capability=(9, 0),
           memory_mib=143771, gpu_count=8, **_NV),
    Target("b200", device_name="NVIDIA B200", capability=(10, 0),
           memory_mib=183359, gpu_count=8, **_NV),
    Target("gb200", device_name="NVIDIA GB200", capability=(10, 0),
           memory_mib=189471, gpu_count=4, **_NV),
    Target("b300", device_name="NVIDIA B300 SXM6 AC", capability=(10, 3),
           memory_mib=275040, gpu_count=8, **_NV),
    Target("rtx5090", device_name="NVIDIA GeForce RTX 5090", capability=(12, 0),
           memory_mib=32607, gpu_count=1, nvlink=False, **_NV),
    Target("mi300x", vendor="amd", device_name="AMD Instinct MI300X", capability=(9, 4),
           memory_mib=196592, gpu_count=8, runtime_version="6.4", has_flashinfer=False,
           gfx="gfx942"),
    Target("mi355x", vendor="amd", device_name="AMD Instinct MI355X", capability=(9, 5),
           memory_mib=294896, gpu_count=8, runtime_version="7.0", has_flashinfer=False,
           gfx="gfx950"),
)

#: Where the further targets' facts live, each with the public source it was read from.
TARGETS_FILE = Path(__file__).with_name("data") / "targets.json"


def _more_targets() -> tuple[Target, ...]:
    """The GPUs people launch SGLang on beyond the simulated set (``data/targets.json``):
    NVIDIA parts with CUDA 13.0 and FlashInfer, as the simulated NVIDIA targets."""
    rows = tables.load(str(TARGETS_FILE))["targets"]
    return tuple(
        Target(row["name"], device_name=row["device_name"],
               capability=_capability(row["capability"]), memory_mib=row["memory_mib"],
               gpu_count=row["gpu_count"], nvlink=row.get("nvlink", True), **_NV)
        for row in rows)


def _capability(text: str) -> tuple[int, int]:
    major, minor = text.split(".")
    return int(major), int(minor)


#: Every named target, by name: the simulated set first, then ``data/targets.json``.
CATALOG: dict[str, Target] = {t.name: t for t in (*_SIMULATED, *_more_targets())}

#: The targets the oracle simulates. ``check``'s default space, ``matrix`` and the benchmarks
#: walk these: the others repeat their platform behaviour (a capability class and a memory
#: tier) and would nearly triple a default ``check`` run. Name any target with ``--gpu``.
SIMULATED: tuple[str, ...] = tuple(t.name for t in _SIMULATED)


def _compact(text: str) -> str:
    """``"H100_PCIe"``, ``"h100 pcie"``, ``"NVIDIA H100 PCIe"`` -> ``"h100pcie"``."""
    key = text.strip().lower()
    for vendor in ("nvidia ", "amd "):
        if key.startswith(vendor):
            key = key[len(vendor):]
    return "".join(ch for ch in key if ch.isalnum())


@per_object
def _aliases(catalog: dict[str, Target]) -> dict[str, str]:
    """Compact spellings of each name and device name -> the target's name."""
    out: dict[str, str] = {}
    for target in catalog.values():
        out.setdefault(_compact(target.device_name), target.name)
    for target in catalog.values():  # a name wins over another target's device name
        out[_compact(target.name)] = target.name
    return out


def get_target(name: str) -> Target:
    """A catalog target by name (case-insensitive; ``h100_pcie``, ``H100 PCIe`` and the device
    name CUDA reports work too), or ``auto`` for the local GPU."""
    key = name.strip().lower()
    if key == "auto":
        return detect()
    found = CATALOG.get(key) or CATALOG.get(_aliases(CATALOG).get(_compact(name), "")) \
        or _loosely(name)
    if found is not None:
        return found
    raise InputError(
        "--gpu", "a target of `launchplan targets` or auto", name,
        _suggestion(name) + "; for a GPU not listed, name the closest target and add "
        "--gpu-memory-mib, --gpu-capability, --gpu-count",
    )


def by_device_name(name: str) -> Target | None:
    """The catalog target whose device is ``name`` as CUDA or ROCm reports it (a start-up
    log prints it so), or None: no looser reading, since a log's GPU picks the target."""
    key = _compact(name)
    return next((t for t in CATALOG.values() if _compact(t.device_name) == key), None)


#: Words that say how a part is mounted (or racked) or what memory it carries, not which
#: part it is.
_MOUNTING = frozenset({"sxm", "sxm2", "sxm3", "sxm4", "sxm5", "sxm6", "hbm2e", "hbm3", "hbm3e",
                       "nvl36", "nvl72"})


def _size(word: str) -> int | None:
    """``80gb``, ``80g``, ``80gib`` -> 80."""
    for unit in ("gib", "gb", "g"):
        if word.endswith(unit) and word[:-len(unit)].isdigit():
            return int(word[:-len(unit)])
    return None


def _loosely(name: str) -> Target | None:
    """A target named with the mounting and memory words people add (``h100-sxm``,
    ``H100 SXM5 80GB``, ``a100-80gb``, ``h200-141gb``, ``gb200-nvl72``): those words dropped,
    the rest must name one target, and a memory size given must be that target's (within
    8%: vendors say 80 GB for 79.6 GiB, 141 GB for 140.4): another SKU's size is no match."""
    words = "".join(ch if ch.isalnum() else " " for ch in name.strip().lower()).split()
    if words[:1] in (["nvidia"], ["amd"]):
        words = words[1:]
    sizes = [size for w in words if (size := _size(w)) is not None]
    rest = [w for w in words if w not in _MOUNTING and _size(w) is None]
    if len(rest) == len(words) or not rest or len(sizes) > 1:
        return None  # nothing dropped: the plain lookup already failed
    found = CATALOG.get(_aliases(CATALOG).get("".join(rest), ""))
    if found is None or (sizes and (found.memory_mib is None or abs(
            sizes[0] - found.memory_mib / 1024) > 0.08 * found.memory_mib / 1024)):
        return None
    return found


def _suggestion(name: str) -> str:
    """The closest target names: containment first (``4090`` -> rtx4090), else spelling."""
    import difflib

    key, aliases = _compact(name), _aliases(CATALOG)
    close = [] if not key else sorted(
        {aliases[a] for a in aliases if key in a or (len(a) >= 3 and a in key)},
        key=lambda n: (abs(len(_compact(n)) - len(key)), n))
    if not close:
        close = [aliases[a] for a in difflib.get_close_matches(key, aliases, n=3, cutoff=0.5)]
    close = list(dict.fromkeys(close))[:3]
    return ("did you mean " + " or ".join(close) + "?") if close else "no target is close"


#: GPUs one node (one target) may hold: a planning bound far above any node or NVLink domain
#: built (8 on HGX boards, 72 in a GB200 NVL72 rack taken as one domain). The memory plan
#: keeps a figure per GPU count a launch can span, so a count of 10^12 once ran for ever.
MAX_GPUS_PER_NODE = 1024


def with_overrides(
    target: Target,
    *,
    memory_mib: int | None = None,
    capability: str | None = None,
    gpu_count: int | None = None,
    cuda_version: str | None = None,
    before_load_mib: int | None = None,
    load_overhead_mib: int | None = None,
    ib_devices: tuple[str, ...] | None = None,
    imex_channel: bool | None = None,
) -> Target:
    """Plan for another SKU: the same target with some facts replaced."""
    changes: dict[str, object] = {}
    if imex_channel is not None:
        changes["imex_channel"] = imex_channel
    if ib_devices is not None:
        changes["ib_devices"] = ib_devices
    if load_overhead_mib is not None:
        if load_overhead_mib < 0:
            raise InputError("--load-overhead-mib", "zero or a positive number of MiB",
                             load_overhead_mib)
        changes["load_overhead_mib"] = load_overhead_mib
    if before_load_mib is not None:
        if before_load_mib <= 0:
            raise InputError("--before-load-mib", "a positive number of MiB", before_load_mib)
        changes["before_load_mib"] = before_load_mib
    if memory_mib is not None:
        if memory_mib <= 0:
            raise InputError("--gpu-memory-mib", "a positive number of MiB", memory_mib)
        changes["memory_mib"] = memory_mib
    if capability is not None:
        changes["capability"] = parse_capability(capability)
    if gpu_count is not None:
        if not 0 < gpu_count <= MAX_GPUS_PER_NODE:
            raise InputError("--gpu-count", f"a positive number of GPUs, at most "
                             f"{MAX_GPUS_PER_NODE:,} on a node", gpu_count)
        changes["gpu_count"] = gpu_count
    if cuda_version is not None:
        if _version(cuda_version) == (0, 0):
            raise InputError("--cuda-version", "a version such as 12.8", cuda_version)
        changes["runtime_version"] = cuda_version
    # a fact given as the target already has it changes nothing (``8xH200`` is an h200)
    changes = {k: v for k, v in changes.items() if getattr(target, k, _NONE) != v}
    if not changes:
        return target
    return target.replace(name=target.name + "*", **changes)


_NONE = object()


def parse_capability(text: str) -> tuple[int, int]:
    """``"10.0"`` or ``"100"`` → ``(10, 0)``."""
    raw = text.strip()
    try:
        if "." in raw:
            major, minor = raw.split(".", 1)
            cap = int(major), int(minor)
        else:
            number = int(raw)
            cap = (number // 10, number % 10) if number >= 10 else (number, 0)
    except ValueError:
        raise InputError("--gpu-capability", "a compute capability such as 9.0 or 10.0",
                         text) from None
    if not (1 <= cap[0] <= 20 and 0 <= cap[1] <= 9):
        raise InputError("--gpu-capability", "a compute capability such as 9.0 or 10.0", text)
    return cap


def detect() -> Target:
    """The local NVIDIA GPU through nvidia-ml-py (optional extra ``launchplan[nvml]``)."""
    try:
        import pynvml  # type: ignore[import-not-found]
    except ImportError:
        raise InputError(
            "--gpu auto", "nvidia-ml-py installed (pip install 'launchplan[nvml]')",
            message="--gpu auto: cannot detect a GPU: nvidia-ml-py is not installed "
            "(pip install 'launchplan[nvml]'); name a target instead, e.g. --gpu h100",
        ) from None
    try:
        pynvml.nvmlInit()
        count = pynvml.nvmlDeviceGetCount()
        if count == 0:
            raise RuntimeError("no GPU found")
        handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        name = pynvml.nvmlDeviceGetName(handles[0])
        name = name.decode() if isinstance(name, bytes) else str(name)
        cap = pynvml.nvmlDeviceGetCudaComputeCapability(handles[0])
        # SGLang sizes memory by the smallest visible GPU.
        mem = min(pynvml.nvmlDeviceGetMemoryInfo(h).total for h in handles) // (1 << 20)
        cuda = pynvml.nvmlSystemGetCudaDriverVersion()
        version = f"{cuda // 1000}.{(cuda % 1000) // 10}"
    except Exception as exc:  # NVML raises its own error types; all mean "cannot detect"
        raise InputError(
            "--gpu auto", "a working NVIDIA driver",
            message=f"--gpu auto: cannot detect a GPU through NVML ({exc}); "
            "name a target instead, e.g. --gpu h100",
        ) from None
    return Target(
        "auto", vendor="nvidia", device_name=name, capability=(int(cap[0]), int(cap[1])),
        memory_mib=int(mem), gpu_count=count, runtime_version=version,
        has_flashinfer=os.environ.get("SGLANG_IS_FLASHINFER_AVAILABLE", "true").lower()
        not in ("0", "false", "no"),
        ib_devices=local_ib_devices(),
        imex_channel=os.path.exists(IMEX_CHANNEL),
    )


IB_SYSFS = "/sys/class/infiniband"
IMEX_CHANNEL = "/dev/nvidia-caps-imex-channels/channel0"


def local_ib_devices(root: str = IB_SYSFS) -> tuple[str, ...]:
    """This host's InfiniBand devices, as SGLang's device check lists them (none without the
    directory: no InfiniBand driver)."""
    try:
        return tuple(sorted(os.listdir(root)))
    except OSError:
        return ()


def parse_ib_devices(text: str) -> tuple[str, ...]:
    """``--host-ib-devices``: comma-separated device names, or ``none`` for a host without."""
    if text.strip().lower() == "none":
        return ()
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names:
        raise InputError("--host-ib-devices", "device names such as mlx5_0,mlx5_1, or none",
                         text)
    return names
