"""Vision towers per GPU: each family's replicated part plus its split part over the group
SGLang 0.5.23's model class splits it over (``memory/vision.py`` holds the table).

Each expectation restates, from the checkpoint's ``config.json`` values, which tensors the
family's SGLang class builds as column/row-parallel linears (and over which group) and which
it keeps whole; nothing here is read back from launchplan's own table. The recording
``tests/parity/data/results-vision-params.jsonl`` (``tools/record_vision_params.py``: SGLang
0.5.23's own tower classes built on the meta device under each launch) is the truth the
last test replays.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.facts.models import clear_cache, load_model
from launchplan.facts.models.snapshots import snapshot_folder
from launchplan.memory.vision import FAMILIES, family_of
from launchplan.memory.weights import Parallel, plan_weights
from launchplan.planner import resolve

BF16 = 2


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def _hub(hub: str):
    folder = snapshot_folder(hub)
    assert folder is not None
    return load_model(str(folder))


def _vision(model, **par) -> float:
    return plan_weights(model, Parallel(**par)).breakdown.get("vision", 0)


def _qwen3_vl_2b() -> tuple[int, int, int]:
    """Qwen3-VL-2B's tower (hidden 1024, 24 blocks, MLP 4096, out 2048, 3 deepstack
    mergers, 2304 positions, 16x16x2 patches): (whole, split over attention TP, position
    table split like a vocabulary)."""
    h, depth, inter, out, deep, mh = 1024, 24, 4096, 2048, 3, 4096
    whole = h * (3 * 2 * 16 * 16 + 1)  # Conv3d patch embedding with its bias
    whole += depth * (4 * h + h + h)  # two LayerNorms; proj's and fc2's biases (row-parallel)
    whole += 2 * h + deep * 2 * mh + (1 + deep) * out  # merger norms; linear_fc2 biases
    split = depth * (3 * h * (h + 1) + h * h + inter * (h + 1) + h * inter)
    split += (1 + deep) * (mh * (mh + 1) + out * mh)
    return whole, split, 2304 * h


@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_qwen3_vl_tower_splits_over_attention_tp(tp):
    m = _hub("Qwen/Qwen3-VL-2B-Instruct")
    whole, split, pos = _qwen3_vl_2b()
    assert _vision(m, tp=tp) == round(BF16 * (whole + (split + pos) / tp))
    # the whole tower's parameters are what the family counted before any split
    assert _vision(m, tp=1) == BF16 * (whole + split + pos)


def test_qwen3_vl_under_attention_dp_and_the_dp_encoder():
    m = _hub("Qwen/Qwen3-VL-2B-Instruct")
    whole, split, pos = _qwen3_vl_2b()
    # attention DP 4 of tp 4: attention TP 1, so the tower (and its position table) is whole
    assert _vision(m, tp=4, attn_tp=1, dp_attention=True) == BF16 * (whole + split + pos)
    # attention DP 2 of tp 4: everything over the 2-GPU attention-TP group
    assert _vision(m, tp=4, attn_tp=2, dp_attention=True) == round(
        BF16 * (whole + (split + pos) / 2))
    # --mm-enable-dp-encoder: Qwen3-VL builds its tower with use_data_parallel: whole
    assert _vision(m, tp=8, encoder_dp=True) == BF16 * (whole + split + pos)


@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_qwen2_5_vl_attention_over_attention_tp_mlp_and_merger_over_tp(tp):
    m = load_model("qwen2.5-vl-7b")
    # the MLP width 3420 rounded up to a multiple of 8 as SGLang allocates it
    h, depth, inter, out, mh = 1280, 32, 3424, 3584, 5120
    whole = h * 3 * 2 * 14 * 14  # Conv3d patch embedding, no bias
    whole += depth * (2 * h + h + h) + h + out  # RMS norms, row biases, ln_q, mlp.2's bias
    attn = depth * (3 * h * (h + 1) + h * h)
    mlp = depth * (2 * inter * (h + 1) + h * inter) + mh * (mh + 1) + out * mh
    assert _vision(m, tp=tp) == round(BF16 * (whole + attn / tp + mlp / tp))
    # attention DP with attention TP 1: attention whole, the MLPs still over the full TP
    assert _vision(m, tp=tp, attn_tp=1, dp_attention=tp > 1) == round(
        BF16 * (whole + attn + mlp / tp))
    assert _vision(m, tp=tp, encoder_dp=True) == BF16 * (whole + attn + mlp)


@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_gemma3_siglip_splits_and_ignores_the_dp_encoder(tp):
    m = load_model("gemma-3-27b")
    h, depth, inter, text, positions = 1152, 27, 4304, 5376, (896 // 14) ** 2
    whole = h * (3 * 14 * 14 + 1) + depth * (4 * h + h + h) + 2 * h  # conv, norms, row biases
    whole += h * text + h  # Gemma3MultiModalProjector: a Parameter and an RMS norm
    split = depth * (3 * h * (h + 1) + h * h + inter * (h + 1) + h * inter)
    expect = round(BF16 * (whole + (split + positions * h) / tp))
    assert _vision(m, tp=tp) == expect
    # Gemma3ForConditionalGeneration builds SigLIP without use_data_parallel
    assert _vision(m, tp=tp, encoder_dp=True) == expect


@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_kimi_k25_moonvit_splits_its_attention_only(tp):
    m = _hub("moonshotai/Kimi-K2.5")
    h, depth, inter, text, mh = 1152, 27, 4304, 7168, 4608
    whole = h * (3 * 14 * 14 + 1) + 64 * 64 * h  # patch embedding, position table
    whole += depth * (4 * h + h + inter * (h + 1) + h * (inter + 1))  # norms, proj bias, MLP2
    whole += 2 * h + 2 * h + mh * (mh + 1) + text * (mh + 1)  # final norm, projector
    attn = depth * (3 * h * (h + 1) + h * h)
    assert _vision(m, tp=tp) == round(BF16 * (whole + attn / tp))
    assert _vision(m, tp=tp, encoder_dp=True) == BF16 * (whole + attn)


@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_kimi_k3_tower_is_whole_on_every_gpu(tp):
    m = _hub("moonshotai/Kimi-K3")
    h, qh, depth, inter, text, mh = 1024, 1536, 27, 4096, 7168, 4096
    # no biases (attn_bias, linear_bias, patch_embed_proj_bias false), RMS norms
    whole = h * 3 * 14 * 14 + 64 * 64 * h
    whole += depth * (3 * qh * h + h * qh + inter * h + h * inter + 2 * h) + h
    whole += mh * mh + text * mh + text  # projector: two unbiased linears, an RMS norm
    assert _vision(m, tp=tp) == BF16 * whole


@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_gemma4_tower_splits_over_tp(tp):
    m = _hub("google/gemma-4-26B-A4B")
    h, depth, inter, hd, text = 1152, 27, 4304, 72, 2816
    whole = h * 3 * 16 * 16 + 2 * 10240 * h + depth * (2 * hd + 4 * h) + text * h
    split = depth * (48 * hd * h + h * 16 * hd + 2 * inter * h + h * inter)
    assert _vision(m, tp=tp) == round(BF16 * (whole + split / tp))
    assert _vision(m, tp=tp, encoder_dp=True) == round(BF16 * (whole + split / tp))


def test_pipeline_ranks_holding_the_tower():
    """Qwen-VL classes build the tower on every pipeline rank (Qwen3-VL's position table on
    the first only); Gemma 4 on the first rank only."""
    m = _hub("Qwen/Qwen3-VL-2B-Instruct")
    whole, split, pos = _qwen3_vl_2b()
    staged = plan_weights(m, Parallel(pp=2))
    assert staged.breakdown["vision"] in (BF16 * (whole + split + pos), BF16 * (whole + split))
    last = plan_weights(m, Parallel(pp=2, tp=1)).bytes_per_gpu
    assert last >= BF16 * (whole + split)
    g4 = _hub("google/gemma-4-26B-A4B")
    one = plan_weights(g4, Parallel(pp=1)).breakdown["vision"]
    two = plan_weights(g4, Parallel(pp=2))
    assert two.breakdown.get("vision", 0) in (0, one)


def test_every_family_has_a_source_and_known_splits():
    kinds = {"replicated", "tp", "attn_tp", "vision_tp", "vision_attn_tp", "vision_pos",
             "vision_pos_tp", "vision_pos_attn"}
    for name, fam in FAMILIES.items():
        assert fam.source.split()[0].endswith(".py"), name
        assert {fam.attn, fam.mlp, fam.merger, fam.pos} <= kinds, name
    assert family_of("qwen3_5_moe", {"hidden_size": 1152}) == "qwen3_vl"
    assert family_of("kimi_k25", {"vt_hidden_size": 1152}) == "moonvit"
    assert family_of("kimi_k3", {"vt_hidden_size": 1024}) == "moonvit_k3"
    assert family_of("qwen3_omni_moe", {"hidden_size": 1152}) == "qwen3_omni"
    assert family_of("glm4v_moe", {"hidden_size": 1536}) == "glm4v"
    assert family_of("locateanything", {"hidden_size": 1152}) == "moonvit_vl"
    # Pixtral's tower is told by its own config's type, whichever class holds it
    for parent in ("llava", "mistral3"):
        assert family_of(parent, {"model_type": "pixtral", "hidden_size": 1024}) == "pixtral"
    assert family_of("llava", {"model_type": "clip_vision_model"}) == "siglip"
    assert family_of("glm_ocr", {"hidden_size": 1024}) == "glm4v"
    assert family_of("paddleocr_vl", {"hidden_size": 1152}) == "paddleocr_vl"
    assert family_of("cohere2_vision", {"hidden_size": 1152}) == "hf_siglip"


def test_the_dp_encoder_flag_reaches_the_plan():
    """A resolved launch's ``--mm-enable-dp-encoder`` makes Qwen3-VL's tower whole."""
    path = str(snapshot_folder("Qwen/Qwen3-VL-2B-Instruct"))
    whole, split, pos = _qwen3_vl_2b()
    from launchplan.memory.weights import weights_per_gpu
    plain = weights_per_gpu(resolve(["--tp-size", "4"], gpu="h100", model_path=path))
    dp = weights_per_gpu(resolve(["--tp-size", "4", "--mm-enable-dp-encoder"], gpu="h100",
                                 model_path=path))
    assert plain.breakdown["vision"] == round(BF16 * (whole + (split + pos) / 4))
    assert dp.breakdown["vision"] == BF16 * (whole + split + pos)
    assert dp.bytes_per_gpu - plain.bytes_per_gpu == pytest.approx(
        BF16 * (split + pos) * 3 / 4, abs=2)


RECORDED = Path(__file__).parents[1] / "parity" / "data" / "results-vision-params.jsonl"
ROOT = Path(__file__).parents[2]
DATA = ROOT / "src" / "launchplan" / "facts" / "data"


def _recorded() -> list[dict]:
    return [json.loads(line) for line in RECORDED.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("row", [r for r in _recorded() if r["ok"]], ids=lambda r: r["name"])
def test_recorded_sglang_towers_per_gpu(row):
    """Rank 0's vision parameters as SGLang 0.5.23's classes build them (14 families at tp 1
    to 8, the DP encoder, attention DP 2 and 4 of tp 4) equal launchplan's vision bytes a
    GPU over the dtype's 2 bytes (GLM-4V's at tp 8 with its dummy heads: 12 padded to 16);
    Qwen3-Omni's audio encoder, recorded as a family of its own, its audio bytes."""
    model = row["model"]
    path = (DATA / "hub" / model.removeprefix("shipped/") if model.startswith("shipped/")
            else ROOT / model if model.startswith("tests/") else DATA / "models" / model)
    from launchplan.memory.weights import weights_per_gpu
    plan = weights_per_gpu(resolve(row["argv"], gpu="h100", model_path=str(path)))
    component = "audio" if row["family"].endswith("_audio") else "vision"
    assert plan.breakdown[component] == BF16 * row["params_rank0"]


def test_recorded_refusals_are_the_towers_without_an_attention_tp_reduce():
    """SGLang refuses to build Qwen2.5-VL's, SigLIP's (Gemma 3's and PaddleOCR-VL's),
    Pixtral's (under LightOnOCR and Mistral 3), Llama 3.2 Vision's and Qwen3-Omni's audio
    ``VisionAttention``, and the ``MLP2`` of Kimi-VL's MoonViT under LocateAnything, over an
    attention TP narrower than TP (they reduce over full TP), and Qwen3-Omni's audio attention
    over 8 GPUs (its 20 heads); the other families build. launchplan plans their weights all
    the same (the refusal is not modelled)."""
    refused = {r["family"] for r in _recorded() if not r["ok"]}
    assert refused == {"qwen2_5_vl", "siglip", "mllama", "moonvit_vl", "qwen3_omni_audio",
                       "pixtral", "pixtral_mistral3", "paddleocr_vl", "llava_hf"}
    for r in _recorded():
        if not r["ok"] and r["family"] == "llava_hf":
            continue  # (test_transformers_format_llava_fails_to_build_on_every_launch)
        if not r["ok"] and r["argv"] == ["--tp-size", "8"]:
            assert r["family"] == "qwen3_omni_audio"
            assert "20 is not divisible by 8" in r["error"], r
        elif not r["ok"]:
            assert "all-reduces over the full TP group" in r["error"], r
            assert "--dp-size" in r["argv"] and r["argv"][r["argv"].index("--dp-size") + 1] == "2"


def test_transformers_format_llava_fails_to_build_on_every_launch():
    """LLaVA 1.5 in transformers' format: SGLang's LlavaForConditionalGeneration finds no class
    of its own for the CLIP tower, falls back to its transformers backend, and that fails on
    every recorded launch; preflight's ``llava-tower-class`` row says so for each."""
    from launchplan.checks.preflight import preflight

    rows = [r for r in _recorded() if r["family"] == "llava_hf"]
    assert len(rows) == 7 and not any(r["ok"] for r in rows)
    for r in rows:
        assert "num_embeddings" in r["error"], r
        verdict = preflight(resolve(r["argv"], gpu="h100", model_path=str(ROOT / r["model"])))
        assert "llava-tower-class" in {p.requirement for p in verdict.problems}
