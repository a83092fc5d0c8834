"""``launchplan resolve``: the plan SGLang would run with, and why."""

from __future__ import annotations

import re
import sys
from typing import Any

from launchplan.checks.preflight import VERDICT_TEXT
from launchplan.commands.options import noting_launch, split_argv
from launchplan.commands.output import print_memory, print_plan, print_preflight, to_json
from launchplan.commands.targets_arg import target_from
from launchplan.errors import InputError, Refusal
from launchplan.memory.plan import DEFAULT_REQUEST_TOKENS, memory_plan

HELP = """usage: launchplan resolve --gpu TARGET --model-path MODEL [SGLang flags] [options]

options:
  --gpu NAME             GPU target (`launchplan targets`) or auto
  --gpu-memory-mib N, --gpu-capability X.Y, --gpu-count N, --cuda-version X.Y
                         plan for another SKU of the target
  --host-ib-devices NAME,NAME... | none
                         the host's InfiniBand devices, checked against the RDMA devices a
                         Mooncake launch names (default: taken as present; --gpu auto reads
                         this host's /sys/class/infiniband)
  --host-imex-channel    the host mounts an IMEX channel (GB200/GB300 MNNVL compute
                         domain): SGLang then sends a multi-node multimodal model's features
                         over CUDA VMM (default: assumed absent; --gpu auto looks)
  --before-load-mib N    MiB free per GPU before the weights load (memory plan)
  --load-overhead-mib N  MiB per GPU loading spends beyond the tensors (default 128)
  --assume-request-tokens N
                         one request's tokens for the concurrency figure (default 2560)
  --compat default|0.5.23|0.5.22|0.5.21
                         rule set: an SGLang release exactly (its flags too), or
                         default (0.5.23 plus the later FA4 fix)
  --format table|json
  --env KEY=VALUE        an SGLang environment variable the plan assumes (repeatable)
  --all                  list every field, untouched defaults included
  --strict               exit 3 instead of overriding explicit input, and when preflight
                         says the launch fails at start-up or at run time
  --from-log FILE        read the server_args=ServerArgs(...) line SGLang logged at start-up
                         (server_args={...} from 0.5.21), plan that launch and list where
                         the plan differs from the log
                         (SGLang flags given here, --model-path among them, win)
  -                      read the pasted launch (a command, script, manifest, page or issue)
                         from standard input, for a text longer than one argument holds
  --launch N             a pasted text with several launch commands (a prefill and a decode
                         server, one per node): plan the Nth, from 1 (default: the first)
  --emit sglang          print one `python -m sglang.launch_server ...` line pinning the plan
  --emit yaml            print a YAML file for SGLang's --config pinning the plan (its first
                         line is the launch command, with any switch a file cannot hold)

Every SGLang flag of the chosen release (0.5.23 by default) is accepted, as SGLang parses
it, including --config FILE.yaml.
--help=GROUP, --help=FLAG or --help=WORD narrows this help.
"""

ALLOWED = frozenset({"--gpu", "--launch", "--gpu-memory-mib", "--gpu-capability", "--gpu-count",
                     "--host-ib-devices", "--host-imex-channel",
                     "--cuda-version", "--compat", "--format", "--env", "--strict", "--emit",
                     "--before-load-mib", "--load-overhead-mib", "--assume-request-tokens",
                     "--all", "--from-log"})


def parse_env(pairs: list[str] | None) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs or []:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise InputError("--env", "KEY=VALUE", pair)
        env[key] = value
    return env


def main(argv: list[str]) -> int:
    from launchplan.commands.help import grouped, help_request, topic

    asked = help_request(argv)
    if asked is not None:
        sys.stdout.write(topic(asked) if asked else HELP + "\n" + grouped())
        return 0
    split = split_argv(argv, ALLOWED)
    with noting_launch(split):
        return _resolved(argv, split)


def _resolved(argv: list[str], split: Any) -> int:
    """``main`` past the options: the plan of ``split``'s launch, printed."""
    from launchplan.engine.pipeline import run
    from launchplan.planner import build_raw, build_record, overlay
    from launchplan.rulesets import get_ruleset

    opts = split.options
    fmt = opts.get("format") or "table"
    if fmt == "csv":
        raise InputError("--format", "table, json or markdown for resolve", fmt)
    fmt = "markdown" if fmt == "md" else fmt
    logged = read_logged(opts)
    compat = opts.get("compat") or "default"
    target = target_from(opts, argv)
    env = parse_env(opts.get("env"))
    strict = bool(opts.get("strict"))
    rules = get_ruleset(compat).rules()
    request_tokens = opts.get("request_tokens") or DEFAULT_REQUEST_TOKENS
    if request_tokens <= 0:
        raise InputError("--assume-request-tokens", "a positive number of tokens",
                         request_tokens)

    if logged is not None:
        return from_log(opts["from_log"], split.sglang_argv, target, compat, env, fmt, logged)
    parsed = build_raw(split.sglang_argv, compat=compat, env=env)

    def resolve_with(extra: dict, *, trace: bool = strict):
        raw = overlay(parsed, extra)
        return run(build_record(raw, target, compat=compat, env=env), rules, trace=trace)

    def quick(extra: dict):
        return resolve_with(extra, trace=False)

    from launchplan.checks.preflight import preflight, refused, with_fixes
    try:
        result = resolve_with({})
    except Refusal as refusal:
        report = with_fixes(refused(refusal.source, refusal.message, refusal.requirement,
                                    refusal.result), refusal.result, quick)
        if fmt == "json":
            data = refusal.result.to_dict() if refusal.result is not None else {}
            data["preflight"] = report.to_dict()
            if split.notes:  # how the pasted text was read (which of its launches)
                data["warnings"] = [*data.get("warnings", []), *split.notes]
            sys.stdout.write(to_json(data) + "\n")
        elif opts.get("emit") is None:
            print_preflight(report)
        raise
    report = with_fixes(preflight(result), result, quick)
    if strict and (result.overrides() or not report.starts):
        return refuse_strict(result, report, resolve_with, fmt)
    from launchplan.checks.idempotence import reapplied

    result.warnings.extend(reapplied(result))
    result.warnings.extend(split.notes)
    if opts.get("emit") in ("sglang", "yaml"):
        if not report.starts:
            sys.stderr.write(f"launchplan: note: preflight: {VERDICT_TEXT[report.verdict]}; "
                             "`launchplan resolve` without --emit says why\n")
        return emit_pinned(result, target, env, opts["emit"])
    if fmt == "json":
        from launchplan.checks.effective import config_hash

        data = result.to_dict()
        data["config_hash"] = config_hash(result)
        data["preflight"] = report.to_dict()
        memory = memory_plan(result, request_tokens=request_tokens)
        data["memory"] = memory.to_dict() if memory is not None else None
        sys.stdout.write(to_json(data) + "\n")
    elif fmt == "markdown":
        from launchplan.commands.markdown import print_markdown

        print_markdown(result, report, memory_plan(result, request_tokens=request_tokens))
    else:
        print_preflight(report)
        print_plan(result, show_all=bool(opts.get("all")))
        print_memory(memory_plan(result, request_tokens=request_tokens), result)
    return 0


def refuse_strict(result, report, resolve_with, fmt: str) -> int:
    """--strict: every override of explicit input, with a flag change that avoids it, and every
    preflight problem that stops the launch; exit 3."""
    from launchplan.checks.alternatives import as_flags, keeping_changes

    entries = []
    for o in result.overrides():
        changes = keeping_changes(result, o["field"], o["input"], resolve_with)
        entries.append({**o, "avoid_with": [as_flags(c) for c in changes]})
    blocking = [p for p in report.problems if p.decides]
    if fmt == "json":
        data = result.to_dict()
        data["preflight"] = report.to_dict()
        reasons = []
        if entries:
            reasons.append(f"{len(entries)} explicit value(s) would be overridden")
        if blocking:
            reasons.append(f"preflight: {VERDICT_TEXT[report.verdict]}")
        data["error"] = {"source": "--strict", "message": "; ".join(reasons),
                         "overrides": entries}
        sys.stdout.write(to_json(data) + "\n")
    else:
        print_preflight(report)
    for p in blocking:
        sys.stderr.write(f"launchplan: --strict: {p.severity.value}: {p.requirement}: "
                         f"{p.why}\n")
    for e in entries:
        avoid = " | ".join(e["avoid_with"]) or "no single flag change avoids it"
        sys.stderr.write(f"launchplan: --strict: {e['field']}: you gave {e['input']!r}, "
                         f"{e['source']} wants {e['resolved']!r}; avoid with: {avoid}\n")
    return 3


def emit_pinned(result, target, env, form: str) -> int:
    """--emit sglang|yaml: the pinned launch line (or --config file) on stdout; what SGLang
    would still change, on stderr (the file holds the same values as the line)."""
    from launchplan.emit import config_yaml, pin_warnings, sglang_command
    from launchplan.engine.pipeline import run
    from launchplan.planner import build_raw, build_record
    from launchplan.rulesets import get_ruleset

    def resolve_again(argv, compat):
        record = build_record(build_raw(argv, compat=compat, env=env), target, compat=compat,
                              env=env)
        return run(record, get_ruleset(compat).rules())

    sys.stdout.write(sglang_command(result) + "\n" if form == "sglang" else config_yaml(result))
    for note in pin_warnings(result, resolve_again):
        sys.stderr.write(f"launchplan: note: {note}\n")
    return 0


def read_logged(opts: dict) -> Any:
    """``--from-log``'s log, read once (standard input can be read only once); without
    ``--gpu``, the one GPU the log names picks the target (``input.server_log``'s
    ``logged_devices``), said in the report's notes. None without ``--from-log``."""
    path = opts.get("from_log")
    if not path:
        return None
    from launchplan.commands.targets_arg import counted_target
    from launchplan.facts.targets import by_device_name
    from launchplan.input.server_log import predates, read_log

    logged = read_log(path)
    if not opts.get("compat") and logged.named_release is not None:
        _logged_release(opts, logged)
    older = predates(logged)  # (no release named: its dates or its line's form say so)
    if older is not None:
        logged.notes.append(older)
    devices = logged.devices
    found = by_device_name(devices[0]) if len(devices) == 1 else None
    if opts.get("gpu"):
        if len(devices) == 1 and (found is None
                                  or found.name != counted_target(opts["gpu"])[0].name):
            logged.notes.append(f"the log ran on {devices[0]}"
                                + (f" ({found.name})" if found is not None else "")
                                + f"; planned on --gpu {opts['gpu']}")
        return logged
    if found is None:
        other = _other_device(logged.values.get("device") or logged.device_named)
        if other is not None and not devices:
            # an Ascend NPU's log (device 'npu'): no target describes it; a GPU named is a
            # stand-in, which the plan then says
            named = (f"ran with device {other!r}, which launchplan's CUDA and ROCm targets do "
                     "not describe; a --gpu given plans the launch on that GPU instead")
        elif not devices:
            named = "names no GPU"
        elif len(devices) > 1:
            named = "names several GPUs: " + ", ".join(devices)
        else:
            named = f"ran on {devices[0]}, which no target describes"
        closest = (_closest_by_memory(logged.reported_mib, logged.reported_by)
                   if len(devices) <= 1 else "")
        raise InputError("--gpu", "a target", message=(
            f"--gpu: required (the log {named}" + (f", {closest}" if closest else "; name "
            "one of the targets listed by `launchplan targets`, or the closest with "
            "--gpu-memory-mib and --gpu-capability") + ")"))
    opts["gpu"] = found.name
    logged.notes.append(f"--gpu {found.name}: the log names its GPU ({devices[0]}); give "
                        "--gpu to plan on another")
    return logged


def _logged_release(opts: dict, logged: Any) -> None:
    """Without ``--compat``, the rule set of the one release the log's text names (an
    environment report, an image tag, a container's banner), as for a pasted launch; kept
    only when that release has every field the log holds (a build past its tag may not).
    Either way the report's notes say what was named and what plans it."""
    from launchplan.checks.from_log import holds_every
    from launchplan.commands.options import COMPAT_CHOICES, release_key
    from launchplan.input.pasted_release import modelled_release, source_build

    version, words = logged.named_release
    release = modelled_release(version, COMPAT_CHOICES)
    if release is not None and holds_every(release, logged.values):
        opts["compat"] = release
        logged.notes.append(f"--compat {release}: the log names that release ({words}); "
                            "give --compat to plan with another rule set")
        return
    releases = sorted(c for c in COMPAT_CHOICES if c[:1].isdigit())
    commit = source_build(version)
    if release is not None:
        why = "but it logs fields that release does not have"
    elif commit is not None:
        why = (f"a source build of commit {commit} (setuptools-scm's placeholder version, as "
               "a source install or a nightly image reports it), whose release is not known")
    elif release_key(version) < release_key(releases[0]):
        why = f"older than the releases launchplan models ({releases[0]} to {releases[-1]})"
    else:
        why = "a release or build launchplan does not model"
    logged.notes.append(f"the log names SGLang {version} ({words}), {why}: planned with the "
                        "default rules (--compat names a release)")


def _closest_by_memory(reported_mib: int | None, by: str | None = None) -> str:
    """What a log whose GPU no target describes says of its target through the per-GPU total
    it states (SGLang's own line, an ``nvidia-smi`` table, torch's out-of-memory message:
    ``by``): the catalog's targets within 3% of that total, closest first (a GB10's 124546
    MiB is the gb10 target's 122548 give or take its host), with the flags that plan on the
    figure itself; empty when the log states no total or no target is that close."""
    if reported_mib is None or reported_mib <= 0:
        return ""
    from launchplan.facts.targets import CATALOG
    from launchplan.input.server_log import SGLANG_TOTAL

    near = sorted((abs(t.memory_mib - reported_mib), t.name, t.memory_mib)
                  for t in CATALOG.values() if abs(t.memory_mib - reported_mib)
                  <= 0.03 * reported_mib)
    if not near:
        return ""
    names = ", ".join(f"{name} ({mib:,} MiB)" for _, name, mib in near[:4])
    source = ("SGLang's own total" if by is None or by == SGLANG_TOTAL
              else f"the per-GPU total {by} states,")
    return (f"only {source} of {reported_mib:,} MiB per GPU, closest to {names}: "
            f"name one, e.g. --gpu {near[0][1]} --gpu-memory-mib {reported_mib}")


def log_report(path: str, argv: list[str], target, compat: str, env, logged: Any = None):
    """The comparison of a logged launch with its plan (``--from-log``): flags in ``argv``
    win over the log; a logged model path that is not here asks for ``--model-path``.
    ``logged``: the log already read (``read_logged``); else it is read from ``path``."""
    from launchplan.checks.from_log import compare
    from launchplan.engine.pipeline import run
    from launchplan.input.server_log import read_log
    from launchplan.planner import build_raw, build_record, overlay
    from launchplan.rulesets import get_ruleset

    if logged is None:
        logged = read_log(path)
    rules = get_ruleset(compat).rules()
    given = build_raw(argv).values if argv else {}
    base = build_raw()
    typed = _typed_beyond_cut(logged, given, compat)

    def resolve(fields, on=target):
        try:
            record = build_record(overlay(base, fields), on, compat=compat, env=env)
        except InputError as exc:
            if exc.subject == "--model-path" and fields.get("model_path") is None:
                raise InputError("--model-path", "the model the log ran (its server_args "
                                 "line names it; this log has none)", None,
                                 message=f"--model-path: required ({path} has no "
                                 "server_args line naming the model"
                                 f"{_command_unread(logged)})") from None
            if exc.subject == "--model-path" and "model_path" not in given:
                raise InputError("--from-log", exc.expected, fields.get("model_path"),
                                 message=f"{path}: the logged model {fields.get('model_path')!r}"
                                 " is not available here; pass --model-path with a folder "
                                 "holding its config.json or a bundled model of the same "
                                 "architecture (`launchplan models`)") from None
            raise
        return run(record, rules)

    try:
        report = compare(logged, resolve, rules, {**typed, **given},
                         get_ruleset(compat).sglang)
    except Refusal as refusal:
        refusal.logged = logged  # type: ignore[attr-defined]
        raise
    if logged.memory.any():
        report.memory = _memory_against_log(logged.memory, report, resolve, target)
        beyond = _beyond_target(logged.largest_memory, target)
        if beyond is not None:
            logged.notes.append(beyond)
    report.notes = [*logged.notes, *report.notes]  # how the log was read, then compared
    if logged.started and report.result is not None:
        report.notes.extend(_started_against_preflight(report.result, compat))
    if logged.failure is not None and report.result is not None:
        report.notes.append(_failure_against_preflight(logged.failure, report.result, compat,
                                                       logged.memory))
    if typed and logged.command is not None:
        lost = "the logged line is cut off" if logged.line else "the log has no server_args line"
        report.notes.append(
            f"{lost}: {', '.join(f'{k}={v!r}' for k, v in typed.items())} "
            f"taken from the launch command the log shows (line {logged.command[0]})")
    other = _other_device(logged.values.get("device") or logged.device_named)
    if other is not None:
        report.notes.append(
            f"the log ran with device {other!r}; launchplan's targets are CUDA and ROCm GPUs, "
            f"so this is that launch planned on {target.name}, not on the log's hardware")
    return logged, report


def _command_unread(logged: Any) -> str:
    """What the exit for a model no line names adds about a launch command the log shows,
    so the message never reads as if the paste named no model: the command's line and why
    it gave none (the note its reading left), or where a command stands that was not read."""
    if logged.command is not None:
        number = logged.command[0]
        why = next((n for n in logged.notes if f"(line {number}) does not read" in n), None)
        if why is not None:
            return ("; the launch command it shows, line "
                    f"{number}, does not read as this release's: "
                    + why.split("does not read as this release's: ", 1)[-1]
                    .removesuffix("; the fields it would give are unset"))
        return f"; the launch command it shows, line {number}, names none"
    later = next((n for n in logged.notes if n.startswith(_LATER_COMMAND)), None)
    return f"; {later}" if later is not None else ""


#: how the log reader's note for a launch command after the memory records begins
_LATER_COMMAND = "the launch command at line "


def _started_against_preflight(result: Any, compat: str) -> list[str]:
    """A note when the log shows the server started while the plan's preflight says the
    launch fails at start-up: the build that ran checked less (a fork, another release) or
    the plan's inputs are not the log's."""
    from launchplan.checks.preflight import preflight

    report = preflight(result)
    if report.verdict != "fails-at-start":
        return []
    deciding = [p.requirement for p in report.problems if p.decides]
    notes = []
    if "gpus-on-node" in deciding:
        # the ranks came up, so the node held the GPUs they bind: the target's count is not
        # the node's (a one-GPU workstation target for a multi-GPU box)
        from launchplan.checks.launch_requirements import gpus_used
        from launchplan.checks.predicates import Plan

        deciding.remove("gpus-on-node")
        top = gpus_used(Plan(result))[0]
        target = result.record.target
        notes.append(f"the log shows the server started, so its node held the {top} GPUs "
                     f"its ranks bind, where {target.name} describes {target.gpu_count}: "
                     f"--gpu-count {top} plans the node it ran on")
    if deciding:
        notes.append(f"the log shows the server started, yet preflight says this launch fails "
                     f"at start-up under rules {compat} ({', '.join(deciding)}): the build that "
                     "ran may check less than that release (a fork, another release), or the "
                     "plan's inputs differ from the log's")
    return notes


def _failure_against_preflight(failure: str, result: Any, compat: str,
                               memory: Any = None) -> str:
    """The note for a log whose start-up died past the pool's sizing: whether preflight
    foresaw it, and for an out-of-memory what the plan does not hold. A memory-fits verdict
    (no room for the KV pool) does not foresee the failure of a log that made its pool
    (``memory``: the log's figures) and died later (at CUDA-graph capture): the log then
    contradicts it, which the note says instead of "too"."""
    from launchplan.checks.preflight import preflight

    report = preflight(result)
    said = f"the log's start-up failed ({failure})"
    table = _table_allocation(failure, result)
    if report.verdict == "fails-at-start":
        names = [p.requirement for p in report.problems if p.decides]
        made = memory is not None and memory.pool_made is True
        if not made or "memory-fits" not in names:
            return (f"{said}; preflight under rules {compat} says this launch fails at "
                    f"start-up too ({', '.join(names)})" + (f"; {table}" if table else ""))
        tokens = memory.max_total_num_tokens
        pool = f"its KV pool ({tokens:,} tokens)" if tokens else "its KV pool"
        others = [n for n in names if n != "memory-fits"]
        return (f"{said} after it made {pool}; preflight under rules {compat} says this "
                "launch fails at start-up on memory-fits (no room for the pool), which the "
                "log contradicts: the flags planned are not all the launch that ran (its "
                "weights as loaded, an offload, a fraction the flags do not give)"
                + (f"; preflight also fails it on {', '.join(others)}" if others else ""))
    out = f"{said}; preflight under rules {compat} finds nothing that stops this launch"
    if table:
        out += f": {table}"
    elif "out of memory" in failure.lower():
        if _graphs_off(result):  # no graph was captured: graph advice would mislead
            out += (": an out-of-memory past the KV pool is what the activations needed "
                    "beyond the pool (this launch captures no CUDA graph), which the memory "
                    "plan does not size (a lower --mem-fraction-static, or a smaller "
                    "--chunked-prefill-size, leaves them more)")
        else:
            out += (": an out-of-memory past the KV pool is what the CUDA graphs and "
                    "activations needed beyond the pool, which the memory plan does not size "
                    "(a lower --mem-fraction-static, or fewer or smaller CUDA graphs, leaves "
                    "them more)")
    return out


#: torch's out-of-memory message: the size it failed to allocate (``format_size``: two
#: decimals of the largest unit below the size)
_TRIED = re.compile(r"Tried to allocate (\d+(?:\.\d+)?) ?(GiB|MiB|KiB|bytes|B)\b")
_UNITS = {"GiB": 1 << 30, "MiB": 1 << 20, "KiB": 1 << 10, "bytes": 1, "B": 1}


def _table_allocation(failure: str, result: Any) -> str:
    """A clause naming the request-to-token table when the failed allocation the log quotes
    is its size (as torch rounds it), else ''."""
    found = _TRIED.search(failure)
    if found is None:
        return ""
    plan = memory_plan(result)
    table = plan.req_to_token_bytes if plan is not None else 0
    unit = _UNITS[found.group(2)]
    if not table or abs(table / unit - float(found.group(1))) > 0.0051:
        return ""
    return (f"the failed allocation ({found.group(1)} {found.group(2)}) is the size of "
            "SGLang's request-to-token table (an int32 row of the context length "
            f"{plan.context_len:,} and a few slots for each of "
            f"{plan.max_running_requests:,} requests and a padding row), which SGLang builds "
            "after sizing the KV pool: a shorter --context-length or fewer "
            "--max-running-requests shrinks it")


def _graphs_off(result: Any) -> bool:
    """Whether the launch captures no CUDA graph (decode and prefill both disabled)."""
    try:
        config = result.value("cuda_graph_config")
    except KeyError:
        config = None
    if isinstance(config, dict):
        return all((config.get(phase) or {}).get("backend") == "disabled"
                   for phase in ("decode", "prefill"))
    try:
        return bool(result.value("disable_cuda_graph"))
    except KeyError:
        return False


def _typed_beyond_cut(logged: Any, given: dict[str, Any], compat: str) -> dict[str, Any]:
    """The fields a cut-off start-up line lost, as the launch command the log shows typed
    them (``--tp 2`` when the paste ends before ``tp_size=``): none the logged part holds,
    none given as flags here, none naming files or the server. A log cut down to its memory
    lines lost them all, its model too. Nothing when the line is whole, the log shows no
    command, or its command does not read as this release's."""
    if (not logged.truncated and logged.line) or logged.command is None:
        return {}  # (a log with no server_args line at all lost every field)
    from launchplan.checks.from_log import OPENED_OR_IDENTITY
    from launchplan.input.pasted import unpaste

    lost = "the logged line is cut off" if logged.line else "the log has no server_args line"
    try:
        argv = _command_words(logged, unpaste)
        values = _read_command(argv, compat, logged, lost, given)
    except InputError as exc:
        logged.notes.append(f"{lost}, and the launch command the log shows (line "
                            f"{logged.command[0]}) does not read as this release's: "
                            f"{exc.message}; the fields it would give are unset")
        return {}
    # a log with no server_args line: the command is the whole launch, its model included
    models = _COMMAND_MODELS if not logged.line else frozenset()
    typed = {name: value for name, value in values.items()
             if name not in logged.values and name not in given
             and (name not in OPENED_OR_IDENTITY or name in models)}
    draft = typed.get("speculative_draft_model_path")
    if _poster_file(draft) and draft != typed.get("model_path"):
        # the poster's draft checkpoint, as a logged draft path is: compared as logged (the
        # speculation is then not planned), never resolved here as input
        logged.values["speculative_draft_model_path"] = typed.pop("speculative_draft_model_path")
    return typed


def _command_words(logged: Any, unpaste: Any) -> list[str]:
    """The logged launch command's flags, its variables expanded with the assignments the
    text makes before it (``TP=2`` above ``--tp $TP``, ``option+=" ..."``), as the pasted-text
    reader expands a script's; the command alone when the two do not read together."""
    command = logged.command[1]
    context = getattr(logged, "command_context", "")
    if context:
        try:
            argv, _ = unpaste([context + "\n" + command])
        except InputError:
            pass
        else:
            alone, _ = unpaste([command])
            if argv != alone:
                logged.notes.append(f"the launch command the log shows (line "
                                    f"{logged.command[0]}) is read with the variables the "
                                    "text sets before it")
            return argv
    argv, _ = unpaste([command])
    return argv


def _poster_file(path: Any) -> bool:
    """Whether ``path`` names a file of another machine: a filesystem path not here (a Hub
    id or a bundled model's name is no such path)."""
    if not isinstance(path, str) or not path.startswith(("/", "~", "./", "../")):
        return False
    import os

    return not os.path.exists(os.path.expanduser(path))


def _read_command(argv: list[str], compat: str, logged: Any, lost: str,
                  given: dict[str, Any] | None = None) -> dict[str, Any]:
    """The values of a logged launch command, an older release's flags moved to this
    release's first (``input.migrations.rewrite``: ``--cuda-graph-max-bs 32`` ->
    ``--cuda-graph-max-bs-decode 32``, a retired switch dropped), each move noted: a log is
    usually older than the rules it is planned with, and one retired flag is no reason to
    lose its ``--tp-size``. For the same reason a flag whose value this release does not
    take (a fork's ``--attention-backend dcu_mla``) is dropped alone, named; a flag of a
    field ``given`` here is left out before the command is read (the flag given wins)."""
    from launchplan.input.migrations import rewrite
    from launchplan.planner import build_raw
    from launchplan.rulesets import get_ruleset

    # a variable the log never shows the value of (``--kt-weight-path $MODEL``) is the
    # launch's environment's, whether or not its flag would parse as the variable's name
    argv, unset = _without_references(argv)
    if given:
        argv = [w for span in _flag_spans(argv) if _flag_field(span[0]) not in given
                for w in span]
    blanks = _placeholders(argv)
    changes: list[str] = []
    refused: list[str] = []
    try:
        values = build_raw(argv, compat=compat).values
    except InputError:
        moved, changes = rewrite(list(argv), to=get_ruleset(compat).sglang)
        values, refused = _without_refused(moved, compat)
        blanks = [b for b in blanks if not any(r.startswith(b + " (") for r in refused)]
    cut = next((r for r in refused if r.endswith(_CUT_FLAG)), None)
    if cut is not None:  # a cut is no fault of the launch: said apart from what is refused
        refused.remove(cut)
        logged.notes.append(f"{lost}; the launch command the log shows (line "
                            f"{logged.command[0]}) is cut at {cut.split(' ', 1)[0]} (the "
                            "paste ends inside that flag's name): that flag is not read, the "
                            "rest of the command is")
    if refused:
        logged.notes.append(f"{lost}; the launch command the log shows (line "
                            f"{logged.command[0]}) gives what this release does not accept: "
                            f"{'; '.join(refused)}: "
                            + ("that flag is" if len(refused) == 1 else "those flags are")
                            + " unset here, the rest of the command read")
    if blanks:
        logged.notes.append(f"{lost}; the launch command the log shows (line "
                            f"{logged.command[0]}) gives {', '.join(blanks)}: "
                            + ("a placeholder" if len(blanks) == 1 else "placeholders")
                            + " the pasted text leaves to fill in, planned as written (give "
                            "the flag here with the real value)")
    if unset:
        logged.notes.append(f"{lost}; the launch command the log shows (line "
                            f"{logged.command[0]}) leaves {', '.join(unset)} to where it runs "
                            "(variables this text does not set"
                            + (", or sets from a command it runs" if any("$(" in u for u in unset)
                               else "") + "): those flags are unset here")
    if changes:
        logged.notes.append(f"{lost}; the launch command the log shows (line "
                            f"{logged.command[0]}) holds flags of an older release, read as "
                            f"this release's: {'; '.join(changes)}")
    return values


def _placeholders(argv: list[str]) -> list[str]:
    """The flags of ``argv`` whose value is a placeholder (``--lora-paths <7 adapters>``,
    ``--served-model-name <name>``), as written: the poster elided a value the launch had,
    which the report says. The value stays planned (dropped, a LoRA launch would lose the
    adapters it started with and fail preflight); a flag that takes no such text is refused
    and dropped as any other value is. A model's placeholder is not listed: the model's
    lookup says what to give for it."""
    from launchplan.input.shell_vars import placeholder

    blanks: list[str] = []
    for span in _flag_spans(argv):
        values = span[1:] if "=" not in span[0] else [span[0].split("=", 1)[1]]
        if values and _flag_field(span[0]) not in _COMMAND_MODELS \
                and any(placeholder(v) or (v[:1] == "<" and v[-1:] == ">") for v in values):
            blanks.append(" ".join(span))
    return blanks


#: the flags of a logged command dropped one by one at most, before the command counts as
#: unreadable (a fork's command differs from the release in a value or two, not in many)
_MAX_REFUSED = 4


#: how ``_without_refused`` marks the last flag a paste cut inside its name
_CUT_FLAG = "(cut)"


def _without_refused(argv: list[str], compat: str) -> tuple[dict[str, Any], list[str]]:
    """The values of ``argv`` read as ``compat``'s parser reads them, each flag it refuses
    (with its values) dropped and said as ``--flag value (why)``, and a last word cut inside
    a flag's name (``--disa``: an excerpt or a preview ends there) as ``--disa (cut)``: one
    such word is no reason to lose the command's ``--tp-size``. The parser's error when one
    it refuses is no flag of ``argv``, or more than ``_MAX_REFUSED`` are."""
    from launchplan.planner import build_raw

    refused: list[str] = []
    while True:
        try:
            return build_raw(argv, compat=compat).values, refused
        except InputError as exc:
            spans = _flag_spans(argv)
            bad = next((span for span in spans if _names_flag(exc, span)), None)
            if bad is None and spans and _cut_flag(exc, spans[-1]):
                refused.append(f"{spans[-1][0]} {_CUT_FLAG}")
                argv = [w for span in spans[:-1] for w in span]
                continue
            if bad is None or len(refused) == _MAX_REFUSED:
                raise
            why = exc.message.removeprefix(f"{exc.subject}: ")
            if len(why) > 120:  # a long list of choices: what was expected is the release's
                why = "not a value this release takes" + (f", {exc.hint}" if exc.hint else "")
            refused.append(f"{' '.join(bad)} ({why})")
            argv = [w for span in spans if span is not bad for w in span]


def _cut_flag(exc: InputError, span: list[str]) -> bool:
    """Whether the parser's error ``exc`` is about ``span``, the command's last word alone,
    that is no flag of this release but the start of its flags' names: a cut inside one
    (``--disa`` of ``--disable-radix-cache``), where an excerpt or a preview ended. (A flag
    this release lacks elsewhere in a command says the command is another build's.)"""
    from launchplan.input.fields import release_table

    word = span[0]
    return (len(span) == 1 and word == exc.subject and word.startswith("--") and len(word) > 2
            and "=" not in word and _flag_field(word) is None
            and any(flag.startswith(word) for flag in release_table().flag_to_field))


def _names_flag(exc: InputError, span: list[str]) -> bool:
    """Whether the parser's error ``exc`` is about the value of the flag ``span`` starts (any
    spelling, an abbreviation, its ``=value`` form), a flag this release has. A flag it does
    not have, or a word no flag takes, is no value refused: the command is then not this
    release's."""
    head = span[0].split("=", 1)[0]
    field = _flag_field(str(exc.subject))  # (the parser names a flag by its first spelling)
    return field is not None and head.startswith("--") and (
        _flag_field(head) == field or str(exc.subject).startswith(head))


def _flag_spans(argv: list[str]) -> list[list[str]]:
    """``argv`` cut into its flags, each with the words it reads as its values (argparse's
    test: a word that does not read as a flag is a value), and any stray word alone."""
    from launchplan.input.cli import reads_as_value, takes_value

    spans: list[list[str]] = []
    for word in argv:
        head = spans[-1][0] if spans else ""
        # (a switch reads no value: a word after it is a stray of its own)
        if head.startswith("-") and "=" not in head and reads_as_value(word) \
                and (takes_value(head) or _flag_field(head) is None):
            spans[-1].append(word)
        else:
            spans.append([word])
    return spans


def _flag_field(word: str) -> str | None:
    """The ServerArgs field a flag word writes (``--tp=2`` and ``--tp-size``: tp_size), None
    for a word that is no flag of this release."""
    from launchplan.input.fields import release_table

    return release_table().flag_to_field.get(word.split("=", 1)[0])


#: a value only the launch's environment gives: ``$(NAME)`` (Kubernetes, make), ``${NAME}``,
#: ``$NAME``, or a command's output (``$(hostname -i)``; not ``$((...))`` arithmetic)
_REFERENCE = re.compile(r"\$(?:\((?!\()|\{[A-Za-z_]\w*[^}]*\}|[A-Za-z_]\w*)")


def _without_references(argv: list[str]) -> tuple[list[str], list[str]]:
    """``argv`` without the flags whose value is a variable the text leaves unset, and those
    flags as written (a manifest's ``--nnodes $(LWS_GROUP_SIZE)``: the rest of its launch
    still says what the log ran)."""
    kept: list[str] = []
    unset: list[str] = []
    for word in argv:
        if _REFERENCE.search(word) is None:
            kept.append(word)
        elif word.startswith("--") and "=" in word:
            unset.append(word)
        elif kept and kept[-1].startswith("--") and not word.startswith("-"):
            unset.append(f"{kept.pop()} {word}")
        else:
            unset.append(word)
    return kept, unset


#: What a log without a server_args line takes from the launch command it shows beyond the
#: cut-off case's values: the checkpoints its memory lines are about.
_COMMAND_MODELS = frozenset({"model_path", "tokenizer_path", "speculative_draft_model_path"})


#: The ``device`` values of launches on a CUDA or ROCm GPU (SGLang's ROCm build says cuda).
_GPU_DEVICES = frozenset({"cuda", "auto"})


def _other_device(device: Any) -> str | None:
    """The logged device when it is not a CUDA or ROCm GPU (an NPU, TPU, XPU, HPU, CPU...)."""
    if isinstance(device, str) and device.strip().lower() not in _GPU_DEVICES:
        return device
    return None


#: how far a logged figure may pass the target's whole memory before it cannot be that GPU's
#: (SGLang prints GB to two decimals and counts them in GiB; a card's total varies a little)
_BEYOND_TARGET = 1.02


def _beyond_target(largest: tuple[float, str] | None, target: Any) -> str | None:
    """The note for a log whose memory records state more than the target's whole memory
    (a CPU server's pool, a larger GPU than the one planned): its figures and the plan's
    then describe different machines, and the rows' errors are that, not the plan's."""
    if largest is None or not getattr(target, "memory_mib", None):
        return None
    figure, what = largest
    whole = target.memory_mib / 1024
    if figure <= whole * _BEYOND_TARGET:
        return None
    return (f"the log's memory records state {figure:.2f} GB ({what}), more than the "
            f"{whole:.0f} GiB of one {target.name}: it ran on other hardware (a CPU host, "
            "a larger GPU), so its memory rows compare different machines, not the plan's "
            "error")


def _memory_against_log(logged, report, resolve, target) -> list:
    """The log's memory figures beside the plan's: with the target's free-memory figure,
    and again with the log's own when it has one (``checks.log_memory``)."""
    from launchplan.checks.log_memory import memory_rows
    from launchplan.facts.targets import with_overrides

    plan = memory_plan(report.result)
    again = None
    free = logged.free_before_gib
    if free is not None and free > 0:
        try:
            on = with_overrides(target, before_load_mib=max(1, round(free * 1024)))
            again = memory_plan(resolve(report.inputs, on))
        except (InputError, Refusal):
            again = None
    return memory_rows(logged, plan, again, target)


def from_log(path: str, argv: list[str], target, compat: str, env, fmt: str,
             logged: Any = None) -> int:
    """--from-log FILE: the logged launch, planned; where the plan and the log differ."""
    from launchplan.commands.output import print_log_report

    try:
        logged, report = log_report(path, argv, target, compat, env, logged)
    except Refusal as refusal:
        if fmt == "json":  # JSON on stdout even when the logged launch is refused here
            line = getattr(refusal, "logged", None)
            sys.stdout.write(to_json({"agrees": False,
                                      "log": {"path": path,
                                              "line": line.line if line else None},
                                      "error": {"source": refusal.source,
                                                "message": refusal.message}}) + "\n")
        raise
    if fmt == "json":
        from launchplan.checks.effective import config_hash

        data = report.to_dict()
        data["log"] = {"path": path, "line": logged.line or None}
        data["config_hash"] = config_hash(report.result)
        sys.stdout.write(to_json(data) + "\n")
    else:
        print_log_report(report, path, logged.line)
    return 0
