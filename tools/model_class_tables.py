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

Which ``model_type`` a release can read at all (``--config-types``, updating the tables in
place): SGLang's ``get_config`` reads ``config.json`` with ``AutoConfig.from_pretrained``,
which knows the types of transformers' ``CONFIG_MAPPING_NAMES`` and those SGLang registers
itself on import. Both are read with ``ast``, transformers' from each version's
``models/auto`` folder (no import: a wheel unpacked anywhere will do), SGLang's from every
registration in ``sglang/srt/configs`` and ``sglang/srt/utils/hf_transformers`` (its
``_CONFIG_REGISTRY``, ``AutoConfig.register`` and ``CONFIG_MAPPING`` writes)::

    python tools/model_class_tables.py --config-types \
        --sglang 0.5.23=~/sglang-oracle/lib/python3.11/site-packages --sglang 0.5.22=... \
        --transformers-source 5.19.0=/path/to/unpacked-5.19.0 --transformers-source ...

Every version given is read: those no release pins only say when a type first appeared
(``model_types_since``).
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
#: the top-level keys ``--config-types`` writes
_CONFIG_TYPE_KEYS = ("config_types_source", "sglang_config_types", "model_types_since")


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


def _string_keys(node: ast.AST) -> list[str]:
    """The string keys of a dict literal, ``OrderedDict([...])`` or ``OrderedDict(**{...})``."""
    if isinstance(node, ast.Dict):
        return [k.value for k in node.keys if isinstance(k, ast.Constant)
                and isinstance(k.value, str)]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [e.elts[0].value for e in node.elts if isinstance(e, ast.Tuple) and e.elts
                and isinstance(e.elts[0], ast.Constant) and isinstance(e.elts[0].value, str)]
    if isinstance(node, ast.Call):
        out = [k for a in node.args for k in _string_keys(a)]
        return out + [k for kw in node.keywords for k in _string_keys(kw.value)]
    return []


def config_mapping_names(root: Path) -> list[str]:
    """The model types transformers' ``CONFIG_MAPPING_NAMES`` holds in the version unpacked
    under ``root`` (``auto_mappings.py`` where the version has one, then every ``update`` and
    re-binding in ``configuration_auto.py``): those ``AutoConfig`` knows without remote code."""
    auto = root / "transformers" / "models" / "auto"
    names: set[str] = set()
    for path in (auto / "auto_mappings.py", auto / "configuration_auto.py"):
        if not path.exists():
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "CONFIG_MAPPING_NAMES"
                    for t in node.targets):
                names.update(_string_keys(node.value))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "update" and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id == "CONFIG_MAPPING_NAMES":
                names.update(k for a in node.args for k in _string_keys(a))
    if not names:
        raise SystemExit(f"{auto}: no CONFIG_MAPPING_NAMES found")
    return sorted(names)


def _class_model_types(trees: list[ast.Module]) -> dict[str, str]:
    """Class name -> its ``model_type`` string, inherited from a base class that sets it."""
    own: dict[str, str] = {}
    bases: dict[str, list[str]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            bases[node.name] = [b.id for b in node.bases if isinstance(b, ast.Name)]
            for item in node.body:
                targets = item.targets if isinstance(item, ast.Assign) else [item.target] \
                    if isinstance(item, ast.AnnAssign) else []
                if any(isinstance(t, ast.Name) and t.id == "model_type" for t in targets) \
                        and isinstance(item.value, ast.Constant):
                    own[node.name] = item.value.value
    for _ in range(5):  # subclasses that keep their base's type
        for name, parents in bases.items():
            if name not in own:
                found = [own[b] for b in parents if b in own]
                if found:
                    own[name] = found[0]
    return own


def sglang_config_types(site_packages: Path) -> list[str]:
    """The model types a release registers with transformers itself (its ``_CONFIG_REGISTRY``
    keys, ``AutoConfig.register`` / ``CONFIG_MAPPING.register`` calls and
    ``CONFIG_MAPPING._extra_content`` writes in ``sglang/srt/configs`` and
    ``sglang/srt/utils/hf_transformers``): types ``get_config`` reads whatever transformers
    pins. A registration under a name of a loop resolves through the loop's literal."""
    srt = site_packages / "sglang" / "srt"
    files = sorted((srt / "configs").rglob("*.py")) + sorted(
        (srt / "utils" / "hf_transformers").rglob("*.py"))
    trees = [ast.parse(f.read_text()) for f in files]
    types_of = _class_model_types(trees)
    sequences: dict[str, list[ast.expr]] = {}  # module-level tuples/lists of classes
    for tree in trees:
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Tuple, ast.List)):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        sequences[t.id] = list(node.value.elts)
    out: set[str] = set()

    def literal_types(node: ast.expr) -> list[str]:
        """The model types an expression names: a string, ``Class.model_type``, a class."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.Attribute) and node.attr == "model_type":
            node = node.value
        if isinstance(node, ast.Name) and node.id in types_of:
            return [types_of[node.id]]
        return []

    def loop_types(var: str, loops: list[tuple[ast.expr, ast.expr]]) -> list[str]:
        """What a loop variable takes: the keys of a dict literal's ``items()``, the
        elements of a literal or a module-level sequence (innermost loop first)."""
        for target, iterable in reversed(loops):
            names = [target] if isinstance(target, ast.Name) else list(
                getattr(target, "elts", []))
            if not any(isinstance(n, ast.Name) and n.id == var for n in names):
                continue
            position = next(i for i, n in enumerate(names)
                            if isinstance(n, ast.Name) and n.id == var)
            if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) \
                    and iterable.func.attr == "items" and isinstance(iterable.func.value, ast.Dict):
                pairs = zip(iterable.func.value.keys, iterable.func.value.values, strict=True)
                return [t for k, v in pairs for t in literal_types(k if position == 0 else v)
                        if k is not None]
            elts = (list(iterable.elts) if isinstance(iterable, (ast.Tuple, ast.List))
                    else sequences.get(iterable.id, []) if isinstance(iterable, ast.Name)
                    else [])
            return [t for e in elts for t in literal_types(e)]
        return []

    def named(node: ast.expr, loops: list[tuple[ast.expr, ast.expr]]) -> list[str]:
        found = literal_types(node)
        if found:
            return found
        base = node.value if isinstance(node, ast.Attribute) and node.attr == "model_type" \
            else node
        return loop_types(base.id, loops) if isinstance(base, ast.Name) else []

    def registry_target(node: ast.expr) -> bool:
        text = ast.unparse(node)
        return text in ("_CONFIG_REGISTRY", "CONFIG_MAPPING._extra_content")

    def registry_keys(value: ast.expr, loops: list[tuple[ast.expr, ast.expr]]) -> None:
        """The keys of a dict literal or comprehension that fills ``_CONFIG_REGISTRY``."""
        if isinstance(value, ast.Dict):
            out.update(x for k in value.keys if k is not None for x in named(k, loops))
        elif isinstance(value, ast.DictComp):
            inner = [*loops, *((g.target, g.iter) for g in value.generators)]
            out.update(named(value.key, inner))

    def visit(node: ast.AST, loops: list[tuple[ast.expr, ast.expr]]) -> None:
        if isinstance(node, ast.For):
            loops = [*loops, (node.target, node.iter)]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.args:
            owner = ast.unparse(node.func.value)
            if node.func.attr == "register" and owner in ("AutoConfig", "CONFIG_MAPPING"):
                out.update(named(node.args[0], loops))
            elif node.func.attr == "update" and owner == "_CONFIG_REGISTRY":
                registry_keys(node.args[0], loops)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(t, ast.Subscript) and registry_target(t.value):
                    out.update(named(t.slice, loops))
                if isinstance(t, ast.Name) and t.id == "_CONFIG_REGISTRY":
                    registry_keys(node.value, loops)
        for child in ast.iter_child_nodes(node):
            visit(child, loops)

    for tree in trees:
        visit(tree, [])
    if not out:
        raise SystemExit(f"{srt}: no config registration found")
    return sorted(out)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split(".") if x.isdigit())


def update_config_types(sglang: dict[str, Path], sources: dict[str, Path]) -> int:
    """Add the model types each pinned transformers and each release know to the tables."""
    table = json.loads(OUT.read_text())
    pins = table["pins"]
    known = {v: config_mapping_names(root) for v, root in sources.items()}
    missing = {pins[r] for r in sglang} - known.keys()
    if missing:
        raise SystemExit(f"no --transformers-source of {', '.join(sorted(missing))}")
    for version, entry in table["transformers"].items():
        if version in known:
            entry["model_types"] = known[version]
    table["sglang_config_types"] = {r: sglang_config_types(sglang[r]) for r in sorted(sglang)}
    # the first version read whose mapping holds a type the newest pin lacks
    newest = max(pins.values(), key=_version_key)
    since: dict[str, str] = {}
    for version in sorted(known, key=_version_key):
        if _version_key(version) > _version_key(newest):
            for model_type in known[version]:
                if model_type not in known[newest]:
                    since.setdefault(model_type, version)
    table["model_types_since"] = dict(sorted(since.items()))
    table["config_types_source"] = (
        "transformers' models/auto CONFIG_MAPPING_NAMES (read with ast) per version "
        f"({', '.join(sorted(known, key=_version_key))}), and each SGLang wheel's own config "
        "registrations (sglang/srt/configs, sglang/srt/utils/hf_transformers), by "
        "tools/model_class_tables.py --config-types")
    OUT.write_text(json.dumps(table, indent=0, sort_keys=False) + "\n")
    print(f"{OUT}: " + ", ".join(f"transformers {v}: {len(t)} model types"
                                 for v, t in known.items())
          + "; " + ", ".join(f"{r} registers {len(v)}"
                             for r, v in table["sglang_config_types"].items())
          + f"; {len(since)} types first known after {newest}")
    return 0


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
    parser.add_argument("--config-types", action="store_true",
                        help="add the model types each release can read to the tables")
    parser.add_argument("--transformers-source", action="append", default=[],
                        help="VERSION=FOLDER holding an unpacked transformers wheel")
    args = parser.parse_args(argv)
    if args.dump_transformers:
        return dump_transformers()
    if args.config_types:
        folders = {r: Path(f).expanduser() for r, _, f in
                   (item.partition("=") for item in args.sglang)}
        sources = {v: Path(f).expanduser() for v, _, f in
                   (item.partition("=") for item in args.transformers_source)}
        return update_config_types(folders, sources)
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
    if OUT.exists():  # keep what --config-types added (it reads other sources)
        before = json.loads(OUT.read_text())
        for version, entry in table["transformers"].items():
            kept = before.get("transformers", {}).get(version, {}).get("model_types")
            if kept is not None:
                entry["model_types"] = kept
        for key in _CONFIG_TYPE_KEYS:
            if key in before:
                table[key] = before[key]
    OUT.write_text(json.dumps(table, indent=0, sort_keys=False) + "\n")
    print(f"{OUT}: " + ", ".join(f"{r} {len(v)} classes" for r, v in table["sglang"].items())
          + "; " + ", ".join(f"transformers {v}: {len(d['compatible'])} compatible, "
                              f"{len(d['incompatible'])} not" for v, d in dumps.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
