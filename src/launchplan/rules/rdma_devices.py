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
are taken as present.

A value ending in ``.json`` names a mapping file, which SGLang reads (after the host check)
and then treats as the inline mapping. Where the file is readable here it is read the same way
(its devices normalised and checked, the plan holding the mapping SGLang would). Where it is
not: on a target detected on this machine (``--gpu auto``) it is missing where SGLang starts,
and refused as SGLang refuses it; on a named target the plan is made for another host, so the
path passes through and the plan says that the file was not read.
"""

from __future__ import annotations

import json
import os

from launchplan.engine.declarations import Refuse

EXPECTED_MAPPING = ('a JSON object of GPU ids to device lists, as {"0": "mlx5_0", '
                    '"1": "mlx5_1,mlx5_2"}')


def checked_devices(flag: str, value: str | None, host: tuple[str, ...] | None = None, *,
                    this_host: bool = False) -> str | Refuse | None:
    """``value`` in the form SGLang's device check leaves it, or the refusal it raises;
    ``host`` the host's devices (None: not known, names taken as present); ``this_host``: the
    plan is for the machine launchplan runs on, so a mapping file missing here is missing
    where SGLang starts."""
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
        return _mapping_file(flag, given, host, this_host) or value
    if not given.startswith("{"):
        return _device_list(flag, given, "", host)
    try:
        mapping = json.loads(given)
    except ValueError:
        return Refuse(f"{flag} starts with '{{' but is not valid JSON: expected "
                      f"{EXPECTED_MAPPING}; got {given!r}")
    return _device_mapping(flag, mapping, repr(given), host)


def unread_file(value: str | None) -> bool:
    """Whether ``value`` names a mapping file that is not readable here (passed through)."""
    if value is None:
        return False
    given = value.strip()
    return given.endswith(".json") and not os.path.isfile(given)


def assumed_present(flag: str, value: str | None, host: tuple[str, ...] | None) -> str | None:
    """The note a plan carries when it takes the named devices as present: the host's are not
    stated, and SGLang will look them up where it starts."""
    if value is None or not value.strip():
        return None
    if unread_file(value):
        return (f"{flag}: the mapping file {value.strip()} is not on this machine, so its "
                "devices are not checked (SGLang reads it where it starts and refuses it "
                "missing or malformed)")
    if host is not None:
        return None
    return (f"{flag}: the host is taken to have these RDMA devices (SGLang looks them up "
            "under /sys/class/infiniband at start-up; --host-ib-devices checks them here)")


def _mapping_file(flag: str, path: str, host: tuple[str, ...] | None,
                  this_host: bool) -> str | Refuse | None:
    """The mapping a readable file holds, normalised; None when it is not here and the plan
    is for another host (the path stands)."""
    if not os.path.isfile(path):
        if this_host:
            return Refuse(f"{flag} names the mapping file {path}, which does not exist on this "
                          f"host: expected a file holding {EXPECTED_MAPPING}")
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeError) as exc:
        return Refuse(f"{flag}: cannot read the mapping file {path} ({exc})")
    try:
        mapping = json.loads(text)
    except ValueError:
        return Refuse(f"{flag}: the mapping file {path} is not valid JSON: expected "
                      f"{EXPECTED_MAPPING}")
    return _device_mapping(flag, mapping, f"the content of {path}", host)


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


def _device_mapping(flag: str, mapping: object, given: str,
                    host: tuple[str, ...] | None) -> str | Refuse:
    """``mapping`` parsed from ``given`` (the value as written, or which file held it)."""
    expected = EXPECTED_MAPPING
    if not isinstance(mapping, dict):
        return Refuse(f"{flag} expected {expected}; got {given}")
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
