"""Models whose MLP is one up and one down projection (no gate), and BERT-family encoders.

SGLang's ``starcoder2.py`` builds ``c_fc`` (column-parallel) and ``c_proj`` (row-parallel)
with biases, and ``bert.py`` / ``roberta.py`` ``BertIntermediate`` and ``BertOutput`` the
same, plus learned absolute positions and token types beside the word embedding and a bias on
every linear. Counting a gate as well over-counts them by half the MLP. Publishers' totals:
StarCoder2-15B's fp32 checkpoint is 63.8 GB (its Hub file tree,
https://huggingface.co/bigcode/starcoder2-15b/tree/main); BAAI's bge-m3 has 568M parameters
(XLM-RoBERTa large shape; 2.2 GB in fp32) and bge-large-en-v1.5 335M (BERT large shape).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from launchplan.facts.models.loading import load_model
from launchplan.memory.weights import _layout, checkpoint_size

MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"


def _model(name: str):
    return load_model(str(MODELS / name))


def test_starcoder2_checkpoint_bytes_match_the_hub_tree():
    params, size = checkpoint_size(_model("starcoder2-15b"))
    assert abs(size / 63.8e9 - 1) < 0.005, size
    assert abs(params / 15.96e9 - 1) < 0.005, params


@pytest.mark.parametrize(("name", "published"), [("bge-m3", 568e6),
                                                  ("bge-large-en-v1.5", 335e6)])
def test_bert_family_totals_match_the_published_ones(name, published):
    params, _ = checkpoint_size(_model(name))
    assert abs(params / published - 1) < 0.01, params


def test_no_gate_and_every_linear_has_a_bias():
    lay = _layout(_model("bge-m3"))
    assert not [t.name for t in lay.main if "gate_proj" in t.name]
    linears = [t.name for t in lay.main if t.linear]
    biases = {t.name.removesuffix(".bias") for t in lay.main if t.name.endswith(".bias")}
    assert set(linears) <= biases


def test_arcee_afm_counts_one_up_and_one_down_projection():
    """Arcee's AFM-4.5B (``arcee.py`` ArceeMLP: up_proj, ReLU squared, down_proj): SGLang
    0.5.23's own class, built on the meta device at TP 1, holds 4,619,491,840 parameters; a
    gate counted too would add 36 x 2560 x 18432 (+37%)."""
    model = _model("afm-4.5b")
    params, _ = checkpoint_size(model)
    assert abs(params / 4_619_491_840 - 1) < 0.001, params
    assert not [t.name for t in _layout(model).main if "gate_proj" in t.name]
