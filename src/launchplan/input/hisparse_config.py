"""``--hisparse-config`` read as SGLang reads it: a JSON object, parsed only once a scheduler
builds its sparse KV pools (resolution never looks inside it).

SGLang 0.5.21-0.5.23 (``mem_cache/sparsity/factory.py``) take four keys with defaults --
``top_k`` 2048, ``device_buffer_size`` twice ``top_k``, ``host_to_device_ratio`` 2 and
``swap_in_block_size`` 960 -- and pass the rest on. The ratio sizes the pools: HiSparse keeps
``ratio`` times more token slots on the host than on the GPU, and the GPU-side rows that
address the whole host space (a DSA model's indexer keys, a draft's KV) are allocated for
all of them. A text that is not a JSON object, a device buffer smaller than ``top_k`` or a
swap-in block outside [1, 1024] stops every scheduler at start-up.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from launchplan.struct import Struct

#: SGLang's defaults for the keys it reads.
DEFAULT_TOP_K = 2048
DEFAULT_RATIO = 2
DEFAULT_SWAP_IN_BLOCK = 960
#: The swap-in block sizes SGLang accepts.
SWAP_IN_BLOCK_RANGE = (1, 1024)


class HiSparseSettings(Struct):
    """The keys SGLang reads from ``--hisparse-config``, defaults filled in; ``problem`` is
    why SGLang stops on this text (None: it does not)."""

    top_k: Any
    device_buffer_size: Any
    host_to_device_ratio: Any
    swap_in_block_size: Any
    problem: str | None


@lru_cache(maxsize=256)
def _read_text(text: str) -> HiSparseSettings:
    try:
        data = json.loads(text)
    except ValueError as exc:
        return HiSparseSettings(None, None, None, None,
                                f"--hisparse-config is not valid JSON ({exc.msg} at character "
                                f"{exc.pos}): got {text!r}")
    if not isinstance(data, dict):
        return HiSparseSettings(None, None, None, None,
                                f"--hisparse-config must be a JSON object: got {text!r}")
    return _settings(data)


def _settings(data: dict) -> HiSparseSettings:
    """The keys with SGLang's defaults, compared with Python's own operators as SGLang
    compares them (a string ``top_k`` doubles as a string; an int against a string raises)."""
    top_k = data.get("top_k", DEFAULT_TOP_K)
    ratio = data.get("host_to_device_ratio", DEFAULT_RATIO)
    block = data.get("swap_in_block_size", DEFAULT_SWAP_IN_BLOCK)
    try:
        buffer = data["device_buffer_size"] if "device_buffer_size" in data else 2 * top_k
        small = buffer < top_k
    except TypeError:
        return HiSparseSettings(top_k, None, ratio, block,
                                f"--hisparse-config: top_k and device_buffer_size must be "
                                f"numbers: got {top_k!r} and "
                                f"{data.get('device_buffer_size', 'twice top_k')!r}")
    problem = None
    low, high = SWAP_IN_BLOCK_RANGE
    if small:
        problem = (f"--hisparse-config: device_buffer_size must be at least top_k: got "
                   f"{buffer!r} against top_k {top_k!r}")
    elif type(block) is not int:
        problem = f"--hisparse-config: swap_in_block_size must be an integer: got {block!r}"
    elif not low <= block <= high:
        problem = (f"--hisparse-config: swap_in_block_size must be in [{low}, {high}]: got "
                   f"{block}")
    return HiSparseSettings(top_k, buffer, ratio, block, problem)


_DEFAULTS = _settings({})


def hisparse_settings(text: Any) -> HiSparseSettings:
    """The settings a launch's ``--hisparse-config`` value gives (None: the defaults)."""
    if text is None:
        return _DEFAULTS
    return _read_text(str(text))


def pool_ratio(settings: HiSparseSettings) -> int | None:
    """The host-to-device ratio as the pool sizing can use it: an integer of at least 1, or
    None where launchplan does not size the pools (a fraction, a string, below 1)."""
    ratio = settings.host_to_device_ratio
    return ratio if type(ratio) is int and ratio >= 1 else None
