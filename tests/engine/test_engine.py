"""The engine's contract: views are read-only overlays, declarations are kept with their
source, the newest wins, a rule may write only what it declares, batches see the state
before them, refusals carry the partial result."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.pipeline import RuleContractError, RuleCrash, run
from launchplan.engine.record import Record
from launchplan.engine.registry import MARK, RuleDefinitionError, rule
from launchplan.engine.view import ReadOnlyError, View
from launchplan.errors import Refusal
from launchplan.facts.targets import CATALOG
from launchplan.input.raw import RawInput

MODEL = SimpleNamespace(architectures=("LlamaForCausalLM",), is_mla=False)


def record(**values) -> Record:
    return Record(RawInput(dict(values), dict.fromkeys(values, "cli")), CATALOG["b200"], MODEL)


def spec(fn):
    return getattr(fn, MARK)


@rule(phase=Phase.ATTENTION, reads=("page_size",), writes=("page_size",))
def set_page_16(v):
    """Test rule: page 16."""
    return {"page_size": 16}


@rule(phase=Phase.ATTENTION, reads=("page_size",), writes=("page_size",))
def double_page(v):
    """Test rule: doubles whatever page size it sees."""
    return Declare({"page_size": v.page_size * 2}, "doubled")


def test_view_overlays_input_on_defaults_and_is_read_only():
    view = View(record(page_size=32))
    assert view.page_size == 32
    assert view["tp_size"] == 1  # the default
    assert view.explicit("page_size") and not view.explicit("tp_size")
    with pytest.raises(ReadOnlyError):
        view.page_size = 1
    with pytest.raises(AttributeError):
        view.no_such_field  # noqa: B018


def test_newest_declaration_wins_and_chain_is_kept():
    result = run(record(page_size=4), [spec(set_page_16), spec(double_page)])
    assert result.value("page_size") == 32
    assert [d.source for d in result.chain("page_size")] == ["set_page_16", "double_page"]
    assert result.source("page_size") == "double_page"
    assert result.source("tp_size") == "default"
    assert result.warnings == ["doubled"]


def test_override_of_explicit_input_is_reported():
    result = run(record(page_size=4), [spec(set_page_16)])
    assert result.overrides() == [
        {"field": "page_size", "input": 4, "resolved": 16, "source": "set_page_16"}
    ]


def test_a_rule_declaring_an_unlisted_field_fails_loudly():
    @rule(phase=Phase.ATTENTION, reads=(), writes=("page_size",))
    def sneaky(v):
        """Test rule: writes tp_size without saying so."""
        return {"tp_size": 4}

    with pytest.raises(RuleContractError, match="tp_size"):
        run(record(), [spec(sneaky)])


def test_unknown_fields_and_missing_docstrings_are_refused_at_definition():
    with pytest.raises(RuleDefinitionError, match="no_such_field"):
        rule(phase=Phase.ATTENTION, writes=("no_such_field",))(lambda v: None)

    def undocumented(v):
        return None

    with pytest.raises(RuleDefinitionError, match="docstring"):
        rule(phase=Phase.ATTENTION)(undocumented)


def test_decorator_leaves_the_function_unchanged():
    assert set_page_16(View(record())) == {"page_size": 16}
    assert spec(set_page_16).writes == frozenset({"page_size"})
    assert spec(set_page_16).phase is Phase.ATTENTION


def test_refusal_carries_partial_result():
    @rule(phase=Phase.ATTENTION)
    def no(v):
        """Test rule: refuses."""
        return Refuse("cannot")

    with pytest.raises(Refusal) as info:
        run(record(), [spec(set_page_16), spec(no)])
    assert info.value.source == "no"
    assert info.value.result.value("page_size") == 16
    assert info.value.result.to_dict  # the partial plan can still be rendered


def test_rule_exceptions_are_named():
    @rule(phase=Phase.ATTENTION)
    def broken(v):
        """Test rule: a bug."""
        return 1 / 0

    with pytest.raises(RuleCrash, match="broken"):
        run(record(), [spec(broken)])


def test_batch_rules_see_the_state_before_the_batch():
    @rule(phase=Phase.MODEL, reads=("page_size",), writes=("page_size",), batch="b")
    def first(v):
        """Batch member: page 64."""
        return {"page_size": 64}

    @rule(phase=Phase.MODEL, reads=("page_size",), writes=("attention_backend",), batch="b")
    def second(v):
        """Batch member: records the page it saw through the backend field."""
        return {"attention_backend": f"saw-{v.page_size}"}

    result = run(record(page_size=8), [spec(first), spec(second), spec(double_page)])
    assert result.value("attention_backend") == "saw-8"
    assert result.value("page_size") == 128  # the rule after the batch saw 64


def test_tracing_records_what_a_rule_read():
    result = run(record(page_size=3), [spec(double_page)], trace=True)
    assert result.declarations[0].reads == {"page_size": 3}


def test_fallback_applies_only_to_undeclared_none():
    result = run(record(), [])
    assert result.value("swa_full_tokens_ratio") == 0.8


# --- promises: both paths call a rule only when its archs, applies and triggers hold -----------


@rule(phase=Phase.ATTENTION, writes=("page_size",), archs=("DeepseekV3ForCausalLM",))
def deepseek_only(v):
    """Test rule: promises DeepSeek-V3 only (the models below are not)."""
    raise AssertionError("called for an architecture its promise excludes")


@rule(phase=Phase.ATTENTION, writes=("page_size",), applies=lambda target, model: model.is_mla)
def mla_only(v):
    """Test rule: promises MLA models only, and crashes anywhere else."""
    raise AssertionError("called for a model its promise excludes")


@rule(phase=Phase.ATTENTION, reads=("kv_cache_dtype",), writes=("page_size",),
      triggers={"kv_cache_dtype": ("fp8_e4m3",)})
def fp8_kv_only(v):
    """Test rule: promises an fp8_e4m3 KV cache only."""
    if v.kv_cache_dtype != "fp8_e4m3":
        raise AssertionError("called without its trigger value")
    return {"page_size": 128}


@pytest.mark.parametrize("skip", [True, False])
def test_no_path_calls_a_rule_its_promises_exclude(skip):
    llama = SimpleNamespace(architectures=("LlamaForCausalLM",), arch0="LlamaForCausalLM",
                            is_mla=False)

    def llama_record(**values):
        return record(**values).replace(model=llama)

    rules = [spec(deepseek_only), spec(mla_only), spec(fp8_kv_only)]
    assert run(llama_record(), rules, skip=skip).source("page_size") == "default"
    assert run(llama_record(kv_cache_dtype="fp8_e5m2"), rules,
               skip=skip).source("page_size") == "default"
    assert run(llama_record(kv_cache_dtype="fp8_e4m3"), rules,
               skip=skip).value("page_size") == 128


def test_promises_are_evaluated_by_the_spec():
    target = CATALOG["b200"]
    llama = SimpleNamespace(arch0="LlamaForCausalLM", is_mla=False)
    deepseek = SimpleNamespace(arch0="DeepseekV3ForCausalLM", is_mla=True)
    assert not spec(deepseek_only).admits(target, llama)
    assert spec(deepseek_only).admits(target, deepseek)
    assert not spec(mla_only).admits(target, llama) and spec(mla_only).admits(target, deepseek)
    assert spec(fp8_kv_only).triggered({"kv_cache_dtype": "fp8_e4m3"})
    assert not spec(fp8_kv_only).triggered({"kv_cache_dtype": "auto"})
    assert not spec(fp8_kv_only).triggered({})
    assert spec(set_page_16).triggered({})  # no triggers: always


@rule(phase=Phase.ATTENTION, writes=("page_size",),
      applies=lambda target, model: model.no_such_fact)
def broken_promise(v):
    """Test rule: its promise reads a fact the model does not have."""
    return None


@pytest.mark.parametrize("skip", [True, False])
def test_a_failing_promise_is_that_rules_crash(skip):
    with pytest.raises(RuleCrash, match="broken_promise"):
        run(record(), [spec(broken_promise)], skip=skip)
