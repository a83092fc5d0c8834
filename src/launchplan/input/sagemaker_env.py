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
_OTHER_ASSIGNED = re.compile(r"""(?:^|\s)(?:-e\s+|--env[=\s]+|export\s+)?([A-Z][A-Z0-9_]*)="""
                             r"""(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'`]*))""", re.MULTILINE)
_PREFIX = "SM_SGLANG_"
#: A quoted upper-case key and its colon: where a mapping entry's value starts.
_MAPPED_KEY = re.compile(r"""["']([A-Z][A-Z0-9_]*)["']\s*:\s*""")
#: The names a container's environment holds.
_VARIABLE = re.compile(r"[A-Z][A-Z0-9_]*")


def configures_sagemaker(text: str) -> bool:
    """Whether ``text`` sets at least one ``SM_SGLANG_*`` variable to a value."""
    return _PREFIX in text and bool(_MAPPED.search(text) or _ASSIGNED.search(text))


def sagemaker_launch(text: str) -> tuple[list[str], list[str]]:
    """(words, env assignments): the launch the SageMaker image starts from the text's
    ``SM_SGLANG_*`` variables (the launcher prefix first), and the other variables the text
    gives the container. A variable given twice takes its last value, as an environment
    would hold it."""
    given = _given(text)
    settings: dict[str, str] = {}
    for _, name, value in given:
        if name.startswith(_PREFIX):
            settings.pop(name[len(_PREFIX):], None)  # the last one given wins
            settings[name[len(_PREFIX):]] = value
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
    for _, name, value in given:
        if not name.startswith(_PREFIX) and "${" not in value:
            env[name] = value
    return (["python3", "-m", "sglang.launch_server", *flags],
            [f"{name}={value}" for name, value in env.items()])


def _given(text: str) -> list[tuple[int, str, str]]:
    """(line, name, value) of each variable the text sets, in its order. A Python or JSON
    mapping's value is an expression: read as an argv item of the script is (a name the
    script sets is its value, ``str(tp)`` what ``tp`` is, anything the text leaves open a
    ``${...}`` reference), never its source text taken as the value."""
    def line(at: int) -> int:
        return text.count("\n", 0, at) + 1

    found: list[tuple[int, str, str]] = []
    for pattern, prefix in ((_ASSIGNED, _PREFIX), (_OTHER_ASSIGNED, "")):
        for match in pattern.finditer(text):
            if prefix or not match.group(1).startswith(_PREFIX):
                value = next((g for g in match.groups()[1:] if g is not None), "")
                found.append((line(match.start()), prefix + match.group(1), value))
    from launchplan.input.python_literals import entry_words

    entries = entry_words(text, _VARIABLE) if _MAPPED_KEY.search(text) else []
    if entries is None:  # a piece of a script (an elif branch): each value on its own
        entries = [(line(m.start()), m.group(1), _value(text, m.end()))
                   for m in _MAPPED_KEY.finditer(text)]
    found += entries
    found.sort(key=lambda item: item[0])
    return found


def _value(text: str, start: int) -> str:
    """The mapping value that starts at ``start`` (up to the comma or brace that closes its
    entry) read as a Python expression; its text as it is when it is none."""
    from launchplan.input.process_builders import _outside_strings
    from launchplan.input.python_literals import expression_word

    at = len(text)
    for i, char, depth in _outside_strings(text, start, "\"'"):
        if depth < 0 or (depth == 0 and char in ",\n#"):
            at = i
            break
    source = text[start:at].strip()

    word = expression_word(source) if source else None
    return word if word is not None else source.strip("\"'")
