"""launchplan's own options, separated from the SGLang flags they travel with.

A command line such as ``launchplan resolve --gpu b200 --model-path llama-3.1-8b
--attention-backend fa4 --format json`` mixes both: launchplan takes its own options out
and hands the rest, untouched, to the SGLang parser.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from launchplan.errors import InputError, LaunchplanError
from launchplan.struct import Struct, factory

# The rule sets of launchplan.rulesets.RULESETS (a test keeps the two equal); spelled out here
# so that splitting options does not import the rule registry.
COMPAT_CHOICES = ("default", "0.5.23", "0.5.22", "0.5.21")


class Option(Struct):
    flag: str
    dest: str
    kind: str  # "value" | "flag" | "int" | "multi"
    choices: tuple[str, ...] | None = None
    help: str = ""


OPTIONS: dict[str, Option] = {o.flag: o for o in (
    Option("--gpu", "gpu", "value", help="GPU target name (see `launchplan targets`) or auto"),
    Option("--model-path", "model_path", "multi", help="a model folder or bundled name"),
    Option("--gpu-memory-mib", "gpu_memory_mib", "int", help="override the target's MiB per GPU"),
    Option("--gpu-capability", "gpu_capability", "value",
           help="override the compute capability, e.g. 10.0"),
    Option("--gpu-count", "gpu_count", "int", help="override the number of GPUs"),
    Option("--cuda-version", "cuda_version", "value", help="override the CUDA version"),
    Option("--before-load-mib", "before_load_mib", "int",
           help="MiB free per GPU just before the weights load (default: memory less the "
           "stated CUDA-context and communication overhead)"),
    Option("--load-overhead-mib", "load_overhead_mib", "int",
           help="MiB per GPU that loading spends beyond the weights' tensors (default: the "
           "stated 128)"),
    Option("--host-ib-devices", "host_ib_devices", "value",
           help="the host's InfiniBand devices, NAME,NAME... or none (default: any device a "
           "launch names is taken as present; --gpu auto reads this host's)"),
    Option("--host-imex-channel", "host_imex_channel", "flag",
           help="the host mounts an IMEX channel (an MNNVL compute domain on GB200/GB300; "
           "default: assumed absent; --gpu auto looks)"),
    Option("--to", "to", "value", help="diff: the right side's rule set; migrate: the release"),
    Option("--from", "from", "value", help="migrate: the release the old line ran on"),
    Option("--upgrade", "upgrade", "value", help="check: OLD:NEW rule sets to compare"),
    Option("--columns", "columns", "value",
           help="sweep: memory-plan quantities or fields to show per configuration"),
    Option("--assume-request-tokens", "request_tokens", "int",
           help="tokens of one request (prompt + output) for the concurrency figure "
           "(default 2560: 2,048 in + 512 out)"),
    Option("--compat", "compat", "value", COMPAT_CHOICES,
           help="rule set: default (0.5.23 plus the later FA4 fix), or an SGLang release "
           "exactly (0.5.23, 0.5.22, 0.5.21: its flags, defaults and rules)"),
    Option("--format", "format", "value", ("table", "json", "csv", "markdown", "md"),
           help="output format (markdown or md: resolve, to paste into an issue)"),
    Option("--strict", "strict", "flag", help="refuse (exit 3) instead of overriding input"),
    Option("--env", "env", "multi",
           help="an SGLang environment variable the plan assumes, KEY=VALUE (repeatable)"),
    Option("--all", "all", "flag", help="explain every field that differs from its input"),
    Option("--hazards", "hazards", "flag", help="static ordering hazards of the rule set"),
    Option("--axis", "axis", "multi", help="FIELD=v1,v2,... (repeatable)"),
    Option("--sample", "sample", "int", help="draw N points from the space"),
    Option("--seed", "seed", "int", help="random seed for --sample"),
    Option("--jobs", "jobs", "int", help="worker processes (default: every core)"),
    Option("--executor", "executor", "value", ("local", "ray"),
           help="where check's and sweep's work units run: local processes, or Ray tasks"),
    Option("--ray-address", "ray_address", "value",
           help="a Ray cluster to run on (default: RAY_ADDRESS, else a local instance)"),
    Option("--fail-on", "fail_on", "value", ("fails-at-start", "runtime-error", "degraded"),
           help="the mildest preflight severity that fails a check"),
    Option("--from-log", "from_log", "value",
           help="plan the launch a log's server_args=ServerArgs(...) (or, 0.5.21 on, "
                "server_args={...}) line records"),
    Option("--emit", "emit", "value", ("sglang", "yaml"),
           help="print a pinned SGLang command line, or a pinned --config YAML file"),
    Option("--launch", "launch", "int",
           help="a pasted text with several launch commands: plan the Nth (from 1)"),
)}


class Split(Struct, frozen=False):
    """launchplan's options (by dest) and the SGLang argv left over."""

    options: dict[str, Any] = factory(dict)
    sglang_argv: list[str] = factory(list)
    notes: list[str] = factory(list)  # about how a pasted text was read
    #: for a pasted text of several launches, which one is judged: the line said beside a
    #: refusal or a bad-input error too, which print no notes (``noting_launch``)
    launch_note: str | None = None


def split_argv(argv: Sequence[str], allowed: frozenset[str],
               repeatable: frozenset[str] = frozenset()) -> Split:
    """Take launchplan's ``allowed`` options out of ``argv``; keep everything else in order.

    Options in ``repeatable`` collect every occurrence into a list. A launch pasted as
    written (``python -m sglang.launch_server ...``, ``sglang serve ...``, line
    continuations, ``KEY=VALUE`` assignments before it) is taken apart first: the
    assignments become ``--env`` values.
    """
    out = Split()
    argv = _stdin_paste(argv, allowed)
    given = argv  # as typed: a --gpu-count, or a --gpu that writes one, wins over the paste's
    argv, chosen = _launch_option(argv) if "--launch" in allowed else (list(argv), None)
    if chosen is not None or _may_be_pasted(argv):  # else no reader needs loading
        _unpaste_into(out, argv, chosen, allowed)
        argv = out.sglang_argv
        out.sglang_argv = []
    i = 0
    while i < len(argv):
        token = argv[i]
        name, eq, inline = token.partition("=")
        option = OPTIONS.get(name) if name in allowed else None
        if option is not None and name in repeatable and option.kind == "value":
            option = Option(option.flag, option.dest, "multi", option.choices, option.help)
        if option is None:
            out.sglang_argv.append(token)
            i += 1
            continue
        if option.kind == "flag":
            if eq:
                raise InputError(name, "no value", inline)
            out.options[option.dest] = True
            i += 1
            continue
        if eq:
            value = inline
            i += 1
        else:
            if i + 1 >= len(argv):
                raise InputError(name, "a value", message=f"{name}: expected a value after it")
            value = argv[i + 1]
            i += 2
        out.options.setdefault(option.dest, [] if option.kind == "multi" else None)
        out.options[option.dest] = _convert(option, value, out.options[option.dest])
    if "--gpu-count" in allowed and out.options.get("env") \
            and not _given(given, "--gpu-count") and not _counted(given):
        _visible_count(out)
    return out


#: The most of a pasted text read from standard input (a whole issue with its logs fits).
MAX_STDIN_CHARS = 16 << 20


def _stdin_paste(argv: Sequence[str], allowed: frozenset[str]) -> list[str]:
    """``argv`` with a lone ``-`` (one that is no option's value) replaced by the text on
    standard input: a pasted page or issue too long for one argument (the kernel caps one at
    128 KiB) is piped in. Nothing on it is bad input."""
    for at, token in enumerate(argv):
        if token != "-":
            continue
        before = argv[at - 1] if at else ""
        option = OPTIONS.get(before) if before in allowed else None
        if before.startswith("-") and "=" not in before and (
                option is None or option.kind != "flag"):
            continue  # a value: ``--from-log -`` reads its log there
        import sys

        expected = "a pasted launch on standard input"
        try:
            if sys.stdin is None:
                raise InputError("-", expected, "no standard input")
            if sys.stdin.isatty():  # nothing piped in: no waiting for a typist
                raise InputError("-", expected, "a terminal")
            text = sys.stdin.read(MAX_STDIN_CHARS)
        except (OSError, ValueError) as exc:  # closed, or not readable here
            raise InputError("-", expected, "an unreadable standard input", str(exc)) from None
        if not text.strip():
            raise InputError("-", expected, "nothing")
        return [*argv[:at], text, *argv[at + 1:]]
    return list(argv)


def _visible_count(out: Split) -> None:
    """The GPU count the launch's environment shows it (``CUDA_VISIBLE_DEVICES=0,1``), over
    what the node holds, or the fewer of it and what a pasted container requests: SGLang
    sees only those devices (a larger ``--gpu-count`` is taken down to them)."""
    from launchplan.input.gpu_request import visible_gpus

    found = visible_gpus(out.options["env"])
    if found is None:
        from launchplan.input.gpu_request import open_visible

        if (unknown := open_visible(out.options["env"])) is not None:
            out.notes.append(f"{unknown}: the devices it lists are worked out when the script "
                             "runs, so the plan takes the node's GPUs (give --gpu-count N "
                             "for the N it lists)")
        return
    count, words = found
    requested = out.options.get("gpu_count")
    if requested is not None and requested <= count:
        return
    out.options["gpu_count"] = count
    out.notes.append(f"--gpu-count {count}: the launch's environment shows it "
                     f"{_gpus(count)} ({words}); {_OTHER_COUNT}")


#: How a note on a GPU count the pasted text sets says the user may plan another: the
#: user gave no ``--gpu-count`` (or gave a larger one), so none "names another" yet.
_OTHER_COUNT = "give --gpu-count to plan another count"


def _gpus(count: int) -> str:
    return f"{count} GPU{'s' if count != 1 else ''}"


def _may_be_pasted(argv: Sequence[str]) -> bool:
    """A cheap screen: only a token with a space or a line break, or naming python, sglang
    or an ``Engine``, can make ``looks_pasted`` true (a plain command line skips the
    readers' import, a few milliseconds of every cold start)."""
    return any(" " in t or "\n" in t or "python" in t or "sglang" in t or "Engine" in t
               for t in argv)


def _unpaste_into(out: Split, argv: list[str], chosen: int | None,
                  allowed: frozenset[str]) -> None:
    """A pasted launch taken apart: its flags into ``out.sglang_argv`` (to be split next),
    its environment assignments and the GPUs its container asks for into ``out.options``."""
    from launchplan.input.pasted import launch_count, looks_pasted, unpaste

    if chosen is not None and not looks_pasted(argv):
        raise InputError("--launch", "a pasted launch text (python -m sglang.launch_server "
                         "...) to pick from", chosen)
    if looks_pasted(argv):
        launches = launch_count(argv)
        hinted = _own_block(argv, chosen or 1) if launches > 1 else argv
        requested = _manifest_gpus(argv, chosen) if "--gpu-count" in allowed else None
        asked = _asked_gpu(hinted) if "--gpu" in allowed else None
        if asked is not None and not _given(argv, "--gpu"):
            target, count, words = asked
            out.options["gpu"] = target
            if requested is None and count is not None and "--gpu-count" in allowed:
                requested = count
            out.notes.append(f"--gpu {target}: the pasted text asks for it ({words}); "
                             "give --gpu to plan on another")
        elif (asked is not None and asked[1] is not None and requested is None
              and "--gpu-count" in allowed and not _given(argv, "--gpu-count")
              and not _counted(argv)):
            # --gpu names the type to plan on; the task's count still says how many GPUs
            # the launch gets (a SkyPilot task's H100:2 planned on B200s is two of them)
            requested = asked[1]
            out.notes.append(f"--gpu-count {requested}: the pasted text's task asks for "
                             f"{_gpus(requested)} ({asked[2]}); {_OTHER_COUNT}")
        if (asked is None and requested is None and "--gpu-count" in allowed
                and not _given(argv, "--gpu-count") and not _counted(argv)
                and (either := _asked_count(hinted)) is not None):
            # a task that takes any of several GPU types asks for the same count of each
            requested = either[0]
            out.notes.append(f"--gpu-count {requested}: the pasted text's task asks for "
                             f"{_gpus(requested)} of any of its types ({either[1]}); "
                             f"{_OTHER_COUNT}")
        if (requested is None and "--gpu-count" in allowed and not _given(argv, "--gpu-count")
                and not _counted(argv)):
            requested = _job_gpus(out, argv)
        if "--compat" in allowed and not _given(argv, "--compat"):
            _pasted_release(out, hinted)
        if chosen is not None and not 1 <= chosen <= max(launches, 1):
            if not launches:  # none counted: the text's own reading says whether it holds one
                unpaste(argv)
            raise InputError("--launch", f"1 to {max(launches, 1)} (the pasted text holds "
                             f"{launches or 'one'} launch command{'s' if launches > 1 else ''})",
                             chosen)
        if launches > 1:
            from launchplan.input.pasted import launch_summaries

            summaries = launch_summaries(argv, launches)
            listed = ", ".join(summaries)
            how = f"(--launch {chosen})" if chosen else "(--launch N plans another)"
            out.notes.append(f"the pasted text holds {launches} launch commands: {listed}; "
                             f"launch {chosen or 1} is planned {how}")
            own = summaries[(chosen or 1) - 1].partition("] ")[2]
            out.launch_note = (f"the pasted text holds {launches} launch commands; launch "
                               f"{chosen or 1}" + (f" ({own})" if own else "") + " is the one "
                               "judged (--launch N judges another)")
        argv, assignments = unpaste(argv, launch=chosen, notes=out.notes)
        out.notes.extend(_open_text_values(argv))
        if requested is not None and not _given(argv, "--gpu-count"):
            out.options["gpu_count"] = requested  # the container sees only these
        if assignments:
            if "--env" not in allowed:
                raise InputError(assignments[0].split("=")[0], "no environment assignment for "
                                 "this command", assignments[0])
            out.options["env"] = list(assignments)
    out.sglang_argv = list(argv)


@contextmanager
def noting_launch(split: Split) -> Iterator[None]:
    """Tell an error or a refusal of the launch ``split`` chose from several pasted which
    launch it concerns (``Split.launch_note``): without it, a user who pasted a page of
    variants cannot tell the verdict is the first one's, nor how to reach another."""
    try:
        yield
    except LaunchplanError as exc:
        if split.launch_note is not None and getattr(exc, "launch_note", None) is None:
            exc.launch_note = split.launch_note  # type: ignore[attr-defined]
        raise


def _own_block(argv: list[str], chosen: int) -> list[str]:
    """``argv`` with a page's code blocks that hold its other launches blanked, so that the
    GPU type, count and release the page names are read for launch ``chosen`` from its own
    block and the blocks that launch nothing (a ``docker pull`` step): a vendor-tabbed page
    (NVIDIA and AMD tabs, each a task with its image and ``gpu:``) lends neither tab's
    facts to the other. Unchanged unless one pasted page holds the launches, block by
    block."""
    from launchplan.input.page_markup import block_text, code_block_spans, without_blocks
    from launchplan.input.pasted import launch_count, looks_pasted

    pasted = [n for n, token in enumerate(argv) if looks_pasted([token])]
    if len(pasted) != 1:
        return argv
    text = argv[pasted[0]]
    spans = code_block_spans(text)
    counts = [launch_count([block_text(text, span)]) for span in spans]
    if sum(counts) != launch_count([text]):
        return argv  # launches outside the blocks, or read across them: the page is one
    first = 0
    for span, count in zip(spans, counts):
        if first < chosen <= first + count:
            others = [other for other, n in zip(spans, counts) if n and other != span]
            return [*argv[:pasted[0]], without_blocks(text, others), *argv[pasted[0] + 1:]]
        first += count
    return argv


def _open_text_values(argv: Sequence[str]) -> list[str]:
    """A note per flag whose value holds a variable or expression the pasted text leaves
    open (``--served-model-name "$NAME"``, ``--kv-events-config ${json.dumps(cfg)}``, a
    multi-node address ``127.0.0.1:$((PORT + 2000))``): a free-text flag takes it as
    written, so the plan holds the reference, not what SGLang gets; a flag that needs a
    number or a choice refuses it anyway (bad input). None for one a later flag of the same
    field gives (the flag given after the paste: SGLang keeps the last value, and the
    parser notes that it did)."""
    from launchplan.input import shell_vars
    from launchplan.input.cli import flag_field

    out = []
    for at in range(1, len(argv)):
        flag, word = argv[at - 1], argv[at]
        if flag.startswith("--") and "=" not in flag and "$" in word \
                and shell_vars.open_reference(word):
            field = flag_field(flag)
            if field is not None and any(w.startswith("-") and flag_field(w) == field
                                         for w in argv[at + 1:]):
                continue
            out.append(f"{flag} {word}: a value the pasted text leaves open (the plan holds "
                       "it as written; SGLang gets whatever it is when the launch runs)")
    return out


def _job_gpus(out: Split, argv: Sequence[str]) -> int | None:
    """The GPUs a pasted Slurm job gives each node (``#SBATCH --gres=gpu:4``), noted: its
    launch sees those, however many the node holds."""
    from launchplan.input.gpu_request import slurm_gpus
    from launchplan.input.pasted import cleaned

    for token in argv:
        if "\n" not in token and "srun" not in token and "sbatch" not in token:
            continue
        found = slurm_gpus(cleaned(token))
        if found is not None:
            count, words = found
            out.notes.append(f"--gpu-count {count}: the pasted Slurm job gives each node "
                             f"{_gpus(count)} ({words}); {_OTHER_COUNT}")
            return count
    return None


def release_texts(argv: Sequence[Any], cleaned: Any) -> list[str]:
    """Where a pasted text names its release: the text as its launch is read, and a text
    whose prose quotes an image in inline code (``We used the `lmsysorg/sglang:v0.5.21`
    image``) as pasted, since reading the launch takes that prose off (the same tag found in
    both counts once)."""
    texts = [t for t in argv if isinstance(t, str)]
    return [cleaned(t) for t in texts] + [t for t in texts if "`" in t]


def _pasted_release(out: Split, argv: Sequence[str]) -> None:
    """The rule set of the one SGLang release the pasted text names (``input.pasted_release``),
    noted; a release launchplan does not model keeps the default rules, said in the note."""
    from launchplan.input.pasted import cleaned
    from launchplan.input.pasted_release import reported_release, source_build

    found = reported_release(release_texts(argv, cleaned), COMPAT_CHOICES)
    if found is None:
        return
    release, version, words = found
    if release is None:
        releases = sorted(c for c in COMPAT_CHOICES if c[:1].isdigit())
        commit = source_build(version)
        older = commit is None and release_key(version) < release_key(releases[0])
        out.notes.append(
            f"the pasted text names SGLang {version} ({words}), "
            + (f"a source build of commit {commit} (setuptools-scm's placeholder version, as "
               "a source install or a nightly image reports it), whose release is not known: "
               "planned with the default rules" if commit else
               f"older than the releases launchplan models ({releases[0]} to {releases[-1]}): "
               f"planned with the default rules; `launchplan migrate --to {releases[-1]}` "
               "rewrites the flags later releases retired" if older else
               "a release launchplan does not model: planned with the default rules "
               f"(--compat names one of {', '.join(COMPAT_CHOICES)})"))
        return
    out.options["compat"] = release
    out.notes.append(f"--compat {release}: the pasted text names that release ({words}); "
                     "give --compat to plan with another rule set")


def release_key(version: str) -> tuple[int, ...]:
    """``0.5.21.post2`` -> (0, 5, 21): the release's numbers, for ordering."""
    import re  # (only a pasted text that names a release pays for it)

    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def _given(argv: Sequence[str], flag: str) -> bool:
    return any(t == flag or t.startswith(flag + "=") for t in argv)


def _counted(argv: Sequence[str]) -> bool:
    """Whether the last ``--gpu`` value writes a GPU count with the target (``8xH100``); a
    name that is no target says nothing here (it is bad input where the target is read)."""
    values = taken_out(argv, "--gpu")[1]
    if not values or values[-1] is None:
        return False
    from launchplan.commands.targets_arg import counted_target

    try:
        return counted_target(values[-1])[1] is not None
    except LaunchplanError:
        return False


def _asked_gpu(argv: Sequence[str]) -> tuple[str, int | None, str] | None:
    """The one GPU type the pasted text's task asks for (``input.gpu_request``)."""
    from launchplan.input.gpu_request import requested_gpu
    from launchplan.input.pasted import cleaned

    return requested_gpu([cleaned(t) for t in argv])


def _asked_count(argv: Sequence[str]) -> tuple[int, str] | None:
    """The GPU count the pasted text's task asks for of any of its GPU types."""
    from launchplan.input.gpu_request import requested_count
    from launchplan.input.pasted import cleaned

    return requested_count([cleaned(t) for t in argv])


def taken_out(argv: Sequence[str], flag: str) -> tuple[list[str], list[str | None]]:
    """``argv`` without each ``flag V`` or ``flag=V``, and the values in order (None where
    the flag ends the line or another flag follows it)."""
    rest: list[str] = []
    values: list[str | None] = []
    at = 0
    while at < len(argv):
        name, eq, value = argv[at].partition("=")
        if name != flag:
            rest.append(argv[at])
            at += 1
        elif eq:
            values.append(value)
            at += 1
        elif at + 1 < len(argv) and not argv[at + 1].startswith("--"):
            values.append(argv[at + 1])
            at += 2
        else:
            values.append(None)
            at += 1
    return rest, values


def _launch_option(argv: Sequence[str]) -> tuple[list[str], int | None]:
    """``argv`` without ``--launch N``, and N: it picks among a pasted text's launches, so
    it is read before the text is taken apart."""
    rest, values = taken_out(argv, "--launch")
    if not values:
        return rest, None
    chosen = values[-1]
    if chosen is None:
        raise InputError("--launch", "a value", message="--launch: expected a value after it")
    try:
        return rest, int(chosen)
    except ValueError:
        raise InputError("--launch", "an integer (which launch of the pasted text, from 1)",
                         chosen) from None


def _manifest_gpus(tokens: Sequence[str], launch: int | None) -> int | None:
    """The GPUs a pasted manifest's launching container requests, or a pasted ``docker run
    --gpus N`` gives its container (``--gpu-count`` unless given): a pod that asks for four
    sees four, however many the node has. Of several launching containers, the
    ``launch``-th's (the first by default)."""
    from launchplan.input.pasted import cleaned, pasted_manifest, runner_gpus

    for raw, token in zip(tokens, map(cleaned, tokens)):
        if pasted_manifest(raw, token):
            from launchplan.input.manifest import gpus_requested

            return gpus_requested(token, launch)
    return runner_gpus(tokens, launch)


def _convert(option: Option, value: str, previous: Any) -> Any:
    if option.choices is not None and value not in option.choices:
        raise InputError(option.flag, "one of " + ", ".join(option.choices), value)
    if option.kind == "int":
        try:
            return int(value)
        except ValueError:
            raise InputError(option.flag, "an integer", value) from None
    if option.kind == "multi":
        return [*previous, value]
    return value


def no_markdown(fmt: str | None, command: str) -> str | None:
    """``fmt`` as given; markdown is ``resolve``'s alone (one line of bad input elsewhere)."""
    if fmt in ("markdown", "md"):
        raise InputError("--format", f"table or json for {command} (markdown is resolve's)",
                         fmt)
    return fmt
