"""Diffusion-LLM launches: the algorithm name and the model SGLang accepts for them.

Recorded against SGLang 0.5.23 (and 0.5.21) through an oracle whose algorithm stand-ins carry
the classes' resolution-time attributes: an unknown name stops at the attention-backend step
(``Unknown diffusion LLM algorithm``), a known one on another model at the page-size step
(``Unknown diffusion LLM``), whatever the GPU.
"""

from __future__ import annotations

import pytest

from launchplan.engine.declarations import Refuse
from launchplan.errors import Refusal
from launchplan.planner import resolve
from launchplan.rules import dllm
from tests.rules.conftest import decide, fake_model, make_view


def sdar(**config):
    return fake_model(architectures=("SDARForCausalLM",), arch0="SDARForCausalLM",
                      config=config, vocab_size=151936)


def llada2(**config):
    return fake_model(architectures=("LLaDA2MoeModelLM",), arch0="LLaDA2MoeModelLM",
                      config=config, vocab_size=157184)


GEMMA = fake_model(architectures=("DiffusionGemmaForBlockDiffusion",),
                   arch0="DiffusionGemmaForBlockDiffusion", config={}, vocab_size=262144)


# --- dllm_algorithm_known --------------------------------------------------------------------

@pytest.mark.parametrize("name", dllm.ALGORITHMS)
def test_the_shipped_algorithms_are_known(name):
    assert decide(dllm.dllm_algorithm_known, make_view(dllm_algorithm=name)) is None


@pytest.mark.parametrize("name", ["IDLMBlockN", "Bogus", "lowconfidence", "DreamShiftBlockN"])
def test_an_unknown_algorithm_is_refused_naming_the_flag_and_the_known_ones(name):
    out = decide(dllm.dllm_algorithm_known, make_view(dllm_algorithm=name))
    assert isinstance(out, Refuse)
    assert "--dllm-algorithm" in out.message and repr(name) in out.message
    assert "LowConfidence" in out.message and "JointThresholdInDel" in out.message


def test_no_algorithm_no_decision():
    assert decide(dllm.dllm_algorithm_known, make_view()) is None
    assert decide(dllm.dllm_model_known, make_view()) is None


def test_0_5_21_has_no_insert_delete_algorithm():
    view = make_view(dllm_algorithm="JointThresholdInDel")
    assert isinstance(decide(dllm.dllm_algorithm_known_0_5_21, view), Refuse)
    assert decide(dllm.dllm_algorithm_known_0_5_21,
                  make_view(dllm_algorithm="JointThreshold")) is None


# --- dllm_model_known ------------------------------------------------------------------------

@pytest.mark.parametrize("rule", [dllm.dllm_model_known, dllm.dllm_model_known_0_5_21])
def test_a_model_that_is_no_diffusion_llm_is_refused(rule):
    out = decide(rule, make_view(dllm_algorithm="LowConfidence"))
    assert isinstance(out, Refuse)
    assert out.message.startswith("--dllm-algorithm LowConfidence needs a diffusion LLM")
    assert "SDARForCausalLM" in out.message and out.message.endswith("LlamaForCausalLM")


@pytest.mark.parametrize("name", ["LowConfidence", "JointThreshold"])
def test_a_diffusion_llm_is_accepted(name):
    assert decide(dllm.dllm_model_known, make_view(model=sdar(), dllm_algorithm=name)) is None
    assert decide(dllm.dllm_model_known, make_view(model=llada2(), dllm_algorithm=name)) is None


def test_gemma4_renoise_and_diffusion_gemma_belong_together():
    assert decide(dllm.dllm_model_known,
                  make_view(model=GEMMA, dllm_algorithm="Gemma4Renoise")) is None
    out = decide(dllm.dllm_model_known, make_view(model=GEMMA, dllm_algorithm="LowConfidence"))
    assert isinstance(out, Refuse) and "runs only Gemma4Renoise" in out.message
    out = decide(dllm.dllm_model_known, make_view(model=sdar(), dllm_algorithm="Gemma4Renoise"))
    assert isinstance(out, Refuse)
    assert "DiffusionGemmaForBlockDiffusion, not SDARForCausalLM" in out.message


def test_insert_delete_needs_the_edit_tokens():
    run = dict(dllm_algorithm="JointThresholdInDel")
    out = decide(dllm.dllm_model_known, make_view(model=sdar(), **run))
    assert isinstance(out, Refuse) and "delete_token_id and split_token_id" in out.message
    good = sdar(delete_token_id=151670, split_token_id=151671)
    assert decide(dllm.dllm_model_known, make_view(model=good, **run)) is None
    for bad, words in ((dict(delete_token_id=151670, split_token_id=151669), "must differ"),
                       (dict(delete_token_id=151670, split_token_id=200000), "outside"),
                       (dict(delete_token_id="x", split_token_id=151671), "integer"),
                       (dict(delete_token_id=True, split_token_id=151671), "integer")):
        out = decide(dllm.dllm_model_known, make_view(model=sdar(**bad), **run))
        assert isinstance(out, Refuse) and words in out.message, bad
    # 0.5.21 never reaches these checks: it does not know the algorithm
    assert decide(dllm.dllm_model_known_0_5_21, make_view(model=sdar(), **run)) is None


def test_llada2_expert_routing_needs_the_checkpoint_block():
    run = dict(dllm_algorithm="LowConfidence")
    routed = llada2(expert_capacity=4, block_size=16)
    out = decide(dllm.dllm_model_known, make_view(model=routed, **run))
    assert isinstance(out, Refuse) and "block_size (16)" in out.message
    assert decide(dllm.dllm_model_known_0_5_21, make_view(model=routed, **run)) is None
    assert decide(dllm.dllm_model_known, make_view(
        model=llada2(expert_capacity=4, block_size=32), **run)) is None
    assert decide(dllm.dllm_model_known, make_view(model=llada2(block_size=16), **run)) is None


def test_block_sizes():
    assert dllm.block_size("LLaDA2MoeModelLM", {}) == 32
    assert dllm.block_size("SDARMoeForCausalLM", {}) == 4
    assert dllm.block_size("DiffusionGemmaForBlockDiffusion", {}) == 256
    assert dllm.block_size("DiffusionGemmaForBlockDiffusion", {"canvas_length": 64}) == 64
    assert dllm.block_size("Qwen3ForCausalLM", {}) is None


# --- through the pipeline, each release ------------------------------------------------------

@pytest.mark.parametrize("compat", ["default", "0.5.23", "0.5.22", "0.5.21"])
@pytest.mark.parametrize(("gpu", "model", "name", "source", "words"), [
    ("h100", "qwen3-8b", "LowConfidence", "dllm_model_known", "this model is Qwen3ForCausalLM"),
    ("mi300x", "llama-3.1-8b", "JointThreshold", "dllm_model_known", "LlamaForCausalLM"),
    ("h100", "qwen3-8b", "IDLMBlockN", "dllm_algorithm_known", "'IDLMBlockN'"),
    ("a100", "llama-3.1-8b", "Bogus", "dllm_algorithm_known", "'Bogus'"),
])
def test_sglang_refuses_these_launches(compat, gpu, model, name, source, words):
    with pytest.raises(Refusal) as refused:
        resolve(["--dllm-algorithm", name], gpu=gpu, model_path=model, compat=compat)
    assert refused.value.source == source
    assert words in refused.value.message


def test_insert_delete_is_unknown_to_0_5_21_only():
    argv = ["--dllm-algorithm", "JointThresholdInDel"]
    with pytest.raises(Refusal) as refused:
        resolve(argv, gpu="b200", model_path="qwen3-8b", compat="0.5.21")
    assert refused.value.source == "dllm_algorithm_known"
    with pytest.raises(Refusal) as refused:
        resolve(argv, gpu="b200", model_path="qwen3-8b", compat="0.5.22")
    assert refused.value.source == "dllm_model_known"
