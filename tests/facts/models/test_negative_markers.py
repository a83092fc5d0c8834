"""A negative "disabled" marker in a config's window keys means no window, not bad input.

SGLang 0.5.23's ``ModelConfig._get_sliding_window_size`` returns the first present key of
``sliding_window_size`` / ``sliding_window`` / ``window_size`` as it is, unchecked, and only
sliding-window classes read it; grok-2's published ``config.json`` writes
``sliding_window_size: -1`` ("no window", as MLC-converted files do too). launchplan used to
refuse the whole file (exit 2). Other non-negative keys stay checked: SGLang uses them as
sizes (a -1 ``attention_chunk_size`` would be a chunk length, not "off").
"""

from __future__ import annotations

import pytest

from launchplan.facts.models import load_model
from launchplan.facts.targets import get_target
from launchplan.planner import resolve
from tests.facts.models.configs import LLAMA, input_error, write

WINDOW_KEYS = ("sliding_window_size", "sliding_window", "window_size")


@pytest.mark.parametrize("key", WINDOW_KEYS)
@pytest.mark.parametrize("value", [-1, -4096, -1.0])
def test_negative_window_is_no_window(tmp_path, key, value):
    model = load_model(write(tmp_path, {**LLAMA, key: value}))
    assert model.sliding_window is None


def test_first_present_key_decides(tmp_path):
    """As SGLang: the first key present is the window, so a -1 before a real window means no
    window, and a real window before a -1 is kept."""
    off = load_model(write(tmp_path, {**LLAMA, "sliding_window_size": -1,
                                      "sliding_window": 4096}, name="a"))
    assert off.sliding_window is None
    on = load_model(write(tmp_path, {**LLAMA, "sliding_window_size": 4096,
                                     "window_size": -1}, name="b"))
    assert on.sliding_window == 4096


def test_zero_and_positive_windows_unchanged(tmp_path):
    assert load_model(write(tmp_path, {**LLAMA, "sliding_window": 0}, name="z")
                      ).sliding_window == 0
    assert load_model(write(tmp_path, {**LLAMA, "sliding_window": 4096}, name="p")
                      ).sliding_window == 4096


@pytest.mark.parametrize("changes, field", [
    ({"sliding_window": "big"}, "'sliding_window'"),  # not a number: still bad input
    ({"sliding_window": True}, "'sliding_window'"),
    ({"attention_chunk_size": -1}, "'attention_chunk_size'"),  # a size SGLang uses as given
    ({"num_nextn_predict_layers": -1}, "'num_nextn_predict_layers'"),
    ({"max_position_embeddings": -1}, "'max_position_embeddings'"),
])
def test_other_negative_or_wrong_values_still_refused(tmp_path, changes, field):
    err = input_error(load_model, write(tmp_path, {**LLAMA, **changes}))
    assert f"config.json field {field}" in err.message


def test_negative_window_launch_resolves(tmp_path):
    """A whole launch of a file with the marker plans (grok-2's case, here on Llama's
    shape), the same as without the key."""
    with_marker = resolve(["--tp-size", "2"], gpu=get_target("h100"),
                          model_path=write(tmp_path, {**LLAMA, "sliding_window_size": -1},
                                           name="m1"))
    without = resolve(["--tp-size", "2"], gpu=get_target("h100"),
                      model_path=write(tmp_path, dict(LLAMA), name="m2"))
    assert not with_marker.refused
    assert with_marker.final == without.final
