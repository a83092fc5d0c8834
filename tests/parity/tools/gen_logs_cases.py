"""Generate ``tests/parity/data/logs-cases.json``: the launch each real start-up log records
(``tests/input/data/server_logs/``), as ``launchplan resolve --from-log`` reconstructs it, for
the oracle to resolve: SGLang 0.5.23's own answer on every rule-written field the log holds,
so a difference left in a log is shown to be the log's release or environment, not a rule.

    python tests/parity/tools/gen_logs_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py logs
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LOGS = ROOT / "tests" / "input" / "data" / "server_logs"
DATA = Path(__file__).parents[1] / "data"
GRAPH = [f"cuda_graph_config.{phase}.{key}" for phase in ("decode", "prefill")
         for key in ("backend", "max_bs")]
PATH_FIELDS = ("speculative_draft_model_path",)
# Where the model's config is read from and which host devices serve it, not how the launch
# resolves: a bundled config folder holds no remote code (SGLang would import it for
# trust_remote_code), and the oracle's host has no InfiniBand devices to check.
LEFT_OUT = ("model_path", "trust_remote_code", "disaggregation_ib_device")
#: a log planned from a config under tests/parity/models (one launchplan does not bundle)
PARITY_MODELS = "tests/parity/models/"
#: the Hub configs launchplan ships, one folder per Hub id (``ORG--NAME``)
SHIPPED = ROOT / "src" / "launchplan" / "facts" / "data" / "hub"


def oracle_model(model: str) -> str:
    """The oracle's name for a log's model: a parity config folder, a shipped Hub config
    (a log planned by its Hub id) or a bundled model."""
    if model.startswith(PARITY_MODELS):
        return "parity-models/" + model[len(PARITY_MODELS):]
    if "/" in model and (SHIPPED / model.replace("/", "--")).is_dir():
        return "shipped/" + model.replace("/", "--")
    if "/" in model:  # a bundled model's Hub id (``openai/gpt-oss-120b``): that model
        from launchplan.facts.models.bundled import bundled_alias

        return f"models/{bundled_alias(model) or model}"
    return f"models/{model}"


#: target flags an entry may give (another SKU of its target: a 16 GB Blackwell card planned
#: as the RTX 5090 platform; the GPUs the log's host had), as the oracle's platform overrides
TARGET_FLAGS = {"--gpu-memory-mib": "mem_mib", "--gpu-count": "gpus"}


def environment(flags: list[str]) -> tuple[list[str], dict[str, str]]:
    """An entry's SGLang flags apart from the ``--env NAME=VALUE`` pairs among them (the log's
    environment, as ``launchplan resolve`` takes it) and its target flags."""
    rest: list[str] = []
    env: dict[str, str] = {}
    words = iter(flags)
    for word in words:
        if word == "--env":
            name, _, value = next(words).partition("=")
            env[name] = value
        elif word in TARGET_FLAGS:
            next(words)
        else:
            rest.append(word)
    return rest, env


def platform_overrides(flags: list[str]) -> dict[str, int]:
    """The oracle's overrides of the platform for an entry's target flags."""
    words = iter(flags)
    return {TARGET_FLAGS[word]: int(next(words)) for word in words if word in TARGET_FLAGS}


def _listed(value: object) -> object:
    """A logged set (SGLang prints ``lora_target_modules`` as one) as a sorted list, the
    form a flag's values take and JSON can hold."""
    return sorted(value) if isinstance(value, set | frozenset) else value


def reconstructed(entry: dict) -> tuple[dict, list[str]]:
    """The logged launch's input fields and the rule-written fields the log holds."""
    from launchplan.checks.from_log import IGNORED, written_fields
    from launchplan.commands.resolve import log_report
    from launchplan.facts.targets import get_target, with_overrides
    from launchplan.input.fields import release_table
    from launchplan.rulesets import get_ruleset

    model = entry["model"]
    flags, env = environment(entry.get("flags", []))
    argv = ["--model-path", str(ROOT / model) if (ROOT / model).is_dir() else model, *flags]
    over = platform_overrides(entry.get("flags", []))
    target = with_overrides(get_target(entry["gpu"]), memory_mib=over.get("mem_mib"),
                            gpu_count=over.get("gpus"))
    logged, report = log_report(str(LOGS / entry["file"]), argv, target, "default", env or None)
    writes = written_fields(get_ruleset("default").rules())
    table = release_table("0.5.23")
    fields = sorted(n for n in logged.values if n in writes and n in table.fields
                    and n not in IGNORED and n != "cuda_graph_config")
    args = {k: (oracle_model(v) if k in PATH_FIELDS else _listed(v))
            for k, v in report.inputs.items() if k not in LEFT_OUT}
    return args, fields + GRAPH


def main() -> None:
    entries = json.loads((LOGS / "sources.json").read_text())["logs"]
    cases = []
    for entry in entries:
        if entry.get("no_oracle"):  # a config the oracle cannot read (sources.json says why)
            continue
        args, fields = reconstructed(entry)
        case = {"name": f"logs/{entry['file'].removesuffix('.log')}",
                "platform": entry["gpu"], "model": oracle_model(entry["model"]),
                "args": args, "fields": fields}
        env = environment(entry.get("flags", []))[1]
        if env:
            case["env"] = env
        over = platform_overrides(entry.get("flags", []))
        if over:
            case["platform_overrides"] = over
        cases.append(case)
    (DATA / "logs-cases.json").write_text(
        "[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print(f"wrote {len(cases)} cases")


if __name__ == "__main__":
    main()
