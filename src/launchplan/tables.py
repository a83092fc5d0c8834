"""The JSON tables launchplan ships, read through a marshal index kept beside each one.

Every command starts by reading SGLang's field table (185 kB) and the model-class table
(170 kB); parsing them as JSON is a few milliseconds of a cold start that ``marshal`` does in
a fifth of the time. Like Python's bytecode cache, the index lives in a ``__pycache__``
folder next to the table and is stamped with the table's size and modification time and the
interpreter's cache tag: a missing, stale or unreadable index means the JSON is parsed, and
the index written again unless bytecode writing is off (``PYTHONDONTWRITEBYTECODE``) or the
folder is read-only. The JSON stays the one source of truth.
"""

from __future__ import annotations

import json
import marshal
import os
import sys
from typing import Any

_MAGIC = b"launchplan-table-1 "


def load(path: str) -> Any:
    """The table at ``path`` as ``json.loads`` reads it (from its index when current)."""
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if st is None:  # let the read say what is wrong with the path
        with open(path, "rb") as fh:
            return json.loads(fh.read())
    stamp = _MAGIC + f"{st.st_size} {st.st_mtime_ns} {sys.implementation.cache_tag}\n".encode()
    index = index_path(path)
    try:
        with open(index, "rb") as fh:
            data = fh.read()
        if data.startswith(stamp):
            return marshal.loads(data[len(stamp):])
    except (OSError, ValueError, EOFError, TypeError):
        pass  # no index yet, or one that cannot be read: parse the table
    with open(path, "rb") as fh:
        value = json.loads(fh.read())
    if not sys.dont_write_bytecode:
        _write(index, stamp + marshal.dumps(value))
    return value


def index_path(path: str) -> str:
    """Where the index of the table at ``path`` is kept."""
    folder, name = os.path.split(path)
    return os.path.join(folder, "__pycache__", f"{name}.{sys.implementation.cache_tag}.marshal")


def _write(index: str, data: bytes) -> None:
    """Write the index whole or not at all (a concurrent reader sees the old one or the new)."""
    temporary = f"{index}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(index), exist_ok=True)
        with open(temporary, "wb") as fh:
            fh.write(data)
        os.replace(temporary, index)
    except OSError:  # a read-only install: the JSON is parsed each time, as before
        try:
            os.remove(temporary)
        except OSError:
            pass
