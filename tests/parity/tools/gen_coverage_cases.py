"""Generate ``tests/parity/data/coverage-cases.json``: cases that bring rules no other
recorded case reaches in front of SGLang, comparing *every* field a rule may write.

    PYTHONPATH=src python tests/parity/tools/gen_coverage_cases.py [--append]
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py coverage

Each case aims at one rule of ``tests/parity/unmet_rules.py`` (its name says which); its
fields are the union of every rule's ``writes`` (fields private to SGLang and path-valued
fields, which the two sides spell differently, left out).
"""

from __future__ import annotations

import json
from pathlib import Path

from launchplan.rulesets import RULESETS

DATA = Path(__file__).parents[1] / "data"
# path-valued (the oracle answers absolute folders) or not a ServerArgs field
SKIP = {"tokenizer_path", "served_model_name", "speculative_draft_model_path"}
GRAPH = ["cuda_graph_config.decode.backend", "cuda_graph_config.decode.max_bs",
         "cuda_graph_config.prefill.backend", "cuda_graph_config.prefill.max_bs"]
EAGLE = ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path",
         "models/llama-3.1-8b-eagle", "--speculative-num-steps", "3",
         "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"]
EAGLE3 = ["--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path",
          "models/llama-3.1-8b-eagle3"]


def fields() -> list[str]:
    written: set[str] = set()
    for ruleset in RULESETS.values():
        for spec in ruleset.rules():
            written |= spec.writes
    plain = sorted(f for f in written if not f.startswith("_") and f not in SKIP
                   and f != "cuda_graph_config")
    return plain + GRAPH


def main() -> None:
    f = fields()
    cases: list[dict] = []

    def add(name: str, platform: str, model: str, argv: list[str], env=None) -> None:
        case = {"name": f"coverage/{name}", "platform": platform, "model": f"models/{model}",
                "argv": argv, "fields": f}
        if env:
            case["env"] = env
        cases.append(case)

    for model in ("llama-3.1-8b", "qwen3-8b", "qwen3-30b-a3b", "deepseek-v3",
                  "deepseek-v2-lite", "gpt-oss-20b", "mistral-7b-v0.3", "qwen2.5-7b"):
        for gpu in ("h100", "b200", "mi300x"):
            tp = ["--tp-size", "8"] if model == "deepseek-v3" else []
            add(f"defaults/{model}/{gpu}", gpu, model, tp)
    moe = "qwen3-30b-a3b"
    add("a2a_ascend_tp_normalize", "h100", moe, ["--tp-size", "2", "--moe-a2a-backend",
                                                 "ascend_tp"])
    add("a2a_mori_pplx_modes/mori", "mi300x", moe, ["--tp-size", "8", "--moe-a2a-backend",
                                                    "mori"])
    add("a2a_mori_pplx_modes/pplx", "h100", moe, ["--tp-size", "2", "--attn-dp-size", "2",
                                                  "--moe-a2a-backend", "pplx"])
    add("a2a_mori_pplx_modes/pplx-no-dp", "h100", moe, ["--tp-size", "2",
                                                        "--moe-a2a-backend", "pplx"])
    det = ["--tp-size", "2", "--enable-deterministic-inference"]
    add("deterministic_aiter_allreduce_disable", "mi300x", "llama-3.1-8b",
        det + ["--enable-aiter-allreduce-fusion"])
    add("deterministic_allreduce_fusion_disable", "h100", "llama-3.1-8b",
        det + ["--flashinfer-allreduce-fusion-backend", "trtllm"])
    add("deterministic_allreduce_fusion_off", "b200", "llama-3.1-8b",
        det + ["--enable-flashinfer-allreduce-fusion"])
    add("dp_lm_head_validation/dp-lm-head", "h100", "llama-3.1-8b",
        ["--tp-size", "2", "--enable-dp-lm-head"])
    add("dp_lm_head_validation/tp-all-to-all", "h100", "llama-3.1-8b",
        ["--tp-size", "2", "--enable-tp-lm-head-all-to-all"])
    add("eagle_hip_rejection_sampling", "mi300x", "llama-3.1-8b", EAGLE)
    add("launcher_chunk_page_alignment", "h100", "llama-3.1-8b",
        ["--page-size", "64", "--chunked-prefill-size", "1000"])
    add("launcher_layout_checks/torch-compile-no-padding", "h100", "llama-3.1-8b",
        ["--enable-torch-compile", "--disable-cuda-graph-padding"])
    add("launcher_layout_checks/moe-dense-tp", "h100", moe,
        ["--tp-size", "4", "--moe-dense-tp-size", "2"])
    add("launcher_layout_checks/pp-micro-batch", "h100", "llama-3.1-8b",
        ["--pp-size", "2", "--pp-max-micro-batch-size", "0"])
    add("launcher_scheduling_checks/conservativeness", "h100", "llama-3.1-8b",
        ["--schedule-conservativeness", "-1"])
    add("launcher_scheduling_checks/pdmux", "h100", "llama-3.1-8b", ["--enable-pdmux"])
    add("launcher_spec_mixed_chunk/ngram", "h100", "llama-3.1-8b",
        ["--speculative-algorithm", "NGRAM", "--enable-mixed-chunk"])
    add("launcher_spec_mixed_chunk/eagle", "h100", "llama-3.1-8b",
        EAGLE + ["--enable-mixed-chunk"])
    add("moe_runner_quant_checks/cutlass-fp8", "b200", "deepseek-v3",
        ["--tp-size", "8", "--moe-runner-backend", "flashinfer_cutlass"])
    add("moe_runner_quant_checks/cutedsl-bf16", "b200", moe,
        ["--tp-size", "2", "--moe-runner-backend", "flashinfer_cutedsl"])
    add("moe_runner_quant_checks/trtllm-bf16", "b200", moe,
        ["--tp-size", "2", "--moe-runner-backend", "flashinfer_trtllm"])
    pd = ["--disaggregation-mode"]
    add("mooncake_tcp_transport", "h100", "llama-3.1-8b",
        pd + ["prefill", "--disaggregation-transfer-backend", "mooncake_tcp"])
    add("pd_transfer_settings/prefill-complete", "h100", "llama-3.1-8b",
        pd + ["decode", "--disaggregation-decode-allocation-policy", "prefill_complete"])
    add("pd_transfer_settings/host-receive", "h100", "llama-3.1-8b",
        pd + ["decode", "--disaggregation-decode-host-receive-threshold", "0.5"])
    add("prefill_decode_interval_check/negative", "h100", "llama-3.1-8b",
        ["--prefill-decode-interval", "-1"])
    add("prefill_decode_interval_check/min-bs", "h100", "llama-3.1-8b",
        ["--prefill-decode-interval", "4", "--prefill-decode-interval-min-bs", "-2"])
    add("prefill_decode_interval_default/explicit", "h100", "llama-3.1-8b",
        ["--prefill-decode-interval", "4"])
    add("response_store_check", "h100", "llama-3.1-8b",
        ["--enable-response-store", "--disaggregation-mode", "prefill"])
    add("sampling_mask_max_tokens_check", "h100", "llama-3.1-8b",
        ["--sampling-mask-max-tokens", "0"])
    add("speculative_decode_radix_check", "h100", "llama-3.1-8b",
        pd + ["decode", "--speculative-algorithm", "NGRAM"])
    add("speculative_draft_window/zero", "h100", "llama-3.1-8b",
        EAGLE3 + ["--speculative-draft-window-size", "0"])
    add("speculative_draft_window/sink-only", "h100", "llama-3.1-8b",
        EAGLE3 + ["--speculative-draft-sink-size", "4"])
    add("speculative_draft_window/ok", "h100", "llama-3.1-8b",
        EAGLE3 + ["--speculative-draft-window-size", "512", "--speculative-draft-sink-size",
                  "4"])
    add("validate_cuda_graph_config/bad-backend", "h100", "llama-3.1-8b",
        ["--cuda-graph-config", '{"prefill": {"backend": "piecewise"}}'])
    add("prefill_only_kv_backend_check", "h100", "qwen3-8b",
        ["--is-embedding", "--prefill-only-disable-kv-cache", "--attention-backend",
         "flashinfer"])
    add("prefill_only_kv_backend_check/fa3", "h100", "qwen3-8b",
        ["--is-embedding", "--prefill-only-disable-kv-cache", "--attention-backend", "fa3"])
    add("sparse_head_overlap_disable", "h100", "qwen3-8b", ["--is-embedding"],
        {"SGLANG_EMBEDDINGS_SPARSE_HEAD": "1"})
    write("coverage", cases, f)
    write("families", families(f), f)
    write("reach", reach(f), f)
    write("launcher", launcher(f), f)


def families(f: list[str]) -> list[dict]:
    """Model families no bundled model belongs to (configs under tests/parity/models/)."""
    cases: list[dict] = []

    def add(name: str, platform: str, model: str, argv: list[str]) -> None:
        cases.append({"name": f"families/{name}", "platform": platform, "model": model,
                      "argv": argv, "fields": f})

    for name in ("gemma-2-9b-it", "olmo-2-1124-7b"):
        m = f"parity-models/{name}"
        for gpu in ("a100", "h100", "b200", "mi300x"):
            add(f"{name}/{gpu}", gpu, m, [])
        add(f"{name}/h100/flashinfer", "h100", m, ["--attention-backend", "flashinfer"])
        add(f"{name}/h100/fa3", "h100", m, ["--attention-backend", "fa3"])
        add(f"{name}/h100/tp2", "h100", m, ["--tp-size", "2"])
    dsa = "parity-models/deepseek-v3.2-exp"
    tp8 = ["--tp-size", "8"]
    for gpu in ("h100", "h200", "b200", "b300", "mi355x"):
        add(f"deepseek-v3.2-exp/{gpu}", gpu, dsa, tp8)
    for dtype in ("bf16", "fp8_e4m3"):
        for gpu in ("h200", "b200"):
            add(f"deepseek-v3.2-exp/{gpu}/kv-{dtype}", gpu, dsa,
                tp8 + ["--kv-cache-dtype", dtype])
    add("deepseek-v3.2-exp/b200/dsa-backends", "b200", dsa,
        tp8 + ["--dsa-prefill-backend", "flashmla_sparse", "--dsa-decode-backend", "trtllm"])
    add("deepseek-v3.2-exp/b200/layer-split-no-pd", "b200", dsa,
        tp8 + ["--enable-dsa-cache-layer-split"])
    add("deepseek-v3.2-exp/b200/prefill-cp", "b200", dsa,
        tp8 + ["--enable-prefill-cp", "--cp-strategy", "interleave", "--attn-cp-size", "8"])
    add("deepseek-v3.2-exp/b200/prefill-cp-zigzag", "b200", dsa,
        tp8 + ["--enable-prefill-cp", "--cp-strategy", "zigzag", "--attn-cp-size", "8"])
    add("deepseek-v3.2-exp/b200/tbo", "b200", dsa, tp8 + ["--enable-two-batch-overlap"])
    add("deepseek-v3/b200/prefill-cp", "b200", "models/deepseek-v3",
        tp8 + ["--enable-prefill-cp", "--cp-strategy", "interleave", "--attn-cp-size", "8"])
    emb = ["--is-embedding", "--prefill-only-disable-kv-cache", "--chunked-prefill-size", "-1"]
    for backend in ("flashinfer", "fa3", "triton"):
        add(f"prefill-only/qwen3-8b/h100/{backend}", "h100", "models/qwen3-8b",
            emb + ["--attention-backend", backend])
    for backend in ("flashinfer", "fa3"):
        add(f"prefill-only/qwen3-8b/h100/{backend}/no-radix", "h100", "models/qwen3-8b",
            emb + ["--disable-radix-cache", "--attention-backend", backend])
    add("arch-constraints/deepseek-v3/b200/dsa-layer-split", "b200", "models/deepseek-v3",
        tp8 + ["--enable-dsa-cache-layer-split"])
    add("arch-constraints/llama-3.1-8b/h100/cp-decode-attn-tp", "h100", "models/llama-3.1-8b",
        ["--enable-cp-decode-attn-tp"])
    glm = "parity-models/glm-4.5-air"
    for gpu in ("h100", "b200", "mi300x"):
        add(f"glm-4.5-air/{gpu}", gpu, glm, ["--tp-size", "4"])
    add("glm-4.5-air/b200/a2a-deepep", "b200", glm,
        ["--tp-size", "4", "--moe-a2a-backend", "deepep"])
    for gpu in ("h100", "b200"):
        add(f"whisper-large-v3/{gpu}", gpu, "parity-models/whisper-large-v3", [])
    for algo in ("NGRAM", "EAGLE"):
        argv = ["--disaggregation-mode", "decode", "--disaggregation-decode-enable-radix-cache",
                "--speculative-algorithm", algo]
        if algo == "EAGLE":
            argv += ["--speculative-draft-model-path", "models/llama-3.1-8b-eagle"]
        add(f"pd-decode-radix/llama-3.1-8b/h100/{algo}", "h100", "models/llama-3.1-8b", argv)
    return cases


def reach(f: list[str]) -> list[dict]:
    """One family at a time: cases that bring each model-specific rule in front of SGLang,
    then every family's defaults on four GPU generations and with a few common flags.

    The configs (``tests/parity/models/*-synth``, see its README) are shaped like the named
    family; each case says in its name which rule it aims at.
    """
    cases: list[dict] = []

    def add(name: str, platform: str, model: str, argv: list[str], env=None) -> None:
        case = {"name": f"reach/{name}", "platform": platform,
                "model": f"parity-models/{model}", "argv": argv, "fields": f}
        if env:
            case["env"] = env
        cases.append(case)

    tp2, tp8 = ["--tp-size", "2"], ["--tp-size", "8"]
    dp2 = tp2 + ["--attn-dp-size", "2"]
    # DeepSeek-V4 / V4.1: overrides, defaults, V4.1 features, prefill CP
    for gpu in ("h200", "b200"):
        add(f"deepseek_v4_overrides/{gpu}", gpu, "deepseek-v4-synth", tp8)
        add(f"deepseek_v41_features/{gpu}", gpu, "deepseek-v4.1-synth", tp8)
    add("deepseek_v4_defaults/kv-bf16", "b200", "deepseek-v4-synth",
        tp8 + ["--kv-cache-dtype", "bfloat16"])
    add("deepseek_v41_features/tbo", "b200", "deepseek-v4.1-synth",
        tp8 + ["--enable-two-batch-overlap"])
    add("deepseek_v4_context_parallel/interleave", "b200", "deepseek-v4-synth",
        tp8 + ["--enable-prefill-cp", "--cp-strategy", "interleave"])
    add("dsa_two_batch_overlap_check/topk-freq", "b200", "deepseek-v3.2-topk-freq-synth",
        tp8 + ["--enable-two-batch-overlap"])
    # Kimi K3 / Kimi Linear
    add("kimi_k3_overrides/b200", "b200", "kimi-k3-synth", tp8)
    add("kimi_k3_overrides/h200", "h200", "kimi-k3-synth", tp8)
    add("kimi_k3_moe_runner_overrides/mxfp4", "b200", "kimi-k3-mxfp4-synth", tp8)
    add("kimi_linear_attn_defaults/ssm-bf16", "b200", "kimi-k3-synth",
        tp8 + ["--mamba-ssm-dtype", "bfloat16"])
    add("kimi_spec_backend_defaults/ngram", "b200", "kimi-linear-synth",
        ["--speculative-algorithm", "NGRAM"])
    add("kimi_spec_backend_defaults/eagle", "h100", "kimi-linear-synth",
        ["--speculative-algorithm", "EAGLE"])
    # Gemma 4 (and its assistant draft)
    for gpu in ("h100", "b200", "mi300x"):
        add(f"gemma4_overrides/{gpu}", gpu, "gemma-4-synth", [])
    add("gemma4_backend_check/flashinfer", "b200", "gemma-4-synth",
        ["--attention-backend", "flashinfer"])
    assistant = ["--speculative-draft-model-path", "parity-models/gemma-4-assistant-synth"]
    add("speculative_gemma4_assistant/eagle", "b200", "gemma-4-synth",
        ["--speculative-algorithm", "EAGLE"] + assistant)
    add("speculative_gemma4_assistant/eagle3", "b200", "gemma-4-synth",
        ["--speculative-algorithm", "EAGLE3"] + assistant)
    # Llama 4
    for gpu in ("a100", "h100", "b200", "mi300x"):
        add(f"llama4_overrides/{gpu}", gpu, "llama-4-scout-synth", tp8)
    add("llama4_overrides/b200-fp8", "b200", "llama-4-scout-synth",
        tp8 + ["--quantization", "fp8"])
    add("llama4_backend_check/flashinfer", "h100", "llama-4-scout-synth",
        tp8 + ["--attention-backend", "flashinfer"])
    # Qwen3-Next / Qwen3.5-style hybrids, InternS2-Mobius, Qwen4-Exp, GigaChat 3.5, GLM-5-Next
    for gpu in ("h100", "b200"):
        add(f"qwen3_5_hybrid_overrides/{gpu}", gpu, "qwen3-next-synth", tp2)
    add("qwen3_5_hybrid_overrides/b200-no-overlap", "b200", "qwen3-next-synth",
        tp2 + ["--disable-overlap-schedule"])
    add("mamba_radix_cache/qwen3-next-page", "h100", "qwen3-next-synth",
        tp2 + ["--page-size", "64"])
    add("interns2_mobius_baseline_overrides/b200", "b200", "interns2-mobius-synth", [])
    add("qwen4_exp_overrides/b200", "b200", "qwen4-exp-synth", [])
    add("qwen4_exp_overrides/h100", "h100", "qwen4-exp-synth", [])
    add("gigachat35_overrides/h100", "h100", "gigachat-3.5-synth", [])
    add("gigachat35_overrides/b200", "b200", "gigachat-3.5-synth", [])
    add("glm5_next_spec_backend_defaults/eagle", "b200", "glm5-next-synth",
        ["--speculative-algorithm", "EAGLE"])
    add("glm5_next_spec_backend_defaults/ngram", "b200", "glm5-next-synth",
        ["--speculative-algorithm", "NGRAM"])
    # Mamba hybrids: Nemotron-H, Falcon-H1, Granite 4.0-H, LFM2, MiniCPM-V 4.6
    for gpu in ("h100", "b200"):
        add(f"nemotron_h_overrides/{gpu}", gpu, "nemotron-h-synth", tp2)
    add("boundary_parallelism/nemotron-h-attn-cp", "h100", "nemotron-h-synth",
        tp2 + ["--attn-cp-size", "2"])
    add("boundary_parallelism/nemotron-h-scattered", "h100", "nemotron-h-synth",
        tp2 + ["--enable-attn-tp-input-scattered"])
    add("falcon_h1_jet_overrides/b200", "b200", "falcon-h1-synth", [])
    add("granite_moe_hybrid_overrides/b200", "b200", "granite-4.0-h-synth", [])
    for gpu in ("h100", "b200"):
        add(f"lfm2_overrides/{gpu}", gpu, "lfm2-synth", [])
    add("lfm2_backend_check/triton", "h100", "lfm2-synth", ["--attention-backend", "triton"])
    add("minicpm_v4_6_overrides/b200", "b200", "minicpm-v-4.6-synth", [])
    # MiMo-V2
    for gpu in ("h100", "b200"):
        add(f"mimo_v2_overrides/{gpu}", gpu, "mimo-v2-flash-synth", tp8)
    add("mimo_v2_attention_tp_check/tp8", "b200", "mimo-v2-fused-qkv-synth", tp8)
    add("mimo_v2_attention_tp_check/tp4", "b200", "mimo-v2-fused-qkv-synth", ["--tp-size", "4"])
    # EXAONE 4
    for gpu in ("h100", "b200"):
        add(f"exaone_overrides/{gpu}", gpu, "exaone-4-synth", tp2)
    add("exaone_backend_check/flashinfer", "h100", "exaone-4-synth",
        tp2 + ["--attention-backend", "flashinfer"])
    # MiniMax M2 / M3
    add("minimax_m2_overrides/b200", "b200", "minimax-m2-synth", tp8)
    for gpu in ("h100", "b200", "mi300x"):
        add(f"minimax_m3_overrides/{gpu}", gpu, "minimax-m3-synth", tp2)
    # Inkling, Muse Glimmer, Muse Spark
    for gpu in ("h100", "b200"):
        add(f"inkling_overrides/{gpu}", gpu, "inkling-synth", [])
    for gpu in ("b200", "rtx5090"):
        add(f"muse_glimmer_overrides/{gpu}", gpu, "muse-glimmer-synth", [])
    add("muse_spark_overrides/h100", "h100", "muse-spark-synth",
        ["--mem-fraction-static", "0.8"])
    for gpu in ("h100", "b200"):  # its default fraction: post-capture KV sizing on
        add(f"muse_spark_overrides/{gpu}-default", gpu, "muse-spark-synth", [])
    add("muse_spark_overrides/h100-attn-dp", "h100", "muse-spark-synth",
        dp2 + ["--mem-fraction-static", "0.8"])
    # the rest, one family each
    add("bailing_moe_v3_overrides/fp8-mxfp4", "b200", "bailing-moe-v3-vl-fp8-mxfp4-synth", tp8)
    add("bailing_moe_v3_overrides/bf16", "b200", "bailing-moe-v3-vl-synth", [])
    for gpu in ("h100", "b200"):
        add(f"beam_overrides/{gpu}", gpu, "beam-synth", [])
    add("cohere2_moe_runner_overrides/b200", "b200", "cohere2-moe-synth", [])
    for gpu in ("h100", "b200"):
        add(f"embedding_gemma2_overrides/{gpu}", gpu, "embedding-gemma2-synth", [])
    add("embedding_gemma_capability/h100", "h100", "embeddinggemma-synth", [])
    add("ernie45_vl_overrides/attn-dp", "h100", "ernie-4.5-vl-synth", dp2)
    add("ernie45_vl_overrides/b200", "b200", "ernie-4.5-vl-synth", [])
    add("glm_dsa_aiter_allreduce_fusion/mi300x", "mi300x", "glm-moe-dsa-synth", tp8)
    add("hrm_text_capability/h100", "h100", "hrm-text-synth", [])
    add("iquest_q1_overrides/h100", "h100", "iquest-q1-synth", [])
    add("iquest_q1_mtp_draft/eagle", "h100", "iquest-q1-synth",
        ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path",
         "parity-models/iquest-q1-mtp-synth"])
    add("minicpm_sala_overrides/sparse-b200", "b200", "minicpm-sala-sparse-synth", [])
    add("minicpm_sala_overrides/sparse-h100", "h100", "minicpm-sala-sparse-synth", [])
    add("minicpm_sala_overrides/attn-dp", "h100", "minicpm-sala-synth", dp2)
    add("model_override_constants/mistral-large-3", "b200", "ml3-synth", tp8)
    add("multimodal_chunking_capability/mllama", "h100", "mllama-synth", [])
    add("moss_vl_overrides/h100", "h100", "moss-vl-synth", ["--trust-remote-code"])
    add("moss_vl_overrides/triton", "h100", "moss-vl-synth",
        ["--trust-remote-code", "--attention-backend", "triton"])
    # HRM-Text's capability rule moves the backend to triton after KV sharding's first check
    add("kv_cache_sharding_recheck/hrm-text", "h100", "hrm-text-synth",
        ["--disaggregation-mode", "prefill", "--disaggregation-transfer-backend", "mooncake",
         "--enable-kv-cache-sharding", "--attention-backend", "fa3", "--tp-size", "2",
         "--enable-prefill-cp", "--attn-cp-size", "2", "--cp-strategy", "interleave",
         "--page-size", "64"])
    add("qwen3vl_hopper_serving_overrides/h100", "h100", "qwen3-vl-8b-synth", [])
    add("qwen3vl_overrides/mi300x-unified", "mi300x", "qwen3-vl-8b-synth", [],
        {"SGLANG_USE_AITER_UNIFIED_ATTN": "1"})
    add("step3p_overrides/b200", "b200", "step-3.5-synth", [])
    add("step3p_overrides/h100-hicache", "h100", "step-3.5-synth",
        ["--enable-hierarchical-cache"])
    # every family's defaults on each GPU generation: the generic rules on new architectures
    big = {"deepseek-v4-synth", "deepseek-v4.1-synth", "kimi-k3-synth", "llama-4-scout-synth",
           "mimo-v2-flash-synth", "minimax-m2-synth", "glm-moe-dsa-synth", "ml3-synth",
           "bailing-moe-v3-vl-fp8-mxfp4-synth"}
    for model in SWEEP:
        for gpu in ("a100", "h100", "b200", "mi300x"):
            argv = (tp8 if model in big else []) + (
                ["--trust-remote-code"] if model == "moss-vl-synth" else [])
            add(f"sweep/{model}/{gpu}", gpu, model, argv)
    # and with common flags: TP 2 (8 for the large ones) plus one of FLAGS
    for model in SWEEP:
        base = tp8 if model in big else tp2
        base = base + (["--trust-remote-code"] if model == "moss-vl-synth" else [])
        for gpu in ("h100", "b200"):
            for variant, flags in FLAGS.items():
                if variant == "attn-dp" and model in big:
                    flags = ["--attn-dp-size", "8"]
                add(f"flags/{model}/{gpu}/{variant}", gpu, model, base + flags)
    return cases


FLAGS = {"kv-fp8": ["--kv-cache-dtype", "fp8_e4m3"], "ngram": ["--speculative-algorithm", "NGRAM"],
         "attn-dp": ["--attn-dp-size", "2"], "no-radix": ["--disable-radix-cache"],
         "chunk-4096": ["--chunked-prefill-size", "4096"]}


# the reach suite's configs swept over GPU generations (defaults only)
SWEEP = ("deepseek-v4-synth", "deepseek-v4.1-synth", "kimi-k3-synth", "kimi-linear-synth",
         "gemma-4-synth", "llama-4-scout-synth", "qwen3-next-synth", "interns2-mobius-synth",
         "qwen4-exp-synth", "gigachat-3.5-synth", "glm5-next-synth", "glm-moe-dsa-synth",
         "nemotron-h-synth", "falcon-h1-synth", "granite-4.0-h-synth", "lfm2-synth",
         "minicpm-v-4.6-synth", "mimo-v2-flash-synth", "exaone-4-synth", "minimax-m2-synth",
         "minimax-m3-synth", "inkling-synth", "muse-glimmer-synth", "muse-spark-synth",
         "bailing-moe-v3-vl-synth", "beam-synth", "cohere2-moe-synth",
         "embedding-gemma2-synth", "embeddinggemma-synth", "ernie-4.5-vl-synth",
         "hrm-text-synth", "iquest-q1-synth", "minicpm-sala-sparse-synth", "ml3-synth",
         "mllama-synth", "moss-vl-synth", "qwen3-vl-8b-synth", "step-3.5-synth")


def launcher(f: list[str]) -> list[dict]:
    """Launches resolution accepts and SGLang's launcher check may refuse; recorded with
    ``tools/launcher_oracle.py``, which runs ``check_server_args`` after resolution."""
    cases: list[dict] = []

    def add(name: str, argv: list[str], platform: str = "h100",
            model: str = "models/llama-3.1-8b") -> None:
        cases.append({"name": f"launcher/{name}", "platform": platform, "model": model,
                      "argv": argv, "fields": f})

    add("accepted/defaults", [])
    add("launcher_chunk_page_alignment/misaligned",
        ["--page-size", "64", "--chunked-prefill-size", "1000"])
    add("launcher_chunk_page_alignment/aligned",
        ["--page-size", "64", "--chunked-prefill-size", "1024"])
    add("launcher_chunk_page_alignment/pd-decode-misaligned",
        ["--page-size", "64", "--chunked-prefill-size", "1000", "--disaggregation-mode",
         "decode"])
    add("launcher_layout_checks/torch-compile-no-padding",
        ["--enable-torch-compile", "--disable-cuda-graph-padding"])
    add("launcher_layout_checks/pp-micro-batch", ["--pp-size", "2",
                                                   "--pp-max-micro-batch-size", "0"])
    add("launcher_layout_checks/moe-dense-tp", ["--tp-size", "4", "--moe-dense-tp-size", "2"],
        model="models/qwen3-30b-a3b")
    add("launcher_layout_checks/base-gpu-id", ["--base-gpu-id", "-1"])
    add("launcher_layout_checks/gpu-id-step", ["--gpu-id-step", "0"])
    add("launcher_layout_checks/served-name-colon", ["--served-model-name", "llama:v1"])
    add("launcher_layout_checks/nnodes", ["--tp-size", "3", "--nnodes", "2"])
    add("launcher_layout_checks/dp-multi-node-tp2", ["--tp-size", "2", "--dp-size", "2",
                                                      "--nnodes", "2"])
    add("launcher_scheduling_checks/conservativeness", ["--schedule-conservativeness", "-1"])
    add("launcher_scheduling_checks/pdmux", ["--enable-pdmux"])
    add("launcher_scheduling_checks/pdmux-ok", ["--enable-pdmux", "--chunked-prefill-size",
                                                "-1", "--disable-overlap-schedule"])
    add("launcher_scheduling_checks/priority-lpm", ["--enable-priority-scheduling",
                                                    "--schedule-policy", "lpm"])
    add("launcher_scheduling_checks/priority-retraction", ["--retraction-policy", "priority"])
    add("launcher_scheduling_checks/canary-sweep", ["--kv-canary-sweep-interval", "10"])
    add("launcher_scheduling_checks/tokenizer-workers", ["--tokenizer-worker-num", "0"])
    add("launcher_spec_mixed_chunk/standalone",
        ["--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path",
         "models/llama-3.1-8b", "--enable-mixed-chunk"])
    add("launcher_spec_mixed_chunk/ngram", ["--speculative-algorithm", "NGRAM",
                                            "--enable-mixed-chunk"])
    add("launcher_spec_mixed_chunk/eagle", EAGLE + ["--enable-mixed-chunk"])
    add("launcher_spec_mixed_chunk/frozen-kv-mtp",
        ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path",
         "parity-models/gemma-4-assistant-synth", "--enable-mixed-chunk"], "b200",
        "parity-models/gemma-4-synth")
    return cases


# --- cases appended after a suite was first recorded ----------------------------------------
# A later rule writes fields the first recording did not compare; regenerating would change
# every recorded case's field list. These cases are appended (``--append``) with the suite's
# recorded fields plus the extra fields named here, so earlier rows stay valid.

OFFLOAD_FIELDS = ["ple_offload_backend", "cpu_offload_gb", "offload_group_size"]
CP_TP_FIELDS = ["enable_cp_tp_group_sharing"]
#: a PD prefill server sharding KV over DSA's interleave prefill CP on TRT-LLM's DSA kernels
DSA_SHARD = ["--tp-size", "8", "--disaggregation-mode", "prefill",
             "--disaggregation-transfer-backend", "mooncake", "--enable-kv-cache-sharding",
             "--page-size", "64", "--enable-prefill-cp", "--cp-strategy", "interleave",
             "--attn-cp-size", "8", "--dsa-prefill-backend", "trtllm", "--dsa-decode-backend",
             "trtllm", "--kv-cache-dtype", "fp8_e4m3"]
#: the same for a GQA model (fa3, interleave prefill CP over two ranks)
GQA_SHARD = ["--disaggregation-mode", "prefill", "--disaggregation-transfer-backend",
             "mooncake", "--enable-kv-cache-sharding", "--attention-backend", "fa3",
             "--tp-size", "2", "--enable-prefill-cp", "--attn-cp-size", "2", "--cp-strategy",
             "interleave", "--page-size", "64"]


Appended = tuple[str, str, str, list[str], "dict | None", list[str], tuple[str, ...]]


def appended_coverage() -> list[Appended]:
    """(name, platform, model, argv, env, extra fields, dropped fields) of the coverage
    cases appended."""
    out: list[Appended] = []

    def add(name: str, platform: str, model: str, argv: list[str], env: dict | None = None,
            extra: list[str] = CP_TP_FIELDS) -> None:
        out.append((name, platform, model, argv, env, extra, ()))

    offload = "offload_compatibility"
    for name, model, argv in (
            (f"{offload}/ple-with-cpu-offload", "models/llama-3.1-8b",
             ["--ple-offload-embedding", "--cpu-offload-gb", "4"]),
            (f"{offload}/ple-with-group-offload", "models/qwen3-8b",
             ["--ple-offload-embedding", "--offload-group-size", "2"]),
            (f"{offload}/file-backend-without-ple", "models/llama-3.1-8b",
             ["--ple-offload-backend", "file", "--no-ple-offload-embedding"]),
            (f"{offload}/ple-alone", "models/llama-3.1-8b",
             ["--ple-offload-embedding", "--offload-group-size", "0"]),
            (f"{offload}_recheck/qwen4-exp-default-ple", "parity-models/qwen4-exp-synth",
             ["--cpu-offload-gb", "4", "--ple-offload-backend", "file"]),
            (f"{offload}_recheck/qwen4-exp-ple-off", "parity-models/qwen4-exp-synth",
             ["--cpu-offload-gb", "4", "--no-ple-offload-embedding"])):
        add(name, "h100", model, argv, extra=OFFLOAD_FIELDS)
    # PD role switching: what a role flip cannot carry over
    llama, moe = "models/llama-3.1-8b", "models/qwen3-30b-a3b"
    switch = ["--enable-pd-role-switch"]
    add("pd_role_switch_checks/prefill", "h100", llama,
        switch + ["--disaggregation-mode", "prefill"])
    add("pd_role_switch_checks/aggregated-pp", "h100", llama, switch + ["--pp-size", "2"])
    add("pd_role_switch_checks/attn-dp", "h100", llama,
        switch + ["--disaggregation-mode", "prefill", "--tp-size", "2", "--attn-dp-size", "2"])
    add("pd_role_switch_checks/local-broadcast", "h100", llama,
        switch + ["--disaggregation-mode", "decode", "--tp-size", "2", "--attn-dp-size", "2",
                  "--enable-dp-attention-local-control-broadcast"])
    add("pd_role_switch_checks/dp-replicas", "h100", llama,
        switch + ["--disaggregation-mode", "prefill", "--dp-size", "2"])
    add("pd_role_switch_checks/ep-ngram", "h100", moe,
        switch + ["--disaggregation-mode", "decode", "--tp-size", "2", "--ep-size", "2",
                  "--speculative-algorithm", "NGRAM"])
    add("pd_role_switch_checks/pp-dcp", "h100", "models/deepseek-v2-lite",
        switch + ["--disaggregation-mode", "decode", "--tp-size", "2", "--dcp-size", "2",
                  "--pp-size", "2"])
    staging = {"SGLANG_DISAGG_STAGING_BUFFER": "1"}
    add("pd_staging_buffer_transport/mori", "mi300x", llama,
        ["--disaggregation-mode", "decode", "--disaggregation-transfer-backend", "mori"],
        staging)
    add("pd_staging_buffer_transport/nixl", "h100", llama,
        ["--disaggregation-mode", "prefill", "--disaggregation-transfer-backend", "nixl"],
        staging)
    # CP-TP group sharing: prefill CP over the whole TP group
    qwen4, glm5 = "parity-models/qwen4-exp-synth", "parity-models/glm5-next-synth"
    cp = ["--enable-prefill-cp"]
    qcp = ["--tp-size", "4", "--attn-cp-size", "4", "--cp-strategy", "zigzag"] + cp
    gcp = ["--tp-size", "4", "--cp-strategy", "interleave"] + cp
    add("cp_tp_group_sharing/qwen4-exp", "h100", qwen4, qcp)
    add("cp_tp_group_sharing/qwen4-exp/b200", "b200", qwen4, qcp)
    add("cp_tp_group_sharing/qwen4-exp/narrow", "h100", qwen4,
        ["--tp-size", "4", "--attn-cp-size", "2", "--cp-strategy", "zigzag"] + cp)
    add("cp_tp_group_sharing/qwen4-exp/interleave", "h100", qwen4,
        ["--tp-size", "4", "--attn-cp-size", "4", "--cp-strategy", "interleave"] + cp)
    add("cp_tp_group_sharing/qwen4-exp/ep", "h100", qwen4, qcp + ["--ep-size", "4"])
    add("cp_tp_group_sharing/qwen4-exp/ngram", "h100", qwen4,
        qcp + ["--speculative-algorithm", "NGRAM"])
    add("cp_tp_group_sharing/qwen4-exp/pd-decode", "h100", qwen4,
        qcp + ["--disaggregation-mode", "decode"])
    add("cp_tp_group_sharing/glm5-next", "h100", glm5, gcp)
    add("cp_tp_group_sharing/glm5-next/b200", "b200", glm5, gcp)
    add("cp_tp_group_sharing/glm5-next/zigzag", "h100", glm5,
        ["--tp-size", "4", "--cp-strategy", "zigzag"] + cp)
    add("cp_tp_group_sharing/glm5-next/narrow", "h100", glm5, gcp + ["--attn-cp-size", "2"])
    add("cp_tp_group_sharing/glm5-next/mixed-chunk", "h100", glm5,
        gcp + ["--enable-mixed-chunk"])
    add("cp_tp_group_sharing/glm5-next/pd-prefill", "h100", glm5,
        gcp + ["--disaggregation-mode", "prefill"])
    add("cp_tp_group_sharing/glm5-next/mtp", "h100", glm5,
        gcp + ["--speculative-algorithm", "EAGLE"])
    # KV-cache sharding: DSA's sub-checks and the HiCache, chunking and model-shape limits
    dsa = "parity-models/glm-moe-dsa-synth"
    shard = "kv_cache_sharding"
    add(f"{shard}/dsa", "b200", dsa, DSA_SHARD)
    add(f"{shard}/dsa/hicache", "b200", dsa, DSA_SHARD + ["--enable-hierarchical-cache"])
    add(f"{shard}/dsa/hicache-direct-io", "b200", dsa,
        DSA_SHARD + ["--enable-hierarchical-cache", "--hicache-io-backend", "direct"])
    add(f"{shard}/dsa/hicache-storage", "b200", dsa,
        DSA_SHARD + ["--enable-hierarchical-cache", "--hicache-storage-backend", "file"])
    add(f"{shard}/dsa/nixl", "b200", dsa,
        DSA_SHARD + ["--disaggregation-transfer-backend", "nixl"])
    add(f"{shard}/dsa/flashmla-sparse", "b200", dsa,
        DSA_SHARD + ["--dsa-prefill-backend", "flashmla_sparse"])
    add(f"{shard}/dsa/bf16-kv", "b200", dsa, DSA_SHARD + ["--kv-cache-dtype", "bfloat16"])
    add(f"{shard}/dsa/no-prefill-cp", "b200", dsa,
        DSA_SHARD[:DSA_SHARD.index("--enable-prefill-cp")])
    add(f"{shard}/dsa/fa3-backend", "h100", dsa, DSA_SHARD[:9] + ["--attention-backend", "fa3"])
    add(f"{shard}/gqa", "h100", llama, GQA_SHARD)
    add(f"{shard}/gqa/hicache-storage", "h100", llama,
        GQA_SHARD + ["--enable-hierarchical-cache", "--hicache-storage-backend", "file"])
    add(f"{shard}/gqa/dynamic-chunking-pp", "h100", llama,
        GQA_SHARD + ["--enable-dynamic-chunking", "--pp-size", "2"])
    add(f"{shard}/gqa/staging-buffer", "h100", llama, GQA_SHARD,
        {"SGLANG_DISAGG_STAGING_BUFFER": "1"})
    add(f"{shard}/gqa/chunked-attention", "h100", "parity-models/llama-4-scout-synth",
        GQA_SHARD)
    add(f"{shard}/gqa/encoder-decoder", "h100", "parity-models/mllama-synth", GQA_SHARD)
    # DeepSeek-V4's FP4 indexer: SM100, SM120 or gfx95 only
    fp4 = ["--enable-deepseek-v4-fp4-indexer"]
    for gpu in ("h100", "b200", "mi300x", "mi355x"):
        add(f"environment_variable_checks/fp4-indexer/{gpu}", gpu, llama, fp4)
    # DWDP: attention DP and EP over the whole group, no CUDA graphs
    dwdp = ["--tp-size", "2", "--dwdp-size", "2"]
    extra = CP_TP_FIELDS + ["moe_dp_size"]
    add("dwdp_layout", "h100", moe, dwdp, extra=extra)
    add("dwdp_layout/pd-prefill", "h100", moe, dwdp + ["--disaggregation-mode", "prefill"],
        extra=extra)
    add("dwdp_layout/attn-dp-given", "b200", moe, ["--tp-size", "4", "--dwdp-size", "4",
                                                   "--attn-dp-size", "2"], extra=extra)
    add("dwdp_layout/not-tp", "h100", moe, ["--tp-size", "4", "--dwdp-size", "2"], extra=extra)
    add("dwdp_layout/pd-decode", "h100", moe, dwdp + ["--disaggregation-mode", "decode"],
        extra=extra)
    add("dwdp_layout/eplb", "h100", moe, dwdp + ["--enable-eplb"], extra=extra)
    add("dwdp_layout/ngram", "h100", moe, dwdp + ["--speculative-algorithm", "NGRAM"],
        extra=extra)
    add("dwdp_layout/tbo", "h100", moe, dwdp + ["--enable-two-batch-overlap"], extra=extra)
    # the experimental Marlin MoE-LoRA runner's contract (found by a wild4 probe)
    marlin = ["--moe-runner-backend", "experimental_sgl_marlin"]
    lora = marlin + ["--enable-lora", "--max-lora-rank", "8", "--lora-target-modules", "all"]
    ready = lora + ["--lora-use-virtual-experts", "--lora-backend", "triton"]
    ep = ["--tp-size", "2", "--ep-size", "2"]
    for name, argv in (("no-lora-ep", marlin + ep),
                       ("ep-a2a", marlin + ep + ["--moe-a2a-backend", "deepep"]),
                       ("lora-without-virtual-experts", lora),
                       ("lora-backend-csgmv", lora + ["--lora-use-virtual-experts"]),
                       ("lora-ready", ready),
                       ("lora-ep-eplb", ready + ep + ["--enable-eplb"]),
                       ("lora-ep-redundant", ready + ep + ["--ep-num-redundant-experts", "2"]),
                       ("lora-ep", ready + ep)):
        add(f"experimental_marlin_checks/{name}", "h100", moe, argv)
    # the media-URL policy (found by a wild4 probe)
    for name, argv in (("negative-size", ["--media-url-max-file-size-mb", "-1"]),
                       ("zero-size", ["--media-url-max-file-size-mb", "0"]),
                       ("domains", ["--allowed-media-domains", "Example.COM.", "[::1]",
                                    "b.org"]),
                       ("domain-with-scheme", ["--allowed-media-domains", "https://a.org"]),
                       ("domain-with-port", ["--allowed-media-domains", "a.org:8080"])):
        add(f"media_url_policy/{name}", "h100", llama, argv,
            extra=CP_TP_FIELDS + ["allowed_media_domains"])
    # attention widths of 0 divided by before SGLang checks them (found by a wild4 probe)
    dsa, glm = "parity-models/deepseek-v3.2-exp", "parity-models/glm-moe-dsa-synth"
    mimo, v41 = "parity-models/mimo-v2-fused-qkv-synth", "parity-models/deepseek-v4.1-synth"
    tp8, cp_alias = ["--tp-size", "8"], "--attention-context-parallel-size"
    for name, platform, model, argv in (
            ("dsa_attention_tp_width/dp0", "h100", dsa, tp8 + ["--attn-dp-size", "0"]),
            ("dsa_attention_tp_width/cp0", "b200", glm, tp8 + [cp_alias, "0"]),
            ("dsa_attention_tp_width/dp0-rocm", "mi300x", glm, tp8 + ["--attn-dp-size", "0"]),
            ("dsa_attention_tp_width/dp-negative", "h100", dsa, tp8 + ["--attn-dp-size", "-1"]),
            ("dsa_attention_tp_width/one-rank-cp0", "h100", dsa, [cp_alias, "0"]),
            ("deepseek_family_overrides/dsa-prefill-cp-dp0", "h100", dsa,
             tp8 + ["--attn-dp-size", "0", "--enable-prefill-cp", "--cp-strategy", "interleave"]),
            ("deepseek_family_overrides/mla-prefill-cp-dp0", "h100", "models/deepseek-v3",
             tp8 + ["--attn-dp-size", "0", "--enable-prefill-cp", "--cp-strategy", "zigzag"]),
            ("mimo_v2_attention_tp_check/cp0", "h100", mimo, tp8 + [cp_alias, "0"]),
            ("mimo_v2_attention_tp_check/width-0", "h100", mimo,
             ["--tp-size", "2", "--attn-dp-size", "4"]),
            ("deepseek_v4_defaults/v41-dp0", "b200", v41, tp8 + ["--attn-dp-size", "0"]),
            ("deepseek_v4_defaults/v41-cp0-pd", "b200", v41,
             tp8 + [cp_alias, "0", "--disaggregation-mode", "decode"]),
            ("deepseek_v4_context_parallel/dp0", "b200", "parity-models/deepseek-v4-synth",
             tp8 + ["--attn-dp-size", "0", "--enable-prefill-cp", "--cp-strategy", "interleave"]),
            ("dsa_attention_tp_width/not-dsa-cp0", "h100", llama, tp8 + [cp_alias, "0"]),
            ("shared_experts_tp_checks/cp0", "b200", "parity-models/kimi-k3-synth",
             tp8 + [cp_alias, "0", "--shared-experts-tp-size", "2", "--moe-a2a-backend",
                    "deepep"]),
            ("shared_experts_tp_checks/cp0-not-kimi", "h100", moe,
             tp8 + [cp_alias, "0", "--shared-experts-tp-size", "2"]),
            ("megamoe_token_budget/cp0", "b200", moe,
             tp8 + ["--enable-dp-attention", "--dp-size", "2", cp_alias, "0",
                    "--moe-a2a-backend", "megamoe"]),
            ("pd_server_roles/decode-dp0", "h100", llama,
             ["--dp-size", "0", "--disaggregation-mode", "decode", "--max-running-requests",
              "16"]),
            ("pd_server_roles/decode-attn-dp0", "h100", llama,
             ["--tp-size", "2", "--attn-dp-size", "0", "--disaggregation-mode", "decode",
              "--max-running-requests", "16"]),
            ("pd_server_roles/dp0-without-pd", "h100", llama, ["--dp-size", "0"]),
            ("mamba_radix_cache/page-0", "h100", "parity-models/qwen3-next-synth",
             ["--tp-size", "8", "--page-size", "0"])):
        add(name, platform, model, argv)
    return out


#: what the launcher's LoRA check declares itself (no resolution rule decides it): a LoRA
#: launch has overlap loading off once started, while the resolved plan leaves it unset
LORA_LAUNCH_DECLARED = ("enable_lora_overlap_loading",)


def appended_launcher() -> list[Appended]:
    """The launcher cases appended: LoRA, the text watermark, metrics, TBO, PP and HiSparse
    checks (the LoRA ones without the field the LoRA check itself declares)."""
    out: list[Appended] = []

    def add(name: str, argv: list[str], model: str = "models/llama-3.1-8b",
            platform: str = "h100") -> None:
        drop = LORA_LAUNCH_DECLARED if name.startswith("launcher_lora_checks/") else ()
        out.append((name, platform, model, argv, None, [], drop))

    lora = ["--enable-lora", "--max-lora-rank", "8", "--lora-target-modules", "all"]
    add("launcher_lora_checks/no-adapters", ["--enable-lora"])
    add("launcher_lora_checks/rank-and-modules", lora)
    add("launcher_lora_checks/all-among-others", lora + ["q_proj"])
    add("launcher_lora_checks/paths-over-cap",
        ["--lora-paths", "a=/adapters/a", "b=/adapters/b", "--max-loaded-loras", "1",
         "--max-loras-per-batch", "1"])
    add("launcher_lora_checks/cap-below-batch", lora + ["--max-loaded-loras", "2"])
    add("launcher_lora_checks/overlap-loading", lora + ["--enable-lora-overlap-loading"])
    add("launcher_lora_checks/standalone",
        lora + ["--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path",
                "models/llama-3.1-8b"])
    add("launcher_lora_checks/eagle3", lora + EAGLE3)
    add("launcher_lora_checks/triton-v2-attn-dp",
        lora + ["--lora-backend", "triton_v2", "--tp-size", "2", "--attn-dp-size", "2"])
    add("launcher_lora_checks/moe-runner-without-lora", ["--moe-runner-backend", "lora_triton"],
        "models/qwen3-30b-a3b")
    watermark = ["--enable-watermark"]
    add("launcher_watermark_checks/config-without-switch",
        ["--watermark-config", '{"key": "a1b2"}'])
    add("launcher_watermark_checks/on", watermark)
    add("launcher_watermark_checks/keyed", watermark + ["--watermark-config", '{"key": "a1b2"}'])
    add("launcher_watermark_checks/key-b-alone",
        watermark + ["--watermark-config", '{"key_b": "12"}'])
    add("launcher_watermark_checks/mixing-without-key-b",
        watermark + ["--watermark-config", '{"key": "a1", "mixing_probability": 0.3}'])
    add("launcher_watermark_checks/pd", watermark + ["--disaggregation-mode", "prefill"])
    add("launcher_watermark_checks/ngram", watermark + ["--speculative-algorithm", "NGRAM"])
    add("launcher_metrics_checks/export-without-dir", ["--export-metrics-to-file"])
    add("launcher_metrics_checks/export-with-dir",
        ["--export-metrics-to-file", "--export-metrics-to-file-dir", "/tmp/metrics"])
    add("launcher_metrics_checks/labels-empty-header",
        ["--tokenizer-metrics-allowed-custom-labels", "team",
         "--tokenizer-metrics-custom-labels-header", ""])
    add("launcher_metrics_checks/tse-base-one", ["--prompt-tokens-buckets", "tse", "1000", "1",
                                                 "8"])
    add("launcher_metrics_checks/custom-ok", ["--generation-tokens-buckets", "custom", "10",
                                              "100", "1000"])
    add("launcher_metrics_checks/custom-repeated", ["--generation-tokens-buckets", "custom",
                                                    "10", "10"])
    add("launcher_metrics_checks/unknown-rule", ["--prompt-tokens-buckets", "linear"])
    add("launcher_metrics_checks/gc-four", ["--gc-threshold", "1", "2", "3", "4"])
    add("launcher_metrics_checks/mm-io-workers", ["--mm-io-worker-num", "-1"])
    add("launcher_two_batch_overlap_check/no-a2a", ["--enable-two-batch-overlap"])
    add("launcher_two_batch_overlap_check/attn-dp",
        ["--enable-two-batch-overlap", "--tp-size", "2", "--attn-dp-size", "2"])
    add("launcher_pipeline_parallel_checks/eagle3", ["--pp-size", "2"] + EAGLE3)
    add("launcher_pipeline_parallel_checks/eagle-pd-prefill",
        ["--pp-size", "2", "--disaggregation-mode", "prefill"] + EAGLE)
    add("launcher_pipeline_parallel_checks/min-free-slots",
        ["--pp-size", "2", "--min-free-slots-delay", "2"])
    hisparse = ["--enable-hisparse", "--disable-radix-cache"]
    dsa = ("parity-models/glm-moe-dsa-synth", "b200")
    add("launcher_hisparse_checks/dense", hisparse)
    add("launcher_hisparse_checks/dsa", ["--tp-size", "8"] + hisparse, *dsa)
    add("launcher_hisparse_checks/dsa-radix", ["--tp-size", "8", "--enable-hisparse"], *dsa)
    add("launcher_hisparse_checks/dsa-mixed-chunk",
        ["--tp-size", "8", "--enable-mixed-chunk"] + hisparse, *dsa)
    add("launcher_device_checks/mindspore", ["--model-impl", "mindspore"])
    # (InstantTensor off cuda needs --device cpu, whose CPU backends launchplan does not plan)
    add("launcher_device_checks/instanttensor", ["--load-format", "instanttensor"])
    add("launcher_device_checks/quant-comms", ["--tp-size", "2",
                                               "--enable-quant-communications"])
    add("launcher_device_checks/xpu-sampling", ["--sampling-backend", "intel_xpu"])
    add("launcher_device_checks/grpc-port", ["--grpc-port", "30000"])
    add("launcher_device_checks/grpc-port-other", ["--grpc-port", "30001"])
    add("launcher_hisparse_checks/dsa-fp8-sparse-prefill",
        ["--tp-size", "8", "--kv-cache-dtype", "fp8_e4m3", "--dsa-prefill-backend",
         "flashmla_sparse"] + hisparse, *dsa)
    return out


def append(suite: str, cases: list[Appended]) -> None:
    """Append the cases not yet in ``SUITE-cases.json``, with the suite's recorded fields."""
    path = DATA / f"{suite}-cases.json"
    existing = json.loads(path.read_text())
    recorded = existing[0]["fields"]
    names = {c["name"] for c in existing}
    for name, platform, model, argv, env, extra, drop in cases:
        name = f"{suite}/{name}"
        if name in names:
            continue
        fields = [f for f in recorded if f not in drop]
        case = {"name": name, "platform": platform, "model": model, "argv": argv,
                "fields": fields + [x for x in extra if x not in recorded]}
        if env:
            case["env"] = env
        existing.append(case)
    write(suite, existing, recorded)


def write(suite: str, cases: list[dict], f: list[str]) -> None:
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    (DATA / f"{suite}-cases.json").write_text(
        "[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print(f"{suite}: wrote {len(cases)} cases with {len(f)} fields")


if __name__ == "__main__":
    import sys

    if "--append" in sys.argv[1:]:
        append("coverage", appended_coverage())
        append("launcher", appended_launcher())
    else:
        main()
