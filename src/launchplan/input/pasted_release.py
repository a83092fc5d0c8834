"""The SGLang release a pasted text says it ran on.

An issue's environment report (``python -m sglang.check_env`` prints ``sglang: 0.5.21``), a
``pip install "sglang[all]==0.5.22"`` and an ``lmsysorg/sglang:v0.5.21-cu129`` image each name
the release whose flags, defaults and rules the launch met. When ``--compat`` is not given,
the commands plan with that release's rule set, with a note, so a pasted issue is planned as
it ran. Only one release named in the whole text counts; a release launchplan does not model
is said in the note, and the default rules plan it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: Where a text names the SGLang release: the report's line, a pinned install, an image tag.
_NAMED = (re.compile(r"(?mi)^\s*sglang\s*:\s*v?(\d+\.\d+\.\d+\S*)\s*$"),
          re.compile(r"(?i)\bsglang(?:\[[\w,.-]*\])?\s*==\s*v?(\d+\.\d+\.\d+[\w.+-]*)"),
          re.compile(r"(?i)\blmsysorg/sglang:v?(\d+\.\d+\.\d+[\w.]*?)(?=-|\s|$|[\"'])"))
#: A release and its post releases (same flags and rules); not a pre-release or a dev build.
_RELEASE = re.compile(r"^(\d+\.\d+\.\d+)(?:\.post\d+)?$")


def reported_release(tokens: Sequence[str], modelled: Sequence[str]
                     ) -> tuple[str | None, str, str] | None:
    """(the rule set among ``modelled`` for the one release the text names, or None when
    launchplan does not model it; the version as written; the words naming it) or None
    when the text names no release, or several."""
    versions: dict[str, str] = {}
    for token in tokens:
        if "sglang" not in token.lower():
            continue
        for pattern in _NAMED:
            for m in pattern.finditer(token):
                versions.setdefault(m.group(1).rstrip("."), m.group(0).strip())
    if len(versions) != 1:
        return None
    ((version, words),) = versions.items()
    match = _RELEASE.match(version)
    release = match.group(1) if match else None
    return (release if release in modelled else None), version, words
