"""The FA4 page-size decisions end to end, through ``launchplan.resolve``: the seed's
combination and its neighbours, under both rule sets."""

from __future__ import annotations

import pytest

from launchplan import resolve

EAGLE3_TOPK4 = ["--speculative-algorithm", "EAGLE3", "--speculative-num-steps", "5",
                "--speculative-eagle-topk", "4", "--speculative-num-draft-tokens", "8",
                "--speculative-draft-model-path", "llama-3.1-8b-eagle3"]


def page(argv, gpu="b200", model="llama-3.1-8b", compat="default"):
    return resolve(argv, gpu=gpu, model_path=model, compat=compat).value("page_size")


def test_fa4_on_b200_forces_128():
    assert page(["--attention-backend", "fa4"]) == 128


def test_explicit_page_is_overridden_and_reported():
    result = resolve(["--attention-backend", "fa4", "--page-size", "16"], gpu="b200",
                     model_path="llama-3.1-8b")
    assert result.value("page_size") == 128
    assert {"field": "page_size", "input": 16, "resolved": 128,
            "source": "fa4_page_constraint"} in result.to_dict()["overrides_of_input"]


def test_full_prefill_graph_keeps_page_one_by_default_but_not_in_0_5_23():
    argv = ["--attention-backend", "fa4", "--cuda-graph-backend-prefill", "full"]
    assert page(argv) == 1
    assert page(argv, compat="0.5.23") == 128


def test_eagle_topk_above_one_is_exempt():
    assert page(["--attention-backend", "fa4", *EAGLE3_TOPK4]) == 1


@pytest.mark.parametrize("gpu", ["h100", "rtx5090"])
def test_other_gpus_leave_page_alone(gpu):
    assert page(["--attention-backend", "fa4"], gpu=gpu) == 1


def test_mla_models_are_exempt():
    assert page(["--attention-backend", "fa4", "--tp-size", "8"], model="deepseek-v3") == 1


def test_fa4_as_decode_only_forces_128():
    assert page(["--decode-attention-backend", "fa4"]) == 128


def test_fa4_as_prefill_only():
    assert page(["--prefill-attention-backend", "fa4"]) == 128
    # the base defaults to trtllm_mha, whose snap gives 64; the FA4 force is skipped
    argv = ["--prefill-attention-backend", "fa4", "--cuda-graph-backend-prefill", "full"]
    assert page(argv) == 64
    assert page(argv, compat="0.5.23") == 128


@pytest.mark.parametrize("gpu", ["gb200", "b300"])
def test_every_sm10x_part_counts(gpu):
    assert page(["--attention-backend", "fa4"], gpu=gpu) == 128


def test_the_declaration_chain_names_the_rules():
    result = resolve(["--prefill-attention-backend", "fa4"], gpu="b200",
                     model_path="llama-3.1-8b")
    assert [d.source for d in result.chain("page_size")] == ["backend_page_snaps",
                                                              "fa4_page_constraint"]
