"""The GPU a pasted task asks for, when the paste names one.

Task files that start SGLang say which GPU they run on: SkyPilot's ``accelerators: H100:8``,
dstack's ``gpu: H100:8`` (or ``8:H200``, ``A100:40GB:2``: its parts in any order), Modal's
``gpu="A100-80GB:2"`` or ``gpu=modal.gpu.H100(count=8)``,
BentoML's ``resources={"gpu": 1, "gpu_type": "nvidia-l4"}``, a Kubernetes node selector on
``nvidia.com/gpu.product`` (the GPU feature discovery label) or GKE's
``cloud.google.com/gke-accelerator``. So do the environment reports pasted into issues:
``python -m sglang.check_env`` (``GPU 0,1,2,3: NVIDIA H100 80GB HBM3``, one line a kind of
GPU), vLLM's ``collect_env`` and ``nvidia-smi -L`` (``GPU 0: NVIDIA H100 80GB HBM3``, one
line a GPU) and ``nvidia-smi``'s table (a row a GPU).
When ``--gpu`` is not given, the commands plan for that target, with a note, as they take
the GPU count a container requests.

Only an unambiguous request counts: one GPU type in the whole text that names one catalog
target. SkyPilot, Modal and GKE mean the 40 GB part by a bare ``A100`` (their 80 GB one is
``A100-80GB``, ``nvidia-a100-80gb``), so that spelling is the ``a100-40gb`` target there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: (how a line starts, once stripped and lower-cased; the scheme its value follows)
_KEYS = (("accelerators:", "skypilot"), ("accelerator:", "skypilot"), ("gpu:", "dstack"),
         ("nvidia.com/gpu.product:", "label"), ("cloud.google.com/gke-accelerator:", "gke"))


def requested_gpu(tokens: Sequence[str]) -> tuple[str, int | None, str] | None:
    """(target name, GPU count or None, the words it was read from) for the one GPU type a
    pasted text asks for; None when it names none, several, or one no target is."""
    found: dict[str, tuple[int | None, str]] = {}
    for token in tokens:
        if "\n" not in token and " " not in token:
            continue
        for name, count, words in _requests(token):
            if not name:
                continue  # a count of any GPU (dstack's ``gpu: 80GB:2``): no type asked for
            target = _target(name)
            if target is None:
                return None  # a GPU launchplan has no target for: no guess
            if target in found and found[target][0] != count:
                count = None
            found[target] = (count, found.get(target, (None, words))[1])
    if len(found) != 1:
        return None
    (target, (count, words)), = found.items()
    return target, count, words


def refuse_unlisted(tokens: Sequence[str]) -> None:
    """Refuse a launch with no ``--gpu`` whose pasted task asks for one GPU type no target
    names (Modal's ``gpu="T4"``): the plain "--gpu: required" would read as if the text's
    request went unseen, so the line names it and the closest target."""
    from launchplan.errors import InputError
    from launchplan.facts.targets import get_target
    from launchplan.input.pasted import cleaned

    unlisted: dict[str, tuple[str, str]] = {}
    for token in tokens:
        if "\n" not in token and " " not in token:
            continue
        for name, _count, words in _requests(cleaned(token)):
            if name and _target(name) is None and name.strip().lower() != "auto":
                unlisted.setdefault(name.lower(), (name, words))
    if len(unlisted) != 1:
        return
    (name, words), = unlisted.values()
    try:
        get_target(name)
        return
    except InputError as exc:
        hint = exc.hint or ""
    raise InputError("--gpu", "a target", message=(
        "--gpu: required (one of the targets listed by `launchplan targets`, or auto): the "
        f"pasted text asks for {name} ({words}), which no target names ({hint})"))


def requested_count(tokens: Sequence[str]) -> tuple[int, str] | None:
    """(the GPU count, the words) a pasted text's task asks for whatever type it gets: a
    SkyPilot task's alternatives (``{L4:1, A10G:1}``, ``[A100:8, H100:8]``) all asking for
    the same count; None when they differ or give none."""
    counts: dict[int | None, list[str]] = {}
    for token in tokens:
        if "\n" in token or " " in token:
            for _name, count, words in _requests(token):
                counts.setdefault(count, []).append(words)
    if len(counts) != 1 or None in counts:
        return None
    (count, words), = counts.items()
    return (count, ", ".join(dict.fromkeys(words))) if count else None


def _requests(text: str) -> list[tuple[str, int | None, str]]:
    """Each (GPU name as written, count or None, the words) a text's task keys give."""
    out: list[tuple[str, int | None, str]] = []
    lines = text.splitlines()
    for at, line in enumerate(lines):
        plain = line.strip().lower().lstrip("-").strip()
        for key, scheme in _KEYS:
            if plain.startswith(key):
                value = line.strip().lstrip("-").strip()[len(key):].strip()
                if scheme == "dstack":
                    out.extend((name, count, f"{key} {words}")
                               for name, count, words in _dstack(value, lines, at))
                    continue
                if not value and scheme == "skypilot":  # accelerators:\n  H100: 8
                    value = _next_indented(lines, at)
                out.extend((*_spec(item, scheme), f"{key} {item.strip()}")
                           for item in _items(value) if _spec(item, scheme)[0])
        # ``gpu=f"{TYPE}:{COUNT}"`` and ``gpu=GPU_CONFIG``: the string the script makes
        out.extend(_modal(_named_gpu(
            _filled_fstring(line, text) if "gpu=f" in line else line, text)))
    out.extend(_reported(lines))
    out.extend(_bentoml(text))
    return out


#: BentoML's GPU type in a service's ``resources`` mapping, and its GPU count there.
_BENTO_TYPE = re.compile(r"""["']gpu_type["']\s*:\s*["']([^"'\n]+)["']""")
_BENTO_COUNT = re.compile(r"""["']gpu["']\s*:\s*(\d+)\b""")


def _bentoml(text: str) -> list[tuple[str, int | None, str]]:
    """Each ``"gpu_type": "nvidia-l4"`` of a BentoML service's ``resources`` mapping, with
    the ``"gpu"`` count of the same mapping when it is a number (a name set elsewhere,
    ``"gpu": NUM_GPUS``, leaves it open). BentoCloud names its GPU types as GKE's
    accelerators do (``nvidia-tesla-a100`` the 40 GB part, ``nvidia-a100-80gb``)."""
    out: list[tuple[str, int | None, str]] = []
    for match in _BENTO_TYPE.finditer(text):
        start, end = text.rfind("{", 0, match.start()), text.find("}", match.end())
        mapping = text[start + 1:end] if start >= 0 and end >= 0 else ""
        name, _ = _spec(match.group(1), "gke")
        if not name:
            continue
        count = _BENTO_COUNT.search(mapping)
        out.append((name, int(count.group(1)) if count else None, match.group(0)))
    return out


#: An environment report's GPU line: its indices, then the device name (``nvidia-smi -L``
#: adds the device's UUID after it, in parentheses).
_REPORT_LINE = re.compile(
    r"^\s*GPU ((?:\d+\s*,\s*)*\d+)\s*:\s*(\S.*?)\s*(?:\(UUID:[^)]*\)\s*)?$")


#: A row of ``nvidia-smi``'s table: the index, the name, persistence mode, then the bus id.
_SMI_ROW = re.compile(r"^\|\s+(\d+)\s+(\S.*?)\s+(?:On|Off)\s+\|\s+[0-9A-Fa-f]{4,8}:"
                      r"[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d")


#: The row under a GPU's in that table: its memory in use, then its total.
_SMI_MEMORY = re.compile(r"\|[^|\n]*\|\s*\d+MiB\s*/\s*(\d+)MiB\s*\|")
#: A line that may be such a row (a bar, an index, a word): the cheap pass over a long log.
_SMI_ROW_LIKE = re.compile(r"^[ \t]*\|[ \t]+\d+[ \t]+\S[^\n]*", re.MULTILINE)


def smi_table_gpus(text: str) -> list[tuple[str, int | None]]:
    """Each GPU row of an ``nvidia-smi`` table in ``text`` (a start-up log pasted with the
    table above it): the device name as the row gives it, and its total memory in MiB
    from the row below (None when that row is not there)."""
    out: list[tuple[str, int | None]] = []
    for candidate in _SMI_ROW_LIKE.finditer(text):
        row = _SMI_ROW.match(candidate.group(0).strip())
        if row is None:
            continue
        end = text.find("\n", candidate.end() + 1)
        below = text[candidate.end() + 1:end if end >= 0 else len(text)]
        memory = _SMI_MEMORY.match(below.strip())
        out.append((row.group(2), int(memory.group(1)) if memory else None))
    return out


def _reported(lines: list[str]) -> list[tuple[str, int | None, str]]:
    """Each device name an environment report gives, with how many GPUs carry it (the
    indices over every line naming it: check_env joins them, collect_env repeats the name,
    ``nvidia-smi`` has a table row a GPU)."""
    seen: dict[str, set[str]] = {}
    for line in lines:
        match = _REPORT_LINE.match(line)
        if match:
            ids = {i.strip() for i in match.group(1).split(",")}
            seen.setdefault(match.group(2), set()).update(ids)
            continue
        row = _SMI_ROW.match(line.strip())
        if row:
            seen.setdefault(row.group(2), set()).add(row.group(1))
    return [(name, len(ids), f"GPU {','.join(sorted(ids, key=int))}: {name}")
            for name, ids in seen.items()]


def _next_indented(lines: list[str], at: int) -> str:
    """The first line under ``lines[at]`` that is indented deeper (a one-entry mapping)."""
    depth = len(lines[at]) - len(lines[at].lstrip())
    for line in lines[at + 1:at + 3]:
        if line.strip() and len(line) - len(line.lstrip()) > depth:
            return line.strip()
    return ""


#: dstack's GPU vendors (a spec's vendor part, which names no GPU type).
_DSTACK_VENDORS = frozenset({"nvidia", "amd", "tpu", "google", "intel", "tenstorrent"})
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "~"})
#: dstack's GPU spec fields in its mapping form (``gpu:`` then ``name: H100`` ``count: 8``).
_DSTACK_FIELDS = ("vendor", "name", "memory", "count")


def _dstack(value: str, lines: list[str], at: int) -> list[tuple[str, int | None, str]]:
    """Each (GPU name, count or None, the words) of dstack's ``gpu:`` spec. dstack reads the
    colon-separated parts by their look, in any order (``H200:8`` and ``8:H200`` are the
    same): a vendor (``nvidia``, ``amd``), names (a word starting with a letter;
    ``H100,H200`` is either), a memory (a size with a unit: ``80GB``, ``24GB..``), and a
    count (a number or a range: ``8``, ``2..8``). The mapping form (``name:``, ``count:``,
    ``memory:`` under ``gpu:``) says the same. A name-less entry carries a count only; a
    count left to a range (``1..``) is open."""
    value = value.split(" #", 1)[0].strip().strip("'\"")
    if value.lower() in _YAML_WORDS:
        return []  # ``gpu: true`` of some other tool's config: no spec
    words = value
    if value.startswith("{") or not value:
        fields = {key: spec for key, spec in
                  _dstack_mapping(value.strip("{}"), lines, at).items() if spec}
        words = "{" + ", ".join(f"{key}: {spec}" for key, spec in fields.items()) + "}"
        value = ":".join(fields[key] for key in _DSTACK_FIELDS if key in fields)
        if not value:
            return []
    names: list[str] = []
    memory = ""
    count: int | None = None
    counted = False
    for part in value.replace(" ", "").split(":"):
        if not part or part.lower() in _DSTACK_VENDORS:
            continue
        if part[0].isalpha():
            names = [name for name in part.strip("[]").split(",") if name]
        elif any(ch.isalpha() for ch in part):
            memory = part
        else:
            low, dots, high = part.partition("..")
            counted = True
            if low.isdigit() and (not dots or low == high):
                count = int(low)
    if counted and count == 0:
        return []  # ``gpu: 0``: no GPU at all
    if not names:
        return [("", count, words)] if count else []
    return [(part, count, words) for name in names for part in _dstack_parts(name, memory)]


def _dstack_mapping(inline: str, lines: list[str], at: int) -> dict[str, str]:
    """The spec fields of dstack's mapping form: ``{name: H100, count: 8}`` on the line,
    or the lines indented under ``gpu:`` (a list of names given as ``- H100`` lines)."""
    entries = inline.split(",") if inline else []
    if not inline:
        depth = len(lines[at]) - len(lines[at].lstrip())
        for line in lines[at + 1:]:
            if line.strip() and len(line) - len(line.lstrip()) <= depth:
                break
            entries.append(line)
    fields: dict[str, str] = {}
    last = ""
    for entry in entries:
        key, colon, value = entry.strip().partition(":")
        value = value.split(" #", 1)[0].strip().strip("[]'\"").replace(" ", "")
        if colon and key.strip() in _DSTACK_FIELDS:
            last = key.strip()
            fields[last] = value
        elif last == "name" and entry.strip().startswith("- "):
            fields["name"] = ",".join(filter(None, (fields["name"], entry.strip()[2:])))
    return fields


def _dstack_parts(name: str, memory: str) -> list[str]:
    """The catalog spellings a dstack GPU name may mean given its memory part: dstack's
    ``A100`` is the 40 GB and the 80 GB part alike, so only a memory picks one; a memory no
    part of the name has leaves the name with it (no target, so no guess)."""
    parts = ["a100-40gb", "a100-80gb"] if name.lower() == "a100" else [name]
    if not memory:
        return parts
    low, dots, high = memory.lower().partition("..")
    least, most = _gigabytes(low), _gigabytes(high) if dots else _gigabytes(low)
    fitting = []
    for part in parts:
        target = _target(part)
        size = _target_gigabytes(target) if target else None
        if size is None or ((least is None or size >= least * 0.9)
                            and (most is None or size <= most * 1.1)):
            fitting.append(part)
    return fitting or [f"{name}-{memory}"]


def _gigabytes(size: str) -> float | None:
    """``80gb`` -> 80.0, ``512mb`` -> 0.5, ``1tb`` -> 1024.0; None for an open end."""
    for unit, scale in (("tb", 1024.0), ("gb", 1.0), ("mb", 1 / 1024)):
        number = size.removesuffix(unit)
        if number != size:
            try:
                return float(number) * scale
            except ValueError:
                return None
    return None


def _target_gigabytes(name: str) -> float | None:
    from launchplan.facts.targets import get_target

    memory = get_target(name).memory_mib
    return memory / 1024 if memory else None


def _items(value: str) -> list[str]:
    """``H100:8``, ``{H100: 8}``, ``[A100-80GB:8, H100:8]``, ``'H100:8'`` -> the entries."""
    value = value.split(" #", 1)[0].strip().strip("{}[]")
    return [item.strip().strip("'\"") for item in value.split(",") if item.strip()]


def _spec(item: str, scheme: str) -> tuple[str, int | None]:
    """A GPU name and count from one entry (``H100:8``, ``H100: 8``, ``NVIDIA-H100-80GB-HBM3``,
    ``nvidia-h100-80gb``); ("", None) for what names no GPU (a size alone: ``80GB:8``)."""
    item = item.strip().strip("'\"")
    name, _, count = item.partition(":")
    name = name.strip().strip("'\"")
    count = count.strip().strip("'\"")
    if scheme == "gke":
        name = name.lower().removeprefix("nvidia-").removeprefix("tesla-")
        if name == "a100":
            name = "a100-40gb"
    elif scheme == "label":
        name = name.replace("-", " ")
    elif name.lower() == "a100" and scheme == "skypilot":
        name = "a100-40gb"
    if not name or not any(ch.isalpha() for ch in name) or name[0].isdigit():
        return "", None
    if not count and scheme == "skypilot":
        return name, 1  # SkyPilot: a bare name is one of it (``A100`` is ``A100:1``)
    return name, int(count) if count.isdigit() else None


def _named_gpu(line: str, text: str) -> str:
    """``line`` with a ``gpu=NAME`` keyword written as the string the script binds NAME to."""
    if "gpu" not in line:
        return line
    from launchplan.input.python_literals import gpu_keyword_filled

    return gpu_keyword_filled(line, text)


def _filled_fstring(line: str, text: str) -> str:
    """``line`` with a ``gpu=f"{GPU_TYPE}:{GPU_COUNT}"`` f-string filled from the names the
    script sets (``GPU_TYPE = os.environ.get("GPU_TYPE", "h100")``: its default, as its
    argv reads them) and made a plain string; as it is when a name is not known."""
    from launchplan.input.python_literals import literal_names

    names = literal_names(text)
    if names is None:
        return line

    def filled(match: re.Match[str]) -> str:
        inner = match.group(2)
        parts = re.split(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}", inner)
        if any(names.get(part) is None for part in parts[1::2]):
            return match.group(0)
        return match.group(1) + "".join(
            names[part] if at % 2 else part for at, part in enumerate(parts)) + match.group(1)

    return re.sub(r"""(?<=gpu=)f(["'])(.*?)\1""", filled, line)


def _modal(line: str) -> list[tuple[str, int | None, str]]:
    """Modal's ``gpu="H100:8"`` and ``gpu=modal.gpu.A100(size="80GB", count=2)``; a GPU named
    with no count is one (Modal's docs: ``gpu="H100"`` attaches one, ``"H100:n"`` n)."""
    at = line.find("gpu=")
    if at < 0 or (at > 0 and (line[at - 1].isalnum() or line[at - 1] == "_")):
        return []
    value = line[at + 4:].strip()
    if value[:1] in "'\"":
        quote = value[0]
        inner = value[1:].split(quote, 1)[0]
        name, count = _spec(inner, "modal")
        if name.lower() == "a100":
            name = "a100-40gb"
        return [(name, 1 if count is None else count, f"gpu={quote}{inner}{quote}")] \
            if name else []
    head = value.split("(", 1)[0].split(",")[0].strip()
    if not head.startswith(("modal.gpu.", "gpu.")):
        return []
    name = head.rsplit(".", 1)[1]
    args = value.split("(", 1)[1].split(")", 1)[0] if "(" in value else ""
    count = None
    size = ""
    for part in args.split(","):
        key, _, arg = part.partition("=")
        arg = arg.strip().strip("'\"")
        if key.strip() == "count" and arg.isdigit():
            count = int(arg)
        elif key.strip() == "size":
            size = arg
    if name.lower() == "a100":
        name = f"a100-{size.lower()}" if size else "a100-40gb"
    return [(name, 1 if count is None else count, f"gpu={value.split(')', 1)[0]})")]


def _target(name: str) -> str | None:
    from launchplan.errors import InputError
    from launchplan.facts.targets import get_target

    if name.strip().lower() == "auto":
        return None
    try:
        return get_target(name).name
    except InputError:
        return None


#: The variables that narrow the GPUs a process sees: CUDA's and ROCm's in the process
#: (``CUDA_VISIBLE_DEVICES=0,1``), the NVIDIA container runtime's for a container
#: (``NVIDIA_VISIBLE_DEVICES``, which hands it only those devices).
_VISIBLE = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
            "NVIDIA_VISIBLE_DEVICES")
#: One device of such a list: an index, or a GPU's or MIG instance's UUID.
_DEVICE = re.compile(r"^(?:\d+|GPU-[0-9A-Fa-f-]+|MIG-[0-9A-Za-z/-]+)$")


def visible_gpus(assignments: Sequence[str]) -> tuple[int, str] | None:
    """(how many GPUs the launch sees, the assignment that says so) when its environment
    lists the devices (``CUDA_VISIBLE_DEVICES=0,1``: two, whatever the node holds; the
    fewest where several variables list them); None when none does, or one says ``all``,
    holds a variable, or lists something else (the launch then sees what the node has)."""
    last: dict[str, str] = {}
    for assignment in assignments:
        name, eq, value = assignment.partition("=")
        if eq and name in _VISIBLE:
            last[name] = value.strip().strip("'\"")
    best: tuple[int, str] | None = None
    for name, value in last.items():
        items = [item.strip() for item in value.split(",")]
        if not value or not all(_DEVICE.match(item) for item in items):
            continue  # all, none, an unset $VAR, an empty list: not a count to trust
        count = len(dict.fromkeys(items))
        if best is None or count < best[0]:
            best = (count, f"{name}={value}")
    return best


def open_visible(assignments: Sequence[str]) -> str | None:
    """The device-list assignment whose value the script works out when it runs
    (``CUDA_VISIBLE_DEVICES=$(seq -s, 0 1)``, ``=${GPUS}``), when no other lists devices:
    how many the launch sees is not known here."""
    if visible_gpus(assignments) is not None:
        return None
    return next((a for a in assignments if a.partition("=")[0] in _VISIBLE
                 and "$" in a.partition("=")[2]), None)


#: A Slurm job's GPU request, in an ``#SBATCH`` line or on ``srun``/``salloc``/``sbatch``'s
#: command line (``sbatch --gres=gpu:2 --wrap="python -m ..."``): ``--gres=gpu[:TYPE]:N``,
#: ``--gpus-per-node=[TYPE:]N``, ``--gpus=[TYPE:]N`` (over the whole job) or ``-G N``. The
#: type is the site's own name, so only the count is read.
_SLURM_GPUS = re.compile(
    r"(?:^|\s)(?:--gres[= ]gpu(?::[\w.-]+)?:(?P<gres>\d+)"
    r"|--gpus-per-node[= ](?:[\w.-]+:)?(?P<node>\d+)"
    r"|(?:--gpus[= ]|-G ?)(?:[\w.-]+:)?(?P<job>\d+))(?=[\s,]|$)")
#: A line that runs ``srun``/``salloc``/``sbatch``, after assignments and the programs that
#: run their arguments (``nohup``, ``setsid``, ``timeout 1h``, ``stdbuf -oL``...).
_SLURM_COMMAND = re.compile(r"^(?:(?:[A-Za-z_]\w*=\S*|nohup|setsid|exec|time|env|nice"
                            r"|(?:timeout|stdbuf|nice -n|ionice -c)[ \t]+\S+)[ \t]+)*"
                            r"(?:\S*/)?(?:srun|salloc|sbatch)\s")
#: A Slurm job's node count (``--nodes=2``, ``-N 2``; a range's low end).
_SLURM_NODES = re.compile(r"(?:^|\s)(?:--nodes[= ]|-N ?)(\d+)(?=[\s-]|$)")


def slurm_gpus(text: str) -> tuple[int, str] | None:
    """(the GPUs each node of a Slurm job gets, the words that say so) from the job's
    ``#SBATCH`` lines and the ``srun`` that starts the launch: a per-node request as
    written, a whole job's ``--gpus=N`` over its nodes; None without one, or when the
    lines disagree."""
    found: dict[int, str] = {}
    nodes = 1
    for line in text.splitlines():
        plain = line.strip()
        if not (plain.startswith("#SBATCH") or _SLURM_COMMAND.match(plain)):
            continue
        if (counted := _SLURM_NODES.search(plain)) is not None:
            nodes = max(int(counted.group(1)), 1)
        for match in _SLURM_GPUS.finditer(plain):
            per_job = match.group("job")
            count = int(per_job) if per_job is not None else int(
                match.group("gres") or match.group("node"))
            found[count if per_job is None else -count] = match.group(0).strip()
    counts = {(-k + nodes - 1) // nodes if k < 0 else k: words for k, words in found.items()}
    if len(counts) != 1:
        return None
    (count, words), = counts.items()
    return (count, words) if count > 0 else None
