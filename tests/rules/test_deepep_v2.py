"""DeepEP v2: validated architectures, no draft backend, the per-rank dispatch buffer."""

from __future__ import annotations

from launchplan.engine.declarations import Refuse
from launchplan.rules.deepep_v2 import (
    deepep_v2_draft_check,
    deepep_v2_model_check,
    deepep_v2_token_budget,
)
from launchplan.rules.graph_config import default_config, with_phase
from tests.rules.conftest import MLA, decide, fake_model, make_view

DSV3 = fake_model(**MLA)
GRAPH = {"cuda_graph_config": default_config(True)}
CAP = "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK"


def test_only_registered_architectures_run_deepep_v2():
    assert isinstance(decide(deepep_v2_model_check, make_view(moe_a2a_backend="deepep_v2")), Refuse)
    assert decide(deepep_v2_model_check, make_view(model=DSV3, moe_a2a_backend="deepep_v2")) is None
    assert decide(deepep_v2_model_check, make_view(moe_a2a_backend="deepep")) is None


def test_a_draft_never_dispatches_through_deepep_v2():
    v2 = dict(moe_a2a_backend="deepep_v2")
    assert isinstance(deepep_v2_draft_check(make_view(speculative_algorithm="EAGLE", **v2)),
                      Refuse)
    assert deepep_v2_draft_check(make_view(speculative_algorithm="NGRAM", **v2)) is None
    assert deepep_v2_draft_check(make_view(speculative_algorithm="EAGLE",
                                           speculative_moe_a2a_backend="deepep", **v2)) is None
    assert isinstance(deepep_v2_draft_check(make_view(
        speculative_algorithm="EAGLE", speculative_moe_a2a_backend="deepep_v2")), Refuse)
    assert deepep_v2_draft_check(make_view(**v2)) is None


def test_prefill_and_decode_graph_must_fit_the_buffer():
    base = dict(moe_a2a_backend="deepep_v2", tp_size=8, attn_dp_size=1,
                chunked_prefill_size=16384)
    assert isinstance(decide(deepep_v2_token_budget, make_view(overlay=GRAPH, **base)), Refuse)
    assert decide(deepep_v2_token_budget,
                  make_view(overlay=GRAPH, env={CAP: "2048"}, **base)) is None
    assert isinstance(decide(deepep_v2_token_budget, make_view(overlay=GRAPH, env={CAP: "2047"},
                                                       **base)), Refuse)
    # DP attention scatters a chunk over fewer ranks
    dp = dict(base, attn_dp_size=8)
    assert isinstance(decide(deepep_v2_token_budget, make_view(overlay=GRAPH, env={CAP: "4096"},
                                                       **dp)), Refuse)
    # the decode graph: max_bs 256 against 200, unless the running limit caps it
    small = dict(base, chunked_prefill_size=1024)
    graph = {"cuda_graph_config": with_phase(default_config(True), "decode", max_bs=256)}
    assert isinstance(decide(deepep_v2_token_budget, make_view(overlay=graph, env={CAP: "200"},
                                                       **small)), Refuse)
    assert decide(deepep_v2_token_budget, make_view(overlay=graph, env={CAP: "200"},
                                            max_running_requests=160, **small)) is None
    # a PD decode server has no prefill to bound
    decode = dict(base, disaggregation_mode="decode")
    assert decide(deepep_v2_token_budget,
                  make_view(overlay=graph, env={CAP: "256"}, **decode)) is None
    assert decide(deepep_v2_token_budget, make_view(overlay=GRAPH)) is None
