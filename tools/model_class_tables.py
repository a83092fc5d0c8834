"""Build ``src/launchplan/facts/data/model_classes.json``: which architectures each SGLang
release has a class of its own for, and which transformers classes its fallback can serve.

SGLang builds a checkpoint with the class its registry holds for one of the config's
``architectures``; when it holds none, it falls back to its transformers backend, which
serves a transformers class only when that class takes a pluggable attention backend
(``is_backend_compatible()``). Both facts are read from the released code, not from a
running server:

* SGLang's registry, per release: every ``sglang/srt/models/*.py`` module's ``EntryClass``
  (a class or a list of classes, keyed by class name), read with ``ast`` from the installed
  wheel (the registry imports every module, which needs a GPU stack);
* transformers, per version SGLang pins (0.5.21: 5.12.1; 0.5.22 and 0.5.23: 5.19.0): every
  exported ``PreTrainedModel`` subclass and its ``is_backend_compatible()``, and the model
  types whose config class carries no ``base_model_tp_plan`` or ``base_model_pp_plan`` (the
  backend cannot split such a model by tensor or pipeline parallelism), dumped by this
  script run with ``--dump-transformers`` under a Python that imports that version (torch
  needed: the oracle venv, the version's wheel unpacked on ``PYTHONPATH``).

Usage::

    PYTHONPATH=/path/to/transformers-5.19.0 ~/sglang-oracle/bin/python \\
        tools/model_class_tables.py --dump-transformers > tf-5.19.0.json
    python tools/model_class_tables.py \\
        --sglang 0.5.23=~/sglang-oracle/lib/python3.11/site-packages \\
        --sglang 0.5.22=... --sglang 0.5.21=... \\
        --transformers tf-5.19.0.json --transformers tf-5.12.1.json

The transformers lists keep the names SGLang registers too: ``--model-impl transformers``
serves those through the backend as well.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "launchplan" / "facts" / "data" / "model_classes.json"
#: the transformers version each release's wheel pins (``Requires-Dist: transformers==``)
PINS = {"0.5.21": "5.12.1", "0.5.22": "5.19.0", "0.5.23": "5.19.0"}


def registry(site_packages: Path) -> list[str]:
    """The class names ``EntryClass`` registers over a release's model modules."""
    names: set[str] = set()
    for path in sorted((site_packages / "sglang" / "srt" / "models").glob("*.py")):
        tree = ast.parse(path.read_text())
        classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
        aliases = {n.targets[0].id: n.value.id for n in tree.body
                   if isinstance(n, ast.Assign) and len(n.targets) == 1
                   and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Name)}
        imported = {a.asname or a.name: a.name for n in tree.body
                    if isinstance(n, ast.ImportFrom) for a in n.names}
        for node in tree.body:
            if not (isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets)):
                continue
            value = node.value
            for entry in value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]:
                if not isinstance(entry, ast.Name):
                    raise SystemExit(f"{path}: EntryClass holds {ast.dump(entry)}, not a name")
                name = entry.id
                for _ in range(5):  # ``Alias = Real`` chains
                    name = aliases.get(name, name)
                name = imported.get(name, name)
                if name not in classes and entry.id not in imported:
                    raise SystemExit(f"{path}: EntryClass names {name}, defined nowhere")
                names.add(name)
    return sorted(names)


def dump_transformers() -> int:
    """Print {version, classes: {name: is_backend_compatible()}} for the importable
    transformers (run under the oracle venv's Python)."""
    import warnings

    warnings.filterwarnings("ignore")
    import transformers
    from transformers import PreTrainedModel

    classes: dict[str, bool] = {}
    for name in sorted(n for n in dir(transformers) if n[:1].isupper()):
        if not (name.endswith("Model") or "For" in name):
            continue
        obj = getattr(transformers, name)
        if isinstance(obj, type) and issubclass(obj, PreTrainedModel) \
                and obj is not PreTrainedModel:
            classes[name] = bool(obj.is_backend_compatible())
    from transformers import CONFIG_MAPPING

    # model types whose config class gives the backend no tensor- or pipeline-parallel plan
    untiled: list[str] = []
    unstaged: list[str] = []
    for model_type in sorted(CONFIG_MAPPING.keys()):
        try:
            config_class = CONFIG_MAPPING[model_type]
        except Exception:  # noqa: BLE001 - a type whose module does not import here
            continue
        if not getattr(config_class, "base_model_tp_plan", None):
            untiled.append(model_type)
        if not getattr(config_class, "base_model_pp_plan", None):
            unstaged.append(model_type)
    json.dump({"transformers": transformers.__version__, "classes": classes,
               "no_tp_plan": untiled, "no_pp_plan": unstaged}, sys.stdout, sort_keys=True)
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump-transformers", action="store_true")
    parser.add_argument("--sglang", action="append", default=[],
                        help="RELEASE=SITE_PACKAGES of an installed SGLang wheel")
    parser.add_argument("--transformers", action="append", default=[],
                        help="a --dump-transformers output file")
    args = parser.parse_args(argv)
    if args.dump_transformers:
        return dump_transformers()
    sglang = {}
    for item in args.sglang:
        release, _, folder = item.partition("=")
        sglang[release] = registry(Path(folder).expanduser())
    dumps = {}
    for item in args.transformers:
        dump = json.loads(Path(item).read_text())
        classes = dump["classes"]
        dumps[dump["transformers"]] = {
            "compatible": sorted(k for k, v in classes.items() if v),
            "incompatible": sorted(k for k, v in classes.items() if not v),
            "no_tp_plan": sorted(dump["no_tp_plan"]),
            "no_pp_plan": sorted(dump["no_pp_plan"])}
    missing = {PINS[r] for r in sglang} - dumps.keys()
    if missing:
        raise SystemExit(f"no --transformers dump of {', '.join(sorted(missing))}")
    table = {
        "source": "SGLang wheels' sglang/srt/models/*.py EntryClass (read with ast) and "
                  "transformers' exported PreTrainedModel classes' is_backend_compatible(), "
                  "by tools/model_class_tables.py",
        "pins": {r: PINS[r] for r in sorted(sglang)},
        "sglang": {r: sglang[r] for r in sorted(sglang)},
        "transformers": {v: dumps[v] for v in sorted(dumps)},
    }
    OUT.write_text(json.dumps(table, indent=0, sort_keys=False) + "\n")
    print(f"{OUT}: " + ", ".join(f"{r} {len(v)} classes" for r, v in table["sglang"].items())
          + "; " + ", ".join(f"transformers {v}: {len(d['compatible'])} compatible, "
                              f"{len(d['incompatible'])} not" for v, d in dumps.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
