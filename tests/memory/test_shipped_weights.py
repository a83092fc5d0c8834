"""Parameter counts of the shipped Hub configs whose layouts needed their own classes, against
the totals their publishers give: DeciLM's per-layer blocks, Llama 4's interleaved MoE with
a shared expert, Qwen3.5/3.6's Gated DeltaNet hybrid (with its MTP layer and Qwen3-VL's
vision tower), MiMo-V2-Flash's per-layer MoE flags and sliding-window heads, Kimi-K3's
Kimi Delta Attention and latent MoE; and the bytes of a ModelOpt mixed-precision checkpoint.

Totals compare the main stack (what a model's name counts), not MTP layers stored beside it.
"""

from __future__ import annotations

import pytest

from launchplan.facts.models.loading import load_model
from launchplan.facts.models.snapshots import snapshot_folder
from launchplan.memory.quant_bytes import Scheme
from launchplan.memory.weights import _bytes, _checkpoint_scheme, _layout, checkpoint_size

#: Hub id -> total parameters as published, and where
PUBLISHED = {
    # model card: "approximately 49B", Neural Architecture Search from Llama-3.3-70B
    "nvidia/Llama-3_3-Nemotron-Super-49B-v1": 49e9,
    # transformers' Llama 4 documentation: "two flavors: 109B, and 402B parameters"
    # (the shipped configs carry no vision_config: the ~0.9B vision tower is not counted)
    "meta-llama/Llama-4-Scout-17B-16E-Instruct": 109e9,
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct": 402e9,
    # the checkpoints' names (Qwen3.5 model cards: 27B dense, 35B/122B/397B MoE)
    "Qwen/Qwen3.5-27B": 27e9,
    "Qwen/Qwen3.5-35B-A3B": 35e9,
    "Qwen/Qwen3.5-122B-A10B": 122e9,
    "Qwen/Qwen3.5-397B-A17B": 397e9,
    "nvidia/Qwen3.6-27B-NVFP4": 27e9,
    "nvidia/Qwen3.6-35B-A3B-NVFP4": 35e9,
    # Xiaomi's MiMo-V2-Flash model card: 309B total parameters, 15B active
    "XiaomiMiMo/MiMo-V2-Flash": 309e9,
    # vLLM's Step-3.7-Flash recipe: a 196B language backbone (plus a 1.8B vision encoder
    # the text-only config does not describe)
    "stepfun-ai/Step-3.7-Flash": 196e9,
    # Kimi K2's report: 1.04 trillion total parameters (K2.5 adds the 0.5B MoonViT tower)
    "moonshotai/Kimi-K2.5": 1.04e12,
    "nvidia/Kimi-K2.7-Code-NVFP4": 1.04e12,
    # Gemma 4 26B-A4B: 25.82B, what SGLang 0.5.23's Gemma4ForConditionalGeneration builds on
    # the meta device from this config (tools/record_model_params.py's machinery: each MoE
    # layer keeps a dense MLP beside its experts; the model details quoted by a Hub mirror say
    # "25.2B total"); the 31B by its name
    "google/gemma-4-26B-A4B": 25.82e9,
    "nvidia/Gemma-4-31B-IT-NVFP4": 31e9,
    # configs checked with no change of class (regression guards), each its publisher's total:
    # NVIDIA's Nemotron-H-56B (the name), MiniMax-M2's card ("230B total, 10B active"),
    # Z.ai's GLM-5 ("744B total, 40B active"), DeepSeek-V4-Flash ("284B total, 13B
    # active"), Mistral's Mixtral-8x22B ("141B"), Meta's Llama 3.1 70B and 8B
    "nvidia/Nemotron-H-56B-Base-8K": 56e9,
    "MiniMaxAI/MiniMax-M2.5": 230e9,
    "zai-org/GLM-5.1": 744e9,
    "deepseek-ai/DeepSeek-V4-Flash": 284e9,
    "mistralai/Mixtral-8x22B-v0.1": 141e9,
    "nvidia/Llama-3.1-70B-Instruct-FP8": 70.6e9,
    "meta-llama/Meta-Llama-3.1-8B": 8.03e9,
    # Qwen3-VL model cards (the names; 8B: 8.77B on the Hub page)
    "Qwen/Qwen3-VL-2B-Instruct": 2.1e9,
    "Qwen/Qwen3-VL-4B-Instruct": 4.4e9,
    "Qwen/Qwen3-VL-8B-Instruct": 8.77e9,
    # configs shipped from earlier commits (tools/ship_hub_history.py), each its publisher's
    # total: Qwen3-Coder-30B-A3B-Instruct's model card (as committed with its config by
    # ztxz16/fastllm) and Qwen3-30B-A3B-Instruct-2507's: "30.5B in total and 3.3B
    # activated"; transformers' Qwen3-Next documentation: "80 billion parameters"; the
    # DeepSeek-V3 report's 671B (V3.1 and V3-0324 are post-trained V3, MTP not counted); the
    # Qwen2.5 model cards' 32.5B, 7.61B and 1.54B (R1-Distill-Qwen-32B is Qwen2.5-32B's shape)
    "Qwen/Qwen3-Coder-30B-A3B-Instruct": 30.5e9,
    "Qwen/Qwen3-30B-A3B-Instruct-2507": 30.5e9,
    "Qwen/Qwen3-Next-80B-A3B-Thinking": 80e9,
    "deepseek-ai/DeepSeek-V3.1": 671e9,
    "nvidia/DeepSeek-V3-0324-NVFP4": 671e9,
    "Qwen/Qwen3.6-35B-A3B": 35e9,
    "Qwen/Qwen2.5-32B": 32.5e9,
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B": 32.5e9,
    "Qwen/Qwen2.5-7B": 7.61e9,
    "Qwen/Qwen2.5-1.5B": 1.54e9,
    # shipped from tenstorrent's repositories: DeepSeek-V3.2-Exp is V3.2's shape (671B, MTP
    # not counted), Llama-3.1-70B-Instruct is the 70B's (70.6B)
    "deepseek-ai/DeepSeek-V3.2-Exp": 671e9,
    "meta-llama/Llama-3.1-70B-Instruct": 70.6e9,
    # shipped from sgl-project/ome: keras-hub's gemma3_instruct_1b preset, 999,885,952; the
    # Hub's 2.61B for gemma-2-2b-it
    "google/gemma-3-1b-it": 999_885_952,
    "google/gemma-2-2b-it": 2.61e9,
}


def _model(hub: str):
    folder = snapshot_folder(hub)
    assert folder is not None
    return load_model(str(folder))


def _main_total(hub: str) -> int:
    lay = _layout(_model(hub))
    assert not [c for c in lay.caveats if "unknown" in c or "not counted" in c], lay.caveats
    return sum(t.params for t in lay.main)


@pytest.mark.parametrize("hub", sorted(PUBLISHED))
def test_parameter_totals_match_the_published_ones(hub):
    total = _main_total(hub)
    assert abs(total / PUBLISHED[hub] - 1) < 0.02, total


def test_decilm_no_op_blocks_carry_no_weights():
    """Nemotron-Super-49B: layers whose attention is a no-op have no q/k/v/o and no input
    norm; every FFN is as wide as its own multiplier says."""
    model = _model("nvidia/Llama-3_3-Nemotron-Super-49B-v1")
    blocks = model.text_config["block_configs"]
    with_attn = [i for i, b in enumerate(blocks) if not b["attention"]["no_op"]]
    lay = _layout(model)
    q = [i for t in lay.main if t.name.endswith("q_proj") for i in t.layers]
    assert sorted(q) == with_attn and len(with_attn) < len(blocks)
    widths = {t.shape[0] for t in lay.main if t.name.endswith("mlp.up_proj")}
    assert len(widths) > 3  # one width per distinct ffn_mult


def test_llama4_dense_layers_use_the_wider_mlp_and_moe_layers_a_shared_expert():
    model = _model("meta-llama/Llama-4-Maverick-17B-128E-Instruct")
    text = model.text_config
    lay = _layout(model)
    dense = [t for t in lay.main if t.name.endswith("mlp.up_proj")]
    assert dense and all(t.shape[0] == text["intermediate_size_mlp"] for t in dense)
    shared = [t for t in lay.main if "shared_expert" in t.name]
    experts = [t for t in lay.main if ".experts." in t.name]
    assert shared and experts and shared[0].layers == experts[0].layers
    assert len(experts[0].layers) == text["num_hidden_layers"] // 2  # every other layer


def test_qwen3_5_hybrid_layers_and_its_mtp_layer():
    model = _model("Qwen/Qwen3.5-27B")
    lay = _layout(model)
    kinds = model.text_config["layer_types"]
    full = [i for t in lay.main if t.name.endswith("self_attn.q_proj") for i in t.layers]
    assert full == [i for i, k in enumerate(kinds) if k == "full_attention"]
    assert any("linear_attn" in t.name for t in lay.main)
    assert lay.mtp and any(t.name.startswith("mtp.") for t in lay.mtp)


def test_mimo_moe_flags_and_sliding_window_heads():
    model = _model("XiaomiMiMo/MiMo-V2-Flash")
    text = model.text_config
    lay = _layout(model)
    moe = {i for t in lay.main if ".experts." in t.name for i in t.layers}
    assert moe == {i for i, f in enumerate(text["moe_layer_freq"]) if f}
    swa_k = {t.shape for t in lay.main if t.name.endswith("k_proj")}
    assert swa_k == {(text["num_key_value_heads"] * text["head_dim"], text["hidden_size"]),
                     (text["swa_num_key_value_heads"] * text["swa_head_dim"],
                      text["hidden_size"])}


def test_kimi_k3_experts_work_in_the_latent_width_and_kda_layers_have_no_mla():
    model = _model("moonshotai/Kimi-K3")
    text = model.text_config
    lay = _layout(model)
    latent = text["routed_expert_hidden_size"]
    experts = [t for t in lay.main if ".experts." in t.name]
    assert experts and all(latent in t.shape for t in experts)
    mla = {i for t in lay.main if t.name.endswith("kv_a_proj_with_mqa") for i in t.layers}
    full = {i - 1 for i in text["linear_attn_config"]["full_attn_layers"]}
    assert mla == full
    # Moonshot's pre-release figure: "exceeds 2.5 trillion parameters"
    assert 2.5e12 < sum(t.params for t in lay.main) < 3e12


def test_modelopt_mixed_precision_stores_each_component_by_its_listed_algorithm():
    """Qwen3.6-27B-NVFP4 lists FP8 attention and linear attention, NVFP4 MLPs and LM head:
    against an all-NVFP4 reading, the FP8 parts add and the quantized LM head saves."""
    model = _model("nvidia/Qwen3.6-27B-NVFP4")
    scheme, _ = _checkpoint_scheme(model)
    parts = {p: s.kind if s else None for p, s in scheme.parts}
    assert parts == {"attention": "fp8_tensor", "linear_attention": "fp8_tensor",
                     "mlp": "nvfp4", "lm_head": "nvfp4"}
    lay = _layout(model)
    tensors = [t for t in lay.main + lay.mtp if not t.padding]  # the stored ones
    _, size = checkpoint_size(model)
    _, ign = _checkpoint_scheme(model)
    all_fp4 = sum(_bytes(t, Scheme("x", "nvfp4"), ign, 2) for t in tensors)
    fp8 = sum(t.params for t in lay.main
              if t.linear and t.component in ("attention", "linear_attention"))
    head = sum(t.params for t in lay.main if t.component == "lm_head")
    # FP8 instead of FP4 (1 byte vs 9/16) for the attention side; an FP4 LM head (not bf16)
    expected = fp8 * (1 - 9 / 16) - head * (2 - 9 / 16)
    assert abs((size - all_fp4) / expected - 1) < 0.01, (size, all_fp4, expected)


def test_step3p5_config_class_keys_count_its_moe():
    """SGLang's own Step3p5Config (the text config Step-3.7 falls back to) names its MoE
    ``moe_num_experts`` / ``moe_layers_enum`` / ``share_expert_dim`` and its KV heads
    ``num_attention_groups``: read alike, its defaults describe the 196B backbone."""
    from launchplan.memory.params import layout

    # the class defaults (sglang/srt/configs/step3p5.py, 0.5.23)
    text = {"hidden_size": 4096, "intermediate_size": 11264, "num_attention_heads": 64,
            "num_attention_groups": 8, "num_hidden_layers": 45, "vocab_size": 128815,
            "moe_intermediate_size": 1280, "moe_num_experts": 288, "share_expert_dim": 1280,
            "head_dim": 128, "moe_layers_enum": tuple(range(3, 45))}
    lay = layout({"architectures": ["Step3p5ForCausalLM"]}, text, "step3p5", None,
                 "Step3p5ForCausalLM")
    assert abs(sum(t.params for t in lay.main) / 196e9 - 1) < 0.02
    k = [t for t in lay.main if t.name.endswith("k_proj")]
    assert k[0].shape == (8 * 128, 4096)


def test_deepseek_v4_nvfp4_routed_experts_are_nvfp4_in_an_fp8_checkpoint():
    """nvidia/DeepSeek-V4-*-NVFP4 declare quant_method fp8 with moe_quant_algo NVFP4 (SGLang's
    hybrid FP8+NVFP4 config): the routed experts are NVFP4, where the official V4 checkpoints'
    are MXFP4; everything else is block FP8 in both."""
    nvfp4, _ = _checkpoint_scheme(_model("nvidia/DeepSeek-V4-Flash-NVFP4"))
    official, _ = _checkpoint_scheme(_model("deepseek-ai/DeepSeek-V4-Flash"))
    assert (nvfp4.kind, nvfp4.experts.kind) == ("fp8_block", "nvfp4")
    assert (official.kind, official.experts.kind) == ("fp8_block", "mxfp4")
    _, a = checkpoint_size(_model("nvidia/DeepSeek-V4-Flash-NVFP4"))
    _, b = checkpoint_size(_model("deepseek-ai/DeepSeek-V4-Flash"))
    assert 1.04 < a / b < 1.07  # 9/16 against 17/32 bytes per expert weight


def test_nemotron_3_stores_its_mtp_block_beside_the_main_stack():
    """Nemotron 3 Super's MTP block (attention then latent MoE, ``mtp_hybrid_override_pattern``
    '*E'): main stack plus MTP come to the 123.61B a GGUF conversion of the checkpoint counts
    (prositronic.eu's Nemotron 3 Super 120B A12B page); Ultra names the same block by
    ``mtp_layers_block_type``; Nano declares none."""
    super_ = _layout(_model("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8"))
    stored = sum(t.params for t in super_.main + super_.mtp)
    assert abs(stored / 123.61e9 - 1) < 0.002, stored
    assert {t.component for t in super_.mtp} >= {"attention", "experts", "mtp"}
    ultra = _layout(_model("nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16"))
    assert any(".experts." in t.name for t in ultra.mtp)
    assert not _layout(_model("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")).mtp
