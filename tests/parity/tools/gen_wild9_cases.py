"""Generate ``tests/parity/data/wild9-cases.json``: launches that set together the flags a
rule reads together but no recorded case ever set together.

    PYTHONPATH=src:. python tests/parity/tools/gen_wild9_cases.py [--probe SEED] [--pairs]
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py wild9 --jobs 1 --timeout 120

Every rule declares the fields it reads (``@rule(reads=...)``). Two flags one rule reads are
coupled: the rule's answer may depend on both at once, and a case that sets only one of them
never shows whether launchplan couples them as SGLang does. The pairs are counted over every
rule the registry holds (all rule sets' variants) and every flag-settable field, against the
fields each recorded case sets (``*-cases.json``: its ``argv``, abbreviations read as SGLang's
parser reads them, its ``args``, and the model path every case names); ``--pairs`` prints the
figure and the pairs.

Each line is aimed at one such pair, drawn uniformly from the ones not yet covered by the
draw: a rule that reads both, a model and target the rule admits (its ``archs`` and
``applies``), leaning on the model facts the rule consults (MLA, DSA, MoE, hybrid SWA, linear
attention and Mamba, multimodal, encoder-decoder, sinks, NextN layers, a quantization config)
and on AMD or Blackwell targets when it reads them; the pair's two flags, and up to two more
the rule reads with them, take values from SGLang's choice lists, plain values and boundary
ones (0, -1, nan, inf where the parser admits them); half the lines start from the guide's
launch of the model (``gen_wild7_cases._plain``, ``gen_wild6_cases.line``), the others from a
bare one. Seeded and frozen; ``--probe SEED`` draws the same kind of lines into
``probe-cases.json``.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
from functools import cache
from pathlib import Path

from tests.parity.tools import gen_wild5_cases as wild5
from tests.parity.tools import gen_wild6_cases as wild6
from tests.parity.tools import gen_wild7_cases as wild7
from tests.parity.tools import gen_wild8_cases as wild8
from tests.parity.tools import gen_wild_cases as wild

from launchplan.engine.registry import RuleSpec, discover
from launchplan.errors import InputError
from launchplan.facts.models import load_model
from launchplan.facts.targets import get_target
from launchplan.input.cli import parse_argv
from launchplan.input.fields import FIELDS, release_table

SEED = 9090
COUNT = 240
DATA = wild.DATA

#: fields a line cannot set to anything meaningful without files, plugins or a network (paths,
#: certificates, adapters, hooks): their pairs are counted but not drawn
UNDRAWN = frozenset({
    "model_path", "tokenizer_path", "speculative_draft_model_path", "lora_paths",
    "uno_lora_path", "forward_hooks", "sidecar", "sidecar_args", "custom_weight_loader",
    "ssl_keyfile", "ssl_certfile", "ssl_ca_certs", "ssl_keyfile_password",
    "speculative_token_map", "speculative_ngram_external_corpus_path", "watermark_config",
    "export_metrics_to_file_dir", "debug_tensor_dump_output_folder", "msprobe_dump_config",
    "speculative_adaptive_config", "cuda_graph_config", "config", "chat_template",
    "completion_template", "json_model_override_args", "decrypted_config_file",
    "decrypted_draft_config_file", "prompt_tokens_buckets", "generation_tokens_buckets",
    "tokenizer_metrics_allowed_custom_labels",
    "remote_instance_weight_loader_send_weights_group_ports",
    "host", "port", "nccl_port", "dist_init_addr", "base_gpu_id", "gpu_id_step",
})
#: values for the string fields SGLang's parser takes without a choice list
STRINGS = {
    "device": ("cuda",), "dllm_algorithm": ("LowConfidence", "JointThreshold"),
    "radix_cache_backend": ("flexkv",), "model_impl": ("auto", "sglang", "transformers"),
    "speculative_algorithm": ("EAGLE", "EAGLE3", "NEXTN", "NGRAM", "STANDALONE", "DFLASH"),
    "speculative_draft_attention_backend": ("fa3", "flashinfer", "triton", "trtllm_mha",
                                            "flashmla", "fa4"),
    "init_expert_location": ("trivial",), "eplb_algorithm": ("auto", "deepseek"),
    "revision": ("main",), "speculative_draft_model_revision": ("main",),
    "served_model_name": ("model",), "api_key": ("k",), "admin_api_key": ("k",),
    "disaggregation_ib_device": ("mlx5_0",), "model_loader_extra_config": ("{}",),
    "tokenizer_metrics_custom_labels_header": ("x-labels",),
    "remote_instance_weight_loader_seed_instance_ip": ("10.0.0.2",),
    "allowed_media_domains": ("example.com",),
    "mm_process_config": ("{}",), "default_chat_template_kwargs": ('{"enable_thinking": false}',),
    "limit_mm_data_per_request": ('{"image": 2}',),
    "preferred_sampling_params": ('{"temperature": 0.7}',),
    "radix_eviction_policy_config": ("{}",), "unified_cache_external_linker_config": ("{}",),
}
#: integer fields whose meaningful values are narrower than the generic table's
INTS = {
    "tp_size": ("1", "2", "4", "8"), "dp_size": ("1", "2", "4", "8"),
    "ep_size": ("1", "2", "4", "8"), "pp_size": ("1", "2", "4"), "nnodes": ("1", "2"),
    "node_rank": ("0", "1"), "page_size": ("1", "16", "32", "64", "128", "0", "-1"),
    "speculative_num_steps": ("1", "3", "5", "0"), "speculative_eagle_topk": ("1", "4", "8"),
    "speculative_num_draft_tokens": ("2", "4", "16", "0"),
    "context_length": ("4096", "32768", "131072", "0", "-1"),
    "chunked_prefill_size": ("-1", "0", "2048", "8192", "16384"),
    "moe_dense_tp_size": ("1", "2"), "attn_cp_size": ("1", "2", "4"),
}
#: the generic tables: plain and boundary values, tried until the parser admits one
PLAIN_INTS = ("1", "2", "4", "8", "64", "256", "4096")
ODD_INTS = ("0", "-1")
PLAIN_FLOATS = ("0.5", "0.85", "1.0", "2")
ODD_FLOATS = ("0", "-1", "nan", "inf")
#: model facts whose rules lean on models holding them
MODEL_HINTS = ("is_mla", "is_deepseek_dsa", "is_multimodal", "is_hybrid_swa", "is_hybrid_linear",
               "uses_kda", "has_attention_sinks", "is_encoder_decoder", "num_nextn_predict_layers",
               "quantization_config", "quant_config", "quant_method", "has_asymmetric_kv",
               "attention_chunk_size", "learnable_sink", "is_embedding_gemma",
               "mamba_chunk_size", "has_dspark_keys")
TARGET_HINTS = ("is_hip", "is_sm100", "is_blackwell", "is_sm120", "is_sm90", "is_gfx95")


#: lines aimed at the classes the probes found (``wild9/found/<name>``): platform, model, argv.
#: Four probes (seeds 9191, 9292, and 9393 and 9494 asking every field) agreed on all but four
#: classes, each a refusal launchplan made from the rule that corresponds to SGLang's, in a
#: wording the harness had not mapped: DeepSeek-V4's feature check refusing encoder SWA replay
#: off V4.1 (worded as the capability check), the DSA prefill-CP assert on a PD decode server,
#: 0.5.23's decoder SWA replay blockers (mapped for 0.5.21 only), and the KV-less prefill's
#: validator that EmbeddingGemma's capability hook runs again (HiSparse, CP, FP4/MXFP8 KV).
FOUND: dict[str, tuple[str, str, list[str]]] = {
    "encoder-replay-v4-rocm": ("mi355x", "parity-models/deepseek-v4-synth", [
        "--tp", "8", "--enable-encoder-swa-bounded-replay",
        "--enable-unified-cache-external-linker"]),
    "encoder-replay-v4-cuda": ("h200", "parity-models/deepseek-v4-synth", [
        "--tp", "8", "--enable-encoder-swa-bounded-replay", "--max-running-requests", "64"]),
    "prefill-cp-decode-dsa": ("h200", "parity-models/deepseek-v3.2-exp", [
        "--tp", "8", "--enable-prefill-cp", "--disaggregation-mode", "decode"]),
    "prefill-cp-decode-glm-dsa": ("b200", "parity-models/glm-moe-dsa-synth", [
        "--tp", "8", "--enable-prefill-cp", "--disaggregation-mode", "decode",
        "--disable-radix-cache"]),
    "decoder-replay-deepep": ("h200", "parity-models/deepseek-v4.1-low-ratio-synth", [
        "--tp", "8", "--enable-decoder-swa-bounded-replay", "--elastic-ep-join-mode", "scale",
        "--moe-a2a-backend", "deepep"]),
    "decoder-replay-dp-attention": ("b200", "parity-models/deepseek-v4.1-synth", [
        "--tp", "8", "--enable-dp-attention", "--dp", "4",
        "--enable-decoder-swa-bounded-replay"]),
    "decoder-replay-prefill-graph": ("b200", "parity-models/deepseek-v4.1-synth", [
        "--tp", "8", "--enable-decoder-swa-bounded-replay", "--cuda-graph-backend-prefill",
        "full"]),
    "embedding-gemma-hisparse": ("h100", "parity-models/embeddinggemma-synth", [
        "--enable-hisparse"]),
    "embedding-gemma-prefill-cp": ("b200", "parity-models/embeddinggemma-synth", [
        "--enable-prefill-cp"]),
    "embedding-gemma-mxfp8": ("b200", "parity-models/embeddinggemma-synth", [
        "--kv-cache-dtype", "mxfp8"]),
    "embedding-gemma-fp4": ("b200", "parity-models/embeddinggemma-synth", [
        "--kv-cache-dtype", "fp4_mx_block16"]),
    "embedding-gemma-triton-hisparse": ("h100", "parity-models/embeddinggemma-synth", [
        "--attention-backend", "triton", "--enable-hisparse"]),
}


def _settable(name: str) -> bool:
    return bool(FIELDS[name].flags)


def _case_fields(case: dict, flags: dict[str, str]) -> set[str]:
    """The fields one recorded case sets: its flags (SGLang's parser takes an unambiguous
    prefix), its ``args``, and the model path every case names."""
    out = {"model_path"}
    for token in case.get("argv", []):
        if not isinstance(token, str) or not token.startswith("--"):
            continue
        name = token.partition("=")[0]
        field = flags.get(name)
        if field is None:
            found = {f for flag, f in flags.items() if flag.startswith(name)}
            field = found.pop() if len(found) == 1 else None
        if field is not None:
            out.add(field)
    return out | set(case.get("args") or {})


def recorded_pairs(skip: tuple[str, ...] = ("wild9", "probe")) -> set[tuple[str, str]]:
    """Every pair of fields some recorded case set together (the suites named left out)."""
    flags = release_table("0.5.23").flag_to_field
    seen: set[tuple[str, str]] = set()
    for path in sorted(DATA.glob("*-cases.json")):
        if path.name.removesuffix("-cases.json").startswith(skip):
            continue
        for case in json.loads(path.read_text()):
            seen.update(itertools.combinations(sorted(_case_fields(case, flags)), 2))
    return seen


@cache
def coupled() -> dict[tuple[str, str], tuple[RuleSpec, ...]]:
    """Every pair of flag-settable fields one rule reads, with the rules reading both."""
    out: dict[tuple[str, str], list[RuleSpec]] = {}
    for _, spec in sorted(discover().items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        for pair in itertools.combinations(sorted(f for f in spec.reads if _settable(f)), 2):
            out.setdefault(pair, []).append(spec)
    return {pair: tuple(specs) for pair, specs in out.items()}


@cache
def never_co_set() -> dict[tuple[str, str], tuple[RuleSpec, ...]]:
    """The coupled pairs no recorded case set together."""
    seen = recorded_pairs()
    return {pair: specs for pair, specs in coupled().items() if pair not in seen}


def _parses(tokens: list[str]) -> bool:
    try:
        parse_argv(tokens)
    except InputError:
        return False
    return True


def values(name: str, rng: random.Random) -> list[str] | None:
    """Tokens setting one field to a meaningful value the parser admits, or None."""
    spec = FIELDS[name]
    flag = spec.flags[0]
    if name in UNDRAWN:
        return None
    if spec.action in ("_StoreTrueAction", "DeprecatedStoreTrueAction"):
        return [flag]
    if spec.action == "_StoreFalseAction":
        return [flag]
    if spec.action == "BooleanOptionalAction":
        return [rng.choice((flag, "--no-" + flag[2:]))]
    if spec.choices:
        options = [str(c) for c in spec.choices if c is not None]
    elif name in STRINGS:
        options = list(STRINGS[name])
    elif name in INTS:
        options = list(INTS[name])
    elif spec.parse in ("int", "human_readable_int"):
        options = list(PLAIN_INTS) + list(ODD_INTS) * 2
    elif spec.parse == "float":
        options = list(PLAIN_FLOATS) + list(ODD_FLOATS)
    else:
        return None
    rng.shuffle(options)
    for value in options:
        tokens = [flag, value]
        if _parses(tokens):
            return tokens
    return None


@cache
def _facts(model: str) -> object | None:
    folder = str(Path(__file__).resolve().parents[1] / "models" / model.split("/", 1)[1]) \
        if model.startswith("parity-models/") else (
            str(wild5.BUNDLED.parent / "hub" / model.split("/", 1)[1])
            if model.startswith("shipped/") else model.split("/", 1)[1])
    try:
        return load_model(folder)
    except Exception:  # a config launchplan refuses: not a draw's model
        return None


@cache
def _target(name: str) -> object:
    return get_target(name)


def _truthy(obj: object, fact: str) -> bool:
    try:
        return bool(getattr(obj, fact))
    except Exception:
        return False


def _reads_moe(spec: RuleSpec) -> bool:
    return any(k in f for f in spec.reads for k in ("moe", "expert", "ep_size", "deepep"))


def pick(rng: random.Random, spec: RuleSpec) -> tuple[str, str] | None:
    """A model and target the rule admits, leaning on the facts it consults."""
    pool = wild8.models()
    names = sorted(m for m in pool if _facts(m) is not None)
    hints = [f.split(".", 1)[1] for f in spec.facts
             if f.startswith("model.") and f.split(".", 1)[1] in MODEL_HINTS]
    lean = [m for m in names if any(_truthy(_facts(m), h) for h in hints)]
    if _reads_moe(spec):
        lean += [m for m in names if pool[m].moe]
    thints = [f.split(".", 1)[1] for f in spec.facts
              if f.startswith("target.") and f.split(".", 1)[1] in TARGET_HINTS]
    for attempt in range(60):
        if spec.archs is not None:
            choices = [m for m in names if getattr(_facts(m), "arch0", None) in spec.archs]
            if not choices:
                return None
            model = rng.choice(choices)
        else:
            model = rng.choice(lean if lean and rng.random() < 0.7 else names)
        fleet = list(wild6.FLEETS[pool[model].size])
        leaning = [t for t in fleet if any(_truthy(_target(t), h) for h in thints)]
        platform = rng.choice(leaning if leaning and rng.random() < 0.6 else fleet)
        if spec.admits(_target(platform), _facts(model)) or attempt == 59:
            return model, platform
    return None


def line(rng: random.Random, pair: tuple[str, str], spec: RuleSpec, model: str,
         platform: str) -> tuple[list[str], dict[str, str]] | None:
    """A launch setting the pair (and up to two more fields the rule reads) on the model."""
    set_here = [pair[0], pair[1]]
    more = sorted(f for f in spec.reads if _settable(f) and f not in set_here
                  and f not in UNDRAWN)
    for extra in rng.sample(more, min(len(more), rng.choice((0, 0, 1, 2)))):
        set_here.append(extra)
    tokens: list[str] = []
    for name in set_here:
        given = values(name, rng)
        if given is None:
            if name in pair:
                return None
            continue
        tokens += given
    if rng.random() < 0.5:
        profile = wild8.models()[model]
        if model in wild6.MODELS:
            argv, env = wild6.line(rng, model, platform)
        else:
            argv, env = wild7._plain(rng, profile, model, platform)
        return argv + tokens, env
    base: list[str] = []
    gpus, _ = wild6.TARGETS.get(platform, (1, ""))
    if wild8.models()[model].size != "small" and gpus > 1:
        base = ["--tp", str(gpus)]
    return base + tokens, {}


def cases(seed: int, suite: str) -> list[dict]:
    rng = random.Random(seed)
    compared = wild8.every_field() if "--every-field" in sys.argv else wild8.written()
    open_pairs = dict(never_co_set())
    out: list[dict] = []
    count = COUNT if suite != "probe" else 300
    tries = 0
    while len(out) < count and open_pairs and tries < count * 20:
        tries += 1
        pair = rng.choice(sorted(open_pairs))
        if any(f in UNDRAWN for f in pair):
            del open_pairs[pair]
            continue
        spec = rng.choice(open_pairs[pair])
        where = pick(rng, spec)
        if where is None:
            continue
        model, platform = where
        drawn = line(rng, pair, spec, model, platform)
        if drawn is None or not _parses(drawn[0]) or wild7._graph_too_big(drawn[0]):
            continue
        argv, env = drawn
        case = wild7._case(f"{suite}/{len(out)}", platform, model, argv, env, compared)
        flags = release_table("0.5.23").flag_to_field
        for covered in itertools.combinations(sorted(_case_fields(case, flags)), 2):
            open_pairs.pop(covered, None)
        out.append(case)
    if suite == "wild9":
        out += [wild7._case(f"wild9/found/{name}", platform, model, argv, {}, compared)
                for name, (platform, model, argv) in FOUND.items()]
    return out


def report(pairs: dict[tuple[str, str], tuple[RuleSpec, ...]],
           undrawn: frozenset[str] = UNDRAWN) -> bool:
    """Print how many coupled pairs stay never co-set (with ``--pairs``, the pairs), and
    whether a draw is still to be written (not when the pairs were asked for)."""
    drawable = sum(1 for p in pairs if not set(p) & undrawn)
    print(f"{len(coupled())} pairs of flags read together by some rule; {len(pairs)} never "
          f"set together in a recorded case ({drawable} drawable)")
    if "--pairs" not in sys.argv:
        return True
    for (a, b), specs in sorted(pairs.items()):
        print(f"{a} {b}: {', '.join(sorted({s.name for s in specs}))}")
    return False


def main() -> None:
    wild.options(valued=("--probe",), switches=("--every-field", "--pairs"))
    if report(never_co_set()):
        wild5.write_draw("wild9", SEED, cases)


if __name__ == "__main__":
    main()
