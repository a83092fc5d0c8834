"""SGLang's own benchmarks that start the server's engine from the server's flags.

``python -m sglang.bench_one_batch``, ``sglang.bench_offline_throughput`` and
``sglang.bench_one_batch_server`` (``sglang.benchmark.one_batch``, ``.offline_throughput``
and ``.one_batch_server`` from 2026 on) each build one argparse parser from SGLang's server
arguments plus their own benchmark options, then resolve the server arguments as a launch
does and start that engine (in-process, or as a server of their own). A pasted benchmark
command is therefore read as the launch its server flags make, its own options left out.
``bench_one_batch_server --base-url URL`` starts nothing: it measures a server already
running at URL. ``bench_serving`` is a client only and never a launch.
"""

from __future__ import annotations

from collections.abc import Sequence

#: How a benchmark option reads what follows it: ``"switch"`` nothing (``"bool"``: a
#: True/False word, as some releases typed a switch), ``"value"`` one word, ``"values"``
#: every word up to the next option (argparse's ``nargs='+'`` or ``'*'``).
Kind = str

#: ``bench_one_batch``'s own options over the releases (0.5.23's BenchArgs, and the older
#: ``--result-csv-filename``, ``--profile-filename-prefix``, ``--run-*-profiling`` and
#: ``--max-decode-token-length``).
ONE_BATCH_OPTIONS: dict[str, Kind] = {
    "--run-name": "value", "--batch-size": "values", "--input-len": "values",
    "--output-len": "values", "--prompt-filename": "value", "--result-filename": "value",
    "--result-csv-filename": "value", "--correctness-test": "switch", "--cut-len": "value",
    "--log-decode-step": "value", "--profile": "switch", "--profile-record-shapes": "switch",
    "--profile-activities": "values", "--profile-stage": "value", "--profile-prefix": "value",
    "--profile-filename-prefix": "value", "--profile-start-step": "value",
    "--profile-steps": "value", "--run-prefill-profiling": "switch",
    "--run-decode-profiling": "switch", "--max-decode-token-length": "value",
}

#: ``bench_offline_throughput``'s own options over the releases (the ``--gen-*`` names of
#: the generated-shared-prefix dataset were renamed ``--gsp-*``; ``--disable-ignore-eos``
#: once took a True/False value).
OFFLINE_THROUGHPUT_OPTIONS: dict[str, Kind] = {
    "--backend": "value", "--result-filename": "value", "--dataset-name": "value",
    "--dataset-path": "value", "--num-prompts": "value", "--sharegpt-output-len": "value",
    "--sharegpt-context-len": "value", "--random-input-len": "value",
    "--random-output-len": "value", "--random-range-ratio": "value",
    "--gsp-num-groups": "value", "--gsp-prompts-per-group": "value",
    "--gsp-system-prompt-len": "value", "--gsp-question-len": "value",
    "--gsp-output-len": "value", "--gen-num-groups": "value",
    "--gen-prompts-per-group": "value", "--gen-system-prompt-len": "value",
    "--gen-question-len": "value", "--seed": "value", "--disable-ignore-eos": "bool",
    "--extra-request-body": "value", "--apply-chat-template": "switch", "--profile": "switch",
    "--profile-activities": "values", "--profile-steps": "value", "--skip-warmup": "switch",
    "--do-not-exit": "switch", "--prompt-suffix": "value", "--return-logprob": "switch",
    "--logprob-start-len": "value",
}

#: ``bench_one_batch_server``'s own options (0.5.23's BenchArgs).
ONE_BATCH_SERVER_OPTIONS: dict[str, Kind] = {
    "--run-name": "value", "--batch-size": "values", "--input-len": "values",
    "--output-len": "values", "--temperature": "value", "--disable-ignore-eos": "switch",
    "--return-logprob": "switch", "--client-stream-interval": "value",
    "--input-len-step-percentage": "value", "--input-len-list": "value",
    "--base-url": "value", "--local-tokenizer-path": "value", "--skip-warmup": "switch",
    "--skip-token-capacity-check": "switch", "--show-report": "switch", "--profile": "switch",
    "--profile-activities": "values", "--profile-start-step": "value",
    "--profile-steps": "value", "--profile-by-stage": "switch", "--profile-prefix": "value",
    "--profile-output-dir": "value", "--dataset-path": "value", "--dataset-name": "value",
    "--fixed-prompt-file": "value", "--apply-chat-template": "switch",
    "--gsp-num-groups": "value", "--gsp-system-prompt-len": "value",
    "--gsp-question-len": "value", "--gsp-output-len": "value", "--parallel-batch": "switch",
    "--result-filename": "value", "--pydantic-result-filename": "value",
    "--no-append-to-github-summary": "switch", "--seed": "value", "--cache-hit-rate": "value",
    "--backend": "value", "--fake-prefill": "switch", "--flush-hicache-storage": "switch",
    "--server-args-for-metrics": "values", "--lora-name": "values",
    "--lora-request-distribution": "value", "--lora-zipf-alpha": "value",
    "--enable-multi-batch": "switch",
}

#: Each benchmark module (both spellings) and its own options.
MODULES: dict[str, dict[str, Kind]] = {
    "sglang.bench_one_batch": ONE_BATCH_OPTIONS,
    "sglang.benchmark.one_batch": ONE_BATCH_OPTIONS,
    "sglang.bench_offline_throughput": OFFLINE_THROUGHPUT_OPTIONS,
    "sglang.benchmark.offline_throughput": OFFLINE_THROUGHPUT_OPTIONS,
    "sglang.bench_one_batch_server": ONE_BATCH_SERVER_OPTIONS,
    "sglang.benchmark.one_batch_server": ONE_BATCH_SERVER_OPTIONS,
}

#: The modules that can measure a running server instead of starting one (``--base-url``).
_CONNECTING = frozenset({"sglang.bench_one_batch_server", "sglang.benchmark.one_batch_server"})
#: Words that end a command in a shell text's word list.
_COMMAND_ENDS = frozenset({";", "&&", "||", "|", "&"})
_BOOLEANS = frozenset({"true", "false", "1", "0"})


def starts_engine(module: str, after: Sequence[str]) -> bool:
    """Whether ``python -m module`` with the words ``after`` it (up to the command's end)
    starts SGLang's engine: a benchmark of ``MODULES``, not one given a server to measure."""
    if module not in MODULES:
        return False
    if module not in _CONNECTING:
        return True
    for word in after:
        if word in _COMMAND_ENDS:
            break
        if word == "--base-url" or word.startswith("--base-url="):
            return False
    return True


def _own_option(module: str, word: str, options: dict[str, Kind],
                lenient: bool = False) -> str | None:
    """The benchmark option ``word`` names, or None for a server flag. argparse takes an
    unambiguous prefix of any option of the benchmark's one parser (``--num 10``); a prefix
    of several (``--batch``: ``--batch-size`` and the server's ``--batch-notify-size``)
    stops the benchmark before it starts. ``lenient``: a command a log shows ran, under a
    release whose parser found the prefix unambiguous: the benchmark's option it names."""
    name = word.split("=", 1)[0]
    if name in options:
        return name
    from launchplan.input.cli import ALL_FLAGS

    if len(name) <= 3 or name in ALL_FLAGS:
        return None
    own = [o for o in options if o.startswith(name)]
    if not own:
        return None
    server = [flag for flag in ALL_FLAGS if flag.startswith(name)]
    if len(own) + len(server) > 1 and not lenient:
        from launchplan.errors import InputError

        shown = ", ".join([*own, *server][:4])
        raise InputError(name, "", message=(
            f"{name}: expected one option of python -m {module} (its own options and the "
            f"server's flags), got a prefix of several ({shown}), which argparse refuses as "
            "ambiguous before the benchmark starts: spell the option out"))
    return own[0]


def server_words(module: str, words: Sequence[str], *, lenient: bool = False
                 ) -> tuple[list[str], list[str]]:
    """(the server's flags, the benchmark's own options as given) of the words after
    ``python -m module``: each own option is left out with the words it reads
    (``lenient``: as ``_own_option``)."""
    options = MODULES[module]
    kept: list[str] = []
    dropped: list[str] = []
    at = 0
    while at < len(words):
        word = words[at]
        at += 1
        name = _own_option(module, word, options, lenient) if word.startswith("--") else None
        if name is None:
            kept.append(word)
            continue
        dropped.append(word)
        if "=" in word:
            continue
        from launchplan.input.cli import reads_as_value

        kind = options[name]
        if kind == "value" and at < len(words) and reads_as_value(words[at]):
            dropped.append(words[at])
            at += 1
        elif kind == "values":
            while at < len(words) and reads_as_value(words[at]):
                dropped.append(words[at])
                at += 1
        elif kind == "bool" and at < len(words) and words[at].lower() in _BOOLEANS:
            dropped.append(words[at])
            at += 1
    return kept, dropped


def note(module: str, dropped: Sequence[str]) -> str:
    """What a reader should know about a benchmark command read as a launch."""
    shown = " ".join(dropped[:6]) + (" …" if len(dropped) > 6 else "")
    own = f" ({shown})" if shown else ""
    how = ("launches a server" if module in _CONNECTING
           else "starts the same engine in its own process")
    return (f"python -m {module} is SGLang's benchmark: it {how} from the server flags it "
            f"is given, which are planned; its own options{own} are left out")
