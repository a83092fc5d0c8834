"""``--hisparse-config`` read as SGLang's schedulers read it: defaults, and the texts that stop
them (``mem_cache/sparsity/factory.py``)."""

from __future__ import annotations

import pytest

from launchplan.input.hisparse_config import (
    DEFAULT_RATIO,
    DEFAULT_TOP_K,
    hisparse_settings,
    pool_ratio,
)


def test_no_text_and_an_empty_object_give_the_defaults():
    for text in (None, "{}"):
        settings = hisparse_settings(text)
        assert settings.problem is None
        assert settings.top_k == DEFAULT_TOP_K
        assert settings.device_buffer_size == 2 * DEFAULT_TOP_K
        assert pool_ratio(settings) == DEFAULT_RATIO


def test_the_device_buffer_defaults_to_twice_the_given_top_k():
    settings = hisparse_settings('{"top_k": 512, "host_to_device_ratio": 4}')
    assert (settings.device_buffer_size, pool_ratio(settings), settings.problem) == (1024, 4, None)


@pytest.mark.parametrize(("text", "words"), [
    ("", "not valid JSON"),  # given but empty: SGLang parses it and fails
    ("{x", "not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"top_k": 4096, "device_buffer_size": 100}', "at least top_k"),
    ('{"top_k": "a", "device_buffer_size": 3}', "must be numbers"),
    ('{"swap_in_block_size": 0}', "[1, 1024]"),
    ('{"swap_in_block_size": 1025}', "[1, 1024]"),
    ('{"swap_in_block_size": 64.0}', "an integer"),
    ('{"swap_in_block_size": true}', "an integer"),
])
def test_texts_the_schedulers_stop_on_name_the_key_and_the_value(text, words):
    problem = hisparse_settings(text).problem
    assert problem is not None and words in problem and "--hisparse-config" in problem


@pytest.mark.parametrize("ratio", ["0", "-2", "2.5", '"4"', "true", "null"])
def test_a_ratio_other_than_an_integer_of_one_or_more_is_not_sized(ratio):
    settings = hisparse_settings('{"host_to_device_ratio": ' + ratio + "}")
    assert settings.problem is None  # SGLang's parser reads it; the pools decide
    assert pool_ratio(settings) is None
