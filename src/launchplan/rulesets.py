"""Rule sets as data: which rules run, in which order, and which variant of each.

``PIPELINE`` lists rule names in SGLang 0.5.23's pipeline order. A rule set is that order
plus a choice of variants; a later SGLang release is one more entry in ``RULESETS``.
"""

from __future__ import annotations

from functools import cache
from types import MappingProxyType

from launchplan.engine.registry import RuleSpec, discover
from launchplan.errors import InputError
from launchplan.struct import Struct

PIPELINE: tuple[str, ...] = (
    # Phase.BOOTSTRAP (steps 1-11)
    "deprecated_dp_attention",
    "megamoe_runner_alias",
    "megamoe_compat",
    "return_hidden_states_mode",
    "watermark_config",
    "media_url_policy",
    "hicache_ratio_default",
    "offload_compatibility",
    "prefill_decode_interval_check",
    "response_store_check",
    "sampling_mask_max_tokens_check",
    "prefill_cp_platform_check",  # 0.5.21 only: no prefill CP on ROCm
    "aux_hidden_state_capture",
    "model_config_parser_known",  # 0.5.23: the config is first read here (Muse Spark env)
    "remote_code_needs_trust",  # 0.5.23: the same first read
    "serving_value_checks",
    "ssl_http_checks",
    "asr_value_checks",
    # Phase.MODEL_SOURCE
    "deprecated_flags",
    "deprecated_backend_aliases",
    "tokenspeed_mla_implications",
    "grpc_settings",
    "prefill_delayer_env",
    "missing_default_values",
    "expert_pack_checks",
    "device_default",
    "mooncake_tcp_transport",
    "prefill_complete_allocation_checks",
    "pd_transfer_settings",
    "pd_server_roles",
    "pd_staging_buffer_transport",
    "pd_role_switch_checks",
    "prefill_only_kv_cache_args",
    "dcp_comm_backend_default",
    "decode_context_parallel_checks",
    # Phase.GRAPH_DEFAULTS (the model config is first built: its quantization check)
    "quantize_and_serve_check",
    "model_config_parser_at_model_config",  # 0.5.21-0.5.22: where the model config is built
    "remote_code_needs_trust_at_model_config",  # 0.5.21-0.5.22
    "context_length_limit",
    "model_quantization_check",
    "inkling_prefill_graph_default",
    "muse_glimmer_prefill_graph_max_bs",
    "dwdp_layout",
    # Phase.CUDA_GRAPH
    "parse_cuda_graph_config",
    "cuda_graph_compatibility",
    "deepep_prefill_alignment",
    "disaggregation_graph_roles",
    "validate_cuda_graph_config",
    "glm5_next_breakable_chunk_default",  # 0.5.21 only
    # Phase.DEVICE
    "cpu_backends",
    "xpu_backends",
    # Phase.MEMORY
    "chunked_prefill_default",
    "cuda_graph_sizing",
    "mem_fraction_default",
    # Phase.MODEL (model-specific adjustments and the model-override batch)
    "deterministic_allreduce_fusion_off",
    "mamba_radix_cache_baseline",
    "model_arch_constraints",
    "mamba_radix_cache_for_linear_attn_spec",
    # the model-override batch: constants, exact providers by module, then the predicate
    "model_override_constants",
    "bailing_moe_v3_overrides",
    "beam_overrides",
    "cohere2_moe_runner_overrides",
    "deepseek_family_overrides",
    "deepseek_v4_overrides",
    "embedding_gemma2_overrides",
    "ernie45_vl_overrides",
    "exaone_overrides",
    "falcon_h1_jet_overrides",
    "gemma2_gemma3_overrides",
    "gemma4_overrides",
    "gigachat35_overrides",
    "glm4_moe_overrides",
    "gpt_oss_overrides",
    "granite_moe_hybrid_overrides",
    "inkling_overrides",
    "interns2_mobius_baseline_overrides",
    "iquest_q1_overrides",
    "kimi_k3_overrides",
    "kimi_k3_moe_runner_overrides",
    "lfm2_overrides",
    "llama4_overrides",
    "mimo_v2_overrides",
    "minicpm_sala_overrides",
    "minicpm_v4_6_overrides",
    "minimax_m2_overrides",
    "minimax_m3_overrides",
    "moss_vl_overrides",
    "muse_glimmer_fp4_gemm_runner_overrides",
    "nemotron_h_overrides",
    "olmo2_overrides",
    "qwen3_5_hybrid_overrides",
    "qwen3_moe_family_overrides",
    "qwen3vl_overrides",
    "qwen3vl_hopper_serving_overrides",
    "qwen4_exp_overrides",
    "muse_spark_overrides",
    "step3p_overrides",
    # after the batch
    "kimi_linear_attn_defaults",
    "kimi_spec_backend_defaults",
    "glm5_next_spec_backend_defaults",
    "deepseek_v4_defaults",
    "dsa_two_batch_overlap_check",
    "dsa_prefill_cp_graph_disable",
    "dsa_attention_tp_width",
    "dsa_kv_cache_dtype_default",
    "dsa_split_backend_resolution",
    "dsa_context_parallel_checks",
    "mla_prefill_cp_graph_disable",
    "deepseek_moe_quant_resolution",
    "glm_dsa_aiter_allreduce_fusion",
    "deepseek_spec_moe_resolution",
    "deepseek_v41_features",
    "deepseek_v4_context_parallel",
    "gpt_oss_backend_check",
    "mimo_v2_attention_tp_check",
    "llama4_backend_check",
    "gemma4_backend_check",
    "exaone_backend_check",
    "olmo2_backend_check",
    "lfm2_backend_check",
    "mamba_radix_cache",
    "sparse_head_overlap_disable",
    "flashinfer_allreduce_fusion_auto_enable",
    "enforce_disable_allreduce_fusion",
    "prefill_decode_interval_default",
    "offload_compatibility_recheck",
    # Phase.KERNEL (P16 deterministic inference, P17 NVFP4 prefill dequant)
    "sampling_backend_default",
    "deterministic_on_policy_target",
    "deterministic_aiter_allreduce_disable",
    "deterministic_allreduce_fusion_disable",
    "deterministic_sampling_backend",
    "deterministic_attention_backend",
    "deterministic_mla_backend_check",
    "deterministic_radix_disable",
    "deterministic_tp_collectives",
    "nvfp4_prefill_dequant",
    # Phase.ATTENTION (handle_attention_backend_compatibility, in its sub-step order)
    "attention_backend_default",
    "eager_backend_graph_disable",
    "whisper_radix_disable",
    "backend_page_snaps",
    "trtllm_mla_checks",
    "cutedsl_mla_prefill_fill",
    "trtllm_mha_platform_checks",
    "fa3_fp8_e5m2_fallback",
    "fa4_page_constraint",
    "aiter_memory_scaling",
    "cpu_attention_fallback",
    "intel_xpu_page_constraint",
    # Phase.ATTENTION_LATE (P19 DeepSeek trtllm_mla graph, P21 KV4, P22 MXFP8)
    "deepseek_trtllm_mla_prefill_graph",
    "mamba_backend_checks",
    "int8_mamba_checkpoint_checks",
    "linear_attn_backend_checks",
    "glm5_next_breakable_prefill_sizes",  # 0.5.21 only
    "kv4_compatibility",
    "mxfp8_kv_check",
    # Phase.PAGE_DEFAULT
    "page_size_default",
    # Phase.MISC (P24-P26)
    "amd_triton_kv_splits",
    "grammar_backend_default",
    "multi_item_scoring",
    "prefill_only_kv_backend_check",
    "hicache_normalization",  # handle_hicache, before data parallelism
    # Phase.PARALLEL (P27 data, P28 context parallelism, P29 KV sharding)
    "data_parallelism_checks",
    "data_parallelism_defaults",
    "attention_dp_adjustments",
    "tp_lm_head_all_to_all_default",
    "dp_lm_head_validation",
    "load_balance_method_default",
    "boundary_parallelism",
    "cp_tp_group_sharing",
    "context_parallelism_checks",
    "prefill_cp_cuda_graph_default",
    "kv_cache_sharding",
    # Phase.MOE (P30 MoE kernels and A2A, P31 PP overlap)
    "moe_runner_quant_constraints",
    "moe_runner_quant_checks",
    "moe_runner_fusion_disable",
    "a2a_backend_overrides",
    "a2a_ep_size",
    "a2a_fusion_adjustments",
    "a2a_flashinfer_megamoe_checks",
    "a2a_deepep_adjustments",
    "deepep_v2_model_check",
    "a2a_deepep_v2_adjustments",
    "a2a_ascend_tp_normalize",
    "a2a_flashinfer_checks",
    "a2a_mori_pplx_modes",
    "shared_experts_tp_checks",
    "eplb_dispatch",
    "expert_distribution_metrics",
    "elastic_ep_checks",
    "elastic_ep_scale_up",
    "experimental_marlin_checks",
    "pipeline_parallel_overlap_disable",
    # Phase.SPECULATIVE (P32 handle_speculative_decoding, P51 boundary reduction)
    "speculative_draft_revision_default",
    "speculative_moe_runner_default",
    "speculative_algorithm_upper",
    "speculative_gemma4_assistant",
    "speculative_nextn_alias",
    "speculative_decode_radix_check",
    "speculative_block_verification",
    "speculative_draft_window",
    "speculative_algorithm_known",
    "speculative_dp_coordination_check",
    "speculative_adaptive_gate",
    "speculative_adaptive_params",
    "speculative_ragged_verify_mode_known",
    "dflash_defaults",
    "dflash_draft_backend",
    "uno_defaults",
    "dspark_defaults",
    "frozen_kv_mtp_defaults",
    "eagle_family_defaults",
    "eagle_mtp_draft_path",
    "iquest_q1_mtp_draft",
    "eagle_auto_params",
    "eagle_trtllm_mha_topk",
    "eagle_hip_rejection_sampling",
    "eagle_rejection_sampling_checks",
    "eagle_topk1_draft_tokens",
    "eagle_page_tree_check",
    "ngram_defaults",
    "ngram_checks",
    "boundary_reduction_default",
    "layernorm_sp_checks",
    "flashinfer_a2a_token_budget",
    "megamoe_token_budget",
    # Phase.SERVING (P33 caches and unified memory, P35 debug dumps)
    "language_model_only_checks",
    "load_format_resolution",
    "transfer_engine_seed",
    "weight_cache_checks",
    "encoder_disaggregation_checks",
    "tokenizer_batching",
    "environment_variable_checks",
    "mm_feature_transport_default",
    "cache_compatibility",
    "page_major_kv_layout",
    "unified_memory_pool",
    "dllm_algorithm_known",  # handle_dllm_inference: the name (its attention-backend step)
    "dllm_attention_backend",
    "dllm_gemma4_renoise_checks",  # the algorithm's configure_server_args (Gemma4Renoise)
    "dllm_gemma4_renoise_settings",
    "dllm_rocm_cuda_graph_off",
    "dllm_overlap_disable",
    "dllm_model_known",  # handle_dllm_inference: the model (its page-size step)
    "dllm_page_size",
    "dllm_cache_layers_off",
    "dllm_pipeline_parallel_off",
    "dllm_lora_off",
    "dllm_disaggregation_off",
    "dllm_mixed_chunk_off",
    "ci_soft_watchdog",
    "other_validations",
    "debug_dump_graph_disable",
    # Phase.LATE (P36 capability gates, P38 prefill max context, P39 sharding re-check)
    "hrm_text_capability",
    "embedding_architecture_capability",
    "embedding_gemma_capability",
    "multimodal_chunking_capability",
    "encoder_replay_capability",
    "finalize_cuda_graph_prefill_max_context",
    "kv_cache_sharding_recheck",
    "deepep_v2_draft_check",
    "deepep_v2_token_budget",
    # Phase.LAUNCHER (check_server_args, after resolution)
    "launcher_layout_checks",
    "launcher_pipeline_parallel_checks",
    "launcher_lora_checks",
    "launcher_spec_mixed_chunk",
    "launcher_chunk_page_alignment",
    "launcher_scheduling_checks",
    "launcher_hisparse_checks",
    "launcher_metrics_checks",
    "launcher_two_batch_overlap_check",
    "launcher_device_checks",
    "launcher_watermark_checks",
    "launcher_load_publish_checks",
    # 0.5.21 only: its own spelling of attention DP, once everything read the layout
    "dp_attention_spelling",
)


ABSENT = "absent"
"""A variant tag meaning: the release has no such rule (it came later); the rule is left out."""


# rules of 0.5.21 that later releases dropped: absent from every other rule set
ONLY_0_5_21 = ("glm5_next_breakable_chunk_default", "glm5_next_breakable_prefill_sizes")


class RuleSet(Struct):
    """A named selection: the pipeline order with one variant chosen per rule.

    ``sglang`` is the release whose flag surface (field table) the input is read against.
    """

    name: str
    description: str
    variants: MappingProxyType  # rule name -> variant tag (absent: the base rule)
    sglang: str = "0.5.23"

    def rules(self) -> tuple[RuleSpec, ...]:
        return _rules_of(self.name)


RULESETS: dict[str, RuleSet] = {
    "default": RuleSet(
        "default",
        "SGLang 0.5.23 plus the later FA4 fix: no page-128 force under a full prefill graph",
        MappingProxyType({"dp_attention_spelling": ABSENT,
                          "model_config_parser_at_model_config": ABSENT,
                          "remote_code_needs_trust_at_model_config": ABSENT,
                          "prefill_cp_platform_check": ABSENT,
                          **dict.fromkeys(ONLY_0_5_21, ABSENT)}),
    ),
    "0.5.23": RuleSet(
        "0.5.23",
        "SGLang 0.5.23 exactly",
        MappingProxyType({"fa4_page_constraint": "0.5.23", "dp_attention_spelling": ABSENT,
                          "model_config_parser_at_model_config": ABSENT,
                          "remote_code_needs_trust_at_model_config": ABSENT,
                          "prefill_cp_platform_check": ABSENT,
                          **dict.fromkeys(ONLY_0_5_21, ABSENT)}),
    ),
    # Older releases: each names only the rules whose variant differs from the default.
    "0.5.22": RuleSet(
        "0.5.22",
        "SGLang 0.5.22 exactly",
        MappingProxyType({
            "fa4_page_constraint": "0.5.23",  # the FA4 rule did not change in 0.5.23
            "cuda_graph_sizing": "0.5.22",  # MLA prefill graph max_bs 2048
            "eagle_rejection_sampling_checks": "0.5.22",  # refused with deterministic
            "prefill_cp_cuda_graph_default": ABSENT,  # the prefill CP graph hook came later
            "attention_backend_default": "0.5.22",  # DFLASH on SM10x: flashinfer
            # and so, following that default, triton with page 1 for the hybrid GDN models
            "qwen3_5_hybrid_overrides": "0.5.22",
            "qwen4_exp_overrides": "0.5.22",
            "dflash_draft_backend": "0.5.22",  # no fa4 fallback on SM10x
            # tokenspeed_mla is a backend of its own, not an alias of cutedsl_mla
            "deprecated_backend_aliases": "0.5.22",
            "tokenspeed_mla_implications": ABSENT,
            "backend_page_snaps": "0.5.22",
            "trtllm_mla_checks": "0.5.22",
            "deterministic_tp_collectives": "0.5.22",  # no ROCm RCCL check
            "cuda_graph_compatibility": "0.5.22",  # known-supported prefill CP keeps its graph
            "speculative_algorithm_known": "0.5.22",  # and --speculative-skip-dp-mlp-sync
            "layernorm_sp_checks": "0.5.22",  # Qwen3 only
            "pd_server_roles": "0.5.22",  # a decode radix cache refuses speculation
            "pd_role_switch_checks": "0.5.22",  # any attention DP or DP replicas refused
            "unified_memory_pool": "0.5.22",  # and no trtllm_mha decode graph
            # asymmetric K/V rows refused, tokenspeed_mla a paged MLA kernel
            "page_major_kv_layout": "0.5.22",
            "moe_runner_quant_constraints": "0.5.22",  # no MegaMoE W4A16 for nvfp4_online
            # no local control broadcast for the Rust server's attention DP
            "attention_dp_adjustments": "0.5.22",
            "encoder_replay_capability": ABSENT,  # the check came in 0.5.23
            "dp_attention_spelling": ABSENT,  # attn_dp_size is a field from 0.5.22 on
            "prefill_cp_platform_check": ABSENT,  # prefill CP on ROCm is back in 0.5.22
            # no config read before the model config is built: the parser is looked up there
            "model_config_parser_known": ABSENT,
            "remote_code_needs_trust": ABSENT,
            "elastic_ep_scale_up": "0.5.22",  # no attention-replica layout checks
            "beam_overrides": ABSENT,  # Beam's trtllm_mha default came in 0.5.23
            "flashinfer_allreduce_fusion_auto_enable": "0.5.22",  # no MiMo-V2 CuTeDSL default
            # DeepSeek-V4: no resolution of the attention kernel, V4.1's older feature limits
            "deepseek_v4_defaults": "0.5.22",
            "deepseek_v41_features": "0.5.22",
            # model overrides 0.5.23 extended: MiniCPM-V 4.7, Nemotron-H expert remapping,
            # MiniMax-M3.1 NVFP4, Kimi-K3's tokenspeed_mla (an alias only from 0.5.23)
            "minicpm_v4_6_overrides": "0.5.22",
            "nemotron_h_overrides": "0.5.22",
            "minimax_m3_overrides": "0.5.22",
            "kimi_k3_overrides": "0.5.22",
            "kv_cache_sharding": "0.5.22",  # no speculation, HiCache or DSA
            "cp_tp_group_sharing": "0.5.22",  # GLM-5 Next only, no PD or DFLASH
            "launcher_lora_checks": "0.5.22",  # no triton_v2 or LoRA MoE runner checks
            "grpc_settings": "0.5.22",  # no sidecar under SGLANG_RUST_SERVER (0.5.22 only)
            "muse_spark_overrides": ABSENT,  # SGLang knows Muse Spark from 0.5.23 on
            "encoder_disaggregation_checks": "0.5.22",  # no MiniMax-M3 VL or Muse Spark split
            "kv_cache_sharding_recheck": "0.5.22",
            # FlashInfer A2A: no Muse Spark SP exception; MegaMoE without Beam, Kimi-K3, W4A16
            "a2a_flashinfer_checks": "0.5.22",
            "a2a_flashinfer_megamoe_checks": "0.5.22",
            "megamoe_token_budget": "0.5.22",  # encoder-only too; decode bound uncapped
            "hicache_normalization": "0.5.22",  # no linker checks; DCP refuses any L3
            "dflash_defaults": "0.5.22",  # attention DP on NPUs only
            "boundary_parallelism": "0.5.22",  # Inkling keeps scattered-input attention
            **dict.fromkeys(ONLY_0_5_21, ABSENT),
        }),
        "0.5.22",
    ),
    "0.5.21": RuleSet(
        "0.5.21",
        "SGLang 0.5.21 exactly",
        MappingProxyType({
            "fa4_page_constraint": "0.5.23",
            "cuda_graph_sizing": "0.5.21",  # and no decode max_bs cap at max_running_requests
            "eagle_rejection_sampling_checks": "0.5.22",
            "prefill_cp_cuda_graph_default": ABSENT,
            "attention_backend_default": "0.5.22",
            "qwen3_5_hybrid_overrides": "0.5.22",
            "qwen4_exp_overrides": "0.5.22",
            "dflash_draft_backend": "0.5.22",
            "deprecated_backend_aliases": "0.5.22",
            "tokenspeed_mla_implications": ABSENT,
            "backend_page_snaps": "0.5.22",
            "trtllm_mla_checks": "0.5.22",
            "deterministic_tp_collectives": "0.5.22",
            # the tc_piecewise prefill graph (removed in 0.5.22), KDA and multimodal lists
            "parse_cuda_graph_config": "0.5.21",
            "cuda_graph_compatibility": "0.5.21",
            "validate_cuda_graph_config": "0.5.21",
            "speculative_algorithm_known": "0.5.22",
            # --enable-dp-attention --dp-size N is 0.5.21's attention DP, reported as such
            "deprecated_dp_attention": "0.5.21",
            "dp_attention_spelling": "0.5.21",
            # one group's --enable-dp-attention stays on until the data-parallelism defaults
            # clear it: the rules before them read the switch (dp_attention_switch_0_5_21)
            "data_parallelism_defaults": "0.5.21",
            "mem_fraction_default": "0.5.21",
            "pd_role_switch_checks": "0.5.21",
            "minicpm_sala_overrides": "0.5.21",
            "iquest_q1_overrides": "0.5.21",
            "glm_dsa_aiter_allreduce_fusion": "0.5.21",
            "prefill_cp_platform_check": "0.5.21",
            "prefill_complete_allocation_checks": ABSENT,  # 0.5.21 does not validate it
            "pd_transfer_settings": "0.5.21",  # host receive on above 0, not below 1
            "pd_server_roles": "0.5.21",  # requests shared over max(1, dp_size)
            "decode_context_parallel_checks": "0.5.21",  # prefill CP allowed with decode CP
            "speculative_moe_runner_default": "0.5.21",  # the draft inherits megamoe
            "deepep_v2_token_budget": "0.5.21",  # the prefill ceiling, not split over ranks
            "deepep_v2_model_check": "0.5.21",  # no GLM-MoE-DSA or MiMo-V2 registered
            "context_parallelism_checks": "0.5.21",  # CP groups over dp_size, not attn DP
            "a2a_mori_pplx_modes": "0.5.21",  # no MoRI EPv2: low_latency is kept
            "dp_lm_head_validation": "0.5.21",  # a scale joiner is not attention DP
            # DSA prefill CP: the dense TP pinned, attention DP on while fusion is checked
            "deepseek_family_overrides": "0.5.21",
            "dsa_attention_tp_width": "0.5.21",  # only with fewer DP groups than TP ranks
            "flashinfer_allreduce_fusion_auto_enable": "0.5.21",
            "layernorm_sp_checks": "0.5.21",  # Qwen3 only, no PP check
            "encoder_replay_capability": ABSENT,
            "other_validations": "0.5.21",
            "language_model_only_checks": "0.5.21",
            "model_config_parser_known": ABSENT,
            "remote_code_needs_trust": ABSENT,
            "elastic_ep_scale_up": "0.5.22",
            "beam_overrides": ABSENT,
            "deepseek_v4_defaults": "0.5.22",
            "deepseek_v41_features": "0.5.21",
            "minicpm_v4_6_overrides": "0.5.22",
            "nemotron_h_overrides": "0.5.22",
            "minimax_m3_overrides": "0.5.22",
            "kimi_k3_overrides": "0.5.22",
            "deepseek_v4_context_parallel": "0.5.21",  # no ROCm limits
            "boundary_reduction_default": "0.5.21",  # Kimi-K3 and Qwen4-Exp not all-reduce
            # EXAONE: no SWA backend default, so the backend check meets None
            "exaone_overrides": "0.5.21",
            "exaone_backend_check": "0.5.21",
            "inkling_overrides": "0.5.21",  # fa4 by default on SM10x only
            "glm5_next_spec_backend_defaults": ABSENT,  # glm5_next_hook came in 0.5.22
            "mimo_v2_overrides": "0.5.21",  # no fa4 default on SM10x
            "muse_spark_overrides": ABSENT,
            "encoder_disaggregation_checks": "0.5.22",
            # no KV-cache sharding in 0.5.21 (kv_shard_hook came in 0.5.22)
            "kv_cache_sharding": ABSENT,
            "cp_tp_group_sharing": ABSENT,  # came in 0.5.22
            "launcher_lora_checks": "0.5.22",
            "launcher_watermark_checks": ABSENT,  # the text watermark came in 0.5.22
            "launcher_hisparse_checks": "0.5.21",  # no mixed-chunk or speculation checks
            "kv_cache_sharding_recheck": ABSENT,
            "a2a_flashinfer_checks": "0.5.22",
            "a2a_flashinfer_megamoe_checks": "0.5.22",
            "megamoe_token_budget": "0.5.22",  # encoder-only too; decode bound uncapped
            "dflash_defaults": "0.5.22",  # attention DP on NPUs only
            # EmbeddingGemma 2 and ERNIE 4.5 VL overrides came in 0.5.22
            "embedding_gemma2_overrides": ABSENT,
            "ernie45_vl_overrides": ABSENT,
            "hicache_normalization": "0.5.21",  # receive above 0; write_back refused
            "linear_attn_backend_checks": "0.5.21",  # no KDA verify fallback under PP spec
            "speculative_dp_coordination_check": "0.5.21",  # DSPARK not coordinated yet
            "dsa_split_backend_resolution": "0.5.21",  # TileLang FP8 KV on ROCm only
            "flashinfer_a2a_token_budget": "0.5.21",  # CuteDSL only, capacity x ep_size
            "unified_memory_pool": "0.5.21",  # DSPARK only; host-pool limits; no linker check
            "page_major_kv_layout": "0.5.22",
            "moe_runner_quant_constraints": "0.5.22",
            # attention DP of any width but one, and no width check beyond SGLang's modulo
            "attention_dp_adjustments": "0.5.21",
            "data_parallelism_checks": "0.5.21",
            "ngram_checks": "0.5.21",
            "a2a_deepep_v2_adjustments": "0.5.21",  # direct mode across nodes not refused
            "gemma4_backend_check": "0.5.21",  # no fa4 for Gemma 4
            "boundary_parallelism": "0.5.21",  # no Kimi-K3 or Inkling scattered-input reset
            # no JointThresholdInDel yet, nor the edit-token and expert-capacity checks
            "dllm_algorithm_known": "0.5.21",
            "dllm_model_known": "0.5.21",
            # an algorithm's required attention backend, with no list of backends it keeps
            "dllm_attention_backend": "0.5.21",
            # Gemma4Renoise turns the prefill graph off even when it is FULL on fa4
            "dllm_gemma4_renoise_settings": "0.5.21",
            # GLM-5 Next's opt-in breakable prefill policy (chunk 4096, capture to 4096)
            **dict.fromkeys(ONLY_0_5_21, "0.5.21"),
        }),
        "0.5.21",
    ),
}


def get_ruleset(name: str) -> RuleSet:
    try:
        return RULESETS[name]
    except KeyError:
        raise InputError("--compat", "one of " + ", ".join(RULESETS), name) from None


@cache
def _rules_of(name: str) -> tuple[RuleSpec, ...]:
    registry = discover()
    ruleset = RULESETS[name]
    chosen: list[RuleSpec] = []
    for rule_name in PIPELINE:
        tag = ruleset.variants.get(rule_name)
        if tag == ABSENT:
            continue
        key = (rule_name, tag)
        if key not in registry:
            raise LookupError(f"rule set {name}: no rule {key}")
        chosen.append(registry[key])
    for before, after in zip(chosen, chosen[1:]):
        if after.phase < before.phase:
            raise LookupError(
                f"rule set {name}: {after.name} ({after.phase.name}) runs after "
                f"{before.name} ({before.phase.name})"
            )
    return tuple(chosen)
