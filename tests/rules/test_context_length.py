"""The --context-length limit SGLang's model config enforces during resolution."""

from __future__ import annotations

import pytest

from launchplan.engine.declarations import Refuse
from launchplan.errors import Refusal
from launchplan.planner import resolve
from launchplan.rules.context_length import (
    context_length_limit,
    model_config_parser_at_model_config,
    model_config_parser_known,
)
from tests.rules.conftest import fake_model, make_view

MODEL = fake_model(derived_context_len=131072)


def test_a_longer_context_is_refused_unless_the_environment_allows_it():
    assert isinstance(context_length_limit(make_view(model=MODEL, context_length=131073)),
                      Refuse)
    for name in ("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "SGLANG_IS_IN_CI"):
        for value in ("1", "true", "Y"):
            assert context_length_limit(make_view(model=MODEL, env={name: value},
                                                  context_length=200000)) is None
    assert isinstance(context_length_limit(make_view(
        model=MODEL, env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "0"},
        context_length=200000)), Refuse)


def test_the_derived_length_or_less_passes():
    assert context_length_limit(make_view(model=MODEL, context_length=131072)) is None
    assert context_length_limit(make_view(model=MODEL, context_length=4096)) is None
    assert context_length_limit(make_view(model=MODEL)) is None


def test_end_to_end_a_refusal_not_bad_input():
    with pytest.raises(Refusal) as refused:
        resolve(["--context-length", "200000"], gpu="h100", model_path="llama-3.1-8b")
    assert refused.value.source == "context_length_limit"
    result = resolve(["--context-length", "200000"], gpu="h100", model_path="llama-3.1-8b",
                     env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"})
    assert result.value("context_length") == 200000
    # a value SGLang cannot parse is its default, off (recorded: environment/longer-context)
    with pytest.raises(Refusal) as refused:
        resolve(["--context-length", "200000"], gpu="h100", model_path="llama-3.1-8b",
                env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "maybe"})
    assert refused.value.source == "context_length_limit"


def test_model_config_parser_known():
    """Recorded: wild/255 (--model-config-parser x) is refused by SGLang's parser registry;
    0.5.23 looks it up before the SSL and prefill-only checks (wild3/117, wild3/131), the
    releases before it where the model config is built."""
    for check in (model_config_parser_known, model_config_parser_at_model_config):
        for name in ("auto", "hf", "mistral"):
            assert check(make_view(model_config_parser=name)) is None
        assert isinstance(check(make_view(model_config_parser="x")), Refuse)
    for compat, refusing in (("0.5.23", "model_config_parser_known"),
                             ("default", "model_config_parser_known"),
                             ("0.5.22", "ssl_http_checks"), ("0.5.21", "ssl_http_checks")):
        with pytest.raises(Refusal) as refused:
            resolve(["--model-config-parser", "x", "--ssl-keyfile", "k"], gpu="h100",
                    model_path="llama-3.1-8b", compat=compat)
        assert refused.value.source == refusing, compat
