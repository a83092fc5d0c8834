"""Generate ``tests/parity/data/hubdraws-cases.json``: the public random cases' draws on the real
configs of every architecture the parity models hold, on every GPU target.

``hub`` plans the 2026 architectures (DeepSeek-V3.2/V4 sparse attention, Qwen3.5 linear
attention, MiMo and Gemma sliding windows, Nemotron Mamba hybrids, ...) with five launches an
operator starts from, on three targets; ``draws`` varies the flags but keeps the public
cases' three models. A held-out case may do both: a launch drawn like the random ones (the
``draws`` learner: attention backend or prefill/decode pair, page size, CUDA-graph backends,
KV dtype, tp, memory fraction, chunk, running limit), on a real config no draw has met, on a
target of the whole catalog. Speculation: the drawn bundle is tied to its model (a draft
trained for it), so a config that declares MTP layers gets the MTP bundle of the ``hub`` suite
instead, a third of the time; other configs get none. A GPTQ checkpoint is drawn on the AMD
targets only: on NVIDIA ones SGLang converts it to ``gptq_marlin``, a conversion the oracle's
stubbed kernel package never detects (its README), so it would report a refusal real SGLang
does not make. ``--suite shipdraws`` draws over the Hub configs launchplan ships instead (the
checkpoints users name by their Hub id), ``--suite synthdraws`` over the parity models' synthetic
configs (each the fewest keys that reach a model family's rules). ``--suite envdraws`` adds an
environment to each draw over the parity models' published configs: one to three SGLang
variables among those the rules admitted for that target and model read (``engine.pipeline``'s
read sets; so a DeepSeek-V4 launch meets the DSV4 layouts, an MI300X one the aiter switches),
each spelt as people write it (``1``, ``true``, ``y``, ``on``, ``0``, a number, a word the
variable does not parse); ``--suite shipenvdraws`` does the same over the shipped Hub configs.
``--suite archdraws`` draws over ``ARCHDRAWS`` only: the published configs of architectures no
other suite had (GPT-2, GPT-J, BigCode, OPT, StableLM, Phi 1, ChatGLM, EXAONE 3, MiniCPM3's MLA,
the original LLaVA, DeepSeek-VL2 and Janus without an ``architectures`` key, LFM2-VL, Voxtral,
Laguna's hybrid sliding window, the text-only Qwen3.5-MoE class, and Muse Glimmer's real file);
``--suite archdraws2`` over ``ARCHDRAWS2``, a second round of them (Ministral 3 with its YaRN
and static FP8, OLMo 3, whose SGLang config class renames its architecture, Mamba 1, the dense
ERNIE 4.5, MiniMax-M3's sparse-attention VLM in ModelOpt's mixed NVFP4); ``--suite archdraws3``
over ``ARCHDRAWS3``, a third (DBRX, whose real file SGLang's transformers refuses, Arcee's AFMoE
with its sliding window, Apertus, InternLM3, LFM2's MoE, and CLIP, which SGLang serves as an
embedder); ``--suite archdraws4`` over ``ARCHDRAWS4``, a fourth (Persimmon's partial rotary and QK
layer norm, OLMo 1, HunYuan's dense and MoE classes with their alpha-scaled dynamic RoPE, and
InternVL's chat class around a Qwen2 text model, dots.ocr's own config class); ``--suite
archdraws5`` over ``ARCHDRAWS5``, a fifth (GLM-4.5V's MoE VLM with a shared expert, Qwen3-Omni's
thinker/talker MoE, DeepSeek-OCR's MLA-free DeepSeek-V2 text model that SGLang names from its
``auto_map``, LocateAnything's MoonViT around Qwen2.5, and a BERT sequence classifier); ``--suite
archdraws6`` over ``ARCHDRAWS6``, a sixth (GLM-4.1V, Tencent's Hy3 MoE with its MTP layer, Command A
Vision as MLX converted it, GLM-OCR with its MTP layer, PaddleOCR-VL and LightOnOCR's Pixtral tower
around Qwen3); ``--suite archdraws7`` over ``ARCHDRAWS7``, a seventh (LLaVA-OneVision's
``LlavaQwenForCausalLM``, SigLIP named by ``mm_vision_tower`` around Qwen2-7B, from a test that
copies the Hub file).
Their generation imports launchplan (``PYTHONPATH=src``), and the variables a launch may draw
are those today's rules read: a rule that reads one more variable changes the draw, so the
committed ``envdraws`` is the draw of the rules it was generated with (record it again after
regenerating).

    python tests/parity/tools/gen_hubdraws_cases.py [--suite NAME] [--count N] [--seed S] [OUT]
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py hubdraws --jobs 1
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gen_draws_cases import arguments, draw  # noqa: E402

PARITY = Path(__file__).resolve().parents[1]
DATA, MODELS = PARITY / "data", PARITY / "models"
FACTS = PARITY.parents[1] / "src" / "launchplan" / "facts" / "data"
TARGETS = FACTS / "targets.json"
#: suite -> (the folder of its configs, the prefix naming one in a case, its default seed,
#: whether it takes the synthetic configs or the published ones): the parity models'
#: published configs, the Hub configs launchplan ships (the checkpoints users name by their
#: Hub id), or the parity models' synthetic configs
POOLS = {"hubdraws": (MODELS, "parity-models/", 4242, False),
         "shipdraws": (FACTS / "hub", "shipped/", 4343, False),
         "synthdraws": (MODELS, "parity-models/", 4444, True),
         "envdraws": (MODELS, "parity-models/", 4545, False),
         "shipenvdraws": (FACTS / "hub", "shipped/", 4646, False),
         "archdraws": (MODELS, "parity-models/", 4747, False),
         "archdraws2": (MODELS, "parity-models/", 4848, False),
         "archdraws3": (MODELS, "parity-models/", 4949, False),
         "archdraws4": (MODELS, "parity-models/", 5050, False),
         "archdraws5": (MODELS, "parity-models/", 5151, False),
         "archdraws6": (MODELS, "parity-models/", 5252, False),
         "archdraws7": (MODELS, "parity-models/", 5252, False)}
#: suite -> the only folders of its pool it draws from
ARCHDRAWS = ("chatglm3-6b", "deepseek-vl2-tiny", "exaone-3.0-7.8b", "glm-4-9b", "gpt-bigcode",
             "gpt-j-6b", "gpt2", "janus-1.3b", "laguna-s-2.1-fp8", "laguna-xs.2-fp8",
             "lfm2.5-vl-1.6b", "llava-v1.5-7b", "minicpm3-4b", "muse-glimmer-30b", "opt-125m",
             "phi-1", "qwen3.8-2.4t-a95b", "stablelm-2-1.6b", "stablelm-3b",
             "voxtral-mini-3b-2507")
#: the second round's published configs of architectures no suite had
ARCHDRAWS2 = ("devstral-2-123b-instruct", "ernie-4.5-0.3b-base", "mamba-2.8b-hf",
              "minimax-m3-nvfp4", "olmo-3.1-32b-instruct")
#: the third round's: configs vendored by lablup/mlxcel's loader tests (mlx-community
#: conversions) and a CLIP config kept beside a tutorial
ARCHDRAWS3 = ("apertus-8b-instruct-2509-4bit", "clip-vit-base-patch32", "dbrx-instruct-4bit",
              "internlm3-8b-instruct-4bit", "lfm2-8b-a1b-4bit", "trinity-nano-preview-4bit")
#: the fourth round's: architectures SGLang registers that no parity config had, on published
#: files vendored by public repositories (tests/parity/models/README.md names each source)
ARCHDRAWS4 = ("dots-ocr", "hunyuan-a13b-instruct", "hunyuan-mt-7b", "internvl3-1b", "olmo-1b-hf",
              "persimmon-8b-base")
#: the fifth round's: the same kind of sources, mostly printouts of a model inspector's reports
ARCHDRAWS5 = ("bert-base-multilingual-uncased-sentiment", "deepseek-ocr", "glm-4.5v",
              "locateanything-3b-4bit", "qwen3-omni-30b-a3b-instruct")
#: the sixth round's: Hub files as hlky/dinoml_v2's transformers audits saved them
ARCHDRAWS6 = ("command-a-vision-07-2025-4bit", "glm-4.1v-9b-thinking", "glm-ocr", "hy3-preview",
              "lightonocr-2-1b-bbox-soup", "paddleocr-vl")
#: the seventh round's: LLaVA-OneVision's own (lmms-lab) class around Qwen2, from a test that
#: copies the Hub file
ARCHDRAWS7 = ("llava-onevision-qwen2-7b-ov",)
ONLY = {"archdraws": ARCHDRAWS, "archdraws2": ARCHDRAWS2, "archdraws3": ARCHDRAWS3,
        "archdraws4": ARCHDRAWS4, "archdraws5": ARCHDRAWS5, "archdraws6": ARCHDRAWS6,
        "archdraws7": ARCHDRAWS7}
#: suite -> its default number of draws (400 unless named)
COUNTS = {"archdraws": 250, "archdraws2": 200, "archdraws3": 60, "archdraws4": 60,
          "archdraws5": 60, "archdraws6": 60, "archdraws7": 40}
#: spellings drawn per kind of variable (``launchplan.facts.environment.VARIABLES``)
SPELLINGS = {"bool": ("1", "0", "true", "False", "y", "on", "no"),
             "int": ("0", "1", "8", "64", "4096", "abc"),
             "float": ("0", "0.5", "1.0", "abc")}
#: the values a string variable's readers tell apart (its default, what rules compare, and a
#: word the variable does not know: SGLang refuses SGLANG_RAGGED_VERIFY_MODE=dynamic under
#: speculation, which the shipenvdraws probe found)
WORDS = {"MOONCAKE_PROTOCOL": ("rdma", "efa", "tcp"),
         "SGLANG_AITER_KV_CACHE_LAYOUT": ("nhd", "vectorized_5d"),
         "SGLANG_DSV4_COMPRESSED_KV_LAYOUT": ("auto", "v4", "bf16"),
         "SGLANG_DSV4_COMPRESS_STATE_DTYPE": ("float32", "bf16", "bfloat16"),
         "SGLANG_DSV4_KV_LAYOUT": ("auto", "v4", "v41", "v41_new"),
         "SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE": ("bf16", "fp8"),
         "SGLANG_HACK_FLASHMLA_BACKEND": ("auto", "unified_kv_triton"),
         "SGLANG_MAMBA_CONV_DTYPE": ("bfloat16", "float32"),
         "SGLANG_MAMBA_SSM_DTYPE": ("bfloat16", "float32"),
         "SGLANG_MOONCAKE_CUSTOM_MEM_POOL": ("NVLINK", ""),
         "SGLANG_RAGGED_VERIFY_MODE": ("static", "dynamic"),
         "SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND": ("rust", "python"),
         "SGLANG_EMBEDDINGS_SPARSE_HEAD": ("1",)}
#: the MTP bundle of ``gen_hub_cases.LAUNCHES["tp8-mtp"]`` (no draft path: the model's own)
MTP = ["--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
       "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"]
#: config keys that declare MTP layers, in the spellings the parity configs use
MTP_KEYS = ("num_nextn_predict_layers", "mtp_num_hidden_layers", "num_mtp_layers",
            "mtp_num_layers")


def pool_models(root: Path = MODELS, synthetic: bool = False) -> list[str]:
    """Every folder under ``root`` holding a published config, or with ``synthetic`` a made-up
    one (``-synth``)."""
    return sorted(p.name for p in root.iterdir()
                  if (p / "config.json").is_file() and p.name.endswith("-synth") == synthetic)


def has_mtp(config: dict) -> bool:
    inner = config.get("text_config") or {}
    return any(int(c.get(k) or 0) > 0 for c in (config, inner) for k in MTP_KEYS)


def quant_method(config: dict) -> str | None:
    return (config.get("quantization_config") or {}).get("quant_method")


def main() -> None:
    suite = "hubdraws"
    if "--suite" in sys.argv:
        at = sys.argv.index("--suite")
        suite = sys.argv[at + 1]
        del sys.argv[at:at + 2]
    root, prefix, seed, synthetic = POOLS[suite]
    args, stats, cases = arguments(suite, COUNTS.get(suite, 400), seed)
    rng = random.Random(args.seed)
    fields = sorted(set(next(c["fields"] for c in cases if c["name"].startswith("r")))
                    | set(json.loads((DATA / "reach-cases.json").read_text())[0]["fields"]))
    models = pool_models(root, synthetic)
    if suite in ONLY:
        missing = set(ONLY[suite]) - set(models)
        if missing:
            raise SystemExit(f"{suite}: no config in {', '.join(sorted(missing))}")
        models = list(ONLY[suite])
    configs = {m: json.loads((root / m / "config.json").read_text()) for m in models}
    mtp = {m for m in models if has_mtp(configs[m])}
    gptq = {m for m in models if quant_method(configs[m]) == "gptq"}
    catalog = [row["name"] for row in json.loads(TARGETS.read_text())["targets"]]
    out: list[dict] = []
    seen: set[tuple] = set()
    while len(out) < args.count:
        platform, _, argv = draw(stats, rng)
        argv = _without_speculation(argv)
        if rng.random() < 0.5:  # half on the public targets, half on the whole catalog
            platform = rng.choice(catalog)
        model = rng.choice(models)
        if model in gptq and not platform.startswith("mi"):
            continue  # the harness cannot answer it (above)
        if model in mtp and rng.random() < 1 / 3:
            argv += MTP
        key = (platform, model, tuple(argv))
        if key in seen:
            continue
        seen.add(key)
        case = {"name": f"{suite}/{len(out)}", "platform": platform, "model": prefix + model,
                "argv": argv, "fields": fields}
        if suite.endswith("envdraws"):
            env = draw_environment(rng, platform, str(root / model))
            if not env:
                continue
            case["env"] = env
        out.append(case)
    Path(args.out).write_text(json.dumps(out, indent=0) + "\n")
    print(f"wrote {len(out)} cases to {args.out}")


def draw_environment(rng: random.Random, platform: str, model: str) -> dict[str, str]:
    """One to three of the variables the rules admitted for ``platform`` and ``model`` read,
    each with a spelling of its kind (none when those rules read no variable)."""
    from launchplan.engine.pipeline import PLANS
    from launchplan.errors import InputError
    from launchplan.facts.environment import PLAIN_FLAGS, VARIABLES
    from launchplan.planner import build_raw, build_record
    from launchplan.rulesets import get_ruleset

    try:
        record = build_record(build_raw((), {}, model), platform)
    except InputError:  # a config launchplan refuses to load (SGLang does too): no rule runs
        return {}
    plan = PLANS.plan(get_ruleset("default").rules(), record)
    known = {**{name: kind for name, (kind, _) in VARIABLES.items()},
             **dict.fromkeys(PLAIN_FLAGS, "bool")}
    read = sorted({name for reads in plan.depends() for name in reads if name in known})
    if not read:
        return {}
    chosen = rng.sample(read, min(len(read), rng.choice((1, 1, 2, 3))))
    return {name: rng.choice(WORDS.get(name, SPELLINGS.get(known[name], ("1",))))
            for name in sorted(chosen)}


def _without_speculation(argv: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for part in argv:
        if skip:
            skip = False
            continue
        if part.startswith("--speculative"):
            skip = True
            continue
        out.append(part)
    return out


if __name__ == "__main__":
    main()
