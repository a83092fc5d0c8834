"""Hugging Face model ids as model paths: fetch only ``config.json``, as data.

``--model-path org/name`` reads the checkpoint's ``config.json`` through huggingface_hub:
from the network when allowed, from the local cache with ``HF_HUB_OFFLINE=1``. Nothing but
that one JSON file is downloaded, and no code from the repository is ever imported.
"""

from __future__ import annotations

import re
from pathlib import Path

from launchplan.errors import InputError

# org/name with Hugging Face's allowed characters; a local path that exists wins over this.
_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")


def looks_like_hub_id(path: str) -> bool:
    return bool(_HUB_ID.match(path)) and ".." not in path and not Path(path).exists()


#: How long the reachability probe may wait before the Hub counts as unreachable.
PROBE_SECONDS = 1.5
HOW_TO = ("make it available offline: `HF_HUB_OFFLINE=1` with a cached snapshot "
          "(`huggingface-cli download {id} config.json` on a machine with access), or a "
          "local folder holding its config.json")


def config_folder(model_id: str, revision: str | None = None,
                  flag: str = "--model-path") -> Path:
    """The local folder holding the id's ``config.json`` (from the cache, else downloaded).

    The cache is read first, then the configs launchplan ships (``facts.models.snapshots``,
    for the default revision); the network is tried only when the Hub answers a quick probe,
    so an offline machine gets one line in about a second instead of minutes of retries.
    """
    cached = _cached(model_id, revision)
    if cached is not None:
        return cached
    if revision in (None, "main"):  # a published config launchplan ships: no network
        from launchplan.facts.models.snapshots import snapshot_folder

        shipped = snapshot_folder(model_id)
        if shipped is not None:
            return shipped
    import os

    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        raise InputError(flag, "a Hugging Face id whose config.json is in the local cache",
                         model_id, "HF_HUB_OFFLINE is set; " + HOW_TO.format(id=model_id)
                         + _shipped_like(model_id))
    if not hub_reachable():
        raise InputError(flag, "a Hugging Face id whose config.json is reachable", model_id,
                         "not in the local cache and the Hub cannot be reached; "
                         + HOW_TO.format(id=model_id) + _shipped_like(model_id))
    return _download(model_id, revision, flag)


def _shipped_like(model_id: str) -> str:
    """The shipped configs whose ids are close to ``model_id`` (another size, quantization
    or release of the same family, or the base model of an instruct one: a bundled model is
    named by its own name too), as the end of a hint; empty when none is."""
    import difflib

    from launchplan.facts.models.bundled import bundled_hub_ids
    from launchplan.facts.models.snapshots import snapshot_ids

    bundled = bundled_hub_ids()
    by_key = {i.lower(): i for i in (*snapshot_ids(), *bundled)}
    wanted = model_id.lower()
    # the base of an instruct id, or an instruct of a base one (the same size) come first
    close = [k for k in by_key if wanted.startswith(k + "-") or k.startswith(wanted + "-")]
    close = list(dict.fromkeys(
        close + difflib.get_close_matches(wanted, by_key, n=3, cutoff=0.75)))[:3]
    if not close:
        return ""
    named = [by_key[c] + (f" (bundled as {bundled[by_key[c]]})" if by_key[c] in bundled
                          else "") for c in close]
    return ("; launchplan ships the configs of similar ids (another model, not this one): "
            + ", ".join(named))


def _cached(model_id: str, revision: str | None) -> Path | None:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    try:
        found = try_to_load_from_cache(model_id, "config.json", revision=revision)
    except Exception:  # a malformed id or cache: let the download path say what is wrong
        return None
    return Path(found).parent if isinstance(found, str) else None


def hub_reachable(timeout: float = PROBE_SECONDS) -> bool:
    """Whether the Hub's host answers a TCP connection within ``timeout`` seconds."""
    import os
    import socket
    from urllib.parse import urlparse

    endpoint = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    parsed = urlparse(endpoint)
    host = parsed.hostname or "huggingface.co"
    port = parsed.port or (443 if parsed.scheme != "http" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _download(model_id: str, revision: str | None, flag: str) -> Path:
    try:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import (
            EntryNotFoundError,
            HFValidationError,
            LocalEntryNotFoundError,
            RepositoryNotFoundError,
            RevisionNotFoundError,
        )
    except ImportError:
        raise InputError(
            flag, "a folder holding config.json or a bundled model name", model_id,
            "a Hugging Face id needs huggingface_hub: pip install 'launchplan[hub]'") from None
    try:
        path = hf_hub_download(model_id, "config.json", revision=revision)
    except LocalEntryNotFoundError:
        raise InputError(flag, "a Hugging Face id whose config.json is reachable",
                         model_id, "not in the local cache, and the Hub cannot be reached; "
                         + HOW_TO.format(id=model_id)) from None
    except (RepositoryNotFoundError, RevisionNotFoundError, EntryNotFoundError) as exc:
        raise InputError(flag, "a Hugging Face id with a config.json", model_id,
                         type(exc).__name__) from None
    except HFValidationError:
        raise InputError(flag, "a valid Hugging Face id (org/name)", model_id) from None
    except OSError as exc:  # network failures surface as OSError subclasses
        raise InputError(flag, "a Hugging Face id whose config.json is reachable",
                         model_id, f"{type(exc).__name__}: {exc}") from None
    return Path(path).parent
