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

#: ``key: value`` at the top level, with a key spelled like an option name.
_TOP_KEY = re.compile(r"^([a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)[ \t]*:(?:[ \t]|$)")
#: A shell line that sets the launch's environment.
_EXPORT = re.compile(r"^(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=(\S*)[ \t]*$")


def pasted_config(text: str) -> tuple[list[str], list[str]] | None:
    """(flags, env assignments) of ``text`` read as a config file, or None when it is not
    one (see the module)."""
    env: list[str] = []
    body: list[str] = []
    keys: list[str] = []
    for line in text.split("\n"):
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
    return data if isinstance(data, dict) else None
