"""Building views for rule-level tests: a record from explicit values, a target and a model."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any
from weakref import WeakKeyDictionary

import pytest

from launchplan.engine.record import Record
from launchplan.engine.registry import MARK
from launchplan.engine.view import View
from launchplan.facts.targets import CATALOG
from launchplan.input.raw import RawInput


def fake_model(**facts):
    """Model facts without a config.json: only what a rule reads."""
    base = dict(architectures=("LlamaForCausalLM",), arch0="LlamaForCausalLM", is_mla=False,
                has_asymmetric_kv=False, has_attention_sinks=False, context_len=131072,
                uses_kda=False, is_multimodal=False, config={}, is_deepseek_dsa=False,
                is_encoder_decoder=False, attention_chunk_size=None,
                num_nextn_predict_layers=None, quantization_config=None)
    base.update(facts)
    base.setdefault("num_kv_heads", lambda tp: max(1, 8 // tp))
    mm = base["is_multimodal"]
    base.setdefault("multimodal", lambda enable=None, *, language_model_only=False,
                    model_impl="auto": mm and enable is not False and not language_model_only)
    return SimpleNamespace(**base)


MLA = dict(architectures=("DeepseekV3ForCausalLM",), arch0="DeepseekV3ForCausalLM", is_mla=True,
           num_kv_heads=lambda tp: max(1, 128 // tp))


def make_view(gpu: Any = "b200", model=None, env=None, overlay=None, **values) -> View:
    """A view of ``values`` as given, on the target named ``gpu`` (or a ``Target``)."""
    target = CATALOG[gpu] if isinstance(gpu, str) else gpu
    record = Record(RawInput(dict(values), dict.fromkeys(values, "cli")), target,
                    model or fake_model(), None, "default", env or {})
    view = View(record)
    if overlay:
        view._apply(overlay)
        _DECLARED[view] = dict(overlay)
    return view


_DECLARED: WeakKeyDictionary = WeakKeyDictionary()  # a test view's declared fields


def decide(func: Any, view: View) -> Any:
    """A rule's output for a view as the engine has it: None when the rule's promises
    (``archs``, ``applies``, ``triggers``) exclude the view's model, target or set fields
    (given, or declared through ``make_view(overlay=...)``); the body otherwise."""
    spec = getattr(func, MARK)
    given = {**view.record.raw.values, **_DECLARED.get(view, {})}
    if not (spec.admits(view.target, view.model) and spec.triggered(given)):
        return None
    return func(view)


@pytest.fixture
def view():
    return make_view
