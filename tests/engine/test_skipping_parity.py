"""The fast path and the plain path agree, on the recorded cases and random lines.

A rule's ``triggers`` say it has nothing to decide while none of those fields is set (given
or declared), ``archs`` and ``applies`` that it decides nothing for other architectures,
targets and models; the engine holds every rule to them. The fast path decides them once
per target, model and input shape (``engine.pipeline.PLANS``), the plain path afresh for
every rule. Every recorded parity case, and a few thousand random command lines drawn
from the field table (valid choices, small numbers, booleans; biased towards the fields
rules read, with some SGLang environment variables and synthetic architectures), is
resolved with ``skip=True`` and ``skip=False``; the refusal (source and message) or the
resolved values, declarations and warnings must be identical.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from launchplan.engine.pipeline import run
from launchplan.errors import InputError, LaunchplanError, Refusal
from launchplan.facts.models import bundled_models
from launchplan.facts.targets import CATALOG, get_target, with_overrides
from launchplan.input.fields import FIELDS
from launchplan.planner import build_raw, build_record
from launchplan.rulesets import get_ruleset
from tests.parity.oracle_cases import SUITES, _local, load

COMPATS = ("0.5.23", "default")
RANDOM_LINES = 3000
MODELS_DIR = Path(__file__).parents[2] / "src/launchplan/facts/data/models"


def outcome(record: Any, compat: str, skip: bool) -> tuple:
    """Everything a resolution shows: the refusal or the plan, with the chain behind it."""
    try:
        result = run(record, get_ruleset(compat).rules(), skip=skip)
    except Refusal as refusal:
        return ("refused", refusal.source, refusal.message,
                [(d.source, d.fields, d.note) for d in refusal.result.declarations],
                list(refusal.result.warnings))
    except LaunchplanError as exc:  # a rule crash must at least crash the same way
        return ("error", type(exc).__name__, str(exc))
    return ("ok", result.resolved(), [(d.source, d.fields, d.note) for d in result.declarations],
            list(result.warnings))


def assert_same(record: Any, compat: str, what: Any) -> None:
    fast, full = outcome(record, compat, True), outcome(record, compat, False)
    if fast != full:
        raise AssertionError(f"{what}: skipping changed the outcome\n"
                             f"skip=True : {_short(fast)}\nskip=False: {_short(full)}")


def _short(out: tuple) -> str:
    if out[0] != "ok":
        return repr(out[:3])
    return repr(("ok", [d[:2] for d in out[2]], out[3]))


# --- the recorded parity cases ----------------------------------------------------------------


def _case_record(case: Any, compat: str) -> Any:
    spec = case.spec
    target = get_target(spec["platform"])
    over = spec.get("platform_overrides") or {}
    target = with_overrides(target, memory_mib=over.get("mem_mib"),
                            cuda_version=over.get("cuda"), gpu_count=over.get("gpus"))
    argv = [_local(a) for a in spec.get("argv", [])]
    fields = {k: _local(v) for k, v in spec["args"].items()} if "args" in spec else None
    raw = build_raw(argv, fields, _local(spec["model"]))
    return build_record(raw, target, compat=compat, env=spec.get("env"))


@pytest.mark.parametrize("compat", COMPATS)
@pytest.mark.parametrize("suite", sorted(SUITES))
def test_parity_cases_resolve_the_same_when_skipping(suite, compat):
    cases = load(suite, compat)
    if not cases:
        pytest.skip(f"no recorded {suite} cases")
    for case in cases:
        try:
            record = _case_record(case, compat)
        except InputError:
            continue  # bad input never reaches the rules
        assert_same(record, compat, f"{compat}:{case.name}")


# --- random command lines ---------------------------------------------------------------------

# Values for free-text fields the rules look at; anything else gets a generic word.
TEXT_VALUES: dict[str, tuple[str, ...]] = {
    "speculative_algorithm": ("EAGLE", "eagle", "EAGLE3", "NEXTN", "NGRAM", "DFLASH", "DSPARK",
                              "UNO", "FROZEN_KV_MTP", "STANDALONE", "MEDUSA"),
    "speculative_draft_model_path": ("llama-3.1-8b-eagle", "llama-3.1-8b-eagle3",
                                     "llama-3.1-8b"),
    "device": ("cuda", "cpu", "xpu", "npu", "hpu"),
    "speculative_draft_attention_backend": ("flashinfer", "fa3", "fa4", "triton", "trtllm_mha",
                                            "flashmla"),
    "uno_lora_path": ("/adapters/uno",),
    "dllm_algorithm": ("LowConfidence",),
    "radix_cache_backend": ("other",),
    "debug_tensor_dump_output_folder": ("/tmp/dump",),
    "served_model_name": ("served", "a:b", "s3://bucket/model"),
    "speculative_adaptive_config": ("/nonexistent/adaptive.json",),
    "speculative_ngram_external_corpus_path": ("/corpus.txt",),
}
JSON_VALUES: dict[str, tuple[str, ...]] = {
    "radix_eviction_policy_config": ('{"threshold": 2, "next_prompt_estimate": 1}',
                                     '{"threshold": 1, "next_prompt_estimate": 1}'),
    "cuda_graph_config": ('{"decode": {"backend": "full"}}',
                          '{"prefill": {"backend": "disabled"}}',
                          '{"prefill": {"max_context_size": 4096}}'),
}
INTS = ("0", "1", "2", "3", "4", "8", "16", "64", "-1", "4096")
FLOATS = ("0.3", "0.5", "0.8", "1.0", "1.5", "-0.5", "0")
ENV = (("SGLANG_RUST_SERVER", ("1",)), ("SGLANG_USE_AITER", ("1",)),
       ("SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION", ("1",)),
       ("SGLANG_RAGGED_VERIFY_MODE", ("static", "dynamic")),
       ("SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16", ("1",)),
       ("SGLANG_SIMULATE_ACC_LEN", ("2.5", "x")),
       ("SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS", ("8",)),
       ("SGLANG_AITER_KV_CACHE_LAYOUT", ("1",)), ("SGLANG_HACK_FLASHMLA_BACKEND", ("1",)))
FLAGGED = sorted(name for name, spec in FIELDS.items() if spec.flags and name != "model_path")


def _rule_fields() -> tuple[list[str], list[str]]:
    """Fields some rule promises to trigger on, and fields some rule reads (with a flag)."""
    triggers: set[str] = set()
    reads: set[str] = set()
    for compat in COMPATS:
        for spec in get_ruleset(compat).rules():
            triggers.update(spec.triggers)
            reads.update(spec.reads)
    keep = set(FLAGGED)
    return sorted(triggers & keep), sorted(reads & keep)


def _value_tokens(rng: random.Random, name: str) -> list[str]:
    spec = FIELDS[name]
    if spec.nargs == 0:
        return []
    if spec.choices:
        choices = [c for c in spec.choices if c is not None]
        return [str(rng.choice(choices))] if choices else []
    if name in TEXT_VALUES:
        return [rng.choice(TEXT_VALUES[name])]
    if name in JSON_VALUES:
        return [rng.choice(JSON_VALUES[name])]
    parse = spec.parse or ""
    if parse in ("int", "human_readable_int"):
        one = lambda: rng.choice(INTS)  # noqa: E731
    elif parse == "float":
        one = lambda: rng.choice(FLOATS)  # noqa: E731
    elif parse in ("loads", "json_list_type"):
        return [rng.choice(("{}", "[]", "[1, 2]"))]
    else:
        one = lambda: rng.choice(("auto", "x", "none", "1"))  # noqa: E731
    if spec.nargs in ("+", "*"):
        return [one() for _ in range(rng.randint(1, 2))]
    return [one()]


def random_line(rng: random.Random, triggers: list[str], reads: list[str]) -> list[str]:
    argv: list[str] = []
    for _ in range(rng.randint(1, 6)):
        pool = rng.choices((triggers, reads, FLAGGED), weights=(4, 4, 2))[0]
        name = rng.choice(pool)
        argv.append(rng.choice(FIELDS[name].flags))
        argv.extend(_value_tokens(rng, name))
    return argv


# Architectures whose rules look at facts beyond the bundled models: a bundled config with its
# architecture replaced (MLA-shaped ones start from DeepSeek-V3).
SYNTHETIC_ARCHS = {
    "DeepseekV32ForCausalLM": "deepseek-v3", "GlmMoeDsaForCausalLM": "deepseek-v3",
    "Glm4MoeLiteForCausalLM": "deepseek-v3", "MistralLarge3ForCausalLM": "deepseek-v3",
    "Glm5NextForConditionalGeneration": "deepseek-v3", "KimiK3ForConditionalGeneration":
    "deepseek-v3", "DeepseekV4ForCausalLM": "deepseek-v3",
    "MiMoV2ForCausalLM": "llama-3.1-8b", "IQuestQ1ForCausalLM": "llama-3.1-8b",
    "InklingForConditionalGeneration": "llama-3.1-8b", "Grok1ForCausalLM": "llama-3.1-8b",
    "HrmTextForCausalLM": "llama-3.1-8b", "MuseSparkForConditionalGeneration": "llama-3.1-8b",
    "Qwen3ForCausalLM": "qwen3-8b", "Glm4MoeForCausalLM": "qwen3-30b-a3b",
}


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> list[str]:
    names = sorted(n for n in bundled_models() if not n.endswith(("-eagle", "-eagle3")))
    folder = tmp_path_factory.mktemp("archs")
    for arch, base in SYNTHETIC_ARCHS.items():
        config = json.loads((MODELS_DIR / base / "config.json").read_text())
        config["architectures"] = [arch]
        (folder / arch).mkdir()
        (folder / arch / "config.json").write_text(json.dumps(config))
        names.append(str(folder / arch))
    return names


def test_random_command_lines_resolve_the_same_when_skipping(models):
    rng = random.Random(20261129)
    triggers, reads = _rule_fields()
    gpus = sorted(CATALOG)
    resolved = 0
    for i in range(RANDOM_LINES):
        argv = random_line(rng, triggers, reads)
        model = rng.choice(models)
        gpu = rng.choice(gpus)
        compat = COMPATS[i % 2]
        env = dict((name, rng.choice(values)) for name, values in
                   rng.sample(ENV, rng.randint(1, 2))) if rng.random() < 0.2 else None
        try:
            record = build_record(build_raw(argv, None, model), gpu, compat=compat, env=env)
        except InputError:
            continue
        resolved += 1
        assert_same(record, compat, (gpu, model, argv, env))
    assert resolved > RANDOM_LINES // 2  # the generator mostly makes valid lines


def test_rules_promise_triggers():
    """The guard above has something to guard: rules do make trigger promises."""
    assert sum(1 for r in get_ruleset("default").rules() if r.triggers) >= 5
