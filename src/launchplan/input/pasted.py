"""Launch commands as people paste them: a launcher prefix, env assignments, continuations.

Docs, model cards and bug reports write ``CUDA_VISIBLE_DEVICES=0,1 python3 -m
sglang.launch_server --model-path M \\`` over several lines, or ``sglang serve ...``, often
inside a container or job runner (``docker run --gpus all -e SGLANG_X=1 lmsysorg/sglang
python3 -m sglang.launch_server ...``, ``srun ...``). A user should be able to paste that
after ``launchplan resolve --gpu h100`` as it is: this module turns it into the SGLang argv
(the flags) and the environment assignments before it (a container's ``-e``/``--env``
assignments included; its other options are about the container, not the launch).
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Sequence
from shlex import quote as shlex_quote

from launchplan.errors import InputError
from launchplan.input import EXPECTED_LAUNCH, page_markup, shell_arrays, shell_branches, shell_vars
from launchplan.input.yaml_bound import check_expansion

#: ``NAME=value`` before the command: a shell environment assignment.
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: A Python interpreter, however it is spelled (``python``, ``python3.11``, a path, ``uv run``).
_PYTHON = re.compile(r"^(?:.*[/\\])?python(?:3(?:\.\d+)?)?(?:\.exe)?$")  # (C:\venv\...\python.exe)
#: ``sglang_router.launch_server`` (the router package's data-parallel launcher, which SGLang's
#: docs recommended for DP) parses SGLang's flags plus its own ``--router-*`` ones.
_ROUTER_MODULE = "sglang_router.launch_server"
_MODULES = frozenset({"sglang.launch_server", "sglang.launch_server.py", _ROUTER_MODULE})
_WRAPPERS = frozenset({"env", "exec", "nohup", "time"})
#: Programs that start the launcher in a container or a job: everything from one of them to
#: the launcher prefix is theirs (their image, ports, mounts), except environment options.
RUNNERS = frozenset({"docker", "podman", "nerdctl", "nvidia-docker", "apptainer", "singularity",
                     "srun", "enroot", "kubectl", "uv", "uvx", "conda", "mpirun", "sudo", "bwrap",
                     "systemd-run", "ray", "runai"})


def _is_runner(word: str) -> bool:
    """Whether ``word`` names one of ``RUNNERS``, by name or by path (``/usr/bin/docker``)."""
    return word.rsplit("/", 1)[-1] in RUNNERS
#: ``sglang serve`` inside a longer line (``uvx --from sglang sglang serve M``, or a table
#: row's or a sentence's inline code, ``| Launch | `sglang serve M` |``); its mix-up
#: ``sglang launch_server`` too, which is refused when read.
_SERVE = re.compile(r"(?:^|[\s/`])sglang\s+(?:serve|launch_server)(?:\s|$)")
#: A runner's option that sets one environment variable of the launch (``-e NAME=VALUE``).
_ENV_OPTIONS = frozenset({"-e", "--env"})


def looks_pasted(tokens: Sequence[str]) -> bool:
    """Whether ``tokens`` hold a launcher prefix or a whole command in one argument."""
    for at, t in enumerate(tokens):
        if at and " " in t and "\n" not in t and _a_value(tokens[at - 1]):
            continue  # a flag's value with a space in it (a served name, a JSON setting)
        if _is_command_token(t) or "\n" in t or (" " in t and _wordy(t)):
            return True
        if t[:1] == "#" and " " in t:  # a comment pasted ('# hello world'): no flag list
            return True
        # the manifest and Python readers load only for a token that may be one of theirs
        if " " in t and "sglang" in t:
            from launchplan.input.manifest import looks_like_manifest

            if looks_like_manifest(t):
                return True
        if ("Engine" in t or "Runtime" in t or "engine_kwargs" in t or "AppEnvironment" in t
                or "ServerArgs(" in t):
            from launchplan.input.engine_call import looks_like_engine_call

            if looks_like_engine_call(t):
                return True
    return False


def _named_by_code_blocks(token: str, error: InputError) -> InputError:
    """``error`` about a pasted page that starts no launch, naming what the page's code
    blocks run (``hf download``, ``sgl-omni serve``, ``curl``) rather than the first words
    of its sentences, which the shell would take for commands too; any other error, or a
    text without code blocks, as it is."""
    if error.subject != "the pasted text" or "```" not in token and "~~~" not in token:
        return error
    from launchplan.input.page_markup import code_blocks

    blocks = code_blocks(token)
    if blocks is None:
        return error
    try:
        _expanded([cleaned(blocks)])
    except InputError as named:
        return named if named.subject == error.subject else error
    return error


def pasted_manifest(token: str, cleaned_text: str) -> bool:
    """Whether the pasted ``token`` (``cleaned_text`` once its markup is off) is a manifest
    or exec-form array to read as one, not a page with prose around its blocks, nor a page
    whose shell and manifest blocks are each read as their own kind (``_page_parts``)."""
    return (is_manifest(cleaned_text) and not _prose_page(token, cleaned_text)
            and _page_parts(token) is None)


def _page_parts(token: str) -> tuple[list[tuple[str, int]], str, str] | None:
    """For a page whose code blocks launch in two kinds (a shell block, then a Compose
    file's or pod's YAML block: ``page_markup.mixed_page``), its launches in page order as
    ("shell" or "manifest", which of that kind, from 1), the page without its manifest
    blocks and the manifests as one text; None for any other text. A shell block's
    launches are counted in it alone; when they add up to another count than the page's
    shell part (a launch built across blocks), that part's launches stand at its first
    launching block."""
    if "sglang" not in token or ("```" not in token and "~~~" not in token):
        return None
    mixed = page_markup.mixed_page(token)
    if mixed is None:
        return None
    blocks, shell, manifests = mixed
    from launchplan.input.manifest import launch_total

    shell_total = launch_count([shell])
    counts = [launch_count([body]) if kind == "shell" else launch_total(body)
              for kind, body in blocks]
    if sum(n for (kind, _), n in zip(blocks, counts) if kind == "shell") != shell_total:
        first = next(at for at, (kind, _) in enumerate(blocks) if kind == "shell")
        counts = [shell_total if at == first else 0 if kind == "shell" else n
                  for at, ((kind, _), n) in enumerate(zip(blocks, counts))]
    order: list[tuple[str, int]] = []
    seen = {"shell": 0, "manifest": 0}
    for (kind, _), n in zip(blocks, counts):
        for _ in range(n):
            seen[kind] += 1
            order.append((kind, seen[kind]))
    return (order, shell, manifests) if order else None


def _page_part(tokens: Sequence[str], launch: int | None
               ) -> tuple[list[str], int | None, bool]:
    """``tokens`` with a page of shell and manifest blocks (``_page_parts``) replaced by
    the part that holds its ``launch``-th launch, the launch's number within that part, and
    whether that part is the manifests; the tokens as they are otherwise."""
    out = list(tokens)
    for at, token in enumerate(tokens):
        parts = _page_parts(token)
        if parts is None:
            continue
        order, shell, manifests = parts
        kind, which = order[min(max(launch or 1, 1), len(order)) - 1]
        out[at] = shell if kind == "shell" else manifests
        return out, which, kind == "manifest"
    return out, launch, False


def _prose_page(token: str, cleaned_text: str) -> bool:
    """Whether ``token`` is a web page (code fences around its blocks, none of which
    starts a launch, and prose between them) that no YAML parser reads whole: its prose is
    no part of a manifest, so a line of it that looks like a key (``spec:``) does not make
    the page one. It is read as a page (its code blocks), not as a manifest that fails to
    load. A fenced manifest that launches and fails to load is still reported as one."""
    if "```" not in token and "~~~" not in token:
        return False
    from launchplan.input.page_markup import prose_around_blocks

    if not prose_around_blocks(token):
        return False
    import yaml

    try:
        list(yaml.load_all(cleaned_text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    except Exception:  # yaml.YAMLError, or a value YAML cannot build
        return True
    return False


def _a_value(previous: str) -> bool:
    """Whether the word after ``previous`` is its value (``previous`` a flag reading one)."""
    if not previous.startswith("--") or "=" in previous:
        return False
    from launchplan.input.cli import takes_value

    return takes_value(previous)


def unpaste(tokens: Sequence[str], *, launch: int | None = None,
            notes: list[str] | None = None) -> tuple[list[str], list[str]]:
    """(argv, env assignments): the launch's own flags in order, and ``KEY=VALUE`` pairs.

    Tokens that hold several words (a whole pasted command in one argument) are split as a
    POSIX shell would, after joining backslash-newline continuations. The launcher prefix
    (``python -m sglang.launch_server``, ``sglang serve``) is dropped wherever it stands,
    and assignments right before it are kept as the environment the launch assumes. A
    pasted script with several launches gives its ``launch``-th (from 1; the first by
    default). What a reader should know about how the text was read goes into ``notes``.
    """
    words: list[str] = []
    env: list[str] = []
    starts: set[int] = set()  # where each token's words begin: a command's first word there
    tokens, launch, _ = _page_part(tokens, launch)
    for at, token in enumerate(cleaned(t, notes) for t in tokens):
        starts.add(len(words))
        if at and "\n" not in token and _a_value(tokens[at - 1]):
            words.append(token)  # a flag given after the paste, and its value as given
        elif "\n" in token and _dockerfile(token):  # FROM ... ENV ... CMD [...]
            from launchplan.input.dockerfile import dockerfile_launch, shell_script

            found, assigned = dockerfile_launch(token)
            script = shell_script(found)
            if script is not None:  # the shell expands the image's ENV values in it
                values = dict(pair.split("=", 1) for pair in assigned)
                words.extend(shell_vars.expand(w, values) for w in _split(script))
            else:
                words.extend(_from_launcher(found))
            env.extend(assigned)
        elif _engine_call(token):  # a Python script calling sgl.Engine(...)
            from launchplan.input.engine_call import engine_launch, page_launches

            mixed = page_launches(token)  # a page with an Engine block and a server launch
            if mixed is not None:
                order, shell = mixed
                _, kind, which = order[min(max(launch or 1, 1), len(order)) - 1]
                if kind == "shell":
                    words.extend(_expanded([shell], which, notes))
                    continue
                launch = which
            flags, assigned = engine_launch(token, launch, notes)
            words.extend(flags)
            env.extend(assigned)
        elif pasted_manifest(tokens[at], token):
            from launchplan.input.manifest import launch_in

            found, assigned = launch_in(token, launch, notes)  # a container spec, an exec form
            words.extend(_from_launcher(found))
            env.extend(assigned)
        elif (config := _pasted_config(token)) is not None:  # a --config file's content
            words.extend(config[0])
            env.extend(config[1])
        elif (picked := _python_literal(token, notes, launch)) is not None:
            from launchplan.input.python_launch import script_environment

            found, within = picked  # launch_server_cmd("..."), an argv list, a docstring
            if isinstance(found, str):
                words.extend(_split(found, within))
            else:  # an argv list: a container run around it keeps its -e NAME=VALUE
                launch_words = _from_launcher(found)
                before = found[:len(found) - len(launch_words)]
                if (runner := _runner_start(before)) is not None:
                    env.extend(_runner_env(before[runner:]))
                words.extend(launch_words)
            env.extend(script_environment(token, launch))
        elif _sagemaker(token):  # SM_SGLANG_* variables for SageMaker's SGLang image
            from launchplan.input.sagemaker_env import sagemaker_launch

            found, assigned = sagemaker_launch(token)
            words.extend(found)
            env.extend(assigned)
            if notes is not None:
                notes.append("no launch command: the SM_SGLANG_* variables are read as "
                             "SageMaker's SGLang image reads them, one flag each (--port "
                             "8080, --host 0.0.0.0 and --model-path /opt/ml/model added "
                             "where they set none)")
        elif (listed := _yaml_flag_list(token)) is not None:  # a container's args: alone
            words.extend(listed)
        else:
            if token.lstrip()[:1] == "#":
                _refuse_comments_only(token)
            if "\n+" in tokens[at] and "--" in tokens[at]:
                _refuse_diff_without_launch(tokens[at])  # as pasted: its + marks still on
            _refuse_plain_yaml(token)
            _refuse_built_command(token)
            try:
                words.extend(_expanded([token], launch, notes))
            except InputError as exc:
                raise _named_by_code_blocks(tokens[at], _printed_lines(exc, tokens[at])) \
                    from None
            words = _with_pasted_config(words, token, notes)
    argv: list[str] = []
    i = 0
    while i < len(words):
        # the word before a token's first is another token's (an option's value given
        # before the paste, ``--format json``), no part of its command
        end = _prefix_end(words, i, first=i in starts)
        if end is None:
            argv.append(words[i])
            i += 1
            continue
        runner = _runner_start(argv)
        if runner is not None:  # a container or job around the launch: keep its -e only
            env.extend(_runner_env(argv[runner:]))
            del argv[runner:]
        # assignments (and wrappers) right before the launcher belong to it
        at = len(env)
        while argv and (_ASSIGNMENT.match(argv[-1]) or argv[-1] in _WRAPPERS):
            word = argv.pop()
            if _ASSIGNMENT.match(word):
                env.insert(at, word)
        if words[end - 1] == "launch_server" and _is_sglang_cli(words[end - 2]):
            raise InputError(
                f"{words[end - 2]} launch_server", "", message=(
                    f"{words[end - 2]} launch_server: expected a subcommand of SGLang's console "
                    "script (serve, generate or version), got 'launch_server', which it refuses "
                    "before reading any flag; write sglang serve ... or python -m "
                    "sglang.launch_server ..."))
        length = len(words)
        if words[end - 1] == "serve":
            words = [*words[:end], *_serve_arguments(words[end:])]
        elif words[end - 1] == _ROUTER_MODULE:
            server, workers = _router_server_words(words[end:])
            words = [*words[:end], *server]
            if notes is not None and workers is not None:
                notes.append(_router_note(workers))
        elif words[end - 1].startswith("sglang.bench"):  # a benchmark: its server flags
            from launchplan.input import benchmarks

            server, own = benchmarks.server_words(words[end - 1], words[end:])
            words = [*words[:end], *server]
            if notes is not None:
                notes.append(benchmarks.note(words[end - 1], own))
        if len(words) != length:  # the later tokens' words moved with what went or came
            starts = {n if n <= end else n + len(words) - length for n in starts}
        i = end
    return argv, _plain_assignments(env, notes)


def _plain_assignments(env: list[str], notes: list[str] | None) -> list[str]:
    """``env`` with an assignment a rich-text editor wrapped in typographic quotes
    (``--env “HF_TOKEN=<secret>”``) read as the assignment inside them, with a note: the
    shell would keep the quotes, making a variable no program reads."""
    from launchplan.input.typography import unquoted

    out: list[str] = []
    for assignment in env:
        inner = unquoted(assignment)
        if inner is not None and _ASSIGNMENT.match(inner):
            if notes is not None:
                notes.append(f"the environment assignment {assignment} is wrapped in "
                             f"typographic quotes (a web page's or editor's): read as {inner} "
                             "(the shell would keep the quotes in the variable's name; type "
                             "plain quotes)")
            assignment = inner
        out.append(assignment)
    return out


#: SGLang's spellings of its data-parallel size (which the router launcher reads as workers).
_DP_FLAGS = ("--dp-size", "--dp", "--data-parallel-size")


def _router_server_words(words: list[str]) -> tuple[list[str], str | None]:
    """(one worker's SGLang flags, the worker count given) from the router launcher's words.

    Its own ``--router-*`` options (and their values: the words up to the next flag) are the
    router's. Its ``--dp-size N`` starts N SGLang servers, each a copy of the same flags with
    its data-parallel size set to 1, its own port and the next ``--tp-size`` GPUs
    (sgl-project/sglang, sgl-router/py_src/sglang_router/launch_server.py,
    ``launch_server_process``): the plan is one such server, so the size is taken out.
    """
    out: list[str] = []
    workers: str | None = None
    skipping = False
    at = 0
    while at < len(words):
        word = words[at]
        name, eq, value = word.partition("=")
        at += 1
        if name in _DP_FLAGS:
            if not eq and at < len(words) and not words[at].startswith("-"):
                value = words[at]
                at += 1
            workers = value
            skipping = False
        elif word.startswith("--router-"):
            skipping = "=" not in word
        elif skipping and not word.startswith("-"):
            continue
        else:
            skipping = False
            out.append(word)
    return out, workers


def _router_note(workers: str) -> str:
    servers = "one SGLang server" if workers == "1" else f"{workers} separate SGLang servers"
    return (f"sglang_router.launch_server --dp-size {workers} starts {servers} behind the "
            f"router (each on its own --tp-size GPUs, {workers} x --tp-size in all, with "
            "--dp-size 1 and its own port): one of them is planned. This is the router's data "
            "parallelism, whole replicas; it is not SGLang's in-server --dp-size nor "
            "attention DP (--attn-dp-size)")


def _serve_arguments(words: list[str]) -> list[str]:
    """``sglang serve``'s own reading of its arguments before SGLang's parser sees them:
    a first word that is not a flag is the model (``sglang serve Qwen/Qwen3-8B --tp 2``),
    and ``--model-type`` picks the serving backend (the language-model one is planned)."""
    out: list[str] = []
    at = 0
    while at < len(words):
        word = words[at]
        if word == "--model-type" or word.startswith("--model-type="):
            value = word.partition("=")[2] if "=" in word else (
                words[at + 1] if at + 1 < len(words) else "")
            if value not in ("auto", "llm"):
                raise InputError("--model-type", "auto or llm (launchplan plans SGLang's "
                                 "language-model server)", value)
            at += 1 if "=" in word else 2
            continue
        out.append(word)
        at += 1
    if out and not out[0].startswith("-"):
        out.insert(0, "--model-path")
    if not _names_model(out):
        config = next((out[n + 1] for n, w in enumerate(out[:-1]) if w == "--config"), None)
        where = "" if config is None else (f" (it does not look in --config {config}, where "
                                           "python -m sglang.launch_server finds it)")
        raise InputError("--model-path", "", message=(
            "--model-path: expected the model on `sglang serve`'s own command line (sglang "
            f"serve MODEL, or --model-path/--model MODEL spelled out), got none{where}: the "
            "serve command looks for it before SGLang's parser reads --config or expands an "
            "abbreviation"))
    return out


def _names_model(words: list[str]) -> bool:
    """Whether ``sglang serve`` finds a model path among ``words`` (a positional model already
    made ``--model-path``): the exact spellings ``--model-path``/``--model``, with a value
    after them or after ``=``. A help request and a word the pasted text leaves open (it may
    expand to the flag) count as found: the first prints help, the second is unknown."""
    for n, word in enumerate(words):
        if word in ("--model-path", "--model") and n + 1 < len(words):
            return True
        if word.startswith(("--model-path=", "--model=")) or word in ("-h", "--help") \
                or "$" in word:
            return True
    return False


def launch_count(tokens: Sequence[str]) -> int:
    """How many launcher commands a pasted shell text holds (a node-per-command script, a
    prefill and a decode server, workers started with ``&``): one of them is planned."""
    count = 0
    for raw, token in zip(tokens, map(cleaned, tokens)):
        if not ("\n" in token or (" " in token and _wordy(token))):
            continue
        if (parts := _page_parts(raw)) is not None:
            count += len(parts[0])
            continue
        if pasted_manifest(raw, token):
            from launchplan.input.manifest import launch_total

            count += launch_total(token)
            continue
        if _engine_call(token):
            from launchplan.input.engine_call import engine_total, page_launches

            mixed = page_launches(token)
            count += len(mixed[0]) if mixed is not None else engine_total(token)
            continue
        if _dockerfile(token):
            continue
        from launchplan.input.python_launch import literal_total

        if total := literal_total(token):  # a Python script's launch literals, as unpaste
            count += total  # reads them: Popen argv lists, launch_server_cmd strings,
            continue  # a usage docstring's command lines
        try:
            words = _shell_words(token)
        except InputError:
            continue
        segments = _image_launches(_segments(words))
        ordered = _launch_order(segments)
        count += len(ordered) or len(_quoted_launches(segments))
    return count


def launch_summaries(tokens: Sequence[str], count: int) -> list[str]:
    """One short line per launch of a pasted text with ``count`` of them: the flags that tell
    it from the others (its role, rank or port), so a reader can pick one with --launch."""
    pasted = [token for token in tokens if looks_pasted([token])]  # not flags given after
    unread: dict[int, str] = {}
    pairs: list[dict[str, str]] = []
    for n in range(1, count + 1):
        try:
            pairs.append(_flag_values(unpaste(pasted, launch=n)[0]))
        except InputError as exc:  # planned alone, it is reported; listed, it is named
            unread[n - 1] = exc.subject
            pairs.append({})
    shown: list[str] = []
    for n, own in enumerate(pairs):
        if n in unread:
            shown.append(f"[{n + 1}] not readable ({unread[n]})")
            continue
        differ = [flag for flag, value in own.items()
                  if any(other.get(flag, None) != value for other in pairs)]
        differ.sort(key=lambda flag: _ROLE_FLAGS.index(flag) if flag in _ROLE_FLAGS
                    else len(_ROLE_FLAGS))  # stable: the rest keep their order
        distinct = [f"{flag} {own[flag]}".rstrip() for flag in differ]
        text = " ".join(distinct[:3]) + (" …" if len(distinct) > 3 else "")
        if not text and not any(other == own for at, other in enumerate(pairs) if at != n):
            # a launch with fewer flags than another (pure TP beside TP + DP attention):
            # what it goes without tells it apart
            lacking = list(dict.fromkeys(flag for other in pairs for flag in other
                                         if flag not in own))
            text = "without " + " ".join(lacking[:3]) + (" …" if len(lacking) > 3 else "")
        same = next((at for at, other in enumerate(pairs) if at != n and other == own
                     and at not in unread), None)
        twin = f" ([{same + 1}])" if same is not None else ""
        shown.append(f"[{n + 1}] {text or 'the same flags as another' + twin}")
    return shown


#: The flags that name a launch's role among several, shown first.
_ROLE_FLAGS = ("--disaggregation-mode", "--node-rank", "--model-path", "--port",
               "--base-gpu-id")


def _flag_values(argv: list[str]) -> dict[str, str]:
    """A launch's flags and the words after each (``""`` for a switch), in order."""
    out: dict[str, str] = {}
    at = 0
    while at < len(argv):
        name, eq, value = argv[at].partition("=")
        at += 1
        if not name.startswith("-"):
            continue
        values = [value] if eq else []
        while not eq and at < len(argv) and not argv[at].startswith("-"):
            values.append(argv[at])
            at += 1
        out[name] = " ".join(values)
    return out


def cleaned(token: str, notes: list[str] | None = None) -> str:
    """``token`` as the command it shows: Windows line ends made plain, a web page's
    Markdown around it (code fences, blockquote markers) taken off, a PowerShell or
    ``cmd.exe`` launch rewritten as the POSIX one it stands for, a systemd unit, a
    Makefile, a justfile, an srt-slurm recipe or cloud-init user data as the script it
    amounts to (its
    environment exported, then its commands, make's references or just's ``{{...}}``
    expanded), and a manifest a
    here-document feeds to ``kubectl apply -f -`` as that manifest."""
    if " # " in token and "sglang" in token and "# " in token:
        token = _flattened_snippets(token, notes)  # '# Install: pip ... # Start: python ...'
    if "<" in token and "sglang" in token:  # a table cell's ``<br>``: the lines it shows
        from launchplan.input.page_markup import html_breaks, html_code_blocks

        token = html_code_blocks(token) or html_breaks(token)  # an HTML page's <pre> blocks
    if ("spawn" in token or "execFile" in token) and "[" in token:  # Node: spawn(P, [..])
        from launchplan.input.process_builders import looks_like_node_spawn, node_as_shell

        if looks_like_node_spawn(token):
            token = node_as_shell(token)
    if "Command::new(" in token:  # Rust: Command::new("python3").arg("-m")...
        from launchplan.input.process_builders import as_shell, looks_like_command_builder

        if looks_like_command_builder(token):
            return as_shell(token)
    if "+" in token and "sglang" in token:  # Go/Java/JS: "python3 -m ... " + "--tp 2"
        from launchplan.input.concatenation import joined, joins_literals

        if joins_literals(token):
            token = joined(token)
    if 'r#"' in token and "sglang" in token:  # Rust: a script in a raw string r#"..."#
        from launchplan.input.concatenation import raw_strings_apart

        token = raw_strings_apart(token)
    if "sglang" in token:  # JS/Rust/C#: execSync("..."), "...".to_string(), format!(...)
        from launchplan.input.concatenation import code_literals, literal_launches

        if code_literals(token):
            token = literal_launches(token)
    if "\n" not in token.strip() and "\\" in token and "sglang" in token:  # JSON-escaped
        from launchplan.input.page_markup import json_escaped

        decoded = json_escaped(token)
        if decoded is not None:
            token = decoded
            if notes is not None:
                notes.append("the pasted text is JSON-escaped (its line ends written as "
                             "\\r\\n or \\n): read as the text it holds")
    if "\n" not in token and not token.lstrip().startswith(">") and "](" not in token:
        return token
    token = token.replace("\r\n", "\n")  # a file saved on Windows
    if "pkgs" in token or "oci-containers" in token:  # a NixOS module that runs SGLang
        from launchplan.input.nix_module import as_script as nix_script
        from launchplan.input.nix_module import looks_like_nix_module

        if looks_like_nix_module(token) and (script := nix_script(token)) is not None:
            return script
    if token.startswith("---\n"):  # a page's YAML front matter, then its Markdown body
        from launchplan.input.page_markup import without_front_matter

        token = without_front_matter(token)
    from launchplan.input.page_markup import unmarked
    from launchplan.input.powershell import as_posix, looks_like_powershell

    if ">>>" in token:  # a Python prompt's session (a doctest, a README's example)
        token = _without_prompts(token)
    if "# " in token and ("```" in token or "~~~" in token):  # a block of a root session
        token = _root_prompted_blocks(token, notes)
    token = unmarked(token)
    if ("Command:" in token or "Args:" in token) and "sglang" in token:
        described = _described_pod(token)
        if described is not None:  # ``kubectl describe pod``: its containers' argv listed
            if notes is not None:
                notes.append("the pasted text is kubectl describe output: each container's "
                             "Command and Args lines are its words, one a line, and its "
                             "Environment lines the variables it starts with")
            return described
    if "kubernetes_" in token and "container" in token:  # Terraform's Kubernetes provider
        from launchplan.input import terraform

        if terraform.looks_like_terraform(token) and (
                declared := terraform.as_manifest(token)) is not None:
            if notes is not None:
                notes.append("the pasted text is Terraform (HCL): each container of its "
                             "kubernetes_* resources is read as the Kubernetes container it "
                             "declares (a var.NAME value is the caller's, left open)")
            return declared
    if "<<" in token:  # cat <<EOF | kubectl apply -f -: the manifest the cluster runs
        from launchplan.input.heredoc import applied_manifest

        manifest = applied_manifest(token)
        body = manifest.body if manifest is not None else ""
        if manifest is not None and manifest.expands and "$" in body:
            from launchplan.input.heredoc import filled

            body = filled(body, _script_values(manifest.before))
        if "sglang" in body:
            if notes is not None:
                notes.append("the pasted script hands a here-document to kubectl apply: "
                             "that manifest is read as the launch"
                             if manifest.runs == "kubectl apply" else
                             "the pasted script writes a Compose file by a here-document and "
                             f"starts it with {manifest.runs}: that file is read as the launch")
            return body
    if "\n\t" in token and "sglang" in token:  # a Makefile: make expands, then the shell runs
        from launchplan.input import makefile

        if makefile.looks_like_makefile(token):
            return makefile.as_script(token)
    if token.lstrip().startswith("#cloud-config"):  # a VM's user data: its files and runcmd
        from launchplan.input import cloud_init

        if cloud_init.looks_like_cloud_config(token):
            script = cloud_init.as_script(token)
            if script is not None:
                return script
    if "{{" in token and "sglang" in token:  # a justfile: just interpolates, then the shell
        from launchplan.input import justfile

        if justfile.looks_like_justfile(token):
            return justfile.as_script(token)
    if "sglang_config" in token or ("roles:" in token and "engine:" in token):
        # an srt-slurm recipe: the workers srtctl starts from it
        from launchplan.input import srt_recipe

        if srt_recipe.looks_like_recipe(token):
            script = srt_recipe.as_script(token)
            if script is not None:
                if notes is not None:
                    notes.append("the pasted text is an srt-slurm recipe: each worker mode of "
                                 "its sglang_config (or role of its 2.0 layout) is read as the "
                                 "worker srtctl starts, with that mode's environment")
                return script
    if "[program:" in token:  # a supervisord config: its programs' commands and environment
        from launchplan.input.systemd_unit import looks_like_supervisor, supervisor_script

        if looks_like_supervisor(token):
            token, found = supervisor_script(token)
            if notes is not None:
                notes.extend(found)
            return token
    if "=" in token and "<<" not in token:
        from launchplan.input.systemd_unit import as_script, looks_like_unit

        if looks_like_unit(token) and not _python_holding(token):
            token, found = as_script(token)
            if notes is not None:
                notes.extend(found)
            return token
    if "!" in token and "sglang" in token:  # a notebook cell's ``!python -m ... {port}``
        from launchplan.input.notebook_cells import ipython_escapes

        escaped = ipython_escapes(token)
        if escaped is not None:
            return escaped
    if " `" in token and "sglang" in token:
        token = _SPACED_CODE_SPAN.sub(r"\1`\2`", token)
    return as_posix(token) if looks_like_powershell(token) else token


#: A one-line Markdown inline-code span whose closing backtick follows a blank (a launch
#: copied from a terminal with its trailing space, `` `sglang serve M --tp 8 ` ``): the
#: same span as without the blank, not PowerShell's backtick continuation, which nothing on
#: its line opens. Only a span that holds a launch is rewritten.
_SPACED_CODE_SPAN = re.compile(r"^([^`\n]*?(?<![^ \t\n]))`(?!`)([^`\n]*?sglang(?:\.launch_server|"
                               r"_router\.launch_server|\s+serve\b)[^`\n]*?)[ \t]+`[ \t]*$",
                               re.MULTILINE)


#: A key of ``kubectl describe pod``'s container section that opens an indented list below
#: it (``Command:``, ``Args:``, ``Environment:``), or holds its one value on the line.
_DESCRIBED_KEY = re.compile(r"^(?P<indent>[ \t]+)(?P<key>Command|Args|Environment|Image):"
                            r"[ \t]*(?P<rest>.*?)[ \t]*$")
#: An ``Environment:`` line: a variable and its value (``NAME:  value``).
_DESCRIBED_ENV = re.compile(r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*):[ \t]*(?P<value>.*?)[ \t]*$")
#: An environment value kubectl describes rather than shows: a Secret's or ConfigMap's key
#: (``<set to the key 'token' in secret 'hf'>``) or a field of the pod (``(v1:status.podIP)``).
_DESCRIBED_REFERENCE = re.compile(r"^(?:<set to the key .*>|\(v1:[^)]*\))(?:\s+Optional:.*)?$")
#: Kubernetes' reference to a container variable inside ``command``/``args``: ``$(NAME)``.
_DEPENDENT = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def _described_pod(token: str) -> str | None:
    """The containers of ``kubectl describe pod`` output as shell lines, one per container
    that names SGLang (its variables as assignments before its words), or None for text of
    another kind. Describe lists each container's ``Command`` and ``Args`` one word a line
    below the key; read as a script, each such line would be a command of its own, and the
    launcher's line one with no flags at all."""
    lines = token.split("\n")
    if not any(line.strip() in ("Containers:", "Init Containers:") for line in lines) and not any(
            (m := _DESCRIBED_KEY.match(line)) and m["key"] == "Image" for line in lines):
        return None
    containers: list[dict[str, list[str]]] = []
    at = 0
    while at < len(lines):
        match = _DESCRIBED_KEY.match(lines[at])
        at += 1
        if match is None:
            continue
        if match["key"] == "Image":
            containers.append({"Command": [], "Args": [], "Environment": []})
            continue
        if match["rest"] or not containers:
            continue  # ``Environment:  <none>``, or a key outside a container
        depth = len(match["indent"].expandtabs())
        block: list[str] = []
        while at < len(lines) and lines[at].strip() and (
                len(lines[at]) - len(lines[at].lstrip())) > depth:
            block.append(lines[at].strip())
            at += 1
        containers[-1][match["key"]] = block
    found = [_described_container(c) for c in containers
             if any("sglang" in w for w in c["Command"] + c["Args"])]
    return "\n".join(found) if found else None


def _described_container(container: dict[str, list[str]]) -> str:
    """One described container as the shell line that starts it with its environment: the
    values Kubernetes would hand it (``$(NAME)`` references in its words filled from them),
    without those describe only names (a Secret's key, a pod field)."""
    env: dict[str, str] = {}
    for line in container["Environment"]:
        match = _DESCRIBED_ENV.match(line)
        if match is not None and not _DESCRIBED_REFERENCE.match(match["value"]):
            env[match["name"]] = match["value"]
    words = container["Command"] + container["Args"]
    shells = ("sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/env bash")
    if len(words) > 2 and words[0] in shells and words[1] in ("-c", "-lc", "-ec"):
        words = words[:2] + ["\n".join(words[2:])]  # the script's lines, one argument
    words = [_DEPENDENT.sub(lambda m: env.get(m[1], m[0]), w) for w in words]
    return " ".join([shlex_quote(f"{k}={v}") for k, v in env.items()]
                    + [shlex_quote(w) for w in words])


def _with_pasted_config(words: list[str], token: str, notes: list[str] | None) -> list[str]:
    """``words`` with ``--config FILE`` replaced by the config the paste itself writes out
    (the YAML block, then the launch that names it), when FILE is not on this machine:
    SGLang puts a config's flags before the command line's, so those come first."""
    if "--config" not in words:
        return words
    at = words.index("--config")
    if at + 1 >= len(words):
        return words
    import os

    path = words[at + 1]
    name = path.rsplit("/", 1)[-1]
    # a script that writes the file itself (``envsubst > config.yaml``, ``cat <<EOF >
    # config.yaml``) runs with that file, never with one that sits where launchplan runs
    writer = _config_writer(token, name) if name and token.count(name) > 1 else None
    if writer is None:
        if ": " not in token:
            return words
        if os.path.exists(path):
            if notes is not None and "\n" in token:
                notes.append(f"--config {path}: the file of that name on this machine is "
                             "read (the pasted text neither holds nor writes it)")
            return words
    from launchplan.input.config_paste import config_block, config_flags
    from launchplan.input.heredoc import split_off, written

    text = written(split_off(token)[1], path)  # cat > config.yaml << EOF ... EOF
    flags = config_flags(text) if text is not None else (
        config_block(token) if ": " in token else None)
    if flags is None:
        if writer is None:
            return words
        shown = writer if len(writer) <= 60 else writer[:57] + "..."
        raise InputError("--config", "a config file the pasted text holds", path,
                         f"the pasted script writes it itself ({shown}) from text the paste "
                         f"leaves out, so a {name} on this machine is not read for it: paste "
                         "the file's content with the script")
    if notes is not None:
        how = "the here-document that writes it" if text is not None else (
            "the config written out in the pasted text")
        where = (f"is written by the pasted script (the {name} on this machine is not read)"
                 if writer is not None and os.path.exists(path) else "is not on this machine")
        notes.append(f"--config {path} {where}: {how} is read as that file")
    start = next((i for i in range(at, -1, -1) if _prefix_end(words, i) is not None), None)
    if start is None:
        return [*flags, *words[:at], *words[at + 2:]]
    end = _prefix_end(words, start) or start
    if words[end - 1] == "serve":
        # ``sglang serve`` looks for its model (a first positional word) before it reads
        # any config: one set only in the file stops it, on disk or written out in the paste
        rest = _serve_arguments(words[end:])
        given = rest.index("--config")
        return [*words[:end], *flags, *rest[:given], *rest[given + 2:]]
    return [*words[:end], *flags, *words[end:at], *words[at + 2:]]


def _config_writer(token: str, name: str) -> str | None:
    """The line of the pasted script that writes the file ``name`` (a redirect to it, ``tee``,
    a ``cp``/``mv`` to it), stripped; None when no line does."""
    target = r"""['"]?(?:[^\s'"]*/)?""" + re.escape(name) + r"""['"]?(?=[\s;&|)]|$)"""
    found = re.search(r"(?m)^[ \t]*(.*?(?:>>?|\btee(?:[ \t]+-a)?)[ \t]*" + target + r".*?)[ \t]*$"
                      r"|^[ \t]*((?:cp|mv|install|ln)\b[^\n]*[ \t]" + target + r")[ \t]*$",
                      token)
    return None if found is None else (found.group(1) or found.group(2)).strip()


#: A top-level ``key:`` of a YAML mapping (a camelCase or snake_case key too).
_YAML_KEY = re.compile(r"^[A-Za-z_][\w.-]*:(?:[ \t]|$)")


def _yaml_flag_list(token: str) -> list[str] | None:
    """The flags of a YAML list pasted alone, or under an ``args:`` key (a container's
    arguments cut out of its manifest, one item a line): each item one argument, as the
    container gets them. None for any other text."""
    if "\n" not in token or "- -" not in token:
        return None
    import yaml

    try:
        data = yaml.safe_load(textwrap.dedent(token))
    except yaml.YAMLError:
        return None
    if isinstance(data, dict) and list(data) == ["args"]:
        data = data["args"]
    if not (isinstance(data, list) and data and all(
            isinstance(item, (str, int, float)) and not isinstance(item, bool) for item in data)
            and str(data[0]).startswith("--")):
        return None
    check_expansion(data, "the pasted YAML")
    return [str(item) for item in data]


def _refuse_built_command(token: str) -> None:
    """Refuse program code that builds the launch in a string by appending literals to a
    variable (``cmd += 'sglang serve ...';``): read as shell text, its first piece
    (``sglang serve`` and the code's escape) is a launch of a model named ``\\n``, and the
    flags of every later piece are lost without a word."""
    if " +=" not in token:
        return
    from launchplan.input.concatenation import built_by_appends

    name = built_by_appends(token)
    if name is None:
        return
    expected = EXPECTED_LAUNCH
    raise InputError("the pasted text", expected, message=(
        f"the pasted text: expected {expected}, got program code that builds the command in "
        f"a string ({name} += '...'), adding pieces under its own conditions and filling "
        "values it works out when it runs: launchplan does not run it; paste the command "
        "it generates"))


def refuse_values_mapping(token: str) -> None:
    """Refuse ``token`` as a YAML mapping that starts no launch (a chart's values file)
    when it is one and no Kubernetes object or Compose file: the manifest reader, finding
    no container in it, names it so rather than as a manifest of none."""
    _refuse_plain_yaml(token, objects=False)


def _refuse_plain_yaml(token: str, *, objects: bool = True) -> None:
    """Refuse a YAML mapping that starts no launch (a Helm chart's ``values.yaml`` with
    ``modelName:`` and ``extraArgs:``): read as shell words, its keys and list dashes would
    be taken for a command line and its flags for the launch's, misnamed (``--tp-size:
    expected an integer, got '-'``). Its templates make the launch from it, not the shell.
    Without ``objects``, a Kubernetes object or a Compose file is left to the manifest
    reader's own message (its containers), only another mapping refused here."""
    if "\n" not in token or ":" not in token or _LAUNCHER_WORD.search(token):
        return
    lines = [line for line in token.split("\n") if line.strip()
             and not line.lstrip().startswith("#")]
    top = [line for line in lines if not line[:1].isspace() and not line.startswith("-")]
    if len(top) < 2 or not all(_YAML_KEY.match(line) for line in top):
        return
    import yaml

    try:
        data = yaml.safe_load(token)
    except yaml.YAMLError:
        return
    if not isinstance(data, dict) or not objects and ("kind" in data or "services" in data):
        return
    check_expansion(data, "the pasted YAML")
    keys = ", ".join(str(k) for k in list(data)[:4]) + (", …" if len(data) > 4 else "")
    # a list of flags, or a block of them (``extraArgs: |`` then ``--tp 8 \``)
    flags = any(re.match(r"^\s*(?:-\s*)?[\"']?--[a-z]", line) for line in lines)
    helm = "kind" not in data and (_HELM.search(token) is not None or "{{" in token
                                   or _helm_values(data))
    hint = (" (a Helm chart's values file: its templates make the launch from these values; "
            "paste the output of helm template CHART -f values.yaml)") if helm else ""
    if not hint and flags:  # flags kept as data, with no sign of a chart: a tool's config
        hint = _flag_mapping_hint(data)
    if not hint and "kind" in data:  # a Kubernetes object: name what its containers run
        from launchplan.input.manifest import container_programs

        runs = list(dict.fromkeys(container_programs(data)))
        hint = (": its containers run " + ", ".join(runs[:3])
                + (", …" if len(runs) > 3 else "")) if runs else ""
    expected = EXPECTED_LAUNCH
    raise InputError("the pasted text", expected,
                     message=f"the pasted text: expected {expected}, got a YAML mapping "
                             f"({keys}) that starts none{hint}")


def _flag_mapping_hint(data: dict[object, object]) -> str:
    """What a YAML mapping holding SGLang flags as data is, where no Helm trait says it is a
    chart's values (a benchmark sweep's config, an in-house launcher's): the tool that reads
    it makes the launches. SGLang's ``--config`` file is a flat mapping keyed without the
    dashes (``tp-size: 2``), so a ``--flag:`` key or a nested one makes none."""
    where, found = _flags_held(data)
    shown = ", ".join(found[:3]) + (", …" if len(found) > 3 else "")
    return (f": its {where or 'keys'} hold{'s' * bool(where)} SGLang flags as data ({shown}), "
            "which the tool reading this file (a benchmark sweep, a launcher script) turns "
            "into launches; paste the launch it makes, or give those flags on the command "
            "line (it is no --config file either: that one is a flat mapping keyed without "
            "the dashes, as tp-size: 2)")


def _flags_held(data: object, path: str = "") -> tuple[str, list[str]]:
    """(the dotted key path, the flags) of the first mapping keyed by flags (``--tp-size:
    2``) or list of flag words in ``data``; ("", []) when none is."""
    if isinstance(data, dict):
        keys = [str(k) for k in data if str(k).startswith("--")]
        if keys:
            return path, keys
        for key, value in data.items():
            found = _flags_held(value, f"{path}.{key}" if path else str(key))
            if found[1]:
                return found
    elif isinstance(data, list):
        words = [w for item in data if isinstance(item, str) for w in item.split()
                 if w.startswith("--")]
        if words:
            return path, words
    elif isinstance(data, str) and "--" in data:
        return path, [w for w in data.split() if w.startswith("--")]
    return "", []


#: A values file's comment naming the tool that renders it (``helm install ... -f ...``).
_HELM = re.compile(r"^\s*#.*\bhelm\b", re.MULTILINE | re.IGNORECASE)


def _helm_values(data: dict[object, object], depth: int = 0) -> bool:
    """Whether a mapping (or one nested in it, two levels down) is written as Helm charts'
    values are: ``image:`` a mapping with a ``repository:`` (a container spec's is one
    string), or the ``extraArgs:`` a chart's template appends to its launch."""
    image = data.get("image")
    if isinstance(image, dict) and "repository" in image or "extraArgs" in data:
        return True
    return depth < 2 and any(isinstance(v, dict) and _helm_values(v, depth + 1)
                             for v in data.values())


def _pasted_config(token: str) -> tuple[list[str], list[str]] | None:
    """(flags, env) of a pasted ``--config`` file's content (``model-path: M``, ``tp-size:
    4``), with the ``export NAME=VALUE`` lines before it; None for any other text. A
    comment line naming the launcher (``# Start with: python -m sglang.launch_server
    --config ...``) runs nothing, so it does not make the text a script."""
    if "\n" not in token or ": " not in token:
        return None
    code = [line for line in token.split("\n") if not line.lstrip().startswith("#")]
    if launches_sglang(" ".join(code).split()):
        return None
    from launchplan.input.config_paste import pasted_config

    return pasted_config(token)


def _engine_call(token: str) -> bool:
    if not any(word in token for word in ("Engine", "Runtime", "engine_kwargs",
                                          "AppEnvironment", "ServerArgs(")):
        return False  # an engine call, a Ray config of one, a Flyte SGLang app, a server
        # started from the ServerArgs(...) the script builds
    from launchplan.input.engine_call import looks_like_engine_call

    return looks_like_engine_call(token)


def _sagemaker(token: str) -> bool:
    """Whether ``token`` configures SageMaker's SGLang image (``SM_SGLANG_*`` variables)
    and names no launcher of its own, which would be the launch instead."""
    if "SM_SGLANG_" not in token or _LAUNCHER_WORD.search(token):
        return False
    from launchplan.input.sagemaker_env import configures_sagemaker

    return configures_sagemaker(token)


def _dockerfile(token: str) -> bool:
    if "sglang" not in token:
        return False
    from launchplan.input.dockerfile import looks_like_dockerfile

    return looks_like_dockerfile(token)


def _python_literal(token: str, notes: list[str] | None = None, launch: int | None = None
                    ) -> tuple[str | list[str], int] | None:
    """The literal a pasted Python script holds its ``launch``-th launch command in, if it
    is one, and which launch of that literal it is (a docstring may show several)."""
    if "\n" not in token and "(" not in token:
        return None
    from launchplan.input.python_launch import launch_literal_at

    return launch_literal_at(token, notes, launch)


def is_manifest(token: str) -> bool:
    """Whether ``token`` is a pasted manifest or exec-form array (not a shell line)."""
    if not (("\n" in token or " " in token or token.startswith(("[{", "{"))) and "sglang" in token):
        return False  # compact JSON (``docker inspect --format '{{json .}}'``) has no space
    from launchplan.input.manifest import looks_like_manifest

    return looks_like_manifest(token)


def _expanded(tokens: Sequence[str], launch: int | None = None,
              notes: list[str] | None = None) -> list[str]:
    """``tokens`` with each that holds a command line (not a value with a space in it)
    split as a POSIX shell would."""
    words: list[str] = []
    for token in tokens:
        if "\n" in token or (" " in token and _wordy(token)):
            words.extend(_split(token, launch, notes, strict=True))
        else:
            words.append(token)
    return words


#: Commands that take a launch's words as data (they print, search for or signal a running
#: server: ``pkill -f sglang.launch_server``, ``printf ' %q' python3 -m sglang.launch_server``):
#: a launcher named in their arguments is not started.
_INERT = frozenset({"echo", "printf", "pkill", "pgrep", "kill", "killall", "grep", "egrep",
                    "fgrep", "ps", "which", "type", "whereis", "cat", "tail", "head", "less",
                    "sed", "awk", "ls", "rm", "tee", "logger", ":"})


#: Shell words before a command that are not its program (``if ! pgrep -f ...; then``).
_COMPOUND_WORDS = frozenset({"if", "elif", "while", "until", "then", "do", "else", "!", "{",
                             "(", "time"})


def _starts_launch(segment: list[str]) -> bool:
    """Whether the command ``segment`` starts SGLang's launcher: its prefix stands in it and
    the command's program is not one that only names it."""
    program = next((w for w in segment
                    if not _ASSIGNMENT.match(w) and w not in _COMPOUND_WORDS), "")
    if program.rsplit("/", 1)[-1] in _INERT:
        return False
    return any(_prefix_end(segment, i) is not None for i in range(len(segment)))


def launches_sglang(words: Sequence[str]) -> bool:
    """Whether ``words`` (a container's, one argument each) start SGLang's launcher."""
    return any(_prefix_end(words, i) is not None for i in range(len(words)))


def shell_words(script: str) -> list[str]:
    """The launch's words in a shell script (``sh -c``'s argument), as a pasted line's."""
    return _split(script)


def _from_launcher(words: list[str]) -> list[str]:
    """A container's words from its launcher on (with the assignments right before it):
    what runs it (``/bin/sh -c``, an init wrapper) is the image's business."""
    for at in range(len(words)):
        if _prefix_end(words, at) is not None:
            while at > 0 and (_ASSIGNMENT.match(words[at - 1]) or words[at - 1] in _WRAPPERS):
                at -= 1
            return words[at:]
    return words


def _runner_start(argv: list[str]) -> int | None:
    """Where the container or job runner before a launcher prefix starts, if there is one:
    the last runner program named before the prefix (the launch's own flags all come after
    the prefix, so what stands between the two belongs to the runner)."""
    for at in range(len(argv) - 1, -1, -1):
        word = argv[at]
        if _is_runner(word):
            # the assignments before the runner are the launch's environment too, also
            # before programs that run it in turn (``X=1 nohup timeout 1h conda run ...``)
            start = at
            for before in range(at - 1, -1, -1):
                word = argv[before]
                if _is_runner(word):  # ``sudo docker run``: the outer one's, not passed in
                    break
                if _ASSIGNMENT.match(word) or word.rsplit("/", 1)[-1] in _PASSING_ON:
                    start = before
                elif not _WRAPPER_ARGUMENT.match(word):
                    break
            return start
    return None


#: Programs that run the rest of their arguments as a command (a launch behind them keeps
#: the environment set before them), and what their options and values look like
#: (``timeout 1h``, ``numactl -N 0``, ``taskset -c 0-31``, ``stdbuf -oL``).
_PASSING_ON = _WRAPPERS | frozenset({"timeout", "numactl", "taskset", "stdbuf", "setsid",
                                     "nice", "ionice", "chrt", "caffeinate"})
_WRAPPER_ARGUMENT = re.compile(r"^(?:-[\w-]+(?:=\S*)?|[\w.,:%+-]+)$")


def runner_gpus(tokens: Sequence[str], launch: int | None = None) -> int | None:
    """The GPUs the container around a pasted launch is given (``docker run --gpus 2``,
    ``--gpus '"device=0,1"'``): the launch sees only those, whatever the host holds. None
    for ``--gpus all``, no such option, or no container."""
    tokens, launch, manifest = _page_part(tokens, launch)
    if manifest:  # a page's Compose or pod block: the GPUs it asks for
        from launchplan.input.manifest import gpus_requested

        try:
            return next(gpus_requested(t, launch) for t in tokens if _page_parts(t) is None
                        and pasted_manifest(t, cleaned(t)))
        except (InputError, StopIteration):
            return None
    for raw, token in zip(tokens, map(cleaned, tokens)):
        if not ("\n" in token or (" " in token and _wordy(token))) \
                or pasted_manifest(raw, token):
            continue
        picked = _python_literal(token, launch=launch)
        listed = picked[0] if picked is not None else None
        if isinstance(listed, list):  # subprocess.run(["docker", "run", "--gpus", "2", ...])
            start = next((i for i in range(len(listed)) if _prefix_end(listed, i) is not None),
                         len(listed))
            runner = _runner_start(listed[:start])
            return None if runner is None else _gpus_option(listed[runner:start])
        try:
            segments = _image_launches(_segments(_shell_words(token)))
        except InputError:
            continue
        found = [seg for seg in segments if _starts_launch(seg)]
        if not found:  # docker run --gpus 2 IMAGE bash -c "python -m sglang..."
            shells = [(seg, at) for seg in segments if (at := _quoted_shell(seg)) is not None]
            if not shells:
                continue
            seg, prefix = shells[min(max(launch or 1, 1), len(shells)) - 1]
        else:
            seg = found[min(max(launch or 1, 1), len(found)) - 1]
            prefix = next(i for i in range(len(seg)) if _prefix_end(seg, i) is not None)
        runner = _runner_start(seg[:prefix])
        return None if runner is None else _gpus_option(seg[runner:prefix])
    return None


def _quoted_shell(seg: list[str]) -> int | None:
    """Where the shell starts that ``seg`` hands a quoted launch to (``bash`` of ``docker
    run ... IMAGE bash -c "python -m sglang.launch_server ..."``), or None."""
    for at, word in enumerate(seg[:-2]):
        if word.rsplit("/", 1)[-1] in _LOCAL_SHELLS and _SCRIPT_OPTION.match(seg[at + 1]) \
                and "sglang" in seg[at + 2]:
            try:
                inner = _segments(_shell_words(seg[at + 2]))
            except InputError:
                return None
            return at if any(_starts_launch(part) for part in inner) else None
    return None


#: Docker's ``--gpus`` device list (``device=0,1``, quoted or not, with other fields after).
_DEVICE_IDS = re.compile(r'^"?device=([^"=]+?)"?(?:,[a-z]+=.*)?$')


def _gpus_option(words: list[str]) -> int | None:
    """The GPU count a runner's ``--gpus`` option gives: a number, or the devices listed;
    else the GPUs its ``--device nvidia.com/gpu=N`` options name (Podman's CDI devices, one
    an option; ``=all`` any the host has)."""
    cdi = _cdi_gpus(words)
    if cdi is not None:
        return cdi or None
    if words and words[0].rsplit("/", 1)[-1] == "runai":  # runai submit ... --gpu 2 (-g 2)
        for at, word in enumerate(words):
            name, eq, value = word.partition("=")
            if name in ("--gpu", "-g"):
                value = value if eq else (words[at + 1] if at + 1 < len(words) else "")
                return int(value) if value.isdigit() and int(value) else None
        return None
    for at, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name != "--gpus":
            continue
        if not eq:
            value = words[at + 1] if at + 1 < len(words) else ""
        value = value.strip().strip("'")
        if value.isdigit():
            return int(value) or None
        ids = _DEVICE_IDS.match(value)
        if ids is not None:
            return len([i for i in ids.group(1).split(",") if i.strip()]) or None
        return None
    return None


def _cdi_gpus(words: list[str]) -> int | None:
    """How many GPUs a runner's CDI ``--device nvidia.com/gpu=N`` options hand its
    container (0 for ``=all``: no count); None without one."""
    named: list[str] = []
    for at, word in enumerate(words):
        value = word.partition("=")[2] if word.startswith("--device=") else (
            words[at + 1] if word == "--device" and at + 1 < len(words) else "")
        if value.startswith("nvidia.com/gpu="):
            named.append(value.partition("=")[2])
    if not named:
        return None
    return 0 if "all" in named else len(dict.fromkeys(named))


def _runner_env(words: list[str]) -> list[str]:
    """The ``NAME=VALUE`` assignments a runner's words carry: leading shell assignments (and
    those after an ``env`` wrapper), ``-e``/``--env`` options (``--env=NAME=VALUE`` too) and
    ``--setenv``: bubblewrap's takes the name and the value as two arguments (``--setenv
    NAME VALUE``), systemd-run's one ``NAME=VALUE`` (``--setenv=NAME=VALUE`` too). A bare
    ``-e NAME`` passes the caller's own value through, which a plan cannot know, so it is
    left out. Apptainer and Singularity pass the caller's variables in as they are, and a
    ``APPTAINERENV_NAME``/``SINGULARITYENV_NAME`` one as ``NAME`` (over the plain one);
    with ``--cleanenv`` (``-e``) or ``--containall`` only those prefixed ones and
    ``--env`` options get in."""
    program = next((w.rsplit("/", 1)[-1] for w in words if not _ASSIGNMENT.match(w)), "")
    if program in ("apptainer", "singularity"):
        return _container_env(words)
    out: list[str] = []
    for at, word in enumerate(words):
        if _ASSIGNMENT.match(word):
            if at == 0 or _ASSIGNMENT.match(words[at - 1]) or words[at - 1] == "env" \
                    or _sudo_assignment(words, at):
                out.append(word)
        elif word in _ENV_OPTIONS and at + 1 < len(words) and "=" in words[at + 1]:
            out.append(words[at + 1])
        elif word == "-x" and program == "mpirun" and at + 1 < len(words) \
                and _ASSIGNMENT.match(words[at + 1]):
            out.append(words[at + 1])  # Open MPI: -x NAME=VALUE sets it for the ranks
        elif word in ("-genv", "-env") and at + 2 < len(words) \
                and _ENV_NAME_ONLY.match(words[at + 1]):
            out.append(f"{words[at + 1]}={words[at + 2]}")  # MPICH / Intel MPI: two words
        elif word.startswith("--export=") and program == "srun":
            # Slurm: --export=ALL,NAME=VALUE,... (ALL, NONE and bare names set no value)
            out.extend(part for part in word.partition("=")[2].split(",")
                       if _ASSIGNMENT.match(part))
        elif word.startswith(("--env=", "--setenv=")):
            value = word.partition("=")[2]
            if "=" in value:
                out.append(value)
        elif word.startswith("--runtime-env-json") and program == "ray":
            # ``ray job submit --runtime-env-json '{"env_vars": {...}}' -- python -m ...``
            out.extend(_ray_env_vars(word.partition("=")[2] if "=" in word
                                     else words[at + 1] if at + 1 < len(words) else ""))
        elif word == "--setenv" and at + 1 < len(words):
            if _ASSIGNMENT.match(words[at + 1]):  # systemd-run's one argument
                out.append(words[at + 1])
            elif _ENV_NAME_ONLY.match(words[at + 1]) and at + 2 < len(words):
                out.append(f"{words[at + 1]}={words[at + 2]}")  # bubblewrap's two
    return out


def _ray_env_vars(text: str) -> list[str]:
    """The ``env_vars`` a Ray job's runtime environment (JSON) sets for its entrypoint."""
    import json

    try:
        runtime = json.loads(text)
    except ValueError:
        return []
    env = runtime.get("env_vars") if isinstance(runtime, dict) else None
    return [f"{k}={v}" for k, v in env.items() if _ENV_NAME_ONLY.match(str(k))
            and isinstance(v, (str, int, float))] if isinstance(env, dict) else []


#: sudo's options that take a value as the next word (``-u user``, ``-g group``, ...)
_SUDO_VALUED = frozenset({"-u", "-g", "-h", "-p", "-r", "-t", "-C", "-D", "-U", "-T", "-R"})


def _sudo_assignment(words: list[str], at: int) -> bool:
    """Whether the assignment ``words[at]`` is one ``sudo`` sets for its command: after
    ``sudo`` and its options, before the command (``sudo -E CUDA_VISIBLE_DEVICES=0,1
    python ...``, sudo(8))."""
    back = at - 1
    while back >= 0 and (_ASSIGNMENT.match(words[back]) or words[back].startswith("-")
                         or (back and words[back - 1] in _SUDO_VALUED)):
        back -= 1
    return back >= 0 and words[back].rsplit("/", 1)[-1] == "sudo"


#: The prefixes Apptainer and Singularity take off a caller's variable to set it inside.
_CONTAINER_PREFIXES = ("APPTAINERENV_", "SINGULARITYENV_")


def _container_env(words: list[str]) -> list[str]:
    """An Apptainer or Singularity run's environment (``_runner_env``)."""
    start = next(at for at, w in enumerate(words) if not _ASSIGNMENT.match(w))
    options = words[start + 2:]  # past ``apptainer exec``
    clean = any(w in ("--cleanenv", "-e", "--containall", "-C") for w in options)
    plain: dict[str, str] = {}
    prefixed: dict[str, str] = {}
    for assignment in words[:start]:
        name, _, value = assignment.partition("=")
        prefix = next((p for p in _CONTAINER_PREFIXES if name.startswith(p)), None)
        if prefix is not None:
            prefixed[name[len(prefix):]] = value
        elif not clean:
            plain[name] = value
    given = [options[at + 1] for at, w in enumerate(options[:-1])
             if w == "--env" and "=" in options[at + 1]]
    given += [w.partition("=")[2] for w in options if w.startswith("--env=")]
    merged = {**plain, **prefixed}
    for assignment in given:  # --env NAME=VALUE,NAME2=VALUE2 (a part with no = goes on
        last = None  # the value before it: CUDA_VISIBLE_DEVICES=0,1)
        for part in assignment.split(","):
            name, eq, value = part.partition("=")
            if eq and _ENV_NAME_ONLY.match(name):
                merged[name] = value
                last = name
            elif last is not None:
                merged[last] += "," + part
    return [f"{name}={value}" for name, value in merged.items()]


#: A variable's name alone (bubblewrap's ``--setenv NAME VALUE`` gives the value apart).
_ENV_NAME_ONLY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _wordy(token: str) -> bool:
    """A single argument that is really a command line (not a value with a space in it).
    A container or job runner's line counts too: one that starts no launcher (an image given
    only flags) must be refused as running no SGLang launch, not read as a flag's value."""
    stripped = token.strip().lstrip("`")  # a launch in Markdown inline code
    if stripped.startswith(("-", "python", "sglang", "CUDA_", "SGLANG_")) or any(
            m in stripped for m in _MODULES) or bool(_ASSIGNMENT.match(stripped.split(" ")[0])) \
            or bool(_SERVE.search(stripped)) or any(
                _is_runner(w) for w in _RUNNER_START.findall(stripped)):
        return True
    first, _, rest = stripped.partition(" ")
    first = first.rsplit("/", 1)[-1]
    if first in _OTHER_SERVERS:
        return True  # another engine's one-line launch: refused by what it runs
    if first in _HANDS_ON and rest:
        # ``nohup X &``, ``bash -c "X"``, ``ssh node1 "X"``, ``eval "X"``: a command line
        # when X is one, named by what X runs
        inner = rest.replace('"', " ").replace("'", " ").split()
        return any(_wordy(" ".join(inner[at:])) for at in range(min(len(inner), 3)))
    label = _LABEL.match(stripped)  # ``start command: python3 -m ...``: the command after it
    if label is not None and _wordy(stripped[label.end():]):
        return True
    # a sentence naming flags (``use --tp-size 4 for tensor parallelism``): read as a text,
    # so it is named as page text, not one positional word
    return _MENTIONED_FLAG.search(stripped) is not None and any(
        w.lower().strip(",.;()") in _SENTENCE_WORDS for w in stripped.split())


#: Other serving engines' launch commands. Pasted on one line, such a command is a command
#: line (refused as running no SGLang launch, the engine named), not one positional word.
_OTHER_SERVERS = frozenset({"vllm", "trtllm-serve", "trtllm-llmapi-launch", "lmdeploy",
                            "text-generation-launcher", "llama-server", "ollama", "mlc_llm"})


#: Programs that run the command written after them (as their arguments or one quoted
#: string): a one-line text they start is a command line when that command is one.
_HANDS_ON = frozenset({"nohup", "eval", "ssh", "bash", "sh", "exec", "time", "setsid",
                       "timeout", "sudo", "srun", "env", "numactl", "taskset", "stdbuf"})


#: A short prose label ending in a colon at the start of a line (``start command:``,
#: ``Command:``), before the command it names.
_LABEL = re.compile(r"^(?:[^\s:`=]+ ){0,3}[^\s:`=/]+:[ \t]+(?=\S)")


#: The first word of the text or of an inline code span in it (``run `docker run ...` ``).
_RUNNER_START = re.compile(r"(?:^|`)([\w./-]+) ")


def _split(text: str, launch: int | None = None, notes: list[str] | None = None,
           strict: bool = False) -> list[str]:
    """A pasted shell text's launch words (its ``launch``-th launch's; the first by
    default). ``strict``: a text of commands none of which starts SGLang is bad input."""
    global _QUOTED_AFTER_FLAG, _SPLIT_TEXT
    saved = _QUOTED_AFTER_FLAG, _SPLIT_TEXT
    _QUOTED_AFTER_FLAG = _quoted_after_flag(text)
    _SPLIT_TEXT = text
    if notes is not None and _CLI_MODULE in text:
        _note_cli_module(text, notes)
    try:
        return _launch_segment(_shell_words(text, notes), launch, notes, strict)
    finally:
        _QUOTED_AFTER_FLAG, _SPLIT_TEXT = saved


#: The text ``_split`` is reading: a note about the launch's end looks back at its lines.
_SPLIT_TEXT = ""


def _printed_lines(error: InputError, token: str) -> InputError:
    """``error`` for a script that only prints its SGLang command, naming the lines of the
    pasted ``token`` that print it; any other error as it is."""
    if error.got is not PRINTED_ONLY:
        return error
    lines = [str(n) for n, line in enumerate(token.split("\n"), 1)
             if _PRINTS_LAUNCH.search(line)]
    if not lines:
        return error
    shown = ", ".join(lines[:3]) + (", …" if len(lines) > 3 else "")
    return InputError(error.subject, error.expected, message=error.message.replace(
        "an SGLang command,", f"an SGLang command (line{'s' * (len(lines) > 1)} {shown}),"))


#: ``tmux send-keys -t SESSION "COMMAND" C-m`` on a line of its own: the command typed into
#: the session's shell, one line after another (an ``export`` sent first is the launch's)
_SENT_KEYS = re.compile(r"""^([ \t]*)tmux[ \t]+send-keys(?:[ \t]+-t[ \t]+\S+)?[ \t]+"""
                        r"""(["'])(.*?)\2[ \t]+(?:C-m|Enter|ENTER)[ \t]*$""", re.MULTILINE)


#: The words of the last few texts read (with the notes their reading made): a text of
#: several launches is read once per launch (``launch_summaries``, ``launch_count``), and
#: a long page costs its reading each time.
_WORDS_READ: dict[str, tuple[list[str], list[str]]] = {}


def _shell_words(text: str, notes: list[str] | None = None) -> list[str]:
    """A pasted shell text's words, each line ended by ``;`` (``_read_words``), read once
    for the last few texts."""
    read = _WORDS_READ.get(text)
    if read is None:
        made: list[str] = []
        read = (_read_words(text, made), made)
        if len(_WORDS_READ) >= 4:
            _WORDS_READ.pop(next(iter(_WORDS_READ)))
        _WORDS_READ[text] = read
    if notes is not None:
        notes.extend(read[1])
    return list(read[0])


def _read_words(text: str, notes: list[str] | None = None) -> list[str]:
    """A pasted shell text's words, each line ended by ``;``. A script's lines are commands
    of their own (a quoted value may span lines); a shell prompt before a command (``$``,
    ``user@host:~$``, ``(venv) $``) is not part of it."""
    from launchplan.input.heredoc import as_assignments, run_inline, split_off
    from launchplan.input.systemd_unit import inline_written

    text = _without_python_warnings(text)
    text = _root_prompted(text, notes)
    text = inline_written(text, notes)  # a unit a here-document writes: what it runs
    text = as_assignments(text)  # read -d '' cmd <<EOF: the variable it fills
    if "send-keys" in text:  # tmux send-keys -t S "export X=1" C-m: typed into one shell
        text = _SENT_KEYS.sub(lambda m: m.group(1) + m.group(3), text)
    text = run_inline(*split_off(text))  # here-documents: files written, not commands
    text = _unwrapped_flags(_terminal_rejoined(_inline_code(text), notes), notes)
    text = _joined_continuations(text)
    text = _without_glued_prose(text, notes)
    text = shell_arrays.on_one_line(shell_vars.substitutions_kept_whole(text))
    words: list[str] = []
    for line in _logical_lines(text):
        try:
            words.extend(shell_vars.shell_split(_PROMPT.sub("", line, count=1)))
        except ValueError as exc:
            raise InputError("the pasted command", "a complete shell command line (balanced "
                             "quotes)", text[:60], str(exc)) from None
        words.append(";")
    if _PRINTS_LAUNCH.search(text):
        words = _printed_runs(words)
    return words


#: A line that prints a launch's words (``echo "Start it with: python -m sglang..."``,
#: ``printf '...\n' > run.sh``): the cheap test before ``_printed_runs``.
_PRINTS_LAUNCH = re.compile(r"(?<![\w-])(?:echo|printf)\b[^\n]*sglang(?:\.launch_server|"
                            r"_router\.launch_server|\s+serve\b)")
#: Programs that print their arguments: a launch among them is shown, not started.
_PRINTERS = frozenset({"echo", "printf"})
#: What may stand before a command's program and is not it (``nohup``, ``sudo``).
_BEFORE_PROGRAM = _COMPOUND_WORDS | _WRAPPERS | {"sudo", "setsid"}


def _program_at(words: list[str], start: int, end: int) -> int | None:
    """Where the program of the command ``words[start:end]`` stands: after its
    assignments, the shell's compound words and the wrappers that run it."""
    at = start
    while at < end:
        if words[at] == "sudo":  # ``sudo -u svc bash -lc '...'``: its options, then the program
            at += 1
            while at < end and words[at].startswith("-"):
                at += 2 if words[at] in _SUDO_VALUED else 1
        elif _ASSIGNMENT.match(words[at]) or words[at] in _BEFORE_PROGRAM:
            at += 1
        else:
            return at
    return None


def _prints(segment: list[str]) -> bool:
    """Whether the command ``segment`` prints its words (``echo``, ``printf`` but ``printf
    -v``, which assigns them): a launch among them is a hint to the reader."""
    at = _program_at(segment, 0, len(segment))
    return at is not None and segment[at].rsplit("/", 1)[-1] in _PRINTERS \
        and segment[at + 1:at + 2] != ["-v"]


def _printed_runs(words: list[str]) -> list[str]:
    """``words`` with each command that runs what an ``echo``/``printf`` printed written as
    the printed commands: a shell it is piped to (``echo "python -m ..." | bash``), or a
    file it was written to (``> run.sh``, ``>> run.sh``, ``| tee run.sh``) that a later
    command runs (``bash run.sh``, ``./run.sh``, ``source run.sh``). A printed launch that
    nothing runs stays where it is, for the readers to see it is only printed."""
    bounds: list[tuple[int, int]] = []  # each command's words; words[end] its operator
    start = 0
    for at, word in enumerate(words):
        if word in _CONTROL or word == ";":
            bounds.append((start, at))
            start = at + 1
    bounds.append((start, len(words)))
    files: dict[str, str] = {}  # a file's name -> what the script printed into it
    replaced: dict[int, list[str]] = {}  # a command -> the words it runs instead
    piped: set[int] = set()  # a printer whose output a shell runs: gone with its pipe
    for n, (start, end) in enumerate(bounds):
        at = _program_at(words, start, end)
        if at is None:
            continue
        program = words[at].rsplit("/", 1)[-1]
        if program not in _PRINTERS:
            body = _file_run(words[at:end], files) if files else None
            if body is not None:
                replaced[n] = _read_words(body)[:-1]
            continue
        args, target, append = _printer_arguments(words[at + 1:end])
        text = shell_vars.output(program, args)
        if text is None:
            continue
        following = bounds[n + 1] if n + 1 < len(bounds) else None
        if end < len(words) and words[end] in ("|", "|&") and following is not None \
                and _LAUNCH_WORDS.search(text):
            reader = _program_at(words, *following)
            options = words[reader + 1:following[1]] if reader is not None else []
            name = words[reader].rsplit("/", 1)[-1] if reader is not None else ""
            if name in _LOCAL_SHELLS and all(w.startswith("-") and not _SCRIPT_OPTION.match(w)
                                             for w in options):
                piped.add(n)  # echo "..." | bash: the shell runs the printed lines
                replaced[n + 1] = _read_words(text)[:-1]
                continue
            if name == "tee":
                files_named = [w for w in options if not w.startswith("-")]
                target, append = (files_named[0] if files_named else None), "-a" in options
        if target is not None:
            files[target] = (files.get(target, "") if append else "") + text + "\n"
    if not replaced:
        return words
    out: list[str] = []
    for n, (start, end) in enumerate(bounds):
        if n in piped:
            continue
        out.extend(replaced.get(n, words[start:end]))
        out.extend(words[end:end + 1])
    return out


def _printer_arguments(words: list[str]) -> tuple[list[str], str | None, bool]:
    """(a printer's arguments, the file its output is redirected to, whether it appends):
    ``echo "..." > run.sh``, ``>>run.sh``; a redirection of its errors is not its output."""
    args: list[str] = []
    target: str | None = None
    append = False
    skip = False
    for at, word in enumerate(words):
        if skip:
            skip = False
        elif word in (">", ">>", "1>", "1>>", ">|"):
            skip = True
            if at + 1 < len(words):
                target, append = words[at + 1], word.endswith(">>")
        elif (redirect := re.match(r"^1?(>>?)([^&>].*)$", word)) is not None:
            target, append = redirect.group(2), redirect.group(1) == ">>"
        elif not _REDIRECT.match(word) and not _REDIRECT_WITH_TARGET.match(word):
            args.append(word)
    return args, target, append


def _file_run(command: list[str], files: dict[str, str]) -> str | None:
    """What a printed file holds when ``command`` (from its program on) runs it: ``bash
    run.sh``, ``sh -x run.sh``, ``source run.sh``, ``. run.sh``, ``./run.sh``; else None."""
    program = command[0].rsplit("/", 1)[-1]
    if program in _LOCAL_SHELLS or program in ("source", "."):
        path = next((w for w in command[1:] if not w.startswith("-")), None)
        if path is None or (program in _LOCAL_SHELLS and any(
                _SCRIPT_OPTION.match(w) for w in command[1:])):
            return None
    elif "/" in command[0]:
        path = command[0]
    else:
        return None
    if path in files:
        return files[path]
    name = path.rsplit("/", 1)[-1]
    return next((text for file, text in files.items() if file.rsplit("/", 1)[-1] == name),
                None)


#: A sentence in Chinese, Japanese or Korean that a page's text joins to a command's last
#: word with no space (``--log-level warning这条命令…``): CJK ideographs, kana, hangul and
#: their punctuation right after a printable ASCII character.
_GLUED_PROSE = re.compile(r"(?<=[A-Za-z0-9])[\u3001-\u303f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
                          r"\uff00-\uffef][^\n]*")


#: What makes the glued text a sentence: its punctuation (a full-width comma or stop, or an
#: ASCII one between ideographs).
_SENTENCE = re.compile(r"[\u3001\u3002\uff0c\uff1b\uff01\uff1f]|[,.;!?][\u3400-\u9fff]")


def _without_glued_prose(text: str, notes: list[str] | None) -> str:
    """``text`` without the sentence a page's extracted text glued onto a launch line's last
    word (outside quotes): the shell would pass ``warning这条命令…`` as the value, but the
    sentence is the page's prose about the command, not part of it."""
    if _LATIN_GLUE.search(text):
        text = _without_glued_latin(text, notes)
    if not _GLUED_PROSE.search(text):
        return text
    lines = text.split("\n")
    for at, line in enumerate(lines):
        # after the launcher (or on a line of flags): prose before it is the page's own
        start = 0 if line.lstrip().startswith("--") else line.find("sglang")
        glued = _GLUED_PROSE.search(line, start) if start >= 0 else None
        if glued is None or not _SENTENCE.search(glued.group(0)):
            continue  # no sentence: a name or a path written in the language (G:\\模型目录)
        comment = _comment_start(line)
        if comment is not None and comment < glued.start():
            continue  # in the line's ``# ...`` comment, which the shell drops whole
        before = line[:glued.start()]
        if before.count('"') % 2 or before.count("'") % 2:
            continue  # inside a quoted value: part of it
        lines[at] = before
        if notes is not None:
            notes.append(f"the prose glued to the launch line's last word ({glued.group(0)[:20]}"
                         "…) is read as the page's text, not as part of the command")
    return "\n".join(lines)


#: A number a page's extracted text runs straight into a capitalised word (``--tp 8In a
#: multi-node setup, ...``, ``--dist-init-addr $MASTER_IP:5000Note``): the cheap test, and
#: the glue's place (the number, then the prose up to the line's end).
_LATIN_GLUE = re.compile(r"(?<=[ \t=:])(\d+(?:\.\d+)?)([A-Z][a-z]+\b[^\n]*)")


def _without_glued_latin(text: str, notes: list[str] | None) -> str:
    """``text`` without the sentence a page's extracted text glued onto a launch line's last
    value in Latin script. The split is certain only where the value's type ends where the
    glue starts: a number (an integer or number flag's value, or the port of an address
    flag's ``host:port``) followed by a capitalised word; the rest of the line must hold no
    flag. Any other value so glued (``--served-model-name 8In a ...``) is refused with one
    line, since where the value ends is a guess."""
    from launchplan.input.cli import _classify

    lines = text.split("\n")
    for at, line in enumerate(lines):
        start = 0 if line.lstrip().startswith("-") else line.find("sglang")
        if start < 0:
            continue
        glued = next((m for m in _LATIN_GLUE.finditer(line, start)
                      if not re.search(r"(?:^|\s)--?[A-Za-z]", m.group(2))), None)
        if glued is None:
            continue
        comment = _comment_start(line)
        before = line[:glued.end(1)]
        if (comment is not None and comment < glued.start()) or before.count('"') % 2 \
                or before.count("'") % 2:
            continue  # in a comment the shell drops, or inside a quoted value
        words = before.split()
        flag, eq, value = words[-1].partition("=")
        if not eq:
            flag, value = (words[-2] if len(words) > 1 else ""), words[-1]
        found = _classify(flag) if flag.startswith("--") else None
        if found is None or found[0] is None:
            continue  # no flag of SGLang's before it: not a launch's value
        opt, name = found[0], found[1]
        number = glued.group(1)
        certain = (value == number and (opt.expected == "a number" or (
            opt.expected == "an integer" and number.isdigit()))) or (
            name.endswith(("-addr", "-address")) and value.endswith(":" + number))
        prose = (line[glued.start(2):comment] if comment is not None
                 else glued.group(2)).strip()
        if not certain and len(prose.split()) < 2:
            continue  # one word (``8Bit``, ``1234Abc  # key``): a value spelled so
        if not certain:
            raise InputError(name, opt.expected, value + prose.split()[0], (
                f"a page's text seems glued onto the value ({prose[:40]!r} follows it on the "
                "line): where the value ends is not certain for this flag; put a line break "
                "between the launch and the text"))
        lines[at] = before
        if notes is not None:
            notes.append(f"the page's text glued onto the launch's last value ({prose[:30]!r}"
                         f"...) is left out: {name} is read as {value!r}")
    return "\n".join(lines)


def _comment_start(line: str) -> int | None:
    """Where the shell comment of ``line`` starts: a ``#`` that begins a word outside
    quotes; None when it has none."""
    if "#" not in line:
        return None
    quote = ""
    escaped = False
    for at, char in enumerate(line):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or line[at - 1] in " \t"):
            return at
    return None


#: A root shell's prompt before a command: ``# `` and then the command's first word.
#: One piece of a code block a page flattened onto one line, each command under its comment
#: (a Hugging Face model page's "Use this model" snippet as text): ``# Label words: command``.
_LABELLED_PIECE = re.compile(r"(?:^|\s)#\s+([^#:\n]{1,80}?):\s+(?=\S)")


def _flattened_snippets(token: str, notes: list[str] | None) -> str:
    """``token`` with each line that is a code block flattened (``_flattened_snippet``) as
    the block's lines, with a note; any other text comes back as it is."""
    lines = token.split("\n")
    read = [_flattened_snippet(line) if line[:1] == "#" and " # " in line else line
            for line in lines]
    if read == lines:
        return token
    if notes is not None:
        notes.append("a line of the pasted text holds '# label: command' pieces (a page's code "
                     "block flattened, as a Hugging Face model page's snippet copies): read as "
                     "its commands, one a line; as pasted, the shell would read the line as "
                     "one comment")
    return "\n".join(read)


def _flattened_snippet(token: str) -> str:
    """``token`` as the lines of the code block it flattens, when it is one line of
    ``# label: command`` pieces one of which launches SGLang (``# Install SGLang from pip:
    pip install sglang # Start the SGLang server: python3 -m sglang.launch_server \\
    --model-path ...``), each command on a line of its own and its continuations (a ``\\``
    before a space, the line break lost) joined. As pasted, the ``#`` makes the whole line
    one comment: the shell runs nothing. Any other text comes back as it is."""
    found = list(_LABELLED_PIECE.finditer(token))
    if len(found) < 2 or found[0].start() != 0:
        return token
    commands = [token[m.end():after.start()].strip()
                for m, after in zip(found, [*found[1:], None]) if after is not None]
    commands.append(token[found[-1].end():].strip())
    commands = [re.sub(r"\s\\\s", " ", c) for c in commands]
    if not any(_LAUNCHER_WORD.search(c) for c in commands) or not all(commands):
        return token
    return "\n".join(commands)


def _refuse_comments_only(token: str) -> None:
    """Refuse a paste whose every line is a comment (``# hello world``), unless it is a
    root session (``# `` as the prompt before a launch): the shell runs nothing, and read
    as flags its first word would be blamed as a stray argument."""
    lines = [line for line in token.split("\n") if line.strip()]
    if not lines or not all(line.lstrip().startswith("#") for line in lines):
        return
    if _root_session(token.split("\n")) is not None:
        return
    expected = ("an SGLang launch (python -m sglang.launch_server ..., sglang serve ..., "
                "or a manifest or script that starts one)")
    inside = any(_LAUNCHER_WORD.search(line) for line in lines)
    raise InputError("the pasted text", expected, message=(
        f"the pasted text: expected {expected}, got none: every line is a comment (it starts "
        "with '#'), which the shell skips" + (
            "; the launch it names follows a '#' on its line: paste the command without it"
            if inside else "")))


#: A diff's added line of flags (``+--kv-cache-dtype fp8_e4m3 \\``), and any line of a diff
#: hunk: added, removed or context (after its ``@@`` header or a ```diff fence).
_ADDED_FLAGS = re.compile(r"^\+[ \t]*--?[A-Za-z]", re.MULTILINE)
_DIFF_START = re.compile(r"^(?:```+[ \t]*(?:diff|patch)\b|@@ -\d)", re.MULTILINE)


def _first_added(token: str) -> str:
    """The first added line of flags in the diff ``token``, without its ``+``, shortened."""
    found = _ADDED_FLAGS.search(token)
    line = token[found.start() + 1:].split("\n", 1)[0].strip() if found else ""
    return line if len(line) <= 60 else line[:57] + "..."


def _refuse_diff_without_launch(token: str) -> None:
    """Refuse a review diff (a pull request thread's hunk, ```diff or ``@@ -``) that adds
    SGLang flags but holds no launch: the hunk starts after the launch line, so no reading
    of it plans the launch, and a message about one flag's value (``give the flag after the
    paste``) would send the reader down a path that cannot end in a plan."""
    added = _ADDED_FLAGS.findall(token)
    if not added or (len(added) < 2 and not _DIFF_START.search(token)):
        return
    hunk = [line for line in token.split("\n")
            if line[:1] in ("+", "-", " ") and not line.startswith(("---", "+++"))]
    if any(_LAUNCHER_WORD.search(line) for line in hunk):
        return  # the hunk holds its launch line: read as a diff of a launch
    if sum(line.count('"') for line in hunk) % 2:
        return  # cut inside a quoted value (another launcher's string of flags): said so
    if any(_LAUNCHER_WORD.search(_INLINE_CODE.sub("", line)) for line in token.split("\n")):
        return  # a launch elsewhere in the text, outside a sentence's inline code
    expected = ("an SGLang launch (python -m sglang.launch_server ..., sglang serve ..., "
                "or a manifest or script that starts one)")
    raise InputError("the pasted text", expected, message=(
        f"the pasted text: expected {expected}, got none: it is a review diff whose hunk adds "
        f"SGLang flags ({len(added)} line{'s' if len(added) != 1 else ''}, the first "
        f"'{_first_added(token)}') but holds no launch line "
        "(the hunk starts after it); paste the whole launch command from the file"))


_ROOT_PROMPT = re.compile(r"^(\s*)# (?=\S)")


def _root_prompted(text: str, notes: list[str] | None) -> str:
    """``text`` without the ``# `` a root shell prints before each command, when every
    command line of it starts so (``# pip install ...`` then ``# sglang serve ...``, as an
    issue pastes a root session) and one of them starts SGLang. Read as comments, such a
    transcript holds no command at all, and the launch it shows would be lost without a
    word; any line without the prompt (other than a continuation of the line before) makes
    every ``#`` line a comment again, as the shell reads it."""
    plain = _root_session(text.split("\n"))
    if plain is None:
        return text
    if notes is not None:
        notes.append("every command line of the pasted text starts with '# ', a root shell's "
                     "prompt (as comments, the text would hold no command): read without it")
    return "\n".join(plain)


def _root_session(lines: list[str]) -> list[str] | None:
    """``lines`` without the root prompt ``# `` before each command, when every command
    line starts so (a continuation of the line before aside) and one of them starts
    SGLang; None otherwise."""
    continued = False
    for line in lines:
        if line.strip() and not continued and not _ROOT_PROMPT.match(line):
            return None
        continued = line.rstrip().endswith("\\")
    plain = [_ROOT_PROMPT.sub(r"\1", line, count=1) for line in lines]
    return plain if any(_LAUNCHER_WORD.search(line) for line in plain) else None


def _root_prompted_blocks(text: str, notes: list[str] | None) -> str:
    """``text`` (a page with code blocks) with each block that is a root session
    (``_root_session``) read without its prompts, when no line outside such blocks starts
    SGLang. Each block of a page is its own shell, so an issue's Reproduction block
    (``# pip install ...``, ``# sglang serve ...``) is a session even though its
    Environment block (``GPU 0: ...``) holds no prompt. A page that launches elsewhere keeps
    its ``#`` blocks as the comments they may be (an alternative left commented out)."""
    from launchplan.input.page_markup import code_block_spans

    lines = text.split("\n")
    sessions: list[tuple[int, int, list[str]]] = []
    for start, end in code_block_spans(text):
        plain = _root_session(lines[start + 1:end])
        if plain is not None:
            sessions.append((start, end, plain))
    if not sessions:
        return text
    inside = {at for start, end, _ in sessions for at in range(start, end + 1)}
    if any(_LAUNCHER_WORD.search(line) and not line.lstrip().startswith("#")
           for at, line in enumerate(lines) if at not in inside):
        return text
    for start, end, plain in sessions:
        lines[start + 1:end] = plain
    if notes is not None:
        notes.append("every command line of the pasted text's launching code block starts "
                     "with '# ', a root shell's prompt (as comments, the block would hold no "
                     "command): read without it")
    return "\n".join(lines)


#: The first line of a warning Python prints (``/x/launch_server.py:54: UserWarning: ...``).
_PY_WARNING = re.compile(r"^\S+\.py:\d+: \w*Warning: ")


def _without_python_warnings(text: str) -> str:
    """``text`` without the warnings Python printed in a pasted terminal session: a warning's
    first line names the file and line that raised it, and the lines after it that start
    indented are the rest of its message and the source line. They are output, not
    commands, though they may quote one (SGLang's own ``python -m sglang.launch_server``
    warning goes on with ``Example: sglang serve --model-path <model> [options]``)."""
    if "Warning: " not in text:
        return text
    out: list[str] = []
    inside = False
    for line in text.split("\n"):
        if _PY_WARNING.match(line):
            inside = True
        elif not (inside and line[:1] in (" ", "\t")):
            inside = False
            out.append(line)
    return "\n".join(out)


#: The launcher's words in a line (``python -m sglang.launch_server``, ``sglang serve``).
_LAUNCH_WORDS = re.compile(r"sglang(?:\.launch_server|_router\.launch_server|\s+serve\b)")
#: A Markdown inline-code span on one line (`` `python -m ...` ``, or with double or triple
#: backticks: a one-line ```` ```python -m ...``` ```` is a span, not a fence, since a fence's
#: info string holds no backtick).
_INLINE_CODE = re.compile(r"(?<!`)(`{1,3})(?!`)([^`\n]+)\1(?!`)")


def _inline_code(text: str) -> str:
    """``text`` with each line that holds a launch inside Markdown inline code (an issue's
    "e.g. `python -m sglang.launch_server ...`") reduced to that code: the backticks are
    the page's markup, not the shell's command substitution. A container or job runner's
    command in inline code is reduced too, so one that starts no launch is named as what
    it runs rather than by the sentence's first words."""
    text = _html_code(text)
    if "`" not in text:
        return text
    text = _inline_code_over_lines(text)
    lines = text.split("\n")
    # a script that runs a launch of its own: a comment naming one in backticks
    # ("# Run with `python -m sglang.launch_server ...`") documents it, it is not one
    own = any(_LAUNCH_WORDS.search(_INLINE_CODE.sub("", line))
              for line in lines if not line.lstrip().startswith("#"))
    for at, line in enumerate(lines):
        if own and line.lstrip().startswith("#"):
            continue
        for match in _INLINE_CODE.finditer(line):
            code = match.group(2)
            try:
                words = shell_vars.shell_split(code)
            except ValueError:
                continue
            if launches_sglang(words) and _launcher_named(words):
                # a sentence naming the command ("start a server with `sglang serve`"):
                # no launch, so the span goes with the prose
                lines[at] = lines[at].replace(match.group(0), "")
                continue
            if launches_sglang(words) or (
                    len(words) > 2 and _is_runner(words[0])):
                lines[at] = code
                break
    return "\n".join(lines)


def _launcher_named(words: list[str]) -> bool:
    """Whether ``words`` (an inline-code span's) are the launcher alone, with no flag or
    model after it: a page's sentence names the command (`` `sglang serve` ``) there."""
    for at in range(len(words)):
        end = _prefix_end(words, at)
        if end is not None:
            return end == len(words)
    return False


#: An HTML code element with no markup inside (``<code>python3 -m ...</code>``).
_HTML_CODE = re.compile(r"<code(?:\s[^<>]*)?>([^<`]*)</code>")


def _html_code(text: str) -> str:
    """``text`` with each HTML code element that holds a launch (or a container or job
    runner's command) written as Markdown inline code, so it is read as such a span is: a
    page's HTML source (a blog's article data, a report's table) marks its inline code so,
    and the prose after ``</code>`` is not words of the launch. Its entities (``&amp;``,
    ``&quot;``) are the characters they stand for; other elements stay as they are."""
    if "<code" not in text:
        return text

    def span(match: re.Match[str]) -> str:
        code = html.unescape(match.group(1))
        try:
            words = shell_vars.shell_split(code)
        except ValueError:
            return match.group(0)
        if "`" not in code and (launches_sglang(words) or (
                len(words) > 2 and _is_runner(words[0]))):
            return f"`{code}`"
        return match.group(0)

    return _HTML_CODE.sub(span, text)


#: An inline-code span that a page's text wrapping carried over several lines.
_INLINE_SPAN = re.compile(r"(?<!`)`(?!`)([^`]*\n[^`]*)`(?!`)")


def _inline_code_over_lines(text: str) -> str:
    """``text`` with an inline-code launch that runs over several lines (a bullet's
    "Serve command: `sglang serve --model-path M\\n  --tp 8`") reduced to that code, on
    one line: Markdown joins the lines of a span, so the line breaks are not the shell's
    (nor are the continuation backslashes a span written as a shell block keeps). Each
    such span is, as a list of launches writes one per item."""
    at = 0
    while (match := _INLINE_SPAN.search(text, at)) is not None:
        at = match.end()
        # a span may keep the shell's own continuations (``\\`` at each line's end)
        code = " ".join(match.group(1).replace("\\\n", "\n").split())
        try:
            words = shell_vars.shell_split(code)
        except ValueError:
            continue
        if launches_sglang(words):
            start = text.rfind("\n", 0, match.start()) + 1
            end = text.find("\n", match.end())
            text = text[:start] + code + ("" if end < 0 else text[end:])
            at = start + len(code)
    return text


#: A line that ends inside a flag's name (``--chunked-prefill-``) and a next line that goes
#: on with the rest of it (``size 131072 ...``).
_BROKEN_FLAG = re.compile(r"(?<![\w-])(--[a-z0-9]+(?:-[a-z0-9]+)*-)[ \t]*\r?\n([a-z0-9][\w-]*)")


def _unwrapped_flags(text: str, notes: list[str] | None) -> str:
    """``text`` with each flag a line break cut in two made whole again: no flag name ends
    in a dash, so the break is a web page's or a terminal's wrapping of a long line (the
    shell itself would end the command there)."""
    if "-\n" not in text and "- \n" not in text:
        return text

    def join(match: re.Match[str]) -> str:
        whole = match.group(1) + match.group(2)
        if notes is not None:
            notes.append(f"a line ends inside a flag ({match.group(1)}) and the next goes on "
                         f"with {match.group(2)!r}: read as {whole}, a long line wrapped in "
                         "the middle of a flag (the shell would cut the command there)")
        return whole

    return _BROKEN_FLAG.sub(join, text)


#: The narrowest terminal whose hard wrapping of a long line is rejoined.
_WRAP_WIDTH = 60


def _terminal_rejoined(text: str, notes: list[str] | None) -> str:
    """``text`` with a launch line a terminal cut at its width rejoined: copied out of a
    terminal (or a file that was), a long command comes as lines of exactly the same
    length, each cut mid-word (``--model-path .../models--deepseek-ai--De`` then
    ``epSeek-V3.1-...``), with no backslash. The shell would end the command at the first
    cut; the lines are one command wrapped at a fixed width, so they are read joined, with
    a note. Two or more such lines, at least ``_WRAP_WIDTH`` wide, starting at a line that
    names the launcher, are taken for one; nothing else is."""
    lines = text.split("\n")
    out: list[str] = []
    at = 0
    while at < len(lines):
        width = len(lines[at])
        end = at
        while (end + 1 < len(lines) and len(lines[end]) == width
               and lines[end][-1:] not in ("", " ", "\t", "\\") and lines[end + 1][:1].strip()):
            end += 1
        # every line from ``at`` to ``end - 1`` starts a run of this width ending at ``end``:
        # the first of them naming the launcher (with two lines after it) starts the command;
        # the others are passed over at once, so a long page of equal lines costs one scan
        start = next((s for s in range(at, end - 1) if _LAUNCHER_WORD.search(lines[s])),
                     None) if width >= _WRAP_WIDTH else None
        if start is None:
            stop = max(end, at + 1)
            out.extend(lines[at:stop])
            at = stop
            continue
        out.extend(lines[at:start])
        out.append("".join(lines[start:end + 1]))
        if notes is not None:
            notes.append(f"{end - start + 1} lines of the paste are one command a terminal "
                         f"wrapped at {width} columns (each cut mid-word, without a "
                         "backslash): read joined (the shell itself would end the "
                         "command at the first cut)")
        at = end + 1
    return "\n".join(out)


def _joined_continuations(text: str) -> str:
    """``text`` with each backslash-newline continuation joined, as the shell joins them: a
    backslash that ends a comment (``#SGLANG_X=1 \\``, ``# --tp 2 \\``) is part of the
    comment, so the next line starts a command of its own. A shell prompt that starts a
    command's first line is taken off first: it is the terminal's, not the command's."""
    out: list[str] = []
    pending = ""
    lines = text.splitlines()
    for at, line in enumerate(lines):
        line = line.rstrip("\r")
        if not pending:  # a prompt's ``#`` (``root@host:/srv#``) would hide the backslash
            line = _PROMPT.sub("", line, count=1)
        joined = _continued(pending, line) if pending else line
        if line[-1:] in (" ", "\t") and line.rstrip(" \t").endswith("\\"):
            _refuse_glued_escaped_blank(joined, lines[at + 1:])
        if line.endswith("\\") and _live_backslash(joined):
            pending = joined[:-1]
            continue
        out.append(joined)
        pending = ""
    if pending:
        out.append(pending)
    return "\n".join(out)


def _refuse_glued_escaped_blank(line: str, after: list[str]) -> None:
    """Refuse a ``line`` whose last word ends in a backslash and a blank (``launch_server\\ ``,
    ``--tp 8\\ ``: a page copy keeps the space) when flag lines follow: the backslash escapes
    the blank, not the line break, so the shell ends the command there, the blank joins that
    word (``'launch_server '``) and the flags below run as a command of their own. The same
    backslash set apart from the word (``--tp 8 \\ ``) gives a blank argument, which the
    command line's reader names; this form is named the same way, not read with the flags
    silently lost."""
    bare = line.rstrip(" \t")
    run = len(bare) - len(bare.rstrip("\\"))
    if run % 2 == 0 or bare[-run - 1:-run].isspace() or not _live_backslash(bare):
        return  # ``\\ `` (a backslash itself), the detached form, or inside a comment or quote
    following = next((n for n in after if n.strip()), "")
    if not following.lstrip().startswith("-"):
        return
    word = bare.split()[-1]
    shown = following.strip().rstrip(" \\")[:30]
    raise InputError("command line", "a line that goes on to the next one", word + " ", (
        "its last word ends in a backslash followed by a space, which escapes the space, not "
        f"the line break: the shell ends the command there and runs the next lines ({shown}"
        "...) as a command of their own; remove the space after the backslash"))


def _continued(before: str, line: str) -> str:
    """``before`` (a line without its continuation backslash) and the ``line`` it goes on
    with. The shell takes the backslash and the newline out and nothing else, so a word the
    break cuts in two (``--model /models/\\`` then ``Qwen/Qwen3-8B``) is one word again. A
    next line that starts a flag stays a word of its own even without a space before the
    backslash (``--tp 8\\`` then ``--port 1``): the shell would glue ``8--port``, which no
    launch means, and pages drop a line's trailing space."""
    if before and not before[-1].isspace() and line[:1] not in ("", " ", "\t", "-"):
        return before + line
    return f"{before} {line}"


def _live_backslash(line: str) -> bool:
    """Whether the backslash that ends ``line`` escapes its newline (not in a comment)."""
    try:
        shell_vars.shell_split(line)
    except ValueError:  # a live trailing backslash (or a quote still open)
        return True
    return False


#: A shell prompt at the start of a line: optional ``(env)`` names, an optional
#: ``user@host:dir`` (or ``user@host dir``, ``[user@host dir]``, as fish, zsh and Red Hat's
#: bash show it), then ``$`` or ``%`` (``#`` only after a user@host, since a bare ``#``
#: starts a comment).
_PROMPT = re.compile(r"^\s*(?:\([\w.-]+\)\s*)*(?:\[?[\w.-]+@[\w.-]+"
                     r"(?::[^\s$#%]*|[ \t]+[~/][^\s$#%\]]*)?\]?\s*[$#%]|[$%])\s+")


def _logical_lines(text: str) -> list[str]:
    """``text``'s lines, a line whose quotes are still open joined with the next. A quote
    that no later line closes is no value going on but prose around the launch (a page's
    "with your server's hostname"): that line is left out when it names no launcher and
    starts no flag (one that does stays, and its quote is reported: a launch cut inside a
    quoted value, ``--framework-args "--model-path ...``, is no prose). Where a quote
    closes is found by one scan of each line per quoting state (``_QuoteEnds``), so a page
    with many apostrophes reads in linear time; the joined line is then split to confirm."""
    out: list[str] = []
    lines = text.splitlines()
    ends = _QuoteEnds(lines)
    # bash's $'...' (its escapes decoded first, read as written when left open) is split
    # the slow way: whether it closes depends on where the run ends
    slow = "$'" in text
    start = 0
    while start < len(lines):
        if slow:
            end, pending = _joined_until_balanced(lines, start)
        else:
            end = ends.first_balanced(start)
            pending = "\n".join(lines[start:end + 1]) if end is not None else None
            if pending is not None and end != start and not _balanced(pending):
                end, pending = _joined_until_balanced(lines, start)  # scan and shlex differ
        if pending is not None:
            out.append(pending)
            start = end + 1  # type: ignore[operator]
        elif _LAUNCHER_WORD.search(lines[start]) or _FLAG_LINE.match(lines[start]):
            out.append("\n".join(lines[start:]))  # unbalanced to the end: shlex says so
            start = len(lines)
        else:
            out.append("")  # an apostrophe in prose: the line is not a command
            start += 1
    return out


def _joined_until_balanced(lines: list[str], start: int) -> tuple[int | None, str | None]:
    """The first run of lines from ``start`` whose quotes close, joined line by line and split
    each time (the slow way, for a text the quote scan reads otherwise than ``shlex``)."""
    pending = lines[start]
    for end in range(start, len(lines)):
        if end > start:
            pending = f"{pending}\n{lines[end]}"
        if _balanced(pending):
            return end, pending
    return None, None


class _QuoteEnds:
    """Where a run of lines that starts at a line closes its quotes, found by scanning each
    line once per state it can be entered in (a quote open or not, at a word's start or
    not), as ``shell_vars.uncommented`` and ``shlex`` read quotes, backslashes, ``$'...'``
    and ``#`` comments. Each (line, state) is scanned once over all the starts asked."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.found: dict[tuple[int, str, bool], int | None] = {}

    def first_balanced(self, start: int) -> int | None:
        """The first line from ``start`` after which the quotes are closed, or None."""
        at, state = start, ("", True)
        path: list[tuple[int, str, bool]] = []
        result: int | None = None
        while at < len(self.lines):
            key = (at, *state)
            if key in self.found:
                result = self.found[key]
                break
            path.append(key)
            quote, starts_word, escaped = _quote_exit(self.lines[at], *state)
            if not quote and not escaped:
                result = at
                break
            state = (quote, starts_word if escaped else not quote)
            at += 1
        for key in path:
            self.found[key] = result
        return result


def _quote_exit(line: str, quote: str, starts_word: bool) -> tuple[str, bool, bool]:
    """The quoting state after ``line`` entered in ``quote`` (``''``, ``"'"`` or ``'"'``):
    (the quote still open, whether a word starts next, whether the line ends in
    a backslash that escapes its newline)."""
    at, n = 0, len(line)
    while at < n:
        char = line[at]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                if at + 1 >= n:
                    return quote, False, True
                at += 1
            at += 1
            starts_word = False
            continue
        if char == "\\":
            if at + 1 >= n:
                return "", starts_word, True
            starts_word = False
            at += 2
            continue
        if char in "'\"":
            quote = char
        elif char == "#" and starts_word:
            return "", True, False  # a comment to the line's end
        starts_word = char in _WORD_BREAKS
        at += 1
    return quote, starts_word, False


_WORD_BREAKS = shell_vars._WORD_BREAKS


#: A line that starts with a flag (a launch's continued line).
_FLAG_LINE = re.compile(r"^\s*--?[A-Za-z]")
#: A word that names SGLang's launcher on a line.
_LAUNCHER_WORD = re.compile(r"sglang(?:\.launch_server|_router\.launch_server|\s+serve\b)")


def _balanced(line: str) -> bool:
    """Whether ``line``'s quotes are closed (its words split as the shell's would)."""
    try:
        shell_vars.shell_split(line)
    except ValueError:
        return False
    return True


#: Shell operators that end one command (``pip install sglang && python -m ...``, ``... &``).
_CONTROL = frozenset({"|", "||", "&&", ";", "&", "|&"})
#: A redirection whose target is the next word (``> server.log``, ``2>>`` ...).
_REDIRECT = re.compile(r"^\d*(?:>>?|<|&>>?|>\|)$")
#: A redirection that carries its target (``2>&1``, ``>server.log``).
_REDIRECT_WITH_TARGET = re.compile(r"^\d*(?:>&\d+|(?:>>?|<|&>>?)\S+)$")


def _segments(words: list[str]) -> list[list[str]]:
    """``words`` cut into commands at the shell's control operators, without the commands
    of ``if`` branches the script's own values decide against."""
    segments: list[list[str]] = [[]]
    operators: list[str] = []  # the operator after each segment but the last
    for word in words:
        if word in _CONTROL:
            segments.append([])
            operators.append(word)
        elif word.endswith(";") and len(word) > 1:  # ``cd /srv; python ...``
            segments[-1].append(word[:-1])
            segments.append([])
            operators.append(";")
        else:
            segments[-1].append(word)
    return shell_branches.live_segments(
        [part for seg in _tests_as_blocks(segments, operators) for part in _components(seg)])


#: The commands that are a test ``shell_branches`` may decide.
_TESTS = frozenset({"[", "[[", "test"})


def _tests_as_blocks(segments: list[list[str]], operators: list[str]) -> list[list[str]]:
    """``segments`` with a test and the command ``&&`` or ``||`` runs after it (``[ "$DPA" =
    1 ] && ARGS+=(--enable-dp-attention)``, ``[ -n "$X" ] || OPTS+=" --tp 8"``, and ``T &&
    A || B``) written as the ``if`` block the shell runs them as, so that a test the
    script's values decide drops the command it rules out."""
    out: list[list[str]] = []
    at = 0
    while at < len(segments):
        seg = segments[at]
        after = operators[at] if at < len(operators) else ";"
        test = seg[1:] if seg[:1] == ["!"] else seg
        if test[:1] and test[0] in _TESTS and after in ("&&", "||") and at + 1 < len(segments):
            out.append(["if", *(seg if after == "&&" else ["!", *seg])])
            out.append(["then", *segments[at + 1]])
            at += 2
            if after == "&&" and at - 1 < len(operators) and operators[at - 1] == "||" \
                    and at < len(segments):
                out.append(["else", *segments[at]])  # ``T && A || B``: B when T fails
                at += 1
            out.append(["fi"])
            continue
        out.append(seg)
        at += 1
    return out


#: Launchers that start several programs at once, their command lines separated by a ``:``
#: word: Slurm's heterogeneous steps (``srun -N1 router : -N2 python -m ...``), MPI's
#: multiple programs (``mpirun -np 1 a : -np 2 b``).
_MULTI_PROGRAM = frozenset({"srun", "mpirun", "mpiexec"})


def _components(seg: list[str]) -> list[list[str]]:
    """``seg`` as the commands it starts: one, unless its program is one of
    ``_MULTI_PROGRAM`` and it holds ``:`` words; then each component, with the launcher
    (and the assignments before it, its environment, which every component inherits)
    before it: a component's options are its own, and a launch among them is read with its
    own words only."""
    lead = 0
    while lead < len(seg) and (_ASSIGNMENT.match(seg[lead]) or seg[lead] in _WRAPPERS):
        lead += 1
    if lead == len(seg) or seg[lead].rsplit("/", 1)[-1] not in _MULTI_PROGRAM \
            or ":" not in seg[lead + 1:]:
        return [seg]
    parts: list[list[str]] = [[]]
    for word in seg[lead + 1:]:
        if word == ":":
            parts.append([])
        else:
            parts[-1].append(word)
    return [[*seg[:lead + 1], *part] for part in parts]


def _image_launches(segments: list[list[str]]) -> list[list[str]]:
    """``segments`` with a container run of an image whose own entrypoint is SGLang's
    launcher (``docker run IMAGE --model-path M``) written with the launcher's words."""
    from launchplan.input.launcher_images import with_image_launches

    return with_image_launches(segments)


def _script_values(script: str) -> dict[str, str]:
    """The variables ``script`` leaves set when it has run as pasted (its branches the
    script's own values decide against left out)."""
    values: dict[str, str] = {}
    try:
        segments = _segments(_shell_words(script))
    except InputError:
        return values
    for seg in segments:
        shell_vars.declared(seg, values)
    return values


def _launcher_from_variables(segments: list[list[str]]) -> list[list[str]]:
    """``segments`` with a command whose launcher words a variable of the script holds
    (``sglang "${ARGS[@]}"`` of ``ARGS=(serve --tp 2 ...)``, ``$LAUNCH --tp 2`` of
    ``LAUNCH="python3 -m sglang.launch_server"``) written with those words, as the shell
    runs it; the values are the ones the script set before that command."""
    if not any("$" in w for seg in segments for w in seg):
        return segments
    values: dict[str, str] = {}
    out: list[list[str]] = []
    for seg in segments:
        if _runs_script(seg):  # bash -c "${cmd}": one argument, the quoted reader's
            shell_vars.declared(seg, values)
            out.append(seg)
            continue
        if not _starts_launch(seg) and any("$" in w for w in seg):
            pieces = [_launcher_words(w, values) for w in seg]
            words = [part for piece in pieces for part in piece]
            if _starts_launch(words):
                seg = _up_to_the_launch_argument(seg, pieces)
        elif _starts_launch(seg):
            seg = _runner_from_variable(seg, values)
        shell_vars.declared(seg, values)
        out.append(seg)
    return out


#: Programs that join their words into the one line a shell runs (ssh's, eval's): the words
#: after a reference holding the launch are its arguments too, as a wrapper's and a runner's.
_JOINING = frozenset({"ssh", "eval", "pdsh", "clush", "xargs", "sshpass"})


def _up_to_the_launch_argument(seg: list[str], pieces: list[list[str]]) -> list[str]:
    """``seg`` with its references expanded (``pieces``); when the launch is one argument
    of another program that does not pass the words after it on (a script's own function,
    ``remote node0 "$cmd" true``), those words are that program's, not the launch's."""
    at = next(i for i, piece in enumerate(pieces) if _starts_launch(
        [part for p in pieces[:i + 1] for part in p]))
    lead = 0
    while lead < at and (_ASSIGNMENT.match(seg[lead]) or seg[lead] in _WRAPPERS):
        lead += 1
    program = seg[lead].rsplit("/", 1)[-1] if lead < len(seg) else ""
    passing_on = _WRAPPERS | RUNNERS | _INHERITING_STARTERS | _JOINING
    if lead < at and pieces[at] != [seg[at]] and program not in passing_on:
        return [part for piece in pieces[:at + 1] for part in piece]
    return [part for piece in pieces for part in piece]


def _runner_from_variable(seg: list[str], values: dict[str, str]) -> list[str]:
    """``seg`` with its command word written out when it is a whole reference to a runner
    the script names in a variable (``CTR=nerdctl`` then ``$CTR run ... IMAGE python -m
    ...``): the shell runs that program, so its options (``-e NAME=VALUE``) are read as a
    runner's."""
    lead = 0
    while lead < len(seg) and _ASSIGNMENT.match(seg[lead]):
        lead += 1
    if lead == len(seg) or not _WHOLE_REFERENCE.match(seg[lead]):
        return seg
    words = _launcher_words(seg[lead], values)
    if not words or words == seg[lead:lead + 1] or not _is_runner(words[0]):
        return seg
    return [*seg[:lead], *words, *seg[lead + 1:]]


def _launcher_words(word: str, values: dict[str, str]) -> list[str]:
    """The words a command's ``word`` stands for when it is a whole reference to an array or
    a value of the script's (split at spaces, as an unquoted reference is); else ``word``."""
    listed = shell_arrays.items(word, values)
    if listed is not None:
        return listed
    if _WHOLE_REFERENCE.match(word) and (value := shell_vars.expand(word, values)) != word:
        return shell_vars.fields(value)
    return [word]


#: The commands of the last few word lists (a text of several launches is taken apart once,
#: not once per launch it lists).
_COMMANDS_READ: dict[tuple[str, ...], list[list[str]]] = {}


def _commands(words: list[str]) -> list[list[str]]:
    """``words`` as the commands a shell runs, the branches its values decide against left
    out and references to a launcher or an image written out; a fresh copy each call."""
    key = tuple(words)
    found = _COMMANDS_READ.get(key)
    if found is None:
        found = _image_launches(_launcher_from_variables(_segments(words)))
        if len(_COMMANDS_READ) >= 4:
            _COMMANDS_READ.pop(next(iter(_COMMANDS_READ)))
        _COMMANDS_READ[key] = found
    return [list(seg) for seg in found]


def _launch_segment(words: list[str], launch: int | None = None,
                    notes: list[str] | None = None, strict: bool = False) -> list[str]:
    """The words of the command that starts the launcher (a pasted text may chain others
    with ``&&``, ``;``, a pipe or a new line; of several launches, the ``launch``-th),
    without its redirections: where its output goes is the shell's business, not the
    launch's. Variables an earlier command exports (``export NAME=VALUE``) are the launch's
    environment: they come back as assignments right before it. ``"$@"`` passes on the
    script's arguments: those its ``set -- ...`` sets, else none (it is run as pasted).
    Words before the launch's own command (a prompt left over) are not."""
    segments = _commands(words)
    ordered = _launch_order(segments)
    found = [n for n, quoted_words in ordered if quoted_words is None]
    picked = ordered[min(max(launch or 1, 1), len(ordered)) - 1] if ordered else None
    if not found or (picked is not None and picked[1] is not None):
        quoted = [picked[1]] if picked is not None and picked[1] is not None \
            else _quoted_launches(segments, notes=notes)
        if quoted:  # ssh host "...", bash -c '...', tmux new -d "..."
            chosen = quoted[0] if picked is not None \
                else quoted[min(max(launch or 1, 1), len(quoted)) - 1]
            inherited = _exported_to_local_shell(segments, notes)
            if inherited:  # the shell's environment, for whichever of its commands launches
                chosen = ["export", *inherited, ";", *chosen]
            return _launch_segment(chosen, None, notes)
        _refuse_assignments_only(words)
        if strict:
            _require_flags(segments)
        listed = _captioned_flags(segments, notes)
        if listed is not None:  # "Server args:" over a list of flags, its env in a block
            return listed
        return [w for seg in segments for w in seg]
    at = picked[0] if picked is not None else found[0]
    _refuse_full_width_operator(segments[at])
    _refuse_sentence(segments[at])
    if notes is not None:
        _orphaned_flags(segments[at + 1:], notes)
        _wrapped_value(segments[at], segments[at + 1:at + 2], notes)
    values: dict[str, str] = {}  # the shell variables the text sets before the launch
    exported: list[str] = []
    arguments: list[str] | None = None  # the script's own, as ``set -- ...`` sets them
    call = _function_call(segments, at)  # the launch is in a function the script calls
    saved: list[tuple[dict[str, str], list[str]]] = []  # the shell before a launching block
    for n, seg in enumerate(segments[:at]):
        if call is not None and n == call[0]:  # what the script sets before it calls it
            for before in segments[call[1] + 1:call[2]]:
                exported.extend(f"{name}={values[name]}"
                                for name in shell_vars.declared(before, values))
            arguments = _positional([shell_vars.expand(w, values) for w in call[3]], values)
        if seg[:1] == [page_markup.SHELL_OPENS]:  # a page's block of its own launch
            saved.append((dict(values), list(exported)))
        elif seg[:1] == [page_markup.SHELL_ENDS] and saved:  # ...typed into another shell
            values, exported = saved.pop()
        elif seg[:2] == ["set", "--"]:
            arguments = _positional(_set_words(seg[2:], values), values)
        elif seg[:1] == ["unset"] and "-f" not in seg:
            # ``unset NAME``: gone from the script and from what it starts since
            gone = {w for w in seg[1:] if not w.startswith("-")}
            for name in gone:
                values.pop(name, None)
            exported = [a for a in exported if a.partition("=")[0] not in gone]
        else:
            exported.extend(f"{name}={values[name]}"
                            for name in shell_vars.declared(seg, values))
    if notes is not None and shell_branches.KEPT in values:
        _note_kept_branches(segments[at], values, notes)
    chosen = _from_command(_env_operands(segments[at], values))
    if _isolated(chosen):
        lead = 0  # ``A=1 docker run ...``: set for the docker client, like an export
        while lead < len(chosen) and _ASSIGNMENT.match(chosen[lead]):
            lead += 1
        # the client's environment only: the shell expands the command's own words
        # (``-e X=$A``) with its variables as they were, not with these
        client = dict(values)
        if lead:
            shell_vars.assigned(chosen[:lead], client)
            exported.extend(f"{w.partition('=')[0]}={client[w.partition('=')[0]]}"
                            for w in chosen[:lead] if w.partition("=")[0] in client)
            chosen = chosen[lead:]
        if exported:
            chosen = _passed_into_container(chosen, exported, client, notes)
            exported = []
    out: list[str] = list(exported)
    skip = False
    for word in _spaced_placeholders(chosen):
        if skip:
            skip = False
        elif _REDIRECT.match(word):
            skip = True
        elif shell_vars.placeholder(word) or (" " in word and word[:1] == "<"
                                              and word[-1:] == ">"):
            out.append(word)  # ``<your-model>``, ``<7 adapters>``: a value to fill in, kept
            # so the flag it stands for is reported with it
        elif (sliced := shell_vars.arguments_slice(word, values)) is not None:
            out.extend(sliced)  # ``${@:2}``: the script's arguments from the second on
        elif word in _ALL_ARGUMENTS:  # as many as a ``shift`` left
            out.extend(shell_vars.positional(values) if arguments is not None else [])
            if arguments is None and notes is not None:
                notes.append(f"the launch passes on the script's own arguments ({word}), "
                             "which the paste does not give: it is planned without them "
                             "(give those flags after the paste)")
        elif not _REDIRECT_WITH_TARGET.match(word):
            expanded = _expanded_word(word, values)
            if not expanded and out and _unset_after_flag(word, out[-1], values):
                expanded = ["${" + _EMPTY_DEFAULT.match(word).group(1) + "}"]  # type: ignore[union-attr]
            elif not expanded and out and "$" in word:
                expanded = _empty_after_flag(word, out[-1], values)
            out.extend(expanded)
    return out


def _note_kept_branches(launch: list[str], values: dict[str, str], notes: list[str]) -> None:
    """Say which value the launch was planned with for each variable it reads that a
    one-branch ``if`` set though its test decides nothing here (``extra=""``, then ``if [
    "$1" = ngram ]; then extra=(--speculative-algorithm NGRAM); fi``): the branch's, while
    the shell would keep the earlier value whenever the test fails."""
    for name, test in shell_branches.kept_branches(values):
        note = (f"${name} is planned as the branch of `if {test}` sets it: the paste does not "
                "decide that test (it reads a caller's value or argument); when the test fails, "
                f"the script launches with the ${name} it set before the branch instead")
        if note not in notes and any(f"${name}" in w or f"${{{name}" in w for w in launch):
            notes.append(note)


#: ``${NAME:-}`` / ``${NAME-}``: a reference whose default is nothing.
_EMPTY_DEFAULT = re.compile(r"^\$\{([A-Za-z_]\w*):?-\}$")


def _unset_after_flag(word: str, before: str, values: dict[str, str]) -> bool:
    """Whether ``word`` is a variable the text never sets, with nothing as its default,
    right after a flag that takes a value (``--model-path "${MODEL:-}"``): the value is the
    environment's, so it stays open (reported as such if nothing given fills it) instead of
    leaving the flag without one."""
    found = _EMPTY_DEFAULT.match(word)
    if found is None or found.group(1) in values:
        return False
    from launchplan.input.cli import takes_value

    return takes_value(before)


#: A whole reference to a variable: ``$NAME``, ``${NAME}``.
_PLAIN_REFERENCE = re.compile(r"^\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))$")


def _empty_after_flag(word: str, before: str, values: dict[str, str]) -> list[str]:
    """The words a reference to a variable the script leaves empty stands for right after
    a flag that takes a value (``--model-path "$MODEL_PATH"``), instead of none: the
    caller's value, open, when only the script's option loop fills it (``-m)
    MODEL_PATH="$2"``: the script is meant to be called so, and ``--model-path`` after the
    paste gives it); else an empty argument when the text quotes the reference after a flag
    (``"$X"`` is one word to the shell, however empty). A bare one the shell drops."""
    found = _PLAIN_REFERENCE.match(word)
    if found is None:
        return []
    name = found.group(1) or found.group(2)
    filled = name in values.get(shell_branches.FILLED, "").split()
    if not filled and name not in _QUOTED_AFTER_FLAG:
        return []
    from launchplan.input.cli import takes_value

    if not takes_value(before):
        return []
    return ["${" + name + "}"] if filled else [""]


#: The names the text being read writes double-quoted alone right after a flag (``--name
#: "$X"``) and never bare there: the quotes are gone once the text is split into words.
_QUOTED_AFTER_FLAG: frozenset[str] = frozenset()
#: ``--flag "$NAME"`` / ``--flag $NAME`` (a continuation between them, too).
_REFERENCE_AFTER_FLAG = re.compile(
    r"(?<!\S)--?[A-Za-z][\w.-]*(?:[ \t]|\\\n)+(\"?)\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))\1"
    r"(?=[\s;&|)]|$)")


def _quoted_after_flag(text: str) -> frozenset[str]:
    """The names ``text`` writes as ``--flag "$NAME"`` and never as ``--flag $NAME``."""
    if '"$' not in text:
        return frozenset()
    quoted: set[str] = set()
    bare: set[str] = set()
    for found in _REFERENCE_AFTER_FLAG.finditer(text):
        (quoted if found.group(1) else bare).add(found.group(2) or found.group(3))
    return frozenset(quoted - bare)


#: A line typed at Python's prompt (``>>> code``), and one continuing it (``... code``)
_PY_PROMPT = re.compile(r"^[ \t]*>>>(?: |$)(.*)$")
_PY_CONTINUED = re.compile(r"^[ \t]*\.\.\.(?: |$)(.*)$")


def _without_prompts(token: str) -> str:
    """``token`` with Python's interactive prompts taken off the lines typed at them (a
    continuation line's ``...`` only right after one): what was typed is the code, or the
    command a page shows at the prompt; the lines between are the session's output, left as
    prose. A text with no line at the prompt comes back as it is."""
    out: list[str] = []
    typed = False
    for line in token.split("\n"):
        prompt = _PY_PROMPT.match(line)
        if prompt is not None:
            out.append(prompt.group(1))
            typed = True
            continue
        more = _PY_CONTINUED.match(line) if typed else None
        if more is not None:
            out.append(more.group(1))
            continue
        typed = False
        out.append(line)
    return "\n".join(out)


def _python_holding(token: str) -> bool:
    """Whether ``token`` is a Python program (a deploy script holding a unit file, or a
    manifest, in a string it writes out): its literals are read as Python has them (``\\``
    one backslash), by the Python reader, not as the file's own text."""
    if '"""' not in token and "'''" not in token:
        return False
    import ast

    from launchplan.input.python_literals import quiet_parse

    try:
        tree = quiet_parse(token)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(node, (ast.Assign, ast.FunctionDef, ast.Return))
               for node in ast.walk(tree))


def _set_words(words: list[str], values: dict[str, str]) -> list[str]:
    """The positional parameters ``set -- WORDS`` sets: a whole reference split into its
    fields, as the idiom means it (``set -- $pair`` makes ``$1`` and ``$2`` of a pair; the
    quotes that would keep it one word are gone by now, and a script quotes it only to pass
    one value, which ``set --`` is rarely written for)."""
    out: list[str] = []
    for word in words:
        value = shell_vars.expand(word, values)
        if value != word and _WHOLE_REFERENCE.match(word):
            out.extend(shell_vars.fields(value))
        else:
            out.append(value)
    return out


def _refuse_assignments_only(words: list[str]) -> None:
    """Refuse a text (``words``, its commands apart at their separators) that only sets
    variables (an ``EnvironmentFile``, a ``.env``, a block of ``export X=...`` lines): no
    command runs, so no launch; its values are what a unit's or an entrypoint's command
    reads, which the paste does not hold."""
    segments: list[list[str]] = [[]]
    for word in words:
        if word in (";", "&&", "||", "|", "&", "\n"):
            segments.append([])
        else:
            segments[-1].append(word)
    segments = [seg for seg in segments if seg]
    names: list[str] = []
    for seg in segments:
        words = seg[1:] if seg[:1] in (["export"], ["declare"], ["readonly"]) else seg
        if not words or not all(_ASSIGNMENT.match(w) for w in words):
            return  # a command, or something else the readers take as flags
        names += [w.split("=", 1)[0] for w in words]
    if not names:
        return
    flagged = [w.split("=", 1)[0] for seg in segments for w in seg
               if _ASSIGNMENT.match(w) and " --" in f" {w.split('=', 1)[1]}"]
    shown = ", ".join(dict.fromkeys(names[:4])) + (", …" if len(names) > 4 else "")
    holds = (f" ({', '.join(dict.fromkeys(flagged))} holds SGLang flags: paste it with the "
             "command that reads it, a systemd unit's ExecStart or a container's entrypoint)"
             if flagged else "")
    expected = EXPECTED_LAUNCH
    raise InputError("the pasted text", expected, message=(
        f"the pasted text: expected {expected}, got none: it only sets {shown}{holds}"))


#: Words the shell readers put in place of what a text does (an undecided branch's merged
#: values, an array's assignment): never a program the text runs.
_MARKERS = frozenset({shell_branches.MERGED, shell_arrays.MARK, page_markup.SHELL_OPENS,
                      page_markup.SHELL_ENDS})


def _refuse_full_width_operator(segment: list[str]) -> None:
    """Refuse a launch that only a full-width operator before its launcher would start
    (``export X=1；python -m ...``, ``cd /srv ＆＆ sglang serve ...``, as a Chinese or
    Japanese input method types them): the shell keeps the character inside a word, so the
    command is ``export``'s or ``cd``'s and no launch runs. Where the command's program is
    the launcher, a wrapper or a runner (``env A=1；B python -m ...``, ``docker run -e
    A=1；B ...``), the character is only part of a value and the launch runs as read."""
    from launchplan.input.typography import full_width_operator_hint

    prefix = next(i for i in range(len(segment)) if _prefix_end(segment, i) is not None)
    odd = next((w for w in segment[:prefix]
                if full_width_operator_hint(w) is not None), None)
    if odd is None:
        return
    program = next((i for i, w in enumerate(segment)
                    if not _ASSIGNMENT.match(w) and w not in _COMPOUND_WORDS), prefix)
    word = segment[program]
    if program == prefix or word in _WRAPPERS or _is_runner(word):
        return
    raise InputError("the pasted command", "the shell's own ; && | > < \\ between commands",
                     odd[:60], full_width_operator_hint(odd, f"'{odd[:40]}'")
                     + f"; as pasted, the shell runs {word}, not the launch after it")


#: Words of an English sentence that no launch passes as a value or argument: after the
#: launcher they show the line describes a launch (``with --model-path and --port
#: arguments``) rather than runs one.
_SENTENCE_WORDS = frozenset({"with", "and", "or", "the", "an", "to", "using", "via", "flag",
                             "flags", "argument", "arguments", "option", "options",
                             "pointing"})
#: A sentence's word right before the launcher (``Use``, ``run``, ``To serve it, run``).
_LEAD_WORD = re.compile(r"^[A-Za-z][a-z]*[,:]?$")


def _refuse_sentence(segment: list[str]) -> None:
    """Refuse a launcher named inside a sentence (``Use python -m sglang.launch_server with
    --model-path and --port arguments``): a word of prose before it on its line and a word
    of prose among what follows. No shell runs such a line; read as a launch, it would be
    blamed for a flag's value (``--port: expected an integer, got 'arguments'``)."""
    prefix = next(i for i in range(len(segment)) if _prefix_end(segment, i) is not None)
    lead = [w for w in segment[:prefix] if not _ASSIGNMENT.match(w) and w not in _WRAPPERS]
    if not lead or not _LEAD_WORD.match(lead[-1]) or lead[-1] in _SUBCOMMANDS_OF_TOOLS \
            or _is_runner(lead[-1]) or lead[-1] == "run" and lead[-2:-1] \
            and (lead[-2] in _RUN_TOOLS or _is_runner(lead[-2])):
        return
    end = _prefix_end(segment, prefix) or prefix + 1
    prose = [w for w in segment[end:] if w.strip(",.;") in _SENTENCE_WORDS]
    if not prose:
        return
    sentence = " ".join(segment[max(0, prefix - 6):end + 6])
    raise InputError("the pasted text", "an SGLang launch command", message=(
        "the pasted text: expected an SGLang launch command, got a sentence that names the "
        f"launcher ('{sentence[:120]}'): the words around it ('{lead[-1]}', "
        f"'{prose[0]}') are prose, not a command's; paste the command itself"))


#: Words before a launcher that belong to a command running it (``uv run``, ``sudo``).
_SUBCOMMANDS_OF_TOOLS = frozenset({"exec", "sudo", "then", "do", "else"})


#: The words of a placeholder a page wrote with spaces inside (``<other option>``, a count
#: first too: ``--lora-paths <7 adapters>``): its first word opens the bracket, its last
#: closes it.
_PLACEHOLDER_OPEN = re.compile(r"^<\w[\w.-]*$")
_PLACEHOLDER_WORD = re.compile(r"^[\w.-]+$")
_PLACEHOLDER_CLOSE = re.compile(r"^[\w.-]+>$")


def _spaced_placeholders(words: list[str]) -> list[str]:
    """``words`` with a placeholder written with spaces inside (``... <other option>``,
    ``<your model path>``) kept as one word: the shell would read its first word as a
    redirection from a file and stop at the ``>`` before the line's end; the text means a
    value or flags to fill in, which is reported as such, not as the half left after the
    redirection (``option>``)."""
    out: list[str] = []
    at = 0
    while at < len(words):
        if _PLACEHOLDER_OPEN.match(words[at]):
            end = next((k for k in range(at + 1, min(at + 6, len(words)))
                        if not _PLACEHOLDER_WORD.match(words[k])), None)
            if end is not None and _PLACEHOLDER_CLOSE.match(words[end]):
                out.append(" ".join(words[at:end + 1]))
                at = end + 1
                continue
        out.append(words[at])
        at += 1
    return out


#: Shell builtins that set up a session rather than run a program.
_SETUP = frozenset({"export", "unset", "source", ".", "cd", "set", "local", "declare",
                    "readonly", "module", "ulimit", "mkdir"})
#: Shell builtins that set the script's variables (``read -a ids <<< "$LIST"``, ``shift``):
#: commands, but no program a text that starts no launch is named by.
_SETTING = frozenset({"read", "shift", "getopts", "mapfile", "readarray"})
#: A word that is a flag (not a YAML or Markdown list's ``-``).
_FLAG_WORD = re.compile(r"^--?[A-Za-z]")
#: A word that can name a program (not prose, not a YAML key).
_PROGRAM = re.compile(r"^[\w.~/+-]+$")
#: A first word no program is named like: a page's heading or sentence (``Install and use``,
#: ``SGLang for Inference``), a number (``30 MIN``) or a data file's name over its contents
#: (``disagg.yaml``); the no-launch line names the commands the text does run instead.
_NO_PROGRAM = re.compile(r"^(?:[A-Z][\w-]*|\d+|[\w.~/-]+\.(?:ya?ml|json|md|txt|toml|ini|csv))$")
#: A conda or venv name a prompt shows before it (``(base)``).
_ENV_PROMPT = re.compile(r"^\([\w.-]+\)$")


#: A word of a prose label before its colon (``Base``, ``Image:``), no program's path.
_LABEL_WORD = re.compile(r"^[A-Za-z][A-Za-z()-]*:?$")
#: A later word of such a label: an index or a list of them, as an environment report
#: numbers its devices (``GPU 0,1: NVIDIA H100``, ``GPU 0-7:``).
_LABEL_INDEX = re.compile(r"^\d+(?:[,-]\d+)*:?$")


#: Tools whose ``run`` starts a program of the project's (``uv run x.py``): the error names
#: that program, not just the tool.
_RUN_TOOLS = frozenset({"uv", "poetry", "pixi", "pdm", "hatch", "rye", "conda", "mamba"})
#: Their options that take a value (``conda run -n env``, ``uv run --with sglang``).
_RUN_VALUED = frozenset({"-n", "--name", "-p", "--prefix", "--python", "--with", "--project",
                         "--directory", "--env-file", "--extra", "--group", "--from", "-e",
                         "--environment"})


def _run_target(words: list[str]) -> str | None:
    """The program a ``TOOL run`` command starts: its first word that is no option or an
    option's value."""
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in _RUN_VALUED:
            skip = True
        elif not word.startswith("-"):
            return word
    return None


#: SGLang's benchmark clients, as ``_require_flags`` names them when they start no engine
#: (``bench_one_batch_server`` given a ``--base-url`` measures that server).
_BENCH_CLIENTS = frozenset({"sglang.bench_serving", "sglang.benchmark.serving",
                            "sglang.bench_one_batch_server",
                            "sglang.benchmark.one_batch_server"})
#: SGLang's request routers (the PD load balancer, the router package's launcher): no
#: server of their own.
_ROUTERS = ("sglang_router.launch_router", "sglang.srt.disaggregation.mini_lb",
            "sglang.srt.disaggregation.launch_lb")


def _other_server(program: str) -> bool:
    """Whether ``program`` (as ``_require_flags`` names it) is another package's
    ``launch_server`` module (SGLang-JAX's ``python3 -m sgl_jax.launch_server``): a page
    that runs one shows that server's options on lines of their own too, which are no
    SGLang launch's."""
    words = program.split()
    module = words[words.index("-m") + 1] if "-m" in words[:-1] else ""
    return module.endswith(".launch_server")


def _require_flags(segments: list[list[str]]) -> None:
    """Refuse a pasted text that starts no SGLang launch when none of its commands is bare
    flags either (which are read as the launch's): it runs other programs only (another
    engine's server, the router alone, a check script), and its words are no SGLang argv.
    The error names what it runs, so the reader sees what was pasted instead."""
    programs: list[str] = []
    commands = 0
    bare_flags = False
    missing_m = ""  # python given a launcher module's name as its script
    printed = False  # echo "Start it with: python -m sglang.launch_server ..."
    literal = _flags_in_a_list(segments)
    values: dict[str, str] = {}  # what the script sets, for a command a wrapper runs
    pending = [(seg, 0) for seg in reversed(segments)]
    previous: list[str] = []
    broken = False  # a line ``\   # comment`` ended its command with a blank argument
    unread: tuple[str, str] | None = None  # an SGLang launcher named, and its backticked word
    while pending:
        seg, depth = pending.pop()
        escaped_break = _ends_with_escaped_space(previous)
        previous = seg
        inner = _run_by_wrapper(seg, values) if depth < 3 else None
        shell_vars.declared(seg, values)
        if inner is not None:  # eval "$cmd", bash -c "...", ssh host "...": what it runs
            pending.extend((part, depth + 1) for part in reversed(inner))
            continue
        if _prints(seg) and any(_LAUNCH_WORDS.search(shell_vars.expand(w, values))
                                for w in seg):
            printed = True  # shown to the reader, not started
            continue
        words = [w.strip("`") for w in seg if not _ASSIGNMENT.match(w)
                 and w not in _COMPOUND_WORDS and w not in _WRAPPERS
                 and not _ENV_PROMPT.match(w)]  # a ``(base)`` a prompt left behind
        while words and words[0] in ("-", "*", "+"):  # a YAML or Markdown list's item
            words = words[1:]
        if words[:1] == ["uvx"] and (target := _run_target(words[1:])) is not None:
            words = words[words.index(target, 1):]  # ``uvx vllm serve``: the tool it runs
        label = next((n for n, w in enumerate(words[:4]) if w.endswith(":")), None)
        if label is not None and label + 1 < len(words) and (
                _PYTHON.match(words[label + 1]) or _is_runner(words[label + 1])
                or words[label + 1].rsplit("/", 1)[-1] in _OTHER_SERVERS):
            words = words[label + 1:]  # ``start command: python3 -m ...``: its program
        elif label and _LABEL_WORD.match(words[0]) and all(
                _LABEL_WORD.match(w) or _LABEL_INDEX.match(w) for w in words[1:label + 1]):
            continue  # a list item's ``Base Image: IMAGE``: a label and its value
        if not words or not words[0] or words[0] in _SETUP or words[-1].endswith(":"):
            continue  # a session's setup, or a label (``Server launch command:``)
        if words[0] in _MARKERS:  # the readers' own marks, not commands of the text
            continue
        if _FLAG_WORD.match(words[0]) and escaped_break:
            broken = True  # the rest of the command before it, not flags given on their own
            continue
        if _FLAG_WORD.match(words[0]):
            bare_flags = not literal  # flags on a line of their own: the launch's, as given
            continue
        commands += 1
        if not _PROGRAM.match(words[0]) or words[0].startswith("-") \
                or words[0] in _SETTING or _NO_PROGRAM.match(words[0]):
            continue  # prose or YAML (``name: x``), or a builtin: no program to name
        program = words[0].rsplit("/", 1)[-1]
        if _PYTHON.match(words[0]):
            module = next((words[n + 1] for n in range(len(words) - 1) if words[n] == "-m"),
                          None)
            script = None if module else _module_as_script(words[1:])
            program += f" -m {module}" if module else f" {script}" if script else ""
            if script is not None and not missing_m:
                missing_m = (f" ({words[0]} {script} runs a file named {script}, not "
                             f"SGLang's module, so it starts nothing: -m is missing, as in "
                             f"{words[0]} -m {script.removesuffix('.py')} ...)")
        elif len(words) > 1 and words[1].isalpha():
            program += f" {words[1]}"  # ``vllm serve``, ``conda activate``
            if words[1] == "run" and program.split()[0] in _RUN_TOOLS:
                run = _run_target(words[2:])  # ``uv run runpod/create_pod.py``: its script
                program += f" {run}" if run else ""
                if run and _PYTHON.match(run):  # ``uv run python -m other.server``: its module
                    after = words[words.index(run) + 1:]
                    if len(after) > 1 and after[0] == "-m":
                        program += f" -m {after[1]}"
        if _NAMED_LAUNCHER.search(program):
            # a launcher named where no launch was read: say why, not that it runs one
            unread = unread or (program, next((w for w in seg if w.startswith("`")), ""))
            continue
        if program not in programs:
            programs.append(program)
    from launchplan.input.server_log import is_logged_args

    if not printed and unread is None and not any(_other_server(p) for p in programs) \
            and (mentioned := _flag_mentions(_SPLIT_TEXT)) is not None \
            and not any(is_logged_args(word) for seg in segments for word in seg):
        expected = ("an SGLang launch (python -m sglang.launch_server ..., sglang serve ..., "
                    "or a manifest or script that starts one)")
        raise InputError("the pasted text", expected, message=(
            f"the pasted text: expected {expected}, got none: page text with example flags "
            f"{mentioned}, no launch command; paste the launch command itself"))
    if bare_flags and not any(_other_server(p) for p in programs):
        return
    if printed:
        expected = ("an SGLang launch (python -m sglang.launch_server ..., sglang serve ..., "
                    "or a manifest or script that starts one)")
        raise InputError("the pasted text", expected, PRINTED_ONLY, message=(
            f"the pasted text: expected {expected}, got none: the script only prints an "
            "SGLang command, which starts nothing; paste the command itself to plan it"))
    unread_why = ""
    if unread is not None:
        program, ticked = unread
        unread_why = (f"its word {ticked!r} opens a backtick that its line does not close, "
                      "which the shell reads as a command substitution, not as a command to "
                      "run; take the backticks (a page's inline-code marks) off") if ticked \
            else "launchplan cannot read the words around it as a command line"
        if not programs:
            expected = ("an SGLang launch (python -m sglang.launch_server ..., sglang serve "
                        "..., or a manifest or script that starts one)")
            raise InputError("the pasted text", expected, message=(
                f"the pasted text: expected {expected}, got {program} where no launch starts "
                f"({unread_why})"))
        unread_why = f" (it names {program} where no launch starts: {unread_why})"
    if commands:
        # another engine's server first: what the text is about, before its set-up steps
        programs.sort(key=lambda p: not _other_server(p))
        shown = ", ".join(programs[:3]) + (", …" if len(programs) > 3 else "")
        expected = ("an SGLang launch (python -m sglang.launch_server ..., sglang serve ..., "
                    "or a manifest or script that starts one)")
        from launchplan.input.server_log import LOG_NOT_LAUNCH

        if any(is_logged_args(word) for seg in segments for word in seg):
            shown = "none: " + LOG_NOT_LAUNCH
            raise InputError("the pasted text", expected,
                             message=f"the pasted text: expected {expected}, got {shown}")
        if sum(seg[:1] in (["import"], ["from"]) for seg in segments) >= 2 \
                and not any(_other_server(p) for p in programs):
            # Python's statements are no programs: say what the text is instead
            raise InputError("the pasted text", expected, message=(
                f"the pasted text: expected {expected}, got a Python program in which "
                "launchplan finds none (it reads an argv list or command string naming the "
                "launcher, sgl.Engine(...), or a list of SGLang's flags handed to its own "
                "parser)"))
        routers = [p for p in programs if any(r in p for r in _ROUTERS)]
        why = (f" ({routers[0].split()[-1]} routes requests to SGLang servers launched on "
               "their own: it loads no model and holds no GPU; paste a server's launch, a "
               "prefill or decode one for PD disaggregation)") if routers else ""
        clients = [p.split()[-1] for p in programs if p.split()[-1] in _BENCH_CLIENTS]
        if clients and not why:
            why = (f" ({clients[0]} sends requests to a server already running (its "
                   "--base-url, or --host and --port): it starts none; paste that server's "
                   "launch)")
        from launchplan.input.typography import odd_space_hint

        # a web page's no-break space after the module joins it to the next flag
        # (``sglang.launch_server\u00a0--port``): the launcher is not found for that reason
        odd = next((hint for seg in segments for word in seg if "sglang" in word
                    and (hint := odd_space_hint(word, f"'{word[:40]}'")) is not None), None)
        why += f" ({odd})" if odd and not why else ""
        if not why and any(p.endswith(f"-m {_CLI_MODULE}") for p in programs):
            why = _CLI_MODULE_WHY
        why = why or missing_m or unread_why
        if broken:
            why += (" (a line ends with a backslash followed by a space, which escapes the "
                    "space, not the line break: the flags on the next lines are a command "
                    "of their own)")
        raise InputError("the pasted text", expected,
                         message=f"the pasted text: expected {expected}, got none"
                         + (f": it runs {shown}" if shown else "") + why)


#: A flag word standing on its own in a line (not glued to a table cell's text before it).
_MENTIONED_FLAG = re.compile(r"(?<!\S)--[A-Za-z][\w-]*")
#: One inline-code span of a line (its text).
_CODE_ON_LINE = re.compile(r"`([^`]+)`")
#: What may open a line before its first word: a list's or quote's mark, inline code.
_LINE_MARKS = re.compile(r"^[\s>*+`-]*?(?=[^\s>*+`]|--)")


def _flag_mentions(text: str) -> str | None:
    """What a text that starts no launch is when its flags are only mentioned: each line
    holding one is a Markdown table row (a docs page's "Feature | Example usage") or prose
    (a sentence, a cell's title glued before its flags); None when a line is bare flags
    (``--tp 2`` on its own, ``Server args: --tp 2``) or a command (``./run.sh --tp 2``),
    which are read as before. Such a page is no command line: its words are not judged."""
    if "--" not in text or _LAUNCH_WORDS.search(text):
        return None  # a launcher named where none was read: the no-launch line says why
    rows = 0
    mentioned = 0
    header = ""
    for line in _joined_continuations(text).splitlines():
        line = _LINE_MARKS.sub("", line.strip(), count=1)
        flag = _MENTIONED_FLAG.search(line)
        if line.startswith("|"):
            header = header or " | ".join(c.strip() for c in line.strip("|").split("|"))
            rows += flag is not None
            continue
        if flag is None:
            continue
        lead = line[:flag.start()].split()
        if not lead or lead[-1].endswith(":") or any(
                _is_runner(w) or _PYTHON.match(w) or "/" in w or w.endswith(".sh")
                or w in _OTHER_SERVERS for w in (w.strip("`") for w in lead)):
            return None  # bare flags, flags after a caption, or a command's
        if any(_MENTIONED_FLAG.search(span) and not span.lstrip().startswith("-")
               for span in _CODE_ON_LINE.findall(line)):
            return None  # a command in a sentence's inline code (`docker run ... --port 1`)
        if not (_NO_PROGRAM.match(lead[0]) and "/" not in lead[0]) and not any(
                w.lower().strip(",.;()") in _SENTENCE_WORDS or w == "e.g." for w in
                line.split()):
            return None  # a command of another program, named by the no-launch line
        mentioned += 1
    if rows:
        return f"in a table ({header[:60]})"
    return "in sentences" if mentioned else None


#: The module behind SGLang's ``sglang`` console script. It defines the script's main() but,
#: having no ``if __name__ == "__main__"`` guard (SGLang 0.5.23's sglang/cli/main.py, and no
#: sglang/cli/__main__.py), never calls it when run with ``python -m``: the command imports
#: it and exits, starting no server. Blogs write it as "what sglang serve really runs".
_CLI_MODULE = "sglang.cli.main"
_CLI_MODULE_WHY = (f" (python -m {_CLI_MODULE} starts no server: that module defines the "
                   "sglang console script's main() but does not call it when run with -m, so "
                   "the command exits at once; run sglang serve ... or python -m "
                   "sglang.launch_server ... with the same flags)")


#: A line that runs the console script's module with ``-m`` (not in a comment).
_CLI_MODULE_RUN = re.compile(r"^[^#\n]*?\bpython[\d.]*\s+(?:-\S+\s+)*-m\s+sglang\.cli\.main\b.*$",
                             re.MULTILINE)


def _note_cli_module(text: str, notes: list[str]) -> None:
    """A note for a text that runs ``python -m sglang.cli.main`` beside its launches: that
    command starts nothing, so it is not counted as one of them, and the reader is told."""
    found = _CLI_MODULE_RUN.search(text)
    if found is None:
        return
    line = found.group(0).strip().rstrip(" \\")
    shown = line[:60] + ("…" if len(line) > 60 else "")
    notes.append(f"'{shown}' is not a launch and is not planned{_CLI_MODULE_WHY}")


#: A program ``_require_flags`` names that is SGLang's own launcher (``sglang serve``,
#: ``python3 -m sglang.launch_server``), not a script named like it.
_NAMED_LAUNCHER = re.compile(r"(?:^| -m )sglang(?:_router)?(?:\.launch_server| serve)$")


def _ends_with_escaped_space(seg: list[str]) -> bool:
    """Whether the command ``seg`` ends with a blank argument: ``\\ `` at a line's end (a
    comment after it, ``\\   # the url``) escapes the space, so the shell ends the command
    at that line and runs the next ones, meant as its continuation, on their own."""
    return bool(seg) and bool(seg[-1]) and not seg[-1].strip()


#: The ``got`` of the error for a script whose only SGLang command is printed
#: (``_printed_lines`` names the pasted text's lines that print it).
PRINTED_ONLY = "a printed launch"
#: ssh's options that take a value (``-p 2222``, ``-i KEY``): the host comes after them.
_SSH_VALUED = frozenset({"-p", "-i", "-l", "-o", "-J", "-F", "-L", "-R", "-D", "-W", "-b",
                         "-c", "-E", "-e", "-m", "-O", "-Q", "-S", "-w", "-B"})


def _run_by_wrapper(seg: list[str], values: dict[str, str]) -> list[list[str]] | None:
    """The commands ``seg`` hands on as a string for a shell to run, as that shell reads
    them: ``eval "$cmd"``, ``bash -c "..."``, ``ssh host "..."``, a command kept in a
    variable (``$CMD``), with the script's values expanded; None for any other command. A
    text that starts no launch is named by what runs behind such a wrapper."""
    at = _program_at(seg, 0, len(seg))
    if at is None:
        return None
    program = seg[at].rsplit("/", 1)[-1]
    given: list[str] = []
    if program == "eval":
        given = seg[at + 1:]
    elif program in _LOCAL_SHELLS:
        option = next((n for n in range(at + 1, len(seg) - 1)
                       if _SCRIPT_OPTION.match(seg[n])), None)
        given = [] if option is None else [seg[option + 1]]
    elif program == "ssh":
        n = at + 1
        while n < len(seg) and seg[n].startswith("-"):
            n += 2 if seg[n] in _SSH_VALUED else 1
        given = seg[n + 1:]
    elif _WHOLE_REFERENCE.match(seg[at]) and seg[at] != shell_vars.expand(seg[at], values):
        given = seg[at:]
    text = " ".join(shell_vars.expand(w, values) for w in given).strip()
    if not text:
        return None
    try:
        return _segments(_shell_words(text))
    except InputError:
        return None


def _module_as_script(words: list[str]) -> str | None:
    """The launcher's (or an engine benchmark's) module name that python is given as its
    script, its ``-m`` lost (``python sglang.launch_server --tp 2``): python's first word
    that is no option, when it is one; else None."""
    script = next((w for w in words if not w.startswith("-")), None)
    if script is None or "/" in script:
        return None
    from launchplan.input.benchmarks import MODULES as BENCHMARKS

    return script if script in _MODULES or script in BENCHMARKS else None


def _flags_in_a_list(segments: list[list[str]]) -> bool:
    """Whether the text writes flags as the items of a list literal over several lines
    (Python's ``other_args = [`` then ``"--tp",`` a line, as SGLang's tests keep them):
    a line opens a list, or starts with a flag still followed by the item's comma once the
    shell has dropped its quotes. Those lines are a program's data, not bare flags given as
    a launch, so the text starts no launch, as the same list on one line does."""
    return any(seg and (seg[-1].endswith("[") or (
        _FLAG_WORD.match(seg[0]) and seg[0].endswith(","))) for seg in segments)


#: What SGLang's start-up log prints its resolved arguments after.


def _positional(arguments: list[str], values: dict[str, str]) -> list[str]:
    """Set ``$1``, ``$2``, ... to ``arguments`` (the others unset); give them back."""
    for name in [name for name in values if name.isdigit()]:
        del values[name]
    values.update((str(n), word) for n, word in enumerate(arguments, 1))
    return arguments


def _call_frame(segments: list[list[str]], start: int,
                values: dict[str, str]) -> tuple[int, dict[str, str]] | None:
    """For the function defined at ``segments[start]``: bind ``values``' ``$1``, ``$2`` ...
    to the arguments of the script's first call of it (what the script sets between the
    definition and that call set first, as the direct launch's reading does), and give
    back (where its body ends, the positional parameters they replace). A launch the body
    hands to another shell (``ssh "$node" "... --tp $1"``, ``bash -c "..."``) is expanded
    by this shell within the call. None when the script never calls it."""
    call = _function_call(segments, start)
    if call is None:
        return None
    hidden = {name: value for name, value in values.items() if name.isdigit()}
    for before in segments[call[1] + 1:call[2]]:
        shell_vars.declared(before, values)
    _positional([shell_vars.expand(w, values) for w in call[3]], values)
    return call[1], hidden


def _function_call(segments: list[list[str]],
                   at: int) -> tuple[int, int, int, list[str]] | None:
    """(where the function holding command ``at`` starts, where its body ends, where the
    script first calls it after that, the call's arguments) when the launch is inside a
    shell function the script calls (``launch Qwen/Qwen3-8B 30000``), else None."""
    opened: list[tuple[str, int]] = []  # (function name, index of its definition)
    inside: tuple[str, int] | None = None
    end = None
    for n, seg in enumerate(segments):
        name = _defined_function(seg)
        if name is not None:
            opened.append((name, n))
        elif seg[:1] == ["}"] and opened:
            done = opened.pop()
            if inside is not None and done == inside:
                end = n
                break
        if n == at and opened:
            inside = opened[-1]
    if inside is None or end is None:
        return None
    for n in range(end + 1, len(segments)):
        words = [w for w in segments[n] if not _ASSIGNMENT.match(w)]
        if words[:1] == [inside[0]]:
            args: list[str] = []
            for word in words[1:]:
                if _REDIRECT.match(word) or _REDIRECT_WITH_TARGET.match(word):
                    break
                args.append(word)
            return inside[1], end, n, args
    return None


def _defined_function(segment: list[str]) -> str | None:
    """The name a function definition starting ``segment`` defines (``serve() {``,
    ``function serve {``), else None."""
    if segment[:1] == ["function"] and len(segment) > 1:
        return segment[1].removesuffix("()")
    if segment and segment[0].endswith("()") and len(segment[0]) > 2 and segment[1:] in (
            [], ["{"]):
        return segment[0][:-2]
    return None


def _captioned_flags(segments: list[list[str]],
                     notes: list[str] | None) -> list[str] | None:
    """The launch a pasted list of bare flags stands for, when prose captions it or an
    environment block goes with it: an issue's "Server args:" (or "I launch with") over
    lines of ``--flag value``, with ``export SGLANG_X=1`` (or ``SGLANG_X=1``) in another
    block. No command starts there, so the text describes a launch rather than scripting
    one: the flag lines are its arguments, each line of prose right before them (or before
    the environment) is a caption, not words of the launch, and the assignments are its
    environment; flags written as a Markdown list's items (``- --tp 2``) are the flags.
    They come back as the launch they describe (the assignments, SGLang's launcher, the
    flags), which ``unpaste`` takes apart as any other. None when the text holds no flag
    line, or no caption, environment line or listed flag (its words stay as they are),
    so any other word still reaches the parser and is named there as a stray argument:
    prose after the flags, a command of another program."""
    kinds = [_line_kind(seg) for seg in segments]
    listed = any(kind == "flags" and _unlisted(seg) != seg for seg, kind in zip(segments, kinds))
    if "flags" not in kinds or not ({"prose", "env"} & set(kinds) or listed):
        return None
    values: dict[str, str] = {}
    env: list[str] = []
    kept: list[str] = []
    captions: list[str] = []
    for n, (seg, kind) in enumerate(zip(segments, kinds)):
        if kind == "env" and _unlisted(seg)[0] == "unset":
            gone = set(_unlisted(seg)[1:])
            env = [a for a in env if a.partition("=")[0] not in gone]
        elif kind == "env":
            seg = _unlisted(seg)
            names = shell_vars.declared(seg, values)
            if seg[0] not in _SETUP:  # ``SGLANG_X=1`` alone: the block's environment
                names = [w.partition("=")[0].removesuffix("+") for w in seg]
            env.extend(f"{name}={values[name]}" for name in names if name in values)
        elif kind == "prose" and _captions(kinds, n):
            captions.append(" ".join(seg))
        else:  # a Markdown list's item (``- --tp 2``): the flags, not the list's dash
            kept.extend(_unlisted(seg) if kind == "flags" else seg)
    if notes is not None and captions:
        shown = "; ".join(repr(c) for c in captions[:2]) + ("; …" if len(captions) > 2 else "")
        notes.append(f"the pasted text lists flags without a launch command: read as "
                     f"SGLang's launch, the prose over them ({shown}) as captions, not "
                     "arguments" + (", and the assignments as its environment" if env else ""))
    return [*env, "python3", "-m", "sglang.launch_server", *kept]


def _captions(kinds: list[str], at: int) -> bool:
    """Whether the prose line ``at`` (with any prose lines right after it) stands right
    before a line of the launch: its flags or its environment."""
    for kind in kinds[at + 1:]:
        if kind in ("blank", "prose"):
            continue
        return kind in ("flags", "env")
    return False


#: A word of a sentence or a caption (``Server``, ``args:``, ``don't``, ``8``, ``(H100)``,
#: Markdown's ``**Launch`` ``args**``).
_CAPTION_WORD = re.compile(r"^[(*_]*(?:[A-Za-z][A-Za-z'’-]*|\d+)[,.:;!?)*_]*$")
#: Words after a program's name that make a line its command, not prose (``vllm serve m``).
_SUBCOMMANDS = frozenset({"serve", "run", "exec", "start", "launch"})


def _unlisted(segment: list[str]) -> list[str]:
    """``segment`` without the marker of a Markdown or YAML list item it starts with."""
    return segment[1:] if segment[:1] in (["-"], ["*"], ["+"]) else segment


def _line_kind(segment: list[str]) -> str:
    """What one line of a text without a launch command is: ``flags`` (it starts with one),
    ``env`` (assignments, or ``export``/``declare`` of them), ``prose`` (a sentence or a
    caption: words of letters, any words ending in a colon, a Chinese or Japanese page's
    full-width one too, or one capitalised word),
    ``blank``, or ``other`` (a command, anything else)."""
    words = _unlisted(segment)
    if not words:
        return "blank"
    if _FLAG_WORD.match(words[0]):
        return "flags"
    if all(shell_vars.ASSIGNMENT.match(w) for w in words) or (
            words[0] in ("export", "declare") and len(words) > 1
            and all(shell_vars.ASSIGNMENT.match(w) or w.startswith("-") for w in words[1:])):
        return "env"
    if words[0] == "unset" and len(words) > 1 and all(
            _ENV_NAME_ONLY.match(w) for w in words[1:]):
        return "env"  # the environment block takes a variable out again
    first = words[0]
    if _is_runner(first) or _PYTHON.match(first) or _is_sglang_cli(first) or (
            len(words) > 1 and first[:1].islower() and words[1] in _SUBCOMMANDS):
        return "other"  # a program's command line, however plain its words
    if words[-1].endswith((":", "\uff1a")) or (len(words) > 1
                                    and all(_CAPTION_WORD.match(w) for w in words)):
        return "prose"
    if len(words) == 1 and _TITLE_WORD.match(first):  # a one-word heading: ``Args``
        return "prose"
    return "other"


#: A capitalised word alone on its line (``Args``, ``**Env**``): a heading, no program.
_TITLE_WORD = re.compile(r"^[*_#]*[A-Z][a-z]+[*_]*$")

#: A script's arguments, all of them, as a launch passes them on (``"$@"`` unquoted by now).
_ALL_ARGUMENTS = frozenset({"$@", "${@}", "$*", "${*}"})


#: Shells that run a launch handed to them as one argument on this host, in its environment.
_LOCAL_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
#: Programs that start what follows them in the caller's environment: a Slurm step (``srun``,
#: Pyxis containers too), an Apptainer container, a process wrapper. A shell one of them
#: starts (``srun --container-image=I bash -c "..."``) inherits the script's exports.
_INHERITING_STARTERS = frozenset({"srun", "apptainer", "singularity", "timeout", "numactl",
                                  "taskset", "setsid", "nice", "stdbuf", "chrt", "screen"})


def _runs_script(seg: list[str]) -> bool:
    """Whether ``seg`` hands a shell one argument to run (``bash -c "${cmd}"``, ``tmux
    new-session -d -s S "${cmd}"``)."""
    return any(w.rsplit("/", 1)[-1] in _LOCAL_SHELLS and _SCRIPT_OPTION.match(seg[at + 1])
               for at, w in enumerate(seg[:-2])) or (
        bool(seg) and seg[0].rsplit("/", 1)[-1] in ("tmux", "screen"))


def _hands_to_shell(seg: list[str]) -> bool:
    """Whether ``seg`` passes a launch as one argument to a shell's ``-c``."""
    return any(w.rsplit("/", 1)[-1] in _LOCAL_SHELLS and any(
        _SCRIPT_OPTION.match(option) for option in seg[at + 1:])
        for at, w in enumerate(seg)) and any(" " in w and "sglang" in w for w in seg)


def _exported_to_local_shell(segments: list[list[str]],
                             notes: list[str] | None = None) -> list[str]:
    """The ``NAME=value`` pairs that reach a shell the script hands its launch to as one
    argument: what the script exports, and what the command sets before its program
    (``export X=1`` then ``bash -c "python -m ..."``, ``CUDA_VISIBLE_DEVICES=0 bash -c '...'``,
    a systemd unit's ``Environment=`` then ``ExecStart=/bin/bash -c '...'``), the shell
    started directly or through a program that keeps the caller's environment (``srun``,
    ``apptainer exec``, ``nohup``). A container runner's shell (``docker run ... bash -c``)
    gets only what its ``-e``/``--env`` options pass (a note names the exports left on the
    host); a remote shell (``ssh``) or ``sudo``'s reset environment, none."""
    values: dict[str, str] = {}
    names: list[str] = []
    for seg in segments:
        if not _hands_to_shell(seg):
            names.extend(shell_vars.declared(seg, values))
            continue
        lead = 0
        while lead < len(seg) and _ASSIGNMENT.match(seg[lead]):
            lead += 1
        program = next((w for w in seg[lead:] if w not in _WRAPPERS), "")
        base = program.rsplit("/", 1)[-1]
        exported = [f"{name}={values[name]}" for name in dict.fromkeys(names)]
        if _isolated(seg[lead:]):  # docker run -e X=1 IMAGE bash -c "...": its -e options
            before = dict(values)  # ``-e X=$A`` is expanded before ``A=1 docker`` sets A
            shell_vars.assigned(seg[:lead], values)  # set for the docker client, on the host
            exported += [f"{w.partition('=')[0]}={values[w.partition('=')[0]]}"
                         for w in seg[:lead]]
            passed = _passed_into_container(seg[lead:], exported, values, notes)
            return [shell_vars.expand(w, before) for at, w in enumerate(passed)
                    if at and passed[at - 1] in _ENV_OPTIONS and _ASSIGNMENT.match(w)]
        if base not in _LOCAL_SHELLS and base not in _INHERITING_STARTERS:
            return []  # ssh host "...", sudo bash -c '...': not this script's environment
        own = seg[:lead]  # A=1 bash -c '...': set for that command alone
        shell_vars.assigned(own, values)
        inherited = [*exported, *(f"{w.partition('=')[0]}={values[w.partition('=')[0]]}"
                                  for w in own)]
        if base in ("apptainer", "singularity"):  # its --env options, --cleanenv, prefixes
            shell = next(at for at, w in enumerate(seg) if at > lead
                         and w.rsplit("/", 1)[-1] in _LOCAL_SHELLS)
            return _container_env([*inherited, *seg[lead:shell]])
        return inherited
    return []


def _quoted_launches(segments: list[list[str]], depth: int = 0,
                     notes: list[str] | None = None,
                     where: list[int] | None = None) -> list[list[str]]:
    """The words of each launch a command passes as one quoted argument, for another shell
    to run: ``ssh node0 "cd /srv && python -m sglang.launch_server ..."``, ``bash -c '...'``,
    ``tmux new-session -d "..."``, ``screen -dm bash -c "..."``. That shell runs it as a
    command line of its own, so it is read as one, with the variables this script sets
    expanded first (the double quotes people pass it in let this shell do so, even inside
    the inner script's single quotes). So is a launch the script keeps in a
    variable to run later (``CMD="python -m ..."``, then ``eval "$CMD"``): the value as the
    assignment left it, the variables set before it expanded. A variable a script builds
    the launch in, line by line (``CMD="$CMD --tp $TP"``), holds one launch: its last value.
    A quoted command that hands a further quoted one on (``ssh node0 "docker exec c bash -c
    '...'"``, ``depth`` levels in) is read down to the launch."""
    out: list[list[str]] = []
    held: dict[str, int] = {}  # a variable holding a launch -> where that launch is in out
    values: dict[str, str] = {}  # what the script sets, for a launch it keeps in a variable
    frames: list[tuple[int, dict[str, str]]] = []  # (a function's end, the $N it hid)
    for index, seg in enumerate(segments):
        while frames and index >= frames[-1][0]:
            _, hidden = frames.pop()  # the call is over: the script's own $N again
            for name in [name for name in values if name.isdigit()]:
                del values[name]
            values.update(hidden)
        if _defined_function(seg) is not None:
            frame = _call_frame(segments, index, values)
            if frame is not None:
                frames.append(frame)
        before = len(out)
        if seg[:2] == ["printf", "-v"] and len(seg) >= 4:  # printf -v CMD 'TEMPLATE' ARGS
            printed = dict(values)
            shell_vars.declared(seg, printed)
            if seg[2] in printed:
                seg = [f"{seg[2]}={printed[seg[2]]}"]  # the variable it fills, as assigned
        assignment = bool(seg) and all(shell_vars.ASSIGNMENT.match(word) for word in seg)
        names: list[str | None] = [None] * len(seg)
        if assignment:  # CMD="python -m sglang.launch_server --port $PORT", run by eval "$CMD"
            shell_vars.declared(seg, values)  # (CMD+=" --tp 8" appends)
            names = [word.partition("=")[0].removesuffix("+") for word in seg]
            seg = [values[name] for name in names]
        else:
            shell_vars.declared(seg, values)
            if _prints(seg):  # echo "Start it with: python -m ...": shown, not started
                continue
        for at, (name, word) in enumerate(zip(names, seg)):
            if " " not in word or "sglang" not in word:
                continue
            given = None if assignment else _script_arguments(seg, at, values)
            if given is None and not assignment:
                # bash -c "... '$MODEL' ...": this shell expands its own first
                word, given = _expanded_script(seg, at, values, notes)
            try:
                inner = _shell_words(word)
            except InputError:
                continue
            if given is not None:  # bash -c '... "$@"' NAME ARGS: the script's "$@" is ARGS
                inner = ["set", "--", *given, ";", *inner]
            if any(_starts_launch(part) for part in _segments(inner)):
                if name in held:  # the same variable again: the launch it is being built in
                    out[held[name]] = inner
                    continue
                if name is not None:
                    held[name] = len(out)
                out.append(inner)
            elif depth < 3:  # ssh host "docker exec c bash -c '...'": a shell in a shell
                nested = _segments(inner)
                found = _quoted_launches(nested, depth + 1, notes)
                # what that script exports reaches the shell it hands its launch to
                inherited = _exported_to_local_shell(nested, notes) if found else []
                out.extend(["export", *inherited, ";", *launch] if inherited else launch
                           for launch in found)
        if where is not None:  # each new launch's segment; -1: one a variable keeps
            where.extend([-1 if assignment else index] * (len(out) - before))
    return out


def _launch_order(segments: list[list[str]]) -> list[tuple[int, list[str] | None]]:
    """The launches of ``segments`` in the order the script starts them, when it starts
    some itself and hands others to another shell (``python -m ... &`` then ``ssh node1
    "python -m ..."``): (segment, None) for one it runs, (segment, words) for a quoted
    one. A launch a variable keeps is run where the script runs that variable, which the
    segments already show. Empty when no segment starts a launch itself."""
    # (an array's assignment, ``ARGS=(-m sglang.launch_server ...)``, starts nothing: the
    # command that expands the array does, with what later ``ARGS+=(...)`` added; only when
    # no command's expansion is known is the assignment read for the launch)
    starting = [(n, seg[:1] == [shell_arrays.MARK]) for n, seg in enumerate(segments)
                if _starts_launch(seg)]
    if len(starting) > 1:  # ``--help | grep nixl`` before the launch: a usage check
        starting = [(n, held) for n, held in starting if not _asks_help(segments[n])] \
            or starting
    direct = [(n, None) for n, held in starting if not held] \
        or [(n, None) for n, _ in starting]
    if not direct:
        return []
    where: list[int] = []
    quoted = _quoted_launches(segments, where=where)
    own = {n for n, _ in direct}
    extra = [(n, words) for n, words in zip(where, quoted)
             if n >= 0 and n not in own and _hands_to_a_shell(segments[n])]
    return sorted([*direct, *extra], key=lambda item: item[0])


def _asks_help(segment: list[str]) -> bool:
    """Whether the launch in ``segment`` asks for SGLang's usage (``python -m
    sglang.launch_server --help``, ``sglang serve -h``): the parser prints it and exits,
    starting no server, so a text's real launch is another command."""
    if "--help" not in segment and "-h" not in segment:
        return False
    at = next((i for i in range(len(segment)) if _prefix_end(segment, i) is not None), None)
    end = _prefix_end(segment, at) if at is not None else None
    return end is not None and any(w in ("--help", "-h") for w in segment[end:])


#: Programs that run a string they are given as a command line (``ssh node1 "..."``, ``tmux
#: new-session -d "..."``); a shell does with ``-c`` (``_SCRIPT_OPTION``).
_HANDING = frozenset({*_JOINING, "tmux", "screen", "su", "runuser"})


def _hands_to_a_shell(segment: list[str]) -> bool:
    """Whether ``segment`` hands a quoted string to a shell to run, as opposed to naming it
    (``pgrep -f "sglang serve"``, ``echo "python -m sglang..."`` start nothing)."""
    return any(_SCRIPT_OPTION.match(word) or word.rsplit("/", 1)[-1] in _HANDING
               for word in segment)


#: A shell's option cluster that ends in ``c``: the next word is the script it runs
#: (``-c``, ``-lc``, ``-ec``).
_SCRIPT_OPTION = re.compile(r"^-[a-z]*c$")


def _expanded_script(seg: list[str], at: int, values: dict[str, str],
                     notes: list[str] | None) -> tuple[str, list[str] | None]:
    """(the quoted command ``seg[at]`` once this shell has expanded the script's variables
    and arrays in it, the arguments its ``-c`` shell then gets, if any). The shell expands
    inside the double quotes before the inner shell splits the string, so ``${ARGS[*]}``
    gives that shell all the flags. ``${ARGS[@]}`` of several items cuts the string instead:
    a ``-c`` shell runs only the text up to its first item, the further items being its
    ``$0`` and arguments (a note says so). Any other command is read with the pieces joined
    again, as ``ssh`` joins its arguments into the one line the remote shell runs."""
    pieces = shell_arrays.in_double_quotes(shell_vars.expand(seg[at], values), values)
    if len(pieces) == 1:
        return pieces[0], None
    if not (at and _SCRIPT_OPTION.match(seg[at - 1])):
        return " ".join(pieces), None
    if notes is not None:
        shown = " ".join(pieces[1:4]) + (" …" if len(pieces) > 4 else "")
        notes.append(f"a ${{NAME[@]}} array inside the double-quoted {seg[at - 1]} script "
                     "splits it into several arguments: the shell runs only the script up to "
                     f"the array's first item, the rest ({shown}) being its $0 and arguments, "
                     "not flags of the launch (write ${NAME[*]} to pass them all)")
    words = [*seg[:at + 1], *pieces[1:], *seg[at + 1:]]
    return pieces[0], _script_arguments(words, at, values)


def _script_arguments(seg: list[str], at: int, values: dict[str, str]) -> list[str] | None:
    """The arguments a shell's ``-c`` script at ``seg[at]`` is given after it (``bash -c
    SCRIPT NAME ARGS...``: NAME is its ``$0``, ARGS its ``"$@"``), this shell's variables in
    them expanded and its redirections left out; None when ``seg[at]`` is no such script or
    nothing follows it. A script given arguments so is written in single quotes for its
    own shell to expand (``exec python3 -m sglang.launch_server "$@"``), so none of its words
    are this shell's to expand."""
    if at < 2 or not _SCRIPT_OPTION.match(seg[at - 1]) or len(seg) <= at + 2 or not any(
            w.rsplit("/", 1)[-1] in _LOCAL_SHELLS for w in seg[:at - 1]):
        return None
    given: list[str] = []
    skip = False
    for word in seg[at + 2:]:
        if skip:
            skip = False
        elif _REDIRECT.match(word):
            skip = True
        elif not _REDIRECT_WITH_TARGET.match(word):
            given.extend(_expanded_word(word, values))
    return given or None


def _orphaned_flags(after: list[list[str]], notes: list[str]) -> None:
    """A note when the lines right after the launch start with flags: the launch's last line
    lacks its continuation backslash, so the shell ends the command there and runs those
    lines on their own (failing); SGLang never sees their flags, and the plan leaves them
    out as well. When a comment ended the command (``_comment_breaks``) the note names it,
    since adding a backslash there would only lengthen the comment."""
    lost: list[str] = []
    for seg in after:
        if not seg:
            continue
        if not (seg[0].startswith("--") and len(seg[0]) > 2):
            break
        lost.extend(seg)
    if lost:
        shown = " ".join(lost[:6]) + (" …" if len(lost) > 6 else "")
        broken = _comment_breaks(_SPLIT_TEXT).get(lost[0])
        if broken is not None:
            comment, alone = broken
            cause = (f"a comment line inside the continued launch ('{comment}') ends it: the "
                     "shell reads that line as a comment" if alone else
                     f"the backslash at the end of a launch line is part of its comment "
                     f"('{comment}'), so it does not continue the line"
                     if comment.endswith("\\") else
                     f"a launch line ends in a comment ('{comment}'), which leaves no place "
                     "for its continuation backslash (one after it is part of the comment)")
            notes.append(f"{cause}, and the lines after it ({shown}) are a command of their "
                         "own to the shell: SGLang does not get those flags and they are not "
                         "planned (move the comments out of the command, e.g. above it, or "
                         "drop them)")
            return
        notes.append(f"the launch's last line does not end in a backslash, so the lines after "
                     f"it ({shown}) are a command of their own to the shell: SGLang does not "
                     "get those flags and they are not planned (end the line before them "
                     "with ' \\' to pass them)")


def _comment_breaks(text: str) -> dict[str, tuple[str, bool]]:
    """Where a comment ends a continued command of ``text`` right before a flag line: the
    flag line's first word -> (the comment, whether it is a line of its own). A comment line
    between backslash-continued lines (runbooks annotate each flag so) and a backslash after
    a ``#`` (``--tp 2  # tensor parallel \\``) both end the command, as the shell reads them;
    only a missing backslash is fixed by adding one."""
    found: dict[str, tuple[str, bool]] = {}
    if "#" not in text:
        return found
    lines = text.splitlines()
    pending = False  # the line before went on to this one
    for at, line in enumerate(lines):
        bare = line.rstrip(" \t\r")
        comment = _comment_start(bare)
        if comment is not None and (pending or bare.endswith("\\")):
            following = next((n.split() for n in lines[at + 1:] if n.strip()), [])
            if following and following[0].startswith("--"):
                found.setdefault(following[0], (
                    bare[comment:].strip(), not bare[:comment].strip()))
        pending = comment is None and bare.endswith("\\") and bare == line.rstrip("\r")
    return found


def _wrapped_value(launch: list[str], after: list[list[str]], notes: list[str]) -> None:
    """A note when the launch ends with a flag's value and the line after it starts with a
    word that is no program followed by SGLang's flags (``--dist-init-addr 10.4`` then
    ``2.74.84:20010 --nnodes 2 --node-rank 0``): a page or terminal wrapped the one long
    line inside that value. The shell (and the plan) reads the launch up to the line's end,
    so the flags after the break are not planned: say so rather than plan it silently."""
    if not after or len(after[0]) < 2 or len(launch) < 2 or after[0][0].startswith("-") \
            or not after[0][1].startswith("--") or _PYTHON.match(after[0][0]) \
            or _is_runner(after[0][0]) or after[0][0] in _CONTROL:
        return
    from launchplan.input.cli import flags_of, takes_value

    if not takes_value(launch[-2]) or after[0][1] not in flags_of():
        return
    seg = after[0]
    shown = " ".join(seg[:6]) + (" …" if len(seg) > 6 else "")
    notes.append(f"the line after the launch ({shown}) starts with {seg[0]!r}, no program, "
                 f"then SGLang flags: the launch's line looks wrapped inside its last value "
                 f"({launch[-2]} {launch[-1]}); it is planned up to that line's end, without "
                 "the flags after the break (join the lines to plan them)")


#: A word that is one variable reference and nothing else (``$EXTRA_ARGS``, ``${EXTRA}``).
_WHOLE_REFERENCE = shell_vars.WHOLE_REFERENCE


def _whole_expansion(word: str) -> bool:
    """Whether ``word`` is one parameter expansion with an operator and nothing around it
    (``${EXTRA_ARGS:-}``, ``${FP8:+--kv-cache-dtype fp8_e4m3}``): unquoted, the shell
    splits its value into words as it does a bare ``$EXTRA``'s, and an empty one is none."""
    if not _OPERATOR_EXPANSION.match(word):
        return False
    depth = 0
    for at, char in enumerate(word):
        if char == "{" and word[at - 1] == "$":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return at == len(word) - 1  # the first ${ closes at the word's end
    return False


#: One item of an array as a whole word (``${EXTRA[$role]}``, ``${GPUS[0]}``): split as a
#: bare reference's value is.
_WHOLE_ITEM = re.compile(r"^\$\{[A-Za-z_]\w*\[[^\]@*]+\]\}$")
#: ``${NAME`` followed by a default, alternative, assignment or required-value operator.
_OPERATOR_EXPANSION = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*:?[-+=?].*\}$", re.S)


def _expanded_word(word: str, values: dict[str, str]) -> list[str]:
    """A launch word with the script's variables expanded: one word, or several when the
    word is a bare reference (or an array's item, ``${EXTRA[$role]}``) to a value holding
    flags (``PREFILL_EXTRA="--a --b 2"`` then ``$PREFILL_EXTRA``), which the shell splits
    at its spaces. The quotes that would keep
    it whole are gone by now, so only a value that starts with a flag, or holds integers
    alone (batch sizes a loop collected), is split: a quoted path with a space in it stays
    one word. A bare reference to an empty value is no word
    (a quoted one would be an empty argument, which no launch passes on purpose)."""
    if word.startswith(shell_arrays.QUOTED):  # an array's ``"$IP"`` item read as the launch
        value = shell_vars.expand(word[len(shell_arrays.QUOTED):], values)
        return [value] if value else []
    listed = shell_arrays.items(word, values)  # "${ARGS[@]}": the array's items
    if listed is not None:
        return listed
    value = shell_vars.expand(word, values)
    if value != word and (_WHOLE_REFERENCE.match(word) or _whole_expansion(word)
                          or _WHOLE_ITEM.match(word)):
        parts = shell_vars.fields(value)
        if not parts:  # set to nothing (``MOE_ARGS=""``): the shell passes no word at all
            return []
        if len(parts) > 1 and (parts[0].startswith("-") or all(p.isdigit() for p in parts)):
            return parts  # flags, or a list of numbers (``BS="$BS $b"`` over batch sizes)
    return [value]


def _env_operands(words: list[str], values: dict[str, str]) -> list[str]:
    """``words`` with each bare reference among ``env``'s leading operands (``env $COMMON
    CUDA_VISIBLE_DEVICES=4 setsid nohup sglang serve ...``) replaced by the words its value
    splits into, when those are all ``NAME=VALUE``: the shell splits the unquoted value
    before env runs, and env(1) takes every leading ``NAME=VALUE`` operand as an assignment
    (POSIX env: ``[name=value]... [utility [argument...]]``). A script keeps an environment
    shared by several launches so. Other words as they are."""
    if "env" not in words:
        return words
    out: list[str] = []
    after_env = False
    for at, word in enumerate(words):
        if word == "env" or (after_env and (_ASSIGNMENT.match(word) or word in _WRAPPERS)):
            after_env = True
            out.append(word)
            continue
        if after_env and _WHOLE_REFERENCE.match(word):
            parts = shell_vars.fields(shell_vars.expand(word, values))
            if all(_ASSIGNMENT.match(part) for part in parts):
                out.extend(parts)  # nothing, for an empty value
                continue
        if not _ASSIGNMENT.match(word) or after_env:
            return [*out, *words[at:]]
        out.append(word)
    return out


def _from_command(words: list[str]) -> list[str]:
    """``words`` from the start of the command that runs the launcher: its runner
    (``docker run ...``) or the assignments and wrappers right before its prefix, after the
    assignments that start the command when a program of another kind stands between
    (``numactl``, ``timeout 600``, ``poetry run``): the shell sets those for it, and the
    launcher it starts inherits them."""
    prefix = next(i for i in range(len(words)) if _prefix_end(words, i) is not None)
    before = words[:prefix]
    runner = _runner_start(before)
    if runner is not None:
        return words[runner:]
    start = prefix
    while start > 0 and (_ASSIGNMENT.match(words[start - 1]) or words[start - 1] in _WRAPPERS):
        start -= 1
    lead = 0  # ``CUDA_VISIBLE_DEVICES=1 numactl -N 0 python -m ...``: the command's own
    while lead < start and (_ASSIGNMENT.match(words[lead]) or words[lead] in _WRAPPERS):
        lead += 1  # assignments are its environment, whatever program it starts first
    return [w for w in words[:lead] if _ASSIGNMENT.match(w)] + words[start:]


#: Runners whose container starts with its image's environment, not the caller's: only what
#: their ``-e``/``--env`` options pass reaches the launch.
_ISOLATING_RUNNERS = frozenset({"docker", "podman", "nerdctl", "nvidia-docker", "kubectl"})


def _isolated(command: list[str]) -> bool:
    """Whether ``command`` (from its runner or launcher on) runs the launch in a container
    that does not inherit the shell's exported variables (``docker run``, ``podman run``)."""
    program = next((w for w in command if not _ASSIGNMENT.match(w) and w not in _WRAPPERS), "")
    if program.rsplit("/", 1)[-1] == "sudo":  # ``sudo docker run``: the runner after it
        program = next((w for w in command[command.index(program) + 1:]
                        if not w.startswith("-")), "")
    return program.rsplit("/", 1)[-1] in _ISOLATING_RUNNERS


def _passed_into_container(command: list[str], exported: list[str], values: dict[str, str],
                           notes: list[str] | None) -> list[str]:
    """``command`` with each bare ``-e NAME`` (``--env NAME``) of a variable the script
    exported written as ``-e NAME=VALUE``: the runner passes the caller's value in, and the
    script says what it is. The script's other exports stay on the host: the container
    starts with its image's environment and the ``-e`` assignments only, so they are no
    environment of the launch (a note says so)."""
    names = {assignment.partition("=")[0] for assignment in exported}
    out: list[str] = []
    passed: set[str] = set()
    for at, word in enumerate(command):
        before = command[at - 1] if at else ""
        if before in _ENV_OPTIONS and word in names and word in values:
            word = f"{word}={values[word]}"
            passed.add(word.partition("=")[0])
        elif before in _ENV_OPTIONS and "=" in word:
            passed.add(word.partition("=")[0])
        out.append(word)
    left = [name for name in dict.fromkeys(a.partition("=")[0] for a in exported)
            if name not in passed]
    if notes is not None and left:
        shown = ", ".join(left[:4]) + (", …" if len(left) > 4 else "")
        notes.append(f"the script sets {shown} on the host, but the container starts with "
                     "its image's environment and only what -e/--env passes in: not planned as "
                     "the launch's environment (pass them with -e NAME to the container)")
    return out


def _interpreter_variable(words: list[str], i: int) -> bool:
    """A script's interpreter held in a variable (``$PYTHON -m sglang.launch_server``): a
    bare reference right before ``-m`` and SGLang's launcher module."""
    return (bool(_WHOLE_REFERENCE.match(words[i])) and i + 2 < len(words)
            and words[i + 1] == "-m" and words[i + 2] in _MODULES)


def _is_command_token(token: str) -> bool:
    return token in _MODULES or _is_sglang_cli(token) or bool(_PYTHON.match(token))


def _is_sglang_cli(word: str) -> bool:
    """SGLang's console script, by name or by path (``./.venv/bin/sglang``, as a venv
    that is not activated runs it). Its ``launch_server``, a mix-up with the module's name,
    is found as a launcher too, so that the launch read can be refused as SGLang refuses it."""
    return word == "sglang" or (word.endswith("/sglang") and "://" not in word)


def _benchmark_launch(words: list[str], at: int) -> bool:
    """Whether ``words[at]`` is a module of SGLang's benchmarks that starts the engine from
    the server flags after it (``benchmarks``): a launch too."""
    if not words[at].startswith("sglang.bench"):  # the common case, without the import
        return False
    from launchplan.input import benchmarks

    return benchmarks.starts_engine(words[at], words[at + 1:])


def _prefix_end(words: list[str], i: int, first: bool = False) -> int | None:
    """If a launcher prefix starts at ``i``, the index just after it; ``first``: ``i`` is
    where a command's words begin, whatever word comes before it in ``words``."""
    word = words[i]
    if _PYTHON.match(word) or _interpreter_variable(words, i):
        j = i + 1
        while j < len(words) and words[j] in ("-u", "-O", "-B"):
            j += 1
        if j + 1 < len(words) and words[j] == "-m" and (
                words[j + 1] in _MODULES or _benchmark_launch(words, j + 1)):
            return j + 2
        if j < len(words) and (words[j] == "sglang/launch_server.py"
                               or words[j].endswith("/sglang/launch_server.py")):
            return j + 1  # SGLang's own file by path (a checkout's python/sglang/...); a
            # launch_server.py elsewhere is a script of the user's, with flags of its own
        return None
    if _is_sglang_cli(word) and i + 1 < len(words) and words[i + 1] in ("serve", "launch_server"):
        return i + 2
    if word in _MODULES and (i == 0 or first or words[i - 1] in ("-m", "m", ";")
                             or _ASSIGNMENT.match(words[i - 1])
                             or not (_PROSE_WORD.match(words[i - 1])
                                     or _PYTHON.match(words[i - 1]))):
        # any program's -m (its dash lost too); a sentence's word is prose, and python
        # given the module's name as its script (``python3 sglang.launch_server``) looks
        # for a file of that name, starting nothing (``_require_flags`` names the lost -m)
        return i + 1
    return None


#: A word of a sentence (``start sglang.launch_server get error``): lower-case letters only.
_PROSE_WORD = re.compile(r"^[a-z]+[,.]?$")
