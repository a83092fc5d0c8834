"""The memory plan's values read from the resolution's own view (``Result.final``) must be
the values a copy from the result gives (``_fill``), fallbacks included."""

from __future__ import annotations

import itertools
import math

import pytest

from launchplan import resolve
from launchplan.engine.result import Result
from launchplan.memory.values import NAMES, _fill, plain_values

MODELS = ("llama-3.1-8b", "gemma-3-27b", "deepseek-v3", "qwen3-30b-a3b", "gpt-oss-20b")
FLAGS = (
    {},
    {"tp_size": 2},
    {"swa_full_tokens_ratio": 0.3},
    {"swa_full_tokens_ratio": None},  # an input None: read as the fallback
    {"mamba_full_memory_ratio": None, "mm_enable_dp_encoder": None},
    {"kv_cache_dtype": "fp8_e4m3", "page_size": 16},
)


def _compared(result: Result) -> tuple[dict, dict]:
    copied = _fill({}, result)
    viewed = plain_values(result)
    names = {*NAMES, *result._overlay}
    return ({n: copied[n] for n in names if n in copied},
            {n: viewed[n] for n in names if n in copied})


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        a[k] is b[k] or a[k] == b[k] or (isinstance(a[k], float) and math.isnan(a[k])
                                         and math.isnan(b[k])) for k in a)


@pytest.mark.parametrize(("model", "fields"), itertools.product(MODELS, FLAGS))
@pytest.mark.parametrize("compat", ["default", "0.5.21"])
def test_the_views_values_are_the_copied_ones(model: str, fields: dict, compat: str) -> None:
    result = resolve(fields=dict(fields), gpu="h100", model_path=model, compat=compat,
                     incremental=False)
    assert result.final is not None  # a walk from scratch hands its view's values over
    copied, viewed = _compared(result)
    assert _same(copied, viewed)
    for name in ("swa_full_tokens_ratio", "mamba_full_memory_ratio", "mm_enable_dp_encoder"):
        if name in copied:
            assert viewed[name] == result.value(name)  # the fallback, not a None


def test_a_declared_none_stays_none() -> None:
    """A None a rule declared is the plan's value; only an unset (or input) None falls back."""
    result = resolve(fields={}, gpu="h100", model_path="llama-3.1-8b", incremental=False)
    result.final["swa_full_tokens_ratio"] = None
    result._overlay["swa_full_tokens_ratio"] = None
    result._declared = frozenset({"swa_full_tokens_ratio"})
    assert plain_values(result)["swa_full_tokens_ratio"] is None
    result._declared = frozenset()
    assert plain_values(result)["swa_full_tokens_ratio"] == 0.8


def test_an_incremental_result_is_copied() -> None:
    """A result the early cut-off made shares steps with others: it keeps no view."""
    resolve(fields={}, gpu="h100", model_path="llama-3.1-8b")
    again = resolve(fields={"tp_size": 2}, gpu="h100", model_path="llama-3.1-8b")
    if again.final is None:
        copied, viewed = _compared(again)
        assert _same(copied, viewed)
