"""Which class SGLang builds a checkpoint with: its own, or its transformers backend's.

SGLang's model registry holds one class per architecture name; a checkpoint none of whose
``architectures`` it holds is served through the transformers backend, which asks the
transformers class of each name whether it takes a pluggable attention backend. The tables
(``data/model_classes.json``, built by ``tools/model_class_tables.py`` from the released
wheels) give, per SGLang release, the registered names, and per transformers version that
release pins, the exported model classes with that answer and the config types without a
tensor- or pipeline-parallel plan. Loaded once, on a process's first preflight (about a
millisecond); preflight then asks once per model (``checks.launch_requirements``).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from launchplan import tables

_DATA = Path(__file__).resolve().parent / "data" / "model_classes.json"


@cache
def _table() -> dict[str, Any]:
    return tables.load(str(_DATA))


@cache
def registered(release: str) -> frozenset[str]:
    """The architecture names SGLang ``release`` has a class of its own for (0.5.23's for a
    release the table does not hold)."""
    table = _table()["sglang"]
    return frozenset(table.get(release) or table[max(table)])


def transformers_pin(release: str) -> str:
    """The transformers version ``release`` pins (what ``pip install sglang`` brings)."""
    pins = _table()["pins"]
    return pins.get(release) or pins[max(pins)]


@cache
def _backend_classes(version: str) -> tuple[frozenset[str], frozenset[str]]:
    entry = _table()["transformers"][version]
    return frozenset(entry["compatible"]), frozenset(entry["incompatible"])


def backend_compatible(arch: str, release: str) -> bool | None:
    """Whether the transformers class named ``arch`` (in the version ``release`` pins) takes
    SGLang's attention backend; None when transformers has no class of that name."""
    compatible, incompatible = _backend_classes(transformers_pin(release))
    if arch in compatible:
        return True
    if arch in incompatible:
        return False
    return None


@cache
def everywhere() -> frozenset[str]:
    """The names every tabled release registers: a checkpoint naming one is served by an
    SGLang class whatever the release."""
    table = _table()["sglang"]
    return frozenset.intersection(*(frozenset(v) for v in table.values()))


@cache
def _planless(version: str, split: str) -> frozenset[str]:
    return frozenset(_table()["transformers"][version].get(f"no_{split}_plan", ()))


def lacks_plan(model_type: str | None, release: str, split: str) -> bool:
    """Whether transformers' config class for ``model_type`` (in the version ``release``
    pins) carries no plan for ``split`` ("tp": tensor-parallel, "pp": pipeline-parallel),
    which the backend needs to split the model over GPUs; False for a type transformers does
    not know (remote code: unknown)."""
    return model_type is not None and model_type in _planless(transformers_pin(release), split)


def releases() -> tuple[str, ...]:
    """The SGLang releases the tables hold."""
    return tuple(sorted(_table()["sglang"]))
