"""The vision-encoder size SGLang reads for a VLM's memory headroom, as transformers presents it.

SGLang reads ``getattr(hf_config.vision_config, "num_hidden_layers", 24)`` and ``hidden_size``
(1024). Whether that finds the checkpoint's numbers depends on the config class: a vision
sub-config object answers through its ``attribute_map`` (Qwen2-VL style encoders keep their
depth under ``depth``) and falls back to its class defaults, while a ``vision_config`` that
stays a plain dict answers neither attribute, so both defaults apply. The table in
``data/vision_configs.json`` records, from transformers 5.24 with SGLang 0.5.23's registered
configs, which top-level model types turn the dict into which vision class, and that class's
keys and defaults (``tests/parity/tools/gen_vision_table.py`` regenerates it);
``data/remote_vision_configs.json`` adds the types whose class is the checkpoint's own code
(MiniCPM-V and MiniCPM-o build a SigLIP vision config from the dict).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from launchplan.facts.models.fields import MAX_INT

_TABLE = Path(__file__).resolve().parent / "data" / "vision_configs.json"
#: top-level types whose config class is the checkpoint's own code (no registry records it)
_REMOTE = _TABLE.with_name("remote_vision_configs.json")
# what getattr falls back to when the vision config answers nothing (SGLang's defaults)
DEFAULT_LAYERS, DEFAULT_HIDDEN = 24, 1024


@cache
def _table() -> dict[str, Any]:
    table = json.loads(_TABLE.read_text())
    table["top"] = {**json.loads(_REMOTE.read_text())["top"], **table["top"]}
    return table


def vision_class(model_type: str | None, vision: Mapping[str, Any]) -> str | None:
    """The vision config class (by model_type) a top-level type builds, or None: a dict."""
    row = _table()["top"].get(model_type or "")
    if row is None:
        return None
    if row["by_model_type"]:
        own = vision.get("model_type")
        if isinstance(own, str) and own in _table()["vision"]:
            return own
    return row["default"]


def builds_default_vision(model_type: str | None) -> bool:
    """Whether the top-level class builds a vision config when config.json has none.

    Most VLM classes do; a few (Gemma 4, EmbeddingGemma 2, GLM-5-Next, Muse Glimmer) leave
    ``vision_config`` unset, and SGLang then skips the VLM memory adjustment.
    """
    row = _table()["top"].get(model_type or "")
    return row is not None and row.get("absent") != "none"


def absent_vision_size(model_type: str | None) -> tuple[int, int]:
    """(layers, hidden size) SGLang reads from the vision config a class builds itself when
    config.json has none: the class's own default encoder (LLaVA's ViT-L/14, PaliGemma's
    SigLIP-So400m), which need not be its vision class's defaults."""
    row = _table()["top"].get(model_type or "") or {}
    size = row.get("absent_size")
    if isinstance(size, list) and len(size) == 2:
        return int(size[0]), int(size[1])
    return vision_encoder_size(model_type, {})


#: vision configs SGLang's config reader (``utils/hf_transformers/config.py``) attaches by the
#: first architecture, whatever the file holds: Phi-4-multimodal's file describes its image
#: tower only under ``embd_layer``, and the reader sets a SigLIP config (SGLang's own values)
#: that its image encoder is built from and the VLM memory headroom reads
LOADER_VISION_CONFIGS: dict[str, dict[str, Any]] = {
    "Phi4MMForCausalLM": {"model_type": "siglip_vision_model", "hidden_size": 1152,
                          "image_size": 448, "intermediate_size": 4304,
                          "num_attention_heads": 16, "num_hidden_layers": 26,
                          "patch_size": 14},
}


def loader_vision_config(architecture: str | None) -> dict[str, Any] | None:
    """The vision config SGLang's config reader sets for ``architecture`` (the file's first),
    replacing any the file has; None where it sets none."""
    found = LOADER_VISION_CONFIGS.get(architecture or "")
    return dict(found) if found is not None else None


def vision_encoder_size(model_type: str | None, vision: Any) -> tuple[Any, Any]:
    """(layers, hidden size) as SGLang's ``getattr`` reads them from ``vision_config``.

    A number is taken as written (SGLang multiplies whatever it finds); a value of another
    kind was refused when the model loaded (``check_vision_size``)."""
    if not isinstance(vision, Mapping):
        return DEFAULT_LAYERS, DEFAULT_HIDDEN
    out = []
    for canonical, key, default in _read_keys(model_type, vision):
        value = vision.get(key)
        if value is None and key != canonical:
            value = vision.get(canonical)
        if value is None or not _is_number(value):
            value = default
        out.append(int(value) if isinstance(value, bool) else value)
    if not out:
        return DEFAULT_LAYERS, DEFAULT_HIDDEN
    return out[0], out[1]


def check_vision_size(model_type: str | None, vision: Any,
                      fail: Callable[..., Exception]) -> None:
    """Refuse, at load, a ``vision_config`` whose encoder depth or width (the keys SGLang's
    memory hook reads) holds something other than a number or null: SGLang's arithmetic on
    it stops the launch. ``fail(key, expected, got)`` makes the error naming the field."""
    if not isinstance(vision, Mapping):
        return
    for canonical, key, _ in _read_keys(model_type, vision):
        for name in dict.fromkeys((key, canonical)):
            value = vision.get(name)
            if value is not None and not _is_number(value):
                raise fail(name, "a number (SGLang sizes the vision encoder's memory "
                           "headroom from it)", value)


def _read_keys(model_type: str | None, vision: Mapping[str, Any]
               ) -> list[tuple[str, str, Any]]:
    """(canonical name, the key the vision class stores it under, the class default) for
    depth and width; empty when the vision config stays a plain dict (SGLang's defaults)."""
    cls = vision_class(model_type, vision)
    spec = _table()["vision"].get(cls) if cls else None
    if spec is None:
        return []
    out = []
    for canonical, fallback in (("num_hidden_layers", DEFAULT_LAYERS),
                                ("hidden_size", DEFAULT_HIDDEN)):
        key, default = spec[canonical]["key"], spec[canonical]["default"]
        out.append((canonical, key, default if default is not None else fallback))
    return out


def _is_number(value: Any) -> bool:
    """What SGLang's arithmetic takes: a JSON number (NaN and infinities included, as Python
    compares them) or a boolean, within the integers a config may hold."""
    if isinstance(value, float):
        return True
    return isinstance(value, int) and abs(value) <= MAX_INT
