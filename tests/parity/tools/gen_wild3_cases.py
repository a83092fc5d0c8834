"""Generate ``tests/parity/data/wild3-cases.json``: a third draw of wild lines, leaning on the
rules the recorded suites reach least.

    PYTHONPATH=src:. python tests/parity/tools/gen_wild3_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py wild3 --jobs 2

The same kind of line as ``gen_wild_cases.py`` (a realistic base over every bundled model and
simulated target, half of them followed by 1-6 further flags), with another seed and one
change: half of the further flags name a field some rule triggers on, the rule drawn with a
weight of 1 / (1 + the number of recorded cases, in every suite, that set one of its trigger
fields). Rules no suite has reached yet are drawn most. The rarity table is frozen in
``wild3-rarity.json`` (``--new-rarity`` recounts it from today's suites and rules, and then
the suite must be recorded anew), so later suites and rules do not change the draw.

``--enable-nvidia-megakernel`` and ``--enable-amd-monokernel`` are never drawn: SGLang hands
each to an out-of-tree plugin (``sgl-nvidia-mega``, ``sgl-amd-mono``: neither a dependency nor
an extra of the sglang package) whose specs decide which models, GPUs and settings it serves;
without the plugin, as in the oracle's venv, SGLang refuses it whatever else the line says, so
a recorded answer says what the venv holds, not what SGLang resolves. Nor is
``--remote-instance-weight-loader-start-seed-via-transfer-engine``: SGLang keeps it only where
Mooncake's transfer engine imports, which the venv lacks (aimed lines with the memory saver,
which turns it off anyway, stand for it). ``--log-level`` takes a
real level name: SGLang's launcher sets up logging from it before building the server
arguments (``prepare_server_args``) and fails on an unknown name there, a step the oracle,
which builds them directly, skips (launchplan reports such a name as bad input, as the
launcher fails).
"""

from __future__ import annotations

import json
import random

from tests.engine.test_skipping_parity import FLAGGED, _value_tokens
from tests.parity.tools import gen_wild_cases as wild

from launchplan.input.fields import FIELDS
from launchplan.rules.graph_config import KEYS as GRAPH_KEYS
from launchplan.rulesets import get_ruleset

SEED = 3033
COUNT = 240
RARITY = wild.DATA / "wild3-rarity.json"
# fields whose recorded answer is the oracle venv's, not SGLang's (see the module docstring)
HARNESS = {"enable_nvidia_megakernel", "enable_amd_monokernel",
           "remote_instance_weight_loader_start_seed_via_transfer_engine"}
# files the simulation has no copy of: SGLang reads the decrypted configs from the model's
# folder while it builds the model config (a word drawn for them names no file there)
FILES = {"decrypted_config_file", "decrypted_draft_config_file"}
NEVER = wild.NEVER | HARNESS | FILES
# a level name for --log-level (as many as the plausible words drawn otherwise, so the draw
# of every other token is the same)
LOG_LEVELS = ("debug", "info", "warning", "error")
# an elastic EP runtime scale-up primary SGLang accepts (mooncake backend, max EP above TP,
# attention DP over all of TP, DP LM head, EP = TP, the nixl A2A, no prefill graph)
SCALE_UP = ["--tp-size", "8", "--attn-dp-size", "8", "--enable-dp-lm-head", "--ep-size", "8",
            "--moe-a2a-backend", "nixl", "--elastic-ep-backend", "mooncake", "--max-ep-size",
            "16", "--cuda-graph-config", '{"prefill": {"backend": "disabled"}}']
JOIN = ["--elastic-ep-join-mode", "scale", "--node-rank", "1", "--elastic-ep-join-rank-offset",
        "8", "--elastic-ep-initial-size", "8"]
# a one-rank joining group (TP 1; a scale joiner is attention DP by itself)
ONE_RANK = ["--tp-size", "1", "--ep-size", "1", "--moe-a2a-backend", "nixl",
            "--enable-dp-lm-head", "--elastic-ep-backend", "mooncake", "--max-ep-size", "16",
            "--cuda-graph-config", '{"prefill": {"backend": "disabled"}}',
            "--elastic-ep-join-mode", "scale", "--node-rank", "1",
            "--elastic-ep-join-rank-offset", "8", "--elastic-ep-initial-size", "8"]
#: Lines aimed at the classes this draw found (``wild3/aimed/<name>``): platform, model, argv.
#: SGLang's elastic EP checks (handle_elastic_ep: join rank offset, join mode, EP size bounds,
#: the runtime scale-up's requirements) run before LayerNorm SP and speculative decoding; the
#: model-config parser is looked up when 0.5.23 first reads the config, before the multimodal,
#: SSL and ASR checks (apply_muse_spark_env_defaults).
AIMED: dict[str, tuple[str, str, list[str]]] = {
    "elastic/offset-without-scale-kimi": ("h200", "kimi-k2", (
        "--tp-size 8 --attn-dp-size 2 --context-length 4096 --page-size 32 --enable-multimodal "
        "--mm-attention-backend flashinfer_cudnn --elastic-ep-join-rank-offset -1 "
        "--enable-megamoe-for-layernorm-sp").split()),
    "elastic/offset-without-scale": ("h100", "deepseek-v3", [
        "--tp-size", "8", "--elastic-ep-join-rank-offset", "8"]),
    "elastic/offset-recover": ("h100", "deepseek-v3", [
        "--tp-size", "8", "--elastic-ep-backend", "mooncake", "--elastic-ep-join-mode",
        "recover", "--elastic-ep-join-rank-offset", "8", "--enable-layernorm-sp"]),
    "elastic/scale-node-rank-0": ("h100", "deepseek-v3", [
        "--tp-size", "8", "--elastic-ep-backend", "mooncake", "--elastic-ep-join-mode",
        "scale", "--elastic-ep-join-rank-offset", "8"]),
    "elastic/scale-offset-0": ("h100", "deepseek-v3", [
        "--tp-size", "8", "--elastic-ep-backend", "mooncake", "--elastic-ep-join-mode",
        "scale", "--node-rank", "1"]),
    "elastic/max-ep-without-backend": ("h200", "qwen3-30b-a3b", [
        "--tp-size", "4", "--max-ep-size", "8", "--speculative-algorithm", "NGRAM"]),
    "elastic/max-ep-zero": ("h200", "qwen3-30b-a3b", [
        "--tp-size", "4", "--elastic-ep-backend", "nixl", "--max-ep-size", "0"]),
    "elastic/initial-without-scaling": ("h200", "qwen3-30b-a3b", [
        "--tp-size", "4", "--elastic-ep-backend", "mooncake", "--max-ep-size", "4",
        "--elastic-ep-initial-size", "4"]),
    "elastic/scale-up-primary": ("h200", "deepseek-v3", SCALE_UP),
    "elastic/scale-up-primary-b200": ("b200", "deepseek-v3", SCALE_UP),
    "elastic/scale-up-joiner": ("h200", "deepseek-v3", SCALE_UP + JOIN),
    "elastic/scale-up-joiner-past-max": ("h200", "deepseek-v3", SCALE_UP + [
        "--elastic-ep-join-mode", "scale", "--node-rank", "1", "--elastic-ep-join-rank-offset",
        "16", "--elastic-ep-initial-size", "8"]),
    "elastic/scale-up-joiner-no-initial": ("h200", "deepseek-v3", SCALE_UP + [
        "--elastic-ep-join-mode", "scale", "--node-rank", "1", "--elastic-ep-join-rank-offset",
        "8"]),
    "elastic/scale-up-primary-initial-4": ("h200", "deepseek-v3", SCALE_UP + [
        "--elastic-ep-initial-size", "4"]),
    "elastic/scale-up-topology": ("h200", "deepseek-v3", [
        "--tp-size", "8", "--attn-dp-size", "2", "--elastic-ep-backend", "mooncake",
        "--max-ep-size", "10"]),
    "elastic/scale-up-dense-tp": ("h200", "deepseek-v3", [
        "--tp-size", "8", "--attn-dp-size", "2", "--elastic-ep-backend", "mooncake",
        "--max-ep-size", "16"]),
    "elastic/scale-up-tokenizer-workers": ("h200", "deepseek-v3", SCALE_UP + [
        "--tokenizer-worker-num", "2"]),
    "elastic/scale-up-load-balance": ("h200", "deepseek-v3", SCALE_UP + [
        "--load-balance-method", "total_requests"]),
    "elastic/scale-up-nixl-backend": ("h200", "deepseek-v3", [
        "nixl" if a == "mooncake" else a for a in SCALE_UP]),
    "elastic/scale-up-prefill-graph": ("h200", "deepseek-v3", SCALE_UP[:-2]),
    "elastic/scale-up-piecewise-decode": ("h200", "deepseek-v3", SCALE_UP[:-2] + [
        "--cuda-graph-config",
        '{"prefill": {"backend": "disabled"}, "decode": {"backend": "breakable"}}']),
    "elastic/scale-up-speculative": ("h200", "deepseek-v3", SCALE_UP + [
        "--speculative-algorithm", "EAGLE"]),
    "elastic/scale-up-no-dp-lm-head": ("h200", "deepseek-v3", [
        a for a in SCALE_UP if a != "--enable-dp-lm-head"]),
    "elastic/scale-up-deepep": ("h200", "deepseek-v3", [
        "deepep" if a == "nixl" else a for a in SCALE_UP]),
    "elastic/scale-up-primary-mi300x": ("mi300x", "deepseek-v3", SCALE_UP),
    "elastic/scale-up-one-rank-joiner": ("h200", "deepseek-v3", ONE_RANK),
    "elastic/scale-up-one-rank-joiner-dense-tp": ("h200", "deepseek-v3", ONE_RANK + [
        "--moe-dense-tp-size", "1"]),
    "elastic/scale-up-timeout": ("h200", "deepseek-v3", SCALE_UP + [
        "--elastic-ep-scale-timeout", "0"]),
    "elastic/scale-up-expert-backup": ("h200", "deepseek-v3", SCALE_UP + [
        "--enable-elastic-expert-backup"]),
    "elastic/scale-up-dcp": ("h200", "deepseek-v3", SCALE_UP + ["--dcp-size", "2"]),
    "elastic/scale-up-moe-dp": ("h200", "deepseek-v3", SCALE_UP + ["--moe-dp-size", "2"]),
    "elastic/scale-up-ep-4": ("h200", "deepseek-v3", [
        "4" if i == 6 else a for i, a in enumerate(SCALE_UP)]),
    "elastic/scale-up-decode-disabled": ("h200", "deepseek-v3", SCALE_UP[:-2] + [
        "--cuda-graph-config",
        '{"prefill": {"backend": "disabled"}, "decode": {"backend": "disabled"}}']),
    "elastic/scale-up-pd-prefill": ("h200", "deepseek-v3", SCALE_UP + [
        "--disaggregation-mode", "prefill"]),
    "seed-transfer-engine/memory-saver": ("h100", "llama-3.1-8b", [
        "--remote-instance-weight-loader-start-seed-via-transfer-engine",
        "--enable-memory-saver"]),
    "seed-transfer-engine/memory-saver-b200": ("b200", "qwen3-8b", [
        "--tp-size", "2", "--enable-memory-saver",
        "--remote-instance-weight-loader-start-seed-via-transfer-engine"]),
    "page-major/unified-and-explicit": ("h100", "llama-3.1-8b", [
        "--enable-unified-memory", "--enable-page-major-kv-layout", "--attention-backend",
        "fa3"]),
    "lb/pd-prefill": ("h100", "llama-3.1-8b", ["--disaggregation-mode", "prefill"]),
    "lb/explicit": ("h100", "llama-3.1-8b", ["--load-balance-method", "total_tokens"]),
    "parser/before-ssl-refresh": ("a100", "mistral-7b-v0.3", [
        "--model-config-parser", "none", "--enable-ssl-refresh"]),
    "parser/before-ssl-keyfile": ("h100", "llama-3.1-8b", [
        "--ssl-keyfile", "key.pem", "--model-config-parser", "x"]),
    "parser/before-prefill-only": ("b300", "llama-3.1-8b", [
        "--prefill-only-disable-kv-cache", "--model-config-parser", "x"]),
    "parser/before-mm-cache": ("h100", "qwen2.5-vl-7b", [
        "--mm-preprocess-cache-size-mb", "-1", "--model-config-parser", "x"]),
    "parser/before-asr": ("h100", "llama-3.1-8b", [
        "--asr-max-concurrent-sessions", "0", "--model-config-parser", "x"]),
    "parser/after-aux-hidden": ("h100", "llama-3.1-8b", [
        "--return-aux-hidden-state-layer-ids", "2", "--model-config-parser", "x"]),
}
# Further draws (``--probe 5151``, then ``--probe 6262`` as 1065 and 1085; not kept) found these
# lines refused for reasons whose SGLang texts were not yet mapped to the rules that give them
# (native NVFP4 NGRAM, KV sharding with streaming sessions, FP4 KV with the unified pool,
# prefill CP on ROCm; pplx outside low-latency mode, native NVFP4 under PD disaggregation):
# ``wild3/found/<n>``.
FOUND: list[tuple[int, str, str, list[str]]] = [
    (138, "b200", "deepseek-r1", (
        "--tensor-parallel-size 4 --attention-backend flashinfer --speculative-algorithm NGRAM "
        "--kv-cache-dtype nvfp4 --ep-size 8 --moe-runner-backend flashinfer_megamoe "
        "--context-length 8192 --enable-mixed-chunk --enable-hierarchical-cache --hicache-ratio 3 "
        "--disable-overlap-schedule --cuda-graph-max-bs-decode 160").split()),
    (154, "h100", "gpt-oss-20b", (
        "--tensor-parallel-size 2 --attention-backend triton --enable-dp-attention --dp-size 2 "
        "--mem-fraction-static 0.85 --enable-multimodal --enable-two-batch-overlap "
        "--disaggregation-mode prefill --skip-server-warmup --enable-kv-cache-sharding "
        "--enable-streaming-session").split()),
    (156, "b200", "qwen2.5-0.5b", (
        "--tp-size 4 --attention-backend flashinfer --kv-cache-dtype fp4_mx_block16 "
        "--context-length 32768 --disaggregation-decode-allocation-policy early "
        "--deepep-v2-mode direct --attention-context-parallel-size 4 --attn-cp-size 1 "
        "--language-model-only --language-only --enable-unified-memory").split()),
    (187, "mi300x", "llama-3.2-3b", (
        "--tensor-parallel-size 4 --kv-cache-dtype bf16 --moe-runner-backend deep_gemm "
        "--chunked-prefill-size 2048 --enable-lora --max-lora-rank 8 --lora-target-modules all "
        "--cuda-graph-max-bs-decode 8 --kv-events-config none "
        "--enforce-disable-flashinfer-allreduce-fusion --enable-prefill-cp").split() + [
        "--cuda-graph-config", '{"prefill": {"max_context_size": 4096}}',
        "--speculative-draft-sink-size", "16"]),
    (232, "mi300x", "qwen2.5-72b", (
        "--tp-size 2 --attention-backend torch_native --kv-cache-dtype auto "
        "--moe-runner-backend aiter --enable-mixed-chunk --language-model-only "
        "--enable-prefix-mm-cache --enable-prefill-cp").split()),
    (1065, "h200", "phi-4", (
        "--kv-cache-dtype fp8_e5m2 --chunked-prefill-size 16384 --dtype float16 "
        "--language-model-only --language-model-only --moe-a2a-backend pplx --deepep-mode normal "
        "--enable-layernorm-sp").split()),
    (1085, "gb200", "qwen3-1.7b", (
        "--tp 2 --kv-cache-dtype nvfp4 --disable-radix-cache --disaggregation-mode decode "
        "--speculative-use-block-verification --random-seed 2").split()),
    # a third draw (``--probe 7373``, as 2033) found no new class; this line keeps the parser
    # lookup ahead of the model config's quantize-and-serve check
    (2033, "rtx5090", "llama-3.1-70b", (
        "--kv-cache-dtype fp8_e5m2 --mem-fraction-static 0.7 --page-size 1 "
        "--speculative-use-block-verification --mm-enable-dp-encoder --model-config-parser none "
        "--quantize-and-serve --speculative-draft-attention-backend trtllm_mha").split()),
]
# fields the fixes for this draw write, compared in the aimed lines
FIX_FIELDS = ["load_balance_method", "enable_dp_attention_local_control_broadcast",
              "elastic_ep_initial_size"]


def values(rng: random.Random, name: str) -> list[str]:
    """A value for a drawn flag, a real level name for ``--log-level`` (see above)."""
    if name == "log_level":
        return [rng.choice(LOG_LEVELS)]
    return _value_tokens(rng, name)


def own_fields(argv: list[str], compared: list[str]) -> list[str]:
    """The fields a line's own flags set, beyond those compared in every line. The CUDA-graph
    config is compared key by key (SGLang's record also carries ``tc_compiler``, a setting
    0.5.23 keeps at eager and refuses to take, which launchplan's plan leaves out)."""
    own = wild.flag_fields(argv) - wild.NOT_COMPARED - wild.NEVER  # HARNESS: aimed lines only
    if "cuda_graph_config" in own:
        own = (own - {"cuda_graph_config"}) | {f"cuda_graph_config.{phase}.{key}"
                                              for phase, keys in GRAPH_KEYS.items()
                                              for key in keys}
    return sorted(f for f in own if f not in compared and not f.startswith("_"))


def _set_fields(case: dict) -> set[str]:
    if "args" in case:
        return set(case["args"])
    return wild.flag_fields(case.get("argv", []))


def rarity(every_suite: bool = False) -> dict[str, int]:
    """Per rule (``name`` or ``name@variant``): how many recorded cases set a trigger field
    (wild3's own cases counted only with ``every_suite``)."""
    cases = [c for path in sorted(wild.DATA.glob("*-cases.json"))
             if every_suite or "wild3" not in path.name
             for c in json.loads(path.read_text())]
    seen = [_set_fields(c) for c in cases]
    counts: dict[str, int] = {}
    for spec in get_ruleset("0.5.23").rules():
        triggers = {t for t in spec.triggers if FIELDS.get(t) and FIELDS[t].flags} - NEVER
        if triggers:
            key = spec.name if not spec.variant else f"{spec.name}@{spec.variant}"
            counts[key] = sum(1 for s in seen if s & triggers)
    return counts


def rarity_table(counts: dict[str, int]) -> dict[str, dict]:
    """Rule -> its count and the flagged fields it triggers on and reads."""
    table = {}
    for spec in get_ruleset("0.5.23").rules():
        key = spec.name if not spec.variant else f"{spec.name}@{spec.variant}"
        if key in counts:
            triggers = sorted({t for t in spec.triggers
                               if FIELDS.get(t) and FIELDS[t].flags} - NEVER)
            table[key] = {"count": counts[key], "triggers": triggers,
                          "reads": sorted(r for r in spec.reads
                                          if FIELDS.get(r) and FIELDS[r].flags
                                          and r not in NEVER)}
    return table


def frozen_rarity(new: bool) -> dict[str, dict]:
    """The frozen table (recounted, without wild3's cases, when ``new``)."""
    if new or not RARITY.exists():
        RARITY.write_text(json.dumps(rarity_table(rarity()), indent=0, sort_keys=True) + "\n")
    return json.loads(RARITY.read_text())


def leaning(rng: random.Random, table: dict[str, dict], triggers: list[str],
            reads: list[str]) -> list[str]:
    """1-6 flags: each either a rare rule's trigger (and sometimes one of its reads) or a
    flag from the whole surface, drawn as ``random_line`` of the skipping test draws them."""
    rules = sorted(table)
    weights = [1 / (1 + table[r]["count"]) for r in rules]
    for _ in range(50):
        argv: list[str] = []
        for _ in range(rng.randint(1, 6)):
            if rng.random() < 0.5:
                entry = table[rng.choices(rules, weights)[0]]
                names = [rng.choice(entry["triggers"])]
                if entry["reads"] and rng.random() < 0.5:
                    names.append(rng.choice(entry["reads"]))
                for name in names:
                    argv += [rng.choice(FIELDS[name].flags), *values(rng, name)]
            else:
                pool = rng.choices((triggers, reads, FLAGGED), weights=(4, 4, 2))[0]
                name = rng.choice(pool)
                argv += [rng.choice(FIELDS[name].flags), *values(rng, name)]
        if not wild.flag_fields(argv) & NEVER:
            return argv
    return []


def main() -> None:
    # ``--probe SEED``: the same kind of draw with another seed into probe-cases.json (lines
    # named probe/<i>, no aimed ones), to look for the next classes without touching wild3
    given = wild.options(valued=("--probe",), switches=("--new-rarity",))
    probe = given.get("--probe")
    suite = "probe" if probe else "wild3"
    rng = random.Random(int(probe) if probe else SEED)
    # a probe leans on what is rarest now, wild3's own lines counted (the table is not kept)
    table = (rarity_table(rarity(every_suite=True)) if probe
             else frozen_rarity("--new-rarity" in given))
    triggers, reads, compared = wild.pool(False)
    triggers = [t for t in triggers if t not in NEVER]
    reads = [r for r in reads if r not in NEVER]
    models = sorted(m for m in wild.bundled_models() if m not in wild.DRAFTS)
    cases = []
    for i in range(COUNT):
        platform = wild.PLATFORMS[i % len(wild.PLATFORMS)]
        model = models[rng.randrange(len(models))]
        argv = wild.base(rng, platform, model)
        if rng.random() < 0.5:
            argv += leaning(rng, table, triggers, reads)
        own = own_fields(argv, compared)
        cases.append({"name": f"{suite}/{i}", "platform": platform, "model": f"models/{model}",
                      "argv": argv, "fields": compared + own})
    aimed = {} if probe else {**{f"aimed/{name}": line for name, line in AIMED.items()},
                              **{f"found/{n}": (platform, model, argv)
                                 for n, platform, model, argv in FOUND}}
    for name, (platform, model, argv) in aimed.items():
        own = own_fields(argv, compared + FIX_FIELDS)
        cases.append({"name": f"wild3/{name}", "platform": platform,
                      "model": f"models/{model}", "argv": argv,
                      "fields": compared + FIX_FIELDS + own})
    out = wild.DATA / f"{suite}-cases.json"
    out.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print(f"{suite}: wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
