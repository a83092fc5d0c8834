"""Per-class traits of SGLang's model classes that no config key shows, as tables.

Two tables in ``facts/data`` (each row with its SGLang evidence):

- ``loop_models.json``: the loop (recurrent-depth) classes and how SGLang's KV pool counts
  their layers. ``resolve_layer_indices`` multiplies a layer range by the loop count, and the
  range is itself already looped when the top-level class has no ``start_layer``/``end_layer``
  and ``ModelConfig`` loops ``num_attention_layers``: such a class's pool gets the loop count
  twice (``memory.kv_layers``).
- ``pp_refusing_models.json``: classes whose constructors refuse pipeline parallelism (an
  assert while the model is built, after resolution accepted ``--pp-size``;
  ``checks.launch_requirements``).

Read once per process, on the first model that asks (a loop config or a PP launch).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import NamedTuple

from launchplan import tables

_DATA = Path(__file__).resolve().parent.parent / "data"


class LoopClass(NamedTuple):
    """How SGLang's pool counts one loop class's layers (``loop_models.json``)."""

    loop_key: str  # the config key of the loop count
    default_loops: int  # the count when config.json omits it
    layer_range: bool  # the top-level class has start_layer/end_layer
    attention_layers_looped: bool  # ModelConfig loops num_attention_layers for it
    evidence: str


@cache
def _loops() -> dict[str, LoopClass]:
    rows = tables.load(str(_DATA / "loop_models.json"))["classes"]
    return {name: LoopClass(r["loop_key"], int(r["default_loops"]), bool(r["layer_range"]),
                            bool(r["attention_layers_looped"]), r["evidence"])
            for name, r in rows.items()}


def loop_class(architecture: str | None) -> LoopClass | None:
    """The loop table's row for ``architecture``, or None for a class not in it."""
    return _loops().get(architecture or "")


def loop_classes() -> dict[str, LoopClass]:
    """Every row of the loop table (tests and the requirements listing read it)."""
    return dict(_loops())


@cache
def _pp_refusals() -> dict[str, str]:
    return dict(tables.load(str(_DATA / "pp_refusing_models.json"))["classes"])


def pp_refusal(architecture: str | None) -> str | None:
    """Where SGLang's ``architecture`` class refuses a pipeline size above 1 while it is
    built, or None for a class that does not."""
    return _pp_refusals().get(architecture or "")


def pp_refusing_classes() -> dict[str, str]:
    """Every row of the PP-refusal table."""
    return dict(_pp_refusals())
