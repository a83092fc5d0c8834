"""The RDMA device list a Mooncake transfer is given, as SGLang's device check hands it on.

``--disaggregation-ib-device`` (a Mooncake PD or encoder transfer) and ``--mooncake-ib-device``
(Mooncake elastic EP) take either a comma-separated list of InfiniBand device names, used by
every GPU, or a JSON object mapping GPU ids to such lists. While resolving, SGLang checks the
value and re-declares it in a normal form: names stripped, empty items and repeats dropped
(first occurrence kept) and re-joined with bare commas; a mapping re-serialised compactly with
its keys as decimal GPU ids, each list normalised the same way. What it refuses: a value that
names no device, a mapping that is not valid JSON, is empty, has a key that is not a GPU id or
a value that is not a string, or holds a list that names no device.

The host: SGLang looks each name up under the host's ``/sys/class/infiniband`` and refuses a
host without that directory, one that lists nothing, and a name it does not list. Those are
the machine's facts (``Target.ib_devices``): stated with ``--host-ib-devices`` or read by
``--gpu auto``, they are checked as SGLang checks them; not stated, the names a launch gives
are taken as present. A value ending in ``.json`` names a mapping file on that host, which
SGLang reads and re-serialises: launchplan cannot read the host's file and passes the path
through (after the host check).
"""

from __future__ import annotations

import json

from launchplan.engine.declarations import Refuse


def checked_devices(flag: str, value: str | None,
                    host: tuple[str, ...] | None = None) -> str | Refuse | None:
    """``value`` in the form SGLang's device check leaves it, or the refusal it raises;
    ``host`` the host's devices (None: not known, names taken as present)."""
    if value is None:
        return None  # Mooncake discovers the devices itself
    given = value.strip()
    if not given:
        return Refuse(f"{flag} names no RDMA device: give one or more names "
                      "(mlx5_0,mlx5_1), or leave it unset to auto-discover")
    if host is not None and not host:
        return Refuse(f"{flag} names RDMA devices, but the host has no InfiniBand device "
                      "(--host-ib-devices none): install the InfiniBand driver, or leave "
                      "it unset")
    if given.endswith(".json"):
        return value  # a mapping file on the serving host (see the module docstring)
    if not given.startswith("{"):
        return _device_list(flag, given, "", host)
    return _device_mapping(flag, given, host)


def assumed_present(flag: str, value: str | None, host: tuple[str, ...] | None) -> str | None:
    """The note a plan carries when it takes the named devices as present: the host's are not
    stated, and SGLang will look them up where it starts."""
    if value is None or host is not None or not value.strip():
        return None
    return (f"{flag}: the host is taken to have these RDMA devices (SGLang looks them up "
            "under /sys/class/infiniband at start-up; --host-ib-devices checks them here)")


def _device_list(flag: str, text: str, where: str,
                 host: tuple[str, ...] | None) -> str | Refuse:
    names = [name.strip() for name in text.split(",")]
    unique = list(dict.fromkeys(name for name in names if name))
    if not unique:
        return Refuse(f"{flag} names no RDMA device{where}: got {text!r}")
    missing = [name for name in unique if host is not None and name not in host]
    if missing:
        return Refuse(f"{flag} names {', '.join(missing)}{where}, which the host lacks: "
                      f"expected devices among {', '.join(sorted(host or ()))}")
    return ",".join(unique)


def _device_mapping(flag: str, text: str, host: tuple[str, ...] | None) -> str | Refuse:
    expected = ('a JSON object of GPU ids to device lists, as {"0": "mlx5_0", '
                '"1": "mlx5_1,mlx5_2"}')
    try:
        mapping = json.loads(text)
    except ValueError:
        return Refuse(f"{flag} starts with '{{' but is not valid JSON: expected {expected}; "
                      f"got {text!r}")
    if not isinstance(mapping, dict):
        return Refuse(f"{flag} expected {expected}; got {text!r}")
    by_gpu: dict[int, str] = {}
    for key, names in mapping.items():
        gpu = _gpu_id(key)
        if gpu is None or not isinstance(names, str):
            return Refuse(f"{flag} expected {expected} (keys decimal GPU ids, values strings); "
                          f"got the entry {json.dumps(key)}: {json.dumps(names)}")
        by_gpu[gpu] = names.strip()  # "0" and "00" are one GPU: the later list wins
    if not by_gpu:
        return Refuse(f"{flag} expected {expected}; got an empty object")
    out = {}
    for gpu, names in by_gpu.items():
        devices = _device_list(flag, names, f" for GPU {gpu}", host)
        if isinstance(devices, Refuse):
            return devices
        out[str(gpu)] = devices
    return json.dumps(out, separators=(",", ":"))


def _gpu_id(key: str) -> int | None:
    """The GPU a mapping key names: digits only (any script's decimal digits, as ``int``
    reads them); a digit ``int`` cannot read (a superscript) names none."""
    if not key.isdigit():
        return None
    try:
        return int(key)
    except ValueError:
        return None
