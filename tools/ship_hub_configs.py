"""Copy published Hugging Face configs into launchplan's shipped Hub snapshots.

Usage: ``python tools/ship_hub_configs.py MIRROR`` where MIRROR is a checkout of
ai-dynamo/aiconfigurator (its ``model_configs`` folder vendors each checkpoint's
``config.json`` and, for ModelOpt checkpoints, ``hf_quant_config.json``, unchanged from the
Hub). Each becomes ``src/launchplan/facts/data/hub/ORG--NAME/``; ``SOURCES.json`` records
the mirror's commit. Checkpoints launchplan already bundles, files over ``LIMIT`` bytes
(per-layer quantization tables of a few megabytes) and configs SGLang 0.5.23 cannot load
either (a model type its transformers does not know; the vendored copy may lack the
``auto_map`` the Hub's has) are left out.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "launchplan" / "facts" / "data" / "hub"
FOLDER = "aic-core/src/aiconfigurator_core/model_configs"
LIMIT = 200_000


def main(mirror: str) -> int:
    sys.path.insert(0, str(ROOT / "src"))
    from launchplan.errors import InputError
    from launchplan.facts.models import bundled_alias, load_model

    repo = Path(mirror)
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()
    listing = subprocess.run(["git", "-C", str(repo), "ls-tree", "-l", "HEAD", FOLDER + "/"],
                             check=True, capture_output=True, text=True).stdout.splitlines()
    sizes = {Path(line.split("\t")[1]).name: int(line.split()[3]) for line in listing}
    shipped: dict[str, dict[str, str]] = {}
    skipped: dict[str, str] = {}
    for name in sorted(sizes):
        if not name.endswith("_config.json") or name.endswith("_hf_quant_config.json"):
            continue
        folder = name[: -len("_config.json")]
        hub_id = folder.replace("--", "/", 1)
        quant = folder + "_hf_quant_config.json"
        files = {"config.json": name, **({"hf_quant_config.json": quant} if quant in sizes
                                           else {})}
        if bundled_alias(hub_id) is not None:
            skipped[hub_id] = "bundled"
            continue
        if any(sizes[f] > LIMIT for f in files.values()):
            skipped[hub_id] = f"a file over {LIMIT} bytes"
            continue
        target = OUT / folder
        target.mkdir(parents=True, exist_ok=True)
        for dest, source in files.items():
            text = subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{FOLDER}/{source}"],
                                  check=True, capture_output=True, text=True).stdout
            json.loads(text)  # a broken file is not shipped
            (target / dest).write_text(text)
        try:
            load_model(str(target))
        except InputError as exc:
            for dest in files:
                (target / dest).unlink()
            target.rmdir()
            skipped[hub_id] = f"not loadable: {exc}"
            continue
        shipped[hub_id] = {dest: f"{FOLDER}/{source}" for dest, source in files.items()}
    # files shipped from earlier commits (tools/ship_hub_history.py) keep their own source
    previous = json.loads((OUT / "SOURCES.json").read_text()) if (OUT / "SOURCES.json").is_file() \
        else {}
    origin = previous.get("origin", {})
    for hub_id in origin:
        shipped.setdefault(hub_id, previous["shipped"][hub_id])
        skipped.pop(hub_id, None)
    sources = {"about": "Hugging Face config files as vendored by ai-dynamo/aiconfigurator "
               "(Apache-2.0) at the commit below, copied unchanged (not byte-checked against "
               "the Hub: this workplace cannot reach it); launchplan reads "
               "them for a Hub id that is neither bundled nor in the local Hugging Face "
               "cache, so a pasted launch naming the checkpoint plans offline.",
               "repository": "https://github.com/ai-dynamo/aiconfigurator",
               "commit": commit, "shipped": shipped, "left_out": skipped,
               **({"origin": origin} if origin else {})}
    (OUT / "SOURCES.json").write_text(json.dumps(sources, indent=1, sort_keys=True) + "\n")
    print(f"shipped {len(shipped)}, left out {len(skipped)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
