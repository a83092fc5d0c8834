"""The models launchplan ships (package data), and the Hub ids that name them.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

_BUNDLED_DIR = Path(__file__).resolve().parent.parent / "data" / "models"
_CONFIG = "config.json"


def bundled_models() -> dict[str, Path]:
    """The models launchplan ships: name → folder holding ``config.json``."""
    return dict(_bundled())


#: Hugging Face repositories renamed since people wrote their launch lines (the old name
#: redirects to the new one on the Hub).
HUB_RENAMES = {
    "meta-llama/Meta-Llama-3.1-8B-Instruct": "meta-llama/Llama-3.1-8B-Instruct",
    "meta-llama/Meta-Llama-3.1-70B": "meta-llama/Llama-3.1-70B",
    "meta-llama/Meta-Llama-3.1-405B": "meta-llama/Llama-3.1-405B",
}


def bundled_alias(hub_id: str) -> str | None:
    """The bundled model whose ``config.json`` is this Hub repository's (exact id, or a
    renamed one), so a pasted ``--model-path org/name`` plans offline."""
    table = _hub_ids()
    return table.get(HUB_RENAMES.get(hub_id, hub_id)) or table.get(hub_id.lower())


def bundled_for_path(path: str) -> str | None:
    """The bundled model a path from another machine names: a launch line pasted from a bug
    report or a cluster script points at its own copy (``/data/deepseek-ai/DeepSeek-R1``,
    ``/models/Qwen3-32B/``, a Hub cache snapshot ``.../models--Qwen--Qwen3-8B/snapshots/REV``).
    The cache folder's Hub id, else its last two components as a Hub id, else its last
    component as exactly one bundled Hub repository's name or a bundled model's own name;
    None when nothing matches (or more than one does). A Hub id launchplan does not bundle
    but ships the config of (``snapshots``) gives that config's folder."""
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    if not parts:
        return None
    for part in reversed(parts):  # the Hub cache's own layout: models--ORG--NAME/snapshots/REV
        if part.startswith("models--") and part.count("--") >= 2:
            org, _, name = part[len("models--"):].partition("--")
            return _shipped(f"{org}/{name}")
    if len(parts) >= 2:
        alias = _shipped(f"{parts[-2]}/{parts[-1]}")
        if alias is not None:
            return alias
    last = parts[-1].lower()
    table = _hub_ids()
    named = {name for hub, name in table.items() if hub.rsplit("/", 1)[-1].lower() == last}
    named.update(table[new] for old, new in HUB_RENAMES.items()
                 if old.rsplit("/", 1)[-1].lower() == last and new in table)
    if len(named) == 1:
        return named.pop()
    if any(name == last for name, _ in _bundled()):
        return last
    if not named:  # no bundled model: one shipped Hub config of that name
        from launchplan.facts.models.snapshots import snapshot_folder, snapshot_ids

        hubs = [h for h in snapshot_ids() if h.rsplit("/", 1)[-1].lower() == last]
        if len(hubs) == 1:
            return str(snapshot_folder(hubs[0]))
    return None


def _shipped(hub_id: str) -> str | None:
    """A bundled model's name for ``hub_id``, else the folder of its shipped Hub config."""
    alias = bundled_alias(hub_id)
    if alias is not None:
        return alias
    from launchplan.facts.models.snapshots import snapshot_folder

    folder = snapshot_folder(hub_id)
    return str(folder) if folder is not None else None


def bundled_hub_ids() -> dict[str, str]:
    """The Hub repository of each bundled model (as the Hub spells it) -> the model's name."""
    return dict(_published_ids())


@lru_cache(maxsize=1)
def _hub_ids() -> dict[str, str]:
    out: dict[str, str] = {}
    for hub, name in _published_ids():
        out[hub] = name
        out[hub.lower()] = name
    return out


@lru_cache(maxsize=1)
def _published_ids() -> tuple[tuple[str, str], ...]:
    data = json.loads((_BUNDLED_DIR.parent / "published_weights.json").read_text())
    return tuple((entry["hf_id"], name) for name, entry in data.get("models", {}).items()
                 if entry.get("hf_id") and (_BUNDLED_DIR / name / _CONFIG).is_file())


@lru_cache(maxsize=1)
def _bundled() -> tuple[tuple[str, Path], ...]:
    if not _BUNDLED_DIR.is_dir():
        return ()
    return tuple((p.name, p) for p in sorted(_BUNDLED_DIR.iterdir())
                 if (p / _CONFIG).is_file())
