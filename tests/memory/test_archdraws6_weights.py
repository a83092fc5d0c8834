"""Weights of the archdraws6 checkpoints against their published counts and SGLang's classes.

Each expectation restates sizes from the checkpoint's ``config.json`` (tests/parity/models) or
cites a published figure; ``results-model-params.jsonl`` and ``results-vision-params.jsonl``
(SGLang 0.5.23's classes built on the meta device) hold the same models, replayed by
``test_pooling_heads.py`` and ``test_vision_weights.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from launchplan.facts.models import clear_cache, load_model
from launchplan.memory.weights import Parallel, checkpoint_size, plan_weights

MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def _model(name: str):
    return load_model(str(MODELS / name))


def test_hy3_matches_its_published_parameter_count():
    # tencent/Hy3 (its config field for field Hy3-preview's, per the audit that saved the file):
    # a public write-up of its fixed revision sums the safetensors headers to 298,786,140,416
    # BF16 and 15,360 F32 parameters (code corpus id 55746397193). Before, the shared expert
    # of every MoE layer (num_shared_experts, as wide as a routed one), the q/k norms (qk_norm)
    # and the MTP layer were missing: 5.24B
    m = _model("hy3-preview")
    params, _ = checkpoint_size(m)
    assert params == 298_786_140_416 + 15_360
    h, experts, inter, layers = 4096, 192, 1536, 80
    moe = layers - 1  # the first layer is dense
    one = plan_weights(m, Parallel(tp=1))
    assert one.breakdown["shared_experts"] == 2 * moe * 3 * h * inter
    # the router a float32 ReplicatedLinear beside a float32 expert bias (hunyuan_v3.py)
    assert one.breakdown["router"] == 4 * moe * (experts * h + experts)
    # the shared expert over plain TP, the router whole
    two = plan_weights(m, Parallel(tp=2))
    assert two.breakdown["shared_experts"] == one.breakdown["shared_experts"] / 2
    assert two.breakdown["router"] == one.breakdown["router"]


def test_hy3_mtp_draft_is_its_one_nextn_layer():
    # HYV3ForCausalLMNextN: one MoE decoder layer, enorm, hnorm, eh_proj and the shared head's
    # norm; the checkpoint stores no embedding or head for it (the published count above), the
    # class builds its own until the target's are handed over
    m = _model("hy3-preview")
    h, experts, inter, heads, kv, hd = 4096, 192, 1536, 64, 8, 128
    layer = (2 * heads * hd * h + 2 * kv * hd * h + 2 * hd + 2 * h
             + experts * 3 * h * inter + 3 * h * inter + experts * h + experts)
    nextn = layer + 3 * h + 2 * h * h
    main = plan_weights(m, Parallel(tp=1))
    draft = plan_weights(m, Parallel(tp=1), mtp_draft=True)
    assert draft.draft_params == nextn
    assert checkpoint_size(m)[0] == main.total_params + nextn
    assert not plan_weights(m, Parallel(tp=1)).draft_params


def test_glm_4_text_models_have_four_norms_and_no_output_bias():
    # Glm4Model (glm4.py), GLM-4.1V's and GLM-OCR's text model: post_self_attn_layernorm and
    # post_mlp_layernorm beside the usual two, and attention_bias biasing q/k/v only
    for name, h, layers, q, kv in (("glm-4.1v-9b-thinking", 4096, 40, 4096, 256),
                                   ("glm-ocr", 1536, 16, 2048, 1024)):
        one = plan_weights(_model(name), Parallel(tp=1)).breakdown
        assert one["norms"] == 2 * (4 * layers * h + h), name
        bias = q + 2 * kv if name.startswith("glm-4.1v") else 0  # GLM-OCR: attention_bias off
        assert one["attention"] == 2 * layers * (2 * q * h + 2 * kv * h + bias), name


def test_glm_ocr_tower_and_mtp_layer():
    # GlmOcrVisionBlock: a biased qkv and output projection, per-head q/k norms and a biased
    # gated MLP as wide as the vision intermediate_size; GLM-4V's position table and
    # post-convolution norm stay allocated under its class
    m = _model("glm-ocr")
    h, depth, inter, heads, out_h, positions = 1024, 24, 4096, 16, 1536, (336 // 14) ** 2
    block = (3 * h * (h + 1) + h * h + h + 2 * (h // heads) + 2 * inter * (h + 1)
             + h * inter + h + 2 * h)
    tower = (h * (3 * 2 * 14 * 14 + 1) + positions * h + depth * block + 2 * h
             + out_h * (4 * h + 1) + out_h * out_h + 2 * out_h + 3 * inter * out_h)
    one = plan_weights(m, Parallel(tp=1))
    assert one.breakdown["vision"] == 2 * tower
    assert not one.caveats
    # GlmOcrForConditionalGenerationNextN: one dense Glm4DecoderLayer and DeepSeek's MTP module
    th, q, kv, mlp = 1536, 2048, 1024, 4608
    nextn = 2 * q * th + 2 * kv * th + 4 * th + 3 * th * mlp + 3 * th + 2 * th * th
    assert plan_weights(m, Parallel(tp=1), mtp_draft=True).draft_params == nextn


def test_lightonocr_matches_its_published_parameter_count():
    # the Hub API's answer saved beside the file (hlky/dinoml_v2, api_model.json): 1,005,647,872
    # BF16 parameters. Its Pixtral tower was taken for SigLIP's (an ungated MLP, a position
    # table) and the Mistral 3 projector left out: 911M
    m = _model("lightonocr-2-1b-bbox-soup")
    params, _ = checkpoint_size(m)
    assert params == 1_005_647_872
    h, depth, inter, text = 1024, 24, 4096, 1024
    block = 4 * h * h + 3 * h * inter + 2 * h
    tower = h * 3 * 14 * 14 + h + depth * block
    projector = h + 4 * h * h + text * h + text * text  # multimodal_projector_bias false
    one = plan_weights(m, Parallel(tp=1))
    assert one.breakdown["vision"] == 2 * (tower + projector)
    # attention over attention TP, the gated MLP over TP, the rest whole
    two = plan_weights(m, Parallel(tp=2)).breakdown["vision"]
    assert one.breakdown["vision"] - two == depth * (4 * h * h + 3 * h * inter)


def test_paddleocr_vl_ties_its_embeddings_as_its_config_class_does():
    # the file says tie_word_embeddings false at its top level, but transformers 5's
    # PaddleOCRVLConfig builds the flat file's text sub-config from defaults (tie on) and ties
    # the model when that sub-config does: SGLang's Ernie4_5_ForCausalLM builds no head
    m = _model("paddleocr-vl")
    one = plan_weights(m, Parallel(tp=1))
    assert "lm_head" not in one.breakdown
    # its SigLIP (LayerNorm blocks of biased attention and MLP) keeps a 32,768-row packing
    # position table beside the 27x27 one; mlp_AR: a LayerNorm and two biased linears over the
    # 2x2-merged patches, whole on every GPU
    h, inter, depth, text = 1152, 4304, 27, 1024
    layer = 4 * h + 4 * h * (h + 1) + inter * (h + 1) + h * (inter + 1)
    tower = h * (3 * 14 * 14 + 1) + (27 * 27 + 32768) * h + depth * layer + 2 * h
    projector = 2 * h + 4 * h * (4 * h + 1) + text * (4 * h + 1)
    assert one.breakdown["vision"] == 2 * (tower + projector)
    # attention over attention TP, fc1/fc2 over TP, their row-parallel biases whole
    two = plan_weights(m, Parallel(tp=2)).breakdown["vision"]
    assert one.breakdown["vision"] - two == depth * (3 * h * (h + 1) + h * h
                                                     + inter * (h + 1) + h * inter)


def test_text_config_tie_follows_the_sub_config_or_its_class():
    """A VLM class that forwards its text sub-config's tie: the sub-config's own key wins over
    the text class's default, and a parent outside the table keeps the top level's word."""
    import json

    from launchplan.memory.params import layout

    base = json.loads((MODELS / "paddleocr-vl" / "config.json").read_text())
    arch = base["architectures"][0]
    cases = {("paddleocr_vl", None): True,  # flat: the text class's default, tie on
             ("paddleocr_vl", False): False, ("paddleocr_vl", True): True,
             ("glm4v", None): False, ("glm4v", True): True,  # Glm4vTextConfig: no default
             ("ernie4_5", None): False}  # not a forwarding class: the top level's false
    for (model_type, sub_tie), tied in cases.items():
        cfg = dict(base)
        if sub_tie is not None:
            cfg["text_config"] = {"tie_word_embeddings": sub_tie}
        names = {t.name for t in layout(cfg, base, model_type, None, arch).main}
        assert ("lm_head" not in names) is tied, (model_type, sub_tie)


def test_command_r_layers_have_one_norm():
    # commandr.py's decoder layer: input_layernorm alone before the parallel attention and MLP
    for name, h, layers in (("c4ai-command-r-v01", 8192, 40),
                            ("c4ai-command-r7b-12-2024", 4096, 32)):
        assert plan_weights(_model(name), Parallel(tp=1)).breakdown["norms"] == \
            2 * (layers * h + h), name


def test_command_a_vision_counts_its_alignment_mlp():
    # cohere2_vision.py: transformers' SiglipVisionModel (nn.Linear throughout: whole on every
    # GPU) and the alignment SwiGLU over the pixel-shuffled 2x2 patches, both halves of
    # alignment_intermediate_size in linear_1 (column-parallel), linear_2 row-parallel
    m = _model("command-a-vision-07-2025-4bit")
    h, text, half = 1152, 12288, 36864 // 2
    projector = 2 * half * (4 * h + 1) + text * half + text
    one = plan_weights(m, Parallel(tp=1)).breakdown["vision"]
    two = plan_weights(m, Parallel(tp=2)).breakdown["vision"]
    assert one - two == 2 * half * (4 * h + 1) + text * half  # half of each split tensor x2
    assert one > 2 * projector
