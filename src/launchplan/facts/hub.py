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


def config_folder(model_id: str, revision: str | None = None) -> Path:
    """The local folder holding the id's ``config.json`` (downloaded or from the cache)."""
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
            "--model-path", "a folder holding config.json or a bundled model name", model_id,
            "a Hugging Face id needs huggingface_hub: pip install 'launchplan[hub]'") from None
    try:
        path = hf_hub_download(model_id, "config.json", revision=revision)
    except LocalEntryNotFoundError:
        raise InputError("--model-path", "a Hugging Face id whose config.json is reachable",
                         model_id, "not in the local cache, and the hub cannot be reached "
                         "(HF_HUB_OFFLINE is set or the network is down)") from None
    except (RepositoryNotFoundError, RevisionNotFoundError, EntryNotFoundError) as exc:
        raise InputError("--model-path", "a Hugging Face id with a config.json", model_id,
                         type(exc).__name__) from None
    except HFValidationError:
        raise InputError("--model-path", "a valid Hugging Face id (org/name)", model_id) from None
    except OSError as exc:  # network failures surface as OSError subclasses
        raise InputError("--model-path", "a Hugging Face id whose config.json is reachable",
                         model_id, f"{type(exc).__name__}: {exc}") from None
    return Path(path).parent
