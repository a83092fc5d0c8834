"""The entry points: locate a model's files, read them, derive the facts, cache the result.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from typing import Any

from launchplan.errors import InputError
from launchplan.facts.environment import longer_context_allowed
from launchplan.facts.models.derive import (
    _context_too_long,
    _derive,
)
from launchplan.facts.models.fields import (
    MAX_INT,
    _as_int,
    _json_kind,
    _parse_json,
    _read_json,
    _shown,
)
from launchplan.facts.models.locate import _locate, _Source
from launchplan.facts.models.record import ModelFacts

_HF_QUANT = "hf_quant_config.json"
_MODELSLIM = "quant_model_description.json"


def load_model(path_or_name: str, *, json_override: str | None = None,
               context_length: int | None = None,
               env: Mapping[str, str] | None = None) -> ModelFacts:
    """The facts of a model: a folder holding ``config.json``, a bundled name, or a file.

    A folder (or file) that exists relative to the working directory wins over a bundled
    name. ``json_override`` is ``--json-model-override-args`` (§1.1 point 5), as its JSON
    text or an already parsed mapping.
    ``context_length`` is ``--context-length``: at most the derived length, or longer when
    ``SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN`` (or ``SGLANG_IS_IN_CI``) is true in ``env``
    (default: the process environment); else ``InputError``. Results are cached per path and
    arguments; a cached file is stat-ed again at most once a second, so an edit shows up
    within a second (``clear_cache()`` forces a re-read).
    """
    return _load(path_or_name, json_override, context_length, env, None)


def load_draft_model(path_or_name: str, *, target: ModelFacts,
                     speculative_algorithm: str | None = None,
                     json_override: str | None = None,
                     env: Mapping[str, str] | None = None) -> ModelFacts:
    """The draft's facts as the speculative worker builds them (§4.2).

    The draft's arch0 is renamed to its MTP/NextN form before shapes are derived, and its
    context length is the target's: longer than the draft's own only with the environment
    override, else ``InputError``.
    """
    algo = speculative_algorithm.upper() if isinstance(speculative_algorithm, str) else None
    return _load(path_or_name, json_override, target.context_len, env, (algo,))


def clear_cache() -> None:
    """Forget every loaded model (tests, or a long-lived process whose files changed)."""
    _CACHE.clear()


# --- caching --------------------------------------------------------------------------------------

_CACHE: dict[tuple[Any, ...], list[Any]] = {}  # key -> [checked_at, stamp, facts, display]
_CACHE_LIMIT = 256
#: A cached entry trusts its file stamp for this long before stat-ing the file again, so a
#: sweep of thousands of resolutions costs one dict lookup each; edits show within a second.
_RECHECK_SECONDS = 1.0


def _load(path_or_name: Any, json_override: Any, context_length: Any,
          env: Mapping[str, str] | None, draft: tuple[str | None] | None) -> ModelFacts:
    if not isinstance(path_or_name, str):
        raise InputError("--model-path", "a path or a bundled model name", path_or_name)
    if context_length is not None:
        n = _as_int(context_length)
        # SGLang keeps a zero or negative length as given (the worker refuses it at start:
        # preflight's context-length-above-one); only what is no integer is bad input
        if n is None or abs(n) > MAX_INT:
            raise InputError("--context-length", "an integer within +-(2**63 - 1) tokens",
                             _shown(context_length))
        context_length = n
    if isinstance(json_override, Mapping):
        json_override = json.dumps(json_override, sort_keys=True, default=repr)
    if env is None:
        env = os.environ
    try:
        cwd = None if os.path.isabs(path_or_name) else os.getcwd()
    except OSError:  # the working directory was removed
        cwd = ""
    key = (path_or_name, cwd, json_override, context_length, draft)
    hit = _CACHE.get(key)
    if hit is not None:
        checked_at, stamp, facts, display = hit
        now = time.monotonic()
        fresh = stamp is None or now - checked_at < _RECHECK_SECONDS
        if not fresh and _stamp(stamp[0], stamp[1]) == stamp:
            hit[0] = now
            fresh = True
        if fresh:
            # the environment matters only for a --context-length above the derived length
            if context_length is not None and context_length > facts.derived_context_len \
                    and not longer_context_allowed(env):
                raise _context_too_long(context_length, facts.derived_context_len, display,
                                        draft is not None)
            return facts
    source = _locate(path_or_name)
    stamp = None if source.bundled else _stamp(source.config_file, source.folder)
    facts = _build(source, json_override, context_length, env, draft)
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[key] = [time.monotonic(), stamp, facts, source.display]
    return facts


def _stamp(config_file: Any, folder: Any) -> tuple[Any, ...]:
    """What must not change for a cached entry to stay valid: the file and its folder."""
    try:
        st = os.stat(config_file)
        folder_mtime = os.stat(folder).st_mtime_ns if folder is not None else None
    except OSError:
        return (config_file, folder, None)
    return (config_file, folder, st.st_mtime_ns, st.st_size, folder_mtime)


def _build(source: _Source, json_override: Any, context_length: Any,
           env: Mapping[str, str], draft: tuple[str | None] | None) -> ModelFacts:
    raw = _read_json(source.config_file, source.display)
    if not isinstance(raw, dict):
        raise InputError(source.display, "a JSON object", _json_kind(raw))
    override = _parse_override(json_override)
    hf_quant = modelslim = None
    if source.folder is not None:
        hf_quant = _sidecar(source.folder, _HF_QUANT)
        modelslim = _sidecar(source.folder, _MODELSLIM)
    try:
        return _derive(raw, source, override, context_length, env, draft, hf_quant, modelslim)
    except RecursionError:
        raise InputError(source.display, "a config nested less deeply") from None


def _parse_override(text: Any) -> dict[str, Any] | None:
    if text is None:
        return None
    if isinstance(text, Mapping):
        return dict(text)
    if not isinstance(text, str):
        raise InputError("--json-model-override-args", "a JSON object", text)
    if not text.strip():
        return None
    value = _parse_json(text, "--json-model-override-args")
    if not isinstance(value, dict):
        raise InputError("--json-model-override-args", "a JSON object", _json_kind(value))
    return value or None


def _sidecar(folder: str, name: str) -> dict[str, Any] | None:
    path = os.path.join(folder, name)
    if not os.path.isfile(path):
        return None
    value = _read_json(path, path)
    if not isinstance(value, dict):
        raise InputError(path, "a JSON object", _json_kind(value))
    return value
