"""Here-documents in a pasted script: the files they write, and the script without them.

SGLang's own docs write a config file with ``cat > config.yaml << EOF`` ... ``EOF`` and then
start ``python -m sglang.launch_server --config config.yaml``; scripts write a launch script
or an environment file the same way. The lines of a here-document are the file's text, not
commands: the script is read without them, and the text of each file a ``cat > FILE`` (or
``tee FILE``) writes is kept, so a launch that names the file can be read with it. A
here-document fed to ``kubectl apply -f -`` is the manifest the cluster runs.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator, Mapping
from typing import NamedTuple

#: A line that opens a here-document: ``<< EOF``, ``<<'EOF'``, ``<<-"END"``.
_OPENER = re.compile(r"<<-?[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\1")
#: The file such a line writes: ``cat > FILE``, ``cat <<EOF >FILE``, ``tee FILE``.
_TARGET = re.compile(r"(?:(?<![<>&\d])>>?|\btee(?:[ \t]+-a)?)[ \t]*(['\"]?)([^\s'\"<>|;&]+)\1")


def split_off(text: str) -> tuple[str, dict[str, str]]:
    """(``text`` with every here-document's body left out, {file written: its text}). A
    body is dedented (a page indents the whole block under a list item); a here-document
    that never closes keeps its lines, as text that is not one."""
    if "<<" not in text:
        return text, {}
    lines = text.split("\n")
    kept = list(lines)
    files: dict[str, str] = {}
    for start, opener, end in closed_heredocs(lines):
        target = _TARGET.search(lines[start])
        if target is not None:
            body = textwrap.dedent("\n".join(lines[start + 1:end]))
            files[target.group(2)] = body if opener.group(1) else _as_written(body)
        for i in range(start + 1, end + 1):
            kept[i] = ""  # line numbers stay put
    return "\n".join(kept), files


#: A here-document read into a variable: ``read -r -d '' NAME <<EOF`` (NVIDIA's cluster
#: scripts build the launch this way) and ``NAME=$(cat <<EOF`` (its body, then ``)``).
_READ_INTO = re.compile(r"^\s*read\b(?:\s+-[a-zA-Z]+(?:\s+(?:''|\"\"|\S+))?)*?\s+"
                        r"([A-Za-z_]\w*)\s*<<")
_CAPTURED = re.compile(r"^\s*(?:export\s+|local\s+)?([A-Za-z_]\w*)=\$\(\s*cat\s*<<")


def as_assignments(text: str) -> str:
    """``text`` with each here-document read into a variable written as that variable's
    assignment (``NAME='...'``, the body as the shell leaves it: an unquoted delimiter's
    continuations joined, its ``$NAME`` references kept for the reader to expand), so that
    a launch that runs the variable (``bash -c "${cmd}"``) is read with it."""
    if "<<" not in text or ("read" not in text and "$(" not in text):
        return text
    lines = text.split("\n")
    out = list(lines)
    for start, opener, end in closed_heredocs(lines):
        if _LOOP_FED.match(lines[start]):
            _first_row_read(lines, out, start, end)
            continue
        into = _READ_INTO.match(lines[start]) or _CAPTURED.match(lines[start])
        if into is None:
            continue
        body = textwrap.dedent("\n".join(lines[start + 1:end]))
        body = body if opener.group(1) else _as_written(body)
        captured = into.re is _CAPTURED
        if captured and (end + 1 >= len(lines) or lines[end + 1].strip() != ")"):
            continue  # ``$(cat <<EOF ... EOF`` must close its substitution next
        quote = "'" if opener.group(1) else '"'
        value = body.strip("\n") if captured else body
        value = value.replace("\\", "\\\\").replace('"', '\\"') if quote == '"' \
            else value.replace("'", "'\\''")
        out[start] = f"{into.group(1)}={quote}{value}{quote}"
        for i in range(start + 1, end + 1 + captured):
            out[i] = ""
    return "\n".join(out)


#: A loop's end fed a here-document (``done <<EOT``), and a ``while read`` loop's head:
#: ``while IFS=, read -r model tp; do`` (``do`` on its line or the next).
_LOOP_FED = re.compile(r"^\s*done\s*<<")
_WHILE_READ = re.compile(r"^(\s*)while\s+((?:IFS=\S*\s+)?read\b[^;<>|&]*?)\s*(?:;\s*do)?\s*$")


def _first_row_read(lines: list[str], out: list[str], start: int, end: int) -> None:
    """A ``while read A B; do ... done <<EOT`` loop over a here-document's rows, written as
    its first run: the head becomes ``read A B <<< 'first row'`` and the rows go (a loop
    over literal words is read once, at its first item, the same way). A loop whose head
    is not found above is left alone."""
    head = next((i for i in range(start - 1, -1, -1) if _WHILE_READ.match(lines[i])), None)
    rows = [row for row in textwrap.dedent("\n".join(lines[start + 1:end])).split("\n")
            if row.strip()]
    if head is None or not rows:
        return
    match = _WHILE_READ.match(lines[head])
    row = rows[0].replace("'", "'\\''")
    out[head] = f"{match.group(1)}{match.group(2)} <<< '{row}'"
    if head + 1 < start and lines[head + 1].strip() == "do":
        out[head + 1] = ""
    out[start] = ""
    for i in range(start + 1, end + 1):
        out[i] = ""


#: What the shell undoes in a here-document whose delimiter is unquoted as it writes the
#: file: a backslash before ``$``, a backquote or a backslash, and backslash-newline.
_WRITE_ESCAPE = re.compile(r"\\([$`\\])|\\\n")


def _as_written(body: str) -> str:
    """The text an unquoted here-document writes: ``--port \\$port`` is ``--port $port``
    in the file (expanded when the file runs), a line continued with ``\\`` one line.
    The ``$NAME`` the shell expands while writing is left for the file's reader, which
    sees the same exported values when it runs."""
    return _WRITE_ESCAPE.sub(lambda m: m.group(1) or "", body)


def closed_heredocs(lines: list[str]) -> Iterator[tuple[int, re.Match[str], int]]:
    """Each here-document of ``lines`` that closes, in order: (its opener's line index, the
    opener, its closing line's index). One that never closes is no here-document."""
    at = 0
    while at < len(lines):
        opener = _OPENER.search(lines[at])
        at += 1
        if opener is None:
            continue
        delimiter = opener.group(2)
        end = next((i for i in range(at, len(lines)) if lines[i].strip() == delimiter), None)
        if end is None:
            continue
        yield at - 1, opener, end
        at = end + 1


def written(files: dict[str, str], path: str) -> str | None:
    """The text a here-document writes to ``path`` (or to a file of the same name)."""
    if path in files:
        return files[path]
    name = path.rsplit("/", 1)[-1]
    return next((text for file, text in files.items() if file.rsplit("/", 1)[-1] == name),
                None)


#: A line that runs a script file: ``bash run.sh``, ``sh -x run.sh``, ``./run.sh``,
#: ``source env.sh``, or a shell reading it on stdin (``bash < $JOB_SCRIPT``), after
#: anything that starts it (``srun``, ``nohup``).
_RUNS = re.compile(r"(?:^|\s)(?:(?:bash|sh|source)(?:[ \t]+-\w+)*[ \t]+(?:<[ \t]*)?|"
                   r"\.[ \t]+|(?=\./))(\S+)[ \t]*(?:&[ \t]*)?$")


#: A line that runs a written script by its path, as its program: ``/opt/run.sh``,
#: ``$DIR/run.sh``, ``~/start.sh &``, after what starts it (``nohup``, ``setsid``, ``exec``).
#: (Only in command position: ``chmod +x /opt/run.sh`` and ``cat /opt/run.sh`` run nothing.)
_RUNS_BY_PATH = re.compile(r"^[ \t]*(?:(?:nohup|setsid|exec|sudo|time)[ \t]+(?:-\w+[ \t]+)*)*"
                           r"(['\"]?)((?:~|\$\{?\w+\}?)?[\w.${}/~-]*/[\w.-]+)\1"
                           r"(?:[ \t]+[12&]?>>?(?:&\d|[ \t]*\S+))*[ \t]*(?:&[ \t]*)?$")
#: ``make TARGET`` (``make -C DIR serve``, ``make -f Makefile serve``): a written Makefile's
#: rule; a bare ``make`` runs its default goal.
_MAKE = re.compile(r"^[ \t]*(?:(?:nohup|setsid|exec)[ \t]+)*make((?:[ \t]+-[Cf][ \t]*\S+|"
                   r"[ \t]+-\w+)*)((?:[ \t]+[\w.-]+)*)(?:[ \t]+[12&]?>>?(?:&\d|[ \t]*\S+))*"
                   r"[ \t]*(?:&[ \t]*)?$")
#: A line that hands a quoted command line to another shell: ``tmux new-session -d -s S
#: "..."``, ``screen -dmS S bash -c '...'``, ``bash -c "..."``, ``su - u -c '...'``.
_HANDED = re.compile(r"(?:\btmux[ \t]+new(?:-session)?\b|\bscreen\b|(?:^|[\s;&])(?:ba)?sh"
                     r"(?:[ \t]+-\w+)*[ \t]+-c|\bsu\b[^'\"\n]*-c)[^'\"\n]*?[ \t](['\"])"
                     r"((?:nohup[ \t]+)?)([^'\"\n]+)\1[ \t]*(?:&[ \t]*)?$")


def _file_run(line: str, files: dict[str, str]) -> str | None:
    """The text of the written file ``line`` runs (``bash run.sh``, ``./run.sh``,
    ``/opt/run.sh``, ``$D/run.sh``): a script's lines, or the recipe ``make TARGET`` runs
    of a written Makefile; None when the line runs no file a here-document wrote."""
    from launchplan.input import makefile

    runs = _RUNS.search(line) or _RUNS_BY_PATH.match(line)
    if runs is not None:
        return written(files, runs.group(runs.re.groups))
    make = _MAKE.match(line)
    if make is None:
        return None
    given = re.search(r"-f[ \t]*(\S+)", make.group(1))
    text = written(files, given.group(1)) if given else next(
        (written(files, name) for name in ("GNUmakefile", "makefile", "Makefile")
         if written(files, name) is not None), None)
    if text is None:
        return None
    targets = make.group(2).split() or [makefile.default_goal(text) or ""]
    return "\n".join(makefile.as_script(text, target) for target in targets)


#: ``export $(cat FILE | xargs)`` (``$(grep -v '^#' FILE | xargs)``, ``$(xargs < FILE)``):
#: a dotenv file's lines exported, as scripts load one; and a line of such a file.
_EXPORTS_FILE = re.compile(r"^([ \t]*)export[ \t]+\$\((?:cat[ \t]+|grep[ \t]+-v[ \t]+\S+[ \t]+"
                           r"|xargs[ \t]*<[ \t]*)(['\"]?)([^\s'\"|)]+)\2(?:[ \t]*\|[ \t]*xargs)?"
                           r"[ \t]*\)[ \t]*$")
_PAIR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")


def run_inline(text: str, files: dict[str, str]) -> str:
    """``text`` with each command that runs a file a here-document wrote replaced by that
    file's text: the launch a script writes to ``run.sh`` and then starts is its launch."""
    if not files:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        exported = _EXPORTS_FILE.match(line)
        listed = written(files, exported.group(3)) if exported else None
        if exported and listed is not None:
            # ``export $(cat .env | xargs)``: each NAME=value line of the file, exported
            pairs = [row.strip() for row in listed.split("\n")
                     if _PAIR.match(row.strip())]
            out.append(exported.group(1) + "export " + " ".join(pairs) if pairs else "")
            continue
        if (";" in line or "&&" in line) and "'" not in line and '"' not in line:
            # ``set -a; source .env; set +a``, ``cd /srv && make serve``: each command of
            # the line on a line of its own
            parts = re.split(r";|&&", line)
            if any(_file_run(p, files) is not None for p in parts):
                line = "\n".join(part.strip() for part in parts)
                out.append(run_inline(line, files))
                continue
        body = _file_run(line, files)
        if body is None and (handed := _HANDED.search(line)) is not None:
            # ``tmux new -d "cd /srv && make serve"``, ``bash -c '/x/run.sh'``: the commands
            # the other shell runs, each on a line of its own, a written file's run inlined
            parts = [p.strip() for p in re.split(r"&&|;", handed.group(3)) if p.strip()]
            if any(_file_run(part, files) is not None for part in parts):
                body = "\n".join(_file_run(part, files) or part for part in parts)
        if body is not None:
            # the command that runs the file (``srun ... \\`` then ``bash < FILE``) is the
            # file's lines, the runner's continued lines with it
            back = len(out)
            while back and out[back - 1].rstrip().endswith("\\"):
                back -= 1
                out[back] = ""
        out.append(body if body is not None else line)
    return "\n".join(out)


#: A command that hands what it reads on stdin to a cluster as a manifest (``kubectl apply
#: -f -``, ``cat <<EOF | kubectl create -f -``, ``oc apply --filename=-``).
_APPLIES_STDIN = re.compile(r"\b(?:kubectl|oc)\b[^\n]*?\b(?:apply|create|replace)\b[^\n]*?"
                            r"(?:-f|--filename)(?:[ \t]+|=)-(?:\s|$)")


class AppliedManifest(NamedTuple):
    """A here-document a script hands to ``kubectl`` or starts with ``docker compose up``:
    the manifest the cluster or Compose runs."""

    body: str  # as the here-document holds it
    before: str  # the script's lines before it: the variables it may expand are set there
    expands: bool  # ``$NAME`` filled while fed: an unquoted delimiter, or piped to envsubst
    runs: str = "kubectl apply"  # what starts it: "kubectl apply" or "docker compose up"


def applied_manifest(text: str) -> AppliedManifest | None:
    """The first here-document ``text`` hands to ``kubectl apply`` (or ``create``,
    ``replace``; OpenShift's ``oc``) that names SGLang: fed on stdin (``-f -``), or written
    to a file (``cat > "$FILE" <<EOF``) that a later ``kubectl apply -f "$FILE"`` names as
    written; or a Compose file written so (or printed by a function whose output a later
    line writes to the file: ``gen > docker-compose.yml``) that a later ``docker compose
    up`` starts. The manifest that runs, which the shell lines around it only deliver.
    None when there is none."""
    if "<<" not in text or ("kubectl" not in text and "oc " not in text
                            and "compose" not in text):
        return None
    lines = text.split("\n")
    for start, opener, end in closed_heredocs(lines):
        body = textwrap.dedent("\n".join(lines[start + 1:end]))
        before = "\n".join(lines[:start])
        # an unquoted delimiter: the shell fills ``$NAME`` in; ``| envsubst |`` fills in the
        # exported ones of a quoted one (templating a manifest without Helm)
        expands = not opener.group(1) or "envsubst" in lines[start]
        # the launch may sit in a variable the shell fills in (``$LAUNCH --tp 2``)
        if "sglang" not in body and not (expands and "$" in body and "sglang" in before):
            continue
        if _APPLIES_STDIN.search(lines[start]) or _applied_later(lines, start, end):
            return AppliedManifest(body, before, expands)
        if "compose" in text and re.search(r"^services:", body, re.MULTILINE) \
                and not _launches_directly(text):
            composed = _composed_later(lines, start, end)
            if composed is not None:
                return AppliedManifest(body, composed, expands, "docker compose up")
    return None


#: ``kubectl apply -f PATH`` (``create``, ``replace``; ``oc``): the path as written.
_APPLIES_FILE = re.compile(r"\b(?:kubectl|oc)\b[^\n]*?\b(?:apply|create|replace)\b[^\n]*?"
                           r"(?:-f|--filename)(?:[ \t]+|=)(['\"]?)([^\s'\"]+)\1")


def _applied_later(lines: list[str], start: int, end: int) -> bool:
    """Whether the file the here-document at ``start`` writes is one a later line applies."""
    target = _TARGET.search(lines[start])
    if target is None:
        return False
    for line in lines[end + 1:]:
        applied = _APPLIES_FILE.search(line)
        if applied is not None and applied.group(2) == target.group(2):
            return True
    return False


def filled(body: str, values: Mapping[str, str]) -> str:
    """An unquoted here-document's text as the shell writes it: the script's variables
    (``values``) filled in, then its escapes undone (``\\$NAME`` stays ``$NAME``)."""
    from launchplan.input import shell_vars

    return "$".join(_as_written(shell_vars.expand(part, values))
                    for part in body.split("\\$"))


#: ``docker compose [OPTIONS] up`` (``docker-compose``, ``podman compose``,
#: ``podman-compose``), its options before ``up`` (the ``-f FILE`` it names).
_COMPOSE_UP = re.compile(r"\b(?:docker|podman)[ \t-]compose\b(?P<options>[^\n;&|]*?)[ \t]up\b")
_COMPOSE_FILE = re.compile(r"(?:^|[ \t])(?:-f|--file)(?:[ \t]+|=)(['\"]?)([^\s'\"]+)\1")
#: The files ``docker compose`` reads when no ``-f`` names one.
_COMPOSE_DEFAULTS = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")
#: A shell function's head: ``gen() {``, ``function gen {``, ``function gen() {``.
_FUNCTION = re.compile(r"^[ \t]*(?:function[ \t]+([A-Za-z_][\w-]*)(?:[ \t]*\(\))?|"
                       r"([A-Za-z_][\w-]*)[ \t]*\(\))[ \t]*\{?[ \t]*$")


def _composed_later(lines: list[str], start: int, end: int) -> str | None:
    """The script's lines before the Compose file the here-document at ``start`` writes
    is started (the variables it expands are set there) when a later ``docker compose
    up`` reads that file: written by the here-document's own line (``cat > FILE``), or by
    a later call of the function that prints it (``gen "$i" > FILE``); None otherwise."""
    target = _TARGET.search(lines[start])
    after = end + 1
    kept = lines[:start]
    if target is None:
        if not re.match(r"^[ \t]*cat\b", lines[start]):
            return None
        head = next((i for i in range(start - 1, -1, -1) if _FUNCTION.match(lines[i])
                     or lines[i].strip() == "}"), None)
        named = _FUNCTION.match(lines[head]) if head is not None else None
        if named is None:
            return None
        name = named.group(1) or named.group(2)
        call = re.compile(rf"^[ \t]*{re.escape(name)}\b[^>\n]*")
        for at in range(end + 1, len(lines)):
            if call.match(lines[at]) and (target := _TARGET.search(lines[at])) is not None:
                after = at + 1
                # the function's lines run when it is called: the script's lines before
                # the call, then the function's own before its here-document
                closes = next((i for i in range(end + 1, at) if lines[i].strip() == "}"), at)
                kept = lines[:head] + lines[closes + 1:at] + lines[head + 1:start]
                break
        else:
            return None
    for line in lines[after:]:
        if line.lstrip().startswith(("#", "echo ", "printf ")):
            continue  # a comment's or a printed hint's ``docker compose up`` runs nothing
        up = _COMPOSE_UP.search(line)
        if up is None:
            continue
        files = [m.group(2) for m in _COMPOSE_FILE.finditer(up.group("options"))]
        if any(_same_file(name, target.group(2)) for name in files or _COMPOSE_DEFAULTS):
            return "\n".join(kept)
    return None


#: A line that starts SGLang itself (not in a comment, nor only printed).
_DIRECT_LAUNCH = re.compile(r"^(?![ \t]*(?:#|echo\b|printf\b))[^\n]*(?:sglang(?:_router)?\."
                            r"launch_server|\bsglang[ \t]+serve\b)", re.MULTILINE)


def _launches_directly(text: str) -> bool:
    """Whether the script starts SGLang on a line of its own, outside its here-documents:
    that launch is read as the script's, the Compose file it also writes (a guide's
    "or deploy with Compose" step) left as the file it is."""
    return _DIRECT_LAUNCH.search(split_off(text)[0]) is not None


def _same_file(named: str, written_to: str) -> bool:
    """Whether a file ``docker compose`` names is the one a script wrote: the same name,
    by path or by file name, a ``$NAME`` in either standing for any text (the script
    writes ``"$compose_file"`` and copies it over as ``docker-compose.node${i}.yml``)."""
    def pattern(name: str) -> str:
        return ".*".join(re.escape(part) for part in
                         re.split(r"\$\{?\w+\}?|\$\([^)]*\)", name))

    a, b = named.rsplit("/", 1)[-1], written_to.rsplit("/", 1)[-1]
    if a == b:
        return True
    if "$" not in a and "$" not in b:
        return False
    return bool(re.fullmatch(pattern(b), a) or re.fullmatch(pattern(a), b))
