"""Diffusion-LLM launches: the algorithm name and the model SGLang accepts for them, and what
it rewrites in a launch it accepts.

Recorded against SGLang 0.5.23 (and 0.5.21) through an oracle whose algorithm stand-ins carry
the classes' resolution-time attributes: an unknown name stops at the attention-backend step
(``Unknown diffusion LLM algorithm``), a known one on another model at the page-size step
(``Unknown diffusion LLM``), whatever the GPU. An accepted SDAR or LLaDA2 launch gets its
attention backend (flashinfer under a CUDA decode graph, triton or aiter on ROCm), no CUDA
graphs on ROCm, no overlap schedule, a page aligned to and capped at the block, and no HiCache,
LMCache, FlexKV (radix cache on), pipeline parallelism, LoRA, PD role or mixed chunk.
Gemma4Renoise's own step runs from its installed source: it refuses a launch its kernels cannot
serve (PP, context parallelism, quantization, untied embeddings) and turns the radix cache,
chunked prefill and any prefill graph but FULL on fa4 off (0.5.21: every prefill graph).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from launchplan.engine.declarations import Refuse
from launchplan.errors import Refusal
from launchplan.planner import resolve
from launchplan.rules import dllm
from launchplan.vocabulary import BACKEND_FIELDS
from tests.rules.conftest import decide, fake_model, make_view


def sdar(**config):
    return fake_model(architectures=("SDARForCausalLM",), arch0="SDARForCausalLM",
                      config=config, vocab_size=151936)


def llada2(**config):
    return fake_model(architectures=("LLaDA2MoeModelLM",), arch0="LLaDA2MoeModelLM",
                      config=config, vocab_size=157184)


SDAR_SYNTH = Path(__file__).parents[1] / "parity" / "models" / "sdar-synth"

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


# --- the rewrites of an accepted launch ------------------------------------------------------

LOW = dict(dllm_algorithm="LowConfidence")


def graphs(decode="full", prefill="breakable"):
    return {"decode": {"backend": decode}, "prefill": {"backend": prefill}}


@pytest.mark.parametrize("rule", [dllm.dllm_attention_backend,
                                  dllm.dllm_attention_backend_0_5_21])
def test_cuda_decode_graphs_move_a_diffusion_launch_to_flashinfer(rule):
    view = make_view("h100", model=sdar(), attention_backend="fa3",
                     cuda_graph_config=graphs(), **LOW)
    out = decide(rule, view)
    assert out.fields == {"attention_backend": "flashinfer"}
    assert "attention_backend 'fa3'" in out.note and "'flashinfer'" in out.note
    # a split side is left as given, and no decode graph keeps the base backend
    split = make_view("h100", model=sdar(), attention_backend="fa3",
                      prefill_attention_backend="fa3", cuda_graph_config=graphs(), **LOW)
    assert decide(rule, split).fields == {"attention_backend": "flashinfer"}
    for kept in (make_view("h100", model=sdar(), attention_backend="fa3",
                           cuda_graph_config=graphs(decode="disabled"), **LOW),
                 make_view("h100", model=sdar(), attention_backend="flashinfer",
                           cuda_graph_config=graphs(), **LOW)):
        assert decide(rule, kept) is None


@pytest.mark.parametrize(("backend", "out"), [("aiter", None), ("triton", None),
                                              ("wave", "triton"), ("fa3", "triton")])
def test_rocm_runs_diffusion_on_triton_or_aiter(backend, out):
    view = make_view("mi300x", model=sdar(), attention_backend=backend,
                     cuda_graph_config=graphs(), **LOW)
    got = decide(dllm.dllm_attention_backend, view)
    assert (None if got is None else got.fields) == (None if out is None else
                                                     {"attention_backend": out})


def test_gemma4_renoise_requires_triton_unless_its_backends_are_given():
    run = dict(model=GEMMA, dllm_algorithm="Gemma4Renoise", cuda_graph_config=graphs())
    out = decide(dllm.dllm_attention_backend, make_view("b200", attention_backend="fa3", **run))
    assert out.fields == {f: "triton" for f in BACKEND_FIELDS}
    assert "Gemma4Renoise" in out.note and "attention_backend 'fa3'" in out.note
    mixed = make_view("b200", attention_backend="fa4", decode_attention_backend="triton", **run)
    assert decide(dllm.dllm_attention_backend, mixed) is None
    # 0.5.21 has no list of kept backends: fa4 becomes triton, a triton side stays
    out = decide(dllm.dllm_attention_backend_0_5_21, mixed)
    assert out.fields == {"attention_backend": "triton", "prefill_attention_backend": "triton"}
    triton = make_view("b200", attention_backend="triton", prefill_attention_backend="triton",
                       decode_attention_backend="triton", **run)
    assert decide(dllm.dllm_attention_backend_0_5_21, triton) is None


def test_rocm_turns_off_both_graph_phases():
    out = decide(dllm.dllm_rocm_cuda_graph_off,
                 make_view("mi300x", model=sdar(), cuda_graph_config=graphs(), **LOW))
    assert out.fields["cuda_graph_config"] == graphs("disabled", "disabled")
    assert "decode 'full'" in out.note and "prefill 'breakable'" in out.note
    off = make_view("mi300x", model=sdar(), cuda_graph_config=graphs("disabled", "disabled"),
                    **LOW)
    assert decide(dllm.dllm_rocm_cuda_graph_off, off) is None
    # CUDA keeps its graphs
    assert decide(dllm.dllm_rocm_cuda_graph_off,
                  make_view("h100", model=sdar(), cuda_graph_config=graphs(), **LOW)) is None


def test_diffusion_disables_the_overlap_schedule():
    out = decide(dllm.dllm_overlap_disable, make_view(model=sdar(), **LOW))
    assert out.fields == {"disable_overlap_schedule": True}
    assert "disable_overlap_schedule False" in out.note
    assert decide(dllm.dllm_overlap_disable,
                  make_view(model=sdar(), disable_overlap_schedule=True, **LOW)) is None
    assert decide(dllm.dllm_overlap_disable, make_view(model=sdar())) is None


@pytest.mark.parametrize(("model", "page", "no_radix", "want"), [
    (sdar(), 1, False, 4), (sdar(), 2, False, 4), (sdar(), 4, False, None),
    (sdar(), 8, False, 4), (sdar(), 64, False, 4), (sdar(), 6, True, 4),
    (sdar(), 2, True, None), (sdar(), 1, True, None),
    (llada2(), 16, False, 32), (llada2(), 64, False, 32), (llada2(), 48, True, 32),
    (llada2(), 32, False, None), (GEMMA, 128, False, 256), (GEMMA, 512, True, 256),
])
def test_the_page_size_is_aligned_to_the_block_and_capped(model, page, no_radix, want):
    out = decide(dllm.dllm_page_size,
                 make_view(model=model, page_size=page, disable_radix_cache=no_radix, **LOW))
    if want is None:
        assert out is None
    else:
        assert out.fields == {"page_size": want}
        assert f"page_size {page} set to {want}" in out.note


@pytest.mark.parametrize("canvas", [0, -4, 2.5, "64", True])
def test_a_block_that_is_no_positive_integer_is_refused_not_divided_by(canvas):
    model = fake_model(architectures=("DiffusionGemmaForBlockDiffusion",),
                       arch0="DiffusionGemmaForBlockDiffusion", config={"canvas_length": canvas},
                       vocab_size=262144)
    out = decide(dllm.dllm_page_size, make_view(model=model, page_size=16,
                                                dllm_algorithm="Gemma4Renoise"))
    assert isinstance(out, Refuse) and "canvas_length" in out.message
    assert f"got {canvas!r}" in out.message


def test_the_radix_cache_extensions_are_switched_off():
    on = dict(enable_hierarchical_cache=True, enable_lmcache=True, enable_flexkv=True)
    out = decide(dllm.dllm_cache_layers_off, make_view(model=sdar(), **on, **LOW))
    assert out.fields == dict.fromkeys(on, False)
    assert "--enable-hierarchical-cache" in out.note and "--enable-flexkv" in out.note
    out = decide(dllm.dllm_cache_layers_off, make_view(model=sdar(), enable_flexkv=True, **LOW))
    assert out.fields == {"enable_flexkv": False}
    assert decide(dllm.dllm_cache_layers_off, make_view(
        model=sdar(), enable_flexkv=True, disable_radix_cache=True, **LOW)) is None
    assert decide(dllm.dllm_cache_layers_off, make_view(model=sdar(), **LOW)) is None


@pytest.mark.parametrize(("rule", "given", "want", "words"), [
    (dllm.dllm_pipeline_parallel_off, {"pp_size": 2}, {"pp_size": 1}, "pp_size 2 set to 1"),
    (dllm.dllm_lora_off, {"enable_lora": True}, {"enable_lora": False}, "enable_lora True"),
    (dllm.dllm_disaggregation_off, {"disaggregation_mode": "prefill"},
     {"disaggregation_mode": "null"}, "disaggregation_mode 'prefill' set to 'null'"),
    (dllm.dllm_disaggregation_off, {"disaggregation_mode": "decode"},
     {"disaggregation_mode": "null"}, "'decode'"),
    (dllm.dllm_mixed_chunk_off, {"enable_mixed_chunk": True}, {"enable_mixed_chunk": False},
     "enable_mixed_chunk True"),
])
def test_what_diffusion_serving_does_not_support_is_switched_off(rule, given, want, words):
    out = decide(rule, make_view(model=sdar(), **given, **LOW))
    assert out.fields == want and words in out.note
    assert decide(rule, make_view(model=sdar(), **given)) is None  # no diffusion launch
    assert decide(rule, make_view(model=sdar(), **LOW)) is None  # nothing to switch off


@pytest.mark.parametrize("compat", ["default", "0.5.23", "0.5.22", "0.5.21"])
def test_an_accepted_launch_is_rewritten_through_the_pipeline(compat):
    argv = ["--dllm-algorithm", "JointThreshold", "--pp-size", "2", "--enable-lora",
            "--max-lora-rank", "16", "--lora-target-modules", "all",
            "--disaggregation-mode", "prefill", "--enable-mixed-chunk",
            "--enable-hierarchical-cache"]
    result = resolve(argv, gpu="h100", model_path=str(SDAR_SYNTH), compat=compat)
    assert {f: result.value(f) for f in (
        "pp_size", "enable_lora", "disaggregation_mode", "enable_mixed_chunk",
        "enable_hierarchical_cache", "page_size", "disable_overlap_schedule")} == {
        "pp_size": 1, "enable_lora": False, "disaggregation_mode": "null",
        "enable_mixed_chunk": False, "enable_hierarchical_cache": False, "page_size": 4,
        "disable_overlap_schedule": True}
    assert result.source("pp_size") == "dllm_pipeline_parallel_off"


@pytest.mark.parametrize("gpu", ["mi300x", "mi355x"])
def test_rocm_diffusion_keeps_aiter_and_drops_graphs(gpu):
    result = resolve(["--dllm-algorithm", "LowConfidence"], gpu=gpu,
                     model_path=str(SDAR_SYNTH))
    config = result.value("cuda_graph_config")
    assert result.value("attention_backend") == "aiter"
    assert (config["decode"]["backend"], config["prefill"]["backend"]) == ("disabled",
                                                                          "disabled")


# --- Gemma4Renoise's own step (configure_server_args) ----------------------------------------

DG_SYNTH = Path(__file__).parents[1] / "parity" / "models" / "diffusiongemma-synth"


def diffusion_gemma(top=True, text=True, quant=None, text_config=True):
    """DiffusionGemma's facts as the renoise rules read them (tie at each level, quantization)."""
    return fake_model(architectures=("DiffusionGemmaForBlockDiffusion",),
                      arch0="DiffusionGemmaForBlockDiffusion", config={}, vocab_size=262144,
                      quant_config=quant, has_text_config=text_config,
                      tied_word_embeddings=(top, text if text_config else None))


RENOISE = dict(dllm_algorithm="Gemma4Renoise", device="cuda")


@pytest.mark.parametrize(("model", "given", "words"), [
    (diffusion_gemma(), {"device": "cpu"}, "not device 'cpu'"),
    (diffusion_gemma(), {"pp_size": 2}, "--pp-size 2"),
    (diffusion_gemma(), {"dcp_size": 2}, "--dcp-size 2"),
    (diffusion_gemma(), {"attn_cp_size": 4}, "--attn-cp-size 4"),
    (diffusion_gemma(), {"quantization": "fp8"}, "--quantization fp8"),
    (diffusion_gemma(quant={"quant_method": "fp8"}), {}, "quantization_config"),
    (diffusion_gemma(top=False), {}, "config.json sets tie_word_embeddings false"),
    (diffusion_gemma(text=False), {}, "its text config sets tie_word_embeddings false"),
    (diffusion_gemma(text_config=False), {}, "has no text config"),
    # SGLang's order: the device first, the embeddings last
    (diffusion_gemma(top=False, quant={"quant_method": "fp8"}), {"pp_size": 2}, "--pp-size"),
])
def test_gemma4_renoise_refuses_what_its_kernels_cannot_serve(model, given, words):
    out = decide(dllm.dllm_gemma4_renoise_checks,
                 make_view("h100", model=model, **{**RENOISE, **given}))
    assert isinstance(out, Refuse) and words in out.message
    assert out.message.startswith("--dllm-algorithm Gemma4Renoise: DiffusionGemma")


def test_gemma4_renoise_accepts_a_tied_unquantized_single_stage_launch():
    assert decide(dllm.dllm_gemma4_renoise_checks,
                  make_view("h100", model=diffusion_gemma(), **RENOISE)) is None
    # an unknown tie (another model's class default) is left to dllm_model_known
    assert decide(dllm.dllm_gemma4_renoise_checks, make_view(
        "h100", model=diffusion_gemma(top=None), **RENOISE)) is None
    # other algorithms have no such step
    assert decide(dllm.dllm_gemma4_renoise_checks, make_view(
        "h100", model=diffusion_gemma(top=False), dllm_algorithm="LowConfidence",
        device="cuda")) is None


@pytest.mark.parametrize(("prefill", "backends", "want"), [
    ("breakable", {"attention_backend": "triton"}, "disabled"),
    ("disabled", {"attention_backend": "triton"}, "disabled"),
    ("full", {"attention_backend": "fa4"}, "full"),
    ("full", {"attention_backend": "triton", "prefill_attention_backend": "fa4"}, "full"),
    ("full", {"attention_backend": "triton"}, None),
    ("full", {"attention_backend": "fa4", "prefill_attention_backend": "triton"}, None),
])
def test_gemma4_renoise_keeps_only_a_full_fa4_prefill_graph(prefill, backends, want):
    view = make_view("b200", model=diffusion_gemma(), cuda_graph_config=graphs(prefill=prefill),
                     **backends, **RENOISE)
    out = decide(dllm.dllm_gemma4_renoise_settings, view)
    if want is None:
        assert isinstance(out, Refuse) and "FULL prefill CUDA graph" in out.message
        assert "'triton'" in out.message
        return
    assert out == {"disable_radix_cache": True, "chunked_prefill_size": -1,
                   "cuda_graph_config": graphs(prefill=want)}
    # 0.5.21 turns the prefill graph off whatever it is
    assert decide(dllm.dllm_gemma4_renoise_settings_0_5_21, view) == {
        "disable_radix_cache": True, "chunked_prefill_size": -1,
        "cuda_graph_config": graphs(prefill="disabled")}


def test_tied_word_embeddings_fact_reads_both_levels_with_class_defaults():
    from launchplan.facts.models.loading import load_model

    assert load_model(str(DG_SYNTH)).tied_word_embeddings == (True, True)
    for name, want in (("diffusiongemma-untied-synth", (False, True)),
                       ("diffusiongemma-untied-text-synth", (True, False))):
        assert load_model(str(DG_SYNTH.with_name(name))).tied_word_embeddings == want
    # a plain config has no text side; an unset key of an unknown class is unknown
    assert load_model("qwen3-8b").tied_word_embeddings == (False, None)
    assert load_model(str(SDAR_SYNTH)).tied_word_embeddings == (False, None)


def test_tied_word_embeddings_defaults_of_the_diffusion_gemma_classes(tmp_path):
    import json

    from launchplan.facts.models.loading import load_model

    config = json.loads((DG_SYNTH / "config.json").read_text())
    del config["tie_word_embeddings"]
    del config["text_config"]["tie_word_embeddings"]
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert load_model(str(tmp_path)).tied_word_embeddings == (True, True)


@pytest.mark.parametrize("compat", ["default", "0.5.23", "0.5.22", "0.5.21"])
def test_gemma4_renoise_through_the_pipeline(compat):
    argv = ["--dllm-algorithm", "Gemma4Renoise", "--attention-backend", "fa4",
            "--cuda-graph-backend-prefill", "full"]
    result = resolve(argv, gpu="b200", model_path=str(DG_SYNTH), compat=compat)
    config = result.value("cuda_graph_config")
    assert (result.value("disable_radix_cache"), result.value("chunked_prefill_size")) == (
        True, -1)
    assert result.source("chunked_prefill_size") == "dllm_gemma4_renoise_settings"
    # 0.5.21 keeps no prefill graph, and sets fa4 to triton (no list of kept backends)
    old = compat == "0.5.21"
    assert config["prefill"]["backend"] == ("disabled" if old else "full")
    assert result.value("attention_backend") == ("triton" if old else "fa4")
    with pytest.raises(Refusal) as refused:
        resolve(["--dllm-algorithm", "Gemma4Renoise", "--pp-size", "2"], gpu="h100",
                model_path=str(DG_SYNTH), compat=compat)
    assert refused.value.source == "dllm_gemma4_renoise_checks"
