"""Generate ``tests/parity/data/wild10-cases.json``: wild9's draw again, over the coupled pairs
no recorded case (wild9 included) set together, leaning on the paths the earlier draws reached
least.

    PYTHONPATH=src:. python tests/parity/tools/gen_wild10_cases.py [--probe SEED] [--pairs]
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py wild10 --jobs 1 --timeout 120

The pairs, the values, the models and the launches are ``gen_wild9_cases``'s (imported, not
copied). What differs is where the draw leans: six lines in ten aim at a pair on a focus path
(a rule consulting an AMD or Blackwell fact, a rule of an older release's rule set, or a pair
naming speculative decoding, attention backends, page size, PD disaggregation, DP attention,
hybrid or linear attention, LoRA or piecewise CUDA graphs), and half the lines move to an AMD
or Blackwell target (MI300X, MI355X, B200, GB200, B300, RTX 5090) when the rule admits it.
Pairs naming ``--dllm-algorithm`` are left out: the oracle's stubs cannot import the diffusion
LLM modules, so such lines are never answered.
"""

from __future__ import annotations

import itertools
import random
import sys

from tests.parity.tools import gen_wild5_cases as wild5
from tests.parity.tools import gen_wild7_cases as wild7
from tests.parity.tools import gen_wild8_cases as wild8
from tests.parity.tools import gen_wild9_cases as wild9

from launchplan.engine.registry import RuleSpec
from launchplan.input.fields import release_table

SEED = 10100
COUNT = 240
#: fields whose lines the oracle cannot answer (diffusion LLMs' modules are not importable)
UNANSWERED = frozenset({"dllm_algorithm"})
#: targets the earlier draws reached least, and the size classes each serves
FOCUS_TARGETS = {"mi300x": ("big", "mid", "small"), "mi355x": ("big", "mid", "small"),
                 "b200": ("big", "mid", "small"), "gb200": ("big", "mid", "small"),
                 "b300": ("big", "mid", "small"), "rtx5090": ("small",)}
FOCUS_FACTS = frozenset({"target.is_hip", "target.is_gfx95", "target.gfx", "target.is_sm100",
                         "target.is_blackwell", "target.is_sm120"})
#: lines aimed at the classes the probes found (``wild10/found/<name>``): platform, model, argv.
#: The probes' one class was a refusal launchplan made from the right rule in a wording the
#: harness had not mapped: ``--mamba-radix-cache-strategy extra_buffer_lazy`` on a model
#: without Mamba state (only the eager extra buffer's wording was mapped).
FOUND: dict[str, tuple[str, str, list[str]]] = {
    "lazy-buffer-moe-rocm": ("mi355x", "models/mixtral-8x7b", [
        "--tp", "4", "--mamba-radix-cache-strategy", "extra_buffer_lazy"]),
    "lazy-buffer-dense-ngram": ("b200", "models/qwen3-14b", [
        "--speculative-algorithm", "NGRAM", "--mamba-radix-cache-strategy",
        "extra_buffer_lazy"]),
    "lazy-buffer-mla": ("gb200", "models/deepseek-v2-lite", [
        "--mamba-radix-cache-strategy", "extra_buffer_lazy", "--page-size", "64"]),
    "lazy-buffer-swa": ("rtx5090", "parity-models/gemma-3-4b-it", [
        "--mamba-radix-cache-strategy", "extra_buffer_lazy"]),
    "eager-buffer-mi300x": ("mi300x", "models/qwen2.5-3b", [
        "--mamba-radix-cache-strategy", "extra_buffer"]),
    "lazy-buffer-hybrid": ("h200", "parity-models/qwen3-next-synth", [
        "--tp", "4", "--mamba-radix-cache-strategy", "extra_buffer_lazy"]),
    # a second probe (seed 10606): Nemotron-H with a plain ModelOpt method, or the mixed one,
    # on a config.json with no quantization_config (SGLang stops at the attribute or key it
    # indexes); a named method needs neither
    "nemotron-plain-modelopt-rtx5090": ("rtx5090", "parity-models/nemotron-h-synth", [
        "--trust-remote-code", "--quantization", "modelopt"]),
    "nemotron-plain-modelopt-eplb-b200": ("b200", "parity-models/nemotron-h-synth", [
        "--trust-remote-code", "--quantization", "modelopt", "--tp", "2", "--enable-eplb"]),
    "nemotron-mixed-no-config-h100": ("h100", "parity-models/nemotron-h-synth", [
        "--trust-remote-code", "--quantization", "modelopt_mixed"]),
    "nemotron-named-fp8-h100": ("h100", "parity-models/nemotron-h-synth", [
        "--trust-remote-code", "--quantization", "modelopt_fp8"]),
    # a 0.5.21 probe (seed 21010): NGRAM's steps are the draft tokens over the BFS breadth,
    # so a breadth of 0 stops SGLang unless the steps are given
    "ngram-breadth-zero": ("h100", "models/llama-3.1-8b", [
        "--speculative-algorithm", "NGRAM", "--speculative-ngram-max-bfs-breadth", "0"]),
    "ngram-breadth-zero-steps-given": ("b200", "models/qwen3-14b", [
        "--speculative-algorithm", "NGRAM", "--speculative-ngram-max-bfs-breadth", "0",
        "--speculative-num-steps", "3"]),
    # a wild8 probe on 0.5.21 (seed 21808): Qwen3-VL on a large Hopper keeps decode in graphs
    # up to a running limit of at most 512 (not above it, not when the user sized the graph)
    "qwen3-vl-running-400-h100": ("h100", "parity-models/qwen3-vl-8b-synth", [
        "--max-running-requests", "400"]),
    "qwen3-vl-running-300-h200-tp2": ("h200", "parity-models/qwen3-vl-8b-synth", [
        "--tp", "2", "--max-running-requests", "300", "--speculative-algorithm", "NGRAM"]),
    "qwen3-vl-running-600-h100": ("h100", "parity-models/qwen3-vl-8b-synth", [
        "--max-running-requests", "600"]),
    "qwen3-vl-running-400-sized-h100": ("h100", "parity-models/qwen3-vl-8b-synth", [
        "--max-running-requests", "400", "--cuda-graph-max-bs-decode", "128"]),
    "qwen3-vl-running-400-a100": ("a100", "parity-models/qwen3-vl-8b-synth", [
        "--max-running-requests", "400"]),
    # a wild10 probe on 0.5.21 (seed 21777): 0.5.21 registered no GLM-MoE-DSA (or MiMo-V2)
    # for DeepEP v2, and counted plain data-parallel replicas in its CP-group check
    "deepep-v2-glm5-b200": ("b200", "shipped/zai-org--GLM-5.1-FP8", [
        "--tp", "8", "--moe-a2a-backend", "deepep_v2"]),
    "deepep-v2-glm5-join-b200": ("b200", "shipped/zai-org--GLM-5.1-FP8", [
        "--tp", "8", "--moe-a2a-backend", "deepep_v2", "--elastic-ep-join-mode", "recover"]),
    "cp-plain-dp-kimi-b300": ("b300", "models/kimi-k2", [
        "--tp", "8", "--dp-size", "4", "--attn-cp-size", "4"]),
    "cp-plain-dp-fits-h100": ("h100", "models/qwen3-30b-a3b", [
        "--tp", "8", "--dp-size", "2", "--attn-cp-size", "4"]),
    "cp-dp-attention-h100": ("h100", "models/deepseek-v3", [
        "--tp", "8", "--enable-dp-attention", "--dp-size", "4", "--attn-cp-size", "4"]),
}
FOCUS_WORDS = ("speculative", "attention_backend", "page_size", "disaggregation", "dp_attention",
               "dp_size", "mamba", "linear_attn", "swa", "hybrid", "lora", "piecewise")


def never_co_set() -> dict[tuple[str, str], tuple[RuleSpec, ...]]:
    """The coupled pairs no recorded case (wild9's included) set together."""
    seen = wild9.recorded_pairs(skip=("wild10", "probe"))
    return {pair: specs for pair, specs in wild9.coupled().items() if pair not in seen}


def focus(pair: tuple[str, str], specs: tuple[RuleSpec, ...]) -> bool:
    """Whether a pair lies on a path the earlier draws reached least."""
    return (any(w in f for f in pair for w in FOCUS_WORDS)
            or any(s.variant is not None or FOCUS_FACTS & set(s.facts) for s in specs))


def pick(rng: random.Random, spec: RuleSpec) -> tuple[str, str] | None:
    """wild9's model and target, moved half the time to an AMD or Blackwell target the rule
    admits for that model."""
    where = wild9.pick(rng, spec)
    if where is None or rng.random() < 0.5:
        return where
    model, _ = where
    size = wild8.models()[model].size
    moved = [t for t, sizes in sorted(FOCUS_TARGETS.items())
             if size in sizes and spec.admits(wild9._target(t), wild9._facts(model))]
    return (model, rng.choice(moved)) if moved else where


def cases(seed: int, suite: str) -> list[dict]:
    rng = random.Random(seed)
    compared = wild8.every_field() if "--every-field" in sys.argv else wild8.written()
    flags = release_table("0.5.23").flag_to_field
    open_pairs = {pair: specs for pair, specs in never_co_set().items()
                  if not (set(pair) & (wild9.UNDRAWN | UNANSWERED))}
    out: list[dict] = []
    count = COUNT if suite != "probe" else 300
    tries = 0
    while len(out) < count and open_pairs and tries < count * 20:
        tries += 1
        leaning = sorted(p for p, s in open_pairs.items() if focus(p, s))
        pair = rng.choice(leaning if leaning and rng.random() < 0.6 else sorted(open_pairs))
        spec = rng.choice(open_pairs[pair])
        where = pick(rng, spec)
        if where is None:
            continue
        model, platform = where
        drawn = wild9.line(rng, pair, spec, model, platform)
        if drawn is None or not wild9._parses(drawn[0]) or wild7._graph_too_big(drawn[0]):
            continue
        argv, env = drawn
        if any(flags.get(t.partition("=")[0]) in UNANSWERED for t in argv):
            continue
        case = wild7._case(f"{suite}/{len(out)}", platform, model, argv, env, compared)
        for covered in itertools.combinations(sorted(wild9._case_fields(case, flags)), 2):
            open_pairs.pop(covered, None)
        out.append(case)
    if suite == "wild10":
        out += [wild7._case(f"wild10/found/{name}", platform, model, argv, {}, compared)
                for name, (platform, model, argv) in FOUND.items()]
    return out


def main() -> None:
    wild5.wild.options(valued=("--probe",), switches=("--every-field", "--pairs"))
    if wild9.report(never_co_set(), wild9.UNDRAWN | UNANSWERED):
        wild5.write_draw("wild10", SEED, cases)


if __name__ == "__main__":
    main()
