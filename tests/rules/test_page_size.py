"""Page-size rules, each on a view: snaps, the FA4 constraint (both rule sets), the default."""

from __future__ import annotations

import pytest

from launchplan.engine.declarations import Declare
from launchplan.rules.graph_config import default_config, with_phase
from launchplan.rules.page_size import (
    backend_page_snaps,
    fa4_page_constraint,
    fa4_page_constraint_0_5_23,
    intel_xpu_page_constraint,
    page_size_default,
)
from tests.rules.conftest import MLA, fake_model, make_view


def fields(out):
    return out.fields if isinstance(out, Declare) else out


@pytest.mark.parametrize(("backend", "page", "expected"), [
    ("flashmla", None, 64), ("flashmla", 32, 64), ("flashmla", 64, None),
    ("trtllm_mla", None, 64), ("trtllm_mla", 32, None), ("trtllm_mla", 128, 64),
    ("cutedsl_mla", 16, 64), ("trtllm_mha", None, 64), ("trtllm_mha", 128, None),
    ("trtllm_mha", 256, 64), ("trtllm_mha", 16, None), ("hpc_ops", 1, 64),
    ("fa3", None, None), ("triton", 16, None),
])
def test_backend_snaps(backend, page, expected):
    out = backend_page_snaps(make_view(attention_backend=backend, page_size=page))
    assert (fields(out) or {}).get("page_size") == expected


def test_trtllm_mha_as_draft_backend_snaps_too():
    out = backend_page_snaps(make_view(attention_backend="fa3",
                                       speculative_draft_attention_backend="trtllm_mha"))
    assert fields(out) == {"page_size": 64}


def test_flashmla_prefill_only_does_not_snap():
    assert backend_page_snaps(make_view(attention_backend="fa3",
                                        prefill_attention_backend="flashmla")) is None


GRAPH = {"cuda_graph_config": default_config(True)}
FULL = {"cuda_graph_config": with_phase(default_config(True), "prefill", backend="full")}


@pytest.mark.parametrize("rule", [fa4_page_constraint, fa4_page_constraint_0_5_23])
@pytest.mark.parametrize("side", ["attention_backend", "prefill_attention_backend",
                                  "decode_attention_backend"])
def test_fa4_forces_128_on_sm10x_from_any_side(rule, side):
    for gpu in ("b200", "gb200", "b300"):
        out = rule(make_view(gpu, overlay=GRAPH, **{side: "fa4", "page_size": 16}))
        assert fields(out) == {"page_size": 128}


@pytest.mark.parametrize("rule", [fa4_page_constraint, fa4_page_constraint_0_5_23])
def test_fa4_leaves_other_gpus_mla_and_topk_alone(rule):
    assert rule(make_view("h100", overlay=GRAPH, attention_backend="fa4")) is None
    assert rule(make_view("rtx5090", overlay=GRAPH, attention_backend="fa4")) is None
    assert rule(make_view(model=fake_model(**MLA), overlay=GRAPH,
                          attention_backend="fa4")) is None
    assert rule(make_view(overlay=GRAPH, attention_backend="fa4",
                          speculative_eagle_topk=4)) is None


def test_full_prefill_graph_exempts_fa4_only_in_the_default_rules():
    assert fa4_page_constraint(make_view(overlay=FULL, attention_backend="fa4")) is None
    out = fa4_page_constraint_0_5_23(make_view(overlay=FULL, attention_backend="fa4"))
    assert fields(out) == {"page_size": 128}


def test_diffusion_gemma_takes_page_one():
    model = fake_model(architectures=("DiffusionGemmaForBlockDiffusion",))
    out = fa4_page_constraint(make_view(model=model, overlay=GRAPH, attention_backend="fa4"))
    assert fields(out) == {"page_size": 1}


def test_intel_xpu_pages():
    assert fields(intel_xpu_page_constraint(make_view(attention_backend="intel_xpu",
                                                      page_size=16))) == {"page_size": 128}
    assert intel_xpu_page_constraint(make_view(model=fake_model(**MLA),
                                               attention_backend="intel_xpu",
                                               page_size=16)) is None


def test_page_default():
    assert page_size_default(make_view()) == {"page_size": 1}
    assert page_size_default(make_view(page_size=32)) is None
    env = {"SGLANG_AITER_KV_CACHE_LAYOUT": "Vectorized_5D"}
    assert page_size_default(make_view("mi300x", env=env)) == {"page_size": 64}
    assert page_size_default(make_view("b200", env=env)) == {"page_size": 1}
