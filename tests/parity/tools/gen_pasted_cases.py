"""Generate ``tests/parity/data/pasted-cases.json``: the real launch texts people posted
(``tests/input/data/pasted_lines.json``), planned as launchplan reads them, for SGLang to
answer too.

    PYTHONPATH=src:. python tests/parity/tools/gen_pasted_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py pasted --jobs 1 --timeout 120

``tests/input/test_real_pasted_lines.py`` checks that each text is *read* right (its exit
code, its flags and environment). This suite checks that what is read is *resolved* as
SGLang resolves it. For every text launchplan plans or refuses (recorded exit 0 or 3), each
launch it holds (``--launch N`` of a multi-launch text) becomes one case, read by the same
call ``launchplan resolve`` makes (``commands.options.split_argv``, with the text's recorded
``--model-path`` substitute appended as the test passes it; a launch that is bad input, as
a flag 0.5.23 no longer has, stays: SGLang's parser must refuse it too):

- ``argv``: the SGLang flags read from the text, as read (host, port, served name, paths and
  all: resolution opens none of them), except the model path's own flags
  (``--model-path``/``--model``), which the case names in ``model``;
  ``--trust-remote-code`` where that config names code of its checkpoint (``auto_map``): the
  folders hold the config alone, so transformers could not import the code (``gen_wild5_cases``
  never draws the flag for such configs, for the same reason; SGLang or transformers knows each
  of these architectures without it);
  a speculative draft's path (``--speculative-draft-model-path``) named as the folder
  launchplan planned the draft with, as the model's is (a Hub-cache snapshot on the poster's
  machine is the bundled or shipped config of that id; the oracle opens the draft's
  ``config.json``);
  and ``--disaggregation-ib-device``, whose InfiniBand device names are the poster's host's:
  SGLang checks them against ``/sys/class/infiniband`` while resolving a Mooncake PD launch,
  and this CPU machine has none (no other suite sets the flag; launchplan cannot know a host's
  NICs and passes the value through);
- ``model``: the folder launchplan planned with, as ``planner.local_model`` maps the text's
  model path (a Hub id, a path on the poster's machine or the recorded substitute) offline:
  a bundled model (``models/<name>``) or a Hub config launchplan ships
  (``shipped/<ORG--NAME>``); a launch whose model maps to neither is left out;
- ``env``: every assignment the text makes for the launch, as the ``--env`` values the
  command passes (the last of a name wins);
- ``platform``: the text's GPU target (the oracle's nine and the catalog's further targets,
  so the suite is recorded through ``targets_oracle.py``), with ``platform_overrides.gpus``
  when a pasted manifest's container requests fewer GPUs than the node holds.

Case names are ``pasted/<hash>`` (the first ten hex digits of the text's SHA-1) and
``pasted/<hash>/<n>`` for the n-th launch of a multi-launch text, so they survive entries
being added to or reordered in the pasted set.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from tests.parity.tools import gen_wild3_cases as wild3
from tests.parity.tools import gen_wild4_cases as wild4
from tests.parity.tools import gen_wild_cases as wild

from launchplan.commands.options import split_argv
from launchplan.commands.resolve import ALLOWED, parse_env
from launchplan.errors import LaunchplanError
from launchplan.facts.models import bundled_models
from launchplan.facts.models.snapshots import HUB_DIR
from launchplan.facts.targets import get_target
from launchplan.input.cli import flags_of
from launchplan.input.fields import FIELDS
from launchplan.input.pasted import launch_count
from launchplan.planner import build_raw, local_model

PARITY = Path(__file__).resolve().parents[1]
PASTED = PARITY.parent / "input" / "data" / "pasted_lines.json"
OUT = PARITY / "data" / "pasted-cases.json"
#: the recorded exits whose texts launchplan reads through to a plan or a refusal
PLANNED = (0, 3)
MODEL_FLAGS = FIELDS["model_path"].flags
DRAFT_FLAGS = FIELDS["speculative_draft_model_path"].flags
#: every flag spelling of the release the suite is recorded against
SPELLINGS = frozenset(flags_of())
#: host facts the oracle's machine cannot stand for (see the docstring): flag -> takes a value
UNHONOURED = {"--disaggregation-ib-device": True}
BUNDLED = Path(__file__).resolve().parents[3] / "src" / "launchplan" / "facts" / "data" / "models"


def oracle_model(path: str) -> str | None:
    """How the cases name the folder launchplan plans ``path`` with, or None when it is
    neither a bundled model nor a shipped Hub config."""
    folder = local_model(path)
    if folder in bundled_models():
        return f"models/{folder}"
    if Path(folder).parent == HUB_DIR and (Path(folder) / "config.json").is_file():
        return f"shipped/{Path(folder).name}"
    return None


def model_path(argv: list[str]) -> str:
    """The model path a launch names, as launchplan reads it; when the line is bad input
    elsewhere (a flag 0.5.23 does not know), its last ``--model-path``/``--model`` value,
    as argparse keeps it: the case still asks SGLang whether it refuses the line too."""
    try:
        return str(build_raw(argv).values.get("model_path"))
    except LaunchplanError:
        values = [argv[at].partition("=")[2] or (argv[at + 1] if at + 1 < len(argv) else "")
                  for at in range(len(argv)) if argv[at].partition("=")[0] in MODEL_FLAGS]
        if not values:
            raise
        return values[-1]


def remote_code(model: str) -> bool:
    """Whether the config of ``model`` (as a case names it) names code of its checkpoint."""
    kind, _, name = model.partition("/")
    folder = (BUNDLED if kind == "models" else HUB_DIR) / name
    return "auto_map" in json.loads((folder / "config.json").read_text())


def spelled(word: str) -> str:
    """The flag ``word`` stands for in SGLang's parser: itself, or the one spelling it is a
    unique prefix of (``--trust-remote`` is ``--trust-remote-code``: argparse takes it)."""
    if not word.startswith("--") or word in SPELLINGS:
        return word
    matches = [flag for flag in SPELLINGS if flag.startswith(word)]
    return matches[0] if len(matches) == 1 else word


def for_oracle(argv: list[str], model: str) -> list[str]:
    """``argv`` without the model path's flags and values (the case's ``model`` holds it) and
    the flags the oracle's machine cannot honour (see the docstring)."""
    dropped = {**dict.fromkeys(MODEL_FLAGS, True), **UNHONOURED}
    if remote_code(model):
        dropped["--trust-remote-code"] = False
    out, at = [], 0
    while at < len(argv):
        name, eq, value = argv[at].partition("=")
        name = spelled(name)
        if name in dropped:
            at += 2 if dropped[name] and not eq else 1
            continue
        if name in DRAFT_FLAGS and (eq or at + 1 < len(argv)):
            given = value if eq else argv[at + 1]
            draft = oracle_model(given)  # the folder launchplan planned it with
            if draft is None and not Path(given).is_dir():  # a path on the poster's machine
                raise LaunchplanError(f"{name} {given}: a draft no config here stands for")
            draft = draft or given
            out.extend([f"{argv[at].partition('=')[0]}={draft}"] if eq
                       else [argv[at], draft])
            at += 1 if eq else 2
            continue
        out.append(argv[at])
        at += 1
    return out


def launches(entry: dict) -> list[tuple[str, list[str]]]:
    """(name suffix, ``launchplan resolve`` arguments) for each launch of a pasted text."""
    tail = ["--model-path", entry["model"]] if "model" in entry else []
    count = launch_count([entry["text"]])
    if count <= 1:
        return [("", [entry["text"], *tail])]
    return [(f"/{n}", [entry["text"], "--launch", str(n), *tail]) for n in range(1, count + 1)]


def cases() -> tuple[list[dict], list[str]]:
    """The cases, and why each launch left out was left out."""
    os.environ["HF_HUB_OFFLINE"] = "1"  # a Hub id maps to what ships, never to a download
    _, _, compared = wild.pool(False)
    compared = compared + [f for f in wild4.FIX_FIELDS if f not in compared]
    out, skipped = [], []
    for entry in json.loads(PASTED.read_text()):
        if entry["exit"] not in PLANNED:
            continue
        digest = hashlib.sha1(entry["text"].encode()).hexdigest()[:10]
        for suffix, args in launches(entry):
            name = f"pasted/{digest}{suffix}"
            try:
                split = split_argv(args, ALLOWED)
                path = model_path(split.sglang_argv)
                model = oracle_model(path)
                # a draft's path too maps to a folder here, or the launch is left out
                argv = for_oracle(split.sglang_argv, model) if model is not None else []
            except LaunchplanError as exc:
                skipped.append(f"{name}: {exc}")
                continue
            if model is None:
                skipped.append(f"{name}: {path} maps to no bundled model or shipped config")
                continue
            # the target's own name: the oracle knows no alias (``a100-80g`` is ``a100``)
            platform = get_target(entry["gpu"]).name
            case = {"name": name, "source": entry["source"], "platform": platform,
                    "model": model, "argv": argv,
                    "fields": compared + wild3.own_fields(argv, compared)}
            env = parse_env(split.options.get("env"))
            if env:
                case["env"] = env
            if split.options.get("gpu_count") is not None:
                case["platform_overrides"] = {"gpus": split.options["gpu_count"]}
            out.append(case)
    return out, skipped


def main() -> None:
    rows, skipped = cases()
    OUT.write_text("[\n" + ",\n".join(json.dumps(c) for c in rows) + "\n]\n")
    print(f"pasted: wrote {len(rows)} cases to {OUT}")
    for line in skipped:
        print(f"  left out {line}")


if __name__ == "__main__":
    main()
