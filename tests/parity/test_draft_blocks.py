"""The DFLASH block size and DSpark gamma launchplan reads from a draft config, against
SGLang's own parse of the same configs on each release (``tools/record_draft_blocks.py``).

SGLang parses the whole draft config and, on any error, falls back to its default window;
so the answer depends on every field the parse checks, not only on the block size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.facts.models.draft_blocks import dflash_block_size, dspark_gamma

DATA = json.loads((Path(__file__).parent / "data" / "draft-blocks.json").read_text())


def test_recordings_cover_every_release_and_both_outcomes():
    assert sorted(DATA["answers"]) == ["0.5.21", "0.5.22", "0.5.23"]
    for answers in DATA["answers"].values():
        assert len(answers) == len(DATA["configs"]) >= 900
        for column in zip(*answers):  # DFLASH, DSpark: some parsed, some rejected
            assert None in column and any(isinstance(x, int) for x in column)


@pytest.mark.parametrize("release", ["0.5.21", "0.5.22", "0.5.23"])
def test_block_sizes_agree_with_sglang(release):
    wrong = []
    for config, (block, gamma) in zip(DATA["configs"], DATA["answers"][release]):
        mine = (dflash_block_size(config), dspark_gamma(config, release))
        if mine != (block, gamma):
            wrong.append((config, mine, (block, gamma)))
    assert not wrong, wrong[:3]
