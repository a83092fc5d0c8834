"""The heads SGLang's reward and sequence-classification classes build beside the backbone.

A ``*ForSequenceClassification`` class ends in one ``score`` linear (hidden -> the config's
labels; Qwen2's and Qwen3's with a bias, Llama's and Gemma-2's without), a Qwen
``*ForRewardModel`` in a two-linear ``score`` (hidden -> hidden -> 1, both with biases) and
InternLM2's reward model in a bias-free ``v_head``; none builds an LM head. An embedding
launch (``--is-embedding``) of a ``*ForCausalLM`` checkpoint builds the causal-LM class,
head and all. Each expectation restates the sizes from ``config.json``; the recording
``tests/parity/data/results-model-params.jsonl`` (``tools/record_model_params.py``: SGLang
0.5.23's model classes built on the meta device) is the truth the last test replays.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.facts.models import clear_cache, load_model
from launchplan.memory.params import layout
from launchplan.memory.weights import plan_weights

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "tests" / "parity" / "data" / "results-model-params.jsonl"
BUNDLED = ROOT / "src" / "launchplan" / "facts" / "data" / "models"


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def _config(source: str) -> dict:
    """A bundled model's, a parity fixture's or a shipped Hub config, by repository path."""
    path = ROOT / source if "/" in source else BUNDLED / source
    return json.loads((path / "config.json").read_text())


def _quantized(source: str) -> bool:
    """Whether a recorded folder's checkpoint is quantized: a ``quantization_config`` at the
    top or in its ``text_config`` (Kimi K3's), or ModelOpt's ``hf_quant_config.json``."""
    cfg = _config(source)
    text = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else {}
    return ("quantization_config" in cfg or "quantization_config" in text
            or (ROOT / source / "hf_quant_config.json").exists())


def _params(tmp_path: Path, config: dict, arch: str | None = None) -> int:
    """Parameters launchplan plans on one GPU, vocabulary padding included as SGLang
    allocates it (bf16 checkpoints: two bytes each, float32 tensors four; the RoPE table is
    a buffer, and an MLA model's absorbed w_kc/w_vc copies are made at load, so neither is a
    class parameter)."""
    if arch is not None:
        config = {**config, "architectures": [arch]}
    folder = tmp_path / (arch or "as-given")
    folder.mkdir(exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    clear_cache()
    model = load_model(str(folder))
    breakdown = plan_weights(model).breakdown
    total = sum(b for component, b in breakdown.items()
                if component not in ("rope_cache", "mla_absorbed"))
    assert total % 2 == 0
    # a float32 tensor (a router's correction bias) takes four bytes a parameter, not two
    lay = layout(model.config, model.text_config, model.model_type, model.text_model_type,
                 model.arch0)
    fp32 = sum(t.params for t in lay.main if t.fp32 and not t.padding)
    return int(total // 2) - fp32


@pytest.mark.parametrize(("base", "backbone", "arch"), [
    ("qwen2.5-7b", "Qwen2Model", "Qwen2ForRewardModel"),
    ("qwen3-8b", "Qwen3Model", "Qwen3ForRewardModel"),
])
def test_qwen_reward_models_add_a_two_linear_score(tmp_path, base, backbone, arch):
    cfg = _config(base)
    h = cfg["hidden_size"]
    added = _params(tmp_path, cfg, arch) - _params(tmp_path, cfg, backbone)
    assert added == h * h + h + h + 1


@pytest.mark.parametrize(("base", "backbone", "arch", "bias"), [
    ("qwen2.5-7b", "Qwen2Model", "Qwen2ForSequenceClassification", True),
    ("qwen3-8b", "Qwen3Model", "Qwen3ForSequenceClassification", True),
])
@pytest.mark.parametrize("labels", [None, 1, 3])
def test_sequence_classification_adds_one_score_per_label(tmp_path, base, backbone, arch,
                                                          bias, labels):
    """Labels come from ``id2label``, else ``num_labels``, else transformers' default two."""
    cfg = _config(base)
    if labels is not None:
        cfg["id2label"] = {str(i): f"LABEL_{i}" for i in range(labels)}
    h, n = cfg["hidden_size"], labels or 2
    added = _params(tmp_path, cfg, arch) - _params(tmp_path, cfg, backbone)
    assert added == n * h + (n if bias else 0)


@pytest.mark.parametrize("fixture", ["skywork-reward-llama-3.1-8b",
                                     "skywork-reward-gemma-2-27b"])
def test_llama_and_gemma2_classifiers_have_no_bias(tmp_path, fixture):
    cfg = _config(f"tests/parity/models/{fixture}")
    labels = len(cfg["id2label"])
    backbone = "LlamaModel" if "llama" in fixture else "Gemma2Model"
    added = _params(tmp_path, cfg) - _params(tmp_path, cfg, backbone)
    assert added == labels * cfg["hidden_size"]


def test_recorded_model_classes_agree(tmp_path):
    """Every recorded class of a bf16 checkpoint: launchplan's parameters on one GPU are
    SGLang's."""
    rows = [json.loads(ln) for ln in RECORDED.read_text().splitlines() if ln.strip()]
    rows = [r for r in rows if r["ok"] and not _quantized(r["model"])]
    assert len(rows) >= 10
    for row in rows:
        cfg = _config(row["model"])
        got = _params(tmp_path, cfg, row.get("architecture"))
        assert got == row["params_rank0"], row["name"]


def test_recorded_quantized_checkpoints_agree_before_quantization():
    """Every recorded class of a quantized checkpoint (SGLang's built without its quant
    config): launchplan's tensors, before their bytes are priced, hold as many parameters."""
    rows = [json.loads(ln) for ln in RECORDED.read_text().splitlines() if ln.strip()]
    rows = [r for r in rows if r["ok"] and _quantized(r["model"]) and not r.get("architecture")]
    assert rows
    for row in rows:
        m = load_model(str(ROOT / row["model"]))
        lay = layout(m.config, m.text_config, m.model_type, m.text_model_type, m.arch0)
        ours = sum(t.params for t in lay.main if t.component != "rope_cache" and not t.padding)
        assert ours == row["params_rank0"], row["name"]


def test_apertus_counts_an_ungated_mlp_with_its_activation_scalars():
    """Apertus-8B (its 4-bit file, counted before quantization): up and down projections around
    xIELU, whose two learned scalars and the q/k norms each layer holds; SGLang 0.5.23's class
    built on the meta device holds exactly as many (the recorded row)."""
    row = next(json.loads(ln) for ln in RECORDED.read_text().splitlines()
               if ln.strip() and json.loads(ln)["name"] == "apertus-8b")
    m = load_model(str(ROOT / row["model"]))
    lay = layout(m.config, m.text_config, m.model_type, m.text_model_type, m.arch0)
    ours = sum(t.params for t in lay.main if t.component != "rope_cache" and not t.padding)
    assert ours == row["params_rank0"] == 8_053_338_176


def test_qwen3_5_file_without_deepstack_keys_takes_the_config_class_defaults():
    """A Qwen3.5-9B file whose vision_config leaves out deepstack_visual_indexes: SGLang's
    Qwen3VLVisionConfig fills in (8, 16, 24), so the tower holds three deepstack mergers;
    SGLang 0.5.23's class built on the meta device holds 9,530,191,600 parameters. (Not a
    recorded row: its RoPE table, the partial factor kept only in rope_parameters, is still
    counted at the full head width.)"""
    m = load_model(str(ROOT / "tests" / "parity" / "models" / "qwen3.5-9b"))
    lay = layout(m.config, m.text_config, m.model_type, m.text_model_type, m.arch0)
    ours = sum(t.params for t in lay.main if t.component != "rope_cache" and not t.padding)
    assert ours == 9_530_191_600
