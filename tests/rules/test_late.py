"""Late rules: P19 DeepSeek trtllm_mla graph, P24-P26, P33-P38 and the launcher checks."""

from __future__ import annotations

import pytest

from launchplan.engine.declarations import Declare, Refuse
from launchplan.facts.models import load_model
from launchplan.rules import late
from launchplan.rules.graph_config import default_config, with_phase
from tests.rules.conftest import MLA, decide, fake_model, make_view


def fields(out):
    return out.fields if isinstance(out, Declare) else out


GRAPH = {"cuda_graph_config": default_config(True)}
DSV3 = load_model("deepseek-v3")


def prefill_backend(out):
    return fields(out)["cuda_graph_config"]["prefill"]["backend"]


# --- P19 -------------------------------------------------------------------------------------

def test_deepseek_trtllm_mla_disables_the_prefill_graph():
    out = late.deepseek_trtllm_mla_prefill_graph(make_view(
        model=DSV3, overlay=GRAPH, attention_backend="trtllm_mla", tp_size=8))
    assert prefill_backend(out) == "disabled"
    assert fields(out)["cuda_graph_config"]["decode"]["backend"] == "full"


@pytest.mark.parametrize("values", [
    dict(attention_backend="trtllm_mla", cuda_graph_backend_prefill="breakable"),  # locked
    dict(attention_backend="flashinfer"),
    dict(attention_backend="trtllm_mla", prefill_attention_backend="fa3"),
])
def test_deepseek_trtllm_mla_rule_skips(values):
    assert late.deepseek_trtllm_mla_prefill_graph(make_view(model=DSV3, overlay=GRAPH,
                                                            **values)) is None


def test_deepseek_rule_needs_the_v3_arch():
    model = fake_model(**{**MLA, "architectures": ("DeepseekV2ForCausalLM",)})
    assert decide(late.deepseek_trtllm_mla_prefill_graph, make_view(
        model=model, overlay=GRAPH, attention_backend="trtllm_mla")) is None


# --- P24-P26 ---------------------------------------------------------------------------------

def test_amd_kv_splits_and_grammar_default():
    assert decide(late.amd_triton_kv_splits,
                  make_view("mi300x")) == {"triton_attention_num_kv_splits": 16}
    assert decide(late.amd_triton_kv_splits, make_view("h100")) is None
    assert decide(late.grammar_backend_default, make_view()) == {"grammar_backend": "xgrammar"}
    assert decide(late.grammar_backend_default, make_view(grammar_backend="outlines")) is None


def test_multi_item_scoring():
    out = late.multi_item_scoring(make_view(overlay=GRAPH, enable_mis=True,
                                            attention_backend="flashinfer",
                                            chunked_prefill_size=8192))
    got = fields(out)
    assert got["cuda_graph_config"]["decode"]["backend"] == "disabled"
    assert got["cuda_graph_config"]["prefill"]["backend"] == "disabled"
    assert got["disable_radix_cache"] is True and got["chunked_prefill_size"] == -1
    assert isinstance(late.multi_item_scoring(make_view(overlay=GRAPH, enable_mis=True,
                                                        attention_backend="fa3")), Refuse)
    assert late.multi_item_scoring(make_view(overlay=GRAPH)) is None


def test_prefill_only_kv_backend_check():
    on = dict(prefill_only_disable_kv_cache=True)
    assert late.prefill_only_kv_backend_check(make_view(attention_backend="fa4", **on)) is None
    assert isinstance(late.prefill_only_kv_backend_check(make_view(
        attention_backend="flashinfer", **on)), Refuse)


# --- P33 -------------------------------------------------------------------------------------

def test_cache_compatibility():
    assert late.cache_compatibility(make_view()) == {"_swa_full_tokens_ratio_explicitly_set": False}
    assert late.cache_compatibility(make_view(swa_full_tokens_ratio=0.5)) == {
        "_swa_full_tokens_ratio_explicitly_set": True}
    assert isinstance(late.cache_compatibility(make_view(swa_full_tokens_ratio=1.5)), Refuse)
    assert isinstance(late.cache_compatibility(make_view(
        enable_hierarchical_cache=True, disable_radix_cache=True)), Refuse)
    assert isinstance(late.cache_compatibility(make_view(
        disaggregation_decode_retraction_backup="host_pool")), Refuse)
    assert isinstance(late.cache_compatibility(make_view(
        enable_lmcache=True, speculative_algorithm="EAGLE")), Refuse)
    assert isinstance(late.cache_compatibility(make_view(
        radix_eviction_policy="tlru",
        radix_eviction_policy_config={"threshold": 1, "next_prompt_estimate": 2})), Refuse)


def test_page_major_kv_layout():
    assert late.page_major_kv_layout(make_view(enable_unified_memory=True,
                                               attention_backend="fa3")) == {
        "enable_page_major_kv_layout": True}
    assert isinstance(late.page_major_kv_layout(make_view(enable_page_major_kv_layout=True,
                                                          attention_backend="fa3")), Refuse)
    assert isinstance(late.page_major_kv_layout(make_view(enable_unified_memory=True,
                                                          attention_backend="aiter")), Refuse)
    assert late.page_major_kv_layout(make_view(attention_backend="fa3")) is None
    # unified memory declares the layout even when it was given (SGLang's source; probe 8484/186)
    assert late.page_major_kv_layout(make_view(enable_unified_memory=True,
                                               enable_page_major_kv_layout=True,
                                               attention_backend="fa3")) == {
        "enable_page_major_kv_layout": True}


def test_unified_memory_full_prefill_fallback():
    full = {"cuda_graph_config": with_phase(default_config(True), "prefill", backend="full")}
    out = late.unified_memory_pool(make_view(overlay=full, enable_unified_memory=True,
                                             attention_backend="flashinfer"))
    assert prefill_backend(out) == "disabled"
    assert late.unified_memory_pool(make_view(overlay=full, enable_unified_memory=True,
                                              attention_backend="fa3")) is None


def test_unified_memory_speculation_limits():
    on = dict(enable_unified_memory=True, attention_backend="fa3")
    assert isinstance(late.unified_memory_pool(make_view(
        overlay=GRAPH, speculative_algorithm="NGRAM", **on)), Refuse)
    assert isinstance(late.unified_memory_pool(make_view(
        overlay=GRAPH, speculative_algorithm="EAGLE", speculative_eagle_topk=4, **on)), Refuse)
    plain = fake_model(is_hybrid_swa=False, is_hybrid_linear=False)
    assert isinstance(late.unified_memory_pool(make_view(
        model=plain, overlay=GRAPH, speculative_algorithm="EAGLE", **on)), Refuse)
    hybrid = fake_model(is_hybrid_swa=True, is_hybrid_linear=False)
    assert late.unified_memory_pool(make_view(
        model=hybrid, overlay=GRAPH, speculative_algorithm="EAGLE", **on)) is None


def test_debug_dump_disables_graphs():
    out = late.debug_dump_graph_disable(make_view(overlay=GRAPH,
                                                  debug_tensor_dump_output_folder="/tmp/x"))
    assert prefill_backend(out) == "disabled" and fields(out)["skip_server_warmup"] is True
    assert late.debug_dump_graph_disable(make_view(overlay=GRAPH)) is None


# --- P36, P38 --------------------------------------------------------------------------------

def test_hrm_text_capability():
    model = fake_model(model_type="hrm_text", config={})
    got = fields(decide(late.hrm_text_capability, make_view(model=model, overlay=GRAPH,
                                                    attention_backend="fa3")))
    assert got["attention_backend"] == "triton" and got["chunked_prefill_size"] == -1
    no_prefix = fake_model(model_type="hrm_text", config={"prefix_lm": False})
    assert decide(late.hrm_text_capability, make_view(model=no_prefix, overlay=GRAPH)) is None
    assert decide(late.hrm_text_capability, make_view(model=fake_model(model_type="llama"),
                                              overlay=GRAPH)) is None


def test_embedding_architecture_capability():
    gemma2 = fake_model(auto_embedding=True, is_embedding_gemma=False,
                        arch0="EmbeddingGemma2Model")
    assert fields(decide(late.embedding_architecture_capability, make_view(model=gemma2))) == {
        "is_embedding": True, "disable_radix_cache": True, "chunked_prefill_size": -1}
    bert = fake_model(auto_embedding=True, is_embedding_gemma=False, arch0="BertModel")
    assert fields(decide(late.embedding_architecture_capability, make_view(model=bert))) == {
        "is_embedding": True}
    assert decide(late.embedding_architecture_capability,
                  make_view(model=bert, is_embedding=True)) is None
    assert decide(late.embedding_architecture_capability, make_view(model=fake_model(
        auto_embedding=True, is_embedding_gemma=True))) is None  # its own rule
    assert decide(late.embedding_architecture_capability, make_view(model=fake_model(
        auto_embedding=False, is_embedding_gemma=False))) is None


def test_embedding_gemma_capability():
    model = fake_model(is_embedding_gemma=True, context_len=2048)
    got = fields(decide(late.embedding_gemma_capability,
                        make_view("h100", model=model, overlay=GRAPH)))
    assert got["prefill_only_disable_kv_cache"] is True
    config = got["cuda_graph_config"]
    assert config["decode"]["backend"] == "disabled"
    assert config["prefill"]["backend"] == "breakable" and config["prefill"]["max_bs"] == 16384
    got = fields(decide(late.embedding_gemma_capability, make_view(
        "mi300x", model=model, overlay={"cuda_graph_config": default_config(False)})))
    assert "prefill_only_disable_kv_cache" not in got
    assert got["cuda_graph_config"]["prefill"]["backend"] == "disabled"
    assert decide(late.embedding_gemma_capability, make_view(
        model=fake_model(is_embedding_gemma=False), overlay=GRAPH)) is None


def test_multimodal_chunking_capability():
    model = fake_model(is_multimodal=True, mm_chunked_prefill_supported=False,
                       arch0="MllamaForConditionalGeneration")
    assert fields(decide(late.multimodal_chunking_capability, make_view(model=model))) == {
        "chunked_prefill_size": -1}
    ok = fake_model(is_multimodal=True, mm_chunked_prefill_supported=True)
    assert decide(late.multimodal_chunking_capability, make_view(model=ok)) is None


def test_prefill_max_context_alignment():
    config = with_phase(default_config(True), "prefill", max_context_size=1000)
    out = late.finalize_cuda_graph_prefill_max_context(make_view(
        overlay={"cuda_graph_config": config}, page_size=64))
    assert fields(out)["cuda_graph_config"]["prefill"]["max_context_size"] == 1024
    too_long = with_phase(default_config(True), "prefill", max_context_size=10**7)
    assert isinstance(late.finalize_cuda_graph_prefill_max_context(make_view(
        overlay={"cuda_graph_config": too_long}, page_size=1)), Refuse)
    assert late.finalize_cuda_graph_prefill_max_context(make_view(overlay=GRAPH,
                                                                  page_size=1)) is None
    # a page size of 0 or below is refused before anything else, a bad request too
    for page, requested in ((-1, 1000), (0, 1000), (-1, -5)):
        bad = with_phase(default_config(True), "prefill", max_context_size=requested)
        out = late.finalize_cuda_graph_prefill_max_context(make_view(
            overlay={"cuda_graph_config": bad}, page_size=page))
        assert isinstance(out, Refuse) and f"page_size {page}" in out.message


# --- launcher --------------------------------------------------------------------------------

def test_launcher_chunk_page_alignment():
    assert isinstance(late.launcher_chunk_page_alignment(make_view(
        chunked_prefill_size=5461, page_size=64)), Refuse)
    assert late.launcher_chunk_page_alignment(make_view(chunked_prefill_size=8192,
                                                        page_size=64)) is None
    assert late.launcher_chunk_page_alignment(make_view(
        chunked_prefill_size=1000, page_size=64, disaggregation_mode="decode")) is None
    assert late.launcher_chunk_page_alignment(make_view(chunked_prefill_size=-1,
                                                        page_size=64)) is None


def test_launcher_other_checks():
    assert isinstance(late.launcher_spec_mixed_chunk(make_view(
        speculative_algorithm="NGRAM", enable_mixed_chunk=True)), Refuse)
    assert late.launcher_spec_mixed_chunk(make_view(speculative_algorithm="EAGLE",
                                                    enable_mixed_chunk=True)) is None
    assert isinstance(late.launcher_layout_checks(make_view(tp_size=3, nnodes=2,
                                                            served_model_name="m")), Refuse)
    assert isinstance(late.launcher_layout_checks(make_view(served_model_name="a:b")), Refuse)
    assert late.launcher_layout_checks(make_view(served_model_name="m")) is None
    assert isinstance(late.launcher_scheduling_checks(make_view(enable_pdmux=True,
                                                                chunked_prefill_size=-1)),
                      Refuse)
    assert late.launcher_scheduling_checks(make_view(chunked_prefill_size=8192)) is None


def test_encoder_replay_capability():
    """Recorded: wild/41 and wild/159 (the flag on Qwen3) are refused by SGLang."""
    v41 = fake_model(model_type="deepseek_v41")
    sized = dict(enable_encoder_swa_bounded_replay=True, max_running_requests=64,
                 chunked_prefill_size=4096, page_size=256)
    assert late.encoder_replay_capability(make_view(model=v41, **sized)) is None
    # refusals' dsv41/replay-small-chunk: 128 replay rows plus a page (384) exceed a 64 chunk
    for short in (dict(chunked_prefill_size=64), dict(chunked_prefill_size=383),
                  dict(chunked_prefill_size=-1), dict(max_running_requests=None),
                  dict(max_running_requests=0)):
        assert isinstance(late.encoder_replay_capability(make_view(
            model=v41, **{**sized, **short})), Refuse), short
    other = fake_model(model_type="qwen3")
    assert isinstance(late.encoder_replay_capability(make_view(
        model=other, enable_encoder_swa_bounded_replay=True)), Refuse)
    assert late.encoder_replay_capability(make_view(model=other)) is None


def test_other_validations():
    """Recorded: wild/184 (--default-chat-template-kwargs []) is refused by SGLang."""
    assert isinstance(late.other_validations(make_view(default_chat_template_kwargs=[])), Refuse)
    assert late.other_validations(make_view(default_chat_template_kwargs={"a": 1})) is None
    prefill = dict(disaggregation_mode="prefill", optimistic_prefill_attempts=2)
    assert late.other_validations(make_view(**prefill, pp_size=2)).fields == {
        "optimistic_prefill_attempts": 0}
    assert late.other_validations(make_view(**prefill, enable_hierarchical_cache=True,
                                            hicache_write_policy="write_through")) is None
    assert late.other_validations(make_view(**prefill, enable_hierarchical_cache=True,
                                            hicache_storage_backend="file")).fields == {
        "optimistic_prefill_attempts": 0}
    complete = dict(disaggregation_decode_allocation_policy="prefill_complete")
    assert isinstance(late.other_validations(make_view(**prefill, **complete, pp_size=2)),
                      Refuse)
    assert late.other_validations_0_5_21(make_view(**prefill, **complete, pp_size=2)).fields \
        == {"optimistic_prefill_attempts": 0}
    assert isinstance(late.other_validations(make_view(limit_mm_data_per_request={"text": 1})),
                      Refuse)
    assert isinstance(late.other_validations(make_view(
        preferred_sampling_params={"watermark": True})), Refuse)


def test_a_prefill_max_context_too_long_to_print_is_refused_not_a_crash():
    # 4,300 nines round up to a page multiple of 4,301 digits: past Python's int-to-text
    # limit, so the message cannot be made (found by benchmarks/fuzz_lines.py, seed 1202)
    config = with_phase(default_config(True), "prefill", max_context_size=int("9" * 4300))
    out = late.finalize_cuda_graph_prefill_max_context(make_view(
        "h100", page_size=16, cuda_graph_config=config))
    assert isinstance(out, Refuse) and "digits" in out.message


def test_mamba_backend_checks():
    """Recorded: wild2/75 (stochastic rounding without a float16 SSM cache) is refused by
    SGLang's Mamba-backend hook, whatever the model."""
    check = late.mamba_backend_checks
    assert check(make_view("h100")) is None
    for bad in (dict(mamba_cache_philox_rounds=-1), dict(mamba_max_states_per_path=0),
                dict(mamba_max_states_per_path=-2),
                dict(enable_mamba_cache_stochastic_rounding=True),
                dict(enable_mamba_cache_stochastic_rounding=True, mamba_ssm_dtype="float16")):
        assert isinstance(check(make_view("h100", **bad)), Refuse), bad  # triton off SM10x
    fp16 = dict(enable_mamba_cache_stochastic_rounding=True, mamba_ssm_dtype="float16")
    assert check(make_view("b200", **fp16)) is None
    assert check(make_view("h100", mamba_backend="flashinfer", **fp16)) is None
    assert isinstance(check(make_view("mi300x", mamba_backend="flashinfer", **fp16)), Refuse)
    assert isinstance(check(make_view("mi300x", mamba_backend="flashinfer")), Refuse)
    assert check(make_view("h100", mamba_max_states_per_path=-1)) is None


def test_environment_variable_checks():
    from launchplan.rules.late import environment_variable_checks

    for gpu in ("b200", "rtx5090", "mi355x"):
        assert environment_variable_checks(make_view(
            gpu, enable_deepseek_v4_fp4_indexer=True)) is None, gpu
    for gpu in ("h100", "mi300x"):
        assert isinstance(environment_variable_checks(make_view(
            gpu, enable_deepseek_v4_fp4_indexer=True)), Refuse), gpu
    assert environment_variable_checks(make_view("h100", debug_cuda_graph=True)) is None
    assert environment_variable_checks(make_view("mi300x", debug_cuda_graph=True)) is None


def test_unified_memory_under_pd_needs_lazy_compaction():
    on = dict(enable_unified_memory=True, attention_backend="fa3", overlay=GRAPH)
    off = {"SGLANG_DISABLE_LAZY_COMPACTION": "1"}
    assert late.unified_memory_pool(make_view(env=off, **on)) is None  # no PD: not read
    assert late.unified_memory_pool(make_view(disaggregation_mode="prefill", **on)) is None
    assert isinstance(late.unified_memory_pool(make_view(
        env=off, disaggregation_mode="prefill", **on)), Refuse)
    assert isinstance(late.unified_memory_pool_0_5_22(make_view(
        env=off, disaggregation_mode="decode", **on)), Refuse)


def test_unified_pool_under_pd_ships_whole_envelopes():
    """Every release: the PD transfer of the unified pool is Mooncake's, without PP,
    speculation over Mooncake or HiSparse; decode offload to file storage of a plain MHA
    model; the host-pool backup without a Mamba hybrid."""
    def model_of(**facts):
        return fake_model(**{"is_hybrid_swa": False, "is_hybrid_linear": False, **facts})

    def view(model=None, **values):
        return make_view("h100", model=model or model_of(),
                         overlay={"cuda_graph_config": default_config(True)},
                         enable_unified_memory=True, attention_backend="fa3",
                         disaggregation_mode="decode", **values)

    assert late.unified_memory_pool(view()) is None
    offload = dict(disaggregation_decode_enable_offload_kvcache=True,
                   hicache_storage_backend="file")
    assert late.unified_memory_pool(view(**offload)) is None
    host_pool = dict(disaggregation_decode_retraction_backup="host_pool")
    assert late.unified_memory_pool(view(**host_pool)) is None
    for model, values in (
            (None, dict(disaggregation_transfer_backend="nixl")),
            (None, dict(pp_size=2)),
            (None, dict(speculative_algorithm="DSPARK", speculative_eagle_topk=1)),
            (None, dict(enable_hisparse=True)),
            (None, {**offload, "hicache_storage_backend": "mooncake"}),
            (model_of(is_mla=True), offload),
            (model_of(is_hybrid_linear=True), offload),
            (model_of(is_hybrid_swa=True), offload),
            (model_of(is_hybrid_linear=True), host_pool)):
        for rule in (late.unified_memory_pool, late.unified_memory_pool_0_5_22,
                     late.unified_memory_pool_0_5_21):
            assert isinstance(rule(view(model, **values)), Refuse), (rule.__name__, values)
    # 0.5.21's host-pool backup refuses hybrid-SWA models too
    swa = model_of(is_hybrid_swa=True)
    assert late.unified_memory_pool(view(swa, **host_pool)) is None
    assert isinstance(late.unified_memory_pool_0_5_21(view(swa, **host_pool)), Refuse)


@pytest.mark.parametrize("rule", [late.unified_memory_pool, late.unified_memory_pool_0_5_22,
                                  late.unified_memory_pool_0_5_21])
def test_unified_pool_under_dcp_takes_a_colocated_mla_model_on_audited_backends(rule):
    """Every release: with --dcp-size > 1 the unified pool takes an MLA model without SWA,
    colocated, on flashinfer or the trtllm/CuteDSL MLA kernels."""
    mla = fake_model(**{**MLA, "is_hybrid_swa": False, "is_hybrid_linear": False})
    on = dict(enable_unified_memory=True, dcp_size=2, overlay=GRAPH)
    assert rule(make_view(model=mla, attention_backend="flashinfer", **on)) is None
    assert rule(make_view(model=mla, attention_backend="trtllm_mla", **on)) is None
    mha = fake_model(is_hybrid_swa=False, is_hybrid_linear=False)
    for refused in (make_view(model=mha, attention_backend="flashinfer", **on),
                    make_view(model=mla, attention_backend="triton", **on),
                    make_view(model=mla, attention_backend="flashinfer",
                              disaggregation_mode="decode", **on)):
        out = rule(refused)
        assert isinstance(out, Refuse) and "--dcp-size 2" in out.message
    swa = fake_model(**{**MLA, "is_hybrid_swa": True, "is_hybrid_linear": False})
    assert isinstance(rule(make_view(model=swa, attention_backend="flashinfer", **on)), Refuse)


# --- P34b: handle_debug_utils ----------------------------------------------------------------

@pytest.mark.parametrize(("env", "given", "expected"), [
    ({"SGLANG_IS_IN_CI": "true"}, {}, {"soft_watchdog_timeout": 300}),
    ({"SGLANG_IS_IN_CI": "Y"}, {}, {"soft_watchdog_timeout": 300}),  # SGLang's EnvBool
    ({"SGLANG_IS_IN_CI": "on"}, {}, None),  # no spelling SGLang reads as true: its default
    ({"SGLANG_IS_IN_CI": "0"}, {}, None),
    ({}, {}, None),
    ({"SGLANG_IS_IN_CI": "1"}, {"soft_watchdog_timeout": 60}, None),  # the user's stays
])
def test_ci_soft_watchdog_in_sglangs_ci_only(env, given, expected):
    assert late.ci_soft_watchdog(make_view("h100", env=env, **given)) == expected
