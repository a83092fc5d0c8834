"""The SGLang release a pasted text says it ran on.

An issue's environment report (``python -m sglang.check_env`` prints ``sglang: 0.5.21``), a
``pip install "sglang[all]==0.5.22"``, an ``lmsysorg/sglang:v0.5.21-cu129`` image (or the ROCm
ones, ``lmsysorg/sglang-rocm:v0.5.21-rocm720-mi35x-...`` and AMD's ``rocm/sgl-dev:v0.5.22-...``;
AMD's ATOM images with SGLang's plugin, ``rocm/atom-dev:sglang-v0.5.22-nightly_20260514``, a
dated build of that release) and the banner NVIDIA's SGLang container prints before a log
(``SGLang Version 0.5.11+05fb6a52``, a build of that release) each name the release whose
flags, defaults and rules the launch met. When ``--compat`` is not given, the commands plan
with that release's rule set, with a note, so a pasted issue (or ``--from-log``'s log) is
planned as it ran. Only one release named in the whole text counts; a release launchplan does
not model is said in the note, and the default rules plan it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: Where a text names the SGLang release: the report's line, a pinned install, an image tag.
_NAMED = (re.compile(r"(?mi)^\s*sglang\s*:\s*v?(\d+\.\d+\.\d+\S*)\s*$"),
          re.compile(r"(?i)\bsglang(?:\[[\w,.-]*\])?\s*==\s*v?(\d+\.\d+\.\d+[\w.+-]*)"),
          # the tag ends where the image name does: a variant (``-cu129``), a digest pin
          # (``@sha256:...``), a quote, inline code's backtick or the prose punctuation around it
          re.compile(r"(?i)\b(?:lmsysorg/sglang(?:-rocm)?|rocm/sgl-dev):v?(\d+\.\d+\.\d+[\w.]*?)"
                     r"(?=[-@]|\s|$|[\"'`),;\]}])"),
          # ATOM's images name the SGLang they carry after ``sglang-``, a build date after it
          re.compile(r"(?i)\b(?:rocm/)?atom-dev:sglang-v?(\d+\.\d+\.\d+[\w.]*?)"
                     r"(?=[-_@]|\s|$|[\"'`),;\]}])"),
          re.compile(r"(?mi)^\s*sglang version\s+v?(\d+\.\d+\.\d+\S*)\s*$"))
#: A release and its post releases (same flags and rules); not a pre-release or a dev build.
_RELEASE = re.compile(r"^(\d+\.\d+\.\d+)(?:\.post\d+)?$")


def named_version(tokens: Sequence[str]) -> tuple[str, str] | None:
    """(the version as written, the words naming it) of the one SGLang release the text
    names; None when it names none, or several."""
    versions: dict[str, str] = {}
    for token in tokens:
        low = token.lower()
        if "sglang" not in low and "sgl-dev" not in low:  # AMD's image: rocm/sgl-dev:v0.5.7-...
            continue
        for pattern in _NAMED:
            for m in pattern.finditer(token):
                versions.setdefault(m.group(1).rstrip("."), m.group(0).strip())
    if len(versions) > 1:  # a source build's placeholder does not contradict a release named
        versions = {v: w for v, w in versions.items() if source_build(v) is None} or versions
    if len(versions) != 1:
        return None
    ((version, words),) = versions.items()
    return version, words


#: setuptools-scm's version for a checkout it finds no release tag in: ``0.0.0.dev1+g<sha>``
#: (an editable or source install of a shallow clone, and SGLang's own nightly images, whose
#: check_env reports it); it names a commit, never a release or an age
_SOURCE_BUILD = re.compile(r"^0\.0\.0\.dev\d+\+g([0-9a-f]{7,40})(?:\.d\d+)?$")


def source_build(version: str) -> str | None:
    """The commit a source build's placeholder version names (``0.0.0.dev1+g4ccff141d``:
    ``4ccff141d``); None for any other version."""
    match = _SOURCE_BUILD.match(version)
    return match.group(1) if match else None


def modelled_release(version: str, modelled: Sequence[str]) -> str | None:
    """The rule set among ``modelled`` for ``version`` (``0.5.22.post1`` is 0.5.22's); None
    for a release launchplan does not model, a pre-release or a local build."""
    match = _RELEASE.match(version)
    release = match.group(1) if match else None
    return release if release in modelled else None


def reported_release(tokens: Sequence[str], modelled: Sequence[str]
                     ) -> tuple[str | None, str, str] | None:
    """(the rule set among ``modelled`` for the one release the text names, or None when
    launchplan does not model it; the version as written; the words naming it) or None
    when the text names no release, or several."""
    found = named_version(tokens)
    if found is None:
        return None
    version, words = found
    return modelled_release(version, modelled), version, words
