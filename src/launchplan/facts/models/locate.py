"""Where a model's ``config.json`` is: a folder, a file, a GGUF file, or a bundled name.
"""

from __future__ import annotations

from pathlib import Path

from launchplan.errors import InputError
from launchplan.facts.models.bundled import _CONFIG, _bundled
from launchplan.facts.models.snapshots import snapshot_hub_id
from launchplan.struct import Struct


class _Source(Struct):
    given: str
    name: str
    config_file: str
    folder: str | None  # where the sidecar files are looked up
    display: str  # how messages name the config file
    is_gguf: bool = False
    bundled: bool = False  # package data: never re-checked


def _locate(given: str) -> _Source:
    try:
        return _locate_path(given)
    except (OSError, ValueError):  # e.g. a NUL byte or an over-long name
        raise _no_model(given) from None


def _locate_path(given: str) -> _Source:
    if given.strip().lower() in ("none", "dummy"):
        raise InputError("--model-path", "a model folder holding config.json or a bundled "
                         "model name (launchplan reads the model's config.json; SGLang's "
                         "dummy model has none)", given)
    if given == "":
        raise _no_model(given)
    p = Path(given)
    if p.is_dir():
        cfg = p / _CONFIG
        if not cfg.is_file():
            raise InputError(str(cfg), "a config.json in the model folder",
                             hint="the folder exists but holds no config.json")
        hub = snapshot_hub_id(p)
        if hub is not None:  # a shipped Hub config: named by its Hub id, never re-checked
            return _Source(given, hub, str(cfg), str(p), f"{hub} ({_CONFIG} shipped)",
                           bundled=True)
        return _Source(given, p.resolve().name or given, str(cfg), str(p), str(cfg))
    if p.is_file():
        if p.suffix == ".gguf" or _starts_with_gguf(p):
            cfg = p.parent / _CONFIG
            if not cfg.is_file():
                raise InputError("--model-path", "a GGUF file with a config.json beside it "
                                 "(launchplan does not read GGUF metadata)", given)
            return _Source(given, p.stem, str(cfg), str(p.parent), str(cfg), is_gguf=True)
        name = p.resolve().parent.name if p.name == _CONFIG else p.stem
        return _Source(given, name, str(p), str(p.parent), str(p))
    bundled = dict(_bundled())
    if given in bundled:
        folder = bundled[given]
        return _Source(given, given, str(folder / _CONFIG), str(folder), f"{given}/{_CONFIG}",
                       bundled=True)
    raise _no_model(given)


def _no_model(given: str) -> InputError:
    names = ", ".join(name for name, _ in _bundled())
    from launchplan.input.shell_vars import open_reference, placeholder
    from launchplan.input.typography import typographic_hint  # error path only

    elsewhere = "/" in given or "\\" in given
    hint = typographic_hint(given)
    if hint is None and placeholder(given):
        hint = ("a placeholder the pasted text leaves to fill in: give --model-path again "
                "after the pasted launch, SGLang keeps the last one")
    elif hint is None and open_reference(given):
        hint = ("a variable the pasted text leaves open (a shell $NAME, a Kubernetes $(NAME) "
                "the manifest does not set): give --model-path again after the pasted launch, "
                "SGLang keeps the last one")
    elif hint is None and elsewhere:
        hint = ("a path on another machine: give --model-path again after the pasted launch, "
                "SGLang keeps the last one")
    return InputError("--model-path", f"a folder holding config.json or a bundled model name "
                      f"({names})", given, hint=hint)


def _starts_with_gguf(p: Path) -> bool:
    try:
        with open(p, "rb") as f:
            return f.read(4) == b"GGUF"
    except OSError:
        return False
