"""Generate ``tests/parity/data/coverage-cases.json``: cases that bring rules no other
recorded case reaches in front of SGLang, comparing *every* field a rule may write.

    PYTHONPATH=src python tests/parity/tools/gen_coverage_cases.py
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


def write(suite: str, cases: list[dict], f: list[str]) -> None:
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    (DATA / f"{suite}-cases.json").write_text(
        "[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print(f"{suite}: wrote {len(cases)} cases with {len(f)} fields")


if __name__ == "__main__":
    main()
