"""Speculative-decoding rules (P32, P51), each on a view built from explicit values."""

from __future__ import annotations

import json

import pytest

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.record import Record
from launchplan.engine.view import View
from launchplan.facts.models import load_model
from launchplan.facts.targets import CATALOG
from launchplan.input.raw import RawInput
from launchplan.rules import speculative as s
from tests.rules.conftest import decide, fake_model, make_view


def fields(out):
    return out.fields if isinstance(out, Declare) else out


def draft_view(gpu="h100", model=None, draft=None, overlay=None, env=None, **values):
    """A view whose record carries a draft model's facts."""
    values.setdefault("model_path", "target")
    record = Record(RawInput(dict(values), dict.fromkeys(values, "cli")), CATALOG[gpu],
                    model or fake_model(model_type="llama"), draft, "default", env or {})
    view = View(record)
    if overlay:
        view._apply(overlay)
    return view


LLAMA = load_model("llama-3.1-8b")


# --- normalisation ---------------------------------------------------------------------------

def test_draft_revision_defaults_to_main_only_with_a_draft_path():
    assert s.speculative_draft_revision_default(
        make_view(speculative_draft_model_path="d")) == {"speculative_draft_model_revision": "main"}
    assert s.speculative_draft_revision_default(make_view()) is None
    assert s.speculative_draft_revision_default(make_view(
        speculative_draft_model_path="d", speculative_draft_model_revision="v1")) is None


@pytest.mark.parametrize(("runner", "expected"), [
    ("auto", "auto"), ("flashinfer_megamoe", "flashinfer_trtllm"), ("lora_triton", "auto"),
    ("deep_gemm", "deep_gemm"),
])
def test_speculative_moe_runner_follows_target(runner, expected):
    out = s.speculative_moe_runner_default(make_view(moe_runner_backend=runner))
    assert out == {"speculative_moe_runner_backend": expected}
    assert s.speculative_moe_runner_default(make_view(
        speculative_moe_runner_backend="triton")) is None


def test_algorithm_upper_case_and_nextn_alias():
    assert s.speculative_algorithm_upper(make_view(speculative_algorithm="eagle3")) == {
        "speculative_algorithm": "EAGLE3"}
    assert s.speculative_algorithm_upper(make_view(speculative_algorithm="EAGLE")) is None
    assert s.speculative_nextn_alias(make_view(speculative_algorithm="NEXTN")) == {
        "speculative_algorithm": "EAGLE"}
    assert s.speculative_nextn_alias(make_view(speculative_algorithm="EAGLE3")) is None


@pytest.mark.parametrize("algorithm", ["EAGLE", "NEXTN"])
def test_gemma4_assistant_draft_turns_eagle_into_frozen_kv_mtp(algorithm):
    draft = fake_model(architectures=("Gemma4AssistantForCausalLM",))
    out = s.speculative_gemma4_assistant(draft_view(
        draft=draft, speculative_algorithm=algorithm, speculative_draft_model_path="g"))
    assert fields(out) == {"speculative_algorithm": "FROZEN_KV_MTP"}


def test_gemma4_assistant_draft_refuses_eagle3_and_ignores_other_drafts():
    draft = fake_model(architectures=("Gemma4UnifiedAssistantForCausalLM",))
    assert isinstance(s.speculative_gemma4_assistant(draft_view(
        draft=draft, speculative_algorithm="EAGLE3", speculative_draft_model_path="g")), Refuse)
    llama_draft = load_model("llama-3.1-8b-eagle")
    assert s.speculative_gemma4_assistant(draft_view(
        draft=llama_draft, speculative_algorithm="EAGLE",
        speculative_draft_model_path="e")) is None


def test_unknown_algorithm_is_refused():
    assert isinstance(s.speculative_algorithm_known(make_view(speculative_algorithm="MTP")),
                      Refuse)
    assert s.speculative_algorithm_known(make_view(speculative_algorithm="NGRAM")) is None


def test_decode_radix_cache_needs_a_supported_algorithm():
    base = dict(disaggregation_mode="decode", disaggregation_decode_enable_radix_cache=True)
    assert isinstance(s.speculative_decode_radix_check(
        make_view(speculative_algorithm="NGRAM", **base)), Refuse)
    assert s.speculative_decode_radix_check(make_view(speculative_algorithm="EAGLE", **base)) \
        is None


def test_block_verification():
    on = dict(speculative_use_block_verification=True, device="cuda")
    assert s.speculative_block_verification(make_view(speculative_algorithm="EAGLE", **on)) == {
        "speculative_use_rejection_sampling": True}
    assert s.speculative_block_verification(make_view(speculative_algorithm="DFLASH", **on)) \
        is None
    assert isinstance(s.speculative_block_verification(
        make_view(speculative_algorithm="NGRAM", **on)), Refuse)
    assert isinstance(s.speculative_block_verification(make_view(
        speculative_algorithm="EAGLE", speculative_use_block_verification=True, device="cpu")),
        Refuse)


def test_draft_window_and_sink():
    out = s.speculative_draft_window(make_view(speculative_algorithm="EAGLE",
                                               speculative_draft_window_size="64",
                                               speculative_draft_sink_size="4"))
    assert fields(out) == {"speculative_draft_window_size": 64, "speculative_draft_sink_size": 4}
    assert isinstance(s.speculative_draft_window(make_view(speculative_draft_window_size=0)),
                      Refuse)
    assert isinstance(s.speculative_draft_window(make_view(speculative_draft_sink_size=2)),
                      Refuse)


# --- adaptive --------------------------------------------------------------------------------

def test_adaptive_gate():
    on = dict(speculative_adaptive=True)
    assert s.speculative_adaptive_gate(make_view(speculative_algorithm="EAGLE", **on)) is None
    for extra in (dict(speculative_algorithm="NGRAM"),
                  dict(speculative_algorithm="EAGLE", speculative_eagle_topk=4),
                  dict(speculative_algorithm="EAGLE", attn_dp_size=2),
                  dict(speculative_algorithm="EAGLE3", enable_two_batch_overlap=True)):
        out = s.speculative_adaptive_gate(make_view(**on, **extra))
        assert fields(out) == {"speculative_adaptive": False}


def test_adaptive_params_default_and_config(tmp_path):
    out = s.speculative_adaptive_params(make_view(speculative_adaptive=True))
    assert out == {"speculative_eagle_topk": 1, "speculative_num_steps": 3,
                   "speculative_num_draft_tokens": 4}
    assert isinstance(s.speculative_adaptive_params(make_view(
        speculative_adaptive=True, speculative_num_steps=2)), Refuse)
    path = tmp_path / "adaptive.json"
    path.write_text(json.dumps({"1": {"candidate_steps": [2, 4]}, "note": {}}))
    out = s.speculative_adaptive_params(make_view(speculative_adaptive=True,
                                                  speculative_adaptive_config=str(path)))
    assert out["speculative_num_steps"] == 4 and out["speculative_num_draft_tokens"] == 5


@pytest.mark.parametrize(("content", "kind"), [
    ([{"candidate_steps": [2, 4]}], "a JSON list"), ('"fast"', "a JSON string"),
    (3, "a JSON number"), (None, "null"), (True, "a JSON boolean")])
def test_an_adaptive_config_that_is_no_json_object_is_refused(tmp_path, content, kind):
    """A list, a string or a number where SGLang reads a mapping of batch sizes: a refusal
    naming the file and what it holds, never a rule crash."""
    path = tmp_path / "adaptive.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    out = s.speculative_adaptive_params(make_view(speculative_adaptive=True,
                                                  speculative_adaptive_config=str(path)))
    assert isinstance(out, Refuse)
    assert out.message.endswith(f"expected a JSON object of batch sizes and their "
                                f"candidate_steps, got {kind}")


# --- EAGLE family ----------------------------------------------------------------------------

def test_eagle_family_defaults():
    out = decide(s.eagle_family_defaults, make_view(speculative_algorithm="EAGLE"))
    assert fields(out) == {"max_running_requests": 48}
    assert decide(s.eagle_family_defaults, make_view(speculative_algorithm="EAGLE",
                                             max_running_requests=64)) is None
    out = decide(s.eagle_family_defaults,
                 make_view(speculative_algorithm="STANDALONE", device="cpu",
                                            enable_mixed_chunk=True, max_running_requests=8))
    assert fields(out) == {"disable_overlap_schedule": True, "enable_mixed_chunk": False}
    assert isinstance(decide(s.eagle_family_defaults, make_view(speculative_algorithm="STANDALONE",
                                                        attn_dp_size=2)), Refuse)
    assert decide(s.eagle_family_defaults, make_view(speculative_algorithm="NGRAM")) is None


def test_mtp_draft_path_defaults_to_the_model_for_deepseek():
    model = fake_model(arch0="DeepseekV3ForCausalLM")
    out = decide(s.eagle_mtp_draft_path, make_view(model=model, speculative_algorithm="EAGLE",
                                           model_path="m", revision="r"))
    assert fields(out) == {"speculative_draft_model_path": "m",
                           "speculative_draft_model_revision": "r"}
    assert decide(s.eagle_mtp_draft_path, make_view(speculative_algorithm="EAGLE",
                                            model_path="m")) is None


@pytest.mark.parametrize(("algorithm", "arch", "expected"), [
    ("EAGLE", "LlamaForCausalLM", (5, 4, 8)), ("EAGLE3", "Grok1ForCausalLM", (5, 4, 8)),
    ("EAGLE", "Qwen3ForCausalLM", (3, 1, 4)), ("EAGLE", "DeepseekV3ForCausalLM", (3, 1, 4)),
    ("STANDALONE", "LlamaForCausalLM", (3, 1, 4)),
])
def test_eagle_auto_params(algorithm, arch, expected):
    out = s.eagle_auto_params(make_view(model=fake_model(arch0=arch),
                                        speculative_algorithm=algorithm))
    assert out == dict(zip(("speculative_num_steps", "speculative_eagle_topk",
                            "speculative_num_draft_tokens"), expected, strict=True))


def test_eagle_auto_params_refusals_and_explicit():
    assert isinstance(s.eagle_auto_params(make_view(speculative_algorithm="EAGLE",
                                                    speculative_eagle_topk=1)), Refuse)
    # steps without top-k: SGLang 0.5.23 crashes comparing None > 1 -> refused
    assert isinstance(s.eagle_auto_params(make_view(speculative_algorithm="EAGLE",
                                                    speculative_num_steps=3)), Refuse)
    assert s.eagle_auto_params(make_view(speculative_algorithm="EAGLE", speculative_num_steps=3,
                                         speculative_eagle_topk=1)) is None
    assert s.eagle_auto_params(make_view(speculative_algorithm="EAGLE",
                                         speculative_adaptive=True)) is None


def test_trtllm_mha_needs_topk_one():
    base = dict(speculative_algorithm="EAGLE3", speculative_eagle_topk=4)
    assert isinstance(s.eagle_trtllm_mha_topk(make_view(attention_backend="trtllm_mha", **base)),
                      Refuse)
    assert isinstance(s.eagle_trtllm_mha_topk(make_view(
        attention_backend="fa4", decode_attention_backend="trtllm_mha", **base)), Refuse)
    assert s.eagle_trtllm_mha_topk(make_view(attention_backend="fa3", **base)) is None
    assert s.eagle_trtllm_mha_topk(make_view(attention_backend="trtllm_mha",
                                             speculative_algorithm="EAGLE",
                                             speculative_eagle_topk=1)) is None


def test_hip_rejection_sampling():
    base = dict(speculative_algorithm="EAGLE", speculative_eagle_topk=1)
    assert fields(decide(s.eagle_hip_rejection_sampling, make_view("mi300x", **base))) == {
        "speculative_use_rejection_sampling": True}
    assert decide(s.eagle_hip_rejection_sampling, make_view("h100", **base)) is None
    assert decide(s.eagle_hip_rejection_sampling, make_view(
        "mi300x", env={"SGLANG_SIMULATE_ACC_LEN": "3"}, **base)) is None
    assert decide(s.eagle_hip_rejection_sampling, make_view(
        "mi300x", speculative_algorithm="EAGLE3", speculative_eagle_topk=1)) is None


def test_rejection_sampling_checks():
    on = dict(speculative_use_rejection_sampling=True)
    assert s.eagle_rejection_sampling_checks(make_view(
        speculative_algorithm="EAGLE", speculative_eagle_topk=1, **on)) is None
    assert isinstance(s.eagle_rejection_sampling_checks(make_view(
        speculative_algorithm="EAGLE", speculative_eagle_topk=4, **on)), Refuse)
    assert isinstance(s.eagle_rejection_sampling_checks(make_view(
        speculative_algorithm="STANDALONE", speculative_eagle_topk=1, **on)), Refuse)
    assert isinstance(s.eagle_rejection_sampling_checks(make_view(
        speculative_algorithm="EAGLE", speculative_eagle_topk=1,
        speculative_accept_threshold_single=0.5, **on)), Refuse)


def test_topk1_forces_steps_plus_one():
    out = s.eagle_topk1_draft_tokens(make_view(speculative_algorithm="EAGLE",
                                               speculative_num_steps=3, speculative_eagle_topk=1,
                                               speculative_num_draft_tokens=8))
    assert fields(out) == {"speculative_num_draft_tokens": 4}
    assert s.eagle_topk1_draft_tokens(make_view(speculative_algorithm="EAGLE",
                                                speculative_num_steps=3,
                                                speculative_eagle_topk=1,
                                                speculative_num_draft_tokens=4)) is None
    assert s.eagle_topk1_draft_tokens(make_view(speculative_algorithm="EAGLE",
                                                speculative_num_steps=5,
                                                speculative_eagle_topk=4,
                                                speculative_num_draft_tokens=8)) is None


@pytest.mark.parametrize(("backend", "page", "refused"), [
    ("fa4", 128, True), ("fa4", 1, False), ("trtllm_mla", 64, True), ("fa3", 16, False),
    ("flashinfer", 64, False), ("triton", 128, False),
])
def test_page_tree_check(backend, page, refused):
    out = s.eagle_page_tree_check(make_view(speculative_algorithm="EAGLE3",
                                            speculative_eagle_topk=4, attention_backend=backend,
                                            page_size=page))
    assert isinstance(out, Refuse) is refused


def test_iquest_q1_mtp_draft():
    target = fake_model(arch0="IQuestQ1ForCausalLM",
                        config={"hidden_size": 8, "vocab_size": 16, "num_hidden_layers": 4})
    draft = fake_model(config={"model_type": "iquest_q1_mtp", "hidden_size": 8,
                               "vocab_size": 16, "num_target_layers": 4, "num_draft_slots": 5})
    out = s.iquest_q1_mtp_draft(draft_view(model=target, draft=draft,
                                           speculative_algorithm="EAGLE",
                                           speculative_draft_model_path="mtp"))
    assert out == {"speculative_num_steps": 5, "speculative_eagle_topk": 1,
                   "speculative_num_draft_tokens": 6}
    assert isinstance(s.iquest_q1_mtp_draft(draft_view(
        model=target, speculative_algorithm="EAGLE")), Refuse)


# --- NGRAM, DFLASH, DSPARK, UNO, FROZEN_KV_MTP -----------------------------------------------

def test_ngram_defaults():
    out = s.ngram_defaults(make_view(speculative_algorithm="NGRAM", device="cuda"))
    assert fields(out) == {"max_running_requests": 48, "enable_mixed_chunk": False,
                           "speculative_eagle_topk": 10, "speculative_num_draft_tokens": 12,
                           "speculative_num_steps": 1}
    assert isinstance(s.ngram_defaults(make_view(speculative_algorithm="NGRAM", device="npu")),
                      Refuse)


def test_ngram_breadth_zero_is_refused_only_when_it_divides():
    # the probe wild10 seed 21010 (0.5.21) found the rule raising ZeroDivisionError, as SGLang
    # does (0.5.21-0.5.23); given steps, nothing divides by it and SGLang accepts the launch
    zero = dict(speculative_algorithm="NGRAM", device="cuda", speculative_ngram_max_bfs_breadth=0)
    refused = s.ngram_defaults(make_view(**zero))
    assert isinstance(refused, Refuse) and "breadth" in refused.message
    given = s.ngram_defaults(make_view(speculative_num_steps=3, **zero))
    assert fields(given)["speculative_eagle_topk"] == 0
    assert "speculative_num_steps" not in fields(given)


def test_ngram_checks():
    base = dict(speculative_algorithm="NGRAM", speculative_eagle_topk=10, page_size=64)
    assert isinstance(s.ngram_checks(make_view(attention_backend="fa3", **base)), Refuse)
    assert s.ngram_checks(make_view(attention_backend="flashinfer", **base)) is None
    assert isinstance(s.ngram_checks(make_view(attention_backend="flashinfer", attn_dp_size=2,
                                               **base)), Refuse)


def test_dflash_defaults():
    draft = fake_model(config={"dflash_config": {"block_size": 10}})
    out = s.dflash_defaults(draft_view(draft=draft, speculative_algorithm="DFLASH",
                                       device="cuda", speculative_draft_model_path="d",
                                       speculative_num_steps=3))
    assert fields(out) == {"speculative_num_steps": 1, "speculative_eagle_topk": 1,
                           "speculative_num_draft_tokens": 10, "max_running_requests": 48}
    out = s.dflash_defaults(draft_view(draft=fake_model(), speculative_algorithm="DFLASH",
                                       device="cuda", speculative_draft_model_path="d"))
    assert fields(out)["speculative_num_draft_tokens"] == 16
    assert isinstance(s.dflash_defaults(make_view(speculative_algorithm="DFLASH",
                                                  device="cuda")), Refuse)
    assert isinstance(s.dflash_defaults(make_view(
        speculative_algorithm="DFLASH", device="cuda", speculative_draft_model_path="d",
        speculative_dflash_block_size=8, speculative_num_draft_tokens=4)), Refuse)


def test_dflash_draft_backend():
    base = dict(speculative_algorithm="DFLASH", speculative_draft_model_path="d")
    assert fields(s.dflash_draft_backend(draft_view(attention_backend="fa3", **base))) == {
        "speculative_draft_attention_backend": "fa3"}
    assert fields(s.dflash_draft_backend(draft_view(
        "b200", draft=fake_model(config={"num_hidden_layers": 2}),
        attention_backend="trtllm_mha", **base))) == {
        "speculative_draft_attention_backend": "fa4"}
    causal = fake_model(config={"num_hidden_layers": 2, "is_causal": True})
    assert fields(s.dflash_draft_backend(draft_view(
        "b200", draft=causal, attention_backend="trtllm_mha", **base))) == {
        "speculative_draft_attention_backend": "trtllm_mha"}
    assert fields(s.dflash_draft_backend(draft_view(
        "mi300x", attention_backend="aiter", **base))) == {
        "speculative_draft_attention_backend": "triton"}


def test_dspark_defaults():
    draft = fake_model(config={"dspark_block_size": 5})
    out = s.dspark_defaults(draft_view(draft=draft, speculative_algorithm="DSPARK",
                                       device="cuda", speculative_draft_model_path="d"))
    assert fields(out) == {"speculative_num_steps": 1, "speculative_eagle_topk": 1,
                           "speculative_num_draft_tokens": 6, "max_running_requests": 48}
    bundled = fake_model(has_dspark_keys=True, config={})
    out = s.dspark_defaults(draft_view(model=bundled, speculative_algorithm="DSPARK",
                                       device="cuda", model_path="m", revision=None))
    assert fields(out)["speculative_draft_model_path"] == "m"
    assert fields(out)["speculative_num_draft_tokens"] == 8  # gamma 7 + 1
    assert isinstance(s.dspark_defaults(make_view(
        model=fake_model(has_dspark_keys=False), speculative_algorithm="DSPARK",
        device="cuda")), Refuse)


def test_dspark_ragged_verify_mode_defaults_to_static():
    """Attention DP with an all-to-all backend needs the static ragged-verify schedule, which
    is SGLang's default: only another mode set in the environment is refused."""
    base = dict(speculative_algorithm="DSPARK", device="cuda", speculative_draft_model_path="d",
                attn_dp_size=2, enable_dp_lm_head=True, moe_a2a_backend="megamoe")
    draft = fake_model(config={"dspark_block_size": 5})
    assert not isinstance(s.dspark_defaults(draft_view(draft=draft, **base)), Refuse)
    for mode in ("compact", "cap-accept", "STATIC"):
        assert isinstance(s.dspark_defaults(draft_view(
            draft=draft, env={"SGLANG_RAGGED_VERIFY_MODE": mode}, **base)), Refuse)


def test_uno_defaults():
    base = dict(speculative_algorithm="UNO", device="cuda", uno_lora_path="l",
                speculative_num_draft_tokens=4, attention_backend="fa3")
    out = s.uno_defaults(make_view(**base))
    assert fields(out)["speculative_num_steps"] == 1
    assert fields(out)["lora_strict_loading"] is True
    assert isinstance(s.uno_defaults(make_view(**{**base, "attention_backend": "flashinfer"})),
                      Refuse)
    assert isinstance(s.uno_defaults(make_view(**{**base, "tp_size": 2})), Refuse)
    tree = s.uno_defaults(make_view(**{**base, "speculative_eagle_topk": 2,
                                       "speculative_num_steps": 3}))
    assert fields(tree)["speculative_eagle_topk"] == 2
    assert isinstance(s.uno_defaults(make_view(**{**base, "speculative_eagle_topk": 2})), Refuse)


def test_frozen_kv_mtp_defaults():
    out = decide(s.frozen_kv_mtp_defaults, make_view(speculative_algorithm="FROZEN_KV_MTP",
                                             enable_mixed_chunk=True))
    assert fields(out) == {"max_running_requests": 48, "enable_mixed_chunk": False}
    assert decide(s.frozen_kv_mtp_defaults, make_view(speculative_algorithm="EAGLE")) is None


@pytest.mark.parametrize(("config", "expected"), [
    ({"architectures": ["Qwen3ForCausalLM"]}, "ar"),
    ({"architectures": ["LongcatFlashForCausalLM"]}, "rsv"),
    ({"model_type": "foo", "text_config": {"model_type": "qwen3"}}, "ar"),
    ({"architectures": ["LlamaForCausalLM"], "model_type": "llama"}, "rs+rsv"),
    # Qwen3-ASR: the text model is the thinker's, a Qwen3 config whatever its file says;
    # Qwen3-Omni's thinker holds a MoE text model (rs+rsv)
    ({"model_type": "qwen3_asr", "thinker_config": {"text_config": {"hidden_size": 2048}}},
     "ar"),
    ({"model_type": "qwen3_omni_moe",
      "thinker_config": {"text_config": {"model_type": "qwen3_omni_moe_text"}}}, "rs+rsv"),
])
def test_model_boundary_reduction(config, expected):
    assert s.model_boundary_reduction(config) == expected


def test_boundary_reduction_default():
    model = fake_model(config={"architectures": ["Qwen3ForCausalLM"]})
    draft = fake_model(config={"architectures": ["LlamaForCausalLMEagle3"]})
    out = s.boundary_reduction_default(draft_view(
        model=model, draft=draft, speculative_algorithm="EAGLE3",
        speculative_draft_model_path="d"))
    assert out == {"boundary_reduction": "ar", "speculative_boundary_reduction": "rs+rsv"}
    assert s.boundary_reduction_default(make_view(boundary_reduction="rs")) == {
        "boundary_reduction": "rs", "speculative_boundary_reduction": "rs"}
    assert s.boundary_reduction_default(make_view(model=LLAMA)) == {
        "boundary_reduction": "rs+rsv", "speculative_boundary_reduction": "rs+rsv"}


@pytest.mark.parametrize(("mode", "refused"), [
    (None, False), ("static", False), ("cap-accept", False), ("compact", False),
    ("Static", True), (" static", True), ("dynamic", True), ("", True),
])
def test_speculative_ragged_verify_mode_known(mode, refused):
    """SGLang compares the verify layout as written, for every in-tree algorithm, and only
    when speculation is on."""
    from launchplan.rules.speculative.normalize import speculative_ragged_verify_mode_known

    env = {} if mode is None else {"SGLANG_RAGGED_VERIFY_MODE": mode}
    out = speculative_ragged_verify_mode_known(make_view(
        "h100", env=env, speculative_algorithm="EAGLE"))
    assert isinstance(out, Refuse) is refused
    if refused:
        assert repr(mode) in out.message and "cap-accept" in out.message
    assert speculative_ragged_verify_mode_known(make_view("h100", env=env)) is None
