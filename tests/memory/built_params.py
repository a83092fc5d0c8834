"""What a weights test compares with SGLang's meta-device builds: a config written to a
folder and loaded fresh, and the parameters launchplan plans for one GPU."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from launchplan.facts.models import clear_cache, load_model
from launchplan.memory.weights import _layout, plan_weights


def load_written(tmp_path: Path, config: dict[str, Any]) -> Any:
    """The model of ``config``, written as ``tmp_path/config.json`` and read afresh."""
    (tmp_path / "config.json").write_text(json.dumps(config))
    clear_cache()
    return load_model(str(tmp_path))


def built_params(model: Any) -> int:
    """Parameters SGLang's class holds on one GPU as launchplan plans them: the planned
    bytes (bf16: two a parameter) less the RoPE table and the module buffers."""
    lay = _layout(model)
    buffers = sum(t.shape[0] * t.shape[1] for t in lay.main if getattr(t, "buffer", False))
    total = sum(b for c, b in plan_weights(model).breakdown.items() if c != "rope_cache")
    assert total % 2 == 0
    return int(total // 2) - buffers


#: the configs of ``tests/parity/models`` (a round's architectures, recorded on the oracle)
PARITY_MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"
#: the oracle's recording hosts' memory before the weights load, in bytes
BEFORE_LOAD = {"h100": 84_891_664_384, "b200": 191_636_701_184, "mi300x": 205_512_507_392}


def parity_config(folder: str) -> dict[str, Any]:
    """A ``tests/parity/models`` folder's ``config.json``, as a dict to change and write."""
    return json.loads((PARITY_MODELS / folder / "config.json").read_text())


def component_params(model: Any) -> dict[str, int]:
    """Parameters per component of the model's planned layout (embedding, attention, ...)."""
    out: dict[str, int] = {}
    for t in _layout(model).main:
        out[t.component] = out.get(t.component, 0) + t.params
    return out


def rope_bytes(model: Any) -> int:
    """Bytes of RoPE tables the plan counts (SGLang allocates them beside the weights)."""
    return plan_weights(model).breakdown.get("rope_cache", 0)
