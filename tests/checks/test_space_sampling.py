"""Sampling a space decodes points from their index instead of enumerating the space."""

from __future__ import annotations

import random

from launchplan.checks.space import Space


def test_every_index_decodes_to_the_enumerated_point():
    space = Space(["h100", "b200"], ["llama-3.1-8b", "deepseek-v3"],
                  axes=[("max_running_requests", (64, 128))])
    points = list(space)
    blocks = space._blocks()
    assert len(points) == space.size()
    assert [space._point_at(i, blocks) for i in range(len(points))] == points


def test_a_sample_is_the_same_draw_as_sampling_the_enumerated_list():
    space = Space(["a100", "mi300x"], ["qwen3-8b", "qwen3-30b-a3b"])
    points = list(space)
    assert space.sample(40, 7) == random.Random(7).sample(points, 40)
    assert space.sample(len(points) + 5, 1) == points
