#!/usr/bin/env python3
"""Record how many parameters SGLang's own model class puts on one GPU, whole model.

    /root/sglang-oracle/bin/python tests/parity/tools/record_model_params.py \\
        --out tests/parity/data/results-model-params.jsonl

For the reward, classification and embedding classes (and the causal-LM class an
``--is-embedding`` launch builds), each case resolves the launch with SGLang's ``ServerArgs``
and publishes it as a scheduler would (``record_vision_params.py``'s machinery), picks the
class as SGLang's loader does (``get_model_architecture``) and builds it on the ``meta``
device at TP 1: no memory, no weights. A case may swap a bundled config's ``architectures``
for another class of the same backbone. ``test_pooling_heads.py`` replays the recording.
Run it under the transformers SGLang 0.5.23 pins (5.19; the oracle venv carries 5.24), as
the committed file was: ``PYTHONPATH=<transformers 5.19 unpacked>`` before the command.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
RESULTS = os.path.join(os.path.dirname(HERE), "data", "results-model-params.jsonl")
BUNDLED = "src/launchplan/facts/data/models"
HUB = "src/launchplan/facts/data/hub"

#: (case name, config folder from the repository root, class swapped in or None, flags)
CASES = (
    ("qwen3-embedding-8b-is-embedding", "src/launchplan/facts/data/hub/Qwen--Qwen3-Embedding-8B",
     None, ["--is-embedding"]),
    ("qwen3-0.6b-is-embedding", f"{BUNDLED}/qwen3-0.6b", None, ["--is-embedding"]),
    ("skywork-reward-llama", "tests/parity/models/skywork-reward-llama-3.1-8b", None, []),
    ("skywork-reward-gemma2", "tests/parity/models/skywork-reward-gemma-2-27b", None, []),
    ("embeddinggemma", "tests/parity/models/embeddinggemma-synth", None, []),
    ("qwen2-reward", f"{BUNDLED}/qwen2.5-7b", "Qwen2ForRewardModel", []),
    ("qwen3-reward", f"{BUNDLED}/qwen3-8b", "Qwen3ForRewardModel", []),
    ("qwen2-classification", f"{BUNDLED}/qwen2.5-7b", "Qwen2ForSequenceClassification", []),
    ("qwen3-classification", f"{BUNDLED}/qwen3-8b", "Qwen3ForSequenceClassification", []),
    ("qwen3-0.6b-classification", f"{BUNDLED}/qwen3-0.6b", "Qwen3ForSequenceClassification",
     []),
    ("qwen3-backbone", f"{BUNDLED}/qwen3-8b", "Qwen3Model", []),
    ("qwen3-0.6b-backbone", f"{BUNDLED}/qwen3-0.6b", "Qwen3Model", []),
    # causal LMs for their RoPE caches: plain, llama3-scaled, YaRN, M-RoPE, two per model
    ("llama-3.1-8b", f"{BUNDLED}/llama-3.1-8b", None, []),
    ("llama-3.2-1b", f"{BUNDLED}/llama-3.2-1b", None, []),
    ("qwen2.5-7b", f"{BUNDLED}/qwen2.5-7b", None, []),
    ("qwen3-8b", f"{BUNDLED}/qwen3-8b", None, []),
    ("mistral-7b-v0.3", f"{BUNDLED}/mistral-7b-v0.3", None, []),
    ("phi-4", f"{BUNDLED}/phi-4", None, []),
    ("gemma-2-9b", f"{BUNDLED}/gemma-2-9b", None, []),
    ("gemma-3-4b-it", "tests/parity/models/gemma-3-4b-it", None, []),
    ("qwen3-vl-2b", "src/launchplan/facts/data/hub/Qwen--Qwen3-VL-2B-Instruct", None, []),
    ("qwen2.5-vl-7b", f"{BUNDLED}/qwen2.5-vl-7b", None, []),
    ("gpt-oss-20b", f"{BUNDLED}/gpt-oss-20b", None, []),
    ("qwen3-30b-a3b", f"{BUNDLED}/qwen3-30b-a3b", None, []),
    ("deepseek-v2-lite", f"{BUNDLED}/deepseek-v2-lite", None, []),
    # the pre-Llama decoders (biased linears and LayerNorms, ungated MLPs, learned or partial
    # rotary positions) and ChatGLM's own key names (memory.classic_layers)
    ("gpt2", "tests/parity/models/gpt2", None, []),
    ("gpt-bigcode", "tests/parity/models/gpt-bigcode", None, []),
    ("gpt-j-6b", "tests/parity/models/gpt-j-6b", None, []),
    # no SGLang class: the transformers backend builds transformers' GPT-NeoX and
    # Nemotron models
    ("gpt-neox", "tests/parity/models/gpt-neox-synth", None, []),
    ("nemotron", "tests/parity/models/nemotron-synth", None, []),
    ("opt-125m", "tests/parity/models/opt-125m", None, []),
    # biased decoders with ungated MLPs: Phi-1 (one norm a layer, a biased head) and
    # Persimmon (q/k LayerNorms); their classes read partial_rotary_factor, which
    # transformers 5.19 (0.5.23's pin) keeps and 5.24 does not: record under the pin
    ("phi-1", "tests/parity/models/phi-1", None, []),
    ("persimmon-8b", "tests/parity/models/persimmon-8b-base", None, []),
    # Starcoder2Config ties the head by default: the class builds none, though the published
    # checkpoint stores one
    ("starcoder2-15b", "tests/parity/models/starcoder2-15b", None, []),
    # CLIP served as an embedder (clip.py CLIPModel): its text and vision encoders and their
    # projections
    ("clip-vit-base-patch32", "tests/parity/models/clip-vit-base-patch32", None, []),
    ("chatglm3-6b", "tests/parity/models/chatglm3-6b", None, []),
    ("glm-4-9b", "tests/parity/models/glm-4-9b", None, []),
    # an ungated xIELU MLP with q/k norms (Apertus), Qwen2-VL's own vision tower (LayerNorm
    # blocks, an mlp_ratio MLP)
    ("apertus-8b", "tests/parity/models/apertus-8b-instruct-2509-4bit", None, []),
    # Mamba-1 mixers (x_proj, dt_proj, A_log, D, the conv), tied by MambaConfig's default
    ("mamba-2.8b", "tests/parity/models/mamba-2.8b-hf", None, []),
    ("falcon-mamba-7b", "tests/parity/models/falcon-mamba-7b", None, []),
    ("qwen2-vl-7b", "tests/parity/models/qwen2-vl-7b-instruct", None, []),
    # Gemma 4: full-attention layers at global_head_dim with their own KV heads, q/k norms
    # and four norms in every layer (a quantized file is counted before quantization)
    ("gemma-4-26b-a4b", f"{HUB}/google--gemma-4-26B-A4B", None, []),
    ("gemma-4-31b-it-nvfp4", f"{HUB}/nvidia--Gemma-4-31B-IT-NVFP4", None, []),
    # DeepSeek-V4: grouped low-rank output, per-ratio KV compressors and indexers, hash-routed
    # first layers, hyper-connection mixers
    ("deepseek-v4-flash", f"{HUB}/deepseek-ai--DeepSeek-V4-Flash", None, []),
    ("deepseek-v4-pro", f"{HUB}/deepseek-ai--DeepSeek-V4-Pro", None, []),
    # DSA layers that reuse the previous layer's top-k build no indexer: GLM-5.2's
    # indexer_types, index_topk_freq alone
    ("glm-5.2", f"{HUB}/zai-org--GLM-5.2", None, []),
    ("deepseek-v3.2-topk-freq", "tests/parity/models/deepseek-v3.2-topk-freq-synth", None, []),
    # LFM2: short-convolution layers between the attention ones, its adjusted MLP width, an
    # MoE after num_dense_layers, LFM2-VL's SigLIP 2 tower and pixel-unshuffle projector
    ("lfm2", "tests/parity/models/lfm2-synth", None, []),
    ("lfm2-8b-a1b", "tests/parity/models/lfm2-8b-a1b-4bit", None, []),
    ("lfm2.5-vl-1.6b", "tests/parity/models/lfm2.5-vl-1.6b", None, []),
    # Qwen2-Audio's Whisper-style tower and projector; a Qwen3.6 file without the
    # vision_config SGLang's Qwen3VLVisionConfig fills in, deepstack mergers included
    ("qwen2-audio-7b", "tests/parity/models/qwen2-audio-7b-instruct", None, []),
    ("qwen3.6-35b-a3b-file", "tests/parity/models/qwen3.6-35b-a3b", None, []),
    # MiniMax-M2's whole-width q/k norms and float32 routing bias; Llama 4's weightless q/k norm
    ("minimax-m2.5", f"{HUB}/MiniMaxAI--MiniMax-M2.5", None, []),
    ("llama-4-scout", f"{HUB}/meta-llama--Llama-4-Scout-17B-16E-Instruct", None, []),
    # AFMoE (Trinity): gated attention output, q/k norms, four norms, dense first layers,
    # float32 expert bias and shared experts
    ("trinity-nano", "tests/parity/models/trinity-nano-preview-4bit", None, []),
    # Muse Glimmer: gated attention output, four norms, a head padded to 128 rows, its
    # own vision tower and adapter
    ("muse-glimmer-30b", "tests/parity/models/muse-glimmer-30b", None, []),
    # Qwen3.5 as published: its partial rotary factor only inside rope_parameters
    ("qwen3.5-9b-hub", f"{HUB}/Qwen--Qwen3.5-9B", None, []),
    ("qwen3.5-35b-a3b-hub", f"{HUB}/Qwen--Qwen3.5-35B-A3B", None, []),
    # archdraws6: GLM-4's four norms and q/k/v-only bias (GLM-4.1V, GLM-OCR and its tower),
    # Hy3's shared expert and float32 router, PaddleOCR-VL's tied head and packing position
    # table, Pixtral's tower and Mistral 3's projector (LightOnOCR, Mistral Small 3.1), and
    # Command R's one norm a layer
    ("glm-4.1v-9b-thinking", "tests/parity/models/glm-4.1v-9b-thinking", None, []),
    ("glm-ocr", "tests/parity/models/glm-ocr", None, []),
    ("glm-4-9b-0414", "tests/parity/models/glm-4-9b-0414", None, []),
    ("hy3-preview", "tests/parity/models/hy3-preview", None, []),
    ("paddleocr-vl", "tests/parity/models/paddleocr-vl", None, []),
    ("lightonocr-2-1b-bbox-soup", "tests/parity/models/lightonocr-2-1b-bbox-soup", None, []),
    ("mistral-small-3.1-24b", "tests/parity/models/mistral-small-3.1-24b-instruct", None, []),
    ("command-r-v01", "tests/parity/models/c4ai-command-r-v01", None, []),
    ("command-r7b", "tests/parity/models/c4ai-command-r7b-12-2024", None, []),
    # msweep (every config folder built once): OLMo's weightless norms, OLMo 2/3's post-norms
    # and whole-width q/k norms, OLMoE's hidden-wide q/k norms
    ("olmo-1b", "tests/parity/models/olmo-1b-hf", None, []),
    ("olmo-2-7b", "tests/parity/models/olmo-2-1124-7b", None, []),
    ("olmo-3.1-32b", "tests/parity/models/olmo-3.1-32b-instruct", None, []),
    ("olmoe-1b-7b", "tests/parity/models/olmoe-1b-7b-0924", None, []),
    # biased LayerNorms: StableLM (with and without use_qkv_bias), PhiMoE (and its head bias)
    ("stablelm-2-1.6b", "tests/parity/models/stablelm-2-1.6b", None, []),
    ("stablelm-3b", "tests/parity/models/stablelm-3b", None, []),
    ("phi-3.5-moe", "tests/parity/models/phi-3.5-moe-instruct", None, []),
    # EXAONE 4's post-norms and per-head q/k norms
    ("exaone-4", "tests/parity/models/exaone-4-synth", None, []),
    # BERT's position_ids parameter and 64-row-padded position/type tables
    ("bge-large-en-v1.5", "tests/parity/models/bge-large-en-v1.5", None, []),
    ("bert-multilingual-sentiment", "tests/parity/models/bert-base-multilingual-uncased-sentiment",
     None, []),
    # Mllama's cross-attention layers and eight extra embedding rows
    ("llama-3.2-11b-vision", "tests/parity/models/llama-3.2-11b-vision-instruct", None, []),
    ("llama-3.2-90b-vision", f"{HUB}/meta-llama--Llama-3.2-90B-Vision-Instruct", None, []),
    # ERNIE 4.5 MoE's layer range, correction bias and shared experts
    ("ernie-4.5-21b-a3b", "tests/parity/models/ernie-4.5-21b-a3b-pt", None, []),
    # Laguna's per-layer heads and gates, float32 router, shared expert (FP8 files)
    ("laguna-xs.2", "tests/parity/models/laguna-xs.2-fp8", None, []),
    ("laguna-s-2.1", "tests/parity/models/laguna-s-2.1-fp8", None, []),
    # MiniMax-M3: dense width, float32 routing, the sparse layers' indexer, its own tower
    ("minimax-m3-nvfp4", "tests/parity/models/minimax-m3-nvfp4", None, []),
    # DFlash drafts: no embedding or head, fc over the target's features
    ("qwen3-4b-dflash", "tests/parity/models/qwen3-4b-dflash-b16", None, []),
    ("qwen3-8b-dflash", "tests/parity/models/qwen3-8b-dflash-b16", None, []),
    ("qwen3.5-35b-a3b-dflash", "tests/parity/models/qwen3.5-35b-a3b-dflash", None, []),
    # Qwen2.5-VL without a vision_config: the config class's default tower
    ("qwen2.5-vl-no-vision-config", "tests/parity/models/qwen2.5-vl-no-vision-config", None,
     []),
    # Gemma 4's MTP assistant: pre/post projections
    ("gemma-4-assistant", "tests/parity/models/gemma-4-assistant-synth", None, []),
    # dots.ocr: its ViT from DotsVisionConfig's defaults and a second LM head
    ("dots-ocr", "tests/parity/models/dots-ocr", None, []),
    # Whisper, an encoder-decoder
    ("whisper-large-v3", "tests/parity/models/whisper-large-v3", None, []),
    # Cohere's MoE: experts at intermediate_size, one norm, tied head
    ("cohere2-moe", "tests/parity/models/cohere2-moe-synth", None, []),
    # HunYuan-A13B's shared MLP (built with the one-rank groups its sampler reads)
    ("hunyuan-a13b", "tests/parity/models/hunyuan-a13b-instruct", None, []),
    # XLM-RoBERTa (roberta.py, loadable with SERVER_STUBS): position_ids, pooler
    ("bge-m3", "tests/parity/models/bge-m3", None, []),
    ("bge-reranker-v2-m3", "tests/parity/models/bge-reranker-v2-m3", None, []),
    # Kimi K3's final attention-residual read, and KimiK3VisionConfig's default tower
    ("kimi-k3", f"{HUB}/moonshotai--Kimi-K3", None, []),
    ("kimi-k3-synth", "tests/parity/models/kimi-k3-synth", None, []),
    # NemotronH (its class loadable with SERVER_STUBS), built with its expert group
    ("nemotron-3-nano-30b-a3b", f"{HUB}/nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", None,
     []),
    # the Mamba-2 hybrids with a mixer and an FFN a layer (SGLang's own config classes):
    # Granite 4.0-H (Mamba or attention, routed and shared MLPs, tied by default) and
    # Falcon-H1 (Mamba beside attention in every layer, q/k norms, the norm only when asked)
    ("granite-4.0-h", "tests/parity/models/granite-4.0-h-synth", None, []),
    ("granite-4.0-h-small-shaped", "tests/parity/models/granite-4.0-h-small-shaped-synth",
     None, []),
    ("granite-4.0-micro-shaped", "tests/parity/models/granite-4.0-micro-shaped-synth",
     None, []),
    ("granite-4.0-h-default-layers",
     "tests/parity/models/granite-4.0-h-default-layers-synth", None, []),
    ("falcon-h1", "tests/parity/models/falcon-h1-synth", None, []),
    ("falcon-h1-7b-shaped", "tests/parity/models/falcon-h1-7b-shaped-synth", None, []),
    # one config of each further class whose count already agreed when first met (a sweep
    # of every config folder whose class had no row): kept as rows so it stays so
    ("deepseek-r1", f"{BUNDLED}/deepseek-r1", None, []),
    ("glm-4.5", f"{BUNDLED}/glm-4.5", None, []),
    ("mixtral-8x7b", f"{BUNDLED}/mixtral-8x7b", None, []),
    ("qwen3-next-80b-a3b-thinking", f"{HUB}/Qwen--Qwen3-Next-80B-A3B-Thinking", None, []),
    ("qwen3-vl-235b-a22b-instruct", f"{HUB}/Qwen--Qwen3-VL-235B-A22B-Instruct", None, []),
    ("gemma-3-1b-it", f"{HUB}/google--gemma-3-1b-it", None, []),
    ("e5-mistral-7b-instruct", f"{HUB}/intfloat--e5-mistral-7b-instruct", None, []),
    ("kimi-k2.5", f"{HUB}/moonshotai--Kimi-K2.5", None, []),
    ("minicpm3-4b", f"{HUB}/openbmb--MiniCPM3-4B", None, []),
    ("deepseek-ocr", "tests/parity/models/deepseek-ocr", None, []),
    ("devstral-2-123b-instruct", "tests/parity/models/devstral-2-123b-instruct", None, []),
    ("embeddinggemma-synth", "tests/parity/models/embeddinggemma-synth", None, []),
    ("ernie-4.5-0.3b-base", "tests/parity/models/ernie-4.5-0.3b-base", None, []),
    ("exaone-3.0-7.8b", "tests/parity/models/exaone-3.0-7.8b", None, []),
    ("gemma-7b", "tests/parity/models/gemma-7b", None, []),
    ("glm-4.5v", "tests/parity/models/glm-4.5v", None, []),
    ("glm-4.7-flash", "tests/parity/models/glm-4.7-flash", None, []),
    ("granite-3.0-3b-a800m", "tests/parity/models/granite-3.0-3b-a800m-instruct", None, []),
    ("granite-3.1-8b-instruct", "tests/parity/models/granite-3.1-8b-instruct", None, []),
    ("hunyuan-mt-7b", "tests/parity/models/hunyuan-mt-7b", None, []),
    ("kimi-linear-synth", "tests/parity/models/kimi-linear-synth", None, []),
    ("locateanything-3b-4bit", "tests/parity/models/locateanything-3b-4bit", None, []),
    ("minicpm-sala-sparse-synth", "tests/parity/models/minicpm-sala-sparse-synth", None, []),
    ("muse-glimmer-synth", "tests/parity/models/muse-glimmer-synth", None, []),
    ("olmo-3.1-32b-instruct", "tests/parity/models/olmo-3.1-32b-instruct", None, []),
    ("qwen1.5-moe-a2.7b", "tests/parity/models/qwen1.5-moe-a2.7b", None, []),
    ("qwen3-omni-30b-a3b-instruct", "tests/parity/models/qwen3-omni-30b-a3b-instruct", None, []),
    ("qwen3.8-2.4t-a95b", "tests/parity/models/qwen3.8-2.4t-a95b", None, []),
)


def cases() -> list[dict]:
    return [dict(name=n, model=m, architecture=a, argv=list(f), platform="h100")
            for n, m, a, f in CASES]


def swapped_folder(model: str, architectures: list[str] | None) -> str:
    """A repository config folder, or a temporary copy of its ``config.json`` naming
    ``architectures`` instead (the config class stays the file's)."""
    src = os.path.join(ROOT, model)
    if not architectures:
        return src
    with open(os.path.join(src, "config.json")) as f:
        cfg = json.load(f)
    cfg["architectures"] = list(architectures)
    out = tempfile.mkdtemp(prefix="model-config-")
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f)
    return out


def _folder(case: dict) -> str:
    """The case's config folder: the repository's, or a copy naming the swapped-in class."""
    arch = case["architecture"]
    return swapped_folder(case["model"], [arch] if arch else None)


def _cuda_to_meta():
    """A torch-function mode sending tensors a class asks for on ``cuda`` by name (a YaRN
    RoPE's frequencies, DeepSeek-V4's compressor buffers) to the meta device too; ``torch.device
    ("meta")`` alone only fills in a device the call leaves out."""
    from torch.overrides import TorchFunctionMode

    class _Mode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if str(kwargs.get("device", "")).startswith("cuda"):
                kwargs["device"] = "meta"
            return func(*args, **kwargs)

    return _Mode()


#: modules that SGLang's model files reach through the scheduler's ``model_runner`` (its HTTP
#: server's): absent from the oracle venv, they keep the registry from loading those files
#: (NemotronH, XLM-RoBERTa, Falcon-H1, ...), which then fall back to transformers' classes
SERVER_STUBS = {"uvicorn", "fastapi"}


def _unwritten_groups(par) -> None:
    """The one-rank TP, attention-TP, MoE and pipeline groups a class reads while it is built
    (HunYuan's sampler, Kimi K3's attention group, NemotronH's expert group, Phi's and
    StarCoder 2's pipeline rank), where the published launch left them unwritten: every rank
    0 of 1."""
    import types

    def one():
        device = types.SimpleNamespace(rank=lambda: 0, size=lambda: 1)
        return types.SimpleNamespace(world_size=1, rank_in_group=0, rank=0, ranks=[0],
                                     device_group=device, cpu_group=None, ca_comm=None,
                                     is_first_rank=True, is_last_rank=True)

    missing = {}
    for name in ("tp_group", "attn_tp_group", "moe_ep_group", "moe_tp_group"):
        try:
            getattr(par, name)
        except RuntimeError:
            missing[name] = one()
    if not hasattr(par.pp_group, "rank"):
        missing["pp_group"] = one()
    if missing:
        par.override_permanently(**missing)


def run_params_case(case: dict, facts: dict, oracle) -> dict:
    import sglang.srt.layers.attention.dsa.dsa_indexer as dsa
    import sglang.srt.runtime_context as rc
    import torch
    from record_vision_params import scheduler_model_config
    from sglang.srt.model_loader.utils import get_model_architecture

    # no CUDA streams on the meta device, and an H100's SM count for the DSA indexer's split
    type(rc._CONTEXT).get_stream = lambda self, name: None
    torch.cuda.Stream = lambda *a, **k: None
    dsa.resolve_num_sms = lambda: 132
    argv = ["--model-path", _folder(case), *case["argv"]]
    out = dict(name=case["name"], model=case["model"], architecture=case["architecture"],
               argv=case["argv"], ok=False, error=None)
    with scheduler_model_config(argv, facts) as (mc, par):
        _unwritten_groups(par)
        try:
            cls, arch = get_model_architecture(mc)
            with torch.device("meta"), _cuda_to_meta():
                model = cls(config=mc.hf_config, quant_config=None)
        except Exception as e:  # noqa: BLE001 - SGLang refusing to build the class is an answer
            out["error"] = f"{type(e).__name__}: {e}"[:500]
            return out
        out["class"] = arch
        out["is_generation"] = bool(mc.is_generation)
        out["params_rank0"] = sum(p.numel() for p in model.parameters())
        # buffers the class allocates beside its weights (a RoPE cos/sin cache, shared by
        # every layer that asks get_rope for the same one), each counted once
        seen: dict[int, tuple[str, int]] = {}
        for name, buf in model.named_buffers(remove_duplicate=False):
            seen.setdefault(id(buf), (name, buf.numel() * buf.element_size()))
        out["buffers_rank0"] = {n: b for n, b in sorted(seen.values())}
        out["ok"] = True
    return out


def main() -> None:
    sys.path.insert(0, HERE)
    import record_kv_pool
    from record_vision_params import record_main

    record_kv_pool.EXTRA_STUBS.update(SERVER_STUBS)  # (the worker re-enters main too)

    record_main(__doc__, RESULTS, cases(), run_params_case, __file__)


if __name__ == "__main__":
    main()
