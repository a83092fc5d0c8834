"""Which launchplan rule corresponds to which SGLang decision, for the parity harness.

A recorded refusal agrees only when launchplan refuses *in the rule that corresponds to
SGLang's error*; an accepted case agrees only when, field by field, the rule that decided the
value corresponds to the SGLang resolver that SGLang recorded as its source. Both mappings
are tables here so that a new recording with an unknown SGLang error or source fails loudly.
"""

from __future__ import annotations

import re
from functools import cache

from launchplan.engine.registry import discover

# SGLang's error (type and message, as the oracle recorded it) -> the launchplan rules that
# refuse for that reason. Every pattern names what the configuration runs into.
REFUSALS: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (pattern, frozenset(rules)) for pattern, rules in (
        # the model config (ModelConfig.__init__ during resolution)
        (r"User-specified context_length \(\d+\) is greater than the derived",
         {"context_length_limit"}),
        (r"Unknown quantization method", {"model_quantization_check"}),
        (r"contains custom code which must be executed",
         {"remote_code_needs_trust", "remote_code_needs_trust_at_model_config"}),
        # diffusion LLMs (handle_dllm_inference)
        (r"Unknown diffusion LLM algorithm: ", {"dllm_algorithm_known"}),
        (r"Unknown diffusion LLM: ", {"dllm_model_known"}),
        (r"JointThresholdInDel is not supported for checkpoint", {"dllm_model_known"}),
        (r"JointThresholdInDel token IDs must be distinct", {"dllm_model_known"}),
        # an architecture and an algorithm that belong to others (DiffusionGemma, Gemma4Renoise)
        (r"requires the Gemma4Renoise diffusion algorithm|Gemma4Renoise does not support model "
         r"architecture ", {"dllm_model_known"}),
        # Gemma4Renoise's configure_server_args: its launch checks, then its prefill graph
        (r"DiffusionGemma (currently supports CUDA/ROCm|does not support (pipeline|context) "
         r"parallelism|does not support quantized loading|requires tied word embeddings)",
         {"dllm_gemma4_renoise_checks"}),
        (r"Gemma4Renoise FULL prefill CUDA graphs require", {"dllm_gemma4_renoise_settings"}),
        # attention backends and their platforms
        (r"TRTLLM MHA backend for (decode|prefill)", {"trtllm_mha_platform_checks"}),
        (r"TRTLLM FMHAv2 prefill on SM120", {"trtllm_mha_platform_checks"}),
        (r"TRTLLM MLA backend is only supported on Blackwell", {"trtllm_mla_checks"}),
        (r"TensorRT-LLM MLA backend only supports kv-cache-dtype", {"trtllm_mla_checks"}),
        (r"CuteDSL MLA", {"cutedsl_mla_prefill_fill"}),
        (r"KV4 M[HL]A expects attention_backend|KV4 is not tested on non-CUDA|"
         r"KV4 FA4 M[HL]A expects decode_attention_backend|"
         r"SM100 native NVFP4 speculative decoding supports|"
         r"SM100 native NVFP4 with trtllm_mha does not yet support (hierarchical|PD disagg)|"
         r"SM100 native NVFP4 NGRAM speculative decoding requires|"
         r"FP4 KV cache does not yet support --enable-unified-memory|"
         r"--kv-cache-dtype=nvfp4 requires Blackwell", {"kv4_compatibility"}),
        (r"--kv-cache-dtype mxfp8 requires", {"mxfp8_kv_check"}),
        (r"NVFP4 prefill supports|--prefill-kv-cache-dequant-dtype applies only",
         {"nvfp4_prefill_dequant"}),
        (r"Multi-item scoring requires", {"multi_item_scoring"}),
        (r"Speculative decoding is currently not supported with F",
         {"eager_backend_graph_disable"}),
        (r"GptOssForCausalLM requires one of", {"gpt_oss_backend_check"}),
        (r"Deterministic inference with absorbed-MLA", {"deterministic_mla_backend_check"}),
        (r"Currently only \[.*\] attention backends? (are|is) supported for deterministic",
         {"deterministic_attention_backend"}),
        (r"--disable-custom-all-reduce cannot be combined with --enab",
         {"deterministic_tp_collectives"}),
        # speculative decoding
        (r"Unknown speculative algorithm name", {"speculative_algorithm_known"}),
        (r"speculative_eagle_topk\(\d+\) > 1 with page_size\(\d+\)", {"ngram_checks"}),
        (r"Currently ngram speculative decoding does not support", {"ngram_checks"}),
        (r"speculative_eagle_topk > 1 with page_size > 1 is only supp",
         {"eagle_page_tree_check"}),
        (r"trtllm_mha backend only supports topk = 1", {"eagle_trtllm_mha_topk"}),
        (r"--speculative-use-rejection-sampling requires",
         {"eagle_rejection_sampling_checks"}),
        (r"Currently standalone speculative decoding does not support",
         {"eagle_family_defaults"}),
        # EAGLE with only some of steps/topk/draft tokens: SGLang's auto-sizing compares None
        (r"'>' not supported between instances of 'NoneType' and 'int'",
         {"eagle_auto_params"}),
        # a bare assert carries no message: recorded for a partial EAGLE triple and for
        # tp_size not divisible by attn_dp_size, so either rule agrees with it
        # (and for EPLB on a single EP rank, and for the Mamba extra buffer's track interval
        # below the draft tokens or off the page size)
        (r"^AssertionError: $", {"eagle_auto_params", "attention_dp_adjustments",
                                 "eplb_dispatch", "mamba_radix_cache",
                                 "mamba_radix_cache_for_linear_attn_spec"}),
        # every refusal of SGLang's DFLASH hook (draft path, pp, attention DP's conditions)
        (r"DFLASH (speculative decoding (requires|only supports)|with dp attention)",
         {"dflash_defaults"}),
        (r"DSpark", {"dspark_defaults"}),
        (r"UNO requires|UNO reuses the target model", {"uno_defaults"}),
        (r"--enable-return-aux-hidden-states needs", {"aux_hidden_state_capture"}),
        # parallelism, caches, serving
        (r"--cp-strategy must be set|Prefill CP on HIP is only supported for",
         {"context_parallelism_checks"}),
        (r"--prefill-decode-interval(-min-bs)? must be non-negative",
         {"prefill_decode_interval_check"}),
        (r"--enable-response-store is not supported with", {"response_store_check"}),
        (r"--sampling-mask-max-tokens must be positive", {"sampling_mask_max_tokens_check"}),
        (r"--speculative-draft-window-size must be positive|"
         r"--speculative-draft-sink-size requires", {"speculative_draft_window"}),
        (r"--cuda-graph-config\[\w+\]\.backend=.* not allowed",
         {"validate_cuda_graph_config"}),
        (r"--prefill-only-disable-kv-cache requires --(chunked-prefill-size=-1|"
         r"disable-radix-cache)", {"prefill_only_kv_cache_args"}),
        (r"--disaggregation-decode-enable-radix-cache is incompatible with speculative",
         {"speculative_decode_radix_check"}),
        (r"FlashInfer backend can significantly degrade the performance of Olmo3",
         {"olmo2_backend_check"}),
        (r"--enable-dsa-cache-layer-split is only supported on PD prefill|"
         r"CP is only supported for prefill when PD disaggregation",
         {"dsa_context_parallel_checks"}),
        (r"--enable-dsa-cache-layer-split is only supported for DSA|"
         r"--enable-cp-decode-attn-tp is only supported for models",
         {"model_arch_constraints"}),
        (r"--prefill-only-disable-kv-cache currently requires the FA prefill backend",
         {"prefill_only_kv_backend_check"}),
        (r"DeepSeek V3.2 prefill CP does not support --cp-strategy zigzag",
         {"context_parallelism_checks"}),
        (r"--mm-feature-transport=cuda_(ipc|vmm)", {"mm_feature_transport_default"}),
        # the DeepSeek families' and DeepSeek-V4's CP layouts assert it before the DP check
        (r"--dp-size \d+ with --attn-dp-size \d+: data-parallel replicas",
         {"data_parallelism_checks", "deepseek_family_overrides",
          "deepseek_v4_context_parallel"}),
        (r"Auto-rounding --chunked-prefill-size for KV sharding would consume",
         {"kv_cache_sharding"}),
        (r"--enable-kv-cache-sharding is only supported|"
         r"--enable-kv-cache-sharding does not support streaming sessions", {"kv_cache_sharding"}),
        (r"--prefill-only-disable-kv-cache currently requires", {"prefill_only_kv_cache_args"}),
        (r"--swa-full-tokens-ratio should be in range|"
         r"enable-hierarchical-cache and disable-radix-", {"cache_compatibility"}),
        (r"--enable-page-major-kv-layout without", {"page_major_kv_layout"}),
        (r"--enable-unified-memory", {"unified_memory_pool"}),
        (r"SGLANG_RUST_SERVER serves the PD KV bootstrap registry on the api port",
         {"pd_server_roles"}),
        (r"is not supported for encoder disaggregation|--enable-prefix-mm-cache requires|"
         r"Cannot set --encoder-only|Muse language-only servers",
         {"encoder_disaggregation_checks"}),
        (r"--cuda-graph-prefill-max-context exceeds", {"finalize_cuda_graph_prefill_max_context"}),
        # MoE kernels and all-to-all backends
        (r"FlashInfer MoE A2A is supported with", {"a2a_flashinfer_checks"}),
        (r"FlashInfer MoE A2A (requires chunked prefill|per-rank token budget exceeds)",
         {"flashinfer_a2a_token_budget"}),
        (r"Invalid quantization '.*'\.\s+FlashInfer (Cutlass|CuteDSL|TRTLLM|TRTLLM routed) MOE",
         {"moe_runner_quant_checks"}),
        # the runner's own A2A and EP limits (CuteDSL's A2A list, Cutlass FP8 without EP)
        (r"flashinfer_cutedsl supports moe_a2a_backend=|"
         r"FP8/MXFP8 Cutlass MoE is only supported with ep_size == 1",
         {"moe_runner_quant_checks"}),
        (r"moe_a2a_backend='pplx' (requires attention DP|only supports low-latency mode)|"
         r"SGLANG_(MORI|PPLX)_NUM_MAX_DISPATCH_TOKENS_PER_RANK .* must be >=",
         {"a2a_mori_pplx_modes"}),
        (r"--enable-tp-lm-head-all-to-all (requires attention DP|currently requires)|"
         r"--enable-dp-lm-head",
         {"dp_lm_head_validation"}),
        (r"--moe-a2a-backend megamoe (needs|has no)", {"megamoe_compat"}),
        (r"with MegaMoE requires|SGLANG_AMD_FLYDSL_MEGA_MOE_DECODE_MTPR( is not supported|"
         r" needs|=\d+ must cover)", {"megamoe_token_budget"}),
        (r"SGLANG_MOE_NVFP4_DISPATCH cannot be set together with|CuTe DSL NVFP4 W4A16 "
         r"requires BF16 FlashInfer MoE dispatch", {"a2a_flashinfer_checks"}),
        (r"flashinfer_cutedsl per-token NVFP4 activation requires", {"moe_runner_quant_checks"}),
        (r"FlashInfer MegaMOE|SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE",
         {"a2a_flashinfer_megamoe_checks"}),
        (r"DeepEP v2 MoE is not validated for '", {"deepep_v2_model_check"}),
        (r"DeepEP v2 MoE is not validated as a speculative draft", {"deepep_v2_draft_check"}),
        (r"DeepEP v2 per-rank (prefill budget|decode CUDA graph) exceeds",
         {"deepep_v2_token_budget"}),
        # model families (the reach suite)
        (r"Gemma4 only supports", {"gemma4_backend_check"}),
        (r"is required for Llama4 model", {"llama4_backend_check"}),
        (r"One of the attention backends in .* is required for Exaone",
         {"exaone_backend_check"}),
        (r"Lfm2(Moe)?ForCausalLM does not support triton attention", {"lfm2_backend_check"}),
        (r"MiMoV2ForCausalLM requires effective attention TP size",
         {"mimo_v2_attention_tp_check"}),
        (r"MossVLForConditionalGeneration requires flashinfer prefill",
         {"moss_vl_overrides"}),
        (r"ERNIE 4.5 VL MoE does not support DP attention", {"ernie45_vl_overrides"}),
        (r"MiniCPM does not support DP attention|MiniCPM SALA does not support hierarchical",
         {"minicpm_sala_overrides"}),
        (r"Nemotron-H does not support --attn-cp-size|LongCat-Flash does not support "
         r"--enable-prefill-cp with --attn-cp-size", {"boundary_parallelism"}),
        (r"DeepSeek-V4.1 does not support|"
         r"--enable-decoder-swa-bounded-replay cannot be combined with",
         {"deepseek_v41_features"}),
        (r"--enable-two-batch-overlap is not supported with DSA index-topk sharing",
         {"dsa_two_batch_overlap_check"}),
        (r"Only EAGLE and DSPARK speculative algorithms are supported for DeepseekV4|"
         r"Only EAGLE speculative algorithm with topk == 1 is supported for DeepseekV4|"
         r"\S+ is not supported for DeepseekV4ForCausalLM", {"deepseek_v4_defaults"}),
        (r"Invalid expert_pack configuration", {"expert_pack_checks"}),
        # every refusal of the IQuest Q1 override hook (both spellings of the name)
        (r"IQuest ?Q1 (MTP requires serial EAGLE or NEXTN|does not support|applies its "
         r"attention sink|requires FA3 attention for the MTP draft|speculative decoding "
         r"requires|MTP drafting does not support)", {"iquest_q1_overrides"}),
        # and of its MTP draft hook
        (r"IQuest Q1 requires an independent (draft model path|MTP draft checkpoint)|"
         r"MTP draft (hidden size and vocabulary|target layer count) must match the target|"
         r"MTP uses its own full-vocabulary|MTP requires (positive speculative_num_steps|"
         r"--speculative-eagle-topk 1)|MTP verification width must equal",
         {"iquest_q1_mtp_draft"}),
        (r"Gemma4AssistantForCausalLM draft requires --speculative-algorithm",
         {"speculative_gemma4_assistant"}),
        (r"--enable-kv-cache-sharding currently requires the fa3 prefill",
         {"kv_cache_sharding", "kv_cache_sharding_recheck"}),
        (r"DSA KV sharding requires|CP-sharded DSA HiCache requires|"
         r"--enable-kv-cache-sharding supports HiCache host offload but not|"
         r"--enable-kv-cache-sharding does not support (dynamic chunk sizing|chunked/local-att|"
         r"encoder-decoder)|--enable-kv-cache-sharding is incompatible with SGLANG_DISAGG_ST|"
         r"KV sharding supports speculative decoding only for GLM DSA",
         {"kv_cache_sharding", "kv_cache_sharding_recheck"}),
        (r"experimental_sgl_marlin (EP requires|LoRA requires)", {"experimental_marlin_checks"}),
        (r"media_url_max_file_size_mb must be non-negative|allowed media domain|"
         r"Invalid allowed media domain", {"media_url_policy"}),
        (r"CP-TP group sharing|CP/TP group sharing|"
         r"(linear_num_key_heads|linear_num_value_heads|num_heads)=\d+ must be divisible by "
         r"--tp-size=", {"cp_tp_group_sharing"}),
        (r"--enable-pd-role-switch does not rebuild role-specific state",
         {"pd_role_switch_checks"}),
        (r"SGLANG_DISAGG_STAGING_BUFFER requires disaggregation_transfer_backend",
         {"pd_staging_buffer_transport"}),
        (r"--enable-deepseek-v4-fp4-indexer requires SM100", {"environment_variable_checks"}),
        (r"dwdp_size \(\d+\) must equal tp_size|DWDP requires|EPLB dynamic migration "
         r"conflicts with static DWDP|DWDP does not support|DWDP's prefetch event protocol",
         {"dwdp_layout"}),
        # SGLang's launcher check (check_server_args; the launcher suite)
        (r"chunked_prefill_size must be divisible by page_size",
         {"launcher_chunk_page_alignment"}),
        (r"--disable-cuda-graph-padding is incompatible with --enable-torch-compile|"
         r"pp_max_micro_batch_size must be a positive|moe_dense_tp_size only supports|"
         r"base_gpu_id must be non-negative|gpu_id_step must be positive|"
         r"served_model_name cannot contain a colon|tp_size must be divisible by number of "
         r"nodes|multi-node data-parallel replicas", {"launcher_layout_checks"}),
        (r"schedule_conservativeness must be non-negative|PD-Multiplexing is not compatible|"
         r"To use priority scheduling, schedule_policy must be|--retraction-policy priority "
         r"requires|--kv-canary-sweep-interval requires|Tokenizer worker num must",
         {"launcher_scheduling_checks"}),
        (r"enable_mixed_chunk is not supported with speculative_algorithm",
         {"launcher_spec_mixed_chunk"}),
        (r"max_loras_per_batch must be positive|When no initial --lora-paths is provided|"
         r"If 'all' is specified in --lora-target-modules|The number of LoRA paths should not|"
         r"max_loaded_loras should be greater than or equal|Enabling LoRA overlap loading "
         r"requires|LoRA is only compatible with|LoRA with EAGLE/NEXTN/EAGLE3 speculative|"
         r"--lora-backend triton_v2 does not yet support|--moe-runner-backend lora_\w+ |"
         r"--speculative-moe-runner-backend lora|--max-lora-chunk-size must be|"
         r"--lora-drain-wait-threshold must be|When providing LoRA paths as a list of dict|"
         r"Invalid type for (item in )?--lora-paths", {"launcher_lora_checks"}),
        (r"--watermark-config requires --enable-watermark|--enable-watermark (requires|is|"
         r"does|supports)|ValueError: watermark (key|context_window|mixing_probability|"
         r"max_probability|default_enabled)", {"launcher_watermark_checks"}),
        (r"tokens-buckets (cannot be empty|TSE |default rule|custom rule)|Unsupported "
         r"--(prompt|generation)-tokens-buckets rule type|Please set "
         r"--tokenizer-metrics-custom-labels-header|--export-metrics-to-file-dir is required|"
         r"When setting gc_threshold|Multimodal (processor|I/O) worker num must",
         {"launcher_metrics_checks"}),
        (r"When enabling two batch overlap without an EP a2a backend",
         {"launcher_two_batch_overlap_check"}),
        (r"MindSpore model impl is only supported|InstantTensor requires a CUDA-compatible|"
         r"Communications quantization is only|--sampling-backend intel_xpu requires|"
         r"--grpc-port \(\d+\) must differ from --port", {"launcher_device_checks"}),
        (r"Pipeline parallelism (is not compatible with overlap|currently only supports EAGLE)|"
         r"Pipeline parallel DSPARK requires|SGLANG_ENABLE_PP_SPEC (does not support|is not "
         r"compatible)|PP \+ speculative decoding \(MTP\) is only supported|"
         r"--min-free-slots-delay is not supported with pipeline",
         {"launcher_pipeline_parallel_checks"}),
        (r"--enable-hisparse is only supported for DSA|Hierarchical sparse attention "
         r"currently requires --disable-radix-cache|--enable-hisparse does not support "
         r"--enable-mixed-chunk|minimal HiSparse spec integration|HiSparse speculative "
         r"decoding uses statically|--enable-hisparse is not supported with the unified-KV|"
         r"HiSparse requires one of|HiSparse supports DSA \w+ backend",
         {"launcher_hisparse_checks"}),
        # values outside a field's range (the extreme-number suite)
        (r"--prefill-decode-interval(-min-bs)? must be non-negative",
         {"prefill_decode_interval_check"}),
        (r"Decode context parallel size .* must be >= 1|--dcp-comm-backend \S+ only affects|"
         r"--dcp-size > 1 does not support --enable-prefill-cp|"
         r"--dcp-comm-backend fi_a2a delegates|--dcp-replicate-q-proj (requires|only applies)",
         {"decode_context_parallel_checks"}),
        (r"--attn-dp-size must be positive", {"data_parallelism_checks"}),
        # an attention DP or CP width of 0 divided by before any check of it (and MiMo-V2's
        # fused-QKV modulo by an effective attention TP of 0, the Mamba track interval's by a
        # page size of 0, NGRAM's draft tokens by a BFS breadth of 0; 0.5.21's tp_size % dp_size
        # under --enable-dp-attention --dp-size 0): the bare arithmetic error
        (r"^ZeroDivisionError: integer (division or )?modulo by zero$",
         {"data_parallelism_checks",
          "dsa_attention_tp_width", "deepseek_family_overrides", "deepseek_v4_defaults",
          "deepseek_v4_context_parallel", "mimo_v2_attention_tp_check",
          "shared_experts_tp_checks", "megamoe_token_budget", "pd_server_roles",
          "mamba_radix_cache", "mamba_radix_cache_for_linear_attn_spec", "ngram_defaults"}),
        (r"tp_size must be divisible by (attn_cp_size|moe_dp_size|attn_dp_size \* attn_cp_size)|"
         r"ep_size \* moe_dp_size must be (less than or )?equal to tp_size|"
         r"attn_cp_size != moe_dp_size is only supported", {"context_parallelism_checks"}),
        (r"--cuda-graph-prefill-max-context must be a positive integer|"
         r"page_size must be resolved before prefill CUDA graph max context",
         {"finalize_cuda_graph_prefill_max_context"}),
        (r"--speculative-draft-(window|sink)-size (must|requires)", {"speculative_draft_window"}),
        (r"mm_preprocess_cache_size_mb must be non-negative", {"serving_value_checks"}),
        (r"--sampling-mask-max-tokens must be positive", {"sampling_mask_max_tokens_check"}),
        (r"--swa-prefix-tails should be a non-negative|"
         r"--disaggregation-decode-retraction-backup=host_pool is only",
         {"cache_compatibility"}),
        (r"--disaggregation-decode-host-receive-threshold must be between",
         {"pd_transfer_settings"}),
        # a non-integer capture size reaches SGLang's range() while sizing the graphs
        (r"'float' object cannot be interpreted as an integer", {"cuda_graph_sizing"}),
        # flags combined with what they need (the wild suite)
        (r"Quantization method specified in the model config \(.*\) does not match|"
         r"\w+ quantization is currently not supported in ROCm",
         {"model_quantization_check"}),
        (r"--return-aux-hidden-state-layer-ids requires --enable-return-aux-hidden-states",
         {"aux_hidden_state_capture"}),
        (r"--flashinfer-a2a-dispatch-type requires --moe-a2a-backend flashinfer|"
         r"--flashinfer-a2a-dispatch-type (nvfp4|mxfp8) requires|"
         r"CuTe DSL NVFP4 W4A16 requires --flashinfer-a2a-dispatch-type bf16|"
         r"Flashinfer MoE A2A (requires|is only supported with) (--attn-dp-size equal to "
         r"--tp-size|dp_size == tp_size and --enable-dp-attention)",
         {"a2a_flashinfer_checks"}),
        (r"mm_process_config must be a dict", {"serving_value_checks"}),
        (r"--asr-max-(buffer-seconds|concurrent-sessions) must be positive", {"asr_value_checks"}),
        (r"--speculative-use-block-verification only supports",
         {"speculative_block_verification"}),
        (r"--ple-offload-embedding cannot be combined with --cpu-offload-gb|"
         r"--ple-offload-backend file requires --ple-offload-embedding",
         {"offload_compatibility", "offload_compatibility_recheck"}),
        # with HiCache on, handle_hicache's DCP step says it first (same words)
        (r"--enable-lmcache with --dcp-size > 1 is not supported",
         {"cache_compatibility", "hicache_normalization"}),
        # DeepSeek-V4's trtllm kernel: Blackwell, an FP8 cache, chunked prefill, no HiSparse,
        # no PD (every release)
        (r"--dsv4-attn-backend trtllm (does not support PD disaggregation|requires an SM100|"
         r"requires kv_cache_dtype=fp8_e4m3|does not support enable_hisparse|requires chunked "
         r"prefill)", {"deepseek_v4_defaults"}),
        # the decode host pools: the host-pool backup without DCP (priority scheduling without
        # preemption), decode KV offload with a storage backend and not with that backup
        (r"--disaggregation-decode-retraction-backup=host_pool (does not support --dcp-size|"
         r"requires --disable-priority-preemption)|The argument "
         r"disaggregation-decode-enable-offload-kvcache is only supported when hicache-storage|"
         r"The arguments disaggregation-decode-enable-offload-kvcache and "
         r"disaggregation-decode-retraction-backup=host_pool are mutually exclusive",
         {"cache_compatibility"}),
        (r"Context parallel only supports single machine \(tp_size <= 8\)",
         {"deepseek_family_overrides", "deepseek_v4_context_parallel"}),
        # DeepSeek-V4 prefill CP: its strategies, and its ROCm limits
        (r"DeepSeekV4 only supports interleave/zigzag CP strategy|"
         r"DeepSeekV4 prefill CP on HIP (requires|does not support)|"
         r"DeepSeekV4 zigzag CP requires the NPU backend",
         {"deepseek_v4_context_parallel"}),
        # Kimi-K3 decode CP on cutedsl_mla: FlashInfer's DCP-capable MLA decode is absent
        (r"Kimi-K3 DCP with decode_attention_backend='cutedsl_mla' requires enable_dcp|"
         r"Decode attention backend for Kimi-K3 DCP must be",
         {"kimi_k3_overrides"}),
        (r"--radix-eviction-policy tlru needs 'threshold' greater than",
         {"cache_compatibility"}),
        (r"LMCacheUnifiedRadixCache does not yet support DP attention",
         {"cache_compatibility"}),
        (r"Native NVFP4 prefill currently requires SM100", {"nvfp4_prefill_dequant"}),
        (r"quantize_and_serve requires ModelOpt quantization|"
         r"quantize_and_serve functionality is currently disabled",
         {"quantize_and_serve_check"}),
        (r"Stochastic rounding for the Mamba SSM cache|--mamba-cache-philox-rounds must be|"
         r"--mamba-max-states-per-path must be|FlashInfer mamba module not available",
         {"mamba_backend_checks"}),
        (r"--mamba-radix-cache-strategy extra_buffer(_lazy)? needs mamba state",
         {"mamba_radix_cache"}),
        # the Mamba radix cache's strategy checks (validate_mamba_no_buffer and the extra-buffer
        # ones), made by the rule for linear-attention speculation too
        (r"no_buffer only supports page_size=1|no_buffer do not support (overlap schedule|"
         r"trtllm_mha attention backend)|extra_buffer is not supported for \S+; use no_buffer|"
         r"extra_buffer_lazy unsupported under PD disaggregation",
         {"mamba_radix_cache", "mamba_radix_cache_for_linear_attn_spec"}),
        (r"--dcp-comm-backend (a2a|fi_a2a) only affects|--dcp-comm-backend fi_a2a delegates|"
         r"--dcp-replicate-q-proj (requires|only applies)", {"decode_context_parallel_checks"}),
        (r"^WatermarkConfigError: ", {"watermark_config"}),
        (r"--language-model-only (does not support|cannot be combined|is incompatible)",
         {"language_model_only_checks"}),
        (r"disaggregation-decode-enable-offload-kvcache is only supported for decode",
         {"cache_compatibility"}),
        (r"NVFP4 decode requires --decode-attention-backend", {"nvfp4_prefill_dequant"}),
        (r"--quantization nvfp4_online (is supported only on|supports only --moe-runner-backend)",
         {"moe_runner_quant_constraints"}),
        (r"--enable-page-major-kv-layout: (the resolved attention backends|linear-attention "
         r"(DECODE|PREFILL) backend must|requires the Triton Mamba kernels)",
         {"page_major_kv_layout"}),
        # the hierarchical cache and the external linker (the wild4 suite)
        (r"--hicache-host-memory-fraction must be in \(0, 1\]", {"hicache_ratio_default"}),
        (r"--unified-cache-external-linker-config|--enable-linker-mla-dedup requires|"
         r"--enable-unified-cache-external-linker (requires|and --enable-hier|does not use)|"
         r"--hicache-host-memory-mode buffer_only (requires a storage|is not supported on "
         r"decode|does not support --hicache-write)|The resolved HiCache storage layout|"
         r"HiCache L3 with DCP|HiCache with --dcp-size|--enable-hisparse with --dcp-size > 1 "
         r"is not supported: the HiSparse host|--hicache-storage-backend \(L3\) with --dcp",
         {"hicache_normalization"}),
        (r"--enable-lmcache and --enable-(hierarchical-cache|unified-cache-external-linker) are "
         r"mutually|--enable-lmcache requires radix|LMCacheUnifiedRadixCache (does not yet "
         r"support (speculative|streaming)|currently supports colocated)|"
         r"--hicache-host-memory-mode=buffer_only is a HiCache-only|"
         r"disaggregation-decode-enable-offload-kvcache is only supported when|"
         r"disaggregation-decode-retraction-backup=host_pool (are mutually|does not support)",
         {"cache_compatibility"}),
        (r"Cannot enable both --enable-tokenizer-batch-encode", {"tokenizer_batching"}),
        (r"--weight-cache-mode is not supported together|load_format='ipc_cache'",
         {"weight_cache_checks"}),
        (r"--shared-experts-tp-size", {"shared_experts_tp_checks"}),
        (r"--enable-int8-mamba-checkpoint", {"int8_mamba_checkpoint_checks"}),
        (r"DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype",
         {"dsa_kv_cache_dtype_default"}),
        (r"The expert parallel size must be 1 or the same as the tensor parallel size",
         {"moe_runner_quant_checks"}),
        (r"DeepEP v2 MoE has not implemented the TBO/SBO overlap hooks",
         {"a2a_deepep_v2_adjustments"}),
        (r"Prefill server does not support 'fake' as the transfer backend|"
         r"--disaggregation-decode-enable-radix-cache is incompatible with "
         r"--disaggregation-transfer-backend fake", {"pd_server_roles"}),
        (r"Decode host receive does not yet support HiSparse|Decode host KV buffering requires "
         r"host_pool retraction", {"pd_transfer_settings"}),
        (r"--enable-return-aux-hidden-states with \w+ requires --return-aux-hidden-state-layer",
         {"aux_hidden_state_capture"}),
        (r"--linear-attn-(decode|verify|prefill)-backend (flashinfer on SM100\+|flashkda is "
         r"not)|--enable-linear-replayssm|--linear-replayssm-cache-len must",
         {"linear_attn_backend_checks"}),
        (r"DSA backend is only supported on ROCm/HIP|CUDA TileLang FP8 KV (requires|does not "
         r"support)|uses learnable attention sinks and requires --dsa-",
         {"dsa_split_backend_resolution"}),
        (r"--deepep-v2-mode direct is NVLink-only", {"a2a_deepep_v2_adjustments"}),
        (r"DP spec/prefill coordination requires single-layer EAGLE",
         {"speculative_dp_coordination_check"}),
        (r"invalid SGLANG_RAGGED_VERIFY_MODE=", {"speculative_ragged_verify_mode_known"}),
        (r"Unknown model-config parser", {"model_config_parser_known",
                                          "model_config_parser_at_model_config"}),
        (r"--default-chat-template-kwargs must decode|prefill_complete requires optimistic|"
         r"Invalid modality .* in --limit-mm-data-per-request|watermark is not supported in "
         r"--preferred-sampling-params", {"other_validations"}),
        (r"--disable-fast-image-processor conflicts", {"deprecated_flags"}),
        (r"--grpc-response-timeout-secs must be positive|--grpc-port / SGLANG_GRPC_PORT|"
         r"SGLANG_GRPC_WORKER_THREADS \(|--sidecar(-args)? (requires|must)|"
         r"--grpc-port is (not supported|incompatible)|Native gRPC does not yet support",
         {"grpc_settings"}),
        # DeepSeek-V4's feature check words it as the capability check does
        (r"--enable-encoder-swa-bounded-replay requires DeepSeek-V4.1",
         {"encoder_replay_capability", "deepseek_v41_features"}),
        (r"--ssl-(keyfile|certfile) requires|--ssl-ca-certs has no effect|"
         r"--ssl-keyfile-password has no effect|--enable-ssl-refresh (requires|is not)|"
         r"--enable-http-worker-reuseport requires|--http2-(max-concurrent-streams|"
         r"initial-connection-window-size) must be|SSL (key|certificate|CA certificates) file "
         r"not found", {"ssl_http_checks"}),
        (r"--enable-layernorm-sp (is only supported|requires|is not compatible|supports)|"
         r"Muse Spark --enable-layernorm-sp|--enable-megamoe-for-layernorm-sp (requires|"
         r"supports)", {"layernorm_sp_checks"}),
        (r"--disaggregation-decode-allocation-policy prefill_complete does not yet support",
         {"prefill_complete_allocation_checks"}),
        (r"--ep-dispatch-algorithm \w+ picks a different physical replica", {"eplb_dispatch"}),
        (r"--elastic-ep-join-mode requires --elastic-ep-backend|Elastic EP requires "
         r"eplb_algorithm|PP size should be set to 1 under elastic EP|"
         r"Elastic EP scale-up requires one joining TP group|"
         r"Elastic EP scale joiners require --elastic-ep-join-rank-offset|"
         r"--elastic-ep-join-rank-offset is only valid|join rank offset must be >= 0|"
         r"--max-ep-size (requires|must be)|--elastic-ep-initial-size is only valid",
         {"elastic_ep_checks"}),
        (r"Invalid attention topology|EP size -?\d+ must be divisible by attention replica|"
         r"Elastic EP scale-up (with attention TP|requires (--|attention DP|ep_size))|"
         r"--elastic-ep-scale-timeout must be|Elastic EP runtime scale-up|"
         r"Elastic EP scale joiners require --elastic-ep-initial-size|"
         r"--elastic-ep-initial-size cannot exceed|Elastic EP joining group exceeds|"
         r"single-rank Elastic EP joining group|primary --elastic-ep-initial-size must|"
         r"Elastic EP CUDA graph recapture", {"elastic_ep_scale_up"}),
        # first met by the refusals suite (tools/gen_refusals_cases.py), each in the rule
        # whose sglang= metadata names the function that raises it
        (r"DSA DCP (does not support|requires)", {"deepseek_family_overrides"}),
        (r"--disaggregation-decode-enable-radix-cache is incompatible with --enable-hisparse",
         {"pd_server_roles"}),
        (r"--enable-kv-cache-sharding currently only supports the mooncake and nixl",
         {"kv_cache_sharding"}),
        (r"moe_a2a_backend='pplx' is only supported with --moe-runner-backend",
         {"a2a_mori_pplx_modes"}),
        (r"DeepEP v2 MoE (currently supports only --moe-runner-backend|has not validated fused)",
         {"a2a_deepep_v2_adjustments"}),
        (r"flashinfer_cutedsl FP4 MoE only supports DeepEP low_latency",
         {"a2a_deepep_adjustments"}),
        (r"Triton kernel MoE is only supported when ep_size == 1", {"gpt_oss_backend_check"}),
        (r"does not support EPLB or redundant experts on Nemotro|without an a2a backend does "
         r"not migrate its expert scales", {"nemotron_h_overrides"}),
        # a plain modelopt method refined from a quant_algo the checkpoint does not have
        (r"AttributeError: 'NemotronH\w*Config' object has no attribute 'quantization_config'|"
         r"KeyError: 'quant_algo'", {"nemotron_h_overrides"}),
        (r"--speculative-use-rejection-sampling is only supported for EAGLE",
         {"eagle_rejection_sampling_checks"}),
        (r"--speculative-ngram-external-(sam-budget|corpus-max-tokens) must be positive|"
         r"speculative_ngram_external_sam_budget must be less than", {"ngram_defaults"}),
        (r"DFLASH requires --speculative-dflash-block-size|--speculative-num-draft-tokens and "
         r"--speculative-dflash-block-size are set but they differ|--speculative-draft-window-"
         r"size must be >= --speculative-num-draft-tokens", {"dflash_defaults"}),
        (r"UNO (does not support|tree mode)", {"uno_defaults"}),
        (r"IQuestQ1 (applies its attention sink|does not support|speculative decoding requires|"
         r"requires FA3)|IQuest Q1 MTP drafting does not support", {"iquest_q1_overrides"}),
        (r"IQuest Q1 requires an independent|MTP (verification width|draft hidden size|draft "
         r"target layer|requires positive|requires --speculative-eagle-topk|uses its own full)",
         {"iquest_q1_mtp_draft"}),
        (r"Kimi-K3 DCP with decode_attention_backend=", {"kimi_k3_overrides"}),
        (r"Qwen4-Exp (does not support|PD with MORI)|--qsa-indexer-dtype fp8_e4m3 requires",
         {"qwen4_exp_overrides"}),
        (r"MiniCPM sparse attention does not support PD", {"minicpm_sala_overrides"}),
        (r"MiMo V2 prefill CP only supports|Aiter allreduce fusion is not supported with "
         r"context parallelism", {"context_parallelism_checks"}),
        (r"Intern-S2-Mobius does not support", {"model_arch_constraints"}),
        (r"--enable-dsa-cache-layer-split (requires|currently only supports|is not supported)",
         {"dsa_context_parallel_checks"}),
        (r"--dsv4-attn-backend (flashmla_mega requires|trtllm does not support context)",
         {"deepseek_v4_defaults"}),
        (r"--enable-return-aux-hidden-states (captures without a draft|only supports pp_size)|"
         r"--return-aux-hidden-state-layer-ids must", {"aux_hidden_state_capture"}),
        (r"SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS is no longer supported",
         {"sampling_mask_max_tokens_check"}),
        (r"Prefill context parallelism with the TRTLLM MHA prefill backend requires SM100",
         {"trtllm_mha_platform_checks"}),
        (r"SM100 native NVFP4 speculative decoding (requires --speculative-draft-attention|does "
         r"not yet support)", {"kv4_compatibility"}),
        (r"--load-publish-endpoint (requires|needs an active) --kv-events-config|"
         r"--kv-events-config is not parseable", {"launcher_load_publish_checks"}),
        (r"--enable-kv-cache-sharding requires chunked prefill", {"kv_cache_sharding"}),
        (r"DeepSeek-V4.1 TRT-LLM requires --cuda-graph-backend-prefill|"
         r"--enable-encoder-swa-bounded-replay does not support", {"deepseek_v41_features"}),
        (r"encoder SWA replay requires --max-running-requests", {"encoder_replay_capability"}),
        (r"MiniCPM SALA does not support hierarchical cache", {"minicpm_sala_overrides"}),
        (r"mm_process_config\[.*\] must be a dict", {"serving_value_checks"}),
        (r"--enable-page-major-kv-layout requires the Triton Mamba kernels",
         {"page_major_kv_layout"}),
        # EmbeddingGemma's capability hook declares the KV-less prefill and runs the same
        # validator again, so its refusals are worded as the validator's
        (r"--prefill-only-disable-kv-cache (does not currently support|is incompatible with)",
         {"prefill_only_kv_cache_args", "embedding_gemma_capability"}),
        (r"supported for deterministic inference with absorbed-MLA models",
         {"deterministic_mla_backend_check"}),
        (r"DeepSeekV4 CP supports moe_a2a_backend in", {"deepseek_v4_context_parallel"}),
        (r"--radix-eviction-policy tlru requires non-negative", {"cache_compatibility"}),
        (r"KV sharding with trtllm_mla|--enable-kv-cache-sharding (does not support|and decode "
         r"context parallelism|requires a real page size|for (GQA|MLA) models)",
         {"kv_cache_sharding"}),
        (r"Muse MegaMoE (prefill requires --moe-a2a-backend|requires positive|needs \d+ tokens "
         r"per rank|breakable prefill requires)|--enable-megamoe-for-layernorm-sp is "
         r"incompatible with --enable-mixed-chunk", {"layernorm_sp_checks"}),
        (r"UNO manages its own stochastic verification", {"uno_defaults"}),
        # the launcher check's (check_server_args) scheduling asserts
        (r"PD-Multiplexing is (only supported|not compatible)|Detokenizer worker num must|"
         r"Multimodal processor worker num must", {"launcher_scheduling_checks"}),
        # the refusals suite's seventh batch: wordings of refusals launchplan already made
        (r"UNO only supports CUDA", {"uno_defaults"}),
        # SGLang's RDMA device check (rules/rdma_devices.py), reached by both Mooncake rules:
        # a list naming no device, and a per-GPU JSON mapping that is malformed or empty
        (r"No valid IB devices specified( for (all GPUs|GPU \d+))?$|"
         r"No valid GPU mappings found in JSON|Invalid JSON mapping: |"
         r"Invalid format: keys must be integers|invalid literal for int\(\) with base 10|"
         # and the host's devices (Target.ib_devices): names it lacks, none, no InfiniBand
         r"Invalid IB devices specified for |No IB devices found in /sys/class/infiniband|"
         r"InfiniBand sysfs path not found",
         {"encoder_disaggregation_checks", "elastic_ep_checks"}),
        (r"cuda_graph_config\[decode\]\.bs should contain positive batch sizes",
         {"cuda_graph_sizing"}),
        (r"Kimi-K3 DCP \+ DSPARK currently requires SGLANG_RAGGED_VERIFY_MODE",
         {"kimi_k3_overrides"}),
        # DSpark's own wording is matched too ("DSpark" in it); the feature limits refuse it
        (r"DeepSeek-V4.1 DSpark PD requires static verify", {"deepseek_v41_features"}),
        (r"Ngram speculative decoding only supports CUDA, CPU, or XPU", {"ngram_defaults"}),
        (r"--speculative-use-rejection-sampling is incompatible with "
         r"--speculative-accept-threshold|Deterministic rejection sampling is currently "
         r"supported only on CUDA", {"eagle_rejection_sampling_checks"}),
        (r"PP is not supported with context parallelism", {"context_parallelism_checks"}),
        (r"--prefill-kv-cache-dequant-dtype=\w+ requires prefill backend",
         {"nvfp4_prefill_dequant"}),
        (r"--enable-kv-cache-sharding requires the built-in UnifiedRadixCache",
         {"kv_cache_sharding"}),
        (r"CP is only supported for prefill when PD disaggregation",
         {"dsa_context_parallel_checks"}),
        (r"is not in the adaptive config candidate_steps|speculative_adaptive_config must "
         r"contain at least one|candidate_steps must be a list of non-negative ints",
         {"speculative_adaptive_params"}),
        (r"either chunk_size or page_size must be divisible by the other",
         {"mamba_radix_cache"}),
        (r"For round-robin split mode, dp attention is not supported",
         {"deepseek_v4_context_parallel"}),
        (r"W4A16_NVFP4 MoE layers require --moe-runner-backend=marlin, or flashinfer_cutedsl",
         {"qwen3_moe_family_overrides"}),
    ))


# The older releases' own wording (0.5.22, 0.5.21) of a refusal, or a refusal a rule's older
# variant makes where 0.5.23 refuses elsewhere: read only for those releases' recordings.
OLDER_REFUSALS: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (pattern, frozenset(rules)) for pattern, rules in (
        (r"tokenspeed_mla backend (requires kv-cache-dtype|is only supported on Blackwell)",
         {"trtllm_mla_checks"}),
        # the PD role check refuses a decode radix cache under speculation before 0.5.23
        (r"--disaggregation-decode-enable-radix-cache is incompatible with speculative",
         {"pd_server_roles"}),
        (r"--speculative-use-rejection-sampling is incompatible with "
         r"--enable-deterministic-inference", {"eagle_rejection_sampling_checks"}),
        (r"--speculative-skip-dp-mlp-sync is only supported with speculative_algorithm",
         {"speculative_algorithm_known"}),
        (r"--enable-kv-cache-sharding (requires the Python UnifiedTreeCore|does not support "
         r"--enable-hierarchical-cache)", {"kv_cache_sharding", "kv_cache_sharding_recheck"}),
        (r"--sidecar is not yet supported with SGLANG_RUST_SERVER", {"grpc_settings"}),
        (r"Prefill CP on HIP/MUSA is deprecated", {"prefill_cp_platform_check"}),
        (r"moe_a2a_backend='pplx' requires --enable-dp-attention", {"a2a_mori_pplx_modes"}),
        (r"Please enable dp attention when setting enable_(dp_lm_head|tp_lm_head_all_to_all)",
         {"dp_lm_head_validation"}),
        (r"multi-node data parallel is not supported unless dp attention",
         {"launcher_layout_checks"}),
        # 0.5.22's encoder replay budget, checked among DeepSeek-V4.1's feature limits
        (r"encoder SWA replay requires explicit --max-running-requests",
         {"deepseek_v41_features"}),
        (r"FlashInfer MoE A2A with flashinfer_cutedsl requires "
         r"SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK", {"flashinfer_a2a_token_budget"}),
        # DFLASH under attention DP: NPUs only before 0.5.23
        (r"Currently DFLASH speculative decoding does not support dp attention on non-NPU",
         {"dflash_defaults"}),
        # 0.5.21's TileLang DSA kernels take no FP8 cache on CUDA
        (r"DSA prefill/decode kernels only support an fp8_e4m3 KV cache on ROCm",
         {"dsa_split_backend_resolution"}),
        # 0.5.21's wordings: attention DP under interleaved DSA CP, the DP x CP width, and the
        # transfer backends a PD decode server's DCP takes
        (r"interleave DSA CP does not support DP attention", {"deepseek_family_overrides"}),
        (r"tp_size must be divisible by dp_size \* attn_cp_size", {"context_parallelism_checks"}),
        (r"PD decode DCP requires --disaggregation-transfer-backend", {"pd_transfer_settings"}),
        # unified memory and asymmetric K/V rows (MiMo-V2): refused by the page-major
        # layout's checks before 0.5.23 (0.5.22's and 0.5.21's wordings)
        (r"--enable-unified-memory (does not yet admit asymmetric K/V rows|requires uniform "
         r"K/V rows)", {"page_major_kv_layout"}),
    )
)


def refusal_rules(error: str, older: bool = False) -> frozenset[str]:
    """The launchplan rules that may refuse for SGLang's error (empty: an unmapped error);
    ``older`` for an older release's recording, which may word it in its own way."""
    out: frozenset[str] = frozenset()
    for pattern, rules in REFUSALS + (OLDER_REFUSALS if older else ()):
        if re.search(pattern, error):
            out |= rules
    return out


# (field, SGLang source) -> (launchplan sources that agree, why they differ from the rule
# metadata). Each is a recorded difference in *how* the value is declared, never in the value.
SOURCE_EXCEPTIONS: dict[tuple[str, str], tuple[frozenset[str], str]] = {
    ("enable_flashinfer_allreduce_fusion", "_handle_deprecated_args"): (
        frozenset({"default"}),
        "SGLang re-declares the retired switch false on every launch, a no-op write unless it "
        "was given; launchplan declares it only then (deprecated_flags)."),
    ("speculative_algorithm", "handle_speculative_decoding"): (
        frozenset({"input", "default", "speculative_algorithm_upper", "speculative_nextn_alias",
                   "aux_hidden_state_capture", "speculative_gemma4_assistant"}),
        "SGLang's speculative hook re-declares the final algorithm on every launch, a no-op "
        "write; launchplan declares it only where a rule changes it. The value is the same either "
        "way; declaring it on every launch would add a no-op step to every plan's chain."),
    ("cuda_graph_config", "_handle_model_specific_adjustments"): (
        frozenset({"cuda_graph_sizing", "cuda_graph_compatibility"}),
        "With prefill CP on a DeepSeek MLA/DSA model SGLang's model-specific adjustments "
        "re-declare the prefill graph disabled even when the graph compatibility rule already "
        "disabled it (a no-op write); mla_prefill_cp_graph_disable and "
        "dsa_prefill_cp_graph_disable declare only a change. The value is the same either "
        "way; a no-op declaration would only lengthen the chain explain shows."),
    ("cuda_graph_config", "apply_prefill_cp_cuda_graph_default"): (
        frozenset({"cuda_graph_sizing", "cuda_graph_compatibility"}),
        "For a prefill-CP layout known to run a breakable prefill graph (zigzag on an explicit "
        "trtllm_mha), SGLang 0.5.23 turns the graph off in its compatibility step and a later "
        "hook turns it back on, after the graphs were sized; launchplan keeps it on in "
        "cuda_graph_compatibility, so its last declarer is the sizing rule. Same values."),
    ("lora_target_modules", "check_lora_server_args"): (
        frozenset({"input"}),
        "SGLang's launcher check (check_server_args, after resolution: only in rows recorded "
        "with it) re-declares the target modules as a set, the same modules; launchplan's "
        "plan is resolution's, where they stay as given."),
    ("cuda_graph_config", "_handle_gpu_memory_settings"): (
        frozenset({"unified_memory_pool"}),
        "handle_unified_memory_pool mutates the cuda_graph_config object in place (no "
        "declaration of its own), so SGLang's last declarer stays the memory hook; launchplan "
        "declares the change, which is the same value."),
}


def _identifiers(text: str) -> frozenset[str]:
    return frozenset(t.lstrip("_") for t in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


@cache
def _counterparts() -> dict[str, frozenset[str]]:
    """Each launchplan rule -> the SGLang function names its ``sglang=`` metadata names (the
    current rule's, where an older release's variant of it names another)."""
    specs = sorted(discover().values(), key=lambda spec: spec.variant is None)
    return {spec.name: _identifiers(spec.sglang) for spec in specs}


def source_agrees(field: str, sglang_source: str, launchplan_source: str) -> bool:
    """Whether launchplan's deciding rule corresponds to SGLang's recorded source."""
    if sglang_source in ("input", "default") or launchplan_source in ("input", "default"):
        if sglang_source == launchplan_source:
            return True
    else:
        names = _counterparts().get(launchplan_source, frozenset())
        base = re.split(r"[.\[]", sglang_source)[0].lstrip("_")  # MODEL_OVERRIDES['X']
        if base in names or base == launchplan_source:
            return True
    allowed = SOURCE_EXCEPTIONS.get((field, sglang_source))
    return allowed is not None and launchplan_source in allowed[0]
