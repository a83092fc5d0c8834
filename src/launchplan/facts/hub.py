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

    offline = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes",
                                                                        "on")
    if offline or not hub_reachable():
        why = "HF_HUB_OFFLINE is set" if offline \
            else "not in the local cache and the Hub cannot be reached"
        shipped = _shipped_default(model_id) if revision not in (None, "main") else None
        if shipped is not None:
            raise _revision_not_shipped(model_id, str(revision), flag, shipped, why)
        expected = "a Hugging Face id whose config.json is " + (
            "in the local cache" if offline else "reachable")
        raise InputError(flag, expected, model_id, why + "; " + _how_to(model_id, revision)
                         + _shipped_like(model_id))
    return _download(model_id, revision, flag)


def _how_to(model_id: str, revision: str | None = None) -> str:
    """The hint for making ``model_id``'s config.json readable offline; a download command
    for another revision names it, or it would cache the default one."""
    text = HOW_TO.format(id=model_id)
    if revision not in (None, "main"):
        text = text.replace(" config.json`", f" config.json --revision {revision}`", 1)
    return text


#: The revision flag of each model flag that reads a Hub id.
_REVISION_FLAGS = {"--model-path": "--revision",
                   "--speculative-draft-model-path": "--speculative-draft-model-revision"}


def _shipped_default(model_id: str) -> str | None:
    """Where launchplan's own copy of ``model_id``'s config.json comes from (a shipped Hub
    file or a bundled model), for its default revision only; None when it has none."""
    from launchplan.facts.models.bundled import bundled_alias
    from launchplan.facts.models.snapshots import snapshot_folder, snapshot_source

    if snapshot_folder(model_id) is not None:
        return snapshot_source(model_id)
    alias = bundled_alias(model_id)
    return f"the bundled model {alias}" if alias is not None else None


def _revision_not_shipped(model_id: str, revision: str, flag: str, source: str,
                          why: str) -> InputError:
    """The error for a pinned revision of an id whose config launchplan ships: the pin is
    why the shipped copy is not used (it stands for the default revision, which may be
    another one), so the line names the revision flag, not an unknown id."""
    pin = _REVISION_FLAGS.get(flag, "--revision")
    short = revision if len(revision) <= 12 else revision[:12] + "…"
    return InputError(pin, f"a revision of {model_id} whose config.json is in the local "
                      "cache", revision, (
                          f"{why}; launchplan ships {model_id}'s config.json ({source}) "
                          f"for its default revision only, which may not be "
                          f"{short}: give {pin} main after the paste (or drop {pin}) "
                          "to plan with that copy, or "
                          + _how_to(model_id, revision)))


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
    close = [k for k in dict.fromkeys(
        close + difflib.get_close_matches(wanted, by_key, n=4, cutoff=0.75))
        if k != wanted][:3]  # the id itself is no "other model"
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
                         + _how_to(model_id, revision)) from None
    except (RepositoryNotFoundError, RevisionNotFoundError, EntryNotFoundError) as exc:
        raise InputError(flag, "a Hugging Face id with a config.json", model_id,
                         type(exc).__name__) from None
    except HFValidationError:
        raise InputError(flag, "a valid Hugging Face id (org/name)", model_id) from None
    except OSError as exc:  # network failures surface as OSError subclasses
        raise InputError(flag, "a Hugging Face id whose config.json is reachable",
                         model_id, f"{type(exc).__name__}: {exc}") from None
    return Path(path).parent
