"""Hub configs shipped with launchplan: published ``config.json`` files of checkpoints it
does not bundle as models, read when a Hub id is neither bundled nor in the local Hugging
Face cache.

Launch lines people paste name the checkpoints of their day (``zai-org/GLM-5-FP8``,
``deepseek-ai/DeepSeek-V3.2``); a machine without Hub access could not plan them. These
files are the Hub's own, vendored unchanged by ai-dynamo/aiconfigurator
(``data/hub/SOURCES.json`` names the commit; ``tools/ship_hub_configs.py`` refreshes them;
``tools/ship_hub_history.py`` adds files that repository held in earlier commits, each with
its own commit under ``origin``).
They are planned like a local folder holding the checkpoint's files, with a note that the
Hub's current revision may differ. Unlike bundled models they carry no published weight
size and are not part of ``check``'s default space.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

HUB_DIR = Path(__file__).resolve().parent.parent / "data" / "hub"
_CONFIG = "config.json"


def snapshot_folder(hub_id: str) -> Path | None:
    """The shipped folder of ``hub_id`` (``org/name``, any letter case), or None."""
    return _folders().get(hub_id.lower())


def snapshot_ids() -> list[str]:
    """Every shipped Hub id, as the Hub spells it."""
    return sorted({_hub_id(p) for p in _folders().values()}, key=str.lower)


def snapshot_hub_id(folder: str | Path) -> str | None:
    """The Hub id a path names when it is one of the shipped folders, else None."""
    p = Path(folder)
    try:
        if p.resolve().parent != HUB_DIR:
            return None
    except (OSError, ValueError):
        return None
    return _hub_id(p) if (p / _CONFIG).is_file() else None


@lru_cache(maxsize=256)
def shown_model(path: str) -> str:
    """How reports name a model path: a shipped folder by its Hub id, anything else as is."""
    if "/" not in path:  # a bundled name or a bare folder name: never a shipped folder
        return path
    return snapshot_hub_id(path) or path


def snapshot_source(hub_id: str | None = None) -> str:
    """Where a shipped file comes from, in one phrase (for notes): the commit of the vendoring
    repository that held it (``origin`` in SOURCES.json for a file taken from that
    repository's history, the top-level ``commit`` otherwise)."""
    sources = _sources()
    origin = sources.get("origin")
    entry = origin.get(hub_id) if isinstance(origin, dict) and hub_id else None
    where = entry if isinstance(entry, dict) else sources
    repository = str(where.get("repository", "")).rstrip("/").rsplit("github.com/", 1)[-1] \
        or "ai-dynamo/aiconfigurator"
    commit = str(where.get("commit", ""))[:12]
    return f"the Hub file as vendored by {repository} at {commit}" if commit \
        else f"the Hub file as vendored by {repository}"


def _hub_id(folder: Path) -> str:
    return folder.name.replace("--", "/", 1)


@lru_cache(maxsize=1)
def _folders() -> dict[str, Path]:
    if not HUB_DIR.is_dir():
        return {}
    return {_hub_id(p).lower(): p for p in sorted(HUB_DIR.iterdir())
            if (p / _CONFIG).is_file()}


@lru_cache(maxsize=1)
def _sources() -> dict[str, object]:
    try:
        return json.loads((HUB_DIR / "SOURCES.json").read_text())
    except (OSError, ValueError):
        return {}


def restructured(config_file: str) -> str | None:
    """Why a shipped file's class names are not the published file's (its vendor rewrote
    them; ``restructured`` in SOURCES.json), or None: a verdict drawn from those names (which
    class SGLang builds) would be about the copy, not the checkpoint."""
    hub_id = snapshot_hub_id(Path(config_file).parent)
    if hub_id is None:
        return None
    entries = _sources().get("restructured")
    why = entries.get(hub_id) if isinstance(entries, dict) else None
    return why if isinstance(why, str) else None
