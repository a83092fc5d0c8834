"""InternVL's InternViT tower and mlp1 projector against SGLang 0.5.23's own builds.

Weights: what SGLang's ``InternVLChatModel`` holds on one GPU when built on the meta device at
TP 1 (``tests/parity/tools/record_model_params.py``'s machinery in the oracle's venv, the h11
round). ``internvl3-1b`` (``tests/parity/models/``) is OpenGVLab/InternVL3-1B: InternViT-300M
(LayerNorm, biased qkv, no q/k norms). The InternViT-6B case is DERIVED, not a Hub file: that
file with ``vision_config`` set to InternViT-6B-448px-V2_5's published dimensions (width 3200,
25 heads, MLP 12800, 45 layers, RMSNorm, q/k norms, no qkv bias), the tower of
InternVL2.5/3-38B/78B; SGLang built it to 6,178,503,680 parameters.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from launchplan.facts.models import clear_cache, load_model
from launchplan.memory.weights import _layout
from tests.memory.built_params import built_params, load_written

MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"
#: InternViT-6B-448px-V2_5's published vision dimensions
VIT_6B = {"hidden_size": 3200, "num_attention_heads": 25, "intermediate_size": 12800,
          "num_hidden_layers": 45, "qk_normalization": True, "norm_type": "rms_norm",
          "qkv_bias": False}


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def _internvl3_1b() -> dict[str, Any]:
    return json.loads((MODELS / "internvl3-1b" / "config.json").read_text())


def _vit_6b(tmp_path: Path) -> Any:
    config = _internvl3_1b()
    config["vision_config"] = {**config["vision_config"], **VIT_6B}
    return load_written(tmp_path, config)


def _vision(model: Any, prefix: str = "") -> int:
    return sum(t.params for t in _layout(model).main
               if t.component == "vision" and t.name.startswith(prefix))


def test_internvl3_1b_is_what_sglang_builds():
    """938,203,776 parameters: the tower's embeddings 1,653,760 and encoder 302,358,528 (ls1
    and ls2 among them), mlp1 4,482,816 (LayerNorm 4096, 4096 -> 896, 896 -> 896), the
    language model 629,708,672; nothing left out, so no projector caveat."""
    model = load_model(str(MODELS / "internvl3-1b"))
    assert built_params(model) == 938_203_776
    assert _vision(model, "vision_model.embeddings") == 1_653_760
    assert _vision(model, "vision_model.encoder") == 302_358_528
    assert _vision(model, "mlp1") == 8_192 + 3_670_912 + 803_712
    assert not [c for c in _layout(model).caveats if "not counted" in c]


def test_internvit_6b_reads_norm_type_qk_norm_and_qkv_bias(tmp_path):
    """InternViT-6B's blocks: qkv without a bias, RMSNorm weights only, q/k norms over the
    whole width and ls1/ls2: 122,918,400 a layer; mlp1 over 12,800 pixel-shuffled values."""
    model = _vit_6b(tmp_path)
    assert built_params(model) == 6_178_503_680
    assert _vision(model, "vision_model.encoder") == 45 * 122_918_400
    assert _vision(model, "mlp1") == 2 * 12_800 + 12_800 * 896 + 896 + 896 * 896 + 896


def test_internvit_layer_scales_and_norms_follow_the_file(tmp_path):
    """Each key moves its own tensors: LayerNorm adds a bias per norm (2 x 3200 a layer), a
    qkv bias 3 x 3200, q/k norms 2 x 3200, and downsample_ratio sizes mlp1's input."""
    base = _vision(_vit_6b(tmp_path), "vision_model.encoder")
    for change, delta in (({"norm_type": "layer_norm"}, 6_400), ({"qkv_bias": True}, 9_600),
                          ({"qk_normalization": False}, -6_400)):
        config = _internvl3_1b()
        config["vision_config"] = {**config["vision_config"], **VIT_6B, **change}
        assert _vision(load_written(tmp_path, config), "vision_model.encoder") \
            == base + 45 * delta, change
    config = {**_internvl3_1b(), "downsample_ratio": 0.25}
    wide = 1024 * 16
    assert _vision(load_written(tmp_path, config), "mlp1") \
        == 2 * wide + wide * 896 + 896 + 896 * 896 + 896


def test_internvit_splits_as_sglang_builds_it():
    """VisionAttention over attention TP by heads (dummy heads fill the group), InternMLP over
    TP, both whole under --mm-enable-dp-encoder; embeddings, norms, layer scales and mlp1
    plain parameters / nn.Linear, whole on every GPU."""
    model = load_model(str(MODELS / "internvl3-1b"))
    shards = {t.name: (t.shard, t.heads) for t in _layout(model).main
              if t.component == "vision"}
    b = "vision_model.encoder.layers.{i}"
    assert shards[f"{b}.attn.qkv_proj"] == ("vision_attn_heads", 16)
    assert shards[f"{b}.attn.proj"] == ("vision_attn_heads", 16)
    assert shards[f"{b}.mlp.fc1"][0] == "vision_tp"
    assert shards[f"{b}.ls1_ls2"][0] == "replicated"
    assert shards["vision_model.embeddings.position_embedding"][0] == "replicated"
    assert {shards[n][0] for n in ("mlp1.0", "mlp1.1", "mlp1.3")} == {"replicated"}
