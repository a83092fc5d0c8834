"""A launch configured through ``SM_SGLANG_*`` variables, as SageMaker's SGLang images read them.

The SGLang images built for Amazon SageMaker (the AWS Deep Learning Container's
``sagemaker_entrypoint.sh``; SGLang's own ``docker/serve`` reads the same prefix) run no command
a user writes: they start ``python3 -m sglang.launch_server`` with one flag per
``SM_SGLANG_<NAME>`` variable of the environment. So a SageMaker deployment is pasted as that
environment: the ``env={...}`` of a ``sagemaker.model.Model``, a boto3 ``Environment``
mapping, a ``docker run -e SM_SGLANG_...`` line. Each variable becomes ``--<name>`` (lower
case, ``_`` read as ``-``) followed by its value; a value ``true`` gives the flag alone,
``false`` leaves it out, an empty one gives the flag alone. The image adds ``--port 8080``,
``--host 0.0.0.0`` and ``--model-path /opt/ml/model`` (where SageMaker puts the model's
files) when the variables set none of them.
"""

from __future__ import annotations

import re

#: ``"SM_SGLANG_NAME": value`` in a Python or JSON mapping (a string, a number or a bool).
_MAPPED = re.compile(r"""["']SM_SGLANG_([A-Z0-9_]+)["']\s*:\s*(?:"([^"\n]*)"|'([^'\n]*)'|"""
                     r"""([A-Za-z0-9_.+-]+))""")
#: ``SM_SGLANG_NAME=value`` in a shell line or an env file (``export``, ``-e``, ``--env``).
_ASSIGNED = re.compile(r"""(?<![\w"'])SM_SGLANG_([A-Z0-9_]+)=(?:"([^"\n]*)"|'([^'\n]*)'|"""
                       r"""([^\s"'`]*))""")
#: Another upper-case variable given in the same ways (``HF_TOKEN``, ``SGLANG_...``): the
#: container's environment.
_OTHER_MAPPED = re.compile(r"""["']([A-Z][A-Z0-9_]*)["']\s*:\s*(?:"([^"\n]*)"|'([^'\n]*)')""")
_OTHER_ASSIGNED = re.compile(r"""(?:^|\s)(?:-e\s+|--env[=\s]+|export\s+)?([A-Z][A-Z0-9_]*)="""
                             r"""(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'`]*))""", re.MULTILINE)
_PREFIX = "SM_SGLANG_"


def configures_sagemaker(text: str) -> bool:
    """Whether ``text`` sets at least one ``SM_SGLANG_*`` variable to a value."""
    return _PREFIX in text and bool(_MAPPED.search(text) or _ASSIGNED.search(text))


def sagemaker_launch(text: str) -> tuple[list[str], list[str]]:
    """(words, env assignments): the launch the SageMaker image starts from the text's
    ``SM_SGLANG_*`` variables (the launcher prefix first), and the other variables the text
    gives the container. A variable given twice takes its last value, as an environment
    would hold it."""
    settings: dict[str, str] = {}
    for found in sorted([*_MAPPED.finditer(text), *_ASSIGNED.finditer(text)],
                        key=lambda m: m.start()):
        name = found.group(1)
        value = next((g for g in found.groups()[1:] if g is not None), "")
        settings.pop(name, None)  # the last one given wins
        settings[name] = value
    flags: list[str] = []
    for name, value in settings.items():
        flag = "--" + name.lower().replace("_", "-")
        if value.lower() == "false":
            continue
        flags.append(flag)
        if value and value.lower() != "true":
            flags.append(value)
    for flag, default in (("--port", "8080"), ("--host", "0.0.0.0"),
                          ("--model-path", "/opt/ml/model")):
        if flag not in flags:
            flags += [flag, default]
    env: dict[str, str] = {}
    for found in sorted([*_OTHER_MAPPED.finditer(text), *_OTHER_ASSIGNED.finditer(text)],
                        key=lambda m: m.start()):
        name = found.group(1)
        if not name.startswith(_PREFIX):
            env[name] = next((g for g in found.groups()[1:] if g is not None), "")
    return (["python3", "-m", "sglang.launch_server", *flags],
            [f"{name}={value}" for name, value in env.items()])
