"""From what a user typed to a resolved plan: input, facts, rule set, pipeline."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from launchplan.engine.pipeline import run
from launchplan.engine.record import Record
from launchplan.engine.result import Result
from launchplan.errors import InputError
from launchplan.facts.environment import unreadable
from launchplan.facts.models import bundled_models, load_draft_model, load_model
from launchplan.facts.targets import Target, get_target
from launchplan.input.cli import parse_argv
from launchplan.input.fields import release_table
from launchplan.input.raw import RawInput
from launchplan.rulesets import RULESETS, get_ruleset


def build_raw(argv: Sequence[str] = (), fields: Mapping[str, Any] | None = None,
              model_path: str | None = None, *, compat: str = "default",
              env: Mapping[str, str] | None = None) -> RawInput:
    """The raw input: ``argv`` parsed as a command line, then ``fields`` (which win).

    Both are read against the flag surface of the SGLang release ``compat`` names; ``env``
    (the launch's environment) can widen that surface, as it widens SGLang's parser.
    """
    release = get_ruleset(compat).sglang
    if not argv and model_path is None:
        if fields:
            return RawInput.from_fields(dict(fields), release)
        return RawInput({}, {}, [], [], release)
    if not argv:  # keyword input only: one RawInput
        raw = RawInput.from_fields(fields or {}, release)
        raw.values["model_path"] = model_path
        raw.origin["model_path"] = "keyword"
        return raw
    raw = parse_argv(list(argv), release, _legacy_env(dict(env), []) if env else None)
    if fields:
        keyword = RawInput.from_fields(dict(fields), release)
        raw.values.update(keyword.values)
        raw.origin.update(keyword.origin)
    if model_path is not None:
        raw.values["model_path"] = model_path
        raw.origin["model_path"] = "keyword"
    return raw


def overlay(raw: RawInput, fields: Mapping[str, Any]) -> RawInput:
    """A copy of ``raw`` with ``fields`` laid over it as keyword input (``raw`` unchanged):
    re-resolving one change needs no second parse of the command line."""
    if not fields:
        return raw
    keyword = RawInput.from_fields(dict(fields), raw.release)
    return RawInput({**raw.values, **keyword.values}, {**raw.origin, **keyword.origin},
                    list(raw.notices), list(raw.deprecations), raw.release)


def build_record(raw: RawInput, gpu: str | Target, *, compat: str = "default",
                 env: Mapping[str, str] | None = None) -> Record:
    """Look up the facts the raw input names: the target, the model and its draft."""
    target = gpu if isinstance(gpu, Target) else get_target(gpu)
    model_path = raw.values.get("model_path")
    if model_path is None:
        raise InputError("--model-path", "a folder holding config.json or a bundled model name",
                         message="--model-path: required (a folder holding config.json or a "
                         "bundled model name; see `launchplan models`)")
    env = _legacy_env(dict(env or {}), raw.notices) if env else {}
    model_path = _plain_quotes(raw, "model_path", model_path)
    path = local_model(str(model_path), raw.values.get("revision"), notes=raw.notices)
    json_override = raw.values.get("json_model_override_args")
    context_length = raw.values.get("context_length")
    try:
        model = load_model(path, json_override=json_override, context_length=context_length,
                           env=env)
    except InputError as exc:
        if exc.subject != "--context-length" or "derived" not in exc.expected:
            raise
        # SGLang refuses a longer context during resolution: the context_length_limit rule
        # says so (exit 3); the facts are built as if the longer length were allowed.
        allow = {**env, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}
        model = load_model(path, json_override=json_override, context_length=context_length,
                           env=allow)
    draft_path = raw.values.get("speculative_draft_model_path")
    if draft_path:
        draft_path = _plain_quotes(raw, "speculative_draft_model_path", draft_path)
    draft = None
    if draft_path:
        draft = _draft(raw, model, str(draft_path), env)
    release = RULESETS[compat].sglang if compat in RULESETS else get_ruleset(compat).sglang
    if raw.release != release:
        raw = _reread(raw, release)
    return Record(raw, target, model, draft, compat, env)


#: The path-valued fields whose typographic quotes are read away (their flags, for the note).
_PATH_FLAGS = {"model_path": "--model-path",
               "speculative_draft_model_path": "--speculative-draft-model-path"}


def _plain_quotes(raw: RawInput, field: str, value: Any) -> Any:
    """``value`` without the typographic quotes a web page or chat client wrapped it in
    (``“/models/x”``), noted: the shell keeps such quotes in the word, so SGLang itself
    would look for a path with them and not find it."""
    if not isinstance(value, str) or value.isascii():  # every typographic quote is not ASCII
        return value
    from launchplan.input.typography import unquoted

    inner = unquoted(value)
    if inner is None:
        return value
    raw.values[field] = inner
    raw.notices.append(f"{_PATH_FLAGS[field]} {value} is wrapped in typographic quotes, which "
                       f"the shell keeps as part of the path (SGLang would not find it): "
                       f"planned as {inner}; retype them as plain ' or \" quotes")
    return inner


def _legacy_env(env: dict[str, str], notes: list[str]) -> dict[str, str]:
    """``env`` as SGLang reads it: every ``SGL_``-prefixed variable also under its ``SGLANG_``
    name, the ``SGL_`` value winning (``srt/environ.py`` renames them when it is imported,
    in 0.5.21 to 0.5.23 alike), so ``SGL_ENABLE_JIT_DEEPGEMM=0`` pasted from an older
    launch line reaches the rules that read ``SGLANG_ENABLE_JIT_DEEPGEMM``. A value SGLang
    cannot parse is noted (it warns and keeps the variable's default)."""
    for key in [k for k in env if k.startswith("SGL_")]:
        new = "SGLANG_" + key[4:]
        env[new] = env[key]
        note = f"{key} is the legacy spelling of {new}: SGLang reads it as {new}"
        if note not in notes:
            notes.append(note)
    for note in unreadable(env):
        if note not in notes:
            notes.append(note)
    return env


def _reread(raw: RawInput, release: str) -> RawInput:
    """Input read against another release's surface, checked against ``release``'s fields.

    A caller that built the input without naming the rule set (``build_raw`` defaults to
    0.5.23) still gets the chosen release's refusal of a field it does not have.
    """
    from launchplan.input.raw import unknown_field_error

    known = release_table(release).fields
    for name in raw.values:
        if name not in known:
            raise unknown_field_error(name, release)
    return RawInput(raw.values, raw.origin, raw.notices, raw.deprecations, release)


def _draft(raw: RawInput, model: Any, draft_path: str, env: dict[str, str]) -> Any:
    """The draft's facts. A draft shorter than the target fails only when SGLang's worker
    starts (resolution never builds the draft's config): preflight reports it
    (``draft-context``), so the facts are built as if the longer context were allowed."""
    path = local_model(draft_path, raw.values.get("speculative_draft_model_revision"),
                       "--speculative-draft-model-path", notes=raw.notices)
    algorithm = raw.values.get("speculative_algorithm")
    try:
        return load_draft_model(path, target=model, speculative_algorithm=algorithm, env=env)
    except InputError as exc:
        if exc.subject == "--model-path":  # the model files' lookup names the target's flag
            raise _as_draft_error(exc) from None
        if "context length" not in exc.expected:
            raise
        allow = {**env, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}
        return load_draft_model(path, target=model, speculative_algorithm=algorithm, env=allow)


def _as_draft_error(exc: InputError) -> InputError:
    """``exc`` (a model folder that cannot be read) about the draft: named by the flag that
    gave the draft's path, so the reader fixes that flag, not the target's."""
    flag = "--speculative-draft-model-path"
    hint = exc.hint.replace("--model-path", flag) if exc.hint else None
    return InputError(flag, exc.expected, exc.got, hint)


def local_model(path: str, revision: str | None = None, flag: str = "--model-path",
                notes: list[str] | None = None) -> str:
    """A Hugging Face id (``org/name``) becomes the local folder of its ``config.json``; a
    path that is not on this machine but names a bundled model (a launch pasted from
    another machine) becomes that model, with a note in ``notes``."""
    if "/" not in path or path in bundled_models():  # the common cases, without a stat
        return path
    from launchplan.facts.hub import config_folder, looks_like_hub_id
    from launchplan.facts.models import bundled_alias, bundled_for_path
    from launchplan.facts.models.snapshots import snapshot_hub_id, snapshot_source

    if looks_like_hub_id(path):
        alias = bundled_alias(path) if revision in (None, "main") else None
        if alias is not None and not os.path.exists(path):
            return alias  # the same config.json, shipped: no network, no cache needed
        folder = config_folder(path, revision, flag)
        if notes is not None and snapshot_hub_id(folder) is not None:
            source = snapshot_source(snapshot_hub_id(folder))
            notes.append(f"{flag} {path}: planned with the config.json launchplan ships for "
                         f"it ({source}); the Hub's current revision may differ "
                         "(a local copy or the Hugging Face cache is read first)")
        return str(folder)
    if revision in (None, "main") and not os.path.exists(path):
        alias = bundled_for_path(path)
        if alias is not None:
            hub = snapshot_hub_id(alias) if os.sep in alias else None
            what = (f"the config.json launchplan ships for {hub} ({snapshot_source(hub)})"
                    if hub is not None else f"the bundled model {alias}")
            if notes is not None:
                notes.append(f"{flag} {path} is not on this machine: planned with {what}, "
                             f"which its name matches (give {flag} with a folder holding the "
                             "real config.json to plan that instead)")
            return alias
    return path


#: Per thread, the previous resolution per target, model, draft, rule set and environment:
#: a repeated or slightly changed input re-runs only the rules a changed field can reach
#: (bounded; one per thread, since a run extends the previous one's record as it goes).
_PREVIOUS = threading.local()


def _previous() -> dict[Any, Any]:
    memo = getattr(_PREVIOUS, "memo", None)
    if memo is None:
        memo = _PREVIOUS.memo = {}
    return memo


def resolve(argv: Sequence[str] = (), *, fields: Mapping[str, Any] | None = None,
            gpu: str | Target, model_path: str | None = None, compat: str = "default",
            env: Mapping[str, str] | None = None, trace: bool = False,
            incremental: bool = True) -> Result:
    """Resolve an SGLang launch for a GPU target and a model, as SGLang would.

    ``argv`` is parsed as SGLang's command line; ``fields`` are SGLang field values taken as
    given (SGLang's keyword path: no choice checks) and win over ``argv``. Raises
    ``InputError`` for bad input and ``Refusal`` (carrying the partial result) when SGLang
    would refuse the configuration.

    ``incremental``: the pipeline's early cut-off against this process's previous
    resolution with the same facts (``engine.pipeline.run``'s ``memo``); the outcome is the
    same either way (``tests/engine/test_incremental.py``). ``False`` resolves from scratch.
    """
    raw = build_raw(argv, fields, model_path, compat=compat, env=env)
    record = build_record(raw, gpu, compat=compat, env=env)
    return run(record, get_ruleset(compat).rules(), trace=trace,
               memo=_previous() if incremental and not trace else None)
