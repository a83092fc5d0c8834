"""Rules no recorded oracle case brings in front of SGLang, each with the reason.

Checked by ``test_coverage.py`` in both directions: a rule that starts meeting SGLang in a
recorded case must leave this list.
"""

from __future__ import annotations

_LAUNCHER = (
    "SGLang runs check_server_args in its launcher after resolution; the oracle records "
    "resolution (resolve_once) only, so no recorded case can show SGLang refusing "
    "(launchplan warns, exit 0, as resolution accepts; the coverage suite's launcher "
    "cases agree on that)")


def _family(archs: str) -> str:
    return (f"decides only for {archs} checkpoints; no recorded case uses one yet (its public "
            "config.json has to be added under tests/parity/models/)")


UNMET: dict[str, str] = {
    "bailing_moe_v3_overrides": _family(
        "BailingMoeV3ForCausalLM, BailingMoeV3VLForConditionalGeneration"),
    "beam_overrides": _family(
        "BeamForCausalLM"),
    "boundary_parallelism": (
        "decides only for nemotron_h, nemotron_h_puzzle and longcat_flash model types; no "
        "such config.json is recorded yet"),
    "cohere2_moe_runner_overrides": _family(
        "Cohere2MoeForCausalLM, Cohere2VisionForConditionalGeneration"),
    "deepseek_spec_moe_resolution": (
        "changes a value only for a ROCm DeepSeek FP4 checkpoint's NextN draft or with "
        "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE; the recorded DeepSeek checkpoints are FP8/bf16"),
    "deepseek_v41_features": _family(
        "DeepseekV4ForCausalLM"),
    "deepseek_v4_context_parallel": _family(
        "DeepseekV4ForCausalLM"),
    "deepseek_v4_defaults": _family(
        "DeepseekV4ForCausalLM"),
    "deepseek_v4_overrides": _family(
        "DeepseekV4ForCausalLM"),
    "deterministic_allreduce_fusion_disable": (
        "under deterministic inference deterministic_allreduce_fusion_off has already "
        "enforced fusion off and enforce_disable_allreduce_fusion cleared the backend, so "
        "this later clear never changes a value; SGLang too records "
        "_enforce_disable_allreduce_fusion as the source "
        "(coverage/deterministic_allreduce_fusion_disable agrees)"),
    "dsa_prefill_cp_graph_disable": (
        "with prefill CP on a DSA model the graph compatibility rule has already disabled "
        "the breakable prefill graph (attention CP), so this rule has nothing left to "
        "change; SGLang re-declares it (see SOURCE_EXCEPTIONS in correspondence.py, "
        "families/deepseek-v3.2-exp/b200/prefill-cp)"),
    "dsa_two_batch_overlap_check": (
        "refuses only DSA models whose layers share top-k indices (index_topk_freq, "
        "index_topk_pattern or indexer_types); the recorded DeepSeek-V3.2 has an indexer "
        "on every layer, and families/deepseek-v3.2-exp/b200/tbo agrees it runs"),
    "embedding_gemma2_overrides": _family(
        "EmbeddingGemma2Model"),
    "embedding_gemma_capability": (
        "decides only for EmbeddingGemma checkpoints; no such config.json is recorded yet"),
    "ernie45_vl_overrides": _family(
        "Ernie4_5_VLMoeForConditionalGeneration"),
    "exaone_backend_check": _family(
        "Exaone4ForCausalLM, ExaoneMoEForCausalLM, ExaoneMoeForCausalLM"),
    "exaone_overrides": _family(
        "Exaone4ForCausalLM, ExaoneMoEForCausalLM, ExaoneMoeForCausalLM"),
    "falcon_h1_jet_overrides": _family(
        "FalconH1ForCausalLM, JetNemotronForCausalLM, JetVLMForConditionalGeneration"),
    "gemma4_backend_check": _family(
        "DiffusionGemmaForBlockDiffusion, Gemma4ForCausalLM, "
        "Gemma4ForConditionalGeneration, Gemma4UnifiedForConditionalGeneration"),
    "gemma4_overrides": _family(
        "DiffusionGemmaForBlockDiffusion, Gemma4ForCausalLM, "
        "Gemma4ForConditionalGeneration, Gemma4UnifiedForConditionalGeneration"),
    "gigachat35_overrides": _family(
        "GigaChat35ForCausalLM, GigaChat35ForCausalLMNextN"),
    "glm5_next_spec_backend_defaults": _family(
        "Glm5NextForConditionalGeneration"),
    "glm_dsa_aiter_allreduce_fusion": _family(
        "GlmMoeDsaForCausalLM"),
    "granite_moe_hybrid_overrides": _family(
        "GraniteMoeHybridForCausalLM"),
    "hrm_text_capability": (
        "decides only for hrm_text (prefix-LM) checkpoints; no such config.json is "
        "recorded yet"),
    "inkling_overrides": _family(
        "InklingForConditionalGeneration, InklingForConditionalGenerationMTP"),
    "inkling_prefill_graph_default": _family(
        "InklingForConditionalGeneration, InklingForConditionalGenerationMTP"),
    "intel_xpu_page_constraint": (
        "decides only on an Intel XPU device; the oracle simulates the CUDA and ROCm "
        "targets of its README only, so no recorded launch can reach it"),
    "interns2_mobius_baseline_overrides": _family(
        "InternS2MobiusForConditionalGeneration"),
    "iquest_q1_mtp_draft": _family(
        "IQuestQ1ForCausalLM"),
    "iquest_q1_overrides": _family(
        "IQuestQ1ForCausalLM, IQuestQ1MTP"),
    "kimi_k3_moe_runner_overrides": _family(
        "KimiK3ForConditionalGeneration"),
    "kimi_k3_overrides": _family(
        "KimiK3ForConditionalGeneration"),
    "kimi_linear_attn_defaults": _family(
        "KimiK3ForConditionalGeneration, KimiLinearForCausalLM"),
    "kimi_spec_backend_defaults": _family(
        "KimiK3ForConditionalGeneration, KimiLinearForCausalLM"),
    "kv_cache_sharding_recheck": (
        "changes a value only when a capability rule moves the attention backend after KV "
        "sharding's first check (a PD prefill server with --enable-kv-cache-sharding on "
        "such a model); no recorded model has such a capability rule"),
    "launcher_chunk_page_alignment": _LAUNCHER,
    "launcher_layout_checks": _LAUNCHER,
    "launcher_scheduling_checks": _LAUNCHER,
    "launcher_spec_mixed_chunk": _LAUNCHER,
    "lfm2_backend_check": _family(
        "Lfm2ForCausalLM, Lfm2MoeForCausalLM"),
    "lfm2_overrides": _family(
        "Lfm2ForCausalLM, Lfm2MoeForCausalLM"),
    "llama4_backend_check": _family(
        "Llama4ForCausalLM, Llama4ForConditionalGeneration"),
    "llama4_overrides": _family(
        "Llama4ForCausalLM, Llama4ForConditionalGeneration"),
    "mamba_radix_cache": (
        "decides only for hybrid Mamba / linear-attention checkpoints; no such "
        "config.json is recorded yet"),
    "mamba_radix_cache_for_linear_attn_spec": (
        "decides only for models registering a linear-attention spec that asks for the "
        "Mamba cache (GigaChat 3.5); no such config.json is recorded yet"),
    "mimo_v2_attention_tp_check": _family(
        "MiMoV2ForCausalLM"),
    "mimo_v2_overrides": _family(
        "MiMoV2FlashForCausalLM, MiMoV2ForCausalLM"),
    "minicpm_sala_overrides": _family(
        "MiniCPMForCausalLM, MiniCPMSALAForCausalLM"),
    "minicpm_v4_6_overrides": _family(
        "MiniCPMV4_6ForConditionalGeneration, MiniCPMV4_7ForConditionalGeneration"),
    "minimax_m2_overrides": _family(
        "MiniMaxM2ForCausalLM"),
    "minimax_m3_overrides": _family(
        "MiniMaxM3SparseForCausalLM, MiniMaxM3SparseForConditionalGeneration"),
    "mla_prefill_cp_graph_disable": (
        "with prefill CP on an MLA model the graph compatibility rule has already "
        "disabled the breakable prefill graph (attention CP), so this rule has nothing "
        "left to change; SGLang re-declares it (see SOURCE_EXCEPTIONS in "
        "correspondence.py, families/deepseek-v3/b200/prefill-cp)"),
    "model_override_constants": _family(
        "MistralLarge3ForCausalLM, PixtralForConditionalGeneration"),
    "moss_vl_overrides": _family(
        "MossVLForConditionalGeneration"),
    "multimodal_chunking_capability": (
        "decides only for Grok-1 vision/audio, LLaVA-Llama, Mllama, MossVL and CLIP "
        "checkpoints; none is recorded yet (the recorded LLaVA-1.5 is "
        "LlavaForConditionalGeneration, which chunks)"),
    "muse_glimmer_fp4_gemm_runner_overrides": _family(
        "MuseGlimmerForCausalLM, MuseGlimmerForConditionalGeneration"),
    "muse_glimmer_prefill_graph_max_bs": _family(
        "MuseGlimmerForCausalLM, MuseGlimmerForConditionalGeneration"),
    "muse_spark_overrides": _family(
        "MuseSparkForConditionalGeneration"),
    "nemotron_h_overrides": _family(
        "NemotronHForCausalLM, NemotronHPuzzleForCausalLM, NemotronH_Omni_Reasoning_V3"),
    "qwen3_5_hybrid_overrides": _family(
        "InternS2MobiusForConditionalGeneration, InternS2PreviewForConditionalGeneration, "
        "Qwen3NextForCausalLM, Qwen3_5ForConditionalGeneration, "
        "Qwen3_5MoeForConditionalGeneration"),
    "qwen3vl_hopper_serving_overrides": _family(
        "Qwen3VLForConditionalGeneration, Qwen3VLMoeForConditionalGeneration"),
    "qwen3vl_overrides": _family(
        "Qwen3VLForConditionalGeneration"),
    "qwen4_exp_overrides": _family(
        "Qwen4ExpForConditionalGeneration"),
    "speculative_gemma4_assistant": (
        "needs a Gemma-4 assistant draft checkpoint (--speculative-draft-model-path); no "
        "such config.json is recorded"),
    "step3p_overrides": (
        "decides only for Step-3p checkpoints (a predicate provider); no such config.json "
        "is recorded yet"),
}
