"""LayerNorm sequence parallelism's checks (recorded: wild run 1, --enable-layernorm-sp on a
Qwen2 model is refused by SGLang naming the supported architectures)."""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules.graph_config import default_config, with_phase
from launchplan.rules.layernorm_sp import layernorm_sp_checks
from tests.rules.conftest import fake_model, make_view

QWEN3 = fake_model(architectures=("Qwen3ForCausalLM",), arch0="Qwen3ForCausalLM")
MUSE = fake_model(architectures=("MuseSparkForConditionalGeneration",),
                  arch0="MuseSparkForConditionalGeneration")
MUSE_OK = dict(enable_layernorm_sp=True, tp_size=4, ep_size=4, quantization="modelopt_fp4",
               moe_a2a_backend="flashinfer", moe_runner_backend="flashinfer_trtllm")


def test_layernorm_sp_architectures_and_layout():
    assert isinstance(layernorm_sp_checks(make_view(enable_layernorm_sp=True, tp_size=2)),
                      Refuse)  # Llama
    assert layernorm_sp_checks(make_view(model=QWEN3, enable_layernorm_sp=True,
                                         tp_size=2)) is None
    for bad in (dict(tp_size=1), dict(tp_size=2, attn_dp_size=2), dict(tp_size=2, pp_size=2),
                dict(tp_size=2, speculative_algorithm="EAGLE")):
        assert isinstance(layernorm_sp_checks(make_view(model=QWEN3, enable_layernorm_sp=True,
                                                        **bad)), Refuse), bad
    assert isinstance(layernorm_sp_checks(make_view(model=QWEN3,
                                                    enable_megamoe_for_layernorm_sp=True)),
                      Refuse)
    assert layernorm_sp_checks(make_view(model=QWEN3)) is None


BF16_DISPATCH = {"SGLANG_MOE_NVFP4_DISPATCH": "0"}


def test_layernorm_sp_on_muse_spark():
    assert layernorm_sp_checks(make_view(model=MUSE, env=BF16_DISPATCH, **MUSE_OK)) is None
    assert layernorm_sp_checks(make_view(model=MUSE, env=BF16_DISPATCH, **MUSE_OK,
                                         speculative_algorithm="DFLASH")) is None
    for bad in (dict(tp_size=2, ep_size=2), dict(quantization=None),
                dict(moe_a2a_backend="deepep"), dict(moe_runner_backend="auto")):
        assert isinstance(layernorm_sp_checks(make_view(
            model=MUSE, env=BF16_DISPATCH, **{**MUSE_OK, **bad})), Refuse), bad


def test_muse_spark_layernorm_sp_needs_bf16_dispatch():
    """Recorded: env-reach's nvfp4-dispatch-muse-sp (unset and 1 refused, 0 resolves)."""
    for env in ({}, {"SGLANG_MOE_NVFP4_DISPATCH": "1"}, {"SGLANG_MOE_NVFP4_DISPATCH": "yes"}):
        out = layernorm_sp_checks(make_view(model=MUSE, env=env, **MUSE_OK))
        assert isinstance(out, Refuse) and "SGLANG_MOE_NVFP4_DISPATCH" in out.message, env
    # an unparsable value is set, so SGLang leaves it alone and reads its default (off)
    assert layernorm_sp_checks(make_view(model=MUSE, env={"SGLANG_MOE_NVFP4_DISPATCH": "on"},
                                         **MUSE_OK)) is None


def test_muse_megamoe_sp_budget_mixed_chunks_and_breakable_prefill():
    """Recorded: refusals' layernorm-sp/megamoe-* lines (mixed chunks and chunked prefill off
    refused, the plain MegaMoE line resolves)."""
    graph = default_config(True)
    captured = {"cuda_graph_config": with_phase(graph, "prefill", bs=[8, 4096, 8192])}
    mega = dict(enable_layernorm_sp=True, enable_megamoe_for_layernorm_sp=True, tp_size=8,
                ep_size=8, moe_runner_backend="flashinfer_trtllm", chunked_prefill_size=8192)
    out = layernorm_sp_checks(make_view(model=MUSE, overlay=captured, **mega))
    assert isinstance(out, Declare)  # the breakable prefill graph kept, declared here
    assert out.fields["cuda_graph_config"]["prefill"]["backend"] == "breakable"
    for bad, env in ((dict(enable_mixed_chunk=True), {}),
                     (dict(chunked_prefill_size=-1), {}),  # breakable prefill graph
                     (dict(chunked_prefill_size=16384), {}),  # above the largest capture
                     ({}, {"SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK": "512"}),
                     ({}, {"SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK": "0"})):
        out = layernorm_sp_checks(make_view(model=MUSE, overlay=captured, env=env,
                                            **{**mega, **bad}))
        assert isinstance(out, Refuse), (bad, env)
    # no breakable prefill graph: the chunk may be off (the budget is max_prefill_tokens)
    eager = {"cuda_graph_config": with_phase(graph, "prefill", backend="disabled")}
    out = layernorm_sp_checks(make_view(model=MUSE, overlay=eager, max_prefill_tokens=16384,
                                        **{**mega, "chunked_prefill_size": -1}))
    assert out.fields["cuda_graph_config"]["prefill"]["backend"] == "disabled"
