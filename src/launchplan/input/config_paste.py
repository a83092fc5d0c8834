"""A ``--config`` file's content pasted in place of a command line.

Bug reports show the YAML a server was started with (``model-path: Qwen/...``,
``tp-size: 4``, ``enable-dp-attention: true``) rather than the launch that named it, often
after the ``export`` lines of the environment or a line of prose. SGLang turns such a file
into flags (see ``config_file``); a pasted one is read the same way, as if given with
``--config``. Only a text whose top-level keys (after any lines of prose) are all spelled
like options, one at least naming an SGLang option, is taken for one: anything else is left
to the other readers.
"""

from __future__ import annotations

import re
from typing import Any

from launchplan.input.yaml_bound import check_expansion

#: ``key: value`` at the top level, with a key spelled like an option name.
_TOP_KEY = re.compile(r"^([a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)[ \t]*:(?:[ \t]|$)")
#: A shell line that sets the launch's environment.
_EXPORT = re.compile(r"^(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=(\S*)[ \t]*$")


def pasted_config(text: str) -> tuple[list[str], list[str]] | None:
    """(flags, env assignments) of ``text`` read as a config file, or None when it is not
    one (see the module)."""
    import textwrap

    env: list[str] = []
    body: list[str] = []
    keys: list[str] = []
    # a file copied out of an indented block (a Python string, a list item) is indented as
    # a whole: YAML reads it the same, so its keys are top-level keys
    for line in textwrap.dedent(text).split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not body and (assignment := _EXPORT.match(stripped)):
            env.append(f"{assignment.group(1)}={assignment.group(2).strip(chr(34) + chr(39))}")
            continue
        if line[:1] in (" ", "\t", "-") and body:
            body.append(line)
            continue
        key = _TOP_KEY.match(line)
        if key is None:
            if body:
                return None
            continue  # a line of prose before the config ("launch server:")
        keys.append(key.group(1))
        body.append(line)
    if not keys or not any(_is_option(k) for k in keys):
        return None
    data = _loaded("\n".join(body))
    if data is None:
        return None
    if any(isinstance(value, dict) and not _is_option(str(key)) for key, value in data.items()):
        return None  # a section under a name no option has: a chart's values, not a config
    from launchplan.input.config_file import config_tokens

    flags, _ = config_tokens(data, "the pasted config")
    return flags, env


def _is_option(key: str) -> bool:
    from launchplan.input.fields import release_table

    flag = "--" + key.replace("_", "-")
    table = release_table()
    return any(flag in spec.flags for spec in table.fields.values())


def _loaded(text: str) -> dict[Any, Any] | None:
    import yaml

    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except Exception:  # yaml.YAMLError or a value YAML cannot build: not a config, then
        return None
    if not isinstance(data, dict):
        return None
    check_expansion(data, "the pasted config")
    return data


def config_block(text: str) -> list[str] | None:
    """The flags of a config file's content written out inside a longer paste (the YAML,
    then the ``--config config.yaml`` launch that names it, as docs show them), or None:
    the first run of top-level ``key: value`` lines, one at least naming an SGLang option."""
    run: list[str] = []
    for line in [*text.split("\n"), ""]:
        if _TOP_KEY.match(line) or (run and line[:1] in (" ", "\t", "-") and line.strip()):
            run.append(line)
            continue
        if run:
            keys = [m.group(1) for m in map(_TOP_KEY.match, run) if m]
            data = _loaded("\n".join(run)) if any(_is_option(k) for k in keys) else None
            if data is not None:
                from launchplan.input.config_file import config_tokens

                return config_tokens(data, "the pasted config")[0]
            run = []
    return None


def config_flags(text: str) -> list[str] | None:
    """The flags of a config file's ``text`` (None when it is not a YAML mapping)."""
    data = _loaded(text)
    if data is None:
        return None
    from launchplan.input.config_file import config_tokens

    return config_tokens(data, "the pasted config")[0]
